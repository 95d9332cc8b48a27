"""Places a workspace keeps in step with: a folder, a web site, an S3-compatible bucket. Each kind lists its
items with a version that says when one changed and fetches the changed ones; `api/sync.py` turns a
listing into ingests and deletes. Adding a kind is one module plus one line in `registry.py`."""

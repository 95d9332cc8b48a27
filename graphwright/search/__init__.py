"""Search: every mode keeps one contract (`base.SearchMode`: a typed query in, a `Retrieval` out, then an
answer), is registered by name in `registry.py`, and runs through `engine.SearchEngine`."""

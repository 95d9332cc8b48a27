"""`graphwright eval`: retrieval and answer quality of each search mode, beside peers, on one dataset."""

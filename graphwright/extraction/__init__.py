"""Turning files into documents, chunks and (later) entities and relations."""

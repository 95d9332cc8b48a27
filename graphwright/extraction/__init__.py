"""Entities and relations from chunks: the offline NLP and NER extractors, the LLM extractor, imported graphs,
entity resolution and the graph schema's checks. Reading files into chunks is `documents/`."""

"""Text utilities every layer may use: token counts, sentences, name normalization, stopwords. Imports
nothing else of graphwright."""

"""All Cypher text of graphwright, one module per store role. User and document text only ever arrives as
parameters; the few pieces formatted into a query (index dimension, filter operators) come from allowlists or
integers."""

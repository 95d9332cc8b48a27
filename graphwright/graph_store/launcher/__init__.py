"""The local Neo4j server (`graphwright db`): the packaged Maven launcher project (`neo4j_local/`), starting and
stopping it (`local_server`), and the server's security posture that `doctor` reports (`posture`)."""

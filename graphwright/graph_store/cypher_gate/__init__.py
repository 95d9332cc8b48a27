"""The gate for user-written Cypher (Text2Cypher, the agent's `cypher_read`, the HTTP Cypher route): a query
runs only when its text, Neo4j's plan of it and every expression in it are proven read-only and inside the
store's workspace (`read_only.run_read_only`)."""

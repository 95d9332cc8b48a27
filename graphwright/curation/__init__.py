"""Hand curation of the entity graph, in one package: the changes as a user makes them (`changes.Curation`,
`rag.curation`), the store role they run in (`contract.CurationRole`; its Cypher is graph_store/curation.py),
and the rules a change leaves for every later write (`rules`: pure data, applied by the store's writes)."""

from graphwright.curation.changes import Curation, local_user

__all__ = ["Curation", "local_user"]

"""Stored conversations and their turns, each scoped to its owner (ConversationsRole)."""

from __future__ import annotations

# (:Conversation)-[:HAS_TURN]->(:Turn), each turn linked to the chunks it cited and the entities it was about,
# so a conversation's evidence opens in Browser. Every query names the owner (the key's fingerprint): a
# conversation of another key is not found, the same as one that does not exist. Nothing else reads these
# labels: retrieval, communities and stats match Document, Chunk, Entity and Community only.
_CONVERSATION_FIELDS = """c.id AS id, c.title AS title, toString(c.created_at) AS created_at,
       toString(c.updated_at) AS updated_at, COUNT { (c)-[:HAS_TURN]->(:Turn) } AS turns"""

CREATE_CONVERSATION = f"""
CREATE (c:Conversation {{id: $id, owner: $owner, title: $title, created_at: datetime(), updated_at: datetime()}})
RETURN {_CONVERSATION_FIELDS}
"""

APPEND_TURN = """
MATCH (c:Conversation {id: $id}) WHERE c.owner = $owner
SET c.updated_at = datetime(), c.title = CASE WHEN c.title = '' THEN $title ELSE c.title END
WITH c
CALL (c) { OPTIONAL MATCH (c)-[:HAS_TURN]->(t:Turn) RETURN coalesce(max(t.index), -1) AS last }
CREATE (c)-[:HAS_TURN]->(t:Turn {index: last + 1, question: $question, answer: $answer, mode: $mode,
        standalone: $standalone, chunk_ids: $chunk_ids, entity_ids: $entity_ids, created_at: datetime()})
WITH c, t
CALL (t) { UNWIND $chunk_ids AS cid MATCH (x:Chunk {id: cid}) MERGE (t)-[:CITED]->(x) }
CALL (t) { UNWIND $entity_ids AS eid MATCH (x:Entity {id: eid}) MERGE (t)-[:ABOUT]->(x) }
WITH c, t
CALL (c) {
  MATCH (c)-[:HAS_TURN]->(old:Turn)
  WITH old ORDER BY old.index DESC SKIP $max_turns
  DETACH DELETE old
}
RETURN t.index AS index
"""

CONVERSATION = f"""
MATCH (c:Conversation {{id: $id}}) WHERE c.owner = $owner
CALL (c) {{
  OPTIONAL MATCH (c)-[:HAS_TURN]->(t:Turn)
  WITH t ORDER BY t.index
  RETURN collect(t {{.index, .question, .answer, .mode, .standalone, .chunk_ids, .entity_ids,
                     created_at: toString(t.created_at)}}) AS history
}}
RETURN {_CONVERSATION_FIELDS}, history
"""

CONVERSATIONS = f"""
MATCH (c:Conversation) WHERE c.owner = $owner
WITH c ORDER BY c.updated_at DESC, c.id SKIP $offset LIMIT $limit
RETURN {_CONVERSATION_FIELDS}
"""

DELETE_CONVERSATION = """
MATCH (c:Conversation {id: $id}) WHERE c.owner = $owner
CALL (c) { MATCH (c)-[:HAS_TURN]->(t:Turn) DETACH DELETE t }
DETACH DELETE c
RETURN count(*) AS deleted
"""

RESEAL_CONVERSATION = """
MATCH (c:Conversation {id: $id}) WHERE c.owner = $old
SET c.owner = $owner, c.title = $title
WITH c
CALL (c) {
  UNWIND $turns AS turn
  MATCH (c)-[:HAS_TURN]->(t:Turn {index: turn.index})
  SET t.question = turn.question, t.answer = turn.answer, t.standalone = turn.standalone
}
RETURN count(c) AS moved
"""

EXPIRE_CONVERSATIONS = """
MATCH (c:Conversation) WHERE c.updated_at < datetime() - duration({days: $days})
CALL (c) { MATCH (c)-[:HAS_TURN]->(t:Turn) DETACH DELETE t }
DETACH DELETE c
RETURN count(*) AS deleted
"""

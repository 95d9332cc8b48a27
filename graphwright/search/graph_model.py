"""The graph as a prompt sees it: labels, properties and relationship types present, and the graph schema
the user gave (its patterns spelled as they are stored: labels like `EthnicGroup`, relationship types like
`BIRTH_PLACE`). Text2Cypher and the agent's `graph_schema` tool read it."""

from __future__ import annotations

from graphwright.graph_schema import GraphSchema, is_literal
from graphwright.graph_store.contracts import GraphStore
from graphwright.text.normalize import entity_label, relation_type


def graph_model_text(store: GraphStore) -> str:
    text = store.graph.schema_text()
    stored = store.admin.graph_schema()
    if not stored:
        return text
    schema = GraphSchema.model_validate_json(stored)
    lines = ["Graph schema (entities carry the type as a label and in `type`):"]
    for p in schema.patterns:
        target = "a literal value" if is_literal(p.target) else f"(:{entity_label(relation_type(p.target))})"
        source = f"(:{entity_label(relation_type(p.source))})"
        description = schema.relationship_description(p.relationship)
        lines.append(
            f"- {source}-[:{relation_type(p.relationship)}]->{target}" + (f"  {description}" if description else "")
        )
    for prop in schema.literal_properties():  # the same facts, as the properties Cypher filters on
        lines.append(
            f"- (:{entity_label(relation_type(prop.node_type))}).`{prop.key}` ({prop.kind}) holds its "
            f"{relation_type(prop.relationship)} literals (a list when there are several)"
        )
    if not schema.patterns:
        lines.append("- relationship types: " + ", ".join(relation_type(t.label) for t in schema.relationship_types))
    return text + "\n" + "\n".join(lines)

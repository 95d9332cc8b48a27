"""A workspace's names in the graph. Neo4j Community holds one user database, so workspaces share it, and
each one's nodes carry only labels of its own: `Chunk` in `default` (the graph as it always was), `` `legal__Chunk` ``
in `legal`; relationship types, entity-type labels and index names the same way. No relationship ever joins two
workspaces (every write matches both ends by the workspace's labels), so a query that starts from a workspace's
label reaches nothing else, whatever it forgets: a vector or fulltext index holds one workspace's nodes, a walk
or a path search expands only within it, community detection reads only its entities.

`render` turns the package's Cypher (written once, with the default names, in queries/) into a workspace's:
the fixed labels and types after `:`, dynamic `$(...)` names, the quoted index names, and `type(r)` / `labels(n)`
stripped of the prefix, so what a query returns reads the same in every workspace. User-written Cypher is never
rendered: the read-only gate proves instead that its plan touches only the workspace's names (`owns`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphwright.config import DEFAULT_WORKSPACE, check_workspace_name
from graphwright.text.normalize import NODE_LABELS

SEPARATOR = "__"
# The labels and relationship types graphwright's own queries name; a fixed list, so rendering cannot
# touch anything else.
LABELS = NODE_LABELS
TYPES = ("PART_OF", "NEXT", "MENTIONS", "IN_COMMUNITY", "PARENT_OF", "HAS_TURN", "CITED", "ABOUT", "SUMMARIZES")
INDEXES = (
    "chunk_embedding",
    "entity_embedding",
    "community_embedding",
    "summary_embedding",
    "chunk_text",
    "chunk_terms",
    "entity_text",
    "summary_text",
)
# Labels of the database itself, no workspace's: the registry of workspaces.
GLOBAL_LABELS = frozenset({"GraphwrightWorkspace"})
REGISTRY_CONSTRAINT = "graphwright_workspace_name"
GLOBAL_SCHEMA = frozenset({REGISTRY_CONSTRAINT})

_FIXED_NAME = re.compile(rf":({'|'.join(LABELS + TYPES)})\b")
_DYNAMIC = re.compile(r"\$\(")
_TYPE_OF = re.compile(r"\btype\((\w+)\)")
_LABELS_OF = re.compile(r"\blabels\((\w+)\)")
_INDEX_NAME = re.compile(rf"'({'|'.join(INDEXES)})'")
_SCHEMA_NAME = re.compile(r"\b(CONSTRAINT|INDEX) (\w+) IF NOT EXISTS")
# A name some workspace other than default owns: `<workspace>__<name>`, the name starting with a letter.
_PREFIXED = re.compile(r"([a-z0-9][a-z0-9_-]*?)__([A-Za-z][A-Za-z0-9_]*)")


def owner_of(name: str) -> str:
    """The workspace a label, relationship type, index or constraint name belongs to."""
    found = _PREFIXED.fullmatch(name)
    if found and SEPARATOR not in found.group(2):
        return found.group(1)
    return DEFAULT_WORKSPACE


@dataclass(frozen=True)
class Workspace:
    name: str = DEFAULT_WORKSPACE
    _rendered: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        check_workspace_name(self.name)

    @property
    def is_default(self) -> bool:
        return self.name == DEFAULT_WORKSPACE

    @property
    def prefix(self) -> str:
        return "" if self.is_default else self.name + SEPARATOR

    def name_of(self, base: str) -> str:
        """The stored name of a label, type or index (for parameters and dynamic labels)."""
        return self.prefix + base

    def identifier(self, base: str) -> str:
        """The name as Cypher text: quoted when prefixed (workspace names may hold `-`)."""
        return f"`{self.name_of(base)}`" if self.prefix else base

    def owns(self, name: str) -> bool:
        return name not in GLOBAL_LABELS and name not in GLOBAL_SCHEMA and owner_of(name) == self.name

    def base_of(self, name: str) -> str:
        """A stored name without the workspace (only for names it owns)."""
        return name[len(self.prefix) :] if self.prefix and name.startswith(self.prefix) else name

    def render(self, query: str) -> str:
        """Our Cypher with this workspace's names (the default workspace's is the text itself)."""
        if self.is_default:
            return query
        found = self._rendered.get(query)
        if found is None:
            cut = len(self.prefix)
            text = _FIXED_NAME.sub(lambda m: ":" + self.identifier(m.group(1)), query)
            text = _DYNAMIC.sub(f"$('{self.prefix}' + ", text)
            text = _INDEX_NAME.sub(lambda m: f"'{self.name_of(m.group(1))}'", text)
            text = _SCHEMA_NAME.sub(lambda m: f"{m.group(1)} {self.identifier(m.group(2))} IF NOT EXISTS", text)
            text = _TYPE_OF.sub(lambda m: f"substring(type({m.group(1)}), {cut})", text)
            text = _LABELS_OF.sub(lambda m: f"[_l IN labels({m.group(1)}) | substring(_l, {cut})]", text)
            self._rendered[query] = found = text
        return found

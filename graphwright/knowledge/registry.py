"""The kinds of knowledge base by name. Adding one = a module with a `KnowledgeSource` subclass (its `Spec`
the entry's fields) plus one line here, or `SOURCES.register(kind, "module:Class")` at run time."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from graphwright.errors import KnowledgeBaseConfigError
from graphwright.knowledge.config import KnowledgeBaseSpec, read_entries
from graphwright.registry import Registry

if TYPE_CHECKING:
    from graphwright.knowledge.base import KnowledgeSource, SourceEnv

SOURCES: Registry[type[KnowledgeSource]] = Registry(
    "knowledge base kind",
    {
        "workspace": "graphwright.knowledge.workspace:WorkspaceSource",
        "graphwright": "graphwright.knowledge.graphwright_server:GraphwrightServerSource",
        "dify": "graphwright.knowledge.dify_dataset:DifyDatasetSource",
        "dify-external": "graphwright.knowledge.dify_external:DifyExternalSource",
    },
    parameter="kind",
)


def source_class(kind: str) -> type[KnowledgeSource]:
    return SOURCES.load(kind)


def open_source(spec: KnowledgeBaseSpec, env: SourceEnv) -> KnowledgeSource:
    return source_class(spec.kind)(spec, env)


def load_knowledge_bases(path: Path) -> list[KnowledgeBaseSpec]:
    """Every entry of the file, validated by its kind's model (the kind named in knowledge/registry.py)."""
    specs: list[KnowledgeBaseSpec] = []
    for entry in read_entries(path):
        where = f"knowledge-base file {path}, {entry.get('name', '(no name)')!r}"
        try:
            cls = source_class(str(entry.get("kind", "")))
        except ValueError as exc:
            raise KnowledgeBaseConfigError(f"{where}: {exc}") from exc
        try:
            specs.append(cls.Spec.model_validate(entry))
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"]) or "entry"
            raise KnowledgeBaseConfigError(f"{where}: {field}: {error['msg']}") from exc
    return specs

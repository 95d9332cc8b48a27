"""Another workspace of this database as a knowledge base, searched with one of its modes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from graphwright.errors import KnowledgeBaseError, ToolFailedError
from graphwright.knowledge.base import KnowledgeSource, SourceDocument, SourcePassage, WorkspaceReader
from graphwright.knowledge.config import KnowledgeBaseSpec


class WorkspaceSpec(KnowledgeBaseSpec):
    kind: Literal["workspace"]
    workspace: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")
    mode: str = Field("hybrid", pattern=r"^[a-z_]{1,30}$")

    def named_workspace(self) -> str | None:
        return self.workspace


class WorkspaceSource(KnowledgeSource):
    kind = "workspace"
    Spec = WorkspaceSpec

    def _reader(self) -> tuple[WorkspaceReader, WorkspaceSpec]:
        spec = self.spec
        assert isinstance(spec, WorkspaceSpec)
        if self.env.workspaces is None:
            raise KnowledgeBaseError(f"knowledge base {self.name!r}: no database to read workspaces from here")
        return self.env.workspaces, spec

    def search(self, question: str, k: int) -> list[SourcePassage]:
        reader, spec = self._reader()
        return [
            p.model_copy(update={"source": self.name}) for p in reader.search(spec.workspace, spec.mode, question, k)
        ]

    def document(self, document_id: str) -> SourceDocument:
        reader, spec = self._reader()
        found = reader.document(spec.workspace, document_id)
        if found is None:
            raise ToolFailedError(f"no document {document_id!r} in knowledge base {self.name!r}")
        return found.model_copy(
            update={
                "source": self.name,
                "passages": [p.model_copy(update={"source": self.name}) for p in found.passages],
            }
        )

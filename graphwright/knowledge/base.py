"""The contract of a knowledge source: search with a question, and (where the service can) return a whole
document. Every kind answers in the same two models, so the agent's tools and the `federated` mode treat a
Dify dataset like another graphwright server."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from graphwright.knowledge.config import KnowledgeBaseSpec

if TYPE_CHECKING:
    import httpx


class Reply(BaseModel):
    """A remote's reply as we read it: the fields we use are checked, the ones a newer version adds ignored."""

    model_config = ConfigDict(extra="ignore")


class SourcePassage(BaseModel):
    """One passage a source found, with the ids the source itself uses (its chunk id may be a UUID)."""

    source: str  # the knowledge base's name in the file
    id: str
    document_id: str
    text: str
    title: str | None = None
    score: float | None = None  # the source's own score; not comparable across sources (fusion uses ranks)


class SourceDocument(BaseModel):
    source: str
    document_id: str
    title: str | None = None
    passages: list[SourcePassage] = Field(default_factory=list)


class WorkspaceReader(Protocol):
    """Searches and reads another workspace of this database (the search layer provides it, so this package
    does not import the search engine)."""

    def search(self, workspace: str, mode: str, question: str, k: int) -> list[SourcePassage]: ...

    def document(self, workspace: str, document_id: str) -> SourceDocument | None: ...


@dataclass(frozen=True)
class SourceEnv:
    """What a source may use: the time one call may take, an HTTP transport (tests inject one; None: the
    network), and the reader of this database's other workspaces (None where there is none)."""

    timeout: float = 10.0
    transport: httpx.BaseTransport | None = None
    workspaces: WorkspaceReader | None = None


class KnowledgeSource(ABC):
    """A knowledge base reachable from this process, built from its entry in the file (`Spec`, the kind's
    fields). `description` tells the agent what it holds. A failure is a `KnowledgeBaseError` naming the
    source, never its key."""

    kind: ClassVar[str]
    Spec: ClassVar[type[KnowledgeBaseSpec]] = KnowledgeBaseSpec
    has_documents: ClassVar[bool] = True  # offers a whole document by id (Dify's external API has no such call)

    def __init__(self, spec: KnowledgeBaseSpec, env: SourceEnv) -> None:
        self.spec = spec
        self.env = env
        self.name = spec.name
        self.description = spec.description or f"the {self.kind} knowledge base {spec.name!r}"

    @abstractmethod
    def search(self, question: str, k: int) -> list[SourcePassage]:
        """The source's best `k` passages for `question`, best first."""

    def document(self, document_id: str) -> SourceDocument:
        """The document's passages in order; sources without `has_documents` refuse."""
        from graphwright.errors import ToolFailedError

        raise ToolFailedError(f"knowledge base {self.name!r} ({self.kind}) cannot return whole documents")

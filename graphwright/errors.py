"""One root for every error graphwright raises on purpose, so callers can catch ours and only ours.

    GraphwrightError
    ├── InvalidRequestError (also ValueError)   a parameter the caller got wrong; the message names it
    │   └── LLMRequiredError                    a mode or option that needs an LLM, with none configured
    ├── GraphStoreError                         Neo4j cannot be used: down, unreachable, credentials refused
    ├── QueryRejectedError                      Neo4j refused one query (syntax, a write in a READ transaction)
    ├── WriteRejectedError                      Neo4j refused one write; the transaction rolled back
    ├── SchemaMismatchError                     the indexes were built for another embedding model
    ├── LocalServerError                        the bundled Neo4j cannot be built or started
    ├── LLMError                                the LLM endpoint failed after retries or answered nothing usable
    ├── EmbeddingError                          the embeddings endpoint failed after retries or answered wrongly
    ├── JSONRepairError (also ValueError)       an LLM reply with no readable JSON object
    ├── PromptError                             a prompt file missing or filled with the wrong values
    ├── LoadError (also ValueError)             one input file cannot be read
    ├── FormatError (also ValueError)           a PDF, Word or HTML file that is encrypted, corrupt or has no text
    ├── ExtractorNotAvailableError              an extractor asked for that cannot run here
    ├── CypherRejectedError (also ValueError)   a query that is not provably read-only
    ├── BusyError                               the server's job queue is full (HTTP 429 with Retry-After)
    ├── CalculationError (also ValueError)      an expression the calculator tool does not accept
    ├── ToolFailedError                         an agent tool that found nothing
    ├── DatasetError (also ValueError)          an evaluation dataset that cannot be read
    └── PeersNotInstalledError                  the optional peers of `graphwright eval` are missing

The leaf classes live beside the code that raises them; this module holds the root and the classes that
several layers share. Programming errors (TypeError, KeyError...) are never caught as ours."""

from __future__ import annotations


class GraphwrightError(Exception):
    """Root of every error graphwright raises on purpose."""


class InvalidRequestError(GraphwrightError, ValueError):
    """A parameter the caller got wrong (an empty question, an unknown mode, a filter on a mode that takes
    none); the message names the parameter as the Python API spells it."""


class LLMRequiredError(InvalidRequestError):
    """A mode or option that needs an LLM, asked for with none configured."""


class GraphStoreError(GraphwrightError):
    """Neo4j cannot be used: not running, unreachable, or the credentials were refused."""


class QueryRejectedError(GraphwrightError):
    """Neo4j refused one query (a syntax error, a write in a READ transaction, a timeout); the database
    itself is fine."""


class WriteRejectedError(GraphwrightError):
    """Neo4j refused one write transaction (e.g. its memory limit); nothing of it was committed."""


class BusyError(GraphwrightError):
    """The server's job queue is full; try again after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int = 10) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class CypherRejectedError(GraphwrightError, ValueError):
    """A query that is not provably read-only; the message says which lock refused it and why."""


class LLMError(GraphwrightError):
    """The LLM endpoint failed after retries, or answered with nothing usable."""


class EmbeddingError(GraphwrightError):
    """The embeddings endpoint failed after retries, or answered with vectors that do not fit."""

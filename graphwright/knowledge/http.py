"""One HTTP call to a remote knowledge base, bounded: a timeout for the whole call, at most `MAX_BYTES` read,
no redirects followed (the key goes to the origin it was configured for, and nowhere else), and every failure
a `KnowledgeBaseError` of fixed words: the source's name, the status code or the kind of failure, never a byte of
what the remote answered nor a header. A remote may echo the key in any encoding (URL-encoded, base64, reversed),
and masking the literal catches none of those: so nothing the remote said is passed on, to a reader, the LLM,
a log or a trace."""

from __future__ import annotations

import json
from typing import Any

from pydantic import SecretStr

from graphwright.errors import KnowledgeBaseError
from graphwright.knowledge.base import SourceEnv

MAX_BYTES = 8_000_000
# What a status says to the operator, in our words (the remote's body is never read out).
_STATUS_HINTS = {
    401: " (its key was refused: check the variable key_env names)",
    403: " (its key may not read there)",
    404: " (no such knowledge base or path at that URL)",
    429: " (it is busy: too many requests)",
}


def call_json(
    name: str,
    env: SourceEnv,
    method: str,
    url: str,
    *,
    key: SecretStr | None,
    body: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
) -> Any:
    """The JSON the source answered `method url` with."""
    import httpx  # lazy: a CLI question that reaches no remote source never pays for it

    secret = key.get_secret_value() if key is not None else ""
    headers = {"Accept": "application/json", **({"Authorization": f"Bearer {secret}"} if secret else {})}
    try:
        with (
            httpx.Client(transport=env.transport, timeout=env.timeout, follow_redirects=False) as client,
            client.stream(method, url, json=body, params=params, headers=headers) as response,
        ):
            raw = bytearray()
            for part in response.iter_bytes():
                raw += part
                if len(raw) > MAX_BYTES:
                    raise KnowledgeBaseError(f"knowledge base {name!r} answered more than {MAX_BYTES:,} bytes")
            status = response.status_code
    except httpx.TimeoutException as exc:
        raise KnowledgeBaseError(f"knowledge base {name!r} did not answer within {env.timeout:g} s") from exc
    except httpx.HTTPError as exc:
        raise KnowledgeBaseError(
            f"knowledge base {name!r} is not reachable at {origin(url)} ({type(exc).__name__})"
        ) from exc
    text = bytes(raw).decode("utf-8", "replace")
    if 300 <= status < 400:
        raise KnowledgeBaseError(
            f"knowledge base {name!r} answered HTTP {status} (a redirect: not followed, the key stays with "
            f"{origin(url)})"
        )
    if status >= 400:
        raise KnowledgeBaseError(f"knowledge base {name!r} answered HTTP {status}{_STATUS_HINTS.get(status, '')}")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise KnowledgeBaseError(f"knowledge base {name!r} answered something that is not JSON") from exc


def origin(url: str) -> str:
    """`scheme://host:port` of a URL, without any credentials in it."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def shape_error(name: str, what: str) -> KnowledgeBaseError:
    return KnowledgeBaseError(f"knowledge base {name!r} answered {what}, which its API does not allow")

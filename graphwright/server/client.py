"""Ask a running `graphwright serve` instead of loading the embedder in this process: what makes repeated
`graphwright query` calls fast. Only httpx and the result model are imported here."""

from __future__ import annotations

from typing import Any

from graphwright.errors import GraphwrightError, InvalidRequestError
from graphwright.server.schemas import ServedResult


class ServerUnavailableError(GraphwrightError):
    """No server answered at the URL (not running, wrong port)."""


class ServerRefusedError(GraphwrightError):
    """The server answered with an error (bad key, Neo4j down...); the message is the server's."""


def search_remote(url: str, body: dict[str, Any], key: str | None = None, timeout: float = 300.0) -> ServedResult:
    import httpx

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx.post(url.rstrip("/") + "/v1/search", json=body, headers=headers, timeout=timeout)
    except httpx.TransportError as exc:
        raise ServerUnavailableError(f"no graphwright server at {url} ({exc.__class__.__name__})") from exc
    if response.status_code == 400:
        raise InvalidRequestError(_message(response))
    if response.status_code != 200:
        raise ServerRefusedError(f"the server at {url} answered {response.status_code}: {_message(response)}")
    return ServedResult.model_validate_json(response.content)


def _message(response: Any) -> str:
    try:
        return str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return str(response.text[:300])

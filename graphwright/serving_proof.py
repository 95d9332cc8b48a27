"""Whether a URL is served by this install: the server answers a fresh challenge with an HMAC under the
install's secret (a 0600 file under the home), which only a server of the same home can compute. The CLI
checks it before it sends a key to the server `serving.json` names; the search checks it to know a knowledge
base that points back at this server for what it is, another workspace of this database."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import urllib.request
from pathlib import Path

PROOF_PATH = "/v1/serving-proof"  # where a server answers a challenge with `serving_proof`
SECRET_FILE = "server-secret"


def serving_proof(secret: bytes, challenge: str) -> str:
    """What a server answers to a challenge (GET /v1/serving-proof?challenge=...)."""
    return hmac.new(secret, b"serving\x00" + challenge.encode(), hashlib.sha256).hexdigest()


def existing_secret(home: Path) -> bytes | None:
    """The install's secret if it was ever made (None: no server of this home ever ran)."""
    try:
        return bytes.fromhex((home / SECRET_FILE).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def proves(url: str, secret: bytes, timeout: float = 2.0) -> bool:
    """Whether the server at `url` (scheme, host, port and any `/w/<name>` prefix) answers with this secret's
    proof. No key is sent; redirects are not followed; the answer is read up to 4 KB."""
    challenge = secrets.token_hex(16)
    opener = urllib.request.build_opener(_NoRedirect, urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"{url.rstrip('/')}{PROOF_PATH}?challenge={challenge}", timeout=timeout) as response:
            proof = str(json.loads(response.read(4096))["proof"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return hmac.compare_digest(proof, serving_proof(secret, challenge))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None

"""Keys bound to workspaces: `KEY@a+b`, one key full in one workspace and read-only in another, admin keys."""

from __future__ import annotations

import pytest

from graphwright.errors import ServerConfigError
from graphwright.server.security import OPEN_GRANT, KeyRing


def test_a_key_holds_its_workspaces_only() -> None:
    ring = KeyRing.from_strings("k1@legal+support,k2", "k1@archive,k3@legal", "root")
    k1 = ring.grant("k1")
    assert k1 is not None
    assert (k1.role_in("legal"), k1.role_in("support"), k1.role_in("archive"), k1.role_in("default")) == (
        "write",
        "write",
        "read",
        None,
    )
    assert not k1.admin and k1.sees("archive") and not k1.sees("default")
    assert ring.role("k2", "anything") == "write"  # no `@`: every workspace, as before workspaces
    assert ring.role("k3", "legal") == "read" and ring.role("k3", "default") is None
    admin = ring.grant("root")
    assert admin is not None and admin.admin and admin.role_in("whatever") == "write"
    assert ring.grant("nope") is None and ring.grant("k1@legal") is None
    assert OPEN_GRANT.admin and OPEN_GRANT.sees("x")


@pytest.mark.parametrize("raw", ["k@", "k@Legal", "k@a__b", "k@ok+"])
def test_a_key_naming_a_bad_workspace_stops_the_server(raw: str) -> None:
    with pytest.raises(ServerConfigError, match="workspace"):
        KeyRing.from_strings(raw, None)

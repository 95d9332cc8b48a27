"""Data at rest private to its owner: the server secret and the home's tightening."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from graphwright.private_files import PRIVATE_UMASK, private_umask, tighten
from graphwright.server.fingerprints import SECRET_FILE, legacy_owner_of, owner_of, server_secret


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_tighten_takes_group_and_other_access_off_the_home_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "neo4j" / "data").mkdir(parents=True)
    store = home / "neo4j" / "data" / "neostore"
    store.write_text("every document's text")
    os.chmod(store, 0o644)
    script = home / "run.sh"
    script.write_text("#!/bin/sh\n")
    os.chmod(script, 0o755)
    for folder in (home, home / "neo4j", home / "neo4j" / "data"):
        os.chmod(folder, 0o755)
    (home / "link").symlink_to("/etc/hostname")
    assert len(tighten(home)) == 5
    assert _mode(store) == 0o600 and _mode(script) == 0o700
    assert all(_mode(f) == 0o700 for f in (home, home / "neo4j", home / "neo4j" / "data"))
    assert tighten(home) == []  # said once: nothing left to change
    assert _mode(Path("/etc/hostname")) & 0o004  # a link is not followed out of the home


def test_the_private_umask_makes_new_files_owner_only(tmp_path: Path) -> None:
    before = private_umask()
    try:
        (tmp_path / "f").write_text("x")
        (tmp_path / "d").mkdir()
        assert _mode(tmp_path / "f") == 0o600 and _mode(tmp_path / "d") == 0o700
    finally:
        os.umask(before)
    assert PRIVATE_UMASK == 0o077


def test_the_server_secret_is_made_once_owner_only_and_keys_fingerprints(tmp_path: Path) -> None:
    first = server_secret(tmp_path / "home")
    assert _mode(tmp_path / "home" / SECRET_FILE) == 0o600 and len(first) == 32
    assert server_secret(tmp_path / "home") == first  # kept, not remade
    other = server_secret(tmp_path / "other")
    assert other != first
    key = "read-key-0123456789"
    mine, theirs = owner_of(key, first), owner_of(key, other)
    assert mine.name != theirs.name and mine.key != theirs.key  # without the secret, nothing to check against
    assert mine.name != legacy_owner_of(key).name and mine.key != legacy_owner_of(key).key
    assert owner_of(key, first) == mine and owner_of("another-key", first).name != mine.name
    assert mine.key is not None and mine.key.hex()[:32] not in mine.name  # the name gives nothing of the seal
    assert [p.name for p in (tmp_path / "home").iterdir()] == [SECRET_FILE]  # no scratch file left


def test_a_new_home_folder_is_tightened_without_a_word_and_an_old_readable_store_is_said(tmp_path: Path) -> None:
    from rich.console import Console

    from graphwright.cli.common import tighten_home

    home = tmp_path / "new-home"
    home.mkdir()
    os.chmod(home, 0o755)  # what `mkdir` gives under the usual umask
    console = Console(record=True, width=200)
    tighten_home(home, console)
    assert _mode(home) == 0o700 and console.export_text() == ""  # nothing of the user's was readable
    store = home / "neo4j" / "store"
    store.parent.mkdir()
    os.chmod(store.parent, 0o755)  # as an older release left it, whatever this process's umask
    store.write_text("every document's text")
    os.chmod(store, 0o644)
    tighten_home(home, console)
    assert _mode(store) == 0o600 and "Made 2 files and folders" in console.export_text()  # the store and its folder

"""The uploaded files an ingest could not read, kept so the documents table can retry them: a failed row's
"retry" runs its ingest again from this copy (no second upload), and deleting the row deletes the copy. Each
is kept under a folder named by a hash of its workspace and source (the path the client uploaded it as), with
the file at that same relative path, so the retry names its document exactly as the first ingest would have,
and a note of the extractor the upload asked for."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

FAILED_DIR = "failed"  # under the uploads folder, beside the interrupted jobs' uploads
# beside an upload's files (a hidden file the ingest skips): what resuming its job, or retrying it, needs
NOTE_FILE = ".graphwright-job.json"


def _folder(root: Path, workspace: str, source: str) -> Path:
    digest = hashlib.sha256(f"{workspace}\0{source}".encode()).hexdigest()[:32]
    return root / FAILED_DIR / digest


def inside(folder: Path, source: str) -> Path | None:
    """`source` below `folder`, or None for a source that would leave it (an absolute path, `..`)."""
    target = (folder / source).resolve()
    return target if target.is_relative_to(folder.resolve()) and target != folder.resolve() else None


def keep_failed(root: Path, workspace: str, upload: Path, sources: Iterable[str], extractor: str | None) -> int:
    """Move each failed file out of `upload` (before it is removed) to where a retry finds it; how many."""
    kept = 0
    for source in sources:
        found = inside(upload, source)
        if found is None or not found.is_file():
            continue  # a document of a file that went in (a record of a JSON upload), or nothing to keep
        folder = _folder(root, workspace, source)
        target = inside(folder, source)
        if target is None:
            continue
        shutil.rmtree(folder, ignore_errors=True)  # an older failure of the same file: this one replaces it
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.replace(found, target)
        note = {"extractor": extractor, "workspace": workspace, "source": source}
        (folder / NOTE_FILE).write_text(json.dumps(note), encoding="utf-8")
        kept += 1
    return kept


def release(root: Path, workspace: str, sources: Iterable[str]) -> None:
    """Forget the kept copies of these sources (they went in, or their row was deleted)."""
    for source in sources:
        shutil.rmtree(_folder(root, workspace, source), ignore_errors=True)


def kept(root: Path, workspace: str, source: str) -> tuple[Path, str | None] | None:
    """The folder holding the kept copy of a failed file and the extractor its upload asked for; None."""
    folder = _folder(root, workspace, source)
    try:
        note = json.loads((folder / NOTE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    file = inside(folder, source)
    if note.get("source") != source or note.get("workspace") != workspace or file is None or not file.is_file():
        return None
    extractor = note.get("extractor")
    return folder, extractor if isinstance(extractor, str) else None

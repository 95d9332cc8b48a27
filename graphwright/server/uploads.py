"""Uploads as ingest input: file names of our own making, multipart files, JSON records and NDJSON
streams written where an ingest job reads them, each bounded as it arrives."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError

from graphwright.errors import InvalidRequestError
from graphwright.server.schemas import DocumentsRequest, JsonDocument
from graphwright.server.security import RequestTooLarge

# Characters a saved name may not hold as they are: path separators, the escape character itself, controls,
# and what shells and URLs treat specially. Each becomes %XX of its UTF-8 bytes, so two different client
# names never become one saved name (the old rule made `a?.md` and `a!.md` both `a_.md`).
_UNSAFE_CHAR = re.compile(r"[\x00-\x1f\x7f/\\%:*?\"<>|\u2028\u2029]")
_MAX_NAME_BYTES = 200


def safe_upload_name(name: str | None, index: int) -> str:
    """A file name of our own making, never a path: the client's base name with unsafe characters as %XX
    (letters of any script kept, so `名前.md` stays `名前.md`), one-to-one so names never collide, and the
    extension kept when a long name is shortened."""
    import unicodedata

    base = unicodedata.normalize("NFC", (name or "").replace("\\", "/").rsplit("/", 1)[-1])
    base = _UNSAFE_CHAR.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode("utf-8")), base)
    if base.startswith("."):  # no hidden files, no `..`
        base = "%2E" + base[1:]
    if not base.strip(" ."):
        return f"upload-{index}"
    stem, dot, suffix = base.rpartition(".")
    if not dot or len(suffix.encode()) > 16:
        stem, dot, suffix = base, "", ""
    while len((stem + dot + suffix).encode()) > _MAX_NAME_BYTES:
        stem = stem[:-1]
    return f"{stem}{dot}{suffix}"


async def save_files(request: Request, folder: Path, limit: int) -> str | None:
    form = await request.form(max_files=1000, max_fields=20, max_part_size=limit)
    try:
        uploads = [f for f in form.getlist("files") if not isinstance(f, str)]
        if not uploads:
            raise InvalidRequestError("no files: send them in the multipart field `files`")
        names: dict[str, str] = {}
        for index, upload in enumerate(uploads):
            name = safe_upload_name(upload.filename, index)
            if name in names:  # the same document twice in one request: which one should it be?
                raise InvalidRequestError(
                    f"two files of one upload are named {names[name]!r}; a name is a "
                    "document's id, so send each name once"
                )
            names[name] = upload.filename or name
        for (name, _), upload in zip(names.items(), uploads):
            with (folder / name).open("wb") as out:
                shutil.copyfileobj(upload.file, out)
        extractor = form.get("extractor")
        return upload_extractor(extractor if isinstance(extractor, str) else None)
    finally:
        await form.close()


# One NDJSON record may be this long: a line is held whole while it is checked.
SMALL_LINE = 64 * 1024 * 1024
NDJSON = ("application/x-ndjson", "application/jsonl", "application/jsonlines", "application/json-seq")


def _record_line(document: JsonDocument) -> str:
    """One record as the .jsonl line the loader reads; a record without an id is named by its text, so
    posting it again updates it instead of adding a copy."""
    import hashlib
    import json

    ident = document.id or "doc-" + hashlib.sha256(document.text.encode()).hexdigest()[:16]
    return json.dumps({**document.model_dump(exclude_none=True), "id": ident}, ensure_ascii=False)


async def save_records(request: Request, folder: Path, limit: int) -> str | None:
    from pydantic import ValidationError

    body = bytearray()
    async for piece in request.stream():
        body += piece
        if len(body) > limit:
            raise RequestTooLarge(
                limit,
                "GRAPHWRIGHT_MAX_JSON_BYTES; send larger sets as application/x-ndjson, one record a line, or as files",
            )
    try:
        parsed = DocumentsRequest.model_validate_json(bytes(body))
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from exc
    del body
    with (folder / "records.jsonl").open("w", encoding="utf-8") as out:
        for document in parsed.documents:
            out.write(_record_line(document) + "\n")
    return parsed.extractor


async def stream_records(request: Request, folder: Path) -> str | None:
    """NDJSON: one record a line, checked and written as it arrives, so the body is never held whole. The
    extractor comes from the `extractor` query parameter."""
    count, pending = 0, b""
    with (folder / "records.jsonl").open("w", encoding="utf-8") as out:
        async for piece in request.stream():
            lines = (pending + piece).split(b"\n")
            pending = lines.pop()
            if len(pending) > SMALL_LINE:
                raise InvalidRequestError(f"record {count + 1} is longer than {SMALL_LINE} bytes")
            for line in lines:
                count += _write_record(out, line, count)
        count += _write_record(out, pending, count)
    if not count:
        raise InvalidRequestError("no records: send one JSON object a line")
    return upload_extractor(request.query_params.get("extractor"))


def _write_record(out: Any, line: bytes, count: int) -> int:
    from pydantic import ValidationError

    if not line.strip():
        return 0
    try:
        document = JsonDocument.model_validate_json(line)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"]) or "record"
        raise InvalidRequestError(f"record {count + 1}: {where}: {problem['msg']}") from exc
    out.write(_record_line(document) + "\n")
    return 1


def upload_extractor(value: str | None) -> str | None:
    if value in (None, ""):
        return None
    from graphwright.extraction.registry import check_extractor

    try:
        return check_extractor(value)
    except ValueError as exc:  # the settings' own check, as a 400
        raise InvalidRequestError(str(exc)) from exc

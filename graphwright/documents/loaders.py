"""Load .txt, .md, .json, .jsonl, .pdf, .docx and .html files into Documents, reporting each bad file by name."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphwright.documents.document_profile import HEAD_CHARS, page_headings, profile_document
from graphwright.documents.file_types import LOADERS, supported_suffixes
from graphwright.documents.formats import FileLimits, FormatError, ReadFile, read_docx, read_html, read_pdf
from graphwright.documents.tables import markdown_tables_as_pieces
from graphwright.errors import (
    LoadError,  # re-exported: they used to live here
)
from graphwright.models import Document, DocumentPart, FileFailure

log = logging.getLogger(__name__)
_MEMORY = "reading it needed more memory than the limit allows (GRAPHWRIGHT_MAX_PARSE_MEMORY_MB)"

TEXT_FIELDS = ("text", "content", "body", "abstract", "paragraph")
RESERVED_PROPERTIES = {"id", "source", "title", "content_hash", "ingested_at", "n_chunks", "text"}


# Control characters in ids and property keys: Neo4j refuses some (NUL) and none of them is visible.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def clean_identifier(text: object) -> str:
    """A document id or metadata key as stored: control characters removed, outer whitespace stripped."""
    return _CONTROL.sub("", str(text)).strip()


@dataclass
class LoadResult:
    documents: list[Document] = field(default_factory=list)
    failures: list[FileFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def content_hash(text: str, metadata: dict[str, Any], parts: list[DocumentPart] | None = None) -> str:
    """Hash of what gets stored: a changed text, metadata *or* page/section layout is a changed document."""
    body: dict[str, Any] = {"t": text, "m": metadata}
    if parts:
        body["p"] = [[p.page, p.section, len(p.text)] for p in parts]
    payload = json.dumps(body, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def iter_files(paths: list[Path], glob: str | None = None, skipped: list[Path] | None = None) -> Iterator[Path]:
    """Expand files and folders (recursively) into the supported files, in a stable order. Files in a folder
    that `glob` selects but whose type we do not read go to `skipped`, so the run can name them."""
    for path in paths:
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(part.startswith(".") for part in child.relative_to(path).parts):
                    continue
                if glob and not fnmatch.fnmatch(child.name, glob) and not fnmatch.fnmatch(str(child), glob):
                    continue
                if child.suffix.lower() not in LOADERS:
                    if skipped is not None:
                        skipped.append(child)
                    continue
                yield child
        else:
            yield path  # a named file is always attempted, so a missing or odd one is reported


def document_id_for(path: Path, base: Path) -> str:
    """The path as given, below `base`: through a symlinked folder (examples/space is one) the id names the
    link, as the user typed it, not where it points; a path outside `base` is absolute, symlinks resolved."""
    resolved = path.resolve()
    for inside, root in ((Path(os.path.abspath(path)), Path(os.path.abspath(base))), (resolved, base.resolve())):
        try:
            return inside.relative_to(root).as_posix()
        except ValueError:
            continue
    return resolved.as_posix()


def decode(raw: bytes, source: str, warnings: list[str]) -> str:
    if not raw.strip():
        raise LoadError("file is empty")
    if b"\x00" in raw[:8192]:
        raise LoadError("file looks binary (NUL bytes) but its name says text; rename it if it is a PDF or Word file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # Legacy encodings are common in real corpora; keep the text and say so rather than fail.
        warnings.append(f"{source}: not valid UTF-8 ({exc.reason} at byte {exc.start}); decoded as cp1252")
        return raw.decode("cp1252", errors="replace")


def _markdown_title(text: str) -> str | None:
    for line in text.splitlines()[:20]:
        if line.startswith("# "):
            return line[2:].strip()
    return None


def _split_metadata(extra: dict[str, Any]) -> dict[str, Any]:
    """Keep scalar metadata as Neo4j properties; reserved names get a `meta_` prefix, nested values JSON."""
    out: dict[str, Any] = {}
    for key, value in extra.items():
        name = clean_identifier(key)
        if not name:
            continue
        if name in RESERVED_PROPERTIES:
            name = f"meta_{name}"
        if isinstance(value, (str, int, float, bool)) or value is None:
            if value is not None:
                out[name] = value
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[name] = value
        else:
            out[name] = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return out


def record_to_document(
    record: Any, source: str, fallback_id: str, text_field: str | None, metadata: dict[str, Any]
) -> Document:
    if not isinstance(record, dict):
        raise LoadError(f"record is a JSON {type(record).__name__}, expected an object with a text field")
    fields = (text_field,) if text_field else TEXT_FIELDS
    key = next((f for f in fields if isinstance(record.get(f), str) and record[f].strip()), None)
    if key is None:
        raise LoadError(f"record has no non-empty text field (looked for: {', '.join(fields)})")
    text = record[key]
    raw_id = record.get("id")
    doc_id = (clean_identifier(raw_id) if raw_id is not None else "") or fallback_id
    title = str(record.get("title") or doc_id)
    extra = {k: v for k, v in record.items() if k not in {key, "id", "title"}}
    meta = {**_split_metadata(extra), **metadata}
    return Document(
        id=doc_id,
        source=source,
        title=title,
        text=text,
        metadata=meta,
        content_hash=content_hash(text, meta),
        subject=str(record.get("title") or ""),
    )


def source_of(path: Path, base: Path, relative: bool) -> str:
    """How a document names its file: the path as given, or (`relative`) the path below `base`, for files
    whose location means nothing to the reader (a server's uploads)."""
    return document_id_for(path, base) if relative else str(path)


@dataclass
class FileToLoad:
    """What a loader gets: one file's bytes and how its documents are to be named."""

    path: Path
    raw: bytes
    source: str
    doc_id: str
    metadata: dict[str, Any]
    text_field: str | None
    limits: FileLimits | None
    result: LoadResult

    def text(self) -> str:
        """The bytes decoded by the rule every text format shares (UTF-8, else cp1252 with a warning)."""
        return decode(self.raw, self.source, self.result.warnings)


Loader = Callable[[FileToLoad], None]


def load_plain(file: FileToLoad) -> None:
    text = file.text()
    if not text.strip():
        raise LoadError("file is empty")
    markdown = file.path.suffix.lower() in {".md", ".markdown"}
    if markdown and "|" in text:
        text = markdown_tables_as_pieces(text)
    heading = _markdown_title(text) if markdown else None
    meta = _profiled(file.metadata, text, file.path, heading or "")
    file.result.documents.append(
        Document(
            id=file.doc_id,
            source=file.source,
            title=heading or file.path.stem,
            text=text,
            metadata=meta,
            content_hash=content_hash(text, meta),
            subject=heading or "",
        )
    )


def _load_binary(file: FileToLoad, read: Callable[[bytes, FileLimits | None], ReadFile]) -> None:
    if not file.raw.strip():
        raise LoadError("file is empty")
    file.result.documents.append(_located(read(file.raw, file.limits), file))


def load_pdf(file: FileToLoad) -> None:
    _load_binary(file, read_pdf)


def load_docx(file: FileToLoad) -> None:
    _load_binary(file, read_docx)


def load_html(file: FileToLoad) -> None:
    file.result.documents.append(_located(read_html(file.text(), file.limits), file))


def load_json_file(file: FileToLoad) -> None:
    _load_json(file.text(), file.source, file.doc_id, file.text_field, file.metadata, file.result)


def load_jsonl_file(file: FileToLoad) -> None:
    _load_jsonl(file.text(), file.source, file.doc_id, file.text_field, file.metadata, file.result)


def loader_for(suffix: str) -> Loader | None:
    """The loader registered for a suffix in file_types.LOADERS, imported now; None for an unknown type."""
    if suffix.lower() not in LOADERS:
        return None
    loader: Loader = LOADERS.load(suffix.lower())
    return loader


def load_file(
    path: Path,
    base: Path,
    metadata: dict[str, Any],
    text_field: str | None = None,
    max_bytes: int = 50 * 1024 * 1024,
    relative_source: bool = False,
    limits: FileLimits | None = None,
) -> LoadResult:
    """Load one file; every problem becomes a named failure instead of an exception."""
    result = LoadResult()
    source = source_of(path, base, relative_source)
    try:
        if not path.exists():
            raise LoadError("no such file or folder")
        loader = loader_for(path.suffix)
        if loader is None:
            raise LoadError(
                f"unsupported file type {path.suffix or '(none)'}; supported: {', '.join(supported_suffixes())}"
            )
        size = path.stat().st_size
        if size > max_bytes:
            raise LoadError(f"file is {size} bytes, above the limit of {max_bytes} (GRAPHWRIGHT_MAX_FILE_BYTES)")
        loader(
            FileToLoad(
                path, path.read_bytes(), source, document_id_for(path, base), metadata, text_field, limits, result
            )
        )
    except (LoadError, FormatError, OSError) as exc:
        log.info("skipped %s: %s", source, exc)
        result.failures.append(FileFailure(source=source, error=str(exc)))
    except ImportError as exc:  # a parser's optional part missing from this install: this file only
        log.warning("skipped %s: its parser could not load: %s", source, exc, exc_info=log.isEnabledFor(logging.DEBUG))
        result.failures.append(FileFailure(source=source, error=f"its parser could not load: {exc}"))
    except MemoryError:  # the reading process's memory limit (documents/parse_worker.py)
        log.warning("skipped %s: reading it needed more memory than allowed", source)
        result = LoadResult(failures=[FileFailure(source=source, error=_MEMORY)])
    except Exception as exc:  # third-party parsers raise anything; one file must not sink a run
        log.warning("skipped %s: its parser failed: %r", source, exc, exc_info=log.isEnabledFor(logging.DEBUG))
        result.failures.append(FileFailure(source=source, error=f"its parser failed: {type(exc).__name__}: {exc}"))
    return result


def _located(read: ReadFile, file: FileToLoad) -> Document:
    """A PDF, Word or HTML file as one document whose parts keep their pages and sections."""
    file.result.warnings.extend(f"{file.source}: {w}" for w in read.warnings)
    parts = read.parts
    if read.pages:  # a PDF page's passages carry its heading, as a Word section's carry their heading path
        headings = page_headings([p.text for p in parts])
        parts = [p if p.section else p.model_copy(update={"section": h}) for p, h in zip(parts, headings)]
    text = "\n\n".join(p.text for p in parts)
    meta = _profiled(file.metadata, text, file.path, read.title)
    if read.pages:
        meta.setdefault("pages", read.pages)
    return Document(
        id=file.doc_id,
        source=file.source,
        title=read.title or file.path.stem,
        text=text,
        metadata=meta,
        content_hash=content_hash(text, meta, parts),
        subject=read.title,
        parts=parts,
    )


def _profiled(metadata: dict[str, Any], text: str, path: Path, title: str) -> dict[str, Any]:
    """The metadata with the document's profile (issuer, kind, period) added where the user gave none."""
    meta = dict(metadata)
    for key, value in profile_document(text[:HEAD_CHARS], path.stem, title).as_metadata().items():
        meta.setdefault(key, value)
    return meta


def _load_json(
    text: str, source: str, doc_id: str, text_field: str | None, metadata: dict[str, Any], result: LoadResult
) -> None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from exc
    except RecursionError as exc:
        raise LoadError("invalid JSON: nested too deeply") from exc
    records = data if isinstance(data, list) else [data]
    if not records:
        raise LoadError("JSON array is empty")
    for i, record in enumerate(records):
        fallback = doc_id if len(records) == 1 and not isinstance(data, list) else f"{doc_id}#{i}"
        try:
            result.documents.append(record_to_document(record, source, fallback, text_field, metadata))
        except LoadError as exc:
            result.failures.append(FileFailure(source=f"{source}[{i}]", error=str(exc)))


def _load_jsonl(
    text: str, source: str, doc_id: str, text_field: str | None, metadata: dict[str, Any], result: LoadResult
) -> None:
    seen_any = False
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        seen_any = True
        where = f"{source}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            result.failures.append(FileFailure(source=where, error=f"invalid JSON: {exc.msg}"))
            continue
        except RecursionError:
            result.failures.append(FileFailure(source=where, error="invalid JSON: nested too deeply"))
            continue
        try:
            result.documents.append(record_to_document(record, source, f"{doc_id}#{lineno}", text_field, metadata))
        except LoadError as exc:
            result.failures.append(FileFailure(source=where, error=str(exc)))
    if not seen_any:
        raise LoadError("file is empty")


def iter_loaded(
    files: list[Path],
    base: Path,
    metadata: dict[str, Any] | None = None,
    text_field: str | None = None,
    max_bytes: int = 50 * 1024 * 1024,
    relative_sources: bool = False,
    limits: FileLimits | None = None,
    reader: Callable[..., LoadResult] | None = None,
) -> Iterator[LoadResult]:
    """One LoadResult per file, read only when asked for (so a run holds one file's text at a time, not the
    corpus); duplicate document ids keep the first and report the rest. `reader` reads one file as `load_file`
    does, elsewhere: `ParseWorker.load`, in a child process within a time and memory budget."""
    seen: dict[str, str] = {}
    load = reader or load_file
    for path in files:
        one = load(path, base, metadata or {}, text_field, max_bytes, relative_sources, limits)
        kept = []
        for doc in one.documents:
            if doc.id in seen:
                one.failures.append(
                    FileFailure(
                        source=doc.source, error=f"duplicate document id {doc.id!r} (first seen in {seen[doc.id]})"
                    )
                )
                continue
            seen[doc.id] = doc.source
            kept.append(doc)
        one.documents = kept
        yield one


def load_paths(
    paths: list[Path],
    base: Path,
    metadata: dict[str, Any] | None = None,
    glob: str | None = None,
    text_field: str | None = None,
    max_bytes: int = 50 * 1024 * 1024,
) -> LoadResult:
    """Load every supported file under `paths` at once (small corpora, tests, evaluation)."""
    total = LoadResult()
    for one in iter_loaded(list(iter_files(paths, glob)), base, metadata, text_field, max_bytes):
        total.failures.extend(one.failures)
        total.warnings.extend(one.warnings)
        total.documents.extend(one.documents)
    return total

"""The file types graphwright reads: a registry of suffix -> "module:function" of its loader, imported on
first use.

Adding a type = a loader function `(FileToLoad) -> None` in any module and one line here (or
`LOADERS.register(".tsv", "module:function")`). Ingest, the upload page's file picker and the CLI's help all
read this registry, and reading it imports nothing, so `--help` stays fast."""

from __future__ import annotations

from typing import Any

from graphwright.registry import Registry

LOADERS: Registry[Any] = Registry(
    "file type",
    {
        ".txt": "graphwright.documents.loaders:load_plain",
        ".md": "graphwright.documents.loaders:load_plain",
        ".markdown": "graphwright.documents.loaders:load_plain",
        ".json": "graphwright.documents.loaders:load_json_file",
        ".jsonl": "graphwright.documents.loaders:load_jsonl_file",
        ".pdf": "graphwright.documents.loaders:load_pdf",
        ".docx": "graphwright.documents.loaders:load_docx",
        ".html": "graphwright.documents.loaders:load_html",
        ".htm": "graphwright.documents.loaders:load_html",
    },
)


def supported_suffixes() -> list[str]:
    """The registered suffixes, sorted (read at call time, so a registration made later counts)."""
    return sorted(LOADERS)

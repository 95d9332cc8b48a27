"""Loader throughput per format, and the two PDF libraries compared on speed and text quality.

    .venv/bin/python -m bench.loaders [--pages 200] [--record]

Files are made from the first novel (fpdf2 for the PDF, python-docx for the Word file, an HTML page with
navigation, scripts and a footer around the text), so the text each should yield is known: "word recall" is
the share of the source's words found in what the library extracted. Real PDFs found on this machine
(/usr/share/doc) are measured too, on speed and characters extracted.
"""

from __future__ import annotations

import html
import json
import re
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.ingest_novels import NOVELS
from bench.record import arguments, parse, record
from graphwright.documents.loaders import load_file

WORDS_PER_PAGE = 450


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def recall(source: str, extracted: str) -> float:
    found = set(_words(extracted))
    words = _words(source)
    return sum(w in found for w in words) / max(len(words), 1)


def make_files(folder: Path, pages: int, data: Path = NOVELS) -> tuple[str, dict[str, Path]]:
    import docx
    from fpdf import FPDF

    text = json.loads(data.read_text(encoding="utf-8").splitlines()[0])["text"]
    words = text.encode("latin-1", "replace").decode("latin-1").split()[: pages * WORDS_PER_PAGE]
    page_texts = [" ".join(words[i : i + WORDS_PER_PAGE]) for i in range(0, len(words), WORDS_PER_PAGE)]
    pdf = FPDF()
    pdf.set_font("helvetica", size=10)
    for page in page_texts:
        pdf.add_page()
        pdf.multi_cell(0, 4.4, page)
    pdf.output(str(folder / "novel.pdf"))
    document = docx.Document()
    for i, page in enumerate(page_texts, start=1):
        document.add_heading(f"Part {i}", level=2)
        document.add_paragraph(page)
    document.save(str(folder / "novel.docx"))
    body = "".join(f"<h2>Part {i}</h2><p>{html.escape(p)}</p>" for i, p in enumerate(page_texts, start=1))
    (folder / "novel.html").write_text(
        "<html><head><title>Novel</title><script>var a = 1;</script></head><body><nav><a href='/'>Home</a>"
        f"</nav><main><article><h1>Novel</h1>{body}</article></main><footer>Copyright</footer></body></html>",
        encoding="utf-8",
    )
    return " ".join(page_texts), {
        "pdf": folder / "novel.pdf",
        "docx": folder / "novel.docx",
        "html": folder / "novel.html",
    }


def pypdf_pages(path: Path) -> list[str]:
    import pypdf

    return [page.extract_text() or "" for page in pypdf.PdfReader(str(path)).pages]


def pdfium_pages(path: Path) -> list[str]:
    from graphwright.documents.formats import read_pdf

    return [p.text for p in read_pdf(path.read_bytes()).parts]


def best_of(fn, *args, runs: int = 3):
    best, value = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        value = fn(*args)
        best = min(best, time.perf_counter() - started)
    return best, value


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--data", type=Path, default=NOVELS, help="JSONL; the first line's text is used")
    args = parse(parser)
    console = Console(record=True, width=140)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source, files = make_files(folder, args.pages, args.data)
        libs = Table(title="PDF libraries on the same files (best of 3)")
        for column in ("file", "pages", "library", "s", "pages/s", "chars", "word recall", "words cut at a line end"):
            libs.add_column(column, justify="left" if column in ("file", "library") else "right")
        pdfs = [("novel.pdf (made)", files["pdf"], source)]
        pdfs += [(p.name, p, None) for p in sorted(Path("/usr/share/doc").rglob("*.pdf"))[:3]]
        for label, path, text in pdfs:
            for lib, fn in (("pypdf", pypdf_pages), ("pypdfium2 (chosen)", pdfium_pages)):
                seconds, pages = best_of(fn, path)
                joined = "\n".join(pages)
                cut = len(re.findall(r"[a-z]-\n[a-z]", joined))
                libs.add_row(
                    label,
                    str(len(pages)),
                    lib,
                    f"{seconds:.2f}",
                    f"{len(pages) / seconds:.0f}",
                    str(len(joined)),
                    f"{recall(text, joined):.3f}" if text else "-",
                    str(cut),
                )
        console.print(libs)
        loaders = Table(title="graphwright loaders (load_file: read, clean, locate; best of 3)")
        for column in ("format", "MB", "pages/sections", "s", "MB/s", "pages/s", "word recall"):
            loaders.add_column(column, justify="left" if column == "format" else "right")
        for fmt, path in files.items():
            seconds, result = best_of(load_file, path, folder, {})
            [doc] = result.documents
            mb = path.stat().st_size / 2**20
            loaders.add_row(
                fmt,
                f"{mb:.2f}",
                str(len(doc.parts)),
                f"{seconds:.2f}",
                f"{mb / seconds:.1f}",
                f"{len(doc.parts) / seconds:.0f}" if fmt == "pdf" else "-",
                f"{recall(source, doc.text):.3f}",
            )
        console.print(loaders)
    if args.record:
        record(
            "Document loaders",
            "bench.loaders",
            console,
            "'words cut at a line end' counts hyphen + newline inside a word in the extracted text",
        )


if __name__ == "__main__":
    main()

"""Sources kept in step: what a sync of the bundled sample costs the first time and when nothing changed (a
folder, and the same pages served over HTTP with ETags), and how long after a file is added, changed or
removed a `graphwright watch` has the workspace in step (median of `--rounds`).

    .venv/bin/python -m bench.sync [--record] [--rounds 5]

Everything runs in a new graphwright home with a local Neo4j of its own (ports 7695/7495): nothing of yours
is touched.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.record import arguments, isolated_env, parse, record

ROOT = Path(__file__).resolve().parents[1]


def _site(folder: Path) -> tuple[ThreadingHTTPServer, list[int]]:
    """The folder's markdown files as pages under /, an index linking them, ETags on every answer."""
    pages = {f"/{p.name}": p.read_bytes() for p in sorted(folder.glob("*.md"))}
    links = "".join(f'<li><a href="{name}">{name}</a></li>' for name in pages)
    pages["/"] = f"<html><head><title>Index</title></head><body><ul>{links}</ul></body></html>".encode()
    statuses: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                statuses.append(404)
                self.send_response(404)
                self.end_headers()
                return
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            if self.headers.get("If-None-Match") == etag:
                statuses.append(304)
                self.send_response(304)
                self.end_headers()
                return
            statuses.append(200)
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if self.path == "/" else "text/markdown")
            self.send_header("ETag", etag)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, statuses


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="watch rounds of add, change and remove")
    args = parse(parser)
    from graphwright.samples import SPACE

    work = Path(tempfile.mkdtemp(prefix="graphwright-sync-bench-"))
    env = isolated_env(work / "home", 7695, 7495)

    def cli(*words: str) -> float:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "graphwright.cli", *words], cwd=work, env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"graphwright {' '.join(words)} failed: {done.stdout}{done.stderr}")
        return time.perf_counter() - started

    rows: list[tuple[str, str]] = []
    watcher = None
    try:
        cli("db", "start")
        cli("init")
        space = work / "space"
        shutil.copytree(SPACE, space)
        files = sum(1 for p in space.iterdir() if p.is_file())
        first_sync = cli("sync", "space", "-q")
        rows.append((f"sync of the sample folder ({files} files, 20 documents), first", f"{first_sync:.1f} s"))
        rows.append(("sync of the sample folder, nothing changed", f"{cli('sync', 'space', '-q'):.2f} s"))
        rows.append(("ingest of the sample folder, nothing changed", f"{cli('ingest', 'space', '-q'):.2f} s"))
        server, statuses = _site(space)
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        cli("reset", "--yes")
        cli("init")
        first = cli("sync", url, "--depth", "1", "-q")
        pages = len(list(space.glob("*.md"))) + 1
        label = f"sync of the sample's markdown as {pages} web pages (an index, --depth 1), first"
        rows.append((label, f"{first:.1f} s"))
        statuses.clear()
        seconds = cli("sync", url, "-q")
        rows.append(
            (
                "sync of the web pages, nothing changed",
                f"{seconds:.2f} s ({statuses.count(304)} answers 304, {statuses.count(200)} bodies)",
            )
        )
        server.shutdown()

        os.environ.update({k: v for k, v in env.items() if k.startswith(("GRAPHWRIGHT_", "NEO4J_"))})
        from graphwright.api import GraphRAG

        notes = work / "notes"
        notes.mkdir()
        (notes / "seed.md").write_text("The watched folder starts with one note about the Apollo program.\n")
        watcher = subprocess.Popen(
            [sys.executable, "-m", "graphwright.cli", "watch", "notes"],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        timings: dict[str, list[float]] = {"added": [], "changed": [], "removed": []}
        with GraphRAG.from_env() as rag:

            def until(check, seconds: float = 120) -> float:
                started = time.perf_counter()
                while time.perf_counter() - started < seconds:
                    if check():
                        return time.perf_counter() - started
                    time.sleep(0.05)
                raise SystemExit("the watcher did not catch up within 120 s")

            def document(doc_id: str) -> str:
                found = rag.store.retrieval.document_chunks(doc_id)
                # a passage the watcher deletes as this reads it comes back without its text (read committed)
                return " ".join(text or "" for text in found.values())

            until(lambda: bool(document("notes/seed.md")))
            for n in range(args.rounds):
                name = f"notes/round{n}.md"
                (work / name).write_text(f"Round {n} adds a note about the Saturn V rocket number {n}.\n")
                timings["added"].append(until(lambda name=name: bool(document(name))))
                (work / name).write_text(f"Round {n} rewrites the note: the Vostok capsule number {n}.\n")
                timings["changed"].append(until(lambda name=name: "Vostok" in document(name)))
                (work / name).unlink()
                timings["removed"].append(until(lambda name=name: not document(name)))
        for what, values in timings.items():
            rows.append(
                (
                    f"watch (quiet 1000 ms): a file {what} -> in step",
                    f"median {statistics.median(values):.2f} s, max {max(values):.2f} s ({len(values)} rounds)",
                )
            )
    finally:
        if watcher is not None:
            watcher.terminate()
            watcher.wait(timeout=30)
        subprocess.run([sys.executable, "-m", "graphwright.cli", "db", "stop"], cwd=work, env=env, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)

    console = Console(record=True, width=140)
    table = Table(title="Sources kept in step")
    for column in ("step", "figure"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if args.record:
        record(
            "Sources kept in step",
            "bench.sync",
            console,
            headline=f"a re-sync of the unchanged sample folder {rows[1][1]}; a watched file added -> searchable in "
            f"{statistics.median(timings['added']):.1f} s (median)",
        )


if __name__ == "__main__":
    main()

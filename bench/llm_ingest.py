"""LLM ingest of the bundled sample against a real local model server, as a user runs it: llama.cpp's server
from `llama-cpp-python[server]` with the packaged Gemma 3 270M (`--n_ctx 4096 --n_threads 2 --chat_format
gemma`), and only OPENAI_BASE_URL, OPENAI_API_KEY and GRAPHWRIGHT_LLM_MODEL set: no tuning variables.

    .venv/bin/python -m bench.llm_ingest [--server-python PATH] [--port 8091] [--kill-after 75] [--record]

1. First contact: the endpoint's memory and the LLM answer cache are emptied, then `--dry-run` (which probes
   the endpoint) and the ingest (communities included), timed whole.
2. Kill and resume: another workspace, the answer cache emptied again, the same ingest killed with SIGKILL
   `--kill-after` seconds in; the documents in the graph are counted, then the same command finishes the rest.
3. The server's log of both: every stream the server saw end early ("disconnected"), set against the replies
   the client itself stopped because they repeated themselves (`finish_reason` "repetition" in the cache), and
   what the endpoint file learned.

Its workspaces (`llmingest`, `llmingest-kill`) are emptied first; needs the local Neo4j (`graphwright db start`)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.real_llm import start_server
from bench.record import arguments, parse, record
from graphwright.config import Settings
from graphwright.llm.endpoint import TaskStats
from graphwright.llm.tasks import max_tokens

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "examples" / "space")


WARNINGS: Counter[str] = Counter()  # the client's warnings about calls, by kind, across every run


def cli(args: list[str], env: dict[str, str], workspace: str, timeout: float = 3600) -> tuple[int, float, str]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "graphwright.cli", "--workspace", workspace, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    for line in done.stderr.splitlines():
        for kind in ("no reply within", "no token for", "while another call ran", "LLM call failed"):
            if kind in line:
                WARNINGS[kind] += 1
    return done.returncode, time.monotonic() - started, done.stdout


def documents(env: dict[str, str], workspace: str) -> int:
    code, _, out = cli(["stats", "--json"], env, workspace, 120)
    return int(json.loads(out)["counts"]["documents"]) if code == 0 else -1


def fresh(env: dict[str, str], workspace: str, home: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "graphwright.cli", "workspace", "create", workspace], env=env, capture_output=True
    )
    cli(["reset", "--yes"], env, workspace)
    shutil.rmtree(home / "cache" / "llm", ignore_errors=True)


def stopped_by_client(home: Path) -> Counter[str]:
    """The cached replies' finish reasons: "repetition" is a reply the client stopped as a loop."""
    reasons: Counter[str] = Counter()
    for path in (home / "cache" / "llm").rglob("*.json"):
        reasons[str(json.loads(path.read_text(encoding="utf-8")).get("finish_reason"))] += 1
    return reasons


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--server-python", default=sys.executable)
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument("--kill-after", type=float, default=75.0)
    args = parse(parser)
    console = Console(record=True, width=150)
    log = Path(tempfile.gettempdir()) / "graphwright-llm-ingest-server.log"
    server = start_server(args.server_python, args.port, log)
    keep = ("OPENAI_", "GRAPHWRIGHT_LLM_", "GRAPHWRIGHT_CONTEXT", "GRAPHWRIGHT_GLOBAL_BATCH")
    env = {k: v for k, v in os.environ.items() if not k.startswith(keep)}
    env.update(
        {
            "OPENAI_BASE_URL": f"http://127.0.0.1:{args.port}/v1",
            "OPENAI_API_KEY": "sk-local",
            "GRAPHWRIGHT_LLM_MODEL": "gemma3-270m",
        }
    )
    home = Settings().home
    figures: dict[str, Any] = {}
    rows: list[tuple[str, ...]] = []
    try:
        (home / "cache" / "llm-endpoints.json").unlink(missing_ok=True)
        fresh(env, "llmingest", home)
        code, seconds, out = cli(["ingest", SAMPLE, "--extractor", "llm", "--dry-run", "--json"], env, "llmingest")
        estimate = json.loads(out) if code == 0 else {}
        predicted = sum(s.get("seconds") or 0 for s in estimate.get("stages", []))
        rows.append(
            ("dry run (probes the endpoint)", f"{seconds:.1f}", str(code), f"predicts {predicted:.0f} s of LLM calls")
        )
        code, seconds, out = cli(["ingest", SAMPLE, "--extractor", "llm", "--json"], env, "llmingest")
        report = json.loads(out) if out.strip().startswith("{") else {}
        usage, communities = report.get("llm_usage", {}), report.get("communities") or {}
        rows.append(
            (
                "ingest, first contact (communities included)",
                f"{seconds:.1f}",
                str(code),
                f"{report.get('documents_written', 0)} documents, {report.get('entities_written', 0)} entities, "
                f"{report.get('relations_written', 0)} relations; {usage.get('calls', 0):.0f} extraction calls in "
                f"{report.get('stage_seconds', {}).get('extract', 0):.0f} s; offline fallbacks "
                f"{report.get('extraction_fallbacks') or '-'}; communities {communities}",
            )
        )
        figures["first"] = {"seconds": seconds, "exit": code, "report": report, "estimate": estimate}
        first_reasons = stopped_by_client(home)

        fresh(env, "llmingest-kill", home)
        command = [sys.executable, "-m", "graphwright.cli", "--workspace", "llmingest-kill", "ingest", SAMPLE]
        process = subprocess.Popen([*command, "--extractor", "llm", "-q"], env=env, stdout=subprocess.DEVNULL)
        time.sleep(args.kill_after)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        kept = documents(env, "llmingest-kill")
        rows.append(
            (
                f"ingest killed (SIGKILL) at {args.kill_after:.0f} s",
                f"{args.kill_after:.0f}",
                "-9",
                f"{kept} documents in the graph",
            )
        )
        code, seconds, out = cli(["ingest", SAMPLE, "--extractor", "llm", "--json"], env, "llmingest-kill")
        report = json.loads(out) if out.strip().startswith("{") else {}
        rows.append(
            (
                "the same command again",
                f"{seconds:.1f}",
                str(code),
                f"{report.get('documents_unchanged', 0)} unchanged, {report.get('documents_written', 0)} written; "
                f"{documents(env, 'llmingest-kill')} documents in the graph",
            )
        )
        figures["kill"] = {"kept": kept, "resume_seconds": seconds, "exit": code, "report": report}
    finally:
        server.terminate()
        server.wait(30)
    table = Table(
        "step",
        "seconds",
        "exit",
        "result",
        title="LLM ingest of examples/space, Gemma 3 270M, no tuning variables",
        title_justify="left",
    )
    for row in rows:
        table.add_row(*row)
    console.print(table)
    text = log.read_text(encoding="utf-8", errors="replace")
    disconnects = text.count("Disconnected from client")
    reasons = first_reasons + stopped_by_client(home)
    console.print(
        f"Server log: {text.count('POST /v1/chat/completions')} chat requests, {disconnects} streams ended early "
        f'("Disconnected from client"). Accounted for: 1 by the width probe (a second request sent while the first '
        f"was written, once per endpoint), 1 by the SIGKILL, and {reasons.get('repetition', 0)} replies the client "
        f"stopped because they repeated themselves (finish reasons in the cache: {dict(reasons)}). The client's "
        f"warnings: {dict(WARNINGS) or 'none (no first-token or idle timeout, no reply cut for another call)'}"
    )
    learned = json.loads((home / "cache" / "llm-endpoints.json").read_text(encoding="utf-8"))
    memory = next(iter(learned.values()), {})
    tasks = {
        k: {"calls": v["calls"], "cap": TaskStats.from_dict(v).learned_cap(max_tokens(k))}
        for k, v in memory.get("tasks", {}).items()
    }
    console.print(
        "Endpoint file: " + json.dumps({k: v for k, v in memory.items() if k != "tasks"}) + f"; tasks {tasks}"
    )
    figures["server"] = {"disconnects": disconnects, "finish_reasons": dict(reasons), "learned": memory}
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "llm_ingest.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    if args.record:
        record("LLM ingest with a local model, no tuning variables (issue 63)", "bench.llm_ingest", console)


if __name__ == "__main__":
    main()

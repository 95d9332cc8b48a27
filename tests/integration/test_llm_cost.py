"""The cost of an LLM run, before and during it, against the real Neo4j and the HTTP stub: a dry run reads
and chunks what an ingest would, counts the prompts it would send (cached answers free) and writes nothing;
its call count is what the real run then makes; --max-cost stops a run cleanly, and the next run resumes
without paying twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.helpers import GOOD, extractor_reply, run, write_space_corpus
from tests.stub_openai import chat_reply

pytestmark = pytest.mark.integration


def llm_env(cli_env: dict[str, str], stub, **extra: str) -> dict[str, str]:
    return {
        **cli_env,
        "OPENAI_BASE_URL": stub.base_url,
        "GRAPHWRIGHT_LLM_PROBE": "false",
        "OPENAI_API_KEY": "sk-test",
        "GRAPHWRIGHT_LLM_MODEL": "m",
        "GRAPHWRIGHT_LLM_CONCURRENCY": "1",
        **extra,
    }


def test_dry_run_counts_the_calls_the_run_makes_and_writes_nothing(rag, stub, cli_env, tmp_path: Path) -> None:
    stub.default = extractor_reply(json.dumps(GOOD))
    folder = write_space_corpus(tmp_path / "docs" / "space", False)
    env = llm_env(cli_env, stub, GRAPHWRIGHT_LLM_GLEANINGS="0")
    args = ["ingest", str(folder), "--base", str(folder.parent), "--extractor", "llm"]
    dry = run([*args, "--dry-run", "--json"], env, tmp_path)
    assert dry.returncode == 0, dry.stderr
    estimate = json.loads(dry.stdout)
    assert stub.requests == [] and rag.inspect.stats()["chunks"] == 0  # nothing asked, nothing written
    extract = next(s for s in estimate["stages"] if s["stage"] == "extract")
    assert estimate["documents"] > 0 and extract["calls"] == estimate["chunks"] > 0
    assert extract["prompt_tokens"] > 100 * extract["calls"] and extract["basis"].startswith("typical")
    table = run([*args, "--dry-run"], env, tmp_path)
    assert "nothing was extracted or written" in table.stdout and "extract" in table.stdout
    done = run([*args, "--json"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    extraction_calls = [r for r in stub.requests if "Text:" in r["body"]["messages"][-1]["content"]]
    assert len(extraction_calls) == extract["calls"]  # the estimate's calls are the run's
    # A run over the same files again: every document unchanged, nothing to estimate.
    again = json.loads(run([*args, "--dry-run", "--json"], env, tmp_path).stdout)
    assert again["documents"] == 0 and sum(s["calls"] for s in again["stages"]) == 0


def test_max_cost_stops_the_run_and_the_next_run_resumes(rag, stub, cli_env, tmp_path: Path) -> None:
    stub.default = extractor_reply(json.dumps(GOOD))  # 100 prompt + 40 completion tokens a call
    folder = write_space_corpus(tmp_path / "docs" / "space", False)
    prices = {"GRAPHWRIGHT_LLM_PRICE_INPUT": "1000", "GRAPHWRIGHT_LLM_PRICE_OUTPUT": "1000"}  # 0.14 a call
    env = llm_env(cli_env, stub, GRAPHWRIGHT_LLM_GLEANINGS="0", GRAPHWRIGHT_INGEST_GROUP_CHUNKS="3", **prices)
    args = ["ingest", str(folder), "--base", str(folder.parent), "--extractor", "llm"]
    documents = json.loads(run([*args, "--dry-run", "--json"], env, tmp_path).stdout)["documents"]
    stopped = run([*args, "--max-cost", "1"], env, tmp_path)
    assert stopped.returncode != 0 and "--max-cost 1 reached" in stopped.stderr and "resume" in stopped.stderr
    paid = len(stub.requests)
    assert 7 <= paid <= 9  # stopped at the first call past the budget
    written = rag.inspect.stats()["documents"]
    total = json.loads(run([*args, "--dry-run", "--json"], env, tmp_path).stdout)
    assert written > 0 and total["documents"] + written == documents  # what was written is whole; the rest waits
    resumed = run(args, env, tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert rag.inspect.stats()["documents"] == documents
    asked = [r["body"]["messages"][-1]["content"] for r in stub.requests]
    assert len(asked) == len(set(asked))  # no call paid for twice: the stopped run's answers came from the cache


def test_max_cost_needs_prices(stub, cli_env, tmp_path: Path) -> None:
    folder = write_space_corpus(tmp_path / "docs" / "space", False)
    done = run(["ingest", str(folder), "--extractor", "llm", "--max-cost", "5"], llm_env(cli_env, stub), tmp_path)
    assert done.returncode != 0 and "needs prices" in done.stderr and stub.requests == []


def test_communities_dry_run_counts_the_reports_a_build_writes(rag, stub, cli_env, tmp_path: Path) -> None:
    folder = write_space_corpus(tmp_path / "docs" / "space", False)
    env = llm_env(cli_env, stub)
    assert run(["ingest", str(folder), "--extractor", "nlp", "--no-communities"], {**cli_env}, tmp_path).returncode == 0
    report = {"title": "T", "summary": "S", "findings": [{"summary": "f", "explanation": "e"}], "rating": 5}
    stub.default = chat_reply(json.dumps(report))
    dry = run(["communities", "build", "--dry-run", "--json"], env, tmp_path)
    assert dry.returncode == 0, dry.stderr
    planned = json.loads(dry.stdout)["stages"][0]
    assert stub.requests == [] and rag.inspect.stats().get("communities", 0) == 0
    built = run(["communities", "build", "--json"], env, tmp_path)
    assert built.returncode == 0, built.stderr
    assert planned["calls"] == len(stub.requests) == json.loads(built.stdout)["llm_calls"] > 0


def test_a_dry_run_probes_a_new_endpoint_once_and_estimates_the_time(rag, stub, cli_env, tmp_path: Path) -> None:
    stub.default = extractor_reply(json.dumps(GOOD))
    stub.stream_delay = 0.002
    folder = write_space_corpus(tmp_path / "docs" / "space", False)
    env = llm_env(cli_env, stub, GRAPHWRIGHT_LLM_PROBE="true")
    args = ["ingest", str(folder), "--base", str(folder.parent), "--extractor", "llm", "--dry-run", "--json"]
    estimate = json.loads(run(args, env, tmp_path).stdout)
    probes = len(stub.requests)
    assert 3 <= probes <= 6 and all(r["body"]["max_tokens"] <= 96 for r in stub.requests)  # tiny requests only
    assert any("probed once" in note for note in estimate["notes"])
    stages = {s["stage"]: s for s in estimate["stages"]}
    assert set(stages) == {"extract", "glean", "repair", "summarize"}  # none "not estimated"
    assert stages["repair"]["basis"].startswith("a first guess") and stages["repair"]["calls"] > 0
    assert all(s["seconds"] is not None and s["seconds"] > 0 for s in stages.values())
    again = json.loads(run(args, env, tmp_path).stdout)
    assert len(stub.requests) == probes and not any("probed" in n for n in again["notes"])  # remembered
    table = run(args[:-1], env, tmp_path).stdout
    assert "time" in table and "measured reading and writing speed" in table

"""The bench/ scripts run end to end on small inputs against the test Neo4j (their figures are recorded by
hand-run benchmarks in docs/benchmarks-history.md, never asserted here)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def bench(args: list[str], env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-m", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_write_batches(rag, cli_env) -> None:
    out = bench(
        [
            "bench.write_batches",
            "--yes-reset",
            "--batch",
            "50",
            "--batch",
            "500",
            "--chunks",
            "500",
            "--entities",
            "100",
        ],
        cli_env,
    )
    assert "batched writes: 500 chunks" in out and "chunks/s" in out


def test_ingest_novels_on_a_small_jsonl(rag, cli_env) -> None:
    out = bench(
        [
            "bench.ingest_novels",
            "--data",
            "examples/space/missions.jsonl",
            "--count",
            "1",
            "--count",
            "3",
            "--yes-reset",
        ],
        cli_env,
    )
    assert "offline ingest of novels" in out and "query latency on that graph" in out
    assert "where the ingest" in out and "floor s" in out
    assert "most connected entities, 3 novel(s)" in out


def test_hotpotqa_bench_on_the_mini_set(rag, cli_env) -> None:
    out = bench(
        ["bench.hotpotqa_retrieval", "--data", "tests/data/hotpot_mini", "--yes-reset", "--modes", "vector,local"],
        cli_env,
    )
    assert "hotpot_mini: 3 questions" in out and "neo4j-graphrag HybridRetriever" in out


def test_large_file_bench_on_a_small_file(rag, cli_env) -> None:
    env = {**cli_env, "GRAPHWRIGHT_INGEST_GROUP_CHUNKS": "64"}
    out = bench(["bench.large_file", "--megabytes", "0.1", "--yes-reset"], env)
    assert "One large file" in out and "clean" in out  # staged in several groups, swapped in whole


def test_incremental_communities_bench_on_the_mini_set(rag, cli_env) -> None:
    out = bench(
        ["bench.incremental_communities", "--dataset", "tests/data/hotpot_mini", "--steps", "1,2", "--yes-reset"],
        cli_env,
    )
    assert "incremental communities on hotpot_mini" in out and "+2" in out and "LLM report" in out


def test_embeddings_loaders_and_cold_start_benches(rag, cli_env) -> None:
    out = bench(["bench.embeddings", "--chunks", "12", "--data", "examples/space/missions.jsonl"], cli_env)
    assert "onnx fp32, a 1-thread stream per core: default" in out and "OpenAI-compatible endpoint" in out
    out = bench(["bench.loaders", "--pages", "1", "--data", "examples/space/missions.jsonl"], cli_env)
    assert "pypdfium2 (chosen)" in out and "graphwright loaders" in out
    out = bench(["bench.cold_start", "--runs", "1", "--yes-reset"], cli_env)
    assert "onnx (default)" in out and "torch (before)" in out


def test_lexical_peer_bench(rag, cli_env) -> None:
    out = bench(
        ["bench.lexical_peer", "--novels", "2", "--data", "examples/space/missions.jsonl", "--yes-reset"], cli_env
    )
    assert "neo4j-graphrag lexical pipeline" in out and "graphwright (onnx, default)" in out


def test_serve_bench_small(rag, cli_env) -> None:
    out = bench(
        [
            "bench.serve",
            "--yes-reset",
            "--runs",
            "1",
            "--requests",
            "12",
            "--clients",
            "2",
            "--novels",
            "0",
            "--workers",
            "1,2",
        ],
        cli_env,
    )
    assert "cold CLI vs warm server" in out
    assert "load, 1 worker(s): 12 searches from 2 concurrent" in out and "load, 2 worker(s): 12 searches" in out
    assert "missing in Neo4j" in out and out.count("12 / 12") == 2


def test_schema_mapping_speed(tmp_path: Path, cli_env) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(
        '{"node_types": ["Mission", "Agency"], "relationship_types": ["operator"],'
        ' "patterns": [["Mission", "operator", "Agency"]]}',
        encoding="utf-8",
    )
    examples = tmp_path / "examples.jsonl"
    examples.write_text(
        '{"text": "Voyager 1 is operated by NASA.",'
        ' "triples": [{"sub": "Voyager 1", "rel": "operator", "obj": "NASA"}]}\n',
        encoding="utf-8",
    )
    out = bench(
        ["bench.schema_mapping_speed", "--data", "examples/space/missions.jsonl", "--chars", "2000"]
        + ["--schema", str(schema), "--examples", str(examples)],
        cli_env,
    )
    assert "typed relations" in out and "mapped onto the schema" in out and "k chars/s" in out


def test_query_latency_bench_on_the_graph_as_it_is(rag, cli_env, tmp_path: Path) -> None:
    from tests.integration.corpus import write_corpus

    rag.ingest([write_corpus(tmp_path / "corpus")], base=tmp_path)
    out = bench(["bench.query_latency", "--modes", "vector,local", "--rounds", "1", "--label", "smoke"], cli_env)
    assert "query latency, ms" in out and "smoke" in out and "local" in out
    assert rag.inspect.stats()["documents"] > 0, "it reads the graph and writes nothing"


def test_cost_curve_bench_grows_one_graph(rag, cli_env) -> None:
    out = bench(
        [
            "bench.cost_curve",
            "--yes-reset",
            "--sizes",
            "4,12",
            "--batch",
            "3",
            "--data",
            "examples/space/missions.jsonl",
        ],
        cli_env,
    )
    assert "the cost curve" in out and "ingest s per" in out and "communities" in out
    assert re.search(r"│\s+6 │", out) and re.search(r"│\s+12 │", out), "a row at each size, as the graph grew"
    assert rag.inspect.stats()["chunks"] >= 12
    documents = rag.inspect.stats()["documents"]
    resumed = bench(
        ["bench.cost_curve", "--resume", "--sizes", "12,20", "--batch", "3", "--data", "examples/space/missions.jsonl"],
        cli_env,
    )
    # only the size above what the graph held is measured, and it grew on from the documents already there
    assert not re.search(r"│\s+12 │", resumed) and re.search(r"│\s+2\d │", resumed), resumed
    assert rag.inspect.stats()["documents"] > documents and rag.inspect.stats()["chunks"] >= 20


def test_cost_curve_copies_have_names_of_their_own() -> None:
    from bench.cost_curve import documents

    source = documents([{"text": "Elizabeth met Darcy in London. It rained."}])
    first, second, third = next(source), next(source), next(source)
    assert first == ("copy0-novel0", "Elizabeth met Darcy in London. It rained.")
    assert second[1] == "Elizabethlo met Darcylo in Londonlo. It rained."  # two-letter words stay
    assert third[1] != second[1] and third[0] == "copy2-novel0"


def test_conversation_set_and_bench_on_the_mini_set(rag, cli_env, tmp_path: Path) -> None:
    root = tmp_path / "eval"
    root.mkdir()
    for name in ("hotpotqa-dev", "2wiki-101"):  # the builder reads both shared sets; the mini set stands in
        (root / name).symlink_to(ROOT / "tests" / "data" / "hotpot_mini")
    items = tmp_path / "items.jsonl"
    out = bench(["bench.conversation_set", str(root), "--out", str(items)], cli_env)
    assert "items ->" in out and items.read_text(encoding="utf-8").count("\n") >= 2
    lines = [line.replace('"set": "hotpotqa-dev"', '"set": "mini"') for line in items.read_text().splitlines()]
    items.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rag.ingest([ROOT / "tests" / "data" / "hotpot_mini" / "corpus.json"], extractor="nlp")
    out = bench(["bench.conversations", "--set", "mini", "--items", str(items), "--modes", "local"], cli_env)
    assert "mini: follow-up turns, Recall@5" in out and "what the conversation costs" in out


def test_workspaces(rag, cli_env, tmp_path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Apollo\nApollo 11 was launched by a Saturn V rocket built for NASA.\n")
    out = bench(
        [
            "bench.workspaces",
            "--yes-reset",
            "--corpus",
            str(corpus),
            "--workspaces",
            "2",
            "--repeats",
            "1",
            "--modes",
            "vector,local",
        ],
        cli_env,
    )
    assert "then one of 2" in out and "filling a workspace" in out and "100%" in out  # top-5 the same
    assert "probe_smoke" not in rag.store.workspaces.names()  # the bench removes what it made


CMRC_LIKE = [
    ("长城", "长城是中国古代的军事防御工程，修筑历史可上溯到西周时期。", "长城的修筑可以上溯到什么时期？", "西周"),
    ("黄河", "黄河是中国第二长河，发源于青海省巴颜喀拉山脉。", "黄河发源于哪里？", "青海省"),
]


def test_chinese_benches_on_small_inputs(rag, cli_env, tmp_path: Path) -> None:
    import json

    records = [
        {"context_id": f"DEV_{i}", "title": t, "context_text": text, "qas": [{"query_text": q, "answers": [a]}]}
        for i, (t, text, q, a) in enumerate(CMRC_LIKE)
    ]
    source = tmp_path / "cmrc.json"
    source.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    built = tmp_path / "set"
    out = bench(["bench.build_cmrc2018", str(source), "--out", str(built)], cli_env)
    assert "2 passages, 2 questions" in out
    out = bench(["bench.multilingual_embedders", str(built), "--candidates", "bundled"], cli_env)
    assert "bm25-jieba" in out and "bundled" in out
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_text(
        "混合搜索同时运行向量相似度计算和BM25检索。交叉编码器较慢，但精度更高。", encoding="utf-8"
    )
    try:
        out = bench(["bench.seeds_zh", "--workspace", "smoke-zh", "--seeds", str(seeds)], cli_env)
        assert '"zh hybrid top-5"' in out and '"concepts_found"' in out
    finally:  # other tests expect a database with no workspace but default
        rag.workspaces.delete("smoke-zh", yes=True)


def test_cypher_attacks_bench(rag, cli_env, tmp_path: Path) -> None:
    """Issue 61's reproductions: none leaks on this code, and the bench leaves no workspace behind."""
    uri, password = cli_env["NEO4J_URI"], cli_env["NEO4J_PASSWORD"]
    out = bench(
        ["bench.cypher_attacks", "--uri", uri, "--password", password, "--home", str(tmp_path), "--skip-slow"], cli_env
    )
    assert "| refused |" in out and "| leaked |" not in out and "retype to GRAPHWRIGHT_WORKSPACE: refused" in out
    assert "probe_smoke" not in rag.store.workspaces.names()


def test_serving_signals_bench(cli_env) -> None:
    out = bench(
        ["bench.serving_signals", "--uri", cli_env["NEO4J_URI"], "--password", cli_env["NEO4J_PASSWORD"]], cli_env
    )
    assert out.count("| withdrawn |") == 4


def test_resume_bench_on_a_small_document(cli_env) -> None:
    # small write groups, so even a short document is staged in parts a Ctrl-C can leave behind
    small = {**cli_env, "GRAPHWRIGHT_INGEST_GROUP_CHUNKS": "2"}  # the shared novels are not in every checkout
    out = bench(["bench.resume", "--data", "examples/space/missions.jsonl", "--novels", "12"], small)
    assert "the same command again" in out and "the uninterrupted run's: True" in out


def test_pdf_tables_on_two_statements(cli_env, tmp_path: Path) -> None:
    from tests.documents import make_pdf, make_statement_pdf

    rows = [[f"Item {i}", f"{i},000", f"({i},500)"] for i in range(1, 6)]
    make_statement_pdf(tmp_path / "a.pdf", "Balance Sheet", ["(Millions)", "2023", "2022"], rows)
    make_pdf(tmp_path / "b.pdf", ["A page of prose with no table at all."])
    out = bench(["bench.pdf_tables", "--pdfs", str(tmp_path)], cli_env)
    assert re.search(r"tables from\s+│\s+2\s+│.*│\s+1 \(50%\)\s+│\s+1\s+│", out), out


def test_ocr_on_a_page_made_a_scan(cli_env, tmp_path: Path) -> None:
    from tests.documents import make_pdf

    page = "Quarterly report of the Orion valve works. Revenue rose in every region this quarter."
    make_pdf(tmp_path / "a.pdf", [page])
    out = bench(["bench.ocr", "--pdf", str(tmp_path / "a.pdf"), "--pages", "1"], cli_env)
    assert "OCR of 1 scanned pages" in out
    assert float(re.search(r"(\d+\.\d)%", out).group(1)) > 80, out  # the words come back


def test_thematic_probe_on_the_bundled_sample(rag, cli_env) -> None:
    try:
        out = bench(["bench.thematic_probe", "--workspace", "probe_smoke"], cli_env)
        # the workspace it made is gone: a database with other workspaces scopes the default one's Cypher
        assert "probe_smoke" not in rag.store.workspaces.names()
    finally:  # other tests expect a database with no workspace but default
        if "probe_smoke" in rag.store.workspaces.names():
            rag.workspaces.delete("probe_smoke", yes=True)
    rows = dict(re.findall(r"│ (vector|local|global|raptor|drift)\s+│\s+(\d+\.\d)\s+│", out))
    assert set(rows) == {"vector", "local", "global", "raptor", "drift"}, out
    assert all(0 < float(v) <= 100 for v in rows.values()) and "summaries" in out


def test_security_iv_bench_small(rag, cli_env) -> None:
    out = bench(["bench.security_iv", "--styles", "50", "--connections", "20"], cli_env)
    assert "0 (of 20" in out and "done after" in out and "serve exits after" in out

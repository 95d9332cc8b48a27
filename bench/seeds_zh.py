"""The Chinese articles the project grew from (`../shared/seeds/`), as a Chinese team would try them: ingest with
default settings into a workspace of their own, then ask questions whose answer sits in one known passage
(`bench/data/seeds-zh.jsonl`: 12 in Chinese, 6 in English; a passage is gold when it holds the question's
`gold` phrase; `--questions bench/data/seeds-zh-heldout.jsonl`: 8 English and 4 Chinese more, written before
the cross-lingual search was built and not tuned on), and say at which rank vector, hybrid and local first
return a gold passage. Also which of the domain concepts became entities, and how the relations are typed.

    .venv/bin/python -m bench.seeds_zh --workspace seeds-zh [--seeds ../shared/seeds] [--questions FILE]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from graphwright.api import GraphRAG
from graphwright.config import Settings

QUESTIONS = Path(__file__).resolve().parent / "data" / "seeds-zh.jsonl"
CONCEPTS = ["知识图谱", "向量数据库", "混合检索", "重排序", "多跳检索", "检索增强生成"]
MODES = ("vector", "hybrid", "local")
DEPTH = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default="seeds-zh")
    parser.add_argument("--seeds", type=Path, default=Path("../shared/seeds"))
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with GraphRAG(Settings()) as default:
        if args.workspace not in default.store.workspaces.names():
            default.workspaces.create(args.workspace)
    rag = GraphRAG(Settings(workspace=args.workspace))
    report = rag.ingest([args.seeds], base=args.seeds)
    if not rag.store.communities.community_levels():
        rag.build_communities()
    chunks = rag.store.retrieval.all_chunks()
    items = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for item in items:
        gold = {c["chunk_id"] for c in chunks if item["gold"] in c["text"]}
        ranks = {}
        for mode in MODES:
            found = rag.search(item["question"], mode=mode, k=DEPTH, generate=False)
            ids = [c.chunk_id for c in found.chunks]
            ranks[mode] = next((i + 1 for i, c in enumerate(ids) if c in gold), None)
        rows.append({"question": item["question"], "type": item["type"], "gold_chunks": len(gold), "rank": ranks})
    entities = {r["name"]: r["type"] for r in rag.store.read("MATCH (e:Entity) RETURN e.name AS name, e.type AS type")}
    types = rag.store.admin.type_counts()["relations"]
    summary = {
        "chunks": report.chunks_written or len(chunks),
        "entities": len(entities),
        "chinese_entities": sum(1 for n in entities if any("\u4e00" <= ch <= "\u9fff" for ch in n)),
        "concepts_found": {c: entities.get(c) for c in CONCEPTS},
        "relations": sum(types.values()),
        "related_to_share": round(types.get("RELATED_TO", 0) / max(sum(types.values()), 1), 3),
    }
    for kind in ("zh", "en"):
        asked = [r for r in rows if r["type"] == kind]
        for mode in MODES:
            top5 = sum(1 for r in asked if r["rank"][mode] is not None and r["rank"][mode] <= 5)
            summary[f"{kind} {mode} top-5"] = f"{top5}/{len(asked)}"
    rag.close()
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()

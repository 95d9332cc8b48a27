"""Embedding throughput per backend on the same chunks (the first novels, chunked as ingest chunks them),
side by side in one run, with how close each backend's vectors are to sentence-transformers on torch.

    .venv/bin/python -m bench.embeddings [--chunks 2000] [--record]

Backends: the bundled all-MiniLM-L6-v2 on torch at batch 64 (the default before issue 17) and at batch 16,
the same model exported to ONNX in fp32 (the default now: one single-threaded stream per core; texts of one
token count share a run up to 256 tokens, so a chunk runs alone) and as one two-threaded stream, the int8
variant (one text per run), and an OpenAI-compatible
endpoint: the test stub over loopback HTTP, whose hashed vectors cost nothing, so that row is the client's
own overhead (batching, HTTP, JSON, cache writes), not a model's speed.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from bench.ingest_novels import NOVELS
from bench.record import arguments, parse, record, torch_installed
from graphwright.config import Settings
from graphwright.documents.chunking import chunk_text
from graphwright.embeddings import OnnxEmbedder, SentenceTransformerEmbedder, default_cache_dir


def novel_chunks(limit: int, data: Path = NOVELS) -> list[str]:
    settings = Settings(_env_file=None)
    texts: list[str] = []
    for line in data.read_text(encoding="utf-8").splitlines():
        record_ = json.loads(line)
        texts += [c.text for c in chunk_text(record_["text"], settings.chunk_size, settings.chunk_overlap)]
        if len(texts) >= limit:
            break
    return texts[:limit]


def timed(embedder, texts: list[str]) -> tuple[float, float, np.ndarray]:
    started = time.perf_counter()
    embedder.embed(texts[:8])  # load the model: reported apart from the rate
    load = time.perf_counter() - started
    started = time.perf_counter()
    vectors = np.array(embedder.embed(texts), dtype=np.float32)
    return load, len(texts) / (time.perf_counter() - started), vectors


class TwoThreads:
    """An OnnxEmbedder whose one session uses both cores itself (how ONNX is usually run), for comparison."""

    def __init__(self, embedder: OnnxEmbedder) -> None:
        import onnxruntime

        self.embedder = embedder
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 2
        from graphwright.embeddings.onnx_export import ensure_exported

        path = ensure_exported(default_cache_dir(), quantized=False)
        embedder.__dict__["_session"] = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts):
        return self.embedder.embed(texts)


def endpoint_embedder(base_url: str, home: Path):
    from graphwright.embeddings import EndpointEmbedder

    settings = Settings(
        _env_file=None,
        embedding_backend="openai",
        embedding_model="stub-embed",
        embedding_base_url=base_url,
        home=home,
        embedding_cache=False,
    )
    return EndpointEmbedder(settings)


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--data", type=Path, default=NOVELS, help="JSONL with a text field per line")
    args = parse(parser)
    texts = novel_chunks(args.chunks, args.data)
    cache = default_cache_dir()
    torch = [
        ("torch (sentence-transformers), before", "64", lambda: SentenceTransformerEmbedder(batch_size=64)),
        ("torch (sentence-transformers)", "16", lambda: SentenceTransformerEmbedder(batch_size=16)),
    ]
    backends = [
        *(torch if torch_installed() else []),
        ("onnx fp32, one 2-thread stream", "alike", lambda: TwoThreads(OnnxEmbedder(cache, streams=1))),
        ("onnx fp32, a 1-thread stream per core: default", "alike", lambda: OnnxEmbedder(cache)),
        ("onnx int8, a 1-thread stream per core", "1", lambda: OnnxEmbedder(cache, quantized=True)),
    ]
    console = Console(record=True, width=140)
    table = Table(title=f"embedding {len(texts)} novel chunks (~{np.mean([len(t) for t in texts]):.0f} chars), 2 cores")
    # Rates and cosines are to the first row: torch at batch 64 where the torch extra is installed, else the
    # ONNX fp32 export (the vectors of torch, tested in tests/unit/embeddings).
    for column in ("backend", "batch", "model load s", "chunks/s", "vs first row", "cosine to first row mean", "min"):
        table.add_column(column, justify="left" if column == "backend" else "right")
    reference: np.ndarray | None = None
    base_rate = 0.0
    for name, batch, make in backends:
        load, rate, vectors = timed(make(), texts)
        if reference is None:
            reference, base_rate = vectors, rate
        cosine = (vectors * reference).sum(axis=1)
        table.add_row(
            name,
            batch,
            f"{load:.1f}",
            f"{rate:.1f}",
            f"{rate / base_rate:.2f}x",
            f"{cosine.mean():.4f}",
            f"{cosine.min():.4f}",
        )
    from tests.stub_openai import StubOpenAI, embedding_reply

    with StubOpenAI() as stub, tempfile.TemporaryDirectory() as home:
        stub.default = embedding_reply(384)
        load, rate, _ = timed(endpoint_embedder(stub.base_url, Path(home)), texts)
        table.add_row(
            "OpenAI-compatible endpoint (loopback stub, no model)",
            "64",
            f"{load:.1f}",
            f"{rate:.1f}",
            f"{rate / base_rate:.2f}x",
            "-",
            "-",
        )
    console.print(table)
    if not torch_installed():
        console.print("torch rows skipped: the torch extra is not installed")
    if args.record:
        record(
            "Embedding throughput per backend",
            "bench.embeddings",
            console,
            "Model load is the first call (for ONNX: onnxruntime and the cached export, no torch)",
        )


if __name__ == "__main__":
    main()

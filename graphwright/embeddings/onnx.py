"""The bundled all-MiniLM-L6-v2 on onnxruntime: the default embedder. No torch at run time, so a query's
cold start is the ~0.3 s of loading onnxruntime and the model, not the seconds of importing torch."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import Any

from graphwright.embeddings.onnx_export import bundled_model_dir, ensure_exported
from graphwright.telemetry import traced_embedding

log = logging.getLogger(__name__)

# Most tokens in one batch: short texts (entity names, questions) share a call, a chunk runs alone.
_BATCH_TOKENS = 256
# Texts tokenised per call: an Encoding is heavy, so only their ids are kept past a slice.
_TOKENISE_SLICE = 256


class OnnxEmbedder:
    """Unit-length vectors from the exported model, computed by one single-threaded stream per core over a
    shared session. Texts of the same token count run together (up to `batch_size`), never padded, so a
    text's vector does not depend on the texts beside it; on 2 cores two single-threaded streams beat one
    two-threaded stream of batches by ~20-50% (`bench/embeddings.py`), and grouping short texts (entity
    names, questions) saves the per-call overhead (~25% on entity texts). int8 runs one text per call: its
    dynamic quantisation scale spans the whole batch, so a neighbour would shift a text's vector."""

    languages = frozenset({"en"})  # all-MiniLM-L6-v2 was trained on English pairs

    def __init__(self, cache_dir: Path, quantized: bool = False, batch_size: int = 0, streams: int = 0) -> None:
        # fp32 gives torch's vectors (cosine 1.0000, tested), so it keeps the torch embedder's name: a graph
        # embedded by either needs no reembed; int8 vectors differ, so int8 is another model to the graph.
        self.name = "all-MiniLM-L6-v2 (bundled, onnx int8)" if quantized else "all-MiniLM-L6-v2 (bundled)"
        self._cache_dir = cache_dir
        self._quantized = quantized
        self._batch_size = 1 if quantized else (batch_size or 16)
        self._streams = streams or min(os.cpu_count() or 1, 8)

    @cached_property
    def _session(self) -> Any:  # onnxruntime.InferenceSession
        import onnxruntime

        path = optimized(ensure_exported(self._cache_dir, self._quantized))
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        options.intra_op_num_threads = 1  # parallelism comes from the streams
        options.inter_op_num_threads = 1
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    @cached_property
    def _tokenizer(self) -> Any:  # tokenizers.Tokenizer
        from tokenizers import Tokenizer

        folder = bundled_model_dir()
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        limit = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))["max_seq_length"]
        tokenizer.enable_truncation(int(limit))
        tokenizer.no_padding()  # a batch holds texts of one length, so nothing is ever padded
        return tokenizer

    @cached_property
    def dimension(self) -> int:
        config = json.loads((bundled_model_dir() / "config.json").read_text(encoding="utf-8"))
        return int(config["hidden_size"])

    @traced_embedding
    def embed(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        session = self._session
        # Tokenised here, in one thread (the streams run the model), a slice at a time: an Encoding is heavy,
        # and keeping one per text of a 10k-chunk ingest costs ~250 MB where their ids cost a few.
        ids_of: list[list[int]] = []
        for start in range(0, len(texts), _TOKENISE_SLICE):
            ids_of += [item.ids for item in self._tokenizer.encode_batch(texts[start : start + _TOKENISE_SLICE])]
        by_length: dict[int, list[int]] = {}
        for i, ids in enumerate(ids_of):
            by_length.setdefault(len(ids), []).append(i)
        batches = []
        for length, same in by_length.items():
            # long texts gain nothing from a batch and a big one grows onnxruntime's arena (RSS 0.5 -> 1 GB)
            size = max(1, min(self._batch_size, _BATCH_TOKENS // max(1, length)))
            batches += [same[start : start + size] for start in range(0, len(same), size)]
        batches.sort(key=lambda b: len(b) * len(ids_of[b[0]]), reverse=True)  # costliest first: even finish
        inputs = []
        for batch in batches:
            array = np.array([ids_of[i] for i in batch], dtype=np.int64)
            inputs.append(
                {"input_ids": array, "attention_mask": np.ones_like(array), "token_type_ids": np.zeros_like(array)}
            )

        def run(feed: dict[str, Any]) -> list[list[float]]:
            vectors: list[list[float]] = session.run(None, feed)[0].astype("float32").tolist()
            return vectors

        if self._streams > 1 and len(inputs) > 1:
            with ThreadPoolExecutor(self._streams) as pool:  # onnxruntime releases the GIL while it runs
                results = list(pool.map(run, inputs))
        else:
            results = [run(feed) for feed in inputs]
        out: list[list[float]] = [[] for _ in texts]
        for batch, vectors in zip(batches, results):
            for i, vector in zip(batch, vectors):
                out[i] = vector
        return out


def optimized(path: Path) -> Path:
    """The model with onnxruntime's portable graph optimisations applied, written once next to it (keyed by
    onnxruntime's version): a process then builds its session from it in about half the time (0.2 s instead of
    0.4 s of a 1.5 s CLI question). Where it cannot be written, the model as exported."""
    import onnxruntime

    target = path.with_name(f"{path.stem}.ort{onnxruntime.__version__}.onnx")
    if target.exists():
        return target
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = tmp
        options.log_severity_level = 3
        onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        return target
    except (OSError, RuntimeError) as exc:  # a read-only cache, or a model this onnxruntime cannot save
        log.info("cannot keep the optimised model (%s); using the exported one", exc)
        return path
    finally:
        Path(tmp).unlink(missing_ok=True)

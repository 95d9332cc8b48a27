"""The bundled all-MiniLM-L6-v2 on onnxruntime: the default embedder. No torch at run time, so a query's
cold start is the ~0.3 s of loading onnxruntime and the model, not the seconds of importing torch."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import Any

from graphwright.embeddings.onnx_export import bundled_model_dir, ensure_exported


class OnnxEmbedder:
    """Unit-length vectors from the exported model, computed by one single-threaded stream per core over a
    shared session. Texts go one at a time by default: no padding, so a text's vector never depends on
    the texts beside it (with int8, padding shifts the dynamic quantisation scale), and on 2 cores two
    single-threaded streams of single texts beat one two-threaded stream of batches by ~20-50%
    (`bench/embeddings.py`)."""

    def __init__(self, cache_dir: Path, quantized: bool = False, batch_size: int = 1, streams: int = 0) -> None:
        # fp32 gives torch's vectors (cosine 1.0000, tested), so it keeps the torch embedder's name: a graph
        # embedded by either needs no reembed; int8 vectors differ, so int8 is another model to the graph.
        self.name = "all-MiniLM-L6-v2 (bundled, onnx int8)" if quantized else "all-MiniLM-L6-v2 (bundled)"
        self._cache_dir = cache_dir
        self._quantized = quantized
        self._batch_size = max(1, batch_size)
        self._streams = streams or min(os.cpu_count() or 1, 8)

    @cached_property
    def _session(self) -> Any:  # onnxruntime.InferenceSession
        import onnxruntime

        path = ensure_exported(self._cache_dir, self._quantized)
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
        tokenizer.enable_padding()
        return tokenizer

    @cached_property
    def dimension(self) -> int:
        config = json.loads((bundled_model_dir() / "config.json").read_text(encoding="utf-8"))
        return int(config["hidden_size"])

    def embed(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        session = self._session
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # batches of like lengths pad least
        batches = [order[start : start + self._batch_size] for start in range(0, len(order), self._batch_size)]
        inputs = []
        for batch in batches:  # tokenised here, in one thread; the streams only run the model
            encoded = self._tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            inputs.append({"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})

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

"""The bundled all-MiniLM-L6-v2 on onnxruntime: the default embedder. No torch at run time, so a query's
cold start is the ~0.3 s of loading onnxruntime and the model, not the seconds of importing torch."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any

from graphwright.embeddings.onnx_export import bundled_model_dir, ensure_exported


class OnnxEmbedder:
    """Unit-length vectors from the exported model. Texts are embedded shortest-padding-first: sorted by
    length, in small batches (8 measured fastest on 2 cores: less padding, warm caches)."""

    def __init__(self, cache_dir: Path, quantized: bool = True, batch_size: int = 8, threads: int = 0) -> None:
        self.name = "all-MiniLM-L6-v2 (bundled" + (", onnx int8)" if quantized else ", onnx)")
        self._cache_dir = cache_dir
        self._quantized = quantized
        self._batch_size = max(1, batch_size)
        self._threads = threads

    @cached_property
    def _session(self) -> Any:  # onnxruntime.InferenceSession
        import onnxruntime

        path = ensure_exported(self._cache_dir, self._quantized)
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        if self._threads:
            options.intra_op_num_threads = self._threads
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
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self._batch_size):
            batch = order[start:start + self._batch_size]
            encoded = self._tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            vectors = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                               "token_type_ids": np.zeros_like(ids)})[0]
            for i, vector in zip(batch, vectors.astype("float32").tolist()):
                out[i] = vector
        return out

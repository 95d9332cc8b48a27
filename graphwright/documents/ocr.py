"""Text of a scanned page, by OCR: RapidOCR (PP-OCR's detection, direction and recognition models as ONNX,
run by onnxruntime; Chinese and English), an optional extra (`pip install 'graphwright[ocr]'`).

Why RapidOCR: its wheel carries its models, so nothing is fetched at run time (the model paths are pinned to
the files in the wheel, not its download table), and it needs no torch. Loaded once per process, on the first
scanned page; a file with none never imports it."""

from __future__ import annotations

import logging
from functools import cache
from importlib import resources
from importlib.util import find_spec
from typing import Any

log = logging.getLogger(__name__)

# The wheel's own models (rapidocr 3.10): pinned, so a config change upstream cannot send it to the network.
_MODELS = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
}
# A page is rendered at this scale of its PDF size (72 dpi): 144 dpi, enough for body text; its longer side at
# most MAX_RENDER_SIDE pixels, so a crafted page of 200 inches cannot ask for a bitmap of gigabytes.
RENDER_SCALE = 2.0
MAX_RENDER_SIDE = 3000


def render_scale(width: float, height: float) -> float:
    """The scale a page of `width` x `height` points is rendered at for OCR."""
    return min(RENDER_SCALE, MAX_RENDER_SIDE / max(width, height, 1.0))


def available() -> bool:
    return find_spec("rapidocr") is not None


@cache
def _engine() -> Any:
    from rapidocr import RapidOCR

    folder = resources.files("rapidocr") / "models"
    params: dict[str, Any] = {name: str(folder / file) for name, file in _MODELS.items()}
    params["Global.log_level"] = "error"
    params["EngineConfig.onnxruntime.intra_op_num_threads"] = 2
    log.info("loading the OCR models (once per process)")
    return RapidOCR(params=params)


def read_image(image: Any) -> str:
    """The text of an image (a PIL image or a numpy array), line by line in reading order."""
    import numpy as np

    found = _engine()(np.asarray(image.convert("RGB")) if hasattr(image, "convert") else image)
    return "\n".join(t for t in (found.txts or ()) if t and t.strip())

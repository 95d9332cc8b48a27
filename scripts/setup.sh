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
.venv/bin/python - <<'PY'
from graphwright.config import Settings
from graphwright.graph_store.local_server import LocalServer, default_project_dir

s = Settings()
server = LocalServer(project_dir=s.neo4j_local_dir or default_project_dir(), home=s.home / "neo4j",
                     bolt_uri="bolt://127.0.0.1:7687", http_port=s.http_port, user=s.neo4j_user,
                     password=s.neo4j_password.get_secret_value())
if not server.is_built():
    server.build()
print("    neo4j-local ready")
PY

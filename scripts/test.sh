#!/usr/bin/env bash
# Set up if needed, lint, and run every test. Integration tests start their own Neo4j on
# 127.0.0.1:7688 (data in .graphwright/test-neo4j), so your own database is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/browsers.sh
echo "==> ruff (lint and format)"
.venv/bin/ruff check graphwright tests bench
.venv/bin/ruff format --check graphwright tests bench
echo "==> mypy (the package; settings in pyproject.toml)"
.venv/bin/mypy
echo "==> mypy (test doubles keep the contracts they stand in for, with no type ignores)"
.venv/bin/mypy tests/memory_store.py tests/memory_space.py tests/memory_roles.py tests/store_contract.py tests/unit/graph_store/test_memory_store.py \
    tests/integration/test_store_contract.py tests/unit/search/test_followup.py
echo "==> pytest"
exec .venv/bin/pytest "$@"

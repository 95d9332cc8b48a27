#!/usr/bin/env bash
# The browser the tests drive (screenshots of the Neo4j Browser and of answer graphs): test setup only, so the
# quickstart does not install it. Without it those tests are skipped, saying why.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  # Only the browser tests use it (screenshots of the Neo4j Browser and of answer graphs).
  echo "==> installing Debian's chromium for the browser tests"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -q chromium >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } \
      || echo "warning: could not install chromium; the browser tests will be skipped"
  else
    echo "warning: chromium is missing (install Debian's chromium package); the browser tests will be skipped"
  fi
fi

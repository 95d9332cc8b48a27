"""Whether `graphwright serve` withdraws its `serving.json` when a signal stops it (issue 61, reproduction 8),
for a checkout's code, with one worker and two, SIGTERM and SIGINT.

    .venv/bin/python -m bench.serving_signals --tree . --uri bolt://127.0.0.1:7688 --password graphwright-test-pw
    .venv/bin/python -m bench.serving_signals --tree /tmp/old   # a worktree of an older commit, same venv

Each case starts a server from `--tree` (PYTHONPATH, so the tree's own code runs) in a fresh home, waits
until it answers `/healthz`, sends the signal and prints whether the record is still there after it exits."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def _case(tree: Path, workers: int, signum: int, uri: str, password: str) -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = Path(tempfile.mkdtemp(prefix="serving-signals-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHWRIGHT_", "NEO4J_", "OPENAI_"))}
    env.update(GRAPHWRIGHT_HOME=str(home), NEO4J_URI=uri, NEO4J_PASSWORD=password, PYTHONPATH=str(tree))
    command = [sys.executable, "-m", "graphwright.cli", "serve", "--port", str(port), "--workers", str(workers)]
    server = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        recorded = (home / "serving.json").exists()
        server.send_signal(signum)
        code = server.wait(60)
    finally:
        if server.poll() is None:
            server.kill()
    after = "STAYS" if (home / "serving.json").exists() else "withdrawn"
    name = signal.Signals(signum).name
    return f"| {workers} | {name} | {recorded} | {code} | {after} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=Path("."))
    parser.add_argument("--uri", default="bolt://127.0.0.1:7688")
    parser.add_argument("--password", default="graphwright-test-pw")
    args = parser.parse_args()
    print(f"tree: {args.tree.resolve()}\n\n| workers | signal | recorded while serving | exit | record after |")
    print("|---|---|---|---|---|")
    for workers in (1, 2):
        for signum in (signal.SIGTERM, signal.SIGINT):
            print(_case(args.tree.resolve(), workers, signum, args.uri, args.password), flush=True)


if __name__ == "__main__":
    main()

"""The curl examples of docs/api.md run as written (bash, curl -f) against a live server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.conftest import WRITE

pytestmark = [pytest.mark.integration, pytest.mark.skipif(shutil.which("curl") is None, reason="no curl")]
DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_every_curl_example_runs(live, tmp_path: Path) -> None:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 6 and sum(b.count("curl ") for b in blocks) >= 12
    env = {**os.environ, "GW": live.url, "KEY": WRITE}
    outputs = []
    for block in blocks[1:]:  # the first only shows how to set GW and KEY
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{block}\n--- stderr:\n{done.stderr}\n--- stdout:\n{done.stdout[-2000:]}"
        outputs.append(done.stdout)
    text = "\n".join(outputs)
    assert '"ok":true' in text and "Saturn V" in text and "event: retrieval" in text and "event: result" in text
    assert '"status":"succeeded"' in text and '"deleted":"memo-1"' in text and "chat.completion" in text
    docs = {d.id for d in live.rag.inspect.documents(limit=1000)}
    assert "kestrel.md" in docs and "memo-1" not in docs
    live.rag.delete_document("kestrel.md")

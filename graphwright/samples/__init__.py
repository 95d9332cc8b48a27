"""Corpora shipped inside the package, so a `pip install` alone has something to ingest (`ingest --sample`)."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent
# Twenty short pages and records about spaceflight: people, organisations, rockets, missions, in md and jsonl.
SPACE = SAMPLES / "space"

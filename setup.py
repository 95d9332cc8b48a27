"""The wheel carries the docs: `docs/` (markdown and its images) is copied into `graphwright/_docs`, where
`graphwright docs` reads it, so a pip user reaches every page the hints name. Everything else is in
pyproject.toml; an editable install reads the checkout's `docs/` instead."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DOCS = Path(__file__).resolve().parent / "docs"
SHIPPED = ("*.md", "images/*.png")


class BuildWithDocs(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "graphwright" / "_docs"
        for pattern in SHIPPED:
            for source in sorted(DOCS.glob(pattern)):
                copy = target / source.relative_to(DOCS)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, copy)


setup(cmdclass={"build_py": BuildWithDocs})

"""Worked examples (`{text, triples: [{sub, rel, obj}]}` per line) and other labelled JSONL files, read
strictly: the first bad line is one clear error naming the file and the line, and nothing is used."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from graphwright.errors import SchemaFileError
from graphwright.graph_schema import MAX_LABELLED_BYTES, read_bounded_text
from graphwright.models import ExtractionExample
from graphwright.text.tokens import jaccard

M = TypeVar("M", bound=BaseModel)


def read_jsonl_models(path: Path, model: type[M], what: str) -> list[M]:
    """Every line of a JSONL file as `model`; the first bad line is one clear error naming file and line."""
    lines = read_bounded_text(path, limit=MAX_LABELLED_BYTES, what=what).splitlines()
    items: list[M] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            items.append(model.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise SchemaFileError(f"{path}, line {number}: not JSON ({exc.msg})") from exc
        except ValidationError as exc:
            fields = ", ".join(".".join(map(str, e["loc"])) or "record" for e in exc.errors()[:3])
            raise SchemaFileError(f"{path}, line {number}: not a {what} record (check {fields})") from exc
    if not items:
        raise SchemaFileError(f"{path}: no {what} records")
    return items


def read_examples(path: Path) -> list[ExtractionExample]:
    return read_jsonl_models(path, ExtractionExample, "examples")


_WORDS = re.compile(r"\w+")


class SimilarExamples:
    """Worked examples ranked by how like a text they are: their words are read once, for every chunk after."""

    def __init__(self, examples: list[ExtractionExample]) -> None:
        self.examples = list(examples)
        self._words = [set(_WORDS.findall(e.text.lower())) for e in self.examples]

    def top(self, text: str, k: int) -> list[ExtractionExample]:
        """The k examples whose words overlap the text's most (Jaccard), in the file's order when tied: the
        worked examples worth a prompt's tokens for this text, as Text2KGBench's baselines chose theirs."""
        if len(self.examples) <= k:
            return list(self.examples)
        words = set(_WORDS.findall(text.lower()))
        ranked = sorted(range(len(self.examples)), key=lambda i: (-jaccard(words, self._words[i]), i))
        return [self.examples[i] for i in ranked[:k]]

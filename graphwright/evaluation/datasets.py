"""Evaluation datasets: our JSONL format, and the HotpotQA-style folder in ../shared/eval/hotpotqa-dev.

JSONL, one question per line:
  {"question": "...", "gold_doc_ids": ["notes/a.md"] | "gold_titles": ["Title"],
   "expected_keywords": ["..."], "answer": "...", "type": "bridge"}
HotpotQA style: a folder (or its questions.json) with `questions.json` = [{question, answer, type,
supporting_facts: [[title, sentence_idx], ...]}] and `corpus.json` = {title: [sentence, ...]}; the gold
passages of a question are the distinct titles of its supporting facts.
Files with page gold (FinanceBench as ../shared/tools/financebench.py writes it): a folder with
`questions.jsonl` = {question, answer?, type?, doc, pages: [1-based]} per line and the documents in a
subfolder (`pdfs/` or `documents/`); `doc` names a file there (with or without its suffix), which is the
document's id once the folder is ingested with itself as the base.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from graphwright.errors import (
    DatasetError,  # re-exported: they used to live here
)


class EvalQuestion(BaseModel):
    question: str = Field(min_length=1)
    gold_doc_ids: list[str] = Field(default_factory=list)
    gold_titles: list[str] = Field(default_factory=list)
    expected_keywords: list[str] = Field(default_factory=list)
    answer: str | None = None
    type: str = "all"
    # 1-based pages of the gold document(s) that hold the answer: scored as page@k (a top-k passage covers one).
    gold_pages: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _has_something_to_check(self) -> EvalQuestion:
        if not (self.gold_doc_ids or self.gold_titles or self.expected_keywords or self.answer):
            raise ValueError("needs gold_doc_ids, gold_titles, expected_keywords or answer")
        if not self.question.strip():
            raise ValueError("question is blank")
        return self


class Dataset(BaseModel):
    name: str
    questions: list[EvalQuestion]
    corpus: dict[str, str] | None = None  # title -> text, when the dataset ships its corpus
    corpus_dir: Path | None = None  # a folder of files the dataset ships as its corpus (ids: paths below it)

    @property
    def has_pages(self) -> bool:
        return any(q.gold_pages for q in self.questions)

    @property
    def types(self) -> list[str]:
        return sorted({q.type for q in self.questions})


def _hotpot(folder: Path) -> Dataset:
    source = folder / "questions.json"
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{source}: cannot read: {exc}") from exc
    if not isinstance(raw, list):
        raise DatasetError(f"{source}: expected a JSON list of questions")
    questions = []
    for index, item in enumerate(raw):
        try:
            facts = item["supporting_facts"]
            titles = list(dict.fromkeys(str(fact[0]) for fact in facts))
            questions.append(
                EvalQuestion(
                    question=item["question"],
                    gold_titles=titles,
                    answer=item.get("answer"),
                    type=str(item.get("type") or "all"),
                )
            )
        except (KeyError, TypeError, IndexError, ValidationError) as exc:
            raise DatasetError(f"{source}: question {index}: {_reason(exc)}") from exc
    corpus = None
    corpus_file = folder / "corpus.json"
    if corpus_file.exists():
        try:
            data = json.loads(corpus_file.read_text(encoding="utf-8"))
            corpus = {str(t): "".join(s) if isinstance(s, list) else str(s) for t, s in data.items()}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as exc:
            raise DatasetError(f"{corpus_file}: cannot read: {exc}") from exc
    return Dataset(name=folder.name, questions=questions, corpus=corpus)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg']}" for e in exc.errors())
    if isinstance(exc, KeyError):
        return f"missing field {exc}"
    return str(exc)


def _questions(path: Path, read: Callable[[dict[str, Any]], EvalQuestion]) -> list[EvalQuestion]:
    """One question per line of a JSONL file, each record made a question by `read`; errors by line."""
    questions = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise DatasetError(f"{path}:{number}: expected a JSON object")
            questions.append(read(record))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
        except ValidationError as exc:
            raise DatasetError(f"{path}:{number}: {_reason(exc)}") from exc
        except KeyError as exc:
            raise DatasetError(f"{path}:{number}: {exc.args[0]}") from exc
    if not questions:
        raise DatasetError(f"{path}: no questions")
    return questions


def _jsonl(path: Path) -> Dataset:
    return Dataset(name=path.stem, questions=_questions(path, EvalQuestion.model_validate))


_FILE_FOLDERS = ("pdfs", "documents")


def _files(folder: Path) -> Dataset:
    """A folder of documents and questions.jsonl whose gold is a document (`doc`) and its `pages`."""
    corpus_dir = next(folder / name for name in _FILE_FOLDERS if (folder / name).is_dir())
    by_stem: dict[str, str] = {}
    for file in sorted(p for p in corpus_dir.rglob("*") if p.is_file()):
        relative = file.relative_to(corpus_dir).as_posix()
        by_stem.setdefault(relative, relative)
        by_stem.setdefault(relative.rsplit(".", 1)[0], relative)

    def read(record: dict[str, Any]) -> EvalQuestion:
        doc = record.pop("doc", None)
        if doc is not None:
            if str(doc) not in by_stem:
                raise KeyError(f"document {doc!r} is not in {corpus_dir}")
            record["gold_doc_ids"] = [by_stem[str(doc)]]
        if "pages" in record:
            record["gold_pages"] = record.pop("pages")
        fields = set(EvalQuestion.model_fields)
        return EvalQuestion.model_validate({k: v for k, v in record.items() if k in fields})

    return Dataset(name=folder.name, questions=_questions(folder / "questions.jsonl", read), corpus_dir=corpus_dir)


def load_dataset(path: str | Path) -> Dataset:
    """A JSONL file, a HotpotQA-style folder (or its questions.json), or a folder of documents with
    questions.jsonl (page gold)."""
    path = Path(path)
    if path.is_dir() and (path / "questions.jsonl").exists() and any((path / n).is_dir() for n in _FILE_FOLDERS):
        return _files(path)
    if path.is_dir():
        if not (path / "questions.json").exists():
            raise DatasetError(
                f"{path}: a dataset folder needs questions.json (HotpotQA style), or questions.jsonl and its "
                f"documents in {' or '.join(n + '/' for n in _FILE_FOLDERS)}"
            )
        return _hotpot(path)
    if path.name == "questions.json":
        return _hotpot(path.parent)
    if not path.exists():
        raise DatasetError(f"{path}: no such file")
    return _jsonl(path)

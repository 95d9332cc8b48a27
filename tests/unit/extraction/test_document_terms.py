"""A document's recurring compounds as entities of the chunks that use them."""

from __future__ import annotations

from graphwright.extraction.document_terms import add_document_terms, document_terms
from graphwright.models import ChunkExtraction, ExtractedEntity
from graphwright.text.languages import language

TEXT = "。".join(
    ["我们用知识图谱表示实体", "知识图谱需要更新", "构建知识图谱很贵", "外部知识很有用", "检索无法替代推理", "检索很快"]
)


def test_a_document_term_recurs_and_holds_together() -> None:
    zh = language("zh")
    assert "知识图谱" in zh.terms(TEXT, document=True)
    # used twice only: a chunk's term, not yet a document's
    twice = "。".join(["我们用知识图谱表示实体", "知识图谱需要更新"])
    assert zh.terms(twice) == ["知识图谱"] and zh.terms(twice, document=True) == []
    assert document_terms(TEXT, "en") == [] and document_terms("", "zh") == []


def test_chunks_that_hold_a_term_get_it_once() -> None:
    found = ChunkExtraction(chunk_id="c1", entities=[ExtractedEntity(name="实体")])
    add_document_terms(found, ["知识图谱", "向量数据库"], "知识图谱和实体。知识图谱。")
    assert [(e.name, e.type, e.count) for e in found.entities] == [("实体", "CONCEPT", 1), ("知识图谱", "CONCEPT", 2)]
    add_document_terms(found, ["知识图谱"], "知识图谱")
    assert [e.name for e in found.entities].count("知识图谱") == 1
    failed = ChunkExtraction(chunk_id="c2", error="boom")
    add_document_terms(failed, ["知识图谱"], "知识图谱")
    assert failed.entities == []
    # code is not prose
    coded = ChunkExtraction(chunk_id="c3")
    add_document_terms(coded, ["知识图谱"], "说明：\n\n```python\nkg = '知识图谱'\n```")
    assert coded.entities == []

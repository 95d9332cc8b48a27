"""Chinese documents and questions on the real Neo4j: segmented search terms in their own index, hybrid that
does not let an English-only embedder bury exact Chinese words, a Chinese graph, code kept as code, and an
English document beside them untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwright.search.hybrid import HybridRetriever
from graphwright.search.keywords import keyword_search
from graphwright.search.linking import EntityLinker
from graphwright.text.lucene import to_lucene
from tests.integration.helpers import write_files

pytestmark = pytest.mark.integration

DOCS = {
    "hallucination.md": "大模型有时会产生幻觉，也就是生成与事实不符的内容。"
    "检索增强生成（RAG）通过引入外部知识来减少幻觉。",
    "vectors.md": "向量数据库存储文本的嵌入向量，负责相似度检索。常见的系统有 Milvus 和 Neo4j 的向量索引。",
    "rerank.md": "混合检索结合了关键词检索和向量检索，再用重排序模型提升前几条结果的精度。",
    "multihop.md": "多跳检索（Multi-hop RAG）需要多次检索：先找到桥接实体，再沿着知识图谱找到答案。"
    "张三在北京大学研究这个问题。",
    "code.md": "下面是构建数据集的代码。\n\n"
    "class LegalDatasetBuilder:\n    def __init__(self):\n        self.cases = []\n\n"
    "这个类保存所有的测试用例。",
    "apollo.md": "Apollo 11 landed on the Moon in 1969. Neil Armstrong and Buzz Aldrin walked on the surface.",
}


@pytest.fixture
def chinese(rag, tmp_path: Path):
    report = rag.ingest([write_files(tmp_path / "zh", DOCS)], base=tmp_path, extractor="nlp")
    assert report.ok, report.failures
    return rag


def test_chunks_carry_their_language_and_search_terms(chinese) -> None:
    rows = {
        r["doc"]: r
        for r in chinese.store.read(
            "MATCH (c:Chunk) RETURN c.document_id AS doc, c.language AS language, c.terms AS terms, c.text AS text"
        )
    }
    assert rows["zh/vectors.md"]["language"] == "zh" and "数据库" in rows["zh/vectors.md"]["terms"].split()
    assert rows["zh/apollo.md"]["language"] == "en" and rows["zh/apollo.md"]["terms"] is None
    # code keeps its line breaks
    assert "class LegalDatasetBuilder:\n    def __init__(self):" in rows["zh/code.md"]["text"]


def test_a_chinese_word_finds_its_passage_first(chinese) -> None:
    hybrid = HybridRetriever(chinese.store, chinese.embedder)
    for question, doc in [
        ("什么是幻觉？", "zh/hallucination.md"),
        ("重排序有什么作用？", "zh/rerank.md"),
        ("向量数据库负责什么？", "zh/vectors.md"),
        ("多跳检索怎么找到答案？", "zh/multihop.md"),
    ]:
        keyword = hybrid.fulltext(question, 5)
        assert keyword and keyword[0].document_id == doc, question
        fused = hybrid.retrieve(question, 5)
        # the bundled embedder knows English only: BM25 leads for a Chinese question, so its best stays first
        assert fused[0].document_id == doc, (question, [c.document_id for c in fused])
    # English as before: the text index, not the terms
    assert hybrid.retrieve("Who walked on the Moon?", 3)[0].document_id == "zh/apollo.md"


def test_a_graph_written_before_terms_is_still_searched(chinese) -> None:
    chinese.store.connection.write("MATCH (c:Chunk) REMOVE c.terms")
    found = keyword_search(chinese.store.retrieval, "幻觉", 3)
    assert found and found[0]["document_id"] == "zh/hallucination.md"


def test_the_chinese_graph_has_typed_names_and_terms_and_no_code(chinese) -> None:
    entities = {
        r["name"]: r["type"] for r in chinese.store.read("MATCH (e:Entity) RETURN e.name AS name, e.type AS type")
    }
    assert entities.get("张三") == "PERSON" and entities.get("北京大学") == "ORGANIZATION"
    assert {"向量数据库", "混合检索", "多跳检索", "重排序模型", "检索增强生成"} <= set(entities)
    assert "LegalDatasetBuilder" not in entities  # an identifier of the code block
    assert "Neil Armstrong" in entities  # the English document's graph as before
    linked, _ = EntityLinker(chinese.store.graph).exact("向量数据库负责什么？")
    assert [e.name for e in linked] == ["向量数据库"]


def test_an_english_question_finds_a_chinese_passage_by_its_translation(chinese) -> None:
    """No embedder here reads both languages: the question's words said in Chinese terms (CC-CEDICT) find the
    passage, and hybrid and local weigh it by BM25, not by the English embedder's noise on Chinese text."""
    assert chinese.store.retrieval.corpus_languages() == {"zh", "en"}
    hybrid = HybridRetriever(chinese.store, chinese.embedder)
    for question, doc in [
        ("How can hallucination be reduced?", "zh/hallucination.md"),
        ("What does a vector database store?", "zh/vectors.md"),
    ]:
        keyword = keyword_search(chinese.store.retrieval, question, 5)
        assert keyword and keyword[0]["document_id"] == doc, (question, keyword)
        assert hybrid.retrieve(question, 3)[0].document_id == doc, question
        # local's walk starts from it: the closest seed by the translated words, on the scale of the English
        # passages' similarities (the share of the question it holds), above the English passage that holds
        # none of it (the walk may rank a better connected neighbour above it in a corpus this small)
        found = chinese.search(question, mode="local", k=3, generate=False)
        seeded = {c.document_id: c.scores.get("similarity") for c in found.chunks}
        assert seeded.get(doc) == max(v for v in seeded.values() if v is not None) > 0.3, (question, seeded)
    # a graph whose documents do not record their languages (written before they did) reads its chunks'
    chinese.store.connection.write("MATCH (d:Document) REMOVE d.languages")
    assert chinese.store.retrieval.corpus_languages() == {"zh", "en"}
    assert keyword_search(chinese.store.retrieval, "How can hallucination be reduced?", 3)[0]["document_id"] == (
        "zh/hallucination.md"
    )
    # the English passage still leads for an English question about it
    assert hybrid.retrieve("Who walked on the Moon?", 3)[0].document_id == "zh/apollo.md"


def test_an_english_corpus_is_searched_without_translation(rag, tmp_path: Path) -> None:
    """An English-only corpus: no second index is asked and the keyword ranking is BM25's own."""
    docs = {"moon.md": DOCS["apollo.md"], "mars.md": "Perseverance landed on Mars in 2021 in Jezero crater."}
    assert rag.ingest([write_files(tmp_path / "en", docs)], base=tmp_path, extractor="nlp").ok
    assert rag.store.retrieval.corpus_languages() == {"en"}
    question = "Who landed on the Moon?"
    plain = rag.store.retrieval.fulltext_search(to_lucene(question), 5)
    assert keyword_search(rag.store.retrieval, question, 5) == plain
    assert plain[0]["language"] == "en"


def test_a_term_the_document_repeats_across_chunks_is_an_entity(rag, tmp_path: Path) -> None:
    """知识图谱 once in each of three chunks: no chunk alone can tell the compound (jieba splits it, a verb and
    a noun) from chance; the document can."""
    filler = "检索系统需要处理大量的文本，每个段落都经过切分、嵌入和索引，然后进入数据库等待查询。" * 3
    paragraphs = [f"第{n}部分：团队用知识图谱描述实体之间的联系。{filler}" for n in "一二三"]
    assert rag.ingest([write_files(tmp_path / "kg", {"kg.md": "\n\n".join(paragraphs)})], base=tmp_path).ok
    rows = rag.store.read(
        "MATCH (c:Chunk) WITH c, size(split(c.text, '知识图谱')) - 1 AS uses WHERE uses > 0 "
        "OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity {name: '知识图谱'}) RETURN uses, e IS NOT NULL AS mentions"
    )
    assert len(rows) >= 2 and all(r["uses"] == 1 for r in rows)  # each chunk says it once
    assert all(r["mentions"] for r in rows)

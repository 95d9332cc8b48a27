"""The language seam: detection per text, words and search terms, names, report sentences, cues and anaphors
in the question's language, and a third language added as one module plus one registration."""

from __future__ import annotations

import re

import pytest

from graphwright.search.followup import dependence
from graphwright.search.linking import candidate_spans, question_words
from graphwright.search.router import route_by_rules
from graphwright.text import languages
from graphwright.text.languages import detect, language
from graphwright.text.normalize import normalize_key


def test_detection_per_text() -> None:
    assert detect("Who founded Blue Origin?").code == "en"
    assert detect("张三在哪里出生？").code == "zh"
    # a Chinese article quoting English terms stays Chinese; an English one naming 北京 once stays English
    assert detect("Self-RAG 和 CRAG 都是通过检索评估来减少大模型幻觉的方法。").code == "zh"
    assert detect("The 2008 Summer Olympics were held in Beijing (北京), China.").code == "en"
    assert detect("").code == "en"
    # a Chinese article whose code is English: the code does not count
    code = "\n".join(f"    result_{i} = search(query, top_k={i})" for i in range(40))
    assert detect(f"混合检索结合了关键词和向量。\n\ndef run(query):\n{code}\n\n重排序提升精度。").code == "zh"


def test_chinese_words_terms_and_keys() -> None:
    zh = language("zh")
    assert question_words("知识图谱和向量数据库之间有什么关系？")[:5] == ["知识", "图谱", "和", "向量", "数据库"]
    # search terms: lowercased, no function words, a long word also as the words inside it
    terms = zh.index_terms("Self-RAG 通过向量数据库减少幻觉。").split()
    assert {"self", "rag", "数据库", "幻觉"} <= set(terms) and "通过" not in terms
    # a span of words is the name written without spaces, so it matches the entity's key
    keys = {key for _, _, key in candidate_spans(question_words("知识图谱是什么？"))}
    assert normalize_key("知识图谱") in keys
    assert normalize_key("知识 图谱") == normalize_key("知识图谱") == "知识图谱"
    assert normalize_key("Buzz  Aldrin") == "buzz aldrin"  # English keys as before
    assert zh.join(["Neo4j", "图", "数据库"]) == "Neo4j图数据库" and zh.join(["Graph", "RAG"]) == "Graph RAG"


def test_a_chinese_question_also_searches_the_pairs_of_a_word_the_dictionary_does_not_hold() -> None:
    """A name run into the word after it ("潘淑是") is in no passage's terms; its pairs ("潘淑") are."""
    zh = language("zh")
    assert "潘淑是" in zh.index_terms("潘淑是哪里人？").split()
    passage = zh.index_terms("潘淑，会稽句章人。").split()
    assert "潘淑" in passage and "潘淑是" not in passage
    asked = zh.query_terms("潘淑是哪里人？").split()
    assert asked[: len(zh.index_terms("潘淑是哪里人？").split())] == zh.index_terms("潘淑是哪里人？").split()
    assert "潘淑" in asked
    assert zh.query_terms("知识图谱是什么") == zh.index_terms("知识图谱是什么")  # known words: nothing added


def test_chinese_names_are_checked_and_typed() -> None:
    zh = language("zh")
    names = dict(zh.names("李白和杜甫在长安见面。谢谢大家，索引和关联很重要。"))
    # the dictionary tags 索引 "index" a name and 关联 "association" a place: concepts; 谢谢 "thanks" is no name
    assert names == {"李白": "PERSON", "杜甫": "PERSON", "长安": "LOCATION", "索引": "CONCEPT", "关联": "CONCEPT"}
    found = [n for n, _ in zh.names("这就是多跳检索（Multi-hop RAG），向量数据库负责检索，再用重排序。")]
    assert found == ["多跳检索", "向量数据库", "重排序"]
    assert dict(zh.names("张三在北京大学工作。")) == {"张三": "PERSON", "北京大学": "ORGANIZATION"}
    # a term glossed either way round; a one-character locative does not end a compound
    assert [n for n, _ in zh.names("RAG（检索增强生成）在生成答案时借助外部知识。")] == ["检索增强生成"]
    # a compound the text repeats is one of its terms, though the dictionary splits it
    text = "将实体和关系构建成知识图谱，再用图结构检索。系统可以自动构建知识图谱。"
    assert zh.terms(text) == ["知识图谱"] and zh.terms("构建知识图谱。") == []


def test_sentences_split_at_chinese_ends_and_keep_english_rules() -> None:
    zh = language("zh")
    assert zh.split_sentences("第一句。第二句！Dr. Smith met Mr. Jones. 第三句？") == [
        "第一句。",
        "第二句！",
        "Dr. Smith met Mr. Jones.",
        "第三句？",
    ]


def test_cues_and_anaphors_in_the_questions_language() -> None:
    assert route_by_rules("这些文档的主要内容是什么？", 0).mode == "global"
    assert route_by_rules("知识图谱和向量数据库之间有什么关系？", 2).mode == "path"
    assert route_by_rules("知识图谱是什么？", 1).mode == "local"
    assert route_by_rules("What are the main themes?", 0).mode == "global"  # English as before
    depends, why = dependence("它的作者是谁？", [])
    assert depends and "它" in why
    assert dependence("那导演呢？", [])[0]
    assert dependence("还有其他方法吗？", [])[1] == "elliptic"


class Pig:
    """A toy third language: text marked with "oink" is Pig Latin-ish; words split at dashes."""

    code = "pg"
    name = "Pig"
    segmented = False
    stopwords = frozenset({"oink"})
    anaphors = frozenset({"itway"})
    personal_anaphors = frozenset()
    impersonal_anaphors = frozenset({"itway"})
    ellipsis = re.compile(r"^andway\b")
    thematic = re.compile(r"emesthay")
    connection = re.compile(r"onnectedcay")
    intersection = re.compile(r"othbay")

    def claim(self, text: str) -> float:
        return 0.9 if "oink" in text else 0.0

    def words(self, text: str) -> list[str]:
        return [w for w in re.split(r"[-\s?]+", text) if w]

    def join(self, words: list[str]) -> str:
        return "-".join(words)

    def names(self, sentence: str) -> list[tuple[str, str]]:
        return []

    def terms(self, text: str, *, document: bool = False) -> list[str]:
        return []

    def index_terms(self, text: str) -> str:
        return ""

    def query_terms(self, text: str) -> str:
        return ""

    def split_sentences(self, text: str) -> list[str]:
        return [text]

    def report(self, key: str, **values: object) -> str:
        return key


PIG = Pig()


def test_a_third_language_is_one_module_and_one_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(languages.LANGUAGES, "pg", f"{__name__}:PIG")
    assert detect("oink emesthay-ofway-isthay?").code == "pg"
    assert route_by_rules("oink emesthay", 0).mode == "global"  # its cues route its questions
    assert detect("知识图谱").code == "zh" and detect("Apollo").code == "en"


def test_an_unknown_language_code_is_refused() -> None:
    with pytest.raises(KeyError, match="unknown language"):
        language("xx")

"""English to Chinese search terms from CC-CEDICT: whole senses only, commonest first, names kept as written."""

from __future__ import annotations

from graphwright.text.languages import language
from graphwright.text.languages.base import Alternatives
from graphwright.text.languages.chinese_lexicon import (
    FUNCTION_WORDS,
    CompiledLexicon,
    MemoryLexicon,
    compile_lexicon,
    compiled_path,
    compiled_rows,
    is_name,
    lexicon,
    translate,
)
from graphwright.text.lucene import alternatives_query

FREQUENCY = {"检索": 100, "阶段": 900, "舞台": 200, "地步": 100, "知识库": 50, "知识": 800, "幻觉": 30}


def _frequency(word: str) -> int:
    return FREQUENCY.get(word, 0)


def _segment(word: str) -> str:
    return " ".join(word)


def _table() -> MemoryLexicon:
    return MemoryLexicon(compiled_rows(lexicon(), _frequency, _segment))


def _words(found: tuple) -> tuple[str, ...]:
    return tuple(t.word for t in found)


def test_the_lexicon_reads_whole_senses_only() -> None:
    table = lexicon()
    assert "检索" in table["retrieval"] and "幻觉" in table["hallucination"]
    assert "数据库" in table["database"]
    # "retrieve (data)": the parenthesis is dropped, "to" too
    assert "检索" in table["retrieve"]
    # a word inside a longer sense is no key of its own ("archive of graphics" is not "graphics")
    assert "图谱" not in table.get("graphics", ())


def test_translation_takes_the_longest_phrase_the_commonest_word_and_keeps_names() -> None:
    words = ["What", "are", "the", "stages", "of", "the", "knowledge", "base", "in", "RAG", "retrieval"]
    table = _table()
    out = {english: _words(found) for english, found in translate(words, table)}
    assert out["stages"] == ("阶段", "舞台", "地步")  # "stage", not "stag"; by frequency
    assert out["knowledge base"] == ("知识库",)  # the phrase before its words
    assert out["RAG"] == () and out["retrieval"] == ("检索",)  # an acronym is not the cloth "rag"
    assert not {"What", "are", "the", "of", "in"} & set(out)  # function words say nothing
    # words the frequency list does not know are no translation
    assert dict(translate(["improve"], table))["improve"] == ()
    assert {"what", "is", "does"} <= FUNCTION_WORDS


def test_the_compiled_lexicon_answers_as_the_table_it_was_compiled_from(tmp_path) -> None:
    jieba_dictionary = tmp_path / "dict.txt"
    jieba_dictionary.write_text("x 1 n\n", encoding="utf-8")
    path = compiled_path(tmp_path / "cache", jieba_dictionary)
    compile_lexicon(path, _frequency, _segment)
    compiled = CompiledLexicon(path)
    assert compiled.get("stage") == _table().get("stage") and _words(compiled.get("stage"))[0] == "阶段"
    assert compiled.get("stage")[0].terms == "阶 段" and compiled.get("stage")[0].frequency == 900
    assert compiled.get("no such sense at all") == ()
    # keyed by its sources: another jieba dictionary is another file
    jieba_dictionary.write_text("x 1 n\ny 2 n\n", encoding="utf-8")
    assert compiled_path(tmp_path / "cache", jieba_dictionary) != path
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [path.name]  # nothing half-written left


def test_an_english_word_is_indexed_as_jieba_would_without_loading_it() -> None:
    import jieba

    chinese = language("zh")
    for text in ("Graph RAG", "retrieval", "GPT4 model 2023"):
        expected = " ".join(t.strip().lower() for t in jieba.cut_for_search(text) if t.strip())
        assert chinese.index_terms(text) == expected


def test_names_are_told_by_their_capitals() -> None:
    assert is_name("HyDE", first=False) and is_name("Neo4j", first=True) and is_name("Graph", first=False)
    assert not is_name("Which", first=True) and not is_name("retrieval", first=False)


def test_chinese_says_an_english_question_in_weighted_terms() -> None:
    chinese, english = language("zh"), language("en")
    words = chinese.search_terms_from(english.words("How does HyDE reduce hallucination in special tokens?"), "en")
    by_word = {w.source: w for w in words}
    assert by_word["HyDE"].translations == {} and by_word["HyDE"].as_written == {"hyde": 1.0}
    assert "幻觉" in by_word["hallucination"].translations
    assert by_word["hallucination"].as_written == {"hallucination": 1.0}  # the English word stays an alternative
    assert by_word["tokens"].as_written == {"tokens": 1.0, "token": 1.0}  # and its singular
    for word in words:  # the translations of one word share a prior weight of one
        assert not word.translations or abs(sum(word.translations.values()) - 1.0) < 1e-9
    assert chinese.search_terms_from(["幻觉"], "fr") == []


def test_the_corpus_says_which_translation_it_writes() -> None:
    word = Alternatives("confidence", {"信心": 0.94, "底气": 0.03, "置信": 0.03}, {"confidence": 1.0})
    used = word.reweighted({"置信": 6, "信心": 2})
    assert used.translations == {"置信": 0.75, "信心": 0.25}  # 底气 is not in the corpus
    assert used.terms() == {"置信": 0.75, "信心": 0.25, "confidence": 1.0}
    assert word.reweighted({}).terms() == {"confidence": 1.0}


def test_alternatives_become_one_boosted_lucene_query() -> None:
    query = alternatives_query([{"检索": 0.75, "搜索": 0.25, "retrieval": 1.0}, {"图书 管理员": 1.0, "a+b": 0.5}])
    assert query == '检索^0.75 搜索^0.25 retrieval^1 "图书 管理员"~2^1 a\\+b^0.5'
    assert alternatives_query([{"x": 1.0} for _ in range(10)], max_tokens=3).count("^") == 3


def test_a_long_question_is_translated_within_the_query_budget() -> None:
    from graphwright.search.keywords import _within_budget

    chinese, english = language("zh"), language("en")
    words = chinese.search_terms_from(english.words("hallucination retrieval database " * 400), "en")
    kept = _within_budget(words, budget=50)
    assert 0 < len(kept) < len(words)
    assert sum(len(w.translations) + len(w.as_written) for w in kept) <= 50

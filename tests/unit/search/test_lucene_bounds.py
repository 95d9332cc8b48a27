"""Fulltext queries stay under Lucene's 1024-clause limit for questions of any length and script."""

from __future__ import annotations

import re

from graphwright.search.linking import name_query
from graphwright.text.lucene import MAX_QUERY_TOKENS, to_lucene

_TOKEN = re.compile(r"[\u4e00-\u9fff]|[^\W_]+")


def _tokens(query: str) -> int:
    return len(_TOKEN.findall(query.replace("\\", " ")))


def test_a_question_within_the_budget_is_searched_as_written() -> None:
    assert to_lucene("Who founded Blue Origin? AND v2.3.1") == 'Who founded Blue Origin\\? and "v2.3.1"'
    assert to_lucene("the cat and the hat") == "the cat and the hat"  # ranking below the budget is unchanged
    assert to_lucene("北京大学的历史") == "北京大学的历史"


def test_long_questions_are_cut_to_the_budget_keeping_names_and_codes() -> None:
    filler = " ".join("w" + chr(97 + i % 26) + chr(97 + i // 26 % 26) + chr(97 + i // 676) for i in range(3000))
    query = to_lucene(f"the of and {filler} Hubble QX-7719-ZB")
    assert _tokens(query) <= MAX_QUERY_TOKENS
    assert "Hubble" in query and '"QX-7719-ZB"' in query  # the informative ones are kept
    assert " the " not in f" {query} "  # common words go first


def test_chinese_characters_are_terms_each_once() -> None:
    query = to_lucene("哈勃太空望远镜" * 500)
    assert query.split() == list("哈勃太空望远镜")
    many = to_lucene("".join(chr(0x4E00 + i) for i in range(3000)))
    assert _tokens(many) == MAX_QUERY_TOKENS


def test_entity_name_queries_bound_their_fuzzy_terms() -> None:
    words = " ".join(f"Telescope{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for i in range(500))
    query = name_query(words + " " + "望远镜" * 1000)
    assert query.count("~1") <= 32
    assert "望远镜~1" not in query and _tokens(query) <= MAX_QUERY_TOKENS + 3 * 32

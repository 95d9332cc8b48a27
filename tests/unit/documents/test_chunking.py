from __future__ import annotations

import pytest

from graphwright.documents.chunking import chunk_text
from graphwright.text.sentences import split_sentences
from graphwright.text.tokens import count_tokens


def test_count_tokens_words_punctuation_and_cjk() -> None:
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("GPT-4o") == 3
    assert count_tokens("阿波罗11号") == 5  # one per CJK character, digits as one word
    assert count_tokens("") == 0


def test_sentences_split_on_terminal_punctuation() -> None:
    assert split_sentences("It flew. It landed! Did it? Yes.") == ["It flew.", "It landed!", "Did it?", "Yes."]
    assert split_sentences("嫦娥四号着陆。玉兔二号巡视。") == ["嫦娥四号着陆。", "玉兔二号巡视。"]
    assert split_sentences("Version 3.5 shipped.") == ["Version 3.5 shipped."]


def _sentences(n: int, words: int = 9) -> str:
    return " ".join(f"Sentence {i} " + " ".join(["word"] * (words - 3)) + "." for i in range(n))


def test_chunks_respect_size_and_end_on_sentences() -> None:
    text = _sentences(40)
    chunks = chunk_text(text, size=50, overlap=10)
    assert len(chunks) > 5
    for chunk in chunks:
        assert chunk.n_tokens <= 50
        assert chunk.n_tokens == count_tokens(chunk.text)
        assert chunk.text.startswith("Sentence") and chunk.text.endswith(".")


def test_overlap_repeats_the_tail_of_the_previous_chunk() -> None:
    chunks = chunk_text(_sentences(30), size=50, overlap=12)
    for prev, nxt in zip(chunks, chunks[1:]):
        last_sentence = split_sentences(prev.text)[-1]
        assert nxt.text.startswith(last_sentence)
    no_overlap = chunk_text(_sentences(30), size=50, overlap=0)
    assert sum(c.n_tokens for c in no_overlap) == count_tokens(_sentences(30))


def test_every_sentence_is_kept_in_order() -> None:
    text = _sentences(25)
    chunks = chunk_text(text, size=40, overlap=8)
    seen = []
    for chunk in chunks:
        for sentence in split_sentences(chunk.text):
            if sentence not in seen:  # overlap repeats sentences; each is unique in this text
                seen.append(sentence)
    assert seen == split_sentences(text)


def test_paragraph_break_ends_a_full_enough_chunk() -> None:
    para_a = _sentences(4)  # 36 tokens
    para_b = _sentences(2)
    chunks = chunk_text(f"{para_a}\n\n{para_b}", size=45, overlap=0)
    assert chunks[0].text == para_a  # 36 >= 0.75 * 45, so the break wins over packing
    short = chunk_text(f"{_sentences(1)}\n\n{_sentences(1)}", size=45, overlap=0)
    assert len(short) == 1 and "\n\n" in short[0].text  # small paragraphs share a chunk, break kept


def test_overlong_sentence_is_cut_between_words() -> None:
    long_sentence = " ".join(f"w{i}" for i in range(130)) + "."
    chunks = chunk_text(long_sentence, size=50, overlap=5)
    assert all(c.n_tokens <= 50 for c in chunks)
    assert " ".join(c.text for c in chunks).split() == long_sentence.split()


def test_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(ValueError):
        chunk_text("x", size=10, overlap=10)


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("   \n\n  ", size=20, overlap=2) == []

"""Code inside prose: found conservatively, kept with its line breaks by chunking, left out by extraction."""

from __future__ import annotations

from graphwright.documents.chunking import chunk_text
from graphwright.extraction.extract import extract_checked
from graphwright.extraction.nlp_extractor import NLPExtractor
from graphwright.text.code_blocks import is_code, paragraphs, without_code

ARTICLE = """Agentic RAG 系统由检索器和推理器组成，检索器负责从知识库中召回文档。

import json
from openai import OpenAI

class Agent:
    def __init__(self, client):
        self.client = client

推理器调用 OpenAI 的接口生成答案。

```cypher
MATCH (a:Person)-[:KNOWS]->(b)

RETURN a.name, b.name
```

Grace Hopper built the first compiler."""


def test_code_paragraphs_are_found_and_prose_is_not() -> None:
    kinds = [code for _, code in paragraphs(ARTICLE)]
    assert kinds == [False, True, True, False, True, False]
    fenced = [p for p, code in paragraphs(ARTICLE) if code][-1]
    assert "MATCH" in fenced and "RETURN" in fenced  # one block, the blank line inside it included
    # a poem's indented lines, a list, a sentence ending in a colon: prose
    assert not is_code("    The woods are lovely, dark and deep,\n    But I have promises to keep.")
    assert not is_code("We need three things:\n- a map\n- a lamp")
    assert not is_code("Note the following:\nthe results (shown below) are final.")


def test_chunks_keep_code_line_breaks_and_prose_flows() -> None:
    text = "\n\n".join(chunk.text for chunk in chunk_text(ARTICLE, size=200, overlap=0))
    assert "class Agent:\n    def __init__(self, client):\n        self.client = client" in text
    assert "import json\nfrom openai import OpenAI" in text
    assert "Grace Hopper built the first compiler." in text


def test_a_long_code_block_is_cut_between_lines() -> None:
    code = "\n".join(f"    value_{i} = compute({i}, step={i + 1})" for i in range(120))
    chunks = chunk_text("def build():\n" + code, size=100, overlap=0)
    assert len(chunks) > 1 and all(c.n_tokens <= 100 for c in chunks)
    assert all(line.strip().startswith(("value_", "def build")) for c in chunks for line in c.text.splitlines())


def test_extraction_reads_the_prose_only() -> None:
    assert "import json" not in without_code(ARTICLE) and "Grace Hopper" in without_code(ARTICLE)
    assert without_code("One line. No code.") == "One line. No code."
    extractions, _ = extract_checked(NLPExtractor(typed_relations=False), [("c1", ARTICLE)], None)
    names = {e.name for e in extractions[0].entities}
    assert "Grace Hopper" in names
    assert not names & {"Agent", "MATCH", "Person", "KNOWS", "RETURN"}  # identifiers of the code

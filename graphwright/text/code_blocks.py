"""Code inside prose: a fenced block, or a paragraph most of whose lines read as code. Chunking keeps such a
block's line breaks (code without them is unreadable and wrong), and the extractors leave it out: `MATCH`,
`json` and `self` are not entities of the text, and a parser reads code as broken sentences.

Conservative on purpose: a line counts only with a code keyword at its start, or code punctuation together
with an indent or a trailing bracket; a poem's indented lines, a list or a sentence ending in a colon are
prose."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)")
_FENCE_END = re.compile(r"(```|~~~)\s*$")
_BLANK = re.compile(r"\n\s*\n")
_KEYWORD = re.compile(
    r"^\s*(import \w|from [\w.]+ import |def \w+\(|class \w+[(:]|return\b|elif\b|else:|try:|except\b|"
    r"for \w+ in |while .*:$|with .*:$|if .*:$|@\w+|async def |await |print\(|self\.|"
    r"MATCH \(|MERGE \(|CREATE \(|RETURN \w|WHERE \w|CALL \w|OPTIONAL MATCH|UNWIND |"
    r"SELECT .* FROM|INSERT INTO|const \w|let \w|var \w|function \w|public |private |#include|"
    r"pip install|npm |curl |\$ \w|>>> )"
)
_PUNCTUATION = re.compile(r"[=(){}\[\];]|->|=>|::")
_TRAILING = re.compile(r"[{(\[,:;]\s*$|^\s*[})\]]+[,;]?\s*$")
_INDENT = re.compile(r"^(\s{4,}|\t)\S")
_KEY_VALUE = re.compile(r"""^\s*["'][\w .-]+["']\s*:\s*\S""")
# A paragraph is code when at least this share of its lines read as code (and it has two lines at least).
_CODE_SHARE = 0.6


def code_line(line: str) -> bool:
    if not line.strip():
        return False
    if _KEYWORD.match(line) or _KEY_VALUE.match(line):
        return True
    return bool(_PUNCTUATION.search(line)) and bool(_TRAILING.search(line) or _INDENT.match(line))


def is_code(paragraph: str) -> bool:
    """Whether a paragraph (text between blank lines) is a block of code."""
    lines = [line for line in paragraph.splitlines() if line.strip()]
    if not lines:
        return False
    if _FENCE.match(lines[0]):
        return True
    if len(lines) < 2:
        return False
    return sum(code_line(line) for line in lines) >= _CODE_SHARE * len(lines)


def paragraphs(text: str) -> list[tuple[str, bool]]:
    """The text's paragraphs (split at blank lines) in order, each with whether it is code; a fenced block
    is one paragraph, blank lines inside it included."""
    out: list[tuple[str, bool]] = []
    fenced: list[str] | None = None
    for block in _BLANK.split(text):
        if fenced is not None:
            fenced.append(block)
            if _FENCE_END.search(block):
                out.append(("\n\n".join(fenced), True))
                fenced = None
            continue
        if _FENCE.match(block) and not _FENCE_END.search(block.strip()[3:]):
            fenced = [block]
            continue
        if block.strip():
            out.append((block, is_code(block)))
    if fenced is not None:
        out.append(("\n\n".join(fenced), True))
    return out


def without_code(text: str) -> str:
    """The text with its code blocks left out: what extraction reads."""
    if "\n" not in text:
        return text
    found = paragraphs(text)
    if not any(code for _, code in found):
        return text
    return "\n\n".join(p for p, code in found if not code)

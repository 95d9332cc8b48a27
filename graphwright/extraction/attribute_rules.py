"""spaCy's attribute ruler (the model's tag map: a token's coarse POS, morphology and some lemmas from its
fine tag and its lower-case form), with the same result in a fraction of the time. Its Matcher tries all
179 patterns of en_core_web_sm at every token, which made it a fifth of the offline parse; 160 of them
ask only for a tag and/or a lower-case form of one token, and those are looked up in tables here. The rest
(other attributes, regular expressions, two tokens) stay in a Matcher of their own. Every token then gets
the attributes of every rule that matched it, in the ruler's order (a later rule wins), which is what the
ruler does (tested token by token against it)."""

from __future__ import annotations

from typing import Any

# A one-token pattern of these attributes, each a string or {"IN": [strings]}, is a table lookup.
_LOOKUP_KEYS = frozenset({"TAG", "LOWER"})


def _values(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) and set(value) == {"IN"} and all(isinstance(v, str) for v in value["IN"]):
        return list(value["IN"])
    return None


def _lookup_keys(pattern: list[dict[str, Any]]) -> list[tuple[str | None, str | None]] | None:
    """The (tag, lower) pairs a pattern matches, None in a place it does not test; None if no table can."""
    if len(pattern) != 1 or not pattern[0] or not set(pattern[0]) <= _LOOKUP_KEYS:
        return None
    spec = pattern[0]
    tags = _values(spec["TAG"]) if "TAG" in spec else [None]
    lowers = _values(spec["LOWER"]) if "LOWER" in spec else [None]
    if tags is None or lowers is None:
        return None
    return [(tag, lower) for tag in tags for lower in lowers]


class AttributeRules:
    """Applies a loaded spaCy AttributeRuler's rules to a Doc, like the ruler's own `__call__`."""

    def __init__(self, ruler: Any) -> None:
        from spacy.matcher import Matcher

        self._attrs: list[dict[Any, Any]] = list(ruler.attrs)
        self._indices: list[int] = list(ruler.indices)
        # (tag, lower) -> the rules that match it; None where a rule does not test that attribute
        self._table: dict[tuple[str | None, str | None], list[int]] = {}
        self._matcher = Matcher(ruler.vocab)
        self._vocab = ruler.vocab
        for rule in range(len(self._attrs)):
            patterns = ruler.matcher.get(str(rule))[1]
            keys = [_lookup_keys(p) for p in patterns]
            if any(k is None for k in keys):  # the whole rule in the Matcher, its patterns as the ruler has them
                self._matcher.add(str(rule), patterns)
                continue
            for pair in {pair for found in keys for pair in found or []}:
                self._table.setdefault(pair, []).append(rule)

    def __call__(self, doc: Any) -> Any:
        from spacy.tokens import Span
        from spacy.tokens._retokenize import set_token_attrs

        # All matches are found before any is applied (a rule may change a tag another one reads).
        rules_of: dict[int, list[int]] = {}
        table = self._table
        for token in doc:
            tag, lower = token.tag_, token.lower_
            found = table.get((tag, None), []) + table.get((None, lower), []) + table.get((tag, lower), [])
            if found:
                rules_of[token.i] = found
        for match_id, start, end in self._matcher(doc, allow_missing=True, as_spans=False):
            rule = int(self._vocab.strings[match_id])
            target = Span(doc, start, end)[self._indices[rule]].i
            rules_of.setdefault(target, []).append(rule)
        for i, rules in rules_of.items():
            token = doc[i]
            for rule in sorted(rules):
                set_token_attrs(token, self._attrs[rule])
        return doc

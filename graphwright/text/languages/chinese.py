"""Chinese: words by jieba (its dictionary ships in the wheel; loaded on first use), sentences at 。！？；
and line ends, and the offline reports and router cues in Chinese."""

from __future__ import annotations

import logging
import re
import threading
from functools import cache, lru_cache
from typing import Any

from graphwright.text.code_blocks import without_code
from graphwright.text.languages.base import Alternatives
from graphwright.text.sentences import split_sentences as _split_english
from graphwright.text.tokens import HAN_RE, singular

_HAN = HAN_RE
_LATIN = re.compile(r"[A-Za-z]+")
_WORD = re.compile(r"[^\W_]", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[。！？；!?])\s*|\n+|(?<=[.])\s+(?=[\u4e00-\u9fff])")
_LOCK = threading.Lock()

# Function words and question words: never a search term or a name on their own.
_STOPWORDS = frozenset(
    """的 了 是 在 和 与 及 以及 等 也 就 都 而 且 或 或者 被 把 将 这 那 这个 那个
    这些 那些 它 他 她 我 你 我们 你们 他们 她们 它们 个 之 其 该 此 为 以 于 对 从
    到 由 中 上 下 吗 呢 吧 啊 哪 哪里 哪儿 哪个 哪些 什么 怎么 怎样 如何 为什么 为何
    多少 几 谁 是否 有 没有 可以 能 会 要 所 着 过 得 地 又 还 并 但 但是 而且 因为
    所以 如果 通过 进行 一个 一种 一些 其中 关于 对于 之间 不 很 更 最 非常 已经 可能
    这种 那种 什么样 哪种 请问 么""".split()
)
_ANAPHORS = frozenset("它 它们 他 他们 她 她们 其 该 这 此 这个 那个 这些 那些 前者 后者 此人 该人".split())
_PERSONAL = frozenset("他 他们 她 她们 此人 该人".split())
_IMPERSONAL = frozenset("它 它们 其 该 此".split())

_TYPES = {
    "person": "人物",
    "organization": "机构",
    "location": "地点",
    "event": "事件",
    "product": "产品",
    "technology": "技术",
    "concept": "概念",
}
_TEMPLATES = {
    "and": "和",
    "comma": "、",
    "group": "由{size}个实体（{kinds}）组成的群组，以{names}为中心。",
    "ties": "最强的联系：{ties}。",
    "tie": "{source}（{relation}）{target}",
    "kind": "{count}个{type}",
    "finding": "{source}（{relation}）{target}（权重{weight:g}）",
    "rating": "{size}个成员，显示{relations}条内部关系，密度{density:.2f}",
    "unnamed": "（未命名）",
    "related": "关联",
}


@cache
def _jieba() -> Any:  # the jieba module, its dictionary loaded once per process
    import jieba

    jieba.setLogLevel(logging.WARNING)
    with _LOCK:
        jieba.initialize()
    return jieba


def jieba_frequency(word: str) -> int:
    """A word's frequency in jieba's dictionary; for a word it does not hold, that of its rarest part."""
    jieba = _jieba()
    known = int(jieba.dt.FREQ.get(word, 0))
    return known or min((int(jieba.dt.FREQ.get(p, 0)) for p in jieba.lcut(word)), default=0)


def jieba_segmented(word: str) -> str:
    return " ".join(_jieba().lcut(word))


_LATIN_WORDS = re.compile(r"[A-Za-z0-9 ]*")


@lru_cache(maxsize=2048)
def _tagged(sentence: str) -> tuple[tuple[str, str], ...]:
    """(word, part of speech) of a sentence: tagged once though a chunk's terms and each sentence's names
    both read it."""
    _jieba()
    from jieba import posseg

    return tuple((p.word, p.flag) for p in posseg.lcut(sentence))


def han_share(text: str) -> float:
    """Chinese characters among the words of `text`'s prose (code blocks left out): each Han character
    against each Latin word."""
    prose = without_code(text)
    han = len(_HAN.findall(prose))
    latin = len(_LATIN.findall(prose))
    return han / (han + latin) if han + latin else 0.0


# The hundred commonest surnames: a word the dictionary tags as a person's name is a person only when it starts
# with one of them (the dictionary tags 索引 "index", 玉兔 "Yutu", 华为 "Huawei" as names too: they stay
# entities, as concepts), and is no name at all when reduplicated (谢谢 "thanks").
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石"
    "廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
_PLACE_SUFFIXES = tuple("省市县区州国山河湖江岛镇村路街海洋洲城港")
# A word tagged a place is one when it ends like a place name (省, 市, 山...) or the dictionary has met it
# often as one (长安, 北京); 关联 "association", tagged a place, has neither and stays a concept.
_COMMON_PLACE = 2000
# Parts of speech a term is built of (a name tagged nt/nr/ns is a name, not part of a term), and a one-character
# adjective may open one (大模型, 重排序).
_NOUNISH = frozenset({"n", "nz", "vn", "ng", "nl", "an"})
# Words before a glossed term that are not part of it: "这就是多跳检索（Multi-hop RAG）" names 多跳检索.
_GLOSS = re.compile(r"（\s*([A-Za-z][A-Za-z0-9 .+/&-]{1,40})\s*）|\(\s*([A-Za-z][A-Za-z0-9 .+/&-]{1,40})\s*\)")
# The other way round: an English term glossed in Chinese, "RAG（检索增强生成）".
_CHINESE_GLOSS = re.compile(r"[A-Za-z][A-Za-z0-9.+/&-]*\s*[（(]([\u4e00-\u9fff]{2,10})[）)]")
# A compound of two words the text uses at least twice (知识/图谱): what a text repeats is one of its terms.
_RECURRING = 2
_DOCUMENT_RECURRING = 3
_COHESION = 0.5
_NOT_IN_TERM = frozenset(
    "是 就是 即 为 称为 叫做 叫 采用 使用 通过 进行 实现 基于 和 与 或 及 的 了 在 把 被 对 用".split()
)


class Chinese:
    code = "zh"
    name = "Chinese"
    segmented = True
    stopwords = _STOPWORDS
    anaphors = _ANAPHORS
    personal_anaphors = _PERSONAL
    impersonal_anaphors = _IMPERSONAL
    # "那导演呢？", "还有它的作者？", "至于后者": a follow-up that leans on what was asked before.
    ellipsis = re.compile(r"^\s*(那么?|还有|另外|至于|以及|那它|那他|那她)|^[^。！？]{0,12}呢[？?]?\s*$")
    thematic = re.compile(
        r"主题|总体|整体|概述|概况|总结|综述|概括|主要内容|总的来说|所有文档|这些文档|全部文档|有哪些方面"
    )
    connection = re.compile(r"关系|联系|关联|之间|相关|怎么连接|如何连接")
    intersection = re.compile(r"共同|同时|共有|相同|都")

    def claim(self, text: str) -> float:
        # Chinese when 30% of its words are: a Chinese article quoting English terms and code stays Chinese
        # (the seed articles: 43-87%), an English sentence naming 北京 stays English (20%).
        return 1.0 if han_share(text) >= 0.3 else 0.0

    def words(self, text: str) -> list[str]:
        return [w for w in _jieba().lcut(text) if _WORD.search(w)]

    def join(self, words: list[str]) -> str:
        # No space between two words where either is Chinese; a space between two Latin words.
        out = ""
        for word in words:
            if out and not _HAN.search(out[-1]) and not _HAN.search(word[0]):
                out += " "
            out += word
        return out

    def names(self, sentence: str) -> list[tuple[str, str]]:
        """The names and terms of a sentence, typed: people, places and organisations the dictionary and
        its HMM find (checked, as its tags are noisy); a term the text glosses in English ("多跳检索（Multi-hop
        RAG）"); a compound of two or more nouns ("向量数据库"). In the order they appear."""
        frequency = _jieba().dt.FREQ
        pairs = _tagged(sentence)
        found: list[tuple[int, str, str]] = []
        position = 0
        run: list[str] = []

        def close_run(end: int) -> None:
            # a one-character last word is mostly a locative or a measure (答案时, 系统中), not a head noun
            if len(run) >= 2 and len("".join(run)) >= 3 and len(run[-1]) >= 2:
                name = "".join(run)
                found.append((end - len(name), name, "CONCEPT"))

        for word, flag in pairs:
            opens = flag == "a" and len(word) == 1 and not run
            if (flag in _NOUNISH or opens) and _HAN.search(word) and word not in _STOPWORDS:
                run.append(word)
            else:
                close_run(position)
                run = []
            kind = self._named_kind(word, flag, frequency.get(word, 0))
            if kind:
                found.append((position, word, kind))
            position += len(word)
        close_run(position)
        for match in _GLOSS.finditer(sentence):
            term = self._glossed(sentence[: match.start()])
            if term:
                found.append((match.start() - len(term), term, "CONCEPT"))
        for match in _CHINESE_GLOSS.finditer(sentence):
            found.append((match.start(1), match.group(1), "CONCEPT"))
        found.sort(key=lambda f: f[0])
        return [(name, kind) for _, name, kind in found]

    def terms(self, text: str, *, document: bool = False) -> list[str]:
        """Compounds of two words that `text` uses at least twice, the second a noun (知识 + 图谱): a term the
        text keeps coming back to, which the dictionary splits and a sentence alone cannot tell from chance.
        A whole document says more by chance, so there a term is used at least three times and one of its
        words stands in it at least half the times it occurs (a collocation, not two words that are merely
        common: 知识图谱 6 of 图谱's 11; 检索无法 is seldom where 检索 is)."""
        counts: dict[tuple[str, str], int] = {}
        words: dict[str, int] = {}
        for sentence in self.split_sentences(text):
            pairs = _tagged(sentence)
            for word, _ in pairs:
                words[word] = words.get(word, 0) + 1
            for (first, _), (second, flag) in zip(pairs, pairs[1:]):
                if (
                    flag in _NOUNISH
                    and len(first) >= 2
                    and len(second) >= 2
                    and _HAN.fullmatch(first[0])
                    and _HAN.search(second)
                    and not {first, second} & _STOPWORDS
                ):
                    counts[first, second] = counts.get((first, second), 0) + 1
        if not document:
            return [a + b for (a, b), n in counts.items() if n >= _RECURRING]
        return [
            a + b
            for (a, b), n in counts.items()
            if n >= _DOCUMENT_RECURRING and n >= _COHESION * min(words[a], words[b])
        ]

    @staticmethod
    def _named_kind(word: str, flag: str, frequency: int) -> str:
        if len(word) < 2 or not _HAN.search(word):
            return ""
        # A word tagged a name stays an entity; the checks decide whether the tag's type holds, else CONCEPT.
        if flag in {"nr", "nrfg", "nrt"}:
            if word[0] == word[1]:  # 谢谢, 星星: a reduplicated word, not a name
                return ""
            return "PERSON" if word[0] in _SURNAMES and len(word) <= 4 else "CONCEPT"
        if flag == "ns":
            return "LOCATION" if word.endswith(_PLACE_SUFFIXES) or frequency > _COMMON_PLACE else "CONCEPT"
        if flag == "nt":
            return "ORGANIZATION"
        if flag == "nz":
            return "CONCEPT"
        return ""

    def _glossed(self, before: str) -> str:
        """The Chinese term that ends right before an English gloss: its last words, back to a function
        word or punctuation, at most four."""
        words = self.words(before[-24:])
        if not before or not _HAN.search(before[-1]):
            return ""
        term: list[str] = []
        for word in reversed(words):
            if not _HAN.search(word) or word in _NOT_IN_TERM or word in _STOPWORDS or len(term) == 4:
                break
            term.insert(0, word)
        name = "".join(term)
        return name if len(name) >= 2 and before.endswith(name) else ""

    def search_terms_from(self, words: list[str], source: str) -> list[Alternatives]:
        # English only (the dictionary is Chinese-English). A translation's prior weight is its share of its
        # word's translations' frequencies in jieba's dictionary; one that dictionary does not hold as a word is
        # searched as the phrase of the words jieba splits it into. The English word stays an alternative of
        # weight 1, its singular too (Chinese text borrows an English noun as written once: "三个特殊 token").
        if source != "en":
            return []
        from graphwright.text.languages.chinese_lexicon import open_lexicon, translate

        found: list[Alternatives] = []
        for english, translations in translate(words, open_lexicon(jieba_frequency, jieba_segmented)):
            total = sum(t.frequency for t in translations) or 1
            written: dict[str, float] = {}
            pieces = self.index_terms(english).split()
            for piece in pieces:
                forms = {piece, singular(piece) or piece}
                for form in forms:
                    written[form] = written.get(form, 0.0) + 1.0 / len(pieces)
            translated = {t.terms: t.frequency / total for t in translations}
            if translated or written:
                found.append(Alternatives(english, translated, written))
        return found

    def index_terms(self, text: str) -> str:
        # Search mode: a long word also yields the dictionary words inside it (知识图谱 -> 知识, 图谱,
        # 知识图谱), so a question that says only part of it still matches. Letters and digits alone jieba
        # keeps whole, word by word: so does the regex, without loading jieba for an English word.
        if _LATIN_WORDS.fullmatch(text):
            terms = iter(text.lower().split())
        else:
            terms = (w.strip().lower() for w in _jieba().cut_for_search(text))
        return " ".join(t for t in terms if t and _WORD.search(t) and t not in _STOPWORDS)

    def query_terms(self, text: str) -> str:
        # A word of three or more characters jieba's dictionary does not hold was made up by its HMM, often a
        # name run into the word after it ("潘淑是哪里人" -> 潘淑是 / 哪里 / 人), which no passage's terms hold
        # ("潘淑，字…" -> 潘淑): its character pairs are searched beside it, as a CJK bigram index would.
        terms = self.index_terms(text).split()
        if _LATIN_WORDS.fullmatch(text):
            return " ".join(terms)
        known = _jieba().dt.FREQ
        pairs = [
            w[i : i + 2]
            for w in terms
            if len(w) >= 3 and _HAN.fullmatch(w[0]) and w not in known
            for i in range(len(w) - 1)
            if _HAN.search(w[i]) and _HAN.search(w[i + 1])
        ]
        return " ".join(dict.fromkeys([*terms, *(p for p in pairs if p not in _STOPWORDS)]))

    def split_sentences(self, text: str) -> list[str]:
        sentences: list[str] = []
        for part in _SENTENCE_END.split(text):
            if part.strip():
                sentences += _split_english(part)  # Latin sentences inside, initials kept whole
        return sentences

    def report(self, key: str, **values: object) -> str:
        if key == "type":
            return _TYPES.get(str(values["type"]).lower(), str(values["type"]).lower())
        return _TEMPLATES[key].format(**values)


CHINESE = Chinese()


def main() -> None:
    """`python -m graphwright.text.languages.chinese`: compile the cross-language lexicon now (scripts/setup.sh
    runs it), so the first English question in a workspace holding Chinese does not wait for it."""
    from graphwright.text.languages.chinese_lexicon import compile_lexicon, compiled_path

    path = compiled_path()
    if not path.exists():
        compile_lexicon(path, jieba_frequency, jieba_segmented)
    print(f"cross-language lexicon ready: {path}")


if __name__ == "__main__":
    main()

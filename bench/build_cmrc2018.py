"""Build the Chinese retrieval set `bench/data/cmrc2018-zh` from CMRC 2018's development set.

CMRC 2018 (Cui et al., 2019; github.com/ymcui/cmrc2018, CC BY-SA 4.0) is span-extraction reading comprehension
over Chinese Wikipedia: 848 passages, 3,219 questions, each question answered inside its own passage. As a
retrieval set: the 848 passages are the corpus, and the first question of each passage asks for that passage
(one gold passage per question, so R@k is the share of questions whose passage is in the top k). Written in
the shared sets' layout (`questions.json`, `corpus.json`), so `graphwright eval` reads it as it reads them.

    git -C <a clone of ymcui/cmrc2018> show HEAD:data/cmrc2018_dev.json > /tmp/cmrc2018_dev.json
    .venv/bin/python -m bench.build_cmrc2018 /tmp/cmrc2018_dev.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "cmrc2018-zh"


def build(source: Path, out: Path = OUT) -> tuple[int, int]:
    records = json.loads(source.read_text(encoding="utf-8"))
    corpus: dict[str, list[str]] = {}
    questions = []
    for record in records:
        # The article's title names the passage (as in the shared sets); two passages without one, and any
        # repeated title, are told apart by the passage id.
        title = record["title"].strip() or record["context_id"]
        if title in corpus:
            title = f"{title} ({record['context_id']})"
        corpus[title] = [record["context_text"]]
        qas = record["qas"]
        if qas:
            first = qas[0]
            questions.append(
                {
                    "question": first["query_text"],
                    "answer": first["answers"][0] if first["answers"] else "",
                    "type": "single",
                    "supporting_facts": [[title, 0]],
                }
            )
    out.mkdir(parents=True, exist_ok=True)
    (out / "corpus.json").write_text(json.dumps(corpus, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    (out / "questions.json").write_text(json.dumps(questions, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return len(corpus), len(questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="CMRC 2018's data/cmrc2018_dev.json")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    passages, questions = build(args.source, args.out)
    print(f"{args.out}: {passages} passages, {questions} questions")


if __name__ == "__main__":
    main()

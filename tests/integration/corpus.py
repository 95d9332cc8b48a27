"""Small corpora written by the tests themselves, with known answers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.helpers import write_files

LONG_DOC = "\n\n".join(
    f"Paragraph {i} describes the Orion lab's experiment number {i}. "
    + " ".join(
        f"Sentence {j} of paragraph {i} reports a measurement of sample {i}-{j} under steady conditions."
        for j in range(6)
    )
    for i in range(5)
)

DOCS = {
    "cats.md": "# Cats\n\nThe cat sat on the mat and purred quietly all afternoon.\n",
    "parts.md": "# Kitchen log\n\nThe bakery opened at six. Knead rye dough, proof the sourdough starter, "
    "glaze the pastries and slice the loaves for the morning rush. The oven thermostat, unit "
    "QX-7719-ZB, was swapped on Tuesday. Customers asked for more cinnamon rolls and seeded "
    "baguettes, so the evening shift bakes two extra trays.\n",
    "rockets.md": "# Rockets\n\nFalcon 9 is a partially reusable rocket built by SpaceX. Its first stage lands "
    "on drone ships.\n",
    "cooking.md": "# Bread\n\nKnead the dough for ten minutes, let it rise for an hour, then bake it at 220 "
    "degrees until golden.\n",
    "finance.md": "# Markets\n\nInterest rates rose in the spring, and bond prices fell across Europe.\n",
    "lab.md": "# Lab notes\n\n" + LONG_DOC,
}

# Look-alike codes: to a dense model every one of these is "a memo with a part code", so only exact
# term matching (BM25) can single out QX-7719-ZB.
for _i, (_code, _place) in enumerate(
    [
        ("QX-7718-ZA", "hall 1"),
        ("QX-7720-ZC", "hall 2"),
        ("QX-7721-ZD", "hall 4"),
        ("QX-7722-ZE", "hall 5"),
        ("QX-7723-ZF", "hall 6"),
        ("QX-7724-ZG", "the annex"),
    ]
):
    DOCS[f"memo-{_i}.md"] = (
        f"# Warehouse memo {_i}\n\nThe cooling pump in {_place} was replaced with unit "
        f"{_code} last week. The old one leaked.\n"
    )

RECORDS = [
    {
        "id": "rec-rockets-2015",
        "title": "Reusable boosters",
        "category": "rockets",
        "year": 2015,
        "text": "Reusable rocket boosters landed upright for the first time, cutting launch costs.",
    },
    {
        "id": "rec-rockets-2023",
        "title": "Methane engines",
        "category": "rockets",
        "year": 2023,
        "text": "New rocket engines burn liquid methane and liquid oxygen and are designed for reuse.",
    },
    {
        "id": "rec-telescope-2021",
        "title": "Infrared telescope",
        "category": "telescopes",
        "year": 2021,
        "text": "An infrared telescope with a gold-coated mirror observes the early universe from deep space.",
    },
    {
        "id": "rec-mars-2021",
        "title": "Mars rover",
        "category": "mars",
        "year": 2021,
        "text": "A rover landed in a crater on Mars and collects rock samples for a later return mission.",
    },
]


def write_corpus(folder: Path) -> Path:
    write_files(folder, DOCS)
    with (folder / "records.jsonl").open("w", encoding="utf-8") as handle:
        for record in RECORDS:
            handle.write(json.dumps(record) + "\n")
    return folder

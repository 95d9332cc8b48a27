"""An offline community report says how its members are related, in the types the graph holds."""

from __future__ import annotations

from graphwright.communities.reports import extractive_report


def test_an_offline_report_cites_its_typed_relations() -> None:
    members = [
        {"name": "Jeff Bezos", "type": "PERSON", "degree": 2},
        {"name": "Blue Origin", "type": "ORGANIZATION", "degree": 3},
        {"name": "New Shepard", "type": "PRODUCT", "degree": 1},
    ]
    relations = [
        {
            "source": "Jeff Bezos",
            "target": "Blue Origin",
            "type": "FOUNDED",
            "weight": 2.0,
            "evidence": ["Blue Origin is a company founded by Jeff Bezos."],
            "chunk_ids": ["c_1"],
        },
        {
            "source": "Blue Origin",
            "target": "New Shepard",
            "type": "HAS",
            "weight": 1.0,
            "evidence": ["Blue Origin's New Shepard rocket flew."],
            "chunk_ids": ["c_2"],
        },
    ]
    report = extractive_report(3, members, relations)
    assert "Strongest ties: Jeff Bezos founded Blue Origin; Blue Origin has New Shepard." in report.summary
    assert report.findings[0].summary == "Jeff Bezos founded Blue Origin (weight 2)"
    assert report.findings[0].explanation == "Blue Origin is a company founded by Jeff Bezos."
    assert report.cited_chunks == ["c_1", "c_2"]

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


def test_offline_reports_speak_the_members_language() -> None:
    members = [
        {"name": "知识图谱", "type": "CONCEPT", "degree": 3},
        {"name": "向量数据库", "type": "CONCEPT", "degree": 2},
        {"name": "张三", "type": "PERSON", "degree": 1},
    ]
    relations = [
        {
            "source": "知识图谱",
            "target": "向量数据库",
            "type": "RELATED_TO",
            "weight": 2.0,
            "evidence": ["知识图谱与向量数据库结合。"],
        }
    ]
    report = extractive_report(3, members, relations)
    assert report.title == "知识图谱、向量数据库和张三"
    assert report.summary.startswith("由3个实体（2个概念、1个人物）组成的群组，以知识图谱、向量数据库和张三为中心。")
    assert "知识图谱（关联）向量数据库" in report.summary
    english = extractive_report(2, [{"name": "NASA", "type": "ORGANIZATION", "degree": 1}], [])
    assert english.summary == "A group of 2 entities (1 organization) centred on NASA."

"""docs/benchmarks.md's table is what the recorded runs in docs/benchmarks-history.md say, so it cannot go stale."""

from __future__ import annotations

from bench.summary import HISTORY, SUMMARY, rewrite, runs, table


def test_the_summary_is_generated_from_the_history() -> None:
    summary, history = SUMMARY.read_text(encoding="utf-8"), HISTORY.read_text(encoding="utf-8")
    assert rewrite(summary, history) == summary, "run .venv/bin/python -m bench.summary"


def test_the_newest_run_of_a_script_is_the_one_shown() -> None:
    history = (
        "### Old run, 2026-01-01\n\nHeadline: 10 things/s\n\nCommand: `.venv/bin/python -m bench.loaders --pages 1`\n\n"
        "### New run, 2026-02-01\n\nHeadline: 20 things/s\n\nCommand: `.venv/bin/python -m bench.loaders --pages 2`\n\n"
        "### Not a bench script, 2026-03-01\n\nCommand: `graphwright eval x`\n"
    )
    assert [r.title for r in runs(history)] == ["Old run", "New run"]
    shown = table(history)
    assert "20 things/s" in shown and "10 things/s" not in shown and "--pages 2" in shown
    assert "Not a bench script" not in shown


def test_every_recorded_script_answers_a_question_and_every_row_states_a_figure() -> None:
    from bench.summary import QUESTIONS

    grouped = {script for scripts in QUESTIONS.values() for script in scripts}
    recorded = {run.script for run in runs(HISTORY.read_text(encoding="utf-8"))}
    assert recorded <= grouped, f"give these a question in bench/summary.py's QUESTIONS: {sorted(recorded - grouped)}"
    assert "(no figure stated)" not in SUMMARY.read_text(encoding="utf-8"), "give that section a Headline: line"


def test_commands_name_no_machines_paths() -> None:
    from bench.summary import portable

    assert portable("python -m bench.ocr --pdf /work/data/financebench/pdfs/3M_2018_10K.pdf") == (
        "python -m bench.ocr --pdf FINANCEBENCH/pdfs/3M_2018_10K.pdf"
    )
    assert portable("python -m bench.real_llm --server-python ~/llmvenv/bin/python") == (
        "python -m bench.real_llm --server-python LLM_PYTHON"
    )
    page = SUMMARY.read_text(encoding="utf-8")
    for path in ("/work/", "/root/", "/home/", "/tmp/", "~/"):
        assert path not in page

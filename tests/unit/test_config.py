from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphwright.config import LOCAL_DEFAULT_PASSWORD, Settings
from graphwright.llm.registry import llm_configured


def test_standard_variable_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:9999")
    monkeypatch.setenv("NEO4J_USERNAME", "alice")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pw")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("GRAPHWRIGHT_CHUNK_SIZE", "300")
    monkeypatch.setenv("GRAPHWRIGHT_LLM_MODEL", "llama3.1")
    s = Settings(_env_file=None)
    assert s.neo4j_uri == "bolt://127.0.0.1:9999" and s.neo4j_user == "alice"
    assert s.neo4j_password.get_secret_value() == "s3cret-pw" and "s3cret" not in repr(s)
    assert s.chunk_size == 300 and s.llm.model == "llama3.1" and llm_configured(s)


def test_defaults_are_offline(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "NEO4J_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    s = Settings(home=tmp_path, _env_file=None)
    assert not llm_configured(s)
    assert s.neo4j_password.get_secret_value() == LOCAL_DEFAULT_PASSWORD and s.password_source == "default"
    assert s.embedding.model == "bundled"


def test_a_generated_password_is_used_unless_one_is_given(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import stat

    from graphwright.graph_store.launcher.local_server import write_password_file

    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    write_password_file(tmp_path / "neo4j-password")
    first = (tmp_path / "neo4j-password").read_text()
    write_password_file(tmp_path / "neo4j-password")  # never overwritten
    assert (tmp_path / "neo4j-password").read_text() == first
    assert stat.S_IMODE((tmp_path / "neo4j-password").stat().st_mode) == 0o600
    s = Settings(home=tmp_path, _env_file=None)
    assert s.password_source == "generated" and s.neo4j_password.get_secret_value() == first.strip()
    assert len(first.strip()) >= 24 and first.strip() != LOCAL_DEFAULT_PASSWORD
    monkeypatch.setenv("NEO4J_PASSWORD", "chosen-by-me")
    s = Settings(home=tmp_path, _env_file=None)
    assert s.password_source == "given" and s.neo4j_password.get_secret_value() == "chosen-by-me"


def test_dotenv_file(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    (tmp_path / ".env").write_text("NEO4J_URI=bolt://127.0.0.1:7777\nGRAPHWRIGHT_TOP_K=9\n")
    s = Settings(_env_file=tmp_path / ".env")
    assert s.neo4j_uri == "bolt://127.0.0.1:7777" and s.search.top_k == 9


def test_overlap_must_be_below_size() -> None:
    with pytest.raises(ValidationError, match="chunk_overlap"):
        Settings(chunk_size=50, chunk_overlap=50, _env_file=None)


def test_every_setting_is_documented() -> None:
    """docs/configuration.md names every setting (`A_X` / `_Y` on one line counts for A_Y), sections' too."""
    from pathlib import Path

    from graphwright.config import EmbeddingSettings, LLMSettings, SearchSettings, Settings

    doc = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = []
    sections = {"llm": LLMSettings, "embedding": EmbeddingSettings, "search": SearchSettings}
    fields = [("GRAPHWRIGHT_", n, f) for n, f in Settings.model_fields.items() if n not in sections]
    fields += [
        (str(kind.model_config.get("env_prefix")), n, f)
        for kind in sections.values()
        for n, f in kind.model_fields.items()
    ]
    for prefix_, name, field in fields:
        names = [f"{prefix_}{name.upper()}"]
        alias = field.validation_alias
        names += [c for c in getattr(alias, "choices", [alias]) if isinstance(c, str)]
        prefix, _, suffix = names[0].rpartition("_")
        shorthand = any(prefix in line and f"_{suffix}`" in line for line in doc.splitlines())
        if not shorthand and not any(n in doc for n in names):
            missing.append(names[0])
    assert not missing, f"undocumented settings: {missing}"


def test_sections_read_the_same_names_as_before(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """`settings.llm` and `settings.embedding` read GRAPHWRIGHT_LLM_* / GRAPHWRIGHT_EMBEDDING_* (environment and
    `.env`), OPENAI_API_KEY and GRAPHWRIGHT_MODEL_CACHE, and take the flat names as arguments, as before."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GRAPHWRIGHT_LLM_MODEL", "GRAPHWRIGHT_EMBEDDING_BATCH_SIZE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-123")
    monkeypatch.setenv("GRAPHWRIGHT_LLM_IDLE_TIMEOUT", "7.5")
    monkeypatch.setenv("GRAPHWRIGHT_MODEL_CACHE", str(tmp_path / "models"))
    monkeypatch.setenv("API_KEY", "not-ours")  # a bare name never reaches a section
    (tmp_path / ".env").write_text("GRAPHWRIGHT_LLM_MODEL=from-dotenv\nGRAPHWRIGHT_EMBEDDING_BATCH_SIZE=3\n")
    monkeypatch.chdir(tmp_path)
    s = Settings()
    assert s.llm.api_key is not None and s.llm.api_key.get_secret_value() == "sk-canary-123"
    assert s.llm.idle_timeout == 7.5 and s.llm.model == "from-dotenv" and s.embedding.batch_size == 3
    assert s.embedding.model_cache == tmp_path / "models" and "sk-canary" not in repr(s) + str(s.model_dump())
    assert Settings(_env_file=None).llm.model == "gpt-4o-mini"  # `_env_file` reaches the sections too
    given = Settings(_env_file=None, llm_model="m", openai_base_url="http://127.0.0.1:9/v1", embedding_device="cuda")
    assert (given.llm.model, given.llm.base_url, given.embedding.device) == ("m", "http://127.0.0.1:9/v1", "cuda")
    copy = given.updated(llm_max_time=5.0, top_k=9)
    assert (copy.llm.max_time, copy.llm.model, copy.search.top_k, given.llm.max_time) == (5.0, "m", 9, None)
    from graphwright.errors import InvalidRequestError
    from graphwright.llm.registry import make_llm

    with pytest.raises(InvalidRequestError, match="unknown LLM backend 'nope'"):  # said by the package that has them
        make_llm(Settings(_env_file=None, llm_backend="NOPE"))


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("llm_backend", "unknown LLM backend 'nope'"),
        ("embedding_backend", "unknown embedding backend 'nope'"),
        ("store_backend", "unknown store backend 'nope'"),
        ("extractor", "unknown extractor 'nope'"),
        ("graph_algorithms", "unknown graph algorithms engine 'nope'"),
    ],
)
def test_a_misspelt_backend_is_said_before_anything_opens(name: str, said: str) -> None:
    """Each package keeps its backends' registry; GraphRAG checks every name the settings give before it opens
    the store, so a misspelt one is said at once, with the names there are."""
    from graphwright.api import check_backend_names
    from graphwright.errors import InvalidRequestError

    check_backend_names(Settings(_env_file=None))
    with pytest.raises(InvalidRequestError, match=f"{said}.*available: "):
        check_backend_names(Settings(_env_file=None, **{name: " NOPE "}))


def test_the_search_section_reads_its_old_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHWRIGHT_TOP_K", "7")
    monkeypatch.setenv("GRAPHWRIGHT_PPR_DAMPING", "0.5")
    s = Settings(_env_file=None, local_entities=3)
    assert (s.search.top_k, s.search.ppr_damping, s.search.local_entities) == (7, 0.5, 3)
    assert s.updated(context_tokens=900).search.context_tokens == 900 and s.search.context_tokens == 3000

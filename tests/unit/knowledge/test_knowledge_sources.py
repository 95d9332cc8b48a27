"""The knowledge-base file and the remote sources' HTTP, with httpx's mock transport standing in for the
network: what is sent (the key in the header, to the configured origin only), what is read back, and every
way a remote can fail, each a KnowledgeBaseError naming the source and never its key."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from graphwright.errors import KnowledgeBaseConfigError, KnowledgeBaseError
from graphwright.knowledge import load_knowledge_bases
from graphwright.knowledge.base import SourceEnv
from graphwright.knowledge.registry import SOURCES, open_source

KEY = "canary-key-41f0c2"


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "kb.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _source(tmp_path, monkeypatch, handler, entry: str):
    monkeypatch.setenv("KB_KEY", KEY)
    (spec,) = load_knowledge_bases(_file(tmp_path, f'[[knowledge_base]]\nname = "kb"\nkey_env = "KB_KEY"\n{entry}'))
    return open_source(spec, SourceEnv(timeout=2.0, transport=httpx.MockTransport(handler)))


def test_the_file_names_each_kind_with_its_fields(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HQ_KEY", KEY)
    specs = load_knowledge_bases(
        _file(
            tmp_path,
            """
[[knowledge_base]]
name = "hq"
kind = "graphwright"
url = "http://10.0.0.5:8000"
workspace = "legal"
key_env = "HQ_KEY"

[[knowledge_base]]
name = "legal"
kind = "workspace"
workspace = "legal"
mode = "local"

[[knowledge_base]]
name = "support"
kind = "dify"
url = "https://api.dify.ai/v1"
dataset = "a8e0e5b5-78c6"

[[knowledge_base]]
name = "wiki"
kind = "dify-external"
url = "http://wiki:8080/dify"
knowledge_id = "kb-1"
""",
        )
    )
    assert [(s.name, s.kind) for s in specs] == [
        ("hq", "graphwright"),
        ("legal", "workspace"),
        ("support", "dify"),
        ("wiki", "dify-external"),
    ]
    key = specs[0].key()  # type: ignore[attr-defined]
    assert key.get_secret_value() == KEY and KEY not in repr(key) and KEY not in repr(specs[0])
    assert set(SOURCES) == {"workspace", "graphwright", "dify", "dify-external"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[[knowledge_base]]\nname = "a"\nkind = "graphwright"\nurl = "http://x"\nkey = "s3cret"', "key_env"),
        ('[[knowledge_base]]\nname = "a"\nkind = "sharepoint"', "unknown knowledge base kind 'sharepoint'"),
        ('[[knowledge_base]]\nname = "A b"\nkind = "workspace"\nworkspace = "x"', "name"),
        ('[[knowledge_base]]\nname = "a"\nkind = "dify"\nurl = "ftp://x"\ndataset = "d"', "url"),
        ('[[knowledge_base]]\nname = "a"\nkind = "dify"\nurl = "http://x"', "dataset: Field required"),
        ('[[knowledge_base]]\nname = "a"\nkind = "workspace"\nworkspace = "x"\ncolour = 1', "colour"),
        ('[[knowledge_base]]\nname = "a"\nkind = "workspace"\nworkspace = "x"\n' * 2, "used twice"),
        ("[knowledge_base\n", "is not TOML"),
        ("[server]\nport = 1", "unknown table"),
    ],
)
def test_a_bad_file_is_a_clear_error(tmp_path, text, said) -> None:
    with pytest.raises(KnowledgeBaseConfigError) as caught:
        load_knowledge_bases(_file(tmp_path, text))
    assert said in str(caught.value) and "s3cret" not in str(caught.value)


def test_a_missing_key_variable_is_named_when_the_source_is_used(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("NOPE_KEY", raising=False)
    (spec,) = load_knowledge_bases(
        _file(tmp_path, '[[knowledge_base]]\nname = "a"\nkind = "graphwright"\nurl = "http://x"\nkey_env = "NOPE_KEY"')
    )
    with pytest.raises(KnowledgeBaseConfigError, match="NOPE_KEY"):
        open_source(spec, SourceEnv()).search("q", 3)
    with pytest.raises(KnowledgeBaseConfigError, match="No such file"):
        load_knowledge_bases(tmp_path / "missing.toml")


def test_dify_dataset_request_and_answer_follow_difys_api(tmp_path, monkeypatch) -> None:
    seen: list[httpx.Request] = []

    def dify(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/retrieve"):
            segment = {
                "id": "s1",
                "position": 1,
                "document_id": "d1",
                "content": "Badges renew in May.",
                "document": {"id": "d1", "data_source_type": "upload_file", "name": "ops.txt"},
            }
            return httpx.Response(
                200, json={"query": {"content": "x"}, "records": [{"segment": segment, "score": 0.8}]}
            )
        page = int(request.url.params["page"])
        data = [{"id": f"s{page}", "position": page, "document_id": "d1", "content": f"part {page}"}]
        return httpx.Response(200, json={"data": data, "has_more": page < 3, "limit": 100, "total": 3, "page": page})

    source = _source(tmp_path, monkeypatch, dify, 'kind = "dify"\nurl = "https://dify.local/v1"\ndataset = "ds"')
    (passage,) = source.search("When do badges renew?", 4)
    assert (passage.source, passage.id, passage.document_id, passage.title) == ("kb", "s1", "d1", "ops.txt")
    asked = seen[0]
    assert str(asked.url) == "https://dify.local/v1/datasets/ds/retrieve"
    assert asked.headers["authorization"] == f"Bearer {KEY}"
    body = json.loads(asked.content)
    assert body["query"] == "When do badges renew?" and body["retrieval_model"]["top_k"] == 4
    document = source.document("d1")  # three pages of segments, followed while has_more
    assert [p.text for p in document.passages] == ["part 1", "part 2", "part 3"]
    assert seen[1].url.path == "/v1/datasets/ds/documents/d1/segments"


def test_dify_external_has_no_documents_and_keeps_the_services_ids(tmp_path, monkeypatch) -> None:
    def external(request: httpx.Request) -> httpx.Response:
        assert json.loads(request.content)["knowledge_id"] == "kb-1"
        records = [
            {"content": "A", "score": 0.9, "title": "a.md", "metadata": {"chunk_id": "c_1", "document_id": "a.md"}},
            {"content": "B", "score": 0.5, "title": "b.md"},
        ]
        return httpx.Response(200, json={"records": records})

    source = _source(
        tmp_path, monkeypatch, external, 'kind = "dify-external"\nurl = "http://w/dify"\nknowledge_id = "kb-1"'
    )
    first, second = source.search("q", 5)
    assert (first.id, first.document_id) == ("c_1", "a.md") and second.document_id == "b.md" and len(second.id) == 16
    assert not source.has_documents
    with pytest.raises(Exception, match="cannot return whole documents"):
        source.document("a.md")


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (httpx.Response(401, json={"code": "unauthorized", "message": f"bad key {KEY}"}), "HTTP 401 (its key was"),
        (httpx.Response(302, headers={"Location": "http://evil.example/steal"}), "not followed"),
        (httpx.Response(200, text="<html>proxy error</html>"), "not JSON"),
        (httpx.Response(200, json={"no": "records"}), "which its API does not allow"),
        (httpx.Response(200, content=b"[" + b"1," * 4_500_000 + b"1]"), "more than 8,000,000 bytes"),
    ],
)
def test_every_way_a_remote_fails_is_a_knowledge_base_error(tmp_path, monkeypatch, reply, said) -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return reply

    source = _source(tmp_path, monkeypatch, handler, 'kind = "dify"\nurl = "https://dify.local/v1"\ndataset = "ds"')
    with pytest.raises(KnowledgeBaseError) as caught:
        source.search("q", 3)
    assert said in str(caught.value) and "'kb'" in str(caught.value) and KEY not in str(caught.value)
    assert asked == ["https://dify.local/v1/datasets/ds/retrieve"]  # a redirect is not followed with the key


def _encodings(secret: str) -> list[str]:
    import base64
    from urllib.parse import quote

    return [
        secret,
        quote(secret, safe=""),
        base64.b64encode(secret.encode()).decode(),
        secret.upper(),
        secret[::-1],
        secret.encode().hex(),
    ]


@pytest.mark.parametrize("status", [400, 401, 403, 404, 429, 500, 503])
def test_a_remote_error_is_fixed_words_with_nothing_of_its_body(tmp_path, monkeypatch, status) -> None:
    """Issue 76, finding 2: a remote that echoes the key in any encoding, in its body or headers: the error is
    the source's name and the status only. Every kind, every encoding, every status."""
    echoed = " ".join(_encodings(KEY))
    body = {"message": echoed, "error": {"message": echoed}, "error_msg": echoed, "detail": echoed}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body, headers={"X-Echo": KEY[::-1]})

    for entry in (
        'kind = "dify"\nurl = "https://dify.local/v1"\ndataset = "ds"',
        'kind = "graphwright"\nurl = "https://hq.local"',
        'kind = "dify-external"\nurl = "https://ext.local/dify"\nknowledge_id = "k"',
    ):
        source = _source(tmp_path, monkeypatch, handler, entry)
        with pytest.raises(KnowledgeBaseError) as caught:
            source.search("q", 3)
        said = str(caught.value)
        assert said.startswith(f"knowledge base 'kb' answered HTTP {status}"), said
        for form in _encodings(KEY):
            assert form.lower() not in said.lower(), (status, form)
        assert "message" not in said and "unauthorized" not in said


@pytest.mark.parametrize(
    ("error", "said"),
    [(httpx.ReadTimeout("slow"), "did not answer within 2 s"), (httpx.ConnectError("refused"), "is not reachable")],
)
def test_timeouts_and_refusals_name_the_source(tmp_path, monkeypatch, error, said) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error

    source = _source(tmp_path, monkeypatch, handler, 'kind = "graphwright"\nurl = "http://user:pw@hq:8000"')
    with pytest.raises(KnowledgeBaseError, match=said) as caught:
        source.search("q", 3)
    assert "pw" not in str(caught.value)  # credentials in a URL are not repeated either

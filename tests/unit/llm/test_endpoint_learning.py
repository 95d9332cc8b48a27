"""What the client learns of an endpoint by itself, against a real HTTP stub, so a local server needs no tuning
settings: whether its template drops system messages and how many replies it writes at once (probed once,
remembered), that a one-at-a-time server never gets two requests from any process of this user, each task's
reply cap from the replies it gave, and its context window from the error that names it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from graphwright.config import Settings
from graphwright.errors import LLMError, LLMStatusError
from graphwright.llm.client import LLMClient
from graphwright.llm.tasks import MAX_TOKENS
from tests.stub_openai import StubOpenAI, chat_reply, error_reply

SYSTEM = "You answer questions about the library's catalogue, briefly."


def client(stub: StubOpenAI, home: Path, **overrides: Any) -> LLMClient:
    given = {
        "openai_base_url": stub.base_url,
        "llm_model": "stub-model",
        "llm_max_retries": 0,
        "llm_timeout": 5.0,
        "llm_idle_timeout": 2.0,
        "home": home,
        **overrides,
    }
    return LLMClient(Settings(**given))


def counting(keeps_system: bool, words: int = 3) -> Any:
    """A reply whose prompt tokens are counted as a server counts them: with the system message, or without
    it (a chat template that drops it)."""

    def reply(body: dict[str, Any]) -> Any:
        kept = [m for m in body["messages"] if keeps_system or m["role"] != "system"]
        tokens = sum(len(str(m["content"]).split()) * 2 for m in kept)
        text = " ".join(f"w{i}" for i in range(words))  # never one word over and over: that is cut as a loop
        return chat_reply(text, prompt_tokens=tokens, completion_tokens=words)

    return reply


def ask(llm: LLMClient, **kwargs: Any) -> Any:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Which books are new?"}]
    return llm.chat(messages, use_cache=False, **kwargs)


@pytest.mark.parametrize("keeps", [False, True])
def test_the_probe_finds_whether_the_template_keeps_system_messages(
    stub: StubOpenAI, tmp_path: Path, keeps: bool
) -> None:
    stub.default = counting(keeps)
    llm = client(stub, tmp_path)
    ask(llm)
    sent = stub.requests[-1]["body"]["messages"]
    assert llm.memory.traits.probed and llm.memory.traits.system_role == ("system" if keeps else "user")
    if keeps:
        assert sent[0] == {"role": "system", "content": SYSTEM}
    else:  # folded into the user turn, where the model reads it
        assert [m["role"] for m in sent] == ["user"] and sent[0]["content"].startswith(SYSTEM)
    # Remembered: the next client of this endpoint (another run) sends no probe, and folds the same way
    before = len(stub.requests)
    again = client(stub, tmp_path)
    ask(again)
    assert len(stub.requests) == before + 1 and stub.requests[-1]["body"]["messages"] == sent


def test_a_server_that_queues_a_second_request_is_learned_as_one_wide_and_gets_one_at_a_time(
    stub: StubOpenAI, tmp_path: Path
) -> None:
    stub.serial = True  # a one-slot server: a second request waits until the first is written
    stub.stream_delay = 0.01
    stub.default = counting(True, words=60)
    llm = client(stub, tmp_path, llm_concurrency=4)
    ask(llm)
    assert llm.memory.traits.width == 1
    stub.serial = False  # from here the server would take more; the client must not send them
    stub.most_in_flight = 0
    threads = [threading.Thread(target=ask, args=(llm,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert stub.most_in_flight == 1


def test_a_server_that_writes_two_replies_at_once_is_not_narrowed(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.stream_delay = 0.01
    stub.default = counting(True, words=60)
    llm = client(stub, tmp_path, llm_concurrency=4)
    ask(llm)
    assert llm.memory.traits.probed and llm.memory.traits.width is None


_OTHER_PROCESS = """
import sys
from pathlib import Path
from graphwright.config import Settings
from graphwright.llm.client import LLMClient
settings = Settings(openai_base_url=sys.argv[1], llm_model="stub-model", home=Path(sys.argv[2]), llm_max_retries=0)
llm = LLMClient(settings)
for _ in range(3):
    llm.chat([{"role": "user", "content": "Which books are new?"}], use_cache=False)
"""


def test_processes_sharing_a_one_wide_endpoint_take_turns(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = counting(True, words=10)
    llm = client(stub, tmp_path, llm_probe=False)
    llm.memory.learn(probed=True, width=1)  # as a probe or a queue seen by an earlier run left it
    stub.stream_delay = 0.03  # a call takes about 0.4 s: long enough to overlap, were they not taking turns
    others = [subprocess.Popen([sys.executable, "-c", _OTHER_PROCESS, stub.base_url, str(tmp_path)]) for _ in range(2)]
    for _ in range(3):
        ask(client(stub, tmp_path))  # a new client each time: its own pacer, the same slot files
    assert [p.wait(60) for p in others] == [0, 0]
    assert len(stub.requests) == 9 and stub.most_in_flight == 1


def test_a_tasks_reply_cap_is_learned_from_the_replies_that_ended_by_themselves(
    stub: StubOpenAI, tmp_path: Path
) -> None:
    llm = client(stub, tmp_path, llm_probe=False)
    cut = chat_reply("a ramble", completion_tokens=1024)
    cut[1]["choices"][0]["finish_reason"] = "length"  # a ramble to the cap: not what the task needs
    stub.script = [cut] * 3 + [chat_reply("a reply", completion_tokens=100)] * 12
    for _ in range(15):
        ask(llm, task="extract")
    assert {r["body"]["max_tokens"] for r in stub.requests} == {MAX_TOKENS["extract"]}
    stub.default = chat_reply("word", completion_tokens=100)
    ask(llm, task="extract")
    ask(llm, task="answer")  # another task keeps its own cap until its replies were seen
    assert [r["body"]["max_tokens"] for r in stub.requests[-2:]] == [125, MAX_TOKENS["answer"]]
    # The learned cap is kept on disk for the next run; a cap the settings give stands over it
    assert client(stub, tmp_path, llm_probe=False)._cap("extract", [])[0] == 125
    assert client(stub, tmp_path, llm_probe=False, llm_max_tokens="extract=300")._cap("extract", [])[0] == 300


def test_the_context_window_named_by_a_refusal_bounds_every_later_call(stub: StubOpenAI, tmp_path: Path) -> None:
    llm = client(stub, tmp_path, llm_probe=False)
    stub.script = [error_reply(400, "Requested tokens (5210) exceed context window of 4096")]
    with pytest.raises(LLMStatusError):
        ask(llm, task="answer")
    assert llm.memory.traits.context == 4096
    stub.default = chat_reply("fine")
    with pytest.raises(LLMError, match="no room for a reply in the server's 4,096-token context"):
        llm.chat([{"role": "user", "content": "word " * 5000}], use_cache=False)
    llm.chat([{"role": "user", "content": "word " * 3500}], use_cache=False, task="answer")
    assert stub.requests[-1]["body"]["max_tokens"] < MAX_TOKENS["answer"]


def test_what_was_learned_is_one_readable_file_private_to_its_owner(stub: StubOpenAI, tmp_path: Path) -> None:
    stub.default = counting(False)
    ask(client(stub, tmp_path))
    path = tmp_path / "cache" / "llm-endpoints.json"
    learned = next(iter(json.loads(path.read_text()).values()))
    assert learned["system_role"] == "user" and learned["probed"] is True
    assert learned["tasks"]["answer"]["calls"] == 1 and learned["speed"]["completion_tokens"] >= 0
    assert path.stat().st_mode & 0o077 == 0

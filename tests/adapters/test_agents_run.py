"""An OpenAI Agents SDK session kept in the store (SessionscopeSession) run on from here with a prompt (#63): the
SDK's real Runner against a loopback Responses API (tests/responses_api.py), the session's own items its history,
the prompt and the reply added as the application's runs add them. Other native sessions are not run."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("agents")

from sessionscope import ops  # noqa: E402
from sessionscope.errors import Refused  # noqa: E402
from sessionscope.sources.running import Quiet, RunRequest  # noqa: E402
from tests.responses_api import KEY, Replies, serve  # noqa: E402


def test_an_agents_sdk_session_runs_on_with_a_prompt(tmp_path, monkeypatch):
    from sessionscope import open_store
    from sessionscope.adapters.agents import SessionscopeSession
    store = open_store(tmp_path / "store.db")
    kept = SessionscopeSession("support-42", store)  # as the application wrote it
    asyncio.run(kept.add_items([{"role": "user", "content": "my order is late"},
                                {"type": "message", "role": "assistant", "id": "msg_app_1", "status": "completed",
                                 "content": [{"type": "output_text", "text": "Sorry! Which order?", "annotations": []}]}]))
    kept.flush()
    kept.close()
    replies = Replies(["Order 1187 ships tomorrow."])
    with serve(replies) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        quiet = Quiet()
        changes = ops.run(store, kept.id, RunRequest("it is order 1187", model="gpt-4.1-mini"), quiet)
    asked = replies.requests[0]
    assert asked["model"] == "gpt-4.1-mini"
    said = [i.get("content") for i in asked["input"]]  # the history the application kept, then the prompt
    assert said[0] == "my order is late" and said[-1] == "it is order 1187"
    assert "".join(quiet.reply) == "Order 1187 ships tomorrow." and changes.detail["ended"] == "success"
    texts = [e.text for e in store.branch_view(kept.id) if e.kind == "message"]
    assert texts[-2:] == ["it is order 1187", "Order 1187 ships tomorrow."]  # events of the session already
    reopened = SessionscopeSession("support-42", store)  # and the application reads the run back as its own
    items = asyncio.run(reopened.get_items())
    reopened.close()
    assert items[-2]["content"] == "it is order 1187" and "Order 1187" in str(items[-1]["content"])
    assert [e["action"] for e in store.audit_log(kept.id)][-1] == "run"
    other = store.open_session(title="a native session of my own").id
    with pytest.raises(Refused, match="OpenAI Agents SDK application"):
        ops.run(store, other, RunRequest("hello"), Quiet())
    assert ops.refusal(store.session(other), "run") and ops.refusal(store.session(kept.id), "run") is None
    store.close()

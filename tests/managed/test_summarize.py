"""Summarize (#33) through the real `anthropic` client against the loopback API: what is sent is what the user
was shown (redacted as an export is), the answer is a generated note and the title, a user's rename wins, and
a refused or broken answer changes nothing."""

from __future__ import annotations

import pytest

pytest.importorskip("anthropic")

from sessionscope import ops  # noqa: E402
from sessionscope.errors import Refused  # noqa: E402
from sessionscope.sources.managed_agents import location_of  # noqa: E402

from .api_server import KEY, Workspace, serve  # noqa: E402

SECRET = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture
def api(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    ws = Workspace()
    with serve(ws) as url:
        yield ws, location_of(url)


def _session(store):
    s = store.open_session(title="find the cookie bug", project="/w/shop")
    store.append(s.id, "message", role="user", text=f"the deploy key is {SECRET}; why does login fail?")
    store.append(s.id, "tool_call", text="Bash", payload={"name": "Bash", "input": {"command": "pytest -q tests/login"}})
    store.append(s.id, "message", role="assistant", text="The cookie expires before the redirect.")
    return s


def test_what_is_sent_is_what_was_shown_and_the_answer_is_a_generated_note_and_the_title(store, api):
    ws, loc = api
    s = _session(store)
    sent = ops.summary_request(store, s.id)
    assert SECRET not in sent and "[REDACTED" in sent  # redacted as an export is
    assert "Agent used a tool: Bash: pytest -q tests/login" in sent and "The cookie expires" in sent
    ws.message_reply = '```json\n{"title": "Login cookie expiry", "summary": "Found why login fails."}\n```'
    ch = ops.summarize(store, s.id, sent, location=loc, actor="test")
    assert ws.messages[0]["messages"] == [{"role": "user", "content": sent}]  # exactly that, nothing more
    assert ws.messages[0]["model"] == ops.summarizing.DEFAULT_MODEL
    note = store.notes(s.id)[0]
    assert note.generated_by == ops.summarizing.DEFAULT_MODEL and note.event_id is None
    assert note.text == "**Login cookie expiry**\n\nFound why login fails."
    assert store.session(s.id).title == "Login cookie expiry" and ch.detail["renamed"]
    entry = store.audit_log(s.id)
    assert [a["action"] for a in entry][:2] == ["summarize", "rename"]
    assert entry[0]["detail"]["sent_chars"] == len(sent) and SECRET not in str(entry)


def test_a_summary_is_said_generated_in_the_exports_and_travels_in_our_jsonl(store, api, tmp_path):
    from sessionscope import open_store
    from sessionscope.export.core import ExportRequest
    from sessionscope.export.jsonl import import_file
    _, loc = api
    s = _session(store)
    ops.summarize(store, s.id, ops.summary_request(store, s.id), location=loc)
    ops.export(store, ExportRequest("md", (s.id,)), tmp_path / "x.md")
    assert "✍ **Summary by claude-haiku-4-5 (generated):** **A loopback title**" in (tmp_path / "x.md").read_text()
    ops.export(store, ExportRequest("jsonl", (s.id,)), tmp_path / "x.jsonl")
    with open_store(tmp_path / "other.db") as other:
        assert import_file(other, tmp_path / "x.jsonl").imported == [s.id]
        assert [n.generated_by for n in other.notes(s.id)] == ["claude-haiku-4-5"]


def test_a_users_rename_wins_over_a_summary(store, api):
    ws, loc = api
    s = _session(store)
    ops.rename(store, s.id, "My own title", actor="app")
    ch = ops.summarize(store, s.id, ops.summary_request(store, s.id), location=loc)
    assert store.session(s.id).title == "My own title" and not ch.detail["renamed"]
    assert store.notes(s.id)[0].text.startswith("**A loopback title**")  # the note holds the model's title
    # a second summary may retitle what only Summarize named
    t = _session(store)
    ops.summarize(store, t.id, ops.summary_request(store, t.id), location=loc)
    ws.message_reply = '{"title": "Second thoughts", "summary": "Again."}'
    ops.summarize(store, t.id, ops.summary_request(store, t.id), location=loc)
    assert store.session(t.id).title == "Second thoughts" and len(store.notes(t.id)) == 2


def test_a_refusal_or_an_empty_answer_changes_nothing(store, api, monkeypatch):
    ws, loc = api
    s = _session(store)
    sent = ops.summary_request(store, s.id)
    ws.fault("/v1/messages", 400, message="prompt is too long")
    with pytest.raises(Refused, match="prompt is too long"):
        ops.summarize(store, s.id, sent, location=loc)
    ws.message_reply = "   "
    with pytest.raises(Refused, match="nothing to keep"):
        ops.summarize(store, s.id, sent, location=loc)
    assert store.notes(s.id) == [] and store.session(s.id).title == "find the cookie bug"
    assert [a["outcome"] for a in store.audit_log(s.id) if a["action"] == "summarize"] == ["refused", "refused"]
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setattr("sessionscope.sources.managed_agents.client.api_key", lambda location: None)
    with pytest.raises(Refused, match="no Anthropic API key"):
        ops.summarize(store, s.id, sent, location=loc)
    assert len(ws.messages) == 1  # only the one the model answered emptily

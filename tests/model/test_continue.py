"""Fork Here and Continue where the tool cannot open the fork (#33): a native session's fork, and a Codex
session's (Codex forks are store-native): the note is the fork's next user message, here, and said so."""

from __future__ import annotations

import pytest

from sessionscope import InvalidInput, ops
from sessionscope.sources.codex import import_paths as import_codex
from tests.sources.codex_factory import Rollout


def test_a_native_fork_gets_the_note_as_its_next_message(store):
    s = store.open_session(title="cookie bug")
    first = store.append(s.id, "message", role="user", text="find the cookie bug")
    store.append(s.id, "message", role="assistant", text="it is the expiry")
    store.append(s.id, "message", role="user", text="a later detour")
    ch = ops.fork_and_continue(store, s.id, first.id, ops.continue_prompt(["note one", " "], "  and then this "),
                               actor="test")
    went, fork = ch.detail["continue"], ch.session
    assert went["prompt"] == "note one\n\nand then this" and went["command"] is None
    assert [e.text for e in store.branch(fork.id)] == ["find the cookie bug", "note one\n\nand then this"]
    assert store.event(went["appended"]).parent_id == first.id and fork.head_event_id == went["appended"]
    actions = [a["action"] for a in store.audit_log(fork.id)]
    assert actions[0] == "fork.continue"
    assert [e.text for e in store.branch(s.id)][-1] == "a later detour"  # the origin as it was


def test_a_codex_fork_is_continued_in_the_store_and_an_empty_note_is_refused(store, tmp_path):
    r = Rollout("019c8a4c-0000-7000-8000-00000000c0de")
    r.turn("make the build faster", "cached the wheels")
    r.turn("and the tests?", "split them in two")
    import_codex(store, [r.write(tmp_path / "sessions")])
    sid = store.sessions(source_kind="codex")[0].id
    at = next(e.id for e in store.branch(sid) if e.text == "cached the wheels")
    ch = ops.fork_and_continue(store, sid, at, "now the docs build")
    assert ch.detail["continue"]["command"] is None and ch.session.source_kind == "native"
    assert store.branch(ch.session.id)[-1].text == "now the docs build"
    with pytest.raises(InvalidInput, match="empty"):
        ops.fork_and_continue(store, sid, at, "  \n ")
    assert len(store.sessions()) == 2  # nothing forked for the refused one

"""OpenAI Agents SDK session databases, written by the real openai-agents package, read only."""

from __future__ import annotations

import asyncio

import pytest

from sessionscope import sources
from sessionscope.sources import agents_sdk, importing

agents = pytest.importorskip("agents")


def _items(*pairs):
    out = []
    for role, text in pairs:
        out.append({"role": "user", "content": text} if role == "user" else
                   {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]})
    return out


def test_a_session_database_imports_and_a_popped_item_stays_as_a_branch(store, tmp_path):
    db = tmp_path / "conversations.db"
    session = agents.SQLiteSession("user_123", str(db))
    asyncio.run(session.add_items(_items(("user", "what is 2+2?"), ("assistant", "4"))))
    call = {"type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": '{"q": "x"}', "id": "fc_1"}
    asyncio.run(session.add_items([call, {"type": "function_call_output", "call_id": "call_1", "output": "found"}]))
    report = importing.import_paths(store, [tmp_path])
    key = agents_sdk.session_key(db, "user_123")
    assert report.sessions == {key} and report.bad_lines == 0
    s = store.session(key)
    assert s.source_kind == "agents_sdk" and s.tool_id == "user_123" and s.title == "what is 2+2?"
    assert s.project == "conversations"  # it has no folder of its own: the sidebar groups it by its database
    assert [e.kind for e in store.branch_view(key)] == ["message", "message", "tool_call", "tool_result"]
    assert not list(tmp_path.glob("*-shm")) or (tmp_path / "conversations.db-wal").exists()  # nothing of ours
    # the application undoes the last item and goes on: the undone item stays, as an abandoned branch
    asyncio.run(session.pop_item())
    asyncio.run(session.add_items([{"type": "function_call_output", "call_id": "call_1", "output": "found again"}]))
    again = importing.import_paths(store, [tmp_path])
    assert again.events_added == 1
    path = [e.text for e in store.branch(key)]  # root → head: the session as it continues
    assert path[-1] == "found again" and "found" not in path
    assert len(store.leaves(key)) == 2  # the undone item is a tip of its own
    assert sources.of("agents_sdk").resume_line(store.session(key)).startswith("SQLiteSession('user_123'")
    session.close()


def test_the_corpus_databases_import_and_stay_as_they_were(corpus, store, tmp_path):
    folder = corpus / "openai-agents"
    if not folder.is_dir():
        pytest.skip("no openai-agents corpus")
    before = sorted(p.name for p in folder.iterdir())
    report = importing.import_paths(store, [folder])
    assert report.files_read == 8 and report.bad_lines == 0 and not report.problems
    assert {s.source_kind for s in store.sessions()} == {"agents_sdk"}
    assert sorted(p.name for p in folder.iterdir()) == before  # no -wal or -shm left beside them


def test_what_applies_to_an_agents_sdk_session():
    src = sources.of("agents_sdk")
    assert src.allows("copy_resume", "idle") and not src.allows("resume", "idle") and not src.allows("compact", "idle")
    assert sources.of("codex").allows("copy_resume", "idle") and sources.of("native").allows("copy_resume", "idle")


def test_advanced_sessions_branches_and_turn_usage(store, tmp_path):
    from types import SimpleNamespace

    from agents.extensions.memory import AdvancedSQLiteSession
    from agents.usage import Usage

    db = tmp_path / "advanced.db"
    session = AdvancedSQLiteSession(session_id="chat", db_path=str(db), create_tables=True)

    def usage(i, o):  # what Runner.run leaves on its result, as store_run_usage reads it
        return SimpleNamespace(context_wrapper=SimpleNamespace(usage=Usage(requests=1, input_tokens=i, output_tokens=o,
                                                                           total_tokens=i + o)))
    asyncio.run(session.add_items(_items(("user", "plan a trip"), ("assistant", "to where?"))))
    asyncio.run(session.store_run_usage(usage(100, 10)))
    asyncio.run(session.add_items(_items(("user", "Lisbon"), ("assistant", "three days in Lisbon"))))
    asyncio.run(session.store_run_usage(usage(200, 20)))
    # the application goes back to turn 2 and asks something else there
    branch = asyncio.run(session.create_branch_from_turn(2, "porto"))
    asyncio.run(session.add_items(_items(("user", "Porto"), ("assistant", "two days in Porto"))))
    asyncio.run(session.store_run_usage(usage(300, 30)))
    report = importing.import_paths(store, [db])
    key = agents_sdk.session_key(db, "chat")
    assert report.sessions == {key} and not report.problems
    s = store.session(key)
    assert (s.tokens_in, s.tokens_out) == (600, 60)  # the turn_usage rows, every branch
    assert [e.text for e in store.branch_view(key) if e.kind == "message"] == \
        ["plan a trip", "to where?", "Porto", "two days in Porto"]  # the branch in use: from turn 2 on
    assert len(store.leaves(key)) == 2 and branch == "porto"  # the Lisbon turn stays as the other branch
    session.close()


def test_custom_table_names_are_recognised_by_their_columns(store, tmp_path):
    db = tmp_path / "app.sqlite"
    session = agents.SQLiteSession("s1", str(db), sessions_table="my_sessions", messages_table="my_items")
    asyncio.run(session.add_items(_items(("user", "hello"), ("assistant", "hi"))))
    report = importing.import_paths(store, [db])
    assert len(report.sessions) == 1 and report.events_added == 2
    session.close()

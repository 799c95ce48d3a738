"""What Claude Code gives the model of its own accord (its environment, the skills it lists, its system prompt's
snapshot, its reminders) is kept as `context` events: on the chain, not the conversation. The reader, `show`, the
MCP server and search leave them out; what the user or a hook said (a queued prompt, a hook's output) stays an
attachment, shown."""

from __future__ import annotations

from sessionscope.cli.output import show_text
from sessionscope.gui.reader.branch_pane import HIDDEN_KINDS
from sessionscope.sources.claude_code import import_paths
from tests.sources.claude_factory import Transcript

SKILLS = "- dataviz: Use this skill whenever you are about to create ANY chart, graph or heatmap\n" * 40


def _session(tmp_path) -> tuple[Transcript, dict]:
    t = Transcript()
    prompt = t.user("make the report's chart")
    said = {
        "environment": t._env("attachment", attachment={"type": "environment", "platform": "linux"}),
        "skill_listing": t._env("attachment", attachment={"type": "skill_listing", "content": SKILLS, "skillCount": 40}),
        "prompt_snapshot": t._env("attachment", attachment={"type": "prompt_snapshot",
                                                            "systemPrompt": ["You are Claude Code. " * 200]}),
        "queued_command": t._env("attachment", attachment={"type": "queued_command",
                                                           "prompt": "and rename the axis", "content": "and rename the axis"}),
        "hook_success": t._env("attachment", attachment={"type": "hook_success", "content": "lint passed",
                                                         "hookName": "PostToolUse"}),
        "todo_reminder": t._env("attachment", attachment={"type": "todo_reminder", "content": []}),
    }
    reply = t.assistant("Here is the chart, with the axis renamed.")
    t.write(tmp_path / "projects" / "-work-app")
    return t, {"prompt": prompt, "reply": reply, **said}


def test_claude_codes_own_context_is_kept_on_the_chain_and_left_out_of_the_conversation(store, tmp_path):
    t, lines = _session(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    events = {e.id: e for e in store.events(t.session_id)}
    kinds = {name: events[line["uuid"]].kind for name, line in lines.items()}
    assert kinds == {"prompt": "message", "reply": "message", "environment": "context", "skill_listing": "context",
                     "prompt_snapshot": "context", "queued_command": "attachment", "hook_success": "attachment",
                     "todo_reminder": "context"}
    # kept whole, with no text of their own: nothing to search for
    assert all(events[lines[n]["uuid"]].text == "" for n in ("environment", "skill_listing", "prompt_snapshot"))
    assert store.event(lines["skill_listing"]["uuid"]).payload == t.text().splitlines()[2]
    assert store.search("heatmap", limit=10) == [] and store.search("rename axis", limit=10)
    # the chain still runs through them: the reply's branch is the whole session
    branch = store.branch_ids(t.session_id)
    assert branch[-1] == lines["reply"]["uuid"] and lines["skill_listing"]["uuid"] in branch
    # the reader's outline and `show` leave them out; the attachments the user or a hook wrote stay
    shown = store.branch_ids(t.session_id, skip_kinds=HIDDEN_KINDS)
    assert [events[i].kind for i in shown] == ["message", "attachment", "attachment", "message"]
    text = show_text(store.session(t.session_id), store.events(t.session_id))
    assert "and rename the axis" in text and "dataviz" not in text and "4 progress, metadata, checkpoint and context" in text


def test_the_mcp_server_hands_an_agent_the_conversation_without_claude_codes_context(store, tmp_path):
    from sessionscope.recall.mcp_server import Tools
    t, lines = _session(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    read = Tools(store).transcript(t.session_id)
    assert [e["kind"] for e in read["events"]] == ["message", "attachment", "attachment", "message"]
    assert read["total"] == 4 and "rename the axis" in str(read)


def test_a_fork_writes_claude_codes_context_lines_as_it_writes_the_others(store, tmp_path, monkeypatch):
    """A fork (our writer, at the reply) carries the context lines along, as claude-agent-sdk's fork_session does
    every line of the chain: Claude Code resumes the fork with what the model was given."""
    import orjson

    from sessionscope.sources.claude_code import actions as claude_actions
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    t, lines = _session(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    fork = claude_actions.fork(store, t.session_id, lines["reply"]["uuid"])
    written = [orjson.loads(x) for x in (tmp_path / "projects" / "-work-app" / f"{fork.session.id}.jsonl")
               .read_text().splitlines()]
    types = [w["attachment"]["type"] for w in written if w.get("type") == "attachment"]
    assert types == ["environment", "skill_listing", "prompt_snapshot", "queued_command", "hook_success",
                     "todo_reminder"]
    assert [w for w in written if w.get("attachment", {}).get("type") == "skill_listing"][0]["attachment"]["content"] \
        == SKILLS


def test_show_all_says_what_each_line_beside_the_conversation_is(tmp_path, capsys):
    """`show --all` lists Claude Code's own lines by what they are (the quick reader's `show`, as a user runs it),
    where they printed blank; the conversation's lines as before."""
    from sessionscope import open_store
    from sessionscope.cli.main import main
    t, lines = _session(tmp_path)
    store = open_store(tmp_path / "s.db")
    import_paths(store, [tmp_path / "projects"])
    store.close()
    assert main(["--store", str(tmp_path / "s.db"), "show", "--all", t.session_id]) == 0
    said = {line.split()[3]: line for line in capsys.readouterr().out.splitlines()[2:]}
    for name in ("environment", "skill_listing", "prompt_snapshot", "todo_reminder"):
        assert said[lines[name]["uuid"][:8]].endswith(f"context                [attachment: {name}]")
    assert said[lines["prompt"]["uuid"][:8]].endswith("make the report's chart")
    assert "dataviz" not in "".join(said.values())  # (what a line holds stays in it: its kind is said, not its words)
    assert main(["--store", str(tmp_path / "s.db"), "show", t.session_id]) == 0
    assert "[attachment:" not in capsys.readouterr().out

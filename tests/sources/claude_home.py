"""Helpers that lay corpus transcripts out as a real Claude Code home."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import orjson

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def last_session_id(path: Path) -> str | None:
    """The session a file continues (a resumed file repeats older ids first)."""
    last = None
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                sid = orjson.loads(raw).get("sessionId")
            except (orjson.JSONDecodeError, AttributeError):
                continue
            if isinstance(sid, str) and UUID_RE.match(sid):
                last = sid
    return last


def lay_out(entry: Path, projects: Path, index: int) -> Path:
    """Copy one corpus entry (a project folder or a single file) into projects/; returns its dir."""
    project = projects / f"-corpus-{index}"
    if entry.is_dir():
        shutil.copytree(entry, project)
    else:
        project.mkdir(parents=True)
        sid = last_session_id(entry)
        shutil.copy(entry, project / (f"{sid}.jsonl" if sid else entry.name))
    return project


def read_back(sdk, path: Path, session_id: str) -> list[tuple[str | None, dict]]:
    """(the original uuid each message of a fork was copied from, or None for a line it added; message)."""
    origin = {}
    for raw in path.read_bytes().splitlines():
        line = orjson.loads(raw)
        if isinstance(line, dict) and line.get("uuid"):
            origin[line["uuid"]] = (line.get("forkedFrom") or {}).get("messageUuid")
    return [(origin[m.uuid], m.message) for m in sdk.get_session_messages(session_id)]


def cut_matches_sdk(sdk, store, project: Path, session_id: str, original: list, k: int, action: str,
                    where: str) -> set[str]:
    """Our fork (or rewind) at the SDK's k-th message, read back by get_session_messages(), holds what
    claude-agent-sdk's own fork_session(up_to_message_id=E) keeps (the same messages, order and content), plus
    only what the fork says it added at the end (calls whose result came after the cut closed as interrupted,
    the rest of a thinking-only reply). Returns the kinds of block it added."""
    from sessionscope.sources.claude_code import actions as claude_actions
    from sessionscope.sources.claude_code.fork import CANCEL_MESSAGE, INTERRUPT_MESSAGE
    at = original[k].uuid
    try:
        ref = sdk.fork_session(session_id, up_to_message_id=at).session_id
        want = read_back(sdk, project / f"{ref}.jsonl", ref)
    except ValueError:  # synthetic fixtures whose ids are not uuids: the SDK refuses them
        want = [(m.uuid, m.message) for m in original[:k + 1]]
    assert {m.uuid for m in original[:k + 1]} <= {u for u, _ in want}, where
    ch = getattr(claude_actions, action)(store, session_id, at)
    got = read_back(sdk, project / f"{ch.session.id}.jsonl", ch.session.id)
    copied = [(u, m) for u, m in got if u is not None]
    assert copied[:len(want)] == want, where
    assert [u for u, _ in copied[len(want):]] == ch.detail.get("extended", []), where
    added = [m for u, m in got if u is None]
    assert got[len(got) - len(added):] == [(None, m) for m in added], where  # only at the end
    closed = ch.detail.get("interrupted", [])
    assert len(added) == (len(closed) + 1 if closed else 0), where
    kinds = set()
    for m in added:
        block = m["content"][0]
        assert block.get("content") == CANCEL_MESSAGE or block.get("text") == INTERRUPT_MESSAGE, where
        kinds.add(block["type"])
    return kinds

"""pi and OpenClaw sessions, read only (FORMATS.md §6, §15): one JSONL file a session, appended.

The first entry is `{type: session, version, id, cwd, branchedFrom?}`; every other entry has an `id` and a
`parentId`, so the file is a tree (pi's first files, version 1 with no version in the header, are a list: no ids,
each entry after the one before): a new branch after `/tree` or a rewind hangs under an earlier entry and the
abandoned one stays. Entries: `message` (`message.role` user, assistant — content blocks text, thinking,
toolCall{id, name, arguments} — or toolResult{toolCallId, content, isError}), `model_change`,
`thinking_level_change`, `compaction` (pi) / `compact`, `custom` and `custom_message` (OpenClaw's own).
OpenClaw hangs a tool's result under the call's id rather than the message's: both are names of events here.
An entry type this reader does not know is kept whole (opaque, listed as drift); the entries after it read on.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources import jsonl
from sessionscope.sources.appended import Log, read_appended
from sessionscope.sources.documents import blocks_text
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "pi"
NS = uuid.UUID("3f6b2a1c-8e4d-4c7b-9a15-6d2e8f0b7c44")
ENTRY_TYPES = ("message", "model_change", "thinking_level_change", "compaction", "compact", "custom",
               "custom_message", "label", "branch_summary")


def default_roots() -> list[Path]:
    """pi's sessions (`PI_CODING_AGENT_DIR`, default ~/.pi/agent) and OpenClaw's agents (`OPENCLAW_HOME`, ~/.openclaw)."""
    pi = Path(os.environ.get("PI_CODING_AGENT_DIR") or Path.home() / ".pi" / "agent") / "sessions"
    claw = Path(os.environ.get("OPENCLAW_HOME") or Path.home() / ".openclaw") / "agents"
    return [d for d in (pi, claw) if d.is_dir()]


def sniff(obj: Any) -> bool:
    """pi's session header (`{type: session, version, id, cwd}`; pi's first files have no version)."""
    return isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str) \
        and "cwd" in obj and "sessionId" not in obj and ("version" in obj or "timestamp" in obj)


def session_files(root: Path) -> list[Path]:
    found = [Path(d) / n for d, _dirs, names in os.walk(root) for n in names
             if n.endswith(".jsonl") and jsonl.first_lines_sniff(Path(d) / n, sniff)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def session_key(path: Path) -> str:
    return str(uuid.uuid5(NS, str(path.name)))


def tool_id(path: Path) -> str:
    """pi names a file `<time>_<session id>.jsonl`; OpenClaw `<session id>.jsonl`."""
    return path.stem.rsplit("_", 1)[-1]


def _usage(message: dict) -> tuple[int, int, int, int] | None:
    u = message.get("usage")
    if not isinstance(u, dict):
        return None
    n = lambda k: int(u[k]) if isinstance(u.get(k), (int, float)) and u[k] > 0 else 0  # noqa: E731
    return n("input"), n("output"), n("cacheRead"), n("cacheWrite")


def _entry_event(log: Log, entry: str) -> str:
    """The event an entry's id names: its last."""
    return str(uuid.uuid5(NS, f"{log.key}:entry:{entry}"))


def convert(log: Log, line: jsonl.Line) -> None:
    obj = line.obj
    names: dict[str, str] = log.meta.setdefault("_names", {})  # this run's: an entry's or a call's id → its event
    t = obj.get("type")
    ts = parse_ts(obj.get("timestamp")) or log.ts
    if t == "session":
        if isinstance(obj.get("cwd"), str) and obj["cwd"]:
            log.fields.update(cwd=obj["cwd"], project=obj["cwd"])
        log.meta["pi_version"] = obj.get("version")
        if isinstance(obj.get("branchedFrom"), str):
            log.meta["branched_from"] = obj["branchedFrom"]
        return  # the header is the session itself, not an event
    entry = obj.get("id")
    before = log.last
    if not isinstance(entry, str) or not entry:
        # pi's first files (version 1, no version in the header) are a list: an entry has no id and follows the one
        # before it (pi's own migration gives each the one before as its parent); named by where it lies
        entry, guessed = f"@{line.offset}", False
    elif isinstance(parent := obj.get("parentId"), str) and parent:
        # its parent: an entry or a call of this run; else an entry read before (in the store), and if that names
        # nothing stored (OpenClaw's call id, from an earlier run), the event read last; no parent: a root
        log.last = names.get(parent) or _entry_event(log, parent)
        guessed = parent not in names
    else:
        log.last, guessed = None, False
    made = []
    n = 0

    def key() -> str:
        nonlocal n
        n += 1
        return f"{entry}:{n}"

    if t == "message" and isinstance(obj.get("message"), dict):
        m = obj["message"]
        role = m.get("role")
        model = m.get("model") if isinstance(m.get("model"), str) else ""
        if model:
            log.fields["model"] = model
        if role == "user":
            made.append(log.said("user", blocks_text(m.get("content")), ts, raw=obj, key=key()))
        elif role == "assistant":
            for b in m.get("content") if isinstance(m.get("content"), list) else []:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "thinking":
                    text = b.get("thinking") if isinstance(b.get("thinking"), str) else ""
                    made.append(log.thought(text or ("(redacted)" if b.get("redacted") else ""), ts, raw=b, key=key()))
                elif b.get("type") == "toolCall":
                    made.append(log.call(b.get("id"), str(b.get("name", "")), b.get("arguments"), ts, raw=b, key=key()))
                    if isinstance(b.get("id"), str) and b["id"]:
                        names[b["id"]] = made[-1].id
                elif isinstance(b.get("text"), str):
                    made.append(log.said("assistant", b["text"], ts, raw=b, key=key(), model=model))
            if not made:
                made.append(log.said("assistant", blocks_text(m.get("content")), ts, raw=obj, key=key(), model=model))
            log.usage(made[0], model, _usage(m))
        elif role == "toolResult":
            made.append(log.result(m.get("toolCallId"), blocks_text(m.get("content")), ts, error=m.get("isError") is True,
                                   raw=obj, key=key()))
        else:
            made.append(log.add("opaque", None, f"message role {role}", obj, ts, head=False, key=key()))
    elif t in ("compaction", "compact"):
        made.append(log.add("compaction", "system", str(obj.get("summary") or "Conversation compacted"), obj, ts,
                            key=key()))
    elif t == "model_change":
        if isinstance(obj.get("modelId"), str):
            log.fields["model"] = obj["modelId"]
        made.append(log.add("meta", None, f"model: {obj.get('provider') or ''}/{obj.get('modelId') or ''}", obj, ts,
                            head=False, key=key()))
    elif t == "custom_message" and obj.get("display") is not False:
        made.append(log.add("system", "system", blocks_text(obj.get("content")), obj, ts, key=key()))
    elif t in ENTRY_TYPES:  # thinking level, labels, a hidden custom message, OpenClaw's state: beside the talk
        made.append(log.add("meta", None, str(obj.get("thinkingLevel") or obj.get("customType") or t), obj, ts,
                            head=False, key=key()))
    else:  # a newer entry type: kept whole, listed as drift; the tree goes on through it
        made.append(log.add("opaque", None, str(t), obj, ts, head=False, key=key()))
    if guessed:
        made[0].logical_parent, made[0].fallback_parent = True, before
    for e in made:
        if e.kind in ("meta", "opaque"):
            e.activity = False
    last, old = made[-1], made[-1].id
    last.id = names[entry] = _entry_event(log, entry)  # an entry's id names its last event, in every run
    for call, eid in list(names.items()):
        if eid == old:  # (a call that ends the entry: its id names the same event)
            names[call] = last.id
    log.last = last.id


import_paths = importer(KIND, session_files, read_appended(NS, convert, session_key, tool_id=tool_id),
                        "pi and OpenClaw sessions")

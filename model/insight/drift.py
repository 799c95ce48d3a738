"""Schema drift, said and never silent (#36): what the readers met and did not understand, by tool, by the tool's
version when it is known, and by shape, so a user (and we) can see which tool changed its format and since when.

Two kinds of evidence, both kept by the import itself:

- a line a reader keeps whole without understanding it (an `opaque` event: Claude Code's, Codex's, Gemini CLI's
  and the Agents SDK's line readers, OpenAI's hosted items): grouped by the line's own type (`type/subtype`, or a
  Codex envelope's `type/payload.type`) and the version that wrote it (the line's `version`, else the session's);
- a part of a document a reader says it does not know (`… of type 'x', which the reader does not know`): kept as
  the file's problem (sessionscope.sources.scan), grouped by what was not known.

What was understood around them is stored as usual; this only lists what was not.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass

import orjson
import sqlalchemy as sa

from sessionscope.store.schema import EVENT, SESSION, SOURCE, SOURCE_FILE

VERSION_KEYS = ("cli_version", "qwen_version", "version", "client_version")  # a session's meta, first found
UNKNOWN = re.compile(r"(does not know|not understood|unknown )")
LOCATOR = re.compile(r"^(?:line|message|request|event|history item|conversation|thread|checkpoint)\s+\S+?:\s+"
                     r"(?:message \S+ )?")  # "message 12: …", "thread abc: message 3 …": where, not what
QUOTED_ID = re.compile(r"\b(?:message|request|thread|conversation) [0-9a-fA-F-]{8,}\b")
PARSE_LIMIT = 1 << 20  # a payload longer than this is named by its first type key, not parsed


@dataclass(frozen=True)
class Drift:
    tool: str  # the source kind
    label: str  # the tool's name
    version: str  # the tool's version that wrote it ("" when not known)
    shape: str  # what was not understood: a line's type, or the reader's words
    lines: int  # how many times it was met
    sessions: int  # in how many sessions (opaque lines) or files (document problems)
    example: str  # a session id or a file path to look at
    kept: str  # "line": kept whole as an event; "file": said as the file's problem

    def as_dict(self) -> dict:
        return asdict(self)


def shape_of(payload: str) -> tuple[str, str]:
    """(shape, the version the line names) of a kept line."""
    if len(payload) > PARSE_LIMIT:
        m = re.search(r'"type"\s*:\s*"([^"]{1,80})"', payload[:4096])
        return (m.group(1) if m else "(a line too long to name)"), ""
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return "(not JSON)", ""
    if not isinstance(obj, dict):
        return f"(a JSON {type(obj).__name__}, not an object)", ""
    version = obj.get("version") if isinstance(obj.get("version"), str) else ""
    t = obj.get("type")
    if not isinstance(t, str) or not t:
        keys = sorted(k for k in obj if isinstance(k, str))[:4]
        return f"(no type: keys {', '.join(keys)})", version
    inner = obj.get("payload") if isinstance(obj.get("payload"), dict) else None
    sub = inner.get("type") if inner is not None else obj.get("subtype")
    return (f"{t}/{sub}" if isinstance(sub, str) and sub else t), version


def _session_version(meta: str | None) -> str:
    try:
        m = json.loads(meta or "{}")
    except ValueError:
        return ""
    return next((str(m[k]) for k in VERSION_KEYS if isinstance(m.get(k), (str, int, float)) and m.get(k) != ""), "")


def _label(kind: str) -> str:
    from sessionscope import sources
    return sources.of(kind).label


def drift(store) -> list[Drift]:
    """Everything not understood, the most met first."""
    groups: dict[tuple, list] = {}  # (tool, version, shape, kept) → [count, {sessions or files}, example]
    with store.reader() as conn:
        rows = conn.execute(sa.select(EVENT.c.session_id, EVENT.c.payload, SESSION.c.meta, SOURCE.c.kind)
                            .join(SESSION, SESSION.c.id == EVENT.c.session_id)
                            .join(SOURCE, SOURCE.c.id == SESSION.c.source_id)
                            .where(EVENT.c.kind == "opaque")).all()
        files = conn.execute(sa.select(SOURCE_FILE.c.path, SOURCE_FILE.c.problems, SOURCE.c.kind)
                             .join(SOURCE, SOURCE.c.id == SOURCE_FILE.c.source_id)
                             .where(SOURCE_FILE.c.problems != "[]")).all()
    versions: dict[str, str] = {}
    for sid, payload, meta, kind in rows:
        shape, version = shape_of(payload or "")
        if not version:
            if sid not in versions:
                versions[sid] = _session_version(meta)
            version = versions[sid]
        g = groups.setdefault((kind, version, shape, "line"), [0, set(), sid])
        g[0] += 1
        g[1].add(sid)
    for path, problems, kind in files:
        try:
            said = json.loads(problems or "[]")
        except ValueError:
            continue
        for p in said if isinstance(said, list) else []:
            text = str(p.get("problem", "")) if isinstance(p, dict) else ""
            if not UNKNOWN.search(text):
                continue
            shape = QUOTED_ID.sub(lambda m: m.group(0).split(" ")[0], LOCATOR.sub("", text))
            g = groups.setdefault((kind, "", shape, "file"), [0, set(), path])
            g[0] += 1
            g[1].add(path)
    out = [Drift(kind, _label(kind), version, shape, n, len(where), example, kept)
           for (kind, version, shape, kept), (n, where, example) in groups.items()]
    out.sort(key=lambda d: (-d.lines, d.label, d.version, d.shape))
    return out

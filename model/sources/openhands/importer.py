"""OpenHands trajectories, read only (FORMATS.md §6): a trajectory export (a JSON array of events)
is one session; an evaluation or resolver output (`.jsonl`, one run a line with its `history`) is a
session a line. Both are read whole when they change.

Actions become tool calls (their `thought` the reply before them), observations the
results paired with their action by `cause`, messages prompts and replies; the
agent's state changes are kept but not shown as conversation. Tokens come from the
LiteLLM response an action carries, counted once per response.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.documents import Transcript, load_json, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "openhands"
NS = uuid.UUID("0a7e5c3b-9d14-4b62-8f0e-c1d2e3f4a5b6")
QUIET = ("agent_state_changed", "change_agent_state", "null")  # bookkeeping, not conversation


def default_roots() -> list[Path]:
    """OpenHands keeps conversations in its own server; trajectories are exported files the user adds."""
    return []


def _is_event(e: Any) -> bool:
    """An event: `{id, source, action|observation, args|content, cause}`, or the older flattened form
    of output files (`{action, command, thought, …}`, no source, no id, no cause)."""
    return isinstance(e, dict) and e.get("source", "agent") in ("user", "agent", "environment") and \
        ("action" in e or "observation" in e)


def sniff(obj: Any) -> bool:
    """A trajectory (a `.json` array of events), or an output line carrying a run's `history`."""
    if isinstance(obj, list):
        return bool(obj) and all(_is_event(e) for e in obj[:20])
    if isinstance(obj, dict) and isinstance(obj.get("history"), list):
        h = obj["history"]
        return (bool(h) and all(_is_event(e) for e in h[:20])) or (not h and "metrics" in obj)
    return False


def session_files(root: Path) -> list[Path]:
    found = []
    for d, _dirs, names in os.walk(root):
        for n in names:
            p = Path(d) / n
            if not jsonl.is_regular(p):  # a FIFO or a device: never opened
                continue
            try:
                if n.endswith(".json") and sniff(load_json(p.read_bytes())):
                    found.append(p)
                elif n.endswith(".jsonl"):
                    with open(p, "rb") as fh:
                        if sniff(orjson.loads(fh.readline(jsonl.MAX_LINE_BYTES))):
                            found.append(p)
            except (OSError, ValueError, RecursionError):
                continue
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))



def session_key(path: Path, line: int | None = None) -> str:
    return str(uuid.uuid5(NS, f"{path.absolute()}" + (f":{line}" if line is not None else "")))


def build(path: Path, data: bytes) -> list[Transcript]:
    mtime = path.stat().st_mtime
    if path.suffix == ".jsonl":
        out = []
        for n, raw in enumerate(data.splitlines(), 1):
            if not raw.strip():
                continue
            t = Transcript(NS, session_key(path, n), ts=mtime)
            try:
                run = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                t.problems.append(f"line {n}: not JSON ({exc})")
                out.append(t)
                continue
            if not isinstance(run, dict) or not isinstance(run.get("history"), list):
                t.problems.append(f"line {n}: no history")
                out.append(t)
                continue
            issue = run.get("issue") if isinstance(run.get("issue"), dict) else {}
            t.tool_id = str(run.get("instance_id") or (f"{issue.get('owner')}/{issue.get('repo')}#{issue.get('number')}"
                                                      if issue else f"line {n}"))
            if issue.get("title"):
                t.fields["title"] = str(issue["title"])[:200]
            t.fields["project"] = str(issue.get("repo") or path.stem)
            _events(t, run["history"])
            for key in ("success", "git_patch", "result_explanation", "error"):
                if run.get(key) not in (None, ""):
                    t.fact(key, run[key])
            metrics = run.get("metrics") if isinstance(run.get("metrics"), dict) else {}
            if metrics.get("accumulated_cost") is not None:
                t.meta["cost"] = metrics["accumulated_cost"]
            out.append(t)
        return out
    doc = load_json(data)
    if not sniff(doc):
        raise ValueError("not an OpenHands trajectory")
    t = Transcript(NS, session_key(path), tool_id=path.stem, ts=mtime)
    t.fields["project"] = path.parent.name
    _events(t, doc)
    return [t]


def _events(t: Transcript, history: list) -> None:
    call_of: dict[Any, str] = {}  # action id → its tool call id (an observation names its cause)
    unanswered: list[str] = []  # the flattened form names no cause: an observation answers the oldest call
    counted: set[str] = set()
    files: set[str] = set()
    spoke = False
    for i, e in enumerate(history):
        if not _is_event(e):
            t.problems.append(f"event {i}: not an OpenHands event")
            continue
        if "source" not in e:  # flattened: the first message is the instruction, the rest the agent's
            flat = {k: v for k, v in e.items() if k not in ("action", "observation", "content", "action_risk",
                                                              "is_confirmed")}
            source = "user" if e.get("action") == "message" and not spoke else \
                "agent" if "action" in e else "environment"
            e = {**e, "source": source, "args": {**flat, "content": e.get("content")} if "action" in e else flat}
        spoke = spoke or e.get("action") == "message"
        ts = parse_ts(e.get("timestamp") if isinstance(e.get("timestamp"), str) else None) or t.ts
        meta = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else {}
        response = meta.get("model_response") if isinstance(meta.get("model_response"), dict) else {}
        usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
        tokens = (0, 0)
        if usage and response.get("id") not in counted and "action" in e:
            counted.add(response.get("id"))
            tokens = (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
        if "action" in e:
            action = e["action"]
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            if action in QUIET:
                t.add("meta", "system", str(e.get("message") or action), e, ts, head=False)
                continue
            if action == "message":
                text = str(args.get("content") or e.get("message") or "")
                role = "user" if e["source"] == "user" else "assistant"
                t.add("message", role, text, e, ts, tokens_in=tokens[0], tokens_out=tokens[1])
                if role == "user":
                    t.title(text)
                continue
            if action == "system":
                t.add("system", "system", str(args.get("content") or e.get("message") or ""), e, ts)
                continue
            thought = args.get("thought")
            if isinstance(thought, str) and thought.strip():
                t.add("message", "assistant", thought, {"thought_of": e.get("id")}, ts,
                      tokens_in=tokens[0], tokens_out=tokens[1])
                tokens = (0, 0)
            name = str(meta.get("function_name") or action)
            call_id = str(meta.get("tool_call_id") or f"openhands-{e.get('id', i)}")
            inputs = {k: v for k, v in args.items() if k != "thought" and v is not None}
            t.add("tool_call", "assistant", f"{name} {str(e.get('message') or '')}".strip(),
                  {"name": name, "input": inputs, "id": call_id, "action": action, "event": e}, ts,
                  tokens_in=tokens[0], tokens_out=tokens[1])
            call_of[e.get("id", f"flat-{i}")] = call_id
            unanswered.append(call_id)
            if isinstance(args.get("path"), str) and action in ("edit", "write"):
                files.add(args["path"])
                t.fact("files", sorted(files), ts)
        else:
            obs = e["observation"]
            if obs in QUIET:
                t.add("meta", "system", str(e.get("message") or obs), e, ts, head=False)
                continue
            content = e.get("content")
            out = content if isinstance(content, str) and content else str(e.get("message") or "")
            call_id = call_of.get(e.get("cause")) or meta.get("tool_call_id") or \
                (unanswered[0] if unanswered and "cause" not in e else None)
            if call_id in unanswered:
                unanswered.remove(call_id)
            extras = e.get("extras") if isinstance(e.get("extras"), dict) else {}
            failed = obs == "error" or (isinstance(extras.get("metadata"), dict)
                                        and extras["metadata"].get("exit_code") not in (None, 0, -1))
            t.add("tool_result", "tool", out, {"tool_use_id": call_id, "output": out, "is_error": failed,
                                               "observation": obs, "event": e}, ts)


import_paths = importer(KIND, session_files, read_whole(build), "OpenHands trajectories and output files")

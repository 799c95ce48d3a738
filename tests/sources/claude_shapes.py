"""Claude Code transcripts in the shapes the conformance test reads with both claude-agent-sdk and Sessionscope.

Each shape is written the way Claude Code 2.1.x writes it (seen in real transcripts, and in the ones the bundled
`claude -p` writes against a loopback API): a reply's blocks one assistant line each, chained; parallel tool
calls' results each a child of its own call; hooks' attachments after the line they follow; and, since hooks run
concurrently, a line now and then written just before the line it names as its parent. A seed decides which.
"""

from __future__ import annotations

import random
import uuid

from tests.sources.claude_factory import Transcript


def _attachment(t: Transcript, kind: str, parent: str | None, content: str = "") -> dict:
    return t._env("attachment", parent, attachment={"type": kind, "content": content, "hookName": "PostToolUse"})


def _swap_last_two(t: Transcript) -> None:
    """The last line is written before the one before it (its parent): what concurrent hooks do."""
    t.lines[-1], t.lines[-2] = t.lines[-2], t.lines[-1]


def shape(seed: int) -> Transcript:
    """One session of 2–5 turns: prompts, hooks' attachments, thinking, parallel calls of 0–5 tools (results in
    any order, each under its own call), lines written before their parent, compactions, inline sidechains."""
    rng = random.Random(seed)
    t = Transcript(session_id=str(uuid.UUID(int=rng.getrandbits(128), version=4)))
    t.salt = f"shape{seed}"
    if rng.random() < 0.5:
        _attachment(t, "hook_success", None, "session-start-context")
    for turn in range(rng.randint(2, 5)):
        if turn and rng.random() < 0.2:
            t.compact(f"summary of the work before turn {turn}")
        t.user(f"turn {turn}: do the next thing")
        for k in range(rng.randint(0, 3)):  # the prompt's attachments (environment, date, a hook's output)
            _attachment(t, rng.choice(["hook_success", "date", "task_reminder"]), t.last, f"context {k}")
            if k and rng.random() < 0.4:
                _swap_last_two(t)
        if rng.random() < 0.15:  # an inline subagent run (older Claude Code): sidechain lines from no parent
            side = t.user("look around", parent=None)
            side["isSidechain"] = True
            reply = t.assistant("looked", parent=side["uuid"])
            reply["isSidechain"] = True
            t.last = t.lines[-3]["uuid"] if len(t.lines) > 2 else None
        msg = f"msg_{seed}_{turn}"
        if rng.random() < 0.4:
            t.assistant(thinking="let me think", msg_id=msg)
        if rng.random() < 0.6:
            t.assistant(f"working on turn {turn}", msg_id=msg)
        calls = [t.assistant(tool=("Bash", {"command": f"echo {turn}.{k}"}), msg_id=msg)
                 for k in range(rng.choice([0, 1, 2, 2, 3, 4, 5]))]
        if calls:
            order = calls[:]
            rng.shuffle(order)
            last = None
            for call in order:
                if rng.random() < 0.3:  # a PreToolUse hook's output under the call, before its result
                    _attachment(t, "hook_success", call["uuid"], "pre")
                result = t.tool_result(call, f"out {call['message']['content'][0]['input']['command']}",
                                       parent=call["uuid"])
                result["sourceToolAssistantUUID"] = call["uuid"]
                last = result["uuid"]
                if rng.random() < 0.5:  # a PostToolUse hook's output under the result
                    _attachment(t, "hook_success", result["uuid"], "post")
                    last = t.last
                    if rng.random() < 0.3:
                        _swap_last_two(t)
            t.last = last
            t.assistant(f"turn {turn} done", msg_id=f"{msg}_end")
        elif not t.lines[-1].get("message", {}).get("role") == "assistant" or rng.random() < 0.5:
            t.assistant(f"turn {turn} answered", msg_id=f"{msg}_end")
        if rng.random() < 0.3:  # the Stop hook's summary after the reply
            t._env("system", t.last, subtype="stop_hook_summary", content="", level="suggestion")
    return t


def out_of_order_session() -> Transcript:
    """The shape that lost 88 of 106 messages: early in the session, a task_reminder attachment names as its
    parent a hook_success attachment written 10 ms after it; the rest of the session hangs under it."""
    t = Transcript(session_id="5d1b6a52-0c0b-4c5e-9d43-6f0f3f2ad001")
    t.salt = "out-of-order"
    t.user("set up the project")
    hook = _attachment(t, "hook_success", t.last, "UserPromptSubmit")
    _attachment(t, "task_reminder", hook["uuid"], "[]")
    _swap_last_two(t)
    for turn in range(12):
        call = t.assistant(tool=("Bash", {"command": f"step {turn}"}), msg_id=f"msg_ooo_{turn}")
        t.tool_result(call, f"ok {turn}")
        t.assistant(f"step {turn} done", msg_id=f"msg_ooo_{turn}_b")
        t.user(f"next {turn}")
    t.assistant("all done", msg_id="msg_ooo_end")
    return t

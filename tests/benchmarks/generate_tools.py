"""Generated homes of the other tools the benchmark imports (Codex, Gemini CLI, LangGraph, Cline, Aider,
OpenHands, Agents SDK), deterministic from a seed; shapes follow shared/corpus/FORMATS.md §2–6. The
LangGraph and Agents SDK ones are written by those tools' own libraries."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from pathlib import Path

import orjson

from .generate import WORDS, _tool_size


def generate_codex(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """A Codex home of about `total_bytes`: `sessions/YYYY/MM/DD/rollout-*.jsonl` with turns of prompts,
    reasoning, function calls and outputs of every size, echoes and cumulative token counts (FORMATS.md §2)."""
    rng = random.Random(seed)
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    written = files = 0
    while written < total_bytes:
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        clock = start + dt.timedelta(hours=files)
        day = root / "sessions" / f"{clock:%Y}" / f"{clock:%m}" / f"{clock:%d}"
        day.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 150_000), 30_000_000, total_bytes - written + 2_000)
        size, totals = 0, [0, 0]
        with open(day / f"rollout-{clock:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl", "wb") as fh:
            def put(type_: str, payload: dict) -> None:
                nonlocal size, clock
                clock += dt.timedelta(seconds=rng.randint(1, 30))
                data = orjson.dumps({"timestamp": clock.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                                     "type": type_, "payload": payload}) + b"\n"
                fh.write(data)
                size += len(data)

            def text(n: int) -> str:
                return " ".join(rng.choice(WORDS) for _ in range(n))
            put("session_meta", {"id": sid, "cwd": "/home/dev/src/app", "originator": "codex_cli_rs",
                                 "cli_version": "0.104.0", "git": {"branch": "main"}})
            while size < target:
                put("turn_context", {"cwd": "/home/dev/src/app", "model": "gpt-5.3-codex"})
                prompt = text(rng.randint(5, 60))
                put("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
                put("event_msg", {"type": "user_message", "message": prompt})
                for _ in range(rng.randint(1, 6)):
                    put("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": text(20)}],
                                          "encrypted_content": "gAAA" + "x" * rng.randint(100, 2000)})
                    cid = f"call_{rng.getrandbits(48):012x}"
                    put("response_item", {"type": "function_call", "name": "exec_command", "call_id": cid,
                                          "arguments": orjson.dumps({"cmd": text(4)}).decode()})
                    n = _tool_size(rng)
                    put("response_item", {"type": "function_call_output", "call_id": cid,
                                          "output": text(max(1, n // 7))[:n]})
                    totals = [totals[0] + rng.randint(2000, 20000), totals[1] + rng.randint(20, 800)]
                    usage = {"input_tokens": totals[0], "cached_input_tokens": 0, "output_tokens": totals[1]}
                    put("event_msg", {"type": "token_count", "info": {"total_token_usage": usage}})
                reply = text(rng.randint(10, 120))
                put("response_item", {"type": "message", "role": "assistant",
                                      "content": [{"type": "output_text", "text": reply}]})
                put("event_msg", {"type": "agent_message", "message": reply})
        written += size
        files += 1
    return {"bytes": written, "files": files}


def generate_gemini(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """A Gemini CLI home of about `total_bytes`: `tmp/<project>/chats/session-*.jsonl` with prompts,
    replies with thoughts and tool calls, each reply appended again once its calls finish (FORMATS.md §3)."""
    rng = random.Random(seed)
    written = files = 0
    while written < total_bytes:
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        folder = root / "tmp" / f"project{files % 7}" / "chats"
        folder.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 150_000), 30_000_000, total_bytes - written + 2_000)
        size = 0
        with open(folder / f"session-2026-01-01T00-00-{sid[:8]}.jsonl", "wb") as fh:
            def put(obj: dict) -> None:
                nonlocal size
                data = orjson.dumps(obj) + b"\n"
                fh.write(data)
                size += len(data)

            def text(n: int) -> str:
                return " ".join(rng.choice(WORDS) for _ in range(n))
            put({"sessionId": sid, "projectHash": f"{rng.getrandbits(64):016x}", "startTime": "2026-01-01T00:00:00Z",
                 "lastUpdated": "2026-01-01T00:00:00Z", "kind": "main"})
            while size < target:
                put({"id": str(uuid.UUID(int=rng.getrandbits(128))), "timestamp": "2026-01-01T00:00:01Z", "type": "user",
                     "content": [{"text": text(rng.randint(5, 60))}]})
                mid = str(uuid.UUID(int=rng.getrandbits(128)))
                calls = [{"id": f"c{rng.getrandbits(32):08x}", "name": "run_shell_command", "args": {"command": text(4)},
                          "status": "executing"} for _ in range(rng.randint(0, 4))]
                reply = {"id": mid, "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": text(rng.randint(10, 120)),
                         "model": "gemini-2.5-pro", "thoughts": [{"subject": "Plan", "description": text(20)}],
                         "tokens": {"input": rng.randint(1000, 9000), "output": rng.randint(10, 900), "thoughts": 50},
                         "toolCalls": calls}
                put(reply)
                if calls:
                    for c in calls:
                        n = _tool_size(rng)
                        output = {"output": text(max(1, n // 7))[:n]}
                        c.update(status="success", result=[{"functionResponse": {"id": c["id"], "name": c["name"],
                                                                                 "response": output}}])
                    put(reply)  # appended again, whole, once its calls finished
        written += size
        files += 1
    return {"bytes": written, "files": files}


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def generate_langgraph(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """A LangGraph SqliteSaver database of about `total_bytes`, written by a real compiled graph (an agent
    node calling a tool node, plain Python): threads of up to 12 turns, each checkpoint holding the whole
    conversation as langgraph keeps it (FORMATS.md §5)."""
    import sqlite3
    from typing import Annotated, TypedDict

    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import add_messages

    rng = random.Random(seed)

    # the functional form: this module's annotations are strings, which langgraph cannot resolve in a function
    State = TypedDict("State", {"messages": Annotated[list, add_messages], "notes": list}, total=False)

    def agent(state) -> dict:
        if isinstance(state["messages"][-1], HumanMessage) and rng.random() < 0.7:
            calls = [{"name": "search", "args": {"q": _words(rng, 4)}, "id": f"call_{rng.getrandbits(40):010x}"}
                     for _ in range(rng.randint(1, 3))]
            return {"messages": [AIMessage(_words(rng, rng.randint(5, 40)), tool_calls=calls,
                                           usage_metadata={"input_tokens": rng.randint(500, 9000),
                                                           "output_tokens": rng.randint(10, 500), "total_tokens": 0})]}
        return {"messages": [AIMessage(_words(rng, rng.randint(20, 200)),
                                       usage_metadata={"input_tokens": rng.randint(500, 9000),
                                                       "output_tokens": rng.randint(10, 500), "total_tokens": 0})],
                "notes": (state.get("notes") or []) + [_words(rng, 3)]}

    def tools(state) -> dict:
        return {"messages": [ToolMessage(_words(rng, max(1, _tool_size(rng) // 7))[:20_000], tool_call_id=c["id"])
                             for c in state["messages"][-1].tool_calls]}

    g = StateGraph(State)
    g.add_node("agent", agent)
    g.add_node("tools", tools)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", lambda s: "tools" if s["messages"][-1].tool_calls else END, ["tools", END])
    g.add_edge("tools", "agent")
    root.mkdir(parents=True, exist_ok=True)
    db = root / "checkpoints.sqlite"
    con = sqlite3.connect(db, check_same_thread=False)
    app = g.compile(checkpointer=SqliteSaver(con))
    threads = 0
    while db.stat().st_size + (Path(f"{db}-wal").stat().st_size if Path(f"{db}-wal").exists() else 0) < total_bytes:
        config = {"configurable": {"thread_id": f"thread-{threads}"}}
        for _ in range(rng.randint(2, 12)):
            app.invoke({"messages": [HumanMessage(_words(rng, rng.randint(5, 60)))]}, config)
        threads += 1
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return {"bytes": db.stat().st_size, "files": 1, "threads": threads}


def generate_cline(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """Cline task folders of about `total_bytes`: the API conversation (thinking, tool calls, results as
    user text), the UI log with each request's tokens, the task metadata (FORMATS.md §6)."""
    import json
    rng = random.Random(seed)
    written = files = 0
    while written < total_bytes:
        folder = root / f"{1_760_000_000_000 + files * 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        api = [{"role": "user", "content": [{"type": "text", "text": f"<task>\n{_words(rng, 30)}\n</task>"}]}]
        ui = [{"ts": 1_760_000_000_000, "type": "say", "say": "text", "text": _words(rng, 30)}]
        size, ts = 0, 1_760_000_000_000
        while size < target:
            tid = f"toolu_{rng.getrandbits(60):015x}"
            api.append({"role": "assistant", "content": [
                {"type": "thinking", "thinking": _words(rng, 40), "signature": "sig"},
                {"type": "tool_use", "id": tid, "name": "read_file", "input": {"path": f"src/{_words(rng, 1)}.py"}}],
                "modelInfo": {"modelId": "claude-sonnet-4-5", "providerId": "anthropic", "mode": "act"},
                "metrics": {"tokens": {"prompt": 10, "completion": rng.randint(50, 800), "cached": rng.randint(1000, 90000)}}})
            out = _words(rng, max(1, _tool_size(rng) // 7))
            env = "<environment_details>\n# Files\n</environment_details>"
            api.append({"role": "user", "content": [{"type": "text", "text": f"[read_file for 'x.py'] Result:\n{out}"},
                                                    {"type": "text", "text": env}]})
            ts += rng.randint(1000, 30000)
            ui.append({"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 10, "tokensOut": 100})})
            size += len(out) + 600
        for name, doc in (("api_conversation_history.json", api), ("ui_messages.json", ui),
                          ("task_metadata.json", {"files_in_context": [{"path": "src/a.py", "record_state": "active"}]})):
            data = orjson.dumps(doc)
            (folder / name).write_bytes(data)
            written += len(data)
        files += 3
    return {"bytes": written, "files": files}


def generate_aider(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """Repositories with `.aider.chat.history.md` of about `total_bytes` in all: runs of prompts, replies
    with SEARCH/REPLACE blocks, and aider's `>` output with tokens, applied edits and commits."""
    rng = random.Random(seed)
    written = files = 0
    while written < total_bytes:
        repo = root / f"repo{files}"
        repo.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        parts: list[str] = []
        size = 0
        while size < target:
            run = [f"\n# aider chat started at 2026-01-{rng.randint(1, 28):02d} 10:00:00\n\n> aider --model gpt-4o  \n"
                   "> Model: gpt-4o with diff edit format  \n"]
            for _ in range(rng.randint(1, 20)):
                body = _words(rng, max(1, _tool_size(rng) // 7))
                run.append(f"\n#### {_words(rng, rng.randint(5, 40))}  \n\n{_words(rng, 30)}\n\nsrc/a.py\n```python\n"
                           f"<<<<<<< SEARCH\n{body[:2000]}\n=======\n{body[:2000]}!\n>>>>>>> REPLACE\n```\n\n"
                           f"> Tokens: {rng.randint(1, 90)},{rng.randint(100, 999)} sent, {rng.randint(10, 900)} received. "
                           "Cost: $0.01 message, $0.02 session.  \n> Applied edit to src/a.py  \n"
                           f"> Commit {rng.getrandbits(28):07x} feat: {_words(rng, 4)}  \n")
            text = "".join(run)
            parts.append(text)
            size += len(text.encode())
        (repo / ".aider.chat.history.md").write_text("".join(parts))
        written += size
        files += 1
    return {"bytes": written, "files": files}


def generate_openhands(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """OpenHands trajectories (`.json` arrays of events) of about `total_bytes`: a user message, then
    actions with their LiteLLM responses and the observations that answer them by `cause`."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    written = files = 0
    while written < total_bytes:
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        events = [{"id": 0, "timestamp": "2026-01-01T00:00:00", "source": "user", "message": _words(rng, 30),
                   "action": "message", "args": {"content": _words(rng, 30)}}]
        size = 0
        while size < target:
            n = len(events)
            meta = {"function_name": "execute_bash", "tool_call_id": f"toolu_{rng.getrandbits(60):015x}",
                    "model_response": {"id": f"chatcmpl-{rng.getrandbits(60):015x}",
                                       "usage": {"prompt_tokens": rng.randint(1000, 9000),
                                                 "completion_tokens": rng.randint(10, 500)}}}
            cmd = _words(rng, 4)
            out = _words(rng, max(1, _tool_size(rng) // 7))
            events.append({"id": n, "timestamp": "2026-01-01T00:00:01", "source": "agent", "message": f"Running {cmd}",
                           "action": "run", "args": {"command": cmd, "thought": _words(rng, 20)},
                           "tool_call_metadata": meta})
            events.append({"id": n + 1, "timestamp": "2026-01-01T00:00:02", "source": "agent", "cause": n,
                           "observation": "run", "content": out, "message": "Command executed",
                           "extras": {"metadata": {"exit_code": 0}}})
            size += len(out) + 400
        data = orjson.dumps(events)
        (root / f"trajectory-{files}.json").write_bytes(data)
        written += len(data)
        files += 1
    return {"bytes": written, "files": files}


def generate_agents_sdk(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """An Agents SDK session database of about `total_bytes`, written by openai-agents' own SQLiteSession:
    sessions of prompts, function calls and their outputs, replies (Responses API items, FORMATS.md §4)."""
    import asyncio

    from agents import SQLiteSession

    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    db = root / "conversations.db"
    written = sessions = 0
    while written < total_bytes:
        session = SQLiteSession(f"user_{sessions}", str(db))
        items: list[dict] = []
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        size = 0
        while size < target:
            cid = f"call_{rng.getrandbits(60):015x}"
            out = _words(rng, max(1, _tool_size(rng) // 7))
            items += [{"role": "user", "content": _words(rng, rng.randint(5, 60))},
                      {"type": "function_call", "call_id": cid, "name": "search", "id": f"fc_{cid}",
                       "arguments": orjson.dumps({"q": _words(rng, 4)}).decode()},
                      {"type": "function_call_output", "call_id": cid, "output": out},
                      {"id": f"msg_{cid}", "type": "message", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": _words(rng, rng.randint(10, 120)), "annotations": []}]}]
            size += len(out) + 600
        asyncio.run(session.add_items(items))
        session.close()
        written += size
        sessions += 1
    return {"bytes": db.stat().st_size, "files": 1, "sessions": sessions}

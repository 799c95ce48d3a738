"""Generated homes of the tools added with the sources issue (#36), deterministic from a seed, each in its
tool's own layout and shape (shared/corpus/FORMATS.md §7–15): the same conversations (prompts, thinking,
tool calls of every size with their results, replies, tokens) written out as each tool writes them."""

from __future__ import annotations

import json
import random
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson

from .generate import WORDS, _tool_size


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _turns(rng: random.Random, target: int) -> Iterator[dict]:
    """Turns of about `target` bytes in all: {prompt, steps: [(thinking, call id, tool, args, output)], reply, tokens}."""
    size = 0
    while size < target:
        steps = []
        for _ in range(rng.randint(1, 6)):
            out = _words(rng, max(1, _tool_size(rng) // 7))
            steps.append((_words(rng, 20), f"call_{rng.getrandbits(48):012x}", rng.choice(("read_file", "bash", "grep")),
                          {"path": f"src/{rng.choice(WORDS)}.py", "command": _words(rng, 3)}, out))
            size += len(out) + 300
        turn = {"prompt": _words(rng, rng.randint(5, 60)), "steps": steps, "reply": _words(rng, rng.randint(10, 120)),
                "tokens": (rng.randint(100, 5000), rng.randint(20, 800), rng.randint(1000, 90000))}
        size += len(turn["prompt"]) + len(turn["reply"])
        yield turn


def _sessions(root: Path, total_bytes: int, seed: int, write) -> dict:
    rng = random.Random(seed)
    written = n = 0
    while written < total_bytes:
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        written += write(root, n, list(_turns(rng, target)), rng)
        n += 1
    return {"bytes": written, "files": sum(1 for p in root.rglob("*") if p.is_file())}


def _put(path: Path, data: bytes) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def generate_qwen_code(root: Path, total_bytes: int, seed: int = 7) -> dict:
    def write(root, n, turns, rng):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        lines, parent, i = [], None, 0
        base = {"sessionId": sid, "cwd": "/home/dev/app", "version": "0.14.2"}

        def rec(**kw):
            nonlocal parent, i
            i += 1
            uid = f"{sid[:24]}{i:012d}"
            lines.append(orjson.dumps({**base, "uuid": uid, "parentUuid": parent,
                                       "timestamp": f"2026-04-07T02:{i // 60 % 60:02d}:{i % 60:02d}Z", **kw}))
            parent = uid
        for t in turns:
            rec(type="user", message={"role": "user", "parts": [{"text": t["prompt"]}]})
            for think, cid, tool, args, out in t["steps"]:
                rec(type="assistant", model="qwen3-coder", message={"role": "model", "parts": [
                    {"text": think, "thought": True}, {"functionCall": {"id": cid, "name": tool, "args": args}}]},
                    usageMetadata={"promptTokenCount": t["tokens"][0] + t["tokens"][2],
                                   "cachedContentTokenCount": t["tokens"][2], "candidatesTokenCount": t["tokens"][1]})
                rec(type="tool_result", message={"role": "user", "parts": [
                    {"functionResponse": {"id": cid, "name": tool, "response": {"output": out}}}]},
                    toolCallResult={"callId": cid, "status": "success"})
            rec(type="assistant", model="qwen3-coder", message={"role": "model", "parts": [{"text": t["reply"]}]})
        return _put(root / "projects" / f"-home-dev-app{n % 20}" / "chats" / f"{sid}.jsonl", b"\n".join(lines) + b"\n")
    return _sessions(root, total_bytes, seed, write)


def generate_cursor(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """Cursor's 2025+ split storage: a workspace database listing its composers, the global one their bodies."""
    user = root / "User"
    glob = user / "globalStorage" / "state.vscdb"
    glob.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(glob)
    con.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    heads = []

    def write(root, n, turns, rng):
        cid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        headers, rows, size = [], [], 0
        for k, t in enumerate(turns):
            bubbles = [{"_v": 3, "type": 1, "bubbleId": f"{cid}-{k}-u", "text": t["prompt"]}]
            for j, (think, call, tool, args, out) in enumerate(t["steps"]):
                bubbles.append({"_v": 3, "type": 2, "bubbleId": f"{cid}-{k}-{j}", "thinking": {"text": think},
                                "toolFormerData": {"toolCallId": call, "name": tool, "rawArgs": json.dumps(args),
                                                   "status": "completed", "result": json.dumps({"output": out})},
                                "tokenCount": {"inputTokens": t["tokens"][0], "outputTokens": t["tokens"][1]}})
            bubbles.append({"_v": 3, "type": 2, "bubbleId": f"{cid}-{k}-r", "text": t["reply"]})
            for b in bubbles:
                data = orjson.dumps(b)
                rows.append((f"bubbleId:{cid}:{b['bubbleId']}", data))
                headers.append({"bubbleId": b["bubbleId"], "type": b["type"]})
                size += len(data)
        rows.append((f"composerData:{cid}", orjson.dumps({"_v": 10, "composerId": cid, "name": _words(rng, 4),
                                                          "createdAt": 1_766_000_000_000 + n * 60_000,
                                                          "fullConversationHeadersOnly": headers})))
        con.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
        heads.append({"type": "head", "composerId": cid})
        return size
    info = _sessions(root, total_bytes, seed, write)
    con.commit()
    con.close()
    ws = user / "workspaceStorage" / "a1b2c3" / "state.vscdb"
    ws.parent.mkdir(parents=True)
    (ws.parent / "workspace.json").write_text(json.dumps({"folder": "file:///home/dev/app"}))
    wcon = sqlite3.connect(ws)
    wcon.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    wcon.execute("INSERT INTO ItemTable VALUES ('composer.composerData', ?)", (json.dumps({"allComposers": heads}),))
    wcon.commit()
    wcon.close()
    return {"bytes": sum(p.stat().st_size for p in root.rglob("*") if p.is_file()), "files": info["files"]}


def generate_copilot(root: Path, total_bytes: int, seed: int = 7) -> dict:
    def write(root, n, turns, rng):
        requests = []
        for k, t in enumerate(turns):
            response = [{"kind": "thinking", "value": t["steps"][0][0]}]
            for think, call, tool, args, out in t["steps"]:
                response.append({"kind": "toolInvocationSerialized", "toolId": tool, "toolCallId": call,
                                 "invocationMessage": {"value": f"Running {tool}"}, "pastTenseMessage": {"value": out},
                                 "isComplete": True, "toolSpecificData": args})
            response.append({"kind": "markdownContent", "content": {"value": t["reply"]}})
            requests.append({"requestId": f"r{k}", "message": {"text": t["prompt"], "parts": []}, "response": response,
                             "modelId": "copilot/claude-sonnet-4.5", "timestamp": 1_760_000_000_000 + k * 1000,
                             "result": {"metadata": {"promptTokens": t["tokens"][0], "outputTokens": t["tokens"][1]}}})
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        doc = {"version": 3, "sessionId": sid, "creationDate": 1_760_000_000_000, "requesterUsername": "dev",
               "requests": requests}
        return _put(root / "workspaceStorage" / f"ws{n % 10}" / "chatSessions" / f"{sid}.json", orjson.dumps(doc))
    return _sessions(root, total_bytes, seed, write)


def _crush_db(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY, version_id INTEGER, is_applied INTEGER, tstamp TEXT);
        CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER,
            prompt_tokens INTEGER, completion_tokens INTEGER, cost REAL, updated_at INTEGER, created_at INTEGER,
            summary_message_id TEXT);
        CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts TEXT, model TEXT,
            created_at INTEGER, updated_at INTEGER, finished_at INTEGER, provider TEXT);""")
    return con


def generate_crush(root: Path, total_bytes: int, seed: int = 7) -> dict:
    cons: dict[int, sqlite3.Connection] = {}

    def write(root, n, turns, rng):
        con = cons.get(n % 10) or cons.setdefault(n % 10, _crush_db(root / f"project{n % 10}" / ".crush" / "crush.db"))
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        rows, size, ts = [], 0, 1_754_000_000 + n * 100
        fin = {"type": "finish", "data": {"reason": "stop", "time": ts}}
        for t in turns:
            rows.append(("user", [{"type": "text", "data": {"text": t["prompt"]}}, fin]))
            for think, call, tool, args, out in t["steps"]:
                rows.append(("assistant", [{"type": "reasoning", "data": {"thinking": think}},
                                           {"type": "tool_call", "data": {"id": call, "name": tool, "input": json.dumps(args),
                                                                          "finished": True}}, fin]))
                rows.append(("tool", [{"type": "tool_result", "data": {"tool_call_id": call, "name": tool, "content": out,
                                                                       "is_error": False}}, fin]))
            rows.append(("assistant", [{"type": "text", "data": {"text": t["reply"]}}, fin]))
        data = [(f"{sid}-{i}", sid, role, json.dumps(parts), "claude-sonnet-4-5", ts + i, ts + i, ts + i, "anthropic")
                for i, (role, parts) in enumerate(rows)]
        con.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", data)
        con.execute("INSERT INTO sessions VALUES (?, NULL, ?, ?, ?, ?, 0.1, ?, ?, NULL)",
                    (sid, _words(rng, 4), len(rows), sum(t["tokens"][0] for t in turns),
                     sum(t["tokens"][1] for t in turns), ts + len(rows), ts))
        con.commit()
        size += sum(len(d[3]) for d in data)
        return size
    info = _sessions(root, total_bytes, seed, write)
    for con in cons.values():
        con.close()
    return info


def generate_amp(root: Path, total_bytes: int, seed: int = 7) -> dict:
    def write(root, n, turns, rng):
        tid = f"T-{uuid.UUID(int=rng.getrandbits(128), version=4)}"
        messages, mid = [], 0
        for t in turns:
            messages.append({"role": "user", "messageId": mid, "content": [{"type": "text", "text": t["prompt"]}],
                             "meta": {"sentAt": 1_761_596_306_663 + mid * 1000}})
            mid += 1
            for think, call, tool, args, out in t["steps"]:
                messages.append({"role": "assistant", "messageId": mid, "content": [
                    {"type": "thinking", "thinking": think, "signature": "sig"},
                    {"type": "tool_use", "id": call, "name": tool, "input": args}],
                    "usage": {"model": "claude-sonnet-4-5-20250929", "inputTokens": t["tokens"][0],
                              "outputTokens": t["tokens"][1], "cacheReadInputTokens": t["tokens"][2]}})
                messages.append({"role": "user", "messageId": mid + 1, "content": [
                    {"type": "tool_result", "toolUseID": call, "run": {"status": "done", "result": out}}]})
                mid += 2
            messages.append({"role": "assistant", "messageId": mid, "content": [{"type": "text", "text": t["reply"]}]})
            mid += 1
        doc = {"v": mid, "id": tid, "created": 1_761_596_306_663, "title": _words(rng, 4), "agentMode": "smart",
               "messages": messages, "env": {"initial": {"trees": [{"uri": "file:///home/dev/app"}]}}}
        return _put(root / "threads" / f"{tid}.json", orjson.dumps(doc))
    return _sessions(root, total_bytes, seed, write)


def generate_chatgpt(root: Path, total_bytes: int, seed: int = 7) -> dict:
    convs = []

    def write(root, n, turns, rng):
        mapping, parent, k = {"root": {"id": "root", "message": None, "parent": None, "children": []}}, "root", 0
        size = 0
        for t in turns:
            for role, text, recipient in [("user", t["prompt"], "all")] + \
                    [x for s in t["steps"] for x in (("assistant", json.dumps(s[3]), "browser"), ("tool", s[4], "all"))] + \
                    [("assistant", t["reply"], "all")]:
                k += 1
                nid = f"n{n}-{k}"
                mapping[nid] = {"id": nid, "parent": parent, "children": [], "message": {
                    "id": nid, "author": {"role": role}, "create_time": 1_700_000_000 + k, "recipient": recipient,
                    "content": {"content_type": "text", "parts": [text]}, "metadata": {"model_slug": "gpt-4o"}}}
                mapping[parent]["children"].append(nid)
                parent = nid
                size += len(text) + 200
        convs.append({"id": f"conv-{n}", "title": _words(rng, 4), "create_time": 1_700_000_000, "mapping": mapping,
                      "current_node": parent})
        return size
    _sessions(root, total_bytes, seed, write)
    written = _put(root / "conversations.json", orjson.dumps(convs))
    return {"bytes": written, "files": 1}


def generate_continue(root: Path, total_bytes: int, seed: int = 7) -> dict:
    def write(root, n, turns, rng):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        history = []
        for k, t in enumerate(turns):
            history.append({"message": {"id": f"{k}u", "role": "user", "content": t["prompt"]}, "contextItems": []})
            for think, call, tool, args, out in t["steps"]:
                history.append({"message": {"id": f"{call}c", "role": "assistant", "content": think, "toolCalls": [
                    {"id": call, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]},
                    "toolCallStates": [{"toolCallId": call, "status": "done"}]})
                history.append({"message": {"id": f"{call}r", "role": "tool", "toolCallId": call, "content": out}})
            history.append({"message": {"id": f"{k}a", "role": "assistant", "content": t["reply"]},
                            "promptLogs": [{"modelTitle": "claude-sonnet-4-5"}]})
        doc = {"sessionId": sid, "title": _words(rng, 4), "workspaceDirectory": "/home/dev/app", "mode": "agent",
               "history": history}
        return _put(root / "sessions" / f"{sid}.json", orjson.dumps(doc))
    return _sessions(root, total_bytes, seed, write)


def generate_kimi(root: Path, total_bytes: int, seed: int = 7) -> dict:
    def write(root, n, turns, rng):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        lines, ts = [{"type": "metadata", "protocol_version": "1.3"}], 1_772_590_682.0

        def put(kind, payload):
            nonlocal ts
            ts += 1.5
            lines.append({"timestamp": ts, "message": {"type": kind, "payload": payload}})
        for t in turns:
            put("TurnBegin", {"user_input": [{"type": "text", "text": t["prompt"]}]})
            for think, call, tool, args, out in t["steps"]:
                put("ContentPart", {"type": "think", "think": think})
                put("ToolCall", {"type": "function", "id": call, "function": {"name": tool, "arguments": json.dumps(args)}})
                put("ToolResult", {"tool_call_id": call, "return_value": {"is_error": False, "output": out}})
                put("StatusUpdate", {"token_usage": {"input_other": t["tokens"][0], "output": t["tokens"][1],
                                                     "input_cache_read": t["tokens"][2]}})
            put("ContentPart", {"type": "text", "text": t["reply"]})
            put("TurnEnd", {})
        data = b"".join(orjson.dumps(x) + b"\n" for x in lines)
        return _put(root / "sessions" / f"{n % 20:032x}" / sid / "wire.jsonl", data)
    return _sessions(root, total_bytes, seed, write)


def generate_opencode(root: Path, total_bytes: int, seed: int = 7) -> dict:
    storage = root / "storage"

    def write(root, n, turns, rng):
        sid = f"ses_{rng.getrandbits(64):016x}"
        size = _put(storage / "session" / "proj" / f"{sid}.json", orjson.dumps({
            "id": sid, "version": "1.3.17", "projectID": "proj", "directory": "/home/dev/app", "title": _words(rng, 4),
            "time": {"created": 1_730_000_000_000 + n * 1000, "updated": 1_730_000_000_000 + n * 1000}}))
        k = 0
        for t in turns:
            for role, parts, extra in [("user", [{"type": "text", "text": t["prompt"]}], {})] + \
                    [("assistant", [{"type": "reasoning", "text": s[0]},
                                    {"type": "tool", "callID": s[1], "tool": s[2],
                                     "state": {"status": "completed", "input": s[3], "output": s[4]}}],
                      {"modelID": "gpt-5", "tokens": {"input": t["tokens"][0], "output": t["tokens"][1],
                                                      "cache": {"read": t["tokens"][2]}}}) for s in t["steps"]] + \
                    [("assistant", [{"type": "text", "text": t["reply"]}], {"modelID": "gpt-5"})]:
                k += 1
                mid = f"msg_{sid}_{k:05d}"
                size += _put(storage / "message" / sid / f"{mid}.json", orjson.dumps(
                    {"id": mid, "sessionID": sid, "role": role, "time": {"created": 1_730_000_000_000 + k}, **extra}))
                for j, p in enumerate(parts):
                    size += _put(storage / "part" / mid / f"prt_{j:03d}.json",
                                 orjson.dumps({"id": f"prt_{mid}_{j}", "sessionID": sid, "messageID": mid, **p}))
        return size
    return _sessions(root, total_bytes, seed, write)


def generate_zed(root: Path, total_bytes: int, seed: int = 7) -> dict:
    import zstandard
    db = root / "threads" / "threads.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, "
                "data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, "
                "folder_paths_order TEXT, created_at TEXT)")
    z = zstandard.ZstdCompressor()

    def write(root, n, turns, rng):
        messages, usage = [], {}
        for k, t in enumerate(turns):
            uid = f"u{n}-{k}"
            messages.append({"User": {"id": uid, "content": [{"Text": t["prompt"]}]}})
            content, results = [], {}
            for think, call, tool, args, out in t["steps"]:
                content += [{"Thinking": {"text": think}}, {"ToolUse": {"id": call, "name": tool, "input": args}}]
                results[call] = {"tool_use_id": call, "tool_name": tool, "is_error": False, "output": out}
            content.append({"Text": t["reply"]})
            messages.append({"Agent": {"content": content, "tool_results": results}})
            usage[uid] = {"input_tokens": t["tokens"][0], "output_tokens": t["tokens"][1],
                          "cache_read_input_tokens": t["tokens"][2]}
        raw = orjson.dumps({"version": "0.3.0", "title": _words(rng, 4), "messages": messages,
                            "request_token_usage": usage, "model": {"provider": "anthropic", "model": "claude-sonnet-4-5"}})
        con.execute("INSERT INTO threads VALUES (?, ?, '2026-02-06T02:10:31Z', 'zstd', ?, NULL, '/home/dev/app', NULL, "
                    "'2026-02-06T02:00:00Z')", (f"t{n}", _words(rng, 4), z.compress(raw)))
        con.commit()
        return len(raw)
    info = _sessions(root, total_bytes, seed, write)
    con.close()
    return info  # the threads' JSON before zstd (the database is about a fifth of it)


def generate_copilot_cli(root: Path, total_bytes: int, seed: int = 7) -> dict:
    def write(root, n, turns, rng):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        lines, k = [], 0

        def ev(kind, data):
            nonlocal k
            k += 1
            lines.append(orjson.dumps({"type": kind, "data": data, "id": f"{sid}-{k}",
                                       "timestamp": f"2026-04-23T17:{k // 60 % 60:02d}:{k % 60:02d}Z",
                                       "parentId": f"{sid}-{k - 1}" if k > 1 else None}))
        ev("session.start", {"sessionId": sid, "context": {"cwd": "/home/dev/app"}, "selectedModel": "claude-sonnet-4.6"})
        for t in turns:
            ev("user.message", {"content": t["prompt"]})
            for think, call, tool, args, out in t["steps"]:
                ev("assistant.message", {"content": "", "reasoningText": think, "outputTokens": t["tokens"][1],
                                         "toolRequests": [{"toolCallId": call, "name": tool, "arguments": args}]})
                ev("tool.execution_complete", {"toolCallId": call, "success": True, "result": {"content": out}})
            ev("assistant.message", {"content": t["reply"]})
        return _put(root / "session-state" / sid / "events.jsonl", b"\n".join(lines) + b"\n")
    return _sessions(root, total_bytes, seed, write)


def generate_pi(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """pi's sessions: a header, then entries in a parentId chain (text, thinking, toolCall; toolResult; usage)."""
    def write(root, n, turns, rng):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        lines = [orjson.dumps({"type": "session", "version": 3, "id": sid, "timestamp": "2026-05-12T01:02:27Z",
                               "cwd": f"/home/dev/app{n % 20}"})]
        parent, i = None, 0

        def entry(**kw):
            nonlocal parent, i
            i += 1
            eid = f"{i:08x}"
            lines.append(orjson.dumps({"id": eid, "parentId": parent,
                                       "timestamp": f"2026-05-12T02:{i // 60 % 60:02d}:{i % 60:02d}Z", **kw}))
            parent = eid
        for t in turns:
            entry(type="message", message={"role": "user", "content": [{"type": "text", "text": t["prompt"]}]})
            for think, cid, tool, args, out in t["steps"]:
                entry(type="message", message={"role": "assistant", "model": "claude-sonnet-4-5", "content": [
                    {"type": "thinking", "thinking": think}, {"type": "toolCall", "id": cid, "name": tool,
                                                              "arguments": args}],
                    "usage": {"input": t["tokens"][0], "output": t["tokens"][1], "cacheRead": t["tokens"][2],
                              "cacheWrite": 0}})
                entry(type="message", message={"role": "toolResult", "toolCallId": cid, "toolName": tool,
                                               "content": [{"type": "text", "text": out}], "isError": False})
            entry(type="message", message={"role": "assistant", "content": [{"type": "text", "text": t["reply"]}]})
        return _put(root / "sessions" / f"--home-dev-app{n % 20}--" / f"2026-05-12T01-02-27-000Z_{sid}.jsonl",
                    b"\n".join(lines) + b"\n")
    return _sessions(root, total_bytes, seed, write)


def generate_factory_droid(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """Factory Droid's session store: a session_start line, then Claude-like messages in a parentId chain."""
    def write(root, n, turns, rng):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        lines = [orjson.dumps({"type": "session_start", "id": sid, "title": _words(rng, 5), "cwd": "/home/dev/app",
                               "owner": "dev", "version": "0.81.0"})]
        parent, i = sid, 0

        def message(role, content):
            nonlocal parent, i
            i += 1
            mid = f"m{i}"
            lines.append(orjson.dumps({"type": "message", "id": mid, "parentId": parent,
                                       "timestamp": f"2026-05-12T02:{i // 60 % 60:02d}:{i % 60:02d}Z",
                                       "message": {"role": role, "content": content}}))
            parent = mid
        for t in turns:
            message("user", [{"type": "text", "text": t["prompt"]}])
            for think, cid, tool, args, out in t["steps"]:
                message("assistant", [{"type": "text", "text": think}, {"type": "tool_use", "id": cid, "name": tool,
                                                                        "input": args}])
                message("user", [{"type": "tool_result", "tool_use_id": cid, "content": out}])
            message("assistant", [{"type": "text", "text": t["reply"]}])
        return _put(root / "sessions" / f"{sid}.jsonl", b"\n".join(lines) + b"\n")
    return _sessions(root, total_bytes, seed, write)

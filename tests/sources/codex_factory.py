"""Builds Codex CLI rollout lines in the shapes FORMATS.md §2 describes (no Python library writes them)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson

BASE = dt.datetime(2026, 2, 23, 12, 0, tzinfo=dt.timezone.utc)


class Rollout:
    def __init__(self, session_id: str, cwd: str = "/work/app", forked_from: str | None = None):
        self.session_id, self.cwd = session_id, cwd
        self.lines: list[dict] = []
        self.clock = BASE
        self.totals = [0, 0]
        meta = {"id": session_id, "timestamp": self._ts(), "cwd": cwd, "originator": "codex_cli_rs",
                "cli_version": "0.104.0", "source": "cli", "model_provider": "openai",
                "git": {"branch": "main", "commit_hash": "abc", "repository_url": "https://example.invalid/r"}}
        if forked_from:
            meta["forked_from_id"] = forked_from
        self.add("session_meta", meta)

    def _ts(self) -> str:
        self.clock += dt.timedelta(seconds=3)
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def add(self, type_: str, payload: dict) -> dict:
        line = {"timestamp": self._ts(), "type": type_, "payload": payload}
        self.lines.append(line)
        return line

    def turn(self, prompt: str, reply: str, call: tuple[str, str, str] | None = None, tokens=(1000, 50)) -> None:
        """A prompt (with the context Codex injects first), reasoning, an optional call and its output, a reply."""
        self.add("turn_context", {"turn_id": f"t{len(self.lines)}", "cwd": self.cwd, "model": "gpt-5.3-codex"})
        if not any(x["type"] == "response_item" for x in self.lines):
            self.add("response_item", {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n</environment_context>"}]})
        self.add("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        self.add("event_msg", {"type": "user_message", "message": prompt})
        self.add("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Thinking**"}],
                                   "content": None, "encrypted_content": "gAAA"})
        if call:
            name, args, output = call
            cid = f"call_{len(self.lines)}"
            kind = "custom_tool_call" if name == "apply_patch" else "function_call"
            body = {"input": args} if kind == "custom_tool_call" else {"arguments": args}
            self.add("response_item", {"type": kind, "name": name, "call_id": cid, **body})
            self.add("response_item", {"type": f"{kind}_output", "call_id": cid, "output": output})
        self.add("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": reply}]})
        self.add("event_msg", {"type": "agent_message", "message": reply})
        self.totals = [self.totals[0] + tokens[0], self.totals[1] + tokens[1]]
        usage = {"input_tokens": self.totals[0], "cached_input_tokens": 0, "output_tokens": self.totals[1],
                 "reasoning_output_tokens": 0, "total_tokens": sum(self.totals)}
        self.add("event_msg", {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}})

    def text(self) -> str:
        return "".join(orjson.dumps(x).decode() + "\n" for x in self.lines)

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-2026-02-23T12-00-00-{self.session_id}.jsonl"
        path.write_text(self.text(), encoding="utf-8")
        return path

"""A native session's tool calls and results, in the shape the tool-outcome and vital-sign tests append them."""

from __future__ import annotations


def call(store, sid, call_id, name, args, ts):
    return store.append(sid, "tool_call", role="assistant", text=f"{name} {args}", ts=ts,
                        payload={"id": call_id, "name": name, "input": args})


def result(store, sid, call_id, output, ts, error=False):
    return store.append(sid, "tool_result", role="tool", text=output, ts=ts,
                        payload={"tool_use_id": call_id, "output": output, "is_error": error})

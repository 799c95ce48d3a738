"""The per-session hash chain: hash = sha256(previous hash ‖ canonical event).

The chain follows append order (`seq`), not the tree, so a rewind or a branch
never reorders it. The first event of a session chains from the empty string.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

# The fields that define an event. depth is derived from the tree; pk and hash are
# storage details.
CANONICAL_FIELDS = (
    "id", "session_id", "parent_id", "seq", "ts", "kind", "role", "text", "payload",
    "tokens_in", "tokens_out", "sidechain", "agent_id",
)


def canonical(event: Mapping[str, Any]) -> bytes:
    """The event's defining fields as compact JSON with sorted keys."""
    fields = {f: event[f] for f in CANONICAL_FIELDS}
    fields["sidechain"] = bool(fields["sidechain"])
    return orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)


def link(previous_hash: str, event: Mapping[str, Any]) -> str:
    """The hash of `event` chained to `previous_hash`."""
    h = hashlib.sha256(previous_hash.encode("ascii"))
    h.update(b"\n")
    h.update(canonical(event))
    return h.hexdigest()


def first_break(events: Iterable[Mapping[str, Any]], expected_last: str | None = None):
    """Walk events in seq order; return (checked, broken event or None, reason)."""
    previous, checked, expected_seq = "", 0, 1
    last = None
    for ev in events:
        if ev["seq"] != expected_seq:
            return checked, ev, f"seq {ev['seq']} follows {expected_seq - 1}: events are missing before it"
        if link(previous, ev) != ev["hash"]:
            return checked, ev, "its content or its predecessor no longer matches its hash"
        previous, expected_seq, last = ev["hash"], expected_seq + 1, ev
        checked += 1
    if expected_last is not None and previous != expected_last:
        return checked, last, "the session's last recorded hash differs: events were removed from the end"
    return checked, None, ""

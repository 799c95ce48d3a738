"""What every tool's line conversion shares: timestamps, and durable facts extracted as events."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import orjson

from sessionscope.store.incoming import NewEvent, name_id


def parse_ts(value: Any) -> float | None:
    """An ISO-8601 time (with `Z` or an offset) as a Unix time; None when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def add_fact(events: list[NewEvent], seen: dict[str, Any], ns: uuid.UUID, anchor: str, ts: float,
             key: str, value: Any) -> None:
    """A `fact.set` event under `anchor`, unless the fact already has that value in this run; its id
    is derived from the anchor, key and value, so importing the same line again adds nothing."""
    if seen.get(key, object()) == value:
        return
    seen[key] = value
    body = orjson.dumps(value).decode()
    events.append(NewEvent(id=name_id(ns, f"{anchor}:fact:{key}:{body[:200]}"), parent_id=anchor, ts=ts,
                           kind="fact.set", role="extracted", text=f"{key} = {body[:500]}",
                           payload=orjson.dumps({"key": key, "value": value}).decode(), activity=False))

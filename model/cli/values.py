"""What the command line's option values are read as: times, JSON, a fact's value (sessionscope.cli.grammar)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import time
from typing import Any


def parse_time(text: str) -> float:
    """ISO 8601, epoch seconds, or an age like 30m, 2h, 7d (that long ago)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([smhdw])", text.strip())
    if m:
        unit = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
        return time.time() - float(m.group(1)) * unit
    try:
        return float(text)
    except ValueError:
        pass
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a time: {text!r} (use ISO 8601, epoch seconds or 2h/3d)") from None
    if stamp.tzinfo is None:
        stamp = stamp.astimezone()
    return stamp.timestamp()


def json_arg(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc}") from None


def json_or_text(text: str) -> Any:
    """A fact value: JSON when it parses as JSON, the plain string otherwise."""
    try:
        return json.loads(text)
    except ValueError:
        return text

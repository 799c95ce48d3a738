"""A reply's tokens split by kind, their prices, and the calendar they are counted in: the parts of the usage figures
that need no database (sessionscope.insight.usage folds and reports them through the store; the status line reads
them through the quick reader, without SQLAlchemy).

Prices come from `genai-prices` (Pydantic's maintained table: per model and token kind, with the providers' cache
prices and dated price changes); a model it does not know has no cost. The prices looked up are kept in a small
file beside the user's caches, named by the table installed, so a process that needs a few prices does not import
the table (0.2 s).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import orjson

KINDS = ("input", "output", "cache_read", "cache_write")


def _load(payload: str) -> Any:
    if not payload or payload[0] != "{":
        return None
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None


def split(payload: str, tokens_in: int, tokens_out: int) -> tuple[str, int, int, int, int]:
    """(model, input, output, cache_read, cache_write) of one event; the parts sum to its tokens."""
    p = _load(payload) if ('usage' in payload or '"tokens"' in payload or '"model"' in payload) else None
    model, read, write = "", 0, 0
    if isinstance(p, dict):
        msg: Any = p.get("message") if isinstance(p.get("message"), dict) else None
        usage = msg.get("usage") if msg and isinstance(msg.get("usage"), dict) else None
        if usage is not None:  # Claude Code, Anthropic
            model = str(msg.get("model") or "")
            read = int(usage.get("cache_read_input_tokens") or 0)
            write = int(usage.get("cache_creation_input_tokens") or 0)
        elif isinstance(p.get("tokens"), dict):  # Gemini CLI, and the tools read as documents (documents.Transcript)
            model = str(p.get("model") or "")
            read = int(p["tokens"].get("cached") or 0)
            write = int(p["tokens"].get("cache_write") or 0)
        else:
            inner: Any = p.get("payload") if isinstance(p.get("payload"), dict) else p
            info: Any = inner.get("info") if isinstance(inner.get("info"), dict) else None
            last = info.get("last_token_usage") if info else None
            if isinstance(last, dict):  # Codex CLI
                read = int(last.get("cached_input_tokens") or 0)
                model = str(info.get("model") or "")
            elif isinstance(inner.get("model"), str):
                model = inner["model"]
    if not tokens_in or read + write > tokens_in:  # a later line of a reply counted already, or an odd split
        read = write = 0
    return model if model != "<synthetic>" else "", tokens_in - read - write, tokens_out, read, write


_prices: dict[tuple[str, str], tuple[float, ...] | None] = {}
_kept: dict[str, Any] | None = None  # the prices looked up before, as the price file keeps them


def unit_prices(model: str, day: str = "") -> tuple[float, float, float, float] | None:
    """Dollars per token of input, output, cache read and cache write for `model` (None: not priced)."""
    key = (model, day[:7])
    if key not in _prices:
        _prices[key] = _remembered(model, day)
    return _prices[key]  # type: ignore[return-value]


def _price_file():
    from pathlib import Path

    import platformdirs
    return Path(platformdirs.user_cache_dir("sessionscope", appauthor=False)) / "prices.json"


_REFS = "refs 2"  # how a name is looked up (price_refs): kept prices from another way of looking are stale too


def _table_stamp() -> str:
    """Which price table is installed (its file's path and time) and how it is asked: a new genai-prices, or a new
    `price_refs`, makes the kept prices stale."""
    import importlib.util
    import os
    spec = importlib.util.find_spec("genai_prices")
    origin = spec.origin if spec and spec.origin else ""
    try:
        return f"{origin}:{os.stat(origin).st_mtime_ns}:{_REFS}"
    except OSError:
        return f"{origin}:{_REFS}"


def _remembered(model: str, day: str):
    """A model's prices for a month, from the price file the last lookups left (importing the price table takes
    0.2 s: the status line answers every few seconds, in well under that), else looked up and kept there."""
    global _kept
    name = f"{model}|{day[:7]}"
    if _kept is None:
        try:
            _kept = orjson.loads(_price_file().read_bytes())
            if not isinstance(_kept, dict) or _kept.get("table") != _table_stamp() \
                    or not isinstance(_kept.get("prices"), dict):
                _kept = None
        except (OSError, orjson.JSONDecodeError):
            _kept = None
        if _kept is None:
            _kept = {"table": _table_stamp(), "prices": {}}
    known = _kept["prices"].get(name, False)
    if known is not False and (known is None or (isinstance(known, list) and len(known) == 4)):
        return None if known is None else tuple(float(x) for x in known)
    found = _lookup(model, day)
    if len(name) <= MAX_NAME and len(_kept["prices"]) < MAX_KEPT:  # (model names are the transcripts' words: bounded)
        _kept["prices"][name] = None if found is None else list(found)
        _keep_at_exit()
    return found


MAX_NAME, MAX_KEPT = 200, 2_000
_saving = False


def _keep_at_exit() -> None:
    """The prices looked up are written once, as the process ends (a report over many models looks up hundreds)."""
    global _saving
    if not _saving:
        import atexit
        _saving = True
        atexit.register(_save)


def _save() -> None:
    import os
    path = _price_file()
    try:  # (written whole and renamed: a status line reading it meanwhile sees the old file or the new)
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f"{path.name}.{os.getpid()}")
        scratch.write_bytes(orjson.dumps(_kept))
        os.replace(scratch, path)
    except (OSError, TypeError):
        pass  # a cache: looked up again next time


def _lookup(model: str, day: str):
    if not model or len(model) > MAX_NAME:  # (a transcript's word: no model is named in 200 characters)
        return None
    from genai_prices import Usage, calc_price  # 0.2 s to import: only when a cost is asked for
    when = dt.datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc) if day else None
    # per token, measured on a small request: a long-context tier (Sonnet over 200k tokens of prompt) applies per
    # request, which a day's sum no longer knows; the base tier is what most requests pay
    m = 1000
    kinds = ({"input_tokens": m}, {"output_tokens": m}, {"input_tokens": m, "cache_read_tokens": m},
             {"input_tokens": m, "cache_write_tokens": m})
    for ref, provider in price_refs(model):
        try:
            return tuple(float(calc_price(Usage(**kw), ref, provider_id=provider,
                                          genai_request_timestamp=when).total_price) / m for kw in kinds)
        except (LookupError, ValueError):
            continue
    return None


# OpenCode (Go)'s model ids name their provider before a dot ("copilot.gpt-4o", "bedrock.claude-3.7-sonnet")
_VENDORS = frozenset({"anthropic", "azure", "bedrock", "copilot", "gemini", "groq", "openai", "openrouter", "vertexai",
                      "xai"})
_EFFORT = re.compile(r"\s*\([^()]*\)\s*$")  # "Gemini 3.5 Flash (Medium)": the reasoning effort a picker adds


def price_refs(model: str) -> list[tuple[str, str | None]]:
    """The names to ask the price table for a model named as a tool wrote it, in turn (name, provider): as written;
    a router's "vendor/model" (OpenRouter's, as Cline, Kilo and aider write them; LiteLLM's "openrouter/vendor/model")
    in OpenRouter's catalogue, which knows its ":free" models; the model after a vendor's or a front end's prefix
    ("copilot/gpt-4o", OpenCode (Go)'s "copilot.gpt-4o"); a name as a model picker shows it ("Gemini 2.5 Flash
    (High)" → gemini-2.5-flash)."""
    refs: list[tuple[str, str | None]] = [(model, None)]
    name = model.strip()
    routed = name.lower().startswith("openrouter/")
    if routed:
        name = name[len("openrouter/"):]
    if routed or "/" in name:
        refs.append((name, "openrouter"))
    if "/" in name:
        refs.append((name.rsplit("/", 1)[1], None))
    vendor, dot, rest = name.partition(".")
    if dot and vendor.lower() in _VENDORS:
        refs.append((rest, None))
    shown = _EFFORT.sub("", name)
    if " " in shown:
        refs.append(("-".join(shown.lower().split()), None))
    return [r for i, r in enumerate(refs) if r[0] and r not in refs[:i]]


def cost(model: str, day: str, parts) -> float | None:
    prices = unit_prices(model, day)
    return None if prices is None else sum(n * p for n, p in zip(parts, prices))



def bucket_of(day: str, by: str) -> str:
    if by == "week":
        d = dt.date.fromisoformat(day)
        return (d - dt.timedelta(days=d.weekday())).isoformat()  # the week's Monday
    if by == "month":
        return day[:8] + "01"  # the month's first day
    return day

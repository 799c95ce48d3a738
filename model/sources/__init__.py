"""The tools Sessionscope reads: one package each under model/sources/, registered here.

A tool's package exposes `SOURCE`, a model.sources.base.Source with the tool's
operations. Everything else (the store's helpers, the CLI, the app) asks `of(kind)`
and never names a tool. Adding a tool: its package, and one line below.
"""

from __future__ import annotations

import importlib

from .base import NATIVE, Source

_REGISTRY = {
    "claude_code": "model.sources.claude_code.source",
    "codex": "model.sources.codex.source",
    "gemini": "model.sources.gemini.source",
    "agents_sdk": "model.sources.agents_sdk.source",
    "langgraph": "model.sources.langgraph.source",
    "cline": "model.sources.cline.source",
    "aider": "model.sources.aider.source",
    "openhands": "model.sources.openhands.source",
}


def of(kind: str | None) -> Source:
    """The operations of a session's source (the store's own for native and unknown kinds)."""
    module = _REGISTRY.get(kind or "")
    return importlib.import_module(module).SOURCE if module else NATIVE


def tools() -> list[Source]:
    """Every registered tool's source."""
    return [of(kind) for kind in _REGISTRY]


def session_source(store, session_id: str) -> Source:
    return of(store.session(session_id).source_kind)

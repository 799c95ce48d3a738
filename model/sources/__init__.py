"""The tools Sessionscope reads: one package each under model/sources/, registered here.

A tool's package exposes `SOURCE`, a sessionscope.sources.base.Source with the tool's
operations. Everything else (the store's helpers, the CLI, the app) asks `of(kind)`
and never names a tool. Adding a tool: its package, and one line below.
"""

from __future__ import annotations

import importlib

from sessionscope.sources.base import NATIVE, Source

_REGISTRY = {
    "claude_code": "sessionscope.sources.claude_code.source",
    "claude_cowork": "sessionscope.sources.claude_cowork.source",
    "qoder": "sessionscope.sources.qoder.source",
    "codex": "sessionscope.sources.codex.source",
    "traex": "sessionscope.sources.traex.source",
    "gemini": "sessionscope.sources.gemini.source",
    "agents_sdk": "sessionscope.sources.agents_sdk.source",
    "langgraph": "sessionscope.sources.langgraph.source",
    "cline": "sessionscope.sources.cline.source",
    "roo_code": "sessionscope.sources.roo_code.source",
    "kilo_code": "sessionscope.sources.kilo_code.source",
    "aider": "sessionscope.sources.aider.source",
    "openhands": "sessionscope.sources.openhands.source",
    "managed_agents": "sessionscope.sources.managed_agents.source",
    "qwen_code": "sessionscope.sources.qwen_code.source",
    "cursor": "sessionscope.sources.cursor.source",
    "copilot": "sessionscope.sources.copilot.source",
    "crush": "sessionscope.sources.crush.source",
    "continue_dev": "sessionscope.sources.continue_dev.source",
    "amp": "sessionscope.sources.amp.source",
    "zed": "sessionscope.sources.zed.source",
    "goose": "sessionscope.sources.goose.source",
    "chatgpt": "sessionscope.sources.chatgpt.source",
    "claude_ai": "sessionscope.sources.claude_ai.source",
    "kimi": "sessionscope.sources.kimi.source",
    "opencode": "sessionscope.sources.opencode.source",
    "openai_hosted": "sessionscope.sources.openai_hosted.source",
    "pi": "sessionscope.sources.pi.source",
    "factory_droid": "sessionscope.sources.factory_droid.source",
    "grok": "sessionscope.sources.grok.source",
    "gptme": "sessionscope.sources.gptme.source",
    "hermes": "sessionscope.sources.hermes.source",
    "mistral_vibe": "sessionscope.sources.mistral_vibe.source",
    "antigravity": "sessionscope.sources.antigravity.source",
    "posit_assistant": "sessionscope.sources.posit_assistant.source",
    "qwenpaw": "sessionscope.sources.qwenpaw.source",
    "kiro": "sessionscope.sources.kiro.source",
    "warp": "sessionscope.sources.warp.source",
    "deepseek_tui": "sessionscope.sources.deepseek_tui.source",
    "devin": "sessionscope.sources.devin.source",
    "junie": "sessionscope.sources.junie.source",
}


def of(kind: str | None) -> Source:
    """The operations of a session's source (the store's own for native and unknown kinds)."""
    module = _REGISTRY.get(kind or "")
    return importlib.import_module(module).SOURCE if module else NATIVE


def loaded(kind: str | None) -> bool:
    """Whether `of(kind)` answers without importing the tool's package (the window's first page, listed before
    SQLAlchemy is imported, must not wait for it)."""
    import sys
    module = _REGISTRY.get(kind or "")
    return module is None or module in sys.modules


def kinds() -> list[str]:
    return ["native", *_REGISTRY]


def tools() -> list[Source]:
    """Every registered tool's source."""
    return [of(kind) for kind in _REGISTRY]


def with_workspaces() -> list[Source]:
    """The tools whose sessions live behind an API, in workspaces a user adds."""
    return [src for src in tools() if src.workspaces is not None]


def export_formats():
    """The tools' own formats an export can write (sessionscope.sources.base.ToolFormat)."""
    return [f for src in tools() for f in src.export_formats]


def session_source(store, session_id: str) -> Source:
    return of(store.session(session_id).source_kind)

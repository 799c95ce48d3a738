"""The Session tab: what a session is, as a person asks it (where it came from, its state, what it
cost), and for a managed-agent session what the API says: status, usage with cache reads and writes,
run time, and its resources (files, memory stores, repositories)."""

from __future__ import annotations

import html

from sessionscope.untrusted import printable

from .session_model import tokens_text, when


def _row(label: str, value) -> str:
    return f"<tr><td style='color:#666;padding-right:12px'>{html.escape(label)}</td><td>{value}</td></tr>" \
        if value not in (None, "", [], {}) else ""


def _resource(r: dict) -> str:
    t = r.get("type")
    if t == "file":
        return f"file <code>{html.escape(str(r.get('mount_path', '')))}</code> ({html.escape(str(r.get('file_id', '')))})"
    if t == "memory_store":
        access = " read only" if r.get("access") == "read_only" else ""
        return (f"memory store <b>{html.escape(str(r.get('name') or r.get('memory_store_id', '')))}</b>{access} "
                f"<code>{html.escape(str(r.get('mount_path') or ''))}</code>")
    if t == "github_repository":
        checkout = r.get("checkout") if isinstance(r.get("checkout"), dict) else {}
        at = checkout.get("name") or checkout.get("sha") or ""
        return (f"repository {html.escape(str(r.get('url', '')))}{' @ ' + html.escape(str(at)) if at else ''} "
                f"<code>{html.escape(str(r.get('mount_path', '')))}</code>")
    return html.escape(str(t))


def _seconds(v) -> str:
    if not isinstance(v, (int, float)):
        return ""
    return f"{v / 60:.1f} min" if v >= 90 else f"{v:.1f} s"


def session_html(s) -> str:
    if s is None:
        return ""
    meta = s.meta if isinstance(s.meta, dict) else {}
    rows = [
        _row("Title", html.escape(printable(s.title or "(untitled)"))),  # a bidi override shown, not obeyed
        _row("Source", html.escape(s.source_kind.replace("_", " "))),
        _row("Status", f"<b>{html.escape(s.status)}</b>"),
        _row("Id", f"<code>{html.escape(s.id)}</code>"),
        _row("Tool's id", f"<code>{html.escape(s.tool_id)}</code>" if s.tool_id and s.tool_id != s.id else ""),
        _row("Project", html.escape(s.project)), _row("Folder", html.escape(s.cwd)),
        _row("Git branch", html.escape(s.git_branch)), _row("Model", html.escape(s.model)),
        _row("Agent", html.escape(s.agent)),
        _row("Started", when(s.created_at)), _row("Last activity", when(s.updated_at)),
        _row("Events", f"{s.event_count:,}"),
        _row("Tokens", f"{tokens_text(s.tokens_in)} in, {tokens_text(s.tokens_out)} out"
             if s.tokens_in or s.tokens_out else ""),
        _row("Tags", html.escape(", ".join(s.tags)) if s.tags else ""),
        _row("Forked from", f"<code>{html.escape(s.forked_from_session)}</code>" if s.forked_from_session else ""),
    ]
    out = f"<table>{''.join(rows)}</table>"
    managed = meta.get("managed")
    if isinstance(managed, dict):
        out += _managed_html(managed)
    return out


def _managed_html(m: dict) -> str:
    usage = m.get("usage") or {}
    cache = usage.get("cache_creation") if isinstance(usage.get("cache_creation"), dict) else {}
    writes = sum(int(v or 0) for v in cache.values() if isinstance(v, (int, float))) if cache else \
        int(usage.get("cache_creation_input_tokens") or 0)
    cost = usage.get("list_cost") if isinstance(usage.get("list_cost"), dict) else None
    stats = m.get("stats") or {}
    agent = m.get("agent") or {}
    gone = m.get("gone_at")
    rows = [
        _row("API status", f"<b>{html.escape(str(m.get('status') or ''))}</b>"
             + (" · archived" if m.get("archived_at") else "")),
        _row("At Anthropic", f"<span style='color:#c62828'>deleted (noticed {when(gone)}): this is the copy kept "
                             "here</span>" if gone else ""),
        _row("Agent", html.escape(f"{agent.get('name') or ''} v{agent.get('version')}".strip())
             + (" · multi-agent" if agent.get("multiagent") else "") if agent.get("name") else ""),
        _row("Input tokens", f"{int(usage.get('input_tokens') or 0):,}" if usage else ""),
        _row("Output tokens", f"{int(usage.get('output_tokens') or 0):,}" if usage else ""),
        _row("Cache reads", f"{int(usage.get('cache_read_input_tokens') or 0):,}" if usage else ""),
        _row("Cache writes", f"{writes:,}" if usage else ""),
        _row("List cost", html.escape(f"{cost.get('amount')} {cost.get('currency', '')}") if cost else ""),
        _row("Active time", _seconds(usage.get("active_seconds") or stats.get("active_seconds"))),
        _row("Duration", _seconds(stats.get("duration_seconds"))),
        _row("Environment", f"<code>{html.escape(str(m.get('environment_id') or ''))}</code>"
             if m.get("environment_id") else ""),
        _row("Metadata", html.escape(", ".join(f"{k}={v}" for k, v in (m.get("metadata") or {}).items()))),
    ]
    resources = m.get("resources") or []
    listed = "".join(f"<li>{_resource(r)}</li>" for r in resources if isinstance(r, dict))
    return ("<h4 style='margin-bottom:2px'>Managed agent</h4>"
            f"<table>{''.join(rows)}</table>"
            + (f"<h4 style='margin-bottom:2px'>Resources</h4><ul style='margin-top:0'>{listed}</ul>" if listed else
               "<p style='color:#666'>No resources mounted.</p>"))

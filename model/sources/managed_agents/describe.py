"""A managed-agent session as the API describes it (its `meta["managed"]`): the Session tab's section, the
list's tooltip, and whether the session is only the copy kept here."""

from __future__ import annotations

from sessionscope.sources.describe import Line, Section, moment, seconds


def managed(session) -> dict:
    meta = session.meta if isinstance(session.meta, dict) else {}
    m = meta.get("managed")
    return m if isinstance(m, dict) else {}


def gone(session) -> str:
    """Why the session is only the copy kept here ("" while it is still at Anthropic)."""
    return "deleted at Anthropic: this is the copy kept here" if managed(session).get("gone_at") else ""


def summary(session) -> str:
    """Its state at Anthropic in a few lines: status, usage, resources."""
    m = managed(session)
    if not m:
        return ""
    u = m.get("usage") or {}
    names = []
    for r in m.get("resources") or []:
        if isinstance(r, dict):
            where = r.get("name") or r.get("url") or r.get("mount_path") or r.get("type")
            names.append(f"{r.get('type', '').replace('_', ' ')} {str(where).rstrip('/').rsplit('/', 1)[-1]}")
    lines = [f"{m.get('status') or '?'} at Anthropic" + (" · archived" if m.get("archived_at") else "")
             + (" · deleted there, kept here" if m.get("gone_at") else "")]
    if u:
        lines.append(f"{int(u.get('input_tokens') or 0):,} in, {int(u.get('cache_read_input_tokens') or 0):,} cache "
                     f"reads, {int(u.get('output_tokens') or 0):,} out")
    lines.append(f"resources: {', '.join(names)}" if names else "no resources")
    return "\n".join(lines)


def _resource(r: dict) -> Line:
    t = r.get("type")
    if t == "file":
        return Line("file", f"{r.get('mount_path', '')} ({r.get('file_id', '')})", "code")
    if t == "memory_store":
        access = " read only" if r.get("access") == "read_only" else ""
        return Line("memory store", f"{r.get('name') or r.get('memory_store_id', '')}{access} {r.get('mount_path') or ''}")
    if t == "github_repository":
        checkout = r.get("checkout") if isinstance(r.get("checkout"), dict) else {}
        at = checkout.get("name") or checkout.get("sha") or ""
        return Line("repository", f"{r.get('url', '')}{' @ ' + str(at) if at else ''} {r.get('mount_path', '')}")
    return Line(str(t), "")


def describe(session) -> list[Section]:
    m = managed(session)
    if not m:
        return []
    usage = m.get("usage") or {}
    cache = usage.get("cache_creation") if isinstance(usage.get("cache_creation"), dict) else {}
    writes = sum(int(v or 0) for v in cache.values() if isinstance(v, (int, float))) if cache else \
        int(usage.get("cache_creation_input_tokens") or 0)
    cost = usage.get("list_cost") if isinstance(usage.get("list_cost"), dict) else None
    stats = m.get("stats") or {}
    agent = m.get("agent") or {}
    gone_at = m.get("gone_at")
    lines = (
        Line("API status", f"{m.get('status') or ''}" + (" · archived" if m.get("archived_at") else ""), "strong"),
        Line("At Anthropic", f"deleted (noticed {moment(gone_at)}): this is the copy kept here" if gone_at else "",
             "warning"),
        Line("Agent", f"{agent.get('name') or ''} v{agent.get('version')}".strip()
             + (" · multi-agent" if agent.get("multiagent") else "") if agent.get("name") else ""),
        Line("Input tokens", f"{int(usage.get('input_tokens') or 0):,}" if usage else ""),
        Line("Output tokens", f"{int(usage.get('output_tokens') or 0):,}" if usage else ""),
        Line("Cache reads", f"{int(usage.get('cache_read_input_tokens') or 0):,}" if usage else ""),
        Line("Cache writes", f"{writes:,}" if usage else ""),
        Line("List cost", f"{cost.get('amount')} {cost.get('currency', '')}" if cost else ""),
        Line("Active time", seconds(usage.get("active_seconds") or stats.get("active_seconds"))),
        Line("Duration", seconds(stats.get("duration_seconds"))),
        Line("Environment", str(m.get("environment_id") or ""), "code"),
        Line("Metadata", ", ".join(f"{k}={v}" for k, v in (m.get("metadata") or {}).items())),
    )
    resources = tuple(_resource(r) for r in m.get("resources") or [] if isinstance(r, dict))
    return [Section("Managed agent", lines, resources, "Resources", "No resources mounted.")]

"""An OpenAI hosted session as the API describes it (its `meta["openai"]`): the Session tab's section, the list's
tooltip, what it waits for (its required actions), and whether the session is only the copy kept here."""

from __future__ import annotations

from sessionscope.sources.describe import Line, Section, moment


def hosted(session) -> dict:
    meta = session.meta if isinstance(session.meta, dict) else {}
    m = meta.get("openai")
    return m if isinstance(m, dict) else {}


def gone(session) -> str:
    """Why the session is only the copy kept here ("" while it is still at OpenAI)."""
    return "deleted at OpenAI: this is the copy kept here" if hosted(session).get("gone_at") else ""


def action_text(a: dict) -> str:
    """One required action in words: what the session waits for you to do."""
    t = a.get("type")
    request = a.get("request") if isinstance(a.get("request"), dict) else {}
    if t == "mcp_approval_request":
        return f"approve the MCP call {request.get('server_label') or ''}/{request.get('name') or ''}".rstrip("/")
    if t == "function_call":
        return f"run the function {a.get('name') or ''} and send its result"
    if t == "computer_use_approval_request":
        if request.get("type") == "browser_origin_access":
            return f"allow the browser to open {request.get('origin') or ''}"
        return f"sign in for the browser{': ' + request['reason'] if isinstance(request.get('reason'), str) else ''}"
    if t == "environment_connection":
        return f"reconnect the environment {a.get('environment_id') or ''}".strip()
    return str(t or "an action this Sessionscope does not know")


def waits_for(session) -> str:
    """What the session waits for at OpenAI ("" when nothing)."""
    m = hosted(session)
    if m.get("status") != "requires_action" or m.get("gone_at"):
        return ""
    actions = [action_text(a) for a in m.get("required_actions") or [] if isinstance(a, dict)]
    return "; ".join(actions) or "an action"


def _tokens(u: dict) -> str:
    details = u.get("input_tokens_details") if isinstance(u.get("input_tokens_details"), dict) else {}
    return (f"{int(u.get('input_tokens') or 0):,} in ({int(details.get('cached_tokens') or 0):,} cached), "
            f"{int(u.get('output_tokens') or 0):,} out")


def summary(session) -> str:
    m = hosted(session)
    if not m:
        return ""
    u = m.get("usage") if isinstance(m.get("usage"), dict) else {}
    lines = [f"{m.get('status') or '?'} at OpenAI" + (" · deleted there, kept here" if m.get("gone_at") else "")]
    if waits_for(session):
        lines.append(f"waits for you to {waits_for(session)}")
    if u:
        lines.append(_tokens(u))
    return "\n".join(lines)


def describe(session) -> list[Section]:
    m = hosted(session)
    if not m:
        return []
    u = m.get("usage") if isinstance(m.get("usage"), dict) else {}
    out_details = u.get("output_tokens_details") if isinstance(u.get("output_tokens_details"), dict) else {}
    agent = m.get("agent") or {}
    env = m.get("environment") or {}
    gone_at = m.get("gone_at")
    subagents = ((m.get("pull") or {}).get("subagents") or {})
    lines = (
        Line("API status", str(m.get("status") or ""), "strong"),
        Line("Waits for you", waits_for(session), "warning"),
        Line("Error", str(m.get("error") or ""), "warning"),
        Line("At OpenAI", f"deleted (noticed {moment(gone_at)}): this is the copy kept here" if gone_at else "", "warning"),
        Line("Agent", " · ".join(str(x) for x in (agent.get("name"), agent.get("id")) if x)
             + (" · multi-agent" if agent.get("multi_agent") else "")),
        Line("Service tier", str(agent.get("service_tier") or "")),
        Line("Tokens", _tokens(u) if u else ""),
        Line("Reasoning tokens", f"{int(out_details.get('reasoning_tokens') or 0):,}" if out_details else ""),
        Line("Environment", " ".join(str(x) for x in (env.get("type"), env.get("id")) if x), "code"),
        Line("Review", str(m.get("review") or "")),
        Line("Metadata", ", ".join(f"{k}={v}" for k, v in (m.get("metadata") or {}).items())),
    )
    subs = tuple(Line(str(v.get("name") or k), f"{v.get('status') or ''}", "code")
                 for k, v in subagents.items() if isinstance(v, dict))
    return [Section("OpenAI hosted agent", lines, subs, "Subagents", "No subagents.")]

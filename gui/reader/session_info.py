"""The Session tab: what a session is, as a person asks it (where it came from, its state, what it
cost), and what its source says of it beyond that (`Source.describe`: a managed agent's status at the
API, usage with cache reads and writes, run time, resources)."""

from __future__ import annotations

import html

from sessionscope import sources
from sessionscope.gui.reader.vitals_strip import tooltip
from sessionscope.gui.sessions.session_model import tokens_text, when
from sessionscope.safety.untrusted import printable


def _row(label: str, value) -> str:
    return f"<tr><td style='color:#666;padding-right:12px'>{html.escape(label)}</td><td>{value}</td></tr>" \
        if value not in (None, "", [], {}) else ""


_STYLES = {"": "{}", "strong": "<b>{}</b>", "code": "<code>{}</code>", "warning": "<span style='color:#c62828'>{}</span>"}


def _line(line) -> str:
    return _row(line.label, _STYLES[line.style].format(html.escape(line.text)) if line.text.strip() else "")


def _section_html(section) -> str:
    """A source's section (sessionscope.sources.describe.Section) as the tab shows it."""
    out = f"<h4 style='margin-bottom:2px'>{html.escape(section.title)}</h4><table>{''.join(map(_line, section.lines))}</table>"
    if section.items:
        listed = "".join(f"<li>{html.escape(i.label)} {_STYLES[i.style].format(html.escape(i.text))}</li>"
                         for i in section.items)
        out += f"<h4 style='margin-bottom:2px'>{html.escape(section.items_title)}</h4><ul style='margin-top:0'>{listed}</ul>"
    elif section.empty:
        out += f"<p style='color:#666'>{html.escape(section.empty)}</p>"
    return out


def vitals_html(signs: list) -> str:
    """The Vital signs section: each sign, what it found and how it is counted; a sign with events links to them."""
    if not signs:
        return ""
    rows = "".join(
        f"<tr><td style='color:#666;padding-right:12px'>{html.escape(g.label)}</td>"
        f"<td><a href='vital:{g.key}' style='text-decoration:none'><span style='color:{'#c62828' if g.alarm else '#202020'}'>"
        f"<b>{html.escape(g.value)}</b></span></a></td></tr>"
        f"<tr><td></td><td style='color:#666'>{html.escape(tooltip(g)).replace(chr(10), '<br>')}</td></tr>"
        for g in signs)
    return f"<h4 style='margin-bottom:2px'>Vital signs</h4><table>{rows}</table>"


def _owner_html(s) -> str:
    """Whose the session is in a team store, whether the team sees it, and what this login may do with it; in a
    store of one's own, whether a sync pushes it (sessionscope.sync)."""
    if not s.owner:  # a store of one's own: whether a sync pushes it (a team copy is pushed to, never from)
        copy = isinstance(s.meta, dict) and isinstance(s.meta.get("synced"), dict)
        return "shared: it goes to the team store at each sync (File ▸ Sync with Team Store)" \
            if s.shared and not copy else ""
    text = html.escape(printable(s.owner))
    text += " · shared with the team" if s.shared else " · not shared"
    return text + (" · yours to change" if s.yours else " · <i>read only for you: its owner or an admin changes it</i>")


def _synced_html(synced) -> str:
    """A team copy a member's sync pushed: from whose store, when, and how much was redacted before it left."""
    if not isinstance(synced, dict) or not synced.get("store"):
        return ""
    red = synced.get("redacted") or {}
    n = int(red.get("occurrences", 0)) + int(red.get("fields", 0))
    return (f"{html.escape(printable(str(synced.get('from', '?'))))}'s store, {when(synced.get('at') or 0)} · "
            + (f"{n:,} secret(s) redacted before it left (its chain is over the redacted events)" if n else
               "nothing needed redacting"))


def session_html(s, signs: list | None = None) -> str:
    """The tab's page; `signs`: the session's vital signs (sessionscope.insight.vitals.signs), once worked out."""
    if s is None:
        return ""
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
        _row("Owner" if s.owner else "Team", _owner_html(s)),  # a team store's (sessionscope.safety.team), or a sync's
        _row("Synced from", _synced_html(s.meta.get("synced"))),
    ]
    out = f"<table>{''.join(rows)}</table>" + vitals_html(signs or [])
    return out + "".join(_section_html(section) for section in sources.of(s.source_kind).describe(s))

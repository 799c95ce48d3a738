"""The commands over the store itself: write a native session, read any session, check, search,
keep. Each is `command(store, args) -> exit code or None` and prints through `output`."""

from __future__ import annotations

import json
import sys

from sessionscope.cli.output import (
    ACTOR,
    EXIT_FAILED,
    EXIT_USAGE,
    error,
    event_json,
    facts_text,
    hit_json,
    one_line,
    out,
    session_table,
    show_text,
    when,
)


def event_in(store, session_id: str, key: str) -> str:
    """The event `key` names in a session: its number as `show` prints it in the first column (its seq), or an
    event id (any prefix)."""
    if key.isdigit():
        found = next(iter(store.events(session_id, from_seq=int(key), to_seq=int(key))), None)
        if found is not None:
            return found.id
    return store.resolve_event(key)


def event_or_head(store, key: str) -> str:
    """An event id, or the head of the session `key` names."""
    from sessionscope.errors import NotFound

    try:
        return store.resolve_event(key)
    except NotFound:
        head = store.session(store.resolve_session(key)).head_event_id
        if head is None:
            raise NotFound(f"session {key} has no events yet") from None
        return head


def new(store, args):
    from sessionscope import ops
    s = ops.open_session(store, title=args.title, agent=args.agent, metadata=args.meta, budget=args.budget,
                         project=args.project, cwd=args.cwd, model=args.model, tags=args.tag, actor=ACTOR).session
    out(args, s.as_dict(), s.id)


def append(store, args):
    from sessionscope import ops
    sid = store.resolve_session(args.session)
    e = ops.append(store, sid, args.kind, role=args.role, text=args.text, payload=args.payload,
                   ts=args.ts, tokens_in=args.tokens_in, tokens_out=args.tokens_out, actor=ACTOR).event
    out(args, event_json(e), f"{e.id}  seq {e.seq}")


def fact(store, args):
    from sessionscope import ops
    sid = store.resolve_session(args.session)
    if args.fact_command == "set":
        e = ops.set_fact(store, sid, args.key, args.value, actor=ACTOR).event
    else:
        e = ops.delete_fact(store, sid, args.key, actor=ACTOR).event
    out(args, event_json(e), f"{e.id}  seq {e.seq}  {e.text}")


def list_sessions(store, args):
    rows = store.sessions(include_archived=args.all, status=args.status, source_kind=args.source,
                          person=args.by, text=args.filter, sort=args.sort, limit=args.limit, starred=args.starred,
                          pinned=args.pinned, tag=args.tag)
    out(args, lambda: [s.as_dict() for s in rows], lambda: session_table(rows, store.short_ids([s.id for s in rows])))


def show(store, args):
    sid = store.resolve_session(args.session)
    s = store.session(sid)
    if args.branch:
        events = store.branch(sid)
    else:
        # a line an event reads only the start of its text: the payloads are fetched for --json, and for --all (a
        # line beside the conversation is said by its payload's type: cli.output._beside)
        events = store.events(sid, from_seq=args.from_seq, to_seq=args.to_seq, since=args.since, until=args.until,
                              brief=not (args.json or args.all))
    twins = store.same_tool_id(s)  # the same tool id from another SDK or tool: said, never merged
    out(args, lambda: {"session": s.as_dict(), "events": [event_json(e) for e in events],
                       "same_tool_id": [t.id for t in twins]},
        lambda: show_text(s, events, args.branch, every=args.all, twins=twins), marks=False)


def facts(store, args):
    at = event_or_head(store, args.event)
    values = store.facts_at(at)
    out(args, {"event": at, "facts": values}, facts_text(values))


def diff(store, args):
    a, b = event_or_head(store, args.a), event_or_head(store, args.b)
    d = store.diff(a, b)
    lines = [f"+ {k} = {json.dumps(v, ensure_ascii=False)}" for k, v in d.added.items()]
    lines += [f"- {k} = {json.dumps(v, ensure_ascii=False)}" for k, v in d.removed.items()]
    lines += [f"~ {k}: {json.dumps(x, ensure_ascii=False)} → {json.dumps(y, ensure_ascii=False)}"
              for k, (x, y) in d.changed.items()]
    out(args, {"a": a, "b": b} | d.as_dict(), "\n".join(lines) or "(no difference)")


def compact(store, args):
    """Through the rule of the session's source, as in the window (a summary of ours would be a line Claude Code,
    Codex or Gemini never wrote: refused for them, and recorded refused)."""
    from sessionscope import ops
    ch = ops.compact(store, store.resolve_session(args.session), args.summary, actor=ACTOR)
    out(args, event_json(ch.event), f"{ch.event.id}  seq {ch.event.seq}")


def _transition(name):
    def command(store, args):
        from sessionscope import ops
        ch = getattr(ops, name)(store, store.resolve_session(args.session), actor=ACTOR)
        out(args, ch.session.as_dict(), f"{ch.session.id[:8]} {ch.detail['from']} → {ch.detail['to']}")
    return command


close = _transition("close")
pause = _transition("pause")
unarchive = _transition("unarchive")


def archive(store, args):
    """Through the session's source: a managed-agent session is archived by the API too."""
    from sessionscope import ops

    sid = store.resolve_session(args.session)
    before = store.session(sid).status
    ch = ops.archive(store, sid, actor=ACTOR)
    out(args, ch.session.as_dict(), f"{sid[:8]} {before} → {ch.session.status}")


def delete(store, args):
    """Through the session's source: a managed-agent session is deleted at Anthropic first, its copy kept
    (events_removed 0); deleting it again removes the copy."""
    from sessionscope import ops, sources
    from sessionscope.history.read_models import Action

    sid = store.resolve_session(args.session)
    s = store.session(sid)
    if not args.yes:
        if not sys.stdin.isatty():
            error(f"deleting {sid} needs --yes when not asked at a terminal")
            return EXIT_USAGE
        answer = input(" ".join(sources.of(s.source_kind).delete_prompt(s).split()) + " [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("not deleted", file=sys.stderr)
            return EXIT_FAILED
    ch = ops.delete(store, sid, remove_files=args.remove_files, actor=ACTOR)
    n = ch.detail.get("events_removed", 0)
    removed = list(ch.files)
    here = ch.action == Action.DELETE
    text = f"deleted {sid} ({n} events)" if here else f"deleted {sid} at Anthropic; the copy is kept here"
    if removed:
        text += "\nremoved " + ", ".join(removed)
    elif here and (left := ops.written_files(store, s)):
        text += "\nleft the transcript Sessionscope wrote: " + ", ".join(map(str, left)) + " (--remove-files removes it)"
    out(args, {"session": sid, "events_removed": n, "files_removed": removed}, text)


def verify(store, args):
    """The store's chains, or an exported .jsonl file's; either way {ok, file, …, sessions: [...]}."""
    from pathlib import Path

    if args.session and Path(args.session).is_file():
        return _verify_file(args, args.session)
    whole = not args.session
    structure = store.integrity() if whole else []  # SQLite's own check of every page first
    reports = store.verify(store.resolve_session(args.session) if args.session else None)
    damaged_blobs = store.verify_blobs() if whole else []
    broken = [r for r in reports if not r.ok]
    from sessionscope.sync.pushing import copies
    with store.reader() as conn:
        synced = {sid: c for sid, c in copies(conn).items() if sid in {r.session_id for r in reports}}
    lines = []
    if structure:
        lines.append(f"the store file is damaged ({len(structure)} problem(s) SQLite found; the first: {structure[0]}); "
                     "sessionscope repair rebuilds a sound store from every readable row")
    lines.append(f"{len(reports)} session(s), {sum(r.checked for r in reports)} events checked: "
                 + ("all chains intact" if not broken else f"{len(broken)} broken"))
    if synced:
        replaced = sum(int((c.get("redacted") or {}).get("occurrences", 0)) for c in synced.values())
        people = sorted({str(c.get("from", "?")) for c in synced.values()})
        lines.append(f"{len(synced)} of them are redacted copies synced from {', '.join(people)}'s store(s): their "
                     f"chains are over the redacted events ({replaced:,} secret(s) replaced in them)")
    for r in broken:
        at = f"at event {r.broken_event_id} (seq {r.broken_seq})" if r.broken_event_id else "in its session row"
        lines.append(f"session {r.session_id}: broken {at}: {r.reason}")
    if whole:
        lines.append(f"kept file contents: {'all match their hashes' if not damaged_blobs else f'{len(damaged_blobs)} damaged'}")
    for b in damaged_blobs:
        lines.append(f"  {b['hash'][:12]}: {b['problem']}" + (f" (a checkpoint of {', '.join(s[:8] for s in b['sessions'])})"
                                                              if b["sessions"] else ""))
    sessions = [{"session_id": r.session_id, "events": r.checked, "ok": r.ok, "broken_event_id": r.broken_event_id,
                 "broken_seq": r.broken_seq, "broken_line": None, "reason": r.reason,
                 "redacted_copy": synced.get(r.session_id)} for r in reports]
    ok = not broken and not structure and not damaged_blobs
    out(args, {"ok": ok, "file": None, "redacted": False, "problem": "; ".join(structure[:3]), "sessions": sessions,
               "blobs": damaged_blobs}, "\n".join(lines))
    return 0 if ok else EXIT_FAILED


def _verify_file(args, path: str) -> int:
    from sessionscope.export.jsonl import verify_file

    result = verify_file(path)
    lines = [f"{path}: " + ("intact" if result.ok else f"BROKEN: {result.problem}")
             + (" (redacted export: its chain was recomputed over the redacted events)" if result.redacted else "")]
    for s in result.sessions:
        lines.append(f"  {s.session_id[:8]}  {s.events:>7} events  " + ("ok" if s.ok else f"broken: {s.reason}"
                     + (f" (event {s.broken_event_id}, line {s.broken_line})" if s.broken_event_id else "")))
    sessions = [{"session_id": s.session_id, "events": s.events, "ok": s.ok, "broken_event_id": s.broken_event_id or None,
                 "broken_seq": None, "broken_line": s.broken_line, "reason": s.reason, "redacted_copy": None}
                for s in result.sessions]
    out(args, {"ok": result.ok, "file": path, "redacted": result.redacted, "problem": result.problem,
               "sessions": sessions, "blobs": []}, "\n".join(lines))
    return 0 if result.ok else EXIT_FAILED


def search(store, args):
    sid = store.resolve_session(args.session) if args.session else None
    hits = store.search(" ".join(args.query), limit=args.limit, session_id=sid, order=args.sort)
    if hits is None:  # the quick reader, while search by meaning is on: the Store ranks by both
        from sessionscope import open_store
        with open_store(args.store) as full:
            hits = full.search(" ".join(args.query), limit=args.limit, session_id=sid, order=args.sort)
    lines = [f"{h.session_id[:8]}  {h.seq:>6}  {h.event_id[:8]}  {h.kind:<10} "
             + ("(by meaning) " if h.match == "meaning" else "") + one_line(h.snippet, 120) for h in hits]
    if hits and hits[0].did_you_mean:  # nothing as typed: what was searched instead, said first
        lines.insert(0, f"(nothing for {' '.join(args.query)!r}; did you mean {hits[0].did_you_mean!r}? "
                        "its hits follow)")
    out(args, [hit_json(h) for h in hits], "\n".join(lines) or "(no matches)")


def mcp(store, args):
    """`sessionscope mcp`: the Model Context Protocol server on stdio, until the client hangs up."""
    import importlib.util

    from sessionscope.errors import MissingExtra
    if importlib.util.find_spec("mcp") is None:
        raise MissingExtra("The MCP server", "mcp", "mcp")
    from sessionscope.recall import mcp_server
    server = mcp_server.build(store, redact=not args.no_redact, allow_write=args.allow_write)
    if args.http is None:
        server.run("stdio")
        return
    import os
    import secrets
    token = os.environ.get("SESSIONSCOPE_MCP_TOKEN") or secrets.token_urlsafe(24)
    if not os.environ.get("SESSIONSCOPE_MCP_TOKEN"):
        print(f"sessionscope mcp: http://127.0.0.1:{args.http}/mcp, with the header Authorization: Bearer {token}",
              file=sys.stderr, flush=True)
    mcp_server.serve_http(server, args.http, token)


def retention(store, args):
    from sessionscope import ops
    from sessionscope.errors import InvalidInput
    from sessionscope.safety.retention import RetentionPolicy

    def days(text, current):
        if text is None:
            return current
        if text.lower() in ("off", "never", "none"):
            return None
        try:
            value = float(text)
        except ValueError:
            raise InvalidInput(f"not a number of days: {text!r} (or 'off')") from None
        if value <= 0:
            raise InvalidInput("days must be more than 0 (or 'off')")
        return value

    policy = store.retention_policy()
    if args.archive_after is not None or args.purge_after is not None:
        policy = RetentionPolicy(days(args.archive_after, policy.archive_after_days),
                                 days(args.purge_after, policy.purge_after_days))
        ops.set_retention(store, policy, actor=ACTOR)
    describe = (f"archive after {policy.archive_after_days or 'never'} idle days; "
                f"purge archived after {policy.purge_after_days or 'never'} days")
    data = {"archive_after_days": policy.archive_after_days, "purge_after_days": policy.purge_after_days,
            "ran": bool(args.run), "dry_run": bool(args.run and args.dry_run),
            "archived": [], "purged": [], "skipped": []}
    if not args.run:
        out(args, data, describe)
        return 0
    result = ops.run_retention(store, dry_run=args.dry_run, actor=ACTOR)
    verb = "would be" if args.dry_run else "were"
    text = [describe, f"{len(result['archived'])} {verb} archived, {len(result['purged'])} {verb} purged, "
                      f"{len(result['skipped'])} skipped"]
    text += [f"  skipped {s['session'][:8]}: {s['why']}" for s in result["skipped"]]
    out(args, data | {k: result[k] for k in ("archived", "purged", "skipped")}, "\n".join(text))


def audit(store, args):
    sid = store.resolve_session(args.session) if args.session else None
    rows = store.audit_log(sid, args.limit)
    lines = [f"{when(r['ts'])}  {r['action']:<16} {r['outcome']:<8} {(r['session_id'] or '')[:8]:<8}  "
             f"{one_line(json.dumps(r['detail'], ensure_ascii=False), 80)}" for r in rows]
    out(args, rows, "\n".join(lines) or "(empty)")


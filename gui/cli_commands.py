"""What each `sessionscope` command does, and how its result is printed."""

from __future__ import annotations

import datetime as dt
import json
import sys
from typing import Any

from .cli import EXIT_FAILED, EXIT_USAGE


def report(exc: BaseException) -> int:
    """One line on stderr for any error; the exit code says which kind."""
    from sessionscope.errors import InvalidInput, NotFound, SessionscopeError

    if isinstance(exc, (NotFound, InvalidInput)):
        code = EXIT_USAGE
    elif isinstance(exc, SessionscopeError):
        code = EXIT_FAILED
    else:
        code = EXIT_FAILED
        exc = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    print(f"sessionscope: error: {exc}", file=sys.stderr)
    return code


def _out(args, data: Any, text: str | None = None) -> None:
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False, default=str))
    elif text is not None:
        print(text)


def _when(ts: float | None) -> str:
    if not ts:
        return "-"
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")


def _one_line(text: str, width: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _event_line(e) -> str:
    who = f"{e.role}" if e.role else ""
    side = " [sidechain]" if e.sidechain else ""
    return f"{e.seq:>6}  {_when(e.ts)}  {e.id[:8]}  {e.kind:<12} {who:<9}{side} {_one_line(e.text)}"


def _event_json(e) -> dict:
    """An event as --json gives it: its payload as JSON (the raw line a tool wrote), not a string of it."""
    d = e.as_dict()
    if isinstance(d.get("payload"), str) and d["payload"][:1] in ("{", "["):
        try:
            d["payload"] = json.loads(d["payload"])
        except ValueError:
            pass  # not JSON after all: kept as the text it is
    return d


def _hit_json(h) -> dict:
    """A search hit as --json gives it: the snippet as plain text and where the matches are in it."""
    from sessionscope.views import MARK_END, MARK_START
    d = h.as_dict()
    plain, matches, i = [], [], 0
    for part in h.snippet.split(MARK_START):
        if MARK_END in part:
            hit, rest = part.split(MARK_END, 1)
            matches.append([i, i + len(hit)])
            plain += [hit, rest]
            i += len(hit) + len(rest)
        else:
            plain.append(part)
            i += len(part)
    d["snippet"], d["matches"] = "".join(plain), matches
    return d


def _session_table(rows, short: dict[str, str] | None = None) -> str:
    """One line a session; ids as short as they can be while naming one session (as git's)."""
    if not rows:
        return "(no sessions)"
    short = short or {s.id: s.id[:8] for s in rows}
    width = max(8, *(len(v) for v in short.values()))
    lines = [f"{'ID':<{width}}  {'STATUS':<9} {'SOURCE':<11} {'LAST ACTIVITY':<19} {'EVENTS':>7} {'TOKENS':>9}  TITLE"]
    for s in rows:
        lines.append(f"{short.get(s.id, s.id[:8]):<{width}}  {s.status:<9} {s.source_kind:<11} {_when(s.updated_at):<19} "
                     f"{s.event_count:>7} {s.tokens_in + s.tokens_out:>9}  {_one_line(s.title or '(untitled)', 60)}")
    return "\n".join(lines)


def _facts_text(facts: dict) -> str:
    if not facts:
        return "(no facts)"
    return "\n".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in sorted(facts.items()))


def _event_or_head(store, key: str) -> str:
    """An event id, or the head of the session `key` names."""
    from sessionscope.errors import NotFound

    try:
        return store.resolve_event(key)
    except NotFound:
        head = store.session(store.resolve_session(key)).head_event_id
        if head is None:
            raise NotFound(f"session {key} has no events yet") from None
        return head


def run(args) -> int:
    from sessionscope import open_store

    with open_store(args.store) as store:
        handler = _HANDLERS[args.command if args.command != "fact" else f"fact.{args.fact_command}"]
        return handler(store, args) or 0


def _new(store, args):
    s = store.open_session(title=args.title, agent=args.agent, metadata=args.meta, budget=args.budget,
                           project=args.project, cwd=args.cwd, model=args.model, tags=args.tag)
    _out(args, s.as_dict(), s.id)


def _append(store, args):
    sid = store.resolve_session(args.session)
    e = store.append(sid, args.kind, role=args.role, text=args.text, payload=args.payload,
                     ts=args.ts, tokens_in=args.tokens_in, tokens_out=args.tokens_out)
    _out(args, _event_json(e), f"{e.id}  seq {e.seq}")


def _fact_set(store, args):
    from .cli import _json_or_text

    e = store.set_fact(store.resolve_session(args.session), args.key, _json_or_text(args.value))
    _out(args, _event_json(e), f"{e.id}  seq {e.seq}  {e.text}")


def _fact_delete(store, args):
    e = store.delete_fact(store.resolve_session(args.session), args.key)
    _out(args, _event_json(e), f"{e.id}  seq {e.seq}  {e.text}")


def _list(store, args):
    rows = store.sessions(include_archived=args.all, status=args.status, source_kind=args.source,
                          text=args.filter, sort=args.sort, limit=args.limit)
    _out(args, [s.as_dict() for s in rows], _session_table(rows, store.short_ids([s.id for s in rows])))


def _show(store, args):
    sid = store.resolve_session(args.session)
    s = store.session(sid)
    if args.branch:
        events = store.branch(sid)
    else:
        events = store.events(sid, from_seq=args.from_seq, to_seq=args.to_seq, since=args.since, until=args.until)
    head = (f"{s.title or '(untitled)'}\n{s.id}  {s.status}  {s.event_count} events  "
            f"head {s.head_event_id[:8] if s.head_event_id else '-'}")
    if s.forked_from_session:
        head += f"  forked from {s.forked_from_session[:8]} at {s.forked_from_event[:8]}"
    body = "\n".join(_event_line(e) for e in events) or "(no events in this range)"
    _out(args, {"session": s.as_dict(), "events": [_event_json(e) for e in events]}, f"{head}\n{body}")


def _facts(store, args):
    facts = store.facts_at(_event_or_head(store, args.event))
    _out(args, facts, _facts_text(facts))


def _diff(store, args):
    d = store.diff(_event_or_head(store, args.a), _event_or_head(store, args.b))
    lines = [f"+ {k} = {json.dumps(v, ensure_ascii=False)}" for k, v in d.added.items()]
    lines += [f"- {k} = {json.dumps(v, ensure_ascii=False)}" for k, v in d.removed.items()]
    lines += [f"~ {k}: {json.dumps(a, ensure_ascii=False)} → {json.dumps(b, ensure_ascii=False)}"
              for k, (a, b) in d.changed.items()]
    _out(args, d.as_dict(), "\n".join(lines) or "(no difference)")


def _source(store, sid):
    from sessionscope import sources
    return sources.session_source(store, sid)


def _written(ch) -> dict:
    """What a fork that wrote a tool's file says beyond the cut (closed calls, a finished reply), for --json."""
    return {k: ch.detail[k] for k in ("file", "extended", "interrupted", "note") if k in ch.detail}


def _fork(store, args):
    sid = store.resolve_session(args.session)
    at = _event_or_head(store, args.at)
    if args.end_of_turn:
        at = store.turn_end(at)
    src = _source(store, sid)
    ch = src.fork(store, sid, at, args.title)
    if "file" not in ch.detail:
        _out(args, ch.session.as_dict(), ch.session.id)
        return
    note = f"\n{ch.detail['note']}" if ch.detail.get("note") else ""
    _out(args, ch.session.as_dict() | _written(ch),
         f"{ch.session.id}\nwritten to {ch.detail['file']} (ends at {at[:8]}){note}\nresume with: "
         f"{src.resume_line(ch.session)}")


def _rewind(store, args):
    sid = store.resolve_session(args.session)
    to = store.resolve_event(args.to)
    if args.end_of_turn:
        to = store.turn_end(to)
    src = _source(store, sid)
    ch = src.rewind(store, sid, to)
    if ch.session.id == sid:
        _out(args, ch.session.as_dict(), f"{sid[:8]} head is now {ch.session.head_event_id}")
        return
    note = f"\n{ch.detail['note']}" if ch.detail.get("note") else ""
    _out(args, ch.session.as_dict() | _written(ch),
         f"{src.label} cannot move its file back, so the branch up to {to[:8]} is a new session:\n"
         f"{ch.session.id}{note}\nresume with: {src.resume_line(ch.session)}")


def _restore(store, args):
    from pathlib import Path

    sid = store.resolve_session(args.session)
    src = _source(store, sid)
    written = src.restore(store, sid, Path(args.to) if args.to else None)
    _out(args, [str(p) for p in written], "\n".join(str(p) for p in written)
         + f"\nresume with: {src.resume_line(store.session(sid))}")


def _resume(store, args):
    sid = store.resolve_session(args.session)
    s, src = store.session(sid), _source(store, sid)
    command = src.resume_command(s)
    if command is not None:  # the tool resumes it
        _out(args, {"command": command, "cwd": s.cwd}, src.resume_line(s))
        return
    ctx = store.resume(sid)
    text = [f"{ctx.session.title or '(untitled)'}  {ctx.session.id}  now {ctx.session.status}",
            "", "facts:", _facts_text(ctx.facts), "", "transcript since the last compaction:"]
    text += [_event_line(e) for e in ctx.transcript] or ["(empty)"]
    if ctx.budget_left:
        text += ["", "budget left: " + ", ".join(f"{k} {v}" for k, v in ctx.budget_left.items())]
    _out(args, ctx.as_dict() | {"transcript": [_event_json(e) for e in ctx.transcript]}, "\n".join(text))


def _compact(store, args):
    e = store.compact(store.resolve_session(args.session), args.summary)
    _out(args, _event_json(e), f"{e.id}  seq {e.seq}")


def _transition(method):
    def handler(store, args):
        ch = getattr(store, method)(store.resolve_session(args.session))
        _out(args, ch.session.as_dict(), f"{ch.session.id[:8]} {ch.detail['from']} → {ch.detail['to']}")
    return handler


def _delete(store, args):
    sid = store.resolve_session(args.session)
    s = store.session(sid)
    if not args.yes:
        if not sys.stdin.isatty():
            print(f"sessionscope: error: deleting {sid} needs --yes when not asked at a terminal", file=sys.stderr)
            return EXIT_USAGE
        answer = input(f"Delete session {sid} ({s.title or 'untitled'}, {s.event_count} events) for good? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("not deleted")
            return EXIT_FAILED
    ch = store.delete(sid)
    _out(args, {"deleted": sid, **ch.detail}, f"deleted {sid} ({ch.detail['events_removed']} events)")


def _rename(store, args):
    sid = store.resolve_session(args.session)
    ch = _source(store, sid).rename(store, sid, args.title)
    _out(args, ch.session.as_dict(), ch.session.title)


def _tag(store, args):
    sid = store.resolve_session(args.session)
    ch = _source(store, sid).tag(store, sid, list(args.tags))
    _out(args, ch.session.as_dict(), " ".join(ch.session.tags) or "(no tags)")


def _verify(store, args):
    from pathlib import Path

    if args.session and Path(args.session).is_file():
        from .cli_export import verify_file
        return verify_file(args, args.session)
    reports = store.verify(store.resolve_session(args.session) if args.session else None)
    broken = [r for r in reports if not r.ok]
    lines = [f"{len(reports)} session(s), {sum(r.checked for r in reports)} events checked: "
             + ("all chains intact" if not broken else f"{len(broken)} broken")]
    for r in broken:
        lines.append(f"session {r.session_id}: broken at event {r.broken_event_id} (seq {r.broken_seq}): {r.reason}")
    _out(args, [r.as_dict() for r in reports], "\n".join(lines))
    return EXIT_FAILED if broken else 0


def _search(store, args):
    from sessionscope.views import MARK_END, MARK_START

    sid = store.resolve_session(args.session) if args.session else None
    hits = store.search(" ".join(args.query), limit=args.limit, session_id=sid)
    mark = (lambda s: s.replace(MARK_START, "\x1b[1m").replace(MARK_END, "\x1b[0m")) if sys.stdout.isatty() \
        else (lambda s: s.replace(MARK_START, "[").replace(MARK_END, "]"))
    lines = [f"{h.session_id[:8]}  {h.seq:>6}  {h.event_id[:8]}  {h.kind:<10} {_one_line(mark(h.snippet), 120)}"
             for h in hits]
    _out(args, [_hit_json(h) for h in hits], "\n".join(lines) or "(no matches)")


def _retention(store, args):
    from sessionscope.errors import InvalidInput
    from sessionscope.retention import RetentionPolicy

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
        store.set_retention_policy(policy)
    describe = (f"archive after {policy.archive_after_days or 'never'} idle days; "
                f"purge archived after {policy.purge_after_days or 'never'} days")
    if not args.run:
        _out(args, {"archive_after_days": policy.archive_after_days, "purge_after_days": policy.purge_after_days},
             describe)
        return 0
    result = store.run_retention(dry_run=args.dry_run)
    verb = "would be" if args.dry_run else "were"
    text = [describe, f"{len(result['archived'])} {verb} archived, {len(result['purged'])} {verb} purged, "
                      f"{len(result['skipped'])} skipped"]
    text += [f"  skipped {s['session'][:8]}: {s['why']}" for s in result["skipped"]]
    _out(args, result, "\n".join(text))


def _audit(store, args):
    sid = store.resolve_session(args.session) if args.session else None
    rows = store.audit_log(sid, args.limit)
    lines = [f"{_when(r['ts'])}  {r['action']:<16} {r['outcome']:<8} {(r['session_id'] or '')[:8]:<8}  "
             f"{_one_line(json.dumps(r['detail'], ensure_ascii=False), 80)}" for r in rows]
    _out(args, rows, "\n".join(lines) or "(empty)")


def _import_report(store, args, paths) -> int:
    from sessionscope.sources.importing import import_paths

    show = sys.stderr.isatty() and not args.json

    def progress(done, total, path):
        if show:
            pct = 100 * done // total if total else 100
            print(f"\r{pct:3d}%  {done >> 20} of {total >> 20} MB", end="", file=sys.stderr, flush=True)
    report = import_paths(store, paths, progress=progress)
    if show:
        print(file=sys.stderr)
    lines = [f"{report.files_read} of {report.files_seen} files read, {report.bytes_read / 1e6:.1f} MB, "
             f"{report.events_added} new events in {len(report.sessions)} sessions, "
             f"{report.bad_lines} bad lines, {report.seconds:.2f} s"]
    lines += [f"  {p['path']}" + (f" line {p['line']}" if p.get("line") else "") + f": {p['problem']}"
              for p in report.problems[:30]]
    if len(report.problems) > 30:
        lines.append(f"  … and {len(report.problems) - 30} more")
    _out(args, report.as_dict(), "\n".join(lines))
    missing = [p for p in report.problems if p.get("problem") == "no such file or folder"]
    return 1 if missing else 0  # a path that is not there is a failure (exit 1), not an empty import


def _import(store, args):
    from sessionscope.export.jsonl import is_export

    exports = [p for p in args.paths if is_export(p)]
    if exports:
        from .cli_export import import_file
        for path in exports:
            import_file(store, args, path)
    rest = [p for p in args.paths if p not in exports]
    return _import_report(store, args, rest) if rest else 0


def _scan(store, args):
    from sessionscope.sources.importing import default_roots

    roots = default_roots()
    if not roots:
        _out(args, {"roots": []}, "no sessions found (looked in ~/.claude/projects, ~/.config/claude/projects, "
                                  "$CLAUDE_CONFIG_DIR, ~/.codex/sessions, $CODEX_HOME and ~/.gemini/tmp)")
        return 0
    return _import_report(store, args, roots)


_HANDLERS = {
    "new": _new, "append": _append, "fact.set": _fact_set, "fact.delete": _fact_delete,
    "list": _list, "show": _show, "facts": _facts, "diff": _diff, "fork": _fork,
    "rewind": _rewind, "resume": _resume, "compact": _compact,
    "close": _transition("close_session"), "pause": _transition("pause"),
    "archive": _transition("archive"), "unarchive": _transition("unarchive"),
    "delete": _delete, "rename": _rename, "tag": _tag, "verify": _verify,
    "search": _search, "retention": _retention, "audit": _audit, "import": _import, "scan": _scan,
    "restore": _restore, "export": lambda store, args: _lazy("export")(store, args),
    "redaction": lambda store, args: _lazy("redaction")(store, args),
    "restore-files": lambda store, args: _restore_files(store, args),
}


def _restore_files(store, args):
    from .cli_restore import restore_files
    return restore_files(store, args)


def _lazy(name: str):
    from . import cli_export
    return getattr(cli_export, name)

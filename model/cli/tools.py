"""The commands that act through a session's own tool (its source package): import and scan its
files, fork, rewind, resume, restore, rename, tag. Native sessions take the same commands."""

from __future__ import annotations

import sys

from sessionscope.cli.output import ACTOR, done_line, event_json, event_lines, facts_text, out, progress
from sessionscope.errors import InvalidInput


def _source(store, sid):
    from sessionscope import sources
    return sources.session_source(store, sid)


def _resume_line(src, session) -> str | None:
    """What resumes `session`, or None where its tool has no way to (Cline, OpenHands)."""
    from sessionscope.errors import Refused
    try:
        return src.resume_line(session)
    except Refused:
        return None


def _made(ch, src, text: str, new_file: bool) -> tuple[dict, str]:
    """fork and rewind's result: {session, file, note, extended, interrupted, resume} and its text. The resume
    line is the new session's own: a fork only the store holds (of a Codex or Gemini session) is resumed by
    `sessionscope resume`, never by the tool, which has no such session."""
    from sessionscope import sources
    d = ch.detail
    own = sources.of(ch.session.source_kind)
    data = {"session": ch.session.as_dict(), "file": d.get("file"), "note": ch.note,
            "extended": d.get("extended"), "interrupted": d.get("interrupted"),
            "resume": _resume_line(own, ch.session)}
    if ch.note:
        text += f"\n{ch.note}"
    if data["resume"] and (new_file or own is not src):
        text += f"\nresume with: {data['resume']}"
    return data, text


def fork(store, args):
    from sessionscope import ops
    from sessionscope.cli.commands import event_in, event_or_head

    sid = store.resolve_session(args.session)
    at = event_in(store, sid, args.at) if args.at.isdigit() else event_or_head(store, args.at)
    if args.end_of_turn:
        at = store.turn_end(at)
    if args.continue_with is None and not args.notes:
        ch = ops.fork(store, sid, at, args.title, actor=ACTOR)
    else:
        ch = ops.fork_and_continue(store, sid, at, _continue_prompt(store, args), args.title, actor=ACTOR)
    text = ch.session.id + (f"\nwritten to {ch.files[0]} (ends at {at[:8]})" if ch.files else "")
    data, text = _made(ch, _source(store, sid), text, bool(ch.files))
    went = ch.detail.get("continue")
    if went is not None:
        text += (f"\ncontinue with:\n  {went['line']}" if went["command"] else
                 f"\n{_source(store, sid).label} cannot open a fork only Sessionscope holds: the note is its next "
                 f"message here (event {went['appended'][:8]}); resume with: {went['line']}")
    out(args, data | {"continue": went}, text)


def _continue_prompt(store, args) -> str:
    """The notes named (their text, in order) and --continue's TEXT (- : standard input), blank-line apart."""
    from sessionscope import ops
    from sessionscope.recall import notes

    with store.reader() as conn:
        picked = [notes.get(conn, notes.resolve(conn, key)).text for key in args.notes]
    extra = args.continue_with or ""
    return ops.continue_prompt(picked, sys.stdin.read() if extra == "-" else extra)


def rewind(store, args):
    from sessionscope import ops
    from sessionscope.cli.commands import event_in

    sid = store.resolve_session(args.session)
    to = event_in(store, sid, args.to)
    if args.end_of_turn:
        to = store.turn_end(to)
    ch = ops.rewind(store, sid, to, actor=ACTOR)
    src = _source(store, sid)
    if ch.session.id == sid:
        text = f"{sid[:8]} head is now {ch.session.head_event_id}"
    else:
        text = f"{src.label} cannot move its file back, so the branch up to {to[:8]} is a new session:\n{ch.session.id}"
    data, text = _made(ch, src, text, ch.session.id != sid)
    out(args, {"moved": ch.session.id == sid} | data, text)


def resume(store, args):
    """{session, command, cwd, resume, facts, transcript, budget_left}: a tool's session is resumed by
    the tool (`command`, run in `cwd`); a native one here (`transcript` since the last compaction)."""
    from sessionscope import ops

    sid = store.resolve_session(args.session)
    s, src = store.session(sid), _source(store, sid)
    ops.check(s, "resume")
    command = src.resume_command(s)
    if command is not None:  # the tool resumes it
        line = src.resume_line(s)
        facts = store.facts_at(s.head_event_id) if s.head_event_id else {}
        out(args, {"session": s.as_dict(), "command": command, "cwd": s.cwd, "resume": line, "facts": facts,
                   "transcript": [], "budget_left": {}}, line)
        return
    ops.resume(store, sid, actor=ACTOR)
    ctx = store.resume_context(sid)
    text = [f"{ctx.session.title or '(untitled)'}  {ctx.session.id}  now {ctx.session.status}",
            "", "facts:", facts_text(ctx.facts), "", "transcript since the last compaction:"]
    text += [event_lines(ctx.transcript) or "(empty)"]
    if ctx.budget_left:
        text += ["", "budget left: " + ", ".join(f"{k} {v}" for k, v in ctx.budget_left.items())]
    out(args, {"session": ctx.session.as_dict(), "command": None, "cwd": ctx.session.cwd,
               "resume": _resume_line(src, ctx.session), "facts": ctx.facts,
               "transcript": [event_json(e) for e in ctx.transcript], "budget_left": ctx.budget_left},
        "\n".join(text))


def write_back(store, args):
    """`sessionscope write-back` (or `restore`, its first name): a kept session written back where its tool
    finds it."""
    from pathlib import Path

    from sessionscope import ops

    sid = store.resolve_session(args.session)
    ch = ops.write_back(store, sid, Path(args.to) if args.to else None, actor=ACTOR)
    line = _resume_line(_source(store, sid), ch.session)
    out(args, {"session": ch.session.as_dict(), "written": list(ch.files), "resume": line},
        "\n".join(ch.files) + (f"\nresume with: {line}" if line else ""))


def rename(store, args):
    from sessionscope import ops

    ch = ops.rename(store, store.resolve_session(args.session), args.title, actor=ACTOR)
    out(args, ch.session.as_dict(), ch.session.title)


def tag(store, args):
    from sessionscope import ops

    sid = store.resolve_session(args.session)
    if args.add or args.remove:
        if args.tags:
            raise InvalidInput("give the tags (all of them) or --add/--remove, not both")
        ch = ops.retag(store, sid, args.add, args.remove, actor=ACTOR)
    else:
        ch = ops.tag(store, sid, list(args.tags), actor=ACTOR)
    out(args, ch.session.as_dict(), " ".join(ch.session.tags) or "(no tags)")


def tags(store, args):
    counts = store.tag_counts(include_archived=args.all)
    out(args, [{"tag": t, "sessions": n} for t, n in counts.items()],
        "\n".join(f"{n:>6,}  {t}" for t, n in counts.items()) or "(no tags yet: tag SESSION TAG)")


def summarize(store, args):
    """{session, sent, note, title, renamed, model, sent_chars}: what is sent is printed first (on stderr: stdout is
    the answer) and asked about at a terminal; --show prints it alone and sends nothing (note null)."""
    from sessionscope import ops
    from sessionscope.cli.output import EXIT_FAILED, EXIT_USAGE, error, terminal
    from sessionscope.ops.summarizing import DEFAULT_MODEL

    sid = store.resolve_session(args.session)
    sent = ops.summary_request(store, sid)
    model = args.model or DEFAULT_MODEL
    if args.show:
        out(args, {"session": store.session(sid).as_dict(), "sent": sent, "note": None, "title": None,
                   "renamed": False, "model": model, "sent_chars": len(sent)}, sent)
        return None
    print(terminal(f"--- what is sent to {model} ({len(sent):,} characters, redacted) ---\n{sent}\n---", mark=False),
          file=sys.stderr)
    if not args.yes:
        if not sys.stdin.isatty():
            error("sending a session to a model needs --yes when not asked at a terminal")
            return EXIT_USAGE
        if input(f"Send this to Anthropic ({model})? [y/N] ").strip().lower() not in ("y", "yes"):
            print("nothing was sent", file=sys.stderr)
            return EXIT_FAILED
    ch = ops.summarize(store, sid, sent, model=model, actor=ACTOR)
    d = ch.detail
    out(args, {"session": ch.session.as_dict(), "sent": sent, "note": d["note"], "title": d["title"],
               "renamed": d["renamed"], "model": d["model"], "sent_chars": d["sent_chars"]},
        f"{d['note']['text']}\n\n({'titled' if d['renamed'] else 'not retitled: you named it'}; note "
        f"{d['note']['id'][:8]}, by {d['model']})")
    return None


def star(store, args):
    from sessionscope import ops

    ch = ops.star(store, store.resolve_session(args.session), not args.off, actor=ACTOR)
    out(args, ch.session.as_dict(), f"{'★ starred' if ch.session.starred else 'not starred'}: {ch.session.title}")


def pin(store, args):
    from sessionscope import ops
    from sessionscope.cli.commands import event_in

    sid = store.resolve_session(args.session)
    ch = ops.pin(store, sid, event_in(store, sid, args.event), not args.off, actor=ACTOR)
    pins = store.pins(sid)
    out(args, {"session": ch.session.as_dict(), "pins": [p.as_dict() for p in pins]},
        f"{len(pins)} pinned in {ch.session.title or sid[:8]}")


def pins(store, args):
    from sessionscope.cli.output import one_line, when
    found = store.pins(store.resolve_session(args.session) if args.session else None)
    text = "\n".join(f"{p.event_id[:8]}  {when(p.ts):<19} {p.session_title[:30]:<30}  {one_line(p.text or p.kind, 70)}"
                     for p in found) or "(no pins)"
    out(args, [p.as_dict() for p in found], text)


def note(store, args):
    """note add|edit|rm print the note; note list the notes."""
    from sessionscope import ops
    from sessionscope.cli.output import one_line, when
    from sessionscope.recall import notes

    def text_of(arg: str) -> str:
        return sys.stdin.read() if arg == "-" else arg
    if args.note_command == "list":
        found = store.notes(store.resolve_session(args.session) if args.session else None)
        out(args, [n.as_dict() for n in found], "\n".join(
            f"{n.id[:8]}  {when(n.updated_at):<19} {(n.event_id or 'session')[:8]:<8}  {one_line(n.text, 80)}"
            for n in found) or "(no notes)")
        return
    if args.note_command == "add":
        sid = store.resolve_session(args.session)
        event = store.resolve_event(args.event) if args.event else None
        ch = ops.note_add(store, sid, text_of(args.text), event, actor=ACTOR)
    else:
        with store.reader() as conn:
            note_id = notes.resolve(conn, args.note)
        ch = (ops.note_edit(store, note_id, text_of(args.text), actor=ACTOR) if args.note_command == "edit"
              else ops.note_remove(store, note_id, actor=ACTOR))
    made = ch.detail["note"]
    verb = {"add": "added", "edit": "changed", "rm": "removed"}[args.note_command]
    out(args, made, f"note {made['id'][:8]} {verb}")


def _import_report(store, args, paths, extra: dict) -> int:
    """Import `paths` and print the report: {files_seen, …, problems, …} plus `extra`."""
    from sessionscope import ops
    from sessionscope.sources.importing import catch_up, merge
    from sessionscope.sources.scan import ImportReport

    shown = progress(args, lambda done, total, _: f"{done >> 20} of {total >> 20} MB")
    report = ops.import_paths(store, paths, progress=shown, actor=ACTOR) if paths else ImportReport()
    done_line(shown)
    if "roots" in extra:  # a scan also shows what agents wrote into this store and no session shows yet
        merge(report, catch_up(store))
    lines = [f"{report.files_read} of {report.files_seen} files read, {report.bytes_read / 1e6:.1f} MB, "
             f"{report.events_added} new events in {len(report.sessions)} sessions, "
             f"{report.bad_lines} bad lines, {report.seconds:.2f} s"]
    lines += [f"  {p['path']}" + (f" line {p['line']}" if p.get("line") else "") + f": {p['problem']}"
              for p in report.problems[:30]]
    if len(report.problems) > 30:
        lines.append(f"  … and {len(report.problems) - 30} more")
    lines += [f"{e['path']}: {len(e['imported'])} session(s) imported ({e['events']:,} events), "
              f"{len(e['already_here'])} already here" for e in extra.get("exports", [])]
    from sessionscope.cli.meaning import embed_after_import
    embedded = embed_after_import(store, args) if report.events_added else None
    extra = extra | {"embedded": embedded}  # None: search by meaning is off (or its model not fetched yet)
    if embedded is not None:
        lines.append(f"{embedded:,} new texts embedded for search by meaning")
    if "roots" in extra and not extra["roots"]:
        lines = ["no sessions found (looked in ~/.claude/projects, ~/.config/claude/projects, $CLAUDE_CONFIG_DIR, "
                 "~/.codex/sessions, $CODEX_HOME and ~/.gemini/tmp)"]
    out(args, report.as_dict() | extra, "\n".join(lines))
    missing = [p for p in report.problems if p.get("problem") == "no such file or folder"]
    return 1 if missing else 0  # a path that is not there is a failure (exit 1), not an empty import


def import_(store, args):
    """Transcripts (files or folders, incremental) and Sessionscope .jsonl exports, in one report."""
    from sessionscope.export.jsonl import import_file, is_export

    exports = [p for p in args.paths if is_export(p)]
    results = []
    for path in exports:
        shown = progress(args, lambda done, total, _: f"{done:,} of {total:,} events")
        results.append(import_file(store, path, progress=shown).as_dict())
        done_line(shown)
    rest = [p for p in args.paths if p not in exports]
    return _import_report(store, args, rest, {"exports": results})


def scan(store, args):
    from sessionscope.sources.importing import default_roots

    roots = [str(r) for r in default_roots()]
    return _import_report(store, args, roots, {"roots": roots})

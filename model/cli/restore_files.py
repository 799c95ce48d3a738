"""`sessionscope restore-files`: put a session's files back as they were at a prompt (from the file
checkpoints its tool keeps), with a preview, a confirmation, an undo and, on request, the conversation too."""

from __future__ import annotations

import sys

from sessionscope.cli.output import ACTOR, EXIT_FAILED, EXIT_USAGE, error, out, terminal

_MARK = {"overwrite": "M", "create": "A", "delete": "D", "unchanged": "=", "unavailable": "!"}


def _preview(plan, selected: set[str]) -> str:
    lines = [f"Files as they were when {plan.prompt_named()} was sent (folder {plan.cwd});",
             "M overwritten, A created, D deleted, = already so, ! content gone; [x] chosen:"]
    if plan.no_folder:
        lines.insert(1, f"No file is chosen: {plan.no_folder}. Name the files with --only, or restore them "
                        "into another folder with --into FOLDER.")
    groups = (("in the folder", [c for c in plan.changes if c.inside and not c.escapes]),
              ("outside the folder (left alone unless named with --only)", [c for c in plan.changes if not c.inside]),
              ("resolving outside the folder (written only if named with --only)",
               [c for c in plan.changes if c.inside and c.escapes]))
    for title, changes in groups:
        if not changes:
            continue
        lines.append(f"  {title}:")
        for c in changes:
            chosen = "x" if c.path in selected else " "
            why = f"  ({c.escapes})" if c.escapes else f"  ({c.source})" \
                if c.action == "unavailable" and c.source.startswith(("relative", "a folder", "damaged")) \
                else "  (content gone: not in the store nor on disk)" if c.action == "unavailable" else ""
            lines.append(f"   [{chosen}] {_MARK[c.action]} {c.path}{why}")
    return "\n".join(lines)


def restore_files(store, args) -> int:
    """With --json, one object whatever the mode: {session, prompt, prompt_text, folder, files (the plan, each
    with `selected`), restored, undone, rewind}; a dry run restores nothing, --undo plans nothing."""
    from sessionscope import ops, sources

    sid = store.resolve_session(args.session)
    src = sources.session_source(store, sid)
    result = {"session": sid, "prompt": None, "prompt_text": None, "folder": None, "files": [], "restored": [],
              "undone": [], "rewind": None}
    if args.undo or args.redo:
        return _undo(store, args, sid, result)
    if not args.to:
        error("restore-files needs --to EVENT (or --undo)")
        return EXIT_USAGE
    from sessionscope.cli.commands import event_in
    event = event_in(store, sid, args.to)
    plan = ops.restore_plan(store, sid, event, into=args.into)
    named = set(args.only or ())
    unknown = named - set(plan.by_path())
    if unknown:
        error(f"not tracked at that point: {', '.join(sorted(unknown))}")
        return EXIT_USAGE
    selected = named if named else plan.default_selection()
    chosen = [c for c in plan.changes if c.path in selected and c.action != "unchanged"]
    result |= _plan_dict(plan, selected)
    if not args.json:
        print(terminal(_preview(plan, selected), mark=False))
        for c in chosen:
            if c.action != "unavailable":
                print(terminal(c.diff(), mark=False), end="")
    if args.dry_run or not chosen:
        nothing = f"nothing restored: {plan.no_folder}; name the files with --only, or restore them into another " \
            "folder with --into FOLDER" if plan.no_folder and not named else \
            "nothing to restore: every chosen file already is as it was"
        out(args, result, None if chosen else nothing)
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            error("restoring files needs --yes when not asked at a terminal")
            return EXIT_USAGE
        what = f"{len(chosen)} file(s)" + (" and rewind the conversation" if args.conversation else "")
        if input(f"Restore {what}? The files' current contents are kept for undo. [y/N] ").strip().lower() \
                not in ("y", "yes"):
            print("nothing restored", file=sys.stderr)
            return EXIT_FAILED
    ch = ops.restore_files(store, plan, selected, conversation=args.conversation, actor=ACTOR)
    result["restored"] = ch.detail["files"]
    msg = f"restored {len(ch.files)} file(s); undo with: sessionscope restore-files {sid[:8]} --undo"
    if args.conversation:
        result["rewind"] = ch.session.id
        msg += f"\nconversation rewound into {ch.session.id}; resume with: {src.resume_line(ch.session)}"
    out(args, result, msg)
    return 0


def _undo(store, args, sid: str, result: dict) -> int:
    """--undo (or --redo): the same preview, question and dry run as a restore; files edited since the
    restore are named first (the undo overwrites them; a --redo puts the edits back)."""
    from sessionscope import ops

    plan = ops.undo_plan(store, sid, redo=args.redo)
    what = "redo (take back the last undo)" if args.redo else "undo of the last restore"
    chosen = [c for c in plan.changes if c.action != "unchanged"]
    result |= {"files": [{"path": c.path, "target": c.target, "action": c.action, "inside": True, "escapes": "",
                          "selected": True, "changed_since": c.path in plan.changed_since} for c in plan.changes]}
    if not args.json:
        lines = [f"The {what}{' (a restore that was interrupted)' if plan.entry.get('interrupted') else ''}: "
                 "M overwritten, A created, D deleted, = already so:"]
        lines += [f"   {_MARK[c.action]} {c.path}" + ("  (changed since: your edits are overwritten; "
                                                      f"{'--undo' if args.redo else '--redo'} puts them back)"
                                                      if c.path in plan.changed_since else "") for c in plan.changes]
        print(terminal("\n".join(lines), mark=False))
        for c in chosen:
            print(terminal(c.diff(), mark=False), end="")
    if args.dry_run or not chosen:
        out(args, result, None if chosen else f"nothing to {'redo' if args.redo else 'undo'}: every file already is so")
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            error(f"the {what} needs --yes when not asked at a terminal")
            return EXIT_USAGE
        warn = f" {len(plan.changed_since)} of them changed since." if plan.changed_since else ""
        if input(f"Put back {len(chosen)} file(s)?{warn} What they hold now is kept. [y/N] ").strip().lower() \
                not in ("y", "yes"):
            print("nothing changed", file=sys.stderr)
            return EXIT_FAILED
    ch = ops.undo_restore(store, sid, plan, actor=ACTOR)
    out(args, result | {"undone": ch.detail["files"]},
        f"{'redid' if args.redo else 'undid'}: {len(ch.files)} file(s) put back; "
        f"take it back with: sessionscope restore-files {sid[:8]} {'--undo' if args.redo else '--redo'}")
    return 0


def _plan_dict(plan, selected: set[str]) -> dict:
    return {"prompt": plan.prompt_id, "prompt_text": plan.prompt_text, "folder": plan.cwd, "files": [
        {"path": c.path, "target": c.target, "action": c.action, "inside": c.inside, "escapes": c.escapes,
         "selected": c.path in selected} for c in plan.changes]}

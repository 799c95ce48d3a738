"""`sessionscope sync`: push the sessions you share to a team store, secrets redacted (sessionscope.sync), and the
choices it reads: the team store's address, each project's rule, your yes or no to a session."""

from __future__ import annotations

from sessionscope.cli.output import ACTOR, EXIT_FAILED, EXIT_USAGE, done_line, error, one_line, out, progress, when

# what a form did: its words (None: the status's) and the push's report, or an exit code after a usage mistake
Done = "tuple[str | None, SyncReport | None] | int"
USAGE = ("sessionscope sync [--to URL] [--dry-run] | sync status | sync rule PROJECT always|ask|never|default | "
         "sync rule --default always|ask|never | sync share SESSION… | sync skip SESSION… | "
         "sync target URL [--every MINUTES] | sync target --forget")


def sync(store, args) -> int:
    """Every form prints one JSON shape: the sync's state after what it did, {target, every, default, rules, plan,
    last, report}, `report` the push's (null for the others)."""
    run = {"push": _push, "status": _status, "rule": _rule, "share": _decide, "skip": _decide, "target": _target}
    done = run[args.what or "push"](store, args)
    if isinstance(done, int):  # a usage mistake, said already
        return done
    text, report = done
    state = _state(store)
    out(args, state | {"report": report.as_dict() if report is not None else None},
        text if text is not None else lambda: _status_text(store, state))
    return EXIT_FAILED if report is not None and report.problems else 0


def _state(store) -> dict:
    from sessionscope import ops, sync

    chosen = ops.sync_plan(store)
    with store.reader() as conn:
        return {"target": sync.target(conn), "every": sync.every_minutes(conn), "default": sync.default_rule(conn),
                "rules": sync.project_rules(conn), "plan": chosen.as_dict(), "last": sync.last_report(conn)}


def _push(store, args) -> Done:
    from sessionscope import ops
    from sessionscope.export.redact import format_review

    if args.names:
        error(f"sync takes no names (to choose sessions: sync share SESSION…): {USAGE}")
        return EXIT_USAGE
    shown = progress(args, lambda done, total, label: f"{done:,} of {total:,} events · {one_line(label, 60)}")
    report = ops.sync_now(store, args.to, dry_run=args.dry_run, progress=shown, actor=ACTOR)
    done_line(shown)
    titles = _titles(store, [*report.waiting, *(s for s, _ in report.held), *(s for s, _ in report.problems)])
    verb = "would push" if report.dry_run else "pushed"
    lines = [f"{verb} {len(report.pushed):,} session(s), {report.events:,} event(s) to {report.target}"
             + (f"; {report.up_to_date:,} up to date" if report.up_to_date else "")]
    if report.redacted:
        kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(report.kinds.items(), key=lambda kv: -kv[1]))
        lines.append(f"secrets {'to be ' if report.dry_run else ''}redacted: {report.redacted:,}"
                     + (f" ({kinds} in events)" if kinds else ""))
    if report.dry_run:
        lines.append(format_review(report.findings))
    if report.withdrawn:
        lines.append(f"no longer shared in the team store: {len(report.withdrawn)} session(s) you chose not to share")
    if report.cancelled:
        lines.append("stopped before the end: what was pushed is kept, the next sync goes on from there")
    for sid, why in report.problems:
        lines.append(f"not pushed: {sid[:8]} {titles.get(sid, '')}: {why}")
    for sid, why in report.held:
        lines.append(f"held at home: {sid[:8]} {titles.get(sid, '')}: {why}")
    if report.waiting:
        lines.append(f"{len(report.waiting):,} session(s) wait for your yes or no (their projects ask): "
                     "sessionscope sync share ID… or sync skip ID…, or sync rule PROJECT always")
        lines += [f"  {sid[:8]}  {titles.get(sid, '')}" for sid in report.waiting[:20]]
        if len(report.waiting) > 20:
            lines.append(f"  … and {len(report.waiting) - 20:,} more (sync status --json lists them all)")
    return "\n".join(lines), report


def _titles(store, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    wanted = set(ids)
    return {s.id: f"{s.project or '(no project)'} · {one_line(s.title, 60)}" for s in store.sessions(limit=None)
            if s.id in wanted} if len(wanted) > 50 else {sid: _title(store, sid) for sid in wanted}


def _title(store, sid: str) -> str:
    s = store.session(sid)
    return f"{s.project or '(no project)'} · {one_line(s.title, 60)}"


def _status(store, args) -> Done:
    return None, None


def _status_text(store, state: dict) -> str:
    target, every, rules, plan, last = state["target"], state["every"], state["rules"], state["plan"], state["last"]
    titles = _titles(store, plan["waiting"][:20])
    lines = [f"team store: {target or 'none (sessionscope sync target URL)'}"
             + (f", synced every {every} min by the app" if target and every else ""),
             f"projects without a rule: {state['default']}"]
    lines += [f"  {rule:<6} {project or '(no project)'}" for project, rule in sorted(rules.items())]
    lines.append(f"{len(plan['push']):,} session(s) go at each sync, {len(plan['waiting']):,} wait for your yes or "
                 f"no, {len(plan['held']):,} held at home")
    lines += [f"  waiting: {sid[:8]}  {titles.get(sid, '')}" for sid in plan["waiting"][:20]]
    if last and last.get("error"):
        lines.append(f"last sync {when(last.get('at'))}: failed: {last['error']}")
    elif last:
        lines.append(f"last sync {when(last.get('at'))}: {len(last.get('pushed', [])):,} session(s), "
                     f"{last.get('events', 0):,} event(s) pushed, {last.get('redacted', 0):,} secret(s) redacted"
                     + (f", {len(last.get('problems', []))} not pushed" if last.get("problems") else ""))
    return "\n".join(lines)


def _rule(store, args) -> Done:
    from sessionscope import ops

    if args.default_rule:
        if args.names:
            error("sync rule --default RULE takes no project")
            return EXIT_USAGE
        ops.set_default_rule(store, args.default_rule, actor=ACTOR)
        return f"projects without a rule of their own: {args.default_rule}", None
    if len(args.names) != 2:
        error(f"sync rule needs a project and a rule: {USAGE}")
        return EXIT_USAGE
    project, rule = args.names
    ops.set_project_rule(store, project, None if rule == "default" else rule, actor=ACTOR)
    return f"{project or '(no project)'}: " + ("the default rule" if rule == "default" else rule), None


def _decide(store, args) -> Done:
    from sessionscope import ops

    if not args.names:
        error(f"sync {args.what} needs one or more sessions: {USAGE}")
        return EXIT_USAGE
    ids = [store.resolve_session(n) for n in args.names]
    share = args.what == "share"
    ops.decide(store, ids, share, actor=ACTOR)
    return f"{len(ids)} session(s) " + ("shared: they go at each sync" if share else
                                        "kept at home: not asked about again, a team copy no longer shared"), None


def _target(store, args) -> Done:
    from sessionscope import ops, sync

    if len(args.names) > 1 or (args.forget and (args.names or args.every is not None)):
        error(f"sync target takes one address, or --forget alone: {USAGE}")
        return EXIT_USAGE
    if args.forget:
        ops.set_target(store, None, actor=ACTOR)
    elif args.names:
        ops.set_target(store, args.names[0], actor=ACTOR)
    if args.every is not None:
        ops.set_sync_every(store, args.every, actor=ACTOR)
    with store.reader() as conn:
        kept, every = sync.target(conn), sync.every_minutes(conn)
    return (f"team store: {kept}" + (f"; the app syncs every {every} min" if every else
                                     "; synced when you ask (sessionscope sync, or File ▸ Sync with Team Store)")
            if kept else "no team store remembered (sessionscope sync target URL)"), None

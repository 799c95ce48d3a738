"""`sessionscope export` (with the review of secrets first) and `sessionscope redaction`, the user's
own patterns. Verifying and importing an export are `verify` and `import`, as for any file."""

from __future__ import annotations

import sys
from pathlib import Path

from sessionscope.cli.output import ACTOR, EXIT_FAILED, done_line, out, progress, terminal


def export(store, args) -> int:
    from sessionscope import ops
    from sessionscope.errors import InvalidInput
    from sessionscope.export.core import ExportRequest, scan
    from sessionscope.export.redact import format_review

    if args.branch and len(args.sessions) != 1:
        raise InvalidInput("--branch takes one session")
    if not args.sessions and not args.search:
        raise InvalidInput("name the sessions to export, or --search QUERY")
    if args.output is None and args.format != "claude":
        raise InvalidInput(f"-o PATH is needed for --format {args.format}")
    request = ExportRequest(args.format, tuple(args.sessions), head=args.branch, search=args.search,
                            detail=args.detail, redact=bool(args.redact))
    events = lambda done, total, label: f"{done:,} of {total:,} events  {label[:40]:<40}"  # noqa: E731
    if args.redact is not False:  # the review comes first, unless the user said --no-redact
        shown = progress(args, events)
        findings = scan(store, request, progress=shown)
        done_line(shown)
        if args.redact is None and findings:
            print(terminal(format_review(findings), mark=False), file=sys.stderr)
            print("sessionscope: secrets found; export again with --redact to replace them, "
                  "or --no-redact to keep them", file=sys.stderr)
            return EXIT_FAILED
        if args.redact:
            print(terminal(format_review(findings), mark=False), file=sys.stderr)
    shown = progress(args, events)
    report = ops.export(store, request, Path(args.output) if args.output else None, progress=shown, actor=ACTOR)
    done_line(shown)
    text = (f"{report.events:,} events of {report.sessions} session(s) → {', '.join(report.files)} "
            f"({report.bytes / 1e6:.2f} MB, {report.seconds:.2f} s"
            + (f", {sum(f.count for f in report.findings)} secrets replaced" if report.redacted else "") + ")")
    out(args, report.as_dict(), text)
    return 0


def redaction(store, args) -> int:
    from sessionscope import ops
    from sessionscope.export.core import allowed_values, redaction_patterns

    patterns = redaction_patterns(store)
    if args.add or args.remove or args.clear:
        patterns = [] if args.clear else patterns
        patterns = [p for p in patterns if p not in (args.remove or [])] + [p for p in args.add or [] if p not in patterns]
        ops.set_redaction_patterns(store, patterns, actor=ACTOR)
    allowed = allowed_values(store)
    if args.allow or args.disallow:
        allowed = [p for p in allowed if p not in (args.disallow or [])] + [p for p in args.allow or [] if p not in allowed]
        ops.set_allowed_values(store, allowed, actor=ACTOR)
    text = "\n".join(patterns) or "(no patterns of your own; the built-in detectors always run)"
    if allowed:
        text += "\nno secret (dismissed in a review): " + ", ".join(allowed)
    out(args, {"patterns": patterns, "allowed": allowed}, text)
    return 0

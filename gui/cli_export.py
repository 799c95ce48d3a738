"""The export commands of `sessionscope`: export, verify of an exported file, import of one,
and the user's redaction patterns. Kept apart from cli_commands to keep each module short."""

from __future__ import annotations

import sys
from pathlib import Path

from .cli import EXIT_FAILED
from .cli_commands import _out


def _progress(args):
    if not sys.stderr.isatty() or args.json:
        return None

    def show(done, total, label):
        pct = 100 * done // total if total else 100
        print(f"\r{pct:3d}%  {done:,} of {total:,} events  {label[:40]:<40}", end="", file=sys.stderr, flush=True)
    return show


def export(store, args) -> int:
    from sessionscope.errors import InvalidInput
    from sessionscope.export.core import ExportRequest, scan
    from sessionscope.export.core import export as run_export
    from sessionscope.export.redact import format_review

    if args.branch and len(args.sessions) != 1:
        raise InvalidInput("--branch takes one session")
    if not args.sessions and not args.search:
        raise InvalidInput("name the sessions to export, or --search QUERY")
    if args.output is None and args.format != "claude":
        raise InvalidInput(f"-o PATH is needed for --format {args.format}")
    request = ExportRequest(args.format, tuple(args.sessions), head=args.branch, search=args.search,
                            detail=args.detail, redact=bool(args.redact))
    findings = []
    if args.redact is not False:  # the review comes first, unless the user said --no-redact
        findings = scan(store, request, progress=_progress(args))
        if _progress(args):
            print(file=sys.stderr)
        if args.redact is None and findings:
            print(format_review(findings), file=sys.stderr)
            print("sessionscope: secrets found; export again with --redact to replace them, "
                  "or --no-redact to keep them", file=sys.stderr)
            return EXIT_FAILED
        if args.redact:
            print(format_review(findings), file=sys.stderr)
    report = run_export(store, request, Path(args.output) if args.output else None, progress=_progress(args))
    if _progress(args):
        print(file=sys.stderr)
    text = (f"{report.events:,} events of {report.sessions} session(s) → {', '.join(report.files)} "
            f"({report.bytes / 1e6:.2f} MB, {report.seconds:.2f} s"
            + (f", {sum(f.count for f in report.findings)} secrets replaced" if report.redacted else "") + ")")
    _out(args, report.as_dict(), text)
    return 0


def verify_file(args, path: str) -> int:
    from sessionscope.export.jsonl import verify_file as check

    result = check(path)
    lines = [f"{path}: " + ("intact" if result.ok else f"BROKEN: {result.problem}")
             + (" (redacted export: its chain was recomputed over the redacted events)" if result.redacted else "")]
    for s in result.sessions:
        lines.append(f"  {s.session_id[:8]}  {s.events:>7} events  " + ("ok" if s.ok else f"broken: {s.reason}"
                     + (f" (event {s.broken_event_id}, line {s.broken_line})" if s.broken_event_id else "")))
    _out(args, result.as_dict(), "\n".join(lines))
    return 0 if result.ok else EXIT_FAILED


def import_file(store, args, path: str) -> int:
    from sessionscope.export.jsonl import import_file as run_import

    result = run_import(store, path, progress=_progress(args))
    if _progress(args):
        print(file=sys.stderr)
    _out(args, result.as_dict(), f"{path}: {len(result.imported)} session(s) imported ({result.events:,} events), "
         f"{len(result.already_here)} already here")
    return 0


def redaction(store, args) -> int:
    from sessionscope.export.core import redaction_patterns, set_redaction_patterns

    patterns = redaction_patterns(store)
    if args.add or args.remove or args.clear:
        patterns = [] if args.clear else patterns
        patterns = [p for p in patterns if p not in (args.remove or [])] + [p for p in args.add or [] if p not in patterns]
        set_redaction_patterns(store, patterns)
    _out(args, {"patterns": patterns}, "\n".join(patterns) or "(no patterns of your own; the built-in detectors "
         "always run)")
    return 0

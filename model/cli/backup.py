"""`sessionscope backup`: copy the store into its backups folder, list the backups, or restore one. The
store is not opened through the model (a damaged one must still be restorable)."""

from __future__ import annotations

import sys

from sessionscope.cli.output import EXIT_FAILED, EXIT_USAGE, error, out, progress, when


def _size(n: int) -> str:
    return f"{n / (1 << 20):,.1f} MB"


def backup(_store, args) -> int:
    """{store, folder, made, restored, kept, backups}: what was made or restored, and every backup now."""
    from pathlib import Path

    from sessionscope.safety import backup as backups
    from sessionscope.store.db import as_url, default_url

    path = backups.store_file(as_url(args.store) if args.store else default_url())
    made = restored = kept = None
    if args.restore:
        source = Path(args.restore).expanduser()
        if not args.yes:
            if not sys.stdin.isatty():
                error("restoring a backup needs --yes when not asked at a terminal")
                return EXIT_USAGE
            if input(f"Put {source} in place of the store {path}? The store as it is now is kept as a backup "
                     "first. [y/N] ").strip().lower() not in ("y", "yes"):
                print("nothing restored", file=sys.stderr)
                return EXIT_FAILED
        kept = backups.restore(path, source)
        restored = str(source)
    elif not args.list:
        shown = progress(args, lambda done, total, _label: f"{done:,} of {total:,} pages copied")
        made = backups.make(path, "manual", progress=shown)
        if shown:
            print(file=sys.stderr)
    listed = backups.backups(path)
    lines = []
    if made:
        lines.append(f"backed up {path} to {made.path} ({_size(made.size)})")
    if restored:
        lines.append(f"restored {restored} into {path}" + (f"; the store as it was is kept as {kept.path}" if kept else ""))
    lines.append(f"{len(listed)} backup(s) in {backups.folder_of(path)}, {_size(sum(b.size for b in listed))} in all:")
    lines += [f"  {when(b.made_at)}  {b.kind:<22} {_size(b.size):>10}  {b.path.name}" for b in listed]
    out(args, {"store": str(path), "folder": str(backups.folder_of(path)), "made": made.as_dict() if made else None,
               "restored": restored, "kept": kept.as_dict() if kept else None,
               "backups": [b.as_dict() for b in listed]}, "\n".join(lines))
    return 0


def repair(_store, args) -> int:
    """{store, kept_damaged, copied, lost, replaced_text, events_reimported, broken_sessions, seconds}."""
    from sessionscope.safety import repair as rebuilding
    from sessionscope.safety.backup import store_file
    from sessionscope.store.db import as_url, default_url

    path = store_file(as_url(args.store) if args.store else default_url())
    if not args.yes:
        if not sys.stdin.isatty():
            error("repair needs --yes when not asked at a terminal")
            return EXIT_USAGE
        if input(f"Rebuild {path} from the rows it can still read? The damaged file is kept beside it. [y/N] "
                 ).strip().lower() not in ("y", "yes"):
            print("nothing changed", file=sys.stderr)
            return EXIT_FAILED
    shown = progress(args, lambda done, total, label: f"copying {label} ({done + 1} of {total} tables)")
    report = rebuilding.repair(str(path), progress=shown)
    if shown:
        print(file=sys.stderr)
    lost = sum(report.lost.values())
    lines = [f"rebuilt {report.store} in {report.seconds:.1f} s: {sum(report.copied.values()):,} rows kept, "
             f"{report.events_reimported:,} events imported again from the tools' files",
             f"the damaged file is kept as {report.kept_damaged}"]
    lines.append("nothing was lost" if not lost and not report.broken_sessions else
                 f"could not be saved: {lost:,} row(s) (" + ", ".join(f"{t} {n:,}" for t, n in report.lost.items()) + ")")
    if report.replaced_text:
        lines.append(f"{report.replaced_text:,} row(s) kept with text that was not UTF-8 (shown as �)")
    for sid in report.broken_sessions:
        lines.append(f"  session {sid}: its hash chain is broken (events are missing): sessionscope verify names where")
    out(args, report.as_dict(), "\n".join(lines))
    return EXIT_FAILED if lost or report.broken_sessions else 0

"""`sessionscope backup`: copy the store into its backups folder, list the backups, or restore one. The
store is not opened through the model (a damaged one must still be restorable)."""

from __future__ import annotations

import sys

from .output import EXIT_FAILED, EXIT_USAGE, error, out, progress, when


def _size(n: int) -> str:
    return f"{n / (1 << 20):,.1f} MB"


def backup(_store, args) -> int:
    """{store, folder, made, restored, kept, backups}: what was made or restored, and every backup now."""
    from pathlib import Path

    from sessionscope import backup as backups
    from sessionscope.db import as_url, default_url

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

"""`sessionscope semantic`, `embed` and `similar`: search by meaning (#34) from the command line."""

from __future__ import annotations

import sys
import threading

from sessionscope.cli.output import ACTOR, done_line, out, progress, when


def _describe(status) -> str:
    cfg = status.config
    state = "on" if cfg.enabled else "off"
    lines = [f"search by meaning: {state}",
             f"model: {cfg.model}" + ("" if status.fetched else " (not fetched yet: `sessionscope embed` fetches it)"),
             f"tool output: {'embedded' if cfg.tool_output else 'not embedded'}",
             f"{status.embedded:,} texts embedded ({status.size / 1e6:.1f} MB), {status.pending:,} to do"]
    if cfg.enabled and status.pending:
        lines.append("run `sessionscope embed` to embed the rest (the app does it after every import)")
    return "\n".join(lines)


def _status_json(status) -> dict:
    return {"enabled": status.config.enabled, "model": status.config.model, "tool_output": status.config.tool_output,
            "embedded": status.embedded, "pending": status.pending, "bytes": status.size, "fetched": status.fetched}


def semantic(store, args):
    """Show search by meaning's state, or turn it on or off, choose its model and whether tool output counts."""
    import dataclasses

    from sessionscope import ops
    from sessionscope.recall import semantic as sem
    current = sem.status(store).config
    change = {}
    if args.state in ("on", "off"):
        change["enabled"] = args.state == "on"
    if args.model is not None:
        change["model"] = args.model
    if args.tool_output is not None:
        change["tool_output"] = args.tool_output
    new = dataclasses.replace(current, **change)
    if new != current:
        ops.set_semantic(store, new, actor=ACTOR)
    status = sem.status(store)
    out(args, _status_json(status), _describe(status))


def embed(store, args):
    """Fetch the model if it is not here, then embed every text without a vector; Ctrl+C stops it, and the next
    run goes on from there."""
    from sessionscope import ops
    cancel = threading.Event()
    fetching = progress(args, lambda done, total, name: f"fetching the model: {name}, {done / 1e6:.1f} of "
                        f"{total / 1e6:.1f} MB")
    texts = progress(args, lambda done, total, _: f"embedded {done:,} of {total:,} texts")
    try:
        outcome = ops.embed(store, fetching=fetching, progress=(lambda d, t: texts(d, t, "")) if texts else None,
                            cancel=cancel)
    except KeyboardInterrupt:
        done_line(texts)
        print("sessionscope embed: stopped; what was embedded is kept, and the next run goes on from there",
              file=sys.stderr)
        return 130
    done_line(texts)
    from sessionscope.recall import semantic as sem
    status = sem.status(store)
    out(args, {"embedded_now": outcome.embedded} | _status_json(status),
        f"embedded {outcome.embedded:,} texts\n" + _describe(status))


def similar(store, args):
    """The sessions nearest in meaning to one."""
    from sessionscope.recall import semantic as sem
    sid = store.resolve_session(args.session)
    found = sem.similar_sessions(store, sid, limit=args.limit)
    short = store.short_ids([s.session_id for s in found])
    lines = [f"{short.get(s.session_id, s.session_id[:8])}  {s.score:5.2f}  {when(s.updated_at)}  {s.title}"
             for s in found]
    out(args, [s.as_dict() for s in found], "\n".join(lines) or "(no other session has anything embedded)")


def embed_after_import(store, args) -> int | None:
    """After an import: the new texts embedded, when search by meaning is on and its model is here (an import
    never fetches one); None when it did nothing."""
    from sessionscope import ops
    from sessionscope.recall import embedding
    from sessionscope.recall import semantic as sem
    cfg = sem.config_of(store)
    try:
        if not cfg.enabled or embedding.local_path(cfg.model) is None:
            return None
    except Exception:
        return None
    texts = progress(args, lambda done, total, _: f"embedded {done:,} of {total:,} new texts")
    outcome = ops.embed(store, progress=(lambda d, t: texts(d, t, "")) if texts else None)
    done_line(texts)
    return outcome.embedded

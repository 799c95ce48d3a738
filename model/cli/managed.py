"""Sessions behind an API from the command line (Anthropic's managed agents; OpenAI's hosted agent sessions with
--openai): pull a workspace or project, send a message, interrupt, keep the key in the system keyring. Each prints
through `output`, one JSON shape each."""

from __future__ import annotations

import getpass
import sys

from sessionscope.cli.output import ACTOR, done_line, error, one_line, out, progress, terminal


def _api(args):
    """The API the options name: the package of Anthropic's managed agents, or with --openai OpenAI's hosted ones."""
    if getattr(args, "openai", False):
        from sessionscope.sources import openai_hosted
        return openai_hosted
    from sessionscope.sources import managed_agents
    return managed_agents


def _workspace(args) -> str | None:
    """The workspace or project the options name (None: every one already added)."""
    if getattr(args, "base_url", None) is None and getattr(args, "workspace", None) is None:
        return None
    return _api(args).location_of(args.base_url, args.workspace)


def _places(store, args) -> list[tuple[object, str]]:
    """(the API's package, location) of each place to pull: the one named; else every one added (of the API named
    with --openai, else of both); the first time, the API's default."""
    from sessionscope.sources import api_workspaces, managed_agents, openai_hosted

    named = _workspace(args)
    if named:
        return [(_api(args), named)]
    apis = [_api(args)] if args.openai else [managed_agents, openai_hosted]
    added = [(api, loc) for api in apis for loc in api_workspaces.locations(store, api.KIND)]
    return added or [(_api(args), _api(args).location_of())]


def pull(store, args):
    """Add the workspace named (or the default one, the first time) and pull every workspace's sessions."""
    from sessionscope.sources.scan import ImportReport

    places = _places(store, args)
    total = ImportReport()
    shown = progress(args, lambda done, n, label: f"{done} of {n} sessions: {label[:50]}")
    for api, loc in places:
        report = api.sync(store, loc, progress=shown, only=set(args.session) if args.session else None,
                          notify=lambda text: print(f"sessionscope: {terminal(text, mark=False)}", file=sys.stderr))
        for k in ("files_seen", "files_read", "events_added"):
            setattr(total, k, getattr(total, k) + getattr(report, k))
        total.sessions |= report.sessions
        total.problems += report.problems
        total.seconds += report.seconds
    done_line(shown)
    lines = [f"{total.files_read} of {total.files_seen} sessions changed, {total.events_added} new events, "
             f"{total.seconds:.2f} s ({', '.join(loc for _api, loc in places)})"]
    lines += [f"  {p['path']}: {p['problem']}" for p in total.problems]
    out(args, total.as_dict() | {"workspaces": [loc for _api, loc in places]}, "\n".join(lines))
    return 1 if total.problems else 0


def _act(store, args, action: str):
    from sessionscope import ops

    sid = store.resolve_session(args.session)
    ch = ops.send(store, sid, args.text, actor=ACTOR) if action == "send" else ops.interrupt(store, sid, actor=ACTOR)
    s = ch.session
    out(args, {"session": s.as_dict(), "events_added": ch.detail["events_added"], "problems": ch.detail["problems"]},
        f"{'sent to' if action == 'send' else 'interrupted'} {one_line(s.title or s.id, 60)} · now {s.status}, "
        f"{ch.detail['events_added']} new events")
    return 1 if ch.detail["problems"] else 0


def send(store, args):
    return _act(store, args, "send")


def interrupt(store, args):
    return _act(store, args, "interrupt")


def key(store, args):
    """Keep a workspace's API key in the system keyring (read from stdin or asked without echo, never an
    argument: shell history keeps arguments), or forget it."""
    from sessionscope.sources import remote

    api = _api(args)
    loc = _workspace(args) or api.location_of()
    if args.forget:
        remote.set_api_key(loc, None)
    elif args.set:
        value = getpass.getpass(f"API key for {loc}: ") if sys.stdin.isatty() else sys.stdin.readline()
        if not value.strip():
            error("no key given")
            return 2
        remote.set_api_key(loc, value.strip())
    origin = remote.key_origin(api.client.ENV_KEY, loc)
    out(args, {"workspace": loc, "key_from": origin}, f"{loc}: the key comes from {origin}")

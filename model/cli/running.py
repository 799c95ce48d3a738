"""`sessionscope run`: a session's agent run on from the terminal (sessionscope.ops.running). The reply is printed
as it streams (to stderr with --json, whose one object goes to stdout at the end); a tool call is asked about at the
terminal, and refused without a terminal unless --allow names its tool."""

from __future__ import annotations

import sys
import threading

from sessionscope.cli.output import ACTOR, out, terminal
from sessionscope.sources.running import Answer, Quiet, RunRequest, ToolAsk

_INPUT_MAX = 500  # characters of a tool's input shown in a question


class Terminal(Quiet):
    """The run shown at a terminal: the reply as it streams, each call and result in a line, each ask a question
    (y: once, a: always this session, n: no, with a reason the agent reads). Ctrl+C stops the run."""

    def __init__(self, allowed: tuple[str, ...], stream, asking: bool):
        super().__init__(allowed)
        self.stream, self.asking = stream, asking
        self._lock = threading.Lock()

    def said(self, text: str) -> None:
        super().said(text)
        self.stream.write(terminal(text, mark=False) if "\x1b" in text else _plain(text))
        self.stream.flush()

    def step(self, kind: str, text: str) -> None:
        super().step(kind, text)
        if kind == "session":
            return
        shown = terminal(" ".join(text.split())[:200], mark=False)
        self.stream.write(f"\n  {'→' if kind == 'call' else '✗' if kind == 'error' else '←'} {shown}\n")
        self.stream.flush()

    def ask(self, request: ToolAsk) -> Answer:
        if request.tool in self.allowed or not self.asking:
            return super().ask(request)
        with self._lock:
            import json
            given = terminal(json.dumps(request.input, ensure_ascii=False)[:_INPUT_MAX], mark=False)
            sys.stderr.write(f"\n{terminal(request.tool, mark=False)} wants to run: {given}\n"
                             "allow? [y] once, [a] always this session, [n] no: ")
            sys.stderr.flush()
            said = sys.stdin.readline().strip().lower()
            if said in ("y", "yes"):
                return Answer(True)
            if said in ("a", "always"):
                return Answer(True, always=True)
            sys.stderr.write("why not (the agent reads it; empty: no reason): ")
            sys.stderr.flush()
            return Answer(False, message=sys.stdin.readline().strip()[:2000] or "The user refused this call.")


def _plain(text: str) -> str:
    """The reply's text as a terminal shows it: its control characters escaped, its line breaks kept."""
    return "\n".join(terminal(line, mark=False) for line in text.split("\n"))


def run(store, args):
    from sessionscope import ops
    from sessionscope.cli.commands import event_in

    sid = store.resolve_session(args.session)
    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    at = event_in(store, sid, args.at) if args.at else None
    request = RunRequest(prompt, fork=args.fork, at=at, model=args.model, permission_mode=args.permission_mode,
                         allowed=tuple(args.allow))
    asking = sys.stdin.isatty() and args.prompt != "-"
    listener = Terminal(request.allowed, sys.stderr if args.json else sys.stdout, asking)
    try:
        ch = ops.run(store, sid, request, listener, actor=ACTOR)
    except KeyboardInterrupt:  # a second Ctrl+C while the run stops: the run is gone, its transcript is kept
        listener.stop.set()
        raise
    d = ch.detail
    text = (f"\n{ch.note}" + (f"\nrefused: {', '.join(a['tool'] for a in d['asked'] if not a['allowed'])}"
                              if any(not a["allowed"] for a in d["asked"]) else ""))
    out(args, {"session": ch.session.as_dict() if ch.session else None, "run": d, "reply": "".join(listener.reply)},
        text)
    return 0 if d["ended"] == "success" else 1

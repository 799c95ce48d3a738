"""`sessionscope hook`: what an agent's hook says of its session, written to the store at once (#35).

Claude Code, Codex and Gemini CLI run a command at points of a turn (a permission prompt opens, the turn ends, a
tool starts or finishes, the session starts or ends) and give it JSON on stdin; Codex's older `notify` program
gets it as its last argument. This is that command. It keeps one row a session in `live_signal` (the newest
signal wins; sessionscope.live.states reads it as the exact state the transcript can only suggest).

It runs at every step of the agent, so it must cost the agent nothing: the standard library and sqlite3 alone
(no SQLAlchemy: the whole process takes a few tens of milliseconds), a 30 ms wait at most for a locked store,
after which the signal goes to a spool file beside the store that the next import, `status` or the app reads
(sessionscope.live.signals.drain). It never fails the agent and never speaks: it exits 0 and writes nothing to stdout
or stderr, since Claude Code reads a hook's stdout as context for the model and Gemini CLI reads stdout, or
stderr when stdout is empty, as a message to show. What goes wrong is logged to hook.log beside the spool.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
import time

TOOLS = {"claude": "claude_code", "codex": "codex", "gemini": "gemini"}  # --tool NAME → the source kind
DETAIL = 300  # characters of what the hook said that are kept
LOCK_WAIT_S = 0.03
LOG_LIMIT = 256 * 1024  # hook.log is started again past this
SHELLS = {"sh", "bash", "dash", "zsh", "fish", "ksh", "busybox", "cmd.exe", "powershell.exe", "pwsh", "pwsh.exe"}
UPSERT = ("INSERT INTO live_signal (tool, tool_session, event, detail, ts, pid) VALUES (?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (tool, tool_session) DO UPDATE SET event = excluded.event, detail = excluded.detail, "
          "ts = excluded.ts, pid = excluded.pid WHERE excluded.ts >= live_signal.ts")
# Gemini CLI's own event names, and Codex's notify payload: how a hook's input says which tool sent it when
# the command line does not
GEMINI_EVENTS = {"BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel",
                 "BeforeToolSelection", "PreCompress"}


HELP = """usage: sessionscope hook --tool {claude,codex,gemini} [--store STORE]

What an agent's hooks run (`sessionscope hooks install` puts it in their settings): it reads the hook's JSON from
stdin (Codex: the last argument), keeps the session's state in the store (or, when the store is locked or not made
yet, in a spool beside it) and prints nothing, so the agent sees nothing. Run by hand, it reads nothing and exits.
"""


def run(argv: list[str]) -> int:
    """The command: always 0, always silent."""
    tool = store = payload = None
    if "--help" in argv or "-h" in argv:  # a person asking: said, and nothing read from stdin
        sys.stdout.write(HELP)
        return 0
    try:
        rest = list(argv)
        while rest:
            arg = rest.pop(0)
            if arg in ("--tool", "--store") and rest:
                value = rest.pop(0)
                tool, store = (value, store) if arg == "--tool" else (tool, value)
            elif arg.lstrip().startswith("{"):
                payload = arg  # Codex's notify: the JSON is the last argument
        if payload is None:
            if sys.stdin is None or sys.stdin.isatty():
                return 0  # run by hand: nothing to read, and nothing to wait for
            payload = sys.stdin.buffer.read()
        row = signal(json.loads(payload), tool)
        if row is not None:
            write(store, row)
    except Exception as exc:  # noqa: BLE001 — nothing may reach the agent; the log says what happened
        log(store, f"{type(exc).__name__}: {exc}")
    return 0


def signal(obj, tool: str | None) -> tuple | None:
    """The row a hook's input makes: (tool, tool session, event, detail, ts, pid), or None when it names no
    session."""
    if not isinstance(obj, dict):
        raise ValueError("the hook's input is not a JSON object")
    session = obj.get("session_id") or obj.get("thread-id") or obj.get("thread_id")
    event = obj.get("hook_event_name") or obj.get("type")
    if not isinstance(session, str) or not isinstance(event, str) or not 0 < len(session) <= 200:
        raise ValueError(f"no session id or event name in the hook's input (keys {sorted(obj)[:12]})")
    kind = TOOLS.get(tool or "") or _guess(obj, event)
    kind_of = obj.get("notification_type")
    if event == "Notification" and isinstance(kind_of, str):
        event = f"Notification/{kind_of[:40]}"
    return (kind, session, event[:60], _detail(obj)[:DETAIL], time.time(), _agent_pid())


def _guess(obj: dict, event: str) -> str:
    if event in GEMINI_EVENTS or ("timestamp" in obj and event in ("SessionStart", "SessionEnd", "Notification")):
        return "gemini"
    if "thread-id" in obj or "turn_id" in obj or "turn-id" in obj:
        return "codex"
    return "claude_code"


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _detail(obj: dict) -> str:
    """What the signal is about, in a line: the tool and what it acts on, the notification's words, the reply
    that ended the turn, the prompt that started one, why the session started or ended."""
    name = _text(obj.get("tool_name"))
    if name:
        args = obj.get("tool_input") if isinstance(obj.get("tool_input"), dict) else {}
        what = next((args[k] for k in ("command", "file_path", "path", "url", "pattern", "description", "query")
                     if isinstance(args.get(k), str)), "")
        return f"{name}: {what}" if what else name
    for key in ("message", "error", "last_assistant_message", "prompt_response", "last-assistant-message", "prompt"):
        if _text(obj.get(key)):
            return obj[key]
    return _text(obj.get("reason")) or _text(obj.get("source"))


def _agent_pid() -> int | None:
    """The agent's process: the hook's parent, or the parent's parent when a shell ran the hook's command line.
    Linux tells it from /proc; elsewhere the parent is kept as it is."""
    pid = os.getppid()
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("utf-8", "replace")
        name, after = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        if name in SHELLS:
            return int(after[1])  # (state, ppid, ...)
    except (OSError, ValueError, IndexError):
        pass
    return pid if pid > 1 else None


def store_file(store: str | None) -> str | None:
    """The SQLite file of the store (--store, $SESSIONSCOPE_STORE, the default); None for a database server,
    and for "spool:", which `hooks install` writes when the store is one."""
    if store == "spool:":
        return None
    from sessionscope.store.locations import sqlite_path
    path = sqlite_path(store)
    return None if path is None else os.fspath(path)


def spool_file(store: str | None) -> str:
    """Where signals wait when the store cannot take them: beside a SQLite store; for a database server, in
    the user data dir (a server's URL may hold a password, so it names no file)."""
    path = store_file(store)
    if path is not None:
        return path + ".hook-spool.jsonl"
    from sessionscope.store.locations import default_store_file
    return os.fspath(default_store_file().with_name("hook-spool.jsonl"))


def write(store: str | None, row: tuple) -> None:
    path = store_file(store)
    why = "the store is not a SQLite file"
    if path is not None and os.path.isfile(path):
        try:
            conn = sqlite3.connect(path, timeout=LOCK_WAIT_S, isolation_level=None)
            try:
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(UPSERT, row)
                return
            finally:
                conn.close()
        except sqlite3.Error as exc:  # locked, older schema, read-only, full disk: the spool keeps it
            why = str(exc)
    elif path is not None:
        why = "no store there yet"
    spool(store, row, why)


def spool(store: str | None, row: tuple, why: str) -> None:
    """Append the signal to the spool, one JSON line, under an exclusive lock (sessionscope.live.signals.drain takes
    the file away by renaming it, then takes the lock: a writer that opened the old file checks, once it holds
    the lock, that it still writes to the spool, and opens it again if not)."""
    path = spool_file(store)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)  # (the data dir, before any store was made)
    line = (json.dumps(list(row), ensure_ascii=True) + "\n").encode()
    for _attempt in range(3):
        try:
            fd = _open_private(path)
        except OSError as exc:  # a link or another's file planted at its path: nothing written through it
            log(store, f"the spool at {path} is not a file of ours ({exc}): a {row[2]!r} signal is lost")
            return
        try:
            _lock(fd)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except OSError:
                same = False
            if same:
                os.write(fd, line)
                break
        finally:
            os.close(fd)  # (closing releases the lock)
    log(store, f"spooled a {row[2]!r} signal ({why})")


def _open_private(path: str) -> int:
    """`path` opened to append, made 0600 if new, never through a link (O_NOFOLLOW) and only when it is a plain
    file of this user's: a link planted at the spool's or the log's path (with the store locked, the hook appended
    to the link's target) is refused. A file of ours an older version made 0644 is made private."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            raise OSError(f"{path} is not a plain file of this user's")
        if st.st_mode & 0o077 and hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: appends of one short line do not interleave there either
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


def log(store: str | None, text: str) -> None:
    """One line in hook.log beside the spool; never raises (the agent must not see it)."""
    try:
        path = os.path.join(os.path.dirname(spool_file(store)), "hook.log")
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size > LOG_LIMIT:
            os.replace(path, path + ".1")
        with os.fdopen(_open_private(path), "a", encoding="utf-8", errors="replace") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {text!r}\n"[:2000])
    except Exception:  # noqa: BLE001
        pass

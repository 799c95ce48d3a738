"""Fork and rewind a LangGraph thread through langgraph's own API, in the user's database.

Both write into a file another tool owns, so the app asks first, naming the file
(`LangGraphSource.fork_prompt`), and every write is recorded in the audit log.
Nothing is ever changed or removed there: each action adds one checkpoint.

- Rewind to a checkpoint: `update_state(config, None, as_node="__copy__")`, which
  is how LangGraph forks a thread: a copy of the checkpoint under the same parent
  becomes the thread's latest, so the next `invoke(None, thread)` runs on from it
  and what came after stays in the history as a branch.
- Fork at a checkpoint: a new thread whose first checkpoint is a copy of it
  (`SqliteSaver.put`, as `update_state`'s copy does), its metadata naming where
  it came from; the application resumes it by the new thread id.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import orjson

from sessionscope.errors import MissingExtra, NotFound, Refused, failure
from sessionscope.history.read_models import Action, Changes
from sessionscope.sources.langgraph import reader
from sessionscope.sources.langgraph.importer import import_paths, session_key, step_id
from sessionscope.sources.server_databases import is_address


def target(store, session_id: str, event_id: str) -> tuple[reader.Place, str, str]:
    """(database: a file, or a server database's address; thread id; checkpoint id) of the checkpoint an event
    belongs to."""
    s = store.session(session_id)
    meta = s.meta if isinstance(s.meta, dict) else {}
    path, thread = meta.get("database"), meta.get("thread_id") or s.tool_id
    if not path or not thread:
        raise Refused(f"session {session_id} does not say which LangGraph database it came from")
    e = store.event(event_id)
    try:
        p = orjson.loads(e.payload) if e.payload.startswith("{") else {}
    except orjson.JSONDecodeError:
        p = {}
    if "checkpoint_id" not in p and e.parent_id:  # a fact: its checkpoint is the step it hangs under
        return target(store, session_id, e.parent_id)
    if "checkpoint_id" not in p:
        raise Refused("that event is not part of a LangGraph checkpoint")
    if e.session_id != session_id:
        raise Refused("that checkpoint belongs to the thread this one was forked from: act on that thread")
    if p.get("checkpoint_ns"):
        raise Refused("that checkpoint is a subgraph's: fork or rewind the graph at its parent's checkpoint")
    if is_address(path):
        return path, str(thread), str(p["checkpoint_id"])
    if not Path(path).is_file():
        raise Refused(f"the database {path} is not there any more")
    return Path(path), str(thread), str(p["checkpoint_id"])


def _copier(sv):
    """A compiled graph over the user's checkpointer: `update_state`'s copy uses none of its nodes."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class Nothing(TypedDict):
        pass

    g = StateGraph(Nothing)
    g.add_node("sessionscope_copy", lambda _state: {})
    g.add_edge(START, "sessionscope_copy")
    g.add_edge("sessionscope_copy", END)
    return g.compile(checkpointer=sv)


def _write(path: reader.Place, action: str, do):
    con = reader.connect(path, write=True)
    if not is_address(path):
        con.execute("PRAGMA busy_timeout = 5000")  # the application may be writing its next step
    try:
        return do(reader.saver(con))
    finally:
        con.close()


def _read_again(store, path: reader.Place):
    """What the action added, read back as an import of the database does."""
    if is_address(path):
        from sessionscope.sources.server_databases import import_address
        return import_address(store, path)
    return import_paths(store, [path])


def _label(path: reader.Place) -> str:
    return path if is_address(path) else path.name


def rewind(store, session_id: str, to: str) -> Changes:
    """The thread continues from `to`: a copy of it becomes the thread's latest checkpoint."""
    path = thread = cid = None
    try:
        path, thread, cid = target(store, session_id, to)

        def copy(sv):
            config = {"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": cid}}
            return _copier(sv).update_state(config, None, as_node="__copy__")["configurable"]["checkpoint_id"]
        new = _write(path, "rewind", copy)
    except Exception as exc:
        raise _said(exc, path) from exc
    report = _read_again(store, path)
    detail = {"file": str(path), "thread_id": thread, "checkpoint_id": cid, "new_checkpoint": new}
    return Changes(Action.REWIND, session_ids=frozenset({session_id}) | report.sessions, session_list=True,
                   session=store.session(session_id),
                   detail=detail, note=f"thread {thread} of {_label(path)} continues from checkpoint {cid}")


def fork(store, session_id: str, at: str, title: str | None = None) -> Changes:
    """A new thread in the same database starting from a copy of `at`'s checkpoint."""
    path = thread = cid = None
    new_thread = ""
    try:
        path, thread, cid = target(store, session_id, at)
        new_thread = f"{thread}-fork-{uuid.uuid4().hex[:8]}"

        def copy(sv):
            from langgraph.checkpoint.base import create_checkpoint
            t = sv.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": cid}})
            if t is None:
                raise NotFound(f"checkpoint {cid} is not in {path} any more")
            step = int((t.metadata or {}).get("step", -1))
            checkpoint = create_checkpoint(t.checkpoint, None, step)
            metadata = {"source": "fork", "step": step, "parents": {},
                        "forked_from": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": cid}}
            sv.put({"configurable": {"thread_id": new_thread, "checkpoint_ns": ""}}, checkpoint, metadata,
                   dict(checkpoint["channel_versions"]))
            return checkpoint["id"]
        new = _write(path, "fork", copy)
    except Exception as exc:
        raise _said(exc, path) from exc
    report = _read_again(store, path)
    new_id = session_key(path, new_thread)
    if title:
        store.rename(new_id, title)
    detail = {"file": str(path), "thread_id": thread, "checkpoint_id": cid, "new_thread": new_thread,
              "new_checkpoint": new, "new_session": new_id}
    return Changes(Action.FORK, session_ids=frozenset({session_id, new_id}) | report.sessions, session_list=True,
                   session=store.session(new_id),
                   detail=detail, note=f"new thread {new_thread} in {_label(path)}")


def _said(exc: Exception, path) -> Exception:
    """A fork or rewind that did not happen, as one line a user can act on, with the file it concerned."""
    if isinstance(exc, (Refused, NotFound, MissingExtra)):  # already said
        return failure(exc, detail={"file": str(path or "")})
    return failure(Refused(f"could not write to {path}: {type(exc).__name__}: {exc}"), "error", {"file": str(path or "")})


def resume_line(path: Path | str, thread_id: str) -> str:
    """The Python an application resumes the thread with (LangGraph has no command line)."""
    saver = "PostgresSaver" if is_address(str(path)) else "SqliteSaver"
    return (f"graph.invoke(None, {{'configurable': {{'thread_id': {thread_id!r}}}}})  "
            f"# graph compiled with {saver}.from_conn_string({str(path)!r})")


__all__ = ["fork", "rewind", "resume_line", "step_id", "target"]

"""What a source can do with its sessions: one `Source` a tool, the store's own operations by default.

The app and the CLI never ask which tool a session came from: they ask its source
(`sessionscope.sources.of(kind)`) and call the same methods for every tool. A tool's
package overrides what it does its own way (Claude Code forks by writing a new
transcript; a native session's head just moves).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessionscope.errors import InvalidInput, PartlyDone, Refused
from sessionscope.history import lifecycle
from sessionscope.history.read_models import Changes
from sessionscope.safety.untrusted import resumable_id
from sessionscope.sources.describe import Section


@dataclass(frozen=True)
class ToolFormat:
    """A tool's own format an export can write (Claude Code's transcript): where it goes by default is the
    tool's own place, so the export asks for a folder, or none."""

    key: str  # ExportRequest.format
    label: str
    folder_hint: str  # the path box's placeholder
    browse_title: str


def command_line(session, command: list[str]) -> str:
    """`command` as a user pastes it into a terminal: run in the session's folder, each word quoted."""
    cd = f"cd {shlex.quote(session.cwd)} && " if session.cwd else ""
    return cd + shlex.join(command)


class Source:
    """The operations on one tool's sessions. Threading: plain functions, run them on a worker."""

    kind = "native"
    label = "Sessionscope"
    badge = ("native", "#666666")  # the session list's short name, on this colour (white text keeps AA)
    # programs a resume may start (a terminal runs the first word of resume_command)
    resume_programs: tuple[str, ...] = ()
    has_checkpoints = False  # keeps file checkpoints: Restore Code to Here applies
    single_tag = False  # the tool keeps one tag a session (claude-agent-sdk's tag_session)
    # -- what the front ends offer for it (capabilities; the window never names a tool) --
    takes_messages = False  # the window offers a message box (the composer) under its timeline
    runs_here = False  # an agent runs it on from here: a prompt, permissions asked, the reply streamed (`run`)
    run_models: tuple[str, ...] = ()  # the models a run from here offers (any other may be typed)
    streams = False  # a running session's events arrive as its API streams them (`follow`), not only by a pull
    remote_home = ""  # where its sessions run, when not on this machine ("Anthropic")
    live_statuses: tuple[str, ...] = ()  # statuses in which it changes elsewhere: pulled often while it is shown
    workspaces = None  # sessions behind an API: the workspaces pulled (Settings lists them; the window pulls them)
    export_formats: tuple[ToolFormat, ...] = ()  # the tool's own formats an export writes
    # a tree the tool lays out by folders: (the subfolders that, all present, mark it; those of them it reads
    # through its sessions' files, never as files of their own: OpenCode's `message/` and `part/` beside
    # `session/`). A folder's import leaves those unopened instead of recognising each file (importing._files).
    companion_folders: tuple[frozenset[str], frozenset[str]] | None = None
    # what the app says before a fork or rewind, where the tool does it its own way
    fork_note = ""
    rewind_note = "The session's head moves back to this event; what follows stays visible as a branch."

    # -- what applies -------------------------------------------------------------

    def remote_live(self, session) -> tuple[str, str] | None:
        """For a session behind an API: (live state, why) when its service's report says more than its status (a
        required action waiting on you); None: its status says it (sessionscope.live.states)."""
        return None

    def refusal(self, action: str, status: str | None) -> str | None:
        """Why `action` (resume, rewind, compact, restore_files, write_back, …) does not apply to a session in
        `status`, in words a user can act on; None when it applies. The one rule every front end reads
        (sessionscope.ops refuses with these words; the window greys the action out and shows them)."""
        if action == "restore_files":
            return None if self.has_checkpoints else f"a {self.label} session keeps no file checkpoints"
        if action == "write_back":  # only a tool whose format is written here
            return None if type(self).write_back is not Source.write_back else \
                f"a {self.label} session has no file of a tool's to write back"
        if action == "copy_resume":  # a line to paste exists wherever resuming does
            return self.refusal("resume", status)
        if action == "run":  # (ops asks `run_refusal`, which may also look at the session itself)
            return None if self.runs_here else f"a {self.label} session is not run from here"
        if action in ("send", "interrupt"):  # only an agent that runs somewhere else takes messages from here
            return f"only an agent that runs elsewhere takes messages from here, and this is a {self.label} session"
        if action not in lifecycle.TRANSITIONS:  # rename, tag, export: no rule of the lifecycle's
            return None
        if status is None:
            return "no session is chosen"
        return None if lifecycle.allows(status, action) else lifecycle.why_not(status)

    @property
    def programs(self) -> tuple[str, ...]:
        """The tool's programs, as a running session's process is named (sessionscope.live.processes)."""
        return tuple(self.resume_programs)

    def turn(self, tail) -> Any:
        """What the session's last events (sessionscope.live.states.TailEvent, oldest first) say of its turn: a
        live.Turn, or None where they say nothing (its state is then plain recency). By default who spoke last
        (sessionscope.live.states.by_kinds); a tool whose lines say more reads them its own way."""
        from sessionscope.live.turns import by_kinds
        return by_kinds(tail)

    def allows(self, action: str, status: str | None) -> bool:
        """Whether `action` applies to a session in `status` (for enabling menu items)."""
        return self.refusal(action, status) is None

    def not_ours_to_compact(self) -> str:
        return (f"a {self.label} session is not compacted by Sessionscope (the summary would be a line {self.label} "
                f"never wrote); compact it in {self.label} itself")

    def describe(self, session) -> list[Section]:
        """What the tool says of the session beyond the store's fields (the Session tab's sections)."""
        return []

    def summary(self, session) -> str:
        """A few lines for the session list's tooltip ("" for none)."""
        return ""

    def only_a_copy(self, session) -> str:
        """Why the session is only the copy kept here, the tool having deleted it ("" while the tool has it)."""
        return ""

    def fork_prompt(self, session) -> str:
        """What the app says before a fork of this session, where the tool does it its own way."""
        return self.fork_note

    def rewind_prompt(self, session) -> str:
        """What the app says before a rewind (a tool writing its own file names that file)."""
        return self.rewind_note

    # -- finding and importing ----------------------------------------------------

    def default_roots(self) -> list[Path]:
        """The places the tool keeps its sessions on this machine (the first run imports them)."""
        return []

    def sniff(self, obj: Any) -> bool:
        """Whether a file whose first JSON line is `obj` is this tool's (sessionscope.sources.importing)."""
        return False

    def claims(self, path: Path) -> bool:
        """Whether a database file is this tool's (sessionscope.sources.importing asks for .db/.sqlite files)."""
        return False

    def kind_for(self, path: Path) -> str:
        """The tool a file of this tool's format belongs to: where a fork keeps the same format (Roo Code and Kilo
        Code keep Cline's files, Kilo's CLI OpenCode's tables), only the place it lies in tells them apart."""
        return self.kind

    def claims_server(self, conn) -> bool:
        """Whether a database on a PostgreSQL server holds this tool's tables (sessionscope.sources.server_databases)."""
        return False

    def import_server(self, store, address: str, conn, report) -> None:
        """Import what this tool keeps in the database at `address` (`conn`: open on it, read only)."""
        raise Refused(f"{self.label} sessions are not read from a database server")

    def import_paths(self, store, paths, *, progress=None, cancel=None, warm: bool = True, only=None):
        """Import files or folders of this tool's sessions (only the files in `only`, when given)."""
        raise Refused(f"{self.label} sessions are not imported from files")

    def catch_up(self, store, settle: float = 0.0):
        """What this tool wrote into the store itself (as an agent's backend) and no session shows yet, shown
        now (an ImportReport), or None. Asked every few seconds by the app, so cheap when nothing is new;
        what changed less than `settle` seconds ago is left to the agent's own process, still writing it."""
        return None

    # -- acting ---------------------------------------------------------------------

    def resume_command(self, session) -> list[str] | None:
        """The tool's own command that resumes the session (run in its cwd); None: resumed in the store."""
        return None

    def resume_line(self, session) -> str:
        """What a user can paste into a terminal to resume the session."""
        command = self.resume_command(session)
        if command is None:
            return f"sessionscope resume {session.id}"
        return command_line(session, command)

    def continue_command(self, session, prompt: str) -> list[str] | None:
        """The tool's command that opens the session with `prompt` as its next message (Fork Here and Continue),
        or None where the tool takes no first prompt on resume, or has no file of this session to open (a fork
        only the store holds): then the prompt is the session's next message in the store."""
        return None

    def terminal_argv(self, template: str, session, command: list[str] | None = None) -> list[str]:
        """Fill a terminal template ("x-terminal-emulator -e {command}") with the resume command (or `command`)
        and check the program is allowed."""
        command = command or self.resume_command(session)
        if command is None:
            raise Refused(f"a {self.label} session resumes in the store, not in a terminal")
        if command[0] not in self.resume_programs:
            raise Refused(f"{command[0]!r} is not on the list of programs Sessionscope may start")
        parts = shlex.split(template)
        if "{command}" not in parts:
            raise InvalidInput("the terminal command needs a {command} placeholder")
        i = parts.index("{command}")
        return parts[:i] + command + parts[i + 1:]

    def fork(self, store, session_id: str, at: str, title: str | None = None) -> Changes:
        """A new session holding the branch up to `at` (it ends there)."""
        return store.fork(session_id, at, title)

    def rewind(self, store, session_id: str, to: str) -> Changes:
        """Back to `to`: later events branch from there."""
        return store.rewind(session_id, to)

    def rename(self, store, session_id: str, title: str) -> Changes:
        return store.rename(session_id, title)

    def tag(self, store, session_id: str, tags: list[str]) -> Changes:
        return store.set_tags(session_id, tags)

    def archive(self, store, session_id: str) -> Changes:
        return store.archive(session_id)

    def delete(self, store, session_id: str, remove_files: bool = False) -> Changes:
        """Delete the session (from the store; a tool that keeps sessions elsewhere may delete there). With
        `remove_files`, the files Sessionscope itself wrote for it (`written_files`) go too."""
        files = self.written_files(store, session_id) if remove_files else []
        ch = store.delete(session_id)
        removed = []
        for path in files:  # after the store let go of it: a refused delete removes nothing
            try:
                path.unlink()
                removed.append(str(path))
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise PartlyDone(f"the session was deleted, but {path} could not be removed: {exc}") from exc
        import dataclasses
        return dataclasses.replace(ch, files=tuple(removed))

    def written_files(self, store, session_id: str) -> list[Path]:
        """The files Sessionscope wrote for this session (a fork's or a rewind's transcript) that still exist."""
        return []

    def delete_prompt(self, session) -> str:
        """What the app asks before Delete."""
        return (f"Delete “{session.title or session.id}” and its {session.event_count} events from the store for "
                "good?\n\nThe deletion is recorded in the audit log. Files another tool owns are not touched.")

    def write_back(self, store, session_id: str, target: Path | None = None) -> list[Path]:
        """Write a kept session back where the tool finds it (as new files; returns them)."""
        raise Refused(f"a {self.label} session has no file of a tool's to write back")

    def send(self, store, session_id: str, text: str) -> Changes:
        """A user message to an agent that runs elsewhere (sources behind an API override it)."""
        raise Refused(f"only an agent that runs elsewhere takes messages from here, and this is a {self.label} session")

    def run(self, store, session, request, listener):
        """Run an agent on `session` from here (sessionscope.sources.running); a RunOutcome once it ends."""
        raise Refused(f"a {self.label} session is not run from here")

    def run_refusal(self, session) -> str | None:
        """Why this one session is not run from here (None: it is): the tool's rule, and the session's own where
        only some of a source's sessions run (the store's own, kept by an SDK's application)."""
        return self.refusal("run", session.status)

    def follow(self, store, session_id: str, listener) -> int:
        """Follow a session running elsewhere as its API streams its events (a source that `streams`): each event
        pulls the session, the reply's pieces go to `listener.said`; returns the events added once it stops running
        or `listener.stopped()`."""
        raise Refused(f"a {self.label} session is not followed as it runs")

    def interrupt(self, store, session_id: str) -> Changes:
        """Stop an agent that runs elsewhere (sources behind an API override it)."""
        raise Refused(f"only an agent that runs elsewhere is interrupted from here, and this is a {self.label} session")

    # -- file checkpoints -----------------------------------------------------------

    def changed_files(self, store, session_id: str) -> dict[str, list[str]]:
        """{prompt id: the files its turn changed}."""
        return {}

    def files_at(self, store, session_id: str, event_id: str) -> tuple[str | None, list[Any]]:
        """(the prompt of the event's turn, its checkpoint's files)."""
        return None, []

    def restore_plan(self, store, session_id: str, event_id: str, into: str | None = None):
        raise Refused(f"a {self.label} session keeps no file checkpoints")


class NativeSource(Source):
    """The store's own sessions. Those an OpenAI Agents SDK application keeps here run on from here."""

    runs_here = True  # (some of them: run_refusal says which)
    run_models = ("gpt-4.1", "gpt-4.1-mini", "o4-mini")

    def run_refusal(self, session) -> str | None:
        from sessionscope.sources.agents_sdk import runner
        return runner.refusal(session)

    def run(self, store, session, request, listener):
        from sessionscope.sources.agents_sdk import runner
        return runner.run(store, session, request, listener)


NATIVE = NativeSource()


class ToolSource(Source):
    """A tool whose files Sessionscope reads and, where it has one, whose own command resumes a session;
    fork and rewind are the store's own (the tool's files are never touched). `package` names the module
    that has the tool's `default_roots`, `sniff` (and `claims`, for files that are not JSON) and
    `import_paths`."""

    package = ""
    resume_args: tuple[str, ...] = ()  # the command before the session's id, e.g. ("codex", "resume"); () none
    # where only some of a tool's sessions resume from a terminal (a CLI's, not an editor's chats): (the session
    # meta key that says which, its value for those, why the others do not)
    resumes_only: tuple[str, str, str] | None = None

    @property
    def resume_programs(self) -> tuple[str, ...]:
        return self.resume_args[:1]

    def _module(self):
        import importlib
        return importlib.import_module(self.package)

    def refusal(self, action: str, status: str | None) -> str | None:
        if action == "resume":  # the tool resumes it, whatever the store's status
            return None if self.resume_args else f"{self.label} has no command that resumes a session"
        if action == "compact":  # a summary of ours is not a line the tool wrote
            return self.not_ours_to_compact()
        return super().refusal(action, status)

    def default_roots(self) -> list[Path]:
        return self._module().default_roots()

    def sniff(self, obj: Any) -> bool:
        sniff = getattr(self._module(), "sniff", None)
        return bool(sniff and sniff(obj))

    def claims(self, path: Path) -> bool:
        claims = getattr(self._module(), "claims", None)
        return bool(claims and claims(path))

    def kind_for(self, path: Path) -> str:
        kind_for = getattr(self._module(), "kind_for", None)
        return kind_for(path) if kind_for else self.kind

    def claims_server(self, conn) -> bool:
        claims = getattr(self._module(), "claims_server", None)
        return bool(claims and claims(conn))

    def import_server(self, store, address: str, conn, report) -> None:
        self._module().import_server(store, address, conn, report)

    def import_paths(self, store, paths, *, progress=None, cancel=None, warm: bool = True, only=None):
        return self._module().import_paths(store, paths, progress=progress, cancel=cancel, warm=warm, only=only)

    def resume_command(self, session) -> list[str] | None:
        if self.resumes_only and (session.meta or {}).get(self.resumes_only[0]) != self.resumes_only[1]:
            raise Refused(self.resumes_only[2])
        return [*self.resume_args, resumable_id(session, self.label)] if self.resume_args else None

    def resume_line(self, session) -> str:
        if not self.resume_args:
            raise Refused(f"{self.label} has no command that resumes a session")
        line = super().resume_line(session)
        if not session.cwd:  # the tool finds a session from its project's folder, which the file did not name
            return f"cd YOUR-PROJECT-FOLDER && {line}  # {self.label} resumes a session in the folder it ran in"
        return line


class LibrarySource(ToolSource):
    """A tool whose sessions an application resumes through the tool's library, not a command (Agents SDK,
    LangGraph): Copy Resume gives the line of code (`resume_line`, each tool's own)."""

    def refusal(self, action: str, status: str | None) -> str | None:
        if action == "copy_resume":
            return None
        return super().refusal(action, status)

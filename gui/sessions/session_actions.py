"""What the session actions do: each asks what it needs (a title, a yes), runs its operation
(sessionscope.ops) off the UI thread, reports a failure with what to do, and hands the operation's
Changes to the window (`sig_changes`), which fans them out to the parts that show them.

Two parts act through the same `run` and `fail`: `batch` (the list's selection at once) and `restores` (files put
back from checkpoints).
"""

from __future__ import annotations

import os
import shlex
import subprocess

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from sessionscope import ops
from sessionscope.gui.dialogs import ask
from sessionscope.gui.jobs.workers import ACTOR, run_task
from sessionscope.gui.sessions.batch_actions import BatchActions
from sessionscope.gui.sessions.restore_actions import RestoreActions
from sessionscope.history.read_models import Action
from sessionscope.safety.untrusted import printable

DEFAULT_TERMINAL = "x-terminal-emulator -e {command}"


class SessionActions(QObject):
    sig_changes = Signal(object)  # sessionscope.history.read_models.Changes
    sig_message = Signal(str)
    sig_busy = Signal(str)  # an action started ("" when it ended): a fork of a big transcript takes seconds

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self.store = None
        self.batch = BatchActions(self)
        self.restores = RestoreActions(self)

    # -- helpers ----------------------------------------------------------------

    def fail(self, what: str):
        def show(exc: BaseException) -> None:
            from sessionscope.errors import IllegalTransition, InvalidInput, NotFound, Refused
            # refusals are decided before anything is written; any other failure may come after a write
            # (the action's own message says what was done then), so only they may say nothing changed
            settled = isinstance(exc, (Refused, InvalidInput, IllegalTransition, NotFound))
            QMessageBox.warning(self.window, f"Could not {what}", f"{exc}" + ("\n\nNothing was changed." if settled else ""))
        return show

    def run(self, what: str, fn, done=None) -> None:
        def finished(changes):
            self.sig_busy.emit("")
            self.sig_changes.emit(changes)
            if done:
                done(changes)

        def failed(exc):
            self.sig_busy.emit("")
            self.fail(what)(exc)
        self.sig_busy.emit(what)
        run_task(fn, finished, failed, owner=self)

    @staticmethod
    def enabled(session, event) -> dict[str, bool]:
        """Which actions apply to the selection: the rule table's (sessionscope.ops.RULES) for the session's
        source and status, and an event where the action acts at one."""
        from sessionscope.gui.window.action_table import TABLE
        return {row.id: row.enabled_for(session, event) for row in TABLE if row.rule or row.needs}

    # -- actions ----------------------------------------------------------------

    def resume(self, session) -> None:
        from sessionscope import sources
        from sessionscope.errors import Refused
        src = sources.of(session.source_kind)
        try:
            command = src.resume_command(session)
        except Refused as exc:  # an id read from a file that is not an id (it would reach the tool as an option)
            QMessageBox.warning(self.window, "Resume", str(exc))
            return
        if command is not None:  # the tool resumes it, in the user's terminal
            self.start_in_terminal("Resume in a terminal", session, command, "Resuming in a terminal")
            return
        store = self.store
        self.run("resume", lambda: ops.resume(store, session.id, actor=ACTOR),
                  lambda ch: self.sig_message.emit(f"{session.title or session.id[:8]} is active again"))

    def start_in_terminal(self, what: str, session, command: list[str], said: str) -> bool:
        """Run the tool's `command` in the session's folder, in the terminal Settings names; where that cannot be
        done, the line is put on the clipboard and the user told why. True when the terminal started."""
        from sessionscope import sources
        from sessionscope.sources.base import command_line
        src = sources.of(session.source_kind)
        line = command_line(session, command)
        if session.cwd and not os.path.isdir(session.cwd):  # the terminal is not what failed then
            QGuiApplication.clipboard().setText(shlex.join(command))
            QMessageBox.information(
                self.window, what,
                f"The session's folder {session.cwd} no longer exists, and the tool opens a session from "
                f"its folder.\n\nRecreate or restore the folder, then run (it is on the clipboard):\n{shlex.join(command)}")
            return False
        template = QSettings().value("resume/terminal", DEFAULT_TERMINAL)
        try:
            argv = src.terminal_argv(template, session, command)
            subprocess.Popen(argv, cwd=session.cwd or None, start_new_session=True)
        except Exception as exc:
            QGuiApplication.clipboard().setText(line)
            QMessageBox.information(self.window, what, f"Could not open a terminal ({exc}).\n\nThe command is on the "
                                    f"clipboard:\n{line}\n\nSet the terminal under Settings.")
            return False
        self.sig_message.emit(f"{said}: {shlex.join(argv)}")
        return True

    def fork_continue(self, session, event, chosen_note: str | None = None) -> None:
        """Fork at `event` and continue with notes and words the user picks (ContinueDialog); the session's notes
        are read on a worker first."""
        store = self.store
        run_task(lambda: store.notes(session.id), lambda notes: self._fork_continue(session, event, notes, chosen_note),
                 self.fail("read the notes"), owner=self)

    def _fork_continue(self, session, event, notes, chosen_note) -> None:
        from sessionscope.gui.dialogs.continue_dialog import ContinueDialog
        dialog = ContinueDialog(session, event, notes, chosen_note, self.window)
        if not dialog.exec():
            return
        store, prompt, title = self.store, dialog.prompt(), dialog.fork_title()
        self.run("fork and continue", lambda: ops.fork_and_continue(store, session.id, event.id, prompt, title,
                                                                     actor=ACTOR), self._continued)

    def _continued(self, ch) -> None:
        from sessionscope import sources
        went, fork = ch.detail["continue"], ch.session
        if went["command"] is None:
            self.sig_message.emit(f"Forked into {fork.title}; your note is its next message "
                                  f"({went['line']} picks it up)")
            return
        label = sources.of(fork.source_kind).label
        box = QMessageBox(QMessageBox.Icon.Question, "Fork Here and Continue",
                          f"Forked into “{printable(fork.title)}”. Start {label} on it now, with your note as its "
                          f"next prompt?\n\n{went['line']}", parent=self.window)
        start = box.addButton(f"Start {label}", QMessageBox.ButtonRole.AcceptRole)
        copy = box.addButton("Copy the Command", QMessageBox.ButtonRole.ActionRole)
        box.addButton("Not Now", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(start)
        box.exec()
        if box.clickedButton() is start:
            self.start_in_terminal("Fork Here and Continue", fork, went["command"], f"{label} continues the fork")
        elif box.clickedButton() is copy:
            QGuiApplication.clipboard().setText(went["line"])
            self.sig_message.emit(f"Copied: {went['line']}")

    def copy_resume(self, session) -> None:
        from sessionscope import sources
        from sessionscope.errors import Refused
        try:
            line = sources.of(session.source_kind).resume_line(session)
        except Refused as exc:
            QMessageBox.warning(self.window, "Copy Resume Command", str(exc))
            return
        QGuiApplication.clipboard().setText(line)
        self.sig_message.emit(f"Copied: {line}")

    def fork(self, session, event, end_of_turn: bool = False) -> None:
        """Fork at `event` (the new session ends there), or at the end of its turn."""
        from sessionscope import sources
        src = sources.of(session.source_kind)
        preview = printable(" ".join(event.text.split())[:60])
        where = (f"up to the end of the turn of event #{event.seq} (its last reply before the next prompt)"
                 if end_of_turn else f"up to and including event #{event.seq} and nothing after it")
        text = f"The new session holds the conversation {where}:\n“{preview}”"
        if note := src.fork_prompt(session):
            text += f"\n\n{note}"
        title = ask.text(self.window, "Fork at End of Turn" if end_of_turn else "Fork",
                         f"{text}\n\nTitle of the new session:", f"{session.title or session.id[:8]} (fork)")
        if title is None:
            return
        store = self.store

        def done(ch):
            self.sig_message.emit(f"Forked into {ch.session.title}" + (f" ({ch.note})" if ch.note else ""))
        self.run("fork", lambda: ops.fork(store, session.id, event.id, title, end_of_turn=end_of_turn, actor=ACTOR),
                  done)

    def rewind(self, session, event) -> None:
        from sessionscope import sources
        src = sources.of(session.source_kind)
        import time
        preview = printable(" ".join(event.text.split())[:60]) or event.kind
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(event.ts)) if event.ts else ""
        if QMessageBox.question(self.window, "Rewind",
                                f"Rewind to event #{event.seq}{', ' + when if when else ''}:\n“{preview}”\n\n"
                                f"{src.rewind_prompt(session)}\n\nRewind to this event?") \
                != QMessageBox.StandardButton.Yes:
            return
        store = self.store
        self.run("rewind", lambda: ops.rewind(store, session.id, event.id, actor=ACTOR), lambda ch: self.sig_message.emit(
            "Rewound" + (f" ({ch.note})" if ch.note else "")))

    def compact(self, session) -> None:
        summary = ask.text(self.window, "Compact", "Summary of the session so far:", lines=True)
        if summary is not None:
            store = self.store
            self.run("compact", lambda: ops.compact(store, session.id, summary, actor=ACTOR))

    def rename(self, session) -> None:
        title = ask.text(self.window, "Rename", "New title:", session.title or "")
        if title is not None:
            store = self.store
            self.run("rename", lambda: ops.rename(store, session.id, title, actor=ACTOR))

    def tag(self, session) -> None:
        from sessionscope import sources
        from sessionscope.gui.sessions.tag_edit import TagsDialog
        dialog = TagsDialog([session], self.batch.known_tags(), single_tag=sources.of(session.source_kind).single_tag,
                            parent=self.window)
        if dialog.exec():
            self.set_tags(session, dialog.added())

    def set_tags(self, session, tags: list[str]) -> None:
        """All of the session's tags (the Tags dialog; the list's Tags cell typed in)."""
        if sorted(set(tags)) == sorted(session.tags):
            return
        store = self.store
        self.run("tag", lambda: ops.tag(store, session.id, tags, actor=ACTOR),
                  lambda ch: self.sig_message.emit(f"Tagged {', '.join(tags)}" if tags else "Tags cleared"))

    def write_back(self, session) -> None:
        """Write the session back where its tool finds it (never over an existing file)."""
        from sessionscope import sources
        src = sources.of(session.source_kind)
        if QMessageBox.question(
                self.window, "Write back",
                f"Write “{session.title or session.id[:8]}” back where {src.label} finds it, as a new file (an "
                "existing file is never replaced)?") != QMessageBox.StandardButton.Yes:
            return
        store = self.store
        self.run("write back", lambda: ops.write_back(store, session.id, actor=ACTOR),
                  lambda ch: self.sig_message.emit(f"Written back: {ch.files[0]}"))

    def archive(self, session) -> None:
        store = self.store
        self.run("archive", lambda: ops.archive(store, session.id, actor=ACTOR),
                  lambda ch: self.sig_message.emit(f"Archived {session.title or session.id[:8]} (Unarchive brings it back)"))

    def star(self, session, on: bool) -> None:
        store = self.store
        self.run("star", lambda: ops.star(store, session.id, on, actor=ACTOR),
                  lambda ch: self.sig_message.emit(f"{'Starred' if on else 'Took the star from'} "
                                                   f"{session.title or session.id[:8]}"))

    def share(self, session, on: bool) -> None:
        store = self.store
        self.run("share" if on else "unshare", lambda: ops.share(store, session.id, on, actor=ACTOR),
                  lambda ch: self.sig_message.emit(f"{'Shared' if on else 'Stopped sharing'} "
                                                   f"{session.title or session.id[:8]} with the team"))

    def pin(self, session, event, on: bool) -> None:
        # (the tree's menu gives the event's id alone; a search result, the session's too)
        store, event_id, session_id = self.store, getattr(event, "id", event), getattr(session, "id", session)
        self.run("pin", lambda: ops.pin(store, session_id, event_id, on, actor=ACTOR),
                  lambda ch: self.sig_message.emit("Pinned the event (View ▸ Pins lists them)" if on
                                                   else "Took the pin away"))

    def note_add(self, session, event=None) -> None:
        from sessionscope.gui.views.marks_view import ask_note
        event_id = getattr(event, "id", event)
        text = ask_note(self.window, "Note on this event" if event_id else "Note on this session")
        if text is None:
            return
        store = self.store
        self.run("write a note", lambda: ops.note_add(store, session.id, text, event_id, actor=ACTOR),
                  lambda ch: self.sig_message.emit("Note written (View ▸ Notes lists them; search finds them)"))

    def note_edit(self, note) -> None:
        from sessionscope.gui.views.marks_view import ask_note
        text = ask_note(self.window, "Change the note", note.text)
        if text is None or text == note.text:
            return
        store = self.store
        self.run("change the note", lambda: ops.note_edit(store, note.id, text, actor=ACTOR))

    def note_remove(self, note) -> None:
        first = " ".join(note.text.split())[:80]
        if QMessageBox.question(self.window, "Remove the note", f"Remove this note?\n\n{first}\n\n(The audit log "
                                "keeps what it said.)") != QMessageBox.StandardButton.Yes:
            return
        store = self.store
        self.run("remove the note", lambda: ops.note_remove(store, note.id, actor=ACTOR))

    def unarchive(self, session) -> None:
        store = self.store
        self.run("unarchive", lambda: ops.unarchive(store, session.id, actor=ACTOR))

    def delete(self, session) -> None:
        """Asks first (naming a transcript Sessionscope wrote for it, which may go too); the files are looked
        up on a worker."""
        store = self.store
        run_task(lambda: ops.written_files(store, session), lambda written: self._delete(session, written),
                 self.fail("delete"), owner=self)

    def _delete(self, session, written) -> None:
        from PySide6.QtWidgets import QCheckBox

        from sessionscope import sources
        src = sources.of(session.source_kind)
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel
        remove_files = False
        if written:  # a fork or rewind file of ours: claude --resume would go on listing it
            box = QMessageBox(QMessageBox.Icon.Warning, "Delete session", src.delete_prompt(session), buttons, self.window)
            box.setDefaultButton(QMessageBox.StandardButton.Cancel)
            remove = QCheckBox(f"Also remove the transcript Sessionscope wrote ({written[0].name}"
                               + (f" and {len(written) - 1} more" if len(written) > 1 else "") + ")")
            remove.setToolTip("\n".join(map(str, written)))
            box.setCheckBox(remove)
            answer = box.exec()
            remove_files = remove.isChecked()
        else:
            answer = QMessageBox.warning(self.window, "Delete session", src.delete_prompt(session), buttons,
                                         QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Yes:
            store = self.store
            self.run("delete", lambda: ops.delete(store, session.id, remove_files=remove_files, actor=ACTOR),
                      lambda ch: self.sig_message.emit(
                          f"Deleted {session.title or session.id[:8]}" if ch.action == Action.DELETE else
                          f"Deleted {session.title or session.id[:8]} at {src.remote_home or 'its tool'}; "
                          "the copy stays here"))


"""The session list's selection acted on at once: star, tags, archive, unarchive, summarize (a part of
SessionActions, running through its `run`, `fail` and signals).

Each session goes the one path on its own (sessionscope.ops.each, on a worker): what one session's rule
refuses is listed at the end and the others go through. A long batch shows a progress dialog with Cancel
(after half a second: a handful of sessions is done before it would show)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QProgressDialog

from sessionscope import ops
from sessionscope.gui.jobs.workers import ACTOR, run_cancellable
from sessionscope.history.read_models import Action
from sessionscope.safety.untrusted import printable

SHOWN_REFUSALS = 15  # the rest are counted
SHOW_AFTER_MS = 500  # a batch done sooner shows no progress dialog


class BatchActions:
    """Threading: the UI thread's; each batch runs on a worker (ops.each) and reports through `actions`' signals."""

    def __init__(self, actions):
        self.actions = actions  # the SessionActions this is a part of: its window, store, signals, fail

    def star_many(self, sessions, _checked: bool = False) -> None:
        """Star them all, or (all of them starred already) take every star away."""
        on = not all(s.starred for s in sessions)
        self._each("Starring" if on else "Taking the stars away", "Starred" if on else "Took the star from",
                   Action.STAR if on else Action.UNSTAR, sessions, lambda store, sid: ops.star(store, sid, on, actor=ACTOR))

    def archive_many(self, sessions, _checked: bool = False) -> None:
        if QMessageBox.question(self.actions.window, "Archive", f"Archive these {len(sessions)} sessions? They leave the "
                                "list (Show Archived lists them; Unarchive brings each back).") \
                != QMessageBox.StandardButton.Yes:
            return
        self._each("Archiving", "Archived", Action.ARCHIVE, sessions,
                   lambda store, sid: ops.archive(store, sid, actor=ACTOR))

    def unarchive_many(self, sessions, _checked: bool = False) -> None:
        self._each("Unarchiving", "Unarchived", Action.UNARCHIVE, sessions,
                   lambda store, sid: ops.unarchive(store, sid, actor=ACTOR))

    def tag_many(self, sessions, _checked: bool = False) -> None:
        from sessionscope.gui.sessions.tag_edit import TagsDialog
        dialog = TagsDialog(list(sessions), self.known_tags(), parent=self.actions.window)
        if not dialog.exec():
            return
        add, remove = dialog.added(), dialog.removed()
        if not add and not remove:
            return
        self._each("Tagging", "Tagged", Action.TAG, sessions,
                   lambda store, sid: ops.retag(store, sid, add, remove, actor=ACTOR))

    def summarize(self, session) -> None:
        self.summarize_many([session])

    def summarize_many(self, sessions, _checked: bool = False) -> None:
        """Summarize (#33): the text each session would send is read on a worker and shown; nothing is sent
        until the user presses Send."""
        store = self.actions.store
        self.actions.sig_busy.emit("read what would be sent")

        def shown(requests) -> None:
            from sessionscope.gui.dialogs.summarize_dialog import SummarizeDialog
            self.actions.sig_busy.emit("")
            dialog = SummarizeDialog(requests, self.actions.window)
            if not dialog.exec():
                return
            texts, model = {s.id: text for s, text in requests}, dialog.chosen_model()
            self._each("Summarizing", "Summarized", Action.SUMMARIZE, [s for s, _t in requests],
                       lambda store, sid: ops.summarize(store, sid, texts[sid], model=model, actor=ACTOR))

        def failed(exc) -> None:
            self.actions.sig_busy.emit("")
            self.actions.fail("summarize")(exc)
        from sessionscope.gui.jobs.workers import run_task
        run_task(lambda: [(s, ops.summary_request(store, s.id)) for s in sessions], shown, failed, owner=self.actions)

    def known_tags(self) -> list[str]:
        """The tags in use, most used first (what the sidebar counted last)."""
        sidebar = getattr(self.actions.window, "sidebar", None)
        return list(getattr(sidebar, "tag_counts", {}) or {})

    def _each(self, doing: str, verb: str, action: Action, sessions, one) -> None:
        store, ids = self.actions.store, [s.id for s in sessions]
        titles = {s.id: s.title or s.id[:8] for s in sessions}
        progress = QProgressDialog(f"{doing} {len(ids)} sessions…", "Cancel", 0, len(ids), self.actions.window)
        progress.setWindowTitle(doing)
        # not modal: a modal progress dialog runs the event loop inside setValue, where the batch's end would
        # be handled, closing the dialog from within its own setValue
        progress.setWindowModality(Qt.WindowModality.NonModal)
        progress.setMinimumDuration(SHOW_AFTER_MS)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        self.actions.sig_busy.emit(doing.lower())

        def done_with_dialog() -> None:
            progress.canceled.disconnect()  # (closing a progress dialog says it was cancelled)
            progress.hide()
            progress.deleteLater()

        def finished(batch) -> None:
            done_with_dialog()
            self.actions.sig_busy.emit("")
            self.actions.sig_changes.emit(batch.changes(action))
            self.actions.sig_message.emit(batch.said(verb))
            if batch.failed or batch.stopped:
                lines = [f"• {printable(titles.get(sid, sid))[:70]}: {why}" for sid, why in batch.failed[:SHOWN_REFUSALS]]
                if len(batch.failed) > SHOWN_REFUSALS:
                    lines.append(f"… and {len(batch.failed) - SHOWN_REFUSALS} more")
                if batch.stopped:
                    lines.append(f"Stopped: {batch.stopped}.")
                QMessageBox.warning(self.actions.window, verb, f"{batch.said(verb)}.\n\n" + "\n".join(lines))

        def failed(exc) -> None:
            done_with_dialog()
            self.actions.sig_busy.emit("")
            self.actions.fail(doing.lower())(exc)

        cancel = run_cancellable(
            lambda report, cancelled: ops.each(ids, lambda sid: one(store, sid), cancelled=cancelled.is_set,
                                               progress=report),
            lambda done, _total, _sid: progress.setValue(done), finished, failed, owner=self.actions)
        progress.canceled.connect(cancel.set)

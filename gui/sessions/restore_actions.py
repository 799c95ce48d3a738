"""Restore Code to Here, Restore Code and Conversation, Undo Last Restore: the session actions that
put files back from a session's checkpoints (a part of SessionActions, through its `run` and `fail`; the same threading rules:
the plan is read and the files written on workers, the preview asks on the UI thread)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QMessageBox

from sessionscope import ops
from sessionscope.gui.jobs.workers import ACTOR, run_task
from sessionscope.history.read_models import Changes


class RestoreActions:
    """Threading: the UI thread's; plans are read and files written on workers."""

    def __init__(self, actions):
        self.actions = actions  # the SessionActions this is a part of: its window, store, signals, run, fail

    def restore_files(self, session, event, with_conversation: bool = False, into: str | None = None) -> None:
        store = self.actions.store
        self.actions.sig_busy.emit("read the checkpoint")

        def failed(exc):
            self.actions.sig_busy.emit("")
            self.actions.fail("restore the files")(exc)
        run_task(lambda: ops.restore_plan(store, session.id, event.id, into=into),
                 lambda plan: self._preview(session, plan, with_conversation, event), failed, owner=self.actions)

    def _preview(self, session, plan, with_conversation: bool, event=None) -> None:
        from sessionscope.gui.dialogs.restore_dialog import RestoreDialog
        self.actions.sig_busy.emit("")
        if not plan.changes:
            QMessageBox.information(self.actions.window, "Restore Code to Here",
                                    "No file checkpoint covers this point: Claude Code tracked no file then.")
            return
        dialog = RestoreDialog(plan, with_conversation, self.actions.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            if dialog.into and event is not None:  # the same restore, placed under the folder the user chose
                self.restore_files(session, event, with_conversation, into=dialog.into)
            return
        selected, store = dialog.selected(), self.actions.store

        def run() -> Changes:
            return ops.restore_files(store, plan, selected, conversation=with_conversation, actor=ACTOR)

        def done(ch: Changes) -> None:
            n = len(ch.files)
            self.actions.sig_message.emit(f"Restored {n} file(s)" + (" and rewound the conversation" if with_conversation else "")
                                  + " (Session ▸ Undo Last Restore puts them back)")
        self.actions.run("restore files", run, done)

    def undo_restore(self, session, redo: bool = False) -> None:
        """Undo the last restore (or, `redo`, take back the last undo): which files, which of them were
        edited since (the undo overwrites those edits; the other command puts them back), then the question."""
        from sessionscope.errors import NotFound
        title = "Redo Last Undo" if redo else "Undo Last Restore"
        try:
            plan = ops.undo_plan(self.actions.store, session.id, redo=redo)
        except NotFound:
            QMessageBox.information(self.actions.window, title, "No undo of this session is left to redo." if redo
                                    else "No restore of this session is left to undo.")
            return
        chosen = [c for c in plan.changes if c.action != "unchanged"]
        names = [c.path + ("   (edited since)" if c.path in plan.changed_since else "") for c in chosen[:15]]
        paths = "\n".join(names) + ("\n…" if len(chosen) > 15 else "")
        warn = (f"\n\n{len(plan.changed_since)} of them were edited since: those edits are overwritten here, and "
                f"kept ({'Undo Last Restore' if redo else 'Redo Last Undo'} puts them back).") if plan.changed_since else ""
        if not chosen:
            QMessageBox.information(self.actions.window, title, "Every file already is as it would be put back.")
            return
        if QMessageBox.question(self.actions.window, title,
                                f"Put back the {len(chosen)} file(s) the last {'undo' if redo else 'restore'} "
                                f"changed?\n\n{paths}{warn}") != QMessageBox.StandardButton.Yes:
            return
        store = self.actions.store

        self.actions.run("redo the restore" if redo else "undo the restore",
                  lambda: ops.undo_restore(store, session.id, plan, actor=ACTOR),
                  lambda ch: self.actions.sig_message.emit(f"Put back {len(ch.files)} file(s) as they were"))

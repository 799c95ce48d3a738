"""Settings: sources, the terminal for resume, retention, redaction patterns, search by meaning.

Window-level preferences live in QSettings; the retention policy, the
redaction patterns and search by meaning's settings live in the store (every
client of the store, the CLI too, shares them).
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from sessionscope.gui.dialogs.ask import number_box
from sessionscope.gui.jobs.workers import run_task
from sessionscope.gui.sessions.session_actions import DEFAULT_TERMINAL
from sessionscope.gui.views.limits import LimitsBox


def _days_box(value) -> QDoubleSpinBox:
    return number_box(value, 36500, "never", suffix=" days")


class SettingsDialog(QDialog):
    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.store = store
        settings = QSettings()

        sources = QGroupBox("Sources (the folders and files of sessions that are watched)")
        self.sources = QListWidget()
        self.sources.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        add = QPushButton("Add Folder…")
        add.clicked.connect(self._add_source)
        self.remove = QPushButton("Stop Watching")
        self.remove.setToolTip("Rescan the selected places no more; the sessions imported from them stay in the store")
        self.remove.setEnabled(False)
        self.remove.clicked.connect(self._remove_sources)
        self.sources.itemSelectionChanged.connect(lambda: self.remove.setEnabled(bool(self.sources.selectedItems())))
        lay = QVBoxLayout(sources)
        lay.addWidget(self.sources)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(self.remove)
        row.addStretch()
        lay.addLayout(row)
        self.added: list[str] = []
        self.removed: list[str] = []

        resume = QGroupBox("Resume")
        self.terminal = QLineEdit(settings.value("resume/terminal", DEFAULT_TERMINAL))
        form = QFormLayout(resume)
        form.addRow("Terminal command", self.terminal)
        form.addRow(QLabel("{command} is replaced by the tool's resume command, e.g. claude --resume ID."))

        retention = QGroupBox("Retention (applies to the whole store)")
        self.archive_after = _days_box(None)
        self.purge_after = _days_box(None)
        form = QFormLayout(retention)
        form.addRow("Archive sessions idle for", self.archive_after)
        form.addRow("Delete archived sessions after", self.purge_after)

        redaction = QGroupBox("Your redaction patterns (one regular expression a line; exports also "
                              "detect vendor keys, tokens, private keys and high-entropy strings)")
        self.patterns = QPlainTextEdit("")
        self.patterns.setObjectName("redaction-patterns")
        QVBoxLayout(redaction).addWidget(self.patterns)

        meaning = QGroupBox("Search by meaning (a local model: nothing leaves this machine)")
        self.meaning_on = QCheckBox("Also find texts that say the same in other words")
        self.meaning_on.setToolTip("Prompts, replies, facts and your notes are embedded by a small model on this "
                                   "computer after each import; Search Everything then ranks by words and meaning")
        self.meaning_model = QLineEdit("")
        self.meaning_model.setObjectName("meaning-model")
        self.meaning_model.setToolTip("A model2vec model: a Hugging Face repository (owner/name), fetched once "
                                      "(about 30 MB for the default), or a folder on this computer")
        folder = QPushButton("Folder…")
        folder.clicked.connect(self._choose_model_folder)
        self.meaning_tools = QCheckBox("Embed tool output too (more to embed; mostly noise to a question)")
        self.meaning_status = QLabel("")
        self.meaning_status.setObjectName("meaning-status")
        self.meaning_status.setWordWrap(True)
        form = QFormLayout(meaning)
        form.addRow(self.meaning_on)
        model_row = QHBoxLayout()
        model_row.addWidget(self.meaning_model, 1)
        model_row.addWidget(folder)
        form.addRow("Model", model_row)
        form.addRow(self.meaning_tools)
        form.addRow(self.meaning_status)

        from sessionscope import sources as registry
        from sessionscope.gui.jobs.notifier import NotificationsBox
        self.notifications = NotificationsBox([(src.kind, src.label) for src in registry.tools()
                                               if src.programs or src.remote_home], store)

        self.limits = LimitsBox()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.loaded: dict | None = None  # what the store holds, read on a worker (never on the UI thread)
        if store is not None:
            self.ok.setEnabled(False)  # until the store's settings are shown: nothing to save over them yet
            run_task(lambda: _read(store), self._show, self._failed, owner=self)

        from sessionscope.gui.views.managed_panel import WorkspacesBox
        # a box for each source whose sessions live behind an API (the first: `workspaces`, for the window)
        self.workspace_boxes = [WorkspacesBox(store, src.workspaces) for src in registry.with_workspaces()]
        self.workspaces = self.workspace_boxes[0] if self.workspace_boxes else None
        main = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(resume)
        row.addWidget(retention)
        for w in (sources, *self.workspace_boxes):
            main.addWidget(w)
        main.addLayout(row)
        main.addWidget(redaction)
        main.addWidget(meaning)
        main.addWidget(self.notifications)
        main.addWidget(self.limits)
        main.addWidget(buttons)

    def _show(self, loaded: dict) -> None:
        self.loaded = loaded
        self.sources.addItems(loaded["sources"])
        self.archive_after.setValue(loaded["policy"].archive_after_days or 0)
        self.purge_after.setValue(loaded["policy"].purge_after_days or 0)
        self.patterns.setPlainText("\n".join(loaded["patterns"]))
        meaning = loaded["meaning"]
        self.meaning_on.setChecked(meaning.config.enabled)
        self.meaning_model.setText(meaning.config.model)
        self.meaning_tools.setChecked(meaning.config.tool_output)
        self.meaning_status.setText(_meaning_text(meaning))
        self.ok.setEnabled(True)

    def _failed(self, exc: BaseException) -> None:
        QMessageBox.warning(self, "Settings", f"Could not read the store's settings: {exc}")
        self.reject()

    def _add_source(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder of sessions to watch")
        if folder:
            self.sources.addItem(folder)
            self.added.append(folder)

    def _choose_model_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A model2vec model's folder")
        if folder:
            self.meaning_model.setText(folder)

    def meaning_config(self):
        from sessionscope.recall.semantic import Config
        return Config(enabled=self.meaning_on.isChecked(), model=self.meaning_model.text().strip(),
                      tool_output=self.meaning_tools.isChecked())

    def _remove_sources(self) -> None:
        for item in self.sources.selectedItems():
            place = item.text()
            if place in self.added:
                self.added.remove(place)  # added in this dialog: simply not added
            else:
                self.removed.append(place)
            self.sources.takeItem(self.sources.row(item))

    def accept(self) -> None:
        bad = []
        for line in self.patterns.toPlainText().splitlines():
            try:
                re.compile(line)
            except re.error as exc:
                bad.append(f"{line}: {exc}")
        if bad:
            QMessageBox.warning(self, "Redaction patterns", "These patterns are not valid:\n" + "\n".join(bad))
            return
        if "{command}" not in self.terminal.text():
            QMessageBox.warning(self, "Terminal", "The terminal command needs a {command} placeholder.")
            return
        if self.loaded is not None and not _meaning_model_ok(self, self.meaning_config(), self.loaded["meaning"]):
            return
        settings = QSettings()
        settings.setValue("resume/terminal", self.terminal.text())
        self.notifications.rules().save()
        from sessionscope.gui.views import limits
        limits.save(self.limits.limits())
        if self.store is None or self.loaded is None:
            super().accept()
            return
        from sessionscope.safety.retention import RetentionPolicy
        patterns = [p for p in self.patterns.toPlainText().splitlines() if p.strip()]
        policy = RetentionPolicy(self.archive_after.value() or None, self.purge_after.value() or None)
        store, loaded, added, removed = self.store, self.loaded, list(self.added), list(self.removed)
        meaning = self.meaning_config()
        self.ok.setEnabled(False)
        run_task(lambda: _write(store, loaded, patterns, policy, added, removed, meaning),
                 lambda _: QDialog.accept(self), self._save_failed, owner=self)

    def _save_failed(self, exc: BaseException) -> None:
        self.ok.setEnabled(True)
        QMessageBox.warning(self, "Settings", f"Could not save: {exc}")


def _read(store) -> dict:
    from sessionscope.export.core import redaction_patterns
    from sessionscope.recall import semantic
    return {"sources": sorted(set(store.source_locations())), "policy": store.retention_policy(),
            "patterns": redaction_patterns(store), "meaning": semantic.status(store)}


def _meaning_text(status) -> str:
    cfg = status.config
    if not status.fetched:
        where = "fetched when you turn this on and press OK" if not cfg.enabled else "not fetched yet"
        model = f"The model is {where} (about 30 MB for the default; then nothing more goes over the network). "
    else:
        model = ""
    size = f"{status.size / 1e6:.1f} MB" if status.size >= 1e6 else f"{status.size / 1e3:.0f} KB"
    done = f"{status.embedded:,} texts embedded ({size} in the store)"
    todo = f", {status.pending:,} to do" if status.pending else ""
    return model + done + todo + ("" if cfg.enabled else "; off")


def _meaning_model_ok(parent, new, status) -> bool:
    """A model folder that is not there is said now; another model (or tool output) makes every vector again:
    asked first when there are any."""
    from sessionscope.recall.embedding import is_folder
    if new.enabled and not new.model:
        QMessageBox.warning(parent, "Search by meaning", "Name a model: a Hugging Face repository or a folder.")
        return False
    if new.enabled and is_folder(new.model):
        from pathlib import Path
        if not Path(new.model).expanduser().is_dir():
            QMessageBox.warning(parent, "Search by meaning", f"There is no folder {new.model}.")
            return False
    old = status.config
    if status.embedded and (old.model, old.tool_output) != (new.model, new.tool_output):
        answer = QMessageBox.question(parent, "Search by meaning", f"The {status.embedded:,} vectors made so far "
                                      "are dropped and every text is embedded again with the new choice. Go on?")
        return answer == QMessageBox.StandardButton.Yes
    return True


def _write(store, loaded: dict, patterns: list[str], policy, added: list[str] = (), removed: list[str] = (),
           meaning=None) -> None:
    """Only what changed is written (each a recorded change of the store). A place added is imported by the
    window after (a place stopped before is watched again first); a place removed is rescanned no more."""
    from sessionscope import ops
    from sessionscope.gui.jobs.workers import ACTOR
    ops.unwatch(store, list(removed), actor=ACTOR)
    ops.watch(store, list(added), actor=ACTOR)
    if patterns != loaded["patterns"]:
        ops.set_redaction_patterns(store, patterns, actor=ACTOR)
    if meaning is not None and meaning != loaded["meaning"].config:
        ops.set_semantic(store, meaning, actor=ACTOR)
    if policy != loaded["policy"]:
        ops.set_retention(store, policy, actor=ACTOR)

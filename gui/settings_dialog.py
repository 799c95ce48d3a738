"""Settings: sources, the terminal for resume, retention, redaction patterns.

Window-level preferences live in QSettings; the retention policy and the
redaction patterns live in the store (every client of the store, the CLI too,
shares them).
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
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

from .session_actions import DEFAULT_TERMINAL


def _days_box(value) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0, 36500)
    box.setDecimals(0)
    box.setSpecialValueText("never")
    box.setSuffix(" days")
    box.setValue(value or 0)
    return box


class SettingsDialog(QDialog):
    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.store = store
        settings = QSettings()

        sources = QGroupBox("Sources (folders of Claude Code, Codex or Gemini CLI sessions that are watched)")
        self.sources = QListWidget()
        self.sources.addItems(sorted(set(store.source_locations())) if store else [])
        add = QPushButton("Add folder…")
        add.clicked.connect(self._add_source)
        lay = QVBoxLayout(sources)
        lay.addWidget(self.sources)
        lay.addWidget(add)
        self.added: list[str] = []

        resume = QGroupBox("Resume")
        self.terminal = QLineEdit(settings.value("resume/terminal", DEFAULT_TERMINAL))
        form = QFormLayout(resume)
        form.addRow("Terminal command", self.terminal)
        form.addRow(QLabel("{command} is replaced by the tool's resume command, e.g. claude --resume ID."))

        retention = QGroupBox("Retention (applies to the whole store)")
        policy = store.retention_policy() if store else None
        self.archive_after = _days_box(policy.archive_after_days if policy else None)
        self.purge_after = _days_box(policy.purge_after_days if policy else None)
        form = QFormLayout(retention)
        form.addRow("Archive sessions idle for", self.archive_after)
        form.addRow("Delete archived sessions after", self.purge_after)

        redaction = QGroupBox("Your redaction patterns (one regular expression a line; exports also "
                              "detect vendor keys, tokens, private keys and high-entropy strings)")
        from model.export.core import redaction_patterns
        self.patterns = QPlainTextEdit("\n".join(redaction_patterns(store)) if store else "")
        self.patterns.setObjectName("redaction-patterns")
        QVBoxLayout(redaction).addWidget(self.patterns)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        main = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(resume)
        row.addWidget(retention)
        for w in (sources,):
            main.addWidget(w)
        main.addLayout(row)
        main.addWidget(redaction)
        main.addWidget(buttons)

    def _add_source(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of sessions (Claude Code, Codex, Gemini CLI)")
        if folder:
            self.sources.addItem(folder)
            self.added.append(folder)

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
        settings = QSettings()
        settings.setValue("resume/terminal", self.terminal.text())
        if self.store is not None:
            from model.export.core import redaction_patterns, set_redaction_patterns

            patterns = [p for p in self.patterns.toPlainText().splitlines() if p.strip()]
            if patterns != redaction_patterns(self.store):
                set_redaction_patterns(self.store, patterns)
            from model.retention import RetentionPolicy

            policy = RetentionPolicy(self.archive_after.value() or None, self.purge_after.value() or None)
            if policy != self.store.retention_policy():
                self.store.set_retention_policy(policy)
        super().accept()

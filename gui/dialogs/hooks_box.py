"""Settings ▸ Notifications' hooks row (#35): whether Sessionscope's hooks are in Claude Code's, Codex's and Gemini
CLI's settings (sessionscope.live.hook_install), and Install / Remove, each saying first exactly what changes in which
file (the same as `sessionscope hooks install|uninstall`)."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QPushButton, QWidget

from sessionscope.gui.jobs.workers import run_task
from sessionscope.live import hook_install


def _state() -> list[tuple[hook_install.HookTool, dict, bool]]:
    """Each tool: what is installed, and whether the tool is here (its settings folder exists)."""
    return [(t, hook_install.installed(t), t.settings().parent.exists()) for t in hook_install.TOOLS.values()]


class HooksRow(QWidget):
    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.store = store
        self.state: list = []
        self.label = QLabel("")
        self.label.setObjectName("hooks-state")
        self.label.setWordWrap(True)
        self.install = QPushButton("Install Hooks…")
        self.install.setToolTip("Add Sessionscope's hooks to the settings of the agents found here: their exact "
                                "states (needs approval, waiting, ended) reach Sessionscope at once")
        self.install.clicked.connect(self._install)
        self.remove = QPushButton("Remove Hooks…")
        self.remove.clicked.connect(self._remove)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.install)
        lay.addWidget(self.remove)
        self.refresh()

    def refresh(self) -> None:
        run_task(_state, self._show, owner=self)

    def _show(self, state) -> None:
        self.state = state
        parts = []
        for tool, row, here in state:
            if row["events"]:
                parts.append(f"{tool.label}: installed" + (f" ({row['problem']})" if row["problem"] else ""))
            elif here:
                parts.append(f"{tool.label}: not installed")
        self.label.setText("Hooks: " + ("; ".join(parts) if parts else "no Claude Code, Codex or Gemini CLI here"))
        self.install.setEnabled(any(here for _t, _r, here in state) and self.store is not None)
        self.remove.setEnabled(any(row["events"] for _t, row, _h in state))

    def _install(self) -> None:
        tools = [t for t, _row, here in self.state if here]
        url = self.store.url
        try:
            plans = [hook_install.install(t, url, dry_run=True) for t in tools]
        except Exception as exc:  # a settings file that is not JSON: said, left alone
            QMessageBox.warning(self, "Install Hooks", str(exc))
            return
        text = "\n\n".join(f"{hook_install.TOOLS[p.tool].label}: {len(p.events)} hooks in {p.settings} "
                           f"({', '.join(p.events)})" for p in plans)
        asked = QMessageBox.question(
            self, "Install Hooks", f"{text}\n\nEach runs:\n{plans[0].command.replace('--tool ' + plans[0].tool, '--tool …')}"
            "\n\nEverything else in those files is kept, and each file is copied beside itself first.",
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Ok)
        if asked != QMessageBox.StandardButton.Ok:
            return
        run_task(lambda: [hook_install.install(t, url) for t in tools], lambda _changes: self._done(tools, True),
                 lambda exc: QMessageBox.warning(self, "Install Hooks", str(exc)), owner=self)

    def _remove(self) -> None:
        tools = [t for t, row, _here in self.state if row["events"]]
        asked = QMessageBox.question(
            self, "Remove Hooks", "Take Sessionscope's hooks out of:\n" + "\n".join(
                f"{t.label}: {t.settings()}" for t in tools) + "\n\nNothing else in those files changes.",
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Ok)
        if asked != QMessageBox.StandardButton.Ok:
            return
        run_task(lambda: [hook_install.uninstall(t) for t in tools], lambda _changes: self._done(tools, False),
                 lambda exc: QMessageBox.warning(self, "Remove Hooks", str(exc)), owner=self)

    def _done(self, tools, installed: bool) -> None:
        self.refresh()
        if installed:
            notes = "\n".join(t.note for t in tools if t.note)
            QMessageBox.information(self, "Install Hooks", f"Installed.\n\n{notes}")

"""File ▸ Sync with Team Store (#38): where your shared sessions go, which go, and what the last sync did.

The team store's address (its password goes to the system keyring) and how often the app syncs by itself; each
project's rule (always, ask, never) and the rule of the others; the sessions that wait for your yes or no; Review
(a dry run: what would go and every secret that would be redacted, never the secret itself) and Sync Now, which
run in the status bar's job (gui/jobs/sync_job.py). Everything is read and written on a worker through sessionscope.ops.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from sessionscope.gui.jobs.workers import run_task
from sessionscope.safety.untrusted import printable

RULE_WORDS = {"always": "Always share", "ask": "Ask me", "never": "Never share"}


class SyncDialog(QDialog):
    """Threading: the UI thread only; reads and writes go through run_task."""

    def __init__(self, store, job, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Sync with Team Store")
        self.store, self.job = store, job
        self.state: dict = {}
        self.report_text = ""  # what the last run from here said
        self.saved = {"address": None, "every": None}  # what the fields last wrote (or read): a change writes

        where = QGroupBox("Team store (a PostgreSQL store your team shares: sessionscope team)")
        self.address = QLineEdit()
        self.address.setObjectName("sync-address")
        self.address.setPlaceholderText("postgresql://you@team-host/sessions")
        self.address.setToolTip("A password written here is kept in the system keyring, never in a file; or leave it "
                                "out and keep it in ~/.pgpass")
        self.address.editingFinished.connect(self._save_address)
        self.every = QSpinBox()
        self.every.setObjectName("sync-every")
        self.every.setRange(0, 1440)
        self.every.setSuffix(" min")
        self.every.setSpecialValueText("only when I ask")
        self.every.editingFinished.connect(self._save_every)
        form = QFormLayout(where)
        form.addRow("Address", self.address)
        form.addRow("Sync in the background every", self.every)

        rules = QGroupBox("What is shared (a session you share goes too, unless its project never shares)")
        self.default = QComboBox()
        self.default.setObjectName("sync-default")
        for rule, words in RULE_WORDS.items():
            self.default.addItem(words, rule)
        self.default.activated.connect(lambda _i: self._set_default(self.default.currentData()))
        self.projects = QTableWidget(0, 3)
        self.projects.setObjectName("sync-projects")
        self.projects.setHorizontalHeaderLabels(["Project", "Sessions", "Rule"])
        self.projects.verticalHeader().hide()
        self.projects.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.projects.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        lay = QVBoxLayout(rules)
        row = QHBoxLayout()
        row.addWidget(QLabel("Projects without a rule of their own:"))
        row.addWidget(self.default)
        row.addStretch()
        lay.addLayout(row)
        lay.addWidget(self.projects)

        waiting = QGroupBox("Waiting for your yes or no (their projects ask)")
        self.waiting = QTableWidget(0, 3)
        self.waiting.setObjectName("sync-waiting")
        self.waiting.setHorizontalHeaderLabels(["Session", "Project", "Last active"])
        self.waiting.verticalHeader().hide()
        self.waiting.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.waiting.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.waiting.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.share_button = QPushButton("&Share")
        self.share_button.setToolTip("These go at each sync from now on")
        self.skip_button = QPushButton("&Don't Share")
        self.skip_button.setToolTip("Keep these at home: not asked about again")
        self.share_button.clicked.connect(lambda: self._decide(True))
        self.skip_button.clicked.connect(lambda: self._decide(False))
        lay = QVBoxLayout(waiting)
        lay.addWidget(self.waiting)
        row = QHBoxLayout()
        row.addWidget(self.share_button)
        row.addWidget(self.skip_button)
        row.addStretch()
        lay.addLayout(row)

        self.last = QPlainTextEdit()
        self.last.setObjectName("sync-last")
        self.last.setReadOnly(True)
        self.last.setMaximumBlockCount(400)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.review_button = buttons.addButton("&Review…", QDialogButtonBox.ButtonRole.ActionRole)
        self.review_button.setToolTip("Push nothing: say what would go, and every secret that would be redacted")
        self.sync_button = buttons.addButton("Sync &Now", QDialogButtonBox.ButtonRole.ActionRole)
        self.review_button.clicked.connect(lambda: self._run(dry_run=True))
        self.sync_button.clicked.connect(lambda: self._run(dry_run=False))
        job.sig_finished.connect(self._finished)
        job.sig_started.connect(lambda _dry: self._enable())

        top = QVBoxLayout(self)
        top.addWidget(where)
        top.addWidget(rules, 2)
        top.addWidget(waiting, 2)
        top.addWidget(QLabel("The last sync, or what a review found"))
        top.addWidget(self.last, 1)
        top.addWidget(buttons)
        geometry = QSettings().value("sync_dialog/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(760, 720)
        self.refresh()

    # -- reading --------------------------------------------------------------------------------------------------

    def refresh(self) -> None:
        store = self.store

        def read():
            from sessionscope import ops, sync
            chosen = ops.sync_plan(store)
            with store.reader() as conn:
                state = {"target": sync.target(conn), "every": sync.every_minutes(conn),
                         "default": sync.default_rule(conn), "rules": sync.project_rules(conn),
                         "projects": sync.choices.projects(conn), "last": sync.last_report(conn)}
            waiting = [store.session(sid) for sid in chosen.waiting[:500]]
            return state | {"plan": chosen, "waiting": waiting}
        run_task(read, self._show, lambda exc: self.last.setPlainText(f"Could not read the sync settings: {exc}"),
                 owner=self)

    def _show(self, state: dict) -> None:
        self.state = state
        if self.saved["address"] is None:  # (once: afterwards the field is what the user writes)
            self.address.setText(state["target"] or "")
            self.saved["address"] = self.address.text()
        if self.saved["every"] is None:
            self.every.setValue(state["every"])
            self.saved["every"] = state["every"]
        self.default.setCurrentIndex(list(RULE_WORDS).index(state["default"]))
        self.projects.setRowCount(len(state["projects"]))
        for r, (project, n) in enumerate(state["projects"]):
            self.projects.setItem(r, 0, QTableWidgetItem(printable(project) or "(no project)"))
            count = QTableWidgetItem(f"{n:,}")
            count.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.projects.setItem(r, 1, count)
            box = QComboBox()
            box.addItem(f"Default ({RULE_WORDS[state['default']].lower()})", None)
            for rule, words in RULE_WORDS.items():
                box.addItem(words, rule)
            box.setCurrentIndex(box.findData(state["rules"].get(project)) if project in state["rules"] else 0)
            box.activated.connect(lambda _i, p=project, b=box: self._set_rule(p, b.currentData()))
            self.projects.setCellWidget(r, 2, box)
        for column in (1, 2):
            self.projects.resizeColumnToContents(column)
        self.waiting.setRowCount(len(state["waiting"]))
        for r, s in enumerate(state["waiting"]):
            title = QTableWidgetItem(printable(s.title) or s.id[:8])
            title.setData(Qt.ItemDataRole.UserRole, s.id)
            self.waiting.setItem(r, 0, title)
            self.waiting.setItem(r, 1, QTableWidgetItem(printable(s.project) or "(no project)"))
            self.waiting.setItem(r, 2, QTableWidgetItem(time.strftime("%Y-%m-%d %H:%M", time.localtime(s.updated_at))))
        for column in (1, 2):
            self.waiting.resizeColumnToContents(column)
        plan = state["plan"]
        lines = [f"{len(plan.push):,} session(s) go at each sync, {len(plan.waiting):,} wait for your yes or no"]
        lines += [f"held at home: {sid[:8]}: {why}" for sid, why in plan.held[:20]]
        if not self.job.running:  # (what the run just shown said stays: its problems, a review's findings)
            lines.insert(0, self.report_text or last_words(state["last"]))
            self.last.setPlainText("\n".join(lines))
        self._enable()

    def _enable(self) -> None:
        has_target = bool(self.address.text().strip())
        self.sync_button.setEnabled(has_target and not self.job.running)
        self.review_button.setEnabled(has_target and not self.job.running)
        why = "" if has_target else " (write the team store's address first)"
        self.sync_button.setToolTip("Push the sessions you share, secrets redacted first" + why)
        self.share_button.setEnabled(self.waiting.rowCount() > 0)
        self.skip_button.setEnabled(self.waiting.rowCount() > 0)

    # -- writing --------------------------------------------------------------------------------------------------

    def _write(self, work, then=None) -> None:
        store = self.store

        def done(_result):
            self.refresh()
            self.job.reschedule()
            if then:
                then()
        run_task(lambda: work(store), done, lambda exc: QMessageBox.warning(self, "Sync settings", str(exc)),
                 owner=self)

    def _save_address(self, then=None) -> None:
        """The address written, remembered when it changed (then `then`, once it is)."""
        from sessionscope import ops
        text = self.address.text().strip()
        if text == self.saved["address"]:
            if then:
                then()
            return
        self.saved["address"] = text
        self._write(lambda s: ops.set_target(s, text or None, actor="app"), then)

    def _save_every(self) -> None:
        from sessionscope import ops
        minutes = self.every.value()
        if minutes != self.saved["every"]:
            self.saved["every"] = minutes
            self._write(lambda s: ops.set_sync_every(s, minutes, actor="app"))

    def _set_default(self, rule: str) -> None:
        from sessionscope import ops
        self._write(lambda s: ops.set_default_rule(s, rule, actor="app"))

    def _set_rule(self, project: str, rule: str | None) -> None:
        from sessionscope import ops
        self._write(lambda s: ops.set_project_rule(s, project, rule, actor="app"))

    def _decide(self, share: bool) -> None:
        from sessionscope import ops
        rows = sorted({i.row() for i in self.waiting.selectedIndexes()}) or range(self.waiting.rowCount())
        ids = [self.waiting.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in rows]
        if not share or len(ids) == 1 or QMessageBox.question(
                self, "Share with the team", f"Share {len(ids)} sessions? They go to the team store at each sync, "
                "secrets redacted.") == QMessageBox.StandardButton.Yes:
            self._write(lambda s: ops.decide(s, ids, share, actor="app"))

    def _run(self, dry_run: bool) -> None:
        self._save_address(then=lambda: self.job.start(dry_run=dry_run))
        self._save_every()
        self.last.setPlainText("Reviewing…" if dry_run else "Syncing…")

    def _finished(self, report: dict) -> None:
        self.report_text = details(report)
        self.last.setPlainText(self.report_text)
        if report.get("dry_run"):
            self._enable()
        else:
            self.refresh()

    def done(self, result: int) -> None:
        QSettings().setValue("sync_dialog/geometry", self.saveGeometry())
        super().done(result)


def last_words(last: dict | None) -> str:
    if not last:
        return "No sync yet."
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(last.get("at", 0)))
    if last.get("error"):
        return f"The last sync, {when}, failed: {last['error']}"
    return (f"The last sync, {when}: {len(last['pushed']):,} session(s), {last['events']:,} event(s) pushed, "
            f"{last['redacted']:,} secret(s) redacted, {last['up_to_date']:,} up to date"
            + (f"; {len(last['problems'])} not pushed" if last.get("problems") else ""))


def details(report: dict) -> str:
    """What a sync did (or, a dry run, would do), with its problems and the review of what is redacted."""
    from sessionscope.gui.jobs.sync_job import summary
    if "error" in report and "pushed" not in report:
        return f"The sync failed: {report['error']}"
    lines = [summary(report)]
    lines += [f"not pushed: {p['session'][:8]}: {p['why']}" for p in report["problems"]]
    lines += [f"held at home: {h['session'][:8]}: {h['why']}" for h in report["held"][:20]]
    if report.get("findings"):
        lines.append("")
        lines.append("Secrets found (each becomes its placeholder in the team copy; the secret itself stays here):")
        for f in report["findings"]:
            lines.append(f"  {f['kind']:<18} ×{f['count']:<4} {f['preview']}  in {'; '.join(f['places'])}")
            if f.get("context"):
                lines.append(f"      {f['context']}")
    elif report.get("dry_run"):
        lines.append("No secrets found in what would go.")
    return printable("\n".join(lines), keep_newlines=True)

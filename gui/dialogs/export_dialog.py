"""The export dialog: what, which format, where, and secrets reviewed before anything is written.

With "Replace secrets" on (the default), Export first scans what would be written
and lists every secret found (kind, placeholder, how often, where); a second
click writes the export with those replaced. Both passes run on a worker with a
progress bar and Cancel; a cancelled export leaves no file behind.
"""

from __future__ import annotations

import html
import threading
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.jobs.workers import ACTOR, run_cancellable, run_task

FORMATS = [("md", "Markdown (readable transcript)"), ("html", "HTML (one self-contained page)"),
           ("jsonl", "JSONL (lossless, re-importable, verifiable)")]  # and each tool's own (Source.export_formats)


def _tool_formats() -> dict:
    from sessionscope import sources
    return {f.key: f for f in sources.export_formats()}
DETAILS = [("full", "Everything: tool calls, results, thinking"), ("conversation", "The conversation"),
           ("prompts", "User prompts only")]


def _short(title: str, width: int = 50) -> str:
    title = " ".join(title.split())
    return title if len(title) <= width else title[:width - 1] + "…"


class ExportDialog(QDialog):
    """Exports sessions, one branch, or the sessions of a search."""

    def __init__(self, store, parent=None, *, session_ids: list[str] = (), head: str | None = None,
                 head_label: str = "", search: str | None = None, titles: dict[str, str] | None = None):
        super().__init__(parent)
        self.setWindowTitle("Export")
        self.setObjectName("export-dialog")
        self.resize(760, 560)
        self.store = store
        self.session_ids, self.head, self.search = list(session_ids), head, search
        self.findings = None  # the review of the current choices, once scanned
        self.cancel_flag: threading.Event | None = None
        self.report = None
        settings = QSettings()

        what_box = self._what_choices(head, head_label, search, titles)

        self.format = QComboBox()
        self.tool_formats = _tool_formats()  # a tool's own format goes to a folder, or the tool's own place
        for key, text in FORMATS + [(f.key, f.label) for f in self.tool_formats.values()]:
            self.format.addItem(text, key)
        self.format.setCurrentIndex(max(0, self.format.findData(settings.value("export/format", "html"))))
        self.detail = QComboBox()
        for key, text in DETAILS:
            self.detail.addItem(text, key)
        self.redact = QCheckBox("Replace secrets (API keys, tokens, private keys, passwords in URLs, "
                                "high-entropy strings, your patterns) with placeholders")
        self.redact.setChecked(settings.value("export/redact", True, type=bool))
        self.path = QLineEdit()
        self.path.setObjectName("export-path")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path)
        path_row.addWidget(browse)

        form = QFormLayout()
        form.addRow("Export", what_box)
        form.addRow("Format", self.format)
        form.addRow("Detail", self.detail)
        form.addRow("", self.redact)
        form.addRow("To", path_row)

        buttons = self._review_and_buttons()

        lay = QVBoxLayout(self)
        lay.addLayout(form)
        self.review_label = QLabel("Secrets found (reviewed before anything is written):")
        lay.addWidget(self.review_label)
        lay.addWidget(self.review, 1)
        lay.addWidget(self.status)
        lay.addLayout(buttons)
        for w in (self.format, self.detail):
            w.currentIndexChanged.connect(self._changed)
        self.redact.toggled.connect(self._changed)
        self._suggest_path()
        self._changed()

    def _what_choices(self, head, head_label, search, titles) -> QWidget:
        """What to export, as radio buttons: the sessions named, a branch of one, a search's sessions."""
        self.what = QButtonGroup(self)
        what_box = QWidget()
        what_lay = QVBoxLayout(what_box)
        what_lay.setContentsMargins(0, 0, 0, 0)
        n = len(self.session_ids)
        choices = []
        if n:  # named, so what is written is what the user meant
            names = [f"“{_short((titles or {}).get(i) or i[:8])}”" for i in self.session_ids[:3]]
            more = f" and {n - 3} more" if n > 3 else ""
            choices.append(("sessions", f"The session {names[0]}" if n == 1 else
                            f"The {n} selected sessions: {', '.join(names)}{more}"))
        if head and n == 1:
            choices.append(("branch", f"This branch only: root → {head_label or head[:8]}"))
        if search:
            choices.append(("search", f"The sessions of the search “{search}”"))
        # what it was opened for is chosen: "Export This Branch" (a branch's head given) the branch
        wanted = "branch" if any(k == "branch" for k, _ in choices) else choices[0][0] if choices else None
        for i, (key, text) in enumerate(choices):
            b = QRadioButton(text)
            b.setObjectName(f"what-{key}")
            b.setChecked(key == wanted)
            self.what.addButton(b, i)
            what_lay.addWidget(b)
        self._what_keys = [k for k, _ in choices]
        self.what.idToggled.connect(self._changed)
        return what_box

    def _review_and_buttons(self) -> QHBoxLayout:
        """The review of the secrets found, the status line, and the row of buttons (progress, cancel, open,
        show, not a secret, export, close)."""
        self.review = QTreeWidget()
        self.review.setObjectName("export-review")
        self.review.setHeaderLabels(["Secret", "In context (masked)", "Times", "Where", "Replaced by"])
        self.review.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.review.setRootIsDecorated(False)
        self.dismiss = QPushButton("Not a Secret")
        self.dismiss.setToolTip("Leave the selected value as it is, in this export and every later one "
                                "(remembered in the store; sessionscope redaction --disallow takes it back)")
        self.dismiss.setEnabled(False)
        self.dismiss.clicked.connect(self._dismiss)
        self.review.itemSelectionChanged.connect(lambda: self.dismiss.setEnabled(bool(self.review.selectedItems())))
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.bar = QProgressBar()
        self.bar.hide()
        self.cancel_button = QPushButton("Cancel export")
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self._cancel)
        self.show_button = QPushButton("Show in Folder")
        self.show_button.hide()
        self.show_button.clicked.connect(self._show_folder)
        self.open_button = QPushButton("Open")  # the file written, in the program the desktop opens it with
        self.open_button.setToolTip("Open the exported file (an HTML export in the browser)")
        self.open_button.hide()
        self.open_button.clicked.connect(self._open_file)
        self.go = QPushButton("Export")
        self.go.setObjectName("export-go")
        self.go.setDefault(True)
        self.go.clicked.connect(self.run)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.bar, 1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.dismiss)
        buttons.addStretch()
        buttons.addWidget(self.go)
        buttons.addWidget(close)
        return buttons

    # -- the request ------------------------------------------------------------------

    def request(self):
        from sessionscope.export.core import ExportRequest

        key = self._what_keys[self.what.checkedId()] if self._what_keys else "sessions"
        return ExportRequest(
            self.format.currentData(),
            tuple(self.session_ids) if key in ("sessions", "branch") else (),
            head=self.head if key == "branch" else None, search=self.search if key == "search" else None,
            detail=self.detail.currentData(), redact=self.redact.isChecked())

    def _changed(self, *_):
        fmt = self.format.currentData()
        self.detail.setEnabled(fmt in ("md", "html"))
        self.findings = None  # new choices, new review
        self.review.clear()
        for w in (self.review_label, self.review):
            w.setVisible(self.redact.isChecked())
        self.go.setText("Scan for Secrets" if self.redact.isChecked() else "Export")
        self._suggest_path()

    def _suggest_path(self) -> None:
        fmt = self.format.currentData()
        current = self.path.text().strip()
        folder = Path(current).parent if current else Path(
            QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or Path.home())
        if fmt in self.tool_formats:
            self.path.setPlaceholderText(self.tool_formats[fmt].folder_hint)
            if current.endswith((".md", ".html", ".jsonl")):
                self.path.setText("")
            return
        self.path.setPlaceholderText("")
        stem = Path(current).stem if current else self._default_stem()
        self.path.setText(str(folder / f"{stem}.{fmt}"))

    def _default_stem(self) -> str:
        if self.search and not self.session_ids:
            base = f"search-{self.search}"
        elif len(self.session_ids) == 1:
            try:
                base = self.store.session(self.session_ids[0]).title or self.session_ids[0][:8]
            except Exception:  # noqa: BLE001 - only a file name suggestion
                base = self.session_ids[0][:8]
        else:
            base = f"{len(self.session_ids)}-sessions"
        safe = "".join(c if c.isalnum() or c in "-_ " else "-" for c in base).strip()[:60]
        return safe.replace(" ", "-") or "session"

    def _browse(self) -> None:
        if self.format.currentData() in self.tool_formats:
            folder = QFileDialog.getExistingDirectory(self, self.tool_formats[self.format.currentData()].browse_title)
            if folder:
                self.path.setText(folder)
            return
        fmt = self.format.currentData()
        path, _ = QFileDialog.getSaveFileName(self, "Export to", self.path.text(), f"{fmt.upper()} (*.{fmt})")
        if path:
            self.path.setText(path)

    # -- running ------------------------------------------------------------------

    def run(self) -> None:
        """Scan first when redacting (the review), then export."""
        try:
            request = self.request()
        except Exception as exc:  # noqa: BLE001 - an invalid choice is shown, not raised
            self.status.setText(html.escape(str(exc)))
            return
        target = self.path.text().strip()
        if not target and request.format not in self.tool_formats:
            self.status.setText("Choose where to write the export.")
            return
        if request.redact and self.findings is None:
            self._start("Scanning for secrets…", lambda progress, cancel: self._scan(request, progress, cancel), self._scanned)
            return
        settings = QSettings()
        settings.setValue("export/format", request.format)
        settings.setValue("export/redact", request.redact)
        self._start("Exporting…", lambda progress, cancel: self._export(request, target or None, progress, cancel),
                    self._exported)

    def _scan(self, request, progress, cancel):
        from sessionscope.export.core import scan
        return scan(self.store, request, progress=progress, cancel=cancel)

    def _export(self, request, target, progress, cancel):
        from sessionscope import ops
        return ops.export(self.store, request, Path(target) if target else None, progress=progress, cancel=cancel,
                          actor=ACTOR)

    def _start(self, what: str, fn, done) -> None:
        self.status.setText(what)
        self.bar.setRange(0, 0)
        self.bar.show()
        self.cancel_button.show()
        self.show_button.hide()
        self.open_button.hide()
        self.go.setEnabled(False)
        self.cancel_flag = run_cancellable(fn, self._progress, lambda r: self._finished(done, r), self._failed, self)

    def _progress(self, done: int, total: int, label: str) -> None:
        self.bar.setRange(0, max(1, total))
        self.bar.setValue(done)
        self.bar.setFormat(f"%p%  {done:,} of {total:,} events")

    def _cancel(self) -> None:
        if self.cancel_flag is not None:
            self.cancel_flag.set()
            self.status.setText("Cancelling…")

    def _idle(self) -> None:
        self.bar.hide()
        self.cancel_button.hide()
        self.go.setEnabled(True)

    def _finished(self, done, result) -> None:
        self._idle()
        done(result)

    def _failed(self, exc: BaseException) -> None:
        from sessionscope.export.core import Cancelled
        self._idle()
        if isinstance(exc, Cancelled):
            self.status.setText("Cancelled: nothing was written.")
        else:
            self.status.setText(f"<b>The export failed:</b> {html.escape(str(exc))}<br>Nothing was written; "
                                "choose another place or format and try again.")

    def _scanned(self, findings) -> None:
        self.findings = findings
        self.review.clear()
        for f in findings:
            more = " …" if f.count > len(f.places) else ""
            item = QTreeWidgetItem([f"{f.kind} ({f.preview})", f.context, str(f.count),
                                    "; ".join(f.places) + more, f.placeholder])
            item.setToolTip(3, "\n".join(f.places))
            item.setToolTip(1, f.context)
            item.setData(0, Qt.ItemDataRole.UserRole, f.placeholder)
            self.review.addTopLevelItem(item)
        for col in (0, 2, 3):
            self.review.resizeColumnToContents(col)
        total = sum(f.count for f in findings)
        self.status.setText(f"{total} secret occurrence(s) of {len(findings)} secret(s) will be replaced. "
                            "Nothing is changed in the store." if findings else "No secrets found.")
        self.go.setText(f"Export ({total} replaced)" if findings else "Export")

    def _dismiss(self) -> None:
        """The selected findings are no secret: remembered in the store, and the review made again."""
        from sessionscope import ops
        from sessionscope.export.core import allowed_values
        chosen = [i.data(0, Qt.ItemDataRole.UserRole) for i in self.review.selectedItems()]
        store = self.store

        def remembered(_) -> None:
            self._changed()
            self.run()  # scans again (the review comes before anything is written)
        run_task(lambda: ops.set_allowed_values(store, allowed_values(store) + chosen, actor=ACTOR), remembered,
                 self._failed, owner=self)

    def _exported(self, report) -> None:
        self.report = report
        self.findings = None
        self.go.setText("Scan for Secrets" if self.redact.isChecked() else "Export")
        files = ", ".join(html.escape(f) for f in report.files[:3]) + (" …" if len(report.files) > 3 else "")
        self.status.setText(f"Exported {report.events:,} events of {report.sessions} session(s) to {files} "
                            f"({report.bytes / 1e6:.2f} MB, {report.seconds:.1f} s"
                            + (f", {sum(f.count for f in report.findings)} secrets replaced" if report.redacted else "")
                            + ").")
        self.show_button.show()
        self.open_button.setVisible(len(report.files) == 1)  # (a folder of files: Show in Folder)

    def _open_file(self) -> None:
        if self.report and self.report.files:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.report.files[0])))

    def _show_folder(self) -> None:
        if self.report and self.report.files:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(self.report.files[0]).parent)))

    def reject(self) -> None:
        self._cancel()
        super().reject()

"""Telling the user when an agent needs them (#35): a desktop notification when a session starts to need approval
or to wait for them, with its title and its last question (a click opens it); a tray icon with the count of the
sessions that need them, which stays while the window is closed; and the rules (which states, which tools, quiet
hours) in Settings.

How a notification is delivered: the tray icon's message where the desktop has a tray (Qt hands it to the
freedesktop notification service on Linux); else `notify-send` where it is installed (its --wait and --action
bring the click back); always the window's status bar and an alert on its taskbar entry.
"""

from __future__ import annotations

import datetime as dt
import shutil
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QProcess, QSettings, Qt, QTime, Signal
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSystemTrayIcon,
    QTimeEdit,
)

from sessionscope.gui.jobs.workers import run_task
from sessionscope.live.words import LABELS, MARKS, NEEDS_YOU
from sessionscope.safety.untrusted import printable

AT_ONCE = 3  # notifications at one change; the rest are said in one more
SHOWN_MS = 15000


@dataclass
class Rules:
    """What is notified (QSettings "notify/…")."""

    enabled: bool = True
    states: set[str] = field(default_factory=lambda: set(NEEDS_YOU))
    tools: set[str] = field(default_factory=set)  # source kinds left out
    quiet: tuple[QTime, QTime] | None = None  # no notification from, to (across midnight when from > to)
    tray: bool = True  # the tray icon stays while the window is closed

    @classmethod
    def load(cls) -> "Rules":
        s = QSettings()

        def flag(key, default):
            return str(s.value(key, default)).lower() in ("true", "1")
        quiet = None
        if flag("notify/quiet", False):
            quiet = (QTime.fromString(str(s.value("notify/quiet_from", "22:00")), "HH:mm"),
                     QTime.fromString(str(s.value("notify/quiet_to", "07:00")), "HH:mm"))
        states = {x for x in str(s.value("notify/states", ",".join(NEEDS_YOU))).split(",") if x}
        muted = {x for x in str(s.value("notify/muted_tools", "")).split(",") if x}
        return cls(flag("notify/enabled", True), states, muted, quiet, flag("notify/tray", True))

    def save(self) -> None:
        s = QSettings()
        s.setValue("notify/enabled", self.enabled)
        s.setValue("notify/states", ",".join(sorted(self.states)))
        s.setValue("notify/muted_tools", ",".join(sorted(self.tools)))
        s.setValue("notify/quiet", self.quiet is not None)
        if self.quiet is not None:
            s.setValue("notify/quiet_from", self.quiet[0].toString("HH:mm"))
            s.setValue("notify/quiet_to", self.quiet[1].toString("HH:mm"))
        s.setValue("notify/tray", self.tray)

    def is_quiet(self, now: dt.time) -> bool:
        if self.quiet is None:
            return False
        start, end = (dt.time(t.hour(), t.minute()) for t in self.quiet)
        return start <= now < end if start <= end else now >= start or now < end

    def allows(self, kind: str, state: str, now: dt.time) -> bool:
        return self.enabled and state in self.states and kind not in self.tools and not self.is_quiet(now)


def badge(icon: QIcon, count: int) -> QIcon:
    """The app's icon with the count of sessions that need you on it."""
    pixmap = icon.pixmap(64, 64) if not icon.isNull() else QPixmap(64, 64)
    if icon.isNull():
        pixmap.fill(QColor("#4a6fa5"))
    if count:
        p = QPainter(pixmap)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setBrush(QColor("#d9480f"))
        p.setPen(Qt.PenStyle.NoPen)
        p.drawEllipse(26, 0, 38, 38)
        p.setPen(QColor("white"))
        font = QFont()
        font.setBold(True)
        font.setPixelSize(24 if count < 10 else 18)
        p.setFont(font)
        p.drawText(26, 0, 38, 38, Qt.AlignmentFlag.AlignCenter, str(count) if count < 100 else "99+")
        p.end()
    return QIcon(pixmap)


class Notifier(QObject):
    """Follows the live states (LiveTracker.sig_states) for the window: notifications, and the tray icon."""

    sig_notified = Signal(str, str, str)  # session id, title, text: every notification decided
    sig_open = Signal(str)  # a notification was clicked: show this session
    sig_needs_you = Signal()  # the tray's Needs You…
    sig_show = Signal()  # the tray's Show Sessionscope (or a click on the icon)
    sig_quit = Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.store = None
        self.seen: dict[str, str] | None = None  # session id → the state last seen (None: not yet, at a store's start)
        self.count = 0
        self.target: str | None = None  # the session the tray's last message was about
        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self._make_tray()

    def watch(self, store) -> None:
        self.store, self.seen = store, None  # what already needs you at start is counted, not announced

    # -- the tray --------------------------------------------------------------------

    def _make_tray(self) -> None:
        self.tray = QSystemTrayIcon(QApplication.windowIcon(), self)
        menu = QMenu()
        self.tray_needs = QAction("Needs You…", menu)
        self.tray_needs.triggered.connect(self.sig_needs_you)
        show = QAction("Show Sessionscope", menu)
        show.triggered.connect(self.sig_show)
        quit_ = QAction("Quit Sessionscope", menu)
        quit_.triggered.connect(self.sig_quit)
        menu.addAction(self.tray_needs)
        menu.addAction(show)
        menu.addSeparator()
        menu.addAction(quit_)
        self.tray_menu = menu  # (kept: the tray does not own it)
        self.tray.setContextMenu(menu)
        self.tray.activated.connect(lambda reason: self.sig_show.emit()
                                    if reason == QSystemTrayIcon.ActivationReason.Trigger else None)
        self.tray.messageClicked.connect(lambda: self.sig_open.emit(self.target) if self.target else None)
        self._update_tray()
        self.tray.show()

    def keeps_running(self) -> bool:
        """Closing the window leaves Sessionscope in the tray (Settings ▸ Notifications)."""
        return self.tray is not None and self.tray.isVisible() and Rules.load().tray

    def _update_tray(self) -> None:
        if self.tray is None:
            return
        self.tray.setIcon(badge(QApplication.windowIcon(), self.count))
        self.tray.setToolTip(f"Sessionscope: {self.count} session{'s' * (self.count != 1)} need you"
                             if self.count else "Sessionscope: no session needs you")
        self.tray_needs.setText(f"Needs You ({self.count})…")

    # -- from the states to notifications ------------------------------------------

    def on_states(self, states: dict, needing: dict | None = None) -> None:
        """`needing`: those of `states` that need you, when the tracker found them already (LiveTracker.needing)."""
        needs = needing if needing is not None else {sid: st for sid, st in states.items() if st.state in NEEDS_YOU}
        self.count = len(needs)
        self._update_tray()
        first, seen = self.seen is None, self.seen or {}
        self.seen = {sid: st.state for sid, st in needs.items()}
        new = {sid: st for sid, st in needs.items() if seen.get(sid) != st.state}
        if first or not new or self.store is None:
            return
        store = self.store
        from sessionscope.live import needs_you
        run_task(lambda: needs_you.waiting(store, new), self._announce, owner=self)

    def _announce(self, items) -> None:
        rules, now = Rules.load(), dt.datetime.now().time()
        items = [w for w in items if rules.allows(w.session.source_kind, w.live.state, now)]
        for w in items[:AT_ONCE]:
            title = f"{MARKS[w.live.state]} {LABELS[w.live.state].capitalize()}: {w.session.title or '(untitled)'}"
            if w.pending and w.live.state == "needs_approval":
                text = f"Asks to run {w.pending}"
            else:
                text = next((line for line in w.said.splitlines() if line.strip()), "") or w.live.why
            self.notify(w.session.id, printable(title[:120]), printable(text[:240]))
        if len(items) > AT_ONCE:
            self.notify(None, f"And {len(items) - AT_ONCE} more need you", "View ▸ Needs You lists them all")

    def notify(self, session_id: str | None, title: str, text: str) -> None:
        """Say it on the desktop (the tray, else notify-send) and in the window."""
        self.target = session_id
        if self.tray is not None and self.tray.isVisible() and self.tray.supportsMessages():
            self.tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, SHOWN_MS)
        elif shutil.which("notify-send"):
            self._notify_send(session_id, title, text)
        self.window.statusBar().showMessage(f"{title} — {text}", SHOWN_MS)
        QApplication.alert(self.window)
        self.sig_notified.emit(session_id or "", title, text)

    def _notify_send(self, session_id: str | None, title: str, text: str) -> None:
        """freedesktop's notification service through libnotify's notify-send: --wait keeps it running until the
        notification closes, printing the action clicked."""
        proc = QProcess(self)
        args = ["--app-name=Sessionscope", f"--expire-time={SHOWN_MS}", title, text]
        if session_id:
            args = ["--action=default=Open", "--wait", *args]

        def finished(*_args) -> None:
            clicked = bytes(proc.readAllStandardOutput()).decode(errors="replace").strip()
            if session_id and clicked == "default":
                self.sig_open.emit(session_id)
            proc.deleteLater()
        proc.finished.connect(finished)
        proc.start("notify-send", args)


class NotificationsBox(QGroupBox):
    """Settings ▸ Notifications: the rules, saved with the dialog's OK."""

    def __init__(self, kinds: list[tuple[str, str]], store=None, parent=None):
        super().__init__("Notifications (when an agent needs you)", parent)
        rules = Rules.load()
        self.enabled = QCheckBox("Tell me when a session needs approval or starts waiting for me")
        self.enabled.setChecked(rules.enabled)
        self.states = {state: QCheckBox(f"{MARKS[state]} {LABELS[state]}") for state in NEEDS_YOU}
        for state, box in self.states.items():
            box.setChecked(state in rules.states)
        self.tools = {kind: QCheckBox(label) for kind, label in kinds}
        for kind, box in self.tools.items():
            box.setChecked(kind not in rules.tools)
        self.quiet = QCheckBox("Quiet hours, from")
        self.quiet.setChecked(rules.quiet is not None)
        start, end = rules.quiet or (QTime(22, 0), QTime(7, 0))
        self.quiet_from, self.quiet_to = QTimeEdit(start), QTimeEdit(end)
        for edit in (self.quiet_from, self.quiet_to):
            edit.setDisplayFormat("HH:mm")
        self.tray = QCheckBox("Keep Sessionscope in the tray when its window is closed")
        self.tray.setChecked(rules.tray)
        self.tray.setEnabled(QSystemTrayIcon.isSystemTrayAvailable())
        if not self.tray.isEnabled():
            self.tray.setToolTip("This desktop has no system tray")
        form = QFormLayout(self)
        form.addRow(self.enabled)
        row = QHBoxLayout()
        for box in self.states.values():
            row.addWidget(box)
        row.addStretch()
        form.addRow("For", row)
        row = QHBoxLayout()
        for box in self.tools.values():
            row.addWidget(box)
        row.addStretch()
        form.addRow("From", row)
        row = QHBoxLayout()
        row.addWidget(self.quiet)
        row.addWidget(self.quiet_from)
        row.addWidget(QLabel("to"))
        row.addWidget(self.quiet_to)
        row.addStretch()
        form.addRow(row)
        form.addRow(self.tray)
        from sessionscope.gui.dialogs.hooks_box import HooksRow
        self.hooks = HooksRow(store)  # the agents' own hooks: exact states
        form.addRow(self.hooks)

    def rules(self) -> Rules:
        return Rules(self.enabled.isChecked(), {s for s, box in self.states.items() if box.isChecked()},
                     {k for k, box in self.tools.items() if not box.isChecked()},
                     (self.quiet_from.time(), self.quiet_to.time()) if self.quiet.isChecked() else None,
                     self.tray.isChecked())

"""The window's parts that follow the live states (gui/jobs/live_tracker.py): the list's Status, the status bar's
count of the sessions that wait for you, and the desktop notifications and tray icon."""

from __future__ import annotations

from PySide6.QtWidgets import QToolButton


def build_live(w) -> None:
    """Which sessions work, wait for you or were cut off (the list's Status), the status bar's count of those
    waiting, and the desktop notifications and tray icon, all from the one tracker's states."""
    from sessionscope.gui.jobs.live_tracker import LiveTracker
    w.live = LiveTracker(w)  # which sessions work, wait for you, were cut off (the list's Status)
    w.live.sig_states.connect(lambda states: w.sessions.model.set_live(states, w.live.changed))
    w.waiting_label = QToolButton()  # how many sessions wait for you, in the status bar: opens Needs You
    w.waiting_label.setObjectName("waiting-label")
    w.waiting_label.setAutoRaise(True)
    w.waiting_label.clicked.connect(lambda: w.openers.show_needs_you())
    w.waiting_label.hide()
    w.statusBar().addPermanentWidget(w.waiting_label)
    w.live.sig_states.connect(lambda states: show_waiting(w, states, w.live.needing))
    from sessionscope.gui.jobs.notifier import Notifier
    w.notifier = Notifier(w)  # desktop notifications and the tray icon, from the same states
    w.live.sig_states.connect(lambda states: w.notifier.on_states(states, w.live.needing))
    w.notifier.sig_open.connect(lambda sid: (w.bring_forward(), w.open_session(sid)))
    w.notifier.sig_needs_you.connect(lambda: (w.bring_forward(), w.openers.show_needs_you()))
    w.notifier.sig_show.connect(w.bring_forward)
    w.notifier.sig_quit.connect(w.quit_app)
    from sessionscope.gui.views.limits import LimitWatch
    w.limit_watch = LimitWatch(w)  # a usage limit crossed, or about to be: said through the same notifier
    w.imports.sig_changes.connect(w.limit_watch.changed)


def show_waiting(w, states: dict, needing: dict) -> None:
    """The status bar's count of the sessions that wait for you (`needing`, found on the tracker's worker);
    its tooltip names them."""
    ids = list(needing)
    w.waiting_label.setVisible(bool(ids))
    approvals = sum(st.state == "needs_approval" for st in needing.values())
    w.waiting_label.setText(f"◆ {len(ids)} waiting for you" if not approvals else
                            f"⚠ {len(ids)} need{'s' * (len(ids) == 1)} you ({approvals} to approve)")
    view = w.openers.needs_you_view
    if view is not None and view.isVisible():
        view.set_states(states)
    titles = [s.title or s.id[:8] for sid in ids[:12] if (s := w.sessions.model.session_at(
        w.sessions.model.row_of(sid))) is not None]
    w.waiting_label.setToolTip("\n".join(titles))

"""Sync with a team store in the window (#38 item 3): File ▸ Sync with Team Store sets the address, each project's
rule and the yes or no of waiting sessions; Review shows what would be redacted (never the secret); Sync Now runs in a
child process with progress and Stop in the status bar; a sync every so many minutes runs in the background; the
Session tab says whether a session goes, and a team copy where it came from."""

from __future__ import annotations

from sessionscope import open_store, ops

SECRET = "sk-ant-api03-Wq8vR2mXk4LpT7yHn3Wc9Bf6Jd1Gs5Ae0Uo-Lkjh"


def _sessions(store):
    a = store.open_session(title="payments deploy", project="/work/payments")
    store.append(a.id, "message", role="user", text=f"use the key {SECRET} for the deploy")
    store.append(a.id, "message", role="assistant", text="deployed the wombat build")
    b = store.open_session(title="side project", project="/work/side")
    store.append(b.id, "message", role="user", text="a private thought")
    return a.id, b.id


def _dialog(window, qtbot):
    window.qactions["app.sync"].trigger()
    dialog = window.openers.sync_dialog
    qtbot.waitUntil(lambda: dialog.projects.rowCount() > 0, timeout=10000)
    return dialog


def test_the_dialog_sets_where_and_what_then_syncs_with_progress(window, qtbot, tmp_path):
    store = window.store
    pay, side = _sessions(store)
    team_path = tmp_path / "team.db"
    open_store(team_path).close()
    dialog = _dialog(window, qtbot)
    assert not dialog.sync_button.isEnabled()  # no team store yet: said in its tooltip
    assert "address" in dialog.sync_button.toolTip()
    waiting = {dialog.waiting.item(r, 0).text() for r in range(dialog.waiting.rowCount())}
    assert {"payments deploy", "side project"} <= waiting

    # payments: always shared; the side project: never
    rows = {dialog.projects.item(r, 0).text(): r for r in range(dialog.projects.rowCount())}
    for project, rule in (("/work/payments", "always"), ("/work/side", "never")):
        box = dialog.projects.cellWidget(rows[project], 2)
        box.setCurrentIndex(box.findData(rule))
        box.activated.emit(box.currentIndex())
        qtbot.waitUntil(lambda p=project, r=rule: ops.sync_plan(store) and dialog.state.get("rules", {}).get(p) == r,
                        timeout=10000)
    assert pay in ops.sync_plan(store).push and side not in ops.sync_plan(store).waiting

    dialog.address.setText(str(team_path))
    dialog.address.editingFinished.emit()
    qtbot.waitUntil(lambda: dialog.state.get("target") == f"sqlite:///{team_path}", timeout=10000)
    assert dialog.sync_button.isEnabled()

    with qtbot.waitSignal(window.syncs.sig_finished, timeout=60000) as review:
        dialog.review_button.click()
    assert review.args[0]["dry_run"] and review.args[0]["pushed"] == [pay]
    text = dialog.last.toPlainText()
    assert "Secrets found" in text and "anthropic-key" in text and SECRET not in text
    with open_store(team_path) as team:
        assert team.sessions() == []  # a review pushes nothing

    with qtbot.waitSignal(window.syncs.sig_finished, timeout=60000) as done:
        dialog.sync_button.click()
        qtbot.waitUntil(lambda: window.syncs.label.isVisible() or not window.syncs.running, timeout=10000)
    assert done.args[0]["pushed"] == [pay] and not done.args[0]["problems"]
    qtbot.waitUntil(lambda: "Sync: pushed 1 session(s)" in window.statusBar().currentMessage(), timeout=5000)
    assert not window.syncs.bar.isVisible()
    with open_store(team_path) as team:
        copy = team.session(pay)
        assert copy.shared and SECRET not in " ".join(e.text for e in team.events(pay))
    qtbot.waitUntil(lambda: "go at each sync" in dialog.last.toPlainText(), timeout=10000)
    assert dialog.last.toPlainText().startswith("Sync: pushed 1 session(s)")

    # the background sync: set to every 5 minutes, the timer runs; 0, it stops
    dialog.every.setValue(5)
    dialog.every.editingFinished.emit()
    qtbot.waitUntil(lambda: window.syncs.timer.isActive(), timeout=10000)
    assert window.syncs.timer.interval() == 5 * 60_000
    dialog.every.setValue(0)
    dialog.every.editingFinished.emit()
    qtbot.waitUntil(lambda: not window.syncs.timer.isActive(), timeout=10000)
    dialog.close()


def test_waiting_sessions_get_a_yes_or_no_and_the_session_tab_says_so(window, qtbot, tmp_path):
    store = window.store
    pay, side = _sessions(store)
    dialog = _dialog(window, qtbot)
    row = next(r for r in range(dialog.waiting.rowCount()) if dialog.waiting.item(r, 0).text() == "side project")
    dialog.waiting.selectRow(row)
    dialog.skip_button.click()
    qtbot.waitUntil(lambda: side not in ops.sync_plan(store).waiting, timeout=10000)
    assert side in ops.sync_plan(store).withdrawn
    row = next(r for r in range(dialog.waiting.rowCount()) if dialog.waiting.item(r, 0).text() == "payments deploy")
    dialog.waiting.selectRow(row)
    dialog.share_button.click()
    qtbot.waitUntil(lambda: pay in ops.sync_plan(store).push, timeout=10000)
    dialog.close()

    # Session ▸ Share with the Team is on in a store of one's own: it says what a sync does with the session
    window.open_session(pay)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == pay, timeout=10000)
    action = window.qactions["session.share"]
    assert action.isEnabled() and action.isChecked()
    from sessionscope.gui.reader.session_info import session_html
    assert "goes to the team store at each sync" in session_html(store.session(pay))


def test_sync_now_without_a_team_store_opens_the_dialog(window, qtbot):
    window.qactions["app.sync_now"].trigger()
    qtbot.waitUntil(lambda: window.openers.sync_dialog is not None and window.openers.sync_dialog.isVisible(), timeout=10000)
    assert not window.syncs.running
    window.openers.sync_dialog.close()


def test_a_team_copy_says_where_it_came_from(tmp_path):
    from sessionscope.gui.reader.session_info import session_html

    local = open_store(tmp_path / "laptop.db")
    sid, _ = _sessions(local)
    ops.decide(local, [sid], True, actor="test")
    open_store(tmp_path / "team.db").close()
    ops.sync_now(local, str(tmp_path / "team.db"), actor="test")
    with open_store(tmp_path / "team.db") as team:
        page = session_html(team.session(sid))
        # a copy runs nowhere here: never "waiting for you" in the team store, whatever its last line
        from sessionscope.live import states as live
        state = live.states(team, procs=None)[sid]
    assert "Synced from" in page and "secret(s) redacted before it left" in page
    assert "goes to the team store" not in page  # (it is the team's copy, not a session to push)
    assert state.state == "ended" and "synced from" in state.why
    local.close()

"""Sync from a laptop (#38 item 3): the sessions a member shares, pushed from their own store into the team store
with every secret redacted first; incremental, resumable after a cut, idempotent; the choices it reads (each
project's rule, a yes or no per session). The team store is a real PostgreSQL server with the team rules on, the
member pushing is a login under them, and no secret may be found in any row of any table afterwards."""

from __future__ import annotations

import json
import threading

import pytest

from sessionscope import open_store, ops
from sessionscope.errors import StoreUnavailable
from sessionscope.sources.claude_code import import_paths
from sessionscope.sync import pushing
from tests.sources.claude_factory import Transcript

# one of each kind a transcript carries: a vendor key, a token, an assigned password, a private key, an AWS key
SECRETS = {
    "anthropic": "sk-ant-api03-Zq8vR2mXk4LpT7yHn3Wc9Bf6Jd1Gs5Ae0Uo-QrSt",
    "github": "ghp_9xKq2LmN4pR7sT1vW3yZ5bC8dF0gH6jJ2kMx",
    "password": "correct-horse-battery-staple-42",
    "aws": "AKIAZ7QX3LMN4PR8STUV",
    "stripe": "sk_live_51Hq2RxTf9KmLp3NvWz8YcB4dG",
}
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1n2v8Qw7xZp3LmK9TsRr4Yb6Uc2Ve8Wf0Xg1Hh3Ii5Jj7Kk\n"
       "-----END RSA PRIVATE KEY-----")
PEM_BODY = "MIIEpAIBAAKCAQEA1n2v8Qw7xZp3LmK9TsRr4Yb6Uc2Ve8Wf0Xg1Hh3Ii5Jj7Kk"


def _claude_home(tmp_path, cwd: str = "/work/payments") -> tuple:
    """A Claude Code transcript whose prompts, tool calls and results hold secrets, as real ones do."""
    t = Transcript(cwd=cwd)
    t.user(f"deploy with the key {SECRETS['anthropic']} please")
    call = t.assistant(tool=("Bash", {"command": f"export DB_PASSWORD='{SECRETS['password']}' && ./deploy.sh"}))
    t.tool_result(call, f"pushed with token {SECRETS['github']}\n{PEM}\nthe ocelot release is live")
    t.assistant("Deployed: the ocelot release is live.")
    t.user("thanks, ship it")
    t.write(tmp_path / "projects" / cwd.replace("/", "-"))
    return t, tmp_path / "projects"


def _laptop(tmp_path, name="laptop.db"):
    """A member's own store with an imported Claude Code session and a native one, both holding secrets."""
    local = open_store(tmp_path / name)
    t, projects = _claude_home(tmp_path)
    assert not import_paths(local, [projects]).problems
    ops.rename(local, t.session_id, f"deploy {SECRETS['aws']}", actor="test")
    ops.note_add(local, t.session_id, f"rotate {SECRETS['stripe']} after this", actor="test")
    ops.star(local, t.session_id, actor="test")
    first = local.events(t.session_id)[0]
    ops.pin(local, t.session_id, first.id, actor="test")
    native = local.open_session(title="native work", project="/work/payments", cwd="/work/payments",
                                metadata={"env": {"STRIPE_KEY": SECRETS["stripe"]}}, tags=["ocelot"])
    local.append(native.id, "message", role="user", text=f"the token is {SECRETS['github']}")
    local.append(native.id, "message", role="assistant", text="noted, the capybara plan")
    return local, t.session_id, native.id


@pytest.fixture(scope="module")
def team_db(postgres_server):
    """A team store with the rules on, and two members: alice (who syncs from her laptop) and bob."""
    database, names = postgres_server.team("alice", "bob")
    return postgres_server, database, names


def _every_row(server, database) -> str:
    """Every row of every table of the team store, as text, read by the database's owner (past the rules)."""
    import psycopg
    with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", dbname=database) as conn:
        tables = [t for (t,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
        return "\n".join(str(row) for t in tables for row in conn.execute(f'SELECT t::text FROM "{t}" t'))


def test_a_members_secrets_never_reach_the_team_store(team_db, tmp_path):
    server, database, names = team_db
    local, claude_sid, native_sid = _laptop(tmp_path)
    ops.set_project_rule(local, "/work/payments", "always", actor="test")
    url = server.url(database, names["alice"]).replace("@", ":a-login-password@", 1)  # (trust: any password)

    total = local.session(claude_sid).event_count + local.session(native_sid).event_count
    review = ops.sync_now(local, url, dry_run=True, actor="test")  # a dry run writes nothing and reviews
    assert review.dry_run and set(review.pushed) == {claude_sid, native_sid} and review.events == total
    assert {f.kind for f in review.findings} >= {"anthropic-key", "github-token", "private-key", "aws-key"}
    assert all(s not in json.dumps([f.as_dict() for f in review.findings]) for s in SECRETS.values())
    with open_store(server.url(database, names["bob"])) as bob:
        assert bob.sessions() == []

    report = ops.sync_now(local, url, actor="test")
    assert set(report.pushed) == {claude_sid, native_sid} and report.events == total and not report.problems
    assert report.redacted >= 7

    everything = _every_row(server, database)
    assert "ocelot release" in everything  # (the rows were read: what is no secret is there)
    for kind, secret in SECRETS.items():
        assert secret not in everything, f"the {kind} secret reached the team store"
    assert PEM_BODY not in everything

    with open_store(server.url(database, names["bob"])) as bob:  # a teammate reads the shared copies
        seen = {s.id: s for s in bob.sessions()}
        assert set(seen) == {claude_sid, native_sid}
        copy = seen[claude_sid]
        assert copy.owner == names["alice"] and copy.shared and not copy.yours
        assert copy.title.startswith("deploy [REDACTED:aws-key:")
        assert copy.starred and [p.event_id for p in bob.pins(claude_sid)] == [local.events(claude_sid)[0].id]
        assert bob.notes(claude_sid)[0].text.startswith("rotate [REDACTED:")
        texts = [e.text for e in bob.events(claude_sid)]
        assert texts[0].startswith("deploy with the key [REDACTED:anthropic-key:")
        assert [h.session_id for h in bob.search("ocelot")] and not bob.search(SECRETS["password"])
        synced = copy.meta["synced"]
        assert synced["from"] and synced["redacted"]["occurrences"] >= 5 and synced["redacted"]["events"] >= 2
        assert synced["redacted"]["kinds"]["private-key"] == 3  # the result's text, and twice in its line
        assert all(r.ok for r in bob.verify(claude_sid))  # the chain over the redacted events holds
        # the team's log says who pushed what, as the login (the client's word kept beside it)
        entries = [e for e in bob.audit_log(claude_sid) if e["action"] == "sync"]
        assert entries and entries[0]["actor"] == names["alice"] and entries[0]["detail"]["events"] == copy.event_count
    # the laptop's log and its word on the last sync; the address's password is in neither store
    assert [e["action"] for e in local.audit_log(limit=3)][:1] == ["sync"]
    assert report.target == server.url(database, names["alice"]).replace("+psycopg", "")
    local.close()
    import sqlite3

    from sessionscope.store import payloads
    dump = sqlite3.connect(tmp_path / "laptop.db")
    payloads.register_sql(dump)  # (the text index's content is the events' text unpacked: a store's function)
    assert "a-login-password" not in "\n".join(dump.iterdump())
    assert "a-login-password" not in _every_row(server, database)


def test_a_sync_goes_on_from_where_it_stopped_and_never_doubles(team_db, tmp_path, monkeypatch):
    server, database, names = team_db
    local = open_store(tmp_path / "laptop.db")
    sid = local.open_session(title="long work", project="/work/long").id
    for i in range(25):
        local.append(sid, "message", role="user" if i % 2 else "assistant", text=f"step {i} of the numbat plan")
    ops.set_project_rule(local, "/work/long", "always", actor="test")
    url = server.url(database, names["alice"])
    monkeypatch.setattr(pushing, "PAGE_EVENTS", 4)

    cancel = threading.Event()
    first = ops.sync_now(local, url, cancel=cancel, progress=lambda done, total, _: cancel.set() if done >= 8 else None,
                         actor="test")
    assert first.cancelled and first.events == 8
    with open_store(url) as alice:
        assert alice.session(sid).event_count == 8

    # the connection is cut between pages (the server ends alice's sessions): the next page reconnects
    import psycopg

    def cut(done, total, _label):
        if done == 12:
            with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", dbname=database,
                                 autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                              (names["alice"],))
    second = ops.sync_now(local, url, progress=cut, actor="test")
    assert second.events == 17 and not second.problems

    # two syncs at once (the app's background one and the command line): each event once, the chain whole
    for i in range(9):
        local.append(sid, "message", role="assistant", text=f"more {i}")
    results = []
    runs = [threading.Thread(target=lambda: results.append(ops.sync_now(local, url, actor="test"))) for _ in range(2)]
    for r in runs:
        r.start()
    for r in runs:
        r.join()
    assert sum(r.events for r in results) == 9, [r.as_dict(findings=False) for r in results]
    again = ops.sync_now(local, url, actor="test")
    assert again.events == 0 and again.up_to_date == 1
    with open_store(url) as alice:
        copy = alice.session(sid)
        assert copy.event_count == 34 and [e.seq for e in alice.events(sid)] == list(range(1, 35))
        assert all(r.ok for r in alice.verify(sid))
        # the same as one sync of the whole into a store of its own: the same events, the same chain
        open_store(tmp_path / "one.db").close()
        ops.sync_now(local, str(tmp_path / "one.db"), actor="test")
        with open_store(tmp_path / "one.db") as one:
            assert [(e.id, e.text, e.hash) for e in one.events(sid)] == [(e.id, e.text, e.hash) for e in alice.events(sid)]
    local.close()


def test_an_unreachable_team_store_is_said_and_kept_for_the_next_sync(tmp_path):
    local, claude_sid, _ = _laptop(tmp_path)
    ops.decide(local, [claude_sid], True, actor="test")
    with pytest.raises(StoreUnavailable):
        ops.sync_now(local, "postgresql://nobody@127.0.0.1:1/none", actor="test")
    with local.reader() as conn:
        last = pushing.last_report(conn)
    assert last["error"] and last["target"] == "postgresql://nobody@127.0.0.1:1/none"
    assert local.audit_log(limit=1)[0]["outcome"] == "error"
    local.close()


def test_rules_and_choices_say_what_goes(tmp_path):
    local = open_store(tmp_path / "laptop.db")
    team_path = tmp_path / "team.db"
    open_store(team_path).close()

    def session(project, title):
        sid = local.open_session(title=title, project=project).id
        local.append(sid, "message", role="user", text=f"{title} text")
        return sid

    home, work, secret, other = (session("/p/home", "home"), session("/p/work", "work"),
                                 session("/p/secret", "nda"), session("/p/other", "other"))
    ops.set_project_rule(local, "/p/work", "always", actor="test")
    ops.set_project_rule(local, "/p/secret", "never", actor="test")
    chosen = ops.sync_plan(local)
    assert chosen.push == (work,) and set(chosen.waiting) == {home, other} and chosen.held == ()

    ops.decide(local, [home], True, actor="test")  # a yes: it goes
    ops.decide(local, [other], False, actor="test")  # a no: not asked about again
    ops.share(local, secret, actor="test")  # a yes in a project that never shares: held, and said
    chosen = ops.sync_plan(local)
    assert set(chosen.push) == {home, work} and chosen.waiting == ()
    assert chosen.held == ((secret, "its project /p/secret is never shared"),)

    # a fork goes with the sessions it continues; one of a project that never shares holds it back
    fork_of_other = ops.fork(local, other, local.session(other).head_event_id, "fork of other", actor="test").session.id
    fork_of_secret = ops.fork(local, secret, local.session(secret).head_event_id, "fork of nda", actor="test").session.id
    ops.decide(local, [fork_of_other, fork_of_secret], True, actor="test")
    chosen = ops.sync_plan(local)
    assert fork_of_other not in chosen.push and any(s == fork_of_other and "you chose not" in w for s, w in chosen.held)
    ops.decide(local, [other], True, actor="test")
    chosen = ops.sync_plan(local)
    assert chosen.push.index(other) < chosen.push.index(fork_of_other)
    assert any(s == fork_of_secret and "never shared" in w for s, w in chosen.held)

    report = ops.sync_now(local, str(team_path), actor="test")
    assert set(report.pushed) == {home, work, other, fork_of_other}
    with open_store(team_path) as team_store:
        assert team_store.session(fork_of_other).forked_from_session == other
        assert [e.text for e in team_store.events(fork_of_other)] == []  # its history is its origin's, referenced
        assert team_store.session(other).shared

    # a no after a push: the team copy stays (it is the member's) but is no longer shared
    ops.share(local, other, on=False, actor="test")
    assert ops.sync_plan(local).held  # (the fork of it is held now)
    report = ops.sync_now(local, str(team_path), actor="test")
    assert report.withdrawn == [other]
    with open_store(team_path) as team_store:
        assert not team_store.session(other).shared and team_store.session(work).shared
    local.close()


def test_notes_stars_and_pins_follow_the_local_store(tmp_path):
    local = open_store(tmp_path / "laptop.db")
    team_path = tmp_path / "team.db"
    open_store(team_path).close()
    sid = local.open_session(title="marked", project="/p").id
    events = [local.append(sid, "message", role="user", text=f"line {i}") for i in range(3)]
    ops.decide(local, [sid], True, actor="test")
    note = ops.note_add(local, sid, "first thought", actor="test").detail["note"]["id"]
    ops.star(local, sid, actor="test")
    ops.pin(local, sid, events[1].id, actor="test")
    ops.sync_now(local, str(team_path), actor="test")
    ops.note_edit(local, note, "second thought", actor="test")
    ops.note_add(local, sid, "another", event_id=events[2].id, actor="test")
    ops.star(local, sid, on=False, actor="test")
    ops.pin(local, sid, events[1].id, on=False, actor="test")
    ops.pin(local, sid, events[0].id, actor="test")
    report = ops.sync_now(local, str(team_path), actor="test")
    assert report.pushed == [sid] and report.events == 0  # the marks changed, no event did
    with open_store(team_path) as team_store:
        assert sorted(n.text for n in team_store.notes(sid)) == ["another", "second thought"]
        assert not team_store.session(sid).starred
        assert [p.event_id for p in team_store.pins(sid)] == [events[0].id]
    local.close()


def test_a_copy_not_pushed_from_this_store_is_left_alone(tmp_path):
    team_path = tmp_path / "team.db"
    team_store = open_store(team_path)
    theirs = team_store.open_session(title="brought in directly").id
    team_store.append(theirs, "message", role="user", text="hello")
    team_store.close()
    local = open_store(tmp_path / "laptop.db")
    mine = local.open_session(session_id=theirs, title="the same id here").id
    local.append(mine, "message", role="user", text="hi")
    ops.decide(local, [mine], True, actor="test")
    report = ops.sync_now(local, str(team_path), actor="test")
    assert report.pushed == [] and report.problems and "not pushed from this store" in report.problems[0][1]
    with pytest.raises(Exception, match="no store at"):
        ops.sync_now(local, str(tmp_path / "typo.db"), actor="test")
    assert not (tmp_path / "typo.db").exists()
    local.close()


def test_the_sync_command(tmp_path, capsys):
    from sessionscope.cli.main import main

    local, claude_sid, native_sid = _laptop(tmp_path)
    local.close()
    team_path = tmp_path / "team.db"
    open_store(team_path).close()
    store = str(tmp_path / "laptop.db")

    def cli(*argv: str, rc: int = 0) -> dict:
        got_rc = main(["--store", store, "--json", "sync", *argv])
        got = capsys.readouterr()
        assert got_rc == rc, got.err
        state = json.loads(got.out)  # every form: the state after it, and a push's report
        assert set(state) == {"target", "every", "default", "rules", "plan", "last", "report"}
        return state

    status = cli("status")
    assert status["target"] is None and set(status["plan"]["waiting"]) == {claude_sid, native_sid}
    assert cli("rule", "/work/payments", "never")["rules"] == {"/work/payments": "never"}
    assert cli("rule", "--default", "always")["default"] == "always"
    assert cli("rule", "/work/payments", "default")["rules"] == {}
    assert cli("target", str(team_path), "--every", "15")["target"] == f"sqlite:///{team_path}"
    assert cli("skip", native_sid[:8])["plan"]["withdrawn"] == [native_sid]
    pushed = cli()["report"]  # to the remembered team store
    assert pushed["pushed"] == [claude_sid] and pushed["redacted"] > 0 and pushed["target"].endswith("team.db")
    assert all(s not in json.dumps(pushed) for s in SECRETS.values())
    again = cli("status")
    with open_store(store) as laptop:
        assert again["last"]["events"] == laptop.session(claude_sid).event_count and again["every"] == 15
    rc = main(["--store", store, "sync", "--to", str(tmp_path / "typo.db")])
    assert rc == 2 and "no store at" in capsys.readouterr().err
    main(["--store", store, "sync", "--dry-run"])
    text = capsys.readouterr().out
    assert "would push 0 session(s)" in text and "1 up to date" in text
    main(["--store", store, "sync", "status"])
    text = capsys.readouterr().out
    assert "team store: sqlite:///" in text and "every 15 min" in text and "last sync" in text


def test_two_members_push_at_once_and_the_change_mark_waits_for_the_open_page(team_db, tmp_path, monkeypatch):
    """#61: a sync's page holds its session's lock, not the store's. While Alice's page is written but not yet
    committed, Bob's whole sync goes through (it took turns with hers before), and the change mark stops below her
    keys though his, taken after, are stored; then hers commits and both copies are whole."""
    server, database, names = team_db
    members = {}
    for who in ("alice", "bob"):
        local = open_store(tmp_path / f"{who}.db")
        sid = local.open_session(title=f"{who} at once", project=f"/work/{who}-at-once").id
        for i in range(6):
            local.append(sid, "message", role="user" if i % 2 else "assistant", text=f"{who} step {i}")
        ops.set_project_rule(local, f"/work/{who}-at-once", "always", actor="test")
        members[who] = (local, sid, server.url(database, names[who]))
    holding, release, done = threading.Event(), threading.Event(), {}
    real = pushing._Push._apply

    def held_open(self, conn, row, *args):
        real(self, conn, row, *args)
        if row["id"] == members["alice"][1]:
            holding.set()
            release.wait(30)
    monkeypatch.setattr(pushing._Push, "_apply", held_open)
    alice = threading.Thread(target=lambda: done.setdefault("alice", ops.sync_now(*members["alice"][::2], actor="test")))
    alice.start()
    try:
        assert holding.wait(30)
        bob = ops.sync_now(*members["bob"][::2], actor="test")
        assert alice.is_alive() and "alice" not in done  # (Bob did not wait for her page)
        assert bob.events == 6 and not bob.problems
        with open_store(members["bob"][2]) as team:
            with team.reader() as conn:
                his_first = conn.exec_driver_sql("SELECT min(pk) FROM event WHERE session_id = %s",
                                                 (members["bob"][1],)).scalar()
                his_entry = conn.exec_driver_sql("SELECT max(id) FROM audit WHERE session_id = %s",
                                                 (members["bob"][1],)).scalar()
            mark = team.change_mark()  # her keys and her page's audit entry, taken first, are still to commit
            assert mark[0] < his_first and his_entry is not None and mark[1] < his_entry
    finally:
        release.set()
        alice.join(60)
    assert done["alice"].events == 6 and not done["alice"].problems
    with open_store(members["bob"][2]) as team:
        after = team.change_mark()
        assert after[0] >= his_first and after[1] >= his_entry
        for _, sid, _ in members.values():
            assert [e.seq for e in team.events(sid)] == list(range(1, 7)) and all(r.ok for r in team.verify(sid))
    for local, *_ in members.values():
        local.close()


def test_a_members_two_first_syncs_at_once_share_one_source_row(team_db, tmp_path, monkeypatch):
    """Two stores of one member pushing their first native sessions at once both need the team's source row for
    "native on this member's machines": the second waits for the first's page and takes that row, instead of
    failing on its unique key (the pages of different sessions no longer take turns)."""
    server, database, names = team_db
    url = server.url(database, names["bob"])
    locals_, sids = [], []
    for n in range(2):
        local = open_store(tmp_path / f"bob{n}.db")
        sid = local.open_session(title=f"bob's first {n}", project=f"/work/bob-first-{n}").id
        local.append(sid, "message", role="user", text=f"first sync {n}")
        ops.set_project_rule(local, f"/work/bob-first-{n}", "always", actor="test")
        locals_.append(local)
        sids.append(sid)
    holding, release, done = threading.Event(), threading.Event(), {}
    real = pushing._Push._apply

    def held_open(self, conn, row, *args):
        real(self, conn, row, *args)
        if row["id"] == sids[0]:
            holding.set()
            release.wait(30)
    monkeypatch.setattr(pushing._Push, "_apply", held_open)
    runs = [threading.Thread(target=lambda n=n: done.setdefault(n, ops.sync_now(locals_[n], url, actor="test")))
            for n in range(2)]
    runs[0].start()
    assert holding.wait(30)
    runs[1].start()
    runs[1].join(1.0)  # (it waits on the source row the first one's page has not committed yet)
    release.set()
    for r in runs:
        r.join(60)
    assert [done[n].problems for n in range(2)] == [[], []]
    with open_store(url) as team, team.reader() as conn:
        sources = conn.exec_driver_sql("SELECT DISTINCT source_id FROM session WHERE id = ANY(%s)", (sids,)).all()
        assert len(sources) == 1 and sources[0][0] is not None
    for local in locals_:
        local.close()


def test_a_sync_into_a_store_without_team_rules_takes_its_keys_from_the_sequence(pg_store, tmp_path):
    """A PostgreSQL store of one's own (no `team init`, no owner's functions): a sync's pages take their keys with
    nextval itself, and the copy is whole."""
    local = open_store(tmp_path / "own.db")
    sid = local.open_session(title="mine", project="/work/mine").id
    for i in range(7):
        local.append(sid, "message", role="user" if i % 2 else "assistant", text=f"mine {i}")
    ops.set_project_rule(local, "/work/mine", "always", actor="test")
    report = ops.sync_now(local, str(pg_store.url), actor="test")
    assert report.events == 7 and not report.problems
    assert [e.seq for e in pg_store.events(sid)] == list(range(1, 8)) and pg_store.verify(sid)[0].ok
    with pg_store.reader() as conn:
        pks = [pk for (pk,) in conn.exec_driver_sql("SELECT pk FROM event WHERE session_id = %s ORDER BY seq", (sid,))]
    assert pks == sorted(pks) and len(set(pks)) == 7
    local.close()

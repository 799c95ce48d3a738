"""A team store's rules on a real PostgreSQL server (#38 item 2): three logins — alice and bob, members, and
carol, an admin — and every read, change and delete that must be refused, refused by the server itself:
through the store as each of them, and through plain `psql` as that login."""

from __future__ import annotations

import uuid

import pytest

from sessionscope import ops
from sessionscope.errors import NotFound, Refused
from sessionscope.safety import team


def _session(store, title: str, text: str, project: str = "") -> str:
    sid = store.open_session(title=title, project=project).id
    store.append(sid, "message", role="user", text=text)
    return sid


def test_members_read_their_own_and_what_is_shared_and_change_only_their_own(team_store):
    server, database, names, st = team_store
    alice, bob, carol = st["alice"], st["bob"], st["carol"]
    private = _session(alice, "alice private", "the zanzibar secret plan", project="/work/p1")
    shared = _session(alice, "alice shared", "the quokka shared notes", project="/work/p2")
    of_project = _session(alice, "alice project", "the axolotl project", project="/work/p3")
    own = _session(bob, "bob's own", "bob writes here")

    assert alice.session(private).owner == names["alice"]  # the server's login, not the client's word
    assert alice.session(private).yours

    # before sharing, bob sees none of alice's: not listed, not found, not searched, no events
    assert {s.id for s in bob.sessions()} == {own}
    with pytest.raises(NotFound):
        bob.session(private)
    assert bob.search("zanzibar") == [] and bob.search("quokka") == []
    with pytest.raises(NotFound):
        bob.events(private)
    with bob.engine.connect() as conn:  # below the store: the server gives none of its rows
        assert conn.exec_driver_sql("SELECT count(*) FROM event WHERE session_id = %s", (private,)).scalar() == 0

    ops.share(alice, shared, actor="test")
    ops.share_project(alice, "/work/p3", actor="test")
    seen = {s.id: s for s in bob.sessions()}
    assert set(seen) == {own, shared, of_project}
    assert not seen[shared].yours and seen[shared].shared and seen[shared].owner == names["alice"]
    assert [e.text for e in bob.events(shared)] == ["the quokka shared notes"]
    assert [h.session_id for h in bob.search("quokka")] == [shared]
    assert bob.search("zanzibar") == []

    # the app offers only what the rules allow, and says why
    why = ops.refusal(seen[shared], "rename")
    assert why and names["alice"] in why
    assert ops.refusal(seen[shared], "export") is None and ops.refusal(seen[shared], "fork") is None
    with pytest.raises(Refused):
        ops.rename(bob, shared, "bob was here", actor="test")
    with pytest.raises(Refused):
        ops.delete(bob, shared, actor="test")

    # below the app: the server refuses the same writes (an append is an insert its rules reject; a change
    # or a delete of a row the login may only read changes nothing)
    with pytest.raises(Refused):
        bob.append(shared, "message", role="user", text="bob appends")
    with bob.engine.begin() as conn:
        assert conn.exec_driver_sql("UPDATE session SET title = 'x' WHERE id = %s", (shared,)).rowcount == 0
        assert conn.exec_driver_sql("DELETE FROM event WHERE session_id = %s", (shared,)).rowcount == 0
        assert conn.exec_driver_sql("DELETE FROM session WHERE id = %s", (private,)).rowcount == 0
    assert alice.session(shared).title == "alice shared" and alice.session(shared).event_count == 1

    # bob cannot take an id of alice's for a session of his own
    with pytest.raises(Refused, match="another member's"):
        bob.open_session(session_id=private)

    # a fork of a shared session is bob's own
    fork = ops.fork(bob, shared, alice.session(shared).head_event_id, "bob's fork", actor="test").session
    assert fork.owner == names["bob"] and fork.yours

    # the admin reads and changes everything
    assert {private, shared, of_project, own} <= {s.id for s in carol.sessions()}
    assert carol.session(private).yours
    ops.rename(carol, private, "renamed by the admin", actor="test")
    assert alice.session(private).title == "renamed by the admin"

    # alice stops sharing: bob no longer sees it
    ops.share(alice, shared, on=False, actor="test")
    ops.share_project(alice, "/work/p3", on=False, actor="test")
    assert {s.id for s in bob.sessions()} == {own, fork.id}

    # a member cannot turn the rules on (nor off): only the tables' owner
    with pytest.raises(Refused):
        bob.write(team.init)


def test_the_audit_log_takes_inserts_only_and_names_the_login(team_store, monkeypatch):
    server, database, names, st = team_store
    bob, carol = st["bob"], st["carol"]
    from sessionscope.safety import audit

    monkeypatch.setattr(audit, "ACTOR", "alice@laptop pid 1")  # bob's client claims to be alice
    sid = _session(bob, "bob audited", "hello")
    ops.rename(bob, sid, "renamed", actor="cli")
    with bob.engine.connect() as conn:
        actor, detail = conn.exec_driver_sql(
            "SELECT actor, detail FROM audit WHERE session_id = %s AND action = 'rename'", (sid,)).one()
    assert actor == names["bob"]
    assert "alice@laptop pid 1 via cli" in detail  # the client's word kept beside the login, never as it

    for who in ("bob", "carol"):  # a member and the admin alike
        with pytest.raises(Exception, match="permission denied"):
            with st[who].engine.begin() as conn:
                conn.exec_driver_sql("DELETE FROM audit")
        with pytest.raises(Exception, match="permission denied"):
            with st[who].engine.begin() as conn:
                conn.exec_driver_sql("UPDATE audit SET actor = 'nobody'")
    # the database's owner too (a trigger, which holds for the tables' owner as well)
    from sessionscope import open_store
    with open_store(server.url(database)) as owner_store:
        for statement in ("DELETE FROM audit", "UPDATE audit SET actor = 'nobody'", "TRUNCATE audit"):
            with pytest.raises(Exception, match="inserts only"):
                with owner_store.engine.begin() as conn:
                    conn.exec_driver_sql(statement)
    with carol.engine.connect() as conn:  # the admin reads every entry
        assert conn.exec_driver_sql("SELECT count(*) FROM audit WHERE session_id = %s", (sid,)).scalar() >= 2


def test_plain_psql_meets_the_same_rules(team_store):
    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    secret = _session(alice, "alice psql", "the pangolin password")
    bob_sid = _session(bob, "bob psql", "bob's line")

    def psql(who: str, statement: str):
        return server.psql(database, names[who], statement)

    r = psql("bob", f"SELECT count(*) FROM session WHERE id = '{secret}'")
    assert r.returncode == 0 and r.stdout.strip() == "0"
    r = psql("bob", "SELECT count(*) FROM event WHERE text LIKE '%pangolin%'")
    assert r.stdout.strip() == "0"
    # the owner's search function (it asks the text index past the rules) keeps only what bob may read
    r = psql("bob", "SELECT count(*) FROM sessionscope_matching(to_tsquery('simple', 'pangolin'), 100)")
    assert r.returncode == 0 and r.stdout.strip() == "0", r.stderr
    assert st["alice"].search("pangolin") and not bob.search("pangolin")
    r = psql("bob", f"UPDATE session SET title = 'mine now' WHERE id = '{secret}'")
    assert r.returncode == 0 and r.stdout.strip() == "UPDATE 0"  # a row bob may not see is no row to him
    r = psql("bob", f"DELETE FROM session WHERE id = '{secret}'")
    assert r.returncode == 0 and r.stdout.strip() == "DELETE 0"
    r = psql("bob", f"INSERT INTO event (id, session_id, seq, depth, ts, kind, text, payload, tokens_in, tokens_out, "
                    f"sidechain, hash) VALUES ('x-{uuid.uuid4()}', '{secret}', 99, 0, 0, 'message', 'bob', '', 0, 0, "
                    f"false, '')")
    assert r.returncode != 0 and "row-level security" in r.stderr
    r = psql("bob", f"UPDATE session SET owner = '{names['bob']}' WHERE id = '{secret}'")
    assert r.returncode == 0 and r.stdout.strip() == "UPDATE 0"
    ops.share(alice, secret, actor="test")  # shared: bob reads it, and still changes nothing of it
    r = psql("bob", f"SELECT text FROM event WHERE session_id = '{secret}'")
    assert r.stdout.strip() == "the pangolin password"
    for statement in (f"UPDATE session SET owner = '{names['bob']}' WHERE id = '{secret}'",
                      f"UPDATE event SET text = 'changed' WHERE session_id = '{secret}'",
                      f"DELETE FROM event WHERE session_id = '{secret}'", f"DELETE FROM session WHERE id = '{secret}'"):
        r = psql("bob", statement)
        assert r.returncode == 0 and r.stdout.strip().endswith(" 0"), (statement, r.stdout, r.stderr)
    r = psql("bob", f"UPDATE session SET shared = false WHERE id = '{secret}'")
    assert r.stdout.strip() == "UPDATE 0"
    r = psql("bob", f"INSERT INTO session (id, created_at, updated_at, owner) VALUES ('{uuid.uuid4()}', 0, 0, "
                    f"'{names['alice']}')")  # a session in alice's name
    assert r.returncode != 0 and "row-level security" in r.stderr
    r = psql("bob", "DELETE FROM audit")
    assert r.returncode != 0 and "permission denied" in r.stderr
    r = psql("bob", f"UPDATE session SET title = 'bob renamed his own' WHERE id = '{bob_sid}'")
    assert r.returncode == 0 and r.stdout.strip() == "UPDATE 1"
    # nothing of alice's changed; bob's own change went through
    assert alice.session(secret).title == "alice psql" and alice.session(secret).owner == names["alice"]
    assert alice.session(secret).event_count == 1
    assert bob.session(bob_sid).title == "bob renamed his own"


def test_a_member_imports_their_tools_files_as_their_own(team_store, tmp_path):
    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import Transcript

    t = Transcript(cwd="/work/bobs-app")
    call = t.assistant("reading", tool=("Read", {"file_path": "/work/bobs-app/key.txt"}))
    t.tool_result(call, "the wombat key")
    t.assistant("done")
    t.user("thanks")
    t.write(tmp_path / "projects" / "-work-bobs-app")
    report = import_paths(bob, [tmp_path / "projects"])
    assert report.events_added > 0 and not report.problems
    s = bob.session(t.session_id)
    assert s.owner == names["bob"] and s.yours
    bob.warm([t.session_id])  # the caches an import fills (vital signs, facts) are written as bob
    assert bob.vitals([t.session_id])
    with pytest.raises(NotFound):
        alice.session(t.session_id)
    assert alice.search("wombat") == []
    # the same transcript imported by alice (a copy on her machine) cannot take bob's session, and says so
    import shutil
    shutil.copytree(tmp_path / "projects", tmp_path / "alices" / "projects")
    again = import_paths(alice, [tmp_path / "alices" / "projects"])
    assert any("another member's" in p["problem"] for p in again.problems), again.problems
    assert bob.session(t.session_id).event_count == s.event_count


def test_the_team_command(team_store, capsys):
    import json

    from sessionscope.cli.main import main
    server, database, names, st = team_store
    sid = _session(st["alice"], "alice cli", "shared from the command line")

    def cli(who: str, *argv: str) -> dict:
        rc = main(["--store", server.url(database, names[who]), "--json", "team", *argv])
        got = capsys.readouterr()
        assert rc == 0, got.err
        return json.loads(got.out)

    assert cli("alice", "share", sid)["done"] == ["alice cli: shared with the team"]
    assert st["bob"].session(sid).shared
    assert cli("alice", "share", "--project", "/work/cli")["projects"] == ["/work/cli"]
    assert cli("alice", "unshare", "--project", "/work/cli")["projects"] == []
    me = cli("carol", "status")
    assert me["login"] == names["carol"] and me["admin"] and me["rules_on"] and not me["owner"]
    assert {m["name"] for m in me["members"]} >= set(names.values())
    rc = main(["--store", server.url(database, names["bob"]), "team", "unshare", sid])
    assert rc != 0 and names["alice"] in capsys.readouterr().err  # not bob's: refused, saying whose it is
    rc = main(["--store", server.url(database, names["bob"]), "team", "init"])
    assert rc != 0 and "owner" in capsys.readouterr().err


def test_needs_you_lists_only_your_own(team_store):
    from sessionscope.live import needs_you
    from sessionscope.live.states import Live

    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    hers = _session(alice, "alice waits", "a question for alice")
    ops.share(alice, hers, actor="test")
    his = _session(bob, "bob waits", "a question for bob")
    states = {sid: Live("waiting", "the turn ended", 0.0) for sid in (hers, his)}
    assert [w.session.id for w in needs_you.waiting(bob, states)] == [his]
    assert [w.session.id for w in needs_you.waiting(alice, states)] == [hers]


def test_every_table_has_team_rules():
    """A table a new version adds must say how a team store's rules reach its rows (sessionscope.safety.team), or a
    member could read every row of it."""
    from sessionscope.store.schema import SQLModel

    assert set(SQLModel.metadata.tables) <= set(team.ALL_TABLES), set(SQLModel.metadata.tables) - set(team.ALL_TABLES)


def test_a_member_cannot_upgrade_the_store_and_is_told_who_can(team_store):
    from sessionscope import open_store
    from sessionscope.errors import StoreUnavailable

    server, database, names, st = team_store
    old = server.fresh_database()
    name = old.rsplit("/", 1)[1]
    with open_store(old) as owner_store:
        owner_store.write(team.init)
        with owner_store.engine.begin() as conn:  # as if an older Sessionscope had made it
            conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0019'")
    with pytest.raises(StoreUnavailable, match="only the owner of its tables"):
        open_store(server.url(name, names["bob"]))


def test_a_member_cannot_move_the_keys_back_nor_count_the_store(team_store):
    """#58: `team init` granted UPDATE on every sequence: one `setval('event_pk_seq', 1)` made every other member's
    next import fail on a duplicate key, and pg_sequences told the store's row counts. Keys now come from the
    owner's functions, which only move a sequence forward."""
    import psycopg

    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    _session(alice, "alice before", "written before the attack")
    with bob.engine.connect() as conn:
        for attack in ("SELECT setval('event_pk_seq', 1)", "SELECT nextval('event_pk_seq')",
                       "SELECT last_value FROM event_pk_seq"):
            with pytest.raises(Exception) as refused, conn.begin():
                conn.exec_driver_sql(attack)
            assert isinstance(refused.value.orig, psycopg.errors.InsufficientPrivilege), attack
        with conn.begin():
            assert conn.exec_driver_sql("SELECT last_value FROM pg_sequences WHERE sequencename = 'event_pk_seq'"
                                        ).scalar() is None
            conn.exec_driver_sql("SELECT sessionscope_keys_past('event', 'pk', 1)")  # backwards: nothing moves
        with pytest.raises(Exception), conn.begin():
            conn.exec_driver_sql("SELECT sessionscope_take_keys('pg_authid', 'oid', 1)")
    # bob's own writes still take keys (an append, a note: a column's default; a bulk import: a block)
    mine = _session(bob, "bob after", "bob's writes take keys through the functions")
    ops.note_add(bob, mine, "a note of bob's")
    after = _session(alice, "alice after", "alice's next write lands")
    assert [e.text for e in alice.events(after)] == ["alice's next write lands"]


def test_a_member_redacts_under_a_key_of_their_own_and_never_reads_the_stores(postgres_server, tmp_path):
    """#58: on a team store where no one had exported yet, a member's `export` and `mcp` stopped on "permission
    denied for table setting" (the redactor makes its key there), and once made, every member could read it."""
    from sessionscope import open_store
    from sessionscope.export.core import redactor_for
    from sessionscope.recall.mcp_server import Tools

    database, names = postgres_server.team("alice", "bob")
    url = postgres_server.url(database)
    alice, bob = (open_store(postgres_server.url(database, names[w])) for w in ("alice", "bob"))
    try:
        sid = _session(bob, "bob's deploy", "the key is AKIAIOSFODNN7EXAMPLE, do not share it")
        answer = Tools(bob).transcript(sid)  # no admin ran anything before: it answers
        assert "AKIAIOSFODNN7EXAMPLE" not in str(answer) and "[REDACTED:aws-key:" in str(answer)
        from sessionscope.cli.main import main
        out = tmp_path / "bob.md"
        assert main(["--store", postgres_server.url(database, names["bob"]), "export", sid, "-f", "md", "--redact", "-o",
                     str(out)]) == 0
        assert "[REDACTED:aws-key:" in out.read_text() and "AKIAIOSFODNN7EXAMPLE" not in out.read_text()
        for store in (alice, bob):
            with store.engine.connect() as conn:
                assert conn.exec_driver_sql("SELECT count(*) FROM setting WHERE key = 'redaction.key'").scalar() == 0
        mine = redactor_for(bob).placeholder("aws-key", "AKIAIOSFODNN7EXAMPLE")
        assert redactor_for(bob).placeholder("aws-key", "AKIAIOSFODNN7EXAMPLE") == mine  # stable across runs
        assert redactor_for(alice).placeholder("aws-key", "AKIAIOSFODNN7EXAMPLE") != mine  # not another member's
        with open_store(url) as owner:  # the store's own key exists, for its owner alone
            with owner.engine.connect() as conn:
                assert conn.exec_driver_sql("SELECT count(*) FROM setting WHERE key = 'redaction.key'").scalar() == 1
    finally:
        alice.close()
        bob.close()


def test_a_reader_plants_nothing_derived_for_another_members_session(team_store):
    """#58: a member could write caches and indexes of any session they could read: usage_cache of alice's session,
    file_touch rows naming it (blame's attribution forged). What is derived is now written by whoever may change
    the session; a reader computes it and keeps nothing."""
    import psycopg

    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    hers = _session(alice, "alice derived", "edit the payment module")
    alice.append(hers, "message", role="assistant", text="done", tokens_in=500, tokens_out=20)
    ops.share(alice, hers, actor="test")
    with bob.engine.connect() as conn:
        for attack in (
                "INSERT INTO usage_cache (session_id, last_seq, rows) VALUES (%s, 99, '[]')",
                "INSERT INTO file_touch (path, name, session_id, event_id, seq, ts, op) "
                "VALUES ('/etc/passwd', 'passwd', %s, 'x', 1, 0, 'write')",
                "INSERT INTO vitals_cache (session_id, last_seq, version, data) VALUES (%s, 99, 1, '{}')",
                "INSERT INTO outline_cache (session_id, head_event_id, last_seq, entries) VALUES (%s, 'x', 99, '')"):
            with pytest.raises(Exception) as refused, conn.begin():
                conn.exec_driver_sql(attack, (hers,))
            assert isinstance(refused.value.orig, psycopg.errors.InsufficientPrivilege), attack
    # bob still reads her session whole: its branch, vital signs and usage are computed, none kept
    assert [e.text for e in bob.branch_view(hers)] == ["edit the payment module", "done"]
    assert hers in bob.vitals([hers])
    assert hers in {sid for _c, _t, sid in bob.usage().session_costs}
    with alice.engine.connect() as conn:
        for table in ("usage_cache", "vitals_cache", "outline_cache", "file_touch"):
            assert conn.exec_driver_sql(f"SELECT count(*) FROM {table} WHERE session_id = %s", (hers,)).scalar() == 0
    alice.vitals([hers])  # her own reads keep them
    with alice.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM vitals_cache WHERE session_id = %s", (hers,)).scalar() == 1


def test_scan_state_is_the_importing_members_own(team_store, tmp_path):
    """#58 item 9: `source` and `source_file` were everyone's: bob read alice's private file paths (her session's id,
    her project folder), and one UPDATE of an offset made her next import skip her new lines silently. Two members
    may also scan the same path (the same container layout on their machines)."""
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import Transcript

    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    folder = tmp_path / "same" / "projects"  # the same path string on both machines
    t = Transcript(cwd="/work/alices-secret-project")
    t.user("alice's first prompt")
    path = t.write(folder / "-work-alices-secret-project")
    assert import_paths(alice, [folder]).events_added > 0
    with bob.engine.begin() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM source_file WHERE path LIKE %s", ("%alices-secret%",)).scalar() == 0
        conn.exec_driver_sql('UPDATE source_file SET "offset" = 999999')  # (his own rows only, if any)
    # bob scans the same path string with his own files: his own state, no clash with hers
    other = tmp_path / "bobs"
    b = Transcript(cwd="/work/bob")
    b.user("bob's prompt")
    b.write(other / "-work-bob")
    assert import_paths(bob, [other]).events_added > 0
    # alice's next lines are read, from where she left off
    t.assistant("alice's reply")
    path.write_text(t.text())
    import_paths(alice, [folder])
    assert [e.text for e in alice.branch_view(t.session_id)] == ["alice's first prompt", "alice's reply"]
    assert str(other) in bob.source_locations() and str(folder) not in bob.source_locations()  # his places alone


def test_a_member_cannot_plant_a_files_content_under_anothers_hash(team_store):
    """#58 item 10: a member could insert a file_blob row under any hash with other bytes: readers saw it damaged,
    and the owner of the real content could no longer store it (its key was taken)."""
    import hashlib

    import psycopg

    from sessionscope.store import blobs
    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    real = b"the real content of auth.py\n" * 50
    h = hashlib.sha256(real).hexdigest()
    with bob.engine.connect() as conn:
        with pytest.raises(Exception) as refused, conn.begin():
            conn.exec_driver_sql("INSERT INTO file_blob (hash, size, codec, data) VALUES (%s, 4, 'raw', 'evil')", (h,))
        assert isinstance(refused.value.orig, psycopg.errors.InsufficientPrivilege)
        with pytest.raises(Exception) as refused, conn.begin():
            conn.exec_driver_sql("SELECT sessionscope_put_blob(%s, 4, 'evil')", (h,))
        assert isinstance(refused.value.orig, psycopg.errors.CheckViolation)
    assert alice.write(blobs.put, real) == h  # the real content is stored, through the server's check
    from sessionscope import open_store
    with open_store(server.url(database)) as owner, owner.engine.connect() as conn:
        assert blobs.get(conn, h) == real


def test_team_administration_is_in_the_audit_log(postgres_server):
    """#59: `team init` and `team add-member` granted rights with no audit entry."""
    from sessionscope import open_store
    url = postgres_server.fresh_database()
    name = f"dana_{uuid.uuid4().hex[:6]}"
    with open_store(url) as owner:
        ops.team_init(owner, actor="cli")
        ops.team_add_member(owner, name, password="s3cret", actor="cli")
        entries = [e for e in reversed(owner.audit_log()) if e["action"].startswith("team.")]
    assert [e["action"] for e in entries] == ["team.init", "team.add_member"]
    assert {k: v for k, v in entries[1]["detail"].items() if k != "client"} == \
        {"member": name, "admin": False, "password_set": True}  # (client: the front end's word, kept by the server)
    assert "s3cret" not in str(entries)

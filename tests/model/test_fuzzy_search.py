"""Search that forgives (#64 item 2): `*ssion*` finds any word holding it, a word that finds nothing is mended to the
nearest word the store holds ("did you mean"), with the same operators, filters and ranking; on SQLite and
PostgreSQL, through the Store, the command line's quick reader and the MCP server (which mends nothing and holds
`*part*` to the redacted text, so neither tells a secret's characters)."""

from __future__ import annotations

import json
import sqlite3
import string
import subprocess
import sys

import pytest

from sessionscope import ops
from sessionscope.recall.fuzzy import distance, nearest
from tests.conftest import REPO

LINES = ["we rewind the session to the prompt", "sessions are kept for a year", "permission denied for the deploy",
         "a flaky test in the login suite", "the rewinder tool is separate"]


def _filled(store) -> str:
    s = store.open_session(title="fuzzy")
    for line in LINES:
        store.append(s.id, "message", role="user", text=line)
    store.append(s.id, "tool_call", role="assistant", text="Bash git rebase --onto main")
    return s.id


def _texts(hits, store=None) -> set[str]:
    """The hits' whole texts (a snippet is cut differently by each engine)."""
    if store is None:
        return {h.snippet.replace("\x02", "").replace("\x03", "") for h in hits}
    return {e.text for e in store.events_by_ids([h.event_id for h in hits])}


def test_a_typo_finds_the_word_meant_and_says_so(store):
    _filled(store)
    hits = store.search("rewnd")
    assert _texts(hits, store) == {LINES[0]} and {h.did_you_mean for h in hits} == {"rewind"}
    assert "\x02rewind\x03" in hits[0].snippet  # the word meant is the one marked
    # the operators and filters hold for the mended query
    assert _texts(store.search("permision -flaky"), store) == {LINES[2]}
    assert store.search("permision kind:tool_call") == []
    assert _texts(store.search("kind:message sesion"), store) == {LINES[0]}
    # a word the index holds is never mended, nor one under four letters, nor one too far from any word
    assert {h.did_you_mean for h in store.search("rewind")} == {""}
    assert store.search("tst") == [] and store.search("zzzzzzzz") == []
    assert store.search("rewnd", fuzzy=False) == []


def test_a_part_of_a_word_finds_every_word_holding_it(store):
    _filled(store)
    assert _texts(store.search("*ssion*"), store) == {LINES[0], LINES[1], LINES[2]}
    assert _texts(store.search("*ssion"), store) == {LINES[0], LINES[2]}  # ending so: not "sessions"
    assert _texts(store.search("*ewind*"), store) == {LINES[0], LINES[4]}  # rewind, rewinder
    assert _texts(store.search("*ssion* -*mission*"), store) == {LINES[0], LINES[1]}
    assert _texts(store.search("*ssion* OR flaky"), store) == {LINES[0], LINES[1], LINES[2], LINES[3]}
    assert store.search("*zzq*") == []
    assert all(h.did_you_mean == "" for h in store.search("*ssion*"))
    assert _texts(store.search("tool:Bash *base*"), store) == {"Bash git rebase --onto main"}


def test_the_words_follow_the_store(store):
    """New text is found by its parts at once (the words added since are read when a search needs them); a deleted
    session's words are forgotten with it."""
    sid = _filled(store)
    assert _texts(store.search("*ssion*"), store)
    other = store.open_session(title="later")
    store.append(other.id, "message", role="user", text="the quokkabridge was built")
    assert _texts(store.search("*kkabri*"), store) == {"the quokkabridge was built"}
    assert {h.did_you_mean for h in store.search("quokabridge")} == {"quokkabridge"}
    ops.delete(store, other.id)
    assert store.search("*kkabri*") == [] and store.search("quokabridge") == []
    assert _texts(store.search("rewnd"), store) == {LINES[0]} and sid


def test_sqlite_keeps_its_words_and_the_quick_reader_finds_the_same(tmp_path):
    from sessionscope import open_store
    from sessionscope.store.quick import open_reader
    path = tmp_path / "s.db"
    with open_store(path) as store:
        _filled(store)
        queries = ["rewnd", "*ssion*", "*ssion", "permision -flaky", "*base*"]
        want = {q: [(h.event_id, h.did_you_mean) for h in store.search(q)] for q in queries}
        store.append(store.open_session(title="after").id, "message", role="user", text="a zebracrossing here")
    con = sqlite3.connect(path)
    kept = {r[0] for r in con.execute("SELECT term FROM search_term")}
    con.close()
    assert {"rewind", "rewinder", "session", "sessions", "permission"} <= kept and "zebracrossing" not in kept
    with open_reader(str(path)) as reader:  # read only: the words added since, read for itself
        assert {q: [(h.event_id, h.did_you_mean) for h in reader.search(q)] for q in queries} == want
        assert _texts(reader.search("*bracross*")) == {"a zebracrossing here"}
    done = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(path), "search", "rewnd"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "did you mean 'rewind'?" in done.stdout and "we [rewind] the" in done.stdout, \
        done.stderr
    done = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(path), "--json", "search",
                           "*ssion*"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert len(json.loads(done.stdout)) == 3


def test_the_mcp_search_takes_parts_but_is_no_oracle_for_a_secret(tmp_path):
    """`*part*` through MCP is held to the redacted text; no typo is mended there (it would name a word of the
    index): a secret's characters are not told either way."""
    from sessionscope import open_store
    from sessionscope.recall.mcp_server import Tools
    aws = "AKIAIOSFODNN7EXAMPLE"
    with open_store(tmp_path / "s.db") as store:
        s = store.open_session(title="keys")
        store.append(s.id, "message", role="assistant", text=f"export AWS_ACCESS_KEY_ID={aws} then rotated it")
        t = Tools(store)
        for ask in ("*IOSFODNN*", "*iosf*", "*EXAMPLE", "AKIAIOSFODNN7EXAMPLF", "akiaiosfodnn7exampl"):
            assert t.search(ask)["hits"] == [], ask
        assert store.search("AKIAIOSFODNN7EXAMPLF")  # (the user's own search, on their own machine, mends it)
        found = t.search("*otate*")["hits"]
        assert len(found) == 1 and aws not in json.dumps(found)
        alphabet = string.ascii_uppercase + string.digits
        assert not any(t.search(f"*AKIAIOSF{c}*")["hits"] for c in alphabet)


def test_distance_and_the_nearest_word():
    assert distance("rewnd", "rewind", 1) == 1 and distance("kitten", "sitting", 3) == 3
    assert distance("abcdefgh", "zzzzzzzz", 2) == 3  # (past the bound: stops early)

    class Few:
        def near(self, word):
            return ["session", "sessions", "lesson"]
    assert nearest("sesion", Few()) == "session" and nearest("ses", Few()) is None


def test_the_corpus_store_answers_parts_and_typos(corpus, tmp_path):
    """On real transcripts: every word `*part*` stands for holds the part, and a typo of a word the sessions use is
    mended to it."""
    from sessionscope import open_store
    from sessionscope.sources.importing import import_paths
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no corpus")
    with open_store(tmp_path / "c.db") as store:
        import_paths(store, [folder])
        hits = store.search("*ssion*", limit=200)
        assert hits and all("ssion" in h.snippet.lower() for h in hits)
        assert {h.did_you_mean for h in store.search("permision")} == {"permission"}


def test_a_store_that_cannot_be_written_still_searches(tmp_path, monkeypatch):
    """The words are brought up to date in a write; where the store refuses it, a search still answers (its parts
    and typos find what the words already kept)."""
    from sessionscope import open_store
    with open_store(tmp_path / "s.db") as store:
        _filled(store)

        def refused(_fn):
            raise sqlite3.OperationalError("attempt to write a readonly database")
        monkeypatch.setattr(store, "write", refused)
        assert store.search("*ssion*") == [] and store.search("rewnd") == []
        assert _texts(store.search("rewind"), store) == {LINES[0]}


@pytest.mark.sqlite_only
def test_a_store_that_keeps_words_is_brought_up_to_date_in_steps_and_one_that_keeps_none_is_left_so(store, monkeypatch):
    """After a user's import the window catches the words up on a worker (Store.catch_up_words), so the first
    `*part*` search after it does not read them all; a store never asked such a search keeps none."""
    from sessionscope.recall import terms
    sid = _filled(store)
    assert store.catch_up_words() == 0  # keeps no words: none are made
    with store.reader() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM search_term").scalar() == 0
    store.search("*ssion*")  # words kept from now on
    for n in range(5):
        store.append(sid, "message", role="user", text=f"the marmalade number {n} and the rewinding")
    monkeypatch.setattr(terms, "CATCH_UP_STEP", 2)  # a transaction every two events
    pauses = []
    assert store.catch_up_words(pause=lambda: pauses.append(1)) == 5 and len(pauses) == 3
    with store.reader() as conn:
        words = {r[0] for r in conn.exec_driver_sql("SELECT term FROM search_term")}
        at = conn.exec_driver_sql("SELECT value FROM setting WHERE key = ?", (terms.TERMS_AT,)).scalar()
        top = conn.exec_driver_sql("SELECT max(pk) FROM event").scalar()
    assert {"marmalade", "rewinding", "number"} <= words and int(at) == top
    assert store.catch_up_words() == 0
    assert _texts(store.search("*armala*"), store) == {f"the marmalade number {n} and the rewinding" for n in range(5)}


@pytest.mark.sqlite_only
def test_words_forgotten_while_they_are_caught_up_stay_forgotten(store):
    """A session deleted meanwhile forgets every word (they may be nowhere else): a step of the catch-up that comes
    after must not mark the store as keeping words it no longer has."""
    from sessionscope.recall import terms
    sid = _filled(store)
    store.search("*ssion*")
    store.append(sid, "message", role="user", text="the marmalade")
    words = terms.store_words(store)

    def forgetting_first(fn) -> None:
        words.write(terms.forget)
        words.write(fn)
    assert terms.catch_up(words.run, forgetting_first) == 1  # (what it was asked to cover)
    with store.reader() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM search_term").scalar() == 0
        assert conn.exec_driver_sql("SELECT value FROM setting WHERE key = ?", (terms.TERMS_AT,)).first() is None
    assert _texts(store.search("*armala*"), store) == {"the marmalade"}  # read whole again when next needed



def test_a_member_is_mended_only_to_words_they_may_read(team_store):
    """On a team store a word is 'in the index' for a member only where they may read it (asked through the owner's
    function, as search is): Bob's search for a word only Alice's private session holds is mended to the word of
    the session she shared, and tells nothing of the private one; Alice finds hers as typed."""
    from sessionscope import ops
    *_, st = team_store
    alice, bob = st["alice"], st["bob"]
    private = alice.open_session(title="private").id
    alice.append(private, "message", role="user", text="the zebracorn sleeps")
    shared = alice.open_session(title="shared").id
    alice.append(shared, "message", role="user", text="the zebracorns sleep")
    ops.share(alice, shared, actor="test")
    hits = bob.search("zebracorn")
    assert [h.session_id for h in hits] == [shared] and {h.did_you_mean for h in hits} == {"zebracorns"}
    mine = alice.search("zebracorn")
    assert [h.session_id for h in mine] == [private] and {h.did_you_mean for h in mine} == {""}

"""Search by meaning (#34): a real model2vec model (tiny, built in its own format) embeds a real store's texts;
the search fuses its ranking with the words'. Each test runs on SQLite and on a PostgreSQL server."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("model2vec")

from sessionscope import ops  # noqa: E402
from sessionscope.errors import Refused  # noqa: E402
from sessionscope.recall import semantic
from tests.semantic_model import build  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(build(tmp_path_factory.mktemp("model")))


def _session(store, title, *texts, kind="message"):
    sid = store.open_session(title=title).id
    for i, t in enumerate(texts):
        store.append(sid, kind, role="user" if i % 2 == 0 else "assistant", text=t)
    return sid


def _on(store, model_dir, **kw):
    ops.set_semantic(store, semantic.Config(enabled=True, model=model_dir, **kw), actor="test")


@pytest.fixture
def topics(store):
    return {
        "cache": _session(store, "lookups", "the lookup is slow on every request", "add an lru cache with a ttl"),
        "cache2": _session(store, "speed", "memoize the parser results", "evict stale entries when warm"),
        "db": _session(store, "schema", "the postgres migration is failing", "add an index to the table"),
    }


def test_meaning_finds_what_the_words_do_not(store, topics, model_dir):
    assert store.search("memoization") == []  # no event has the word
    _on(store, model_dir)
    outcome = ops.embed(store)
    assert outcome.embedded == 6 and not outcome.cancelled
    hits = store.search("memoization")
    assert hits and hits[0].session_id in (topics["cache"], topics["cache2"]) and hits[0].match == "meaning"
    assert {h.session_id for h in hits[:3]} <= {topics["cache"], topics["cache2"]}
    # a text both rankings find comes first and says so; its snippet keeps the word marked
    both = store.search("cache")
    assert both[0].session_id == topics["cache"] and both[0].match == "both" and "\x02cache\x03" in both[0].snippet
    # newest first is the words' alone
    assert [h.match for h in store.search("cache", order="time")] == ["words"]


def test_search_by_meaning_is_off_until_turned_on(store, topics, model_dir):
    with pytest.raises(Refused, match="off"):
        ops.embed(store)
    with pytest.raises(Refused, match="off"):
        semantic.similar_sessions(store, topics["cache"])
    assert semantic.ranker(store) is None
    _on(store, model_dir)
    assert semantic.ranker(store) is None  # on, nothing embedded yet: the words alone
    status = semantic.status(store)
    assert (status.embedded, status.pending, status.fetched) == (0, 6, True)
    entry = store.audit_log(limit=1)[0]
    assert entry["action"] == "semantic.settings" and entry["actor"].endswith("via test")


def test_embedding_is_cancellable_and_goes_on_where_it_stopped(store, topics, model_dir, monkeypatch):
    monkeypatch.setattr(semantic, "BATCH", 2)
    _on(store, model_dir)
    stop, seen = threading.Event(), []

    def progress(done, total):
        seen.append((done, total))
        stop.set()  # after the first batch
    first = ops.embed(store, progress=progress, cancel=stop)
    assert (first.embedded, first.cancelled, seen) == (2, True, [(2, 6)])
    assert semantic.status(store).pending == 4
    rest = ops.embed(store)
    assert rest.embedded == 4 and semantic.status(store).embedded == 6
    assert ops.embed(store).embedded == 0  # nothing twice
    # what comes in later is embedded by the next run
    _session(store, "later", "the cache is cold after a deploy")
    assert ops.embed(store).embedded == 1


def test_filters_and_left_out_words_hold_for_meaning(store, topics, model_dir):
    _on(store, model_dir)
    ops.embed(store)
    assert {h.session_id for h in store.search(f"memoization session:{topics['cache2'][:8]}")} == {topics["cache2"]}
    assert all(h.session_id == topics["cache2"] for h in store.search("memoization", session_id=topics["cache2"]))
    assert not [h for h in store.search("memoization -lru -memoize -evict -lookup") if h.match != "words"
                and any(w in h.snippet for w in ("lru", "memoize", "evict", "lookup"))]
    assert store.search("memoization kind:tool_result") == []
    assert store.search("memoization until:2000-01-01") == []


def test_notes_are_embedded_and_an_edited_note_again(store, topics, model_dir):
    _on(store, model_dir)
    ops.embed(store)
    ops.note_add(store, topics["db"], "remember: jitter and backoff on every retry", actor="test")
    assert semantic.status(store).pending == 1
    ops.embed(store)
    hit = store.search("timeout")[0]
    assert (hit.kind, hit.match, hit.session_id) == ("note", "meaning", topics["db"]) and hit.note_id
    ops.note_edit(store, hit.note_id, "the dark theme of the dialog", actor="test")
    assert semantic.status(store).pending == 1  # its old vector went with its old text
    ops.embed(store)
    assert not [h for h in store.search("timeout") if h.kind == "note"]
    assert store.search("window")[0].note_id == hit.note_id


def test_a_deleted_session_takes_its_vectors_and_a_new_model_makes_all_again(store, topics, model_dir, tmp_path):
    _on(store, model_dir)
    ops.embed(store)
    assert store.search("memoization")
    ops.archive(store, topics["cache"], actor="test")
    ops.archive(store, topics["cache2"], actor="test")
    ops.delete(store, topics["cache"], actor="test")
    ops.delete(store, topics["cache2"], actor="test")
    assert semantic.status(store).embedded == 2
    assert not [h for h in store.search("memoization") if h.session_id in (topics["cache"], topics["cache2"])]
    other = str(build(tmp_path / "other", dim=24, seed=3))
    _on(store, other)
    assert (semantic.status(store).embedded, semantic.status(store).pending) == (0, 2)
    ops.embed(store)
    assert store.search("sqlite")[0].session_id == topics["db"]


def test_tool_output_is_embedded_when_asked(store, model_dir):
    sid = _session(store, "tools", "run the suite")
    store.append(sid, "tool_result", role="tool", text="3 failed, 2 passed: flaky fixture in the suite")
    _on(store, model_dir)
    ops.embed(store)
    assert not [h for h in store.search("pytest coverage") if h.kind == "tool_result"]
    _on(store, model_dir, tool_output=True)
    assert semantic.status(store).pending == 2
    ops.embed(store)
    assert [h for h in store.search("pytest coverage") if h.kind == "tool_result"]


def test_sessions_like_this_one(store, topics, model_dir):
    _on(store, model_dir)
    ops.embed(store)
    like = semantic.similar_sessions(store, topics["cache"])
    assert [s.session_id for s in like] == [topics["cache2"], topics["db"]]
    assert like[0].score > like[1].score and like[0].title == "speed"
    empty = _session(store, "empty")
    with pytest.raises(Refused, match="nothing embedded"):
        semantic.similar_sessions(store, empty)


def test_packed_vectors_keep_their_order():
    import numpy as np
    rng = np.random.default_rng(1)
    v = rng.normal(size=(200, 256)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    idx = semantic.Index()
    idx.dim = 256
    idx.matrix, idx.scales = semantic._unpack(semantic.pack(v), 256)
    idx.ids = np.arange(200)
    q = v[17] + rng.normal(scale=0.5, size=256).astype(np.float32)
    q /= np.linalg.norm(q)
    assert np.abs(idx.scores(q) - v @ q).max() < 0.02
    assert idx.nearest(q, 1) == [17]


def test_the_model_is_fetched_once_and_a_cancelled_fetch_goes_on_later(tmp_path, monkeypatch):
    """The real Hugging Face client against a loopback hub (tests/semantic_hub.py), into the app's cache."""
    from sessionscope.errors import Cancelled
    from sessionscope.recall import embedding
    from tests.semantic_hub import Hub
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = "someone/tiny-model"
    with Hub(repo, build(tmp_path / "served")) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        assert embedding.local_path(repo) is None
        with pytest.raises(embedding.ModelMissing, match="not been fetched"):
            embedding.load(repo)
        stop, seen = threading.Event(), []

        def progress(done, total, name):
            seen.append((name, done, total))
            stop.set()  # after the first file
        with pytest.raises(Cancelled):
            embedding.fetch(repo, progress, stop)
        assert embedding.local_path(repo) is None and [s[0] for s in seen] == ["config.json"]
        folder = embedding.fetch(repo, progress)
        assert folder.is_relative_to(tmp_path / "cache" / "sessionscope" / "models")
        assert [name for name, _ in hub.gets] == ["config.json", "tokenizer.json", "model.safetensors"]
        assert seen[-1][0] == "model.safetensors" and seen[-1][1] == seen[-1][2] > 0
        assert embedding.fetch(repo) == folder and len(hub.gets) == 3  # fetched once
        assert embedding.load(repo).encode(["an lru cache"]).shape == (1, 32)
        with pytest.raises(Exception, match="could not fetch the model 'someone/no-such'"):
            embedding.fetch("someone/no-such")  # the hub has no such repository: said


def test_a_folder_that_is_no_model_is_said(tmp_path):
    from sessionscope.errors import InvalidInput
    from sessionscope.recall import embedding
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInput, match="not a model2vec model"):
        embedding.load(str(tmp_path / "empty"))
    with pytest.raises(InvalidInput, match="does not exist"):
        embedding.load(str(tmp_path / "gone"))


def test_turning_it_on_without_the_extra_names_the_extra(tmp_path):
    """model2vec made unimportable in a fresh process, as on a machine without the extra."""
    import subprocess
    import sys
    code = ("import sys; sys.modules['model2vec'] = None\n"
            "from sessionscope.cli.main import main\n"
            f"sys.exit(main(['--store', {str(tmp_path / 's.db')!r}, 'semantic', 'on']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "needs the 'semantic' extra" in done.stderr
    from sessionscope import open_store
    with open_store(tmp_path / "s.db") as store:
        assert not semantic.config_of(store).enabled

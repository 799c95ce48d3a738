"""Codex CLI rollouts: corpus files, rescans, forks as branches, tokens as Codex counts them, facts, resume."""

from __future__ import annotations

import copy
import json

import pytest

from sessionscope import sources
from sessionscope.sources import codex
from tests.sources.codex_factory import Rollout

SID = "019c8a4c-ed82-79a1-aa28-7738fc5ab61a"
FORK = "019c8a4d-0000-7000-8000-000000000001"


def _last_total(path) -> tuple[int, int] | None:
    last = None
    for raw in path.read_bytes().splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        p = obj.get("payload") if isinstance(obj, dict) else None
        if isinstance(p, dict) and p.get("type") == "token_count" and isinstance(p.get("info"), dict):
            t = p["info"].get("total_token_usage") or {}
            last = (t.get("input_tokens", 0), t.get("output_tokens", 0))
    return last


def test_every_corpus_rollout_imports_with_codex_token_totals(corpus, store):
    folder = corpus / "codex"
    if not folder.is_dir():
        pytest.skip("no codex corpus")
    report = codex.import_paths(store, [folder])
    files = sorted(folder.glob("*.jsonl"))
    assert report.files_read == len(files) >= 15 and report.bad_lines == 0 and not report.problems
    by_id = {s.id: s for s in store.sessions()}
    assert all(s.source_kind == "codex" for s in by_id.values())
    checked = 0
    for f in files:
        first = json.loads(f.read_bytes().splitlines()[0])
        if first.get("type") != "session_meta" or f.read_bytes().count(b'"type":"session_meta"') > 1:
            continue  # the schema fixture mixes seven threads' counters in one file
        s = by_id[first["payload"]["id"]]  # the first session_meta owns the file's identity
        total = _last_total(f)
        if total is not None:
            assert (s.tokens_in, s.tokens_out) == total, f.name
            checked += 1
    assert checked >= 6
    titled = by_id["01996135-afde-7911-97f0-d863511eca56"]
    assert titled.title.startswith("幫我檢查一下 go.mod")  # the request, not the IDE context around it
    assert all(r.ok for r in store.verify())


def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    return tmp_path / "codex" / "sessions" / "2026" / "02" / "23"


def test_rescan_reads_only_what_was_appended(store, tmp_path, monkeypatch):
    day = _home(tmp_path, monkeypatch)
    r = Rollout(SID)
    r.turn("fix the flaky test", "fixed it", ("exec_command", '{"cmd": "pytest -q"}', "1 passed"))
    path = r.write(day)
    roots = sources.of("codex").default_roots()
    assert roots == [tmp_path / "codex" / "sessions"]
    first = codex.import_paths(store, roots)
    s = store.session(SID)
    assert s.title == "fix the flaky test" and (s.tokens_in, s.tokens_out) == (1000, 50)
    assert s.model == "gpt-5.3-codex" and s.cwd == "/work/app" and s.git_branch == "main"
    kinds = [e.kind for e in store.branch_view(SID)]
    assert kinds.count("message") == 2 and "tool_call" in kinds and "tool_result" in kinds and "thinking" in kinds
    n = len(r.lines)
    r.turn("now the docs", "documented", tokens=(500, 30))
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("{not json\n")
        fh.write("".join(json.dumps(x) + "\n" for x in r.lines[n:]))
    again = codex.import_paths(store, roots)
    assert again.bytes_read == path.stat().st_size - first.bytes_read and again.bad_lines == 1
    s = store.session(SID)
    assert (s.tokens_in, s.tokens_out) == (1500, 80)  # Codex's last cumulative count
    assert store.tree(SID).lanes == 1  # the chain runs through the echoes and counts the tree does not show
    prompts = [e.text for e in store.branch_view(SID) if e.kind == "message" and e.role == "user"]
    assert prompts == ["fix the flaky test", "now the docs"]  # the injected context is not a prompt
    assert codex.import_paths(store, roots).bytes_read == 0


def last_copied(line: dict) -> str:
    """The event of the last line the fork copied from its parent."""
    import orjson

    from sessionscope.sources.codex.lines import event_id
    return event_id(orjson.dumps(line).decode())


def test_a_fork_is_a_branch_and_its_copied_tokens_count_once(store, tmp_path, monkeypatch):
    day = _home(tmp_path, monkeypatch)
    parent = Rollout(SID)
    parent.turn("first", "one")
    parent.turn("second", "two")
    parent.write(day)
    fork = Rollout(FORK, forked_from=SID)
    fork.lines += copy.deepcopy(parent.lines[1:10])  # the history up to the first reply, copied in
    fork.totals = [1000, 50]
    fork.clock = parent.clock
    fork.turn("second, another way", "two, differently", tokens=(700, 40))
    fork.write(day)
    codex.import_paths(store, [tmp_path / "codex" / "sessions"])
    f = store.session(FORK)
    assert f.forked_from_session == SID and f.forked_from_event == last_copied(parent.lines[9])
    tree = store.tree(SID)  # the parent's tree: one lane of its own and the fork leaving it
    assert any(n.fork_session == FORK for n in tree.nodes)
    assert (f.tokens_in, f.tokens_out) == (700, 40)  # only what the fork itself spent
    texts = [e.text for e in store.branch_view(FORK) if e.kind == "message"]
    assert texts == ["first", "one", "second, another way", "two, differently"]
    assert store.session(SID).event_count + f.event_count == len({json.dumps(x) for x in parent.lines + fork.lines}) \
        + sum(1 for e in store.events(SID) + store.events(FORK) if e.kind.startswith("fact."))


def test_facts_and_resume(store, tmp_path, monkeypatch):
    day = _home(tmp_path, monkeypatch)
    r = Rollout(SID)
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** Add File: docs/notes.md\n+x\n*** End Patch"
    r.turn("patch it", "patched", ("apply_patch", patch, "Success"))
    r.turn("plan it", "planned", ("update_plan", json.dumps({"plan": [{"step": "test", "status": "pending"}]}), "ok"))
    r.write(day)
    codex.import_paths(store, [tmp_path / "codex" / "sessions"])
    facts = store.facts_at(store.session(SID).head_event_id)
    assert facts["file:src/app.py"] == "edit" and facts["file:docs/notes.md"] == "edit"
    assert facts["plan"] == [{"step": "test", "status": "pending"}] and facts["model"] == "gpt-5.3-codex"
    src = sources.of("codex")
    s = store.session(SID)
    assert src.resume_line(s) == f"cd /work/app && codex resume {SID}"
    assert src.terminal_argv("xterm -e {command}", s) == ["xterm", "-e", "codex", "resume", SID]
    fork = src.fork(store, SID, s.head_event_id, "try again")  # a store-native fork; the rollout is untouched
    assert fork.session.forked_from_session == SID


def test_an_archived_zstandard_rollout_imports_once_and_a_damaged_one_keeps_its_good_lines(store, tmp_path):
    zstandard = pytest.importorskip("zstandard")
    folder = tmp_path / "archived_sessions"
    folder.mkdir()
    r = Rollout(SID)
    r.turn("fix the flaky test", "fixed it", ("exec_command", '{"cmd": "pytest -q"}', "1 passed"), tokens=(700, 20))
    packed = folder / f"rollout-2026-02-23T12-00-00-{SID}.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(r.text().encode()))
    from sessionscope.sources import importing
    report = importing.import_paths(store, [folder])  # recognised by its (decompressed) content
    assert report.sessions == {SID} and report.bad_lines == 0 and not report.problems
    s = store.session(SID)
    assert (s.title, s.tokens_in, s.tokens_out) == ("fix the flaky test", 700, 20)
    assert importing.import_paths(store, [folder]).files_read == 0  # unchanged: not decompressed again
    # a frame cut short (a copy interrupted): what decompresses is kept, the rest reported
    r2 = Rollout(FORK.replace("0001", "0002"))
    for i in range(300):
        r2.turn(f"step {i}", " ".join(f"{i * j:x}" for j in range(120)))
    whole = zstandard.ZstdCompressor().compress(r2.text().encode())
    cut = folder / f"rollout-2026-02-23T13-00-00-{r2.session_id}.jsonl.zst"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    damaged = codex.import_paths(store, [cut])
    assert damaged.problems and r2.session_id in damaged.sessions
    assert 0 < store.session(r2.session_id).event_count


def test_a_fork_only_the_store_holds_is_resumed_by_sessionscope_not_codex(store, tmp_path, monkeypatch):
    """#29 item 30: `fork --json` of a Codex session offers what works: codex has no such session."""
    import subprocess
    import sys

    from tests.conftest import REPO
    day = _home(tmp_path, monkeypatch)
    r = Rollout(SID)
    r.turn("first", "done")
    r.write(day)
    db = tmp_path / "cli.db"
    env = {**__import__("os").environ, "SESSIONSCOPE_STORE": str(db)}

    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--json", *args], cwd=REPO, env=env,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)
    cli("import", str(tmp_path / "codex" / "sessions"))
    made = cli("fork", SID, "--at", cli("show", SID)["session"]["head_event_id"])
    fork = made["session"]["id"]
    assert made["resume"] == f"sessionscope resume {fork}" and "codex" not in made["resume"]
    assert cli("resume", SID)["resume"].endswith(f"codex resume {SID}")  # the rollout itself: codex resumes it


def test_the_thread_name_codex_keeps_in_its_session_index_titles_the_session(store, tmp_path, monkeypatch):
    from sessionscope import ops
    day = _home(tmp_path, monkeypatch)
    r = Rollout(SID)
    r.turn("fix the flaky test", "fixed it")
    r.write(day)
    index = tmp_path / "codex" / "session_index.jsonl"
    index.write_text(json.dumps({"id": SID, "thread_name": "Flaky test hunt", "updated_at": "2026-02-23T12:00:00Z"})
                     + "\n{torn line\n" + json.dumps({"id": "someone-else", "thread_name": "x", "updated_at": "z"}) + "\n")
    roots = sources.of("codex").default_roots()
    codex.import_paths(store, roots)
    assert store.session(SID).title == "Flaky test hunt"
    ops.rename(store, SID, "my own name")  # a rename here stands while the index says nothing newer
    codex.import_paths(store, roots)
    assert store.session(SID).title == "my own name"
    with open(index, "a", encoding="utf-8") as fh:  # renamed in Codex later: the newest entry wins
        fh.write(json.dumps({"id": SID, "thread_name": "Flaky test, fixed", "updated_at": "2026-02-24T09:00:00Z"}) + "\n")
        fh.write(json.dumps({"id": SID, "thread_name": "an older name", "updated_at": "2026-02-20T09:00:00Z"}) + "\n")
    codex.import_paths(store, roots)
    assert store.session(SID).title == "Flaky test, fixed"

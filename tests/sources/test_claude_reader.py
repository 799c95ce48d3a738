"""A big Claude Code import reads its files in a process of its own (sessionscope.sources.claude_code.reader):
the store it makes is the one an import in one process makes; a reader that dies or an import that is
cancelled loses nothing; a file the reader cannot read is said and the others are read."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from sessionscope import open_store
from sessionscope.sources.claude_code import import_paths, reader
from sessionscope.sources.jsonl import ReadState
from sessionscope.store.payloads import BIG_BYTES, SHARED_KINDS, unpack
from tests.benchmarks.generate import generate
from tests.sources.test_crash_and_full_disk import _consistent, _content


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reader") / "claude" / "projects"
    generate(root, 3_000_000, seed=5)  # with file-history backups beside it
    return root


@pytest.fixture(scope="module")
def expected(home, tmp_path_factory) -> tuple:
    """The store an import in this one process makes (the reader is not started below its threshold)."""
    assert not reader.worth_a_process(sum(f.stat().st_size for f in home.rglob("*.jsonl")))
    with open_store(tmp_path_factory.mktemp("inline") / "s.db") as store:
        report = import_paths(store, [home])
        assert report.problems == [] and report.events_added > 1000
        return _state(store)


class Watched(reader.Reader):
    """The real reader, remembered so a test can see it ran (and kill it)."""

    started: list[Watched] = []
    AHEAD_BYTES = 1  # a message ahead at most: a kill lands before it has read everything

    def __init__(self):
        super().__init__()
        self.submitted: list[reader.FileJob] = []
        Watched.started.append(self)

    def submit(self, jobs):
        self.submitted += jobs
        super().submit(jobs)


@pytest.fixture
def watched(monkeypatch):
    Watched.started = []
    monkeypatch.setattr(reader, "worth_a_process", lambda _bytes: True)  # (a small home, on any number of cores)
    monkeypatch.setattr(reader, "HERE_FIRST_BYTES", 0)  # every file read in the process (the home is 3 MB)
    monkeypatch.setattr(reader, "Reader", Watched)
    return Watched.started


def _state(store) -> tuple:
    with store.reader() as conn:
        blobs = conn.exec_driver_sql("SELECT hash, size, data FROM file_blob ORDER BY hash").fetchall()
        backups = conn.exec_driver_sql("SELECT session_id, backup_name, blob_hash FROM checkpoint_backup"
                                       " ORDER BY 1, 2").fetchall()
        files = conn.exec_driver_sql("SELECT path, size, offset, line_count, bad_lines FROM source_file"
                                     " ORDER BY path").fetchall()
        stored = conn.exec_driver_sql("SELECT id, kind, payload FROM event ORDER BY id").fetchall()
    # the payloads read back, and the big ones the reader process packs ahead (but SHARED_KINDS') as stored; the
    # others are packed by the writer with a dictionary learnt where the samples reached enough, which batches may move
    payloads = [(i, unpack(p), p if len(unpack(p)) >= BIG_BYTES and kind not in SHARED_KINDS else None)
                for i, kind, p in stored]
    return _content(store), blobs, backups, files, payloads


def test_the_reader_process_makes_the_store_one_process_makes(home, expected, watched, tmp_path):
    with open_store(tmp_path / "s.db") as store:
        report = import_paths(store, [home])
        assert len(watched) == 1 and watched[0]._proc.poll() is not None  # it ran, and it is gone
        assert report.problems == [] and report.bad_lines == 0
        _consistent(store)
        got = _state(store)
    # events, hashes, search; the backups (compressed there: the same bytes); scan states; the
    # payloads as stored (compressed there too)
    for mine, theirs in zip(got, expected):
        assert mine == theirs


def test_the_first_files_are_read_here_while_the_reader_process_starts(home, expected, watched, tmp_path,
                                                                      monkeypatch):
    """The importer does not wait idle for the process to start: it reads the first files of the import order
    itself (up to HERE_FIRST_BYTES), the process the rest, and the store is the one either makes alone."""
    from sessionscope.sources.claude_code.importer import session_files, stands_alone
    from sessionscope.sources.scan import files_under
    monkeypatch.setattr(reader, "HERE_FIRST_BYTES", 256 << 10)
    order = files_under(home, None, session_files, stands_alone)
    with open_store(tmp_path / "s.db") as store:
        report = import_paths(store, [home])
        assert report.problems == [] and report.bad_lines == 0
        _consistent(store)
        got = _state(store)
    submitted = [j.path for j in watched[0].submitted]
    here = order[:len(order) - len(submitted)]
    assert submitted == order[len(here):] and here  # a head of the order here, the rest in the process
    assert sum(p.stat().st_size for p in here[:-1]) < 256 << 10 <= sum(p.stat().st_size for p in here)
    for mine, theirs in zip(got, expected):
        assert mine == theirs


def test_a_reader_that_dies_mid_import_costs_nothing(home, expected, watched, tmp_path):
    killed = []

    def progress(done, total, path):
        if not killed and watched:
            os.kill(watched[0].pid, signal.SIGKILL)
            killed.append(path)
    with open_store(tmp_path / "s.db") as store:
        report = import_paths(store, [home], progress=progress)
        assert killed and report.problems == [] and not report.cancelled
        _consistent(store)
        assert _state(store) == expected  # the rest was read in this process, from where it had got
        assert import_paths(store, [home]).events_added == 0


def test_a_cancelled_import_stops_its_reader_and_the_next_one_completes(home, expected, watched, tmp_path):
    cancel = threading.Event()
    with open_store(tmp_path / "s.db") as store:
        first = import_paths(store, [home], cancel=cancel, progress=lambda *_: cancel.set())
        assert first.cancelled and 0 < first.files_read < len(list(home.rglob("*.jsonl")))
        assert watched[0]._proc.poll() is not None  # stopped, not left reading
        _consistent(store)
        import_paths(store, [home])
        assert _state(store) == expected


def test_a_file_the_reader_cannot_read_is_its_error_and_the_next_file_is_read(home, tmp_path):
    from sessionscope.sources.claude_code.reader import FileJob, Reader, file_context

    good = next(home.rglob("*.jsonl"))
    gone = tmp_path / "gone.jsonl"
    gone.write_text("{}\n")
    jobs = [FileJob(p, p.stat(), ReadState(), file_context(p, p.parent, 1), 1) for p in (gone, good)]
    gone.unlink()
    r = Reader()
    try:
        r.submit(jobs)
        with pytest.raises(FileNotFoundError):
            list(r.batches(jobs[0]))
        assert sum(1 for _ in r.batches(jobs[1])) >= 1
        assert jobs[1].state.offset == good.stat().st_size and jobs[1].ctx.sessions
    finally:
        r.close()
    assert r._proc.poll() is not None


def test_a_reader_told_nothing_more_comes_ends_once_it_has_sent_what_it_was_given(home):
    """Its memory goes as soon as it has read, not when the writer has stored the last of it (#61)."""
    import time

    from sessionscope.sources.claude_code.reader import FileJob, Reader, file_context
    files = sorted(home.rglob("*.jsonl"))[:3]
    jobs = [FileJob(p, p.stat(), ReadState(), file_context(p, home, 1), 1) for p in files]
    r = Reader()
    try:
        r.submit(jobs)
        r.no_more()
        ended = time.monotonic() + 20
        while r._proc.poll() is None and time.monotonic() < ended:  # (everything read is waiting here)
            time.sleep(0.01)
        assert r._proc.returncode == 0
        for job, path in zip(jobs, files):
            assert sum(1 for _ in r.batches(job)) >= 1 and job.state.offset == path.stat().st_size
    finally:
        r.close()


def test_files_stored_in_many_batches_make_the_same_store(home, expected, monkeypatch, tmp_path):
    from sessionscope.sources import jsonl
    monkeypatch.setattr(jsonl, "CHUNK_BYTES", 96 << 10)  # a store batch every ~100 KB of lines
    monkeypatch.setattr(reader, "PARSE_BYTES", 16 << 10)  # parsed 16 KB at a time
    assert max(f.stat().st_size for f in home.rglob("*.jsonl")) > 4 * jsonl.CHUNK_BYTES
    with open_store(tmp_path / "s.db") as store:
        report = import_paths(store, [home])
        assert report.problems == []
        _consistent(store)
        assert _state(store) == expected


def test_the_reader_process_runs_the_installed_package_not_one_in_the_callers_folder(home, expected, watched,
                                                                                      tmp_path, monkeypatch):
    """#29 item 7: an import started in a folder holding a `sessionscope/` package never runs that code."""
    evil = tmp_path / "checkout"
    (evil / "sessionscope" / "sources" / "claude_code").mkdir(parents=True)
    mark = tmp_path / "RAN"
    for sub in ("sessionscope", "sessionscope/sources", "sessionscope/sources/claude_code"):
        (evil / sub / "__init__.py").write_text(f"open({str(mark)!r}, 'w').write('ran')\n")
    (evil / "sessionscope" / "sources" / "claude_code" / "reader.py").write_text(
        f"open({str(mark)!r}, 'w').write('ran')\n")
    monkeypatch.chdir(evil)
    monkeypatch.setenv("PYTHONPATH", str(evil))
    with open_store(tmp_path / "s.db") as store:
        report = import_paths(store, [home])
        assert len(watched) == 1 and report.problems == []
        assert _state(store) == expected
    assert not mark.exists()


def test_a_process_reads_ahead_from_a_few_megabytes_on_and_only_with_a_second_core(monkeypatch):
    monkeypatch.setattr(reader.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert not reader.worth_a_process(reader.PROCESS_BYTES - 1) and reader.worth_a_process(reader.PROCESS_BYTES)
    monkeypatch.setattr(reader.os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    assert not reader.worth_a_process(1 << 30)


@pytest.fixture
def big_enough(monkeypatch):
    """Any import is worth a reader process here (two cores, no threshold), and each one started is remembered."""
    Watched.started = []
    monkeypatch.setattr(reader.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(reader, "PROCESS_BYTES", 0)
    monkeypatch.setattr(reader, "HERE_FIRST_BYTES", 0)
    monkeypatch.setattr(reader, "Reader", Watched)
    return Watched.started


def test_an_import_asked_to_read_in_its_own_process_starts_no_reader(home, expected, big_enough, tmp_path):
    """The window's imports (ops.import_paths(read_ahead=False)): the same store, read by the importing process."""
    from sessionscope import ops
    with reader.in_this_process():
        assert not reader.worth_a_process(1 << 30)
    assert reader.worth_a_process(1 << 30)
    with open_store(tmp_path / "here.db") as store:
        report = ops.import_paths(store, [home], read_ahead=False)
        assert big_enough == [] and report.problems == []
        assert _state(store) == expected
    with open_store(tmp_path / "ahead.db") as store:  # (the same call reading ahead starts one)
        ops.import_paths(store, [home])
        assert len(big_enough) == 1


def test_the_windows_import_process_reads_its_files_itself(home, big_enough, tmp_path, capsys):
    from sessionscope.gui.jobs import import_worker
    assert import_worker.main([str(tmp_path / "s.db"), str(home)]) == 0
    assert big_enough == [] and '"report"' in capsys.readouterr().out


def test_the_reader_process_starts_without_the_store():
    """The reader starts while the writer waits for its first batch: without SQLAlchemy it is ready in ~50 ms,
    with it ~200 (sessionscope.store.incoming keeps what it shares with the store apart for this)."""
    import subprocess
    import sys
    script = ("import sys, sessionscope.sources.claude_code.reader\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'sqlmodel', 'PySide6')))")
    out = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"

"""Hostile and damaged chat exports and compressed rows (#58 items 16–18): one bad file, or one bad conversation,
never stops an import nor loses its neighbours; what cannot be read is said; memory stays bounded however many
conversations an export holds or however far a frame says it inflates."""

from __future__ import annotations

import json
import tracemalloc
import zipfile

import pytest

from sessionscope.sources import importing
from tests.sources.zed_factory import threads_db


def _conversation(cid: str, n: int = 2) -> dict:
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["n0"]}}
    prev = "root"
    for i in range(n):
        mapping[f"n{i}"] = {"id": f"n{i}", "parent": prev, "children": [f"n{i + 1}"] if i < n - 1 else [],
                            "message": {"id": f"n{i}", "author": {"role": "user" if i % 2 == 0 else "assistant"},
                                        "create_time": 1_700_000_000 + i,
                                        "content": {"content_type": "text", "parts": [f"{cid} says {i}"]}}}
        prev = f"n{i}"
    return {"id": cid, "title": f"chat {cid}", "create_time": 1_700_000_000, "mapping": mapping, "current_node": prev}


def _zip(path, text: str) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", text)


def test_a_deeply_nested_export_beside_a_good_one(store, tmp_path):
    """A 1 KB zip of 100,000 nested arrays aborted the whole import (RecursionError): the good export beside it
    was not imported."""
    _zip(tmp_path / "deep.zip", "[" * 100_000 + "]" * 100_000)
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "conversations.json").write_text(json.dumps([_conversation("good")]))
    report = importing.import_paths(store, [tmp_path])
    assert [store.session(s).title for s in report.sessions] == ["chat good"]


def test_one_bad_conversation_loses_no_other_and_each_problem_is_said(store, tmp_path):
    bad = _conversation("bad")
    bad["mapping"]["n0"]["message"]["content"] = 5
    bad["mapping"]["n1"]["parent"] = ["not", "an", "id"]
    cyclic = _conversation("cyclic", 4)
    cyclic["mapping"]["root"]["parent"] = "n3"  # every node under another: no root
    nested = _conversation("nested")
    nested["mapping"]["n0"]["message"]["metadata"] = json.loads("[" * 400 + "]" * 400)
    (tmp_path / "conversations.json").write_text(json.dumps(
        [_conversation("first"), bad, cyclic, nested, "not a conversation", _conversation("last")]))
    report = importing.import_paths(store, [tmp_path])
    titles = sorted(store.session(s).title for s in report.sessions)
    assert titles == ["chat cyclic", "chat first", "chat last"]
    said = " | ".join(p["problem"] for p in report.problems)
    for part in ("'bad': cannot be read", "'cyclic'", "cycle", "conversation 4: cannot be read (nested deeper",
                 "item 5 is not a ChatGPT conversation"):
        assert part in said, said
    cyc = next(s for s in report.sessions if store.session(s).title == "chat cyclic")
    assert store.session(cyc).event_count == 4  # every message read once


def test_a_conversation_of_200000_messages_in_a_zip_is_read(store, tmp_path):
    """Its first conversation outgrew the part of the zip read to recognise it: "not a session format"."""
    _zip(tmp_path / "export.zip", json.dumps([_conversation("long", 20_000)]))
    report = importing.import_paths(store, [tmp_path])
    assert report.problems == [] and len(report.sessions) == 1
    assert store.session(next(iter(report.sessions))).event_count == 20_000


def _peak_import(store, folder) -> int:
    tracemalloc.start()
    try:
        importing.import_paths(store, [folder])
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_conversations_of_an_export(tmp_path):
    """100,000 small conversations peaked at 784 MB: the export was parsed whole, its sessions all built before
    one was stored. Streamed, the peak stays that of a few hundred conversations."""
    from sessionscope import open_store
    peaks = []
    for n in (1_000, 8_000):
        folder = tmp_path / f"x{n}"
        folder.mkdir()
        with open(folder / "conversations.json", "w") as fh:
            fh.write("[" + ",".join(json.dumps(_conversation(f"c{i}")) for i in range(n)) + "]")
        with open_store(tmp_path / f"{n}.db") as store:
            peaks.append(_peak_import(store, folder))
    assert peaks[1] < 1.5 * peaks[0] + (8 << 20), peaks


def test_a_zed_row_that_declares_a_gigabyte_is_refused_without_inflating_it(store, tmp_path):
    zstandard = pytest.importorskip("zstandard")
    bomb = zstandard.ZstdCompressor(level=19).compress(b"[" + b" " * (1 << 30) + b"]")  # 1 GiB, a few KB
    good = {"version": "0.3.0", "title": "Kept", "messages": [{"User": {"id": "u1", "content": [{"Text": "hi"}]}}]}
    threads_db(tmp_path / "threads" / "threads.db", [
        ("bomb", "Bomb", "2026-02-06T02:10:31Z", "zstd", bomb, None, "2026-02-06T02:00:00Z"),
        ("good", "Kept", "2026-02-06T02:11:00Z", "zstd", zstandard.ZstdCompressor().compress(json.dumps(good).encode()),
         None, "2026-02-06T02:00:00Z")])
    tracemalloc.start()
    try:
        report = importing.import_paths(store, [tmp_path / "threads"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [store.session(s).title for s in report.sessions] == ["Kept"]
    assert any("thread bomb" in p["problem"] and "decompressed" in p["problem"] for p in report.problems)
    assert peak < 200 << 20

"""Kept file contents: stored once, compressed, read back whatever codec wrote them."""

from __future__ import annotations

import zlib

from sessionscope.store import blobs
from sessionscope.store.schema import FILE_BLOB


def test_put_many_stores_each_content_once_and_reads_it_back(store):
    a, b = b"print('a')\n" * 200, b"b" * 10_000
    hashes = store.write(blobs.put_many, [a, b, a])
    assert hashes[0] == hashes[2] == blobs.digest(a) and hashes[1] == blobs.digest(b)
    with store.reader() as conn:
        rows = conn.execute(FILE_BLOB.select()).all()
        assert len(rows) == 2 and {r.codec for r in rows} == {"zstd"}
        assert all(len(r.data) < r.size / 5 for r in rows)  # compressed
        assert blobs.get(conn, hashes[0]) == a and blobs.get(conn, hashes[1]) == b
    assert store.write(blobs.put_many, [b]) == [hashes[1]]  # already kept: nothing added
    with store.reader() as conn:
        assert len(conn.execute(FILE_BLOB.select()).all()) == 2


def test_blobs_written_as_zlib_by_earlier_versions_still_read(store):
    data = b"def f():\n    return 1\n" * 50
    h = blobs.digest(data)
    store.write(lambda conn: conn.execute(FILE_BLOB.insert().values(hash=h, size=len(data), codec="zlib",
                                                                   data=zlib.compress(data, 6))))
    with store.reader() as conn:
        assert blobs.get(conn, h) == data

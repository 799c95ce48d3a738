"""File contents kept in the store: content-addressed, compressed, stored once.

Claude Code's checkpoint backups and the files a restore overwrites live here, so a
checkpoint survives the tool's own cleanup and a restore can be undone. A blob is
named by the SHA-256 of its raw bytes; putting the same bytes twice stores nothing.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import sqlalchemy as sa
import zstandard
from sqlalchemy.engine import Connection

from sessionscope.errors import NotFound
from sessionscope.store.blob_codec import Prepared, compress, digest
from sessionscope.store.schema import AUDIT, CHECKPOINT_BACKUP, FILE_BLOB

# Audit actions whose detail names blobs that must outlive their session (undo data).
KEEPING_ACTIONS = ("restore-files", "restore-files.undo")


def put(conn: Connection, data: bytes) -> str:
    """Keep `data` (once); returns its hash."""
    return put_many(conn, [data])[0]


def put_many(conn: Connection, items: list[bytes]) -> list[str]:
    """Keep each of `items` (once); returns their hashes, in order. One lookup and one insert for all."""
    return put_prepared(conn, [Prepared(digest(data), len(data), data) for data in items], compressed=False)


def put_prepared(conn: Connection, items: list[Prepared], compressed: bool = True) -> list[str]:
    """As put_many, of blobs hashed (and, when `compressed`, compressed: blob_codec.prepare) already."""
    known: set[str] = set()
    unique = sorted({p.hash for p in items})
    for i in range(0, len(unique), 500):
        known.update(conn.execute(sa.select(FILE_BLOB.c.hash).where(FILE_BLOB.c.hash.in_(unique[i:i + 500]))).scalars())
    rows: list[dict[str, Any]] = []
    for p in items:
        if p.hash not in known:
            known.add(p.hash)
            rows.append({"hash": p.hash, "size": p.size, "codec": "zstd",
                         "data": p.data if compressed else compress(p.data)})
    if rows and conn.dialect.name == "postgresql" and conn.exec_driver_sql(
            "SELECT row_security_active('file_blob')").scalar():  # a team store's member: checked by the server
        for r in rows:
            raw = zstandard.ZstdDecompressor().decompress(bytes(r["data"]))
            conn.exec_driver_sql("SELECT sessionscope_put_blob(%s, %s, %s)", (r["hash"], r["size"], raw))
    elif rows:
        conn.execute(FILE_BLOB.insert(), rows)
    return [p.hash for p in items]


class Damaged(NotFound):
    """A kept file's bytes that no longer decompress, or no longer match the hash that names them."""


def get(conn: Connection, h: str) -> bytes:
    """The bytes of blob `h` (checked against its hash: Damaged when they do not match)."""
    row = conn.execute(sa.select(FILE_BLOB.c.codec, FILE_BLOB.c.data).where(FILE_BLOB.c.hash == h)).first()
    if row is None:
        raise NotFound(f"no kept file content {h[:12]}")
    return _decoded(h, row.codec, row.data)


def _decoded(h: str, codec: str, stored) -> bytes:
    try:
        if codec == "zstd":
            data = zstandard.ZstdDecompressor().decompress(stored)
        elif codec == "zlib":
            data = zlib.decompress(stored)
        else:
            data = bytes(stored)
    except (zstandard.ZstdError, zlib.error, TypeError, ValueError, MemoryError) as exc:  # (a damaged frame
        # header can claim a size no machine has: zstandard then fails allocating it)
        raise Damaged(f"kept file content {h[:12]} is damaged (it no longer decompresses: {exc})") from None
    if digest(data) != h:
        raise Damaged(f"kept file content {h[:12]} is damaged (its hash does not match)")
    return data


def verify_all(conn: Connection) -> list[dict]:
    """Every kept file checked against its hash: [{hash, problem, sessions: [the sessions whose checkpoints
    name it]}] for the damaged ones."""
    damaged = []
    last = ""
    while True:
        rows = conn.execute(sa.select(FILE_BLOB.c.hash, FILE_BLOB.c.codec, FILE_BLOB.c.data)
                            .where(FILE_BLOB.c.hash > last).order_by(FILE_BLOB.c.hash).limit(200)).all()
        if not rows:
            break
        for h, codec, stored in rows:
            try:
                _decoded(h, codec, stored)
            except Damaged as exc:
                damaged.append({"hash": h, "problem": str(exc)})
        last = rows[-1][0]
    for d in damaged:
        d["sessions"] = sorted(set(conn.execute(sa.select(CHECKPOINT_BACKUP.c.session_id).where(
            CHECKPOINT_BACKUP.c.blob_hash == d["hash"])).scalars()))
    return damaged


def collect_garbage(conn: Connection) -> int:
    """Remove blobs nothing refers to any more (after a session is deleted); returns how many."""
    keep = set(conn.execute(sa.select(CHECKPOINT_BACKUP.c.blob_hash).where(
        CHECKPOINT_BACKUP.c.blob_hash.is_not(None))).scalars())
    for detail in conn.execute(sa.select(AUDIT.c.detail).where(AUDIT.c.action.in_(KEEPING_ACTIONS))).scalars():
        for f in json.loads(detail or "{}").get("files", []):
            keep.update(h for h in (f.get("before"), f.get("after")) if h)
    gone = [h for h in conn.execute(sa.select(FILE_BLOB.c.hash)).scalars() if h not in keep]
    for i in range(0, len(gone), 500):
        conn.execute(FILE_BLOB.delete().where(FILE_BLOB.c.hash.in_(gone[i:i + 500])))
    return len(gone)

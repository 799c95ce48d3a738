"""How the store names and compresses a kept file's bytes: sha256 of the bytes, one zstd frame.

Apart from sessionscope.store.blobs (which stores them) so that an import's reader process, which has no
store, can prepare the blobs it reads.
"""

from __future__ import annotations

import hashlib
import threading
from typing import NamedTuple

import zstandard

# zstd level 3 compresses source files a little better than zlib level 6 at several times the speed
# (an import copies every checkpoint backup); blobs written as zlib before are still read.
ZSTD_LEVEL = 3
_local = threading.local()  # zstd contexts are not safe to share between threads


class Prepared(NamedTuple):
    """A blob ready to store: its hash, its size, its compressed bytes."""

    hash: str
    size: int
    data: bytes


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def compress(data: bytes) -> bytes:
    c = getattr(_local, "c", None)
    if c is None:
        c = _local.c = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    return c.compress(data)


def prepare(data: bytes) -> Prepared:
    return Prepared(digest(data), len(data), compress(data))

"""Event payloads at rest: the big ones zstd-compressed in SQLite, every reader handed the text.

A payload is the line a tool wrote, kept verbatim; tool output makes most of a store's bytes
(a 500 MB Claude Code home: 494 MB of its 564 MB of payloads are tool results). On SQLite a
payload of `MIN_BYTES` or more of the kinds that hold tool output (`COMPRESSED_KINDS`) that
compression shrinks is stored as a BLOB holding one zstd frame of its UTF-8. Every other payload
stays TEXT, so SQL can still look inside it: the branch walk reads assistant lines' `message.id`
with json_extract (sessionscope.history.branch), the Codex and managed-agent importers find their
metadata and status lines with LIKE.

The hash chain is over the text (sessionscope.store.chain), never the stored bytes, so a store
written before this, a JSONL export and a re-import all verify alike. Reading: a Core select
of `event.payload` decodes through the column's type (sessionscope.store.schema); the few raw
driver reads call `unpack`. PostgreSQL compresses large values itself (TOAST): text there.
"""

from __future__ import annotations

import threading

import zstandard

MIN_BYTES = 1024
COMPRESSED_KINDS = frozenset({"tool_result", "checkpoint", "progress"})  # no SQL reads inside these
# Level 1: 3-4x smaller for tool output at ~400 MB/s, and an import writes fewer pages than it
# spends compressing (level 3 gains a few per cent of size at half the speed)
_LEVEL = 1
_local = threading.local()  # zstd contexts are not safe to share between threads


def _compressor() -> zstandard.ZstdCompressor:
    c = getattr(_local, "c", None)
    if c is None:
        c = _local.c = zstandard.ZstdCompressor(level=_LEVEL)
    return c


def _decompressor() -> zstandard.ZstdDecompressor:
    d = getattr(_local, "d", None)
    if d is None:
        d = _local.d = zstandard.ZstdDecompressor()
    return d


def pack(payload: str, kind: str, role: str | None) -> str | bytes:
    """What to store for an event's `payload` on SQLite: compressed bytes, or the text itself."""
    if len(payload) < MIN_BYTES or kind not in COMPRESSED_KINDS or role == "assistant":
        return payload
    raw = payload.encode("utf-8", "surrogatepass")
    packed = _compressor().compress(raw)
    return packed if len(packed) < len(raw) - len(raw) // 8 else payload


def unpack(stored: str | bytes | None) -> str:
    """The payload text of a stored value (as `pack` left it, or text written before it existed)."""
    if stored is None:
        return ""
    if isinstance(stored, (bytes, bytearray, memoryview)):
        try:
            return _decompressor().decompress(bytes(stored)).decode("utf-8", "surrogatepass")
        except (zstandard.ZstdError, UnicodeDecodeError, MemoryError) as exc:  # (a damaged header's huge size)
            # a damaged row is shown as such (and `verify` names it: this text is not what its hash covers)
            return f"{DAMAGED_PAYLOAD} ({type(exc).__name__}: {str(exc)[:120]})"
    return stored


DAMAGED_PAYLOAD = "[damaged in the store: this payload no longer decompresses]"


def unpack_bytes(stored: str | bytes | None) -> bytes:
    """The payload's UTF-8 bytes, for a reader that writes them out again (no text decoded between)."""
    if stored is None:
        return b""
    if isinstance(stored, (bytes, bytearray, memoryview)):
        return _decompressor().decompress(bytes(stored))
    return stored.encode("utf-8", "surrogatepass")

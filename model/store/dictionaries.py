"""The zstd dictionaries a SQLite store compresses its payloads with: one per tool, learnt from that tool's own
lines the first time the store is given enough of them, kept in `payload_dict` (sessionscope.store.payloads says why).

Until a tool has one, its payloads are compressed without (the big ones only) and a sample of them is kept in
memory, per store and tool; once the samples reach `TRAIN_BYTES`, the dictionary is learnt from them in the write
transaction that brought the last, stored, and used from that batch on. Every later writer, in this process or
another, finds it in the table. Two writers that learn one at once each keep theirs: a frame names its own.

A tool's lines move on (a new version writes new lines, or a new system prompt in every session), and a dictionary
learnt from the old ones keeps more of the new ones' bytes: today's Claude Code lines kept 36 % of their bytes
through the dictionary learnt from the corpus's (Claude Code 1.0-2.1.39), 8 % through one learnt from their first
megabyte. So a writer that has a tool's dictionary, a week old or more, samples the first `2 * TRAIN_BYTES` of the
tool's lines it writes (then again after `AGAIN_BYTES`, twice as far each time), learns a dictionary from half of
the samples, and keeps it (stored beside the old; the newest is used) where it packs the other half in `BETTER` of
the bytes the current one does, or fewer. Lines like those it has are packed about as well by a dictionary learnt
from them (0.93x the bytes, the factory's lines): none is kept; today's Claude Code's after the corpus's, 0.085x.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import zstandard

from sessionscope.store import payloads

TRAIN_BYTES = 512 * 1024  # samples enough to learn from (zstd wants ~10-100x the dictionary's size)
DICT_BYTES = 64 * 1024
_SAMPLE_MAX = 64 * 1024  # a line whole, up to a system prompt's (its head alone: the prompt's second half not learnt)
_KEPT_BYTES = 4 * 1024 * 1024
AGAIN_BYTES = 256 * 1024 * 1024  # a tool's lines written between two looks whether its dictionary has gone stale
AGAIN_AFTER_S = 7 * 86400  # nor is a dictionary younger than this looked at: at most one a week, 64 KB each
BETTER = 0.8  # a dictionary learnt again replaces the current one where it packs in this share of the bytes
# (store, tool) → the first row sampled, and the samples not yet learnt from
_pending: dict[tuple[str, str], tuple[int, list[bytes | bytearray | memoryview]]] = {}
# (store, tool) → [bytes of its lines to write before sampling again, the bytes to wait after the next look, samples]
_again: dict[tuple[str, str], list] = {}
_lock = threading.Lock()


def for_rows(raw: sqlite3.Connection, rows: list[dict]) -> zstandard.ZstdCompressionDict | None:
    """The dictionary to compress these rows' payloads with (their first session's tool's), learning it first
    when the samples kept with these reach enough; None while there are too few. `raw` is the write transaction's."""
    if not rows:
        return None
    found = raw.execute("SELECT coalesce(source.kind, 'native') FROM session LEFT JOIN source "
                        "ON source.id = session.source_id WHERE session.id = ?", (rows[0]["session_id"],)).fetchone()
    tool = found[0] if found else "native"
    chosen = raw.execute("SELECT id, made_at FROM payload_dict WHERE tool = ? ORDER BY made_at DESC LIMIT 1",
                         (tool,)).fetchone()
    if chosen is not None:
        dictionary = payloads.known(int(chosen[0])) or _read(raw, int(chosen[0]))
        if dictionary is not None:
            if time.time() - chosen[1] < AGAIN_AFTER_S:
                return dictionary
            return _learnt_again(raw, tool, rows, dictionary) or dictionary
    key = (_store_of(raw), tool)
    with _lock:
        first, samples = _pending.setdefault(key, (rows[0]["pk"], []))
        held = _sample(rows, samples, _KEPT_BYTES)
        if held < TRAIN_BYTES:
            return None
        data = payloads.train(samples, min(DICT_BYTES, held // 10))
        del _pending[key]
        _again[key] = [AGAIN_BYTES, AGAIN_BYTES, []]  # (learnt from this process's lines: nothing to look at yet)
    if data is None:
        return None
    dictionary = _keep(raw, tool, data)
    _repack(raw, tool, first, dictionary)
    return dictionary


def _sample(rows: list[dict], samples: list, most: int) -> int:
    """Add to `samples` the lines of `rows` a dictionary may learn from, while they hold under `most` bytes; returns
    the bytes they hold."""
    held = sum(map(len, samples))
    for r in rows:
        text = r["payload"]
        if held >= most or not text or len(text) < payloads.DICT_MIN_BYTES or r["kind"] in payloads.TEXT_KINDS:
            continue
        sample = payloads.mask(text[:_SAMPLE_MAX].encode("utf-8", "surrogatepass"))
        samples.append(sample)
        held += len(sample)
    return held


def _keep(raw: sqlite3.Connection, tool: str, data: bytes) -> zstandard.ZstdCompressionDict:
    dictionary = payloads.register(data)
    raw.execute("INSERT OR IGNORE INTO payload_dict (id, tool, data, made_at) VALUES (?, ?, ?, ?)",
                (dictionary.dict_id(), tool, data, time.time()))
    return dictionary


def _learnt_again(raw: sqlite3.Connection, tool: str, rows: list[dict],
                  current: zstandard.ZstdCompressionDict) -> zstandard.ZstdCompressionDict | None:
    """A dictionary learnt from the tool's latest lines and kept, where they have moved on from those `current` was
    learnt from (the module's docstring); None while sampling, or where they have not."""
    key = (_store_of(raw), tool)
    with _lock:
        state = _again.setdefault(key, [0, AGAIN_BYTES, []])
        if state[0] > 0:
            state[0] -= sum(len(r["payload"] or "") for r in rows)
            return None
        if _sample(rows, state[2], 2 * TRAIN_BYTES) < 2 * TRAIN_BYTES:
            return None
        samples = state[2]
        _again[key] = [state[1], 2 * state[1], []]
    learnt = payloads.train(samples[0::2], DICT_BYTES)
    if learnt is None:
        return None
    judged = samples[1::2]
    if _packed_bytes(judged, zstandard.ZstdCompressionDict(learnt)) > BETTER * _packed_bytes(judged, current):
        return None
    data = payloads.train(samples, DICT_BYTES)  # (from every sample: the half it was judged on too)
    return _keep(raw, tool, data) if data is not None else None


def _packed_bytes(samples: list, dictionary: zstandard.ZstdCompressionDict) -> int:
    packer = zstandard.ZstdCompressor(level=payloads.DICT_LEVEL, dict_data=dictionary)
    return sum(len(packer.compress(bytes(s))) for s in samples)


def _repack(raw: sqlite3.Connection, tool: str, first_pk: int, dictionary: zstandard.ZstdCompressionDict) -> None:
    """Compress again, with the dictionary just learnt, the tool's lines this store took while it learnt (those it
    sampled): the first ones a new store holds would otherwise stay as they were. Lines stored before the samples
    began (a store older than its dictionaries) are left as they are."""
    # (the kinds SQL reads inside stay plain payloads; an event's text is packed whatever its kind: pack_text)
    plain_kinds = f"AND e.kind NOT IN ({', '.join(repr(k) for k in sorted(payloads.TEXT_KINDS))})"
    # (the payload and the text are kept as `payload_kept` and `text_kept`: `event.payload` and `event.text` are
    # generated from them, and a text kept as where it stands in its payload is a few bytes, never DICT_MIN_BYTES)
    for column, kinds in (("payload_kept", plain_kinds), ("text_kept", "")):
        rows = raw.execute(
            f"SELECT e.pk, e.kind, e.{column}, e.payload, e.id, e.parent_id, e.session_id FROM event e JOIN session s "
            "ON s.id = e.session_id LEFT JOIN source ON source.id = s.source_id WHERE e.pk >= ? "
            f"AND coalesce(source.kind, 'native') = ? {kinds} AND length(e.{column}) >= ?",
            (first_pk, tool, payloads.DICT_MIN_BYTES)).fetchall()
        changed = []
        for pk, kind, stored, payload, *ids in rows:
            if isinstance(stored, bytes) and stored[:1] == b"\x00":
                continue  # (a text kept as where it stands in the payload: a long tool name's may reach the length)
            frame = stored[payloads.IDS_HEAD:] if isinstance(stored, bytes) and stored[:1] == payloads.IDS_OUT else stored
            if isinstance(frame, bytes) and frame[:4] == payloads.ZSTD_MAGIC and \
                    zstandard.get_frame_parameters(frame).dict_id:
                continue
            packed = (payloads.pack_kept(payloads.unpack(payload), kind, None, dictionary, tuple(ids))
                      if column == "payload_kept" else payloads.pack_text(payloads.unpack(stored), dictionary))
            if packed != stored:
                changed.append((packed, pk))
        with payloads.inserting(raw):  # (an update works out the generated columns too: see there)
            raw.executemany(f"UPDATE event SET {column} = ? WHERE pk = ?", changed)


def _read(raw: sqlite3.Connection, dict_id: int) -> zstandard.ZstdCompressionDict | None:
    row = raw.execute("SELECT data FROM payload_dict WHERE id = ?", (dict_id,)).fetchone()
    return payloads.register(bytes(row[0])) if row else None


def _store_of(raw: sqlite3.Connection) -> str:
    """The store's file (each store learns from its own lines alone), or the connection for one in memory."""
    for _seq, name, file in raw.execute("PRAGMA database_list"):
        if name == "main":
            return file or f"memory:{id(raw)}"
    return f"memory:{id(raw)}"



def watch_file(path: str) -> None:
    """Let this process's readers find the dictionaries of the SQLite store at `path`, those written after it was
    opened too (an import's child process learns one while the window reads)."""
    if not path or path == ":memory:":
        return

    def load(dict_id: int) -> bytes | None:
        conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=30.0)
        try:
            row = conn.execute("SELECT data FROM payload_dict WHERE id = ?", (dict_id,)).fetchone()
        finally:
            conn.close()
        return bytes(row[0]) if row else None
    payloads.add_loader(str(Path(path).absolute()), load)

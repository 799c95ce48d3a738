"""Event payloads at rest: zstd-compressed in SQLite, with a dictionary trained per tool, every reader handed the text.

A payload is the line a tool wrote, kept verbatim. JSON lines of one tool share most of their bytes (keys, the
envelope, the project's paths), which a zstd dictionary holds once: on the corpus's real Claude Code files, each
line compressed alone with a 64 KB dictionary keeps a quarter of its bytes, where without one a short line does not
shrink at all. So on SQLite every payload of `DICT_MIN_BYTES` or more (`PLAIN_MIN_BYTES` while its tool has no
dictionary yet) is stored as a BLOB holding one zstd frame of its UTF-8 when that saves an eighth, except the kinds
SQL still reads inside (`TEXT_KINDS`: the Codex and Claude Code importers find their metadata lines with LIKE, the
managed-agents importer its status lines). What SQL needs of the rest is a column of its own: the API response an
assistant line belongs to (`response_id`, the branch walk's), a failed tool result (`failed`, search's `has:error`).

A frame names its dictionary by id (zstd writes it in the frame's header); the dictionaries live in the store's
`payload_dict` table (sessionscope.store.dictionaries trains and keeps them) and, once read, here by id, shared by
every store this process opens (an id is a hash of the dictionary's bytes). A frame whose dictionary is not known yet
asks the loaders the open stores registered (`add_loader`).

An event's `text` (what the tool said, drawn from its payload: the reader shows it, search indexes it) is packed
the same way (`pack_text`): kept plain beside its compressed payload it was half of a store of chat-heavy
transcripts (#61). SQL that reads inside it calls `plain_text(text)` (`SQL_FUNCTION`, registered on every SQLite
connection of a store: `register_sql`), and the text index reads it through the view `event_plain` (migration 0027).

On SQLite the row keeps `payload_kept` and `text_kept`, and `event.payload` and `event.text` are columns generated
from them (migrations 0028, 0029): a payload is kept without the row's own ids where the line holds them
(`pack_kept`, read back by `payload_with_ids`), a text as where it stands in its payload (`keep_text`,
`text_in_payload`).

The hash chain is over the text (sessionscope.store.chain), never the stored bytes, so a store written before this, a
JSONL export and a re-import all verify alike. Reading: a Core select of `event.payload` or `event.text` decodes
through the column's type (sessionscope.store.schema); the few raw driver reads call `unpack`. PostgreSQL
compresses large values itself (TOAST): text there.
"""

from __future__ import annotations

import contextlib
import re
import struct
import threading
from collections.abc import Callable, Iterator

import orjson
import zstandard

from sessionscope.store.packed_sql import (  # noqa: F401 (sql_plain: said here too)
    IDS_OF_FUNCTION,
    IDS_OUT,
    SQL_FUNCTION,
    TEXT_OF_FUNCTION,
    TEXT_REF,
    TEXT_SPLICE,
    sql_plain,
)

PLAIN_MIN_BYTES = 1024  # without a dictionary, a shorter line does not shrink by an eighth
DICT_MIN_BYTES = 96  # with one, a line of this size already does
BIG_BYTES = 16 * 1024  # a payload this long is compressed without the dictionary, but a tool's own lines (`SHARED_KINDS`)
# A big payload is mostly the work's own bytes (a file read or written, a command's output, a long paste): a
# dictionary gains little on them, and an import's reader process, which has none, compresses them ahead of the
# writer (`pack_big`). The kinds a tool writes of itself are not: Claude Code 2.1.3xx writes each session's system
# prompt and tool schemas (the request's shape, an `opaque` line; the prompt's snapshot, a `context` line), 30-60 KB
# a line and the same from session to session. The dictionary learns them whole (`dictionaries`), and through it
# they keep 2-3 % of their bytes, without it 28-41 % (measured on a home the bundled claude 2.1.332 wrote).
SHARED_KINDS = frozenset({"opaque", "attachment", "context"})
REF_MIN_CHARS = 64  # a shorter text keeps itself (a reference saves little, and a reader of it alone needs no payload)
TEXT_KINDS = frozenset({"meta", "system"})  # SQL reads inside these (LIKE), so they stay text
# Level 1 for big tool output without a dictionary: 3-4x smaller at ~400 MB/s, and an import writes fewer pages
# than it spends compressing. With a dictionary the lines are short and level 3 costs little more.
_LEVEL = 1
DICT_LEVEL = 3
_local = threading.local()  # zstd contexts are not safe to share between threads
_dicts: dict[int, zstandard.ZstdCompressionDict] = {}
_loaders: dict[str, Callable[[int], bytes | None]] = {}  # the open stores', by store: a dictionary's bytes by id
_LOADERS_KEPT = 16
_lock = threading.Lock()


def _compressor(dictionary: zstandard.ZstdCompressionDict | None = None) -> zstandard.ZstdCompressor:
    cs = getattr(_local, "c", None)
    if cs is None:
        cs = _local.c = {}
    key = dictionary.dict_id() if dictionary is not None else 0
    c = cs.get(key)
    if c is None:
        c = cs[key] = (zstandard.ZstdCompressor(level=DICT_LEVEL, dict_data=dictionary) if dictionary is not None
                       else zstandard.ZstdCompressor(level=_LEVEL))
    return c


def _decompressor(dict_id: int = 0) -> zstandard.ZstdDecompressor:
    ds = getattr(_local, "d", None)
    if ds is None:
        ds = _local.d = {}
    d = ds.get(dict_id)
    if d is None:
        if dict_id == 0:
            d = zstandard.ZstdDecompressor()
        else:
            dictionary = known(dict_id)
            if dictionary is None:
                raise LookupError(f"its dictionary {dict_id} is not in this store")
            d = zstandard.ZstdDecompressor(dict_data=dictionary)
        ds[dict_id] = d
    return d


def register(data: bytes) -> zstandard.ZstdCompressionDict:
    """A dictionary's bytes made ready to use, and kept by its id for every reader of this process."""
    dictionary = zstandard.ZstdCompressionDict(data)
    with _lock:
        return _dicts.setdefault(dictionary.dict_id(), dictionary)


def known(dict_id: int) -> zstandard.ZstdCompressionDict | None:
    """The dictionary of that id: one read already, or from the first open store that has it."""
    dictionary = _dicts.get(dict_id)
    if dictionary is not None:
        return dictionary
    for load in list(_loaders.values())[::-1]:
        try:
            data = load(dict_id)
        except Exception:  # a store closed since, or gone: the next one may have it
            continue
        if data:
            return register(data)
    return None


def add_loader(store_key: str, load: Callable[[int], bytes | None]) -> None:
    """Let frames whose dictionary this process has not read yet find it in this store (the newest stores first)."""
    with _lock:
        _loaders.pop(store_key, None)
        _loaders[store_key] = load
        while len(_loaders) > _LOADERS_KEPT:
            _loaders.pop(next(iter(_loaders)))


def train(samples: list[bytes | bytearray | memoryview], size: int) -> bytes | None:
    """A dictionary of at most `size` bytes learnt from `samples`, or None where zstd finds too little to learn."""
    try:
        # k and d given, not searched for: as good or better (the corpus's lines 0.272 of their bytes either way,
        # today's Claude Code's 0.077 against 0.166, Aider's 0.17 against 0.18) in a third of the time (10 ms)
        return zstandard.train_dictionary(size, samples, k=2048, d=8, level=DICT_LEVEL).as_bytes()
    except zstandard.ZstdError:
        return None


_TOKENISH = re.compile(rb"[A-Za-z0-9_+=-]{20,}")


def mask(sample: bytes) -> bytes:
    """A line as a dictionary may learn it: long runs of a key's alphabet (API keys, tokens, ids) left out, so no
    dictionary holds a secret (it outlives the sessions it was learnt from)."""
    return _TOKENISH.sub(b"", sample)


def pack(payload: str, kind: str, role: str | None = None,
         dictionary: zstandard.ZstdCompressionDict | None = None) -> str | bytes:
    """What to store for an event's `payload` on SQLite: compressed bytes (with the tool's dictionary where it has
    one), or the text itself."""
    if len(payload) < (DICT_MIN_BYTES if dictionary is not None else PLAIN_MIN_BYTES) or kind in TEXT_KINDS:
        return payload
    raw = payload.encode("utf-8", "surrogatepass")
    # a big one without, unless the tool's own (`SHARED_KINDS`): an import's reader process packs those ahead
    # (`pack_big`) as the writer would
    alone = len(payload) >= BIG_BYTES and kind not in SHARED_KINDS
    packed = _compressor(None if alone else dictionary).compress(raw)
    return packed if len(packed) < len(raw) - len(raw) // 8 else payload


def pack_big(payload: str, kind: str) -> str | bytes | None:
    """What an import's reader process packs ahead of the writer: the big payloads alone (the work's bytes: a
    dictionary gains little on them), compressed without one; None leaves a payload to the writer, which packs it
    with its tool's dictionary (a tool's own lines, `SHARED_KINDS`, big ones too)."""
    if len(payload) < BIG_BYTES or kind in TEXT_KINDS or kind in SHARED_KINDS:
        return None
    return pack(payload, kind)


def pack_text(text: str, dictionary: zstandard.ZstdCompressionDict | None = None) -> str | bytes:
    """What to store for an event's `text` on SQLite: as `pack` (no kind of text is read with LIKE but through
    `plain_text`)."""
    return pack(text, "text", None, dictionary)


def keep_text(text: str, payload: str, dictionary: zstandard.ZstdCompressionDict | None = None) -> str | bytes:
    """What SQLite keeps of an event's text (`event.text_kept`, migration 0028): where it stands in its payload, when
    the payload holds it whole (`text_ref`), as tools write their lines; else packed as `pack_text` packs it."""
    return text_ref(text, payload) or pack_text(text, dictionary)


def text_ref(text: str, payload: str) -> bytes | None:
    """Where `payload` holds `text`, as SQLite keeps it instead of a copy; None where it does not hold it whole (or
    the text is short enough to keep itself). Either the text as a JSON string writes it (TEXT_REF, then its offset
    and its length in the payload's characters, 4 bytes each), or its first word and space, then the rest as the
    payload's own characters (TEXT_SPLICE, the word's UTF-8 length in 2 bytes and the word, then offset and length):
    a tool call's text is its name, then its input as JSON."""
    if len(text) < REF_MIN_CHARS or len(payload) >= 1 << 32:
        return None
    try:
        quoted = orjson.dumps(text).decode()[1:-1]
    except orjson.JSONEncodeError:  # (a lone surrogate: no JSON string holds it, and it has no UTF-8)
        return None
    at = payload.find(quoted)
    if at >= 0:
        return TEXT_REF + at.to_bytes(4, "little") + len(quoted).to_bytes(4, "little")
    space = text.find(" ", 0, 200)
    rest = text[space + 1:]
    if space < 1 or len(rest) < REF_MIN_CHARS or (at := payload.find(rest)) < 0:
        return None
    word = text[:space + 1].encode("utf-8")
    return TEXT_SPLICE + len(word).to_bytes(2, "little") + word + at.to_bytes(4, "little") + len(rest).to_bytes(4, "little")


def text_in_payload(kept: bytes, payload: str | bytes | None) -> str:
    """SQL's `text_in_payload(text_kept, payload)`, which `event.text` calls for a text kept as a `text_ref`: what it
    names in the payload, read."""
    whole = unpack(payload)
    try:
        if kept[:2] == TEXT_SPLICE:
            n = int.from_bytes(kept[2:4], "little")
            at, length = int.from_bytes(kept[4 + n:8 + n], "little"), int.from_bytes(kept[8 + n:12 + n], "little")
            if at + length <= len(whole):
                return kept[4:4 + n].decode("utf-8") + whole[at:at + length]
        elif kept[:2] == TEXT_REF:
            at, length = int.from_bytes(kept[2:6], "little"), int.from_bytes(kept[6:10], "little")
            return orjson.loads(f'"{whole[at:at + length]}"')
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        pass
    # (`verify` names it: this is not the text its hash covers)
    return f"{DAMAGED_PAYLOAD} (its text no longer stands where it was kept)"


# -- a payload kept without its row's ids (migration 0029) ------------------------------------------------------------
# The line a tool wrote names the event's own id, its parent's and its session's (Claude Code's uuid, parentUuid,
# sessionId), each already a column of the row; inside a compressed payload each costs ~26 bytes no dictionary shrinks.
_NO_ID = 0xFFFFFFFF  # (where an id that does not stand in the payload stood)
IDS_HEAD = 1 + 3 * 4  # IDS_OUT, then where each of the three stood (little-endian)


def leave_ids_out(payload: str, ids: tuple[str | None, str | None, str | None]) -> tuple[str, bytes] | None:
    """(the payload without each of `ids` (the row's id, parent id, session id) where it stands whole as a JSON string
    apart from the others, the header that says where each stood), or None when none does (nothing to gain).
    Looked for where a tool writes a line's ids, its envelope's start (Claude Code's parentUuid, sessionId) and after
    its message (its uuid): a line's long middle is not searched three times (on every row of an import)."""
    n = len(payload)
    if n >= _NO_ID:
        return None
    head_end, tail = min(n, _HEAD_CHARS), max(_HEAD_CHARS, n - _TAIL_CHARS)
    where = [_NO_ID, _NO_ID, _NO_ID]
    spans: list[tuple[int, int]] = []
    for i, value in enumerate(ids):
        if not value:
            continue
        needle = f'"{value}"'
        found = payload.find(needle, 0, head_end)
        if found < 0:
            found = payload.find(needle, tail)
        while found >= 0:
            lo, hi = found + 1, found + 1 + len(value)
            for a, b in spans:
                if lo < b and hi > a:
                    break  # (overlapping one taken: the same id twice, as id and parent; rare, so looked for anywhere)
            else:
                where[i] = lo
                spans.append((lo, hi))
                break
            found = payload.find(needle, found + 1)
    if not spans:
        return None
    spans.sort()
    parts, last = [], 0
    for lo, hi in spans:
        parts.append(payload[last:lo])
        last = hi
    parts.append(payload[last:])
    return "".join(parts), _IDS_HEADER.pack(IDS_OUT[0], *where)


_HEAD_CHARS, _TAIL_CHARS = 1024, 4096
_IDS_HEADER = struct.Struct("<BIII")  # IDS_OUT, then where each of the three stood


def pack_kept(payload: str, kind: str, role: str | None, dictionary: zstandard.ZstdCompressionDict | None,
              ids: tuple[str | None, str | None, str | None] | None) -> str | bytes:
    """What SQLite keeps of an imported event's payload (`event.payload_kept`): `pack`'s, without the row's ids where
    the payload holds them (`leave_ids_out`; read back by `payload_with_ids`), except the kinds SQL reads inside and
    the big ones (the ids are little of those, and an import's reader process packs them ahead as they are:
    `pack_big`); `ids` None: as `pack` (lines that hold no ids)."""
    left = None if ids is None or kind in TEXT_KINDS or len(payload) >= BIG_BYTES else leave_ids_out(payload, ids)
    if left is None:
        return pack(payload, kind, role, dictionary)
    rest, head = left
    packed = pack(rest, kind, role, dictionary)
    return head + (packed if isinstance(packed, bytes) else packed.encode("utf-8", "surrogatepass"))


def payload_with_ids(kept: bytes, event_id: str | None, parent_id: str | None, session_id: str | None) -> str:
    """SQL's `payload_with_ids(payload_kept, id, parent_id, session_id)`, which `event.payload` calls for a payload kept
    without its ids: the payload as its tool wrote it."""
    try:
        if len(kept) < IDS_HEAD:
            raise ValueError("its header is cut short")
        where = _IDS_HEADER.unpack_from(kept)[1:]
        body = kept[IDS_HEAD:]
        rest = unpack(body) if body[:4] == ZSTD_MAGIC else body.decode("utf-8", "surrogatepass")
        if rest.startswith(DAMAGED_PAYLOAD):
            return rest
        placed = sorted(((at, v) for at, v in zip(where, (event_id, parent_id, session_id)) if at != _NO_ID),
                        key=lambda p: p[0])
        parts: list[str] = []
        last = shift = 0
        for at, value in placed:
            if value is None:
                raise ValueError("an id it left out is not in the row")
            cut = at - shift  # (where it stood, in the payload without the ones before it)
            if not last <= cut <= len(rest):
                raise ValueError("an id stood past the payload's end")
            parts += [rest[last:cut], value]
            last, shift = cut, shift + len(value)
        return "".join(parts) + rest[last:]
    except (ValueError, UnicodeDecodeError) as exc:  # (`verify` names it: this is not the line its hash covers)
        return f"{DAMAGED_PAYLOAD} ({type(exc).__name__}: {str(exc)[:120]})"


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # (no UTF-8 text begins so: 0xb5 cannot follow "(")


def plain(stored: str | bytes | None) -> str | None:
    """`plain_text(x)` in SQL: a packed value's text, any other value as it is (NULL stays NULL)."""
    if isinstance(stored, bytes):
        return unpack(stored)
    return stored


def register_sql(conn, unpacker: Callable[[str | bytes | None], str | None] = plain) -> None:
    """Let SQL on this sqlite3 connection read packed text: `plain_text(text)`, deterministic (so an index or a view
    may use it)."""
    conn.create_function(SQL_FUNCTION, 1, unpacker, deterministic=True)
    key = id(conn)

    def text_of(kept: bytes, payload: str | bytes | None) -> str | None:
        if key in _INSERTING:  # (see `inserting`)
            return None
        return text_in_payload(kept, payload)

    def payload_of(kept: bytes, event_id: str | None, parent_id: str | None, session_id: str | None) -> str | None:
        if key in _INSERTING:
            return None
        return payload_with_ids(kept, event_id, parent_id, session_id)
    conn.create_function(TEXT_OF_FUNCTION, 2, text_of, deterministic=True)
    conn.create_function(IDS_OF_FUNCTION, 4, payload_of, deterministic=True)


_INSERTING: set[int] = set()  # the connections (by id) inside `inserting`


@contextlib.contextmanager
def inserting(conn) -> Iterator[None]:
    """Around a bulk insert (or update) of events on this sqlite3 connection (registered by `register_sql`): SQLite
    works out every generated column of a row it writes, a virtual one too, and throws a virtual one's value away
    when no index or constraint reads it (none reads `event.text` nor `event.payload`), so `text_in_payload` and
    `payload_with_ids` would decompress each such row's payload for nothing (~5 % of an Aider import's time, for the
    text alone). Meanwhile both answer NULL on this connection; the statements in between are the write's alone (a
    connection runs one at a time)."""
    _INSERTING.add(id(conn))
    try:
        yield
    finally:
        _INSERTING.discard(id(conn))


def unpack(stored: str | bytes | None) -> str:
    """The payload text of a stored value (as `pack` left it, or text written before it existed)."""
    if stored is None:
        return ""
    if isinstance(stored, (bytes, bytearray, memoryview)):
        try:
            return _decompress(bytes(stored)).decode("utf-8", "surrogatepass")
        except (zstandard.ZstdError, UnicodeDecodeError, MemoryError, LookupError) as exc:  # (a damaged header's huge size)
            # a damaged row is shown as such (and `verify` names it: this text is not what its hash covers)
            return f"{DAMAGED_PAYLOAD} ({type(exc).__name__}: {str(exc)[:120]})"
    return stored


DAMAGED_PAYLOAD = "[damaged in the store: this payload no longer decompresses]"


def unpack_kept(kept: str | bytes | None) -> str:
    """The payload text of an `event.payload_kept`, for a reader that needs none of the row's ids (the usage figures:
    a reply's model and tokens): one kept without them is read as it is, each id's place empty (`""`), so SQL does
    not call `payload_with_ids` for every row (a Python call, the ids spliced in, the text converted twice more)."""
    if isinstance(kept, (bytes, bytearray, memoryview)) and kept[:1] == IDS_OUT and len(kept) >= IDS_HEAD:
        body = bytes(kept[IDS_HEAD:])
        if body[:4] == ZSTD_MAGIC:
            return unpack(body)
        try:
            return body.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError as exc:
            return f"{DAMAGED_PAYLOAD} ({type(exc).__name__}: {str(exc)[:120]})"
    return unpack(kept)


def unpack_bytes(stored: str | bytes | None) -> bytes:
    """The payload's UTF-8 bytes, for a reader that writes them out again (no text decoded between)."""
    if stored is None:
        return b""
    if isinstance(stored, (bytes, bytearray, memoryview)):
        return _decompress(bytes(stored))
    return stored.encode("utf-8", "surrogatepass")


def _decompress(frame: bytes) -> bytes:
    return _decompressor(zstandard.get_frame_parameters(frame).dict_id).decompress(frame)


_ERROR_FLAG = re.compile(r'"is_error"\s*:\s*true')


def response_id(role: str | None, payload: str) -> str | None:
    """The API response an assistant line belongs to (Claude's message.id), if any: `event.response_id`."""
    if role != "assistant" or '"message"' not in payload:
        return None
    try:
        msg = orjson.loads(payload).get("message")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    mid = msg.get("id") if isinstance(msg, dict) else None
    return mid if isinstance(mid, str) and mid else None


def failed(kind: str, payload: str) -> bool:
    """A tool result the tool marked an error (`"is_error": true`): `event.failed`, search's `has:error`."""
    return kind == "tool_result" and '"is_error"' in payload and _ERROR_FLAG.search(payload) is not None

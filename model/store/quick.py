"""A read-only view of a SQLite store through the standard library's sqlite3 alone.

`sessionscope list` and `show` answer in a fraction of the 0.4 s that importing SQLAlchemy and
SQLModel costs, so the command line reads through this when it can: the store is a SQLite file that
exists and is at the schema this code knows. Anything else (no file yet, an older schema to migrate,
PostgreSQL) opens the full Store. The methods are the Store's of the same name and return the same
views; tests/model/test_quick.py holds the two to the same answers.
"""

from __future__ import annotations

import bisect
import json
import sqlite3
import types

from sessionscope.errors import InvalidInput, NotFound
from sessionscope.history.read_models import EventView, SessionView
from sessionscope.store.locations import sqlite_path
from sessionscope.store.packed_sql import sql_hash, sql_plain
from sessionscope.store.revision import HEAD_REVISION

_SESSIONS = ("SELECT session.*, source.kind AS source_kind, star.session_id IS NOT NULL AS starred FROM session "
             "LEFT OUTER JOIN source ON session.source_id = source.id "
             "LEFT OUTER JOIN star ON star.session_id = session.id")
_SORT = {"updated": "session.updated_at", "created": "session.created_at", "title": "session.title",
         "events": "session.event_count", "tokens": "session.tokens_in + session.tokens_out",
         "status": "session.status", "project": "session.project"}
# an event's text may be packed (sessionscope.store.payloads): `plain_text`, registered on the reader's connection
_EVENT_COLUMNS = ", ".join(sql_plain("text") if f == "text" else sql_hash() if f == "hash" else f
                           for f in EventView.__dataclass_fields__)
_SIDECHAIN = list(EventView.__dataclass_fields__).index("sidechain")  # stored as 0/1
_PAYLOAD = list(EventView.__dataclass_fields__).index("payload")  # big ones compressed (sessionscope.store.payloads)
# A listing's line: the columns stored before the text and payload, the start of the text, then sidechain (a
# column past the payload: reading it walks the payload's overflow pages, the one cost kept)
_BRIEF_COLUMNS = f"id, seq, ts, kind, role, substr({sql_plain('text')}, 1, 600), sidechain"


# the filters `sessions` takes (a list filtered otherwise, by its live state say, waits for the Store)
FILTERS = frozenset({"status", "include_archived", "source_kind", "project", "person", "text", "starred", "pinned",
                     "tag"})
MIN_PREFIX = 3  # an id prefix shorter than this is too easy to mistype into another session


def unique_prefix(full: str, neighbours: list[str], least: int = 8) -> str:
    """The shortest prefix of `full` (≥ `least` characters) that none of its sorted neighbours shares,
    as git shortens hashes (ids.short_ids asks the same of any store)."""
    need = least
    for other in neighbours:
        common = next((i for i, (a, b) in enumerate(zip(full, other)) if a != b), min(len(full), len(other)))
        need = max(need, common + 1)
    return full[:need]


NEIGHBOUR_QUERIES = 32  # more ids than this to shorten: one read of every id beats two queries an id


def prefixes_among(every_id: list[str], ids: list[str], least: int = 8) -> dict[str, str]:
    """unique_prefix of each of `ids` against its neighbours in `every_id` (all the ids, sorted)."""
    out = {}
    for full in ids:
        i = bisect.bisect_left(every_id, full)
        j = i + 1 if i < len(every_id) and every_id[i] == full else i
        out[full] = unique_prefix(full, every_id[max(i - 1, 0):i] + every_id[j:j + 1], least)
    return out


def open_reader(location: str | None) -> "QuickReader | None":
    """A reader for the store at `location`, or None when the full Store must open it."""
    path = sqlite_path(location)
    if path is None or not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=30.0)
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:
        return None  # not a store, or locked, or damaged: the Store says what is wrong
    if revision is None or revision[0] != HEAD_REVISION:
        conn.close()
        return None
    return QuickReader(conn, str(path))


class QuickReader:
    """Store's reading methods for list and show, over one read-only sqlite3 connection."""

    def __init__(self, conn: sqlite3.Connection, path: str = ""):
        self.conn = conn
        self.path = path
        self._found_payloads: types.ModuleType | None = None  # store.payloads, once told of this store (`_payloads`)
        conn.create_function("plain_text", 1, self._plain, deterministic=True)
        conn.create_function("text_in_payload", 2, self._text_in_payload, deterministic=True)
        conn.create_function("payload_with_ids", 4, self._payload_with_ids, deterministic=True)

    def _plain(self, stored):
        """SQL's `plain_text` (sessionscope.store.payloads.plain), zstd imported only when a text is packed."""
        return self._unpacker()(stored) if isinstance(stored, bytes) else stored

    def _text_in_payload(self, kept, payload):
        """SQL's `text_in_payload`, which `event.text` calls for a text kept once (payloads.text_in_payload)."""
        return self._payloads().text_in_payload(kept, payload)

    def _payload_with_ids(self, kept, event_id, parent_id, session_id):
        """SQL's `payload_with_ids`, which `event.payload` calls for a payload kept without its ids (payloads.pack_kept)."""
        return self._payloads().payload_with_ids(kept, event_id, parent_id, session_id)

    def _unpacker(self):
        """`payloads.unpack`, with this store's dictionaries findable."""
        return self._payloads().unpack

    def _payloads(self):
        """sessionscope.store.payloads, with this store's dictionaries findable (imported only by the readers that
        unpack; told once: SQL calls this for every row it unpacks, and telling it again cost 10 µs a row)."""
        found = self._found_payloads
        if found is None:
            from sessionscope.store import dictionaries, payloads
            dictionaries.watch_file(self.path)
            found = self._found_payloads = payloads
        return found

    def __enter__(self) -> "QuickReader":
        return self

    def __exit__(self, *exc) -> None:
        self.conn.close()

    def _rows(self, sql: str, params: list) -> tuple[list[str], list[tuple], bool]:
        """(column names, rows, False); a row whose text is not UTF-8 (a damaged store) is read again with its bad
        bytes replaced instead of failing the whole listing: (…, True)."""
        try:
            cur = self.conn.execute(sql, params)
            return [d[0] for d in cur.description], cur.fetchall(), False
        except sqlite3.OperationalError as exc:
            if "decode" not in str(exc).lower():
                raise
        self.conn.text_factory = lambda data: data.decode("utf-8", "replace")
        try:
            cur = self.conn.execute(sql, params)
            return [d[0] for d in cur.description], cur.fetchall(), True
        finally:
            self.conn.text_factory = str

    def _sessions(self, where: str, params: list) -> list[SessionView]:
        import dataclasses
        names, rows, damaged = self._rows(f"{_SESSIONS} {where}", params)
        views = SessionView.from_tuples(names, rows)
        if not damaged:
            return views
        return [dataclasses.replace(s, title="⚠ damaged: " + (s.title or "")) if "\ufffd" in (s.title or "") else s
                for s in views]

    def sessions(self, *, status: str | None = None, include_archived: bool = False, source_kind: str | None = None,
                 project: str | None = None, person: str | None = None, text: str | None = None, sort: str = "updated",
                 descending: bool = True, limit: int | None = None, offset: int = 0,
                 starred: bool = False, pinned: bool = False, tag: str | None = None) -> list[SessionView]:
        if sort not in _SORT:
            raise InvalidInput(f"cannot sort by {sort!r}; use one of {', '.join(_SORT)}")
        clauses, params = [], []
        if status:
            clauses.append("session.status = ?")
            params.append(status)
        elif not include_archived:
            clauses.append("session.status != 'archived'")
        if source_kind:
            clauses.append("coalesce(source.kind, 'native') = ?")
            params.append(source_kind)
        if project:
            clauses.append("session.project = ?")
            params.append(project)
        if person:
            clauses.append("session.imported_by = ?")
            params.append(person)
        if starred:
            clauses.append("star.session_id IS NOT NULL")
        if pinned:
            clauses.append("session.id IN (SELECT session_id FROM pin)")
        if tag:  # as reading.session_query: the tag's JSON string, quotes included, in the JSON list
            clauses.append("instr(session.tags, ?) > 0")
            params.append(json.dumps(tag.strip()))
        if text:
            like = f"%{text.replace('%', '').replace('_', '')}%"
            clauses.append("(lower(session.title) LIKE lower(?) OR lower(session.id) LIKE lower(?) "
                           "OR lower(session.project) LIKE lower(?))")
            params += [like] * 3
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        order = f"ORDER BY {_SORT[sort]} {'DESC' if descending else 'ASC'}, session.id"
        page = f"LIMIT {int(limit)} OFFSET {int(offset)}" if limit is not None else ""
        return self._sessions(f"{where} {order} {page}", params)

    def session(self, session_id: str) -> SessionView:
        found = self._sessions("WHERE session.id = ?", [session_id])
        if not found:
            raise NotFound(f"no session with id {session_id!r} in this store")
        return found[0]

    def fork_counts(self) -> dict[str, int]:
        """How many sessions fork from each session (Store.fork_counts)."""
        return dict(self.conn.execute("SELECT forked_from_session, count(*) FROM session "
                                      "WHERE forked_from_session IS NOT NULL GROUP BY forked_from_session"))

    def same_tool_id(self, session: SessionView) -> list[SessionView]:
        """As Store.same_tool_id."""
        if not session.tool_id:
            return []
        return self._sessions("WHERE session.tool_id = ? AND session.id != ?", [session.tool_id, session.id])

    def resolve_session(self, key: str) -> str:
        """A full session id from an id or an unambiguous prefix (≥ MIN_PREFIX characters)."""
        if not key:
            raise InvalidInput("no session id given")
        if self.conn.execute("SELECT 1 FROM session WHERE id = ?", [key]).fetchone():
            return key
        if len(key) < MIN_PREFIX:
            raise InvalidInput(f"session id {key!r} is too short: give at least {MIN_PREFIX} characters of it")
        if len(key) >= MIN_PREFIX:
            rows = self.conn.execute("SELECT id FROM session WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
                                     [key, key + "\uffff"]).fetchall()
            if len(rows) == 1:
                return rows[0][0]
            if len(rows) > 1:
                raise InvalidInput(f"session id {key!r} is ambiguous: give more characters")
        raise NotFound(f"no session with id {key!r} in this store")

    def usage_entries(self, since_ts: float, until_ts: float, tool: str | None = None,
                      sessions: list[str] | None = None):
        """As Store.usage_entries (the status line's figures, without SQLAlchemy)."""
        from sessionscope.insight import spend
        unpack = self._payloads().unpack_kept
        sql, params = spend.entries_query(since_ts, until_ts, tool, sessions)
        return spend.entries(self.conn.execute(sql, params).fetchall(), unpack)

    def search(self, text: str, *, limit: int = 50, session_id: str | None = None, order: str = "relevance",
               fuzzy: bool = True):
        """As Store.search (sessionscope.recall.fts: the same SQL); None while search by meaning is on (its model and
        the fusion of the two rankings are the Store's), or where `*part*` or a typo needs the store's words and they
        are far behind (the Store, which may write, brings them up to date)."""
        from sessionscope.recall import fts
        row = self.conn.execute("SELECT value FROM setting WHERE key = 'semantic'").fetchone()
        try:
            meaning = bool(row) and json.loads(row[0]).get("enabled") is True
        except (ValueError, AttributeError):
            meaning = False  # (a value another version wrote: off, as the Store reads it)
        if meaning and order == "relevance" and self.conn.execute("SELECT 1 FROM embedding LIMIT 1").fetchone():
            return None
        from sessionscope.recall.terms import Behind, Words

        def run(sql: str, params) -> list:
            return self.conn.execute(sql, list(params)).fetchall()
        try:  # (the store's words added since, if any, read into a scratch table of this reader's: it may not write)
            return fts.search(run, text, words=Words(run), limit=limit, session_id=session_id, order=order,
                              fuzzy=fuzzy)
        except Behind:  # the store's words are far behind its index: the Store brings them up to date, and keeps them
            return None

    def usage_table(self, **query):
        """As Store.usage_table, from the usage cache alone; None when a session changed since it was cached (the
        Store folds it again and keeps the fold, which this read-only reader cannot)."""
        import orjson

        from sessionscope.insight import spend
        cached, info = [], {}
        for sid, last_seq, cached_seq, blob, project, kind, owner, by in self.conn.execute(
                "SELECT s.id, s.last_seq, c.last_seq, c.rows, s.project, src.kind, s.owner, s.imported_by "
                "FROM session s LEFT JOIN usage_cache c ON c.session_id = s.id "
                "LEFT JOIN source src ON src.id = s.source_id"):
            if blob is None or cached_seq != last_seq:
                return None
            cached.append((sid, blob))
            info[sid] = (project, kind or "native", owner or by)
        # (the cached rows parsed as one document, as the usage report parses them)
        rows = dict(zip((sid for sid, _ in cached), orjson.loads(b"[" + b",".join(bytes(b) for _, b in cached) + b"]")))
        return spend.table(rows, info, **query)

    def sessions_of_tool_id(self, tool_id: str) -> list[str]:
        """The sessions a tool's own id names (itself, and a fork or rewind of it kept under the same id)."""
        return [r[0] for r in self.conn.execute("SELECT id FROM session WHERE id = ? OR tool_id = ?", [tool_id, tool_id])]

    def short_ids(self, session_ids: list[str], least: int = 8) -> dict[str, str]:
        """{session id: its shortest prefix (≥ `least` characters) that names it alone in this store}."""
        if len(session_ids) > NEIGHBOUR_QUERIES:
            every = [row[0] for row in self.conn.execute("SELECT id FROM session ORDER BY id")]
            return prefixes_among(every, session_ids, least)
        neighbours = ("SELECT id FROM session WHERE id < ? ORDER BY id DESC LIMIT 1",
                      "SELECT id FROM session WHERE id > ? ORDER BY id LIMIT 1")
        return {full: unique_prefix(full, [row[0] for sql in neighbours
                                           for row in self.conn.execute(sql, [full]).fetchall()], least)
                for full in session_ids}

    def events(self, session_id: str, *, from_seq: int | None = None, to_seq: int | None = None,
               since: float | None = None, until: float | None = None, limit: int | None = None,
               brief: bool = False) -> list[EventView]:
        """With `brief`, each event is what a one-line listing shows: id, seq, ts, kind, role, sidechain and the
        first 600 characters of its text (a line shows 100 of them, spaces folded); its payload, parent, hash
        and tokens are left empty, so a 10,000-event session is not read whole."""
        unpack = self._unpacker()
        self.session(session_id)
        clauses = ["session_id = ?"]
        params: list[object] = [session_id]
        for value, clause in ((from_seq, "seq >= ?"), (to_seq, "seq <= ?"), (since, "ts >= ?"), (until, "ts <= ?")):
            if value is not None:
                clauses.append(clause)
                params.append(value)
        page = f"LIMIT {int(limit)}" if limit is not None else ""
        columns = _BRIEF_COLUMNS if brief else _EVENT_COLUMNS
        _names, rows, _damaged = self._rows(f"SELECT {columns} FROM event WHERE {' AND '.join(clauses)} "
                                  f"ORDER BY seq {page}", params)
        if brief:  # no payload to unpack; sidechain stays 0/1 (a listing's line asks only whether it is one)
            return [EventView(i, session_id, None, seq, 0, ts, kind, role, text, "", 0, 0, side, None, "")
                    for i, seq, ts, kind, role, text, side in rows]
        return [EventView(*[*r[:_PAYLOAD], unpack(r[_PAYLOAD]), *r[_PAYLOAD + 1:_SIDECHAIN], bool(r[_SIDECHAIN]),
                            *r[_SIDECHAIN + 1:]]) for r in rows]

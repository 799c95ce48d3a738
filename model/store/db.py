"""Opening a store: the engine, SQLite pragmas, write transactions, migrations.

SQLite is opened in WAL mode so readers never wait for the writer. Every write
runs in `BEGIN IMMEDIATE`, which takes the write lock up front: a transaction
that starts as a reader and later writes can fail with "database is locked"
without waiting, an immediate one waits up to the busy timeout instead. On top
of that, `write()` retries a transaction that still met a lock, so concurrent
processes never see that error.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import sqlite3
import time
from collections.abc import Collection, Iterator
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection, Engine

from sessionscope.errors import MissingExtra, Refused, StoreUnavailable
from sessionscope.store import settled

BUSY_TIMEOUT_S = 30.0
WRITE_RETRY_S = 120.0


def default_url() -> str:
    """The store in the platform's user data dir, or $SESSIONSCOPE_STORE."""
    env = os.environ.get("SESSIONSCOPE_STORE")
    if env:
        return as_url(env)
    from sessionscope.store.locations import default_store_file

    path = default_store_file()
    from sessionscope.safety.privacy import private_dir
    private_dir(path.parent)  # the data dir holds transcripts: its user's alone
    return f"sqlite:///{path}"


def as_url(location: str | os.PathLike) -> str:
    """Accept a SQLAlchemy URL or a plain file path. A plain `postgresql://` (or `postgres://`, as
    servers print it) URL is read with psycopg 3, the driver the `postgres` extra installs."""
    text = os.fspath(location)
    for plain in ("postgresql://", "postgres://"):
        if text.startswith(plain):
            return "postgresql+psycopg://" + text[len(plain):]
    return text if "://" in text else f"sqlite:///{Path(text).expanduser().absolute()}"


def split_address(address: str) -> tuple[str, str | None]:
    """(a database's address without its password, as a person writes it; the password or None). What is shown,
    stored and recorded of an address is the first: a password goes to the keyring or ~/.pgpass, never a file."""
    from sqlalchemy.engine import make_url

    from sessionscope.errors import InvalidInput
    try:
        parsed = make_url(as_url(address))
    except Exception as exc:  # (sqlalchemy.exc.ArgumentError and friends: the words are what matters)
        raise InvalidInput(f"{address!r} is not a database address (postgresql://user@host/database): {exc}") from None
    bare = parsed._replace(password=None).render_as_string(hide_password=False)  # (set(password=None) keeps it)
    # as a person writes it (the driver is ours to choose: as_url puts it back)
    return bare.replace("postgresql+psycopg://", "postgresql://", 1), parsed.password


def create_store_engine(url: str) -> Engine:
    """An engine with our pragmas; SQLite transactions are begun by us, not pysqlite."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(
            url,
            connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False},
        )
        sa_event.listen(engine, "connect", _on_sqlite_connect)
        sa_event.listen(engine, "begin", _on_sqlite_begin)
        return engine
    if url.startswith("postgresql+psycopg"):
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise MissingExtra("a store on PostgreSQL", "postgres", "psycopg") from None
    engine = sa.create_engine(url)
    _ping_when_idle(engine)
    return engine


# A connection back in the pool for less than this goes out again without asking the server first whether it is
# still there, unless the server has said something since (a backend ended, by an admin or a restart, says so and
# closes its end: the socket has something to read). SQLAlchemy's pool_pre_ping asks every time: a round trip of an
# agent's every append, a tenth of a one-line append's time.
PING_AFTER_S = 1.0


def _ping_when_idle(engine: Engine) -> None:
    def connected(_dbapi, record) -> None:
        record.info["back_at"] = time.monotonic()

    def checked_out(dbapi, record, _proxy) -> None:
        back = record.info.get("back_at")
        if back is not None and time.monotonic() - back < PING_AFTER_S and not _heard_from(dbapi):
            return
        try:
            engine.dialect.do_ping(dbapi)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise sa.exc.DisconnectionError(str(exc)) from exc  # (the pool connects anew, and tries again)

    sa_event.listen(engine, "connect", connected)
    sa_event.listen(engine, "checkin", connected)
    sa_event.listen(engine, "checkout", checked_out)


def _heard_from(dbapi) -> bool:
    """Whether an idle connection's socket has anything to read (or is gone): the server spoke unasked."""
    try:
        return bool(select.select([dbapi.fileno()], [], [], 0)[0])
    except Exception:  # noqa: BLE001 — closed, or no socket to ask: the ping finds out
        return True


WAL_LIMIT = 64 * 1024 * 1024  # bytes of WAL kept past a checkpoint (the autocheckpoint's 16,384 pages)
# Each connection's page cache. A process's pooled connections each fill their own as they read: at 32 MB the
# window held ~35 MB more after its first import, and an import's process ~25 MB more, for no speed (#61, measured
# alternating on generated homes: 250 MB in 3.3 s either way, 1 GB in 11.3–12.5 s with 8 MB against 11.5–14.3 s
# with 32), while the system's file cache keeps the pages at hand all the same.
CACHE_KIB = 8 * 1024


def _on_sqlite_connect(dbapi_conn: sqlite3.Connection, _record) -> None:
    dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (see _on_sqlite_begin)
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    mode = cur.execute("PRAGMA journal_mode").fetchone()[0]
    if mode != "wal" and not _is_memory(dbapi_conn):
        cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across app crashes
    cur.execute("PRAGMA foreign_keys=ON")
    # An import writes hundreds of MB through indexes keyed by random uuids. Checkpointing the WAL every
    # 1,000 pages (the default) copies the same index pages back again and again, and a 2 MB page cache
    # rereads them: a 64 MB WAL between checkpoints and a 64 MB cache (allocated only as pages are
    # touched) cut a 50 MB import by a third (python -m tests.benchmarks). With the WAL's checkpoints that far
    # apart, a cache of 8 MB (CACHE_KIB) imports as fast as one of 32 or 64.
    cur.execute("PRAGMA wal_autocheckpoint=16384")
    cur.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    # SQLite reuses a WAL file and never shrinks it: after a 347 MB import the window kept a 447 MB WAL beside the
    # store for as long as it ran. Past each checkpoint the file is cut back to WAL_LIMIT (#61).
    cur.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
    cur.close()
    from sessionscope.store import payloads  # (the schema's import: the column types decode with it)
    payloads.register_sql(dbapi_conn)  # an event's text may be packed: SQL reads it as `plain_text(text)`


def _is_memory(dbapi_conn: sqlite3.Connection) -> bool:
    row = dbapi_conn.execute("PRAGMA database_list").fetchone()
    return not row or not row[2]


def _on_sqlite_begin(conn: Connection) -> None:
    immediate = conn.get_execution_options().get("sessionscope_write", False)
    # on the driver's own connection: SQLAlchemy's statement machinery was half of an empty transaction's 33 µs, and
    # every read and write begins so (a lock met here is sqlite3's error, which the writers' retries catch too)
    raw = driver(conn)
    assert raw is not None  # (this listens on SQLite's engines alone)
    raw.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")


def driver(conn: Connection) -> sqlite3.Connection | None:
    """The SQLite connection under `conn`, in the same transaction, or None on another engine. The small
    statements a write makes run on it directly: SQLAlchemy's result machinery costs more than SQLite's
    own work on a one-row statement (~40 µs against ~5), which an agent's backend pays on every append.
    Its errors are sqlite3's own (run_write handles both)."""
    return conn.connection.driver_connection if conn.dialect.name == "sqlite" else None


def sql(conn, statement: str, params: tuple):
    """One small statement with `?` placeholders, on SQLite's own driver (see `driver`), or on another
    engine with its own; `conn` may also be a plain sqlite3 connection."""
    if isinstance(conn, sqlite3.Connection):
        return conn.execute(statement, params)
    raw = driver(conn)
    if raw is not None:
        return raw.execute(statement, params)
    return conn.exec_driver_sql(statement.replace("?", "%s"), params)


def _q(column: str) -> str:
    """A column's name quoted: some are SQL words (`offset`), which PostgreSQL refuses bare."""
    return f'"{column}"'


def rules_apply(conn: Connection, table: str) -> bool:
    """Whether row-level security applies to this login on `table` (sessionscope.safety.team; never on SQLite). Asked
    each time (a round trip beside a COPY): a pooled connection may outlive `team init`."""
    if conn.dialect.name != "postgresql":
        return False
    return bool(conn.exec_driver_sql("SELECT row_security_active(%s)", (table,)).scalar())


def update(conn: Connection, table: sa.Table, values: dict, **where) -> int:
    """`UPDATE table SET values WHERE column = value AND …`; the rows changed. As plain SQL on the driver (see
    `sql`): an import runs these once a batch, and SQLAlchemy would build the statement anew each time."""
    sets, cond = ", ".join(f"{_q(k)} = ?" for k in values), " AND ".join(f"{_q(k)} = ?" for k in where)
    return sql(conn, f"UPDATE {table.name} SET {sets} WHERE {cond}", (*values.values(), *where.values())).rowcount


def insert(conn: Connection, table: sa.Table, values: dict) -> None:
    """`INSERT INTO table` one row, as plain SQL (as `update`), so `values` names every column that has no
    default in the database (a model's Python-side defaults are not applied)."""
    sql(conn, f"INSERT INTO {table.name} ({', '.join(map(_q, values))}) VALUES ({', '.join('?' * len(values))})",
        tuple(values.values()))


def upsert(conn: Connection, table: sa.Table, key: dict, values: dict) -> None:
    """The row whose unique `key` columns have these values gets `values`, made if there is none: one
    statement (SQLite and PostgreSQL both have INSERT … ON CONFLICT), as plain SQL (as `update`)."""
    row = {**key, **values}
    sets = ", ".join(f"{_q(k)} = excluded.{_q(k)}" for k in values)
    sql(conn, f"INSERT INTO {table.name} ({', '.join(map(_q, row))}) VALUES ({', '.join('?' * len(row))}) "
              f"ON CONFLICT ({', '.join(map(_q, key))}) DO UPDATE SET {sets}", tuple(row.values()))


def row(conn: Connection, table: sa.Table, **where) -> dict | None:
    """The row whose columns have these values (the first, if several), as a dict, read as plain SQL (as
    `update`)."""
    names = [c.name for c in table.columns]
    found = sql(conn, f"SELECT {', '.join(map(_q, names))} FROM {table.name} "
                      f"WHERE {' AND '.join(f'{_q(k)} = ?' for k in where)} LIMIT 1", tuple(where.values())).fetchone()
    return None if found is None else dict(zip(names, found))


PG_WRITE_LOCK = 0x5E551095  # the advisory lock key of the store's writers on PostgreSQL ("sessions")
PG_SESSION_LOCKS = 0x5E551096  # with a session id's hash: the lock of one session's appends (the two-key space)
PG_CACHE_LOCK = 0x5E551099  # the caches' writers' (try_write)

# What a write beside others (`write_connection` with names) may build on besides sessions (named by their ids): rows
# no session holds, each named in the sessions' lock space (a session id that spells one only makes the two take turns)
AUDIT_LOCK = "audit log"  # an entry alone (audit.audited without work: it builds on no other row)
LIVE_SIGNALS_LOCK = "live signals"  # the hooks' spooled signals brought in (live.signals.drain)


def source_lock(kind: str, location: object) -> str:
    """The lock name of a source's row (scan.source_row: found, or made once)."""
    return f"source {kind} {location}"


ANALYZE_AFTER = 5_000  # new events after which an import refreshes PostgreSQL's planner statistics


def after_bulk_import(engine: Engine, events_added: int) -> None:
    """After a big import on PostgreSQL, refresh the planner's statistics of the tables it grew.
    Without them a fresh team store plans a search for a rare word as a walk down the newest rows
    (57 ms on a 628 MB store) instead of asking the text index first. SQLite needs nothing."""
    if engine.dialect.name != "postgresql" or events_added < ANALYZE_AFTER:
        return
    with engine.connect() as conn:
        conn.execute(sa.text("ANALYZE event"))
        conn.execute(sa.text("ANALYZE session"))
        conn.commit()


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "database is locked" in text or "database is busy" in text


@contextlib.contextmanager
def write_connection(engine: Engine, session_id: str | Collection[str] | None = None) -> Iterator[Connection]:
    """One write transaction, holding the write lock from its first statement (with `session_id`, one or several, on
    PostgreSQL: those sessions' locks alone, beside the other sessions' writers, and keys taken as `keys.new_keys`
    says)."""
    sessions = _sessions(session_id)
    with engine.connect() as conn:
        conn = conn.execution_options(sessionscope_write=True, sessionscope_beside=bool(sessions))
        with conn.begin():
            if conn.dialect.name == "postgresql" and not sessions:
                # Writers take turns, as SQLite's one write lock makes them: every write reads what it
                # builds on (the session's last seq and hash, the events already stored) inside its
                # transaction, so two machines importing the same session can neither double an event
                # nor fork a hash chain. Readers never wait; the lock ends with the transaction.
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_WRITE_LOCK})
            elif conn.dialect.name == "postgresql":
                # A write that builds on its sessions alone (an append, a sync's page, an import's batch: their
                # last seq, hash and head; its keys from the sequence) takes the store's lock shared, so writes
                # to other sessions go at once (a team's members, each agent's backend) while a store-wide
                # writer (a fork, a delete: the global lock, exclusive) waits for them and they for it; and each
                # session's own lock, so two writes to one session still take turns. Several sessions' locks are
                # taken in one order (their ids sorted), so two such writers never wait on each other in a ring.
                # Writers at once commit their keys out of order (101 before 100): before taking any, this one
                # says where they may land, so the change mark stops below them until it commits (store.settled).
                # All in one round trip, taken in this order (the select list is evaluated left to right).
                locks = ", ".join(f"pg_advisory_xact_lock(:sessions, hashtext(:s{i}))" for i in range(len(sessions)))
                conn.execute(sa.text(f"SELECT pg_advisory_xact_lock_shared(:store), {locks}, {settled.marks_sql(conn)}"),
                             {"store": PG_WRITE_LOCK, "sessions": PG_SESSION_LOCKS}
                             | {f"s{i}": sid for i, sid in enumerate(sessions)})
            yield conn


def _sessions(session_id: str | Collection[str] | None) -> list[str]:
    """The sessions a write holds, sorted (none: the store's whole lock)."""
    if session_id is None:
        return []
    return [session_id] if isinstance(session_id, str) else sorted(set(session_id))


def _pg_try_lock(conn: sa.Connection, wait_s: float) -> bool:
    """The locks of a cache's write within `wait_s`, or False (a skippable write gives up, as on SQLite): the caches'
    own lock, so two windows' workers storing one session's outline take turns (delete, then insert: they collided
    on its key), and the store's write lock shared, so it waits for no append or sync page (8 agents appending
    at once left no moment for the lock whole: every cache write gave way) while imports, forks and deletes still
    shut it out. What it stores was folded before, under the key it was folded at, and is checked on reading."""
    deadline = time.monotonic() + wait_s
    for key, how in ((PG_CACHE_LOCK, "pg_try_advisory_xact_lock"), (PG_WRITE_LOCK, "pg_try_advisory_xact_lock_shared")):
        while not conn.execute(sa.text(f"SELECT {how}(:key)"), {"key": key}).scalar():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
    return True


def run_write(engine: Engine, work, *args, **kwargs):
    """Run `work(conn, ...)` in a write transaction, retrying on lock contention.

    `work` must be safe to run again from the start: it reads what it needs inside
    the transaction. Disk-full and other I/O errors surface as StoreUnavailable,
    after the transaction rolled back (nothing stored is damaged).
    """
    return _run_write(engine, None, work, args, kwargs)


def run_session_write(engine: Engine, session_id: str | Collection[str], work, *args, **kwargs):
    """`run_write` for a write that reads and changes these sessions alone (one, or an import's batch of several) and
    takes its keys as `keys.new_keys` says (an append, a sync's page, an import): on PostgreSQL it holds their locks,
    not the store's (`write_connection`); SQLite has one writer whatever it writes. No session: `run_write`."""
    return _run_write(engine, session_id, work, args, kwargs)


# PostgreSQL's codes for a write beside others that lost a race it could not see coming, safe to run again: another
# session's writer stored the same unique row first (an event id two files both hold, a kept file's blob), or the
# server broke a ring of waits between two such writers' rows
_RACED = frozenset({"23505", "40P01"})
RACE_TRIES = 5


def _run_write(engine: Engine, session_id: str | Collection[str] | None, work, args, kwargs):
    deadline = time.monotonic() + WRITE_RETRY_S
    delay = 0.01
    raced = 0
    while True:
        try:
            try:
                with write_connection(engine, session_id) as conn:
                    return work(conn, *args, **kwargs)
            except Exception as exc:  # (the driver's own too: a COPY raises psycopg's, unwrapped)
                if _sessions(session_id) and sqlstate(exc) in _RACED and raced < RACE_TRIES:
                    raced += 1  # run again from the start: it reads what the other writer committed
                    time.sleep(delay * (1 + random.random()))
                    continue
                raise
        except (sa.exc.OperationalError, sqlite3.OperationalError) as exc:  # (sqlite3's: see `driver`)
            if _is_lock_error(exc) and time.monotonic() < deadline:
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.5)
                continue
            raise StoreUnavailable(_describe_operational(exc)) from exc
        except (sa.exc.DatabaseError, sqlite3.DatabaseError) as exc:
            if "malformed" in str(exc):
                # (sqlite3's own error, raised on `driver`'s connection, has no `orig`: it is the driver's)
                raise StoreUnavailable(DAMAGED_ADVICE.format(problem=getattr(exc, "orig", exc))) from exc
            refused = team_refusal(exc)
            if refused:
                raise Refused(refused) from exc
            raise


def sqlstate(exc: BaseException) -> str | None:
    """PostgreSQL's code for the error under a SQLAlchemy one (42501: refused by a right or a row rule; 23505: a
    unique key taken); None on SQLite or for any other error. (SQLAlchemy's names the driver's as `orig`; psycopg's
    own, from a COPY on its cursor, is it.)"""
    return getattr(getattr(exc, "orig", exc), "sqlstate", None)


def team_refusal(exc: BaseException) -> str | None:
    """A team store's rules refusing a write (PostgreSQL's insufficient_privilege: a row rule or a missing
    right, sessionscope.safety.team), in words; None for any other error."""
    if sqlstate(exc) != "42501":
        return None
    first = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
    return (f"the team store's rules refuse this ({first}): only a session's owner or an admin changes it, "
            "and the audit log takes inserts only")


DAMAGED_ADVICE = ("the store file is damaged ({problem}): nothing was written into it. `sessionscope verify` names "
                  "what is damaged; `sessionscope repair` rebuilds a sound store from every row it can read "
                  "(the damaged file is kept)")


def try_write(engine: Engine, work, *args, wait_s: float = 0.1):
    """One short attempt at a write that may be skipped (a cache): None when the store is busy.

    A reader on the UI's worker thread must not wait out another process's long import
    just to store something it can compute again next time."""
    with engine.connect() as conn:
        raw = conn.connection.driver_connection if conn.dialect.name == "sqlite" else None
        if raw is not None:
            raw.execute(f"PRAGMA busy_timeout={int(wait_s * 1000)}")
        try:
            conn = conn.execution_options(sessionscope_write=True)
            with conn.begin():
                if conn.dialect.name == "postgresql" and not _pg_try_lock(conn, wait_s):
                    return None
                return work(conn, *args)
        except (sa.exc.OperationalError, sqlite3.OperationalError) as exc:
            if _is_lock_error(exc):
                return None
            raise StoreUnavailable(_describe_operational(exc)) from exc
        finally:
            if raw is not None:
                raw.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")


def _describe_operational(exc: BaseException) -> str:
    """(SQLAlchemy's error names the driver's as `orig`; sqlite3's own, raised on `driver`'s connection, is it.)"""
    text = str(getattr(exc, "orig", None) or exc)
    if "disk is full" in text or "disk I/O" in text:
        return f"the store could not be written: {text}; free some disk space and try again (nothing was changed)"
    if _is_lock_error(exc):
        return f"the store stayed locked by another process for {WRITE_RETRY_S:.0f} s: {text}"
    return f"the store could not be used: {text}"


DAMAGED_MARK = "⚠ damaged: "  # before a title read from a damaged row (its bad bytes shown as �)


def replacing(data: bytes) -> str:
    """A text factory for rows whose text may not be UTF-8 (its bad bytes shown as U+FFFD)."""
    return data.decode("utf-8", "replace")


def undecodable(exc: BaseException) -> bool:
    """Whether a read failed on text that is not UTF-8 (bytes of the store file flipped, or edited in SQL)."""
    return isinstance(exc, (sa.exc.OperationalError, sqlite3.OperationalError)) and "decode" in str(exc).lower()


@contextlib.contextmanager
def tolerant_text(conn: Connection) -> Iterator[None]:
    """Within: text that is not UTF-8 reads with its bad bytes replaced (U+FFFD) instead of failing the whole
    query. Only after a read failed: a Python decoder on every value costs a third more on big reads."""
    raw = conn.connection.dbapi_connection
    if not isinstance(raw, sqlite3.Connection):
        yield
        return
    before = raw.text_factory
    raw.text_factory = replacing
    try:
        yield
    finally:
        raw.text_factory = before


def integrity(engine: Engine, quick: bool = False) -> list[str]:
    """SQLite's own check of the file's structure (every page, index and row; `quick`: without comparing
    indexes to their tables), as its messages; [] when sound, and on PostgreSQL (whose server keeps its pages
    checked)."""
    if engine.dialect.name != "sqlite":
        return []
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(f"PRAGMA {'quick_check' if quick else 'integrity_check'}(100)").scalars().all()
    except sa.exc.DatabaseError as exc:
        return [f"the file cannot be checked: {exc.orig}"]
    return [] if rows == ["ok"] else list(rows)

"""Keys of the tables whose rows a writer numbers itself (events, audit entries, mirror entries): where the next
ones come from on SQLite (after the largest stored: one writer) and on PostgreSQL (the column's sequence, which a
team store's members move only through the owner's functions, sessionscope.safety.team_sql). What a reader may take
as committed below them is sessionscope.store.settled's."""

from __future__ import annotations

_KEY_FUNCTIONS: dict[str, bool] = {}


def key_functions(conn) -> bool:
    """Whether the store hands out keys through sessionscope.safety.team's functions (made by `team init`): asked once a
    store (a member's process starts after init; the owner's may keep its own rights until it is restarted)."""
    url = str(conn.engine.url)
    if url not in _KEY_FUNCTIONS:
        _KEY_FUNCTIONS[url] = conn.exec_driver_sql(
            "SELECT to_regprocedure('sessionscope_take_keys(text,text,integer)') IS NOT NULL").scalar()
    return _KEY_FUNCTIONS[url]


def reserve_keys(conn, table: str, column: str, n: int) -> int:
    """The first of `n` new consecutive keys of `table.column` for rows the caller numbers itself (a bulk
    insert), inside the store's write lock. SQLite: after the largest stored. PostgreSQL: taken from the
    column's sequence, which every writer moves (one statement), never from max(): a team store's
    row-level security hides other members' rows from max(), and a key below one of theirs would collide."""
    if conn.dialect.name == "sqlite":  # (its own driver: a Core statement costs more than SQLite's work here)
        raw = conn.connection.driver_connection
        return (raw.execute(f"SELECT max({column}) FROM {table}").fetchone()[0] or 0) + 1
    if conn.dialect.name != "postgresql":
        return (conn.exec_driver_sql(f"SELECT max({column}) FROM {table}").scalar() or 0) + 1
    if key_functions(conn):  # a team store: a member moves no sequence but through the owner's functions
        return conn.exec_driver_sql("SELECT sessionscope_take_keys(%s, %s, %s)", (table, column, n)).scalar()
    return conn.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                                f"nextval(pg_get_serial_sequence('{table}', '{column}')) + %s) - %s",
                                (n - 1, n - 1)).scalar()


def last_key_sql(conn, table: str, column: str) -> str:
    """SQL for the largest key of `table.column` given so far, for a caller that numbers its rows after it
    (then `insert_numbered` moves the sequence past them): SQLite's largest row; PostgreSQL's sequence, as a
    team store's row rules hide other members' rows from max() (see `reserve_keys`)."""
    if conn.dialect.name == "postgresql":
        if key_functions(conn):
            return f"(SELECT sessionscope_last_key('{table}', '{column}'))"
        return f"(SELECT last_value FROM {table}_{column}_seq)"  # (the name SQLAlchemy gives a serial's sequence)
    return f"(SELECT {column} FROM {table} ORDER BY {column} DESC LIMIT 1)"


def take_keys(conn, n: int) -> list[int]:
    """`n` new event keys, ascending, for rows the caller numbers itself beside other sessions' writers: on
    PostgreSQL each from the sequence (`reserve_keys`' block, a nextval then a setval, is safe only under the
    exclusive lock: another writer's nextval between the two would land inside it), so not always consecutive;
    on SQLite (one writer) the block."""
    if conn.dialect.name != "postgresql":
        first = reserve_keys(conn, "event", "pk", n)
        return list(range(first, first + n))
    nextval = "sessionscope_nextval" if key_functions(conn) else "nextval"
    return sorted(conn.exec_driver_sql(f"SELECT {nextval}(pg_get_serial_sequence('event', 'pk')::regclass) "
                                       "FROM generate_series(1, %s)", (n,)).scalars())


def new_keys(conn, n: int) -> list[int]:
    """`n` new event keys, ascending, for the rows of a writer that numbers its own (an import's batch): the block of
    `reserve_keys` under the store's whole lock, `take_keys` in a write beside other sessions' writers (on
    PostgreSQL, `db.write_connection` with sessions)."""
    if conn.get_execution_options().get("sessionscope_beside") and conn.dialect.name == "postgresql":
        return take_keys(conn, n)
    first = reserve_keys(conn, "event", "pk", n)
    return list(range(first, first + n))

"""Rows whose keys the caller numbered under the store's write lock (an event's `pk` from `keys.new_keys`, a mirror
row's `id`), inserted in one go: on SQLite one executemany; on PostgreSQL a few as one INSERT, more by COPY, then
the key's sequence moved past them."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.store import keys
from sessionscope.store.db import driver, rules_apply


def insert_numbered(conn, table: sa.Table, columns: tuple[str, ...], rows: list[tuple], *,
                    reserved: bool = False) -> None:
    """Insert rows whose key (the first of `columns`: `id`, the event's `pk`) the caller numbered under the store's
    write lock: on SQLite one executemany on the driver; on PostgreSQL a few as one INSERT (VALUES_ROWS), more by
    COPY (not a statement a row), and the key's sequence moved past them, so an insert that takes its key from it
    cannot collide (not needed when they came from `reserve_keys`: `reserved`)."""
    if not rows:
        return
    raw = driver(conn)
    if raw is not None:
        raw.executemany(f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
        return
    if conn.dialect.name != "postgresql":
        conn.execute(table.insert(), [dict(zip(columns, r)) for r in rows])
        return
    names = ", ".join(columns)
    if len(rows) <= VALUES_ROWS:
        _insert_values(conn, table.name, columns, rows, reserved)
        return
    # COPY, in the same transaction: SQLAlchemy sends a psycopg executemany as a statement a row (pipelined,
    # ~45 µs a row here); a VALUES list is parsed anew each time (~4 ms for 50), arrays escaped in Python
    # a team store's member is under its row rules, which COPY refuses to check: their rows go by COPY into a
    # table of the connection's own first, then into the table by one INSERT, which the rules check row by row
    target = _staging(conn, table.name) if rules_apply(conn, table.name) else table.name
    with conn.connection.driver_connection.cursor() as cur:
        with cur.copy(f"COPY {target} ({names}) FROM STDIN") as copy:
            for r in rows:
                copy.write_row(r)
        if target != table.name:
            cur.execute(f"INSERT INTO {table.name} ({names}) SELECT {names} FROM {target}")
            cur.execute(f"TRUNCATE {target}")
    if reserved:  # the keys came from reserve_keys: the sequence is past them already
        return
    conn.exec_driver_sql(f"SELECT {_keys_past(conn, table.name, columns[0])}", (max(r[0] for r in rows),))


# PostgreSQL: this many rows or fewer (an agent's append: a line or a turn) go as one INSERT statement, the sequence
# moved past them in the same one: one round trip, where a COPY takes two (its start, then its rows), asks first
# whether row rules apply (a third) and moves the sequence after (a fourth); the rules check an INSERT's rows anyway
VALUES_ROWS = 8


def _keys_past(conn: Connection, table: str, column: str) -> str:
    """The SQL expression that moves `table.column`'s key past `%s` (the largest the caller numbered)."""
    if keys.key_functions(conn):  # a team store's: its members may not move the sequence themselves
        return f"sessionscope_keys_past('{table}', '{column}', %s)"
    return f"setval(pg_get_serial_sequence('{table}', '{column}'), %s)"


def _insert_values(conn: Connection, table: str, columns: tuple[str, ...], rows: list[tuple], reserved: bool) -> None:
    """A few numbered rows in one statement on PostgreSQL (see VALUES_ROWS): a data-modifying WITH runs once
    whether or not the statement reads it."""
    one = f"({', '.join(['%s'] * len(columns))})"
    insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([one] * len(rows))}"
    params = tuple(v for r in rows for v in r)
    if reserved:
        conn.exec_driver_sql(insert, params)
    else:
        conn.exec_driver_sql(f"WITH added AS ({insert}) SELECT {_keys_past(conn, table, columns[0])}",
                             (*params, max(r[0] for r in rows)))


def _staging(conn: Connection, table: str) -> str:
    """A temporary table of `table`'s columns, this connection's alone (no log, no rules, and no constraint: a
    column the caller leaves out, as a team table's `owner`, takes the table's own default in the INSERT after)."""
    name = f"sessionscope_staging_{table}"
    # (asked each time, not remembered: a transaction rolled back takes the table it made with it)
    conn.exec_driver_sql(f"CREATE TEMP TABLE IF NOT EXISTS {name} AS SELECT * FROM {table} WITH NO DATA")
    return name

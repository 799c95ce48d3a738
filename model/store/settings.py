"""Store-wide settings: one text value a key in the `setting` table, shared by every client."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.store.schema import SETTING


def get(conn: Connection, key: str) -> str | None:
    return conn.execute(sa.select(SETTING.c.value).where(SETTING.c.key == key)).scalar()


def put(conn: Connection, key: str, value: str) -> None:
    conn.execute(SETTING.delete().where(SETTING.c.key == key))
    conn.execute(SETTING.insert().values(key=key, value=value))

"""PostgreSQL: the event's text and payload compressed with lz4 instead of pglz

A big value (a tool's output, a file read) is compressed when PostgreSQL moves it out of line; pglz took
more than half of a COPY's time on the server (50 MB of transcripts: 1.5 s against 0.7 s with lz4). Only
values written from now on are compressed the new way; every reader reads both. A server built without lz4
keeps pglz. Nothing changes on SQLite (its payloads are compressed by sessionscope.store.payloads).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = '0019'
down_revision: Union[str, None] = '0018'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _has_lz4(bind) -> bool:
    return bind.execute(sa.text("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
                                "AND 'lz4' = ANY(enumvals)")).first() is not None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql' or not _has_lz4(bind):
        return
    for column in ('text', 'payload'):
        op.execute(f"ALTER TABLE event ALTER COLUMN {column} SET COMPRESSION lz4")


def downgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    for column in ('text', 'payload'):
        op.execute(f"ALTER TABLE event ALTER COLUMN {column} SET COMPRESSION default")

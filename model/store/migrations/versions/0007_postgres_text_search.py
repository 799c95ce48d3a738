"""PostgreSQL: full-text search with its own text search (a generated tsvector column and a GIN index)

SQLite has its FTS5 table since 0001; on PostgreSQL the event's text is indexed the same way
(sessionscope.recall.search decides what: conversation text up to 64 KB, tool calls and results their
first 4 KB, nothing of progress, meta or opaque lines). Nothing changes on SQLite.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0007'
down_revision: Union[str, None] = '0006'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# written out rather than imported: a migration keeps meaning what it meant when it was written
_INDEXED = ("CASE WHEN text = '' OR kind IN ('progress', 'meta', 'opaque') THEN NULL "
            "WHEN kind IN ('tool_call', 'tool_result') THEN left(text, 4096) ELSE left(text, 65536) END")


def upgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.execute(f"ALTER TABLE event ADD COLUMN fts tsvector "
               f"GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, coalesce({_INDEXED}, ''))) STORED")
    op.execute("CREATE INDEX ix_event_fts ON event USING gin (fts)")


def downgrade() -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return
    op.execute("DROP INDEX IF EXISTS ix_event_fts")
    op.execute("ALTER TABLE event DROP COLUMN IF EXISTS fts")

"""The words the text index holds, with a trigram index over them (SQLite): `*part*` in a search finds any word
holding it, and a word that finds nothing is taken for a typo of the nearest word there is ("did you mean")

Made by raw SQL like event_fts (autogenerate leaves both alone: sessionscope.store.migrating.include_name) and
empty: sessionscope.recall.terms fills it from the index's events when a search first needs it, and after that
from the events added since. PostgreSQL asks its text index's own words instead (ts_stat).

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0026'
down_revision: Union[str, None] = '0025'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.execute("CREATE TABLE IF NOT EXISTS search_term (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, "
               "docs INTEGER NOT NULL DEFAULT 0)")
    op.execute("CREATE VIRTUAL TABLE IF NOT EXISTS search_term_tri USING fts5(term, content='search_term', content_rowid='id', "
               "tokenize='trigram')")


def downgrade() -> None:
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.execute("DROP TABLE IF EXISTS search_term_tri")
    op.execute("DROP TABLE IF EXISTS search_term")

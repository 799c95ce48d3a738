"""PostgreSQL: finer statistics of the words in events, so the planner asks the text index for a rare word

With the default statistics the planner took a rare word for a common one (2,500 expected matches in a million
events, 17 found) and walked down the newest events matching each against it (1.2 s) instead of asking the text
index (1 ms). 400 (of the default 100) keeps enough words' frequencies for a rare one to be seen as rare; ANALYZE of
the event table takes ~3 s instead of ~1 s for it. Nothing changes on SQLite (FTS5 has no planner to mislead).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-27
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0021'
down_revision: Union[str, None] = '0020'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("ALTER TABLE event ALTER COLUMN fts SET STATISTICS 400")


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("ALTER TABLE event ALTER COLUMN fts SET STATISTICS -1")

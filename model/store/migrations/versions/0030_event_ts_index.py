"""The events' time index without the session: `ix_event_ts (ts)` in place of `ix_event_session_ts (session_id, ts)`

The index led with the session's id: 36 bytes of text in each of its entries, beside the 8 of the time, so it was
the biggest of the event table's four (7 % of a chat-heavy store, 4.5 % of one of real Claude Code files, #61).
What reads events by time reads either one session's, which its `(session_id, seq)` index already finds (a
session's events in order, the time filtered on the way: `show --since`, a run placed by when it began), or every
session's from a moment on (usage, the home page's activity, search's `since:`), which an index on the time alone
finds better than one that leads with the session. A quarter of the bytes.

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-30
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0030'
down_revision: Union[str, None] = '0029'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_event_session_ts")
    op.execute("CREATE INDEX IF NOT EXISTS ix_event_ts ON event (ts)")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_event_ts")
    op.execute("CREATE INDEX IF NOT EXISTS ix_event_session_ts ON event (session_id, ts)")

"""An event's text kept once (SQLite): where its payload holds it whole, the row keeps where, not a second copy

An event's text is drawn from its payload (what the tool said, in the line it wrote), and SQLite kept both, each
compressed alone: a ninth of a store of real Claude Code transcripts (#61). The column becomes `text_kept`, which
holds the text as before (plain, or packed: sessionscope.store.payloads.pack_text) or, from now on, where it stands
in the payload (payloads.text_ref: a BLOB beginning with a zero byte, then where: as a JSON string, or a tool call's
name followed by the payload's own characters); `text` is a column generated from it, so every reader reads the
text as it did, and a reference is read by `text_in_payload`, a function every connection of a store registers
(payloads.register_sql) as it does `plain_text`. A generated column cannot be written: the writers write
`text_kept` (sessionscope.store.ingest).

Nothing is rewritten: a rename and an added virtual column change the schema alone. The text index's view is
made again over the generated column (a rename would have pointed it at `text_kept`). PostgreSQL keeps its text
column (TOAST compresses it).

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0028'
down_revision: Union[str, None] = '0027'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# written out rather than imported: a migration keeps meaning what it meant when it was written
_TEXT = ("CASE WHEN substr(text_kept, 1, 1) = x'00' THEN text_in_payload(text_kept, payload) "
         "ELSE text_kept END")
_VIEW = ("CREATE VIEW event_plain AS SELECT pk, "
         "CASE WHEN typeof(text) = 'blob' THEN plain_text(text) ELSE text END AS text FROM event")


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'sqlite':
        return
    if any(row[1] == "text_kept" for row in bind.exec_driver_sql("PRAGMA table_xinfo(event)")):
        return  # (made so already: a store whose revision was set back by hand, as tests do)
    op.execute("DROP VIEW IF EXISTS event_plain")
    op.execute("ALTER TABLE event RENAME COLUMN text TO text_kept")
    op.execute(f"ALTER TABLE event ADD COLUMN text TEXT GENERATED ALWAYS AS ({_TEXT}) VIRTUAL")
    op.execute(_VIEW)


def downgrade() -> None:
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.execute("DROP VIEW IF EXISTS event_plain")
    op.execute("UPDATE event SET text_kept = text WHERE substr(text_kept, 1, 1) = x'00'")
    op.execute("ALTER TABLE event DROP COLUMN text")
    op.execute("ALTER TABLE event RENAME COLUMN text_kept TO text")
    op.execute(_VIEW)

"""An event's payload kept without its row's ids (SQLite): where the line its tool wrote holds the event's own id, its
parent's or its session's as a JSON string, the row keeps the line without them, and where they stood

Each of those ids is already a column of the row, and inside a compressed payload each costs ~26 bytes that no
dictionary shrinks (random hex): a tenth of a chat-heavy store, a twentieth of one of real Claude Code files (#61).
The column becomes `payload_kept`, which holds the payload as before (plain, or packed: sessionscope.store.payloads
.pack) or, from now on, without those ids (payloads.leave_ids_out: a BLOB beginning with byte 1, where each id stood,
then the rest packed); `payload` is a column generated from it and the row's ids, so every reader reads the payload
as it did, and the ids are put back by `payload_with_ids`, a function every connection of a store registers
(payloads.register_sql) as it does `plain_text`. The writers write `payload_kept` (sessionscope.store.ingest).

`event.text` (0028) is made again over the generated payload (its references stand in the whole line), and the text
index's view with it. Nothing stored is rewritten. PostgreSQL keeps its payload column (TOAST compresses it).

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0029'
down_revision: Union[str, None] = '0028'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# written out rather than imported: a migration keeps meaning what it meant when it was written
_PAYLOAD = ("CASE WHEN substr(payload_kept, 1, 1) = x'01' THEN payload_with_ids(payload_kept, id, parent_id, "
            "session_id) ELSE payload_kept END")
_TEXT = ("CASE WHEN substr(text_kept, 1, 1) = x'00' THEN text_in_payload(text_kept, payload) "
         "ELSE text_kept END")
_VIEW = ("CREATE VIEW event_plain AS SELECT pk, "
         "CASE WHEN typeof(text) = 'blob' THEN plain_text(text) ELSE text END AS text FROM event")


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'sqlite':
        return
    if any(row[1] == "payload_kept" for row in bind.exec_driver_sql("PRAGMA table_xinfo(event)")):
        return  # (made so already: a store whose revision was set back by hand, as tests do)
    op.execute("DROP VIEW IF EXISTS event_plain")
    op.execute("ALTER TABLE event DROP COLUMN text")  # (generated from the payload: made again over the new one)
    op.execute("ALTER TABLE event RENAME COLUMN payload TO payload_kept")
    op.execute(f"ALTER TABLE event ADD COLUMN payload TEXT GENERATED ALWAYS AS ({_PAYLOAD}) VIRTUAL")
    op.execute(f"ALTER TABLE event ADD COLUMN text TEXT GENERATED ALWAYS AS ({_TEXT}) VIRTUAL")
    op.execute(_VIEW)


def downgrade() -> None:
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.execute("DROP VIEW IF EXISTS event_plain")
    op.execute("UPDATE event SET payload_kept = payload WHERE substr(payload_kept, 1, 1) = x'01'")
    op.execute("ALTER TABLE event DROP COLUMN text")
    op.execute("ALTER TABLE event DROP COLUMN payload")
    op.execute("ALTER TABLE event RENAME COLUMN payload_kept TO payload")
    op.execute(f"ALTER TABLE event ADD COLUMN text TEXT GENERATED ALWAYS AS ({_TEXT}) VIRTUAL")
    op.execute(_VIEW)

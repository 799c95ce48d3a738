"""An event's text may be stored packed like its payload (SQLite): the text index reads it through a view

An event's text (what the tool said, drawn from its payload) was kept plain beside its compressed payload: half
of a store of chat-heavy transcripts (#61). The bulk writers now pack it as they pack the payload
(sessionscope.store.payloads.pack_text), and SQL reads it as `plain_text(text)`, a function every connection of a
store registers. FTS5 reads an external content table's column itself (snippets, its integrity check), so the
text index's content becomes the view `event_plain`, which gives each event's text as text.

The index's own tables are left as they are (nothing is indexed again): only the table's declaration in the
schema names its new content, the way SQLite documents for such a change (writable_schema, then a new
schema_version so every connection reads it again). Rows stored before stay plain; `plain_text` passes them.
PostgreSQL keeps text (its values are compressed by TOAST).

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0027'
down_revision: Union[str, None] = '0026'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

OLD = "content='event',"
NEW = "content='event_plain',"


def _declare(old: str, new: str) -> None:
    """event_fts declared with `new` for `old` (no row of the index changes)."""
    raw = op.get_bind().connection.driver_connection
    found = raw.execute("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'event_fts'").fetchone()
    if found is None or old not in found[0]:
        return
    version = raw.execute("PRAGMA schema_version").fetchone()[0]
    raw.execute("PRAGMA writable_schema = ON")
    try:
        raw.execute("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'event_fts'",
                    (found[0].replace(old, new, 1),))
        raw.execute(f"PRAGMA schema_version = {int(version) + 1}")
    finally:
        raw.execute("PRAGMA writable_schema = OFF")


def upgrade() -> None:
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.execute("CREATE VIEW IF NOT EXISTS event_plain AS SELECT pk, "
               "CASE WHEN typeof(text) = 'blob' THEN plain_text(text) ELSE text END AS text FROM event")
    _declare(OLD, NEW)


def downgrade() -> None:
    if op.get_bind().dialect.name != 'sqlite':
        return
    op.execute("UPDATE event SET text = plain_text(text) WHERE typeof(text) = 'blob'")
    _declare(NEW, OLD)
    op.execute("DROP VIEW IF EXISTS event_plain")

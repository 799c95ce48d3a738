"""Payloads compressed with a dictionary per tool: the dictionaries' table, and what SQL read inside payloads as
columns of their own (event.response_id for the branch walk, event.failed for search's has:error)

From now on a SQLite store compresses every payload but the kinds SQL still reads inside
(sessionscope.store.payloads), so nothing may look inside an assistant line or a tool result in SQL any more. The
columns are filled here for the events already stored, from the payloads as they are: an assistant line was never
compressed before this, a tool result may have been (those are read here, in Python). Nothing stored is rewritten:
the payloads kept as text stay text, and every reader reads both.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-29
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0024'
down_revision: Union[str, None] = '0023'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_BATCH = 2000


def upgrade() -> None:
    op.create_table(
        'payload_dict',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('tool', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.Column('made_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_payload_dict_tool', 'payload_dict', ['tool'])
    # (plain ADD COLUMN: batch mode would copy the event table)
    op.add_column('event', sa.Column('response_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True))
    op.add_column('event', sa.Column('failed', sa.Boolean(), nullable=False, server_default=sa.false()))
    bind = op.get_bind()
    if bind.dialect.name == 'sqlite':
        op.execute("UPDATE event SET response_id = json_extract(payload, '$.message.id') WHERE role = 'assistant' "
                   "AND typeof(payload) = 'text' AND json_valid(payload) "
                   "AND json_type(payload, '$.message.id') = 'text' AND json_extract(payload, '$.message.id') != ''")
        bind.execute(sa.text("UPDATE event SET failed = 1 WHERE kind = 'tool_result' AND typeof(payload) = 'text' "
                             "AND (payload LIKE :tight OR payload LIKE :spaced)"),
                     {"tight": '%"is_error":true%', "spaced": '%"is_error": true%'})
        _fill(bind, "kind = 'tool_result' AND typeof(payload) = 'blob'", 'failed')
    else:
        bind.execute(sa.text("UPDATE event SET failed = true WHERE kind = 'tool_result' AND payload ~ :flag"),
                     {"flag": r'"is_error"\s*:\s*true'})
        _fill(bind, "role = 'assistant' AND payload LIKE '%\"message\"%'", 'response_id')


def _fill(bind, where: str, column: str) -> None:
    """Fill `column` from the payloads of the rows `where` picks, a batch at a time (read in Python)."""
    from sessionscope.store import payloads
    last = -1
    while True:
        rows = bind.execute(sa.text(f"SELECT pk, kind, role, payload FROM event WHERE pk > :last AND {where} "
                                    f"ORDER BY pk LIMIT {_BATCH}"), {"last": last}).all()
        if not rows:
            return
        last = rows[-1][0]
        values = []
        for pk, kind, role, stored in rows:
            text = payloads.unpack(stored)
            value = payloads.failed(kind, text) if column == 'failed' else payloads.response_id(role, text)
            if value:
                values.append({"pk": pk, "v": value})
        if values:
            bind.execute(sa.text(f"UPDATE event SET {column} = :v WHERE pk = :pk"), values)


def downgrade() -> None:
    with op.batch_alter_table('event') as batch:
        batch.drop_column('failed')
        batch.drop_column('response_id')
    op.drop_index('ix_payload_dict_tool', table_name='payload_dict')
    op.drop_table('payload_dict')

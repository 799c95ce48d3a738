"""mirror written behind: no index over the SDK's random uuids, the summary folded up to a row

The Claude Agent SDK's appends keep only its rows (#31); the summary is folded behind them, up to the
row `folded_to` names, and an entry the SDK sends again is dropped by the adapter's own record of the
key's uuids instead of a unique index over random uuids, which cost more per append than the rows.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: Union[str, None] = '0009'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.drop_index('ux_mirror_entry_uuid', table_name='mirror_entry')
    with op.batch_alter_table('mirror_summary') as batch:
        batch.add_column(sa.Column('folded_to', sa.Integer(), nullable=False, server_default='0'))
    # every summary so far was folded in its append: up to the newest row of its main transcript
    op.execute("UPDATE mirror_summary SET folded_to = COALESCE((SELECT max(e.id) FROM mirror_entry e WHERE "
               "e.sdk = mirror_summary.sdk AND e.project_key = mirror_summary.project_key AND "
               "e.session_id = mirror_summary.session_id AND e.subpath = ''), 0)")


def downgrade() -> None:
    with op.batch_alter_table('mirror_summary') as batch:
        batch.drop_column('folded_to')
    op.create_index('ux_mirror_entry_uuid', 'mirror_entry', ['sdk', 'project_key', 'session_id', 'subpath', 'uuid'],
                    unique=True)

"""event_alias: transcript lines kept as references to the events they copy (Claude Code forks)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0009'
down_revision: Union[str, None] = '0008'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('event_alias',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('event_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_event_alias_session_id', 'event_alias', ['session_id'])


def downgrade() -> None:
    op.drop_index('ix_event_alias_session_id', table_name='event_alias')
    op.drop_table('event_alias')

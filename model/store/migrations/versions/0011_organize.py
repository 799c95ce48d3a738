"""organize: the sessions the user starred, the events they pinned and their notes (#33)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0011'
down_revision: Union[str, None] = '0010'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('star',
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('starred_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('session_id')
    )
    op.create_table('pin',
    sa.Column('event_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('pinned_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('event_id')
    )
    op.create_index('ix_pin_session_id', 'pin', ['session_id'])
    op.create_table('note',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('event_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=False),
    sa.Column('updated_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_note_session_id', 'note', ['session_id'])
    op.create_index('ix_note_event_id', 'note', ['event_id'])


def downgrade() -> None:
    op.drop_index('ix_note_event_id', table_name='note')
    op.drop_index('ix_note_session_id', table_name='note')
    op.drop_table('note')
    op.drop_index('ix_pin_session_id', table_name='pin')
    op.drop_table('pin')
    op.drop_table('star')

"""file_touch and commit_link: the files agents' edits changed and the commits their shells made (#37 blame)

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0018'
down_revision: Union[str, None] = '0017'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('file_touch',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('path', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('event_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('ts', sa.Float(), nullable=False),
    sa.Column('op', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('other', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_file_touch_name'), 'file_touch', ['name'], unique=False)
    op.create_index(op.f('ix_file_touch_session_id'), 'file_touch', ['session_id'], unique=False)
    op.create_table('commit_link',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('short', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('event_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('message', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_commit_link_short'), 'commit_link', ['short'], unique=False)
    op.create_index(op.f('ix_commit_link_session_id'), 'commit_link', ['session_id'], unique=False)
    # the vital signs cached before these existed are folded again (their version is older), filling them


def downgrade() -> None:
    op.drop_table('commit_link')
    op.drop_table('file_touch')

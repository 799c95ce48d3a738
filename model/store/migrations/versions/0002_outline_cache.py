"""outline cache: each session's head branch in reading order

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0002'
down_revision: Union[str, None] = '0001'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('outline_cache',
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('head_event_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('last_seq', sa.Integer(), nullable=False),
    sa.Column('entries', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('session_id')
    )


def downgrade() -> None:
    op.drop_table('outline_cache')

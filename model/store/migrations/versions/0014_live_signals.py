"""live signals: what each tool's hook last said of a session (#35, `sessionscope hook`)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0014'
down_revision: Union[str, None] = '0013'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'live_signal',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tool', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('tool_session', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('event', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('detail', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('ts', sa.Float(), nullable=False),
        sa.Column('pid', sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tool', 'tool_session'),
    )


def downgrade() -> None:
    op.drop_table('live_signal')

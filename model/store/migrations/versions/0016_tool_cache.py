"""tool_cache: each session's tool outcomes by day, tool and model, folded once (#37 tool outcomes)

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0016'
down_revision: Union[str, None] = '0015'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('tool_cache',
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('last_seq', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('rows', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('session_id')
    )


def downgrade() -> None:
    op.drop_table('tool_cache')

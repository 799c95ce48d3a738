"""usage cache: each session's tokens by day and model, split into input, output, cache reads and writes

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0005'
down_revision: Union[str, None] = '0004'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('usage_cache',
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('last_seq', sa.Integer(), nullable=False),
    sa.Column('rows', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('session_id')
    )


def downgrade() -> None:
    op.drop_table('usage_cache')

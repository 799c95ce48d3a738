"""star: the sessions the user starred (#33)

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


def downgrade() -> None:
    op.drop_table('star')

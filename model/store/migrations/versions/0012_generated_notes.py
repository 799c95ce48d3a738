"""generated notes: a note a model wrote when the user asked for a summary says which model (#33)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0012'
down_revision: Union[str, None] = '0011'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # nullable, no default: every note written so far is the user's own (NULL)
    op.add_column('note', sa.Column('generated_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('note') as batch:
        batch.drop_column('generated_by')

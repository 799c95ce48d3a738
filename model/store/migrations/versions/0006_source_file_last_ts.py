"""source_file.last_ts: the time of the last line read, for the lines after it that carry none

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: Union[str, None] = '0005'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('source_file') as batch:
        batch.add_column(sa.Column('last_ts', sa.Float(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('source_file') as batch:
        batch.drop_column('last_ts')

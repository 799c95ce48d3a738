"""session.imported_by: who brought the session into the store (user@host), for a team store

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: Union[str, None] = '0007'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('session') as batch:
        batch.add_column(sa.Column('imported_by', sa.Text(), nullable=False, server_default=''))
        batch.create_index('ix_session_imported_by', ['imported_by'])


def downgrade() -> None:
    with op.batch_alter_table('session') as batch:
        batch.drop_index('ix_session_imported_by')
        batch.drop_column('imported_by')

"""An index of each project's sessions by their last activity (the list filtered by a project, newest first)

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27
"""
from typing import Sequence, Union

from alembic import op

revision: str = '0022'
down_revision: Union[str, None] = '0021'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_index('ix_session_project_updated', 'session', ['project', 'updated_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_session_project_updated', table_name='session')

"""sdk mirror: entries agent SDKs write to the store as their session backend, and their summaries

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0004'
down_revision: Union[str, None] = '0003'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('mirror_entry',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sdk', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('project_key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('subpath', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('uuid', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('entry', sa.Text(), nullable=False),
    sa.Column('written', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_mirror_entry_key', 'mirror_entry', ['sdk', 'project_key', 'session_id', 'subpath', 'id'],
                    unique=False)
    op.create_index('ux_mirror_entry_uuid', 'mirror_entry', ['sdk', 'project_key', 'session_id', 'subpath', 'uuid'],
                    unique=True)
    op.create_table('mirror_summary',
    sa.Column('sdk', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('project_key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('written', sa.Float(), nullable=False),
    sa.Column('data', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('sdk', 'project_key', 'session_id')
    )


def downgrade() -> None:
    op.drop_table('mirror_summary')
    op.drop_index('ux_mirror_entry_uuid', table_name='mirror_entry')
    op.drop_index('ix_mirror_entry_key', table_name='mirror_entry')
    op.drop_table('mirror_entry')

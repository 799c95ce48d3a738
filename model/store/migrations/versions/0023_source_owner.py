"""Scan state is the importing member's own (#58): source.owner; on PostgreSQL it defaults to the login, and a
source is unique per owner, kind and location (two members may scan the same path on their own machines)

On a team store (`sessionscope team init`) a member reads and writes only their own scan state: where their files
lie and how far each was read (source_file, reached through its source). SQLite has one user: the column is there,
empty, and a source stays unique by kind and location (the model's constraint, which a single owner makes the same).

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = '0023'
down_revision: Union[str, None] = '0022'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # (plain ADD COLUMN: batch mode would copy the source table, which sessions and scan state refer to)
    op.add_column('source', sa.Column('owner', sa.Text(), nullable=False, server_default=''))
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("UPDATE source SET owner = current_user")  # the store's own login, which runs the migration
        op.execute("ALTER TABLE source ALTER COLUMN owner SET DEFAULT session_user")
        op.drop_constraint('source_kind_location_key', 'source', type_='unique')
        op.create_unique_constraint('source_owner_kind_location_key', 'source', ['owner', 'kind', 'location'])


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.drop_constraint('source_owner_kind_location_key', 'source', type_='unique')
        op.create_unique_constraint('source_kind_location_key', 'source', ['kind', 'location'])
    with op.batch_alter_table('source') as batch:
        batch.drop_column('owner')

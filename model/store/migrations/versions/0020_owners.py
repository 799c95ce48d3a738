"""Owners and sharing, for a team store's rules (#38): session.owner and .shared, owner on the tables a
session's rows are not joined through (the SDK mirror, live signals), project_share; on PostgreSQL the
owner defaults to the database login (session_user) and two functions tell a login what it may change

`sessionscope team init` (sessionscope.safety.team) turns the rules on with row-level security; until then every
login may do everything, as before. The functions are here, not there, because the readers ask them on
every PostgreSQL store (a session's `yours`).

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-27
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0020'
down_revision: Union[str, None] = '0019'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

OWNED = ('session', 'mirror_entry', 'mirror_summary', 'live_signal')

# written out rather than imported: a migration keeps meaning what it meant when it was written
FUNCTIONS = """
CREATE OR REPLACE FUNCTION sessionscope_is_admin() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM pg_roles r
                 WHERE r.rolname = 'sessionscope_admin' AND pg_has_role(session_user, r.oid, 'MEMBER'))
$$;
CREATE OR REPLACE FUNCTION sessionscope_rules_on() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT relrowsecurity FROM pg_class WHERE oid = 'session'::regclass
$$;
CREATE OR REPLACE FUNCTION sessionscope_may_change(row_owner text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT row_owner = session_user OR NOT sessionscope_rules_on() OR sessionscope_is_admin()
$$;
"""


def upgrade() -> None:
    pg = op.get_bind().dialect.name == 'postgresql'
    # (plain ADD COLUMN, which SQLite has: batch mode would copy the session table, which events refer to)
    for table in OWNED:
        op.add_column(table, sa.Column('owner', sa.Text(), nullable=False, server_default=''))
        if pg:  # rows from now on are the login's; those before are nobody's until `team init` gives them
            op.execute(f"ALTER TABLE {table} ALTER COLUMN owner SET DEFAULT session_user")
    op.add_column('session', sa.Column('shared', sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index('ix_session_owner', 'session', ['owner'])
    op.create_table('project_share',
                    sa.Column('owner', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
                    sa.Column('project', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
                    sa.Column('shared_at', sa.Float(), nullable=False),
                    sa.PrimaryKeyConstraint('owner', 'project'))
    if pg:
        op.execute(FUNCTIONS)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        for f in ('sessionscope_may_change(text)', 'sessionscope_rules_on()', 'sessionscope_is_admin()'):
            op.execute(f"DROP FUNCTION IF EXISTS {f}")
    op.drop_table('project_share')
    with op.batch_alter_table('session') as batch:
        batch.drop_index('ix_session_owner')
        batch.drop_column('shared')
    for table in OWNED:
        with op.batch_alter_table(table) as batch:
            batch.drop_column('owner')

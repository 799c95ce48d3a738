"""opaque events indexed (partial): what the readers did not understand, listed by tool and version (#36 drift)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = '0015'
down_revision: Union[str, None] = '0014'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

WHERE = sa.text("kind = 'opaque'")


def upgrade() -> None:
    op.create_index('ix_event_opaque', 'event', ['session_id'], sqlite_where=WHERE, postgresql_where=WHERE)


def downgrade() -> None:
    op.drop_index('ix_event_opaque', table_name='event')

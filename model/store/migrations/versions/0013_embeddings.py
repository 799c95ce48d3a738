"""embeddings: the vectors of search by meaning (#34), one a text of an event or a note

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0013'
down_revision: Union[str, None] = '0012'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'embedding',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('session_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('event_pk', sa.Integer(), nullable=True),
        sa.Column('note_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('vector', sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sqlite_autoincrement=True,  # ids never used again: sessionscope.recall.semantic.Index reads on from the newest
    )
    op.create_index(op.f('ix_embedding_session_id'), 'embedding', ['session_id'], unique=False)
    op.create_index(op.f('ix_embedding_event_pk'), 'embedding', ['event_pk'], unique=False)
    op.create_index(op.f('ix_embedding_note_id'), 'embedding', ['note_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_embedding_note_id'), table_name='embedding')
    op.drop_index(op.f('ix_embedding_event_pk'), table_name='embedding')
    op.drop_index(op.f('ix_embedding_session_id'), table_name='embedding')
    op.drop_table('embedding')

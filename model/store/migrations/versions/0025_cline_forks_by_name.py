"""Roo Code and Kilo Code named as themselves: the sources of their task folders, read as Cline's until now, and
of Kilo's OpenCode-format database, read as OpenCode's, take their own kinds

A source's kind is its tool's (sessionscope.sources.of): the sessions under it are listed, filtered and described
as that tool's from now on. Only the sources whose place says which fork they are change (the extension's folder,
`kilo.db`, a `kilo/storage` tree); a folder imported by hand above several tools' keeps its sessions as they were.
The sessions' ids are unchanged (the same readers make them), so nothing is read again.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-29
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = '0025'
down_revision: Union[str, None] = '0024'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# (the kind read before, the fork's kind, what its location holds: LIKE patterns on the lower-cased location, its
# backslashes made slashes)
_FORKS = (
    ('cline', 'roo_code', ('%rooveterinaryinc.roo-cline%',)),
    ('cline', 'kilo_code', ('%kilocode.kilo-code%',)),
    ('opencode', 'kilo_code', ('%kilo.db', '%/kilo', '%/kilo/storage%')),
)


def upgrade() -> None:
    bind = op.get_bind()
    for before, after, patterns in _FORKS:
        where = " OR ".join(f"lower(replace(location, '\\', '/')) LIKE :p{i}" for i in range(len(patterns)))
        bind.execute(sa.text(f"UPDATE source SET kind = :after WHERE kind = :before AND ({where})"),
                     {"before": before, "after": after} | {f"p{i}": p for i, p in enumerate(patterns)})


def downgrade() -> None:
    bind = op.get_bind()
    bind.execute(sa.text("UPDATE source SET kind = 'cline' WHERE kind = 'roo_code'"))
    bind.execute(sa.text("UPDATE source SET kind = 'cline' WHERE kind = 'kilo_code' AND lower(location) LIKE "
                         "'%kilocode.kilo-code%'"))
    bind.execute(sa.text("UPDATE source SET kind = 'opencode' WHERE kind = 'kilo_code'"))

"""Alembic environment: the store hands over its open connection.

`sessionscope.store.migrating.migrate` runs migrations inside its own write transaction, so two
processes opening a fresh store at once cannot both create the tables.
"""

from alembic import context

from sessionscope.store.migrating import include_name, include_object
from sessionscope.store.schema import SQLModel

target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    connection = context.config.attributes["connection"]
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        include_name=include_name,
        include_object=include_object,
        render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies tables
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("Sessionscope migrations run online only, through sessionscope.store.migrating.migrate")
run_migrations_online()

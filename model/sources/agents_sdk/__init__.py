"""OpenAI Agents SDK session databases (SQLiteSession files, SQLAlchemySession databases on a server), read only.

importer  the database's rows → store events, incrementally (rows past the last id)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.agents_sdk.importer import (  # noqa: F401
    KIND,
    claims,
    claims_server,
    default_roots,
    import_paths,
    import_server,
    session_key,
)

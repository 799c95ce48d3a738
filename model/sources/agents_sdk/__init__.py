"""OpenAI Agents SDK session databases (SQLiteSession), read only.

importer  the database's rows → store events, incrementally (rows past the last id)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from .importer import KIND, claims, default_roots, import_paths, session_key  # noqa: F401

"""Devin CLI (Cognition's terminal agent), read only: its `sessions.db`.

importer  sessions and their message tree → sessions
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.devin.importer import KIND, claims, default_roots, import_paths, session_files  # noqa: F401

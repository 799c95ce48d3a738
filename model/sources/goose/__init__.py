"""Goose (Block): `sessions.db` (and the one-JSONL-file-a-session layout of older releases), read only.

importer  sessions and their messages → sessions
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.goose.importer import KIND, claims, default_roots, import_paths, session_files  # noqa: F401

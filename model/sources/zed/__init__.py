"""Zed's agent threads (`threads.db`), read only.

importer  each thread (zstd-compressed JSON) → one session, read again when the database changes
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.zed.importer import KIND, claims, default_roots, import_paths, session_files  # noqa: F401

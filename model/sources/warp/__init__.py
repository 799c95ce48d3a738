"""Warp's agent mode: the terminal's `warp.sqlite`, read only.

importer  agent conversations and their exchanges → sessions
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.warp.importer import KIND, claims, default_roots, import_paths, session_files  # noqa: F401

"""Kiro CLI conversations (and Amazon Q Developer CLI's): `data.sqlite3` in the CLI's data folder, one JSON value a
conversation.

importer  a conversation's history → events (prompts, replies, tool uses paired with their results), its folder
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.kiro.importer import KIND, claims, default_roots, import_paths, session_files, sniff  # noqa: F401

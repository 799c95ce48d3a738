"""Cursor: the editor's chats and agent (composer) history in its SQLite state databases, and the Cursor
agent CLI's transcripts, read only.

state     the three generations of the editor's chat storage (state.vscdb) → sessions
importer  finding them, recognising them, reading each kind of file
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.cursor.importer import KIND, claims, default_roots, import_paths, session_files, sniff  # noqa: F401

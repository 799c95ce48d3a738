"""Gemini CLI chats (`~/.gemini/tmp/<project>/chats/`, `.jsonl` and legacy `.json`).

importer  finds and imports chats (appended bytes; a rewritten legacy file read again whole)
lines     chat records → store events: messages, thoughts, tool calls and results, rewinds
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.gemini.importer import KIND, default_roots, import_paths, session_files  # noqa: F401
from sessionscope.sources.gemini.lines import sniff  # noqa: F401

"""Aider chat histories (`.aider.chat.history.md`), read only.

importer  the Markdown history → one session per `# aider chat started at`, read again whole when it changes
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.aider.importer import KIND, claims, default_roots, import_paths, session_files  # noqa: F401

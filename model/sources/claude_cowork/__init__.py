"""Claude Cowork (Claude Desktop's local agent mode), read only: Claude Code's transcripts (sessionscope.sources.
claude_code reads them) under the desktop app's `local-agent-mode-sessions`, each beside the session's metadata.

importer  where Claude Desktop keeps them, their import by Claude Code's reader, and their titles
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.claude_cowork.importer import KIND, default_roots, import_paths  # noqa: F401

"""Qoder (Alibaba's agentic IDE and its CLI), read only: Claude Code's transcripts (sessionscope.sources.claude_code
reads them) with Qoder's own `<id>-session.json` beside each.

importer  where Qoder keeps them, their import by Claude Code's reader, and their titles
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.qoder.importer import KIND, default_roots, import_paths  # noqa: F401

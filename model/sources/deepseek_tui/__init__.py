"""DeepSeek's terminal agent (DeepSeek TUI, formerly CodeWhale), read only: one JSON file a session.

importer  `~/.deepseek/sessions/*.json` → sessions
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.deepseek_tui.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

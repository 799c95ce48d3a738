"""Mistral Vibe sessions (`~/.vibe/logs/session/<session>/messages.jsonl` with `meta.json` beside it).

importer  the folder's messages and meta → events (prompts, replies with tool calls, results), the session's totals
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.mistral_vibe.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

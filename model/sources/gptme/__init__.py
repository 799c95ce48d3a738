"""gptme conversations (`~/.local/share/gptme/logs/<date>-<name>/conversation.jsonl`), read as they are appended.

importer  lines → events (prompts, replies with their usage and cost, tool output)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.gptme.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

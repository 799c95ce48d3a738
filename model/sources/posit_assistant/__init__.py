"""Posit Assistant conversations in Positron (`~/.posit/assistant/workspaces/<ws>/<conversation>/conversation.json`
with `lm-messages.jsonl` beside it; subagents under `subagents/<id>/`).

importer  the tree and its model messages → events (every branch kept, the active one the head), subagents as runs
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.posit_assistant.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

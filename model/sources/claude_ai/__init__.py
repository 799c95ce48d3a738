"""claude.ai's data export (`conversations.json`, or the export's zip), read only.

importer  each conversation → one session (its edits and retries as branches where the export says)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.claude_ai.importer import KIND, claims, default_roots, import_paths, sniff  # noqa: F401

"""ChatGPT's data export (`conversations.json`, or the export's zip), read only.

importer  each conversation → one session, its message tree kept as a branch tree
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.chatgpt.importer import KIND, claims, default_roots, import_paths, sniff  # noqa: F401

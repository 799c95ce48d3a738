"""Kimi CLI (`~/.kimi/sessions/<md5 of folder>/<id>/wire.jsonl`) and Kimi Code (`~/.kimi-code/sessions/…`),
read as they are appended.

importer  the UI's event stream → events (prompts, thinking, replies, calls, results, tokens)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.kimi.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

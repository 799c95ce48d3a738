"""Hermes Agent sessions (`~/.hermes/sessions/<id>.json`), one JSON document a session, rewritten whole.

importer  the document → events (OpenAI chat shape: prompts, reasoning, replies with tool calls, results)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.hermes.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

"""Grok Build sessions (`~/.grok/sessions/<url-encoded cwd>/<session id>/chat_history.jsonl`, with the
`summary.json` Grok keeps beside it), read as they are appended.

importer  lines → events (prompts, reasoning summaries, replies with tool calls, results, server-side tools)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.grok.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

"""Amp (Sourcegraph's agent CLI): `~/.local/share/amp/threads/T-<uuid>.json`, read only.

importer  a thread file → one session, read again whole when Amp saves it
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.amp.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

"""Continue (continue.dev): `~/.continue/sessions/<sessionId>.json`, read only.

importer  a session file → one session, read again whole when Continue rewrites it
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.continue_dev.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

"""OpenCode (the TypeScript one, sst/opencode): its storage tree of JSON files, or the `opencode.db` newer
versions keep instead, read only.

importer  a session with its messages and their parts → one session, a sub-agent's session nested
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.opencode.importer import KIND, claims, default_roots, import_paths, kind_for, sniff  # noqa: F401

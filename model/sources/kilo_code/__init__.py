"""Kilo Code, read only: the editor extension's task folders (Cline's files, read by sessionscope.sources.cline)
and, since Kilo rebuilt itself on OpenCode, the CLI's and the new extension's `kilo.db` (OpenCode's tables, read
by sessionscope.sources.opencode).

importer  where Kilo Code keeps its sessions, and their import by the reader of each format
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.kilo_code.importer import KIND, default_roots, import_paths  # noqa: F401

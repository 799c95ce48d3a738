"""Cline task folders (and Roo Code's, Kilo's: the same files), read only.

importer  a task folder's JSON files → one session, read again whole when they change
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.cline.importer import (  # noqa: F401
    KIND,
    default_roots,
    import_paths,
    kind_for,
    session_files,
    session_key,
    sniff,
)

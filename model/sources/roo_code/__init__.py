"""Roo Code task folders, read only: Cline's files (sessionscope.sources.cline reads them) in Roo Code's own
extension folder, with its `history_item.json` beside them.

importer  the task folders Roo Code keeps, and their import
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.roo_code.importer import KIND, default_roots, import_paths  # noqa: F401

"""OpenHands trajectories and evaluation/resolver outputs, read only.

importer  a trajectory (or each output line) → one session, read again whole when it changes
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.openhands.importer import KIND, default_roots, import_paths, session_files, session_key, sniff  # noqa: F401

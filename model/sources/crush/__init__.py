"""Crush (Charm) and the Go OpenCode it grew from: the project's `.crush/crush.db` / `.opencode/opencode.db`,
read only.

importer  sessions and messages → sessions, a sub-agent's session nested under the call that started it
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.crush.importer import KIND, claims, default_roots, import_paths, session_files  # noqa: F401

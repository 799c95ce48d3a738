"""QwenPaw sessions (`~/.qwenpaw/workspaces/<agent>/sessions/[<channel>/]<user>_<id>.json`, AgentScope's saved
agent memory).

importer  the memory's messages → events (prompts, thinking, replies, tool uses paired with their results)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.qwenpaw.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

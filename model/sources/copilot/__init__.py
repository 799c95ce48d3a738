"""GitHub Copilot: VS Code's Copilot Chat sessions, the Copilot CLI's session logs and Visual Studio's
Copilot traces, read only.

chat      VS Code's chat sessions (`chatSessions/*.json`, and the `.jsonl` patch log newer builds write)
cli       the Copilot CLI's event logs (`~/.copilot/session-state/`), read as they are appended
traces    Visual Studio's OpenTelemetry traces, one session per conversation
importer  finding and recognising them
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.copilot.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

"""pi (the pi coding agent) and OpenClaw, which writes pi's format: one appended JSONL file a session, entries in a
tree by `parentId` (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`, `~/.openclaw/agents/<agent>/sessions/`).

importer  entries → events, the tree by parentId (a rewound branch stays), compactions, model changes, usage
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.pi.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

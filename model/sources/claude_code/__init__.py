"""Claude Code and the Claude Agent SDK: transcripts found, imported, acted on, checkpoints kept.

importer  finds `~/.claude/projects` and imports transcripts incrementally
lines     one transcript line → store events (and the facts it carries)
actions   fork, rewind, rename, tag, resume, restore, through claude-agent-sdk where it can
fork      the lines of a fork that ends where the user clicked
checkpoints  Claude Code's file checkpoints: kept backups, "the files at a prompt", restore plans
mirror    the lines the Claude Agent SDK mirrored into the store, shown as events behind it
reader    the reading half of an import, in a process of its own for a big one
writer    Claude Code's own transcript format, written from any session (the "claude" export)
source    the operations above as every source offers them (sessionscope.sources.base), registered in
          model/sources/__init__.py
"""


from sessionscope.sources.claude_code.places import kind_for  # noqa: F401 (light: importing.classify asks it)

_IMPORTER_NAMES = frozenset({"KIND", "ImportReport", "default_roots", "file_problems", "import_paths", "session_files"})


def __getattr__(name: str):
    # the importer (and the store under it) loads on first use: the reader process of a big import
    # (reader.py) imports this package for its converter only
    if name in _IMPORTER_NAMES:
        from sessionscope.sources.claude_code import importer

        return getattr(importer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

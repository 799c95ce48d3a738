"""JetBrains Junie sessions (`~/.junie/sessions/<session>/events.jsonl`, `index.jsonl` beside the session folders).

importer  the event stream → events (prompts, reasoning, commands, file changes, answers, each model call's tokens)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.junie.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

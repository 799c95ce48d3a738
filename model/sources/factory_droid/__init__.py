"""Factory's Droid sessions: the session store (`~/.factory/sessions/**/*.jsonl`, appended) and the stream a
`droid exec --output-format stream-json` run prints, saved to a file and imported.

importer  lines → events: Claude-like content blocks in a parentId tree (the store), flat events (the stream)
source    `droid --resume ID`; the operations every source offers (registered in model/sources/__init__.py)
"""

from sessionscope.sources.factory_droid.importer import KIND, default_roots, import_paths, session_files, sniff  # noqa: F401

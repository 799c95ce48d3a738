"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

importer  finds and imports rollouts incrementally
lines     one rollout line → store events (and the facts it carries)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.codex.importer import (  # noqa: F401
    KIND,
    default_roots,
    import_paths,
    is_rollout,
    kind_for,
    session_files,
)
from sessionscope.sources.codex.lines import sniff  # noqa: F401

"""TRAE CLI 2.0 (`traex`), read only: a fork of Codex CLI that writes Codex's rollouts (sessionscope.sources.codex
reads them) under `~/.trae/cli/`.

importer  where TraeX keeps its rollouts, and their import by Codex's reader
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.traex.importer import KIND, default_roots, import_paths  # noqa: F401

"""TraeX (TRAE CLI 2.0), read only. ByteDance's TRAE CLI is a fork of codex-rs and writes Codex's rollout JSONL
byte for byte (`session_meta`, `response_item`, `event_msg`; its `model_provider` "trae"), in the same dated tree
under `~/.trae/cli/sessions/` (`archived_sessions/` once archived). Codex's reader reads them; a rollout is
TraeX's by where it lies (codex.importer.kind_for), so this package has no `sniff` of its own."""

from __future__ import annotations

import os
from pathlib import Path

from sessionscope.sources.codex.importer import _import_file, session_files, stands_alone
from sessionscope.sources.scan import importer

KIND = "traex"


def default_roots() -> list[Path]:
    """`~/.trae/cli/sessions` and `archived_sessions` (`TRAEX_HOME` instead of `~/.trae/cli`), on every system."""
    home = Path(os.environ.get("TRAEX_HOME") or Path.home() / ".trae" / "cli").expanduser()
    return [d for d in (home / "sessions", home / "archived_sessions") if d.is_dir()]


import_paths = importer(KIND, session_files, _import_file, "TraeX rollouts", stands_alone)

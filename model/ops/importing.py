"""An import the user asked for (File ▸ Import, Rescan; `sessionscope import`, `scan`): always one audit entry, with
what was asked and what it did, even when there was nothing new to read. (The watcher's passes every few seconds
record an entry only when they read something: sessionscope.sources.scan.ImportReport.finish.)"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from sessionscope.history.read_models import Action
from sessionscope.safety import audit
from sessionscope.sources import importing, scan

if TYPE_CHECKING:
    from sessionscope.store.api import Store

PATHS_SAID = 20  # the places an entry names; the rest are counted


def import_paths(store: Store, paths: Iterable[str | os.PathLike[str]], *,
                 progress: Callable[[int, int, str], None] | None = None, cancel: threading.Event | None = None,
                 warm: bool = True,
                 watcher: bool = False, actor: str | None = None, read_ahead: bool = True) -> scan.ImportReport:
    """Import what `paths` hold, each file by its tool (sessionscope.sources.importing.import_paths), recorded once
    for the whole import: the tools' own entries give way to it. A `watcher`'s pass (the window's every few
    seconds, `status`'s look before it answers) is recorded by each tool that read something, and only then.
    Without `read_ahead`, big imports read in this process too (the window's: claude_code.reader.in_this_process)."""
    if not read_ahead:
        from sessionscope.sources.claude_code.reader import in_this_process
        with in_this_process():
            return import_paths(store, paths, progress=progress, cancel=cancel, warm=warm, watcher=watcher, actor=actor)
    paths = [str(p) for p in paths]
    if watcher:
        with audit.acting_as(actor):
            return importing.import_paths(store, paths, progress=progress, cancel=cancel, warm=warm)
    asked = {"paths": paths[:PATHS_SAID]} | ({"more_paths": len(paths) - PATHS_SAID} if len(paths) > PATHS_SAID else {})
    with audit.acting_as(actor):
        try:
            with scan.recorded_by_caller():
                report = importing.import_paths(store, paths, progress=progress, cancel=cancel, warm=warm)
        except Exception as exc:
            audit.failed(store, Action.IMPORT, exc, detail=asked)
            raise
        entry = {k: v for k, v in report.as_dict().items() if k not in ("sessions", "problems")}
        audit.audited(store, Action.IMPORT, outcome="cancelled" if report.cancelled else "ok",
                      detail=asked | entry | {"problems": len(report.problems)})
    return report


def catch_up_words(store: Store, *, pause: Callable[[], None] | None = None) -> int:
    """The words `*part*` and typo searches ask, brought up to what an import added (Store.catch_up_words): upkeep
    of the search index's vocabulary, as an import keeps its text index, so no audit entry of its own."""
    return store.catch_up_words(pause=pause)

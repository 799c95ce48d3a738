"""Factory Droid's operations (sessionscope.sources.base.ToolSource): `droid --resume <id>` in the session's folder
resumes a stored session; fork and rewind are the store's own (Droid's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.factory_droid.importer import KIND


class FactoryDroidSource(ToolSource):
    kind = KIND
    label = "Factory Droid"
    badge = ("Droid", "#b45309")  # the session list's short name and colour
    package = "sessionscope.sources.factory_droid"
    resume_args = ("droid", "--resume")
    resumes_only = ("droid_kind", "store", "a saved `droid exec` stream is a run's output, not a session Droid keeps")


SOURCE = FactoryDroidSource()

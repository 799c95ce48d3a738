"""Continue's operations (sessionscope.sources.base.ToolSource): a session is reopened from Continue's own
history view in the editor (no command names one); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.continue_dev.importer import KIND


class ContinueSource(ToolSource):
    kind = KIND
    label = "Continue"
    badge = ("Continue", "#1a7f64")  # the session list's short name and colour
    package = "sessionscope.sources.continue_dev"


SOURCE = ContinueSource()

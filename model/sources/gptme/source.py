"""gptme's operations (sessionscope.sources.base.ToolSource): a conversation is reopened from gptme's own picker
(`gptme -r`; no command here takes its id); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.gptme.importer import KIND


class GptmeSource(ToolSource):
    kind = KIND
    label = "gptme"
    badge = ("gptme", "#0e7490")  # the session list's short name and colour
    package = "sessionscope.sources.gptme"


SOURCE = GptmeSource()

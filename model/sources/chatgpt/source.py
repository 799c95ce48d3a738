"""ChatGPT export's operations (sessionscope.sources.base.ToolSource): an exported conversation is a record
(chatgpt.com opens it by its id, not a command); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.chatgpt.importer import KIND


class ChatGPTSource(ToolSource):
    kind = KIND
    label = "ChatGPT"
    badge = ("ChatGPT", "#0f7b5f")  # the session list's short name and colour
    package = "sessionscope.sources.chatgpt"


SOURCE = ChatGPTSource()

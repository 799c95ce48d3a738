"""Google Antigravity conversations (the IDE's and the CLI's `brain/<id>/.system_generated/logs/transcript*.jsonl`
step logs; the `conversations/<id>.db` trajectory database where no step log is beside it).

importer  steps → events (prompts, replies with reasoning, tool calls paired with the tool's output by position)
source    the operations every source offers, registered in model/sources/__init__.py
"""

from sessionscope.sources.antigravity.importer import KIND, claims, default_roots, import_paths, session_files, sniff  # noqa: F401

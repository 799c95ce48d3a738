"""OpenAI hosted agent sessions (`client.beta.agents.sessions` in the `openai` package), pulled through the
API like Anthropic's managed agents: there is no file on this machine, the project is the source.

client    the API client for a project (key from the environment or the system keyring), API errors as ours
items     one API item (a message, a call, its output, a subagent call) → store events
importer  a project's sessions, their items, turns and subagents, incrementally
describe  the Session tab's section, the list's tooltip
source    delete, send a message, cancel the turn: through the API (registered in sources/__init__.py)
"""

from sessionscope.sources.openai_hosted.client import DEFAULT_BASE_URL, KIND, connect, location_of  # noqa: F401
from sessionscope.sources.openai_hosted.importer import sync  # noqa: F401

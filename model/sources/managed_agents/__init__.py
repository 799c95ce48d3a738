"""Anthropic managed-agent sessions (`client.beta.sessions` in the `anthropic` package), pulled through
the API: there is no file on this machine, the workspace is the source.

client    the API client for a workspace (key from the environment or the system keyring), API errors
          as our errors
events    one API event → one store event
importer  a workspace's sessions and their event streams, incrementally
source    archive, delete, send a message, interrupt: through the API (registered in sources/__init__.py)
"""

from sessionscope.sources.managed_agents.client import DEFAULT_BASE_URL, KIND, connect, location_of  # noqa: F401
from sessionscope.sources.managed_agents.importer import sync  # noqa: F401

"""The API client for one OpenAI project, and what its errors mean to a user.

A project is a source row (kind `openai_hosted`) whose location is the API's base URL, with `#<project id>`
when the key reaches several projects (sent as the client's `project`, the `OpenAI-Project` header). The key
is never stored by Sessionscope: `OPENAI_API_KEY`, or the system keyring (remote.api_key).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from sessionscope.errors import MissingExtra, Refused
from sessionscope.sources import remote

KIND = "openai_hosted"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
ENV_KEY = "OPENAI_API_KEY"


def location_of(base_url: str | None = None, project: str | None = None) -> str:
    """The source location of a project: the base URL (no trailing slash), `#project` if given."""
    return remote.http_location(base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL, project)


def connect(location: str, *, max_retries: int = 2, timeout: float = 30.0,
            notify: Callable[[str], None] | None = None):
    """An `openai.OpenAI` client for the project, bounded as remote.bounded_client says."""
    try:
        import openai
    except ImportError:
        raise MissingExtra("OpenAI hosted agent sessions", "managed", "openai") from None
    key = remote.api_key(ENV_KEY, location)
    if not key:
        raise Refused(f"no OpenAI API key for {location}: set {ENV_KEY}, or add the key in Settings "
                      "(kept in the system keyring)")
    base, project = remote.split_location(location)
    return remote.bounded_client(openai.OpenAI, base, timeout=timeout, notify=notify, api_key=key, project=project,
                                 organization=None, max_retries=max_retries)


def api_errors(what: str):
    """The API's errors as one line each (remote.api_errors)."""
    import openai
    return remote.api_errors(openai, what, ENV_KEY)

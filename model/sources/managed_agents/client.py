"""The API client for one workspace, and what its errors mean to a user.

A workspace is a source row (kind `managed_agents`) whose location is the API's base URL, with
`#<workspace id>` when a key reaches several workspaces. The API key is never stored by Sessionscope:
it comes from `ANTHROPIC_API_KEY`, or from the system keyring (service `sessionscope`, the location
as user name), where Settings puts it. What every API source shares is sessionscope.sources.remote.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from sessionscope.errors import MissingExtra, Refused
from sessionscope.sources import remote
from sessionscope.sources.remote import ApiUnavailable, set_api_key, split_location  # noqa: F401 (this source's API)

KIND = "managed_agents"
DEFAULT_BASE_URL = "https://api.anthropic.com"
ENV_KEY = "ANTHROPIC_API_KEY"


def location_of(base_url: str | None = None, workspace: str | None = None) -> str:
    """The source location of a workspace: the base URL (no trailing slash), `#workspace` if given."""
    return remote.http_location(base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL, workspace)


def api_key(location: str) -> str | None:
    return remote.api_key(ENV_KEY, location)


def key_origin(location: str) -> str:
    return remote.key_origin(ENV_KEY, location)


def connect(location: str, *, max_retries: int = 2, timeout: float = 30.0,
            notify: Callable[[str], None] | None = None, streaming: bool = False,
            stopped: Callable[[], bool] = lambda: False):
    """An `anthropic.Anthropic` client for the workspace, bounded as remote.bounded_client says (`streaming`: for
    following one event stream, as remote.stream_client says, ended by `stopped`)."""
    try:
        import anthropic
    except ImportError:
        raise MissingExtra("Anthropic managed-agent sessions", "managed", "anthropic") from None
    key = api_key(location)
    if not key:
        raise Refused(f"no Anthropic API key for {location}: set {ENV_KEY}, or add the key in Settings "
                      "(kept in the system keyring)")
    base, workspace = split_location(location)
    headers = {"anthropic-workspace-id": workspace} if workspace else None
    if streaming:
        return remote.stream_client(anthropic.Anthropic, base, stopped, api_key=key, default_headers=headers)
    return remote.bounded_client(anthropic.Anthropic, base, timeout=timeout, notify=notify, api_key=key,
                                 default_headers=headers, max_retries=max_retries)


def api_errors(what: str):
    """The API's errors as one line each (remote.api_errors)."""
    import anthropic
    return remote.api_errors(anthropic, what, ENV_KEY)

"""The API client for one workspace, and what its errors mean to a user.

A workspace is a source row (kind `managed_agents`) whose location is the API's base URL, with
`#<workspace id>` when a key reaches several workspaces. The API key is never stored by Sessionscope:
it comes from `ANTHROPIC_API_KEY`, or from the system keyring (service `sessionscope`, the location
as user name), where Settings puts it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ...errors import InvalidInput, MissingExtra, Refused, SessionscopeError

KIND = "managed_agents"
DEFAULT_BASE_URL = "https://api.anthropic.com"
KEYRING_SERVICE = "sessionscope"
ENV_KEY = "ANTHROPIC_API_KEY"


class ApiUnavailable(SessionscopeError):
    """The API could not be reached, or kept failing after the client's retries."""


def location_of(base_url: str | None = None, workspace: str | None = None) -> str:
    """The source location of a workspace: the base URL (no trailing slash), `#workspace` if given."""
    base = (base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise InvalidInput(f"{base!r} is not an http(s) URL")
    return f"{base}#{workspace}" if workspace else base


def split_location(location: str) -> tuple[str, str | None]:
    base, _, workspace = location.partition("#")
    return base, workspace or None


def _keyring():
    try:
        import keyring
    except ImportError:
        raise MissingExtra("Keeping an API key in the system keyring", "managed", "keyring") from None
    return keyring


def api_key(location: str) -> str | None:
    """The key for a workspace: the environment's, else the keyring's; None when neither has one."""
    key = os.environ.get(ENV_KEY)
    if key:
        return key
    try:
        return _keyring().get_password(KEYRING_SERVICE, location)
    except MissingExtra:
        return None
    except Exception:  # no keyring backend on this machine (a headless box): no key, not a crash
        return None


def key_origin(location: str) -> str:
    """Where the key would come from, in words for Settings and errors."""
    if os.environ.get(ENV_KEY):
        return f"the environment ({ENV_KEY})"
    return "the system keyring" if api_key(location) else "nowhere (no key set)"


def set_api_key(location: str, key: str | None) -> None:
    """Keep (or, with None, forget) a workspace's key in the system keyring."""
    keyring = _keyring()
    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, location, key)
        else:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(KEYRING_SERVICE, location)
    except keyring.errors.KeyringError as exc:
        raise Refused(f"the system keyring refused the key: {exc}") from None


def connect(location: str, *, max_retries: int = 2, timeout: float = 30.0):
    """An `anthropic.Anthropic` client for the workspace (the package's own retries: 429 honouring
    retry-after, 5xx and connection errors, `max_retries` times)."""
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
    return anthropic.Anthropic(api_key=key, base_url=base, default_headers=headers, max_retries=max_retries,
                               timeout=timeout)


@contextlib.contextmanager
def api_errors(what: str) -> Iterator[None]:
    """The API's refusals as Refused (with the API's own reason), the rest as ApiUnavailable."""
    import anthropic
    try:
        yield
    except anthropic.APIStatusError as exc:
        reason = _reason(exc)
        if exc.status_code in (400, 403, 404, 409, 422):
            raise Refused(f"the API refused to {what}: {reason}") from None
        if exc.status_code == 401:
            raise Refused(f"the API refused the key ({reason}): check it in Settings or {ENV_KEY}") from None
        raise ApiUnavailable(f"could not {what}: HTTP {exc.status_code}, {reason}") from None
    except anthropic.APIConnectionError as exc:
        raise ApiUnavailable(f"could not {what}: {exc}") from None


def _reason(exc) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error") if isinstance(body.get("error"), dict) else body
    return str(err.get("message") or exc.message)

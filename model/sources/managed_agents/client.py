"""The API client for one workspace, and what its errors mean to a user.

A workspace is a source row (kind `managed_agents`) whose location is the API's base URL, with
`#<workspace id>` when a key reaches several workspaces. The API key is never stored by Sessionscope:
it comes from `ANTHROPIC_API_KEY`, or from the system keyring (service `sessionscope`, the location
as user name), where Settings puts it.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable, Iterator

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


# A server is untrusted too: what it may cost a pull is bounded.
MAX_WAIT_S = 60.0  # the longest wait before a retry, whatever retry-after asks (999999 s once slept 11 days)
MAX_RESPONSE_BYTES = 64 << 20  # one response, inflated (a 1 MB gzip body can inflate to 1 GiB)
RESPONSE_DEADLINE_S = 120.0  # to send one response's body (a byte a second would keep a pull forever)


class ResponseRefused(Exception):
    """A response over the size or time a pull allows; raised while its body is read."""


def _bounded_body(response) -> None:
    """Read a JSON response's body here, inflated as it comes, no more than MAX_RESPONSE_BYTES and within
    RESPONSE_DEADLINE_S (an httpx response hook: the client then finds the body read). A stream of events
    (text/event-stream) is left to its reader."""
    if "event-stream" in response.headers.get("content-type", ""):
        return
    started, total, chunks = time.monotonic(), 0, []
    for chunk in response.iter_bytes():
        total += len(chunk)
        if total > MAX_RESPONSE_BYTES:
            raise ResponseRefused(f"the server sent over {MAX_RESPONSE_BYTES >> 20} MB in one response "
                                  f"({response.request.url.path}): not read")
        if time.monotonic() - started > RESPONSE_DEADLINE_S:
            raise ResponseRefused(f"the server took over {RESPONSE_DEADLINE_S:.0f} s to send one response "
                                  f"({response.request.url.path}): given up")
        chunks.append(chunk)
    response._content = b"".join(chunks)  # what httpx's own read() keeps: the client reads it from there


def connect(location: str, *, max_retries: int = 2, timeout: float = 30.0,
            notify: Callable[[str], None] | None = None):
    """An `anthropic.Anthropic` client for the workspace (the package's own retries: 429 honouring
    retry-after up to MAX_WAIT_S, 5xx and connection errors, `max_retries` times; each wait is said to
    `notify`), whose responses are read within MAX_RESPONSE_BYTES and RESPONSE_DEADLINE_S."""
    try:
        import anthropic
        import httpx2
    except ImportError:
        raise MissingExtra("Anthropic managed-agent sessions", "managed", "anthropic") from None
    key = api_key(location)
    if not key:
        raise Refused(f"no Anthropic API key for {location}: set {ENV_KEY}, or add the key in Settings "
                      "(kept in the system keyring)")
    base, workspace = split_location(location)
    headers = {"anthropic-workspace-id": workspace} if workspace else None

    class Bounded(anthropic.Anthropic):
        def _calculate_retry_timeout(self, remaining_retries, options, response_headers=None):
            asked = super()._calculate_retry_timeout(remaining_retries, options, response_headers)
            wait = min(asked, MAX_WAIT_S)
            if notify is not None:
                why = f" (the server asked for {asked:,.0f} s; waits are capped at {MAX_WAIT_S:.0f} s)" \
                    if asked > wait else ""
                notify(f"{base} is busy or failing: asking again in {wait:.0f} s{why}")
            return wait

    http = httpx2.Client(timeout=httpx2.Timeout(timeout), follow_redirects=True,
                         event_hooks={"response": [_bounded_body]})
    return Bounded(api_key=key, base_url=base, default_headers=headers, max_retries=max_retries, timeout=timeout,
                   http_client=http)


@contextlib.contextmanager
def api_errors(what: str) -> Iterator[None]:
    """The API's refusals as Refused (with the API's own reason), the rest as ApiUnavailable: one line each,
    whatever the server sent (an HTML error page, a body that is not JSON, one too big or too slow)."""
    import anthropic
    try:
        with warnings.catch_warnings():  # the client's pydantic warnings about a server's odd values
            warnings.simplefilter("ignore")
            yield
    except anthropic.APIStatusError as exc:
        reason = _reason(exc)
        if exc.status_code in (400, 403, 404, 409, 422):
            raise Refused(f"the API refused to {what}: {reason}") from None
        if exc.status_code == 401:
            raise Refused(f"the API refused the key ({reason}): check it in Settings or {ENV_KEY}") from None
        raise ApiUnavailable(f"could not {what}: HTTP {exc.status_code}, {reason}") from None
    except anthropic.APIConnectionError as exc:
        cause = exc.__cause__
        raise ApiUnavailable(f"could not {what}: {cause if isinstance(cause, ResponseRefused) else exc}") from None
    except (anthropic.APIResponseValidationError, ValueError, TypeError, AttributeError) as exc:
        raise ApiUnavailable(f"could not {what}: the server answered with something that is not the API "
                             f"({type(exc).__name__})") from None


REASON_CHARS = 300  # of a server's error message: an HTML page of 5 KB says nothing more in its tail


def _reason(exc) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error") if isinstance(body.get("error"), dict) else body
    reason = " ".join(str(err.get("message") or exc.message).split())
    if not isinstance(exc.body, dict) and "<" in reason:
        reason = "the server answered with something that is not the API (" + reason[:80] + ")"
    return reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "…"

"""What every source behind an HTTP API shares (Anthropic's managed agents, OpenAI's hosted agent sessions):
the key (from the environment or the system keyring, never stored by Sessionscope), a client whose retries and
responses are bounded, the API's errors as one line a user can act on, and listings read page after page.

A server is untrusted like a transcript: what it may cost a pull is bounded (the wait a 429 asks for, the size
and time of one response, the number of pages of one listing), and whatever it sends back is said in one line.
Each vendor's package (`anthropic`, `openai`) has the same error classes and retry hook; `vendor` below is that
package.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable, Iterator

from sessionscope.errors import InvalidInput, MissingExtra, Refused, SessionscopeError
from sessionscope.safety.untrusted import shown

KEYRING_SERVICE = "sessionscope"
MAX_WAIT_S = 60.0  # the longest wait before a retry, whatever retry-after asks (999999 s once slept 11 days)
MAX_RESPONSE_BYTES = 64 << 20  # one response, inflated (a 1 MB gzip body can inflate to 1 GiB)
RESPONSE_DEADLINE_S = 120.0  # to send one response's body (a byte a second would keep a pull forever)
MAX_PAGES = 2_000  # of one listing (200,000 items): past it a server that never ends its pages is stopped
REASON_CHARS = 300  # of a server's error message: an HTML page of 5 KB says nothing more in its tail


class ApiUnavailable(SessionscopeError):
    """The API could not be reached, or kept failing after the client's retries."""


class ResponseRefused(Exception):
    """A response over the size or time a pull allows; raised while its body is read."""


def http_location(base: str, scope: str | None = None) -> str:
    """A source location: the API's base URL (no trailing slash), `#scope` (a workspace, a project) if given."""
    base = base.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise InvalidInput(f"{base!r} is not an http(s) URL")
    return f"{base}#{scope}" if scope else base


def split_location(location: str) -> tuple[str, str | None]:
    base, _, scope = location.partition("#")
    return base, scope or None


def _keyring():
    try:
        import keyring
    except ImportError:
        raise MissingExtra("Keeping an API key in the system keyring", "managed", "keyring") from None
    return keyring


def api_key(env: str, location: str) -> str | None:
    """The key for a location: the environment's (`env`), else the keyring's; None when neither has one."""
    key = os.environ.get(env)
    if key:
        return key
    try:
        return _keyring().get_password(KEYRING_SERVICE, location)
    except MissingExtra:
        return None
    except Exception:  # no keyring backend on this machine (a headless box): no key, not a crash
        return None


def key_origin(env: str, location: str) -> str:
    """Where the key would come from, in words for Settings and errors."""
    if os.environ.get(env):
        return f"the environment ({env})"
    return "the system keyring" if api_key(env, location) else "nowhere (no key set)"


def set_api_key(location: str, key: str | None) -> None:
    """Keep (or, with None, forget) a location's key in the system keyring."""
    keyring = _keyring()
    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, location, key)
        else:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(KEYRING_SERVICE, location)
    except keyring.errors.KeyringError as exc:
        raise Refused(f"the system keyring refused the key: {exc}") from None


def bounded_body(response, until: list[float | None] | None = None) -> None:
    """Read a response's body here, inflated as it comes, no more than MAX_RESPONSE_BYTES and within
    RESPONSE_DEADLINE_S (an httpx response hook: the client then finds the body read), whatever its label says: a
    body labelled text/event-stream was read whole and without a deadline (600 MB, 1.96 GB of memory; one a byte a
    second was still hanging at 170 s). No pull reads a stream of events. `until[0]`: the pull's own deadline
    (time.monotonic()), which holds during a call too, not only between sessions."""
    started, total, chunks = time.monotonic(), 0, []
    end = started + RESPONSE_DEADLINE_S
    pull_end = until[0] if until else None
    for chunk in response.iter_bytes():
        total += len(chunk)
        if total > MAX_RESPONSE_BYTES:
            raise ResponseRefused(f"the server sent over {MAX_RESPONSE_BYTES >> 20} MB in one response "
                                  f"({response.request.url.path}): not read")
        now = time.monotonic()
        if now > end:
            raise ResponseRefused(f"the server took over {RESPONSE_DEADLINE_S:.0f} s to send one response "
                                  f"({response.request.url.path}): given up")
        if pull_end is not None and now > pull_end:
            raise ResponseRefused(f"the pull's time ran out while the server sent one response "
                                  f"({response.request.url.path}): given up")
        chunks.append(chunk)
    response._content = b"".join(chunks)  # what httpx's own read() keeps: the client reads it from there


def set_deadline(client, at: float | None) -> None:
    """The pull's deadline (time.monotonic()) for every response `client` (a bounded_client) reads from now on."""
    box = getattr(client, "sessionscope_deadline", None)
    if box is not None:
        box[0] = at


def bounded_client(client_class, base: str, *, timeout: float, notify: Callable[[str], None] | None, **kw):
    """An instance of the vendor's client class with the package's own retries (429 honouring retry-after up to
    MAX_WAIT_S, 5xx and connection errors; each wait said to `notify`) and responses read by bounded_body."""
    import httpx2

    class Bounded(client_class):
        def _calculate_retry_timeout(self, remaining_retries, options, response_headers=None):
            wait = min(super()._calculate_retry_timeout(remaining_retries, options, response_headers), MAX_WAIT_S)
            asked = self._parse_retry_after_header(response_headers) or 0.0  # what the server asked for, if it did
            if notify is not None:
                why = f" (the server asked for {asked:,.0f} s; waits are capped at {MAX_WAIT_S:.0f} s)" \
                    if asked > wait else ""
                notify(f"{base} is busy or failing: asking again in {wait:.0f} s{why}")
            return wait

    until: list[float | None] = [None]  # the pull's deadline, once one sets it (set_deadline)
    http = httpx2.Client(timeout=httpx2.Timeout(timeout), follow_redirects=True,
                         event_hooks={"response": [lambda response: bounded_body(response, until)]})
    client = Bounded(base_url=base, timeout=timeout, http_client=http, **kw)
    client.sessionscope_deadline = until
    return client


MAX_STREAM_BYTES = 256 << 20  # one event stream followed, in all (a session's events are small; a flood is not)
STREAM_IDLE_S = 300.0  # the longest quiet between two pieces of a stream (an agent thinking long sends pings)


def stream_client(client_class, base: str, stopped: Callable[[], bool] = lambda: False, **kw):
    """An instance of the vendor's client class for following one event stream: the body is read as it comes (not
    whole, as bounded_client reads a pull's), at most MAX_STREAM_BYTES in all and never quiet for over STREAM_IDLE_S;
    it ends at the next piece that arrives once `stopped()` (a server's pings are pieces too)."""
    import httpx2

    def bounded(response) -> None:
        inner = response.stream

        class Counted(httpx2.SyncByteStream):
            def __iter__(self):
                total = 0
                for chunk in inner:
                    if stopped():
                        return
                    total += len(chunk)
                    if total > MAX_STREAM_BYTES:
                        raise ResponseRefused(f"the server sent over {MAX_STREAM_BYTES >> 20} MB on one event stream "
                                              f"({response.request.url.path}): not read further")
                    yield chunk

            def close(self):
                inner.close()
        response.stream = Counted()

    http = httpx2.Client(timeout=httpx2.Timeout(30.0, read=STREAM_IDLE_S), follow_redirects=True,
                         event_hooks={"response": [bounded]})
    return client_class(base_url=base, http_client=http, max_retries=0, **kw)


@contextlib.contextmanager
def api_errors(vendor, what: str, env: str) -> Iterator[None]:
    """The API's refusals as Refused (with the API's own reason), the rest as ApiUnavailable: one line each,
    whatever the server sent (an HTML error page, a body that is not JSON, one too big or too slow)."""
    try:
        with warnings.catch_warnings():  # the client's pydantic warnings about a server's odd values
            warnings.simplefilter("ignore")
            yield
    except vendor.APIStatusError as exc:
        reason = _reason(exc)
        if exc.status_code in (400, 403, 404, 409, 422):
            raise Refused(f"the API refused to {what}: {reason}") from None
        if exc.status_code == 401:
            raise Refused(f"the API refused the key ({reason}): check it in Settings or {env}") from None
        raise ApiUnavailable(f"could not {what}: HTTP {exc.status_code}, {reason}") from None
    except vendor.APIConnectionError as exc:
        cause = exc.__cause__
        raise ApiUnavailable(f"could not {what}: {cause if isinstance(cause, ResponseRefused) else exc}") from None
    except ResponseRefused as exc:  # (a client that lets its response hook's refusal through unwrapped)
        raise ApiUnavailable(f"could not {what}: {exc}") from None
    except (vendor.APIResponseValidationError, ValueError, TypeError, AttributeError) as exc:
        raise ApiUnavailable(f"could not {what}: the server answered with something that is not the API "
                             f"({type(exc).__name__})") from None


def _reason(exc) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error") if isinstance(body.get("error"), dict) else body
    reason = " ".join(str(err.get("message") or exc.message).split())
    if not isinstance(exc.body, dict) and "<" in reason:
        reason = "the server answered with something that is not the API (" + reason[:80] + ")"
    return reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 1] + "…"


def pages(first, what: str, cursor: Callable) -> Iterator:
    """The items of a listing, page after page; `cursor(page)` is what leads to the next page (None at the end).
    A cursor that comes again (pages that cycle) or more than MAX_PAGES pages end it with ApiUnavailable."""
    page, seen = first, set()
    while True:
        yield from page.data or []
        at = cursor(page)
        if not at:
            return
        if at in seen:
            raise ApiUnavailable(f"could not {what}: the server sent the page cursor {shown(at, 40)} again "
                                 "(its pages go round in a circle): stopped there")
        seen.add(at)
        if len(seen) >= MAX_PAGES:
            raise ApiUnavailable(f"could not {what}: over {MAX_PAGES:,} pages: stopped there")
        page = page.get_next_page()


def retrieve_each(api, session_ids, errors) -> list[dict]:
    """The sessions named (a pull of some only), each read alone, oldest id first; `errors` the vendor's api_errors."""
    found = []
    for sid in sorted(session_ids):
        with errors(f"read session {sid}"):
            found.append(plain(api.retrieve(sid)))
    return found


def plain(item):
    """An API object as the JSON it came as (the client hands models; an item type newer than the installed
    package may come as a plain dict). Anything else (a string, a number where an object was due) is given as it
    is, for the caller to say and skip: one odd entry must not drop a whole listing."""
    if isinstance(item, dict):
        return item
    to_dict = getattr(item, "to_dict", None)
    return to_dict(mode="json") if callable(to_dict) else item


def count(value) -> int:
    """A token count the server gave; 0 for what is not a count ("abc", a list, a negative number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        return 0
    return int(min(value, 1 << 62))

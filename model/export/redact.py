"""Finding secrets in what is exported, and replacing them with stable placeholders.

The vendor patterns come from Yelp's detect-secrets (maintained, reviewed by many
eyes, and it knows token shapes we would get wrong). We call its plugins'
`analyze_string` directly rather than its scan pipeline: that pipeline is built
for files in a git repository, keeps global settings, and can verify secrets
over the network, none of which an export may do. We add what it lacks for
transcripts: Anthropic, Google and Hugging Face keys, bearer tokens, whole PEM
private-key blocks (its detector flags only the BEGIN line), high-entropy
strings without quotes (it wants them quoted), and the user's own patterns.

A placeholder is `[REDACTED:<kind>:<tag>]`, the tag an HMAC of the secret under a
key kept in the store: the same secret gets the same placeholder in every export
from the store (a reader can see two places share one key), and the tag tells an
outsider nothing about the secret. Redaction works on copies; the store is never
changed.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from sessionscope.errors import InvalidInput

PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")

# Ours: vendors detect-secrets 1.5 does not know, and shapes it sees only in part.
_CONTEXT_PATTERNS: list[tuple[str, re.Pattern, Callable[[str], bool] | None]] = [
    ("private-key", re.compile(
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.DOTALL), lambda t: "PRIVATE KEY" in t),
    ("bearer-token", re.compile(r"(?i:bearer)\s+([A-Za-z0-9\-._~+/]{16,}=*)"),
     lambda t: "earer" in t or "EARER" in t),
]
_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern], ...] = (
    ("anthropic-key", re.compile(r"sk-ant-[a-z0-9]{2,8}-[A-Za-z0-9_\-]{20,}")),
    ("google-api-key", re.compile(r"AIza[0-9A-Za-z_\-]{35}")),
    ("huggingface-token", re.compile(r"hf_[A-Za-z0-9]{30,}")),
    ("openai-key", re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}")),
    # (bounded: an unbounded scheme tried at every letter of a long run made this quadratic)
    ("password-in-url", re.compile(r"(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,31}://[^\s:/@]{1,256}:([^\s@/]{1,256})@")),
)

# a run of text that could hold a token: no whitespace, quotes or brackets, 16+ long
_RUN = re.compile(r"[^\s\"'`<>(){}\[\],;|\\]{16,}")
# a detect-secrets pattern that needs text around the secret (spaces, quotes, "aws … key")
_CONTEXT_GATES = {"aws-key": "aws", "npm-token": "_authToken"}  # a word such a pattern needs
_CONTEXT_SHAPED = re.compile(r"\.\{|\.\*|\[\\'")
_TOKEN = re.compile(r"[A-Za-z0-9+/=_\-.]{24,}")
_ENTROPY_LIMIT = 4.2  # bits a character: 24 random base64 characters score ~4.3, English ~3.5
_SEPARATORS = re.compile(r"[/._\-+=]")
# ids the model APIs and the agents hand out (messages, tool calls, requests, Claude Code's agent_msg_…,
# managed sessions' sesn_/sevt_…): a lowercase word or two and an underscore before the random part. A vendor's
# secret of that shape (sk_live_, ghp_, xoxb-) is found by its own pattern before entropy is asked.
_API_IDS = re.compile(r"(?:msg|toolu|srvtoolu|req|call|resp|fc|rs|chatcmpl|run|thread|asst|file|batch|evt|agent|"
                      r"sesn|sevt|sthr|sesrsc|env|memstore|ws|org|user|item|step|task|trace|span|ckpt|compact)"
                      r"(?:_[a-z]+)?_")
# a value assigned to a secret-looking name (env, ini, YAML, JSON, shell, code): `DB_PASSWORD=…`,
# `aws_secret_access_key = …`, `"api_key": "…"`, `export GITHUB_TOKEN='…'`; the value is the secret
_ASSIGNED = re.compile(  # anchored on the name's last word (a name of any prefix ends with one of these)
    r"""(?i)(?:password|passwd|pwd|passphrase|secret[_\-]?key|secret|token|api[_\-]?key|apikey|access[_\-]?key|"""
    r"""private[_\-]?key|credentials?|client[_\-]?secret|auth)["']?[ \t]*(?:=|:|=>)[ \t]*"""
    r"""(?:["']([^"'\n]{4,200})["']|([^\s"'`,;}\]\[(){}<>]{4,200})(?![\w(\[.]))""")
# what stands where a value would and is none: placeholders, types, references to where the secret really is
_NOT_A_VALUE = re.compile(r"(?i)^(?:null|none|nil|true|false|undefined|\*+|x+|\.\.\.|…|[0-9.]+|[-_]+|string|str|"
                          r"bool|boolean|number|bytes|optional|any|required|redacted|secret|password|token|"
                          r"your[_\-].*|<.*>|\[redacted.*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")
# run over the lowered text first (Python's re has no fast path for a case-insensitive alternation: this gate
# and the lowering cost a fifth of what the pattern itself costs over every line)
_ASSIGN_GATE = re.compile(r"(?:pass|pwd|secret|token|key|cred[a-z]*|auth|word|phrase)[\"']?[ \t]*[:=]")
_DIGIT, _UPPER, _LOWER = re.compile(r"\d"), re.compile(r"[A-Z]"), re.compile(r"[a-z]")


def _detect_secrets_plugins() -> list[tuple[str, Any]]:
    """(kind, plugin) for the regex detectors of detect-secrets we use."""
    from detect_secrets.plugins import (
        artifactory,
        aws,
        azure_storage_key,
        discord,
        github_token,
        gitlab_token,
        jwt,
        mailchimp,
        npm,
        openai,
        pypi_token,
        sendgrid,
        slack,
        square_oauth,
        stripe,
        telegram_token,
        twilio,
    )
    classes = [
        ("aws-key", aws.AWSKeyDetector), ("azure-storage-key", azure_storage_key.AzureStorageKeyDetector),
        ("github-token", github_token.GitHubTokenDetector), ("gitlab-token", gitlab_token.GitLabTokenDetector),
        ("jwt", jwt.JwtTokenDetector), ("openai-key", openai.OpenAIDetector), ("slack-token", slack.SlackDetector),
        ("stripe-key", stripe.StripeDetector), ("twilio-key", twilio.TwilioKeyDetector),
        ("sendgrid-key", sendgrid.SendGridDetector), ("npm-token", npm.NpmDetector),
        ("pypi-token", pypi_token.PypiTokenDetector), ("discord-token", discord.DiscordBotTokenDetector),
        ("telegram-token", telegram_token.TelegramBotTokenDetector), ("mailchimp-key", mailchimp.MailchimpDetector),
        ("artifactory-token", artifactory.ArtifactoryDetector), ("square-token", square_oauth.SquareOAuthDetector),
    ]
    return [(kind, cls()) for kind, cls in classes]


def _collect(rx: re.Pattern, text: str, shift: int, kind: str, out: list, own: bool = False) -> None:
    """Add rx's matches: the last group of our patterns (the secret in its context); for
    detect-secrets' a long last group (an assignment's value), else the whole match (its
    groups are often just a prefix)."""
    g = rx.groups
    for m in rx.finditer(text):
        if g and m.group(g) and (own or len(m.group(g)) >= 16):
            out.append((m.start(g) + shift, m.end(g) + shift, kind))
        elif m.group(0).strip():
            a, b = m.span()
            seg = m.group(0)
            a += len(seg) - len(seg.lstrip(" \t\n=:\"'"))  # boundary characters some patterns include
            b -= len(seg) - len(seg.rstrip(" \t\n\"'"))
            out.append((a + shift, b + shift, kind))


def shannon_entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in (s.count(ch) for ch in set(s)))


def _looks_random(token: str) -> bool:
    """A key-like token: a piece between separators of 24+ characters mixing upper, lower and
    digits with the entropy of random text. Paths, uuids, words and long data blobs
    (base64 images, over 1,000 characters) are not keys."""
    if len(token) > 1000 or _API_IDS.match(token):
        return False
    for part in _SEPARATORS.split(token):
        if (len(part) >= 24 and _DIGIT.search(part) and _UPPER.search(part) and _LOWER.search(part)
                and shannon_entropy(part) > _ENTROPY_LIMIT):
            return True
    return False


@dataclass
class Finding:
    """One kind of secret found: its placeholder, how often, and where (first places)."""

    kind: str
    placeholder: str
    preview: str  # the first characters and the length, never the secret itself
    count: int = 0
    places: list[str] = field(default_factory=list)
    context: str = ""  # the first place it was found, with the secret masked: enough to judge it by

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "placeholder": self.placeholder, "preview": self.preview,
                "count": self.count, "places": self.places, "context": self.context}


MAX_PLACES = 5


class Redactor:
    """Finds secrets in strings and replaces them; collects what it found for the review list."""

    def __init__(self, key: bytes, user_patterns: list[str] | tuple[str, ...] = (), *, entropy: bool = True,
                 allowed: set[str] | frozenset[str] = frozenset()):
        self.key = key
        self.entropy = entropy
        self.allowed = set(allowed)  # placeholders the user said are no secret: left as they are
        try:
            user = [("custom", re.compile(p)) for p in user_patterns if p.strip()]
        except re.error as exc:
            raise InvalidInput(f"a redaction pattern is not a valid regular expression: {exc}") from exc
        # patterns that span spaces run over the whole text (when their gate lets them)
        self.context_patterns = [*_CONTEXT_PATTERNS, *((k, rx, None) for k, rx in user)]
        for kind, plugin in _detect_secrets_plugins():
            for rx in plugin.denylist:
                if _CONTEXT_SHAPED.search(rx.pattern):
                    word = _CONTEXT_GATES.get(kind)
                    self.context_patterns.append((kind, rx, (lambda t, w=word: w in t) if word else None))
        self.token_patterns = [*((k, rx, True) for k, rx in _TOKEN_PATTERNS),
                               *((kind, rx, False) for kind, plugin in _detect_secrets_plugins()
                                 for rx in plugin.denylist if not _CONTEXT_SHAPED.search(rx.pattern))]
        self.findings: dict[str, Finding] = {}  # by placeholder
        # strings known to hold no secret, by digest: a Claude line's text and its payload repeat
        # the same content, and transcripts repeat themselves a lot
        self._clean: set[bytes] = set()
        self.occurrences = 0

    # -- finding ------------------------------------------------------------------

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, kind) of each secret in `text`; overlapping finds merge into one.

        Token-shaped secrets are at least 16 characters without spaces or quotes, so
        those patterns run once over the long runs of `text` joined together (a
        tenth of ordinary prose or code) rather than over all of it.
        """
        found: list[tuple[int, int, str]] = []
        for kind, rx, gate in self.context_patterns:
            if gate is None or gate(text):
                _collect(rx, text, 0, kind, found, own=True)
        if _ASSIGN_GATE.search(text.lower()):  # (one quick pass: most lines assign nothing to a secret-looking name)
            for m in _ASSIGNED.finditer(text):
                g = 1 if m.group(1) is not None else 2
                value = m.group(g)
                if not _NOT_A_VALUE.match(value) and not value.startswith(("$", "%", "{{", "os.", "process.env")):
                    found.append((m.start(g), m.end(g), "assigned-secret"))
        runs = [(m.start(), m.group()) for m in _RUN.finditer(text)]
        if runs:
            joined, starts, offset = [], [], 0
            for start, run in runs:
                starts.append(offset)
                joined.append(run)
                offset += len(run) + 1
            blob = "\n".join(joined)
            local: list[tuple[int, int, str]] = []
            for kind, rx, own in self.token_patterns:
                _collect(rx, blob, 0, kind, local, own)
            if self.entropy:
                local.extend((m.start(), m.end(), "high-entropy") for m in _TOKEN.finditer(blob)
                             if _looks_random(m.group()))
            for a, b, kind in local:  # back to positions in `text`
                i = bisect.bisect_right(starts, a) - 1
                shift = runs[i][0] - starts[i]
                found.append((a + shift, b + shift, kind))
        if "[REDACTED:" in text:  # a placeholder is never redacted again, nor any part of it
            kept_out = [m.span() for m in PLACEHOLDER.finditer(text)]
            found = [f for f in found if not any(f[0] < b and a < f[1] for a, b in kept_out)]
        found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
        kept: list[tuple[int, int, str]] = []
        for f in found:
            if kept and f[0] < kept[-1][1]:  # overlaps the one kept: widen it, keep its kind
                if f[1] > kept[-1][1]:
                    kept[-1] = (kept[-1][0], f[1], kept[-1][2])
                continue
            kept.append(f)
        return kept

    def placeholder(self, kind: str, secret: str) -> str:
        tag = hmac.new(self.key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:8]
        return f"[REDACTED:{kind}:{tag}]"

    # -- replacing ----------------------------------------------------------------

    def redact_text(self, text: str, where: str = "") -> str:
        """`text` with each secret replaced by its placeholder (recorded under `where`)."""
        if not text:
            return text
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        if key in self._clean:
            return text
        spans = self.spans(text)
        if not spans:
            if len(self._clean) < 1_000_000:
                self._clean.add(key)
            return text
        out, last = [], 0
        for start, end, kind in spans:
            secret = text[start:end]
            ph = self.placeholder(kind, secret)
            if ph in self.allowed:
                continue  # dismissed in a review: no secret
            f = self.findings.get(ph)
            if f is None:
                f = self.findings[ph] = Finding(kind, ph, _preview(secret), context=_context(text, start, end, spans))
            f.count += 1
            self.occurrences += 1
            if where and len(f.places) < MAX_PLACES and where not in f.places:
                f.places.append(where)
            out += [text[last:start], ph]
            last = end
        out.append(text[last:])
        return "".join(out)

    def redact_json(self, value: Any, where: str = "") -> Any:
        """A copy of a parsed JSON value with every string in it (keys too) redacted."""
        if isinstance(value, str):
            return self.redact_text(value, where)
        if isinstance(value, list):
            return [self.redact_json(v, where) for v in value]
        if isinstance(value, dict):
            # a thinking block's signature is Anthropic's integrity token, not a credential;
            # changing it would make a resumed session fail
            return {self.redact_text(k, where): v if k == "signature" else self.redact_json(v, where)
                    for k, v in value.items()}
        return value

    def redact_payload(self, payload: str, where: str = "") -> str:
        """A stored payload redacted: JSON stays valid JSON (strings redacted inside it)."""
        if not payload:
            return payload
        if payload[0] in "{[\"":
            try:
                parsed = orjson.loads(payload)
            except orjson.JSONDecodeError:
                return self.redact_text(payload, where)
            before = self.occurrences
            redacted = self.redact_json(parsed, where)
            # unchanged payloads stay byte for byte as stored (a tool-native export relies on it)
            return payload if self.occurrences == before else orjson.dumps(redacted).decode()
        return self.redact_text(payload, where)

    def redact_event(self, event, where: str | None = None):
        """An EventView with text and payload redacted (the same object when nothing was found)."""
        import dataclasses
        place = where if where is not None else f"session {event.session_id[:8]} · event #{event.seq}"
        text = self.redact_text(event.text, place)
        payload = self.redact_payload(event.payload, place)
        if text is event.text and payload is event.payload:
            return event
        return dataclasses.replace(event, text=text, payload=payload)

    def review(self) -> list[Finding]:
        """What was found, most frequent first."""
        return sorted(self.findings.values(), key=lambda f: (-f.count, f.kind, f.placeholder))


def _context(text: str, start: int, end: int, spans, before: int = 24, after: int = 40) -> str:
    """The words around a secret, it and every other secret near it masked (a secret's first characters kept
    when it is long): enough to judge it by, nothing to leak."""
    from sessionscope.safety.untrusted import printable
    lo, hi = max(0, start - before), min(len(text), end + after)  # (little before: a column shows its start)
    out, at = [], lo
    for a, b, _kind in spans:
        if b <= lo or a >= hi:
            continue
        a, b = max(a, lo), min(b, hi)
        secret = text[a:b]
        out += [text[at:a], secret[:4] + "•" * min(12, len(secret) - 4) if len(secret) >= 16 else "•" * min(len(secret), 8)]
        at = b
    out.append(text[at:hi])
    return printable(("…" if lo else "") + "".join(out) + ("…" if hi < len(text) else ""))


def _preview(secret: str) -> str:
    head = secret[:4] if len(secret) >= 24 else secret[:1]  # a short secret (a password) shows less
    return f"{head}… ({len(secret)} chars)"


def format_review(findings: list[Finding]) -> str:
    """The review list as text: kind, placeholder, count, where (the CLI prints this)."""
    if not findings:
        return "No secrets found."
    total = sum(f.count for f in findings)
    lines = [f"{total} secret occurrence(s) of {len(findings)} distinct secret(s) found:"]
    for f in findings:
        where = "; ".join(f.places) + (" …" if f.count > len(f.places) else "")
        lines.append(f"  {f.kind:<18} {f.placeholder}  ×{f.count}  {f.preview}  in {where}")
        if f.context:
            lines.append(f"      {f.context}")
    return "\n".join(lines)

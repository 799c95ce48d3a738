"""Planted secrets are replaced in every format; the store keeps them; the review says where."""

from __future__ import annotations

import pytest

from sessionscope.export.core import ExportRequest, scan, set_redaction_patterns
from sessionscope.export.redact import PLACEHOLDER, Redactor, format_review
from sessionscope.ops import export
from sessionscope.sources.claude_code import import_paths
from tests.export.conftest import claude_session

# Built from parts so this file itself does not look like a leak to a scanner.
PLANTED = {
    "aws-key": "AKIA" + "IOSFODNN7EXAMPLQ",
    "github-token": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "anthropic-key": "sk-ant-api03-" + "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE_dC-bA",
    "openai-key": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "slack-token": "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "google-api-key": "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "bearer-token": "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "password-in-url": "hunter2" + "secret",
    "private-key": "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "high-entropy": "9fQ2xLp7Zk3Vb8Nw1Rt6" + "Yh4Jm0Gc5Sd2Ae7Uo",
    "custom": "ACME-" + "778899",
}
TEXT = (f" aws {PLANTED['aws-key']} gh {PLANTED['github-token']} ant {PLANTED['anthropic-key']}"
        f" oa {PLANTED['openai-key']} slack {PLANTED['slack-token']} stripe {PLANTED['stripe-key']}"
        f" g {PLANTED['google-api-key']}\nAuthorization: Bearer {PLANTED['bearer-token']}\n"
        f"db postgres://admin:{PLANTED['password-in-url']}@db.example.com/app\n"
        f"-----BEGIN RSA PRIVATE KEY-----\n{PLANTED['private-key']}\n-----END RSA PRIVATE KEY-----\n"
        f"token={PLANTED['high-entropy']} ticket {PLANTED['custom']}")


def test_each_detector_finds_its_secret_and_leaves_ordinary_text():
    r = Redactor(b"key", [r"ACME-\d{6}"])
    out = r.redact_text(TEXT, "here")
    for kind, secret in PLANTED.items():
        assert secret not in out, kind
    found = {f.kind for f in r.review()}
    assert found >= set(PLANTED) - {"high-entropy"}  # the entropy test may claim a vendor key first
    ordinary = ("see /usr/lib/python3.11/site-packages/detect_secrets/plugins/base.py and run "
                "3f2b8c4e-1a2b-4c3d-9e8f-0a1b2c3d4e5f at 4b825dc642cb6eb9a060e54bf8d69288fbee4904; "
                "msg_01MKH1ccEGrZGNPvu8pYiiQa toolu_0116Hyi5v8ut7Ffb7d8qV1Sc calculate_shannon_entropy")
    assert r.redact_text(ordinary) == ordinary


def test_placeholders_are_stable_and_reveal_nothing():
    a, b = Redactor(b"key"), Redactor(b"key")
    once = a.redact_text(f"x {PLANTED['aws-key']} y {PLANTED['aws-key']}")
    assert once.count(a.redact_text(PLANTED["aws-key"])) == 2
    assert b.redact_text(PLANTED["aws-key"]) == a.redact_text(PLANTED["aws-key"])  # same key, same placeholder
    assert Redactor(b"other").redact_text(PLANTED["aws-key"]) != a.redact_text(PLANTED["aws-key"])
    assert PLACEHOLDER.fullmatch(a.redact_text(PLANTED["aws-key"]))
    assert PLANTED["aws-key"] not in format_review(a.review())


@pytest.fixture
def secret_store(store, tmp_path):
    """A native session and a Claude Code session, secrets in prompt, tool input and output, facts, title."""
    set_redaction_patterns(store, [r"ACME-\d{6}"])
    sid = store.open_session(title=f"deploy with {PLANTED['stripe-key']}", cwd="/srv/app").id
    store.append(sid, "message", role="user", text="deploy please" + TEXT)
    store.append(sid, "tool_call", role="assistant", text="Bash", payload={"name": "Bash", "input": {"command": "env" + TEXT}})
    store.append(sid, "tool_result", role="tool", text="out" + TEXT, payload={"output": "out" + TEXT})
    store.set_fact(sid, "credentials", {"note": TEXT})
    store.append(sid, "message", role="assistant", text="done" + TEXT)
    project = tmp_path / "claude-home" / "projects" / "-work-app"
    t = claude_session(project, secret_text=TEXT)
    import_paths(store, [project])
    return store, [sid, t.session_id]


def _all_output(report) -> str:
    from pathlib import Path
    return "".join(Path(f).read_text() for f in report.files)


@pytest.mark.parametrize("fmt", ["md", "html", "jsonl", "claude"])
def test_every_planted_secret_is_replaced_in_every_format(secret_store, tmp_path, fmt):
    store, ids = secret_store
    before = [e.as_dict() for sid in ids for e in store.events(sid)]
    out = tmp_path / ("out" if fmt == "claude" else f"out.{fmt}")
    report = export(store, ExportRequest(fmt, tuple(ids), redact=True), out)
    text = _all_output(report)
    import html
    for kind, secret in PLANTED.items():
        assert secret not in text and html.escape(secret) not in text, f"{kind} left in the {fmt} export"
    assert PLACEHOLDER.search(text)
    assert {f.kind for f in report.findings} >= {"aws-key", "custom", "private-key", "password-in-url"}
    # the store is untouched
    assert [e.as_dict() for sid in ids for e in store.events(sid)] == before
    assert all(r.ok for r in store.verify())
    plain = tmp_path / ("plain" if fmt == "claude" else f"plain.{fmt}")
    unredacted = export(store, ExportRequest(fmt, tuple(ids), redact=False), plain)
    assert PLANTED["aws-key"] in _all_output(unredacted)


def test_the_review_lists_what_where_and_how_often(secret_store):
    store, ids = secret_store
    findings = scan(store, ExportRequest("md", tuple(ids)))
    aws = next(f for f in findings if f.kind == "aws-key")
    assert aws.count >= 5 and any(ids[0][:8] in p for p in aws.places)
    assert any("title" in p for f in findings for p in f.places if f.kind == "stripe-key")


ASSIGNED = {"aws": "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
            "env": "DB_PASSWORD=" + "hunter2" + "horse", "yaml": "password: " + "s3cr3t" + "-pass",
            "json": '{"api_key": "' + "live-" + "1234abcd" + '"}', "shell": "export GITHUB_TOKEN='" + "abc" + "123def456'",
            "ini": "client_secret = " + "Zx9" + "-Qw8-Er7"}
NOT_SECRETS = ("max_tokens: 1000", "token: string", "password = os.environ['DB_PASSWORD']", "api_key: Optional[str] = None",
               "password = self.password", "secret_key=${SECRET_KEY}", '"input_tokens": 5')


def _value(line: str) -> str:
    return line.split("=", 1)[-1].split(": ", 1)[-1].strip().strip("'\"{}").split('": "')[-1].strip('"')


def test_values_assigned_to_secret_looking_names_are_found_and_code_is_not():
    """#29 item 20: env, ini, YAML, JSON, shell and code forms; a reference or a type is no secret."""
    r = Redactor(b"key")
    for form, line in ASSIGNED.items():
        out = r.redact_text(line)
        assert _value(line) not in out and PLACEHOLDER.search(out), (form, out)
    for line in NOT_SECRETS:
        assert r.redact_text(line) == line, line


def test_ids_of_the_agents_are_not_secrets():
    """#29 item 21: Claude Code's agent_msg_…, tool, message and request ids, uuids, hashes and backup names."""
    r = Redactor(b"key")
    ids = ("agent_msg_01Hq3ZxYpLmNoPqRsTuVwXyZ12 toolu_01D7FsJ5aGbUe3KWKpWeBsX9 msg_01XFDUDYJgAACzvnptvVoYEL "
           "req_011CUaN2B8Kq3AZgq4cvQqEE sesn_01JmB7ZkUq9eL3xWn4TfHcR2 3f2b8c4e-1a2b-4c3d-9e8f-0a1b2c3d4e5f "
           "1b6ca412224c9aa2@v1 4b825dc642cb6eb9a060e54bf8d69288fbee4904")
    assert r.redact_text(ids) == ids


def test_the_review_shows_context_counts_what_is_written_and_remembers_a_dismissal(store, tmp_path):
    """#29 items 20-21: the session's own fields are redacted in a JSONL export; a finding carries its context,
    masked; a Markdown export of prompts only counts what it writes; a dismissed value stays as it is."""
    from sessionscope.export.core import allowed_values, set_allowed_values
    secret = PLANTED["github-token"]
    sid = store.open_session(title="fields", agent=f"agent {secret}", metadata={"originator": ASSIGNED["env"]}).id
    store.set_tags(sid, [f"tag-{PLANTED['stripe-key']}"])
    store.append(sid, "message", role="user", text="the prompt")
    store.append(sid, "tool_result", role="tool", text=f"output with {secret} in it", payload={"output": secret})
    jsonl = export(store, ExportRequest("jsonl", (sid,), redact=True), tmp_path / "s.jsonl")
    text = _all_output(jsonl)
    assert secret not in text and PLANTED["stripe-key"] not in text and "hunter2horse" not in text
    found = scan(store, ExportRequest("jsonl", (sid,)))
    gh = next(f for f in found if f.kind == "github-token")
    assert gh.context == "agent ghp_••••••••••••" and any("· agent" in p for p in gh.places)  # the first place
    prompts = export(store, ExportRequest("md", (sid,), detail="prompts", redact=True), tmp_path / "p.md")
    written = _all_output(prompts)
    assert sum(f.count for f in prompts.findings) == sum(written.count(f.placeholder) for f in prompts.findings)
    assert all(f.placeholder in written for f in prompts.findings)
    assert sum(f.count for f in scan(store, ExportRequest("md", (sid,), detail="prompts"))) == \
        sum(f.count for f in prompts.findings)
    set_allowed_values(store, [gh.placeholder])
    assert allowed_values(store) == [gh.placeholder]
    again = export(store, ExportRequest("jsonl", (sid,), redact=True), tmp_path / "again.jsonl")
    assert secret in _all_output(again) and gh.placeholder not in {f.placeholder for f in again.findings}

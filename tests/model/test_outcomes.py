"""Tool outcomes (#37 item 1): calls, failures by kind (errors, refused permissions, interruptions), time per call,
output size, retries and the calls right before a user's correction, per tool and model, checked against a session
whose truth the test knows and against hand counts of corpus sessions; the cache follows new events."""

from __future__ import annotations

import pytest

from sessionscope.insight import outcomes
from sessionscope.sources import importing
from tests.model.tool_calls import call as _call
from tests.model.tool_calls import result as _result

pytestmark = pytest.mark.sqlite_only




def _by_name(rows):
    return {o.name: o for o in rows}


def test_a_session_whose_truth_is_known(store):
    sid = store.open_session(title="t", model="m-1").id
    t = 1_780_000_000.0
    store.append(sid, "message", role="user", text="run the tests", ts=t)
    _call(store, sid, "c1", "Bash", {"command": "pytest"}, t + 1)
    _result(store, sid, "c1", "1 failed\nExit code 1", t + 3)  # an error, by its exit code: 2 s
    _call(store, sid, "c2", "Bash", {"command": "pytest"}, t + 4)  # the same call again: a retry
    _result(store, sid, "c2", "3 passed", t + 4.5)
    _call(store, sid, "c3", "Edit", {"file_path": "a.py"}, t + 5)
    _result(store, sid, "c3", "The user doesn't want to proceed with this tool use.", t + 6, error=True)  # refused
    _call(store, sid, "c4", "Edit", {"file_path": "b.py"}, t + 7)
    _result(store, sid, "c4", "ok", t + 7.2)
    store.append(sid, "message", role="user", text="No, don't touch b.py", ts=t + 8)  # a correction after c4
    _call(store, sid, "c5", "Read", {"file_path": "c.py"}, t + 9)  # never answered: interrupted
    store.append(sid, "message", role="user", text="[Request interrupted by user]", ts=t + 10)
    tools = _by_name(store.tool_outcomes())
    bash, edit, read = tools["Bash"], tools["Edit"], tools["Read"]
    assert (bash.calls, bash.errors, bash.failures, bash.retries, bash.timed) == (2, 1, 1, 1, 2)
    assert (edit.calls, edit.refused, edit.failures, edit.corrections) == (2, 1, 1, 1)
    assert (read.calls, read.interrupted, read.corrections) == (1, 1, 1)
    assert 2 / 1.19 <= bash.percentile(0.9) <= 2 * 1.19 and 0.5 / 1.19 <= bash.percentile(0.5) <= 0.5 * 1.19
    assert bash.out_chars == len("1 failed\nExit code 1") + len("3 passed")
    failed = {e.text.split(" ")[0] for e in store.events_by_ids(bash.failed_ids + edit.failed_ids + read.failed_ids)}
    assert failed == {"Bash", "Edit", "Read"}  # the numbers lead to the calls behind them
    assert _by_name(store.tool_outcomes(by="model"))["m-1"].calls == 5
    with store.reader() as conn:  # the folded session was cached after the read
        assert outcomes.cached_rows(conn, [sid])[1] == {}
    # the cache follows the session: a new call is folded in, the rest read back
    _call(store, sid, "c6", "Read", {"file_path": "c.py"}, t + 11)
    _result(store, sid, "c6", "print(1)", t + 11.1)
    assert _by_name(store.tool_outcomes())["Read"].calls == 2
    assert store.tool_outcomes(since="2099-01-01") == []
    with pytest.raises(ValueError, match="--by"):
        store.tool_outcomes(by="colour")


def test_hand_counts_of_corpus_sessions(store, corpus):
    folder = corpus / "claude-code"
    report = importing.import_paths(store, [folder / "VibeCodingTracker__test_conversation@d6ca31e.jsonl",
                                            folder / "spotter__short.jsonl"])
    assert report.bad_lines == 0  # (the Vibe file holds its conversation, a resumed copy and an orphan line)
    vibe_ids = [s for s in report.sessions if s.startswith(("e9f146fa", "b162b1ae"))]  # the file's two sessions
    vibe = _by_name(store.tool_outcomes(session_ids=vibe_ids))
    # counted by hand in the raw file: 30 tool_use blocks; TodoWrite 14, Edit 3 (one refused), Write 3, Read 2,
    # context7 resolve 4 (one refused), get-docs 1, Grep 1, WebSearch 1, Bash 1 (is_error false); no errors
    assert sum(o.calls for o in vibe.values()) == 30
    assert (vibe["TodoWrite"].calls, vibe["Edit"].calls, vibe["Edit"].refused, vibe["Write"].calls) == (14, 3, 1, 3)
    assert vibe["mcp__context7__resolve-library-id"].refused == 1
    assert sum(o.errors for o in vibe.values()) == 0 and sum(o.interrupted for o in vibe.values()) == 0
    short = _by_name(store.tool_outcomes(session_ids=[s for s in report.sessions if s.startswith("55604662")]))
    assert (short["Bash"].refused, short["Glob"].refused, short["Bash"].calls) == (1, 1, 1)


def test_how_a_result_says_it_failed():
    assert outcomes.how_failed('{"is_error": true}', "boom") == "error"
    assert outcomes.how_failed("{}", "Process exited.\nExit code: 0") is None
    assert outcomes.how_failed("{}", "Exit code: 2\nnot found") == "error"
    assert outcomes.how_failed('{"is_error": true}', "The user doesn't want to proceed with this tool use.") == "refused"
    assert outcomes.how_failed("{}", "[Request interrupted by user for tool use]") == "interrupted"
    # every phrase the patterns know (a result is searched only when it holds one of their words)
    for refusal in ("Tool use was rejected", "Permission denied by the user", "Rejected by user",
                    "The user declined", "User denied it", "The command was not approved"):
        assert outcomes.how_failed("{}", refusal.upper()) == "refused", refusal
    assert outcomes.how_failed("{}", "Tool call was cancelled") == "interrupted"
    assert outcomes.how_failed("{}", "log\n" * 1000 + "exit_code: 3") == "error"  # at the end of a long output
    assert outcomes.how_failed("{}", "Exit status 127") == "error"
    assert outcomes.how_failed("{}", "an approved, rejected, cancelled exit code") is None  # the words alone are not

"""A model is priced under the name its tool wrote: a router's "vendor/model" (OpenRouter's, as Cline, Kilo and aider
write them), a front end's prefix ("copilot/gpt-4o"), a name as a model picker shows it ("Gemini 2.5 Flash (High)").
The expected prices are genai-prices' own, asked for the model each name stands for."""

from __future__ import annotations

import datetime as dt

import orjson
import pytest

from sessionscope.insight import tokens

DAY = "2026-02-10"


def _table(ref: str, provider: str | None = None, day: str = DAY) -> tuple[float, ...]:
    """What genai-prices itself asks per token of input, output, cache read and cache write for `ref`."""
    from genai_prices import Usage, calc_price
    when = dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc)
    m = 1000

    def price(**kw) -> float:
        return float(calc_price(Usage(**kw), ref, provider_id=provider, genai_request_timestamp=when).total_price) / m
    return (price(input_tokens=m), price(output_tokens=m), price(input_tokens=m, cache_read_tokens=m),
            price(input_tokens=m, cache_write_tokens=m))


@pytest.fixture(autouse=True)
def fresh_prices(monkeypatch, tmp_path):
    """No price remembered from another test or run: each is looked up in the table."""
    monkeypatch.setattr(tokens, "_prices", {})
    monkeypatch.setattr(tokens, "_kept", None)
    monkeypatch.setattr(tokens, "_price_file", lambda: tmp_path / "prices.json")


@pytest.mark.parametrize("written, meant", [
    ("claude-opus-4-20250514", ("claude-opus-4-20250514", None)),  # as before: the name the API gives
    ("anthropic/claude-opus-4.1", ("claude-opus-4.1", "anthropic")),
    ("openrouter/openai/gpt-4o-mini", ("openai/gpt-4o-mini", "openrouter")),  # LiteLLM's way of naming a route
    ("copilot/gpt-4o", ("gpt-4o", None)),
    ("copilot.gpt-4.1", ("gpt-4.1", None)),  # OpenCode (Go)'s provider.model
    ("bedrock.claude-3.7-sonnet", ("claude-3.7-sonnet", None)),
    ("Gemini 2.5 Flash", ("gemini-2.5-flash", None)),
    ("Gemini 2.5 Flash (High)", ("gemini-2.5-flash", None)),
    ("qwen/qwen3-coder:free", ("qwen/qwen3-coder:free", "openrouter")),
])
def test_a_model_is_priced_under_the_name_its_tool_wrote(written, meant):
    assert tokens.unit_prices(written, DAY) == pytest.approx(_table(*meant))


def test_a_free_route_costs_nothing_and_is_not_unpriced():
    assert tokens.unit_prices("deepseek/deepseek-chat-v3-0324:free", DAY) == (0.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("written", ["my-own-llama", "Autodetect - deepseek-coder-v2:latest", "acme/secret-model",
                                     "openrouter/no-such-model", "acme.gpt-4o", "", "gpt-4o" + " (x)" * 60])
def test_a_name_the_table_does_not_know_stays_unpriced(written):
    assert tokens.unit_prices(written, DAY) is None


def test_prices_kept_by_an_earlier_way_of_looking_are_looked_up_again(tmp_path):
    """A name the last version could not price was kept as unpriced in the prices file: that file is not read."""
    old_stamp = tokens._table_stamp().rsplit(":", 1)[0]  # the installed table, without how it was asked
    (tmp_path / "prices.json").write_bytes(orjson.dumps(
        {"table": old_stamp, "prices": {f"Gemini 2.5 Flash|{DAY[:7]}": None}}))
    assert tokens.unit_prices("Gemini 2.5 Flash", DAY) == pytest.approx(_table("gemini-2.5-flash"))


def test_the_usage_report_counts_a_picker_named_model_in_the_cost(store):
    from sessionscope.store.ingest import NewEvent, SessionInfo, ingest
    sid = store.open_session(title="antigravity").id
    payload = orjson.dumps({"role": "assistant", "text": "hi", "model": "Gemini 2.5 Flash (Medium)",
                            "tokens": {"cached": 0, "cache_write": 0}}).decode()
    store.write(lambda conn: ingest(conn, SessionInfo(sid, 1), [
        NewEvent("e1", None, dt.datetime.now().timestamp(), "message", "assistant", text="hi", payload=payload,
                 tokens_in=1_000_000, tokens_out=0, head=True)]))
    r = store.usage(group="model")
    assert r.unpriced == {} and r.groups == ["Gemini 2.5 Flash (Medium)"]
    assert r.total_cost == pytest.approx(1_000_000 * _table("gemini-2.5-flash", day=dt.date.today().isoformat())[0])

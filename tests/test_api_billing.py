"""API bills as the providers charge them: tiers, cache writes, reasoning, regions, tokenizers, long context.

Every expected value is computed by hand from the provider's price page, cited beside it:

* Anthropic, platform.claude.com/docs/en/about-claude/pricing (as in data/api_prices.csv and
  shared/reference/facts.md §4): Opus 4.5 5 / 0.50 / 25 USD per M (input / cache read / output);
  Sonnet 4.5 3 / 0.30 / 15, above 200 K input tokens a request 6 / 0.60 / 22.50 for the whole
  request; cache writes 1.25 x input (5-minute TTL) and 2 x input (1-hour TTL); the Batch API
  at 50 % of standard, stacking with the caching multipliers; US-only inference (inference_geo)
  x 1.1; Claude 4.7+ tokenizer about 30 % more tokens for the same text.
* OpenAI, developers.openai.com/api/docs/pricing: reasoning tokens are billed as output tokens.
"""

from __future__ import annotations

import pydantic
import pytest
from conftest import catalog_with, patched

import costmodel
from costmodel.errors import ScenarioError
from costmodel.units import DAYS_PER_MONTH

R1 = "llama70b-vs-api"


def api_price(changes: dict) -> float:
    return float(costmodel.resolve(patched(R1, changes)).options["api"].price_per_million)


def test_f22_batch_tier_halves_the_opus_price():
    # Fault F22 (shared/reference/faults.md): R1 at Claude Opus 4.5's batch price, half of
    # standard (Anthropic batch-processing pricing: 2.50 in / 12.50 out): 2/3 x 2.5 + 1/3 x 12.5.
    price = api_price({"options.api.service_tier": "batch"})
    assert price == pytest.approx(2 / 3 * 2.5 + 1 / 3 * 12.5, rel=1e-12)
    assert round(price, 4) == 5.8333
    # ... and the break-even against the always-on rental moves accordingly: with a flat rental
    # cost F below its capacity, v* = F / p, so halving p doubles v* (F from test_break_even:
    # 2 H100 at 3.5 USD x 730 h + 3 FTE at EUR 6,000/month x 1.16).
    changes = {"options.rent.staffing.fte": 3}
    standard = costmodel.break_even(patched(R1, changes), "rent", "api", volume_max=5e8)
    batch = costmodel.break_even(
        patched(R1, changes | {"options.api.service_tier": "batch"}), "rent", "api", volume_max=5e8
    )
    flat = 2 * 3.5 * 730 + 3 * 6000 * 1.16
    assert batch.volume == pytest.approx(flat / (5.8333333333333 * DAYS_PER_MONTH / 1e6), rel=1e-9)
    assert batch.volume == pytest.approx(2 * standard.volume, rel=1e-9)


def test_f23_long_context_bills_the_whole_request_at_the_higher_price():
    # Fault F23: 100 M tokens/day at 300 input per output token, requests of 300,000 input
    # tokens, Claude Sonnet 4.5 (Anthropic pricing, long context: above 200 K input tokens the
    # request bills 6 / 22.50 instead of 3 / 15): 300/301 x 6 + 1/301 x 22.5 = 6.0548 USD per M.
    # The bill is dated 2026-04-30: Anthropic retired Sonnet 4.5's 1M-context beta after that day
    # (data/api_prices.csv long_context_until, from scripts/refresh_api_prices.py), so a later bill with
    # 300,000-token requests is refused (tests/test_refresh_api_prices.py::test_sonnet_long_context_retired).
    changes = {
        "options.api.offer": "anthropic-claude-sonnet-4-5",
        "workload.tokens_per_day": 100e6,
        "workload.input_tokens_per_output_token": 300,
        "workload.input_tokens_per_request": 300_000,
        "options.api.price_date": "2026-04-30",
        "uncertainty": None,
    }
    s = patched(R1, changes)
    r = costmodel.resolve(s)
    assert r.options["api"].long_context
    assert float(r.options["api"].price_per_million) == pytest.approx(300 / 301 * 6 + 22.5 / 301, rel=1e-12)
    assert round(float(r.options["api"].price_per_million), 4) == 6.0548
    monthly = float(costmodel.monthly_cost(s, "api", 100e6))
    assert round(monthly, 2) == 18416.74  # F23's stated figure: 100 x 6.0548... x 365 / 12
    # Requests at the threshold or below stay at 3 / 15: the fault's "today" figure 3.0399.
    short = patched(R1, changes | {"workload.input_tokens_per_request": 200_000})
    assert round(float(costmodel.resolve(short).options["api"].price_per_million), 4) == 3.0399
    assert round(float(costmodel.monthly_cost(short, "api", 100e6)), 2) == 9246.26


def test_cache_writes_at_the_one_hour_time_to_live():
    # Anthropic prompt caching: a 1-hour cache write costs 2 x input = 10 USD per M on Opus 4.5,
    # a read 0.1 x = 0.50. 60 % of input read, 20 % written, 20 % plain, a 2:1 mix:
    # 2/3 x (0.2 x 5 + 0.6 x 0.5 + 0.2 x 10) + 1/3 x 25 = 2/3 x 3.3 + 8.3333 = 10.5333.
    changes = {
        "options.api.cached_input_share": 0.6,
        "options.api.cache_write_share": 0.2,
        "options.api.cache_ttl": "1h",
    }
    assert api_price(changes) == pytest.approx(2 / 3 * 3.3 + 25 / 3, rel=1e-12)
    # The 5-minute TTL writes at 1.25 x 5 = 6.25: 2/3 x (1 + 0.3 + 1.25) + 25/3.
    five = api_price(changes | {"options.api.cache_ttl": "5m"})
    assert five == pytest.approx(2 / 3 * 2.55 + 25 / 3, rel=1e-12)
    # The monthly bill shows the writes as their own component: 10 M/day x 365/12 x 2/3 x 0.2 x 10.
    parts = costmodel.monthly_cost_components(patched(R1, changes), "api", 10e6)
    assert float(parts["cache write tokens"]) == pytest.approx(10 * DAYS_PER_MONTH * 2 / 3 * 0.2 * 10, rel=1e-12)


def test_batch_discount_stacks_with_caching():
    # Anthropic: "prompt caching multipliers stack with the batch discount": batch cache reads
    # 0.25, 1-hour writes 5 on Opus 4.5. Same shares as above at half of every price.
    changes = {
        "options.api.cached_input_share": 0.6,
        "options.api.cache_write_share": 0.2,
        "options.api.cache_ttl": "1h",
        "options.api.service_tier": "batch",
    }
    assert api_price(changes) == pytest.approx((2 / 3 * 3.3 + 25 / 3) / 2, rel=1e-12)


def test_tokens_per_workload_token_scales_every_token():
    # Anthropic: Claude 4.7+'s tokenizer gives about 30 % more tokens for the same text. With
    # 1.3 API tokens per workload token, Opus 4.5's 11.6667 USD per M becomes 1.3 x 11.6667 = 15.1667.
    price = api_price({"options.api.tokens_per_workload_token": 1.3})
    assert price == pytest.approx(1.3 * 35 / 3, rel=1e-12)
    assert round(price, 4) == 15.1667


def test_reasoning_tokens_are_billed_as_output():
    # OpenAI pricing: reasoning tokens are billed as output tokens. Two reasoning tokens per
    # visible output token on Opus 4.5: 2/3 x 5 + 1/3 x 3 x 25 = 28.3333 USD per M.
    price = api_price({"options.api.reasoning_tokens_per_output_token": 2})
    assert price == pytest.approx(2 / 3 * 5 + 25, rel=1e-12)


def test_region_uplift_on_every_price():
    # Anthropic pricing: US-only inference (inference_geo) costs 1.1 x: 1.1 x 11.6667 = 12.8333.
    price = api_price({"options.api.region_uplift": 1.1})
    assert round(price, 4) == 12.8333


def test_a_tier_the_offer_lacks_is_refused():
    # Anthropic has no flex tier in data/api_prices.csv: the error names the field and the reason.
    with pytest.raises(ScenarioError) as caught:
        costmodel.resolve(patched(R1, {"options.api.service_tier": "flex"}))
    assert "options.api.service_tier" in str(caught.value) and "flex" in str(caught.value)


def test_cache_shares_above_one_are_refused():
    with pytest.raises(pydantic.ValidationError, match="cache_write_share"):
        patched(R1, {"options.api.cached_input_share": 0.7, "options.api.cache_write_share": 0.4})


def test_standard_billing_keeps_r1():
    # Reference case R1 (cases.md): 2/3 x 5 + 1/3 x 25 = 11.6667 USD per M, 3,549 USD a month.
    s = patched(R1)
    assert float(costmodel.resolve(s).options["api"].price_per_million) == pytest.approx(35 / 3, rel=1e-12)
    assert float(costmodel.monthly_cost(s, "api", 10e6)) == pytest.approx(35 / 3 * 10 * DAYS_PER_MONTH, rel=1e-12)


# The price rows are what genai-prices says: tests/test_refresh_api_prices.py.


def test_tier_split_30_batch_70_standard_with_60_percent_cache_hits():
    # Issue 20. Anthropic pricing: the Batch API is 50 % of standard and "prompt caching
    # multipliers stack with the batch discount" (batch cache reads 0.25 on Opus 4.5).
    # Standard: 2/3 x (0.4 x 5 + 0.6 x 0.50) + 1/3 x 25 = 9.8667; batch: half, 4.9333;
    # 0.7 x 9.8667 + 0.3 x 4.9333 = 8.3867 USD per M.
    changes = {"options.api.cached_input_share": 0.6, "options.api.tier_shares": {"batch": 0.3, "standard": 0.7}}
    standard = 2 / 3 * (0.4 * 5 + 0.6 * 0.5) + 25 / 3
    price = api_price(changes)
    assert price == pytest.approx(0.7 * standard + 0.3 * standard / 2, rel=1e-12)
    assert round(price, 4) == 8.3867


def test_tier_split_without_stacking_keeps_cache_prices():
    # A provider whose batch discount does not apply to cache reads (tier_applies_to_cache false):
    # batch = 2/3 x (0.4 x 2.5 + 0.6 x 0.50) + 1/3 x 12.5; blended 0.7 x standard + 0.3 x batch.
    catalog = catalog_with(api_offers=lambda row: row.model_copy(update={"tier_applies_to_cache": False}))
    s = patched(
        R1,
        {"options.api.cached_input_share": 0.6, "options.api.tier_shares": {"batch": 0.3, "standard": 0.7}},
        catalog=catalog,
    )
    price = float(costmodel.resolve(s, catalog=catalog).options["api"].price_per_million)
    standard = 2 / 3 * (0.4 * 5 + 0.6 * 0.5) + 25 / 3
    batch = 2 / 3 * (0.4 * 2.5 + 0.6 * 0.5) + 12.5 / 3
    assert price == pytest.approx(0.7 * standard + 0.3 * batch, rel=1e-12)


def test_tier_shares_must_sum_to_one():
    with pytest.raises(pydantic.ValidationError, match="tier_shares"):
        patched(R1, {"options.api.tier_shares": {"batch": 0.3, "standard": 0.6}})

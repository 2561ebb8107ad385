"""The billing words of issue 30: each priced by hand from the provider's page cited beside it.

* Anthropic, platform.claude.com/docs/en/about-claude/pricing: Claude Opus 4.5 5 / 0.50 / 25 USD
  per M (input / cache read / output), cache writes 6.25 (5-minute TTL) and 10 (1-hour TTL);
  web search 10 USD per 1,000 searches.
* Google, ai.google.dev/gemini-api/docs/pricing (April 2025): Gemini 2.5 Flash Preview 04-17
  0.15 USD per M input, 0.60 output without thinking, 3.50 for thinking output.
* OpenAI, developers.openai.com/api/docs/pricing: gpt-4o-audio-preview 2.50 / 10 USD per M text
  input / output, 40 / 80 USD per M audio input / output.
"""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import catalog_with, document, patched

import costmodel
from costmodel import formulas
from costmodel.catalog import APIOffer, APIPriceChange, APIPriceTier, APIPriceWindow, load_catalog_overrides
from costmodel.domain.api_clock import api_clock_factor
from costmodel.errors import CatalogError, ScenarioError

R1 = "llama70b-vs-api"
OPUS = "anthropic-claude-opus-4-5"


def price(scenario) -> float:
    return float(costmodel.resolve(scenario).options["api"].price_per_million)


def offer(ident: str, **prices) -> APIOffer:
    row = dict(
        offer=ident,
        provider="Test",
        model="test",
        input_per_million=1.0,
        output_per_million=4.0,
        currency="USD",
        quality="P",
        as_of="2026-12-01",
        source="issue 30 test",
    )
    return APIOffer(**(row | prices))


def window(ident: str, **fields) -> APIPriceWindow:
    row = dict(
        window=ident,
        offer=OPUS,
        name="w",
        days="0-6",
        start_hour=0,
        end_hour=24,
        time_zone="UTC",
        price_multiplier=0.5,
        effective_from="2026-01-01",
        quality="P",
        as_of="2026-12-01",
        source="test",
    )
    return APIPriceWindow(**(row | fields))


# --- cache writes at both times-to-live -----------------------------------------------------------------


def test_cache_writes_at_both_ttls_in_one_bill():
    # 50 % read (0.50), 10 % written for 5 minutes (6.25), 10 % for 1 hour (10), 30 % plain (5), 2:1 mix:
    # 2/3 x (0.3 x 5 + 0.5 x 0.5 + 0.1 x 6.25 + 0.1 x 10) + 1/3 x 25 = 2/3 x 3.375 + 8.3333 = 10.58333.
    s = patched(R1, {"options.api.cached_input_share": 0.5, "options.api.cache_write_shares": {"5m": 0.1, "1h": 0.1}})
    assert price(s) == pytest.approx(2 / 3 * 3.375 + 25 / 3, rel=1e-12)
    parts = costmodel.resolve(s).options["api"].price_parts
    assert parts["cache_write"] == pytest.approx(2 / 3 * (0.625 + 1.0), rel=1e-12)


def test_cache_write_shares_refuse_the_single_ttl_words_beside_them():
    with pytest.raises(Exception, match="cache_write_shares"):
        patched(R1, {"options.api.cache_write_share": 0.1, "options.api.cache_write_shares": {"1h": 0.1}})
    with pytest.raises(Exception, match="above 1"):
        patched(R1, {"options.api.cached_input_share": 0.9, "options.api.cache_write_shares": {"1h": 0.2}})


# --- a reasoning price apart from output --------------------------------------------------------------------


def test_reasoning_tokens_at_their_own_price():
    # Gemini 2.5 Flash preview: 2:1 mix, one thinking token per visible output token:
    # input 2/3 x 0.15 = 0.1, output 1/3 x 0.60 = 0.2, reasoning 1/3 x 1 x 3.50 = 1.16667.
    parts = formulas.api_price_parts(0.15, 0.60, 2.0, reasoning_tokens_per_output_token=1.0, reasoning_price=3.5)
    assert parts["reasoning"] == pytest.approx(3.5 / 3, rel=1e-12)
    assert parts["output"] == pytest.approx(0.2, rel=1e-12)
    assert sum(parts.values()) == pytest.approx(0.1 + 0.2 + 3.5 / 3, rel=1e-12)
    # through a catalog row: the reasoning component is shown apart
    catalog = catalog_with(
        api_offers=lambda row: row.model_copy(update={"reasoning_per_million": 3.5}) if row.offer == OPUS else row
    )
    s = patched(R1, {"options.api.reasoning_tokens_per_output_token": 1.0}, catalog=catalog)
    assert price(s) == pytest.approx(2 / 3 * 5 + 25 / 3 + 3.5 / 3, rel=1e-12)
    parts = costmodel.monthly_cost_components(s, "api", 10e6)
    assert float(parts["reasoning tokens"]) == pytest.approx(10 * 365 / 12 * 3.5 / 3, rel=1e-12)


# --- audio and image tokens ---------------------------------------------------------------------------------


def test_audio_tokens_at_their_prices():
    # gpt-4o-audio-preview at 1:1, half the input and half the output audio:
    # text in 0.5 x 0.5 x 2.5 = 0.625, audio in 0.5 x 0.5 x 40 = 10, text out 0.5 x 0.5 x 10 = 2.5,
    # audio out 0.5 x 0.5 x 80 = 20: 33.125 USD per M.
    parts = formulas.api_price_parts(
        2.5, 10.0, 1.0, audio_input_share=0.5, audio_input_price=40.0, audio_output_share=0.5, audio_output_price=80.0
    )
    assert parts["audio_input"] == pytest.approx(10.0) and parts["audio_output"] == pytest.approx(20.0)
    assert sum(parts.values()) == pytest.approx(33.125, rel=1e-12)


def test_audio_share_without_an_audio_price_names_the_column():
    with pytest.raises(ScenarioError, match="input_audio_per_million"):
        costmodel.resolve(patched(R1, {"options.api.audio_input_share": 0.2}))


# --- fees per request and per search ------------------------------------------------------------------------


def test_web_searches_and_a_request_fee_per_request():
    # Opus 4.5 with web search at 10 USD per 1,000 searches and a fee of 1 USD per 1,000 requests;
    # requests of 2,000 input tokens at 2:1 are 3,000 tokens, two searches each:
    # (2 x 0.01 + 0.001) x 10^6 / 3,000 = 7 USD per M on top of 11.6667.
    catalog = catalog_with(
        api_offers=lambda row: (
            row.model_copy(update={"web_search_per_thousand": 10.0, "per_thousand_requests": 1.0})
            if row.offer == OPUS
            else row
        )
    )
    s = patched(R1, {"options.api.searches_per_request": 2, "workload.input_tokens_per_request": 2000}, catalog=catalog)
    assert price(s) == pytest.approx(35 / 3 + 7.0, rel=1e-12)
    doc = document(s).model_dump(mode="json")
    api = doc["options"]["api"]
    assert api["cost_per_request"]["value"] == pytest.approx(3000 * (35 / 3 + 7.0) / 1e6, rel=1e-12)
    assert api["components"]["request_and_search_fees"]["value"] == pytest.approx(
        10e6 / 3000 * 365 / 12 * 0.021, rel=1e-12
    )


def test_a_fee_per_request_needs_the_request_size():
    catalog = catalog_with(
        api_offers=lambda row: row.model_copy(update={"per_thousand_requests": 1.0}) if row.offer == OPUS else row
    )
    with pytest.raises(ScenarioError, match="input_tokens_per_request"):
        costmodel.resolve(patched(R1, {}, catalog=catalog))


def test_cost_per_request_keeps_its_digits_in_json():
    # A cheap request: 100 input + 100 output tokens at 0.05 / 0.08 USD per M = 1.3e-5 USD (six decimals
    # would write 1.3e-5 as 0.000013, but 1.2345e-5 as 0.000012: 2.8 % off).
    catalog = catalog_with(
        api_offers=lambda row: (
            row.model_copy(
                update={
                    "input_per_million": 0.05,
                    "cached_input_per_million": None,
                    "output_per_million": 0.08,
                    "cache_write_5m_per_million": None,
                    "cache_write_1h_per_million": None,
                }
            )
            if row.offer == OPUS
            else row
        )
    )
    s = patched(
        R1, {"workload.input_tokens_per_output_token": 1, "workload.input_tokens_per_request": 100}, catalog=catalog
    )
    doc = document(s).model_dump(mode="json")
    assert doc["options"]["api"]["cost_per_request"]["value"] == pytest.approx(1.3e-5, rel=1e-12)


# --- prompt-size tiers per token class ----------------------------------------------------------------------


def test_several_prompt_size_tiers_with_their_own_thresholds():
    # Input 1 USD per M, 2 above 128 K and 3 above 256 K input tokens a request; output 4, 6 above 256 K only.
    tiers = {"input": [(128_000, 2.0), (256_000, 3.0)], "output": [(256_000, 6.0)]}
    for request, p_in, p_out in ((100_000, 1.0, 4.0), (128_000, 1.0, 4.0), (200_000, 2.0, 4.0), (300_000, 3.0, 6.0)):
        parts = formulas.api_price_parts(1.0, 4.0, 3.0, input_tokens_per_request=request, context_tiers=tiers)
        assert sum(parts.values()) == pytest.approx(0.75 * p_in + 0.25 * p_out, rel=1e-12), request
    # a cache class without tiers of its own scales with the input's ratio: 0.1 x 3 above 256 K
    parts = formulas.api_price_parts(1.0, 4.0, 3.0, 0.1, 0.5, input_tokens_per_request=300_000, context_tiers=tiers)
    assert parts["cache_read"] == pytest.approx(0.75 * 0.5 * 0.3, rel=1e-12)


def test_tiers_from_the_catalog_file():
    rows = {
        f"t{i}": APIPriceTier(
            tier=f"t{i}",
            offer="test-tiered",
            token_class=c,
            above_input_tokens=n,
            price_per_million=p,
            quality="P",
            as_of="2026-12-01",
            source="test",
        )
        for i, (c, n, p) in enumerate((("input", 128_000, 2.0), ("input", 256_000, 3.0), ("output", 256_000, 6.0)))
    }
    catalog = catalog_with(
        api_offers=dict(costmodel.default_catalog().api_offers, **{"test-tiered": offer("test-tiered")}),
        api_price_tiers=rows,
    )
    s = patched(
        R1,
        {
            "options.api.offer": "test-tiered",
            "workload.input_tokens_per_output_token": 3,
            "workload.input_tokens_per_request": 300_000,
        },
        catalog=catalog,
    )
    assert price(s) == pytest.approx(0.75 * 3 + 0.25 * 6, rel=1e-12)
    assert costmodel.resolve(s).options["api"].long_context


def test_tiers_in_two_places_are_refused(tmp_path):
    (tmp_path / "api_price_tiers.csv").write_text(
        "tier,offer,token_class,above_input_tokens,price_per_million,quality,as_of,source,notes\n"
        "x,google-gemini-2-5-pro,input,500000,9,P,2026-12-01,test,\n"
    )
    with pytest.raises(CatalogError, match="in one place"):
        load_catalog_overrides(tmp_path)


# --- a price history ---------------------------------------------------------------------------------------


def test_the_price_in_force_on_the_bill_date():
    # Opus 4.5 at 5 / 25 today; a change to 4 / 20 from 2027-01-01: a bill dated 2026-12-15 pays 5 / 25,
    # one dated 2027-02-01 (and one with no date: the latest) 4 / 20.
    change = APIPriceChange(
        change="c1",
        offer=OPUS,
        effective_from="2027-01-01",
        input_per_million=4.0,
        output_per_million=20.0,
        quality="P",
        as_of="2026-12-01",
        source="test",
    )
    catalog = catalog_with(api_price_history={"c1": change})
    on = {None: 2 / 3 * 4 + 20 / 3, "2026-12-15": 35 / 3, "2027-02-01": 2 / 3 * 4 + 20 / 3}
    for day, expected in on.items():
        s = patched(R1, {"options.api.price_date": day} if day else {}, catalog=catalog)
        assert price(s) == pytest.approx(expected, rel=1e-12), day


# --- price windows ------------------------------------------------------------------------------------------


def test_the_latest_window_schedule_in_force_wins_whatever_the_file_order():
    # A half-price schedule from 2026-06-01 written after a 0.8 schedule from 2026-09-01: on 2026-10-01
    # (and with no date) the 0.8 one applies, on 2026-07-01 the half-price one.
    rows = {
        "late": window("late", price_multiplier=0.8, effective_from="2026-09-01"),
        "early": window("early", price_multiplier=0.5, effective_from="2026-06-01"),
    }
    catalog = catalog_with(api_price_windows=rows)
    for day, expected in ((None, 0.8), ("2026-10-01", 0.8), ("2026-07-01", 0.5), ("2026-01-01", 1.0)):
        s = patched(R1, {"options.api.price_date": day} if day else {}, drop=("uncertainty",), catalog=catalog)
        assert api_clock_factor(s) == pytest.approx(expected, rel=1e-12), day


def test_a_window_on_the_half_hour():
    # Half price from 00:30 to 01:00 UTC every day: 0.5 h of 24 at half price, evenly spread traffic:
    # 1 - 0.5 x 0.5 / 24 = 0.9895833.
    catalog = catalog_with(api_price_windows={"w": window("w", start_hour=0.5, end_hour=1.0)})
    s = patched(R1, {}, drop=("uncertainty",), catalog=catalog)
    assert api_clock_factor(s) == pytest.approx(1 - 0.25 / 24, rel=1e-12)


def test_a_window_that_discounts_output_tokens_only():
    # Output at half price all week, input at list: 2/3 x 5 + 1/3 x 25 x 0.5 = 7.5 USD per M.
    catalog = catalog_with(api_price_windows={"w": window("w", applies_to="output")})
    s = patched(R1, {}, drop=("uncertainty",), catalog=catalog)
    parts = costmodel.monthly_cost_components(s, "api", 10e6)
    months = 10 * 365 / 12
    assert float(parts["input tokens"]) == pytest.approx(months * 10 / 3, rel=1e-12)
    assert float(parts["output tokens"]) == pytest.approx(months * 25 / 6, rel=1e-12)
    assert costmodel.monthly_cost(s, "api", 10e6) == pytest.approx(months * 7.5, rel=1e-12)


def test_a_window_that_replaces_the_long_context_prices():
    # Sonnet 4.5 (3 / 15, 6 / 22.50 above 200 K) with 300 K-token requests at 300:1, priced before the
    # tier's retirement; a window all week bills long requests at the standard prices (factor 1):
    # 300/301 x 3 + 1/301 x 15 = 3.0399 instead of 6.0548.
    sonnet = "anthropic-claude-sonnet-4-5"
    catalog = catalog_with(
        api_price_windows={"w": window("w", offer=sonnet, price_multiplier=1.0, long_context="standard")}
    )
    s = patched(
        R1,
        {
            "options.api.offer": sonnet,
            "workload.input_tokens_per_output_token": 300,
            "workload.input_tokens_per_request": 300_000,
            "options.api.price_date": "2026-04-01",
        },
        drop=("uncertainty",),
        catalog=catalog,
    )
    assert costmodel.monthly_cost(s, "api", 10e6) == pytest.approx(10 * 365 / 12 * (300 / 301 * 3 + 15 / 301), rel=1e-9)


def test_windows_in_a_catalog_folder_are_read(tmp_path):
    # Fault F33: a --catalog folder holding only api_price_windows.csv.
    (tmp_path / "api_price_windows.csv").write_text(
        "window,offer,name,days,start_hour,end_hour,time_zone,price_multiplier,effective_from,quality,as_of,source,"
        "notes\nw,anthropic-claude-opus-4-5,night,0-6,0,12,UTC,0.5,2026-01-01,P,2026-12-01,test,\n"
    )
    catalog = load_catalog_overrides(tmp_path)
    assert "w" in catalog.api_price_windows
    s = patched(R1, {}, drop=("uncertainty",), catalog=catalog)
    assert api_clock_factor(s) == pytest.approx(0.75, rel=1e-12)


# --- a long-context tier the provider retired ------------------------------------------------------------


def test_a_retired_long_context_tier_refuses_later_bills():
    sonnet = "anthropic-claude-sonnet-4-5"
    catalog = catalog_with(
        api_offers=lambda row: (
            row.model_copy(update={"long_context_until": "2026-04-30"}) if row.offer == sonnet else row
        )
    )
    changes = {
        "options.api.offer": sonnet,
        "workload.input_tokens_per_output_token": 300,
        "workload.input_tokens_per_request": 300_000,
    }
    with pytest.raises(ScenarioError, match="retired after 2026-04-30"):
        costmodel.resolve(patched(R1, changes, drop=("uncertainty",), catalog=catalog))
    with pytest.raises(ScenarioError, match="retired"):
        costmodel.resolve(
            patched(R1, changes | {"options.api.price_date": "2026-05-01"}, drop=("uncertainty",), catalog=catalog)
        )
    early = patched(R1, changes | {"options.api.price_date": "2026-04-30"}, drop=("uncertainty",), catalog=catalog)
    assert round(price(early), 4) == 6.0548
    short = patched(
        R1, changes | {"workload.input_tokens_per_request": 200_000}, drop=("uncertainty",), catalog=catalog
    )
    assert round(price(short), 4) == 3.0399


# --- input-only offers --------------------------------------------------------------------------------------


def test_an_input_only_offer_prices_a_workload_without_output():
    # An embedding model at 0.02 USD per M input tokens (OpenAI text-embedding-3-small): no output price.
    assert float(sum(formulas.api_price_parts(0.02, None, float("inf")).values())) == pytest.approx(0.02)
    with pytest.raises(ValueError, match="input only"):
        formulas.api_price_parts(0.02, None, 2.0)
    assert offer("emb", output_per_million=None).output_per_million is None


def test_dates_of_the_catalog_rows_are_iso_dates():
    with pytest.raises(Exception, match="long_context_until"):
        offer("x", long_context_until="30/04/2026")
    assert dt.date.fromisoformat(offer("x", long_context_until="2026-04-30").long_context_until)


EMBEDDINGS = {
    "title": "Embeddings: 2 B tokens a day",
    "reporting_currency": "USD",
    "workload": {
        "kind": "tokens",
        "gpu": "H100-SXM-80GB",
        "tokens_per_day": 2_000_000_000,
        "input_only": True,
        "input_tokens_per_request": 500,
    },
    "offers": {
        "api_offers": [
            {
                "offer": f"test-embedding-{size}",
                "provider": "OpenAI",
                "model": f"text-embedding-3-{size}",
                "input_per_million": price,
                "currency": "USD",
                "quality": "P",
                "as_of": "2026-12-01",
                "source": "OpenAI, developers.openai.com/api/docs/pricing",
            }
            for size, price in (("small", 0.02), ("large", 0.13))
        ]
    },
    "options": {
        "api": {"offer": "test-embedding-small", "label": "small"},
        "apis": [{"name": "large", "label": "large", "offer": "test-embedding-large"}],
    },
}


def test_an_input_only_workload_priced_by_embedding_offers():
    # OpenAI text-embedding-3-small 0.02 and -large 0.13 USD per M tokens, 2 B tokens a day:
    # 2,000 x 365/12 x 0.02 = 1,216.67 USD a month; a request of 500 tokens costs 1e-5 USD.
    doc = document(costmodel.validate_data(EMBEDDINGS)).model_dump(mode="json")
    small, large = doc["options"]["api"], doc["options"]["api:large"]
    assert small["monthly_cost"]["value"] == pytest.approx(2000 * 365 / 12 * 0.02, rel=1e-12)
    assert large["monthly_cost"]["value"] == pytest.approx(2000 * 365 / 12 * 0.13, rel=1e-12)
    assert small["cost_per_request"]["value"] == pytest.approx(500 * 0.02 / 1e6, rel=1e-12)
    assert small["cost_per_million_output_tokens"]["status"] == "not_defined"
    assert doc["decision"]["winner"] == "api"


@pytest.mark.parametrize(
    "change, word",
    [
        ({"workload.input_tokens_per_output_token": 2}, "no mix"),
        ({"options.rent": {"offer": "lambda-h100-8x", "gpu_count": 8, "billing": "always_on"}}, "API offers only"),
        ({"workload.input_only": False}, "input:output mix"),
    ],
)
def test_an_input_only_workload_refuses_what_it_cannot_have(change, word):
    from conftest import patched_data

    with pytest.raises(Exception, match=word):
        costmodel.validate_data(patched_data(EMBEDDINGS, change))


def test_an_offer_with_output_tokens_needs_an_output_price():
    from conftest import patched_data

    data = patched_data(R1, {"options.api.offer": "test-embedding-small"}, drop=("uncertainty",))
    data["offers"] = EMBEDDINGS["offers"]
    with pytest.raises(ScenarioError, match="options.api.offer: test-embedding-small is an input-only offer"):
        costmodel.resolve(costmodel.validate_data(data))


def test_an_input_only_workload_with_a_demand_profile_is_billed_by_the_clock():
    # No GPU capacity to mix: the decision is on the monthly bills (1,216.67 and 7,908.33 USD), not hour by hour.
    from conftest import patched_data

    data = patched_data(
        EMBEDDINGS,
        {"demand": {"kind": "office_hours", "start_hour": 8, "end_hour": 18, "off_share": 0.1, "source": "test"}},
    )
    doc = document(costmodel.validate_data(data)).model_dump(mode="json")
    assert doc["decision"]["measure"] == "monthly_cost" and doc["cheapest_mix"] is None
    assert doc["options"]["api"]["monthly_cost"]["value"] == pytest.approx(2000 * 365 / 12 * 0.02, rel=1e-12)


def test_perplexity_deep_research_bills_citations_searches_and_reasoning():
    # Perplexity, docs.perplexity.ai/guides/pricing ("detailed pricing breakdown for Sonar Deep Research"):
    # 2 USD per M input, 8 output, citation tokens (the searches' processed tokens) at the input price,
    # reasoning tokens 3 USD per M, searches 5 USD per 1,000. A request of 33 input, 7,163 output,
    # 20,016 citation and 73,997 reasoning tokens and 18 searches (our usage, not Perplexity's), by hand:
    # 0.000066 + 0.057304 + 0.040032 + 0.221991 + 0.09 = 0.409393 USD.
    catalog = catalog_with(
        api_offers=dict(
            costmodel.default_catalog().api_offers,
            **{
                "test-deep": offer(
                    "test-deep",
                    input_per_million=2.0,
                    output_per_million=8.0,
                    citation_per_million=2.0,
                    reasoning_per_million=3.0,
                    web_search_per_thousand=5.0,
                )
            },
        )
    )
    s = patched(
        R1,
        {
            "options.api.offer": "test-deep",
            "workload.input_tokens_per_request": 33,
            "workload.input_tokens_per_output_token": 33 / 7163,
            "options.api.reasoning_tokens_per_output_token": 73997 / 7163,
            "options.api.citation_tokens_per_request": 20016,
            "options.api.searches_per_request": 18,
        },
        drop=("uncertainty",),
        catalog=catalog,
    )
    doc = document(s).model_dump(mode="json")
    assert doc["options"]["api"]["cost_per_request"]["value"] == pytest.approx(
        0.000066 + 0.057304 + 0.040032 + 0.221991 + 0.09, rel=1e-12
    )


@pytest.mark.parametrize(
    "rows, word",
    [
        # a change that makes a cache read dearer than input, with the offer row's other prices
        ("c1,anthropic-claude-opus-4-5,2027-01-01,0.1,,20,,,,P,2026-12-01,test,", "cache read costs at most"),
        ("c1,anthropic-claude-opus-4-5,2026-02-30,4,,20,,,,P,2026-12-01,test,", "not a day of the calendar"),
        (
            "c1,anthropic-claude-opus-4-5,2027-01-01,4,,20,,,,P,2026-12-01,test,\n"
            "c2,anthropic-claude-opus-4-5,2027-01-01,3,,15,,,,P,2026-12-01,test,",
            "same date",
        ),
    ],
)
def test_a_price_history_keeps_the_offer_rules(tmp_path, rows, word):
    (tmp_path / "api_price_history.csv").write_text(
        "change,offer,effective_from,input_per_million,cached_input_per_million,output_per_million,"
        "cache_write_5m_per_million,cache_write_1h_per_million,reasoning_per_million,quality,as_of,source,notes\n"
        + rows
        + "\n"
    )
    with pytest.raises(CatalogError, match=word):
        load_catalog_overrides(tmp_path)


def test_a_bill_before_the_offer_has_a_price_is_refused():
    catalog = catalog_with(
        api_offers=lambda row: row.model_copy(update={"effective_from": "2027-06-01"}) if row.offer == OPUS else row
    )
    with pytest.raises(ScenarioError, match="options.api.price_date.*before 2027-06-01"):
        costmodel.resolve(patched(R1, {"options.api.price_date": "2026-01-01"}, drop=("uncertainty",), catalog=catalog))


def test_searches_on_an_offer_without_a_search_price_name_the_price_first():
    # Hostile-input finding: without a request size the message asked for one, though the offer has no search price.
    with pytest.raises(ScenarioError, match="searches_per_request: groq-llama-3-3-70b-versatile has no web-search"):
        costmodel.resolve(
            patched(
                R1,
                {"options.api.searches_per_request": 1, "options.api.offer": "groq-llama-3-3-70b-versatile"},
                drop=("uncertainty",),
            )
        )


def test_an_api_only_hourly_file_weighs_the_price_windows(tmp_path):
    # Second hostile pass: without a serving block an hourly file became all zeros (tokens turned into GPUs at 0
    # GPU-hours a token) and the bill fell back to the flat week. 50 M tokens a day, all between 12:00 and 20:00
    # UTC, DeepSeek V4.1 Flash's off-peak hours at half price: exactly half the listed bill.
    import numpy as np
    from conftest import patched_data

    hours = np.arange(8760) % 24
    (tmp_path / "hours.txt").write_text(
        "\n".join(str(int(x)) for x in np.where((hours >= 12) & (hours < 20), 6_250_000, 0)) + "\n"
    )
    data = patched_data(
        "api-offers", {"demand": {"kind": "hourly_file", "path": str(tmp_path / "hours.txt"), "source": "test"}}
    )
    s = costmodel.validate_data(data)
    listed = float(costmodel.resolve(s).options["api:deepseek-flash"].price_per_million)
    assert costmodel.monthly_cost(s, "api:deepseek-flash", 50e6) == pytest.approx(
        0.5 * listed * 50 * 365 / 12, rel=1e-12
    )


def test_a_gpu_hours_claim_needs_something_sized_in_gpus():
    from conftest import patched_data

    data = patched_data("api-offers", {"claims": [{"statement": "x", "kind": "gpu_hours", "value": 0.0}]})
    with pytest.raises(Exception, match="claims.0.kind.*nothing is sized in GPUs"):
        costmodel.validate_data(data)


def test_citation_tokens_are_a_component_of_their_own():
    catalog = catalog_with(
        api_offers=dict(
            costmodel.default_catalog().api_offers,
            **{
                "test-deep": offer("test-deep", input_per_million=2.0, output_per_million=8.0, citation_per_million=2.0)
            },
        )
    )
    s = patched(
        R1,
        {
            "options.api.offer": "test-deep",
            "workload.input_tokens_per_request": 2000,
            "options.api.citation_tokens_per_request": 1500,
        },
        drop=("uncertainty",),
        catalog=catalog,
    )
    parts = costmodel.monthly_cost_components(s, "api", 10e6)
    # 1,500 citation tokens at 2 USD per M on 3,000-token requests: 1 USD per M workload tokens
    assert float(parts["citation tokens"]) == pytest.approx(10 * 365 / 12 * 1.0, rel=1e-12)
    assert "request and search fees" not in parts

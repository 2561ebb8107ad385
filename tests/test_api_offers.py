"""Issue 20: API offers compared on their own, prices by the clock, per-request costs.

DeepSeek's time-of-day prices (api-docs.deepseek.com/quick_start/pricing, as transcribed in
genai-prices 0.2.3 and shared/reference/facts.md §4): deepseek-flash (V4.1 Flash) at 0.30 input /
0.006 cache hit / 1.20 output USD per M in the peak hours, UTC 01:00-04:00 and 06:00-10:00
Monday to Friday; every other hour off-peak at half price.
"""

from __future__ import annotations

import json

import pytest
from conftest import document, patched

import costmodel
from costmodel.cli import main
from costmodel.domain.api_clock import api_clock_factor
from costmodel.units import DAYS_PER_MONTH

R1 = "llama70b-vs-api"
PEAK = 2 / 3 * 0.30 + 1 / 3 * 1.20  # USD per M at R1's 2:1 mix, peak prices: 0.6


def deepseek(demand=None):
    changes = {"options.api.offer": "deepseek-v4-1-flash"}
    if demand is not None:
        changes["demand"] = demand
    return patched(R1, changes, drop=("uncertainty",))


def test_batch_job_run_off_peak_pays_half():
    # A batch job that runs 12:00-20:00 UTC every day: all off-peak, so half of 0.6 USD per M.
    # Bill at 10 M tokens/day: 10 x 365/12 x 0.3 = 91.25 USD a month.
    template = [1.0 if 12 <= hour % 24 < 20 else 0.0 for hour in range(168)]
    s = deepseek({"kind": "weekly", "template": template})
    assert api_clock_factor(s) == pytest.approx(0.5, rel=1e-12)
    assert float(costmodel.monthly_cost(s, "api", 10e6)) == pytest.approx(10 * DAYS_PER_MONTH * PEAK / 2, rel=1e-12)
    assert float(costmodel.monthly_cost(s, "api", 10e6)) == pytest.approx(91.25, rel=1e-12)


def test_the_same_job_in_peak_hours_pays_the_full_price():
    # 07:00-09:00 UTC Monday to Friday: inside the second peak window.
    template = [1.0 if hour // 24 < 5 and 7 <= hour % 24 < 9 else 0.0 for hour in range(168)]
    s = deepseek({"kind": "weekly", "template": template})
    assert api_clock_factor(s) == pytest.approx(1.0, rel=1e-12)


def test_load_spread_evenly_gives_the_blended_rate():
    # No profile: traffic spread evenly over the week. 35 peak hours a week (5 days x (3 + 4) h)
    # at 1, 133 off-peak hours at 0.5: (35 + 66.5) / 168 = 0.604167; 0.6 x 0.604167 = 0.3625 USD per M.
    s = deepseek()
    assert api_clock_factor(s) == pytest.approx(101.5 / 168, rel=1e-12)
    assert float(costmodel.monthly_cost(s, "api", 10e6)) / (10 * DAYS_PER_MONTH) == pytest.approx(0.3625, rel=1e-12)
    # A steady profile over the model's year of 8,760 h from a Monday: 52 weeks and one Monday,
    # so 52 x 35 + 7 = 1,827 peak hours: (1,827 + 0.5 x 6,933) / 8,760 = 0.604281.
    assert api_clock_factor(deepseek({"kind": "steady"})) == pytest.approx((1827 + 0.5 * 6933) / 8760, rel=1e-12)


def test_price_windows_not_yet_in_force_are_left_out():
    # The windows take effect on 2026-09-10 (data/api_price_windows.csv): priced on 2026-09-01,
    # every hour is at the listed (peak) price.
    s = patched(
        R1, {"options.api.offer": "deepseek-v4-1-flash", "options.api.price_date": "2026-09-01"}, drop=("uncertainty",)
    )
    assert api_clock_factor(s) == 1.0
    assert float(costmodel.monthly_cost(s, "api", 10e6)) == pytest.approx(10 * DAYS_PER_MONTH * PEAK, rel=1e-12)


def test_api_offers_compares_five_api_offers_without_a_gpu_option(capsys):
    s = costmodel.load_scenario("api-offers")
    assert s.options.own is None and s.options.rent is None
    r = costmodel.resolve(s)
    assert [o.kind for o in r.options.values()] == ["api"] * 5
    assert main(["compare", "api-offers", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    options = data["options"]
    # Anthropic pricing, Sonnet 4.5 at a 4:1 mix with 60 % cache reads:
    # 0.8 x (0.4 x 3 + 0.6 x 0.30) + 0.2 x 15 = 4.104 USD per M; 30 % through the Batch API
    # (half price, stacking with caching): 0.7 x 4.104 + 0.3 x 2.052 = 3.4884.
    assert options["api"]["cost_per_million_tokens"]["value"] == pytest.approx(4.104, rel=1e-9)
    assert options["api:sonnet-batch-30"]["cost_per_million_tokens"]["value"] == pytest.approx(3.4884, rel=1e-9)
    # Per request: 4,000 input + 1,000 output tokens x 4.104 / 10^6 = 0.02052 USD; 20.52 per 1,000.
    assert options["api"]["cost_per_1000_requests"]["value"] == pytest.approx(20.52, rel=1e-9)
    assert data["decision"]["winner"] == "api:deepseek-flash"
    assert data["decision"]["winner_label"] == "DeepSeek V4.1 Flash, peak and off-peak (DeepSeek)"
    assert len(data["break_evens"]) == 10  # every pair of the five offers


def test_one_api_offer_alone_is_too_few():
    import pydantic

    with pytest.raises(pydantic.ValidationError, match="at least two"):
        patched("api-offers", {"options.apis": []})


def test_api_offer_names_must_differ():
    import pydantic

    data = costmodel.load_scenario("api-offers").options.apis
    twice = [a.model_dump(exclude_none=True) for a in data[:2]]
    twice[1]["name"] = twice[0]["name"]
    with pytest.raises(pydantic.ValidationError, match="duplicate|two API offers"):
        patched("api-offers", {"options.apis": twice})


@pytest.mark.slow
def test_api_offers_report_renders(tmp_path):
    from costmodel.report import render_report

    report = render_report("api-offers", tmp_path)
    html = report.html.read_text()
    assert "DeepSeek V4.1 Flash, peak and off-peak" in html and "cost per 1,000 requests" in html


@pytest.mark.slow
def test_hybrid_report_renders(tmp_path):
    from costmodel.report import render_report

    html = render_report("llama70b-hybrid", tmp_path).html.read_text()
    assert "Replicas and API: 4 owned replicas, the API above 3,487,795,200 tokens/day" in html
    assert "Stacked area chart of the busiest week" in html


def test_windows_in_the_providers_time_zone():
    # The peak windows are stated in Beijing time (UTC+8, no daylight saving): 09:00-12:00 is
    # 01:00-04:00 UTC. A job at 02:00-03:00 UTC on Mondays pays peak; at 04:00-05:00 UTC
    # (12:00-13:00 Beijing, the lunch gap) off-peak; on Sunday 02:00 UTC (Sunday 10:00 Beijing) off-peak.
    def factor(day, hour):
        template = [1.0 if h == day * 24 + hour else 0.0 for h in range(168)]
        return api_clock_factor(deepseek({"kind": "weekly", "template": template}))

    assert factor(0, 2) == pytest.approx(1.0) and factor(0, 4) == pytest.approx(0.5)
    assert factor(6, 2) == pytest.approx(0.5)


def test_api_options_alone_need_no_serving_block():
    # A newcomer's finding: an API-only comparison had to describe a served model it never sizes. Without it the
    # bills are the same as with one described (DeepSeek V4.1 Flash cheapest at 309.83 USD a month), and GPU-hours
    # are not applicable.
    from conftest import patched

    served = patched(
        "api-offers",
        {
            "workload.serving": {
                "model": "llama-3.3-70b",
                "precision": "fp8",
                "throughput_row": "trtllm-llama33-70b-h100-fp8-1k1k",
                "peak_to_average": 2.0,
                "target_utilisation": 0.8,
                "kv_cache_tokens": 128000,
            }
        },
    )
    doc = document("api-offers").model_dump(mode="json")  # bundled: no serving
    bundled = document(served).model_dump(mode="json")
    for name, option in bundled["options"].items():
        assert doc["options"][name]["monthly_cost"]["value"] == pytest.approx(
            option["monthly_cost"]["value"], rel=1e-12
        )
    assert doc["decision"]["winner"] == bundled["decision"]["winner"] == "api:deepseek-flash"
    assert doc["gpu_hours_used"]["status"] == "not_applicable" and doc["serving"] is None


def test_a_gpu_option_without_a_throughput_is_refused():
    from conftest import patched_data

    data = patched_data(
        "api-offers",
        {"workload.serving": None, "options.rent": {"offer": "lambda-h100-8x", "gpu_count": 8, "billing": "always_on"}},
    )
    with pytest.raises(Exception, match="workload.serving.*sized in GPUs"):
        costmodel.validate_data(data)

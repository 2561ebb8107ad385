"""Issue 20: API offers compared on their own, prices by the clock, per-request costs.

DeepSeek's time-of-day prices (api-docs.deepseek.com/quick_start/pricing, as transcribed in
genai-prices 0.2.3 and shared/reference/facts.md §4): deepseek-flash (V4.1 Flash) at 0.30 input /
0.006 cache hit / 1.20 output USD per M in the peak hours, UTC 01:00-04:00 and 06:00-10:00
Monday to Friday; every other hour off-peak at half price.
"""

from __future__ import annotations

import json

import pytest

import costmodel
from costmodel.cli import main
from costmodel.domain.api_clock import api_clock_factor
from costmodel.units import DAYS_PER_MONTH

from conftest import patched

R1 = "llama70b-vs-api"
PEAK = 2 / 3 * 0.30 + 1 / 3 * 1.20          # USD per M at R1's 2:1 mix, peak prices: 0.6


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
    s = patched(R1, {"options.api.offer": "deepseek-v4-1-flash", "options.api.price_date": "2026-09-01"},
                drop=("uncertainty",))
    assert api_clock_factor(s) == 1.0
    assert float(costmodel.monthly_cost(s, "api", 10e6)) == pytest.approx(10 * DAYS_PER_MONTH * PEAK, rel=1e-12)

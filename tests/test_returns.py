"""Refresh and residual value, IRR, MIRR, ROI, fractional payback and the NPV conventions, by hand."""

import json
import math

import numpy as np
import numpy_financial as npf
import pytest
from conftest import patched

from costmodel import formulas
from costmodel.cli import main
from costmodel.domain import finance
from costmodel.domain.compare import compare
from costmodel.domain.costs import own_costs_at
from costmodel.presentation.output import comparison_output
from costmodel.resolved import resolve

H200 = "h200-24gpu-cluster"
CAPEX = 1_050_000 * 1.094 + 125_000 + 45_000  # R2 hardware: 3 DGX H200, fabric 9.4 %, storage, racks
RENT_MONTH = 12_000 * 4.50  # 12,000 GPU-hours at Nebius's $4.50


def r2(**changes):
    """R2 at steady demand with fields changed: ``finance__horizon_months=120``.

    Steady, the 3 configured servers carry the 12,000 GPU-hours (R2's campaigns peak above
    them, and a profile sizes the cluster for its busiest hour): these figures are by hand on 3.
    """
    return patched(H200, {k.replace("__", "."): v for k, v in changes.items()}, drop=("demand",))


def running_month(s):
    """R2's own running cash cost a month (everything but depreciation), 3 servers, 12,000 GPU-hours."""
    parts = own_costs_at(resolve(s).options["own"], 3.0, 12_000.0)
    return sum(v for k, v in parts.items() if k != "capex depreciation")


class TestRefresh:
    def test_r2_over_120_months_buys_the_hardware_again_at_month_60(self):
        s = r2(finance__horizon_months=120)
        own = finance.cash_flows(s).flows["own"]
        refresh = own["hardware refresh"]
        # bought in month 0, 60-month useful life (the depreciation period): bought again in month 60
        assert refresh[60] == pytest.approx(CAPEX)
        assert np.count_nonzero(refresh) == 1
        # straight-line residual: worth nothing at 60 months, both when replaced and at the horizon
        assert np.count_nonzero(own["resale at refresh"]) == 0
        assert own["resale"][-1] == pytest.approx(0.0)
        tco = finance.own_finance(s).tco
        # 2 purchases, 117 months running (online after a 3-month lead time), 3 months rented meanwhile
        assert tco == pytest.approx(2 * CAPEX + 117 * running_month(s) + 3 * RENT_MONTH, rel=1e-12)

    def test_refresh_at_the_price_trend_with_declining_balance_resale(self):
        s = r2(
            finance__horizon_months=120,
            finance__residual={"method": "declining_balance", "rate_per_year": 0.3},
            finance__trends={"hardware_price_change_per_year": -0.2},
        )
        own = finance.cash_flows(s).flows["own"]
        new_price = CAPEX * 0.8**5  # 5 years at -20 % a year
        worth = 0.7**5  # 5 years losing 30 % a year: 0.16807
        assert own["hardware refresh"][60] == pytest.approx(new_price)
        assert own["resale at refresh"][60] == pytest.approx(-CAPEX * worth)
        assert own["resale"][-1] == pytest.approx(-new_price * worth)  # the second set, 60 months old
        tco = finance.own_finance(s).tco
        expected = CAPEX + new_price - CAPEX * worth - new_price * worth + 117 * running_month(s) + 3 * RENT_MONTH
        assert tco == pytest.approx(expected, rel=1e-12)

    def test_residual_points_curve(self):
        s = r2(
            finance__horizon_months=36,
            finance__residual={
                "method": "points",
                "ages_months": [0, 24, 48],
                "shares": [1.0, 0.5, 0.3],
                "source": "illustrative used-hardware curve",
            },
        )
        resale = finance.cash_flows(s).flows["own"]["resale"]
        assert resale[-1] == pytest.approx(-CAPEX * 0.4)  # age 36: halfway from 0.5 to 0.3

    def test_a_short_useful_life_refreshes_twice(self):
        s = r2(finance__horizon_months=60, finance__useful_life_months=24)
        refresh = finance.cash_flows(s).flows["own"]["hardware refresh"]
        assert np.flatnonzero(refresh).tolist() == [24, 48]

    def test_no_refresh_line_within_one_life(self):
        assert "hardware refresh" not in finance.cash_flows(r2()).flows["own"]

    def test_incomplete_curve_is_refused(self):
        with pytest.raises(ValueError, match="rate_per_year"):
            r2(finance__residual={"method": "declining_balance"})


class TestReturns:
    def test_irr_and_mirr_against_numpy_financial(self):
        s = r2(workload__gpu_hours_per_month=15_000)
        flows = finance.cash_flows(s)
        result = finance.own_finance(s, flows)
        gains = flows.total("rent") - flows.total("own")
        monthly = npf.irr(gains)
        assert result.irr_per_year == pytest.approx((1 + monthly) ** 12 - 1, rel=1e-9)
        # independent check: the gains discounted at the monthly IRR sum to zero
        assert np.sum(gains / (1 + monthly) ** np.arange(gains.size)) == pytest.approx(0, abs=1e-3)
        # MIRR by its definition: FV of gains at the reinvestment rate over PV of outlays at the finance rate
        i = 1.08 ** (1 / 12) - 1
        n = gains.size
        fv = np.sum(np.where(gains > 0, gains, 0) * (1 + i) ** (n - 1 - np.arange(n)))
        pv = -np.sum(np.where(gains < 0, gains, 0) / (1 + i) ** np.arange(n))
        assert result.mirr_per_year == pytest.approx(((fv / pv) ** (1 / (n - 1))) ** 12 - 1, rel=1e-9)
        assert result.mirr_per_year == pytest.approx((1 + npf.mirr(gains, i, i)) ** 12 - 1, rel=1e-9)

    def test_irr_not_defined_without_a_sign_change(self):
        s = r2(workload__gpu_hours_per_month=2_000)  # owning never saves a month
        result = finance.own_finance(s)
        assert result.irr_per_year is None and result.mirr_per_year is None and result.payback_months is None
        shown = comparison_output(compare(s), s, uncertainty=False).finance
        assert shown.irr.value is None and shown.irr.status == "not_defined"
        assert shown.mirr.value is None and shown.mirr.status == "not_defined"
        assert shown.payback_months.value is None and shown.payback_months.status == "never"

    def test_roi_is_net_gain_over_investment(self):
        s = r2(workload__gpu_hours_per_month=15_000)
        result = finance.own_finance(s)
        # investment: R2's hardware bought once in month 0 (cash, no loan)
        assert result.investment == pytest.approx(CAPEX)
        assert result.roi == pytest.approx((result.tco_by_option["rent"] - result.tco) / CAPEX, rel=1e-12)

    def test_fractional_payback_by_hand(self):
        # R2 at 15,000 GPU-hours/month with no lead time: the hardware is paid at the start of month 0,
        # each month's saving (rent - running) at its end (F26: capex 12, saving 1 a month pays back in 12.0)
        s = r2(workload__gpu_hours_per_month=15_000, finance__lead_time_months=0, finance__during_lead_time=None)
        rent = 15_000 * 4.50
        parts = own_costs_at(resolve(s).options["own"], 3.0, 15_000.0)
        running = sum(v for k, v in parts.items() if k != "capex depreciation")
        saving = rent - running
        expected = CAPEX / saving  # months from the decision, fractional
        result = finance.own_finance(s)
        assert result.payback_months == pytest.approx(expected, rel=1e-9)
        assert result.payback_month == int(np.ceil(expected))
        # discounted: the saving of month k - 1 arrives at time k; the first k whose discounted savings
        # cover the capex, interpolated within that month
        i = 1.08 ** (1 / 12) - 1
        cumulative, k = -CAPEX, 0
        while cumulative < 0:
            k += 1
            previous, cumulative = cumulative, cumulative + saving / (1 + i) ** k
        assert result.discounted_payback_months == pytest.approx(k - 1 + -previous / (saving / (1 + i) ** k), rel=1e-9)
        assert result.discounted_payback_months > result.payback_months

    def test_yearly_end_of_period_npv_like_a_spreadsheet(self):
        s = r2(finance__npv={"period": "year", "timing": "end"})
        flows = finance.cash_flows(s)
        result = finance.own_finance(s, flows)
        for option in ("own", "rent"):
            monthly = flows.total(option)
            years = [monthly[12 * y : 12 * y + 12].sum() for y in range(5)]
            # Excel: =NPV(8%, Y1:Y5), each year's total at its end
            expected = sum(y / 1.08 ** (k + 1) for k, y in enumerate(years))
            assert result.npv_by_option[option] == pytest.approx(expected, rel=1e-12)
        shown = comparison_output(compare(s, check=False), s, uncertainty=False).finance
        assert shown.npv_convention.period == "year" and shown.npv_convention.timing == "end"

    def test_compare_json_carries_the_returns(self, capsys):
        assert main(["compare", "h100-10k-cluster", "--json", "--no-uncertainty"]) == 0
        data = json.loads(capsys.readouterr().out)["finance"]
        for key in ("irr", "mirr", "roi", "payback_months", "discounted_payback_months"):
            assert key in data
        # the whole months are the fractional payback rounded up
        months = data["payback_months"]["value"]
        assert data["payback_month"]["value"] == math.ceil(months) and 49 < months < 51


def test_fisher_real_rate():
    # Fisher: 1.08 / 1.03 - 1 = 0.0485436...
    assert formulas.fisher_real_rate(0.08, 0.03) == pytest.approx(0.08 / 1.03 - 0.03 / 1.03, rel=1e-12)


def test_one_verdict_opens_compare_and_the_headline(capsys):
    import costmodel
    from costmodel.domain.decision import decide
    from costmodel.presentation.text import headline

    assert main(["compare", H200]) == 0
    lines = capsys.readouterr().out.splitlines()
    verdict = lines[1]
    s = costmodel.load_scenario(H200)
    d = decide(s)
    # R2: every way to pay on present value; the rented reserved base with the rest on demand wins
    assert d.measure == "present_value" and d.winner == "rent.reserved"
    assert verdict.startswith(f"verdict: {d.winning.label} is the cheapest at {d.winning.figure:,.2f} USD")
    assert "on the present value of costs over 60 months" in verdict
    assert f"**Verdict:** {d.winning.label}" in headline(s, costmodel.compare(s)).replace("\\", "")

"""Price paths (finance.trends.<price>_price_path): yearly steps, dated tables and the reserved-price curve.

Expected values are closed forms written out here: geometric sums of the monthly compounding,
step counts of the tables, and (3 p3 - p1) / (2 p) for the forward curve. R2 at steady demand
rents 12,000 GPU-hours a month at nebius-h200's $4.50 (tests/test_finance.py): $54,000 of GPU
rental a month at today's price.
"""

import datetime as dt

import numpy as np
import pytest
from conftest import catalog_with, patched, patched_data

import costmodel
from costmodel import formulas
from costmodel.domain import finance

H200, R1 = "h200-24gpu-cluster", "llama70b-vs-api"
RENTAL = 12_000 * 4.5  # R2's GPU rental a month at today's price [USD]


def r2(trends=None, **changes):
    """R2 at steady demand with ``finance.trends`` replaced and fields changed (``finance__horizon_months=24``)."""
    data = {k.replace("__", "."): v for k, v in changes.items()}
    if trends is not None:
        data["finance.trends"] = trends
    return patched(H200, data, drop=("demand",))


def lines_equal(a, b):
    """Every cash line of every option of two cash flows is the same, bit for bit."""
    assert a.flows.keys() == b.flows.keys()
    for option in a.flows:
        assert a.flows[option].keys() == b.flows[option].keys()
        for line in a.flows[option]:
            assert np.array_equal(a.flows[option][line], b.flows[option][line]), (option, line)


class TestYearlyChangeFactor:
    def test_one_rate_is_the_constant_rate_exactly(self):
        months = np.arange(600.0)
        for rate in (-0.15, 0.0, 0.03, 0.4):
            expected = formulas.growth_factor(rate, months)
            assert np.array_equal(formulas.yearly_change_factor([rate], months), expected)
            assert np.array_equal(formulas.yearly_change_factor([rate] * 7, months), expected)

    def test_each_year_compounds_monthly_and_the_last_goes_on(self):
        months = np.array([0.0, 6.0, 12.0, 18.0, 24.0, 36.0])
        got = formulas.yearly_change_factor([-0.2, 0.1], months)
        expected = [1.0, 0.8**0.5, 0.8, 0.8 * 1.1**0.5, 0.8 * 1.1, 0.8 * 1.1**2]
        assert got == pytest.approx(expected, rel=1e-14)

    def test_sampled_changes_keep_their_axis(self):
        changes = [np.array([[-0.2], [0.0]]), 0.1]
        got = formulas.yearly_change_factor(changes, np.array([12.0, 24.0]))
        assert got.shape == (2, 2)
        assert got == pytest.approx(np.array([[0.8, 0.88], [1.0, 1.1]]), rel=1e-14)


class TestConstantRateEquivalence:
    """A path of yearly changes all equal to r gives the constant rate r's results exactly."""

    @pytest.mark.parametrize("price, rate", [("rental", -0.15), ("electricity", 0.05), ("hardware", -0.2)])
    def test_r2_cash_flows_and_returns(self, price, rate):
        common = {
            "finance__horizon_months": 60,
            "finance__useful_life_months": 24,
            "finance__lead_time_months": 0,
            "finance__during_lead_time": None,
        }
        flat = r2({f"{price}_price_change_per_year": rate, "salary_change_per_year": 0.03}, **common)
        path = r2({f"{price}_price_path": {"yearly_changes": [rate] * 3}, "salary_change_per_year": 0.03}, **common)
        a, b = finance.cash_flows(flat), finance.cash_flows(path)
        lines_equal(a, b)
        fa, fb = finance.own_finance(flat, a), finance.own_finance(path, b)
        for name in (
            "tco_by_option",
            "npv_by_option",
            "irr_per_year",
            "mirr_per_year",
            "roi",
            "payback_months",
            "discounted_payback_months",
            "yearly_by_option",
        ):
            assert getattr(fa, name) == getattr(fb, name), name

    def test_api_prices(self):
        horizon = {"horizon_months": 30, "discount_rate_per_year": 0.1}
        flat = patched(R1, {"finance": {**horizon, "trends": {"api_price_change_per_year": -0.3}}})
        path = patched(R1, {"finance": {**horizon, "trends": {"api_price_path": {"yearly_changes": [-0.3]}}}})
        lines_equal(finance.cash_flows(flat), finance.cash_flows(path))
        assert finance.present_values(flat) == finance.present_values(path)


class TestRentalByHand:
    def test_two_years_of_yearly_changes(self):
        # year 1 falls 20 % compounding monthly, year 2 rises 10 % from there
        s = r2({"rental_price_path": {"yearly_changes": [-0.2, 0.1]}}, finance__horizon_months=24)
        flows = finance.cash_flows(s)
        rental = flows.flows["rent"]["GPU rental"]
        a, b = 0.8 ** (1 / 12), 1.1 ** (1 / 12)
        year_1 = RENTAL * (1 - a**12) / (1 - a)  # sum of 54,000 a^m, m = 0 ... 11
        year_2 = RENTAL * 0.8 * (1 - b**12) / (1 - b)  # sum of 54,000 * 0.8 b^(m-12), m = 12 ... 23
        assert rental.sum() == pytest.approx(year_1 + year_2, rel=1e-12)
        assert rental[12] == pytest.approx(RENTAL * 0.8, rel=1e-12)
        # present value at 8 % a year, month 0 undiscounted: the same sums with a and b over the monthly factor
        v = 1.08 ** (-1 / 12)
        pv = RENTAL * ((1 - (a * v) ** 12) / (1 - a * v) + 0.8 / 1.08 * (1 - (b * v) ** 12) / (1 - b * v))
        staff = flows.flows["rent"]["staffing"][0]
        pv_staff = staff * (1 - v**24) / (1 - v)
        npv, tco = finance.present_values(s, flows)
        assert npv["rent"] == pytest.approx(pv + pv_staff, rel=1e-12)
        assert tco["rent"] == pytest.approx(year_1 + year_2 + 24 * staff, rel=1e-12)

    def test_yearly_factors_are_steps_and_the_last_holds(self):
        s = r2({"rental_price_path": {"yearly_factors": [0.9, 0.75]}}, finance__horizon_months=30)
        rental = finance.cash_flows(s).flows["rent"]["GPU rental"]
        assert rental.sum() == pytest.approx(RENTAL * (12 * 0.9 + 18 * 0.75), rel=1e-12)
        assert rental[11] == pytest.approx(RENTAL * 0.9) and rental[12] == pytest.approx(RENTAL * 0.75)

    def test_dated_table_applies_the_row_in_force_on_each_month(self):
        # month m is 15 January 2027 plus m months: 15 March is the first on or after 1 March (month 2),
        # 15 July the first on or after 15 July (month 6); before the first row the price is today's
        table = {"dates": ["2027-03-01", "2027-07-15"], "factors": [1.2, 0.5]}
        s = r2({"rental_price_path": table}, finance__horizon_months=12, finance__start_date="2027-01-15")
        rental = finance.cash_flows(s).flows["rent"]["GPU rental"]
        assert rental / RENTAL == pytest.approx([1, 1] + [1.2] * 4 + [0.5] * 6, rel=1e-12)

    def test_a_month_end_start_keeps_to_the_calendar(self):
        # 31 January + 1 month is 28 February 2027: a row dated 1 March first applies in month 2
        assert finance._months_from(
            dt.date(2027, 1, 31), [dt.date(2027, 3, 1), dt.date(2026, 1, 1), dt.date(2099, 1, 1)], 12
        ) == [2, 0, 12]


class TestOtherPricesByHand:
    def test_hardware_path_prices_the_refresh(self):
        s = r2(
            {"hardware_price_path": {"yearly_factors": [1.0, 0.8, 0.6]}},
            finance__horizon_months=36,
            finance__useful_life_months=24,
        )
        own = finance.cash_flows(s).flows["own"]
        capex = 1_050_000 * 1.094 + 125_000 + 45_000  # R2's month-0 hardware (tests/test_finance.py)
        assert own["hardware capex"][0] == pytest.approx(capex)
        assert own["hardware refresh"][24] == pytest.approx(capex * 0.6)
        assert own["hardware refresh"].sum() == pytest.approx(capex * 0.6)

    def test_electricity_table(self):
        flat = r2({}, finance__horizon_months=12, finance__lead_time_months=0, finance__during_lead_time=None)
        table = {"dates": ["2026-07-01"], "factors": [1.5]}
        s = r2(
            {"electricity_price_path": table},
            finance__horizon_months=12,
            finance__lead_time_months=0,
            finance__during_lead_time=None,
            finance__start_date="2026-01-01",
        )
        base = finance.cash_flows(flat).flows["own"]["electricity"]
        assert np.all(base == base[0])
        got = finance.cash_flows(s).flows["own"]["electricity"]
        assert got == pytest.approx(base[0] * np.array([1.0] * 6 + [1.5] * 6), rel=1e-12)

    def test_api_yearly_factors(self):
        horizon = {"horizon_months": 18, "discount_rate_per_year": 0.0}
        flat = finance.cash_flows(patched(R1, {"finance": horizon}))
        s = patched(R1, {"finance": {**horizon, "trends": {"api_price_path": {"yearly_factors": [1.0, 0.5]}}}})
        bill = finance.cash_flows(s).total("api")
        month = flat.total("api")[0]
        assert bill.sum() == pytest.approx(month * (12 + 6 * 0.5), rel=1e-12)


def _with_reserved(one_year=None, three_year=None):
    """The catalog with nebius-h200 ($4.50 on demand) given 1- and 3-year reserved prices."""

    def change(row):
        if row.offer != "nebius-h200":
            return row
        return row.model_copy(
            update={"reserved_1y_price_per_gpu_hour": one_year, "reserved_3y_price_per_gpu_hour": three_year}
        )

    return catalog_with(cloud_offers=change)


class TestForwardCurveFromReserved:
    def test_the_catalog_prices_imply_the_steps(self):
        # p = 4.50, p1 = 3.60, p3 = 2.70: year 1 at 0.8, years 2-3 at (8.10 - 3.60) / 9 = 0.5, flat after
        assert formulas.forward_factors_from_reserved(4.5, 3.6, 2.7) == pytest.approx((0.8, 0.5), rel=1e-14)
        data = patched_data(
            H200,
            {
                "finance.horizon_months": 48,
                "finance.trends": {"rental_price_path": {"from_reserved": True}},
                "options.rent.reserved": None,
            },
            drop=("demand", "uncertainty"),
        )
        s = costmodel.Scenario.model_validate(data, context={"catalog": _with_reserved(3.6, 2.7)})
        rental = finance.cash_flows(s).flows["rent"]["GPU rental"]
        assert rental.sum() == pytest.approx(RENTAL * (12 * 0.8 + 36 * 0.5), rel=1e-12)

    def test_the_scenarios_reserved_term_comes_before_the_catalog(self):
        # R2's own 1-year term at 37 % off: p1 = 4.50 * 0.63 = 2.835; the catalog's 3-year 2.70
        data = patched_data(
            H200,
            {"finance.horizon_months": 24, "finance.trends": {"rental_price_path": {"from_reserved": True}}},
            drop=("demand", "uncertainty"),
        )
        s = costmodel.Scenario.model_validate(data, context={"catalog": _with_reserved(3.6, 2.7)})
        assert finance.reserved_forward_factors(s) == pytest.approx((0.63, (3 * 2.7 - 2.835) / 9), rel=1e-14)

    def test_a_missing_reserved_price_is_named(self):
        data = patched_data(H200, {"finance.trends": {"rental_price_path": {"from_reserved": True}}})
        with pytest.raises(costmodel.ScenarioError) as caught:
            costmodel.scenarios.validate_data(data)  # nebius-h200 has no 3-year price in the catalog
        ((field, value, reason),) = caught.value.problems
        assert field == "finance.trends.rental_price_path.from_reserved"
        assert "3-year" in reason and "reserved_3y_price_per_gpu_hour" in reason

    def test_a_three_year_price_below_a_third_of_the_one_year_is_refused(self):
        data = patched_data(
            H200,
            {"finance.trends": {"rental_price_path": {"from_reserved": True}}, "options.rent.reserved": None},
            drop=("uncertainty",),
        )
        with pytest.raises(costmodel.ScenarioError) as caught:
            costmodel.scenarios.validate_data(data, catalog=_with_reserved(3.6, 1.2))
        ((field, _, reason),) = caught.value.problems
        assert field == "finance.trends.rental_price_path.from_reserved" and "(3 p3 - p1) / 2" in reason
        with pytest.raises(ValueError, match="not positive"):
            formulas.forward_factors_from_reserved(4.5, 3.6, 1.2)


def _problems(changes):
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.scenarios.validate_data(patched_data(H200, changes))
    return [(field, reason) for field, _, reason in caught.value.problems]


@pytest.mark.parametrize(
    "changes, field, words",
    [
        (
            {"finance.trends": {"rental_price_change_per_year": -0.1, "rental_price_path": {"yearly_changes": [-0.1]}}},
            "finance.trends.rental_price_path",
            "either rental_price_change_per_year (-0.1) or rental_price_path",
        ),
        (
            {"finance.trends.hardware_price_path": {"yearly_changes": [-0.1, -1.0]}},
            "finance.trends.hardware_price_path.yearly_changes.1",
            "-1 is not above -1",
        ),
        (
            {"finance.trends.api_price_path": {"yearly_factors": [0.9, 0.0]}},
            "finance.trends.api_price_path.yearly_factors.1",
            "0 is not above 0",
        ),
        (
            {
                "finance.start_date": "2026-01-01",
                "finance.trends.electricity_price_path": {"dates": ["2026-06-01", "2026-03-01"], "factors": [1.1, 1.2]},
            },
            "finance.trends.electricity_price_path.dates.1",
            "2026-03-01 is not after the row before (2026-06-01)",
        ),
        (
            {
                "finance.start_date": "2026-01-01",
                "finance.trends.electricity_price_path": {"dates": ["2026-06-01"], "factors": [-2.0]},
            },
            "finance.trends.electricity_price_path.factors.0",
            "-2 is not above 0",
        ),
        (
            {
                "finance.start_date": "2026-01-01",
                "finance.trends.electricity_price_path": {"dates": ["2026-06-01"], "factors": [1.1, 1.2]},
            },
            "finance.trends.electricity_price_path.factors",
            "1 dates, 2 factors",
        ),
        (
            {"finance.trends.rental_price_path": {"yearly_changes": [0.1], "yearly_factors": [1.1]}},
            "finance.trends.rental_price_path.yearly_factors",
            "yearly_changes and yearly_factors given",
        ),
        (
            {"finance.trends.rental_price_path": {"source": "x"}},
            "finance.trends.rental_price_path.yearly_changes",
            "none given",
        ),
        (
            {"finance.trends.rental_price_path": {"yearly_changes": []}},
            "finance.trends.rental_price_path.yearly_changes",
            "is empty",
        ),
        (
            {"finance.trends.electricity_price_path": {"dates": ["2026-06-01"], "factors": [1.1]}},
            "finance.start_date",
            "electricity_price_path is a dated table: give start_date",
        ),
        (
            {"finance.trends.api_price_path": {"from_reserved": True}},
            "finance.trends.api_price_path.from_reserved",
            "rental_price_path only",
        ),
        (
            {"finance.trends.rental_price_path": {"yearly_changes": [True]}},
            "finance.trends.rental_price_path.yearly_changes.0",
            "number",
        ),
    ],
)
def test_bad_paths_name_the_field_value_and_rule(changes, field, words):
    problems = _problems(changes)
    assert [f for f, _ in problems] == [field]
    assert words in problems[0][1]


def test_a_path_round_trips_through_yaml(tmp_path):
    s = r2(
        {"rental_price_path": {"dates": ["2027-03-01"], "factors": [0.9], "source": "ASSUMPTION"}},
        finance__start_date="2027-01-15",
    )
    path = tmp_path / "s.yaml"
    costmodel.save_scenario(s, path)
    again = costmodel.load_scenario(path)
    assert again == s
    assert again.finance.trends.rental_price_path.dates == [dt.date(2027, 3, 1)]


def test_a_yearly_change_is_bounded_as_the_constant_rate():
    # Hostile-input finding: [1e6] gave a 300-digit present value, [1e14] an overflow; the constant rate's le=10.
    from costmodel.schema import PricePath

    with pytest.raises(Exception, match="above 10"):
        PricePath.model_validate({"yearly_changes": [1e6]})
    assert PricePath.model_validate({"yearly_changes": [10.0]}).yearly_changes == [10.0]

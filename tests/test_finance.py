"""The own cluster's full TCO: bill of materials, running costs, cash flows, NPV, loans, payback."""

import json

import numpy as np
import numpy_financial as npf
import pytest
from conftest import catalog_with, patched, patched_data
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel import formulas
from costmodel.cli import main
from costmodel.domain import finance
from costmodel.domain.costs import own_capex_lines, own_costs_at, own_facility_capex
from costmodel.paths import SCENARIO_DIR

HOURS = 8760 / 12
H200, TENK, R1 = "h200-24gpu-cluster", "h100-10k-cluster", "llama70b-vs-api"


def scenario(base=H200, **changes):
    """A bundled scenario with fields changed: ``finance__horizon_months=24``; R2 at steady demand.

    Steady, R2's 3 configured servers carry its 12,000 GPU-hours; its campaigns would size the
    cluster for their busiest hour (4 servers), and these figures are by hand on 3.
    """
    return patched(
        base, {k.replace("__", "."): v for k, v in changes.items()}, drop=("demand",) if base == H200 else ()
    )


def resolved_own(s):
    """The resolved own option of a scenario."""
    return costmodel.resolve(s).options["own"]


class TestCostLinesByHand:
    def test_h200_bill_of_materials(self):
        s = costmodel.load_scenario("h200-24gpu-cluster")
        lines = own_capex_lines(resolved_own(s), 3.0)
        # 3 DGX H200 at $350,000; fabric 9.4 % of server capex; 0.5 PB storage; racks $15,000 a server
        assert lines["servers"] == pytest.approx(1_050_000)
        assert lines["InfiniBand switches and cables"] == pytest.approx(0.094 * 1_050_000)
        assert lines["storage"] == pytest.approx(125_000)
        assert lines["racks and installation"] == pytest.approx(45_000)

    def test_h200_monthly_lines(self):
        s = costmodel.load_scenario("h200-24gpu-cluster")
        capex = 1_050_000 * 1.094 + 125_000 + 45_000
        got = own_costs_at(resolved_own(s), 3.0, 12_000.0)
        assert got["capex depreciation"] == pytest.approx(capex / 60)
        assert got["hardware support"] == pytest.approx(capex * 0.10 / 12)
        assert got["colocation"] == pytest.approx(3 * 10.2 * 194.95)
        drawn = 3 * 0.3 + 0.7 * 12_000 / (8 * HOURS)  # servers at full draw, on average
        assert got["electricity"] == pytest.approx(10.2 * 1.56 * HOURS * 0.0707 * drawn)
        # 0.5 FTE plus one per 250 GPUs: 0.596 FTE at $240,000 a year
        assert got["staffing"] == pytest.approx((0.5 + 24 / 250) * 240_000 / 12)

    def test_10k_cluster_spares_facility_and_capex_range(self):
        s = costmodel.load_scenario("h100-10k-cluster")
        bought = 1250 * 1.02  # 2 % hot spares
        lines = own_capex_lines(resolved_own(s), 1250.0)
        assert lines["servers"] == pytest.approx(bought * 310_000)
        assert lines["racks and installation"] == pytest.approx(bought * 15_000)
        hardware = sum(lines.values())
        assert 300e6 <= hardware <= 500e6  # cases.md R2: "$300-500 M in hardware"
        # own hall sized for the servers' maximum power: 1,275 x 10.2 kW = 13.005 MW at $17.5 M per MW
        assert own_facility_capex(resolved_own(s), 1250.0) == pytest.approx(bought * 10.2 / 1000 * 17.5e6)
        got = own_costs_at(resolved_own(s), 1250.0, 0.0)
        assert got["facility depreciation"] == pytest.approx(bought * 10.2 / 1000 * 17.5e6 / 240)
        assert "colocation" not in got
        # the hall's 240-month life outlasts the 60-month horizon: 180/240 of it is credited back
        residual = finance.cash_flows(s).flows["own"]["facility residual value"]
        assert residual[-1] == pytest.approx(-bought * 10.2 / 1000 * 17.5e6 * 180 / 240)
        assert got["electricity"] == pytest.approx(10.2 * 1.3 * HOURS * 0.0707 * bought * 0.3)
        assert got["staffing"] == pytest.approx((5 + bought * 8 / 250) * 240_000 / 12)

    def test_software_licences_and_managed_service(self):
        s = scenario(
            options__own__software_licences={"price_per_gpu_per_year": 4500, "currency": "USD", "source": "test"},
            options__own__staffing__managed_service_per_month=2000,
        )
        got = own_costs_at(resolved_own(s), 3.0, 0.0)
        assert got["software licences"] == pytest.approx(24 * 4500 / 12)
        assert got["managed service"] == pytest.approx(2000)


class TestMoney:
    def test_npv_against_numpy_financial_and_the_formula(self):
        flows = np.array([1000.0, 200.0, 200.0, 200.0, -150.0])
        rate = 0.08
        i = 1.08 ** (1 / 12) - 1
        by_hand = sum(f / (1 + i) ** m for m, f in enumerate(flows))
        assert formulas.present_value(flows, rate) == pytest.approx(by_hand, rel=1e-12)
        assert formulas.present_value(flows, rate) == pytest.approx(npf.npv(i, flows), rel=1e-12)

    def test_zero_discount_rate_npv_equals_tco(self):
        s = scenario(finance__discount_rate_per_year=0.0)
        result = finance.own_finance(s)
        assert result.npv == pytest.approx(result.tco, rel=1e-12)

    def test_loan_payment(self):
        # $1,000,000 over 48 months at 7 %: P i / (1 - (1 + i)^-n), i = 0.07 / 12
        i = 0.07 / 12
        by_hand = 1_000_000 * i / (1 - (1 + i) ** -48)
        assert formulas.loan_payment(1_000_000, 0.07, 48) == pytest.approx(by_hand, rel=1e-12)
        assert formulas.loan_payment(1_000_000, 0.07, 48) == pytest.approx(-npf.pmt(i, 48, 1_000_000), rel=1e-12)
        assert formulas.loan_payment(1_200, 0.0, 12) == pytest.approx(100)

    def test_loan_cash_flows_add_up(self):
        s = costmodel.load_scenario("h100-10k-cluster")
        flows = finance.cash_flows(s)
        own = flows.flows["own"]
        capex0 = sum(own_capex_lines(resolved_own(s), 1250.0).values())
        payment = formulas.loan_payment(0.8 * capex0, 0.07, 48)
        assert own["hardware capex"][0] == pytest.approx(0.2 * capex0)
        assert own["loan payments"][1] == pytest.approx(payment)
        assert own["loan payments"][48] == pytest.approx(payment)
        assert own["loan payments"][49] == 0
        assert own["loan payments"][0] == 0

    def test_loan_outlasting_the_horizon_is_paid_off_at_the_end(self):
        s = scenario(TENK, finance__horizon_months=24)
        own = finance.cash_flows(s).flows["own"]
        capex0 = sum(own_capex_lines(resolved_own(s), 1250.0).values())
        i, payment = 0.07 / 12, formulas.loan_payment(0.8 * capex0, 0.07, 48)
        balance = payment * (1 - (1 + i) ** -25) / i  # 25 payments left after months 1..23
        assert own["loan payments"][23] == pytest.approx(payment + balance, rel=1e-9)


class TestHorizon:
    def test_flat_trends_equal_the_monthly_figures_exactly(self):
        s = scenario()
        flows = finance.cash_flows(s)
        assert np.all(flows.total("rent") == costmodel.monthly_cost(s, "rent", 12_000.0))
        assert np.all(flows.volume == 12_000.0)

    def test_trends_compound_monthly(self):
        s = scenario(finance__trends={"rental_price_change_per_year": -0.2, "demand_growth_per_year": 0.5})
        flows = finance.cash_flows(s)
        assert flows.volume[12] == pytest.approx(12_000 * 1.5)
        assert flows.flows["rent"]["GPU rental"][12] == pytest.approx(12_000 * 1.5 * 4.5 * 0.8)

    def test_lead_time_is_served_by_rental(self):
        s = scenario()  # 3 months' lead time, rented meanwhile
        own = finance.cash_flows(s).flows["own"]
        assert list(own["stand-in during lead time"][:4]) == [54_000, 54_000, 54_000, 0]
        assert own["electricity"][2] == 0 and own["electricity"][3] > 0
        assert own["hardware capex"][0] == pytest.approx(1_050_000 * 1.094 + 125_000 + 45_000)

    def test_capex_is_counted_once(self):
        # no lead time, resale at book value (zero after 60 of 60 months): TCO = capex + running costs
        s = scenario(finance__lead_time_months=0, finance__during_lead_time=None)
        result = finance.own_finance(s)
        capex = 1_050_000 * 1.094 + 125_000 + 45_000
        running = sum(v for k, v in own_costs_at(resolved_own(s), 3.0, 12_000.0).items() if k != "capex depreciation")
        assert result.tco == pytest.approx(capex + 60 * running, rel=1e-12)

    # (24, 36): the hardware is bought again at month 24 (its useful life), so at month 36 it is
    # 12 months into a 24-month life: half its price on the straight line
    @pytest.mark.parametrize("depreciation, horizon, share", [(60, 36, 0.4), (24, 36, 0.5), (60, 60, 0.0)])
    def test_resale_at_book_value(self, depreciation, horizon, share):
        s = scenario(options__own__depreciation_months=depreciation, finance__horizon_months=horizon)
        resale = finance.cash_flows(s).flows["own"]["resale"]
        capex = 1_050_000 * 1.094 + 125_000 + 45_000
        assert resale[-1] == pytest.approx(-share * capex)
        assert np.count_nonzero(resale[:-1]) == 0

    def test_payback_never(self):
        s = scenario(workload__gpu_hours_per_month=2_000)
        result = finance.own_finance(s)
        assert result.payback_month is None
        payback = costmodel.comparison_output(costmodel.compare(s), s, uncertainty=False).finance.payback_month
        assert payback.value is None and payback.status == "never"

    def test_payback_is_the_month_after_which_own_stays_cheaper(self):
        s = costmodel.load_scenario("h100-10k-cluster")
        flows = finance.cash_flows(s)
        result = finance.own_finance(s, flows)
        m = result.payback_month  # whole months: by the end of month m - 1 (0-based) owning is ahead
        assert np.all(flows.cumulative("own")[m - 1 :] <= flows.cumulative("rent")[m - 1 :])
        assert flows.cumulative("own")[m - 2] > flows.cumulative("rent")[m - 2]
        assert m - 1 < result.payback_months <= m

    def test_ahead_only_in_month_zero_never_pays_back(self):
        # F26's kind: a finance lease (payments from month 0, small) against a partial-upfront commitment (a big
        # month 0): own's cumulative cash is below rent's in the first months, above at the end: never
        s = scenario(
            finance__lead_time_months=0,
            finance__during_lead_time=None,
            finance__lease={"kind": "finance", "rate_per_year": 0.09, "term_months": 60, "residual_share": 0.0},
            finance__rent_commitment={"gpus": 16, "payment": "partial_upfront", "upfront_share": 0.5},
            workload__gpu_hours_per_month=2_000,
        )
        flows = finance.cash_flows(s)
        ahead = flows.cumulative("own") <= flows.cumulative("rent")
        assert ahead[0] and not ahead[-1]
        result = finance.own_finance(s, flows)
        assert result.payback_month is None and result.payback_months is None

    def test_zero_utilisation_cost_per_gpu_hour_not_defined(self):
        s = scenario(workload__gpu_hours_per_month=0)
        result = finance.own_finance(s)
        assert result.cost_per_used_gpu_hour is None
        cost = costmodel.comparison_output(
            costmodel.compare(s), s, uncertainty=False
        ).finance.own_cost_per_used_gpu_hour
        assert cost.value is None and cost.status == "not_defined"
        with pytest.raises(ValueError, match="not defined"):
            finance.own_cost_per_used_gpu_hour(s, 0.0)

    def test_break_even_utilisation_closed_form(self):
        s = scenario()
        fixed = sum(own_costs_at(resolved_own(s), 3.0, 0.0).values())
        variable = 10.2 * 1.56 * HOURS * 0.0707 * 0.7 / (8 * HOURS)  # electricity per GPU-hour
        u = finance.break_even_utilisation(s, 4.5)
        assert u == pytest.approx(fixed / (24 * HOURS * (4.5 - variable)), rel=1e-9)
        assert finance.own_cost_per_used_gpu_hour(s, u) == pytest.approx(4.5, rel=1e-9)
        assert finance.break_even_utilisation(s, 0.05) is None  # below the running cost: never


def test_break_even_utilisation_is_on_the_cluster_the_own_option_is_priced_with():
    # R2's own option is stepped up from the 3 configured servers to 4 for the demand's busiest hour: the monthly
    # view prices 32 GPUs, 51.4 % busy at 12,000 GPU-h. The break-even utilisation was found on the 3 configured
    # (66.9 % against Nebius at 4.50 USD/GPU-h) and stated beside the 51.4 % of the 4 (a newcomer read it
    # backwards). The 4 servers' costs are linear in GPU-hours between two volumes they both serve: F + v.H from
    # the monthly view at 11,000 and 12,000 GPU-h, so u* = F / (32 x 730 x (4.50 - v)).
    from costmodel.domain.capacity import gpu_count
    from costmodel.domain.costs import monthly_cost
    from costmodel.presentation.charts import own_cost_lines

    r = costmodel.resolve(costmodel.load_scenario("h200-24gpu-cluster"))
    assert gpu_count(r, "own", 11_000.0) == gpu_count(r, "own", 12_000.0) == 32
    low, high = float(monthly_cost(r, "own", 11_000.0)), float(monthly_cost(r, "own", 12_000.0))
    variable = (high - low) / 1_000.0
    fixed = high - 12_000.0 * variable
    u = finance.break_even_utilisation(r, 4.5)
    assert u == pytest.approx(fixed / (32 * HOURS * (4.5 - variable)), rel=1e-9)
    assert u == pytest.approx(0.6265, abs=5e-5)
    # the own cost per used GPU-hour at the monthly view's utilisation is the monthly view's: 65,595.67 / 12,000
    assert finance.own_cost_per_used_gpu_hour(r, 12_000.0 / (32 * HOURS)) == pytest.approx(high / 12_000.0, rel=1e-9)
    # and the report's capex by line is what the cash flows pay for the 4 servers (1,716,600 USD, not 1,318,700)
    chart = own_cost_lines(r).to_dict()
    rows = chart["datasets"][chart["hconcat"][0]["data"]["name"]]
    capex = sum(row["cost"] for row in rows)
    flows = finance.cash_flows(r)
    assert capex == pytest.approx(float(flows.flows["own"]["hardware capex"].sum()), rel=1e-12)
    assert capex == pytest.approx(1_716_600.0, rel=1e-9)


def test_compare_json_has_the_decision_figures_with_units(capsys):
    assert main(["compare", str(SCENARIO_DIR / "h200-24gpu-cluster.yaml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["finance"]
    assert data["tco"]["own"]["unit"] == "USD" and data["npv"]["own"]["unit"] == "USD"
    assert data["own_cost_per_used_gpu_hour"]["unit"] == "USD/GPU-h"
    assert data["break_even_utilisation"]["nebius-h200"]["utilisation_share"]["unit"] == "-"
    assert data["payback_month"]["unit"] == "months" and data["payback_against"] == "rent"


@settings(max_examples=40, deadline=None)
@given(volume=st.floats(0, 60_000).map(lambda x: round(x, 3)), staff=st.floats(0.1, 5))
def test_cost_lines_sum_to_the_total(volume, staff):
    s = scenario(workload__gpu_hours_per_month=volume, options__own__staffing__minimum_fte=staff)
    for option in ("own", "rent"):
        parts = costmodel.monthly_cost_components(s, option, volume)
        assert sum(parts.values()) == pytest.approx(costmodel.monthly_cost(s, option, volume), rel=1e-12)
    flows = finance.cash_flows(s)
    for option in flows.flows:
        assert flows.total(option).sum() == pytest.approx(sum(v.sum() for v in flows.flows[option].values()))


def _doubled_catalog():
    return catalog_with(
        servers=lambda v: v.model_copy(update={"price": v.price * 2}),
        cloud_offers=lambda v: v.model_copy(update={"price_per_gpu_hour": v.price_per_gpu_hour * 2}),
        api_offers=lambda v: v.model_copy(
            update={  # every price of the row, the long-context ones included
                name: getattr(v, name) * 2
                for name in type(v).model_fields
                if name.endswith("_per_million") and getattr(v, name) is not None
            }
        ),
    )


@pytest.mark.parametrize("base", [R1, H200])
def test_doubling_every_price_doubles_every_cost(base):
    data = patched_data(base)
    own = data["options"]["own"]
    own["power"]["electricity_price_per_kwh"] *= 2
    own["colocation"]["price_per_kw_month"] *= 2
    for line in own.get("bill_of_materials", []):
        for key in ("price_per_server", "price_total"):
            if key in line:
                line[key] *= 2
    for staffing in (own["staffing"], data["options"]["rent"].get("staffing") or {}):
        if staffing:
            staffing["loaded_cost_per_fte_per_year"] *= 2
    plain = patched(base)
    doubled = costmodel.Scenario.model_validate(data, context={"catalog": _doubled_catalog()})
    checked = 0
    for option in plain.present_options():
        for volume in (0.0, plain.volume, 7 * plain.volume):
            a = costmodel.monthly_cost_components(plain, option, volume)
            b = costmodel.monthly_cost_components(doubled, option, volume)
            for name in a:
                assert b[name] == pytest.approx(2 * a[name], rel=1e-12), (option, name)
                checked += 1
    assert checked > 10


@settings(max_examples=50, deadline=None)
@given(low=st.floats(0.01, 1.0), high=st.floats(0.01, 1.0))
def test_more_utilisation_never_raises_the_cost_per_used_gpu_hour(low, high):
    s = scenario()
    low, high = sorted((low, high))
    assert finance.own_cost_per_used_gpu_hour(s, high) <= finance.own_cost_per_used_gpu_hour(s, low) * (1 + 1e-12)


def _error_fields(data):
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.scenarios.validate_data(data)
    return [field for field, _, _ in caught.value.problems]


@pytest.mark.parametrize(
    "path, value, field",
    [
        (("options", "own", "power", "pue"), 0.9, "options.own.power.pue"),
        (("options", "own", "power", "pue"), -1.5, "options.own.power.pue"),
        (("workload", "utilisation_ceiling"), 1.2, "workload.utilisation_ceiling"),
        (("options", "own", "depreciation_months"), 0, "options.own.depreciation_months"),
        (("finance", "loan"), {"rate_per_year": 0.05, "term_months": 72}, "finance.loan.term_months"),
        (("options", "own", "server"), "dgx-h900", "options.own.server"),
        (
            ("options", "own", "facility"),
            {"price_per_mw": 1e7, "depreciation_months": 240, "currency": "USD", "source": "x"},
            "options.own.colocation",
        ),
        (
            ("options", "own", "staffing"),
            {"fte": 0, "loaded_cost_per_fte_per_year": 1, "currency": "USD"},
            "options.own.staffing",
        ),
        (("finance", "during_lead_time"), "api", "finance.during_lead_time"),
    ],
)
def test_bad_input(path, value, field):
    assert _error_fields(patched_data(H200, {".".join(path): value})) == [field]


def test_rent_staffing_by_rule():
    # one FTE at least, plus one per 100 rented GPUs: 19 GPUs for 12,000 GPU-hours at 90 %
    s = scenario(
        options__rent__staffing={
            "minimum_fte": 1,
            "gpus_per_fte": 100,
            "loaded_cost_per_fte_per_year": 120000,
            "currency": "USD",
        }
    )
    parts = costmodel.monthly_cost_components(s, "rent", 12_000.0)
    gpus = -(-12_000 // (HOURS * 0.9))
    assert parts["staffing"] == pytest.approx((1 + gpus / 100) * 120000 / 12)


@pytest.mark.parametrize(
    "path, value",
    [
        (("options", "own", "staffing", "managed_service_per_month"), 1e308),
        (("options", "own", "power", "electricity_price_per_kwh"), 1e-300),
    ],
)
def test_implausible_magnitudes_name_the_field(path, value):
    assert _error_fields(patched_data(H200, {".".join(path): value})) == [".".join(path)]

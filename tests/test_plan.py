"""A two-year capacity plan with demand growth, by hand: two servers now, one more in year 2."""

import json

import numpy as np
import pytest
from conftest import patched, patched_data, write_scenario

from costmodel.cli import main
from costmodel.domain.costs import own_costs_at
from costmodel.domain.plan import growth_plan
from costmodel.resolved import resolve

# R2 without reserved or spot capacity, demand steady at 12,000 GPU-hours a month growing 40 % a year,
# month by month as in the options' cash flows: month m uses 12,000 x 1.4^(m/12) GPU-hours. Owned GPUs
# serve at most R2's 0.9 utilisation ceiling (issue 26): a server serves 7.2 GPUs busy, 5,256 GPU-hours a
# month. Year 1 averages 12,000 x mean(1.4^(m/12), m < 12) = 14,067 GPU-hours (19.3 GPUs busy): 2 servers
# would leave 4.9 GPUs busy on demand at 4.50 USD (16.0 k a month), more than a third server (~12.6 k), so
# 3; year 2 averages 1.4 x that, 27.0 GPUs busy: 3 servers leave 5.4 (17.6 k a month), so a fourth.
CHANGES = {
    "demand": {"kind": "steady", "source": "test"},
    "options.rent.reserved": None,
    "options.rent.spot": None,
    "finance.horizon_months": 24,
    "finance.trends": {"demand_growth_per_year": 0.4},
    "finance.capacity_plan": {"source": "test"},
}
SERVER = 350_000 * 1.094 + 15_000  # a DGX H200 with its 9.4 % fabric and $15,000 racks


def plan_of(**extra):
    return growth_plan(patched("h200-24gpu-cluster", {**CHANGES, **extra}))


def hours(m):
    """GPU-hours of work in month m. [GPU-h]"""
    return 12_000 * 1.4 ** (np.asarray(m) / 12)


def test_two_year_plan_buys_once_more_in_year_two():
    plan = plan_of(**{"finance.lead_time_months": 0, "finance.during_lead_time": None})
    year1 = float(hours(np.arange(12)).mean())
    assert year1 == pytest.approx(14_067, abs=1) and [y.own_servers for y in plan.years] == [3, 4]
    assert plan.years[0].gpu_hours_per_month == pytest.approx(year1)
    # month 0: three servers and the $125,000 of storage; month 12: one more server
    assert plan.purchases == ((0, 3, pytest.approx(3 * SERVER + 125_000)), (12, 1, pytest.approx(SERVER)))
    hardware = plan.flows["hardware bought"]
    assert hardware[0] == pytest.approx(1_318_700) and hardware[12] == pytest.approx(397_900)
    assert np.count_nonzero(hardware) == 2
    # each month rents on demand the work above what the servers serve (3 x 5,256, then 4 x 5,256)
    servers = np.where(np.arange(24) < 12, 3, 4)
    rented = np.maximum(hours(np.arange(24)) - servers * 5_256, 0.0) * 4.50
    assert plan.flows["rented capacity"] == pytest.approx(rented)
    assert rented[0] == 0 and rented[11] > 0  # the third server is idle at first, short by month 11
    own = resolve(patched("h200-24gpu-cluster", CHANGES)).options["own"]
    month18 = own_costs_at(own, 4.0, float(hours(18)))  # 19,877 GPU-hours: within the 4 servers' 21,024
    assert plan.flows["electricity"][18] == pytest.approx(month18["electricity"])
    # resale at month 23 on the straight line over 60 months: 24 and 12 months old
    assert plan.flows["resale"][-1] == pytest.approx(-(1_318_700 * 0.6 + 397_900 * 0.8))
    assert plan.tco == pytest.approx(float(plan.total().sum()))


def test_the_lead_time_moves_the_order_earlier_and_rents_meanwhile():
    plan = plan_of()  # R2's 3-month lead time: the work rented on demand until the servers are online
    assert [m for m, _n, _p in plan.purchases] == [0, 9]
    assert plan.flows["rented capacity"][:3] == pytest.approx(hours(np.arange(3)) * 4.50)
    assert plan.flows["rented capacity"][3] == pytest.approx(max(float(hours(3)) - 3 * 5_256, 0.0) * 4.50)
    assert "electricity" in plan.flows and not np.any(plan.flows["electricity"][:3])


def test_a_plan_that_buys_nothing_costs_the_cheapest_rented_way_month_by_month():
    # servers dearer than renting: the plan buys none, has no lead time, and every month costs renting
    # that month's work on demand, the rent option's own cash flow (the same months, the same growth)
    from costmodel.domain.finance import cash_flows

    changes = {"overrides": {"values": {"options.own.server_price": 5_000_000}, "source": "test"}}
    plan = plan_of(**changes)
    assert plan.purchases == () and set(plan.flows) == {"hardware bought", "rented capacity"}
    assert plan.flows["rented capacity"] == pytest.approx(hours(np.arange(24)) * 4.50)
    rent = cash_flows(patched("h200-24gpu-cluster", {**CHANGES, **changes})).flows["rent"]
    assert plan.flows["rented capacity"] == pytest.approx(sum(rent.values()))


def test_compare_reports_the_plan(tmp_path, capsys):
    path = write_scenario(tmp_path, patched_data("h200-24gpu-cluster", CHANGES), "plan.yaml")
    assert main(["compare", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["capacity_plan"]
    assert [p["month"] for p in data["purchases"]] == [0, 9]
    assert main(["compare", str(path)]) == 0
    assert "Capacity plan: buy 3 servers in month 0, 1 more in month 9; the rest rented" in capsys.readouterr().out


def test_the_plan_is_a_way_to_pay_and_the_verdict_names_what_it_buys():
    # issue 26: the verdict above a capacity plan ranks it with the options on the present value, so it
    # never names an option the plan does not buy; here the plan (2 servers now, 1 in month 9, the
    # shortfall rented) is below owning 3 servers from the start and below renting it all
    from costmodel.domain.compare import compare

    s = patched("h200-24gpu-cluster", CHANGES)
    c = compare(s)
    d = c.decision
    assert d.measure == "present_value" and d.winner == "plan"
    assert d.figure("plan") == pytest.approx(c.plan.npv, rel=1e-12)
    assert (
        d.winning.label
        == "Capacity plan: buy 3 × dgx-h200 in month 0, 1 more in month 9; the rest rented in years 1, 2"
    )
    assert d.figure("plan") < min(d.figure("own"), d.figure("rent"))


def test_the_marginal_view_leaves_the_configured_servers_out_of_the_plan_too():
    # finance.view: marginal: R2's 3 configured servers are sunk for the own option and for the plan alike;
    # the plan's first purchase (3 servers, the 3 owned) costs nothing; the fourth, in month 12, is paid and
    # resold at 12 months old (80 % on the 60-month straight line)
    plan = plan_of(**{"finance.lead_time_months": 0, "finance.during_lead_time": None, "finance.view": "marginal"})
    assert [y.own_servers for y in plan.years] == [3, 4]
    hardware = plan.flows["hardware bought"]
    assert hardware[0] == 0 and hardware[12] == pytest.approx(SERVER) and hardware.sum() == pytest.approx(SERVER)
    assert plan.flows["resale"][-1] == pytest.approx(-0.8 * SERVER)


def test_a_plan_beside_a_loan_is_not_ranked():
    # the plan is paid in cash; beside a loan-financed own option it would not compare like for like
    from costmodel.domain.compare import compare

    c = compare(
        patched(
            "h200-24gpu-cluster",
            {**CHANGES, "finance.loan": {"rate_per_year": 0.07, "term_months": 24, "down_payment_share": 0.2}},
        )
    )
    assert c.plan is not None and "plan" not in c.decision.candidates

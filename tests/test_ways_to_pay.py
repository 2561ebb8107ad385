"""Leases, reserved commitments, the marginal view and escalation in the cash flows, by hand."""

import numpy as np
import pytest
from conftest import patched

from costmodel.domain import finance
from costmodel.domain.compare import compare
from costmodel.domain.costs import own_costs_at
from costmodel.presentation.output import comparison_output
from costmodel.resolved import resolve

H200 = "h200-24gpu-cluster"
CAPEX = 1_050_000 * 1.094 + 125_000 + 45_000  # R2 hardware, bought in month 0
RENT_MONTH = 12_000 * 4.50


def r2(**changes):
    """R2 at steady demand (3 servers carry it; its campaigns would size the cluster for their peak)."""
    return patched(H200, {k.replace("__", "."): v for k, v in changes.items()}, drop=("demand",))


def running_month(s):
    parts = own_costs_at(resolve(s).options["own"], 3.0, 12_000.0)
    return sum(v for k, v in parts.items() if k != "capex depreciation")


def test_finance_lease_by_hand():
    s = r2(
        finance__lease={
            "kind": "finance",
            "rate_per_year": 0.06,
            "term_months": 36,
            "residual_share": 0.1,
            "source": "illustrative lease quote",
        }
    )
    own = finance.cash_flows(s).flows["own"]
    i = 0.06 / 12
    # annuity due that repays the price less the discounted 10 % buy-out
    payment = (CAPEX - 0.1 * CAPEX / (1 + i) ** 36) * i / ((1 - (1 + i) ** -36) * (1 + i))
    assert own["lease payments"][:36] == pytest.approx(np.full(36, payment))
    assert np.count_nonzero(own["lease payments"][36:]) == 0
    assert own["lease buy-out"][36] == pytest.approx(0.1 * CAPEX)
    assert own["hardware capex"][0] == 0
    tco = finance.own_finance(s).tco
    assert tco == pytest.approx(36 * payment + 0.1 * CAPEX + 57 * running_month(s) + 3 * RENT_MONTH, rel=1e-12)


def test_finance_lease_still_running_at_the_horizon_is_paid_off():
    s = r2(
        finance__horizon_months=24,
        finance__lease={"kind": "finance", "rate_per_year": 0.0, "term_months": 36, "residual_share": 0.1},
    )
    own = finance.cash_flows(s).flows["own"]
    payment = 0.9 * CAPEX / 36  # zero rate: (price - buy-out) / term
    # at month 23: the 12 payments of months 24..35 and the buy-out, undiscounted at a zero rate
    assert own["lease buy-out"][23] == pytest.approx(12 * payment + 0.1 * CAPEX)


def test_operating_lease_is_leased_again_and_never_resold():
    s = r2(
        finance__horizon_months=72,
        finance__lease={"kind": "operating", "rate_per_year": 0.0, "term_months": 36, "residual_share": 0.25},
    )
    own = finance.cash_flows(s).flows["own"]
    payment = 0.75 * CAPEX / 36  # zero rate: the lessor recovers price less its residual
    assert own["lease payments"] == pytest.approx(np.full(72, payment))
    assert own["resale"][-1] == 0 and "hardware refresh" not in own


def test_all_upfront_one_year_commitment():
    # 16 GPUs reserved for 1 year at 37 % off Nebius's $4.50 (R2's reserved block), paid at the start of
    # month 0; at R2's 0.9 utilisation ceiling they serve 16 x 730 x 0.9 = 10,512 GPU-hours a month, so the
    # 1,488 above are paid on demand
    s = r2(finance__horizon_months=12, finance__rent_commitment={"gpus": 16, "payment": "all_upfront"})
    flows = finance.cash_flows(s)
    rent = flows.flows["rent"]
    whole = 16 * 730 * 12 * 4.50 * (1 - 0.37)  # 397,353.60
    assert rent["reserved commitment, up front"][0] == pytest.approx(whole)
    assert whole == pytest.approx(397_353.60)
    assert np.count_nonzero(rent["reserved commitment, up front"][1:]) == 0
    assert np.count_nonzero(rent["reserved commitment"]) == 0
    assert rent["GPU rental"] == pytest.approx(np.full(12, (12_000 - 16 * 730 * 0.9) * 4.50))
    assert flows.at_start("rent")[0] == pytest.approx(whole)  # paid up front: at the term's start


def test_partial_and_no_upfront_commitments():
    whole = 16 * 730 * 12 * 4.50 * 0.63
    rent = finance.cash_flows(
        r2(
            finance__horizon_months=24,
            finance__rent_commitment={"gpus": 16, "payment": "partial_upfront", "upfront_share": 0.5},
        )
    ).flows["rent"]
    partial = rent["reserved commitment"] + rent["reserved commitment, up front"]
    assert partial[0] == pytest.approx(0.5 * whole + 0.5 * whole / 12)
    assert partial[12] == pytest.approx(0.5 * whole + 0.5 * whole / 12)  # the second term
    assert partial[5] == pytest.approx(0.5 * whole / 12)
    assert rent["reserved commitment, up front"][[0, 12]] == pytest.approx([0.5 * whole] * 2)
    monthly = finance.cash_flows(r2(finance__horizon_months=24, finance__rent_commitment={"gpus": 16})).flows["rent"][
        "reserved commitment"
    ]
    assert monthly == pytest.approx(np.full(24, whole / 12))


def test_commitment_needs_a_reserved_block():
    s = r2(**{"options__rent__reserved": None, "finance__rent_commitment": {"gpus": 16}})
    with pytest.raises(ValueError, match="reserved"):
        finance.cash_flows(s)


def test_marginal_view_treats_the_configured_servers_as_sunk():
    full = finance.own_finance(r2())
    marginal = finance.own_finance(r2(finance__view="marginal"))
    assert finance.cash_flows(r2(finance__view="marginal")).flows["own"]["hardware capex"][0] == 0
    assert full.tco - marginal.tco == pytest.approx(CAPEX)


def test_loan_and_lease_together_are_refused():
    with pytest.raises(ValueError, match="lease"):
        patched("h100-10k-cluster", {"finance.lease": {"kind": "finance", "rate_per_year": 0.05, "term_months": 36}})


def test_electricity_and_salary_escalation():
    base = finance.cash_flows(r2()).flows["own"]
    up = finance.cash_flows(
        r2(finance__trends={"electricity_price_change_per_year": 0.05, "salary_change_per_year": 0.03})
    ).flows["own"]
    assert up["electricity"][24] == pytest.approx(base["electricity"][24] * 1.05**2)
    assert up["staffing"][36] == pytest.approx(base["staffing"][36] * 1.03**3)
    assert up["hardware support"][36] == pytest.approx(base["hardware support"][36])


def test_real_discount_rate_by_fisher():
    s = r2(finance__trends={"inflation_per_year": 0.03, "source": "ASSUMPTION: 3 % inflation"})
    result = finance.own_finance(s)
    # (1 + 8 %) / (1 + 3 %) - 1 = 4.854 %
    assert result.real_discount_rate_per_year == pytest.approx(1.08 / 1.03 - 1, rel=1e-12)
    real = comparison_output(compare(s), s, uncertainty=False).finance.real_discount_rate_per_year
    assert real.value == pytest.approx(0.048543689, abs=1e-9) and real.unit == "1/year"

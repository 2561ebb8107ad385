"""The after-tax view, by hand: MACRS 5-year shield (IRS Publication 946 Table A-1), bonus, resale, bills."""

import numpy as np
import pytest
from conftest import patched

from costmodel.catalog import default_catalog
from costmodel.domain import finance
from costmodel.domain.compare import compare
from costmodel.domain.tax import after_tax
from costmodel.presentation.output import comparison_output
from costmodel.resolved import resolve

H200 = "h200-24gpu-cluster"
CAPEX = 1_050_000 * 1.094 + 125_000 + 45_000  # R2 hardware, bought in month 0
MACRS_5 = [0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576]  # IRS Publication 946, Table A-1, 5-year, half-year


def r2(**changes):
    """R2 at steady demand (3 servers carry it; its campaigns would size the cluster for their peak)."""
    return patched(H200, {k.replace("__", "."): v for k, v in changes.items()}, drop=("demand",))


def taxed(s):
    r = resolve(s)
    return after_tax(r, finance.cash_flows(r))


def yearly(values):
    return [float(values[12 * y : 12 * y + 12].sum()) for y in range(len(values) // 12)]


def test_the_macrs_table_is_the_irs_one():
    assert default_catalog().depreciation_table("macrs_5") == pytest.approx(MACRS_5)


def test_macrs_5_year_shield_by_hand():
    # 72 months, no refresh within them, nothing left to sell: the whole cost is deducted on the table
    s = r2(
        finance__horizon_months=72,
        finance__useful_life_months=72,
        finance__tax={"rate": 0.21, "depreciation": "macrs_5", "source": "US federal corporate rate"},
    )
    shield = taxed(s).flows["own"]["tax saved on depreciation"]
    expected = [-0.21 * CAPEX * p for p in MACRS_5]  # year 1: -0.21 x 1,318,700 x 20 % = -55,385.40
    assert yearly(shield) == pytest.approx(expected, rel=1e-12)
    assert yearly(shield)[0] == pytest.approx(-55_385.40)


def test_bonus_depreciation_in_the_month_of_purchase():
    s = r2(
        finance__horizon_months=72,
        finance__useful_life_months=72,
        finance__tax={"rate": 0.21, "depreciation": "macrs_5", "bonus_share": 0.6},
    )
    shield = taxed(s).flows["own"]["tax saved on depreciation"]
    # 60 % at once, the other 40 % on the table: year 1 deducts 0.6 + 0.4 x 0.2 = 68 %
    assert shield[0] == pytest.approx(-0.21 * CAPEX * (0.6 + 0.4 * 0.2 / 12))
    assert yearly(shield)[1] == pytest.approx(-0.21 * CAPEX * 0.4 * 0.32)


def test_resale_is_taxed_above_the_remaining_basis():
    # straight line over 60 months for tax; sold after 36 months at half its price:
    # 36/60 deducted while held, 40 % written off at the sale, tax on the 50 % proceeds
    s = r2(
        finance__horizon_months=36,
        finance__resale_share_at_horizon=0.5,
        finance__tax={"rate": 0.25, "depreciation": "straight_line"},
    )
    own = taxed(s).flows["own"]
    assert own["tax saved on depreciation"][:35] == pytest.approx(np.full(35, -0.25 * CAPEX / 60))
    assert own["tax saved on depreciation"][35] == pytest.approx(-0.25 * CAPEX * (1 / 60 + 0.4))
    assert own["tax on resale"][35] == pytest.approx(0.25 * 0.5 * CAPEX)
    # net: tax on the gain over the basis, 0.25 x (0.5 - 0.4) x capex
    assert own["tax on resale"][35] + own["tax saved on depreciation"][35] + 0.25 * CAPEX / 60 == pytest.approx(
        0.25 * 0.1 * CAPEX
    )


def test_rental_bills_are_deducted_as_paid_and_both_views_are_reported():
    s = r2(finance__tax={"rate": 0.21, "depreciation": "macrs_5"})
    flows = taxed(s)
    rent_before = finance.cash_flows(s).total("rent")
    assert flows.total("rent") == pytest.approx(rent_before * 0.79)  # 12,000 GPU-h x $4.50 x (1 - 21 %)
    result = finance.own_finance(s)
    assert result.after_tax_tco_by_option["rent"] == pytest.approx(0.79 * 60 * 54_000)
    assert result.tco_by_option["rent"] == pytest.approx(60 * 54_000)  # the before-tax view is unchanged
    shown = comparison_output(compare(s), s, uncertainty=False).finance.after_tax
    assert shown is not None and shown.tax_rate.value == 0.21 and shown.npv["own"].unit == "USD"
    assert shown.tco["rent"].value == pytest.approx(0.79 * 60 * 54_000)


def test_loan_interest_is_deducted():
    s = patched("h100-10k-cluster", {"finance.tax": {"rate": 0.2, "depreciation": "straight_line"}})
    r = resolve(s)
    flows = finance.cash_flows(r)
    interest = -after_tax(r, flows).flows["own"]["tax saved on loan interest"] / 0.2
    loan = r.finance.loan
    principal = flows.hardware_purchases[0] * (1 - loan.down_payment_share)
    # month 1's interest: the whole principal for one month at the nominal rate / 12
    assert interest[1] == pytest.approx(principal * loan.rate_per_year / 12)
    assert interest[0] == 0

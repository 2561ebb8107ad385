"""The after-tax view of the cash flows: tax saved on expenses, depreciation and loan interest; tax on resale.

Conventions (simplifications a reviewer should know):

* tax is saved or paid in the month the deduction or the income arises (no quarterly
  instalments, no carry-forward: losses are assumed to offset other income);
* running costs, rental and API bills, and the stand-in during the lead time are deducted
  as paid; loan interest (not principal) is deducted as paid;
* hardware is depreciated for tax from the month it is bought, on the tax block's schedule
  (straight line, declining balance, or MACRS 5-year from IRS Publication 946 Table A-1
  spread evenly over the months of each recovery year), after any bonus share; an own
  facility is depreciated straight-line over its life;
* hardware sold (at a refresh or at the horizon) is taxed on its proceeds, and its remaining
  tax basis is deducted in the month of sale (tax on the gain = rate × (proceeds − basis)).
"""

from __future__ import annotations

import numpy as np
import numpy_financial as npf

from .. import formulas
from ..resolved import Resolved
from ..results import CashFlows, CashLine
from ..units import MONTHS_PER_YEAR
from .capacity import own_option

NOT_EXPENSES = (
    CashLine.HARDWARE_CAPEX,
    CashLine.LOAN_PAYMENTS,
    CashLine.FACILITY_CAPEX,
    CashLine.RESALE,
    CashLine.FACILITY_RESIDUAL,
    CashLine.REFRESH,
    CashLine.REFRESH_RESALE,
    CashLine.LEASE_BUYOUT,
)
"""Own cash lines that are not deductible expenses (capital, financing, proceeds); a finance lease's
payments are not either (the hardware is depreciated instead; the interest in them is not deducted,
a conservative simplification). An operating lease's payments are expenses."""


def useful_life(r: Resolved) -> int | np.ndarray:
    """Months after which the own hardware is bought again: the finance block's, else the depreciation period.

    Whole months (an int, or an int array for a sampled depreciation period).
    """
    life = r.finance.useful_life_months
    months = np.floor(np.asarray(life if life is not None else own_option(r).depreciation_months, dtype=float))
    return int(months) if months.ndim == 0 else months.astype(int)


def tax_depreciation_shares(r: Resolved, months: int) -> np.ndarray:
    """Share of hardware cost deducted for tax in each month since purchase, on the tax block's schedule. [-]"""
    tax = r.finance.tax
    life = tax.life_months if tax.life_months is not None else own_option(r).depreciation_months
    if tax.depreciation == "macrs_5":
        return formulas.depreciation_shares(
            "table", months, bonus_share=tax.bonus_share, table=r.catalog.depreciation_table("macrs_5")
        )
    return formulas.depreciation_shares(
        tax.depreciation, months, life_months=life, factor=tax.declining_factor, bonus_share=tax.bonus_share
    )


def _cohorts(purchases: np.ndarray, life: int, horizon: int):
    """Each purchase month with its price and the month it is sold (replaced, or the horizon's last month)."""
    for month in np.flatnonzero(purchases):
        sold = month + life if month + life < horizon else horizon - 1
        yield int(month), float(purchases[month]), int(sold), bool(month + life < horizon)


def after_tax(r: Resolved, flows: CashFlows) -> CashFlows:
    """The cash flows with the tax lines added to each option (tax saved negative, tax paid positive).

    Raises
    ------
    ValueError
        The scenario has no ``finance.tax`` block.
    """
    finance = r.finance
    tax = finance.tax if finance is not None else None
    if finance is None or tax is None:
        raise ValueError("the after-tax view needs a finance.tax block (rate, depreciation)")
    rate = tax.rate
    horizon = flows.months.size
    out: dict[str, dict[str, np.ndarray]] = {}
    for option, lines in flows.flows.items():
        new = dict(lines)
        if option != "own":
            new[CashLine.TAX_ON_EXPENSES] = np.asarray(-formulas.tax_shield(sum(lines.values()), rate))
            out[option] = new
            continue
        lease = finance.lease
        capital = NOT_EXPENSES + ((CashLine.LEASE_PAYMENTS,) if lease is not None and lease.kind == "finance" else ())
        expenses = sum(v for k, v in lines.items() if k not in capital)
        new[CashLine.TAX_ON_EXPENSES] = np.asarray(-formulas.tax_shield(np.asarray(expenses, dtype=float), rate))
        shares = tax_depreciation_shares(r, horizon)
        deduction = np.zeros(horizon)
        life = useful_life(r)
        assert isinstance(life, int), "after-tax flows are of one scenario, so its useful life is one number"
        purchases = flows.hardware_purchases if flows.hardware_purchases is not None else np.zeros(0)
        for month, price, sold, replaced in _cohorts(purchases, life, horizon):
            held_months = sold - month + (0 if replaced else 1)  # deductions while held
            deduction[month : month + held_months] += price * shares[:held_months]
            deduction[sold] += price * (1.0 - shares[:held_months].sum())  # basis written off at sale
        facility = flows.facility_purchases
        own = own_option(r)
        if facility is not None and np.any(facility) and own.facility_depreciation_months:
            straight = formulas.depreciation_shares(
                "straight_line", horizon, life_months=own.facility_depreciation_months
            )
            for month in np.flatnonzero(facility):
                deduction[month:] += facility[month] * straight[: horizon - month]
                left = 1.0 - straight[: horizon - month].sum()
                deduction[-1] += facility[month] * left  # basis against the residual credited at the end
        new[CashLine.TAX_ON_DEPRECIATION] = np.asarray(-formulas.tax_shield(deduction, rate))
        proceeds = -sum(
            lines.get(k, 0.0) for k in (CashLine.RESALE, CashLine.REFRESH_RESALE, CashLine.FACILITY_RESIDUAL)
        )
        new[CashLine.TAX_ON_RESALE] = np.asarray(
            formulas.tax_shield(np.asarray(proceeds, dtype=float) + np.zeros(horizon), rate)
        )
        loan = finance.loan
        if loan is not None and flows.hardware_purchases is not None:
            principal = flows.hardware_purchases[0] * (1.0 - loan.down_payment_share)
            periods = np.arange(1, horizon)
            paying = periods <= loan.term_months
            interest = np.zeros(horizon)
            interest[1:][paying] = -npf.ipmt(
                loan.rate_per_year / MONTHS_PER_YEAR, periods[paying], loan.term_months, principal
            )
            new[CashLine.TAX_ON_INTEREST] = np.asarray(-formulas.tax_shield(interest, rate))
        out[option] = new
    return CashFlows(
        flows.months,
        flows.volume,
        flows.gpu_hours,
        flows.servers,
        out,
        flows.online_month,
        flows.hardware_purchases,
        flows.facility_purchases,
    )


__all__ = ["NOT_EXPENSES", "after_tax", "tax_depreciation_shares", "useful_life"]

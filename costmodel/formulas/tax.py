"""Tax depreciation schedules and the tax shield.

References
----------
.. [1] IRS Publication 946, *How To Depreciate Property*, Appendix A, Table A-1 (MACRS,
   half-year convention) and chapter 3 (special depreciation allowance, "bonus").
.. [2] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 6 (depreciation
   tax shield = tax rate × depreciation).
"""

from __future__ import annotations

import numpy as np

from ..units import MONTHS_PER_YEAR
from .shapes import Numbers, NumbersOrList, Values


def spread_yearly(yearly_shares: NumbersOrList, months: int) -> np.ndarray:
    """Monthly shares from yearly ones: each year's share spread evenly over its 12 months. [-]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> spread_yearly([0.6, 0.4], 24)[[0, 11, 12]].round(6).tolist()
    [0.05, 0.05, 0.033333]
    """
    yearly = np.asarray(yearly_shares, dtype=float)
    monthly = np.repeat(yearly / MONTHS_PER_YEAR, MONTHS_PER_YEAR)
    out = np.zeros(int(months))
    out[: min(out.size, monthly.size)] = monthly[: out.size]
    return out


def declining_balance_shares(life_months: int, factor: float, months: int) -> np.ndarray:
    """Monthly shares of cost deducted under declining balance switching to straight line. [-]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    life_months
        Tax life N. [months]
    factor
        2.0 for double declining balance, 1.5 for 150 %. [-]
    months
        Months to return. [months]

    Notes
    -----
    Each month deducts the larger of factor/N × remaining basis and the remaining basis
    spread straight-line over the months left, so the cost is fully deducted in N months.

    References
    ----------
    .. [1] IRS Publication 946, *How To Depreciate Property*, chapter 4 (declining balance switching to straight
       line).

    Examples
    --------
    >>> shares = declining_balance_shares(10, 2.0, 12)
    >>> round(float(shares[0]), 6), round(float(shares.sum()), 9)
    (0.2, 1.0)
    """
    out = np.zeros(int(months))
    remaining = 1.0
    for m in range(min(int(months), int(np.ceil(life_months)))):
        left = life_months - m
        out[m] = max(remaining * factor / life_months, remaining / left)
        remaining -= out[m]
    return out


def depreciation_shares(
    method: str,
    months: int,
    life_months: int = 60,
    factor: float = 2.0,
    bonus_share: float = 0.0,
    table: NumbersOrList | None = None,
) -> np.ndarray:
    """Share of an asset's cost deducted for tax in each month since it was bought. [-]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    method
        ``straight_line`` (1/N a month), ``declining_balance`` (:func:`declining_balance_shares`)
        or ``table`` (yearly shares, e.g. MACRS 5-year from IRS Publication 946 Table A-1,
        each spread over its 12 months).
    months
        Length of the result. [months]
    life_months
        Tax life for the straight line and declining balance. [months]
    factor
        Declining-balance factor. [-]
    bonus_share
        Share of the cost deducted at once in the month of purchase (bonus depreciation);
        the rest follows the schedule. [-]
    table
        Yearly shares for ``table``. [-]

    Notes
    -----
    d_m = b·[m = 0] + (1 − b)·s_m.

    References
    ----------
    .. [1] IRS Publication 946, *How To Depreciate Property*, Appendix A, Table A-1 (MACRS, half-year convention)
       and chapter 3 (special depreciation allowance, "bonus").

    Examples
    --------
    >>> macrs = depreciation_shares("table", 72, table=[0.2, 0.32, 0.192, 0.1152, 0.1152, 0.0576])
    >>> round(float(macrs[:12].sum()), 6), round(float(macrs.sum()), 6)
    (0.2, 1.0)
    >>> round(float(depreciation_shares("straight_line", 3, life_months=60, bonus_share=0.5)[0]), 6)
    0.508333
    """
    if method == "straight_line":
        base = np.where(np.arange(int(months)) < life_months, 1.0 / life_months, 0.0)
    elif method == "declining_balance":
        base = declining_balance_shares(life_months, factor, months)
    elif method == "table":
        if table is None:
            raise ValueError("a table depreciation needs table (the yearly shares)")
        base = spread_yearly(table, months)
    else:
        raise ValueError(f"unknown depreciation method {method!r}")
    out = (1.0 - bonus_share) * base
    if out.size:
        out[0] += bonus_share
    return out


def tax_shield(deductions: Numbers, tax_rate: Numbers) -> Values:
    """Tax saved by deductions. [currency]

    Notes
    -----
    T = t · D.

    References
    ----------
    .. [1] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 6 (depreciation tax shield = tax rate ×
       depreciation).

    Examples
    --------
    >>> tax_shield(1_000_000 * 0.2, 0.21)
    42000.0
    """
    return deductions * tax_rate


__all__ = ["declining_balance_shares", "depreciation_shares", "spread_yearly", "tax_shield"]

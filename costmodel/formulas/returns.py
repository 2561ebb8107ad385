"""Returns of an investment: NPV conventions, IRR, MIRR, ROI, payback, the Fisher relation, residual curves.

Conventions: cash flows are given one per period in order; a *gain* series has the
investment negative and the savings positive (what numpy-financial's ``irr`` expects).

References
----------
.. [1] numpy-financial documentation: ``npv`` (the first value at time 0, undiscounted),
   ``irr``, ``mirr`` (https://numpy.org/numpy-financial/).
.. [2] Microsoft Excel help, "NPV function": NPV(rate, value1, ...) = Σ value_i / (1 + rate)^i,
   i = 1 … n (the first value discounted one period, cash at the end of each period).
.. [3] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 5 (payback,
   discounted payback, IRR, MIRR) and ch. 19 (nominal and real rates).
.. [4] Fisher, I. (1930). *The Theory of Interest*: (1 + nominal) = (1 + real)(1 + inflation).
"""

from __future__ import annotations

import numpy as np
import numpy_financial as npf

from ..units import MONTHS_PER_YEAR


def yearly_totals(flows):
    """Monthly cash flows summed by year (months 0–11 are year 1; a last partial year is kept). [currency]

    Examples
    --------
    >>> yearly_totals([1.0] * 14).tolist()
    [12.0, 2.0]
    """
    flows = np.asarray(flows, dtype=float)
    years = -(-flows.shape[-1] // MONTHS_PER_YEAR)
    padded = np.zeros(flows.shape[:-1] + (years * MONTHS_PER_YEAR,))
    padded[..., :flows.shape[-1]] = flows
    return padded.reshape(flows.shape[:-1] + (years, MONTHS_PER_YEAR)).sum(axis=-1)


def npv_with_convention(flows, yearly_rate, period="month", timing="begin"):
    """Present value of monthly cash flows under a stated convention. [currency]

    Parameters
    ----------
    flows
        Cash flow of each month 0 … H−1. [currency]
    yearly_rate
        Effective yearly discount rate r, > −1. [1/year]
    period
        ``"month"``: discount each month at i = (1 + r)^(1/12) − 1; ``"year"``: first sum the
        months into years (:func:`yearly_totals`) and discount each year at r.
    timing
        ``"begin"``: the first period's flow at time 0, undiscounted — numpy-financial's
        ``npv(rate, values)``; ``"end"``: every flow at the end of its period, the first
        discounted once — Excel's ``NPV(rate, value1, ...)``.

    Notes
    -----
    begin: Σ_k F_k / (1 + i)^k, k = 0 … n−1; end: Σ_k F_k / (1 + i)^(k+1) = begin / (1 + i).
    Excel's NPV with the first flow added outside, ``=F0 + NPV(i, F1:Fn)``, is the begin
    convention.

    Examples
    --------
    >>> round(npv_with_convention([100.0] * 24, 0.1, "year", "end"), 4)   # 1200/1.1 + 1200/1.21
    2082.6446
    >>> round(npv_with_convention([100.0] * 24, 0.1, "year", "begin"), 4)  # 1200 + 1200/1.1
    2290.9091
    """
    if period not in ("month", "year") or timing not in ("begin", "end"):
        raise ValueError(f"period must be month or year and timing begin or end, got {period!r}, {timing!r}")
    if not yearly_rate > -1:
        raise ValueError(f"a yearly rate must be above -1, got {yearly_rate}")
    values = np.asarray(flows, dtype=float)
    rate = float(yearly_rate)
    if period == "year":
        values = yearly_totals(values)
    else:
        rate = (1.0 + rate) ** (1.0 / MONTHS_PER_YEAR) - 1.0
    pv = float(npf.npv(rate, values))
    return pv / (1.0 + rate) if timing == "end" else pv


def changes_sign(flows) -> bool:
    """Whether a series has both a negative and a positive value (an IRR can exist only then).

    Examples
    --------
    >>> changes_sign([-100, 60, 60]), changes_sign([10, 20])
    (True, False)
    """
    values = np.asarray(flows, dtype=float)
    return bool(np.any(values < 0) and np.any(values > 0))


def irr(flows):
    """Internal rate of return per period of a gain series, or None where it does not exist. [1/period]

    Parameters
    ----------
    flows
        Gains each period, the investment negative. [currency]

    Notes
    -----
    The rate at which Σ_k F_k / (1 + irr)^k = 0 (numpy-financial ``irr``); None when the
    series does not change sign or numpy-financial finds no root.

    Examples
    --------
    >>> round(irr([-100.0, 60.0, 60.0]), 6)
    0.130662
    >>> irr([100.0, 60.0]) is None
    True
    """
    if not changes_sign(flows):
        return None
    value = float(npf.irr(np.asarray(flows, dtype=float)))
    return value if np.isfinite(value) else None


def mirr(flows, finance_rate, reinvest_rate):
    """Modified internal rate of return per period, or None where the series does not change sign. [1/period]

    Notes
    -----
    MIRR = (FV of the gains at the reinvestment rate / −PV of the outlays at the finance
    rate)^(1/(n−1)) − 1 (numpy-financial ``mirr``).

    Examples
    --------
    >>> round(mirr([-100.0, 60.0, 60.0], 0.1, 0.1), 6)
    0.122497
    """
    if not changes_sign(flows):
        return None
    value = float(npf.mirr(np.asarray(flows, dtype=float), finance_rate, reinvest_rate))
    return value if np.isfinite(value) else None


def per_year(rate_per_month):
    """Effective yearly rate of a monthly rate; None stays None. [1/year]

    Examples
    --------
    >>> round(per_year(0.01), 6)
    0.126825
    """
    return None if rate_per_month is None else (1.0 + rate_per_month) ** MONTHS_PER_YEAR - 1.0


def roi(net_gain, investment):
    """Return on investment as calculators state it: net gain / investment; None with no investment. [-]

    Examples
    --------
    >>> roi(50.0, 200.0)
    0.25
    """
    return None if investment <= 0 else net_gain / investment


def fractional_payback(gains):
    """Periods until the cumulative gains reach zero, interpolated within the period; None: never. [periods]

    Parameters
    ----------
    gains
        Gain each period, the first at time 0 (numpy-financial's timing). [currency]

    Notes
    -----
    With cumulative gains S_k = Σ_{j ≤ k} G_j and k the first index with S_k ≥ 0:
    payback = (k − 1) + (−S_{k−1}) / G_k, the textbook "years before full recovery plus
    unrecovered cost / cash flow of the year of recovery"; 0 when S_0 ≥ 0.

    Examples
    --------
    >>> round(fractional_payback([-100.0, 30.0, 30.0, 30.0, 30.0]), 6)   # 3 + 10/30
    3.333333
    >>> fractional_payback([-100.0, 30.0]) is None
    True
    """
    values = np.asarray(gains, dtype=float)
    cumulative = np.cumsum(values)
    ahead = np.flatnonzero(cumulative >= 0)
    if ahead.size == 0:
        return None
    k = int(ahead[0])
    if k == 0:
        return 0.0
    return (k - 1) + float(-cumulative[k - 1] / values[k])


def discounted(flows, rate_per_period):
    """Each period's flow discounted to time 0, the first undiscounted. [currency]

    Examples
    --------
    >>> discounted([110.0, 121.0], 0.1).round(6).tolist()
    [110.0, 110.0]
    """
    values = np.asarray(flows, dtype=float)
    return values / (1.0 + rate_per_period) ** np.arange(values.shape[-1])


def fisher_real_rate(nominal_rate, inflation):
    """Real rate from a nominal rate and inflation (Fisher relation). [1/year]

    Notes
    -----
    (1 + nominal) = (1 + real)(1 + inflation), so real = (1 + nominal) / (1 + inflation) − 1.

    Examples
    --------
    >>> round(fisher_real_rate(0.08, 0.03), 8)
    0.04854369
    """
    return (1.0 + nominal_rate) / (1.0 + inflation) - 1.0


def residual_share(age_months, life_months, method="straight_line", rate_per_year=None, ages=None, shares=None):
    """Resale value as a share of the purchase price at an age. [-]

    Parameters
    ----------
    age_months
        Age of the hardware. [months]
    life_months
        Useful life, for the straight line. [months]
    method
        ``straight_line``: max(0, 1 − age / life); ``declining_balance``:
        (1 − rate)^(age / 12); ``points``: linear between given (age, share) points,
        flat beyond the last.
    rate_per_year
        Yearly loss of value for the declining balance. [1/year]
    ages, shares
        The points of the ``points`` curve. [months], [-]

    Examples
    --------
    >>> residual_share(30, 60)
    0.5
    >>> round(residual_share(24, 60, "declining_balance", rate_per_year=0.4), 6)
    0.36
    >>> residual_share(18, 60, "points", ages=[0, 12, 24], shares=[1.0, 0.6, 0.4])
    0.5
    """
    age = np.asarray(age_months, dtype=float)
    if method == "straight_line":
        value = np.clip(1.0 - age / life_months, 0.0, 1.0)
    elif method == "declining_balance":
        value = (1.0 - rate_per_year) ** (age / MONTHS_PER_YEAR)
    elif method == "points":
        value = np.interp(age, ages, shares)
    else:
        raise ValueError(f"unknown residual method {method!r}")
    return float(value) if np.ndim(value) == 0 else value


__all__ = ["changes_sign", "discounted", "fisher_real_rate", "fractional_payback", "irr", "mirr",
           "npv_with_convention", "per_year", "residual_share", "roi", "yearly_totals"]

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

from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .shapes import Numbers, NumbersOrList, Values, like, scalar


def yearly_totals(flows: NumbersOrList) -> np.ndarray:
    """Monthly cash flows summed by year (months 0–11 are year 1; a last partial year is kept). [currency]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> yearly_totals([1.0] * 14).tolist()
    [12.0, 2.0]
    """
    flows = np.asarray(flows, dtype=float)
    years = -(-flows.shape[-1] // MONTHS_PER_YEAR)
    padded = np.zeros(flows.shape[:-1] + (years * MONTHS_PER_YEAR,))
    padded[..., : flows.shape[-1]] = flows
    return padded.reshape(flows.shape[:-1] + (years, MONTHS_PER_YEAR)).sum(axis=-1)


def npv_with_convention(
    flows: NumbersOrList,
    yearly_rate: NumbersOrList,
    period: str = "month",
    timing: str = "begin",
    at_start: NumbersOrList | None = None,
) -> float | np.ndarray:
    """Present value of monthly cash flows under a stated convention. [currency]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    flows
        Cash flow of each month 0 … H−1, months on the last axis (leading axes, e.g. samples,
        are kept). [currency]
    yearly_rate
        Effective yearly discount rate r, > −1. [1/year]
    period
        ``"month"``: discount each month at i = (1 + r)^(1/12) − 1; ``"year"``: first sum the
        months into years (:func:`yearly_totals`) and discount each year at r.
    timing
        ``"begin"``: the first period's flow at time 0, undiscounted — numpy-financial's
        ``npv(rate, values)``; ``"end"``: every flow at the end of its period, the first
        discounted once — Excel's ``NPV(rate, value1, ...)``; ``"capital_begin"``: the
        investment (``at_start``) at the start of its period and every other flow at the end
        — "investment at time 0, flows at period end", as spreadsheets ``=-I0 + NPV(r, F1:Fn)``
        and ROI consoles state it.
    at_start
        For ``capital_begin``: the part of each month's flow paid at its start (capex, lease
        payments in advance, up-front commitments), same shape as ``flows``; default none. [currency]

    Notes
    -----
    begin: Σ_k F_k / (1 + i)^k, k = 0 … n−1; end: Σ_k F_k / (1 + i)^(k+1) = begin / (1 + i);
    capital_begin: Σ_k S_k / (1 + i)^k + Σ_k (F_k − S_k) / (1 + i)^(k+1), S the flows at the
    start. Excel's NPV with the first flow added outside, ``=F0 + NPV(i, F1:Fn)``, is the begin
    convention.

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``npv``.
    .. [2] Microsoft Excel help, "NPV function" (the first value discounted one period).

    Examples
    --------
    >>> round(npv_with_convention([100.0] * 24, 0.1, "year", "end"), 4)   # 1200/1.1 + 1200/1.21
    2082.6446
    >>> round(npv_with_convention([100.0] * 24, 0.1, "year", "begin"), 4)  # 1200 + 1200/1.1
    2290.9091

    Capex 1,200 at the start, 100 a month at each year's end: 1200 + 1200/1.1 + 1200/1.21

    >>> round(npv_with_convention([1300.0] + [100.0] * 23, 0.1, "year", "capital_begin",
    ...                           at_start=[1200.0] + [0.0] * 23), 4)
    3282.6446
    """
    if period not in ("month", "year") or timing not in ("begin", "end", "capital_begin"):
        raise ValueError(
            f"period must be month or year and timing begin, end or capital_begin, got {period!r}, {timing!r}"
        )
    if not np.all(np.asarray(yearly_rate) > -1):
        raise ValueError(f"a yearly rate must be above -1, got {yearly_rate}")
    values = np.asarray(flows, dtype=float)
    start = (
        np.zeros_like(values) if at_start is None else np.broadcast_to(np.asarray(at_start, dtype=float), values.shape)
    )
    rate = np.asarray(yearly_rate, dtype=float)
    if rate.ndim and rate.shape[-1] == 1:  # a rate per sample, samples shaped (n, 1) as the flows' leading axes
        rate = rate[..., 0]
    if period == "year":
        values, start = yearly_totals(values), yearly_totals(start)
    else:
        rate = (1.0 + rate) ** (1.0 / MONTHS_PER_YEAR) - 1.0
    factors = (1.0 + rate[..., None]) ** -np.arange(values.shape[-1], dtype=float)
    begin = np.sum(values * factors, axis=-1)
    if timing == "begin":
        pv = begin
    elif timing == "end":
        pv = begin / (1.0 + rate)
    else:
        pv = np.sum(start * factors, axis=-1) + np.sum((values - start) * factors, axis=-1) / (1.0 + rate)
    return float(pv) if np.ndim(pv) == 0 else pv


def changes_sign(flows: NumbersOrList) -> bool:
    """Whether a series has both a negative and a positive value (an IRR can exist only then).

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    References
    ----------
    .. [1] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 5 (an IRR needs outlays and gains).

    Examples
    --------
    >>> changes_sign([-100, 60, 60]), changes_sign([10, 20])
    (True, False)
    """
    values = np.asarray(flows, dtype=float)
    return bool(np.any(values < 0) and np.any(values > 0))


def irr(flows: NumbersOrList) -> float | np.ndarray | None:
    """Internal rate of return per period of a gain series, or None where it does not exist. [1/period]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    flows
        Gains each period, the investment negative: one series (1-D), or one series per row
        (2-D, e.g. one row per Monte Carlo sample). [currency]

    Returns
    -------
    float, numpy.ndarray or None
        For one series, its IRR, or None where it has none; for 2-D flows, an array of one IRR
        per row, NaN where a row has none.

    Notes
    -----
    The rate at which Σ_k F_k / (1 + irr)^k = 0 (numpy-financial ``irr``); None when the
    series does not change sign or numpy-financial finds no root.

    References
    ----------
    numpy-financial documentation, ``irr`` (https://numpy.org/numpy-financial/); Brealey, Myers
    and Allen, *Principles of Corporate Finance*, ch. 5.

    Examples
    --------
    >>> round(irr([-100.0, 60.0, 60.0]), 6)
    0.130662
    >>> irr([100.0, 60.0]) is None
    True
    >>> irr([[-100.0, 60.0, 60.0], [100.0, 60.0, 60.0]]).round(6).tolist()
    [0.130662, nan]
    """
    values = np.asarray(flows, dtype=float)
    if values.ndim == 2:
        rows = [irr(row) for row in values]
        return np.array([np.nan if rate is None else rate for rate in rows], dtype=float)
    if not changes_sign(values):
        return None
    value = float(npf.irr(values))
    return value if np.isfinite(value) else None


def mirr(flows: NumbersOrList, finance_rate: float, reinvest_rate: float) -> float | None:
    """Modified internal rate of return per period, or None where the series does not change sign. [1/period]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Notes
    -----
    MIRR = (FV of the gains at the reinvestment rate / −PV of the outlays at the finance
    rate)^(1/(n−1)) − 1 (numpy-financial ``mirr``).

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``mirr``.
    .. [2] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 5.

    Examples
    --------
    >>> round(mirr([-100.0, 60.0, 60.0], 0.1, 0.1), 6)
    0.122497
    """
    if not changes_sign(flows):
        return None
    value = float(npf.mirr(np.asarray(flows, dtype=float), finance_rate, reinvest_rate))
    return value if np.isfinite(value) else None


def per_year(rate_per_month: Numbers | None) -> Values | None:
    """Effective yearly rate of a monthly rate; None stays None. [1/year]

    References
    ----------
    Definition; no outside source (monthly compounding over 12 months).

    Examples
    --------
    >>> round(per_year(0.01), 6)
    0.126825
    """
    return None if rate_per_month is None else (1.0 + rate_per_month) ** MONTHS_PER_YEAR - 1.0


def roi(net_gain: Numbers, investment: Numbers) -> Values | None:
    """Return on investment as calculators state it: net gain / investment. [-]

    Parameters
    ----------
    net_gain
        Gains less costs over the horizon. [currency]
    investment
        What was invested, above 0. [currency]

    Returns
    -------
    float, numpy.ndarray, pandas.Series or None
        net gain / investment. With no investment (≤ 0) a scalar result is None and an array
        or Series holds NaN.

    References
    ----------
    Definition; no outside source (the ratio as ROI calculators state it).

    Examples
    --------
    >>> roi(50.0, 200.0)
    0.25
    >>> roi(50.0, 0.0) is None
    True
    >>> roi(np.array([50.0, 10.0]), np.array([200.0, 0.0])).tolist()
    [0.25, nan]
    """
    if np.ndim(net_gain) == 0 and np.ndim(investment) == 0:
        return None if scalar(investment) <= 0 else net_gain / investment
    gain, spent = np.asarray(net_gain, dtype=float), np.asarray(investment, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(spent > 0, gain / spent, np.nan)
    return like(ratio, net_gain, investment)


def payback(at_start: NumbersOrList, at_end: NumbersOrList, rate_per_period: float = 0.0) -> float | None:
    """Periods until the cumulative gains turn non-negative for good, interpolated; None: never. [periods]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    at_start
        Gain at the start of each period 0 … n−1 (an investment is a negative gain). [currency]
    at_end
        Gain at the end of each period (the period's savings). [currency]
    rate_per_period
        Discount rate for the discounted payback; 0 for the simple payback. [1/period]

    Notes
    -----
    The position just after period k's start is A_k = Σ_{j ≤ k} S_j + Σ_{j < k} E_j and at its
    end B_k = A_k + E_k; within the period it moves linearly from A_k to B_k (savings accrue
    evenly). The payback is where the position last crosses zero: with k the last period in
    which it is below zero, k + (−A_k) / (B_k − A_k) when B_k ≥ 0, else k + 1 (the next
    period starts at or above zero); 0 when it is never below zero; None when B_{n−1} < 0.
    An option cheaper only for a while, then dearer for good, never pays back. With
    discounting, a flow at time t is divided by (1 + i)^t.

    References
    ----------
    .. [1] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 5 (payback and discounted payback).

    Examples
    --------
    Capex 12 at the start, a saving of 1 at the end of each month:

    >>> payback([-12.0] + [0.0] * 23, [1.0] * 24)
    12.0
    >>> payback([-100.0, 0.0], [30.0, 30.0]) is None
    True
    >>> payback([0.0, 0.0, 0.0], [5.0, -10.0, -10.0]) is None     # ahead only in the first month
    True
    """
    s = np.asarray(at_start, dtype=float)
    e = np.asarray(at_end, dtype=float)
    if rate_per_period:
        k = np.arange(s.shape[-1], dtype=float)
        s = s / (1.0 + rate_per_period) ** k
        e = e / (1.0 + rate_per_period) ** (k + 1)
    scale = max(float(np.max(np.abs(s), initial=0.0)), float(np.max(np.abs(e), initial=0.0)), 1e-300)
    tolerance = 1e-12 * scale * max(s.size, 1)
    before = np.concatenate([[0.0], np.cumsum(e)[:-1]]) if e.size else e
    a = np.cumsum(s) + before
    b = a + e
    if not b.size or b[-1] < -tolerance:
        return None
    below = np.flatnonzero((a < -tolerance) | (b < -tolerance))
    if not below.size:
        return 0.0
    k = int(below[-1])
    if b[k] >= -tolerance:
        return float(k + (-a[k]) / (b[k] - a[k])) if b[k] > a[k] else float(k + 1)
    return float(k + 1)


def discounted(flows: NumbersOrList, rate_per_period: Numbers) -> np.ndarray:
    """Each period's flow discounted to time 0, the first undiscounted. [currency]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``npv`` (the first value at time 0,
       undiscounted).

    Examples
    --------
    >>> discounted([110.0, 121.0], 0.1).round(6).tolist()
    [110.0, 110.0]
    """
    values = np.asarray(flows, dtype=float)
    return values / (1.0 + rate_per_period) ** np.arange(values.shape[-1])


def fisher_real_rate(nominal_rate: Numbers, inflation: Numbers) -> Values:
    """Real rate from a nominal rate and inflation (Fisher relation). [1/year]

    Notes
    -----
    (1 + nominal) = (1 + real)(1 + inflation), so real = (1 + nominal) / (1 + inflation) − 1.

    References
    ----------
    .. [1] Fisher, I. (1930), *The Theory of Interest*.
    .. [2] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 19 (nominal and real rates).

    Examples
    --------
    >>> round(fisher_real_rate(0.08, 0.03), 8)
    0.04854369
    """
    return (1.0 + nominal_rate) / (1.0 + inflation) - 1.0


def residual_share(
    age_months: NumbersOrList,
    life_months: Numbers,
    method: str = "straight_line",
    rate_per_year: Numbers | None = None,
    ages: NumbersOrList | None = None,
    shares: NumbersOrList | None = None,
) -> Values:
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

    References
    ----------
    Definition; no outside source (the resale curve a scenario states: straight line, declining balance or points).

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
        if rate_per_year is None:
            raise ValueError("a declining-balance residual needs rate_per_year")
        value = (1.0 - np.asarray(rate_per_year, dtype=float)) ** (age / MONTHS_PER_YEAR)
    elif method == "points":
        if ages is None or shares is None:
            raise ValueError("a points residual needs ages and shares")
        value = np.interp(age, np.asarray(ages, dtype=float), np.asarray(shares, dtype=float))
    else:
        raise ValueError(f"unknown residual method {method!r}")
    return like(value, age_months, life_months, rate_per_year)


__all__ = [
    "changes_sign",
    "discounted",
    "fisher_real_rate",
    "irr",
    "mirr",
    "npv_with_convention",
    "payback",
    "per_year",
    "residual_share",
    "roi",
    "yearly_totals",
]


def provider_revenue(
    gpus: Numbers, utilisation_sold: Numbers, price_per_gpu_hour: Numbers, hours: Numbers = HOURS_PER_MONTH
) -> Values:
    """Revenue of a provider selling its GPUs' hours. [currency per period]

    Parameters
    ----------
    gpus
        GPUs offered for sale (working GPUs; hot spares are not sold). [GPU]
    utilisation_sold
        Share of the GPUs' hours sold, in [0, 1]. [-]
    price_per_gpu_hour
        Average price a sold GPU-hour fetches. [currency/GPU-h]
    hours
        Length of the period; default the model's month of 730 h. [h]

    Notes
    -----
    R = G · 730 · u · p.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    8 GPUs sold 70 % of the time at 2.50 a GPU-hour:

    >>> round(provider_revenue(8, 0.7, 2.5), 2)
    10220.0
    """
    return gpus * hours * utilisation_sold * price_per_gpu_hour


def net_operating_income(revenue: Numbers, opex: Numbers) -> Values:
    """Net operating income: revenue less operating costs, before depreciation. [currency per period]

    Notes
    -----
    NOI = R − opex (real-estate usage: no depreciation, interest or tax). Opex here is every
    running cost: power, space, people, support, licences.

    References
    ----------
    .. [1] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 28 (the income
       statement: EBITDA, depreciation, EBIT).

    Examples
    --------
    >>> net_operating_income(10_220.0, 4_000.0)
    6220.0
    """
    return revenue - opex


def ebit(revenue: Numbers, opex: Numbers, depreciation: Numbers) -> Values:
    """Earnings before interest and tax: revenue less operating costs and depreciation. [currency per period]

    Notes
    -----
    EBIT = R − opex − D, D the accounting (straight-line) depreciation; the cost of capital
    is not in it (that is what interest and the return to equity are paid from).

    References
    ----------
    Definition; no outside source (the accounting identity).

    Examples
    --------
    >>> ebit(10_220.0, 4_000.0, 5_000.0)
    1220.0
    """
    return revenue - opex - depreciation

"""Money over time: depreciation, capital charge, rates, present value, loans, book value.

Conventions, as numpy-financial states them: rates are decimals per period; payments at
the end of each period; a function named for a cost returns it positive.

References
----------
.. [1] numpy-financial documentation: ``npv``, ``pmt``, ``pv``
   (https://numpy.org/numpy-financial/).
.. [2] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 2 and 6
   (present value, equivalent annual cost).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy_financial as npf

from ..units import MONTHS_PER_YEAR
from .shapes import Numbers, NumbersOrList, Values, like, scalar


def straight_line_depreciation(capex: Numbers, life_months: Numbers) -> Values:
    """Monthly straight-line depreciation with no residual value. [currency/month]

    Parameters
    ----------
    capex
        Purchase price. [currency]
    life_months
        Depreciation period, > 0. [months]

    Notes
    -----
    D = C / N.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> straight_line_depreciation(1_200_000, 60)
    20000.0
    """
    return capex / life_months


def monthly_rate(yearly_rate: Numbers) -> Values:
    """Effective monthly rate of an effective yearly rate. [1/month]

    Parameters
    ----------
    yearly_rate
        Effective yearly rate, above −1. [1/year]

    Raises
    ------
    ValueError
        A rate at or below −1.

    Notes
    -----
    i = (1 + r)^(1/12) − 1.

    References
    ----------
    Definition; no outside source (the effective rate: 12 months at i compound to 1 year at r).

    Examples
    --------
    >>> round(monthly_rate(0.08), 8)
    0.00643403
    """
    if not np.all(np.asarray(yearly_rate) > -1):
        raise ValueError(f"a yearly rate must be above -1, got {yearly_rate}")
    return (1.0 + yearly_rate) ** (1.0 / MONTHS_PER_YEAR) - 1.0


def growth_factor(yearly_change: Numbers, months: Numbers) -> Values:
    """Factor by which a quantity growing by ``yearly_change`` a year has grown after ``months``. [-]

    Parameters
    ----------
    yearly_change
        Yearly rate of change, above −1 (−0.1 is a fall of 10 % a year). [1/year]
    months
        Months elapsed. [months]

    Raises
    ------
    ValueError
        A change at or below −1.

    Notes
    -----
    (1 + g)^(m / 12): compounding monthly; exactly 1 when g is 0.

    References
    ----------
    Definition; no outside source (compound growth).

    Examples
    --------
    >>> growth_factor(0.3, 12)
    1.3
    """
    if not np.all(np.asarray(yearly_change) > -1):
        raise ValueError(f"a yearly change must be above -1, got {yearly_change}")
    return (1.0 + yearly_change) ** (months / MONTHS_PER_YEAR)


def yearly_change_factor(yearly_changes: Sequence[Numbers], months: NumbersOrList) -> np.ndarray:
    """Factor on today's price after ``months`` when the price changes by a different rate each year. [-]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    yearly_changes
        Change in year 1, 2, … (months 0-11, 12-23, …), each above −1; an entry may be an
        array of samples (shape (n, 1)). The last goes on after the list ends. [1/year]
    months
        Months elapsed since today, 0 or more. [months]

    Returns
    -------
    numpy.ndarray
        Factor in each month; leading axes of sampled changes are kept. [-]

    Raises
    ------
    ValueError
        No change, or a change at or below −1.

    Notes
    -----
    Each year's change compounds monthly within its year, as :func:`growth_factor` does:
    f(m) = Π_j (1 + g_j)^(t_j(m) / 12), with t_j(m) the months of year j elapsed by month m
    (clip(m − 12 j, 0, 12); the last year unbounded). Equal changes are grouped first, so that
    a list of one rate r, or of r repeated, gives (1 + r)^(m / 12) exactly (:func:`growth_factor`
    on the same months), bit for bit.

    References
    ----------
    Definition; no outside source (compounding, as :func:`growth_factor`).

    Examples
    --------
    >>> [round(float(f), 10) for f in yearly_change_factor([-0.2, 0.1], [0, 12, 24])]
    [1.0, 0.8, 0.88]
    """
    if len(yearly_changes) == 0:
        raise ValueError("a path of yearly changes needs one change at least")
    months = np.asarray(months, dtype=float)
    last = len(yearly_changes) - 1
    groups: list[list] = []  # [change, months elapsed at that change]
    for year, change in enumerate(yearly_changes):
        elapsed = np.clip(months - MONTHS_PER_YEAR * year, 0.0, None if year == last else float(MONTHS_PER_YEAR))
        same = next((g for g in groups if np.ndim(change) == 0 and np.ndim(g[0]) == 0 and g[0] == change), None)
        if same is None:
            groups.append([change, elapsed])
        else:
            same[1] = same[1] + elapsed
    factor = growth_factor(groups[0][0], groups[0][1])
    for change, elapsed in groups[1:]:
        factor = factor * growth_factor(change, elapsed)
    return np.asarray(factor, dtype=float)


def step_factor(
    from_months: Sequence[float] | np.ndarray,
    factors: Sequence[Numbers] | np.ndarray,
    months: NumbersOrList,
    before: float = 1.0,
) -> np.ndarray:
    """Factor on today's price in each month of a step function: each factor from its month on. [-]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    from_months
        Month from which each factor applies, rising (a month at or below 0 applies from the start). [months]
    factors
        Factor on today's price of each step, above 0; an entry may be an array of samples
        (shape (n, 1)). [-]
    months
        Months elapsed since today. [months]
    before
        Factor before the first step. [-]

    Returns
    -------
    numpy.ndarray
        Factor in each month: that of the last step whose month is at or before it. [-]

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> step_factor([0, 12], [0.9, 0.75], [0, 11, 12, 40]).tolist()
    [0.9, 0.9, 0.75, 0.75]
    >>> step_factor([3], [1.2], [0, 2, 3]).tolist()
    [1.0, 1.0, 1.2]
    """
    months = np.asarray(months, dtype=float)
    factor = np.broadcast_to(np.asarray(before, dtype=float), months.shape)
    for start, value in zip(from_months, factors, strict=True):
        factor = np.where(months >= start, value, factor)
    return np.asarray(factor, dtype=float)


def forward_factors_from_reserved(
    on_demand: Numbers, reserved_1y: Numbers, reserved_3y: Numbers
) -> tuple[Values, Values]:
    """The rental price path the 1- and 3-year reserved prices imply: (year-1 factor, factor from year 2 on). [-]

    Not elementwise: it returns several figures together (a tuple or a mapping), each of the inputs'
    kind.

    Parameters
    ----------
    on_demand
        On-demand price today. [currency/GPU-h]
    reserved_1y
        Price of a GPU-hour under a 1-year commitment. [currency/GPU-h]
    reserved_3y
        Price of a GPU-hour under a 3-year commitment. [currency/GPU-h]

    Returns
    -------
    tuple
        p1 / p in year 1, and (3 · p3 − p1) / (2 · p) in years 2 and 3 (held flat after). [-]

    Raises
    ------
    ValueError
        3 · p3 ≤ p1: the implied price of years 2-3 would be zero or negative.

    Notes
    -----
    Assumption: a commitment's price is the average on-demand-equivalent price the market
    expects over its term, as a forward price is the expected spot price. Then p1 is the
    average over year 1 and p3 the average over years 1-3, so the average over years 2-3 is
    (3 · p3 − p1) / 2. Reserved prices also buy the provider certainty (a discount for
    commitment), so the path reads lower than an unbiased forecast.

    References
    ----------
    Definition; no outside source (the assumption stated in the Notes).

    Examples
    --------
    >>> forward_factors_from_reserved(4.0, 3.0, 2.0)
    (0.75, 0.375)
    """
    later = 3.0 * np.asarray(reserved_3y, dtype=float) - np.asarray(reserved_1y, dtype=float)
    if not np.all(later > 0):
        raise ValueError(
            f"3 x the 3-year reserved price ({reserved_3y}) is not above the 1-year price "
            f"({reserved_1y}): the implied price of years 2-3, (3 p3 - p1) / 2, is not positive"
        )
    first, rest = reserved_1y / on_demand, later / (2.0 * on_demand)
    return (scalar(first), scalar(rest)) if np.ndim(first) == 0 and np.ndim(rest) == 0 else (first, rest)


def present_value(flows: NumbersOrList, yearly_rate: Numbers) -> float | np.ndarray:
    """Present value of monthly cash flows, month 0 undiscounted. [currency]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    flows
        Cash flow of each month 0 … H−1, shape (..., H); costs positive. [currency]
    yearly_rate
        Discount rate, an effective yearly rate. [1/year]

    Notes
    -----
    PV = Σ_m F_m / (1 + i)^m with i = (1 + r)^(1/12) − 1: numpy-financial's ``npv``
    convention (the first flow at time 0). Vectorised over leading axes.

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``npv``.
    .. [2] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 2 (present value).

    Examples
    --------
    >>> round(present_value([100.0, 100.0], 0.08), 4)
    199.3607
    """
    flows = np.asarray(flows, dtype=float)
    i = monthly_rate(yearly_rate)
    if flows.ndim == 1 and np.ndim(i) == 0:
        return float(npf.npv(i, flows))
    factors = (1.0 + np.asarray(i, dtype=float)[..., None]) ** -np.arange(flows.shape[-1])
    return np.sum(flows * factors, axis=-1)


def loan_payment(principal: Numbers, rate_per_year: NumbersOrList, term_months: NumbersOrList) -> Values:
    """Equal monthly payment of a loan, paid at the end of each month. [currency/month]

    Parameters
    ----------
    principal
        Amount borrowed. [currency]
    rate_per_year
        Nominal yearly interest rate, ≥ 0, charged monthly at rate / 12. [1/year]
    term_months
        Number of payments, ≥ 1. [months]

    Raises
    ------
    ValueError
        A term below one month or a negative rate.

    Notes
    -----
    A = P · i / (1 − (1 + i)^−n) with i = rate / 12, through :func:`numpy_financial.pmt`
    (which gives it negative, as cash out); P / n at a zero rate. Broadcasts.

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``pmt``.

    Examples
    --------
    >>> round(loan_payment(1_000_000, 0.07, 48), 2)
    23946.24
    >>> loan_payment(1_200, 0.0, 12)
    100.0
    """
    if np.any(np.asarray(term_months) < 1) or np.any(np.asarray(rate_per_year) < 0):
        raise ValueError(f"need a term of at least 1 month and a rate >= 0, got {term_months} and {rate_per_year}")
    return like(
        -npf.pmt(np.asarray(rate_per_year) / MONTHS_PER_YEAR, term_months, principal) + 0.0,
        principal,
        rate_per_year,
        term_months,
    )


def loan_balance(payment: Numbers, rate_per_year: NumbersOrList, payments_left: Numbers) -> Values:
    """Balance still owed on a loan with ``payments_left`` equal payments to go. [currency]

    Notes
    -----
    B = A · (1 − (1 + i)^−k) / i with i = rate / 12: numpy-financial's ``pv`` of the
    remaining payments.

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``pv``.

    Examples
    --------
    >>> round(loan_balance(100.0, 0.0, 3), 6)
    300.0
    """
    with np.errstate(invalid="ignore", divide="ignore"):  # numpy-financial evaluates both branches at rate 0
        return like(
            npf.pv(np.asarray(rate_per_year) / MONTHS_PER_YEAR, payments_left, -payment) + 0.0,
            payment,
            rate_per_year,
            payments_left,
        )


def capital_charge(capex: Numbers, yearly_rate: Numbers, life_months: Numbers) -> Values:
    """Equal monthly charge that repays ``capex`` with interest over its life (the annuity). [currency/month]

    The cost of owning an asset as a level monthly amount: depreciation plus the return the
    money would have earned (equivalent annual cost, per month).

    Parameters
    ----------
    capex
        Purchase price. [currency]
    yearly_rate
        Cost of capital, an effective yearly rate, ≥ 0. [1/year]
    life_months
        Life of the asset, ≥ 1. [months]

    Notes
    -----
    A = C · i / (1 − (1 + i)^−N) with i = (1 + r)^(1/12) − 1; C / N at r = 0 (straight-line
    depreciation is the zero-rate case).

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``pmt``.
    .. [2] Brealey, Myers and Allen, *Principles of Corporate Finance*, ch. 6 (equivalent annual cost).

    Examples
    --------
    >>> round(capital_charge(1_200_000, 0.0, 60), 2)
    20000.0
    >>> round(capital_charge(1_200_000, 0.08, 60), 2)
    24171.67
    """
    return like(-npf.pmt(monthly_rate(yearly_rate), life_months, capex) + 0.0, capex, yearly_rate, life_months)


def book_value_share(age_months: NumbersOrList, life_months: Numbers) -> Values:
    """Straight-line book value as a share of the purchase price. [-]

    Notes
    -----
    max(0, min(1, 1 − age / life)).

    References
    ----------
    Definition; no outside source (straight-line depreciation).

    Examples
    --------
    >>> book_value_share(45, 60)
    0.25
    """
    return like(np.clip(1.0 - np.asarray(age_months, dtype=float) / life_months, 0.0, 1.0), age_months, life_months)


def lease_payment(
    price: Numbers, rate_per_year: NumbersOrList, term_months: NumbersOrList, residual_share: NumbersOrList = 0.0
) -> Values:
    """Equal monthly lease payment in advance, repaying the price less the discounted residual. [currency/month]

    Parameters
    ----------
    price
        Price of the leased hardware. [currency]
    rate_per_year
        Nominal yearly rate implicit in the lease, ≥ 0, monthly at rate / 12. [1/year]
    term_months
        Number of payments, ≥ 1. [months]
    residual_share
        Buy-out (finance lease) or the lessor's residual (operating lease) at the end, as a
        share of the price. [-]

    Notes
    -----
    A = (P − R·P/(1 + i)^n) · i / ((1 − (1 + i)^−n)(1 + i)): an annuity due,
    numpy-financial ``pmt(i, n, P, −R·P, when="begin")``; (P − R·P) / n at a zero rate.

    References
    ----------
    .. [1] numpy-financial documentation (https://numpy.org/numpy-financial/), ``pmt`` (``when="begin"``, an annuity
       due).

    Examples
    --------
    >>> lease_payment(1200.0, 0.0, 12, 0.1)
    90.0
    >>> round(lease_payment(1_000_000, 0.06, 36, 0.1), 2)
    27741.04
    """
    if np.any(np.asarray(term_months) < 1) or np.any(np.asarray(rate_per_year) < 0):
        raise ValueError(f"need a term of at least 1 month and a rate >= 0, got {term_months} and {rate_per_year}")
    return like(
        -npf.pmt(
            np.asarray(rate_per_year) / MONTHS_PER_YEAR,
            term_months,
            price,
            # numpy-financial has no annotations; pyright reads fv: int from its default 0
            -np.asarray(residual_share) * price,  # pyright: ignore[reportArgumentType]
            when="begin",
        )
        + 0.0,
        price,
        rate_per_year,
        term_months,
        residual_share,
    )


def capital_recovery_factor(rate_per_year: NumbersOrList, life_years: NumbersOrList) -> Values:
    """Capital-recovery factor: the share of a price to pay each year to repay it with interest. [1/year]

    Parameters
    ----------
    rate_per_year
        Cost of capital i, an effective yearly rate, ≥ 0. [1/year]
    life_years
        Useful life n, > 0; ``numpy.inf`` for an asset that is never used up (land). [years]

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        CRF, broadcast over the inputs. [1/year]

    Raises
    ------
    ValueError
        A negative rate or a life of 0 or less.

    Notes
    -----
    CRF = i·(1 + i)^n / ((1 + i)^n − 1), the yearly payment of an annuity of present value 1
    (payments at each year's end). Special cases: 1 / n at i = 0 (straight-line
    depreciation); i at n = ∞ (land: interest on the price, nothing depreciated); 0 at i = 0
    and n = ∞. A monthly charge in this model is the yearly one / 12 (not the annuity at
    the monthly rate, :func:`capital_charge`, which is slightly lower).

    References
    ----------
    .. [1] Barroso, L. A., Hölzle, U. and Ranganathan, P. (2018), *The Datacenter as a Computer*,
       3rd ed., Morgan & Claypool, ch. 6 "Modeling costs": capex amortised over each asset's
       life at a cost of capital (servers 3-4 years, the building and its power 10-15).
       doi:10.2200/S00874ED3V01Y201809CAC046
    .. [2] Short, W., Packey, D. and Holt, T. (1995), *A Manual for the Economic Evaluation of
       Energy Efficiency and Renewable Energy Technologies*, NREL/TP-462-5173 (the capital recovery
       factor).

    Examples
    --------
    >>> round(capital_recovery_factor(0.08, 5), 6)
    0.250456
    >>> capital_recovery_factor(0.0, 4)
    0.25
    >>> capital_recovery_factor(0.08, float("inf"))
    0.08
    """
    i = np.asarray(rate_per_year, dtype=float)
    n = np.asarray(life_years, dtype=float)
    if np.any(i < 0) or np.any(n <= 0):
        raise ValueError(f"need a rate >= 0 and a life above 0, got {rate_per_year} and {life_years}")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        growth = (1.0 + i) ** np.where(np.isfinite(n), n, 1.0)
        annuity = i * growth / (growth - 1.0)
        crf = np.where(np.isinf(n), i, np.where(i == 0, 1.0 / n, annuity))
    return like(crf + 0.0, rate_per_year, life_years)

"""Cost per used GPU-hour of a fixed fleet, and the utilisation at which owning matches a price.

A fleet of G GPUs costs F a month whatever its use, plus v per GPU-hour used (electricity
above idle). Used a share u of its 730 · G hours, it costs (F + v·u·G·730) / (u·G·730) per
used GPU-hour, falling with u toward v.

References
----------
.. [1] SemiAnalysis (2023), "AI Cloud TCO Model" (the break-even utilisation of owned
   against rented GPUs).
"""

from __future__ import annotations

import numpy as np

from ..units import HOURS_PER_MONTH
from .shapes import Numbers, NumbersOrList, Values, like


def cost_per_used_gpu_hour(
    fixed_per_month: Numbers, variable_per_gpu_hour: Numbers, gpus: Numbers, utilisation: NumbersOrList
) -> Values:
    """Monthly cost per used GPU-hour of a fleet at a utilisation. [currency/GPU-h]

    Parameters
    ----------
    fixed_per_month
        F, cost at zero use. [currency/month]
    variable_per_gpu_hour
        v, cost of one more GPU-hour used. [currency/GPU-h]
    gpus
        G. [GPU]
    utilisation
        u, share of the GPUs' hours used, in (0, 1]. [-]

    Raises
    ------
    ValueError
        A utilisation outside (0, 1] (at 0 the cost per used hour does not exist).

    Notes
    -----
    c(u) = (F + v·u·G·730) / (u·G·730).

    References
    ----------
    .. [1] SemiAnalysis (2023), "AI Cloud TCO Model" (cost per used GPU-hour of an owned fleet).

    Examples
    --------
    >>> round(cost_per_used_gpu_hour(17_520.0, 0.1, 24, 0.5), 4)
    2.1
    """
    u = np.asarray(utilisation, dtype=float)
    if not np.all((u > 0) & (u <= 1)):
        raise ValueError("utilisation must be in (0, 1]; at 0 the cost per used GPU-hour is not defined")
    hours = u * gpus * HOURS_PER_MONTH
    return like(
        (fixed_per_month + variable_per_gpu_hour * hours) / hours,
        utilisation,
        fixed_per_month,
        variable_per_gpu_hour,
        gpus,
    )


def break_even_utilisation(
    fixed_per_month: Numbers, variable_per_gpu_hour: Numbers, gpus: Numbers, price_per_gpu_hour: Numbers
) -> Values | None:
    """Utilisation at which a fleet costs ``price_per_gpu_hour`` per used GPU-hour. [-]

    Parameters
    ----------
    fixed_per_month, variable_per_gpu_hour, gpus
        As in :func:`cost_per_used_gpu_hour`.
    price_per_gpu_hour
        The price compared (a rental offer). [currency/GPU-h]

    Returns
    -------
    float, numpy.ndarray, pandas.Series or None
        u* = F / (G·730·(p − v)). Where there is none ("never": p ≤ v or u* > 1) a scalar
        result is None and an array or Series holds NaN.

    Notes
    -----
    Setting :func:`cost_per_used_gpu_hour` (F / (G·730·u) + v) equal to p and solving for u.

    References
    ----------
    SemiAnalysis (2023), "AI Cloud TCO Model" (the break-even utilisation of owned against
    rented GPUs), as in the module's references.

    Examples
    --------
    >>> round(break_even_utilisation(17_520.0, 0.1, 24, 2.1), 4)
    0.5
    >>> break_even_utilisation(17_520.0, 0.1, 24, 0.1) is None
    True
    >>> break_even_utilisation(17_520.0, 0.1, 24, np.array([2.1, 0.1, 1.1])).round(4).tolist()
    [0.5, nan, 1.0]
    """
    fixed, variable, count, price = (
        np.asarray(x, dtype=float) for x in (fixed_per_month, variable_per_gpu_hour, gpus, price_per_gpu_hour)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        u = fixed / (count * HOURS_PER_MONTH * (price - variable))
    never = (price <= variable) | ~(u <= 1.0)
    if np.ndim(never) == 0:
        return None if never else float(u)
    return like(np.where(never, np.nan, u), fixed_per_month, variable_per_gpu_hour, gpus, price_per_gpu_hour)

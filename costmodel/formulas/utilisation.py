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
    fixed_per_month: float, variable_per_gpu_hour: float, gpus: float, price_per_gpu_hour: float
) -> float | None:
    """Utilisation at which a fleet costs ``price_per_gpu_hour`` per used GPU-hour. [-]

    Not elementwise: scalar inputs only (the result is a whole count, or None where it has no
    value).

    Parameters
    ----------
    fixed_per_month, variable_per_gpu_hour, gpus
        As in :func:`cost_per_used_gpu_hour`.
    price_per_gpu_hour
        The price compared (a rental offer). [currency/GPU-h]

    Returns
    -------
    float or None
        u* = F / (G·730·(p − v)); None ("never") when p ≤ v or u* > 1.

    Examples
    --------
    >>> round(break_even_utilisation(17_520.0, 0.1, 24, 2.1), 4)
    0.5
    >>> break_even_utilisation(17_520.0, 0.1, 24, 0.1) is None
    True
    """
    if price_per_gpu_hour <= variable_per_gpu_hour:
        return None
    u = fixed_per_month / (gpus * HOURS_PER_MONTH * (price_per_gpu_hour - variable_per_gpu_hour))
    return float(u) if u <= 1.0 else None

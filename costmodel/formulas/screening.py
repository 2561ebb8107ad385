"""Load-duration curves and the screening-curve rule for the cheapest mix of capacity.

The k-th GPU of capacity is busy the share f_k of hours in which demand exceeds k − 1 GPUs
(the fractional part of an hour's demand counts pro rata). A kind of capacity costing F per
GPU per hour held and V per busy GPU-hour serves the k-th GPU for F + V·f_k an hour; the
cheapest kind for each k is the lowest of these lines at f_k.

References
----------
.. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening
   curves and load-duration curves).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .shapes import NumbersOrList


def load_duration_curve(demand: NumbersOrList) -> np.ndarray:
    """Demand sorted from the busiest hour down. [GPU]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    References
    ----------
    .. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening curves and load-duration
       curves).

    Examples
    --------
    >>> load_duration_curve([1.0, 3.0, 2.0]).tolist()
    [3.0, 2.0, 1.0]
    """
    return np.sort(np.asarray(demand, dtype=float))[::-1]


def busy_shares(demand: NumbersOrList, gpus: int | None = None) -> np.ndarray:
    """Share of hours the k-th GPU of capacity is busy, k = 1 … K. [-]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    demand
        GPUs busy each hour. [GPU]
    gpus
        K; default the peak, rounded up. [GPU]

    Notes
    -----
    f_k = (1/H) Σ_h clip(d_h − (k − 1), 0, 1), for all k at once from the sorted demand:
    the hours at or above k count 1, those between k − 1 and k count d_h − (k − 1).

    References
    ----------
    .. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening curves and load-duration
       curves).

    Examples
    --------
    Two hours at 1.5 GPUs and two at 0:

    >>> busy_shares([1.5, 1.5, 0.0, 0.0]).tolist()
    [0.5, 0.25]
    """
    values = np.asarray(demand, dtype=float)
    top = int(np.ceil(values.max() - 1e-9)) if gpus is None else gpus
    if top <= 0:
        return np.zeros(0)
    k = np.arange(1, top + 1, dtype=float)
    ordered = np.sort(values)
    above = len(ordered) - np.searchsorted(ordered, k, side="left")
    lower = np.searchsorted(ordered, k - 1, side="right")
    upper = np.searchsorted(ordered, k, side="left")
    cumulative = np.concatenate([[0.0], np.cumsum(ordered)])
    partial = (cumulative[upper] - cumulative[lower]) - (upper - lower) * (k - 1)
    return (above + partial) / len(ordered)


def single_layer_level(
    busy: NumbersOrList, fixed_per_hour: float, flexible_price: float, variable_per_hour: float = 0.0
) -> int:
    """GPUs to hold in one fixed layer against a flexible price (the closed form). [GPU]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    busy
        f_k of each GPU, busiest first. [-]
    fixed_per_hour
        F, paid every hour a GPU is held. [currency/GPU/h]
    flexible_price
        p, paid per busy GPU-hour of the flexible kind. [currency/GPU-h]
    variable_per_hour
        V of the fixed layer per busy hour. [currency/GPU-h]

    Notes
    -----
    Hold the k-th GPU while f_k > F / (p − V): holding it costs F every hour and saves
    p − V in each busy hour (Stoft 2002, ch. 3). None held when p ≤ V.

    References
    ----------
    .. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening curves and load-duration
       curves).

    Examples
    --------
    >>> single_layer_level([1.0, 0.8, 0.5, 0.2], 2.835, 4.5)
    2
    """
    if flexible_price <= variable_per_hour:
        return 0
    threshold = fixed_per_hour / (flexible_price - variable_per_hour)
    return int(np.count_nonzero(np.asarray(busy) > threshold))


def served_below(demand: NumbersOrList, levels: NumbersOrList, weights: NumbersOrList | None = None) -> np.ndarray:
    """Mean over hours of the demand a capacity level serves, min(d_h, C), for many levels at once. [GPU]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    demand
        GPUs busy each hour, shape (H,). [GPU]
    levels
        Capacity levels C, any shape; ``numpy.inf`` for no limit. [GPU]
    weights
        Optional weight of each hour, shape (H,), e.g. a price per busy GPU-hour that changes
        with the clock; then the mean of w_h · min(d_h, C). [weight unit]

    Returns
    -------
    numpy.ndarray
        Shaped like ``levels``. [GPU, or GPU × weight unit]

    Notes
    -----
    With the hours sorted by demand and i(C) the number below C,
    (1/H) [Σ_{d_h < C} w_h d_h + C · Σ_{d_h ≥ C} w_h]: one sort, then a binary search per level.
    The served demand is concave in C, the demand above a level, d − min(d, C), convex.

    References
    ----------
    .. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening curves and load-duration
       curves).

    Examples
    --------
    Hours at 3, 1 and 0 GPUs; 2 GPUs of capacity serve 2, 1 and 0:

    >>> served_below([3.0, 1.0, 0.0], [2.0, 0.0, np.inf]).tolist()
    [1.0, 0.0, 1.3333333333333333]
    """
    return served_below_sorted(sorted_demand(demand, weights), levels)


class SortedDemand(NamedTuple):
    """An hourly demand sorted once, with the running sums :func:`served_below` reads at each level.

    Not elementwise: a record of one whole series of hours, made by :func:`sorted_demand`.

    Attributes
    ----------
    demand
        The hours' demand, ascending, shape (H,). [GPU]
    below
        Σ w d over the i lowest hours, i = 0 … H, shape (H + 1,). [GPU × weight unit]
    above
        Σ w over the hours from the i-th lowest up, i = 0 … H, shape (H + 1,). [weight unit]
    """

    demand: np.ndarray
    below: np.ndarray
    above: np.ndarray


def sorted_demand(
    demand: NumbersOrList, weights: NumbersOrList | None = None, order: np.ndarray | None = None
) -> SortedDemand:
    """An hourly demand sorted, with its running sums, for :func:`served_below_sorted` at many levels.

    Not elementwise: it takes a whole series of hours and returns one curve for it.

    Parameters
    ----------
    demand
        GPUs busy each hour, shape (H,). [GPU]
    weights
        Optional weight of each hour, shape (H,) (see :func:`served_below`). [weight unit]
    order
        The hours in ascending order of demand, ``numpy.argsort(demand, kind="stable")``, if already found
        (several weightings of one demand share it). [-]

    References
    ----------
    .. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening curves and load-duration
       curves).
    """
    d = np.asarray(demand, dtype=float)
    w = np.ones_like(d) if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), d.shape)
    order = np.argsort(d, kind="stable") if order is None else order
    ds, ws = d[order], w[order]
    below = np.concatenate([[0.0], np.cumsum(ws * ds)])  # Σ w d over the i lowest hours
    above = np.concatenate([np.cumsum(ws[::-1])[::-1], [0.0]])  # Σ w over the hours from i up
    return SortedDemand(ds, below, above)


def served_below_sorted(curve: SortedDemand, levels: NumbersOrList) -> np.ndarray:
    """:func:`served_below` of a demand sorted once by :func:`sorted_demand`. [GPU, or GPU × weight unit]

    Not elementwise in the demand (a whole series of hours); elementwise in ``levels``.

    Notes
    -----
    (1/H) [below_i + C · above_i], i the number of hours with d_h < C (a binary search); the tail is 0
    for C = ∞.

    References
    ----------
    .. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening curves and load-duration
       curves).

    Examples
    --------
    >>> curve = sorted_demand([3.0, 1.0, 0.0])
    >>> served_below_sorted(curve, [2.0, 0.0, np.inf]).tolist()
    [1.0, 0.0, 1.3333333333333333]
    """
    c = np.asarray(levels, dtype=float)
    i = np.searchsorted(curve.demand, c, side="left")
    above = curve.above[i]
    tail = np.where(np.isinf(c), 0.0, np.where(above > 0, c, 0.0) * above)
    return (curve.below[i] + tail) / max(len(curve.demand), 1)

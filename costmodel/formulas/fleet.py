"""Counting GPUs and servers: GPUs needed for work, whole replicas and servers, spares.

References
----------
.. [1] Barroso, Clidaras and Hölzle (2013), *The Datacenter as a Computer*, 2nd ed., ch. 6:
   provisioning for peak load with headroom.
"""

from __future__ import annotations

import math

import numpy as np

from ..units import HOURS_PER_MONTH
from .shapes import Numbers, NumbersOrList, Values, like

_EPSILON = 1e-9
"""Tolerance below a whole number that still counts as that number (rounding of 0.1 + 0.2)."""


def gpus_needed(gpu_hours_per_month: Numbers, utilisation_ceiling: Numbers = 1.0) -> Values:
    """GPUs a month's work needs when each may be busy at most a share of its hours. [GPU]

    Parameters
    ----------
    gpu_hours_per_month
        Work. [GPU-h/month]
    utilisation_ceiling
        Highest average share of a GPU's capacity the work may use, in (0, 1]. [-]

    Notes
    -----
    N = H / (730 · u), before rounding.

    References
    ----------
    .. [1] Barroso, Clidaras and Hölzle (2013), *The Datacenter as a Computer*, 2nd ed., ch. 6 (provisioning for
       peak load with headroom).

    Examples
    --------
    >>> gpus_needed(15_768, 0.9)
    24.0
    """
    return gpu_hours_per_month / (HOURS_PER_MONTH * utilisation_ceiling)


def whole_units(needed: NumbersOrList, unit: Numbers = 1, minimum: Numbers = 0) -> Values:
    """Whole units of ``unit`` items that hold ``needed`` items, at least ``minimum`` units. [units]

    Parameters
    ----------
    needed
        Items needed, fractional. [items]
    unit
        Items per unit, ≥ 1 (GPUs per replica, GPUs per server). [items/unit]
    minimum
        Fewest units. [units]

    Notes
    -----
    n = max(⌈(needed − ε) / unit⌉, minimum) with ε = 1e-9 items, so rounding noise just above
    a whole number does not add a unit. The tolerance is in items (GPUs), not units, so fleets
    stepping in different units (replicas, servers) step at the same number of items.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> whole_units(8.0, 8)
    1.0
    >>> whole_units(8.5, 8)
    2.0
    >>> whole_units(0.0, 2, minimum=1)
    1.0
    """
    units = np.maximum(np.ceil((np.asarray(needed, dtype=float) - _EPSILON) / unit), minimum) + 0.0
    return like(units, needed, unit, minimum)


def gpus_per_server_step(gpus_per_server: float, gpus_per_replica: float) -> int:
    """GPUs an own fleet adds at a time: whole servers holding whole replicas. [GPU]

    Not elementwise: scalar inputs only (the result is a whole count, or None where it has no
    value).

    Notes
    -----
    The least common multiple of GPUs per server and GPUs per replica.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> gpus_per_server_step(8, 2)
    8
    >>> gpus_per_server_step(8, 16)
    16
    """
    return math.lcm(int(gpus_per_server), int(gpus_per_replica))


def servers_needed(gpus: Numbers, gpus_per_server: float, gpus_per_replica: float = 1, minimum: Numbers = 0) -> Values:
    """Whole servers that hold ``gpus`` GPUs in whole replicas, at least ``minimum``. [servers]

    Parameters
    ----------
    gpus
        GPUs needed, fractional. [GPU]
    gpus_per_server
        GPUs in one server, a scalar (a whole number). [GPU]
    gpus_per_replica
        GPUs that serve one copy of a model, a scalar (a whole number). [GPU]
    minimum
        Fewest servers (the ones already configured). [servers]

    Notes
    -----
    With step L = lcm(G, R): servers = max(⌈N / L⌉ · L / G, minimum).

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> servers_needed(17.0, 8)
    3.0
    >>> servers_needed(17.0, 8, minimum=4)
    4.0
    """
    step = gpus_per_server_step(gpus_per_server, gpus_per_replica)
    return like(np.maximum(np.asarray(whole_units(gpus, step)) * (step // gpus_per_server), minimum), gpus, minimum)


def servers_with_spares(servers: NumbersOrList, spare_share: Numbers) -> Values:
    """Servers bought: the working ones plus hot spares, in whole servers. [servers]

    Notes
    -----
    B = S + ⌈S · q − ε⌉: a share q of spares, rounded up to whole servers (a spare is bought
    whole; ε = 1e-9 keeps 1,250 × 0.02 at 25).

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> servers_with_spares(1250, 0.02)
    1275.0
    >>> servers_with_spares(2, 0.1)        # 0.2 of a spare is a whole spare
    3.0
    """
    working = np.asarray(servers, dtype=float)
    spares = np.ceil(working * spare_share - _EPSILON)
    bought = working + np.maximum(spares, 0.0)
    return like(bought, servers, spare_share)

"""Demand hour by hour over a year under the scenario's demand profile.

Kept below the costs (which weigh clock-dependent API prices by it) and above the
capacity conversion; :mod:`costmodel.domain.mix` builds the cheapest mix on it.
"""

from __future__ import annotations

import numpy as np

from ..resolved import Resolved, as_resolved
from ..schema import Scenario
from ..units import HOURS_PER_MONTH
from .capacity import gpu_hours_used


def demand_shape(scenario: Scenario | Resolved) -> np.ndarray:
    """The profile's shape over a year: each hour's demand per unit of the average, growth applied. [-]

    Relative profiles (steady, bursty, campaigns, weekly, office hours) and absolute ones
    (hourly values, a job log, a request log) alike have mean 1 before growth; growth, if
    any, compounds over the year: × (1 + g)^(h / hours in the year).

    Returns
    -------
    numpy.ndarray
        Shape (hours in the year,). [-]

    Raises
    ------
    ValueError
        The scenario has no demand profile.
    """
    r = as_resolved(scenario)
    if r.demand is None:
        raise ValueError("the scenario has no demand profile")
    return r.demand.shape


def hourly_demand(scenario: Scenario | Resolved) -> np.ndarray:
    """GPUs busy in each hour of the year under the scenario's demand profile. [GPU]

    The profile's shape (:func:`demand_shape`) scaled so that its mean before growth is the
    workload's average GPUs busy (GPU-hours used per month / 730). An absolute profile (an
    hourly file, a job log) states the same volume as the workload to within 1 % (checked
    when the scenario is read), so it is scaled by at most that; at another volume (a sweep)
    its shape is kept.

    Returns
    -------
    numpy.ndarray
        Shape (hours in the year,), or (samples, hours) when the volume or the throughput is
        an array of samples of shape (samples,). [GPU]

    Raises
    ------
    ValueError
        The scenario has no demand profile.
    """
    r = as_resolved(scenario)
    shape = demand_shape(r)
    average = np.asarray(gpu_hours_used(r, r.volume), dtype=float) / HOURS_PER_MONTH
    if average.ndim == 0:
        return float(average) * shape
    return average[..., None] * shape


__all__ = ["demand_shape", "hourly_demand"]

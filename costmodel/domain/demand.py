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


def hourly_demand(scenario: Scenario | Resolved) -> np.ndarray:
    """GPUs busy in each hour of the year under the scenario's demand profile. [GPU]

    Relative profiles (steady, bursty, campaigns, weekly) are scaled so that their mean is
    the workload's average GPUs busy (GPU-hours used per month / 730); absolute ones
    (hourly values, a job log) are taken as given. Growth, if any, compounds over the
    year: × (1 + g)^(h / hours in the year).

    Returns
    -------
    numpy.ndarray
        Shape (hours in the year,), GPUs. [GPU]

    Raises
    ------
    ValueError
        The scenario has no demand profile.
    """
    r = as_resolved(scenario)
    if r.demand is None:
        raise ValueError("the scenario has no demand profile")
    profile, count = r.demand.profile, r.demand.hours
    average = float(gpu_hours_used(r, r.volume)) / HOURS_PER_MONTH
    hours = np.arange(count)
    kind = profile.kind
    if kind == "steady":
        series = np.full(count, average)
    elif kind == "bursty":
        peak = profile.peak_to_average * average
        base = (average - profile.duty_cycle * peak) / (1.0 - profile.duty_cycle) if profile.duty_cycle < 1 else peak
        busy = (hours % 168) < round(profile.duty_cycle * 168)      # the busy hours first in each week
        series = np.where(busy, peak, base)
        series *= average / series.mean() if series.mean() > 0 else 1.0
    elif kind == "campaigns":
        on = (hours % (profile.period_days * 24)) < profile.on_days * 24
        series = np.where(on, 1.0, profile.off_share)
        series *= average / series.mean() if series.mean() > 0 else 0.0
    elif kind == "weekly":
        series = np.resize(np.asarray(profile.template, dtype=float), count)
        series *= average / series.mean() if series.mean() > 0 else 0.0
    elif kind == "office_hours":
        hour_of_day, day = hours % 24, (hours // 24) % 7
        office = (hour_of_day >= profile.start_hour) & (hour_of_day < profile.end_hour) & np.isin(day, profile.days)
        series = np.where(office, 1.0, profile.off_share)
        series *= average / series.mean() if series.mean() > 0 else 0.0
    else:
        series = r.demand.values
    if profile.growth_per_year:
        series = series * (1.0 + profile.growth_per_year) ** (hours / count)
    return series


__all__ = ["hourly_demand"]

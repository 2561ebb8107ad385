"""A scenario's demand profile resolved: the hourly file, job log or request log read once, and the
workload's capacity held for the profile's busiest hour.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import formulas
from .errors import InputError, scenario_problem
from .io.demand_files import JobLog, hours_in_year, read_hourly_file, read_job_log
from .io.request_logs import read_request_log
from .paths import DATA_DIR
from .schema import Scenario
from .schema.demand import HourlyFileDemand, JobLogDemand, RequestLogDemand
from .sizing import WorkloadInputs
from .units import HOURS_PER_MONTH, HOURS_PER_YEAR, MONTHS_PER_YEAR

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""


@dataclass(frozen=True)
class DemandInputs:
    """A demand profile, with the values of an hourly file or a job log read once.

    Attributes
    ----------
    profile
        The scenario's demand block.
    hours
        Hours in the profile's year. [h]
    values
        GPUs busy each hour for absolute profiles (file, job log); None for relative ones. [GPU]
    job_log
        What reading a job log found (rows skipped, jobs running), if one was read.
    """

    profile: Any
    hours: int
    values: np.ndarray | None = None
    job_log: JobLog | None = None
    hours_per_volume: Number | None = None
    """For a tokens workload's file or request log: the GPU-hours per tokens/day the values were converted at."""

    @functools.cached_property
    def distribution(self) -> np.ndarray:
        """:attr:`shape` divided by its mean: how a month's GPU-hours spread over the hours (mean 1, growth
        included in the spread). The cash flows' months take their volume from the finance block's trend
        and their hours' spread from this. [-]"""
        shape = self.shape
        mean = float(shape.mean()) if shape.size else 0.0
        return shape / mean if mean > 0 else shape

    @functools.cached_property
    def sorted_distribution(self) -> formulas.SortedDemand:
        """:attr:`distribution` sorted once with its running sums, for
        :func:`~costmodel.formulas.served_below_sorted` at many levels (every month of a cash flow, every
        reserved and spot level of one comparison). [-]"""
        return formulas.sorted_demand(self.distribution)

    @functools.cached_property
    def shape(self) -> np.ndarray:
        """Each hour's demand per unit of the average over the year, growth applied. [-]

        Relative profiles (steady, bursty, campaigns, weekly, office hours) and absolute ones
        (hourly values, a job log, a request log) alike have mean 1 before growth; growth, if
        any, compounds over the year: × (1 + g)^(h / hours in the year). Shape (hours,).
        """
        profile, count = self.profile, self.hours
        hours = np.arange(count)
        kind = profile.kind
        if kind == "steady":
            series = np.ones(count)
        elif kind == "bursty":
            peak, duty = float(profile.peak_to_average), float(profile.duty_cycle)
            base = (1.0 - duty * peak) / (1.0 - duty) if duty < 1 else peak
            busy = (hours % 168) < round(duty * 168)  # the busy hours first in each week
            series = np.where(busy, peak, base)
        elif kind == "campaigns":
            on = (hours % (profile.period_days * 24)) < profile.on_days * 24
            series = np.where(on, 1.0, float(profile.off_share))
        elif kind == "weekly":
            series = np.resize(np.asarray(profile.template, dtype=float), count)
        elif kind == "office_hours":
            hour_of_day, day = hours % 24, (hours // 24) % 7
            office = (hour_of_day >= profile.start_hour) & (hour_of_day < profile.end_hour) & np.isin(day, profile.days)
            series = np.where(office, 1.0, float(profile.off_share))
        else:
            series = np.asarray(self.values, dtype=float)
        mean = float(series.mean())
        series = series / mean if mean > 0 else np.zeros(count)
        if profile.growth_per_year:
            series = series * (1.0 + float(profile.growth_per_year)) ** (hours / count)
        series.setflags(write=False)
        return series


def demand_file(path: str, folder: str | None) -> Path:
    """The file a demand profile's ``path`` names: absolute as it is; relative, in ``folder`` (the scenario
    file's, where the loader found the file there: :func:`costmodel.scenarios.demand_folder`), else in data/
    (as the bundled scenarios name their files)."""
    named = Path(path)
    if named.is_absolute():
        return named
    return (Path(folder) if folder is not None else DATA_DIR) / named


def demand_inputs(scenario: Scenario, workload: WorkloadInputs, previous: DemandInputs | None) -> DemandInputs | None:
    """The scenario's demand profile with its file read (``previous``: the same profile read before, reused).

    Raises
    ------
    ScenarioError
        The file cannot be read, holds no demand, or averages another volume than the workload states.
    """
    profile = scenario.demand
    if profile is None:
        return None
    if not isinstance(profile, HourlyFileDemand | JobLogDemand | RequestLogDemand):
        return DemandInputs(profile, int(HOURS_PER_YEAR))
    if previous is not None and previous.profile == profile and workload.kind != "tokens":
        return previous  # the same files: read once
    path = demand_file(profile.path, scenario.demand_folder)
    if workload.kind == "tokens":
        return _token_demand(profile, path, workload)
    assert not isinstance(profile, RequestLogDemand), "a request log is a tokens workload's"
    try:
        if isinstance(profile, HourlyFileDemand):
            log, hours = None, int(HOURS_PER_YEAR)
            values = read_hourly_file(path, hours)
        else:
            hours = hours_in_year(profile.year, profile.time_zone)
            log = read_job_log(path, profile.year, profile.time_zone, profile.until)
            values = log.demand
    except InputError as exc:
        shown = "; ".join(f"{f}: {reason}" for f, _, reason in exc.problems[:5])
        more = f"; and {len(exc.problems) - 5} more" if len(exc.problems) > 5 else ""
        raise scenario_problem("demand.path", profile.path, shown + more) from None
    if values.sum() == 0:
        year = profile.year if isinstance(profile, JobLogDemand) else None
        raise scenario_problem(
            "demand.path" if year is None else "demand.year",
            profile.path,
            "the profile holds no demand (all zeros)" + (f" in {year}" if year is not None else ""),
        )
    monthly = float(values.sum()) / MONTHS_PER_YEAR
    stated = workload.volume
    if np.ndim(stated) == 0 and abs(monthly - stated) > 0.01 * max(monthly, stated):
        raise scenario_problem(
            "workload.gpu_hours_per_month",
            stated,
            f"the demand profile averages {monthly:,.0f} GPU-hours a month; state that here so the "
            "monthly view and the mix describe the same work",
        )
    return DemandInputs(profile, hours, values, log)


def _token_demand(
    profile: HourlyFileDemand | JobLogDemand | RequestLogDemand, path: Path, workload: WorkloadInputs
) -> DemandInputs:
    """Tokens per hour from a file or a request log, turned into GPUs busy at full throughput."""
    try:
        if profile.kind == "hourly_file":
            hours = int(HOURS_PER_YEAR)
            tokens = read_hourly_file(path, hours, most=1e13, what="tokens")
        else:
            hours = hours_in_year(profile.year, profile.time_zone)
            tokens, _ = read_request_log(path, profile.year, profile.time_zone)
    except InputError as exc:
        shown = "; ".join(f"{f}: {reason}" for f, _, reason in exc.problems[:5])
        raise scenario_problem("demand.path", profile.path, shown) from None
    if tokens.sum() == 0:
        raise scenario_problem("demand.path", profile.path, "the profile holds no demand (all zeros)")
    per_day = float(tokens.sum()) / (hours / 24.0)
    stated = workload.volume
    if np.ndim(stated) == 0 and abs(per_day - stated) > 0.01 * max(per_day, stated):
        raise scenario_problem(
            "workload.tokens_per_day",
            stated,
            f"the demand profile averages {per_day:,.0f} tokens a day; state that here so the "
            "monthly view and the mix describe the same work",
        )
    if np.all(np.asarray(workload.gpu_hours_per_volume) == 0):
        # API options alone: nothing in GPUs; the tokens per hour themselves give the shape the bills are
        # weighed by (their price windows)
        return DemandInputs(profile, hours, np.asarray(tokens, dtype=float), None, 0.0)
    gpus = tokens * 24.0 * workload.gpu_hours_per_volume / HOURS_PER_MONTH  # tokens/hour as tokens/day
    return DemandInputs(profile, hours, gpus, None, workload.gpu_hours_per_volume)


def sized_for_the_busiest_hour(workload: WorkloadInputs, demand: DemandInputs) -> WorkloadInputs:
    """The workload with its capacity sized for the demand profile's busiest hour.

    A demand profile states when the work arrives, so capacity is held for its busiest hour:
    the utilisation ceiling becomes the hourly ceiling (a served model's target utilisation,
    else the workload's ceiling) over the profile's peak-to-average ratio, replacing a served
    model's ``peak_to_average``. The monthly view, the cash flows and the hour-by-hour mix then
    hold the same GPUs for the same demand.
    """
    peak = float(demand.shape.max()) if demand.shape.size else 0.0
    if peak <= 0:
        return workload
    hourly = workload.hourly_ceiling
    capacity = workload.capacity
    if capacity is not None:
        capacity = dataclasses.replace(capacity, sizing_utilisation=hourly / peak)
    return dataclasses.replace(workload, utilisation_ceiling=hourly / peak, peak_to_average=peak, capacity=capacity)


__all__ = ["DemandInputs", "demand_file", "demand_inputs", "sized_for_the_busiest_hour"]

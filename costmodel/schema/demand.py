"""Demand hour by hour over a year, for the cheapest mix: relative shapes, files and job logs.

Relative profiles (steady, bursty, campaigns, weekly) spread the workload's average over the
hours; absolute ones (an hourly file, a Slurm job log) give GPUs busy each hour and are read
when the scenario is resolved (:mod:`costmodel.io.demand_files`).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal
from zoneinfo import available_timezones

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..errors import did_you_mean
from .base import Count, InputModel, NonNegative, Positive, PositiveShare, Share, Text, fail, quantity


class _Profile(InputModel):
    growth_per_year: float = quantity(0.0, unit="1/year", title="demand growth over the year", strict=True, gt=-1,
                                      le=100)
    source: Text = ""


class SteadyDemand(_Profile):
    """The same demand every hour: the workload's average."""

    kind: Literal["steady"]


class BurstyDemand(_Profile):
    """A peak for a share of the hours (the duty cycle) and a lower base the rest of the time.

    Peak = ratio × average; base = (average − duty × peak) / (1 − duty), which must not be
    negative (ratio × duty ≤ 1). Peak hours come first in each week.
    """

    kind: Literal["bursty"]
    peak_to_average: float = quantity(unit="-", title="peak-to-average ratio", strict=True, ge=1, le=1000)
    duty_cycle: PositiveShare = quantity(unit="-", title="duty cycle", varies=False,
                                         description="Share of hours at the peak.")

    @model_validator(mode="after")
    def _base_not_negative(self) -> BurstyDemand:
        if self.peak_to_average * self.duty_cycle > 1 + 1e-12:
            raise fail("BurstyDemand", ("duty_cycle",), "negative_base",
                       "peak_to_average x duty_cycle is above 1: the hours off the peak would need negative "
                       "demand", self.duty_cycle)
        return self


class CampaignDemand(_Profile):
    """Campaigns: busy for on_days of every period_days, at off_share of that level in between."""

    kind: Literal["campaigns"]
    on_days: Positive = quantity(unit="d", title="campaign length", varies=False, description="Days of each campaign.")
    period_days: Positive = quantity(unit="d", title="campaign period", le=365, varies=False,
                                     description="Days from one campaign's start to the next.")
    off_share: Share = quantity(0.0, unit="-", title="demand between campaigns",
                                description="Demand between campaigns as a share of the campaign level.")

    @model_validator(mode="after")
    def _fits(self) -> CampaignDemand:
        if self.on_days > self.period_days:
            raise fail("CampaignDemand", ("on_days",), "too_long", "a campaign cannot outlast its period",
                       self.on_days)
        return self


class WeeklyDemand(_Profile):
    """A 24 × 7 template (168 hourly values from Monday 00:00), repeated and scaled to the average."""

    kind: Literal["weekly"]
    template: list[NonNegative] = Field(min_length=168, max_length=168, description="Relative demand by hour.")

    @model_validator(mode="after")
    def _some_demand(self) -> WeeklyDemand:
        if sum(self.template) == 0:
            raise fail("WeeklyDemand", ("template",), "no_demand", "the template is all zeros: no demand", 0)
        return self


class HourlyFileDemand(_Profile):
    """A year of hourly GPU demand from a file: one number a line (absolute GPUs), 8,760 of them."""

    kind: Literal["hourly_file"]
    path: Text = Field(min_length=1, description="File, relative to data/ or absolute.")


class JobLogDemand(_Profile):
    """Hourly GPU demand from a Slurm ``sacct --parsable2`` job log (JobID|Start|End|AllocTRES).

    See :mod:`costmodel.io.demand_files` for how states, running jobs and time zones are read.
    """

    kind: Literal["job_log"]
    path: Text = Field(min_length=1, description="File, relative to data/ or absolute.")
    year: Count = Field(ge=1970, le=2100, description="Calendar year the profile covers.")
    time_zone: str = Field(default="UTC", description="IANA time zone of the log's clock times.")
    until: dt.datetime | None = Field(default=None, description="Running jobs count up to this time; default: "
                                                                "the latest time in the log.")

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        zones = available_timezones()
        if value not in zones:
            raise PydanticCustomError("unknown_time_zone",
                                      "not a time zone of the IANA tz database (e.g. UTC, Europe/Madrid){hint}",
                                      {"hint": did_you_mean(value, zones)})
        return value


DemandProfile = Annotated[
    SteadyDemand | BurstyDemand | CampaignDemand | WeeklyDemand | HourlyFileDemand | JobLogDemand,
    Field(discriminator="kind")]

"""Demand hour by hour over a year, for the cheapest mix: relative shapes, files and job logs.

Relative profiles (steady, bursty, campaigns, weekly) spread the workload's average over the
hours; absolute ones (an hourly file, a Slurm job log) give GPUs busy each hour and are read
when the scenario is resolved (:mod:`costmodel.io.demand_files`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from ..catalog import known_time_zone
from .base import (
    DateTime,
    InputModel,
    NonNegative,
    Positive,
    PositiveShare,
    Share,
    Source,
    Text,
    Whole,
    fail,
    quantity,
    rules,
)

SHAPES = "shapes the demand hour by hour (one series for every sample)"
"""Why a profile's shape inputs do not vary: the hourly series is built once, not per sample."""

YEAR = "sets the calendar year"


class _Profile(InputModel):
    growth_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="demand growth over the year",
        strict=True,
        gt=-1,
        le=100,
        varies=False,
        fixed_because=SHAPES,
    )
    source: Source = ""


class SteadyDemand(_Profile):
    """The same demand every hour: the workload's average."""

    kind: Literal["steady"] = Field(description="steady: the workload's average every hour.")


class BurstyDemand(_Profile):
    """A peak for a share of the hours (the duty cycle) and a lower base the rest of the time.

    Peak = ratio × average; base = (average − duty × peak) / (1 − duty), which must not be
    negative (ratio × duty ≤ 1). Peak hours come first in each week.
    """

    kind: Literal["bursty"] = Field(description="bursty: a peak for a share of the hours, a lower base the rest.")
    peak_to_average: float = quantity(
        unit="-", title="peak-to-average ratio", strict=True, ge=1, le=1000, varies=False, fixed_because=SHAPES
    )
    duty_cycle: PositiveShare = quantity(
        unit="-", title="duty cycle", varies=False, description="Share of hours at the peak."
    )

    @model_validator(mode="after")
    def _base_not_negative(self) -> BurstyDemand:
        if self.peak_to_average * self.duty_cycle > 1 + 1e-12:
            raise fail(
                "BurstyDemand",
                ("duty_cycle",),
                "negative_base",
                "peak_to_average x duty_cycle is above 1: the hours off the peak would need negative demand",
                self.duty_cycle,
            )
        return self


class CampaignDemand(_Profile):
    """Campaigns: busy for on_days of every period_days, at off_share of that level in between."""

    kind: Literal["campaigns"] = Field(
        description="campaigns: busy on_days of every period_days, off_share in between."
    )
    on_days: Positive = quantity(unit="d", title="campaign length", varies=False, description="Days of each campaign.")
    period_days: Positive = quantity(
        unit="d",
        title="campaign period",
        le=365,
        varies=False,
        description="Days from one campaign's start to the next.",
    )
    off_share: Share = quantity(
        0.0,
        unit="-",
        title="demand between campaigns",
        varies=False,
        fixed_because=SHAPES,
        description="Demand between campaigns as a share of the campaign level.",
    )

    @model_validator(mode="after")
    def _fits(self) -> CampaignDemand:
        if self.on_days > self.period_days:
            raise fail("CampaignDemand", ("on_days",), "too_long", "a campaign cannot outlast its period", self.on_days)
        return self


class WeeklyDemand(_Profile):
    """A 24 × 7 template (168 hourly values from Monday 00:00), repeated and scaled to the average."""

    model_config = ConfigDict(
        json_schema_extra=rules({"properties": {"template": {"contains": {"exclusiveMinimum": 0}}}})
    )

    kind: Literal["weekly"] = Field(description="weekly: a 168-hour template, repeated.")
    template: list[NonNegative] = Field(
        min_length=168,
        max_length=168,
        description="Relative demand by hour. [-]",
        json_schema_extra={"varies": False, "fixed_because": SHAPES},
    )

    @model_validator(mode="after")
    def _some_demand(self) -> WeeklyDemand:
        if sum(self.template) == 0:
            raise fail("WeeklyDemand", ("template",), "no_demand", "the template is all zeros: no demand", 0)
        return self


class OfficeHoursDemand(_Profile):
    """Demand in office hours (from ``start_hour`` to ``end_hour`` on ``days``), a share of that level outside.

    Hours count from Monday 00:00 of the profile's year, in the scenario's clock; the
    series is scaled so that its mean is the workload's average.
    """

    kind: Literal["office_hours"] = Field(
        description="office_hours: busy from start_hour to end_hour on days, off_share outside."
    )
    start_hour: Whole = quantity(8, unit="h", title="office hours start", ge=0, le=23, varies=False)
    end_hour: Whole = quantity(18, unit="h", title="office hours end", ge=1, le=24, varies=False)
    days: list[Annotated[int, Field(ge=0, le=6)]] = Field(
        default_factory=lambda: [0, 1, 2, 3, 4],
        min_length=1,
        max_length=7,
        description="Days with office hours, 0 = Monday. [day of the week]",
    )
    off_share: Share = quantity(
        0.0,
        unit="-",
        title="demand outside office hours",
        varies=False,
        fixed_because=SHAPES,
        description="Demand outside office hours as a share of the office-hours level.",
    )

    @model_validator(mode="after")
    def _hours_in_order(self) -> OfficeHoursDemand:
        if self.end_hour <= self.start_hour:
            raise fail(
                "OfficeHoursDemand",
                ("end_hour",),
                "not_after_start",
                "office hours must end after they start (start_hour {start})",
                self.end_hour,
                start=self.start_hour,
            )
        return self


_PATH_WORDS = (
    "File: absolute, or relative to the scenario file's folder where the file is there, else relative to data/."
)
"""How a demand profile's ``path`` is read (:func:`costmodel.demand_inputs.demand_file`)."""


class RequestLogDemand(_Profile):
    """Token demand from a request log (CSV: ``timestamp,input_tokens,output_tokens``) summed to hours.

    Timestamps are ISO 8601; those without an offset are read in ``time_zone``. Requests
    outside ``year`` are left out. Token workloads only.
    """

    kind: Literal["request_log"] = Field(description="request_log: tokens per hour from a CSV request log.")
    path: Text = Field(min_length=1, description=_PATH_WORDS)
    year: Whole = quantity(
        unit="year",
        title="profile year",
        ge=1970,
        le=2100,
        varies=False,
        fixed_because=YEAR,
        description="Calendar year the profile covers.",
    )
    time_zone: str = Field(default="UTC", description="IANA time zone of timestamps without an offset.")

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        return known_time_zone(value)


class HourlyFileDemand(_Profile):
    """A year of hourly demand from a file: one number a line, 8,760 of them.

    GPUs busy for a ``gpu_hours`` workload; tokens in the hour for a ``tokens`` workload.
    """

    kind: Literal["hourly_file"] = Field(description="hourly_file: 8,760 hourly values from a file.")
    path: Text = Field(min_length=1, description=_PATH_WORDS)


class JobLogDemand(_Profile):
    """Hourly GPU demand from a Slurm ``sacct --parsable2`` job log (JobID|Start|End|AllocTRES).

    See :mod:`costmodel.io.demand_files` for how states, running jobs and time zones are read.
    """

    kind: Literal["job_log"] = Field(description="job_log: GPUs busy per hour from a Slurm sacct job log.")
    path: Text = Field(min_length=1, description=_PATH_WORDS)
    year: Whole = quantity(
        unit="year",
        title="profile year",
        ge=1970,
        le=2100,
        varies=False,
        fixed_because=YEAR,
        description="Calendar year the profile covers.",
    )
    time_zone: str = Field(default="UTC", description="IANA time zone of the log's clock times.")
    until: DateTime | None = Field(
        default=None, description="Running jobs count up to this time; default: the latest time in the log."
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        return known_time_zone(value)


DemandProfile = Annotated[
    SteadyDemand
    | BurstyDemand
    | CampaignDemand
    | WeeklyDemand
    | OfficeHoursDemand
    | HourlyFileDemand
    | JobLogDemand
    | RequestLogDemand,
    Field(discriminator="kind"),
]

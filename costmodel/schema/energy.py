"""Energy, carbon and power inputs: where the electricity comes from, what it emits, what the site allows.

All optional. Without this block the tool still reports energy [kWh/month] for every option
(the own cluster's drawn power × PUE; rented GPUs at the provider PUE of
data/datacenter_pue.csv; the API from data/api_energy.csv) but no emissions, since emissions
need a grid.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ..catalog import Currency
from .base import (
    InputModel,
    NonNegative,
    Positive,
    Text,
    context_catalog,
    fail,
    given,
    inside,
    known_id,
    quantity,
    rules,
    when,
)

HOURS_PER_DAY = 24


class TimeOfUseTariff(InputModel):
    """An electricity price by hour of the day, weekdays and weekends apart (a weekly tariff).

    Applied hour by hour to the own cluster's draw over the demand profile's year (hour 0 =
    midnight local time of the profile). Monday to Friday take ``weekday_prices_per_kwh``,
    Saturday and Sunday ``weekend_prices_per_kwh``.
    """

    weekday_prices_per_kwh: list[NonNegative] = quantity(
        unit="{currency}/kWh",
        title="weekday electricity price",
        min_length=24,
        max_length=24,
        description="Price in each hour of a weekday, hour 0 first.",
    )
    weekend_prices_per_kwh: list[NonNegative] = quantity(
        unit="{currency}/kWh",
        title="weekend electricity price",
        min_length=24,
        max_length=24,
        description="Price in each hour of a Saturday or Sunday, hour 0 first.",
    )
    currency: Currency
    source: Text = Field(min_length=1, description="The tariff's publisher and date, or ASSUMPTION.")


class EnergyInputs(InputModel):
    """Where the options' electricity comes from and what a site may draw.

    Location-based emissions take the grid's average intensity (``grid_region``, a row of
    data/grid_carbon_intensity.csv); market-based ones a contracted intensity
    (``market_kg_co2e_per_kwh``, e.g. 0 for a renewable power purchase agreement).
    """

    model_config = ConfigDict(
        json_schema_extra=rules(when(given("market_kg_co2e_per_kwh"), inside("source", {"pattern": r"\S"})))
    )

    grid_region: str | None = Field(
        default=None, description="Grid of the own cluster (row of data/grid_carbon_intensity.csv)."
    )
    rent_grid_region: str | None = Field(default=None, description="Grid of the rented GPUs; default: grid_region.")
    market_kg_co2e_per_kwh: NonNegative | None = quantity(
        None,
        unit="kg CO2e/kWh",
        title="contracted carbon intensity",
        le=2,
        description="Market-based intensity of the own cluster's electricity contract.",
    )
    rent_pue: float | None = quantity(
        None,
        unit="-",
        title="provider PUE",
        strict=True,
        ge=1.0,
        le=5.0,
        description="PUE of the rented GPUs' data centre; default: the industry average row of "
        "data/datacenter_pue.csv (an estimate).",
    )
    rent_pue_row: str = Field(
        default="uptime-2024-average", description="Row of data/datacenter_pue.csv used when rent_pue is not given."
    )
    power_budget_kw: Positive | None = quantity(
        None,
        unit="kW",
        title="power budget at the meter",
        le=10_000_000,
        description="Most the own cluster's site may draw at the meter (IT × PUE, all servers at full "
        "power); a fleet that needs more is refused.",
    )
    tariff: TimeOfUseTariff | None = Field(default=None, description="Time-of-use electricity tariff.")
    source: Text = Field(default="", description="Where the grid, contract and budget figures come from.")

    @field_validator("grid_region", "rent_grid_region")
    @classmethod
    def _region_known(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return value
        return known_id(value, context_catalog(info).grid_intensity, "grid region", "grid_carbon_intensity.csv")

    @field_validator("rent_pue_row")
    @classmethod
    def _pue_known(cls, value: str, info: ValidationInfo) -> str:
        return known_id(value, context_catalog(info).datacenter_pue, "PUE row", "datacenter_pue.csv")

    @model_validator(mode="after")
    def _market_needs_source(self) -> EnergyInputs:
        if self.market_kg_co2e_per_kwh is not None and not self.source.strip():
            raise fail(
                "EnergyInputs",
                ("source",),
                "missing",
                "a contracted (market-based) intensity needs its source: the contract or certificate",
                self.source,
            )
        return self


__all__ = ["EnergyInputs", "TimeOfUseTariff"]

"""Catalog figures replaced in one scenario: what a what-if that moved a catalog price saves.

A catalog-backed input (:data:`costmodel.schema.inputs.CATALOG_INPUTS`: server price,
rental price per GPU-hour, API prices) or the serving throughput of a tokens workload has no
field of its own in a scenario: it is read from the catalog row the scenario names. An
``overrides`` block replaces such figures for this scenario only, by input path, with the
source of the new figure (``"what-if ..."``, a quote, a contract). Fields that a scenario
holds itself are changed in place, not here.

Example (YAML)::

    overrides:
      values:
        options.api.output_price_per_million: 15.0
      source: "what-if: a mid-tier output price"
"""

from __future__ import annotations

from pydantic import Field

from .base import InputModel, Number, Text
from .inputs import CATALOG_INPUTS, THROUGHPUT_INPUT


class Overrides(InputModel):
    """Catalog-backed inputs replaced for this scenario, by input path (units as the catalog row's)."""

    values: dict[str, Number] = Field(
        min_length=1,
        max_length=50,
        description="Input path (options.own.server_price, options.rent.price_per_gpu_hour, "
        "options.api.input_price_per_million, ..., workload.throughput_per_gpu) -> the figure used "
        "instead of the catalog row's. [the input's unit]",
        json_schema_extra={"propertyNames": {"enum": [*CATALOG_INPUTS, THROUGHPUT_INPUT]}},
    )
    source: Text = Field(min_length=1, description="Where the replacing figures come from (or 'what-if').")

"""Offers written in the scenario itself: a quote that is in no catalog.

An ``offers:`` block holds rows with the columns of the catalog files (``servers``:
data/servers.csv, ``cloud_offers``: data/cloud_prices.csv, ``api_offers``:
data/api_prices.csv), each with its source, as-of date and grade. They are added to the
catalog the scenario is validated against (a row with a catalog id replaces that row) before
the rest of the scenario is read, so ``options.rent.offer`` may name one. Their numbers follow
the scenario file's rules (strict: ``true`` or ``"2.10"`` is not a price), not a CSV file's
(where every cell is text):

.. code-block:: yaml

    offers:
      cloud_offers:
        - offer: acme-h100-quote
          provider: Acme Cloud
          gpu: H100-SXM-80GB
          pricing: on_demand
          price_per_gpu_hour: 2.10
          currency: USD
          quality: P
          as_of: 2026-11
          source: "Acme Cloud quote no. 1234, 2026-11-20"
    options:
      rent: {offer: acme-h100-quote, gpu_count: 2, billing: always_on}
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field, model_validator

from ..catalog import APIOffer, CloudOffer, Server
from .base import InputModel, either, fail, given, rules, when


class InlineServer(Server):
    """A server price given in the scenario's ``offers.servers``."""

    file: ClassVar[str] = "scenario offers.servers"
    model_config = ConfigDict(strict=True)  # numbers as in the scenario file: true is not 1.0


class InlineCloudOffer(CloudOffer):
    """A rental price given in the scenario's ``offers.cloud_offers``."""

    file: ClassVar[str] = "scenario offers.cloud_offers"
    model_config = ConfigDict(strict=True)  # numbers as in the scenario file: true is not 1.0


_LONG_CONTEXT = ("long_context_threshold_tokens", "long_context_input_per_million", "long_context_output_per_million")
"""Given together or not at all (:meth:`costmodel.catalog.APIOffer._long_context_whole`)."""


class InlineAPIOffer(APIOffer):
    """An API price given in the scenario's ``offers.api_offers``."""

    file: ClassVar[str] = "scenario offers.api_offers"
    model_config = ConfigDict(
        strict=True,  # numbers as in the scenario file: true is not 1.0
        json_schema_extra=rules(when(either(*map(given, _LONG_CONTEXT)), given(*_LONG_CONTEXT))),
    )


class Offers(InputModel):
    """Catalog rows given in the scenario (quotes that are in no catalog)."""

    servers: list[InlineServer] = Field(
        default_factory=list, max_length=100, description="Rows with the columns of data/servers.csv."
    )
    cloud_offers: list[InlineCloudOffer] = Field(
        default_factory=list, max_length=100, description="Rows with the columns of data/cloud_prices.csv."
    )
    api_offers: list[InlineAPIOffer] = Field(
        default_factory=list, max_length=100, description="Rows with the columns of data/api_prices.csv."
    )

    @model_validator(mode="after")
    def _ids_once(self) -> Offers:
        for name in ("servers", "cloud_offers", "api_offers"):
            seen: dict[str, int] = {}
            for index, row in enumerate(getattr(self, name)):
                if row.ident in seen:
                    raise fail(
                        "Offers",
                        (name, index, row.key),
                        "duplicate_id",
                        "repeats the id of row {first}: each row needs its own id",
                        row.ident,
                        first=seen[row.ident],
                    )
                seen[row.ident] = index
        return self

    def tables(self) -> dict[str, dict]:
        """Catalog table name → id → row."""
        return {
            name: {row.ident: row for row in getattr(self, name)}
            for name in ("servers", "cloud_offers", "api_offers")
            if getattr(self, name)
        }

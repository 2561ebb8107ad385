"""Typed inputs: GPUs and servers, the three options, the workload and the scenario.

Every quantity states its unit in its field description, and every money amount sits
in a model with a ``currency`` field (or comes from a catalog row that has one). All
models forbid unknown fields, so a misspelt key is an error, not a silent default.

Catalog ids (``server``, ``offer``, ``gpu``) are checked against the catalog passed as
validation context (``Scenario.model_validate(data, context={"catalog": c})``) or, by
default, the bundled one; the resolved rows are reachable through properties such as
:attr:`OwnCluster.server_spec`, and are not written back when a scenario is saved.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from .catalog import APIOffer, Catalog, CloudOffer, Currency, Server, default_catalog

NonNegative = Annotated[float, Field(ge=0)]
Count = Annotated[int, Field(strict=True)]
Positive = Annotated[float, Field(gt=0)]
Share = Annotated[float, Field(ge=0, le=1)]
PositiveShare = Annotated[float, Field(gt=0, le=1)]


def _catalog(info: ValidationInfo) -> Catalog:
    context = info.context or {}
    return context.get("catalog") or default_catalog()


def _known(ident: str, table: dict, what: str, catalog_file: str) -> str:
    if ident not in table:
        known = ", ".join(sorted(table))
        raise PydanticCustomError(
            "unknown_id", "unknown {what} (not in data/{file}); known: {known}",
            {"what": what, "file": catalog_file, "known": known},
        )
    return ident


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Staffing(_Model):
    """People who run the option: full-time equivalents times a loaded yearly cost."""

    fte: NonNegative = Field(description="Full-time equivalents assigned to the option. [FTE]")
    loaded_cost_per_fte_per_year: NonNegative = Field(
        description="Salary plus employer charges and overhead for one FTE for a year. [currency/FTE/year]"
    )
    currency: Currency
    source: str = Field(default="", description="Where the cost figure comes from.")


class Power(_Model):
    """Electricity for an owned cluster.

    Power drawn per server = max power × (idle share + (1 − idle share) × utilisation),
    and the energy bought is that times the PUE.
    """

    kw_per_server: Positive | None = Field(
        default=None, description="Maximum power at the wall per server; default: the server catalog's. [kW]"
    )
    idle_power_share: Share = Field(description="Power drawn at zero utilisation as a share of the maximum. [-]")
    pue: float = Field(ge=1.0, description="Power usage effectiveness: facility energy / IT energy. [-]")
    electricity_price_per_kwh: NonNegative = Field(description="Price of electricity. [currency/kWh]")
    currency: Currency
    source: str = ""


class Colocation(_Model):
    """Data-centre space and provisioned power capacity, priced per kW per month."""

    price_per_kw_month: NonNegative = Field(
        description="Price of one kW of provisioned (not drawn) capacity for a month. [currency/kW/month]"
    )
    currency: Currency
    source: str = ""


class OwnCluster(_Model):
    """Buying GPU servers and running them in a colocation facility."""

    server: str = Field(description="Server id in data/servers.csv (gives GPUs per server, price, power).")
    server_count: Count = Field(
        ge=1, le=100_000, description="Servers bought. The count steps up if the volume needs more. [servers]")
    depreciation_months: Count = Field(
        ge=1, le=600, description="Straight-line depreciation period of the servers. [months]")
    hardware_support_share_per_year: Share = Field(
        description="Hardware support and maintenance contract as a share of capex per year. [1/year]"
    )
    power: Power
    colocation: Colocation
    staffing: Staffing
    source: str = Field(default="", description="Where the depreciation period and support share come from.")

    _server: Server = PrivateAttr()

    @field_validator("server")
    @classmethod
    def _server_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).servers, "server", "servers.csv")

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> OwnCluster:
        self._server = _catalog(info).servers[self.server]
        return self

    @property
    def server_spec(self) -> Server:
        """The catalog row of the server bought."""
        return self._server

    @property
    def gpu(self) -> str:
        """Catalog id of the GPU in the server."""
        return self._server.gpu

    @property
    def kw_per_server(self) -> float:
        """Maximum power at the wall per server: the scenario's figure or the catalog's. [kW]"""
        return self.power.kw_per_server if self.power.kw_per_server is not None else self._server.max_power_kw


class CloudRental(_Model):
    """Renting GPUs from a cloud at an on-demand price per GPU-hour."""

    offer: str = Field(description="Offer id in data/cloud_prices.csv (gives GPU, price and currency).")
    billing: Literal["always_on", "per_gpu_hour_used"] = Field(
        description="always_on: every rented GPU is paid 730 h a month (24/7); "
        "per_gpu_hour_used: only the GPU-hours the workload uses are paid."
    )
    gpu_count: Count | None = Field(
        default=None, ge=1, le=1_000_000,
        description="GPUs rented 24/7; required for always_on, not used for per_gpu_hour_used. "
        "The count steps up if the volume needs more. [GPU]",
    )
    staffing: Staffing | None = Field(default=None, description="People who run the rented GPUs, if any.")

    _offer: CloudOffer = PrivateAttr()

    @field_validator("offer")
    @classmethod
    def _offer_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).cloud_offers, "cloud offer", "cloud_prices.csv")

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> CloudRental:
        if self.billing == "always_on" and self.gpu_count is None:
            raise ValidationError.from_exception_data("CloudRental", [InitErrorDetails(
                type=PydanticCustomError("gpu_count_needed", "always_on billing needs the number of GPUs rented"),
                loc=("gpu_count",), input=None)])
        if self.billing == "per_gpu_hour_used" and self.gpu_count is not None:
            raise ValidationError.from_exception_data("CloudRental", [InitErrorDetails(
                type=PydanticCustomError(
                    "gpu_count_unused",
                    "per_gpu_hour_used billing pays for the GPU-hours used, so a GPU count is not used; remove it"),
                loc=("gpu_count",), input=self.gpu_count)])
        self._offer = _catalog(info).cloud_offers[self.offer]
        return self

    @property
    def offer_spec(self) -> CloudOffer:
        """The catalog row of the offer rented."""
        return self._offer

    @property
    def gpu(self) -> str:
        """Catalog id of the GPU rented."""
        return self._offer.gpu


class HostedAPI(_Model):
    """Sending the tokens to a hosted LLM API priced per million tokens."""

    offer: str = Field(description="Offer id in data/api_prices.csv (gives input, cached input and output prices).")
    cached_input_share: Share = Field(
        default=0.0, description="Share of input tokens served from the provider's prompt cache. [-]"
    )

    _offer: APIOffer = PrivateAttr()

    @field_validator("offer")
    @classmethod
    def _offer_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).api_offers, "API offer", "api_prices.csv")

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> HostedAPI:
        self._offer = _catalog(info).api_offers[self.offer]
        return self

    @property
    def offer_spec(self) -> APIOffer:
        """The catalog row of the API offer."""
        return self._offer


class GPUHoursWorkload(_Model):
    """Work stated as GPU-hours per month (training, finetuning, batch jobs)."""

    kind: Literal["gpu_hours"]
    gpu: str = Field(description="GPU id in data/gpus.csv that the GPU-hours are counted on.")
    gpu_hours_per_month: NonNegative = Field(description="GPU-hours of work per month. [GPU-h/month]")
    max_utilisation: PositiveShare = Field(
        default=1.0,
        description="Share of a GPU's hours that the work can keep busy; sets the GPUs needed. [-]",
    )
    description: str = ""

    @field_validator("gpu")
    @classmethod
    def _gpu_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).gpus, "GPU", "gpus.csv")


class TokensWorkload(_Model):
    """Work stated as LLM tokens per day with an input:output mix (inference serving).

    Serving throughput is counted in output tokens per second per GPU, the metric of
    MLPerf Inference and of TensorRT-LLM's published benchmarks; the input tokens of
    each request are part of the measured load.
    """

    kind: Literal["tokens"]
    gpu: str = Field(description="GPU id in data/gpus.csv that the throughput was measured on.")
    tokens_per_day: NonNegative = Field(description="Input plus output tokens per day. [tokens/day]")
    input_tokens_per_output_token: NonNegative = Field(
        description="Input:output mix; 2 means two input tokens per output token (2:1). [-]"
    )
    output_tokens_per_second_per_gpu: Positive = Field(
        description="Serving throughput of one GPU at full load. [output tokens/s/GPU]"
    )
    throughput_source: str = Field(min_length=1, description="Benchmark or measurement behind the throughput.")
    max_utilisation: PositiveShare = Field(
        default=1.0,
        description="Average share of the throughput the service may use; the rest is headroom for peaks. [-]",
    )
    description: str = ""

    @field_validator("gpu")
    @classmethod
    def _gpu_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).gpus, "GPU", "gpus.csv")

    @property
    def output_share(self) -> float:
        """Share of all tokens that are output tokens: 1 / (1 + input per output). [-]"""
        return 1.0 / (1.0 + self.input_tokens_per_output_token)


Workload = Annotated[GPUHoursWorkload | TokensWorkload, Field(discriminator="kind")]


class FXRates(_Model):
    """Exchange rates into the reporting currency."""

    rates: dict[Currency, Positive] = Field(
        description="Units of the reporting currency for one unit of each other currency. [reporting/currency]"
    )
    source: str = Field(min_length=1)
    as_of: dt.date


class Options(_Model):
    """The options compared; at least two must be given."""

    own: OwnCluster | None = None
    rent: CloudRental | None = None
    api: HostedAPI | None = None


class Scenario(_Model):
    """One workload, the options to serve it, and the reporting currency.

    Load with :func:`costmodel.load_scenario`, save with :func:`costmodel.save_scenario`.
    """

    title: str = Field(min_length=1)
    description: str = ""
    reporting_currency: Currency
    fx: FXRates | None = Field(default=None, description="Needed when any input is in another currency.")
    workload: Workload
    options: Options

    @model_validator(mode="after")
    def _cross_check(self) -> Scenario:
        errors: list[InitErrorDetails] = []

        def fail(loc: tuple, value: Any, kind: str, message: str, **ctx: Any) -> None:
            errors.append(InitErrorDetails(type=PydanticCustomError(kind, message, ctx), loc=loc, input=value))

        present = [name for name in ("own", "rent", "api") if getattr(self.options, name) is not None]
        if len(present) < 2:
            fail(("options",), present, "too_few_options", "give at least two of own, rent and api to compare")
        if self.options.api is not None and self.workload.kind != "tokens":
            fail(("options", "api"), self.options.api.offer, "api_needs_tokens",
                 "a hosted API option needs a tokens workload (kind: tokens)")
        for name, option in (("own", self.options.own), ("rent", self.options.rent)):
            if option is not None and option.gpu != self.workload.gpu:
                field = "server" if name == "own" else "offer"
                fail(("options", name, field), getattr(option, field), "gpu_mismatch",
                     "holds GPU {gpu}, but the workload is counted on {workload_gpu}",
                     gpu=option.gpu, workload_gpu=self.workload.gpu)
        if self.fx is not None and self.reporting_currency in self.fx.rates:
            fail(("fx", "rates", self.reporting_currency), self.fx.rates[self.reporting_currency], "fx_self",
                 "{currency} is the reporting currency and takes no rate; remove it", currency=self.reporting_currency)
        for loc, currency in self.money_currencies():
            if currency != self.reporting_currency and (self.fx is None or currency not in self.fx.rates):
                fail(loc, currency, "no_fx_rate",
                     "no FX rate from {currency} to {reporting}; add it under fx.rates",
                     currency=currency, reporting=self.reporting_currency)
        if errors:
            raise ValidationError.from_exception_data("Scenario", errors)
        return self

    def money_currencies(self) -> list[tuple[tuple, str]]:
        """Every money input's currency, with the field that sets it."""
        found: list[tuple[tuple, str]] = []
        own, rent, api = self.options.own, self.options.rent, self.options.api
        if own is not None:
            found.append((("options", "own", "server"), own.server_spec.currency))
            for part in ("power", "colocation", "staffing"):
                found.append((("options", "own", part, "currency"), getattr(own, part).currency))
        if rent is not None:
            found.append((("options", "rent", "offer"), rent.offer_spec.currency))
            if rent.staffing is not None:
                found.append((("options", "rent", "staffing", "currency"), rent.staffing.currency))
        if api is not None:
            found.append((("options", "api", "offer"), api.offer_spec.currency))
        return found

    def fx_rate(self, currency: str) -> float:
        """Units of the reporting currency for one unit of ``currency``. [reporting/currency]

        Raises
        ------
        KeyError
            No rate is given for ``currency``.
        """
        if currency == self.reporting_currency:
            return 1.0
        if self.fx is None or currency not in self.fx.rates:
            raise KeyError(f"no FX rate from {currency} to {self.reporting_currency}")
        return self.fx.rates[currency]

    @property
    def volume(self) -> float:
        """The workload's volume in its own unit (GPU-hours per month or tokens per day)."""
        if self.workload.kind == "gpu_hours":
            return self.workload.gpu_hours_per_month
        return self.workload.tokens_per_day

    @property
    def volume_unit(self) -> str:
        """Unit of :attr:`volume`."""
        return "GPU-hours/month" if self.workload.kind == "gpu_hours" else "tokens/day"

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
from pathlib import Path
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
from .errors import InputError
from .units import HOURS_PER_MONTH, MONTHS_PER_YEAR

SMALLEST_INPUT = 1e-9
"""Smallest magnitude a non-zero numeric input may have (an MFU of 1e-300 is a typo)."""
LARGEST_INPUT = 1e15
"""Largest magnitude a numeric input may have (so no cost can overflow to infinity)."""

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


def _fail(title: str, loc: tuple, error_type: str, message: str, value: Any, **ctx: Any) -> ValidationError:
    """A validation error at a field of a model, for checks that span several fields."""
    return ValidationError.from_exception_data(
        title, [InitErrorDetails(type=PydanticCustomError(error_type, message, ctx), loc=loc, input=value)])


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Staffing(_Model):
    """People who run the option: full-time equivalents times a loaded yearly cost.

    Give ``fte`` (a fixed number), or ``minimum_fte`` and ``gpus_per_fte`` (a minimum plus
    one FTE per that many GPUs, fractional: FTE = minimum + GPUs / GPUs per FTE). A
    managed-service fee can stand beside or instead of the FTEs.
    """

    fte: NonNegative | None = Field(default=None, description="Full-time equivalents, fixed. [FTE]")
    minimum_fte: NonNegative | None = Field(default=None, description="FTEs however small the cluster. [FTE]")
    gpus_per_fte: Positive | None = Field(default=None, description="GPUs one more FTE runs. [GPU/FTE]")
    loaded_cost_per_fte_per_year: NonNegative = Field(
        description="Salary plus employer charges and overhead for one FTE for a year. [currency/FTE/year]"
    )
    managed_service_per_month: NonNegative = Field(
        default=0.0, description="Fee for operations bought as a service. [currency/month]")
    currency: Currency
    source: str = Field(default="", description="Where the cost figures come from.")

    @model_validator(mode="after")
    def _one_rule(self) -> Staffing:
        scaled = self.minimum_fte is not None or self.gpus_per_fte is not None
        if (self.fte is not None) == scaled or (scaled and (self.minimum_fte is None or self.gpus_per_fte is None)):
            raise _fail("Staffing", ("fte",), "fte_rule",
                        "give either fte, or both minimum_fte and gpus_per_fte", self.fte)
        return self

    def fte_for(self, gpus):
        """FTEs for a number of GPUs (scalar or array). [FTE]"""
        import numpy as np

        if self.fte is not None:
            return np.zeros_like(np.asarray(gpus, dtype=float)) + self.fte
        return self.minimum_fte + np.asarray(gpus, dtype=float) / self.gpus_per_fte


class CapexLine(_Model):
    """One line of the own cluster's bill of materials besides the servers.

    Priced one of three ways: per server (scales with servers, spares included), as a
    share of the servers' price (e.g. a fabric at 10 % of server capex), or as a total.
    """

    item: str = Field(min_length=1, description="What is bought, e.g. 'InfiniBand fabric', 'storage'.")
    price_per_server: NonNegative | None = Field(default=None, description="[currency/server]")
    share_of_server_price: NonNegative | None = Field(default=None, le=10, description="[-] of server capex")
    price_total: NonNegative | None = Field(default=None, description="[currency]")
    currency: Currency | None = Field(default=None, description="Needed for price_per_server and price_total.")
    source: str = Field(min_length=1, description="Where the price comes from, or ASSUMPTION.")

    @model_validator(mode="after")
    def _one_price(self) -> CapexLine:
        given = [n for n in ("price_per_server", "share_of_server_price", "price_total") if getattr(self, n) is not None]
        if len(given) != 1:
            raise _fail("CapexLine", ("price_per_server",), "one_price",
                        "give exactly one of price_per_server, share_of_server_price, price_total", given)
        if self.share_of_server_price is None and self.currency is None:
            raise _fail("CapexLine", ("currency",), "missing", "an absolute price needs its currency", None)
        return self


class SoftwareLicences(_Model):
    """Software licences (cluster management, AI enterprise suites) paid per GPU per year."""

    price_per_gpu_per_year: NonNegative = Field(description="[currency/GPU/year]")
    currency: Currency
    source: str = Field(min_length=1)


class Facility(_Model):
    """An own data hall instead of colocation: built at a price per MW of IT capacity, depreciated."""

    price_per_mw: Positive = Field(description="Build cost per MW of provisioned IT power. [currency/MW]")
    depreciation_months: Count = Field(ge=1, le=1200, description="Straight-line life of the building. [months]")
    currency: Currency
    source: str = Field(min_length=1)


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
    bill_of_materials: list[CapexLine] = Field(
        default_factory=list, description="Capex besides the servers: fabric, storage, racks and installation.")
    spare_share: Share = Field(
        default=0.0, description="Hot spares as a share of the servers: bought, powered idle, housed, never used. [-]")
    power: Power
    colocation: Colocation | None = Field(default=None, description="Colocation; or give facility instead.")
    facility: Facility | None = Field(default=None, description="An own data hall instead of colocation.")
    staffing: Staffing
    software_licences: SoftwareLicences | None = None
    source: str = Field(default="", description="Where the depreciation period and support share come from.")

    _server: Server = PrivateAttr()

    @field_validator("server")
    @classmethod
    def _server_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).servers, "server", "servers.csv")

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> OwnCluster:
        self._server = _catalog(info).servers[self.server]
        if (self.colocation is None) == (self.facility is None):
            raise _fail("OwnCluster", ("colocation",), "housing",
                        "give either colocation or facility (where the servers live), not both", None)
        gpus = self.server_count * self._server.gpus_per_server
        if float(self.staffing.fte_for(gpus)) == 0 and self.staffing.managed_service_per_month == 0:
            raise _fail("OwnCluster", ("staffing",), "nobody_runs_it",
                        "no FTE and no managed-service fee: say what operating the cluster costs", 0)
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


class Reserved(_Model):
    """Reserved or committed rental capacity: paid for every hour of the term, used or not."""

    term_years: Literal[1, 3] = Field(description="Length of the commitment. [years]")
    price_per_gpu_hour: Positive | None = Field(default=None, description="Price; or give discount. [currency/GPU-h]")
    discount: float | None = Field(default=None, ge=0, lt=1, description="Discount off the on-demand price. [-]")
    currency: Currency | None = Field(default=None, description="Needed with price_per_gpu_hour.")
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _one_price(self) -> Reserved:
        if (self.price_per_gpu_hour is None) == (self.discount is None):
            raise _fail("Reserved", ("discount",), "one_price", "give either price_per_gpu_hour or discount", None)
        if self.price_per_gpu_hour is not None and self.currency is None:
            raise _fail("Reserved", ("currency",), "missing", "a price needs its currency", None)
        return self


class Spot(_Model):
    """Spot (interruptible) capacity: a discount off on-demand, paid for in redone work."""

    discount: float = Field(ge=0, lt=1, description="Discount off the on-demand price. [-]")
    interruptions_per_gpu_hour: NonNegative = Field(le=1, description="Interruptions per GPU-hour. [1/GPU-h]")
    work_lost_hours_per_interruption: NonNegative = Field(
        le=100, description="Work redone per interruption: restart plus half a checkpoint interval. [h]")
    max_gpus: Count | None = Field(default=None, ge=0, le=1_000_000,
                                   description="Most spot GPUs to be had at once; none: no limit. [GPU]")
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _progress(self) -> Spot:
        overhead = self.interruptions_per_gpu_hour * self.work_lost_hours_per_interruption
        if overhead >= 1:
            raise _fail("Spot", ("work_lost_hours_per_interruption",), "no_progress",
                        "interruptions x work lost = {overhead} of every hour: spot would never finish the work",
                        self.work_lost_hours_per_interruption, overhead=f"{overhead:.3g}")
        return self


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
    reserved: Reserved | None = Field(default=None, description="Reserved capacity, for demand profiles.")
    spot: Spot | None = Field(default=None, description="Spot capacity, for demand profiles.")

    _offer: CloudOffer = PrivateAttr()

    @field_validator("offer")
    @classmethod
    def _offer_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).cloud_offers, "cloud offer", "cloud_prices.csv")

    @model_validator(mode="after")
    def _resolve(self, info: ValidationInfo) -> CloudRental:
        if self.billing == "always_on" and self.gpu_count is None:
            raise _fail("CloudRental", ("gpu_count",), "gpu_count_needed",
                        "always_on billing needs the number of GPUs rented", None)
        if self.billing == "per_gpu_hour_used" and self.gpu_count is not None:
            raise _fail("CloudRental", ("gpu_count",), "gpu_count_unused",
                        "per_gpu_hour_used billing pays for the GPU-hours used, so a GPU count is not used; remove it",
                        self.gpu_count)
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


class _Workload(_Model):
    """What the workloads share: the GPU they are counted on, checked against the catalog."""

    gpu: str = Field(description="GPU id in data/gpus.csv.")

    @field_validator("gpu")
    @classmethod
    def _gpu_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).gpus, "GPU", "gpus.csv")

    @property
    def gpus_per_replica(self) -> int:
        """GPU counts step in ones unless a served model needs more per replica. [GPU]"""
        return 1


class GPUHoursWorkload(_Workload):
    """Work stated as GPU-hours per month (training, finetuning, batch jobs)."""

    kind: Literal["gpu_hours"]
    gpu: str = Field(description="GPU id in data/gpus.csv that the GPU-hours are counted on.")
    gpu_hours_per_month: NonNegative = Field(description="GPU-hours of work per month. [GPU-h/month]")
    max_utilisation: PositiveShare = Field(
        default=1.0,
        description="Share of a GPU's hours that the work can keep busy; sets the GPUs needed. [-]",
    )
    description: str = ""


    @property
    def sizing_utilisation(self) -> float:
        """Average share of GPU hours the work may use when GPUs are counted. [-]"""
        return self.max_utilisation


class ServingEstimate(_Model):
    """Inputs of the first-principles throughput estimate (see :mod:`costmodel.serving`)."""

    batch_size: Count = Field(ge=1, le=100_000, description="Requests decoded together per replica. [-]")
    input_tokens: Count = Field(ge=1, description="Input length per request. [tokens]")
    output_tokens: Count = Field(ge=1, description="Output length per request. [tokens]")
    decode_efficiency: PositiveShare = Field(description="Share of memory bandwidth decode achieves. [-]")
    prefill_efficiency: PositiveShare = Field(description="Share of dense FLOP/s prefill achieves. [-]")
    source: str = Field(default="", description="Where the efficiency factors come from.")


class Serving(_Model):
    """Serve a named model: GPUs per replica and throughput from the catalog or an estimate.

    The fleet is sized for the peak: GPUs needed = average load × peak-to-average ratio /
    (throughput × target utilisation), rounded up to whole replicas.
    """

    model: str = Field(description="Model id in data/models.csv.")
    precision: Literal["bf16", "fp8", "fp4"] = Field(description="Precision of the weights served.")
    peak_to_average: float = Field(ge=1.0, le=1000, description="Peak load over average load. [-]")
    target_utilisation: PositiveShare = Field(description="Highest share of throughput used at the peak. [-]")
    kv_cache_tokens: NonNegative = Field(
        description="Tokens a replica holds in its KV cache at once (batch × context); sets memory. [tokens]")
    usable_memory_share: PositiveShare = Field(
        default=0.9, description="Share of GPU memory for weights and KV cache; the runtime takes the rest. [-]")
    throughput_row: str | None = Field(
        default=None, description="Row id in data/throughput.csv; default: the lowest matching row, else the estimate.")
    estimate: ServingEstimate | None = Field(
        default=None, description="Estimate inputs; used when no row matches, or always when use_estimate is true.")
    use_estimate: bool = Field(default=False, description="Use the estimate even if a measured row matches.")

    @field_validator("model")
    @classmethod
    def _model_known(cls, value: str, info: ValidationInfo) -> str:
        return _known(value, _catalog(info).models, "model", "models.csv")

    @field_validator("throughput_row")
    @classmethod
    def _row_known(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else _known(value, _catalog(info).throughput, "throughput row", "throughput.csv")


class TokensWorkload(_Workload):
    """Work stated as LLM tokens per day with an input:output mix (inference serving).

    Give either ``serving`` (a model served at a precision: GPUs per replica and
    throughput come from data/throughput.csv or a stated estimate), or the throughput
    itself (``output_tokens_per_second_per_gpu`` with ``throughput_source``).
    Throughput is counted in output tokens per second per GPU, the metric of MLPerf
    Inference and of TensorRT-LLM's published benchmarks; the input tokens of each
    request are part of the measured load.
    """

    kind: Literal["tokens"]
    gpu: str = Field(description="GPU id in data/gpus.csv that serves the tokens.")
    tokens_per_day: NonNegative = Field(description="Input plus output tokens per day. [tokens/day]")
    input_tokens_per_output_token: NonNegative = Field(
        description="Input:output mix; 2 means two input tokens per output token (2:1). [-]"
    )
    serving: Serving | None = None
    output_tokens_per_second_per_gpu: Positive | None = Field(
        default=None, description="Serving throughput of one GPU at full load (without serving). [output tokens/s/GPU]"
    )
    throughput_source: str | None = Field(default=None, description="Benchmark behind the throughput given.")
    max_utilisation: PositiveShare | None = Field(
        default=None,
        description="Average share of the throughput used, the rest headroom for peaks (without serving; "
                    "default 1). [-]",
    )
    description: str = ""

    _capacity: Any = PrivateAttr(default=None)


    @model_validator(mode="after")
    def _resolve_capacity(self, info: ValidationInfo) -> TokensWorkload:
        from .serving import ServingCapacity

        explicit = self.output_tokens_per_second_per_gpu is not None
        if explicit == (self.serving is not None):
            raise _fail("TokensWorkload", ("serving",), "throughput_source_needed",
                        "give either serving (a model from data/models.csv) or output_tokens_per_second_per_gpu, "
                        "not both and not neither", self.serving is not None)
        if explicit:
            if not self.throughput_source:
                raise _fail("TokensWorkload", ("throughput_source",), "missing",
                            "say where output_tokens_per_second_per_gpu comes from", None)
            self._capacity = ServingCapacity(
                self.output_tokens_per_second_per_gpu, 1, 1, self.max_utilisation or 1.0,
                self.throughput_source, estimated=False)
            return self
        for name in ("throughput_source", "max_utilisation"):
            if getattr(self, name) is not None:
                raise _fail("TokensWorkload", (name,), "not_with_serving",
                            "comes from serving (its throughput row and target utilisation); remove it",
                            getattr(self, name))
        self._capacity = _serving_capacity(self.serving, _catalog(info), self.gpu)
        return self

    @property
    def capacity(self):
        """How the tokens become GPUs: :class:`costmodel.serving.ServingCapacity`."""
        return self._capacity

    @property
    def output_share(self) -> float:
        """Share of all tokens that are output tokens: 1 / (1 + input per output). [-]"""
        return 1.0 / (1.0 + self.input_tokens_per_output_token)

    @property
    def throughput_per_gpu(self) -> float:
        """Output tokens per second one GPU serves at full load. [output tokens/s/GPU]"""
        return self._capacity.output_tokens_per_second_per_gpu

    @property
    def sizing_utilisation(self) -> float:
        """Average share of throughput used when the fleet is sized for the peak. [-]"""
        return self._capacity.sizing_utilisation

    @property
    def gpus_per_replica(self) -> int:
        """GPUs per model replica; serving GPU counts step in these. [GPU]"""
        return self._capacity.gpus_per_replica


def _serving_capacity(serving: Serving, catalog: Catalog, gpu_id: str):
    """Resolve a Serving block into a ServingCapacity, or raise a validation error naming the field."""
    from .serving import ServingCapacity, estimate_output_throughput, matching_rows, min_gpus_per_replica

    gpu = catalog.gpus[gpu_id]
    model = catalog.models[serving.model]
    try:
        gpu.dense_tflops(serving.precision)
    except ValueError as exc:
        raise _fail("TokensWorkload", ("serving", "precision"), "precision_unsupported", str(exc),
                    serving.precision) from None
    matches = matching_rows(catalog, serving.model, gpu_id, serving.precision)
    held = serving.kv_cache_tokens
    if serving.estimate is not None and (serving.use_estimate or not matches):
        e = serving.estimate   # the estimate's batch must fit in memory too
        held = max(held, e.batch_size * (e.input_tokens + e.output_tokens))
    try:
        minimum = min_gpus_per_replica(model, gpu, serving.precision, held, serving.usable_memory_share)
    except ValueError as exc:
        raise _fail("TokensWorkload", ("serving", "model"), "does_not_fit", str(exc), serving.model) from None
    sizing = serving.target_utilisation / serving.peak_to_average
    if serving.throughput_row is not None:
        row = catalog.throughput[serving.throughput_row]
        if (row.model, row.gpu, row.precision) != (serving.model, gpu_id, serving.precision):
            raise _fail("TokensWorkload", ("serving", "throughput_row"), "row_mismatch",
                        "measured {row_model} on {row_gpu} at {row_precision}, not {model} on {gpu} at {precision}",
                        serving.throughput_row, row_model=row.model, row_gpu=row.gpu, row_precision=row.precision,
                        model=serving.model, gpu=gpu_id, precision=serving.precision)
        rows = [row]
    else:
        rows = matches
    if rows and not serving.use_estimate:
        row = rows[0]
        per_replica = max(row.gpus_per_replica or minimum, minimum)   # the KV cache may need more than measured
        lengths = f", {row.input_tokens}/{row.output_tokens} input/output tokens" if row.input_tokens else ""
        source = (f"data/throughput.csv: {row.row} [{row.quality}, {row.as_of}] {row.setting}{lengths}; "
                  f"{row.source}")
        return ServingCapacity(row.output_tokens_per_second_per_gpu, per_replica, minimum, sizing, source, False)
    if serving.estimate is None:
        raise _fail("TokensWorkload", ("serving", "estimate"), "estimate_needed",
                    ("use_estimate is true but no estimate inputs are given; " if serving.use_estimate else
                     "no row of data/throughput.csv measures {model} on {gpu} at {precision}; ") +
                    "give estimate inputs (batch_size, input_tokens, output_tokens, decode_efficiency, "
                    "prefill_efficiency)", None, model=serving.model, gpu=gpu_id, precision=serving.precision)
    e = serving.estimate
    throughput = estimate_output_throughput(model, gpu, serving.precision, minimum, e.batch_size, e.input_tokens,
                                            e.output_tokens, e.decode_efficiency, e.prefill_efficiency)
    source = (f"ESTIMATE from first principles: {model.model} at {serving.precision} on {minimum} x {gpu_id}, "
              f"batch {e.batch_size}, {e.input_tokens}/{e.output_tokens} input/output tokens, decode efficiency "
              f"{e.decode_efficiency:g}, prefill efficiency {e.prefill_efficiency:g}"
              + (f" ({e.source})" if e.source else ""))
    return ServingCapacity(throughput, minimum, minimum, sizing, source, True)


class Goodput(_Model):
    """Failures and checkpoints of a training job (see :mod:`costmodel.goodput`)."""

    failures_per_gpu_per_year: NonNegative = Field(
        le=1000, description="Job-interrupting failures per GPU per year. [1/(GPU·year)]")
    checkpoint_write_minutes: Positive = Field(le=10_000, description="Time to write one checkpoint. [min]")
    restart_minutes: NonNegative = Field(le=10_000, description="Time from a failure to training again. [min]")
    interval: Literal["young", "daly"] = Field(default="daly", description="Optimum checkpoint interval formula.")
    source: str = ""


class TrainingWorkload(_Workload):
    """One training run: model size, tokens, GPU, precision and MFU, on a cluster of GPUs.

    Compute is 6·N·D FLOP (N active parameters, D tokens); GPU-hours = FLOP / (dense peak
    at the precision × MFU) / 3,600, divided by the goodput when failures are modelled.
    While it runs, the cluster is busy 730 h a month, so the monthly cost comparison uses
    ``cluster_gpus`` × 730 GPU-hours a month, and the run's cost is that times its months.
    """

    kind: Literal["training"]
    gpu: str = Field(description="GPU id in data/gpus.csv.")
    model: str | None = Field(default=None, description="Model id in data/models.csv (gives active parameters).")
    active_parameters: Positive | None = Field(
        default=None, description="Parameters used per token, if no model id is given. [-]")
    training_tokens: Positive = Field(description="Tokens trained on, D. [tokens]")
    precision: Literal["bf16", "fp8", "fp4"] = Field(description="Precision whose dense peak the MFU refers to.")
    mfu: PositiveShare = Field(description="Model FLOPs utilisation: achieved / dense peak FLOP/s. [-]")
    cluster_gpus: Count = Field(ge=1, le=10_000_000, description="GPUs the run uses at once. [GPU]")
    state_bytes_per_parameter: Positive = Field(
        default=16.0, le=1000,
        description="Weights, gradients and optimizer state per parameter; 16 for mixed-precision Adam. [B]")
    activation_gb_per_gpu: NonNegative = Field(default=0.0, description="Activation memory per GPU. [GB]")
    goodput: Goodput | None = Field(default=None, description="Failures and checkpoints; none means no loss.")
    description: str = ""

    _active: float = PrivateAttr(default=0.0)
    _total: float = PrivateAttr(default=0.0)


    @field_validator("model")
    @classmethod
    def _model_known(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else _known(value, _catalog(info).models, "model", "models.csv")

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> TrainingWorkload:
        from .training import min_gpus_for_training_state

        catalog = _catalog(info)
        if (self.model is None) == (self.active_parameters is None):
            raise _fail("TrainingWorkload", ("model",), "model_or_parameters",
                        "give either model (from data/models.csv) or active_parameters, not both", self.model)
        if self.model is not None:
            spec = catalog.models[self.model]
            self._active, self._total = spec.active_parameters, spec.total_parameters
        else:
            self._active = self._total = self.active_parameters
        gpu = catalog.gpus[self.gpu]
        try:
            gpu.dense_tflops(self.precision)
        except ValueError as exc:
            raise _fail("TrainingWorkload", ("precision",), "precision_unsupported", str(exc), self.precision) from None
        if self.goodput is not None:
            from .training import checkpointing

            mtbf, _, goodput = checkpointing(self)
            if goodput < 1e-3:
                raise _fail("TrainingWorkload", ("goodput",), "no_progress",
                            "the job fails every {mtbf} h on average; checkpoint writes and restarts leave it "
                            "{share} of the time to train", self.goodput.failures_per_gpu_per_year,
                            mtbf=f"{mtbf:.3g}", share=f"{goodput:.2g}")
        needed = min_gpus_for_training_state(self._total * self.state_bytes_per_parameter,
                                             self.activation_gb_per_gpu * 1e9, gpu.memory_gb * 1e9, sharded=True)
        if needed is None or needed > self.cluster_gpus:
            raise _fail("TrainingWorkload", ("cluster_gpus",), "too_small",
                        "the training state does not fit: it needs at least {needed} GPUs even fully sharded",
                        self.cluster_gpus, needed="more than any" if needed is None else f"{needed:,}")
        return self

    @property
    def active(self) -> float:
        """Active parameters N (from the model or given). [-]"""
        return self._active

    @property
    def total_parameters(self) -> float:
        """All parameters, held in memory. [-]"""
        return self._total

    @property
    def sizing_utilisation(self) -> float:
        """The cluster is sized by ``cluster_gpus``; GPU-hours per month count at 100 %. [-]"""
        return 1.0


Workload = Annotated[GPUHoursWorkload | TokensWorkload | TrainingWorkload, Field(discriminator="kind")]


class FXRates(_Model):
    """Exchange rates into the reporting currency."""

    rates: dict[Currency, Positive] = Field(
        description="Units of the reporting currency for one unit of each other currency. [reporting/currency]"
    )
    source: str = Field(min_length=1)
    as_of: dt.date


class Loan(_Model):
    """Buying the own cluster's hardware with a loan (or a lease priced like one)."""

    rate_per_year: float = Field(ge=0, le=1, description="Nominal yearly interest rate; paid monthly at rate / 12. [1/year]")
    term_months: Count = Field(ge=1, le=120, description="Months of payments; at most the hardware's life. [months]")
    down_payment_share: Share = Field(default=0.0, description="Share of hardware capex paid up front. [-]")
    source: str = ""


class Trends(_Model):
    """Yearly rates of change over the horizon; all zero is the flat case."""

    rental_price_change_per_year: float = Field(
        default=0.0, gt=-1, le=10, description="Change in the rental price per GPU-hour, e.g. -0.15. [1/year]")
    api_price_change_per_year: float = Field(
        default=0.0, gt=-1, le=10, description="Change in API prices per token. [1/year]")
    demand_growth_per_year: float = Field(
        default=0.0, gt=-1, le=100, description="Change in the workload's volume. [1/year]")
    source: str = ""


class Finance(_Model):
    """A horizon, the cost of money, and how the own cluster is paid for and phased in.

    Cash-flow conventions: costs are positive; month 0 is the month of the decision;
    capex is paid in the month the hardware is bought; running costs and rental are paid
    in the month they arise; the resale value comes back in the horizon's last month.
    """

    horizon_months: Count = Field(ge=1, le=600, description="Months compared. [months]")
    discount_rate_per_year: float = Field(
        ge=0, le=1, description="Cost of capital, an effective yearly rate. [1/year]")
    resale_share_at_horizon: Share | None = Field(
        default=None,
        description="Resale value of the hardware at the horizon as a share of its capex; default: its straight-line "
                    "book value. [-]")
    lead_time_months: Count = Field(
        default=0, ge=0, le=120, description="Months from the decision until the cluster is online. [months]")
    during_lead_time: Literal["rent", "api"] | None = Field(
        default=None, description="Option that serves the workload until the cluster is online.")
    loan: Loan | None = None
    trends: Trends = Field(default_factory=Trends)
    source: str = Field(default="", description="Where the discount rate and the other figures come from.")

    @model_validator(mode="after")
    def _lead_time_needs_a_stand_in(self) -> Finance:
        if self.lead_time_months > 0 and self.during_lead_time is None:
            raise _fail("Finance", ("during_lead_time",), "missing",
                        "a lead time needs the option (rent or api) that serves the work meanwhile", None)
        return self


class Distribution(_Model):
    """A probability distribution on one numeric input, for Monte Carlo and Sobol analysis.

    ``uniform``: low, high. ``triangular``: low, mode, high. ``normal``: mean, sd.
    ``lognormal``: median, sigma (of the logarithm). ``empirical``: values, drawn with
    replacement. Samples outside the input's allowed range are clipped to it.
    """

    distribution: Literal["uniform", "triangular", "normal", "lognormal", "empirical"]
    low: float | None = None
    high: float | None = None
    mode: float | None = None
    mean: float | None = None
    sd: float | None = Field(default=None, description="Standard deviation; must not be negative.")
    median: float | None = None
    sigma: float | None = Field(default=None, description="Standard deviation of the logarithm.")
    values: list[float] | None = Field(default=None, min_length=1)
    source: str = ""

    @model_validator(mode="after")
    def _parameters(self) -> Distribution:
        needs = {"uniform": ("low", "high"), "triangular": ("low", "mode", "high"), "normal": ("mean", "sd"),
                 "lognormal": ("median", "sigma"), "empirical": ("values",)}[self.distribution]
        for name in needs:
            if getattr(self, name) is None:
                raise _fail("Distribution", (name,), "missing", "a {kind} distribution needs {name}", None,
                            kind=self.distribution, name=name)
        extra = [n for n in ("low", "high", "mode", "mean", "sd", "median", "sigma", "values")
                 if n not in needs and getattr(self, n) is not None]
        if extra:
            raise _fail("Distribution", (extra[0],), "extra", "a {kind} distribution takes no {name}",
                        getattr(self, extra[0]), kind=self.distribution, name=extra[0])
        if self.low is not None and self.high is not None and self.low > self.high:
            raise _fail("Distribution", ("low",), "low_above_high", "low {low} is above high {high}", self.low,
                        low=self.low, high=self.high)
        if self.mode is not None and not self.low <= self.mode <= self.high:
            raise _fail("Distribution", ("mode",), "mode_outside", "mode must lie between low and high", self.mode)
        for name in ("sd", "sigma"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise _fail("Distribution", (name,), "negative_spread", "{name} must not be negative",
                            getattr(self, name), name=name)
        if self.median is not None and self.median <= 0:
            raise _fail("Distribution", ("median",), "median_not_positive",
                        "a lognormal median must be above 0", self.median)
        return self


class Range(_Model):
    """Low and high values of one input for the tornado chart."""

    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.low > self.high:
            raise _fail("Range", ("low",), "low_above_high", "low {low} is above high {high}", self.low,
                        low=self.low, high=self.high)
        return self


class Uncertainty(_Model):
    """Which inputs are uncertain and how: distributions, tornado ranges, seed and sample sizes.

    Inputs are named by their path in the scenario (``options.own.power.pue``) or by a
    catalog-backed name (``options.own.server_price``, ``options.rent.price_per_gpu_hour``,
    ``options.api.input_price_per_million``, ...); see :func:`costmodel.uncertainty.numeric_inputs`.
    """

    seed: Count = Field(default=0, ge=0, description="Seed of the random generator; same seed, same numbers.")
    samples: Count = Field(default=100_000, ge=1, le=10_000_000, description="Monte Carlo samples. [-]")
    option: Literal["own", "rent", "api"] | None = Field(
        default=None, description="Option whose savings against the cheapest other are tracked; default own, else rent.")
    distributions: dict[str, Distribution] = Field(default_factory=dict)
    tornado: dict[str, Range | None] = Field(
        default_factory=dict, description="Inputs for the tornado chart; null takes ± tornado_swing of the value.")
    tornado_swing: float = Field(default=0.2, gt=0, le=1, description="Default tornado range: ± this share. [-]")
    sobol_base_samples: Count = Field(default=1024, ge=64, le=65536, description="SALib Sobol base sample size. [-]")


class _Profile(_Model):
    growth_per_year: float = Field(default=0.0, gt=-1, le=100, description="Demand growth over the year. [1/year]")
    source: str = ""


class SteadyDemand(_Profile):
    """The same demand every hour: the workload's average."""

    kind: Literal["steady"]


class BurstyDemand(_Profile):
    """A peak for a share of the hours (the duty cycle) and a lower base the rest of the time.

    Peak = ratio × average; base = (average − duty × peak) / (1 − duty), which must not be
    negative (ratio × duty ≤ 1). Peak hours come first in each week.
    """

    kind: Literal["bursty"]
    peak_to_average: float = Field(ge=1, le=1000, description="Peak over average demand. [-]")
    duty_cycle: PositiveShare = Field(description="Share of hours at the peak. [-]")

    @model_validator(mode="after")
    def _base_not_negative(self) -> BurstyDemand:
        if self.peak_to_average * self.duty_cycle > 1 + 1e-12:
            raise _fail("BurstyDemand", ("duty_cycle",), "negative_base",
                        "peak_to_average x duty_cycle is above 1: the hours off the peak would need negative "
                        "demand", self.duty_cycle)
        return self


class CampaignDemand(_Profile):
    """Campaigns: busy for on_days of every period_days, at off_share of that level in between."""

    kind: Literal["campaigns"]
    on_days: Positive = Field(description="Days of each campaign. [d]")
    period_days: Positive = Field(le=365, description="Days from one campaign's start to the next. [d]")
    off_share: Share = Field(default=0.0, description="Demand between campaigns as a share of the campaign level. [-]")

    @model_validator(mode="after")
    def _fits(self) -> CampaignDemand:
        if self.on_days > self.period_days:
            raise _fail("CampaignDemand", ("on_days",), "too_long", "a campaign cannot outlast its period",
                        self.on_days)
        return self


class WeeklyDemand(_Profile):
    """A 24 × 7 template (168 hourly values from Monday 00:00), repeated and scaled to the average."""

    kind: Literal["weekly"]
    template: list[NonNegative] = Field(min_length=168, max_length=168, description="Relative demand by hour.")

    @model_validator(mode="after")
    def _some_demand(self) -> WeeklyDemand:
        if sum(self.template) == 0:
            raise _fail("WeeklyDemand", ("template",), "no_demand", "the template is all zeros: no demand", 0)
        return self


def _problems(error: InputError) -> str:
    """The problems of a file error as one line: 'line 3: reason; line 7: reason'."""
    shown = "; ".join(f"{field}: {reason}" for field, _, reason in error.problems[:5])
    return shown + (f"; and {len(error.problems) - 5} more" if len(error.problems) > 5 else "")


def _data_path(value: str) -> Path:
    from .paths import DATA_DIR

    path = Path(value)
    return path if path.is_absolute() else DATA_DIR / path


class HourlyFileDemand(_Profile):
    """A year of hourly GPU demand from a file: 8,760 numbers, one a line (absolute GPUs)."""

    kind: Literal["hourly_file"]
    path: str = Field(description="File, relative to data/ or absolute.")

    _values: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _readable(self) -> HourlyFileDemand:
        from .demand import read_hourly_file

        try:
            values = read_hourly_file(self.resolved_path)
        except InputError as exc:
            raise _fail("HourlyFileDemand", ("path",), "bad_file", "{problem}", self.path,
                        problem=_problems(exc)) from None
        if values.sum() == 0:
            raise _fail("HourlyFileDemand", ("path",), "no_demand", "the file holds no demand (all zeros)", self.path)
        self._values = values
        return self

    @property
    def values(self):
        """The hourly GPU demand read from the file, once, at validation. [GPU]"""
        return self._values

    @property
    def resolved_path(self) -> Path:
        """The file's absolute path."""
        return _data_path(self.path)


class JobLogDemand(_Profile):
    """Hourly GPU demand from a Slurm ``sacct --parsable2`` job log (JobID|Start|End|AllocTRES)."""

    kind: Literal["job_log"]
    path: str = Field(description="File, relative to data/ or absolute.")
    year: Count = Field(ge=1970, le=2100, description="Calendar year the profile covers.")

    _values: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _readable(self) -> JobLogDemand:
        from .demand import job_log_demand

        try:
            values = job_log_demand(self.resolved_path, self.year)
        except InputError as exc:
            raise _fail("JobLogDemand", ("path",), "bad_file", "{problem}", self.path,
                        problem=_problems(exc)) from None
        if values.sum() == 0:
            raise _fail("JobLogDemand", ("year",), "no_demand", "the log has no GPU-hours in {year}", self.year,
                        year=self.year)
        self._values = values
        return self

    @property
    def values(self):
        """The hourly GPU demand read from the log, once, at validation. [GPU]"""
        return self._values

    @property
    def resolved_path(self) -> Path:
        """The file's absolute path."""
        return _data_path(self.path)


DemandProfile = Annotated[
    SteadyDemand | BurstyDemand | CampaignDemand | WeeklyDemand | HourlyFileDemand | JobLogDemand,
    Field(discriminator="kind")]


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
    finance: Finance | None = Field(default=None, description="Horizon, discount rate, financing, trends.")
    uncertainty: Uncertainty | None = Field(default=None, description="Distributions and ranges of inputs.")
    demand: DemandProfile | None = Field(default=None, description="Demand hour by hour, for the cheapest mix.")

    _catalog: Catalog = PrivateAttr(default=None)

    @property
    def catalog(self) -> Catalog:
        """The catalog the scenario was validated against."""
        return self._catalog or default_catalog()

    @model_validator(mode="after")
    def _cross_check(self, info: ValidationInfo) -> Scenario:
        self._catalog = _catalog(info)
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
        finance = self.finance
        if finance is not None:
            stand_in = finance.during_lead_time
            if stand_in is not None and getattr(self.options, stand_in) is None:
                fail(("finance", "during_lead_time"), stand_in, "no_stand_in",
                     "the scenario has no {option} option to serve the lead time", option=stand_in)
            if finance.loan is not None and self.options.own is not None \
                    and finance.loan.term_months > self.options.own.depreciation_months:
                fail(("finance", "loan", "term_months"), finance.loan.term_months, "loan_too_long",
                     "a loan may not outlast the hardware: at most depreciation_months ({months})",
                     months=self.options.own.depreciation_months)
            if (finance.lead_time_months > 0 or finance.loan is not None) and self.options.own is None:
                fail(("finance",), None, "needs_own", "lead time and loan apply to an own option, which is missing")
        from .uncertainty import bounds, numeric_inputs

        known = numeric_inputs(self)
        for path, value in known.items():
            if value != 0 and not SMALLEST_INPUT <= abs(value) <= LARGEST_INPUT:
                fail(tuple(path.split(".")), value, "implausible_magnitude",
                     "magnitude outside {low} to {high}: no real input is that large or small",
                     low=f"{SMALLEST_INPUT:g}", high=f"{LARGEST_INPUT:g}")
        if self.demand is not None:
            if self.workload.kind != "gpu_hours":
                fail(("demand",), self.demand.kind, "demand_needs_gpu_hours",
                     "demand profiles apply to a gpu_hours workload (kind: gpu_hours)")
            elif self.demand.kind in ("hourly_file", "job_log"):
                from .demand import hourly_demand

                monthly = float(hourly_demand(self).sum()) / MONTHS_PER_YEAR
                stated = self.workload.gpu_hours_per_month
                if abs(monthly - stated) > 0.01 * max(monthly, stated):
                    fail(("workload", "gpu_hours_per_month"), stated, "profile_mismatch",
                         "the demand profile averages {monthly} GPU-hours a month; state that here so the monthly "
                         "view and the mix describe the same work", monthly=f"{monthly:,.0f}")
        if self.uncertainty is not None:
            for group in ("distributions", "tornado"):
                for path in getattr(self.uncertainty, group):
                    if path not in known:
                        fail(("uncertainty", group, path), path, "not_numeric_input",
                             "not a numeric input of this scenario; inputs include {examples}",
                             examples=", ".join(sorted(known)[:12]) + ", ...")
            for path, dist in self.uncertainty.distributions.items():
                if path not in known:
                    continue
                low, high, low_open, high_open = bounds(self, path)
                ends = [v for v in (dist.low, dist.high, *(dist.values or [])) if v is not None]
                if any(v < low or (low_open and v == low) or v > high or (high_open and v == high) for v in ends):
                    fail(("uncertainty", "distributions", path), ends, "outside_range",
                         "the distribution reaches outside the input's allowed range {low} to {high}",
                         low=low, high=high)
            option = self.uncertainty.option
            if option is not None and getattr(self.options, option) is None:
                fail(("uncertainty", "option"), option, "no_option", "the scenario has no {option} option",
                     option=option)
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
            for part in ("power", "colocation", "facility", "staffing", "software_licences"):
                if getattr(own, part) is not None:
                    found.append((("options", "own", part, "currency"), getattr(own, part).currency))
            for index, line in enumerate(own.bill_of_materials):
                if line.currency is not None:
                    found.append((("options", "own", "bill_of_materials", index, "currency"), line.currency))
        if rent is not None:
            found.append((("options", "rent", "offer"), rent.offer_spec.currency))
            if rent.staffing is not None:
                found.append((("options", "rent", "staffing", "currency"), rent.staffing.currency))
            if rent.reserved is not None and rent.reserved.currency is not None:
                found.append((("options", "rent", "reserved", "currency"), rent.reserved.currency))
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
        """The workload's volume in its own unit (GPU-hours per month or tokens per day).

        A training run counts as its cluster busy all month: ``cluster_gpus`` × 730 GPU-hours.
        """
        if self.workload.kind == "gpu_hours":
            return self.workload.gpu_hours_per_month
        if self.workload.kind == "training":
            return self.workload.cluster_gpus * HOURS_PER_MONTH
        return self.workload.tokens_per_day

    @property
    def volume_unit(self) -> str:
        """Unit of :attr:`volume`."""
        return "tokens/day" if self.workload.kind == "tokens" else "GPU-hours/month"

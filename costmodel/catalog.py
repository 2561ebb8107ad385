"""The catalogs in data/: GPUs, servers, cloud GPU prices and hosted API prices.

Each catalog is a CSV file with one row per item, and every row carries its source,
its as-of date and a quality grade:

``P``
    primary source (vendor datasheet, official price page, paper, filing);
``S``
    secondary source (a transcription of an official page, an aggregator, press);
``U``
    unsourced estimate, stated as such in the row's ``source`` column;
``E``
    estimated by a named, pinned model from measured inputs (the serving curves
    aiconfigurator-core computes from its measured kernel database), never a measurement.

Adding a figure is adding a row. Rows are validated on load; a bad row raises
:class:`~costmodel.errors.CatalogError` naming the file, the row and the column.
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, ClassVar, Literal, LiteralString, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from .errors import CatalogError, did_you_mean, from_validation_error
from .files import file_problem
from .numbers import DECIMAL, INTEGER
from .paths import DATA_DIR
from .units import LARGEST_INPUT, SMALLEST_INPUT, implausible_magnitude

MAX_CATALOG_BYTES = 50_000_000
"""Largest catalog CSV file read. [B]"""

Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 currency code, e.g. USD.")]
Quality = Literal["P", "S", "U", "E"]


_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)

    quality: Quality = Field(
        description="P primary, S secondary, U unsourced estimate, E estimated by a named model from measured inputs."
    )
    as_of: str = Field(
        pattern=r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$",
        description="Date, month or year the figure was true: YYYY-MM-DD, YYYY-MM or YYYY.",
    )
    source: str = Field(min_length=1, description="Where the figure comes from.")
    notes: str = Field(default="", description="Anything a reader of the figure should know.")
    _origin: str | None = PrivateAttr(default=None)

    @field_validator("*", mode="before")
    @classmethod
    def _number_text(cls, value, info):
        """A cell of a CSV file is text: a number column takes only a base-10 number (YAML 1.2's core
        form: ``2.5``, ``-1e3``), so ``1_000``, ``0x10``, ``inf`` and `` 2.5`` are refused, not read; a
        yes/no column takes only true or false."""
        if not isinstance(value, str):
            return value
        kind = _column_kinds(cls).get(info.field_name)
        if kind is not None and not _CELL_FORMS[kind].match(value):
            raise PydanticCustomError(
                "cell_form", "not {form} (a CSV cell as YAML 1.2 writes one)", {"form": _CELL_WORDS[kind]}
            )
        return value

    @field_validator("*", mode="after")
    @classmethod
    def _calendar_date(cls, value):
        """A YYYY-MM-DD cell is a day of the calendar (2026-02-30 is not)."""
        if isinstance(value, str) and _DAY.match(value):
            try:
                dt.date.fromisoformat(value)
            except ValueError:
                raise PydanticCustomError("not_a_day", "not a day of the calendar (YYYY-MM-DD)") from None
        return value

    @field_validator("*", mode="after")
    @classmethod
    def _plausible(cls, value):
        """Every number of a row within the magnitudes a scenario's inputs may have."""
        if isinstance(value, int | float) and not isinstance(value, bool) and implausible_magnitude(value):
            raise PydanticCustomError(
                "implausible_magnitude",
                "magnitude outside {low} to {high}: no real figure is that large or small",
                {"low": f"{SMALLEST_INPUT:g}", "high": f"{LARGEST_INPUT:g}"},
            )
        return value

    file: ClassVar[str] = ""
    """The catalog file, e.g. ``data/gpus.csv``."""

    @property
    def source_file(self) -> str:
        """The file the row was read from: the bundled catalog file (:attr:`file`), or the file of a
        folder given with ``--catalog`` (:func:`load_catalog_overrides`)."""
        return self._origin or self.file

    key: ClassVar[str] = ""
    """The column holding the row's id."""

    @property
    def ident(self) -> str:
        """The row's id."""
        return str(getattr(self, self.key))

    def citation(self) -> str:
        """Where the row's figures come from: ``data/file.csv: id [grade, as of] source``."""
        return f"{self.source_file}: {self.ident} [{self.quality}, {self.as_of}] {self.source}"


def _row_rule(
    model: str, field: str, kind: LiteralString, message: LiteralString, value, context: dict | None = None
) -> ValidationError:
    """The error of a rule a row breaks (a model validator's), located at ``field`` as a field's own is."""
    return ValidationError.from_exception_data(
        model, [InitErrorDetails(type=PydanticCustomError(kind, message, context or {}), loc=(field,), input=value)]
    )


def known_time_zone(value: str) -> str:
    """``value`` if it names a time zone of the IANA tz database; raises a PydanticCustomError otherwise.

    ``localtime``, ``posixrules`` and ``Factory`` are files of the tz database but no zone: what they mean
    depends on the machine."""
    zones = _time_zones()
    if value not in zones:
        raise PydanticCustomError(
            "unknown_time_zone",
            "not a time zone of the IANA tz database (e.g. UTC, Europe/Madrid){hint}",
            {"hint": did_you_mean(value, zones)},
        )
    return value


@functools.cache
def _time_zones() -> frozenset[str]:
    from zoneinfo import available_timezones

    return frozenset(available_timezones() - {"localtime", "posixrules", "Factory"})


_CELL_FORMS = {"int": INTEGER, "float": DECIMAL, "bool": re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")}
_CELL_WORDS = {"int": "a whole base-10 number", "float": "a base-10 number", "bool": "true or false"}


@functools.cache
def _column_kinds(row_type: type[BaseModel]) -> dict[str, str]:
    """The number (int, float) and yes/no (bool) columns of a row type, by name."""
    kinds = {}
    for name, info in row_type.model_fields.items():
        args = set(typing.get_args(info.annotation)) | {info.annotation}
        for kind, python_type in (("bool", bool), ("int", int), ("float", float)):
            if python_type in args:
                kinds[name] = kind
                break
    return kinds


class GPU(_Row):
    """One GPU model (one row of data/gpus.csv)."""

    file: ClassVar[str] = "data/gpus.csv"
    key: ClassVar[str] = "gpu"

    gpu: str = Field(description="Catalog id, e.g. H100-SXM-80GB.")
    name: str
    memory_gb: float = Field(gt=0, description="Memory per GPU. [GB]")
    memory_bandwidth_tb_s: float = Field(gt=0, description="Memory bandwidth per GPU. [TB/s]")
    bf16_dense_tflops: float | None = Field(
        default=None, gt=0, description="Dense (not 2:4 sparse) BF16 peak; empty if unsupported (V100, T4). [TFLOP/s]"
    )
    fp8_dense_tflops: float | None = Field(
        default=None, gt=0, description="Dense FP8 peak; empty if unsupported. [TFLOP/s]"
    )
    fp4_dense_tflops: float | None = Field(
        default=None, gt=0, description="Dense FP4 peak; empty if unsupported. [TFLOP/s]"
    )
    fp16_dense_tflops: float | None = Field(
        default=None, gt=0, description="Dense FP16 peak; empty if unsupported or not catalogued. [TFLOP/s]"
    )
    tf32_dense_tflops: float | None = Field(
        default=None, gt=0, description="Dense TF32 peak; empty if unsupported or not catalogued. [TFLOP/s]"
    )
    tdp_w: float = Field(gt=0, description="Thermal design power per GPU. [W]")
    architecture: str | None = Field(default=None, description="GPU architecture (Ampere, Hopper, Blackwell).")

    def dense_tflops(self, precision: str) -> float:
        """Dense (not sparse) peak at ``precision`` (fp16, bf16, tf32, fp8 or fp4). [TFLOP/s]

        Raises
        ------
        ValueError
            The GPU has no such precision (e.g. FP8 on an A100).
        """
        peaks = {
            "bf16": self.bf16_dense_tflops,
            "fp8": self.fp8_dense_tflops,
            "fp4": self.fp4_dense_tflops,
            "fp16": self.fp16_dense_tflops,
            "tf32": self.tf32_dense_tflops,
        }
        peak = peaks.get(precision)
        if peak is None:
            raise ValueError(
                f"{self.gpu} has no {precision} tensor-core peak in data/gpus.csv (unsupported or not catalogued)"
            )
        return peak


class Server(_Row):
    """One GPU server model (one row of data/servers.csv)."""

    file: ClassVar[str] = "data/servers.csv"
    key: ClassVar[str] = "server"

    server: str = Field(description="Catalog id, e.g. dgx-h200.")
    gpu: str = Field(description="Catalog id of the GPU it holds.")
    gpus_per_server: int = Field(ge=1, description="GPUs in one server. [GPU]")
    price: float = Field(gt=0, description="Purchase price of one server. [currency]")
    currency: Currency
    max_power_kw: float = Field(gt=0, description="Maximum power drawn at the wall by one server. [kW]")


class CloudOffer(_Row):
    """One cloud GPU rental price (one row of data/cloud_prices.csv)."""

    file: ClassVar[str] = "data/cloud_prices.csv"
    key: ClassVar[str] = "offer"

    offer: str = Field(description="Catalog id of the offer.")
    provider: str = Field(description="The cloud that rents the GPUs.")
    gpu: str = Field(description="Catalog id of the GPU rented.")
    pricing: Literal["on_demand"] = Field(description="Pricing model of price_per_gpu_hour: on-demand.")
    price_per_gpu_hour: float = Field(
        gt=0,
        description="On-demand price of one GPU for one hour: the instance's price / its GPUs. [currency/GPU-hour]",
    )
    currency: Currency
    region: str | None = Field(
        default=None,
        description="The provider's region or zone of the price; empty: not stated (one price everywhere).",
    )
    instance_type: str | None = Field(default=None, description="The provider's name for the instance rented.")
    gpus_per_instance: int | None = Field(
        default=None, ge=1, le=1000, description="GPUs in one instance: the smallest number rented. [GPU]"
    )
    spot_price_per_gpu_hour: float | None = Field(
        default=None,
        gt=0,
        description="Spot (interruptible) price of one GPU-hour; empty: no spot price published. [currency/GPU-hour]",
    )
    reserved_1y_price_per_gpu_hour: float | None = Field(
        default=None,
        gt=0,
        description="Price of one GPU-hour under a 1-year commitment; empty: none published. [currency/GPU-hour]",
    )
    reserved_3y_price_per_gpu_hour: float | None = Field(
        default=None,
        gt=0,
        description="Price of one GPU-hour under a 3-year commitment; empty: none published. [currency/GPU-hour]",
    )

    @model_validator(mode="after")
    def _on_demand_dearest(self) -> CloudOffer:
        """Spot and committed prices are at most the on-demand price of the same offer."""
        for name in ("spot_price_per_gpu_hour", "reserved_1y_price_per_gpu_hour", "reserved_3y_price_per_gpu_hour"):
            price = getattr(self, name)
            if price is not None and price > self.price_per_gpu_hour:
                raise _row_rule(
                    "CloudOffer",
                    name,
                    "dearer_than_on_demand",
                    "above price_per_gpu_hour ({price}): a spot or committed GPU-hour costs at most an on-demand one",
                    price,
                    {"price": f"{self.price_per_gpu_hour:g}"},
                )
        return self


class InstanceType(_Row):
    """A cloud's GPU instance type with the GPUs it holds (one row of data/instance_types.csv).

    A cloud bill names what it charged by the cloud's own instance type (``p5.48xlarge``,
    ``a3-highgpu-8g``, ``Standard_ND96isr_H100_v5``); this row tells the GPU and how many.
    """

    file: ClassVar[str] = "data/instance_types.csv"
    key: ClassVar[str] = "instance_type"

    instance_type: str = Field(
        min_length=1, description="The cloud's name of the instance type, as its bills write it."
    )
    provider: str = Field(min_length=1, description="The cloud that rents the instance type.")
    gpu: str = Field(description="Catalog id of the GPU the instance holds.")
    gpus_per_instance: int = Field(ge=1, le=1000, description="GPUs in one instance. [GPU]")


INSTANCE_TYPES_FILE = "instance_types.csv"
"""The file of a catalog folder naming the clouds' GPU instance types (:class:`InstanceType`)."""


def instance_types(data_dir: str | Path | None = None) -> dict[str, InstanceType]:
    """The GPU instance types of AWS, Google Cloud and Azure by instance type, read from a catalog folder.

    Parameters
    ----------
    data_dir
        Folder holding instance_types.csv and gpus.csv; default the bundled data/ folder. A folder
        without instance_types.csv gives an empty table.

    Raises
    ------
    CatalogError
        A row breaks its schema, an instance type repeats, or a row names a GPU gpus.csv does not hold.
    """
    return _gpu_keyed_rows(data_dir, INSTANCE_TYPES_FILE, InstanceType)


class CloudExtras(_Row):
    """A cloud's prices besides the GPU-hour: storage, egress, a CPU node, support (one row of data/cloud_extras.csv).

    Keyed by the ``provider`` of data/cloud_prices.csv. An empty cell is a price the provider does
    not publish (or the catalog does not hold): a scenario that needs it gives it in its
    ``data_and_support`` block.
    """

    file: ClassVar[str] = "data/cloud_extras.csv"
    key: ClassVar[str] = "provider"

    provider: str = Field(description="The cloud, as named in the provider column of cloud_prices.csv.")
    storage_object_per_gb_month: float | None = Field(
        default=None, ge=0, description="Object storage, first tier. [currency/GB-month]"
    )
    storage_block_per_gb_month: float | None = Field(
        default=None, ge=0, description="Block or shared-filesystem storage. [currency/GB-month]"
    )
    egress_per_gb: float | None = Field(
        default=None, ge=0, description="Data sent out to the internet, first paid tier. [currency/GB]"
    )
    cpu_node_per_hour: float | None = Field(
        default=None, ge=0, description="One CPU-only node (a head or login node), on demand. [currency/hour]"
    )
    support_share: float | None = Field(
        default=None, ge=0, le=1, description="Paid support plan as a share of the month's cloud bill. [-]"
    )
    support_minimum_per_month: float | None = Field(
        default=None, ge=0, description="The support plan's monthly minimum. [currency/month]"
    )
    currency: Currency


class GCPGPUSku(_Row):
    """A GPU model as Google Cloud's GPU SKUs name it (one row of data/gcp_gpu_skus.csv).

    Google Cloud bills the GPUs of a VM as their own SKU (``Nvidia H100 80GB GPU running in
    Americas``: one GPU for one hour per unit); this row tells the catalog GPU of the name between
    ``Nvidia`` and ``GPU``.
    """

    file: ClassVar[str] = "data/gcp_gpu_skus.csv"
    key: ClassVar[str] = "sku_gpu"

    sku_gpu: str = Field(min_length=1, description="GPU name inside the SKU description (``H100 80GB``).")
    gpu: str = Field(description="Catalog id of the GPU.")


GCP_GPU_SKUS_FILE = "gcp_gpu_skus.csv"
"""The file of a catalog folder naming Google Cloud's GPU SKU names (:class:`GCPGPUSku`)."""


_GPUKeyed = TypeVar("_GPUKeyed", InstanceType, GCPGPUSku)
"""A catalog row named as a cloud names it, whose ``gpu`` column names a row of gpus.csv."""


def _gpu_keyed_rows(data_dir: str | Path | None, file: str, row_type: type[_GPUKeyed]) -> dict[str, _GPUKeyed]:
    """The rows of an optional catalog file whose ``gpu`` column names a row of the folder's gpus.csv.

    Raises
    ------
    CatalogError
        A row breaks its schema, a key repeats, or a row names a GPU gpus.csv does not hold.
    """
    folder = Path(data_dir) if data_dir is not None else DATA_DIR
    path = folder / file
    if not path.exists():
        return {}
    rows: dict[str, _GPUKeyed] = _read(path, row_type, row_type.key)
    gpus = _read(folder / "gpus.csv", GPU, "gpu")
    unknown = [
        (f"id {ident}, column gpu", row.gpu, "unknown GPU (not in gpus.csv)")
        for ident, row in rows.items()
        if row.gpu not in gpus
    ]
    if unknown:
        raise CatalogError(path, unknown)
    return rows


def gcp_gpu_skus(data_dir: str | Path | None = None) -> dict[str, GCPGPUSku]:
    """Google Cloud's GPU SKU names (``H100 80GB``, ``Tesla A100``) by name, read from a catalog folder.

    Parameters
    ----------
    data_dir
        Folder holding gcp_gpu_skus.csv and gpus.csv; default the bundled data/ folder. A folder
        without gcp_gpu_skus.csv gives an empty table.

    Raises
    ------
    CatalogError
        A row breaks its schema, a name repeats, or a row names a GPU gpus.csv does not hold.
    """
    return _gpu_keyed_rows(data_dir, GCP_GPU_SKUS_FILE, GCPGPUSku)


class APIOffer(_Row):
    """One hosted LLM API price (one row of data/api_prices.csv)."""

    file: ClassVar[str] = "data/api_prices.csv"
    key: ClassVar[str] = "offer"

    offer: str = Field(description="Catalog id of the offer.")
    provider: str = Field(description="The company whose API it is.")
    model: str = Field(description="The provider's name of the model priced.")
    input_per_million: float = Field(gt=0, description="Price of input tokens. [currency/M tokens]")
    cached_input_per_million: float | None = Field(
        default=None, gt=0, description="Price of cached input tokens; empty means the input price. [currency/M tokens]"
    )
    output_per_million: float | None = Field(
        default=None,
        gt=0,
        description="Price of output tokens; empty: an input-only offer (embeddings). [currency/M tokens]",
    )
    currency: Currency
    cache_write_5m_per_million: float | None = Field(
        default=None,
        gt=0,
        description="Price of a cache write with a 5-minute time-to-live; empty: not offered. [currency/M tokens]",
    )
    cache_write_1h_per_million: float | None = Field(
        default=None,
        gt=0,
        description="Price of a cache write with a 1-hour time-to-live; empty: not offered. [currency/M tokens]",
    )
    batch_multiplier: float | None = Field(
        default=None, gt=0, le=1, description="Batch tier price / standard price; empty: no batch tier. [-]"
    )
    flex_multiplier: float | None = Field(
        default=None, gt=0, le=1, description="Flex tier price / standard price; empty: no flex tier. [-]"
    )
    priority_multiplier: float | None = Field(
        default=None, ge=1, le=10, description="Priority tier price / standard price; empty: no priority tier. [-]"
    )
    tier_applies_to_cache: bool = Field(
        default=True,
        description="Whether the tier's factor also applies to cache reads and writes (the provider's stacking rule).",
    )
    long_context_threshold_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Input tokens of a request above which the whole request is billed at the "
        "long-context prices; empty: no long-context tier. [tokens]",
    )
    long_context_input_per_million: float | None = Field(
        default=None, gt=0, description="Input price above the threshold; cache prices scale alike. [currency/M tokens]"
    )
    long_context_output_per_million: float | None = Field(
        default=None, gt=0, description="Output price above the threshold. [currency/M tokens]"
    )
    region_uplift: float | None = Field(
        default=None,
        ge=1,
        le=10,
        description="Factor on every price for the "
        "provider's regional (data-residency) endpoint; empty: none stated. [-]",
    )
    deprecated: bool = Field(
        default=False,
        description="The provider has deprecated the model: it may be "
        "withdrawn, so its price may not be offered for long.",
    )
    reasoning_per_million: float | None = Field(
        default=None,
        gt=0,
        description="Price of reasoning (thinking) tokens where the provider bills them apart "
        "from output; empty: at the output price. [currency/M tokens]",
    )
    input_audio_per_million: float | None = Field(
        default=None, gt=0, description="Price of audio input tokens; empty: not priced. [currency/M tokens]"
    )
    cached_audio_input_per_million: float | None = Field(
        default=None,
        gt=0,
        description="Price of audio input tokens read from the cache; empty: the audio input "
        "price. [currency/M tokens]",
    )
    output_audio_per_million: float | None = Field(
        default=None, gt=0, description="Price of audio output tokens; empty: not priced. [currency/M tokens]"
    )
    input_image_per_million: float | None = Field(
        default=None, gt=0, description="Price of image input tokens; empty: not priced. [currency/M tokens]"
    )
    cached_image_input_per_million: float | None = Field(
        default=None,
        gt=0,
        description="Price of image input tokens read from the cache; empty: the text "
        "cache-read price. [currency/M tokens]",
    )
    per_thousand_requests: float | None = Field(
        default=None, gt=0, description="Fixed fee per 1,000 requests; empty: none. [currency/1000 requests]"
    )
    web_search_per_thousand: float | None = Field(
        default=None, gt=0, description="Price of 1,000 web searches; empty: not priced. [currency/1000 searches]"
    )
    citation_per_million: float | None = Field(
        default=None,
        gt=0,
        description="Price of citation tokens billed beside input and output; empty: not priced. [currency/M tokens]",
    )
    effective_from: str | None = Field(
        default=None,
        pattern=r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$",
        description="Date (YYYY-MM-DD) from which these prices apply; empty: always "
        "(data/api_price_history.csv may hold other dates).",
    )
    long_context_until: str | None = Field(
        default=None,
        pattern=r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$",
        description="Last date (YYYY-MM-DD) the long-context tier was offered: a bill dated later with requests "
        "above the threshold is refused; empty: still offered.",
    )

    @model_validator(mode="after")
    def _long_context_whole(self) -> APIOffer:
        given = [
            self.long_context_threshold_tokens is not None,
            self.long_context_input_per_million is not None,
            self.long_context_output_per_million is not None,
        ]
        if any(given) and not all(given):
            raise _row_rule(
                "APIOffer",
                "long_context_threshold_tokens",
                "long_context_partial",
                "give the long-context threshold, input and output prices together",
                self.long_context_threshold_tokens,
            )
        return self

    @model_validator(mode="after")
    def _dearer_where_the_provider_charges_more(self) -> APIOffer:
        """A 1-hour cache write costs at least a 5-minute one, and long-context prices at least the standard."""
        pairs = (
            ("cache_write_1h_per_million", "cache_write_5m_per_million"),
            ("long_context_input_per_million", "input_per_million"),
            ("long_context_output_per_million", "output_per_million"),
        )
        for higher, lower in pairs:
            if (
                getattr(self, higher) is not None
                and getattr(self, lower) is not None
                and getattr(self, higher) < getattr(self, lower)
            ):
                raise _row_rule(
                    "APIOffer",
                    higher,
                    "cheaper_than_base",
                    "below {lower} ({price}): it is the dearer price",
                    getattr(self, higher),
                    {"lower": lower, "price": f"{getattr(self, lower):g}"},
                )
        return self

    @model_validator(mode="after")
    def _cache_not_dearer(self) -> APIOffer:
        if self.cached_input_per_million is not None and self.cached_input_per_million > self.input_per_million:
            raise _row_rule(
                "APIOffer",
                "cached_input_per_million",
                "cache_dearer",
                "above input_per_million ({price}): a cache read costs at most an input token",
                self.cached_input_per_million,
                {"price": f"{self.input_per_million:g}"},
            )
        return self


class APIPriceWindow(_Row):
    """A price window of a hosted API: a factor on its prices in some hours of the week (data/api_price_windows.csv).

    The first row of an offer (in file order) whose days and hours hold an hour sets that
    hour's factor; an hour in none of its rows is at the offer's listed prices (factor 1).
    """

    file: ClassVar[str] = "data/api_price_windows.csv"
    key: ClassVar[str] = "window"

    window: str = Field(description="Catalog id of the window.")
    offer: str = Field(description="API offer id in api_prices.csv.")
    name: str = Field(description="The provider's name for the window, e.g. peak, off-peak.")
    days: str = Field(
        pattern=r"^[0-6](-[0-6])?(,[0-6](-[0-6])?)*$", description="Days of the week, 0 = Monday: '0-4', '5,6', '0-6'."
    )
    start_hour: float = Field(
        ge=0,
        le=23.5,
        multiple_of=0.5,
        description="Start of the window, in hours after midnight, on the half hour (1.5 = 01:30). [h]",
    )
    end_hour: float = Field(
        ge=0.5, le=24, multiple_of=0.5, description="End of the window (exclusive), on the half hour. [h]"
    )
    time_zone: str = Field(description="IANA time zone of the hours, e.g. UTC.")
    price_multiplier: float = Field(gt=0, le=10, description="Factor on the prices of the window's token classes. [-]")
    applies_to: str = Field(
        default="all",
        pattern=r"^(all|(input|cache_read|cache_write|output|reasoning|audio_input|image_input|"
        r"audio_output)(;(input|cache_read|cache_write|output|reasoning|audio_input|"
        r"image_input|audio_output))*)$",
        description="Token classes the factor applies to, separated by ';' (input;cache_read), or all; the other "
        "classes keep the price they have outside the window.",
    )
    long_context: Literal["as_listed", "standard"] = Field(
        default="as_listed",
        description="standard: inside the window long requests pay the standard prices "
        "(the window replaces the long-context tier), times the factor.",
    )
    effective_from: str = Field(
        pattern=r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$",
        description="Date (YYYY-MM-DD) from which the window applies.",
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        return known_time_zone(value)

    @model_validator(mode="after")
    def _hours_in_order(self) -> APIPriceWindow:
        if self.start_hour >= self.end_hour:
            raise _row_rule(
                "APIPriceWindow",
                "start_hour",
                "empty_window",
                "not before end_hour ({end}): the window holds no hour",
                self.start_hour,
                {"end": self.end_hour},
            )
        parts = [part.partition("-") for part in self.days.split(",")]
        if any(high and int(high) < int(low) for low, _, high in parts) or len(self.day_set()) < sum(
            int(high or low) - int(low) + 1 for low, _, high in parts
        ):
            raise _row_rule(
                "APIPriceWindow", "days", "days_order", "each day once, ranges low-high (0-4, 5,6)", self.days
            )
        return self

    def day_set(self) -> set[int]:
        """The days of the week the window covers, 0 = Monday."""
        found: set[int] = set()
        for part in self.days.split(","):
            low, _, high = part.partition("-")
            found.update(range(int(low), int(high or low) + 1))
        return found


class LLM(_Row):
    """One language model's size and attention shape (one row of data/models.csv)."""

    file: ClassVar[str] = "data/models.csv"
    key: ClassVar[str] = "model"

    model: str = Field(description="Catalog id, e.g. llama-3.3-70b.")
    name: str
    total_parameters: float = Field(gt=0, description="All parameters, which must sit in memory. [-]")
    active_parameters: float = Field(gt=0, description="Parameters used per token (MoE: fewer than total). [-]")
    layers: int = Field(ge=1, description="Transformer layers. [-]")
    kv_elements_per_token_per_layer: int = Field(
        ge=1, description="Numbers the KV cache holds per token per layer (2 x KV heads x head dim for GQA). [-]"
    )
    kv_heads: int | None = Field(
        default=None,
        ge=1,
        description="Key-value attention heads (GQA); empty for latent attention (MLA) or not catalogued. [-]",
    )
    head_dim: int | None = Field(default=None, ge=1, description="Size of one attention head. [-]")
    context_length_tokens: int | None = Field(
        default=None, ge=1, description="Longest context the model is configured for. [tokens]"
    )
    hidden_size: int | None = Field(
        default=None,
        ge=1,
        description="Width of the residual stream (config.json hidden_size); empty if not catalogued. [-]",
    )

    @model_validator(mode="after")
    def _active_within_total(self) -> LLM:
        if self.active_parameters > self.total_parameters:
            raise _row_rule(
                "LLM",
                "active_parameters",
                "active_above_total",
                "above total_parameters ({total}): a token uses at most every parameter",
                self.active_parameters,
                {"total": f"{self.total_parameters:g}"},
            )
        return self


Precision = Literal["fp16", "bf16", "fp8", "fp4", "int8", "int4"]


class ThroughputRow(_Row):
    """One measured serving throughput (one row of data/throughput.csv)."""

    file: ClassVar[str] = "data/throughput.csv"
    key: ClassVar[str] = "row"

    row: str = Field(description="Catalog id of the measurement.")
    model: str
    gpu: str
    precision: Precision
    output_tokens_per_second_per_gpu: float = Field(
        gt=0, description="Measured throughput per GPU. [output tokens/s/GPU]"
    )
    gpus_per_replica: int | None = Field(
        default=None, ge=1, description="Tensor-parallel degree measured; empty if not stated. [GPU]"
    )
    input_tokens: int | None = Field(default=None, ge=1, description="Input length per request. [tokens]")
    output_tokens: int | None = Field(default=None, ge=1, description="Output length per request. [tokens]")
    setting: str = Field(description="Benchmark setting (offline, server with latency bounds, max throughput).")


class ServingCurvePoint(_Row):
    """One point of a throughput–interactivity curve (one row of data/serving_curves.csv).

    Points of one ``curve`` share model, GPU, precision, replica, engine, request shape and phase,
    and differ in concurrency. A measured point is graded P or S; an estimated one (the curves
    generated with aiconfigurator-core, data/serving_curves_estimated.csv.gz) E.

    ``phase`` is ``aggregated`` (one engine mixes prefill and decode: every figure given), or one pool
    of disaggregated serving: ``prefill`` (input tokens/s per GPU and the prefill batch's TTFT) or
    ``decode`` (output tokens/s per GPU and per user).
    """

    file: ClassVar[str] = "data/serving_curves.csv"
    key: ClassVar[str] = "point"

    point: str = Field(description="Catalog id of the point.")
    curve: str = Field(description="Id of the curve the point belongs to.")
    model: str
    gpu: str
    precision: Precision
    gpus_per_replica: int = Field(ge=1, description="GPUs of the replica measured. [GPU]")
    parallelism: str = Field(description="How the replica is split, e.g. TP2, TP8 EP8, PP2xTP8.")
    engine: str = Field(description="Serving engine and version.")
    input_tokens: int = Field(ge=1, description="Input length per request. [tokens]")
    output_tokens: int = Field(ge=1, description="Output length per request. [tokens]")
    concurrency: float = Field(gt=0, description="Requests in flight per replica. [requests]")
    output_tokens_per_second_per_gpu: float | None = Field(
        default=None, gt=0, description="Throughput per GPU; empty for a prefill point. [output tokens/s/GPU]"
    )
    tokens_per_second_per_user: float | None = Field(
        default=None, gt=0, description="1 / time per output token; empty for a prefill point. [tokens/s/user]"
    )
    ttft_seconds: float | None = Field(
        default=None, gt=0, description="Time to first token; empty for a decode point. [s]"
    )
    ttft_statistic: Literal["mean", "p50", "p90", "p99"] = Field(description="Which statistic ttft_seconds is.")
    phase: Literal["aggregated", "prefill", "decode"] = Field(
        default="aggregated", description="aggregated, or the prefill or decode pool of disaggregated serving."
    )
    input_tokens_per_second_per_gpu: float | None = Field(
        default=None, gt=0, description="Prefill throughput per GPU (prefill points). [input tokens/s/GPU]"
    )

    @model_validator(mode="after")
    def _phase_figures(self):
        needed = {
            "aggregated": ("output_tokens_per_second_per_gpu", "tokens_per_second_per_user", "ttft_seconds"),
            "prefill": ("input_tokens_per_second_per_gpu", "ttft_seconds"),
            "decode": ("output_tokens_per_second_per_gpu", "tokens_per_second_per_user"),
        }[self.phase]
        for name in needed:
            if getattr(self, name) is None:
                raise _row_rule(
                    "ServingCurvePoint",
                    name,
                    "phase_figure",
                    "empty: a {phase} point states it",
                    None,
                    {"phase": self.phase},
                )
        return self

    @property
    def estimated(self) -> bool:
        """True for an estimate (grade E), False for a measurement."""
        return self.quality == "E"


ESTIMATED_CURVES = "serving_curves_estimated.csv.gz"
"""The bundled estimated curves (scripts/refresh_serving_curves.py), read by :func:`estimated_curves`."""


@functools.cache
def estimated_curves(model: str, gpu: str, precision: str) -> tuple[ServingCurvePoint, ...]:
    """The bundled estimated curve points of one model on one GPU at one precision (grade E).

    The file holds tens of thousands of rows; it is read once per process, indexed by
    (model, GPU, precision), and only the rows asked for are validated, once (a sweep resolves the
    same pair many times).

    Raises
    ------
    CatalogError
        A row asked for breaks its schema.
    """
    path, header, index = _estimated_index()
    lines = index.get((model, gpu, precision), [])
    points = []
    problems = []
    for number, raw in zip(
        (n for n, _ in lines), csv.DictReader((t for _, t in lines), fieldnames=header), strict=True
    ):
        data = {name: value for name, value in raw.items() if value not in ("", None)}
        try:
            point = ServingCurvePoint.model_validate(data)
        except ValidationError as exc:
            problems += [
                (f"line {number}, column {field}", value, reason)
                for field, value, reason in from_validation_error(exc, path, CatalogError).problems
            ]
            continue
        point._origin = f"data/{ESTIMATED_CURVES}"
        points.append(point)
    if problems:
        raise CatalogError(path, problems)
    return tuple(points)


def estimated_curve_ids() -> dict[str, tuple[str, str, str]]:
    """Every bundled estimated curve's id and its (model, GPU, precision)."""
    _, _, index = _estimated_index()
    return {line.split(",", 2)[1]: key for key, lines in index.items() for _, line in lines}


@functools.cache
def _estimated_index() -> tuple[Path, list[str], dict[tuple[str, str, str], list[tuple[int, str]]]]:
    """The file's header and its lines by (model, GPU, precision), each with its line number.

    Lines are split, not parsed: the first five columns (point, curve, model, GPU, precision) are ids
    without commas or quotes, so a line's key is its text up to the fifth comma; only the lines asked
    for are parsed as CSV (by :func:`estimated_curves`)."""
    import gzip

    path = DATA_DIR / ESTIMATED_CURVES
    index: dict[tuple[str, str, str], list[tuple[int, str]]] = {}
    if not path.exists():
        return path, [], index
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        text = handle.read()
    lines = text.splitlines()
    header = next(csv.reader(lines[:1]))
    if header[:5] != ["point", "curve", "model", "gpu", "precision"]:
        raise CatalogError(
            path, [("line 1", ",".join(header[:5]), "the first columns must be point, curve, model, gpu, precision")]
        )
    for number, line in enumerate(lines[1:], start=2):
        _, _, model, gpu, precision, _ = line.split(",", 5)
        index.setdefault((model, gpu, precision), []).append((number, line))
    return path, header, index


@functools.cache
def computed_curves(
    model: str,
    gpu: str,
    precision: str,
    input_tokens: int,
    output_tokens: int,
    levers: tuple[float, int, float, str | None],
    minimum_gpus: int,
) -> tuple[ServingCurvePoint, ...]:
    """Curves aiconfigurator-core estimates for one model, GPU, precision and request shape with the levers
    (prefix-cache hit rate, speculative tokens, acceptance rate, KV-cache precision) set, aggregated and as
    prefill and decode workers, for the two smallest replicas of at least ``minimum_gpus`` that fit, as the
    committed curves are made (scripts/refresh_serving_curves.py). Cached per process.

    Raises
    ------
    costmodel.estimate.EstimateUnavailable
        The ``estimate`` extra is not installed.
    costmodel.estimate.NotCovered
        The database does not cover the pair, or no replica fits.
    """
    from . import estimate

    estimate.check_covered(model, gpu, "trtllm")
    rows = estimate.smallest_replica_curves(
        model,
        gpu,
        estimate.Request(input_tokens, output_tokens),
        precision=precision,
        levers=estimate.Levers(*levers),
        minimum_gpus=minimum_gpus,
    )
    points = []
    for row in rows:
        point = ServingCurvePoint.model_validate({k: v for k, v in row.items() if v not in ("", None)})
        point._origin = f"{estimate.PACKAGE} {estimate.PINNED} (computed for the scenario's levers)"
        points.append(point)
    return tuple(points)


ESTIMATE_VALIDATION = "serving_estimate_validation.csv"
"""aiconfigurator-core's estimate beside every measured row (scripts/validate_serving_estimates.py)."""


@dataclass(frozen=True)
class EstimateBand:
    """The range of the estimate's relative error where the catalog has measured rows.

    Attributes
    ----------
    throughput_low, throughput_high
        Smallest and largest (estimate - measured) / measured of output tokens/s per GPU. [-]
    throughput_points
        Measured points compared on throughput. [-]
    ttft_low, ttft_high
        The same for the time to first token. [-]
    ttft_points
        Measured points compared on TTFT. [-]
    """

    throughput_low: float
    throughput_high: float
    throughput_points: int
    ttft_low: float
    ttft_high: float
    ttft_points: int
    origin: str = f"data/{ESTIMATE_VALIDATION}"

    def describe(self) -> str:
        def share(x: float) -> str:
            return f"{x * 100:+.0f} %"

        return (
            f"where the catalog has measurements, the estimate's output tokens/s per GPU differed from them by "
            f"{share(self.throughput_low)} to {share(self.throughput_high)} ({self.throughput_points} points) and "
            f"its TTFT by {share(self.ttft_low)} to {share(self.ttft_high)} ({self.ttft_points} points; "
            f"{self.origin})"
        )


@functools.cache
def estimate_validation() -> EstimateBand | None:
    """The band of the estimate's errors against the catalog's measured rows, or None without the file.

    References
    ----------
    data/serving_estimate_validation.csv: NVIDIA NIM 1.8.0 benchmarking guide (Llama 3.3 70B, 2 x H100)
    and TensorRT-LLM's performance overview, each beside aiconfigurator-core 0.12.0's estimate.
    """
    path = DATA_DIR / ESTIMATE_VALIDATION
    if not path.exists():
        return None
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    throughput = [float(r["throughput_error"]) for r in rows if r["throughput_error"]]
    ttft = [float(r["ttft_error"]) for r in rows if r["ttft_error"]]
    if not throughput or not ttft:
        return None
    return EstimateBand(min(throughput), max(throughput), len(throughput), min(ttft), max(ttft), len(ttft))


class PublishedRun(_Row):
    """One published training run (one row of data/training_runs.csv): its GPU-hours for its compute."""

    file: ClassVar[str] = "data/training_runs.csv"
    key: ClassVar[str] = "run"

    run: str = Field(description="Catalog id, e.g. deepseek-v3.")
    name: str
    gpu: str = Field(description="Catalog id of the GPU it ran on.")
    active_parameters: float = Field(gt=0, description="N. [-]")
    training_tokens: float = Field(gt=0, description="D. [tokens]")
    gpu_hours: float = Field(gt=0, description="GPU-hours published. [GPU-h]")


class GridIntensity(_Row):
    """Location-based carbon intensity of a grid (one row of data/grid_carbon_intensity.csv)."""

    file: ClassVar[str] = "data/grid_carbon_intensity.csv"
    key: ClassVar[str] = "region"

    region: str = Field(description="Catalog id, e.g. us-eia-2022.")
    name: str
    year: int | None = Field(
        default=None, ge=1990, le=2100, description="Year the figure describes; empty if not stated."
    )
    kg_co2e_per_kwh: float = Field(ge=0, le=2, description="Emissions per kWh consumed. [kg CO2e/kWh]")


class DatacenterPUE(_Row):
    """A published data-centre PUE (one row of data/datacenter_pue.csv)."""

    file: ClassVar[str] = "data/datacenter_pue.csv"
    key: ClassVar[str] = "row"

    row: str = Field(description="Catalog id, e.g. uptime-2024-average.")
    name: str
    pue: float = Field(ge=1, le=5, description="Power usage effectiveness. [-]")


class EmbodiedItem(_Row):
    """Embodied (manufacturing) emissions of a piece of hardware (one row of data/embodied_emissions.csv)."""

    file: ClassVar[str] = "data/embodied_emissions.csv"
    key: ClassVar[str] = "item"

    item: str = Field(description="Catalog id: server-without-gpus or gpu.")
    kg_co2e: float = Field(ge=0, description="Emissions of making one. [kg CO2e]")
    per: Literal["server", "gpu"]
    life_years: float = Field(gt=0, le=20, description="Life the source amortises it over. [years]")


class APIEnergy(_Row):
    """Energy and embodied emissions of a hosted API per 1,000 output tokens (data/api_energy.csv)."""

    file: ClassVar[str] = "data/api_energy.csv"
    key: ClassVar[str] = "offer"

    offer: str = Field(description="Offer id in data/api_prices.csv.")
    ecologits_model: str = Field(description="The EcoLogits provider/model the figures are for.")
    wh_per_1000_output_tokens_low: float = Field(ge=0, description="Facility energy, low end. [Wh/1,000 output tokens]")
    wh_per_1000_output_tokens_high: float = Field(ge=0, description="Facility energy, high. [Wh/1,000 output tokens]")
    embodied_g_co2e_per_1000_output_tokens_low: float = Field(ge=0, description="[g CO2e/1,000 output tokens]")
    embodied_g_co2e_per_1000_output_tokens_high: float = Field(ge=0, description="[g CO2e/1,000 output tokens]")
    pue_low: float = Field(ge=1, le=5, description="Provider PUE range the energy includes. [-]")
    pue_high: float = Field(ge=1, le=5)
    grid_region: str = Field(description="Row of data/grid_carbon_intensity.csv for the provider's grid.")

    @model_validator(mode="after")
    def _low_not_above_high(self) -> APIEnergy:
        for low, high in (
            ("wh_per_1000_output_tokens_low", "wh_per_1000_output_tokens_high"),
            ("embodied_g_co2e_per_1000_output_tokens_low", "embodied_g_co2e_per_1000_output_tokens_high"),
            ("pue_low", "pue_high"),
        ):
            if getattr(self, low) > getattr(self, high):
                raise _row_rule(
                    "APIEnergy",
                    low,
                    "low_above_high",
                    "above {high} ({value})",
                    getattr(self, low),
                    {"high": high, "value": f"{getattr(self, high):g}"},
                )
        return self


_DATE = r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"
TOKEN_CLASSES = ("input", "cache_read", "cache_write", "cache_write_1h", "output", "reasoning")
"""Token classes a prompt-size tier (data/api_price_tiers.csv) may price."""


class APIPriceTier(_Row):
    """A prompt-size tier of a hosted API's price for one token class (data/api_price_tiers.csv).

    A request whose input tokens (the API's count) are above ``above_input_tokens`` pays the
    tier's price for every token of the class (cliff pricing, as Google, Anthropic, Alibaba and
    OpenAI bill); with several tiers the highest one passed applies. A cache class without
    tiers of its own scales with the input price's ratio, reasoning with the output's.
    """

    file: ClassVar[str] = "data/api_price_tiers.csv"
    key: ClassVar[str] = "tier"

    tier: str = Field(description="Catalog id of the tier.")
    offer: str = Field(description="API offer id in api_prices.csv.")
    token_class: Literal["input", "cache_read", "cache_write", "cache_write_1h", "output", "reasoning"] = Field(
        description="The class of tokens the price is for."
    )
    above_input_tokens: int = Field(
        ge=1, description="Input tokens of a request above which the tier applies. [tokens]"
    )
    price_per_million: float = Field(gt=0, description="Price of the class's tokens in the tier. [currency/M tokens]")


class APIPriceChange(_Row):
    """A hosted API's prices from a date on (data/api_price_history.csv): one offer's price history.

    The prices of an offer on a bill's date (``price_date``) are those of its row (api_prices.csv,
    from its ``effective_from``) or of its latest change effective on that date; without a date,
    the latest of all. An empty price column keeps the offer row's price.
    """

    file: ClassVar[str] = "data/api_price_history.csv"
    key: ClassVar[str] = "change"

    change: str = Field(description="Catalog id of the change.")
    offer: str = Field(description="API offer id in api_prices.csv.")
    effective_from: str | None = Field(
        default=None,
        pattern=_DATE,
        description="Date (YYYY-MM-DD) from which the "
        "prices apply; empty: the first prices, in force before every dated row and "
        "before the offer row's effective_from (which it then needs).",
    )
    input_per_million: float | None = Field(default=None, gt=0, description="[currency/M tokens]")
    cached_input_per_million: float | None = Field(default=None, gt=0, description="[currency/M tokens]")
    output_per_million: float | None = Field(default=None, gt=0, description="[currency/M tokens]")
    cache_write_5m_per_million: float | None = Field(default=None, gt=0, description="[currency/M tokens]")
    cache_write_1h_per_million: float | None = Field(default=None, gt=0, description="[currency/M tokens]")
    reasoning_per_million: float | None = Field(default=None, gt=0, description="[currency/M tokens]")

    PRICES: ClassVar[tuple[str, ...]] = (
        "input_per_million",
        "cached_input_per_million",
        "output_per_million",
        "cache_write_5m_per_million",
        "cache_write_1h_per_million",
        "reasoning_per_million",
    )


class TaxDepreciationRow(_Row):
    """One recovery year of a tax depreciation schedule (one row of data/tax_depreciation.csv)."""

    file: ClassVar[str] = "data/tax_depreciation.csv"
    key: ClassVar[str] = "row"

    schedule: str = Field(description="Schedule id, e.g. macrs_5.")
    recovery_year: int = Field(ge=1, le=50, description="Recovery year, 1 first. [year]")
    percent: float = Field(ge=0, le=100, description="Share of the cost deducted in that year. [%]")

    @property
    def row(self) -> str:
        """The row's id: schedule and year, ``macrs_5-1``."""
        return f"{self.schedule}-{self.recovery_year}"


class Catalog(BaseModel):
    """All catalogs, keyed by id. Load with :func:`load_catalog`."""

    model_config = ConfigDict(frozen=True)

    gpus: dict[str, GPU]
    servers: dict[str, Server]
    cloud_offers: dict[str, CloudOffer]
    api_offers: dict[str, APIOffer]
    models: dict[str, LLM]
    throughput: dict[str, ThroughputRow]
    serving_curves: dict[str, ServingCurvePoint] = Field(default_factory=dict)
    training_runs: dict[str, PublishedRun] = Field(default_factory=dict)

    grid_intensity: dict[str, GridIntensity] = Field(default_factory=dict)
    datacenter_pue: dict[str, DatacenterPUE] = Field(default_factory=dict)
    embodied: dict[str, EmbodiedItem] = Field(default_factory=dict)
    api_energy: dict[str, APIEnergy] = Field(default_factory=dict)
    api_price_windows: dict[str, APIPriceWindow] = Field(default_factory=dict)
    api_price_tiers: dict[str, APIPriceTier] = Field(default_factory=dict)
    api_price_history: dict[str, APIPriceChange] = Field(default_factory=dict)
    tax_depreciation: dict[str, TaxDepreciationRow] = Field(default_factory=dict)
    cloud_extras: dict[str, CloudExtras] = Field(default_factory=dict)

    def cloud_offers_of(self, gpu: str) -> tuple[tuple[str, CloudOffer], ...]:
        """The rental offers of one GPU as (offer id, row), in the order of :attr:`cloud_offers`.

        The offers are grouped by GPU once per catalog (the index is built from the ``cloud_offers``
        table it is asked of, so a copy of the catalog with other offers builds its own).

        Parameters
        ----------
        gpu
            A GPU id of gpus.csv (``H100-SXM-80GB``).
        """
        built_from, by_gpu = vars(self).get("_offers_by_gpu", (None, {}))
        if built_from is not self.cloud_offers:
            by_gpu = {}
            for ident, offer in self.cloud_offers.items():
                by_gpu.setdefault(offer.gpu, []).append((ident, offer))
            by_gpu = {key: tuple(rows) for key, rows in by_gpu.items()}
            # kept beside the fields, not as one: the index holds the table it was built from
            vars(self)["_offers_by_gpu"] = (self.cloud_offers, by_gpu)
        return by_gpu.get(gpu, ())

    def depreciation_table(self, schedule: str) -> tuple[float, ...]:
        """Yearly shares of cost deducted in recovery years 1, 2, … of a tax schedule (``macrs_5``). [-]

        Raises
        ------
        CatalogError
            The schedule has no rows.
        """
        rows = sorted(
            (row for row in self.tax_depreciation.values() if row.schedule == schedule),
            key=lambda row: row.recovery_year,
        )
        if not rows:
            raise CatalogError(
                TaxDepreciationRow.file,
                [("schedule", schedule, "no rows for this depreciation schedule in tax_depreciation.csv")],
            )
        return tuple(row.percent / 100.0 for row in rows)


def _read(path: Path, row_type: type[_Row], key: str, origin: str | None = None) -> dict:
    """The rows of one catalog CSV file by id; ``origin``: the file to cite for them (a file given
    with ``--catalog``; default the bundled file's name)."""
    reader = None
    problem = file_problem(path, MAX_CATALOG_BYTES)
    if problem is not None:
        raise CatalogError(path, [("(file)", str(path), problem)])
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:  # -sig: Excel's "CSV UTF-8" starts with a BOM
            reader = csv.DictReader(handle, strict=True)  # strict: an unterminated quote is an error
            header = reader.fieldnames
            rows = list(reader)
    except OSError as exc:
        raise CatalogError(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None
    except UnicodeDecodeError as exc:
        raise CatalogError(
            path, [("(file)", str(path), f"is not UTF-8 text (byte {exc.start}: {exc.reason})")]
        ) from None
    except csv.Error as exc:
        line = reader.line_num if reader is not None else "?"
        raise CatalogError(path, [(f"line {line}", str(path), f"is not valid CSV: {exc}")]) from None
    if header is None:
        raise CatalogError(path, [("(file)", str(path), "is empty: a catalog file starts with its header line")])
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:  # csv.DictReader would keep the last of them silently
        raise CatalogError(path, [("line 1", ",".join(header), f"column {twice[0]} given twice")])
    items: dict[str, _Row] = {}
    problems = []
    for number, raw in enumerate(rows, start=2):  # line 1 is the header
        if None in raw:  # csv.DictReader keeps the cells past the header's under None
            problems.append(
                (
                    f"line {number}",
                    raw[None],
                    f"{len(raw[None])} more field(s) than the header's "
                    f"{len(header)} columns (a comma in a value needs quotes)",
                )
            )
            continue
        data = {name: (value if value != "" else None) for name, value in raw.items() if name is not None}
        data = {name: value for name, value in data.items() if value is not None}
        try:
            item = row_type.model_validate(data)
        except ValidationError as exc:
            for field, value, reason in from_validation_error(exc, path, CatalogError).problems:
                problems.append((f"line {number}, column {field}", value, reason))
            continue
        ident = getattr(item, key)
        if ident in items:
            problems.append((f"line {number}, column {key}", ident, "duplicate id"))
        if origin is not None:
            item._origin = origin
        items[ident] = item
    if problems:
        raise CatalogError(path, problems)
    return items


def load_catalog(data_dir: str | Path | None = None) -> Catalog:
    """Load and cross-check the catalogs, or give the catalog already loaded from the same files.

    A folder is read, validated and indexed once while its files stay as they are: the catalog is
    kept under the folder's path and each catalog file's modification time, size and inode
    (:func:`catalog_stamp`), so a file edited, replaced, added or removed since is read afresh.

    Parameters
    ----------
    data_dir
        Folder holding gpus.csv, servers.csv, cloud_prices.csv, api_prices.csv,
        models.csv and throughput.csv, and optionally serving_curves.csv, training_runs.csv,
        grid_carbon_intensity.csv, datacenter_pue.csv, embodied_emissions.csv, api_energy.csv,
        api_price_windows.csv and tax_depreciation.csv.
        Default: the bundled data/ folder.

    Returns
    -------
    Catalog

    Raises
    ------
    CatalogError
        A row breaks its schema, an id repeats, or a server or offer names a GPU that
        gpus.csv does not hold.
    """
    folder = Path(data_dir) if data_dir is not None else DATA_DIR
    return _cached(("load", catalog_stamp(folder)), lambda: _load_catalog(folder))


def _load_catalog(folder: Path) -> Catalog:
    """The catalogs of ``folder`` read and cross-checked (:func:`load_catalog` without its cache)."""
    gpus = _read(folder / "gpus.csv", GPU, "gpu")
    servers = _read(folder / "servers.csv", Server, "server")
    cloud = _read(folder / "cloud_prices.csv", CloudOffer, "offer")
    api = _read(folder / "api_prices.csv", APIOffer, "offer")
    models = _read(folder / "models.csv", LLM, "model")
    throughput = _read(folder / "throughput.csv", ThroughputRow, "row")
    curves_file = folder / "serving_curves.csv"
    curves = _read(curves_file, ServingCurvePoint, "point") if curves_file.exists() else {}
    _check_curves(curves, curves_file)
    runs_file = folder / "training_runs.csv"  # optional: the published runs plausibility is judged by
    runs = _read(runs_file, PublishedRun, "run") if runs_file.exists() else {}
    tables = (
        (folder / "servers.csv", servers),
        (folder / "cloud_prices.csv", cloud),
        (folder / "throughput.csv", throughput),
        (curves_file, curves),
        (runs_file, runs),
    )
    for path, table in tables:
        unknown = [
            (f"id {ident}, column gpu", row.gpu, "unknown GPU (not in gpus.csv)")
            for ident, row in table.items()
            if row.gpu not in gpus
        ]
        unknown += [
            (f"id {ident}, column model", row.model, "unknown model (not in models.csv)")
            for ident, row in table.items()
            if getattr(row, "model", None) is not None
            and path.name in ("throughput.csv", "serving_curves.csv")
            and row.model not in models
        ]
        if unknown:
            raise CatalogError(path, unknown)
    energy = {
        name: _read(folder / file, row_type, row_type.key) if (folder / file).exists() else {}
        for name, file, row_type in _ENERGY_TABLES
    }
    unknown = [
        (f"id {ident}, column grid_region", row.grid_region, "unknown region (not in grid_carbon_intensity.csv)")
        for ident, row in energy["api_energy"].items()
        if row.grid_region not in energy["grid_intensity"]
    ]
    unknown += [
        (f"id {ident}, column offer", row.offer, "unknown API offer (not in api_prices.csv)")
        for ident, row in energy["api_energy"].items()
        if row.offer not in api
    ]
    if unknown:
        raise CatalogError(folder / "api_energy.csv", unknown)
    windows_file = folder / "api_price_windows.csv"  # optional: prices by the clock
    windows = _read(windows_file, APIPriceWindow, "window") if windows_file.exists() else {}
    unknown = [
        (f"id {ident}, column offer", row.offer, "unknown API offer (not in api_prices.csv)")
        for ident, row in windows.items()
        if row.offer not in api
    ]
    if unknown:
        raise CatalogError(windows_file, unknown)
    extra = {}
    for name, file, row_type in (
        ("api_price_tiers", "api_price_tiers.csv", APIPriceTier),
        ("api_price_history", "api_price_history.csv", APIPriceChange),
    ):
        path = folder / file  # optional: prompt-size tiers, price history
        extra[name] = _read(path, row_type, row_type.key) if path.exists() else {}
        unknown = [
            (f"id {ident}, column offer", row.offer, "unknown API offer (not in api_prices.csv)")
            for ident, row in extra[name].items()
            if row.offer not in api
        ]
        if unknown:
            raise CatalogError(path, unknown)
    _check_tiers(extra["api_price_tiers"], api, folder / "api_price_tiers.csv")
    _check_history(extra["api_price_history"], api, folder / "api_price_history.csv")
    tax_file = folder / "tax_depreciation.csv"  # optional: tax schedules by recovery year
    tax = _read(tax_file, TaxDepreciationRow, "row") if tax_file.exists() else {}
    _check_schedules(tax, tax_file)
    extras_file = folder / "cloud_extras.csv"  # optional: storage, egress, CPU nodes, support by provider
    cloud_extras = _read(extras_file, CloudExtras, "provider") if extras_file.exists() else {}
    return Catalog(
        gpus=gpus,
        servers=servers,
        cloud_offers=cloud,
        api_offers=api,
        models=models,
        throughput=throughput,
        serving_curves=curves,
        training_runs=runs,
        api_price_windows=windows,
        tax_depreciation=tax,
        cloud_extras=cloud_extras,
        **energy,
        **extra,
    )


def _check_history(changes: dict[str, APIPriceChange], api: dict[str, APIOffer], path: Path | str) -> None:
    """One price per offer and date: an undated change (the first prices) once, and only beside an offer row
    that states its own effective_from."""
    problems, seen = [], set()
    for ident, row in changes.items():
        offer = api.get(row.offer)
        if row.effective_from is None and offer is not None and offer.effective_from is None:
            problems.append(
                (
                    f"id {ident}, column effective_from",
                    "",
                    "an undated change (the first prices) needs "
                    "the offer row's effective_from, or the two prices hold from the same time",
                )
            )
        if (row.offer, row.effective_from) in seen:
            problems.append(
                (
                    f"id {ident}, column effective_from",
                    row.effective_from or "",
                    "a second change of this offer from the same date",
                )
            )
        seen.add((row.offer, row.effective_from))
        if offer is not None:  # the offer's rules hold for its prices on every date
            update = {name: getattr(row, name) for name in row.PRICES if getattr(row, name) is not None}
            try:
                APIOffer.model_validate(offer.model_dump() | update)
            except ValidationError as exc:
                for error in exc.errors():
                    problems.append(
                        (
                            f"id {ident}, column {'.'.join(str(x) for x in error['loc']) or 'offer'}",
                            error.get("input"),
                            f"with the offer row's other prices: {error['msg']}",
                        )
                    )
    if problems:
        raise CatalogError(path, problems)


def _check_tiers(tiers: dict[str, APIPriceTier], api: dict[str, APIOffer], path: Path | str) -> None:
    """An offer's prompt-size tiers are in api_price_tiers.csv or in its long-context columns, not both, and
    one class holds each threshold once."""
    problems, seen = [], set()
    for ident, row in tiers.items():
        offer = api.get(row.offer)
        if offer is not None and offer.long_context_threshold_tokens is not None:
            problems.append(
                (
                    f"id {ident}, column offer",
                    row.offer,
                    "the offer has long-context columns in api_prices.csv: give its tiers in one place",
                )
            )
        base = (
            None
            if offer is None
            else {
                "input": offer.input_per_million,
                "output": offer.output_per_million,
                "cache_read": offer.cached_input_per_million,
                "cache_write": offer.cache_write_5m_per_million,
                "cache_write_1h": offer.cache_write_1h_per_million,
                "reasoning": offer.reasoning_per_million,
            }.get(row.token_class)
        )
        if base is not None and row.price_per_million < base and row.token_class in ("input", "output"):
            problems.append(
                (
                    f"id {ident}, column price_per_million",
                    row.price_per_million,
                    f"below the offer's {row.token_class} price ({base:g}): a longer prompt's tier is the dearer price",
                )
            )
        if (row.offer, row.token_class, row.above_input_tokens) in seen:
            problems.append(
                (
                    f"id {ident}, column above_input_tokens",
                    row.above_input_tokens,
                    f"a second {row.token_class} tier at this threshold",
                )
            )
        seen.add((row.offer, row.token_class, row.above_input_tokens))
    if problems:
        raise CatalogError(path, problems)


def _check_curves(curves: dict[str, ServingCurvePoint], path: Path | str) -> None:
    """The points of one curve share its model, GPU, precision, replica, engine and request shape, and
    differ in concurrency."""
    shared = (
        "model",
        "gpu",
        "precision",
        "gpus_per_replica",
        "parallelism",
        "engine",
        "input_tokens",
        "output_tokens",
        "phase",
    )
    first: dict[str, ServingCurvePoint] = {}
    mixed = []
    for ident, point in curves.items():
        head = first.setdefault(point.curve, point)
        mixed += [
            (
                f"id {ident}, column {name}",
                getattr(point, name),
                f"differs from {head.point} of the same curve {point.curve} ({getattr(head, name)})",
            )
            for name in shared
            if getattr(point, name) != getattr(head, name)
        ]
    at: dict[tuple[str, float], str] = {}
    for ident, point in curves.items():
        other = at.setdefault((point.curve, point.concurrency), ident)
        if other != ident:
            mixed.append(
                (
                    f"id {ident}, column concurrency",
                    point.concurrency,
                    f"repeats {other} of the same curve {point.curve}: one point per concurrency",
                )
            )
    if mixed:
        raise CatalogError(path, mixed)


def _check_schedules(rows: dict[str, TaxDepreciationRow], path: Path | str) -> None:
    """Each tax schedule's years run 1, 2, … without a gap and its shares sum to 100 %."""
    problems = []
    for schedule in sorted({row.schedule for row in rows.values()}):
        mine = [row for row in rows.values() if row.schedule == schedule]
        years = sorted(row.recovery_year for row in mine)
        if years != list(range(1, len(years) + 1)):
            problems.append((f"schedule {schedule}", years, "recovery years must run 1, 2, ... without a gap"))
        total = sum(row.percent for row in mine)
        if abs(total - 100.0) > 1e-6:
            problems.append((f"schedule {schedule}", f"{total:.6g} %", "the percents must sum to 100"))
    if problems:
        raise CatalogError(path, problems)


_ENERGY_TABLES = (
    ("grid_intensity", "grid_carbon_intensity.csv", GridIntensity),
    ("datacenter_pue", "datacenter_pue.csv", DatacenterPUE),
    ("embodied", "embodied_emissions.csv", EmbodiedItem),
    ("api_energy", "api_energy.csv", APIEnergy),
)
"""The energy and carbon catalogs: optional files (a folder without them gives empty tables)."""


@functools.cache
def default_catalog() -> Catalog:
    """The bundled catalog, loaded once per process."""
    return load_catalog()


_TABLE_FILES = (
    ("gpus", "gpus.csv", GPU, "gpu"),
    ("servers", "servers.csv", Server, "server"),
    ("cloud_offers", "cloud_prices.csv", CloudOffer, "offer"),
    ("api_offers", "api_prices.csv", APIOffer, "offer"),
    ("models", "models.csv", LLM, "model"),
    ("throughput", "throughput.csv", ThroughputRow, "row"),
    ("serving_curves", "serving_curves.csv", ServingCurvePoint, "point"),
    ("training_runs", "training_runs.csv", PublishedRun, "run"),
    *((name, file, row_type, row_type.key) for name, file, row_type in _ENERGY_TABLES),
    ("api_price_windows", "api_price_windows.csv", APIPriceWindow, "window"),
    ("api_price_tiers", "api_price_tiers.csv", APIPriceTier, "tier"),
    ("api_price_history", "api_price_history.csv", APIPriceChange, "change"),
    ("tax_depreciation", "tax_depreciation.csv", TaxDepreciationRow, "row"),
    ("cloud_extras", "cloud_extras.csv", CloudExtras, "provider"),
)
"""Catalog table → its file name, row type and id column."""


def merged_catalog(rows: Catalog | dict[str, dict], base: Catalog | None = None) -> Catalog:
    """A catalog with rows added to (or replacing, by id) the rows of ``base``.

    Parameters
    ----------
    rows
        A catalog, or table name (``servers``, ``cloud_offers``, ...) → id → row.
    base
        Default: the bundled catalog.

    Raises
    ------
    CatalogError
        A server, offer or throughput row names a GPU that neither catalog holds.
    """
    base = base or default_catalog()
    tables = {name: dict(getattr(base, name)) for name in type(base).model_fields}
    extra = {name: getattr(rows, name) for name in type(rows).model_fields} if isinstance(rows, Catalog) else rows
    for name, table in extra.items():
        if name == "tax_depreciation":  # a schedule given replaces the whole schedule, not some years
            given = {row.schedule for row in table.values()}
            tables[name] = {k: v for k, v in tables[name].items() if v.schedule not in given}
        tables[name].update(table)
    windows = [
        (ident, row)
        for name in ("api_price_windows", "api_energy", "api_price_tiers", "api_price_history")
        for ident, row in extra.get(name, {}).items()
        if row.offer not in tables["api_offers"]
    ]
    if windows:
        raise CatalogError(
            windows[0][1].source_file,
            [
                (f"id {ident}, column offer", row.offer, "unknown API offer (not in api_prices.csv)")
                for ident, row in windows
            ],
        )
    unknown_models = [
        (ident, row)
        for name in ("throughput", "serving_curves")
        for ident, row in extra.get(name, {}).items()
        if row.model not in tables["models"]
    ]
    if unknown_models:
        raise CatalogError(
            unknown_models[0][1].source_file,
            [
                (
                    f"id {ident}, column model",
                    row.model,
                    f"unknown model (not in models.csv){did_you_mean(row.model, tables['models'])}",
                )
                for ident, row in unknown_models
            ],
        )
    if "serving_curves" in extra:
        _check_curves(tables["serving_curves"], next(iter(extra["serving_curves"].values())).source_file)
    if extra.get("api_price_history"):
        _check_history(
            tables["api_price_history"],
            tables["api_offers"],
            next(iter(extra["api_price_history"].values())).source_file,
        )
    if "api_price_tiers" in extra and extra["api_price_tiers"]:
        _check_tiers(
            tables["api_price_tiers"], tables["api_offers"], next(iter(extra["api_price_tiers"].values())).source_file
        )
    if "tax_depreciation" in extra:
        _check_schedules(tables["tax_depreciation"], next(iter(extra["tax_depreciation"].values())).source_file)
    for name in ("servers", "cloud_offers", "throughput", "serving_curves", "training_runs"):
        bad = [(ident, row) for ident, row in extra.get(name, {}).items() if row.gpu not in tables["gpus"]]
        if bad:
            known = sorted(tables["gpus"])
            raise CatalogError(
                bad[0][1].source_file,
                [
                    (
                        f"id {ident}, column gpu",
                        row.gpu,
                        f"unknown GPU (not in gpus.csv){did_you_mean(row.gpu, known)}; known: {', '.join(known)}",
                    )
                    for ident, row in bad
                ],
            )
    if all(
        isinstance(row, _row_type(name)) for name, table in extra.items() for row in table.values()
    ):  # rows validated already (base's as it was built, the added ones as read): not validated again
        return Catalog.model_construct(None, **tables)
    return Catalog(**tables)


@functools.cache
def _row_type(table: str) -> type[_Row]:
    """The row type of a catalog table (``cloud_offers`` → :class:`CloudOffer`)."""
    annotation = Catalog.model_fields[table].annotation
    return typing.get_args(annotation)[1]


CachedKey = tuple[str, tuple[str, tuple[tuple[str, tuple[int, int, int] | None], ...]]]
"""What a loaded catalog is kept under: the loader, the folder and the stamp of each catalog file in it."""

CACHED_CATALOGS = 8
"""Most loaded catalogs kept in one process (the least recently used is dropped first)."""

_LOADED: dict[CachedKey, Catalog] = {}
"""Catalogs loaded in this process, least recently used first."""


def catalog_stamp(folder: str | Path) -> tuple[str, tuple[tuple[str, tuple[int, int, int] | None], ...]]:
    """What tells whether a folder's catalog files changed: its absolute path, and each catalog
    file's modification time, size and inode (None for a file that is not there).

    The inode tells a file replaced by a rename (as editors and :mod:`costmodel.files` save) from
    the same file; time and size tell an edit in place.

    Parameters
    ----------
    folder
        The folder of catalog CSV files.

    Returns
    -------
    tuple
        ``(folder, ((file name, (mtime [ns], size [B], inode) or None), ...))``, the files in the
        order of the catalog's tables.
    """
    folder = Path(folder).absolute()
    stamps = []
    for _, file, _, _ in _TABLE_FILES:
        try:
            stat = (folder / file).stat()
        except OSError:  # missing (an optional table) or unreadable: _read reports the latter
            stamps.append((file, None))
        else:
            stamps.append((file, (stat.st_mtime_ns, stat.st_size, stat.st_ino)))
    return str(folder), tuple(stamps)


def _cached(key: CachedKey, load: typing.Callable[[], Catalog]) -> Catalog:
    """The catalog kept under ``key``, else ``load()`` kept there (a load that raises keeps nothing)."""
    found = _LOADED.pop(key, None)
    if found is None:
        found = load()
    _LOADED[key] = found  # last: the most recently used
    while len(_LOADED) > CACHED_CATALOGS:
        del _LOADED[next(iter(_LOADED))]
    return found


def catalog_from(folder: str | Path | None) -> Catalog | None:
    """The catalog with a folder's rows added (:func:`load_catalog_overrides`), or None (the
    bundled one) for None or ``""``: what a report notebook's ``catalog`` parameter names.

    Raises
    ------
    CatalogError
        As :func:`load_catalog_overrides`.
    """
    return load_catalog_overrides(folder) if folder else None


def load_catalog_overrides(folder: str | Path, base: Catalog | None = None) -> Catalog:
    """The bundled catalog (or ``base``) with the rows of any catalog CSV files in ``folder``.

    ``folder`` may hold any of the bundled catalog's files (``servers.csv``, ``cloud_prices.csv``,
    ``api_prices.csv``, ``gpus.csv``, ..., ``api_price_windows.csv``, ``tax_depreciation.csv``),
    each with the bundled file's columns: its rows are added, and a row with an id the bundled
    catalog has replaces that row (a tax schedule given replaces that whole schedule).

    Added to the bundled catalog, a folder is read once while its files stay as they are (as
    :func:`load_catalog`: keyed on :func:`catalog_stamp`): a batch of many scenarios with one
    ``--catalog`` folder reads and checks it once.

    Raises
    ------
    CatalogError
        The folder does not exist or holds no catalog file, or a row breaks its schema.
    """
    folder = Path(folder)
    if not folder.is_dir():
        reason = "is a file: give the folder that holds catalog CSV files" if folder.exists() else "no such folder"
        raise CatalogError(folder, [("(folder)", str(folder), reason)])
    if base is not None:  # a caller's own base: no key can tell two of them apart
        return _load_overrides(folder, base)
    return _cached(("overrides", catalog_stamp(folder)), lambda: _load_overrides(folder, None))


def _load_overrides(folder: Path, base: Catalog | None) -> Catalog:
    """A folder's catalog rows read and added to ``base`` (:func:`load_catalog_overrides` without its cache)."""
    found = {
        name: _read(folder / file, row_type, key, origin=str(folder / file))
        for name, file, row_type, key in _TABLE_FILES
        if (folder / file).exists()
    }
    if not found:
        names = ", ".join(file for _, file, _, _ in _TABLE_FILES)
        raise CatalogError(folder, [("(folder)", str(folder), f"holds no catalog file (one of {names})")])
    return merged_catalog(found, base)

"""The catalogs in data/: GPUs, servers, cloud GPU prices and hosted API prices.

Each catalog is a CSV file with one row per item, and every row carries its source,
its as-of date and a quality grade:

``P``
    primary source (vendor datasheet, official price page, paper, filing);
``S``
    secondary source (a transcription of an official page, an aggregator, press);
``U``
    unsourced estimate, stated as such in the row's ``source`` column.

Adding a figure is adding a row. Rows are validated on load; a bad row raises
:class:`~costmodel.errors.CatalogError` naming the file, the row and the column.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import CatalogError, from_validation_error
from .paths import DATA_DIR

Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 currency code, e.g. USD.")]
Quality = Literal["P", "S", "U"]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    quality: Quality = Field(description="P primary, S secondary, U unsourced estimate.")
    as_of: str = Field(min_length=4, description="Date (or month, or year) the figure was true.")
    source: str = Field(min_length=1, description="Where the figure comes from.")
    notes: str = ""


class GPU(_Row):
    """One GPU model (one row of data/gpus.csv)."""

    gpu: str = Field(description="Catalog id, e.g. H100-SXM-80GB.")
    name: str
    memory_gb: float = Field(gt=0, description="Memory per GPU. [GB]")
    memory_bandwidth_tb_s: float = Field(gt=0, description="Memory bandwidth per GPU. [TB/s]")
    bf16_dense_tflops: float = Field(gt=0, description="Dense (not 2:4 sparse) BF16 peak. [TFLOP/s]")
    fp8_dense_tflops: float | None = Field(default=None, gt=0, description="Dense FP8 peak. [TFLOP/s]")
    tdp_w: float = Field(gt=0, description="Thermal design power per GPU. [W]")


class Server(_Row):
    """One GPU server model (one row of data/servers.csv)."""

    server: str = Field(description="Catalog id, e.g. dgx-h200.")
    gpu: str = Field(description="Catalog id of the GPU it holds.")
    gpus_per_server: int = Field(ge=1, description="GPUs in one server. [GPU]")
    price: float = Field(gt=0, description="Purchase price of one server. [currency]")
    currency: Currency
    max_power_kw: float = Field(gt=0, description="Maximum power drawn at the wall by one server. [kW]")


class CloudOffer(_Row):
    """One cloud GPU rental price (one row of data/cloud_prices.csv)."""

    offer: str = Field(description="Catalog id of the offer.")
    provider: str
    gpu: str = Field(description="Catalog id of the GPU rented.")
    pricing: Literal["on_demand"] = Field(description="Pricing model; reserved and spot come later.")
    price_per_gpu_hour: float = Field(gt=0, description="Price of one GPU for one hour. [currency/GPU-hour]")
    currency: Currency


class APIOffer(_Row):
    """One hosted LLM API price (one row of data/api_prices.csv)."""

    offer: str = Field(description="Catalog id of the offer.")
    provider: str
    model: str
    input_per_million: float = Field(ge=0, description="Price of input tokens. [currency/M tokens]")
    cached_input_per_million: float | None = Field(
        default=None, ge=0, description="Price of cached input tokens; empty means the input price. [currency/M tokens]"
    )
    output_per_million: float = Field(ge=0, description="Price of output tokens. [currency/M tokens]")
    currency: Currency


class Catalog(BaseModel):
    """All catalogs, keyed by id. Load with :func:`load_catalog`."""

    model_config = ConfigDict(frozen=True)

    gpus: dict[str, GPU]
    servers: dict[str, Server]
    cloud_offers: dict[str, CloudOffer]
    api_offers: dict[str, APIOffer]


def _read(path: Path, row_type: type[_Row], key: str) -> dict:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
    except OSError as exc:
        raise CatalogError(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None
    items: dict[str, _Row] = {}
    problems = []
    for number, raw in enumerate(rows, start=2):  # line 1 is the header
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
        items[ident] = item
    if problems:
        raise CatalogError(path, problems)
    return items


def load_catalog(data_dir: str | Path | None = None) -> Catalog:
    """Load and cross-check the four catalogs.

    Parameters
    ----------
    data_dir
        Folder holding gpus.csv, servers.csv, cloud_prices.csv and api_prices.csv.
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
    gpus = _read(folder / "gpus.csv", GPU, "gpu")
    servers = _read(folder / "servers.csv", Server, "server")
    cloud = _read(folder / "cloud_prices.csv", CloudOffer, "offer")
    api = _read(folder / "api_prices.csv", APIOffer, "offer")
    for path, table in ((folder / "servers.csv", servers), (folder / "cloud_prices.csv", cloud)):
        unknown = [(f"id {ident}, column gpu", row.gpu, "unknown GPU (not in gpus.csv)")
                   for ident, row in table.items() if row.gpu not in gpus]
        if unknown:
            raise CatalogError(path, unknown)
    return Catalog(gpus=gpus, servers=servers, cloud_offers=cloud, api_offers=api)


@functools.cache
def default_catalog() -> Catalog:
    """The bundled catalog, loaded once per process."""
    return load_catalog()

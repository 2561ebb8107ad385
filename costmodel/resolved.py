"""Resolve once: a validated scenario plus the catalog become plain numbers the domain computes with.

:func:`resolve` looks up every catalog row, converts every money figure into the reporting
currency once, reads the demand files a scenario names, and computes every derived size once
(GPUs per replica, serving throughput, the own fleet's step, GPU-hours per unit of volume).
The result, :class:`Resolved`, holds numbers; the domain's cost functions take it and a
volume. Nothing derived is stored on the input models.

Uncertainty analysis resolves with ``values``: input paths mapped to numbers or numpy arrays
of samples. Every formula broadcasts, so N samples are one resolved scenario and one call,
not a loop. Inputs that set a whole count (servers, GPUs rented, replica memory) cannot be
arrays and are refused up front by the schema.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from . import formulas
from .api_options import ApiOption, api_option
from .catalog import Catalog, CloudOffer, Server
from .demand_inputs import DemandInputs, demand_inputs, sized_for_the_busiest_hour
from .errors import ScenarioError
from .schema import Scenario
from .schema.inputs import CATALOG_INPUTS, THROUGHPUT_INPUT, input_paths
from .schema.options import OPTION_LABELS
from .serving_target import (
    OperatingPoint,
    ServingCapacity,
    ServingPlan,
)
from .sizing import WorkloadInputs, workload_inputs
from .training_inputs import (
    GoodputInputs,
    StageInputs,
    TrainingInputs,
    checkpoint_interval,
    checkpoint_intervals,
    duration_hours,
)

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""


# --- resolved inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Staff:
    """People who run an option: FTE = minimum + GPUs / GPUs per FTE, in the reporting currency.

    Attributes
    ----------
    minimum_fte
        FTEs however small the fleet (a fixed staff: all of it). [FTE]
    gpus_per_fte
        GPUs one more FTE runs; infinity for a fixed staff. [GPU/FTE]
    loaded_cost_per_fte_per_year
        [reporting currency/FTE/year]
    managed_service_per_month
        [reporting currency/month]
    """

    minimum_fte: Number
    gpus_per_fte: Number
    loaded_cost_per_fte_per_year: Number
    managed_service_per_month: Number


@dataclass(frozen=True)
class CapexItem:
    """One bill-of-materials line: priced per server, as a share of server capex, or as a total.

    ``value`` is [reporting currency/server], [-] or [reporting currency] by ``basis``;
    ``life_months`` the line's own useful life [months] (None: the servers' depreciation
    period; infinite for land), ``asset_class`` as stated (None when not).
    """

    item: str
    basis: Literal["per_server", "share_of_server_price", "total"]
    value: Number
    asset_class: str | None = None
    life_months: float | None = None


@dataclass(frozen=True)
class OwnOption:
    """The own cluster, resolved. Money in the reporting currency.

    Attributes
    ----------
    server
        The catalog row of the server.
    gpus_per_server, server_count, configured_gpus
        [GPU], [servers], [GPU].
    step_gpus
        GPUs added at a time: whole servers holding whole replicas. [GPU]
    server_price
        [reporting currency/server]
    electricity_price_per_kwh
        Price of the idle draw: the flat price, or with a time-of-use tariff its mean over the
        hours of the year. [reporting currency/kWh]
    busy_electricity_price_per_kwh
        Price of the draw above idle: the flat price, or with a tariff its mean weighted by the
        demand profile's hours (the GPUs draw more when the work runs). None: the flat price.
        [reporting currency/kWh]
    colocation_price_per_kw_month, facility_price_per_mw
        One of them is None. [reporting currency/kW/month], [reporting currency/MW]
    licence_price_per_gpu_per_year
        None without licences. [reporting currency/GPU/year]
    cost_of_capital_per_year
        With it, capex is annualised by the capital-recovery factor of each line's life; None:
        straight-line depreciation. [1/year]
    provider_price_per_gpu_hour_sold, provider_utilisation_sold
        The provider view's price of a sold GPU-hour and share of the working GPUs' hours sold;
        None without a provider block. [reporting currency/GPU-h], [-]
    """

    name: str
    label: str
    server: Server
    gpus_per_server: int
    server_count: int
    configured_gpus: int
    step_gpus: int
    server_price: Number
    spare_share: Number
    bill_of_materials: tuple[CapexItem, ...]
    depreciation_months: Number
    hardware_support_share_per_year: Number
    kw_per_server: Number
    idle_power_share: Number
    pue: Number
    electricity_price_per_kwh: Number
    colocation_price_per_kw_month: Number | None
    facility_price_per_mw: Number | None
    facility_depreciation_months: Number | None
    staffing: Staff
    licence_price_per_gpu_per_year: Number | None
    kind: str = "own"
    busy_electricity_price_per_kwh: Number | None = None
    tariff_prices: np.ndarray | None = None
    """With a time-of-use tariff: the price of each hour of the demand profile's year. [reporting currency/kWh]"""
    cost_of_capital_per_year: Number | None = None
    provider_price_per_gpu_hour_sold: Number | None = None
    provider_utilisation_sold: Number | None = None

    @property
    def per_line_lives(self) -> bool:
        """True when a bill-of-materials line has its own life or is land (the depreciation is then by line)."""
        return any(line.life_months is not None for line in self.bill_of_materials)


@dataclass(frozen=True)
class ReservedTerms:
    """Reserved rental capacity: paid every hour of the term. [reporting currency/GPU-h]"""

    term_years: int
    price_per_gpu_hour: Number
    source: str


@dataclass(frozen=True)
class SpotTerms:
    """Spot capacity: price per busy GPU-hour with the work redone included, and an optional cap.

    Attributes
    ----------
    discount
        Off on-demand. [-]
    overhead
        Share of work redone after interruptions (interruptions × work lost), below 1. [-]
    price_per_gpu_hour
        On-demand × (1 − discount) / (1 − overhead). [reporting currency/GPU-h]
    max_gpus
        Most spot GPUs at once; None: no limit. [GPU]
    """

    discount: Number
    overhead: Number
    price_per_gpu_hour: Number
    max_gpus: int | None
    source: str


@dataclass(frozen=True)
class RentOption:
    """Cloud rental, resolved. ``price_per_gpu_hour`` is on-demand, [reporting currency/GPU-h]."""

    name: str
    label: str
    offer: CloudOffer
    billing: str
    gpu_count: int | None
    price_per_gpu_hour: Number
    staffing: Staff | None
    reserved: ReservedTerms | None
    spot: SpotTerms | None
    kind: str = "rent"


Option = OwnOption | RentOption | ApiOption


@dataclass(frozen=True)
class Resolved:
    """A scenario resolved against its catalog: every input a number (or an array of samples).

    Attributes
    ----------
    scenario
        The validated input it came from (for titles, sources and re-resolving).
    catalog
        The catalog it was resolved against.
    options
        Option name → resolved option, in display order.
    workload
        The workload.
    finance, uncertainty
        The scenario's blocks (plain numbers; no currency to convert), or None.
    demand
        The demand profile, files read, or None.
    estimates
        Catalog rows behind the result that are unsourced estimates (grade U), cited.
    values
        The inputs replaced by numbers or samples, by path (empty for the scenario as given).
    cited
        The catalog rows whose prices the options use (servers, rental and API offers), for
        their sources and ages.
    """

    scenario: Scenario
    catalog: Catalog
    currency: str
    options: dict[str, Option]
    workload: WorkloadInputs
    finance: Any
    uncertainty: Any
    demand: DemandInputs | None
    estimates: tuple[str, ...]
    values: Mapping[str, Any] = field(default_factory=dict)
    cited: tuple[Any, ...] = ()

    def __repr__(self) -> str:
        """The scenario, its volume and options in one line (the catalog it holds is large)."""
        sampled = f", {len(self.values)} sampled inputs" if self.values else ""
        volume = self.volume
        shown = f"{float(volume):,.0f}" if np.ndim(volume) == 0 and np.isfinite(volume) else "sampled"
        return (
            f"<Resolved {self.title!r}: {self.workload.kind} workload at {shown} {self.volume_unit}; options "
            f"{', '.join(self.options)}; {self.currency}{sampled}>"
        )

    @property
    def title(self) -> str:
        """The scenario's title."""
        return self.scenario.title

    @property
    def volume(self) -> Number:
        """The workload's volume in its own unit."""
        return self.workload.volume

    @property
    def volume_unit(self) -> str:
        """Unit of :attr:`volume`."""
        return self.workload.volume_unit

    def at_volume(self, volume: Number) -> Resolved:
        """The same scenario at another volume (a demand profile keeps its shape, scaled to it)."""
        return dataclasses.replace(self, workload=dataclasses.replace(self.workload, volume=volume))

    def option(self, name: str) -> Option:
        """The option called ``name``.

        Raises
        ------
        ValueError
            The scenario has no such option.
        """
        if name not in self.options:
            raise ValueError(f"the scenario has no {name!r} option; it has {', '.join(self.options)}")
        return self.options[name]

    def label(self, name: str) -> str:
        """Display name of an option."""
        return self.options[name].label if name in self.options else OPTION_LABELS.get(name, name)


# --- resolving ------------------------------------------------------------------------------------------


def _problem(loc: str, value: Any, reason: str) -> ScenarioError:
    return ScenarioError(None, [(loc, value, reason)])


def _apply(node: Any, parts: tuple[str, ...], value: Any) -> Any:
    """A copy of ``node`` with the field at ``parts`` replaced (no validation: values may be arrays)."""
    head, rest = parts[0], parts[1:]
    if isinstance(node, list):
        copy = list(node)
        copy[int(head)] = _apply(node[int(head)], rest, value) if rest else value
        return copy
    if isinstance(node, dict):
        copy = dict(node)
        copy[head] = _apply(node[head], rest, value) if rest else value
        return copy
    child = getattr(node, head)
    new = _apply(child, rest, value) if rest else value
    if dataclasses.is_dataclass(node):
        return dataclasses.replace(node, **{head: new})
    return node.model_copy(update={head: new})


def _row(catalog_row: BaseModel, column: str, path: str, values: Mapping[str, Any]) -> BaseModel:
    return catalog_row.model_copy(update={column: values[path]}) if path in values else catalog_row


def _staff(staffing, fx) -> Staff:
    if staffing.fte is not None:
        minimum, per = staffing.fte, np.inf
    else:
        minimum, per = staffing.minimum_fte, staffing.gpus_per_fte
    rate = fx(staffing.currency)
    return Staff(minimum, per, staffing.loaded_cost_per_fte_per_year * rate, staffing.managed_service_per_month * rate)


def _with_tariff(own: OwnOption, tariff: Any, demand: DemandInputs, rate: float) -> OwnOption:
    """The own option priced at a time-of-use tariff: idle draw at its yearly mean, the rest as the demand runs.

    Hour 0 is midnight of 1 January of the profile's year (a job log's), else a Monday.
    """
    import datetime as dt

    year = getattr(demand.profile, "year", None)
    first = dt.date(year, 1, 1).weekday() if year is not None else 0
    prices = formulas.weekly_hour_prices(
        np.asarray(tariff.weekday_prices_per_kwh, dtype=float) * rate,
        np.asarray(tariff.weekend_prices_per_kwh, dtype=float) * rate,
        demand.hours,
        first,
    )
    shape = demand.shape
    busy = float((shape * prices).sum() / shape.sum()) if shape.sum() > 0 else float(prices.mean())
    return dataclasses.replace(
        own, electricity_price_per_kwh=float(prices.mean()), busy_electricity_price_per_kwh=busy, tariff_prices=prices
    )


def _estimates(rows: list[BaseModel]) -> tuple[str, ...]:
    return tuple(f"{row.source_file}: {row.ident}: {row.source}" for row in rows if row.quality == "U")


_KNOWN_PATHS: dict[tuple[int, int], tuple[Any, Any, frozenset[str]]] = {}


def _known_paths(scenario: Scenario, catalog: Catalog) -> frozenset[str]:
    """The scenario's numeric input paths, remembered for the last few (scenario, catalog) pairs.

    A sweep, a claim's search or a what-if panel resolves the same validated scenario with new
    values thousands of times; walking its model for the paths each time cost about 1 ms.
    The entry keeps both objects, so an id is not reused while it is remembered.
    """
    key = (id(scenario), id(catalog))
    hit = _KNOWN_PATHS.get(key)
    if hit is not None and hit[0] is scenario and hit[1] is catalog:
        return hit[2]
    paths = frozenset(input_paths(scenario, catalog))
    if len(_KNOWN_PATHS) >= 16:
        _KNOWN_PATHS.pop(next(iter(_KNOWN_PATHS)))
    _KNOWN_PATHS[key] = (scenario, catalog, paths)
    return paths


def resolve(
    scenario: Scenario | Resolved, catalog: Catalog | None = None, values: Mapping[str, Any] | None = None
) -> Resolved:
    """Resolve a validated scenario against its catalog, once.

    Parameters
    ----------
    scenario
        A validated :class:`~costmodel.schema.Scenario` (a :class:`Resolved` is returned as
        it is when no ``values`` are given, or re-resolved from its scenario with them).
    catalog
        Catalog to look rows up in; default the one the scenario was validated against.
    values
        Input path → number or numpy array replacing the input (see
        :mod:`costmodel.schema.inputs` for the names). Arrays of different inputs must
        broadcast together. Values are not validated again: callers keep them in range.

    Returns
    -------
    Resolved

    Raises
    ------
    ScenarioError
        A rule that needs a computation is broken (the model does not fit a server's memory,
        no throughput row and no estimate, the training state does not fit, a demand file
        cannot be read or disagrees with the workload); the field is named.
    KeyError
        A path in ``values`` that is not a numeric input of the scenario.
    TypeError
        ``scenario`` is neither (a name or a path: load it first with
        :func:`costmodel.load_scenario`; scenario data: :func:`costmodel.validate_data`).
    """
    if not isinstance(scenario, (Scenario, Resolved)):
        hint = ""
        if isinstance(scenario, (str, Path)):
            hint = " (a name or a path: costmodel.load_scenario(it) makes a Scenario of it)"
        elif isinstance(scenario, dict):
            hint = " (scenario data: costmodel.validate_data(it) makes a Scenario of it)"
        raise TypeError(f"resolve takes a Scenario or a Resolved, not {type(scenario).__name__}{hint}")
    previous = None
    if isinstance(scenario, Resolved):
        if not values:
            return scenario
        catalog = catalog or scenario.catalog
        values = {**scenario.values, **values}
        previous = scenario.demand if not any(p.startswith("demand.") for p in values) else None
        scenario = scenario.scenario
    catalog = catalog or scenario.catalog
    values = dict(values or {})
    if scenario.overrides is not None:  # catalog figures the scenario replaces; given values win
        values = {**scenario.overrides.values, **values}
    if values:
        known = _known_paths(scenario, catalog)
        for path in values:
            if path not in known:
                raise KeyError(f"{path}: not a numeric input of this scenario")
        for path, value in values.items():
            if path not in CATALOG_INPUTS and path != THROUGHPUT_INPUT:
                scenario = _apply(scenario, tuple(path.split(".")), value)

    def fx(currency: str) -> Number:
        if currency == scenario.reporting_currency:
            return 1.0
        return scenario.fx.rates[currency]

    work = scenario.workload
    cited: list[BaseModel] = []
    workload = workload_inputs(scenario, catalog, values)

    options: dict[str, Option] = {}
    demand = demand_inputs(scenario, workload, previous)
    if demand is not None and workload.kind != "training":
        workload = sized_for_the_busiest_hour(workload, demand)
    own = scenario.options.own
    if own is not None:
        server = _row(catalog.servers[own.server], "price", "options.own.server_price", values)
        server = _row(server, "max_power_kw", "options.own.server_max_power_kw", values)
        cited.append(server)
        items = []
        for line in own.bill_of_materials:
            life = (
                float("inf")
                if line.asset_class == "land"
                else None
                if line.useful_life_years is None
                else line.useful_life_years * 12
            )
            if line.share_of_server_price is not None:
                items.append(
                    CapexItem(line.item, "share_of_server_price", line.share_of_server_price, line.asset_class, life)
                )
            elif line.price_per_server is not None:
                items.append(
                    CapexItem(
                        line.item, "per_server", line.price_per_server * fx(line.currency), line.asset_class, life
                    )
                )
            else:
                items.append(
                    CapexItem(line.item, "total", line.price_total * fx(line.currency), line.asset_class, life)
                )
        provider = own.provider
        colocation = own.colocation
        facility = own.facility
        licences = own.software_licences
        options["own"] = OwnOption(
            name="own",
            label=own.label or OPTION_LABELS["own"],
            server=server,
            gpus_per_server=server.gpus_per_server,
            server_count=own.server_count,
            configured_gpus=own.server_count * server.gpus_per_server,
            step_gpus=formulas.gpus_per_server_step(server.gpus_per_server, workload.gpus_per_replica),
            server_price=server.price * fx(server.currency),
            spare_share=own.spare_share,
            bill_of_materials=tuple(items),
            depreciation_months=own.depreciation_months,
            hardware_support_share_per_year=own.hardware_support_share_per_year,
            kw_per_server=own.power.kw_per_server if own.power.kw_per_server is not None else server.max_power_kw,
            idle_power_share=own.power.idle_power_share,
            pue=own.power.pue,
            electricity_price_per_kwh=own.power.electricity_price_per_kwh * fx(own.power.currency),
            colocation_price_per_kw_month=(
                colocation.price_per_kw_month * fx(colocation.currency) if colocation is not None else None
            ),
            facility_price_per_mw=facility.price_per_mw * fx(facility.currency) if facility is not None else None,
            facility_depreciation_months=facility.depreciation_months if facility is not None else None,
            staffing=_staff(own.staffing, fx),
            licence_price_per_gpu_per_year=(
                licences.price_per_gpu_per_year * fx(licences.currency) if licences is not None else None
            ),
            cost_of_capital_per_year=own.cost_of_capital_per_year,
            provider_price_per_gpu_hour_sold=(
                provider.price_per_gpu_hour_sold * fx(provider.currency) if provider is not None else None
            ),
            provider_utilisation_sold=provider.utilisation_sold if provider is not None else None,
        )
        tariff = scenario.energy.tariff if scenario.energy is not None else None
        if tariff is not None and demand is not None:
            options["own"] = _with_tariff(options["own"], tariff, demand, fx(tariff.currency))
    rent = scenario.options.rent
    if rent is not None:
        offer = _row(catalog.cloud_offers[rent.offer], "price_per_gpu_hour", "options.rent.price_per_gpu_hour", values)
        cited.append(offer)
        on_demand = offer.price_per_gpu_hour * fx(offer.currency)
        reserved = spot = None
        if rent.reserved is not None:
            r = rent.reserved
            price = (
                r.price_per_gpu_hour * fx(r.currency)
                if r.price_per_gpu_hour is not None
                else on_demand * (1.0 - r.discount)
            )
            reserved = ReservedTerms(r.term_years, price, r.source)
        if rent.spot is not None:
            s = rent.spot
            overhead = s.interruptions_per_gpu_hour * s.work_lost_hours_per_interruption
            discount = s.discount
            if isinstance(discount, str):  # "catalog": the offer's own spot price, as a discount
                listed = catalog.cloud_offers[rent.offer]
                if listed.spot_price_per_gpu_hour is None:
                    raise _problem(
                        "options.rent.spot.discount",
                        discount,
                        f"{rent.offer} has no spot price in data/cloud_prices.csv "
                        "(spot_price_per_gpu_hour is empty); give the discount",
                    )
                discount = 1.0 - listed.spot_price_per_gpu_hour / listed.price_per_gpu_hour
            spot = SpotTerms(discount, overhead, on_demand * (1.0 - discount) / (1.0 - overhead), s.max_gpus, s.source)
        options["rent"] = _rent_option("rent", rent, offer, on_demand, workload, fx, reserved=reserved, spot=spot)
    for index, extra in enumerate(scenario.options.rents):  # further rental offers, on demand
        offer = catalog.cloud_offers[extra.offer]
        cited.append(offer)
        options[f"rent:{extra.name}"] = _rent_option(
            f"rent:{extra.name}", extra, offer, offer.price_per_gpu_hour * fx(offer.currency), workload, fx, index=index
        )
    api = scenario.options.api
    if api is not None:
        offer = catalog.api_offers[api.offer]
        for path, spec in CATALOG_INPUTS.items():
            if spec.option == "api" and path in values:
                offer = offer.model_copy(update={spec.column: values[path]})
        cited.append(offer)
        options["api"] = api_option("api", api, offer, work, workload, fx, catalog=catalog, demand=demand)
    for index, extra in enumerate(scenario.options.apis):
        offer = catalog.api_offers[extra.offer]
        cited.append(offer)
        options[f"api:{extra.name}"] = api_option(
            f"api:{extra.name}", extra, offer, work, workload, fx, index, catalog, demand
        )
    return Resolved(
        scenario=scenario,
        catalog=catalog,
        currency=scenario.reporting_currency,
        options=options,
        workload=workload,
        finance=scenario.finance,
        uncertainty=scenario.uncertainty,
        demand=demand,
        estimates=_estimates(cited),
        values=values,
        cited=tuple(cited),
    )


def _rent_option(
    name: str,
    rent: Any,
    offer: CloudOffer,
    on_demand: Any,
    workload: WorkloadInputs,
    fx: Any,
    reserved: ReservedTerms | None = None,
    spot: SpotTerms | None = None,
    index: int | None = None,
) -> RentOption:
    """A rent option: the main one (``options.rent``) or one of ``options.rents`` (``index``), on demand."""
    where = "options.rent" if index is None else f"options.rents.{index}"
    if rent.billing == "always_on" and rent.gpu_count % workload.gpus_per_replica:
        raise _problem(
            f"{where}.gpu_count",
            rent.gpu_count,
            f"not whole replicas: one replica of the served model takes {workload.gpus_per_replica} "
            f"GPUs, so rent a multiple of {workload.gpus_per_replica}",
        )
    return RentOption(
        name=name,
        label=rent.label or OPTION_LABELS["rent"],
        offer=offer,
        billing=rent.billing,
        gpu_count=rent.gpu_count,
        price_per_gpu_hour=on_demand,
        staffing=_staff(rent.staffing, fx) if rent.staffing is not None else None,
        reserved=reserved,
        spot=spot,
    )


def as_resolved(scenario: Scenario | Resolved) -> Resolved:
    """``scenario`` resolved (a :class:`Resolved` is returned as it is)."""
    return scenario if isinstance(scenario, Resolved) else resolve(scenario)


__all__ = [
    "OPTION_LABELS",
    "ApiOption",
    "CapexItem",
    "DemandInputs",
    "GoodputInputs",
    "OwnOption",
    "RentOption",
    "OperatingPoint",
    "Resolved",
    "ServingCapacity",
    "ServingPlan",
    "Staff",
    "StageInputs",
    "TrainingInputs",
    "WorkloadInputs",
    "as_resolved",
    "checkpoint_interval",
    "checkpoint_intervals",
    "duration_hours",
    "resolve",
]

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
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from . import formulas
from .catalog import APIOffer, Catalog, CloudOffer, Server
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


@dataclass(frozen=True)
class ApiOption:
    """A hosted API, resolved: prices [reporting currency/M tokens] and the blended price of the mix."""

    name: str
    label: str
    offer: APIOffer
    input_price_per_million: Number
    cached_input_price_per_million: Number
    output_price_per_million: Number
    cached_input_share: Number
    price_per_million: Number
    kind: str = "api"
    service_tier: str = "standard"
    tier_multiplier: Number = 1.0
    cache_write_share: Number = 0.0
    cache_write_price_per_million: Number | None = None
    reasoning_tokens_per_output_token: Number = 0.0
    region_uplift: Number = 1.0
    tokens_per_workload_token: Number = 1.0
    long_context: bool = False
    price_parts: dict[str, Number] | None = None
    """:func:`costmodel.formulas.api_price_parts`: input, cache_read, cache_write, output [currency/M tokens]."""
    hour_price_factors: np.ndarray | None = None
    """Factor on the prices in each hour of the demand profile (or of a week from Monday 00:00 UTC without
    one), from the offer's price windows; None: the same price at every hour. [-]"""
    price_windows: tuple = ()
    """The price-window rows applied (data/api_price_windows.csv)."""
    hour_part_factors: dict[str, np.ndarray] | None = None
    """Factor on each price part (``price_parts``' keys) in each hour, where windows apply to some token
    classes only; None: no price windows. [-]"""


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
        options["api"] = _api_option("api", api, offer, work, workload, fx, catalog=catalog, demand=demand)
    for index, extra in enumerate(scenario.options.apis):
        offer = catalog.api_offers[extra.offer]
        cited.append(offer)
        options[f"api:{extra.name}"] = _api_option(
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


def _offer_on(
    offer: APIOffer, catalog: Catalog | None, price_date: Any, where: str = "options.api"
) -> tuple[APIOffer, str | None]:
    """The offer's prices on the bill's date: its row, or its latest change (data/api_price_history.csv)
    effective on that date (the latest of all without a date); and the date the prices are from.

    Raises
    ------
    ScenarioError
        The bill's date is before every price the catalog holds for the offer.
    """
    changes = [c for c in (catalog.api_price_history.values() if catalog is not None else ()) if c.offer == offer.offer]
    day = price_date.isoformat() if price_date is not None else None
    candidates = [(offer.effective_from or "0000-00-00", None)] + [
        (c.effective_from or "0000-00-00", c) for c in changes
    ]
    in_force = [item for item in candidates if day is None or item[0] <= day]
    if not in_force:
        first = min(item[0] for item in candidates)
        raise _problem(
            f"{where}.price_date",
            day,
            f"before {first}, the first day the catalog holds a price for "
            f"{offer.offer} (effective_from): no price is known for that day",
        )
    if not changes:
        return offer, offer.effective_from
    when, change = max(in_force, key=lambda item: item[0])
    if change is None:
        return offer, offer.effective_from
    update = {name: getattr(change, name) for name in change.PRICES if getattr(change, name) is not None}
    return offer.model_copy(update=update), when


def _tier_prices(offer: APIOffer, catalog: Catalog | None, rate: Number) -> dict[str, list] | None:
    """The offer's prompt-size tiers (data/api_price_tiers.csv) by token class, in the reporting currency."""
    tiers: dict[str, list] = {}
    for row in catalog.api_price_tiers.values() if catalog is not None else ():
        if row.offer == offer.offer:
            tiers.setdefault(row.token_class, []).append((row.above_input_tokens, row.price_per_million * rate))
    return tiers or None


def _api_option(
    name: str,
    api: Any,
    offer: APIOffer,
    work: Any,
    workload: WorkloadInputs,
    fx: Any,
    index: int | None = None,
    catalog: Catalog | None = None,
    demand: Any = None,
) -> ApiOption:
    """The API option with its billing words applied once, by :func:`costmodel.formulas.api_price_parts`."""
    where = "options.api" if index is None else f"options.apis.{index}"
    rate = fx(offer.currency)
    offer, _ = _offer_on(offer, catalog, api.price_date, where)
    cached = offer.cached_input_per_million if offer.cached_input_per_million is not None else offer.input_per_million
    output = offer.output_per_million * rate if offer.output_per_million is not None else None
    if output is None and not workload.input_only:
        raise _problem(
            f"{where}.offer",
            offer.offer,
            f"{offer.offer} is an input-only offer (no output price, as "
            "for embeddings): it prices a workload without output tokens "
            "(workload.input_only: true)",
        )
    prices = (offer.input_per_million * rate, cached * rate, output)
    shares = api.tier_shares or {api.service_tier: 1.0}
    factors = {}
    for name_of_tier in shares:
        factors[name_of_tier] = 1.0 if name_of_tier == "standard" else getattr(offer, f"{name_of_tier}_multiplier")
        if factors[name_of_tier] is None:
            field = "tier_shares" if api.tier_shares else "service_tier"
            raise _problem(
                f"{where}.{field}",
                name_of_tier,
                f"{offer.offer} has no {name_of_tier} tier in data/api_prices.csv ({name_of_tier}_multiplier is empty)",
            )
    tier = sum(share * factors[t] for t, share in shares.items())
    writes = (
        dict(api.cache_write_shares) if api.cache_write_shares is not None else {api.cache_ttl: api.cache_write_share}
    )
    write_prices: dict[str, Any] = {}
    for ttl, written in writes.items():
        if np.any(np.asarray(written) > 0):  # an array of shares in a sweep
            column = f"cache_write_{ttl}_per_million"
            price = getattr(offer, column)
            if price is None:
                field = "cache_write_shares" if api.cache_write_shares is not None else "cache_ttl"
                raise _problem(
                    f"{where}.{field}",
                    ttl,
                    f"{offer.offer} has no cache-write price for a {ttl} time-to-live in "
                    f"data/api_prices.csv ({column} is empty)",
                )
            write_prices[ttl] = price * rate
    write = write_prices.get("5m", write_prices.get("1h"))  # the 5-minute price when both are written
    uplift = api.region_uplift
    if isinstance(uplift, str) and uplift == "catalog":
        if offer.region_uplift is None:
            raise _problem(
                f"{where}.region_uplift",
                uplift,
                f"{offer.offer} states no region uplift in data/api_prices.csv; give the factor",
            )
        uplift = offer.region_uplift
    per_request = work.input_tokens_per_request
    if per_request is None and work.serving is not None and work.serving.request is not None:
        per_request = work.serving.request.input_tokens
    long_context: dict[str, Any] = {}
    is_long = False
    tiers = _tier_prices(offer, catalog, rate)
    if (offer.long_context_threshold_tokens is not None or tiers) and per_request is not None:
        if tiers:
            long_context = dict(input_tokens_per_request=per_request, context_tiers=tiers)
            lowest = min(t for class_tiers in tiers.values() for t, _ in class_tiers)
        else:
            lowest = offer.long_context_threshold_tokens
            long_context = dict(
                input_tokens_per_request=per_request,
                long_context_threshold=lowest,
                long_context_input_price=offer.long_context_input_per_million * rate,
                long_context_output_price=offer.long_context_output_per_million * rate,
            )
        is_long = bool(np.any(np.asarray(api.tokens_per_workload_token * per_request) > lowest))
        until = offer.long_context_until
        if is_long and until is not None and (api.price_date is None or api.price_date.isoformat() > until):
            raise _problem(
                f"{where}.price_date",
                api.price_date.isoformat() if api.price_date else None,
                f"{offer.offer}'s long-context tier (requests above {lowest:,} input tokens) was retired "
                f"after {until}: the provider no longer takes such requests; give price_date on or "
                f"before {until} to price an earlier bill, keep requests at or below {lowest:,} input "
                f"tokens, or choose another offer",
            )
    words = _api_words(api, offer, where, rate, write_prices, per_request)
    parts: dict[str, Any] = {}
    standard_parts: dict[str, Any] = {}
    for name_of_tier, share in shares.items():  # a blend of tiers by share of traffic
        factor = factors[name_of_tier]
        common = dict(
            cache_write_price=write,
            cache_write_share=writes.get("5m", 0.0) if len(write_prices) > 1 else sum(writes.values()),
            tier_multiplier=factor,
            cache_tier_multiplier=factor if offer.tier_applies_to_cache else 1.0,
            reasoning_tokens_per_output_token=api.reasoning_tokens_per_output_token,
            region_uplift=uplift,
            tokens_per_workload_token=api.tokens_per_workload_token,
            **words,
        )
        if len(write_prices) > 1:
            common.update(cache_write_1h_price=write_prices["1h"], cache_write_1h_share=writes["1h"])
        ratio = workload.input_tokens_per_output_token
        # one input_tokens_per_request when both a fee (``words``) and a prompt-size tier need it
        tier_parts = formulas.api_price_parts(
            prices[0], prices[2], ratio, prices[1], api.cached_input_share, **{**common, **long_context}
        )
        parts = {k: parts.get(k, 0.0) + share * v for k, v in tier_parts.items()}
        if is_long:
            plain = formulas.api_price_parts(
                prices[0],
                prices[2],
                ratio,
                prices[1],
                api.cached_input_share,
                **{**common, "input_tokens_per_request": per_request or 0.0},
            )
            standard_parts = {k: standard_parts.get(k, 0.0) + share * v for k, v in plain.items()}
    price = sum(parts.values())
    windows = _windows_in_force(catalog, offer.offer, api.price_date)
    hour_factors = part_factors = None
    if windows:
        part_factors = _hour_part_factors(windows, demand, parts, standard_parts if is_long else None)
        weights = {k: float(np.mean(np.asarray(v, dtype=float))) for k, v in parts.items()}
        total = sum(weights.values())
        hour_factors = (
            sum(weights[k] * part_factors[k] for k in weights) / total
            if total > 0
            else next(iter(part_factors.values()))
        )
    return ApiOption(
        name=name,
        label=api.label or OPTION_LABELS["api"],
        offer=offer,
        input_price_per_million=prices[0],
        cached_input_price_per_million=prices[1],
        output_price_per_million=prices[2] if prices[2] is not None else 0.0,
        cached_input_share=api.cached_input_share,
        price_per_million=price,
        service_tier=api.service_tier,
        tier_multiplier=tier,
        cache_write_share=sum(writes.values()),
        cache_write_price_per_million=write,
        reasoning_tokens_per_output_token=api.reasoning_tokens_per_output_token,
        region_uplift=uplift,
        tokens_per_workload_token=api.tokens_per_workload_token,
        long_context=is_long,
        price_parts=parts,
        hour_price_factors=hour_factors,
        price_windows=windows,
        hour_part_factors=part_factors,
    )


def _api_words(api: Any, offer: APIOffer, where: str, rate: Number, write_prices: dict, per_request: Any) -> dict:
    """The further billing words of :func:`costmodel.formulas.api_price_parts` an offer and option give: a
    separate reasoning price, modality prices, per-request and per-search fees."""
    words: dict[str, Any] = {}
    if offer.reasoning_per_million is not None:
        words["reasoning_price"] = offer.reasoning_per_million * rate
    for share, column, word in (
        ("audio_input_share", "input_audio_per_million", "audio_input_price"),
        ("image_input_share", "input_image_per_million", "image_input_price"),
        ("audio_output_share", "output_audio_per_million", "audio_output_price"),
    ):
        value = getattr(api, share)
        if np.any(np.asarray(value) > 0):
            if getattr(offer, column) is None:
                raise _problem(
                    f"{where}.{share}",
                    value,
                    f"{offer.offer} has no price for these tokens in data/api_prices.csv ({column} is empty)",
                )
            words[share] = value
            words[word] = getattr(offer, column) * rate
    if "audio_input_price" in words and offer.cached_audio_input_per_million is not None:
        words["cached_audio_input_price"] = offer.cached_audio_input_per_million * rate
    if "image_input_price" in words and offer.cached_image_input_per_million is not None:
        words["cached_image_input_price"] = offer.cached_image_input_per_million * rate
    if np.any(np.asarray(api.searches_per_request) > 0) and offer.web_search_per_thousand is None:
        raise _problem(
            f"{where}.searches_per_request",
            api.searches_per_request,
            f"{offer.offer} has no web-search price in data/api_prices.csv (web_search_per_thousand is empty)",
        )
    citations = np.any(np.asarray(api.citation_tokens_per_request) > 0)
    if citations and offer.citation_per_million is None:
        raise _problem(
            f"{where}.citation_tokens_per_request",
            api.citation_tokens_per_request,
            f"{offer.offer} has no citation-token price in data/api_prices.csv (citation_per_million is empty)",
        )
    fees = offer.per_thousand_requests is not None or np.any(np.asarray(api.searches_per_request) > 0) or citations
    if fees and per_request is None:
        raise _problem(
            "workload.input_tokens_per_request",
            None,
            f"{offer.offer} bills per request or per search: give the input tokens of one request "
            f"(workload.input_tokens_per_request) so requests can be counted",
        )
    if offer.per_thousand_requests is not None:
        words["request_fee"] = offer.per_thousand_requests / 1000.0 * rate
    if np.any(np.asarray(api.searches_per_request) > 0):
        words.update(
            searches_per_request=api.searches_per_request, search_fee=offer.web_search_per_thousand / 1000.0 * rate
        )
    if citations:
        words.update(
            citation_tokens_per_request=api.citation_tokens_per_request,
            citation_price=offer.citation_per_million * rate,
        )
    if words.get("request_fee") or "search_fee" in words or citations:
        words["input_tokens_per_request"] = per_request
    return words


def _windows_in_force(catalog: Catalog | None, offer: str, price_date: Any) -> tuple:
    """An offer's price windows on the bill's date: those of its latest effective date on or before it
    (the latest of all without a date), in file order; a later schedule replaces an earlier one whole."""
    rows = [w for w in (catalog.api_price_windows.values() if catalog is not None else ()) if w.offer == offer]
    day = price_date.isoformat() if price_date is not None else None
    dates = sorted({w.effective_from for w in rows if day is None or w.effective_from <= day})
    if not dates:
        return ()
    return tuple(w for w in rows if w.effective_from == dates[-1])


@functools.lru_cache(maxsize=32)
def _utc_offsets(time_zone: str, start: Any, count: int) -> np.ndarray:
    """Offset of ``time_zone`` from UTC at each of ``count`` half hours from ``start`` (UTC), in minutes."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(time_zone)
    minutes = [
        int((start + dt.timedelta(minutes=30 * h)).astimezone(zone).utcoffset().total_seconds() // 60)
        for h in range(count)
    ]
    return np.array(minutes).astype("timedelta64[m]")


WINDOW_CLASSES = (
    "input",
    "cache_read",
    "cache_write",
    "output",
    "reasoning",
    "audio_input",
    "image_input",
    "audio_output",
)
"""Token classes (price parts) a price window's ``applies_to`` may name."""


def _hour_part_factors(windows: tuple, demand: Any, parts: dict, standard_parts: dict | None) -> dict[str, np.ndarray]:
    """Each hour's factor on each price part: per half hour, the first window (in file order) holding it and
    applying to the part, else 1; an hour's factor is the mean of its two half hours. [-]

    Hours are those of the demand profile: from 1 January of its year in its time zone for a
    job log or request log, else from a Monday 00:00 UTC; without a profile, one week from
    Monday 00:00 UTC. A window with ``long_context: standard`` bills a long request inside it at
    the standard prices times its factor (``standard_parts`` over ``parts``). Per-request fees
    are not token prices: their factor is 1.
    """
    import datetime as dt
    from zoneinfo import ZoneInfo

    profile = getattr(demand, "profile", None)
    count = demand.hours if demand is not None else 168
    if profile is not None and getattr(profile, "year", None) is not None:
        start = dt.datetime(profile.year, 1, 1, tzinfo=ZoneInfo(profile.time_zone)).astimezone(dt.UTC)
    else:
        start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)  # a Monday
    utc = np.datetime64(start.replace(tzinfo=None), "m") + 30 * np.arange(2 * count)
    found = {part: np.full(2 * count, np.nan) for part in parts if part not in ("request_fees", "citation_tokens")}
    for window in windows:
        local = utc if window.time_zone == "UTC" else utc + _utc_offsets(window.time_zone, start, 2 * count)
        minute = (local - local.astype("datetime64[D]")).astype(int)
        day = (local.astype("datetime64[D]").astype(int) + 3) % 7  # 1970-01-01 was a Thursday
        inside = (
            np.isin(day, list(window.day_set())) & (minute >= 60 * window.start_hour) & (minute < 60 * window.end_hour)
        )
        classes = WINDOW_CLASSES if window.applies_to == "all" else window.applies_to.split(";")
        for part in classes:
            if part not in found:
                continue
            factor = window.price_multiplier
            if window.long_context == "standard" and standard_parts is not None:
                listed = float(np.mean(np.asarray(parts[part], dtype=float)))
                factor = (
                    factor * float(np.mean(np.asarray(standard_parts[part], dtype=float))) / listed
                    if listed > 0
                    else factor
                )
            found[part] = np.where(np.isnan(found[part]) & inside, factor, found[part])
    out = {part: np.where(np.isnan(f), 1.0, f).reshape(count, 2).mean(axis=1) for part, f in found.items()}
    for fee in ("request_fees", "citation_tokens"):  # billed per request, not by the clock
        if fee in parts:
            out[fee] = np.ones(count)
    return out


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

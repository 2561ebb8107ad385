"""The GPU options resolved: the own cluster and the rental offers, their catalog rows looked up (with any
sampled figure in them) and every money figure converted into the reporting currency once.

:func:`resolve_own_option` and :func:`resolve_rent_options` are what :func:`costmodel.resolved.resolve` calls;
:func:`exchange_rate` is the one currency conversion of a scenario.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import numpy as np
from pydantic import BaseModel

from . import formulas
from .catalog import Catalog, CloudExtras, CloudOffer, Server
from .demand_inputs import DemandInputs
from .errors import scenario_problem
from .schema import Scenario
from .schema.energy import TimeOfUseTariff
from .schema.options import OPTION_LABELS, CloudRental, DataAndSupport, OwnCluster, Staffing
from .sizing import WorkloadInputs

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""

Exchange = Callable[[str | None], Number]
"""Reporting currency per unit of a currency (:func:`exchange_rate` of a scenario). [reporting currency/currency]"""

Row = TypeVar("Row", bound=BaseModel)


def exchange_rate(scenario: Scenario, currency: str | None) -> Number:
    """Reporting currency per unit of ``currency``: 1 for the reporting currency, else the scenario's rate.

    Parameters
    ----------
    scenario
        The scenario, whose ``fx.rates`` give each other currency's rate.
    currency
        ISO 4217 code of the figure to convert.

    Returns
    -------
    Number
        [reporting currency/currency]
    """
    assert currency is not None, "the schema requires a currency beside every price"
    if currency == scenario.reporting_currency:
        return 1.0
    assert scenario.fx is not None, "the schema requires a rate for every other currency"
    return scenario.fx.rates[currency]


OWN_STORED_DATA = "stored data"
"""The bill-of-materials line ``data_and_support`` adds to the own option for the data stored."""

OWN_CPU_NODES = "CPU nodes"
"""The bill-of-materials line ``data_and_support`` adds to the own option for its CPU nodes."""


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
    egress_per_month: Number | None = None
    """Transit for the data sent out (``data_and_support``); None: no such line. [reporting currency/month]"""

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
class RentExtras:
    """A rent option's lines besides the GPU-hours (``data_and_support``), money in the reporting currency.

    Attributes
    ----------
    storage_per_month, egress_per_month, cpu_nodes_per_month
        The month's storage, egress and CPU-node charges; None where the scenario states no such
        quantity (no line). [reporting currency/month]
    support_share
        The support plan's share of the rest of the bill; None: no plan. [-]
    support_minimum_per_month
        The plan's monthly minimum. [reporting currency/month]
    row
        The provider's row of data/cloud_extras.csv the rates came from, or None.
    """

    storage_per_month: Number | None
    egress_per_month: Number | None
    cpu_nodes_per_month: Number | None
    support_share: Number | None
    support_minimum_per_month: Number
    row: CloudExtras | None


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
    extras: RentExtras | None = None
    """Storage, egress, CPU nodes and support (``data_and_support``); None without that block."""


def _row(catalog_row: Row, column: str, path: str, values: Mapping[str, Any]) -> Row:
    """The catalog row with the figure at ``path`` of ``values`` in its ``column``, where one is given."""
    return catalog_row.model_copy(update={column: values[path]}) if path in values else catalog_row


def _staff(staffing: Staffing, fx: Exchange) -> Staff:
    """The staffing block as FTEs and money in the reporting currency (a fixed staff: infinite GPUs per FTE)."""
    if staffing.fte is not None:
        minimum, per = staffing.fte, np.inf
    else:
        minimum, per = staffing.minimum_fte, staffing.gpus_per_fte
    rate = fx(staffing.currency)
    return Staff(minimum, per, staffing.loaded_cost_per_fte_per_year * rate, staffing.managed_service_per_month * rate)


def _with_tariff(own: OwnOption, tariff: TimeOfUseTariff, demand: DemandInputs, rate: Number) -> OwnOption:
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
    extras: RentExtras | None = None,
) -> RentOption:
    """A rent option: the main one (``options.rent``) or one of ``options.rents`` (``index``), on demand."""
    where = "options.rent" if index is None else f"options.rents.{index}"
    if rent.billing == "always_on" and rent.gpu_count % workload.gpus_per_replica:
        raise scenario_problem(
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
        extras=extras,
    )


def resolve_own_option(
    scenario: Scenario,
    catalog: Catalog,
    values: Mapping[str, Any],
    workload: WorkloadInputs,
    fx: Exchange,
    demand: DemandInputs | None,
) -> OwnOption | None:
    """The own cluster resolved, its server's row with any sampled price or power in it; None without one."""
    own = scenario.options.own
    if own is None:
        return None
    server = _row(catalog.servers[own.server], "price", "options.own.server_price", values)
    server = _row(server, "max_power_kw", "options.own.server_max_power_kw", values)
    provider = own.provider
    colocation = own.colocation
    facility = own.facility
    licences = own.software_licences
    option = OwnOption(
        name="own",
        label=own.label or OPTION_LABELS["own"],
        server=server,
        gpus_per_server=server.gpus_per_server,
        server_count=own.server_count,
        configured_gpus=own.server_count * server.gpus_per_server,
        step_gpus=formulas.gpus_per_server_step(server.gpus_per_server, workload.gpus_per_replica),
        server_price=server.price * fx(server.currency),
        spare_share=own.spare_share,
        bill_of_materials=_bill_of_materials(own, fx),
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
    if scenario.data_and_support is not None:
        option = _with_data_and_support(option, own, scenario.data_and_support, fx)
    tariff = scenario.energy.tariff if scenario.energy is not None else None
    if tariff is not None and demand is not None:
        option = _with_tariff(option, tariff, demand, fx(tariff.currency))
    return option


def _with_data_and_support(option: OwnOption, own: OwnCluster, block: DataAndSupport, fx: Exchange) -> OwnOption:
    """The own cluster with the lines of ``data_and_support``: the storage and the CPU nodes bought (bill-of-
    materials lines, over the servers' life), and the transit paid for the data sent out.

    A bill of materials that already holds storage (a line of asset class ``storage``, or one called
    ``storage``) buys none for the data stored. Its support is the hardware support, which covers
    the lines added.

    Raises
    ------
    ScenarioError
        A quantity is stated without the own-side price it needs.
    """

    def price(field: str, quantity: str, needed: str) -> Number:
        given = getattr(block, field)
        if given is None:
            raise scenario_problem(
                f"data_and_support.{quantity}",
                getattr(block, quantity),
                f"options.own {needed}: give data_and_support.{field} (with currency)",
            )
        return given * fx(block.currency)

    items = list(option.bill_of_materials)
    has_storage = any(
        line.asset_class == "storage" or line.item.strip().casefold() == "storage" for line in own.bill_of_materials
    )
    if _stated(block.stored_tb) and not has_storage:
        per_tb = price(
            "own_storage_price_per_tb",
            "stored_tb",
            "buys the storage for the data stored (its bill of materials has no line of asset class storage)",
        )
        items.append(CapexItem(OWN_STORED_DATA, "total", block.stored_tb * per_tb, "storage"))
    if block.cpu_nodes > 0:
        items.append(
            CapexItem(
                OWN_CPU_NODES,
                "total",
                block.cpu_nodes * price("own_cpu_node_price", "cpu_nodes", "buys the CPU nodes"),
                "servers",
            )
        )
    egress = None
    if _stated(block.egress_tb_per_month):
        transit = price(
            "own_transit_price_per_gb",
            "egress_tb_per_month",
            "pays transit for the data sent out (0 when the colocation price includes it)",
        )
        egress = formulas.egress_cost(block.egress_tb_per_month, transit)
    return dataclasses.replace(option, bill_of_materials=tuple(items), egress_per_month=egress)


def _bill_of_materials(own: OwnCluster, fx: Exchange) -> tuple[CapexItem, ...]:
    """The bill-of-materials lines, money in the reporting currency, each with its own life where stated."""
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
                CapexItem(line.item, "per_server", line.price_per_server * fx(line.currency), line.asset_class, life)
            )
        else:
            assert line.price_total is not None, "a line is priced one of three ways"
            items.append(CapexItem(line.item, "total", line.price_total * fx(line.currency), line.asset_class, life))
    return tuple(items)


def resolve_rent_options(
    scenario: Scenario, catalog: Catalog, values: Mapping[str, Any], workload: WorkloadInputs, fx: Exchange
) -> dict[str, RentOption]:
    """The rental options by name: ``rent`` (with its reserved and spot terms and any sampled price) and each of
    ``options.rents`` (on demand)."""
    options: dict[str, RentOption] = {}
    rent = scenario.options.rent
    if rent is not None:
        offer = _row(catalog.cloud_offers[rent.offer], "price_per_gpu_hour", "options.rent.price_per_gpu_hour", values)
        on_demand = offer.price_per_gpu_hour * fx(offer.currency)
        reserved = spot = None
        if rent.reserved is not None:
            r = rent.reserved
            if r.price_per_gpu_hour is not None:
                price = r.price_per_gpu_hour * fx(r.currency)
            else:
                assert r.discount is not None, "reserved capacity is priced or discounted"
                price = on_demand * (1.0 - r.discount)
            reserved = ReservedTerms(r.term_years, price, r.source)
        if rent.spot is not None:
            spot = _spot_terms(rent, catalog, on_demand)
        extras = _rent_extras(scenario.data_and_support, catalog, offer, "options.rent", fx)
        options["rent"] = _rent_option(
            "rent", rent, offer, on_demand, workload, fx, reserved=reserved, spot=spot, extras=extras
        )
    for index, extra in enumerate(scenario.options.rents):  # further rental offers, on demand
        offer = catalog.cloud_offers[extra.offer]
        extras = _rent_extras(scenario.data_and_support, catalog, offer, f"options.rents.{index}", fx)
        options[f"rent:{extra.name}"] = _rent_option(
            f"rent:{extra.name}",
            extra,
            offer,
            offer.price_per_gpu_hour * fx(offer.currency),
            workload,
            fx,
            index=index,
            extras=extras,
        )
    return options


def _stated(quantity: Number) -> bool:
    """True when a ``data_and_support`` quantity is above zero (in some sample)."""
    return bool(np.any(np.asarray(quantity, dtype=float) > 0))


def _rent_extras(
    block: DataAndSupport | None, catalog: Catalog, offer: CloudOffer, where: str, fx: Exchange
) -> RentExtras | None:
    """A rent option's storage, egress, CPU-node and support terms: the scenario's price where given, else the
    provider's row of data/cloud_extras.csv; None without a ``data_and_support`` block.

    Raises
    ------
    ScenarioError
        A quantity is stated but neither the scenario nor the provider's row prices it.
    """
    if block is None:
        return None
    row = catalog.cloud_extras.get(offer.provider)

    def listed(column: str, field: str, quantity: str) -> float:
        value = getattr(row, column) if row is not None else None
        if value is None:
            held = "has no row for it" if row is None else f"has no {column} in its row"
            raise scenario_problem(
                f"data_and_support.{quantity}",
                getattr(block, quantity),
                f"{where} rents from {offer.provider}, which data/cloud_extras.csv {held}: give "
                f"data_and_support.{field} (with currency) to price it",
            )
        return value

    def rate(given: Number | None, column: str, field: str, quantity: str) -> Number:
        if given is not None:
            return given * fx(block.currency)
        value = listed(column, field, quantity)
        assert row is not None, "a listed price comes from a row"
        return value * fx(row.currency)

    storage = egress = nodes = share = None
    minimum: Number = 0.0
    if _stated(block.stored_tb):
        column = f"storage_{block.storage_class}_per_gb_month"
        storage = formulas.storage_cost(
            block.stored_tb, rate(block.storage_price_per_gb_month, column, "storage_price_per_gb_month", "stored_tb")
        )
    if _stated(block.egress_tb_per_month):
        price = rate(block.egress_price_per_gb, "egress_per_gb", "egress_price_per_gb", "egress_tb_per_month")
        egress = formulas.egress_cost(block.egress_tb_per_month, price)
    if block.cpu_nodes > 0:
        price = rate(block.cpu_node_price_per_hour, "cpu_node_per_hour", "cpu_node_price_per_hour", "cpu_nodes")
        nodes = formulas.always_on_cost(block.cpu_nodes, price)
    if block.support_share == "catalog":
        share = listed("support_share", "support_share", "support_share")
        minimum = rate(
            block.support_minimum_per_month, "support_minimum_per_month", "support_minimum_per_month", "support_share"
        )
    elif block.support_share is not None:
        share = block.support_share
        if block.support_minimum_per_month is not None:
            minimum = block.support_minimum_per_month * fx(block.currency)
    return RentExtras(storage, egress, nodes, share, minimum, row)


def _spot_terms(rent: CloudRental, catalog: Catalog, on_demand: Number) -> SpotTerms:
    """Spot capacity: the discount as given or from the offer's own spot price, and the work redone."""
    s = rent.spot
    assert s is not None
    overhead = s.interruptions_per_gpu_hour * s.work_lost_hours_per_interruption
    discount = s.discount
    if isinstance(discount, str):  # "catalog": the offer's own spot price, as a discount
        listed = catalog.cloud_offers[rent.offer]
        if listed.spot_price_per_gpu_hour is None:
            raise scenario_problem(
                "options.rent.spot.discount",
                discount,
                f"{rent.offer} has no spot price in data/cloud_prices.csv "
                "(spot_price_per_gpu_hour is empty); give the discount",
            )
        discount = 1.0 - listed.spot_price_per_gpu_hour / listed.price_per_gpu_hour
    return SpotTerms(discount, overhead, on_demand * (1.0 - discount) / (1.0 - overhead), s.max_gpus, s.source)


__all__ = [
    "OWN_CPU_NODES",
    "OWN_STORED_DATA",
    "CapexItem",
    "OwnOption",
    "RentExtras",
    "RentOption",
    "ReservedTerms",
    "SpotTerms",
    "Staff",
    "exchange_rate",
    "resolve_own_option",
    "resolve_rent_options",
]

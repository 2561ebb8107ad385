"""Monthly cost of each option by component, at a volume (the accrual view).

Conventions: a month is 730 hours (8,760 / 12) and 365 / 12 days; costs are per month, in
the scenario's reporting currency, positive = money out; every function broadcasts over
volumes and over arrays of sampled inputs.
"""

from __future__ import annotations

import numpy as np

from .. import formulas
from ..formulas.shapes import Numbers
from ..gpu_options import OWN_CPU_NODES, OWN_STORED_DATA, OwnOption, RentExtras, Staff
from ..resolved import Resolved, as_resolved
from ..results import DATA_AND_SUPPORT, DEPRECIATION, Component, ProviderIncome
from ..schema import Scenario
from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .api_clock import api_clock_factor
from .capacity import (
    api_option,
    checked_volume,
    gpu_hours_used,
    own_option,
    own_servers,
    rent_gpus,
    rent_option,
    tokens_per_month,
)


def staffing_month(staff: Staff | None, gpus):
    """Monthly cost of the people (and any managed-service fee) for a number of GPUs. [reporting currency/month]"""
    if staff is None:
        return 0.0
    fte = formulas.fte_needed(gpus, staff.minimum_fte, staff.gpus_per_fte)
    return formulas.staffing_cost(fte, staff.loaded_cost_per_fte_per_year, staff.managed_service_per_month)


def own_capex_lines(own: OwnOption, servers) -> dict[str, np.ndarray]:
    """Hardware capex of the own cluster by bill-of-materials line. [reporting currency]

    Parameters
    ----------
    own
        The resolved own option.
    servers
        Working servers bought, scalar or array (hot spares are added to them). [servers]

    Returns
    -------
    dict of str to numpy.ndarray
        ``servers`` (working and spare: S·(1 + spare share)·price), then one entry per
        bill-of-materials line: per server × S·(1 + spare share), share × server capex,
        or the total.
    """
    return _capex_lines_of_bought(
        own, formulas.servers_with_spares(np.asanyarray(servers, dtype=float), own.spare_share)
    )


def _capex_lines_of_bought(own: OwnOption, bought) -> dict[str, np.ndarray]:
    """:func:`own_capex_lines` of the servers bought, spares included. [reporting currency]"""
    server_capex = bought * own.server_price
    lines = {"servers": server_capex}
    for line in own.bill_of_materials:
        lines[line.item] = lines.get(line.item, 0.0) + _line_capex(line, server_capex, bought)
    return lines


def _line_capex(line, server_capex, bought):
    """One bill-of-materials line's capex: a share of the servers' price, per server bought, or a total."""
    if line.basis == "share_of_server_price":
        return server_capex * line.value
    if line.basis == "per_server":
        return bought * line.value
    return np.zeros_like(server_capex) + line.value


def own_hardware_capex(own: OwnOption, servers):
    """Total hardware capex: servers with spares plus the bill of materials. [reporting currency]"""
    return sum(own_capex_lines(own, servers).values())


def own_capex_by_life(own: OwnOption, servers) -> list[tuple[str, str | None, float, np.ndarray]]:
    """Hardware capex line by line with its life: (item, asset class, life [months], capex [reporting currency]).

    The servers (spares included) come first, asset class ``servers``, over ``depreciation_months``;
    then each bill-of-materials line over its own ``useful_life_years`` (default the servers'
    period); land's life is infinite.
    """
    bought = formulas.servers_with_spares(np.asanyarray(servers, dtype=float), own.spare_share)
    server_capex = bought * own.server_price
    found: list[tuple[str, str | None, float, np.ndarray]] = [
        ("servers", "servers", own.depreciation_months, server_capex)
    ]
    for line in own.bill_of_materials:
        found.append(
            (
                line.item,
                line.asset_class,
                own.depreciation_months if line.life_months is None else line.life_months,
                _line_capex(line, server_capex, bought),
            )
        )
    return found


def own_land_capex(own: OwnOption, servers):
    """Capex of the bill-of-materials lines of asset class ``land``. [reporting currency]"""
    return sum(
        (capex for _, kind, _, capex in own_capex_by_life(own, servers) if kind == "land"),
        np.zeros_like(np.asanyarray(servers, dtype=float)),
    )


def own_depreciation(own: OwnOption, servers):
    """Straight-line depreciation of the hardware, each line over its own life, land never. [reporting currency/month]

    Notes
    -----
    D = Σ_k C_k / N_k (C_k / ∞ = 0 for land); with no line life stated, C / N, N =
    ``depreciation_months``.
    """
    if not own.per_line_lives:
        return formulas.straight_line_depreciation(own_hardware_capex(own, servers), own.depreciation_months)
    return sum(np.where(np.isinf(life), 0.0, capex / life) for _, _, life, capex in own_capex_by_life(own, servers))


def own_capital_recovery(own: OwnOption, servers, rate_per_year):
    """The hardware's capital cost a month at a cost of capital: each line's CRF over its life, / 12.

    [reporting currency/month]

    Notes
    -----
    K = Σ_k C_k · CRF(i, N_k / 12) / 12, CRF(i, n) = i(1 + i)^n / ((1 + i)^n − 1), land at
    CRF = i (:func:`costmodel.formulas.capital_recovery_factor`); the monthly charge is the
    yearly one / 12. At i = 0 it is :func:`own_depreciation`.

    References
    ----------
    .. [1] Barroso, Hölzle and Ranganathan (2018), *The Datacenter as a Computer*, 3rd ed.,
       ch. 6: each asset amortised over its own life at a cost of capital.
    """
    return sum(
        capex * formulas.capital_recovery_factor(rate_per_year, life / MONTHS_PER_YEAR) / MONTHS_PER_YEAR
        for _, _, life, capex in own_capex_by_life(own, servers)
    )


def own_facility_capex(own: OwnOption, servers):
    """Build cost of an own data hall sized for the servers' maximum power. [reporting currency]

    MW provisioned = servers (with spares) × max kW per server / 1,000; zero with colocation.
    """
    bought = formulas.servers_with_spares(np.asanyarray(servers, dtype=float), own.spare_share)
    if own.facility_price_per_mw is None:
        return np.zeros_like(bought)
    return bought * own.kw_per_server / 1000.0 * own.facility_price_per_mw


def own_costs_at(own: OwnOption, servers, gpu_hours, hardware=None, accrual: bool = True) -> dict[str, np.ndarray]:
    """Monthly cost components of the own cluster with given servers and GPU-hours used.

    The accrual view: capex enters as straight-line depreciation.

    Parameters
    ----------
    own
        The resolved own option.
    servers
        Working servers, scalar or array. [servers]
    gpu_hours
        GPU-hours used in the month, same shape. [GPU-h/month]
    hardware
        The hardware capex of those servers, if already computed (:func:`own_hardware_capex`). [reporting currency]
    accrual
        Include the depreciation lines (the monthly view); False for the cash view, which pays the
        purchases instead.

    Returns
    -------
    dict of Component to numpy.ndarray
        [reporting currency/month]; see :func:`own_monthly_costs`.
    """
    servers = np.asanyarray(servers, dtype=float)
    hours = np.asanyarray(gpu_hours, dtype=float)
    bought = formulas.servers_with_spares(servers, own.spare_share)
    hardware = sum(_capex_lines_of_bought(own, bought).values()) if hardware is None else hardware
    gpus = bought * own.gpus_per_server
    staff = own.staffing
    parts = {}
    rate = own.cost_of_capital_per_year
    if accrual:
        if rate is None:
            parts[Component.CAPEX_DEPRECIATION] = (
                formulas.straight_line_depreciation(hardware, own.depreciation_months)
                if not own.per_line_lives
                else own_depreciation(own, servers)
            )
        else:
            parts[Component.CAPITAL_RECOVERY] = own_capital_recovery(own, servers, rate)
    supported = hardware - own_land_capex(own, servers) if own.per_line_lives else hardware
    parts[Component.HARDWARE_SUPPORT] = supported * own.hardware_support_share_per_year / MONTHS_PER_YEAR
    if own.facility_price_per_mw is not None:
        assert own.facility_depreciation_months is not None, "a facility is resolved with its price and its life"
        if accrual and rate is None:
            parts[Component.FACILITY_DEPRECIATION] = formulas.straight_line_depreciation(
                own_facility_capex(own, servers), own.facility_depreciation_months
            )
        elif accrual and rate is not None:  # the branch above took accrual without a rate
            parts[Component.FACILITY_CAPITAL_RECOVERY] = (
                own_facility_capex(own, servers)
                * formulas.capital_recovery_factor(rate, own.facility_depreciation_months / MONTHS_PER_YEAR)
                / MONTHS_PER_YEAR
            )
    else:
        parts[Component.COLOCATION] = bought * own.kw_per_server * own.colocation_price_per_kw_month
    # drawn kW = B·K·(i + (1 − i)·H / (B·G·730)): the idle draw of every server bought, and the draw
    # above idle of the GPU-hours used (the servers bought cancel out of it)
    idle_kw = bought * formulas.drawn_power_kw(own.kw_per_server, own.idle_power_share, 0.0)
    busy_kw = own.kw_per_server * (1.0 - own.idle_power_share) * hours / (own.gpus_per_server * HOURS_PER_MONTH)
    busy_price = (
        own.electricity_price_per_kwh
        if own.busy_electricity_price_per_kwh is None
        else own.busy_electricity_price_per_kwh
    )
    parts[Component.ELECTRICITY] = formulas.electricity_cost(
        idle_kw, own.pue, own.electricity_price_per_kwh
    ) + formulas.electricity_cost(busy_kw, own.pue, busy_price)
    parts[Component.STAFFING] = formulas.staffing_cost(
        formulas.fte_needed(gpus, staff.minimum_fte, staff.gpus_per_fte), staff.loaded_cost_per_fte_per_year
    )
    if np.any(np.asanyarray(staff.managed_service_per_month) > 0):
        parts[Component.MANAGED_SERVICE] = np.zeros_like(servers) + staff.managed_service_per_month
    if own.licence_price_per_gpu_per_year is not None:
        parts[Component.SOFTWARE_LICENCES] = gpus * own.licence_price_per_gpu_per_year / MONTHS_PER_YEAR
    if own.egress_per_month is not None:
        parts[Component.EGRESS] = np.zeros_like(servers) + own.egress_per_month
    return _same_shape(parts, np.shape(servers), np.shape(hours))


def _same_shape(parts: dict, *shapes: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Each part as a read-only float array of the shape they and ``shapes`` broadcast to.

    What :func:`numpy.broadcast_to` gives each of them; a part already of that shape is given as a
    read-only view instead, which costs a tenth as much (the break-evens ask for costs thousands of
    times a comparison).
    """
    arrays = {name: np.asanyarray(value, dtype=float) for name, value in parts.items()}
    every = [*shapes, *(a.shape for a in arrays.values())]
    shape = every[0] if all(x == every[0] for x in every) else np.broadcast_shapes(*every)
    found = {}
    for name, a in arrays.items():
        if a.shape == shape:
            a = a.view()
            a.flags.writeable = False
            found[name] = a
        else:
            found[name] = np.broadcast_to(a, shape)
    return found


def own_fixed_and_variable(own: OwnOption, servers: float | None = None) -> tuple[float, float]:
    """An own cluster's monthly cost at zero use, and the cost of one more GPU-hour used.

    Parameters
    ----------
    own
        The own option.
    servers
        Working servers; default the configured count. [servers]

    Returns
    -------
    tuple of float
        F [reporting currency/month] and v [reporting currency/GPU-h]: the monthly cost is
        F + v · H for H GPU-hours used (electricity above idle is the only cost that moves).
    """
    servers = float(own.server_count if servers is None else servers)
    full_hours = servers * own.gpus_per_server * HOURS_PER_MONTH
    fixed = float(sum(own_costs_at(own, servers, 0.0).values()))
    full = float(sum(own_costs_at(own, servers, full_hours).values()))
    return fixed, (full - fixed) / full_hours


def own_monthly_costs(resolved: Resolved, volume, option: str = "own") -> dict[str, np.ndarray]:
    """Monthly cost components of the own cluster at a volume.

    Returns
    -------
    dict of Component to numpy.ndarray
        ``capex depreciation``, ``hardware support``, ``colocation`` (or ``facility
        depreciation``), ``electricity``, ``staffing``, and where the scenario has them
        ``managed service`` and ``software licences``; each [reporting currency/month],
        shaped like ``volume``.

    Notes
    -----
    With S working servers (stepped up as needed), spare share q (so B = S·(1 + q)
    servers bought), hardware capex C (servers plus bill of materials, see
    :func:`own_capex_lines`), depreciation period N months, support share s per year,
    max power K kW per server, idle share i, PUE u, electricity price e, colocation
    price c per kW-month, G GPUs per server and GPU-hours used H:

    * capex depreciation = C / N (straight line, no residual value); with lines of their own
      ``useful_life_years``, Σ C_k / N_k, land never (:func:`own_depreciation`);
    * with ``cost_of_capital_per_year`` i instead: capital recovery = Σ C_k · CRF(i, N_k/12) / 12
      (:func:`own_capital_recovery`; land at CRF = i), and facility capital recovery = the
      facility's capex × CRF(i, its life) / 12;
    * hardware support = C·s / 12 (land left out);
    * colocation = B·K·c (provisioned capacity, not drawn power); or, with an own
      facility, facility depreciation = B·K/1000·(price per MW) / (its life in months);
    * electricity = K·u·730·(B·i·e + (1 − i)·H / (G·730)·e'): the spares idle, the working
      servers draw in proportion to their utilisation H / (S·G·730); e' = e at a flat price,
      and with a time-of-use tariff e is the tariff's yearly mean and e' its mean weighted by
      the demand profile's hours;
    * staffing = FTE(B·G) × loaded yearly cost / 12, plus any managed-service fee;
    * software licences = B·G × price per GPU per year / 12;
    * with ``data_and_support``: egress = TB sent out a month × 1,000 × the transit price per GB
      (:func:`costmodel.formulas.egress_cost`); the storage and CPU nodes bought are
      bill-of-materials lines, in the capex lines above.

    References
    ----------
    .. [1] NVIDIA DGX H100/H200 User Guide: 10.2 kW maximum system power.
    .. [2] Uptime Institute, Global Data Center Survey 2024: average PUE 1.56.
    .. [3] Barroso, Hölzle and Ranganathan (2018), *The Datacenter as a Computer*, 3rd ed., ch. 6
       (capex by asset class, each over its life at a cost of capital).
    """
    v = checked_volume(volume)
    servers = np.asanyarray(own_servers(resolved, v), dtype=float)
    hours = np.asanyarray(gpu_hours_used(resolved, v), dtype=float)
    return own_costs_at(own_option(resolved, option), servers, hours)


def own_income(resolved: Resolved, volume, option: str = "own") -> ProviderIncome | None:
    """The own cluster as a GPU cloud's income statement a month: revenue, opex, depreciation, EBIT, NOI.

    None without ``options.own.provider``.

    Notes
    -----
    Revenue R = working GPUs (S·G, spares not sold) × 730 × utilisation sold × price per GPU-hour
    sold (:func:`costmodel.formulas.provider_revenue`); opex = the monthly cost less its capital
    lines (capex and facility depreciation or capital recovery); depreciation D = straight line,
    each line over its life, land never, plus the facility's (:func:`own_depreciation`) — the
    accounting figure, with no cost of capital in it; EBIT = R − opex − D; NOI = R − opex.
    All [reporting currency/month].
    """
    own = own_option(resolved, option)
    if own.provider_price_per_gpu_hour_sold is None:
        return None
    v = checked_volume(volume)
    servers = np.asanyarray(own_servers(resolved, v), dtype=float)
    parts = own_monthly_costs(resolved, v, option)
    opex = sum(np.asanyarray(value, dtype=float) for name, value in parts.items() if name not in DEPRECIATION)
    depreciation = own_depreciation(own, servers)
    if own.facility_price_per_mw is not None:
        assert own.facility_depreciation_months is not None, "a facility is resolved with its price and its life"
        depreciation = depreciation + formulas.straight_line_depreciation(
            own_facility_capex(own, servers), own.facility_depreciation_months
        )
    assert own.provider_utilisation_sold is not None, "a provider block is resolved with its price and utilisation"
    revenue = formulas.provider_revenue(
        servers * own.gpus_per_server, own.provider_utilisation_sold, own.provider_price_per_gpu_hour_sold
    )
    return ProviderIncome(
        revenue,
        opex,
        depreciation,
        formulas.ebit(revenue, opex, depreciation),
        formulas.net_operating_income(revenue, opex),
    )


def rent_monthly_costs(resolved: Resolved, volume, option: str = "rent") -> dict[str, np.ndarray]:
    """Monthly cost components of cloud rental at a volume.

    Returns
    -------
    dict of Component to numpy.ndarray
        ``GPU rental`` and ``staffing``, and with ``data_and_support`` the lines of
        :func:`rent_extra_lines` [reporting currency/month].

    Notes
    -----
    always_on: GPUs (stepped up as needed) × price per GPU-hour × 730 h.
    per_gpu_hour_used: GPU-hours used × price per GPU-hour.
    Staffing: FTEs for the GPUs held (a fixed number, or a minimum plus one per N GPUs)
    × loaded yearly cost / 12, plus any managed-service fee.
    """
    rent = rent_option(resolved, option)
    v = checked_volume(volume)
    gpus = np.asanyarray(rent_gpus(resolved, v, option), dtype=float)
    if rent.billing == "always_on":
        rental = gpus * rent.price_per_gpu_hour * HOURS_PER_MONTH
    else:
        rental = np.asanyarray(gpu_hours_used(resolved, v), dtype=float) * rent.price_per_gpu_hour
    staffing = np.zeros_like(v) + staffing_month(rent.staffing, gpus)
    rental = np.asanyarray(rental, dtype=float)
    if rental.shape != staffing.shape:
        rental, staffing = np.broadcast_arrays(rental, staffing)
    parts: dict[str, np.ndarray] = {Component.GPU_RENTAL: rental.copy(), Component.STAFFING: staffing.copy()}
    if rent.extras is None:
        return parts
    parts.update(rent_extra_lines(rent.extras, parts[Component.GPU_RENTAL]))
    shape = np.broadcast_shapes(*(np.shape(value) for value in parts.values()))
    return {name: np.broadcast_to(np.asanyarray(value, dtype=float), shape).copy() for name, value in parts.items()}


def rent_extra_lines(extras: RentExtras, rental) -> dict[str, np.ndarray]:
    """A rent option's storage, egress, CPU-node and support lines a month, beside its GPU rental.

    Parameters
    ----------
    extras
        The option's resolved ``data_and_support`` terms.
    rental
        The month's GPU rental, scalar or array. [reporting currency/month]

    Returns
    -------
    dict of Component to numpy.ndarray
        ``storage``, ``egress``, ``CPU nodes`` where the scenario states their quantity, and
        ``support plan`` where it states a plan. [reporting currency/month]

    Notes
    -----
    support = max(s · (GPU rental + storage + egress + CPU nodes), m)
    (:func:`costmodel.formulas.support_plan_cost`): a share of the cloud bill, the staff left out.
    """
    found: dict[str, np.ndarray] = {
        name: np.asanyarray(value, dtype=float)
        for name, value in (
            (Component.STORAGE, extras.storage_per_month),
            (Component.EGRESS, extras.egress_per_month),
            (Component.CPU_NODES, extras.cpu_nodes_per_month),
        )
        if value is not None
    }
    if extras.support_share is not None:
        bill = np.asanyarray(rental, dtype=float) + sum(found.values(), np.zeros(()))
        found[Component.SUPPORT_PLAN] = np.asanyarray(
            formulas.support_plan_cost(bill, extras.support_share, extras.support_minimum_per_month), dtype=float
        )
    return found


def api_monthly_costs(resolved: Resolved, volume, option: str = "api") -> dict[str, np.ndarray]:
    """Monthly cost components of the hosted API at a volume of a tokens workload.

    Returns
    -------
    dict of Component to numpy.ndarray
        ``input tokens``, ``cached input tokens``, ``output tokens``, and where the bill has them
        ``cache write tokens``, ``reasoning tokens``, ``audio input tokens``, ``image input
        tokens``, ``audio output tokens``, ``request and search fees``, ``citation tokens`` [reporting
        currency/month].

    Notes
    -----
    Their sum is tokens per month / 10⁶ × :func:`costmodel.formulas.blended_api_price`.
    """
    api = api_option(resolved, option)
    millions = np.asanyarray(tokens_per_month(resolved, volume), dtype=float) / 1e6
    parts = api.price_parts
    assert parts is not None, "an API option is resolved with its price parts"

    def part(name: str):
        if api.hour_part_factors is not None:  # prices by the clock, per token class
            return millions * parts[name] * api_clock_factor(resolved, option, name)
        return millions * parts[name]

    found: dict[str, np.ndarray] = {
        Component.INPUT_TOKENS: part("input"),
        Component.CACHED_INPUT_TOKENS: part("cache_read"),
        Component.OUTPUT_TOKENS: part("output"),
    }
    if np.any(np.asarray(api.cache_write_share) > 0):
        found[Component.CACHE_WRITE_TOKENS] = part("cache_write")
    for name, component in (
        ("reasoning", Component.REASONING_TOKENS),
        ("audio_input", Component.AUDIO_INPUT_TOKENS),
        ("image_input", Component.IMAGE_INPUT_TOKENS),
        ("audio_output", Component.AUDIO_OUTPUT_TOKENS),
        ("request_fees", Component.REQUEST_FEES),
        ("citation_tokens", Component.CITATION_TOKENS),
    ):
        if name in parts:
            found[component] = part(name)
    return found


def _data_line(item: str, asset_class: str | None) -> str | None:
    """The kind of ``data_and_support`` line an own capex line is: storage, CPU nodes, or none."""
    if asset_class == "storage" or item.strip().casefold() == "storage" or item == OWN_STORED_DATA:
        return Component.STORAGE
    return Component.CPU_NODES if item == OWN_CPU_NODES else None


def data_and_support_lines(scenario: Scenario | Resolved, option: str, volume: Numbers) -> dict[str, np.ndarray]:
    """What one option pays a month for each kind of ``data_and_support`` line, within its monthly cost.

    Parameters
    ----------
    scenario
        The scenario, resolved or not.
    option
        An option the scenario holds.
    volume
        Scalar or array, in the workload's volume unit.

    Returns
    -------
    dict of Component to numpy.ndarray
        Empty without a ``data_and_support`` block and for an API option. A rent option: its
        ``storage``, ``egress``, ``CPU nodes`` and ``support plan`` components. The own option:
        ``storage`` and ``CPU nodes``, the monthly capital charge of the capex lines of those
        kinds (straight line over their lives, or their capital-recovery factor at the cost of
        capital); ``egress``, its transit; ``support plan``, its hardware support on those capex
        lines. [reporting currency/month]

    Notes
    -----
    Own capital charge of a line k: C_k / N_k, or C_k · CRF(i, N_k / 12) / 12; its support
    C_k · s / 12. The own option's storage lines are those of asset class ``storage`` (or called
    ``storage``), whether the block added them or the bill of materials had them.
    """
    r = as_resolved(scenario)
    chosen = r.option(option)
    if r.scenario.data_and_support is None or chosen.kind == "api":
        return {}
    if chosen.kind == "rent":
        parts = monthly_cost_components(r, option, volume)
        return {name: parts[name] for name in DATA_AND_SUPPORT if name in parts}
    own = own_option(r, option)
    v = checked_volume(volume)
    servers = np.asanyarray(own_servers(r, v), dtype=float)
    rate = own.cost_of_capital_per_year
    found: dict[str, np.ndarray] = {}
    bought = np.zeros_like(servers)
    for item, asset_class, life, capex in own_capex_by_life(own, servers):
        kind = _data_line(item, asset_class)
        if kind is None:
            continue
        charge = (
            capex / life
            if rate is None
            else capex * formulas.capital_recovery_factor(rate, life / MONTHS_PER_YEAR) / MONTHS_PER_YEAR
        )
        found[kind] = found.get(kind, 0.0) + np.asanyarray(charge, dtype=float)
        bought = bought + capex
    if own.egress_per_month is not None:
        found[Component.EGRESS] = np.zeros_like(servers) + own.egress_per_month
    if found:
        found[Component.SUPPORT_PLAN] = bought * own.hardware_support_share_per_year / MONTHS_PER_YEAR
    return {name: np.broadcast_to(found[name], np.shape(servers)).copy() for name in DATA_AND_SUPPORT if name in found}


_BY_KIND = {"own": own_monthly_costs, "rent": rent_monthly_costs, "api": api_monthly_costs}


def monthly_cost_components(scenario: Scenario | Resolved, option: str, volume: Numbers) -> dict[str, np.ndarray]:
    """Monthly cost components of one option at a volume. [reporting currency/month]

    Raises
    ------
    ValueError
        The scenario has no such option, or a volume is negative or not finite.
    """
    r = as_resolved(scenario)
    return _BY_KIND[r.option(option).kind](r, volume, option)


def monthly_cost(scenario: Scenario | Resolved, option: str, volume: Numbers) -> float | np.ndarray:
    """Total monthly cost of one option at a volume. [reporting currency/month]

    Parameters
    ----------
    scenario
        The scenario, resolved or not.
    option
        ``own``, ``rent`` or ``api`` (an option the scenario holds).
    volume
        Scalar or array, in the workload's volume unit.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``volume`` (and as any sampled inputs).

    Examples
    --------
    Reference case R1: 2 H100 rented 24/7 at 3.5 USD/GPU-hour (5,110 USD) and one engineer
    at 6,000 EUR a month (6,960 USD at 1.16):

    >>> import costmodel
    >>> round(monthly_cost(costmodel.load_scenario("llama70b-vs-api"), "rent", 10e6), 2)
    12070.0
    """
    parts = monthly_cost_components(scenario, option, volume)
    total = sum(np.asanyarray(p, dtype=float) for p in parts.values())  # broadcasts scalars and samples alike
    return float(total) if np.ndim(total) == 0 else total

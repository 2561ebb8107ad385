"""The own cluster on a monthly cash-flow basis: TCO, present value, financing, lead time, trends, payback.

Conventions (also on :class:`costmodel.schema.Finance`):

* costs are positive, credits (resale) negative, in the reporting currency;
* month 0 is the month of the decision; a horizon of H months covers months 0 … H−1;
* capex is paid in the month the hardware is bought (cash basis: no depreciation
  here, so payback never counts capex twice); running costs, rental and API bills are
  paid in the month they arise; the hardware's resale value, and an own facility's
  straight-line book value, come back in month H−1;
* a loan turns the month-0 hardware capex (less the down payment) into equal payments
  at the end of months 1 … term (:func:`costmodel.formulas.loan_payment`); a balance still
  owed at the horizon is paid off in month H−1;
* the discount rate is an effective yearly rate, applied monthly as (1 + r)^(1/12) − 1,
  and month 0 is not discounted (:func:`costmodel.formulas.present_value`);
* trends compound monthly: a quantity changing by g a year is multiplied by
  (1 + g)^(m/12) in month m, which is exactly 1 when g is 0 (rental and API prices,
  demand, electricity, salaries, and the price of hardware bought later); a price with a
  path (``trends.<price>_price_path``) is multiplied by the path's factor in month m
  instead (:func:`price_factor`);
* every purchase is bought again each useful life (``finance.useful_life_months``, default
  the depreciation period) while the horizon lasts, and the replaced hardware is sold in the
  same month on the residual curve (``finance.residual``); what is held at the horizon is
  sold there at its age, so a horizon longer than the hardware's life is meaningful;
* a lease replaces the month-0 purchase (finance: payments in advance and a buy-out;
  operating: leased again each term, never resold); reserved GPUs (``rent_commitment``)
  are paid by their terms, the rest of the rental on demand; the marginal view leaves out
  the price of the configured servers (sunk);
* the present value follows ``finance.npv`` (:func:`costmodel.formulas.npv_with_convention`);
  IRR, MIRR, ROI and the fractional paybacks are on the monthly gains of owning against
  rent (else the API), see :func:`investment_returns`.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass

import numpy as np

from .. import formulas
from ..demand_inputs import DemandInputs
from ..formulas.shapes import Numbers, Values, scalar
from ..resolved import OwnOption, RentOption, Resolved, as_resolved
from ..results import DEPRECIATION, CashFlows, CashLine, Component, OwnFinance, UtilisationBreakEven
from ..schema import Scenario
from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .capacity import gpu_hours_used, gpus_needed, own_servers_priced
from .costs import (
    api_monthly_costs,
    own_costs_at,
    own_facility_capex,
    own_fixed_and_variable,
    own_hardware_capex,
    rent_monthly_costs,
)
from .tax import after_tax, useful_life


def price_factor(scenario: Scenario | Resolved, price: str, months: Numbers) -> np.ndarray:
    """Factor on today's price in each month: the price's path if it has one, else its constant yearly rate. [-]

    Parameters
    ----------
    scenario
        A scenario with a finance block.
    price
        ``rental``, ``api``, ``electricity`` or ``hardware`` (:data:`costmodel.schema.PRICE_PATHS`).
    months
        Months since the decision (month 0). [months]

    Returns
    -------
    numpy.ndarray
        The factor in each month; sampled inputs (shape (n, 1)) add their leading axis. [-]

    Raises
    ------
    ValueError
        A path and a non-zero rate at once (a sampled rate beside a path), or a forward curve
        from reserved prices whose years 2-3 would not be positive.

    Notes
    -----
    Without a path: (1 + g)^(m / 12) (:func:`costmodel.formulas.growth_factor`). With one:
    ``yearly_changes`` by :func:`costmodel.formulas.yearly_change_factor` (all equal to g: the
    constant rate's factor exactly); ``yearly_factors`` as steps at months 0, 12, 24, …; a dated
    table as steps from the first month whose date (``finance.start_date`` plus m calendar months)
    is on or after a row's date, 1 before the first row; ``from_reserved`` as steps at months 0 and
    12 (:func:`reserved_forward_factors`). All by :func:`costmodel.formulas.step_factor`.
    """
    r = as_resolved(scenario)
    trends = r.finance.trends
    path, rate = trends.path(price), trends.rate(price)
    months = np.asarray(months, dtype=float)
    if path is None:
        return np.asarray(formulas.growth_factor(rate, months))
    if np.any(np.asarray(rate) != 0):
        raise ValueError(
            f"finance.trends.{price}_price_change_per_year is not 0 while {price}_price_path is "
            "given: a path replaces the constant rate"
        )
    if path.yearly_changes is not None:
        return formulas.yearly_change_factor(path.yearly_changes, months)
    if path.yearly_factors is not None:
        starts = [MONTHS_PER_YEAR * year for year in range(len(path.yearly_factors))]
        return formulas.step_factor(starts, path.yearly_factors, months, before=path.yearly_factors[0])
    if getattr(path, "from_reserved", False):
        return formulas.step_factor([0, MONTHS_PER_YEAR], reserved_forward_factors(r), months)
    return formulas.step_factor(_months_from(r.finance.start_date, path.dates, len(months)), path.factors, months)


def _months_from(start, dates, horizon: int) -> list[int]:
    """For each date, the first month of the horizon whose date is on or after it (``horizon`` if none is).

    Month m's date is ``start`` plus m calendar months, its day kept (the month's last day where
    the month is shorter).
    """
    ordinals = []
    for m in range(horizon):
        year, month = divmod(start.month - 1 + m, MONTHS_PER_YEAR)
        day = min(start.day, calendar.monthrange(start.year + year, month + 1)[1])
        ordinals.append(dt.date(start.year + year, month + 1, day).toordinal())
    return [int(np.searchsorted(ordinals, d.toordinal(), side="left")) for d in dates]


def reserved_prices(scenario: Scenario | Resolved) -> tuple:
    """The rent option's on-demand, 1-year and 3-year reserved prices (None where none is given). [currency/GPU-h]

    A reserved price is that of ``options.rent.reserved`` for its term, else the offer's
    ``reserved_1y_price_per_gpu_hour`` or ``reserved_3y_price_per_gpu_hour`` (the catalog's, or a row of
    ``offers.cloud_offers``), in the reporting currency.
    """
    r = as_resolved(scenario)
    rent = r.option("rent")
    assert isinstance(rent, RentOption), "the rent option is rented GPUs"
    rate = r.scenario.fx_rate(rent.offer.currency)
    prices = {}
    for term, column in ((1, "reserved_1y_price_per_gpu_hour"), (3, "reserved_3y_price_per_gpu_hour")):
        listed = getattr(rent.offer, column)
        prices[term] = (
            rent.reserved.price_per_gpu_hour
            if rent.reserved is not None and rent.reserved.term_years == term
            else (listed * rate if listed is not None else None)
        )
    return rent.price_per_gpu_hour, prices[1], prices[3]


def reserved_forward_factors(scenario: Scenario | Resolved) -> tuple:
    """The rental price factors the reserved prices imply: (year 1, year 2 on). [-]

    See :func:`costmodel.formulas.forward_factors_from_reserved` for the inference and its assumption
    (a commitment's price is the average on-demand-equivalent price expected over its term).

    Raises
    ------
    ValueError
        No rent option, or a reserved price missing.
    """
    r = as_resolved(scenario)
    if "rent" not in r.options:
        raise ValueError("finance.trends.rental_price_path from_reserved needs options.rent")
    rent = r.option("rent")
    assert isinstance(rent, RentOption), "the rent option is rented GPUs"
    on_demand, year_1, year_3 = reserved_prices(r)
    missing = [term for term, price in (("1-year", year_1), ("3-year", year_3)) if price is None]
    if missing:
        raise ValueError(
            f"finance.trends.rental_price_path from_reserved needs the {' and '.join(missing)} "
            f"reserved price of {rent.offer.offer}"
        )
    return formulas.forward_factors_from_reserved(on_demand, year_1, year_3)


def _servers_by_month(r: Resolved, volumes: np.ndarray, online: int) -> np.ndarray:
    own = r.option("own")
    assert isinstance(own, OwnOption), "the own option is an owned cluster"
    needed = formulas.servers_needed(
        np.asarray(gpus_needed(r, volumes)), own.gpus_per_server, r.workload.gpus_per_replica, minimum=own.server_count
    )
    servers = np.maximum.accumulate(np.asarray(needed, dtype=float), axis=-1)  # servers are never sold early
    servers[..., :online] = own.server_count  # bought at the decision, online after the lead time
    return servers


def cash_flows(scenario: Scenario | Resolved) -> CashFlows:
    """Monthly cash flows of every option over the scenario's horizon.

    The months are the last axis of every line. Inputs replaced by arrays of samples of shape
    (n, 1) (:func:`costmodel.domain.uncertainty.with_values`) give lines of shape (n, H): one
    call for all samples.

    Raises
    ------
    ValueError
        The scenario has no ``finance`` block.
    """
    r = as_resolved(scenario)
    finance = r.finance
    if finance is None:
        raise ValueError("the scenario has no finance block (horizon, discount rate)")
    trends = finance.trends
    months = np.arange(finance.horizon_months, dtype=float)
    volumes = r.volume * formulas.growth_factor(trends.demand_growth_per_year, months)
    hours = np.asarray(gpu_hours_used(r, volumes), dtype=float)
    flows: dict[str, dict[str, np.ndarray]] = {}
    on_demand = None
    if "rent" in r.options:
        on_demand = rent_cash_flows(r, months, volumes, hours, None)  # once: the rent option all on demand
        flows["rent"] = (
            on_demand
            if finance.rent_commitment is None
            else committed_flows(r, on_demand, hours, months, finance.rent_commitment)
        )
    for name, option in r.options.items():  # every API offer (options.api and .apis), every options.rents offer
        if option.kind == "api":
            flows[name] = _api_flows(r, volumes, months, name)
        elif option.kind == "rent" and name != "rent":  # on demand: reserved terms are the main rent's only
            flows[name] = rent_cash_flows(r, months, volumes, hours, None, name)
    online = finance.lead_time_months
    if "own" not in r.options:
        ordered = {name: flows[name] for name in r.options if name in flows}
        return CashFlows(months, volumes, hours, np.zeros_like(months), ordered, online, rent_on_demand=on_demand)
    own = _own_flows(r, months, volumes, hours, on_demand)
    flows["own"] = own.lines
    ordered = {name: flows[name] for name in r.options if name in flows}
    return CashFlows(
        months,
        volumes,
        hours,
        np.where(months >= online, own.servers, 0.0),
        ordered,
        online,
        hardware_purchases=own.hardware_purchases,
        facility_purchases=own.facility_purchases,
        rent_on_demand=on_demand,
    )


def _api_flows(r: Resolved, volumes: np.ndarray, months: np.ndarray, option: str = "api") -> dict[str, np.ndarray]:
    """An API option's bill each month, by part, with the API price's trend or path. [reporting currency]"""
    factor = price_factor(r, "api", months)
    return {name: value * factor for name, value in api_monthly_costs(r, volumes, option).items()}


@dataclass
class _OwnFlows:
    """The own option's cash lines, working servers each month (online or not), and the price of the
    hardware and facility bought each month before financing (for tax). [reporting currency], [servers]"""

    lines: dict[str, np.ndarray]
    servers: np.ndarray
    hardware_purchases: np.ndarray
    facility_purchases: np.ndarray


def _own_flows(
    r: Resolved,
    months: np.ndarray,
    volumes: np.ndarray,
    hours: np.ndarray,
    on_demand: dict[str, np.ndarray] | None,
) -> _OwnFlows:
    """The own option's monthly cash lines: purchases (financed or not), refreshes, running costs once
    online, the stand-in during the lead time, and the resale and facility credits at the horizon."""
    finance = r.finance
    own = r.option("own")
    assert isinstance(own, OwnOption), "the own option is an owned cluster"
    online = finance.lead_time_months
    servers = _servers_by_month(r, volumes, online)
    capex_held = own_hardware_capex(own, servers)
    at_today = np.diff(capex_held, prepend=0.0)  # purchases at today's prices
    purchases = at_today * price_factor(r, "hardware", months)
    facility = np.diff(own_facility_capex(own, servers), prepend=0.0)
    shape = np.broadcast_shapes(np.shape(purchases), np.shape(facility))
    purchases, facility, at_today = (np.broadcast_to(x, shape).copy() for x in (purchases, facility, at_today))
    lease = finance.lease
    first_owned = at_today.copy()
    if finance.view == "marginal" or (lease is not None and lease.kind == "operating"):
        first_owned[..., 0] = 0.0  # sunk, or not owned: neither refreshed nor resold
    refresh, refresh_resale, held = _refresh(r, first_owned, months)
    shape = np.broadcast_shapes(shape, np.shape(held))  # a sampled useful life adds the samples' axis
    if finance.view == "marginal":
        purchases[..., 0] = 0.0
        facility[..., 0] = 0.0
    lines, purchases_for_tax = _capex_lines(r, purchases, months)
    if np.any(refresh != 0):
        lines[CashLine.REFRESH] = refresh
        lines[CashLine.REFRESH_RESALE] = refresh_resale
    if own.facility_price_per_mw is not None:
        lines[CashLine.FACILITY_CAPEX] = facility
    running = _escalated(r, own_costs_at(own, servers, hours, capex_held, accrual=False), months)
    is_online = months >= online
    for name, values in running.items():
        if name not in DEPRECIATION:
            lines[name] = np.where(is_online, values, 0.0)
    if online > 0:
        stand_in = on_demand if finance.during_lead_time == "rent" else _api_flows(r, volumes, months)
        assert stand_in is not None, "a rent stand-in is checked to exist (schema: no_stand_in)"
        lines[CashLine.STAND_IN] = np.where(is_online, 0.0, sum(stand_in.values()))
    resale = np.zeros(shape)
    resale[..., -1] = -_resale_value(r, held, months)
    lines[CashLine.RESALE] = resale
    if own.facility_price_per_mw is not None:  # the building outlives the horizon: credit its book value
        assert own.facility_depreciation_months is not None, "a facility comes with its depreciation period"
        age = finance.horizon_months - months
        book = np.sum(facility * formulas.book_value_share(age, own.facility_depreciation_months), axis=-1)
        residual = np.zeros(np.broadcast_shapes(shape, np.shape(book) + (len(months),)))
        residual[..., -1] = -book
        lines[CashLine.FACILITY_RESIDUAL] = residual
    return _OwnFlows(lines, servers, purchases_for_tax + refresh, facility)


def _capex_lines(r: Resolved, purchases: np.ndarray, months: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The own hardware's purchase lines as paid: in cash, with a loan, or a lease in place of the
    month-0 purchase; and the purchases as bought, for tax (a finance lease's month 0 counts as bought).

    ``purchases`` is changed in place where a lease replaces its month 0.
    """
    finance = r.finance
    lines: dict[str, np.ndarray] = {}
    lease = finance.lease
    if lease is not None:
        leased = purchases[..., 0].copy()
        purchases[..., 0] = 0.0
        lines[CashLine.HARDWARE_CAPEX] = purchases
        lines.update(_lease_lines(r, lease, leased, months))
        if lease.kind == "operating":
            return lines, purchases
        purchases_for_tax = purchases.copy()
        purchases_for_tax[..., 0] = leased
        return lines, purchases_for_tax
    if finance.loan is not None:
        loan = finance.loan
        down = np.asarray(loan.down_payment_share, dtype=float)
        down = down.reshape(_lead(down))  # samples (n, 1) as one share per row
        principal = purchases[..., 0] * (1.0 - down)
        payment = np.asarray(formulas.loan_payment(principal, loan.rate_per_year, loan.term_months), dtype=float)
        cash_capex = np.broadcast_to(purchases, np.shape(principal) + purchases.shape[-1:]).copy()
        cash_capex[..., 0] = purchases[..., 0] * down
        payments = np.where((months >= 1) & (months <= loan.term_months), payment[..., None], 0.0)
        paid = int(min(loan.term_months, finance.horizon_months - 1))
        balance = (
            formulas.loan_balance(payment, loan.rate_per_year, loan.term_months - paid)
            if paid < loan.term_months
            else 0.0
        )
        payments[..., -1] += balance
        lines[CashLine.HARDWARE_CAPEX] = cash_capex
        lines[CashLine.LOAN_PAYMENTS] = payments
        return lines, purchases
    lines[CashLine.HARDWARE_CAPEX] = purchases
    return lines, purchases


def _escalated(r: Resolved, parts: dict[str, np.ndarray], months: np.ndarray) -> dict[str, np.ndarray]:
    """Electricity and staffing lines with their escalation (the electricity price's path, if given)."""
    trends = r.finance.trends
    out = dict(parts)
    if Component.ELECTRICITY in out and (
        trends.electricity_price_path is not None or np.any(np.asarray(trends.electricity_price_change_per_year) != 0)
    ):
        out[Component.ELECTRICITY] = out[Component.ELECTRICITY] * price_factor(r, "electricity", months)
    for name in (Component.STAFFING, Component.MANAGED_SERVICE):
        if name in out and np.any(np.asarray(trends.salary_change_per_year) != 0):
            out[name] = out[name] * formulas.growth_factor(trends.salary_change_per_year, months)
    return out


def rent_cash_flows(
    r: Resolved, months: np.ndarray, volumes: np.ndarray, hours: np.ndarray, commitment=None, option: str = "rent"
) -> dict[str, np.ndarray]:
    """The rent option's cash lines each month: GPU rental with its price trend, staffing, and a commitment.

    Parameters
    ----------
    r
        The resolved scenario, with a finance block.
    months, volumes, hours
        Months 0 … H−1, the volume and the GPU-hours used each month. [month], [volume unit], [GPU-h]
    commitment
        Reserved GPUs paid by the rent option's reserved terms (``gpus``, ``payment``,
        ``upfront_share``), the rest on demand; None: all on demand.
    option
        The rent option: ``rent``, or one of ``options.rents`` (``rent:<name>``, all on demand).
    """
    parts = rent_monthly_costs(r, volumes, option)
    parts[Component.GPU_RENTAL] = parts[Component.GPU_RENTAL] * price_factor(r, "rental", months)
    parts = _with_support(r, _escalated(r, parts, months), option)
    return parts if commitment is None else committed_flows(r, parts, hours, months, commitment)


_NOT_BILLED_BY_THE_CLOUD = (Component.STAFFING, Component.MANAGED_SERVICE, Component.SUPPORT_PLAN)
"""A rent option's lines its cloud's support plan is not a share of: its own people, and the plan itself."""


def _with_support(r: Resolved, lines: dict[str, np.ndarray], option: str = "rent") -> dict[str, np.ndarray]:
    """The rent option's cash lines with its support plan a share of the cloud lines as paid each month.

    The monthly view's plan is a share of the on-demand bill; in cash the GPU rental follows its
    price trend and a commitment moves it to reserved and spot lines, and the plan follows:
    support = max(s · Σ cloud lines of the month, m) (:func:`costmodel.formulas.support_plan_cost`).
    The lines unchanged without a plan.
    """
    rent = r.option(option)
    assert isinstance(rent, RentOption), "a rent option's lines"
    if rent.extras is None or rent.extras.support_share is None:
        return lines
    shape = np.broadcast_shapes(*(np.shape(value) for value in lines.values()))
    bill = sum(
        (np.asarray(value, dtype=float) for name, value in lines.items() if name not in _NOT_BILLED_BY_THE_CLOUD),
        np.zeros(shape),
    )
    out = dict(lines)
    out[Component.SUPPORT_PLAN] = np.asarray(
        formulas.support_plan_cost(bill, rent.extras.support_share, rent.extras.support_minimum_per_month),
        dtype=float,
    )
    return out


def _lease_lines(r: Resolved, lease, leased, months: np.ndarray) -> dict[str, np.ndarray]:
    """Lease payments (in advance) and, for a finance lease, the buy-out or the pay-off at the horizon."""
    horizon, term = len(months), lease.term_months
    i = lease.rate_per_year / MONTHS_PER_YEAR
    leased = np.asarray(leased, dtype=float)
    payments, buyout = np.zeros(leased.shape + (horizon,)), np.zeros(leased.shape + (horizon,))
    if lease.kind == "finance":
        payment = np.asarray(formulas.lease_payment(leased, lease.rate_per_year, term, lease.residual_share))
        payments[..., : min(term, horizon)] = payment[..., None]
        if term < horizon:
            buyout[..., term] = leased * lease.residual_share
        else:  # still leased at the horizon: pay off what is left, discounted at the lease rate
            left = np.arange(horizon, term) - (horizon - 1)
            buyout[..., -1] = payment * np.sum(1.0 / (1 + i) ** left) + leased * lease.residual_share / (1 + i) ** (
                term - (horizon - 1)
            )
        return {CashLine.LEASE_PAYMENTS: payments, CashLine.LEASE_BUYOUT: buyout}
    price = price_factor(r, "hardware", months)
    for start in range(0, horizon, term):  # leased again at each term's end, at that month's price
        payments[..., start : start + term] = np.asarray(
            formulas.lease_payment(leased * price[start], lease.rate_per_year, term, lease.residual_share)
        )[..., None]
    return {CashLine.LEASE_PAYMENTS: payments}


def reserved_busy_hours(r: Resolved, hours, gpus):
    """GPU-hours of work reserved GPUs serve each month, at the utilisation ceiling. [GPU-h]

    Steady demand: min(H, g · u · 730). With a demand profile, the hours above the reserved
    capacity in each hour of the profile go on demand: 730 · a · S(g · u / a), a = H / 730
    the month's average GPUs busy and S the mean of min(d, level) over the profile's distribution d (mean 1)
    (:func:`costmodel.formulas.served_below`).
    """
    hours = np.asarray(hours, dtype=float)
    if r.demand is None:
        capacity = np.asarray(gpus, dtype=float) * r.workload.utilisation_ceiling
        return np.minimum(hours, capacity * HOURS_PER_MONTH)
    capacity = np.asarray(gpus, dtype=float) * r.workload.hourly_ceiling  # busy GPUs the commitment serves
    average = hours / HOURS_PER_MONTH
    level = np.divide(capacity, average, out=np.full(np.broadcast(capacity, average).shape, np.inf), where=average > 0)
    return hours * _served_below(r.demand, level)


def _served_below(demand: DemandInputs, level):
    """:func:`costmodel.formulas.served_below` of the profile's distribution at levels, once per sample where a
    level is the same every month.

    Sampled cash flows hold (samples, months) levels that often vary by sample only (no growth, no
    trend in the volume): the binary search over the profile then runs on (samples, 1). The distribution
    is sorted once per profile (:attr:`~costmodel.demand_inputs.DemandInputs.sorted_distribution`).
    """
    curve = demand.sorted_distribution
    level = np.asarray(level, dtype=float)
    if level.ndim and level.shape[-1] > 1:
        first = level[..., :1]
        if np.array_equal(np.broadcast_to(first, level.shape), level):
            return np.broadcast_to(formulas.served_below_sorted(curve, first), level.shape)
    return formulas.served_below_sorted(curve, level)


def spot_busy_hours(r: Resolved, hours, reserved_gpus):
    """GPU-hours of work spot capacity serves each month above the reserved GPUs, at most its cap at once. [GPU-h]

    The spot slice of demand lies between the reserved capacity C_r = g · u and C_r + cap · u;
    steady: min(H − served by C_r, cap · u · 730); with a profile, 730 · a · (S((C_r + cap·u)/a) − S(C_r/a)).
    """
    rent = r.option("rent")
    assert isinstance(rent, RentOption), "the rent option is rented GPUs"
    spot = rent.spot
    assert spot is not None, "called for a rent option with spot capacity"
    hours = np.asarray(hours, dtype=float)
    ceiling = r.workload.hourly_ceiling if r.demand is not None else r.workload.utilisation_ceiling
    low = np.asarray(reserved_gpus, dtype=float) * ceiling
    high = low + (np.inf if spot.max_gpus is None else spot.max_gpus * ceiling)
    if r.demand is None:
        below = np.minimum(hours, low * HOURS_PER_MONTH)
        return np.minimum(hours - below, (high - low) * HOURS_PER_MONTH)
    average = hours / HOURS_PER_MONTH
    shape = np.broadcast(low, average).shape

    demand = r.demand

    def served(level):
        level = np.broadcast_to(level, shape)
        return _served_below(demand, np.divide(level, average, out=np.full(shape, np.inf), where=average > 0))

    return hours * (served(high) - served(low))


def committed_flows(
    r: Resolved, parts: dict[str, np.ndarray], hours: np.ndarray, months: np.ndarray, commitment, spot: bool = False
):
    """The rent option's lines with reserved GPUs: the commitment paid by its terms, the rest on demand.

    ``parts`` are the rent option's lines all on demand (:func:`rent_cash_flows`); they are not changed.
    With ``spot`` (a rent option billed by the GPU-hour, with spot terms), spot capacity takes what the
    reserved GPUs leave, up to its cap, at its price (with the rental price trend), before on-demand;
    a commitment of 0 GPUs is spot and on-demand only.
    """
    rent = r.option("rent")
    assert isinstance(rent, RentOption), "the rent option is rented GPUs"
    if spot and rent.billing == "per_gpu_hour_used" and rent.spot is not None:
        out = (
            dict(parts)
            if not np.any(np.asarray(commitment.gpus) > 0)
            else committed_flows(r, parts, hours, months, commitment)
        )
        trend = price_factor(r, "rental", months)
        by_spot = spot_busy_hours(r, hours, commitment.gpus)
        out[Component.GPU_RENTAL] = np.maximum(
            out[Component.GPU_RENTAL] - by_spot * rent.price_per_gpu_hour * trend, 0.0
        )
        out[CashLine.SPOT] = by_spot * rent.spot.price_per_gpu_hour * trend
        return _with_support(r, out)
    if rent.reserved is None:
        raise ValueError("finance.rent_commitment needs the rent option's reserved block (term and price)")
    term = 12 * rent.reserved.term_years
    trend = price_factor(r, "rental", months)
    committed = np.asarray(commitment.gpus, dtype=float)
    reserved_hours = committed * HOURS_PER_MONTH
    out = dict(parts)
    if rent.billing == "always_on":
        gpus = np.asarray(out[Component.GPU_RENTAL]) / (rent.price_per_gpu_hour * HOURS_PER_MONTH * trend)
        out[Component.GPU_RENTAL] = (
            np.maximum(gpus - committed, 0.0) * rent.price_per_gpu_hour * HOURS_PER_MONTH * trend
        )
    else:
        on_demand = np.asarray(hours, dtype=float) - reserved_busy_hours(r, hours, committed)
        out[Component.GPU_RENTAL] = np.maximum(on_demand, 0.0) * rent.price_per_gpu_hour * trend
    shape = np.broadcast_shapes(
        np.shape(reserved_hours * rent.reserved.price_per_gpu_hour), np.shape(trend), months.shape
    )
    paid, ahead = np.zeros(shape), np.zeros(shape)
    upfront = {"all_upfront": 1.0, "partial_upfront": commitment.upfront_share, "no_upfront": 0.0}[commitment.payment]
    for start in range(0, len(months), term):
        whole = np.asarray(
            reserved_hours * term * rent.reserved.price_per_gpu_hour * trend[..., start : start + 1], dtype=float
        )
        whole = whole.reshape(whole.shape[:-1]) if whole.ndim and whole.shape[-1] == 1 else whole  # the term's price
        ahead[..., start] += upfront * whole
        paid[..., start : start + term] += np.asarray((1.0 - upfront) * whole / term)[..., None]
    out[CashLine.RESERVED] = paid
    if upfront:
        out[CashLine.RESERVED_UPFRONT] = ahead  # paid at the term's start
    return _with_support(r, out)


def residual_share(r: Resolved, age_months: Numbers) -> Values:
    """Resale value of hardware of an age as a share of what it cost, on the finance block's curve. [-]"""
    curve, life = r.finance.residual, useful_life(r)
    return formulas.residual_share(age_months, life, curve.method, curve.rate_per_year, curve.ages_months, curve.shares)


def _lead(value) -> tuple[int, ...]:
    """The sample axes of a value: its shape without the trailing length-1 axis samples carry."""
    shape = np.shape(value)
    return shape[:-1] if shape and shape[-1] == 1 else shape


def _per_row(value, shape: tuple[int, ...]) -> np.ndarray:
    """A scalar or a per-sample value (samples shaped (n, 1)) as one value per row of lines of ``shape``."""
    a = np.asarray(value, dtype=float)
    a = a.reshape(_lead(a))
    return np.broadcast_to(a, shape[:-1]).reshape(-1)


def _refresh(r: Resolved, at_today: np.ndarray, months: np.ndarray):
    """Refresh purchases, resale of the replaced hardware, and the cost of what is held at the horizon.

    Each purchase (at today's prices, ``at_today``) is bought again every useful life while
    the horizon lasts, at the hardware price trend of that month; the replaced hardware is
    sold in the same month at its residual share at the age of one useful life. Leading axes
    (samples, each with its own useful life) are kept.

    Returns
    -------
    tuple of numpy.ndarray
        Refresh purchases, resale credits (negative) by month, and the price paid for the
        hardware held at the horizon, by month of its (last) purchase. [reporting currency]
    """
    horizon = len(months)
    lives, worths = useful_life(r), residual_share(r, useful_life(r))
    trend = np.asarray(price_factor(r, "hardware", months), dtype=float)
    lead = np.broadcast_shapes(np.shape(at_today)[:-1], trend.shape[:-1], *(_lead(x) for x in (lives, worths)))
    shape = lead + (horizon,)
    bought = np.broadcast_to(np.asarray(at_today, dtype=float), shape).reshape(-1, horizon)
    rows = np.arange(bought.shape[0])
    life = _per_row(lives, shape).astype(int)
    worth = _per_row(worths, shape)
    price = np.broadcast_to(trend, shape).reshape(-1, horizon)  # each row's price trend by month
    refresh, credit, held = (np.zeros_like(bought) for _ in range(3))
    for month in np.flatnonzero(np.any(bought != 0, axis=0)):
        amount = bought[:, month]
        when = np.full(rows.size, int(month))
        while True:
            again = when + life
            due = (again < horizon) & (amount != 0)
            if not due.any():
                break
            np.add.at(refresh, (rows[due], again[due]), amount[due] * price[rows[due], again[due]])
            np.add.at(credit, (rows[due], again[due]), -amount[due] * price[rows[due], when[due]] * worth[due])
            when = np.where(due, again, when)
        np.add.at(held, (rows, when), amount * price[rows, when])
    return refresh.reshape(shape), credit.reshape(shape), held.reshape(shape)


def _resale_value(r: Resolved, held: np.ndarray, months: np.ndarray):
    """Hardware value at the end of the horizon: a share of its price, or its value on the residual curve."""
    finance = r.finance
    if finance.resale_share_at_horizon is not None:
        return np.sum(held, axis=-1) * finance.resale_share_at_horizon
    age = finance.horizon_months - months  # months each purchase has aged by the end
    return np.sum(held * residual_share(r, age), axis=-1)


def rental_prices(scenario: Scenario | Resolved) -> list[tuple[str, str, float]]:
    """On-demand rental prices of the own cluster's GPU: (offer, label, price in reporting currency).

    The scenario's own rental offer first, then each other provider's cheapest catalog offer for the
    same GPU (one a provider: its regions and instance sizes would repeat the same comparison),
    cheapest first.
    """
    r = as_resolved(scenario)
    own = r.option("own")
    assert isinstance(own, OwnOption), "the own option is an owned cluster"
    gpu = own.server.gpu
    offers = {}
    rent = r.options.get("rent")
    if isinstance(rent, RentOption):
        offers[rent.offer.offer] = (rent.offer, rent.price_per_gpu_hour)
    cheapest: dict[str, tuple] = {}
    for ident, offer in r.catalog.cloud_offers_of(gpu):
        if ident not in offers:
            price = offer.price_per_gpu_hour * r.scenario.fx_rate(offer.currency)
            if offer.provider not in cheapest or price < cheapest[offer.provider][2]:
                cheapest[offer.provider] = (ident, offer, price)
    shown = {o.provider for o, _ in offers.values()}
    for ident, offer, price in sorted(cheapest.values(), key=lambda item: (item[2], item[0])):
        if offer.provider not in shown:
            offers[ident] = (offer, price)
    return [(ident, f"{o.provider} ({ident})", float(price)) for ident, (o, price) in offers.items()]


def own_cost_per_used_gpu_hour(scenario: Scenario | Resolved, utilisation: Numbers) -> Values:
    """Own monthly (accrual) cost per used GPU-hour of the cluster as priced at a utilisation (the configured one,
    stepped up where the load needs more servers).

    See :func:`costmodel.formulas.cost_per_used_gpu_hour`.

    Parameters
    ----------
    utilisation
        Share of the working GPUs' hours used, in (0, 1], scalar or array. [-]

    Returns
    -------
    float or numpy.ndarray
        [reporting currency/GPU-h]
    """
    fixed, variable, gpus = _priced_cluster(as_resolved(scenario))
    return formulas.cost_per_used_gpu_hour(fixed, variable, gpus, utilisation)


def _priced_cluster(r: Resolved) -> tuple[float, float, float]:
    """The own cluster as it is priced (:func:`costmodel.domain.capacity.own_servers_priced`): its monthly cost at
    zero use, the cost of a GPU-hour used, and its GPUs. [reporting currency/month], [reporting currency/GPU-h],
    [GPU]"""
    own = r.option("own")
    assert isinstance(own, OwnOption), "the own option is an owned cluster"
    servers = own_servers_priced(r)
    fixed, variable = own_fixed_and_variable(own, servers)
    return fixed, variable, servers * own.gpus_per_server


def break_even_utilisation(scenario: Scenario | Resolved, price_per_gpu_hour: float) -> float | None:
    """Utilisation at which owning costs ``price_per_gpu_hour`` per used GPU-hour, of the cluster as priced (the
    configured one, stepped up where the load needs more servers: the utilisation the monthly view states). [-]

    See :func:`costmodel.formulas.break_even_utilisation`; None when never.
    """
    fixed, variable, gpus = _priced_cluster(as_resolved(scenario))
    share = formulas.break_even_utilisation(fixed, variable, gpus, price_per_gpu_hour)
    return None if share is None else scalar(share)


def present_value_of(r: Resolved, flows, at_start=None):
    """Present value of monthly cash flows at the finance block's rate and convention. [currency]

    ``flows`` has the months on its last axis; leading axes (samples) are kept. ``at_start``:
    the part of each month's flow paid at its start, for the ``capital_begin`` timing.
    """
    f = r.finance
    return formulas.npv_with_convention(flows, f.discount_rate_per_year, f.npv.period, f.npv.timing, at_start)


def present_values(
    scenario: Scenario | Resolved, flows: CashFlows | None = None
) -> tuple[dict[str, float | np.ndarray], dict[str, float | np.ndarray]]:
    """Each option's NPV and TCO over the horizon: (npv_by_option, tco_by_option). [currency]

    The NPV discounts each month's total at the finance block's rate and convention
    (:func:`costmodel.formulas.npv_with_convention`); the TCO is the undiscounted sum. The two
    figures of :func:`own_finance` that a sweep tabulates, without the work of its returns, payback
    and break-even utilisations.

    Raises
    ------
    ValueError
        No finance block.
    """
    r = as_resolved(scenario)
    flows = flows or cash_flows(r)
    tco = {o: _scalar(np.sum(flows.total(o), axis=-1)) for o in flows.flows}
    npv = {o: _scalar(present_value_of(r, flows.total(o), flows.at_start(o))) for o in flows.flows}
    return npv, tco


def _scalar(x) -> float | np.ndarray:
    """A float for a 0-d result; the array (one value per sample) otherwise."""
    x = np.asarray(x, dtype=float)
    x = x.reshape(x.shape[:-1]) if x.ndim and x.shape[-1] == 1 else x
    return float(x) if x.ndim == 0 else x


def own_finance(scenario: Scenario | Resolved, flows: CashFlows | None = None) -> OwnFinance:
    """TCO, present value, cost per used GPU-hour, utilisation, break-even utilisations and payback.

    Raises
    ------
    ValueError
        No finance block, or no own option.
    """
    r = as_resolved(scenario)
    own = r.option("own")
    assert isinstance(own, OwnOption), "the own option is an owned cluster"
    flows = flows or cash_flows(r)
    finance = r.finance
    rate = finance.discount_rate_per_year
    convention = finance.npv
    npv, tco = present_values(r, flows)
    online = flows.months >= flows.online_month
    used = float(flows.gpu_hours[online].sum())
    offered = float((flows.servers * own.gpus_per_server * HOURS_PER_MONTH)[online].sum())
    own_lines = flows.flows["own"]
    own_only = sum(v.sum() for k, v in own_lines.items() if k != CashLine.STAND_IN)
    against = "rent" if "rent" in flows.flows else ("api" if "api" in flows.flows else None)
    returns = investment_returns(r, flows, against)
    months = returns.get("payback_months")
    payback = None if months is None else int(np.ceil(months - 1e-9))
    if finance.trends.inflation_per_year != 0:
        returns["real_discount_rate_per_year"] = formulas.fisher_real_rate(rate, finance.trends.inflation_per_year)
    if finance.tax is not None:
        taxed = after_tax(r, flows)
        returns |= {
            "tax_rate": finance.tax.rate,
            "after_tax_tco_by_option": {o: float(taxed.total(o).sum()) for o in taxed.flows},
            "after_tax_npv_by_option": {
                o: float(present_value_of(r, taxed.total(o), taxed.at_start(o))) for o in taxed.flows
            },
            "after_tax_irr_per_year": (
                formulas.per_year(formulas.irr(gains(taxed, against))) if against is not None else None
            ),
        }
    breaks = tuple(
        UtilisationBreakEven(ident, label, price, break_even_utilisation(r, price))
        for ident, label, price in rental_prices(r)
    )
    return OwnFinance(
        horizon_months=finance.horizon_months,
        discount_rate_per_year=rate,
        tco_by_option={o: scalar(v) for o, v in tco.items()},  # one scenario's flows: one figure each
        npv_by_option={o: scalar(v) for o, v in npv.items()},
        cost_per_used_gpu_hour=float(own_only) / used if used > 0 else None,
        utilisation=used / offered if offered > 0 else None,
        break_even_utilisation=breaks,
        payback_month=payback,
        payback_against=against,
        npv_period=convention.period,
        npv_timing=convention.timing,
        **returns,
        yearly_by_option={o: tuple(float(v) for v in formulas.yearly_totals(flows.total(o))) for o in flows.flows},
    )


CAPITAL_LINES = (
    CashLine.HARDWARE_CAPEX,
    CashLine.LOAN_PAYMENTS,
    CashLine.FACILITY_CAPEX,
    CashLine.REFRESH,
    CashLine.LEASE_PAYMENTS,
    CashLine.LEASE_BUYOUT,
)
"""The own option's cash lines that are paid for hardware and facility: the investment of the ROI."""


def gains(flows: CashFlows, against: str) -> np.ndarray:
    """What owning saves each month against another option: its cash out minus own's. [reporting currency]"""
    return flows.total(against) - flows.total("own")


def investment_returns(r: Resolved, flows: CashFlows, against: str | None) -> dict:
    """IRR, MIRR, ROI, investment and (discounted) fractional payback of owning instead of ``against``.

    IRR and MIRR are numpy-financial's on the monthly gains (finance and reinvestment rate:
    the monthly discount rate), made yearly; the paybacks (:func:`costmodel.formulas.payback`)
    put each month's investment (:data:`costmodel.results.START_LINES`) at its start and every
    other flow at its end, and count the payback where owning stays ahead for good.
    """
    if against is None:
        return {}
    gain = gains(flows, against)
    start = flows.at_start(against) - flows.at_start("own")
    monthly = scalar(formulas.monthly_rate(r.finance.discount_rate_per_year))
    own = flows.flows["own"]
    investment = float(sum(np.clip(own[line], 0.0, None).sum() for line in CAPITAL_LINES if line in own))
    return {
        "irr_per_year": formulas.per_year(formulas.irr(gain)),
        "mirr_per_year": formulas.per_year(formulas.mirr(gain, monthly, monthly)),
        "roi": formulas.roi(float(gain.sum()), investment),
        "investment": investment,
        "payback_months": formulas.payback(start, gain - start),
        "discounted_payback_months": formulas.payback(start, gain - start, monthly),
    }


__all__ = [
    "CAPITAL_LINES",
    "break_even_utilisation",
    "cash_flows",
    "gains",
    "investment_returns",
    "price_factor",
    "reserved_forward_factors",
    "reserved_prices",
    "residual_share",
    "useful_life",
    "own_cost_per_used_gpu_hour",
    "own_finance",
    "rental_prices",
]

"""Demand over a year and the cheapest mix of capacity, each kind bought the way it is sold.

A demand profile turns the workload's average into GPUs busy in each hour of a year
(:mod:`costmodel.domain.demand`). Capacity for an hour's demand d is d / u GPUs, u the
hourly utilisation ceiling (:attr:`costmodel.resolved.WorkloadInputs.hourly_ceiling`). The
kinds of capacity and the units they come in:

* **own**: whole servers holding whole replicas, the spare replicas among them and the hot
  spares (``spare_share``) on top, each costed by the own option's monthly cost function
  (:func:`costmodel.domain.costs.own_costs_at`: depreciation, support, housing, staff for the
  GPUs held, electricity for the busy hours), so n servers cost what the own option with n
  servers costs;
* **reserved** and **rented 24/7**: whole replicas (plus the spare replicas), paid every hour;
* **on-demand** and **spot**: busy GPU-hours (spot at most its cap in GPUs at once, its price
  raised by the work redone after interruptions);
* **API**: tokens, at the cheapest API offer over the demand (each hour at its clock price
  where the offer has price windows).

The rent option's staffing is paid once any rented kind is used, for the GPUs rented. With a
``data_and_support`` block the data lives where the GPUs are: owned servers carry the storage,
CPU nodes and transit (in their monthly cost); without owned servers the rented kinds carry the
rent option's storage, egress and CPU nodes; and the rent option's support plan is a share of the
rented kinds' bill (:meth:`_Dispatch.rent_lines`). The rented layers' costs include these lines.

Dispatch in each hour: held capacity serves first (the rented kind, whose busy hours cost
nothing more, then the owned servers, whose busy hours cost their electricity); what is left
goes to the kind paid by use that is cheapest in that hour, spot up to its cap. With S(C) the
mean over hours of min(d_h, C) (:func:`costmodel.formulas.served_below`), a mix of held
capacity C_r (rented) and C_o (owned) costs

    F_r + F_o + 730 · [v_o (S(C_r + C_o) − S(C_r)) + Σ_h p_h (d_h − min(d_h, C_r + C_o)) / H] + staff,

so every pair (owned servers, rented replicas) up to what the peak needs is evaluated at once,
and the cheapest kept. Each kind alone (held kinds sized for the peak, at least the scenario's
configured count) is a point of that search, so the mix never costs more than the cheapest
kind it could use alone; those pure figures are the options' own costs for the same hourly
demand.

The mix is a purchase (how many servers to own, how many GPUs to reserve), decided once on one
value per input, as a finance reviewer signs it off: it is not searched again for each sample of
an uncertain input, which would let every sample buy with hindsight and understate the risk of
the purchase. A scenario resolved with samples (:func:`costmodel.domain.uncertainty.with_values`
given arrays) is refused with a :class:`ValueError` naming the sampled inputs; each kind of
capacity alone (:func:`pure_costs`) broadcasts over samples, and that is what the Monte Carlo
prices.

References
----------
.. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3 (screening
   curves and load-duration curves).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import formulas
from ..formulas.shapes import scalar
from ..resolved import ApiOption, RentOption, Resolved, as_resolved
from ..results import LAYER_LABELS, Layer, Mix, MixLayer, MixResult
from ..schema import Scenario, TokensWorkload
from ..units import HOURS_PER_MONTH
from .api_clock import api_clock_factor
from .capacity import api_option, gpu_hours_used, own_option, own_servers_for, rent_gpus_for, rent_option_if_any
from .capacity import rent_option as rented_option
from .costs import monthly_cost, own_costs_at, rent_extra_lines, staffing_month
from .demand import hourly_demand

GRID_LIMIT = 1_000_000
"""Most (owned servers, rented replicas) pairs evaluated at once; above it a coarse grid, then a finer one."""


def _point_valued(r: Resolved, what: str = "the cheapest mix") -> None:
    """Refuse a scenario resolved with samples of its inputs: the mix is chosen on one value per input.

    Parameters
    ----------
    r
        The resolved scenario.
    what
        What is refused, for the message.

    Raises
    ------
    ValueError
        An input of ``r`` holds an array of samples (named in the message).
    """
    sampled = r.sampled_inputs()
    if sampled:
        raise ValueError(
            f"{what} is a purchase chosen on one value per input, not searched for each sample: "
            f"{', '.join(sampled)} {'holds' if len(sampled) == 1 else 'hold'} an array of samples; resolve the "
            "scenario with a number for each (each kind of capacity alone, pure_costs, takes samples)"
        )


def steady_series(series: np.ndarray) -> np.ndarray:
    """The same average demand spread evenly over every hour, for comparison. [GPU]"""
    return np.full(len(series), float(np.mean(series)))


# --- what the scenario offers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Offer:
    """The kinds of capacity a scenario offers, priced for the hour-by-hour dispatch.

    Money in the reporting currency; ``None`` for a kind not offered.

    Attributes
    ----------
    ceiling
        Hourly utilisation ceiling u. [-]
    replica
        GPUs per replica R. [GPU]
    spare
        Spare GPUs (whole spare replicas) each held fleet carries. [GPU]
    minimum
        Fewest working GPUs a fleet serves with (disaggregated serving: a replica per pool). [GPU]
    own_step
        GPUs the owned fleet adds at a time (whole servers holding whole replicas). [GPU]
    gpus_per_server
        [GPU]
    own_variable
        Own electricity per busy GPU-hour above idle. [currency/GPU-h]
    held_kind, held_price
        The cheaper rented kind paid every hour (reserved, else rented 24/7) and its price. [currency/GPU-h]
    always_on_price
        The rented-24/7 price, when the rent option is billed so (for its pure figure). [currency/GPU-h]
    on_demand_price, spot_price, spot_cap
        Prices per busy GPU-hour, and spot's cap in GPUs at once. [currency/GPU-h], [GPU]
    api_option, api_prices
        The cheapest API option over the demand and its price per busy GPU-hour of each hour. [currency/GPU-h]
    api_pure
        API option → its cost alone for the demand. [currency/month]
    rent_option
        The rent option whose offer the rented kinds are (``rent``, or one of ``options.rents``, priced on
        demand); None without one.
    spot_limit
        Spot's limit in each hour, when it changes by the hour (a fleet whose members each cap their own
        spot use); it replaces ``spot_cap``. Shape (hours,). [GPU busy]
    """

    ceiling: float
    replica: int
    spare: int
    minimum: int
    own_step: int | None
    gpus_per_server: int | None
    own_variable: float | None
    held_kind: str | None
    held_price: float | None
    always_on_price: float | None
    on_demand_price: float | None
    spot_price: float | None
    spot_cap: float | None
    api_option: str | None
    api_prices: np.ndarray | None
    api_pure: dict[str, float]
    rent_option: str | None = "rent"
    spot_limit: np.ndarray | None = None

    @property
    def spot_top(self) -> float | np.ndarray:
        """Demand spot may serve in each hour: its hourly limit, its cap at the ceiling, or no limit. [GPU busy]"""
        if self.spot_limit is not None:
            return self.spot_limit
        return np.inf if self.spot_cap is None else self.spot_cap * self.ceiling


def _api_hour_prices(r: Resolved, option: str, hours: int) -> np.ndarray:
    """An API option's price per busy GPU-hour in each hour of the demand (price windows applied). [currency/GPU-h]

    Shape (hours,), or (samples, hours) with sampled prices.
    """
    listed = (
        np.asarray(monthly_cost(r, option, 1.0), dtype=float)
        / api_clock_factor(r, option)
        / np.asarray(gpu_hours_used(r, 1.0), dtype=float)
    )
    factors = api_option(r, option).hour_price_factors
    factors = np.ones(hours) if factors is None else np.resize(np.asarray(factors, dtype=float), hours)
    return listed[..., None] * factors if listed.ndim else float(listed) * factors


def ceiling_of(r: Resolved):
    """The utilisation ceiling capacity for a series is sized with. [-]

    With a demand profile each hour carries its own peak: the hourly ceiling. Without one, a
    flat series stands for the monthly view's average, sized with its ceiling (a served
    model's peak allowance included).
    """
    return r.workload.hourly_ceiling if r.demand is not None else r.workload.utilisation_ceiling


def rent_options(r: Resolved) -> list[str]:
    """The rent options: ``rent`` first, then those of ``options.rents`` (``rent:<name>``)."""
    return [name for name, option in r.options.items() if option.kind == "rent"]


def offer(
    scenario: Scenario | Resolved, series: np.ndarray, rent_option: str = "rent", spot_limit: np.ndarray | None = None
) -> Offer:
    """The kinds of capacity the scenario offers, priced for a demand series.

    The rented kinds are those of ``rent_option`` (default the main rent option; one of
    ``options.rents`` has its offer's on-demand price only: no reserved or spot terms).
    ``spot_limit`` (shape of ``series``, [GPU busy]) replaces the spot cap by a limit for each hour
    and lets spot in whatever the scenario's workload is (a fleet's members say which may use it).

    Raises
    ------
    ValueError
        The scenario offers no kind of capacity.
    """
    r = as_resolved(scenario)
    _point_valued(r, "the offer of the cheapest mix")
    work = r.workload
    own_step = per_server = own_variable = None
    if "own" in r.options:
        own = own_option(r)
        own_step = own.step_gpus if work.kind == "tokens" else own.gpus_per_server
        per_server = own.gpus_per_server
        one = float(own.server_count)
        hours = own.configured_gpus * HOURS_PER_MONTH
        own_variable = (
            float(sum(own_costs_at(own, one, hours).values()) - sum(own_costs_at(own, one, 0.0).values())) / hours
        )
    held_kind = held_price = always_on = on_demand = spot_price = spot_cap = None
    if rent_option in r.options:
        rent = rented_option(r, rent_option)
        if rent.billing == "always_on":
            held_kind = Layer.ALWAYS_ON
            held_price = always_on = float(rent.price_per_gpu_hour)
        else:
            on_demand = float(rent.price_per_gpu_hour)
        if rent.reserved is not None and (held_price is None or rent.reserved.price_per_gpu_hour < held_price):
            held_kind, held_price = Layer.RESERVED, float(rent.reserved.price_per_gpu_hour)
        if rent.spot is not None and (
            spot_limit is not None
            or not isinstance(r.scenario.workload, TokensWorkload)
            or r.scenario.workload.interruptible
        ):
            spot_price = float(rent.spot.price_per_gpu_hour)
            spot_cap = None if rent.spot.max_gpus is None else float(rent.spot.max_gpus)
    apis = [name for name, option in r.options.items() if option.kind == "api"] if work.kind == "tokens" else []
    api_option = api_prices = None
    pure: dict[str, float] = {}
    if apis and float(gpu_hours_used(r, 1.0)) > 0:
        prices = {name: _api_hour_prices(r, name, len(series)) for name in apis}
        pure = {name: HOURS_PER_MONTH * float(np.mean(prices[name] * series)) for name in apis}
        api_option = min(apis, key=lambda name: (pure[name], apis.index(name)))
        api_prices = prices[api_option]
    if own_step is None and held_kind is None and on_demand is None and spot_price is None and api_option is None:
        raise ValueError("the scenario offers no kind of capacity")
    return Offer(
        float(ceiling_of(r)),
        int(work.gpus_per_replica),
        int(work.spare_gpus),
        int(work.minimum_gpus),
        own_step,
        per_server,
        own_variable,
        held_kind,
        held_price,
        always_on,
        on_demand,
        spot_price,
        spot_cap,
        api_option,
        api_prices,
        pure,
        rent_option if rent_option in r.options else None,
        None if spot_limit is None else np.asarray(spot_limit, dtype=float),
    )


def offer_names(r: Resolved, rent_option: str | None = "rent") -> dict[str, str]:
    """Kind of capacity (each API option, and each of ``options.rents``, by its option name) → what is bought, named.

    The rented kinds (``always_on``, ``on_demand``, ...) name ``rent_option``'s offer.
    """
    names = {}
    if "own" in r.options:
        own = own_option(r)
        names[Layer.OWN] = f"{own.server.server} ({own.gpus_per_server} × {own.server.gpu})"
    for name in rent_options(r):
        if name == "rent":
            continue
        rent = rented_option(r, name)
        names[name] = f"{rent.label}: {rent.offer.gpu} at {rent.offer.provider}, " + (
            "on-demand price, 24/7" if rent.billing == "always_on" else "on demand by the GPU-hour"
        )
    if rent_option in r.options:
        rent = rented_option(r, rent_option)
        where = f"{rent.offer.gpu} at {rent.offer.provider}"
        if rent_option != "rent":
            where = f"{rent.label}: {where}"
        names[Layer.ALWAYS_ON] = f"{where}, on-demand price, 24/7"
        names[Layer.ON_DEMAND] = f"{where}, on demand by the GPU-hour"
        if rent.reserved is not None:
            names[Layer.RESERVED] = f"{where}, {rent.reserved.term_years}-year reserved"
        if rent.spot is not None:
            names[Layer.SPOT] = f"{where}, spot"
    generic = sum(o.kind == "api" for o in r.options.values()) == 1
    for name, option in r.options.items():
        if isinstance(option, ApiOption):  # one API: its offer; several: each by its label too (tiers of one model)
            names[name] = f"{option.offer.model} ({option.offer.provider})" if generic else api_offer_label(r, name)
    return names


def api_offer_label(r: Resolved, name: str) -> str:
    """An API option named with its offer: "Hosted API: Claude Opus 4.5 (Anthropic)", or, where the label
    already names the model, "Claude Sonnet 4.5, 30 % batch (Anthropic)"."""
    api = api_option(r, name)
    model, provider = api.offer.model, api.offer.provider
    if re.sub(r"\s*\(.*\)$", "", model).lower() in api.label.lower():  # "... (deepseek-flash)": its model id
        return f"{api.label} ({provider})"
    return f"{api.label}: {model} ({provider})"


# --- the costs of held capacity ----------------------------------------------------------------------------


def _own_fixed(r: Resolved, servers: np.ndarray) -> np.ndarray:
    """Monthly cost of n owned servers at zero use (0 for none). [currency/month]"""
    own = own_option(r)
    n = np.asarray(servers, dtype=float)
    fixed = sum(np.asarray(v, dtype=float) for v in own_costs_at(own, np.maximum(n, 1e-300), 0.0).values())
    return np.where(n > 0, fixed, 0.0)


def _own_capacity(o: Offer, servers: np.ndarray) -> np.ndarray:
    """Demand n owned servers serve at the ceiling: whole fleet steps, spares excluded. [GPU busy]"""
    steps = np.floor(np.asarray(servers, dtype=float) * o.gpus_per_server / o.own_step + 1e-9)
    working = np.maximum(steps * o.own_step - o.spare, 0.0)
    return np.where(working >= max(o.minimum, 1e-300), working, 0.0) * o.ceiling


def _held_capacity(o: Offer, gpus: np.ndarray) -> np.ndarray:
    """Demand g rented GPUs held every hour serve: whole replicas, spares excluded. [GPU busy]"""
    g = np.asarray(gpus, dtype=float)
    working = np.floor(np.maximum(g - o.spare, 0.0) / o.replica + 1e-9) * o.replica
    return np.where(working >= max(o.minimum, 1e-300), working, 0.0) * o.ceiling


def _rent_staffing(r: Resolved, gpus, option: str | None = "rent") -> np.ndarray:
    rent = rent_option_if_any(r, option) if option is not None else None
    if rent is None or rent.staffing is None:
        return np.zeros_like(np.asarray(gpus, dtype=float))
    return np.asarray(staffing_month(rent.staffing, np.asarray(gpus, dtype=float)), dtype=float) + np.zeros_like(
        np.asarray(gpus, dtype=float)
    )


# --- the dispatch -----------------------------------------------------------------------------------------


class _Dispatch:
    """Monthly cost of every (owned servers, rented GPUs held) pair for one demand series."""

    def __init__(self, r: Resolved, o: Offer, series: np.ndarray, order: np.ndarray | None = None):
        """``order``: the hours in ascending order of demand (``numpy.argsort(series, kind="stable")``), if
        already found for another offer over the same series."""
        self.r, self.o, self.d = r, o, np.asarray(series, dtype=float)
        count = len(self.d)
        inf = np.full(count, np.inf)
        od = inf if o.on_demand_price is None else np.full(count, o.on_demand_price)
        api = inf if o.api_prices is None else o.api_prices
        self.flexible = np.minimum(od, api)  # cheapest kind paid by use, each hour
        self.spot = None if o.spot_price is None else np.minimum(o.spot_price, self.flexible)
        self.od_hours = od <= api  # on-demand chosen in these hours
        self.spot_hours = None if o.spot_price is None else o.spot_price < self.flexible
        finite = np.isfinite(self.flexible)
        self.peak = float(self.d.max()) if count else 0.0
        # without a kind paid by use (but capped spot), held capacity must reach the peak less spot's cap
        self.held_must_reach = None
        if not finite.all() and not (o.spot_price is not None and o.spot_cap is None and o.spot_limit is None):
            spot_top = np.asarray(o.spot_top if o.spot_price is not None else 0.0, dtype=float)
            self.held_must_reach = float(np.max(self.d - spot_top)) if count else 0.0
        self.od_peak = float(self.d[self.od_hours & finite].max()) if (self.od_hours & finite).any() else 0.0
        self.spot_peak = (
            float(self.d[self.spot_hours].max()) if self.spot_hours is not None and self.spot_hours.any() else 0.0
        )
        rent = rent_option_if_any(r, o.rent_option) if o.rent_option is not None else None
        self.extras = rent.extras if rent is not None else None  # its data_and_support lines, if any
        self._sorted: dict[str | None, formulas.SortedDemand] = {}  # the demand sorted, by the hours' weights
        self._order = np.argsort(self.d, kind="stable") if order is None else order
        # mean cost an hour of all demand paid by use (0 in hours with no kind paid by use)
        self._flexible_mean = float(np.mean(np.where(np.isfinite(self.flexible), self.flexible, 0.0) * self.d))

    def _served(self, levels, weights: str | np.ndarray | None = None):
        """:func:`~costmodel.formulas.served_below` of the demand, unweighted or weighted by the hour's
        ``"flexible"`` or ``"spot"`` price (the demand sorted once per weighting), or by other weights given
        as an array of the hours."""
        if isinstance(weights, np.ndarray):  # sorted by the order found once for the demand
            return formulas.served_below_sorted(formulas.sorted_demand(self.d, weights, self._order), levels)
        if weights not in self._sorted:
            w = None
            if weights is not None:
                price = self.flexible if weights == "flexible" else self.spot
                assert price is not None, "a spot weighting is asked for only where spot has a price"
                w = np.where(np.isfinite(price), price, 0.0)
            self._sorted[weights] = formulas.sorted_demand(self.d, w, self._order)
        return formulas.served_below_sorted(self._sorted[weights], levels)

    def _flexible_cost(self, level: np.ndarray) -> np.ndarray:
        """730 × the mean cost an hour of the demand above ``level``, paid by use. [currency/month]"""
        o, d = self.o, self.d
        if self.spot is None or not np.any(np.asarray(o.spot_top) > 0):
            return HOURS_PER_MONTH * (self._flexible_mean - self._served(level, "flexible"))
        if o.spot_limit is not None:
            # min(d_h, C + K_h) = K_h + min(d_h - K_h, C) with the limit K_h <= d_h: one sorted series again
            flex = np.where(np.isfinite(self.flexible), self.flexible, 0.0)
            spot_w = np.where(np.isfinite(self.spot), self.spot, 0.0)
            k = np.minimum(o.spot_limit, d)
            rest = d - k
            served_top_spot = float(np.mean(spot_w * k)) + self._served_of(rest, level, spot_w)
            served_top_flex = float(np.mean(flex * k)) + self._served_of(rest, level, flex)
            slice_cost = served_top_spot - self._served(level, "spot")
            return HOURS_PER_MONTH * (slice_cost + self._flexible_mean - served_top_flex)
        cap = o.spot_top
        top = level + cap
        slice_cost = self._served(top, "spot") - self._served(level, "spot")
        above = self._flexible_mean - self._served(top, "flexible") if np.isfinite(cap) else 0.0
        return HOURS_PER_MONTH * (slice_cost + above)

    @staticmethod
    def _served_of(series: np.ndarray, levels, weights: np.ndarray) -> np.ndarray:
        return formulas.served_below(series, levels, weights)

    def cost(self, servers, held) -> np.ndarray:
        """Monthly cost of the mix with ``servers`` owned and ``held`` rented GPUs; inf where demand goes unserved."""
        r, o = self.r, self.o
        servers, held = np.broadcast_arrays(np.asarray(servers, dtype=float), np.asarray(held, dtype=float))
        c_own = _own_capacity(o, servers) if o.own_step is not None else np.zeros_like(servers)
        c_held = _held_capacity(o, held) if o.held_kind is not None else np.zeros_like(held)
        level = c_own + c_held
        total = np.zeros_like(level)
        if o.own_step is not None:
            assert o.own_variable is not None, "an owned fleet is offered with its electricity price"
            total += _own_fixed(r, servers) + HOURS_PER_MONTH * o.own_variable * (
                self._served(level) - self._served(c_held)
            )
        if o.held_kind is not None:
            total += held * o.held_price * HOURS_PER_MONTH
        total += self._flexible_cost(level)
        total += self._staffing(held, level)
        if self.extras is not None:
            data, support = self.rent_lines(servers, held, level)
            total += data + support
        if self.held_must_reach is not None:
            total = np.where(level < self.held_must_reach - 1e-9, np.inf, total)
        return total

    def _rented_flexible_cost(self, level: np.ndarray) -> np.ndarray:
        """730 × the mean cost an hour of the demand above ``level`` that rented GPUs serve (on demand and
        spot, spot up to its limit in each hour as :meth:`hourly` dispatches it; the API's hours left out).
        [currency/month]"""
        o, d = self.o, self.d
        od = np.where(self.od_hours & np.isfinite(self.flexible), self.flexible, 0.0)
        if self.spot is None or not np.any(np.asarray(o.spot_top) > 0):
            return HOURS_PER_MONTH * (float(np.mean(od * d)) - self._served(level, od))
        assert self.spot_hours is not None and o.spot_price is not None, "spot is dispatched where it has a price"
        in_slice = np.where(self.spot_hours, o.spot_price, od)  # the slice above level: spot, else on demand
        if o.spot_limit is not None:
            # spot serves min(d_h, C + K_h) - min(d_h, C) in hour h, K_h its limit there (a fleet's members' own
            # caps), and min(d_h, C + K_h) = K_h + min(d_h - K_h, C) with K_h <= d_h, as in _flexible_cost
            k = np.minimum(o.spot_limit, d)
            rest = d - k
            served_top_slice = float(np.mean(in_slice * k)) + self._served_of(rest, level, in_slice)
            served_top_od = float(np.mean(od * k)) + self._served_of(rest, level, od)
            slice_cost = served_top_slice - self._served(level, in_slice)
            return HOURS_PER_MONTH * (slice_cost + float(np.mean(od * d)) - served_top_od)
        cap = np.inf if o.spot_cap is None else o.spot_cap * o.ceiling
        top = level + cap
        slice_cost = self._served(top, in_slice) - self._served(level, in_slice)
        above = float(np.mean(od * d)) - self._served(top, od) if np.isfinite(cap) else 0.0
        return HOURS_PER_MONTH * (slice_cost + above)

    def rent_lines(self, servers, held, level) -> tuple[np.ndarray, np.ndarray]:
        """The rent option's ``data_and_support`` lines in the mix: its storage, egress and CPU nodes where
        rented GPUs serve and no server is owned (owned servers hold the data, in their own cost), and its
        support plan on the rented GPUs' bill. [currency/month]

        Returns zeros for a rent option without the block.
        """
        o, extras = self.o, self.extras
        servers, held, level = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (servers, held, level)))
        if extras is None:
            return np.zeros_like(level), np.zeros_like(level)
        spend = self._rented_flexible_cost(level)
        if o.held_kind is not None and o.held_price is not None:
            spend = spend + np.where(held > 0, held * o.held_price * HOURS_PER_MONTH, 0.0)
        rented = spend > 0
        lines = (extras.storage_per_month, extras.egress_per_month, extras.cpu_nodes_per_month)
        data = np.where(rented & (servers == 0), sum(float(np.mean(x)) for x in lines if x is not None), 0.0)
        if extras.support_share is None:
            return data, np.zeros_like(level)
        plan = formulas.support_plan_cost(spend + data, extras.support_share, extras.support_minimum_per_month)
        return data, np.where(rented, plan, 0.0)

    def _staffing(self, held: np.ndarray, level: np.ndarray) -> np.ndarray:
        """The rent option's staff for the GPUs rented (held, and by use at the busiest hour), if any is rented."""
        o = self.o
        flexible_peak = np.maximum(self.od_peak - level, 0.0)
        if self.spot_hours is not None:
            cap = float(np.max(o.spot_top)) if np.size(o.spot_top) else 0.0
            flexible_peak = np.maximum(flexible_peak, np.minimum(np.maximum(self.spot_peak - level, 0.0), cap))
        by_use = np.where(
            flexible_peak > 0, formulas.whole_units(flexible_peak / o.ceiling, o.replica) * o.replica, 0.0
        )
        rented = np.where(held > 0, held, 0.0) + by_use + np.where((held == 0) & (by_use > 0), o.spare, 0.0)
        return np.where(rented > 0, _rent_staffing(self.r, rented, o.rent_option), 0.0)

    def hourly(self, servers: float, held: float) -> tuple[dict[str, np.ndarray], float]:
        """Demand each kind serves in each hour, and the mix's rented GPUs for the staff."""
        o, d = self.o, self.d
        c_own = float(_own_capacity(o, np.array(servers))) if o.own_step is not None else 0.0
        c_held = float(_held_capacity(o, np.array(held))) if o.held_kind is not None else 0.0
        found: dict[str, np.ndarray] = {}
        by_held = np.minimum(d, c_held)
        if o.held_kind is not None and held > 0:
            found[o.held_kind] = by_held
        by_own = np.minimum(d, c_own + c_held) - by_held
        if o.own_step is not None and servers > 0:
            found[Layer.OWN] = by_own
        rest = d - by_held - by_own
        if self.spot is not None:
            assert self.spot_hours is not None, "spot is dispatched only where it has a price"
            spot = np.where(self.spot_hours, np.minimum(rest, o.spot_top), 0.0)
            rest = rest - spot
            found[Layer.SPOT] = spot
        if o.on_demand_price is not None:
            found[Layer.ON_DEMAND] = np.where(self.od_hours, rest, 0.0)
        if o.api_option is not None:
            found[Layer.API] = np.where(self.od_hours, 0.0, rest)
        return {k: v for k, v in found.items() if k in (Layer.OWN, o.held_kind) or v.any()}, c_own + c_held


def _grid(o: Offer, r: Resolved, peak: float) -> tuple[np.ndarray, np.ndarray]:
    """Owned server counts and rented GPU counts to try: 0 up to the peak's need, and the pure options' counts."""
    need = peak / o.ceiling
    servers = np.zeros(1)
    if o.own_step is not None:
        steps = int(np.ceil((need + o.spare + max(o.minimum - need, 0)) / o.own_step - 1e-9)) + 1
        pure = float(own_servers_for(r, need))
        assert o.gpus_per_server is not None, "an owned fleet is offered with its server"
        servers = np.unique(np.concatenate([np.arange(steps + 1) * o.own_step / o.gpus_per_server, [pure]]))
    held = np.zeros(1)
    if o.held_kind is not None:
        replicas = int(np.ceil(max(need, o.minimum) / o.replica - 1e-9)) + 1
        assert o.rent_option is not None, "a held rented kind is offered by a rent option"
        pure = float(rent_gpus_for(r, need, o.rent_option))
        held = np.unique(np.concatenate([[0.0], np.arange(1, replicas + 1) * o.replica + o.spare, [pure]]))
    return servers, held


def _search(
    dispatch: _Dispatch, servers: np.ndarray, held: np.ndarray, fixed: dict[str, float] | None = None
) -> tuple[float, float, float]:
    """The cheapest (servers, held) pair, exhaustively or on a coarse grid refined around its best."""
    if fixed:
        servers = np.array([fixed["servers"]]) if "servers" in fixed else servers
        held = np.array([fixed["held"]]) if "held" in fixed else held

    def best_of(s: np.ndarray, h: np.ndarray) -> tuple[float, float, float]:
        costs = dispatch.cost(s[:, None], h[None, :])
        i, j = np.unravel_index(int(np.argmin(costs)), costs.shape)
        return float(s[i]), float(h[j]), float(costs[i, j])

    if servers.size * held.size <= GRID_LIMIT:
        return best_of(servers, held)
    side = int(np.sqrt(GRID_LIMIT))
    coarse_s = servers[np.unique(np.linspace(0, servers.size - 1, min(side, servers.size)).round().astype(int))]
    coarse_h = held[np.unique(np.linspace(0, held.size - 1, min(side, held.size)).round().astype(int))]
    s0, h0, _ = best_of(coarse_s, coarse_h)
    ds = max(1, servers.size // coarse_s.size + 1)
    dh = max(1, held.size // coarse_h.size + 1)
    i, j = int(np.searchsorted(servers, s0)), int(np.searchsorted(held, h0))
    return best_of(servers[max(0, i - ds) : i + ds + 1], held[max(0, j - dh) : j + dh + 1])


# --- the mix ----------------------------------------------------------------------------------------------


def pure_costs(
    scenario: Scenario | Resolved, series: np.ndarray | None = None, spot_limit: np.ndarray | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Each kind of capacity alone serving the hourly demand, as the options buy it. [currency/month]

    Own: the servers the peak needs (whole replicas, spare replicas, at least the configured
    count); rented 24/7 and reserved: the GPUs the peak needs in whole replicas plus spares, at
    least the configured count; on-demand: the busy GPU-hours; spot (only when uncapped): the
    busy GPU-hours at the spot price; each API option: its tokens, each hour at its price; each
    of ``options.rents`` (by its option name) as the rent option is, by its billing, on demand.
    The rent option's staffing is counted with each rented kind, for the GPUs it rents at the
    peak. Broadcasts over sampled inputs (the demand then has shape (samples, hours)). With
    ``spot_limit`` (spot's limit in each hour, [GPU busy], a fleet's), spot alone is a figure only
    where the limit reaches the demand in every hour.

    Returns
    -------
    tuple of dict
        Kind (each API option by its option name) → monthly cost, and → the offer named.
    """
    r = as_resolved(scenario)
    d = hourly_demand(r) if series is None else np.asarray(series, dtype=float)
    names = offer_names(r)
    peak = d.max(axis=-1) if d.shape[-1] else np.zeros(d.shape[:-1])
    busy = HOURS_PER_MONTH * d.mean(axis=-1)
    need = peak / ceiling_of(r)
    costs: dict[str, Any] = {}
    if "own" in r.options:
        own = own_option(r)
        costs[Layer.OWN] = sum(
            np.asarray(v, dtype=float) for v in own_costs_at(own, own_servers_for(r, need), busy).values()
        )
    if "rent" in r.options:
        rent = rented_option(r)
        gpus = np.asarray(rent_gpus_for(r, need), dtype=float)
        staff = _rent_staffing(r, gpus)
        if rent.billing == "always_on":
            costs[Layer.ALWAYS_ON] = _with_extras(rent, gpus * rent.price_per_gpu_hour * HOURS_PER_MONTH) + staff
        else:
            costs[Layer.ON_DEMAND] = _with_extras(rent, rent.price_per_gpu_hour * busy) + staff
        if rent.reserved is not None:
            costs[Layer.RESERVED] = (
                _with_extras(rent, gpus * rent.reserved.price_per_gpu_hour * HOURS_PER_MONTH) + staff
            )
        if spot_limit is not None:
            uncapped = bool(np.all(np.asarray(spot_limit, dtype=float) >= d - 1e-9))
        else:
            spot_allowed = not isinstance(r.scenario.workload, TokensWorkload) or r.scenario.workload.interruptible
            uncapped = rent.spot is not None and rent.spot.max_gpus is None and spot_allowed
        if rent.spot is not None and uncapped:
            costs[Layer.SPOT] = _with_extras(rent, rent.spot.price_per_gpu_hour * busy) + staff
    for name in rent_options(r):
        if name == "rent":
            continue
        rent = rented_option(r, name)
        gpus = np.asarray(rent_gpus_for(r, need, name), dtype=float)
        staff = _rent_staffing(r, gpus, name)
        costs[name] = (
            _with_extras(
                rent,
                gpus * rent.price_per_gpu_hour * HOURS_PER_MONTH
                if rent.billing == "always_on"
                else rent.price_per_gpu_hour * busy,
            )
            + staff
        )
    if r.workload.kind == "tokens":
        for name, option in r.options.items():
            if option.kind == "api":
                costs[name] = HOURS_PER_MONTH * np.mean(_api_hour_prices(r, name, d.shape[-1]) * d, axis=-1)
    costs = {k: (float(v) if np.ndim(v) == 0 else v) for k, v in costs.items()}
    return costs, {k: names[k] for k in costs}


def _with_extras(rent: RentOption, rental):
    """A rented kind's GPU bill with the rent option's ``data_and_support`` lines (storage, egress, CPU nodes,
    support plan on the whole cloud bill) added. [currency/month]"""
    if rent.extras is None:
        return rental
    return rental + sum(rent_extra_lines(rent.extras, rental).values())


def _layers(
    r: Resolved, o: Offer, dispatch: _Dispatch, servers: float, held: float
) -> tuple[dict[str, MixLayer], float]:
    hourly, _level = dispatch.hourly(servers, held)
    names = offer_names(r, o.rent_option)
    d = dispatch.d
    work = float(d.sum())
    layers: dict[str, MixLayer] = {}
    for kind, served in hourly.items():
        busy = HOURS_PER_MONTH * float(served.mean())
        share = float(served.sum()) / work if work > 0 else 0.0
        if kind == Layer.OWN:
            assert o.gpus_per_server is not None and o.own_variable is not None, "an owned layer has its server"
            gpus = int(round(servers * o.gpus_per_server))
            capacity = float(_own_capacity(o, np.array(servers)))
            cost = float(_own_fixed(r, np.array(servers))) + o.own_variable * busy
            layers[kind] = MixLayer(
                kind,
                names[kind],
                int(round(servers)),
                "servers",
                gpus,
                capacity,
                busy,
                share,
                cost,
                busy / (gpus * HOURS_PER_MONTH) if gpus else None,
            )
        elif kind == o.held_kind:
            assert o.held_price is not None, "a held rented kind has its price"
            gpus = int(round(held))
            layers[kind] = MixLayer(
                kind,
                names[kind],
                gpus,
                "GPU",
                gpus,
                float(_held_capacity(o, np.array(held))),
                busy,
                share,
                held * o.held_price * HOURS_PER_MONTH,
                busy / (gpus * HOURS_PER_MONTH) if gpus else None,
            )
        elif kind == Layer.API:
            assert o.api_prices is not None and o.api_option is not None, "an API layer has its offer's prices"
            cost = HOURS_PER_MONTH * float(np.mean(o.api_prices * served))
            layers[kind] = MixLayer(kind, names[o.api_option], 0, "", 0, None, busy, share, cost, None)
        else:
            price = o.spot_price if kind == Layer.SPOT else o.on_demand_price
            assert price is not None, "a rented layer has its price"
            top = float(served.max()) if served.size else 0.0
            gpus = int(scalar(formulas.whole_units(top / o.ceiling, o.replica)) * o.replica) if top > 0 else 0
            layers[kind] = MixLayer(kind, names[kind], 0, "", gpus, None, busy, share, price * busy, None)
    rented: list[str] = [k for k in layers if k in (Layer.RESERVED, Layer.ALWAYS_ON, Layer.ON_DEMAND, Layer.SPOT)]
    staffing = float(dispatch._staffing(np.array(held), np.array(_level))) if rented else 0.0
    if rented and dispatch.extras is not None:
        layers = _with_rent_lines(layers, rented, *dispatch.rent_lines(servers, held, _level))
    return layers, staffing


def _with_rent_lines(layers: dict[str, MixLayer], rented: list[str], data, support) -> dict[str, MixLayer]:
    """The rented layers with the rent option's data lines (on the first, in dispatch order) and its support
    plan (on each in proportion to its GPU bill), so that the layers still add up to the mix."""
    data, support = float(np.asarray(data)), float(np.asarray(support))
    bills = {k: layers[k].cost for k in rented}
    whole = sum(bills.values())
    out = dict(layers)
    for index, kind in enumerate(rented):
        part = bills[kind] / whole if whole > 0 else 1.0 / len(rented)
        out[kind] = dataclasses.replace(
            layers[kind], cost=layers[kind].cost + support * part + (data if index == 0 else 0)
        )
    return out


def cheapest_mix(
    scenario: Scenario | Resolved,
    series: np.ndarray | None = None,
    own_servers: float | None = None,
    held_gpus: float | None = None,
    spot_limit: np.ndarray | None = None,
) -> Mix:
    """The cheapest mix of capacity for the scenario's demand profile, each kind bought as it is sold.

    Parameters
    ----------
    scenario
        A scenario with at least one kind of capacity.
    series
        Hourly demand; default :func:`hourly_demand`. [GPU busy]
    own_servers, held_gpus
        Hold the owned servers or the rented GPUs at these counts; the rest is chosen. [servers], [GPU]
    spot_limit
        Spot's limit in each hour instead of the rent option's cap (a fleet's members' own caps),
        shape of ``series``. [GPU busy]

    Returns
    -------
    Mix

    Raises
    ------
    ValueError
        The scenario offers no kind of capacity, or it was resolved with samples of an input (the
        mix is chosen on one value per input: see the module's docstring).

    Notes
    -----
    See the module's docstring: every pair of owned server count and rented GPU count up to
    the peak's need (and the pure options' counts) is evaluated in one vectorised call.
    """
    r = as_resolved(scenario)
    _point_valued(r)
    d = hourly_demand(r) if series is None else np.asarray(series, dtype=float)
    fixed = {k: v for k, v in (("servers", own_servers), ("held", held_gpus)) if v is not None}
    best = None
    order = np.argsort(d, kind="stable")  # one sort of the hours serves every offer's dispatch
    for o in _offers(r, d, held_gpus is not None, spot_limit):
        dispatch = _Dispatch(r, o, d, order)
        servers, held = _grid(o, r, float(d.max()) if d.size else 0.0)
        s, h, cost = _search(dispatch, servers, held, fixed)
        if best is None or cost < best[0] - 1e-9 * max(abs(cost), 1.0):
            best = (cost, o, dispatch, s, h)
    assert best is not None, "_offers gives one offer at least (the main rent option's, or none rented)"
    _, o, dispatch, s, h = best
    layers, staffing = _layers(r, o, dispatch, s, h)
    pure, names = pure_costs(r, d, spot_limit)
    hourly, _ = dispatch.hourly(s, h)
    return Mix(layers, staffing, pure, names, {k: v for k, v in hourly.items() if k in layers}, d, o.ceiling)


def _offers(
    r: Resolved, series: np.ndarray, rented_held: bool = False, spot_limit: np.ndarray | None = None
) -> list[Offer]:
    """What to search: everything offered with each rent option's offer in turn (the main one first, then
    those of ``options.rents``; held rented GPUs: the main one only), and, where a rent option's staff is paid
    once any rented kind is used, the same without the rented kinds (owning and the API alone may then be
    cheaper)."""
    names = rent_options(r)
    if rented_held or not names:
        names = names[:1] or ["rent"]
    found = [offer(r, series, name, spot_limit if name == "rent" else None) for name in names]
    staffed = any(
        rented_option(r, name).staffing is not None and float(np.max(_rent_staffing(r, 1.0, name))) > 0
        for name in names
        if name in r.options
    )
    alone = dataclasses.replace(
        found[0],
        held_kind=None,
        held_price=None,
        on_demand_price=None,
        spot_price=None,
        spot_cap=None,
        rent_option=None,
        spot_limit=None,
    )
    if rented_held or not staffed or (alone.own_step is None and alone.api_option is None):
        return found
    return found + [alone]


LEVEL_POINTS = 512
"""Most levels :func:`cost_against_level` returns, whatever the peak (the optimum among them)."""


def cost_against_level(
    scenario: Scenario | Resolved, kind: str, series: np.ndarray | None = None, points: int = LEVEL_POINTS
) -> tuple[np.ndarray, np.ndarray]:
    """Monthly cost of the cheapest mix with ``kind`` (own or the held rental) at each level. [currency/month]

    Parameters
    ----------
    scenario
        A scenario with the kind of capacity.
    kind
        ``own`` or the held rental's layer (``reserved``, ``always_on``).
    series
        Hourly demand; default :func:`hourly_demand`. [GPU busy]
    points
        Most levels returned. [-]

    Returns
    -------
    tuple of numpy.ndarray
        The levels [GPU held: owned servers × GPUs per server, or rented GPUs] and the monthly
        cost of the cheapest mix at each, the rest chosen as :func:`cheapest_mix` chooses it.

    Notes
    -----
    Up to ``points`` levels, every level the search tries. Above it (a peak of many GPUs), levels
    evenly spaced over the range plus the optimum the search finds and its two neighbours; the
    cost at the optimum is the search's, so the curve's minimum is the mix's. At each level the
    other kind is chosen over all its counts, or, past :data:`GRID_LIMIT` pairs, on a coarse grid
    refined around its best (as the search does): the curve costs the same for any peak.
    """
    r = as_resolved(scenario)
    _point_valued(r, "the cost against the held level")
    d = hourly_demand(r) if series is None else np.asarray(series, dtype=float)
    o = offer(r, d)
    dispatch = _Dispatch(r, o, d)
    servers, held = _grid(o, r, float(d.max()) if d.size else 0.0)
    own = kind == Layer.OWN
    axis, other = (servers, held) if own else (held, servers)
    scale = (o.gpus_per_server or 0) if own else 1.0
    if axis.size <= points and servers.size * held.size <= GRID_LIMIT:
        costs = dispatch.cost(servers[:, None], held[None, :])
        return (axis * scale).round().astype(int), costs.min(axis=1 if own else 0)
    best_servers, best_held, best_cost = _search(dispatch, servers, held)
    best = int(np.searchsorted(axis, best_servers if own else best_held))
    picked = np.linspace(0, axis.size - 1, max(points - 3, 2)).round().astype(int)
    picked = np.unique(np.concatenate([picked, np.clip([best - 1, best, best + 1], 0, axis.size - 1)]))
    levels = axis[picked]

    def cost(level: np.ndarray, counts: np.ndarray) -> np.ndarray:
        return dispatch.cost(level, counts) if own else dispatch.cost(counts, level)

    if levels.size * other.size <= GRID_LIMIT:
        costs = cost(levels[:, None], other[None, :]).min(axis=1)
    else:
        side = max(1, GRID_LIMIT // (2 * levels.size))
        coarse = np.unique(np.linspace(0, other.size - 1, min(side, other.size)).round().astype(int))
        first = cost(levels[:, None], other[coarse][None, :])
        centre = coarse[np.argmin(first, axis=1)]
        reach = other.size // coarse.size + 1
        window = np.clip(centre[:, None] + np.arange(-reach, reach + 1)[None, :], 0, other.size - 1)
        costs = cost(levels[:, None], other[window]).min(axis=1)
    costs[picked == best] = best_cost
    return (levels * scale).round().astype(int), costs


def mix_result(scenario: Scenario | Resolved, steady: bool = True) -> MixResult | None:
    """The cheapest mix for the scenario's profile and, unless it is steady, for the same demand steady.

    None without a demand profile, and for a workload of API options only (nothing sized in GPUs to mix).
    ``steady=False`` leaves the steady demand's mix out (its ``if_steady`` None), which only a report shows.

    Raises
    ------
    ValueError
        The scenario was resolved with samples of an input (the mix is chosen on one value per input).
    """
    r = as_resolved(scenario)
    _point_valued(r)
    if r.demand is None or not r.workload.sized_in_gpus:
        return None  # no demand profile, or API options only: no GPU capacity to mix with the API
    series = hourly_demand(r)
    flat = not steady or r.demand.profile.kind == "steady"
    steady_mix = None if flat else cheapest_mix(r, steady_series(series))
    per_gpu = replica = None
    if r.workload.kind == "tokens":
        per_gpu = HOURS_PER_MONTH / float(gpu_hours_used(r, 1.0))  # tokens/day one GPU busy all day serves
        replica = r.workload.gpus_per_replica
    return MixResult(r.demand.profile.kind, cheapest_mix(r, series), steady_mix, series, per_gpu, replica)


__all__ = [
    "GRID_LIMIT",
    "LEVEL_POINTS",
    "Offer",
    "cheapest_mix",
    "cost_against_level",
    "hourly_demand",
    "mix_result",
    "offer",
    "offer_names",
    "pure_costs",
    "steady_series",
    "LAYER_LABELS",
]

"""Demand over a year and the cheapest mix of owned, reserved, on-demand, spot and API capacity.

A demand profile turns the workload's average into GPUs busy in each hour of a year; its
load-duration curve is that series sorted from the busiest hour down. The cheapest mix
follows from the screening-curve method of power-system planning
(:mod:`costmodel.formulas.screening`): each kind of capacity costs a fixed amount F per GPU
per hour, paid whether busy or not (owned hardware, reserved rental), plus a variable amount
V per busy GPU-hour (electricity, on-demand and spot rental, the API). Serving the k-th GPU
of demand with kind i costs F_i + V_i · f_k per hour, so the cheapest kind for each k is the
lowest of these lines at f_k. As f_k falls with k, the choice moves from high-fixed,
low-variable kinds (the base) to flexible ones (the peaks). Owned GPUs come in whole
servers; spot capacity may be capped, and then goes where it saves most.

References
----------
.. [1] Stoft, S. (2002), *Power System Economics*, IEEE Press / Wiley, ch. 3.
"""

from __future__ import annotations

import numpy as np

from .. import formulas
from ..resolved import Resolved, as_resolved
from ..results import Layer, LayerPrice, Mix, MixResult
from ..schema import Scenario
from ..units import HOURS_PER_MONTH
from .capacity import gpu_hours_used
from .costs import monthly_cost, own_fixed_and_variable, staffing_month
from .demand import hourly_demand


def steady_series(series: np.ndarray) -> np.ndarray:
    """The same average demand spread evenly over every hour, for comparison. [GPU]"""
    return np.full(len(series), float(np.mean(series)))


def layer_prices(scenario: Scenario | Resolved) -> dict[str, LayerPrice]:
    """The kinds of capacity the scenario offers, priced per GPU-hour in the reporting currency.

    * own: the configured cluster's monthly cost at zero use / its GPUs / 730 as the fixed
      part (depreciation, support, housing, staff, spares' idle power), and the running
      cost of one more busy GPU-hour (electricity) as the variable part;
    * reserved: the reserved price, paid every hour;
    * on-demand: the rental offer's price per busy GPU-hour;
    * spot: the on-demand price × (1 − discount) / (1 − overhead), the overhead being the
      share of work redone after interruptions;
    * api: the API's cost per GPU-hour of the workload (tokens workloads only).
    """
    r = as_resolved(scenario)
    found: dict[str, LayerPrice] = {}
    if "own" in r.options:
        own = r.options["own"]
        fixed, variable = own_fixed_and_variable(own)
        found[Layer.OWN] = LayerPrice(Layer.OWN, fixed / own.configured_gpus / HOURS_PER_MONTH, variable,
                                      f"own cluster of {own.configured_gpus:,} GPUs, monthly cost per GPU / 730")
    if "rent" in r.options:
        rent = r.options["rent"]
        if r.workload.kind == "tokens" and rent.billing == "always_on":   # serving replicas rented 24/7
            found[Layer.ALWAYS_ON] = LayerPrice(Layer.ALWAYS_ON, float(rent.price_per_gpu_hour), 0.0,
                                                f"{rent.offer.provider} on-demand rented 24/7 ({rent.offer.offer})")
        else:
            found[Layer.ON_DEMAND] = LayerPrice(Layer.ON_DEMAND, 0.0, float(rent.price_per_gpu_hour),
                                                f"{rent.offer.provider} on-demand ({rent.offer.offer})")
        if rent.reserved is not None:
            res = rent.reserved
            found[Layer.RESERVED] = LayerPrice(Layer.RESERVED, float(res.price_per_gpu_hour), 0.0,
                                               f"{res.term_years}-year commitment; {res.source}")
        if rent.spot is not None and (r.workload.kind != "tokens" or r.scenario.workload.interruptible):
            s = rent.spot
            cap = "" if s.max_gpus is None else f"capped at {s.max_gpus:,} GPUs; "
            found[Layer.SPOT] = LayerPrice(
                Layer.SPOT, 0.0, float(s.price_per_gpu_hour),
                f"{cap}{s.discount:.0%} off on-demand, {s.overhead:.1%} of work redone; {s.source}", s.max_gpus)
    apis = [name for name, option in r.options.items() if option.kind == "api"]
    if apis and r.workload.kind == "tokens":
        hours = float(gpu_hours_used(r, r.volume))
        if hours > 0:
            cheapest = min(apis, key=lambda name: float(monthly_cost(r, name, r.volume)))
            which = "" if len(apis) == 1 else f" (the cheapest API offer: {r.label(cheapest)})"
            found[Layer.API] = LayerPrice(Layer.API, 0.0, float(monthly_cost(r, cheapest, r.volume)) / hours,
                                          "hosted API cost per GPU-hour of the same tokens" + which)
    return found


# --- the assignment of GPUs to kinds ------------------------------------------------------------------------

class _Offer:
    """The kinds offered as arrays, for vectorised assignment."""

    def __init__(self, prices: dict[str, LayerPrice]):
        self.kinds = tuple(prices)
        self.prices = prices
        self.fixed = np.array([p.fixed_per_hour for p in prices.values()])
        self.variable = np.array([p.variable_per_hour for p in prices.values()])
        self.index = {k: i for i, k in enumerate(self.kinds)}
        spot = prices.get(Layer.SPOT)
        self.spot_cap = None if spot is None else spot.cap

    def hourly(self, assignment: np.ndarray, f: np.ndarray) -> np.ndarray:
        """Cost per hour of each GPU under an assignment."""
        return self.fixed[assignment] + self.variable[assignment] * f


def _top(saving: np.ndarray, cap: int) -> np.ndarray:
    """Indices of the ``cap`` largest savings (ties to the lowest index), those above 0 only.

    The same choice as a stable sort by falling saving, in linear time.
    """
    if cap <= 0 or saving.size == 0:
        return np.empty(0, dtype=int)
    if cap >= saving.size:
        chosen = np.argsort(-saving, kind="stable")
    else:
        cut = np.partition(saving, saving.size - cap)[saving.size - cap]
        above = np.flatnonzero(saving > cut)
        ties = np.flatnonzero(saving == cut)[:cap - above.size]
        chosen = np.concatenate([above, ties])
    return chosen[saving[chosen] > 0]


def _place_spot(offer: _Offer, f: np.ndarray, assignment: np.ndarray, keep: set[str]) -> np.ndarray:
    """Put capped spot capacity where it saves most against what each GPU costs now."""
    cap = offer.spot_cap
    if Layer.SPOT not in offer.index or not cap:
        return assignment
    spot = offer.index[Layer.SPOT]
    saving = offer.hourly(assignment, f) - offer.variable[spot] * f
    kept = np.isin(assignment, [offer.index[k] for k in keep if k in offer.index])
    saving[kept] = 0.0
    assignment = assignment.copy()
    assignment[_top(saving, cap)] = spot
    return assignment


def _assign(offer: _Offer, f: np.ndarray, held: str | None = None, level: int = 0,
            place_spot: bool = True, without: str | None = None) -> np.ndarray:
    """The kind of capacity for each GPU; with ``held``, the first ``level`` GPUs are forced to it."""
    kinds = [k for k in offer.kinds if not (k == Layer.SPOT and offer.spot_cap is not None) and k != held
             and k != without]
    if not kinds:
        kinds = [held]
    chosen = np.array([offer.index[k] for k in kinds])
    per_gpu = offer.fixed[chosen][:, None] + offer.variable[chosen][:, None] * f[None, :]
    assignment = chosen[np.argmin(per_gpu, axis=0)] if f.size else np.empty(0, dtype=int)
    if held is not None:
        assignment[:min(level, assignment.size)] = offer.index[held]
    if not place_spot:
        return assignment
    return _place_spot(offer, f, assignment, {Layer.OWN} | ({held} if held else set()))


def _mix(offer: _Offer, assignment: np.ndarray, f: np.ndarray, rental_staffing: float = 0.0) -> Mix:
    gpus, cost, utilisation = {}, {}, {}
    for i, kind in enumerate(offer.kinds):
        mask = assignment == i
        gpus[kind] = int(mask.sum())
        cost[kind] = float(HOURS_PER_MONTH * np.sum(offer.fixed[i] + offer.variable[i] * f[mask]))
        if offer.fixed[i] > 0 and mask.any():
            utilisation[kind] = float(f[mask].mean())
    total_busy = float(f.sum())
    pure = {kind: HOURS_PER_MONTH * (offer.fixed[i] * len(f) + offer.variable[i] * total_busy)
            for i, kind in enumerate(offer.kinds) if not (kind == Layer.SPOT and offer.spot_cap is not None)}
    if rental_staffing:
        rented = {Layer.RESERVED, Layer.ON_DEMAND, Layer.SPOT, Layer.ALWAYS_ON}
        if any(gpus.get(k) for k in rented):
            cost["rental staffing"] = rental_staffing
        for kind in rented & set(pure):
            pure[kind] += rental_staffing
    return Mix({str(k): v for k, v in gpus.items()}, {str(k): v for k, v in cost.items()},
               {str(k): v for k, v in utilisation.items()}, {str(k): float(v) for k, v in pure.items()},
               assignment, tuple(str(k) for k in offer.kinds), f, offer.prices)


def _total(offer: _Offer, assignment: np.ndarray, f: np.ndarray) -> float:
    return float(HOURS_PER_MONTH * np.sum(offer.hourly(assignment, f)))


def _best_assignment(offer: _Offer, f: np.ndarray, gpus_per_server: int | None,
                     forced: tuple[str, int] | None = None) -> np.ndarray:
    """The cheapest assignment, owned GPUs in whole servers; if given, one kind forced to a level.

    Every server count near the unconstrained optimum is tried (all of them up to 200 servers,
    else ±50 around it), spot placed for each.
    """
    held, level = forced or (None, 0)
    base = _assign(offer, f, held, level)
    if Layer.OWN not in offer.index or held == Layer.OWN or not base.size:
        return base
    own = offer.index[Layer.OWN]
    free = len(f) - level
    guess = int(np.count_nonzero(base == own)) // gpus_per_server
    most = int(np.ceil(max(free, 0) / gpus_per_server))
    counts = range(0, most + 1) if most <= 200 else sorted({0, *range(max(0, guess - 50), min(most, guess + 50) + 1)})
    rest = (_assign(offer, f, held, level, place_spot=False, without=Layer.OWN) if len(offer.kinds) > 1
            else np.full(len(f), own))
    keep = {Layer.OWN} | ({held} if held else set())
    best, best_cost = None, np.inf
    for servers in counts:
        trial = rest.copy()
        trial[level:min(level + servers * gpus_per_server, len(f))] = own
        trial = _place_spot(offer, f, trial, keep)
        c = _total(offer, trial, f)
        if c < best_cost:
            best, best_cost = trial, c
    return best


def _own_step(r: Resolved) -> int | None:
    """GPUs owned capacity comes in: whole servers, and for a tokens workload whole replicas too."""
    if "own" not in r.options:
        return None
    own = r.options["own"]
    return own.step_gpus if r.workload.kind == "tokens" else own.gpus_per_server


def _rental_staffing(r: Resolved) -> float:
    """Monthly cost of the rental option's people and fees, paid once any rented kind is used."""
    rent = r.options.get("rent")
    if rent is None or rent.staffing is None:
        return 0.0
    return float(staffing_month(rent.staffing, rent.gpu_count or 0))


def cheapest_mix(scenario: Scenario | Resolved, series: np.ndarray | None = None) -> Mix:
    """The cheapest mix of capacity for the scenario's demand profile (screening curves).

    Parameters
    ----------
    scenario
        A scenario with a demand profile and at least two kinds of capacity.
    series
        Hourly demand; default :func:`hourly_demand`. [GPU]

    Returns
    -------
    Mix

    Raises
    ------
    ValueError
        The scenario offers no kind of capacity.

    Notes
    -----
    For each GPU k the cost per hour of kind i is F_i + V_i · f_k; the cheapest kind is
    taken for every k at once (one vectorised argmin over GPUs and kinds). Monthly cost =
    730 × Σ_k (F + V · f_k). Owned GPUs come in whole servers: server counts around the
    unconstrained optimum are tried and the cheapest kept.
    """
    r = as_resolved(scenario)
    demand = hourly_demand(r) if series is None else np.asarray(series, dtype=float)
    prices = layer_prices(r)
    if not prices:
        raise ValueError("the scenario offers no kind of capacity")
    offer = _Offer(prices)
    f = formulas.busy_shares(demand)
    per_server = _own_step(r)
    staffing = _rental_staffing(r)
    best = _mix(offer, _best_assignment(offer, f, per_server), f, staffing)
    unrented = {k: p for k, p in prices.items() if k in (Layer.OWN, Layer.API)}
    if staffing and unrented and len(unrented) < len(prices):
        # The rental's staff is paid once any rented kind is used: the mix without rentals may be cheaper.
        alone = _Offer(unrented)
        mapped = np.array([offer.index[k] for k in alone.kinds])[_best_assignment(alone, f, per_server)]
        other = _mix(offer, mapped, f, staffing)
        if other.total < best.total:
            best = other
    return best


def cost_against_level(scenario: Scenario | Resolved, kind: str, series: np.ndarray | None = None,
                       points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Monthly cost of the mix with ``kind`` held at a level of GPUs, the rest at its cheapest. [currency/month]

    The rest is assigned by the same rules as :func:`cheapest_mix` (spot limits included).
    Up to ``points`` levels between 0 and the peak are evaluated.

    Returns
    -------
    tuple of numpy.ndarray
        The levels [GPU] and the monthly cost at each.
    """
    r = as_resolved(scenario)
    demand = hourly_demand(r) if series is None else np.asarray(series, dtype=float)
    offer = _Offer(layer_prices(r))
    f = formulas.busy_shares(demand)
    levels = np.unique(np.linspace(0, len(f), min(points, len(f) + 1)).round().astype(int))
    per_server = _own_step(r)
    if kind == Layer.OWN:   # owned capacity comes in whole servers
        levels = np.unique(np.minimum(np.round(levels / per_server) * per_server,
                                      len(f) // per_server * per_server + per_server)).astype(int)
    staffing = _rental_staffing(r)
    costs = np.array([_mix(offer, _best_assignment(offer, f, per_server, (kind, int(level))), f, staffing).total
                      for level in levels])
    return levels, costs


def mix_result(scenario: Scenario | Resolved) -> MixResult | None:
    """The cheapest mix for the scenario's profile and, unless it is steady, for the same demand steady."""
    r = as_resolved(scenario)
    if r.demand is None:
        return None
    series = hourly_demand(r)
    steady = None if r.demand.profile.kind == "steady" else cheapest_mix(r, steady_series(series))
    per_gpu = replica = None
    if r.workload.kind == "tokens":
        per_gpu = HOURS_PER_MONTH / float(gpu_hours_used(r, 1.0))     # tokens/day one GPU busy all day serves
        replica = r.workload.gpus_per_replica
    return MixResult(r.demand.profile.kind, cheapest_mix(r, series), steady, series, per_gpu, replica)

"""A multi-year capacity plan: each year's cheapest mix at that year's demand, servers bought when they pay.

Conventions:

* demand in month m is the options' own (:func:`costmodel.domain.finance.cash_flows`): the
  scenario's volume grown by ``trends.demand_growth_per_year`` month by month, spread over the
  hours by the demand profile (its shape with mean 1; steady without a profile);
* in each of the plan's ``years`` the owned servers are those of the cheapest mix
  (:func:`costmodel.domain.mix.cheapest_mix`) at that year's mean demand, never fewer than the
  year before (servers are not sold early): whole servers holding whole replicas, spares
  included, serving at most the utilisation ceiling; after the plan's years the servers are
  kept to the horizon; every month the rest of the work is rented or sent to the API at its
  cheapest for that month's demand (the mix with the servers held);
* the servers for year y are ordered and paid ``lead_time_months`` before the year starts
  (those for year 1 in month 0, online after the lead time, the work meanwhile at its cheapest
  without them), at the hardware price trend of that month; a plan that buys nothing has no
  lead time;
* owned servers cost their running costs in cash (support, housing, electricity for the
  GPU-hours they serve, staffing); the rest of the mix (reserved, on-demand, spot, API,
  rental staffing) costs the mix's monthly cost; every server is resold at the horizon on
  the residual curve at its age. Refresh within the plan is not modelled; in the marginal view
  (``finance.view: marginal``) the configured servers are sunk, as for the own option; a loan or a
  lease is not modelled (the plan is paid in cash, and is then not ranked beside the options).

A plan that buys nothing therefore costs, month by month, the cheapest mix of the rented kinds
and the API, never more than any of them alone.
"""

from __future__ import annotations

import numpy as np

from .. import formulas
from ..formulas.shapes import scalar
from ..resolved import Resolved, as_resolved
from ..results import DEPRECIATION, GrowthPlan, Layer, Mix, PlanYear
from ..schema import Scenario
from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .capacity import gpu_hours_used, own_option
from .costs import own_costs_at, own_hardware_capex
from .finance import price_factor, residual_share
from .mix import cheapest_mix

HARDWARE = "hardware bought"
RENTED = "rented capacity"
RESALE = "resale"


def growth_plan(scenario: Scenario | Resolved) -> GrowthPlan:
    """The multi-year plan of the scenario's ``finance.capacity_plan`` block.

    Raises
    ------
    ValueError
        No finance block or capacity plan, no own option, or no rent option (the lead time
        and the peaks are rented).
    """
    r = as_resolved(scenario)
    fin = r.finance
    if fin is None or fin.capacity_plan is None:
        raise ValueError("a capacity plan needs finance.capacity_plan")
    if "own" not in r.options or "rent" not in r.options:
        raise ValueError("finance.capacity_plan needs both an own and a rent option")
    own = own_option(r)
    horizon = fin.horizon_months
    count = min(fin.capacity_plan.years or -(-horizon // MONTHS_PER_YEAR), -(-horizon // MONTHS_PER_YEAR))
    lead = fin.lead_time_months
    months = np.arange(horizon, dtype=float)
    shape = _shape(r)
    average = (
        np.asarray(
            gpu_hours_used(r, r.volume * formulas.growth_factor(fin.trends.demand_growth_per_year, months)), dtype=float
        )
        / HOURS_PER_MONTH
    )
    average = np.broadcast_to(average, months.shape)
    price = price_factor(r, "hardware", months)
    mixes: dict[tuple[float, float | None], Mix] = {}

    def mix_at(level: float, servers: float | None) -> Mix:
        """The cheapest mix at a month's average GPUs busy, the owned servers held (None: chosen; 0: none)."""
        key = (round(level, 12), servers)
        if key not in mixes:
            mixes[key] = cheapest_mix(r, shape * level, own_servers=servers)
        return mixes[key]

    sunk = fin.view == "marginal"  # the configured servers are already owned: their price is not paid

    def counted(servers: int) -> float:
        """Capex of holding ``servers``, less that of the configured ones in the marginal view. [currency]"""
        if not servers:
            return 0.0
        paid = float(own_hardware_capex(own, float(servers)))
        if sunk:
            paid -= float(own_hardware_capex(own, float(min(servers, own.server_count))))
        return paid

    held_by_year, servers = [], 0  # servers working in each year of the horizon
    for y in range(-(-horizon // MONTHS_PER_YEAR)):
        if y < count:
            year_mean = float(average[y * MONTHS_PER_YEAR : (y + 1) * MONTHS_PER_YEAR].mean())
            owned = mix_at(year_mean, None).layers.get(Layer.OWN)
            servers = max(servers, owned.units if owned is not None else 0)
        held_by_year.append(servers)
    lines = {name: np.zeros(horizon) for name in (HARDWARE, RENTED, RESALE)}
    running: dict[str, np.ndarray] = {}
    online = np.zeros(horizon)  # servers working each month
    purchases, cohorts, ordered = [], [], 0
    for y, servers in enumerate(held_by_year):
        start = y * MONTHS_PER_YEAR
        if servers > ordered:
            order = max(0, start - lead)
            paid = (counted(servers) - counted(ordered)) * float(price[order])
            lines[HARDWARE][order] += paid
            purchases.append((order, servers - ordered, paid))
            cohorts.append((order, paid))
            online[order + lead :] = servers
            ordered = servers
    years = []
    for m in range(horizon):
        held = int(online[m])
        mix = mix_at(float(average[m]), float(held))
        owned = mix.layers.get(Layer.OWN)
        lines[RENTED][m] = mix.total - (owned.cost if owned is not None else 0.0)
        if held:
            busy = owned.busy_gpu_hours if owned is not None else 0.0
            for name, value in own_costs_at(own, float(held), busy).items():
                if name not in DEPRECIATION:
                    running.setdefault(str(name), np.zeros(horizon))[m] = float(value)
    for y, servers in enumerate(held_by_year):
        span = slice(y * MONTHS_PER_YEAR, min(horizon, (y + 1) * MONTHS_PER_YEAR))
        year_mean = float(average[span].mean())
        mix = mix_at(year_mean, float(servers))
        owned = mix.layers.get(Layer.OWN)
        years.append(
            PlanYear(
                y + 1,
                year_mean * HOURS_PER_MONTH,
                int(servers),
                {str(k): int(v) for k, v in mix.gpus.items()},
                float(lines[RENTED][span].mean()),
                float(owned.busy_gpu_hours) if owned is not None else 0.0,
            )
        )
    for order, paid in cohorts:
        lines[RESALE][-1] -= paid * scalar(residual_share(r, horizon - order))
    flows = {**{HARDWARE: lines[HARDWARE]}, **running, **{k: lines[k] for k in (RENTED, RESALE) if np.any(lines[k])}}
    total = np.sum(np.stack(list(flows.values())), axis=0)
    npv = formulas.npv_with_convention(
        total, fin.discount_rate_per_year, fin.npv.period, fin.npv.timing, at_start=flows[HARDWARE]
    )  # purchases at the start of their month
    return GrowthPlan(tuple(years), tuple(purchases), flows, float(total.sum()), float(npv))


def _shape(r: Resolved) -> np.ndarray:
    """The hours' demand per unit of the month's average (mean 1); steady without a profile. [-]"""
    return np.ones(8760) if r.demand is None else np.asarray(r.demand.distribution, dtype=float)


def plan_words(plan: GrowthPlan, server: str = "") -> str:
    """The plan in words: "buy 2 × dgx-h200 in month 0, 1 more in month 12; the rest rented in years 2, 3"."""
    what = f" × {server}" if server else (" server" if plan.purchases and plan.purchases[0][1] == 1 else " servers")
    if not plan.purchases:
        return "buy no servers; the work rented or sent to the API throughout"
    buys = [
        f"{n}{what if server else (' server' if n == 1 else ' servers')} in month {m}"
        if i == 0
        else f"{n} more in month {m}"
        for i, (m, n, _p) in enumerate(plan.purchases)
    ]
    rest_years = [y for y in plan.years if y.rented_per_month > 0]
    kinds = sorted({k for y in rest_years for k in y.layers if k != Layer.OWN})  # the mix's other layers
    by = (
        " and ".join(
            "sent to the API" if k == Layer.API else "rented"
            for k in sorted({"api" if k == Layer.API else "rent" for k in kinds}, reverse=True)
        )
        or "rented"
    )
    years = [y.year for y in rest_years]
    rest = (
        (f"; the rest {by} in year{'s' if len(years) > 1 else ''} " + ", ".join(map(str, years)))
        if years
        else "; nothing else once they are online"
    )
    return f"buy {', '.join(buys)}{rest}"


__all__ = ["growth_plan", "plan_words"]

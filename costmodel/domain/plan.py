"""A multi-year capacity plan: each year's cheapest mix at that year's demand, servers bought when they pay.

Conventions:

* demand in year y (y = 0, 1, …) is the scenario's demand profile × (1 + g)^y, g the
  finance block's ``trends.demand_growth_per_year`` (growth steps once a year);
* each year's owned servers are those of the cheapest mix (:func:`costmodel.domain.mix.cheapest_mix`)
  at that year's demand, never fewer than the year before (servers are not sold early): whole
  servers holding whole replicas, spares included, serving at most the utilisation ceiling;
  the shortfall is rented (or sent to the API) at its cheapest;
* the servers for year y are ordered and paid ``lead_time_months`` before the year starts
  (those for year 0 in month 0, online after the lead time, the work rented on demand
  meanwhile), at the hardware price trend of that month;
* owned servers cost their running costs in cash (support, housing, electricity for the
  GPU-hours they serve, staffing); the rest of the mix (reserved, on-demand, spot, API,
  rental staffing) costs the mix's monthly cost; every server is resold at the horizon on
  the residual curve at its age. Refresh within the plan is not modelled; in the marginal view
  (``finance.view: marginal``) the configured servers are sunk, as for the own option; a loan or a
  lease is not modelled (the plan is paid in cash, and is then not ranked beside the options).
"""

from __future__ import annotations

import numpy as np

from .. import formulas
from ..resolved import Resolved, as_resolved
from ..results import DEPRECIATION, GrowthPlan, Layer, PlanYear
from ..schema import Scenario
from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .capacity import gpu_hours_used
from .costs import own_costs_at, own_hardware_capex, rent_monthly_costs
from .finance import residual_share
from .mix import cheapest_mix, hourly_demand

HARDWARE = "hardware bought"
RENTED = "rented capacity"
STAND_IN = "on demand during lead time"
RESALE = "resale"


def _base_series(r: Resolved) -> np.ndarray:
    if r.demand is not None:
        return hourly_demand(r)
    return np.full(8760, float(gpu_hours_used(r, r.volume)) / HOURS_PER_MONTH)   # steady


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
    own = r.option("own")
    horizon = fin.horizon_months
    count = fin.capacity_plan.years or -(-horizon // MONTHS_PER_YEAR)
    growth, lead = fin.trends.demand_growth_per_year, fin.lead_time_months
    base = _base_series(r)
    months = np.arange(horizon, dtype=float)
    price = formulas.growth_factor(fin.trends.hardware_price_change_per_year, months)
    years, servers = [], 0
    for y in range(count):
        series = base * (1.0 + growth) ** y
        mix = cheapest_mix(r, series)
        owned = mix.layers.get(Layer.OWN)
        wanted = owned.units if owned is not None else 0
        if servers > wanted:            # kept from an earlier year: they serve what they can, the rest at its cheapest
            mix = cheapest_mix(r, series, own_servers=float(servers))
            owned = mix.layers.get(Layer.OWN)
        servers = max(servers, wanted)
        own_hours = owned.busy_gpu_hours if owned is not None else 0.0
        rented = mix.total - (owned.cost if owned is not None else 0.0)
        years.append(PlanYear(y + 1, float(series.mean()) * HOURS_PER_MONTH, servers,
                              {str(k): int(v) for k, v in mix.gpus.items()}, rented, float(own_hours)))
    sunk = fin.view == "marginal"          # the configured servers are already owned: their price is not paid

    def counted(servers: int) -> float:
        """Capex of holding ``servers``, less that of the configured ones in the marginal view. [currency]"""
        if not servers:
            return 0.0
        paid = float(own_hardware_capex(own, float(servers)))
        if sunk:
            paid -= float(own_hardware_capex(own, float(min(servers, own.server_count))))
        return paid

    lines = {name: np.zeros(horizon) for name in (HARDWARE, RENTED, STAND_IN, RESALE)}
    running: dict[str, np.ndarray] = {}
    purchases, held, cohorts = [], 0, []
    for plan_year in years:
        start = (plan_year.year - 1) * MONTHS_PER_YEAR
        if start >= horizon:
            break
        if plan_year.own_servers > held:
            order = max(0, start - lead)
            paid = (counted(plan_year.own_servers) - counted(held)) * float(price[order])
            lines[HARDWARE][order] += paid
            purchases.append((order, plan_year.own_servers - held, paid))
            cohorts.append((order, paid))
            held = plan_year.own_servers
        stop = min(horizon, start + MONTHS_PER_YEAR)
        online_from = lead if plan_year.year == 1 else start
        for m in range(start, stop):
            if m < online_from:
                volume = plan_year.gpu_hours_per_month
                parts = rent_monthly_costs(r, _volume_for(r, volume))
                lines[STAND_IN][m] = float(sum(np.asarray(v, float) for v in parts.values()))
                continue
            lines[RENTED][m] = plan_year.rented_per_month
            if held:
                for name, value in own_costs_at(own, float(held), plan_year.own_gpu_hours_per_month).items():
                    if name not in DEPRECIATION:
                        running.setdefault(str(name), np.zeros(horizon))[m] = float(value)
    for order, paid in cohorts:
        lines[RESALE][-1] -= paid * float(residual_share(r, horizon - order))
    flows = {**{HARDWARE: lines[HARDWARE]}, **running,
             **{k: lines[k] for k in (RENTED, STAND_IN, RESALE) if np.any(lines[k])}}
    total = np.sum(np.stack(list(flows.values())), axis=0)
    npv = formulas.npv_with_convention(total, fin.discount_rate_per_year, fin.npv.period, fin.npv.timing,
                                       at_start=flows[HARDWARE])      # purchases at the start of their month
    return GrowthPlan(tuple(years), tuple(purchases), flows, float(total.sum()), float(npv))


def plan_words(plan: GrowthPlan, server: str = "") -> str:
    """The plan in words: "buy 2 × dgx-h200 in month 0, 1 more in month 12; the rest rented in years 2, 3"."""
    what = f" × {server}" if server else (" server" if plan.purchases and plan.purchases[0][1] == 1 else " servers")
    if not plan.purchases:
        return "buy no servers; the work rented or sent to the API throughout"
    buys = [f"{n}{what if server else (' server' if n == 1 else ' servers')} in month {m}" if i == 0
            else f"{n} more in month {m}" for i, (m, n, _p) in enumerate(plan.purchases)]
    rest_years = [y for y in plan.years if y.rented_per_month > 0]
    kinds = sorted({k for y in rest_years for k in y.layers if k != Layer.OWN})       # the mix's other layers
    by = " and ".join("sent to the API" if k == Layer.API else "rented" for k in
                      sorted({"api" if k == Layer.API else "rent" for k in kinds}, reverse=True)) or "rented"
    years = [y.year for y in rest_years]
    rest = (f"; the rest {by} in year{'s' if len(years) > 1 else ''} " + ", ".join(map(str, years))) if years \
        else "; nothing else once they are online"
    return f"buy {', '.join(buys)}{rest}"


def _volume_for(r: Resolved, gpu_hours: float) -> float:
    """The workload volume that uses ``gpu_hours`` a month (volume is proportional to GPU-hours)."""
    per_volume = float(gpu_hours_used(r, r.volume)) / r.volume if r.volume else 0.0
    return gpu_hours / per_volume if per_volume > 0 else 0.0


__all__ = ["growth_plan", "plan_words"]

"""The own cluster on a monthly cash-flow basis: TCO, NPV, financing, lead time, trends, payback.

Conventions (also on :class:`costmodel.models.Finance`):

* costs are positive, credits (resale) negative, in the reporting currency;
* month 0 is the month of the decision; a horizon of H months covers months 0 … H−1;
* capex is paid in the month the hardware is bought (cash basis: no depreciation
  here, so payback never counts capex twice); running costs, rental and API bills are
  paid in the month they arise; the hardware's resale value, and an own facility's
  straight-line book value, come back in month H−1;
* a loan turns the month-0 hardware capex (less the down payment) into equal payments
  at the end of months 1 … term (:func:`numpy_financial.pmt`); a balance still owed at
  the horizon is paid off in month H−1;
* the discount rate is an effective yearly rate, applied monthly as (1 + r)^(1/12) − 1,
  and month 0 is not discounted (:func:`numpy_financial.npv`);
* trends compound monthly: a quantity changing by g a year is multiplied by
  (1 + g)^(m/12) in month m, which is exactly 1 when g is 0.

References
----------
.. [1] numpy-financial: ``npv``, ``pmt``, ``pv``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy_financial as npf

from .calculator import (
    OPTION_LABELS,
    _whole_units,
    api_monthly_costs,
    gpu_hours_used,
    gpus_needed,
    own_capex_lines,
    own_costs_at,
    own_facility_capex,
    own_step_gpus,
    present_options,
    rent_monthly_costs,
)
from .models import Scenario
from .units import HOURS_PER_MONTH, MONTHS_PER_YEAR

_DEPRECIATION_LINES = ("capex depreciation", "facility depreciation")


def monthly_rate(yearly_rate: float) -> float:
    """Effective monthly rate of an effective yearly rate: (1 + r)^(1/12) − 1. [1/month]

    Raises
    ------
    ValueError
        ``yearly_rate`` at or below −1.
    """
    if not yearly_rate > -1:
        raise ValueError(f"a yearly rate must be above -1, got {yearly_rate}")
    return (1.0 + yearly_rate) ** (1.0 / MONTHS_PER_YEAR) - 1.0


def growth_factors(yearly_change: float, months: np.ndarray) -> np.ndarray:
    """(1 + g)^(m/12) for each month m: exactly 1 when g is 0. [-]

    Raises
    ------
    ValueError
        ``yearly_change`` at or below −1.
    """
    if not yearly_change > -1:
        raise ValueError(f"a yearly change must be above -1, got {yearly_change}")
    if yearly_change == 0:
        return np.ones_like(months, dtype=float)
    return (1.0 + yearly_change) ** (months / MONTHS_PER_YEAR)


def loan_payment(principal: float, rate_per_year: float, term_months: int) -> float:
    """Equal monthly payment of a loan, paid at the end of each month. [currency/month]

    P·i / (1 − (1 + i)^−n) with i = rate / 12, via :func:`numpy_financial.pmt`; P / n
    at a zero rate.

    Raises
    ------
    ValueError
        A term below one month or a negative rate.
    """
    if term_months < 1 or rate_per_year < 0:
        raise ValueError(f"need a term of at least 1 month and a rate >= 0, got {term_months} and {rate_per_year}")
    return float(-npf.pmt(rate_per_year / MONTHS_PER_YEAR, term_months, principal))


def present_value(flows: np.ndarray, yearly_rate: float) -> float:
    """NPV of monthly cash flows, month 0 undiscounted. [currency]"""
    return float(npf.npv(monthly_rate(yearly_rate), flows))


@dataclass(frozen=True)
class CashFlows:
    """Monthly cash flows of each option over the horizon.

    Attributes
    ----------
    months
        0 … H−1. [month]
    volume
        The workload's volume each month (trend applied). [workload volume unit]
    gpu_hours
        GPU-hours used each month. [GPU-h]
    servers
        Working servers of the own cluster each month (0 before it is online). [servers]
    flows
        Option → line → cash out each month. [reporting currency]
    online_month
        First month the own cluster serves the work.
    """

    months: np.ndarray
    volume: np.ndarray
    gpu_hours: np.ndarray
    servers: np.ndarray
    flows: dict[str, dict[str, np.ndarray]]
    online_month: int

    def total(self, option: str) -> np.ndarray:
        """Cash out of one option each month. [reporting currency]"""
        return np.sum(np.stack(list(self.flows[option].values())), axis=0)

    def cumulative(self, option: str) -> np.ndarray:
        """Cumulative cash out of one option. [reporting currency]"""
        return np.cumsum(self.total(option))

    def table(self, currency: str):
        """Long table: month, option, line, cash, currency."""
        import pandas as pd

        frames = [pd.DataFrame({"month": self.months, "option": option, "line": line, "cash": values,
                                "currency": currency})
                  for option, lines in self.flows.items() for line, values in lines.items()]
        return pd.concat(frames, ignore_index=True)


def _servers_by_month(scenario: Scenario, volumes: np.ndarray, online: int) -> np.ndarray:
    own = scenario.options.own
    step = own_step_gpus(scenario)
    needed = _whole_units(gpus_needed(scenario, volumes), step, 0) * (step // own.server_spec.gpus_per_server)
    servers = np.maximum.accumulate(np.maximum(needed, own.server_count))   # servers are never sold early
    servers[:online] = own.server_count      # bought at the decision, online after the lead time
    return servers


def cash_flows(scenario: Scenario) -> CashFlows:
    """Monthly cash flows of every option over the scenario's horizon.

    Raises
    ------
    ValueError
        The scenario has no ``finance`` block.
    """
    finance = scenario.finance
    if finance is None:
        raise ValueError("the scenario has no finance block (horizon, discount rate)")
    trends = finance.trends
    months = np.arange(finance.horizon_months, dtype=float)
    volumes = scenario.volume * growth_factors(trends.demand_growth_per_year, months)
    hours = np.asarray(gpu_hours_used(scenario, volumes), dtype=float)
    flows: dict[str, dict[str, np.ndarray]] = {}

    def rent_flows() -> dict[str, np.ndarray]:
        parts = rent_monthly_costs(scenario, volumes)
        parts["GPU rental"] = parts["GPU rental"] * growth_factors(trends.rental_price_change_per_year, months)
        return parts

    def api_flows() -> dict[str, np.ndarray]:
        factor = growth_factors(trends.api_price_change_per_year, months)
        return {name: value * factor for name, value in api_monthly_costs(scenario, volumes).items()}

    if scenario.options.rent is not None:
        flows["rent"] = rent_flows()
    if scenario.options.api is not None:
        flows["api"] = api_flows()
    online = finance.lead_time_months
    servers = np.zeros_like(months)
    if scenario.options.own is not None:
        own = scenario.options.own
        servers = _servers_by_month(scenario, volumes, online)
        purchases = np.diff(sum(own_capex_lines(scenario, servers).values()), prepend=0.0)
        facility = np.diff(own_facility_capex(scenario, servers), prepend=0.0)
        lines: dict[str, np.ndarray] = {}
        if finance.loan is not None:
            loan = finance.loan
            principal = purchases[0] * (1.0 - loan.down_payment_share)
            payment = loan_payment(principal, loan.rate_per_year, loan.term_months)
            cash_capex = purchases.copy()
            cash_capex[0] = purchases[0] * loan.down_payment_share
            payments = np.where((months >= 1) & (months <= loan.term_months), payment, 0.0)
            paid = int(min(loan.term_months, finance.horizon_months - 1))
            balance = float(npf.pv(loan.rate_per_year / MONTHS_PER_YEAR, loan.term_months - paid, -payment)) \
                if paid < loan.term_months else 0.0
            payments[-1] += balance
            lines["hardware capex"] = cash_capex
            lines["loan payments"] = payments
        else:
            lines["hardware capex"] = purchases
        if own.facility is not None:
            lines["facility capex"] = facility
        running = own_costs_at(scenario, servers, hours)
        is_online = months >= online
        for name, values in running.items():
            if name not in _DEPRECIATION_LINES:
                lines[name] = np.where(is_online, values, 0.0)
        if online > 0:
            stand_in = (rent_flows if finance.during_lead_time == "rent" else api_flows)()
            lines[f"{OPTION_LABELS[finance.during_lead_time].lower()} during lead time"] = \
                np.where(is_online, 0.0, sum(stand_in.values()))
        resale = np.zeros_like(months)
        resale[-1] = -_resale_value(scenario, purchases, months)
        lines["resale"] = resale
        if own.facility is not None:      # the building outlives the horizon: credit its book value
            residual = np.zeros_like(months)
            age = finance.horizon_months - months
            residual[-1] = -float(np.sum(facility * np.clip(1.0 - age / own.facility.depreciation_months, 0.0, 1.0)))
            lines["facility residual value"] = residual
        flows["own"] = lines
        servers = np.where(months >= online, servers, 0.0)
    ordered = {name: flows[name] for name in present_options(scenario)}
    return CashFlows(months, volumes, hours, servers, ordered, online)


def _resale_value(scenario: Scenario, purchases: np.ndarray, months: np.ndarray) -> float:
    """Hardware value at the end of the horizon: a share of capex, or the straight-line book value."""
    finance, own = scenario.finance, scenario.options.own
    if finance.resale_share_at_horizon is not None:
        return float(purchases.sum() * finance.resale_share_at_horizon)
    age = finance.horizon_months - months            # months each purchase has been depreciated by the end
    book = np.clip(1.0 - age / own.depreciation_months, 0.0, 1.0)
    return float(np.sum(purchases * book))


@dataclass(frozen=True)
class OwnFinance:
    """Decision figures of the own cluster over the horizon, each with its unit.

    Attributes
    ----------
    tco
        Sum of all cash out less resale over the horizon. [reporting currency]
    npv
        Present value of those cash flows at the discount rate. [reporting currency]
    tco_by_option, npv_by_option
        The same for every option. [reporting currency]
    cost_per_used_gpu_hour
        Own cash cost while online / GPU-hours used while online; None when no GPU-hour
        is used. [reporting currency/GPU-h]
    utilisation
        GPU-hours used / GPU-hours the working servers offer while online. [-]
    break_even_utilisation
        Rental offer → utilisation at which owning costs the same per used GPU-hour
        (None: never, not even at 100 %). [-]
    payback_month
        First month whose cumulative own cost is at or below the compared option's, or
        None: never within the horizon. [month]
    payback_against
        The option compared (rent, else api).
    """

    tco: float
    npv: float
    tco_by_option: dict[str, float]
    npv_by_option: dict[str, float]
    cost_per_used_gpu_hour: float | None
    utilisation: float | None
    break_even_utilisation: dict[str, dict[str, Any]]
    payback_month: int | None
    payback_against: str | None


def rental_prices(scenario: Scenario) -> dict[str, tuple[str, float]]:
    """On-demand rental prices of the own cluster's GPU: offer → (label, price in reporting currency).

    The scenario's own rental offer first, then every catalog offer for the same GPU.
    """
    gpu = scenario.options.own.gpu
    offers = {}
    if scenario.options.rent is not None:
        offers[scenario.options.rent.offer] = scenario.options.rent.offer_spec
    for ident, offer in scenario.catalog.cloud_offers.items():
        if offer.gpu == gpu and ident not in offers:
            offers[ident] = offer
    return {ident: (f"{o.provider} ({ident})", o.price_per_gpu_hour * scenario.fx_rate(o.currency))
            for ident, o in offers.items()}


def own_cost_per_used_gpu_hour(scenario: Scenario, utilisation):
    """Own monthly (accrual) cost per used GPU-hour of the configured cluster at a utilisation.

    (F + v·u·G·730) / (u·G·730), with F the monthly cost at zero use, v the running
    cost of one more GPU-hour and G the working GPUs. NaN-free: raises at u = 0.

    Parameters
    ----------
    utilisation
        Share of the working GPUs' hours used, in (0, 1], scalar or array. [-]

    Returns
    -------
    float or numpy.ndarray
        [reporting currency/GPU-h]
    """
    u = np.asarray(utilisation, dtype=float)
    if not np.all((u > 0) & (u <= 1)):
        raise ValueError("utilisation must be in (0, 1]; at 0 the cost per used GPU-hour is not defined")
    fixed, variable, gpus = _fixed_and_variable(scenario)
    hours = u * gpus * HOURS_PER_MONTH
    result = (fixed + variable * hours) / hours
    return float(result) if np.ndim(utilisation) == 0 else result


def _fixed_and_variable(scenario: Scenario) -> tuple[float, float, float]:
    own = scenario.options.own
    servers = float(own.server_count)
    gpus = servers * own.server_spec.gpus_per_server
    fixed = float(sum(v for v in own_costs_at(scenario, servers, 0.0).values()))
    full = float(sum(v for v in own_costs_at(scenario, servers, gpus * HOURS_PER_MONTH).values()))
    variable = (full - fixed) / (gpus * HOURS_PER_MONTH)
    return fixed, variable, gpus


def break_even_utilisation(scenario: Scenario, price_per_gpu_hour: float) -> float | None:
    """Utilisation at which owning costs ``price_per_gpu_hour`` per used GPU-hour. [-]

    u* = F / (G·730·(p − v)); None (never) when p ≤ v or u* > 1.
    """
    fixed, variable, gpus = _fixed_and_variable(scenario)
    if price_per_gpu_hour <= variable:
        return None
    u = fixed / (gpus * HOURS_PER_MONTH * (price_per_gpu_hour - variable))
    return u if u <= 1.0 else None


def own_finance(scenario: Scenario, flows: CashFlows | None = None) -> OwnFinance:
    """TCO, NPV, cost per used GPU-hour, utilisation, break-even utilisations and payback month.

    Raises
    ------
    ValueError
        No finance block, or no own option.
    """
    if scenario.options.own is None:
        raise ValueError("the scenario has no own option")
    flows = flows or cash_flows(scenario)
    finance = scenario.finance
    rate = finance.discount_rate_per_year
    tco = {o: float(flows.total(o).sum()) for o in flows.flows}
    npv = {o: present_value(flows.total(o), rate) for o in flows.flows}
    online = flows.months >= flows.online_month
    used = float(flows.gpu_hours[online].sum())
    offered = float((flows.servers * scenario.options.own.server_spec.gpus_per_server * HOURS_PER_MONTH)[online].sum())
    own_lines = flows.flows["own"]
    own_only = sum(v.sum() for k, v in own_lines.items() if not k.endswith("during lead time"))
    against = "rent" if "rent" in flows.flows else ("api" if "api" in flows.flows else None)
    payback = None
    if against is not None:
        ahead = np.flatnonzero(flows.cumulative("own") <= flows.cumulative(against))
        payback = int(ahead[0]) if ahead.size else None
    breaks = {}
    for ident, (label, price) in rental_prices(scenario).items():
        u = break_even_utilisation(scenario, price)
        breaks[ident] = {"label": label, "price_per_gpu_hour": price, "utilisation": u}
    return OwnFinance(
        tco=tco["own"], npv=npv["own"], tco_by_option=tco, npv_by_option=npv,
        cost_per_used_gpu_hour=float(own_only) / used if used > 0 else None,
        utilisation=used / offered if offered > 0 else None,
        break_even_utilisation=breaks, payback_month=payback, payback_against=against,
    )


def finance_dict(scenario: Scenario, result: OwnFinance) -> dict[str, Any]:
    """JSON-ready decision figures, each with its unit; "never" and "not defined" for missing ones."""
    currency = scenario.reporting_currency
    finance = scenario.finance

    def money(x):
        return {"value": round(x, 2), "unit": currency}

    return {
        "horizon_months": finance.horizon_months,
        "discount_rate_per_year": finance.discount_rate_per_year,
        "tco": {o: money(v) for o, v in result.tco_by_option.items()},
        "npv": {o: money(v) for o, v in result.npv_by_option.items()},
        "own_cost_per_used_gpu_hour": ({"value": round(result.cost_per_used_gpu_hour, 6), "unit": f"{currency}/GPU-h"}
                                       if result.cost_per_used_gpu_hour is not None else "not defined"),
        "own_utilisation": ({"value": round(result.utilisation, 6), "unit": "share of GPU-hours"}
                            if result.utilisation is not None else "not defined"),
        "break_even_utilisation": {
            ident: {"offer": b["label"],
                    "price": {"value": round(b["price_per_gpu_hour"], 6), "unit": f"{currency}/GPU-h"},
                    "utilisation": ({"value": round(b["utilisation"], 6), "unit": "share of GPU-hours"}
                                    if b["utilisation"] is not None else "never")}
            for ident, b in result.break_even_utilisation.items()
        },
        "payback_month": ({"value": result.payback_month, "unit": "months after the decision",
                           "against": result.payback_against}
                          if result.payback_month is not None else "never within the horizon"),
    }


def describe(scenario: Scenario, result: OwnFinance) -> str:
    """The own cluster's decision figures in a few Markdown sentences."""
    currency = scenario.reporting_currency
    f = scenario.finance
    lines = [f"Over **{f.horizon_months} months** (cash basis; NPV at {f.discount_rate_per_year:.1%} a year):", ""]
    for option in result.tco_by_option:
        lines.append(f"- {OPTION_LABELS[option]}: TCO **{result.tco_by_option[option]:,.0f} {currency}**, "
                     f"NPV {result.npv_by_option[option]:,.0f} {currency}")
    lines.append("")
    best_npv = min(result.npv_by_option, key=result.npv_by_option.get)
    best_tco = min(result.tco_by_option, key=result.tco_by_option.get)
    ranked = sorted(result.npv_by_option.values())
    lines.append(f"Lowest present value of costs: **{OPTION_LABELS[best_npv]}**, "
                 f"{ranked[1] - ranked[0]:,.0f} {currency} below the next." if len(ranked) > 1 else "")
    if best_npv != best_tco:
        lines.append(f"Undiscounted, {OPTION_LABELS[best_tco]} costs less over the horizon; at "
                     f"{f.discount_rate_per_year:.1%} a year the money spent up front on hardware weighs more, "
                     f"so on present value {OPTION_LABELS[best_npv]} wins.")
    lines.append("")
    cost = ("not defined (no GPU-hour used)" if result.cost_per_used_gpu_hour is None
            else f"**{result.cost_per_used_gpu_hour:,.2f} {currency} per used GPU-hour**")
    use = "" if result.utilisation is None else f" at {result.utilisation:.1%} utilisation"
    lines.append(f"Over the horizon, in cash, owning costs {cost}{use} (capex when bought, interest, the lead "
                 "time's idle hardware, less resale). The break-even utilisations below are the steady-state "
                 "(monthly, depreciation-basis) view.")
    if result.payback_against is not None:
        against = OPTION_LABELS[result.payback_against]
        lines.append("Payback against " + against + ": " + (
            f"**month {result.payback_month}**." if result.payback_month is not None
            else "**never within the horizon**."))
    return "\n".join(lines)


def decision_table(scenario: Scenario, result: OwnFinance):
    """The own cluster's decision figures with their units, as text."""
    import pandas as pd

    currency = scenario.reporting_currency
    rows = [(f"TCO, {OPTION_LABELS[o]}", f"{v:,.0f}", currency) for o, v in result.tco_by_option.items()]
    rows += [(f"NPV, {OPTION_LABELS[o]}", f"{v:,.0f}", currency) for o, v in result.npv_by_option.items()]
    rows.append(("own cost per used GPU-hour over the horizon (cash basis)", "not defined"
                 if result.cost_per_used_gpu_hour is None else f"{result.cost_per_used_gpu_hour:,.3f}",
                 f"{currency}/GPU-h"))
    rows.append(("own utilisation achieved", "not defined" if result.utilisation is None
                 else f"{result.utilisation:.1%}", "share of GPU-hours"))
    rows.append(("payback month" + (f" (against {OPTION_LABELS[result.payback_against]})"
                                    if result.payback_against else ""),
                 "never within the horizon" if result.payback_month is None else str(result.payback_month),
                 "months after the decision"))
    for b in sorted(result.break_even_utilisation.values(), key=lambda b: b["price_per_gpu_hour"]):
        rows.append((f"break-even utilisation (steady state) vs {b['label']} at {b['price_per_gpu_hour']:,.3f} "
                     f"{currency}/GPU-h",
                     "never" if b["utilisation"] is None else f"{b['utilisation']:.1%}", "share of GPU-hours"))
    return pd.DataFrame(rows, columns=["figure", "value", "unit"])


def yearly_table(scenario: Scenario, flows: CashFlows):
    """Cash out of each option by line and year of the horizon, as text. [reporting currency]"""
    table = flows.table(scenario.reporting_currency)
    table["year"] = (table["month"] // MONTHS_PER_YEAR + 1).astype(int)
    table["option"] = table["option"].map(OPTION_LABELS)
    pivot = table.pivot_table(index=["option", "line"], columns="year", values="cash", aggfunc="sum", sort=False)
    pivot = pivot.loc[(pivot != 0).any(axis=1)]
    pivot["total"] = pivot.sum(axis=1)
    shown = pivot.map(lambda x: f"{x:,.0f}")
    shown.columns = [f"year {c}" if c != "total" else "total" for c in shown.columns]
    return shown.reset_index()

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
  demand, electricity, salaries, and the price of hardware bought later);
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

import numpy as np

from .. import formulas
from ..resolved import Resolved, as_resolved
from ..results import DEPRECIATION, CashFlows, CashLine, Component, OwnFinance, UtilisationBreakEven
from ..schema import Scenario
from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .capacity import gpu_hours_used, gpus_needed
from .costs import (
    api_monthly_costs,
    own_costs_at,
    own_facility_capex,
    own_fixed_and_variable,
    own_hardware_capex,
    rent_monthly_costs,
)
from .tax import after_tax, useful_life


def _servers_by_month(r: Resolved, volumes: np.ndarray, online: int) -> np.ndarray:
    own = r.option("own")
    needed = formulas.servers_needed(np.asarray(gpus_needed(r, volumes)), own.gpus_per_server,
                                     r.workload.gpus_per_replica, minimum=own.server_count)
    servers = np.maximum.accumulate(needed)   # servers are never sold early
    servers[:online] = own.server_count       # bought at the decision, online after the lead time
    return servers


def cash_flows(scenario: Scenario | Resolved) -> CashFlows:
    """Monthly cash flows of every option over the scenario's horizon.

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

    def rent_flows() -> dict[str, np.ndarray]:
        parts = rent_monthly_costs(r, volumes)
        parts["GPU rental"] = parts["GPU rental"] * formulas.growth_factor(trends.rental_price_change_per_year, months)
        return parts

    def api_flows() -> dict[str, np.ndarray]:
        factor = formulas.growth_factor(trends.api_price_change_per_year, months)
        return {name: value * factor for name, value in api_monthly_costs(r, volumes).items()}

    def escalated(parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Electricity and staffing lines with their yearly escalation."""
        out = dict(parts)
        for name, change in ((Component.ELECTRICITY, trends.electricity_price_change_per_year),
                             (Component.STAFFING, trends.salary_change_per_year),
                             (Component.MANAGED_SERVICE, trends.salary_change_per_year)):
            if name in out and change != 0:
                out[name] = out[name] * formulas.growth_factor(change, months)
        return out

    if "rent" in r.options:
        flows["rent"] = escalated(rent_flows())
        if finance.rent_commitment is not None:
            flows["rent"] = _committed(r, flows["rent"], hours, months)
    if "api" in r.options:
        flows["api"] = api_flows()
    online = finance.lead_time_months
    servers = np.zeros_like(months)
    if "own" in r.options:
        own = r.option("own")
        servers = _servers_by_month(r, volumes, online)
        at_today = np.diff(own_hardware_capex(own, servers), prepend=0.0)   # purchases at today's prices
        purchases = at_today * formulas.growth_factor(trends.hardware_price_change_per_year, months)
        facility = np.diff(own_facility_capex(own, servers), prepend=0.0)
        lease = finance.lease
        first_owned = at_today.copy()
        if finance.view == "marginal" or (lease is not None and lease.kind == "operating"):
            first_owned[0] = 0.0            # sunk, or not owned: neither refreshed nor resold
        refresh, refresh_resale, held = _refresh(r, first_owned, months)
        lines: dict[str, np.ndarray] = {}
        if finance.view == "marginal":
            purchases = purchases.copy()
            purchases[0] = 0.0
            facility = facility.copy()
            facility[0] = 0.0
        if lease is not None:
            leased = float(purchases[0])
            purchases = purchases.copy()
            purchases[0] = 0.0
            lines[CashLine.HARDWARE_CAPEX] = purchases
            lines.update(_lease_lines(r, lease, leased, months))
            if lease.kind == "operating":
                purchases_for_tax = purchases
            else:
                purchases_for_tax = purchases.copy()
                purchases_for_tax[0] = leased
        elif finance.loan is not None:
            loan = finance.loan
            principal = purchases[0] * (1.0 - loan.down_payment_share)
            payment = formulas.loan_payment(principal, loan.rate_per_year, loan.term_months)
            cash_capex = purchases.copy()
            cash_capex[0] = purchases[0] * loan.down_payment_share
            payments = np.where((months >= 1) & (months <= loan.term_months), payment, 0.0)
            paid = int(min(loan.term_months, finance.horizon_months - 1))
            balance = formulas.loan_balance(payment, loan.rate_per_year, loan.term_months - paid) \
                if paid < loan.term_months else 0.0
            payments[-1] += balance
            lines[CashLine.HARDWARE_CAPEX] = cash_capex
            lines[CashLine.LOAN_PAYMENTS] = payments
        else:
            lines[CashLine.HARDWARE_CAPEX] = purchases
        if lease is None:
            purchases_for_tax = purchases
        if np.any(refresh != 0):
            lines[CashLine.REFRESH] = refresh
            lines[CashLine.REFRESH_RESALE] = refresh_resale
        if own.facility_price_per_mw is not None:
            lines[CashLine.FACILITY_CAPEX] = facility
        running = escalated(own_costs_at(own, servers, hours))
        is_online = months >= online
        for name, values in running.items():
            if name not in DEPRECIATION:
                lines[name] = np.where(is_online, values, 0.0)
        if online > 0:
            stand_in = (rent_flows if finance.during_lead_time == "rent" else api_flows)()
            lines[CashLine.STAND_IN] = np.where(is_online, 0.0, sum(stand_in.values()))
        resale = np.zeros_like(months)
        resale[-1] = -_resale_value(r, held, months)
        lines[CashLine.RESALE] = resale
        if own.facility_price_per_mw is not None:      # the building outlives the horizon: credit its book value
            residual = np.zeros_like(months)
            age = finance.horizon_months - months
            residual[-1] = -float(np.sum(facility * formulas.book_value_share(age, own.facility_depreciation_months)))
            lines[CashLine.FACILITY_RESIDUAL] = residual
        flows["own"] = lines
        servers = np.where(months >= online, servers, 0.0)
    ordered = {name: flows[name] for name in r.options if name in flows}
    if "own" not in r.options:
        return CashFlows(months, volumes, hours, servers, ordered, online)
    return CashFlows(months, volumes, hours, servers, ordered, online,
                     hardware_purchases=purchases_for_tax + refresh, facility_purchases=facility)


def _lease_lines(r: Resolved, lease, leased: float, months: np.ndarray) -> dict[str, np.ndarray]:
    """Lease payments (in advance) and, for a finance lease, the buy-out or the pay-off at the horizon."""
    horizon, term = len(months), lease.term_months
    i = lease.rate_per_year / MONTHS_PER_YEAR
    payments, buyout = np.zeros_like(months), np.zeros_like(months)
    if lease.kind == "finance":
        payment = formulas.lease_payment(leased, lease.rate_per_year, term, lease.residual_share)
        payments[:min(term, horizon)] = payment
        if term < horizon:
            buyout[term] = leased * lease.residual_share
        else:              # still leased at the horizon: pay off what is left, discounted at the lease rate
            left = np.arange(horizon, term) - (horizon - 1)
            buyout[-1] = float(np.sum(payment / (1 + i) ** left)
                               + leased * lease.residual_share / (1 + i) ** (term - (horizon - 1)))
        return {CashLine.LEASE_PAYMENTS: payments, CashLine.LEASE_BUYOUT: buyout}
    price = formulas.growth_factor(r.finance.trends.hardware_price_change_per_year, months)
    for start in range(0, horizon, term):      # leased again at each term's end, at that month's price
        payments[start:start + term] = formulas.lease_payment(leased * price[start], lease.rate_per_year, term,
                                                              lease.residual_share)
    return {CashLine.LEASE_PAYMENTS: payments}


def _committed(r: Resolved, parts: dict[str, np.ndarray], hours: np.ndarray, months: np.ndarray):
    """The rent option with reserved GPUs: the commitment paid by its terms, the rest on demand."""
    commitment, rent = r.finance.rent_commitment, r.option("rent")
    if rent.reserved is None:
        raise ValueError("finance.rent_commitment needs the rent option's reserved block (term and price)")
    term = 12 * rent.reserved.term_years
    trend = formulas.growth_factor(r.finance.trends.rental_price_change_per_year, months)
    reserved_hours = commitment.gpus * HOURS_PER_MONTH
    out = dict(parts)
    if rent.billing == "always_on":
        gpus = np.asarray(out[Component.GPU_RENTAL]) / (rent.price_per_gpu_hour * HOURS_PER_MONTH * trend)
        out[Component.GPU_RENTAL] = np.maximum(gpus - commitment.gpus, 0.0) * rent.price_per_gpu_hour \
            * HOURS_PER_MONTH * trend
    else:
        out[Component.GPU_RENTAL] = np.maximum(hours - reserved_hours, 0.0) * rent.price_per_gpu_hour * trend
    paid = np.zeros_like(months)
    for start in range(0, len(months), term):
        whole = reserved_hours * term * rent.reserved.price_per_gpu_hour * trend[start]   # the term's price
        upfront = {"all_upfront": 1.0, "partial_upfront": commitment.upfront_share, "no_upfront": 0.0}[
            commitment.payment]
        paid[start] += upfront * whole
        paid[start:start + term] += (1.0 - upfront) * whole / term
    out[CashLine.RESERVED] = paid
    return out


def residual_share(r: Resolved, age_months):
    """Resale value of hardware of an age as a share of what it cost, on the finance block's curve. [-]"""
    curve, life = r.finance.residual, useful_life(r)
    return formulas.residual_share(age_months, life, curve.method, curve.rate_per_year, curve.ages_months,
                                   curve.shares)


def _refresh(r: Resolved, at_today: np.ndarray, months: np.ndarray):
    """Refresh purchases, resale of the replaced hardware, and the cost of what is held at the horizon.

    Each purchase (at today's prices, ``at_today``) is bought again every useful life while
    the horizon lasts, at the hardware price trend of that month; the replaced hardware is
    sold in the same month at its residual share at the age of one useful life.

    Returns
    -------
    tuple of numpy.ndarray
        Refresh purchases, resale credits (negative) by month, and the price paid for the
        hardware held at the horizon, by month of its (last) purchase. [reporting currency]
    """
    life, horizon = useful_life(r), len(months)
    price = formulas.growth_factor(r.finance.trends.hardware_price_change_per_year, months)
    refresh, credit, held = (np.zeros_like(months) for _ in range(3))
    for bought in np.flatnonzero(at_today):
        when = int(bought)
        while when + life < horizon:
            paid = at_today[bought] * price[when]
            when += life
            refresh[when] += at_today[bought] * price[when]
            credit[when] -= paid * residual_share(r, life)
        held[when] += at_today[bought] * price[when]
    return refresh, credit, held


def _resale_value(r: Resolved, held: np.ndarray, months: np.ndarray) -> float:
    """Hardware value at the end of the horizon: a share of its price, or its value on the residual curve."""
    finance = r.finance
    if finance.resale_share_at_horizon is not None:
        return float(held.sum() * finance.resale_share_at_horizon)
    age = finance.horizon_months - months            # months each purchase has aged by the end
    return float(np.sum(held * residual_share(r, age)))


def rental_prices(scenario: Scenario | Resolved) -> list[tuple[str, str, float]]:
    """On-demand rental prices of the own cluster's GPU: (offer, label, price in reporting currency).

    The scenario's own rental offer first, then every catalog offer for the same GPU.
    """
    r = as_resolved(scenario)
    gpu = r.option("own").server.gpu
    offers = {}
    if "rent" in r.options:
        offers[r.options["rent"].offer.offer] = (r.options["rent"].offer, r.options["rent"].price_per_gpu_hour)
    for ident, offer in r.catalog.cloud_offers.items():
        if offer.gpu == gpu and ident not in offers:
            offers[ident] = (offer, offer.price_per_gpu_hour * r.scenario.fx_rate(offer.currency))
    return [(ident, f"{o.provider} ({ident})", float(price)) for ident, (o, price) in offers.items()]


def own_cost_per_used_gpu_hour(scenario: Scenario | Resolved, utilisation):
    """Own monthly (accrual) cost per used GPU-hour of the configured cluster at a utilisation.

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
    own = as_resolved(scenario).option("own")
    fixed, variable = own_fixed_and_variable(own)
    return formulas.cost_per_used_gpu_hour(fixed, variable, own.configured_gpus, utilisation)


def break_even_utilisation(scenario: Scenario | Resolved, price_per_gpu_hour: float) -> float | None:
    """Utilisation at which owning costs ``price_per_gpu_hour`` per used GPU-hour. [-]

    See :func:`costmodel.formulas.break_even_utilisation`; None when never.
    """
    own = as_resolved(scenario).option("own")
    fixed, variable = own_fixed_and_variable(own)
    return formulas.break_even_utilisation(fixed, variable, own.configured_gpus, price_per_gpu_hour)


def present_values(scenario: Scenario | Resolved, flows: CashFlows | None = None
                   ) -> tuple[dict[str, float], dict[str, float]]:
    """Each option's NPV and TCO over the horizon: (npv_by_option, tco_by_option). [currency]

    The NPV discounts each month's total at the finance block's rate and convention
    (:func:`costmodel.formulas.npv_with_convention`); the TCO is the undiscounted sum. The two
    figures of :func:`own_finance` that a sweep tabulates, without its returns, payback and
    break-even utilisations (three times quicker).

    Raises
    ------
    ValueError
        No finance block.
    """
    r = as_resolved(scenario)
    flows = flows or cash_flows(r)
    rate, convention = r.finance.discount_rate_per_year, r.finance.npv
    tco = {o: float(flows.total(o).sum()) for o in flows.flows}
    npv = {o: float(formulas.npv_with_convention(flows.total(o), rate, convention.period, convention.timing))
           for o in flows.flows}
    return npv, tco


def own_finance(scenario: Scenario | Resolved, flows: CashFlows | None = None) -> OwnFinance:
    """TCO, present value, cost per used GPU-hour, utilisation, break-even utilisations and payback.

    Raises
    ------
    ValueError
        No finance block, or no own option.
    """
    r = as_resolved(scenario)
    own = r.option("own")
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
    payback = None
    if against is not None:
        ahead = np.flatnonzero(flows.cumulative("own") <= flows.cumulative(against))
        payback = int(ahead[0]) if ahead.size else None
    returns = investment_returns(r, flows, against)
    if finance.trends.inflation_per_year != 0:
        returns["real_discount_rate_per_year"] = formulas.fisher_real_rate(rate, finance.trends.inflation_per_year)
    if finance.tax is not None:
        taxed = after_tax(r, flows)
        returns |= {
            "tax_rate": finance.tax.rate,
            "after_tax_tco_by_option": {o: float(taxed.total(o).sum()) for o in taxed.flows},
            "after_tax_npv_by_option": {
                o: float(formulas.npv_with_convention(taxed.total(o), rate, convention.period, convention.timing))
                for o in taxed.flows},
            "after_tax_irr_per_year": (formulas.per_year(formulas.irr(gains(taxed, against)))
                                       if against is not None else None),
        }
    breaks = tuple(UtilisationBreakEven(ident, label, price, break_even_utilisation(r, price))
                   for ident, label, price in rental_prices(r))
    return OwnFinance(
        horizon_months=finance.horizon_months, discount_rate_per_year=rate,
        tco_by_option=tco, npv_by_option=npv,
        cost_per_used_gpu_hour=float(own_only) / used if used > 0 else None,
        utilisation=used / offered if offered > 0 else None,
        break_even_utilisation=breaks, payback_month=payback, payback_against=against,
        npv_period=convention.period, npv_timing=convention.timing, **returns,
        yearly_by_option={o: tuple(float(v) for v in formulas.yearly_totals(flows.total(o))) for o in flows.flows},
    )


CAPITAL_LINES = (CashLine.HARDWARE_CAPEX, CashLine.LOAN_PAYMENTS, CashLine.FACILITY_CAPEX, CashLine.REFRESH,
                 CashLine.LEASE_PAYMENTS, CashLine.LEASE_BUYOUT)
"""The own option's cash lines that are paid for hardware and facility: the investment of the ROI."""


def gains(flows: CashFlows, against: str) -> np.ndarray:
    """What owning saves each month against another option: its cash out minus own's. [reporting currency]"""
    return flows.total(against) - flows.total("own")


def investment_returns(r: Resolved, flows: CashFlows, against: str | None) -> dict:
    """IRR, MIRR, ROI, investment and (discounted) fractional payback of owning instead of ``against``.

    IRR and MIRR are numpy-financial's on the monthly gains (finance and reinvestment rate:
    the monthly discount rate), made yearly; payback interpolates within the month
    (:func:`costmodel.formulas.fractional_payback`), the first month at time 0.
    """
    if against is None:
        return {}
    gain = gains(flows, against)
    monthly = float(formulas.monthly_rate(r.finance.discount_rate_per_year))
    own = flows.flows["own"]
    investment = float(sum(np.clip(own[line], 0.0, None).sum() for line in CAPITAL_LINES if line in own))
    return {
        "irr_per_year": formulas.per_year(formulas.irr(gain)),
        "mirr_per_year": formulas.per_year(formulas.mirr(gain, monthly, monthly)),
        "roi": formulas.roi(float(gain.sum()), investment),
        "investment": investment,
        "payback_months": formulas.fractional_payback(gain),
        "discounted_payback_months": formulas.fractional_payback(formulas.discounted(gain, monthly)),
    }


__all__ = ["CAPITAL_LINES", "break_even_utilisation", "cash_flows", "gains", "investment_returns",
           "residual_share", "useful_life", "own_cost_per_used_gpu_hour", "own_finance",
           "rental_prices"]

"""The one decision: every way to pay for the work on the scenario's one measure, ranked once.

The measure (:class:`costmodel.results.Measure`) follows from the scenario's blocks:

* a training workload: the **cost of the whole run** (a one-off run, whatever the horizon of a
  finance block);
* a ``finance`` block: the **present value of costs** over the horizon (cash basis, the
  block's discount rate and convention); candidates are the options' cash flows as the
  scenario states them, the rent option all on demand where a commitment is stated (or its
  cheapest reserved and spot terms where only those are), and the capacity plan;
* a demand profile: the **monthly cost of serving the demand hour by hour**, each option
  buying capacity as it is sold (:func:`costmodel.domain.mix.pure_costs`), and the cheapest
  mix where it is cheaper than every option alone;
* otherwise the **monthly cost at the scenario's volume**, with the rent option's reserved
  terms as a way to pay of their own;
* ``decision_measure: cost_per_successful_task``: that monthly cost over the successful tasks a
  month (:func:`costmodel.domain.routing.per_successful_task`).

With a ``routing`` block the routed blend (each class of requests on its own option,
:mod:`costmodel.domain.routing`) is a candidate beside the options serving every request.

Every output that ranks options reads the :class:`~costmodel.results.Decision` built here
(verdict, summary, text, JSON, report, what-if, batch, workbook, uncertainty), so they name
one winner, one figure and one measure. :func:`measure_figures` gives the candidates' figures
alone and broadcasts over sampled inputs, for the uncertainty analyses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..formulas.shapes import Numbers
from ..resolved import RentOption, Resolved, as_resolved
from ..results import Candidate, CashFlows, Decision, GrowthPlan, Layer, Measure, MixResult, TrainingRun, cheaper
from ..schema import Scenario, TokensWorkload
from ..units import HOURS_PER_MONTH
from .capacity import (
    own_option,
    own_servers,
    own_servers_for,
    rent_gpus,
    rent_gpus_for,
    rent_option,
    rent_option_if_any,
)
from .costs import monthly_cost, own_hardware_capex, staffing_month
from .mix import api_offer_label
from .routing import ROUTED, TASKS_PER_FIGURE, per_successful_task, routed_costs, routed_label, routed_successful_tasks

MIX = "mix"
"""Candidate id of the cheapest mix of a demand profile."""
PLAN = "plan"
"""Candidate id of the capacity plan."""
RESERVED = "rent.reserved"
"""Candidate id of the rent option paid on its reserved terms."""
ON_DEMAND = "rent.on_demand"
"""Candidate id of the rent option all on demand (beside a stated commitment)."""
SPOT = "rent.spot"
"""Candidate id of the rent option all on spot (uncapped spot only)."""

_PURE_TO_CANDIDATE: dict[str, str] = {  # Layer is a StrEnum: its members are the str keys of pure_costs
    Layer.OWN: "own",
    Layer.ALWAYS_ON: "rent",
    Layer.ON_DEMAND: "rent",
    Layer.RESERVED: RESERVED,
    Layer.SPOT: SPOT,
}


@dataclass(frozen=True)
class _Commitment:
    """Reserved GPUs for the cash flows (the schema's Commitment, with array-valued GPUs allowed)."""

    gpus: Any
    payment: str = "no_upfront"
    upfront_share: float = 0.0


def measure_of(scenario: Scenario | Resolved) -> str:
    """The scenario's decision measure (a :class:`~costmodel.results.Measure` value)."""
    r = as_resolved(scenario)
    if r.scenario.decision_measure == Measure.COST_PER_SUCCESSFUL_TASK:  # the schema allows it on the monthly view
        return Measure.COST_PER_SUCCESSFUL_TASK
    if r.workload.kind == "training":  # a one-off run: its cost, not a horizon of months of it
        return Measure.RUN_COST
    if r.finance is not None:
        return Measure.PRESENT_VALUE
    if r.demand is not None and r.workload.sized_in_gpus:  # API only: its bills, the profile in their price
        return Measure.HOURLY_MONTHLY_COST
    return Measure.MONTHLY_COST


def option_of(candidate: str) -> str | None:
    """The option a candidate belongs to (``rent.reserved`` → ``rent``); None for the mix, the plan and the
    routed blend."""
    if candidate in (MIX, PLAN, ROUTED):
        return None
    return candidate.split(".", 1)[0] if candidate.startswith("rent.") else candidate


# --- the figures -----------------------------------------------------------------------------------------


def reserved_monthly_cost(r: Resolved, volume: Numbers) -> np.ndarray:
    """The rent option on its reserved terms at a volume: its GPUs every hour at the reserved price. [currency/month]"""
    rent = rent_option(r)
    assert rent.reserved is not None, "the reserved cost is asked for only where the rent option has reserved terms"
    gpus = np.asarray(rent_gpus(r, volume), dtype=float)
    return gpus * rent.reserved.price_per_gpu_hour * HOURS_PER_MONTH + staffing_month(rent.staffing, gpus)


def monthly_figures(r: Resolved) -> dict[str, Any]:
    """Each option's monthly cost at the volume, and the rent option on its reserved terms. [currency/month]"""
    found = {o: monthly_cost(r, o, r.volume) for o in r.options}
    rent = rent_option_if_any(r)
    if rent is not None and rent.reserved is not None:
        found[RESERVED] = reserved_monthly_cost(r, r.volume)
    return found


def run_figures(r: Resolved) -> dict[str, Any]:
    """Each option's cost of the whole training run. [currency]"""
    from .training import run_costs

    return run_costs(r)


def hourly_figures(r: Resolved) -> dict[str, Any]:
    """Each option alone serving the hourly demand, capacity as it is bought. [currency/month]"""
    from .mix import pure_costs

    costs, _ = pure_costs(r)
    return {_PURE_TO_CANDIDATE.get(k, k): v for k, v in costs.items()}


@dataclass(frozen=True)
class RentedTerms:
    """How the rent option's other way to pay on the present value rents: reserved GPUs, then spot, then on demand.

    Attributes
    ----------
    gpus
        GPUs reserved on the rent option's reserved terms (0: none). [GPU]
    spot
        Whether spot capacity (at most its cap) takes what the reserved GPUs leave, before on-demand.
    """

    gpus: Any
    spot: bool = False


REFERENCE_LEVELS = 2_000
"""Most commitment levels tried for the rented way to pay (evenly spaced whole replicas beyond it)."""


def rented_terms(r: Resolved, flows=None) -> RentedTerms | None:
    """The rent option's cheapest other way to pay on the present value: reserved GPUs, then spot, the rest on demand.

    Every commitment of whole replicas from none to the GPUs the work needs at its largest, with
    and without spot where the rent option offers it (billed by the GPU-hour), is priced over the
    horizon in one vectorised call (commitment levels take the place of samples), and the lowest
    present value kept. None without reserved or spot terms, or when only renting all on demand
    remains (that is the rent option as stated).
    """
    from .finance import cash_flows, committed_flows, rent_cash_flows

    rent = rent_option_if_any(r)
    if rent is None or r.finance is None or (rent.reserved is None and rent.spot is None):
        return None
    flows = flows or cash_flows(r)
    on_demand = flows.rent_on_demand or rent_cash_flows(r, flows.months, flows.volume, flows.gpu_hours, None)
    replica = r.workload.gpus_per_replica
    if rent.reserved is not None:
        top = float(np.max(rent_gpus(r, float(np.max(flows.volume)))))
        if top / replica < REFERENCE_LEVELS:
            levels = np.arange(0.0, top + replica, replica)
        else:
            levels = np.unique(np.round(np.linspace(0, top, REFERENCE_LEVELS) / replica) * replica)
    else:
        levels = np.zeros(1)
    spot_allowed = (
        rent.spot is not None
        and rent.billing == "per_gpu_hour_used"
        and (not isinstance(r.scenario.workload, TokensWorkload) or r.scenario.workload.interruptible)
    )
    # without reserved terms there is no commitment to price: spot with the rest on demand is the one other way
    spots = [spot for spot in ((False, True) if spot_allowed else (False,)) if spot or rent.reserved is not None]
    best = None
    for spot in spots:
        values = np.atleast_1d(
            np.asarray(
                _lines_value(
                    r,
                    committed_flows(
                        r, on_demand, flows.gpu_hours, flows.months, _Commitment(levels[:, None]), spot=spot
                    ),
                ),
                dtype=float,
            )
        )
        values = np.broadcast_to(values, levels.shape)
        for level, value in zip(levels, values, strict=True):
            if (level > 0 or spot) and (best is None or value < best[0] - 1e-9 * abs(best[0])):
                best = (float(value), RentedTerms(int(level), spot))
    return None if best is None else best[1]


_RESERVED: dict[int, tuple[Resolved, RentedTerms | None]] = {}
"""Rented terms of recent resolved scenarios (id → (scenario, terms)): searched once."""


def reserved_gpus_of(r: Resolved) -> RentedTerms | None:
    """The rented way to pay for a scenario on the present value (:func:`rented_terms`), searched once."""
    found = _RESERVED.get(id(r))
    if found is not None and found[0] is r:
        return found[1]
    terms = rented_terms(r)
    if len(_RESERVED) >= 16:
        _RESERVED.pop(next(iter(_RESERVED)))
    _RESERVED[id(r)] = (r, terms)
    return terms


def present_value_figures(
    r: Resolved, flows: CashFlows | None = None, reserved_gpus: RentedTerms | None = None
) -> dict[str, Any]:
    """Each option's present value of costs over the horizon, and the rent option's other way to pay. [currency]

    ``reserved_gpus``: the rented way to pay's terms, default the cheapest (:func:`rented_terms`;
    give them for sampled inputs, which keep the base scenario's choice). With reserved GPUs the
    candidate is ``rent.reserved``; with spot only, ``rent.spot``; beside a stated commitment,
    renting all on demand is ``rent.on_demand``.
    """
    from .finance import cash_flows, committed_flows, present_value_of, rent_cash_flows

    flows = flows or cash_flows(r)
    found = {o: present_value_of(r, flows.total(o), flows.at_start(o)) for o in flows.flows}
    if "rent" in r.options:
        rent, commitment = rent_option(r), r.finance.rent_commitment
        on_demand = flows.rent_on_demand or rent_cash_flows(r, flows.months, flows.volume, flows.gpu_hours, None)
        if commitment is not None:
            found[ON_DEMAND] = _lines_value(r, on_demand)
        else:
            terms = rented_terms(r, flows) if reserved_gpus is None else reserved_gpus
            if terms is not None:
                reserved = rent.reserved is not None and terms.gpus > 0
                lines = committed_flows(
                    r,
                    on_demand,
                    flows.gpu_hours,
                    flows.months,
                    _Commitment(terms.gpus if reserved else 0),
                    spot=terms.spot,
                )
                found[RESERVED if reserved else SPOT] = _lines_value(r, lines)
    return found


def _lines_value(r: Resolved, lines: dict[str, Any]):
    """Present value of a set of cash lines (those of :data:`~costmodel.results.START_LINES` at their month's start)."""
    from ..results import START_LINES
    from .finance import present_value_of

    total = sum(np.asarray(v, dtype=float) for v in lines.values())
    start = sum((np.asarray(lines[k], dtype=float) for k in START_LINES if k in lines), np.zeros_like(total))
    return present_value_of(r, total, start)


def measure_figures(scenario: Scenario | Resolved, measure: str | None = None) -> dict[str, Any]:
    """Every candidate's figure on the decision measure (the mix and the plan apart).

    Broadcasts: with inputs replaced by arrays of samples
    (:func:`costmodel.domain.uncertainty.with_values`), each figure is an array. For the
    present value, give samples a trailing axis of length 1 (shape (n, 1)) so that they
    broadcast against the horizon's months.

    With a routing block (on the monthly cost or the cost per successful task) the routed blend
    (:data:`~costmodel.domain.routing.ROUTED`) comes last.

    Returns
    -------
    dict of str to float or numpy.ndarray
        Candidate id → figure, in the options' order. [currency, currency/month, or currency/1,000 successful
        tasks]
    """
    r = as_resolved(scenario)
    measure = measure or measure_of(r)
    if measure == Measure.PRESENT_VALUE:
        return present_value_figures(r)
    if measure == Measure.RUN_COST:
        return run_figures(r)
    if measure == Measure.HOURLY_MONTHLY_COST:
        return hourly_figures(r)
    found = per_successful_task(r, monthly_figures(r)) if measure == Measure.COST_PER_SUCCESSFUL_TASK else None
    found = monthly_figures(r) if found is None else found
    if r.scenario.routing is not None:
        found[ROUTED] = routed_figure(r, measure)
    return found


def routed_figure(r: Resolved, measure: str) -> Any:
    """The routed blend on the measure: the classes' summed monthly cost, or the cost of 1,000 of its successful
    tasks. [currency/month, or currency/1,000 successful tasks]
    """
    cost = sum(np.asarray(v, dtype=float) for v in routed_costs(r).values())
    if measure == Measure.COST_PER_SUCCESSFUL_TASK:
        return TASKS_PER_FIGURE * cost / routed_successful_tasks(r)
    return cost


# --- the labels ------------------------------------------------------------------------------------------


def _plural(n: float, word: str) -> str:
    n = int(round(float(np.max(n))))
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _own_label(r: Resolved, servers) -> str:
    own = own_option(r)
    n = int(round(float(np.max(servers))))
    why = "the busiest hour of the demand" if r.demand is not None else "the volume"
    more = f", stepped up from the {own.server_count:,} configured for {why}" if n > own.server_count else ""
    return f"{own.label}: {n:,} × {own.server.server} ({n * own.gpus_per_server:,} × {own.server.gpu}){more}"


def _rent_label(r: Resolved, gpus, how: str, option: str = "rent") -> str:
    rent = rent_option(r, option)
    count = "" if gpus is None else f"{int(round(float(np.max(gpus)))):,} × "
    return f"{rent.label}: {count}{rent.offer.gpu} at {rent.offer.provider}, {how}"


def _commitment_words(r: Resolved, commitment, spot: bool = False) -> str:
    rent = rent_option(r)
    terms = rent.reserved
    assert terms is not None, "a commitment is made on the rent option's reserved terms"
    pay = {
        "all_upfront": "all up front",
        "no_upfront": "no up-front payment",
        "partial_upfront": f"{100 * commitment.upfront_share:.3g} % up front",
    }[commitment.payment]
    beyond = ""
    if spot and rent.spot is not None:
        beyond = f"spot up to {_plural(rent.spot.max_gpus, 'GPU')} at once, " if rent.spot.max_gpus else "spot, "
    return f"{terms.term_years}-year reserved, {_plural(commitment.gpus, 'GPU')} ({pay}), {beyond}the rest on demand"


def labels(
    r: Resolved,
    measure: str,
    figures: Mapping[str, Any],
    mix: MixResult | None = None,
    reserved_gpus: RentedTerms | None = None,
) -> dict[str, str]:
    """Each candidate named: the option, what is bought and how it is paid."""
    found = {}
    rent = rent_option_if_any(r)
    hourly_need = None
    if measure == Measure.HOURLY_MONTHLY_COST:
        from .demand import hourly_demand

        series = hourly_demand(r)
        hourly_need = (float(series.max()) if series.size else 0.0) / r.workload.hourly_ceiling
    for candidate in figures:
        if candidate == "own":
            servers = (
                own_servers_for(r, hourly_need)
                if hourly_need is not None
                else (own_option(r).server_count if measure == Measure.RUN_COST else own_servers(r, r.volume))
            )
            found[candidate] = _own_label(r, servers)
        elif candidate in ("rent", RESERVED, ON_DEMAND, SPOT):
            assert rent is not None, "these candidates are the rent option's ways to pay"
            gpus = rent_gpus_for(r, hourly_need) if hourly_need is not None else rent_gpus(r, r.volume)
            per_hour = rent.billing == "per_gpu_hour_used"
            terms = (
                (reserved_gpus_of(r) if reserved_gpus is None else reserved_gpus)
                if measure == Measure.PRESENT_VALUE
                else None
            )
            if candidate == RESERVED:
                assert rent.reserved is not None, "a reserved candidate comes from the rent option's reserved terms"
                how = f"{rent.reserved.term_years}-year reserved"
                if terms is not None:
                    found[candidate] = _rent_label(r, None, _commitment_words(r, _Commitment(terms.gpus), terms.spot))
                    continue
            elif candidate == SPOT:
                assert rent.spot is not None, "a spot candidate comes from the rent option's spot terms"
                how = "spot, by the GPU-hour"
                if terms is not None:
                    found[candidate] = _rent_label(
                        r,
                        None,
                        f"spot up to {_plural(rent.spot.max_gpus, 'GPU')} at once, the rest on demand"
                        if rent.spot.max_gpus
                        else "spot",
                    )
                    continue
            elif candidate == "rent" and measure == Measure.PRESENT_VALUE and r.finance.rent_commitment is not None:
                found[candidate] = _rent_label(r, None, _commitment_words(r, r.finance.rent_commitment))
                continue
            elif candidate == ON_DEMAND:
                how = "all on demand"
            else:
                how = "on demand by the GPU-hour" if per_hour else "on demand, 24/7"
            found[candidate] = _rent_label(r, None if per_hour and candidate != RESERVED else gpus, how)
        elif candidate in r.options and isinstance(other := r.options[candidate], RentOption):  # options.rents
            per_hour = other.billing == "per_gpu_hour_used"
            gpus = (
                rent_gpus_for(r, hourly_need, candidate)
                if hourly_need is not None
                else rent_gpus(r, r.volume, candidate)
            )
            found[candidate] = _rent_label(
                r, None if per_hour else gpus, "on demand by the GPU-hour" if per_hour else "on demand, 24/7", candidate
            )
        elif candidate in r.options:
            found[candidate] = api_offer_label(r, candidate)
        elif candidate == ROUTED:
            found[candidate] = routed_label(r)
    return found


def _description(r: Resolved, measure: str, run=None, volume_given: bool = False) -> str:
    if measure == Measure.PRESENT_VALUE:
        f = r.finance
        timing = {
            "begin": "cash at the start of each",
            "end": "cash at the end of each",
            "capital_begin": "investment at the start of each, other cash at the end",
        }[f.npv.timing]
        rate = round(f.discount_rate_per_year * 100, 1)  # >= 0, and never -0.0 (the schema reads -0.0 as 0.0)
        return (
            f"the present value of costs over {f.horizon_months} months (cash basis, "
            f"{rate:.1f} % a year, by {f.npv.period}, {timing} {f.npv.period})"
        )
    if measure == Measure.RUN_COST:
        said = [] if run is None else [f"{float(run.gpu_hours):,.0f} GPU-hours"]
        if run is not None and "own" in r.options:  # a one-off run on a cluster bought for it costs its price
            own = own_option(r)
            capex = float(own_hardware_capex(own, float(own.server_count)))
            months = float(run.months)
            said.append(
                f"the own cluster charged only the {f'{months:,.1f}' if months >= 1 else f'{months:.2g}'} months of "
                "depreciation and running costs "
                f"the run takes, not the {capex:,.0f} {r.currency} it costs to buy"
            )
        return "the cost of the whole training run" + (f" ({'; '.join(said)})" if said else "")
    if measure == Measure.HOURLY_MONTHLY_COST:
        assert r.demand is not None, "the hourly measure is chosen only for a scenario with a demand profile"
        return (
            f"the monthly cost of serving the {r.demand.profile.kind.replace('_', ' ')} demand hour by hour "
            "(capacity as it is bought)"
        )
    volume = f"{float(np.mean(r.volume)):,.0f} {r.volume_unit}"
    at = f"at {volume}" if volume_given else f"at the scenario's volume, {volume}"
    if measure == Measure.COST_PER_SUCCESSFUL_TASK:
        from .routing import tasks_per_month

        tasks = float(np.mean(tasks_per_month(r)))
        return (
            f"the cost of {TASKS_PER_FIGURE:,} successful tasks {at} ({tasks:,.0f} tasks a month): monthly cost / "
            "(tasks a month × success rate)"
        )
    return f"the monthly cost {at}"


def unit_of_measure(currency: str, measure: str) -> str:
    """The unit of the figures on a measure: the currency, a month of it, or per successful task."""
    if measure in (Measure.PRESENT_VALUE, Measure.RUN_COST):
        return currency
    if measure == Measure.COST_PER_SUCCESSFUL_TASK:
        return f"{currency}/{TASKS_PER_FIGURE:,} successful tasks"
    return f"{currency}/month"


def decide(
    scenario: Scenario | Resolved,
    finance_flows: CashFlows | None = None,
    run: TrainingRun | None = None,
    mix: MixResult | None = None,
    plan: GrowthPlan | None = None,
    volume_given: bool = False,
) -> Decision:
    """The scenario's decision: every candidate on its measure, cheapest first.

    Parameters
    ----------
    scenario
        The scenario (scalar inputs).
    finance_flows, run, mix, plan
        Already computed cash flows, training run, mix result and capacity plan, reused.
    volume_given
        The scenario's volume was replaced by one given for this comparison (``compare --volume``): the
        measure's description names the volume, not "the scenario's volume".

    Returns
    -------
    Decision

    Raises
    ------
    ValueError
        A figure is not finite.
    """
    r = as_resolved(scenario)
    measure = measure_of(r)
    reserved = None
    if measure == Measure.PRESENT_VALUE:
        reserved = reserved_gpus_of(r) if finance_flows is None else rented_terms(r, finance_flows)
        figures = present_value_figures(r, finance_flows, reserved)
    elif measure == Measure.RUN_COST:
        figures = run_figures(r)
    else:
        figures = measure_figures(r, measure)
    figures = {k: float(np.asarray(v)) for k, v in figures.items()}
    names = labels(r, measure, figures, mix, reserved)
    unit = unit_of_measure(r.currency, measure)
    entries = [Candidate(k, option_of(k), names[k], v) for k, v in figures.items()]
    if measure == Measure.HOURLY_MONTHLY_COST and mix is not None and mix.mix.layers:
        best = min(figures.values()) if figures else np.inf
        total = mix.mix.total
        if cheaper(total, best):
            entries.append(Candidate(MIX, None, f"Cheapest mix: {mix.mix.words()}", total))
    if measure == Measure.PRESENT_VALUE and plan is not None and r.finance.loan is None and r.finance.lease is None:
        from .plan import plan_words

        server = own_option(r).server.server if "own" in r.options else ""
        best = min(figures.values()) if figures else np.inf
        # a plan that buys no servers is a mix of the rented kinds and the API: a candidate of its own only
        # where it is cheaper than each of them alone (else it ties with one, and the option is named)
        if plan.purchases or cheaper(float(plan.npv), best):
            entries.append(Candidate(PLAN, None, f"Capacity plan: {plan_words(plan, server)}", float(plan.npv)))
    for c in entries:
        if not np.isfinite(c.figure):
            raise ValueError(f"the {c.label} figure on {measure} is not finite; check the inputs' magnitudes")
    ranked = sorted(entries, key=lambda c: c.figure)  # stable: options before the mix and the plan on ties
    description = _description(r, measure, run, volume_given)
    return Decision(str(measure), description, unit, {c.id: c for c in ranked})


__all__ = [
    "MIX",
    "ON_DEMAND",
    "PLAN",
    "RESERVED",
    "SPOT",
    "decide",
    "labels",
    "measure_figures",
    "measure_of",
    "unit_of_measure",
    "monthly_figures",
    "option_of",
    "present_value_figures",
    "reserved_monthly_cost",
    "routed_figure",
    "run_figures",
    "hourly_figures",
]

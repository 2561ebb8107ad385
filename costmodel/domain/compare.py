"""The one-call comparison of a scenario's options at a volume: the library's :func:`costmodel.compare`.

The comparison is computed at once; its uncertainty analysis (Monte Carlo, tornado, Sobol), which
evaluates the scenario thousands of times, only when :attr:`~costmodel.results.Comparison.uncertainty`
is first read. :func:`costmodel.presentation.output.comparison_output` turns the result into the
output contract (``costmodel compare --json``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..extras import ExtraNotInstalled
from ..lookup import stale_rows
from ..resolved import RentOption, Resolved, as_resolved
from ..results import (
    CashFlows,
    Comparison,
    Decision,
    GrowthPlan,
    MixResult,
    OptionResult,
    ProviderIncome,
    TrainingRun,
    UncertaintyResult,
)
from ..scenarios import load_scenario
from ..schema import Scenario, TokensWorkload
from ..schema.inputs import THROUGHPUT_INPUT, input_fields
from ..units import HOURS_PER_MONTH
from .break_even import break_evens, cheapest_by_volume, default_volume_max
from .capacity import capacity_volume, configured_gpus, gpu_count, gpu_hours_used, tokens_per_month
from .claims import check_claims
from .costs import data_and_support_lines, monthly_cost_components, own_income
from .decision import decide
from .energy import energy_result
from .finance import cash_flows, own_finance
from .mix import mix_result
from .plan import growth_plan
from .routing import routing_notes, routing_result
from .serving import output_tokens_per_month, serving_result
from .training import training_run
from .uncertainty import monte_carlo, sobol_indices, tornado


def option_cost(r: Resolved, option: str, volume: float) -> tuple[dict[str, float], float]:
    """One option's monthly cost components at one volume and their sum. [reporting currency/month]

    Raises
    ------
    ValueError
        The cost is not finite (inputs of implausible magnitude).
    """
    components = {name: float(value) for name, value in monthly_cost_components(r, option, volume).items()}
    cost = float(sum(components.values()))
    if not np.isfinite(cost):
        label = r.option(option).label
        raise ValueError(f"the {label} cost overflows at volume {volume:g}; check the inputs' magnitudes")
    return components, cost


def option_result(
    r: Resolved, option: str, volume: float, priced: tuple[dict[str, float], float] | None = None
) -> OptionResult:
    """One option at one volume: cost, components, cost per unit, GPUs and achieved utilisation.

    ``priced``: its :func:`option_cost` at that volume, if already found.

    Raises
    ------
    ValueError
        The cost is not finite (inputs of implausible magnitude).
    """
    chosen = r.option(option)
    components, cost = option_cost(r, option, volume) if priced is None else priced
    hours = float(gpu_hours_used(r, volume))
    millions = float(tokens_per_month(r, volume)) / 1e6 if r.workload.kind == "tokens" else 0.0
    output_millions = float(output_tokens_per_month(r, volume)) / 1e6 if r.workload.kind == "tokens" else 0.0
    capacity = capacity_volume(r, option)
    per_request = None
    work = r.scenario.workload
    if isinstance(work, TokensWorkload) and millions > 0:
        size = work.input_tokens_per_request
        if size is None and work.serving is not None and work.serving.request is not None:
            size = work.serving.request.input_tokens
        mix = float(np.mean(r.workload.input_tokens_per_output_token))
        if size is not None and mix > 0:
            requests = millions * 1e6 / (size * (1.0 + 1.0 / mix))  # input + output tokens of a request
            per_request = cost / requests
    if chosen.kind == "api":
        configured = gpus = utilisation = None
    else:
        gpus = int(gpu_count(r, option, volume))
        configured = configured_gpus(r, option)
        utilisation = hours / (gpus * HOURS_PER_MONTH) if gpus > 0 else None
    return OptionResult(
        option=option,
        label=chosen.label,
        kind=chosen.kind,
        monthly_cost=cost,
        components=components,
        cost_per_gpu_hour=cost / hours if hours > 0 and chosen.kind != "api" else None,
        cost_per_million_tokens=cost / millions if millions > 0 else None,
        configured_gpus=configured,
        gpus=gpus,
        utilisation=utilisation,
        stepped_up=configured is not None and gpus is not None and gpus > configured,
        capacity_volume=None if capacity is None else float(capacity),
        cost_per_million_output_tokens=cost / output_millions if output_millions > 0 else None,
        cost_per_request=per_request,
        provider=_income(r, option, volume) if chosen.kind == "own" else None,
        data_and_support={name: float(value) for name, value in data_and_support_lines(r, option, volume).items()},
    )


def _income(r: Resolved, option: str, volume: float) -> ProviderIncome | None:
    income = own_income(r, volume, option)
    if income is None:
        return None
    return ProviderIncome(*(float(getattr(income, f)) for f in ("revenue", "opex", "depreciation", "ebit", "noi")))


def compare(
    scenario: str | os.PathLike[str] | Scenario | Resolved,
    volume: float | None = None,
    volume_max: float | None = None,
    check: bool = True,
) -> Comparison:
    """Compare the scenario's options at one volume and find every pair's break-even.

    Parameters
    ----------
    scenario
        A bundled scenario's name or a scenario file's path (loaded with
        :func:`~costmodel.scenarios.load_scenario` and the bundled catalog), or a scenario
        (resolved once here if it is not).
    volume
        Volume to compare at; default: the scenario's. [GPU-h/month or tokens/day]
    volume_max
        Upper end of the break-even search; default 10 × ``volume``
        (:func:`~costmodel.domain.break_even.default_volume_max`). [as ``volume``]
    check
        Check the scenario's ``claims`` (each claim searches for the input value at which it
        would stop holding, thousands of evaluations); ``False`` leaves ``claims`` empty, as
        the what-if panel does on each slider move. ``figure`` claims read the output
        document: :func:`~costmodel.presentation.output.comparison_output` checks them.

    Returns
    -------
    Comparison
        With the decision (:func:`costmodel.domain.decision.decide`: every candidate on the
        scenario's one measure), and the training run, the horizon view and the cheapest mix
        where the scenario has the blocks for them. Its ``uncertainty``
        (:func:`uncertainty_result`, at the scenario's volume) is computed when first read.
        :func:`~costmodel.presentation.output.comparison_output` makes the output document
        (``costmodel compare --json``) of it.

    Raises
    ------
    TypeError
        ``scenario`` is none of these (a dict of scenario data: validate it first with
        :func:`~costmodel.scenarios.validate_data`).
    ScenarioError
        The named file cannot be loaded.
    ValueError
        ``volume`` is negative or not finite, or ``volume_max`` is not above 0; or the scenario was
        resolved with arrays of samples of its inputs (the comparison is one answer at one value per
        input: :func:`costmodel.domain.uncertainty.option_costs` prices every candidate over samples).

    Examples
    --------
    >>> import costmodel
    >>> result = compare(costmodel.load_scenario("llama70b-vs-api"))
    >>> result.decision.winner, round(result.decision.margin, 2)
    ('api', 8521.39)
    >>> compare("llama70b-vs-api").decision.winner
    'api'
    """
    r = _resolved(scenario)
    sampled = r.sampled_inputs()
    if sampled:
        raise ValueError(
            f"compare gives one answer at one value per input: {', '.join(sampled)} "
            f"{'holds' if len(sampled) == 1 else 'hold'} an array of samples; resolve the scenario with a number "
            "for each, or price the candidates over the samples with costmodel.domain.uncertainty.option_costs"
        )
    d = _decided(r, volume, volume_max)
    v, run, flows, mix, plan, at_volume = d.volume, d.run, d.flows, d.mix, d.plan, d.at_volume
    results = {option: option_result(r, option, v, priced) for option, priced in d.costs.items()}
    breaks = break_evens(r, d.volume_max)
    return Comparison(
        title=r.title,
        currency=r.currency,
        workload_kind=r.workload.kind,
        volume=v,
        volume_unit=r.volume_unit,
        gpu_hours_used=float(gpu_hours_used(r, v)),
        options=results,
        decision=d.decision,
        break_evens=breaks,
        cheapest_ranges=cheapest_by_volume(r, breaks),
        estimates=list(r.estimates),
        stale=tuple(s.describe() for s in stale_rows(r.cited)),
        routing=routing_result(at_volume),
        training=run,
        finance=own_finance(r, flows) if flows is not None and "own" in r.options else None,
        mix=mix,
        serving=serving_result(r, v),
        energy=energy_result(r, v, run),
        plan=plan,
        claims=check_claims(r) if check else (),
        notes=comparison_notes(r),
        uncertainty_of=None if r.uncertainty is None else partial(uncertainty_result, r),
    )


@dataclass(frozen=True)
class Decided:
    """What :func:`compare` computes before its decision and the decision itself: every figure a portfolio row
    holds but its break-evens (:func:`~costmodel.domain.break_even.first_break_evens`), without the parts only a
    report shows.

    Attributes
    ----------
    volume
        The volume compared at. [GPU-h/month or tokens/day]
    volume_max
        The upper end of the break-even search. [as ``volume``]
    costs
        Each option's monthly cost components at that volume and their sum (:func:`option_cost`).
        [reporting currency/month]
    run
        The training run, for a training workload.
    flows
        The horizon's cash flows, with a finance block.
    mix
        The cheapest mix of a demand profile (with the steady demand's when asked for).
    plan
        The capacity plan, with a finance block that has one.
    at_volume
        The scenario at the volume compared at (itself at its own volume).
    decision
        Every candidate on the scenario's decision measure.
    """

    volume: float
    volume_max: float
    costs: dict[str, tuple[dict[str, float], float]]
    run: TrainingRun | None
    flows: CashFlows | None
    mix: MixResult | None
    plan: GrowthPlan | None
    at_volume: Resolved
    decision: Decision


def _decided(r: Resolved, volume: float | None, volume_max: float | None, steady_mix: bool = True) -> Decided:
    """:class:`Decided` at ``volume`` (default the scenario's), with the upper end of the break-even search
    ``volume_max`` (default :func:`~costmodel.domain.break_even.default_volume_max`); ``steady_mix``: also the
    cheapest mix of the same demand steady, which only a report shows.

    Raises
    ------
    ValueError
        ``volume`` is negative or not finite, or ``volume_max`` is not above 0.
    """
    v = r.volume if volume is None else float(volume)
    if not (np.isfinite(v) and v >= 0):
        raise ValueError(f"volume must be a finite number >= 0, got {v}")
    v += 0.0  # no negative zero
    upper = default_volume_max(r, v) if volume_max is None else float(volume_max)
    if not (np.isfinite(upper) and upper > 0):
        raise ValueError(f"volume_max must be a finite number > 0, got {upper}")
    costs = {option: option_cost(r, option, v) for option in r.options}
    run = training_run(r) if r.workload.kind == "training" else None
    flows = cash_flows(r) if r.finance is not None else None
    mix = mix_result(r, steady=steady_mix)
    plan = growth_plan(r) if r.finance is not None and r.finance.capacity_plan is not None else None
    at_volume = r if volume is None else r.at_volume(v)
    decision = decide(
        at_volume,
        finance_flows=flows if volume is None else None,
        run=run,
        mix=mix,
        plan=plan,
        volume_given=volume is not None,
    )
    return Decided(v, upper, costs, run, flows, mix, plan, at_volume, decision)


def decided(scenario: Scenario | Resolved) -> Decided:
    """What :func:`compare` decides at the scenario's volume, without what only a report shows: the options'
    figures but their costs, the break-evens, the cheapest ranges, energy, serving, routing, notes, claims, the
    finance block's returns and the steady demand's mix (a portfolio row's figures, each the one :func:`compare`
    gives).

    Raises
    ------
    ValueError
        As :func:`compare`.
    """
    return _decided(as_resolved(scenario), None, None, steady_mix=False)


def _resolved(scenario: str | os.PathLike[str] | Scenario | Resolved) -> Resolved:
    """The scenario resolved: a name or a path is loaded first.

    Raises
    ------
    TypeError
        ``scenario`` is of another type.
    """
    if isinstance(scenario, (str, os.PathLike)):
        scenario = load_scenario(os.fspath(scenario))
    elif not isinstance(scenario, (Scenario, Resolved)):
        hint = (
            " (scenario data: costmodel.validate_data(data) makes a Scenario of it)"
            if isinstance(scenario, dict)
            else ""
        )
        raise TypeError(
            f"compare takes a scenario name, a path, a Scenario or a Resolved, not {type(scenario).__name__}{hint}"
        )
    return as_resolved(scenario)


def uncertainty_result(scenario: Scenario | Resolved) -> UncertaintyResult | None:
    """Monte Carlo, tornado and Sobol of the scenario's decision measure, at the scenario's volume.

    Without SALib (the ``sobol`` extra) ``sobol`` is None and ``notes`` says which extra computes it.

    Returns
    -------
    UncertaintyResult or None
        None when the scenario has no ``uncertainty`` block.

    Examples
    --------
    >>> import costmodel
    >>> result = uncertainty_result(costmodel.load_scenario("h200-24gpu-cluster"))
    >>> result.monte_carlo.samples == costmodel.load_scenario("h200-24gpu-cluster").uncertainty.samples
    True
    """
    r = as_resolved(scenario)
    if r.uncertainty is None:
        return None
    units = {f.path: f.unit for f in input_fields(r.scenario, r.catalog)}
    units.setdefault(THROUGHPUT_INPUT, "output tokens/s/GPU")
    mc = monte_carlo(r)
    bars = tuple(tornado(r))
    notes: tuple[str, ...] = ()
    try:
        sobol = sobol_indices(r)
    except ExtraNotInstalled as exc:
        sobol = None
        notes = (f"uncertainty.sobol left out: {exc}",)
    return UncertaintyResult(
        monte_carlo=mc,
        tornado=bars,
        sobol=sobol,
        volume=r.volume,
        volume_unit=r.volume_unit,
        seed=r.uncertainty.seed,
        input_units=units,
        notes=notes,
    )


def comparison_notes(r: Resolved) -> tuple[str, ...]:
    """The comparison's notes (not errors): inputs it does not use, catalog rows withdrawn, what routing assumes."""
    return tuple(sizing_notes(r)) + unused_spot(r) + deprecated_notes(r) + routing_notes(r)


def deprecated_notes(r: Resolved) -> tuple[str, ...]:
    """The catalog rows behind the result that their provider has deprecated, each with its file."""
    return tuple(
        f"{row.source_file}: {row.ident} ({row.provider}, {row.model}) is deprecated by the provider: it may be "
        "withdrawn, and its price with it; compare a current offer too"
        for row in r.cited
        if getattr(row, "deprecated", False)
    )


def unused_spot(r: Resolved) -> tuple[str, ...]:
    """Spot terms the comparison cannot use: a served model's tokens are not interruptible work unless
    the workload says so."""
    rent = r.options.get("rent")
    work = r.scenario.workload
    if not isinstance(rent, RentOption) or rent.spot is None or not isinstance(work, TokensWorkload):
        return ()
    if work.interruptible:
        return ()
    return (
        "options.rent.spot is not used: spot capacity serves only work that tolerates interruptions, and "
        "serving tokens does not unless workload.interruptible is true",
    )


def sizing_notes(r: Resolved) -> tuple[str, ...]:
    """What the demand profile replaced: a served model's ``peak_to_average`` when the profile sizes capacity."""
    work = r.scenario.workload
    serving = work.serving if isinstance(work, TokensWorkload) else None
    if (
        r.demand is None
        or serving is None
        or np.ndim(serving.peak_to_average)
        or float(serving.peak_to_average) == 1
        or all(o.kind == "api" for o in r.options.values())
    ):  # no GPUs to size
        return ()
    return (
        f"workload.serving.peak_to_average ({float(serving.peak_to_average):g}) is not used: the demand "
        f"profile's busiest hour ({r.workload.peak_to_average:.3g} × its average) sizes the capacity",
    )

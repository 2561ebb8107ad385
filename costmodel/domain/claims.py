"""Stated figures checked: each claim of a scenario's ``claims`` block, confirmed or contradicted.

For every claim the model's figure is computed the way the rest of the tool computes it
(an option's monthly cost, the first break-even volume of a pair, GPU-hours), compared with
the stated one within the claim's tolerance, and, for each numeric input on its own, the
value that would make the model's figure equal the stated one is found: the claim's gap as
a function of that input is read on 401 values from 1/1000 to 1000 times the current one
(inside the input's allowed range) in one vectorised call, and the sign change nearest the
current value is refined by repeated vectorised scans of its bracket (SciPy is not imported for
it, so ``compare`` stays light).

A break-even claim "the two cost the same at V" holds for an input value at which the two
options cost the same at V. A cheapest claim "at V, A costs less than B" (the reading of "if
volume grew 10x, the answer would flip") is checked on the measure the comparison ranks on
(:func:`costmodel.domain.decision.measure_of`: the monthly cost, the present value over the horizon
with a finance block, the monthly cost hour by hour of a demand profile, the cost per successful task,
or a training run's whole cost), each option at its cheapest way to pay there (the rent option on demand,
reserved or on spot, as the verdict prices it): it holds where A's figure at V is below B's, as
``compare --volume V`` would rank them, and its inputs that would make it hold are those at which the
two are equal at V. A training run has no monthly volume: its claim is on the cost of the whole run.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import InputError
from ..formulas.roots import bisect_root, refine_root
from ..resolved import Resolved, as_resolved
from ..results import ClaimCheck, InputChange, Measure
from ..schema import Claim, Scenario
from ..schema.inputs import THROUGHPUT_INPUT, fixed_reason, input_fields
from ..units import LARGEST_INPUT
from .break_even import break_even, default_volume_max
from .capacity import gpu_hours_used, step_limit_volume
from .costs import monthly_cost
from .decision import measure_figures, measure_of, present_value_figures, reserved_gpus_of, unit_of_measure
from .training import training_run
from .uncertainty import bounds, numeric_inputs, option_best, sampled, with_values

SPAN = 1000.0
"""Searched range of an input to make a claim hold: current / SPAN to current × SPAN."""

SCAN_POINTS = 401
"""Values read across that range before refining."""

MAX_CHANGES = 6
"""Inputs listed per claim, smallest relative change first."""

_VOLUME_INPUTS = ("workload.tokens_per_day", "workload.gpu_hours_per_month")


def _value(claim: Claim) -> float:
    """The claim's stated value: a monthly-cost or GPU-hours claim has one (checked on loading)."""
    assert claim.value is not None, f"a {claim.kind} claim states its value"
    return float(claim.value)


def _option(claim: Claim) -> str:
    """The option a monthly-cost claim names (checked on loading)."""
    assert claim.option is not None, "a monthly_cost claim names its option"
    return claim.option


def _pair(claim: Claim) -> tuple[str, str]:
    """The two options a break-even claim names, or those of a cheapest claim with the one stated to cost less
    first (checked on loading)."""
    assert claim.options is not None, f"a {claim.kind} claim names two options"
    if claim.kind == "cheapest":
        other = claim.options[1] if claim.options[0] == claim.option else claim.options[0]
        return _option(claim), other
    return claim.options


def _claim_volume(r: Resolved, claim: Claim) -> float:
    """The volume a break-even claim states, or the one a cheapest claim is stated at (default: the
    scenario's). [workload unit]"""
    if claim.volume is not None:
        return float(claim.volume)
    if claim.volume_multiple is not None:
        return float(claim.volume_multiple * r.volume)
    return float(r.volume)


def _stated(r: Resolved, claim: Claim) -> tuple[float, str, float | None]:
    """The stated figure in the model's unit, the unit, and the multiple of the volume a break-even or cheapest
    claim is stated at."""
    if claim.kind == "monthly_cost":
        rate = r.scenario.fx_rate(claim.currency) if claim.currency else 1.0
        return _value(claim) * rate, f"{r.currency}/month", None
    if claim.kind == "break_even":
        volume = _claim_volume(r, claim)
        return volume, r.volume_unit, (volume / r.volume if r.volume > 0 else None)
    if claim.kind == "cheapest":  # the figure to be below: the other option's, on the measure at the claim's volume
        volume = _cheapest_volume(r, claim)
        other = float(option_best(_figures_on_measure(r, volume)(r), _pair(claim)[1]))
        unit = _measure_unit(r)
        if volume is None:  # a training run's whole cost
            return other, unit, None
        if claim.volume_multiple is not None:  # as stated, of a volume of 0 too (10 x 0 is 0: the words say so)
            return other, unit, float(claim.volume_multiple)
        return other, unit, (volume / r.volume if r.volume > 0 and claim.volume is not None else None)
    return _value(claim), "GPU-hours" if r.workload.kind == "training" else "GPU-hours/month", None


def _figure(r: Resolved, claim: Claim, stated: float) -> Callable[[Resolved], float | np.ndarray]:
    """The claim's gap as a function of a (possibly array-valued) resolved scenario made from ``r``: 0 where it
    holds (a cheapest claim: where its two options' figures on the measure are equal at the claim's volume)."""
    if claim.kind == "monthly_cost":
        option = _option(claim)
        return lambda s: monthly_cost(s, option, s.volume) - stated
    if claim.kind == "break_even":
        a, b = _pair(claim)
        return lambda s: monthly_cost(s, a, stated) - monthly_cost(s, b, stated)
    if claim.kind == "cheapest":  # at the claim's volume, held fixed while an input is searched
        a, b = _pair(claim)
        figures = _figures_on_measure(r, _cheapest_volume(r, claim))

        def gap(s: Resolved) -> np.ndarray:
            found = figures(s)
            return option_best(found, a) - option_best(found, b)

        return gap
    return lambda s: _gpu_hours(s) - stated


def _cheapest_volume(r: Resolved, claim: Claim) -> float | None:
    """The volume a cheapest claim is checked at; None for a training run (its whole cost). [workload unit]"""
    return None if r.workload.kind == "training" else _claim_volume(r, claim)


def _measure_unit(r: Resolved) -> str:
    """The unit of the figures a cheapest claim compares, naming the present value (a sum over the horizon)."""
    measure = measure_of(r)
    unit = unit_of_measure(r.currency, measure)
    return f"{unit} (present value)" if measure == Measure.PRESENT_VALUE else unit


def _figures_on_measure(r: Resolved, volume: float | None) -> Callable[[Resolved], dict[str, np.ndarray]]:
    """Every candidate's figure on the scenario's decision measure at ``volume`` (None: the scenario's), as a
    function of a resolved scenario made from ``r`` (``r`` itself, or ``r`` with inputs replaced by arrays), the
    way :func:`costmodel.domain.decision.decide` ranks them at that volume (``compare --volume``): the cash flows'
    reserved GPUs are those of the scenario at that volume, whatever the searched input."""
    measure = measure_of(r)
    reserved = (
        reserved_gpus_of(r if volume is None else r.at_volume(volume))
        if measure == Measure.PRESENT_VALUE and "rent" in r.options
        else None
    )

    def figures(s: Resolved) -> dict[str, np.ndarray]:
        trailing = measure == Measure.PRESENT_VALUE and s is not r  # samples on a trailing axis, for the months
        t = sampled(r, s.values) if trailing else s
        t = t if volume is None else t.at_volume(volume)  # set last: resolving again would undo it
        if measure == Measure.PRESENT_VALUE and "rent" in r.options:
            found = present_value_figures(t, reserved_gpus=reserved)
        else:
            found = measure_figures(t, measure)
        arrays = {k: np.asarray(v, dtype=float) for k, v in found.items()}
        return {k: (v[..., 0] if trailing and v.ndim and v.shape[-1] == 1 else v) for k, v in arrays.items()}

    return figures


def _gpu_hours(s: Resolved) -> float | np.ndarray:
    if s.workload.kind == "training":
        return float(training_run(s).gpu_hours)
    return gpu_hours_used(s, s.volume)


SCALAR_SCAN_POINTS = 41
"""Values read across that range for an input the model takes one value at a time (one that sets a
tensor-parallel degree, say), before refining by bisection."""


def _vectorised(r: Resolved, path: str, current: float, figure) -> bool:
    """Whether the claim's figure takes an array of values of this input in one call."""
    try:
        xs = np.array([current, current])
        return np.asarray(figure(with_values(r, {path: xs})), dtype=float).shape in ((2,), ())
    except (TypeError, ValueError):
        return False


def _evaluate(r: Resolved, path: str, xs: np.ndarray, figure) -> np.ndarray:
    try:
        out = np.asarray(figure(with_values(r, {path: xs})), dtype=float)
        if out.shape == xs.shape:
            return out
        if out.size == 1:
            return np.full(xs.shape, float(out))
    except (TypeError, ValueError):
        pass
    # an input the figure cannot take as an array (e.g. a training run's): one value at a time
    return np.array([_evaluate_one(r, path, float(x), figure) for x in xs])


def _evaluate_one(r: Resolved, path: str, x: float, figure) -> float:
    """The claim's gap at one value of an input; NaN where the scenario cannot take that value (a searched
    value at which a training run's checkpoints and restarts leave no time to train, a reserved term of a
    fraction of a year): a value the search tried, not one the user gave, so no error of it reaches them."""
    try:
        return float(np.asarray(figure(with_values(r, {path: x}))))
    except (TypeError, ValueError):  # a ScenarioError is a ValueError
        return np.nan


def searched_inputs(r: Resolved):
    """The inputs searched to make a claim hold, each with its range: (path, current value, its input field or
    None, low, high), the range current / SPAN to current × SPAN inside the input's allowed range. The volume,
    an input that is not above 0, one that cannot take an array of samples
    (:func:`costmodel.schema.inputs.fixed_reason`) and one with an empty range are left out."""
    fields = {f.path: f for f in input_fields(r.scenario, r.catalog)}
    for path, current in numeric_inputs(r).items():
        found = fields.get(path)
        if path in _VOLUME_INPUTS or current <= 0 or (found is not None and fixed_reason(r.scenario, found)):
            continue
        allowed = bounds(r, path)
        low = max(current / SPAN, np.nextafter(allowed.low, np.inf) if allowed.low_open else allowed.low)
        high = min(current * SPAN, np.nextafter(allowed.high, -np.inf) if allowed.high_open else allowed.high)
        if high > low:
            yield path, current, found, low, high


def input_change(path: str, found, current: float, needed: float) -> InputChange:
    """An input changed alone so that a claim holds, named by its field (the serving throughput has none)."""
    title = found.title if found is not None else ("serving throughput" if path == THROUGHPUT_INPUT else path)
    unit = found.unit if found is not None else "output tokens/s/GPU"
    return InputChange(path, title, unit, float(current), float(needed))


def would_hold(scenario: Scenario | Resolved, claim: Claim) -> tuple[InputChange, ...]:
    """The single inputs that, changed alone, make the claim's figure equal the stated one.

    Inputs that cannot take an array of samples (a whole count, a year, a demand profile's
    shape: :func:`costmodel.schema.inputs.fixed_reason`) and the workload's volume itself are
    left out; so is an input whose change does not move the figure across the stated value
    within 1/1000 to 1000 times its current value, and one at whose current value it is already
    met (a cheapest claim whose two options cost the same: no change to name).
    """
    r = as_resolved(scenario)
    stated, _, _ = _stated(r, claim)
    figure = _figure(r, claim, stated)
    changes = []
    for path, current, found, low, high in searched_inputs(r):
        vectorised = _vectorised(r, path, current, figure)
        points = SCAN_POINTS if vectorised else SCALAR_SCAN_POINTS
        xs = np.unique(np.concatenate([np.geomspace(max(low, current / SPAN), high, points), [current]]))
        ys = _evaluate(r, path, xs, figure)
        sign = np.sign(ys)  # NaN where the scenario cannot take the value: no sign change next to it
        cells = np.nonzero(sign[:-1] * sign[1:] <= 0)[0]
        cells = [c for c in cells if sign[c] != 0 or sign[c + 1] != 0]
        if not cells:
            continue
        here = np.searchsorted(xs, current)
        cell = min(cells, key=lambda c: min(abs(c - here), abs(c + 1 - here)))
        if sign[cell] == 0:
            needed = xs[cell]
        elif sign[cell + 1] == 0:
            needed = xs[cell + 1]
        elif vectorised:

            def gaps(values: np.ndarray, path: str = path) -> np.ndarray:
                return _evaluate(r, path, values, figure)

            needed = refine_root(gaps, float(xs[cell]), float(xs[cell + 1]), float(ys[cell]))
        else:

            def gap(x: float, path: str = path) -> float:
                return _evaluate_one(r, path, x, figure)

            needed = bisect_root(gap, float(xs[cell]), float(xs[cell + 1]), float(ys[cell]))
        if needed == current:  # met at the current value: a cheapest claim whose two options tie, no change to name
            continue
        changes.append(input_change(path, found, current, needed))
    changes.sort(key=lambda c: abs(np.log(c.needed / c.current)) if c.needed > 0 else np.inf)
    return tuple(changes[:MAX_CHANGES])


def check_claim(scenario: Scenario | Resolved, claim: Claim) -> ClaimCheck:
    """One claim: the stated and computed figures, the verdict, and the inputs that would make it hold."""
    r = as_resolved(scenario)
    stated, unit, stated_multiple = _stated(r, claim)
    computed_multiple = None
    options: tuple[str, ...] = ()
    volume = None
    if claim.kind == "monthly_cost":
        computed = float(monthly_cost(r, _option(claim), r.volume))
    elif claim.kind == "cheapest":  # on the comparison's measure (a training run: the whole run's cost)
        options, volume = _pair(claim), _cheapest_volume(r, claim)
        computed = float(option_best(_figures_on_measure(r, volume)(r), options[0]))
    elif claim.kind == "break_even":
        # 10 x the stated volume, as far as the two options' GPU-count steps can be listed (past that the
        # search fails naming the workload's inputs), and never a narrower range than the comparison's own
        # break-evens search (at a volume of 0, 10 x 0 is none)
        limits = [x for x in (step_limit_volume(r, o) for o in _pair(claim)) if x is not None]
        upper = max(min([10.0 * max(stated, r.volume, 1e-9), *limits]), default_volume_max(r))
        found = break_even(r, *_pair(claim), volume_max=upper)
        computed = found.volume
        if computed is not None and r.volume > 0:
            computed_multiple = computed / r.volume
    else:
        computed = float(_gpu_hours(r))
    if computed is None:
        confirmed = False
    elif claim.kind == "cheapest":
        confirmed = computed < stated
    elif stated == 0:
        confirmed = computed == 0
    else:
        confirmed = abs(computed / stated - 1.0) <= claim.tolerance
    changes = () if confirmed else would_hold(r, claim)
    return ClaimCheck(
        claim.statement,
        claim.source,
        claim.kind,
        stated,
        computed,
        unit,
        claim.tolerance,
        confirmed,
        stated_multiple,
        computed_multiple,
        changes,
        options,
        volume,
    )


def check_claims(scenario: Scenario | Resolved) -> tuple[ClaimCheck, ...]:
    """Every claim of the scenario's ``claims`` block, in order (empty without one), but ``figure`` claims.

    A ``figure`` claim states a figure of the output contract; it is checked where that
    document is built (:func:`costmodel.presentation.figure_claims.with_figure_claims`).
    """
    r = as_resolved(scenario)
    for index, claim in enumerate(r.scenario.claims):
        _check_volume(r, index, claim)
    return tuple(check_claim(r, claim) for claim in r.scenario.claims if claim.kind != "figure")


def _check_volume(r: Resolved, index: int, claim: Claim) -> None:
    """Refuse a break-even or cheapest claim stated at a multiple of the scenario's volume that lies above
    :data:`~costmodel.units.LARGEST_INPUT`, the largest volume the model takes (the multiple alone is
    checked on loading, as a sweep of the volume may change the product).

    Raises
    ------
    InputError
        At ``claims.<index>.volume_multiple``, with the volume it makes.
    """
    if claim.volume_multiple is None or claim.kind not in ("break_even", "cheapest") or r.workload.kind == "training":
        return
    volume = _claim_volume(r, claim)
    if volume > LARGEST_INPUT:
        reason = (
            f"{claim.volume_multiple:g} x the scenario's volume ({r.volume:g} {r.volume_unit}) is {volume:g} "
            f"{r.volume_unit}, above the {LARGEST_INPUT:g} the model takes: state a smaller multiple or a volume"
        )
        raise InputError(None, [(f"claims.{index}.volume_multiple", claim.volume_multiple, reason)])

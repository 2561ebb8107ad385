"""From volume to GPUs: GPU-hours used, GPUs needed, the GPUs each option runs, and where counts step.

Every function takes a :class:`~costmodel.resolved.Resolved` scenario (or a validated
:class:`~costmodel.schema.Scenario`, resolved on the way in) and a scalar or numpy array of
volumes, and broadcasts: a sweep over 1,000 volumes is one call. A scalar in gives a float out.

GPU count. The own and rented options start from the GPUs the scenario gives them. When a
volume needs more (GPU-hours needed / (730 h × utilisation ceiling)), the count steps up, in
whole servers holding whole model replicas for the own option and in whole replicas for
rental, and every cost that scales with the count steps with it. Costs are therefore
piecewise linear in volume, with jumps where a count steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import formulas
from ..formulas.shapes import NumbersOrList, Values, is_scalar, scalar
from ..resolved import ApiOption, OwnOption, RentOption, Resolved, as_resolved
from ..schema import Scenario

MAX_STEPS: int = 1_000_000
"""Most GPU-count steps one break-even search walks through, per option."""

_EPSILON = 1e-9


def own_option(resolved: Resolved, name: str = "own") -> OwnOption:
    """The option called ``name``, which must be an owned cluster.

    Raises
    ------
    ValueError
        The scenario has no such option, or it is not an owned cluster.
    """
    chosen = resolved.option(name)
    if not isinstance(chosen, OwnOption):
        raise ValueError(f"option {name!r} is a {chosen.kind} option, not an owned cluster")
    return chosen


def rent_option(resolved: Resolved, name: str = "rent") -> RentOption:
    """The option called ``name``, which must be rented GPUs.

    Raises
    ------
    ValueError
        The scenario has no such option, or it is not rented GPUs.
    """
    chosen = resolved.option(name)
    if not isinstance(chosen, RentOption):
        raise ValueError(f"option {name!r} is a {chosen.kind} option, not rented GPUs")
    return chosen


def rent_option_if_any(resolved: Resolved, name: str = "rent") -> RentOption | None:
    """The rented-GPU option called ``name``, or None where the scenario has no option of that name.

    Raises
    ------
    ValueError
        The option is there but is not rented GPUs.
    """
    return rent_option(resolved, name) if name in resolved.options else None


def api_option(resolved: Resolved, name: str = "api") -> ApiOption:
    """The option called ``name``, which must be a hosted API.

    Raises
    ------
    ValueError
        The scenario has no such option, or it is not a hosted API.
    """
    chosen = resolved.option(name)
    if not isinstance(chosen, ApiOption):
        raise ValueError(f"option {name!r} is a {chosen.kind} option, not a hosted API")
    return chosen


def checked_volume(volume: NumbersOrList) -> np.ndarray:
    """Volumes as a float array; every one must be finite and >= 0.

    Raises
    ------
    ValueError
        A negative, infinite or NaN volume.
    """
    v = np.asanyarray(volume, dtype=float)
    if v.ndim == 0:  # one volume: Python's tests, not numpy's reductions (the break-evens check thousands)
        if not (math.isfinite(float(v)) and float(v) >= 0):
            raise ValueError(f"volumes must be finite and >= 0, got {float(v)}")
        return v + 0.0
    # the least and the greatest tell: NaN propagates through both, and no temporary array is made
    if v.size and not (v.min() >= 0 and v.max() < math.inf):
        bad = v[~(np.isfinite(v) & (v >= 0))].ravel()[0]
        raise ValueError(f"volumes must be finite and >= 0, got {bad}")
    return v + 0.0  # -0.0 becomes 0.0


def out(volume: NumbersOrList, result: Values) -> float | np.ndarray:
    """A float for a scalar volume, the array otherwise."""
    if is_scalar(volume) and is_scalar(result):
        return scalar(result)
    if isinstance(result, (int, float, np.ndarray)):
        return result
    return np.asarray(result, dtype=float)  # a Series: volumes reach the formulas as arrays, so none in practice


def gpu_hours_used(scenario: Scenario | Resolved, volume: NumbersOrList) -> float | np.ndarray:
    """GPU-hours of work per month at a volume. [GPU-h/month]

    Parameters
    ----------
    scenario
        The scenario; its workload sets the conversion.
    volume
        GPU-hours per month [GPU-h/month] or tokens per day [tokens/day], scalar or array.

    Notes
    -----
    For tokens, :func:`costmodel.formulas.gpu_hours_for_tokens`; for GPU-hours, the volume.
    """
    r = as_resolved(scenario)
    v = checked_volume(volume)
    return out(volume, v * r.workload.gpu_hours_per_volume)


def tokens_per_month(scenario: Scenario | Resolved, volume: NumbersOrList) -> float | np.ndarray:
    """Tokens per month at a volume of a tokens workload. [tokens/month]

    Raises
    ------
    ValueError
        The workload is stated in GPU-hours, not tokens.
    """
    r = as_resolved(scenario)
    if r.workload.kind != "tokens":
        raise ValueError("tokens per month is defined only for a tokens workload")
    return out(volume, formulas.tokens_per_month(checked_volume(volume)))


def gpus_needed(scenario: Scenario | Resolved, volume: NumbersOrList) -> float | np.ndarray:
    """GPUs the volume needs, before rounding. [GPU]

    GPUs needed = GPU-hours used per month / (730 h × utilisation ceiling), the ceiling
    being the workload's, or for served models the target utilisation over the
    peak-to-average ratio (the fleet is sized for the peak).
    """
    r = as_resolved(scenario)
    return out(volume, formulas.gpus_needed(np.asanyarray(gpu_hours_used(r, volume)), r.workload.utilisation_ceiling))


def gpus_per_volume(resolved: Resolved) -> Values:
    """GPUs needed per unit of volume (the model is linear through zero). [GPU per volume unit]"""
    return formulas.gpus_needed(resolved.workload.gpu_hours_per_volume, resolved.workload.utilisation_ceiling)


def own_servers_for(resolved: Resolved, gpus: NumbersOrList) -> float | np.ndarray:
    """Working servers the own option runs for the GPUs needed: whole replicas, spares, configured minimum. [servers]

    Parameters
    ----------
    resolved
        The resolved scenario.
    gpus
        GPUs the load needs, fractional, before spares (GPU-hours / (730 h × ceiling), or an
        hour's demand / the ceiling). [GPU]

    Notes
    -----
    N = max(needed, the workload's minimum) rounded up to whole replicas, plus the spare
    replicas; then whole servers holding whole replicas, at least the configured count.
    """
    own = own_option(resolved)
    needed = np.maximum(np.asanyarray(gpus, dtype=float), resolved.workload.minimum_gpus)
    spare = resolved.workload.spare_gpus  # spare replicas: whole replicas on top of those the load needs
    if spare:
        needed = (
            formulas.whole_units(needed, resolved.workload.gpus_per_replica) * resolved.workload.gpus_per_replica
            + spare
        )
    return out(
        gpus,
        formulas.servers_needed(
            needed, own.gpus_per_server, resolved.workload.gpus_per_replica, minimum=own.server_count
        ),
    )


def own_servers(resolved: Resolved, volume: NumbersOrList) -> float | np.ndarray:
    """Working servers the own option runs at a volume: the scenario's count, or more if needed. [servers]"""
    return out(volume, own_servers_for(resolved, np.asanyarray(gpus_needed(resolved, volume))))


def own_servers_priced(resolved: Resolved) -> float:
    """Working servers the own option is priced with: at the scenario's volume (stepped up from the configured
    count where the load needs more, as the monthly view and the cash flows buy them), or a training run's
    cluster as configured. [servers]"""
    own = own_option(resolved)
    if resolved.workload.kind == "training":
        return float(own.server_count)
    return float(np.max(own_servers(resolved, resolved.volume)))


def rent_gpus_for(resolved: Resolved, gpus: NumbersOrList, option: str = "rent") -> float | np.ndarray:
    """GPUs the rent option holds for a number of GPUs needed (fractional, before spares). [GPU]

    always_on: whole replicas plus the spare replicas, at least the scenario's count;
    per_gpu_hour_used: the same without a minimum.
    """
    rent = rent_option(resolved, option)
    minimum = 0
    if rent.billing == "always_on":
        assert rent.gpu_count is not None, "an always-on rental states its GPU count (checked on resolving)"
        minimum = rent.gpu_count
    replica = resolved.workload.gpus_per_replica
    replicas = formulas.whole_units(
        np.maximum(np.asanyarray(gpus, dtype=float), resolved.workload.minimum_gpus), replica
    )
    return out(gpus, np.maximum(replicas * replica + resolved.workload.spare_gpus, minimum))


def rent_gpus(resolved: Resolved, volume: NumbersOrList, option: str = "rent") -> float | np.ndarray:
    """GPUs the rent option holds at a volume. [GPU]

    always_on: the scenario's count, or more if the volume needs more;
    per_gpu_hour_used: the GPUs the volume needs, rounded up to whole replicas (no minimum).
    Spare replicas (``redundancy``) are added on top of the replicas the load needs.
    """
    return out(volume, rent_gpus_for(resolved, np.asanyarray(gpus_needed(resolved, volume)), option))


def gpu_count(scenario: Scenario | Resolved, option: str, volume: NumbersOrList) -> float | np.ndarray:
    """GPUs an option runs at a volume (own: working servers × GPUs per server). [GPU]

    The hosted API has no GPUs of the buyer's: its count is 0.
    """
    r = as_resolved(scenario)
    chosen = r.option(option)
    if isinstance(chosen, OwnOption):
        return out(volume, np.asanyarray(own_servers(r, volume)) * chosen.gpus_per_server)
    if isinstance(chosen, RentOption):
        return rent_gpus(r, volume, option)
    return out(volume, np.zeros_like(checked_volume(volume)))


def configured_gpus(resolved: Resolved, option: str) -> int | None:
    """GPUs the scenario gives an option; None where it gives none (the API, rental per GPU-hour used). [GPU]"""
    chosen = resolved.option(option)
    if isinstance(chosen, OwnOption):
        return chosen.configured_gpus
    if isinstance(chosen, RentOption) and chosen.billing == "always_on":
        return chosen.gpu_count
    return None


def capacity_volume(scenario: Scenario | Resolved, option: str) -> float | np.ndarray | None:
    """Largest volume the option's configured GPUs serve without stepping up.

    Returns
    -------
    float or None
        In the workload's volume unit; ``None`` when the option has no fixed GPU count:
        the hosted API, and rental billed per GPU-hour used.
    """
    r = as_resolved(scenario)
    gpus = configured_gpus(r, option)
    if gpus is None:
        return None
    working = max(gpus - r.workload.spare_gpus, 0, r.workload.minimum_gpus)  # spares serve no load
    return out(gpus_per_volume(r), working / gpus_per_volume(r))


@dataclass(frozen=True)
class _Steps:
    """How an option's GPU count steps with volume: ``unit`` GPUs a step; the count steps past the
    working GPUs ``configured`` (all but the spares), then at the whole step ``first`` and every one
    after it, ``offset`` GPUs (an own fleet's spares) below each whole step; ``per_volume`` GPUs a unit
    of volume needs."""

    unit: int
    configured: float
    offset: float
    first: int
    per_volume: float


def _steps(r: Resolved, option: str) -> _Steps | None:
    """The option's steps, or None when its cost has none (the hosted API, rental billed per GPU-hour
    used) or no GPUs are needed per unit of volume."""
    chosen = r.option(option)
    per_volume = scalar(gpus_per_volume(r))
    if isinstance(chosen, OwnOption):
        unit, configured = chosen.step_gpus, chosen.configured_gpus
    elif isinstance(chosen, RentOption) and chosen.billing == "always_on":
        assert chosen.gpu_count is not None, "an always-on rental states its GPU count (checked on resolving)"
        unit, configured = r.workload.gpus_per_replica, chosen.gpu_count
    else:
        return None
    if per_volume == 0:
        return None
    # the count steps when the working GPUs (all but the spares) run out; an own fleet's working
    # GPUs are whole steps less the spares, a rented fleet's whole replicas
    spare = r.workload.spare_gpus
    offset = spare if chosen.kind == "own" else 0
    configured = max(configured - spare, 0, r.workload.minimum_gpus)
    return _Steps(unit, configured, offset, math.ceil((configured + offset) / unit), per_volume)


def step_volumes(scenario: Scenario | Resolved, option: str, volume_max: float) -> np.ndarray:
    """Volumes up to ``volume_max`` just above which the option's cost steps up.

    Rented GPUs billed per GPU-hour used have no step in cost, so none is listed.

    Raises
    ------
    ValueError
        The range holds more than :data:`MAX_STEPS` steps; the message names the inputs that
        set the step size and the GPUs needed per unit of volume.
    """
    r = as_resolved(scenario)
    s = _steps(r, option)
    if s is None:
        return np.empty(0)
    last = np.floor((volume_max * s.per_volume + s.offset) / s.unit + _EPSILON)
    if not np.isfinite(last) or last - s.first > MAX_STEPS:
        needed = volume_max * s.per_volume
        raise ValueError(
            f"up to {volume_max:,.6g} {r.volume_unit} the {r.option(option).label} would need {needed:,.4g} GPUs, "
            f"more than {MAX_STEPS:,} steps of {s.unit} GPU{'s' if s.unit > 1 else ''}: check {_scale_inputs(r)}"
        )
    # the count steps just above the configured GPUs, then at every further whole step (past
    # k GPUs + 1e-9, where formulas.whole_units rounds up)
    steps = (np.arange(s.first, max(int(last), s.first - 1) + 1) * s.unit - s.offset).astype(float)
    # the steps rise one whole step at a time: the configured count, then those above it, are sorted and distinct
    gpus = np.concatenate([[float(s.configured)], steps[steps > s.configured]])
    return gpus / s.per_volume


def step_limit_volume(scenario: Scenario | Resolved, option: str) -> float | None:
    """Largest upper end of a search whose GPU-count steps :func:`step_volumes` can list.

    Returns
    -------
    float or None
        In the workload's volume unit: up to it the option's cost steps at most :data:`MAX_STEPS`
        times past its configured GPUs; ``None`` when its cost has no steps (the hosted API, rental
        billed per GPU-hour used) or no GPUs are needed per unit of volume.
    """
    s = _steps(as_resolved(scenario), option)
    return None if s is None else ((s.first + MAX_STEPS) * s.unit - s.offset) / s.per_volume


def _scale_inputs(r: Resolved) -> str:
    """The inputs that set how many GPUs a unit of volume needs, with their values."""
    work = r.scenario.workload
    names = []
    if work.kind == "gpu_hours":
        names += [
            f"workload.gpu_hours_per_month ({work.gpu_hours_per_month:,.6g})",
            f"workload.utilisation_ceiling ({work.utilisation_ceiling:g})",
        ]
    elif work.kind == "tokens":
        names.append(f"workload.tokens_per_day ({work.tokens_per_day:,.6g})")
        if work.serving is not None:
            names += [
                f"workload.serving.target_utilisation ({work.serving.target_utilisation:g})",
                f"workload.serving.peak_to_average ({work.serving.peak_to_average:g})",
            ]
        else:
            names.append(f"workload.output_tokens_per_second_per_gpu ({work.output_tokens_per_second_per_gpu:g})")
    return ", ".join(names) + " (or search a smaller range: --volume-max)"

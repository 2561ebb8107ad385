"""A training run: compute, GPU-hours, goodput, wall-clock time and the cost with each option.

References
----------
.. [1] Kaplan et al. (2020), arXiv 2001.08361, §2.1: C ≈ 6·N·D.
.. [2] DeepSeek-AI (2024), "DeepSeek-V3 Technical Report", arXiv 2412.19437, Table 1.
.. [3] Dubey et al. (2024), "The Llama 3 Herd of Models", arXiv 2407.21783, Table 4.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .. import formulas
from ..formulas.shapes import Numbers, Values, scalar
from ..resolved import (
    OwnOption,
    Resolved,
    StageInputs,
    TrainingInputs,
    as_resolved,
    checkpoint_interval,
    checkpoint_intervals,
    resolve,
)
from ..results import StageResult, TrainingRun
from ..schema import Scenario
from ..units import HOURS_PER_MONTH
from .costs import monthly_cost_components

MFU_CEILING_DENSE = 0.6
"""MFU above which a dense model's run is flagged: the highest published large-scale figures are
about 0.4-0.55 (Llama 3: 0.38-0.43, Dubey et al. 2024 Table 4; PaLM 540B: 0.462, Chowdhery et al.
2022 Table 3). [-]"""
MFU_CEILING_MOE = 0.5
"""MFU above which a mixture-of-experts run is flagged (routing and all-to-all cost more;
DeepSeek-V3's own figures imply about 0.35, cases.md R3). [-]"""
GOODPUT_CEILING_AT_SCALE = 0.99
"""Goodput above which a run on more than :data:`LARGE_RUN_GPUS` GPUs is flagged (Llama 3 reports
"higher than 90 % effective training time" on 16,384 GPUs, Dubey et al. 2024 §3.3.4). [-]"""
LARGE_RUN_GPUS = 10_000
"""GPUs above which a run's goodput is checked. [GPU]"""


def checkpointing(run: TrainingInputs) -> tuple[Values | None, Values | None, Values]:
    """Job MTBF, the checkpoint interval and the goodput of a training run. ([h], [h], [-])

    With no failure model, or a failure rate of 0, the job never fails: (None, None, 1).
    """
    settings = run.goodput
    if settings is None or np.all(np.asarray(settings.failures_per_gpu_per_year) == 0):
        return None, None, 1.0
    mtbf = formulas.job_mtbf_hours(settings.failures_per_gpu_per_year, run.cluster_gpus)
    interval = checkpoint_interval(settings, mtbf)
    return mtbf, interval, formulas.goodput_fraction(interval, settings.write_hours, settings.restart_hours, mtbf)


class StageHours(NamedTuple):
    """What one stage of a run takes; each figure a float, or an array for sampled inputs."""

    flop: Values | None
    """Training FLOP, None without a token count. [FLOP]"""
    ideal: Values
    """GPU-hours with no failure. [GPU-h]"""
    paid: Values
    """GPU-hours to pay. [GPU-h]"""
    mfu: Values | None
    """Model FLOP utilisation, None without a token count. [-]"""


def _total(values: Iterable[Values]) -> Values:
    """The sum of stage figures (floats, or arrays of samples). [the figures' unit]"""
    total: Values = 0
    for value in values:
        total = total + value
    return total


def _stage_hours(stage: StageInputs, run: TrainingInputs, goodput: Values) -> StageHours:
    """(FLOP, GPU-hours with no failure, GPU-hours to pay, MFU) of one stage."""
    flop = (
        None if stage.training_tokens is None else formulas.training_flop(run.active_parameters, stage.training_tokens)
    )
    if stage.mfu is not None:
        assert flop is not None, "a stage stated by a rate has its token count"
        ideal = formulas.training_gpu_hours(flop, run.peak_tflops, stage.mfu)
        return StageHours(flop, ideal, ideal / goodput, stage.mfu)
    assert stage.gpu_hours is not None, "a stage not stated by a rate is stated by its GPU-hours"
    mfu = None if flop is None else formulas.mfu_from_gpu_hours(flop, run.peak_tflops, stage.gpu_hours)
    return StageHours(flop, stage.gpu_hours, stage.gpu_hours, mfu)


def published_range(r: Resolved) -> tuple[float, float, list[str]] | None:
    """Achieved TFLOP/s per GPU-hour paid of the published runs on GPUs of the run's architecture.

    Returns (lowest, highest, the runs' ids), or None when data/training_runs.csv holds no
    run on that architecture. [TFLOP/s]
    """
    arch = r.workload.gpu.architecture
    gpus = r.catalog.gpus
    rows = [
        row
        for row in r.catalog.training_runs.values()
        if arch is not None and row.gpu in gpus and gpus[row.gpu].architecture == arch
    ]
    if not rows:
        return None
    achieved = [
        scalar(
            formulas.achieved_tflops_from_gpu_hours(
                formulas.training_flop(row.active_parameters, row.training_tokens), row.gpu_hours
            )
        )
        for row in rows
    ]
    return min(achieved), max(achieved), [row.run for row in rows]


def plausibility_warnings(
    run: TrainingInputs,
    mfu_by_stage: dict[str, float | None],
    goodput: float,
    achieved_tflops: float | None = None,
    published: tuple | None = None,
    architecture: str | None = None,
) -> list[str]:
    """Warnings (not errors) on a run's inputs.

    An MFU above what is published (0.6 dense, 0.5 mixture of experts), a goodput above 0.99
    on more than 10,000 GPUs, and GPU-hours per token (as FLOP/s achieved over the GPU-hours
    paid, 6·N·D / GPU-hours) outside the range of the published runs on the same GPU
    architecture (data/training_runs.csv).
    """
    found = []
    ceiling = MFU_CEILING_MOE if run.moe else MFU_CEILING_DENSE
    kind = "mixture-of-experts" if run.moe else "dense"
    for name, mfu in mfu_by_stage.items():
        if mfu is not None and float(np.max(mfu)) > ceiling:
            where = "" if name == "run" else f"stage {name}: "
            found.append(
                f"{where}MFU {float(np.max(mfu)):.1%} is above {ceiling:.0%}, higher than published "
                f"large-scale runs of {kind} models reach; check the MFU, the precision whose peak it "
                "refers to, or the GPU-hours"
            )
    if run.cluster_gpus > LARGE_RUN_GPUS and float(np.min(goodput)) > GOODPUT_CEILING_AT_SCALE:
        how = "with no failure model (workload.goodput)" if run.goodput is None else "from the failure model"
        found.append(
            f"goodput {float(np.min(goodput)):.1%} on {run.cluster_gpus:,} GPUs {how} is above "
            f"{GOODPUT_CEILING_AT_SCALE:.0%}; Llama 3 reports about 90 % effective training time on "
            "16,384 GPUs (419 interruptions in 54 days)"
        )
    if achieved_tflops is not None and published is not None:
        low, high, runs = published
        if not low <= achieved_tflops <= high:
            side = "fewer" if achieved_tflops > high else "more"
            # the published runs paid for their failures and restarts: a run that models none is faster by that
            unmodelled = side == "fewer" and run.goodput is None
            found.append(
                f"the run needs {side} GPU-hours per token than any published {architecture} run: "
                f"{achieved_tflops:,.0f} TFLOP/s per GPU over the GPU-hours paid (6·N·D / GPU-hours), "
                f"against {low:,.0f}-{high:,.0f} for {', '.join(runs)} (data/training_runs.csv)"
                + (
                    "; their GPU-hours include failures and restarts (Llama 3: about 90 % effective training "
                    "time), which this run does not model: a workload.goodput block does"
                    if unmodelled
                    else ""
                )
            )
    return found


def rental_pue(r: Resolved) -> float:
    """PUE of the rental provider's data centre: ``energy.rent_pue``, else its catalog row. [-]

    The row is ``energy.rent_pue_row``, by default the Uptime Institute's 2024 average
    (data/datacenter_pue.csv); 1 if the catalog lacks it.
    """
    energy = r.scenario.energy
    if energy is not None and energy.rent_pue is not None:
        return float(energy.rent_pue)
    row = r.catalog.datacenter_pue.get(energy.rent_pue_row if energy is not None else "uptime-2024-average")
    return row.pue if row is not None else 1.0


def run_gpu_hours(run: TrainingInputs):
    """GPU-hours to pay for a run: each stage's, divided by the goodput where stated by a rate. [GPU-h]

    Broadcasts over sampled inputs.
    """
    goodput = checkpointing(run)[2]
    return _total(_stage_hours(stage, run, goodput).paid for stage in run.stages)


def run_costs(scenario: Scenario | Resolved) -> dict[str, object]:
    """The cost of the whole run with each option: its monthly cost busy all month × the run's months. [currency]

    Broadcasts over sampled inputs (MFU, prices, tokens): each cost is then an array.
    """
    r = as_resolved(scenario)
    run = r.workload.training
    if run is None:
        raise ValueError("the scenario's workload is not a training run (kind: training)")
    months = run_gpu_hours(run) / run.cluster_gpus / HOURS_PER_MONTH
    return {
        option: sum(np.asarray(v, dtype=float) for v in monthly_cost_components(r, option, r.volume).values()) * months
        for option in r.options
    }


def training_run(scenario: Scenario | Resolved) -> TrainingRun:
    """Work out the scenario's training run and what it costs with each option.

    While the run lasts, the cluster is busy all month (``cluster_gpus`` × 730 GPU-hours),
    so the cost of each option is its monthly cost at that volume times the run's
    GPU-hours over the cluster's monthly GPU-hours. For rental billed per GPU-hour used
    this is exactly GPU-hours × price; for the own cluster it is the months of depreciation
    and running costs the run takes (the cluster's other months are not charged to it).

    A run stated by stages is their sum; a stage stated by its rate (MFU, achieved TFLOP/s,
    tokens/s) is divided by the goodput, one stated by GPU-hours or wall clock is taken as
    stated (time lost already in it) and its MFU is backed out.

    Raises
    ------
    ValueError
        The scenario's workload is not a training run, or its GPU-hours are not finite.
    """
    r = as_resolved(scenario)
    run = r.workload.training
    if run is None:
        raise ValueError("the scenario's workload is not a training run (kind: training)")
    mtbf, interval, goodput = checkpointing(run)
    worked = [(stage, _stage_hours(stage, run, goodput)) for stage in run.stages]
    hours = _total(w.paid for _, w in worked)
    if not (np.all(np.isfinite(hours)) and np.all(np.asarray(hours) < 1e15)):
        raise ValueError(
            f"the run needs {scalar(np.max(hours)):.3g} GPU-hours: check training_tokens, mfu and the model size"
        )
    flops = [w.flop for _, w in worked]
    flop = _total(f for f in flops if f is not None) if None not in flops else None
    ideal = _total(w.ideal for _, w in worked)
    wall_hours = _total(w.paid / stage.gpus for stage, w in worked)
    months = scalar(hours / run.cluster_gpus / HOURS_PER_MONTH)
    state = run.total_parameters * run.state_bytes_per_parameter
    costs = {
        option: {name: scalar(value) * months for name, value in monthly_cost_components(r, option, r.volume).items()}
        for option in r.options
    }
    totals = {option: sum(parts.values()) for option, parts in costs.items()}
    stages = tuple(
        StageResult(
            name=stage.name,
            basis=stage.basis,
            gpus=stage.gpus,
            training_tokens=None if stage.training_tokens is None else scalar(stage.training_tokens),
            flop=None if w.flop is None else scalar(w.flop),
            mfu=None if w.mfu is None else scalar(w.mfu),
            gpu_hours=scalar(w.paid),
            wall_clock_days=scalar(w.paid / stage.gpus / 24),
            costs={option: scalar(total * w.paid / hours) for option, total in totals.items()},
        )
        for stage, w in worked
    )
    mfu = (
        None
        if flop is None
        else (stages[0].mfu if len(stages) == 1 else scalar(formulas.mfu_from_gpu_hours(flop, run.peak_tflops, hours)))
    )
    intervals = steps = lost = causes = components = None
    if mtbf is not None:
        g = run.goodput
        assert g is not None and interval is not None, "a job MTBF comes from a failure model, with its interval"
        intervals = {name: scalar(v) for name, v in checkpoint_intervals(g, mtbf).items()}
        if g.step_hours is not None:
            steps = int(scalar(formulas.checkpoint_steps(interval, g.step_hours * 3600)))
        lost = scalar(formulas.gpu_hours_lost_per_failure(run.cluster_gpus, interval, g.write_hours, g.restart_hours))
        causes = {
            name: (scalar(rate), scalar(formulas.job_mtbf_hours(rate, run.cluster_gpus)) if rate > 0 else 0.0)
            for name, rate in g.cause_rates
        }
        components = {
            name: (int(count), scalar(rate), scalar(rate * count)) for name, count, rate in g.components if count > 0
        } or None
    return TrainingRun(
        flop=scalar(flop) if flop is not None else None,
        peak_tflops=run.peak_tflops,
        ideal_gpu_hours=scalar(ideal),
        goodput=scalar(goodput),
        gpu_hours=scalar(hours),
        wall_clock_days=scalar(wall_hours / 24),
        months=months,
        job_mtbf_hours=None if mtbf is None else scalar(mtbf),
        checkpoint_interval_hours=None if interval is None else scalar(interval),
        min_gpus_sharded=formulas.min_gpus_for_training_state(
            state, run.activation_bytes_per_gpu, run.gpu_memory_bytes, sharded=True
        ),
        min_gpus_unsharded=formulas.min_gpus_for_training_state(
            state, run.activation_bytes_per_gpu, run.gpu_memory_bytes, sharded=False
        ),
        costs=costs,
        stages=stages,
        mfu=mfu,
        checkpoint_intervals=intervals,
        checkpoint_interval_steps=steps,
        gpu_hours_lost_per_failure=lost,
        failures_by_cause=causes,
        memory=run.memory,
        failures_by_component=components,
        warnings=tuple(
            plausibility_warnings(
                run,
                {s.name: s.mfu for s in stages},
                scalar(goodput),
                None if flop is None else scalar(formulas.achieved_tflops_from_gpu_hours(flop, hours)),
                published_range(r),
                r.workload.gpu.architecture,
            )
        ),
    )


@dataclass(frozen=True)
class TrainingGrid:
    """A training run worked out over arrays of inputs: every field has the broadcast shape.

    Attributes
    ----------
    flop
        Training compute 6·N·D; NaN where a stage states no tokens. [FLOP]
    ideal_gpu_hours
        GPU-hours with no failure. [GPU-h]
    goodput
        Share of the paid time that trains. [-]
    gpu_hours
        GPU-hours to pay. [GPU-h]
    wall_clock_days
        Wall-clock time of the run. [d]
    months
        The cluster's months the run takes: GPU-hours / (cluster GPUs × 730). [month]
    energy_mwh
        Facility energy by the model cards' method: GPU-hours × power per GPU × PUE. [MWh]
    costs
        Option → the run's cost with it. [reporting currency]
    """

    flop: np.ndarray
    ideal_gpu_hours: np.ndarray
    goodput: np.ndarray
    gpu_hours: np.ndarray
    wall_clock_days: np.ndarray
    months: np.ndarray
    energy_mwh: np.ndarray
    costs: dict[str, np.ndarray]


def _checked(name: str, value, integral: bool = False, at_most_one: bool = False) -> np.ndarray:
    """An argument of :func:`training_cost_grid` as a float array, or a ValueError naming it, the value and the rule."""
    array = np.asarray(value, dtype=float)
    bad = ~np.isfinite(array) | (array <= 0)
    rule = "finite and above 0"
    if at_most_one:
        bad |= array > 1
        rule = "in (0, 1]"
    if integral:
        bad |= array != np.round(array)
        rule = "a whole number of at least 1"
    if np.any(bad):
        first = array[bad].ravel()[0] if array.ndim else float(array)
        raise ValueError(
            f"training_cost_grid: {name} must be {rule} (got {first!r} at {int(np.argmax(bad.ravel()))} "
            f"of {array.size})"
        )
    return array


def _grid_stage(stage: StageInputs, run: TrainingInputs, tokens, parameters, mfu, gpus) -> StageInputs:
    """The run's one stage with its tokens, MFU and GPUs replaced, its rate or hours worked out again."""
    d = stage.training_tokens if tokens is None else tokens
    g = stage.gpus if gpus is None else gpus
    rate, hours = stage.mfu, stage.gpu_hours
    if mfu is not None:
        rate, hours = mfu, None
    elif stage.basis == "tokens_per_second_per_gpu" and parameters is not None:
        rate = formulas.mfu_from_tokens_per_second(parameters, stage.stated, run.peak_tflops)
    elif stage.basis == "gpu_hours_per_trillion_tokens":
        hours = stage.stated * d / 1e12
    elif stage.basis.startswith("wall_clock") and gpus is not None:
        assert stage.gpu_hours is not None, "a wall clock is resolved into its GPU-hours"
        hours = stage.gpu_hours / stage.gpus * g
    if rate is not None and d is None:
        raise ValueError("training_cost_grid: an MFU needs training_tokens (the scenario states none)")
    if rate is not None and np.any(np.asarray(rate) > 1):
        raise ValueError(
            f"training_cost_grid: active_parameters give an MFU of {float(np.max(rate)):.3g} at the "
            f"stated tokens/s, above the dense peak ({run.peak_tflops:g} TFLOP/s)"
        )
    return replace(stage, training_tokens=d, gpus=g, mfu=rate, gpu_hours=hours)


def training_cost_grid(
    scenario: Scenario | Resolved,
    *,
    training_tokens: Numbers | None = None,
    active_parameters: Numbers | None = None,
    mfu: Numbers | None = None,
    cluster_gpus: Numbers | None = None,
    values: Mapping[str, Numbers] | None = None,
) -> TrainingGrid:
    """A training run's GPU-hours, wall clock, goodput, energy and cost with each option, over arrays of inputs.

    The vectorised form of :func:`training_run`: every argument broadcasts against the others
    (numpy rules), so a sweep or a Monte Carlo of a million configurations is one call. With
    scalar arguments (or none) each figure equals the one :func:`training_run` gives for the
    scenario with those inputs, to the last bit.

    Parameters
    ----------
    scenario
        A scenario whose workload is a training run.
    training_tokens
        D, instead of the scenario's. [tokens]
    active_parameters
        N, parameters used per token, instead of the model's. [-]
    mfu
        Model FLOPs utilisation, in (0, 1], instead of the scenario's; a run stated by
        GPU-hours or wall clock is then costed by this MFU. [-]
    cluster_gpus
        GPUs the run uses, whole numbers. [GPU]
    values
        Any other numeric input of the scenario by its path (the names of
        :func:`costmodel.domain.uncertainty.numeric_inputs`), e.g.
        ``options.rent.price_per_gpu_hour`` [its currency/GPU-h] or
        ``options.own.server_price`` [its currency], as numbers or arrays.

    Returns
    -------
    TrainingGrid
        Arrays of the broadcast shape (0-d with scalar inputs).

    Raises
    ------
    ValueError
        The workload is not a training run; an argument is not finite and above 0 (an MFU
        above 1, a GPU count not whole); tokens, parameters, MFU or GPU counts given for a run
        stated by stages; the training state does not fit on the fewest GPUs given.
    KeyError
        A path in ``values`` that the scenario does not have.

    Notes
    -----
    Per element, as :func:`training_run`: FLOP C = 6·N·D (Kaplan et al. 2020, §2.1); ideal
    GPU-hours H₀ = C / (peak × MFU) / 3,600; paid H = H₀ / goodput for a run stated by a rate
    (as stated for one stated by GPU-hours or wall clock); months m = H / (G × 730); the cost
    with an option is its monthly cost with the G-GPU cluster busy all month (G × 730 GPU-h),
    component by component, times m.

    Examples
    --------
    DeepSeek-V3 at 2 USD per H800 GPU-hour: 6 × 37e9 × 14.8e12 FLOP at 34.6 % of 989 TFLOP/s
    is 2.667 M GPU-hours (the report's 2.664 M, arXiv 2412.19437, Table 1, with the MFU
    rounded), and at 40 % MFU 2.307 M.

    >>> import costmodel
    >>> grid = training_cost_grid(costmodel.load_scenario("deepseek-v3-training"), mfu=[0.346, 0.40])
    >>> [f"{h / 1e6:.3f}" for h in grid.gpu_hours], [f"{c / 1e6:.2f}" for c in grid.costs["rent"]]
    (['2.667', '2.307'], ['5.33', '4.61'])
    """
    r = as_resolved(scenario)
    if values and "workload.cluster_gpus" in values:  # it sizes the run and its volume: an argument of its own
        raise ValueError("training_cost_grid: give workload.cluster_gpus as cluster_gpus=, not in values")
    if values:
        r = resolve(r, values=values)
    run = r.workload.training
    if run is None:
        raise ValueError("the scenario's workload is not a training run (kind: training)")
    given = {
        "training_tokens": training_tokens,
        "active_parameters": active_parameters,
        "mfu": mfu,
        "cluster_gpus": cluster_gpus,
    }
    first_stage = run.stages[0]  # every run has at least one stage
    if len(run.stages) > 1 and any(v is not None for v in given.values()):
        raise ValueError(
            "training_cost_grid: "
            + ", ".join(k for k, v in given.items() if v is not None)
            + " given for a run stated by stages; vary the stages' inputs through values instead"
        )
    tokens = None if training_tokens is None else _checked("training_tokens", training_tokens)
    parameters = None if active_parameters is None else _checked("active_parameters", active_parameters)
    rate = None if mfu is None else _checked("mfu", mfu, at_most_one=True)
    gpus = None if cluster_gpus is None else _checked("cluster_gpus", cluster_gpus, integral=True)
    if gpus is not None:
        _check_state_fits(run, parameters, gpus)
    if any(v is not None for v in given.values()):
        stage = _grid_stage(first_stage, run, tokens, parameters, rate, gpus)
        run = replace(
            run,
            stages=(stage,),
            active_parameters=run.active_parameters if parameters is None else parameters,
            training_tokens=stage.training_tokens,
            mfu=stage.mfu,
            cluster_gpus=run.cluster_gpus if gpus is None else gpus,
        )
    return _grid_figures(r, run, gpus)


def _check_state_fits(run: TrainingInputs, parameters: np.ndarray | None, gpus: np.ndarray) -> None:
    """Raise a ValueError when the training state, fully sharded, needs more GPUs than the fewest of
    ``gpus`` (at the most parameters given)."""
    state = float(np.max(run.total_parameters if parameters is None else np.maximum(run.total_parameters, parameters)))
    needed = formulas.min_gpus_for_training_state(
        state * float(np.max(run.state_bytes_per_parameter)),
        float(np.max(run.activation_bytes_per_gpu)),
        run.gpu_memory_bytes,
        sharded=True,
    )
    if needed is None or needed > np.min(gpus):
        raise ValueError(
            f"training_cost_grid: cluster_gpus {float(np.min(gpus)):g} is too few: the training "
            "state needs at least "
            f"{'more than any number of' if needed is None else f'{needed:,}'} GPUs fully sharded"
        )


def _grid_figures(r: Resolved, run: TrainingInputs, gpus: np.ndarray | None) -> TrainingGrid:
    """The figures of :func:`training_cost_grid` for a run with its inputs in place, broadcast to one shape;
    ``gpus`` the cluster sizes given (the cost is then of a cluster of that size busy all month)."""
    goodput = checkpointing(run)[2]
    worked = [(stage, _stage_hours(stage, run, goodput)) for stage in run.stages]
    hours = _total(w.paid for _, w in worked)
    if not (np.all(np.isfinite(hours)) and np.all(np.asarray(hours) < 1e15)):
        raise ValueError(
            f"the run needs {float(np.max(hours)):.3g} GPU-hours: check training_tokens, mfu and the model size"
        )
    flops = [w.flop for _, w in worked]
    flop = _total(f for f in flops if f is not None) if all(f is not None for f in flops) else np.nan
    ideal = _total(w.ideal for _, w in worked)
    wall_hours = _total(w.paid / stage.gpus for stage, w in worked)
    months = hours / run.cluster_gpus / HOURS_PER_MONTH
    volume = r.volume if gpus is None else gpus * HOURS_PER_MONTH
    costs = {
        option: sum(
            np.asarray(value, dtype=float) * months for value in monthly_cost_components(r, option, volume).values()
        )
        for option in r.options
    }
    watts = r.workload.gpu.tdp_w if run.measured_watts_per_gpu is None else run.measured_watts_per_gpu
    own = r.options.get("own")
    pue = own.pue if isinstance(own, OwnOption) else rental_pue(r)
    energy = formulas.training_energy_mwh(hours, watts, pue)
    figures = [flop, ideal, goodput, hours, wall_hours / 24, months, energy, *costs.values()]
    shape = np.broadcast_shapes(*(np.shape(f) for f in figures))
    shaped = [np.broadcast_to(np.asarray(f, dtype=float), shape) for f in figures]
    return TrainingGrid(*shaped[:7], costs=dict(zip(costs, shaped[7:], strict=True)))

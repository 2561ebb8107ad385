"""A training run: compute, GPU-hours, goodput, wall-clock time and the cost with each option.

References
----------
.. [1] Kaplan et al. (2020), arXiv 2001.08361, §2.1: C ≈ 6·N·D.
.. [2] DeepSeek-AI (2024), "DeepSeek-V3 Technical Report", arXiv 2412.19437, Table 1.
.. [3] Dubey et al. (2024), "The Llama 3 Herd of Models", arXiv 2407.21783, Table 4.
"""

from __future__ import annotations

import numpy as np

from .. import formulas
from ..resolved import Resolved, StageInputs, TrainingInputs, as_resolved, checkpoint_interval, checkpoint_intervals
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


def checkpointing(run: TrainingInputs) -> tuple[float | None, float | None, float]:
    """Job MTBF, the checkpoint interval and the goodput of a training run. ([h], [h], [-])

    With no failure model, or a failure rate of 0, the job never fails: (None, None, 1).
    """
    settings = run.goodput
    if settings is None or np.all(np.asarray(settings.failures_per_gpu_per_year) == 0):
        return None, None, 1.0
    mtbf = formulas.job_mtbf_hours(settings.failures_per_gpu_per_year, run.cluster_gpus)
    interval = checkpoint_interval(settings, mtbf)
    return mtbf, interval, formulas.goodput_fraction(interval, settings.write_hours, settings.restart_hours, mtbf)


def _stage_hours(stage: StageInputs, run: TrainingInputs, goodput):
    """(FLOP, GPU-hours with no failure, GPU-hours to pay, MFU) of one stage."""
    flop = None if stage.training_tokens is None else formulas.training_flop(run.active_parameters,
                                                                              stage.training_tokens)
    if stage.mfu is not None:
        ideal = formulas.training_gpu_hours(flop, run.peak_tflops, stage.mfu)
        return flop, ideal, ideal / goodput, stage.mfu
    mfu = None if flop is None else formulas.mfu_from_gpu_hours(flop, run.peak_tflops, stage.gpu_hours)
    return flop, stage.gpu_hours, stage.gpu_hours, mfu


def published_range(r: Resolved) -> tuple[float, float, list[str]] | None:
    """Achieved TFLOP/s per GPU-hour paid of the published runs on GPUs of the run's architecture.

    Returns (lowest, highest, the runs' ids), or None when data/training_runs.csv holds no
    run on that architecture. [TFLOP/s]
    """
    arch = r.workload.gpu.architecture
    gpus = r.catalog.gpus
    rows = [row for row in r.catalog.training_runs.values()
            if arch is not None and row.gpu in gpus and gpus[row.gpu].architecture == arch]
    if not rows:
        return None
    achieved = [float(formulas.achieved_tflops_from_gpu_hours(
        formulas.training_flop(row.active_parameters, row.training_tokens), row.gpu_hours)) for row in rows]
    return min(achieved), max(achieved), [row.run for row in rows]


def plausibility_warnings(run: TrainingInputs, mfu_by_stage: dict[str, float | None], goodput: float,
                          achieved_tflops: float | None = None, published: tuple | None = None,
                          architecture: str | None = None) -> list[str]:
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
            found.append(f"{where}MFU {float(np.max(mfu)):.1%} is above {ceiling:.0%}, higher than published "
                         f"large-scale runs of {kind} models reach; check the MFU, the precision whose peak it "
                         "refers to, or the GPU-hours")
    if run.cluster_gpus > LARGE_RUN_GPUS and float(np.min(goodput)) > GOODPUT_CEILING_AT_SCALE:
        how = "with no failure model (workload.goodput)" if run.goodput is None else "from the failure model"
        found.append(f"goodput {float(np.min(goodput)):.1%} on {run.cluster_gpus:,} GPUs {how} is above "
                     f"{GOODPUT_CEILING_AT_SCALE:.0%}; Llama 3 reports about 90 % effective training time on "
                     "16,384 GPUs (419 interruptions in 54 days)")
    if achieved_tflops is not None and published is not None:
        low, high, runs = published
        if not low <= achieved_tflops <= high:
            side = "fewer" if achieved_tflops > high else "more"
            found.append(f"the run needs {side} GPU-hours per token than any published {architecture} run: "
                         f"{achieved_tflops:,.0f} TFLOP/s per GPU over the GPU-hours paid (6·N·D / GPU-hours), "
                         f"against {low:,.0f}-{high:,.0f} for {', '.join(runs)} (data/training_runs.csv)")
    return found


def run_gpu_hours(run: TrainingInputs):
    """GPU-hours to pay for a run: each stage's, divided by the goodput where stated by a rate. [GPU-h]

    Broadcasts over sampled inputs.
    """
    goodput = checkpointing(run)[2]
    return sum(_stage_hours(stage, run, goodput)[2] for stage in run.stages)


def run_costs(scenario: Scenario | Resolved) -> dict[str, object]:
    """The cost of the whole run with each option: its monthly cost busy all month × the run's months. [currency]

    Broadcasts over sampled inputs (MFU, prices, tokens): each cost is then an array.
    """
    r = as_resolved(scenario)
    run = r.workload.training
    months = run_gpu_hours(run) / run.cluster_gpus / HOURS_PER_MONTH
    return {option: sum(np.asarray(v, dtype=float) for v in monthly_cost_components(r, option, r.volume).values())
            * months for option in r.options}


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
    worked = [(stage, *_stage_hours(stage, run, goodput)) for stage in run.stages]
    hours = sum(h for _, _, _, h, _ in worked)
    if not (np.all(np.isfinite(hours)) and np.all(np.asarray(hours) < 1e15)):
        raise ValueError(f"the run needs {float(np.max(hours)):.3g} GPU-hours: check training_tokens, mfu and the "
                         "model size")
    flops = [f for _, f, _, _, _ in worked]
    flop = sum(flops) if None not in flops else None
    ideal = sum(i for _, _, i, _, _ in worked)
    wall_hours = sum(h / stage.gpus for stage, _, _, h, _ in worked)
    months = hours / run.cluster_gpus / HOURS_PER_MONTH
    state = run.total_parameters * run.state_bytes_per_parameter
    costs = {
        option: {name: float(value) * months for name, value in monthly_cost_components(r, option, r.volume).items()}
        for option in r.options
    }
    totals = {option: sum(parts.values()) for option, parts in costs.items()}
    stages = tuple(StageResult(
        name=stage.name, basis=stage.basis, gpus=stage.gpus,
        training_tokens=None if stage.training_tokens is None else float(stage.training_tokens),
        flop=None if f is None else float(f), mfu=None if m is None else float(m), gpu_hours=float(h),
        wall_clock_days=float(h / stage.gpus / 24),
        costs={option: float(total * h / hours) for option, total in totals.items()}) for stage, f, _, h, m in worked)
    mfu = None if flop is None else (stages[0].mfu if len(stages) == 1 else
                                     float(formulas.mfu_from_gpu_hours(flop, run.peak_tflops, hours)))
    intervals = steps = lost = causes = components = None
    if mtbf is not None:
        g = run.goodput
        intervals = {name: float(v) for name, v in checkpoint_intervals(g, mtbf).items()}
        if g.step_hours is not None:
            steps = int(formulas.checkpoint_steps(interval, g.step_hours * 3600))
        lost = float(formulas.gpu_hours_lost_per_failure(run.cluster_gpus, interval, g.write_hours, g.restart_hours))
        causes = {name: (float(rate), float(formulas.job_mtbf_hours(rate, run.cluster_gpus)) if rate > 0 else 0.0)
                  for name, rate in g.cause_rates}
        components = {name: (int(count), float(rate), float(rate * count)) for name, count, rate in g.components
                      if count > 0} or None
    return TrainingRun(
        flop=float(flop) if flop is not None else None, peak_tflops=run.peak_tflops, ideal_gpu_hours=float(ideal),
        goodput=float(goodput), gpu_hours=float(hours), wall_clock_days=float(wall_hours / 24),
        months=float(months),
        job_mtbf_hours=None if mtbf is None else float(mtbf),
        checkpoint_interval_hours=None if interval is None else float(interval),
        min_gpus_sharded=formulas.min_gpus_for_training_state(state, run.activation_bytes_per_gpu,
                                                              run.gpu_memory_bytes, sharded=True),
        min_gpus_unsharded=formulas.min_gpus_for_training_state(state, run.activation_bytes_per_gpu,
                                                                run.gpu_memory_bytes, sharded=False),
        costs=costs, stages=stages, mfu=mfu, checkpoint_intervals=intervals, checkpoint_interval_steps=steps,
        gpu_hours_lost_per_failure=lost, failures_by_cause=causes, memory=run.memory,
        failures_by_component=components,
        warnings=tuple(plausibility_warnings(
            run, {s.name: s.mfu for s in stages}, goodput,
            None if flop is None else float(formulas.achieved_tflops_from_gpu_hours(flop, hours)),
            published_range(r), r.workload.gpu.architecture)),
    )

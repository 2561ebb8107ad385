"""A training run's inputs resolved: the model's sizes and the GPU's peak looked up, each stage's MFU or
GPU-hours, the memory per GPU of its parallelism, its failures and checkpoints.

:func:`training_inputs` is what :func:`costmodel.resolved.resolve` calls for a training workload; the
formulas are those of :mod:`costmodel.formulas.training`, :mod:`costmodel.formulas.parallelism` and
:mod:`costmodel.formulas.checkpoint`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import formulas
from .catalog import GPU, LLM, Catalog
from .errors import scenario_problem
from .formulas.shapes import Values
from .results import MemoryPerGPU
from .schema.workload import DURATION_PATTERN, TrainingWorkload

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""


@dataclass(frozen=True)
class GoodputInputs:
    """Failures and checkpoints of a training run, in hours.

    Attributes
    ----------
    failures_per_gpu_per_year
        As stated, or k / (d/365 · n) from an observed count. [1/(GPU·year)]
    write_hours, restart_hours
        Checkpoint write time δ and time to recover (MTTR) R. [h]
    interval
        ``young``, ``daly`` or ``young_restart``: the formula whose interval is used.
    step_hours
        Wall-clock time of one training step, if stated. [h]
    cause_rates
        (cause, failures per GPU per year) for each cause of an observed count, or for each
        component (gpu, host, network) of failures stated by component.
    counted
        (interruptions, days, GPUs) as observed, if the failures were stated that way.
    components
        (component, count, failures per component per year) for failures stated by component
        (``failures_per_year``): the GPUs, hosts and network components of the run. [-], [1/year]
    """

    failures_per_gpu_per_year: Number
    write_hours: Number
    restart_hours: Number
    interval: str
    step_hours: Number | None = None
    cause_rates: tuple[tuple[str, Number], ...] = ()
    counted: tuple[int, float, int] | None = None
    components: tuple[tuple[str, int, Number], ...] = ()


@dataclass(frozen=True)
class StageInputs:
    """One stage of a training run as stated (the whole run is one stage named "run" without stages).

    Attributes
    ----------
    name
        The stage's name.
    basis
        The field it is stated by (``mfu``, ``achieved_tflops_per_gpu``, ``gpu_hours``, ...).
    stated
        The value as stated (a wall clock as D-HH:MM:SS: its hours). [the field's unit]
    gpus
        GPUs the stage uses at once. [GPU]
    training_tokens
        D, if given. [tokens]
    mfu
        The MFU it runs at, stated or converted from achieved TFLOP/s or tokens/s; None when
        the stage is stated by GPU-hours or wall clock. [-]
    gpu_hours
        GPU-hours stated (directly, per trillion tokens × tokens, or GPUs × wall clock); None
        for a stage stated by its rate. [GPU-h]
    source
        Where the stage's figures come from.
    """

    name: str
    basis: str
    stated: Number
    gpus: int
    training_tokens: Number | None
    mfu: Number | None
    gpu_hours: Number | None
    source: str = ""


@dataclass(frozen=True)
class TrainingInputs:
    """A training run's inputs, with the model's sizes and the GPU's peak looked up."""

    model: LLM | None
    active_parameters: Number
    total_parameters: Number
    training_tokens: Number
    precision: str
    peak_tflops: float
    mfu: Number
    cluster_gpus: int
    state_bytes_per_parameter: Number
    activation_bytes_per_gpu: Number
    gpu_memory_bytes: float
    goodput: GoodputInputs | None
    stages: tuple[StageInputs, ...] = ()
    memory: MemoryPerGPU | None = None
    moe: bool = False
    measured_watts_per_gpu: Number | None = None
    """Measured average power per GPU over the run (``workload.power``), used instead of the TDP. [W]"""
    redundancy: tuple[int, int] | None = None
    """(N, k) of the facility power's N+k redundancy, if stated. [-]"""


def _number(value: Values) -> float:
    """The float of a formula's result for scalar inputs (a type checker sees ``float | ndarray | Series``)."""
    return float(np.asarray(value, dtype=float))


def duration_hours(text: str) -> float:
    """Hours in a wall-clock duration written ``D-HH:MM:SS`` or ``HH:MM:SS`` (Slurm's form). [h]"""
    match = re.match(DURATION_PATTERN, text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration D-HH:MM:SS")
    days, hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return days * 24 + hours + minutes / 60 + seconds / 3600


def _stage(stage, name: str, loc: str, gpus: int, active: Number, peak: float) -> StageInputs:
    """One stage (or the run-level basis) resolved: MFU converted, stated hours in GPU-hours."""
    for basis in (
        "mfu",
        "achieved_tflops_per_gpu",
        "tokens_per_second_per_gpu",
        "gpu_hours",
        "gpu_hours_per_trillion_tokens",
        "wall_clock_days",
        "wall_clock_hours",
        "wall_clock",
    ):
        stated = getattr(stage, basis)
        if stated is not None:
            break
    else:  # pragma: no cover - the schema requires a basis
        raise scenario_problem(loc, None, "no basis")
    tokens = stage.training_tokens
    mfu = hours = None
    if basis == "mfu":
        mfu = stated
    elif basis == "achieved_tflops_per_gpu":
        mfu = formulas.mfu_from_achieved_tflops(stated, peak)
    elif basis == "tokens_per_second_per_gpu":
        mfu = formulas.mfu_from_tokens_per_second(active, stated, peak)
    elif basis == "gpu_hours":
        hours = stated
    elif basis == "gpu_hours_per_trillion_tokens":
        hours = stated * tokens / 1e12
    else:
        if basis == "wall_clock":
            stated = duration_hours(stated)
            if stated <= 0:
                raise scenario_problem(f"{loc}.wall_clock", stage.wall_clock, "a run of zero length")
        wall = stated * 24 if basis == "wall_clock_days" else stated
        hours = formulas.wall_clock_gpu_hours(gpus, wall)
    if mfu is not None and np.any(np.asarray(mfu) > 1):
        raise scenario_problem(
            f"{loc}.{basis}",
            getattr(stage, basis),
            f"gives an MFU of {float(np.max(mfu)):.3g}, above the dense peak ({peak:g} TFLOP/s)",
        )
    return StageInputs(name, basis, stated, gpus, tokens, mfu, hours, getattr(stage, "source", "") or "")


def _training_memory(work, model: LLM | None, total: Number, active: Number, gpu: GPU) -> MemoryPerGPU | None:
    plan = work.parallelism
    if plan is None:
        return None
    layers = plan.layers if plan.layers is not None else (model.layers if model is not None else None)
    if layers is None:
        raise scenario_problem(
            "workload.parallelism.layers", None, "give layers (no model from data/models.csv gives them)"
        )
    model_parallel = plan.tensor_parallel * plan.pipeline_parallel
    total, active = float(np.max(total)), float(np.max(active))  # the largest, should a sample vary them
    experts = total - active if plan.expert_parallel > 1 else 0.0
    dense = total - experts  # with expert parallelism: active counted as replicated (upper bound)
    state = formulas.zero_state_bytes_per_gpu(
        dense / model_parallel, plan.data_parallel * plan.context_parallel, plan.stage
    )
    if experts:
        state += formulas.zero_state_bytes_per_gpu(
            experts / (model_parallel * plan.expert_parallel),
            plan.data_parallel * plan.context_parallel // plan.expert_parallel,
            plan.stage,
        )
    activations = formulas.activation_bytes_per_gpu(
        layers,
        plan.sequence_length,
        plan.micro_batch_size,
        plan.hidden_size,
        plan.attention_heads,
        plan.tensor_parallel,
        plan.context_parallel,
        plan.sequence_parallel and plan.tensor_parallel > 1,
        plan.activation_recomputation,
    )
    memory = MemoryPerGPU(
        zero_stage=plan.stage,
        state_bytes=_number(state),
        activation_bytes=_number(activations),
        gpu_memory_bytes=gpu.memory_gb * 1e9,
        usable_share=plan.usable_memory_share,
    )
    if not memory.fits:
        raise scenario_problem(
            "workload.parallelism",
            f"TP{plan.tensor_parallel} PP{plan.pipeline_parallel} "
            f"CP{plan.context_parallel} DP{plan.data_parallel} ZeRO-{plan.stage}",
            f"does not fit: {memory.total_bytes / 1e9:,.1f} GB per GPU (model state "
            f"{memory.state_bytes / 1e9:,.1f} GB + activations {memory.activation_bytes / 1e9:,.1f} GB) "
            f"against {memory.usable_bytes / 1e9:,.1f} GB usable on a {gpu.gpu}; raise the tensor or "
            "pipeline parallel size, the ZeRO stage, or recompute activations",
        )
    return memory


def training_inputs(work: TrainingWorkload, catalog: Catalog, gpu: GPU) -> TrainingInputs:
    """A training workload's inputs: the model's sizes and the GPU's peak looked up, its stages, memory, failures.

    Raises
    ------
    ScenarioError
        The precision has no peak on the GPU, a stage's MFU is above 1, the parallelism does not fit a
        GPU's memory, the training state does not fit the cluster, or failures leave no time to train.
    """
    try:
        peak = gpu.dense_tflops(work.precision)
    except ValueError as exc:
        raise scenario_problem("workload.precision", work.precision, str(exc)) from None
    model = catalog.models[work.model] if work.model is not None else None
    active = model.active_parameters if model is not None else work.active_parameters
    total = model.total_parameters if model is not None else work.active_parameters
    goodput = _goodput_inputs(work)
    if work.stages is None:
        stages = (_stage(work, "run", "workload", work.cluster_gpus, active, peak),)
    else:
        stages = tuple(
            _stage(stage, stage.name, f"workload.stages.{i}", stage.gpus or work.cluster_gpus, active, peak)
            for i, stage in enumerate(work.stages)
        )
    tokens = [st.training_tokens for st in stages]
    known = [t for t in tokens if t is not None]
    run = TrainingInputs(
        model,
        active,
        total,
        sum(known) if len(known) == len(tokens) else None,
        work.precision,
        peak,
        stages[0].mfu if len(stages) == 1 else None,
        work.cluster_gpus,
        work.state_bytes_per_parameter,
        work.activation_gb_per_gpu * 1e9,
        gpu.memory_gb * 1e9,
        goodput,
        stages,
        _training_memory(work, model, total, active, gpu),
        bool(np.any(np.asarray(active) < np.asarray(total))),
        None if work.power is None else work.power.measured_power_per_gpu_w,
        None
        if work.power is None or work.power.redundancy_units is None
        else (work.power.redundancy_units, work.power.spare_units),
    )
    _check_fits(work, run, total)
    return run


def _goodput_inputs(work: TrainingWorkload) -> GoodputInputs | None:
    """Failures and checkpoints of the run: the failure rate as stated, from an observed count, or by component."""
    if work.goodput is None:
        return None
    g = work.goodput
    counted = causes = None
    rate = g.failures_per_gpu_per_year
    components = ()
    if g.interruptions is not None:
        assert g.days is not None and g.gpus is not None, "an observed count states its days and GPUs"
        counted = (g.interruptions, g.days, g.gpus)
        rate = formulas.failures_per_gpu_per_year_from_count(g.interruptions, g.days, g.gpus)
        causes = tuple(
            (name, formulas.failures_per_gpu_per_year_from_count(count, g.days, g.gpus))
            for name, count in (g.causes or {}).items()
        )
    elif g.failures_per_year is not None:
        per = g.failures_per_year
        hosts = -(-work.cluster_gpus // g.gpus_per_host)
        components = (
            ("gpu", work.cluster_gpus, per.gpu),
            ("host", hosts, per.host),
            ("network", g.network_components or 0, per.network),
        )
        rate = (
            formulas.cluster_failures_per_year(
                per.gpu, work.cluster_gpus, per.host, hosts, per.network, g.network_components or 0
            )
            / work.cluster_gpus
        )
        causes = tuple((name, lam * count / work.cluster_gpus) for name, count, lam in components)
    return GoodputInputs(
        rate,
        g.checkpoint_write_minutes / 60,
        g.restart_minutes / 60,
        g.interval,
        None if g.step_time_seconds is None else g.step_time_seconds / 3600,
        causes or (),
        counted,
        components,
    )


def _check_fits(work: TrainingWorkload, run: TrainingInputs, total: Number) -> None:
    """Refuse a run whose training state does not fit the cluster even fully sharded, or whose failures leave
    it (almost) no time to train."""
    goodput = run.goodput
    needed = formulas.min_gpus_for_training_state(
        float(total * work.state_bytes_per_parameter),
        float(run.activation_bytes_per_gpu),
        run.gpu_memory_bytes,
        sharded=True,
    )
    if needed is None or needed > work.cluster_gpus:
        raise scenario_problem(
            "workload.cluster_gpus",
            work.cluster_gpus,
            "the training state does not fit: it needs at least "
            f"{'more than any' if needed is None else f'{needed:,}'} GPUs even fully sharded",
        )
    if goodput is not None and np.all(np.asarray(goodput.failures_per_gpu_per_year) > 0):
        mtbf = formulas.job_mtbf_hours(goodput.failures_per_gpu_per_year, work.cluster_gpus)
        interval = checkpoint_interval(goodput, mtbf)
        share = formulas.goodput_fraction(interval, goodput.write_hours, goodput.restart_hours, mtbf)
        if np.any(np.asarray(share) < 1e-3):
            raise scenario_problem(
                "workload.goodput",
                goodput.failures_per_gpu_per_year,
                f"the job fails every {float(np.min(mtbf)):.3g} h on average; checkpoint writes and "
                f"restarts leave it {float(np.min(share)):.2g} of the time to train",
            )


def checkpoint_intervals(goodput: GoodputInputs, mtbf_hours: Number) -> dict[str, Number]:
    """The optimum checkpoint interval by each formula: young, daly, young_restart. [h]"""
    return {
        "young": formulas.young_interval(goodput.write_hours, mtbf_hours),
        "daly": formulas.daly_interval(goodput.write_hours, mtbf_hours),
        "young_restart": formulas.interval_with_restart(goodput.write_hours, mtbf_hours, goodput.restart_hours),
    }


def checkpoint_interval(goodput: GoodputInputs, mtbf_hours: Number) -> Number:
    """The checkpoint interval the run uses: by the formula its ``interval`` names. [h]"""
    if goodput.interval == "daly":
        return formulas.daly_interval(goodput.write_hours, mtbf_hours)
    if goodput.interval == "young":
        return formulas.young_interval(goodput.write_hours, mtbf_hours)
    return formulas.interval_with_restart(goodput.write_hours, mtbf_hours, goodput.restart_hours)


__all__ = [
    "GoodputInputs",
    "StageInputs",
    "TrainingInputs",
    "checkpoint_interval",
    "checkpoint_intervals",
    "duration_hours",
    "training_inputs",
]

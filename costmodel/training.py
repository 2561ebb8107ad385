"""Training compute: FLOP, GPU-hours, MFU, memory for training state, wall-clock time, cost.

Functions take scalars or numpy arrays and broadcast.

References
----------
.. [1] Kaplan et al. (2020), "Scaling Laws for Neural Language Models", arXiv 2001.08361,
   §2.1: training compute C ≈ 6·N·D (2·N forward, 4·N backward per token).
.. [2] Hoffmann et al. (2022), "Training Compute-Optimal Large Language Models"
   (Chinchilla), arXiv 2203.15556, Table 3: budgets that follow C ≈ 6·N·D.
.. [3] Rajbhandari et al. (2020), "ZeRO: Memory Optimizations Toward Training Trillion
   Parameter Models", SC20: mixed-precision Adam holds 16 bytes per parameter
   (2 weights + 2 gradients + 12 optimizer state), which ZeRO shards across GPUs.
.. [4] DeepSeek-AI (2024), "DeepSeek-V3 Technical Report", arXiv 2412.19437, Table 1.
.. [5] Dubey et al. (2024), "The Llama 3 Herd of Models", arXiv 2407.21783, Table 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .calculator import OPTION_LABELS, monthly_cost_components, present_options
from .goodput import daly_interval, goodput_fraction, job_mtbf_hours, young_interval
from .models import Scenario, TrainingWorkload
from .units import HOURS_PER_MONTH, SECONDS_PER_HOUR


def training_flop(active_parameters, tokens):
    """Training compute C = 6·N·D. [FLOP]

    Parameters
    ----------
    active_parameters
        N: parameters used per token (for a mixture of experts, the active ones). [-]
    tokens
        D: training tokens. [tokens]

    Examples
    --------
    Chinchilla (Hoffmann et al. 2022, Table 3): 10 B parameters on 205.1 B tokens.

    >>> f"{training_flop(10e9, 205.1e9):.3g}"
    '1.23e+22'
    """
    return 6.0 * active_parameters * tokens


def training_gpu_hours(flop, peak_tflops, mfu):
    """Ideal GPU-hours = FLOP / (dense peak × MFU) / 3,600. [GPU-h]

    Parameters
    ----------
    flop
        Training compute. [FLOP]
    peak_tflops
        Dense (not 2:4 sparse) peak per GPU at the training precision. [TFLOP/s]
    mfu
        Model FLOPs utilisation, in (0, 1]. [-]
    """
    return flop / (peak_tflops * 1e12 * mfu) / SECONDS_PER_HOUR


def mfu_from_gpu_hours(flop, peak_tflops, gpu_hours):
    """MFU backed out of a reported GPU-hour count: FLOP / (peak × GPU-hours × 3,600). [-]

    The inverse of :func:`training_gpu_hours` in its MFU argument.
    """
    return flop / (peak_tflops * 1e12 * gpu_hours * SECONDS_PER_HOUR)


def min_gpus_for_training_state(state_bytes: float, activation_bytes_per_gpu: float, gpu_memory_bytes: float,
                                sharded: bool) -> int | None:
    """The fewest GPUs whose memory holds the training state. [GPU]

    Parameters
    ----------
    state_bytes
        Weights, gradients and optimizer state, e.g. 16 bytes × parameters. [B]
    activation_bytes_per_gpu
        Activation memory each GPU needs besides. [B]
    gpu_memory_bytes
        Memory per GPU. [B]
    sharded
        True: the state is split across GPUs (ZeRO-3 / FSDP), so
        ceil(state / (memory − activations)) GPUs suffice. False: every GPU holds the
        whole state (plain data parallelism), which needs one GPU if it fits and is
        impossible otherwise.

    Returns
    -------
    int or None
        ``None`` when no number of GPUs can hold it.
    """
    room = gpu_memory_bytes - activation_bytes_per_gpu
    if room <= 0:
        return None
    if sharded:
        return max(1, math.ceil(state_bytes / room))
    return 1 if state_bytes <= room else None


@dataclass(frozen=True)
class TrainingRun:
    """A training run worked out: compute, time, losses and the cost of each option.

    Attributes
    ----------
    flop
        6·N·D. [FLOP]
    peak_tflops
        Dense peak per GPU at the run's precision. [TFLOP/s]
    ideal_gpu_hours
        FLOP / (peak × MFU) / 3,600, with no failure. [GPU-h]
    goodput
        Share of wall-clock time that trains (1 with no failure model). [-]
    gpu_hours
        ideal_gpu_hours / goodput: the GPU-hours to pay for. [GPU-h]
    wall_clock_days
        gpu_hours / cluster GPUs / 24. [d]
    months
        Wall-clock time in the model's 730-hour months. [month]
    job_mtbf_hours, checkpoint_interval_hours
        Job mean time between failures and the checkpoint interval used (None without
        a failure model). [h]
    min_gpus_sharded, min_gpus_unsharded
        Fewest GPUs that hold the training state with ZeRO-3-style sharding, and
        without (None: does not fit on one GPU). [GPU]
    costs
        Cost of the run for each option, by component. [reporting currency]
    """

    flop: float
    peak_tflops: float
    ideal_gpu_hours: float
    goodput: float
    gpu_hours: float
    wall_clock_days: float
    months: float
    job_mtbf_hours: float | None
    checkpoint_interval_hours: float | None
    min_gpus_sharded: int | None
    min_gpus_unsharded: int | None
    costs: dict[str, dict[str, float]]

    def total(self, option: str) -> float:
        """Cost of the run with one option. [reporting currency]"""
        return sum(self.costs[option].values())


def checkpointing(workload: TrainingWorkload) -> tuple[float | None, float | None, float]:
    """Job MTBF, the checkpoint interval and the goodput of a training workload. ([h], [h], [-])"""
    settings = workload.goodput
    if settings is None:
        return None, None, 1.0
    mtbf = job_mtbf_hours(settings.failures_per_gpu_per_year, workload.cluster_gpus)
    write, restart = settings.checkpoint_write_minutes / 60, settings.restart_minutes / 60
    if mtbf is None:
        return None, None, 1.0
    interval = (daly_interval if settings.interval == "daly" else young_interval)(write, mtbf)
    return mtbf, interval, goodput_fraction(interval, write, restart, mtbf)


def training_run(scenario: Scenario) -> TrainingRun:
    """Work out the scenario's training run and what it costs with each option.

    While the run lasts, the cluster is busy all month (``cluster_gpus`` × 730 GPU-hours),
    so the cost of each option is its monthly cost at that volume times the run's
    wall-clock months. For rental billed per GPU-hour used this is exactly GPU-hours ×
    price; for the own cluster it is the months of depreciation and running costs the
    run takes (the cluster's other months are not charged to it).

    Raises
    ------
    ValueError
        The scenario's workload is not a training run.
    """
    work = scenario.workload
    if not isinstance(work, TrainingWorkload):
        raise ValueError("the scenario's workload is not a training run (kind: training)")
    gpu = scenario.catalog.gpus[work.gpu]
    peak = gpu.dense_tflops(work.precision)
    flop = training_flop(work.active, work.training_tokens)
    ideal = training_gpu_hours(flop, peak, work.mfu)
    mtbf, interval, goodput = checkpointing(work)
    hours = ideal / goodput
    if not (math.isfinite(hours) and hours < 1e15):
        raise ValueError(f"the run needs {hours:.3g} GPU-hours: check training_tokens, mfu and the model size")
    wall_hours = hours / work.cluster_gpus
    months = wall_hours / HOURS_PER_MONTH
    state = work.total_parameters * work.state_bytes_per_parameter
    activations = work.activation_gb_per_gpu * 1e9
    costs = {
        option: {name: float(value) * months
                 for name, value in monthly_cost_components(scenario, option, scenario.volume).items()}
        for option in present_options(scenario)
    }
    return TrainingRun(
        flop=float(flop), peak_tflops=peak, ideal_gpu_hours=float(ideal), goodput=float(goodput),
        gpu_hours=float(hours), wall_clock_days=wall_hours / 24, months=months,
        job_mtbf_hours=mtbf, checkpoint_interval_hours=interval,
        min_gpus_sharded=min_gpus_for_training_state(state, activations, gpu.memory_gb * 1e9, sharded=True),
        min_gpus_unsharded=min_gpus_for_training_state(state, activations, gpu.memory_gb * 1e9, sharded=False),
        costs=costs,
    )


def describe_training_run(scenario: Scenario, run: TrainingRun) -> str:
    """The run in a few Markdown sentences, cheapest option first."""
    currency = scenario.reporting_currency
    work = scenario.workload
    ranked = sorted(run.costs, key=run.total)
    lines = [
        f"**{scenario.title}**",
        "",
        f"6 · N · D = 6 × {work.active:.3g} × {work.training_tokens:.3g} = **{run.flop:.3g} FLOP**. "
        f"At {work.mfu:.1%} MFU of the {run.peak_tflops:,.0f} TFLOP/s dense {work.precision.upper()} peak of "
        f"the {work.gpu}: **{run.ideal_gpu_hours / 1e6:,.3f} M GPU-hours**"
        + (f", **{run.gpu_hours / 1e6:,.3f} M** at a goodput of {run.goodput:.1%}" if run.goodput < 1 else "")
        + f"; **{run.wall_clock_days:,.1f} days** on {work.cluster_gpus:,} GPUs.",
        "",
        "Cost of the run: " + "; ".join(f"{OPTION_LABELS[o]} **{run.total(o):,.0f} {currency}**" for o in ranked) + ".",
    ]
    if run.job_mtbf_hours is not None:
        lines += ["", f"Failures: the job fails every {run.job_mtbf_hours:,.2f} h on average; checkpoints every "
                      f"{run.checkpoint_interval_hours * 60:,.1f} min ({work.goodput.interval.title()})."]
    if scenario.options.own is not None:
        from .calculator import own_capex_lines

        own = scenario.options.own
        capex = float(sum(own_capex_lines(scenario, float(own.server_count)).values()))
        lines += ["", f"The own cluster is charged only the {run.months:,.2f} months of depreciation and running "
                      f"costs the run takes; buying it costs **{capex:,.0f} {currency}** up front, which pays off "
                      f"only if it stays busy for the rest of its {own.depreciation_months}-month life."]
    from .summary import estimates

    caution = estimates(scenario)
    if caution:
        lines += ["", "**Caution:** this result rests on unsourced estimates (quality grade U):", ""]
        lines += [f"- {e}" for e in caution]
    if scenario.description:
        lines += ["", f"_{scenario.description.strip()}_"]
    return "\n".join(lines)


def with_overrides(scenario: Scenario, **overrides) -> Scenario:
    """The scenario with some of its training run's inputs replaced, validated afresh.

    Parameters
    ----------
    scenario
        A training scenario.
    **overrides
        Any of ``active_parameters``, ``training_tokens``, ``gpu``, ``cluster_gpus``,
        ``mfu``, ``failures_per_gpu_per_year``, ``checkpoint_write_minutes``; a value of
        ``None`` keeps the scenario's. Giving ``active_parameters`` drops the model id.

    Raises
    ------
    ValueError
        An override the workload cannot take (a failure setting without a failure
        model in the scenario, an unknown name).
    pydantic.ValidationError
        The new inputs break a rule (e.g. MFU above 1, a GPU the options do not use).
    """
    known = {"active_parameters", "training_tokens", "gpu", "cluster_gpus", "mfu",
             "failures_per_gpu_per_year", "checkpoint_write_minutes"}
    unknown = set(overrides) - known
    if unknown:
        raise ValueError(f"unknown training override(s): {', '.join(sorted(unknown))}")
    data = scenario.model_dump(mode="json", exclude_defaults=True)
    work = data["workload"]
    if work.get("kind") != "training":
        raise ValueError("overrides apply to a training scenario (workload kind: training)")
    for name, value in overrides.items():
        if value is None:
            continue
        if name in {"failures_per_gpu_per_year", "checkpoint_write_minutes"}:
            if "goodput" not in work:
                raise ValueError(f"{name} needs a failure model (workload.goodput) in the scenario")
            work["goodput"][name] = value
            continue
        if name == "active_parameters":
            work.pop("model", None)
        work[name] = value
    return Scenario.model_validate(data, context={"catalog": scenario.catalog})


def run_table(scenario: Scenario, run: TrainingRun):
    """The run's figures with their units, as a two-column table of text."""
    import pandas as pd

    work = scenario.workload
    rows = [
        ("compute, 6 · N · D", f"{run.flop:.4g}", "FLOP"),
        (f"dense {work.precision.upper()} peak of the {work.gpu}", f"{run.peak_tflops:,.0f}", "TFLOP/s per GPU"),
        ("MFU", f"{work.mfu:.1%}", "-"),
        ("ideal GPU-hours", f"{run.ideal_gpu_hours:,.0f}", "GPU-h"),
        ("goodput", f"{run.goodput:.2%}", "share of wall-clock time"),
        ("GPU-hours to pay for", f"{run.gpu_hours:,.0f}", "GPU-h"),
        ("wall-clock time", f"{run.wall_clock_days:,.1f}", f"days on {work.cluster_gpus:,} GPUs"),
        ("job mean time between failures",
         "no failure model" if run.job_mtbf_hours is None else f"{run.job_mtbf_hours:,.2f}", "h"),
        ("checkpoint interval",
         "no failure model" if run.checkpoint_interval_hours is None else f"{run.checkpoint_interval_hours * 60:,.1f}",
         "min"),
        ("fewest GPUs holding the training state, sharded (ZeRO-3)", f"{run.min_gpus_sharded:,}", "GPU"),
        ("fewest GPUs holding the training state, unsharded",
         "does not fit on one GPU" if run.min_gpus_unsharded is None else f"{run.min_gpus_unsharded:,}", "GPU"),
    ]
    rows += [(f"cost with {OPTION_LABELS[o]}", f"{run.total(o):,.0f}", scenario.reporting_currency)
             for o in sorted(run.costs, key=run.total)]
    return pd.DataFrame(rows, columns=["figure", "value", "unit"])


def describe_cost_bars(scenario: Scenario, run: TrainingRun) -> str:
    """Alt text of :func:`costmodel.charts.run_cost_bars`."""
    return "Bars of the training run's cost: " + "; ".join(
        f"{OPTION_LABELS[o]} {run.total(o):,.0f} {scenario.reporting_currency}" for o in run.costs) + "."


def describe_tradeoff(scenario: Scenario, run: TrainingRun) -> str:
    """Alt text of :func:`costmodel.charts.checkpoint_tradeoff`."""
    return (f"Curve of time lost against checkpoint interval; job MTBF {run.job_mtbf_hours:,.2f} h; "
            f"the interval used, {run.checkpoint_interval_hours * 60:,.1f} min, loses {1 - run.goodput:.1%}.")

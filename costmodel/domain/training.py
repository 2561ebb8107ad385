"""A training run: compute, GPU-hours, goodput, wall-clock time and the cost with each option.

References
----------
.. [1] Kaplan et al. (2020), arXiv 2001.08361, §2.1: C ≈ 6·N·D.
.. [2] DeepSeek-AI (2024), "DeepSeek-V3 Technical Report", arXiv 2412.19437, Table 1.
.. [3] Dubey et al. (2024), "The Llama 3 Herd of Models", arXiv 2407.21783, Table 4.
"""

from __future__ import annotations

import math

import numpy as np

from .. import formulas
from ..resolved import Resolved, TrainingInputs, as_resolved
from ..results import TrainingRun
from ..schema import Scenario
from ..units import HOURS_PER_MONTH
from .costs import monthly_cost_components


def checkpointing(run: TrainingInputs) -> tuple[float | None, float | None, float]:
    """Job MTBF, the checkpoint interval and the goodput of a training run. ([h], [h], [-])

    With no failure model, or a failure rate of 0, the job never fails: (None, None, 1).
    """
    settings = run.goodput
    if settings is None or np.all(np.asarray(settings.failures_per_gpu_per_year) == 0):
        return None, None, 1.0
    mtbf = formulas.job_mtbf_hours(settings.failures_per_gpu_per_year, run.cluster_gpus)
    interval = (formulas.daly_interval if settings.interval == "daly" else formulas.young_interval)(
        settings.write_hours, mtbf)
    return mtbf, interval, formulas.goodput_fraction(interval, settings.write_hours, settings.restart_hours, mtbf)


def training_run(scenario: Scenario | Resolved) -> TrainingRun:
    """Work out the scenario's training run and what it costs with each option.

    While the run lasts, the cluster is busy all month (``cluster_gpus`` × 730 GPU-hours),
    so the cost of each option is its monthly cost at that volume times the run's
    wall-clock months. For rental billed per GPU-hour used this is exactly GPU-hours ×
    price; for the own cluster it is the months of depreciation and running costs the
    run takes (the cluster's other months are not charged to it).

    Raises
    ------
    ValueError
        The scenario's workload is not a training run, or its GPU-hours are not finite.
    """
    r = as_resolved(scenario)
    run = r.workload.training
    if run is None:
        raise ValueError("the scenario's workload is not a training run (kind: training)")
    flop = formulas.training_flop(run.active_parameters, run.training_tokens)
    ideal = formulas.training_gpu_hours(flop, run.peak_tflops, run.mfu)
    mtbf, interval, goodput = checkpointing(run)
    hours = ideal / goodput
    if not (math.isfinite(hours) and hours < 1e15):
        raise ValueError(f"the run needs {hours:.3g} GPU-hours: check training_tokens, mfu and the model size")
    wall_hours = hours / run.cluster_gpus
    months = wall_hours / HOURS_PER_MONTH
    state = run.total_parameters * run.state_bytes_per_parameter
    costs = {
        option: {name: float(value) * months for name, value in monthly_cost_components(r, option, r.volume).items()}
        for option in r.options
    }
    return TrainingRun(
        flop=float(flop), peak_tflops=run.peak_tflops, ideal_gpu_hours=float(ideal), goodput=float(goodput),
        gpu_hours=float(hours), wall_clock_days=wall_hours / 24, months=months,
        job_mtbf_hours=None if mtbf is None else float(mtbf),
        checkpoint_interval_hours=None if interval is None else float(interval),
        min_gpus_sharded=formulas.min_gpus_for_training_state(state, run.activation_bytes_per_gpu,
                                                              run.gpu_memory_bytes, sharded=True),
        min_gpus_unsharded=formulas.min_gpus_for_training_state(state, run.activation_bytes_per_gpu,
                                                                run.gpu_memory_bytes, sharded=False),
        costs=costs,
    )

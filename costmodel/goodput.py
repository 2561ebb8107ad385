"""Goodput of a long training job: failures, checkpoints and the time they cost.

A job on ``n`` GPUs, each failing at rate λ per year, fails every M = 8,760 / (λ·n)
hours on average (exponential failures). Writing a checkpoint takes δ, restarting takes
R, and a failure loses the work since the last checkpoint. The checkpoint interval τ
trades write time (more often) against lost work (less often).

Functions broadcast over numpy arrays of intervals. Times are in hours unless stated.

References
----------
.. [1] Young, J. W. (1974), "A first order approximation to the optimum checkpoint
   interval", Communications of the ACM 17(9): 530-531.
.. [2] Daly, J. T. (2006), "A higher order estimate of the optimum checkpoint interval
   for restart dumps", Future Generation Computer Systems 22(3): 303-312.
.. [3] Dubey et al. (2024), "The Llama 3 Herd of Models", arXiv 2407.21783, §3.3.4:
   419 unexpected interruptions in 54 days on up to 16,384 H100.
"""

from __future__ import annotations

import numpy as np

from .units import HOURS_PER_YEAR


def job_mtbf_hours(failures_per_gpu_per_year: float, gpus: int) -> float | None:
    """Mean time between failures of a job on ``gpus`` GPUs. [h]

    Parameters
    ----------
    failures_per_gpu_per_year
        Job-interrupting failures per GPU per year. [1/(GPU·year)]
    gpus
        GPUs the job runs on. [GPU]

    Returns
    -------
    float or None
        ``None`` when the failure rate is 0 (the job never fails), never infinity.

    Examples
    --------
    Llama 3: 419 interruptions in 54 days on 16,384 GPUs is one every 3.09 hours.

    >>> rate = 419 / (54 / 365 * 16384)
    >>> round(job_mtbf_hours(rate, 16384), 2)
    3.09
    """
    if failures_per_gpu_per_year == 0:
        return None
    return HOURS_PER_YEAR / (failures_per_gpu_per_year * gpus)


def young_interval(write_hours: float, mtbf_hours: float) -> float:
    """Young's (1974) optimum checkpoint interval τ = √(2·δ·M). [h]"""
    return float(np.sqrt(2.0 * write_hours * mtbf_hours))


def daly_interval(write_hours: float, mtbf_hours: float) -> float:
    """Daly's (2006) higher-order optimum checkpoint interval. [h]

    τ = √(2δM)·[1 + ⅓·√(δ/2M) + (1/9)·(δ/2M)] − δ for δ < 2M, and τ = M otherwise
    (Daly 2006, eq. 37).
    """
    if write_hours >= 2.0 * mtbf_hours:
        return float(mtbf_hours)
    x = write_hours / (2.0 * mtbf_hours)
    return float(np.sqrt(2.0 * write_hours * mtbf_hours) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - write_hours)


def goodput_fraction(interval_hours, write_hours: float, restart_hours: float, mtbf_hours: float | None):
    """Expected share of wall-clock time that trains: T_s / T_w (Daly 2006, eq. 20). [-]

    τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)), computed without subtracting from 1, so a job
    that can barely progress gets a tiny positive share rather than 0. With no failures:
    τ / (τ + δ).
    """
    tau = np.asarray(interval_hours, dtype=float)
    if mtbf_hours is None:
        good = tau / (tau + write_hours)
    else:
        m = mtbf_hours
        with np.errstate(over="ignore"):
            good = tau / (m * np.exp(restart_hours / m) * np.expm1((tau + write_hours) / m))
    return float(good) if np.ndim(interval_hours) == 0 else good


def time_lost_fraction(interval_hours, write_hours: float, restart_hours: float, mtbf_hours: float | None):
    """Expected share of wall-clock time lost to checkpoints, restarts and rework. [-]

    Daly's (2006, eq. 20) expected wall-clock time for solve time T_s is
    T_w = M·e^(R/M)·(e^((τ+δ)/M) − 1)·T_s / τ, so the share lost is 1 − T_s / T_w.
    With no failures (``mtbf_hours`` is None) only the checkpoint writes are lost:
    δ / (τ + δ).

    Parameters
    ----------
    interval_hours
        Checkpoint interval τ, scalar or array. [h]
    write_hours, restart_hours
        Checkpoint write time δ and restart time R. [h]
    mtbf_hours
        Job mean time between failures M, or None for none. [h]
    """
    tau = np.asarray(interval_hours, dtype=float)
    if mtbf_hours is None:
        lost = write_hours / (tau + write_hours)
    else:
        m = mtbf_hours
        wall_per_solve = m * np.exp(restart_hours / m) * np.expm1((tau + write_hours) / m) / tau
        lost = 1.0 - 1.0 / wall_per_solve
    return float(lost) if np.ndim(interval_hours) == 0 else lost

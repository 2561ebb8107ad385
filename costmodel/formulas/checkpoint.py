"""Failures and checkpoints of a long training job: job MTBF, optimum intervals, goodput.

A job on n GPUs, each failing at rate λ per year, fails every M = 8,760 / (λ·n) hours on
average (exponential failures). Writing a checkpoint takes δ, restarting takes R, and a
failure loses the work since the last checkpoint. The interval τ trades write time (more
often) against lost work (less often). Times are in hours unless stated; every function
broadcasts over arrays.

References
----------
.. [1] Young, J. W. (1974), "A first order approximation to the optimum checkpoint
   interval", Communications of the ACM 17(9): 530-531. doi:10.1145/361147.361115
.. [2] Daly, J. T. (2006), "A higher order estimate of the optimum checkpoint interval
   for restart dumps", Future Generation Computer Systems 22(3): 303-312.
   doi:10.1016/j.future.2004.11.016
.. [3] The recovery-time variant τ = √(2δ(M + R)): Young's first-order derivation with the
   time between failures lengthened by the recovery time R, a common variant in practice
   (Daly 2006 carries R through the exact solution; it cancels at first order).
.. [4] Dubey et al. (2024), "The Llama 3 Herd of Models", arXiv 2407.21783, §3.3.4:
   419 unexpected interruptions in 54 days on up to 16,384 H100.
.. [5] O'Connor, P. and Kleyner, A. (2012), *Practical Reliability Engineering*, 5th ed., Wiley,
   §6.2: a series system of components with constant failure rates fails at their sum,
   MTBF = 1 / Σ λ.
"""

from __future__ import annotations

import numpy as np

from ..units import HOURS_PER_YEAR
from .shapes import Numbers, NumbersOrList, Values, like


def job_mtbf_hours(failures_per_gpu_per_year: Numbers, gpus: Numbers) -> Values:
    """Mean time between failures of a job on ``gpus`` GPUs. [h]

    Parameters
    ----------
    failures_per_gpu_per_year
        Job-interrupting failures per GPU per year, > 0. [1/(GPU·year)]
    gpus
        GPUs the job runs on. [GPU]

    Raises
    ------
    ValueError
        A failure rate of 0: the job never fails and has no MTBF (callers say "no failure
        model" instead of dividing by zero).

    Notes
    -----
    M = 8,760 / (λ · n).

    References
    ----------
    .. [1] O'Connor, P. and Kleyner, A. (2012), *Practical Reliability Engineering*, 5th ed., Wiley, §6.2 (constant
       failure rates of a series system add; MTBF = 1 / Σ λ).

    Examples
    --------
    Llama 3: 419 interruptions in 54 days on 16,384 GPUs is one every 3.09 hours.

    >>> rate = 419 / (54 / 365 * 16384)
    >>> round(job_mtbf_hours(rate, 16384), 2)
    3.09
    """
    if np.any(np.asarray(failures_per_gpu_per_year) <= 0):
        raise ValueError("a job MTBF needs a failure rate above 0")
    return HOURS_PER_YEAR / (failures_per_gpu_per_year * gpus)


def young_interval(write_hours: NumbersOrList, mtbf_hours: Numbers) -> Values:
    """Young's (1974) optimum checkpoint interval. [h]

    Parameters
    ----------
    write_hours
        Time to write one checkpoint, δ. [h]
    mtbf_hours
        Job mean time between failures, M. [h]

    Notes
    -----
    τ = √(2·δ·M).

    References
    ----------
    .. [1] Young, J. W. (1974), "A first order approximation to the optimum checkpoint interval", Communications of
       the ACM 17(9): 530-531. doi:10.1145/361147.361115

    Examples
    --------
    δ = 5 min, M = 180 min:

    >>> round(young_interval(5 / 60, 3.0) * 60, 2)
    42.43
    """
    return like(np.sqrt(2.0 * np.asarray(write_hours) * mtbf_hours), write_hours, mtbf_hours)


def daly_interval(write_hours: NumbersOrList, mtbf_hours: NumbersOrList) -> Values:
    """Daly's (2006) higher-order optimum checkpoint interval. [h]

    Parameters
    ----------
    write_hours
        Time to write one checkpoint, δ. [h]
    mtbf_hours
        Job mean time between failures, M. [h]

    Notes
    -----
    τ = √(2δM)·[1 + ⅓·√(δ/2M) + (1/9)·(δ/2M)] − δ for δ < 2M, and τ = M otherwise
    (Daly 2006, eq. 37).

    References
    ----------
    .. [1] Daly, J. T. (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps",
       Future Generation Computer Systems 22(3): 303-312, eq. 37. doi:10.1016/j.future.2004.11.016

    Examples
    --------
    δ = 5 min, M = 180 min:

    >>> round(daly_interval(5 / 60, 3.0) * 60, 2)
    39.16
    """
    write = np.asarray(write_hours, dtype=float)
    mtbf = np.asarray(mtbf_hours, dtype=float)
    x = write / (2.0 * mtbf)
    tau = np.sqrt(2.0 * write * mtbf) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - write
    return like(np.where(write >= 2.0 * mtbf, mtbf, tau), write_hours, mtbf_hours)


def interval_with_restart(write_hours: NumbersOrList, mtbf_hours: Numbers, restart_hours: Numbers) -> Values:
    """The first-order optimum interval with the recovery time counted: √(2·δ·(M + R)). [h]

    Parameters
    ----------
    write_hours, mtbf_hours, restart_hours
        δ, M and R. [h]

    Notes
    -----
    τ = √(2·δ·(M + R)): Young's interval with the time between failures lengthened by the
    time to recover, a common variant (e.g. Daly 2006, §5 discusses the restart term).

    References
    ----------
    .. [1] Young, J. W. (1974), "A first order approximation to the optimum checkpoint interval", Communications of
       the ACM 17(9): 530-531. doi:10.1145/361147.361115
    .. [2] Daly, J. T. (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps",
       Future Generation Computer Systems 22(3): 303-312, §5 (the restart term). doi:10.1016/j.future.2004.11.016

    Examples
    --------
    >>> round(interval_with_restart(5 / 60, 3.0, 0.05) * 60, 2)
    42.78
    """
    return like(
        np.sqrt(2.0 * np.asarray(write_hours) * (mtbf_hours + restart_hours)), write_hours, mtbf_hours, restart_hours
    )


def goodput_fraction(
    interval_hours: NumbersOrList, write_hours: Numbers, restart_hours: Numbers, mtbf_hours: Numbers | None = None
) -> Values:
    """Expected share of wall-clock time that trains: T_s / T_w (Daly 2006, eq. 20). [-]

    Parameters
    ----------
    interval_hours
        Checkpoint interval τ. [h]
    write_hours, restart_hours
        Checkpoint write time δ and restart time R. [h]
    mtbf_hours
        Job mean time between failures M; None for a job that never fails. [h]

    Notes
    -----
    τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)), computed without subtracting from 1, so a job that
    can barely progress gets a tiny positive share rather than 0. With no failures:
    τ / (τ + δ).

    References
    ----------
    .. [1] Daly, J. T. (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps",
       Future Generation Computer Systems 22(3): 303-312, eq. 20. doi:10.1016/j.future.2004.11.016

    Examples
    --------
    >>> round(goodput_fraction(1.0, 0.1, 0.0), 4)
    0.9091
    """
    tau = np.asarray(interval_hours, dtype=float)
    if mtbf_hours is None:
        good = tau / (tau + write_hours)
    else:
        m = mtbf_hours
        with np.errstate(over="ignore"):
            good = tau / (m * np.exp(restart_hours / m) * np.expm1((tau + write_hours) / m))
    return like(good, interval_hours, write_hours, restart_hours, mtbf_hours)


def time_lost_fraction(
    interval_hours: Numbers, write_hours: Numbers, restart_hours: Numbers, mtbf_hours: Numbers | None = None
) -> Values:
    """Expected share of wall-clock time lost to checkpoints, restarts and rework. [-]

    Parameters
    ----------
    interval_hours
        Checkpoint interval τ, scalar or array. [h]
    write_hours, restart_hours
        Checkpoint write time δ and restart time R. [h]
    mtbf_hours
        Job mean time between failures M, or None for none. [h]

    Notes
    -----
    1 − :func:`goodput_fraction`: with Daly's (2006, eq. 20) expected wall-clock time for
    solve time T_s, T_w = M·e^(R/M)·(e^((τ+δ)/M) − 1)·T_s / τ, the share lost is 1 − T_s / T_w.
    With no failures only the checkpoint writes are lost: δ / (τ + δ).

    References
    ----------
    .. [1] Daly, J. T. (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps",
       Future Generation Computer Systems 22(3): 303-312, eq. 20. doi:10.1016/j.future.2004.11.016

    Examples
    --------
    >>> round(time_lost_fraction(1.0, 0.1, 0.0), 4)
    0.0909
    """
    return 1.0 - goodput_fraction(interval_hours, write_hours, restart_hours, mtbf_hours)


def failures_per_gpu_per_year_from_count(interruptions: Numbers, days: Numbers, gpus: Numbers) -> Values:
    """Failure rate per GPU per year from an observed count: k / (d / 365 × n). [1/(GPU·year)]

    Parameters
    ----------
    interruptions
        Job interruptions observed, k. [-]
    days
        Days observed, d. [d]
    gpus
        GPUs the job ran on, n. [GPU]

    Notes
    -----
    λ = k / (d/365 · n), so the job MTBF on n GPUs, 8,760 / (λ·n), is d·24 / k.

    References
    ----------
    Definition; no outside source (a rate from an observed count); the example's count is from Dubey et al. (2024),
    "The Llama 3 Herd of Models", arXiv 2407.21783, §3.3.4.

    Examples
    --------
    Llama 3 (Dubey et al. 2024, §3.3.4): 419 unexpected interruptions in 54 days on 16,384 GPUs.

    >>> round(failures_per_gpu_per_year_from_count(419, 54, 16384), 5)
    0.17286
    """
    return interruptions / (days / 365.0 * gpus)


def checkpoint_steps(interval_hours: NumbersOrList, step_seconds: Numbers) -> Values:
    """Training steps in a checkpoint interval, rounded down to whole steps, at least 1. [steps]

    Parameters
    ----------
    interval_hours
        Checkpoint interval τ. [h]
    step_seconds
        Wall-clock time of one training step. [s]

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    A 39.16-minute interval at 10 s a step:

    >>> int(checkpoint_steps(39.16 / 60, 10.0))
    234
    """
    steps = np.maximum(1.0, np.floor(np.asarray(interval_hours, dtype=float) * 3600.0 / step_seconds + 1e-9))
    return like(steps, interval_hours, step_seconds)


def gpu_hours_lost_per_failure(
    gpus: Numbers, interval_hours: Numbers, write_hours: Numbers, restart_hours: Numbers
) -> Values:
    """Expected GPU-hours lost to one failure: n × (R + (τ + δ) / 2). [GPU-h]

    Parameters
    ----------
    gpus
        GPUs the job runs on, n. [GPU]
    interval_hours, write_hours, restart_hours
        Checkpoint interval τ, write time δ, time to recover (MTTR) R. [h]

    Notes
    -----
    A failure strikes on average half-way through a compute-plus-write segment of τ + δ, so
    the work redone is (τ + δ)/2, plus the recovery time R during which all n GPUs wait
    (the first-order model behind Young 1974).

    References
    ----------
    .. [1] Young, J. W. (1974), "A first order approximation to the optimum checkpoint interval", Communications of
       the ACM 17(9): 530-531. doi:10.1145/361147.361115 (the first-order model: a failure costs half a segment).

    Examples
    --------
    16,384 GPUs, τ = 13.3 min, δ = 0.5 min, R = 3 min: 16,384 × (3 + 6.9) / 60.

    >>> round(gpu_hours_lost_per_failure(16384, 13.3 / 60, 0.5 / 60, 3 / 60))
    2703
    """
    return gpus * (restart_hours + (interval_hours + write_hours) / 2.0)


def cluster_failures_per_year(
    gpu_rate: Numbers,
    gpus: Numbers,
    host_rate: Numbers = 0.0,
    hosts: Numbers = 0,
    network_rate: Numbers = 0.0,
    network_components: Numbers = 0,
) -> Values:
    """Failures a year of a job's cluster, from each component's rate and count. [1/year]

    Parameters
    ----------
    gpu_rate, host_rate, network_rate
        Job-interrupting failures per year of one GPU, one host (server without its GPUs: CPU,
        memory, NIC, power supply, ...), one network component (a switch or a link, as the
        count says). [1/year per component]
    gpus, hosts, network_components
        How many of each the job runs on. [-]

    Notes
    -----
    Λ = λ_GPU·n_GPU + λ_host·n_host + λ_net·n_net: the job stops when any component fails
    (a series system), so the rates add. The job MTBF is 8,760 / Λ hours
    (:func:`mtbf_hours`); per GPU, Λ / n_GPU is the rate :func:`job_mtbf_hours` takes.

    References
    ----------
    .. [1] O'Connor, P. and Kleyner, A. (2012), *Practical Reliability Engineering*, 5th ed., Wiley, §6.2 (constant
       failure rates of a series system add; MTBF = 1 / Σ λ).

    Examples
    --------
    Llama 3's 54 days on 16,384 GPUs in 2,048 hosts: 256 GPU, 32 host-maintenance and 35
    switch-and-cable interruptions (Table 5), on 35 network components counted as one each
    (rates per component per year = count / (54/365) / components):

    >>> t = 54 / 365
    >>> round(cluster_failures_per_year(256 / t / 16384, 16384, 32 / t / 2048, 2048, 1 / t, 35) * t, 6)
    323.0
    """
    return gpu_rate * gpus + host_rate * hosts + network_rate * network_components


def mtbf_hours(failures_per_year: Numbers) -> Values:
    """Mean time between failures of a system failing ``failures_per_year`` times a year. [h]

    Raises
    ------
    ValueError
        A rate of 0 or less (a system that never fails has no MTBF).

    Notes
    -----
    MTBF = 8,760 / Λ (constant failure rates).

    References
    ----------
    .. [1] O'Connor, P. and Kleyner, A. (2012), *Practical Reliability Engineering*, 5th ed., Wiley, §6.2 (constant
       failure rates of a series system add; MTBF = 1 / Σ λ).

    Examples
    --------
    Llama 3's 323 hardware interruptions of GPU, host and network in 54 days:

    >>> round(mtbf_hours(323 / (54 / 365)), 3)
    4.012
    """
    if np.any(np.asarray(failures_per_year) <= 0):
        raise ValueError("an MTBF needs a failure rate above 0")
    return HOURS_PER_YEAR / failures_per_year

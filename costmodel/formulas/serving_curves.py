"""Serving at a latency target: throughput–interactivity curves, prefill and decode, pools, redundancy.

A serving engine trades per-user speed for throughput: the more requests it batches (its
concurrency), the more output tokens per second each GPU delivers and the slower each user's
stream and first token. A fleet sized for a chat product must run at the point of that curve
that still meets the latency target, not at its maximum throughput.

Words (as in MLPerf Inference and NVIDIA's NIM/AIPerf benchmarks):

* **TTFT**: time to first token [s];
* **TPOT** (inter-token latency): time per output token of one request [s]; its inverse is the
  **per-user speed** [tokens/s/user];
* **throughput**: output tokens per second per GPU [output tokens/s/GPU];
* **concurrency** b: requests in flight on one replica; by Little's law
  b = throughput × GPUs per replica × TPOT.

The first-principles curve extends the decode/prefill roofline of
:mod:`costmodel.formulas.serving` over the batch: one decode step reads the active weights
once and the KV cache of the batch at memory bandwidth; every output token a user receives
also waits, on average, for the prefill of the b/O requests that join the batch per step
(aggregated serving with chunked prefill).

References
----------
.. [1] Pope et al. (2022), "Efficiently Scaling Transformer Inference", arXiv 2211.05102.
.. [2] Zhong et al. (2024), "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized
   Large Language Model Serving", OSDI: separate prefill and decode pools sized from their own
   rates; prefill modelled as an M/D/1-like queue whose waiting time sets TTFT.
.. [3] Kleinrock (1975), *Queueing Systems*, vol. 1: in an M/M/1 queue the sojourn time is
   exponential with mean service time / (1 − ρ), so its q-quantile is −ln(1 − q) times that.
.. [4] MLCommons, MLPerf Inference rules: Server scenario latency bounds on TTFT (p99) and TPOT.
"""

from __future__ import annotations

import math

import numpy as np

PERCENTILE_FACTORS: dict[str, float] = {
    "mean": 1.0,
    "p50": math.log(2.0),
    "p90": math.log(10.0),
    "p99": math.log(100.0),
}
"""q-quantile of an exponential distribution over its mean, −ln(1 − q) (p50 0.69, p90 2.30, p99 4.61). [-]"""


def ttft_at_statistic(ttft, stated: str, wanted: str):
    """A TTFT stated as one statistic, expressed as another, assuming exponential spread. [s]

    A measured mean (or median) is raised to the p90 a target asks for; a measured p99 is
    never lowered (a higher percentile than wanted is kept as it is: conservative).

    Parameters
    ----------
    ttft
        The TTFT as stated. [s]
    stated, wanted
        ``mean``, ``p50``, ``p90`` or ``p99``.

    Notes
    -----
    ttft_wanted = ttft × max(1, f(wanted) / f(stated)) with f(q) = −ln(1 − q) (1 for the mean),
    the quantiles of an exponential sojourn time [3].

    Examples
    --------
    >>> round(ttft_at_statistic(0.4, "mean", "p90"), 3)
    0.921
    >>> ttft_at_statistic(0.46, "p99", "p90")
    0.46
    """
    return ttft * max(1.0, PERCENTILE_FACTORS[wanted] / PERCENTILE_FACTORS[stated])


def prefill_seconds_per_token(active_parameters, dense_tflops, prefill_efficiency):
    """GPU-seconds to prefill one input token: 2·N / (P · e_prefill). [GPU-s/token]

    Examples
    --------
    Llama 3.3 70B in FP8 on an H100 at half its dense FP8 peak:

    >>> round(prefill_seconds_per_token(70.6e9, 1979.0, 0.5) * 1e6, 2)
    142.7
    """
    return 2.0 * active_parameters / (dense_tflops * 1e12 * prefill_efficiency)


def convert_point_to_mix(
    throughput_per_gpu,
    tokens_per_second_per_user,
    ttft,
    gpus_per_replica,
    point_input_tokens,
    point_output_tokens,
    input_tokens,
    output_tokens,
    prefill_gpu_seconds_per_token,
):
    """A measured operating point moved from its own request shape to the workload's.

    Parameters
    ----------
    throughput_per_gpu
        T0 at the point. [output tokens/s/GPU]
    tokens_per_second_per_user
        s0 = 1 / TPOT0 at the point. [tokens/s/user]
    ttft
        At the point. [s]
    gpus_per_replica
        G. [GPU]
    point_input_tokens, point_output_tokens
        I0, O0 of the benchmark. [tokens]
    input_tokens, output_tokens
        I, O of the workload's requests. [tokens]
    prefill_gpu_seconds_per_token
        c = 2N / (P · e_prefill). [GPU-s/token]

    Returns
    -------
    tuple
        (throughput per GPU [output tokens/s/GPU], per-user speed [tokens/s/user], TTFT [s]).

    Notes
    -----
    With r = I/O input tokens per output token, the GPU-time of one output token is the
    decode time plus the prefill of its share of the prompt, so only the prefill part moves:

    * 1/T = 1/T0 + c · (r − r0);
    * TPOT = TPOT0 + b · c · (r − r0) / G (the prefills of the b/O requests joining per step),
      b = T0 · G / s0 the requests being decoded (Little's law; past saturation a benchmark's
      stated concurrency also counts requests queueing for their first token);
    * TTFT = TTFT0 + c · (I − I0) / G (the request's own prefill).

    The decode part is kept as measured (the KV cache read of a longer context is not moved).

    Raises
    ------
    ValueError
        The conversion leaves no time for decoding (a much shorter prompt than measured).

    Examples
    --------
    A 5,000/500 point moved to a 1,000/1,000 workload gets faster:

    >>> t, s, f = convert_point_to_mix(311.7, 25.8, 0.689, 2, 5000, 500, 1000, 1000, 142.7e-6)
    >>> round(t), round(s, 1), round(float(f), 3)
    (520, 43.0, 0.404)
    """
    r0 = point_input_tokens / point_output_tokens
    r = input_tokens / output_tokens
    delta = prefill_gpu_seconds_per_token * (r - r0)
    per_token = 1.0 / throughput_per_gpu + delta
    running = throughput_per_gpu * gpus_per_replica / tokens_per_second_per_user
    tpot = 1.0 / tokens_per_second_per_user + running * delta / gpus_per_replica
    first = ttft + prefill_gpu_seconds_per_token * (input_tokens - point_input_tokens) / gpus_per_replica
    if np.any(np.asarray(per_token) <= 0) or np.any(np.asarray(tpot) <= 0):
        raise ValueError(
            "the measured point's prefill share is larger than its whole time; the prefill "
            "efficiency is too low for this point"
        )
    return (
        1.0 / per_token,
        1.0 / tpot,
        np.maximum(first, prefill_gpu_seconds_per_token * input_tokens / gpus_per_replica),
    )


def decode_only_point(
    throughput_per_gpu,
    tokens_per_second_per_user,
    gpus_per_replica,
    input_tokens,
    output_tokens,
    prefill_gpu_seconds_per_token,
):
    """An aggregated operating point with its prefill taken out: the decode pool's point.

    Returns
    -------
    tuple
        (throughput per GPU [output tokens/s/GPU], per-user speed [tokens/s/user]) of a pool that
        only decodes, its prompts prefilled elsewhere.

    Notes
    -----
    1/T_decode = 1/T − c · r; TPOT_decode = TPOT − b · c · r / G with b = T · G / s
    (see :func:`convert_point_to_mix`).

    Examples
    --------
    >>> t, s = decode_only_point(520.0, 44.0, 2, 1000, 1000, 142.7e-6)
    >>> round(t), round(s, 1)
    (562, 47.5)
    """
    return convert_point_to_mix(
        throughput_per_gpu,
        tokens_per_second_per_user,
        0.0,
        gpus_per_replica,
        input_tokens,
        output_tokens,
        0.0,
        output_tokens,
        prefill_gpu_seconds_per_token,
    )[:2]


def roofline_curve(
    batch_sizes,
    active_parameters,
    bytes_per_weight,
    kv_bytes_per_token,
    memory_bandwidth_tb_s,
    dense_tflops,
    gpus_per_replica,
    input_tokens,
    output_tokens,
    decode_efficiency,
    prefill_efficiency,
    prefill=True,
    total_parameters=None,
):
    """First-principles throughput–interactivity curve over the batch size (ESTIMATE).

    Parameters
    ----------
    batch_sizes
        b, requests decoded together per replica (array). [requests]
    active_parameters, bytes_per_weight, kv_bytes_per_token
        N [-], w [B], k [B/token].
    memory_bandwidth_tb_s, dense_tflops
        B [TB/s] and P [TFLOP/s] per GPU.
    gpus_per_replica
        G. [GPU]
    input_tokens, output_tokens
        I, O per request. [tokens]
    decode_efficiency, prefill_efficiency
        Shares of bandwidth and of dense peak achieved. [-]
    prefill
        False for a decode-only pool (prompts prefilled elsewhere).
    total_parameters
        N_total of a mixture-of-experts model (None or equal to N: dense). [-]

    Returns
    -------
    tuple of arrays
        (per-user speed [tokens/s/user], throughput per GPU [output tokens/s/GPU], TTFT [s]).

    Notes
    -----
    * decode step t_d = (W_b·w + b·(I + O/2)·k) / (G · B · e_decode), W_b the weights one step
      reads: N for a dense model; for a mixture of experts N + (N_total − N)·(1 − (1 − N/N_total)^b),
      each expert touched by at least one of the b tokens (routing taken as uniform, each token
      using the share N/N_total of the expert weights; an ASSUMPTION of this estimate);
    * prefill of one request t_p = 2·N·I / (G · P · e_prefill);
    * TPOT = t_d + b · t_p / O (b/O requests join the batch each step and are prefilled);
    * throughput per GPU = b / (G · TPOT);
    * TTFT = t_p / (1 − ρ) + TPOT, ρ = (b · t_p / O) / TPOT the share of time the replica spends
      prefilling: the request's prefill queues behind others' as in an M/M/1 queue [3], then
      waits one step for its first token.

    Examples
    --------
    Llama 3.3 70B FP8 on 2 H100, 5,000/500 tokens, batch 25:

    >>> s, t, f = roofline_curve(np.array([25]), 70.6e9, 1.0, 163840.0, 3.35, 1979.0, 2, 5000, 500, 0.57, 0.5)
    >>> round(float(s[0]), 1), round(float(t[0])), round(float(f[0]), 3)
    (23.8, 298, 0.663)
    """
    b = np.asarray(batch_sizes, dtype=float)
    total = active_parameters if total_parameters is None else total_parameters
    read = active_parameters + (total - active_parameters) * (1.0 - (1.0 - active_parameters / total) ** b)
    step_bytes = read * bytes_per_weight + b * (input_tokens + output_tokens / 2) * kv_bytes_per_token
    decode = step_bytes / (gpus_per_replica * memory_bandwidth_tb_s * 1e12 * decode_efficiency)
    prefill_time = (
        2.0 * active_parameters * input_tokens / (gpus_per_replica * dense_tflops * 1e12 * prefill_efficiency)
    )
    joining = b * prefill_time / output_tokens if prefill else 0.0 * b
    tpot = decode + joining
    busy = joining / tpot  # share of the replica's time spent prefilling
    return 1.0 / tpot, b / (gpus_per_replica * tpot), prefill_time / (1.0 - busy) + tpot


def operating_point(
    concurrency, throughput_per_gpu, tokens_per_second_per_user, ttft, min_tokens_per_second=None, max_ttft=None
):
    """The highest-throughput point of a curve that meets the target: a point of the curve, never beyond.

    Parameters
    ----------
    concurrency, throughput_per_gpu, tokens_per_second_per_user, ttft
        The curve's points (arrays of one length, any order; sorted by concurrency here).
        [requests], [output tokens/s/GPU], [tokens/s/user], [s]
    min_tokens_per_second
        Slowest per-user speed allowed; None: no bound. [tokens/s/user]
    max_ttft
        Longest TTFT allowed (at the statistic the curve states); None: no bound. [s]

    Returns
    -------
    dict or None
        ``concurrency``, ``throughput_per_gpu``, ``tokens_per_second_per_user``, ``ttft``,
        ``between`` (the index of the point twice, in the sorted order) and ``fraction`` (0); None
        when no point of the curve meets the target.

    Notes
    -----
    A fleet is sized at a point that was measured (or estimated) and meets the target, never at a
    point between one that meets it and one that does not: where the target falls between two
    points, the one that meets it is taken, and the throughput between them is given up rather
    than assumed. Interpolating between two points that both meet the target cannot do better
    than the higher of them (throughput and per-user speed move in opposite directions along the
    curve, log-linearly between points), so the best point is the answer.

    Examples
    --------
    NIM 1.8.0, Llama 3.3 70B FP8 on 2 H100, 5,000/500 tokens: 25 and 50 concurrent requests
    give 26.0 and 16.7 tokens/s per user; at least 20 tokens/s is met at 25, not at 50:

    >>> p = operating_point([25, 50], [311.7, 407.19], [25.81, 16.74], [0.689, 0.835], 20.0)
    >>> p["concurrency"], p["throughput_per_gpu"]
    (25.0, 311.7)
    """
    order = np.argsort(np.asarray(concurrency, dtype=float), kind="stable")
    b = np.asarray(concurrency, dtype=float)[order]
    t = np.asarray(throughput_per_gpu, dtype=float)[order]
    s = np.asarray(tokens_per_second_per_user, dtype=float)[order]
    f = np.asarray(ttft, dtype=float)[order]
    eps = 1e-9
    meets = np.ones(len(b), dtype=bool)
    if min_tokens_per_second is not None:
        meets &= s >= min_tokens_per_second * (1 - eps)
    if max_ttft is not None:
        meets &= f <= max_ttft * (1 + eps)
    if not meets.any():
        return None
    i = int(np.flatnonzero(meets)[np.argmax(t[meets])])
    return {
        "concurrency": float(b[i]),
        "throughput_per_gpu": float(t[i]),
        "tokens_per_second_per_user": float(s[i]),
        "ttft": float(f[i]),
        "between": (int(order[i]), int(order[i])),
        "fraction": 0.0,
    }


def prefill_pool_utilisation(prefill_seconds, max_ttft, statistic: str = "p90"):
    """Highest utilisation of a prefill replica whose queue still meets a TTFT bound. [-]

    Parameters
    ----------
    prefill_seconds
        t_p, time one replica takes to prefill one request. [s]
    max_ttft
        The TTFT bound. [s]
    statistic
        Which statistic the bound is on (``mean``, ``p50``, ``p90``, ``p99``).

    Returns
    -------
    float
        ρ = 1 − f(q) · t_p / TTFT, with f the exponential quantile factor (1 for the mean);
        at most 1, and 0 or less when even an idle replica is too slow.

    Notes
    -----
    M/M/1 sojourn time [3]: its q-quantile is f(q) · t_p / (1 − ρ) ≤ TTFT.

    Examples
    --------
    >>> round(prefill_pool_utilisation(0.1, 1.0, "p90"), 3)
    0.77
    """
    return 1.0 - PERCENTILE_FACTORS[statistic] * prefill_seconds / max_ttft


def availability(failures_per_replica_per_year, recovery_hours):
    """Share of time a replica serves: MTBF / (MTBF + MTTR). [-]

    Parameters
    ----------
    failures_per_replica_per_year
        Failures that take a replica out. [1/year]
    recovery_hours
        Time to bring it back (MTTR). [h]

    Examples
    --------
    One failure a month, 4 hours to recover:

    >>> round(availability(12, 4), 5)
    0.99455
    """
    if np.all(np.asarray(failures_per_replica_per_year) == 0):
        return 1.0 + 0.0 * np.asarray(recovery_hours, dtype=float) if np.ndim(recovery_hours) else 1.0
    mtbf = 8760.0 / np.asarray(failures_per_replica_per_year, dtype=float)
    result = mtbf / (mtbf + recovery_hours)
    return float(result) if np.ndim(result) == 0 else result


def min_gpus_per_replica_nodes(
    bytes_needed: float, memory_gb_per_gpu: float, usable_memory_share: float, gpus_per_server: int, max_servers: int
) -> int | None:
    """Smallest replica whose memory holds ``bytes_needed``, spanning whole servers if it must. [GPU]

    Tries 1, 2, 4, ... up to one server, then 2, 3, ... up to ``max_servers`` whole servers
    (tensor parallelism inside a server, pipeline or expert parallelism across servers).

    Examples
    --------
    DeepSeek-V3 in FP8 (671 GB of weights plus 50 GB of KV cache) on 80 GB H800 at 90 % usable:

    >>> min_gpus_per_replica_nodes(721e9, 80, 0.9, 8, 4)
    16
    >>> min_gpus_per_replica_nodes(721e9, 80, 0.9, 8, 1) is None
    True
    """
    per_gpu = memory_gb_per_gpu * 1e9 * usable_memory_share
    degree = 1
    while degree <= gpus_per_server:
        if bytes_needed <= degree * per_gpu:
            return degree
        degree *= 2
    for servers in range(2, max_servers + 1):
        if bytes_needed <= servers * gpus_per_server * per_gpu:
            return servers * gpus_per_server
    return None

"""Sizing at a latency target: prefill and decode pools, the replicas a rate needs, the KV cache of a batch.

These are the figures the serving-target search (:mod:`costmodel.serving_target`) compares
aggregated and disaggregated serving by: the GPU time one output token costs in each mode,
the replicas a token rate needs, and the KV cache a batch holds. The words (TTFT, concurrency,
per-user speed, prefill pool) are those of :mod:`costmodel.formulas.serving_curves`.

References
----------
.. [1] Zhong et al. (2024), "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized
   Large Language Model Serving", OSDI: separate prefill and decode pools, each sized from its own
   rate, the prefill pool kept below the utilisation at which its queue breaks the TTFT bound.
.. [2] Kleinrock (1975), *Queueing Systems*, vol. 1: the q-quantile of an exponential time is
   −ln(1 − q) times its mean (the factors of ``serving_curves.PERCENTILE_FACTORS``).
.. [3] Pope et al. (2022), "Efficiently Scaling Transformer Inference", arXiv 2211.05102: the KV
   cache holds 2 · layers · KV heads · head size values per token of every request in the batch.
.. [4] Kwon et al. (2023), "Efficient Memory Management for Large Language Model Serving with
   PagedAttention", SOSP: a request's KV cache grows from its prompt by one token per output token.
"""

from __future__ import annotations

import numpy as np

from .serving_curves import PERCENTILE_FACTORS
from .shapes import Values, like

SECONDS_PER_DAY = 86_400.0
"""Seconds in a day. [s/day]"""


def prefill_seconds(prefill_gpu_seconds_per_token: Values, input_tokens: Values, gpus_per_replica: Values) -> Values:
    """Time one replica takes to prefill one request's prompt. [s]

    Parameters
    ----------
    prefill_gpu_seconds_per_token
        GPU time to prefill one input token. [GPU-s/token]
    input_tokens
        Input tokens of a request. [tokens]
    gpus_per_replica
        GPUs of the replica that prefills it. [GPU]

    Notes
    -----
    t_p = c · I / G: the prompt's GPU time shared by the replica's GPUs.

    Examples
    --------
    >>> prefill_seconds(0.0004, 2_000, 8)
    0.1
    """
    return prefill_gpu_seconds_per_token * input_tokens / gpus_per_replica


def disaggregated_ttft(prefill_seconds: Values, prefill_utilisation: Values, statistic: str = "p90") -> Values:
    """Time to first token reported for a disaggregated fleet's prefill pool, at a statistic. [s]

    Parameters
    ----------
    prefill_seconds
        t_p, time one prefill replica takes for one request (:func:`prefill_seconds`). [s]
    prefill_utilisation
        ρ, the prefill pool's utilisation ceiling
        (:func:`costmodel.formulas.serving_curves.prefill_pool_utilisation`); above 1 counts as 1. [-]
    statistic
        ``mean``, ``p50``, ``p90`` or ``p99``: a scalar.

    Notes
    -----
    TTFT = f(q) · t_p / min(ρ, 1), with f(q) = −ln(1 − q) [2] (1 for the mean): the prefill time at
    the statistic, stretched by the pool's utilisation ceiling. It is not the M/M/1 sojourn
    quantile f(q) · t_p / (1 − ρ) [2], which at the ceiling ρ equals the bound itself.

    Examples
    --------
    >>> round(disaggregated_ttft(0.1, 0.5, "mean"), 6)
    0.2
    >>> round(disaggregated_ttft(0.1, 2.0, "p90"), 6)
    0.230259
    """
    return like(prefill_seconds * PERCENTILE_FACTORS[statistic] / np.minimum(prefill_utilisation, 1.0), prefill_seconds)


def prefill_gpu_seconds_per_output_token(
    prefill_gpu_seconds_per_token: Values,
    input_tokens: Values,
    output_tokens: Values,
    target_utilisation: Values,
    prefill_utilisation: Values,
) -> Values:
    """GPU time the prefill pool spends per output token of the fleet, at its utilisation ceiling. [GPU-s/token]

    Parameters
    ----------
    prefill_gpu_seconds_per_token
        GPU time to prefill one input token. [GPU-s/token]
    input_tokens, output_tokens
        The request shape. [tokens]
    target_utilisation
        u, the utilisation the whole fleet is sized at. [-]
    prefill_utilisation
        ρ, the highest utilisation of a prefill replica that keeps TTFT in bound; above 1 counts as 1. [-]

    Notes
    -----
    c · (I / O) · max(1, u / min(ρ, 1)): the prompt's GPU time per output token, raised by u / ρ
    where the prefill pool must run below the fleet's utilisation to meet the TTFT bound [1].

    Examples
    --------
    2,000 input and 500 output tokens, the fleet at 0.8 and the prefill pool at most at 0.4:

    >>> round(prefill_gpu_seconds_per_output_token(0.0004, 2_000, 500, 0.8, 0.4), 6)
    0.0032
    """
    ceiling = np.maximum(1.0, target_utilisation / np.minimum(prefill_utilisation, 1.0))
    return like(prefill_gpu_seconds_per_token * (input_tokens / output_tokens) * ceiling, prefill_gpu_seconds_per_token)


def disaggregated_gpu_seconds_per_token(
    decode_throughput_per_gpu: Values, prefill_gpu_seconds_per_output_token: Values
) -> Values:
    """GPU time per output token of disaggregated serving: the decode pool's plus the prefill pool's. [GPU-s/token]

    Parameters
    ----------
    decode_throughput_per_gpu
        Output tokens per second one decode GPU delivers at its operating point. [output tokens/s/GPU]
    prefill_gpu_seconds_per_output_token
        The prefill pool's share (:func:`prefill_gpu_seconds_per_output_token`). [GPU-s/token]

    Notes
    -----
    1 / T_decode + p [1]; the share of the fleet's GPUs in the prefill pool is p over this.

    Examples
    --------
    >>> round(disaggregated_gpu_seconds_per_token(500.0, 0.0032), 6)
    0.0052
    """
    return 1.0 / decode_throughput_per_gpu + prefill_gpu_seconds_per_output_token


def output_rate_to_provision(tokens_per_day: Values, output_share: Values, utilisation_ceiling: Values) -> Values:
    """Output tokens per second a fleet must serve: the mean rate over the utilisation ceiling. [output tokens/s]

    Parameters
    ----------
    tokens_per_day
        Input and output tokens of the workload. [tokens/day]
    output_share
        Share of them that are output tokens. [-]
    utilisation_ceiling
        Highest average share of capacity used (target utilisation / peak-to-average). [-]

    Notes
    -----
    R = D · s / 86,400 / U.

    Examples
    --------
    A billion tokens a day, one in five an output token, at a ceiling of 0.5:

    >>> round(output_rate_to_provision(1e9, 0.2, 0.5), 2)
    4629.63
    """
    return tokens_per_day * output_share / SECONDS_PER_DAY / utilisation_ceiling


def replicas_for_rate(
    output_tokens_per_second: Values,
    gpu_seconds_per_token: Values,
    gpus_per_replica: Values,
    minimum_replicas: Values = 1,
) -> Values:
    """Whole replicas that serve an output token rate, at least a minimum. [replicas]

    Parameters
    ----------
    output_tokens_per_second
        R, the rate to serve (:func:`output_rate_to_provision`). [output tokens/s]
    gpu_seconds_per_token
        s, GPU time per output token in the serving mode. [GPU-s/token]
    gpus_per_replica
        G. [GPU]
    minimum_replicas
        Fewest replicas (2 for separate prefill and decode pools). [replicas]

    Notes
    -----
    max(⌈R · s / G − 10⁻⁹⌉, m): the tolerance keeps an exact whole number from rounding up on a
    last-digit error.

    Examples
    --------
    >>> replicas_for_rate(1_000, 0.01, 8)
    2.0
    >>> replicas_for_rate(1_000, 0.004, 8, 2)
    2.0
    """
    needed = np.ceil(output_tokens_per_second * gpu_seconds_per_token / gpus_per_replica - 1e-9)
    return like(np.maximum(needed, minimum_replicas), output_tokens_per_second, gpu_seconds_per_token)


def kv_cache_bytes_of_batch(
    batch: Values, input_tokens: Values, output_tokens: Values, kv_cache_bytes_per_token: Values
) -> Values:
    """KV cache of a batch of requests at their full length: what the replica's memory must hold. [bytes]

    Parameters
    ----------
    batch
        Requests in flight. [requests]
    input_tokens, output_tokens
        The request shape. [tokens]
    kv_cache_bytes_per_token
        [bytes/token]

    Notes
    -----
    b · (I + O) · k [3].

    Examples
    --------
    64 requests of 2,000 + 500 tokens at 320 kB per token (Llama 3 70B in 16 bits):

    >>> kv_cache_bytes_of_batch(64, 2_000, 500, 327_680) / 1e9
    52.4288
    """
    return batch * (input_tokens + output_tokens) * kv_cache_bytes_per_token


def mean_kv_cache_bytes_in_flight(
    concurrency: Values, input_tokens: Values, output_tokens: Values, kv_cache_bytes_per_token: Values
) -> Values:
    """KV cache the requests in flight hold on average: each its prompt and half its output. [bytes]

    Parameters
    ----------
    concurrency
        Requests in flight on the replica. [requests]
    input_tokens, output_tokens
        The request shape. [tokens]
    kv_cache_bytes_per_token
        [bytes/token]

    Notes
    -----
    b · (I + O / 2) · k: a request's cache grows by one token per output token [4], so over its
    decode it holds I + O / 2 tokens on average [3].

    Examples
    --------
    >>> mean_kv_cache_bytes_in_flight(64, 2_000, 500, 327_680) / 1e9
    47.18592
    """
    return concurrency * (input_tokens + output_tokens / 2) * kv_cache_bytes_per_token


__all__ = [
    "disaggregated_gpu_seconds_per_token",
    "disaggregated_ttft",
    "kv_cache_bytes_of_batch",
    "mean_kv_cache_bytes_in_flight",
    "output_rate_to_provision",
    "prefill_gpu_seconds_per_output_token",
    "prefill_seconds",
    "replicas_for_rate",
]

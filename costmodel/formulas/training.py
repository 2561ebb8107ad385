"""Training compute: FLOP, GPU-hours at an MFU, MFU backed out, memory for training state.

References
----------
.. [1] Kaplan et al. (2020), "Scaling Laws for Neural Language Models", arXiv 2001.08361,
   §2.1: training compute C ≈ 6·N·D (2·N forward, 4·N backward per token).
.. [2] Hoffmann et al. (2022), "Training Compute-Optimal Large Language Models"
   (Chinchilla), arXiv 2203.15556, Table 3: budgets that follow C ≈ 6·N·D.
.. [3] Rajbhandari et al. (2020), "ZeRO: Memory Optimizations Toward Training Trillion
   Parameter Models", SC20: mixed-precision Adam holds 16 bytes per parameter
   (2 weights + 2 gradients + 12 optimizer state), which ZeRO shards across GPUs.
"""

from __future__ import annotations

import math

from ..units import SECONDS_PER_HOUR
from .shapes import Numbers, Values


def training_flop(active_parameters: Numbers, tokens: Numbers) -> Values:
    """Training compute C = 6·N·D. [FLOP]

    Parameters
    ----------
    active_parameters
        N: parameters used per token (for a mixture of experts, the active ones). [-]
    tokens
        D: training tokens. [tokens]

    References
    ----------
    .. [1] Kaplan et al. (2020), "Scaling Laws for Neural Language Models", arXiv 2001.08361, §2.1 (C ≈ 6·N·D).
    .. [2] Hoffmann et al. (2022), "Training Compute-Optimal Large Language Models" (Chinchilla), arXiv 2203.15556.

    Examples
    --------
    Chinchilla (Hoffmann et al. 2022, Table 3): 10 B parameters on 205.1 B tokens.

    >>> f"{training_flop(10e9, 205.1e9):.3g}"
    '1.23e+22'
    """
    return 6.0 * active_parameters * tokens


def training_gpu_hours(flop: Numbers, peak_tflops: Numbers, mfu: Numbers) -> Values:
    """Ideal GPU-hours of a run: FLOP / (dense peak × MFU) / 3,600. [GPU-h]

    Parameters
    ----------
    flop
        Training compute. [FLOP]
    peak_tflops
        Dense (not 2:4 sparse) peak per GPU at the training precision. [TFLOP/s]
    mfu
        Model FLOPs utilisation, in (0, 1]. [-]

    References
    ----------
    .. [1] Chowdhery et al. (2022), "PaLM: Scaling Language Modeling with Pathways", arXiv 2204.02311, Appendix B
       (model FLOPs utilisation: achieved model FLOP/s over the peak).
    .. [2] Kaplan et al. (2020), "Scaling Laws for Neural Language Models", arXiv 2001.08361, §2.1 (C ≈ 6·N·D).

    Examples
    --------
    >>> round(training_gpu_hours(3.6e24, 989.5, 0.4))
    2526529
    """
    return flop / (peak_tflops * 1e12 * mfu) / SECONDS_PER_HOUR


def mfu_from_gpu_hours(flop: Numbers, peak_tflops: Numbers, gpu_hours: Numbers) -> Values:
    """MFU backed out of a reported GPU-hour count: FLOP / (peak × GPU-hours × 3,600). [-]

    The inverse of :func:`training_gpu_hours` in its MFU argument.

    References
    ----------
    .. [1] Chowdhery et al. (2022), "PaLM: Scaling Language Modeling with Pathways", arXiv 2204.02311, Appendix B
       (model FLOPs utilisation: achieved model FLOP/s over the peak).

    Examples
    --------
    >>> round(mfu_from_gpu_hours(3.6e24, 989.5, 2526529), 4)
    0.4
    """
    return flop / (peak_tflops * 1e12 * gpu_hours * SECONDS_PER_HOUR)


def min_gpus_for_training_state(
    state_bytes: float, activation_bytes_per_gpu: float, gpu_memory_bytes: float, sharded: bool
) -> int | None:
    """The fewest GPUs whose memory holds the training state. [GPU]

    Not elementwise: scalar inputs only (the result is a whole count, or None where it has no
    value).

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

    References
    ----------
    .. [1] Rajbhandari et al. (2020), "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC20,
       arXiv 1910.02054, Figure 1 (16 bytes per parameter with mixed-precision Adam).

    Examples
    --------
    A 70 B model with mixed-precision Adam (16 B per parameter) on 141 GB GPUs:

    >>> min_gpus_for_training_state(16 * 70e9, 0.0, 141e9, sharded=True)
    8
    """
    room = gpu_memory_bytes - activation_bytes_per_gpu
    if room <= 0:
        return None
    if sharded:
        return max(1, math.ceil(state_bytes / room))
    return 1 if state_bytes <= room else None


def mfu_from_achieved_tflops(achieved_tflops: Numbers, peak_tflops: Numbers) -> Values:
    """MFU from an achieved throughput per GPU: achieved / dense peak. [-]

    Parameters
    ----------
    achieved_tflops
        Model FLOP/s achieved per GPU (6·N per token, as papers count it). [TFLOP/s]
    peak_tflops
        Dense peak per GPU at the precision. [TFLOP/s]

    References
    ----------
    .. [1] Chowdhery et al. (2022), "PaLM: Scaling Language Modeling with Pathways", arXiv 2204.02311, Appendix B
       (model FLOPs utilisation: achieved model FLOP/s over the peak).

    Examples
    --------
    Llama 3 (Dubey et al. 2024, Table 4): 430 TFLOP/s per H100 on 8,192 GPUs, BF16 MFU 43 %.

    >>> round(mfu_from_achieved_tflops(430, 989), 3)
    0.435
    """
    return achieved_tflops / peak_tflops


def mfu_from_tokens_per_second(
    active_parameters: Numbers, tokens_per_second_per_gpu: Numbers, peak_tflops: Numbers
) -> Values:
    """MFU from training tokens per second per GPU: 6·N·(tokens/s) / dense peak. [-]

    Parameters
    ----------
    active_parameters
        N. [-]
    tokens_per_second_per_gpu
        Training tokens processed per second per GPU. [tokens/s/GPU]
    peak_tflops
        Dense peak per GPU at the precision. [TFLOP/s]

    Notes
    -----
    Achieved FLOP/s per GPU = 6·N·tokens/s (Kaplan et al. 2020, §2.1).

    References
    ----------
    .. [1] Chowdhery et al. (2022), "PaLM: Scaling Language Modeling with Pathways", arXiv 2204.02311, Appendix B
       (model FLOPs utilisation: achieved model FLOP/s over the peak).
    .. [2] Kaplan et al. (2020), "Scaling Laws for Neural Language Models", arXiv 2001.08361, §2.1 (C ≈ 6·N·D).

    Examples
    --------
    A 405 B dense model at 165 tokens/s per H100: 6 × 405e9 × 165 = 401 TFLOP/s, 40.5 %.

    >>> round(mfu_from_tokens_per_second(405e9, 165, 989), 4)
    0.4054
    """
    return 6.0 * active_parameters * tokens_per_second_per_gpu / (peak_tflops * 1e12)


def wall_clock_gpu_hours(gpus: Numbers, wall_clock_hours: Numbers) -> Values:
    """GPU-hours of a run stated by wall clock: GPUs × hours. [GPU-h]

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    DeepSeek-V3 pre-training, 2,048 H800 for 54.2 days (arXiv 2412.19437, Table 1: 2,664 K):

    >>> round(wall_clock_gpu_hours(2048, 54.2 * 24))
    2664038
    """
    return gpus * wall_clock_hours


def achieved_tflops_from_gpu_hours(flop: Numbers, gpu_hours: Numbers) -> Values:
    """Model FLOP/s achieved per GPU over the GPU-hours paid: FLOP / (GPU-hours × 3,600). [TFLOP/s]

    The reciprocal of GPU-hours per token scaled by 6·N, so runs of different model sizes
    compare; over paid hours it includes the time lost to failures and restarts.

    References
    ----------
    Definition; no outside source (FLOP over the seconds of the GPU-hours paid).

    Examples
    --------
    DeepSeek-V3 pre-training (arXiv 2412.19437): 6 × 37e9 × 14.8e12 FLOP over 2.664 M GPU-hours.

    >>> round(achieved_tflops_from_gpu_hours(6 * 37e9 * 14.8e12, 2.664e6), 1)
    342.6
    """
    return flop / (gpu_hours * SECONDS_PER_HOUR) / 1e12

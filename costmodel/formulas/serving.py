"""Serving a language model: memory for weights and KV cache, and a first-principles throughput.

Decode is bounded by memory bandwidth (every step reads the active weights once and the KV
cache of the batch); prefill is bounded by dense FLOP/s (2 FLOP per active parameter per
input token); each with an efficiency factor.

References
----------
.. [1] Pope et al. (2022), "Efficiently Scaling Transformer Inference", arXiv 2211.05102:
   decode is memory-bandwidth bound at small batch; 2·N FLOP per token forward.
.. [2] Kwon et al. (2023), "Efficient Memory Management for Large Language Model Serving
   with PagedAttention", SOSP: KV cache of 2 · layers · KV heads · head dim values per token.
"""

from __future__ import annotations

import numpy as np

from .shapes import Numbers, Values, like

BYTES_PER_VALUE: dict[str, float] = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5, "int4": 0.5}
"""Bytes per weight (or KV value) at each precision. [B]"""

COMPUTE_PRECISION: dict[str, str] = {"int8": "bf16", "int4": "bf16"}
"""Precision the matrix products run at, for weight-only formats (W8A16, W4A16: weights are
dequantised to 16 bits; Frantar et al. 2022, GPTQ; Lin et al. 2023, AWQ). Others run as stored."""


def compute_precision(precision: str) -> str:
    """The precision whose dense peak a model served at ``precision`` computes at."""
    return COMPUTE_PRECISION.get(precision, precision)


GB = 1e9
"""Bytes in the catalog's GB (decimal, as in NVIDIA's datasheets). [B]"""


def kv_cache_precision(precision: str) -> str:
    """KV cache precision used with weights at ``precision``: BF16 for 16-bit weights, else FP8."""
    return "bf16" if precision in ("bf16", "fp16") else "fp8"


def weight_bytes(total_parameters: Numbers, precision: str) -> Values:
    """Memory for the weights: total parameters × bytes per parameter. [B]

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    >>> weight_bytes(70.6e9, "bf16") / 1e9
    141.2
    """
    return total_parameters * BYTES_PER_VALUE[precision]


def kv_cache_bytes_per_token(layers: Numbers, kv_elements_per_token_per_layer: Numbers, precision: str) -> Values:
    """KV cache per token: layers × values per token per layer × bytes per value. [B/token]

    The values per token per layer are 2 × KV heads × head dimension for grouped-query
    attention; the KV cache is kept at :func:`kv_cache_precision` of the weights.

    References
    ----------
    .. [1] Kwon et al. (2023), "Efficient Memory Management for Large Language Model Serving with PagedAttention",
       SOSP: 2 · layers · KV heads · head dim values per token.

    Examples
    --------
    Llama 3.3 70B: 80 layers, 8 KV heads of 128 (2 × 8 × 128 = 2,048 values), BF16:

    >>> kv_cache_bytes_per_token(80, 2048, "bf16")
    327680.0
    """
    return layers * kv_elements_per_token_per_layer * BYTES_PER_VALUE[kv_cache_precision(precision)]


def lora_adapter_bytes(
    rank: Numbers,
    layers: Numbers,
    hidden_size: Numbers,
    matrices_per_layer: Numbers = 2,
    bytes_per_parameter: Numbers = 2.0,
) -> Values:
    """Memory for one LoRA adapter: matrices per layer × 2 × rank × hidden size × layers × bytes. [B]

    Parameters
    ----------
    rank
        The adapter's rank r. [-]
    layers
        Transformer layers. [-]
    hidden_size
        Width of the residual stream d. [-]
    matrices_per_layer
        Weight matrices adapted in each layer (2: the query and value projections, as in Hu et al.). [-]
    bytes_per_parameter
        Bytes per adapter parameter (2 for BF16/FP16). [B]

    Notes
    -----
    LoRA adds to a frozen d × k weight W the product B A of a d × r matrix B and an r × k matrix A,
    r(d + k) parameters; with d = k = the hidden size, 2 r d per adapted matrix. Projections
    narrower than the hidden size (the key and value projections of grouped-query attention)
    have fewer, so the figure is an upper bound for them. Zero at rank 0.

    References
    ----------
    .. [1] Hu, E. J. et al. (2021), "LoRA: Low-Rank Adaptation of Large Language Models",
       arXiv:2106.09685, section 4.1 (W + B A, B ∈ R^{d×r}, A ∈ R^{r×k}) and section 7.1 (W_q and W_v adapted).

    Examples
    --------
    Llama 3.3 70B (80 layers, hidden size 8,192), rank 16 on W_q and W_v, BF16: 2 × 2 × 16 × 8,192 × 80 × 2 B

    >>> lora_adapter_bytes(16, 80, 8192)
    83886080.0
    """
    return matrices_per_layer * 2 * rank * hidden_size * layers * (bytes_per_parameter * 1.0)


def lora_adapters_resident(
    adapters: Numbers, adapter_bytes: Numbers, replica_memory_bytes: Numbers, base_bytes: Numbers
) -> Values:
    """LoRA adapters a replica holds in GPU memory beside one copy of the base model. [-]

    Parameters
    ----------
    adapters
        Adapters served on the base. [-]
    adapter_bytes
        Memory of one adapter. [B]
    replica_memory_bytes
        Usable memory of the replica's GPUs. [B]
    base_bytes
        The base model's weights and KV cache, held once. [B]

    Notes
    -----
    min(N, ⌊(M − B) / a⌋), at least 0. The adapters that do not fit stay in host memory and are
    loaded when a request needs one, as S-LoRA pages them; the replica is sized for the base
    and one adapter, not for N copies of the base.

    References
    ----------
    .. [1] Sheng, Y. et al. (2023), "S-LoRA: Serving Thousands of Concurrent LoRA Adapters",
       arXiv:2311.03285, section 4 (all adapters in host memory, those of the running batch in GPU memory).

    Examples
    --------
    100 adapters of 16.8 MB beside 12.2 GB of base weights and KV cache on one 80 GB GPU at 90 %:

    >>> lora_adapters_resident(100, 16.8e6, 72e9, 12.2e9)
    100.0
    >>> lora_adapters_resident(10_000, 16.8e6, 72e9, 12.2e9)
    3559.0
    """
    room = np.floor(np.maximum(replica_memory_bytes - base_bytes, 0.0) / adapter_bytes)
    return like(np.minimum(adapters * 1.0, room), adapters, adapter_bytes, replica_memory_bytes, base_bytes)


def min_gpus_per_replica(
    bytes_needed: float, memory_gb_per_gpu: float, usable_memory_share: float, largest: int = 8
) -> int | None:
    """Smallest tensor-parallel degree (1, 2, 4, ... up to ``largest``) whose memory holds ``bytes_needed``. [GPU]

    Not elementwise: scalar inputs only (the result is a whole count, or None where it has no
    value).

    Parameters
    ----------
    bytes_needed
        Weights plus KV cache of one replica. [B]
    memory_gb_per_gpu
        Memory per GPU. [GB]
    usable_memory_share
        Share of GPU memory left for weights and KV cache after the runtime. [-]
    largest
        Largest degree tried. [GPU]

    Returns
    -------
    int or None
        None when even ``largest`` GPUs are too few.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    Llama 3.3 70B in BF16 needs 141 GB for its weights alone: two 80 GB H100.

    >>> min_gpus_per_replica(141.2e9, 80, 0.9)
    2
    """
    degree = 1
    while degree <= largest:
        if bytes_needed <= degree * memory_gb_per_gpu * GB * usable_memory_share:
            return degree
        degree *= 2
    return None


def estimate_output_throughput(
    active_parameters: Numbers,
    bytes_per_weight: Numbers,
    kv_bytes_per_token: Numbers,
    memory_bandwidth_tb_s: Numbers,
    dense_tflops: Numbers,
    gpus_per_replica: float,
    batch_size: float,
    input_tokens: float,
    output_tokens: float,
    decode_efficiency: Numbers,
    prefill_efficiency: Numbers,
) -> Values:
    """First-principles serving throughput per GPU, prefill included. [output tokens/s/GPU]

    Parameters
    ----------
    active_parameters
        N, parameters used per token. [-]
    bytes_per_weight
        w, bytes per weight at the served precision. [B]
    kv_bytes_per_token
        k, KV cache bytes per token. [B/token]
    memory_bandwidth_tb_s
        B, memory bandwidth per GPU. [TB/s]
    dense_tflops
        P, dense peak per GPU at the precision. [TFLOP/s]
    gpus_per_replica
        G, a scalar. [GPU]
    batch_size
        b, requests decoded together, a scalar. [requests]
    input_tokens, output_tokens
        I and O per request, scalars. [tokens]
    decode_efficiency, prefill_efficiency
        Shares of bandwidth and of peak FLOP/s achieved, in (0, 1]. [-]

    Raises
    ------
    ValueError
        Fewer than one GPU, request or token, or an efficiency outside (0, 1].

    Notes
    -----
    * one decode step reads N·w + b·(I + O/2)·k bytes in
      t_d = that / (G·B·e_decode) seconds and yields b output tokens;
    * prefilling one request of I input tokens takes t_p = 2·N·I / (G·P·e_prefill) s;
    * one request costs G·(t_p + O·t_d / b) GPU-seconds, so the throughput per GPU is
      O / (G·(t_p + O·t_d / b)).

    References
    ----------
    .. [1] Pope et al. (2022), "Efficiently Scaling Transformer Inference", arXiv 2211.05102: decode is
       memory-bandwidth bound at small batch; 2·N FLOP per token forward.

    Examples
    --------
    >>> round(estimate_output_throughput(70e9, 1.0, 163840.0, 3.35, 1979.0, 2, 64, 1000, 1000, 0.7, 0.5))
    1403
    """
    if min(gpus_per_replica, batch_size, input_tokens, output_tokens) < 1 or not all(
        np.all((np.asarray(e) > 0) & (np.asarray(e) <= 1)) for e in (decode_efficiency, prefill_efficiency)
    ):
        raise ValueError("need at least 1 GPU, request and token, and efficiencies in (0, 1]")
    bandwidth = memory_bandwidth_tb_s * 1e12 * decode_efficiency * gpus_per_replica  # [B/s] per replica
    step_bytes = (
        active_parameters * bytes_per_weight + batch_size * (input_tokens + output_tokens / 2) * kv_bytes_per_token
    )
    decode_step = step_bytes / bandwidth  # [s]
    flops = dense_tflops * 1e12 * prefill_efficiency * gpus_per_replica  # [FLOP/s] per replica
    prefill = 2 * active_parameters * input_tokens / flops  # [s] per request
    return output_tokens / (gpus_per_replica * (prefill + output_tokens * decode_step / batch_size))

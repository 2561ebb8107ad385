"""Serving capacity: from a model, a GPU and a precision to GPUs per replica and tokens/s.

Two routes, and the result says which one it took:

* **measured**: a row of data/throughput.csv for the same model, GPU and precision
  (MLPerf Inference, TensorRT-LLM's published benchmarks);
* **estimate**: first principles, stated as an estimate. Decode is bounded by memory
  bandwidth (every step reads the active weights once and the KV cache of the batch);
  prefill is bounded by dense FLOP/s (2 FLOP per active parameter per input token);
  each with an efficiency factor.

In both, the weights (parameters × bytes per parameter) plus the KV cache must fit in
the replica's memory, which sets the minimum tensor-parallel degree.

References
----------
.. [1] Pope et al. (2022), "Efficiently Scaling Transformer Inference", arXiv 2211.05102:
   decode is memory-bandwidth bound at small batch; 2·N FLOP per token forward.
.. [2] MLCommons, MLPerf Inference v4.1 results (llama2-70b), 2024.
.. [3] NVIDIA TensorRT-LLM, docs/source/performance/perf-overview.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import GPU, LLM, Catalog, ThroughputRow

BYTES_PER_VALUE: dict[str, float] = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}
"""Bytes per weight at each precision. [B]"""

GIB = 1e9  # the catalog's GB are decimal gigabytes, as in NVIDIA's datasheets


def kv_cache_precision(precision: str) -> str:
    """KV cache precision used with weights at ``precision``: FP8 for FP8 and FP4 weights, else BF16."""
    return "bf16" if precision == "bf16" else "fp8"


def weight_bytes(model: LLM, precision: str) -> float:
    """Memory for the weights: total parameters × bytes per parameter. [B]"""
    return model.total_parameters * BYTES_PER_VALUE[precision]


def kv_cache_bytes_per_token(model: LLM, precision: str) -> float:
    """KV cache per token: layers × elements per token per layer × bytes per element. [B/token]"""
    return model.layers * model.kv_elements_per_token_per_layer * BYTES_PER_VALUE[kv_cache_precision(precision)]


def min_gpus_per_replica(model: LLM, gpu: GPU, precision: str, kv_cache_tokens: float,
                         usable_memory_share: float, gpus_per_server: int = 8) -> int:
    """Smallest tensor-parallel degree (1, 2, 4, ... up to one server) whose memory holds the model.

    Parameters
    ----------
    model, gpu
        Catalog rows.
    precision
        ``bf16``, ``fp8`` or ``fp4``.
    kv_cache_tokens
        Tokens the replica keeps in its KV cache at once (batch × context). [tokens]
    usable_memory_share
        Share of GPU memory left for weights and KV cache after the runtime. [-]
    gpus_per_server
        Largest degree tried: a replica stays inside one server's NVLink domain. [GPU]

    Returns
    -------
    int
        GPUs per replica. [GPU]

    Raises
    ------
    ValueError
        The model does not fit even on a full server.

    Examples
    --------
    Llama 3.3 70B in BF16 needs 141 GB for its weights alone: two 80 GB H100.

    >>> from costmodel.catalog import default_catalog
    >>> c = default_catalog()
    >>> min_gpus_per_replica(c.models["llama-3.3-70b"], c.gpus["H100-SXM-80GB"], "bf16", 0, 0.9)
    2
    """
    need = weight_bytes(model, precision) + kv_cache_tokens * kv_cache_bytes_per_token(model, precision)
    degree = 1
    while degree <= gpus_per_server:
        if need <= degree * gpu.memory_gb * GIB * usable_memory_share:
            return degree
        degree *= 2
    raise ValueError(
        f"{model.model} at {precision} needs {need / GIB:,.0f} GB for weights and KV cache, more than a full "
        f"server of {gpus_per_server} x {gpu.memory_gb:g} GB {gpu.gpu} holds at {usable_memory_share:.0%} usable")


def estimate_output_throughput(model: LLM, gpu: GPU, precision: str, gpus_per_replica: int, batch_size: int,
                               input_tokens: int, output_tokens: int, decode_efficiency: float,
                               prefill_efficiency: float) -> float:
    """First-principles serving throughput per GPU, prefill included. [output tokens/s/GPU]

    Notes
    -----
    With G GPUs per replica, batch b, active parameters N, bytes per weight w, KV bytes
    per token k, memory bandwidth B and dense peak P at the precision:

    * one decode step reads N·w + b·(I + O/2)·k bytes in
      t_d = that / (G·B·e_decode) seconds and yields b output tokens;
    * prefilling one request of I input tokens takes t_p = 2·N·I / (G·P·e_prefill) s;
    * one request costs G·(t_p + O·t_d / b) GPU-seconds, so the throughput per GPU is
      O / (G·(t_p + O·t_d / b)).

    References
    ----------
    .. [1] Pope et al. (2022), arXiv 2211.05102.
    """
    if min(gpus_per_replica, batch_size, input_tokens, output_tokens) < 1 or not (
            0 < decode_efficiency <= 1 and 0 < prefill_efficiency <= 1):
        raise ValueError("need at least 1 GPU, request and token, and efficiencies in (0, 1]")
    bandwidth = gpu.memory_bandwidth_tb_s * 1e12 * decode_efficiency * gpus_per_replica   # [B/s] per replica
    step_bytes = (model.active_parameters * BYTES_PER_VALUE[precision]
                  + batch_size * (input_tokens + output_tokens / 2) * kv_cache_bytes_per_token(model, precision))
    decode_step = step_bytes / bandwidth                                                  # [s]
    flops = gpu.dense_tflops(precision) * 1e12 * prefill_efficiency * gpus_per_replica    # [FLOP/s] per replica
    prefill = 2 * model.active_parameters * input_tokens / flops                          # [s] per request
    gpu_seconds = gpus_per_replica * (prefill + output_tokens * decode_step / batch_size)
    return output_tokens / gpu_seconds


@dataclass(frozen=True)
class ServingCapacity:
    """How a token workload turns into GPUs, with where each figure came from.

    Attributes
    ----------
    output_tokens_per_second_per_gpu
        Throughput of one GPU at full load. [output tokens/s/GPU]
    gpus_per_replica
        GPUs that serve one copy of the model; GPU counts step in these. [GPU]
    min_gpus_per_replica
        The fewest GPUs whose memory holds weights and KV cache. [GPU]
    sizing_utilisation
        Target utilisation / peak-to-average ratio: the average share of capacity used
        when the fleet is sized for the peak. [-]
    source
        The throughput row used, or "ESTIMATE" with the estimate's inputs.
    estimated
        True when no measured row was used.
    """

    output_tokens_per_second_per_gpu: float
    gpus_per_replica: int
    min_gpus_per_replica: int
    sizing_utilisation: float
    source: str
    estimated: bool


def matching_rows(catalog: Catalog, model: str, gpu: str, precision: str) -> list[ThroughputRow]:
    """Throughput rows for a model, GPU and precision, lowest throughput first."""
    rows = [r for r in catalog.throughput.values() if (r.model, r.gpu, r.precision) == (model, gpu, precision)]
    return sorted(rows, key=lambda r: r.output_tokens_per_second_per_gpu)

"""Memory per GPU of a training run under a parallelism plan: model state with ZeRO, activations.

Model state (Rajbhandari et al. 2020): with mixed-precision Adam each parameter holds 2
bytes of weights, 2 of gradients and K = 12 of optimizer state (fp32 master weights,
momentum, variance). Tensor (t) and pipeline (p) parallelism split the parameters across
t·p GPUs; ZeRO then shards across the d data-parallel ranks: stage 1 the optimizer state,
stage 2 also the gradients, stage 3 (FSDP) also the weights.

Activations (Korthikanti et al. 2022, Table 2): per transformer layer, with sequence
length s, micro-batch b, hidden size h, attention heads a and tensor parallel size t, in
bytes at 16-bit activations. With the 1F1B pipeline schedule the first stage holds p
micro-batches of L/p layers in flight, L layers' worth in all, whatever p (§4.2.3).
Context parallelism splits the sequence across c GPUs.

References
----------
.. [1] Rajbhandari, Rasley, Ruwase, He (2020), "ZeRO: Memory Optimizations Toward Training
   Trillion Parameter Models", SC20, arXiv 1910.02054, §5 and Figure 1.
.. [2] Korthikanti et al. (2022), "Reducing Activation Recomputation in Large Transformer
   Models", arXiv 2205.05198, Table 2 and §4.2.3.
"""

from __future__ import annotations

import numpy as np

from .shapes import Numbers, NumbersOrList, Values, like

WEIGHT_BYTES = 2.0
"""Bytes per parameter of 16-bit weights. [B]"""
GRADIENT_BYTES = 2.0
"""Bytes per parameter of 16-bit gradients. [B]"""
ADAM_OPTIMIZER_BYTES = 12.0
"""K of mixed-precision Adam: fp32 weights, momentum and variance. [B]"""


def zero_state_bytes_per_gpu(
    parameters_per_model_parallel_rank: NumbersOrList,
    data_parallel: Numbers,
    zero_stage: NumbersOrList,
    weight_bytes: Numbers = WEIGHT_BYTES,
    gradient_bytes: Numbers = GRADIENT_BYTES,
    optimizer_bytes: Numbers = ADAM_OPTIMIZER_BYTES,
) -> Values:
    """Weights, gradients and optimizer state on one GPU under ZeRO stage 0–3. [B]

    Parameters
    ----------
    parameters_per_model_parallel_rank
        Ψ: parameters one tensor- and pipeline-parallel rank holds (total / (t·p)). [-]
    data_parallel
        N_d: data-parallel ranks the state is sharded over. [-]
    zero_stage
        0 (plain data parallelism), 1 (optimizer state sharded), 2 (and gradients),
        3 (and weights; FSDP full sharding).
    weight_bytes, gradient_bytes, optimizer_bytes
        Bytes per parameter of each part; 2, 2 and 12 for mixed-precision Adam. [B]

    Notes
    -----
    Rajbhandari et al. (2020), Figure 1, with K = ``optimizer_bytes``:

    * stage 0: (2 + 2 + K)·Ψ
    * stage 1: (2 + 2)·Ψ + K·Ψ/N_d
    * stage 2: 2·Ψ + (2 + K)·Ψ/N_d
    * stage 3: (2 + 2 + K)·Ψ/N_d

    References
    ----------
    .. [1] Rajbhandari et al. (2020), "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC20,
       arXiv 1910.02054, Figure 1 (16 bytes per parameter with mixed-precision Adam).

    Examples
    --------
    The paper's example, 7.5 B parameters on 64 GPUs: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB.

    >>> [round(zero_state_bytes_per_gpu(7.5e9, 64, s) / 1e9, 1) for s in (0, 1, 2, 3)]
    [120.0, 31.4, 16.6, 1.9]
    >>> round(zero_state_bytes_per_gpu(7.5e9, 64, 2) / 1e9, 1)      # stage 2: gradients sharded too
    16.6
    """
    psi = np.asarray(parameters_per_model_parallel_rank, dtype=float)
    stage = np.asarray(zero_stage)
    weights = np.where(stage >= 3, weight_bytes * psi / data_parallel, weight_bytes * psi)
    gradients = np.where(stage >= 2, gradient_bytes * psi / data_parallel, gradient_bytes * psi)
    optimizer = np.where(stage >= 1, optimizer_bytes * psi / data_parallel, optimizer_bytes * psi)
    return like(weights + gradients + optimizer, parameters_per_model_parallel_rank, data_parallel, zero_stage)


def activation_bytes_per_layer(
    sequence_length: NumbersOrList,
    micro_batch: Numbers,
    hidden_size: Numbers,
    attention_heads: Numbers,
    tensor_parallel: Numbers = 1,
    sequence_parallel: bool = True,
    recomputation: str = "selective",
) -> Values:
    """Activation memory of one transformer layer on one GPU (Korthikanti et al. 2022, Table 2). [B]

    Parameters
    ----------
    sequence_length
        s, tokens per sequence on this GPU (divide by the context-parallel size first). [tokens]
    micro_batch
        b. [sequences]
    hidden_size, attention_heads
        h and a. [-]
    tensor_parallel
        t. [-]
    sequence_parallel
        Whether the layer-norm and dropout activations are split across the t ranks too.
    recomputation
        ``"none"``, ``"selective"`` (attention's softmax and dropout recomputed) or
        ``"full"`` (only each layer's input kept).

    Notes
    -----
    s·b·h × (Korthikanti et al. 2022, Table 2):

    * none, no sequence parallelism: 10 + 24/t + 5·a·s/(h·t)
    * none, sequence parallel: 34/t + 5·a·s/(h·t)
    * selective, no sequence parallelism: 10 + 24/t
    * selective, sequence parallel: 34/t
    * full: 2 (2/t with sequence parallelism)

    References
    ----------
    .. [1] Korthikanti et al. (2022), "Reducing Activation Recomputation in Large Transformer Models", arXiv
       2205.05198, Table 2.

    Examples
    --------
    A 70 B-class layer (h = 8,192, a = 64), s = 8,192, b = 1, t = 8, selective with
    sequence parallelism: 8,192² × 34 / 8 bytes = 285 MB.

    >>> round(activation_bytes_per_layer(8192, 1, 8192, 64, 8) / 1e6, 1)
    285.2
    """
    sbh = np.asarray(sequence_length, dtype=float) * micro_batch * hidden_size
    t = tensor_parallel
    attention = 5.0 * attention_heads * np.asarray(sequence_length, dtype=float) / (hidden_size * t)
    if recomputation == "full":
        factor = 2.0 / t if sequence_parallel else 2.0
    elif recomputation == "selective":
        factor = 34.0 / t if sequence_parallel else 10.0 + 24.0 / t
    elif recomputation == "none":
        factor = (34.0 / t if sequence_parallel else 10.0 + 24.0 / t) + attention
    else:
        raise ValueError(f"recomputation must be none, selective or full, not {recomputation!r}")
    return like(sbh * factor, sequence_length, micro_batch, hidden_size, attention_heads, tensor_parallel)


def activation_bytes_per_gpu(
    layers: Numbers,
    sequence_length: NumbersOrList,
    micro_batch: Numbers,
    hidden_size: Numbers,
    attention_heads: Numbers,
    tensor_parallel: Numbers = 1,
    context_parallel: Numbers = 1,
    sequence_parallel: bool = True,
    recomputation: str = "selective",
) -> Values:
    """Activation memory on the busiest GPU: L layers' worth (1F1B pipeline, first stage). [B]

    Parameters
    ----------
    layers
        L, transformer layers of the model. [-]
    sequence_length, micro_batch, hidden_size, attention_heads, tensor_parallel
        As :func:`activation_bytes_per_layer`.
    context_parallel
        c: the sequence is split across c GPUs, s/c tokens each. [-]
    sequence_parallel, recomputation
        As :func:`activation_bytes_per_layer`.

    Notes
    -----
    L × per-layer(s/c): the first pipeline stage holds p micro-batches of L/p layers under
    the 1F1B schedule (Korthikanti et al. 2022, §4.2.3), the same as an unpipelined GPU.

    References
    ----------
    .. [1] Korthikanti et al. (2022), "Reducing Activation Recomputation in Large Transformer Models", arXiv
       2205.05198, §4.2.3 (the first pipeline stage under 1F1B).

    Examples
    --------
    80 layers of the example in :func:`activation_bytes_per_layer`: 22.8 GB.

    >>> round(activation_bytes_per_gpu(80, 8192, 1, 8192, 64, 8) / 1e9, 2)
    22.82
    """
    per_layer = activation_bytes_per_layer(
        np.asarray(sequence_length, dtype=float) / context_parallel,
        micro_batch,
        hidden_size,
        attention_heads,
        tensor_parallel,
        sequence_parallel,
        recomputation,
    )
    return like(
        layers * np.asarray(per_layer),
        layers,
        sequence_length,
        micro_batch,
        hidden_size,
        attention_heads,
        tensor_parallel,
        context_parallel,
    )

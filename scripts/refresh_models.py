"""Refresh data/models.csv from the Hugging Face config.json files shipped in aiconfigurator-core.

Usage::

    pip install "costmodel[estimate]"        # aiconfigurator-core 0.12.0, Apache-2.0
    python scripts/refresh_models.py         # rewrites data/models.csv and not_imported_models.csv
    python scripts/refresh_models.py --check # exit 1 if either differs from the package

NVIDIA's aiconfigurator-core ships, in ``aiconfigurator_core/model_configs/``, the publishers'
``config.json`` of the models it can estimate, named ``<org>--<repo>_config.json``. This script
reads them with :mod:`importlib.resources` (the package's code is not imported), so it runs
offline from the pinned package. For each config it takes:

``layers``
    ``num_hidden_layers`` (for hybrid models every block: attention, linear attention, Mamba).
``kv_heads``, ``head_dim``
    ``num_key_value_heads`` and ``head_dim`` (or ``hidden_size / num_attention_heads``) of the
    full-attention layers; empty for latent attention (MLA), whose cache has no heads.
``kv_elements_per_token_per_layer``
    Numbers cached per token per full-attention layer: GQA/MHA 2 x KV heads x head size (K and
    V heads of different size: KV heads x (K size + V size)); MLA ``kv_lora_rank +
    qk_rope_head_dim`` (the latent and the RoPE key, as the deepseek-v3 row). costmodel
    multiplies it by ``layers``. Where some layers are sliding-window, linear attention
    (Gated DeltaNet, KDA), Mamba or compressed, the figure is the full-attention layer's and
    therefore an upper bound; the row's notes give the layer mix and the exact figure.
``hidden_size``
    ``hidden_size`` of the config (of its language model): the width of the residual stream,
    which a LoRA adapter's matrices span. Filled in hand-kept rows too when they have none.
``context_length_tokens``
    ``max_position_embeddings`` of the config, always (the length the config sets up, with
    its RoPE scaling already applied); a model card's longer or shorter "native" length is
    not used.
``total_parameters``, ``active_parameters``
    Counted from the config by the architecture's formula (:func:`count`): embeddings,
    attention (GQA, MLA, sparse-attention indexers, linear attention, Mamba-2), dense MLP or
    routed experts with shared experts and the dense first layers, routers, norms and an
    untied output head. Multi-token-prediction (MTP) layers and vision encoders are not
    counted (model cards state totals without them). Active = total minus the routed experts
    a token does not use. Where ``CARDS`` gives a model card's stated total (or active)
    figure, the computed one is kept if within 2 % of it; otherwise the card's figure is
    written and the disagreement is printed and noted.

Skipped, and listed in ``data/sources/aiconfigurator/not_imported_models.csv`` with the reason:
``*_hf_quant_config.json`` (quantisation recipes, no architecture), quantised variants (FP8,
NVFP4) of a model already listed (same architecture, same parameters), and configs whose
architecture :func:`count` does not know. Rows of data/models.csv that the package does not
have, or whose notes start with ``override``, and the five rows bundled scenarios use
(``KEEP``), are kept as they are.
"""

from __future__ import annotations

import argparse
import csv
import importlib.resources
import io
import json
import re
import sys
from importlib.metadata import version
from pathlib import Path

from catalog_diff import differences  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costmodel.estimate import catalog_id  # noqa: E402  (the adapter's naming, MODEL_IDS included: one copy)

CSV = ROOT / "data" / "models.csv"
NOT_IMPORTED = ROOT / "data" / "sources" / "aiconfigurator" / "not_imported_models.csv"
PACKAGE = "aiconfigurator-core"
FOLDER = "model_configs"
TOLERANCE = 0.02
"""Largest relative difference between a computed count and a model card's stated one."""

PACKAGE_MONTH = "2026-09"
"""as_of of rows whose release month is not in CARDS: aiconfigurator 0.12.0 was released with
ai-dynamo/aiconfigurator pull request #1601 (version bump, merged 2026-09-01)."""

COLUMNS = [
    "model",
    "name",
    "total_parameters",
    "active_parameters",
    "layers",
    "kv_elements_per_token_per_layer",
    "quality",
    "as_of",
    "source",
    "notes",
    "kv_heads",
    "head_dim",
    "context_length_tokens",
    "hidden_size",
]
NOT_IMPORTED_COLUMNS = ["config", "reason"]

KEEP = ("llama-2-70b", "llama-3.1-8b", "llama-3.3-70b", "llama-3.1-405b", "deepseek-v3")
"""Rows bundled scenarios and golden files use: kept exactly as they are (ids and figures)."""


M = 1e6
B = 1e9
T = 1e12
CARDS = {
    # catalog id -> (model card, stated total, stated active or None, release month or None).
    # A card's figure is what the publisher states (often rounded: 2 % tolerance).
    "llama-3.1-8b": ("https://huggingface.co/meta-llama/Llama-3.1-8B", 8.03 * B, None, "2024-07"),
    "llama-3.1-70b": ("https://huggingface.co/meta-llama/Llama-3.1-70B", 70 * B, None, "2024-07"),
    "llama-3.1-405b": ("https://huggingface.co/meta-llama/Llama-3.1-405B", 405 * B, None, "2024-07"),
    "llama-4-scout": ("https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct", 109 * B, 17 * B, "2025-04"),
    "llama-4-maverick": (
        "https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        400 * B,
        17 * B,
        "2025-04",
    ),
    "llama-3.3-nemotron-super-49b-v1": (
        "https://huggingface.co/nvidia/Llama-3_3-Nemotron-Super-49B-v1",
        49 * B,
        None,
        "2025-03",
    ),
    "mixtral-8x7b-v0.1": (
        "https://huggingface.co/mistralai/Mixtral-8x7B-v0.1 (Mistral AI, Mixtral of experts, 2023-12-11)",
        46.7 * B,
        12.9 * B,
        "2023-12",
    ),
    "mixtral-8x22b-v0.1": (
        "https://huggingface.co/mistralai/Mixtral-8x22B-v0.1 (Mistral AI, Cheaper, Better, "
        "Faster, Stronger, 2024-04-17)",
        141 * B,
        39 * B,
        "2024-04",
    ),
    "qwen3-0.6b": ("https://huggingface.co/Qwen/Qwen3-0.6B", 0.6 * B, None, "2025-04"),
    "qwen3-1.7b": ("https://huggingface.co/Qwen/Qwen3-1.7B", 1.7 * B, None, "2025-04"),
    "qwen3-8b": ("https://huggingface.co/Qwen/Qwen3-8B", 8.2 * B, None, "2025-04"),
    "qwen3-32b": ("https://huggingface.co/Qwen/Qwen3-32B", 32.8 * B, None, "2025-04"),
    "qwen3-30b-a3b": ("https://huggingface.co/Qwen/Qwen3-30B-A3B", 30.5 * B, 3.3 * B, "2025-04"),
    "qwen3-235b-a22b": ("https://huggingface.co/Qwen/Qwen3-235B-A22B", 235 * B, 22 * B, "2025-04"),
    "qwen3-coder-480b-a35b-instruct": (
        "https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct",
        480 * B,
        35 * B,
        "2025-07",
    ),
    "qwen3.5-397b-a17b": ("https://huggingface.co/Qwen/Qwen3.5-397B-A17B", 397 * B, 17 * B, "2026-02"),
    "deepseek-r1": ("https://huggingface.co/deepseek-ai/DeepSeek-R1", 671 * B, 37 * B, "2025-01"),
    "deepseek-v3.1": ("https://huggingface.co/deepseek-ai/DeepSeek-V3.1", 671 * B, 37 * B, "2025-08"),
    "deepseek-v4-pro": (
        "https://huggingface.co/deepseek-ai/DeepSeek-V4-Pro (DeepSeek-V4 technical report)",
        1.6 * T,
        49 * B,
        "2026-04",
    ),
    "deepseek-v4-flash": (
        "https://huggingface.co/deepseek-ai/DeepSeek-V4-Flash (DeepSeek-V4 technical report)",
        284 * B,
        13 * B,
        "2026-04",
    ),
    "kimi-k2-instruct": ("https://huggingface.co/moonshotai/Kimi-K2-Instruct", 1 * T, 32 * B, "2025-07"),
    "gpt-oss-120b": (
        "https://huggingface.co/openai/gpt-oss-120b (gpt-oss model card, arXiv 2508.10925)",
        116.8 * B,
        5.1 * B,
        "2025-08",
    ),
    "gpt-oss-20b": (
        "https://huggingface.co/openai/gpt-oss-20b (gpt-oss model card, arXiv 2508.10925)",
        20.9 * B,
        3.6 * B,
        "2025-08",
    ),
    "glm-5": (
        "https://huggingface.co/zai-org/GLM-5 (GLM-5 technical report, arXiv 2602.15763)",
        744 * B,
        40 * B,
        "2026-02",
    ),
    "nemotron-3-nano-30b-a3b": (
        "https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (31.6B total, "
        "3.6B active including embeddings)",
        31.6 * B,
        3.6 * B,
        "2025-12",
    ),
    "mimo-v2-flash": (
        "https://huggingface.co/XiaomiMiMo/MiMo-V2-Flash (as quoted by "
        "https://docs.vllm.ai/projects/recipes/en/latest/MiMo/MiMo-V2-Flash.html)",
        309 * B,
        15 * B,
        "2025-12",
    ),
    "minimax-m2.5": (
        "https://huggingface.co/MiniMaxAI/MiniMax-M2.5 (MiniMax-M2 series: 230B total, 10B active, as "
        "quoted by https://docs.sglang.io/docs/basic_usage/minimax_m2)",
        230 * B,
        10 * B,
        None,
    ),
    "nemotron-3-super-120b-a12b": (
        "https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4",
        120 * B,
        12 * B,
        "2026-03",
    ),
}

QUANT_SUFFIX = re.compile(r"-(?:FP8(?:-Static-PerTensor)?|NVFP4|BF16)$")


def _configs() -> dict[str, dict]:
    """Every ``*_config.json`` of the package, by stem (``org--repo``), hf_quant configs included."""
    folder = importlib.resources.files("aiconfigurator_core") / FOLDER
    return {
        entry.name.removesuffix(".json"): json.loads(entry.read_text(encoding="utf-8"))
        for entry in folder.iterdir()
        if entry.name.endswith("_config.json")
    }


# --- the architectures' parameter counts --------------------------------------------------------------------
# Each returns parameters of one piece; h is the hidden size. They are the definitions of the
# architectures (the modelling code's weight shapes), not figures.


def _mlp(h: int, inter: int, gated: bool = True) -> int:
    """Feed-forward: gate, up and down projections (SwiGLU), or up and down (ReLU², GELU)."""
    return (3 if gated else 2) * h * inter


def _gqa(
    h: int,
    heads: int,
    kv_heads: int,
    head: int,
    v_head: int | None = None,
    bias: bool = False,
    qk_norm: bool = False,
    out_gate: bool = False,
    out_bias: bool = False,
) -> int:
    """Grouped-query attention: Q, K, V and output projections (+ Q/K/V biases, an output bias,
    per-head Q/K norms, the output gate of Qwen3-Next/3.5, which doubles Q)."""
    v_head = v_head or head
    q = h * heads * head * (2 if out_gate else 1)
    n = q + h * kv_heads * (head + v_head) + heads * v_head * h
    if bias:
        n += heads * head + kv_heads * (head + v_head)
    if out_bias:
        n += h
    if qk_norm:
        n += 2 * head
    return n


def _mla(c: dict) -> int:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi K2, GLM-5): low-rank Q, the KV latent with
    its RoPE key, the up-projection of the latent to K and V, the output projection, norms."""
    h, heads = c["hidden_size"], c["num_attention_heads"]
    nope, rope, v, kv_rank = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"]
    q_rank = c.get("q_lora_rank")
    q = h * q_rank + q_rank + q_rank * heads * (nope + rope) if q_rank else h * heads * (nope + rope)
    return q + h * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v) + heads * v * h


def _indexer(c: dict, q_rank: int) -> int:
    """Lightning indexer of DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): its queries from the Q
    latent, one key, a key norm, per-head weights."""
    heads, dim, h = c["index_n_heads"], c["index_head_dim"], c["hidden_size"]
    return q_rank * heads * dim + h * dim + 2 * dim + h * heads


def _gated_deltanet(c: dict) -> int:
    """Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5): QKVZ and beta/alpha projections,
    short convolution, decay and bias per value head, norm, output projection."""
    h = c["hidden_size"]
    nk, dk = c["linear_num_key_heads"], c["linear_key_head_dim"]
    nv, dv = c["linear_num_value_heads"], c["linear_value_head_dim"]
    conv = (2 * nk * dk + nv * dv) * c["linear_conv_kernel_dim"]
    return h * (2 * nk * dk + 2 * nv * dv) + h * 2 * nv + conv + 2 * nv + dv + nv * dv * h


def _mamba2(c: dict) -> int:
    """Mamba-2 mixer (Nemotron-H): input projection to x, z, B, C and dt, causal convolution,
    A, D and dt bias per head, gated norm, output projection."""
    h, heads, head = c["hidden_size"], c["mamba_num_heads"], c["mamba_head_dim"]
    inner, state = heads * head, c["n_groups"] * c["ssm_state_size"]
    conv_dim = inner + 2 * state
    return h * (2 * inner + 2 * state + heads) + conv_dim * (c["conv_kernel"] + 1) + 3 * heads + inner + inner * h


def _kda(c: dict) -> int:
    """Kimi Delta Attention (Kimi Linear): Q, K, V, output and full-rank forget/output-gate
    projections, beta per head, short convolutions of Q, K and V, decay per head."""
    la, h = c["linear_attn_config"], c["hidden_size"]
    width = la["num_heads"] * la["head_dim"]
    return 6 * h * width + h * la["num_heads"] + 3 * width * la["short_conv_kernel_size"] + 2 * la["num_heads"]


def _moe(
    h: int,
    experts: int,
    inter: int,
    shared_inter: int = 0,
    gated: bool = True,
    router_bias: bool = False,
    latent: int | None = None,
    shared_gate: bool = False,
) -> tuple[int, int]:
    """(all, per expert) of a mixture-of-experts block: router, routed experts (on a latent of size
    ``latent`` with its down/up projections, Nemotron 3), shared experts; the per-expert figure is
    what one routed expert adds."""
    per_expert = _mlp(latent or h, inter, gated)
    fixed = h * experts + (experts if router_bias else 0) + _mlp(h, shared_inter, gated)
    if latent:
        fixed += 2 * h * latent
    if shared_gate:
        fixed += h
    return fixed + experts * per_expert, per_expert


class Count:
    """Running (total, active) of one model, with the KV figure and notes found on the way."""

    def __init__(self) -> None:
        self.total = 0
        self.active = 0

    def add(self, n: int, active: int | None = None) -> None:
        self.total += n
        self.active += n if active is None else active

    def moe(self, block: tuple[int, int], experts: int, top_k: int) -> None:
        full, per_expert = block
        self.add(full, full - (experts - top_k) * per_expert)


def text_config(cfg: dict) -> dict:
    """The language model's config: ``text_config`` of a vision-language config, else the config."""
    return cfg.get("text_config") or cfg


def count(cfg: dict) -> dict:
    """Shape and parameter counts of one config: layers, kv (KV numbers per token per full-attention
    layer), kv_heads, head_dim, context, total, active, notes. Raises KeyError (missing field) or
    NotImplementedError (unknown architecture)."""
    kind = cfg["model_type"]
    c = text_config(cfg)
    h, layers, vocab = c["hidden_size"], c["num_hidden_layers"] if "num_hidden_layers" in c else None, c["vocab_size"]
    heads = c.get("num_attention_heads")
    tied = cfg.get("tie_word_embeddings", c.get("tie_word_embeddings", False))
    n = Count()
    n.add(vocab * h + (0 if tied else vocab * h) + h)  # embeddings, output head, final norm
    notes: list[str] = []
    kv_heads = c.get("num_key_value_heads")
    head = c.get("head_dim") or (h // heads if heads else None)
    kv = None

    def experts_of(*keys):
        return next(c[k] for k in keys if c.get(k))

    if kind in ("llama", "mimo", "qwen3", "qwen3_vl", "qwen3_moe", "qwen3_vl_moe", "mixtral", "minimax_m2", "step3p7"):
        qk_norm = kind.startswith("qwen3") or kind == "step3p7"
        attn = _gqa(h, heads, kv_heads, head, bias=bool(c.get("attention_bias")) and kind == "mimo", qk_norm=qk_norm)
        if kind == "minimax_m2":  # per-layer Q/K norm over all heads
            attn += (heads + kv_heads) * head
        kv = 2 * kv_heads * head
        for i in range(layers):
            n.add(attn + 2 * h)
            if kind in ("qwen3_moe", "qwen3_vl_moe") and i not in c.get("mlp_only_layers", []):
                n.moe(_moe(h, c["num_experts"], c["moe_intermediate_size"]), c["num_experts"], c["num_experts_per_tok"])
            elif kind in ("mixtral", "minimax_m2"):
                n.moe(
                    _moe(h, c["num_local_experts"], c["intermediate_size"], router_bias=kind == "minimax_m2"),
                    c["num_local_experts"],
                    c["num_experts_per_tok"],
                )
            elif kind == "step3p7" and i >= c["first_k_dense_replace"]:
                n.moe(
                    _moe(h, c["num_experts"], c["moe_intermediate_size"], c["share_expert_dim"], router_bias=True),
                    c["num_experts"],
                    c["num_experts_per_tok"],
                )
            else:
                n.add(_mlp(h, c["intermediate_size"]))
        if kind == "step3p7":
            sliding = c["layer_types"].count("sliding_attention")
            notes.append(
                f"{sliding} of {layers} layers sliding-window ({c['sliding_window']} tokens): KV figure "
                f"is the full-attention layer's, an upper bound; exact {(layers - sliding) * kv:,} numbers "
                f"per token plus the windows"
            )
    elif kind == "llama4":
        kv = 2 * kv_heads * head
        step = c["interleave_moe_layer_step"]
        e = c["num_local_experts"]
        for i in range(layers):
            n.add(_gqa(h, heads, kv_heads, head) + 2 * h)
            if (i + 1) % step == 0:
                n.moe(_moe(h, e, c["intermediate_size"], c["intermediate_size"]), e, c["num_experts_per_tok"])
            else:
                n.add(_mlp(h, c["intermediate_size_mlp"]))
        notes.append(
            f"3 of 4 layers use chunked attention ({c['attention_chunk_size']} tokens): KV figure is the "
            f"global layer's, an upper bound"
        )
    elif kind == "gpt_oss":
        kv = 2 * kv_heads * head
        e = c["num_local_experts"]
        per_expert = 3 * h * c["intermediate_size"] + 2 * c["intermediate_size"] + h  # with biases
        block = h * e + e + e * per_expert
        for _ in range(layers):
            n.add(_gqa(h, heads, kv_heads, head, bias=True, out_bias=True) + heads + 2 * h)  # + attention sinks
            n.moe((block, per_expert), e, c["num_experts_per_tok"])
        sliding = c["layer_types"].count("sliding_attention")
        notes.append(
            f"{sliding} of {layers} layers sliding-window ({c['sliding_window']} tokens): KV figure is the "
            f"full-attention layer's, an upper bound; exact {(layers - sliding) * kv:,} numbers per token "
            f"plus the windows"
        )
    elif kind in ("deepseek_v3", "deepseek_v32", "kimi_k2", "kimi_k25", "glm_moe_dsa") or c.get("model_type") in (
        "deepseek_v3",
        "kimi_k2",
    ):
        kv, kv_heads, head = c["kv_lora_rank"] + c["qk_rope_head_dim"], None, None
        e = c["n_routed_experts"]
        sparse = "index_n_heads" in c
        for i in range(layers):
            n.add(_mla(c) + (_indexer(c, c["q_lora_rank"]) if sparse else 0) + 2 * h)
            if i >= c["first_k_dense_replace"] and i % c.get("moe_layer_freq", 1) == 0:
                n.moe(
                    _moe(
                        h,
                        e,
                        c["moe_intermediate_size"],
                        c["n_shared_experts"] * c["moe_intermediate_size"],
                        router_bias=c.get("topk_method") == "noaux_tc",
                    ),
                    e,
                    c["num_experts_per_tok"],
                )
            else:
                n.add(_mlp(h, c["intermediate_size"]))
        notes.append("MLA: KV figure = kv_lora_rank + qk_rope_head_dim")
        if sparse:
            notes.append(
                f"DeepSeek sparse attention: the indexer caches {c['index_head_dim']} more numbers per "
                f"token per layer (not in the KV figure)"
            )
    elif kind in ("deepseek_v4", "deepseek_ref"):
        # Hybrid compressed attention: one shared K=V head of head_dim, low-rank grouped output.
        head, kv_heads = c["head_dim"], c["num_key_value_heads"]
        kv = kv_heads * head
        q_rank, o_rank, groups = c["q_lora_rank"], c["o_lora_rank"], c["o_groups"]
        e, ratios = c["n_routed_experts"], c["compress_ratios"][:layers]
        hc = c["hc_mult"]
        for ratio in ratios:
            attn = (
                h * q_rank
                + q_rank
                + q_rank * heads * head
                + h * head
                + head
                + heads * head * o_rank
                + groups * o_rank * h
                + heads
            )
            if ratio:  # compressor: K/V and gate of the compressed entries
                attn += 2 * h * head * (2 if ratio == 4 else 1) + ratio * head * (2 if ratio == 4 else 1)
            if ratio == 4:  # sparse layers: indexer with its own compressor
                attn += (
                    q_rank * c["index_n_heads"] * c["index_head_dim"]
                    + h * c["index_n_heads"]
                    + 4 * h * c["index_head_dim"]
                )
            mhc = 2 * (hc * h * (2 * hc + hc * hc) + 2 * hc + hc * hc + 1)  # hyper-connection mixing, two per block
            n.add(attn + mhc + 2 * h)
            n.moe(
                _moe(
                    h,
                    e,
                    c["moe_intermediate_size"],
                    c["n_shared_experts"] * c["moe_intermediate_size"],
                    router_bias=True,
                ),
                e,
                c["num_experts_per_tok"],
            )
        n.add(hc * h * hc + hc + 1)  # final hyper-connection reduction
        full = ratios.count(0)
        notes.append(
            f"compressed attention: {ratios.count(4)} layers cache 1 entry per 4 tokens, "
            f"{ratios.count(128)} layers 1 per 128, {full} uncompressed, plus a {c['sliding_window']}-token "
            f"window; KV figure (one shared K=V head of {head}) is the uncompressed layer's, an upper bound"
        )
    elif kind in ("qwen3_5", "qwen3_5_moe"):
        kv = 2 * kv_heads * head
        types = c["layer_types"]
        for i, t in enumerate(types):
            attn = (
                _gqa(h, heads, kv_heads, head, qk_norm=True, out_gate=c.get("attn_output_gate", False))
                if t == "full_attention"
                else _gated_deltanet(c)
            )
            n.add(attn + 2 * h)
            if kind == "qwen3_5_moe":
                n.moe(
                    _moe(
                        h,
                        c["num_experts"],
                        c["moe_intermediate_size"],
                        c["shared_expert_intermediate_size"],
                        shared_gate=True,
                    ),
                    c["num_experts"],
                    c["num_experts_per_tok"],
                )
            else:
                n.add(_mlp(h, c["intermediate_size"]))
        full = types.count("full_attention")
        notes.append(
            f"hybrid: {full} of {layers} layers full attention, the others Gated DeltaNet linear "
            f"attention (a fixed-size state): KV figure is the full-attention layer's, an upper bound; "
            f"exact {full * kv:,} numbers per token"
        )
    elif kind == "mimo_v2_flash":
        v_head = c["v_head_dim"]
        kv = kv_heads * (head + v_head)
        pattern, moe_freq = c["hybrid_layer_pattern"], c["moe_layer_freq"]
        e = c["n_routed_experts"]
        for i in range(layers):
            if pattern[i]:
                attn = (
                    _gqa(
                        h,
                        c["swa_num_attention_heads"],
                        c["swa_num_key_value_heads"],
                        c["swa_head_dim"],
                        c["swa_v_head_dim"],
                    )
                    + c["swa_num_attention_heads"]
                )
            else:
                attn = _gqa(h, heads, kv_heads, head, v_head)
            n.add(attn + 2 * h)
            if moe_freq[i]:
                n.moe(_moe(h, e, c["moe_intermediate_size"], router_bias=True), e, c["num_experts_per_tok"])
            else:
                n.add(_mlp(h, c["intermediate_size"]))
        sliding = sum(1 for p in pattern if p)
        notes.append(
            f"{sliding} of {layers} layers sliding-window ({c['sliding_window']} tokens, "
            f"{c['swa_num_key_value_heads']} KV heads): KV figure is the full-attention layer's "
            f"({kv_heads} KV heads x (K {head} + V {v_head})), an upper bound; exact "
            f"{(layers - sliding) * kv:,} numbers per token plus the windows"
        )
    elif kind in ("minimax_m3", "minimax_m3_vl"):
        kv = 2 * kv_heads * head
        sparse = c["sparse_attention_config"]
        e = c["num_local_experts"]
        for i in range(layers):
            attn = _gqa(h, heads, kv_heads, head, qk_norm=True)
            if sparse["sparse_attention_freq"][i]:
                attn += (
                    h * sparse["sparse_num_index_heads"] * sparse["sparse_index_dim"] + h * sparse["sparse_index_dim"]
                )
            n.add(attn + 2 * h)
            if c["moe_layer_freq"][i]:
                n.moe(
                    _moe(
                        h,
                        e,
                        c["moe_intermediate_size"],
                        c["n_shared_experts"] * c["shared_intermediate_size"],
                        router_bias=True,
                    ),
                    e,
                    c["num_experts_per_tok"],
                )
            else:
                n.add(_mlp(h, c["dense_intermediate_size"]))
        notes.append(
            f"block-sparse attention on {sum(sparse['sparse_attention_freq'])} of {layers} layers "
            f"(the cache keeps every token; the index keys add {sparse['sparse_index_dim']} numbers per "
            f"token on those layers, not in the KV figure)"
        )
    elif kind == "gemma4":
        g_heads, g_head = c["num_global_key_value_heads"], c["global_head_dim"]
        k_eq_v = c.get("attention_k_eq_v", False)
        kv = (1 if k_eq_v else 2) * g_heads * g_head
        kv_heads, head = g_heads, g_head
        types = c["layer_types"]
        e = c.get("num_experts")
        for t in types:
            if t == "full_attention":
                attn = (
                    h * heads * g_head + h * g_heads * g_head * (1 if k_eq_v else 2) + heads * g_head * h + 2 * g_head
                )
            else:
                attn = _gqa(h, heads, c["num_key_value_heads"], c["head_dim"], qk_norm=True)
            n.add(attn + 4 * h + 1)  # pre/post norms of attention and MLP, layer scalar
            n.add(_mlp(h, c["intermediate_size"]))  # every layer has its dense MLP
            if c.get("enable_moe_block"):  # plus, in MoE models, the routed experts
                n.moe(_moe(h, e, c["moe_intermediate_size"]), e, c["top_k_experts"])
        sliding = types.count("sliding_attention")
        notes.append(
            f"{sliding} of {layers} layers sliding-window ({c['sliding_window']} tokens, "
            f"{c['num_key_value_heads']} KV heads of {c['head_dim']}); the global layers' "
            f"{g_heads} KV heads of {g_head} share K and V (attention_k_eq_v): KV figure is the global "
            f"layer's, an upper bound; exact {(layers - sliding) * kv:,} numbers per token plus the windows"
        )
    elif kind == "nemotron_h":
        kinds = _nemotron_blocks(c)
        layers = len(kinds)
        kv = 2 * kv_heads * head if head else 2 * kv_heads * c["attention_head_dim"]
        head = head or c["attention_head_dim"]
        gated = c.get("mlp_hidden_act") not in ("relu2",)
        for b in kinds:
            n.add(h)  # the block's norm
            if b == "M":
                n.add(_mamba2(c))
            elif b == "*":
                n.add(_gqa(h, heads, kv_heads, head))
            elif b == "-":
                n.add(_mlp(h, c["intermediate_size"], gated))
            elif b == "E":
                e = c["n_routed_experts"]
                n.moe(
                    _moe(
                        h,
                        e,
                        c["moe_intermediate_size"],
                        c["moe_shared_expert_intermediate_size"],
                        gated,
                        router_bias=True,
                        latent=c.get("moe_latent_size"),
                    ),
                    e,
                    c["num_experts_per_tok"],
                )
        attention = kinds.count("*")
        notes.append(
            f"hybrid: {layers} blocks ({kinds.count('M')} Mamba-2, {attention} attention, "
            f"{kinds.count('E') + kinds.count('-')} MLP/MoE); only the attention blocks cache K and V: "
            f"KV figure x layers is an upper bound; exact {attention * kv:,} numbers per token"
        )
    elif kind == "nemotron-nas":
        blocks = c["block_configs"]
        kv = None
        attention = 0
        for b in blocks:
            a, f = b["attention"], b["ffn"]
            if not a["no_op"]:
                if a.get("replace_with_linear"):
                    raise NotImplementedError("nemotron-nas block with linear attention")
                group = a["n_heads_in_group"]
                kv_heads = heads // group
                n.add(_gqa(h, heads, kv_heads, head) + h)
                attention += 1
                kv = 2 * kv_heads * head
            if not f["no_op"]:
                if f.get("replace_with_linear"):
                    raise NotImplementedError("nemotron-nas block with a linear FFN")
                n.add(_mlp(h, _decilm_intermediate(f["ffn_mult"], h)) + h)
        notes.append(
            f"NAS-pruned Llama: {attention} of {layers} layers keep attention (the others none): KV "
            f"figure x layers is an upper bound; exact {attention * kv:,} numbers per token"
        )
    elif kind == "kimi_k3":
        la = c["linear_attn_config"]
        full_layers = {i - 1 for i in la["full_attn_layers"]}  # the config counts layers from 1
        kv, kv_heads, head = c["kv_lora_rank"] + c["qk_rope_head_dim"], None, None
        e, latent = c["num_experts"], c["routed_expert_hidden_size"]
        for i in range(layers):
            attn = (
                _mla(c) + (heads * c["v_head_dim"] * h if c.get("mla_use_output_gate") else 0)
                if i in full_layers
                else _kda(c)
            )
            n.add(attn + 2 * h)
            if i >= c["first_k_dense_replace"]:
                n.moe(
                    _moe(
                        h,
                        e,
                        c["moe_intermediate_size"],
                        c["num_shared_experts"] * c["moe_intermediate_size"],
                        router_bias=True,
                        latent=latent,
                    ),
                    e,
                    c["num_experts_per_token"],
                )
            else:
                n.add(_mlp(h, c["intermediate_size"]))
        full = len(full_layers)
        notes.append(
            f"hybrid: {full} of {layers} layers MLA (KV figure = kv_lora_rank + qk_rope_head_dim), the "
            f"others Kimi Delta Attention (a fixed-size state): KV figure is the MLA layer's, an upper "
            f"bound; exact {full * kv:,} numbers per token; routed experts work on a latent of {latent}"
        )
    else:
        raise NotImplementedError(
            f"architecture {kind!r} ({', '.join(cfg.get('architectures') or [])}) has no "
            f"parameter-count formula in this script"
        )
    context = c.get("max_position_embeddings")
    return {
        "layers": layers,
        "kv": kv,
        "kv_heads": kv_heads,
        "head_dim": head,
        "context": context,
        "hidden": h,
        "total": n.total,
        "active": n.active,
        "notes": notes,
        "vision": "vision_config" in cfg,
    }


def _nemotron_blocks(c: dict) -> str:
    """Nemotron-H's blocks as one letter each: M Mamba-2, * attention, - MLP, E MoE."""
    if "hybrid_override_pattern" in c:
        return c["hybrid_override_pattern"]
    letters = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}
    return "".join(letters[b] for b in c["layers_block_type"])


def _decilm_intermediate(ffn_mult: float, h: int) -> int:
    """DeciLM's FFN width: 2/3 x ffn_mult x hidden, rounded up to a multiple of 256."""
    inter = int(2 * ffn_mult * h / 3)
    return inter + (-inter) % 256


# --- rows ---------------------------------------------------------------------------------------------------


def _number(x: float) -> str:
    """A parameter count as the CSV writes it: 3 significant figures (``8.03e9``)."""
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{float(mantissa):g}e{int(exponent)}"


def _billions(x: float) -> str:
    return f"{x / 1e12:.3g}T" if x >= 1e12 else f"{x / 1e9:.3g}B"


def _name(stem: str) -> str:
    repo = QUANT_SUFFIX.sub("", stem.split("--", 1)[1]).replace("_", ".")
    return repo.replace("-", " ").replace("Meta Llama", "Llama")


def _checked(
    model: str, what: str, computed: int, stated: float | None, problems: list[str], notes: list[str]
) -> float:
    """The figure to write: the computed one, unless a model card states one more than 2 % away."""
    if stated is None:
        return computed
    off = computed / stated - 1
    if abs(off) <= TOLERANCE:
        notes.append(f"{what} computed {_billions(computed)}, model card {_billions(stated)} ({off:+.1%})")
        return computed
    problems.append(
        f"{model}: {what} computed {_billions(computed)} differs from the model card's "
        f"{_billions(stated)} by {off:+.1%}: the card's figure is written"
    )
    notes.append(
        f"{what} from the model card ({_billions(stated)}); the config formula gives {_billions(computed)} ({off:+.1%})"
    )
    return stated


def package_rows() -> tuple[dict[str, dict[str, str]], list[dict[str, str]], list[str]]:
    """(rows by id, not-imported rows, problems) from the package's configs."""
    configs = _configs()
    pkg = f"{PACKAGE} {version(PACKAGE)}"
    rows: dict[str, dict[str, str]] = {}
    shapes: dict[str, tuple] = {}
    skipped: list[dict[str, str]] = []
    problems: list[str] = []
    # Unquantised configs first, so that a quantised variant meets the model it duplicates.
    order = sorted(configs, key=lambda s: (bool(QUANT_SUFFIX.search(s.removesuffix("_config"))), s.lower()))
    for name in order:
        file = f"{name}.json"
        if name.endswith("_hf_quant_config"):
            skipped.append({"config": file, "reason": "quantisation recipe (hf_quant_config), no architecture"})
            continue
        stem = name.removesuffix("_config")
        cfg = configs[name]
        try:
            found = count(cfg)
        except (KeyError, TypeError, NotImplementedError) as error:
            reason = str(error) if isinstance(error, NotImplementedError) else f"missing or unreadable field {error}"
            if catalog_id(stem) in rows:
                reason = (
                    f"quantised variant of {catalog_id(stem)} (listed from {rows[catalog_id(stem)]['_config']}); "
                    f"its own config could not be counted ({reason}), so the shapes were not compared"
                )
            skipped.append({"config": file, "reason": reason})
            continue
        if found["layers"] is None or found["kv"] is None:
            skipped.append({"config": file, "reason": "no layer count or attention shape in the config"})
            continue
        model = catalog_id(stem)
        shape = (found["layers"], found["kv"], found["total"], found["active"])
        if model in rows:
            same = shapes[model] == shape
            skipped.append(
                {
                    "config": file,
                    "reason": f"{'duplicate architecture' if same else 'another checkpoint'}"
                    f" of {model} (listed from {rows[model]['_config']}): "
                    f"{'same layers, KV and parameters' if same else 'shape differs, first one kept'}",
                }
            )
            continue
        url, total, active, month = CARDS.get(model, (None, None, None, None))
        notes = list(found["notes"])
        if found["vision"]:
            notes.insert(0, "language model only (vision encoder not counted)")
        if QUANT_SUFFIX.search(stem):
            notes.insert(
                0,
                f"config of the quantised checkpoint {stem.replace('--', '/')} (the package has no "
                f"unquantised one); parameters counted at the architecture's shapes",
            )
        total_out = _checked(model, "total", found["total"], total, problems, notes)
        active_out = _checked(model, "active", found["active"], active, problems, notes)
        if found["active"] == found["total"] or active_out > total_out:  # dense: every parameter is active
            active_out = total_out
        source = (
            f"{stem.replace('--', '/')} config.json as shipped in {pkg} ({FOLDER}/{file}; context = "
            f"max_position_embeddings)"
        )
        source += f"; total from the model card {url}" if url else "; parameters computed from the config"
        if not month:
            notes.append(f"as_of is the package's release ({PACKAGE_MONTH}): release month not in CARDS")
        rows[model] = {
            "model": model,
            "name": _name(stem),
            "total_parameters": _number(total_out),
            "active_parameters": _number(active_out),
            "layers": str(found["layers"]),
            "kv_elements_per_token_per_layer": str(found["kv"]),
            "quality": "P",
            "as_of": month or PACKAGE_MONTH,
            "source": source,
            "notes": "; ".join(notes),
            "kv_heads": "" if found["kv_heads"] is None else str(found["kv_heads"]),
            "head_dim": "" if found["head_dim"] is None else str(found["head_dim"]),
            "context_length_tokens": "" if found["context"] is None else str(found["context"]),
            "hidden_size": str(found["hidden"]),
            "_config": file,
        }
        shapes[model] = shape
    skipped.sort(key=lambda r: r["config"].lower())
    return rows, skipped, problems


def _csv(rows: list[dict[str, str]], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def refreshed(text: str) -> tuple[str, str, list[str]]:
    """(models.csv text, not_imported.csv text, problems) from the current models.csv and the package."""
    fresh, skipped, problems = package_rows()
    kept = {}
    for row in csv.DictReader(io.StringIO(text)):
        row = {k: row.get(k) or "" for k in COLUMNS}
        if row["model"] in KEEP or row["model"] not in fresh or row["notes"].lower().startswith("override"):
            kept[row["model"]] = row
            if row["model"] in fresh and not row["hidden_size"]:  # a column added after the row was kept
                row["hidden_size"] = fresh[row["model"]]["hidden_size"]
            if row["model"] in fresh:
                kept_changes = _kept_differences(row, fresh[row["model"]])
                problems.extend(kept_changes)
                skipped.append(
                    {
                        "config": fresh[row["model"]]["_config"],
                        "reason": (
                            f"row {row['model']} kept as it is (hand-kept: bundled scenarios use it)"
                            + (": " + "; ".join(d.split(": ", 1)[1] for d in kept_changes) if kept_changes else "")
                        ),
                    }
                )
    skipped.sort(key=lambda r: r["config"].lower())
    merged = {**fresh, **kept}
    rows = [merged[k] for k in sorted(merged)]
    return _csv(rows, COLUMNS), _csv(skipped, NOT_IMPORTED_COLUMNS), problems


def _kept_differences(kept: dict[str, str], fresh: dict[str, str]) -> list[str]:
    """What the package would change in a hand-kept row (reported, not applied)."""
    out = []
    for column in (
        "total_parameters",
        "active_parameters",
        "layers",
        "kv_elements_per_token_per_layer",
        "kv_heads",
        "head_dim",
        "context_length_tokens",
    ):
        old, new = kept[column], fresh[column]
        if old and new and float(old) != float(new) or (not old) != (not new):
            out.append(f"{kept['model']}: kept {column}={old or '(empty)'}; the package gives {new or '(empty)'}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report whether the CSVs differ; change nothing")
    parser.add_argument("--path", type=Path, default=CSV)
    parser.add_argument("--not-imported", type=Path, default=NOT_IMPORTED)
    args = parser.parse_args(argv)
    old = args.path.read_text(encoding="utf-8")
    old_skipped = args.not_imported.read_text(encoding="utf-8") if args.not_imported.exists() else ""
    new, skipped, problems = refreshed(old)
    for line in problems:
        print(f"note: {line}", file=sys.stderr)
    for row in csv.DictReader(io.StringIO(skipped)):
        print(f"not imported: {row['config']}: {row['reason']}", file=sys.stderr)
    if args.check:
        changes = (
            differences(old, new, "model") + differences(old_skipped, skipped, "config")
            if old_skipped
            else differences(old, new, "model") + ["not_imported.csv missing"]
        )
        for line in changes:
            print(line)
        print("up to date" if not changes else f"differs from {PACKAGE} {version(PACKAGE)}: run without --check")
        return 0 if not changes else 1
    args.path.write_text(new, encoding="utf-8")
    args.not_imported.parent.mkdir(parents=True, exist_ok=True)
    args.not_imported.write_text(skipped, encoding="utf-8")
    print(
        f"wrote {args.path} ({new.count(chr(10)) - 1} models) and {args.not_imported} from {PACKAGE} {version(PACKAGE)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Serving curves estimated with NVIDIA's AIConfigurator (``aiconfigurator-core``): the one adapter.

This is the only module that imports ``aiconfigurator_core``, and it imports it only when a curve is
asked for, so ``import costmodel`` never pays for the 82 MB wheel and a default install (without the
``estimate`` extra) runs everything else. The package is pinned to :data:`PINNED`; another version is
refused, because the committed curves (data/serving_curves_estimated.csv) were generated with it and
a test regenerates a sample of them.

What the package does: a database of kernel latencies measured on each system (GEMM, attention,
MoE, communication) under TensorRT-LLM, vLLM and SGLang, and a step model of continuous batching
("agg": prefill chunks and decode steps mixed in one engine) and of prefill/decode workers run apart
("disagg"). What this adapter adds: catalog ids in, rows of data/serving_curves.csv out; a sweep of
the batch size (and of the parallelism, when it is not given); points whose weights and KV cache do
not fit the GPUs are left out (never a point the hardware cannot run).

The adapter touches these modules of the package beyond its documented facade (``aiconfigurator_core
.sdk``'s ``ModelConfig``/``RuntimeConfig``): ``sdk.models.get_model``, ``sdk.perf_database
.get_database``, ``sdk.backends.factory.get_backend`` and the backends' ``run_agg``/``run_static``
(the package's own CLI calls the same), tested with version :data:`PINNED` only.

References
----------
NVIDIA, AIConfigurator (ai-dynamo/aiconfigurator), ``aiconfigurator-core`` 0.12.0, Apache-2.0:
https://pypi.org/project/aiconfigurator-core/0.12.0/ (systems/, model_configs/, sdk/backends/).
"""

from __future__ import annotations

import csv
import functools
import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from typing import Any

PACKAGE = "aiconfigurator-core"
PINNED = "0.12.0"
"""The version the adapter and the committed curves were made with."""
RELEASED = "2026-09"
"""as_of of an estimated curve: aiconfigurator-core 0.12.0 was released with ai-dynamo/aiconfigurator
pull request #1601 (version bump, merged 2026-09-01)."""

SYSTEMS = {
    # aiconfigurator-core system (systems/<name>.yaml): catalog GPU id
    "a100_sxm": "A100-SXM-80GB",
    "a100_pcie": "A100-PCIE-80GB",
    "a30": "A30-24GB",
    "h100_sxm": "H100-SXM-80GB",
    "h100_pcie": "H100-PCIE-80GB",
    "h200_sxm": "H200-SXM-141GB",
    "b200_sxm": "B200-SXM-180GB",
    "b300_sxm": "B300-SXM-288GB",
    "gb200": "GB200-NVL72-186GB",
    "gb300": "GB300-NVL72-288GB",
    "l4": "L4-24GB",
    "l40s": "L40S-48GB",
    "rtx_pro_6000_server": "RTX-PRO-6000-96GB",
}
"""The package's systems and the catalog GPU each is (scripts/refresh_gpus.py imports it)."""

MODEL_IDS = {
    # config stem (org--repo) -> catalog id, where the lowercased repo name is not the id
    "meta-llama--Meta-Llama-3.1-8B": "llama-3.1-8b",
    "meta-llama--Meta-Llama-3.1-70B": "llama-3.1-70b",
    "meta-llama--Meta-Llama-3.1-405B": "llama-3.1-405b",
    "nvidia--Llama-3.1-70B-Instruct-FP8": "llama-3.1-70b",
    "nvidia--Llama-3_3-Nemotron-Super-49B-v1": "llama-3.3-nemotron-super-49b-v1",
    "meta-llama--Llama-4-Maverick-17B-128E-Instruct": "llama-4-maverick",
    "meta-llama--Llama-4-Scout-17B-16E-Instruct": "llama-4-scout",
    "nvidia--DeepSeek-V3.1-NVFP4": "deepseek-v3.1",
}
"""Config files of the package whose catalog id is not their lowercased repository name
(:func:`catalog_id`; scripts/refresh_models.py imports both)."""

SAME_ARCHITECTURE = {
    "llama-3.3-70b": "llama-3.1-70b",
}
"""Catalog models the package has no config of, estimated with one that has the same architecture:
Llama 3.3 70B's config.json (https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct) has the layers,
widths, heads and vocabulary of Llama 3.1 70B's; only the weights differ."""

ENGINES = ("trtllm", "vllm", "sglang")
ENGINE_NAMES = {"trtllm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}
PRECISIONS = ("fp8", "bf16", "fp4")
PASSED = ("PASS", "HYBRID_PASS")
"""Support-matrix states of a (model, system, engine) the package's own runs completed."""

BATCHES = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
"""Batch sizes a curve is swept at (the package's own agg sweep goes to 512 by default). [requests]"""
COMMITTED_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
"""Batch sizes of the committed curves and of those computed for a scenario's levers. [requests]"""
REPLICA_SIZES = (1, 2, 4, 8)
"""GPUs per replica tried when none is given (tensor or expert parallel within one node). [GPU]"""


class EstimateUnavailable(RuntimeError):
    """aiconfigurator-core is not installed, or not the pinned version."""


class NotCovered(ValueError):
    """The package's database does not cover the model, GPU, engine or precision asked for."""


def installed_version() -> str | None:
    """The installed version of aiconfigurator-core, or None."""
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return None


def require() -> str:
    """The pinned version, if it is the installed one. Raises :class:`EstimateUnavailable` otherwise."""
    found = installed_version()
    if found is None:
        raise EstimateUnavailable(
            f"{PACKAGE} is not installed: pip install 'costmodel[estimate]' (installs {PACKAGE}=={PINNED}, Apache-2.0)"
        )
    if found != PINNED:
        raise EstimateUnavailable(
            f"{PACKAGE} {found} is installed; costmodel's adapter is tested with {PINNED} "
            f"only: pip install '{PACKAGE}=={PINNED}'"
        )
    return found


def _files():
    return resources.files("aiconfigurator_core")


@functools.cache
def model_configs() -> dict[str, str]:
    """Catalog model id -> the package's model path (``org/repo``) it is estimated with.

    The unquantised config of a model is preferred (the precision is set by the caller); a model the
    package has only in a quantised form (``-FP8``, ``-NVFP4``) maps to that form."""
    require()
    stems = sorted(
        p.name[: -len("_config.json")]
        for p in (_files() / "model_configs").iterdir()
        if p.name.endswith("_config.json") and not p.name.endswith("_hf_quant_config.json")
    )
    found: dict[str, str] = {}
    for stem in sorted(stems, key=lambda s: (_quantised(s), s)):
        ident = catalog_id(stem)
        found.setdefault(ident, stem.replace("--", "/", 1))
    for alias, same in SAME_ARCHITECTURE.items():
        if same in found:
            found[alias] = found[same]
    return found


def _quantised(stem: str) -> bool:
    repo = stem.split("--", 1)[-1].lower()
    return any(tag in repo for tag in ("-fp8", "-nvfp4", "-bf16"))


def catalog_id(stem: str) -> str:
    """The catalog id of a package config stem (``org--repo``): :data:`MODEL_IDS` where listed, else the
    repository name without its precision tag and ``Meta-``/``NVIDIA-`` prefix, ``_`` read as ``.`` and
    lowercased (``nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16`` -> ``nemotron-3-nano-30b-a3b``).
    scripts/refresh_models.py names data/models.csv's rows with it."""
    if stem in MODEL_IDS:
        return MODEL_IDS[stem]
    repo = re.sub(r"-(?:FP8(?:-Static-PerTensor)?|NVFP4|BF16)$", "", stem.split("--", 1)[-1])
    for prefix in ("Meta-", "NVIDIA-"):
        repo = repo.removeprefix(prefix)
    return repo.replace("_", ".").lower()


@functools.cache
def _support() -> dict[tuple[str, str, str], list[tuple[str, str, str]]]:
    """(model path, system, engine) -> [(version, mode, status)] from the package's support matrices."""
    require()
    table: dict[tuple[str, str, str], list[tuple[str, str, str]]] = {}
    for path in sorted((_files() / "systems" / "support_matrix").iterdir(), key=lambda p: p.name):
        if not path.name.endswith(".csv"):
            continue
        # Traversable.open passes its keywords to open(); typeshed's stub leaves out newline
        with path.open(encoding="utf-8", newline="") as handle:  # pyright: ignore[reportCallIssue]
            for row in csv.DictReader(handle):
                table.setdefault((row["HuggingFaceID"], row["System"], row["Backend"]), []).append(
                    (row["Version"], row["Mode"], row["Status"])
                )
    return table


def coverage(engine: str | None = None) -> list[tuple[str, str, str]]:
    """Every (catalog model, catalog GPU, engine) the package's database covers.

    Covered means the package's support matrix records a completed run (``PASS`` or ``HYBRID_PASS``)
    of that model path on that system with that engine, in aggregated serving."""
    configs = model_configs()
    support = _support()
    paths = {path: [m for m, p in configs.items() if p == path] for path in set(configs.values())}
    covered = set()
    for (path, system, backend), runs in support.items():
        if (
            (engine is None or backend == engine)
            and system in SYSTEMS
            and path in paths
            and any(mode == "agg" and status in PASSED for _, mode, status in runs)
        ):
            covered.update((model, SYSTEMS[system], backend) for model in paths[path])
    return sorted(covered)


def system_of(gpu: str) -> str:
    """The package's system name of a catalog GPU id. Raises :class:`NotCovered`."""
    for system, ident in SYSTEMS.items():
        if ident == gpu:
            return system
    raise NotCovered(f"GPU {gpu} is not a system of {PACKAGE} {PINNED}; covered: {', '.join(sorted(SYSTEMS.values()))}")


def check_covered(model: str, gpu: str, engine: str) -> None:
    """Raise :class:`NotCovered` naming what is covered when (model, gpu, engine) is not."""
    if engine not in ENGINES:
        raise NotCovered(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    covered = coverage()
    if (model, gpu, engine) in covered:
        return
    models = sorted({m for m, g, e in covered if g == gpu and e == engine})
    gpus = sorted({g for m, g, e in covered if m == model and e == engine})
    engines = sorted({e for m, g, e in covered if m == model and g == gpu})
    where = (
        f"{engine} covers {model} on: {', '.join(gpus)}"
        if gpus
        else f"{model} is not covered with {engine}"
        if model in model_configs()
        else f"{model} is not a model of {PACKAGE} {PINNED}"
    )
    raise NotCovered(
        f"{PACKAGE} {PINNED} does not cover {model} on {gpu} with {engine}: {where}"
        + (f"; on {gpu}, {engine} covers: {', '.join(models)}" if models else "")
        + (f"; engines covering {model} on {gpu}: {', '.join(engines)}" if engines else "")
        + ". Every pair: costmodel curves --list"
    )


@dataclass(frozen=True)
class Levers:
    """What self-hosters do to cut cost, each off by default.

    Attributes
    ----------
    prefix_cache_hit_rate
        Share of each request's input tokens found in the prefix cache (not prefilled again). [-]
    speculative_tokens
        Draft tokens proposed per decode step (MTP / speculative decoding); 0 is off. [tokens]
    acceptance_rate
        Share of draft tokens accepted; a step then commits 1 + speculative_tokens x acceptance_rate
        tokens. [-]
    kv_cache_precision
        Precision the KV cache is held at: ``fp8`` or ``bf16``; None follows the weights'
        (``fp8`` for fp8 and fp4 weights). [-]
    """

    prefix_cache_hit_rate: float = 0.0
    speculative_tokens: int = 0
    acceptance_rate: float = 0.0
    kv_cache_precision: str | None = None

    def __post_init__(self):
        if not 0 <= self.prefix_cache_hit_rate < 1:
            raise ValueError(f"prefix_cache_hit_rate {self.prefix_cache_hit_rate:g} is not in [0, 1)")
        if not 0 <= self.acceptance_rate <= 1:
            raise ValueError(f"acceptance_rate {self.acceptance_rate:g} is not in [0, 1]")
        if not 0 <= self.speculative_tokens <= 8:
            raise ValueError(f"speculative_tokens {self.speculative_tokens} is not in 0 to 8")
        if self.kv_cache_precision not in (None, "fp8", "bf16"):
            raise ValueError(f"kv_cache_precision {self.kv_cache_precision!r} is not fp8 or bf16")
        if self.acceptance_rate and not self.speculative_tokens:
            raise ValueError(f"acceptance_rate {self.acceptance_rate:g} needs speculative_tokens of at least 1")
        if self.speculative_tokens and not self.acceptance_rate:
            raise ValueError(
                f"speculative_tokens {self.speculative_tokens} need an acceptance_rate above 0 "
                "(the share of drafts accepted)"
            )

    @property
    def tokens_per_decode_step(self) -> float:
        """Output tokens a decode step commits. [tokens]"""
        return 1.0 + self.speculative_tokens * self.acceptance_rate

    def describe(self) -> str:
        parts = []
        if self.prefix_cache_hit_rate:
            parts.append(f"prefix-cache hit rate {self.prefix_cache_hit_rate:g}")
        if self.speculative_tokens:
            parts.append(f"{self.speculative_tokens} speculative tokens at acceptance {self.acceptance_rate:g}")
        if self.kv_cache_precision:
            parts.append(f"KV cache {self.kv_cache_precision}")
        return ", ".join(parts)


def _recipes(precision: str, kv: str | None) -> list[tuple[str, str, str] | None]:
    """The package's (GEMM, KV cache, attention) quantisation modes for a catalog precision, in the
    order tried: the KV cache and attention at the weights' precision first, then attention in BF16
    (the MLA kernels of DeepSeek-class models are measured so), then FP8 block scaling of the GEMMs
    (DeepSeek's own FP8 recipe), then None: the modes the package infers from the checkpoint's own
    quantisation config (gpt-oss ships MXFP4 experts, measured as ``w4a16_mxfp4``), kept only when
    they are of the precision asked for."""
    gemm = {"bf16": "bfloat16", "fp8": "fp8", "fp4": "nvfp4"}[precision]
    kv_mode = {"bf16": "bfloat16", "fp8": "fp8"}[kv or ("bf16" if precision == "bf16" else "fp8")]
    tried: list[tuple[str, str, str] | None] = [(gemm, kv_mode, kv_mode), (gemm, kv_mode, "bfloat16")]
    if gemm == "fp8":
        tried += [("fp8_block", kv_mode, kv_mode), ("fp8_block", kv_mode, "bfloat16")]
    if kv is None:
        tried.append(None)
    return list(dict.fromkeys(tried))


def _quant(common, recipe: tuple[str, ...] | None) -> dict[str, Any]:
    if recipe is None:
        return {}
    gemm, kv, fmha = recipe
    moe = "fp8_block" if gemm == "fp8_block" else gemm
    return {
        "gemm_quant_mode": common.GEMMQuantMode[gemm],
        "moe_quant_mode": common.MoEQuantMode[moe],
        "kvcache_quant_mode": common.KVCacheQuantMode[kv],
        "fmha_quant_mode": common.FMHAQuantMode[fmha],
    }


def precision_of(mode_name: str) -> str:
    """The catalog precision of a package quantisation mode's name (``fp8_block`` -> ``fp8``,
    ``w4a16_mxfp4`` -> ``fp4``, ``bfloat16`` -> ``bf16``). [-]"""
    name = mode_name.lower()
    if "fp4" in name or name.startswith(("w4", "int4")):
        return "fp4"
    if "fp8" in name or "int8" in name:
        return "fp8"
    return "bf16"


@dataclass(frozen=True)
class Layout:
    """How a replica is split: tensor, attention data and expert parallel degrees. [GPU]"""

    tp: int
    attention_dp: int = 1
    ep: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.attention_dp

    @property
    def label(self) -> str:
        parts = [f"TP{self.tp}"] if self.attention_dp == 1 else [f"DP{self.attention_dp}"]
        if self.attention_dp > 1 and self.tp > 1:
            parts = [f"TP{self.tp}", f"DP{self.attention_dp}"]
        if self.ep > 1:
            parts.append(f"EP{self.ep}")
        return " ".join(parts)


def layouts(is_moe: bool, gpus: int) -> list[Layout]:
    """Splits of a replica of ``gpus`` GPUs: tensor parallel for a dense model; for a mixture of
    experts, tensor-parallel attention with expert-parallel experts, and attention data parallel with
    expert-parallel experts (DeepSeek's serving layout)."""
    if not is_moe:
        return [Layout(gpus)]
    if gpus == 1:
        return [Layout(1)]
    return [Layout(gpus, 1, gpus), Layout(1, gpus, gpus)]


@dataclass(frozen=True)
class Request:
    """A request shape: input and output tokens. [tokens]"""

    input_tokens: int
    output_tokens: int


def _silence():
    logging.getLogger("aiconfigurator_core").setLevel(logging.ERROR)
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("aiconfigurator"):
            logging.getLogger(name).setLevel(logging.ERROR)


@functools.cache
def _database(system: str, engine: str):
    from aiconfigurator_core.sdk.perf_database import get_database

    _silence()
    root = _files() / "systems" / "query_versions.yaml"
    import yaml

    slots = yaml.safe_load(root.read_text(encoding="utf-8"))
    current = (slots.get("overrides", {}).get(system, {}).get(engine) or slots["defaults"][engine])["current"]
    database = get_database(system, engine, current)
    if database is None:
        raise NotCovered(f"{PACKAGE} {PINNED} has no {engine} database for {system}")
    return database


def engine_version(gpu: str, engine: str) -> str:
    """The engine version of the package's database for a GPU (its ``current`` slot)."""
    return _database(system_of(gpu), engine).version


def _model(
    path: str, recipe: tuple[str, ...] | None, layout: Layout, engine: str, levers: Levers, is_moe: bool, precision: str
):
    from aiconfigurator_core.sdk import common, config
    from aiconfigurator_core.sdk.models import get_model

    _silence()
    settings: dict[str, Any] = dict(
        tp_size=layout.tp,
        pp_size=1,
        attention_dp_size=layout.attention_dp,
        moe_tp_size=(layout.gpus // layout.ep) if is_moe else 1,
        moe_ep_size=layout.ep if is_moe else 1,
        nextn=levers.speculative_tokens,
        **_quant(common, recipe),
    )
    settings_model = config.ModelConfig(**settings)
    built = get_model(path, settings_model, engine)
    if recipe is None:
        # the package filled in the checkpoint's modes; the weights' precision is the experts' for a MoE
        gemm, kv, fmha = (
            settings_model.gemm_quant_mode,
            settings_model.kvcache_quant_mode,
            settings_model.fmha_quant_mode,
        )
        weights = settings_model.moe_quant_mode if is_moe else gemm
        assert gemm is not None and kv is not None and fmha is not None and weights is not None, (
            "get_model fills in the modes a recipe leaves unset"
        )
        recipe = (gemm.name, kv.name, fmha.name) + ((f"experts {weights.name}",) if is_moe else ())
        if precision_of(weights.name) != precision:
            raise ValueError(f"the checkpoint's own quantisation is {weights.name}, not {precision}")
    return built, recipe


def _is_moe(path: str) -> bool:
    import json

    text = (_files() / "model_configs" / (path.replace("/", "--", 1) + "_config.json")).read_text(encoding="utf-8")
    raw = json.loads(text)
    raw = raw.get("text_config", raw) if isinstance(raw, dict) else raw
    return any(raw.get(k) for k in ("num_local_experts", "n_routed_experts", "num_experts", "moe_num_experts"))


def _context_tokens(isl: int) -> list[int]:
    """Step budgets (TensorRT-LLM's max_num_tokens: context tokens per mixed step) a curve is made at,
    one curve each: the input of one and of two requests, and TensorRT-LLM's default 8,192 when
    larger. A small budget keeps the TTFT short, a large one buys throughput; sizing takes the best
    point of any of them that meets the target. [tokens]

    The whole input, cached prefix included: the package's aggregated step model counts the steps
    to finish a request's context from its whole input (``ceil(isl · b / ctx_tokens)``), so a step
    budget of the uncached part only would spread one prefill over several steps."""
    return sorted({isl, 2 * isl} | ({8192} if 8192 > isl else set()))


def _point_id(
    model: str,
    gpu: str,
    precision: str,
    layout: Layout,
    engine: str,
    request: Request,
    mode: str,
    levers: Levers,
    step_tokens: int | None = None,
) -> str:
    short = gpu.split("-")[0].lower()
    tag = layout.label.lower().replace(" ", "")
    extra = "".join(
        [
            f"-pc{levers.prefix_cache_hit_rate:g}" if levers.prefix_cache_hit_rate else "",
            f"-mtp{levers.speculative_tokens}a{levers.acceptance_rate:g}" if levers.speculative_tokens else "",
            f"-kv{levers.kv_cache_precision}" if levers.kv_cache_precision else "",
        ]
    )
    budget = f"-ctx{step_tokens}" if step_tokens else ""
    return (
        f"aic-{model}-{short}-{precision}-{tag}-{engine}-{mode}-{request.input_tokens}-"
        f"{request.output_tokens}{budget}{extra}"
    )


def curve(
    model: str,
    gpu: str,
    request: Request,
    *,
    precision: str = "fp8",
    engine: str = "trtllm",
    gpus_per_replica: int | None = None,
    disaggregated: bool = False,
    levers: Levers = Levers(),
    batches: Sequence[int] = BATCHES,
) -> list[dict[str, Any]]:
    """Estimated serving-curve rows for a model on a GPU, one per batch size that fits in memory, for each
    replica split and (aggregated) step budget, one curve each.

    Parameters
    ----------
    model
        Catalog model id (data/models.csv). [-]
    gpu
        Catalog GPU id (data/gpus.csv). [-]
    request
        Input and output tokens per request. [tokens]
    precision
        Weights' precision: ``fp8``, ``bf16`` or ``fp4`` (Blackwell). [-]
    engine
        ``trtllm``, ``vllm`` or ``sglang``. [-]
    gpus_per_replica
        GPUs of a replica; None sweeps 1, 2, 4 and 8 and keeps every one that fits. [GPU]
    disaggregated
        False: one engine mixes prefill and decode (continuous batching). True: prefill and decode
        workers apart, one curve each (``prefill`` rows give input tokens/s per GPU and the prefill
        batch's TTFT; ``decode`` rows give output tokens/s per GPU and per user). [-]
    levers
        Prefix caching, speculative decoding, KV-cache precision. [-]
    batches
        Batch sizes swept. [requests]

    Returns
    -------
    list of dict
        Rows in the columns of data/serving_curves.csv (plus ``phase`` and
        ``input_tokens_per_second_per_gpu``), quality ``E``.

    Raises
    ------
    EstimateUnavailable
        aiconfigurator-core is missing or not version :data:`PINNED`.
    NotCovered
        The database does not cover the model on the GPU with the engine, or no layout fits.
    """
    require()
    if precision not in PRECISIONS:
        raise NotCovered(f"precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    if request.output_tokens < 2:
        raise NotCovered(
            f"{request.output_tokens} output token per request: a serving curve needs at least 2 "
            "(the first comes with the prefill; tokens/s per user is measured over the rest)"
        )
    if round(request.input_tokens * levers.prefix_cache_hit_rate) >= request.input_tokens:
        raise NotCovered(
            f"a prefix-cache hit rate of {levers.prefix_cache_hit_rate:g} leaves none of the "
            f"{request.input_tokens:,} input tokens to prefill: lower it or give a longer input"
        )
    check_covered(model, gpu, engine)
    path = model_configs()[model]
    system = system_of(gpu)
    database = _database(system, engine)
    moe = _is_moe(path)
    sizes = [gpus_per_replica] if gpus_per_replica else list(REPLICA_SIZES)
    node = int(database.system_spec["node"]["num_gpus_per_node"])
    rows: list[dict[str, Any]] = []
    failures = []
    for size in sizes:
        if size > node:
            failures.append(f"{size} GPUs per replica: more than one {system} node ({node} GPUs)")
            continue
        for layout in layouts(moe, size):
            found, refusals = None, []
            for recipe in _recipes(precision, levers.kv_cache_precision):
                try:
                    found = (_disaggregated_rows if disaggregated else _aggregated_rows)(
                        model, gpu, path, precision, recipe, layout, engine, database, request, levers, moe, batches
                    )
                    break
                except Exception as exc:  # the package's own refusal (quantisation, kernel table missing)
                    refusals.append(("/".join(recipe) if recipe else "the checkpoint's own", _reason(exc)))
            if found is None:
                reasons = {}
                for tried, why in refusals:
                    reasons.setdefault(why, []).append(tried)
                failures.append(f"{layout.label}: " + "; ".join(f"{', '.join(t)}: {why}" for why, t in reasons.items()))
                continue
            if not found:
                failures.append(
                    f"{layout.label}: the weights and the KV cache of the smallest batch asked for do not fit"
                )
            rows += found
    if not rows:
        raise NotCovered(
            f"no {model} replica on {gpu} at {precision} with {engine} could be estimated: " + "; ".join(failures)
        )
    return rows


def _reason(exc: Exception, most: int = 120) -> str:
    """The first sentence of the package's refusal, at most ``most`` characters, cut at a word."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    for stop in (". ", ": either", " at /"):
        text = text.split(stop, 1)[0]
    text = text.removeprefix("perf database error: ").removeprefix("perf database error: ")
    if len(text) > most:
        text = text[:most].rsplit(" ", 1)[0] + " …"
    return text


def _source(system: str, engine: str, database, layout: Layout, mode: str, detail: str, levers: Levers) -> str:
    what = levers.describe()
    return (
        f"{PACKAGE} {PINNED} estimate: {ENGINE_NAMES[engine]} {database.version} kernel database of {system}, "
        f"{mode} serving, {layout.label}, {detail}" + (f", {what}" if what else "")
    )


def _row(
    model,
    gpu,
    precision,
    layout,
    engine,
    database,
    request,
    levers,
    mode,
    concurrency,
    output_per_gpu,
    per_user,
    ttft_seconds,
    detail,
    input_per_gpu=None,
    step_tokens=None,
) -> dict[str, Any]:
    curve_id = _point_id(model, gpu, precision, layout, engine, request, mode, levers, step_tokens)
    return {
        "point": f"{curve_id}-c{concurrency:g}",
        "curve": curve_id,
        "model": model,
        "gpu": gpu,
        "precision": precision,
        "gpus_per_replica": layout.gpus,
        "parallelism": layout.label,
        "engine": f"{ENGINE_NAMES[engine]} {database.version}",
        "input_tokens": request.input_tokens,
        "output_tokens": request.output_tokens,
        "concurrency": concurrency,
        "output_tokens_per_second_per_gpu": _sig(output_per_gpu),
        "tokens_per_second_per_user": _sig(per_user),
        "ttft_seconds": _sig(ttft_seconds),
        "ttft_statistic": "mean",
        "quality": "E",
        "as_of": RELEASED,
        "source": _source(database.system, engine, database, layout, mode, detail, levers),
        "notes": "",
        "phase": {"agg": "aggregated", "prefill": "prefill", "decode": "decode"}[mode],
        "input_tokens_per_second_per_gpu": _sig(input_per_gpu),
    }


def _recipe_text(recipe: tuple[str, ...]) -> str:
    gemm, kv, fmha, *experts = recipe
    return f"GEMM {gemm}, KV cache {kv}, attention {fmha}" + "".join(f", {e}" for e in experts)


def _sig(value: float | None) -> float | None:
    """Six significant digits: the estimate's own precision is far coarser, and the committed file
    stays the same across platforms."""
    if value is None:
        return None
    return float(f"{value:.6g}")


def _aggregated_rows(model, gpu, path, precision, recipe, layout, engine, database, request, levers, moe, batches):
    from aiconfigurator_core.sdk import config
    from aiconfigurator_core.sdk.backends.factory import get_backend

    built, recipe = _model(path, recipe, layout, engine, levers, moe, precision)
    backend = get_backend(engine)
    prefix = int(round(request.input_tokens * levers.prefix_cache_hit_rate))
    extra = {"decode_tokens_per_iteration": levers.tokens_per_decode_step} if levers.speculative_tokens else {}
    rows = []
    for ctx in _context_tokens(request.input_tokens):  # one curve per step budget (max_num_tokens)
        for b in batches:
            runtime = config.RuntimeConfig(
                batch_size=b, isl=request.input_tokens, osl=request.output_tokens, prefix=prefix
            )
            summary = backend.run_agg(built, database, runtime, ctx_tokens=ctx, **extra)
            if summary.check_oom():
                break  # a larger batch holds more KV cache: it does not fit either
            r = summary.get_summary_df().iloc[0]
            if not (r["tokens/s/gpu"] > 0 and r["tokens/s/user"] > 0 and r["ttft"] > 0):
                continue
            rows.append(
                _row(
                    model,
                    gpu,
                    precision,
                    layout,
                    engine,
                    database,
                    request,
                    levers,
                    "agg",
                    float(r["concurrency"]),
                    float(r["tokens/s/gpu"]),
                    float(r["tokens/s/user"]),
                    float(r["ttft"]) / 1000,
                    f"{ctx:,} context tokens per step, {_recipe_text(recipe)}",
                    step_tokens=ctx,
                )
            )
    return rows


def _disaggregated_rows(model, gpu, path, precision, recipe, layout, engine, database, request, levers, moe, batches):
    from aiconfigurator_core.sdk import config
    from aiconfigurator_core.sdk.backends.factory import get_backend

    built, recipe = _model(path, recipe, layout, engine, levers, moe, precision)
    backend = get_backend(engine)
    prefix = int(round(request.input_tokens * levers.prefix_cache_hit_rate))
    rows = []
    scale = layout.attention_dp  # attention data parallel: each rank runs its own batch
    for phase, mode in (("prefill", "static_ctx"), ("decode", "static_gen")):
        for b in batches:
            runtime = config.RuntimeConfig(
                batch_size=b, isl=request.input_tokens, osl=request.output_tokens, prefix=prefix
            )
            summary = backend.run_static(built, database, runtime, mode)
            if summary.check_oom():
                break
            r = summary.get_summary_df().iloc[0]
            if phase == "prefill":
                seconds = float(r["context_latency"]) / 1000
                if seconds <= 0:
                    continue
                tokens = b * scale * request.input_tokens  # served, cached prefix included
                rows.append(
                    _row(
                        model,
                        gpu,
                        precision,
                        layout,
                        engine,
                        database,
                        request,
                        levers,
                        "prefill",
                        b * scale,
                        None,
                        None,
                        seconds,
                        f"prefill batch of {b * scale}, {_recipe_text(recipe)}",
                        input_per_gpu=tokens / seconds / layout.gpus,
                    )
                )
            else:
                tpot = float(r["tpot"]) / 1000 / levers.tokens_per_decode_step
                if tpot <= 0:
                    continue
                rows.append(
                    _row(
                        model,
                        gpu,
                        precision,
                        layout,
                        engine,
                        database,
                        request,
                        levers,
                        "decode",
                        b * scale,
                        b * scale / tpot / layout.gpus,
                        1 / tpot,
                        None,
                        f"decode batch of {b * scale}, {_recipe_text(recipe)}",
                    )
                )
    return rows


def smallest_replica_curves(
    model: str,
    gpu: str,
    request: Request,
    *,
    precision: str,
    levers: Levers = Levers(),
    minimum_gpus: int = 1,
    kept: int = 2,
    batches: Sequence[int] = COMMITTED_BATCHES,
) -> list[dict[str, Any]]:
    """Curves of the ``kept`` smallest replicas of at least ``minimum_gpus`` GPUs that can be estimated, each
    aggregated and, where the package can, as prefill and decode workers apart: the committed curves'
    recipe (scripts/refresh_serving_curves.py) and that of a scenario's levers.

    Raises
    ------
    NotCovered
        No replica size could be estimated (the reasons of each).
    """
    rows, sizes, refused = [], 0, []
    for size in (s for s in REPLICA_SIZES if s >= minimum_gpus):
        try:
            rows += curve(
                model, gpu, request, precision=precision, gpus_per_replica=size, levers=levers, batches=batches
            )
        except NotCovered as exc:
            refused.append(str(exc))
            continue
        try:
            rows += curve(
                model,
                gpu,
                request,
                precision=precision,
                gpus_per_replica=size,
                levers=levers,
                batches=batches,
                disaggregated=True,
            )
        except NotCovered:
            pass
        sizes += 1
        if sizes == kept:
            break
    if not rows:
        raise NotCovered("; ".join(refused) or f"no replica of at least {minimum_gpus} GPUs")
    return rows


def summary_rows(
    models: Iterable[str],
    gpus: Iterable[str],
    requests: Iterable[Request],
    precisions: Iterable[str],
    engine: str = "trtllm",
) -> list[dict[str, Any]]:
    """Rows of every covered (model, GPU, precision, request) of the given ones; uncovered ones and
    those no layout fits are skipped. Used by scripts/refresh_serving_curves.py."""
    covered = set(coverage(engine))
    rows = []
    for model in models:
        for gpu in gpus:
            if (model, gpu, engine) not in covered:
                continue
            for precision in precisions:
                for request in requests:
                    try:
                        rows += curve(model, gpu, request, precision=precision, engine=engine)
                    except NotCovered:
                        continue
    return rows


def finite(value: float) -> bool:
    return value is not None and math.isfinite(value)

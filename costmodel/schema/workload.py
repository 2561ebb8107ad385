"""The workload: GPU-hours per month, tokens per day (with what serves them), or a training run.

Words used alike in every kind (see the glossary, docs/reference/glossary.md):

* **volume**: the workload's amount in its own unit (GPU-hours per month, tokens per day);
* **utilisation ceiling**: the highest average share of its capacity a GPU may be given when
  GPUs are counted (scheduling gaps, headroom for peaks); GPUs needed = work / (capacity ×
  ceiling). The *achieved* utilisation is a result, not an input.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..catalog import estimated_curve_ids
from .base import (
    InputModel,
    NonNegative,
    NotBoolean,
    Positive,
    PositiveShare,
    Share,
    Source,
    Text,
    Whole,
    absent,
    both,
    context_catalog,
    either,
    equals,
    fail,
    given,
    inside,
    known_id,
    left_at,
    never,
    nonzero,
    one_of,
    quantity,
    rules,
    when,
)

Precision = Literal["fp16", "bf16", "fp8", "fp4", "int8", "int4"]
"""Precisions of served weights; int8 and int4 are weight-only formats whose matrix products run at BF16."""
TrainingPrecision = Literal["fp16", "bf16", "tf32", "fp8", "fp4"]
"""Precisions a training run's MFU may refer to (the GPU needs a dense peak for it in data/gpus.csv)."""

DURATION_PATTERN = r"^(?:(\d+)-)?(\d+):([0-5]\d):([0-5]\d)$"
"""A wall-clock duration as Slurm writes it: ``D-HH:MM:SS`` or ``HH:MM:SS``."""

_RENAMED = {"max_utilisation": "utilisation_ceiling"}


class _Workload(InputModel):
    """What the workloads share: the GPU they are counted on, and a source for the volume."""

    gpu: str = Field(description="GPU id in data/gpus.csv.")
    description: Text = Field(default="", description="What the work is, in a few words.")
    source: Text = Field(default="", description="Where the volume comes from, or ASSUMPTION.")

    @model_validator(mode="before")
    @classmethod
    def _renamed_fields(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for old, new in _RENAMED.items():
                if old in data:
                    raise fail(
                        cls.__name__,
                        (old,),
                        "renamed",
                        "renamed {new} in costmodel 0.2 (the same meaning in every workload kind); "
                        "write {new}: {given}",
                        data[old],
                        new=new,
                        given=data[old],
                    )
        return data

    @field_validator("gpu")
    @classmethod
    def _gpu_known(cls, value: str, info: ValidationInfo) -> str:
        return known_id(value, context_catalog(info).gpus, "GPU", "gpus.csv")


class GPUHoursWorkload(_Workload):
    """Work stated as GPU-hours per month (training, finetuning, batch jobs)."""

    kind: Literal["gpu_hours"] = Field(description="gpu_hours: work stated as GPU-hours per month.")
    gpu_hours_per_month: NonNegative = quantity(
        unit="GPU-h/month", title="GPU-hours per month", description="GPU-hours of work per month."
    )
    utilisation_ceiling: PositiveShare = quantity(
        1.0,
        unit="-",
        title="utilisation ceiling",
        description="Highest share of a GPU's hours the work can keep busy; sets the GPUs needed.",
    )


_UNSIGNED = r"\+?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
_ABOVE_ZERO = r"\+?(?:[0-9]*[1-9][0-9]*(?:\.[0-9]*)?|[0-9]*\.[0-9]*[1-9][0-9]*)(?:[eE][-+]?[0-9]+)?"
RATIO_PATTERN = rf"^\s*{_UNSIGNED}\s*:\s*{_ABOVE_ZERO}\s*$"
"""An input:output mix written as a ratio, ``"2:1"``: base-10 numbers (:mod:`costmodel.numbers`), the
second above 0 (the same pattern is in the JSON Schema)."""


def _ratio(value: Any) -> Any:
    """``"2:1"`` read as 2 (input tokens per output token); anything else unchanged."""
    if isinstance(value, str) and re.match(RATIO_PATTERN, value):
        left, right = value.split(":")
        a, b = float(left), float(right)
        if b > 0:
            return a / b
    return value


class ServingEstimate(InputModel):
    """Inputs of the first-principles throughput estimate (see :mod:`costmodel.formulas.serving`)."""

    batch_size: Whole = quantity(
        unit="requests",
        title="batch size",
        ge=1,
        varies=False,
        le=100_000,
        description="Requests decoded together per replica.",
    )
    input_tokens: Whole = quantity(unit="tokens", title="input tokens per request", ge=1, varies=False, le=10_000_000)
    output_tokens: Whole = quantity(unit="tokens", title="output tokens per request", ge=1, varies=False, le=10_000_000)
    decode_efficiency: PositiveShare = quantity(
        unit="-", title="decode efficiency", description="Share of memory bandwidth decode achieves."
    )
    prefill_efficiency: PositiveShare = quantity(
        unit="-", title="prefill efficiency", description="Share of dense FLOP/s prefill achieves."
    )
    source: Text = Field(default="", description="Where the efficiency factors come from.")


class LatencyTarget(InputModel):
    """What each user must see: a bound on time to first token and on per-user speed (or time per token)."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            either(given("ttft_seconds"), given("tokens_per_second_per_user"), given("tpot_ms")),
            never(given("tokens_per_second_per_user", "tpot_ms")),
        )
    )

    ttft_seconds: Positive | None = quantity(
        None,
        unit="s",
        title="time to first token",
        le=3600,
        varies=False,
        description="Longest time to first token allowed.",
    )
    ttft_statistic: Literal["mean", "p50", "p90", "p99"] = Field(
        default="p90", description="Which statistic of the time to first token the bound is on."
    )
    tokens_per_second_per_user: Positive | None = quantity(
        None,
        unit="tokens/s/user",
        title="per-user speed",
        le=100_000,
        varies=False,
        description="Slowest output speed one user may see (1000 / TPOT in ms).",
    )
    tpot_ms: Positive | None = quantity(
        None,
        unit="ms",
        title="time per output token",
        le=100_000,
        varies=False,
        description="Longest time per output token; the same as 1000 / per-user speed.",
    )
    source: Text = Field(default="", description="Where the target comes from (a product requirement, or ASSUMPTION).")

    @model_validator(mode="after")
    def _some_bound(self) -> LatencyTarget:
        if self.ttft_seconds is None and self.tokens_per_second_per_user is None and self.tpot_ms is None:
            raise fail(
                "LatencyTarget",
                ("ttft_seconds",),
                "no_bound",
                "give ttft_seconds, tokens_per_second_per_user or tpot_ms (or remove the target)",
                None,
            )
        if self.tokens_per_second_per_user is not None and self.tpot_ms is not None:
            raise fail(
                "LatencyTarget",
                ("tpot_ms",),
                "both_speeds",
                "give tokens_per_second_per_user or tpot_ms, not both (one is 1000 / the other)",
                self.tpot_ms,
            )
        return self

    @property
    def min_tokens_per_second(self) -> float | None:
        """Slowest per-user speed allowed, from either field. [tokens/s/user]"""
        if self.tpot_ms is not None:
            return 1000.0 / self.tpot_ms
        return self.tokens_per_second_per_user


class RequestShape(InputModel):
    """Tokens in and out of one typical request."""

    input_tokens: Whole = quantity(unit="tokens", title="input tokens per request", ge=1, le=10_000_000, varies=False)
    output_tokens: Whole = quantity(unit="tokens", title="output tokens per request", ge=1, le=10_000_000, varies=False)


class ServingLevers(InputModel):
    """What self-hosters do to cut cost, each off by default; they move the estimated curve.

    A scenario that sets one is sized from curves aiconfigurator-core estimates with it at the
    workload's request shape (the ``estimate`` extra): the bundled curves and the measured ones were
    made without it.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(nonzero("acceptance_rate"), nonzero("speculative_tokens")),
            when(nonzero("speculative_tokens"), nonzero("acceptance_rate")),
        )
    )

    prefix_cache_hit_rate: Annotated[float, Field(strict=True, ge=0, lt=1)] = quantity(
        0.0,
        unit="-",
        title="prefix-cache hit rate",
        varies=False,
        description="Share of each request's input tokens found in the prefix cache and not prefilled again.",
    )
    speculative_tokens: Whole = quantity(
        0,
        unit="tokens",
        title="speculative tokens per step",
        ge=0,
        le=8,
        varies=False,
        description="Draft tokens proposed per decode step (MTP or speculative decoding); 0 is off.",
    )
    acceptance_rate: Share = quantity(
        0.0,
        unit="-",
        title="draft acceptance rate",
        varies=False,
        description="Share of draft tokens accepted: a step commits 1 + speculative tokens × this rate.",
    )
    kv_cache_precision: Literal["fp8", "bf16"] | None = Field(
        default=None, description="Precision the KV cache is held at; default: fp8 for fp8 and fp4 weights, else bf16."
    )
    source: Source = ""

    @model_validator(mode="after")
    def _acceptance_needs_drafts(self) -> ServingLevers:
        if self.acceptance_rate and not self.speculative_tokens:
            raise fail(
                "ServingLevers",
                ("acceptance_rate",),
                "needs_drafts",
                "an acceptance rate needs speculative_tokens of at least 1",
                self.acceptance_rate,
            )
        if self.speculative_tokens and not self.acceptance_rate:
            raise fail(
                "ServingLevers",
                ("speculative_tokens",),
                "needs_acceptance",
                "speculative tokens need an acceptance_rate above 0 (the share of drafts accepted)",
                self.speculative_tokens,
            )
        return self

    @property
    def active(self) -> bool:
        """True when any lever is moved from its default."""
        return bool(self.prefix_cache_hit_rate or self.speculative_tokens or self.kv_cache_precision)


class Redundancy(InputModel):
    """Spare replicas held beyond the load, and replicas lost to failures."""

    spare_replicas: Whole = quantity(
        0,
        unit="replicas",
        title="spare replicas",
        ge=0,
        le=10_000,
        varies=False,
        description="Replicas held idle beyond those the peak needs (N+1: 1).",
    )
    failures_per_replica_per_year: NonNegative = quantity(
        0.0,
        unit="1/year",
        title="failures per replica per year",
        le=100_000,
        varies=False,
        description="Failures that take a replica out of service.",
    )
    recovery_hours: NonNegative = quantity(
        0.0, unit="h", title="recovery time", le=8760, varies=False, description="Time to bring a failed replica back."
    )
    source: Source = ""


class LoraAdapters(InputModel):
    """LoRA adapters served on one shared copy of the base model (``serving.model``).

    Every replica holds the base model's weights and KV cache once; the adapters sit beside it
    in the memory left, and those that do not fit are kept in host memory and loaded when a
    request needs them (S-LoRA). A replica is therefore sized for the base and one adapter, not
    for N deployments; ``tokens_per_day`` is the traffic of all adapters together. One adapter
    takes matrices per layer × 2 × rank × hidden size × layers × bytes per parameter
    (:func:`costmodel.formulas.lora_adapter_bytes`; hidden size and layers from data/models.csv).
    The throughput is the base model's: the cost of batching requests for different adapters
    (S-LoRA's custom kernels) is not modelled.

    References
    ----------
    .. [1] Hu, E. J. et al. (2021), "LoRA: Low-Rank Adaptation of Large Language Models", arXiv:2106.09685.
    .. [2] Sheng, Y. et al. (2023), "S-LoRA: Serving Thousands of Concurrent LoRA Adapters", arXiv:2311.03285.
    """

    adapters: Whole = quantity(
        unit="adapters",
        title="LoRA adapters",
        ge=1,
        le=1_000_000,
        varies=False,
        description="Adapters served on the one base.",
    )
    rank: Whole = quantity(
        unit="-", title="LoRA rank", ge=1, le=65_536, varies=False, description="Rank r of each adapter's matrices."
    )
    matrices_per_layer: Whole = quantity(
        2,
        unit="-",
        title="adapted matrices per layer",
        ge=1,
        le=16,
        varies=False,
        description="Weight matrices adapted in each layer (2: the query and value projections, as in Hu et al. 2021).",
    )
    bytes_per_parameter: float = quantity(
        2.0,
        unit="B",
        title="bytes per adapter parameter",
        strict=True,
        gt=0,
        le=8,
        varies=False,
        description="Memory per adapter parameter (2 for BF16/FP16).",
    )
    source: Source = ""


_LEVERS_ACTIVE = inside(
    "levers", either(nonzero("prefix_cache_hit_rate"), nonzero("speculative_tokens"), given("kv_cache_precision"))
)
"""JSON Schema: a serving block with a lever moved (:attr:`ServingLevers.active`)."""


class Serving(InputModel):
    """Serve a named model: GPUs per replica and throughput from the catalog or an estimate.

    The fleet is sized for the peak: GPUs needed = average load × peak-to-average ratio /
    (throughput × target utilisation), rounded up to whole replicas.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(given("target"), given("request", "estimate")),
            when(absent("target"), both(left_at(serving_mode="auto"), absent("curve"), never(_LEVERS_ACTIVE))),
            never(both(_LEVERS_ACTIVE, given("curve"))),
        )
    )

    model: str = Field(description="Model id in data/models.csv.")
    precision: Precision = Field(description="Precision of the weights served.")
    peak_to_average: float = quantity(unit="-", title="peak-to-average ratio", strict=True, ge=1.0, le=1000)
    target_utilisation: PositiveShare = quantity(
        unit="-", title="target utilisation at the peak", description="Highest share of throughput used at the peak."
    )
    kv_cache_tokens: NonNegative = quantity(
        unit="tokens",
        title="KV cache per replica",
        varies=False,
        description="Tokens a replica holds in its KV cache at once (batch × context); sets memory.",
    )
    usable_memory_share: PositiveShare = quantity(
        0.9,
        unit="-",
        title="usable memory share",
        varies=False,
        description="Share of GPU memory for weights and KV cache; the runtime takes the rest.",
    )
    throughput_row: str | None = Field(
        default=None, description="Row id in data/throughput.csv; default: the lowest matching row, else the estimate."
    )
    estimate: ServingEstimate | None = Field(
        default=None, description="Estimate inputs; used when no row matches, or always when use_estimate is true."
    )
    use_estimate: bool = Field(default=False, description="Use the estimate even if a measured row matches.")
    source: Source = ""
    target: LatencyTarget | None = Field(
        default=None, description="Latency target; none: size at maximum throughput (the throughput row)."
    )
    request: RequestShape | None = Field(
        default=None, description="Request shape; with a target, converts measured curves to this input:output mix."
    )
    curve: str | None = Field(
        default=None,
        description="Curve id in data/serving_curves.csv or data/serving_curves_"
        "estimated.csv.gz; default: every curve of the model, GPU and precision, measured "
        "first, the best that meets the target.",
    )
    serving_mode: Literal["auto", "aggregated", "disaggregated"] = Field(
        default="auto", description="Prefill and decode on the same replicas, in separate pools, or the cheaper."
    )
    max_servers_per_replica: Whole = quantity(
        1,
        unit="servers",
        title="servers per replica at most",
        ge=1,
        le=64,
        varies=False,
        description="A replica may span this many servers (of the own option's server size, else 8 GPUs).",
    )
    redundancy: Redundancy | None = Field(default=None, description="Spare replicas (n_plus_1) and failures.")
    lora: LoraAdapters | None = Field(
        default=None,
        description="LoRA adapters served on this one base model: the base's memory once, not per adapter.",
    )
    levers: ServingLevers | None = Field(
        default=None,
        description="Prefix caching, speculative decoding, KV-cache precision (with a target; needs "
        "the estimate extra): sized from curves estimated with them.",
    )

    @field_validator("redundancy", mode="before")
    @classmethod
    def _n_plus_1(cls, value: Any) -> Any:
        if value == "n_plus_1":
            return {"spare_replicas": 1, "source": "N+1"}
        return value

    @field_validator("curve")
    @classmethod
    def _curve_known(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        estimated = estimated_curve_ids()
        if value in estimated:
            return value
        curves = {p.curve: p for p in context_catalog(info).serving_curves.values()}
        if value in curves or not value.startswith("aic-"):
            return known_id(value, curves, "serving curve", "serving_curves.csv")
        import difflib

        close = difflib.get_close_matches(value, estimated, n=3, cutoff=0.8)
        raise PydanticCustomError(
            "unknown_id",
            "unknown estimated serving curve (not in data/serving_curves_estimated.csv.gz){hint}; "
            "its {count} ids are model-gpu-precision-split-engine-mode-input-output[-ctx step budget], e.g. "
            "aic-qwen3-32b-h200-fp8-tp1-trtllm-agg-1000-1000-ctx1000",
            {"hint": f" (did you mean {' or '.join(close)}?)" if close else "", "count": f"{len(estimated):,}"},
        )

    @field_validator("request")
    @classmethod
    def _request_fits_context(cls, value: RequestShape | None, info: ValidationInfo) -> RequestShape | None:
        model = context_catalog(info).models.get(info.data.get("model", ""))
        context = None if model is None else model.context_length_tokens
        if (
            value is not None
            and model is not None
            and context is not None
            and (value.input_tokens + value.output_tokens > context)
        ):
            raise PydanticCustomError(
                "beyond_context",
                "{inputs} input + {outputs} output tokens exceed {model}'s context of "
                "{context} tokens (data/models.csv)",
                {
                    "inputs": f"{value.input_tokens:,}",
                    "outputs": f"{value.output_tokens:,}",
                    "model": model.model,
                    "context": f"{context:,}",
                },
            )
        return value

    @model_validator(mode="after")
    def _target_needs(self) -> Serving:
        if self.target is not None:
            for name in ("request", "estimate"):
                if getattr(self, name) is None:
                    raise fail(
                        "Serving",
                        (name,),
                        "target_needs",
                        "a latency target needs {name}: the request shape converts measured curves to the "
                        "workload's mix, and the estimate's efficiencies split prefill from decode and draw "
                        "the first-principles curve",
                        None,
                        name=name,
                    )
        elif self.serving_mode != "auto" or self.curve is not None or (self.levers is not None and self.levers.active):
            raise fail(
                "Serving",
                ("target",),
                "needs_target",
                "serving_mode, curve and levers apply to sizing at a latency target; give a target",
                None,
            )
        if self.levers is not None and self.levers.active and self.curve is not None:
            raise fail(
                "Serving",
                ("curve",),
                "levers_and_curve",
                "a named curve was made without the levers; remove curve, or the levers",
                self.curve,
            )
        return self

    @field_validator("model")
    @classmethod
    def _model_known(cls, value: str, info: ValidationInfo) -> str:
        return known_id(value, context_catalog(info).models, "model", "models.csv")

    @field_validator("throughput_row")
    @classmethod
    def _row_known(cls, value: str | None, info: ValidationInfo) -> str | None:
        return (
            None
            if value is None
            else known_id(value, context_catalog(info).throughput, "throughput row", "throughput.csv")
        )


class TokensWorkload(_Workload):
    """Work stated as LLM tokens per day with an input:output mix (inference serving).

    Give either ``serving`` (a model served at a precision: GPUs per replica and
    throughput come from data/throughput.csv or a stated estimate), or the throughput
    itself (``output_tokens_per_second_per_gpu`` with ``throughput_source``); a scenario
    of API options only needs neither (nothing is sized in GPUs).
    Throughput is counted in output tokens per second per GPU, the metric of MLPerf
    Inference and of TensorRT-LLM's published benchmarks; the input tokens of each
    request are part of the measured load.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(
                equals(input_only=True),
                absent(
                    "input_tokens_per_output_token",
                    "serving",
                    "output_tokens_per_second_per_gpu",
                    "throughput_source",
                    "utilisation_ceiling",
                ),
            ),
            when(left_at(input_only=False), given("input_tokens_per_output_token")),
            when(
                given("output_tokens_per_second_per_gpu"),
                both(absent("serving"), inside("throughput_source", {"type": "string", "minLength": 1})),
            ),
            when(absent("output_tokens_per_second_per_gpu"), absent("throughput_source", "utilisation_ceiling")),
        )
    )

    kind: Literal["tokens"] = Field(description="tokens: LLM tokens per day with an input:output mix.")
    tokens_per_day: NonNegative = quantity(
        unit="tokens/day", title="tokens per day", description="Input plus output tokens per day."
    )
    input_tokens_per_output_token: NonNegative | None = quantity(
        None,
        unit="-",
        title="input tokens per output token",
        description='Input:output mix; 2 (or "2:1") means two input tokens per output token. Required unless '
        "input_only.",
    )
    input_only: bool = Field(
        default=False,
        description="Tokens without any output (embeddings, input-only "
        "classifiers): priced by API offers only, with no mix, "
        "serving or throughput.",
    )
    serving: Serving | None = Field(
        default=None,
        description="A model served at a precision: GPUs per replica "
        "and throughput (instead of the throughput itself).",
    )
    input_tokens_per_request: Whole | None = quantity(
        None,
        unit="tokens",
        title="input tokens per request",
        ge=1,
        le=100_000_000,
        varies=False,
        description="Input tokens of one request; sets an API's long-context tier (default: the serving request "
        "shape's, if given).",
    )
    interruptible: bool = Field(
        default=False,
        description="Batch work that tolerates interruptions: spot capacity may serve it in the cheapest mix.",
    )
    output_tokens_per_second_per_gpu: Positive | None = quantity(
        None,
        unit="output tokens/s/GPU",
        title="serving throughput",
        description="Serving throughput of one GPU at full load (without serving).",
    )
    throughput_source: Text | None = Field(default=None, description="Benchmark behind the throughput given.")
    utilisation_ceiling: PositiveShare | None = quantity(
        None,
        unit="-",
        title="utilisation ceiling",
        description="Highest average share of the throughput used, the rest headroom for peaks (without serving; "
        "default 1).",
    )

    @field_validator("input_tokens_per_output_token", mode="before")
    @classmethod
    def _ratio_text(cls, value: Any) -> Any:
        return _ratio(value)

    @model_validator(mode="after")
    def _one_throughput(self) -> TokensWorkload:
        if self.input_only:
            for name in (
                "input_tokens_per_output_token",
                "serving",
                "output_tokens_per_second_per_gpu",
                "throughput_source",
                "utilisation_ceiling",
            ):
                if getattr(self, name) is not None:
                    raise fail(
                        "TokensWorkload",
                        (name,),
                        "not_with_input_only",
                        "an input_only workload has no output tokens, so no mix and no serving throughput "
                        "(counted in output tokens): remove it",
                        getattr(self, name),
                    )
            return self
        if self.input_tokens_per_output_token is None:
            raise fail(
                "TokensWorkload",
                ("input_tokens_per_output_token",),
                "missing",
                'give the input:output mix (2 or "2:1"), or input_only: true for tokens without output',
                None,
            )
        explicit = self.output_tokens_per_second_per_gpu is not None
        if explicit and self.serving is not None:
            raise fail(
                "TokensWorkload",
                ("serving",),
                "throughput_source_needed",
                "give either serving (a model from data/models.csv) or output_tokens_per_second_per_gpu, not both",
                "both",
            )
        if explicit and not self.throughput_source:
            raise fail(
                "TokensWorkload",
                ("throughput_source",),
                "missing",
                "say where output_tokens_per_second_per_gpu comes from",
                None,
            )
        shape = self.serving.request if self.serving is not None else None
        if shape is not None:
            ratio = shape.input_tokens / shape.output_tokens
            if abs(ratio - self.input_tokens_per_output_token) > 0.01 * max(
                ratio, self.input_tokens_per_output_token, 1e-9
            ):
                raise fail(
                    "TokensWorkload",
                    ("serving", "request"),
                    "mix_mismatch",
                    "the request shape's {i}/{o} input/output tokens is a {r}:1 mix, but "
                    "input_tokens_per_output_token is {m}; make them agree (within 1 %)",
                    shape.model_dump(),
                    i=shape.input_tokens,
                    o=shape.output_tokens,
                    r=f"{ratio:.3g}",
                    m=f"{self.input_tokens_per_output_token:g}",
                )
        if not explicit:
            for name in ("throughput_source", "utilisation_ceiling"):
                if getattr(self, name) is not None:
                    raise fail(
                        "TokensWorkload",
                        (name,),
                        "not_with_serving",
                        "comes from serving (its throughput row and target utilisation); remove it",
                        getattr(self, name),
                    )
        return self


class ComponentFailureRates(InputModel):
    """Job-interrupting failures per year of one component of each kind (a series system: the rates add)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    gpu: NonNegative = quantity(
        0.0,
        unit="1/year",
        title="failures per GPU per year",
        le=1000,
        description="Failures of one GPU (its memory, SRAM, system processor, ...).",
    )
    host: NonNegative = quantity(
        0.0,
        unit="1/year",
        title="failures per host per year",
        le=1000,
        description="Failures of one host besides its GPUs (CPU, memory, NIC, power supply, maintenance).",
    )
    network: NonNegative = quantity(
        0.0,
        unit="1/year",
        title="failures per network component per year",
        le=1000,
        description="Failures of one network component (a switch or a link, as network_components counts them).",
    )

    @model_validator(mode="after")
    def _some_rate(self) -> ComponentFailureRates:
        if not (self.gpu or self.host or self.network) and not self.model_fields_set:
            raise fail(
                "ComponentFailureRates",
                ("gpu",),
                "no_rates",
                "give the failures per year of at least one "
                "component (gpu, host, network); an empty block states nothing",
                None,
            )
        return self


class Goodput(InputModel):
    """Failures and checkpoints of a training job (see :mod:`costmodel.formulas.checkpoint`).

    Failures are stated one of three ways: a rate per GPU (``failures_per_gpu_per_year``);
    as papers count them, ``interruptions`` observed over ``days`` on ``gpus``, optionally
    split by cause (``causes``: counts that add up to ``interruptions``), each cause its own
    rate; or by component (``failures_per_year``: per GPU, per host, per network component),
    with the counts from the run: its GPUs, hosts = ⌈GPUs / ``gpus_per_host``⌉, and
    ``network_components`` as given. The cluster fails at the sum, Λ = Σ rate × count, and
    the job MTBF is 8,760 / Λ hours.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            {
                "oneOf": [
                    given("failures_per_gpu_per_year"),
                    either(given("interruptions"), given("days"), given("gpus")),
                    given("failures_per_year"),
                ]
            },
            when(absent("failures_per_year"), absent("network_components")),
            when(inside("failures_per_year", nonzero("network")), given("network_components")),
            when(
                inside("failures_per_year", {"type": "object", "properties": {"network": {"const": 0}}}),
                absent("network_components"),
            ),
            when(either(given("interruptions"), given("days"), given("gpus")), given("interruptions", "days", "gpus")),
            when(given("causes"), given("interruptions")),
        )
    )

    failures_per_gpu_per_year: NonNegative | None = quantity(
        None,
        unit="1/(GPU·year)",
        title="failures per GPU per year",
        le=1000,
        description="Job-interrupting failures per GPU per year (or give interruptions, days and gpus).",
    )
    interruptions: Whole | None = quantity(
        None,
        unit="-",
        title="interruptions observed",
        ge=0,
        le=10_000_000,
        varies=False,
        description="Job interruptions counted over days on gpus.",
    )
    days: Positive | None = quantity(
        None,
        unit="d",
        title="days observed",
        le=100_000,
        varies=False,
        description="Days over which the interruptions were counted.",
    )
    gpus: Whole | None = quantity(
        None,
        unit="GPU",
        title="GPUs observed",
        ge=1,
        le=10_000_000,
        varies=False,
        description="GPUs the job ran on while the interruptions were counted.",
    )
    causes: (
        dict[Annotated[Text, Field(min_length=1, max_length=200)], Annotated[int, Field(strict=True, ge=0)]] | None
    ) = Field(
        default=None,
        description="Interruptions by cause (GPU, host, network, software, ...); they add up to "
        "interruptions. [interruptions]",
    )
    failures_per_year: ComponentFailureRates | None = Field(
        default=None,
        description="Failures per year of one GPU, one host and one network component; the run's "
        "counts of each give the cluster's rate (instead of failures_per_gpu_per_year).",
    )
    gpus_per_host: Whole = quantity(
        8,
        unit="GPU",
        title="GPUs per host",
        ge=1,
        le=1024,
        varies=False,
        description="Used with failures_per_year only: hosts = GPUs / this, rounded up.",
    )
    network_components: Whole | None = quantity(
        None,
        unit="-",
        title="network components",
        ge=1,
        le=100_000_000,
        varies=False,
        description="With failures_per_year.network: switches or links the job depends on, as its rate counts them.",
    )
    checkpoint_write_minutes: Positive = quantity(unit="min", title="checkpoint write time", le=10_000)
    restart_minutes: NonNegative = quantity(
        unit="min",
        title="restart time",
        le=10_000,
        description="Mean time to recover (MTTR): from a failure to training again.",
    )
    interval: Literal["young", "daly", "young_restart"] = Field(
        default="daly",
        description="Optimum checkpoint interval formula: young (1974), daly (2006) or "
        "young_restart (sqrt(2 delta (M + R))).",
    )
    step_time_seconds: Positive | None = quantity(
        None,
        unit="s",
        title="training step time",
        le=1e6,
        description="Wall-clock time of one step; turns the checkpoint interval into steps.",
    )
    source: Source = ""

    @model_validator(mode="after")
    def _rate_or_count(self) -> Goodput:
        counted = [n for n in ("interruptions", "days", "gpus") if getattr(self, n) is not None]
        ways = [
            way
            for way, given in (
                ("failures_per_gpu_per_year", self.failures_per_gpu_per_year is not None),
                ("interruptions with days and gpus", bool(counted)),
                ("failures_per_year", self.failures_per_year is not None),
            )
            if given
        ]
        if len(ways) != 1:
            raise fail(
                "Goodput",
                ("failures_per_gpu_per_year",),
                "rate_or_count",
                "state the failures one way: failures_per_gpu_per_year, interruptions with days and gpus, "
                "or failures_per_year by component; got {got}",
                self.failures_per_gpu_per_year,
                got=" and ".join(ways) or "none",
            )
        rates = self.failures_per_year
        if rates is None:
            if self.network_components is not None:
                raise fail(
                    "Goodput",
                    ("network_components",),
                    "needs_component_rates",
                    "network_components counts the components of failures_per_year; give "
                    "failures_per_year.network, or remove it",
                    self.network_components,
                )
        elif rates.network > 0 and self.network_components is None:
            raise fail(
                "Goodput",
                ("network_components",),
                "missing",
                "failures_per_year.network is per network component: say how many the job depends on "
                "(network_components)",
                None,
            )
        elif rates.network == 0 and self.network_components is not None:
            raise fail(
                "Goodput",
                ("failures_per_year", "network"),
                "missing",
                "network_components is given but no failures_per_year.network rate for them",
                rates.network,
            )
        if counted and len(counted) < 3:
            missing = [n for n in ("interruptions", "days", "gpus") if n not in counted]
            raise fail(
                "Goodput",
                (missing[0],),
                "missing",
                "interruptions, days and gpus go together (k interruptions in d days on n GPUs)",
                None,
            )
        if self.causes is not None:
            if self.interruptions is None:
                raise fail(
                    "Goodput",
                    ("causes",),
                    "causes_need_count",
                    "a split by cause needs interruptions, days and gpus",
                    self.causes,
                )
            if sum(self.causes.values()) != self.interruptions:
                raise fail(
                    "Goodput",
                    ("causes",),
                    "causes_sum",
                    "the causes add up to {total}, not to interruptions ({count})",
                    self.causes,
                    total=sum(self.causes.values()),
                    count=self.interruptions,
                )
        return self


_HOW = (
    "mfu",
    "achieved_tflops_per_gpu",
    "tokens_per_second_per_gpu",
    "gpu_hours",
    "gpu_hours_per_trillion_tokens",
    "wall_clock_days",
    "wall_clock_hours",
    "wall_clock",
)
_NEEDS_TOKENS = ("mfu", "achieved_tflops_per_gpu", "tokens_per_second_per_gpu", "gpu_hours_per_trillion_tokens")


def _one_basis(model: InputModel, title: str, required: bool = True) -> str | None:
    given = [name for name in _HOW if getattr(model, name) is not None]
    if len(given) > 1 or (required and not given):
        raise fail(
            title,
            (given[1] if len(given) > 1 else "mfu",),
            "one_basis",
            "state the run one way: one of {ways}; got {got}",
            given or None,
            ways=", ".join(_HOW),
            got=", ".join(given) or "none",
        )
    if given and given[0] in _NEEDS_TOKENS and getattr(model, "training_tokens", None) is None:
        raise fail(title, ("training_tokens",), "missing", "{how} needs training_tokens", None, how=given[0])
    return given[0] if given else None


_ONE_BASIS = [
    {"oneOf": [given(name) for name in _HOW]},
    *[when(given(name), given("training_tokens")) for name in _NEEDS_TOKENS],
]
"""JSON Schema of :func:`_one_basis`: the run (or stage) stated exactly one way, with its tokens where needed."""


class _RunBasis(InputModel):
    """How much compute a run (or stage) took, stated one way."""

    training_tokens: Positive | None = quantity(None, unit="tokens", title="training tokens D")
    mfu: PositiveShare | None = quantity(
        None, unit="-", title="MFU", description="Model FLOPs utilisation: achieved / dense peak FLOP/s."
    )
    achieved_tflops_per_gpu: Positive | None = quantity(
        None,
        unit="TFLOP/s/GPU",
        title="achieved TFLOP/s per GPU",
        le=1e6,
        description="Model FLOP/s achieved per GPU (6·N per token); MFU = this / the dense peak.",
    )
    tokens_per_second_per_gpu: Positive | None = quantity(
        None,
        unit="tokens/s/GPU",
        title="training tokens per second per GPU",
        description="MFU = 6·N·tokens/s / the dense peak.",
    )
    gpu_hours: Positive | None = quantity(
        None, unit="GPU-h", title="GPU-hours", description="GPU-hours stated (time lost to failures included)."
    )
    gpu_hours_per_trillion_tokens: Positive | None = quantity(
        None,
        unit="GPU-h/T tokens",
        title="GPU-hours per trillion tokens",
        description="As DeepSeek-V3 states it (180 K H800 GPU-hours per trillion tokens).",
    )
    wall_clock_days: Positive | None = quantity(
        None, unit="d", title="wall-clock days", le=100_000, description="Days the run took on its GPUs."
    )
    wall_clock_hours: Positive | None = quantity(
        None, unit="h", title="wall-clock hours", le=1e7, description="Hours the run took on its GPUs."
    )
    wall_clock: Annotated[str, Field(max_length=40)] | None = Field(
        default=None,
        description="Wall-clock duration as D-HH:MM:SS (or HH:MM:SS).",
        json_schema_extra={"pattern": DURATION_PATTERN},
    )

    @field_validator("wall_clock")
    @classmethod
    def _duration(cls, value: str | None) -> str | None:
        if value is not None and re.match(DURATION_PATTERN, value) is None:
            raise PydanticCustomError(
                "duration", "write a duration as D-HH:MM:SS or HH:MM:SS (54.2 days is 54-04:48:00)", {}
            )
        return value


class TrainingStage(_RunBasis):
    """One stage of a training run (pre-training, context extension, post-training, RL, ...)."""

    model_config = ConfigDict(json_schema_extra=rules(*_ONE_BASIS))

    name: Text = Field(min_length=1, max_length=200, description="Stage name.")
    gpus: Whole | None = quantity(
        None,
        unit="GPU",
        title="stage GPUs",
        ge=1,
        varies=False,
        le=10_000_000,
        description="GPUs the stage uses at once; default the run's cluster_gpus.",
    )
    source: Source = ""

    @model_validator(mode="after")
    def _stated_once(self) -> TrainingStage:
        _one_basis(self, "TrainingStage")
        return self


class Parallelism(InputModel):
    """How the run is laid out on its GPUs, for memory per GPU (see :mod:`costmodel.formulas.parallelism`).

    tensor × pipeline × context × data parallel = the run's GPUs; expert parallelism splits
    the experts of a mixture-of-experts model within the data-parallel ranks.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(equals(fsdp=True), {"properties": {"zero_stage": {"anyOf": [{"type": "null"}, {"const": 3}]}}})
        )
    )

    tensor_parallel: Whole = quantity(1, unit="GPU", title="tensor parallel size", ge=1, le=1024, varies=False)
    pipeline_parallel: Whole = quantity(1, unit="GPU", title="pipeline parallel size", ge=1, le=1024, varies=False)
    context_parallel: Whole = quantity(1, unit="GPU", title="context parallel size", ge=1, le=1024, varies=False)
    data_parallel: Whole = quantity(unit="GPU", title="data parallel size", ge=1, le=10_000_000, varies=False)
    expert_parallel: Whole = quantity(1, unit="GPU", title="expert parallel size", ge=1, le=10_000, varies=False)
    zero_stage: Annotated[Literal[0, 1, 2, 3], NotBoolean] | None = Field(
        default=None, description="ZeRO stage (Rajbhandari et al. 2020); 3 is FSDP full sharding. [-]"
    )
    fsdp: bool = Field(default=False, description="FSDP full sharding: the same as zero_stage 3.")
    sequence_length: Whole = quantity(unit="tokens", title="sequence length", ge=1, le=100_000_000, varies=False)
    micro_batch_size: Whole = quantity(1, unit="sequences", title="micro-batch size", ge=1, le=100_000, varies=False)
    activation_recomputation: Literal["none", "selective", "full"] = Field(
        default="selective", description="Activation recomputation (Korthikanti et al. 2022)."
    )
    sequence_parallel: bool = Field(default=True, description="Megatron sequence parallelism with tensor parallel.")
    hidden_size: Whole = quantity(unit="-", title="hidden size h", ge=1, le=1_000_000, varies=False)
    attention_heads: Whole = quantity(unit="-", title="attention heads a", ge=1, le=100_000, varies=False)
    layers: Whole | None = quantity(
        None,
        unit="-",
        title="layers L",
        ge=1,
        le=100_000,
        varies=False,
        description="Transformer layers; default the model's (data/models.csv).",
    )
    usable_memory_share: PositiveShare = quantity(
        1.0,
        unit="-",
        title="usable memory share",
        varies=False,
        description="Share of GPU memory the state and activations may take (the rest: framework, buffers).",
    )
    source: Source = ""

    @model_validator(mode="after")
    def _zero_once(self) -> Parallelism:
        if self.fsdp and self.zero_stage not in (None, 3):
            raise fail(
                "Parallelism",
                ("fsdp",),
                "fsdp_is_zero3",
                "FSDP full sharding is ZeRO stage 3; zero_stage is {stage}",
                self.fsdp,
                stage=self.zero_stage,
            )
        if self.data_parallel % self.expert_parallel:
            raise fail(
                "Parallelism",
                ("expert_parallel",),
                "expert_divides_data",
                "expert parallelism runs within the data-parallel ranks: data_parallel ({dp}) must be a multiple of it",
                self.expert_parallel,
                dp=self.data_parallel,
            )
        return self

    @property
    def stage(self) -> int:
        """The ZeRO stage in force (3 with FSDP, 0 when neither is given)."""
        return 3 if self.fsdp else (self.zero_stage or 0)

    @property
    def gpus(self) -> int:
        """GPUs the plan lays out: tensor × pipeline × context × data parallel."""
        return self.tensor_parallel * self.pipeline_parallel * self.context_parallel * self.data_parallel


class TrainingPower(InputModel):
    """What a training run draws: a measured power per GPU instead of its TDP, and N+k redundancy.

    IT load = GPUs × power per GPU; facility power = IT load × PUE (the own option's, else the
    rental provider's); provisioned facility power = facility power × (N + k) / N for
    ``redundancy_units`` N of size facility power / N and ``spare_units`` k more.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(either(given("measured_power_per_gpu_w"), given("redundancy_units")))
    )

    measured_power_per_gpu_w: Positive | None = quantity(
        None,
        unit="W",
        title="measured power per GPU",
        le=10_000,
        description="Average power one GPU drew over the run, as measured (with its host's share if the meter "
        "includes it); used instead of the GPU's TDP for the run's energy.",
    )
    redundancy_units: Whole | None = quantity(
        None,
        unit="-",
        title="power units N",
        ge=1,
        le=10_000,
        varies=False,
        description="N: units (UPS modules, generators, feeds) that carry the facility power between them.",
    )
    spare_units: Whole = quantity(
        1,
        unit="-",
        title="spare power units k",
        ge=0,
        le=10_000,
        varies=False,
        description="k: redundant units beyond N (N+1: 1; 2N: N). Used with redundancy_units only.",
    )
    source: Text = Field(min_length=1, description="Where the measurement and the redundancy come from.")

    @model_validator(mode="before")
    @classmethod
    def _kw(cls, data: Any) -> Any:
        if isinstance(data, dict) and "measured_power_per_gpu_kw" in data:
            raise fail(
                "TrainingPower",
                ("measured_power_per_gpu_kw",),
                "in_watts",
                "give the power per GPU in watts: measured_power_per_gpu_w: {w}",
                data["measured_power_per_gpu_kw"],
                w=f"{data['measured_power_per_gpu_kw'] * 1000:g}"
                if isinstance(data["measured_power_per_gpu_kw"], int | float)
                else "...",
            )
        return data

    @model_validator(mode="after")
    def _something(self) -> TrainingPower:
        if self.measured_power_per_gpu_w is None and self.redundancy_units is None:
            raise fail(
                "TrainingPower",
                ("measured_power_per_gpu_w",),
                "empty",
                "give measured_power_per_gpu_w or redundancy_units (or remove the power block)",
                None,
            )
        return self


class TrainingWorkload(_RunBasis, _Workload):
    """One training run: model size, tokens, GPU, precision and MFU, on a cluster of GPUs.

    Compute is 6·N·D FLOP (N active parameters, D tokens); GPU-hours = FLOP / (dense peak
    at the precision × MFU) / 3,600, divided by the goodput when failures are modelled.
    While it runs, the cluster is busy 730 h a month, so the monthly cost comparison uses
    ``cluster_gpus`` × 730 GPU-hours a month, and the run's cost is that times its months.

    The run may be stated the other ways papers state it, exactly one of: ``mfu``,
    ``achieved_tflops_per_gpu``, ``tokens_per_second_per_gpu`` (each with
    ``training_tokens``), ``gpu_hours``, ``gpu_hours_per_trillion_tokens``, a wall clock
    (``wall_clock_days``, ``wall_clock_hours`` or ``wall_clock`` as D-HH:MM:SS) on
    ``cluster_gpus``, or ``stages``: a list of named stages, each stated one of those ways,
    summed. Stated GPU-hours and wall clocks already include the time lost to failures.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            one_of("model", "active_parameters"),
            when(absent("stages"), both(*_ONE_BASIS)),
            when(given("stages"), absent(*_HOW, "training_tokens")),
        )
    )

    kind: Literal["training"] = Field(description="training: one training run on a cluster of GPUs.")
    model: str | None = Field(default=None, description="Model id in data/models.csv (gives active parameters).")
    active_parameters: Positive | None = quantity(
        None, unit="-", title="active parameters N", description="Parameters used per token, if no model id is given."
    )
    precision: TrainingPrecision = Field(description="Precision whose dense peak the MFU refers to.")
    cluster_gpus: Whole = quantity(
        unit="GPU", title="cluster GPUs", ge=1, varies=False, le=10_000_000, description="GPUs the run uses at once."
    )
    state_bytes_per_parameter: Positive = quantity(
        16.0,
        unit="B",
        title="training state per parameter",
        le=1000,
        varies=False,
        description="Weights, gradients and optimizer state per parameter; 16 for mixed-precision Adam.",
    )
    activation_gb_per_gpu: NonNegative = quantity(0.0, unit="GB", title="activation memory per GPU", varies=False)
    goodput: Goodput | None = Field(default=None, description="Failures and checkpoints; none means no loss.")
    stages: list[TrainingStage] | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="Named stages, each stated one way; the run is their sum (instead of a run-level basis).",
    )
    parallelism: Parallelism | None = Field(
        default=None, description="Parallelism plan; gives memory per GPU and an error when it does not fit."
    )
    power: TrainingPower | None = Field(
        default=None,
        description="Measured power per GPU (instead of TDP for the run's energy) and N+k "
        "redundancy of the facility power.",
    )

    @field_validator("model")
    @classmethod
    def _model_known(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else known_id(value, context_catalog(info).models, "model", "models.csv")

    @model_validator(mode="after")
    def _model_or_parameters(self) -> TrainingWorkload:
        if (self.model is None) == (self.active_parameters is None):
            raise fail(
                "TrainingWorkload",
                ("model",),
                "model_or_parameters",
                "give either model (from data/models.csv) or active_parameters, not both",
                self.model,
            )
        if self.stages is None:
            _one_basis(self, "TrainingWorkload")
        else:
            given = [name for name in (*_HOW, "training_tokens") if getattr(self, name) is not None]
            if given:
                raise fail(
                    "TrainingWorkload",
                    (given[0],),
                    "stages_state_the_run",
                    "with stages, each stage states its own compute and tokens; remove the run-level {name}",
                    getattr(self, given[0]),
                    name=given[0],
                )
            for i, stage in enumerate(self.stages):
                if stage.gpus is not None and stage.gpus > self.cluster_gpus:
                    raise fail(
                        "TrainingWorkload",
                        ("stages", i, "gpus"),
                        "stage_gpus",
                        "a stage cannot use more GPUs than the run's cluster_gpus ({gpus})",
                        stage.gpus,
                        gpus=self.cluster_gpus,
                    )
            names = [stage.name for stage in self.stages]
            if len({" ".join(name.split()).casefold() for name in names}) != len(names):  # "Pretrain " is "pretrain"
                raise fail(
                    "TrainingWorkload",
                    ("stages",),
                    "duplicate_stage",
                    "stage names repeat: {names}",
                    names,
                    names=", ".join(names),
                )
        if self.parallelism is not None and self.parallelism.gpus != self.cluster_gpus:
            p = self.parallelism
            raise fail(
                "TrainingWorkload",
                ("parallelism",),
                "plan_gpus",
                "tensor x pipeline x context x data parallel = {t} x {p} x {c} x {d} = {n} GPUs, not the "
                "run's cluster_gpus ({gpus})",
                p.gpus,
                t=p.tensor_parallel,
                p=p.pipeline_parallel,
                c=p.context_parallel,
                d=p.data_parallel,
                n=p.gpus,
                gpus=self.cluster_gpus,
            )
        return self


Workload = Annotated[GPUHoursWorkload | TokensWorkload | TrainingWorkload, Field(discriminator="kind")]

"""Sizing once: a scenario's workload turned into what the cost functions count GPUs by.

:func:`workload_inputs` looks up the GPU, sizes a served model (its replica from memory, its
throughput from a measured row, an estimate, or a latency target through
:mod:`costmodel.serving_target`) and a training run (:mod:`costmodel.training_inputs`), and returns
the :class:`WorkloadInputs` every cost function takes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import formulas
from .catalog import GPU, LLM, Catalog
from .errors import scenario_problem
from .formulas import serving_curves
from .formulas.shapes import scalar
from .schema import Scenario
from .schema.inputs import THROUGHPUT_INPUT
from .schema.workload import Serving, TokensWorkload
from .serving_target import ServingCapacity, ServingPlan, redundancy, replica_memory_gb, serving_at_target
from .training_inputs import TrainingInputs, training_inputs

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""


GPUS_PER_SERVER = 8
"""GPUs in one server, the unit a replica spans when it needs more than one server. [GPU]"""


@dataclass(frozen=True)
class WorkloadInputs:
    """The workload, resolved to what the cost functions need.

    Attributes
    ----------
    kind
        ``gpu_hours``, ``tokens`` or ``training``.
    gpu
        The catalog row of the GPU the work is counted on.
    volume, volume_unit
        The scenario's volume in its own unit.
    gpu_hours_per_volume
        GPU-hours a month per unit of volume (1 for GPU-hours; for tokens/day, the days in a
        month × output share / (throughput × 3,600)). [GPU-h/month per volume unit]
    utilisation_ceiling
        Highest average share of capacity used when GPUs are counted. [-]
    gpus_per_replica
        GPU counts step in these. [GPU]
    spare_gpus
        GPUs held beyond the load (spare replicas); added to every count. [GPU]
    minimum_gpus
        Fewest working GPUs at any volume (disaggregated serving: a replica in each pool). [GPU]
    input_tokens_per_output_token
        The mix (tokens workloads; 0 otherwise). [-]
    capacity
        Serving capacity (tokens workloads).
    training
        The run's inputs (training workloads).
    peak_to_average
        A served model's peak-to-average ratio, already in ``utilisation_ceiling``; 1 otherwise. [-]
    """

    kind: str
    gpu: GPU
    volume: Number
    volume_unit: str
    gpu_hours_per_volume: Number
    utilisation_ceiling: Number
    gpus_per_replica: int
    input_tokens_per_output_token: Number = 0.0
    capacity: ServingCapacity | None = None
    training: TrainingInputs | None = None
    spare_gpus: int = 0
    minimum_gpus: int = 0
    peak_to_average: Number = 1.0

    @property
    def hourly_ceiling(self) -> Number:
        """Highest share of a GPU's capacity used in any one hour: the ceiling before the peak allowance. [-]

        With a demand profile the hours carry their own peaks, so capacity for an hour's demand
        d is d / this ceiling (a served model's target utilisation, times its availability).
        """
        return self.utilisation_ceiling * self.peak_to_average

    @property
    def sized_in_gpus(self) -> bool:
        """Whether the workload turns into GPUs (a throughput is known); False for API-only tokens workloads."""
        return self.kind != "tokens" or self.capacity is not None

    @property
    def input_only(self) -> bool:
        """A tokens workload without output tokens (embeddings): API offers only, no GPU capacity."""
        return (
            self.kind == "tokens"
            and np.ndim(self.input_tokens_per_output_token) == 0
            and math.isinf(self.input_tokens_per_output_token)
        )

    @property
    def output_share(self) -> Number:
        """Share of tokens that are output tokens. [-]"""
        return formulas.output_share(self.input_tokens_per_output_token)


def _server_gpus(scenario: Scenario, catalog: Catalog) -> int:
    """GPUs in one server for sizing a replica: the own option's server (a 2-GPU server holds a
    replica of at most 2 GPUs before it spans servers), else an 8-GPU server (HGX/DGX), the size
    rented GPUs are installed in."""
    own = scenario.options.own
    return catalog.servers[own.server].gpus_per_server if own is not None else GPUS_PER_SERVER


def _serving_capacity(
    work: TokensWorkload, catalog: Catalog, gpu: GPU, values: Mapping[str, Any], server_gpus: int = GPUS_PER_SERVER
) -> ServingCapacity:
    """How the tokens workload turns into GPUs: as stated, or a served model's replica and throughput (the
    measured row, an estimate, or the point that meets its latency target)."""
    serving = work.serving
    if serving is None:
        return ServingCapacity(
            work.output_tokens_per_second_per_gpu,
            1,
            1,
            work.utilisation_ceiling or 1.0,
            work.throughput_source or "",  # the schema requires it beside a stated throughput
            estimated=False,
        )
    model = catalog.models[serving.model]
    try:
        peak = gpu.dense_tflops(formulas.serving.compute_precision(serving.precision))
    except ValueError as exc:
        raise scenario_problem("workload.serving.precision", serving.precision, str(exc)) from None
    matches = sorted(
        (
            r
            for r in catalog.throughput.values()
            if (r.model, r.gpu, r.precision) == (serving.model, gpu.gpu, serving.precision)
        ),
        key=lambda r: r.output_tokens_per_second_per_gpu,
    )
    minimum = _min_gpus_per_replica(serving, model, gpu, bool(matches), server_gpus)
    sizing = serving.target_utilisation / serving.peak_to_average
    if serving.target is not None:
        return serving_at_target(work, catalog, gpu, model, peak, minimum, sizing, values, server_gpus)
    if serving.throughput_row is not None:
        row = catalog.throughput[serving.throughput_row]
        if (row.model, row.gpu, row.precision) != (serving.model, gpu.gpu, serving.precision):
            raise scenario_problem(
                "workload.serving.throughput_row",
                serving.throughput_row,
                f"measured {row.model} on {row.gpu} at {row.precision}, not {serving.model} on "
                f"{gpu.gpu} at {serving.precision}",
            )
        rows = [row]
    else:
        rows = matches
    if rows and not serving.use_estimate:
        row = rows[0]
        per_replica = max(row.gpus_per_replica or minimum, minimum)  # the KV cache may need more than measured
        lengths = f", {row.input_tokens}/{row.output_tokens} input/output tokens" if row.input_tokens else ""
        source = f"{row.source_file}: {row.row} [{row.quality}, {row.as_of}] {row.setting}{lengths}; {row.source}"
        return ServingCapacity(
            values.get(THROUGHPUT_INPUT, row.output_tokens_per_second_per_gpu),
            per_replica,
            minimum,
            sizing,
            source,
            False,
            row,
        )
    return _estimated_capacity(serving, model, gpu, peak, minimum, sizing, values)


def _min_gpus_per_replica(serving: Serving, model: LLM, gpu: GPU, measured: bool, server_gpus: int) -> int:
    """The fewest GPUs whose memory holds the weights and the KV cache (the estimate's batch too, where the
    estimate is used), within ``max_servers_per_replica`` servers. [GPU]"""
    held = serving.kv_cache_tokens
    if serving.estimate is not None and (serving.use_estimate or not measured):
        e = serving.estimate  # the estimate's batch must fit in memory too
        held = max(held, e.batch_size * (e.input_tokens + e.output_tokens))
    need = formulas.weight_bytes(model.total_parameters, serving.precision) + held * formulas.kv_cache_bytes_per_token(
        model.layers, model.kv_elements_per_token_per_layer, serving.precision
    )
    need = float(np.asarray(need, dtype=float)) + (_lora_bytes(serving, model) if serving.lora is not None else 0.0)
    if serving.max_servers_per_replica == 1:
        minimum = formulas.min_gpus_per_replica(need, gpu.memory_gb, serving.usable_memory_share, server_gpus)
    else:
        minimum = serving_curves.min_gpus_per_replica_nodes(
            need, gpu.memory_gb, serving.usable_memory_share, server_gpus, serving.max_servers_per_replica
        )
    if minimum is None:
        servers = serving.max_servers_per_replica
        raise scenario_problem(
            "workload.serving.model",
            serving.model,
            f"{model.model} at {serving.precision} needs {need / 1e9:,.0f} GB for weights and KV cache, "
            f"more than {'a full server' if servers == 1 else f'{servers} full servers'} of {server_gpus} x "
            f"{gpu.memory_gb:g} GB {gpu.gpu} holds at {serving.usable_memory_share:.0%} usable"
            + (" (a replica may span servers: raise max_servers_per_replica)" if servers == 1 else ""),
        )
    return minimum


def _lora_bytes(serving: Serving, model: LLM) -> float:
    """Memory of one of the serving block's LoRA adapters. [B]"""
    lora = serving.lora
    assert lora is not None, "called for a serving block with adapters"
    if model.hidden_size is None:
        raise scenario_problem(
            "workload.serving.lora",
            model.model,
            f"{model.model} has no hidden_size in data/models.csv, which an adapter's size needs",
        )
    return scalar(
        formulas.lora_adapter_bytes(
            lora.rank, model.layers, model.hidden_size, lora.matrices_per_layer, lora.bytes_per_parameter
        )
    )


def _lora_note(serving: Serving, model: LLM, gpu: GPU, gpus_per_replica: int) -> str:
    """How a replica holds the LoRA adapters: the base once, the adapters that fit beside it."""
    lora = serving.lora
    assert lora is not None, "called for a serving block with adapters"
    adapter = _lora_bytes(serving, model)
    base = formulas.weight_bytes(model.total_parameters, serving.precision) + serving.kv_cache_tokens * (
        formulas.kv_cache_bytes_per_token(model.layers, model.kv_elements_per_token_per_layer, serving.precision)
    )
    memory = gpus_per_replica * gpu.memory_gb * formulas.serving.GB * serving.usable_memory_share
    resident = int(np.asarray(formulas.lora_adapters_resident(lora.adapters, adapter, memory, base), dtype=float))
    return (
        f"; LoRA: {lora.adapters:,} adapters of rank {lora.rank} ({adapter / 1e6:,.1f} MB each) on one copy of "
        f"the base, {resident:,} held beside it in GPU memory, {lora.adapters - resident:,} in host memory"
    )


def _estimated_capacity(
    serving: Serving, model: LLM, gpu: GPU, peak: float, minimum: int, sizing: Number, values: Mapping[str, Any]
) -> ServingCapacity:
    """The first-principles throughput of a replica of ``minimum`` GPUs at the estimate's batch and shape, or a
    problem at ``workload.serving.estimate`` when no estimate inputs are given."""
    if serving.estimate is None:
        reason = (
            "use_estimate is true but no estimate inputs are given; "
            if serving.use_estimate
            else f"no row of data/throughput.csv measures {serving.model} on {gpu.gpu} at {serving.precision}; "
        )
        raise scenario_problem(
            "workload.serving.estimate",
            None,
            reason + "give estimate inputs (batch_size, input_tokens, "
            "output_tokens, decode_efficiency, prefill_efficiency)",
        )
    e = serving.estimate
    throughput = formulas.estimate_output_throughput(
        model.active_parameters,
        formulas.serving.BYTES_PER_VALUE[serving.precision],
        formulas.kv_cache_bytes_per_token(model.layers, model.kv_elements_per_token_per_layer, serving.precision),
        gpu.memory_bandwidth_tb_s,
        peak,
        minimum,
        e.batch_size,
        e.input_tokens,
        e.output_tokens,
        e.decode_efficiency,
        e.prefill_efficiency,
    )
    source = (
        f"ESTIMATE from first principles: {model.model} at {serving.precision} on {minimum} x {gpu.gpu}, "
        f"batch {e.batch_size}, {e.input_tokens}/{e.output_tokens} input/output tokens, decode efficiency "
        f"{_shown(e.decode_efficiency)}, prefill efficiency {_shown(e.prefill_efficiency)}"
        + (f" ({e.source})" if e.source else "")
    )
    return ServingCapacity(values.get(THROUGHPUT_INPUT, throughput), minimum, minimum, sizing, source, True)


def _basic_plan(
    work, catalog: Catalog, gpu: GPU, capacity: ServingCapacity, server_gpus: int = GPUS_PER_SERVER
) -> ServingPlan:
    """The plan of a served model with no latency target: maximum throughput, as the row measured."""
    serving = work.serving
    model = catalog.models[serving.model]
    weights, kv = replica_memory_gb(model, serving, capacity.gpus_per_replica)
    spare, share = redundancy(serving)
    return ServingPlan(
        target=None,
        mode="aggregated",
        mode_reason="no latency target: sized at the maximum throughput of the row (or estimate) used",
        point=None,
        decode_point=None,
        curve=(),
        curve_label="",
        prefill_share=0.0,
        prefill_utilisation=None,
        aggregated_gpu_seconds_per_token=None,
        disaggregated_gpu_seconds_per_token=None,
        gpus_per_server=server_gpus,
        servers_per_replica=-(-capacity.gpus_per_replica // server_gpus),
        weights_gb_per_gpu=weights,
        kv_cache_gb_per_gpu=kv,
        memory_gb_per_gpu=gpu.memory_gb,
        spare_replicas=spare,
        availability=share,
        input_tokens=serving.request.input_tokens if serving.request else None,
        output_tokens=serving.request.output_tokens if serving.request else None,
    )


def _shown(value) -> str:
    """A number for a source line (``0.57``), or ``sampled`` for an array of samples."""
    return f"{float(value):g}" if np.ndim(value) == 0 else "sampled"


def workload_inputs(scenario: Scenario, catalog: Catalog, values: Mapping[str, Any]) -> WorkloadInputs:
    """The scenario's workload sized once: GPU-hours per unit of volume, the utilisation ceiling, the replica.

    Parameters
    ----------
    scenario
        The validated scenario, with ``values`` already applied to its fields.
    catalog
        The catalog to look the GPU, model and throughput rows up in.
    values
        Input path → value; a sampled ``workload.output_tokens_per_second_per_gpu`` replaces the throughput.

    Raises
    ------
    ScenarioError
        The model does not fit a server's memory, no throughput row and no estimate, no curve meets the
        latency target, or the training state does not fit (the field is named).
    """
    work = scenario.workload
    gpu = catalog.gpus[work.gpu]
    if work.kind == "tokens" and work.input_only:  # embeddings: API offers only, no GPU sizing
        return WorkloadInputs("tokens", gpu, work.tokens_per_day, "tokens/day", 0.0, 1.0, 1, math.inf)
    if work.kind == "tokens" and work.serving is None and work.output_tokens_per_second_per_gpu is None:
        # API options only: nothing is sized in GPUs
        return WorkloadInputs(
            "tokens", gpu, work.tokens_per_day, "tokens/day", 0.0, 1.0, 1, work.input_tokens_per_output_token
        )
    if work.kind == "tokens":
        return _served(work, catalog, gpu, values, _server_gpus(scenario, catalog))
    if work.kind == "training":
        training = training_inputs(work, catalog, gpu)
        return WorkloadInputs("training", gpu, scenario.volume, "GPU-hours/month", 1.0, 1.0, 1, training=training)
    return WorkloadInputs(
        "gpu_hours", gpu, work.gpu_hours_per_month, "GPU-hours/month", 1.0, work.utilisation_ceiling, 1
    )


def _served(
    work: TokensWorkload, catalog: Catalog, gpu: GPU, values: Mapping[str, Any], server_gpus: int
) -> WorkloadInputs:
    """A tokens workload served on GPUs: its capacity, spare replicas, the availability haircut."""
    capacity = _serving_capacity(work, catalog, gpu, values, server_gpus)
    spare = minimum_gpus = 0
    if work.serving is not None and work.serving.lora is not None:
        note = _lora_note(work.serving, catalog.models[work.serving.model], gpu, capacity.gpus_per_replica)
        capacity = dataclasses.replace(capacity, source=capacity.source + note)
    if work.serving is not None:
        plan = capacity.plan if capacity.plan is not None else _basic_plan(work, catalog, gpu, capacity, server_gpus)
        capacity = dataclasses.replace(capacity, plan=plan)
        spare = plan.spare_replicas * capacity.gpus_per_replica
        minimum_gpus = 2 * capacity.gpus_per_replica if plan.mode == "disaggregated" else 0
        if plan.availability < 1.0:
            haircut = capacity.sizing_utilisation * plan.availability
            capacity = dataclasses.replace(capacity, sizing_utilisation=haircut)
    assert work.input_tokens_per_output_token is not None, "a workload served on GPUs states its mix"
    per_volume = formulas.gpu_hours_for_tokens(
        1.0, work.input_tokens_per_output_token, capacity.output_tokens_per_second_per_gpu
    )
    return WorkloadInputs(
        "tokens",
        gpu,
        work.tokens_per_day,
        "tokens/day",
        per_volume,
        capacity.sizing_utilisation,
        capacity.gpus_per_replica,
        work.input_tokens_per_output_token,
        capacity,
        spare_gpus=spare,
        minimum_gpus=minimum_gpus,
        peak_to_average=work.serving.peak_to_average if work.serving is not None else 1.0,
    )


__all__ = ["GPUS_PER_SERVER", "WorkloadInputs", "workload_inputs"]

"""The GPUs a served model needs at its latency target: the best curve that meets it, and the plan.

A latency target (a TTFT bound and a per-user speed) picks a point on a throughput–interactivity
curve. The search reads every candidate curve at the workload's own request shape, measured
curves first, then the curves estimated with aiconfigurator-core's kernel database, then the
first-principles one (an estimate is used only where no measured curve meets the target), in
both serving modes: aggregated (one pool, the point that meets TTFT and speed) and
disaggregated (a decode pool at the speed, a prefill pool held below the utilisation at which
its queue breaks the TTFT bound). The formulas are :mod:`costmodel.formulas.serving_curves` and
:mod:`costmodel.formulas.pools`; :func:`serving_at_target` returns the
:class:`ServingCapacity` with its :class:`ServingPlan`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import formulas
from .catalog import GPU, LLM, Catalog, ServingCurvePoint, ThroughputRow
from .errors import scenario_problem
from .formulas import serving_curves
from .formulas.shapes import Values
from .schema.inputs import THROUGHPUT_INPUT
from .schema.workload import LatencyTarget, Serving, TokensWorkload
from .serving_candidates import (
    BASIS_FIRST_PRINCIPLES,
    BASIS_MEASURED,
    Curve,
    CurveRow,
    candidate_curves,
    estimate_inputs,
)

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""


# --- what sizing a served model gives ------------------------------------------------------------------


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
        The utilisation ceiling: target utilisation / peak-to-average ratio with a served
        model, else the workload's own ceiling. [-]
    source
        The throughput row used, or "ESTIMATE" with the estimate's inputs.
    estimated
        True when no measured row was used.
    row
        The throughput row used, if any.
    """

    output_tokens_per_second_per_gpu: Number
    gpus_per_replica: int
    min_gpus_per_replica: int
    sizing_utilisation: Number
    source: str
    estimated: bool
    row: ThroughputRow | None = None
    plan: ServingPlan | None = None


@dataclass(frozen=True)
class OperatingPoint:
    """A point of a throughput–interactivity curve, at the workload's own request shape.

    Attributes
    ----------
    concurrency
        Requests in flight per replica. [requests]
    throughput_per_gpu
        [output tokens/s/GPU]
    tokens_per_second_per_user
        [tokens/s/user]
    ttft
        At the target's statistic (p90, ...). [s]
    source
        The measured points it lies between (ids, grades, sources) or "ESTIMATE ...".
    estimated
        True on an estimated curve (aiconfigurator-core's or the first-principles one).
    basis
        ``measured``, ``estimated with aiconfigurator-core's kernel database`` or ``estimated from
        first principles``: what the point rests on.
    """

    concurrency: float
    throughput_per_gpu: float
    tokens_per_second_per_user: float
    ttft: float
    source: str
    estimated: bool
    basis: str = "measured"


@dataclass(frozen=True)
class ServingPlan:
    """How a served model meets its latency target: the point, the pools, the replica, the spares.

    Attributes
    ----------
    target
        The scenario's latency target (None: maximum throughput, today's sizing).
    mode
        ``aggregated`` or ``disaggregated``; ``mode_reason`` says why.
    point
        The aggregated operating point (None without a target).
    decode_point
        The decode pool's operating point (disaggregated serving), else None.
    curve
        The curve the point was read from, converted to the request shape: tuples of
        (concurrency, throughput per GPU, tokens/s per user, TTFT), for the chart.
    curve_label
        Its name and source.
    prefill_share
        Share of the GPUs in the prefill pool (disaggregated; 0 when aggregated). [-]
    prefill_utilisation
        Highest utilisation of a prefill replica that keeps TTFT in bound. [-]
    aggregated_gpu_seconds_per_token, disaggregated_gpu_seconds_per_token
        GPU time per output token of each mode at the target (None where a mode cannot meet it). [GPU-s/token]
    gpus_per_server, servers_per_replica
        [GPU], [servers] (a replica spans whole servers when it needs more than one).
    weights_gb_per_gpu, kv_cache_gb_per_gpu, memory_gb_per_gpu
        Memory per GPU of a replica: the weights' share, the KV cache's share, and what the GPU has. [GB]
    spare_replicas
        Held idle beyond the peak's need. [replicas]
    availability
        Share of time a replica serves (failures and recovery); the utilisation ceiling is cut by it. [-]
    input_tokens, output_tokens
        The request shape. [tokens]
    decode_curve
        The decode pool's curve (prompts prefilled elsewhere), as ``curve`` (TTFT 1 s: not modelled);
        empty when aggregated.
    """

    target: Any
    mode: str
    mode_reason: str
    point: OperatingPoint | None
    decode_point: OperatingPoint | None
    curve: tuple[tuple[float, float, float, float], ...]
    curve_label: str
    prefill_share: float
    prefill_utilisation: float | None
    aggregated_gpu_seconds_per_token: float | None
    disaggregated_gpu_seconds_per_token: float | None
    gpus_per_server: int
    servers_per_replica: int
    weights_gb_per_gpu: float
    kv_cache_gb_per_gpu: float
    memory_gb_per_gpu: float
    spare_replicas: int
    availability: float
    input_tokens: int | None
    output_tokens: int | None
    decode_curve: tuple[tuple[float, float, float, float], ...] = ()


# --- the search's candidates and its result ----------------------------------------------------------------


@dataclass(frozen=True)
class TargetChoice:
    """The best way one serving mode meets the target.

    Attributes
    ----------
    curve
        The curve it is read from.
    point
        The operating point (disaggregated: the decode pool's, with the prefill pool's TTFT).
    gpu_seconds_per_token
        GPU time per output token, both pools included. [GPU-s/token]
    prefill_gpu_seconds_per_token
        The prefill pool's part of it (0 when aggregated). [GPU-s/token]
    prefill_utilisation
        ρ, the prefill pool's utilisation ceiling as computed (above 1 where the bound is loose);
        None when aggregated. [-]
    """

    curve: Curve
    point: OperatingPoint
    gpu_seconds_per_token: float
    prefill_gpu_seconds_per_token: float = 0.0
    prefill_utilisation: float | None = None


# --- memory and spares of a replica ----------------------------------------------------------------------


def replica_memory_gb(model: LLM, serving: Serving, gpus: int) -> tuple[float, float]:
    """Weights and KV cache per GPU of a replica of ``gpus`` GPUs. [GB]"""
    weights = formulas.weight_bytes(model.total_parameters, serving.precision) / gpus / 1e9
    kv = (
        serving.kv_cache_tokens
        * formulas.kv_cache_bytes_per_token(model.layers, model.kv_elements_per_token_per_layer, serving.precision)
        / gpus
        / 1e9
    )
    return _number(weights), _number(kv)


def _number(value: Values) -> float:
    """The float of a formula's result for scalar inputs (a type checker sees ``float | ndarray | Series``)."""
    return float(np.asarray(value, dtype=float))


def redundancy(serving: Serving) -> tuple[int, float]:
    """Spare replicas and the availability of a replica. [replicas], [-]"""
    red = serving.redundancy
    if red is None:
        return 0, 1.0
    return red.spare_replicas, float(serving_curves.availability(red.failures_per_replica_per_year, red.recovery_hours))


# --- the candidate curves ------------------------------------------------------------------------------------


# --- reading the curves at the target --------------------------------------------------------------------------


def _read(
    curve: Curve,
    rows: Sequence[CurveRow],
    speed: float | None,
    ttft: float | None,
    ids: Sequence[str] | None = None,
    points: Sequence[ServingCurvePoint] | None = None,
) -> OperatingPoint | None:
    """The best point of ``rows`` (of ``curve``, or of its own decode pool with ``ids`` and ``points``) that
    meets the speed and the TTFT bound, with where it comes from; None if none does."""
    found = serving_curves.operating_point(
        [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows], speed, ttft
    )
    if found is None:
        return None
    ids = curve.ids if ids is None else ids
    points = curve.points if points is None else points
    if curve.basis == BASIS_FIRST_PRINCIPLES:
        where = f"{curve.label}; at batch {found['concurrency']:g}"
    else:
        at = found["between"][0]
        cited = points[at]
        where = (
            f"{curve.label}; at {'estimated' if cited.estimated else 'measured'} point {ids[at]} "
            f"[{cited.quality}, {cited.as_of}] {cited.source}"
        )
    return OperatingPoint(
        found["concurrency"],
        found["throughput_per_gpu"],
        found["tokens_per_second_per_user"],
        found["ttft"],
        where,
        curve.basis != BASIS_MEASURED,
        curve.basis,
    )


def _best_aggregated(tiers: Sequence[Sequence[Curve]], target: LatencyTarget) -> TargetChoice | None:
    """The aggregated point of highest throughput that meets the target, from the first tier that has one
    (measured curves first; an estimate only where no measured curve meets the target)."""
    best = None
    for tier in tiers:
        for curve in tier:
            point = _read(curve, curve.rows, target.min_tokens_per_second, target.ttft_seconds)
            if point is not None and (best is None or point.throughput_per_gpu > best.point.throughput_per_gpu):
                best = TargetChoice(curve, point, 1.0 / point.throughput_per_gpu)
        if best is not None:
            break
    return best


def _best_disaggregated(
    tiers: Sequence[Sequence[Curve]], serving: Serving, target: LatencyTarget, cost: float
) -> TargetChoice | None:
    """The disaggregated fleet of least GPU time per output token that meets the target, from the first tier
    that has one: a decode pool at the per-user speed, a prefill pool below its TTFT utilisation ceiling."""
    shape = serving.request
    assert shape is not None, "a latency target comes with a request shape"
    inputs, outputs, wanted = shape.input_tokens, shape.output_tokens, target.ttft_statistic
    best = None
    for tier in tiers:
        for curve in tier:
            own = curve.pools
            pool_cost = cost if own is None else own.prefill_gpu_seconds_per_token
            prefill_time = formulas.prefill_seconds(pool_cost, inputs, curve.gpus_per_replica)
            rho = (
                1.0
                if target.ttft_seconds is None
                else _number(serving_curves.prefill_pool_utilisation(prefill_time, target.ttft_seconds, wanted))
            )
            if rho <= 0:
                continue
            if own is None:
                point = _read(curve, curve.decode_rows, target.min_tokens_per_second, None)
            else:
                point = _read(curve, own.decode_rows, target.min_tokens_per_second, None, own.ids, own.points)
            if point is None:
                continue
            point = dataclasses.replace(point, ttft=_number(formulas.disaggregated_ttft(prefill_time, rho, wanted)))
            prefill_part = _number(
                formulas.prefill_gpu_seconds_per_output_token(
                    pool_cost, inputs, outputs, serving.target_utilisation, rho
                )
            )
            per_token = _number(formulas.disaggregated_gpu_seconds_per_token(point.throughput_per_gpu, prefill_part))
            if best is None or per_token < best.gpu_seconds_per_token:
                best = TargetChoice(curve, point, per_token, prefill_part, rho)
        if best is not None:
            break
    return best


def _fastest(curves: Iterable[Curve], statistic: str) -> str:
    """What the curves reach at best: the fastest per-user speed and the shortest TTFT."""
    return "; ".join(
        f"{curve.label.split(':')[0]} reaches at most {max(r[2] for r in curve.rows):,.1f} tokens/s per user and "
        f"at least {min(r[3] for r in curve.rows):.3g} s to first token ({statistic})"
        for curve in curves
    )


def _serving_mode(
    work: TokensWorkload,
    sizing: Number,
    aggregated: TargetChoice | None,
    disaggregated: TargetChoice | None,
    curves: Sequence[Curve],
) -> tuple[str, str]:
    """The serving mode and why: as the scenario chooses it, or with ``auto`` the one that meets the target,
    and where both do, the one of fewer GPUs at the scenario's volume (whole replicas; two pools need two)."""
    serving = work.serving
    assert serving is not None and serving.target is not None
    mode = serving.serving_mode
    if mode != "auto":
        if (mode == "aggregated" and aggregated is None) or (mode == "disaggregated" and disaggregated is None):
            raise scenario_problem(
                "workload.serving.serving_mode",
                mode,
                f"{mode} serving cannot meet the target: " + _fastest(curves, serving.target.ttft_statistic),
            )
        return mode, "chosen in the scenario (serving_mode)"
    if disaggregated is None:
        return "aggregated", "disaggregated serving cannot meet the target"
    if aggregated is None:
        return "disaggregated", "aggregated serving cannot meet the target; separate prefill and decode pools can"
    assert work.input_tokens_per_output_token is not None, "a served model's workload states its mix"
    tokens_per_day = float(np.mean(work.tokens_per_day))
    share = formulas.output_share(work.input_tokens_per_output_token)
    rate = formulas.output_rate_to_provision(tokens_per_day, share, float(np.mean(sizing)))
    agg_replicas = formulas.replicas_for_rate(
        rate, aggregated.gpu_seconds_per_token, aggregated.curve.gpus_per_replica, 1
    )
    dis_replicas = formulas.replicas_for_rate(
        rate, disaggregated.gpu_seconds_per_token, disaggregated.curve.gpus_per_replica, 2
    )
    agg_gpus = int(_number(agg_replicas)) * aggregated.curve.gpus_per_replica
    dis_gpus = int(_number(dis_replicas)) * disaggregated.curve.gpus_per_replica
    agg_key = (agg_gpus, aggregated.gpu_seconds_per_token)
    mode = "disaggregated" if (dis_gpus, disaggregated.gpu_seconds_per_token) < agg_key else "aggregated"
    reason = (
        f"cheaper at {tokens_per_day:,.0f} tokens/day: {min(agg_gpus, dis_gpus):,} "
        f"GPUs against {max(agg_gpus, dis_gpus):,} "
        f"({'aggregated' if mode == 'disaggregated' else 'disaggregated'}); "
        f"{aggregated.gpu_seconds_per_token * 1e3:.3g} GPU-ms per output token aggregated, "
        f"{disaggregated.gpu_seconds_per_token * 1e3:.3g} disaggregated"
    )
    return mode, reason


# --- the search ---------------------------------------------------------------------------------------------------


def serving_at_target(
    work: TokensWorkload,
    catalog: Catalog,
    gpu: GPU,
    model: LLM,
    peak: float,
    minimum: int,
    sizing: Number,
    values: Mapping[str, Any],
    server_gpus: int,
) -> ServingCapacity:
    """Size a served model at its latency target: the best measured curve, else an estimated one.

    Parameters
    ----------
    work
        The tokens workload, with a serving block that has a target, a request shape and estimate inputs.
    catalog
        The catalog whose measured curves are read.
    gpu, model
        The catalog rows of the GPU and the served model.
    peak
        The GPU's dense peak at the serving precision's compute precision. [TFLOP/s]
    minimum
        The fewest GPUs whose memory holds weights and KV cache. [GPU]
    sizing
        The utilisation ceiling: target utilisation / peak-to-average. [-]
    values
        Input path → value; a sampled ``workload.output_tokens_per_second_per_gpu`` replaces the throughput.
    server_gpus
        GPUs in one server. [GPU]

    Raises
    ------
    ScenarioError
        No curve meets the target (the fastest each reaches is named), or the serving mode the scenario
        chooses cannot.
    """
    serving = work.serving
    assert serving is not None and serving.target is not None and serving.request is not None
    target, wanted = serving.target, serving.target.ttft_statistic
    cost = serving_curves.prefill_seconds_per_token(
        model.active_parameters, peak, estimate_inputs(serving).prefill_efficiency
    )
    tiers, skipped = candidate_curves(serving, catalog, gpu, model, peak, minimum, cost)
    candidates = [c for tier in tiers for c in tier]
    aggregated = _best_aggregated(tiers, target)
    disaggregated = _best_disaggregated(tiers, serving, target, cost)
    if aggregated is None and disaggregated is None:
        raise scenario_problem(
            "workload.serving.target",
            target.model_dump(exclude_none=True),
            "no curve meets it: "
            + _fastest(candidates, wanted)
            + (f"; curves skipped: {'; '.join(skipped)}" if skipped else ""),
        )
    mode, reason = _serving_mode(work, sizing, aggregated, disaggregated, candidates)
    plan = _plan(serving, model, gpu, mode, reason, aggregated, disaggregated, server_gpus)
    chosen = aggregated if mode == "aggregated" else disaggregated
    assert chosen is not None and plan.point is not None
    throughput = values.get(THROUGHPUT_INPUT, 1.0 / chosen.gpu_seconds_per_token)
    source = f"{mode} serving at the target; {plan.point.source}"
    replica = chosen.curve.gpus_per_replica
    return ServingCapacity(
        throughput, replica, minimum, sizing, source, chosen.curve.basis != BASIS_MEASURED, None, plan
    )


def _plan(
    serving: Serving,
    model: LLM,
    gpu: GPU,
    mode: str,
    reason: str,
    aggregated: TargetChoice | None,
    disaggregated: TargetChoice | None,
    server_gpus: int,
) -> ServingPlan:
    """The plan of the chosen mode: its point, curve, pools, replica memory and spares."""
    assert serving.request is not None
    inputs, outputs = serving.request.input_tokens, serving.request.output_tokens
    chosen = aggregated if mode == "aggregated" else disaggregated
    assert chosen is not None, "the mode chosen meets the target"
    curve, replica = chosen.curve, chosen.curve.gpus_per_replica
    if mode == "aggregated":
        decode_point, rho, share = None, None, 0.0
    else:  # the fleet runs at the decode pool's point
        decode_point, rho = chosen.point, chosen.prefill_utilisation
        share = chosen.prefill_gpu_seconds_per_token / chosen.gpu_seconds_per_token
    decode_rows = curve.pools.decode_rows if curve.pools is not None else curve.decode_rows
    spare, share_up = redundancy(serving)
    weights_gb, kv_gb = replica_memory_gb(model, serving, replica)
    kv_per_token = formulas.kv_cache_bytes_per_token(
        model.layers, model.kv_elements_per_token_per_layer, serving.precision
    )
    held = formulas.mean_kv_cache_bytes_in_flight(chosen.point.concurrency, inputs, outputs, _number(kv_per_token))
    kv_gb = max(kv_gb, _number(held) / replica / 1e9)  # the KV cache the operating point holds
    return ServingPlan(
        target=serving.target,
        mode=mode,
        mode_reason=reason,
        point=chosen.point,
        decode_point=decode_point,
        curve=curve.rows,
        curve_label=curve.label,
        prefill_share=share,
        prefill_utilisation=None if rho is None else min(rho, 1.0),
        aggregated_gpu_seconds_per_token=None if aggregated is None else aggregated.gpu_seconds_per_token,
        disaggregated_gpu_seconds_per_token=None if disaggregated is None else disaggregated.gpu_seconds_per_token,
        gpus_per_server=server_gpus,
        servers_per_replica=-(-replica // server_gpus),
        weights_gb_per_gpu=weights_gb,
        kv_cache_gb_per_gpu=kv_gb,
        memory_gb_per_gpu=gpu.memory_gb,
        spare_replicas=spare,
        availability=share_up,
        input_tokens=inputs,
        output_tokens=outputs,
        decode_curve=tuple(decode_rows) if mode == "disaggregated" else (),
    )


__all__ = [
    "OperatingPoint",
    "ServingCapacity",
    "ServingPlan",
    "TargetChoice",
    "redundancy",
    "replica_memory_gb",
    "serving_at_target",
]

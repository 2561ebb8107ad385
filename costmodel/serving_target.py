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
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import formulas
from .catalog import GPU, LLM, Catalog, ServingCurvePoint, ThroughputRow, estimated_curves
from .errors import scenario_problem
from .formulas import serving_curves
from .formulas.shapes import Values
from .schema.inputs import THROUGHPUT_INPUT
from .schema.workload import LatencyTarget, Serving, ServingEstimate, ServingLevers, TokensWorkload

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""

Row = tuple[float, float, float, float]
"""A point of a curve at the workload's request shape: (concurrency [requests], throughput
[output tokens/s/GPU], per-user speed [tokens/s/user], TTFT at the target's statistic [s])."""

BASIS_MEASURED = "measured"
BASIS_DATABASE = "estimated with aiconfigurator-core's kernel database"
BASIS_FIRST_PRINCIPLES = "estimated from first principles"
"""What a serving operating point rests on, in the order sizing prefers them."""

_BATCHES = tuple(int(b) for b in np.unique(np.round(np.geomspace(1, 4096, 193))))
"""Batch sizes the first-principles curve is drawn at: 143 whole batches from 1 to 4,096, at most 4.4 % apart,
so the best one that meets a target is within a few per cent of the closed form's best whole batch. [requests]"""


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
class OwnPools:
    """The prefill and decode curves estimated beside an aggregated curve, at the workload's request shape.

    Attributes
    ----------
    prefill_gpu_seconds_per_token
        GPU time per input token in the prefill pool, read at one request per attention rank (the TTFT a
        request sees in an idle pool). [GPU-s/token]
    decode_rows
        The decode curve as :data:`Row` tuples (TTFT 1 s: not modelled).
    ids, points
        The decode curve's catalog points and their ids, by row.
    """

    prefill_gpu_seconds_per_token: float
    decode_rows: tuple[Row, ...]
    ids: tuple[str, ...]
    points: tuple[ServingCurvePoint, ...]


@dataclass(frozen=True)
class Curve:
    """A candidate curve of the search, converted to the workload's request shape.

    Attributes
    ----------
    gpus_per_replica
        [GPU]
    label
        Its name and source, as the plan shows it.
    rows
        The aggregated curve as :data:`Row` tuples, by concurrency.
    decode_rows
        The same curve as a decode pool's (prompts prefilled elsewhere; TTFT 1 s: not modelled).
    basis
        One of :data:`BASIS_MEASURED`, :data:`BASIS_DATABASE`, :data:`BASIS_FIRST_PRINCIPLES`.
    ids, points
        The catalog points behind the rows, by row (empty for the first-principles curve).
    pools
        The curve's own prefill and decode curves, where aiconfigurator-core estimated them beside it.
    """

    gpus_per_replica: int
    label: str
    rows: tuple[Row, ...]
    decode_rows: tuple[Row, ...]
    basis: str
    ids: tuple[str, ...] = ()
    points: tuple[ServingCurvePoint, ...] = ()
    pools: OwnPools | None = None


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


def _nearest_shapes(
    curves: dict[str, list[ServingCurvePoint]], inputs: int, outputs: int
) -> dict[str, list[ServingCurvePoint]]:
    """Of estimated curves of one replica and split, those of the request shape nearest the workload's (the
    smallest sum of the input and output lengths' log ratios; one curve per step budget): the others would only
    be converted."""
    best: dict[tuple[int, str], tuple[float, int, int]] = {}
    for points in curves.values():
        p = points[0]
        distance = abs(math.log(p.input_tokens / inputs)) + abs(math.log(p.output_tokens / outputs))
        key = (p.gpus_per_replica, p.parallelism)
        if key not in best or (distance, p.input_tokens, p.output_tokens) < best[key]:
            best[key] = (distance, p.input_tokens, p.output_tokens)
    return {
        name: points
        for name, points in sorted(curves.items())
        if best[(points[0].gpus_per_replica, points[0].parallelism)][1:]
        == (points[0].input_tokens, points[0].output_tokens)
    }


def _curves_with_levers(
    serving: Serving, gpu: GPU, levers: ServingLevers, inputs: int, outputs: int, minimum: int
) -> tuple[ServingCurvePoint, ...]:
    """The curves aiconfigurator-core estimates with a scenario's levers, or a problem at ``levers`` saying why
    there are none (the extra missing, the pair not covered)."""
    from . import estimate
    from .catalog import computed_curves

    given = levers.model_dump(exclude_none=True, exclude={"source"})
    try:
        return computed_curves(
            serving.model,
            gpu.gpu,
            serving.precision,
            inputs,
            outputs,
            (
                levers.prefix_cache_hit_rate,
                levers.speculative_tokens,
                levers.acceptance_rate,
                levers.kv_cache_precision,
            ),
            minimum,
        )
    except estimate.EstimateUnavailable as exc:
        raise scenario_problem(
            "workload.serving.levers",
            given,
            f"the levers move a curve estimated with them, computed by aiconfigurator-core: {exc}",
        ) from None
    except estimate.NotCovered as exc:
        raise scenario_problem(
            "workload.serving.levers", given, f"no curve can be estimated with them: {exc}"
        ) from None


def _pool_curves(curve: str, phases: dict[str, list[ServingCurvePoint]], inputs: int, outputs: int) -> OwnPools | None:
    """The prefill and decode curves estimated beside an aggregated one (same replica, split and shape), when
    its shape is the workload's, or None.

    The prefill pool's cost is read at a prefill batch of one request per attention rank (the smallest batch,
    the TTFT a request sees in an idle pool); the decode rows are (concurrency, output tokens/s per GPU,
    tokens/s per user, 1.0), as :func:`costmodel.formulas.serving_curves.decode_only_point` gives them for a
    measured curve."""
    base = re.sub(r"-ctx\d+", "", curve)  # the phases have no step budget of a mixed step
    prefill = sorted(phases.get(base.replace("-agg-", "-prefill-"), []), key=lambda p: p.concurrency)
    decode = sorted(phases.get(base.replace("-agg-", "-decode-"), []), key=lambda p: p.concurrency)
    if not prefill or not decode or (prefill[0].input_tokens, prefill[0].output_tokens) != (inputs, outputs):
        return None
    first = prefill[0]
    assert first.input_tokens_per_second_per_gpu is not None, "an estimated prefill point states its input rate"
    rows = tuple(_decode_row(p) for p in decode)
    return OwnPools(1.0 / first.input_tokens_per_second_per_gpu, rows, tuple(p.point for p in decode), tuple(decode))


def _decode_row(point: ServingCurvePoint) -> Row:
    """A point of an estimated decode curve as a :data:`Row` (TTFT 1 s: not modelled)."""
    throughput, speed = point.output_tokens_per_second_per_gpu, point.tokens_per_second_per_user
    assert throughput is not None and speed is not None, "an estimated decode point states both rates"
    return (point.concurrency, throughput, speed, 1.0)


def _curve_points(
    serving: Serving, catalog: Catalog, gpu: GPU, levers: ServingLevers | None, inputs: int, outputs: int, minimum: int
) -> tuple[dict[str, list[ServingCurvePoint]], dict[str, list[ServingCurvePoint]], dict[str, list[ServingCurvePoint]]]:
    """The points of the measured curves, of the estimated aggregated curves of the nearest request shapes, and
    of the estimated prefill and decode curves (disaggregated workers), each by curve id."""
    measured: dict[str, list[ServingCurvePoint]] = {}
    database: dict[str, list[ServingCurvePoint]] = {}
    phases: dict[str, list[ServingCurvePoint]] = {}
    if levers is not None:
        # the measured and the committed curves were made without the levers: only curves estimated with them
        bundled = _curves_with_levers(serving, gpu, levers, inputs, outputs, minimum)
    else:
        bundled = () if serving.use_estimate else estimated_curves(serving.model, gpu.gpu, serving.precision)
    for point in [*(catalog.serving_curves.values() if levers is None else ()), *bundled]:
        if (point.model, point.gpu, point.precision) != (serving.model, gpu.gpu, serving.precision):
            continue
        if point.phase != "aggregated":
            phases.setdefault(point.curve, []).append(point)
        elif serving.curve is None or point.curve == serving.curve:
            (database if point.estimated else measured).setdefault(point.curve, []).append(point)
    return measured, _nearest_shapes(database, inputs, outputs), phases


def _converted_curve(
    name: str,
    points: list[ServingCurvePoint],
    gpu: GPU,
    shape: tuple[int, int],
    cost: float,
    wanted: str,
    phases: dict[str, list[ServingCurvePoint]],
    skipped: list[str],
) -> Curve | None:
    """One catalog curve converted to the request ``shape`` (input, output tokens) at the prefill ``cost``
    [GPU-s/token]; a point whose prefill share exceeds its time is skipped (and named in ``skipped``)."""
    inputs, outputs = shape
    replica = points[0].gpus_per_replica
    rows: list[Row] = []
    decode: list[Row] = []
    kept: list[ServingCurvePoint] = []
    for p in sorted(points, key=lambda q: q.concurrency):
        try:
            t, sp, f = serving_curves.convert_point_to_mix(
                p.output_tokens_per_second_per_gpu,
                p.tokens_per_second_per_user,
                p.ttft_seconds,
                replica,
                p.input_tokens,
                p.output_tokens,
                inputs,
                outputs,
                cost,
            )
            dt, ds = serving_curves.decode_only_point(
                p.output_tokens_per_second_per_gpu,
                p.tokens_per_second_per_user,
                replica,
                p.input_tokens,
                p.output_tokens,
                cost,
            )
        except ValueError:
            skipped.append(f"{p.point} (its prefill share at the stated prefill efficiency exceeds its time)")
            continue
        ttft = float(serving_curves.ttft_at_statistic(float(f), p.ttft_statistic, wanted))
        rows.append((p.concurrency, float(t), float(sp), ttft))
        decode.append((p.concurrency, float(dt), float(ds), 1.0))
        kept.append(p)
    if not rows:
        return None
    first = kept[0]
    how = "ESTIMATED with" if first.estimated else "measured at"
    converted = (
        ""
        if (first.input_tokens, first.output_tokens) == (inputs, outputs)
        else f", converted to {inputs:,}/{outputs:,}"
    )
    label = (
        f"{name}: {first.engine}, {first.parallelism} on {replica} x {gpu.gpu}, {how} "
        + (f"{first.source.split(' estimate:')[0]} at " if first.estimated else "")
        + f"{first.input_tokens:,}/{first.output_tokens:,} input/output tokens{converted}"
    )
    own = _pool_curves(name, phases, inputs, outputs) if first.estimated else None
    if own is not None:
        label += "; the disaggregated pools from its own estimated prefill and decode curves"
    basis = BASIS_DATABASE if first.estimated else BASIS_MEASURED
    return Curve(replica, label, tuple(rows), tuple(decode), basis, tuple(p.point for p in kept), tuple(kept), own)


def _first_principles_curve(
    serving: Serving, model: LLM, gpu: GPU, peak: float, replica: int, shape: tuple[int, int], wanted: str
) -> Curve:
    """The roofline curve of :func:`costmodel.formulas.serving_curves.roofline_curve` on a replica of
    ``replica`` GPUs, at every batch of :data:`_BATCHES` whose KV cache fits beside the weights."""
    e = _estimate(serving)
    inputs, outputs = shape
    kv_per_token = formulas.kv_cache_bytes_per_token(
        model.layers, model.kv_elements_per_token_per_layer, serving.precision
    )
    usable = gpu.memory_gb * 1e9 * serving.usable_memory_share
    free = replica * usable - _number(formulas.weight_bytes(model.total_parameters, serving.precision))
    fits = [b for b in _BATCHES if _number(formulas.kv_cache_bytes_of_batch(b, inputs, outputs, kv_per_token)) <= free]
    batches = fits or [1]
    args = (
        model.active_parameters,
        formulas.serving.BYTES_PER_VALUE[serving.precision],
        kv_per_token,
        gpu.memory_bandwidth_tb_s,
        peak,
        replica,
        inputs,
        outputs,
        e.decode_efficiency,
        e.prefill_efficiency,
    )
    sp, tp, fp = serving_curves.roofline_curve(np.array(batches), *args, total_parameters=model.total_parameters)
    dsp, dtp, _ = serving_curves.roofline_curve(
        np.array(batches), *args, prefill=False, total_parameters=model.total_parameters
    )
    label = (
        f"ESTIMATE from first principles: {model.model} at {serving.precision} on {replica} x "
        f"{gpu.gpu}, {inputs:,}/{outputs:,} input/output tokens, decode efficiency "
        f"{e.decode_efficiency:g}, prefill efficiency {e.prefill_efficiency:g}" + (f" ({e.source})" if e.source else "")
    )
    rows = tuple(
        (float(b), float(t), float(s_), float(serving_curves.ttft_at_statistic(float(f), "mean", wanted)))
        for b, t, s_, f in zip(batches, tp, sp, fp, strict=True)
    )
    decode = tuple((float(b), float(t), float(s_), 1.0) for b, t, s_ in zip(batches, dtp, dsp, strict=True))
    return Curve(replica, label, rows, decode, BASIS_FIRST_PRINCIPLES)


def _estimate(serving: Serving) -> ServingEstimate:
    """The serving block's estimate inputs, which a latency target requires (the schema checks it)."""
    assert serving.estimate is not None, "a latency target comes with estimate inputs"
    return serving.estimate


# --- reading the curves at the target --------------------------------------------------------------------------


def _read(
    curve: Curve,
    rows: Sequence[Row],
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
    shape = (serving.request.input_tokens, serving.request.output_tokens)
    cost = serving_curves.prefill_seconds_per_token(
        model.active_parameters, peak, _estimate(serving).prefill_efficiency
    )
    levers = serving.levers if serving.levers is not None and serving.levers.active else None
    measured, database, phases = _curve_points(serving, catalog, gpu, levers, *shape, minimum)
    skipped: list[str] = []
    tiers: list[list[Curve]] = []
    for curves in (measured, database):
        tier = []
        for name, points in curves.items():
            replica = points[0].gpus_per_replica
            if replica < minimum:
                skipped.append(f"{name} ({replica} GPUs per replica, fewer than the {minimum} the memory needs)")
                continue
            curve = _converted_curve(name, points, gpu, shape, cost, wanted, phases, skipped)
            if curve is not None:
                tier.append(curve)
        tiers.append(tier)
    if levers is None:  # the first-principles curve has no levers: it is no fallback for curves that have
        tiers.append([_first_principles_curve(serving, model, gpu, peak, minimum, shape, wanted)])
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
    "BASIS_DATABASE",
    "BASIS_FIRST_PRINCIPLES",
    "BASIS_MEASURED",
    "Curve",
    "OperatingPoint",
    "OwnPools",
    "ServingCapacity",
    "ServingPlan",
    "TargetChoice",
    "redundancy",
    "replica_memory_gb",
    "serving_at_target",
]

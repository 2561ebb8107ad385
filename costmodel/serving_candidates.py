"""The candidate curves of the serving-target search, each converted to the workload's request shape.

Measured curves (data/serving_curves.csv), the curves estimated with aiconfigurator-core's kernel
database (the bundled ones, or computed with the scenario's levers), and the first-principles
roofline curve, in the order :mod:`costmodel.serving_target` prefers them: an estimate is used
only where no measured curve meets the target.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

import numpy as np

from . import formulas
from .catalog import GPU, LLM, Catalog, ServingCurvePoint, estimated_curves
from .errors import scenario_problem
from .formulas import serving_curves
from .formulas.shapes import Values
from .schema.workload import Serving, ServingEstimate, ServingLevers

CurveRow = tuple[float, float, float, float]
"""A point of a curve at the workload's request shape: (concurrency [requests], throughput
[output tokens/s/GPU], per-user speed [tokens/s/user], TTFT at the target's statistic [s])."""


BASIS_MEASURED = "measured"


BASIS_DATABASE = "estimated with aiconfigurator-core's kernel database"


BASIS_FIRST_PRINCIPLES = "estimated from first principles"
"""What a serving operating point rests on, in the order sizing prefers them."""


_BATCHES = tuple(int(b) for b in np.unique(np.round(np.geomspace(1, 4096, 193))))
"""Batch sizes the first-principles curve is drawn at: 143 whole batches from 1 to 4,096, at most 4.4 % apart,
so the best one that meets a target is within a few per cent of the closed form's best whole batch. [requests]"""


@dataclass(frozen=True)
class OwnPools:
    """The prefill and decode curves estimated beside an aggregated curve, at the workload's request shape.

    Attributes
    ----------
    prefill_gpu_seconds_per_token
        GPU time per input token in the prefill pool, read at one request per attention rank (the TTFT a
        request sees in an idle pool). [GPU-s/token]
    decode_rows
        The decode curve as :data:`CurveRow` tuples (TTFT 1 s: not modelled).
    ids, points
        The decode curve's catalog points and their ids, by row.
    """

    prefill_gpu_seconds_per_token: float
    decode_rows: tuple[CurveRow, ...]
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
        The aggregated curve as :data:`CurveRow` tuples, by concurrency.
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
    rows: tuple[CurveRow, ...]
    decode_rows: tuple[CurveRow, ...]
    basis: str
    ids: tuple[str, ...] = ()
    points: tuple[ServingCurvePoint, ...] = ()
    pools: OwnPools | None = None


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
    prefill_curve, decode_curve = _phase_names(curve)
    prefill = sorted(phases.get(prefill_curve, []), key=lambda p: p.concurrency)
    decode = sorted(phases.get(decode_curve, []), key=lambda p: p.concurrency)
    if not prefill or not decode or (prefill[0].input_tokens, prefill[0].output_tokens) != (inputs, outputs):
        return None
    first = prefill[0]
    assert first.input_tokens_per_second_per_gpu is not None, "an estimated prefill point states its input rate"
    rows = tuple(_decode_row(p) for p in decode)
    return OwnPools(1.0 / first.input_tokens_per_second_per_gpu, rows, tuple(p.point for p in decode), tuple(decode))


def _phase_names(curve: str) -> tuple[str, str]:
    """The ids of the prefill and decode curves estimated beside an aggregated curve."""
    base = re.sub(r"-ctx\d+", "", curve)  # the phases have no step budget of a mixed step
    return base.replace("-agg-", "-prefill-"), base.replace("-agg-", "-decode-")


def _decode_row(point: ServingCurvePoint) -> CurveRow:
    """A point of an estimated decode curve as a :data:`CurveRow` (TTFT 1 s: not modelled)."""
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
    gpu: str,
    shape: tuple[int, int],
    cost: float,
    wanted: str,
    phases: dict[str, list[ServingCurvePoint]],
    skipped: list[str],
) -> Curve | None:
    """One catalog curve of ``gpu`` (its id) converted to the request ``shape`` (input, output tokens) at the
    prefill ``cost`` [GPU-s/token]; a point whose prefill share exceeds its time is skipped (and named in
    ``skipped``)."""
    inputs, outputs = shape
    replica = points[0].gpus_per_replica
    rows: list[CurveRow] = []
    decode: list[CurveRow] = []
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
        f"{name}: {first.engine}, {first.parallelism} on {replica} x {gpu}, {how} "
        + (f"{first.source.split(' estimate:')[0]} at " if first.estimated else "")
        + f"{first.input_tokens:,}/{first.output_tokens:,} input/output tokens{converted}"
    )
    own = _pool_curves(name, phases, inputs, outputs) if first.estimated else None
    if own is not None:
        label += "; the disaggregated pools from its own estimated prefill and decode curves"
    basis = BASIS_DATABASE if first.estimated else BASIS_MEASURED
    return Curve(replica, label, tuple(rows), tuple(decode), basis, tuple(p.point for p in kept), tuple(kept), own)


CONVERTED_CURVES = 256
"""Most converted curves kept in one process (the least recently used dropped first): the scenarios of a batch
that serve one model on one GPU at one request shape convert the same catalog curves."""


@functools.lru_cache(maxsize=CONVERTED_CURVES, typed=True)
def _converted_kept(
    name: str,
    points: tuple[ServingCurvePoint, ...],
    gpu: str,
    inputs: int,
    outputs: int,
    cost: float,
    wanted: str,
    phases: tuple[tuple[str, tuple[ServingCurvePoint, ...]], ...],
) -> tuple[Curve | None, tuple[str, ...]]:
    """:func:`_converted_curve` and the points it skipped, kept by value: the catalog rows themselves (frozen,
    compared field by field) are the key, so a catalog with other figures for a curve converts it afresh; ``gpu``
    is the GPU's id, all the conversion reads of its row."""
    skipped: list[str] = []
    own = {curve: list(rows) for curve, rows in phases}
    return _converted_curve(name, list(points), gpu, (inputs, outputs), cost, wanted, own, skipped), tuple(skipped)


def _own_phases(
    curve: str, phases: dict[str, list[ServingCurvePoint]]
) -> tuple[tuple[str, tuple[ServingCurvePoint, ...]], ...]:
    """The prefill and decode curves :func:`_pool_curves` may read beside an aggregated ``curve``, as a key."""
    return tuple((name, tuple(phases[name])) for name in _phase_names(curve) if name in phases)


def _first_principles_curve(
    serving: Serving, model: LLM, gpu: GPU, peak: float, replica: int, shape: tuple[int, int], wanted: str
) -> Curve:
    """The roofline curve of :func:`costmodel.formulas.serving_curves.roofline_curve` on a replica of
    ``replica`` GPUs, at every batch of :data:`_BATCHES` whose KV cache fits beside the weights."""
    e = estimate_inputs(serving)
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


def candidate_curves(
    serving: Serving, catalog: Catalog, gpu: GPU, model: LLM, peak: float, minimum: int, cost: float
) -> tuple[list[list[Curve]], list[str]]:
    """The candidate curves in tiers (measured, estimated with the kernel database, first principles), and the
    curves and points skipped with why.

    Parameters
    ----------
    serving
        The serving block, with a target, a request shape and estimate inputs.
    catalog
        The catalog whose measured curves are read.
    gpu, model
        The catalog rows of the GPU and the served model.
    peak
        The GPU's dense peak at the serving precision's compute precision. [TFLOP/s]
    minimum
        The fewest GPUs whose memory holds weights and KV cache; a curve on fewer is skipped. [GPU]
    cost
        GPU time to prefill one input token at the estimate's prefill efficiency. [GPU-s/token]
    """
    assert serving.target is not None and serving.request is not None, "a target comes with a request shape"
    wanted = serving.target.ttft_statistic
    shape = (serving.request.input_tokens, serving.request.output_tokens)
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
            curve, dropped = _converted_kept(
                name, tuple(points), gpu.gpu, *shape, cost, wanted, _own_phases(name, phases)
            )
            skipped += dropped
            if curve is not None:
                tier.append(curve)
        tiers.append(tier)
    if levers is None:  # the first-principles curve has no levers: it is no fallback for curves that have
        tiers.append([_first_principles_curve(serving, model, gpu, peak, minimum, shape, wanted)])
    return tiers, skipped


def _number(value: Values) -> float:
    """The float of a formula's result for scalar inputs (a type checker sees ``float | ndarray | Series``)."""
    return float(np.asarray(value, dtype=float))


def estimate_inputs(serving: Serving) -> ServingEstimate:
    """The serving block's estimate inputs, which a latency target requires (the schema checks it)."""
    assert serving.estimate is not None, "a latency target comes with estimate inputs"
    return serving.estimate


__all__ = [
    "BASIS_DATABASE",
    "BASIS_FIRST_PRINCIPLES",
    "BASIS_MEASURED",
    "Curve",
    "OwnPools",
    "CurveRow",
    "candidate_curves",
    "estimate_inputs",
]

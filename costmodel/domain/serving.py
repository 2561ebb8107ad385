"""A served model's fleet at a volume: the operating point, replicas, servers, pools and spares.

The latency target, the operating point and the pools' shares are resolved once
(:func:`costmodel.resolve`); here they meet a volume: each option's GPUs (from
:mod:`~costmodel.domain.capacity`) become whole replicas, whole servers, the spare replicas
and, with disaggregated serving, a prefill and a decode pool, each of at least one replica,
split in the ratio of their GPU-time per output token.
"""

from __future__ import annotations

import math

import numpy as np

from .. import formulas
from ..resolved import Resolved
from ..results import ServingFleet, ServingPoint, ServingResult
from ..serving_target import OperatingPoint
from .capacity import gpu_count, gpus_needed


def _point(p: OperatingPoint | None) -> ServingPoint | None:
    if p is None:
        return None
    return ServingPoint(
        float(p.concurrency),
        float(p.throughput_per_gpu),
        float(p.tokens_per_second_per_user),
        float(p.ttft),
        p.source,
        p.estimated,
        p.basis,
    )


def serving_fleet(r: Resolved, option: str, volume: float) -> ServingFleet:
    """One option's serving fleet at a volume (own or rent).

    Parameters
    ----------
    r
        A resolved scenario with a served model.
    option
        ``own`` or ``rent``.
    volume
        [tokens/day]

    Notes
    -----
    replicas = GPUs / GPUs per replica; servers = ⌈GPUs / 8⌉; working replicas = replicas − spares.
    Disaggregated: prefill replicas = max(1, ⌈GPUs needed × prefill share / replica⌉), at most
    working − 1; the decode pool takes the rest.
    """
    capacity = r.workload.capacity
    plan = capacity.plan if capacity is not None else None
    assert plan is not None, "a served model's fleet is planned when the scenario is resolved"
    replica = r.workload.gpus_per_replica
    gpus = int(gpu_count(r, option, volume))
    replicas = gpus // replica
    working = replicas - plan.spare_replicas
    prefill = decode = None
    if plan.mode == "disaggregated":
        needed = float(gpus_needed(r, volume)) * plan.prefill_share
        prefill = min(max(1, math.ceil(needed / replica - 1e-9)), max(working - 1, 1))
        decode = max(working - prefill, 0)
    return ServingFleet(
        option=option,
        gpus=gpus,
        replicas=replicas,
        servers=math.ceil(gpus / plan.gpus_per_server),
        spare_replicas=plan.spare_replicas,
        prefill_replicas=prefill,
        decode_replicas=decode,
    )


def serving_result(r: Resolved, volume: float) -> ServingResult | None:
    """The latency target, operating point, replica and fleets of a served model; None for other workloads."""
    capacity = r.workload.capacity
    if capacity is None or capacity.plan is None:
        return None
    plan = capacity.plan
    target = None
    if plan.target is not None:
        t = plan.target
        target = {
            "ttft_seconds": t.ttft_seconds if t.ttft_seconds is not None else "no bound",
            "ttft_statistic": t.ttft_statistic,
            "tokens_per_second_per_user": (
                t.min_tokens_per_second if t.min_tokens_per_second is not None else "no bound"
            ),
            "source": t.source,
        }
    fleets = {name: serving_fleet(r, name, volume) for name, o in r.options.items() if o.kind in ("own", "rent")}
    return ServingResult(
        target=target,
        mode=plan.mode,
        mode_reason=plan.mode_reason,
        point=_point(plan.point),
        decode_point=_point(plan.decode_point),
        throughput_per_gpu=float(np.mean(capacity.output_tokens_per_second_per_gpu)),
        throughput_source=capacity.source,
        prefill_share=plan.prefill_share,
        gpus_per_replica=r.workload.gpus_per_replica,
        servers_per_replica=plan.servers_per_replica,
        gpus_per_server=plan.gpus_per_server,
        weights_gb_per_gpu=plan.weights_gb_per_gpu,
        kv_cache_gb_per_gpu=plan.kv_cache_gb_per_gpu,
        memory_gb_per_gpu=plan.memory_gb_per_gpu,
        spare_replicas=plan.spare_replicas,
        availability=plan.availability,
        input_tokens=plan.input_tokens,
        output_tokens=plan.output_tokens,
        fleets=fleets,
        curve=plan.curve,
        curve_label=plan.curve_label,
        decode_curve=plan.decode_curve,
    )


def output_tokens_per_month(r: Resolved, volume):
    """Output tokens per month at a volume of a tokens workload. [output tokens/month]"""
    return formulas.tokens_per_month(volume) * r.workload.output_share


def output_cost_against_speed(r: Resolved, speeds, volume: float | None = None) -> dict[str, list]:
    """Cost per million output tokens of each option as the per-user speed target moves.

    Each speed replaces the target's per-user speed (the TTFT bound is kept) and the scenario is
    resolved again, so the operating point, the pools and the GPU counts follow; the hosted API's
    price does not depend on it.

    Parameters
    ----------
    r
        A resolved scenario whose served model has a latency target.
    speeds
        Per-user speeds to try. [tokens/s/user]
    volume
        [tokens/day]; default the scenario's.

    Returns
    -------
    dict
        Option → list of (speed [tokens/s/user], cost per M output tokens [reporting currency] or
        None where no curve meets that speed).
    """
    from ..errors import ScenarioError
    from ..resolved import resolve
    from ..schema import Scenario
    from .costs import monthly_cost_components

    v = r.volume if volume is None else volume
    millions = float(output_tokens_per_month(r, v)) / 1e6
    data = r.scenario.model_dump(mode="python", exclude_none=True)
    out: dict[str, list] = {name: [] for name in r.options}
    for speed in np.asarray(speeds, dtype=float):
        target = dict(data["workload"]["serving"]["target"])
        target.pop("tpot_ms", None)
        target["tokens_per_second_per_user"] = float(speed)
        data["workload"]["serving"]["target"] = target
        context = {"catalog": r.catalog, "demand_folder": r.scenario.demand_folder}
        try:
            moved = resolve(Scenario.model_validate(data, context=context), r.catalog)
        except ScenarioError:
            moved = None
        for name in r.options:
            source = r if r.options[name].kind == "api" else moved  # the API's price does not move
            value = None
            if source is not None and millions > 0:
                value = float(sum(monthly_cost_components(source, name, v).values())) / millions
            out[name].append((float(speed), value))
    return out

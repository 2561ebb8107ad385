"""Routing across models, and the cost per successful task.

A scenario's ``routing`` block splits the requests into classes, each served by one of its options
(:mod:`costmodel.schema.routing`). With ``R`` requests a day and class ``i`` taking the share
``s_i`` of them at ``a_i`` input and ``b_i`` output tokens, the workload's tokens a day ``T`` are
the traffic of every class, so

    R = T / sum_i s_i (a_i + b_i),        T_i = T · s_i (a_i + b_i) / sum_j s_j (a_j + b_j).

The classes an option serves are costed together, on that option's own cost functions
(:func:`costmodel.domain.costs.monthly_cost`) at their summed tokens and their blended mix
``sum s_i a_i / sum s_i b_i``, with its capacity sized for those tokens alone (whole GPUs, whole
servers); each class carries the option's cost in proportion to its tokens. The blended cost is the
sum over the options used; the saving is the baseline option's cost serving every request (at the
workload's volume and mix, as the scenario's comparison costs it) less the blend.

Cost per successful task: a task is one request; with ``N`` requests a month and success rate
``p`` the successful tasks are ``N · p``, and the cost per successful task is ``C / (N · p)``,
which is the cost per task over the success rate. For the blend the successful tasks add up
over the classes: ``C_routed / sum_i N s_i p_i``.

References
----------
.. [1] Ong, I. et al. (2024), "RouteLLM: Learning to Route LLMs with Preference Data",
   arXiv:2406.18665 (cost of a router sending a share of queries to a cheaper model).
.. [2] Chen, L., Zaharia, M. and Zou, J. (2023), "FrugalGPT: How to Use Large Language Models While
   Reducing Cost and Improving Performance", arXiv:2305.05176 (cost per query against accuracy of an
   LLM cascade).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..resolved import Resolved, as_resolved, resolve
from ..results import RoutedClass, RoutingResult
from ..schema import Scenario, TokensWorkload
from ..schema.inputs import CATALOG_INPUTS, THROUGHPUT_INPUT
from ..schema.routing import Routing, RoutingClass
from ..units import DAYS_PER_MONTH
from .capacity import gpu_count
from .costs import monthly_cost

ROUTED = "routed"
"""Candidate id of the routed blend in the decision."""

TASKS_PER_FIGURE = 1000
"""The decision ranks the cost of this many successful tasks, so that figures of a fraction of a cent read. [tasks]"""


def _routing(r: Resolved) -> Routing:
    routing = r.scenario.routing
    if routing is None:
        raise ValueError("the scenario has no routing block")
    return routing


def _weights(routing: Routing) -> list[float]:
    """Each class's tokens per request times its share, s_i (a_i + b_i). [tokens/request]"""
    return [c.share_of_requests * (c.input_tokens_per_request + c.output_tokens_per_request) for c in routing.classes]


def served_by(r: Resolved, option: str, classes: list[RoutingClass]) -> Resolved:
    """The scenario as the option sees it: the given classes' tokens at their blended mix and request size.

    Parameters
    ----------
    r
        The resolved scenario with its routing block (sampled inputs are kept).
    option
        The option key serving the classes.
    classes
        The classes it serves (one at least).

    Returns
    -------
    Resolved
        The scenario with the workload's volume the classes' tokens a day, its input:output mix
        theirs and its input tokens per request their mean.
    """
    routing = _routing(r)
    weights = dict(zip((c.name for c in routing.classes), _weights(routing), strict=True))
    fraction = sum(weights[c.name] for c in classes) / sum(weights.values())
    inputs = sum(c.share_of_requests * c.input_tokens_per_request for c in classes)
    outputs = sum(c.share_of_requests * c.output_tokens_per_request for c in classes)
    requests = sum(c.share_of_requests for c in classes)
    work = r.scenario.workload
    assert isinstance(work, TokensWorkload), "routing takes a tokens workload (schema rule routing_monthly_only)"
    update: dict[str, Any] = {
        "input_tokens_per_output_token": inputs / outputs,
        "input_tokens_per_request": max(1, round(inputs / requests)),
    }
    if work.serving is not None and work.serving.request is not None:
        shape = work.serving.request.model_copy(
            update={
                "input_tokens": max(1, round(inputs / requests)),
                "output_tokens": max(1, round(outputs / requests)),
            }
        )
        update["serving"] = work.serving.model_copy(update={"request": shape})
    scenario = r.scenario.model_copy(update={"workload": work.model_copy(update=update), "routing": None})
    # the scenario already holds the sampled values of its own fields; the catalog's figures are applied on resolving
    values = {k: v for k, v in r.values.items() if k in CATALOG_INPUTS or k == THROUGHPUT_INPUT}
    return resolve(scenario, r.catalog, values).at_volume(r.volume * fraction)


def option_groups(routing: Routing) -> dict[str, list[RoutingClass]]:
    """The classes by the option that serves them, in the order the options first appear."""
    groups: dict[str, list[RoutingClass]] = {}
    for chosen in routing.classes:
        groups.setdefault(chosen.option, []).append(chosen)
    return groups


def routed_costs(scenario: Scenario | Resolved) -> dict[str, Any]:
    """Each class's monthly cost on its option: the option costed once on all its classes, split by tokens.

    Broadcasts over sampled inputs. [currency/month]

    Returns
    -------
    dict of str to float or numpy.ndarray
        Class name → its monthly cost, in the scenario's order.
    """
    r = as_resolved(scenario)
    routing = _routing(r)
    weights = dict(zip((c.name for c in routing.classes), _weights(routing), strict=True))
    found: dict[str, Any] = {}
    for option, classes in option_groups(routing).items():
        group = served_by(r, option, classes)
        cost = monthly_cost(group, option, group.volume)
        total = sum(weights[c.name] for c in classes)
        for chosen in classes:
            found[chosen.name] = cost * (weights[chosen.name] / total) if len(classes) > 1 else cost
    return {c.name: found[c.name] for c in routing.classes}


def success_rate(r: Resolved, option: str, chosen: RoutingClass | None = None) -> float | None:
    """The success rate of a class (its own, else its option's) or of an option. [-]"""
    if chosen is not None and chosen.success_rate is not None:
        return chosen.success_rate
    inputs = r.scenario.option_inputs(option)
    return None if inputs is None else inputs.success_rate


def routing_notes(scenario: Scenario | Resolved) -> tuple[str, ...]:
    """What the cost per successful task assumes of an option serving every request: its one success rate for
    every class, the hard ones too (a class's own rate prices only the routed blend)."""
    r = as_resolved(scenario)
    routing = r.scenario.routing
    if routing is None or r.scenario.decision_measure != "cost_per_successful_task" or len(routing.classes) < 2:
        return ()
    rates = {o: success_rate(r, o) for o in r.options}
    said = ", ".join(f"{o} {100 * rate:.1f} %" for o, rate in rates.items() if rate is not None)
    return (
        f"routing: each option serving every request is priced at its one success rate for every class ({said}), "
        "the classes it would not be routed to included; where an option does worse on those (a small model on "
        "the hard requests), its cost per successful task here is too low",
    )


def tasks_per_month(scenario: Scenario | Resolved) -> Any:
    """Requests a month at the scenario's volume: tokens a month / tokens per request. [tasks/month]

    The tokens of a request are the routing classes' mean, else ``workload.input_tokens_per_request``
    (or the serving request shape's input tokens) times 1 + 1 / (input tokens per output token).

    Raises
    ------
    ValueError
        The scenario states no size of a request.
    """
    r = as_resolved(scenario)
    work = r.scenario.workload
    if not isinstance(work, TokensWorkload):
        raise ValueError("tasks are requests of a tokens workload")
    if r.scenario.routing is not None:
        per_task: Any = r.scenario.routing.tokens_per_request()
    else:
        size = work.input_tokens_per_request
        if size is None and work.serving is not None and work.serving.request is not None:
            size = work.serving.request.input_tokens
        if size is None:
            raise ValueError("a task is one request: the scenario states no request size (schema rule no_task_size)")
        per_task = size * (1.0 + 1.0 / np.asarray(r.workload.input_tokens_per_output_token, dtype=float))
    return np.asarray(r.volume, dtype=float) * DAYS_PER_MONTH / per_task


def per_successful_task(r: Resolved, figures: Mapping[str, Any]) -> dict[str, Any]:
    """Each candidate's cost of 1,000 successful tasks, 1000 · C / (N · p). [currency/1,000 successful tasks]

    ``figures``: each candidate's monthly cost C. [currency/month]

    Raises
    ------
    ValueError
        An option has no success rate.
    """
    tasks = tasks_per_month(r)
    found = {}
    for candidate, cost in figures.items():
        option = candidate.split(".", 1)[0] if candidate.startswith("rent.") else candidate
        rate = success_rate(r, option)
        if rate is None:
            raise ValueError(f"{option}: no success_rate, which the cost per successful task needs")
        found[candidate] = TASKS_PER_FIGURE * np.asarray(cost, dtype=float) / (tasks * rate)
    return found


def routed_successful_tasks(r: Resolved) -> Any:
    """Successful tasks a month of the routed blend, sum_i N s_i p_i; None where a class has no rate. [tasks/month]"""
    routing = _routing(r)
    rates = [success_rate(r, c.option, c) for c in routing.classes]
    if any(rate is None for rate in rates):
        return None
    tasks = tasks_per_month(r)
    return sum(tasks * c.share_of_requests * rate for c, rate in zip(routing.classes, rates, strict=True))


def routed_label(r: Resolved) -> str:
    """The blend named: each class, its share of requests and its option."""
    parts = [f"{c.name} {100 * c.share_of_requests:.4g} % → {r.label(c.option)}" for c in _routing(r).classes]
    return f"Routed: {'; '.join(parts)}"


def routing_result(scenario: Scenario | Resolved) -> RoutingResult | None:
    """Each class on its option, the blend, and the saving against the baseline serving every request.

    Returns
    -------
    RoutingResult or None
        None without a routing block.
    """
    r = as_resolved(scenario)
    routing = r.scenario.routing
    if routing is None:
        return None
    weights = _weights(routing)
    total_weight = sum(weights)
    volume = float(np.mean(r.volume))
    requests = volume / routing.tokens_per_request()
    costs = {k: float(np.mean(v)) for k, v in routed_costs(r).items()}
    groups = option_groups(routing)
    gpus: dict[str, int | None] = {}
    for option, classes in groups.items():
        if r.option(option).kind == "api":
            gpus[option] = None
        else:
            group = served_by(r, option, classes)
            gpus[option] = int(np.max(gpu_count(group, option, group.volume)))
    classes = []
    for chosen, weight in zip(routing.classes, weights, strict=True):
        tokens = volume * weight / total_weight
        rate = success_rate(r, chosen.option, chosen)
        source = chosen.success_rate_source if chosen.success_rate is not None else None
        if source is None and rate is not None:
            source = r.scenario.option_inputs(chosen.option).success_rate_source
        classes.append(
            RoutedClass(
                name=chosen.name,
                option=chosen.option,
                label=r.label(chosen.option),
                share_of_requests=chosen.share_of_requests,
                requests_per_day=requests * chosen.share_of_requests,
                tokens_per_day=tokens,
                monthly_cost=costs[chosen.name],
                cost_per_million_tokens=costs[chosen.name] / (tokens * DAYS_PER_MONTH / 1e6) if tokens > 0 else None,
                gpus=gpus[chosen.option],
                success_rate=rate,
                success_rate_source=source,
            )
        )
    blended = sum(costs.values())
    baseline = float(np.mean(monthly_cost(r, routing.baseline, r.volume)))
    successful = routed_successful_tasks(r)
    base_rate = success_rate(r, routing.baseline)
    tasks = float(np.mean(tasks_per_month(r)))
    return RoutingResult(
        classes=tuple(classes),
        requests_per_day=requests,
        tokens_per_day=volume,
        monthly_cost=blended,
        cost_per_million_tokens=blended / (volume * DAYS_PER_MONTH / 1e6) if volume > 0 else None,
        baseline=routing.baseline,
        baseline_label=r.label(routing.baseline),
        baseline_cost=baseline,
        saving=baseline - blended,
        saving_share=(baseline - blended) / baseline if baseline > 0 else None,
        cost_per_successful_task=blended / float(np.mean(successful)) if successful is not None and tasks > 0 else None,
        baseline_cost_per_successful_task=baseline / (tasks * base_rate)
        if base_rate is not None and tasks > 0
        else None,
    )


__all__ = [
    "ROUTED",
    "TASKS_PER_FIGURE",
    "option_groups",
    "per_successful_task",
    "routed_costs",
    "routed_label",
    "routed_successful_tasks",
    "routing_notes",
    "routing_result",
    "served_by",
    "success_rate",
    "tasks_per_month",
]

"""Two scenarios compared: which inputs differ and how much each moved the answer.

The measures are each option's monthly cost at the scenario's volume and, with a finance
block and an own option, each option's TCO and NPV over the horizon. Each numeric input that
differs is a player: one-at-a-time, its effect is the change when only it takes B's value in
A; its Shapley value [1] is the average, over all orders of applying the changes one by one,
of the change it makes when applied, so the Shapley values of all inputs add up exactly to
the change from A to A-with-all-of-B's-numbers. What is left (B minus that) is put on the
other differences (ids, kinds, blocks on one side only), listed by field.

Up to :data:`EXACT_UP_TO` inputs, every subset is evaluated (2^k evaluations); above that,
:data:`SAMPLED_ORDERS` random orders (seeded) are averaged, which still sums to the total.

References
----------
.. [1] Shapley, L. S. (1953), "A value for n-person games", in Contributions to the Theory of
   Games II, Annals of Mathematics Studies 28: 307-317.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import numpy as np

from ..resolved import Resolved, as_resolved, resolve
from ..results import InputDifference, ScenarioDiff
from ..schema import Scenario
from ..schema.inputs import input_fields
from .costs import monthly_cost
from .finance import own_finance
from .uncertainty import numeric_inputs

EXACT_UP_TO = 10
"""Largest number of differing inputs whose Shapley values are computed over every order."""

SAMPLED_ORDERS = 200
"""Orders averaged above that."""

_SKIPPED = ("uncertainty", "claims", "title", "description")


def measures(scenario: Scenario | Resolved) -> dict[str, float]:
    """Monthly cost of each option at the scenario's volume, and TCO and NPV with a finance block."""
    r = as_resolved(scenario)
    found = {f"monthly_cost.{o}": float(monthly_cost(r, o, r.volume)) for o in r.options}
    if r.finance is not None and "own" in r.options:
        money = own_finance(r)
        found.update({f"tco.{o}": float(v) for o, v in money.tco_by_option.items()})
        found.update({f"npv.{o}": float(v) for o, v in money.npv_by_option.items()})
    return found


def _leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if not prefix and key in _SKIPPED:
                continue
            out.update(_leaves(value, f"{prefix}{key}."))
        return out
    if isinstance(data, list) and any(isinstance(v, dict | list) for v in data):
        out = {}
        for i, value in enumerate(data):
            out.update(_leaves(value, f"{prefix}{i}."))
        return out
    return {prefix[:-1]: data}


def _plain(value: float) -> float | int:
    return int(value) if float(value).is_integer() else float(value)


def diff(a: Scenario | Resolved, b: Scenario | Resolved, name_a: str = "A", name_b: str = "B") -> ScenarioDiff:
    """Scenario B against A, input by input.

    Raises
    ------
    ValueError
        The two report in different currencies, or hold different options.
    """
    ra, rb = as_resolved(a), as_resolved(b)
    if ra.currency != rb.currency:
        raise ValueError(
            f"{name_a} reports in {ra.currency}, {name_b} in {rb.currency}; give both the same reporting_currency"
        )
    if list(ra.options) != list(rb.options):
        raise ValueError(
            f"{name_a} holds the options {', '.join(ra.options)}; {name_b} holds {', '.join(rb.options)}; "
            "diff compares two scenarios with the same options"
        )
    values_a, values_b = numeric_inputs(ra), numeric_inputs(rb)
    fields_a = {f.path: f for f in input_fields(ra.scenario, ra.catalog)}
    fields_b = {f.path: f for f in input_fields(rb.scenario, rb.catalog)}
    players = [
        p for p in values_a if p in values_b and not math.isclose(values_a[p], values_b[p], rel_tol=1e-12, abs_tol=0.0)
    ]
    tied = []  # a number that only means something with B's other differences (a web-search count with
    for p in players:  # B's offer that prices searches): it moves with them, not as a player of its own
        try:
            resolve(ra, values={p: _plain(values_b[p])})
        except (ValueError, KeyError):  # ScenarioError is a ValueError
            tied.append(p)
    players = [p for p in players if p not in tied]
    leaves_a = _leaves(ra.scenario.model_dump(mode="json", exclude_none=True))
    leaves_b = _leaves(rb.scenario.model_dump(mode="json", exclude_none=True))
    other = tuple(
        (f, leaves_a.get(f), leaves_b.get(f))
        for f in sorted(set(leaves_a) | set(leaves_b))
        if f not in players
        and leaves_a.get(f) != leaves_b.get(f)
        and (f in tied or not (f in values_a and f in values_b))
    )

    cache: dict[frozenset, dict[str, float]] = {}

    def value(subset: frozenset) -> dict[str, float]:
        if subset not in cache:
            changed = {p: _plain(values_b[p]) for p in subset}
            cache[subset] = measures(resolve(ra, values=changed) if changed else ra)
        return cache[subset]

    base, everything, end = value(frozenset()), value(frozenset(players)), measures(rb)
    names = list(base)
    k = len(players)
    shapley = {p: dict.fromkeys(names, 0.0) for p in players}
    if k <= EXACT_UP_TO:
        method = "exact"
        for p in players:
            rest = [q for q in players if q != p]
            for size in range(k):
                weight = math.factorial(size) * math.factorial(k - size - 1) / math.factorial(k)
                for subset in combinations(rest, size):
                    s = frozenset(subset)
                    with_p, without = value(s | {p}), value(s)
                    for m in names:
                        shapley[p][m] += weight * (with_p[m] - without[m])
    else:
        method = f"sampled {SAMPLED_ORDERS} orders"
        rng = np.random.default_rng(0)
        for _ in range(SAMPLED_ORDERS):
            applied: frozenset = frozenset()
            for index in rng.permutation(k):
                p = players[index]
                before, after = value(applied), value(applied | {p})
                for m in names:
                    shapley[p][m] += (after[m] - before[m]) / SAMPLED_ORDERS
                applied = applied | {p}
    inputs = []
    for p in players:
        found = fields_a.get(p) or fields_b.get(p)
        alone = value(frozenset({p}))
        inputs.append(
            InputDifference(
                p,
                found.title if found else p,
                found.unit if found else "-",
                values_a[p],
                values_b[p],
                fields_a[p].source if p in fields_a else "",
                fields_b[p].source if p in fields_b else "",
                {m: alone[m] - base[m] for m in names},
                shapley[p],
            )
        )
    inputs.sort(key=lambda d: -max(abs(v) for v in d.shapley.values()))
    units = {m: f"{ra.currency}/month" if m.startswith("monthly_cost") else ra.currency for m in names}
    return ScenarioDiff(
        name_a,
        name_b,
        ra.currency,
        {m: (base[m], end[m]) for m in names if m in end},
        units,
        tuple(inputs),
        other,
        {m: end[m] - everything[m] for m in names if m in end},
        method,
    )

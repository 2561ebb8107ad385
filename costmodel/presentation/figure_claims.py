"""Claims on any figure of the output: a path into ``costmodel compare --json``, alone or relative.

A ``figure`` claim (:class:`costmodel.schema.claims.Claim`) names a figure of the output
contract by its path (``energy.options.own.energy_kwh_per_month``), so every figure a source
states can be checked: energy, CO2, a cost component, payback, cost per request, a serving
point. With ``relative_to`` (a second path of the same document) or ``baseline`` (the same
path in another scenario) the stated value is a ratio, a saving or a share saved between the
two. The stated value is converted to the output's unit (energy, mass, token and currency
prefixes), compared within the claim's tolerance, and for a contradicted claim the single
inputs that would make it hold are searched: each numeric input is first moved by 1 % to see
whether and how fast the figure follows, then the most promising are bracketed on a geometric
scan out to 1000 times (or 1/1000 of) their value and refined by bisection, each evaluation
being the output document of the changed scenario.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..domain.claims import MAX_CHANGES, input_change, searched_inputs
from ..domain.uncertainty import with_values
from ..errors import ScenarioError
from ..formulas.roots import bisect_root
from ..resolved import Resolved
from ..results import ClaimCheck, Comparison, InputChange
from ..schema import Claim

SCREEN_STEP = 1.01
"""Factor each input is moved by to see whether the claim's figure follows it."""

SCAN_POINTS = 17
"""Values read from the current value out to the end of the searched range before bisecting."""

_FAMILIES = (
    {
        "Wh": 1.0,
        "kWh": 1e3,
        "MWh": 1e6,
        "GWh": 1e9,
        "TWh": 1e12,
        "J": 1 / 3600,
        "kJ": 1 / 3.6,
        "MJ": 1e3 / 3.6,
        "GJ": 1e6 / 3.6,
    },
    {"g CO2e": 1e-3, "kg CO2e": 1.0, "t CO2e": 1e3, "kt CO2e": 1e6, "Mt CO2e": 1e9},
    {"W": 1.0, "kW": 1e3, "MW": 1e6, "GW": 1e9},
    {"tokens": 1.0, "k tokens": 1e3, "M tokens": 1e6, "B tokens": 1e9, "T tokens": 1e12},
    {"GPU-h": 1.0, "k GPU-h": 1e3, "M GPU-h": 1e6},
    {"min": 1 / 60, "h": 1.0, "d": 24.0},
    {"month": 1.0, "months": 1.0, "year": 12.0, "years": 12.0},
    {"FLOP": 1.0, "PFLOP": 1e15, "EFLOP": 1e18, "ZFLOP": 1e21},
    {"-": 1.0, "%": 0.01},
)


_MONEY = re.compile(r"^(?:(k|M|B) )?([A-Z]{3})$")
_MONEY_PREFIX = {None: 1.0, "k": 1e3, "M": 1e6, "B": 1e9}


def _scale(part: str, other: str, currency_rate) -> float | None:
    """Factor turning an amount in unit ``part`` into unit ``other`` (one term of a unit), or None."""
    if part == other:
        return 1.0
    a, b = _MONEY.match(part), _MONEY.match(other)
    if a and b:  # currencies, with k / M / B prefixes: "M USD" to "EUR"
        rate = 1.0 if a.group(2) == b.group(2) else currency_rate(a.group(2), b.group(2))
        return rate * _MONEY_PREFIX[a.group(1)] / _MONEY_PREFIX[b.group(1)]
    for family in _FAMILIES:
        if part in family and other in family:
            return family[part] / family[other]
    return None


def convert(value: float, unit: str, to: str, currency_rate: Callable[[str, str], float]) -> float:
    """``value`` in ``unit`` expressed in ``to``: the same unit with other prefixes, currencies or times.

    A unit is a numerator and optional denominators joined by ``/`` (``USD/month``,
    ``kg CO2e/M tokens``); each term converts within its family (energy, CO2e mass, power,
    tokens, GPU-hours, time, FLOP, shares) or between currencies at the scenario's rates.

    Raises
    ------
    ValueError
        The units are not of the same kind.
    """
    a, b = unit.split("/"), to.split("/")
    if len(a) != len(b):
        raise ValueError(f"{unit} is not a unit of the same kind as {to}")
    factor = 1.0
    for index, (x, y) in enumerate(zip(a, b, strict=True)):
        found = _scale(x.strip(), y.strip(), currency_rate)
        if found is None:
            raise ValueError(f"{unit} is not a unit of the same kind as {to}")
        factor = factor * found if index == 0 else factor / found
    return value * factor


def lookup(document: dict, path: str) -> tuple[float | None, str, str | None]:
    """The figure at ``path`` of an output document: (value, unit, status).

    Raises
    ------
    KeyError
        No figure at the path (the message names the keys there are).
    """
    node: Any = document
    walked = []
    unit_of_series = None
    for step in path.split("."):
        if isinstance(node, dict) and "values" in node and "unit" in node and step == "values":
            unit_of_series = node["unit"]  # an item of a series {values, unit} is in the series' unit
        if isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        elif isinstance(node, dict) and step in node:
            node = node[step]
        else:
            there = (
                sorted(node)
                if isinstance(node, dict)
                else f"items 0 to {len(node) - 1}"
                if isinstance(node, list)
                else "a value"
            )
            where = ".".join(walked) or "the top level"
            raise KeyError(
                f"no {step!r} at {where} of the output "
                f"(there: {', '.join(there) if isinstance(there, list) else there})"
            )
        walked.append(step)
    if isinstance(node, dict) and "value" in node and "unit" in node:
        value = node["value"]
        return (None if value is None else float(value)), node["unit"], node.get("status")
    if isinstance(node, int | float) and not isinstance(node, bool):
        return float(node), unit_of_series or "-", None
    raise KeyError(f"{path} is not a figure of the output (a value with its unit)")


def _source(r: Resolved) -> str | None:
    from ..scenarios import source_path

    return source_path(r.scenario)


Document = Callable[[Resolved], dict]
"""The output document (``compare --json``'s data) of a resolved scenario, claims unchecked."""


def _baseline(r: Resolved, baseline: str, index: int, document: Document) -> dict:
    """The output document of the baseline scenario ``baseline`` (a path beside the scenario's file, or a name)."""
    from ..resolved import resolve
    from ..scenarios import load_scenario, scenario_path, source_path

    here = source_path(r.scenario)
    candidate = Path(here).parent / baseline if here is not None else Path(baseline)
    try:
        target = candidate if candidate.exists() else scenario_path(baseline)
        return document(resolve(load_scenario(target, r.catalog)))
    except ScenarioError as exc:
        reasons = "; ".join(f"{field}: {reason}" for field, _, reason in exc.problems)
        raise ScenarioError(
            here, [(f"claims.{index}.baseline", baseline, f"the baseline scenario is not valid ({reasons})")]
        ) from None
    except OSError as exc:
        raise ScenarioError(
            here,
            [
                (
                    f"claims.{index}.baseline",
                    baseline,
                    f"the baseline scenario cannot be read ({exc.strerror or exc})",
                )
            ],
        ) from None


class _Figure:
    """One figure claim's computed figure and gap, as a function of the output document."""

    def __init__(self, r: Resolved, claim: Claim, index: int, document_of: Document):
        self.claim, self.index, self.where = claim, index, _source(r)
        self.document_of = document_of
        # the schema requires a figure claim's path and stated value
        assert claim.figure is not None and claim.value is not None, "a figure claim states a figure and its value"
        self.figure, stated = claim.figure, claim.value
        document = document_of(r)
        value, self.unit, self.status = self._read(document, self.figure, "figure")
        self.other = None
        other_unit = self.unit
        if claim.baseline is not None:
            self.other, other_unit, _ = self._read(
                _baseline(r, claim.baseline, index, document_of), self.figure, "baseline"
            )
        elif claim.relative_to is not None:
            self.other, other_unit, _ = self._read(document, claim.relative_to, "relative_to")
        if claim.relation is not None and other_unit != self.unit:
            field = "baseline" if claim.baseline is not None else "relative_to"
            raise ScenarioError(
                self.where,
                [
                    (
                        f"claims.{index}.{field}",
                        getattr(claim, field),
                        f"the two figures are in different units ({self.unit} here, "
                        f"{other_unit} there): a relation needs one unit (a baseline in "
                        "another reporting currency cannot be related)",
                    )
                ],
            )
        self.result_unit = self.unit if claim.relation in (None, "saving") else "-"
        stated_unit = claim.unit or self.result_unit
        if claim.currency and self.result_unit != "-":
            stated_unit = re.sub(r"^[A-Z]{3}", claim.currency, stated_unit)
        rate = r.scenario.fx_rate

        def currency_rate(a: str, b: str) -> float:
            return rate(a) / (rate(b) if b != r.currency else 1.0)

        try:
            self.stated = convert(float(stated), stated_unit, self.result_unit, currency_rate)
        except (ValueError, KeyError) as exc:
            raise ScenarioError(self.where, [(f"claims.{index}.unit", stated_unit, str(exc).strip("'\""))]) from None
        self.computed = self._relate(value, self.other)

    def _read(self, document: dict, path: str, field: str):
        try:
            return lookup(document, path)
        except KeyError as exc:
            raise ScenarioError(
                self.where,
                [(f"claims.{self.index}.{field}", path, str(exc).strip("'\"") + "; see costmodel compare --json")],
            ) from None

    def _relate(self, value: float | None, other: float | None) -> float | None:
        relation = self.claim.relation
        if value is None:
            return None
        if relation is None:
            return value
        if other is None:
            return None
        if relation == "saving":
            return other - value
        if other == 0:
            return None
        return value / other if relation == "ratio" else 1.0 - value / other

    def gap(self, r: Resolved) -> float:
        """Computed minus stated in a changed scenario (NaN where the figure is not defined)."""
        try:
            document = self.document_of(r)
            value, _, _ = lookup(document, self.figure)
            # a second figure of the same document moves with the input; a baseline's does not
            other = lookup(document, self.claim.relative_to)[0] if self.claim.relative_to is not None else self.other
        except (KeyError, ValueError, TypeError, ScenarioError, ArithmeticError):
            return math.nan
        found = self._relate(value, other)
        return math.nan if found is None else found - self.stated


def _would_hold(r: Resolved, figure: _Figure) -> tuple[InputChange, ...]:
    """The inputs whose change alone would make a computed figure (not None) meet its stated one."""
    assert figure.computed is not None, "only a computed figure can be moved to the stated one"
    base = figure.computed - figure.stated
    screened = []
    for path, current, found, low, high in searched_inputs(r):
        step = current * SCREEN_STEP if current * SCREEN_STEP <= high else current / SCREEN_STEP
        moved = figure.gap(with_values(r, {path: step}))
        if not math.isfinite(moved) or moved == base:
            continue
        # the direction that brings the gap toward 0, and a first guess of how far (log-linear)
        towards_high = (moved - base) * (step - current) * base < 0
        slope = (moved - base) / math.log(step / current)
        guess = abs(base / slope) if slope else math.inf
        screened.append((guess, path, float(current), low, high, towards_high, found))
    screened.sort(key=lambda item: item[0])
    changes = []
    for _, path, current, low, high, towards_high, found in screened[: 2 * MAX_CHANGES]:
        end = high if towards_high else low
        xs = np.geomspace(current, end, SCAN_POINTS)
        previous_x, previous_gap = current, base
        for x in xs[1:]:
            gap = figure.gap(with_values(r, {path: float(x)}))
            if not math.isfinite(gap):
                break
            if gap == 0 or (gap > 0) != (previous_gap > 0):

                def at(value: float, path: str = path) -> float:
                    found_gap = figure.gap(with_values(r, {path: value}))
                    return found_gap if math.isfinite(found_gap) else 0.0

                lo, hi = sorted((float(previous_x), float(x)))
                needed = (
                    float(x)
                    if gap == 0
                    else bisect_root(at, lo, hi, previous_gap if lo == previous_x else gap, rtol=1e-9)
                )
                if _allowed(r, path, needed):
                    changes.append(input_change(path, found, current, needed))
                break
            previous_x, previous_gap = float(x), gap
    changes.sort(key=lambda c: abs(np.log(c.needed / c.current)) if c.needed > 0 else np.inf)
    return tuple(changes[:MAX_CHANGES])


def _allowed(r: Resolved, path: str, value: float) -> bool:
    """Whether the scenario with ``path`` at ``value`` passes the validator's rules (joint ones included: the
    shares of input tokens at most 1, a cached price at most the input's, ...)."""
    from ..schema.values import value_problems

    try:
        return not value_problems(r.scenario, r.catalog, {path: value}, together="alone")
    except (ScenarioError, ValueError, TypeError, KeyError):
        return False


def check_figure_claim(r: Resolved, claim: Claim, index: int, document: Document) -> ClaimCheck:
    """One ``figure`` claim checked against the output document of the scenario (``document(r)``).

    Raises
    ------
    ScenarioError
        The path names no figure of the output, the units are not of one kind, or the
        baseline scenario cannot be read (each naming ``claims.<index>.<field>``).
    """
    figure = _Figure(r, claim, index, document)
    stated, computed = figure.stated, figure.computed
    if computed is None:
        confirmed = False
    elif stated == 0:
        confirmed = computed == 0
    else:
        confirmed = abs(computed / stated - 1.0) <= claim.tolerance
    changes = () if confirmed or computed is None else _would_hold(r, figure)
    return ClaimCheck(
        claim.statement,
        claim.source,
        claim.kind,
        stated,
        computed,
        figure.result_unit,
        claim.tolerance,
        confirmed,
        None,
        None,
        changes,
    )


def check_figure_paths(r: Resolved, document: Document) -> None:
    """Read every ``figure`` claim of the scenario on its output (paths, units, baselines) without searching
    what would make it hold: what ``costmodel validate`` checks.

    Raises
    ------
    ScenarioError
        As :func:`check_figure_claim`.
    """
    for index, claim in enumerate(r.scenario.claims):
        if claim.kind == "figure":
            _Figure(r, claim, index, document)


def with_figure_claims(comparison: Comparison, r: Resolved, document: Document) -> Comparison:
    """The comparison with its scenario's ``figure`` claims checked, every claim in the scenario's order.

    ``document`` builds the output document of a (changed) scenario:
    :func:`costmodel.presentation.output.with_figure_claims` passes the output contract's.

    A comparison made without claims (``check=False``) or already holding them is returned as it is.
    """
    claims = r.scenario.claims
    figures = [i for i, claim in enumerate(claims) if claim.kind == "figure"]
    if not figures or len(comparison.claims) != len(claims) - len(figures):
        return comparison
    others = iter(comparison.claims)
    checked = tuple(
        check_figure_claim(r, claim, i, document) if claim.kind == "figure" else next(others)
        for i, claim in enumerate(claims)
    )
    import dataclasses

    return dataclasses.replace(comparison, claims=checked)


__all__ = ["check_figure_claim", "check_figure_paths", "convert", "lookup", "with_figure_claims"]

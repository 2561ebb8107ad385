"""One rule for input values given outside their field: overrides, sweeps and samples.

A scenario file's own numbers are checked by its schema. An input path can also be given a
value from elsewhere: the ``overrides`` block, a sweep's grid, points or Latin hypercube, an
uncertainty distribution's reach. Those values pass the same rules here: a real number (not a
boolean or text), finite, whole where the field holds a count, inside the field's range, and
the rules that join several fields (a cached price at most the input price, shares that sum to
at most 1, a low below a high, ...) checked on the inputs as they would be resolved.

The joint rules are checked by validating the scenario (and each catalog row whose figures
change) again at the corners of the values' box: every combination of each input's lowest and
highest value. The rules are linear inequalities, which hold over a whole box exactly when they
hold at its corners; above :data:`MAX_CORNERS` corners, every pair of inputs' corners is checked
(each input's ends with the others at theirs as given). A catalog row's figures and the scenario's
own fields meet in no rule, so each row's corners and the scenario's are checked apart.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import ValidationError

from ..catalog import Catalog
from .inputs import CATALOG_INPUTS, THROUGHPUT_INPUT, bounds_of, inputs_by_path, is_number

if TYPE_CHECKING:
    from .scenario import Scenario

MAX_CORNERS = 64
"""Most corners of the values' box validated one by one (six inputs); more inputs: pairs of corners."""

MAX_ROWS = 256
"""Most distinct listed points validated one by one; more: the corners of their box."""


def set_path(data: Any, path: str, value: Any, *, create: bool = False) -> None:
    """Set ``value`` at a dotted path of scenario data (nested mappings and lists), in place.

    Parameters
    ----------
    data
        Scenario data as read from YAML (dicts and lists).
    path
        Dotted path, list positions as numbers: ``options.own.power.pue``, ``claims.0.value``.
    value
        The new value; ``None`` removes the key (its default applies).
    create
        Make missing mappings along the path instead of raising.

    Raises
    ------
    KeyError
        A step of the path that the data does not hold (``create`` false).
    """
    *parents, last = path.split(".")
    node = data
    for part in parents:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and (part in node or create):
            node = node.setdefault(part, {})
        else:
            raise KeyError(path)
    if isinstance(node, list):
        node[int(last)] = value
    elif value is None:
        node.pop(last, None)
    else:
        node[last] = value


def whole(info: Any) -> bool:
    """Whether the field holds a whole number (a count): its type is ``int``."""
    if info is None:
        return False
    annotation = info.annotation
    stack = [annotation]
    while stack:
        current = stack.pop()
        if current is int:
            return True
        stack += list(getattr(current, "__args__", ()) or ())
    return False


def ends_of(allowed: Any) -> tuple[float, float]:
    """The low and high ends of a :class:`~costmodel.schema.inputs.Bounds` (None: above 0)."""
    return (0.0, math.inf) if allowed is None else (allowed.low, allowed.high)


def _shown(value: float) -> str:
    return f"{value:g}"


def value_problems(
    scenario: Scenario, catalog: Catalog, values: Mapping[str, Any], *, together: str = "box", where: str = ""
) -> list[tuple[str, Any, str]]:
    """Problems with values given to a scenario's inputs from outside their fields.

    Parameters
    ----------
    scenario
        A validated :class:`~costmodel.schema.scenario.Scenario`.
    catalog
        The catalog it was validated against.
    values
        Input path → a number or a 1-D array of numbers (the values a sweep or a sample takes).
    together
        How the inputs take their values: ``"box"``, any combination of each input's values (a grid,
        a Latin hypercube, a Monte Carlo sample), so the joint rules are checked at every corner of
        the box; ``"rows"``, the i-th value of every input together (listed points: each distinct
        row is checked, up to :data:`MAX_ROWS`, then the box); ``"alone"``, one input at a time with
        the others as given (a tornado).
    where
        Prefix of the field named in each problem (``overrides.values.``, ``grid.``).

    Returns
    -------
    list of (field, value, reason)
        Empty when every value can be used.
    """
    fields = inputs_by_path(scenario, catalog)
    problems: list[tuple[str, Any, str]] = []
    ends: dict[str, tuple[float, float]] = {}
    columns: dict[str, np.ndarray] = {}
    for path, given in values.items():
        field = fields.get(path)
        if field is None:
            continue  # an unknown path is the caller's to name (with its did-you-mean)
        array = np.asarray(given)
        if array.dtype.kind not in "iuf":  # numbers already (a sweep's arrays) need no look at each
            items = np.asarray(given, dtype=object).ravel()
            bad_type = [v for v in items if not is_number(v)]
            if bad_type:
                problems.append(
                    (
                        where + path,
                        bad_type[0],
                        "must be a number, not "
                        + (
                            "a boolean"
                            if isinstance(bad_type[0], bool | np.bool_)
                            else "text"
                            if isinstance(bad_type[0], str)
                            else type(bad_type[0]).__name__
                        ),
                    )
                )
                continue
        array = array.astype(float).ravel()
        if not np.isfinite(array).all():
            problems.append((where + path, float(array[~np.isfinite(array)][0]), "not a finite number"))
            continue
        if whole(field.info) and not (array == np.round(array)).all():
            fractional = array[array != np.round(array)]
            problems.append(
                (
                    where + path,
                    float(fractional[0]),
                    f"a whole number ({field.title} is a count): give whole values, listed in a grid or "
                    "points (a range or a sample would price fractions)",
                )
            )
            continue
        allowed = bounds_of(field.info) if path != THROUGHPUT_INPUT else None
        low, high = ends_of(allowed)
        outside = np.unique(
            array[
                (array < low)
                | (array > high)
                | ((array == low) & (allowed is None or allowed.low_open))
                | ((array == high) & (allowed is not None and allowed.high_open))
            ]
        )
        if outside.size:
            problems.append(
                (
                    where + path,
                    [float(v) for v in outside[:3]],
                    f"outside the input's allowed range {'(0, inf)' if allowed is None else allowed.describe()}",
                )
            )
            continue
        if array.size:
            ends[path] = (float(array.min()), float(array.max()))
            columns[path] = array
    if problems or not ends:
        return problems
    for group in _groups(scenario, ends):
        group_ends = {path: ends[path] for path in group}
        points = _corners(group_ends, together)
        if together == "rows" and len({len(columns[p]) for p in group}) == 1:
            rows = np.unique(np.column_stack([columns[p] for p in group]), axis=0)
            if len(rows) <= MAX_ROWS:
                points = (dict(zip(group, map(float, row), strict=True)) for row in rows)
        for corner in points:
            reason = _broken_rule(scenario, catalog, corner)
            if reason is not None:
                at = ", ".join(f"{p} = {_shown(v)}" for p, v in corner.items())
                field, value, rule = reason
                if field in corner:
                    return [(where + field, value, f"{rule} (with {at})")]
                # the rule's field is not one given here: name the one without which the rule holds
                blame = next(
                    (
                        p
                        for p in corner
                        if len(corner) > 1
                        and _broken_rule(scenario, catalog, {q: v for q, v in corner.items() if q != p}) is None
                    ),
                    next(iter(corner)),
                )
                return [(where + blame, corner[blame], f"breaks the rule on {field} ({value!r}): {rule} (with {at})")]
    return problems


def _groups(scenario: Scenario, ends: Mapping[str, Any]) -> list[list[str]]:
    """The inputs whose rules may join them: those of one catalog row together, and the scenario's own
    fields together (the rules of a row and of the scenario share no input, so their corners need not
    be combined); the serving throughput joins no rule."""
    groups: dict[Any, list[str]] = {}
    for path in ends:
        spec = CATALOG_INPUTS.get(path)
        if spec is not None:
            key = (spec.table, getattr(getattr(scenario.options, spec.option), spec.key))
        elif path == THROUGHPUT_INPUT:
            continue
        else:
            key = "scenario"
        groups.setdefault(key, []).append(path)
    return list(groups.values())


def _corners(ends: Mapping[str, tuple[float, float]], together: str):
    """The points at which the joint rules are checked (see the module notes)."""
    paths = list(ends)
    if together == "alone":
        for path in paths:
            for end in sorted(set(ends[path])):
                yield {path: end}
        return
    choices = [sorted(set(ends[p])) for p in paths]
    if math.prod(len(c) for c in choices) <= MAX_CORNERS:
        for combination in itertools.product(*choices):
            yield dict(zip(paths, combination, strict=True))
        return
    for a, b in itertools.combinations(range(len(paths)), 2):
        for x, y in itertools.product(choices[a], choices[b]):
            yield {paths[a]: x, paths[b]: y}


def _broken_rule(scenario: Scenario, catalog: Catalog, point: Mapping[str, float]) -> tuple[str, Any, str] | None:
    """The first rule the scenario breaks with its inputs at ``point``, as (field, value, reason); None if none."""
    rows: dict[tuple[str, str], dict[str, float]] = {}
    direct: dict[str, float] = {}
    overrides = getattr(scenario, "overrides", None)
    for path, value in {**(overrides.values if overrides is not None else {}), **point}.items():
        spec = CATALOG_INPUTS.get(path)
        if spec is not None:
            option = getattr(scenario.options, spec.option)
            rows.setdefault((spec.table, getattr(option, spec.key)), {})[spec.column] = value
        elif path != THROUGHPUT_INPUT:
            direct[path] = value
    for (table, ident), changes in rows.items():
        row = getattr(catalog, table)[ident]
        data = row.model_dump(exclude_none=True)
        data.update(changes)
        try:
            type(row).model_validate(data)
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            column = str(error["loc"][0]) if error["loc"] else "(row)"
            path = next((p for p, s in CATALOG_INPUTS.items() if s.table == table and s.column == column), column)
            return path, error.get("input"), f"{error['msg']} (catalog row {ident} of {row.source_file})"
    if not direct:
        return None
    data = scenario.model_dump(mode="json", exclude_none=True)
    data.pop("uncertainty", None)  # its own check is what calls this one
    fields = inputs_by_path(scenario, catalog)
    for path, value in direct.items():
        if path not in point:
            continue
        set_path(data, path, int(value) if whole(fields[path].info) else value)
    try:
        type(scenario).model_validate(data, context={"catalog": catalog})
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in error["loc"]) or "(top level)"
        return field, error.get("input"), error["msg"]
    return None


__all__ = ["MAX_CORNERS", "MAX_ROWS", "is_number", "set_path", "value_problems", "whole"]

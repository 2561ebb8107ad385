"""Many scenarios at once: one tidy portfolio row per scenario or per point of a sweep.

A row holds the scenario, the swept inputs' values, the monthly cost of each option (the
monthly view), the decision (its measure, the winner, its label, the runner-up and the margin
on that measure: :func:`costmodel.domain.decision.decide`, the same answer ``compare`` gives),
the break-even volume of every pair of options, the NPV and TCO of every option where the
scenario has a ``finance`` block, the unsourced estimates it rests on (warnings) and, for a
scenario that could not be evaluated, its error.

A sweep of one scenario's numeric inputs is evaluated in ONE vectorised call per chunk of
points (:func:`sweep_columns`): the inputs are replaced by arrays
(:func:`costmodel.resolved.resolve` with ``values``), the cost functions broadcast, and the
break-even volumes of all points are found together: the sign of the cost difference is
read on a grid of volumes from 0 to 10 × each point's volume (the same range as
:func:`costmodel.domain.break_even.default_volume_max`), and the first change of sign is
refined by bisection to 1e-12 of the range, for every point at once.

References
----------
.. [1] McKay, M. D., Beckman, R. J. and Conover, W. J. (1979), "A comparison of three methods
   for selecting values of input variables in the analysis of output from a computer code",
   Technometrics 21(2): 239-245 (Latin-hypercube sampling, :func:`latin_hypercube`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError, did_you_mean
from ..formulas.shapes import scalar
from ..resolved import OPTION_LABELS, Resolved, as_resolved, resolve
from ..schema import Scenario
from ..schema.inputs import find_input, fixed_reason
from ..schema.values import value_problems
from .break_even import first_break_evens
from .capacity import own_servers, rent_gpus
from .compare import comparison_notes, decided
from .costs import monthly_cost
from .decision import labels, measure_of, reserved_gpus_of
from .finance import present_values
from .uncertainty import measure_unit, numeric_inputs, option_costs

GRID_POINTS = 41
"""Volumes (0 to 10 × the point's volume, a quarter of it apart) on which a sweep's break-evens are first located."""

BISECTIONS = 44
"""Bisection steps refining each break-even: the bracket shrinks to 2^-44 (6e-14) of 1/40 of the range."""

MAX_POINTS = 10_000_000
"""Largest sweep: more points is an error in the sweep file, not a long wait."""

OPTIONS = tuple(OPTION_LABELS)
"""Options in column order (own, rent, api)."""

MAX_FIXED_VALUES = 100
"""Most distinct values (combinations, for several) of the swept inputs that cannot vary as an array (a count,
a size): the sweep resolves the scenario once for each, so more is an error in the sweep file."""

PAIRS = tuple(itertools.combinations(OPTIONS, 2))
"""Option pairs in column order."""


DECISION_COLUMNS = (
    "decision_measure",
    "decision_unit",
    "winner",
    "winner_label",
    "winner_figure",
    "runner_up",
    "margin",
)
"""The decision's columns: its measure and unit, the winning candidate (id, label and figure), the runner-up, the
margin on the measure [``decision_unit``: the reporting currency, or per month for the monthly measures]."""


def decision_column(option: str) -> str:
    """Column of an option's figure on the scenario's decision measure [``decision_unit``]."""
    return f"decision_{option}"


def cost_column(option: str) -> str:
    """Column of an option's monthly cost in the monthly view [reporting currency/month]: the option at the
    volume as configured (the rent option by its billing, without a ``finance.rent_commitment``; the
    decision's figure for the option, commitment included, is :func:`decision_column`'s)."""
    return f"cost_{option}"


def break_even_column(a: str, b: str) -> str:
    """Column of a pair's break-even volume [workload volume unit]; empty: none in the range."""
    return f"break_even_{a}_{b}"


def base_columns() -> list[str]:
    """Every column of a portfolio table but the swept inputs and further offers', in order
    (:data:`costmodel.columns.PORTFOLIO`, where their types and units are)."""
    from ..columns import PORTFOLIO

    return PORTFOLIO.names()


def scenario_row(scenario: Scenario | Resolved, name: str) -> dict[str, Any]:
    """One portfolio row for one scenario at its own volume: each figure the one :func:`compare` gives, from
    :func:`~costmodel.domain.compare.decided` and :func:`~costmodel.domain.break_even.first_break_evens` (the
    row holds no claim, energy, serving or routing figure, no cheapest range, no break-even after a pair's
    first and no finance return, so none of them is computed).

    Parameters
    ----------
    scenario
        The scenario.
    name
        Its name in the table (bundled name or file path).

    Returns
    -------
    dict
        Column → value; an option the scenario lacks, a break-even "never" in the range and a
        missing finance block give None (an empty cell), never NaN.
    """
    r = as_resolved(scenario)
    result = decided(r)
    row: dict[str, Any] = {
        "scenario": name,
        "point": None,
        "title": r.title,
        "volume": result.volume,
        "volume_unit": r.volume_unit,
        "currency": r.currency,
    }
    names = list(OPTIONS) + [o for o in result.costs if o not in OPTIONS]  # further options: api:<name>
    for option in names:
        found = result.costs.get(option)
        row[cost_column(option)] = None if found is None else found[1]
    d = result.decision
    row.update(
        decision_measure=d.measure,
        decision_unit=d.unit,
        winner=d.winner,
        winner_label=d.winning.label,
        winner_figure=d.winning.figure,
        runner_up=d.runner_up,
        margin=d.margin,
    )
    for option in names:
        row[decision_column(option)] = d.figure(option) if option in d.candidates else None
    for a, b in PAIRS:
        row[break_even_column(a, b)] = None
    for option_a, option_b, volume in first_break_evens(r, result.volume_max):  # compare's break_evens' volumes
        a, b = sorted((option_a, option_b), key=names.index)
        row[break_even_column(a, b)] = volume
    # compare's finance figures (own_finance's): each option's NPV and TCO, where there is an owned option
    npv, tco = present_values(r, result.flows) if result.flows is not None and "own" in r.options else ({}, {})
    for option in names:
        row[f"npv_{option}"] = scalar(npv[option]) if option in npv else None
        row[f"tco_{option}"] = scalar(tco[option]) if option in tco else None
    row["warnings"] = row_warnings(r, result.run)
    row["error"] = None
    return row


def row_warnings(r: Resolved, run=None) -> str | None:
    """A row's warnings, as ``compare`` gives them (not errors): the unsourced estimates the row rests on, a training
    run's plausibility warnings, and the notes on inputs the comparison does not use or catalog rows withdrawn,
    separated by '; '; None where there are none."""
    said = [f"unsourced estimate: {e}" for e in r.estimates]
    said += list(run.warnings) if run is not None else []
    said += comparison_notes(r)
    return "; ".join(said) or None


def error_row(name: str, message: str) -> dict[str, Any]:
    """The portfolio row of a scenario that could not be evaluated: its name and its error."""
    row: dict[str, Any] = dict.fromkeys(base_columns())
    row.update(scenario=name, error=message)
    return row


# --- sweeps ------------------------------------------------------------------------------------


def grid_points(axes: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The Cartesian product of each input's values, as one array per input (first input slowest).

    >>> grid_points({"a": [1, 2], "b": [10, 20, 30]})["b"].tolist()
    [10.0, 20.0, 30.0, 10.0, 20.0, 30.0]
    """
    arrays = [np.asarray(v, dtype=float).ravel() for v in axes.values()]
    mesh = np.meshgrid(*arrays, indexing="ij")
    return {path: m.ravel() for path, m in zip(axes, mesh, strict=True)}


def latin_hypercube(ranges: Mapping[str, tuple[float, float]], samples: int, seed: int) -> dict[str, np.ndarray]:
    """A Latin-hypercube sample of inputs between their low and high values [1].

    Each input's range is cut into ``samples`` equal strata and each stratum is used once,
    in a random order per input (:class:`scipy.stats.qmc.LatinHypercube`, seeded).
    """
    from scipy.stats import qmc

    # seed, not rng: scipy >= 1.11 takes it (rng only from 1.15) and rng gives other samples; scipy's
    # annotations of 1.15+ name only rng, though the keyword is still accepted
    unit = qmc.LatinHypercube(d=len(ranges), seed=seed).random(samples)  # pyright: ignore[reportCallIssue]
    return {path: low + unit[:, i] * (high - low) for i, (path, (low, high)) in enumerate(ranges.items())}


def fixed_inputs(scenario: Scenario | Resolved, paths) -> list[str]:
    """The paths among ``paths`` that cannot take an array of values (a count, a size, a year: see
    :func:`costmodel.schema.inputs.fixed_reason`); a sweep resolves the scenario at each of their values."""
    r = as_resolved(scenario)
    found = [(p, find_input(r.scenario, r.catalog, p)) for p in paths]
    return [p for p, f in found if f is not None and fixed_reason(r.scenario, f) is not None]


def _fixed_groups(values: Mapping[str, np.ndarray], fixed: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct combinations of the fixed inputs' values (rows, in ``fixed`` order) and each point's row."""
    keys = np.stack([np.asarray(values[p], dtype=float) for p in fixed], axis=1)
    combos, which = np.unique(keys, axis=0, return_inverse=True)
    return combos, which.reshape(-1)


def check_sweep_values(
    scenario: Scenario | Resolved, values: Mapping[str, np.ndarray], together: str = "box"
) -> list[tuple[str, Any, str]]:
    """Problems with a sweep's values: unknown inputs, values that are not numbers, not whole for a
    count, outside an input's range, or that break a rule joining several inputs (a cached price above
    the input price); too many points; for an input that cannot vary as an array (a count), a value at
    which the scenario does not resolve (a GPU count that is not whole replicas), or more than
    :data:`MAX_FIXED_VALUES` distinct values.

    Parameters
    ----------
    together
        How the inputs' values combine: ``"box"`` (a grid, a Latin hypercube: any combination of
        each input's values) or ``"rows"`` (listed points: the i-th values of every input together).

    Returns
    -------
    list of (field, value, reason)
        Empty when the sweep can run.
    """
    r = as_resolved(scenario)
    known = numeric_inputs(r)
    problems = []
    for path in values:
        if path not in known:
            problems.append((path, path, f"not a numeric input of the base scenario{did_you_mean(path, known)}"))
    sizes = {len(a) for a in values.values()}
    if len(sizes) > 1:
        problems.append(("(sweep)", sorted(sizes), "every input needs the same number of values"))
    if sizes and max(sizes) > MAX_POINTS:
        problems.append(("(sweep)", max(sizes), f"at most {MAX_POINTS:,} points"))
    if problems:
        return problems
    problems = value_problems(r.scenario, r.catalog, values, together=together)
    fixed = fixed_inputs(r, values)
    if problems or not fixed:
        return problems
    combos, _ = _fixed_groups(values, fixed)
    if len(combos) > MAX_FIXED_VALUES:
        return [
            (
                fixed[0] if len(fixed) == 1 else "(sweep)",
                len(combos),
                f"at most {MAX_FIXED_VALUES} distinct values of {', '.join(fixed)} (each sets a count or a size: "
                "the scenario is resolved once for each)",
            )
        ]
    for combo in combos:
        at = {p: float(v) for p, v in zip(fixed, combo, strict=True)}
        try:
            resolve(r, values=at)
        except InputError as exc:
            shown = ", ".join(f"{p} = {v:g}" for p, v in at.items())
            for field, value, reason in exc.problems:
                if len(fixed) == 1 and field == fixed[0]:
                    problems.append((field, value, reason))
                else:
                    problems.append(
                        (fixed[0] if len(fixed) == 1 else "(sweep)", shown, f"at {shown}: {field}: {reason}")
                    )
        except ValueError as exc:
            shown = ", ".join(f"{p} = {v:g}" for p, v in at.items())
            problems.append((fixed[0] if len(fixed) == 1 else "(sweep)", shown, f"at {shown}: {exc}"))
    return problems


def _first_change(diff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the first grid cell whose ends differ in sign, per row, and whether there is one."""
    sign = np.sign(diff)
    # carry the last non-zero sign forward so an exact tie on a grid volume is not a change by itself
    change = (sign[:, :-1] * sign[:, 1:]) < 0
    found = change.any(axis=1)
    return np.where(found, change.argmax(axis=1), 0), np.asarray(found)


def sweep_columns(
    scenario: Scenario | Resolved, values: Mapping[str, np.ndarray], name: str = "", first_point: int = 0
) -> dict[str, Any]:
    """The portfolio columns of a sweep chunk, every point at once.

    Parameters
    ----------
    scenario
        The base scenario.
    values
        Input path → 1-D array of values, one per point (all the same length).
    name
        The base scenario's name in the table.
    first_point
        Number of the chunk's first point in the whole sweep.

    Returns
    -------
    dict
        Column → array or list, one entry per point; the swept inputs come first, under their
        paths. Break-evens with none in the range are None; so are NPV and TCO without a
        finance block. The decision columns rank the candidates on the scenario's measure, as
        :func:`costmodel.domain.decision.decide` does (the cheapest mix and the capacity plan
        are searched per scenario, not per point, and are left out of a sweep).
    """
    r = as_resolved(scenario)
    n = len(next(iter(values.values())))
    fixed = fixed_inputs(r, values)
    if not fixed:
        return _sweep_part(r, values, n, name, first_point)
    combos, which = _fixed_groups(values, fixed)
    varying = {p: np.asarray(v, dtype=float) for p, v in values.items() if p not in fixed}
    parts = []
    for row, combo in enumerate(combos):
        at = np.flatnonzero(which == row)
        base = resolve(r, values={p: float(v) for p, v in zip(fixed, combo, strict=True)})
        part = _sweep_part(base, {p: v[at] for p, v in varying.items()}, len(at), name, first_point)
        parts.append((at, part))
    out: dict[str, Any] = {path: np.asarray(v, dtype=float) for path, v in values.items()}
    for key in parts[0][1]:
        if key in out:
            continue
        pieces = [part[key] for _, part in parts]
        if all(isinstance(p, np.ndarray) for p in pieces):
            merged = np.empty(n, dtype=np.result_type(*pieces))
        else:
            merged = np.empty(n, dtype=object)
        for (at, _), piece in zip(parts, pieces, strict=True):
            merged[at] = np.asarray(piece, dtype=merged.dtype) if merged.dtype != object else list(piece)
        out[key] = merged if merged.dtype != object else list(merged)
    out["point"] = np.arange(first_point, first_point + n)
    return out


def _point_labels(
    r: Resolved,
    s: Resolved,
    volume: np.ndarray,
    values: Mapping[str, np.ndarray],
    measure: str,
    figures: Mapping[str, np.ndarray],
    winners: list[str],
) -> list[str]:
    """Each point's winner named as :func:`~costmodel.domain.decision.labels` names it for that point alone.

    A label states the GPUs or servers bought, which follow the point's volume and inputs: the points
    are grouped by the counts of the owned and always-on rented options, and each group is named from
    its first point resolved on its own (a few groups, however many points).
    """
    n = len(winners)
    counted = [o for o in r.options if r.option(o).kind in ("own", "rent")]
    if not counted or not values:
        named = labels(r, measure, figures, reserved_gpus=reserved_gpus_of(r) if "rent" in r.options else None)
        return [named[c] for c in winners]
    counts = np.column_stack(
        [
            np.broadcast_to(
                np.asarray(
                    own_servers(s, volume) if r.option(o).kind == "own" else rent_gpus(s, volume, o), dtype=float
                ),
                (n, 1),
            )[:, 0]
            for o in counted
        ]
    )
    groups: dict[tuple, dict[str, str]] = {}
    found = []
    for i, winner in enumerate(winners):
        key = tuple(counts[i])
        if key not in groups:
            point = resolve(r, values={p: float(np.ravel(v)[i]) for p, v in values.items()})
            groups[key] = labels(
                point,
                measure,
                {c: float(np.ravel(f)[i]) for c, f in figures.items()},
                reserved_gpus=reserved_gpus_of(point) if "rent" in point.options else None,
            )
        found.append(groups[key][winner])
    return found


def _sweep_part(r: Resolved, values: Mapping[str, np.ndarray], n: int, name: str, first_point: int) -> dict[str, Any]:
    """:func:`sweep_columns` for ``n`` points of inputs that all take arrays (none, when only counts are swept:
    ``r`` then holds them)."""
    column = {path: np.asarray(v, dtype=float).reshape(n, 1) for path, v in values.items()}
    s = resolve(r, values=column)
    volume = np.broadcast_to(np.asarray(s.volume, dtype=float), (n, 1)).astype(float)
    options = list(r.options)
    costs = {o: np.broadcast_to(monthly_cost(s, o, volume), (n, 1))[:, 0].astype(float) for o in options}
    out: dict[str, Any] = {path: np.asarray(v, dtype=float) for path, v in values.items()}
    out.update(
        scenario=[name] * n,
        point=np.arange(first_point, first_point + n),
        title=[r.title] * n,
        volume=volume[:, 0].copy(),
        volume_unit=[r.volume_unit] * n,
        currency=[r.currency] * n,
    )
    for option in OPTIONS:
        out[cost_column(option)] = costs.get(option, [None] * n)
    measure = measure_of(r)
    figures = {c: np.broadcast_to(v, (n,)) for c, v in option_costs(r, values, measure).items()}
    candidates = list(figures)
    stack = np.stack([figures[c] for c in candidates])
    order = np.argsort(stack, axis=0, kind="stable")
    ids = np.array(candidates, dtype=object)
    sorted_figures = np.take_along_axis(stack, order, axis=0)
    out["decision_measure"] = [str(measure)] * n
    out["decision_unit"] = [measure_unit(r)] * n
    out["winner"] = list(ids[order[0]])
    out["winner_label"] = _point_labels(r, s, volume, values, measure, figures, list(ids[order[0]]))
    out["winner_figure"] = sorted_figures[0]
    for option in OPTIONS:
        out[decision_column(option)] = figures[option] if option in figures else [None] * n
    out["runner_up"] = list(ids[order[1]]) if len(candidates) > 1 else [None] * n
    out["margin"] = sorted_figures[1] - sorted_figures[0] if len(candidates) > 1 else [None] * n
    out.update(_sweep_break_evens(s, options, volume, n))
    finance_columns: dict[str, list[None] | np.ndarray] = {
        f"{k}_{o}": [None] * n for k in ("npv", "tco") for o in OPTIONS
    }
    if r.finance is not None:
        npv, tco = present_values(s)  # the cash flows of every point at once (samples × months)
        for o in OPTIONS:
            if o in npv:
                finance_columns[f"npv_{o}"] = np.broadcast_to(npv[o], (n,)).astype(float)
                finance_columns[f"tco_{o}"] = np.broadcast_to(tco[o], (n,)).astype(float)
    out.update(finance_columns)
    out["warnings"] = [row_warnings(r)] * n  # the base scenario's (a training run's vary with the point: left out)
    out["error"] = [None] * n
    return out


def _sweep_break_evens(s: Resolved, options: list[str], volume: np.ndarray, n: int) -> dict[str, list]:
    """Break-even volume of every pair at every point: grid, then bisection, all points together."""
    upper = np.where(volume > 0, 10.0 * volume, np.nan)  # a zero volume has no default range
    grid = upper * np.linspace(0.0, 1.0, GRID_POINTS)  # (n, GRID_POINTS)
    on_grid = {o: np.broadcast_to(monthly_cost(s, o, np.nan_to_num(grid)), grid.shape) for o in options}
    found_columns: dict[str, list] = {}
    for a, b in PAIRS:
        key = break_even_column(a, b)
        if a not in options or b not in options:
            found_columns[key] = [None] * n
            continue
        diff = on_grid[a] - on_grid[b]
        cell, found = _first_change(diff)
        found &= np.isfinite(upper[:, 0])
        rows = np.arange(n)
        low, high = grid[rows, cell].copy(), grid[rows, np.minimum(cell + 1, GRID_POINTS - 1)].copy()
        f_low = diff[rows, cell]
        for _ in range(BISECTIONS):
            middle = 0.5 * (low + high)
            f_middle = np.broadcast_to(
                monthly_cost(s, a, np.nan_to_num(middle)[:, None]) - monthly_cost(s, b, np.nan_to_num(middle)[:, None]),
                (n, 1),
            )[:, 0]
            same = np.sign(f_middle) == np.sign(f_low)
            low = np.where(same, middle, low)
            f_low = np.where(same, f_middle, f_low)
            high = np.where(same, high, middle)
        at = 0.5 * (low + high)
        found_columns[key] = [float(v) if ok else None for v, ok in zip(at, found, strict=True)]
    return found_columns


def columns_to_rows(columns: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rows (dicts) from a dict of equal-length columns, numpy scalars turned into Python numbers."""
    names = list(columns)
    n = len(columns[names[0]]) if names else 0
    rows = []
    for i in range(n):
        row = {}
        for name in names:
            value = columns[name][i]
            row[name] = value.item() if isinstance(value, np.generic) else value
        rows.append(row)
    return rows

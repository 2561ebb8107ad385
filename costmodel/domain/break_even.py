"""Break-even volumes between options, and the cheapest option over a range of volumes."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..resolved import Resolved, as_resolved
from ..results import BreakEven, CheapestRange
from ..schema import Scenario
from .capacity import capacity_volume, gpus_per_volume, step_limit_volume, step_volumes
from .costs import monthly_cost

_EPSILON = 1e-9  # relative tolerance for "equal" costs


def _sign(diff: np.ndarray, scale: np.ndarray) -> np.ndarray:
    s = np.sign(diff)
    s[np.abs(diff) <= _EPSILON * scale] = 0
    return s


def _edges(edges: np.ndarray, r: Resolved) -> np.ndarray:
    """Piece edges without pieces narrower than the GPU count's rounding tolerance.

    A count steps just past k GPUs + 1e-9 (:func:`costmodel.formulas.whole_units`), so a piece
    narrower than a few times that, in volume, has no interior where the costs are a straight
    line: it is merged into its neighbour.
    """
    per_volume = float(np.max(gpus_per_volume(r)))
    if per_volume <= 0 or len(edges) <= 2:
        return edges
    tolerance = 4e-9 / per_volume
    gaps = np.diff(edges)
    if np.all(gaps[:-1] >= tolerance):  # no narrow piece but perhaps the last: the loop below, at numpy's pace
        return edges if gaps[-1] >= tolerance else np.concatenate([edges[:-2], edges[-1:]])
    kept = [edges[0]]
    for edge in edges[1:-1]:
        if edge - kept[-1] >= tolerance:
            kept.append(edge)
    if len(kept) > 1 and edges[-1] - kept[-1] < tolerance:
        kept.pop()
    return np.array(kept + [edges[-1]])


def break_even(
    scenario: Scenario | Resolved, option_a: str, option_b: str, volume_max: float, volume_min: float = 0.0
) -> BreakEven:
    """Volumes at which the cheaper of two options changes, between two volumes.

    Parameters
    ----------
    scenario
        The scenario.
    option_a, option_b
        Two options the scenario holds.
    volume_max
        Upper end of the search. [workload volume unit]
    volume_min
        Lower end of the search. [workload volume unit]

    Returns
    -------
    BreakEven
        With ``kind="never"`` and ``volume=None`` when the cheaper option does not
        change in the range; never infinite or NaN.

    Raises
    ------
    ValueError
        Not 0 ≤ volume_min < volume_max < infinity, or too many GPU-count steps in the range.

    Notes
    -----
    Both costs are linear in volume between the volumes where a GPU count steps up
    (see :func:`costmodel.domain.capacity.step_volumes`). The range is cut at those
    steps; on each piece the difference of the costs is a straight line, found from two
    evaluations inside it, and its root is exact up to rounding. A change of sign across a
    step is reported as ``kind="step"``. Evaluation is vectorised over all pieces at once.
    """
    r = as_resolved(scenario)
    _check_range(volume_min, volume_max)
    pieces = _Pieces(
        r, step_volumes(r, option_a, volume_max), step_volumes(r, option_b, volume_max), volume_min, volume_max
    )
    cost_a = np.asarray(monthly_cost(r, option_a, pieces.points))
    cost_b = np.asarray(monthly_cost(r, option_b, pieces.points))
    return pieces.break_even(option_a, option_b, cost_a, cost_b)


def break_evens(scenario: Scenario | Resolved, volume_max: float, volume_min: float = 0.0) -> list[BreakEven]:
    """:func:`break_even` for each pair of the scenario's options, in display order.

    Notes
    -----
    The same search as :func:`break_even` pair by pair, with each option's GPU-count steps listed
    once and its cost computed in one call at the points of every pair it is in (the cost is
    elementwise in the volume, so each point's cost is the one :func:`break_even` computes).
    """
    r = as_resolved(scenario)
    _check_range(volume_min, volume_max)
    names = list(r.options)
    steps = {name: step_volumes(r, name, volume_max) for name in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    pieces = [_Pieces(r, steps[a], steps[b], volume_min, volume_max) for a, b in pairs]
    costs: dict[tuple[int, str], np.ndarray] = {}
    for name in names:
        used = [k for k, pair in enumerate(pairs) if name in pair]
        if not used:
            continue
        every = np.asarray(monthly_cost(r, name, np.concatenate([pieces[k].points for k in used])))
        bounds = np.cumsum([0] + [len(pieces[k].points) for k in used])
        for k, lo, hi in zip(used, bounds[:-1], bounds[1:], strict=True):
            costs[(k, name)] = every[lo:hi]
    return [pieces[k].break_even(a, b, costs[(k, a)], costs[(k, b)]) for k, (a, b) in enumerate(pairs)]


FIRST_BLOCK = 256
"""Pieces :func:`first_break_evens` prices in its first block; each further block is twice the one before."""


def first_break_evens(
    scenario: Scenario | Resolved, volume_max: float, volume_min: float = 0.0
) -> list[tuple[str, str, float | None]]:
    """Each pair's first break-even volume, the :attr:`~costmodel.results.BreakEven.volume` of
    :func:`break_evens` over the same range, as (option a, option b, volume or None), pairs in its order.

    Notes
    -----
    The same pieces, points and signs as :func:`break_evens`, priced from the low end a block of pieces at a
    time (the cost is elementwise in the volume, so each point's cost is the one :func:`break_evens` computes),
    stopping at the first block that holds a crossing or a step: no later piece can hold a lower volume. A
    pair that never breaks even is priced over the whole range, as :func:`break_evens` prices it.

    Raises
    ------
    ValueError
        As :func:`break_evens`.
    """
    r = as_resolved(scenario)
    _check_range(volume_min, volume_max)
    names = list(r.options)
    steps = {name: step_volumes(r, name, volume_max) for name in names}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    return [(a, b, _Pieces(r, steps[a], steps[b], volume_min, volume_max).first_event(r, a, b)) for a, b in pairs]


def _check_range(volume_min: float, volume_max: float) -> None:
    """Raise ValueError unless 0 <= volume_min < volume_max < infinity."""
    if not (np.isfinite(volume_max) and volume_max > volume_min >= 0):
        raise ValueError(f"need 0 <= volume_min < volume_max < infinity, got {volume_min} and {volume_max}")


def _sorted_distinct(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """``low``, ``high`` and the values strictly between them, sorted, each once. [as ``values``]

    What :func:`numpy.unique` gives of them; its sort is stable here (timsort), which merges already
    sorted runs (each option's step volumes) in linear time.
    """
    inside = values[(values > low) & (values < high)]
    kept = np.sort(np.concatenate([[low, high], inside]), kind="stable")
    return kept[np.concatenate([[True], kept[1:] != kept[:-1]])]


class _Pieces:
    """A break-even search's pieces between two volumes, the points where it prices both options, and
    the search's result from those prices (see :func:`break_even`)."""

    def __init__(
        self, r: Resolved, steps_a: np.ndarray, steps_b: np.ndarray, volume_min: float, volume_max: float
    ) -> None:
        edges = _edges(_sorted_distinct(np.concatenate([steps_a, steps_b]), volume_min, volume_max), r)
        self.volume_min, self.volume_max = volume_min, volume_max
        self.left, self.right = edges[:-1], edges[1:]
        width = self.right - self.left
        self.p1, self.p2 = self.left + width / 3, self.left + 2 * width / 3
        # two points inside each piece, each right edge, and volume_min
        self.points = np.concatenate([self.p1, self.p2, self.right, self.left[:1]])

    def first_event(self, r: Resolved, option_a: str, option_b: str) -> float | None:
        """The volume of the first event :meth:`break_even` finds (None: none), pricing the pieces from the low
        end in blocks (see :func:`first_break_evens`). [workload volume unit]"""
        n, lo, block = len(self.left), 0, FIRST_BLOCK
        before: float | None = None  # the exact sign at the right edge of the block before
        while lo < n:
            hi = min(n, lo + block)
            left, right, p1, p2 = self.left[lo:hi], self.right[lo:hi], self.p1[lo:hi], self.p2[lo:hi]
            points = np.concatenate([p1, p2, right, self.left[:1] if lo == 0 else self.left[:0]])
            cost_a = np.asarray(monthly_cost(r, option_a, points))
            cost_b = np.asarray(monthly_cost(r, option_b, points))
            m = hi - lo
            difference, scale = cost_a - cost_b, np.abs(cost_a) + np.abs(cost_b) + 1.0
            d1, s1, d2 = difference[:m], scale[:m], difference[m : 2 * m]
            slope = (d2 - d1) / (p2 - p1)
            d_left_plus = d1 - slope * (p1 - left)
            d_right, s_right = difference[2 * m : 3 * m], scale[2 * m : 3 * m]
            scale_left = s1
            if lo == 0:  # the exact value at volume_min, as break_even takes it
                d_left_plus[0], scale_left = difference[3 * m], np.concatenate([scale[3 * m :], s1[1:]])
            sign_left_plus = _sign(d_left_plus, scale_left)
            sign_right = _sign(d_right, s_right)
            found: list[float] = []
            inside = (sign_left_plus != 0) & (sign_right != sign_left_plus)
            for i in np.flatnonzero(inside):
                root = left[i] - d_left_plus[i] / slope[i]
                found.append(float(min(max(root, left[i]), right[i])))
            if before is not None and before != 0 and sign_left_plus[0] != 0 and before != sign_left_plus[0]:
                found.append(float(self.right[lo - 1]))  # a step at the edge between this block and the one before
            ahead, after = sign_right[:-1], sign_left_plus[1:]
            jumps = (ahead != 0) & (after != 0) & (ahead != after)
            found += [float(right[i]) for i in np.flatnonzero(jumps)]
            if found:
                return min(found)
            before, lo, block = sign_right[-1], hi, 2 * block
        return None

    def break_even(self, option_a: str, option_b: str, cost_a: np.ndarray, cost_b: np.ndarray) -> BreakEven:
        """The pair's break-even from both options' costs at :attr:`points`. [reporting currency/month]"""
        left, right, p1, p2 = self.left, self.right, self.p1, self.p2
        volume_min, volume_max = self.volume_min, self.volume_max
        n = len(left)
        difference, scale = cost_a - cost_b, np.abs(cost_a) + np.abs(cost_b) + 1.0
        d1, s1, d2 = difference[:n], scale[:n], difference[n : 2 * n]
        slope = (d2 - d1) / (p2 - p1)
        d_left_plus = d1 - slope * (p1 - left)  # limit from the right at each left edge
        d_right, s_right = difference[2 * n : 3 * n], scale[2 * n : 3 * n]  # exact value at each right edge
        # No count steps at volume_min itself, so there the exact value is the limit from the
        # right; using it keeps tiny differences near the start from drowning in rounding.
        d_start, s_start = difference[3 * n :], scale[3 * n :]
        d_left_plus[0], scale_left = d_start[0], np.concatenate([s_start, s1[1:]])

        sign_left_plus = _sign(d_left_plus, scale_left)
        sign_right = _sign(d_right, s_right)

        events: list[tuple[float, Literal["crossing", "step"], int, int]] = []  # (volume, kind, sign before, after)
        inside = (sign_left_plus != 0) & (sign_right != sign_left_plus)
        for i in np.flatnonzero(inside):
            root = left[i] - d_left_plus[i] / slope[i]
            events.append(
                (float(min(max(root, left[i]), right[i])), "crossing", int(sign_left_plus[i]), int(-sign_left_plus[i]))
            )
        before, after = sign_right[:-1], sign_left_plus[1:]
        jumps = (before != 0) & (after != 0) & (before != after)
        for i in np.flatnonzero(jumps):
            events.append((float(right[i]), "step", int(before[i]), int(after[i])))
        events.sort(key=lambda e: e[0])

        def cheaper(sign: int) -> str | None:
            return option_b if sign > 0 else option_a if sign < 0 else None

        first_sign = int(sign_left_plus[0]) or int(sign_right[0])
        if not events:
            return BreakEven(option_a, option_b, None, "never", cheaper(first_sign), None, volume_min, volume_max)
        volume, kind, sign_before, sign_after = events[0]
        return BreakEven(
            option_a,
            option_b,
            volume,
            kind,
            cheaper(sign_before),
            cheaper(sign_after),
            volume_min,
            volume_max,
            volumes=tuple(e[0] for e in events),
            kinds=tuple(e[1] for e in events),
        )


def cheapest_by_volume(scenario: Scenario | Resolved, breaks: list[BreakEven]) -> list[CheapestRange]:
    """The cheapest option over each part of a searched range.

    The cheapest of several options can change only where the cheaper of some pair
    changes, so the range is cut at every pair's break-evens and the cheapest option
    is found once inside each piece.

    Parameters
    ----------
    scenario
        The scenario.
    breaks
        :func:`break_evens` over the range (all pairs, same range).

    Returns
    -------
    list of CheapestRange
        Adjacent pieces with the same cheapest option are merged.
    """
    r = as_resolved(scenario)
    names = list(r.options)
    low, high = breaks[0].volume_min, breaks[0].volume_max
    edges = np.array(sorted({low, high, *(v for b in breaks for v in b.volumes)}))
    middles = (edges[:-1] + edges[1:]) / 2
    costs = np.stack([np.asarray(monthly_cost(r, name, middles), dtype=float) for name in names])
    winners = [names[i] for i in np.argmin(costs, axis=0)]
    ranges: list[CheapestRange] = []
    for start, stop, winner in zip(edges[:-1], edges[1:], winners):
        if ranges and ranges[-1].option == winner:
            ranges[-1] = CheapestRange(ranges[-1].volume_from, float(stop), winner)
        else:
            ranges.append(CheapestRange(float(start), float(stop), winner))
    return ranges


def default_volume_max(scenario: Scenario | Resolved, volume: float | None = None) -> float:
    """Default upper end of sweeps and break-even searches: 10 × the volume compared.

    ``volume`` defaults to the scenario's. When it is 0, the largest volume the
    configured GPUs can serve is used instead (1 if no option has a fixed GPU count).
    A range whose GPU-count steps an option could not list (more than
    :data:`~costmodel.domain.capacity.MAX_STEPS`, as a fleet of millions of GPUs at its busiest
    hour needs) ends where they can, but never below the volume compared: the break-evens then
    say "never" up to that end, which they state.
    """
    r = as_resolved(scenario)
    volume = float(r.volume) if volume is None else volume
    if volume > 0:
        limits = [x for x in (step_limit_volume(r, o) for o in r.options) if x is not None]
        return max(min([10.0 * volume, *limits]), float(volume))
    capacities = [c for c in (capacity_volume(r, o) for o in r.options) if c]
    return float(max(capacities)) if capacities else 1.0

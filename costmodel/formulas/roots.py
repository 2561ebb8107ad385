"""Roots of a function in a bracket where it changes sign: by vectorised scans, or by bisection.

The model's figures are functions that take an array of input values in one call (a sweep),
so a root is found by reading the function on many values across the bracket at once and
keeping the cell where the sign changes first, a few times over: five calls of 257 values
narrow a bracket 256⁵ ≈ 10¹² fold, where bisection needs forty calls and Brent's method ten to
forty scalar ones. Functions that take one value at a time (an input that sets a tensor-parallel
degree, say) are bisected. Neither imports SciPy, so importing the library does not load
``scipy.optimize``.

References
----------
R. P. Brent, *Algorithms for Minimization without Derivatives*, Prentice-Hall, 1973, ch. 4
(bisection's guarantee: a sign change in a bracket keeps a root in it).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

SCAN_POINTS = 257
"""Values read across a bracket in each pass of :func:`refine_root` (the bracket shrinks 256-fold)."""


def _tolerance(low: float, high: float, xtol: float | None, rtol: float) -> float:
    return xtol if xtol is not None else rtol * max(abs(low), abs(high))


def refine_root(
    f: Callable[[np.ndarray], np.ndarray],
    low: float,
    high: float,
    f_low: float | None = None,
    xtol: float | None = None,
    rtol: float = 1e-13,
    points: int = SCAN_POINTS,
) -> float:
    """A root of ``f`` in [low, high], where ``f(low)`` and ``f(high)`` differ in sign.

    Parameters
    ----------
    f
        The function; takes an array of values and returns an array of the same shape. [any unit]
    low, high
        The bracket. [the argument's unit]
    f_low
        ``f(low)`` if known (saves one call).
    xtol, rtol
        Stop when the bracket is narrower than ``xtol``, default ``rtol`` × max(|low|, |high|).
        [the argument's unit], [-]
    points
        Values read per pass. [-]

    Returns
    -------
    float
        A value where ``f`` is 0, or the middle of the last bracket (width within the tolerance)
        in which it changes sign: the first sign change from ``low`` at each pass.

    Examples
    --------
    >>> round(refine_root(lambda x: x ** 2 - 2.0, 0.0, 2.0), 12)
    1.414213562373
    """
    if f_low is None:
        f_low = float(np.asarray(f(np.array([low])))[0])
    tolerance = _tolerance(low, high, xtol, rtol)
    for _ in range(64):
        if high - low <= tolerance:
            break
        xs = np.linspace(low, high, points)
        ys = np.asarray(f(xs), dtype=float).copy()
        ys[0] = f_low
        zero = np.nonzero(ys == 0)[0]
        if zero.size:
            return float(xs[zero[0]])
        changed = np.nonzero(np.sign(ys[1:]) != np.sign(f_low))[0]
        if not changed.size:
            break  # no sign change read after all: keep the bracket's middle
        k = int(changed[0])  # the sign changes between xs[k] and xs[k + 1]
        if xs[k + 1] - xs[k] >= high - low:
            break  # the values no longer split the bracket (floating point)
        low, high, f_low = float(xs[k]), float(xs[k + 1]), float(ys[k])
    return 0.5 * (low + high)


def bisect_root(
    f: Callable[[float], float],
    low: float,
    high: float,
    f_low: float | None = None,
    xtol: float | None = None,
    rtol: float = 1e-13,
) -> float:
    """A root of a scalar function ``f`` in [low, high] by bisection (``f(low)``, ``f(high)`` differ in sign).

    Parameters and result as :func:`refine_root`, for a function that takes one value.

    Examples
    --------
    >>> round(bisect_root(lambda x: x ** 3 - 8.0, 0.0, 5.0), 10)
    2.0
    """
    if f_low is None:
        f_low = f(low)
    tolerance = _tolerance(low, high, xtol, rtol)
    for _ in range(200):
        if high - low <= tolerance:
            break
        middle = 0.5 * (low + high)
        if middle <= low or middle >= high:
            break
        f_middle = f(middle)
        if f_middle == 0:
            return middle
        if np.sign(f_middle) == np.sign(f_low):
            low, f_low = middle, f_middle
        else:
            high = middle
    return 0.5 * (low + high)

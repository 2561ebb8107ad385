"""Keeping the caller's kind of value: a float for scalars, a Series for a Series, else an array."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np


def like(values: Any, *inputs: Any) -> Any:
    """``values`` in the kind of the inputs: a pandas Series (index of the first Series input) if any
    input is one, a float if every input is a scalar, else the array.

    Formulas whose arithmetic keeps a Series on its own do not need this; it is for results
    built with :func:`numpy.where`, numpy-financial and similar, which return plain arrays.
    """
    all_scalar = True
    for item in inputs:
        if type(item).__name__ == "Series" and hasattr(item, "index"):
            return type(item)(np.asarray(values, dtype=float), index=item.index, name=getattr(item, "name", None))
        all_scalar = all_scalar and is_scalar(item)
    if all_scalar and is_scalar(values):
        return float(values)
    return values


def is_scalar(value: Any) -> bool:
    """Whether ``value`` holds one number as numpy sees it (``numpy.ndim(value) == 0``).

    A Python number (numpy's floating scalars among them) is answered without numpy, which the cost
    functions, called with one volume thousands of times a comparison, would otherwise spend most of a
    call in.
    """
    return isinstance(value, (float, int)) or np.ndim(value) == 0


def scalar(value: Values | NumbersOrList) -> float:
    """The float of a value that holds one number: a formula's result for scalar inputs.

    ``float(value)`` at run time; this function exists so that a type checker, which sees a
    formula's result as ``float | ndarray | Series``, knows the caller gets a float.
    """
    if isinstance(value, (float, int)):  # float() of it is what numpy gives, without the array
        return float(value)
    return float(np.asarray(value, dtype=float))


if TYPE_CHECKING:
    import pandas as pd

Numbers: TypeAlias = "float | np.ndarray | pd.Series"
"""What a formula takes for a quantity: a number, a numpy array or a pandas Series (for type
checkers; nothing is checked at run time). A formula annotated with it does arithmetic on the
input directly, so a plain list is not a quantity."""

NumbersOrList: TypeAlias = "float | Sequence[float] | np.ndarray | pd.Series"
"""What a formula that converts its input with :func:`numpy.asarray` first takes: a
:data:`Numbers` or a plain sequence of numbers."""

Values: TypeAlias = "float | np.ndarray | pd.Series"
"""What a formula gives: a float for scalar inputs, a Series (the first Series input's index) if
any input is one, else a numpy array."""

"""Keeping the caller's kind of value: a float for scalars, a Series for a Series, else an array."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np


def like(values: Any, *inputs: Any) -> Any:
    """``values`` in the kind of the inputs: a pandas Series (index of the first Series input) if any
    input is one, a float if every input is a scalar, else the array.

    Formulas whose arithmetic keeps a Series on its own do not need this; it is for results
    built with :func:`numpy.where`, numpy-financial and similar, which return plain arrays.
    """
    for item in inputs:
        if type(item).__name__ == "Series" and hasattr(item, "index"):
            return type(item)(np.asarray(values, dtype=float), index=item.index, name=getattr(item, "name", None))
    if np.ndim(values) == 0 and all(np.ndim(item) == 0 for item in inputs):
        return float(values)
    return values


if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

Numbers: TypeAlias = "ArrayLike"
"""What a formula takes for a quantity: a number, a sequence, a numpy array or a pandas Series
(for type checkers; nothing is checked at run time)."""

Values: TypeAlias = "float | np.ndarray | pd.Series"
"""What a formula gives: a float for scalar inputs, a Series (the first Series input's index) if
any input is one, else a numpy array."""

"""Keeping the caller's kind of value: a float for scalars, a Series for a Series, else an array."""

from __future__ import annotations

from typing import Any

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

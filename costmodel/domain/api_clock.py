"""API prices that depend on the clock: the price windows weighed by when the tokens are sent.

Some providers price by the time of day and week (DeepSeek: off-peak at half the peak
price). The resolved API option holds each hour's factor on its prices
(:attr:`costmodel.resolved.ApiOption.hour_price_factors`); the bill's factor is their
average weighted by the tokens sent in each hour (the demand profile), or spread evenly
over the week without a profile.
"""

from __future__ import annotations

import numpy as np

from ..resolved import Resolved, as_resolved
from ..schema import Scenario
from .capacity import api_option
from .demand import demand_shape


def api_clock_factor(scenario: Scenario | Resolved, option: str = "api", part: str | None = None) -> float:
    """Factor on an API's listed prices from its price windows and when the tokens are sent. [-]

    ``part``: one price part (``input``, ``output``, ...: the keys of
    :attr:`costmodel.resolved.ApiOption.price_parts`) for windows that apply to some token
    classes only; default the factor on the whole bill.

    Notes
    -----
    k = Σ_h d_h · m_h / Σ_h d_h over the profile's hours, d_h the demand and m_h the
    window's factor in hour h; without a profile, the mean of m_h over the 168 hours of a
    week (traffic spread evenly). 1 for an offer without price windows.
    """
    r = as_resolved(scenario)
    api = api_option(r, option)
    factors = api.hour_price_factors if part is None or api.hour_part_factors is None else api.hour_part_factors[part]
    if factors is None:
        return 1.0
    if r.demand is None:
        return float(np.mean(factors))
    shape = demand_shape(r)  # the weights: the demand's shape (its scale cancels)
    total = float(shape.sum())
    return float((shape * factors).sum() / total) if total > 0 else float(np.mean(factors))


__all__ = ["api_clock_factor"]

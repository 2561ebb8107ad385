"""Tidy tables of costs: by component at one volume, and totals over a sweep of volumes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..formulas.shapes import Numbers
from ..resolved import Resolved, as_resolved
from ..schema import Scenario
from .capacity import gpu_count
from .costs import monthly_cost, monthly_cost_components

if TYPE_CHECKING:
    import pandas as pd


class Columns:
    """Column names of the tables this module returns."""

    option = "option"
    option_label = "option_label"
    component = "component"
    cost = "cost"
    currency = "currency"
    volume = "volume"
    gpu_count = "gpu_count"


def cost_table(scenario: Scenario | Resolved, volume: float | None = None) -> pd.DataFrame:
    """Monthly cost of each option by component, at one volume.

    Parameters
    ----------
    scenario
        The scenario.
    volume
        Workload volume; default: the scenario's own. [GPU-h/month or tokens/day]

    Returns
    -------
    pandas.DataFrame
        Columns ``option``, ``option_label``, ``component``, ``cost``
        [reporting currency/month], ``currency``; one row per option and component.
    """
    import pandas as pd

    r = as_resolved(scenario)
    v = r.volume if volume is None else float(volume)
    rows = [
        {
            Columns.option: option,
            Columns.option_label: r.label(option),
            Columns.component: str(component),
            Columns.cost: float(cost),
            Columns.currency: r.currency,
        }
        for option in r.options
        for component, cost in monthly_cost_components(r, option, v).items()
    ]
    return pd.DataFrame(rows)


def cost_sweep(scenario: Scenario | Resolved, volumes: Numbers) -> pd.DataFrame:
    """Total monthly cost and GPU count of each option over an array of volumes.

    One vectorised call per option, whatever the number of volumes.

    Parameters
    ----------
    volumes
        1-D array of volumes. [GPU-h/month or tokens/day]

    Returns
    -------
    pandas.DataFrame
        Long format: ``volume``, ``option``, ``option_label``, ``cost``
        [reporting currency/month], ``gpu_count`` [GPU], ``currency``.
    """
    import pandas as pd

    r = as_resolved(scenario)
    v = np.asarray(volumes, dtype=float).ravel()
    frames = [
        pd.DataFrame(
            {
                Columns.volume: v,
                Columns.option: option,
                Columns.option_label: r.label(option),
                Columns.cost: monthly_cost(r, option, v),
                Columns.gpu_count: gpu_count(r, option, v),
                Columns.currency: r.currency,
            }
        )
        for option in r.options
    ]
    return pd.concat(frames, ignore_index=True)

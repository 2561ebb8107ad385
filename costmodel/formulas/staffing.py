"""People who run GPUs: full-time equivalents for a fleet, and what they cost.

References
----------
.. [1] CTWatch Quarterly 2(4) (2006), HPC operations staffing: roughly one FTE per 250
   processors, the proxy the bundled scenarios use for GPUs per FTE.
"""

from __future__ import annotations

import numpy as np

from ..units import MONTHS_PER_YEAR
from .shapes import Numbers, Values


def fte_needed(gpus: Numbers, minimum_fte: Numbers, gpus_per_fte: Numbers = np.inf) -> Values:
    """Full-time equivalents to run a fleet: a minimum plus one per ``gpus_per_fte`` GPUs. [FTE]

    Parameters
    ----------
    gpus
        GPUs run. [GPU]
    minimum_fte
        FTEs however small the fleet (a fixed staff: the whole of it). [FTE]
    gpus_per_fte
        GPUs one more FTE runs; infinity for a fixed staff. [GPU/FTE]

    Notes
    -----
    FTE = m + G / g, fractional.

    References
    ----------
    .. [1] CTWatch Quarterly 2(4) (2006), HPC operations staffing: roughly one FTE per 250 processors.

    Examples
    --------
    >>> round(fte_needed(24, 0.5, 250), 3)
    0.596
    >>> fte_needed(24, 2.0)
    2.0
    """
    return minimum_fte + gpus / gpus_per_fte


def staffing_cost(
    fte: Numbers, loaded_cost_per_fte_per_year: Numbers, managed_service_per_month: Numbers = 0.0
) -> Values:
    """Monthly cost of the people and any managed-service fee. [currency/month]

    Parameters
    ----------
    fte
        Full-time equivalents. [FTE]
    loaded_cost_per_fte_per_year
        Salary plus employer charges and overhead for one FTE for a year. [currency/FTE/year]
    managed_service_per_month
        Fee for operations bought as a service. [currency/month]

    Notes
    -----
    cost = FTE · L / 12 + M.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    One engineer at 72,000 a year:

    >>> staffing_cost(1.0, 72_000)
    6000.0
    """
    return fte * loaded_cost_per_fte_per_year / MONTHS_PER_YEAR + managed_service_per_month

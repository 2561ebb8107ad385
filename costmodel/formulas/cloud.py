"""A cloud bill besides the GPU-hours: data stored, data sent out, CPU nodes, a support plan.

Sizes are decimal: 1 TB = 1,000 GB, as the providers' per-GB prices are after converting a
price per GiB (2^30 bytes) to one per GB (10^9 bytes).

References
----------
.. [1] AWS, Amazon S3 pricing (aws.amazon.com/s3/pricing): storage per GB-month, data
   transfer out to the internet per GB.
.. [2] AWS, AWS Support plan pricing (aws.amazon.com/premiumsupport/pricing): Business
   support, the greater of a monthly minimum or a share of the month's AWS charges.
"""

from __future__ import annotations

import numpy as np

from ..units import HOURS_PER_MONTH
from .shapes import Numbers, Values, like

GB_PER_TB = 1000.0
"""Gigabytes in a terabyte (decimal units). [GB/TB]"""


def storage_cost(stored_tb: Numbers, price_per_gb_month: Numbers) -> Values:
    """Monthly cost of keeping data in cloud storage. [currency/month]

    Parameters
    ----------
    stored_tb
        Data stored through the month. [TB]
    price_per_gb_month
        Price of one GB kept for a month. [currency/GB-month]

    Notes
    -----
    cost = S · 1,000 · p; zero for no data or a zero price.

    References
    ----------
    .. [1] AWS, Amazon S3 pricing: S3 Standard, first 50 TB a month, per GB-month.

    Examples
    --------
    50 TB in S3 Standard at 0.023 a GB-month:

    >>> round(storage_cost(50.0, 0.023), 2)
    1150.0
    """
    return stored_tb * GB_PER_TB * price_per_gb_month


def egress_cost(egress_tb_per_month: Numbers, price_per_gb: Numbers) -> Values:
    """Monthly cost of data sent out to the internet at one price per GB. [currency/month]

    Parameters
    ----------
    egress_tb_per_month
        Data sent out each month. [TB/month]
    price_per_gb
        Price of one GB sent out (the first paid tier's). [currency/GB]

    Notes
    -----
    cost = E · 1,000 · p. One price for every GB: a tiered price list (cheaper per GB past
    10 TB at AWS) is overstated above the first tier, and its free allowance (100 GB at AWS)
    is not taken off.

    References
    ----------
    .. [1] AWS, Amazon S3 pricing: data transfer out to the internet, up to 10 TB a month.

    Examples
    --------
    10 TB a month at 0.09 a GB:

    >>> round(egress_cost(10.0, 0.09), 2)
    900.0
    """
    return egress_tb_per_month * GB_PER_TB * price_per_gb


def always_on_cost(count: Numbers, price_per_hour: Numbers) -> Values:
    """Monthly cost of machines that run every hour of the month. [currency/month]

    Parameters
    ----------
    count
        Machines (CPU nodes) running. [nodes]
    price_per_hour
        Price of one machine for an hour. [currency/h]

    Notes
    -----
    cost = n · 730 · p (a month of 8,760 / 12 hours).

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    Two CPU nodes at 0.0816 an hour:

    >>> round(always_on_cost(2, 0.0816), 3)
    119.136
    """
    return count * HOURS_PER_MONTH * price_per_hour


def support_plan_cost(bill: Numbers, share: Numbers, minimum_per_month: Numbers = 0.0) -> Values:
    """Monthly cost of a cloud support plan priced as a share of the bill with a minimum. [currency/month]

    Parameters
    ----------
    bill
        The month's cloud charges the plan is a share of. [currency/month]
    share
        The plan's share of the bill. [-]
    minimum_per_month
        The plan's monthly minimum. [currency/month]

    Notes
    -----
    cost = max(s · B, m). One share for the whole bill: a plan whose share falls with the bill
    (AWS Business: 10 % of the first 10,000 a month, then 7 %, 5 %, 3 %) is overstated above the
    first band at its first share.

    References
    ----------
    .. [1] AWS, AWS Support plan pricing: Business, the greater of USD 100 or 10 % of the first
       USD 10,000 of monthly charges (then 7 %, 5 %, 3 %).

    Examples
    --------
    10 % of a 5,000 bill, and of a 500 bill with a 100 minimum:

    >>> support_plan_cost(5000.0, 0.10, 100.0)
    500.0
    >>> support_plan_cost(500.0, 0.10, 100.0)
    100.0
    """
    return like(np.maximum(share * bill, minimum_per_month), bill, share, minimum_per_month)

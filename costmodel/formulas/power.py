"""Electric power drawn by GPU servers and what the electricity costs.

References
----------
.. [1] NVIDIA DGX H100/H200 User Guide: 10.2 kW maximum system power.
.. [2] Uptime Institute (2024), Global Data Center Survey 2024: average PUE 1.56.
.. [3] The Green Grid (2007), White Paper #6: PUE = total facility energy / IT equipment energy.
"""

from __future__ import annotations

from ..units import HOURS_PER_MONTH
from .shapes import Numbers, Values


def drawn_power_kw(max_power_kw: Numbers, idle_power_share: Numbers, utilisation: Numbers) -> Values:
    """Power a server draws at a utilisation, at the wall. [kW]

    Parameters
    ----------
    max_power_kw
        Maximum power of the server at the wall. [kW]
    idle_power_share
        Power at zero utilisation as a share of the maximum, in [0, 1]. [-]
    utilisation
        Share of the server's GPU-hours busy, in [0, 1]. [-]

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Broadcast over the inputs. [kW]

    Notes
    -----
    P = P_max · (i + (1 − i) · u): a linear power model between the idle and the full draw.
    A fleet's draw is the sum over its servers, so for S servers with GPU-hours H in a month
    and G GPUs each, u = H / (S · G · 730) gives the fleet's mean draw S · P.

    References
    ----------
    .. [1] Fan, Weber and Barroso (2007), "Power Provisioning for a Warehouse-sized Computer", ISCA (power linear in
       utilisation between idle and busy).

    Examples
    --------
    A DGX H100 (10.2 kW) idling at 30 % of its maximum and busy half the time:

    >>> round(drawn_power_kw(10.2, 0.3, 0.5), 4)
    6.63
    """
    return max_power_kw * (idle_power_share + (1.0 - idle_power_share) * utilisation)


def facility_energy_kwh(drawn_kw: Numbers, pue: Numbers, hours: Numbers = HOURS_PER_MONTH) -> Values:
    """Energy the facility buys for IT equipment drawing ``drawn_kw``: IT energy × PUE. [kWh]

    Parameters
    ----------
    drawn_kw
        Mean IT power drawn. [kW]
    pue
        Power usage effectiveness, ≥ 1. [-]
    hours
        Length of the period; default the model's month of 730 h. [h]

    Notes
    -----
    E = P · PUE · t (The Green Grid 2007).

    References
    ----------
    .. [1] The Green Grid (2007), White Paper #6: PUE = total facility energy / IT equipment energy.

    Examples
    --------
    >>> facility_energy_kwh(10.0, 1.5, 730.0)
    10950.0
    """
    return drawn_kw * pue * hours


def electricity_cost(
    drawn_kw: Numbers, pue: Numbers, price_per_kwh: Numbers, hours: Numbers = HOURS_PER_MONTH
) -> Values:
    """Cost of the electricity for IT equipment drawing ``drawn_kw``. [currency]

    Parameters
    ----------
    drawn_kw
        Mean IT power drawn. [kW]
    pue
        Power usage effectiveness, ≥ 1. [-]
    price_per_kwh
        Electricity price. Any currency; the result is in the same. [currency/kWh]
    hours
        Length of the period; default the model's month of 730 h. [h]

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        [currency] per period.

    Notes
    -----
    cost = P · PUE · t · price (see :func:`facility_energy_kwh`).

    References
    ----------
    .. [1] The Green Grid (2007), White Paper #6: PUE = total facility energy / IT equipment energy.

    Examples
    --------
    One DGX H100 at full draw for a month at PUE 1.56 and 0.0707 USD/kWh:

    >>> round(electricity_cost(10.2, 1.56, 0.0707), 2)
    821.23
    """
    return facility_energy_kwh(drawn_kw, pue, hours) * price_per_kwh

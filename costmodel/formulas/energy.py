"""Energy, emissions and power: kWh, kg CO2e, tokens per joule, time-of-use bills, power at the meter.

References
----------
.. [1] The Green Grid (2007), White Paper #6: PUE = total facility energy / IT equipment energy.
.. [2] GHG Protocol Scope 2 Guidance (2015): location-based (grid average) and market-based
   (contracted) emission factors, both × the electricity consumed.
.. [3] Patterson et al. (2021), "Carbon Emissions and Large Neural Network Training",
   arXiv 2104.10350: tCO2e = MWh × intensity, MWh = hours × processors × W × PUE.
.. [4] Wu et al. (2022), "Sustainable AI", arXiv 2204.05149: the method the Llama model cards cite
   (GPU-hours × peak power per GPU, adjusted for PUE, × grid intensity).
"""

from __future__ import annotations

import numpy as np

from .shapes import Numbers, NumbersOrList, Values


def emissions_kg(energy_kwh: Numbers, kg_co2e_per_kwh: Numbers) -> Values:
    """Operational emissions of the electricity consumed. [kg CO2e]

    Parameters
    ----------
    energy_kwh
        Energy bought at the meter (IT × PUE). [kWh]
    kg_co2e_per_kwh
        Location-based (grid average) or market-based (contracted) intensity. [kg CO2e/kWh]

    Notes
    -----
    E_CO2 = E · I (GHG Protocol Scope 2).

    References
    ----------
    .. [1] GHG Protocol Scope 2 Guidance (2015): emissions = electricity consumed × emission factor.

    Examples
    --------
    >>> round(emissions_kg(10_000.0, 0.39), 1)
    3900.0
    """
    return energy_kwh * kg_co2e_per_kwh


def embodied_per_month(kg_co2e: Numbers, life_months: Numbers) -> Values:
    """Embodied (manufacturing) emissions spread straight-line over the hardware's life. [kg CO2e/month]

    Parameters
    ----------
    kg_co2e
        Emissions of making the hardware. [kg CO2e]
    life_months
        Months it is amortised over. [months]

    Notes
    -----
    kg CO2e per month = embodied / life, as the straight-line depreciation of capex.

    References
    ----------
    Definition; no outside source (a straight-line spread, as straight-line depreciation).

    Examples
    --------
    One 8-GPU server (5,700 kg without GPUs + 8 × 273 kg) over 36 months:

    >>> round(embodied_per_month(5700 + 8 * 273, 36), 2)
    219.0
    """
    return kg_co2e / life_months


def training_energy_mwh(gpu_hours: Numbers, watts_per_gpu: Numbers, pue: Numbers) -> Values:
    """Facility energy of a training run from its GPU-hours and the power per GPU. [MWh]

    Parameters
    ----------
    gpu_hours
        GPU-hours of the run. [GPU-h]
    watts_per_gpu
        Power per GPU: its TDP (the Llama model cards' method) or a measured average draw. [W]
    pue
        Power usage effectiveness of the data centre. [-]

    Notes
    -----
    E = H · P · PUE / 10⁶ (Patterson et al. 2021; Wu et al. 2022).

    References
    ----------
    .. [1] Patterson et al. (2021), "Carbon Emissions and Large Neural Network Training", arXiv 2104.10350.
    .. [2] Wu et al. (2022), "Sustainable AI", arXiv 2204.05149.

    Examples
    --------
    Llama 3.1 405B: 30.84 M H100-hours at 700 W TDP and PUE 1 (the card's IT energy):

    >>> round(training_energy_mwh(30.84e6, 700, 1.0), 0)
    21588.0
    """
    return gpu_hours * watts_per_gpu * pue / 1e6


def joules_per_output_token(kw_per_gpu: Numbers, output_tokens_per_second_per_gpu: Numbers) -> Values:
    """Energy per output token at full load, in joules: the inverse of tokens per joule. [J/token]

    Parameters
    ----------
    kw_per_gpu
        Facility power per GPU at full load (server max power / GPUs × PUE). [kW/GPU]
    output_tokens_per_second_per_gpu
        Serving throughput at full load. [output tokens/s/GPU]

    Notes
    -----
    J/token = 1000 · P / r; tokens per joule = r / (1000 · P); Wh per 1,000 tokens =
    J/token × 1,000 / 3,600.

    References
    ----------
    Definition; no outside source (a unit conversion: 1 W = 1 J/s).

    Examples
    --------
    An H100 in a DGX (10.2 kW / 8) at PUE 1.56 serving 2,102.5 tokens/s:

    >>> round(joules_per_output_token(10.2 / 8 * 1.56, 2102.5), 4)
    0.946
    """
    return 1000.0 * kw_per_gpu / output_tokens_per_second_per_gpu


def wh_per_1000_tokens(joules_per_token: Numbers) -> Values:
    """Joules per token as watt-hours per 1,000 tokens. [Wh/1,000 tokens]

    References
    ----------
    Definition; no outside source (a unit conversion: 1 Wh = 3,600 J).

    Examples
    --------
    >>> wh_per_1000_tokens(3.6)
    1.0
    """
    return joules_per_token * 1000.0 / 3600.0


def meter_power_kw(servers: Numbers, kw_per_server: Numbers, pue: Numbers) -> Values:
    """Power a fleet can draw at the meter, all servers at their maximum. [kW]

    Parameters
    ----------
    servers
        Servers powered (working and spare). [servers]
    kw_per_server
        Maximum power of one server at the wall. [kW]
    pue
        Power usage effectiveness. [-]

    Notes
    -----
    P_meter = S · P_max · PUE: what a site's power budget must hold.

    References
    ----------
    .. [1] The Green Grid (2007), White Paper #6: PUE = total facility energy / IT equipment energy.

    Examples
    --------
    >>> round(meter_power_kw(3, 10.2, 1.56), 3)
    47.736
    """
    return servers * kw_per_server * pue


def weekly_hour_prices(
    weekday_prices: NumbersOrList, weekend_prices: NumbersOrList, hours: int, first_weekday: int
) -> np.ndarray:
    """The price of each hour of a year from a weekly tariff (weekday and weekend days). [currency/kWh]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    weekday_prices, weekend_prices
        24 prices each, hour 0 (midnight) first. [currency/kWh]
    hours
        Hours in the year. [h]
    first_weekday
        Day of the week of hour 0: 0 Monday ... 6 Sunday. [-]

    Returns
    -------
    numpy.ndarray
        ``hours`` prices. [currency/kWh]

    References
    ----------
    Definition; no outside source (a weekly tariff laid over the calendar).

    Examples
    --------
    >>> p = weekly_hour_prices([0.1] * 24, [0.05] * 24, 48, 4)   # Friday, then Saturday
    >>> float(p[0]), float(p[30])
    (0.1, 0.05)
    """
    hour = np.arange(int(hours))
    day = (hour // 24 + int(first_weekday)) % 7
    weekday = np.asarray(weekday_prices, dtype=float)[hour % 24]
    weekend = np.asarray(weekend_prices, dtype=float)[hour % 24]
    return np.where(day >= 5, weekend, weekday)


def hourly_energy_cost(drawn_kw: NumbersOrList, pue: float, prices_per_kwh: NumbersOrList) -> float:
    """Electricity bill of an hourly draw at hourly prices. [currency]

    Not elementwise: it takes a whole series (cash flows, hours or months) and returns one figure or
    one schedule for it, not one value per input value.

    Parameters
    ----------
    drawn_kw
        IT power drawn in each hour. [kW]
    pue
        Power usage effectiveness. [-]
    prices_per_kwh
        Price in each hour, same length. [currency/kWh]

    Notes
    -----
    cost = Σ_h P_h · PUE · 1 h · price_h.

    References
    ----------
    .. [1] The Green Grid (2007), White Paper #6: PUE = total facility energy / IT equipment energy.

    Examples
    --------
    >>> hourly_energy_cost([10.0, 20.0], 1.5, [0.1, 0.2])
    7.5
    """
    return float(np.sum(np.asarray(drawn_kw, dtype=float) * pue * np.asarray(prices_per_kwh, dtype=float)))


__all__ = [
    "embodied_per_month",
    "emissions_kg",
    "hourly_energy_cost",
    "meter_power_kw",
    "joules_per_output_token",
    "training_energy_mwh",
    "weekly_hour_prices",
    "wh_per_1000_tokens",
]


def it_load_kw(gpus: Numbers, watts_per_gpu: Numbers) -> Values:
    """IT load of a run's GPUs: GPUs × power per GPU. [kW]

    Parameters
    ----------
    gpus
        GPUs running at once. [GPU]
    watts_per_gpu
        Power per GPU: a measured average draw, or the TDP. [W]

    Notes
    -----
    P_IT = n · P / 1000.

    References
    ----------
    Definition; no outside source.

    Examples
    --------
    16,384 H100 at their 700 W TDP:

    >>> it_load_kw(16_384, 700)
    11468.8
    """
    return gpus * watts_per_gpu / 1000.0


def facility_power_kw(it_kw: Numbers, pue: Numbers) -> Values:
    """Power the facility draws for an IT load: IT × PUE. [kW]

    Notes
    -----
    P_facility = P_IT · PUE (The Green Grid 2007: PUE = facility power / IT power).

    References
    ----------
    .. [1] The Green Grid (2007), White Paper #6: PUE = total facility energy / IT equipment energy.

    Examples
    --------
    >>> round(facility_power_kw(11_468.8, 1.08), 3)
    12386.304
    """
    return it_kw * pue


def provisioned_power_kw(facility_kw: Numbers, units: Numbers, spare_units: Numbers = 1) -> Values:
    """Facility power to provision with N+k redundancy: N units carry the load, k more stand by. [kW]

    Parameters
    ----------
    facility_kw
        Facility power the load needs. [kW]
    units
        N: units (UPS modules, generators, feeds) that share the load, ≥ 1. [-]
    spare_units
        k: redundant units of the same size beyond them, ≥ 0 (N+1: 1). [-]

    Notes
    -----
    Each unit is sized P / N, and N + k of them are installed: P_provisioned = P · (N + k) / N.
    2N redundancy is N = k.

    References
    ----------
    .. [1] Uptime Institute, *Tier Standard: Topology* (2018): N+R capacity components (Tier III
       and IV need at least N+1).

    Examples
    --------
    12 MW on four units with one spare (N+1):

    >>> provisioned_power_kw(12_000.0, 4, 1)
    15000.0
    """
    return facility_kw * (units + spare_units) / units

"""Energy, emissions and power of every option: kWh and kg CO2e a month, per run, per million tokens.

* Own cluster: the drawn-power model of the electricity cost (idle share, utilisation, spares
  idle) × PUE, so energy × the flat price is exactly the electricity component; derived.
* Cloud rental: the same physics for the rented GPUs (power per GPU from a catalog server
  holding that GPU), at the provider's PUE (an input, default an industry average row of
  data/datacenter_pue.csv); an estimate.
* Hosted API: energy per 1,000 output tokens from data/api_energy.csv (EcoLogits' methodology,
  a range); an estimate; a model it does not cover is said so.

Emissions: location-based = energy × the grid's intensity (data/grid_carbon_intensity.csv);
market-based = energy × a contracted intensity; embodied = the hardware's manufacturing
emissions (data/embodied_emissions.csv) straight-line over its life.
"""

from __future__ import annotations

import numpy as np

from .. import formulas
from ..catalog import Catalog
from ..errors import ScenarioError
from ..formulas.shapes import scalar
from ..resolved import OwnOption, Resolved, as_resolved
from ..results import EnergyResult, OptionEnergy, PowerCheck, TariffBill, TrainingEnergy, TrainingRun
from ..schema import Scenario
from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .capacity import api_option, gpu_hours_used, own_option, own_servers, rent_gpus, rent_option, tokens_per_month
from .training import rental_pue

SERVER_ITEM, GPU_ITEM = "server-without-gpus", "gpu"


def _intensity(catalog: Catalog, region: str | None) -> float | None:
    return None if region is None else catalog.grid_intensity[region].kg_co2e_per_kwh


def _embodied_per_gpu(catalog: Catalog, gpus_per_server: int) -> tuple[float | None, float | None]:
    """Embodied emissions per GPU with its share of the server [kg CO2e/GPU], and the source's life [months]."""
    server, gpu = catalog.embodied.get(SERVER_ITEM), catalog.embodied.get(GPU_ITEM)
    if server is None or gpu is None:
        return None, None
    return server.kg_co2e / gpus_per_server + gpu.kg_co2e, gpu.life_years * MONTHS_PER_YEAR


def _per_million(r: Resolved, volume: float, kg: float | None) -> float | None:
    if r.workload.kind != "tokens" or kg is None:
        return None
    millions = float(tokens_per_month(r, volume)) / 1e6
    return kg / millions if millions > 0 else None


def _per_token(r: Resolved, volume: float, kwh: float | None, kw_per_gpu: float) -> tuple[float | None, float | None]:
    """Wh per 1,000 output tokens at the volume, and output tokens per joule at full load."""
    if r.workload.kind != "tokens" or kwh is None:
        return None, None
    output = float(tokens_per_month(r, volume)) * float(r.workload.output_share)
    capacity = r.workload.capacity
    assert capacity is not None, "a tokens workload is resolved with its serving capacity"
    rate = float(capacity.output_tokens_per_second_per_gpu)
    per_joule = 1.0 / scalar(formulas.joules_per_output_token(kw_per_gpu, rate))
    return (kwh * 1000.0 / output * 1000.0 if output > 0 else None), per_joule


def own_energy(r: Resolved, volume: float) -> OptionEnergy:
    """Energy and emissions of the own cluster at a volume (derived from its power inputs)."""
    own = own_option(r)
    energy = r.scenario.energy
    servers = float(own_servers(r, volume))
    bought = scalar(formulas.servers_with_spares(servers, own.spare_share))
    hours = float(gpu_hours_used(r, volume))
    busy = hours / (bought * own.gpus_per_server * HOURS_PER_MONTH)
    drawn = bought * formulas.drawn_power_kw(own.kw_per_server, own.idle_power_share, busy)
    kwh = scalar(formulas.facility_energy_kwh(drawn, own.pue))
    region = energy.grid_region if energy is not None else None
    intensity = _intensity(r.catalog, region)
    per_gpu, _ = _embodied_per_gpu(r.catalog, own.gpus_per_server)
    notes = [
        f"IT power {scalar(drawn):,.1f} kW drawn on average by {bought:g} servers x {own.kw_per_server:g} kW max, "
        f"PUE {float(own.pue):g}"
    ]
    operational = embodied = market = None
    if intensity is not None and region is not None:  # an intensity is read only for a region
        operational = scalar(formulas.emissions_kg(kwh, intensity))
        notes.append(f"grid: {r.catalog.grid_intensity[region].citation()}")
        if per_gpu is not None:
            embodied = scalar(
                formulas.embodied_per_month(bought * own.gpus_per_server * per_gpu, own.depreciation_months)
            )
            notes.append(
                f"embodied: {per_gpu:,.1f} kg CO2e per GPU with its server share, over the "
                f"{float(own.depreciation_months):g}-month depreciation period"
            )
    if energy is not None and energy.market_kg_co2e_per_kwh is not None:
        market = scalar(formulas.emissions_kg(kwh, energy.market_kg_co2e_per_kwh))
    total = None if operational is None or embodied is None else operational + embodied
    wh, per_joule = _per_token(r, volume, kwh, own.kw_per_server / own.gpus_per_server * float(own.pue))
    return OptionEnergy(
        "own",
        own.label,
        "own",
        "derived",
        kwh,
        None,
        operational,
        embodied,
        market,
        _per_million(r, volume, total),
        wh,
        per_joule,
        tuple(notes),
    )


def _gpu_kw(r: Resolved) -> tuple[float, int, str]:
    """Max power per GPU at the wall [kW], GPUs per server, and the source.

    From the first catalog server holding the workload's GPU; with none, the GPU's TDP in an
    8-GPU server (EcoLogits' server size).
    """
    gpu = r.workload.gpu
    for server in r.catalog.servers.values():
        if server.gpu == gpu.gpu:
            return (
                server.max_power_kw / server.gpus_per_server,
                server.gpus_per_server,
                f"{server.citation()} (max kW / GPUs)",
            )
    return gpu.tdp_w / 1000.0, 8, f"{gpu.citation()} (TDP only: no server row holds this GPU)"


def rent_energy(r: Resolved, volume: float, option: str = "rent") -> OptionEnergy:
    """Energy and emissions of the rented GPUs at a volume (an estimate: the provider's PUE is not measured)."""
    rent = rent_option(r, option)
    energy = r.scenario.energy
    kw_gpu, per_server, kw_source = _gpu_kw(r)
    if energy is not None and energy.rent_pue is not None:
        pue, pue_source = energy.rent_pue, "energy.rent_pue"
    else:
        row = r.catalog.datacenter_pue.get(energy.rent_pue_row if energy is not None else "uptime-2024-average")
        pue, pue_source = (row.pue, f"ESTIMATE from {row.citation()}") if row is not None else (1.0, "no PUE row")
    hours = float(gpu_hours_used(r, volume))
    notes = [f"power per GPU {kw_gpu:.4g} kW: {kw_source}", f"provider PUE {pue:g}: {pue_source}"]
    if rent.billing == "always_on":
        gpus = float(rent_gpus(r, volume, option))
        own = r.options.get("own")
        idle = float(own.idle_power_share) if isinstance(own, OwnOption) else 0.0
        busy = hours / (gpus * HOURS_PER_MONTH) if gpus > 0 else 0.0
        drawn = gpus * formulas.drawn_power_kw(kw_gpu, idle, busy)
        held = gpus
        notes.append(
            f"{gpus:g} GPUs held 24/7, idle share {idle:g}"
            + (" (the own option's)" if own is not None else " (none given: idle draw left out)")
        )
    else:
        drawn = hours / HOURS_PER_MONTH * kw_gpu
        held = hours / HOURS_PER_MONTH
        notes.append("billed per GPU-hour used: the GPUs draw full power while used; idle hours are the provider's")
    kwh = scalar(formulas.facility_energy_kwh(drawn, pue))
    region = None
    if energy is not None:
        region = energy.rent_grid_region or energy.grid_region
    intensity = _intensity(r.catalog, region)
    per_gpu, life = _embodied_per_gpu(r.catalog, per_server)
    operational = embodied = market = None
    if intensity is not None and region is not None:  # an intensity is read only for a region
        operational = scalar(formulas.emissions_kg(kwh, intensity))
        notes.append(f"grid: {r.catalog.grid_intensity[region].citation()}")
        if per_gpu is not None and life is not None:  # both come from the same two rows
            embodied = scalar(formulas.embodied_per_month(held * per_gpu, life))
            notes.append(
                f"embodied: {per_gpu:,.1f} kg CO2e per GPU ({per_server}-GPU server share) over "
                f"{life:g} months, for {held:,.2f} GPUs held"
            )
    total = None if operational is None or embodied is None else operational + embodied
    wh, per_joule = _per_token(r, volume, kwh, kw_gpu * pue)
    return OptionEnergy(
        option,
        rent.label,
        "rent",
        "estimate",
        kwh,
        None,
        operational,
        embodied,
        market,
        _per_million(r, volume, total),
        wh,
        per_joule,
        tuple(notes),
    )


def api_energy(r: Resolved, volume: float, option: str = "api") -> OptionEnergy:
    """Energy and emissions of the hosted API at a volume, from data/api_energy.csv (an estimate with a range)."""
    api = api_option(r, option)
    row = r.catalog.api_energy.get(api.offer.offer)
    if row is None:
        return OptionEnergy(
            option,
            api.label,
            "api",
            "estimate",
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            (
                f"not covered: data/api_energy.csv has no row for {api.offer.offer} "
                f"({api.offer.provider}, {api.offer.model}); its rows come from EcoLogits "
                "(scripts/make_api_energy.py), which has no figures for this provider's model",
            ),
        )
    output_thousands = float(tokens_per_month(r, volume)) * float(r.workload.output_share) / 1000.0
    low = output_thousands * row.wh_per_1000_output_tokens_low / 1000.0
    high = output_thousands * row.wh_per_1000_output_tokens_high / 1000.0
    kwh = (low + high) / 2.0
    intensity = r.catalog.grid_intensity[row.grid_region].kg_co2e_per_kwh  # the row's region is checked on loading
    operational = scalar(formulas.emissions_kg(kwh, intensity))
    embodied = (
        output_thousands
        * (row.embodied_g_co2e_per_1000_output_tokens_low + row.embodied_g_co2e_per_1000_output_tokens_high)
        / 2.0
        / 1000.0
    )
    notes = (
        f"ESTIMATE: midpoint of {row.wh_per_1000_output_tokens_low:g}-{row.wh_per_1000_output_tokens_high:g} Wh "
        f"per 1,000 output tokens, provider PUE {row.pue_low:g}-{row.pue_high:g} included: {row.citation()}",
        f"grid of the provider: {r.catalog.grid_intensity[row.grid_region].citation()}",
    )
    wh = (row.wh_per_1000_output_tokens_low + row.wh_per_1000_output_tokens_high) / 2.0
    return OptionEnergy(
        option,
        api.label,
        "api",
        "estimate",
        kwh,
        (low, high),
        operational,
        embodied,
        None,
        _per_million(r, volume, operational + embodied),
        wh,
        None,
        notes,
    )


def power_check(r: Resolved, volume: float) -> PowerCheck | None:
    """The own cluster's power at the meter against the budget, or None without a budget.

    Raises
    ------
    ScenarioError
        The own fleet at the volume needs more power than ``energy.power_budget_kw``
        (the message names the budget, the power needed and the most servers that fit).
    """
    energy = r.scenario.energy
    if energy is None or energy.power_budget_kw is None or "own" not in r.options:
        return None
    own = own_option(r)
    budget = float(energy.power_budget_kw)
    servers = float(own_servers(r, volume))
    bought = int(np.ceil(scalar(formulas.servers_with_spares(servers, own.spare_share)) - 1e-9))
    per_server = scalar(formulas.meter_power_kw(1, own.kw_per_server, own.pue))
    needed = bought * per_server
    fit_bought = int(np.floor(budget / per_server + 1e-9))
    fit = int(np.floor(fit_bought / (1.0 + float(own.spare_share)) + 1e-9))
    if needed > budget:
        raise ScenarioError(
            None,
            [
                (
                    "energy.power_budget_kw",
                    budget,
                    f"the own cluster at {volume:,.0f} {r.volume_unit} powers {bought} servers x "
                    f"{own.kw_per_server:g} kW x PUE {float(own.pue):g} = {needed:,.1f} kW at the meter, above the "
                    f"power budget of {budget:,.1f} kW; at most {fit} working servers ({fit * own.gpus_per_server} "
                    "GPUs) fit: raise the budget, lower the volume or the server count",
                )
            ],
        )
    return PowerCheck(budget, needed, budget - needed, bought, fit, fit * own.gpus_per_server)


def tariff_bill(r: Resolved, volume: float | None = None) -> TariffBill | None:
    """The own cluster's electricity at the time-of-use tariff, hour by hour over the demand profile.

    The own option's electricity cost already uses the tariff (its idle draw at the tariff's
    yearly mean, the draw above idle weighted by the demand's hours); this bill spells it out
    hour by hour and sets it beside the flat price for the same draw. The own fleet (sized for
    the profile's busiest hour) serves up to its working capacity each hour; demand above it is
    counted as unserved. Hour 0 is midnight of 1 January of the job log's year (other
    profiles: a year starting on a Monday).
    """
    energy = r.scenario.energy
    if energy is None or energy.tariff is None or r.demand is None or "own" not in r.options:
        return None
    from .mix import hourly_demand  # the mix module builds the hourly series; imported here to keep it lazy

    own = own_option(r)
    v = r.volume if volume is None else volume
    prices = np.asarray(own.tariff_prices, dtype=float)
    shape = r.demand.shape
    average = float(gpu_hours_used(r, v)) / HOURS_PER_MONTH
    demand = average * shape if volume is not None else np.asarray(hourly_demand(r), dtype=float)
    count = demand.size
    servers = float(own_servers(r, v))
    bought = scalar(formulas.servers_with_spares(servers, own.spare_share))
    capacity = servers * own.gpus_per_server
    served = np.minimum(demand, capacity)
    drawn = bought * formulas.drawn_power_kw(
        own.kw_per_server, own.idle_power_share, served / (bought * own.gpus_per_server)
    )
    months = count / HOURS_PER_MONTH
    cost = formulas.hourly_energy_cost(drawn, own.pue, prices) / months
    power = r.scenario.options.own.power if r.scenario.options.own is not None else None
    assert power is not None, "an own option is resolved with its power block"
    flat_price = float(power.electricity_price_per_kwh * r.scenario.fx_rate(power.currency))
    flat = formulas.hourly_energy_cost(drawn, own.pue, np.full(count, flat_price)) / months
    kwh = float(np.sum(formulas.facility_energy_kwh(drawn, own.pue, 1.0))) / months
    return TariffBill(cost, flat, kwh, float(np.sum(demand - served)) / months, energy.tariff.source)


def training_energy(r: Resolved, run: TrainingRun) -> TrainingEnergy:
    """Energy and emissions of a training run with each option, and by the model cards' method beside them.

    Each option's figure comes from the same power model as its monthly energy (and, for the
    own cluster, its electricity cost): the option's energy a month with the cluster busy,
    times the run's months; emissions split into operational (the grid) and embodied (the
    hardware's manufacture over the run's months). The model cards' method (Wu et al. 2022;
    the Llama 3.1 model card) is set beside them for comparison with published figures:
    GPU-hours × the GPU's TDP × PUE, the own option's PUE, else the rental provider's; with
    ``workload.power.measured_power_per_gpu_w``, the measured power instead of the TDP.

    The run's power: IT load = cluster GPUs × that power per GPU, facility power = IT × PUE,
    and with N+k redundancy (``workload.power.redundancy_units`` N, ``spare_units`` k) the
    provisioned facility power = facility × (N + k) / N
    (:func:`costmodel.formulas.provisioned_power_kw`).
    """
    energy = r.scenario.energy
    gpu = r.workload.gpu
    own = r.options.get("own")
    if isinstance(own, OwnOption):
        pue, pue_note = float(own.pue), "the own option's PUE"
    else:
        pue = rental_pue(r)
        pue_note = "the rental provider's PUE (estimate)"
    inputs = r.workload.training
    measured = inputs.measured_watts_per_gpu if inputs is not None else None
    watts = float(gpu.tdp_w if measured is None else measured)
    mwh = scalar(formulas.training_energy_mwh(run.gpu_hours, watts, pue))
    it_kw = scalar(formulas.it_load_kw(inputs.cluster_gpus, watts)) if inputs is not None else None
    facility_kw = None if it_kw is None else scalar(formulas.facility_power_kw(it_kw, pue))
    redundancy = inputs.redundancy if inputs is not None else None
    provisioned = (
        None
        if redundancy is None or facility_kw is None
        else scalar(formulas.provisioned_power_kw(facility_kw, *redundancy))
    )
    region = energy.grid_region if energy is not None else None
    intensity = _intensity(r.catalog, region)
    co2e = None if intensity is None else scalar(formulas.emissions_kg(mwh * 1000.0, intensity)) / 1000.0
    market = None
    if energy is not None and energy.market_kg_co2e_per_kwh is not None:
        market = scalar(formulas.emissions_kg(mwh * 1000.0, energy.market_kg_co2e_per_kwh)) / 1000.0
    power_words = (
        f"{gpu.tdp_w:g} W TDP ({gpu.citation()})"
        if measured is None
        else f"{watts:g} W measured per GPU (workload.power; TDP {gpu.tdp_w:g} W)"
    )
    notes = [
        f"model cards' method: {run.gpu_hours:,.0f} GPU-hours x {power_words} x PUE {pue:g} ({pue_note})",
        f"each option: its energy a month with the cluster busy x the run's {run.months:,.2f} months (the power "
        "model of its electricity cost)",
    ]
    if intensity is not None and region is not None:  # an intensity is read only for a region
        notes.append(f"grid: {r.catalog.grid_intensity[region].citation()}")
    by_option = {}
    for name, option in r.options.items():
        if option.kind == "api":
            continue
        e = own_energy(r, r.volume) if option.kind == "own" else rent_energy(r, r.volume, name)
        tonnes = lambda kg: None if kg is None else kg * run.months / 1000.0  # noqa: E731
        kwh_per_month = e.energy_kwh_per_month
        assert kwh_per_month is not None, "own and rented GPUs' energy is derived from their power"
        by_option[name] = (
            e.basis,
            kwh_per_month * run.months / 1000.0,
            tonnes(e.operational_co2e_kg_per_month),
            tonnes(e.embodied_co2e_kg_per_month),
        )
    if provisioned is not None and redundancy is not None:
        notes.append(
            f"power: IT load {it_kw:,.1f} kW, facility {facility_kw:,.1f} kW, provisioned "
            f"{provisioned:,.1f} kW with N+{redundancy[1]} redundancy on {redundancy[0]} units"
        )
    return TrainingEnergy(
        run.gpu_hours,
        watts,
        pue,
        mwh,
        intensity,
        co2e,
        market,
        tuple(notes),
        by_option,
        "tdp" if measured is None else "measured",
        it_kw,
        facility_kw,
        provisioned,
    )


_BY_KIND = {"own": own_energy, "rent": rent_energy, "api": api_energy}


def energy_result(
    scenario: Scenario | Resolved, volume: float | None = None, run: TrainingRun | None = None
) -> EnergyResult:
    """Energy, emissions and power of every option at a volume.

    Parameters
    ----------
    scenario
        The scenario, resolved or not.
    volume
        Default: the scenario's. [workload's volume unit]
    run
        The training run, for a training workload (its energy and emissions per run).

    Raises
    ------
    ScenarioError
        The own fleet needs more power than the scenario's power budget (see :func:`power_check`).

    Examples
    --------
    >>> import costmodel
    >>> e = energy_result(costmodel.load_scenario("h200-24gpu-cluster"))
    >>> round(e.options["own"].energy_kwh_per_month)     # 4 DGX H200 for the campaigns' peak
    30647
    """
    r = as_resolved(scenario)
    v = r.volume if volume is None else float(volume)
    options = {
        name: (_BY_KIND[option.kind](r, v) if option.kind == "own" else _BY_KIND[option.kind](r, v, name))
        for name, option in r.options.items()
    }
    sources = sorted(
        {note.split(": ", 1)[1] for e in options.values() for note in e.notes if note.startswith("grid: ")}
    )
    return EnergyResult(
        options=options,
        power=power_check(r, v),
        tariff=tariff_bill(r, v),
        training=training_energy(r, run) if run is not None else None,
        sources=tuple(sources),
    )

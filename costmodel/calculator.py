"""Monthly cost of each option, cost per unit of work, and break-even volumes.

Conventions (see also :mod:`costmodel.units`):

* A month is 730 hours (8,760 / 12) and 365 / 12 days.
* The *volume* is the workload's own unit: GPU-hours per month for a ``gpu_hours``
  workload, tokens per day (input plus output) for a ``tokens`` workload.
* Costs are per month, in the scenario's reporting currency, positive = money out.
* Every cost function takes a scalar or a numpy array of volumes and broadcasts: a
  sweep over 1,000 volumes is one call. A scalar in gives a float out.

GPU count. The own and rented options start from the GPUs the scenario gives them.
When a volume needs more GPUs than that (GPU-hours needed / (730 h × sizing
utilisation)), the count steps up, in whole servers holding whole model replicas for
the own option and in whole replicas for rental, and every cost that scales with the
count steps up with it. Costs are
therefore piecewise linear in volume, with jumps where the count steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .models import CloudRental, HostedAPI, Scenario, TokensWorkload
from .units import DAYS_PER_MONTH, HOURS_PER_MONTH, MONTHS_PER_YEAR, SECONDS_PER_HOUR, TOKENS_PER_MILLION

OPTIONS: tuple[str, ...] = ("own", "rent", "api")
"""Option keys, in display order."""

OPTION_LABELS: dict[str, str] = {"own": "Own cluster", "rent": "Cloud rental", "api": "Hosted API"}
"""Display names of the options."""

_EPSILON = 1e-9  # tolerance for ceil() on GPU counts and for "equal" costs


MAX_STEPS: int = 1_000_000
"""Most GPU-count steps one break-even search walks through, per option."""


def _checked(volume) -> np.ndarray:
    """Volumes as a float array; every one must be finite and >= 0."""
    v = np.asanyarray(volume, dtype=float)
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        bad = v[~(np.isfinite(v) & (v >= 0))].ravel()[0]
        raise ValueError(f"volumes must be finite and >= 0, got {bad}")
    return v


def _out(volume, result):
    """Return a float for a scalar volume, an array otherwise."""
    return float(result) if np.ndim(volume) == 0 else result


def present_options(scenario: Scenario) -> list[str]:
    """Keys of the options the scenario holds, in display order."""
    return [name for name in OPTIONS if getattr(scenario.options, name) is not None]


# --- work -------------------------------------------------------------------------------

def gpu_hours_used(scenario: Scenario, volume):
    """GPU-hours of work per month at a volume.

    Parameters
    ----------
    scenario
        The scenario; its workload sets the conversion.
    volume
        GPU-hours per month [GPU-h/month] or tokens per day [tokens/day], scalar or array.

    Returns
    -------
    float or numpy.ndarray
        GPU-hours used per month. [GPU-h/month]

    Notes
    -----
    For tokens: output tokens per month / (output tokens/s per GPU × 3,600 s/h), where
    output tokens per month = tokens/day × 365/12 × output share.
    """
    v = _checked(volume)
    work = scenario.workload
    if isinstance(work, TokensWorkload):
        output_tokens = v * DAYS_PER_MONTH * work.output_share
        result = output_tokens / (work.throughput_per_gpu * SECONDS_PER_HOUR)
    else:
        result = v
    return _out(volume, result)


def tokens_per_month(scenario: Scenario, volume):
    """Tokens per month at a volume of a tokens workload. [tokens/month]

    Raises
    ------
    ValueError
        The workload is stated in GPU-hours, not tokens.
    """
    if not isinstance(scenario.workload, TokensWorkload):
        raise ValueError("tokens per month is defined only for a tokens workload")
    return _out(volume, _checked(volume) * DAYS_PER_MONTH)


def gpus_needed(scenario: Scenario, volume):
    """GPUs the volume needs, before rounding. [GPU]

    GPUs needed = GPU-hours used per month / (730 h × sizing utilisation), where the
    sizing utilisation is the workload's maximum utilisation, or for served models the
    target utilisation over the peak-to-average ratio (the fleet is sized for the peak).
    """
    hours = np.asanyarray(gpu_hours_used(scenario, volume), dtype=float)
    return _out(volume, hours / (HOURS_PER_MONTH * scenario.workload.sizing_utilisation))


def _gpus_per_volume(scenario: Scenario) -> float:
    """GPUs needed per unit of volume (the model is linear through zero)."""
    return float(gpus_needed(scenario, 1.0))


def _whole_units(needed, unit: int, minimum: int):
    units = np.ceil(np.asanyarray(needed, dtype=float) / unit - _EPSILON)
    return np.maximum(units, minimum)


def own_step_gpus(scenario: Scenario) -> int:
    """GPUs the own cluster adds at a time: whole servers holding whole replicas. [GPU]

    The least common multiple of GPUs per server and GPUs per model replica.
    """
    return math.lcm(scenario.options.own.server_spec.gpus_per_server, scenario.workload.gpus_per_replica)


def own_server_count(scenario: Scenario, volume):
    """Servers the own option runs at a volume: the scenario's count, or more if needed. [servers]"""
    own = _require(scenario.options.own, "own")
    step = own_step_gpus(scenario)
    per_server = own.server_spec.gpus_per_server
    steps = _whole_units(gpus_needed(scenario, volume), step, 0)
    return _out(volume, np.maximum(steps * (step // per_server), own.server_count))


def rent_gpu_count(scenario: Scenario, volume):
    """GPUs the rent option holds at a volume. [GPU]

    always_on: the scenario's count, or more if the volume needs more;
    per_gpu_hour_used: the GPUs the volume needs, rounded up (no minimum).
    """
    rent = _require(scenario.options.rent, "rent")
    minimum = rent.gpu_count if rent.billing == "always_on" else 0
    replica = scenario.workload.gpus_per_replica
    return _out(volume, np.maximum(_whole_units(gpus_needed(scenario, volume), replica, 0) * replica, minimum))


def gpu_count(scenario: Scenario, option: str, volume):
    """GPUs an option runs at a volume (own: servers × GPUs per server). [GPU]

    The hosted API has no GPUs of the buyer's: its count is 0.
    """
    if option == "own":
        servers = own_server_count(scenario, volume)
        return _out(volume, np.asanyarray(servers) * scenario.options.own.server_spec.gpus_per_server)
    if option == "rent":
        return rent_gpu_count(scenario, volume)
    return _out(volume, np.zeros_like(np.asanyarray(volume, dtype=float)))


def capacity_volume(scenario: Scenario, option: str) -> float | None:
    """Largest volume the option's configured GPUs serve without stepping up.

    Returns
    -------
    float or None
        In the workload's volume unit; ``None`` when the option has no fixed GPU count:
        the hosted API, and rental billed per GPU-hour used.
    """
    if option == "own":
        own = scenario.options.own
        gpus = own.server_count * own.server_spec.gpus_per_server
    elif option == "rent" and scenario.options.rent.billing == "always_on":
        gpus = scenario.options.rent.gpu_count
    else:
        return None
    return gpus / _gpus_per_volume(scenario)


def step_volumes(scenario: Scenario, option: str, volume_max: float) -> np.ndarray:
    """Volumes up to ``volume_max`` just above which the option's cost steps up.

    The rented GPUs billed per GPU-hour used have no step in cost, so none is listed.

    Raises
    ------
    ValueError
        The range holds more than :data:`MAX_STEPS` steps.
    """
    per_volume = _gpus_per_volume(scenario)
    if option == "own":
        own = scenario.options.own
        unit, configured = own_step_gpus(scenario), own.server_count * own.server_spec.gpus_per_server
    elif option == "rent" and scenario.options.rent.billing == "always_on":
        unit, configured = scenario.workload.gpus_per_replica, scenario.options.rent.gpu_count
    else:
        return np.empty(0)
    if per_volume == 0:
        return np.empty(0)
    first = math.ceil(configured / unit)
    last = np.floor(volume_max * per_volume / unit + _EPSILON)
    if not np.isfinite(last) or last - first > MAX_STEPS:
        raise ValueError(
            f"up to {volume_max:g} the {OPTION_LABELS[option]} GPU count steps more than {MAX_STEPS:,} times "
            f"({unit} GPU{'s' if unit > 1 else ''} a step); search a smaller volume range")
    # the count steps just above the configured GPUs, then at every further whole step
    gpus = np.concatenate([[configured], np.arange(first, max(int(last), first - 1) + 1) * unit]).astype(float)
    gpus = np.unique(gpus[gpus >= configured])
    return gpus / per_volume


# --- costs ------------------------------------------------------------------------------

def _require(option, name):
    if option is None:
        raise ValueError(f"the scenario has no {name!r} option")
    return option


def _staffing_month(scenario: Scenario, staffing, gpus):
    """Monthly cost of the people (and any managed-service fee) for a number of GPUs. [reporting currency/month]"""
    if staffing is None:
        return 0.0
    people = staffing.fte_for(gpus) * staffing.loaded_cost_per_fte_per_year / MONTHS_PER_YEAR
    return (people + staffing.managed_service_per_month) * scenario.fx_rate(staffing.currency)


def own_capex_lines(scenario: Scenario, servers) -> dict[str, np.ndarray]:
    """Hardware capex of the own cluster by bill-of-materials line. [reporting currency]

    Parameters
    ----------
    scenario
        Scenario with an ``own`` option.
    servers
        Working servers bought, scalar or array (hot spares are added to them). [servers]

    Returns
    -------
    dict of str to numpy.ndarray
        ``servers`` (working and spare: S·(1 + spare share)·price), then one entry per
        bill-of-materials line: per server × S·(1 + spare share), share × server capex,
        or the total.
    """
    own = _require(scenario.options.own, "own")
    spec = own.server_spec
    bought = np.asanyarray(servers, dtype=float) * (1.0 + own.spare_share)
    server_capex = bought * spec.price * scenario.fx_rate(spec.currency)
    lines = {"servers": server_capex}
    for line in own.bill_of_materials:
        if line.share_of_server_price is not None:
            value = server_capex * line.share_of_server_price
        elif line.price_per_server is not None:
            value = bought * line.price_per_server * scenario.fx_rate(line.currency)
        else:
            value = np.zeros_like(server_capex) + line.price_total * scenario.fx_rate(line.currency)
        lines[line.item] = lines.get(line.item, 0.0) + value
    return lines


def own_facility_capex(scenario: Scenario, servers):
    """Build cost of an own data hall sized for the servers' maximum power. [reporting currency]

    MW provisioned = servers (with spares) × max kW per server / 1,000; zero with colocation.
    """
    own = _require(scenario.options.own, "own")
    bought = np.asanyarray(servers, dtype=float) * (1.0 + own.spare_share)
    if own.facility is None:
        return np.zeros_like(bought)
    return bought * own.kw_per_server / 1000.0 * own.facility.price_per_mw * scenario.fx_rate(own.facility.currency)


def own_costs_at(scenario: Scenario, servers, gpu_hours) -> dict[str, np.ndarray]:
    """Monthly cost components of the own cluster with given servers and GPU-hours used.

    The accrual view: capex enters as straight-line depreciation. Used by
    :func:`own_monthly_costs` (servers from the volume) and by the finance module.

    Parameters
    ----------
    servers
        Working servers, scalar or array. [servers]
    gpu_hours
        GPU-hours used in the month, same shape. [GPU-h/month]

    Returns
    -------
    dict of str to numpy.ndarray
        [reporting currency/month]; see :func:`own_monthly_costs`.
    """
    own = _require(scenario.options.own, "own")
    spec = own.server_spec
    servers = np.asanyarray(servers, dtype=float)
    hours = np.asanyarray(gpu_hours, dtype=float)
    bought = servers * (1.0 + own.spare_share)
    hardware = sum(own_capex_lines(scenario, servers).values())
    kw = own.kw_per_server
    power = own.power
    drawn_kw = kw * (bought * power.idle_power_share
                     + (1.0 - power.idle_power_share) * hours / (spec.gpus_per_server * HOURS_PER_MONTH))
    gpus = bought * spec.gpus_per_server
    staff = own.staffing
    parts = {
        "capex depreciation": hardware / own.depreciation_months,
        "hardware support": hardware * own.hardware_support_share_per_year / MONTHS_PER_YEAR,
    }
    if own.facility is not None:
        parts["facility depreciation"] = own_facility_capex(scenario, servers) / own.facility.depreciation_months
    else:
        parts["colocation"] = bought * kw * own.colocation.price_per_kw_month * scenario.fx_rate(own.colocation.currency)
    parts["electricity"] = (drawn_kw * power.pue * HOURS_PER_MONTH * power.electricity_price_per_kwh
                            * scenario.fx_rate(power.currency))
    parts["staffing"] = (staff.fte_for(gpus) * staff.loaded_cost_per_fte_per_year / MONTHS_PER_YEAR
                         * scenario.fx_rate(staff.currency))
    if np.any(np.asanyarray(staff.managed_service_per_month) > 0):
        parts["managed service"] = np.zeros_like(servers) + staff.managed_service_per_month * scenario.fx_rate(staff.currency)
    if own.software_licences is not None:
        licences = own.software_licences
        parts["software licences"] = (gpus * licences.price_per_gpu_per_year / MONTHS_PER_YEAR
                                      * scenario.fx_rate(licences.currency))
    shape = np.broadcast_shapes(np.shape(servers), np.shape(hours), *(np.shape(v) for v in parts.values()))
    return {name: np.broadcast_to(np.asanyarray(value, dtype=float), shape).copy() for name, value in parts.items()}


def own_monthly_costs(scenario: Scenario, volume) -> dict[str, np.ndarray]:
    """Monthly cost components of the own cluster at a volume.

    Parameters
    ----------
    scenario
        Scenario with an ``own`` option.
    volume
        Workload volume, scalar or array. [GPU-h/month or tokens/day]

    Returns
    -------
    dict of str to numpy.ndarray
        ``capex depreciation``, ``hardware support``, ``colocation`` (or ``facility
        depreciation``), ``electricity``, ``staffing``, and where the scenario has them
        ``managed service`` and ``software licences``; each [reporting currency/month],
        shaped like ``volume``.

    Notes
    -----
    With S working servers (stepped up as needed), spare share q (so B = S·(1 + q)
    servers bought), hardware capex C (servers plus bill of materials, see
    :func:`own_capex_lines`), depreciation period N months, support share s per year,
    max power K kW per server, idle share i, PUE u, electricity price e, colocation
    price c per kW-month, G GPUs per server and GPU-hours used H:

    * capex depreciation = C / N (straight line, no residual value);
    * hardware support = C·s / 12;
    * colocation = B·K·c (provisioned capacity, not drawn power); or, with an own
      facility, facility depreciation = B·K/1000·(price per MW) / (its life in months);
    * electricity = K·u·e·730·(B·i + (1 − i)·H / (G·730)): the spares idle, the working
      servers draw in proportion to their utilisation H / (S·G·730);
    * staffing = FTE(B·G) × loaded yearly cost / 12, plus any managed-service fee;
    * software licences = B·G × price per GPU per year / 12.

    References
    ----------
    .. [1] NVIDIA DGX H100/H200 User Guide: 10.2 kW maximum system power.
    .. [2] Uptime Institute, Global Data Center Survey 2024: average PUE 1.56.
    """
    v = _checked(volume)
    servers = np.asanyarray(own_server_count(scenario, v), dtype=float)
    hours = np.asanyarray(gpu_hours_used(scenario, v), dtype=float)
    return own_costs_at(scenario, servers, hours)


def rent_monthly_costs(scenario: Scenario, volume) -> dict[str, np.ndarray]:
    """Monthly cost components of cloud rental at a volume.

    Returns
    -------
    dict of str to numpy.ndarray
        ``GPU rental`` and ``staffing`` [reporting currency/month].

    Notes
    -----
    always_on: GPUs (stepped up as needed) × price per GPU-hour × 730 h.
    per_gpu_hour_used: GPU-hours used × price per GPU-hour.
    Staffing: FTEs for the GPUs held (a fixed number, or a minimum plus one per N GPUs)
    × loaded yearly cost / 12, plus any managed-service fee.
    """
    rent: CloudRental = _require(scenario.options.rent, "rent")
    v = _checked(volume)
    price = rent.offer_spec.price_per_gpu_hour * scenario.fx_rate(rent.offer_spec.currency)
    gpus = np.asanyarray(rent_gpu_count(scenario, v), dtype=float)
    if rent.billing == "always_on":
        rental = gpus * price * HOURS_PER_MONTH
    else:
        rental = np.asanyarray(gpu_hours_used(scenario, v), dtype=float) * price
    staffing = np.zeros_like(v) + _staffing_month(scenario, rent.staffing, gpus)
    rental, staffing = np.broadcast_arrays(np.asanyarray(rental, dtype=float), staffing)
    return {"GPU rental": rental.copy(), "staffing": staffing.copy()}


def _cached_input_price(offer) -> float:
    """Price of cached input tokens; the input price where the offer lists none. [offer currency/M tokens]"""
    return offer.cached_input_per_million if offer.cached_input_per_million is not None else offer.input_per_million


def api_price_per_million(api: HostedAPI, workload: TokensWorkload) -> float:
    """Blended API price per million tokens of the workload's mix. [offer currency/M tokens]

    Blended = input share × ((1 − cached share) × input price + cached share × cached price)
    + output share × output price.

    Examples
    --------
    Reference case R1: $5 in / $25 out at a 2:1 input:output mix (cases.md).

    >>> from costmodel.models import HostedAPI, TokensWorkload
    >>> api = HostedAPI(offer="anthropic-claude-opus-4-5")
    >>> work = TokensWorkload(kind="tokens", gpu="H100-SXM-80GB", tokens_per_day=1e7,
    ...     input_tokens_per_output_token=2, output_tokens_per_second_per_gpu=1000,
    ...     throughput_source="example")
    >>> round(api_price_per_million(api, work), 4)
    11.6667
    """
    offer = api.offer_spec
    cached_price = _cached_input_price(offer)
    input_share = 1.0 - workload.output_share
    input_price = (1 - api.cached_input_share) * offer.input_per_million + api.cached_input_share * cached_price
    return input_share * input_price + workload.output_share * offer.output_per_million


def api_monthly_costs(scenario: Scenario, volume) -> dict[str, np.ndarray]:
    """Monthly cost components of the hosted API at a volume of a tokens workload.

    Returns
    -------
    dict of str to numpy.ndarray
        ``input tokens``, ``cached input tokens``, ``output tokens``
        [reporting currency/month].
    """
    api: HostedAPI = _require(scenario.options.api, "api")
    work = scenario.workload
    offer = api.offer_spec
    millions = np.asanyarray(tokens_per_month(scenario, volume), dtype=float) / TOKENS_PER_MILLION
    fx = scenario.fx_rate(offer.currency)
    input_millions = millions * (1.0 - work.output_share)
    cached_price = _cached_input_price(offer)
    return {
        "input tokens": input_millions * (1 - api.cached_input_share) * offer.input_per_million * fx,
        "cached input tokens": input_millions * api.cached_input_share * cached_price * fx,
        "output tokens": millions * work.output_share * offer.output_per_million * fx,
    }


_COMPONENT_FUNCTIONS = {"own": own_monthly_costs, "rent": rent_monthly_costs, "api": api_monthly_costs}


def monthly_cost_components(scenario: Scenario, option: str, volume) -> dict[str, np.ndarray]:
    """Monthly cost components of one option (``own``, ``rent`` or ``api``) at a volume."""
    if option not in _COMPONENT_FUNCTIONS:
        raise ValueError(f"unknown option {option!r}; expected one of {OPTIONS}")
    return _COMPONENT_FUNCTIONS[option](scenario, volume)


def monthly_cost(scenario: Scenario, option: str, volume):
    """Total monthly cost of one option at a volume. [reporting currency/month]

    Parameters
    ----------
    scenario
        The scenario.
    option
        ``own``, ``rent`` or ``api``.
    volume
        Scalar or array, in the workload's volume unit.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``volume``.
    """
    parts = monthly_cost_components(scenario, option, volume)
    total = sum(np.asanyarray(p, dtype=float) for p in parts.values())   # broadcasts scalars and samples alike
    return float(total) if np.ndim(total) == 0 else total


# --- break-even -------------------------------------------------------------------------

@dataclass(frozen=True)
class BreakEven:
    """Where the cheaper of two options changes, within a searched volume range.

    Attributes
    ----------
    option_a, option_b
        The pair compared.
    volume
        First volume in the range at which the cheaper option changes, or ``None`` if
        it never does in the range. [workload volume unit]
    kind
        ``crossing``: the costs are equal there; ``step``: the cost of one option jumps
        past the other's as its GPU count steps up (the costs are not equal there);
        ``never``: no change within the range.
    cheaper_below, cheaper_above
        The cheaper option just below and just above ``volume``. When ``kind`` is
        ``never``, ``cheaper_below`` is the cheaper one over the whole range and
        ``cheaper_above`` is ``None``; either is ``None`` where the two cost the same.
    volumes, kinds
        Every change in the range, in order (costs with steps can cross several times).
    volume_min, volume_max
        The range searched.
    """

    option_a: str
    option_b: str
    volume: float | None
    kind: Literal["crossing", "step", "never"]
    cheaper_below: str | None
    cheaper_above: str | None
    volume_min: float
    volume_max: float
    volumes: tuple[float, ...] = field(default=())
    kinds: tuple[str, ...] = field(default=())

    def describe(self, unit: str = "") -> str:
        """Plain-text statement of the break-even, with "never" when there is none."""
        a, b = OPTION_LABELS[self.option_a], OPTION_LABELS[self.option_b]
        if self.volume is None:
            cheaper = OPTION_LABELS.get(self.cheaper_below or "", "neither")
            return f"{a} vs {b}: never between {self.volume_min:,.0f} and {self.volume_max:,.0f} {unit} ({cheaper} cheaper throughout)".replace("  ", " ")
        how = "costs equal" if self.kind == "crossing" else "GPU count steps up"
        return (f"{a} vs {b}: {self.volume:,.0f} {unit} ({how}; {OPTION_LABELS[self.cheaper_below]} cheaper below, "
                f"{OPTION_LABELS[self.cheaper_above]} above)")


def _sign(diff: np.ndarray, scale: np.ndarray) -> np.ndarray:
    s = np.sign(diff)
    s[np.abs(diff) <= _EPSILON * scale] = 0
    return s


def break_even(scenario: Scenario, option_a: str, option_b: str, volume_max: float,
               volume_min: float = 0.0) -> BreakEven:
    """Volumes at which the cheaper of two options changes, between two volumes.

    Parameters
    ----------
    scenario
        The scenario.
    option_a, option_b
        Two of ``own``, ``rent``, ``api`` that the scenario holds.
    volume_max
        Upper end of the search. [workload volume unit]
    volume_min
        Lower end of the search. [workload volume unit]

    Returns
    -------
    BreakEven
        With ``kind="never"`` and ``volume=None`` when the cheaper option does not
        change in the range; never infinite or NaN.

    Notes
    -----
    Both costs are linear in volume between the volumes where a GPU count steps up
    (see :func:`step_volumes`). The range is cut at those steps; on each piece the
    difference of the costs is a straight line, found from two evaluations inside it,
    and its root is exact up to rounding. A change of sign across a step is reported
    as ``kind="step"``. Evaluation is vectorised over all pieces at once.
    """
    if not (np.isfinite(volume_max) and volume_max > volume_min >= 0):
        raise ValueError(f"need 0 <= volume_min < volume_max < infinity, got {volume_min} and {volume_max}")

    def diff(v):
        ca, cb = monthly_cost(scenario, option_a, v), monthly_cost(scenario, option_b, v)
        return np.asanyarray(ca - cb), np.abs(ca) + np.abs(cb) + 1.0

    steps = np.concatenate([step_volumes(scenario, option_a, volume_max),
                            step_volumes(scenario, option_b, volume_max)])
    edges = np.unique(np.concatenate([[volume_min, volume_max], steps[(steps > volume_min) & (steps < volume_max)]]))
    left, right = edges[:-1], edges[1:]
    width = right - left
    p1, p2 = left + width / 3, left + 2 * width / 3
    (d1, s1), (d2, _) = diff(p1), diff(p2)
    slope = (d2 - d1) / (p2 - p1)
    d_left_plus = d1 - slope * (p1 - left)        # limit from the right at each left edge
    d_right, s_right = diff(right)                # exact value at each right edge
    # No count steps at volume_min itself, so there the exact value is the limit from the
    # right; using it keeps tiny differences near the start from drowning in rounding.
    d_start, s_start = diff(left[:1])
    d_left_plus[0], scale_left = d_start[0], np.concatenate([s_start, s1[1:]])

    sign_left_plus = _sign(d_left_plus, scale_left)
    sign_right = _sign(d_right, s_right)

    events: list[tuple[float, str, int, int]] = []   # (volume, kind, sign before, sign after)
    # crossings inside a piece
    inside = (sign_left_plus != 0) & (sign_right != sign_left_plus)
    for i in np.flatnonzero(inside):
        root = left[i] - d_left_plus[i] / slope[i]
        events.append((float(min(max(root, left[i]), right[i])), "crossing",
                       int(sign_left_plus[i]), int(-sign_left_plus[i])))
    # jumps across a step (at the right edge of piece i-1 = left edge of piece i)
    before, after = sign_right[:-1], sign_left_plus[1:]
    jumps = (before != 0) & (after != 0) & (before != after)
    for i in np.flatnonzero(jumps):
        events.append((float(right[i]), "step", int(before[i]), int(after[i])))
    events.sort(key=lambda e: e[0])

    def cheaper(sign: int) -> str | None:
        return option_b if sign > 0 else option_a if sign < 0 else None

    first_sign = int(sign_left_plus[0]) or int(sign_right[0])
    if not events:
        return BreakEven(option_a, option_b, None, "never", cheaper(first_sign), None, volume_min, volume_max)
    volume, kind, sign_before, sign_after = events[0]
    return BreakEven(option_a, option_b, volume, kind, cheaper(sign_before), cheaper(sign_after),
                     volume_min, volume_max,
                     volumes=tuple(e[0] for e in events), kinds=tuple(e[1] for e in events))


def break_evens(scenario: Scenario, volume_max: float, volume_min: float = 0.0) -> list[BreakEven]:
    """:func:`break_even` for each pair of the scenario's options, in display order."""
    names = present_options(scenario)
    return [break_even(scenario, a, b, volume_max, volume_min)
            for i, a in enumerate(names) for b in names[i + 1:]]


def default_volume_max(scenario: Scenario, volume: float | None = None) -> float:
    """Default upper end of sweeps and break-even searches: 10 × the volume compared.

    ``volume`` defaults to the scenario's. When it is 0, the largest volume the
    configured GPUs can serve is used instead (1 if no option has a fixed GPU count).
    """
    volume = scenario.volume if volume is None else volume
    if volume > 0:
        return 10.0 * volume
    capacities = [c for c in (capacity_volume(scenario, o) for o in present_options(scenario)) if c]
    return max(capacities) if capacities else 1.0

"""Demand over time and the cheapest mix of owned, reserved, on-demand, spot and API capacity.

A demand profile turns the workload's average into GPUs busy in each of the 8,760 hours
of a year; its load-duration curve is that series sorted from the busiest hour down. The
k-th GPU of capacity is busy the share f_k of hours in which demand exceeds k − 1 GPUs
(the fractional part of an hour's demand counts pro rata).

The cheapest mix follows from the screening-curve method of power-system planning: each
kind of capacity costs a fixed amount F per GPU per hour, paid whether busy or not (owned
hardware, reserved rental), plus a variable amount V per busy GPU-hour (electricity,
on-demand and spot rental, the API). Serving the k-th GPU of demand with kind i costs
F_i + V_i · f_k per hour, so the cheapest kind for each k is the lowest of these lines at
f_k. As f_k falls with k, the choice moves from high-fixed, low-variable kinds (the base)
to flexible ones (the peaks): the mix is bands of whole GPUs. With one fixed layer
against one flexible price p the rule is closed form: take a further GPU while its busy
share f_k exceeds F / (p − V).

References
----------
.. [1] Stoft, S. (2002), "Power System Economics", IEEE Press / Wiley, ch. 3 (screening
   curves and load-duration curves).
.. [2] SchedMD, Slurm ``sacct`` documentation: ``--parsable2`` writes "|"-separated fields
   with a header line; fields JobID, Start, End and AllocTRES (``gres/gpu=N``) are used.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .calculator import gpu_hours_used, own_costs_at
from .errors import InputError
from .models import Scenario
from .units import HOURS_PER_MONTH, HOURS_PER_YEAR

HOURS = int(HOURS_PER_YEAR)
"""Hours in the modelled year: 8,760."""

LAYER_LABELS = {"own": "Owned", "reserved": "Reserved", "on_demand": "On-demand", "spot": "Spot",
                "api": "Hosted API"}
"""Display names of the kinds of capacity."""


MAX_GPUS = 1_000_000
"""Most GPUs an hour of demand or one job may hold."""

_GRES = __import__("re").compile(r"^gres/gpu(:[^=]+)?=(.*)$")


class JobLogError(InputError):
    """A job log that cannot be read; names the file, the line and the reason."""


# --- profiles -----------------------------------------------------------------------------------

def hourly_demand(scenario: Scenario) -> np.ndarray:
    """GPUs busy in each hour of the year under the scenario's demand profile. [GPU]

    Relative profiles (steady, bursty, campaigns, weekly) are scaled so that their mean is
    the workload's average GPUs busy (GPU-hours used per month / 730); absolute ones
    (hourly values, a job log) are taken as given. Growth, if any, compounds over the
    year: × (1 + g)^(h / 8,760).

    Returns
    -------
    numpy.ndarray
        Shape (8760,), GPUs. [GPU]
    """
    profile = scenario.demand
    if profile is None:
        raise ValueError("the scenario has no demand profile")
    average = float(gpu_hours_used(scenario, scenario.volume)) / HOURS_PER_MONTH
    hours = np.arange(HOURS)
    kind = profile.kind
    if kind == "steady":
        series = np.full(HOURS, average)
    elif kind == "bursty":
        peak = profile.peak_to_average * average
        base = (average - profile.duty_cycle * peak) / (1.0 - profile.duty_cycle) if profile.duty_cycle < 1 else peak
        # the busy hours come first in each week (a working-week shape)
        busy = (hours % 168) < round(profile.duty_cycle * 168)
        series = np.where(busy, peak, base)
        series *= average / series.mean() if series.mean() > 0 else 1.0
    elif kind == "campaigns":
        on = (hours % (profile.period_days * 24)) < profile.on_days * 24
        series = np.where(on, 1.0, profile.off_share)
        series *= average / series.mean() if series.mean() > 0 else 0.0
    elif kind == "weekly":
        template = np.asarray(profile.template, dtype=float)
        series = np.resize(template, HOURS)
        series *= average / series.mean() if series.mean() > 0 else 0.0
    elif kind == "hourly_file":
        series = profile.values
    else:
        series = profile.values
    if profile.growth_per_year:
        series = series * (1.0 + profile.growth_per_year) ** (hours / HOURS)
    return series


def load_duration_curve(series: np.ndarray) -> np.ndarray:
    """Demand sorted from the busiest hour down. [GPU]"""
    return np.sort(np.asarray(series, dtype=float))[::-1]


def busy_shares(series: np.ndarray, gpus: int | None = None) -> np.ndarray:
    """Share of hours the k-th GPU of capacity is busy, k = 1 … K. [-]

    f_k = mean over hours of clip(demand − (k − 1), 0, 1). K defaults to the peak,
    rounded up.
    """
    demand = np.asarray(series, dtype=float)
    top = int(np.ceil(demand.max() - 1e-9)) if gpus is None else gpus
    if top <= 0:
        return np.zeros(0)
    # f_k = (1/H) sum_h clip(d_h - k + 1, 0, 1), for all k at once from the sorted curve
    k = np.arange(1, top + 1, dtype=float)
    sorted_demand = np.sort(demand)
    # sum_h clip(d_h - (k-1), 0, 1) = sum over hours with d_h >= k of 1 + sum over k-1 < d_h < k of (d_h - k + 1)
    above = len(sorted_demand) - np.searchsorted(sorted_demand, k, side="left")
    lower = np.searchsorted(sorted_demand, k - 1, side="right")
    upper = np.searchsorted(sorted_demand, k, side="left")
    cumulative = np.concatenate([[0.0], np.cumsum(sorted_demand)])
    partial = (cumulative[upper] - cumulative[lower]) - (upper - lower) * (k - 1)
    return (above + partial) / len(sorted_demand)


def read_hourly_file(path: Path) -> np.ndarray:
    """A year of hourly GPU demand from a file with one number per line (a header line is allowed). [GPU]

    Raises
    ------
    InputError
        Not 8,760 values, or a value that is not a non-negative finite number (the line is named).
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None
    values, problems = [], []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or (number == 1 and not _is_number(text)):
            continue        # blank lines, and a header
        if not _is_number(text) or not np.isfinite(float(text)) or not 0 <= float(text) <= MAX_GPUS:
            problems.append((f"line {number}", line, f"not one number of GPUs between 0 and {MAX_GPUS:,}"))
            continue
        values.append(float(text))
    if not problems and len(values) != HOURS:
        problems.append(("(file)", len(values), f"needs {HOURS} hourly values, one a line"))
    if problems:
        raise InputError(path, problems[:10])
    return np.asarray(values)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def job_log_demand(path: Path, year: int) -> np.ndarray:
    """Hourly GPU demand of a year from a Slurm ``sacct --parsable2`` job log. [GPU]

    Reads the fields JobID, Start, End and AllocTRES (``gres/gpu=N``, or the typed
    ``gres/gpu:h200=N`` summed over types when no untyped count is given; a job with no
    GPU counts 0). Job steps (JobIDs with a dot, such as ``123.batch``) are skipped: their
    GPUs belong to the job (``sacct -X`` writes no steps). Each job adds its GPUs to every
    hour it overlaps, pro rata for partial hours, so jobs that overlap add up and a job
    crossing midnight or a month boundary is split at the hour. Parts outside the year
    are dropped. Times are local, without a UTC offset, as sacct prints them.

    Raises
    ------
    JobLogError
        A missing field in the header, or a row with a bad time, an end before its
        start, or a bad GPU count; the line is named.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise JobLogError(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None
    if not lines:
        raise JobLogError(path, [("line 1", "", "empty: expected a header line JobID|Start|End|AllocTRES")])
    header = lines[0].split("|")
    missing = [f for f in ("JobID", "Start", "End", "AllocTRES") if f not in header]
    if missing:
        raise JobLogError(path, [("line 1", lines[0], f"header lacks {', '.join(missing)}")])
    where = {name: header.index(name) for name in ("JobID", "Start", "End", "AllocTRES")}
    origin = dt.datetime(year, 1, 1)
    starts, ends, gpus, problems, seen = [], [], [], [], {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("|")
        if len(fields) < len(header):
            problems.append((f"line {number}", line, f"{len(fields)} fields, the header has {len(header)}"))
            continue
        ident = fields[where["JobID"]]
        if "." in ident:
            continue        # a job step: its GPUs are the job's
        if ident in seen:
            problems.append((f"line {number}", line, f"JobID {ident} repeats line {seen[ident]}"))
            continue
        seen[ident] = number
        try:
            start = dt.datetime.fromisoformat(fields[where["Start"]])
            end = dt.datetime.fromisoformat(fields[where["End"]])
        except ValueError:
            problems.append((f"line {number}", line, "Start and End must be times like 2026-01-05T08:00:00"))
            continue
        if start.tzinfo is not None or end.tzinfo is not None:
            problems.append((f"line {number}", line, "give local times without a UTC offset, as sacct prints them"))
            continue
        if end < start:
            problems.append((f"line {number}", line, "End is before Start"))
            continue
        untyped, typed, bad = None, 0, False
        for part in fields[where["AllocTRES"]].split(","):
            match = _GRES.match(part.strip())
            if not match:
                continue
            text = match.group(2)
            if not text.isdigit() or int(text) > MAX_GPUS:
                bad = True
                break
            if match.group(1):
                typed += int(text)
            else:
                untyped = int(text)
        if bad:
            problems.append((f"line {number}", line,
                             f"AllocTRES gres/gpu= must be a whole number of GPUs up to {MAX_GPUS:,}"))
            continue
        count = float(untyped if untyped is not None else typed)
        starts.append((start - origin).total_seconds() / 3600.0)
        ends.append((end - origin).total_seconds() / 3600.0)
        gpus.append(count)
    if problems:
        raise JobLogError(path, problems[:10])
    demand = np.zeros(HOURS)
    if not starts:
        return demand
    s = np.clip(np.asarray(starts), 0, HOURS)
    e = np.clip(np.asarray(ends), 0, HOURS)
    g = np.asarray(gpus)
    # GPU-hours each job puts in each hour: integrate the job's indicator over [h, h + 1)
    edges = np.arange(HOURS + 1, dtype=float)
    cumulative = np.zeros(HOURS + 1)
    for boundary, sign in ((s, 1.0), (e, -1.0)):
        # the area of a step up at time t accumulates as max(0, x - t); summed over jobs
        order = np.argsort(boundary)
        t, w = boundary[order], (g * sign)[order]
        count = np.searchsorted(t, edges, side="right")
        weight = np.concatenate([[0.0], np.cumsum(w)])
        moment = np.concatenate([[0.0], np.cumsum(w * t)])
        cumulative += weight[count] * edges - moment[count]
    return np.diff(cumulative)


# --- prices of each kind of capacity --------------------------------------------------------------

@dataclass(frozen=True)
class Layer:
    """One kind of capacity: a fixed cost per GPU per hour and a variable cost per busy GPU-hour.

    Attributes
    ----------
    fixed_per_hour
        Paid for every hour a GPU is held, busy or not. [reporting currency/GPU/h]
    variable_per_hour
        Paid for every busy GPU-hour. [reporting currency/GPU-h]
    note
        Where the figures come from.
    """

    kind: str
    fixed_per_hour: float
    variable_per_hour: float
    note: str


def layers(scenario: Scenario) -> dict[str, Layer]:
    """The kinds of capacity the scenario offers, priced per GPU-hour in the reporting currency.

    * own: the own cluster's monthly cost at zero use / its GPUs / 730 as the fixed part
      (depreciation, support, housing, staff, spares' idle power), and the running cost of
      one more busy GPU-hour (electricity) as the variable part;
    * reserved: the reserved price, paid every hour;
    * on-demand: the rental offer's price per busy GPU-hour;
    * spot: the on-demand price × (1 − discount) / (1 − overhead), the overhead being the
      share of work redone after interruptions;
    * api: the API's cost per GPU-hour of the workload (tokens workloads only).
    """
    found: dict[str, Layer] = {}
    own = scenario.options.own
    if own is not None:
        servers = float(own.server_count)
        gpus = servers * own.server_spec.gpus_per_server
        idle = float(sum(own_costs_at(scenario, servers, 0.0).values()))
        busy = float(sum(own_costs_at(scenario, servers, gpus * HOURS_PER_MONTH).values()))
        found["own"] = Layer("own", idle / gpus / HOURS_PER_MONTH, (busy - idle) / (gpus * HOURS_PER_MONTH),
                             f"own cluster of {int(gpus):,} GPUs, monthly cost per GPU / 730")
    rent = scenario.options.rent
    if rent is not None:
        offer = rent.offer_spec
        on_demand = offer.price_per_gpu_hour * scenario.fx_rate(offer.currency)
        found["on_demand"] = Layer("on_demand", 0.0, on_demand, f"{offer.provider} on-demand ({offer.offer})")
        if rent.reserved is not None:
            r = rent.reserved
            price = (r.price_per_gpu_hour * scenario.fx_rate(r.currency) if r.price_per_gpu_hour is not None
                     else on_demand * (1.0 - r.discount))
            found["reserved"] = Layer("reserved", price, 0.0, f"{r.term_years}-year commitment; {r.source}")
        if rent.spot is not None:
            s = rent.spot
            overhead = min(s.interruptions_per_gpu_hour * s.work_lost_hours_per_interruption, 0.99)
            cap = "" if s.max_gpus is None else f"capped at {s.max_gpus:,} GPUs; "
            found["spot"] = Layer("spot", 0.0, on_demand * (1.0 - s.discount) / (1.0 - overhead),
                                  f"{cap}{s.discount:.0%} off on-demand, {overhead:.1%} of work redone; {s.source}")
    if scenario.options.api is not None and scenario.workload.kind == "tokens":
        from .calculator import monthly_cost

        hours = float(gpu_hours_used(scenario, scenario.volume))
        if hours > 0:
            per_hour = float(monthly_cost(scenario, "api", scenario.volume)) / hours
            found["api"] = Layer("api", 0.0, per_hour, "hosted API cost per GPU-hour of the same tokens")
    return found


# --- the cheapest mix --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mix:
    """The cheapest mix for a demand profile, and what the pure options would cost.

    Attributes
    ----------
    gpus
        Kind → GPUs held in it (flexible kinds: the peak GPUs they cover). [GPU]
    cost
        Kind → monthly cost of that layer. [reporting currency/month]
    utilisation
        Kind → busy share of the GPUs held (owned and reserved). [-]
    pure
        Kind → monthly cost if that kind alone served all demand (fixed kinds sized for
        the peak). [reporting currency/month]
    assignment
        Kind of capacity for each GPU k = 1 … K.
    busy
        f_k for each GPU. [-]
    """

    gpus: dict[str, int]
    cost: dict[str, float]
    utilisation: dict[str, float]
    pure: dict[str, float]
    assignment: list[str]
    busy: np.ndarray

    @property
    def total(self) -> float:
        """Monthly cost of the mix. [reporting currency/month]"""
        return float(sum(self.cost.values()))

    def savings(self) -> dict[str, float]:
        """What the mix saves each month against each pure option. [reporting currency/month]"""
        return {kind: cost - self.total for kind, cost in self.pure.items()}


def cheapest_mix(scenario: Scenario, series: np.ndarray | None = None) -> Mix:
    """The cheapest mix of capacity for the scenario's demand profile (screening curves).

    Parameters
    ----------
    scenario
        A scenario with a demand profile and at least two kinds of capacity.
    series
        Hourly demand; default :func:`hourly_demand`. [GPU]

    Returns
    -------
    Mix

    Notes
    -----
    For each GPU k the cost per hour of kind i is F_i + V_i · f_k (see the module notes);
    the cheapest kind is taken for every k at once (one vectorised argmin over GPUs and
    kinds). Monthly cost = 730 × Σ_k (F + V · f_k). Owned GPUs come in whole servers:
    both neighbouring server counts are tried and the cheaper kept.
    """
    demand = hourly_demand(scenario) if series is None else np.asarray(series, dtype=float)
    offer = layers(scenario)
    if not offer:
        raise ValueError("the scenario offers no kind of capacity")
    f = busy_shares(demand)
    return _mix(offer, _best_assignment(scenario, offer, f), f, demand, _rental_staffing(scenario))


def _best_assignment(scenario: Scenario, offer: dict[str, Layer], f: np.ndarray,
                     forced: tuple[str, int] | None = None) -> list[str]:
    """The cheapest assignment, with owned GPUs in whole servers (every server count near the
    unconstrained optimum is tried, spot placed for each) and, if given, one kind forced to a level."""
    def cost(assignment: list[str]) -> float:
        return _mix(offer, assignment, f, f).total

    base = _assign(scenario, offer, f, *(forced or (None, None)))
    if "own" not in offer or (forced and forced[0] == "own") or not base:
        return base
    per_server = scenario.options.own.server_spec.gpus_per_server
    free = len(f) - (forced[1] if forced else 0)
    guess = base.count("own") // per_server
    most = int(np.ceil(max(free, 0) / per_server))
    counts = range(0, most + 1) if most <= 200 else sorted({0, *range(max(0, guess - 50), min(most, guess + 50) + 1)})
    best, best_cost = None, np.inf
    for servers in counts:
        trial = _assign_with_own(scenario, offer, f, servers * per_server, forced)
        c = cost(trial)
        if c < best_cost:
            best, best_cost = trial, c
    return best


def _assign_with_own(scenario: Scenario, offer: dict[str, Layer], f: np.ndarray, owned: int,
                     forced: tuple[str, int] | None) -> list[str]:
    """Own the first ``owned`` GPUs (after any forced level), the rest at their cheapest, spot placed last."""
    rest = {k: v for k, v in offer.items() if k != "own"}
    start = forced[1] if forced else 0
    if rest:
        assignment = _assign(scenario, rest, f, *(forced or (None, None)), place_spot=False)
    else:
        assignment = ["own"] * len(f)
    for k in range(start, min(start + owned, len(f))):
        assignment[k] = "own"
    return _place_spot(scenario, offer, f, assignment, {"own"} | ({forced[0]} if forced else set()))


def _place_spot(scenario: Scenario, offer: dict[str, Layer], f: np.ndarray, assignment: list[str],
                keep: set[str]) -> list[str]:
    """Put capped spot capacity where it saves most against what each GPU costs now."""
    cap = _spot_cap(scenario)
    if "spot" not in offer or not cap:
        return assignment
    current = np.array([offer[kind].fixed_per_hour + offer[kind].variable_per_hour * f[k]
                        for k, kind in enumerate(assignment)])
    saving = current - offer["spot"].variable_per_hour * f
    saving[np.isin(np.array(assignment), list(keep))] = 0.0
    best = np.argsort(-saving, kind="stable")[:cap]
    assignment = list(assignment)
    for k in best[saving[best] > 0]:
        assignment[k] = "spot"
    return assignment


def _rental_staffing(scenario: Scenario) -> float:
    """Monthly cost of the rental option's people and fees, paid once any rented kind is used."""
    from .calculator import _staffing_month

    rent = scenario.options.rent
    if rent is None or rent.staffing is None:
        return 0.0
    return float(_staffing_month(scenario, rent.staffing, rent.gpu_count or 0))


def _assign(scenario: Scenario, offer: dict[str, Layer], f: np.ndarray, held: str | None = None,
            level: int | None = None, place_spot: bool = True) -> list[str]:
    """The kind of capacity for each GPU; with ``held`` and ``level``, the first ``level`` GPUs are forced to it."""
    spot_cap = _spot_cap(scenario)
    kinds = [k for k in offer if not (k == "spot" and spot_cap is not None)]
    if held is not None:
        kinds = [k for k in kinds if k != held]
    if not kinds:
        kinds = [held]
    fixed = np.array([offer[k].fixed_per_hour for k in kinds])
    variable = np.array([offer[k].variable_per_hour for k in kinds])
    per_gpu = fixed[:, None] + variable[:, None] * f[None, :]           # kinds × GPUs, per hour
    assignment = [kinds[i] for i in np.argmin(per_gpu, axis=0)]
    if held is not None:
        for k in range(min(level, len(assignment))):
            assignment[k] = held
    if not place_spot:
        return assignment
    return _place_spot(scenario, offer, f, assignment, {"own"} | ({held} if held else set()))


def _spot_cap(scenario: Scenario) -> int | None:
    rent = scenario.options.rent
    return None if rent is None or rent.spot is None else rent.spot.max_gpus


def _mix(offer: dict[str, Layer], assignment: list[str], f: np.ndarray, demand: np.ndarray,
         rental_staffing: float = 0.0) -> Mix:
    gpus, cost, utilisation = {}, {}, {}
    labels = np.array(assignment)
    for kind, layer in offer.items():
        mask = labels == kind
        gpus[kind] = int(mask.sum())
        cost[kind] = float(HOURS_PER_MONTH * np.sum(layer.fixed_per_hour + layer.variable_per_hour * f[mask]))
        if layer.fixed_per_hour > 0 and mask.any():
            utilisation[kind] = float(f[mask].mean())
    total_busy = float(f.sum())
    pure = {kind: HOURS_PER_MONTH * (layer.fixed_per_hour * len(f) + layer.variable_per_hour * total_busy)
            for kind, layer in offer.items() if not (kind == "spot" and layer.note.startswith("capped"))}
    if rental_staffing:
        rented = {"reserved", "on_demand", "spot"}
        if any(gpus.get(k) for k in rented):
            cost["rental staffing"] = rental_staffing
        for kind in rented & set(pure):
            pure[kind] += rental_staffing
    return Mix(gpus, cost, utilisation, pure, list(assignment), f)


def single_layer_level(busy: np.ndarray, fixed_per_hour: float, flexible_price: float,
                       variable_per_hour: float = 0.0) -> int:
    """Closed form for one fixed layer against a flexible price: GPUs to hold. [GPU]

    Hold the k-th GPU while its busy share f_k exceeds F / (p − V): holding it costs F
    every hour and saves (p − V) in each busy hour (Stoft 2002, ch. 3).
    """
    if flexible_price <= variable_per_hour:
        return 0
    threshold = fixed_per_hour / (flexible_price - variable_per_hour)
    return int(np.count_nonzero(np.asarray(busy) > threshold))


def cost_against_level(scenario: Scenario, kind: str, series: np.ndarray | None = None,
                       points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Monthly cost of the mix with ``kind`` held at a level of GPUs, the rest at its cheapest. [reporting currency/month]

    The rest is assigned by the same rules as :func:`cheapest_mix` (spot capacity limits
    included). Up to ``points`` levels between 0 and the peak are evaluated.

    Returns
    -------
    tuple of numpy.ndarray
        The levels [GPU] and the monthly cost at each.
    """
    demand = hourly_demand(scenario) if series is None else np.asarray(series, dtype=float)
    offer = layers(scenario)
    f = busy_shares(demand)
    levels = np.unique(np.linspace(0, len(f), min(points, len(f) + 1)).round().astype(int))
    if kind == "own":   # owned capacity comes in whole servers
        per_server = scenario.options.own.server_spec.gpus_per_server
        levels = np.unique(np.minimum(np.round(levels / per_server) * per_server, len(f) // per_server * per_server
                                      + per_server)).astype(int)
    staffing = _rental_staffing(scenario)
    costs = np.array([_mix(offer, _best_assignment(scenario, offer, f, (kind, int(level))), f, demand, staffing).total
                      for level in levels])
    return levels, costs


def describe_mix(scenario: Scenario, mix: Mix) -> str:
    """The mix in a few Markdown sentences."""
    currency = scenario.reporting_currency
    bands = [f"{mix.gpus[k]:,} {LAYER_LABELS[k].lower()}" for k in mix.gpus if mix.gpus[k]] or ["no"]
    lines = [f"Cheapest mix for this demand: **{', '.join(bands)}** GPUs, **{mix.total:,.0f} {currency}/month**."]
    for kind, u in mix.utilisation.items():
        lines.append(f"- {LAYER_LABELS[kind]} GPUs are busy {u:.1%} of the hours they are paid for.")
    lines += [f"- Against all {LAYER_LABELS[k].lower()}: saves {v:,.0f} {currency}/month"
              for k, v in mix.savings().items()]
    return "\n".join(lines)


def mix_dict(scenario: Scenario, mix: Mix, steady: Mix | None = None) -> dict:
    """JSON-ready summary of a mix, each figure with its unit."""
    currency = scenario.reporting_currency

    def money(x):
        return {"value": round(float(x), 2), "unit": f"{currency}/month"}

    data = {
        "profile": scenario.demand.kind,
        "gpus": {k: {"value": v, "unit": "GPU"} for k, v in mix.gpus.items()},
        "layer_cost": {k: money(v) for k, v in mix.cost.items()},
        "total": money(mix.total),
        "utilisation": {k: {"value": round(v, 6), "unit": "share of paid hours busy"}
                        for k, v in mix.utilisation.items()},
        "pure_options": {k: money(v) for k, v in mix.pure.items()},
        "demand": {"mean": {"value": round(float(mix.busy.sum()), 6), "unit": "GPU"},
                   "peak_gpus": {"value": len(mix.busy), "unit": "GPU"}},
        "savings_against_pure": {k: money(v) for k, v in mix.savings().items()},
        "prices": {k: {"fixed": {"value": round(layer.fixed_per_hour, 6), "unit": f"{currency}/GPU/h held"},
                       "variable": {"value": round(layer.variable_per_hour, 6), "unit": f"{currency}/busy GPU-h"},
                       "note": layer.note}
                   for k, layer in layers(scenario).items()},
    }
    if steady is not None:
        data["if_steady"] = {"gpus": {k: {"value": v, "unit": "GPU"} for k, v in steady.gpus.items()},
                             "total": money(steady.total)}
    return data


def steady_series(series: np.ndarray) -> np.ndarray:
    """The same average demand spread evenly over every hour, for comparison. [GPU]"""
    return np.full(HOURS, float(np.mean(series)))


def show_section(scenario: Scenario) -> None:
    """Display the demand and cheapest-mix section of a report in a notebook."""
    from IPython.display import HTML, Markdown, display

    from . import charts

    if scenario.demand is None:
        display(Markdown("This scenario has no demand profile (no `demand` block): costs use the average only."))
        return
    series = hourly_demand(scenario)
    mix = cheapest_mix(scenario, series)
    steady = cheapest_mix(scenario, steady_series(series)) if scenario.demand.kind != "steady" else None
    text = describe_mix(scenario, mix)
    if steady is not None:
        bands = ", ".join(f"{v:,} {LAYER_LABELS[k].lower()}" for k, v in steady.gpus.items() if v)
        text += (f"\n\nWith the same average demand spread evenly (steady): {bands} GPUs, "
                 f"{steady.total:,.0f} {scenario.reporting_currency}/month.")
    display(Markdown(text))
    charts.show(charts.demand_week(scenario, series),
                f"Area chart of GPUs busy in the busiest week; mean {series.mean():,.2f}, peak {series.max():,.2f}.")
    charts.show(charts.load_duration_layers(scenario, series, mix),
                "Load-duration curve with the cheapest mix stacked under it: " + ", ".join(
                    f"{v} {LAYER_LABELS[k].lower()}" for k, v in mix.gpus.items() if v) + " GPUs.")
    charts.show(charts.cost_against_level_chart(scenario, series),
                "Monthly cost against the GPUs held as owned or reserved, with the optimum marked.")
    import pandas as pd

    rows = [{"capacity": LAYER_LABELS[k], "GPUs": f"{mix.gpus[k]:,}",
             f"cost [{scenario.reporting_currency}/month]": f"{mix.cost[k]:,.0f}",
             "busy share of paid hours": f"{mix.utilisation[k]:.1%}" if k in mix.utilisation else "-",
             "price": layers(scenario)[k].note} for k in mix.gpus]
    display(HTML(pd.DataFrame(rows).to_html(index=False)))

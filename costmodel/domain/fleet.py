"""Several workloads on one fleet: capacity sized on their summed hourly demand, and showback.

A member is a scenario with a demand profile sized in GPUs (its hourly GPU series is
:func:`costmodel.domain.demand.hourly_demand`), or a recurring fine-tune (:func:`fine_tune_demand`).
The fleet's demand is the sum of the series, hour by hour; the fleet's ways to pay (the first
member's options) are costed on it as a single scenario's are
(:func:`costmodel.domain.mix.pure_costs` for each option alone,
:func:`costmodel.domain.mix.cheapest_mix` for the mix), on the monthly cost of serving the
demand hour by hour. With one member the answer is that scenario's.

Each member keeps its own constraints. Spot: a member's cap limits its own spot GPUs (a member
without spot terms, or a served model that is not interruptible, uses none), so in hour h spot
may serve at most K_h = Σ_m min(d_m,h, u · cap_m) (u the hourly ceiling), and at most u times the
fleet file's ``spot_max_gpus`` when it states one. Replicas: capacity is counted in steps of the
greatest common divisor of the members' replica sizes, with the largest member's spare GPUs and
minimum (spare replicas are shared). Every way the members could pay alone is then a way the
fleet can pay, so the fleet never costs more than its members alone at the same prices.

Showback: the winner's monthly cost C is split into the cost of GPU-hours used and the idle
cost, C · I / P, with P the GPU-hours paid for (held GPUs × 730 for owned and held rented
capacity, busy hours for capacity paid by use) and I = P − U the GPU-hours paid for and not
used (U: all members' busy GPU-hours). The used part goes to each team in proportion to its
GPU-hours, the idle part by the fleet's ``idle_cost`` rule; both are split to the cent by the
largest-remainder method, so the teams' allocations add up to C rounded to the cent.

References
----------
.. [1] OpenCost specification, "Idle costs" (opencost.io/docs/specification).
.. [2] Balinski, M. L. and Young, H. P. (2001), *Fair Representation*, 2nd ed., Brookings
   (Hamilton's largest-remainder method).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from .. import formulas
from ..errors import FileKindError, InputError, did_you_mean, from_validation_error
from ..formulas.shapes import scalar
from ..io.yaml_files import parse_yaml, read_text
from ..resolved import OwnOption, RentOption, Resolved, as_resolved
from ..results import Layer, Measure, Mix
from ..scenarios import bundled_scenarios, load_scenario, referenced_scenario
from ..schema.fleet import MEMBER_TAGS, FineTuneMember, Fleet, FleetMember, IdleOwner, is_scenario_data
from ..schema.workload import TokensWorkload
from ..units import HOURS_PER_MONTH
from .capacity import own_servers_for, rent_gpus_for
from .decision import MIX, RESERVED, SPOT, decide, measure_of
from .demand import hourly_demand
from .mix import cheapest_mix, mix_result, pure_costs

_HELD = (Layer.OWN, Layer.ALWAYS_ON, Layer.RESERVED)
_PURE_TO_CANDIDATE: dict[str, str] = {
    Layer.OWN: "own",
    Layer.ALWAYS_ON: "rent",
    Layer.ON_DEMAND: "rent",
    Layer.RESERVED: RESERVED,
    Layer.SPOT: SPOT,
}


@dataclass(frozen=True)
class MemberAnswer:
    """One member: its demand and its own single-scenario answer.

    Attributes
    ----------
    name, team, path
        As the fleet file names them (path resolved).
    gpu_hours
        Busy GPU-hours a month. [GPU-h/month]
    winner, alone
        Its own decision's winner and figure (a fine-tune: the fleet's options on its demand
        alone). [-], [currency/month]
    kind
        ``scenario`` or ``fine_tune``.
    run_gpu_hours, run_months
        A fine-tune's GPU-hours a run and the calendar months it runs in. [GPU-h], [-]
    """

    name: str
    team: str
    path: str
    gpu_hours: float
    winner: str
    alone: float
    kind: str = "scenario"
    run_gpu_hours: float | None = None
    run_months: tuple[int, ...] = ()


@dataclass(frozen=True)
class TeamShare:
    """One team's showback line. Money in cents-exact Decimal. [currency/month]"""

    team: str
    gpu_hours: float
    share: float
    allocated: Decimal
    idle: Decimal


@dataclass(frozen=True)
class MonthShare:
    """One calendar month's showback: the fleet's cost for the month split by that month's use.

    Attributes
    ----------
    month
        1 to 12. [-]
    hours
        Hours in the month. [h]
    cost
        The fleet's monthly cost × hours / 730, to the cent. [currency]
    teams
        Each team's GPU-hours in the month and its allocation. [GPU-h], [currency]
    """

    month: int
    hours: int
    cost: Decimal
    teams: list[TeamShare]


@dataclass(frozen=True)
class FleetResult:
    """The fleet's answer.

    Attributes
    ----------
    title, currency
    figures
        Candidate id (as a single scenario's decision names them, ``mix`` for the mix) → monthly cost. [currency/month]
    winner
        The cheapest candidate.
    mix
        The cheapest mix for the summed demand.
    demand
        Summed GPUs busy each hour. [GPU]
    members, showback
    paid_gpu_hours, used_gpu_hours
        [GPU-h/month]
    monthly
        The showback of each calendar month of the demand year.
    """

    title: str
    currency: str
    figures: dict[str, float]
    winner: str
    mix: Mix
    demand: np.ndarray
    members: list[MemberAnswer]
    showback: list[TeamShare]
    paid_gpu_hours: float
    used_gpu_hours: float
    monthly: list[MonthShare] = dataclasses.field(default_factory=list)

    @property
    def total(self) -> float:
        """The winner's monthly cost. [currency/month]"""
        return self.figures[self.winner]

    @property
    def alone(self) -> float:
        """Sum of the members' own answers. [currency/month]"""
        return sum(m.alone for m in self.members)

    @property
    def saving(self) -> float:
        """What sharing the fleet saves against each member on its own. [currency/month]"""
        return self.alone - self.total

    def to_dict(self) -> dict[str, object]:
        """Plain data for JSON, rounded as ``costmodel compare --json`` rounds: money to the cent (the
        showback's as strings of cents-exact decimals), GPU-hours to three decimals, never -0.0."""
        return {
            "title": self.title,
            "currency": self.currency,
            "unit": f"{self.currency}/month",
            "winner": self.winner,
            "figures": {k: _rounded(v, _CENT) for k, v in self.figures.items()},
            "alone": _rounded(self.alone, _CENT),
            "saving": _rounded(self.saving, _CENT),
            "paid_gpu_hours": _rounded(self.paid_gpu_hours, _GPU_HOUR),
            "used_gpu_hours": _rounded(self.used_gpu_hours, _GPU_HOUR),
            "members": [
                {
                    "name": m.name,
                    "team": m.team,
                    "scenario": m.path,
                    "gpu_hours": _rounded(m.gpu_hours, _GPU_HOUR),
                    "winner": m.winner,
                    "alone": _rounded(m.alone, _CENT),
                    "kind": m.kind,
                    "run_gpu_hours": None if m.run_gpu_hours is None else _rounded(m.run_gpu_hours, _GPU_HOUR),
                    "run_months": list(m.run_months),
                }
                for m in self.members
            ],
            "showback": [
                {
                    "team": s.team,
                    "gpu_hours": _rounded(s.gpu_hours, _GPU_HOUR),
                    "share": s.share,
                    "allocated": str(s.allocated),
                    "idle": str(s.idle),
                }
                for s in self.showback
            ],
            "monthly": [
                {
                    "month": ms.month,
                    "hours": ms.hours,
                    "cost": str(ms.cost),
                    "teams": [
                        {
                            "team": s.team,
                            "gpu_hours": _rounded(s.gpu_hours, _GPU_HOUR),
                            "allocated": str(s.allocated),
                            "idle": str(s.idle),
                        }
                        for s in ms.teams
                    ],
                }
                for ms in self.monthly
            ],
        }


_CENT = 2
"""Decimals of money in the JSON, as compare's (:mod:`costmodel.presentation.output`). [-]"""

_GPU_HOUR = 3
"""Decimals of GPU-hours in the JSON, as compare's training run's. [-]"""


def _rounded(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` decimals, -0.0 written 0.0; a value that is not finite is refused.

    Raises
    ------
    ValueError
        NaN or infinity (no report shows either).
    """
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"the fleet's figure {x} is not finite; check the members' inputs")
    return round(x, digits) + 0.0


def load_fleet(path: str | Path) -> Fleet:
    """Read and validate a fleet file; errors name the file, the field, the value and the rule.

    Raises
    ------
    InputError
        The file cannot be read (missing, a folder, a pipe or a device, too large, not UTF-8), is
        not YAML, breaks the fleet schema (each problem worded as a scenario file's are,
        :func:`costmodel.errors.from_validation_error`), or is a scenario file
        (:class:`costmodel.errors.FileKindError`, which names ``costmodel compare``).
    """
    p = Path(path)
    data = parse_yaml(read_text(p), p)  # a FIFO or a device refused before reading, as a scenario file is
    if is_scenario_data(data):
        reason = (
            "this is a scenario file (no `kind: fleet`): compare it with `costmodel compare`; "
            "a fleet file has kind: fleet and members"
        )
        raise FileKindError(p, [("kind", None, reason)])
    if not isinstance(data, dict):
        raise InputError(p, [("(top level)", data, "a fleet file must be a YAML mapping of fields")])
    try:
        return Fleet.model_validate(data)
    except ValidationError as e:
        raise from_validation_error(e, p, InputError, data, MEMBER_TAGS) from None


def _largest_remainder(cents: int, weights: list[Fraction]) -> list[int]:
    """``cents`` split in proportion to ``weights`` (equal shares when all are 0), summing exactly. [cent]"""
    total = sum(weights, Fraction(0))
    if total == 0:
        weights, total = [Fraction(1)] * len(weights), Fraction(len(weights))
    exact = [cents * w / total for w in weights]
    base = [int(x) if x >= 0 else -int(-x) - (0 if x == int(x) else 1) for x in exact]
    left = cents - sum(base)
    order = sorted(range(len(exact)), key=lambda i: exact[i] - base[i], reverse=True)
    for i in order[:left]:
        base[i] += 1
    return base


MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
"""Days in each calendar month of a common year; February has 29 in a leap year. [day]"""


def month_hours(hours_in_year: int) -> np.ndarray:
    """Hours in each calendar month of a demand year of ``hours_in_year`` hours (8,760 or 8,784). [h]

    Raises
    ------
    ValueError
        A series that is not a year of hours.
    """
    if hours_in_year not in (8760, 8784):
        raise ValueError(f"a fleet's demand is a year of hours (8,760 or 8,784); got {hours_in_year}")
    days = np.array(MONTH_DAYS)
    days[1] += hours_in_year == 8784
    return days * 24


def fine_tune_gpu_hours(member: FineTuneMember, host: Resolved, where: str = "fleet") -> float:
    """GPU-hours of one run of a fine-tune: as stated, or 6 N D / (MFU · peak · 3,600) on the fleet's GPU. [GPU-h]

    N is the catalog model's active parameters, D the run's tokens, the peak the fleet's GPU's
    dense peak at the run's precision. ``where`` names the fleet file in errors.

    References
    ----------
    .. [1] Kaplan, J. et al. (2020), "Scaling Laws for Neural Language Models", arXiv:2001.08361.
    """
    if member.gpu_hours is not None:
        return member.gpu_hours
    assert member.model is not None and member.tokens is not None and member.mfu is not None, "checked by the schema"
    model = host.catalog.models.get(member.model)
    if model is None:
        reason = f"not a model of data/models.csv{did_you_mean(member.model, host.catalog.models)}"
        raise InputError(where, [(f"members.{member.name}.model", member.model, reason)])
    gpu = host.workload.gpu
    try:
        peak = gpu.dense_tflops(member.precision)
    except ValueError as exc:
        raise InputError(where, [(f"members.{member.name}.precision", member.precision, str(exc))]) from None
    flop = formulas.training_flop(model.active_parameters, member.tokens)
    return scalar(formulas.training_gpu_hours(flop, peak, member.mfu))


def fine_tune_demand(
    member: FineTuneMember, gpu_hours: float, hours_in_year: int, where: str = "fleet"
) -> tuple[np.ndarray, tuple[int, ...]]:
    """GPUs a recurring fine-tune holds busy in each hour of the year, and the months it runs in. [GPU]

    Each run starts in the first hour of its month (``first_month``, then every ``every_months``
    months) and holds ``gpus`` GPUs until its GPU-hours are done: W = GPU-hours / GPUs hours of
    wall clock, the last hour in part. ``where`` names the fleet file in errors.

    Parameters
    ----------
    member
        The fine-tune.
    gpu_hours
        GPU-hours of one run. [GPU-h]
    hours_in_year
        Hours in the demand year (8,760 or 8,784). [h]

    Returns
    -------
    tuple
        GPUs busy each hour, shape (hours_in_year,) [GPU], and the calendar months with a run.

    Raises
    ------
    InputError
        A run longer than its month.
    """
    bounds = np.concatenate([[0], np.cumsum(month_hours(hours_in_year))])
    wall = gpu_hours / member.gpus
    demand = np.zeros(hours_in_year)
    months = tuple(range(member.first_month, 13, member.every_months))
    for month in months:
        start, length = int(bounds[month - 1]), int(bounds[month] - bounds[month - 1])
        if wall > length:
            raise InputError(
                where,
                [
                    (
                        f"members.{member.name}.gpus",
                        member.gpus,
                        f"a run of {gpu_hours:,.0f} GPU-hours on {member.gpus} GPUs lasts {wall:,.0f} h, "
                        f"longer than month {month} ({length} h); give it more GPUs",
                    )
                ],
            )
        full = int(math.floor(wall))
        demand[start : start + full] = member.gpus
        if wall > full:
            demand[start + full] = member.gpus * (wall - full)
    return demand, months


@dataclass(frozen=True)
class _Part:
    """A member as the fleet counts it: its demand and its own constraints."""

    answer: MemberAnswer
    demand: np.ndarray
    replica: int
    spare: int
    minimum: int
    spot_cap: float


def _spot_cap(r: Resolved) -> float:
    """Most GPUs a scenario member runs on spot at once: its cap, inf without one, 0 without spot. [GPU]"""
    rent = r.options.get("rent")
    if not isinstance(rent, RentOption) or rent.spot is None:
        return 0.0
    if isinstance(r.scenario.workload, TokensWorkload) and not r.scenario.workload.interruptible:
        return 0.0
    return math.inf if rent.spot.max_gpus is None else float(rent.spot.max_gpus)


def _sized(host: Resolved, replica: int, spare: int, minimum: int) -> Resolved:
    """The first member's options with the fleet's replica step, spare GPUs and minimum."""
    work = dataclasses.replace(host.workload, gpus_per_replica=replica, spare_gpus=spare, minimum_gpus=minimum)
    options = dict(host.options)
    own = options.get("own")
    if isinstance(own, OwnOption):
        step = int(formulas.gpus_per_server_step(own.gpus_per_server, replica))
        options["own"] = dataclasses.replace(own, step_gpus=step)
    return dataclasses.replace(host, workload=work, options=options)


def _spot_limit(parts: list[_Part], ceiling: float, fleet_cap: int | None) -> np.ndarray:
    """Spot's limit each hour: K_h = Σ_m min(d_m,h, u · cap_m), at most u times the fleet's cap. [GPU busy]"""
    limit = np.sum([np.minimum(p.demand, ceiling * p.spot_cap) for p in parts], axis=0)
    return limit if fleet_cap is None else np.minimum(limit, ceiling * fleet_cap)


def _costed(r: Resolved, demand: np.ndarray, limit: np.ndarray | None) -> tuple[dict[str, float], Mix]:
    """Each option alone and the cheapest mix for ``demand``, cheapest first. [currency/month]"""
    pure, _ = pure_costs(r, demand, limit)
    figures = {_PURE_TO_CANDIDATE.get(k, k): float(v) for k, v in pure.items()}
    mix = cheapest_mix(r, demand, spot_limit=limit)
    if mix.layers and mix.total < min(figures.values(), default=math.inf) - 1e-9 * max(abs(mix.total), 1.0):
        figures[MIX] = float(mix.total)
    for k, v in figures.items():
        if not np.isfinite(v):
            raise ValueError(f"the fleet's {k} figure is not finite; check the members' inputs")
    return dict(sorted(figures.items(), key=lambda kv: kv[1])), mix


def _paid_hourly(r: Resolved, winner: str, mix: Mix, demand: np.ndarray) -> np.ndarray:
    """GPUs the winner pays for in each hour: those held, and those paid by use as they are used. [GPU]"""
    if winner == MIX:
        held = sum(layer.gpus for k, layer in mix.layers.items() if k in _HELD)
        by_use = [served for k, served in mix.hourly.items() if k not in _HELD]
        return held + (np.sum(by_use, axis=0) if by_use else np.zeros_like(demand))
    need = (float(demand.max()) if demand.size else 0.0) / r.workload.hourly_ceiling
    option = r.options.get("own" if winner == "own" else "rent")
    if winner == "own" and isinstance(option, OwnOption):
        servers = float(np.max(np.asarray(own_servers_for(r, need), dtype=float)))
        return np.full(demand.shape, servers * option.gpus_per_server)
    if isinstance(option, RentOption) and (winner == RESERVED or (winner == "rent" and option.billing == "always_on")):
        return np.full(demand.shape, float(np.max(np.asarray(rent_gpus_for(r, need), dtype=float))))
    return demand


def _check_member(r: Resolved, where: str, host: Resolved | None, count: int) -> None:
    problems = []
    if measure_of(r) != Measure.HOURLY_MONTHLY_COST:
        problems.append(
            (
                "(top level)",
                r.scenario.title,
                "a member needs a demand profile sized in GPUs, no finance block, not a training run",
            )
        )
    elif host is not None and r.workload.gpu.gpu != host.workload.gpu.gpu:
        problems.append(
            (
                "workload.gpu",
                r.workload.gpu.gpu,
                f"every member must run on the first member's GPU, {host.workload.gpu.gpu}",
            )
        )
    elif host is not None and r.currency != host.currency:
        # each member's answer alone is in its own currency: summed with the first's, a EUR member made
        # "Sharing saves -1,047.64 USD/month"
        problems.append(
            (
                "reporting_currency",
                r.currency,
                f"every member must report in the first member's currency, {host.currency} "
                "(convert its prices with fx.rates)",
            )
        )
    elif host is not None and not math.isclose(
        float(r.workload.hourly_ceiling), float(host.workload.hourly_ceiling), rel_tol=1e-12
    ):
        problems.append(
            (
                "workload",
                float(r.workload.hourly_ceiling),
                "every member must share the first member's hourly utilisation ceiling, "
                f"{float(host.workload.hourly_ceiling):g} (capacity for an hour's demand d is d / that ceiling)",
            )
        )
    if count > 1 and host is None and any(o.kind == "api" for o in r.options.values()):
        problems.append(
            (
                "options",
                [k for k, o in r.options.items() if o.kind == "api"],
                "a fleet of several workloads shares GPU capacity; an API option prices one model's tokens",
            )
        )
    if problems:
        raise InputError(where, problems)


def _scenario_part(
    m: FleetMember, path: Path, host: Resolved | None, count: int, hours: int | None
) -> tuple[Resolved, _Part]:
    r = as_resolved(load_scenario(path))
    _check_member(r, str(path), host, count)
    d = np.asarray(hourly_demand(r), dtype=float)
    if hours is not None and d.shape[-1] != hours:
        raise InputError(path, [("demand", d.shape[-1], f"hours must match the first member's, {hours}")])
    decision = decide(r, mix=mix_result(r))
    answer = MemberAnswer(
        m.name, m.team, str(path), HOURS_PER_MONTH * float(np.mean(d)), decision.winner, decision.winning.figure
    )
    w = r.workload
    return r, _Part(answer, d, int(w.gpus_per_replica), int(w.spare_gpus), int(w.minimum_gpus), _spot_cap(r))


def _in_member(exc: InputError, where: str, index: int, reference: str, path: Path) -> InputError:
    """A member scenario's problems named in the fleet file, at the member's ``scenario`` field: a file
    that cannot be read with the path it resolved to, a bad value with the scenario file and its field."""
    field = f"members.{index}.scenario"
    problems = []
    for inner, value, reason in exc.problems:
        if inner == "(file)" and exc.path == str(path):
            hint = ""
            if Path(reference).suffix == "" and len(Path(reference).parts) == 1:
                hint = f"; nor a bundled scenario{did_you_mean(reference, bundled_scenarios())}"
            problems.append((field, reference, f"{reason} (resolved to {path.resolve()}){hint}"))
        else:
            problems.append((f"{field}: {exc.path or path}: {inner}", value, reason))
    return InputError(where, problems)


def _fine_tune_part(m: FineTuneMember, host: Resolved, hours: int, where: str) -> _Part:
    run = fine_tune_gpu_hours(m, host, where)
    d, months = fine_tune_demand(m, run, hours, where)
    cap = math.inf if m.spot_max_gpus is None else float(m.spot_max_gpus)
    alone_r = _sized(host, 1, 0, 0)
    limit = np.minimum(d, float(host.workload.hourly_ceiling) * cap)
    figures, _ = _costed(alone_r, d, limit)
    winner = next(iter(figures))
    answer = MemberAnswer(
        m.name,
        m.team,
        f"fine-tune of {m.model or 'a model'} every {m.every_months} months",
        HOURS_PER_MONTH * float(np.mean(d)),
        winner,
        figures[winner],
        "fine_tune",
        run,
        months,
    )
    return _Part(answer, d, 1, 0, 0, cap)


def compare_fleet(fleet: str | Path | Fleet, base: str | Path | None = None) -> FleetResult:
    """The fleet's cheapest way to pay for its members' summed hourly demand, and each team's share.

    Parameters
    ----------
    fleet
        A fleet file's path, or a fleet (member paths relative to ``base``).
    base
        Folder member paths are relative to; default the fleet file's folder.

    Returns
    -------
    FleetResult

    Raises
    ------
    InputError
        A bad fleet file, a member without an hourly GPU demand, on another GPU or another
        hourly ceiling, (with several members) a first member offering an API, or a fine-tune
        run longer than its month.
    """
    if isinstance(fleet, Fleet):
        doc, folder, where = fleet, Path(base or "."), "fleet"
    else:
        doc, folder, where = load_fleet(fleet), Path(base or Path(fleet).parent), str(fleet)
    host: Resolved | None = None
    parts: list[_Part] = []
    for i, m in enumerate(doc.members):
        if isinstance(m, FleetMember):
            hours = parts[0].demand.shape[-1] if parts else None
            path = referenced_scenario(m.scenario, folder)
            try:
                r, part = _scenario_part(m, path, host, len(doc.members), hours)
            except InputError as exc:
                raise _in_member(exc, where, i, m.scenario, path) from None
            host = host or r
        else:
            assert host is not None, "the schema puts a scenario first"
            part = _fine_tune_part(m, host, parts[0].demand.shape[-1], where)
        parts.append(part)
    assert host is not None  # the schema requires one member at least
    demand = np.sum([p.demand for p in parts], axis=0)
    if len(parts) == 1 and doc.spot_max_gpus is None:
        fleet_r, limit = host, None
    else:
        fleet_r = _sized(
            host,
            math.gcd(*(p.replica for p in parts)),
            max(p.spare for p in parts),
            max(p.minimum for p in parts),
        )
        limit = _spot_limit(parts, float(host.workload.hourly_ceiling), doc.spot_max_gpus)
    figures, mix = _costed(fleet_r, demand, limit)
    single = decide(host, mix=mix_result(host)) if len(parts) == 1 and limit is None else None
    winner = single.winner if single is not None else next(iter(figures))
    members = [p.answer for p in parts]
    used = sum(m.gpu_hours for m in members)
    paid_hourly = _paid_hourly(fleet_r, winner, mix, demand)
    paid = max(HOURS_PER_MONTH * float(np.mean(paid_hourly)), used)
    teams = doc.teams
    hours = [sum(p.answer.gpu_hours for p in parts if p.answer.team == t) for t in teams]
    showback = _showback(doc, hours, figures[winner], paid, used)
    lengths = month_hours(demand.shape[-1])
    costs = _month_costs(fleet_r, winner, mix, demand, figures[winner], lengths)
    monthly = _monthly(doc, parts, costs, paid_hourly, lengths)
    return FleetResult(doc.title, host.currency, figures, winner, mix, demand, members, showback, paid, used, monthly)


def _cents(amount: float | Decimal) -> int:
    """An amount to whole cents, half to even. [cent]"""
    value = amount if isinstance(amount, Decimal) else Decimal(repr(amount))
    return int((value * 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def _showback(doc: Fleet, hours: list[float], total: float | Decimal, paid: float, used: float) -> list[TeamShare]:
    """Each team's share of ``total``: used part by GPU-hours, idle part C · (P − U) / P by the fleet's rule."""
    cents = _cents(total)
    idle_cents = int(round(cents * max(paid - used, 0.0) / paid)) if paid > 0 else 0
    teams = doc.teams
    weights = [Fraction(h) for h in hours]
    used_split = _largest_remainder(cents - idle_cents, weights)
    if isinstance(doc.idle_cost, IdleOwner):
        idle_split = [idle_cents if t == doc.idle_cost.owner else 0 for t in teams]
    else:
        idle_split = _largest_remainder(idle_cents, weights)
    return [
        TeamShare(t, h, h / used if used > 0 else 0.0, Decimal(u + i) / 100, Decimal(i) / 100)
        for t, h, u, i in zip(teams, hours, used_split, idle_split, strict=True)
    ]


def _month_costs(
    r: Resolved, winner: str, mix: Mix, demand: np.ndarray, total: float, lengths: np.ndarray
) -> np.ndarray:
    """The winner's cost in each calendar month: what is held (owned servers with their electricity, reserved
    and 24/7 rentals) and the staff by the month's hours, what is paid by use by the month's use. [currency]"""
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    year = float(bounds[-1]) / HOURS_PER_MONTH  # months of 730 h in the year [-]

    def by_use(series: np.ndarray) -> np.ndarray:
        sums = np.add.reduceat(series, bounds[:-1].astype(int))
        whole = float(np.sum(series))
        return sums / whole if whole > 0 else lengths / float(bounds[-1])

    flat = lengths / HOURS_PER_MONTH
    if winner == MIX:
        costs = (mix.staffing + sum(layer.cost for k, layer in mix.layers.items() if k in _HELD)) * flat
        for k, layer in mix.layers.items():
            if k not in _HELD:
                costs = costs + layer.cost * year * by_use(mix.hourly[k])
        return costs
    option = r.options.get(winner)
    if winner == SPOT or (isinstance(option, RentOption) and option.billing != "always_on"):
        return total * year * by_use(demand)
    return total * flat


def _monthly(
    doc: Fleet, parts: list[_Part], costs: np.ndarray, paid_hourly: np.ndarray, lengths: np.ndarray
) -> list[MonthShare]:
    """The showback of each calendar month: the month's cost split by the month's use, idle by the fleet's rule."""
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    found = []
    for i, length in enumerate(lengths):
        window = slice(int(bounds[i]), int(bounds[i + 1]))
        hours = [float(sum(np.sum(p.demand[window]) for p in parts if p.answer.team == t)) for t in doc.teams]
        used = sum(hours)
        paid = max(float(np.sum(paid_hourly[window])), used)
        cost = Decimal(_cents(float(costs[i]))) / 100
        found.append(MonthShare(i + 1, int(length), cost, _showback(doc, hours, cost, paid, used)))
    return found


__all__ = [
    "MONTH_DAYS",
    "FleetResult",
    "MemberAnswer",
    "MonthShare",
    "TeamShare",
    "compare_fleet",
    "fine_tune_demand",
    "fine_tune_gpu_hours",
    "load_fleet",
    "month_hours",
]

"""Several workloads on one fleet: capacity sized on their summed hourly demand, and showback.

Each member is a scenario with a demand profile sized in GPUs; its hourly GPU series is
:func:`costmodel.domain.demand.hourly_demand`. The fleet's demand is the sum of the series,
hour by hour; the fleet's ways to pay (the first member's options) are costed on it as a
single scenario's are (:func:`costmodel.domain.mix.pure_costs` for each option alone,
:func:`costmodel.domain.mix.cheapest_mix` for the mix), on the monthly cost of serving the
demand hour by hour. With one member the answer is that scenario's.

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

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from ..errors import InputError
from ..io.yaml_files import parse_yaml
from ..resolved import OwnOption, RentOption, Resolved, as_resolved
from ..results import Layer, Measure, Mix
from ..scenarios import load_scenario
from ..schema.fleet import Fleet, IdleOwner
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
        Its own decision's winner and figure. [-], [currency/month]
    """

    name: str
    team: str
    path: str
    gpu_hours: float
    winner: str
    alone: float


@dataclass(frozen=True)
class TeamShare:
    """One team's showback line. Money in cents-exact Decimal. [currency/month]"""

    team: str
    gpu_hours: float
    share: float
    allocated: Decimal
    idle: Decimal


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
        """Plain data for JSON; money of the showback as strings of cents-exact decimals."""
        return {
            "title": self.title,
            "currency": self.currency,
            "unit": f"{self.currency}/month",
            "winner": self.winner,
            "figures": self.figures,
            "alone": self.alone,
            "saving": self.saving,
            "paid_gpu_hours": self.paid_gpu_hours,
            "used_gpu_hours": self.used_gpu_hours,
            "members": [
                {
                    "name": m.name,
                    "team": m.team,
                    "scenario": m.path,
                    "gpu_hours": m.gpu_hours,
                    "winner": m.winner,
                    "alone": m.alone,
                }
                for m in self.members
            ],
            "showback": [
                {
                    "team": s.team,
                    "gpu_hours": s.gpu_hours,
                    "share": s.share,
                    "allocated": str(s.allocated),
                    "idle": str(s.idle),
                }
                for s in self.showback
            ],
        }


def load_fleet(path: str | Path) -> Fleet:
    """Read and validate a fleet file; errors name the file, the field, the value and the rule."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(p, [("(file)", str(p), f"cannot be read: {e.strerror}")]) from None
    data = parse_yaml(text, p)
    try:
        return Fleet.model_validate(data)
    except ValidationError as e:
        raise InputError(
            p,
            [
                (".".join(str(x) for x in err["loc"]) or "(document)", err.get("input"), err["msg"])
                for err in e.errors()
            ],
        ) from None


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


def _paid_gpu_hours(host: Resolved, winner: str, mix: Mix, demand: np.ndarray) -> float:
    """GPU-hours a month the winner pays for. [GPU-h/month]"""
    busy = HOURS_PER_MONTH * float(np.mean(demand)) if demand.size else 0.0
    if winner == MIX:
        return sum(
            layer.gpus * HOURS_PER_MONTH if k in _HELD else layer.busy_gpu_hours for k, layer in mix.layers.items()
        )
    need = (float(demand.max()) if demand.size else 0.0) / host.workload.hourly_ceiling
    option = host.options.get("own" if winner == "own" else "rent")
    if winner == "own" and isinstance(option, OwnOption):
        servers = float(np.max(np.asarray(own_servers_for(host, need), dtype=float)))
        return servers * option.gpus_per_server * HOURS_PER_MONTH
    if isinstance(option, RentOption) and (winner == RESERVED or (winner == "rent" and option.billing == "always_on")):
        return float(np.max(np.asarray(rent_gpus_for(host, need), dtype=float))) * HOURS_PER_MONTH
    return busy


def _check_member(r: Resolved, where: str, host: Resolved | None, count: int) -> None:
    if measure_of(r) != Measure.HOURLY_MONTHLY_COST:
        raise InputError(
            where,
            [
                (
                    "members",
                    r.scenario.title,
                    "a member needs a demand profile sized in GPUs, no finance block, not a training run",
                )
            ],
        )
    if host is not None and r.workload.gpu.gpu != host.workload.gpu.gpu:
        raise InputError(
            where,
            [
                (
                    "workload.gpu",
                    r.workload.gpu.gpu,
                    f"every member must run on the first member's GPU, {host.workload.gpu.gpu}",
                )
            ],
        )
    if count > 1 and host is None and any(o.kind == "api" for o in r.options.values()):
        raise InputError(
            where,
            [
                (
                    "options",
                    [k for k, o in r.options.items() if o.kind == "api"],
                    "a fleet of several workloads shares GPU capacity; an API option prices one model's tokens",
                )
            ],
        )


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
        A bad fleet file, a member without an hourly GPU demand, on another GPU, or (with
        several members) a first member offering an API.
    """
    if isinstance(fleet, Fleet):
        doc, folder = fleet, Path(base or ".")
    else:
        doc, folder = load_fleet(fleet), Path(base or Path(fleet).parent)
    host: Resolved | None = None
    series: list[np.ndarray] = []
    members: list[MemberAnswer] = []
    for m in doc.members:
        path = folder / m.scenario
        r = as_resolved(load_scenario(path))
        _check_member(r, str(path), host, len(doc.members))
        host = host or r
        d = np.asarray(hourly_demand(r), dtype=float)
        if series and d.shape != series[0].shape:
            raise InputError(
                path, [("demand", d.shape[-1], f"hours must match the first member's, {series[0].shape[-1]}")]
            )
        series.append(d)
        decision = decide(r, mix=mix_result(r))
        members.append(
            MemberAnswer(
                m.name, m.team, str(path), HOURS_PER_MONTH * float(np.mean(d)), decision.winner, decision.winning.figure
            )
        )
    assert host is not None  # the schema requires one member at least
    demand = np.sum(series, axis=0)
    pure, _ = pure_costs(host, demand)
    figures = {_PURE_TO_CANDIDATE.get(k, k): float(v) for k, v in pure.items()}
    mix = cheapest_mix(host, demand)
    single = decide(host, mix=mix_result(host)) if len(doc.members) == 1 else None
    if mix.layers and mix.total < min(figures.values()) - 1e-9 * max(abs(mix.total), 1.0):
        figures[MIX] = float(mix.total)
    for k, v in figures.items():
        if not np.isfinite(v):
            raise ValueError(f"the fleet's {k} figure is not finite; check the members' inputs")
    figures = dict(sorted(figures.items(), key=lambda kv: kv[1]))
    winner = single.winner if single is not None else next(iter(figures))
    used = sum(m.gpu_hours for m in members)
    paid = max(_paid_gpu_hours(host, winner, mix, demand), used)
    showback = _showback(doc, members, figures[winner], paid, used)
    return FleetResult(doc.title, host.currency, figures, winner, mix, demand, members, showback, paid, used)


def _showback(doc: Fleet, members: list[MemberAnswer], total: float, paid: float, used: float) -> list[TeamShare]:
    cents = int((Decimal(repr(total)) * 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
    idle_cents = int(round(cents * (paid - used) / paid)) if paid > 0 else 0
    teams = doc.teams
    hours = [sum(m.gpu_hours for m in members if m.team == t) for t in teams]
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


__all__ = ["FleetResult", "MemberAnswer", "TeamShare", "compare_fleet", "load_fleet"]

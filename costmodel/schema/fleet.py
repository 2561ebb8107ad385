"""A fleet document: several workloads sharing one fleet of GPUs.

A member is a scenario file with a demand profile, or a recurring fine-tune stated in the fleet
file itself (a training run every K months on the fleet's GPU). The fleet's ways to pay (own,
rent, their prices) are those of its first member, which must be a scenario; each member's
hardware constraints stay its own (its spot cap, its replica size). ``idle_cost`` states how the
cost of capacity held but not used is shown back to the teams: in proportion to the GPU-hours
each uses, or all to one named team (as OpenCost assigns idle cost to a chosen owner).

References
----------
.. [1] OpenCost specification, "Idle costs" (opencost.io/docs/specification): idle cost is the
   cost of provisioned capacity not allocated to a workload; it may be shared or assigned.
.. [2] Kaplan, J. et al. (2020), "Scaling Laws for Neural Language Models", arXiv:2001.08361
   (training compute C = 6 N D).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, LiteralString

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from ..errors import did_you_mean
from ..units import LARGEST_INPUT, SMALLEST_INPUT, implausible_magnitude
from .base import OneLine, Text


def _failed(title: str, errors: list[InitErrorDetails]) -> None:
    """Raise every cross-field failure of a fleet block at once, each at its field (as a scenario's are)."""
    if errors:
        raise ValidationError.from_exception_data(title, errors)


def _error(
    loc: tuple[str | int, ...], value: Any, kind: LiteralString, message: LiteralString, **ctx: Any
) -> InitErrorDetails:
    return InitErrorDetails(type=PydanticCustomError(kind, message, ctx), loc=loc, input=value)


Name = Annotated[OneLine, Field(min_length=1, max_length=80)]
"""A member's name or team: text of one line, 1 to 80 characters."""


class FleetMember(BaseModel):
    """One workload on the fleet, a scenario file.

    Attributes
    ----------
    name
        The workload's name, unique in the fleet.
    team
        The team its cost is shown back to.
    kind
        ``scenario`` (the default).
    scenario
        Path of its scenario file, relative to the fleet file.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    team: Name
    kind: Literal["scenario"] = "scenario"
    scenario: Text = Field(min_length=1)


class FineTuneMember(BaseModel):
    """A model fine-tuned every ``every_months`` months on the fleet's GPU.

    Each run starts in the first hour of its month and holds ``gpus`` GPUs busy until its
    GPU-hours are done (``gpu_hours`` / ``gpus`` hours of wall clock, the last hour in part); it
    must end within that month. It runs in month ``first_month`` and every ``every_months``
    months after it, in the calendar months of the fleet's demand year.

    Attributes
    ----------
    name, team
        As for a scenario member.
    kind
        ``fine_tune``.
    model
        The catalog model fine-tuned (``data/models.csv``); its active parameters give the run's
        compute when ``tokens`` and ``mfu`` are given.
    serves
        The member (a scenario) that serves the fine-tuned model, if any. [-]
    every_months
        Months from one run to the next. [month]
    first_month
        Calendar month of the first run, 1 to 12. [-]
    gpus
        GPUs the run holds busy at once. [GPU]
    gpu_hours
        GPU-hours of one run, when known. [GPU-h]
    tokens
        Training tokens of one run (with ``model`` and ``mfu``): GPU-hours = 6 N D / (MFU ·
        peak · 3,600). [tokens]
    mfu
        Model FLOP utilisation of the run. [-]
    precision
        Precision whose dense peak the MFU is of. [-]
    spot_max_gpus
        Most GPUs of the run on spot at once; none: no cap, 0: no spot (the run checkpoints
        and restarts, so it may use spot). [GPU]
    source
        Where the run's figures come from, or ASSUMPTION.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    team: Name
    kind: Literal["fine_tune"]
    model: str | None = None
    serves: str | None = None
    every_months: int = Field(ge=1, le=12, description="Months from one run to the next. [month]")
    first_month: int = Field(1, ge=1, le=12, description="Calendar month of the first run. [-]")
    gpus: int = Field(ge=1, le=1_000_000, description="GPUs the run holds busy at once. [GPU]")
    gpu_hours: float | None = Field(None, gt=0, allow_inf_nan=False, description="GPU-hours of one run. [GPU-h]")
    tokens: float | None = Field(None, gt=0, allow_inf_nan=False, description="Training tokens of one run. [tokens]")
    mfu: float | None = Field(None, gt=0, le=1, allow_inf_nan=False, description="Model FLOP utilisation. [-]")
    precision: Literal["bf16", "fp8"] = "bf16"
    spot_max_gpus: int | None = Field(
        None, ge=0, le=1_000_000, description="Most GPUs of the run on spot at once. [GPU]"
    )
    source: Text = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> FineTuneMember:
        errors = []
        for field in ("gpu_hours", "tokens", "mfu"):
            value = getattr(self, field)
            if value is not None and implausible_magnitude(value):
                errors.append(
                    _error(
                        (field,),
                        value,
                        "implausible_magnitude",
                        "magnitude outside {low} to {high}: no real input is that large or small",
                        low=f"{SMALLEST_INPUT:g}",
                        high=f"{LARGEST_INPUT:g}",
                    )
                )
        if self.gpu_hours is None:
            for field in ("model", "tokens", "mfu"):
                if getattr(self, field) is None:
                    errors.append(
                        _error(
                            (field,), None, "fine_tune_size", "a fine-tune states gpu_hours, or model, tokens and mfu"
                        )
                    )
        else:
            for field in ("tokens", "mfu"):
                if getattr(self, field) is not None:
                    errors.append(
                        _error(
                            (field,), getattr(self, field), "fine_tune_size", "gpu_hours, or tokens and mfu, not both"
                        )
                    )
        _failed("FineTuneMember", errors)
        return self


MEMBER_KINDS = ("scenario", "fine_tune")
"""The kinds of fleet member (``kind:``; a member without one is a scenario)."""


class UnknownMember(FleetMember):
    """A member whose ``kind`` is neither kind: refused at ``kind`` alone, with the kinds there are, rather
    than as a scenario member whose every fine-tune field is "not a field here". Never built."""

    @model_validator(mode="before")
    @classmethod
    def _refuse(cls, data: Any) -> Any:
        kind = data.get("kind") if isinstance(data, dict) else None
        _failed(
            "UnknownMember",
            [
                _error(
                    ("kind",),
                    kind,
                    "member_kind",
                    "must be one of {kinds}{hint}",
                    kinds=", ".join(MEMBER_KINDS),
                    hint=did_you_mean(str(kind), MEMBER_KINDS),
                )
            ],
        )
        return data


MEMBER_TAGS = frozenset({"scenario_file", "fine_tune", "unknown_kind"})
"""The tags of :data:`Member`'s branches, as pydantic puts them in an error's location (left out of
the field an error names). A scenario member's tag is not ``scenario``, the name of one of its fields."""


def _member_kind(value: Any) -> str:
    """A member's branch: ``fine_tune`` for ``kind: fine_tune``, else a scenario file (whose ``kind``
    field then says what is wrong with any other kind)."""
    kind = value.get("kind", "scenario") if isinstance(value, dict) else getattr(value, "kind", "scenario")
    if kind not in MEMBER_KINDS:
        return "unknown_kind"
    return "fine_tune" if kind == "fine_tune" else "scenario_file"


Member = Annotated[
    Annotated[FleetMember, Tag("scenario_file")]
    | Annotated[FineTuneMember, Tag("fine_tune")]
    | Annotated[UnknownMember, Tag("unknown_kind")],
    Discriminator(_member_kind),
]
"""A fleet member: a scenario file (the default), or a recurring fine-tune (``kind: fine_tune``)."""


class IdleOwner(BaseModel):
    """Idle cost all to one team. ``owner``: the team (one of the members' teams)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    owner: str = Field(min_length=1)


class Fleet(BaseModel):
    """A fleet document (``kind: fleet``).

    Attributes
    ----------
    kind
        Always ``fleet``.
    title
        What the fleet is.
    members
        The workloads, at least one; the first one (a scenario) has the fleet's options.
    idle_cost
        ``proportional`` (idle cost shared in proportion to GPU-hours used) or ``{owner: TEAM}``.
    spot_max_gpus
        A cap on the whole fleet's spot GPUs at once, on top of each member's own. [GPU]
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["fleet"]
    title: OneLine = Field("", max_length=300)
    description: Text = ""
    members: list[Member] = Field(min_length=1)
    idle_cost: Literal["proportional"] | IdleOwner = "proportional"
    spot_max_gpus: int | None = Field(
        None, ge=0, le=1_000_000, description="Most spot GPUs of the whole fleet at once. [GPU]"
    )

    @field_validator("idle_cost", mode="before")
    @classmethod
    def _idle_rule(cls, value: Any) -> Any:
        """``proportional`` or a mapping ``{owner: TEAM}``; anything else named in those words, not pydantic's
        branches of the union."""
        if value == "proportional" or isinstance(value, dict | IdleOwner):
            return value
        raise PydanticCustomError(
            "idle_cost_rule",
            "must be proportional, or owner: TEAM (all idle cost to one team){hint}",
            {"hint": did_you_mean(str(value), ["proportional"]) if isinstance(value, str) else ""},
        )

    @model_validator(mode="after")
    def _check(self) -> Fleet:
        errors = []
        first: dict[str, int] = {}
        for i, m in enumerate(self.members):
            if m.name in first:
                errors.append(
                    _error(
                        ("members", i, "name"),
                        m.name,
                        "duplicate_member",
                        "each name must be unique in the fleet; members.{first}.name is '{name}' too",
                        first=first[m.name],
                        name=m.name,
                    )
                )
            first.setdefault(m.name, i)
        if not isinstance(self.members[0], FleetMember):
            errors.append(
                _error(
                    ("members", 0, "kind"),
                    self.members[0].kind,
                    "first_member",
                    "the first member must be a scenario (its options are the fleet's)",
                )
            )
        for i, m in enumerate(self.members):
            if isinstance(m, FineTuneMember) and m.serves is not None:
                served = next((x for x in self.members if x.name == m.serves), None)
                if not isinstance(served, FleetMember):
                    errors.append(
                        _error(("members", i, "serves"), m.serves, "serves", "must name a scenario member of the fleet")
                    )
        teams = sorted({m.team for m in self.members})
        if isinstance(self.idle_cost, IdleOwner) and self.idle_cost.owner not in teams:
            errors.append(
                _error(
                    ("idle_cost", "owner"),
                    self.idle_cost.owner,
                    "idle_owner",
                    "must be one of the members' teams ({teams}){hint}",
                    teams=", ".join(teams),
                    hint=did_you_mean(self.idle_cost.owner, teams),
                )
            )
        _failed("Fleet", errors)
        return self

    @property
    def teams(self) -> list[str]:
        """The members' teams, in the order they first appear."""
        return list(dict.fromkeys(m.team for m in self.members))


def is_fleet_data(data: Any) -> bool:
    """Whether parsed YAML is a fleet document: a mapping with ``kind: fleet``, or with ``members``
    and no ``workload`` (a fleet file whose ``kind`` was left out).

    Examples
    --------
    >>> is_fleet_data({"kind": "fleet", "members": []}), is_fleet_data({"members": [], "title": "t"})
    (True, True)
    >>> is_fleet_data({"workload": {}, "options": {}}), is_fleet_data([1, 2])
    (False, False)
    """
    return isinstance(data, dict) and (data.get("kind") == "fleet" or ("members" in data and "workload" not in data))


def is_scenario_data(data: Any) -> bool:
    """Whether parsed YAML is a scenario, not a fleet: a mapping with a ``workload``, no ``kind`` and
    no ``members``.

    Examples
    --------
    >>> is_scenario_data({"workload": {}, "options": {}}), is_scenario_data({"kind": "fleet", "workload": {}})
    (True, False)
    """
    return isinstance(data, dict) and "workload" in data and "kind" not in data and "members" not in data


__all__ = [
    "MEMBER_KINDS",
    "MEMBER_TAGS",
    "FineTuneMember",
    "Fleet",
    "FleetMember",
    "IdleOwner",
    "Member",
    "UnknownMember",
    "is_fleet_data",
    "is_scenario_data",
]

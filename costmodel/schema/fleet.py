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

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator


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

    name: str = Field(min_length=1)
    team: str = Field(min_length=1)
    kind: Literal["scenario"] = "scenario"
    scenario: str = Field(min_length=1)


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

    name: str = Field(min_length=1)
    team: str = Field(min_length=1)
    kind: Literal["fine_tune"]
    model: str | None = None
    serves: str | None = None
    every_months: int = Field(ge=1, le=12, description="Months from one run to the next. [month]")
    first_month: int = Field(1, ge=1, le=12, description="Calendar month of the first run. [-]")
    gpus: int = Field(ge=1, description="GPUs the run holds busy at once. [GPU]")
    gpu_hours: float | None = Field(None, gt=0, allow_inf_nan=False, description="GPU-hours of one run. [GPU-h]")
    tokens: float | None = Field(None, gt=0, allow_inf_nan=False, description="Training tokens of one run. [tokens]")
    mfu: float | None = Field(None, gt=0, le=1, allow_inf_nan=False, description="Model FLOP utilisation. [-]")
    precision: Literal["bf16", "fp8"] = "bf16"
    spot_max_gpus: int | None = Field(None, ge=0, description="Most GPUs of the run on spot at once. [GPU]")
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> FineTuneMember:
        by_tokens = (self.model, self.tokens, self.mfu)
        if self.gpu_hours is None and None in by_tokens:
            raise ValueError(
                f"members.{self.name}: a fine-tune states gpu_hours, or model, tokens and mfu "
                f"(got model={self.model!r}, tokens={self.tokens!r}, mfu={self.mfu!r})"
            )
        if self.gpu_hours is not None and (self.tokens is not None or self.mfu is not None):
            raise ValueError(f"members.{self.name}: gpu_hours, or tokens and mfu, not both")
        return self


def _member_kind(value: Any) -> str:
    """A member's kind: its ``kind`` field, ``scenario`` when left out."""
    kind = value.get("kind", "scenario") if isinstance(value, dict) else getattr(value, "kind", "scenario")
    return kind if kind in ("scenario", "fine_tune") else "scenario"


Member = Annotated[
    Annotated[FleetMember, Tag("scenario")] | Annotated[FineTuneMember, Tag("fine_tune")],
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
    title: str = ""
    description: str = ""
    members: list[Member] = Field(min_length=1)
    idle_cost: Literal["proportional"] | IdleOwner = "proportional"
    spot_max_gpus: int | None = Field(None, ge=0, description="Most spot GPUs of the whole fleet at once. [GPU]")

    @model_validator(mode="after")
    def _check(self) -> Fleet:
        names = [m.name for m in self.members]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(f"members: each name must be unique in the fleet; repeated: {', '.join(doubled)}")
        if not isinstance(self.members[0], FleetMember):
            raise ValueError("members: the first member must be a scenario (its options are the fleet's)")
        for m in self.members:
            if isinstance(m, FineTuneMember) and m.serves is not None:
                served = next((x for x in self.members if x.name == m.serves), None)
                if not isinstance(served, FleetMember):
                    raise ValueError(
                        f"members.{m.name}.serves: must name a scenario member of the fleet; got {m.serves!r}"
                    )
        teams = {m.team for m in self.members}
        if isinstance(self.idle_cost, IdleOwner) and self.idle_cost.owner not in teams:
            raise ValueError(
                f"idle_cost.owner: must be one of the members' teams ({', '.join(sorted(teams))}); "
                f"got {self.idle_cost.owner!r}"
            )
        return self

    @property
    def teams(self) -> list[str]:
        """The members' teams, in the order they first appear."""
        return list(dict.fromkeys(m.team for m in self.members))


__all__ = ["FineTuneMember", "Fleet", "FleetMember", "IdleOwner", "Member"]

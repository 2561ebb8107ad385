"""A fleet document: several workloads, each a scenario file, sharing one fleet of GPUs.

The fleet's capacity kinds (own, rent, their prices and sizing rules) are those of its first
member; every member is a scenario whose demand is hour by hour on GPUs of the same type.
``idle_cost`` states how the cost of capacity held but not used is shown back to the teams:
in proportion to the GPU-hours each uses, or all to one named team (as OpenCost assigns idle
cost to a chosen owner).

References
----------
.. [1] OpenCost specification, "Idle costs" (opencost.io/docs/specification): idle cost is the
   cost of provisioned capacity not allocated to a workload; it may be shared or assigned.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class FleetMember(BaseModel):
    """One workload on the fleet.

    Attributes
    ----------
    name
        The workload's name, unique in the fleet.
    team
        The team its cost is shown back to.
    scenario
        Path of its scenario file, relative to the fleet file.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    team: str = Field(min_length=1)
    scenario: str = Field(min_length=1)


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
        The workloads, at least one; the first one's options are the fleet's.
    idle_cost
        ``proportional`` (idle cost shared in proportion to GPU-hours used) or ``{owner: TEAM}``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["fleet"]
    title: str = ""
    description: str = ""
    members: list[FleetMember] = Field(min_length=1)
    idle_cost: Literal["proportional"] | IdleOwner = "proportional"

    @model_validator(mode="after")
    def _check(self) -> Fleet:
        names = [m.name for m in self.members]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(f"members: each name must be unique in the fleet; repeated: {', '.join(doubled)}")
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


__all__ = ["Fleet", "FleetMember", "IdleOwner"]

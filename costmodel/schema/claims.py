"""Stated figures: what a scenario's source document claims, to be checked against the model.

A ``claims:`` block lists statements of the brief, paper or quote the scenario comes from,
each with the figure it states and a tolerance. The comparison shows each one as
confirmed or contradicted, with the computed value and the single inputs that would have to
change for it to hold (:mod:`costmodel.domain.claims`). Claims change no figure.

.. code-block:: yaml

    claims:
      - statement: "total about EUR 12,000/month"
        kind: monthly_cost           # an option's monthly cost at the scenario's volume
        option: rent
        value: 12000
        currency: EUR
        tolerance: 0.05
      - statement: "the two cost the same at about 3.4x today's volume"
        kind: break_even             # the volume at which two options cost the same ...
        options: [rent, api]
        volume_multiple: 3.4         # ... as a multiple of the scenario's volume (or volume:)
        tolerance: 0.25
      - statement: "if volume grew 10x, the answer would flip (self-hosting would pay)"
        kind: cheapest               # one option costs less than another ...
        option: rent
        options: [rent, api]
        volume_multiple: 10          # ... at a volume (or volume:; neither: the scenario's)
      - statement: "pretraining takes 2.664 M GPU-hours"
        kind: gpu_hours              # GPU-hours used per month (a training run: the run's)
        value: 2664000
      - statement: "the run used 21.6 GWh"
        kind: figure                 # any figure of `costmodel compare --json`, by its path
        figure: energy.options.own.energy_kwh_per_month
        value: 21.6
        unit: GWh/month              # converted to the output's unit (kWh/month)
      - statement: "renting saves 28 % against owning"
        kind: figure
        figure: options.rent.monthly_cost
        relative_to: options.own.monthly_cost    # or baseline: another scenario file
        relation: share_saved        # 1 - figure / other; saving: other - figure; ratio: figure / other
        value: 0.28
"""

from __future__ import annotations

from typing import Annotated, Literal, LiteralString

from pydantic import ConfigDict, Field, model_validator

from ..catalog import Currency
from ..errors import worded_pattern
from .base import (
    InputModel,
    NonNegative,
    Positive,
    Source,
    Text,
    absent,
    both,
    either,
    equals,
    fail,
    given,
    never,
    one_of,
    rules,
    when,
)

FIGURE_PATH = worded_pattern(
    r"^[a-z_][a-z0-9_:-]*(\.[a-z0-9_:-]+( [a-z0-9_:-]+)*)*$",
    "the path of a figure of `costmodel compare --json`: lower-case keys joined by dots (options.api.monthly_cost)",
)
"""A figure's path in the output: keys (and list indices) joined by dots."""

OptionName = Annotated[
    str,
    Field(
        pattern=worded_pattern(
            r"^(own|rent|api)$|^(rent|api):[a-z0-9][a-z0-9-]{0,39}$",
            "own, rent, api, or rent:<name> or api:<name> (a name of options.rents or options.apis)",
            ("own", "rent", "api"),
        ),
        description="own, rent, api, or a further offer: rent:<name> or api:<name>.",
    ),
]
"""An option of the scenario: own, rent, api, or one of options.rents or options.apis by its option name."""


_CLAIM_FIELDS = (
    "option",
    "options",
    "value",
    "currency",
    "volume",
    "volume_multiple",
    "figure",
    "unit",
    "relative_to",
    "baseline",
    "relation",
)
_CLAIM_TAKES = {
    "monthly_cost": ("option", "value", "currency"),
    "break_even": ("options", "volume", "volume_multiple"),
    "cheapest": ("option", "options", "volume", "volume_multiple"),
    "gpu_hours": ("value", "option"),
    "figure": ("value", "figure", "unit", "currency", "relative_to", "baseline", "relation"),
}
"""The fields each kind of claim takes (:meth:`Claim._complete`)."""
DEFAULT_TOLERANCE = 0.05
"""A claim's tolerance unless it states one; a cheapest claim takes none (it keeps this default, which it
does not use)."""
_NOT_NEGATIVE = {"properties": {"value": {"minimum": 0}}}
_CLAIM_RULES = {
    "monthly_cost": (given("option", "value"), _NOT_NEGATIVE),
    "break_even": (
        given("options"),
        {"properties": {"options": {"uniqueItems": True}}},
        one_of("volume", "volume_multiple"),
    ),
    "cheapest": (
        given("option", "options"),
        {"properties": {"options": {"uniqueItems": True}}},
        never(given("volume", "volume_multiple")),
        {"properties": {"tolerance": {"const": DEFAULT_TOLERANCE}}},  # the default, as a copy of the data holds it
    ),
    "gpu_hours": (given("value"), _NOT_NEGATIVE),
    "figure": (
        given("value", "figure"),
        never(given("relative_to", "baseline")),
        when(either(given("relative_to"), given("baseline")), given("relation")),
        when(both(absent("relative_to"), absent("baseline")), absent("relation")),
    ),
}
"""JSON Schema of :meth:`Claim._complete`, by kind."""


class Claim(InputModel):
    """One figure stated by the scenario's source document."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            *[
                when(
                    equals(kind=kind),
                    both(*rule, absent(*(name for name in _CLAIM_FIELDS if name not in _CLAIM_TAKES[kind]))),
                )
                for kind, rule in _CLAIM_RULES.items()
            ]
        )
    )

    statement: Text = Field(min_length=1, description="The claim in the source's own words.")
    kind: Literal["monthly_cost", "break_even", "cheapest", "gpu_hours", "figure"] = Field(
        description="monthly_cost: an option's monthly cost; break_even: the volume at which two options cost the "
        'same; cheapest: one option costs less than another at a volume ("the answer would flip"), on the measure '
        "the verdict ranks on; "
        "gpu_hours: GPU-hours used per month, or a training run's total; figure: any figure of "
        "the output (costmodel compare --json) by its path, alone or relative to another."
    )
    option: OptionName | None = Field(
        default=None, description="For monthly_cost; for cheapest: the option stated to cost less (one of options)."
    )
    options: tuple[OptionName, OptionName] | None = Field(
        default=None,
        strict=False,
        description="For break_even and cheapest: the two options compared (a YAML list of two).",
    )
    value: float | None = Field(
        default=None,
        strict=True,
        description="The stated figure (monthly_cost, gpu_hours: at least 0; figure: any sign). [the figure's unit]",
    )
    figure: str | None = Field(
        default=None,
        pattern=FIGURE_PATH,
        description="For figure: the path of a figure in "
        "the output, e.g. options.api.cost_per_request or energy.options.own."
        "energy_kwh_per_month (list items by index: decision.candidates.0.figure).",
    )
    unit: str | None = Field(
        default=None,
        max_length=40,
        description="For figure: the unit of the stated value; "
        "converted to the output's (GWh to kWh, t to kg, k/M tokens, a currency at the "
        "scenario's rate); default: the output's unit.",
    )
    relative_to: str | None = Field(
        default=None,
        pattern=FIGURE_PATH,
        description="For figure: a second figure of "
        "the same output the stated value relates the first to (see relation).",
    )
    baseline: str | None = Field(
        default=None,
        min_length=1,
        max_length=500,
        description="For figure: another "
        "scenario (a file, relative to this one, or a bundled name) whose same figure the "
        "stated value relates the first to.",
    )
    relation: Literal["ratio", "saving", "share_saved"] | None = Field(
        default=None,
        description="With relative_to or baseline: ratio = figure / other [-]; saving = other - "
        "figure [the figure's unit]; share_saved = 1 - figure / other [-].",
    )
    currency: Currency | None = Field(default=None, description="Currency of a stated cost; default: reporting.")
    volume: NonNegative | None = Field(
        default=None,
        description="A stated break-even volume; for cheapest, the volume it is stated at (default: the "
        "scenario's; none for a training run, whose cheapest claim is on the whole run's cost). [workload unit]",
    )
    volume_multiple: Positive | None = Field(
        default=None,
        description="volume as a multiple of the scenario's volume. [-]",
    )
    tolerance: Positive = Field(
        default=DEFAULT_TOLERANCE,
        le=10,
        description="Largest relative gap |computed/stated - 1| that still confirms (not for cheapest: it holds "
        "when its option costs less). [-]",
    )
    source: Source = ""

    @model_validator(mode="after")
    def _complete(self) -> Claim:
        def need(field: str, rule: LiteralString):
            return fail("Claim", (field,), "claim_incomplete", rule, getattr(self, field))

        if self.kind == "monthly_cost":
            if self.option is None:
                raise need("option", "a monthly_cost claim names its option (own, rent or api)")
            if self.value is None:
                raise need("value", "a monthly_cost claim states its value")
        elif self.kind == "break_even":
            if self.options is None or self.options[0] == self.options[1]:
                raise need("options", "a break_even claim names two different options")
            if (self.volume is None) == (self.volume_multiple is None):
                raise need("volume", "a break_even claim states either volume or volume_multiple, not both")
        elif self.kind == "cheapest":
            if self.options is None or self.options[0] == self.options[1]:
                raise need("options", "a cheapest claim names the two options it compares")
            if self.option not in self.options:
                raise need("option", "a cheapest claim names which of its two options costs less (option)")
            if self.volume is not None and self.volume_multiple is not None:
                raise need("volume", "a cheapest claim states volume or volume_multiple, not both")
            if self.tolerance != DEFAULT_TOLERANCE:  # else a stated margin would be dropped without a word
                raise need("tolerance", "a cheapest claim takes no tolerance (it holds when its option costs less)")
        elif self.value is None:
            raise need("value", f"a {self.kind} claim states its value")
        if self.kind == "figure":
            if self.figure is None:
                raise need("figure", "a figure claim names the figure's path in the output (costmodel compare --json)")
            if (self.relative_to is None and self.baseline is None) != (self.relation is None):
                raise need(
                    "relation",
                    "a figure claim relative to another figure (relative_to or baseline) states "
                    "its relation (ratio, saving or share_saved), and only then",
                )
            if self.relative_to is not None and self.baseline is not None:
                raise fail(
                    "Claim", ("baseline",), "claim_unused", "give relative_to or baseline, not both", self.baseline
                )
        elif self.value is not None and self.value < 0:
            raise fail(
                "Claim",
                ("value",),
                "claim_negative",
                "a {kind} claim's value is at least 0",
                self.value,
                kind=self.kind,
            )
        takes = set(_CLAIM_TAKES[self.kind])
        unused = [name for name in _CLAIM_FIELDS if getattr(self, name) is not None and name not in takes]
        if unused:
            raise fail(
                "Claim",
                (unused[0],),
                "claim_unused",
                "a {kind} claim takes no {name}: remove it",
                getattr(self, unused[0]),
                kind=self.kind,
                name=unused[0],
            )
        return self


Claims = list[Claim]

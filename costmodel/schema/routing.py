"""Routing across models: the requests split by class, each class served by one of the scenario's options.

A router sends each request to the option that serves its class: the easy 70 % to a self-hosted
8B model, the rest to a frontier API. The classes' shares of requests sum to 1 and their tokens
per request give each class's tokens; the workload's ``tokens_per_day`` is the traffic of all
classes together, so the number of requests a day is ``tokens_per_day / sum(share * (input +
output tokens per request))``. Each class is costed on its own option with that option's cost
functions (capacity sized for the class's tokens alone) and the blended cost is their sum
(:mod:`costmodel.domain.routing`). The options serving everything stay the scenario's other
candidates; ``baseline`` names the one the saving is measured against.

A success rate (the share of tasks the option completes correctly, from a benchmark or an
evaluation of one's own) gives the cost per successful task: cost per task / success rate. A
class may state its own rate (a small model does better on the easy class than on the whole
mix); otherwise its option's rate applies.

References
----------
.. [1] Ong, I. et al. (2024), "RouteLLM: Learning to Route LLMs with Preference Data",
   arXiv:2406.18665: routing a share of queries to a weaker, cheaper model and the rest to a
   strong one, with the cost and quality of the blend.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from .base import SHORT_NAME, InputModel, PositiveShare, Text, Whole, fail, given, quantity, rules, when

DECISION_MEASURES = ("cost_per_successful_task",)
"""Decision measures a scenario may choose instead of the one its blocks imply."""

SHARE_TOLERANCE = 1e-9
"""Largest difference from 1 of the classes' shares of requests. [-]"""


def success_rate_field(what: str) -> Any:
    """The optional ``success_rate`` field of an option or a routing class (its source in ``success_rate_source``)."""
    return quantity(
        None,
        unit="-",
        title="success rate",
        gt=0,
        le=1,
        description=f"Share of tasks {what} completes correctly (a benchmark's pass rate or an evaluation's); "
        "gives the cost per successful task, cost per task / success rate. Give success_rate_source with it.",
    )


def success_source_field() -> Any:
    """The ``success_rate_source`` field: the benchmark or evaluation behind a success rate."""
    return Field(
        default=None,
        min_length=1,
        description="Where the success rate comes from: the benchmark, its version and date, or ASSUMPTION.",
    )


class RoutingClass(InputModel):
    """One class of requests: its share of all requests, its size, and the option that serves it."""

    model_config = ConfigDict(json_schema_extra=rules(when(given("success_rate"), given("success_rate_source"))))

    name: str = Field(pattern=SHORT_NAME, description="Short name of the class, e.g. 'easy', unique in routing.")
    share_of_requests: PositiveShare = quantity(
        unit="-",
        title="share of requests",
        gt=0,
        le=1,
        varies=False,
        fixed_because="is a share of a split whose shares sum to 1",
        description="Share of all requests in this class; the classes' shares sum to 1.",
    )
    input_tokens_per_request: Whole = quantity(
        unit="tokens",
        title="input tokens per request",
        ge=1,
        le=10_000_000,
        varies=False,
        description="Input tokens of one request of this class.",
    )
    output_tokens_per_request: Whole = quantity(
        unit="tokens",
        title="output tokens per request",
        ge=1,
        le=10_000_000,
        varies=False,
        description="Output tokens of one request of this class.",
    )
    option: str = Field(
        min_length=1,
        description="The option that serves this class: own, rent, api, rent:<name> or api:<name>.",
    )
    success_rate: PositiveShare | None = success_rate_field("of this class the option")
    success_rate_source: Text | None = success_source_field()

    @model_validator(mode="after")
    def _rate_sourced(self) -> RoutingClass:
        if self.success_rate is not None and self.success_rate_source is None:
            raise fail(
                "RoutingClass",
                ("success_rate_source",),
                "rate_unsourced",
                "a success rate needs its source (the benchmark or evaluation it comes from, or ASSUMPTION)",
                None,
            )
        return self


class Routing(InputModel):
    """The requests split by class, each class served by its own option, and the option that serves all of them
    for comparison."""

    classes: list[RoutingClass] = Field(
        min_length=1,
        max_length=50,
        description="The classes of requests; their shares of requests sum to 1.",
    )
    baseline: str = Field(
        min_length=1,
        description="The option the saving is measured against when it serves every request: own, rent, api, "
        "rent:<name> or api:<name>.",
    )

    @model_validator(mode="after")
    def _split(self) -> Routing:
        names = [c.name for c in self.classes]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise fail(
                "Routing",
                ("classes",),
                "class_twice",
                "each class name is used once; repeated: {names}",
                names,
                names=", ".join(doubled),
            )
        total = sum(c.share_of_requests for c in self.classes)
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise fail(
                "Routing",
                ("classes",),
                "shares_not_one",
                "the classes' share_of_requests sum to {total}, not 1 (within {tolerance})",
                [c.share_of_requests for c in self.classes],
                total=f"{total:.12g}",
                tolerance=f"{SHARE_TOLERANCE:g}",
            )
        return self

    def blended_input_tokens_per_output_token(self) -> float:
        """Input tokens per output token of all classes together, sum(s * input) / sum(s * output). [-]"""
        inputs = sum(c.share_of_requests * c.input_tokens_per_request for c in self.classes)
        outputs = sum(c.share_of_requests * c.output_tokens_per_request for c in self.classes)
        return inputs / outputs

    def tokens_per_request(self) -> float:
        """Mean input plus output tokens of a request, sum(s * (input + output)). [tokens/request]"""
        return sum(
            c.share_of_requests * (c.input_tokens_per_request + c.output_tokens_per_request) for c in self.classes
        )


DecisionMeasure = Literal["cost_per_successful_task"]

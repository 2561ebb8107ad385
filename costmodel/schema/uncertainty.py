"""Which inputs are uncertain and how: distributions, tornado ranges, seed and sample sizes."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from .base import InputModel, Number, Source, Whole, absent, both, equals, fail, given, rules, when

MAX_EMPIRICAL_VALUES = 100_000
"""Most values an empirical distribution may list."""


_NEEDS = {
    "uniform": ("low", "high"),
    "triangular": ("low", "mode", "high"),
    "normal": ("mean", "sd"),
    "lognormal": ("median", "sigma"),
    "empirical": ("values",),
}
"""The parameters each distribution needs (and the only ones it takes)."""
_PARAMETERS = ("low", "high", "mode", "mean", "sd", "median", "sigma", "values")


class Distribution(InputModel):
    """A probability distribution on one numeric input, for Monte Carlo and Sobol analysis.

    ``uniform``: low, high. ``triangular``: low, mode, high. ``normal``: mean, sd.
    ``lognormal``: median, sigma (of the logarithm). ``empirical``: values, drawn with
    replacement. Samples outside the input's allowed range are clipped to it.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            *[
                when(
                    equals(distribution=kind), both(given(*needs), absent(*(n for n in _PARAMETERS if n not in needs)))
                )
                for kind, needs in _NEEDS.items()
            ],
            {
                "properties": {
                    "sd": {"not": {"type": "number", "exclusiveMaximum": 0}},
                    "sigma": {"not": {"type": "number", "exclusiveMaximum": 0}},
                    "median": {"not": {"type": "number", "maximum": 0}},
                }
            },
        )
    )

    distribution: Literal["uniform", "triangular", "normal", "lognormal", "empirical"] = Field(
        description="The distribution's shape; each takes its own parameters."
    )
    low: Number | None = Field(default=None, description="Lowest value (uniform, triangular). [the input's unit]")
    high: Number | None = Field(default=None, description="Highest value (uniform, triangular). [the input's unit]")
    mode: Number | None = Field(default=None, description="Most likely value (triangular). [the input's unit]")
    mean: Number | None = Field(default=None, description="Mean (normal). [the input's unit]")
    sd: Number | None = Field(
        default=None, description="Standard deviation (normal); must not be negative. [the input's unit]"
    )
    median: Number | None = Field(default=None, description="Median (lognormal); above 0. [the input's unit]")
    sigma: Number | None = Field(default=None, description="Standard deviation of the logarithm (lognormal). [-]")
    values: list[Number] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EMPIRICAL_VALUES,
        description="Values drawn with replacement (empirical). [the input's unit]",
    )
    source: Source = ""

    @model_validator(mode="after")
    def _parameters(self) -> Distribution:
        needs = _NEEDS[self.distribution]
        for name in needs:
            if getattr(self, name) is None:
                raise fail(
                    "Distribution",
                    (name,),
                    "missing",
                    "a {kind} distribution needs {name}",
                    None,
                    kind=self.distribution,
                    name=name,
                )
        extra = [n for n in _PARAMETERS if n not in needs and getattr(self, n) is not None]
        if extra:
            raise fail(
                "Distribution",
                (extra[0],),
                "extra",
                "a {kind} distribution takes no {name}",
                getattr(self, extra[0]),
                kind=self.distribution,
                name=extra[0],
            )
        if self.low is not None and self.high is not None and self.low > self.high:
            raise fail(
                "Distribution",
                ("low",),
                "low_above_high",
                "low {low} is above high {high}",
                self.low,
                low=self.low,
                high=self.high,
            )
        # a triangular distribution's low and high are required (checked above), so they are set with a mode
        if (
            self.mode is not None
            and self.low is not None
            and self.high is not None
            and not self.low <= self.mode <= self.high
        ):
            raise fail("Distribution", ("mode",), "mode_outside", "mode must lie between low and high", self.mode)
        for name in ("sd", "sigma"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise fail(
                    "Distribution",
                    (name,),
                    "negative_spread",
                    "{name} must not be negative",
                    getattr(self, name),
                    name=name,
                )
        if self.median is not None and self.median <= 0:
            raise fail(
                "Distribution", ("median",), "median_not_positive", "a lognormal median must be above 0", self.median
            )
        return self

    def reach(self) -> list[float]:
        """The values the distribution is stated to reach: low/high, the listed values, or mean/median."""
        return [v for v in (self.low, self.high, self.mean, self.median, *(self.values or [])) if v is not None]


class Range(InputModel):
    """Low and high values of one input for the tornado chart."""

    low: Number = Field(description="Low value. [the input's unit]")
    high: Number = Field(description="High value. [the input's unit]")

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.low > self.high:
            raise fail(
                "Range",
                ("low",),
                "low_above_high",
                "low {low} is above high {high}",
                self.low,
                low=self.low,
                high=self.high,
            )
        return self


class Uncertainty(InputModel):
    """Which inputs are uncertain and how: distributions, tornado ranges, seed and sample sizes.

    Inputs are named by their path in the scenario (``options.own.power.pue``) or by a
    catalog-backed name (``options.own.server_price``, ``options.rent.price_per_gpu_hour``,
    ``options.api.input_price_per_million``, ...); see :func:`costmodel.schema.inputs.input_paths`.
    """

    seed: Whole = Field(default=0, ge=0, le=2**63 - 1, description="Seed of the random generator. [-]")
    samples: Whole = Field(default=100_000, ge=1, le=10_000_000, description="Monte Carlo samples. [-]")
    option: Literal["own", "rent", "api"] | None = Field(
        default=None,
        description="Option whose savings against the cheapest other are tracked; default own, else the first.",
    )
    distributions: dict[str, Distribution] = Field(
        default_factory=dict,
        max_length=200,
        description="Input path (options.own.power.pue, options.rent.price_per_gpu_hour, ...) -> its distribution.",
    )
    tornado: dict[str, Range | None] = Field(
        default_factory=dict,
        max_length=200,
        description="Inputs for the tornado chart; null takes ± tornado_swing of the value.",
    )
    tornado_swing: float = Field(
        default=0.2, strict=True, gt=0, le=1, description="Default tornado range: ± this share. [-]"
    )
    sobol_base_samples: Whole = Field(default=1024, ge=64, le=65536, description="SALib Sobol base sample size. [-]")

"""The scenario: one workload, the options to serve it, and the blocks that refine the answer.

Cross-field rules live here (two options at least, the API needs a tokens workload, every
currency has a rate, uncertain inputs exist and stay inside their own ranges, ...). Rules
that need a computation (does the model fit a GPU's memory, does the demand file agree with
the workload) are checked when the scenario is resolved
(:func:`costmodel.resolved.resolve`), which :func:`costmodel.load_scenario` does at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, LiteralString, Protocol

from pydantic import ConfigDict, Field, PrivateAttr, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from ..catalog import Catalog, Currency, default_catalog
from ..errors import did_you_mean
from ..units import HOURS_PER_MONTH, LARGEST_INPUT, SMALLEST_INPUT, implausible_magnitude
from .base import (
    Date,
    InputModel,
    OneLine,
    Positive,
    Source,
    Text,
    absent,
    both,
    context_catalog,
    either,
    equals,
    given,
    inside,
    left_at,
    never,
    rules,
    when,
)
from .claims import Claim
from .demand import DemandProfile
from .energy import EnergyInputs
from .finance import Finance
from .inputs import CATALOG_INPUTS, THROUGHPUT_INPUT, InputField, bounds_of, fixed_reason, input_fields
from .offers import Offers
from .options import CloudRental, DataAndSupport, Options, Reserved
from .overrides import Overrides
from .routing import DecisionMeasure, Routing
from .uncertainty import Uncertainty
from .values import value_problems
from .workload import Workload

OPTION_KINDS: tuple[str, ...] = ("own", "rent", "api")
"""The kinds of option, in display order."""


class _Fail(Protocol):
    """Records one failed rule of a scenario: where (``loc``), the value found, the error kind and its
    message, a template filled in from ``ctx``."""

    def __call__(
        self, loc: tuple[str | int, ...], value: Any, kind: LiteralString, message: LiteralString, **ctx: Any
    ) -> None: ...


def _value_of(fields: dict[str, InputField], path: str) -> float:
    """The value of an input that the scenario gives (not the resolved serving throughput)."""
    value = fields[path].value
    assert value is not None, f"{path} is an input the scenario gives"
    return value


def _reserved_price(reserved: Reserved, on_demand: float, fx_rate: Callable[[str], float]) -> float:
    """A reserved price per GPU-hour in the reporting currency: the price given (in its currency), else the
    on-demand price less the discount. [reporting currency/GPU-h]"""
    if reserved.price_per_gpu_hour is not None:
        assert reserved.currency is not None, "Reserved requires the currency of its price"
        return reserved.price_per_gpu_hour * fx_rate(reserved.currency)
    assert reserved.discount is not None, "Reserved requires a price or a discount"
    return on_demand * (1 - reserved.discount)


class FXRates(InputModel):
    """Exchange rates into the reporting currency."""

    rates: dict[Currency, Positive] = Field(
        max_length=200,
        description="Units of the reporting currency for one unit of each other currency. [reporting/currency]",
    )
    source: Source = Field(min_length=1)
    as_of: Date = Field(description="Date the rates were read, as 2026-06-21.")


_NO_GPU_OPTIONS = {
    "properties": {
        "options": {"properties": {"own": {"type": "null"}, "rent": {"type": "null"}, "rents": {"maxItems": 0}}}
    }
}
"""JSON Schema: the scenario holds no option sized in GPUs (own, rent, rents)."""


_EVERY_OPTION_RATED = {
    "properties": {
        **{name: {"anyOf": [{"type": "null"}, given("success_rate")]} for name in OPTION_KINDS},
        **{name: {"items": given("success_rate")} for name in ("rents", "apis")},
    }
}
"""JSON Schema: every option the scenario holds states its success rate."""


class Scenario(InputModel):
    """One workload, the options to serve it, and the reporting currency.

    Load with :func:`costmodel.load_scenario`, save with :func:`costmodel.save_scenario`.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            {"properties": {"title": {"pattern": r"\S"}}},
            when(
                inside("options", either(given("api"), inside("apis", {"minItems": 1}))),
                inside("workload", equals(kind="tokens")),
            ),
            when(inside("workload", equals(input_only=True)), _NO_GPU_OPTIONS),
            when(
                inside(
                    "workload",
                    both(
                        equals(kind="tokens"),
                        left_at(input_only=False),
                        absent("serving", "output_tokens_per_second_per_gpu"),
                    ),
                ),
                _NO_GPU_OPTIONS,
            ),
            *[
                when(inside("finance", equals(during_lead_time=name)), inside("options", given(name)))
                for name in ("rent", "api")
            ],
            when(
                inside("finance", either(inside("lead_time_months", {"exclusiveMinimum": 0}), given("loan"))),
                inside("options", given("own")),
            ),
            never(both(given("demand"), inside("workload", equals(kind="training")))),
            when(
                either(given("routing"), given("decision_measure")),
                both(inside("workload", both(equals(kind="tokens"), left_at(input_only=False))), absent("finance")),
            ),
            when(either(given("routing"), given("decision_measure")), absent("demand")),
            when(
                given("decision_measure"),
                both(
                    inside("options", _EVERY_OPTION_RATED),
                    either(
                        given("routing"),
                        inside(
                            "workload", either(given("input_tokens_per_request"), inside("serving", given("request")))
                        ),
                    ),
                ),
            ),
            never(both(inside("demand", equals(kind="job_log")), inside("workload", equals(kind="tokens")))),
            never(both(inside("demand", equals(kind="request_log")), inside("workload", equals(kind="gpu_hours")))),
            when(inside("energy", given("power_budget_kw")), inside("options", given("own"))),
            when(
                inside("finance", inside("trends", inside("rental_price_path", equals(from_reserved=True)))),
                inside("options", given("rent")),
            ),
            when(inside("energy", given("tariff")), both(inside("options", given("own")), given("demand"))),
            when(
                inside(
                    "workload",
                    both(
                        equals(kind="tokens"),
                        either(equals(input_only=True), absent("serving", "output_tokens_per_second_per_gpu")),
                    ),
                ),
                {"properties": {"claims": {"items": never(equals(kind="gpu_hours"))}}},
            ),
        )
    )

    title: OneLine = Field(min_length=1, max_length=300, description="Title shown on the report.")
    description: Text = Field(default="", description="What the scenario compares and why, shown on the report.")
    reporting_currency: Currency
    fx: FXRates | None = Field(default=None, description="Needed when any input is in another currency.")
    workload: Workload = Field(description="The work: GPU-hours per month, tokens per day, or a training run.")
    options: Options = Field(description="The options compared: own, rent, api, and more rents and apis.")
    finance: Finance | None = Field(default=None, description="Horizon, discount rate, financing, trends.")
    uncertainty: Uncertainty | None = Field(default=None, description="Distributions and ranges of inputs.")
    demand: DemandProfile | None = Field(default=None, description="Demand hour by hour, for the cheapest mix.")
    energy: EnergyInputs | None = Field(default=None, description="Grid, contracted intensity, power budget, tariff.")
    data_and_support: DataAndSupport | None = Field(
        default=None,
        description="Data stored and sent out, CPU nodes and a support plan: lines every GPU option carries.",
    )
    claims: list[Claim] = Field(
        default_factory=list,
        max_length=100,
        description="Figures the source document states, checked against the model.",
    )
    offers: Offers | None = Field(default=None, description="Quotes in no catalog: rows added to the catalog.")
    overrides: Overrides | None = Field(default=None, description="Catalog figures replaced for this scenario.")
    routing: Routing | None = Field(
        default=None, description="Requests split by class, each class served by one of the options."
    )
    decision_measure: DecisionMeasure | None = Field(
        default=None,
        description="cost_per_successful_task: rank the options on cost per task / success rate (each option "
        "states its success_rate) instead of the monthly cost at the volume.",
    )

    _catalog: Catalog | None = PrivateAttr(default=None)
    _demand_folder: str | None = PrivateAttr(default=None)

    @property
    def catalog(self) -> Catalog:
        """The catalog the scenario was validated against (the validation context's, else the bundled one)."""
        return self._catalog or default_catalog()

    @property
    def demand_folder(self) -> str | None:
        """The folder a relative ``demand.path`` is read from: the scenario file's, where the loader found the
        file there (the validation context's ``demand_folder``); None: data/."""
        return self._demand_folder

    @field_validator("title")
    @classmethod
    def _title_has_words(cls, value: str) -> str:
        if not value.strip():
            raise PydanticCustomError("blank_title", "a title needs some words, not only spaces")
        return value

    @model_validator(mode="after")
    def _cross_check(self, info: ValidationInfo) -> Scenario:
        """The rules that join fields of different blocks, every failure reported at once; the rules
        that compare prices across blocks run once the others hold."""
        catalog = context_catalog(info)
        self._catalog = (info.context or {}).get("catalog")
        self._demand_folder = (info.context or {}).get("demand_folder")
        errors: list[InitErrorDetails] = []

        def fail(
            loc: tuple[str | int, ...], value: Any, kind: LiteralString, message: LiteralString, **ctx: Any
        ) -> None:
            errors.append(InitErrorDetails(type=PydanticCustomError(kind, message, ctx), loc=loc, input=value))

        present = self.present_options()
        self._check_options(fail, catalog, present)
        self._check_finance(fail)
        fields = {f.path: f for f in input_fields(self, catalog)}
        for path, found in fields.items():
            value = found.value
            if value is not None and implausible_magnitude(value):
                fail(
                    tuple(path.split(".")),
                    value,
                    "implausible_magnitude",
                    "magnitude outside {low} to {high}: no real input is that large or small",
                    low=f"{SMALLEST_INPUT:g}",
                    high=f"{LARGEST_INPUT:g}",
                )
        self._check_demand(fail)
        if self.overrides is not None:
            self._check_overrides(self.overrides, fields, fail)
        if self.uncertainty is not None:
            self._check_uncertainty(self.uncertainty, fields, fail)
        self._check_energy(fail)
        self._check_currencies(fail, catalog)
        self._check_claims(fail, present)
        self._check_quality(fail, present)
        rent = self.options.rent
        if not errors and rent is not None and rent.reserved is not None and rent.reserved.price_per_gpu_hour:
            self._check_reserved_price(fail, catalog, fields, rent)
        finance = self.finance
        if (
            not errors
            and finance is not None
            and finance.trends.rental_price_path is not None
            and finance.trends.rental_price_path.from_reserved
        ):
            self._check_forward_curve(fail, catalog, fields)
        if not errors:
            self._check_joint_rules(fail, catalog)
        if errors:
            raise ValidationError.from_exception_data("Scenario", errors)
        return self

    def _check_options(self, fail: _Fail, catalog: Catalog, present: list[str]) -> None:
        """At least two options; a GPU option can be sized (serving or a throughput), an API option has
        tokens to price, and every own and rent option holds the workload's GPU."""
        if len(present) < 2:
            fail(
                ("options",),
                present,
                "too_few_options",
                "give at least two of own, rent, rents, api and apis to compare",
            )
        work = self.workload
        if (
            work.kind == "tokens"
            and not work.input_only
            and work.serving is None
            and work.output_tokens_per_second_per_gpu is None
        ):
            for name in ("own", "rent", "rents"):
                if getattr(self.options, name):
                    fail(
                        ("workload", "serving"),
                        None,
                        "throughput_source_needed",
                        "the {name} option is sized in GPUs: give serving (a model from data/models.csv) or "
                        "output_tokens_per_second_per_gpu with throughput_source (only a scenario of API options "
                        "needs neither)",
                        name=name,
                    )
                    break
        if getattr(self.workload, "input_only", False):
            for name in ("own", "rent", "rents"):
                if getattr(self.options, name):
                    fail(
                        ("options", name),
                        name,
                        "not_with_input_only",
                        "an input_only workload (no output tokens) is priced by API offers only: serving throughput "
                        "is counted in output tokens; remove this option or state the workload's mix",
                    )
        if self.options.api is not None and self.workload.kind != "tokens":
            fail(
                ("options", "api"),
                self.options.api.offer,
                "api_needs_tokens",
                "a hosted API option needs a tokens workload (kind: tokens)",
            )
        if self.options.apis and self.workload.kind != "tokens":
            fail(
                ("options", "apis"),
                self.options.apis[0].offer,
                "api_needs_tokens",
                "a hosted API option needs a tokens workload (kind: tokens)",
            )
        held = [(("options", "own"), self.options.own), (("options", "rent"), self.options.rent)]
        held += [(("options", "rents", index), extra) for index, extra in enumerate(self.options.rents)]
        for where, option in held:
            if option is None:
                continue
            field = "server" if where[1] == "own" else "offer"
            row = (catalog.servers if where[1] == "own" else catalog.cloud_offers)[getattr(option, field)]
            if row.gpu != self.workload.gpu:
                fail(
                    where + (field,),
                    getattr(option, field),
                    "gpu_mismatch",
                    "holds GPU {gpu}, but the workload is counted on {workload_gpu}",
                    gpu=row.gpu,
                    workload_gpu=self.workload.gpu,
                )

    def _check_finance(self, fail: _Fail) -> None:
        """No FX rate for the reporting currency itself; the finance block's lead-time stand-in, loan and
        demand growth fit the options and the largest input."""
        if self.fx is not None and self.reporting_currency in self.fx.rates:
            fail(
                ("fx", "rates", self.reporting_currency),
                self.fx.rates[self.reporting_currency],
                "fx_self",
                "{currency} is the reporting currency and takes no rate; remove it",
                currency=self.reporting_currency,
            )
        finance = self.finance
        if finance is None:
            return
        stand_in = finance.during_lead_time
        if stand_in is not None and getattr(self.options, stand_in) is None:
            fail(
                ("finance", "during_lead_time"),
                stand_in,
                "no_stand_in",
                "the scenario has no {option} option to serve the lead time",
                option=stand_in,
            )
        if (
            finance.loan is not None
            and self.options.own is not None
            and finance.loan.term_months > self.options.own.depreciation_months
        ):
            fail(
                ("finance", "loan", "term_months"),
                finance.loan.term_months,
                "loan_too_long",
                "a loan may not outlast the hardware: at most depreciation_months ({months})",
                months=self.options.own.depreciation_months,
            )
        if (finance.lead_time_months > 0 or finance.loan is not None) and self.options.own is None:
            fail(("finance",), None, "needs_own", "lead time and loan apply to an own option, which is missing")
        growth = finance.trends.demand_growth_per_year
        grown = abs(self.volume) * (1.0 + growth) ** (finance.horizon_months / 12)  # the volume at the horizon
        if growth > 0 and grown > LARGEST_INPUT:
            fail(
                ("finance", "trends", "demand_growth_per_year"),
                growth,
                "grows_too_far",
                "grows the volume to {grown} {unit} by the end of the {months}-month horizon, above the largest "
                "figure the model takes ({largest}); give a lower growth or a shorter horizon",
                grown=f"{grown:.3g}",
                unit=self.volume_unit,
                months=finance.horizon_months,
                largest=f"{LARGEST_INPUT:g}",
            )

    def _check_demand(self, fail: _Fail) -> None:
        """A demand profile gives what the workload counts: GPU-hours or tokens, not a training run."""
        if self.demand is not None and self.workload.kind == "training":
            fail(
                ("demand",),
                self.demand.kind,
                "demand_needs_gpu_hours",
                "demand profiles apply to a gpu_hours or tokens workload, not to a training run",
            )
        if self.demand is not None and self.workload.kind == "tokens" and self.demand.kind == "job_log":
            fail(
                ("demand", "kind"),
                self.demand.kind,
                "job_log_needs_gpu_hours",
                "a job log gives GPU-hours: for a tokens workload use request_log or hourly_file (tokens per hour)",
            )
        if self.demand is not None and self.workload.kind == "gpu_hours" and self.demand.kind == "request_log":
            fail(
                ("demand", "kind"),
                self.demand.kind,
                "request_log_needs_tokens",
                "a request log gives tokens: it applies to a tokens workload",
            )

    def _check_energy(self, fail: _Fail) -> None:
        """A power budget and a time-of-use tariff apply to an own cluster (the tariff with a demand profile)."""
        energy = self.energy
        if energy is not None and energy.power_budget_kw is not None and self.options.own is None:
            fail(
                ("energy", "power_budget_kw"),
                energy.power_budget_kw,
                "needs_own",
                "a power budget caps an own cluster, which is missing",
            )
        if energy is not None and energy.tariff is not None and (self.options.own is None or self.demand is None):
            fail(
                ("energy", "tariff"),
                None,
                "tariff_needs_profile",
                "a time-of-use tariff prices an own cluster's draw hour by hour: it needs an own option and a "
                "demand block",
            )

    def _check_currencies(self, fail: _Fail, catalog: Catalog) -> None:
        """Every amount of money in another currency than the reporting one has its FX rate."""
        for loc, currency in self.money_currencies(catalog):
            if currency != self.reporting_currency and (self.fx is None or currency not in self.fx.rates):
                fail(
                    loc,
                    currency,
                    "no_fx_rate",
                    "no FX rate from {currency} to {reporting}; add it under fx.rates",
                    currency=currency,
                    reporting=self.reporting_currency,
                )

    def _check_claims(self, fail: _Fail, present: list[str]) -> None:
        """A claim names options the scenario has, states a value of a plausible magnitude, counts GPU-hours
        only where something is sized in GPUs, and is in a currency with an FX rate."""
        work = self.workload
        for index, claim in enumerate(self.claims):
            # each name once, at the field that holds it: a cheapest claim's option is one of its options
            named: list[tuple[tuple[str | int, ...], str]] = [
                (("options", at), option) for at, option in enumerate(claim.options or ())
            ]
            if claim.option is not None and claim.option not in (claim.options or ()):
                named.insert(0, (("option",), claim.option))
            for field, option in named:
                if option not in present:
                    fail(
                        ("claims", index, *field),
                        option,
                        "no_option",
                        "the scenario has no {option} option",
                        option=option,
                    )
            self._check_claim_volume(fail, index, claim)
            if claim.value is not None and implausible_magnitude(claim.value):  # as every figure of a scenario
                fail(
                    ("claims", index, "value"),
                    claim.value,
                    "implausible_magnitude",
                    "magnitude outside {low} to {high}: no real figure is that large or small",
                    low=f"{SMALLEST_INPUT:g}",
                    high=f"{LARGEST_INPUT:g}",
                )
            unsized = work.kind == "tokens" and (
                work.input_only or (work.serving is None and work.output_tokens_per_second_per_gpu is None)
            )
            if claim.kind == "gpu_hours" and unsized:
                fail(
                    ("claims", index, "kind"),
                    claim.kind,
                    "nothing_in_gpus",
                    "a gpu_hours claim needs GPU-hours, and with API options alone (no serving block or "
                    "throughput) nothing is sized in GPUs",
                )
            if (
                claim.currency is not None
                and claim.currency != self.reporting_currency
                and (self.fx is None or claim.currency not in self.fx.rates)
            ):
                fail(
                    ("claims", index, "currency"),
                    claim.currency,
                    "no_fx_rate",
                    "no FX rate from {currency} to {reporting}; add it under fx.rates",
                    currency=claim.currency,
                    reporting=self.reporting_currency,
                )

    def _check_claim_volume(self, fail: _Fail, index: int, claim: Claim) -> None:
        """The volume a break-even or cheapest claim is stated at, and its multiple of the scenario's, lie within
        what the model takes, as every figure of a scenario must (at 1e300 tokens/day a cost overflows to NaN).
        Neither is compared with the scenario's volume, so a sweep of it keeps the claims valid. A training run
        has no monthly volume: its cheapest claim states none."""
        for name in ("volume", "volume_multiple"):
            value = getattr(claim, name)
            if value is not None and implausible_magnitude(value):
                unit = self.volume_unit if name == "volume" else "x the scenario's volume"
                fail(
                    ("claims", index, name),
                    value,
                    "implausible_magnitude",
                    "magnitude outside {low} to {high} ({unit}): no real volume is that large or small",
                    low=f"{SMALLEST_INPUT:g}",
                    high=f"{LARGEST_INPUT:g}",
                    unit=unit,
                )
        stated_at = "volume" if claim.volume is not None else "volume_multiple"
        if claim.kind == "cheapest" and self.workload.kind == "training" and getattr(claim, stated_at) is not None:
            fail(
                ("claims", index, stated_at),
                getattr(claim, stated_at),
                "no_monthly_volume",
                "a training run has no monthly volume to compare at: its cheapest claim is checked on the cost of "
                "the whole run; drop volume and volume_multiple",
            )

    def _check_reserved_price(
        self, fail: _Fail, catalog: Catalog, fields: dict[str, InputField], rent: CloudRental
    ) -> None:
        """A reserved price of the rent option is at most its on-demand price (both in the reporting currency)."""
        reserved = rent.reserved
        assert reserved is not None, "called with a reserved price"
        row = catalog.cloud_offers[rent.offer]
        on_demand = _value_of(fields, "options.rent.price_per_gpu_hour") * self.fx_rate(row.currency)
        if _reserved_price(reserved, on_demand, self.fx_rate) > on_demand:
            fail(
                ("options", "rent", "reserved", "price_per_gpu_hour"),
                reserved.price_per_gpu_hour,
                "reserved_dearer",
                "above the on-demand price of {offer} ({price} {currency}/GPU-h): a "
                "commitment costs less an hour than paying as you go",
                offer=rent.offer,
                price=f"{on_demand / self.fx_rate(row.currency):g}",
                currency=row.currency,
            )

    def _check_uncertainty(self, settings: Uncertainty, fields: dict[str, InputField], fail: _Fail) -> None:
        for group in ("distributions", "tornado"):
            for path in getattr(settings, group):
                if path not in fields:
                    fail(
                        ("uncertainty", group, path),
                        path,
                        "not_numeric_input",
                        "not a numeric input of this scenario{hint}; inputs include {examples}",
                        hint=did_you_mean(path, fields),
                        examples=", ".join(sorted(fields)[:12]) + ", ...",
                    )
        for group in ("distributions", "tornado"):
            for path, spec in getattr(settings, group).items():
                reason = fixed_reason(self, fields[path]) if path in fields else None
                if reason is not None:
                    fail(
                        ("uncertainty", group, path),
                        path,
                        "fixed_input",
                        "{reason}, which cannot vary across samples; analyse it as separate scenarios instead",
                        reason=reason,
                    )
                    continue
                if path not in fields or spec is None:
                    continue
                allowed = bounds_of(fields[path].info) if path != THROUGHPUT_INPUT else None
                reach = spec.reach() if group == "distributions" else [spec.low, spec.high]
                if allowed is None:
                    bad = [v for v in reach if v <= 0]
                    shown = "(0, inf)"
                else:
                    bad = [v for v in reach if not allowed.holds(v)]
                    shown = allowed.describe()
                if bad:
                    fail(
                        ("uncertainty", group, path),
                        reach,
                        "outside_range",
                        "reaches {bad}, outside the input's allowed range {range}",
                        bad=", ".join(f"{v:g}" for v in bad),
                        range=shown,
                    )
        option = settings.option
        if option is not None and getattr(self.options, option) is None:
            fail(("uncertainty", "option"), option, "no_option", "the scenario has no {option} option", option=option)

    def _check_forward_curve(self, fail: _Fail, catalog: Catalog, fields: dict[str, InputField]) -> None:
        """``rental_price_path: {from_reserved: true}`` has options.rent with a 1- and a 3-year reserved price,
        and they imply a positive price for years 2-3 (3 · p3 > p1; see
        :func:`costmodel.formulas.forward_factors_from_reserved`)."""
        loc = ("finance", "trends", "rental_price_path", "from_reserved")
        rent = self.options.rent
        if rent is None:
            fail(
                loc,
                True,
                "needs_rent",
                "infers the rental price path from options.rent's reserved prices, but the "
                "scenario has no options.rent",
            )
            return
        row = catalog.cloud_offers[rent.offer]
        on_demand = _value_of(fields, "options.rent.price_per_gpu_hour") * self.fx_rate(row.currency)
        prices: dict[int, float] = {}
        for term, column in ((1, "reserved_1y_price_per_gpu_hour"), (3, "reserved_3y_price_per_gpu_hour")):
            reserved = rent.reserved
            if reserved is not None and reserved.term_years == term:
                prices[term] = _reserved_price(reserved, on_demand, self.fx_rate)
            elif getattr(row, column) is not None:
                prices[term] = getattr(row, column) * self.fx_rate(row.currency)
        missing = [term for term in (1, 3) if term not in prices]
        if missing:
            fail(
                loc,
                True,
                "reserved_price_missing",
                "needs the rent option's 1- and 3-year reserved prices; {offer} has no {which}: give it in "
                "options.rent.reserved (term_years: {term}) or as the offer's {column} (a row of "
                "offers.cloud_offers where data/cloud_prices.csv has none)",
                offer=rent.offer,
                which=" and no ".join(f"{t}-year price" for t in missing),
                term=missing[0],
                column=f"reserved_{missing[0]}y_price_per_gpu_hour",
            )
        elif 3 * prices[3] <= prices[1]:
            fail(
                loc,
                True,
                "forward_not_positive",
                "the 3-year reserved price ({p3}) is at most a third of the 1-year price ({p1}): the implied "
                "average over years 2-3, (3 p3 - p1) / 2, would not be positive",
                p3=f"{prices[3]:g}",
                p1=f"{prices[1]:g}",
            )

    def _check_joint_rules(self, fail: _Fail, catalog: Catalog) -> None:
        """The rules joining inputs (a cached price at most the input price, shares that sum to at most 1,
        ...) with the overrides' figures, and at the reach of the uncertainty block's distributions (drawn
        together) and tornado ranges (one input at a time); run once every other rule holds."""
        if self.overrides is not None:
            for field, value, reason in value_problems(self, catalog, self.overrides.values, together="rows"):
                fail(("overrides", "values", field), value, "joint_rule", "{reason}", reason=reason)
                return
        settings = self.uncertainty
        if settings is None:
            return
        for group, together in (("distributions", "box"), ("tornado", "alone")):
            reach = {
                path: (spec.reach() if group == "distributions" else [spec.low, spec.high])
                for path, spec in getattr(settings, group).items()
                if spec is not None
            }
            for field, value, reason in value_problems(self, catalog, reach, together=together):
                fail(
                    ("uncertainty", group, field),
                    value,
                    "joint_rule",
                    "its reach breaks a rule: {reason}",
                    reason=reason,
                )

    def _check_overrides(self, overrides: Overrides, fields: dict[str, InputField], fail: _Fail) -> None:
        for path, value in overrides.values.items():
            loc = ("overrides", "values", path)
            if path not in CATALOG_INPUTS and path != THROUGHPUT_INPUT:
                hint = " (change that field itself)" if path in fields else did_you_mean(path, CATALOG_INPUTS)
                fail(
                    loc,
                    value,
                    "not_catalog_input",
                    "not a catalog-backed input of this scenario{hint}; overrides take {names}",
                    hint=hint,
                    names=", ".join([*CATALOG_INPUTS, THROUGHPUT_INPUT]),
                )
            elif path not in fields:
                fail(
                    loc,
                    value,
                    "no_such_input",
                    "this scenario has no such input (its option or workload kind is missing)",
                )
            else:
                allowed = bounds_of(fields[path].info) if path != THROUGHPUT_INPUT else None
                ok = value > 0 if allowed is None else allowed.holds(value)
                if not ok:
                    fail(
                        loc,
                        value,
                        "outside_range",
                        "outside the input's allowed range {range}",
                        range="(0, inf)" if allowed is None else allowed.describe(),
                    )

    def option_inputs(self, key: str) -> Any:
        """The options block of an option key (``own``, ``rent``, ``api``, ``rent:<name>``, ``api:<name>``), or None."""
        kind, _, name = key.partition(":")
        if not name:
            return getattr(self.options, kind, None) if kind in OPTION_KINDS else None
        listed = {"rent": self.options.rents, "api": self.options.apis}.get(kind, [])
        return next((o for o in listed if o.name == name), None)

    def _option_loc(self, key: str) -> tuple[str | int, ...]:
        """Where an option key's block is in the file (``options.rents.0`` for ``rent:<name>``)."""
        kind, _, name = key.partition(":")
        if not name:
            return ("options", kind)
        listed = self.options.rents if kind == "rent" else self.options.apis
        return ("options", f"{kind}s", next(i for i, o in enumerate(listed) if o.name == name))

    def _check_quality(self, fail: _Fail, present: list[str]) -> None:
        """Success rates carry their source; routing names options the scenario holds, on a tokens workload whose
        mix is the classes' blend; the cost per successful task has a task size and every option's rate."""
        for key in present:
            option = self.option_inputs(key)
            if option.success_rate is not None and option.success_rate_source is None:
                fail(
                    self._option_loc(key) + ("success_rate_source",),
                    None,
                    "rate_unsourced",
                    "a success rate needs its source (the benchmark or evaluation it comes from, or ASSUMPTION)",
                )
        work = self.workload
        monthly = work.kind == "tokens" and not work.input_only and self.finance is None and self.demand is None
        routing = self.routing
        if routing is not None:
            if not monthly:
                fail(
                    ("routing",),
                    None,
                    "routing_monthly_only",
                    "routing is costed on the monthly cost at the volume of a tokens workload with an input:output "
                    "mix: it takes no training or GPU-hours workload, no input_only, no finance and no demand block",
                )
            for index, chosen in enumerate(routing.classes):
                if chosen.option not in present:
                    fail(
                        ("routing", "classes", index, "option"),
                        chosen.option,
                        "no_option",
                        "the scenario has no {option} option; it has {present}",
                        option=chosen.option,
                        present=", ".join(present),
                    )
            if routing.baseline not in present:
                fail(
                    ("routing", "baseline"),
                    routing.baseline,
                    "no_option",
                    "the scenario has no {option} option; it has {present}",
                    option=routing.baseline,
                    present=", ".join(present),
                )
            stated = getattr(work, "input_tokens_per_output_token", None)
            blended = routing.blended_input_tokens_per_output_token()
            if monthly and stated is not None and abs(blended - stated) > 0.01 * max(blended, stated, 1e-9):
                fail(
                    ("workload", "input_tokens_per_output_token"),
                    stated,
                    "routing_mix_mismatch",
                    "the routing classes' requests make a {blended}:1 input:output mix, sum(share * input) / "
                    "sum(share * output); the options serving every request take the workload's mix: make them "
                    "agree (within 1 %)",
                    blended=f"{blended:.6g}",
                )
        if self.decision_measure is not None:
            self._check_task_measure(fail, present, monthly)

    def _check_task_measure(self, fail: _Fail, present: list[str], monthly: bool) -> None:
        """The cost per successful task needs a monthly-cost scenario, the size of a task and every option's rate."""
        work = self.workload
        if not monthly:
            fail(
                ("decision_measure",),
                self.decision_measure,
                "measure_needs_monthly",
                "the cost per successful task divides the monthly cost at the volume of a tokens workload with an "
                "input:output mix: it takes no training or GPU-hours workload, no input_only, no finance and no "
                "demand block",
            )
            return
        sized = self.routing is not None or getattr(work, "input_tokens_per_request", None) is not None
        serving = getattr(work, "serving", None)
        if not sized and (serving is None or serving.request is None):
            fail(
                ("decision_measure",),
                self.decision_measure,
                "no_task_size",
                "a task is one request: give routing (tokens per request of each class), "
                "workload.input_tokens_per_request or workload.serving.request",
            )
        for key in present:
            if self.option_inputs(key).success_rate is None:
                fail(
                    self._option_loc(key) + ("success_rate",),
                    None,
                    "rate_needed",
                    "decision_measure {measure} ranks every option on cost per task / success rate: give this "
                    "option's success_rate (0 < rate <= 1) with its success_rate_source",
                    measure=str(self.decision_measure),
                )

    def present_options(self) -> list[str]:
        """Keys of the options the scenario holds, in display order."""
        present = [name for name in OPTION_KINDS if getattr(self.options, name) is not None]
        rents = [f"rent:{a.name}" for a in self.options.rents]
        at = (
            present.index("rent") + 1
            if "rent" in present
            else present.index("api")
            if "api" in present
            else len(present)
        )
        return present[:at] + rents + present[at:] + [f"api:{a.name}" for a in self.options.apis]

    def money_currencies(self, catalog: Catalog) -> list[tuple[tuple, str]]:
        """Every money input's currency, with the field that sets it."""
        found: list[tuple[tuple, str]] = []
        own, rent, api = self.options.own, self.options.rent, self.options.api
        if own is not None:
            found.append((("options", "own", "server"), catalog.servers[own.server].currency))
            for part in ("power", "colocation", "facility", "staffing", "software_licences", "provider"):
                if getattr(own, part) is not None:
                    found.append((("options", "own", part, "currency"), getattr(own, part).currency))
            for index, line in enumerate(own.bill_of_materials):
                if line.currency is not None:
                    found.append((("options", "own", "bill_of_materials", index, "currency"), line.currency))
        if rent is not None:
            found.append((("options", "rent", "offer"), catalog.cloud_offers[rent.offer].currency))
            if rent.staffing is not None:
                found.append((("options", "rent", "staffing", "currency"), rent.staffing.currency))
            if rent.reserved is not None and rent.reserved.currency is not None:
                found.append((("options", "rent", "reserved", "currency"), rent.reserved.currency))
        for index, extra in enumerate(self.options.rents):
            found.append((("options", "rents", index, "offer"), catalog.cloud_offers[extra.offer].currency))
            if extra.staffing is not None:
                found.append((("options", "rents", index, "staffing", "currency"), extra.staffing.currency))
        if api is not None:
            found.append((("options", "api", "offer"), catalog.api_offers[api.offer].currency))
        for index, extra in enumerate(self.options.apis):
            found.append((("options", "apis", index, "offer"), catalog.api_offers[extra.offer].currency))
        if self.energy is not None and self.energy.tariff is not None:
            found.append((("energy", "tariff", "currency"), self.energy.tariff.currency))
        extras = self.data_and_support
        if extras is not None:
            if extras.currency is not None:
                found.append((("data_and_support", "currency"), extras.currency))
            rented = [(("options", "rent", "offer"), rent.offer)] if rent is not None else []
            rented += [(("options", "rents", i, "offer"), r.offer) for i, r in enumerate(self.options.rents)]
            for loc, offer in rented:  # the rent options' cloud rates, where the catalog has them
                row = catalog.cloud_extras.get(catalog.cloud_offers[offer].provider)
                if row is not None:
                    found.append((loc, row.currency))
        return found

    def fx_rate(self, currency: str) -> float:
        """Units of the reporting currency for one unit of ``currency``. [reporting/currency]

        Raises
        ------
        KeyError
            No rate is given for ``currency``.
        """
        if currency == self.reporting_currency:
            return 1.0
        if self.fx is None or currency not in self.fx.rates:
            raise KeyError(f"no FX rate from {currency} to {self.reporting_currency}")
        return self.fx.rates[currency]

    @property
    def volume(self) -> float:
        """The workload's volume in its own unit (GPU-hours per month or tokens per day).

        A training run counts as its cluster busy all month: ``cluster_gpus`` × 730 GPU-hours.
        """
        if self.workload.kind == "gpu_hours":
            return self.workload.gpu_hours_per_month
        if self.workload.kind == "training":
            return self.workload.cluster_gpus * HOURS_PER_MONTH
        return self.workload.tokens_per_day

    @property
    def volume_unit(self) -> str:
        """Unit of :attr:`volume`."""
        return "tokens/day" if self.workload.kind == "tokens" else "GPU-hours/month"

"""The horizon view's inputs: horizon, cost of money, lead time, loan and trends."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from .base import (
    Date,
    InputModel,
    Share,
    Source,
    Text,
    Whole,
    absent,
    both,
    either,
    equals,
    fail,
    given,
    inside,
    left_at,
    never,
    quantity,
    rules,
    when,
)


class Loan(InputModel):
    """Buying the own cluster's hardware with a loan (or a lease priced like one)."""

    rate_per_year: float = quantity(
        unit="1/year",
        title="loan rate",
        strict=True,
        ge=0,
        le=1,
        description="Nominal yearly interest rate; paid monthly at rate / 12.",
    )
    term_months: Whole = quantity(
        unit="months",
        title="loan term",
        ge=1,
        varies=False,
        le=120,
        description="Months of payments; at most the hardware's life.",
    )
    down_payment_share: Share = quantity(
        0.0, unit="-", title="down payment", description="Share of hardware capex paid up front."
    )
    source: Source = ""


PRICE_PATHS = ("rental", "api", "electricity", "hardware")
"""The prices that may follow a path (``trends.<price>_price_path``) instead of a constant yearly rate."""

MAX_PATH_YEARS = 50
"""Most yearly steps of a price path: a horizon is at most 600 months."""

MAX_PATH_ROWS = 600
"""Most rows of a dated price table: one a month of the longest horizon."""


_PATH_FORMS = [given("yearly_changes"), given("yearly_factors"), either(given("dates"), given("factors"))]
"""JSON Schema: the forms a price path may take (:meth:`PricePath.forms`)."""

_PATH_RULES = [
    {
        "properties": {
            "yearly_changes": {"minItems": 1, "items": {"exclusiveMinimum": -1, "maximum": 10}},
            "yearly_factors": {"minItems": 1, "items": {"exclusiveMinimum": 0, "maximum": 1000}},
            "factors": {"minItems": 1, "items": {"exclusiveMinimum": 0, "maximum": 1000}},
            "dates": {"minItems": 1},
        }
    },
    when(either(given("dates"), given("factors")), given("dates", "factors")),
]
"""JSON Schema of a price path's values (:meth:`PricePath._one_complete_form`; that the table's dates rise
and match its factors one to one is the validator's alone)."""


class PricePath(InputModel):
    """A price's path over the horizon, in place of its constant yearly rate: yearly steps or a dated table.

    Give one form:

    * ``yearly_changes``: the price's change in year 1, 2, … of the horizon (months 0-11, 12-23, …),
      each compounding monthly within its year as a constant rate does, so a list of one value r is
      the constant rate r; the last change goes on after the list ends (end on 0.0 for a flat price);
    * ``yearly_factors``: the price in year 1, 2, … as a factor on today's price, a step at the
      start of each year; the last factor holds after the list ends;
    * ``dates`` and ``factors``: a dated table, a step function: in each month the row in force on
      the month's date (``finance.start_date`` plus the month's number of calendar months) applies;
      before the first row the factor is 1 (today's price).

    A factor is relative to the price today (month 0 of the horizon), e.g. 0.8 is 20 % below it.
    """

    model_config = ConfigDict(json_schema_extra=rules(*_PATH_RULES, {"oneOf": _PATH_FORMS}))

    yearly_changes: list[float] | None = quantity(
        None,
        unit="1/year",
        title="yearly price change",
        max_length=MAX_PATH_YEARS,
        description="Change in the price in year 1, 2, ..., e.g. [-0.15, -0.10, 0.0]; each above -1.",
    )
    yearly_factors: list[float] | None = quantity(
        None,
        unit="-",
        title="yearly price factor",
        max_length=MAX_PATH_YEARS,
        description="Price in year 1, 2, ... as a factor on today's price, e.g. [0.85, 0.75]; each above 0.",
    )
    dates: list[Date] | None = Field(
        default=None, max_length=MAX_PATH_ROWS, description="For a table: the dates the rows come into force, rising."
    )
    factors: list[float] | None = quantity(
        None,
        unit="-",
        title="price factor from a date",
        max_length=MAX_PATH_ROWS,
        description="For a table: the price from each date on as a factor on today's price; each above 0.",
    )
    source: Text = Field(default="", description="Where the path comes from, or ASSUMPTION.")

    @model_validator(mode="before")
    @classmethod
    def _reserved_is_rental(cls, data: Any) -> Any:
        if cls is PricePath and isinstance(data, dict) and "from_reserved" in data:
            raise fail(
                "PricePath",
                ("from_reserved",),
                "rental_only",
                "infers a path from reserved rental prices: it applies to rental_price_path only",
                data["from_reserved"],
            )
        return data

    def forms(self) -> list[str]:
        """The forms of path given: ``yearly_changes``, ``yearly_factors``, ``table``."""
        given = [name for name in ("yearly_changes", "yearly_factors") if getattr(self, name) is not None]
        return given + (["table"] if self.dates is not None or self.factors is not None else [])

    @model_validator(mode="after")
    def _one_complete_form(self) -> PricePath:
        title = type(self).__name__
        forms = self.forms()
        if len(forms) != 1:
            where = forms[1] if len(forms) > 1 else "yearly_changes"
            raise fail(
                title,
                ("dates" if where == "table" else where,),
                "one_form",
                "a price path takes one form: yearly_changes, yearly_factors, or dates with factors{also}; {given}",
                None,
                also=self._other_forms(),
                given=f"{' and '.join(forms)} given" if forms else "none given",
            )
        for name, low, rule in (
            ("yearly_changes", -1.0, "above -1 (a fall of 100 % or more leaves no price)"),
            ("yearly_factors", 0.0, "above 0 (a factor on today's price)"),
            ("factors", 0.0, "above 0 (a factor on today's price)"),
        ):
            high = 10.0 if name == "yearly_changes" else 1000.0  # as the constant rates' le=10
            values = getattr(self, name)
            if values is None:
                continue
            if not values:
                raise fail(title, (name,), "empty_path", "is empty: give one value for year 1 or more", values)
            for index, value in enumerate(values):
                if not value > low:
                    raise fail(
                        title,
                        (name, index),
                        "path_value",
                        "{number} is not {rule}",
                        value,
                        number=f"{value:g}",
                        rule=rule,
                    )
                if value > high:
                    raise fail(
                        title,
                        (name, index),
                        "path_value",
                        "{number} is above {high}: no price moves that much in a year",
                        value,
                        number=f"{value:g}",
                        high=f"{high:g}",
                    )
        if "table" in forms:
            dates, factors = self.dates or [], self.factors or []
            if not dates or len(dates) != len(factors):
                raise fail(
                    title,
                    ("factors",) if dates else ("dates",),
                    "table_rows",
                    "a dated price table needs one factor for each date: {dates} dates, {factors} factors",
                    self.factors if dates else self.dates,
                    dates=len(dates),
                    factors=len(factors),
                )
            for index in range(1, len(dates)):
                if dates[index] <= dates[index - 1]:
                    raise fail(
                        title,
                        ("dates", index),
                        "dates_not_rising",
                        "{date} is not after the row before ({before}): the dates must rise",
                        dates[index].isoformat(),
                        date=dates[index].isoformat(),
                        before=dates[index - 1].isoformat(),
                    )
        return self

    def _other_forms(self) -> str:
        return ""


class RentalPricePath(PricePath):
    """The rental price's path: yearly steps, a dated table, or the forward curve of the reserved prices.

    ``from_reserved: true`` infers the path from the rent option's on-demand price p and its 1- and
    3-year reserved prices p1 and p3 (each from ``options.rent.reserved`` for its term, else the offer's
    ``reserved_1y_price_per_gpu_hour`` and ``reserved_3y_price_per_gpu_hour`` in the catalog or in
    ``offers.cloud_offers``). Assumption: a commitment's price is the average on-demand-equivalent price
    expected over its term, so p1 is the average over year 1 and p3 the average over years 1-3; the
    average over years 2-3 is then (3·p3 − p1) / 2. The path is a step function: factor p1 / p in year 1,
    (3·p3 − p1) / (2·p) from year 2 on (flat after year 3). See
    :func:`costmodel.formulas.forward_factors_from_reserved`.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(*_PATH_RULES, {"oneOf": [*_PATH_FORMS, equals(from_reserved=True)]})
    )

    from_reserved: bool = Field(
        default=False,
        description="Infer the path from the rent option's on-demand and 1- and 3-year reserved "
        "prices: year 1 at p1/p, years 2-3 and after at (3 p3 - p1)/(2 p).",
    )

    def forms(self) -> list[str]:
        """The forms of path given: ``yearly_changes``, ``yearly_factors``, ``table``, ``from_reserved``."""
        return super().forms() + (["from_reserved"] if self.from_reserved else [])

    def _other_forms(self) -> str:
        return ", or from_reserved: true"


class Trends(InputModel):
    """Yearly rates of change over the horizon; all zero is the flat case."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            *[
                when(given(f"{price}_price_path"), left_at(**{f"{price}_price_change_per_year": 0}))
                for price in PRICE_PATHS
            ]
        )
    )

    rental_price_change_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="rental price change",
        strict=True,
        gt=-1,
        le=10,
        description="Change in the rental price per GPU-hour, e.g. -0.15.",
    )
    api_price_change_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="API price change",
        strict=True,
        gt=-1,
        le=10,
        description="Change in API prices per token.",
    )
    demand_growth_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="demand growth",
        strict=True,
        gt=-1,
        le=100,
        description="Change in the workload's volume.",
    )
    electricity_price_change_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="electricity price change",
        strict=True,
        gt=-1,
        le=10,
        description="Escalation of the electricity price.",
    )
    salary_change_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="salary change",
        strict=True,
        gt=-1,
        le=10,
        description="Escalation of staffing costs.",
    )
    inflation_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="general inflation",
        strict=True,
        gt=-1,
        le=10,
        description="General inflation: with it the real discount rate (Fisher) is reported beside the nominal.",
    )
    hardware_price_change_per_year: float = quantity(
        0.0,
        unit="1/year",
        title="hardware price change",
        strict=True,
        gt=-1,
        le=10,
        description="Change in the price of hardware bought later (growth, refresh), e.g. -0.2.",
    )
    rental_price_path: RentalPricePath | None = Field(
        default=None,
        description="The rental price's path instead of rental_price_change_per_year: yearly_changes, "
        "yearly_factors, dates with factors, or from_reserved: true.",
    )
    api_price_path: PricePath | None = Field(
        default=None,
        description="API prices' path instead of api_price_change_per_year: yearly_changes, "
        "yearly_factors, or dates with factors.",
    )
    electricity_price_path: PricePath | None = Field(
        default=None, description="The electricity price's path instead of electricity_price_change_per_year."
    )
    hardware_price_path: PricePath | None = Field(
        default=None, description="The hardware price's path instead of hardware_price_change_per_year."
    )
    source: Source = ""

    def path(self, price: str) -> PricePath | None:
        """The path of a price of :data:`PRICE_PATHS` (``rental``, ``api``, ``electricity``, ``hardware``), if given."""
        return getattr(self, f"{price}_price_path")

    def rate(self, price: str) -> float:
        """The constant yearly rate of a price of :data:`PRICE_PATHS`. [1/year]"""
        return getattr(self, f"{price}_price_change_per_year")

    @model_validator(mode="after")
    def _rate_or_path(self) -> Trends:
        for price in PRICE_PATHS:
            rate = self.rate(price)
            if self.path(price) is not None and rate != 0:
                raise fail(
                    "Trends",
                    (f"{price}_price_path",),
                    "rate_and_path",
                    "give either {price}_price_change_per_year ({rate}) or {price}_price_path, not both: "
                    "a path replaces the constant rate",
                    rate,
                    price=price,
                    rate=f"{rate:g}",
                )
        return self


class Residual(InputModel):
    """Resale value of the hardware as it ages: the curve used at each refresh and at the horizon."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(equals(method="declining_balance"), given("rate_per_year")),
            when(never(equals(method="declining_balance")), absent("rate_per_year")),
            when(
                equals(method="points"),
                both(
                    given("ages_months", "shares"),
                    {
                        "properties": {
                            "ages_months": {"minItems": 2, "prefixItems": [{"minimum": 0}]},
                            "shares": {"minItems": 2},
                        }
                    },
                ),
            ),
            when(never(equals(method="points")), absent("ages_months", "shares")),
        )
    )

    method: Literal["straight_line", "declining_balance", "points"] = Field(
        default="straight_line",
        description="straight_line over the useful life; declining_balance at rate_per_year; or points.",
    )
    rate_per_year: Share | None = quantity(
        None,
        unit="1/year",
        title="yearly loss of resale value",
        description="For declining_balance: value × (1 − rate)^(age/12).",
    )
    ages_months: list[float] | None = Field(default=None, description="For points: ages, rising. [months]")
    shares: list[Share] | None = Field(default=None, description="For points: resale value as a share of price. [-]")
    source: Source = ""

    @model_validator(mode="after")
    def _curve_is_complete(self) -> Residual:
        if self.method == "declining_balance" and self.rate_per_year is None:
            raise fail(
                "Residual",
                ("rate_per_year",),
                "missing",
                "a declining_balance residual curve needs rate_per_year",
                None,
            )
        if self.method == "points":
            ages, shares = self.ages_months or [], self.shares or []
            if len(ages) < 2 or len(ages) != len(shares):
                raise fail(
                    "Residual",
                    ("ages_months",),
                    "points",
                    "a points residual curve needs at least two ages and as many shares",
                    ages,
                )
            if any(b <= a for a, b in zip(ages, ages[1:], strict=False)) or ages[0] < 0:
                raise fail("Residual", ("ages_months",), "points", "ages must rise from 0 or more", ages)
        unused = [
            name
            for name, method in (
                ("rate_per_year", "declining_balance"),
                ("ages_months", "points"),
                ("shares", "points"),
            )
            if getattr(self, name) is not None and self.method != method
        ]
        if unused:
            raise fail(
                "Residual",
                (unused[0],),
                "unused",
                "applies to method {needs}, not {method}: remove it or change the method",
                getattr(self, unused[0]),
                needs="declining_balance" if unused[0] == "rate_per_year" else "points",
                method=self.method,
            )
        return self


class Lease(InputModel):
    """The month-0 hardware leased instead of bought: payments in advance at the start of each month.

    ``finance``: the lessee owns the hardware after paying ``residual_share`` of its price as a
    buy-out at the end of the term (still owed at the horizon: paid off then, like a loan).
    ``operating``: the hardware goes back at the end of the term and is leased again at that
    month's hardware price; nothing is resold; the payments are an expense for tax.
    """

    kind: Literal["finance", "operating"] = Field(description="finance (buy-out at the end) or operating.")
    rate_per_year: float = quantity(
        unit="1/year",
        title="lease rate",
        strict=True,
        ge=0,
        le=1,
        description="Nominal yearly rate implicit in the lease; monthly at rate / 12.",
    )
    term_months: Whole = quantity(unit="months", title="lease term", ge=1, le=120, varies=False)
    residual_share: Share = quantity(
        0.0,
        unit="-",
        title="lease residual",
        description="Buy-out (finance) or the lessor's residual (operating), as a share of the hardware price.",
    )
    source: Source = ""


class Commitment(InputModel):
    """Reserved rental GPUs in the rent option's cash flows, paid all, partly or not up front each term.

    The term and price are the rent option's ``reserved`` block; hours above the reserved GPUs are
    paid on demand. An up-front payment covers the whole term even where the horizon ends within it.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(when(never(equals(payment="partial_upfront")), left_at(upfront_share=0.5)))
    )

    gpus: Whole = quantity(unit="GPU", title="reserved GPUs", ge=1, le=10_000_000, varies=False)
    payment: Literal["all_upfront", "partial_upfront", "no_upfront"] = Field(
        default="no_upfront",
        description="How much of each term is paid at its start: all, part (upfront_share) or none.",
    )
    upfront_share: Share = quantity(
        0.5,
        unit="-",
        title="share paid up front",
        description="For partial_upfront: share of the term's price paid at its start.",
    )
    source: Source = ""

    @model_validator(mode="after")
    def _share_for_partial(self) -> Commitment:
        # a stated share differs from the default (a dump and reload of the block keeps its defaults)
        if self.upfront_share != type(self).model_fields["upfront_share"].default and self.payment != "partial_upfront":
            raise fail(
                "Commitment",
                ("upfront_share",),
                "unused",
                "applies to payment partial_upfront, not {payment}: remove it or change the payment",
                self.upfront_share,
                payment=self.payment,
            )
        return self


class Tax(InputModel):
    """Income tax on the cash flows: running costs and bills deducted as paid, hardware depreciated for tax.

    The after-tax view subtracts the tax saved (rate × deductions) from each option's costs
    and adds the tax on resale proceeds above the hardware's remaining tax basis.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(equals(depreciation="macrs_5"), both(absent("life_months"), left_at(declining_factor=2.0)))
        )
    )

    rate: Share = quantity(unit="-", title="tax rate", description="Marginal income tax rate, e.g. 0.21.")
    depreciation: Literal["straight_line", "declining_balance", "macrs_5"] = Field(
        default="straight_line",
        description="Tax depreciation of hardware: straight_line or declining_balance over life_months, or "
        "macrs_5 (IRS Publication 946 Table A-1, 5-year property, half-year convention).",
    )
    life_months: Whole | None = quantity(
        None,
        unit="months",
        title="tax life",
        ge=1,
        le=480,
        varies=False,
        description="Tax life for straight_line and declining_balance; default: the own option's depreciation_months.",
    )
    declining_factor: float = quantity(
        2.0,
        unit="-",
        title="declining-balance factor",
        strict=True,
        gt=1,
        le=3,
        description="2.0 for double declining balance.",
    )
    bonus_share: Share = quantity(
        0.0,
        unit="-",
        title="bonus depreciation",
        description="Share of hardware cost deducted in the month it is bought.",
    )
    source: Source = ""

    @model_validator(mode="after")
    def _table_has_its_life(self) -> Tax:
        if self.depreciation == "macrs_5":
            unused = [
                name
                for name in ("life_months", "declining_factor")
                if getattr(self, name) != type(self).model_fields[name].default
            ]
            if unused:
                raise fail(
                    "Tax",
                    (unused[0],),
                    "unused",
                    "macrs_5 deducts on its own table (data/tax_depreciation.csv): {name} does not apply; remove it",
                    getattr(self, unused[0]),
                    name=unused[0],
                )
        return self


class CapacityPlan(InputModel):
    """A multi-year capacity plan: each year's cheapest mix at that year's demand, servers bought as they pay.

    Demand grows by ``trends.demand_growth_per_year`` from one year to the next (the demand
    profile's shape is kept); each year the owned servers are the cheapest mix's, never fewer than
    the year before; the servers for year y are ordered ``lead_time_months`` before it starts.
    """

    years: Whole | None = quantity(
        None,
        unit="years",
        title="plan years",
        ge=1,
        le=50,
        varies=False,
        description="Years planned; default: the horizon's, rounded up.",
    )
    source: Source = ""


class NpvConvention(InputModel):
    """How the present value is stated: per month or per year, cash at the start or the end of each period.

    ``period: month, timing: begin`` (the default) is numpy-financial's ``npv`` on monthly flows
    (month 0 undiscounted); ``period: year, timing: end`` is Excel's ``NPV(rate, year1, ...)``
    on yearly totals, as published ROI calculators and corporate templates state it;
    ``timing: capital_begin`` puts the investment (hardware, facility, lease payments in advance,
    up-front commitments) at the start of its period and every other flow at the end
    ("investment at time 0, flows at period end", ``=-I0 + NPV(r, F1:Fn)``), the timing of the
    fractional payback.
    """

    period: Literal["month", "year"] = Field(
        default="month", description="Flows discounted by month or summed and discounted by year."
    )
    timing: Literal["begin", "end", "capital_begin"] = Field(
        default="begin",
        description="Cash at the start or the end of each period, or the investment at the start "
        "and other flows at the end.",
    )


class Finance(InputModel):
    """A horizon, the cost of money, and how the own cluster is paid for and phased in.

    Cash-flow conventions: costs are positive; month 0 is the month of the decision;
    capex is paid in the month the hardware is bought; running costs and rental are paid
    in the month they arise; the resale value comes back in the horizon's last month.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            never(given("loan", "lease")),
            when(equals(view="marginal"), absent("loan", "lease")),
            *[
                when(inside("trends", inside(f"{price}_price_path", given("dates"))), given("start_date"))
                for price in PRICE_PATHS
            ],
            when(inside("lead_time_months", {"exclusiveMinimum": 0}), given("during_lead_time")),
        )
    )

    horizon_months: Whole = quantity(
        unit="months", title="horizon", ge=1, varies=False, le=600, description="Months compared."
    )
    discount_rate_per_year: float = quantity(
        unit="1/year",
        title="discount rate",
        strict=True,
        ge=0,
        le=1,
        description="Cost of capital, an effective yearly rate.",
    )
    resale_share_at_horizon: Share | None = quantity(
        None,
        unit="-",
        title="resale value at the horizon",
        description="Resale value of the hardware at the horizon as a share of its capex; default: its "
        "straight-line book value.",
    )
    lead_time_months: Whole = quantity(
        0,
        unit="months",
        title="lead time",
        ge=0,
        varies=False,
        le=120,
        description="Months from the decision until the cluster is online.",
    )
    during_lead_time: Literal["rent", "api"] | None = Field(
        default=None, description="Option that serves the workload until the cluster is online."
    )
    loan: Loan | None = Field(
        default=None,
        description="The hardware bought with a loan: rate [1/year], term "
        "[months], down payment [-]; default: paid in cash.",
    )
    trends: Trends = Field(
        default_factory=Trends,
        description="Yearly rates of change (or price paths) of prices, "
        "demand and salaries over the horizon [1/year]; default: all flat.",
    )
    source: Text = Field(default="", description="Where the discount rate and the other figures come from.")
    useful_life_months: Whole | None = quantity(
        None,
        unit="months",
        title="useful life",
        ge=1,
        varies=False,
        le=240,
        description="Months after which the hardware is bought again (refresh) and the old sold on the "
        "residual curve; default: the own option's depreciation_months.",
    )
    residual: Residual = Field(
        default_factory=Residual,
        description="Resale value of the hardware as it ages "
        "[share of price]; default: straight line over the useful life.",
    )
    npv: NpvConvention = Field(
        default_factory=NpvConvention,
        description="How the present value is stated: per "
        "month or per year, cash at the start or the end of each period.",
    )
    tax: Tax | None = Field(
        default=None,
        description="Corporate tax: rate [-], the tax depreciation "
        "schedule and life [months]; default: figures before tax.",
    )
    capacity_plan: CapacityPlan | None = Field(
        default=None,
        description="A multi-year plan: each year's cheapest mix at its demand, servers bought as they pay [years].",
    )
    lease: Lease | None = Field(
        default=None,
        description="The hardware leased (finance or operating lease): "
        "rate [1/year], term [months], residual [-]; instead of a loan.",
    )
    rent_commitment: Commitment | None = Field(
        default=None,
        description="A reserved rental commitment over the "
        "horizon: GPUs [GPU], payment (no_upfront, partial_upfront, all_upfront).",
    )
    start_date: Date | None = Field(
        default=None,
        description="Date of month 0 (the decision): month m is this date plus m calendar months. "
        "Needed by a dated price table (trends.<price>_price_path dates).",
    )
    view: Literal["full", "marginal"] = Field(
        default="full",
        description="marginal: the configured servers are already owned (sunk): their price is "
        "left out; later purchases and refreshes are paid.",
    )

    @model_validator(mode="after")
    def _one_way_to_pay(self) -> Finance:
        if self.loan is not None and self.lease is not None:
            raise fail(
                "Finance",
                ("lease",),
                "loan_and_lease",
                "the hardware is either bought with a loan or leased, not both: remove loan or lease",
                None,
            )
        if self.view == "marginal" and (self.loan is not None or self.lease is not None):
            raise fail(
                "Finance",
                ("view",),
                "marginal_financed",
                "a marginal view treats the configured servers as already paid for: it cannot also "
                "finance them (remove loan or lease)",
                self.view,
            )
        return self

    @model_validator(mode="after")
    def _tables_need_a_start(self) -> Finance:
        for price in PRICE_PATHS:
            path = self.trends.path(price)
            if path is not None and path.dates is not None and self.start_date is None:
                raise fail(
                    "Finance",
                    ("start_date",),
                    "missing",
                    "trends.{price}_price_path is a dated table: give start_date, the date of month 0, to "
                    "place the horizon's months on the calendar",
                    None,
                    price=price,
                )
        return self

    @model_validator(mode="after")
    def _lead_time_needs_a_stand_in(self) -> Finance:
        if self.lead_time_months > 0 and self.during_lead_time is None:
            raise fail(
                "Finance",
                ("during_lead_time",),
                "missing",
                "a lead time needs the option (rent or api) that serves the work meanwhile",
                None,
            )
        plan = self.capacity_plan
        if plan is not None and plan.years is not None and (plan.years - 1) * 12 >= self.horizon_months:
            raise fail(
                "Finance",
                ("capacity_plan", "years"),
                "plan_past_horizon",
                "plans years past the {horizon}-month horizon (horizon_months): at most {most}",
                plan.years,
                horizon=self.horizon_months,
                most=-(-self.horizon_months // 12),
            )
        if self.lead_time_months >= self.horizon_months:
            raise fail(
                "Finance",
                ("lead_time_months",),
                "lead_time_past_horizon",
                "the cluster would come online in month {lead} of a {horizon}-month horizon "
                "(horizon_months): it would be bought and never used; shorten the lead time or lengthen "
                "the horizon",
                self.lead_time_months,
                lead=self.lead_time_months,
                horizon=self.horizon_months,
            )
        return self

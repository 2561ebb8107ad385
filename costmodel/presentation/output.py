"""The output contract: one typed model of a comparison, for the programs that read costmodel.

``costmodel compare --json`` prints :meth:`ComparisonOutput.model_dump` of this model, which
:func:`comparison_output` makes of the domain's result (:func:`costmodel.compare`). The rules,
the same in every section:

- ``schema_version`` (semver) says which version of this contract a document follows: a
  change that removes, renames or retypes a field bumps the major; a new field the minor.
- Every quantity is an object ``{"value", "unit", "status"}`` (:class:`Quantity`, or
  :class:`Count` for whole numbers): ``value`` is a number or ``null``, never a string,
  NaN or infinity; when it is ``null``, ``status`` says why, from a fixed vocabulary
  (:data:`STATUSES`): ``never`` (no break-even, no payback in range), ``not_defined`` (a
  cost per unit at zero volume, an emission without a grid), ``not_applicable`` (a cost per
  GPU-hour of the API, a failure figure without a failure model), ``no_limit`` (capacity
  with no fixed GPU count, a latency target without a bound). ``status`` is ``null`` when
  there is a value.
- A list of numbers in one unit is ``{"values", "unit"}`` (:class:`Series`).
- Units use the names of the scenario schema's fields (``schema.base.quantity(unit=...)``):
  ``-`` for a pure number, ``GPU``, ``GPU-h``, ``GPU-h/month``, ``tokens/day``, ``h``,
  ``d``, ``min``, ``s``, ``months``, ``kW``, ``GB``, ``1/year``, ``USD/month``,
  ``USD/GPU-h``, ... (:data:`UNITS` lists them, with the currency written ``{currency}``).
- Fractions are fractions (0.25, not 25 %), in fields named ``*_share`` or ``*_fraction``.
- A section the scenario has no block for (``training_run``, ``finance``, ``cheapest_mix``,
  ``serving``, ``energy``, ``uncertainty``) is ``null``, never missing.

The model is built from the domain's results (:class:`costmodel.results.Comparison`), which
stay plain dataclasses; the figures are rounded as the earlier JSON rounded them (money of a
horizon, a run or a mix to the cent, other figures to six decimals).
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from ..domain.compare import compare
from ..resolved import Resolved, as_resolved
from ..results import (
    Comparison,
    EnergyResult,
    Layer,
    MixResult,
    OptionResult,
    OwnFinance,
    RoutingResult,
    ServingResult,
    SobolIndices,
    TrainingRun,
    UncertaintyResult,
)
from ..schema import Scenario

SCHEMA_VERSION = "2.5.0"
"""Version of the output contract (semver: a breaking change bumps the major)."""

STATUSES = ("never", "not_defined", "not_applicable", "no_limit")
"""Why a quantity has no value: the whole vocabulary."""

Status = Literal["never", "not_defined", "not_applicable", "no_limit"]

UNITS = (
    "-",
    "GPU",
    "GPU-h",
    "GPU-h/month",
    "tokens",
    "tokens/day",
    "steps",
    "samples",
    "requests",
    "replicas",
    "servers",
    "h",
    "d",
    "min",
    "s",
    "months",
    "1/year",
    "1/(GPU·year)",
    "FLOP",
    "TFLOP/s/GPU",
    "output tokens/s/GPU",
    "tokens/s/user",
    "tokens/J",
    "GB",
    "W",
    "kW",
    "kWh/month",
    "MWh",
    "Wh",
    "kg CO2e/month",
    "kg CO2e/M tokens",
    "t CO2e",
    "{currency}",
    "{currency}/month",
    "{currency}/GPU-h",
    "{currency}/GPU/h",
    "{currency}/M tokens",
    "{currency}/M output tokens",
    "{currency}/task",
    "{currency}/1,000 successful tasks",
    "requests/day",
)
"""Units the output uses; ``{currency}`` is the scenario's reporting currency, and an uncertain
input's bars carry that input's own unit from the scenario schema."""

VOLUME_UNITS = {"tokens/day": "tokens/day", "GPU-hours/month": "GPU-h/month"}


class OutputModel(BaseModel):
    """Base of every output block: frozen, no unknown fields, no NaN or infinity."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, json_schema_serialization_defaults_required=True
    )


def _value_xor_status(number: str) -> dict[str, Any]:
    return {
        "oneOf": [
            {"properties": {"value": {"type": number}, "status": {"type": "null"}}},
            {"properties": {"value": {"type": "null"}, "status": {"enum": list(STATUSES)}}},
        ]
    }


class Quantity(OutputModel):
    """A number with its unit; ``value`` null only with a ``status`` saying why."""

    model_config = ConfigDict(json_schema_extra=_value_xor_status("number"))

    value: float | None
    unit: str
    status: Status | None = None

    @model_validator(mode="after")
    def _value_or_status(self) -> Quantity:
        if (self.value is None) == (self.status is None):
            raise ValueError(
                f"a quantity has a value or a status, exactly one (value={self.value}, status={self.status})"
            )
        return self


class Count(OutputModel):
    """A whole number with its unit; ``value`` null only with a ``status`` saying why."""

    model_config = ConfigDict(json_schema_extra=_value_xor_status("integer"))

    value: int | None
    unit: str
    status: Status | None = None

    @model_validator(mode="after")
    def _value_or_status(self) -> Count:
        if (self.value is None) == (self.status is None):
            raise ValueError(f"a count has a value or a status, exactly one (value={self.value}, status={self.status})")
        return self


class Series(OutputModel):
    """Numbers in one unit, in order."""

    values: list[float]
    unit: str


def _q(value: Any, unit: str, status: Status = "not_defined", digits: int | None = None) -> Quantity:
    if value is None:
        return Quantity(value=None, unit=unit, status=status)
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x} [{unit}]")
    return Quantity(value=(round(x, digits) if digits is not None else x) + 0.0, unit=unit)


def _n(value: Any, unit: str, status: Status = "not_defined") -> Count:
    return Count(value=None, unit=unit, status=status) if value is None else Count(value=int(value), unit=unit)


def _series(values: Any, unit: str, digits: int | None = None) -> Series:
    out = [
        (round(float(x), digits) if digits is not None else float(x)) + 0.0
        for x in np.asarray(values, dtype=float).ravel()
    ]
    if not all(math.isfinite(x) for x in out):
        raise ValueError(f"not finite numbers in a series [{unit}]")
    return Series(values=out, unit=unit)


def key(name: str) -> str:
    """A component or cash-flow line name as an output key: ``"capex depreciation"`` → ``capex_depreciation``."""
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


# --- options and break-evens -----------------------------------------------------------------------------


class ProviderOutput(OutputModel):
    """The own cluster as a GPU cloud's income statement for a month (``options.own.provider``).

    ``opex`` is every running cost (the monthly cost less its capital lines); ``depreciation``
    straight line (each capex line over its life, land never), with no cost of capital;
    ``ebit`` = revenue − opex − depreciation; ``noi`` = revenue − opex.
    """

    revenue: Quantity
    opex: Quantity
    depreciation: Quantity
    ebit: Quantity
    noi: Quantity


class OptionOutput(OutputModel):
    """One option at the compared volume; ``provider``: the own option's income view, null without one."""

    label: str
    kind: str
    monthly_cost: Quantity
    components: dict[str, Quantity]
    cost_per_gpu_hour_used: Quantity
    cost_per_million_tokens: Quantity
    cost_per_million_output_tokens: Quantity
    configured_gpus: Count
    gpus: Count
    utilisation_share: Quantity
    gpu_count_stepped_up: bool
    capacity_volume: Quantity
    cost_per_request: Quantity
    cost_per_1000_requests: Quantity
    provider: ProviderOutput | None = None


class CheapestRangeOutput(OutputModel):
    """A range of volumes over which one option is the cheapest."""

    volume_from: Quantity
    volume_to: Quantity
    option: str


class BreakEvenOutput(OutputModel):
    """Where the cheaper of two options changes within the searched range."""

    options: list[str]
    volume: Quantity
    kind: Literal["crossing", "step", "never"]
    cheaper_below: str | None
    cheaper_above: str | None
    all_volumes: Series
    all_kinds: list[str]
    searched_from: Quantity
    searched_to: Quantity


# --- the training run ------------------------------------------------------------------------------------


class RunCost(OutputModel):
    """The cost of the run with one option."""

    total: Quantity
    components: dict[str, Quantity]


class StageOutput(OutputModel):
    """One stage of a training run."""

    name: str
    stated_by: str
    gpus: Count
    training_tokens: Quantity
    flop: Quantity
    mfu_fraction: Quantity
    gpu_hours: Quantity
    wall_clock: Quantity
    cost: dict[str, Quantity]


class MemoryOutput(OutputModel):
    """Memory per GPU under the run's parallelism plan."""

    zero_stage: int
    model_state: Quantity
    activations: Quantity
    total: Quantity
    usable: Quantity
    fits: bool


class FailureCauseOutput(OutputModel):
    """An observed failure cause: rate and the job's mean time between failures."""

    failures_per_gpu_per_year: Quantity
    job_mtbf: Quantity


class ComponentFailureOutput(OutputModel):
    """One kind of component of a run stated by component: how many, each one's rate, the cluster's rate from them."""

    count: Count
    failures_per_component_per_year: Quantity
    cluster_failures_per_year: Quantity


class TrainingOutput(OutputModel):
    """A training run worked out; ``failures_by_component`` is null unless the failures are stated by component."""

    flop: Quantity
    dense_peak: Quantity
    mfu_fraction: Quantity
    ideal_gpu_hours: Quantity
    goodput_share: Quantity
    gpu_hours: Quantity
    wall_clock: Quantity
    job_mtbf: Quantity
    checkpoint_interval: Quantity
    checkpoint_intervals: dict[str, Quantity] | None
    checkpoint_interval_steps: Count
    gpu_hours_lost_per_failure: Quantity
    min_gpus_sharded: Count
    min_gpus_unsharded: Count
    cost: dict[str, RunCost]
    cheapest: str
    stages: list[StageOutput]
    failures_by_cause: dict[str, FailureCauseOutput]
    memory_per_gpu: MemoryOutput | None
    warnings: list[str]
    failures_by_component: dict[str, ComponentFailureOutput] | None = None


def _training(run: TrainingRun, cur: str) -> TrainingOutput:
    none = "not_applicable"
    intervals = run.checkpoint_intervals
    m = run.memory
    return TrainingOutput(
        flop=_q(run.flop, "FLOP", digits=None),
        dense_peak=_q(run.peak_tflops, "TFLOP/s/GPU", digits=None),
        mfu_fraction=_q(run.mfu, "-"),
        ideal_gpu_hours=_q(run.ideal_gpu_hours, "GPU-h", digits=3),
        goodput_share=_q(run.goodput, "-"),
        gpu_hours=_q(run.gpu_hours, "GPU-h", digits=3),
        wall_clock=_q(run.wall_clock_days, "d", digits=4),
        job_mtbf=_q(run.job_mtbf_hours, "h", none, digits=4),
        checkpoint_interval=_q(
            None if run.checkpoint_interval_hours is None else run.checkpoint_interval_hours * 60, "min", none, digits=4
        ),
        checkpoint_intervals=(
            None if intervals is None else {name: _q(hours * 60, "min", digits=4) for name, hours in intervals.items()}
        ),
        checkpoint_interval_steps=_n(run.checkpoint_interval_steps, "steps", none),
        gpu_hours_lost_per_failure=_q(run.gpu_hours_lost_per_failure, "GPU-h", none, digits=3),
        min_gpus_sharded=_n(run.min_gpus_sharded, "GPU", "never"),
        min_gpus_unsharded=_n(run.min_gpus_unsharded, "GPU", "never"),
        cost={
            o: RunCost(
                total=_q(run.total(o), cur, digits=2),
                components={key(k): _q(v, cur, digits=2) for k, v in parts.items()},
            )
            for o, parts in run.costs.items()
        },
        cheapest=run.cheapest,
        stages=[
            StageOutput(
                name=s.name,
                stated_by=s.basis,
                gpus=_n(s.gpus, "GPU"),
                training_tokens=_q(s.training_tokens, "tokens", none, digits=None),
                flop=_q(s.flop, "FLOP", none, digits=None),
                mfu_fraction=_q(s.mfu, "-"),
                gpu_hours=_q(s.gpu_hours, "GPU-h", digits=3),
                wall_clock=_q(s.wall_clock_days, "d", digits=4),
                cost={o: _q(v, cur, digits=2) for o, v in s.costs.items()},
            )
            for s in run.stages
        ],
        failures_by_cause={
            name: FailureCauseOutput(
                failures_per_gpu_per_year=_q(rate, "1/(GPU·year)"), job_mtbf=_q(mtbf, "h", digits=4)
            )
            for name, (rate, mtbf) in (run.failures_by_cause or {}).items()
        },
        memory_per_gpu=(
            None
            if m is None
            else MemoryOutput(
                zero_stage=m.zero_stage,
                model_state=_q(m.state_bytes / 1e9, "GB", digits=3),
                activations=_q(m.activation_bytes / 1e9, "GB", digits=3),
                total=_q(m.total_bytes / 1e9, "GB", digits=3),
                usable=_q(m.usable_bytes / 1e9, "GB", digits=3),
                fits=m.fits,
            )
        ),
        warnings=list(run.warnings),
        failures_by_component=(
            None
            if run.failures_by_component is None
            else {
                name: ComponentFailureOutput(
                    count=_n(count, "-"),
                    failures_per_component_per_year=_q(rate, "1/year"),
                    cluster_failures_per_year=_q(total, "1/year"),
                )
                for name, (count, rate, total) in run.failures_by_component.items()
            }
        ),
    )


# --- the horizon -----------------------------------------------------------------------------------------


class UtilisationBreakEvenOutput(OutputModel):
    """Utilisation at which owning costs a rental offer's price per used GPU-hour."""

    offer: str
    price: Quantity
    utilisation_share: Quantity


class OptionCashFlows(OutputModel):
    """One option's cash out by year: each line and the total (costs positive, credits negative)."""

    lines: dict[str, Series]
    total: Series


class CashFlowsByYear(OutputModel):
    """Cash flows over the horizon summed by year (year 1 is months 0-11); the last year may be partial."""

    years: list[int]
    months_in_year: list[int]
    online_month: Count
    options: dict[str, OptionCashFlows]


class NpvConventionOutput(OutputModel):
    """How the present values are computed: monthly or yearly periods, flows at the beginning or the end."""

    period: str
    timing: str


class AfterTaxOutput(OutputModel):
    """The horizon after tax: the depreciation tax shield on owning, bills deducted as paid."""

    tax_rate: Quantity
    tco: dict[str, Quantity]
    npv: dict[str, Quantity]
    irr_per_year: Quantity


class FinanceOutput(OutputModel):
    """The own cluster over the horizon, against the other options.

    ``irr``, ``mirr`` (yearly rates), ``roi`` (net gain / investment), ``payback_months`` and
    ``discounted_payback_months`` compare owning with ``payback_against``.
    """

    horizon: Count
    discount_rate_per_year: Quantity
    tco: dict[str, Quantity]
    npv: dict[str, Quantity]
    own_cost_per_used_gpu_hour: Quantity
    own_utilisation_share: Quantity
    break_even_utilisation: dict[str, UtilisationBreakEvenOutput]
    payback_month: Count
    payback_against: str | None
    cash_flows_by_year: CashFlowsByYear | None
    npv_convention: NpvConventionOutput
    irr: Quantity
    mirr: Quantity
    roi: Quantity
    investment: Quantity
    payback_months: Quantity
    discounted_payback_months: Quantity
    yearly_cash_out: dict[str, Series] | None
    real_discount_rate_per_year: Quantity | None
    after_tax: AfterTaxOutput | None


def _finance(f: OwnFinance, cur: str, r: Resolved | None) -> FinanceOutput:
    flows = None
    if r is not None:
        from ..domain.finance import cash_flows

        cf = cash_flows(r)
        n = len(cf.months)
        years = list(range(1, (n + 11) // 12 + 1))

        def by_year(monthly):
            monthly = np.asarray(monthly, dtype=float)
            return _series([monthly[12 * (y - 1) : 12 * y].sum() for y in years], cur, 2)

        flows = CashFlowsByYear(
            years=years,
            months_in_year=[min(12, n - 12 * (y - 1)) for y in years],
            online_month=_n(cf.online_month, "months"),
            options={
                o: OptionCashFlows(
                    lines={key(line): by_year(v) for line, v in lines.items()}, total=by_year(cf.total(o))
                )
                for o, lines in cf.flows.items()
            },
        )
    return FinanceOutput(
        horizon=_n(f.horizon_months, "months"),
        discount_rate_per_year=_q(f.discount_rate_per_year, "1/year", digits=None),
        tco={o: _q(v, cur, digits=2) for o, v in f.tco_by_option.items()},
        npv={o: _q(v, cur, digits=2) for o, v in f.npv_by_option.items()},
        own_cost_per_used_gpu_hour=_q(f.cost_per_used_gpu_hour, f"{cur}/GPU-h"),
        own_utilisation_share=_q(f.utilisation, "-"),
        break_even_utilisation={
            b.offer: UtilisationBreakEvenOutput(
                offer=b.label,
                price=_q(b.price_per_gpu_hour, f"{cur}/GPU-h"),
                utilisation_share=_q(b.utilisation, "-", "never"),
            )
            for b in f.break_even_utilisation
        },
        payback_month=_n(f.payback_month, "months", "never"),
        payback_against=f.payback_against,
        cash_flows_by_year=flows,
        npv_convention=NpvConventionOutput(period=f.npv_period, timing=f.npv_timing),
        irr=_q(f.irr_per_year, "1/year", digits=9),
        mirr=_q(f.mirr_per_year, "1/year", digits=9),
        roi=_q(f.roi, "-", digits=9),
        investment=_q(f.investment, cur, digits=2),
        payback_months=_q(f.payback_months, "months", "never"),
        discounted_payback_months=_q(f.discounted_payback_months, "months", "never"),
        yearly_cash_out=(
            {o: _series(v, cur, 2) for o, v in f.yearly_by_option.items()} if f.yearly_by_option is not None else None
        ),
        real_discount_rate_per_year=(
            _q(f.real_discount_rate_per_year, "1/year", digits=9) if f.real_discount_rate_per_year is not None else None
        ),
        after_tax=(
            AfterTaxOutput(
                tax_rate=_q(f.tax_rate, "-", digits=9),
                tco={o: _q(v, cur, digits=2) for o, v in f.after_tax_tco_by_option.items()},
                npv={o: _q(v, cur, digits=2) for o, v in f.after_tax_npv_by_option.items()},
                irr_per_year=_q(f.after_tax_irr_per_year, "1/year", digits=9),
            )
            if f.tax_rate is not None
            and f.after_tax_tco_by_option is not None
            and f.after_tax_npv_by_option is not None
            else None
        ),
    )


class PlanYearOutput(OutputModel):
    """One year of a capacity plan."""

    year: int
    gpu_hours_per_month: Quantity
    own_servers: Count
    gpus_by_kind: dict[str, int]
    rented_per_month: Quantity


class PurchaseOutput(OutputModel):
    """One purchase of a capacity plan: the month it is ordered and paid."""

    month: int
    servers: Count
    price: Quantity


class PlanOutput(OutputModel):
    """A multi-year capacity plan: purchases and what is rented meanwhile, with its TCO and present value."""

    years: list[PlanYearOutput]
    purchases: list[PurchaseOutput]
    tco: Quantity
    npv: Quantity


def _plan(plan, cur: str) -> PlanOutput:
    return PlanOutput(
        years=[
            PlanYearOutput(
                year=y.year,
                gpu_hours_per_month=_q(y.gpu_hours_per_month, "GPU-h/month"),
                own_servers=_n(y.own_servers, "servers"),
                gpus_by_kind={k: v for k, v in y.layers.items() if k != Layer.API},
                rented_per_month=_q(y.rented_per_month, f"{cur}/month", digits=2),
            )
            for y in plan.years
        ],
        purchases=[
            PurchaseOutput(month=m, servers=_n(n, "servers"), price=_q(p, cur, digits=2)) for m, n, p in plan.purchases
        ],
        tco=_q(plan.tco, cur, digits=2),
        npv=_q(plan.npv, cur, digits=2),
    )


# --- the cheapest mix --------------------------------------------------------------------------------------


class MixLayerOutput(OutputModel):
    """One kind of capacity in the cheapest mix, as it is bought."""

    offer: str
    units: Count
    unit: str
    gpus: Count
    capacity: Quantity
    busy_gpu_hours: Quantity
    tokens_per_month: Quantity
    work_share: Quantity
    cost: Quantity
    utilisation_share: Quantity


class SteadyMixOutput(OutputModel):
    """The cheapest mix for the same average demand, steady."""

    layers: dict[str, MixLayerOutput]
    total: Quantity


class MixApiOutput(OutputModel):
    """For a tokens workload: the API's part of the cheapest mix, and the replicas beneath it."""

    token_share: Quantity
    cost_share: Quantity
    replicas: dict[str, int]
    above_tokens_per_day: Quantity
    hybrid: bool


class MixOutput(OutputModel):
    """The cheapest mix of kinds of capacity for the demand profile, each bought as it is sold.

    ``pure_options``: each kind alone for the same hourly demand (the options' own costs; API
    options by their option names); ``api``: a tokens workload's API part.
    """

    profile: str
    layers: dict[str, MixLayerOutput]
    rental_staffing: Quantity
    total: Quantity
    pure_options: dict[str, Quantity]
    pure_offers: dict[str, str]
    savings_against_pure: dict[str, Quantity]
    demand_mean: Quantity
    demand_peak: Quantity
    utilisation_ceiling: Quantity
    if_steady: SteadyMixOutput | None
    api: MixApiOutput | None


def _layers_out(mix, cur: str, tokens_per_day_per_gpu: float | None = None) -> dict[str, MixLayerOutput]:
    month = f"{cur}/month"

    def layer(k, x) -> MixLayerOutput:
        api = k == Layer.API or x.kind == Layer.API  # bought in tokens: no GPUs to count
        tokens = (
            x.busy_gpu_hours * tokens_per_day_per_gpu / 24.0  # a tokens workload: every layer's tokens
            if tokens_per_day_per_gpu is not None
            else None
        )
        return MixLayerOutput(
            offer=x.offer,
            units=_n(None if api else x.units, "-" if api else (x.unit or "-"), "not_applicable"),
            unit="tokens" if api else (x.unit or "-"),
            gpus=_n(None if api else x.gpus, "GPU", "not_applicable"),
            capacity=_q(None if api else x.capacity, "GPU", "not_applicable" if api else "no_limit"),
            busy_gpu_hours=_q(None if api else x.busy_gpu_hours, "GPU-h/month", "not_applicable"),
            tokens_per_month=_q(tokens, "tokens/month", "not_applicable"),
            work_share=_q(x.work_share, "-"),
            cost=_q(x.cost, month, digits=2),
            utilisation_share=_q(None if api else x.utilisation, "-", "not_applicable"),
        )

    return {str(k): layer(k, x) for k, x in mix.layers.items()}


def _mix(m: MixResult, cur: str) -> MixOutput:
    mix, month = m.mix, f"{cur}/month"
    demand = np.asarray(mix.demand, dtype=float)
    return MixOutput(
        profile=m.profile,
        layers=_layers_out(mix, cur, m.tokens_per_day_per_gpu),
        rental_staffing=_q(mix.staffing, month, digits=2),
        total=_q(mix.total, month, digits=2),
        pure_options={str(k): _q(v, month, digits=2) for k, v in mix.pure.items()},
        pure_offers={str(k): v for k, v in mix.pure_offers.items()},
        savings_against_pure={str(k): _q(v, month, digits=2) for k, v in mix.savings().items()},
        demand_mean=_q(float(demand.mean()) if demand.size else 0.0, "GPU"),
        demand_peak=_q(float(demand.max()) if demand.size else 0.0, "GPU"),
        utilisation_ceiling=_q(mix.ceiling, "-"),
        if_steady=(
            None
            if m.if_steady is None
            else SteadyMixOutput(
                layers=_layers_out(m.if_steady, cur, m.tokens_per_day_per_gpu),
                total=_q(m.if_steady.total, month, digits=2),
            )
        ),
        api=_mix_api(m.api_share()),
    )


def _mix_api(share: dict | None) -> MixApiOutput | None:
    if share is None:
        return None
    return MixApiOutput(
        token_share=_q(share["token_share"], "-"),
        cost_share=_q(share["cost_share"], "-"),
        replicas={str(k): int(v) for k, v in share["replicas"].items()},
        above_tokens_per_day=_q(share["api_above_tokens_per_day"], "tokens/day", "not_applicable"),
        hybrid=bool(share["hybrid"]),
    )


# --- the decision ----------------------------------------------------------------------------------------


class CandidateOutput(OutputModel):
    """One way to pay for the work on the decision measure."""

    id: str
    option: str | None
    label: str
    figure: Quantity
    more_than_winner: Quantity = Field(
        description="The candidate's figure minus the winner's: what choosing it "
        "instead costs (0 for the winner). [the measure's unit]"
    )
    ratio_to_winner: Quantity = Field(
        description="The candidate's figure / the winner's (not_defined when the winner's is 0). [-]"
    )
    share_saved_by_winner: Quantity = Field(
        description="1 - the winner's figure / the candidate's: the share of the candidate's cost the winner saves. [-]"
    )


class DecisionOutput(OutputModel):
    """The one answer: every candidate on the scenario's measure, cheapest first.

    ``measure`` is ``present_value`` (a finance block), ``run_cost`` (a training workload),
    ``monthly_cost_hour_by_hour`` (a demand profile), ``cost_per_successful_task`` (the scenario's
    ``decision_measure``: the cost of 1,000 successful tasks) or ``monthly_cost``; ``description`` states
    it in words; ``candidates`` are ranked, the first being ``winner``.
    """

    measure: Literal[
        "present_value", "run_cost", "monthly_cost_hour_by_hour", "monthly_cost", "cost_per_successful_task"
    ]
    description: str
    unit: str
    winner: str
    winner_label: str
    runner_up: str | None
    margin: Quantity
    margin_share: Quantity
    candidates: list[CandidateOutput]


def _decision(d) -> DecisionOutput:
    return DecisionOutput(
        measure=d.measure,
        description=d.description,
        unit=d.unit,
        winner=d.winner,
        winner_label=d.winning.label,
        runner_up=d.runner_up,
        margin=_q(d.margin, d.unit, "not_applicable", digits=2),
        margin_share=_q(d.margin_share, "-", "not_applicable"),
        candidates=[_candidate(c, d) for c in d.candidates.values()],
    )


def _candidate(c, d) -> CandidateOutput:
    best = d.candidates[d.winner].figure
    return CandidateOutput(
        id=c.id,
        option=c.option,
        label=c.label,
        figure=_q(c.figure, d.unit, digits=2),
        more_than_winner=_q(c.figure - best, d.unit, digits=2),
        ratio_to_winner=_q(c.figure / best if best != 0 else None, "-"),
        share_saved_by_winner=_q(1.0 - best / c.figure if c.figure != 0 else None, "-"),
    )


# --- routing ---------------------------------------------------------------------------------------------


class RoutedClassOutput(OutputModel):
    """One routing class on its option: ``monthly_cost`` is its share of the option's cost (the option costed once
    on every class it serves, split by tokens); ``success_rate`` its own, else its option's."""

    name: str
    option: str
    label: str
    share_of_requests: Quantity
    requests_per_day: Quantity
    tokens_per_day: Quantity
    monthly_cost: Quantity
    cost_per_million_tokens: Quantity
    gpus: Count
    success_rate: Quantity
    success_rate_source: str | None


class RoutingOutput(OutputModel):
    """The routed blend (the classes' costs summed) against ``baseline`` serving every request; ``saving`` is the
    baseline's monthly cost less the blend's (negative: routing costs more)."""

    classes: list[RoutedClassOutput]
    requests_per_day: Quantity
    tokens_per_day: Quantity
    monthly_cost: Quantity
    cost_per_million_tokens: Quantity
    baseline: str
    baseline_label: str
    baseline_monthly_cost: Quantity
    saving: Quantity
    saving_share: Quantity
    cost_per_successful_task: Quantity
    baseline_cost_per_successful_task: Quantity


def _routing(routed: RoutingResult, cur: str) -> RoutingOutput:
    month, per_million = f"{cur}/month", f"{cur}/M tokens"
    return RoutingOutput(
        classes=[
            RoutedClassOutput(
                name=k.name,
                option=k.option,
                label=k.label,
                share_of_requests=_q(k.share_of_requests, "-"),
                requests_per_day=_q(k.requests_per_day, "requests/day", digits=6),
                tokens_per_day=_q(k.tokens_per_day, "tokens/day", digits=6),
                monthly_cost=_q(k.monthly_cost, month, digits=6),
                cost_per_million_tokens=_q(k.cost_per_million_tokens, per_million, digits=6),
                gpus=_n(k.gpus, "GPU", "not_applicable"),
                success_rate=_q(k.success_rate, "-"),
                success_rate_source=k.success_rate_source,
            )
            for k in routed.classes
        ],
        requests_per_day=_q(routed.requests_per_day, "requests/day", digits=6),
        tokens_per_day=_q(routed.tokens_per_day, "tokens/day", digits=6),
        monthly_cost=_q(routed.monthly_cost, month, digits=6),
        cost_per_million_tokens=_q(routed.cost_per_million_tokens, per_million, digits=6),
        baseline=routed.baseline,
        baseline_label=routed.baseline_label,
        baseline_monthly_cost=_q(routed.baseline_cost, month, digits=6),
        saving=_q(routed.saving, month, digits=6),
        saving_share=_q(routed.saving_share, "-"),
        cost_per_successful_task=_q(routed.cost_per_successful_task, f"{cur}/task"),
        baseline_cost_per_successful_task=_q(routed.baseline_cost_per_successful_task, f"{cur}/task"),
    )


# --- serving ---------------------------------------------------------------------------------------------


class ServingTargetOutput(OutputModel):
    """The latency target (a bound that is not set has status ``no_limit``)."""

    ttft: Quantity
    ttft_statistic: str
    tokens_per_second_per_user: Quantity
    source: str


class ServingPointOutput(OutputModel):
    """An operating point of a throughput-interactivity curve."""

    concurrency_per_replica: Quantity
    throughput_per_gpu: Quantity
    tokens_per_second_per_user: Quantity
    ttft: Quantity
    source: str
    estimated: bool
    basis: str = Field(
        description="What the point rests on: measured, estimated with aiconfigurator-core's "
        "kernel database, or estimated from first principles."
    )


class FleetOutput(OutputModel):
    """One option's serving fleet at the volume."""

    gpus: Count
    replicas: Count
    servers: Count
    spare_replicas: Count
    working_replicas: Count
    prefill_replicas: Count
    decode_replicas: Count
    prefill_gpus: Count
    decode_gpus: Count


class ServingOutput(OutputModel):
    """How a served model meets its latency target."""

    target: ServingTargetOutput | None
    mode: str
    mode_reason: str
    operating_point: ServingPointOutput | None
    decode_operating_point: ServingPointOutput | None
    throughput_per_gpu: Quantity
    throughput_source: str
    prefill_share: Quantity
    gpus_per_replica: Count
    servers_per_replica: Count
    gpus_per_server: Count
    replica_spans_servers: bool
    weights_per_gpu: Quantity
    kv_cache_per_gpu: Quantity
    gpu_memory: Quantity
    spare_replicas: Count
    availability_share: Quantity
    request_input_tokens: Count
    request_output_tokens: Count
    tokens_per_request: Count = Field(description="Input plus output tokens of one request (the request shape).")
    maximum_throughput_per_gpu: Quantity = Field(
        description="The curve's highest throughput, with no latency target (not_applicable without a curve)."
    )
    throughput_lost_to_target: Quantity = Field(
        description="1 - the operating point's throughput / the curve's highest: the share of throughput the "
        "latency target gives up. [-]"
    )
    fleets: dict[str, FleetOutput]


def _bound(value: Any, unit: str) -> Quantity:
    return _q(value if isinstance(value, int | float) and not isinstance(value, bool) else None, unit, "no_limit")


def _point(p) -> ServingPointOutput | None:
    if p is None:
        return None
    return ServingPointOutput(
        concurrency_per_replica=_q(p.concurrency, "requests"),
        throughput_per_gpu=_q(p.throughput_per_gpu, "output tokens/s/GPU"),
        tokens_per_second_per_user=_q(p.tokens_per_second_per_user, "tokens/s/user"),
        ttft=_q(p.ttft, "s"),
        source=p.source,
        estimated=p.estimated,
        basis=p.basis,
    )


def _curve_maximum(s: ServingResult) -> float | None:
    """The highest throughput of the curve the operating point lies on (the decode pool's when
    disaggregated). [output tokens/s/GPU]"""
    curve = s.decode_curve if s.mode == "disaggregated" and s.decode_curve else s.curve
    return max(row[1] for row in curve) if curve and s.point is not None else None


def _serving(s: ServingResult) -> ServingOutput:
    t = s.target
    na = "not_applicable"
    peak = _curve_maximum(s)
    return ServingOutput(
        target=None
        if t is None
        else ServingTargetOutput(
            ttft=_bound(t.get("ttft_seconds"), "s"),
            ttft_statistic=str(t.get("ttft_statistic", "")),
            tokens_per_second_per_user=_bound(t.get("tokens_per_second_per_user"), "tokens/s/user"),
            source=str(t.get("source", "")),
        ),
        mode=s.mode,
        mode_reason=s.mode_reason,
        operating_point=_point(s.point),
        decode_operating_point=_point(s.decode_point),
        throughput_per_gpu=_q(s.throughput_per_gpu, "output tokens/s/GPU"),
        throughput_source=s.throughput_source,
        prefill_share=_q(s.prefill_share, "-"),
        gpus_per_replica=_n(s.gpus_per_replica, "GPU"),
        servers_per_replica=_n(s.servers_per_replica, "servers"),
        gpus_per_server=_n(s.gpus_per_server, "GPU"),
        replica_spans_servers=s.servers_per_replica > 1,
        weights_per_gpu=_q(s.weights_gb_per_gpu, "GB"),
        kv_cache_per_gpu=_q(s.kv_cache_gb_per_gpu, "GB"),
        gpu_memory=_q(s.memory_gb_per_gpu, "GB"),
        spare_replicas=_n(s.spare_replicas, "replicas"),
        availability_share=_q(s.availability, "-"),
        request_input_tokens=_n(s.input_tokens, "tokens", na),
        request_output_tokens=_n(s.output_tokens, "tokens", na),
        tokens_per_request=_n(
            None if s.input_tokens is None or s.output_tokens is None else s.input_tokens + s.output_tokens,
            "tokens",
            na,
        ),
        maximum_throughput_per_gpu=_q(peak, "output tokens/s/GPU", na),
        throughput_lost_to_target=_q(
            None if peak is None or s.point is None else 1.0 - s.point.throughput_per_gpu / peak,
            "-",
            na,
        ),
        fleets={
            name: FleetOutput(
                gpus=_n(f.gpus, "GPU"),
                replicas=_n(f.replicas, "replicas"),
                servers=_n(f.servers, "servers"),
                spare_replicas=_n(f.spare_replicas, "replicas"),
                working_replicas=_n(f.replicas - f.spare_replicas, "replicas"),
                prefill_replicas=_n(f.prefill_replicas, "replicas", na),
                decode_replicas=_n(f.decode_replicas, "replicas", na),
                prefill_gpus=_n(
                    None if f.prefill_replicas is None else f.prefill_replicas * s.gpus_per_replica, "GPU", na
                ),
                decode_gpus=_n(
                    None if f.decode_replicas is None else f.decode_replicas * s.gpus_per_replica, "GPU", na
                ),
            )
            for name, f in s.fleets.items()
        },
    )


# --- energy ----------------------------------------------------------------------------------------------


class OptionEnergyOutput(OutputModel):
    """Energy and emissions of one option at the volume; ``basis`` says derived or estimate.

    Every total is split: ``co2e_kg_per_month`` (and per million tokens) is the location-based
    operational plus the embodied figure, each given beside it.
    """

    basis: str
    energy_kwh_per_month: Quantity
    energy_range: Series | None
    co2e_kg_per_month: Quantity
    operational_co2e: Quantity
    embodied_co2e: Quantity
    market_based_co2e: Quantity
    co2e_per_million_tokens: Quantity
    operational_co2e_per_million_tokens: Quantity
    embodied_co2e_per_million_tokens: Quantity
    energy_per_1000_output_tokens: Quantity
    output_tokens_per_joule_at_full_load: Quantity
    notes: list[str]


class PowerOutput(OutputModel):
    """The own cluster's power at the meter against the site's budget."""

    budget: Quantity
    needed: Quantity
    headroom: Quantity
    servers_powered: Count
    most_servers_within_budget: Count
    most_gpus_within_budget: Count


class TariffOutput(OutputModel):
    """The own cluster's electricity at a time-of-use tariff over the demand profile."""

    electricity_cost: Quantity
    electricity_cost_at_flat_price: Quantity
    energy: Quantity
    unserved_gpu_hours: Quantity
    source: str


class RunEnergyByOption(OutputModel):
    """A training run's energy and emissions with one option, from the option's own power model."""

    basis: str
    energy_mwh_per_run: Quantity
    operational_co2e_t_per_run: Quantity
    embodied_co2e_t_per_run: Quantity
    co2e_t_per_run: Quantity


class ModelCardEnergyOutput(OutputModel):
    """A training run's energy by the model cards' method (GPU-hours × TDP × PUE), for comparison.

    ``power_basis`` is ``tdp``, or ``measured`` when the run states its measured power per GPU
    (used instead of the TDP); ``it_load`` = the run's GPUs × power per GPU, ``facility_power``
    = IT load × PUE, ``provisioned_facility_power`` = facility power × (N + k) / N with the
    stated N+k redundancy (else ``not_applicable``).
    """

    gpu_hours: Quantity
    power_per_gpu: Quantity
    pue: Quantity
    energy_per_run: Quantity
    operational_co2e_per_run: Quantity
    market_based_co2e_per_run: Quantity
    power_basis: Literal["tdp", "measured"] = "tdp"
    it_load: Quantity | None = None
    facility_power: Quantity | None = None
    provisioned_facility_power: Quantity | None = None


class TrainingEnergyOutput(OutputModel):
    """Energy and emissions of a training run: each option's, and the model cards' method beside them."""

    by_option: dict[str, RunEnergyByOption]
    model_card_method: ModelCardEnergyOutput
    notes: list[str]


class EnergyOutput(OutputModel):
    """Energy, emissions and power of every option."""

    options: dict[str, OptionEnergyOutput]
    power_budget: PowerOutput | None
    time_of_use_tariff: TariffOutput | None
    training_run: TrainingEnergyOutput | None
    sources: list[str]


def _per_m(o, kg: float | None) -> float | None:
    """A part of an option's emissions per million tokens, at the same tokens as its total."""
    total = o.co2e_kg_per_month
    if kg is None or o.co2e_kg_per_million_tokens is None or not total:
        return None
    return kg * o.co2e_kg_per_million_tokens / total


def _energy(e: EnergyResult, cur: str, tokens: bool) -> EnergyOutput:
    per_token = "not_defined" if tokens else "not_applicable"
    options = {}
    for name, o in e.options.items():
        options[name] = OptionEnergyOutput(
            basis=o.basis,
            energy_kwh_per_month=_q(o.energy_kwh_per_month, "kWh/month"),
            energy_range=None if o.energy_kwh_range is None else _series(o.energy_kwh_range, "kWh/month"),
            co2e_kg_per_month=_q(o.co2e_kg_per_month, "kg CO2e/month"),
            operational_co2e=_q(o.operational_co2e_kg_per_month, "kg CO2e/month"),
            embodied_co2e=_q(o.embodied_co2e_kg_per_month, "kg CO2e/month"),
            market_based_co2e=_q(o.market_co2e_kg_per_month, "kg CO2e/month"),
            co2e_per_million_tokens=_q(o.co2e_kg_per_million_tokens, "kg CO2e/M tokens", per_token),
            operational_co2e_per_million_tokens=_q(
                _per_m(o, o.operational_co2e_kg_per_month), "kg CO2e/M tokens", per_token
            ),
            embodied_co2e_per_million_tokens=_q(_per_m(o, o.embodied_co2e_kg_per_month), "kg CO2e/M tokens", per_token),
            energy_per_1000_output_tokens=_q(o.wh_per_1000_output_tokens, "Wh", per_token),
            output_tokens_per_joule_at_full_load=_q(
                o.output_tokens_per_joule,
                "tokens/J",
                "not_applicable" if o.kind == "api" or not tokens else "not_defined",
            ),
            notes=list(o.notes),
        )
    p, t, run = e.power, e.tariff, e.training
    return EnergyOutput(
        options=options,
        power_budget=None
        if p is None
        else PowerOutput(
            budget=_q(p.budget_kw, "kW"),
            needed=_q(p.needed_kw, "kW"),
            headroom=_q(p.headroom_kw, "kW"),
            servers_powered=_n(p.servers, "servers"),
            most_servers_within_budget=_n(p.max_servers, "servers"),
            most_gpus_within_budget=_n(p.max_gpus, "GPU"),
        ),
        time_of_use_tariff=None
        if t is None
        else TariffOutput(
            electricity_cost=_q(t.cost_per_month, f"{cur}/month"),
            electricity_cost_at_flat_price=_q(t.flat_cost_per_month, f"{cur}/month"),
            energy=_q(t.energy_kwh_per_month, "kWh/month"),
            unserved_gpu_hours=_q(t.unserved_gpu_hours_per_month, "GPU-h/month"),
            source=t.source,
        ),
        training_run=None
        if run is None
        else TrainingEnergyOutput(
            by_option={
                name: RunEnergyByOption(
                    basis=basis,
                    energy_mwh_per_run=_q(mwh, "MWh"),
                    operational_co2e_t_per_run=_q(op, "t CO2e"),
                    embodied_co2e_t_per_run=_q(emb, "t CO2e"),
                    co2e_t_per_run=_q(None if op is None or emb is None else op + emb, "t CO2e"),
                )
                for name, (basis, mwh, op, emb) in run.by_option.items()
            },
            model_card_method=ModelCardEnergyOutput(
                gpu_hours=_q(run.gpu_hours, "GPU-h"),
                power_per_gpu=_q(run.watts_per_gpu, "W"),
                pue=_q(run.pue, "-"),
                energy_per_run=_q(run.energy_mwh, "MWh"),
                operational_co2e_per_run=_q(run.co2e_t, "t CO2e"),
                market_based_co2e_per_run=_q(run.market_co2e_t, "t CO2e"),
                power_basis=run.power_basis,
                it_load=_q(run.it_load_kw, "kW"),
                facility_power=_q(run.facility_power_kw, "kW"),
                provisioned_facility_power=_q(run.provisioned_facility_power_kw, "kW", "not_applicable"),
            ),
            notes=list(run.notes),
        ),
        sources=list(e.sources),
    )


# --- uncertainty -----------------------------------------------------------------------------------------


class PercentilesOutput(OutputModel):
    """10th, 50th and 90th percentiles."""

    p10: Quantity
    p50: Quantity
    p90: Quantity


class TornadoBarOutput(OutputModel):
    """One input moved to its low and high value; the decision metric at each."""

    input: str
    low: Quantity
    high: Quantity
    base: Quantity
    low_metric: Quantity
    high_metric: Quantity
    base_metric: Quantity
    swing: Quantity
    break_even: Quantity


class SobolIndexOutput(OutputModel):
    """First-order and total Sobol indices of one input (shares of the metric's variance), with 95 % half-widths."""

    first_order_share: Quantity
    first_order_conf: Quantity
    total_share: Quantity
    total_conf: Quantity


class SobolOutput(OutputModel):
    """Sobol indices of the decision metric."""

    indices: dict[str, SobolIndexOutput]
    left_out: list[str]


class UncertaintyOutput(OutputModel):
    """Monte Carlo, tornado and Sobol summaries on the decision measure.

    ``measure`` is the decision's (``present_value``, ``run_cost``, ``monthly_cost_hour_by_hour``
    or ``monthly_cost``), every figure in its unit. The decision metric is the tracked option's
    figure minus the cheapest other candidate's (negative: the tracked option is the cheapest);
    savings are minus the metric. ``cost_percentiles`` and ``win_fraction`` cover every candidate.
    """

    tracked_option: str
    measure: str
    volume: Quantity
    samples: Count
    seed: int | None
    cost_percentiles: dict[str, PercentilesOutput]
    savings_percentiles: PercentilesOutput
    win_fraction: dict[str, Quantity]
    clipped_samples: dict[str, Count]
    tornado: list[TornadoBarOutput]
    sobol: SobolOutput | None


def _uncertainty(u: UncertaintyResult) -> UncertaintyOutput:
    """The uncertainty summaries of the domain's analysis, each figure in the decision measure's unit."""
    mc = u.monte_carlo
    measure_unit = mc.unit  # the decision measure's: the currency, a month of it, or per 1,000 successful tasks

    def pct(values: np.ndarray) -> PercentilesOutput:
        p = np.percentile(values, (10, 50, 90))
        return PercentilesOutput(
            p10=_q(p[0], measure_unit, digits=2),
            p50=_q(p[1], measure_unit, digits=2),
            p90=_q(p[2], measure_unit, digits=2),
        )

    bars: list[TornadoBarOutput] = []
    for b in u.tornado:
        unit = u.input_units.get(b.path, "-")
        bars.append(
            TornadoBarOutput(
                input=b.path,
                low=_q(b.low, unit),
                high=_q(b.high, unit),
                base=_q(b.base, unit),
                low_metric=_q(b.low_metric, measure_unit, digits=2),
                high_metric=_q(b.high_metric, measure_unit, digits=2),
                base_metric=_q(b.base_metric, measure_unit, digits=2),
                swing=_q(b.swing, measure_unit, digits=2),
                break_even=_q(b.break_even, unit, "never"),
            )
        )
    return UncertaintyOutput(
        tracked_option=mc.option,
        measure=mc.measure,
        volume=_q(u.volume, VOLUME_UNITS.get(u.volume_unit, u.volume_unit)),
        samples=_n(mc.samples, "samples"),
        seed=u.seed,
        cost_percentiles={o: pct(c) for o, c in mc.costs.items()},
        savings_percentiles=pct(mc.savings),
        win_fraction={o: _q(p, "-") for o, p in mc.win_probability().items()},
        clipped_samples={path: _n(n, "samples") for path, n in mc.clipped.items()},
        tornado=bars,
        sobol=None if u.sobol is None else _sobol(u.sobol),
    )


def _sobol(sobol: SobolIndices) -> SobolOutput:
    return SobolOutput(
        indices={
            name: SobolIndexOutput(
                first_order_share=_q(s1, "-"),
                first_order_conf=_q(s1c, "-"),
                total_share=_q(st, "-"),
                total_conf=_q(stc, "-"),
            )
            for name, s1, s1c, st, stc in zip(
                sobol.inputs, sobol.first_order, sobol.first_order_conf, sobol.total, sobol.total_conf, strict=True
            )
        },
        left_out=list(sobol.left_out),
    )


# --- the whole document ----------------------------------------------------------------------------------


class InputChangeOutput(OutputModel):
    """One input changed alone so that a claim would hold."""

    path: str
    title: str
    current: Quantity
    needed: Quantity


class ClaimOutput(OutputModel):
    """A figure the scenario's source document states, checked against the computed one.

    A ``cheapest`` claim (one option costs less than another at ``volume``) states no figure: ``stated`` is
    the monthly cost its option must be below (the other option's), ``computed`` its option's, ``options``
    the two (the one stated to cost less first); it takes no tolerance (``not_applicable``). A training run's
    is on the cost of the whole run (``stated`` and ``computed`` in the reporting currency, ``volume`` null).
    """

    statement: str
    source: str
    kind: str
    stated: Quantity
    computed: Quantity
    tolerance_share: Quantity
    confirmed: bool
    stated_multiple: Quantity | None
    computed_multiple: Quantity | None
    would_hold: list[InputChangeOutput]
    options: list[str] | None
    volume: Quantity | None


def _claim(c, volume_unit: str) -> ClaimOutput:
    multiple = c.stated_multiple is not None
    return ClaimOutput(
        statement=c.statement,
        source=c.source,
        kind=c.kind,
        stated=_q(c.stated, c.unit),
        computed=_q(c.computed, c.unit, "not_defined" if c.kind == "figure" else "never"),
        tolerance_share=_q(None if c.kind == "cheapest" else c.tolerance, "-", "not_applicable"),
        confirmed=c.confirmed,
        stated_multiple=_q(c.stated_multiple, "-") if multiple else None,
        computed_multiple=_q(c.computed_multiple, "-", "never") if multiple and c.kind == "break_even" else None,
        would_hold=[
            InputChangeOutput(path=w.path, title=w.title, current=_q(w.current, w.unit), needed=_q(w.needed, w.unit))
            for w in c.would_hold
        ],
        options=list(c.options) if c.options else None,
        volume=_q(c.volume, volume_unit) if c.volume is not None else None,
    )


class ComparisonOutput(OutputModel):
    """A scenario's options compared at one volume: the document ``costmodel compare --json`` prints.

    ``model_dump()`` is the JSON (``model_dump_json()`` the text); ``comparison`` the domain's
    :class:`~costmodel.results.Comparison` it was built from.
    """

    schema_version: str
    costmodel_version: str
    title: str
    currency: str
    workload_kind: str
    volume: Quantity
    gpu_hours_used: Quantity
    options: dict[str, OptionOutput]
    decision: DecisionOutput
    cheapest_by_volume: list[CheapestRangeOutput]
    break_evens: list[BreakEvenOutput]
    estimates: list[str]
    stale: list[str] = Field(
        default_factory=list,
        description="Catalog prices behind the result older than their "
        "table allows (rentals and APIs 6 months, servers 12), oldest first.",
    )
    warnings: list[str]
    training_run: TrainingOutput | None
    finance: FinanceOutput | None
    capacity_plan: PlanOutput | None
    cheapest_mix: MixOutput | None
    serving: ServingOutput | None
    energy: EnergyOutput | None
    uncertainty: UncertaintyOutput | None
    claims: list[ClaimOutput]
    routing: RoutingOutput | None = Field(
        default=None, description="With a routing block, each class on its option and the blend against the baseline."
    )

    _comparison: Comparison | None = PrivateAttr(default=None)

    def __repr__(self) -> str:
        """The verdict in one line (the whole document is ``model_dump()``)."""
        d = self.decision
        margin = "" if d.margin.value is None else f", {d.margin.value:,.2f} {d.unit} less than {d.runner_up}"
        return (
            f"<ComparisonOutput {self.title!r}: {d.winner} cheapest on {d.measure}{margin}; "
            f"{len(d.candidates)} candidates, {len(self.claims)} claims>"
        )

    def _repr_html_(self) -> str:
        """The verdict and the candidates ranked, for a notebook cell."""
        from html import escape

        d = self.decision
        rows = "".join(
            f"<tr><td>{i}</td><td>{escape(c.label)}</td><td style='text-align:right'>"
            f"{'' if c.figure.value is None else f'{c.figure.value:,.2f}'}</td><td style='text-align:right'>"
            f"{'' if c.more_than_winner.value in (None, 0) else f'+{c.more_than_winner.value:,.2f}'}</td></tr>"
            for i, c in enumerate(d.candidates, 1)
        )
        return (
            f"<p><b>{escape(self.title)}</b><br>Verdict: <b>{escape(d.winner_label)}</b>, on "
            f"{escape(d.description)}.</p><table><tr><th>rank</th><th>way to pay</th>"
            f"<th>{escape(d.unit)}</th><th>more than the winner</th></tr>{rows}</table>"
        )

    @property
    def comparison(self) -> Comparison | None:
        """The domain result this document was built from (None when read back from JSON)."""
        return self._comparison


def _option(o: OptionResult, cur: str, tokens: bool, vunit: str) -> OptionOutput:
    """One option at the volume, in the output's units (``cur`` the currency, ``vunit`` the volume's)."""
    month = f"{cur}/month"
    api = o.kind == "api"
    return OptionOutput(
        label=o.label,
        kind=o.kind,
        monthly_cost=_q(o.monthly_cost, month),
        components={key(k): _q(v, month) for k, v in o.components.items()},
        cost_per_gpu_hour_used=_q(o.cost_per_gpu_hour, f"{cur}/GPU-h", "not_applicable" if api else "not_defined"),
        cost_per_million_tokens=_q(
            o.cost_per_million_tokens, f"{cur}/M tokens", "not_defined" if tokens else "not_applicable"
        ),
        cost_per_million_output_tokens=_q(
            o.cost_per_million_output_tokens,
            f"{cur}/M output tokens",
            "not_defined" if tokens else "not_applicable",
        ),
        configured_gpus=_n(o.configured_gpus, "GPU", "not_applicable"),
        gpus=_n(o.gpus, "GPU", "not_applicable"),
        utilisation_share=_q(o.utilisation, "-", "not_applicable" if api else "not_defined"),
        gpu_count_stepped_up=o.stepped_up,
        capacity_volume=_q(o.capacity_volume, vunit, "no_limit"),
        cost_per_request=_q(o.cost_per_request, f"{cur}/request", "not_defined" if tokens else "not_applicable"),
        cost_per_1000_requests=_q(
            None if o.cost_per_request is None else 1000 * o.cost_per_request,
            f"{cur}/1000 requests",
            "not_defined" if tokens else "not_applicable",
        ),
        provider=None
        if o.provider is None
        else ProviderOutput(
            **{
                f: _q(getattr(o.provider, f), month, digits=2)
                for f in ("revenue", "opex", "depreciation", "ebit", "noi")
            }
        ),
    )


def comparison_output(
    comparison: Comparison,
    resolved: Scenario | Resolved | None = None,
    *,
    uncertainty: bool = True,
    figure_claims: bool = True,
) -> ComparisonOutput:
    """The output document of a comparison.

    Parameters
    ----------
    comparison
        The domain's result (:func:`costmodel.compare`).
    resolved
        The scenario compared; needed for the cash flows by year and the ``figure`` claims
        (without it the cash flows by year are null and those claims unchecked).
    uncertainty
        Include the comparison's uncertainty analysis
        (:attr:`~costmodel.results.Comparison.uncertainty`: Monte Carlo, tornado and Sobol,
        run here if not yet read) when the scenario has an ``uncertainty`` block; False
        leaves the section null. Without SALib (the ``sobol`` extra) ``uncertainty.sobol``
        is null and ``warnings`` says which extra computes it.
    figure_claims
        Check the scenario's ``figure`` claims on this document
        (:func:`~costmodel.presentation.figure_claims.with_figure_claims`) when the
        comparison checked its other claims.
    """
    from .. import __version__

    r = as_resolved(resolved) if resolved is not None else None
    if figure_claims and r is not None:
        comparison = with_figure_claims(comparison, r)
    c = comparison
    cur = c.currency
    tokens = c.workload_kind == "tokens"
    vunit = VOLUME_UNITS.get(c.volume_unit, c.volume_unit)
    options = {name: _option(o, cur, tokens, vunit) for name, o in c.options.items()}
    analysis = c.uncertainty if uncertainty else None
    doc = ComparisonOutput(
        schema_version=SCHEMA_VERSION,
        costmodel_version=__version__,
        title=c.title,
        currency=cur,
        workload_kind=c.workload_kind,
        volume=_q(c.volume, vunit, digits=None),
        gpu_hours_used=_q(
            None if r is not None and not r.workload.sized_in_gpus else c.gpu_hours_used,
            "GPU-h/month",
            "not_applicable",
        ),
        options=options,
        decision=_decision(c.decision),
        cheapest_by_volume=[
            CheapestRangeOutput(volume_from=_q(x.volume_from, vunit), volume_to=_q(x.volume_to, vunit), option=x.option)
            for x in c.cheapest_ranges
        ],
        break_evens=[
            BreakEvenOutput(
                options=[b.option_a, b.option_b],
                volume=_q(b.volume, vunit, "never"),
                kind=b.kind,
                cheaper_below=b.cheaper_below,
                cheaper_above=b.cheaper_above,
                all_volumes=_series(b.volumes, vunit),
                all_kinds=list(b.kinds),
                searched_from=_q(b.volume_min, vunit, digits=None),
                searched_to=_q(b.volume_max, vunit, digits=None),
            )
            for b in c.break_evens
        ],
        estimates=list(c.estimates),
        stale=list(c.stale),
        warnings=list(c.warnings) + ([] if analysis is None else list(analysis.notes)),
        training_run=None if c.training is None else _training(c.training, cur),
        finance=None if c.finance is None else _finance(c.finance, cur, r),
        capacity_plan=None if c.plan is None else _plan(c.plan, cur),
        cheapest_mix=None if c.mix is None else _mix(c.mix, cur),
        serving=None if c.serving is None else _serving(c.serving),
        energy=None if c.energy is None else _energy(c.energy, cur, tokens),
        claims=[_claim(claim, vunit) for claim in c.claims],
        uncertainty=None if analysis is None else _uncertainty(analysis),
        routing=None if c.routing is None else _routing(c.routing, cur),
    )
    doc._comparison = c
    return doc


def _claims_document(r: Resolved) -> dict:
    """The output document a ``figure`` claim reads, with the claims unchecked."""
    return comparison_output(compare(r, check=False), r, uncertainty=False, figure_claims=False).model_dump(mode="json")


def check_figure_paths(resolved: Scenario | Resolved) -> None:
    """Read the scenario's ``figure`` claims on its output (paths, units, baselines), as ``costmodel validate``
    does (:func:`costmodel.presentation.figure_claims.check_figure_paths`).

    Raises
    ------
    ScenarioError
        A claim names no figure, a unit of another kind, or a baseline that cannot be read.
    """
    from .figure_claims import check_figure_paths as checked

    r = as_resolved(resolved)
    if any(claim.kind == "figure" for claim in r.scenario.claims):
        checked(r, _claims_document)


def with_figure_claims(comparison: Comparison, resolved: Scenario | Resolved) -> Comparison:
    """The comparison with the scenario's ``figure`` claims checked on this output contract
    (:func:`costmodel.presentation.figure_claims.with_figure_claims`), every claim in order."""
    from .figure_claims import with_figure_claims as checked

    return checked(comparison, as_resolved(resolved), _claims_document)


def output_json_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`ComparisonOutput` (what ``costmodel schema --output`` prints)."""
    schema = ComparisonOutput.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$comment"] = f"costmodel output contract, schema_version {SCHEMA_VERSION}"
    major = SCHEMA_VERSION.split(".")[0]
    schema["properties"]["schema_version"]["pattern"] = rf"^{major}\.[0-9]+\.[0-9]+$"
    return schema

"""Typed results: what the domain computes, as frozen dataclasses with units in their docstrings.

Results never overwrite inputs. JSON is made only at the edge, by the output contract
(:func:`costmodel.presentation.output.comparison_output`), where a number that does not exist
is ``null`` with a status saying why, never NaN or infinity. Cost-component and cash-flow line
names are the constants of :class:`Component` and :class:`CashLine`, used everywhere, so
renaming one cannot silently double-count a cost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, Literal

import numpy as np

from .formulas.shapes import Values


class Component(StrEnum):
    """Names of the monthly cost components of the options."""

    CAPEX_DEPRECIATION = "capex depreciation"
    CAPITAL_RECOVERY = "capital recovery"
    HARDWARE_SUPPORT = "hardware support"
    COLOCATION = "colocation"
    FACILITY_DEPRECIATION = "facility depreciation"
    FACILITY_CAPITAL_RECOVERY = "facility capital recovery"
    ELECTRICITY = "electricity"
    STAFFING = "staffing"
    MANAGED_SERVICE = "managed service"
    SOFTWARE_LICENCES = "software licences"
    GPU_RENTAL = "GPU rental"
    STORAGE = "storage"
    EGRESS = "egress"
    CPU_NODES = "CPU nodes"
    SUPPORT_PLAN = "support plan"
    INPUT_TOKENS = "input tokens"
    CACHED_INPUT_TOKENS = "cached input tokens"
    OUTPUT_TOKENS = "output tokens"
    CACHE_WRITE_TOKENS = "cache write tokens"
    REASONING_TOKENS = "reasoning tokens"
    AUDIO_INPUT_TOKENS = "audio input tokens"
    IMAGE_INPUT_TOKENS = "image input tokens"
    AUDIO_OUTPUT_TOKENS = "audio output tokens"
    REQUEST_FEES = "request and search fees"
    CITATION_TOKENS = "citation tokens"


DATA_AND_SUPPORT = (Component.STORAGE, Component.EGRESS, Component.CPU_NODES, Component.SUPPORT_PLAN)
"""The kinds of line ``data_and_support`` gives every GPU option: a rent option's components of these
names; the own option's storage and CPU nodes bought (capex), transit (``egress``) and hardware support."""

DEPRECIATION = (
    Component.CAPEX_DEPRECIATION,
    Component.FACILITY_DEPRECIATION,
    Component.CAPITAL_RECOVERY,
    Component.FACILITY_CAPITAL_RECOVERY,
)
"""The accrual view's capex components (straight-line depreciation, or capital recovery at a cost of
capital), which the cash view replaces by the purchases themselves."""

START_LINES = (
    "hardware capex",
    "facility capex",
    "hardware refresh",
    "lease payments",
    "lease buy-out",
    "reserved commitment, up front",
)
"""Cash lines paid at the start of their month (investment, payments in advance); every other line at its end.

The timing of the fractional payback and of the ``capital_begin`` present value."""


class CashLine(StrEnum):
    """Names of the cash-flow lines of the own option besides its running-cost components."""

    HARDWARE_CAPEX = "hardware capex"
    LOAN_PAYMENTS = "loan payments"
    FACILITY_CAPEX = "facility capex"
    RESALE = "resale"
    FACILITY_RESIDUAL = "facility residual value"
    STAND_IN = "stand-in during lead time"
    LEASE_PAYMENTS = "lease payments"
    LEASE_BUYOUT = "lease buy-out"
    RESERVED = "reserved commitment"
    RESERVED_UPFRONT = "reserved commitment, up front"
    SPOT = "spot rental"
    TAX_ON_EXPENSES = "tax saved on expenses"
    TAX_ON_DEPRECIATION = "tax saved on depreciation"
    TAX_ON_INTEREST = "tax saved on loan interest"
    TAX_ON_RESALE = "tax on resale"
    REFRESH = "hardware refresh"
    REFRESH_RESALE = "resale at refresh"


class Layer(StrEnum):
    """Kinds of capacity in the cheapest mix."""

    OWN = "own"
    RESERVED = "reserved"
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    API = "api"
    ALWAYS_ON = "always_on"


LAYER_LABELS: dict[str, str] = {
    "own": "Owned",
    "reserved": "Reserved",
    "on_demand": "On-demand",
    "spot": "Spot",
    "api": "Hosted API",
    "always_on": "Rented 24/7",
}
"""Display names of the kinds of capacity."""


def _number(x: Any) -> float | None:
    return None if x is None else round(float(x), 6)


def _shown(x: Any, digits: int = 2) -> str:
    """A figure for a repr: grouped digits, or "not defined" for None, NaN, infinity or an array of samples."""
    try:
        value = float(x)
    except (TypeError, ValueError):
        return "not defined"
    return f"{value:,.{digits}f}" if np.isfinite(value) else "not defined"


def _table(header: list[str], rows: list[list[str]]) -> str:
    """An HTML table of text cells (escaped), numbers right-aligned."""
    from html import escape

    def cell(tag: str, text: str) -> str:
        right = " style='text-align:right'" if text[:1].isdigit() or text[:1] in "+-" and text[1:2].isdigit() else ""
        return f"<{tag}{right}>{escape(text)}</{tag}>"

    head = "".join(cell("th", h) for h in header)
    body = "".join("<tr>" + "".join(cell("td", c) for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


# --- the monthly comparison ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BreakEven:
    """Where the cheaper of two options changes, within a searched volume range.

    Attributes
    ----------
    option_a, option_b
        The pair compared.
    volume
        First volume in the range at which the cheaper option changes, or ``None`` if
        it never does in the range. [workload volume unit]
    kind
        ``crossing``: the costs are equal there; ``step``: the cost of one option jumps
        past the other's as its GPU count steps up (the costs are not equal there);
        ``never``: no change within the range.
    cheaper_below, cheaper_above
        The cheaper option just below and just above ``volume``. When ``kind`` is
        ``never``, ``cheaper_below`` is the cheaper one over the whole range and
        ``cheaper_above`` is ``None``; either is ``None`` where the two cost the same.
    volume_min, volume_max
        The range searched. [workload volume unit]
    volumes, kinds
        Every change in the range, in order (costs with steps can cross several times).
    """

    option_a: str
    option_b: str
    volume: float | None
    kind: Literal["crossing", "step", "never"]
    cheaper_below: str | None
    cheaper_above: str | None
    volume_min: float
    volume_max: float
    volumes: tuple[float, ...] = field(default=())
    kinds: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class CheapestRange:
    """A range of volumes over which one option is the cheapest. [workload volume unit]"""

    volume_from: float
    volume_to: float
    option: str


@dataclass(frozen=True)
class OptionResult:
    """One option at one volume.

    Attributes
    ----------
    monthly_cost
        [reporting currency/month]
    components
        Component → monthly cost. [reporting currency/month]
    cost_per_gpu_hour
        Monthly cost / GPU-hours used; ``None`` when no GPU-hour is used, and for the
        hosted API (its GPUs are not the buyer's). [reporting currency/GPU-h]
    cost_per_million_tokens
        Monthly cost / millions of tokens; ``None`` for a GPU-hours workload or at zero
        volume. [reporting currency/M tokens]
    configured_gpus, gpus
        GPUs the scenario gives the option (``None`` where it gives none: the API, and
        rental billed per GPU-hour used), and GPUs it runs at this volume. [GPU]
    utilisation
        Achieved: GPU-hours used / (GPUs × 730 h); ``None`` for the API or with no GPU. [-]
    stepped_up
        True when the volume needs more GPUs than the scenario gives.
    capacity_volume
        Largest volume the configured GPUs serve; ``None`` where there is no fixed count.
        [workload volume unit]
    cost_per_million_output_tokens
        Monthly cost / millions of output tokens (the unit providers and blogs quote); ``None``
        as ``cost_per_million_tokens``. [reporting currency/M output tokens]
    """

    option: str
    label: str
    kind: str
    monthly_cost: float
    components: dict[str, float]
    cost_per_gpu_hour: float | None
    cost_per_million_tokens: float | None
    configured_gpus: int | None
    gpus: int | None
    utilisation: float | None
    stepped_up: bool
    capacity_volume: float | None
    cost_per_million_output_tokens: float | None = None
    cost_per_request: float | None = None
    """Monthly cost / requests a month, from the request size (input_tokens_per_request and the mix);
    None without one. [reporting currency/request]"""
    provider: ProviderIncome | None = None
    """The own option's income view (``options.own.provider``); None otherwise."""
    data_and_support: dict[str, float] = field(default_factory=dict)
    """With ``data_and_support``: what the option pays a month for each of its kinds of line (storage,
    egress, CPU nodes, support plan), a part of its monthly cost; empty otherwise and for an API
    option (:func:`costmodel.domain.costs.data_and_support_lines`). [reporting currency/month]"""


@dataclass(frozen=True)
class ProviderIncome:
    """The own cluster as a GPU cloud's income statement for a month. [reporting currency/month]

    Attributes
    ----------
    revenue
        Working GPUs × 730 h × utilisation sold × price per GPU-hour sold.
    opex
        Running costs: the monthly cost less its capital lines.
    depreciation
        Straight-line depreciation (each line over its life, land never; the facility's).
    ebit, noi
        Revenue − opex − depreciation; revenue − opex.

    Each a float for one volume, an array (or Series) for an array of volumes.
    """

    revenue: Values
    opex: Values
    depreciation: Values
    ebit: Values
    noi: Values


@dataclass(frozen=True)
class MemoryPerGPU:
    """Memory one GPU needs under a parallelism plan (Rajbhandari et al. 2020; Korthikanti et al. 2022).

    Attributes
    ----------
    zero_stage
        ZeRO stage in force (3 for FSDP).
    state_bytes
        Weights, gradients and optimizer state on the GPU. [B]
    activation_bytes
        Activations on the busiest GPU. [B]
    gpu_memory_bytes
        The GPU's memory. [B]
    usable_share
        Share of it the run may use. [-]
    """

    zero_stage: int
    state_bytes: float
    activation_bytes: float
    gpu_memory_bytes: float
    usable_share: float

    @property
    def total_bytes(self) -> float:
        """State plus activations. [B]"""
        return self.state_bytes + self.activation_bytes

    @property
    def usable_bytes(self) -> float:
        """Memory the run may use. [B]"""
        return self.gpu_memory_bytes * self.usable_share

    @property
    def fits(self) -> bool:
        """Whether state and activations fit in the usable memory."""
        return self.total_bytes <= self.usable_bytes


@dataclass(frozen=True)
class StageResult:
    """One stage of a training run worked out (as DeepSeek-V3's Table 1 lists them).

    Attributes
    ----------
    name, basis
        The stage and the field it was stated by.
    gpus
        GPUs it ran on. [GPU]
    training_tokens
        D, if given. [tokens]
    flop
        6·N·D, if the tokens are given. [FLOP]
    mfu
        The MFU stated or converted; for a stage stated by GPU-hours or wall clock, backed
        out of them (time lost to failures included); None without tokens. [-]
    gpu_hours
        GPU-hours to pay for. [GPU-h]
    wall_clock_days
        gpu_hours / gpus / 24. [d]
    costs
        Option → the stage's cost (its share of the run's GPU-hours). [reporting currency]
    """

    name: str
    basis: str
    gpus: int
    training_tokens: float | None
    flop: float | None
    mfu: float | None
    gpu_hours: float
    wall_clock_days: float
    costs: dict[str, float]


@dataclass(frozen=True)
class TrainingRun:
    """A training run worked out: compute, time, losses and the cost of each option.

    Attributes
    ----------
    flop
        6·N·D; None when the run is stated without training tokens. [FLOP]
    peak_tflops
        Dense peak per GPU at the run's precision. [TFLOP/s]
    ideal_gpu_hours
        FLOP / (peak × MFU) / 3,600, with no failure. [GPU-h]
    goodput
        Share of wall-clock time that trains (1 with no failure model). [-]
    gpu_hours
        ideal_gpu_hours / goodput: the GPU-hours to pay for. [GPU-h]
    wall_clock_days
        gpu_hours / cluster GPUs / 24. [d]
    months
        Wall-clock time in the model's 730-hour months. [month]
    job_mtbf_hours, checkpoint_interval_hours
        Job mean time between failures and the checkpoint interval used (None without
        a failure model). [h]
    min_gpus_sharded, min_gpus_unsharded
        Fewest GPUs that hold the training state with ZeRO-3-style sharding, and
        without (None: does not fit on one GPU). [GPU]
    costs
        Cost of the run for each option, by component. [reporting currency]
    stages
        The run by stage (one stage, "run", when the run is stated whole).
    mfu
        MFU over the run: stated or converted, or backed out of stated GPU-hours or wall
        clock (time lost included); None without training tokens. [-]
    checkpoint_intervals
        The optimum interval by each formula (young, daly, young_restart). [h]
    checkpoint_interval_steps
        The interval used in training steps, when the step time is given. [steps]
    gpu_hours_lost_per_failure
        n × (R + (τ + δ)/2). [GPU-h]
    failures_by_cause
        Cause → (failures per GPU per year, job MTBF [h]) from an observed count, or component →
        the same for failures stated by component.
    memory
        Memory per GPU under the stated parallelism plan.
    warnings
        Plausibility warnings (not errors): MFU, goodput at scale.
    failures_by_component
        Component (gpu, host, network) → (count in the run, failures per component per year,
        the cluster's failures per year from it) for failures stated by component. ([-],
        [1/year], [1/year])
    """

    flop: float | None
    peak_tflops: float
    ideal_gpu_hours: float
    goodput: float
    gpu_hours: float
    wall_clock_days: float
    months: float
    job_mtbf_hours: float | None
    checkpoint_interval_hours: float | None
    min_gpus_sharded: int | None
    min_gpus_unsharded: int | None
    costs: dict[str, dict[str, float]]
    stages: tuple[StageResult, ...] = ()
    mfu: float | None = None
    checkpoint_intervals: dict[str, float] | None = None
    checkpoint_interval_steps: int | None = None
    gpu_hours_lost_per_failure: float | None = None
    failures_by_cause: dict[str, tuple[float, float]] | None = None
    memory: MemoryPerGPU | None = None
    warnings: tuple[str, ...] = ()
    failures_by_component: dict[str, tuple[int, float, float]] | None = None

    def total(self, option: str) -> float:
        """Cost of the run with one option. [reporting currency]"""
        return float(sum(self.costs[option].values()))

    @property
    def cheapest(self) -> str:
        """The option with the cheapest run."""
        return min(self.costs, key=self.total)


# --- the horizon -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CashFlows:
    """Monthly cash flows of each option over the horizon.

    Attributes
    ----------
    months
        0 … H−1. [month]
    volume
        The workload's volume each month (trend applied). [workload volume unit]
    gpu_hours
        GPU-hours used each month. [GPU-h]
    servers
        Working servers of the own cluster each month (0 before it is online). [servers]
    flows
        Option → line → cash out each month; costs positive, credits negative. [reporting currency]
    online_month
        First month the own cluster serves the work.
    hardware_purchases, facility_purchases
        Price of the own hardware (first purchases, growth and refresh) and facility bought
        each month, before any financing; None without an own option. [reporting currency]
    """

    months: np.ndarray
    volume: np.ndarray
    gpu_hours: np.ndarray
    servers: np.ndarray
    flows: dict[str, dict[str, np.ndarray]]
    online_month: int
    hardware_purchases: np.ndarray | None = None
    facility_purchases: np.ndarray | None = None
    rent_on_demand: dict[str, np.ndarray] | None = None
    """The rent option's lines all on demand (before any commitment), for its other ways to pay."""

    def total(self, option: str) -> np.ndarray:
        """Cash out of one option each month (leading axes: samples). [reporting currency]"""
        return sum(np.asarray(v, dtype=float) for v in self.flows[option].values()) + np.zeros(len(self.months))

    def cumulative(self, option: str) -> np.ndarray:
        """Cumulative cash out of one option. [reporting currency]"""
        return np.cumsum(self.total(option), axis=-1)

    def at_start(self, option: str) -> np.ndarray:
        """The part of each month's cash out paid at its start (:data:`START_LINES`). [reporting currency]"""
        lines = self.flows[option]
        return sum(
            (np.asarray(lines[name], dtype=float) for name in START_LINES if name in lines),
            np.zeros_like(self.total(option)),
        )


@dataclass(frozen=True)
class UtilisationBreakEven:
    """The utilisation at which owning costs a rental offer's price per used GPU-hour.

    Attributes
    ----------
    offer, label
        The rental offer's id and a label for it.
    price_per_gpu_hour
        Its on-demand price. [reporting currency/GPU-h]
    utilisation
        u*, or None: never (not even at 100 %). [-]
    """

    offer: str
    label: str
    price_per_gpu_hour: float
    utilisation: float | None


@dataclass(frozen=True)
class OwnFinance:
    """Decision figures of the own cluster over the horizon, each with its unit.

    Attributes
    ----------
    horizon_months
        [months]
    discount_rate_per_year
        [1/year]
    tco_by_option
        Sum of all cash out less resale over the horizon, per option. [reporting currency]
    npv_by_option
        Present value of those cash flows at the discount rate, per option. [reporting currency]
    cost_per_used_gpu_hour
        Own cash cost while online / GPU-hours used while online; None when no GPU-hour
        is used. [reporting currency/GPU-h]
    utilisation
        Achieved: GPU-hours used / GPU-hours the working servers offer while online. [-]
    break_even_utilisation
        For each rental price of the same GPU. [-]
    payback_month
        Whole months until owning stays cheaper than the compared option for good: the
        fractional payback rounded up; None: never within the horizon. [months]
    payback_against
        The option compared (rent, else api).
    npv_period, npv_timing
        The convention of ``npv_by_option`` (:func:`costmodel.formulas.npv_with_convention`):
        month/begin is numpy-financial's ``npv`` on monthly flows, year/end is Excel's ``NPV``
        on yearly totals. Either way it is the present value of *costs* (lower is better).
    irr_per_year, mirr_per_year
        Internal and modified internal rate of return of owning instead of the compared
        option: numpy-financial ``irr``/``mirr`` on the monthly gains (compared option's cash
        out minus own's), made yearly as (1 + m)^12 − 1; None: not defined (the gains do not
        change sign). [1/year]
    roi
        Net gain over the horizon (compared option's TCO − own's) / investment. [-]
    investment
        Own cash paid for hardware and facility (purchases, refresh, loan payments). [reporting currency]
    tax_rate, after_tax_tco_by_option, after_tax_npv_by_option, after_tax_irr_per_year
        With a tax block: the rate, and TCO, present value and IRR after tax
        (:func:`costmodel.domain.tax.after_tax`); None without one.
    real_discount_rate_per_year
        With general inflation: the real discount rate, (1 + nominal) / (1 + inflation) − 1
        (Fisher); the cash flows are nominal and discounted at the nominal rate. [1/year]
    yearly_by_option
        Cash out of each option in each year of the horizon (months 0–11 are year 1). [reporting currency]
    payback_months, discounted_payback_months
        Months until the cumulative gains (discounted at the monthly rate for the second)
        turn non-negative for good, interpolated within the month, with the investment at the
        start of its month and every other flow at the end (:func:`costmodel.formulas.payback`);
        None: never within the horizon. [months]
    """

    horizon_months: int
    discount_rate_per_year: float
    tco_by_option: dict[str, float]
    npv_by_option: dict[str, float]
    cost_per_used_gpu_hour: float | None
    utilisation: float | None
    break_even_utilisation: tuple[UtilisationBreakEven, ...]
    payback_month: int | None
    payback_against: str | None
    npv_period: str = "month"
    npv_timing: str = "begin"
    irr_per_year: float | None = None
    mirr_per_year: float | None = None
    roi: float | None = None
    investment: float | None = None
    payback_months: float | None = None
    discounted_payback_months: float | None = None
    yearly_by_option: dict[str, tuple[float, ...]] | None = None
    tax_rate: float | None = None
    after_tax_tco_by_option: dict[str, float] | None = None
    after_tax_npv_by_option: dict[str, float] | None = None
    after_tax_irr_per_year: float | None = None
    real_discount_rate_per_year: float | None = None

    @property
    def tco(self) -> float:
        """The own option's TCO. [reporting currency]"""
        return self.tco_by_option["own"]

    @property
    def npv(self) -> float:
        """The own option's present value of costs. [reporting currency]"""
        return self.npv_by_option["own"]

    @property
    def lowest_present_value(self) -> str:
        """The option with the lowest present value of costs over the horizon."""
        return min(self.npv_by_option, key=lambda option: self.npv_by_option[option])


@dataclass(frozen=True)
class PlanYear:
    """One year of a capacity plan.

    Attributes
    ----------
    year
        1, 2, …
    gpu_hours_per_month
        Demand that year. [GPU-h/month]
    own_servers
        Owned servers working that year. [servers]
    layers
        Kind of capacity → GPUs in it (the year's cheapest mix). [GPU]
    rented_per_month
        Monthly cost of everything but the owned servers (rented kinds, API, rental staffing).
        [reporting currency/month]
    own_gpu_hours_per_month
        GPU-hours a month the owned servers serve. [GPU-h/month]
    """

    year: int
    gpu_hours_per_month: float
    own_servers: int
    layers: dict[str, int]
    rented_per_month: float
    own_gpu_hours_per_month: float


@dataclass(frozen=True)
class GrowthPlan:
    """A multi-year capacity plan: when to buy servers and what to rent meanwhile, with its cash flows.

    Attributes
    ----------
    years
        The plan year by year.
    purchases
        (month ordered and paid, servers bought, price paid) for each purchase. [month], [servers], [currency]
    flows
        Line → cash out each month of the horizon; costs positive, resale negative. [reporting currency]
    tco, npv
        Sum and present value (the finance block's convention) of the flows. [reporting currency]
    """

    years: tuple[PlanYear, ...]
    purchases: tuple[tuple[int, int, float], ...]
    flows: dict[str, np.ndarray]
    tco: float
    npv: float

    def total(self) -> np.ndarray:
        """Cash out each month. [reporting currency]"""
        return np.sum(np.stack(list(self.flows.values())), axis=0)


# --- the cheapest mix ----------------------------------------------------------------------------------

HELD_LAYERS = (Layer.OWN, Layer.RESERVED, Layer.ALWAYS_ON)
"""Kinds of capacity held whether busy or not, in whole units (servers, replicas)."""

RENTED_LAYERS = (Layer.RESERVED, Layer.ALWAYS_ON, Layer.ON_DEMAND, Layer.SPOT)
"""Kinds of capacity rented from the rent option's provider."""


@dataclass(frozen=True)
class MixLayer:
    """One kind of capacity in a mix, as it is bought.

    Attributes
    ----------
    kind
        A :class:`Layer`.
    offer
        What is bought, named ("DGX H100 server (8 × H100-SXM-80GB)", "Claude Opus 4.5 (Anthropic)").
    units, unit
        Whole units held: servers (own), GPUs in whole replicas (reserved, rented 24/7); 0 and
        ``""`` for kinds paid by use (on-demand, spot: GPU-hours; the API: tokens).
    gpus
        GPUs held (own: working servers × GPUs per server, hot spares not counted); for on-demand
        and spot the GPUs rented in the busiest hour; 0 for the API. [GPU]
    capacity
        Demand the held units serve at the utilisation ceiling, spares excluded; None for kinds
        paid by use. [GPU busy]
    busy_gpu_hours
        GPU-hours of demand served a month. [GPU-h/month]
    work_share
        Share of all busy GPU-hours (for a tokens workload: of all tokens) served. [-]
    cost
        Monthly cost of the layer (rental staffing apart). [reporting currency/month]
    utilisation
        Busy GPU-hours / GPU-hours held (held kinds); None for kinds paid by use. [-]
    """

    kind: str
    offer: str
    units: int
    unit: str
    gpus: int
    capacity: float | None
    busy_gpu_hours: float
    work_share: float
    cost: float
    utilisation: float | None


@dataclass(frozen=True)
class Mix:
    """The cheapest mix for a demand profile, and what each kind alone would cost.

    Attributes
    ----------
    layers
        Kind → its layer, for the kinds the mix uses, in dispatch order (held kinds from the
        bottom of the load, then the kinds paid by use).
    staffing
        The rent option's staffing, paid once any rented kind is used. [reporting currency/month]
    pure
        Kind → monthly cost if that kind alone served all the demand (held kinds sized for the
        peak, at least the scenario's configured count): the options' own costs for the same
        hourly demand. [reporting currency/month]
    pure_offers
        Kind → the offer of that pure figure, named.
    hourly
        Kind → demand it serves in each hour. [GPU busy]
    demand
        The hourly demand. [GPU busy]
    ceiling
        The hourly utilisation ceiling capacity is sized with. [-]
    """

    layers: dict[str, MixLayer]
    staffing: float
    pure: dict[str, float]
    pure_offers: dict[str, str]
    hourly: dict[str, np.ndarray]
    demand: np.ndarray
    ceiling: float

    @property
    def total(self) -> float:
        """Monthly cost of the mix. [reporting currency/month]"""
        return float(sum(layer.cost for layer in self.layers.values()) + self.staffing)

    @property
    def gpus(self) -> dict[str, int]:
        """Kind → GPUs held (or rented at the busiest hour) in it. [GPU]"""
        return {k: layer.gpus for k, layer in self.layers.items()}

    @property
    def cost(self) -> dict[str, float]:
        """Kind → monthly cost, and ``rental staffing`` when it is paid. [reporting currency/month]"""
        found = {k: layer.cost for k, layer in self.layers.items()}
        if self.staffing:
            found["rental staffing"] = self.staffing
        return found

    @property
    def utilisation(self) -> dict[str, float]:
        """Held kind → busy share of its GPU-hours. [-]"""
        return {k: layer.utilisation for k, layer in self.layers.items() if layer.utilisation is not None}

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds used, bottom of the load first."""
        return tuple(self.layers)

    def savings(self) -> dict[str, float]:
        """What the mix saves each month against each kind alone. [reporting currency/month]"""
        return {kind: cost - self.total for kind, cost in self.pure.items()}

    def busy_share(self, kind: str) -> float:
        """Share of all busy GPU-hours (for a tokens workload: of all tokens) that ``kind`` serves. [-]"""
        layer = self.layers.get(kind)
        return 0.0 if layer is None else layer.work_share

    def level_of(self, kind: str) -> float | None:
        """Demand below which ``kind`` serves nothing (the held capacity under it), or None. [GPU busy]"""
        if kind not in self.layers:
            return None
        return float(sum(layer.capacity or 0.0 for layer in self.layers.values() if layer.kind in HELD_LAYERS))

    def pure_words(self, kind: str) -> str:
        """What the pure figure of a kind buys: "owned dgx-h100 (8 × H100-SXM-80GB)", "Claude Haiku 4.5 (Anthropic)"."""
        return ("owned " if kind == Layer.OWN else "") + self.pure_offers[kind]

    def words(self) -> str:
        """The mix in words: "2 × dgx-h100 (8 × H100-SXM-80GB), owned (96.2 % of the work); 3.8 % of the work sent to
        Claude Opus 4.5 (Anthropic)"."""
        parts = []
        for layer in self.layers.values():
            share = f"{layer.work_share * 100:.1f} % of the work"
            if layer.kind == Layer.OWN:
                parts.append(f"{layer.units:,} × {layer.offer}, owned ({share})")
            elif layer.kind in (Layer.RESERVED, Layer.ALWAYS_ON):
                parts.append(f"{layer.gpus:,} × {layer.offer} ({share})")
            elif layer.kind == Layer.API:
                parts.append(f"{share} sent to {layer.offer}")
            else:
                parts.append(f"{layer.offer}, up to {layer.gpus:,} GPU{'' if layer.gpus == 1 else 's'} ({share})")
        return "; ".join(parts) or "nothing (no demand)"


@dataclass(frozen=True)
class MixResult:
    """The cheapest mix for the scenario's demand profile, with the steady case beside it.

    Attributes
    ----------
    profile
        Kind of demand profile.
    mix
        The cheapest mix for the profile.
    if_steady
        The cheapest mix for the same average demand spread evenly; None for a steady profile.
    demand
        GPUs busy in each hour of the year. [GPU]
    tokens_per_day_per_gpu
        For a tokens workload: tokens a day one GPU busy all day serves. [tokens/day/GPU]
    gpus_per_replica
        For a tokens workload: GPUs of one replica of the served model. [GPU]
    """

    profile: str
    mix: Mix
    if_steady: Mix | None
    demand: np.ndarray
    tokens_per_day_per_gpu: float | None = None
    gpus_per_replica: int | None = None

    def api_share(self) -> dict[str, Any] | None:
        """For a tokens workload: the API's share of tokens and cost, the replicas and the level the API takes over."""
        if self.tokens_per_day_per_gpu is None:
            return None
        mix, per = self.mix, self.gpus_per_replica or 1
        start = mix.level_of(Layer.API)
        replicas = {k: layer.gpus // per for k, layer in mix.layers.items() if k != Layer.API and layer.gpus}
        return {
            "token_share": mix.busy_share(Layer.API),
            "cost_share": (mix.cost.get(Layer.API, 0.0) / mix.total) if mix.total else 0.0,
            "replicas": replicas,
            "api_above_tokens_per_day": None if start is None else start * self.tokens_per_day_per_gpu,
            "hybrid": Layer.API in mix.layers and any(replicas.values()),
        }


@dataclass(frozen=True)
class ServingPoint:
    """An operating point of a throughput–interactivity curve at the workload's request shape.

    Attributes
    ----------
    concurrency
        Requests in flight per replica. [requests]
    throughput_per_gpu
        [output tokens/s/GPU]
    tokens_per_second_per_user
        [tokens/s/user]
    ttft
        Time to first token at the target's statistic. [s]
    source
        The measured points (ids, grade, source) or "ESTIMATE ...".
    estimated
        True on an estimated curve (aiconfigurator-core's or the first-principles one).
    basis
        ``measured``, ``estimated with aiconfigurator-core's kernel database`` or ``estimated from
        first principles``.
    """

    concurrency: float
    throughput_per_gpu: float
    tokens_per_second_per_user: float
    ttft: float
    source: str
    estimated: bool
    basis: str = "measured"


@dataclass(frozen=True)
class ServingFleet:
    """One option's serving fleet at the volume: replicas, servers, pools and spares.

    Attributes
    ----------
    gpus, replicas, servers
        GPUs run, whole replicas they hold, whole servers they fill. [GPU], [replicas], [servers]
    spare_replicas
        Held idle beyond the load. [replicas]
    prefill_replicas, decode_replicas
        Disaggregated serving: replicas in each pool (None when aggregated). [replicas]
    """

    option: str
    gpus: int
    replicas: int
    servers: int
    spare_replicas: int
    prefill_replicas: int | None
    decode_replicas: int | None


@dataclass(frozen=True)
class ServingResult:
    """How a served model meets its latency target, for a capacity planner.

    Attributes
    ----------
    target
        The target's bounds (``ttft_seconds``, ``ttft_statistic``, ``tokens_per_second_per_user``),
        or None: sized at maximum throughput (no target).
    mode, mode_reason
        ``aggregated`` or ``disaggregated``, and why.
    point, decode_point
        The aggregated operating point, and the decode pool's (disaggregated); None where absent.
    throughput_per_gpu
        What the fleet is sized with: output tokens per second per GPU, prefill included. [output tokens/s/GPU]
    throughput_source
        Where it comes from.
    prefill_share
        Share of working GPUs in the prefill pool (0 when aggregated). [-]
    gpus_per_replica, servers_per_replica, gpus_per_server
        [GPU], [servers], [GPU].
    weights_gb_per_gpu, kv_cache_gb_per_gpu, memory_gb_per_gpu
        Memory per GPU of a replica. [GB]
    spare_replicas, availability
        Redundancy: [replicas], [-].
    input_tokens, output_tokens
        The request shape (None without one). [tokens]
    fleets
        Option → its fleet at the volume (own and rent).
    curve
        The curve the point was read from: (concurrency, throughput per GPU, tokens/s per user, TTFT).
    curve_label
        Its name and source.
    decode_curve
        Disaggregated serving: the decode pool's curve, as ``curve``; else empty.
    """

    target: dict[str, Any] | None
    mode: str
    mode_reason: str
    point: ServingPoint | None
    decode_point: ServingPoint | None
    throughput_per_gpu: float
    throughput_source: str
    prefill_share: float
    gpus_per_replica: int
    servers_per_replica: int
    gpus_per_server: int
    weights_gb_per_gpu: float
    kv_cache_gb_per_gpu: float
    memory_gb_per_gpu: float
    spare_replicas: int
    availability: float
    input_tokens: int | None
    output_tokens: int | None
    fleets: dict[str, ServingFleet]
    curve: tuple[tuple[float, float, float, float], ...] = ()
    curve_label: str = ""
    decode_curve: tuple[tuple[float, float, float, float], ...] = ()


class Measure(StrEnum):
    """What a scenario's options are ranked on: one measure per scenario."""

    PRESENT_VALUE = "present_value"
    RUN_COST = "run_cost"
    HOURLY_MONTHLY_COST = "monthly_cost_hour_by_hour"
    MONTHLY_COST = "monthly_cost"
    COST_PER_SUCCESSFUL_TASK = "cost_per_successful_task"


MEASURE_TITLES = {
    Measure.PRESENT_VALUE: "present value of costs",
    Measure.RUN_COST: "cost of the run",
    Measure.HOURLY_MONTHLY_COST: "monthly cost, hour by hour",
    Measure.MONTHLY_COST: "monthly cost",
    Measure.COST_PER_SUCCESSFUL_TASK: "cost per 1,000 successful tasks",
}
"""Each decision measure's short name, for axis titles and table headers."""


def cheaper(a: float, b: float) -> bool:
    """Whether figure ``a`` is below ``b`` by more than the decision's tolerance: half a cent, or 1e-9 of ``b``
    (rounding noise between two ways of computing the same cost is not a win)."""
    return a < b - max(0.005, 1e-9 * abs(b))


@dataclass(frozen=True)
class Candidate:
    """One way to pay for the work, ranked on the scenario's decision measure.

    Attributes
    ----------
    id
        An option's name (``own``, ``rent``, ``api``, ``api:haiku``), a way to pay for an
        option (``rent.reserved``, ``rent.on_demand``), ``mix`` (the cheapest mix of a
        demand profile) or ``plan`` (the capacity plan).
    option
        The option it belongs to; None for the mix and the plan.
    label
        The option and the offer, named: "Cloud rental: 24 × H200-SXM-141GB at Nebius, 1-year reserved".
    figure
        Its value on the measure. [reporting currency, or reporting currency/month]
    """

    id: str
    option: str | None
    label: str
    figure: float


@dataclass(frozen=True)
class Decision:
    """The scenario's one answer: every candidate on one measure, the winner, the runner-up and the margin.

    Attributes
    ----------
    measure
        A :class:`Measure`: the present value of costs over the horizon with a finance block;
        the cost of the whole run for a training workload; the monthly cost of serving the
        demand hour by hour with a demand profile; the monthly cost at the volume otherwise.
    description
        The measure in words, with what it assumes ("the present value of costs over 60
        months, cash basis, 8.0 % a year, ...").
    unit
        Unit of every figure: the currency, or the currency a month.
    candidates
        Candidate id → candidate, cheapest first (ties keep the options' order, options
        before the mix and the plan).
    """

    measure: str
    description: str
    unit: str
    candidates: dict[str, Candidate]

    @property
    def ranked(self) -> list[str]:
        """Candidate ids, cheapest first."""
        return list(self.candidates)

    @property
    def winner(self) -> str:
        """The cheapest candidate's id."""
        return self.ranked[0]

    @property
    def runner_up(self) -> str | None:
        """The second cheapest candidate's id, or None with one candidate."""
        return self.ranked[1] if len(self.candidates) > 1 else None

    @property
    def winning(self) -> Candidate:
        """The cheapest candidate."""
        return self.candidates[self.winner]

    @property
    def margin(self) -> float | None:
        """Runner-up's figure minus the winner's; None with one candidate. [unit]"""
        if self.runner_up is None:
            return None
        return self.candidates[self.runner_up].figure - self.winning.figure

    @property
    def tied(self) -> bool:
        """Whether the runner-up costs the same as the winner, within :func:`cheaper`'s tolerance."""
        return self.runner_up is not None and not cheaper(self.winning.figure, self.figure(self.runner_up))

    @property
    def margin_share(self) -> float | None:
        """margin / the runner-up's figure; None when that is 0 or there is no runner-up. [-]"""
        margin = self.margin
        if margin is None or self.runner_up is None or self.candidates[self.runner_up].figure <= 0:
            return None
        return margin / self.candidates[self.runner_up].figure

    def figure(self, candidate: str) -> float:
        """One candidate's figure. [unit]"""
        return self.candidates[candidate].figure

    def label(self, candidate: str) -> str:
        """One candidate's named label."""
        return self.candidates[candidate].label

    def monthly_view_option(self, candidate: str) -> str | None:
        """The option whose monthly view (one option at the volume, on-demand or 24/7 as configured) prices
        this candidate, or None: ``rent.on_demand`` is the rent option's monthly view; ``rent`` beside it
        pays by a commitment the monthly view leaves out; reserved, spot, the mix and the plan have none."""
        if candidate == "rent.on_demand":
            return "rent"
        if candidate == "rent" and "rent.on_demand" in self.candidates:
            return None
        option = self.candidates[candidate].option if candidate in self.candidates else None
        return candidate if option == candidate else None

    def best_of(self, options) -> str | None:
        """The cheapest candidate belonging to one of ``options`` (an option's own ways to pay included)."""
        wanted = set(options)
        return next((c for c, cand in self.candidates.items() if cand.option in wanted), None)


@dataclass(frozen=True)
class RoutedClass:
    """One routing class served by its option.

    Attributes
    ----------
    name, option, label
        The class, the option key serving it and the option's display name.
    share_of_requests
        Its share of all requests. [-]
    requests_per_day, tokens_per_day
        Its requests and input plus output tokens. [requests/day], [tokens/day]
    monthly_cost
        Its share of its option's monthly cost (the option costed once on every class it serves, split in
        proportion to tokens). [currency/month]
    cost_per_million_tokens
        [currency/M tokens]
    gpus
        GPUs its option runs for the classes it serves (None for an API). [GPU]
    success_rate, success_rate_source
        The class's success rate (its own, else its option's) and its source; None if not stated. [-]
    """

    name: str
    option: str
    label: str
    share_of_requests: float
    requests_per_day: float
    tokens_per_day: float
    monthly_cost: float
    cost_per_million_tokens: float | None
    gpus: int | None
    success_rate: float | None
    success_rate_source: str | None


@dataclass(frozen=True)
class RoutingResult:
    """The routed blend against one option serving every request.

    Attributes
    ----------
    classes
        Each class on its option, in the scenario's order.
    requests_per_day, tokens_per_day
        All classes together. [requests/day], [tokens/day]
    monthly_cost, cost_per_million_tokens
        The blend: the sum of the classes' costs. [currency/month], [currency/M tokens]
    baseline, baseline_label, baseline_cost
        The option serving every request and its monthly cost at the same volume. [currency/month]
    saving, saving_share
        baseline_cost − monthly_cost, and that over baseline_cost (negative: routing costs more).
        [currency/month], [-]
    cost_per_successful_task, baseline_cost_per_successful_task
        Monthly cost / successful tasks a month (tasks × success rate, summed over the classes); None where a
        success rate is missing. [currency/task]
    """

    classes: tuple[RoutedClass, ...]
    requests_per_day: float
    tokens_per_day: float
    monthly_cost: float
    cost_per_million_tokens: float | None
    baseline: str
    baseline_label: str
    baseline_cost: float
    saving: float
    saving_share: float | None
    cost_per_successful_task: float | None
    baseline_cost_per_successful_task: float | None


@dataclass(frozen=True)
class Comparison:
    """The options of a scenario compared at one volume, with break-evens in a range, and the one decision.

    Attributes
    ----------
    title, currency
        The scenario's title and reporting currency.
    workload_kind, volume, volume_unit
        What is compared: the volume in its unit.
    gpu_hours_used
        GPU-hours of work a month at the volume. [GPU-h/month]
    options
        Option → its result at the volume (the monthly view), in display order.
    decision
        The one answer: every candidate on the scenario's decision measure
        (:class:`Decision`); every output that ranks options reads it.
    break_evens
        Every pair's break-even in the searched range (the monthly view).
    cheapest_ranges
        The cheapest option over each part of the searched range, in order (the monthly view).
    estimates
        Catalog figures behind the result that are unsourced estimates (grade U).
    stale
        Catalog prices behind the result older than their table allows
        (:data:`costmodel.lookup.STALE_AFTER_MONTHS`), described, oldest first.
    training
        For a training workload, the run worked out; otherwise ``None``.
    finance
        With a finance block and an own option, the horizon view; otherwise ``None``.
    mix
        With a demand profile, the cheapest mix; otherwise ``None``.
    serving
        For a served model (a tokens workload with ``serving``), the latency target, the
        operating point, the replica and each option's fleet; otherwise ``None``.
    energy
        Energy, emissions and power of every option (``None`` only when not computed).
    plan
        With ``finance.capacity_plan``, the multi-year plan; otherwise ``None``.
    notes
        Inputs the comparison did not use as stated, and why (shown with the warnings).
    routing
        With a ``routing`` block, each class on its own option and the blend against the baseline;
        otherwise ``None``.
    """

    title: str
    currency: str
    workload_kind: str
    volume: float
    volume_unit: str
    gpu_hours_used: float
    options: dict[str, OptionResult]
    decision: Decision
    break_evens: list[BreakEven]
    cheapest_ranges: list[CheapestRange]
    estimates: list[str]
    training: TrainingRun | None = None
    finance: OwnFinance | None = None
    mix: MixResult | None = None
    serving: ServingResult | None = None
    energy: EnergyResult | None = None
    plan: GrowthPlan | None = None
    claims: tuple[ClaimCheck, ...] = ()
    notes: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    routing: RoutingResult | None = None
    uncertainty_of: Callable[[], UncertaintyResult | None] | None = field(default=None, repr=False, compare=False)
    """Computes :attr:`uncertainty` (the domain's uncertainty analysis of the scenario); None: no analysis."""

    @cached_property
    def uncertainty(self) -> UncertaintyResult | None:
        """Monte Carlo, tornado and Sobol on the decision measure, computed on first access.

        The analysis evaluates the scenario thousands of times, many times the comparison
        itself, so it runs only when read; the result is kept on this object. None when the
        scenario has no ``uncertainty`` block.
        """
        return None if self.uncertainty_of is None else self.uncertainty_of()

    @property
    def comparison(self) -> Comparison:
        """This result, as :attr:`costmodel.presentation.output.ComparisonOutput.comparison` names it, so
        code that reads either one's ``.comparison`` gets the domain result."""
        return self

    def label(self, option: str) -> str:
        """Display name of an option, or the named label of a decision candidate."""
        if option in self.options:
            return self.options[option].label
        return self.decision.label(option)

    def __repr__(self) -> str:
        """The verdict in one line (every figure is an attribute)."""
        d = self.decision
        margin = "" if d.runner_up is None else f", {_shown(d.margin)} {d.unit} less than {d.runner_up}"
        at = "" if self.workload_kind == "training" else f"; at {_shown(self.volume, 0)} {self.volume_unit}"
        pairs = len(self.break_evens)
        return (
            f"<Comparison {self.title!r}: {d.winner} cheapest on {d.measure}{margin}{at}; "
            f"{len(self.options)} options, {pairs} break-even{'' if pairs == 1 else 's'}>"
        )

    def _repr_html_(self) -> str:
        """The verdict, each option's monthly cost and each break-even, for a notebook cell."""
        from html import escape

        d = self.decision
        at = "" if self.workload_kind == "training" else f" at {_shown(self.volume, 0)} {self.volume_unit}"
        costs = _table(
            ["option", f"monthly cost{at} [{self.currency}/month]"],
            [[o.label, _shown(o.monthly_cost)] for o in self.options.values()],
        )
        pairs = _table(
            ["options", f"break-even [{self.volume_unit}]"],
            [
                [
                    f"{self.label(b.option_a)} vs {self.label(b.option_b)}",
                    "never" if b.volume is None else _shown(b.volume, 0),
                ]
                for b in self.break_evens
            ],
        )
        return (
            f"<p><b>{escape(self.title)}</b><br>Verdict: <b>{escape(d.label(d.winner))}</b>, on "
            f"{escape(d.description)}.</p>{costs}{pairs}"
        )

    @property
    def monthly_cheapest(self) -> str:
        """The option with the lowest monthly cost at the volume (the monthly view, not the decision)."""
        return min(self.options, key=lambda o: self.options[o].monthly_cost)

    @property
    def warnings(self) -> list[str]:
        """Plausibility warnings (not errors) on the inputs, e.g. an MFU above what is published, and the notes."""
        return (list(self.training.warnings) if self.training is not None else []) + list(self.notes)


@dataclass(frozen=True)
class InputBreakEven:
    """The value of one input at which two options cost the same, or None (never in the range).

    Attributes
    ----------
    path
        The input.
    value
        The break-even value, or None. [the input's unit]
    low, high
        The bracket searched. [the input's unit]
    option_a, option_b
        The options compared (``option_b`` None: the cheapest other).
    """

    path: str
    value: float | None
    low: float
    high: float
    option_a: str
    option_b: str | None


@dataclass(frozen=True)
class TornadoBar:
    """One input moved to its low and high value, and what the decision metric does.

    Attributes
    ----------
    path
        The input.
    low, high, base
        The input's values. [the input's unit]
    low_metric, high_metric, base_metric
        The metric with the input at low, at high and as given. [reporting currency/month]
    swing
        |high_metric − low_metric|. [reporting currency/month]
    break_even
        Where the metric crosses zero inside [low, high], if it does. [the input's unit]
    """

    path: str
    low: float
    high: float
    base: float
    low_metric: float
    high_metric: float
    base_metric: float
    swing: float
    break_even: float | None


@dataclass(frozen=True)
class MonteCarlo:
    """Every candidate's figure on the decision measure over N samples of the uncertain inputs.

    Attributes
    ----------
    costs
        Candidate → N figures on the decision measure. [``unit``]
    metric
        Tracked option's figure minus the cheapest other candidate's, per sample. [``unit``]
    option
        The tracked option.
    clipped
        Input → samples clipped into the input's allowed range.
    measure, unit
        The decision measure (a :class:`Measure` value) and its unit.
    labels
        Candidate → its label, named with its offer.
    """

    costs: dict[str, np.ndarray]
    metric: np.ndarray
    option: str
    clipped: dict[str, int]
    measure: str = "monthly_cost"
    unit: str = ""
    labels: dict[str, str] = field(default_factory=dict)

    def label(self, candidate: str) -> str:
        """A candidate's label (its id when none was given)."""
        return self.labels.get(candidate, candidate)

    @property
    def samples(self) -> int:
        """N. [-]"""
        return int(self.metric.size)

    def percentiles(self, q=(10, 50, 90)) -> dict[str, np.ndarray]:
        """P10/P50/P90 (or ``q``) of each candidate's figure. [``unit``]"""
        return {o: np.percentile(c, q) for o, c in self.costs.items()}

    def win_probability(self) -> dict[str, float]:
        """Share of samples in which each option is the cheapest (ties go to the first). [-]"""
        names = list(self.costs)
        winners = np.argmin(np.stack([self.costs[o] for o in names]), axis=0)
        counts = np.bincount(winners, minlength=len(names))
        return {o: float(c) / winners.size for o, c in zip(names, counts)}

    def option_win_probability(self) -> float:
        """Share of samples in which the tracked option, on the cheapest of its ways to pay, is the cheapest. [-]"""
        return float(np.mean(self.metric <= 0))

    @property
    def savings(self) -> np.ndarray:
        """What the tracked option saves against the cheapest other, per sample (−metric). [``unit``]"""
        return -self.metric


@dataclass(frozen=True)
class SobolIndices:
    """First-order and total Sobol indices of the decision metric.

    Attributes
    ----------
    inputs
        The inputs analysed, in order.
    first_order, first_order_conf, total, total_conf
        S1 and ST with their 95 % confidence half-widths, one per input; None where the
        metric does not vary (an index is then not defined). [-]
    left_out
        Inputs whose distribution SALib cannot sample (empirical, zero width).
    """

    inputs: tuple[str, ...]
    first_order: tuple[float | None, ...]
    first_order_conf: tuple[float | None, ...]
    total: tuple[float | None, ...]
    total_conf: tuple[float | None, ...]
    left_out: tuple[str, ...] = ()

    @property
    def defined(self) -> bool:
        """False when the metric did not vary, so no index exists."""
        return all(v is not None for v in self.first_order)


@dataclass(frozen=True)
class UncertaintyResult:
    """The uncertainty analysis of a scenario on its decision measure.

    Attributes
    ----------
    monte_carlo
        Every candidate's figure over the samples of the uncertain inputs.
    tornado
        Each input moved alone to its low and high value, largest swing first.
    sobol
        Sobol indices of the decision metric; None without an input SALib can sample, or
        without SALib (``notes`` then says so).
    volume, volume_unit
        The volume the analysis is at (the scenario's). [workload volume unit]
    seed
        ``uncertainty.seed``, which makes the samples repeatable. [-]
    input_units
        Input path → its unit, for the tornado's values.
    notes
        What the analysis left out, and why.
    """

    monte_carlo: MonteCarlo
    tornado: tuple[TornadoBar, ...]
    sobol: SobolIndices | None
    volume: float
    volume_unit: str
    seed: int
    input_units: dict[str, str]
    notes: tuple[str, ...] = ()


# --- energy and carbon -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionEnergy:
    """Energy and emissions of one option at a volume.

    Attributes
    ----------
    basis
        ``derived`` (from the scenario's own power inputs) or ``estimate`` (a provider's PUE
        or a published per-token figure stands in for what cannot be measured).
    energy_kwh_per_month
        Energy at the meter (IT × PUE); None when no figure covers the option. [kWh/month]
    energy_kwh_range
        Low and high ends for an estimate with a range (the API). [kWh/month]
    operational_co2e_kg_per_month, embodied_co2e_kg_per_month
        Location-based emissions of the electricity; manufacturing emissions amortised
        over the hardware's life. None without a grid. [kg CO2e/month]
    market_co2e_kg_per_month
        Market-based emissions at the contracted intensity, if one is given. [kg CO2e/month]
    co2e_kg_per_million_tokens
        Total emissions per million tokens (input + output) of a tokens workload. [kg CO2e/M tokens]
    wh_per_1000_output_tokens
        Energy per 1,000 output tokens at the volume (idle draw included). [Wh]
    output_tokens_per_joule
        Self-hosted: at full load, from the serving throughput and the power per GPU. [tokens/J]
    notes
        Where the figures come from and what is missing.
    """

    option: str
    label: str
    kind: str
    basis: str
    energy_kwh_per_month: float | None
    energy_kwh_range: tuple[float, float] | None
    operational_co2e_kg_per_month: float | None
    embodied_co2e_kg_per_month: float | None
    market_co2e_kg_per_month: float | None
    co2e_kg_per_million_tokens: float | None
    wh_per_1000_output_tokens: float | None
    output_tokens_per_joule: float | None
    notes: tuple[str, ...] = ()

    @property
    def co2e_kg_per_month(self) -> float | None:
        """Location-based operational plus embodied emissions. [kg CO2e/month]"""
        if self.operational_co2e_kg_per_month is None or self.embodied_co2e_kg_per_month is None:
            return None
        return self.operational_co2e_kg_per_month + self.embodied_co2e_kg_per_month


@dataclass(frozen=True)
class PowerCheck:
    """The own cluster's power at the meter against the site's budget. [kW]

    ``needed_kw`` = servers powered × max kW × PUE; ``max_servers`` the most that fit.
    """

    budget_kw: float
    needed_kw: float
    headroom_kw: float
    servers: int
    max_servers: int
    max_gpus: int


@dataclass(frozen=True)
class TariffBill:
    """The own cluster's electricity priced hour by hour at a time-of-use tariff, over the demand profile.

    Attributes
    ----------
    cost_per_month
        The bill at the tariff. [reporting currency/month]
    flat_cost_per_month
        The same hourly draw at the scenario's flat price. [reporting currency/month]
    energy_kwh_per_month
        Energy at the meter over the profile. [kWh/month]
    unserved_gpu_hours_per_month
        Demand above the own fleet's GPUs, not drawn by it. [GPU-h/month]
    """

    cost_per_month: float
    flat_cost_per_month: float
    energy_kwh_per_month: float
    unserved_gpu_hours_per_month: float
    source: str


@dataclass(frozen=True)
class TrainingEnergy:
    """Energy and emissions of a training run: each option's, and the model cards' method beside them.

    Attributes
    ----------
    by_option
        Option → (basis, energy [MWh], operational emissions [t CO2e], embodied emissions
        [t CO2e]) of the run, from the option's own power model (the one its electricity
        cost uses); emissions None without a grid.
    energy_mwh, co2e_t, market_co2e_t
        The model cards' method: GPU-hours × TDP × PUE [MWh], location-based and market-based
        operational emissions [t CO2e] (None without a grid or a contracted intensity).
    gpu_hours, watts_per_gpu, pue, kg_co2e_per_kwh
        That method's inputs: [GPU-h], [W] (the TDP, or the measured power per GPU), [-],
        [kg CO2e/kWh].
    power_basis
        ``tdp`` or ``measured`` (``workload.power.measured_power_per_gpu_w``).
    it_load_kw, facility_power_kw
        The run's GPUs × ``watts_per_gpu``, and that × PUE. [kW]
    provisioned_facility_power_kw
        Facility power × (N + k) / N with the stated N+k redundancy; None without. [kW]
    """

    gpu_hours: float
    watts_per_gpu: float
    pue: float
    energy_mwh: float
    kg_co2e_per_kwh: float | None
    co2e_t: float | None
    market_co2e_t: float | None
    notes: tuple[str, ...] = ()
    by_option: dict[str, tuple[str, float, float | None, float | None]] = field(default_factory=dict)
    power_basis: Literal["tdp", "measured"] = "tdp"
    it_load_kw: float | None = None
    facility_power_kw: float | None = None
    provisioned_facility_power_kw: float | None = None


@dataclass(frozen=True)
class EnergyResult:
    """Energy, emissions and power of every option of a scenario at one volume."""

    options: dict[str, OptionEnergy]
    power: PowerCheck | None = None
    tariff: TariffBill | None = None
    training: TrainingEnergy | None = None
    sources: tuple[str, ...] = ()


# --- stated figures checked ------------------------------------------------------------------------


def _n(x: Any) -> float | None:
    """A JSON number without a negative zero (None stays None)."""
    value = _number(x)
    return None if value is None else value + 0.0


@dataclass(frozen=True)
class InputChange:
    """One input changed alone so that a claim would hold.

    Attributes
    ----------
    path, title, unit
        The input (see :mod:`costmodel.schema.inputs`).
    current, needed
        Its value now, and the value at which the claim's figure equals the stated one. [unit]
    """

    path: str
    title: str
    unit: str
    current: float
    needed: float


@dataclass(frozen=True)
class ClaimCheck:
    """A stated figure against the computed one.

    Attributes
    ----------
    statement, source, kind
        As in the claim.
    stated, computed
        The stated figure and the model's, in ``unit`` (a cost converted to the reporting
        currency). ``computed`` None: none in the searched range (a break-even that never
        happens within 10 × the larger of the stated and the scenario's volume). A cheapest
        claim states no figure: ``stated`` is the monthly cost its option must be below (the other
        option's at ``volume``) and ``computed`` its option's.
    unit
        Unit of both.
    tolerance
        Largest relative gap that confirms. [-]
    confirmed
        |computed / stated - 1| <= tolerance.
    stated_multiple, computed_multiple
        For a break-even: both as multiples of the scenario's volume; for a cheapest claim
        the stated one, as stated (``volume_multiple``, of a volume of 0 too) or as the
        stated volume over the scenario's. [-]
    would_hold
        Single inputs that, changed alone, make the computed figure equal the stated one,
        smallest relative change first.
    options
        For a cheapest claim: the option stated to cost less, then the other; else empty.
    volume
        For a cheapest claim: the volume it is checked at. [workload unit]
    """

    statement: str
    source: str
    kind: str
    stated: float
    computed: float | None
    unit: str
    tolerance: float
    confirmed: bool
    stated_multiple: float | None = None
    computed_multiple: float | None = None
    would_hold: tuple[InputChange, ...] = ()
    options: tuple[str, ...] = ()
    volume: float | None = None

    @property
    def gap(self) -> float | None:
        """computed / stated - 1, or None when either is missing or the stated figure is 0. [-]"""
        if self.computed is None or not self.stated:
            return None
        return self.computed / self.stated - 1.0


# --- two scenarios compared input by input ----------------------------------------------------------


@dataclass(frozen=True)
class InputDifference:
    """One numeric input that differs between scenario A and B, and what it moved.

    Attributes
    ----------
    path, title, unit
        The input (see :mod:`costmodel.schema.inputs`).
    a, b
        Its value in A and in B. [unit]
    source_a, source_b
        The source text of the block or catalog row it comes from in each.
    one_at_a_time
        Measure → change when only this input takes B's value in A. [measure's unit]
    shapley
        Measure → its share of the whole change: the average, over orders of applying the
        changes one by one, of the change it makes when applied. [measure's unit]
    """

    path: str
    title: str
    unit: str
    a: float
    b: float
    source_a: str
    source_b: str
    one_at_a_time: dict[str, float]
    shapley: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "input": self.path,
            "title": self.title,
            "unit": self.unit,
            "a": _n(self.a),
            "b": _n(self.b),
            "source_a": self.source_a,
            "source_b": self.source_b,
            "one_at_a_time": {k: _n(v) for k, v in self.one_at_a_time.items()},
            "shapley": {k: _n(v) for k, v in self.shapley.items()},
        }


@dataclass(frozen=True)
class ScenarioDiff:
    """Scenario B against scenario A: the inputs that differ and how the answer moved.

    Attributes
    ----------
    name_a, name_b, currency
        The two scenarios and their (shared) reporting currency.
    measures
        Measure → (value in A, value in B): ``monthly_cost.<option>`` at each scenario's
        volume [currency/month], and with a finance block ``tco.<option>``, ``npv.<option>``
        [currency].
    units
        Measure → unit.
    inputs
        The numeric inputs that differ.
    other
        Other differences (ids, kinds, blocks or fields present on one side only): (field,
        value in A, value in B); ``other_effect`` is what they moved together.
    other_effect
        Measure → change not explained by the numeric inputs: B minus A with all of B's
        numeric inputs. [measure's unit]
    method
        ``exact`` (every order of the inputs) or ``sampled N orders``.
    """

    name_a: str
    name_b: str
    currency: str
    measures: dict[str, tuple[float, float]]
    units: dict[str, str]
    inputs: tuple[InputDifference, ...]
    other: tuple[tuple[str, Any, Any], ...]
    other_effect: dict[str, float]
    method: str

    def total(self, measure: str) -> float:
        """B minus A for one measure."""
        a, b = self.measures[measure]
        return b - a

    def __repr__(self) -> str:
        """What differs and each measure's change, in one line (``to_dict()`` has it all)."""
        changes = "; ".join(
            f"{m} {'+' if self.total(m) >= 0 else ''}{_shown(self.total(m))} {self.units[m]}" for m in self.measures
        )
        return (
            f"<ScenarioDiff {self.name_a!r} -> {self.name_b!r}: {len(self.inputs)} numeric inputs and "
            f"{len(self.other)} other fields differ; {changes}>"
        )

    def _repr_html_(self) -> str:
        """Each measure's change, and each differing input with its value in A and B and its Shapley share."""
        from html import escape

        measures = _table(
            ["measure", escape(self.name_a), escape(self.name_b), "change", "unit"],
            [[m, _shown(a), _shown(b), _shown(b - a), self.units[m]] for m, (a, b) in self.measures.items()],
        )
        first = next(iter(self.measures), "")  # no measure: an empty column
        inputs = _table(
            ["input", "A", "B", "unit", f"Shapley share of {first} [{self.units.get(first, '')}]"],
            [[d.path, f"{d.a:g}", f"{d.b:g}", d.unit, _shown(d.shapley.get(first))] for d in self.inputs],
        )
        other = "".join(f"<li>{escape(f)}: {escape(str(a))} → {escape(str(b))}</li>" for f, a, b in self.other)
        return (
            f"<p><b>{escape(self.name_b)}</b> against <b>{escape(self.name_a)}</b> ({escape(self.method)})</p>"
            f"{measures}{inputs}" + (f"<p>Other differences:</p><ul>{other}</ul>" if other else "")
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "a": self.name_a,
            "b": self.name_b,
            "currency": self.currency,
            "method": self.method,
            "measures": {
                k: {"a": _n(a), "b": _n(b), "change": _n(b - a), "unit": self.units[k]}
                for k, (a, b) in self.measures.items()
            },
            "inputs": [d.to_dict() for d in self.inputs],
            "other_differences": [{"field": f, "a": a, "b": b} for f, a, b in self.other],
            "other_effect": {k: _n(v) for k, v in self.other_effect.items()},
        }

"""The options compared: an own cluster, cloud rental, and a hosted LLM API.

Every money amount sits in a block with a ``currency`` field, or comes from a catalog row
that has one. Catalog ids (``server``, ``offer``) are checked against the catalog given as
validation context (``Scenario.model_validate(data, context={"catalog": c})``), by default
the bundled one; the rows themselves are looked up when the scenario is resolved
(:func:`costmodel.resolved.resolve`), never stored on the input.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, LiteralString

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from ..catalog import Currency
from .base import (
    SHORT_NAME,
    Date,
    InputModel,
    NonNegative,
    NotBoolean,
    OneLine,
    Positive,
    PositiveShare,
    Share,
    Source,
    Text,
    Whole,
    absent,
    both,
    context_catalog,
    either,
    equals,
    fail,
    given,
    inside,
    known_id,
    left_at,
    never,
    one_of,
    quantity,
    rules,
    when,
)
from .routing import success_rate_field, success_source_field


class Staffing(InputModel):
    """People who run the option: full-time equivalents times a loaded yearly cost.

    Give ``fte`` (a fixed number), or ``minimum_fte`` and ``gpus_per_fte`` (a minimum plus
    one FTE per that many GPUs, fractional: FTE = minimum + GPUs / GPUs per FTE). A
    managed-service fee can stand beside or instead of the FTEs.
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            either(
                both(given("fte"), absent("minimum_fte", "gpus_per_fte")),
                both(absent("fte"), given("minimum_fte", "gpus_per_fte")),
            )
        )
    )

    fte: NonNegative | None = quantity(None, unit="FTE", title="staffing", description="Full-time equivalents, fixed.")
    minimum_fte: NonNegative | None = quantity(
        None, unit="FTE", title="staffing minimum", description="FTEs however small the cluster."
    )
    gpus_per_fte: Positive | None = quantity(
        None, unit="GPU/FTE", title="GPUs per further FTE", description="GPUs one more FTE runs."
    )
    loaded_cost_per_fte_per_year: NonNegative = quantity(
        unit="{currency}/FTE/year",
        title="loaded cost per FTE",
        description="Salary plus employer charges and overhead for one FTE for a year.",
    )
    managed_service_per_month: NonNegative = quantity(
        0.0, unit="{currency}/month", title="managed-service fee", description="Operations bought as a service."
    )
    currency: Currency
    source: Text = Field(default="", description="Where the cost figures come from.")

    @model_validator(mode="after")
    def _one_rule(self) -> Staffing:
        scaled = self.minimum_fte is not None or self.gpus_per_fte is not None
        if (self.fte is not None) == scaled or (scaled and (self.minimum_fte is None or self.gpus_per_fte is None)):
            raise fail(
                "Staffing", ("fte",), "fte_rule", "give either fte, or both minimum_fte and gpus_per_fte", self.fte
            )
        return self


AssetClass = Literal["gpus", "servers", "network", "storage", "building_power", "land", "other"]
"""Kinds of capex with lives of their own (Barroso, Hölzle and Ranganathan 2018, ch. 6); land is not
depreciated."""


class CapexLine(InputModel):
    """One line of the own cluster's bill of materials besides the servers.

    Priced one of three ways: per server (scales with servers, spares included), as a
    share of the servers' price (e.g. a fabric at 10 % of server capex), or as a total.
    It may name its ``asset_class`` and its own ``useful_life_years`` (default: the
    servers' ``depreciation_months``); ``land`` has no life and is never depreciated. With
    the own option's ``cost_of_capital_per_year`` each line is annualised by the
    capital-recovery factor of its life (:func:`costmodel.formulas.capital_recovery_factor`).
    """

    model_config = ConfigDict(
        json_schema_extra=rules(
            one_of("price_per_server", "share_of_server_price", "price_total"),
            either(given("share_of_server_price"), given("currency")),
            when(equals(asset_class="land"), absent("useful_life_years")),
        )
    )

    item: Text = Field(min_length=1, description="What is bought, e.g. 'InfiniBand fabric', 'storage'.")
    price_per_server: NonNegative | None = quantity(None, unit="{currency}/server", title="price per server")
    share_of_server_price: NonNegative | None = quantity(None, unit="-", title="share of server capex", le=10)
    price_total: NonNegative | None = quantity(None, unit="{currency}", title="price")
    currency: Currency | None = Field(default=None, description="Needed for price_per_server and price_total.")
    asset_class: AssetClass | None = Field(
        default=None,
        description="What kind of asset: gpus, servers, network, storage, building_power, land "
        "(never depreciated, no hardware support) or other.",
    )
    useful_life_years: Positive | None = quantity(
        None,
        unit="years",
        title="useful life",
        ge=1 / 12,
        le=100,
        description="Years the line is depreciated (or annualised) over; default the servers' depreciation "
        "period. Not for land.",
    )
    source: Text = Field(min_length=1, description="Where the price comes from, or ASSUMPTION.")

    @model_validator(mode="after")
    def _land_lasts(self) -> CapexLine:
        if self.asset_class == "land" and self.useful_life_years is not None:
            raise fail(
                "CapexLine",
                ("useful_life_years",),
                "land_not_depreciated",
                "land is not depreciated and has no useful life; remove useful_life_years (with a cost of "
                "capital it costs its price x the rate a year)",
                self.useful_life_years,
            )
        return self

    @model_validator(mode="after")
    def _one_price(self) -> CapexLine:
        names = ("price_per_server", "share_of_server_price", "price_total")
        given = [n for n in names if getattr(self, n) is not None]
        if len(given) != 1:
            raise fail(
                "CapexLine",
                ("price_per_server",),
                "one_price",
                "give exactly one of price_per_server, share_of_server_price, price_total",
                given,
            )
        if self.share_of_server_price is None and self.currency is None:
            raise fail("CapexLine", ("currency",), "missing", "an absolute price needs its currency", None)
        return self


class SoftwareLicences(InputModel):
    """Software licences (cluster management, AI enterprise suites) paid per GPU per year."""

    price_per_gpu_per_year: NonNegative = quantity(unit="{currency}/GPU/year", title="software licences")
    currency: Currency
    source: Source = Field(min_length=1)


class Facility(InputModel):
    """An own data hall instead of colocation: built at a price per MW of IT capacity, depreciated."""

    price_per_mw: Positive = quantity(
        unit="{currency}/MW", title="facility build cost", description="Build cost per MW of provisioned IT power."
    )
    depreciation_months: Whole = quantity(
        unit="months", title="facility life", ge=1, le=1200, description="Straight-line life of the building."
    )
    currency: Currency
    source: Source = Field(min_length=1)


class Provider(InputModel):
    """The own cluster seen as a GPU cloud's: GPU-hours sold, for an income view (EBIT and NOI).

    Revenue a month = working GPUs × 730 h × ``utilisation_sold`` × ``price_per_gpu_hour_sold``
    (hot spares are not sold).
    """

    price_per_gpu_hour_sold: Positive = quantity(
        unit="{currency}/GPU-h", title="price per GPU-hour sold", description="Average price a sold GPU-hour fetches."
    )
    utilisation_sold: Share = quantity(
        unit="-", title="utilisation sold", description="Share of the working GPUs' hours sold."
    )
    currency: Currency
    source: Text = Field(min_length=1, description="Where the price and utilisation come from, or ASSUMPTION.")


class Power(InputModel):
    """Electricity for an owned cluster.

    Power drawn per server = max power × (idle share + (1 − idle share) × utilisation),
    and the energy bought is that times the PUE.
    """

    kw_per_server: Positive | None = quantity(
        None,
        unit="kW",
        title="max power per server",
        description="Maximum power at the wall per server; default: the server catalog's.",
    )
    idle_power_share: Share = quantity(
        unit="-", title="idle power share", description="Power drawn at zero utilisation as a share of the maximum."
    )
    pue: float = quantity(
        unit="-",
        title="PUE",
        strict=True,
        ge=1.0,
        le=5.0,
        description="Power usage effectiveness: facility energy / IT energy.",
    )
    electricity_price_per_kwh: NonNegative = quantity(unit="{currency}/kWh", title="electricity price")
    currency: Currency
    source: Source = ""


class Colocation(InputModel):
    """Data-centre space and provisioned power capacity, priced per kW per month."""

    price_per_kw_month: NonNegative = quantity(
        unit="{currency}/kW/month",
        title="colocation price",
        description="Price of one kW of provisioned (not drawn) capacity for a month.",
    )
    currency: Currency
    source: Source = ""


class OwnCluster(InputModel):
    """Buying GPU servers and running them in a colocation facility or an own data hall."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            one_of("colocation", "facility"),
            never(inside("staffing", both(equals(fte=0), left_at(managed_service_per_month=0)))),
            when(given("success_rate"), given("success_rate_source")),
        )
    )

    label: OneLine | None = Field(default=None, max_length=80, description="Name shown for the option.")
    server: str = Field(description="Server id in data/servers.csv (gives GPUs per server, price, power).")
    server_count: Whole = quantity(
        unit="servers",
        title="servers",
        ge=1,
        varies=False,
        le=100_000,
        description="Servers bought. The count steps up if the volume needs more.",
    )
    depreciation_months: Whole = quantity(
        unit="months",
        title="depreciation period",
        ge=1,
        le=600,
        description="Straight-line depreciation period of the servers.",
    )
    hardware_support_share_per_year: Share = quantity(
        unit="1/year",
        title="hardware support",
        description="Hardware support and maintenance contract as a share of capex per year.",
    )
    bill_of_materials: list[CapexLine] = Field(
        default_factory=list,
        max_length=100,
        description="Capex besides the servers: fabric, storage, racks and installation.",
    )
    spare_share: Share = quantity(
        0.0,
        unit="-",
        title="hot spares",
        description="Hot spares as a share of the servers: bought, powered idle, housed, never used.",
    )
    power: Power = Field(description="Electricity: power per server, idle share, PUE, price [currency/kWh].")
    colocation: Colocation | None = Field(default=None, description="Colocation; or give facility instead.")
    facility: Facility | None = Field(default=None, description="An own data hall instead of colocation.")
    staffing: Staffing = Field(
        description="People who run the cluster: FTEs and their loaded cost "
        "[currency/FTE/year], or a managed-service fee."
    )
    software_licences: SoftwareLicences | None = Field(
        default=None, description="Software licences paid per GPU per year [currency/GPU/year]."
    )
    cost_of_capital_per_year: Annotated[float, Field(strict=True, ge=0, le=1)] | None = quantity(
        None,
        unit="1/year",
        title="cost of capital",
        description="With it, the monthly capital cost is each capex line annualised by its capital-recovery "
        "factor over its life, / 12 (the servers over depreciation_months, a facility over its "
        "own); without it, straight-line depreciation.",
    )
    provider: Provider | None = Field(
        default=None, description="GPU-hours sold: gives revenue, opex, depreciation, EBIT and NOI a month."
    )
    source: Text = Field(default="", description="Where the depreciation period and support share come from.")
    success_rate: PositiveShare | None = success_rate_field("the model served on the cluster")
    success_rate_source: Text | None = success_source_field()

    @field_validator("server")
    @classmethod
    def _server_known(cls, value: str, info: ValidationInfo) -> str:
        return known_id(value, context_catalog(info).servers, "server", "servers.csv")

    @model_validator(mode="after")
    def _housed_and_run(self) -> OwnCluster:
        if (self.colocation is None) == (self.facility is None):
            raise fail(
                "OwnCluster",
                ("colocation",),
                "housing",
                "give either colocation or facility (where the servers live), not both",
                None,
            )
        staff = self.staffing  # a scaled rule always gives some FTE for the cluster's GPUs
        if staff.fte == 0 and staff.managed_service_per_month == 0:
            raise fail(
                "OwnCluster",
                ("staffing",),
                "nobody_runs_it",
                "no FTE and no managed-service fee: say what operating the cluster costs",
                0,
            )
        return self


class Reserved(InputModel):
    """Reserved or committed rental capacity: paid for every hour of the term, used or not."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            one_of("price_per_gpu_hour", "discount"), when(given("price_per_gpu_hour"), given("currency"))
        )
    )

    term_years: Annotated[Literal[1, 3], NotBoolean] = Field(description="Length of the commitment. [years]")
    price_per_gpu_hour: Positive | None = quantity(
        None, unit="{currency}/GPU-h", title="reserved price", description="Price; or give discount."
    )
    discount: float | None = quantity(
        None,
        unit="-",
        title="reserved discount",
        strict=True,
        ge=0,
        lt=1,
        description="Discount off the on-demand price.",
    )
    currency: Currency | None = Field(default=None, description="Needed with price_per_gpu_hour.")
    source: Source = Field(min_length=1)

    @model_validator(mode="after")
    def _one_price(self) -> Reserved:
        if (self.price_per_gpu_hour is None) == (self.discount is None):
            raise fail("Reserved", ("discount",), "one_price", "give either price_per_gpu_hour or discount", None)
        if self.price_per_gpu_hour is not None and self.currency is None:
            raise fail("Reserved", ("currency",), "missing", "a price needs its currency", None)
        return self


class Spot(InputModel):
    """Spot (interruptible) capacity: a discount off on-demand, paid for in redone work."""

    discount: Annotated[float, Field(strict=True, ge=0, lt=1)] | Literal["catalog"] = quantity(
        unit="-",
        title="spot discount",
        description='Discount off the on-demand price; "catalog" takes the offer\'s spot price in '
        "data/cloud_prices.csv (its spot_price_per_gpu_hour over its on-demand price).",
    )
    interruptions_per_gpu_hour: NonNegative = quantity(unit="1/GPU-h", title="spot interruptions", le=1)
    work_lost_hours_per_interruption: NonNegative = quantity(
        unit="h",
        title="work lost per interruption",
        le=100,
        description="Work redone per interruption: restart plus half a checkpoint interval.",
    )
    max_gpus: Whole | None = quantity(
        None,
        unit="GPU",
        title="most spot GPUs",
        ge=0,
        varies=False,
        le=1_000_000,
        description="Most spot GPUs to be had at once; none: no limit.",
    )
    source: Source = Field(min_length=1)

    @model_validator(mode="after")
    def _progress(self) -> Spot:
        overhead = self.interruptions_per_gpu_hour * self.work_lost_hours_per_interruption
        if overhead >= 1:
            raise fail(
                "Spot",
                ("work_lost_hours_per_interruption",),
                "no_progress",
                "interruptions x work lost = {overhead} of every hour: spot would never finish the work",
                self.work_lost_hours_per_interruption,
                overhead=f"{overhead:.3g}",
            )
        return self


class CloudRental(InputModel):
    """Renting GPUs from a cloud at an on-demand price per GPU-hour."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(equals(billing="always_on"), given("gpu_count")),
            when(equals(billing="per_gpu_hour_used"), absent("gpu_count")),
            when(given("success_rate"), given("success_rate_source")),
        )
    )

    label: OneLine | None = Field(default=None, max_length=80, description="Name shown for the option.")
    offer: str = Field(description="Offer id in data/cloud_prices.csv (gives GPU, price and currency).")
    billing: Literal["always_on", "per_gpu_hour_used"] = Field(
        description="always_on: every rented GPU is paid 730 h a month (24/7); "
        "per_gpu_hour_used: only the GPU-hours the workload uses are paid."
    )
    gpu_count: Whole | None = quantity(
        None,
        unit="GPU",
        title="GPUs rented 24/7",
        ge=1,
        varies=False,
        le=1_000_000,
        description="GPUs rented 24/7; required for always_on, not used for per_gpu_hour_used. "
        "The count steps up if the volume needs more.",
    )
    staffing: Staffing | None = Field(default=None, description="People who run the rented GPUs, if any.")
    reserved: Reserved | None = Field(default=None, description="Reserved capacity, for demand profiles.")
    spot: Spot | None = Field(default=None, description="Spot capacity, for demand profiles.")
    success_rate: PositiveShare | None = success_rate_field("the model served on the rented GPUs")
    success_rate_source: Text | None = success_source_field()

    @field_validator("offer")
    @classmethod
    def _offer_known(cls, value: str, info: ValidationInfo) -> str:
        return known_id(value, context_catalog(info).cloud_offers, "cloud offer", "cloud_prices.csv")

    @model_validator(mode="after")
    def _count_matches_billing(self) -> CloudRental:
        if self.billing == "always_on" and self.gpu_count is None:
            raise fail(
                "CloudRental",
                ("gpu_count",),
                "gpu_count_needed",
                "always_on billing needs the number of GPUs rented",
                None,
            )
        if self.billing == "per_gpu_hour_used" and self.gpu_count is not None:
            raise fail(
                "CloudRental",
                ("gpu_count",),
                "gpu_count_unused",
                "per_gpu_hour_used billing pays for the GPU-hours used, so a GPU count is not used; remove it",
                self.gpu_count,
            )
        return self


class HostedAPI(InputModel):
    """Sending the tokens to a hosted LLM API priced per million tokens."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            when(given("tier_shares"), left_at(service_tier="standard")),
            when(given("cache_write_shares"), left_at(cache_write_share=0, cache_ttl="5m")),
            when(given("success_rate"), given("success_rate_source")),
        )
    )

    label: OneLine | None = Field(default=None, max_length=80, description="Name shown for the option.")
    offer: str = Field(description="Offer id in data/api_prices.csv (gives input, cached input and output prices).")
    cached_input_share: Share = quantity(
        0.0,
        unit="-",
        title="cached input share",
        description="Share of input tokens served from the provider's prompt cache.",
    )
    service_tier: Literal["standard", "batch", "flex", "priority"] = Field(
        default="standard",
        description="The provider's service tier: batch and flex are discounted (about half "
        "price), priority costs more; the factor comes from data/api_prices.csv.",
    )
    cache_write_share: Share = quantity(
        0.0,
        unit="-",
        title="cache write share",
        description="Share of input tokens written to the prompt cache (billed at the cache-write price of cache_ttl).",
    )
    cache_ttl: Literal["5m", "1h"] = Field(
        default="5m", description="Time-to-live of cache writes: 5 minutes or 1 hour (priced higher)."
    )
    cache_write_shares: dict[Literal["5m", "1h"], Share] | None = Field(
        default=None,
        description="Cache writes at both times-to-live in one bill: shares of input tokens written "
        "with a 5-minute and with a 1-hour TTL, e.g. {5m: 0.1, 1h: 0.05}; instead of "
        "cache_write_share and cache_ttl. [-]",
    )
    searches_per_request: NonNegative = quantity(
        0.0,
        unit="searches/request",
        title="web searches per request",
        le=1000,
        description="Web searches a request makes, each billed at the offer's web_search_per_thousand / 1000.",
    )
    citation_tokens_per_request: NonNegative = quantity(
        0.0,
        unit="tokens/request",
        title="citation tokens per request",
        le=100_000_000,
        description="Citation tokens a request is billed for beside input and output, at the offer's "
        "citation_per_million (Perplexity's deep research).",
    )
    audio_input_share: Share = quantity(
        0.0,
        unit="-",
        title="audio share of input tokens",
        description="Share of input tokens that are audio tokens (audio price).",
    )
    image_input_share: Share = quantity(
        0.0,
        unit="-",
        title="image share of input tokens",
        description="Share of input tokens that are image tokens (image price).",
    )
    audio_output_share: Share = quantity(
        0.0,
        unit="-",
        title="audio share of output tokens",
        description="Share of output tokens that are audio tokens (audio price).",
    )
    reasoning_tokens_per_output_token: NonNegative = quantity(
        0.0,
        unit="-",
        title="reasoning tokens per output token",
        le=1000,
        description="Reasoning (thinking) tokens the model bills as output per visible output token.",
    )
    region_uplift: Annotated[float, Field(strict=True, ge=1, le=10)] | Literal["catalog"] = quantity(
        1.0,
        unit="-",
        title="region uplift",
        description='Factor on every price for a regional or data-residency endpoint; "catalog" takes the '
        "offer's region_uplift column.",
    )
    tokens_per_workload_token: Positive = quantity(
        1.0,
        unit="-",
        title="API tokens per workload token",
        le=10,
        description="Tokens the API model counts per token of the workload's own count (tokenizers differ).",
    )

    @field_validator("offer")
    @classmethod
    def _offer_known(cls, value: str, info: ValidationInfo) -> str:
        return known_id(value, context_catalog(info).api_offers, "API offer", "api_prices.csv")

    price_date: Date | None = Field(
        default=None,
        description="The bill's date: the offer's prices (data/api_price_history.csv) and price "
        "windows (data/api_price_windows.csv) in force on it; default: the latest.",
    )
    tier_shares: dict[Literal["standard", "batch", "flex", "priority"], Share] | None = Field(
        default=None,
        description="Traffic split across service tiers, e.g. {batch: 0.3, standard: 0.7}; the "
        "shares sum to 1. Cache reads and writes follow the provider's stacking rule "
        "(data/api_prices.csv tier_applies_to_cache). [-]",
    )
    success_rate: PositiveShare | None = success_rate_field("the API's model")
    success_rate_source: Text | None = success_source_field()

    @model_validator(mode="after")
    def _tiers_sum(self) -> HostedAPI:
        if self.tier_shares is not None:
            total = sum(self.tier_shares.values())
            if abs(total - 1.0) > 1e-9:
                raise fail(
                    "HostedAPI",
                    ("tier_shares",),
                    "shares_not_one",
                    "the tier shares sum to {total}, not 1",
                    self.tier_shares,
                    total=f"{total:g}",
                )
            if self.service_tier != "standard":
                raise fail(
                    "HostedAPI",
                    ("service_tier",),
                    "tier_twice",
                    "give either service_tier or tier_shares, not both",
                    self.service_tier,
                )
        return self

    @model_validator(mode="after")
    def _shares_fit(self) -> HostedAPI:
        if self.cache_write_shares is not None:
            if self.cache_write_share != 0 or self.cache_ttl != "5m":
                raise fail(
                    "HostedAPI",
                    ("cache_write_shares",),
                    "writes_twice",
                    "give either cache_write_shares or cache_write_share with cache_ttl, not both",
                    self.cache_write_shares,
                )
            written = sum(self.cache_write_shares.values())
            if self.cached_input_share + written > 1 + 1e-12:
                raise fail(
                    "HostedAPI",
                    ("cache_write_shares",),
                    "shares_above_one",
                    "cached_input_share + the cache write shares is above 1: more input tokens than there are",
                    self.cache_write_shares,
                )
        if self.audio_input_share + self.image_input_share > 1 + 1e-12:
            raise fail(
                "HostedAPI",
                ("image_input_share",),
                "shares_above_one",
                "audio_input_share + image_input_share is above 1: more input tokens than there are",
                self.image_input_share,
            )
        if self.cached_input_share + self.cache_write_share > 1 + 1e-12:
            raise fail(
                "HostedAPI",
                ("cache_write_share",),
                "shares_above_one",
                "cached_input_share + cache_write_share is above 1: more input tokens than there are",
                self.cache_write_share,
            )
        return self


class LabelledAPI(HostedAPI):
    """One more hosted API offer, compared beside the others under its own name (``api:<name>``)."""

    # Narrower field types than the base's (required here; None only): sound, the models are frozen.
    label: OneLine = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        min_length=1, max_length=80, description="Name shown for the option."
    )
    name: str = Field(
        pattern=SHORT_NAME,
        description="Short key of the option, e.g. "
        "'batch-30': the option is then called 'api:batch-30' in results and JSON.",
    )


class LabelledRental(CloudRental):
    """One more rental offer, compared beside the others under its own name (``rent:<name>``), on demand.

    Reserved and spot terms (and ``finance.rent_commitment``, ``finance.during_lead_time``, a
    demand profile's reserved and spot layers) belong to the main ``options.rent`` only: a
    labelled rental is priced at its offer's on-demand price, billed as ``billing`` says.
    """

    # Narrower field types than the base's (required here; None only): sound, the models are frozen.
    label: OneLine = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        min_length=1, max_length=80, description="Name shown for the option."
    )
    name: str = Field(
        pattern=SHORT_NAME,
        description="Short key of the option, e.g. "
        "'nebius': the option is then called 'rent:nebius' in results and JSON.",
    )
    reserved: None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="Not taken here: reserved terms belong to options.rent."
    )
    spot: None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="Not taken here: spot terms belong to options.rent."
    )

    @model_validator(mode="before")
    @classmethod
    def _on_demand_only(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for field in ("reserved", "spot"):
                if data.get(field) is not None:
                    raise fail(
                        "LabelledRental",
                        (field,),
                        "main_rent_only",
                        "{field} terms are taken by the main options.rent only: an options.rents entry is "
                        "priced on demand (its offer's price_per_gpu_hour); move the {field} block to "
                        "options.rent, or remove it",
                        data[field],
                        field=field,
                    )
        return data


_PRICES = (
    "storage_price_per_gb_month",
    "egress_price_per_gb",
    "cpu_node_price_per_hour",
    "support_minimum_per_month",
    "own_storage_price_per_tb",
    "own_cpu_node_price",
    "own_transit_price_per_gb",
)
"""The money fields of :class:`DataAndSupport`: any of them needs the block's currency."""


class DataAndSupport(InputModel):
    """The workload's data and its running besides the GPUs: data stored, data sent out, CPU nodes, support.

    Each GPU option then carries the same kinds of line for these quantities. A rent option pays
    its cloud's rates (data/cloud_extras.csv, by the offer's provider; a price given here wins):
    storage = TB × 1,000 × price per GB-month, egress = TB/month × 1,000 × price per GB, CPU
    nodes = nodes × 730 h × price per hour, support = max(share × the rest of its bill, minimum).
    The own cluster buys the storage and the CPU nodes (bill-of-materials lines, unless it
    already has a storage line), pays its transit per GB sent out, and its support is its
    hardware support. The API option carries none of them.
    """

    model_config = ConfigDict(json_schema_extra=rules(*(when(given(name), given("currency")) for name in _PRICES)))

    stored_tb: NonNegative = quantity(
        0.0,
        unit="TB",
        title="data stored",
        le=1e6,
        description="Data kept next to the GPUs: datasets, checkpoints, models.",
    )
    storage_class: Literal["object", "block"] = Field(
        default="object",
        description="Which of the cloud's storage prices applies: object storage, or block and shared-filesystem.",
    )
    egress_tb_per_month: NonNegative = quantity(
        0.0, unit="TB/month", title="data sent out", le=1e6, description="Data sent out to the internet each month."
    )
    cpu_nodes: Whole = quantity(
        0,
        unit="nodes",
        title="CPU nodes",
        ge=0,
        le=10_000,
        varies=False,
        description="CPU-only nodes running all month beside the GPUs: head, login, scheduler or gateway nodes.",
    )
    support_share: Annotated[float, Field(strict=True, ge=0, le=1)] | Literal["catalog"] | None = quantity(
        None,
        unit="-",
        title="cloud support share",
        description='A rent option\'s paid support plan as a share of its cloud bill; "catalog" takes the '
        "provider's support_share and support_minimum_per_month in data/cloud_extras.csv; none: no plan.",
    )
    storage_price_per_gb_month: NonNegative | None = quantity(
        None,
        unit="{currency}/GB-month",
        title="cloud storage price",
        description="Instead of the catalog's price of storage_class for every rent option.",
    )
    egress_price_per_gb: NonNegative | None = quantity(
        None, unit="{currency}/GB", title="cloud egress price", description="Instead of the catalog's egress price."
    )
    cpu_node_price_per_hour: NonNegative | None = quantity(
        None, unit="{currency}/h", title="cloud CPU node price", description="Instead of the catalog's CPU-node price."
    )
    support_minimum_per_month: NonNegative | None = quantity(
        None,
        unit="{currency}/month",
        title="cloud support minimum",
        description="The support plan's monthly minimum, with a support_share given as a number (default 0).",
    )
    own_storage_price_per_tb: NonNegative | None = quantity(
        None,
        unit="{currency}/TB",
        title="own storage capex",
        description="Price of one TB of storage bought for the own cluster; needed with stored data unless "
        "its bill of materials has a storage line.",
    )
    own_cpu_node_price: NonNegative | None = quantity(
        None,
        unit="{currency}/node",
        title="own CPU node capex",
        description="Price of one CPU node bought for the own cluster; needed with CPU nodes.",
    )
    own_transit_price_per_gb: NonNegative | None = quantity(
        None,
        unit="{currency}/GB",
        title="own transit price",
        description="The colocation's IP transit per GB sent out; needed with data sent out "
        "(0 when the colocation price includes it).",
    )
    currency: Currency | None = Field(default=None, description="Needed with any price given here.")
    source: Text = Field(default="", description="Where the quantities and prices come from, or ASSUMPTION.")

    @model_validator(mode="after")
    def _priced_in_a_currency(self) -> DataAndSupport:
        for name in _PRICES:
            if getattr(self, name) is not None and self.currency is None:
                raise fail(
                    "DataAndSupport", ("currency",), "missing", "a price ({name}) needs its currency", None, name=name
                )
        return self


_ONE_EACH = [
    given("own"),
    given("rent"),
    given("api"),
    inside("rents", {"minItems": 1}),
    inside("apis", {"minItems": 1}),
]
"""JSON Schema: the scenario holds that option (or, for rents and apis, one of them at least)."""


OPTION_LABELS: dict[str, str] = {"own": "Own cluster", "rent": "Cloud rental", "api": "Hosted API"}
"""Default display names of the kinds of option."""


class Options(InputModel):
    """The options compared; at least two must be given (any number of API and rental offers counts each)."""

    model_config = ConfigDict(
        json_schema_extra=rules(
            either(
                *[both(a, b) for i, a in enumerate(_ONE_EACH) for b in _ONE_EACH[i + 1 :]],
                inside("rents", {"minItems": 2}),
                inside("apis", {"minItems": 2}),
            )
        )
    )

    own: OwnCluster | None = Field(default=None, description="Buying GPU servers and running them.")
    rent: CloudRental | None = Field(default=None, description="Renting GPUs from a cloud per GPU-hour.")
    api: HostedAPI | None = Field(default=None, description="A hosted LLM API priced per million tokens.")
    apis: list[LabelledAPI] = Field(
        default_factory=list, max_length=20, description="More hosted API offers, each with its own label and name."
    )
    rents: list[LabelledRental] = Field(
        default_factory=list,
        max_length=20,
        description="More rental offers, each with its own label and name, on "
        "demand (reserved and spot terms: options.rent only).",
    )

    @model_validator(mode="after")
    def _names_unique(self) -> Options:
        pairs: tuple[tuple[str, LiteralString], ...] = (("apis", "API offers"), ("rents", "rental offers"))
        for field, what in pairs:
            names = [a.name for a in getattr(self, field)]
            for index, name in enumerate(names):
                if name in names[:index]:
                    raise fail(
                        "Options",
                        (field, index, "name"),
                        "duplicate_name",
                        "two " + what + " are called {name}; give each its own name",
                        name,
                        name=name,
                    )
        return self

    @model_validator(mode="after")
    def _labels_unique(self) -> Options:
        # every chart, table and workbook tells the options apart by their labels: two options named
        # alike would be drawn as one line and stacked into one bar
        seen: dict[str, str] = {}
        places = [
            (field, (field, "label"), getattr(self, field).label or default)
            for field, default in OPTION_LABELS.items()
            if getattr(self, field) is not None
        ]
        places += [
            (f"{field}.{index}", (field, index, "label"), item.label)
            for field in ("apis", "rents")
            for index, item in enumerate(getattr(self, field))
        ]
        for where, loc, label in places:
            key = " ".join(label.split()).casefold()
            if key in seen:
                raise fail(
                    "Options",
                    loc,
                    "duplicate_label",
                    "the same label as options.{other}'s; charts and tables "
                    "tell the options apart by their labels: give each its own",
                    label,
                    other=seen[key],
                )
            seen[key] = where
        return self


__all__ = [
    "OPTION_LABELS",
    "AssetClass",
    "CapexLine",
    "CloudRental",
    "Colocation",
    "DataAndSupport",
    "Facility",
    "HostedAPI",
    "LabelledAPI",
    "LabelledRental",
    "Options",
    "OwnCluster",
    "Power",
    "Provider",
    "Reserved",
    "SoftwareLicences",
    "Spot",
    "Staffing",
]

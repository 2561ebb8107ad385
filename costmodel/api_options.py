"""A hosted API option resolved: the offer's prices on the bill's date, in the reporting currency, with every
billing word applied once (service tiers, cache writes, reasoning, modalities, region uplift, long-context
tiers, per-request fees) and the price windows of the clock.

:func:`resolve_api_option` is what :func:`costmodel.resolved.resolve` calls for ``options.api`` and each of
``options.apis``; the prices are blended by :func:`costmodel.formulas.api_price_parts`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import formulas
from .catalog import APIOffer, Catalog
from .errors import scenario_problem
from .schema.options import OPTION_LABELS, HostedAPI
from .sizing import WorkloadInputs

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""


@dataclass(frozen=True)
class ApiOption:
    """A hosted API, resolved: prices [reporting currency/M tokens] and the blended price of the mix."""

    name: str
    label: str
    offer: APIOffer
    input_price_per_million: Number
    cached_input_price_per_million: Number
    output_price_per_million: Number
    cached_input_share: Number
    price_per_million: Number
    kind: str = "api"
    service_tier: str = "standard"
    tier_multiplier: Number = 1.0
    cache_write_share: Number = 0.0
    cache_write_price_per_million: Number | None = None
    reasoning_tokens_per_output_token: Number = 0.0
    region_uplift: Number = 1.0
    tokens_per_workload_token: Number = 1.0
    long_context: bool = False
    price_parts: dict[str, Number] | None = None
    """:func:`costmodel.formulas.api_price_parts`: input, cache_read, cache_write, output [currency/M tokens]."""
    hour_price_factors: np.ndarray | None = None
    """Factor on the prices in each hour of the demand profile (or of a week from Monday 00:00 UTC without
    one), from the offer's price windows; None: the same price at every hour. [-]"""
    price_windows: tuple = ()
    """The price-window rows applied (data/api_price_windows.csv)."""
    hour_part_factors: dict[str, np.ndarray] | None = None
    """Factor on each price part (``price_parts``' keys) in each hour, where windows apply to some token
    classes only; None: no price windows. [-]"""


def _offer_on(
    offer: APIOffer, catalog: Catalog | None, price_date: Any, where: str = "options.api"
) -> tuple[APIOffer, str | None]:
    """The offer's prices on the bill's date: its row, or its latest change (data/api_price_history.csv)
    effective on that date (the latest of all without a date); and the date the prices are from.

    Raises
    ------
    ScenarioError
        The bill's date is before every price the catalog holds for the offer.
    """
    changes = [c for c in (catalog.api_price_history.values() if catalog is not None else ()) if c.offer == offer.offer]
    day = price_date.isoformat() if price_date is not None else None
    candidates = [(offer.effective_from or "0000-00-00", None)] + [
        (c.effective_from or "0000-00-00", c) for c in changes
    ]
    in_force = [item for item in candidates if day is None or item[0] <= day]
    if not in_force:
        first = min(item[0] for item in candidates)
        raise scenario_problem(
            f"{where}.price_date",
            day,
            f"before {first}, the first day the catalog holds a price for "
            f"{offer.offer} (effective_from): no price is known for that day",
        )
    if not changes:
        return offer, offer.effective_from
    when, change = max(in_force, key=lambda item: item[0])
    if change is None:
        return offer, offer.effective_from
    update = {name: getattr(change, name) for name in change.PRICES if getattr(change, name) is not None}
    return offer.model_copy(update=update), when


def _tier_prices(offer: APIOffer, catalog: Catalog | None, rate: Number) -> dict[str, list] | None:
    """The offer's prompt-size tiers (data/api_price_tiers.csv) by token class, in the reporting currency."""
    tiers: dict[str, list] = {}
    for row in catalog.api_price_tiers.values() if catalog is not None else ():
        if row.offer == offer.offer:
            tiers.setdefault(row.token_class, []).append((row.above_input_tokens, row.price_per_million * rate))
    return tiers or None


def resolve_api_option(
    name: str,
    api: HostedAPI,
    offer: APIOffer,
    work: Any,
    workload: WorkloadInputs,
    fx: Callable[[str], Number],
    index: int | None = None,
    catalog: Catalog | None = None,
    demand: Any = None,
) -> ApiOption:
    """The API option with its billing words applied once, by :func:`costmodel.formulas.api_price_parts`.

    Parameters
    ----------
    name
        The option's name (``api`` or ``api:<name>``).
    api
        The scenario's API block (``options.api``, or ``options.apis[index]``).
    offer
        The offer's catalog row, with any sampled prices in it.
    work
        The scenario's workload block (for the input tokens of a request).
    workload
        The resolved workload (the mix).
    fx
        Reporting currency per unit of a currency. [reporting currency/currency]
    index
        The place in ``options.apis``; None for ``options.api``.
    catalog
        The catalog holding the offer's price history, prompt-size tiers and price windows.
    demand
        The resolved demand profile (the hours the price windows are laid on), or None.

    Raises
    ------
    ScenarioError
        A billing word the offer has no price for, a date before its first price, a retired
        long-context tier; the field is named.
    """
    where = "options.api" if index is None else f"options.apis.{index}"
    rate = fx(offer.currency)
    offer, _ = _offer_on(offer, catalog, api.price_date, where)
    cached = offer.cached_input_per_million if offer.cached_input_per_million is not None else offer.input_per_million
    output = offer.output_per_million * rate if offer.output_per_million is not None else None
    if output is None and not workload.input_only:
        raise scenario_problem(
            f"{where}.offer",
            offer.offer,
            f"{offer.offer} is an input-only offer (no output price, as "
            "for embeddings): it prices a workload without output tokens "
            "(workload.input_only: true)",
        )
    prices = (offer.input_per_million * rate, cached * rate, output)
    shares, factors = _tier_factors(api, offer, where)
    tier = sum(share * factors[t] for t, share in shares.items())
    writes, write_prices = _cache_writes(api, offer, where, rate)
    write = write_prices.get("5m", write_prices.get("1h"))  # the 5-minute price when both are written
    uplift = _region_uplift(api, offer, where)
    per_request = work.input_tokens_per_request
    if per_request is None and work.serving is not None and work.serving.request is not None:
        per_request = work.serving.request.input_tokens
    long_context, is_long = _long_context(api, offer, catalog, rate, per_request, where)
    common = dict(
        cache_write_price=write,
        cache_write_share=writes.get("5m", 0.0) if len(write_prices) > 1 else sum(writes.values()),
        reasoning_tokens_per_output_token=api.reasoning_tokens_per_output_token,
        region_uplift=uplift,
        tokens_per_workload_token=api.tokens_per_workload_token,
        **_api_words(api, offer, where, rate, write_prices, per_request),
    )
    if len(write_prices) > 1:
        common.update(cache_write_1h_price=write_prices["1h"], cache_write_1h_share=writes["1h"])
    parts, standard_parts = _price_parts(
        prices,
        workload.input_tokens_per_output_token,
        api,
        offer,
        shares,
        factors,
        common,
        long_context,
        is_long,
        per_request,
    )
    price = sum(parts.values())
    windows = _windows_in_force(catalog, offer.offer, api.price_date)
    hour_factors, part_factors = _window_factors(windows, demand, parts, standard_parts if is_long else None)
    return ApiOption(
        name=name,
        label=api.label or OPTION_LABELS["api"],
        offer=offer,
        input_price_per_million=prices[0],
        cached_input_price_per_million=prices[1],
        output_price_per_million=prices[2] if prices[2] is not None else 0.0,
        cached_input_share=api.cached_input_share,
        price_per_million=price,
        service_tier=api.service_tier,
        tier_multiplier=tier,
        cache_write_share=sum(writes.values()),
        cache_write_price_per_million=write,
        reasoning_tokens_per_output_token=api.reasoning_tokens_per_output_token,
        region_uplift=uplift,
        tokens_per_workload_token=api.tokens_per_workload_token,
        long_context=is_long,
        price_parts=parts,
        hour_price_factors=hour_factors,
        price_windows=windows,
        hour_part_factors=part_factors,
    )


def _window_factors(
    windows: tuple[Any, ...], demand: Any, parts: dict[str, Any], standard_parts: dict[str, Any] | None
) -> tuple[np.ndarray | None, dict[str, np.ndarray] | None]:
    """Each hour's factor on the whole price (the parts' factors weighted by their mean prices) and on each
    price part, from the price windows in force; (None, None) without windows. [-]"""
    if not windows:
        return None, None
    part_factors = _hour_part_factors(windows, demand, parts, standard_parts)
    weights = {k: float(np.mean(np.asarray(v, dtype=float))) for k, v in parts.items()}
    total = sum(weights.values())
    hour_factors = np.asarray(
        sum(weights[k] * part_factors[k] for k in weights) / total if total > 0 else next(iter(part_factors.values()))
    )
    return hour_factors, part_factors


def _tier_factors(api: HostedAPI, offer: APIOffer, where: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The service tiers' shares of the traffic and each tier's price multiplier (1 for standard). [-]"""
    stated = api.tier_shares or {api.service_tier: 1.0}
    shares: dict[str, Any] = {str(tier): share for tier, share in stated.items()}
    factors = {}
    for name_of_tier in shares:
        factors[name_of_tier] = 1.0 if name_of_tier == "standard" else getattr(offer, f"{name_of_tier}_multiplier")
        if factors[name_of_tier] is None:
            field = "tier_shares" if api.tier_shares else "service_tier"
            raise scenario_problem(
                f"{where}.{field}",
                name_of_tier,
                f"{offer.offer} has no {name_of_tier} tier in data/api_prices.csv ({name_of_tier}_multiplier is empty)",
            )
    return shares, factors


def _cache_writes(api: HostedAPI, offer: APIOffer, where: str, rate: Number) -> tuple[dict[str, Any], dict[str, Any]]:
    """The cache-write shares by time-to-live, and the price of each written. [-], [reporting currency/M tokens]"""
    stated = api.cache_write_shares if api.cache_write_shares is not None else {api.cache_ttl: api.cache_write_share}
    writes: dict[str, Any] = {str(ttl): share for ttl, share in stated.items()}
    write_prices: dict[str, Any] = {}
    for ttl, written in writes.items():
        if np.any(np.asarray(written) > 0):  # an array of shares in a sweep
            column = f"cache_write_{ttl}_per_million"
            price = getattr(offer, column)
            if price is None:
                field = "cache_write_shares" if api.cache_write_shares is not None else "cache_ttl"
                raise scenario_problem(
                    f"{where}.{field}",
                    ttl,
                    f"{offer.offer} has no cache-write price for a {ttl} time-to-live in "
                    f"data/api_prices.csv ({column} is empty)",
                )
            write_prices[ttl] = price * rate
    return writes, write_prices


def _region_uplift(api: HostedAPI, offer: APIOffer, where: str) -> Number:
    """The regional uplift factor: as given, or the offer's own (``catalog``). [-]"""
    uplift = api.region_uplift
    if isinstance(uplift, str) and uplift == "catalog":
        if offer.region_uplift is None:
            raise scenario_problem(
                f"{where}.region_uplift",
                uplift,
                f"{offer.offer} states no region uplift in data/api_prices.csv; give the factor",
            )
        uplift = offer.region_uplift
    return uplift


def _long_context(
    api: HostedAPI, offer: APIOffer, catalog: Catalog | None, rate: Number, per_request: Any, where: str
) -> tuple[dict[str, Any], bool]:
    """The words of :func:`costmodel.formulas.api_price_parts` for prompt-size tiers or a long-context price, and
    whether a request is long; a problem where the long-context tier was retired before the bill's date."""
    long_context: dict[str, Any] = {}
    is_long = False
    tiers = _tier_prices(offer, catalog, rate)
    if (offer.long_context_threshold_tokens is None and not tiers) or per_request is None:
        return long_context, is_long
    if tiers:
        long_context = dict(input_tokens_per_request=per_request, context_tiers=tiers)
        lowest = min(t for class_tiers in tiers.values() for t, _ in class_tiers)
    else:
        lowest = offer.long_context_threshold_tokens
        long_context = dict(
            input_tokens_per_request=per_request,
            long_context_threshold=lowest,
            long_context_input_price=offer.long_context_input_per_million * rate,
            long_context_output_price=offer.long_context_output_per_million * rate,
        )
    is_long = bool(np.any(np.asarray(api.tokens_per_workload_token * per_request) > lowest))
    until = offer.long_context_until
    if is_long and until is not None and (api.price_date is None or api.price_date.isoformat() > until):
        raise scenario_problem(
            f"{where}.price_date",
            api.price_date.isoformat() if api.price_date else None,
            f"{offer.offer}'s long-context tier (requests above {lowest:,} input tokens) was retired "
            f"after {until}: the provider no longer takes such requests; give price_date on or "
            f"before {until} to price an earlier bill, keep requests at or below {lowest:,} input "
            f"tokens, or choose another offer",
        )
    return long_context, is_long


def _price_parts(
    prices: tuple[Any, Any, Any],
    ratio: Number,
    api: HostedAPI,
    offer: APIOffer,
    shares: dict[str, Any],
    factors: dict[str, Any],
    common: dict[str, Any],
    long_context: dict[str, Any],
    is_long: bool,
    per_request: Any,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The price parts blended over the service tiers by share of traffic, and (for long requests) the same at
    the standard prices, which a price window with ``long_context: standard`` bills at. [reporting currency/M tokens]"""
    parts: dict[str, Any] = {}
    standard_parts: dict[str, Any] = {}
    for name_of_tier, share in shares.items():  # a blend of tiers by share of traffic
        factor = factors[name_of_tier]
        words = dict(
            common,
            tier_multiplier=factor,
            cache_tier_multiplier=factor if offer.tier_applies_to_cache else 1.0,
        )
        # one input_tokens_per_request when both a fee (``words``) and a prompt-size tier need it
        tier_parts = formulas.api_price_parts(
            prices[0], prices[2], ratio, prices[1], api.cached_input_share, **{**words, **long_context}
        )
        parts = {k: parts.get(k, 0.0) + share * v for k, v in tier_parts.items()}
        if is_long:
            plain = formulas.api_price_parts(
                prices[0],
                prices[2],
                ratio,
                prices[1],
                api.cached_input_share,
                **{**words, "input_tokens_per_request": per_request or 0.0},
            )
            standard_parts = {k: standard_parts.get(k, 0.0) + share * v for k, v in plain.items()}
    return parts, standard_parts


def _api_words(api: Any, offer: APIOffer, where: str, rate: Number, write_prices: dict, per_request: Any) -> dict:
    """The further billing words of :func:`costmodel.formulas.api_price_parts` an offer and option give: a
    separate reasoning price, modality prices, per-request and per-search fees."""
    words: dict[str, Any] = {}
    if offer.reasoning_per_million is not None:
        words["reasoning_price"] = offer.reasoning_per_million * rate
    for share, column, word in (
        ("audio_input_share", "input_audio_per_million", "audio_input_price"),
        ("image_input_share", "input_image_per_million", "image_input_price"),
        ("audio_output_share", "output_audio_per_million", "audio_output_price"),
    ):
        value = getattr(api, share)
        if np.any(np.asarray(value) > 0):
            if getattr(offer, column) is None:
                raise scenario_problem(
                    f"{where}.{share}",
                    value,
                    f"{offer.offer} has no price for these tokens in data/api_prices.csv ({column} is empty)",
                )
            words[share] = value
            words[word] = getattr(offer, column) * rate
    if "audio_input_price" in words and offer.cached_audio_input_per_million is not None:
        words["cached_audio_input_price"] = offer.cached_audio_input_per_million * rate
    if "image_input_price" in words and offer.cached_image_input_per_million is not None:
        words["cached_image_input_price"] = offer.cached_image_input_per_million * rate
    if np.any(np.asarray(api.searches_per_request) > 0) and offer.web_search_per_thousand is None:
        raise scenario_problem(
            f"{where}.searches_per_request",
            api.searches_per_request,
            f"{offer.offer} has no web-search price in data/api_prices.csv (web_search_per_thousand is empty)",
        )
    citations = np.any(np.asarray(api.citation_tokens_per_request) > 0)
    if citations and offer.citation_per_million is None:
        raise scenario_problem(
            f"{where}.citation_tokens_per_request",
            api.citation_tokens_per_request,
            f"{offer.offer} has no citation-token price in data/api_prices.csv (citation_per_million is empty)",
        )
    fees = offer.per_thousand_requests is not None or np.any(np.asarray(api.searches_per_request) > 0) or citations
    if fees and per_request is None:
        raise scenario_problem(
            "workload.input_tokens_per_request",
            None,
            f"{offer.offer} bills per request or per search: give the input tokens of one request "
            f"(workload.input_tokens_per_request) so requests can be counted",
        )
    if offer.per_thousand_requests is not None:
        words["request_fee"] = offer.per_thousand_requests / 1000.0 * rate
    if np.any(np.asarray(api.searches_per_request) > 0):
        assert offer.web_search_per_thousand is not None  # refused above without it
        words.update(
            searches_per_request=api.searches_per_request, search_fee=offer.web_search_per_thousand / 1000.0 * rate
        )
    if citations:
        words.update(
            citation_tokens_per_request=api.citation_tokens_per_request,
            citation_price=offer.citation_per_million * rate,
        )
    if words.get("request_fee") or "search_fee" in words or citations:
        words["input_tokens_per_request"] = per_request
    return words


def _windows_in_force(catalog: Catalog | None, offer: str, price_date: Any) -> tuple:
    """An offer's price windows on the bill's date: those of its latest effective date on or before it
    (the latest of all without a date), in file order; a later schedule replaces an earlier one whole."""
    rows = [w for w in (catalog.api_price_windows.values() if catalog is not None else ()) if w.offer == offer]
    day = price_date.isoformat() if price_date is not None else None
    dates = sorted({w.effective_from for w in rows if day is None or w.effective_from <= day})
    if not dates:
        return ()
    return tuple(w for w in rows if w.effective_from == dates[-1])


@functools.lru_cache(maxsize=32)
def _utc_offsets(time_zone: str, start: Any, count: int) -> np.ndarray:
    """Offset of ``time_zone`` from UTC at each of ``count`` half hours from ``start`` (UTC), in minutes."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(time_zone)
    minutes = [
        int((start + dt.timedelta(minutes=30 * h)).astimezone(zone).utcoffset().total_seconds() // 60)
        for h in range(count)
    ]
    return np.array(minutes).astype("timedelta64[m]")


@functools.lru_cache(maxsize=64, typed=True)
def _window_half_hours(
    time_zone: str, days: tuple[int, ...], start_hour: float, end_hour: float, start: Any, count: int
) -> np.ndarray:
    """Whether each of ``2 * count`` half hours from ``start`` (UTC) lies in a price window: on one of its
    ``days`` (0 = Monday) from ``start_hour`` to ``end_hour`` in its ``time_zone``. Kept by these values for
    the last 64 windows (the scenarios of a batch share their API offers' windows); read-only. [-]"""
    utc = np.datetime64(start.replace(tzinfo=None), "m") + 30 * np.arange(2 * count)
    local = utc if time_zone == "UTC" else utc + _utc_offsets(time_zone, start, 2 * count)
    minute = (local - local.astype("datetime64[D]")).astype(int)
    day = (local.astype("datetime64[D]").astype(int) + 3) % 7  # 1970-01-01 was a Thursday
    inside = np.isin(day, list(days)) & (minute >= 60 * start_hour) & (minute < 60 * end_hour)
    inside.flags.writeable = False
    return inside


WINDOW_CLASSES = (
    "input",
    "cache_read",
    "cache_write",
    "output",
    "reasoning",
    "audio_input",
    "image_input",
    "audio_output",
)
"""Token classes (price parts) a price window's ``applies_to`` may name."""


def _hour_part_factors(windows: tuple, demand: Any, parts: dict, standard_parts: dict | None) -> dict[str, np.ndarray]:
    """Each hour's factor on each price part: per half hour, the first window (in file order) holding it and
    applying to the part, else 1; an hour's factor is the mean of its two half hours. [-]

    Hours are those of the demand profile: from 1 January of its year in its time zone for a
    job log or request log, else from a Monday 00:00 UTC; without a profile, one week from
    Monday 00:00 UTC. A window with ``long_context: standard`` bills a long request inside it at
    the standard prices times its factor (``standard_parts`` over ``parts``). Per-request fees
    are not token prices: their factor is 1.
    """
    import datetime as dt
    from zoneinfo import ZoneInfo

    profile = getattr(demand, "profile", None)
    count = demand.hours if demand is not None else 168
    if profile is not None and getattr(profile, "year", None) is not None:
        start = dt.datetime(profile.year, 1, 1, tzinfo=ZoneInfo(profile.time_zone)).astimezone(dt.UTC)
    else:
        start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)  # a Monday
    found = {part: np.full(2 * count, np.nan) for part in parts if part not in ("request_fees", "citation_tokens")}
    for window in windows:
        days = tuple(sorted(window.day_set()))
        inside = _window_half_hours(window.time_zone, days, window.start_hour, window.end_hour, start, count)
        classes = WINDOW_CLASSES if window.applies_to == "all" else window.applies_to.split(";")
        for part in classes:
            if part not in found:
                continue
            factor = window.price_multiplier
            if window.long_context == "standard" and standard_parts is not None:
                listed = float(np.mean(np.asarray(parts[part], dtype=float)))
                factor = (
                    factor * float(np.mean(np.asarray(standard_parts[part], dtype=float))) / listed
                    if listed > 0
                    else factor
                )
            found[part] = np.where(np.isnan(found[part]) & inside, factor, found[part])
    out = {part: np.where(np.isnan(f), 1.0, f).reshape(count, 2).mean(axis=1) for part, f in found.items()}
    for fee in ("request_fees", "citation_tokens"):  # billed per request, not by the clock
        if fee in parts:
            out[fee] = np.ones(count)
    return out


__all__ = ["WINDOW_CLASSES", "ApiOption", "resolve_api_option"]

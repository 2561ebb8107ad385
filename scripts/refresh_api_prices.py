"""Write data/api_prices.csv from the price data shipped in pydantic's ``genai-prices`` package.

Usage::

    pip install "costmodel[prices]"                # genai-prices==0.2.3, MIT licence
    python scripts/refresh_api_prices.py           # rewrites data/api_prices.csv, api_price_windows.csv,
                                                   # api_price_tiers.csv, api_price_history.csv and
                                                   # data/sources/genai-prices/not_imported.csv
    python scripts/refresh_api_prices.py --check   # exit 1 and print the rows that differ; writes nothing

``genai-prices`` ships its price table inside the package (``genai_prices.data``), so this runs
offline: it never calls the package's live updater. Every text-generation model of every
provider in the package (a model with a price per input and per output text token), and every
embedding model priced per input token (an input-only offer, no output price), becomes one
offer: id ``<provider id>-<model id>`` (lowercase, every run of other characters as ``-``), the
provider's display name, the model's name, the input, cache-read, cache-write (5-minute and
1-hour time-to-live) and output prices in force on :data:`EFFECTIVE` (the package's price
history resolved as the package does) with the date they start (``effective_from``), the
reasoning, audio and image token prices, the fees per 1,000 requests and per 1,000 web searches
(:data:`EXTRA_COLUMN_OF`), a long-context tier when every tiered price has one tier at one
threshold and the cache prices scale with the input's, else the prompt-size tiers as rows of
data/api_price_tiers.csv, the batch / flex / priority factors and a route's regional uplift from
the package's price variants when one factor fits every price, and grade S (a maintained
transcription of the provider's page, which the source column names). The package keeps no
per-price check date, so ``as_of`` is the package's release date (:data:`RELEASED`). Prices
by the time of day become rows of data/api_price_windows.csv (one per group of token classes
sharing a factor, ``applies_to``); the dated prices before and after the one in force become
rows of data/api_price_history.csv. Retired long-context tiers the provider states
(:data:`RETIRED_LONG_CONTEXT`) set ``long_context_until`` with the statement in the notes.

What the package has but an offer cannot hold (models without an output price that are no
embeddings, storage searches, video and image-output prices, service tiers the catalog lacks,
the package's first price where it has no start date, variants that are no single factor, prices
breaking a catalog rule) is written to data/sources/genai-prices/not_imported.csv with the
reason, and counted on stderr.

Rows the script does not generate are carried through unchanged: rows outside the package
(e.g. the DeepSeek-V3 price of 2025) and rows whose notes start with ``override``. The rows
``MAPPING`` names keep their ids and wording; their prices are refreshed from the package, and
their ``as_of`` moves to the release date only when a price changes.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import re
import sys
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path

from catalog_diff import differences  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "data" / "api_prices.csv"
WINDOWS_CSV = ROOT / "data" / "api_price_windows.csv"
TIERS_CSV = ROOT / "data" / "api_price_tiers.csv"
HISTORY_CSV = ROOT / "data" / "api_price_history.csv"
NOT_IMPORTED_CSV = ROOT / "data" / "sources" / "genai-prices" / "not_imported.csv"

PACKAGE, PINNED = "genai-prices", "0.2.3"
RELEASED = "2026-11-10"
"""Upload date of genai_prices-0.2.3-py3-none-any.whl on PyPI: ``pip download genai-prices==0.2.3
--uploaded-prior-to`` finds it with 2026-11-11T00:00Z and not with 2026-11-10T00:00Z (the wheel's
own file dates are the reproducible-build 2020-02-02, and its metadata has no date)."""
EFFECTIVE = dt.date(2026, 12, 2)
"""The day whose prices the offers hold, where the package has a price history."""
TOLERANCE = Decimal("0.001")
"""Relative difference under which two price ratios count as one factor (cents rounded by the provider)."""

MAPPING = {
    # catalog offer id: (genai-prices provider id, model id); rows written before this script generated
    # the whole file, kept with their ids and wording (bundled scenarios use them)
    "anthropic-claude-opus-4-5": ("anthropic", "claude-opus-4-5"),
    "anthropic-claude-sonnet-4-5": ("anthropic", "claude-sonnet-4-5"),
    "anthropic-claude-haiku-4-5": ("anthropic", "claude-haiku-4-5"),
    "groq-llama-3-3-70b-versatile": ("groq", "llama-3.3-70b-versatile"),
    "together-llama-3-3-70b-turbo": ("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"),
}
HAND_KEPT = {
    # catalog offer id kept by hand: the package model it stands for (not generated a second time)
    "deepseek-v4-1-flash": ("deepseek", "deepseek-flash"),
}
TIERS = {
    ("processing", "batch"): "batch_multiplier",
    ("service_tier", "flex"): "flex_multiplier",
    ("service_tier", "priority"): "priority_multiplier",
}
"""Price variants (the package's request context) that are a service tier of the catalog."""
REGION_KEY = "route"
"""A price variant by route (e.g. mistral/eu) is a regional endpoint: region_uplift."""
ZONES = {0: "UTC", 330: "Asia/Kolkata"}
"""Time zones (UTC offset in minutes, none with daylight saving) a window's whole hours may be written in; a
window on the half hour in none of them is written in UTC with half-hour edges (0.5 = 00:30)."""
EMBEDDING = re.compile(r"embed|(^|[/@-])(bge|gte)-(?!reranker)|^voyage-")
"""An embedding model, by its package id (lowercase) or name: an input-only offer (no output price) when priced
per token."""
NOT_TEXT_GENERATION = [
    # (pattern on the package's model id, lowercase: why a model priced per input and output token is no
    # text-generation offer)
    (r"(^|[^a-z])tts([^a-z]|$)", "speech synthesis: its output tokens are audio"),
    (r"transcri|whisper", "speech to text: its input is audio"),
    (r"(^|/)(gpt-image|chatgpt-image|ming-image)", "image generation: its output tokens are image tokens"),
    (r"moderation", "moderation classifier: no text output"),
]
RETIRED_LONG_CONTEXT = {
    # catalog offer id: (last day the long-context tier was offered, the provider's statement)
    "anthropic-claude-sonnet-4-5": (
        "2026-04-30",
        "Anthropic ended the 1M-context beta (header "
        "context-1m-2025-08-07) for Claude Sonnet 4.5 and Sonnet 4 on 30 April 2026: "
        "platform.claude.com/docs/en/build-with-claude/context-windows and "
        "platform.claude.com/docs/en/about-claude/pricing",
    ),
    "anthropic-claude-sonnet-4-0": (
        "2026-04-30",
        "Anthropic ended the 1M-context beta (header "
        "context-1m-2025-08-07) for Claude Sonnet 4.5 and Sonnet 4 on 30 April 2026: "
        "platform.claude.com/docs/en/build-with-claude/context-windows and "
        "platform.claude.com/docs/en/about-claude/pricing",
    ),
}
"""Long-context tiers the provider has retired (``long_context_until``), stated by the provider, not the package."""

TEXT_KEYS = ("input_mtok", "cache_read_mtok", "cache_write_mtok", "cache_write_1h_mtok", "output_mtok")
CACHE_KEYS = TEXT_KEYS[1:4]
COLUMN_OF = {
    "input_mtok": "input_per_million",
    "cache_read_mtok": "cached_input_per_million",
    "cache_write_mtok": "cache_write_5m_per_million",
    "cache_write_1h_mtok": "cache_write_1h_per_million",
    "output_mtok": "output_per_million",
}
EXTRA_COLUMN_OF = {
    # package price key: (catalog column, the unit's `per` in genai_prices.data_units: 1e6 tokens or 1,000 counts)
    "output_reasoning_mtok": ("reasoning_per_million", 1_000_000),
    "input_audio_mtok": ("input_audio_per_million", 1_000_000),
    "cache_audio_read_mtok": ("cached_audio_input_per_million", 1_000_000),
    "output_audio_mtok": ("output_audio_per_million", 1_000_000),
    "input_image_mtok": ("input_image_per_million", 1_000_000),
    "cache_image_read_mtok": ("cached_image_input_per_million", 1_000_000),
    "requests_kcount": ("per_thousand_requests", 1_000),
    "web_searches_kcount": ("web_search_per_thousand", 1_000),
    "output_citation_mtok": ("citation_per_million", 1_000_000),
}
"""Further package price keys an offer holds. The package's usage counts nest (genai_prices.decompose): reasoning
tokens are part of the output tokens, audio and image tokens part of the input tokens and cached audio tokens
part of both the audio and the cache-read tokens; each priced key bills its own tokens only, as
costmodel.formulas.api_price_parts does."""
FEE_KEYS = ("requests_kcount", "web_searches_kcount", "output_citation_mtok")
"""Fees no service tier, region or time of day changes in the catalog."""
CLASS_OF = {
    "input_mtok": "input",
    "cache_read_mtok": "cache_read",
    "cache_write_mtok": "cache_write",
    "cache_write_1h_mtok": "cache_write",
    "output_mtok": "output",
    "output_reasoning_mtok": "reasoning",
    "input_audio_mtok": "audio_input",
    "cache_audio_read_mtok": "audio_input",
    "input_image_mtok": "image_input",
    "cache_image_read_mtok": "image_input",
    "output_audio_mtok": "audio_output",
}
"""Package token price keys by the price part (token class) a price window applies to."""
TIER_CLASS_OF = {
    "input_mtok": "input",
    "cache_read_mtok": "cache_read",
    "cache_write_mtok": "cache_write",
    "cache_write_1h_mtok": "cache_write_1h",
    "output_mtok": "output",
    "output_reasoning_mtok": "reasoning",
}
"""Package price keys a prompt-size tier of data/api_price_tiers.csv may price, by token class."""
SCALES_WITH = {
    "cache_read_mtok": "input_mtok",
    "cache_write_mtok": "input_mtok",
    "cache_write_1h_mtok": "input_mtok",
    "output_reasoning_mtok": "output_mtok",
}
"""A class without tiers of its own scales with this key's tier ratio in costmodel (cache with input, reasoning
with output)."""
HISTORY_COLUMN_OF = {
    "input_mtok": "input_per_million",
    "cache_read_mtok": "cached_input_per_million",
    "output_mtok": "output_per_million",
    "cache_write_mtok": "cache_write_5m_per_million",
    "cache_write_1h_mtok": "cache_write_1h_per_million",
    "output_reasoning_mtok": "reasoning_per_million",
}
"""Package price keys a dated price change (data/api_price_history.csv) holds."""

COLUMNS = [
    "offer",
    "provider",
    "model",
    "input_per_million",
    "cached_input_per_million",
    "output_per_million",
    "currency",
    "quality",
    "as_of",
    "source",
    "notes",
    "cache_write_5m_per_million",
    "cache_write_1h_per_million",
    "batch_multiplier",
    "flex_multiplier",
    "priority_multiplier",
    "tier_applies_to_cache",
    "long_context_threshold_tokens",
    "long_context_input_per_million",
    "long_context_output_per_million",
    "region_uplift",
    "deprecated",
    "reasoning_per_million",
    "input_audio_per_million",
    "cached_audio_input_per_million",
    "output_audio_per_million",
    "input_image_per_million",
    "per_thousand_requests",
    "web_search_per_thousand",
    "effective_from",
    "long_context_until",
    "citation_per_million",
    "cached_image_input_per_million",
]
PRICE_COLUMNS = [
    c
    for c in COLUMNS
    if c not in ("offer", "provider", "model", "quality", "as_of", "source", "notes", "long_context_until")
]
WINDOW_COLUMNS = [
    "window",
    "offer",
    "name",
    "days",
    "start_hour",
    "end_hour",
    "time_zone",
    "price_multiplier",
    "effective_from",
    "quality",
    "as_of",
    "source",
    "notes",
    "applies_to",
    "long_context",
]
TIER_COLUMNS = [
    "tier",
    "offer",
    "token_class",
    "above_input_tokens",
    "price_per_million",
    "quality",
    "as_of",
    "source",
    "notes",
]
HISTORY_COLUMNS = [
    "change",
    "offer",
    "effective_from",
    "input_per_million",
    "cached_input_per_million",
    "output_per_million",
    "cache_write_5m_per_million",
    "cache_write_1h_per_million",
    "reasoning_per_million",
    "quality",
    "as_of",
    "source",
    "notes",
]
NOT_IMPORTED_COLUMNS = ["provider", "model", "offer", "reason"]


def _number(value) -> str:
    return "" if value is None else format(Decimal(value).normalize(), "f")


def _factor(value: Decimal) -> Decimal:
    """A ratio of two prices, to six significant digits."""
    return Decimal(format(value, ".6g"))


def _same(a: Decimal, b: Decimal) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b))


def slug(provider_id: str, model_id: str) -> str:
    """The offer id of a package model: ``<provider id>-<model id>``, lowercase, other characters as ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", f"{provider_id}-{model_id}".lower()).strip("-")


def _base(value):
    return getattr(value, "base", value)


def _tiers(value) -> list:
    return list(getattr(value, "tiers", None) or [])


def _keys(price) -> dict:
    return {k: v for k, v in vars(price).items() if v is not None and not k.startswith("_")}


# --- the package's prices on a day ---------------------------------------------------------------------------


def _prices_on(model, day: dt.date):
    """(standard ModelPrice, its start date or None, later dated prices, later time-of-day prices, earlier prices)
    on ``day``.

    Resolved as ``ModelInfo.get_prices`` does: the last price whose constraint holds wins, and the
    first price when none holds; a time-of-day price after the winner applies in its hours. The
    earlier prices are the ones the winner superseded (the first of them may have no start date)."""
    from genai_prices.types import ModelPrice, StartDateConstraint, TimeOfDateConstraint

    if isinstance(model.prices, ModelPrice):
        return model.prices, None, [], [], []
    chosen = 0
    for index in reversed(range(len(model.prices))):
        constraint = model.prices[index].constraint
        if constraint is None or (isinstance(constraint, StartDateConstraint) and constraint.start_date <= day):
            chosen = index
            break
    later = model.prices[chosen + 1 :]
    start = getattr(model.prices[chosen].constraint, "start_date", None)
    future = [p for p in later if isinstance(p.constraint, StartDateConstraint)]
    by_clock = [p for p in later if isinstance(p.constraint, TimeOfDateConstraint)]
    earlier = [p for p in model.prices[:chosen] if not isinstance(p.constraint, TimeOfDateConstraint)]
    return model.prices[chosen].prices, start, future, by_clock, earlier


def _variants_on(model, day: dt.date) -> tuple[dict[tuple, dict], list[tuple], list[tuple]]:
    """({when items: {price key: price}} of the variants active on ``day``, the contexts priced by the time
    of day, (context, start date) of the variants that start after ``day``)."""
    from genai_prices.types import StartDateConstraint

    found: dict[tuple, dict] = {}
    clock: list[tuple] = []
    later: list[tuple] = []
    for variant in model.price_variants or ():
        constraint = variant.constraint
        if constraint is not None and not isinstance(constraint, StartDateConstraint):
            clock.append(tuple(sorted(variant.when.items())))
            continue
        if constraint is not None and constraint.start_date > day:
            later.append((tuple(sorted(variant.when.items())), constraint.start_date))
            continue
        prices = found.setdefault(tuple(sorted(variant.when.items())), {})
        for key, price in _keys(variant.prices).items():
            prices.setdefault(key, price)
    return found, clock, later


def _ratio(std, other) -> list[Decimal] | None:
    """The ratios other / std of a price's base and tiers, or None when the tiers do not line up."""
    if std is None or other is None or _base(std) == 0:
        return None
    if [t.start for t in _tiers(std)] != [t.start for t in _tiers(other)]:
        return None
    return [Decimal(_base(other)) / Decimal(_base(std))] + [
        Decimal(o.price) / Decimal(s.price) for s, o in zip(_tiers(std), _tiers(other), strict=True) if s.price
    ]


def _uniform(ratios: list[Decimal]) -> Decimal | None:
    return ratios[0] if ratios and all(_same(r, ratios[0]) for r in ratios) else None


def _variant_factor(
    std: dict, overrides: dict, held: frozenset = frozenset()
) -> tuple[Decimal | None, bool | None, str]:
    """(factor on input and output, whether it applies to cache prices (None: no cache price), problem).

    The further keys the offer holds (``held``) must follow the catalog's rule too: reasoning, audio and
    image prices the factor, cached audio the cache factor, and fees no factor."""
    main = []
    for key in ("input_mtok", "output_mtok"):
        if key not in std:
            continue  # an input-only offer
        ratio = _ratio(std[key], overrides.get(key, std[key]))
        if ratio is None:
            return None, None, f"{key} tiers differ from the standard price's"
        main += ratio
    factor = _uniform(main)
    if factor is None:
        return None, None, "input and output change by different factors"
    caches = []
    for key in CACHE_KEYS:
        if key in std:
            ratio = _ratio(std[key], overrides.get(key, std[key]))
            if ratio is None:
                return None, None, f"{key} tiers differ from the standard price's"
            caches += ratio
    stacks = None
    if caches:
        cache = _uniform(caches)
        if cache is not None and _same(cache, factor):
            stacks = True
        elif cache is not None and cache == 1:
            stacks = False
        else:
            return None, None, "cache prices change by another factor than input and output"
    for key in sorted(held & set(EXTRA_COLUMN_OF)):
        new = overrides.get(key, std[key])
        if key in FEE_KEYS:
            if Decimal(_base(new)) != Decimal(_base(std[key])):
                return None, None, f"{key} changes (a fee of the catalog is the same in every tier and region)"
            continue
        expected = factor if key != "cache_audio_read_mtok" or stacks is not False else Decimal(1)
        ratio = _ratio(std[key], new)
        if ratio is None or not all(_same(r, expected) for r in ratio):
            return (
                None,
                None,
                f"{key} changes by another factor than {'cache' if expected != factor else 'input'} prices",
            )
    return factor, stacks, ""


def _context_tiers(offer: str, std: dict, missing: list[str], source: str) -> tuple[dict[str, str], list[dict]]:
    """(the long-context columns, the rows of data/api_price_tiers.csv) of a price with prompt-size tiers.

    One tier at one threshold on every tiered key, dearer than the base, with the cache prices scaling
    by the input's factor and reasoning by the output's (the catalog's rule for the long-context
    columns): the columns. Otherwise every tier of every key is a row of its own, and a price the
    package does not tier but the catalog would scale (a cache price with the input, reasoning with
    the output) gets a row holding it at its base price above the lowest tier of the price it follows."""
    tiered = {k: _tiers(v) for k, v in std.items() if _tiers(v)}
    if not tiered:
        return {}, []
    unheld = sorted(k for k in tiered if k not in TIER_CLASS_OF)
    if unheld:
        missing.append(
            f"prompt-size tiers of {', '.join(unheld)} not held (data/api_price_tiers.csv prices text "
            "token classes): the offer holds the price below the first tier"
        )
        tiered = {k: v for k, v in tiered.items() if k in TIER_CLASS_OF}
        if not tiered:
            return {}, []
    bad = [(k, t) for k, v in tiered.items() for t in v if t.start < 1 or not t.price > 0]
    if bad:
        missing.append(
            f"prompt-size tier of {bad[0][0]} from {bad[0][1].start} tokens at {_number(bad[0][1].price)} "
            "not held (a tier starts above 0 tokens and costs more than 0): the offer holds the price below "
            "the first tier"
        )
        return {}, []
    starts = {t.start for v in tiered.values() for t in v}
    if (
        all(len(v) == 1 for v in tiered.values())
        and len(starts) == 1
        and {"input_mtok", "output_mtok"} <= set(std)
        and _base(std["input_mtok"])
        and _base(std["output_mtok"])
    ):
        (start,) = starts
        price = {
            k: Decimal(tiered[k][0].price) if k in tiered else Decimal(_base(std[k]))
            for k in ("input_mtok", "output_mtok")
        }
        base = {k: Decimal(_base(std[k])) for k in ("input_mtok", "output_mtok")}
        fits = all(price[k] >= base[k] for k in price)
        for key, driver in SCALES_WITH.items():
            if fits and key in std and _base(std[key]):
                actual = Decimal(tiered[key][0].price) if key in tiered else Decimal(_base(std[key]))
                fits = _same(actual, Decimal(_base(std[key])) * price[driver] / base[driver])
        if fits:
            return {
                "long_context_threshold_tokens": str(start),
                "long_context_input_per_million": _number(price["input_mtok"]),
                "long_context_output_per_million": _number(price["output_mtok"]),
            }, []
    rows = []

    def row(key: str, start: int, price, note: str) -> dict:
        return {
            "tier": f"{offer}-{TIER_CLASS_OF[key].replace('_', '-')}-above-{start}",
            "offer": offer,
            "token_class": TIER_CLASS_OF[key],
            "above_input_tokens": str(start),
            "price_per_million": _number(price),
            "quality": "S",
            "as_of": RELEASED,
            "source": source,
            "notes": note,
        }

    for key, tiers in tiered.items():
        for tier in tiers:
            rows.append(
                row(
                    key,
                    tier.start,
                    tier.price,
                    f"The package's {key} tier: requests above {tier.start} "
                    "input tokens pay this price for every token of the class",
                )
            )
    for key, driver in SCALES_WITH.items():
        if (
            key in std
            and key not in tiered
            and driver in tiered
            and _base(std[key])
            and any(t.price != Decimal(_base(std[driver])) for t in tiered[driver])
        ):
            start = tiered[driver][0].start
            rows.append(
                row(
                    key,
                    start,
                    _base(std[key]),
                    f"The package does not tier {key}: held at its base price "
                    f"above {start} tokens (without a row the catalog would "
                    f"scale it with the {driver} tier)",
                )
            )
    return {}, rows


WINDOW_ORDER = (
    "input",
    "cache_read",
    "cache_write",
    "output",
    "reasoning",
    "audio_input",
    "image_input",
    "audio_output",
)
"""Token classes of a window's ``applies_to``, in the order written."""


def _class_groups(factors: dict[str, Decimal]) -> list[tuple[str, Decimal]]:
    """(applies_to, factor) of a time-of-day price: ``all`` when one factor fits every class, else one group of
    classes per factor."""
    groups: list[tuple[list[str], Decimal]] = []
    for cls in WINDOW_ORDER:
        if cls in factors:
            group = next((g for g in groups if _same(g[1], factors[cls])), None)
            if group is None:
                groups.append(([cls], factors[cls]))
            else:
                group[0].append(cls)
    if len(groups) <= 1:
        return [("all", groups[0][1])] if groups else []
    return [(";".join(classes), factor) for classes, factor in groups]


def _hours(minutes: int) -> str:
    return _number(Decimal(minutes) / 60)


def _clock_windows(offer: str, std, by_clock: list, source: str) -> tuple[dict | None, list[dict], str]:
    """(the prices the offer lists, its window rows, problem) of a model priced by the time of day.

    The offer lists the dearest price; each time-of-day price, and the standard price in the hours
    outside them, is a factor on it: one row applying to ``all`` classes when one factor fits every
    price, else one row per group of token classes (``applies_to``) sharing a factor."""
    sets = [_keys(std)] + [_keys(p.prices) for p in by_clock]
    listed = max(sets, key=lambda s: Decimal(_base(s.get("input_mtok", 0))))
    hours_of = []
    for index, prices in enumerate(sets):
        ratios: dict[str, list[Decimal]] = {}
        for key in sorted(set(listed) | set(prices)):
            if key in FEE_KEYS:
                if key not in listed or key not in prices or Decimal(_base(listed[key])) != Decimal(_base(prices[key])):
                    return (
                        listed,
                        [],
                        f"{key} changes by the time of day (a fee has no time-of-day factor in the "
                        "catalog): the offer lists the dearest (peak) price",
                    )
                continue
            if key not in CLASS_OF:
                continue  # a price the offer does not hold, listed apart
            ratio = _ratio(listed.get(key), prices.get(key))
            if ratio is None:
                return listed, [], f"{key} is not priced in every time-of-day price"
            ratios.setdefault(CLASS_OF[key], []).extend(ratio)
        factors = {}
        for cls, values in ratios.items():
            factors[cls] = _uniform(values)
            if factors[cls] is None:
                return (
                    listed,
                    [],
                    (
                        f"time-of-day prices change the {cls} prices by different factors: the offer "
                        "lists the dearest (peak) price"
                    ),
                )
        hours_of.append((_class_groups(factors), by_clock[index - 1].constraint if index else None))
    windows = []
    for number, (groups, constraint) in enumerate(hours_of[1:], 1):
        start, end = (_utc_minutes(constraint.start_time), _utc_minutes(constraint.end_time))
        zone = next((z for offset, z in ZONES.items() if (start + offset) % 60 == 0 and (end + offset) % 60 == 0), None)
        if zone is None and start % 30 == 0 and end % 30 == 0:
            zone = "UTC"  # on the half hour in UTC
        if zone is None:
            return (
                listed,
                [],
                f"time-of-day price from {constraint.start_time} to {constraint.end_time} UTC is not on the half hour",
            )
        offset = next(o for o, z in ZONES.items() if z == zone)
        first, last = (start + offset) % 1440, (end + offset) % 1440 or 1440
        spans = [(first, last)] if first < last else [(first, 1440), (0, last)] if last else [(first, 1440)]
        for applies_to, factor in groups:
            for part, (low, high) in enumerate(spans):
                name = "peak" if factor == 1 else "off-peak" if factor < 1 else "surcharge"
                utc = f"{constraint.start_time.strftime('%H:%M')}-{constraint.end_time.strftime('%H:%M')} UTC"
                windows.append(
                    {
                        "window": f"{offer}-{name}-{number}"
                        + (f"-{applies_to.replace(';', '-').replace('_', '-')}" if applies_to != "all" else "")
                        + (f"-{part + 1}" if len(spans) > 1 else ""),
                        "offer": offer,
                        "name": name,
                        "days": "0-6",
                        "start_hour": _hours(low),
                        "end_hour": _hours(high),
                        "time_zone": zone,
                        "price_multiplier": _number(factor),
                        "effective_from": "",
                        "quality": "S",
                        "as_of": RELEASED,
                        "source": source,
                        "applies_to": applies_to,
                        "long_context": "as_listed",
                        "notes": f"The package's time-of-day price {utc} every day"
                        + (
                            f", written in {zone} (UTC+{offset // 60:02d}:{offset % 60:02d}, no daylight saving) for "
                            "whole hours"
                            if offset
                            else ""
                        ),
                    }
                )
    for applies_to, factor in hours_of[0][0]:
        if factor != 1:
            windows.append(
                {
                    "window": f"{offer}-off-peak"
                    + (f"-{applies_to.replace(';', '-').replace('_', '-')}" if applies_to != "all" else ""),
                    "offer": offer,
                    "name": "off-peak" if factor < 1 else "other",
                    "days": "0-6",
                    "start_hour": "0",
                    "end_hour": "24",
                    "time_zone": "UTC",
                    "price_multiplier": _number(factor),
                    "effective_from": "",
                    "quality": "S",
                    "as_of": RELEASED,
                    "source": source,
                    "applies_to": applies_to,
                    "long_context": "as_listed",
                    "notes": "The hours outside the rows above: the package's standard price",
                }
            )
    return listed, windows, ""


def _utc_minutes(value: dt.time) -> int:
    if value.tzinfo is not None:
        value = dt.datetime.combine(dt.date(1970, 1, 1), value).astimezone(dt.UTC).time()
    return value.hour * 60 + value.minute


# --- one offer --------------------------------------------------------------------------------------------------


def _unit_per(key: str) -> int | None:
    """The ``per`` of a package price key in its unit registry (genai_prices.data_units)."""
    from genai_prices.units import _get_registry

    try:
        return _get_registry().unit_for_price_key(key).per
    except KeyError:
        return None


def _is_embedding(provider, model) -> bool:
    return bool(EMBEDDING.search(model.id.lower()) or EMBEDDING.search((model.name or "").lower()))


def package_row(provider, model, offer: str, day: dt.date = EFFECTIVE) -> tuple[dict | None, list, list[str]]:
    """(the CSV row of one package model or None, its window rows, what it cannot hold).

    The model's prompt-size tier rows and dated price changes are in :func:`package_rows`."""
    row, windows, _, _, missing = package_rows(provider, model, offer, day)
    return row, windows, missing


def package_rows(provider, model, offer: str, day: dt.date = EFFECTIVE):
    """(the CSV row of one package model or None, its window rows, its tier rows, its price changes, what it
    cannot hold)."""
    std_price, start, future, by_clock, earlier = _prices_on(model, day)
    url = provider.pricing_urls[0] if provider.pricing_urls else provider.name
    source = f"{PACKAGE} {version(PACKAGE)} package data ({provider.id}/{model.id}), transcribing {url}"
    std = _keys(std_price)
    for pattern, why in NOT_TEXT_GENERATION:
        if re.search(pattern, model.id.lower()):
            return None, [], [], [], [f"not a text-generation model ({why})"]
    if not std:
        return None, [], [], [], ["no prices in the package (a free or unpriced model)"]
    embedding = _is_embedding(provider, model)
    missing: list[str] = []
    windows: list[dict] = []
    if by_clock:
        effective_from = start.isoformat() if start else ""
        listed, windows, problem = _clock_windows(offer, std_price, by_clock, source)
        for window in windows:
            window["effective_from"] = effective_from or RELEASED
        if problem:
            missing.append(problem)
        std = listed
    if embedding and "input_mtok" in std and "output_mtok" in std:
        missing.append(
            f"output_mtok price {_number(_base(std['output_mtok']))} not held (an embedding model: its "
            "output is vectors, not text tokens; the offer is input-only)"
        )
        std = {k: v for k, v in std.items() if k != "output_mtok"}
    for key in ("input_mtok", "output_mtok"):
        if key == "output_mtok" and embedding and key not in std and "input_mtok" in std:
            continue  # an input-only offer
        if key not in std or not _base(std[key]):
            reason = (
                "no output price (APIOffer needs one unless an embedding model: speech, images, moderation, "
                "classifiers)"
                if key == "output_mtok" and key not in std
                else "no input price (APIOffer needs one)"
                if key not in std
                else f"{key} is 0 (a free model)"
            )
            others = sorted(k for k in std if k not in TEXT_KEYS)
            return None, [], [], [], [reason + (f"; priced by {', '.join(others)}" if others else "")]
    held_extra: set[str] = set()
    for key in sorted(std):
        if key in TEXT_KEYS:
            continue
        if key not in EXTRA_COLUMN_OF:
            missing.append(f"{key} price not held")
            continue
        column, per = EXTRA_COLUMN_OF[key]
        if _unit_per(key) != per:
            missing.append(
                f"{key} price not held: the package prices it per {_unit_per(key)}, the column {column} per {per}"
            )
        elif _tiers(std[key]):
            missing.append(
                f"{key} price not held: prompt-size tiers (data/api_price_tiers.csv prices text token classes)"
            )
        elif not Decimal(_base(std[key])) > 0:
            missing.append(f"{key} is 0: not held (a catalog price is above 0)")
        else:
            held_extra.add(key)
    if "cache_audio_read_mtok" in held_extra and "input_audio_mtok" not in held_extra:
        held_extra.discard("cache_audio_read_mtok")
        missing.append("cache_audio_read_mtok price not held: the audio input price is not held")
    if "cache_image_read_mtok" in held_extra and "input_image_mtok" not in held_extra:
        held_extra.discard("cache_image_read_mtok")
        missing.append("cache_image_read_mtok price not held: the image input price is not held")
    std = {k: v for k, v in std.items() if k in TEXT_KEYS or k in held_extra}
    row = {c: "" for c in COLUMNS}
    row.update(
        offer=offer,
        provider=provider.name,
        model=model.name or model.id,
        currency="USD",
        quality="S",
        as_of=RELEASED,
        source=source,
        effective_from=start.isoformat() if start else "",
    )
    for key in TEXT_KEYS:
        if key in std:
            row[COLUMN_OF[key]] = _number(_base(std[key]))
    for key in sorted(held_extra):
        row[EXTRA_COLUMN_OF[key][0]] = _number(_base(std[key]))
    for key in CACHE_KEYS:
        if key in std and not _base(std[key]):
            missing.append(f"{key} is 0: not held (a catalog price is above 0; empty means the input price)")
            row[COLUMN_OF[key]] = ""
    long_context, tiers = _context_tiers(offer, std, missing, source)
    row.update(long_context)
    variants, clock_variants, later_variants = _variants_on(model, day)
    for when in clock_variants:
        missing.append(f"price variant {', '.join(f'{k}={v}' for k, v in when)} by the time of day not held")
    for when, start_date in later_variants:
        missing.append(
            f"price variant {', '.join(f'{k}={v}' for k, v in when)} from {start_date} not held (the "
            f"offer holds the prices in force on {day})"
        )
    stacking: dict[str, bool] = {}
    for when, overrides in sorted(variants.items()):
        overrides = {k: v for k, v in overrides.items() if k in std}  # the prices the offer holds
        label = ", ".join(f"{k}={v}" for k, v in when)
        if not overrides or all(overrides[k] == std[k] for k in overrides):
            continue
        column = TIERS.get(when[0]) if len(when) == 1 else None
        is_region = len(when) == 1 and when[0][0] == REGION_KEY
        if column is None and not is_region:
            missing.append(f"price variant {label} not held (no such tier in the catalog)")
            continue
        factor, stacks, problem = _variant_factor(std, overrides, frozenset(held_extra))
        if factor is None:
            missing.append(f"price variant {label} not held: {problem}")
            continue
        factor = _factor(factor)
        if is_region:
            if stacks is False or not 1 <= factor <= 10:
                missing.append(f"price variant {label} not held: not one factor of 1 to 10 on every price")
            elif row["region_uplift"]:
                missing.append(f"price variant {label} not held: the offer holds one region uplift")
            else:
                row["region_uplift"] = _number(factor)
            continue
        bounds = (Decimal(1), Decimal(10)) if column == "priority_multiplier" else (Decimal("1e-9"), Decimal(1))
        if not bounds[0] <= factor <= bounds[1]:
            missing.append(
                f"price variant {label} not held: factor {_number(factor)} outside "
                f"{_number(bounds[0])} to {_number(bounds[1])}"
            )
            continue
        if stacks is not None and stacking and stacks not in stacking.values():
            missing.append(
                f"price variant {label} not held: its factor {'does' if stacks else 'does not'} apply "
                "to cache prices, unlike the other tier's (the offer holds one rule)"
            )
            continue
        if stacks is not None:
            stacking[column] = stacks
        row[column] = _number(factor)
    if stacking:
        row["tier_applies_to_cache"] = "true" if next(iter(stacking.values())) else "false"
    _keep_catalog_rules(row, missing)
    emptied = {"cache_read": "cached_input_per_million", "cache_write_1h": "cache_write_1h_per_million"}
    tiers = [t for t in tiers if not (t["token_class"] in emptied and not row[emptied[t["token_class"]]])]
    changes = []
    dated = (
        [p.constraint.start_date for p in model.prices if getattr(p.constraint, "start_date", None)]
        if isinstance(model.prices, list)
        else []
    )
    for item in earlier + future:
        when = getattr(item.constraint, "start_date", None)
        label = (
            f"price from {when}"
            if when
            else f"price before {min(dated)} (the package's first price, without a start date)"
        )
        if by_clock:
            missing.append(
                f"{label} not held: a dated price of a model priced by the time of day (the windows' "
                "factors are on the prices in force)"
            )
        else:
            change, problem = _change_row(offer, std, _keys(item.prices), when, start, day, source, embedding)
            if problem:
                missing.append(f"{label} not held: {problem}")
            else:
                changes.append(change)
    notes = [f"genai-prices id {provider.id}/{model.id}"]
    if start is not None:
        notes.append(f"price in force since {start}")
    if model.deprecated:
        notes.append("deprecated by the provider")
        row["deprecated"] = "true"
    if embedding and not row["output_per_million"]:
        notes.append("an embedding model: input-only (no output price)")
    if windows:
        notes.append(
            "prices by the time of day: the listed price is the dearest, data/api_price_windows.csv holds the factors"
        )
    if tiers:
        notes.append("prompt-size tiers in data/api_price_tiers.csv")
    if changes:
        notes.append("dated prices in data/api_price_history.csv")
    if missing:
        notes.append("not held: see data/sources/genai-prices/not_imported.csv")
    row["notes"] = "; ".join(notes)
    return row, windows, tiers, changes, missing


def _change_row(
    offer: str,
    std: dict,
    other: dict,
    when: dt.date | None,
    start: dt.date | None,
    day: dt.date,
    source: str,
    embedding: bool,
) -> tuple[dict | None, str]:
    """(the row of data/api_price_history.csv of a dated package price, problem); ``when`` None: the package's
    first price, without a start date (an empty effective_from: in force before every dated price).

    A change holds the text token prices (input, cache read and writes, output, reasoning); every
    other price it must share with the offer row, and its prompt-size tiers too (the catalog's
    tiers are not dated). A cache price the change lacks is its input price (the package bills
    such tokens as input), a reasoning price its output price."""
    if embedding:
        other = {k: v for k, v in other.items() if k != "output_mtok"}
    for key in sorted((set(std) | set(other)) - set(HISTORY_COLUMN_OF)):
        if key not in std and key not in EXTRA_COLUMN_OF:
            continue  # a price the offer does not hold at all, listed apart
        if key not in std or key not in other or _keys_differ(std[key], other[key]):
            return None, f"{key} differs from the offer row's (a price change holds text token prices only)"
    tiered = {k for k in set(std) | set(other) if _tiers(std.get(k)) or _tiers(other.get(k))}
    follows = {k for k, driver in SCALES_WITH.items() if driver in tiered}
    for key in sorted(tiered | follows):
        if key in std or key in other:
            if key not in std or key not in other or _keys_differ(std[key], other[key]):
                return (
                    None,
                    f"{key} differs from the offer row's under prompt-size tiers (the catalog's tiers are not dated)",
                )
    row = {c: "" for c in HISTORY_COLUMNS}
    for key, column in HISTORY_COLUMN_OF.items():
        price = other.get(key)
        if price is None and key in std:
            price = other.get("output_mtok" if key == "output_reasoning_mtok" else "input_mtok")
        if price is None:
            if key in ("input_mtok", "output_mtok") and key in std:
                return None, f"no {key}"
            continue
        if not Decimal(_base(price)) > 0:
            return None, f"{key} is 0 (a catalog price is above 0)"
        row[column] = _number(_base(price))
    if when is None:
        row.update(
            change=f"{offer}-first",
            offer=offer,
            effective_from="",
            quality="S",
            as_of=RELEASED,
            source=source,
            notes="The package's first price, without a start date: in force before its first dated price",
        )
        return row, ""
    later = when > day
    row.update(
        change=f"{offer}-from-{when}",
        offer=offer,
        effective_from=when.isoformat(),
        quality="S",
        as_of=RELEASED,
        source=source,
        notes=f"The package's price from {when}: "
        + (
            f"announced, after {day} (the offer row holds the price in force on {day})"
            if later
            else f"superseded by the offer row's price from {start}"
        ),
    )
    return row, ""


def _keys_differ(a, b) -> bool:
    if _tiers(a) or _tiers(b):
        return Decimal(_base(a)) != Decimal(_base(b)) or [(t.start, Decimal(t.price)) for t in _tiers(a)] != [
            (t.start, Decimal(t.price)) for t in _tiers(b)
        ]
    return Decimal(_base(a)) != Decimal(_base(b))


def _keep_catalog_rules(row: dict, missing: list[str]) -> None:
    """Empty the prices that break an APIOffer rule, saying why."""

    def number(column):
        return Decimal(row[column]) if row[column] else None

    if number("cached_input_per_million") is not None and number("cached_input_per_million") > number(
        "input_per_million"
    ):
        missing.append(
            f"cache read {row['cached_input_per_million']} above input {row['input_per_million']}: "
            "breaks the catalog rule (a cache read costs at most an input token); cached input is "
            "left at the input price"
        )
        row["cached_input_per_million"] = ""
    five, hour = number("cache_write_5m_per_million"), number("cache_write_1h_per_million")
    if five is not None and hour is not None and hour < five:
        missing.append(
            f"1-hour cache write {row['cache_write_1h_per_million']} below the 5-minute one: breaks "
            "the catalog rule; not held"
        )
        row["cache_write_1h_per_million"] = ""


# --- the whole file ---------------------------------------------------------------------------------------------


def _generated(row: dict) -> bool:
    """Whether a CSV row was written by this script from the package (not by hand, not an override)."""
    return (
        row["source"].startswith(f"{PACKAGE} ")
        and " package data (" in row["source"]
        and not row["notes"].lower().startswith("override")
    )


def build(
    old_prices: str, old_windows: str, old_tiers: str = "", old_history: str = "", day: dt.date = EFFECTIVE
) -> tuple[str, str, str, str, str, list[str]]:
    """(api_prices.csv, api_price_windows.csv, api_price_tiers.csv, api_price_history.csv, not_imported.csv,
    report lines) from the package and the old files.

    Rows of the old files the package does not give (hand-kept, override) are carried through;
    the ``MAPPING`` rows keep their wording with the package's prices."""
    from genai_prices.data import providers

    if version(PACKAGE) != PINNED:
        raise SystemExit(f"{PACKAGE} {version(PACKAGE)} is installed; this script reads the pinned {PINNED}")
    old = {r["offer"]: {c: r.get(c) or "" for c in COLUMNS} for r in csv.DictReader(io.StringIO(old_prices))}
    kept = {o: r for o, r in old.items() if o in MAPPING or not _generated(r)}
    standing_for = {ids: offer for offer, ids in {**MAPPING, **HAND_KEPT}.items() if offer in kept}
    rows: dict[str, dict] = {}
    windows: list[dict] = []
    tiers: list[dict] = []
    changes: list[dict] = []
    skipped: list[dict] = []
    report: list[str] = []
    for provider in providers:
        for model in provider.models:
            ids = (provider.id, model.id)
            offer = standing_for.get(ids, slug(*ids))
            row, model_windows, model_tiers, model_changes, missing = package_rows(provider, model, offer, day)
            if row is not None and offer in rows:
                missing = [f"offer id {offer} already taken by {rows[offer]['source'].split('(')[1].split(')')[0]}"]
                row = None
            skipped += [
                {"provider": provider.id, "model": model.id, "offer": offer if row else "", "reason": m}
                for m in missing
            ]
            if row is None:
                continue
            if ids in standing_for and offer in HAND_KEPT:
                continue  # the hand-kept row stands for it
            if offer in MAPPING and offer in kept and not kept[offer]["notes"].lower().startswith("override"):
                row = _refreshed(kept[offer], row, report)
            elif offer in kept:  # an override
                report.append(
                    f"kept {offer} (override): the package gives "
                    + ", ".join(f"{c}={row[c]}" for c in PRICE_COLUMNS if row[c] != kept[offer][c])
                )
                continue
            rows[offer] = row
            windows += model_windows
            tiers += model_tiers
            changes += model_changes
    for offer, row in kept.items():
        if offer not in rows:
            rows[offer] = row
    for ids, offer in standing_for.items():
        if offer not in rows:
            report.append(f"{offer}: the package has no {ids[0]}/{ids[1]}")
    for offer, (until, why) in RETIRED_LONG_CONTEXT.items():
        if offer in rows and not rows[offer]["notes"].lower().startswith("override"):
            row = rows[offer]
            row["long_context_until"] = until
            note = f"long-context tier retired after {until}: {why}"
            if note not in row["notes"]:
                row["notes"] = "; ".join(n for n in (row["notes"], note) if n)
    order = {offer: i for i, offer in enumerate(sorted(rows))}

    def merged(old_text: str, new_rows: list[dict], columns: list[str]) -> list[dict]:
        """The new rows with the old file's rows the script did not generate, by offer (stable within one)."""
        generated_offers = {r["offer"] for r in new_rows}
        carried = [
            {c: r.get(c) or "" for c in columns}
            for r in csv.DictReader(io.StringIO(old_text or ""))
            if r["offer"] not in generated_offers
            and not (r["source"].startswith(f"{PACKAGE} ") and " package data (" in r["source"])
        ]
        return sorted(carried + new_rows, key=lambda r: order.get(r["offer"], -1))

    return (
        _write(COLUMNS, [rows[o] for o in sorted(rows)]),
        _write(WINDOW_COLUMNS, merged(old_windows, windows, WINDOW_COLUMNS)),
        _write(TIER_COLUMNS, merged(old_tiers, tiers, TIER_COLUMNS)),
        _write(HISTORY_COLUMNS, merged(old_history, changes, HISTORY_COLUMNS)),
        _write(NOT_IMPORTED_COLUMNS, sorted(skipped, key=lambda s: (s["provider"], s["model"], s["reason"]))),
        report,
    )


def _refreshed(old: dict, new: dict, report: list[str]) -> dict:
    """A ``MAPPING`` row: its id and wording with the package's prices and source."""
    row = dict(old)
    changed = [c for c in PRICE_COLUMNS if _differs(old[c], new[c])]
    for column in PRICE_COLUMNS + ["source", "quality"]:
        row[column] = new[column] if column in changed or column in ("source", "quality") else old[column]
    if any(old[c] for c in changed):  # a price changed (not only a price newly held): checked on release
        row["as_of"] = RELEASED
        report.append(
            f"refreshed {old['offer']}: "
            + ", ".join(f"{c} {old[c] or '(empty)'} -> {new[c] or '(empty)'}" for c in changed)
        )
    return row


def _differs(old: str, new: str) -> bool:
    if old and new:
        try:
            return Decimal(old) != Decimal(new)
        except ArithmeticError:
            return old != new
    return old != new


def _write(columns: list[str], rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({c: row[c] for c in columns} for row in rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print the rows that differ and exit 1; change nothing")
    parser.add_argument("--path", type=Path, default=CSV, help="api_prices.csv to write")
    parser.add_argument("--windows", type=Path, default=WINDOWS_CSV, help="api_price_windows.csv to write")
    parser.add_argument("--tiers", type=Path, default=TIERS_CSV, help="api_price_tiers.csv to write")
    parser.add_argument("--history", type=Path, default=HISTORY_CSV, help="api_price_history.csv to write")
    parser.add_argument("--not-imported", type=Path, default=NOT_IMPORTED_CSV)
    args = parser.parse_args(argv)
    files = (args.path, args.windows, args.tiers, args.history, args.not_imported)
    olds = [p.read_text(encoding="utf-8") if p.exists() else "" for p in files]
    news = build(*olds[:4])
    prices, windows, tiers, history, skipped, report = news
    rows = list(csv.DictReader(io.StringIO(prices)))
    missing = list(csv.DictReader(io.StringIO(skipped)))
    whole = {(m["provider"], m["model"]) for m in missing if not m["offer"]}
    print(
        f"{PACKAGE} {version(PACKAGE)}: {len(rows)} offers from {len({r['provider'] for r in rows})} providers, "
        f"{len(_rows_of(windows))} price windows, {len(_rows_of(tiers))} prompt-size tiers, "
        f"{len(_rows_of(history))} dated price changes; {len(whole)} models not imported and "
        f"{len(missing) - len(whole)} prices of imported ones not held ({args.not_imported.name}):",
        file=sys.stderr,
    )
    reasons: dict[str, int] = {}
    for m in missing:
        head = re.sub(r"[\d.]+", "N", m["reason"].split(":")[0].split(";")[0])
        reasons[head] = reasons.get(head, 0) + 1
    for head, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"  {count:5d}  {head}", file=sys.stderr)
    for line in report:
        print(line, file=sys.stderr)
    if args.check:
        lines = []
        for path, old, new, key in zip(files, olds, news[:5], ("offer", "window", "tier", "change", None), strict=True):
            if old != new:
                lines += [f"{path.name}: {d}" for d in (differences(old, new, key) if key else ["differs"])]
        print("\n".join(lines) if lines else "up to date")
        return 1 if lines else 0
    for path, new in zip(files, news[:5], strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(new, encoding="utf-8")
    print(f"wrote {', '.join(str(p) for p in files)} from {PACKAGE} {version(PACKAGE)}")
    return 0


def _rows_of(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


if __name__ == "__main__":
    sys.exit(main())

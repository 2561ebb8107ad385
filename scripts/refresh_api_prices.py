"""Write data/api_prices.csv from the price data shipped in pydantic's ``genai-prices`` package.

Usage::

    pip install "costmodel[prices]"                # genai-prices==0.2.3, MIT licence
    python scripts/refresh_api_prices.py           # rewrites data/api_prices.csv, api_price_windows.csv and
                                                   # data/sources/genai-prices/not_imported.csv
    python scripts/refresh_api_prices.py --check   # exit 1 and print the rows that differ; writes nothing

``genai-prices`` ships its price table inside the package (``genai_prices.data``), so this runs
offline: it never calls the package's live updater. Every text-generation model of every
provider in the package (a model with a price per input and per output text token) becomes one
offer: id ``<provider id>-<model id>`` (lowercase, every run of other characters as ``-``), the
provider's display name, the model's name, the input, cache-read, cache-write (5-minute and
1-hour time-to-live) and output prices in force on :data:`EFFECTIVE` (the package's price
history resolved as the package does), a long-context tier when every tiered price has one
tier at one threshold, the batch / flex / priority factors and a route's regional uplift from
the package's price variants when one factor fits every price, and grade S (a maintained
transcription of the provider's page, which the source column names). The package keeps no
per-price check date, so ``as_of`` is the package's release date (:data:`RELEASED`). Prices
by the time of day become rows of data/api_price_windows.csv when one factor fits every price.

What the package has but an offer cannot hold (models without an output price, per-request
or per-search fees, image / audio prices, several context tiers, dated future prices, variants
that are no single factor, prices breaking a catalog rule) is written to
data/sources/genai-prices/not_imported.csv with the reason, and counted on stderr.

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
TIERS = {("processing", "batch"): "batch_multiplier", ("service_tier", "flex"): "flex_multiplier",
         ("service_tier", "priority"): "priority_multiplier"}
"""Price variants (the package's request context) that are a service tier of the catalog."""
REGION_KEY = "route"
"""A price variant by route (e.g. mistral/eu) is a regional endpoint: region_uplift."""
ZONES = {0: "UTC", 330: "Asia/Kolkata"}
NOT_TEXT_GENERATION = [
    # (pattern on the package's model id, lowercase: why a model priced per input and output token is no
    # text-generation offer)
    (r"embed", "embedding model: no text output"),
    (r"(^|[^a-z])tts([^a-z]|$)", "speech synthesis: its output tokens are audio"),
    (r"transcri|whisper", "speech to text: its input is audio"),
    (r"(^|/)(gpt-image|chatgpt-image|ming-image)", "image generation: its output tokens are image tokens"),
    (r"moderation", "moderation classifier: no text output"),
]
"""Time zones (UTC offset in minutes, none with daylight saving) a window's whole hours may be written in."""

TEXT_KEYS = ("input_mtok", "cache_read_mtok", "cache_write_mtok", "cache_write_1h_mtok", "output_mtok")
CACHE_KEYS = TEXT_KEYS[1:4]
COLUMN_OF = {"input_mtok": "input_per_million", "cache_read_mtok": "cached_input_per_million",
             "cache_write_mtok": "cache_write_5m_per_million", "cache_write_1h_mtok": "cache_write_1h_per_million",
             "output_mtok": "output_per_million"}

COLUMNS = ["offer", "provider", "model", "input_per_million", "cached_input_per_million", "output_per_million",
           "currency", "quality", "as_of", "source", "notes", "cache_write_5m_per_million",
           "cache_write_1h_per_million", "batch_multiplier", "flex_multiplier", "priority_multiplier",
           "tier_applies_to_cache", "long_context_threshold_tokens", "long_context_input_per_million",
           "long_context_output_per_million", "region_uplift", "deprecated"]
PRICE_COLUMNS = [c for c in COLUMNS if c not in ("offer", "provider", "model", "quality", "as_of", "source", "notes")]
WINDOW_COLUMNS = ["window", "offer", "name", "days", "start_hour", "end_hour", "time_zone", "price_multiplier",
                  "effective_from", "quality", "as_of", "source", "notes"]
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
    """(standard ModelPrice, its start date or None, later dated prices, later time-of-day prices) on ``day``.

    Resolved as ``ModelInfo.get_prices`` does: the last price whose constraint holds wins, and the
    first price when none holds; a time-of-day price after the winner applies in its hours."""
    from genai_prices.types import ModelPrice, StartDateConstraint, TimeOfDateConstraint

    if isinstance(model.prices, ModelPrice):
        return model.prices, None, [], []
    chosen = 0
    for index in reversed(range(len(model.prices))):
        constraint = model.prices[index].constraint
        if constraint is None or (isinstance(constraint, StartDateConstraint) and constraint.start_date <= day):
            chosen = index
            break
    later = model.prices[chosen + 1:]
    start = getattr(model.prices[chosen].constraint, "start_date", None)
    future = [p for p in later if isinstance(p.constraint, StartDateConstraint)]
    by_clock = [p for p in later if isinstance(p.constraint, TimeOfDateConstraint)]
    return model.prices[chosen].prices, start, future, by_clock


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
        Decimal(o.price) / Decimal(s.price) for s, o in zip(_tiers(std), _tiers(other), strict=True) if s.price]


def _uniform(ratios: list[Decimal]) -> Decimal | None:
    return ratios[0] if ratios and all(_same(r, ratios[0]) for r in ratios) else None


def _variant_factor(std: dict, overrides: dict) -> tuple[Decimal | None, bool | None, str]:
    """(factor on input and output, whether it applies to cache prices (None: no cache price), problem)."""
    main = []
    for key in ("input_mtok", "output_mtok"):
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
    if not caches:
        return factor, None, ""
    cache = _uniform(caches)
    if cache is not None and _same(cache, factor):
        return factor, True, ""
    if cache is not None and cache == 1:
        return factor, False, ""
    return None, None, "cache prices change by another factor than input and output"


def _long_context(std: dict, notes: list[str]) -> dict[str, str]:
    """The long-context columns of a price whose tiered keys have one tier at one threshold."""
    tiered = {k: _tiers(v) for k, v in std.items() if k in TEXT_KEYS and _tiers(v)}
    if not tiered:
        return {}
    if any(len(t) > 1 for t in tiered.values()):
        notes.append("several prompt-size tiers (" + ", ".join(
            f"{k} from {', '.join(str(t.start) for t in v)} tokens" for k, v in tiered.items()) + "): the offer "
            "holds the price below the first tier")
        return {}
    starts = {t[0].start for t in tiered.values()}
    if len(starts) > 1:
        notes.append(f"prompt-size tiers at different thresholds {sorted(starts)}: not held")
        return {}
    (start,) = starts
    price = {k: Decimal(tiered[k][0].price) if k in tiered else Decimal(_base(std[k]))
             for k in ("input_mtok", "output_mtok")}
    base = {k: Decimal(_base(std[k])) for k in ("input_mtok", "output_mtok")}
    if any(price[k] < base[k] for k in price):
        notes.append(f"prompt-size tier above {start} tokens is cheaper than the base price: not held")
        return {}
    scale = price["input_mtok"] / base["input_mtok"]
    for key in CACHE_KEYS:
        if key in std and _base(std[key]):
            actual = Decimal(tiered[key][0].price) if key in tiered else Decimal(_base(std[key]))
            if not _same(actual, Decimal(_base(std[key])) * scale):
                notes.append(f"{key} above {start} tokens is {_number(actual)}, not {_number(_factor(scale))} x "
                             f"{_number(_base(std[key]))} = {_number(Decimal(_base(std[key])) * scale)} (the catalog "
                             "scales cache prices by the input's long-context factor)")
    return {"long_context_threshold_tokens": str(start),
            "long_context_input_per_million": _number(price["input_mtok"]),
            "long_context_output_per_million": _number(price["output_mtok"])}


def _clock_windows(offer: str, std, by_clock: list, source: str) -> tuple[dict | None, list[dict], str]:
    """(the prices the offer lists, its window rows, problem) of a model priced by the time of day."""
    sets = [_keys(std)] + [_keys(p.prices) for p in by_clock]
    listed = max(sets, key=lambda s: Decimal(_base(s.get("input_mtok", 0))))
    hours_of = []
    for index, prices in enumerate(sets):
        factors = []
        for key in TEXT_KEYS:
            if key in listed or key in prices:
                ratio = _ratio(listed.get(key), prices.get(key))
                if ratio is None:
                    return listed, [], f"{key} is not priced in every time-of-day price"
                factors += ratio
        factor = _uniform(factors)
        if factor is None:
            return listed, [], ("time-of-day prices change input, cache and output by different factors: the offer "
                                "lists the dearest (peak) price")
        if index == 0:
            hours_of.append((factor, None))
        else:
            hours_of.append((factor, by_clock[index - 1].constraint))
    windows = []
    for number, (factor, constraint) in enumerate(hours_of[1:], 1):
        start, end = (_utc_minutes(constraint.start_time), _utc_minutes(constraint.end_time))
        zone = next((z for offset, z in ZONES.items() if (start + offset) % 60 == 0 and (end + offset) % 60 == 0),
                    None)
        if zone is None:
            return listed, [], f"time-of-day price from {constraint.start_time} to {constraint.end_time} UTC is " \
                               "not in whole hours of a listed time zone"
        offset = next(o for o, z in ZONES.items() if z == zone)
        first, last = (start + offset) % 1440 // 60, (end + offset) % 1440 // 60 or 24
        spans = [(first, last)] if first < last else [(first, 24), (0, last)] if last else [(first, 24)]
        for part, (low, high) in enumerate(spans):
            name = "peak" if factor == 1 else "off-peak" if factor < 1 else "surcharge"
            utc = f"{constraint.start_time.strftime('%H:%M')}-{constraint.end_time.strftime('%H:%M')} UTC"
            windows.append({
                "window": f"{offer}-{name}-{number}" + (f"-{part + 1}" if len(spans) > 1 else ""), "offer": offer,
                "name": name, "days": "0-6", "start_hour": str(low), "end_hour": str(high), "time_zone": zone,
                "price_multiplier": _number(factor), "effective_from": "", "quality": "S", "as_of": RELEASED,
                "source": source,
                "notes": f"The package's time-of-day price {utc} every day" + (
                    f", written in {zone} (UTC+{offset // 60:02d}:{offset % 60:02d}, no daylight saving) for whole "
                    "hours" if offset else "")})
    rest = hours_of[0][0]
    if rest != 1:
        windows.append({"window": f"{offer}-off-peak", "offer": offer, "name": "off-peak" if rest < 1 else "other",
                        "days": "0-6", "start_hour": "0", "end_hour": "24", "time_zone": "UTC",
                        "price_multiplier": _number(rest), "effective_from": "", "quality": "S", "as_of": RELEASED,
                        "source": source, "notes": "The hours outside the rows above: the package's standard price"})
    return listed, windows, ""


def _utc_minutes(value: dt.time) -> int:
    if value.tzinfo is not None:
        value = dt.datetime.combine(dt.date(1970, 1, 1), value).astimezone(dt.UTC).time()
    return value.hour * 60 + value.minute


# --- one offer --------------------------------------------------------------------------------------------------

def package_row(provider, model, offer: str, day: dt.date = EFFECTIVE) -> tuple[dict | None, list, list[str]]:
    """(the CSV row of one package model or None, its window rows, what it cannot hold)."""
    std_price, start, future, by_clock = _prices_on(model, day)
    url = provider.pricing_urls[0] if provider.pricing_urls else provider.name
    source = f"{PACKAGE} {version(PACKAGE)} package data ({provider.id}/{model.id}), transcribing {url}"
    std = _keys(std_price)
    for pattern, why in NOT_TEXT_GENERATION:
        if re.search(pattern, model.id.lower()):
            return None, [], [f"not a text-generation model ({why})"]
    if not std:
        return None, [], ["no prices in the package (a free or unpriced model)"]
    missing: list[str] = []
    windows: list[dict] = []
    for item in future:
        missing.append(f"price from {item.constraint.start_date} not held (the offer holds the price in force "
                       f"on {day})")
    if by_clock:
        effective_from = start.isoformat() if start else ""
        listed, windows, problem = _clock_windows(offer, std_price, by_clock, source)
        for window in windows:
            window["effective_from"] = effective_from or RELEASED
        if problem:
            missing.append(problem)
        std = listed
    for key in ("input_mtok", "output_mtok"):
        if key not in std or not _base(std[key]):
            reason = "no output price (APIOffer needs one: embeddings, speech, images, moderation)" \
                if key == "output_mtok" and key not in std else \
                "no input price (APIOffer needs one)" if key not in std else f"{key} is 0 (a free model)"
            others = sorted(k for k in std if k not in TEXT_KEYS)
            return None, [], [reason + (f"; priced by {', '.join(others)}" if others else "")]
    for key in sorted(std):
        if key not in TEXT_KEYS:
            missing.append(f"{key} price not held")
    row = {c: "" for c in COLUMNS}
    row.update(offer=offer, provider=provider.name, model=model.name or model.id, currency="USD", quality="S",
               as_of=RELEASED, source=source)
    for key in TEXT_KEYS:
        if key in std:
            row[COLUMN_OF[key]] = _number(_base(std[key]))
    for key in CACHE_KEYS:
        if key in std and not _base(std[key]):
            missing.append(f"{key} is 0: not held (a catalog price is above 0; empty means the input price)")
            row[COLUMN_OF[key]] = ""
    row.update(_long_context(std, missing))
    variants, clock_variants, later_variants = _variants_on(model, day)
    for when in clock_variants:
        missing.append(f"price variant {', '.join(f'{k}={v}' for k, v in when)} by the time of day not held")
    for when, start_date in later_variants:
        missing.append(f"price variant {', '.join(f'{k}={v}' for k, v in when)} from {start_date} not held (the "
                       f"offer holds the prices in force on {day})")
    stacking: dict[str, bool] = {}
    for when, overrides in sorted(variants.items()):
        overrides = {k: v for k, v in overrides.items() if k in TEXT_KEYS}
        label = ", ".join(f"{k}={v}" for k, v in when)
        if not overrides or all(k in std and overrides[k] == std[k] for k in overrides):
            continue
        column = TIERS.get(when[0]) if len(when) == 1 else None
        is_region = len(when) == 1 and when[0][0] == REGION_KEY
        if column is None and not is_region:
            missing.append(f"price variant {label} not held (no such tier in the catalog)")
            continue
        factor, stacks, problem = _variant_factor(std, overrides)
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
            missing.append(f"price variant {label} not held: factor {_number(factor)} outside "
                           f"{_number(bounds[0])} to {_number(bounds[1])}")
            continue
        if stacks is not None and stacking and stacks not in stacking.values():
            missing.append(f"price variant {label} not held: its factor {'does' if stacks else 'does not'} apply "
                           "to cache prices, unlike the other tier's (the offer holds one rule)")
            continue
        if stacks is not None:
            stacking[column] = stacks
        row[column] = _number(factor)
    if stacking:
        row["tier_applies_to_cache"] = "true" if next(iter(stacking.values())) else "false"
    _keep_catalog_rules(row, missing)
    notes = [f"genai-prices id {provider.id}/{model.id}"]
    if start is not None:
        notes.append(f"price in force since {start}")
    if model.deprecated:
        notes.append("deprecated by the provider")
        row["deprecated"] = "true"
    if windows:
        notes.append("prices by the time of day: the listed price is the dearest, data/api_price_windows.csv "
                     "holds the factors")
    if missing:
        notes.append("not held: see data/sources/genai-prices/not_imported.csv")
    row["notes"] = "; ".join(notes)
    return row, windows, missing


def _keep_catalog_rules(row: dict, missing: list[str]) -> None:
    """Empty the prices that break an APIOffer rule, saying why."""
    def number(column):
        return Decimal(row[column]) if row[column] else None

    if number("cached_input_per_million") is not None and number("cached_input_per_million") > number(
            "input_per_million"):
        missing.append(f"cache read {row['cached_input_per_million']} above input {row['input_per_million']}: "
                       "breaks the catalog rule (a cache read costs at most an input token); cached input is "
                       "left at the input price")
        row["cached_input_per_million"] = ""
    five, hour = number("cache_write_5m_per_million"), number("cache_write_1h_per_million")
    if five is not None and hour is not None and hour < five:
        missing.append(f"1-hour cache write {row['cache_write_1h_per_million']} below the 5-minute one: breaks "
                       "the catalog rule; not held")
        row["cache_write_1h_per_million"] = ""


# --- the whole file ---------------------------------------------------------------------------------------------

def _generated(row: dict) -> bool:
    """Whether a CSV row was written by this script from the package (not by hand, not an override)."""
    return (row["source"].startswith(f"{PACKAGE} ") and " package data (" in row["source"]
            and not row["notes"].lower().startswith("override"))


def build(old_prices: str, old_windows: str, day: dt.date = EFFECTIVE) -> tuple[str, str, str, list[str]]:
    """(api_prices.csv, api_price_windows.csv, not_imported.csv, report lines) from the package and the old files.

    Rows of the old api_prices.csv the package does not give (hand-kept, override) are carried
    through; the ``MAPPING`` rows keep their wording with the package's prices."""
    from genai_prices.data import providers

    if version(PACKAGE) != PINNED:
        raise SystemExit(f"{PACKAGE} {version(PACKAGE)} is installed; this script reads the pinned {PINNED}")
    old = {r["offer"]: {c: r.get(c) or "" for c in COLUMNS} for r in csv.DictReader(io.StringIO(old_prices))}
    kept = {o: r for o, r in old.items() if o in MAPPING or not _generated(r)}
    standing_for = {ids: offer for offer, ids in {**MAPPING, **HAND_KEPT}.items() if offer in kept}
    rows: dict[str, dict] = {}
    windows: list[dict] = []
    skipped: list[dict] = []
    report: list[str] = []
    for provider in providers:
        for model in provider.models:
            ids = (provider.id, model.id)
            offer = standing_for.get(ids, slug(*ids))
            row, model_windows, missing = package_row(provider, model, offer, day)
            if row is not None and offer in rows:
                missing = [f"offer id {offer} already taken by {rows[offer]['source'].split('(')[1].split(')')[0]}"]
                row = None
            skipped += [{"provider": provider.id, "model": model.id, "offer": offer if row else "", "reason": m}
                        for m in missing]
            if row is None:
                continue
            if ids in standing_for and offer in HAND_KEPT:
                continue                         # the hand-kept row stands for it
            if offer in MAPPING and offer in kept and not kept[offer]["notes"].lower().startswith("override"):
                row = _refreshed(kept[offer], row, report)
            elif offer in kept:                   # an override
                report.append(f"kept {offer} (override): the package gives "
                              + ", ".join(f"{c}={row[c]}" for c in PRICE_COLUMNS if row[c] != kept[offer][c]))
                continue
            rows[offer] = row
            windows += model_windows
    for offer, row in kept.items():
        if offer not in rows:
            rows[offer] = row
    for ids, offer in standing_for.items():
        if offer not in rows:
            report.append(f"{offer}: the package has no {ids[0]}/{ids[1]}")
    generated_offers = {w["offer"] for w in windows}
    old_window_rows = list(csv.DictReader(io.StringIO(old_windows))) if old_windows else []
    carried = [{c: w.get(c) or "" for c in WINDOW_COLUMNS} for w in old_window_rows
               if w["offer"] not in generated_offers and not (
                   w["source"].startswith(f"{PACKAGE} ") and " package data (" in w["source"])]
    order = {offer: i for i, offer in enumerate(sorted(rows))}
    all_windows = sorted(carried + windows, key=lambda w: order.get(w["offer"], -1))    # stable within an offer
    return (_write(COLUMNS, [rows[o] for o in sorted(rows)]), _write(WINDOW_COLUMNS, all_windows),
            _write(NOT_IMPORTED_COLUMNS, sorted(skipped, key=lambda s: (s["provider"], s["model"], s["reason"]))),
            report)


def _refreshed(old: dict, new: dict, report: list[str]) -> dict:
    """A ``MAPPING`` row: its id and wording with the package's prices and source."""
    row = dict(old)
    changed = [c for c in PRICE_COLUMNS if _differs(old[c], new[c])]
    for column in PRICE_COLUMNS + ["source", "quality"]:
        row[column] = new[column] if column in changed or column in ("source", "quality") else old[column]
    if changed:
        row["as_of"] = RELEASED
        report.append(f"refreshed {old['offer']}: " + ", ".join(f"{c} {old[c] or '(empty)'} -> {new[c] or '(empty)'}"
                                                                for c in changed))
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
    parser.add_argument("--not-imported", type=Path, default=NOT_IMPORTED_CSV)
    args = parser.parse_args(argv)
    files = (args.path, args.windows, args.not_imported)
    olds = [p.read_text(encoding="utf-8") if p.exists() else "" for p in files]
    news = build(olds[0], olds[1])
    prices, windows, skipped, report = news
    rows = list(csv.DictReader(io.StringIO(prices)))
    missing = list(csv.DictReader(io.StringIO(skipped)))
    whole = {(m["provider"], m["model"]) for m in missing if not m["offer"]}
    print(f"{PACKAGE} {version(PACKAGE)}: {len(rows)} offers from {len({r['provider'] for r in rows})} providers; "
          f"{len(whole)} models not imported and {len(missing) - len(whole)} prices of imported ones not held "
          f"({args.not_imported.name}):", file=sys.stderr)
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
        for path, old, new, key in zip(files, olds, news[:3], ("offer", "window", None), strict=True):
            if old != new:
                lines += [f"{path.name}: {d}" for d in (differences(old, new, key) if key else ["differs"])]
        print("\n".join(lines) if lines else "up to date")
        return 1 if lines else 0
    for path, new in zip(files, news[:3], strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(new, encoding="utf-8")
    print(f"wrote {', '.join(str(p) for p in files)} from {PACKAGE} {version(PACKAGE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

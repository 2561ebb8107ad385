"""Refresh data/api_prices.csv from the price data shipped in pydantic's ``genai-prices`` package.

Usage::

    pip install "costmodel[prices]"          # genai-prices, MIT licence
    python scripts/refresh_api_prices.py     # rewrites data/api_prices.csv
    python scripts/refresh_api_prices.py --check   # exit 1 if the CSV differs from the package

``genai-prices`` ships its price table inside the package (``genai_prices.data``), so this
runs offline: it never calls the package's live updater. For each row of the CSV that
``MAPPING`` names, the prices (input, cache read, output, cache writes at the 5-minute and
1-hour time-to-live, the long-context tier, the batch tier's factor) are taken from the
package, the source column names the package version and the provider's price page, and
the grade is S (a maintained transcription of the official page). Rows the package lacks
(or prices only under a time-of-day rule, e.g. DeepSeek) and rows whose notes start with
``override`` are kept as they are, with their own sources. A review can therefore say which
snapshot it used: the package version in each refreshed row's source.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import sys
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path

CSV = Path(__file__).resolve().parents[1] / "data" / "api_prices.csv"

MAPPING = {
    # catalog offer id: (genai-prices provider id, model id)
    "anthropic-claude-opus-4-5": ("anthropic", "claude-opus-4-5"),
    "anthropic-claude-sonnet-4-5": ("anthropic", "claude-sonnet-4-5"),
    "anthropic-claude-haiku-4-5": ("anthropic", "claude-haiku-4-5"),
    "groq-llama-3-3-70b-versatile": ("groq", "llama-3.3-70b-versatile"),
    "together-llama-3-3-70b-turbo": ("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"),
}

COLUMNS = ["offer", "provider", "model", "input_per_million", "cached_input_per_million", "output_per_million",
           "currency", "quality", "as_of", "source", "notes", "cache_write_5m_per_million",
           "cache_write_1h_per_million", "batch_multiplier", "flex_multiplier", "priority_multiplier",
           "tier_applies_to_cache", "long_context_threshold_tokens", "long_context_input_per_million",
           "long_context_output_per_million", "region_uplift"]


def _number(value) -> str:
    return "" if value is None else format(Decimal(value).normalize(), "f")


def _split(value):
    """(base price, (threshold, price) of the first tier or None) of a flat or tiered price."""
    if value is None:
        return None, None
    tiers = getattr(value, "tiers", None)
    if tiers is None:
        return value, None
    return value.base, (tiers[0].start, tiers[0].price) if tiers else None


def package_row(provider_id: str, model_id: str) -> dict[str, str] | None:
    """The CSV columns genai-prices gives for one model, or None if it has no plain price for it."""
    from genai_prices.data import providers

    provider = next((p for p in providers if p.id == provider_id), None)
    model = None if provider is None else next((m for m in provider.models if m.id == model_id), None)
    if model is None or isinstance(model.prices, list):      # missing, or prices by date / time of day
        return None
    price = model.prices
    base_in, long_in = _split(price.input_mtok)
    base_out, long_out = _split(price.output_mtok)
    cache_read, _ = _split(getattr(price, "cache_read_mtok", None))
    write_5m, _ = _split(getattr(price, "cache_write_mtok", None))
    write_1h, _ = _split(getattr(price, "cache_write_1h_mtok", None))
    batch = next((v for v in (model.price_variants or []) if v.when == {"processing": "batch"}), None)
    batch_factor = stacks = None
    if batch is not None:
        batch_in, _ = _split(batch.prices.input_mtok)
        batch_factor = batch_in / base_in
        batch_read, _ = _split(getattr(batch.prices, "cache_read_mtok", None))
        if batch_read is not None and cache_read:
            stacks = "true" if batch_read / cache_read == batch_factor else "false"
    url = provider.pricing_urls[0] if provider.pricing_urls else provider.name
    return {
        "input_per_million": _number(base_in), "cached_input_per_million": _number(cache_read),
        "output_per_million": _number(base_out), "currency": "USD", "quality": "S",
        "source": f"genai-prices {version('genai-prices')} package data ({provider_id}/{model_id}), "
                  f"transcribing {url}",
        "cache_write_5m_per_million": _number(write_5m), "cache_write_1h_per_million": _number(write_1h),
        "batch_multiplier": _number(batch_factor), "tier_applies_to_cache": stacks or "",
        "long_context_threshold_tokens": "" if long_in is None else str(long_in[0]),
        "long_context_input_per_million": "" if long_in is None else _number(long_in[1]),
        "long_context_output_per_million": "" if long_out is None else _number(long_out[1]),
    }


def _differs(old: str, new: str) -> bool:
    try:
        return Decimal(old or "NaN").compare(Decimal(new or "NaN")) != 0 if (old and new) else old != new
    except ArithmeticError:
        return old != new


def refreshed(text: str, today: str) -> str:
    """The CSV text with every mapped row refreshed from the package."""
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        for column in COLUMNS:
            row.setdefault(column, "")
            row[column] = row[column] or ""
        if row["notes"].lower().startswith("override") or row["offer"] not in MAPPING:
            continue
        found = package_row(*MAPPING[row["offer"]])
        if found is None:
            continue
        if any(_differs(row[k], v) for k, v in found.items() if k not in ("source", "quality")):
            row["as_of"] = today
        row.update(found)
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: row[k] for k in COLUMNS} for row in rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report whether the CSV differs; change nothing")
    parser.add_argument("--path", type=Path, default=CSV)
    args = parser.parse_args(argv)
    old = args.path.read_text(encoding="utf-8")
    new = refreshed(old, dt.date.today().isoformat())
    if args.check:
        print("up to date" if new == old else "differs from genai-prices: run without --check")
        return 0 if new == old else 1
    args.path.write_text(new, encoding="utf-8")
    print(f"wrote {args.path} from genai-prices {version('genai-prices')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

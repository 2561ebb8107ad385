"""Finding catalog rows by the names people type, and flagging figures older than their table allows.

The catalog's ids are exact (``H100-SXM-80GB``, ``together-qwen-qwen3-32b``), but people type
``h100``, ``mi300x``, ``qwen3-32b`` or ``claude sonnet``. :func:`search` compares both in a
normalised form (lower case, letters and digits only), word by word, over a row's id and its
naming columns (name, provider, model, GPU, instance type, region, architecture, notes), and
ranks a match in the id above one in the name above one in the notes.

Prices move monthly; specs do not. :data:`STALE_AFTER_MONTHS` gives each table the age past
which its figures are flagged (by :func:`stale_rows`: in ``costmodel catalog stale``, in
``compare`` output and in the report's caveats). A row's age is counted from the end of the
period its ``as_of`` names (``2026`` is taken as true until 2026-12-31, ``2026-09`` until
2026-09-30), so a coarse date is never flagged early.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .catalog import _TABLE_FILES, Catalog, _Row

KINDS: dict[str, str] = {
    "gpus": "gpus",
    "servers": "servers",
    "rentals": "cloud_offers",
    "apis": "api_offers",
    "models": "models",
    "throughput": "throughput",
    "curves": "serving_curves",
    "training-runs": "training_runs",
    "grid": "grid_intensity",
    "pue": "datacenter_pue",
    "embodied": "embodied",
    "api-energy": "api_energy",
    "api-windows": "api_price_windows",
    "api-tiers": "api_price_tiers",
    "api-history": "api_price_history",
    "tax": "tax_depreciation",
    "cloud-extras": "cloud_extras",
}
"""Kind names of ``costmodel catalog list KIND`` → the :class:`~costmodel.catalog.Catalog` table."""

_ALIASES = {
    **KINDS,
    **{table: table for table in KINDS.values()},
    **{file.removesuffix(".csv"): table for table, file, _, _ in _TABLE_FILES},
    "gpu": "gpus",
    "accelerators": "gpus",
    "server": "servers",
    "rental": "cloud_offers",
    "cloud": "cloud_offers",
    "api": "api_offers",
    "llms": "models",
    "model": "models",
}

_BY_FORM = {re.sub(r"[\W_]+", "", alias.casefold()): table for alias, table in _ALIASES.items()}
"""The aliases in :func:`normalised` form: ``cloud-prices``, ``cloud_prices`` and ``CloudPrices`` are one."""

STALE_AFTER_MONTHS: dict[str, int | None] = {
    "cloud_offers": 6,
    "api_offers": 6,
    "api_price_windows": 6,
    "api_price_tiers": 6,
    "api_price_history": None,
    "servers": 12,
    "throughput": 24,
    "serving_curves": 24,
    "grid_intensity": 24,
    "datacenter_pue": 24,
    "api_energy": 24,
    "embodied": 36,
    "gpus": None,
    "models": None,
    "training_runs": None,
    "tax_depreciation": None,
    "cloud_extras": 6,
}
"""Months after its as-of date past which a table's figure is flagged as stale; None: never (a
datasheet's spec, a model's shape, a published run and a tax table do not age)."""

_SEARCH_ORDER = ["gpus", "models", "servers", "cloud_offers", "api_offers"]
"""Kinds a search lists first: the hardware and the model a question starts from, then their prices."""

_NAMING = (
    "name",
    "provider",
    "model",
    "gpu",
    "instance_type",
    "region",
    "architecture",
    "curve",
    "schedule",
    "ecologits_model",
    "offer",
)


def kind_of(text: str) -> str:
    """The catalog table a kind name means (``rentals``, ``apis``, ``cloud_prices``, ``gpus``, …).

    Raises
    ------
    ValueError
        No table is called that; the message lists the kinds.
    """
    table = _BY_FORM.get(normalised(text))
    if table is None:
        raise ValueError(
            f"unknown kind {text!r}: the kinds are {', '.join(KINDS)} (GPU-hour prices are rentals, token prices apis)"
        )
    return table


def kind_name(file: str) -> str:
    """The kind name of ``costmodel catalog list`` for a catalog file (``cloud_prices.csv`` → ``rentals``)."""
    table = _ALIASES.get(file.rsplit("/", 1)[-1].removesuffix(".csv"), file)
    return next((kind for kind, name in KINDS.items() if name == table), file)


def normalised(text: str) -> str:
    """``text`` in lower case with only its letters and digits: ``H100-SXM-80GB`` → ``h100sxm80gb``."""
    return re.sub(r"[\W_]+", "", text.casefold())


def _words(text: str) -> list[str]:
    """The words of ``text``: its runs of letters and digits, in lower case (``L40S-48GB`` → l40s, 48gb)."""
    return re.findall(r"[^\W_]+", str(text).casefold())


def _holds(words: list[str], tokens: set[str]) -> bool:
    """Whether every word begins one of the tokens: ``l40s`` finds ``L40S-48GB`` but not ``1x_L40_SECURE``,
    ``h200`` not ``GH200``."""
    return all(any(token.startswith(word) for token in tokens) for word in words)


@dataclass(frozen=True)
class Match:
    """One row found by :func:`search`: its table, id, row and how well it matched (0 best)."""

    table: str
    ident: str
    row: _Row
    rank: int


def _fields(ident: str, row: _Row) -> tuple[set[str], set[str], set[str]]:
    """The words of a row's id, of its id and naming columns, and of all those and its notes."""
    naming = " ".join(
        str(getattr(row, name)) for name in _NAMING if name != row.key and isinstance(getattr(row, name, None), str)
    )
    key = set(_words(ident))
    named = key | set(_words(naming))
    return key, named, named | set(_words(row.notes))


def search(catalog: Catalog, text: str, tables: Iterable[str] | None = None, limit: int | None = None) -> list[Match]:
    """The rows whose id, naming columns or notes hold every word of ``text``, best first.

    Parameters
    ----------
    catalog
        The catalog searched.
    text
        What the user typed, e.g. ``mi300x``, ``qwen3-32b`` or ``claude sonnet``: every word (run of
        letters and digits, any case) must begin a word of the id, a naming column or the notes.
    tables
        Catalog tables to search (default all).
    limit
        Most matches returned (default all).

    Returns
    -------
    list of Match
        Ranked: the id itself (0), every word in the id (1), in the id or naming columns (2),
        anywhere (3); then
        by kind (GPUs, models, servers, rentals, APIs, ...), the shorter id, then the id.
    """
    words = _words(text)
    found = [
        match
        for table in (tables if tables is not None else KINDS.values())
        for match in _matches(table, getattr(catalog, table), words)
    ]
    order = _SEARCH_ORDER + [t for t in KINDS.values() if t not in _SEARCH_ORDER]
    found.sort(key=lambda m: (m.rank, order.index(m.table), len(m.ident), m.ident))
    return found[:limit] if limit is not None else found


def _matches(table: str, rows: dict[str, _Row], words: list[str]) -> list[Match]:
    if not words:
        return []
    exact = "".join(words)
    found = []
    for ident, row in rows.items():
        key, named, everything = _fields(str(ident), row)
        if normalised(str(ident)) == exact:
            rank = 0
        elif _holds(words, key):
            rank = 1
        elif _holds(words, named):
            rank = 2
        elif _holds(words, everything):
            rank = 3
        else:
            continue
        found.append(Match(table, ident, row, rank))
    return found


def suggestions(rows: dict[str, _Row], word: str, most: int = 3) -> list[str]:
    """Up to ``most`` ids of one table (``rows``, by id) a mistyped ``word`` may have meant: the rows
    :func:`search` finds for it, else the closest spellings (:func:`difflib.get_close_matches`)."""
    import difflib

    found = _matches("", rows, _words(word))
    found.sort(key=lambda m: (m.rank, len(m.ident), m.ident))
    if found:
        return [m.ident for m in found[:most]]
    by_form = {normalised(str(ident)): str(ident) for ident in rows}
    return [by_form[f] for f in difflib.get_close_matches(normalised(str(word)), by_form, n=most, cutoff=0.6)]


def close_ids(catalog: Catalog, word: str, most: int = 5) -> list[str]:
    """Up to ``most`` ids of any table a mistyped or partial ``word`` may mean (:func:`suggestions` per table)."""
    found: list[str] = []
    for table in _SEARCH_ORDER + [t for t in KINDS.values() if t not in _SEARCH_ORDER]:
        found += [ident for ident in suggestions(getattr(catalog, table), word, most) if ident not in found]
    return found[:most]


def period_end(as_of: str) -> dt.date:
    """The last day of the period an ``as_of`` names: ``2026`` → 2026-12-31, ``2026-09`` → 2026-09-30."""
    parts = [int(p) for p in as_of.split("-")]
    if len(parts) == 3:
        return dt.date(*parts)
    if len(parts) == 2:
        return dt.date(parts[0], parts[1], calendar.monthrange(parts[0], parts[1])[1])
    return dt.date(parts[0], 12, 31)


def months_between(earlier: dt.date, later: dt.date) -> int:
    """Whole months from ``earlier`` to ``later`` (0 when ``later`` is not past ``earlier``'s month-day)."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month - (later.day < earlier.day)
    return max(months, 0)


@dataclass(frozen=True)
class StaleRow:
    """A catalog figure older than its table allows (see :data:`STALE_AFTER_MONTHS`)."""

    table: str
    row: _Row
    age_months: int
    limit_months: int
    today: dt.date

    def describe(self) -> str:
        """``data/cloud_prices.csv: nebius-h100 is as of 2026-03, more than 6 months before 2026-12-02 (rentals
        are flagged after 6 months)``."""
        return (
            f"{self.row.source_file}: {self.row.ident} is as of {self.row.as_of}, more than "
            f"{self.limit_months} months before {self.today.isoformat()} ({kind_name(self.table)} are flagged "
            f"after {self.limit_months} months)"
        )


def _table_of(row: _Row) -> str:
    return next(table for table, _, row_type, _ in _TABLE_FILES if isinstance(row, row_type))


def review_date() -> dt.date:
    """The date figures are judged stale on: ``COSTMODEL_TODAY`` (an ISO date, to reproduce a review as
    of its day) if set, else today.

    Raises
    ------
    ValueError
        ``COSTMODEL_TODAY`` is not an ISO date (YYYY-MM-DD).
    """
    import os

    text = os.environ.get("COSTMODEL_TODAY", "").strip()
    if not text:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else _bad_date(text)
    except ValueError:
        return _bad_date(text)


def _bad_date(text: str):
    raise ValueError(f"COSTMODEL_TODAY={text!r} is not a date as YYYY-MM-DD")


def stale_rows(rows: Iterable[_Row], today: dt.date | None = None) -> list[StaleRow]:
    """The rows older than their table's :data:`STALE_AFTER_MONTHS` on ``today`` (default:
    :func:`review_date`), oldest first; each row once."""
    today = today or review_date()
    found, seen = [], set()
    for row in rows:
        table = _table_of(row)
        limit = STALE_AFTER_MONTHS.get(table)
        if limit is None or (table, row.ident) in seen:
            continue
        seen.add((table, row.ident))
        age = months_between(period_end(row.as_of), today)
        if age > limit:
            found.append(StaleRow(table, row, age, limit, today))
    found.sort(key=lambda s: (-s.age_months, s.table, s.row.ident))
    return found


def all_rows(catalog: Catalog) -> list[_Row]:
    """Every row of every table of ``catalog``."""
    return [row for table in KINDS.values() for row in getattr(catalog, table).values()]


__all__ = [
    "KINDS",
    "STALE_AFTER_MONTHS",
    "Match",
    "StaleRow",
    "all_rows",
    "close_ids",
    "kind_name",
    "kind_of",
    "months_between",
    "normalised",
    "period_end",
    "review_date",
    "search",
    "stale_rows",
    "suggestions",
]

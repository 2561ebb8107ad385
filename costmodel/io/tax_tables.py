"""Tax depreciation tables from ``data/tax_depreciation.csv`` (IRS Publication 946, Table A-1)."""

from __future__ import annotations

import csv
from functools import cache

from ..errors import InputError
from ..paths import DATA_DIR

TAX_TABLE_FILE = DATA_DIR / "tax_depreciation.csv"


@cache
def depreciation_table(schedule: str) -> tuple[float, ...]:
    """Yearly shares of cost deducted in recovery years 1, 2, … of a schedule (``macrs_5``). [-]

    Raises
    ------
    InputError
        The schedule is not in the file, or its years are not 1, 2, … in order, or they do not sum to 100 %.
    """
    with TAX_TABLE_FILE.open(newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["schedule"] == schedule]
    if not rows:
        raise InputError(f"{TAX_TABLE_FILE.name}: no rows for the depreciation schedule {schedule!r}")
    years = [int(row["recovery_year"]) for row in rows]
    if years != list(range(1, len(rows) + 1)):
        raise InputError(f"{TAX_TABLE_FILE.name}: the years of {schedule!r} must be 1, 2, ... in order, got {years}")
    shares = tuple(float(row["percent"]) / 100.0 for row in rows)
    if abs(sum(shares) - 1.0) > 1e-9:
        raise InputError(f"{TAX_TABLE_FILE.name}: the shares of {schedule!r} sum to {sum(shares):.6f}, not 1")
    return shares


__all__ = ["TAX_TABLE_FILE", "depreciation_table"]

"""Units and calendar conventions used everywhere in costmodel.

One month is one twelfth of a 365-day year: 730 hours, 30.4167 days. Every monthly
figure (GPU-hours per month, tokens per month, USD per month) uses this convention;
nothing in the package uses calendar months of 28 to 31 days.

Money is a plain float with a currency code beside it (ISO 4217, e.g. ``USD``). A
scenario converts every amount into its reporting currency with the FX rates it states.
"""

from __future__ import annotations

HOURS_PER_YEAR: float = 8760.0
"""Hours in a 365-day year. [h]"""

MONTHS_PER_YEAR: int = 12

HOURS_PER_MONTH: float = HOURS_PER_YEAR / MONTHS_PER_YEAR
"""Hours in the model's month: 8,760 / 12 = 730. [h]"""

DAYS_PER_MONTH: float = 365.0 / MONTHS_PER_YEAR
"""Days in the model's month: 365 / 12 = 30.4167. [d]"""

SECONDS_PER_HOUR: float = 3600.0
SECONDS_PER_DAY: float = 86400.0
TOKENS_PER_MILLION: float = 1e6

SMALLEST_INPUT: float = 1e-9
"""Smallest magnitude a non-zero figure may have, in a scenario or a catalog row (an MFU of
1e-300 is a typo)."""

LARGEST_INPUT: float = 1e15
"""Largest magnitude a figure may have, in a scenario or a catalog row (so no cost can overflow
to infinity)."""


def implausible_magnitude(value: float) -> bool:
    """Whether a non-zero figure lies outside :data:`SMALLEST_INPUT` to :data:`LARGEST_INPUT` in
    magnitude (zero is plausible)."""
    return value != 0 and not SMALLEST_INPUT <= abs(value) <= LARGEST_INPUT

"""Numbers as a reviewer reads them: one module for text, tables and charts alike.

Rules: money to 3 significant figures with k / M / B and the currency ("1.06 M USD") in
prose and summaries, with thousands separators and no decimals in tables of amounts, except a
figure on the decision measure, which the verdict prints as the ranked table beside it does
(:func:`measure_figure`: "3,548.61", so one quantity reads the same everywhere it is named); shares
as percentages ("68.5 %"); every value with its unit; a value that does not exist is a word
("never", "not defined"), never blank, NaN, infinity or "-0".
"""

from __future__ import annotations

import math

from ..results import MEASURE_TITLES

_SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def _clean(x: float) -> float:
    return 0.0 if x == 0 else x  # -0.0 reads as 0


def significant(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant figures with thousands separators, no exponent.

    Examples
    --------
    >>> significant(3.58712e6)
    '3,590,000'
    >>> significant(0.000123456)
    '0.000123'
    """
    x = _clean(float(x))
    if not math.isfinite(x):
        return "not defined"
    if x == 0:
        return "0"
    exponent = int(math.floor(math.log10(abs(x))))
    rounded = round(x, digits - 1 - exponent)
    return f"{_clean(rounded):,.{max(digits - 1 - exponent, 0)}f}"


def stated(x: float, digits: int = 6) -> str:
    """A stated figure as its source gives it: up to ``digits`` significant figures, no trailing zeros.

    Examples
    --------
    >>> stated(3.4), stated(3.401333), stated(3548.61)
    ('3.4', '3.40133', '3,548.61')
    """
    text = significant(x, digits)
    return text.rstrip("0").rstrip(".") if "." in text else text


def short(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant figures with k / M / B / T.

    Examples
    --------
    >>> short(1_056_233_792)
    '1.06 B'
    >>> short(52_773.3)
    '52.8 k'
    >>> short(-228_448)
    '-228 k'
    >>> short(4.5)
    '4.50'
    """
    x = _clean(float(x))
    if not math.isfinite(x):
        return "not defined"
    for scale, suffix in _SCALES:
        if abs(x) >= scale * 0.9995:
            return f"{_precise(x / scale, digits)} {suffix}"
    return _precise(x, digits)


def _precise(x: float, digits: int) -> str:
    if x == 0:
        return "0"
    decimals = max(digits - 1 - int(math.floor(math.log10(abs(x)))), 0)
    return f"{_clean(round(x, decimals)):,.{decimals}f}"


def money(x: float | None, currency: str, digits: int = 3) -> str:
    """An amount in k / M / B with its currency: ``1.06 M USD``; None reads "not defined".

    Examples
    --------
    >>> money(3_236_013.56, "USD")
    '3.24 M USD'
    >>> money(None, "USD")
    'not defined'
    """
    return "not defined" if x is None else f"{short(x, digits)} {currency}"


def amount(x: float | None, decimals: int = 2) -> str:
    """A plain number with thousands separators and fixed decimals; None reads "not defined".

    Examples
    --------
    >>> amount(12070)
    '12,070.00'
    >>> amount(-0.0, 0)
    '0'
    """
    return "not defined" if x is None else f"{_clean(round(float(x), decimals)):,.{decimals}f}"


def measure_figure(x: float | None) -> str:
    """A figure on the decision measure (a candidate's, or the margin between two), as the verdict sentence and
    the ranked candidates beside it both print it: grouped digits, two decimals; None reads "not defined".

    Examples
    --------
    >>> measure_figure(3548.6123), measure_figure(10.3749)
    ('3,548.61', '10.37')
    """
    return amount(x, 2)


def share(x: float | None, decimals: int = 1) -> str:
    """A fraction as a percentage: ``0.685`` reads ``68.5 %``; None reads "not defined".

    Examples
    --------
    >>> share(0.684932)
    '68.5 %'
    """
    return "not defined" if x is None else f"{_clean(round(100 * float(x), decimals)):.{decimals}f} %"


def volume_display(kind: str) -> tuple[float, str]:
    """Divisor and unit label for showing volumes: tokens per day in millions.

    Returns
    -------
    tuple of (float, str)
        ``(1e6, "M tokens/day")`` for a tokens workload, ``(1.0, "GPU-hours/month")``
        otherwise.
    """
    if kind == "tokens":
        return 1e6, "M tokens/day"
    return 1.0, "GPU-hours/month"


def volume(kind: str, value: float | None) -> str:
    """A volume as text in its display unit; None reads "never".

    Millions of tokens per day show two decimals; GPU-hours per month show none, and from a
    million on read in M / B to 3 significant figures.

    Examples
    --------
    >>> volume("tokens", 34_013_307)
    '34.01 M tokens/day'
    >>> volume("gpu_hours", 3_464_525)
    '3.46 M GPU-hours/month'
    >>> volume("gpu_hours", None), volume("tokens", 0.0)
    ('never', '0 tokens/day')
    """
    if value is None:
        return "never"
    scale, unit = volume_display(kind)
    if value == 0:  # "0.00 M tokens/day" read as a rounded small number
        return f"0 {unit.removeprefix('M ')}"
    if scale == 1 and abs(value) >= 999_500:
        return f"{short(value)} {unit}"
    return f"{amount(value / scale, 2 if scale > 1 else 0)} {unit}"


def gpu_hours(x: float, unit: bool = True) -> str:
    """GPU-hours of a run: in millions to three decimals from a million on, else whole ("77 GPU-hours", not
    "0.000 M GPU-hours"); ``unit=False`` leaves out "GPU-hours" (not the "M").

    Examples
    --------
    >>> gpu_hours(2_664_000), gpu_hours(77.3), gpu_hours(532_000, unit=False)
    ('2.664 M GPU-hours', '77 GPU-hours', '532,000')
    """
    shown = f"{amount(x / 1e6, 3)} M" if abs(x) >= 999_500 else amount(x, 0)
    return f"{shown} GPU-hours" if unit else shown


def rate_per_year(x: float) -> str:
    """A yearly rate as a percentage a year: ``0.08`` reads ``8.0 %/year``."""
    return f"{share(x)}/year"


def unit_suffix(unit: str) -> str:
    """ " <unit>" to write after a figure; nothing for a pure number (the schema's unit "-", or none).

    Examples
    --------
    >>> unit_suffix("FTE"), unit_suffix("-"), unit_suffix("")
    (' FTE', '', '')
    """
    return "" if unit in ("", "-") else f" {unit}"


def plural(n: float, word: str) -> str:
    """A whole count with its noun, singular for one: ``1 GPU``, ``8 GPUs``, ``1,250 servers``.

    Examples
    --------
    >>> plural(1, "GPU"), plural(16, "server")
    ('1 GPU', '16 servers')
    """
    n = int(round(float(n)))
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def count(x: float, unit: str) -> str:
    """A count of things with its unit, a whole number with thousands separators: ``24 GPUs``.

    Examples
    --------
    >>> count(8192, "GPUs")
    '8,192 GPUs'
    """
    return f"{int(round(float(x))):,} {unit}"


def measure_title(measure: str) -> str:
    """The title of a decision measure, or the measure as given when it has none.

    ``measure`` is a :class:`costmodel.results.Measure` or its value (a result read back from JSON
    holds the text); the titles are :data:`costmodel.results.MEASURE_TITLES`.

    >>> measure_title("present_value")
    'present value of costs'
    >>> measure_title("something else")
    'something else'
    """
    titles = {str(key): title for key, title in MEASURE_TITLES.items()}
    return titles.get(measure, measure)

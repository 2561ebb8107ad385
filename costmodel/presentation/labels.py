"""Text widths, wrapped labels and tick values that keep a chart's texts apart, whatever the scenario.

A chart's titles, option names and break-even values come from the user's scenario, in any number and
at any length. Vega-Lite neither wraps a title nor keeps labels placed by a chart's own marks apart,
so the charts measure their texts here, before Vega draws them: subtitles and option names are wrapped
to the width they have, break-even labels are stacked in rows where they would touch, and log axes get
explicit 1-2-5 tick values that fit.

Widths come from the advance widths of Helvetica (Adobe's Core 14 font metrics, ``Helvetica.afm`` and
``Helvetica-Bold.afm``), which Arial and Liberation Sans, the charts' font (:data:`charts.FONT`),
share by design: the widths here are those vl-convert and a browser measure, to a fraction of a pixel.
This module imports nothing but the standard library.

References
----------
.. [1] Adobe Core 14 AFM files, Helvetica and Helvetica-Bold (``Adobe-Core35_AFMs-314``), the ``WX``
   widths of the ASCII glyphs, in 1/1000 em.
.. [2] Liberation fonts: metric-compatible with Arial, Times New Roman and Courier New,
   https://github.com/liberationfonts/liberation-fonts
"""

from __future__ import annotations

import math
import unicodedata

_ASCII = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
# One row of 16 widths a line, in the order of _ASCII (kept as a table, not one number a line).
# fmt: off
_REGULAR = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
]
_BOLD = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
]
# fmt: on
WIDTHS = {False: dict(zip(_ASCII, _REGULAR, strict=True)), True: dict(zip(_ASCII, _BOLD, strict=True))}
"""Advance width of each ASCII character, regular (False) and bold (True). [1/1000 em]"""

_OTHER = {
    "…": 1000,
    "–": 556,
    "—": 1000,
    "×": 584,
    "’": 222,
    "‘": 222,
    "“": 333,
    "”": 333,
    "€": 556,
    "£": 556,
    "≥": 549,
    "≤": 549,
    "°": 400,
    "µ": 576,
    "·": 278,
    "•": 350,
    "\u00a0": 278,
}
"""Widths of the non-ASCII characters the charts write themselves (Arial's). [1/1000 em]"""

WIDE = 1000
"""Width taken for a character of a wide script (CJK) and for one not otherwise known. [1/1000 em]"""


def _char_width(char: str, bold: bool) -> float:
    table = WIDTHS[bold]
    if char in table:
        return table[char]
    if char in _OTHER:
        return _OTHER[char]
    base = unicodedata.normalize("NFKD", char)[:1]  # é -> e, Å -> A: accents do not add width
    if base in table:
        return table[base]
    return WIDE if unicodedata.east_asian_width(char) in ("W", "F") else 0.6 * WIDE


def text_width(text: str, font_size: float, bold: bool = False) -> float:
    """Width of one line of text in the charts' font.

    Parameters
    ----------
    text
        One line (no line breaks).
    font_size
        Font size. [px]
    bold
        Bold (chart titles, axis titles) or regular.

    Returns
    -------
    float
        Advance width of the line, without kerning (which narrows a line by a pixel or two). [px]

    Examples
    --------
    >>> text_width("Own cluster", 11)    # O w n space c l u s t e r: 5,279 / 1000 em at 11 px
    58.069
    """
    return round(sum(_char_width(c, bold) for c in text) * font_size / 1000, 6)


def wrap(text: str, width: float, font_size: float, bold: bool = False) -> list[str]:
    """``text`` broken into lines no wider than ``width``, at spaces (a word wider than that is cut).

    Parameters
    ----------
    text
        The text; runs of spaces count as one.
    width
        Most width of a line. [px]
    font_size
        Font size. [px]
    bold
        Bold or regular.

    Returns
    -------
    list of str
        At least one line (``[""]`` for an empty text).

    Examples
    --------
    >>> wrap("Own cluster in a colocation facility", 100, 11)
    ['Own cluster in a', 'colocation facility']
    """
    lines: list[str] = []
    for word in text.split():
        while len(word) > 1 and text_width(word, font_size, bold) > width:  # a word wider than a line: cut
            cut = max([i for i in range(1, len(word)) if text_width(word[:i], font_size, bold) <= width] or [1])
            lines.append(word[:cut])
            word = word[cut:]
        if lines and text_width(f"{lines[-1]} {word}", font_size, bold) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]


def wrap_all(lines: list[str] | str, width: float, font_size: float, bold: bool = False) -> list[str]:
    """Each of ``lines`` wrapped to ``width`` (:func:`wrap`), in one list of lines. [px]"""
    return [
        part for line in ([lines] if isinstance(lines, str) else lines) for part in wrap(line, width, font_size, bold)
    ]


def stack_rows(
    centres: list[float], widths: list[float], gap: float = 6.0, left: float = 0.0, right: float = math.inf
) -> tuple[list[int], list[float]]:
    """Rows for labels centred on given x positions, so that no two labels in one row touch.

    Each label goes, in order of its x, into the lowest row where it keeps ``gap`` from every label
    already there (first fit). A label is moved inwards to stay between ``left`` and ``right``.

    Parameters
    ----------
    centres
        x of each label's centre (its rule). [px]
    widths
        Width of each label. [px]
    gap
        Least space between two labels in a row. [px]
    left, right
        The room's edges. [px]

    Returns
    -------
    (rows, shown)
        The row of each label (0 is the lowest) and the x of its centre as drawn (moved inwards at
        the edges), both in the order of ``centres``. [-], [px]

    Examples
    --------
    >>> stack_rows([100.0, 110.0, 300.0], [30.0, 30.0, 30.0])[0]     # the first two would overlap
    [0, 1, 0]
    """
    order = sorted(range(len(centres)), key=lambda i: centres[i])
    rows, shown = [0] * len(centres), [0.0] * len(centres)
    taken: list[list[tuple[float, float]]] = []  # each row's occupied spans
    for i in order:
        half = widths[i] / 2
        centre = min(max(centres[i], left + half), right - half) if right - left >= widths[i] else centres[i]
        span = (centre - half, centre + half)
        row = next(
            (k for k, spans in enumerate(taken) if all(span[0] >= b + gap or span[1] <= a - gap for a, b in spans)),
            len(taken),
        )
        if row == len(taken):
            taken.append([])
        taken[row].append(span)
        rows[i], shown[i] = row, centre
    return rows, shown


MANTISSAS = ((1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0), (1.0, 2.0, 3.0, 5.0), (1.0, 2.0, 5.0), (1.0, 3.0), (1.0,))
"""Tick values within a decade tried by :func:`log_ticks`, densest first."""


def nice_log_domain(low: float, high: float) -> tuple[float, float]:
    """The 1-2-5 values just below ``low`` and just above ``high``: a log axis's ends. [axis unit]

    Examples
    --------
    >>> nice_log_domain(1_300_000, 28_000_000)
    (1000000.0, 50000000.0)
    """
    if not (low > 0 and high >= low and math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"a log axis needs 0 < low <= high, finite; got {low!r} to {high!r}")
    steps = (1.0, 2.0, 5.0, 10.0)

    def below(v: float) -> float:
        decade = 10.0 ** math.floor(math.log10(v))
        return max(decade * m for m in steps if decade * m <= v * (1 + 1e-9))

    def above(v: float) -> float:
        decade = 10.0 ** math.floor(math.log10(v))
        return min(decade * m for m in steps if decade * m >= v * (1 - 1e-9))

    low, high = below(low), above(high)
    return float(f"{low:.12g}"), float(f"{high if high > low else high * 2:.12g}")


def log_ticks(low: float, high: float, length: float, label_size, most: int = 10) -> list[float]:
    """Tick values of a log axis from ``low`` to ``high`` whose labels do not touch.

    The densest of :data:`MANTISSAS` (then every decade, every second decade, ...) that puts at
    most ``most`` ticks on the axis and leaves at least 4 px between neighbouring labels.

    Parameters
    ----------
    low, high
        The axis's domain, ``0 < low < high``. [axis unit]
    length
        The axis's length on screen. [px]
    label_size
        ``label_size(value)``: the room one tick's label takes along the axis (its width on an x axis,
        its line height on a y axis). [px]
    most
        Most ticks. [-]

    Returns
    -------
    list of float
        Ascending; at least the decades (or fewer of them) when nothing denser fits, and at least two
        values when the domain spans a factor of 2 or more.

    Examples
    --------
    >>> log_ticks(1.0, 1000.0, 400.0, lambda v: 30.0)
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
    """
    span = math.log10(high / low)

    def position(v: float) -> float:
        return length * math.log10(v / low) / span

    def fits(values: list[float]) -> bool:
        return len(values) <= most and all(
            position(b) - position(a) >= (label_size(a) + label_size(b)) / 2 + 4 for a, b in zip(values, values[1:])
        )

    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    candidates = [
        [float(f"{m * 10.0**d:.12g}") for d in range(first, last + 1) for m in mantissas] for mantissas in MANTISSAS
    ]
    candidates += [
        [float(f"{10.0**d:.12g}") for d in range(first, last + 1) if d % step == 0] for step in (2, 3, 5, 10, 20, 50)
    ]
    tried = []
    for values in candidates:
        inside = [v for v in values if low * (1 - 1e-9) <= v <= high * (1 + 1e-9)]
        tried.append(inside)
        if len(inside) >= 2 and fits(inside):
            return inside
    return next((v for v in reversed(tried) if v), [float(low)])

"""Altair charts of a comparison: cost against volume, cost components, and a theme.

Importing this module imports Altair; :mod:`costmodel` itself does not. Each chart
function takes a resolved scenario and results (from :mod:`costmodel.domain`) and returns
an Altair chart. Reports render charts as SVG with vl-convert (``use_renderer("svg")``), so the
HTML holds the picture itself and needs no JavaScript or network to show it.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .. import formulas
from ..domain.capacity import capacity_volume, gpu_count, gpu_hours_used, own_option, own_servers_priced, step_volumes
from ..domain.costs import own_capex_lines, own_costs_at, own_facility_capex
from ..domain.finance import own_cost_per_used_gpu_hour
from ..domain.mix import cheapest_mix, cost_against_level, offer
from ..domain.sweep import Columns, cost_sweep
from ..resolved import Resolved, as_resolved
from ..results import DEPRECIATION, LAYER_LABELS, Comparison, Layer
from . import format as fmt
from . import labels, text

TITLE_SIZE, SUBTITLE_SIZE, LABEL_SIZE, AXIS_TITLE_SIZE = 14, 11, 11, 12
"""Font sizes of the theme: chart title (bold), subtitle, axis and legend labels, axis title (bold). [px]"""
LINE_HEIGHT = LABEL_SIZE + 2
"""Vega's height of one line of a label of :data:`LABEL_SIZE` (its font size plus 2). [px]"""

OPTION_COLOURS = {"own": "#1f77b4", "rent": "#ff7f0e", "api": "#2ca02c"}
"""One colour per kind of option, the same in every chart."""
EXTRA_COLOURS = ["#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
"""Colours of further options of a kind already shown (a second and third API offer, ...)."""

COMPONENT_COLOURS = {
    "capex depreciation": "#1f77b4",
    "capital recovery": "#1f77b4",
    "hardware support": "#aec7e8",
    "colocation": "#9467bd",
    "electricity": "#bcbd22",
    "GPU rental": "#ff7f0e",
    "staffing": "#8c564b",
    "input tokens": "#2ca02c",
    "cached input tokens": "#98df8a",
    "output tokens": "#17becf",
    "facility depreciation": "#c5b0d5",
    "facility capital recovery": "#c5b0d5",
    "managed service": "#c49c94",
    "software licences": "#e377c2",
    "cache write tokens": "#006d2c",
    "reasoning tokens": "#0e6e7a",
    "audio input tokens": "#74c476",
    "image input tokens": "#c7e9c0",
    "audio output tokens": "#9edae5",
    "request and search fees": "#d62728",
    "citation tokens": "#ff9896",
    "storage": "#ffbb78",
    "egress": "#f7b6d2",
    "CPU nodes": "#dbdb8d",
    "support plan": "#6b6ecf",
}
"""One colour per cost component, the same in every report; a component not listed takes a colour of
:data:`SPARE_COMPONENT_COLOURS` in turn, never one already in use."""

SPARE_COMPONENT_COLOURS = ["#7f7f7f", "#bcbd22", "#393b79", "#843c39", "#7b4173", "#637939"]

_THEME = "costmodel"

_SHORT_LABEL = (
    "abs(datum.value) >= 1e9 ? format(datum.value / 1e9, '~r') + ' B' : "
    "abs(datum.value) >= 1e6 ? format(datum.value / 1e6, '~r') + ' M' : "
    "abs(datum.value) >= 1e3 ? format(datum.value / 1e3, '~r') + ' k' : format(datum.value, '~r')"
)


def short_axis(**options) -> alt.Axis:
    """An axis of money or volume whose tick labels read as in the text: 240 M, 52.5 k (k / M / B, no unit
    in the labels: the axis title carries it)."""
    return alt.Axis(labelExpr=_SHORT_LABEL, **options)


def count_axis(top: float | None = None, **options) -> alt.Axis:
    """An axis of whole things (GPUs, servers): integer ticks only.

    ``top``: the largest count drawn. Up to 10, every whole number from 0 is a tick, given as values:
    the report's renderer does not always honour ``tickMinStep`` and would label ticks at 0.5 "1" and
    1.5 "2".
    """
    if top is not None and np.isfinite(top) and top <= 10:
        options.setdefault("values", list(range(int(np.ceil(top)) + 1)))
    return alt.Axis(format="d", tickMinStep=1, **options)


def _layered(*charts: alt.Chart | alt.LayerChart) -> alt.LayerChart:
    """The charts drawn one over another (:func:`altair.layer`).

    Altair returns a facet chart only when every layer shares a ``row``, ``column`` or ``facet``
    encoding; these charts have none, so the result is a layer chart.
    """
    chart = alt.layer(*charts)
    assert isinstance(chart, alt.LayerChart), "layers without facet encodings make a layer chart"
    return chart


def _profile_kind(scenario) -> str:
    """The kind of the scenario's demand profile (``steady``, ``bursty``, ...)."""
    demand = as_resolved(scenario).demand
    if demand is None:
        raise ValueError("the demand charts need the scenario's demand block")
    return demand.profile.kind


def titled(title: str, subtitle: str | list[str] | None = None, width: float = 640) -> alt.TitleParams:
    """A chart's title and subtitle, each wrapped to the plot's width (Vega-Lite draws each line as given).

    Parameters
    ----------
    title
        The title, one line or more once wrapped.
    subtitle
        A line or a list of lines; each is wrapped on its own.
    width
        The plot's width. [px]
    """
    lines = labels.wrap(title, width, TITLE_SIZE, bold=True)
    return alt.TitleParams(
        lines[0] if len(lines) == 1 else lines,
        subtitle=labels.wrap_all(subtitle, width, SUBTITLE_SIZE) if subtitle else alt.Undefined,
    )


def axis_title(title: str, length: float) -> str | list[str]:
    """An axis title wrapped to the axis's length (a list of lines where it does not fit on one). [px]"""
    lines = labels.wrap(title, length, AXIS_TITLE_SIZE, bold=True)
    return lines[0] if len(lines) == 1 else lines


def _lines_expression(lines: dict[str, list[str]]) -> str:
    """A Vega expression giving each label's lines: a multi-line label is an array of strings."""
    import json

    return f"({json.dumps(lines, ensure_ascii=False)})[datum.label] || datum.label"


LEGEND_ENTRY_ROOM = 30
"""Room a legend entry takes besides its label: the symbol, its gap to the label, the column gap. [px]"""


def option_legend(names: list[str], width: float, title: str | None = "Option") -> alt.Legend:
    """A legend under a plot ``width`` px wide whose entries never run into each other or past the plot.

    The most columns (up to four) in which every name fits on one line, else on two lines (wrapped to
    its column); a single column of wrapped names when nothing else fits.

    Parameters
    ----------
    names
        The legend's labels, in order.
    width
        The plot's width. [px]
    title
        The legend's title.
    """
    names = [str(n) for n in names]
    layouts = [
        (width / columns - LEGEND_ENTRY_ROOM, lines) for lines in (1, 2) for columns in range(min(len(names), 4), 0, -1)
    ]
    room, wrapped = width - LEGEND_ENTRY_ROOM, {}
    for room, lines in layouts + [(width - LEGEND_ENTRY_ROOM, None)]:
        wrapped = {n: labels.wrap(n, room, LABEL_SIZE) for n in names}
        if lines is None or max((len(v) for v in wrapped.values()), default=1) <= lines:
            break
    columns = max(1, round(width / (room + LEGEND_ENTRY_ROOM)))
    multi = {n: v for n, v in wrapped.items() if len(v) > 1}
    return alt.Legend(
        title=title,
        orient="bottom",
        direction="horizontal",
        columns=columns,
        labelLimit=room + 2,
        labelExpr=_lines_expression(multi) if multi else alt.Undefined,
    )


OPTION_LABEL_WIDTH = 200
"""Most width of an option's name beside a horizontal bar; a longer name is wrapped onto more lines. [px]"""


def option_axis(names: list[str], width: float = OPTION_LABEL_WIDTH, **options) -> tuple[alt.Axis, float]:
    """A band axis of option names, each wrapped to ``width``, and the step that fits the longest.

    Horizontal bars, one option a band: each name has a band of its own, however many options and
    however long their names, so no two names can meet.

    Parameters
    ----------
    names
        The options' names, in the axis's order.
    width
        Most width of a line of a name. [px]
    options
        Further properties of the axis (``alt.Axis``).

    Returns
    -------
    (axis, step)
        The axis and the band's height. [px]
    """
    wrapped = {str(n): labels.wrap(str(n), width, LABEL_SIZE) for n in names}
    multi = {n: v for n, v in wrapped.items() if len(v) > 1}
    most = max((len(v) for v in wrapped.values()), default=1)
    axis = alt.Axis(labelLimit=width + 2, labelExpr=_lines_expression(multi) if multi else alt.Undefined, **options)
    return axis, max(26.0, most * LINE_HEIGHT + 10.0)


def log_axis(values, length: float, vertical: bool = False, **options) -> tuple[alt.Axis, alt.Scale]:
    """A log axis over ``values`` from the 1-2-5 value below the least to the one above the greatest, with
    tick values whose labels fit.

    Tick labels are short numbers (300 k, 1.5 M) at values of :func:`labels.log_ticks`: never the run of
    "300,000400,000" that a log axis's default ticks print when they are close.

    Parameters
    ----------
    values
        The values drawn on the axis; those not finite or not above zero are left out of its range. [axis unit]
    length
        The axis's length. [px]
    vertical
        A y axis (labels take a line's height along it) or an x axis (their width).

    Returns
    -------
    (axis, scale)
        Vega-Lite's own log axis and scale when no value is finite and above zero.
    """
    values = np.asarray(values, dtype=float).ravel()
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return alt.Axis(labelOverlap=True, **options), alt.Scale(type="log")
    low, high = labels.nice_log_domain(float(values.min()), float(values.max()))

    def room(value: float) -> float:
        return LINE_HEIGHT if vertical else labels.text_width(short_number(value), LABEL_SIZE)

    ticks = labels.log_ticks(low, high, length, room)
    return (
        alt.Axis(values=ticks, labelExpr=_SHORT_LABEL, **options),
        alt.Scale(type="log", domain=[low, high], nice=False),
    )


def short_number(value: float) -> str:
    """The tick label :data:`_SHORT_LABEL` draws for ``value``: 300 k, 1.5 M, 0.05.

    Examples
    --------
    >>> short_number(300_000), short_number(1_500_000), short_number(0.05), short_number(2e9)
    ('300 k', '1.5 M', '0.05', '2 B')
    """
    for size, suffix in ((1e9, " B"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= size:
            return f"{value / size:.12g}{suffix}"
    return f"{value:.12g}"


FONT = "Liberation Sans, Arial, Helvetica, sans-serif"
"""The charts' font. Liberation Sans has Arial's metrics (it was made to), so the text widths
vl-convert measures when it lays out a drawing (label overlap, axis room) are those a reader sees
with Liberation Sans (Linux) or Arial (macOS, Windows). It is also quicker to measure than
DejaVu Sans (whose glyphs are wider): vl-convert reads the font file for every glyph it measures."""


@alt.theme.register(_THEME, enable=False)
def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "font": FONT,
            "view": {"stroke": None},
            "axis": {
                "labelFontSize": LABEL_SIZE,
                "titleFontSize": AXIS_TITLE_SIZE,
                "grid": True,
                "gridColor": "#eeeeee",
            },
            "legend": {"labelFontSize": LABEL_SIZE, "titleFontSize": AXIS_TITLE_SIZE, "orient": "bottom"},
            "title": {
                "fontSize": TITLE_SIZE,
                "anchor": "start",
                "subtitleFontSize": SUBTITLE_SIZE,
                "subtitleColor": "#555555",
            },
        }
    }


INTERACTIVE = False
"""Whether :func:`costmodel.presentation.sections.show` draws charts with embedded Vega (``"interactive"``)."""

DRAWN_BY_RUNNER = False
"""Whether :func:`costmodel.presentation.sections.show` leaves the SVG to the report runner (``"report"``)."""


def use_renderer(renderer: str = "svg") -> None:
    """Enable the costmodel theme and an Altair renderer.

    Parameters
    ----------
    renderer
        ``"svg"`` draws static SVG with vl-convert (offline, what reports use; the HTML
        report makes them interactive with its embedded Vega); ``"interactive"`` draws
        interactive charts in JupyterLab or the classic notebook with Vega embedded in the
        output (offline; see :mod:`costmodel.presentation.interactive`); ``"default"``,
        ``"jupyterlab"`` or ``"html"`` are Altair's own, which need Vega from the front end
        or a CDN; ``"report"`` (what ``costmodel report`` passes) displays each chart's spec
        and alt text, and the report runner draws the SVG in a process of its own while the
        kernel goes on (see :mod:`costmodel.presentation.svg`): the report is the same as with
        ``"svg"``, only sooner.
    """
    global INTERACTIVE, DRAWN_BY_RUNNER
    alt.theme.enable(_THEME)
    INTERACTIVE = renderer == "interactive"
    DRAWN_BY_RUNNER = renderer == "report"
    alt.renderers.enable("svg" if INTERACTIVE or DRAWN_BY_RUNNER else renderer)
    alt.data_transformers.disable_max_rows()  # charts are drawn to SVG here, not shipped as JSON to a browser


def _colour_scale(r: Resolved, options: list[str] | None = None, labels: dict[str, str] | None = None) -> alt.Scale:
    """Colours by option kind (:func:`option_colours`); candidates such as ``rent.reserved`` take their option's
    kind, and ``labels`` name them."""
    return alt.Scale(
        domain=[(labels or {}).get(o) or r.label(o) for o in (options or list(r.options))],
        range=option_colours(r, options),
    )


def option_colours(r: Resolved, options: list[str] | None = None) -> list[str]:
    """One colour per option or candidate: its kind's colour for the first of a kind, then the extra colours in
    turn across kinds (a second rental and a second API offer do not share one)."""
    from ..domain.decision import option_of

    colours, seen, extra = [], set(), 0
    for o in options or list(r.options):
        option = option_of(o)
        kind = r.options[option].kind if option in r.options else "mix"
        if kind in seen or kind not in OPTION_COLOURS:
            colours.append(EXTRA_COLOURS[extra % len(EXTRA_COLOURS)])
            extra += 1
        else:
            colours.append(OPTION_COLOURS[kind])
        seen.add(kind)
    return colours


MAX_DRAWN_STEPS = 500
"""Most GPU-count steps drawn sharp per option; past that, steps are finer than a pixel."""


def drawn_vertices(x: np.ndarray, y: np.ndarray, step: bool = False) -> np.ndarray:
    """Which points of a line are needed to draw it: its ends and each point where it turns.

    A line chart's spec carries its rows into the page and to the drawing; a sweep of 1,000
    volumes per option is mostly straight runs (cost is linear in volume between GPU-count
    steps). The points left out lie on the straight segment between their kept neighbours (the
    two segments at a point left out are parallel to within 1e-9 rad, measured with both axes
    scaled to their ranges), so the drawn line is the same.

    Parameters
    ----------
    x, y
        The line's points, ``x`` ascending (as drawn), shape (n,). [axis units]
    step
        A step line (``interpolate="step-after"``): only each level's first point and the last
        point are needed.

    Returns
    -------
    numpy.ndarray
        Boolean mask, shape (n,): True for the points to keep.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.ones(len(x), dtype=bool)
    if len(x) < 3:
        return keep
    if step:
        keep[1:-1] = y[1:-1] != y[:-2]
        return keep
    dx, dy = np.diff(x) / (np.ptp(x) or 1.0), np.diff(y) / (np.ptp(y) or 1.0)
    lengths = np.hypot(dx, dy)
    # sine of the turn between consecutive segments (0 where the line goes straight on)
    with np.errstate(divide="ignore", invalid="ignore"):
        turn = (dx[:-1] * dy[1:] - dy[:-1] * dx[1:]) / (lengths[:-1] * lengths[1:])
        backwards = dx[:-1] * dx[1:] + dy[:-1] * dy[1:] < 0  # a turn of 180 degrees has a sine of 0 too
    keep[1:-1] = ~(np.abs(turn) <= STRAIGHT) | backwards
    return keep


STRAIGHT = 1e-9
"""Largest sine of the turn at a point that :func:`drawn_vertices` leaves out. [-]"""


def _column(data: pd.DataFrame, name: str) -> pd.Series:
    """The column ``name`` of a table (pandas annotates indexing by one name as a column or a table)."""
    column = data[name]
    assert isinstance(column, pd.Series), f"{name!r} names one column of the table"
    return column


def _columns(data: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The columns ``names`` of a table, in that order."""
    table = data[names]
    assert isinstance(table, pd.DataFrame), "a list of names selects a table"
    return table


def _rows(data: pd.DataFrame, keep: pd.Series) -> pd.DataFrame:
    """The rows of a table where ``keep`` (a column of booleans) holds."""
    table = data[keep]
    assert isinstance(table, pd.DataFrame), "a column of booleans selects rows of the table"
    return table


def _drawn_rows(data: pd.DataFrame, x: str, y: str, by: str, step: bool = False) -> pd.DataFrame:
    """The rows of a line chart's data needed to draw each line (:func:`drawn_vertices`): the
    lines in their order in ``data`` (the later drawn over the earlier), each in ascending ``x``."""
    if data.empty:  # no line at all (e.g. no option with GPUs): nothing to thin
        return data
    lines = [group.sort_values(x, kind="stable") for _, group in data.groupby(by, sort=False)]
    drawn = pd.concat(
        [line[drawn_vertices(line[x].to_numpy(), line[y].to_numpy(), step)] for line in lines], ignore_index=True
    )
    assert isinstance(drawn, pd.DataFrame), "rows of tables joined are a table"
    return drawn


def sweep_volumes(scenario, volume_min: float, volume_max: float, points: int = 1000) -> np.ndarray:
    """Evenly spaced volumes plus both sides of every GPU-count step, so steps draw sharp. [volume unit]

    An option with more than :data:`MAX_DRAWN_STEPS` steps in the range is drawn from the
    evenly spaced volumes alone.
    """
    r = as_resolved(scenario)
    volumes = [np.linspace(volume_min, volume_max, points)]
    for option in r.options:
        steps = step_volumes(r, option, volume_max)
        steps = steps[(steps > volume_min) & (steps < volume_max)]
        if len(steps) <= MAX_DRAWN_STEPS:
            volumes += [steps, np.nextafter(steps, np.inf) * (1 + 1e-12)]
    return np.unique(np.concatenate(volumes))


def cost_vs_volume(
    scenario, comparison: Comparison, volume_min: float, volume_max: float, points: int = 1000
) -> alt.LayerChart:
    """Monthly cost of each option against volume, with each break-even marked and labelled.

    Parameters
    ----------
    scenario, comparison
        The scenario and its :func:`costmodel.compare` result (for the break-evens).
    volume_min, volume_max
        Range of the x axis. [workload volume unit]
    points
        Evenly spaced volumes in the sweep (the steps are added to them). [-]

    Returns
    -------
    altair.LayerChart
        Break-evens that do not happen in the range are not drawn; the subtitle says
        "never" for them.
    """
    r = as_resolved(scenario)
    scale, unit = fmt.volume_display(r.workload.kind)
    data = cost_sweep(r, sweep_volumes(r, volume_min, volume_max, points))
    data["volume_shown"] = data[Columns.volume] / scale
    # only what the chart shows, and only the points each line needs: the spec carries its rows into the page
    data = _drawn_rows(
        _columns(data, ["volume_shown", Columns.option_label, Columns.cost, Columns.gpu_count]),
        "volume_shown",
        Columns.cost,
        Columns.option_label,
    )
    currency = r.currency
    x = alt.X(
        "volume_shown:Q",
        title=f"Volume [{unit}]",
        axis=short_axis(tickCount=8, labelOverlap=True),
        scale=alt.Scale(domain=[volume_min / scale, volume_max / scale], nice=False),
    )
    top = float(_column(data, Columns.cost).max())
    names = [r.label(o) for o in r.options]
    shown = [
        b for b in comparison.break_evens if b.volume is not None and volume_min <= b.volume <= volume_max and top > 0
    ]
    layout = _break_even_layout(comparison, shown, scale, unit, volume_min / scale, volume_max / scale)
    rows = int(_column(layout, "row").max()) + 1 if not layout.empty else 0
    # a band above the highest line, one row of labels high per row the labels need: no label crosses a line
    band = rows * LABEL_ROW + LABEL_BAND_PADDING if rows else 0
    height = max(COST_PLOT_HEIGHT, COST_PLOT_HEIGHT - COST_BAND + band)
    bottom = min(0.0, float(_column(data, Columns.cost).min()))
    y_max = bottom + (top - bottom) * height / (height - band) if band else None
    y_scale = alt.Scale(domain=[bottom, y_max], nice=False) if y_max else alt.Undefined
    y_title = f"Monthly cost [{currency}/month]"
    lines = (
        alt.Chart(data)
        .mark_line(strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y(f"{Columns.cost}:Q", title=y_title, axis=short_axis(), scale=y_scale),
            color=alt.Color(
                f"{Columns.option_label}:N",
                title="Option",
                scale=_colour_scale(r),
                legend=option_legend(names, COST_PLOT_WIDTH),
            ),
            tooltip=[
                alt.Tooltip("volume_shown:Q", title=unit, format=",.2f"),
                alt.Tooltip(f"{Columns.option_label}:N", title="option"),
                alt.Tooltip(f"{Columns.cost}:Q", title=f"{currency}/month", format=",.0f"),
                alt.Tooltip(f"{Columns.gpu_count}:Q", title="GPUs"),
            ],
        )
    )
    if not layout.empty:
        assert y_max is not None, "labels to place make a band above the lines"
        # each row's centre, measured down from the plot's top, as a cost on the y scale
        centre = band - LABEL_BAND_PADDING / 2 - (layout["row"] + 0.5) * LABEL_ROW
        layout["label_y"] = bottom + (y_max - bottom) * (1.0 - centre / height)
    marks = _break_even_marks(layout, bottom, top, y_title)
    never = [
        f"{comparison.label(b.option_a)} vs {comparison.label(b.option_b)}: never in range"
        for b in comparison.break_evens
        if b.volume is None
    ]
    subtitle = [
        "Vertical rules mark break-evens"
        + (
            " (dashed: the cheaper option flips where a GPU count steps up)"
            if any(b.kind == "step" for b in comparison.break_evens)
            else ""
        )
    ]
    found = [
        f"{_pair(comparison, b)} at {_shown(b.volume, scale)} {unit}"
        for b in comparison.break_evens
        if b.volume is not None
    ]
    if len(found) > FOUND_NAMED:  # many options: the break-even table names the pairs
        subtitle.append(
            f"{len(found)} break-evens in the range, each labelled with its volume "
            f"(the break-even table names the pairs)"
        )
    else:
        subtitle += _packed(found)
    if len(never) > 3:  # many options: name the pairs in the break-even table, not in one long line
        subtitle.append(f"{len(never)} pairs never break even in the range (see the break-even table)")
    else:
        subtitle += _packed(never)
    chart = _layered(lines, *marks).properties(
        width=COST_PLOT_WIDTH,
        height=height,
        title=titled(f"Monthly cost against volume ({currency})", subtitle, COST_PLOT_WIDTH),
    )
    return chart


COST_PLOT_WIDTH, COST_PLOT_HEIGHT = 640, 360
"""Size of the plot of cost against volume (more height where the break-even labels need more rows). [px]"""
COST_BAND = 72
"""Height of the plot's band for break-even labels up to which :data:`COST_PLOT_HEIGHT` holds. [px]"""
FOUND_NAMED = 6
"""Most break-evens whose pairs the subtitle names; past that, the break-even table does. [-]"""
LABEL_ROW = 14
"""Height of one row of break-even labels. [px]"""
LABEL_BAND_PADDING = 8
"""Room in the band of break-even labels besides their rows (between the rows and the lines, and the top). [px]"""
LABEL_GAP = 8
"""Least room between two break-even labels in one row. [px]"""


def _packed(items: list[str], width: float = COST_PLOT_WIDTH) -> list[str]:
    """``items`` joined by "; " into subtitle lines no wider than ``width`` [px]: Vega-Lite does not wrap a
    subtitle, and a long line widens the whole chart until the plot shrinks to fit the page. Where an item
    is wider than that, each item is wrapped onto lines of its own, its first line begun with a bullet."""
    lines: list[str] = []
    if any(labels.text_width(item, SUBTITLE_SIZE) > width for item in items):
        for item in items:
            lines += labels.wrap("• " + item, width, SUBTITLE_SIZE)
        return lines
    for item in items:
        if lines and labels.text_width(f"{lines[-1]}; {item}", SUBTITLE_SIZE) <= width:
            lines[-1] += "; " + item
        else:
            lines.append(item)
    return lines


def _pair(comparison: Comparison, b) -> str:
    label = comparison.label
    return (
        f"{label(b.option_a)} = {label(b.option_b)}"
        if b.kind == "crossing"
        else f"{label(b.option_a)} / {label(b.option_b)} flip"
    )


def _shown(volume: float, scale: float) -> str:
    return f"{volume / scale:,.{2 if scale > 1 else 0}f}"


def _break_even_layout(
    comparison: Comparison, shown: list, scale: float, unit: str, low: float, high: float
) -> pd.DataFrame:
    """Where each break-even's label stands: centred over its rule, in the lowest row of the band above the
    lines where it keeps :data:`LABEL_GAP` from every other label (:func:`labels.stack_rows`).

    Returns
    -------
    pandas.DataFrame
        One row per break-even: ``volume_shown`` (its rule), ``label_at`` (its label's centre, moved
        inwards at the plot's edges), ``row`` (0 nearest the lines), ``value``, ``label``, ``kind``.
        [volume shown], [volume shown], [-]
    """
    rows = [
        {
            "volume_shown": b.volume / scale,
            "kind": b.kind,
            "value": _shown(b.volume, scale),
            "label": f"{_pair(comparison, b)}: {_shown(b.volume, scale)} {unit}",
        }
        for b in shown
    ]
    frame = pd.DataFrame(rows, columns=["volume_shown", "kind", "value", "label"])
    if frame.empty or not high > low:
        return frame.iloc[0:0]
    px = COST_PLOT_WIDTH / (high - low)
    centres = [(v - low) * px for v in frame["volume_shown"]]
    widths = [labels.text_width(t, LABEL_SIZE) for t in frame["value"]]
    row, at = labels.stack_rows(centres, widths, gap=LABEL_GAP, left=0.0, right=COST_PLOT_WIDTH)
    frame["row"] = row
    frame["label_at"] = [low + c / px for c in at]
    return frame


def _break_even_marks(layout: pd.DataFrame, bottom: float, top: float, y_title: str) -> list[alt.Chart]:
    """A rule at each break-even from the plot's ``bottom`` up to the ``top`` line, and its volume in the
    band above (:func:`_break_even_layout`): a label crosses no line, no rule and no other label. The
    pairs are named in the chart's subtitle and in each mark's tooltip. [currency/month]

    ``y_title`` is the cost axis's title, given to the labels' y too: a layer's own title would be
    added to the axis's."""
    if layout.empty:
        return []
    rule = (
        alt.Chart(layout)
        .mark_rule(color="#444444")
        .encode(
            x=alt.X("volume_shown:Q"),
            y=alt.YDatum(bottom),
            y2=alt.Y2Datum(top),
            strokeDash=alt.condition(alt.datum.kind == "step", alt.value([5, 4]), alt.value([1, 0])),
            tooltip=[alt.Tooltip("label:N", title="break-even")],
        )
    )
    label = (
        alt.Chart(layout)
        .mark_text(align="center", baseline="middle", fontSize=LABEL_SIZE, color="#222222")
        .encode(
            x=alt.X("label_at:Q"),
            y=alt.Y("label_y:Q", title=y_title),
            text=alt.Text("value:N"),
            tooltip=[alt.Tooltip("label:N", title="break-even")],
        )
    )
    return [rule, label]


def describe_cost_chart(comparison: Comparison) -> str:
    """Alt text of :func:`cost_vs_volume`: what the chart shows, in one sentence."""
    options = ", ".join(r.label for r in comparison.options.values())
    marks = "; ".join(
        f"{comparison.label(b.option_a)} vs {comparison.label(b.option_b)} "
        f"{fmt.volume(comparison.workload_kind, b.volume)}"
        for b in comparison.break_evens
    )
    return f"Line chart of monthly cost against volume for {options}. Break-evens: {marks}."


def describe_component_chart(scenario, table: pd.DataFrame) -> str:
    """Alt text of :func:`component_bars`: each option's total and largest component."""
    parts = []
    for label, group in table.groupby(Columns.option_label, sort=False):
        top = group.loc[group[Columns.cost].idxmax()]
        parts.append(
            f"{label} {group[Columns.cost].sum():,.0f} {as_resolved(scenario).currency}/month, "
            f"mostly {top[Columns.component]}"
        )
    return "Stacked bars of monthly cost by component: " + "; ".join(parts) + "."


def component_bars(table: pd.DataFrame, scenario) -> alt.Chart:
    """Stacked bars of each option's monthly cost by component, at one volume.

    Parameters
    ----------
    table
        Output of :func:`costmodel.cost_table`.
    scenario
        The scenario (for the currency and the volume in the title).

    Returns
    -------
    altair.Chart
    """
    r = as_resolved(scenario)
    currency = r.currency
    return _stacked_bars(
        table, [r.label(o) for o in r.options], f"Monthly cost [{currency}/month]", f"{currency}/month", width=420
    ).properties(
        title=titled(f"Cost components at {fmt.volume(r.workload.kind, r.volume)}", f"{currency} per month", 420),
    )


def gpu_count_steps(scenario, volume_max: float | None = None, points: int = 400) -> alt.LayerChart:
    """GPUs each option runs against volume, with the configured count's limit marked.

    Parameters
    ----------
    scenario
        The scenario.
    volume_max
        Right end of the axis; default 1.5 × the largest volume the configured GPUs serve
        (so the first step shows). [workload volume unit]

    Returns
    -------
    altair.LayerChart
    """
    r = as_resolved(scenario)
    options = [o for o in r.options if r.options[o].kind != "api"]
    capacities = [float(c) for c in (capacity_volume(r, o) for o in options) if c]
    upper = volume_max if volume_max is not None else 1.5 * max(capacities) if capacities else 10 * max(r.volume, 1.0)
    scale, unit = fmt.volume_display(r.workload.kind)
    volumes = sweep_volumes(r, 0.0, upper, points)
    data = _drawn_rows(
        pd.DataFrame(
            [
                {"volume_shown": v / scale, Columns.option_label: r.label(o), Columns.gpu_count: g}
                for o in options
                for v, g in zip(volumes, np.asarray(gpu_count(r, o, volumes)))
            ]
        ),
        "volume_shown",
        Columns.gpu_count,
        Columns.option_label,
        step=True,
    )
    lines = (
        alt.Chart(data)
        .mark_line(interpolate="step-after", strokeWidth=2)
        .encode(
            x=alt.X("volume_shown:Q", title=f"Volume [{unit}]", axis=short_axis(tickCount=8, labelOverlap=True)),
            y=alt.Y(
                f"{Columns.gpu_count}:Q",
                title="GPUs [GPU]",
                axis=count_axis(top=float(np.max(data[Columns.gpu_count].to_numpy())) if len(data) else None),
            ),
            color=alt.Color(
                f"{Columns.option_label}:N",
                title="Option",
                scale=_colour_scale(r, options),
                legend=option_legend([r.label(o) for o in options], 640),
            ),
        )
    )
    layers = [lines]
    limits = pd.DataFrame(
        [
            {
                "volume_shown": c / scale,
                "label": (
                    f"{r.label(o)}: {fmt.plural(float(gpu_count(r, o, 0.0)), 'GPU')} to "
                    f"{fmt.volume(r.workload.kind, float(c))}"
                ),
            }
            for o in options
            if (c := capacity_volume(r, o))
        ]
    )
    if not limits.empty:
        layers.append(
            alt.Chart(limits)
            .mark_rule(strokeDash=[4, 3], color="#666666")
            .encode(x=alt.X("volume_shown:Q"), tooltip=[alt.Tooltip("label:N")])
        )
    # the rules are named in the subtitle, not along the rules, where the names would cross the steps
    subtitle = ["Counts step in whole replicas (rental) and whole servers (own cluster)"]
    if not limits.empty:
        subtitle += _packed(["Dashed rules: where the configured GPUs run out"] + list(limits["label"]))
    return _layered(*layers).properties(
        width=640,
        height=320,
        title=titled("GPUs needed against volume", subtitle=subtitle),
    )


def describe_gpu_chart(scenario) -> str:
    """Alt text of :func:`gpu_count_steps`: where each option's configured GPUs run out."""
    r = as_resolved(scenario)
    parts = []
    for o in r.options:
        if r.options[o].kind == "api":
            continue
        c = capacity_volume(r, o)
        if c is None:
            parts.append(f"{r.label(o)} has no fixed GPU count (billed per GPU-hour used)")
        else:
            parts.append(
                f"{r.label(o)}'s {fmt.plural(float(gpu_count(r, o, 0.0)), 'GPU')} serve up to "
                f"{fmt.volume(r.workload.kind, float(c))}"
            )
    return "Step chart of GPUs against volume. " + "; ".join(parts) + "."


def checkpoint_tradeoff(scenario, run) -> alt.LayerChart:
    """Share of time lost against checkpoint interval, with the three optima marked (Young, Daly, with restart).

    Parameters
    ----------
    scenario
        A training scenario with a failure model (``workload.goodput``).
    run
        Its :func:`costmodel.training.training_run`.

    Returns
    -------
    altair.LayerChart
        x: checkpoint interval [min], log scale; y: time lost [%].

    References
    ----------
    .. [1] Young (1974), CACM 17(9); Daly (2006), FGCS 22(3); the recovery-time variant
       √(2δ(M + R)) (:func:`costmodel.formulas.interval_with_restart`).
    """
    training = as_resolved(scenario).workload.training
    settings = training.goodput if training is not None else None
    if settings is None or run.job_mtbf_hours is None:
        raise ValueError("the checkpoint trade-off needs a training run with a failure model (workload.goodput)")
    write, restart, mtbf = settings.write_hours, settings.restart_hours, run.job_mtbf_hours
    daly, young = formulas.daly_interval(write, mtbf), formulas.young_interval(write, mtbf)
    with_restart = formulas.interval_with_restart(write, mtbf, restart)
    time_lost_fraction = formulas.time_lost_fraction
    intervals = np.geomspace(min(daly, young) / 8, max(daly, young, with_restart) * 8, 300)
    lost = time_lost_fraction(intervals, write, restart, mtbf)
    x_axis, x_scale = log_axis(intervals * 60, 560)
    curve = (
        alt.Chart(pd.DataFrame({"minutes": intervals * 60, "lost": lost * 100}))
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("minutes:Q", title="Checkpoint interval [min]", scale=x_scale, axis=x_axis),
            y=alt.Y("lost:Q", title="Time lost [%]"),
            tooltip=[alt.Tooltip("minutes:Q", format=",.1f"), alt.Tooltip("lost:Q", title="lost %", format=".2f")],
        )
    )
    optima = pd.DataFrame(
        [
            {
                "minutes": young * 60,
                "lost": 100 * time_lost_fraction(young, write, restart, mtbf),
                "label": f"Young: {young * 60:,.1f} min",
            },
            {
                "minutes": daly * 60,
                "lost": 100 * time_lost_fraction(daly, write, restart, mtbf),
                "label": f"Daly: {daly * 60:,.1f} min",
            },
            {
                "minutes": with_restart * 60,
                "lost": 100 * time_lost_fraction(with_restart, write, restart, mtbf),
                "label": f"with restart: {with_restart * 60:,.1f} min",
            },
        ]
    )
    points = (
        alt.Chart(optima)
        .mark_point(size=80, filled=True, color="#d62728")
        .encode(x=alt.X("minutes:Q"), y=alt.Y("lost:Q"), tooltip=[alt.Tooltip("label:N")])
    )
    above = (
        alt.Chart(optima.iloc[:1])
        .mark_text(align="left", dx=8, dy=-12, fontSize=11)
        .encode(x=alt.X("minutes:Q"), y=alt.Y("lost:Q"), text=alt.Text("label:N"))
    )
    below = (
        alt.Chart(optima.iloc[1:2])
        .mark_text(align="left", dx=8, dy=12, fontSize=11)
        .encode(x=alt.X("minutes:Q"), y=alt.Y("lost:Q"), text=alt.Text("label:N"))
    )
    further = (
        alt.Chart(optima.iloc[2:])
        .mark_text(align="left", dx=8, dy=-26, fontSize=11)
        .encode(x=alt.X("minutes:Q"), y=alt.Y("lost:Q"), text=alt.Text("label:N"))
    )
    return _layered(curve, points, above, below, further).properties(
        width=560,
        height=300,
        title=titled(
            "Time lost to checkpoints, restarts and rework",
            subtitle=f"job MTBF {mtbf:,.2f} h, checkpoint write {write * 60:g} "
            f"min, restart {restart * 60:g} min; optimum intervals marked",
            width=560,
        ),
    )


def run_cost_bars(scenario, run) -> alt.Chart:
    """Stacked bars of a training run's cost with each option, by component."""
    r = as_resolved(scenario)
    currency = r.currency
    rows = [
        {Columns.option_label: r.label(o), Columns.component: str(c), Columns.cost: v}
        for o, parts in run.costs.items()
        for c, v in parts.items()
    ]
    order = [r.label(o) for o in r.options]
    return _stacked_bars(pd.DataFrame(rows), order, f"Cost of the run [{currency}]", currency, width=360).properties(
        title=titled("Cost of the training run", currency, 360)
    )


def _stacked_bars(table: pd.DataFrame, options: list[str], cost_title: str, unit: str, width: float) -> alt.Chart:
    """One horizontal stacked bar per option, one colour per cost component (the same in every chart).

    Horizontal, so that each option's name has a band of its own (:func:`option_axis`): names side
    by side under vertical bars run into each other once there are many or they are long.
    ``width`` is the bars' length. [px]
    """
    data = table[table[Columns.cost] > 0]
    present = [c for c in COMPONENT_COLOURS if c in set(data[Columns.component])]
    present += sorted(set(data[Columns.component]) - set(present))
    spare = iter(
        [c for c in SPARE_COMPONENT_COLOURS if c not in {COMPONENT_COLOURS.get(x) for x in present}] + EXTRA_COLOURS
    )
    palette = [COMPONENT_COLOURS[c] if c in COMPONENT_COLOURS else next(spare) for c in present]
    axis, step = option_axis(options)
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y(f"{Columns.option_label}:N", title=None, sort=options, axis=axis),
            x=alt.X(f"sum({Columns.cost}):Q", title=axis_title(cost_title, width), axis=short_axis()),
            color=alt.Color(
                f"{Columns.component}:N",
                title="Component",
                scale=alt.Scale(domain=present, range=palette),
                legend=option_legend(present, width, title="Component"),
            ),
            order=alt.Order(f"{Columns.component}:O"),
            tooltip=[
                alt.Tooltip(f"{Columns.option_label}:N", title="option"),
                alt.Tooltip(f"{Columns.component}:N", title="component"),
                alt.Tooltip(f"{Columns.cost}:Q", title=unit, format=",.2f"),
            ],
        )
        .properties(width=width, height=alt.Step(step))
    )


def cumulative_cost(scenario, flows, result) -> alt.LayerChart:
    """Cumulative cash cost of each option over the horizon, with the payback month marked.

    Parameters
    ----------
    flows, result
        :func:`costmodel.finance.cash_flows` and :func:`costmodel.finance.own_finance`.
    """
    r = as_resolved(scenario)
    currency = r.currency
    data = pd.DataFrame(
        [
            {"month": int(m), Columns.option_label: r.label(o), "cumulative": c}
            for o in flows.flows
            for m, c in zip(flows.months, flows.cumulative(o))
        ]
    )
    lines = (
        alt.Chart(data)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("month:Q", title="Month after the decision [month]"),
            y=alt.Y("cumulative:Q", title=f"Cumulative cost [{currency}]", axis=short_axis()),
            color=alt.Color(
                f"{Columns.option_label}:N",
                title="Option",
                scale=_colour_scale(r, list(flows.flows)),
                legend=option_legend([r.label(o) for o in flows.flows], 640),
            ),
            tooltip=[
                alt.Tooltip("month:Q"),
                alt.Tooltip(f"{Columns.option_label}:N"),
                alt.Tooltip("cumulative:Q", format=",.0f"),
            ],
        )
    )
    layers = [lines]
    if result.payback_month is not None:
        mark = pd.DataFrame(
            [
                {
                    "month": result.payback_month,
                    "label": f"payback: month {result.payback_month}",
                    # "after N months": N can be the horizon itself, past the last month's index
                    "y": float(flows.cumulative("own")[min(result.payback_month, len(flows.months) - 1)]),
                }
            ]
        )
        layers += [
            alt.Chart(mark).mark_rule(color="#444444", strokeDash=[5, 4]).encode(x=alt.X("month:Q")),
            # on the side of the rule with room for it, so it stays inside the chart
            alt.Chart(mark)
            .mark_text(
                **(
                    {"align": "left", "dx": 5}
                    if result.payback_month < len(flows.months) / 2
                    else {"align": "right", "dx": -5}
                ),
                dy=-8,
                fontSize=11,
            )
            .encode(x=alt.X("month:Q"), y=alt.Y("y:Q"), text=alt.Text("label:N")),
        ]
        subtitle = f"Payback against {r.label(result.payback_against)} in month {result.payback_month}"
    else:
        subtitle = "Payback: never within the horizon" if result.payback_against else "No option to pay back against"
    return _layered(*layers).properties(
        width=640,
        height=320,
        title=titled(
            f"Cumulative cost over {len(flows.months)} months ({currency})",
            subtitle=[subtitle, "Cash basis: capex when bought, resale credited in the last month"],
        ),
    )


def own_cost_lines(scenario) -> alt.HConcatChart:
    """The own cluster's capex by bill-of-materials line and its monthly running costs by line."""
    r = as_resolved(scenario)
    currency = r.currency
    own = own_option(r)
    servers = own_servers_priced(r)  # as bought: the configured count, stepped up where the load needs more
    capex = {k: float(v) for k, v in own_capex_lines(own, servers).items()}
    if own.facility_price_per_mw is not None:
        capex["facility"] = float(own_facility_capex(own, servers))
    running = {
        str(k): float(v)
        for k, v in own_costs_at(own, servers, float(gpu_hours_used(r, r.volume))).items()
        if k not in DEPRECIATION
    }
    capex_frame = pd.DataFrame({"line": list(capex), "cost": list(capex.values())})
    left = (
        alt.Chart(capex_frame)
        .mark_bar(color="#1f77b4")
        .encode(
            y=alt.Y("line:N", title=None, sort="-x"),
            x=alt.X("cost:Q", title=f"Capex [{currency}]", axis=short_axis()),
            tooltip=[alt.Tooltip("line:N"), alt.Tooltip("cost:Q", format=",.0f")],
        )
        .properties(
            width=300,
            height=30 * len(capex),
            title=titled("Capex by line", subtitle=f"total {sum(capex.values()):,.0f} {currency}", width=300),
        )
    )
    right = (
        alt.Chart(pd.DataFrame({"line": list(running), "cost": list(running.values())}))
        .mark_bar(color="#ff7f0e")
        .encode(
            y=alt.Y("line:N", title=None, sort="-x"),
            x=alt.X("cost:Q", title=f"Running cost [{currency}/month]", axis=short_axis()),
            tooltip=[alt.Tooltip("line:N"), alt.Tooltip("cost:Q", format=",.0f")],
        )
        .properties(
            width=300,
            height=30 * len(running),
            title=titled(
                "Monthly running cost by line",
                subtitle=f"at {fmt.volume(r.workload.kind, r.volume)}, "
                f"total {sum(running.values()):,.0f} {currency}/month",
                width=300,
            ),
        )
    )
    return alt.hconcat(left, right)


CHART_RENTAL_OFFERS = 12
"""Rental prices drawn in :func:`cost_per_gpu_hour_vs_utilisation`: the scenario's own and the cheapest others."""


def cost_per_gpu_hour_vs_utilisation(scenario, result) -> alt.LayerChart:
    """Own cost per used GPU-hour against utilisation, rental prices as horizontal lines, break-evens marked."""
    r = as_resolved(scenario)
    currency = r.currency
    everything = result.break_even_utilisation
    # The scenario's own offer (first, if it rents) and the cheapest others: a legend of the whole market
    # is unreadable
    own = everything[:1] if "rent" in r.options else ()
    prices = own + tuple(
        sorted(everything[len(own) :], key=lambda b: (b.price_per_gpu_hour, b.offer))[: CHART_RENTAL_OFFERS - len(own)]
    )
    top = max(b.price_per_gpu_hour for b in prices) * 2.5 if prices else None
    u = np.linspace(0.02, 1.0, 300)
    cost = np.asarray(own_cost_per_used_gpu_hour(r, u))
    keep = cost <= top if top else np.ones_like(u, dtype=bool)
    curve = (
        alt.Chart(pd.DataFrame({"utilisation": u[keep] * 100, "cost": cost[keep]}))
        .mark_line(strokeWidth=2, color=OPTION_COLOURS["own"])
        .encode(
            x=alt.X("utilisation:Q", title="Utilisation of the owned GPUs [%]", scale=alt.Scale(domain=[0, 100])),
            y=alt.Y("cost:Q", title=f"Own cost per used GPU-hour [{currency}/GPU-h]"),
            tooltip=[alt.Tooltip("utilisation:Q", format=".1f"), alt.Tooltip("cost:Q", format=",.2f")],
        )
    )
    rows = [
        {
            "offer": f"{b.label}: {b.price_per_gpu_hour:,.2f} {currency}/GPU-h",
            "price": b.price_per_gpu_hour,
            "utilisation": None if b.utilisation is None else b.utilisation * 100,
            "break_even": "never" if b.utilisation is None else fmt.share(b.utilisation),
        }
        for b in prices
    ]
    frame = pd.DataFrame(rows)
    colour = alt.Color("offer:N", title="Rental price", legend=option_legend(list(frame["offer"]), 640, "Rental price"))
    rules = (
        alt.Chart(frame)
        .mark_rule(strokeDash=[4, 3])
        .encode(y=alt.Y("price:Q"), color=colour, tooltip=[alt.Tooltip("offer:N"), alt.Tooltip("break_even:N")])
    )
    hits = frame.dropna(subset=["utilisation"])
    points = (
        alt.Chart(hits)
        .mark_point(filled=True, size=80)
        .encode(
            x=alt.X("utilisation:Q"),
            y=alt.Y("price:Q"),
            color=colour,
            tooltip=[alt.Tooltip("offer:N"), alt.Tooltip("break_even:N")],
        )
    )
    return _layered(curve, rules, points).properties(
        width=640,
        height=340,
        title=titled(
            "Own cost per used GPU-hour against utilisation (steady state)",
            subtitle=[
                "Monthly view: capex as depreciation; the horizon figures above are cash-based",
                "Dashed: rental prices for the same GPU"
                + (
                    f" (the {len(prices) - len(own)} cheapest of the {len(everything) - len(own)} catalog offers"
                    + (" and the scenario's own)" if own else ")")
                    if len(prices) < len(everything)
                    else ""
                )
                + "; dots: the utilisation at which owning costs the same",
            ],
        ),
    )


def tornado_chart(scenario, bars, option: str) -> alt.LayerChart:
    """Tornado: the decision metric with each input at its low and high value, widest swing on top.

    Parameters
    ----------
    bars
        :func:`costmodel.uncertainty.tornado`.
    """
    r = as_resolved(scenario)
    rows = []
    names = {b.path: text.input_title(r, b.path) for b in bars}  # the schema's titles, not paths
    for b in bars:
        for end, value, metric in (("low", b.low, b.low_metric), ("high", b.high, b.high_metric)):
            rows.append(
                {
                    "input": names[b.path],
                    "end": f"{end} ({text.input_value(r, b.path, value)})",
                    "side": end,
                    "base": b.base_metric,
                    "metric": metric,
                    "note": ""
                    if b.break_even is None
                    else f"break-even at {text.input_value(r, b.path, b.break_even)}",
                }
            )
    data = pd.DataFrame(rows)
    order = [names[b.path] for b in bars]
    base = bars[0].base_metric if bars else 0.0
    from ..domain.decision import measure_of
    from ..domain.uncertainty import measure_unit

    title = fmt.measure_title(measure_of(r))
    x = alt.X(
        "metric:Q",
        title=axis_title(f"{r.label(option)} minus the cheapest other, {title} [{measure_unit(r)}]", 520),
        axis=short_axis(),
    )
    axis, step = option_axis(order, width=320)
    span = (
        alt.Chart(data)
        .mark_bar(height=16)
        .encode(
            y=alt.Y("input:N", sort=order, title=None, axis=axis),
            x=x,
            x2=alt.X2("base:Q"),
            color=alt.Color(
                "side:N", title="Input at", scale=alt.Scale(domain=["low", "high"], range=["#9ecae1", "#fd8d3c"])
            ),
            tooltip=[
                alt.Tooltip("input:N"),
                alt.Tooltip("end:N"),
                alt.Tooltip("metric:Q", title=f"metric [{measure_unit(r)}]", format=",.0f"),
                alt.Tooltip("note:N"),
            ],
        )
    )
    zero = alt.Chart(pd.DataFrame({"metric": [0.0]})).mark_rule(color="#d62728").encode(x=alt.X("metric:Q"))
    at_base = (
        alt.Chart(pd.DataFrame({"metric": [base]}))
        .mark_rule(color="#444444", strokeDash=[4, 3])
        .encode(x=alt.X("metric:Q"))
    )
    notes = _rows(data, _column(data, "note") != "").drop_duplicates(subset="input")
    notes_drawn = (
        alt.Chart(notes)
        .mark_text(align="left", dx=4, fontSize=10, color="#d62728")
        .encode(
            y=alt.Y("input:N", sort=order),
            x=alt.XDatum(max(float(_column(data, "metric").max()), 0.0)),
            text=alt.Text("note:N"),
        )
    )
    return _layered(span, zero, at_base, notes_drawn).properties(
        width=520,
        height=max(120, max(34, step) * len(bars)),
        title=titled(
            "Which inputs move the answer (one at a time)",
            subtitle=[
                "Below zero the tracked option is the cheapest; red rule: break-even; dashed: the scenario as given"
            ],
            width=520,
        ),
    )


def savings_histogram(scenario, result) -> alt.LayerChart:
    """Distribution of what the tracked option saves against the cheapest other, with the zero line."""
    r = as_resolved(scenario)
    savings = result.savings
    counts, edges = np.histogram(savings, bins=60)
    data = pd.DataFrame({"from": edges[:-1], "to": edges[1:], "share": counts / savings.size * 100})
    title = fmt.measure_title(result.measure)
    bars = (
        alt.Chart(data)
        .mark_bar(color=OPTION_COLOURS[r.options[result.option].kind])
        .encode(
            x=alt.X(
                "from:Q",
                title=axis_title(f"Saving of {r.label(result.option)}, {title} [{result.unit}]", 560),
                axis=short_axis(),
            ),
            x2=alt.X2("to:Q"),
            y=alt.Y("share:Q", title="Share of samples [%]"),
            y2=alt.Y2Datum(0),
            tooltip=[
                alt.Tooltip("from:Q", title=f"saving from [{result.unit}]", format=",.0f"),
                alt.Tooltip("to:Q", title=f"to [{result.unit}]", format=",.0f"),
                alt.Tooltip("share:Q", format=".2f"),
            ],
        )
    )
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#d62728", strokeWidth=2).encode(x=alt.X("x:Q"))
    saves = float(np.mean(savings > 0))
    return _layered(bars, zero).properties(
        width=560,
        height=260,
        title=titled(
            f"Savings of {r.label(result.option)} against the cheapest other option",
            subtitle=f"{result.samples:,} samples; it saves money in {saves:.1%} of them (right of the red line)",
            width=560,
        ),
    )


def win_probability_bars(scenario, result) -> alt.Chart:
    """Probability that each option is the cheapest, over the Monte Carlo samples."""
    r = as_resolved(scenario)
    wins = result.win_probability()
    data = pd.DataFrame({Columns.option_label: [result.label(o) for o in wins], "p": [100 * v for v in wins.values()]})
    axis, step = option_axis(list(data[Columns.option_label]))
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y(f"{Columns.option_label}:N", title=None, sort=list(data[Columns.option_label]), axis=axis),
            x=alt.X("p:Q", title="Probability of being the cheapest [%]", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color(
                f"{Columns.option_label}:N", scale=_colour_scale(r, list(wins), result.labels), legend=None
            ),
            tooltip=[alt.Tooltip(f"{Columns.option_label}:N"), alt.Tooltip("p:Q", format=".1f")],
        )
        .properties(
            width=420,
            height=alt.Step(max(30.0, step)),
            title=titled(
                "Probability that each option is the cheapest", subtitle=f"{result.samples:,} samples", width=420
            ),
        )
    )


def demand_week(scenario, series: np.ndarray) -> alt.LayerChart:
    """The demand over the year, day by day: each day's range (lowest to highest hour) and its mean. [GPU]

    A campaign profile is flat within a busy week; the year shows the campaigns, the quiet
    days and the daily swing the mix has to follow.
    """
    days = max(len(series) // 24, 1)
    daily = np.asarray(series[: days * 24], dtype=float).reshape(days, 24)
    data = pd.DataFrame(
        {"day": np.arange(1, days + 1), "low": daily.min(axis=1), "high": daily.max(axis=1), "mean": daily.mean(axis=1)}
    )
    x = alt.X(
        "day:Q", title="Day of the year", scale=alt.Scale(domain=[1, days], nice=False), axis=count_axis(tickCount=12)
    )
    band = (
        alt.Chart(data)
        .mark_area(opacity=0.35, color="#1f77b4")
        .encode(
            x=x,
            y=alt.Y("low:Q", title="GPUs busy [GPU]"),
            y2=alt.Y2("high:Q"),
            tooltip=[
                alt.Tooltip("day:Q"),
                alt.Tooltip("low:Q", title="lowest hour", format=",.2f"),
                alt.Tooltip("mean:Q", format=",.2f"),
                alt.Tooltip("high:Q", title="highest hour", format=",.2f"),
            ],
        )
    )
    line = alt.Chart(data).mark_line(color="#1f77b4", strokeWidth=1.5).encode(x=x, y=alt.Y("mean:Q"))
    return _layered(band, line).properties(
        width=640,
        height=220,
        title=titled(
            "Demand over the year, day by day",
            subtitle=f"{_profile_kind(scenario)} profile; band: each day's lowest to highest hour, "
            f"line: its mean; over the year mean {series.mean():,.2f} GPUs, peak {series.max():,.2f}",
        ),
    )


_LAYER_PALETTE = {
    "Owned": "#1f77b4",
    "Reserved": "#9467bd",
    "Rented 24/7": "#8c564b",
    "Spot": "#2ca02c",
    "On-demand": "#ff7f0e",
    "Hosted API": "#17becf",
}
_LAYER_ORDER = ["own", "reserved", "always_on", "spot", "on_demand", "api"]


def _served_by_layer(mix) -> tuple[list[str], dict[str, np.ndarray]]:
    """The mix's kinds in stacking order and the demand each serves in each hour. [GPU busy]"""
    present = [k for k in _LAYER_ORDER if k in mix.hourly]
    return present, {k: np.asarray(mix.hourly[k], dtype=float) for k in present}


def hour_of_week_layers(scenario, series: np.ndarray, mix) -> alt.Chart:
    """The busiest week hour by hour, the demand stacked by the layer of the mix that serves it. [GPU]

    Held capacity (reserved or rented 24/7, then owned) serves the bottom of each hour's demand,
    the kinds paid by use the rest (:attr:`costmodel.results.Mix.hourly`).
    """
    weeks = max(len(series) // 168, 1)
    start = int(np.argmax([series[w * 168 : (w + 1) * 168].sum() for w in range(weeks)])) * 168
    present, served = _served_by_layer(mix)
    rows = [
        {"hour": h, "layer": LAYER_LABELS[k], "order": i, "gpus": float(v)}
        for i, k in enumerate(present)
        for h, v in enumerate(served[k][start : start + 168])
    ]
    names = [LAYER_LABELS[k] for k in present]
    return (
        alt.Chart(pd.DataFrame(rows))
        .mark_area(interpolate="step-after")
        .encode(
            x=alt.X(
                "hour:Q",
                title=f"Hour of the busiest week (from hour {start:,} of the year, Monday 00:00 = 0)",
                scale=alt.Scale(domain=[0, 168]),
                axis=alt.Axis(values=list(range(0, 169, 24))),
            ),
            y=alt.Y("gpus:Q", title="GPUs busy [GPU]", stack="zero"),
            color=alt.Color(
                "layer:N",
                title="Served by",
                sort=names,
                scale=alt.Scale(domain=names, range=[_LAYER_PALETTE[n] for n in names]),
            ),
            order=alt.Order("order:Q"),
            tooltip=[alt.Tooltip("layer:N"), alt.Tooltip("hour:Q"), alt.Tooltip("gpus:Q", format=",.2f")],
        )
        .properties(
            width=640,
            height=220,
            title=titled(
                "The busiest week, by the layer that serves it",
                subtitle="Owned and rented replicas carry the base; the API (where it is in the mix) takes the top",
            ),
        )
    )


def mix_cost_against_volume(scenario, series: np.ndarray, points: int = 25) -> alt.Chart:
    """Monthly cost of the cheapest mix against volume, beside each kind alone. [currency/month]

    The profile's shape is kept and scaled from a tenth to three times the stated volume.
    """
    r = as_resolved(scenario)
    scales = np.geomspace(0.1, 3.0, points)
    volume = float(np.mean(r.volume))
    rows = []
    for scale in scales:
        mix = cheapest_mix(r, series * scale)
        rows.append({"volume": volume * scale, "cost": mix.total, "what": "Cheapest mix"})
        rows += [
            {"volume": volume * scale, "cost": cost, "what": f"All {mix.pure_words(k)}"} for k, cost in mix.pure.items()
        ]
    data = pd.DataFrame(rows)
    x_axis, x_scale = log_axis(data["volume"], 640)
    y_axis, y_scale = log_axis(data["cost"], 260, vertical=True)
    return (
        alt.Chart(data)
        .mark_line()
        .encode(
            x=alt.X("volume:Q", title=f"Volume [{r.workload.volume_unit}]", scale=x_scale, axis=x_axis),
            y=alt.Y("cost:Q", title=f"Monthly cost [{r.currency}/month]", scale=y_scale, axis=y_axis),
            color=alt.Color("what:N", title=None, legend=option_legend(list(dict.fromkeys(data["what"])), 640, None)),
            strokeDash=alt.condition(alt.datum.what == "Cheapest mix", alt.value([1, 0]), alt.value([4, 3])),
            tooltip=[
                alt.Tooltip("what:N"),
                alt.Tooltip("volume:Q", format=",.0f"),
                alt.Tooltip("cost:Q", format=",.0f"),
            ],
        )
        .properties(
            width=640,
            height=260,
            title=titled(
                "The cheapest mix against volume, beside each kind alone",
                subtitle="The profile's shape scaled from a tenth to three times the stated volume",
            ),
        )
    )


def load_duration_layers(scenario, series: np.ndarray, mix) -> alt.Chart:
    """The load-duration curve with the mix's layers stacked under it (owned, reserved, spot, ...)."""
    order = np.argsort(-np.asarray(series, dtype=float), kind="stable")  # busiest hour first
    present, served = _served_by_layer(mix)
    hours = np.arange(len(order))
    sample = np.unique(np.linspace(0, len(order) - 1, 600).astype(int))
    rows = []
    for kind in present:
        curve = served[kind][order]
        rows += [
            {"hour": int(h), "layer": LAYER_LABELS[kind], "gpus": float(g)}
            for h, g in zip(hours[sample], curve[sample])
        ]
    data = pd.DataFrame(rows)
    palette = _LAYER_PALETTE
    names = [LAYER_LABELS[k] for k in present]
    area = (
        alt.Chart(data)
        .mark_area(interpolate="step-after")
        .encode(
            x=alt.X("hour:Q", title="Hours of the year, busiest first [h]"),
            y=alt.Y("sum(gpus):Q", title="GPUs busy [GPU]", stack="zero"),
            color=alt.Color(
                "layer:N",
                title="Served by",
                sort=names,
                scale=alt.Scale(domain=names, range=[palette[p] for p in names]),
            ),
            order=alt.Order("layer_order:Q"),
            tooltip=[alt.Tooltip("layer:N"), alt.Tooltip("gpus:Q", format=",.2f")],
        )
        .transform_calculate(
            layer_order=" + ".join(f"(datum.layer == '{p}' ? {i} : 0)" for i, p in enumerate(names)) or "0"
        )
    )
    return area.properties(
        width=640,
        height=260,
        title=titled(
            "Load-duration curve and the cheapest mix",
            subtitle="Held capacity (whole servers and replicas) serves the bottom of each hour's demand, the kinds "
            "paid by use the rest",
        ),
    )


def cost_against_level_chart(scenario, series: np.ndarray) -> alt.LayerChart:
    """Monthly cost of the mix against the GPUs held as owned servers or as the rented kind held, optimum marked."""
    r = as_resolved(scenario)
    currency = r.currency
    held = offer(r, series)
    frames, marks = [], []
    kinds = ([Layer.OWN] if held.own_step is not None else []) + ([held.held_kind] if held.held_kind else [])
    for kind in kinds:
        levels, cost = cost_against_level(r, kind, series)
        ok = np.isfinite(cost)
        levels, cost = levels[ok], cost[ok]
        if not levels.size:
            continue
        frames.append(pd.DataFrame({"level": levels, "cost": cost, "kind": LAYER_LABELS[kind]}))
        index = int(np.argmin(cost))
        best = int(levels[index])
        marks.append(
            {
                "level": best,
                "cost": float(cost[index]),
                "kind": LAYER_LABELS[kind],
                "label": f"{LAYER_LABELS[kind]}: {fmt.plural(best, 'GPU')}",
                "dy": -14 - 14 * len(marks),
            }
        )
    data = pd.concat(frames, ignore_index=True)
    lines = (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X("level:Q", title="GPUs held (owned servers, or the rented kind held) [GPU]", axis=count_axis()),
            y=alt.Y(
                "cost:Q",
                title=f"Monthly cost of the mix [{currency}/month]",
                axis=short_axis(),
                scale=alt.Scale(zero=False),
            ),
            color=alt.Color("kind:N", title="Held as"),
            tooltip=[alt.Tooltip("kind:N"), alt.Tooltip("level:Q"), alt.Tooltip("cost:Q", format=",.0f")],
        )
    )
    frame = pd.DataFrame(marks)
    best = (
        alt.Chart(frame)
        .mark_point(size=140, shape="diamond", filled=True, color="#d62728")
        .encode(x=alt.X("level:Q"), y=alt.Y("cost:Q"), tooltip=[alt.Tooltip("label:N")])
    )
    optimum = "; ".join(f"{m['label']} ({fmt.money(m['cost'], currency)}/month)" for m in marks)
    # the optima are named in the subtitle, not beside the points, where they would cross the lines
    return _layered(lines, best).properties(
        width=560,
        height=280,
        title=titled(
            "Cost against the level held",
            subtitle=["The rest served at its cheapest; red diamonds: the optimum", optimum],
            width=560,
        ),
    )


def serving_curve(comparison: Comparison) -> alt.LayerChart | None:
    """The throughput–interactivity curve the fleet was sized on, with the target and the chosen point.

    Output tokens per second per GPU against tokens per second per user, both on log scales,
    at the workload's request shape; None when there is no curve (no latency target).
    """
    s = comparison.serving
    if s is None or not s.curve:
        return None
    series = [("aggregated (prefill and decode on each replica)", s.curve)]
    if s.decode_curve:
        series.append(("decode pool (prompts prefilled elsewhere)", s.decode_curve))
    data = pd.DataFrame(
        [
            {"curve": name, "concurrency": b, "throughput": t, "speed": u, "ttft": f}
            for name, rows in series
            for b, t, u, f in rows
        ]
    )
    target = (
        s.target["tokens_per_second_per_user"]
        if s.target is not None and s.target["tokens_per_second_per_user"] != "no bound"
        else None
    )
    chosen = s.point
    speeds = (
        list(data["speed"])
        + ([target] if target is not None else [])
        + ([chosen.tokens_per_second_per_user] if chosen is not None else [])
    )
    x_axis, x_scale = log_axis(speeds, 640)
    y_axis, y_scale = log_axis(
        list(data["throughput"]) + ([chosen.throughput_per_gpu] if chosen is not None else []), 320, vertical=True
    )
    x = alt.X("speed:Q", title="Per-user speed [tokens/s/user]", scale=x_scale, axis=x_axis)
    y = alt.Y("throughput:Q", title="Throughput [output tokens/s/GPU]", scale=y_scale, axis=y_axis)
    colour = alt.Color(
        "curve:N",
        title="Curve",
        scale=alt.Scale(range=["#1f77b4", "#2ca02c"]),
        legend=option_legend([name for name, _ in series], 640, "Curve"),
    )
    tooltip = ["curve:N", "concurrency:Q", "speed:Q", "throughput:Q"]
    layers = [
        alt.Chart(data).mark_line().encode(x=x, y=y, color=colour, order=alt.Order("concurrency:Q")),
        alt.Chart(data).mark_point(filled=True).encode(x=x, y=y, color=colour, tooltip=tooltip),
    ]
    if target is not None:
        rule = pd.DataFrame([{"speed": target, "label": f"target: {fmt.amount(target, 1)} tokens/s"}])
        layers.append(alt.Chart(rule).mark_rule(strokeDash=[4, 3], color="#666666").encode(x=alt.X("speed:Q")))
        layers.append(
            alt.Chart(rule)
            .mark_text(angle=270, align="right", baseline="bottom", dx=-4, dy=-6)
            .encode(
                x=alt.X("speed:Q"), y=alt.YDatum(float(_column(data, "throughput").max())), text=alt.Text("label:N")
            )
        )
    if chosen is not None:
        mark = pd.DataFrame(
            [
                {
                    "speed": chosen.tokens_per_second_per_user,
                    "throughput": chosen.throughput_per_gpu,
                    "label": f"chosen: {fmt.amount(chosen.throughput_per_gpu, 0)} per GPU, "
                    f"TTFT {fmt.significant(chosen.ttft, 3)} s",
                }
            ]
        )
        layers.append(
            alt.Chart(mark)
            .mark_point(shape="diamond", size=160, color="#d62728", filled=True)
            .encode(x=alt.X("speed:Q"), y=alt.Y("throughput:Q"))
        )
        layers.append(
            alt.Chart(mark)
            .mark_text(align="left", dx=8, dy=-8, color="#d62728")
            .encode(x=alt.X("speed:Q"), y=alt.Y("throughput:Q"), text=alt.Text("label:N"))
        )
    subtitle = s.curve_label
    return _layered(*layers).properties(
        width=640, height=320, title=titled("Throughput against per-user speed", subtitle=subtitle)
    )


def describe_serving_curve(comparison: Comparison) -> str:
    """Alt text of :func:`serving_curve`."""
    s = comparison.serving
    if s is None or not s.curve:
        return ""
    words = (
        f"Log-log line of output tokens per second per GPU against tokens per second per user, "
        f"{len(s.curve)} points from {fmt.amount(min(c[2] for c in s.curve), 1)} to "
        f"{fmt.amount(max(c[2] for c in s.curve), 1)} tokens/s per user"
    )
    if s.point is not None:
        words += (
            f"; chosen point {fmt.amount(s.point.tokens_per_second_per_user, 1)} tokens/s per user, "
            f"{fmt.amount(s.point.throughput_per_gpu, 1)} per GPU"
        )
    return words + "."


def output_cost_against_speed(scenario, costs: dict[str, list], volume: float) -> alt.Chart:
    """Cost per million output tokens of each option against the per-user speed target.

    Parameters
    ----------
    scenario
        The scenario (for labels and colours).
    costs
        From :func:`costmodel.domain.serving.output_cost_against_speed`.
    volume
        The volume the costs are at. [tokens/day]
    """
    r = as_resolved(scenario)
    rows = [
        {"speed": speed, Columns.option_label: r.label(o), "cost": value}
        for o, points in costs.items()
        for speed, value in points
        if value is not None
    ]
    data = pd.DataFrame(rows, columns=["speed", Columns.option_label, "cost"])
    y_axis, y_scale = log_axis(data["cost"], 320, vertical=True)
    return (
        alt.Chart(data)
        .mark_line(point=True, strokeWidth=2)
        .encode(
            x=alt.X("speed:Q", title="Per-user speed target [tokens/s/user]"),
            y=alt.Y("cost:Q", title=f"Cost per million output tokens [{r.currency}]", scale=y_scale, axis=y_axis),
            color=alt.Color(
                f"{Columns.option_label}:N",
                title="Option",
                scale=_colour_scale(r, list(costs)),
                legend=option_legend([r.label(o) for o in costs], 640),
            ),
        )
        .properties(
            width=640,
            height=320,
            title=titled(
                "Cost per million output tokens against the speed each user sees",
                subtitle=f"at {fmt.volume(r.workload.kind, volume)}; the hosted API's price does not change with it",
            ),
        )
    )


ENERGY_PART_COLOURS = {"operational": "#bcbd22", "embodied": "#7f7f7f"}
"""Operational (electricity) and embodied (manufacturing) emissions, the same in every report."""


def energy_bars(scenario, result) -> alt.HConcatChart:
    """kWh a month by option, and kg CO2e a month by option stacked operational over embodied."""
    r = as_resolved(scenario)
    options = [o for o, e in result.options.items() if e.energy_kwh_per_month is not None]
    order = [r.label(o) for o in options]
    energy = pd.DataFrame([{"option": r.label(o), "kWh": result.options[o].energy_kwh_per_month} for o in options])
    carbon = pd.DataFrame(
        [
            {"option": r.label(o), "part": part, "kg": value}
            for o in options
            for part, value in (
                ("operational", result.options[o].operational_co2e_kg_per_month),
                ("embodied", result.options[o].embodied_co2e_kg_per_month),
            )
            if value is not None
        ]
    )
    # horizontal bars, one band per option (:func:`option_axis`); the emissions' bars beside them in the
    # same order, their names given once
    axis, step = option_axis(order)
    y = alt.Y("option:N", title=None, sort=order, scale=alt.Scale(domain=order), axis=axis)
    left = (
        alt.Chart(energy)
        .mark_bar()
        .encode(
            y=y,
            x=alt.X("kWh:Q", title="Energy at the meter [kWh/month]", axis=alt.Axis(format=",.0f")),
            color=alt.Color("option:N", scale=_colour_scale(r, options), legend=None),
            tooltip=[alt.Tooltip("option:N"), alt.Tooltip("kWh:Q", format=",.0f")],
        )
        .properties(width=260, height=alt.Step(step), title=titled("Energy", "kWh a month", 260))
    )
    if carbon.empty:
        return alt.hconcat(left)
    parts = [p for p in ENERGY_PART_COLOURS if p in set(carbon["part"])]
    right = (
        alt.Chart(carbon)
        .mark_bar()
        .encode(
            y=alt.Y("option:N", title=None, sort=order, scale=alt.Scale(domain=order), axis=alt.Axis(labels=False)),
            x=alt.X("sum(kg):Q", title="Emissions [kg CO2e/month]", axis=alt.Axis(format=",.0f")),
            color=alt.Color(
                "part:N",
                title="Emissions",
                scale=alt.Scale(domain=parts, range=[ENERGY_PART_COLOURS[p] for p in parts]),
                legend=option_legend(parts, 260, "Emissions"),
            ),
            order=alt.Order("part:O", sort="descending"),
            tooltip=[alt.Tooltip("option:N"), alt.Tooltip("part:N"), alt.Tooltip("kg:Q", format=",.0f")],
        )
        .properties(width=260, height=alt.Step(step), title=titled("Emissions, location-based", "kg CO2e a month", 260))
    )
    return alt.hconcat(left, right).resolve_scale(color="independent")


def describe_energy_chart(result) -> str:
    """Alt text of :func:`energy_bars`."""
    parts = []
    for e in result.options.values():
        if e.energy_kwh_per_month is None:
            parts.append(f"{e.label}: not covered")
            continue
        text = f"{e.label}: {fmt.amount(e.energy_kwh_per_month, 0)} kWh"
        if e.co2e_kg_per_month is not None:
            text += (
                f", {fmt.amount(e.co2e_kg_per_month, 0)} kg CO2e "
                f"({fmt.amount(e.embodied_co2e_kg_per_month, 0)} embodied)"
            )
        parts.append(text)
    return "Bars of energy and emissions a month by option: " + "; ".join(parts) + "."


PORTFOLIO_ROWS = 60
"""Most scenarios drawn in the portfolio chart (the table beside it lists them all)."""


def portfolio_chart(frame) -> tuple[alt.Chart, str]:
    """Each scenario's options as multiples of its verdict's figure on its decision measure: the batch index's chart.

    Parameters
    ----------
    frame
        The portfolio table (:func:`costmodel.batch.portfolio_frame`): one row per scenario or
        sweep point, with ``decision_own``, ``decision_rent``, ``decision_api`` and ``winner_figure``
        in each row's ``decision_unit``.

    Returns
    -------
    (chart, description)
        A dot plot, one line per scenario (the first :data:`PORTFOLIO_ROWS` without an error), x
        each option's figure over the verdict's [×] on a log scale so that a scenario's options
        compare whatever its currency, size or measure (a verdict that is no single option, such
        as a mix, is its own point at 1 ×); and its description as alt text naming each verdict.
    """
    from ..resolved import OPTION_LABELS

    rows = []
    usable = frame[frame["error"].isna()] if "error" in frame else frame
    verdicts = []
    for _, row in usable.head(PORTFOLIO_ROWS).iterrows():
        best = row.get("winner_figure")
        if best is None or not np.isfinite(best) or best <= 0:
            continue
        figures = {o: row.get(f"decision_{o}") for o in OPTION_LABELS}
        figures = {o: float(c) for o, c in figures.items() if c is not None and np.isfinite(c) and c > 0}
        name = str(row.get("title") or row["scenario"])
        name = name if len(name) <= 60 else name[:59] + "…"
        unit = str(row.get("decision_unit") or "")
        for option, figure in figures.items():
            rows.append(
                {
                    "scenario": name,
                    Columns.option_label: OPTION_LABELS[option],
                    "multiple": figure / best,
                    "cost": fmt.amount(figure, 0) + f" {unit}",
                }
            )
        if str(row.get("winner")) not in figures:  # the verdict is a mix, a plan or another way to pay
            rows.append(
                {
                    "scenario": name,
                    Columns.option_label: "Verdict (other way to pay)",
                    "multiple": 1.0,
                    "cost": fmt.amount(best, 0) + f" {unit}",
                }
            )
        verdicts.append(f"{name}: {row.get('winner_label')}")
    data = pd.DataFrame(rows, columns=["scenario", Columns.option_label, "multiple", "cost"])
    x_axis, x_scale = log_axis([1.0, *data["multiple"]], 520)
    names = list(OPTION_LABELS.values()) + ["Verdict (other way to pay)"]
    colours = [OPTION_COLOURS[o] for o in OPTION_LABELS] + ["#333333"]
    chart = (
        alt.Chart(data)
        .mark_point(filled=True, size=90)
        .encode(
            y=alt.Y(
                "scenario:N", title=None, sort=list(dict.fromkeys(data["scenario"])), axis=alt.Axis(labelLimit=400)
            ),
            x=alt.X(
                "multiple:Q",
                title="Figure on the scenario's decision measure over its verdict's [×] (log scale)",
                scale=x_scale,
                axis=x_axis,
            ),
            color=alt.Color(f"{Columns.option_label}:N", title="Option", scale=alt.Scale(domain=names, range=colours)),
            shape=alt.Shape(f"{Columns.option_label}:N", title="Option", scale=alt.Scale(domain=names)),
            tooltip=[
                alt.Tooltip("scenario:N"),
                alt.Tooltip(f"{Columns.option_label}:N", title="option"),
                alt.Tooltip("cost:N", title="figure"),
                alt.Tooltip("multiple:Q", format=".2f"),
            ],
        )
        .properties(
            width=520,
            height=26 * max(1, data["scenario"].nunique()) + 10,
            title=titled(
                "Each scenario's options against its verdict",
                subtitle="On each scenario's decision measure; 1 × is the verdict, further right costs more",
                width=520,
            ),
        )
    )
    description = "Dot plot of each option's figure over its scenario's verdict, on its decision measure: " + "; ".join(
        f"{v} is the verdict" for v in verdicts
    )
    return chart, description

"""The report's sections, displayed in a notebook: what the report notebooks call, cell by cell.

Each function displays one section (Markdown, tables and charts with alt text) for a
resolved scenario; a section whose block the scenario lacks displays nothing. Importing
this module imports IPython and Altair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt
import numpy as np
from IPython.display import HTML, Markdown, display

from ..domain.compare import compare
from ..domain.decision import option_of
from ..domain.energy import energy_result
from ..domain.finance import cash_flows, own_finance
from ..domain.mix import offer
from ..domain.sweep import cost_table
from ..domain.uncertainty import monte_carlo, sobol_indices, tornado
from ..extras import ExtraNotInstalled
from ..resolved import Resolved, as_resolved
from ..results import Comparison, MonteCarlo, TornadoBar, TrainingRun
from . import charts, tables, text
from . import format as fmt
from .safe import code_span
from .safe import markdown as md
from .svg import CHART_MIMETYPE, spec_script, spec_text

if TYPE_CHECKING:
    import pandas as pd

_EMBEDDED = 0
"""Charts drawn with embedded Vega in this kernel; the first carries the Vega bundle."""


def show(chart: alt.TopLevelMixin, description: str) -> None:
    """Display a chart with a text description for readers who cannot see it.

    With the ``svg`` renderer the SVG is displayed with ``description`` as its alt text
    (nbconvert writes it into the report's ``<img alt=...>``, escaped), followed by the chart's
    Vega-Lite spec as inline JSON (``<script type="application/json">``): the HTML report's one
    embedded copy of Vega turns each into an interactive chart (tooltips, pan and zoom) with no
    network, and the SVG stays for print and where scripts do not run. Other renderers display
    the chart as they would. With the ``report`` renderer the chart is displayed as its spec
    (:data:`~costmodel.presentation.svg.CHART_MIMETYPE`) and the report runner puts the same two
    outputs in its place.
    """
    if charts.INTERACTIVE:
        global _EMBEDDED
        from .interactive import embed_html

        _EMBEDDED += 1
        spec = interactive_spec(chart)
        spec = spec[spec.index(">") + 1 : -len("</script>")]
        display(HTML(embed_html(spec, f"costmodel-chart-{_EMBEDDED}", with_bundle=_EMBEDDED == 1)))
        return
    if alt.renderers.active != "svg":
        display(chart)
        return
    from altair.utils._importers import vl_version_for_vl_convert

    if charts.DRAWN_BY_RUNNER:
        display(
            {CHART_MIMETYPE: spec_text(interactive_dict(chart)), "text/plain": description},
            raw=True,
            metadata={CHART_MIMETYPE: {"alt": description, "vl_version": vl_version_for_vl_convert()}},
        )
        return
    import vl_convert

    # one unvalidated spec for the SVG and the live view: the charts are this package's own code,
    # which the tests render; the pan-and-zoom parameter does not change the static drawing
    spec = interactive_dict(chart)
    svg = vl_convert.vegalite_to_svg(spec, vl_version=vl_version_for_vl_convert())
    display(
        {"image/svg+xml": svg, "text/plain": description}, raw=True, metadata={"image/svg+xml": {"alt": description}}
    )
    display(HTML(spec_script(spec)))


def interactive_dict(chart: alt.TopLevelMixin) -> dict:
    """The chart's Vega-Lite spec with pan and zoom along x where its x axis is continuous.

    Bars (a nominal x or y, or a summed x) and concatenated charts keep their spec as it is (tooltips only).
    """
    spec = chart.to_dict(validate=False)
    target = spec["layer"][0] if "layer" in spec and spec["layer"] else spec
    layers = spec.get("layer", [spec])
    continuous = all(
        layer["encoding"].get("x", {}).get("type") in ("quantitative", "temporal")
        and "aggregate" not in layer["encoding"]["x"]
        and layer["encoding"].get("y", {}).get("type") not in ("nominal", "ordinal")
        for layer in layers
        if "encoding" in layer
    )
    if continuous and "mark" in target:
        target.setdefault("params", []).append(
            {"name": "costmodel_zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"}
        )
    return spec


def interactive_spec(chart: alt.TopLevelMixin) -> str:
    """The chart's Vega-Lite spec, pannable and zoomable where it can be, as an inline JSON script."""
    return spec_script(interactive_dict(chart))


def table(frame: pd.DataFrame) -> None:
    """Display a table of text cells (HTML-escaped) without its index."""
    display(HTML(frame.to_html(index=False, escape=True)))


# Headings' introductions of the sections that may be empty: each is shown only with its content
HORIZON_INTRO = (
    "Cash basis: capex is paid when the hardware is bought, running costs and rental as they arise, and the "
    "hardware's resale value comes back in the last month, so capex is never counted twice. The present "
    "value discounts each month at the scenario's cost of capital."
)

MIX_INTRO = (
    "Demand hour by hour, its load-duration curve, and the cheapest split between owned, reserved, spot and "
    "on-demand capacity (screening curves: each further GPU goes to the kind that serves its busy share of "
    "hours most cheaply)."
)

UNCERTAINTY_INTRO = (
    "The decision metric is the tracked option's figure on the decision measure (the cheapest of its ways to "
    "pay) minus the cheapest other candidate's, at the scenario's volume; below zero the tracked option wins. "
    "Monte Carlo samples all uncertain inputs together, in one vectorised call through the same calculator."
)

SERVING_INTRO = (
    "For a served model: the latency target (or, with none, maximum throughput as measured), the operating "
    "point on the throughput–interactivity curve that meets it and its source, GPUs and servers per replica, "
    "each option's replicas, prefill and decode pools and spares, and the cost per million output tokens."
)

CHECKPOINT_INTRO = (
    "Save often and pay in write time; save rarely and lose more work per failure. The curve is Daly's "
    "(2006) expected share of wall-clock time lost; the marks are Young's (1974) and Daly's optimum "
    "intervals."
)


_ANALYSIS: dict[int, tuple[Resolved, list[TornadoBar], MonteCarlo]] = {}
"""Tornado and Monte Carlo of a resolved scenario, computed once for the summary and reused by
:func:`uncertainty` (keyed by the resolved scenario's id, which the notebook keeps alive)."""


def _uncertainty_analysis(r: Resolved) -> tuple[list[TornadoBar], MonteCarlo] | tuple[None, None]:
    if r.uncertainty is None:
        return None, None
    key = id(r)
    if key not in _ANALYSIS or _ANALYSIS[key][0] is not r:
        _ANALYSIS[key] = (r, tornado(r), monte_carlo(r))
    return _ANALYSIS[key][1], _ANALYSIS[key][2]


def executive_summary(scenario: Resolved, comparison: Comparison) -> None:
    """The report's first section: one verdict, its margin, the break-even and inputs that matter, caveats."""
    r = as_resolved(scenario)
    bars, result = _uncertainty_analysis(r) if comparison.training is None else (None, None)
    display(Markdown(text.executive_summary(r, comparison, bars, result)))
    table(tables.verdict_table(comparison))


def stamp(scenario: Resolved, scenario_file: str | None = None) -> None:
    """The report's foot: package version, catalog snapshot date, scenario file hash, render time."""
    from ..scenarios import scenario_path

    path = scenario_path(scenario_file) if scenario_file is not None else None
    display(Markdown(text.stamp(as_resolved(scenario), path)))


def heading(title: str, intro: str = "") -> None:
    """A section heading (and its introduction), displayed only by sections that have content."""
    display(Markdown(f"## {title}" + (f"\n\n{intro}" if intro else "")))


def headline(scenario: Resolved, comparison: Comparison) -> None:
    """The answer at the scenario's volume (the verdict itself is the executive summary's, above it)."""
    display(Markdown(text.headline(scenario, comparison, verdict=False)))


def cost_against_volume(
    scenario: Resolved, comparison: Comparison, volume_min: float, volume_max: float, points: int
) -> None:
    """Monthly cost of each option against volume, break-evens marked."""
    show(
        charts.cost_vs_volume(scenario, comparison, volume_min, volume_max, points),
        charts.describe_cost_chart(comparison),
    )


def gpus_against_volume(scenario: Resolved) -> None:
    """GPUs each option runs against volume."""
    show(charts.gpu_count_steps(scenario), charts.describe_gpu_chart(scenario))


def components(scenario: Resolved) -> None:
    """Each option's monthly cost by component at the scenario's volume."""
    frame = cost_table(scenario)
    show(charts.component_bars(frame, scenario), charts.describe_component_chart(scenario, frame))


def horizon(scenario: Resolved) -> None:
    """The own cluster over the horizon: figures, cumulative cost, cost lines, cost per used GPU-hour."""
    r = as_resolved(scenario)
    if r.finance is None or "own" not in r.options:
        return
    heading("Own cluster over the horizon", HORIZON_INTRO)
    flows = cash_flows(r)
    result = own_finance(r, flows)
    display(Markdown(text.describe_finance(r, result)))
    table(tables.finance_table(r, result))
    show(
        charts.cumulative_cost(r, flows, result),
        "Cumulative cost of each option by month; payback "
        + (f"in month {result.payback_month}" if result.payback_month is not None else "never"),
    )
    show(charts.own_cost_lines(r), "Bars of the own cluster's capex by line and running cost by line.")
    show(
        charts.cost_per_gpu_hour_vs_utilisation(r, result),
        "Own cost per used GPU-hour falling with utilisation, against rental prices; break-evens: "
        + "; ".join(
            f"{b.label} " + ("never" if b.utilisation is None else fmt.share(b.utilisation))
            for b in result.break_even_utilisation
        ),
    )
    display(Markdown("### Cash flows by year"))
    table(tables.yearly_table(r, flows))
    if r.finance.capacity_plan is not None:
        from ..domain.plan import growth_plan

        display(Markdown(text.plan_sentence(growth_plan(r), r.currency)))


def demand_mix(scenario: Resolved, comparison: Comparison | None = None) -> None:
    """Demand hour by hour, the load-duration curve and the cheapest mix."""
    r = as_resolved(scenario)
    result = (comparison or compare(r)).mix
    if result is None:
        return
    heading("Steady or bursty: the cheapest mix", MIX_INTRO)
    series, mix = result.demand, result.mix
    display(Markdown(text.describe_mix(result, r.currency)))
    log = r.demand.job_log if r.demand is not None else None
    if log is not None and (log.skipped or log.running):
        notes = [f"{n:,} {reason}" for reason, n in log.skipped.items()]
        if log.running:
            notes.append(f"{log.running:,} jobs still running, counted up to {log.until}")
        display(Markdown("Job log: " + md("; ".join(notes)) + "."))
    show(
        charts.demand_week(r, series),
        f"Band chart of GPUs busy day by day over the year (each day's lowest to highest hour, and its mean); "
        f"mean {series.mean():,.2f}, peak {series.max():,.2f}.",
    )
    show(
        charts.load_duration_layers(r, series, mix),
        "Load-duration curve with the cheapest mix stacked under it: " + mix.words() + ".",
    )
    if r.workload.kind == "tokens":
        show(
            charts.hour_of_week_layers(r, series, mix),
            "Stacked area chart of the busiest week hour by hour, each layer of the cheapest mix in its colour.",
        )
        show(
            charts.mix_cost_against_volume(r, series),
            "Line chart of the cheapest mix's monthly cost against volume, beside each pure option's.",
        )
    held = offer(r, series)
    if held.own_step is not None or held.held_kind is not None:
        show(
            charts.cost_against_level_chart(r, series),
            "Monthly cost against the GPUs held as owned servers or as the rented kind held, with the optimum marked.",
        )
    table(tables.mix_table(mix, r.currency))


def uncertainty(scenario: Resolved, sobol: bool = False) -> None:
    """Monte Carlo, tornado and (when asked: ``sobol=True``) Sobol indices of the decision metric."""
    r = as_resolved(scenario)
    if r.uncertainty is None:
        return
    heading("Which inputs decide it, and how sure are we", UNCERTAINTY_INTRO)
    bars, result = _uncertainty_analysis(r)
    assert bars is not None and result is not None, "a scenario with an uncertainty block has both analyses"
    option = r.label(result.option)
    ways = [o for o in result.costs if o == result.option or option_of(o) == result.option]
    saves = float(np.mean(result.savings > 0))
    p10, p50, p90 = np.percentile(result.savings, [10, 50, 90])
    clipped = [f"{p} {n:,}" for p, n in result.clipped.items() if n]
    title = fmt.measure_title(result.measure)
    display(
        Markdown(
            f"On the decision measure ({md(title)}), over **{result.samples:,} samples** "
            f"(seed {r.uncertainty.seed}) of {len(r.uncertainty.distributions)} uncertain inputs, **{md(option)}**"
            f"{' (on the cheapest of its ways to pay)' if len(ways) > 1 else ''} is the cheapest in "
            f"**{fmt.share(result.option_win_probability())}** of them. Its saving against the cheapest "
            f"other way to pay: P10 {fmt.amount(p10, 0)}, P50 {fmt.amount(p50, 0)}, P90 {fmt.amount(p90, 0)} "
            f"{md(result.unit)} (it saves money in {fmt.share(saves)})."
            + ("" if not clipped else " Samples clipped into allowed ranges: " + md(", ".join(clipped)) + ".")
        )
    )
    table(tables.percentile_table(r, result))
    show(
        charts.win_probability_bars(r, result),
        "Bars of each way to pay's probability of being the cheapest: "
        + "; ".join(f"{result.label(o)} {fmt.share(p)}" for o, p in result.win_probability().items()),
    )
    show(
        charts.savings_histogram(r, result),
        f"Histogram of {option}'s saving ({title}); it saves money in {fmt.share(saves)} of samples.",
    )
    display(
        Markdown(
            "### One input at a time\n\nEach input at its low and high value (its 10th and 90th "
            "percentile, or the range given), the others as in the scenario."
        )
    )
    show(
        charts.tornado_chart(r, bars, result.option),
        "Tornado of the decision metric; widest swing: " + (text.input_title(r, bars[0].path) if bars else "none"),
    )
    table(tables.tornado_table(bars, r))
    if not sobol:
        return
    display(
        Markdown(
            "### Global sensitivity (Sobol indices, SALib)\n\nS1: share of the metric's variance due to "
            "the input alone; ST: including its interactions with the others."
        )
    )
    try:
        indices = sobol_indices(r)
    except ExtraNotInstalled as exc:
        display(Markdown(f"Not computed: {md(exc.feature)} needs {md(exc.package)}: {code_span(exc.command)}."))
        return
    if indices is None:
        display(Markdown("No input has a distribution SALib can sample."))
        return
    table(tables.sobol_table(indices, r))
    if not indices.defined:
        display(Markdown("The metric does not vary over the samples, so no index is defined."))
    if indices.left_out:
        display(Markdown("Left out (empirical or zero width): " + md(", ".join(indices.left_out))))


def serving(scenario: Resolved, comparison: Comparison | None = None) -> None:
    """Serving at a latency target: target, operating point, replica, pools, spares, cost per M output tokens."""
    from ..domain.serving import output_cost_against_speed

    r = as_resolved(scenario)
    c = comparison or compare(r)
    if c.serving is None:
        return
    heading("Serving at a latency target", SERVING_INTRO)
    display(Markdown(text.describe_serving(c)))
    table(tables.serving_table(c))
    chart = charts.serving_curve(c)
    if chart is not None:
        show(chart, charts.describe_serving_curve(c))
    if c.serving.target is not None and c.serving.target["tokens_per_second_per_user"] != "no bound":
        speeds = sorted({row[2] for row in c.serving.curve})
        low, high = max(min(speeds), 1.0), max(speeds)
        volume = 10 * r.volume
        costs = output_cost_against_speed(r, np.geomspace(low, high, 12), volume)
        show(
            charts.output_cost_against_speed(r, costs, volume),
            f"Lines of cost per million output tokens against the per-user speed target at "
            f"{fmt.volume(r.workload.kind, volume)}, one per option; the hosted API's line is flat.",
        )


ROUTING_INTRO = (
    "The requests split by class, each class served by its own option (capacity sized for its tokens alone), "
    "the blend's cost, and the option named as the baseline serving every request."
)


def routing(comparison: Comparison) -> None:
    """Routing across models: each class on its option, the blend and its saving; nothing without a routing block."""
    if comparison.routing is None:
        return
    heading("Routing across models", ROUTING_INTRO)
    summary = [line.strip() for line in text.routing_lines(comparison) if line.startswith(("  routed", "  cost per"))]
    display(Markdown("\n".join(f"- {md(line)}" for line in summary)))
    table(tables.routing_table(comparison))


def inputs(scenario: Resolved) -> None:
    """Every input with its unit and source."""
    table(tables.inputs_table(scenario))


def training_summary(scenario: Resolved, run: TrainingRun) -> None:
    """The training run in words."""
    display(Markdown(text.describe_training_run(scenario, run)))


def training_figures(scenario: Resolved, run: TrainingRun) -> None:
    """The training run's figures."""
    table(tables.run_table(scenario, run))


def training_stages(scenario: Resolved, run: TrainingRun) -> None:
    """The run by stage (as DeepSeek-V3's Table 1), or nothing for a run stated whole."""
    if len(run.stages) > 1:
        table(tables.stage_table(scenario, run))


def training_costs(scenario: Resolved, run: TrainingRun) -> None:
    """The run's cost with each option, by component."""
    r = as_resolved(scenario)
    show(
        charts.run_cost_bars(r, run),
        "Bars of the training run's cost: "
        + "; ".join(f"{r.label(o)} {fmt.amount(run.total(o), 0)} {r.currency}" for o in run.costs)
        + ".",
    )


def checkpoints(scenario: Resolved, run: TrainingRun) -> None:
    """The checkpoint-interval trade-off, with its heading; nothing when the run has no failure model."""
    if run.job_mtbf_hours is None:
        return
    assert run.checkpoint_interval_hours is not None, "a run with failures has a checkpoint interval"
    heading("Checkpoint interval", CHECKPOINT_INTRO)
    show(
        charts.checkpoint_tradeoff(scenario, run),
        f"Curve of time lost against checkpoint interval; job MTBF {fmt.amount(run.job_mtbf_hours)} h; the interval "
        f"used, {fmt.amount(run.checkpoint_interval_hours * 60, 1)} min, loses {fmt.share(1 - run.goodput)}.",
    )


__all__ = [
    "checkpoints",
    "components",
    "cost_against_volume",
    "demand_mix",
    "gpus_against_volume",
    "headline",
    "horizon",
    "inputs",
    "show",
    "table",
    "training_costs",
    "training_figures",
    "training_stages",
    "training_summary",
    "uncertainty",
]


def energy_carbon(scenario: Resolved, comparison: Comparison | None = None, run: TrainingRun | None = None) -> None:
    """Energy and emissions of every option a month (and of a training run), the power budget, the tariff bill."""
    r = as_resolved(scenario)
    result = (
        comparison.energy if comparison is not None and comparison.energy is not None else energy_result(r, run=run)
    )
    display(Markdown(text.describe_energy(result, r.currency)))
    show(charts.energy_bars(r, result), charts.describe_energy_chart(result))
    table(tables.energy_table(result))


def claims(comparison: Comparison, model: Resolved | None = None) -> None:
    """The figures the scenario's source states, each confirmed or contradicted, and what would make it hold.

    With the resolved ``model``, its ``figure`` claims (any figure of the output) are checked too.
    """
    if model is not None:
        from .output import with_figure_claims

        comparison = with_figure_claims(comparison, model)
    if not comparison.claims:
        return
    heading(
        "Stated figures checked",
        "What the scenario's source document states (its `claims` block), against the model's figure: "
        "confirmed within the stated tolerance or contradicted, and for a contradicted one, the single inputs "
        "that, changed alone, would make it hold.",
    )
    lines = []
    for claim in comparison.claims:
        verdict = "**confirmed**" if claim.confirmed else "**contradicted**"
        if claim.kind == "break_even":
            stated = f"{fmt.significant(claim.stated, 4)} {claim.unit}"
            if claim.stated_multiple is not None:
                stated += f" ({fmt.significant(claim.stated_multiple, 3)} × the volume)"
            computed = (
                "never within the searched range"
                if claim.computed is None
                else (
                    f"{fmt.significant(claim.computed, 4)} {claim.unit}"
                    + (
                        f" ({fmt.significant(claim.computed_multiple, 3)} × the volume)"
                        if claim.computed_multiple is not None
                        else ""
                    )
                )
            )
        elif claim.kind == "figure":
            unit = fmt.unit_suffix(claim.unit)  # a ratio or a share: a plain number
            stated = f"{fmt.stated(claim.stated)}{unit}"
            computed = "not defined" if claim.computed is None else f"{fmt.stated(claim.computed)}{unit}"
        else:
            stated = f"{fmt.amount(claim.stated)} {claim.unit}"
            computed = f"{fmt.amount(claim.computed)} {claim.unit}"
        checked = (
            md(text.cheapest_claim_words(claim, comparison.volume_unit, times="×", label=comparison.label))
            if claim.kind == "cheapest"
            else f"stated {md(stated)}, computed {md(computed)}, tolerance {fmt.share(claim.tolerance)}"
        )
        lines.append(f"- {verdict}: “{md(claim.statement)}” ({md(claim.source) or 'no source given'}): {checked}.")
        for change in claim.would_hold:
            unit = f" {md(change.unit)}" if fmt.unit_suffix(change.unit) else ""  # escaped for Markdown
            were = text.would_hold_words(claim, change)
            lines.append(
                f"    - would hold if {code_span(change.path)} ({md(change.title)}) {were} "
                f"{fmt.significant(change.needed, 4)}{unit} instead of "
                f"{fmt.significant(change.current, 4)}{unit}"
            )
    display(Markdown("\n".join(lines)))


def what_if_note(scenario: str) -> None:
    """How to open the live what-if notebook for this scenario: one command (a static page runs no kernel).

    Parameters
    ----------
    scenario
        The scenario as the report was given it: a bundled name or a path.
    """
    import shlex
    from pathlib import Path

    from ..paths import SCENARIO_DIR
    from .safe import html_text

    path = Path(str(scenario))
    if path.suffix == ".yaml" and path.parent.resolve() == SCENARIO_DIR.resolve() and path.exists():
        scenario = path.stem  # a bundled scenario: its name works from anywhere
    command = f"costmodel what-if {shlex.quote(str(scenario))}"
    display(
        HTML(
            "<p>This page is static: no kernel runs behind it. To move any input and see the verdict, each option's "
            "cost, the break-evens and the cost-against-volume chart redrawn as you go (the five inputs that move the "
            "answer most are offered first; dropdowns change the GPU, server, rental or API offer), open the what-if "
            "notebook for this scenario in JupyterLab with one command from the repository root:</p>"
            f"<pre><code>{html_text(command)}</code></pre>"
            "<p>It needs the <code>interactive</code> extra (<code>make lab</code> installs it) and works offline. "
            "A what-if can be saved as a scenario file, which <code>costmodel compare</code> and "
            "<code>costmodel report</code> take.</p>"
        )
    )

"""The index page of ``costmodel batch --reports``: one report per scenario, then ``index.html``
linking them above the portfolio table and its chart.

The reports run in several :class:`~costmodel.jupyter_adapter.WarmKernel` s at once
(:func:`render_reports_index`); the page is checked as a report is (nothing in it loads or runs
anything, every text from a scenario is escaped) and names no folder of this machine.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from .files import write_text_atomically
from .jupyter_adapter import WarmKernel
from .presentation.safe import terminal
from .report import BREAK_EVEN_NOTEBOOK, Report, checked_timeout, local_paths, render_in_kernel, without_local_paths
from .report_page import ReportError, unsafe_parts, with_content_security_policy

if TYPE_CHECKING:
    import pandas as pd

    from .presentation.svg import ChartDrawer


def _portfolio_picture(portfolio: pd.DataFrame, drawer: ChartDrawer, timeout: float) -> str:
    """The portfolio chart (:func:`costmodel.presentation.charts.portfolio_chart`) as a static SVG
    image with its alt text, for the index page ("" when no scenario has a cost to draw)."""
    import base64
    import html

    from .presentation import charts
    from .presentation.svg import ChartError, spec_text

    charts.use_renderer("svg")
    chart, description = charts.portfolio_chart(portfolio)
    if chart.data.empty:
        return ""
    try:
        svg = drawer.svg(drawer.submit(spec_text(chart.to_dict(validate=False))), timeout)
    except ChartError as exc:
        print(
            terminal(f"costmodel batch: the portfolio chart could not be drawn, left out: {exc}", multiline=True),
            file=sys.stderr,
        )
        return ""
    source = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")
    return f'<p><img alt="{html.escape(description)}" src="{source}"></p>'


def render_reports_index(
    scenarios: list[str],
    portfolio: pd.DataFrame,
    out_dir: str | Path,
    timeout: float = 600,
    kernels: int = 1,
    catalog: str | Path | None = None,
    started: list[WarmKernel] | None = None,
) -> list[str]:
    """Render one report per scenario, then ``index.html`` linking them above the portfolio table.

    The reports run in ``kernels`` :class:`WarmKernel` s, each taking the next scenario when it
    is free (one thread per kernel: the kernels are processes of their own). The index page is checked
    like a report: nothing in it loads or runs anything, and every text from a scenario is
    escaped.

    Parameters
    ----------
    scenarios
        Scenario names or paths that evaluated without error.
    portfolio
        The portfolio table.
    out_dir
        The batch's output folder.
    timeout
        Longest time one notebook cell may run (see :func:`costmodel.report.render_report`). [s]
    kernels
        How many kernels to start when ``started`` gives none.
    catalog
        A folder of catalog CSV rows to add to the bundled ones.
    started
        Kernels already started (``costmodel batch`` starts them before it computes the
        portfolio); default ``kernels`` new ones. All are shut down at the end.

    Returns
    -------
    list of str
        Scenarios whose report failed (each also printed on stderr).
    """
    from .paths import scenario_path

    seconds = checked_timeout(timeout)
    started = started or [WarmKernel() for _ in range(max(1, min(kernels, len(scenarios))))]
    done, failed, picture = _render_all(scenarios, portfolio, Path(out_dir), seconds, catalog, started)
    page = _index_page(done, failed, portfolio, picture, Path(out_dir))
    # the page names no folder of this machine: the scenarios' files (in the table, its errors) as the reports do
    pairs = {pair for name in scenarios for pair in local_paths(scenario_path(name), catalog, BREAK_EVEN_NOTEBOOK)}
    page = without_local_paths([page], sorted(pairs, key=lambda pair: -len(pair[0])))[0]
    problems = unsafe_parts(page)
    if problems:
        raise ReportError(f"the index page would load or run something: {problems[:3]}")
    write_text_atomically(Path(out_dir) / "index.html", with_content_security_policy(page))
    return failed


def _render_all(
    scenarios: list[str],
    portfolio: pd.DataFrame,
    out_dir: Path,
    timeout: int,
    catalog: str | Path | None,
    started: list[WarmKernel],
) -> tuple[list[Report], list[str], str]:
    """Render the reports in the ``started`` kernels (one thread each), then draw the portfolio chart.

    Returns
    -------
    tuple
        The reports written (in the order of ``scenarios``), the scenarios whose report failed
        (each printed on stderr), and the portfolio picture (:func:`_portfolio_picture`).
    """
    from concurrent.futures import Future, ThreadPoolExecutor

    from .presentation.svg import ChartDrawer

    failed: list[str] = []
    done: dict[int, Report] = {}
    finishing: dict[int, tuple[str, Future[Report]]] = {}
    work: queue.Queue[tuple[int, str]] = queue.Queue()
    for index, scenario in enumerate(scenarios):
        work.put((index, scenario))

    def report_failed(scenario: str, exc: Exception) -> None:
        print(terminal(f"costmodel batch: report of {scenario}: {exc}", multiline=True), file=sys.stderr)
        failed.append(str(scenario))

    def serve(kernel: WarmKernel) -> None:
        with kernel:
            while True:
                try:
                    index, scenario = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    finish = render_in_kernel(
                        scenario,
                        out_dir,
                        timeout,
                        None,
                        None,
                        kernel,
                        False,
                        drawer,
                        time.perf_counter(),
                        catalog=catalog,
                    )
                except (ReportError, ValueError, OSError) as exc:  # ParameterError is a ValueError
                    report_failed(scenario, exc)
                    continue
                # the kernel takes the next scenario while this report's charts are drawn and it is written
                finishing[index] = (scenario, finishers.submit(finish))

    # every kernel and the one chart-drawing process start at once, and boot side by side
    with ChartDrawer(processes=len(started)) as drawer, ThreadPoolExecutor(len(started)) as finishers:
        threads = [threading.Thread(target=serve, args=(kernel,), daemon=True) for kernel in started]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for index, (scenario, future) in sorted(finishing.items()):
            try:
                done[index] = future.result()
            except (ReportError, ValueError, OSError) as exc:
                report_failed(scenario, exc)
        picture = _portfolio_picture(portfolio, drawer, timeout)
    return [done[index] for index in sorted(done)], failed, picture


_STYLE = (
    "<style>body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1400px;margin:1em auto;"
    "padding:0 1em;color:#222}table{border-collapse:collapse;font-size:12px}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;max-width:28em}"
    ".failed{background:#fdecea;border-left:4px solid #d62728;padding:0.4em 0.8em}</style>"
)
"""The index page's own style sheet (inline: the page loads nothing)."""


def _index_page(done: list[Report], failed: list[str], portfolio: pd.DataFrame, picture: str, out_dir: Path) -> str:
    """The index page: the failures, the portfolio picture, a link to each report and the table, every
    text from a scenario escaped."""
    import html

    links = []
    for report in done:
        relative = report.html.relative_to(out_dir).as_posix()
        # a URL: a file name's '#', '?' or '%' would otherwise end the path or read as an escape
        links.append(
            f'<li><a href="{html.escape(urllib.parse.quote(relative))}">{html.escape(report.scenario)}</a></li>'
        )
    shown = portfolio.copy()  # empty cells, not <NA> or None, where a value is missing
    for column in shown.columns:
        if shown[column].dtype.kind not in "fc":
            shown[column] = shown[column].astype(object).where(shown[column].notna(), "")
    table = shown.to_html(index=False, escape=True, na_rep="", float_format=lambda x: f"{x:,.2f}")
    errors = portfolio[portfolio["error"].notna()] if "error" in portfolio else portfolio.iloc[:0]
    warning = (
        ""
        if errors.empty
        else (
            f'<p class="failed"><strong>{len(errors)} of {len(portfolio)} rows failed</strong> (see the error column): '
            + html.escape(", ".join(dict.fromkeys(str(name) for name in errors["scenario"])))
            + "</p>"
        )
    )
    failed_note = (
        ""
        if not failed
        else ('<p class="failed"><strong>Reports not written:</strong> ' + html.escape(", ".join(failed)) + "</p>")
    )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>costmodel batch</title>'
        + _STYLE
        + "</head><body><h1>Portfolio</h1>"
        + warning
        + failed_note
        + picture
        + "<h2>Reports</h2><ul>"
        + "".join(links)
        + "</ul><h2>Table</h2>"
        + table
        + "</body></html>\n"
    )

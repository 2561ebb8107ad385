"""Render scenarios into self-contained HTML reports that cannot be mixed up and load nothing.

For each scenario, :func:`render_report` runs ``notebooks/break_even.ipynb`` (or
``notebooks/training_run.ipynb`` for a training run) with papermill, on a kernel started from
the same Python interpreter as the caller (so a report and ``costmodel compare`` can never
disagree), talking over Unix sockets in a private temporary folder. The executed notebook is
exported with nbconvert through the ``costmodel_offline`` template (the JupyterLab template
without require.js, MathJax, Mermaid or widgets); the HTML is parsed and refused if anything in
it would load or run (:func:`unsafe_parts`). The page written carries a Content-Security-Policy
that lets only its own inline scripts run, by their hashes (:func:`with_content_security_policy`),
and loads nothing from any URL. Everything is written to temporary files first and
renamed into ``DIR/<name>/`` only when whole (the page and its executed notebook together), so
two runs into one folder at once both leave whole reports, and a run that fails or is interrupted
leaves the earlier ``report.html`` and ``report.ipynb`` as they were; a failed notebook is kept
beside them as ``report.failed.ipynb``.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import did_you_mean
from .files import aside
from .jupyter_adapter import KERNEL_NAME, PreparedExport, WarmKernel, execute_warm, export_page, papermill_engine
from .paths import NOTEBOOK_DIR, SCENARIO_DIR, shown_path
from .presentation.interactive import vega_bundle
from .report_page import (
    BUNDLE_MARKER,
    ReportError,
    content_security_policy,
    external_references,
    trusted_scripts,
    unsafe_parts,
    with_bundle,
    with_content_security_policy,
    with_drawings,
)

__all__ = [
    "BREAK_EVEN_NOTEBOOK",
    "KERNEL_NAME",
    "LONGEST_TIMEOUT",
    "TRAINING_NOTEBOOK",
    "Report",
    "ReportError",
    "WarmKernel",
    "check_parameters",
    "check_report_paths",
    "content_security_policy",
    "external_references",
    "local_paths",
    "notebook_for",
    "render_report",
    "report_folder",
    "report_paths",
    "trusted_scripts",
    "unsafe_parts",
    "with_content_security_policy",
    "without_local_paths",
]

if TYPE_CHECKING:
    from .presentation.svg import ChartDrawer

BREAK_EVEN_NOTEBOOK: Path = NOTEBOOK_DIR / "break_even.ipynb"
TRAINING_NOTEBOOK: Path = NOTEBOOK_DIR / "training_run.ipynb"


def notebook_for(kind: str) -> Path:
    """The report notebook for a workload kind: training runs get training_run.ipynb."""
    return TRAINING_NOTEBOOK if kind == "training" else BREAK_EVEN_NOTEBOOK


def report_folder(path: Path) -> str:
    """Folder name of a scenario's report: the bundled scenario's name, else the file's stem with
    a short hash of its absolute path, so two files with the same stem never share a folder."""
    path = Path(path).resolve()
    if path.parent == SCENARIO_DIR.resolve():
        return path.stem
    return f"{path.stem}-{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"


def check_parameters(notebook: Path, parameters: dict) -> list[str]:
    """Refuse parameters the notebook's ``parameters`` cell does not declare; returns the declared names.

    Raises
    ------
    ParameterError
        An unknown name (papermill itself would only warn), with "did you mean".
    """
    import papermill

    from .errors import ParameterError

    declared = papermill.inspect_notebook(str(notebook))
    unknown = [name for name in parameters if name not in declared]
    if unknown:
        raise ParameterError(
            "; ".join(
                f"{notebook.name}: parameter {name!r} is not one this notebook takes"
                f"{did_you_mean(name, declared)}; it takes {', '.join(declared)}"
                for name in unknown
            )
        )
    return list(declared)


@dataclass(frozen=True)
class Report:
    """A rendered report: where it is and how long it took."""

    scenario: str
    html: Path
    notebook: Path
    seconds: float


def render_report(
    scenario: str | Path,
    out_dir: str | Path = "reports",
    timeout: int = 600,
    notebook: Path | None = None,
    parameters: dict | None = None,
    kernel: WarmKernel | None = None,
    drawer=None,
    catalog: str | Path | None = None,
) -> Report:
    """Render one scenario's report.

    The kernel (and a chart-drawing process, :mod:`costmodel.presentation.svg`) start first,
    and boot while the runner reads the scenario's title and workload kind (for the notebook to
    run); the notebook's first cells validate the scenario in the kernel, which has the models
    imported. The charts are drawn to SVG in that process while the kernel runs the next cells
    (the notebook's ``renderer`` is ``"report"`` unless ``parameters`` says otherwise).

    Parameters
    ----------
    scenario
        Bundled scenario name or path to a scenario YAML file.
    out_dir
        Folder to write ``<name>/report.html`` and ``<name>/report.ipynb`` in
        (see :func:`report_folder` for the name).
    timeout
        Longest time one notebook cell may run, above 0 and at most :data:`LONGEST_TIMEOUT`
        (a fraction is rounded up). [s]
    notebook
        The notebook to run; default :func:`notebook_for` the scenario's workload kind.
    parameters
        Further notebook parameters (``volume_max``, ...); each must be declared by the
        notebook's ``parameters`` cell. Not ``scenario`` or ``catalog``: the arguments give them.
    kernel
        A :class:`WarmKernel` to run in and keep (default: a kernel for this report alone).
    drawer
        A :class:`~costmodel.presentation.svg.ChartDrawer` to draw the charts (default: one for
        this report alone).
    catalog
        A folder of catalog CSV rows to add to the bundled ones (as ``compare --catalog``):
        the scenario is checked against them, and the notebook gets it as its ``catalog``.

    Returns
    -------
    Report

    Raises
    ------
    ScenarioError
        The scenario file is invalid: found by the notebook's first cells (and raised here
        as the runner's own validation of the file finds it, with nothing of the run left), or
        at once when the file has no title and workload kind to read. An earlier report of it
        stays as it was (in every failure, and on an interrupt).
    CatalogError
        The catalog folder is not one, or a row in it is bad.
    ParameterError
        A parameter the notebook does not declare, or ``scenario`` or ``catalog`` in ``parameters``
        (both found before the kernel runs anything), or a parameter's value the notebook's
        check refuses (found by that cell).
    ValueError
        ``timeout`` is not a number above 0 and at most :data:`LONGEST_TIMEOUT`.
    ReportError
        The notebook failed, a chart could not be drawn, or the HTML would load or run
        something. No new ``report.html`` is written; the executed notebook, with the error in
        it, is kept for inspection as ``report.failed.ipynb``.
    """
    start = time.perf_counter()
    timeout = checked_timeout(timeout)  # before a kernel starts
    own_kernel = kernel is None
    if own_kernel:
        kernel = WarmKernel()  # first: it boots while the runner imports what it needs
    from .presentation.svg import ChartDrawer

    own_drawer = drawer is None
    if own_drawer:
        drawer = ChartDrawer(start=False)  # started once the parameters are checked
    try:
        finish = render_in_kernel(
            scenario, Path(out_dir), timeout, notebook, parameters, kernel, own_kernel, drawer, start, catalog=catalog
        )
        return finish()
    finally:
        if own_drawer:
            drawer.close()
        if own_kernel:
            kernel.close(now=True)


def render_in_kernel(
    scenario: str | Path,
    out_dir: Path,
    timeout: int,
    notebook: Path | None,
    parameters: dict | None,
    kernel: WarmKernel,
    own_kernel: bool,
    drawer: ChartDrawer,
    start: float,
    catalog: str | Path | None = None,
) -> Callable[[], Report]:
    """Run a report's notebook in a kernel, with a drawer already made; returns the function that
    finishes the report (waits for the charts, exports, checks and writes the page) and returns it.

    The ``drawer`` is started (if it is not yet) once the parameters are checked. Returning once
    the kernel has run the notebook lets a batch's kernel take the next scenario while the
    report is finished.
    """
    from .paths import scenario_path
    from .presentation.svg import cell_hook

    path = scenario_path(scenario).resolve()
    html_path, notebook_path, failed_path = report_paths(path, out_dir)
    check_report_paths(path, out_dir)
    target = html_path.parent
    title, notebook, values = _notebook_values(path, notebook, parameters, catalog)
    # the drawing process and the export start once the checks are done, so that on two cores they
    # do not slow the kernel's boot; each is ready before the kernel needs it
    drawer.start()  # a no-op for a batch's drawer, started already
    prepared = PreparedExport()  # nbconvert and the Vega bundle made ready while the kernel runs
    made = [folder for folder in (target, *target.parents) if not folder.exists()]
    target.mkdir(parents=True, exist_ok=True)
    keys: dict = {}
    # the executed notebook is written beside its final place and renamed there
    scratch = Path(tempfile.mkdtemp(prefix=".costmodel-", dir=target))
    run = _Run(
        path, notebook, values, catalog, kernel, own_kernel, timeout, scratch, html_path, notebook_path, failed_path
    )
    try:
        node = run.execute(cell_hook(drawer, keys))
    except BaseException:
        _discard(scratch, made)
        raise

    def finish() -> Report:
        return _finish(run, node, title, drawer, keys, prepared, start)

    return finish


def _notebook_values(
    path: Path, notebook: Path | None, parameters: dict | None, catalog: str | Path | None
) -> tuple[str, Path, dict]:
    """The page's title, the notebook to run and its parameter values, all checked before a cell runs.

    Raises
    ------
    ParameterError
        ``scenario`` or ``catalog`` in ``parameters``, or a parameter the notebook does not declare.
    ScenarioError
        The scenario file has no title and workload kind to read, and does not validate.
    """
    given = [key for key in ("scenario", "catalog") if key in (parameters or {})]
    if given:  # else the page would show another scenario (or catalog) under this one's name
        from .errors import ParameterError

        raise ParameterError(
            f"parameter {given[0]!r} is given by render_report's {given[0]} argument, not in parameters"
        )
    title, kind = _title_and_kind(path, catalog)
    notebook = notebook or notebook_for(kind)
    values = {"scenario": str(path), **(parameters or {})}
    if catalog:
        values["catalog"] = str(Path(catalog).resolve())
    declared = check_parameters(notebook, values)
    if "renderer" in declared:
        values.setdefault("renderer", "report")
    return title, notebook, values


@dataclass(frozen=True)
class _Run:
    """One run of a report's notebook: what it runs, where, and where a failed notebook is kept."""

    path: Path
    notebook: Path
    values: dict
    catalog: str | Path | None
    kernel: WarmKernel
    own_kernel: bool
    timeout: int
    scratch: Path
    html_path: Path
    notebook_path: Path
    failed_path: Path

    @property
    def name(self) -> str:
        """The report's folder name, which its messages start with."""
        return self.failed_path.parent.name

    def execute(self, hook):
        """Run the notebook (papermill's engine in a kernel of its own, else the kept kernel); return it executed.

        Raises
        ------
        ScenarioError, CatalogError, ParameterError
            A cell refused the input (see :func:`_refuse_input`).
        ReportError
            A cell failed (the executed notebook kept as ``report.failed.ipynb``), or the kernel
            died or timed out.
        """
        from papermill.exceptions import PapermillExecutionError

        executed = self.scratch / "report.ipynb"
        try:
            if self.own_kernel:
                return _execute_papermill(self, executed, hook)
            return execute_warm(self.kernel, self.notebook, executed, self.values, self.timeout, hook)
        except PapermillExecutionError as exc:
            _refuse_input(exc, self.path, self.catalog)
            if executed.exists():
                executed.replace(self.failed_path)
            raise _cell_failed(self.name, exc.exec_count, exc, self.failed_path) from None
        except Exception as exc:  # kernel death, timeout, missing kernel; a cell's error in a warm kernel
            _refuse_input(exc, self.path, self.catalog)
            if not self.own_kernel and executed.exists():
                executed.replace(self.failed_path)
            if getattr(exc, "ename", None):  # nbclient's CellExecutionError: a cell raised
                raise _cell_failed(self.name, _failed_cell(self.failed_path), exc, self.failed_path) from None
            first = (str(exc).strip().splitlines() or [""])[0]  # a cell timeout adds the cell's text below
            raise ReportError(f"{self.name}: the notebook could not run: {type(exc).__name__}: {first}") from None


def _execute_papermill(run: _Run, executed: Path, hook):
    """Run the notebook with papermill on the run's own kernel (already started); return it executed."""
    import papermill

    return papermill.execute_notebook(
        str(run.notebook),
        str(executed),
        parameters=run.values,
        kernel_name=KERNEL_NAME,
        engine_name=papermill_engine(),
        km=run.kernel.km,
        on_cell_executed=hook,
        progress_bar=False,
        log_output=False,
        execution_timeout=run.timeout,
        request_save_on_cell_execute=False,
    )  # the notebook is written once, at the end, not per cell


def _failed_cell(kept: Path) -> int | None:
    """Which code cell of a kept failed notebook holds the error, counted as papermill counts in a
    fresh kernel: the n-th code cell (a kept kernel's execution count goes on from report to report)."""
    code = [cell for cell in _cells(kept) if cell.get("cell_type") == "code"]
    return next(
        (n for n, cell in enumerate(code, 1) if any(o.get("output_type") == "error" for o in cell.get("outputs", ()))),
        None,
    )


def _finish(run: _Run, node, title: str, drawer: ChartDrawer, keys: dict, prepared: PreparedExport, start: float):
    """Export the executed notebook, check the page, draw its charts and write page and notebook together.

    Raises
    ------
    ReportError
        The page would load or run something, or a chart could not be drawn; nothing is written.
    """
    import nbformat

    from .presentation.svg import ChartError, draw_charts, stand_in_charts

    try:
        # the page and the notebook name no folder of this machine (the scenario's, the catalog's, the
        # scratch folders, the home folder): relative to the working directory, or the file name
        folders = (run.scratch, run.kernel.folder)
        without_local_paths(node, local_paths(run.path, run.catalog, Path(run.notebook), folders))
        # the page is exported and checked while the last charts are drawn, with stand-ins for them
        pending = stand_in_charts(node, drawer, keys)
        exporter = prepared.take()
        bundle = vega_bundle()
        page = _export(node, title, exporter)
        found = unsafe_parts(page)  # the bundle, trusted by its hash, goes in after the check
        if found:
            raise ReportError(f"{run.name}: the HTML would load or run something, not written: {found[0]}")
        try:
            draw_charts(pending, drawer, run.timeout)
        except ChartError as exc:
            raise ReportError(f"{run.name}: a chart could not be drawn: {exc}") from None
        html = with_content_security_policy(with_bundle(with_drawings(page, pending), bundle))
        # the page and its notebook renamed into place together, once both are written
        with aside([run.notebook_path, run.html_path]) as (notebook_aside, html_aside):
            nbformat.write(node, notebook_aside)
            html_aside.write_text(html, encoding="utf-8")
        run.failed_path.unlink(missing_ok=True)  # an earlier run's failure, now mended
    finally:
        shutil.rmtree(run.scratch, ignore_errors=True)
    return Report(run.name, run.html_path, run.notebook_path, time.perf_counter() - start)


def _export(node, title: str, exporter=None) -> str:
    """The page of an executed notebook, titled ``title``, with :data:`BUNDLE_MARKER` where the Vega bundle goes."""
    import copy

    notebook = copy.copy(node)
    notebook.metadata = copy.deepcopy(node.metadata)
    notebook.metadata["title"] = title
    return export_page(notebook, {"costmodel_vega_bundle": BUNDLE_MARKER}, exporter)


def local_paths(
    scenario: Path, catalog: str | Path | None, notebook: Path, folders: tuple[Path, ...] = ()
) -> list[tuple[str, str]]:
    """The absolute local paths a report's notebook could hold, each with what the report shows
    instead (:func:`~costmodel.paths.shown_path`), longest first.

    Parameters
    ----------
    scenario
        The scenario file (the notebook's ``scenario`` parameter).
    catalog
        The ``--catalog`` folder, or None.
    notebook
        The notebook run (papermill records its path).
    folders
        Scratch folders the run used (the kernel's, the executed notebook's): removed from paths.

    Returns
    -------
    list of (str, str)
        (absolute path, shown path) pairs: the scenario file, its folder, the catalog folder, the
        notebook, the scratch folders, the working directory (left out: paths become relative)
        and the home folder (``~``); each also HTML-escaped and Markdown-escaped.
    """
    import html

    from .presentation.safe import markdown

    pairs: dict[str, str] = {}

    def add(path: Path, shown: str, folder: bool = False) -> None:
        for form in {str(path), str(path.absolute()), str(path.resolve())}:
            if folder:
                pairs[form + os.sep] = shown + os.sep if shown else ""
            pairs[form] = shown or "."

    add(scenario, shown_path(scenario))
    add(
        scenario.parent,
        "" if shown_path(scenario.parent) == scenario.parent.absolute().name else shown_path(scenario.parent),
        folder=True,
    )
    if catalog:
        add(Path(catalog), shown_path(catalog), folder=True)
    add(notebook, notebook.name)
    for folder in folders:
        add(folder, "", folder=True)
    add(Path.cwd(), "", folder=True)
    add(Path.home(), "~", folder=True)
    pairs = {path: shown for path, shown in pairs.items() if len(path) > 1}  # never "/" alone
    plain = list(pairs.items())
    pairs.update({html.escape(path): html.escape(shown) for path, shown in plain})
    pairs.update({markdown(path): markdown(shown) for path, shown in plain})  # as a Markdown output writes it
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


def without_local_paths(node, pairs: list[tuple[str, str]]):
    """Every text of a notebook (sources, outputs, metadata) with :func:`local_paths` replaced, in place.

    Returns
    -------
    The notebook (the same object).
    """

    def clean(text: str) -> str:
        for path, shown in pairs:
            if path in text:
                text = text.replace(path, shown)
        return text

    stack = [node]
    while stack:
        item = stack.pop()
        entries = item.items() if isinstance(item, dict) else enumerate(item)
        for key, value in list(entries):
            if isinstance(value, str):
                item[key] = clean(value)
            elif isinstance(value, dict | list):
                stack.append(value)
    return node


LONGEST_TIMEOUT = 7 * 24 * 3600
"""Longest ``timeout`` a report takes (a week): Python's waits overflow somewhat above 9e9 s. [s]"""


def checked_timeout(timeout) -> int:
    """A report's ``timeout`` as whole seconds (a fraction rounded up: nbclient takes whole seconds).

    Raises
    ------
    ValueError
        Not a number above 0 and at most :data:`LONGEST_TIMEOUT`.
    """
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= LONGEST_TIMEOUT:
        raise ValueError(
            f"timeout: {timeout!r} is not a number of seconds above 0 and at most {LONGEST_TIMEOUT:,} (a week)"
        )
    return math.ceil(timeout)


def report_paths(scenario: str | Path, out_dir: str | Path) -> tuple[Path, Path, Path]:
    """Where a scenario's report goes under ``out_dir`` (see :func:`report_folder`).

    Returns
    -------
    tuple of pathlib.Path
        ``report.html``, ``report.ipynb`` (its executed notebook) and ``report.failed.ipynb``
        (the executed notebook of a run whose notebook failed).
    """
    from .paths import scenario_path

    folder = Path(out_dir) / report_folder(scenario_path(scenario).resolve())
    return folder / "report.html", folder / "report.ipynb", folder / "report.failed.ipynb"


def check_report_paths(scenario: str | Path, out_dir: str | Path, option: str = "--out") -> None:
    """Check that a scenario's report files (:func:`report_paths`) can be written under ``out_dir``.

    Raises
    ------
    OutputPathError
        One of them is there and is not a regular file (a folder, a FIFO, a device), or cannot
        be named (a scenario's name too long for a file name), or its folder cannot be one (see
        :func:`costmodel.files.output_file`).
    """
    from .errors import OutputPathError
    from .files import output_file

    try:
        paths = report_paths(scenario, out_dir)
    except OSError as exc:
        raise OutputPathError(
            option, out_dir, f"no report can be written for {scenario}: {exc.strerror or exc}"
        ) from None
    for path in paths:
        output_file(path, option)


def _title_and_kind(path: Path, catalog) -> tuple[str, str]:
    """A scenario file's title and workload kind, read without validating the file.

    The notebook's first cells validate the scenario (``costmodel.load_scenario``) in the kernel,
    which has the models imported already; the runner only needs the kind, to pick the notebook,
    and the title, for the page. So it parses the YAML and leaves the models alone (their import
    takes CPU that on two cores the kernel's start and the chart drawing need).
    A file whose title and kind cannot be read so is validated here at once (:func:`_validated`),
    which raises the scenario's error.
    """
    from .errors import ScenarioError
    from .io.yaml_files import parse_yaml, read_text

    try:
        data = parse_yaml(read_text(path), path)
    except ScenarioError:
        data = None
    workload = data.get("workload") if isinstance(data, dict) else None
    kind = workload.get("kind") if isinstance(workload, dict) else None
    title = data.get("title") if isinstance(data, dict) else None
    if isinstance(title, str) and isinstance(kind, str):
        return title, kind  # a kind that is none of the schema's: the notebook's check names it
    model = _validated(path, catalog)
    return model.title, model.workload.kind


def _validated(path: Path, catalog):
    """The scenario at ``path`` validated in this process (against ``catalog``'s rows, if given).

    Raises
    ------
    ScenarioError, CatalogError
        As :func:`costmodel.load_scenario` and :func:`costmodel.catalog_from`.
    """
    from .catalog import catalog_from
    from .scenarios import load_scenario

    return load_scenario(path, catalog_from(catalog))


def _discard(scratch: Path, made: list[Path]) -> None:
    """Remove a failed or interrupted run's scratch folder, and the report folders it made if they
    are empty (a failed notebook's kept ``report.failed.ipynb`` keeps its folder)."""
    shutil.rmtree(scratch, ignore_errors=True)
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            break  # not empty (a kept notebook, another run's report), or gone


def _refuse_input(exc: BaseException, path: Path, catalog) -> None:
    """After a notebook failed: if a cell raised an input error, raise it here as bad input (the
    caller then removes what the run made). Otherwise return.

    A bad scenario or catalog file (``ScenarioError``, ``CatalogError`` in the cell) is raised as
    the runner's own validation of the file finds it, the same error with its problems; a bad
    parameter value (``ParameterError``: the notebook's check) with the cell's message.
    """
    from .errors import ParameterError

    name = getattr(exc, "ename", None)
    if name not in ("ScenarioError", "CatalogError", "ParameterError"):
        return
    if name == "ParameterError":
        raise ParameterError(str(getattr(exc, "evalue", exc)))
    _validated(path, catalog)  # raises the file's error; none found: the caller reports the cell


def _cell_failed(name: str, cell, exc, kept: Path) -> ReportError:
    """The error of a notebook whose cell raised (papermill's or nbclient's error, with ename and evalue)."""
    return ReportError(
        f"{name}: the notebook failed in cell {cell}: {exc.ename}: {exc.evalue} (executed notebook kept at {kept})"
    )


def _cells(path: Path) -> list:
    """The cells of a notebook file, or none if it cannot be read."""
    import nbformat

    try:
        return nbformat.read(path, as_version=4).cells
    except (OSError, ValueError):
        return []

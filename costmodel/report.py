"""Render scenarios into self-contained HTML reports that cannot be mixed up and load nothing.

For each scenario, :func:`render_report` runs ``notebooks/break_even.ipynb`` (or
``notebooks/training_run.ipynb`` for a training run) with papermill, on a kernel started from
the same Python interpreter as the caller (so a report and ``costmodel compare`` can never
disagree), talking over Unix sockets in a private temporary folder. The executed notebook is
exported with nbconvert through the ``costmodel_offline`` template (the JupyterLab template
without require.js, MathJax, Mermaid or widgets); the HTML is parsed and refused if anything in
it would load or run (:func:`unsafe_parts`). Everything is written to temporary files first and
renamed into ``DIR/<name>/`` only when whole, so two runs into one folder at once both leave
whole reports, and a failed run leaves no ``report.html``, neither half-written nor stale.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from .errors import did_you_mean
from .files import write_text_atomically
from .paths import NOTEBOOK_DIR, SCENARIO_DIR, TEMPLATE_DIR
from .presentation.interactive import vega_bundle
from .presentation.parameters import ParameterError
from .scenarios import load_scenario, scenario_path

BREAK_EVEN_NOTEBOOK: Path = NOTEBOOK_DIR / "break_even.ipynb"
TRAINING_NOTEBOOK: Path = NOTEBOOK_DIR / "training_run.ipynb"

KERNEL_NAME = "costmodel-python"
"""Name of the kernel spec the runner writes for its own interpreter."""


def notebook_for(kind: str) -> Path:
    """The report notebook for a workload kind: training runs get training_run.ipynb."""
    return TRAINING_NOTEBOOK if kind == "training" else BREAK_EVEN_NOTEBOOK


class ReportError(RuntimeError):
    """A report could not be rendered; the message names the scenario and the error."""


# --- the offline and safety check ---------------------------------------------------------------

_URL_ATTRIBUTES = {"src", "href", "srcset", "poster", "data", "action", "formaction", "xlink:href", "background",
                   "codebase", "cite", "longdesc", "manifest", "ping", "imagesrcset", "lowsrc", "dynsrc"}
_NAVIGATION_ONLY = {"a", "area"}          # an href the reader must click: not loaded with the page
_FORBIDDEN_ELEMENTS = {"iframe", "object", "embed", "frame", "frameset", "applet", "base", "portal"}
_CSS_URL = re.compile(r"url\s*\(\s*['\"]?\s*(?!data:|#)([^'\")\s]+)|@import", re.IGNORECASE)


def _loads(value: str) -> bool:
    """Whether a URL-bearing attribute's value points anywhere but inside the page."""
    text = re.sub(r"[\s\x00-\x1f]", "", value).lower()
    return bool(text) and not text.startswith(("data:", "#"))


class _Inspector(HTMLParser):
    """Collects every part of a page that would load something or run code when it opens."""

    def __init__(self, trusted: frozenset[str] = frozenset()) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_style = False
        self._in_script = False
        self._script: list[str] = []
        self._trusted = trusted

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if tag in _FORBIDDEN_ELEMENTS:
            self.found.append(f"<{tag}> element")
        names = {name.lower(): value or "" for name, value in attrs}
        for name, value in names.items():
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...> event handler")
            elif name in _URL_ATTRIBUTES and not (tag in _NAVIGATION_ONLY and name == "href"):
                urls = [part.strip().split(" ")[0] for part in value.split(",")] if "srcset" in name else [value]
                if any(_loads(url) for url in urls):
                    self.found.append(f"<{tag} {name}={value[:60]!r}>")
            elif name == "style" and _CSS_URL.search(value):
                self.found.append(f"<{tag} style={value[:60]!r}>")
        if tag == "meta" and names.get("http-equiv", "").lower() == "refresh":
            self.found.append("<meta http-equiv=refresh>")
        if tag == "script":
            self._in_script = True
            self._script = []
            if names.get("src"):
                return              # already reported as a src attribute
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag.lower() == "style":
            self._in_style = False
        if tag.lower() == "script" and self._in_script:
            self._in_script = False
            text = "".join(self._script)
            if hashlib.sha256(text.encode()).hexdigest() not in self._trusted and \
                    re.search(r"\bimport\s*\(|\bfetch\s*\(|XMLHttpRequest|\.src\s*=", text):
                self.found.append("a script that loads something")

    def handle_data(self, data: str) -> None:
        if self._in_style and _CSS_URL.search(data):
            match = _CSS_URL.search(data)
            self.found.append(f"CSS {data[max(0, match.start() - 20):match.end() + 40]!r}")
        if self._in_script:
            self._script.append(data)


def unsafe_parts(html: str, trusted_scripts: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Everything in an HTML page that would load from elsewhere or run code when it opens.

    The page is parsed (not searched with patterns): every URL-bearing attribute (``src``,
    ``href`` of loading elements, ``srcset``, ``poster``, ``data``, ``action``, ``formaction``,
    ``xlink:href``, ...) that is not a ``data:`` or ``#`` reference, any event-handler attribute
    (``on...``), ``<meta http-equiv=refresh>``, ``<iframe>``/``<object>``/``<embed>``/``<base>``, CSS
    ``url()`` and ``@import``, and scripts that import or fetch. Links (``<a href>``) load nothing
    until clicked and are allowed. XML namespace declarations are names, not references.

    Parameters
    ----------
    html
        The page.
    trusted_scripts
        SHA-256 (hex) of inline scripts allowed although their code can load (the Vega bundle the
        report embeds, :func:`vega_bundle`, whose loader is never given a URL): exactly those
        bytes, nothing else.

    Returns
    -------
    list of str
        One description per part found; empty when the page is self-contained and inert.
    """
    inspector = _Inspector(frozenset(trusted_scripts))
    inspector.feed(html)
    inspector.close()
    return inspector.found


def trusted_scripts() -> frozenset[str]:
    """SHA-256 (hex) of the one script a report may embed although its code can load: the Vega bundle."""
    return frozenset({hashlib.sha256(vega_bundle().encode()).hexdigest()})


def external_references(html: str) -> list[str]:
    """The parts of a page that would load something over the network (see :func:`unsafe_parts`);
    the embedded Vega bundle (:func:`trusted_scripts`) is not one of them."""
    return unsafe_parts(html, trusted_scripts())


# --- running the notebook -----------------------------------------------------------------------

def export_html(notebook_path: Path, title: str, bundle: str | None = None) -> str:
    """Export an executed notebook to offline HTML without code cells.

    With ``bundle`` (:func:`vega_bundle`), the page embeds it once and draws each chart
    interactively from its inline spec, the SVG kept for print.
    """
    import nbformat
    from nbconvert import HTMLExporter

    notebook = nbformat.read(notebook_path, as_version=4)
    notebook.metadata["title"] = title
    exporter = HTMLExporter(
        extra_template_basedirs=[str(TEMPLATE_DIR)],
        template_name="costmodel_offline",
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
    )
    body, _ = exporter.from_notebook_node(notebook, resources={"costmodel_vega_bundle": bundle or ""})
    return body


def _prepare_export() -> None:
    """Import nbconvert and read (or build) the Vega bundle, so the export after the notebook is quick."""
    try:
        import nbconvert  # noqa: F401
        import nbformat  # noqa: F401
        from nbconvert import HTMLExporter  # noqa: F401

        vega_bundle()
    except Exception:   # the export itself will raise whatever is wrong, with its message
        pass


def _kernel_manager(scratch: Path):
    """A kernel manager for a kernel of this very interpreter, over Unix sockets in ``scratch``.

    The kernel spec is written into ``scratch`` (never the user's Jupyter path), so the report
    runs on the interpreter that runs ``costmodel``, whatever ``python3`` kernel comes first on
    the Jupyter path. IPC keeps the kernel off the network and its socket files in ``scratch``.
    """
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    spec = scratch / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "costmodel (this interpreter)", "language": "python"}))

    class Manager(AsyncKernelManager):
        @default("transport")
        def _default_transport(self):
            return "ipc"

        @default("ip")
        def _default_ip(self):
            return str(scratch / "kernel")

        @default("kernel_spec_manager")
        def _default_kernel_spec_manager(self):
            return KernelSpecManager(kernel_dirs=[str(scratch / "kernels")])

    return Manager


def report_folder(path: Path) -> str:
    """Folder name of a scenario's report: the bundled scenario's name, else the file's stem with
    a short hash of its absolute path, so two files with the same stem never share a folder."""
    path = Path(path).resolve()
    if path.parent == SCENARIO_DIR.resolve():
        return path.stem
    return f"{path.stem}-{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"


def check_parameters(notebook: Path, parameters: dict) -> None:
    """Refuse parameters the notebook's ``parameters`` cell does not declare.

    Raises
    ------
    ParameterError
        An unknown name (papermill itself would only warn), with "did you mean".
    """
    import papermill

    declared = papermill.inspect_notebook(str(notebook))
    unknown = [name for name in parameters if name not in declared]
    if unknown:
        raise ParameterError("; ".join(f"{notebook.name}: parameter {name!r} is not one this notebook takes"
                                       f"{did_you_mean(name, declared)}; it takes {', '.join(declared)}"
                                       for name in unknown))


@dataclass(frozen=True)
class Report:
    """A rendered report: where it is and how long it took."""

    scenario: str
    html: Path
    notebook: Path
    seconds: float


class WarmKernel:
    """One kernel kept running for several reports (a pool of one, for ``costmodel batch --reports``).

    Each report runs in a clean namespace (``%reset -f`` before its first cell), but the
    modules its cells import (pandas, Altair, vl-convert, SciPy) stay imported, so a report
    pays neither the kernel's start nor those imports again. A kernel that died is restarted.
    Use as a context manager; the kernel is shut down on leaving.
    """

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="costmodel-")
        self.folder = Path(self._folder.name)
        self.km = _kernel_manager(self.folder)(kernel_name=KERNEL_NAME)

    def __enter__(self) -> WarmKernel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def execute(self, notebook, timeout: int):
        """Execute a notebook node in the kept kernel, after a reset of its namespace; returns it executed."""
        import nbformat
        from nbclient import NotebookClient
        from nbclient.util import run_sync

        if self.km.has_kernel and not run_sync(self.km.is_alive)():
            run_sync(self.km.shutdown_kernel)(now=True)
        reset = nbformat.v4.new_code_cell("get_ipython().run_line_magic('reset', '-f')")
        notebook.cells.insert(0, reset)
        client = NotebookClient(notebook, km=self.km, timeout=timeout, kernel_name=KERNEL_NAME,
                                resources={"metadata": {"path": str(self.folder)}})
        try:
            client.execute(cwd=str(self.folder))
        finally:
            notebook.cells.remove(reset)
            if client.kc is not None:
                client.kc.stop_channels()
        return notebook

    def close(self) -> None:
        """Shut the kernel down and remove its folder."""
        from nbclient.util import run_sync

        try:
            if self.km.has_kernel:
                run_sync(self.km.shutdown_kernel)(now=False)
        finally:
            self._folder.cleanup()


def _execute_warm(kernel: WarmKernel, notebook: Path, executed: Path, values: dict, timeout: int) -> None:
    """Parameterise a notebook as papermill does and run it in a warm kernel; write it to ``executed``."""
    import nbformat
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    node = parameterize_notebook(load_notebook_node(str(notebook)), values, kernel_name=KERNEL_NAME)
    try:
        kernel.execute(node, timeout)
    finally:
        nbformat.write(node, executed)


def render_report(scenario: str | Path, out_dir: str | Path = "reports", timeout: int = 600,
                  notebook: Path | None = None, parameters: dict | None = None,
                  kernel: WarmKernel | None = None) -> Report:
    """Render one scenario's report.

    Parameters
    ----------
    scenario
        Bundled scenario name or path to a scenario YAML file.
    out_dir
        Folder to write ``<name>/report.html`` and ``<name>/report.ipynb`` in
        (see :func:`report_folder` for the name).
    timeout
        Longest time one notebook cell may run. [s]
    notebook
        The notebook to run; default :func:`notebook_for` the scenario's workload kind.
    parameters
        Further notebook parameters (``volume_max``, ...); each must be declared by the
        notebook's ``parameters`` cell.
    kernel
        A :class:`WarmKernel` to run in (default: a new kernel for this report, by papermill).

    Returns
    -------
    Report

    Raises
    ------
    ScenarioError
        The scenario file is invalid (checked before any kernel starts); an earlier
        ``report.html`` for it is removed all the same.
    ParameterError
        A parameter the notebook does not declare.
    ReportError
        The notebook failed, or its HTML would load or run something. No ``report.html`` is
        left behind; the executed notebook, with the error in it, is kept for inspection.
    """
    import threading

    import papermill
    from papermill.exceptions import PapermillExecutionError

    # nbconvert and the Vega bundle are made ready while the kernel runs the notebook
    warm = threading.Thread(target=_prepare_export, daemon=True)
    warm.start()
    start = time.perf_counter()
    path = scenario_path(scenario).resolve()
    name = report_folder(path)
    target = Path(out_dir) / name
    html_path, notebook_path = target / "report.html", target / "report.ipynb"
    html_path.unlink(missing_ok=True)   # whatever happens next, no stale report stays
    model = load_scenario(path)
    notebook = notebook or notebook_for(model.workload.kind)
    values = {"scenario": str(path), **(parameters or {})}
    check_parameters(notebook, values)
    target.mkdir(parents=True, exist_ok=True)
    # the kernel's sockets live in a short private folder (a Unix socket path is at most ~100
    # characters); the executed notebook is written beside its final place and renamed there
    with tempfile.TemporaryDirectory(prefix="costmodel-") as kernel_dir, \
            tempfile.TemporaryDirectory(prefix=".costmodel-", dir=target) as scratch:
        scratch = Path(scratch)
        executed = scratch / "report.ipynb"
        try:
            if kernel is not None:
                _execute_warm(kernel, notebook, executed, values, timeout)
            else:
                papermill.execute_notebook(
                    str(notebook), str(executed), parameters=values, kernel_name=KERNEL_NAME,
                    kernel_manager_class=_kernel_manager(Path(kernel_dir)), progress_bar=False, log_output=False,
                    execution_timeout=timeout, cwd=kernel_dir,
                    request_save_on_cell_execute=False)   # the notebook is written once, at the end, not per cell
        except PapermillExecutionError as exc:
            if executed.exists():
                executed.replace(notebook_path)
            raise ReportError(f"{name}: the notebook failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
                              f"(executed notebook kept at {notebook_path})") from None
        except Exception as exc:  # kernel death, timeout, missing kernel; a cell's error in a warm kernel
            if kernel is not None and executed.exists():
                executed.replace(notebook_path)
            raise ReportError(f"{name}: the notebook could not run: {type(exc).__name__}: {exc}") from None
        warm.join()
        bundle = vega_bundle()
        html = export_html(executed, model.title, bundle)
        found = unsafe_parts(html, frozenset({hashlib.sha256(bundle.encode()).hexdigest()}))
        if found:
            raise ReportError(f"{name}: the HTML would load or run something, not written: {found[0]}")
        executed.replace(notebook_path)
    write_text_atomically(html_path, html)
    return Report(name, html_path, notebook_path, time.perf_counter() - start)


def render_reports_index(scenarios: list[str], portfolio, out_dir: str | Path, timeout: int = 600,
                         kernels: int = 1) -> list[str]:
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
        The portfolio table (pandas DataFrame).
    out_dir
        The batch's output folder.

    Returns
    -------
    list of str
        Scenarios whose report failed (each also printed on stderr).
    """
    import html
    import queue
    import threading

    failed, done = [], {}
    work: queue.Queue = queue.Queue()
    for index, scenario in enumerate(scenarios):
        work.put((index, scenario))

    def serve() -> None:
        with WarmKernel() as kernel:
            while True:
                try:
                    index, scenario = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    done[index] = render_report(scenario, out_dir, timeout=timeout, kernel=kernel)
                except (ReportError, ParameterError, ValueError, OSError) as exc:
                    print(f"costmodel batch: report of {scenario}: {exc}", file=sys.stderr)
                    failed.append(str(scenario))

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, min(kernels, len(scenarios))))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    links = []
    for index in sorted(done):
        relative = done[index].html.relative_to(Path(out_dir)).as_posix()
        links.append(f'<li><a href="{html.escape(relative)}">{html.escape(done[index].scenario)}</a></li>')
    table = portfolio.to_html(index=False, escape=True, na_rep="", float_format=lambda x: f"{x:,.2f}")
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>costmodel batch</title></head><body>"
            "<h1>Portfolio</h1><h2>Reports</h2><ul>" + "".join(links) + "</ul><h2>Table</h2>" + table
            + "</body></html>\n")
    problems = unsafe_parts(page)
    if problems:
        raise ReportError(f"the index page would load or run something: {problems[:3]}")
    write_text_atomically(Path(out_dir) / "index.html", page)
    return failed

"""Render scenarios into self-contained HTML break-even reports.

For each scenario, :func:`render_report` runs ``notebooks/break_even.ipynb`` (or
``notebooks/training_run.ipynb`` for a training run) with papermill, checks it ran without
error, exports it with nbconvert through the ``costmodel_offline`` template (the JupyterLab
template without require.js, MathJax, Mermaid or widgets) and writes ``DIR/<scenario>/report.html`` beside the executed
``report.ipynb``. Charts are inline SVG drawn by vl-convert, so the page opens with no
network. A failed run leaves no ``report.html``, neither half-written nor stale.
"""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .files import write_text_atomically
from .paths import NOTEBOOK_DIR, TEMPLATE_DIR
from .scenarios import load_scenario, scenario_path

BREAK_EVEN_NOTEBOOK: Path = NOTEBOOK_DIR / "break_even.ipynb"
TRAINING_NOTEBOOK: Path = NOTEBOOK_DIR / "training_run.ipynb"


def notebook_for(kind: str) -> Path:
    """The report notebook for a workload kind: training runs get training_run.ipynb."""
    return TRAINING_NOTEBOOK if kind == "training" else BREAK_EVEN_NOTEBOOK

_EXTERNAL = re.compile(
    r"""(?:\b(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//)"""
    r"""|(?:url\(\s*["']?\s*(?:https?:)?//)"""
    r"""|(?:@import\s+["']?(?:url\()?\s*["']?(?:https?:)?//)"""
    r"""|(?:\bimport\s*\(\s*["'](?:https?:)?//)""",
    re.IGNORECASE,
)


class ReportError(RuntimeError):
    """A report could not be rendered; the message names the scenario and the error."""


def external_references(html: str) -> list[str]:
    """Places where an HTML page would load something over the network.

    Looks for ``src``, ``href``, ``action``, ``poster`` and ``data`` attributes, CSS
    ``url()`` and ``@import``, and JavaScript ``import()`` pointing at an ``http:``,
    ``https:`` or protocol-relative (``//``) address. XML namespace declarations
    (``xmlns="http://www.w3.org/2000/svg"``) are names, not references, and are not
    reported.

    Returns
    -------
    list of str
        A short excerpt around each reference; empty when the page is self-contained.
    """
    return [html[max(0, m.start() - 40): m.end() + 60] for m in _EXTERNAL.finditer(html)]


def export_html(notebook_path: Path, title: str) -> str:
    """Export an executed notebook to offline HTML without code cells."""
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
    body, _ = exporter.from_notebook_node(notebook)
    return body


def _ipc_kernel_manager(socket_dir: str):
    """A kernel manager that talks to the kernel over Unix sockets in ``socket_dir``, not TCP.

    IPC keeps the kernel off the network (ipykernel warns about unencrypted TCP) and
    its socket files out of the working directory.
    """
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class IPCKernelManager(AsyncKernelManager):
        @default("transport")
        def _default_transport(self):
            return "ipc"

        @default("ip")
        def _default_ip(self):
            return str(Path(socket_dir) / "kernel")

    return IPCKernelManager


@dataclass(frozen=True)
class Report:
    """A rendered report: where it is and how long it took."""

    scenario: str
    html: Path
    notebook: Path
    seconds: float


def render_report(scenario: str | Path, out_dir: str | Path = "reports", timeout: int = 600,
                  notebook: Path | None = None) -> Report:
    """Render one scenario's break-even report.

    Parameters
    ----------
    scenario
        Bundled scenario name or path to a scenario YAML file.
    out_dir
        Folder to write ``<scenario>/report.html`` and ``<scenario>/report.ipynb`` in.
    timeout
        Longest time one notebook cell may run. [s]
    notebook
        The notebook to run; default :func:`notebook_for` the scenario's workload kind
        (``notebooks/training_run.ipynb`` for a training run, else
        ``notebooks/break_even.ipynb``).

    Returns
    -------
    Report

    Raises
    ------
    ScenarioError
        The scenario file is invalid (checked before any kernel starts); an earlier
        ``report.html`` for it is removed all the same.
    ReportError
        The notebook failed, or its HTML would load something from the network. No
        ``report.html`` is left behind; the executed notebook, with the error in it,
        is kept for inspection.
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError

    start = time.perf_counter()
    path = scenario_path(scenario).resolve()
    name = path.stem
    target = Path(out_dir) / name
    html_path, notebook_path = target / "report.html", target / "report.ipynb"
    html_path.unlink(missing_ok=True)   # whatever happens next, no stale report stays
    model = load_scenario(path)
    notebook = notebook or notebook_for(model.workload.kind)
    target.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix="costmodel-kernel-") as scratch:
            papermill.execute_notebook(
                str(notebook), str(notebook_path),
                parameters={"scenario": str(path)},
                kernel_name="python3",
                kernel_manager_class=_ipc_kernel_manager(scratch),
                progress_bar=False,
                log_output=False,
                execution_timeout=timeout,
                cwd=scratch,
            )
    except PapermillExecutionError as exc:
        raise ReportError(f"{name}: the notebook failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
                          f"(executed notebook kept at {notebook_path})") from None
    except Exception as exc:  # kernel death, timeout, missing kernel
        raise ReportError(f"{name}: the notebook could not run: {type(exc).__name__}: {exc}") from None
    html = export_html(notebook_path, model.title)
    found = external_references(html)
    if found:
        raise ReportError(f"{name}: the HTML would load from the network, not written: {found[0]!r}")
    write_text_atomically(html_path, html)
    return Report(name, html_path, notebook_path, time.perf_counter() - start)

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

import contextlib
import functools
import hashlib
import json
import math
import os
import queue
import re
import shutil
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from .errors import did_you_mean
from .files import aside, write_text_atomically
from .paths import NOTEBOOK_DIR, SCENARIO_DIR, TEMPLATE_DIR, shown_path
from .presentation.interactive import cache_folder, vega_bundle
from .presentation.safe import terminal

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

_URL_ATTRIBUTES = {
    "src",
    "href",
    "srcset",
    "poster",
    "data",
    "action",
    "formaction",
    "xlink:href",
    "background",
    "codebase",
    "cite",
    "longdesc",
    "manifest",
    "ping",
    "imagesrcset",
    "lowsrc",
    "dynsrc",
}
_NAVIGATION_ONLY = {"a", "area"}  # an href the reader must click: not loaded with the page
_IMAGE_ELEMENTS = {"img", "image", "source", "video", "feimage"}  # may show a data:image/ URL inline
_IMAGE_ATTRIBUTES = {"src", "srcset", "poster", "href", "xlink:href"}
_SCRIPT_SCHEMES = ("javascript:", "vbscript:")
_FORBIDDEN_ELEMENTS = {"iframe", "object", "embed", "frame", "frameset", "applet", "base", "portal"}
_CSS_URL = re.compile(r"url\s*\(\s*['\"]?\s*(?!data:|#)([^'\")\s]+)|@import", re.IGNORECASE)
_SRCSET_URL = re.compile(r"[\s,]*(\S+)")


def _normalised(url: str) -> str:
    """A URL lower-cased, without whitespace or control characters anywhere: its scheme as a browser reads it
    or stricter (browsers drop tabs and line breaks anywhere, other controls and spaces at the ends)."""
    return re.sub(r"[\s\x00-\x1f\x7f]", "", url).lower()


def _url_problem(tag: str, name: str, url: str) -> str | None:
    """Why a URL in attribute ``name`` of element ``tag`` is refused, or None when it is inert.

    Entity references in the value are already decoded (the parser does that), so ``java&#x09;script:``
    arrives as ``java\tscript:``. Refused: a ``javascript:`` or ``vbscript:`` URL anywhere; a ``data:`` URL
    anywhere but an image's own source (``<img src>``, ``srcset``, an SVG ``<image href>``, and only
    ``data:image/...``); and any other URL that would load with the page. A link (``<a href>``,
    ``<area href>``) to a page elsewhere loads nothing until clicked and is allowed.
    """
    text = _normalised(url)
    if not text or text.startswith("#"):
        return None
    if text.startswith(_SCRIPT_SCHEMES):
        return "a script URL"
    if text.startswith("data:"):
        if tag in _IMAGE_ELEMENTS and name in _IMAGE_ATTRIBUTES and text.startswith("data:image/"):
            return None
        return "a data: URL outside an image"
    if tag in _NAVIGATION_ONLY and name == "href":
        return None
    return "loads from elsewhere"


def _srcset_urls(value: str) -> list[str]:
    """The URLs of a ``srcset`` (each candidate's URL, then descriptors up to the next comma); a ``data:`` URL's
    own commas stay inside it, as in the HTML standard's parsing."""
    urls, at = [], 0
    while match := _SRCSET_URL.match(value, at):
        url, at = match.group(1), match.end()
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = value.find(",", at)
            at = len(value) if comma < 0 else comma + 1
        urls.append(url)
    return urls


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
            elif name in _URL_ATTRIBUTES:
                urls = _srcset_urls(value) if "srcset" in name else [value]
                why = next((w for w in (_url_problem(tag, name, url) for url in urls) if w), None)
                if why:
                    self.found.append(f"<{tag} {name}={value[:60]!r}>: {why}")
            elif name == "style" and _CSS_URL.search(value):
                self.found.append(f"<{tag} style={value[:60]!r}>")
        # SVG animation can set a link's href after the page is parsed: <set attributeName="href" to="...">
        if tag in ("set", "animate") and names.get("attributename", "").lower() in ("href", "xlink:href"):
            for name in ("to", "from", "values"):
                if any(_url_problem("a", "href", url) for url in names.get(name, "").split(";")):
                    self.found.append(f"<{tag} attributeName=href {name}={names[name][:60]!r}>")
        if tag == "meta" and names.get("http-equiv", "").lower() == "refresh":
            self.found.append("<meta http-equiv=refresh>")
        if tag == "script":
            self._in_script = True
            self._script = []
            if names.get("src"):
                return  # already reported as a src attribute
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag.lower() == "style":
            self._in_style = False
        if tag.lower() == "script" and self._in_script:
            self._in_script = False
            text = "".join(self._script)
            if hashlib.sha256(text.encode()).hexdigest() not in self._trusted and re.search(
                r"\bimport\s*\(|\bfetch\s*\(|XMLHttpRequest|\.src\s*=", text
            ):
                self.found.append("a script that loads something")

    def handle_data(self, data: str) -> None:
        if self._in_style and _CSS_URL.search(data):
            match = _CSS_URL.search(data)
            self.found.append(f"CSS {data[max(0, match.start() - 20) : match.end() + 40]!r}")
        if self._in_script:
            self._script.append(data)


def unsafe_parts(html: str, trusted_scripts: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Everything in an HTML page that would load from elsewhere or run code when it opens.

    The page is parsed (not searched with patterns), entity references decoded: every URL-bearing
    attribute (``src``, ``href``, ``srcset``, ``poster``, ``data``, ``action``, ``formaction``,
    ``xlink:href``, ...) that would load from elsewhere; a ``javascript:`` or ``vbscript:`` URL in any
    of them, links included, also set by SVG ``<set>``/``<animate>``; a ``data:`` URL anywhere but
    an image's own source (``<img src="data:image/...">``); any event-handler attribute (``on...``),
    ``<meta http-equiv=refresh>``, ``<iframe>``/``<object>``/``<embed>``/``<base>``, CSS ``url()``
    and ``@import``, and scripts that import or fetch. A link (``<a href>``) to a page elsewhere
    loads nothing until clicked and is allowed. XML namespace declarations are names, not
    references.

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


_SCRIPT_TYPES = {"", "text/javascript", "application/javascript", "module"}
"""``<script type>`` values a browser runs; any other type (``application/json``: a chart's spec) is data."""


class _Scripts(HTMLParser):
    """The text of every inline script a browser would run, in page order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.lower() == "script":
            kind = (dict(attrs).get("type") or "").strip().lower()
            self._text = [] if kind in _SCRIPT_TYPES else None

    def handle_endtag(self, tag: str) -> None:
        if tag.lower() == "script" and self._text is not None:
            self.found.append("".join(self._text))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def content_security_policy(scripts) -> str:
    """The Content-Security-Policy of a report: its own inline scripts, inline styles and data: images only.

    Parameters
    ----------
    scripts
        The text of each inline script the page runs; each is allowed by its SHA-256 hash, so no
        other script (an injected one, a changed byte, an event handler or a ``javascript:`` URL) runs.

    Returns
    -------
    str
        The policy: nothing loads from anywhere (``default-src 'none'``: no URL, not even the
        page's own folder); scripts by hash, without ``eval``; inline ``<style>`` and ``style``
        attributes (nbconvert's and vega-embed's, which the page check has read for ``url()``);
        images, fonts only as ``data:``; no ``<base>`` and no form submission.

    Examples
    --------
    >>> content_security_policy(["1"]).split("; ")[:2]
    ["default-src 'none'", "script-src 'sha256-a4ayc/80/OGda4BO/1o/V0etpOqiLx1JwB5S3beHW0s='"]
    """
    import base64

    hashes = sorted(
        {"'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'" for text in scripts}
    )
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + (" ".join(hashes) or "'none'"),
            "style-src 'unsafe-inline'",
            "img-src data:",
            "font-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def with_content_security_policy(page: str) -> str:
    """The page with a ``<meta http-equiv="Content-Security-Policy">`` first in its head, allowing
    exactly the inline scripts it holds (:func:`content_security_policy`).

    Raises
    ------
    ReportError
        The page has no ``<head>`` to put the policy in.
    """
    found = _Scripts()
    found.feed(page)
    found.close()
    meta = f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(found.found)}">'
    head = re.search(r"<head\b[^>]*>(\s*<meta charset=[^>]*>)?", page, re.IGNORECASE)
    if head is None:
        raise ReportError("the page has no <head> for its Content-Security-Policy")
    return page[: head.end()] + "\n" + meta + page[head.end() :]


def trusted_scripts() -> frozenset[str]:
    """SHA-256 (hex) of the one script a report may embed although its code can load: the Vega bundle."""
    return frozenset({hashlib.sha256(vega_bundle().encode()).hexdigest()})


def external_references(html: str) -> list[str]:
    """The parts of a page that would load something over the network (see :func:`unsafe_parts`);
    the embedded Vega bundle (:func:`trusted_scripts`) is not one of them."""
    return unsafe_parts(html, trusted_scripts())


# --- running the notebook -----------------------------------------------------------------------

_IDLE_EXPORTERS: queue.SimpleQueue = queue.SimpleQueue()
"""HTML exporters not in use: an exporter's Jinja templates compile on its first export (0.2 s), so
exporters are kept and reused, one per report being exported at once (a batch exports from several
threads)."""


def _take_exporter():
    """An HTML exporter for one export: an idle one, else a new one."""
    try:
        return _IDLE_EXPORTERS.get_nowait()
    except queue.Empty:
        import nbconvert
        from jinja2 import FileSystemBytecodeCache

        exporter = _offline_exporter_class()(
            extra_template_basedirs=[str(TEMPLATE_DIR)],
            template_name="costmodel_offline",
            exclude_input=True,
            exclude_input_prompt=True,
            exclude_output_prompt=True,
            embed_images=True,
            optimistic_validation=True,  # validate the notebook once, after its preprocessors, not after each
        )
        # Jinja compiles the templates to Python on first use (0.2 s a process); like Python's own
        # bytecode, the result is kept in the cache folder, under the template source's checksum
        folder = cache_folder() / f"jinja-nbconvert-{nbconvert.__version__}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            exporter.environment.bytecode_cache = FileSystemBytecodeCache(str(folder))
        except OSError:
            pass  # a read-only home: compile every time
        return exporter


_FOCUSABLE = re.compile(r'(<div class="[^"]*\b(?:jp-OutputArea-output|jp-Cell-inputWrapper)\b[^"]*")')
_IMG_WITHOUT_ALT = re.compile(r"<img(?![^>]*\salt=)")


@functools.cache
def _offline_exporter_class():
    """nbconvert's HTMLExporter without its BeautifulSoup pass over the finished page.

    That pass gives each cell's input wrapper (a Markdown cell's text) and output area
    ``tabindex="0"`` (focusable from the keyboard) and each image without alt text a
    placeholder one. On a report it cost 0.4 s a process (soupsieve compiling its CSS selectors,
    then parsing and writing the page again); here both are done on the page's own tags, which
    the template wrote: text from outputs is escaped, so no ``<div`` or ``<img`` in it is a tag.
    Where nbconvert's internals differ from 7.16's, HTMLExporter's own method is used.
    """
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter

    class OfflineHTMLExporter(HTMLExporter):
        def from_notebook_node(self, nb, resources=None, **kw):
            try:
                from nbconvert.filters.highlight import Highlight2HTML
                from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

                language = nb.metadata.get("language_info", {})
                lexer = language.get("pygments_lexer", language.get("name", None))
                self.register_filter(
                    "highlight_code",
                    self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)),
                )
                resources = self._init_resources(resources)
                self.register_filter(
                    "filter_data_type",
                    WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources),
                )
            except (ImportError, AttributeError, TypeError):
                return super().from_notebook_node(nb, resources, **kw)
            page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            page = _FOCUSABLE.sub(r'\1 tabindex="0"', page)
            page = _IMG_WITHOUT_ALT.sub('<img alt="No description has been provided for this image"', page)
            return page, resources

    return OfflineHTMLExporter


_BUNDLE_MARKER = "/*costmodel-vega-bundle*/"
"""What the template writes in place of the Vega bundle; the bundle replaces it after the export,
so that neither nbconvert's own pass over the page (BeautifulSoup) nor the offline check reads
its 1.5 MB."""


def _export(notebook, title: str, with_bundle: bool, exporter=None) -> str:
    """The page with :data:`_BUNDLE_MARKER` where the Vega bundle goes (if ``with_bundle``)."""
    import copy

    import nbformat

    if isinstance(notebook, (str, Path)):
        notebook = nbformat.read(notebook, as_version=4)
    else:
        notebook = copy.copy(notebook)
        notebook.metadata = copy.deepcopy(notebook.metadata)
    notebook.metadata["title"] = title
    exporter = exporter or _take_exporter()
    try:
        body, _ = exporter.from_notebook_node(
            notebook, resources={"costmodel_vega_bundle": _BUNDLE_MARKER if with_bundle else ""}
        )
    finally:
        _IDLE_EXPORTERS.put(exporter)
    return body


def _with_bundle(page: str, bundle: str) -> str:
    """The page with the Vega bundle in the one place the template marked for it."""
    marker = f"<script>{_BUNDLE_MARKER}</script>"
    if page.count(marker) != 1:
        raise ReportError(f"the page has {page.count(marker)} places for the Vega bundle, not one")
    before, after = page.split(marker)
    return f"{before}<script>{bundle}</script>{after}"


def _with_drawings(page: str, pending) -> str:
    """The page with each chart's stand-in (:func:`~costmodel.presentation.svg.stand_in_charts`)
    replaced by its drawing.

    The template writes an SVG as an ``<img>`` whose ``src`` is ``data:image/svg+xml;base64,``
    and the SVG's base64 text, so the stand-in's base64 text is replaced by the drawing's. The
    offline check reads no ``data:`` URL's content (an SVG shown as an image can neither load
    nor run anything), so the page it checked and the page written differ only there.
    """
    import base64

    for chart in pending:
        stand_in = base64.b64encode(chart.stand_in.encode()).decode()
        if page.count(stand_in) != 1:
            raise ReportError(f"{chart.where}: the page has {page.count(stand_in)} places for the chart, not one")
        page = page.replace(stand_in, base64.b64encode(chart.output["data"]["image/svg+xml"].encode()).decode())
    return page


class _PreparedExport(threading.Thread):
    """nbconvert imported, an exporter's templates compiled on a one-cell notebook and the Vega bundle
    read (or built), in a thread started while the kernel runs the notebook.

    On Linux the thread runs at the lowest priority (nice 19): its 0.3 s of CPU is not needed
    until the notebook has run, and on two cores the kernel's start and the drawing process's
    need them first. It mostly runs while the last charts are drawn, when a core is free
    (in alternating runs of R2's report, 20 each: median 2.81 s against 2.96 s).
    """

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.exporter = None
        self.start()

    def run(self) -> None:
        if sys.platform == "linux":  # a thread's own nice value (Linux): CPU no one else wants
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
            except OSError:
                pass
        try:
            import nbformat

            vega_bundle()
            exporter = _take_exporter()
            warm_up = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("costmodel")])
            exporter.from_notebook_node(warm_up, resources={"costmodel_vega_bundle": ""})
            self.exporter = exporter
        except Exception:  # the export itself will raise whatever is wrong, with its message
            pass

    def take(self):
        """The prepared exporter (None if preparing failed), once the thread has ended."""
        self.join()
        return self.exporter


def _kernel_manager(scratch: Path):
    """A kernel manager for a kernel of this very interpreter, over Unix sockets in ``scratch``.

    The kernel spec is written into ``scratch`` (never the user's Jupyter path), so the report
    runs on the interpreter that runs ``costmodel``, whatever ``python3`` kernel comes first on
    the Jupyter path. The kernel is :mod:`costmodel.kernel` (IPython's, with the report stack
    imported before it answers) and keeps no command history. IPC keeps the kernel off the
    network and its socket files in ``scratch``.

    A manager whose ``adopted`` is a kernel process already started by
    :func:`costmodel.kernel.launch` (with its connection file loaded) takes that process as the
    one it starts, once; a restart starts a new process as jupyter_client does.
    """
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    from .kernel import command

    client = _ready_client()

    spec = scratch / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {"argv": command("{connection_file}"), "display_name": "costmodel (this interpreter)", "language": "python"}
        )
    )

    class Manager(AsyncKernelManager):
        adopted = None  # a subprocess.Popen of costmodel.kernel.launch, taken at the next start

        @default("transport")
        def _default_transport(self):
            return "ipc"

        @default("ip")
        def _default_ip(self):
            return str(scratch / "kernel")

        @default("kernel_spec_manager")
        def _default_kernel_spec_manager(self):
            return KernelSpecManager(kernel_dirs=[str(scratch / "kernels")])

        @default("client_factory")
        def _default_client_factory(self):
            return client

        def write_connection_file(self, **kwargs) -> None:
            if self.adopted is None:  # the adopted kernel has read its file, or is reading it
                super().write_connection_file(**kwargs)

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
            if self.adopted is None:
                return await super()._async_launch_kernel(kernel_cmd, **kw)
            process, self.adopted = self.adopted, None
            if kernel_cmd != process.args:
                raise RuntimeError(f"the started kernel is not the one the kernel spec names: {process.args}")
            provisioner = self.provisioner
            provisioner.process, provisioner.pid = process, process.pid
            provisioner.pgid = os.getpgid(process.pid)
            provisioner.cwd = kw.get("cwd")

    return Manager


@functools.cache
def _ready_client():
    """jupyter_client's asynchronous kernel client, told the kernel is ready as soon as it is.

    jupyter_client's ``wait_for_ready`` sends ``kernel_info_request`` until a reply comes and one
    IOPub message shows IOPub connected, then reads IOPub until it has been quiet for 0.2 s
    (every report paid that wait, with the kernel idle). This one waits for the reply, then for
    a message on IOPub that shows the subscription is in place: the kernel's ``iopub_welcome``
    (sent when a subscriber joins, ipykernel 7) or its ``status: idle`` for that same request
    (published after the reply). Later messages all arrive; stale ones would do no harm, since
    nbclient reads only those of the cell it runs. If IOPub gives nothing for 0.2 s (not yet
    connected: ZeroMQ drops what a subscriber misses), it asks again.

    References
    ----------
    Jupyter messaging protocol, "Kernel status" and "Kernel info":
    https://jupyter-client.readthedocs.io/en/stable/messaging.html

    JEP 65, "Replace PUB socket with XPUB socket" (the ``iopub_welcome`` message):
    https://github.com/jupyter/enhancement-proposals/pull/65
    """
    from queue import Empty

    from jupyter_client.asynchronous import AsyncKernelClient

    class ReadyClient(AsyncKernelClient):
        async def wait_for_ready(self, timeout: float | None = None) -> None:
            deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
            while True:
                self.kernel_info()
                try:
                    reply = await self.shell_channel.get_msg(timeout=1)
                    if reply["msg_type"] == "kernel_info_reply":
                        request = reply["parent_header"].get("msg_id")
                        while True:
                            message = await self.iopub_channel.get_msg(timeout=0.2)
                            if message["msg_type"] == "iopub_welcome" or (
                                message["msg_type"] == "status"
                                and message["parent_header"].get("msg_id") == request
                                and message["content"].get("execution_state") == "idle"
                            ):
                                self._handle_kernel_info_reply(reply)
                                return
                except Empty:
                    pass
                if not await self.is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")

    return ReadyClient


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


class WarmKernel:
    """A report kernel (:mod:`costmodel.kernel`) started at once, for one report or several.

    For several (``costmodel batch --reports``, a pool of one), each report runs in a clean
    namespace (``%reset -f`` before its first cell), but the modules its cells import (pandas,
    Altair, SciPy) stay imported, so a report pays neither the kernel's start nor those imports
    again. A kernel that died is restarted. Use as a context manager; the kernel is shut down on
    leaving.

    Parameters
    ----------
    start
        Start the kernel now (default), so it boots while the caller does other work.
    """

    def __init__(self, start: bool = True) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="costmodel-")
        self.folder = Path(self._folder.name)
        self._manager = None
        if start:
            try:
                self.start()
            except BaseException:
                self._folder.cleanup()
                raise

    @property
    def km(self):
        """The kernel's jupyter_client manager (:func:`_kernel_manager`), made on first use."""
        if self._manager is None:
            self._manager = _kernel_manager(self.folder)(kernel_name=KERNEL_NAME)
        return self._manager

    def start(self) -> None:
        """Start the kernel process, if none is running (it is ready some time later; the client
        waits for that). The process is started first (:func:`costmodel.kernel.launch`), then
        jupyter_client is imported (0.2 s) and its manager adopts it."""
        if self._manager is not None and self._manager.has_kernel:
            return
        from .kernel import launch

        process, connection_file = launch(self.folder, KERNEL_NAME)
        try:
            from jupyter_core.utils import run_sync

            self.km.connection_file = str(connection_file)
            self.km.load_connection_file()
            self.km.adopted = process
            run_sync(self.km.start_kernel)(cwd=str(self.folder))
        except BaseException:
            process.kill()
            process.wait()
            raise

    def __enter__(self) -> WarmKernel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def execute(self, notebook, timeout: int, on_cell_executed=None):
        """Execute a notebook node in the kept kernel, after a reset of its namespace; returns it executed."""
        import nbformat
        from jupyter_core.utils import run_sync
        from nbclient import NotebookClient

        if self.km.has_kernel and not run_sync(self.km.is_alive)():
            # a restart keeps the manager's ZeroMQ context (a shutdown would close it for good)
            run_sync(self.km.restart_kernel)(now=True)
        reset = nbformat.v4.new_code_cell("get_ipython().run_line_magic('reset', '-f')")
        notebook.cells.insert(0, reset)

        def shifted(cell=None, cell_index=None, **kwargs):  # cell indices as in the notebook without the reset
            if on_cell_executed is not None and cell_index:
                on_cell_executed(cell=cell, cell_index=cell_index - 1, **kwargs)

        client = _keeping_signal_handlers(NotebookClient)(
            notebook,
            km=self.km,
            timeout=timeout,
            kernel_name=KERNEL_NAME,
            resources={"metadata": {"path": str(self.folder)}},
            on_cell_executed=shifted,
        )
        try:
            with _closing_channels(client):
                client.execute(cwd=str(self.folder))
        finally:
            notebook.cells.remove(reset)
        return notebook

    def close(self, now: bool = True) -> None:
        """Shut the kernel down and remove its folder. ``now`` (the default): kill it; a report kernel
        has nothing to save, and asking it to stop while it is still importing makes it print a
        KeyboardInterrupt traceback on the terminal."""
        from jupyter_core.utils import run_sync

        try:
            if self._manager is not None and self._manager.has_kernel:
                run_sync(self._manager.shutdown_kernel)(now=now)
        finally:
            self._folder.cleanup()


@functools.cache
def _keeping_signal_handlers(base):
    """A notebook client class (nbclient's, or papermill's subclass) that leaves the process's
    SIGINT and SIGTERM handlers as they were.

    nbclient's ``async_setup_kernel`` puts handlers of its own on the event loop (they shut the
    kernel down) and, on leaving, resets both signals to Python's defaults. So Ctrl-C during a
    notebook killed the kernel ("Kernel died", and in a kept kernel the next report failed with
    "Operation not supported"), and after one report SIGTERM no longer reached the command's
    handler (the process died of it, leaving its folders). The runner stops the kernel itself on
    an interrupt; here the handlers found on entry are put back before the kernel is started or
    waited for.
    """
    import asyncio
    import signal

    class Client(base):
        _kept: dict = {}

        def _put_back(self) -> None:
            loop = asyncio.get_event_loop()
            for number, handler in self._kept.items():
                loop.remove_signal_handler(number)
                if handler is not None:
                    signal.signal(number, handler)

        @contextlib.asynccontextmanager
        async def async_setup_kernel(self, **kwargs):
            main = threading.current_thread() is threading.main_thread()
            numbers = (signal.SIGINT, signal.SIGTERM) if main else ()
            self._kept = {number: signal.getsignal(number) for number in numbers}
            async with super().async_setup_kernel(**kwargs):
                self._put_back()
                yield

        # nbclient sets its handlers before it starts the kernel and waits for it: put them back first
        async def async_start_new_kernel(self, **kwargs):
            self._put_back()
            return await super().async_start_new_kernel(**kwargs)

        async def async_start_new_kernel_client(self):
            self._put_back()
            return await super().async_start_new_kernel_client()

    return Client


@contextlib.contextmanager
def _closing_channels(client):
    """Close a notebook client's channels to its kernel when the run ends, unless it was interrupted.

    Interrupted (Ctrl-C or SIGTERM, which the command turns into KeyboardInterrupt) while the
    client waited on the kernel, ``stop_channels`` could block for good in ZeroMQ's context
    termination: a helper's interrupt tests hung there twice, at 0.94 s into the run, and once in
    about 100 interrupts here. The process is about to exit and the kernel is killed regardless,
    so the channels are left to the exit.
    """
    interrupted = False
    try:
        yield
    except (KeyboardInterrupt, SystemExit):
        interrupted = True
        raise
    finally:
        if client.kc is not None and not interrupted:
            client.kc.stop_channels()


def _papermill_engine() -> str:
    """Register (once) and name a papermill engine that runs a notebook on a kernel already started.

    papermill's own engine keeps a kernel handed to it running, with its client's channels open;
    this one closes the channels at the end and kills the kernel without waiting for it to go
    (the runner has no more use for it; :meth:`WarmKernel.close` reaps it later, saving the 0.1 s
    jupyter_client waits between looks). Everything else (parameters, cell metadata, errors) is
    papermill's.
    """
    import signal

    from jupyter_core.utils import run_sync
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine, papermill_engines
    from papermill.log import logger

    class StartedKernelEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(
            cls,
            nb_man,
            kernel_name,
            log_output=False,
            stdout_file=None,
            stderr_file=None,
            start_timeout=60,
            execution_timeout=None,
            **kwargs,
        ):
            kwargs.pop("input_path", None)
            client = _keeping_signal_handlers(PapermillNotebookClient)(
                nb_man,
                timeout=execution_timeout,
                startup_timeout=start_timeout,
                kernel_name=kernel_name,
                log=logger,
                log_output=log_output,
                stdout_file=stdout_file,
                stderr_file=stderr_file,
                **kwargs,
            )
            try:
                with _closing_channels(client):
                    return client.execute(cleanup_kc=False)
            finally:
                try:
                    run_sync(client.km.signal_kernel)(signal.SIGKILL)
                except Exception:  # already gone, or never started: close() reaps and cleans up
                    pass

    papermill_engines.register("costmodel-started-kernel", StartedKernelEngine)
    return "costmodel-started-kernel"


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
    timeout = _checked_timeout(timeout)  # before a kernel starts
    own_kernel = kernel is None
    if own_kernel:
        kernel = WarmKernel()  # first: it boots (about 1 s) while the runner imports what it needs
    from .presentation.svg import ChartDrawer

    own_drawer = drawer is None
    if own_drawer:
        drawer = ChartDrawer(start=False)  # started once the parameters are checked
    try:
        return _render(
            scenario, Path(out_dir), timeout, notebook, parameters, kernel, own_kernel, drawer, start, catalog=catalog
        )
    finally:
        if own_drawer:
            drawer.close()
        if own_kernel:
            kernel.close(now=True)


def _render(
    scenario,
    out_dir: Path,
    timeout: int,
    notebook,
    parameters,
    kernel: WarmKernel,
    own_kernel: bool,
    drawer,
    start: float,
    defer: bool = False,
    catalog: str | Path | None = None,
):
    """render_report's work. The ``drawer`` is started (if it is not yet) once the parameters are checked.

    With ``defer``, returns once the kernel has run the notebook, with a
    function that finishes the report (waits for the charts, exports, checks and writes the page)
    and returns it: a batch's kernel takes the next scenario meanwhile.
    """
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from .paths import scenario_path
    from .presentation.svg import ChartError, cell_hook, draw_charts, stand_in_charts

    path = scenario_path(scenario).resolve()
    html_path, notebook_path, failed_path = report_paths(path, out_dir)
    check_report_paths(path, out_dir)
    target = html_path.parent
    name = target.name
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
    # the drawing process and the export start once the checks are done, so that on two cores they
    # do not slow the kernel's boot; each is ready before the kernel needs it
    drawer.start()  # a no-op for a batch's drawer, started already
    prepared = _PreparedExport()  # nbconvert and the Vega bundle made ready while the kernel runs
    made = [folder for folder in (target, *target.parents) if not folder.exists()]
    target.mkdir(parents=True, exist_ok=True)
    keys: dict = {}
    hook = cell_hook(drawer, keys)
    # the executed notebook is written beside its final place and renamed there
    scratch = Path(tempfile.mkdtemp(prefix=".costmodel-", dir=target))
    executed = scratch / "report.ipynb"
    try:
        try:
            if own_kernel:
                node = papermill.execute_notebook(
                    str(notebook),
                    str(executed),
                    parameters=values,
                    kernel_name=KERNEL_NAME,
                    engine_name=_papermill_engine(),
                    km=kernel.km,
                    on_cell_executed=hook,
                    progress_bar=False,
                    log_output=False,
                    execution_timeout=timeout,
                    request_save_on_cell_execute=False,
                )  # the notebook is written once, at the end, not per cell
            else:
                node = _execute_warm(kernel, notebook, executed, values, timeout, hook)
        except PapermillExecutionError as exc:
            _refuse_input(exc, path, catalog)
            if executed.exists():
                executed.replace(failed_path)
            raise _cell_failed(name, exc.exec_count, exc, failed_path) from None
        except Exception as exc:  # kernel death, timeout, missing kernel; a cell's error in a warm kernel
            _refuse_input(exc, path, catalog)
            if not own_kernel and executed.exists():
                executed.replace(failed_path)
            if getattr(exc, "ename", None):  # nbclient's CellExecutionError: a cell raised
                # counted as papermill counts in a fresh kernel: the n-th code cell (a kept kernel's
                # execution count goes on from report to report)
                code = [c for c in _cells(failed_path) if c.get("cell_type") == "code"]
                failed = next(
                    (
                        n
                        for n, c in enumerate(code, 1)
                        if any(o.get("output_type") == "error" for o in c.get("outputs", ()))
                    ),
                    None,
                )
                raise _cell_failed(name, failed, exc, failed_path) from None
            first = (str(exc).strip().splitlines() or [""])[0]  # a cell timeout adds the cell's text below
            raise ReportError(f"{name}: the notebook could not run: {type(exc).__name__}: {first}") from None
    except BaseException:
        _discard(scratch, made)
        raise

    def finish() -> Report:
        try:
            # the page and the notebook name no folder of this machine (the scenario's, the catalog's, the
            # scratch folders, the home folder): relative to the working directory, or the file name
            without_local_paths(node, local_paths(path, catalog, Path(notebook), (scratch, kernel.folder)))
            # the page is exported and checked while the last charts are drawn, with stand-ins for them
            pending = stand_in_charts(node, drawer, keys)
            exporter = prepared.take()
            bundle = vega_bundle()
            page = _export(node, title, True, exporter)
            found = unsafe_parts(page)  # the bundle, trusted by its hash, goes in after the check
            if found:
                raise ReportError(f"{name}: the HTML would load or run something, not written: {found[0]}")
            try:
                draw_charts(pending, drawer, timeout)
            except ChartError as exc:
                raise ReportError(f"{name}: a chart could not be drawn: {exc}") from None
            html = with_content_security_policy(_with_bundle(_with_drawings(page, pending), bundle))
            # the page and its notebook renamed into place together, once both are written
            with aside([notebook_path, html_path]) as (notebook_aside, html_aside):
                nbformat.write(node, notebook_aside)
                html_aside.write_text(html, encoding="utf-8")
            failed_path.unlink(missing_ok=True)  # an earlier run's failure, now mended
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return Report(name, html_path, notebook_path, time.perf_counter() - start)

    return finish if defer else finish()


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


def _checked_timeout(timeout) -> int:
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
    and the title, for the page. So it parses the YAML (0.01 s) and leaves the models alone (their
    import is 0.6 s of CPU, which on two cores the kernel's start and the chart drawing need).
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
        raise ParameterError(exc.evalue)
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


def _execute_warm(
    kernel: WarmKernel, notebook: Path, executed: Path, values: dict, timeout: int, on_cell_executed=None
):
    """Parameterise a notebook as papermill does and run it in a warm kernel; write it to ``executed``
    and return it."""
    import nbformat
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook

    node = parameterize_notebook(load_notebook_node(str(notebook)), values, kernel_name=KERNEL_NAME)
    try:
        kernel.execute(node, timeout, on_cell_executed)
    finally:
        nbformat.write(node, executed)
    return node


def _portfolio_picture(portfolio, drawer, timeout: int) -> str:
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
    portfolio,
    out_dir: str | Path,
    timeout: int = 600,
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
        The portfolio table (pandas DataFrame).
    out_dir
        The batch's output folder.
    started
        Kernels already started (``costmodel batch`` starts them before it computes the
        portfolio); default ``kernels`` new ones. All are shut down at the end.

    Returns
    -------
    list of str
        Scenarios whose report failed (each also printed on stderr).
    """
    import html
    from concurrent.futures import ThreadPoolExecutor

    from .presentation.svg import ChartDrawer

    timeout = _checked_timeout(timeout)
    failed, done, finishing = [], {}, {}
    work: queue.Queue = queue.Queue()
    for index, scenario in enumerate(scenarios):
        work.put((index, scenario))

    def report_failed(scenario, exc: Exception) -> None:
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
                    finish = _render(
                        scenario,
                        Path(out_dir),
                        timeout,
                        None,
                        None,
                        kernel,
                        False,
                        drawer,
                        time.perf_counter(),
                        defer=True,
                        catalog=catalog,
                    )
                except (ReportError, ValueError, OSError) as exc:  # ParameterError is a ValueError
                    report_failed(scenario, exc)
                    continue
                # the kernel takes the next scenario while this report's charts are drawn and it is written
                finishing[index] = (scenario, finishers.submit(finish))

    # every kernel and the one chart-drawing process start at once, and boot side by side
    started = started or [WarmKernel() for _ in range(max(1, min(kernels, len(scenarios))))]
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
    links = []
    for index in sorted(done):
        relative = done[index].html.relative_to(Path(out_dir)).as_posix()
        # a URL: a file name's '#', '?' or '%' would otherwise end the path or read as an escape
        links.append(
            f'<li><a href="{html.escape(urllib.parse.quote(relative))}">{html.escape(done[index].scenario)}</a></li>'
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
            + html.escape(", ".join(str(name) for name in errors["scenario"].drop_duplicates()))
            + "</p>"
        )
    )
    failed_note = (
        ""
        if not failed
        else ('<p class="failed"><strong>Reports not written:</strong> ' + html.escape(", ".join(failed)) + "</p>")
    )
    style = (
        "<style>body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1400px;margin:1em auto;"
        "padding:0 1em;color:#222}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;max-width:28em}"
        ".failed{background:#fdecea;border-left:4px solid #d62728;padding:0.4em 0.8em}</style>"
    )
    page = (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>costmodel batch</title>'
        + style
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
    from .paths import scenario_path

    # the page names no folder of this machine: the scenarios' files (in the table, its errors) as the reports do
    pairs = {pair for name in scenarios for pair in local_paths(scenario_path(name), catalog, BREAK_EVEN_NOTEBOOK)}
    page = without_local_paths([page], sorted(pairs, key=lambda pair: -len(pair[0])))[0]
    problems = unsafe_parts(page)
    if problems:
        raise ReportError(f"the index page would load or run something: {problems[:3]}")
    write_text_atomically(Path(out_dir) / "index.html", with_content_security_policy(page))
    return failed

"""ADAPTER_DOC"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import queue
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

from .paths import TEMPLATE_DIR
from .presentation.interactive import cache_folder, vega_bundle

KERNEL_NAME = "costmodel-python"
"""Name of the kernel spec the runner writes for its own interpreter."""


def kernel_manager_class(scratch: Path):
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

    client = ready_client_class()

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
def ready_client_class():
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
            self._manager = kernel_manager_class(self.folder)(kernel_name=KERNEL_NAME)
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

        client = keeping_signal_handlers(NotebookClient)(
            notebook,
            km=self.km,
            timeout=timeout,
            kernel_name=KERNEL_NAME,
            resources={"metadata": {"path": str(self.folder)}},
            on_cell_executed=shifted,
        )
        try:
            with closing_channels(client):
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
def keeping_signal_handlers(base):
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
def closing_channels(client):
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


def papermill_engine() -> str:
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
            client = keeping_signal_handlers(PapermillNotebookClient)(
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
                with closing_channels(client):
                    return client.execute(cleanup_kc=False)
            finally:
                try:
                    run_sync(client.km.signal_kernel)(signal.SIGKILL)
                except Exception:  # already gone, or never started: close() reaps and cleans up
                    pass

    papermill_engines.register("costmodel-started-kernel", StartedKernelEngine)
    return "costmodel-started-kernel"


def execute_warm(kernel: WarmKernel, notebook: Path, executed: Path, values: dict, timeout: int, on_cell_executed=None):
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


_IDLE_EXPORTERS: queue.SimpleQueue = queue.SimpleQueue()
"""HTML exporters not in use: an exporter's Jinja templates compile on its first export (0.2 s), so
exporters are kept and reused, one per report being exported at once (a batch exports from several
threads)."""


def take_exporter():
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


def export_page(notebook, resources: dict, exporter=None) -> str:
    """A notebook node as the ``costmodel_offline`` template's HTML page.

    Parameters
    ----------
    notebook
        The executed notebook (an ``nbformat.NotebookNode``); not changed.
    resources
        The resources the template reads (``costmodel_vega_bundle``: what goes where the Vega bundle goes).
    exporter
        An exporter of :func:`take_exporter` (default: one taken now); returned to the idle ones after.
    """
    exporter = exporter or take_exporter()
    try:
        page, _ = exporter.from_notebook_node(notebook, resources=resources)
    finally:
        _IDLE_EXPORTERS.put(exporter)
    return page


class PreparedExport(threading.Thread):
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
            exporter = take_exporter()
            warm_up = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("costmodel")])
            exporter.from_notebook_node(warm_up, resources={"costmodel_vega_bundle": ""})
            self.exporter = exporter
        except Exception:  # the export itself will raise whatever is wrong, with its message
            pass

    def take(self):
        """The prepared exporter (None if preparing failed), once the thread has ended."""
        self.join()
        return self.exporter

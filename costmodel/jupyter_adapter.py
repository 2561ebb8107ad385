"""The one module that reaches into jupyter_client, nbclient, papermill and nbconvert.

The report runner (:mod:`costmodel.report`, :mod:`costmodel.report_index`) starts, uses and stops
its kernels, runs notebooks and exports pages through this module only. What it relies on beyond
those libraries' documented, public APIs, for the versions ``pyproject.toml`` declares (tested at
the oldest, ``tests/constraints-oldest.txt`` and ``make test-oldest``, and at the newest, ``make
.venv/.installed``; the versions are in pyproject.toml's comment):

nbclient 0.10 and 0.11: *when* signal handlers are installed
    ``NotebookClient.async_setup_kernel`` puts SIGINT and SIGTERM handlers of its own on the event
    loop (they shut the kernel down) before it calls ``async_start_new_kernel`` and
    ``async_start_new_kernel_client``, and on leaving removes them, which resets both signals to
    Python's defaults. :func:`keeping_signal_handlers` overrides those three public methods to put
    the caller's handlers back at each of those points (``tests/test_report_interrupt.py`` sends
    a real SIGINT; ``tests/test_report.py`` checks the handlers after a report).
papermill 2.6 and 2.7: an engine of one's own
    :func:`papermill_engine` registers a subclass of ``NBClientEngine`` in ``papermill_engines``
    and builds ``papermill.clientwrap.PapermillNotebookClient`` itself, with the keyword arguments
    papermill passes to ``execute_managed_notebook`` (its engine plug-in interface). It also uses
    ``papermill.iorw.load_notebook_node`` and ``papermill.parameterize.parameterize_notebook``
    (:func:`execute_warm`) to parameterise a notebook as ``execute_notebook`` does.
nbclient 0.10 and 0.11: ``NotebookClient._cleanup_kernel`` and :mod:`atexit`
    ``async_setup_kernel`` registers the client's ``_cleanup_kernel`` with ``atexit`` and
    unregisters it when its block ends; a run interrupted inside the block leaves it registered,
    so :func:`closing_channels` unregisters it (the runner kills the kernel itself). If the name
    goes, nothing is unregistered and nbclient's clean-up runs at exit as before.
jupyter_client 8.6 to 8.10, nbconvert 7.16.5 to 7.17
    Public APIs only: the kernel manager's traits set by ``@default`` (:func:`kernel_manager_class`),
    ``wait_for_ready`` overridden (:func:`ready_client_class`), the session's ``adapt_version``,
    and ``HTMLExporter`` with the ``costmodel_offline`` template and its ``environment``'s Jinja
    bytecode cache.

No other private name of these libraries is used: the kernel is started by ``start_kernel``,
the page exported by ``HTMLExporter.from_notebook_node``, the protocol version set through the
session's ``adapt_version``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import queue
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
    network and its socket files in ``scratch``. Only public traits of the manager are set (their
    ``@default``), and the client is :func:`ready_client_class`.
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

    return Manager


@functools.cache
def ready_client_class():
    """jupyter_client's asynchronous kernel client, told the kernel is ready as soon as it is.

    jupyter_client's ``wait_for_ready`` sends ``kernel_info_request`` until a reply comes and one
    IOPub message shows IOPub connected, then reads IOPub until it has been quiet for 0.2 s
    (every report paid that wait, with the kernel idle). This one waits for the reply, then for
    a message on IOPub that shows the subscription is in place: the kernel's ``iopub_welcome``
    (sent when a subscriber joins, ipykernel 7) or its ``status: idle`` for one of the requests it
    sent (published after each reply; ipykernel 6 has no welcome). Any of them: a kernel still
    booting answers the requests queued meanwhile one by one, so the reply read may be to an
    earlier request than the idle status read next. Later messages all arrive; stale ones would
    do no harm, since nbclient reads only those of the cell it runs. If IOPub gives nothing for
    0.2 s (not yet connected: ZeroMQ drops what a subscriber misses), it asks again.

    References
    ----------
    Jupyter messaging protocol, "Kernel status" and "Kernel info":
    https://jupyter-client.readthedocs.io/en/stable/messaging.html

    JEP 65, "Replace PUB socket with XPUB socket" (the ``iopub_welcome`` message):
    https://github.com/jupyter/enhancement-proposals/pull/65
    """
    from queue import Empty

    from jupyter_client.asynchronous.client import AsyncKernelClient

    class ReadyClient(AsyncKernelClient):
        async def wait_for_ready(self, timeout: float | None = None) -> None:
            deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
            requests: set[str] = set()
            while True:
                requests.add(self.kernel_info())
                try:
                    reply = await self.shell_channel.get_msg(timeout=1)
                    if reply["msg_type"] == "kernel_info_reply":
                        while True:
                            message = await self.iopub_channel.get_msg(timeout=0.2)
                            if message["msg_type"] == "iopub_welcome" or (
                                message["msg_type"] == "status"
                                and message["parent_header"].get("msg_id") in requests
                                and message["content"].get("execution_state") == "idle"
                            ):
                                _adapt_protocol(self, reply)
                                return
                except Empty:
                    pass
                if not await self.is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")

    return ReadyClient


def _adapt_protocol(client, reply: dict) -> None:
    """Speak the kernel's major version of the messaging protocol if it is not the client's, as
    jupyter_client's own ``wait_for_ready`` does on the first ``kernel_info_reply`` (through its private
    ``_handle_kernel_info_reply``; here through the session's public ``adapt_version``). A no-op for
    ipykernel 6 and 7, which speak protocol 5 as jupyter_client 8 does.

    References
    ----------
    Jupyter messaging protocol, "Kernel info" (``protocol_version``):
    https://jupyter-client.readthedocs.io/en/stable/messaging.html#kernel-info
    """
    from jupyter_client.channels import major_protocol_version  # the client's own: 5 in jupyter_client 8

    major = int(str(reply["content"]["protocol_version"]).split(".")[0])
    if major != major_protocol_version:
        client.session.adapt_version = major


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
        """Start the kernel process with jupyter_client's ``start_kernel``, if none is running (it is
        ready some time later; the client waits for that)."""
        if self._manager is not None and self._manager.has_kernel:
            return
        from jupyter_core.utils import run_sync

        run_sync(self.km.start_kernel)(cwd=str(self.folder))

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
        loop: asyncio.AbstractEventLoop | None = None  # the loop the client runs on (for closing_channels)

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
            self.loop = asyncio.get_running_loop()
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
    """Close a notebook client's channels to its kernel when the run ends; on an interrupt, leave
    the client's work unfinished without a word.

    Interrupted (Ctrl-C or SIGTERM, which the command turns into KeyboardInterrupt) while the
    client waited on the kernel, ``stop_channels`` could block for good in ZeroMQ's context
    termination. The process is about to exit and the kernel is killed regardless, so the
    channels are left to the exit. What the interrupt left half-done is dropped: the tasks
    pending on the client's event loop are cancelled (else one waiting for the kernel would
    fail when the kernel is killed, and asyncio print "Task exception was never retrieved"), and
    nbclient's clean-up at exit is unregistered (``async_setup_kernel`` registers the client's
    ``_cleanup_kernel`` with :mod:`atexit` and unregisters it only when its block ends; at
    exit it would shut down a kernel the runner has killed, and nbclient 0.10.0's fails with a
    traceback).
    """
    import asyncio
    import atexit

    interrupted = False
    try:
        yield
    except (KeyboardInterrupt, SystemExit):
        interrupted = True
        loop = getattr(client, "loop", None)
        if loop is not None and not loop.is_closed():
            for task in asyncio.all_tasks(loop):
                task.cancel()
        cleanup = getattr(client, "_cleanup_kernel", None)  # nbclient's, registered by async_setup_kernel
        if cleanup is not None:
            atexit.unregister(cleanup)
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
"""HTML exporters not in use: an exporter's Jinja templates compile on its first export, so
exporters are kept and reused, one per report being exported at once (a batch exports from several
threads)."""


def take_exporter():
    """An HTML exporter for one export: an idle one, else a new one."""
    try:
        return _IDLE_EXPORTERS.get_nowait()
    except queue.Empty:
        import nbconvert
        from jinja2 import FileSystemBytecodeCache
        from nbconvert import HTMLExporter

        exporter = HTMLExporter(
            extra_template_basedirs=[str(TEMPLATE_DIR)],
            template_name="costmodel_offline",
            exclude_input=True,
            exclude_input_prompt=True,
            exclude_output_prompt=True,
            embed_images=True,
            optimistic_validation=True,  # validate the notebook once, after its preprocessors, not after each
        )
        # Jinja compiles the templates to Python on first use, in every process; like Python's own
        # bytecode, the result is kept in the cache folder, under the template source's checksum
        folder = cache_folder() / f"jinja-nbconvert-{nbconvert.__version__}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            exporter.environment.bytecode_cache = FileSystemBytecodeCache(str(folder))
        except OSError:
            pass  # a read-only home: compile every time
        return exporter


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
    """nbconvert imported, an exporter's templates (and the CSS selectors of its BeautifulSoup pass)
    compiled on a one-cell notebook and the Vega bundle read (or built), in a thread started while
    the kernel runs the notebook.

    On Linux the thread runs at the lowest priority (nice 19): its CPU is not needed until the
    notebook has run, and on two cores the kernel's start and the drawing process need them
    first. It mostly runs while the last charts are drawn, when a core is free.
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

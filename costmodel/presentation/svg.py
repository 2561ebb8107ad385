"""Charts drawn to SVG in processes of their own, while the report's kernel goes on.

vl-convert holds Python's GIL while it draws a chart, and starting it is slower than drawing
one. In a report run by ``costmodel report`` the notebook displays each chart
as its Vega-Lite spec (the ``"report"`` renderer, output type :data:`CHART_MIMETYPE`); the runner
hands every spec to a :class:`ChartDrawer` as soon as its cell has run, so the drawing happens on
another core while the kernel computes the next sections, and :func:`drawn_outputs` then puts
the SVG (with its alt text) and the spec for the page's interactive view where the chart was:
the same two outputs the ``"svg"`` renderer displays when it draws in the kernel.

Run as ``python -m costmodel.presentation.svg``, this module is the drawing process: it reads
one JSON request per line on stdin (``{"id", "spec", "vl_version"}``, the spec as JSON text) and writes one JSON answer
per line on stdout (``{"id", "svg"}`` or ``{"id", "error"}``).

References
----------
vl-convert (Vega-Lite to SVG with Deno and Vega): https://github.com/vega/vl-convert
"""

from __future__ import annotations

import json
import queue
import secrets
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

CHART_MIMETYPE = "application/vnd.costmodel.chart"
"""Output type of a chart the runner draws: its Vega-Lite spec as JSON text (text, not a nested
value: a spec holds thousands of data rows, which Jupyter's messages and nbformat's indented
writer would otherwise walk one by one), beside ``text/plain`` with the chart's description (its
alt text); the output's metadata gives the Vega-Lite version as vl-convert names it
(``{"vl_version": "v6_4"}``)."""

_WARM_UP = {"mark": "point", "data": {"values": [{"x": 1}]}, "encoding": {"x": {"field": "x", "type": "quantitative"}}}


class ChartError(RuntimeError):
    """A chart could not be drawn: the message names the chart and the reason."""


class _Process:
    """One drawing process, fed by a writer thread and read by a reader thread."""

    def __init__(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        # a session of its own, like the kernel's: Ctrl-C in a terminal reaches the runner alone, which
        # then closes this process (which also ends when the runner does: its stdin closes)
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            start_new_session=True,
        )
        # both are pipes (PIPE above), so Popen sets them
        assert self.process.stdin is not None and self.process.stdout is not None
        self._stdin, self._stdout = self.process.stdin, self.process.stdout
        self.pending = 0
        self.ended: str | None = None
        self._requests: queue.Queue = queue.Queue()
        self.answers: dict[int, dict] = {}
        self.done = threading.Condition()
        threading.Thread(target=self._write, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    def _write(self) -> None:
        while (line := self._requests.get()) is not None:
            try:
                self._stdin.write(line)
                self._stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                return  # the reader reports the process's end
        try:
            self._stdin.close()
        except OSError:
            pass

    def _read(self) -> None:
        for line in self._stdout:
            answer = json.loads(line)
            with self.done:
                self.answers[answer["id"]] = answer
                self.done.notify_all()
        self.process.wait()
        try:
            self._stderr.seek(0)
            reason = self._stderr.read().decode(errors="replace").strip().splitlines()
        except ValueError:  # closed by close() meanwhile: the runner is done with this process
            reason = []
        with self.done:
            self.ended = f"the drawing process stopped (exit code {self.process.returncode})" + (
                f": {reason[-1]}" if reason else ""
            )
            self.done.notify_all()

    def submit(self, key: int, spec: str, vl_version: str | None) -> None:
        self.pending += 1
        line = json.dumps({"id": key, "spec": spec, "vl_version": vl_version}, separators=(",", ":"))
        self._requests.put(line.encode() + b"\n")

    def answer(self, key: int, timeout: float) -> dict:
        with self.done:
            if not self.done.wait_for(lambda: key in self.answers or self.ended is not None, timeout):
                return {"error": f"not drawn within {timeout:g} s"}
            return self.answers.get(key) or {"error": self.ended}

    def close(self) -> None:
        self._requests.put(None)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._stderr.close()


class ChartDrawer:
    """Processes that draw Vega-Lite specs to SVG, started at once and used as a context manager.

    Parameters
    ----------
    processes
        Drawing processes [-]; each chart goes to the one with the fewest charts so far.
    start
        Start them now (default); else at :meth:`start` or the first chart.

    Examples
    --------
    >>> with ChartDrawer() as drawer:
    ...     key = drawer.submit('{"mark": "bar", "data": {"values": [{"a": 1}]}, '
    ...                         '"encoding": {"y": {"field": "a", "type": "quantitative"}}}')
    ...     drawer.svg(key, timeout=60).lstrip().startswith("<svg")
    True
    """

    def __init__(self, processes: int = 1, start: bool = True) -> None:
        self._count = max(1, processes)
        self._processes: list[_Process] = []
        self._where: dict[int, _Process] = {}
        self._lock = threading.Lock()  # several kernels' threads submit to one drawer in a batch
        if start:
            self.start()

    def start(self) -> None:
        """Start the drawing processes (once; later calls do nothing)."""
        with self._lock:
            if not self._processes:
                self._processes = [_Process() for _ in range(self._count)]

    def __enter__(self) -> ChartDrawer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def submit(self, spec: str, vl_version: str | None = None) -> int:
        """Queue one spec (JSON text) for drawing; returns the key to fetch its SVG with."""
        self.start()
        with self._lock:
            key = len(self._where)
            process = min(self._processes, key=lambda p: p.pending)
            self._where[key] = process
            process.submit(key, spec, vl_version)
        return key

    def svg(self, key: int, timeout: float) -> str:
        """The SVG of a submitted spec, waiting for it at most ``timeout``. [s]

        Raises
        ------
        ChartError
            vl-convert refused the spec, the drawing process stopped, or the time ran out.
        """
        answer = self._where[key].answer(key, timeout)
        if "svg" not in answer:
            raise ChartError(answer["error"])
        return answer["svg"]

    def close(self) -> None:
        """Stop the drawing processes."""
        for process in self._processes:
            process.close()


def chart_outputs(notebook) -> list[tuple[int, int, dict]]:
    """Every chart the runner is to draw in a notebook: (cell index, output index, output)."""
    return [
        (c, o, output)
        for c, cell in enumerate(notebook.cells)
        for o, output in enumerate(cell.get("outputs", ()))
        if CHART_MIMETYPE in output.get("data", {})
    ]


def drawn_outputs(output: dict, svg: str) -> list[dict]:
    """The two outputs that replace a chart's spec output: the SVG with its alt text, then the
    spec as inline JSON for the page's interactive view (see :func:`spec_script`)."""
    from nbformat.v4 import new_output

    description = "".join(output["data"].get("text/plain", ""))
    return [
        new_output(
            "display_data",
            data={"image/svg+xml": svg, "text/plain": description},
            metadata={"image/svg+xml": {"alt": description}},
        ),
        new_output("display_data", data={"text/html": spec_script(_spec(output))}, metadata={}),
    ]


def spec_text(spec: dict) -> str:
    """A Vega-Lite spec as compact JSON text (no NaN or infinity: they are not JSON)."""
    return json.dumps(spec, separators=(",", ":"), allow_nan=False)


def spec_script(spec: dict | str) -> str:
    """A Vega-Lite spec (a dict, or its JSON text) as an inline JSON script; ``<`` is written
    ``\\u003c`` so no text in it can close the script element."""
    text = (spec if isinstance(spec, str) else spec_text(spec)).replace("<", "\\u003c")
    return f'<script type="application/json" class="costmodel-vega-spec">{text}</script>'


def _spec(output: dict) -> str:
    return "".join(output["data"][CHART_MIMETYPE])


def _vl_version(output: dict) -> str | None:
    return output.get("metadata", {}).get(CHART_MIMETYPE, {}).get("vl_version")


def cell_hook(drawer: ChartDrawer, keys: dict[tuple[int, int], int]) -> Callable:
    """An nbclient ``on_cell_executed`` hook that hands each chart of the cell just run to ``drawer``
    and records its key under (cell index, output index) in ``keys``."""

    def on_cell_executed(cell: dict | None = None, cell_index: int | None = None, **_) -> None:
        if cell is None or cell_index is None:  # nbclient passes both; a call without them has no chart
            return
        for o, output in enumerate(cell.get("outputs", ())):
            if CHART_MIMETYPE in output.get("data", {}):
                keys[(cell_index, o)] = drawer.submit(_spec(output), _vl_version(output))

    return on_cell_executed


@dataclass
class PendingChart:
    """A chart whose SVG output is in the notebook with a stand-in text until it is drawn."""

    output: dict
    """The ``image/svg+xml`` output (:func:`drawn_outputs`); its SVG is :attr:`stand_in` until drawn."""
    key: int
    """The drawer's key for the chart's spec."""
    stand_in: str
    """Text in place of the SVG, unique to one call of :func:`stand_in_charts`."""
    where: str
    """The chart's cell and description, for an error message."""


def stand_in_charts(notebook, drawer: ChartDrawer, keys: dict[tuple[int, int], int]) -> list[PendingChart]:
    """Replace every chart's spec output in an executed notebook by its SVG and spec outputs
    (:func:`drawn_outputs`), with a stand-in text for each SVG until :func:`draw_charts`.

    The notebook can be exported meanwhile (the runner does, while the charts are drawn), and
    each stand-in in the page replaced by its drawing. Charts the hook did not see (a cell run
    some other way) are submitted now.
    """
    token = secrets.token_hex(8)
    pending = []
    found = chart_outputs(notebook)
    for c, o, output in found:
        if (c, o) not in keys:
            keys[(c, o)] = drawer.submit(_spec(output), _vl_version(output))
    for number, (c, o, output) in reversed(list(enumerate(found))):  # from the end: earlier indices stay right
        stand_in = f"<svg><!-- costmodel chart {token}-{number} --></svg>"
        outputs = drawn_outputs(output, stand_in)
        notebook.cells[c].outputs[o : o + 1] = outputs
        description = "".join(output["data"].get("text/plain", ""))[:80]
        pending.append(PendingChart(outputs[0], keys[(c, o)], stand_in, f"cell {c}: chart {description!r}"))
    return pending[::-1]


def draw_charts(pending: list[PendingChart], drawer: ChartDrawer, timeout: float) -> None:
    """Wait for each pending chart's SVG and put it in place of its stand-in in the notebook.

    Raises
    ------
    ChartError
        A chart could not be drawn; the message names its cell.
    """
    for chart in pending:
        try:
            svg = drawer.svg(chart.key, timeout)
        except ChartError as exc:
            raise ChartError(f"{chart.where}: {exc}") from None
        chart.output["data"]["image/svg+xml"] = svg


def fill_charts(notebook, drawer: ChartDrawer, keys: dict[tuple[int, int], int], timeout: float) -> int:
    """Replace every chart's spec output in an executed notebook by its SVG and spec outputs
    (:func:`stand_in_charts`, then :func:`draw_charts`); returns the number of charts drawn.

    Raises
    ------
    ChartError
        A chart could not be drawn; the message names its cell.
    """
    pending = stand_in_charts(notebook, drawer, keys)
    draw_charts(pending, drawer, timeout)
    return len(pending)


def static_spec(spec: dict) -> dict:
    """The spec without the parameters that only bind the scales to pan and zoom: leaving them out
    makes vl-convert's drawing of a line chart quicker. With them, Vega-Lite clips every
    layer's marks to the plot (a line or a marker past the axis's end is cut there); the marks keep
    that clipping (``"clip": true``), so the drawing is the interactive chart's first view."""
    layers = [spec, *spec.get("layer", ())]
    bound = False
    for layer in layers:
        params = [p for p in layer.get("params", ()) if not (isinstance(p, dict) and p.get("bind") == "scales")]
        if "params" in layer:
            bound = bound or len(params) < len(layer["params"])
            if params:
                layer["params"] = params
            else:
                del layer["params"]
    if bound:
        for layer in layers:
            if isinstance(layer.get("mark"), str):
                layer["mark"] = {"type": layer["mark"]}
            if isinstance(layer.get("mark"), dict):
                layer["mark"].setdefault("clip", True)
    return spec


def main() -> None:
    """The drawing process: draw each spec read on stdin, answer on stdout (see the module's text)."""
    import vl_convert

    vl_convert.vegalite_to_svg(_WARM_UP)  # start Deno and Vega before the first chart arrives
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = {
                "id": request["id"],
                "svg": vl_convert.vegalite_to_svg(
                    static_spec(json.loads(request["spec"])), vl_version=request.get("vl_version")
                ),
            }
        except Exception as exc:  # vl-convert's own error, passed back with the chart's key (no JS stack)
            reason = " ".join(line.strip() for line in str(exc).splitlines() if not line.strip().startswith("at "))
            answer = {"id": request["id"], "error": f"{type(exc).__name__}: {reason}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()

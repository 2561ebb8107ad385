"""``costmodel batch``: many scenario files and sweeps into one portfolio table, in parallel.

The work is cut into tasks: one per scenario file, and one per chunk of a sweep's points
(each chunk one vectorised call, :func:`costmodel.domain.portfolio.sweep_columns`). Tasks
run here, in a process pool (``workers``), or on a dask.distributed cluster (``scheduler``:
an address, or ``"local"`` for a :class:`distributed.LocalCluster`); each gives rows, and the
rows are put back in task order, so every way of running gives the same table. A task that
fails gives its error row and stops nothing else (unless ``fail_fast``).

A sweep is streamed (:func:`stream_sweep`): its chunks are submitted as the workers take them (a
bounded number in flight), each is turned into its CSV lines and Parquet rows where it runs, and
each finished chunk is stored in the parts folder of :mod:`costmodel.dataset`, from which the
portfolio files are assembled at the end; memory stays bounded whatever the number of points, and
an interrupted sweep resumes from its stored chunks (``--resume``).

A sweep file names a base scenario and the values of its inputs (the paths of
:mod:`costmodel.schema.inputs`, as the uncertainty block uses them):

.. code-block:: yaml

    base: llama70b-vs-api            # a bundled name, or a path relative to this file
    grid:                            # every combination (Cartesian product) ...
      options.rent.price_per_gpu_hour: [2.5, 3.5, 4.5]
      options.api.output_price_per_million: {low: 10, high: 25, points: 20}
      workload.tokens_per_day: {low: 1.0e+6, high: 1.0e+8, points: 50, scale: log}
    # or  points: {path: [v1, v2, ...], ...}                      (listed points, zipped)
    # or  latin_hypercube: {samples: 1000, seed: 1, ranges: {path: {low: .., high: ..}}}
    chunk_size: 5000                 # optional: points per task (default: chosen from the work)
"""

from __future__ import annotations

import glob
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from dask.typing import Key

from .errors import InputError, ScenarioError
from .paths import scenario_path

MIN_CHUNK = 1_000
"""Fewest points :func:`chunk_size_for` puts in a chunk: below it, loading the base scenario and
sending the chunk cost more than its points."""

MAX_CHUNK = 20_000
"""Most points :func:`chunk_size_for` puts in a chunk: it bounds a worker's memory (a chunk's
break-even search holds a few arrays of points x grid volumes)."""

CHUNKS_PER_WORKER = 4
"""Chunks per worker :func:`chunk_size_for` aims at, so that a slow chunk leaves the others busy."""

RETRIES = 2
"""Times a chunk is run again on a dask cluster after its worker died or it raised."""


class SweepError(InputError):
    """A sweep file that cannot run (bad YAML, an unknown input, a value out of range)."""


class SchedulerError(InputError):
    """A ``--scheduler`` address where no dask scheduler answers."""


SCHEDULER_TIMEOUT = 5.0
"""Longest wait for a dask scheduler to answer a connection. [s]"""


@dataclass(frozen=True)
class Task:
    """One unit of batch work: a scenario file, or a chunk of a sweep's points.

    Attributes
    ----------
    name
        The scenario's name in the table.
    path
        Scenario file (or bundled name).
    catalog_dir
        Folder of catalog rows to add (``--catalog``), if any.
    values
        For a sweep chunk: input path → its values (a list or a 1-D array).
    first_point
        For a sweep chunk: number of its first point.
    """

    name: str
    path: str
    catalog_dir: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    first_point: int = 0

    @property
    def size(self) -> int:
        """Rows this task gives."""
        return len(next(iter(self.values.values()))) if self.values else 1


def run_task(task: Task) -> dict[str, Any]:
    """The portfolio columns of one task (column → one value per row); a scenario that fails gives
    its error row (never raises)."""
    from .catalog import catalog_from
    from .domain.portfolio import scenario_row, sweep_columns
    from .scenarios import load_resolved

    try:
        if not task.values:  # a scenario file: compared as its check resolved it (catalog_from keeps the catalog)
            resolved = load_resolved(task.path, catalog_from(task.catalog_dir))
            return {name: [value] for name, value in scenario_row(resolved, task.name).items()}
        values = {p: np.asarray(v, dtype=float) for p, v in task.values.items()}
        return sweep_columns(_base_scenario(task.path, task.catalog_dir), values, task.name, task.first_point)
    except (InputError, ValueError, KeyError, OSError, ArithmeticError) as exc:
        message = str(exc).replace("\n", "; ")
    except Exception as exc:  # a defect met by one scenario stops no other scenario
        message = f"{type(exc).__name__}: {exc}".replace("\n", "; ")
    return error_columns(task, message)


def error_columns(task: Task, message: str) -> dict[str, Any]:
    """The columns of a task whose every row failed with ``message``: its error rows (a sweep chunk's
    with its points' values and numbers)."""
    from .domain.portfolio import error_row

    columns: dict[str, Any] = {name: [value] * task.size for name, value in error_row(task.name, message).items()}
    if task.values:
        columns.update({p: list(v) for p, v in task.values.items()})
        columns["point"] = list(range(task.first_point, task.first_point + task.size))
    return columns


_BASES: dict[tuple, Any] = {}
"""Base scenarios of sweep chunks loaded in this process, by file, catalog folder and their files' times."""


def _stamp(path: str | Path) -> tuple:
    """What changes when a file or a folder's files change: (name, size, modification time) of each."""
    path = Path(path)
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    return tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files if f.is_file())


def _base_scenario(path: str, catalog_dir: str | None):
    """A sweep's base scenario, loaded once per process (a worker runs many chunks of one sweep) and
    again when its file or catalog folder changes."""
    from .catalog import catalog_from
    from .scenarios import load_scenario

    key = (path, catalog_dir, _stamp(scenario_path(path)), _stamp(catalog_dir) if catalog_dir else ())
    if key not in _BASES:
        _BASES.clear()  # one sweep at a time: the earlier base is not needed again
        _BASES[key] = load_scenario(path, catalog_from(catalog_dir))
    return _BASES[key]


def rows_of(columns: dict[str, Any]) -> int:
    """Rows in a task's columns."""
    return len(columns["scenario"])


def failed_names(columns: dict[str, Any]) -> list[str]:
    """Scenarios with an error in a task's columns."""
    return sorted({name for name, error in zip(columns["scenario"], columns["error"], strict=True) if error})


# --- finding the work --------------------------------------------------------------------------


def expand_scenarios(arguments: Iterable[str]) -> list[str]:
    """Scenario files from names, paths, folders (their *.yaml and *.yml) and glob patterns, in order,
    each file once (as it is first named: a bundled name, its path and a pattern matching it are
    one scenario, one row and one report).

    A name that is not a file is kept as it is: its task fails with the loader's error (a row
    with the error), like any other bad scenario. A pattern or a folder that gives no file is
    refused: it is a mistake in the command, not a scenario that failed.

    Raises
    ------
    ValueError
        A glob pattern that matches no file, or a folder with no ``.yaml`` or ``.yml`` file; the
        message names it.
    """
    found: list[str] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            files = sorted(str(p) for p in path.iterdir() if p.suffix in {".yaml", ".yml"})
            if not files:
                raise ValueError(f"{argument}: the folder holds no scenario file (*.yaml or *.yml)")
            found += files
        elif glob.has_magic(argument):
            files = sorted(glob.glob(argument))
            if not files:
                raise ValueError(f"{argument}: the glob pattern matches no file")
            found += files
        else:
            found.append(argument)
    files = {}
    for name in found:
        files.setdefault(scenario_path(name).resolve(), name)
    return list(files.values())


def _number(field: str, value: Any) -> float:
    """A sweep file's number: an int or float as YAML 1.2 writes one, never a boolean or text."""
    from .schema.values import is_number

    if not is_number(value):
        kind = (
            "a boolean"
            if isinstance(value, bool)
            else "text"
            if isinstance(value, str)
            else "missing"
            if value is None
            else type(value).__name__
        )
        raise SweepError(None, [(field, value, f"must be a number, not {kind}")])
    if not math.isfinite(value):
        raise SweepError(None, [(field, value, "not a finite number")])
    return float(value)


def _count(field: str, value: Any, low: int, high: int) -> int:
    """A sweep file's whole number from ``low`` to ``high`` (``2.5`` and ``true`` refused, not rounded)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SweepError(None, [(field, value, f"a whole number from {low:,} to {high:,}")])
    return value


def _values(field: str, spec: Any) -> np.ndarray:
    """A list of numbers (each held to :func:`_number`)."""
    if not isinstance(spec, list) or not spec:
        raise SweepError(None, [(field, spec, "give a list of numbers")])
    return np.asarray([_number(f"{field}.{i}", v) for i, v in enumerate(spec)], dtype=float)


def _axis(path: str, spec: Any) -> np.ndarray:
    from .domain.portfolio import MAX_POINTS

    field = f"grid.{path}"
    if isinstance(spec, list):
        return _values(field, spec)
    if isinstance(spec, dict) and {"low", "high", "points"} <= set(spec):
        unknown = sorted(set(spec) - {"low", "high", "points", "scale"}, key=str)
        if unknown:
            raise SweepError(
                None, [(f"{field}.{unknown[0]}", unknown[0], "not a field of a grid axis (low, high, points, scale)")]
            )
        low, high = _number(f"{field}.low", spec["low"]), _number(f"{field}.high", spec["high"])
        points = _count(f"{field}.points", spec["points"], 1, MAX_POINTS)
        if low > high:
            raise SweepError(None, [(f"{field}.low", low, f"above high ({high:g})")])
        scale = spec.get("scale", "linear")
        if scale not in ("linear", "log"):
            raise SweepError(None, [(f"{field}.scale", scale, "linear or log")])
        if scale == "log":
            if low <= 0 or high <= 0:
                raise SweepError(None, [(field, [low, high], "a log scale needs low and high above 0")])
            return np.geomspace(low, high, points)
        return np.linspace(low, high, points)
    raise SweepError(None, [(field, spec, "give a list of values or {low, high, points[, scale: log]}")])


def read_sweep(path: str | Path, catalog_dir: str | None = None) -> tuple[str, str, dict[str, np.ndarray], int | None]:
    """Read and check a sweep file.

    Returns
    -------
    tuple
        The base scenario's name (for the table), its path, input path → values (one per
        point), and the chunk size the file gives (None: :func:`chunk_size_for` chooses).

    Raises
    ------
    SweepError
        The file is unreadable or not a mapping, has no base or no values, names an input the
        base scenario does not have, gives a value outside an input's range, or too many points.
    """
    from .catalog import catalog_from
    from .domain.portfolio import MAX_POINTS, check_sweep_values, grid_points, latin_hypercube
    from .io.yaml_files import parse_yaml, read_text
    from .scenarios import load_scenario, scenario_path

    path = Path(path)
    try:
        data = parse_yaml(read_text(path), path)
    except InputError as exc:
        problems = getattr(exc, "problems", None) or [("(file)", str(path), str(exc))]
        raise SweepError(path, problems) from None
    if not isinstance(data, dict):
        raise SweepError(
            path, [("(top level)", data, "a sweep file is a mapping with base and grid/points/latin_hypercube")]
        )
    unknown = set(data) - {"base", "grid", "points", "latin_hypercube", "chunk_size"}
    if unknown:
        raise SweepError(path, [(name, name, "not a field of a sweep file") for name in sorted(unknown)])
    if not isinstance(data.get("base"), str):
        raise SweepError(path, [("base", data.get("base"), "name a base scenario (bundled name or path)")])
    base = data["base"]
    base_path = path.parent / base if (path.parent / base).is_file() else scenario_path(base)
    kinds = [k for k in ("grid", "points", "latin_hypercube") if k in data]
    if len(kinds) != 1:
        raise SweepError(path, [("(sweep)", kinds, "give exactly one of grid, points, latin_hypercube")])
    kind = kinds[0]
    spec = data[kind]
    try:
        if kind == "latin_hypercube":
            if not isinstance(spec, dict) or not isinstance(spec.get("ranges"), dict):
                raise SweepError(
                    path, [("latin_hypercube", spec, "give samples, seed and ranges: {path: {low, high}}")]
                )
            unknown = sorted(set(spec) - {"samples", "seed", "ranges"}, key=str)
            if unknown:
                raise SweepError(
                    path,
                    [
                        (
                            f"latin_hypercube.{unknown[0]}",
                            unknown[0],
                            "not a field of a Latin hypercube (samples, seed, ranges)",
                        )
                    ],
                )
            samples = _count("latin_hypercube.samples", spec.get("samples", 1000), 1, MAX_POINTS)
            seed = _count("latin_hypercube.seed", spec.get("seed", 0), 0, 2**32 - 1)
            ranges = {}
            for p, r in spec["ranges"].items():
                field = f"latin_hypercube.ranges.{p}"
                if not isinstance(r, dict) or set(r) != {"low", "high"}:
                    raise SweepError(path, [(field, r, "give {low, high}")])
                ranges[p] = (_number(f"{field}.low", r["low"]), _number(f"{field}.high", r["high"]))
                if ranges[p][0] > ranges[p][1]:
                    raise SweepError(path, [(f"{field}.low", ranges[p][0], f"above high ({ranges[p][1]:g})")])
            values = latin_hypercube(ranges, samples, seed)
        elif not isinstance(spec, dict) or not spec:
            raise SweepError(path, [(kind, spec, "map input paths to their values")])
        elif kind == "grid":
            axes = {p: _axis(p, s) for p, s in spec.items()}
            total = math.prod(len(a) for a in axes.values())
            if total > MAX_POINTS:
                raise SweepError(path, [("grid", total, f"at most {MAX_POINTS:,} points")])
            values = grid_points(axes)
        else:
            values = {p: _values(f"points.{p}", v) for p, v in spec.items()}
    except SweepError as exc:
        raise SweepError(path, exc.problems) from None
    except (TypeError, ValueError, KeyError) as exc:
        raise SweepError(
            path, [(kind, spec if len(str(spec)) < 200 else "...", f"cannot read the values: {exc}")]
        ) from None
    try:
        scenario = load_scenario(base_path, catalog_from(catalog_dir))
    except ScenarioError as exc:
        raise SweepError(path, [("base", base, f"the base scenario does not load: {exc}")]) from None
    problems = check_sweep_values(scenario, values, together="rows" if kind == "points" else "box")
    if problems:
        raise SweepError(path, [(f"{kind}.{f}", v, r) for f, v, r in problems])
    chunk = None
    if "chunk_size" in data:
        try:
            chunk = _count("chunk_size", data["chunk_size"], 1, MAX_POINTS)
        except SweepError as exc:
            raise SweepError(path, exc.problems) from None
    return (base if base_path == scenario_path(base) else str(base_path)), str(base_path), values, chunk


def chunk_size_for(points: int, workers: int = 1) -> int:
    """Points per chunk of a sweep of ``points`` on ``workers``: about :data:`CHUNKS_PER_WORKER` chunks
    per worker, held between :data:`MIN_CHUNK` and :data:`MAX_CHUNK` points (never above ``points``).

    >>> chunk_size_for(10_000_000, 2), chunk_size_for(100_000, 2), chunk_size_for(500, 8)
    (20000, 12500, 500)
    """
    wanted = math.ceil(points / max(1, CHUNKS_PER_WORKER * workers))
    return max(1, min(points, max(MIN_CHUNK, min(MAX_CHUNK, wanted))))


def sweep_tasks(
    name: str,
    base_path: str,
    values: dict[str, np.ndarray],
    chunk: int | None = None,
    catalog_dir: str | None = None,
    workers: int = 1,
) -> list[Task]:
    """The sweep cut into tasks of at most ``chunk`` points (None: :func:`chunk_size_for` the points
    and ``workers``); each task holds a slice of the value arrays, not a copy."""
    n = len(next(iter(values.values())))
    size = chunk if chunk is not None else chunk_size_for(n, workers)
    return [
        Task(name, base_path, catalog_dir, {p: v[start : start + size] for p, v in values.items()}, start)
        for start in range(0, n, size)
    ]


# --- running -----------------------------------------------------------------------------------


def _progress(total: int, enabled: bool | None):
    from tqdm import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(
        total=total, disable=not enabled, unit="row", desc="costmodel batch", file=sys.stderr, dynamic_ncols=True
    )


def run_tasks(
    tasks: list[Task],
    workers: int = 1,
    scheduler: str | None = None,
    fail_fast: bool = False,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """Run tasks and return their columns (see :func:`run_task`) in task order.

    Parameters
    ----------
    tasks
        The tasks.
    workers
        Processes of a local pool (1: run here). With ``scheduler="local"``, the workers of
        the LocalCluster.
    scheduler
        None; ``"local"`` for a dask.distributed LocalCluster started and stopped here; or the
        address of a running dask scheduler (``tcp://host:8786``).
    fail_fast
        Stop at the first task with an error row; tasks not run are left out.
    progress
        Show a progress bar on stderr; default: only when stderr is a terminal.
    """
    results: list[dict[str, Any] | None] = [None] * len(tasks)
    bar = _progress(sum(t.size for t in tasks), progress)
    try:
        calls = ((i, (task,)) for i, task in enumerate(tasks))
        for index, columns in _completed(run_task, calls, workers, scheduler, len(tasks)):
            if isinstance(columns, BaseException):
                raise columns
            results[index] = columns
            bar.update(rows_of(columns))
            if fail_fast and failed_names(columns):
                break
    finally:
        bar.close()
    return [columns for columns in results if columns is not None]


def _in_flight(workers: int) -> int:
    """Tasks submitted ahead of the ones running: two per worker, so that none waits for the next."""
    return 2 * max(1, workers)


def _completed(
    function: Callable[..., Any],
    calls: Iterable[tuple[int, tuple]],
    workers: int,
    scheduler: str | None,
    count: int,
) -> Iterator[tuple[int, Any]]:
    """``(index, function(*arguments))`` for each ``(index, arguments)`` of ``calls``, as they finish.

    Calls are submitted as workers take them, a bounded number ahead (:func:`_in_flight`), so neither
    the calls nor their results pile up. A call whose process died (or, on dask, that failed
    :data:`RETRIES` more times) gives its exception in place of its result. ``count``: the number of
    calls (one call runs here, without a pool).
    """
    if scheduler is not None:
        yield from _on_dask(function, calls, workers, scheduler)
    elif workers > 1 and count > 1:
        from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        with ProcessPoolExecutor(max_workers=workers) as pool:
            pending: dict[Future, int] = {}
            waiting = iter(calls)
            try:
                while True:
                    for index, arguments in waiting:
                        try:
                            pending[pool.submit(function, *arguments)] = index
                        except BrokenProcessPool as exc:  # a worker died: no call runs any more
                            yield index, exc
                            continue
                        if len(pending) >= _in_flight(workers):
                            break
                    if not pending:
                        return
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        index = pending.pop(future)
                        exception = future.exception()
                        yield index, exception if exception is not None else future.result()
            finally:
                for future in pending:
                    future.cancel()
    else:
        for index, arguments in calls:
            try:
                result = function(*arguments)
            except Exception as exc:  # as a pool's call that raised: the caller decides
                result = exc
            yield index, result


_STARTING: dict[int, Any] = {}
"""LocalClusters being started ahead of their batch (:func:`start_local_cluster`), by worker count."""


def start_local_cluster(workers: int) -> None:
    """Start the dask LocalCluster of a ``--dask`` batch now: its forkserver (:func:`_start_forkserver`) imports
    what a chunk needs while this process reads the sweep, and the cluster starts in a thread, forking its
    workers from that forkserver once it is ready; :func:`_client` takes it up. :func:`close_local_clusters`
    closes one that no batch took (the batch failed before it ran)."""
    from concurrent.futures import ThreadPoolExecutor

    if workers not in _STARTING:
        _start_forkserver(_worker_modules())
        pool = ThreadPoolExecutor(1)
        _STARTING[workers] = pool.submit(_local_cluster, workers)
        pool.shutdown(wait=False)  # the thread ends once the cluster is up


def close_local_clusters() -> None:
    """Close the LocalClusters started ahead that no batch took."""
    while _STARTING:
        _, starting = _STARTING.popitem()
        try:
            starting.result().close()
        except Exception:  # it failed to start: nothing to close, and the batch has reported its own error
            pass


LOCAL_CLUSTER_SETTINGS: dict[str, Any] = {
    # the workers' sampling profiler feeds only the dashboard, which is off, and takes CPU from the chunks
    "distributed.worker.profile.enabled": False,
    # without dask's MALLOC_TRIM_THRESHOLD_=65536, which returns freed memory to the system at once:
    # a chunk's many large temporary arrays then cost page faults: 2-3x its CPU time on 2 cores
    "distributed.nanny.pre-spawn-environ": {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1},
    # the watch for a blocked event loop (a warning in the log) and the resource monitor (the
    # dashboard's figures) wake every 20 ms and 500 ms in the scheduler, each nanny and each worker:
    # on an idle LocalCluster of 2, 5 % of a core in the command and 2 % in each worker
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    # memory checked every second, not every 100 ms: a chunk's memory is bounded (MAX_CHUNK points)
    "distributed.worker.memory.monitor-interval": "1s",
    # two chunks in flight per worker thread and the next submitted as one finishes leave nothing to steal
    "distributed.scheduler.work-stealing": False,
    # workers forked from one process that has imported distributed, numpy and pandas, not each
    # started from a fresh interpreter that imports them again
    "distributed.worker.multiprocessing-method": "forkserver",
}
"""The dask settings of the LocalCluster of ``batch --dask`` (not of a cluster of the user's own)."""


def _local_cluster(workers: int):
    """A dask LocalCluster of ``workers`` single-threaded worker processes, with no dashboard, and dask's
    periodic bookkeeping slowed down (:data:`LOCAL_CLUSTER_SETTINGS`): on a machine whose cores the
    chunks fill, what the scheduler, the nannies and the workers do besides takes CPU from the chunks."""
    import dask.config
    from distributed import LocalCluster

    modules = _worker_modules()
    with dask.config.set(LOCAL_CLUSTER_SETTINGS):
        _start_forkserver(modules)  # started already by start_local_cluster, or now
        return LocalCluster(
            n_workers=max(workers, 1),
            threads_per_worker=1,
            processes=True,
            preload=modules,
            # None turns the dashboard off, as LocalCluster's docstring says; its annotation says str only
            dashboard_address=None,  # pyright: ignore[reportArgumentType]
        )


def _worker_modules() -> list[str]:
    """What a chunk imports, imported as each worker of the LocalCluster starts (while the sweep is read), not
    at its first chunk."""
    from .extras import installed

    return ["pandas", "costmodel.domain.portfolio", "costmodel.dataset"] + (
        ["pyarrow.parquet"] if installed("pyarrow") else []
    )


FORKSERVER_SEED = "6640"
"""The hash seed (``PYTHONHASHSEED``) dask's nanny gives each worker it starts, unless one is set: the
workers forked from the forkserver get it from the forkserver."""


def _start_forkserver(modules: list[str]) -> None:
    """Start the forkserver that the LocalCluster forks its workers from (unless it runs already), importing
    distributed, numpy, pandas and ``modules`` and reading the bundled catalog (:mod:`costmodel.worker_preload`)
    once, so that each worker starts with them.

    Started here, before the cluster, it imports while this process reads the sweep and imports dask; left
    to dask, it starts at the first worker, after both. It gets the environment a dask nanny sets before it
    starts a worker (``distributed.nanny.pre-spawn-environ`` of :data:`LOCAL_CLUSTER_SETTINGS` and dask's
    hash seed, neither replacing a variable already set), which a worker forked from it inherits; this
    process's environment is left as it was. The forkserver is multiprocessing's, one per process, the
    one dask's ``distributed.worker.multiprocessing-method: forkserver`` uses (tested with distributed
    2026.8.0).
    """
    import multiprocessing
    from multiprocessing import forkserver

    environ = LOCAL_CLUSTER_SETTINGS["distributed.nanny.pre-spawn-environ"]
    added = {name: str(value) for name, value in environ.items() if name not in os.environ}
    if os.environ.get("PYTHONHASHSEED") in (None, "0"):
        added["PYTHONHASHSEED"] = FORKSERVER_SEED
    before = {name: os.environ.get(name) for name in added}
    os.environ.update(added)
    try:
        preload = ["distributed", "numpy", "pandas", *modules, "costmodel.worker_preload"]
        multiprocessing.get_context("forkserver").set_forkserver_preload(preload)
        forkserver.ensure_running()
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _client(workers: int, scheduler: str):
    """A dask client on a LocalCluster of ``workers`` processes (``scheduler="local"``) or on the
    scheduler at an address, and the cluster to close after (None for an address).

    Raises
    ------
    SchedulerError
        No dask scheduler answers at the address within :data:`SCHEDULER_TIMEOUT`.
    """
    from .extras import need

    need("distributed", "batch on a dask cluster (scheduler)")
    from distributed import Client

    if scheduler == "local":
        starting = _STARTING.pop(workers, None)
        cluster = starting.result() if starting is not None else _local_cluster(workers)
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(
            None,
            [
                (
                    "--scheduler",
                    scheduler,
                    f"no dask scheduler answers there within {SCHEDULER_TIMEOUT:g} s ({type(exc).__name__}: {exc})",
                )
            ],
        ) from None


def _on_dask(
    function: Callable[..., Any], calls: Iterable[tuple[int, tuple]], workers: int, scheduler: str
) -> Iterator[tuple[int, Any]]:
    """:func:`_completed` on a dask cluster: calls submitted as the cluster's workers take them (two
    per worker thread in flight), each tried again :data:`RETRIES` times if it raises or its worker
    dies, and released once its result is read (workers keep no result to the end)."""
    from distributed import as_completed

    client, cluster = _client(workers, scheduler)
    try:
        nthreads = client.nthreads()
        assert isinstance(nthreads, dict)  # a client made without asynchronous=True answers at once
        threads = sum(nthreads.values()) or max(workers, 1)
        waiting = iter(calls)
        keys: dict[Key, int] = {}
        running = as_completed(with_results=False)

        def submit(count: int) -> None:
            for index, arguments in waiting:
                future = client.submit(function, *arguments, pure=False, retries=RETRIES)
                keys[future.key] = index
                running.add(future)
                count -= 1
                if count <= 0:
                    return

        submit(_in_flight(threads))
        for future in running:
            index = keys.pop(future.key)
            if future.status == "error":
                exception = future.exception()
                yield index, exception if isinstance(exception, BaseException) else RuntimeError(str(exception))
            else:
                yield index, future.result()
            future.release()
            submit(1)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# --- streamed sweeps ---------------------------------------------------------------------------


def run_chunk(
    task: Task, index: int, header: list[str], units: dict[str, str], parquet: bool, folder: str | None = None
):
    """One chunk of a streamed sweep, run where it is sent: its rows as CSV lines and Parquet
    (:func:`costmodel.dataset.encode_chunk`). A chunk whose rows cannot be typed (a value a column
    cannot hold) gives its error rows, with the reason.

    With ``folder`` (the parts folder, when the chunk runs on the machine that holds it), the chunk is
    stored there (:func:`costmodel.dataset.store_part`) and only its summary is given back: its rows
    never travel to the command.
    """
    from .dataset import encode_chunk, store_part

    columns = run_task(task)
    try:
        chunk = encode_chunk(index, columns, header, units, parquet)
    except (ValueError, KeyError) as exc:
        message = f"{task.name}: points {task.first_point}-{task.first_point + task.size - 1}: {exc}"
        chunk = encode_chunk(index, error_columns(task, message), header, units, parquet)
    return store_part(folder, chunk) if folder is not None else chunk


def lost_chunk(task: Task, index: int, header: list[str], units: dict[str, str], parquet: bool, exc: BaseException):
    """The error rows of a chunk that did not run (its process died, or it failed on every try)."""
    from .dataset import encode_chunk

    message = (
        f"chunk {index} (points {task.first_point}-{task.first_point + task.size - 1}) did not run: "
        f"{type(exc).__name__}: {exc}"
    ).replace("\n", "; ")
    chunk = encode_chunk(index, error_columns(task, message), header, units, parquet)
    chunk.lost = True
    return chunk


def sweep_header(head, task: Task, units: dict[str, str]) -> list[str]:
    """The portfolio's columns, in order, for the rows of ``head`` (a frame: the scenario files' rows)
    followed by a sweep's: those of :func:`portfolio_frame` over them both, found from the sweep's first
    point (every point of a sweep has the same columns)."""
    import pandas as pd

    from .columns import PORTFOLIO

    first = Task(task.name, task.path, task.catalog_dir, {p: np.asarray(v)[:1] for p, v in task.values.items()}, 0)
    probe = pd.DataFrame(run_task(first))
    return list(PORTFOLIO.typed(pd.concat([head.iloc[:0], probe.iloc[:0]]), units).columns)


def sweep_work(tasks: list[Task], header: list[str], units: dict[str, str], parquet: bool) -> str:
    """The fingerprint of a streamed sweep (:func:`costmodel.dataset.fingerprint`): the package's version,
    the table's columns and units, each chunk's points and values, and the base scenario's and the
    catalog folder's files. ``--resume`` keeps only parts written for the same fingerprint."""
    from . import __version__
    from .dataset import fingerprint

    def parts() -> Iterator[Any]:
        yield from (__version__, header, units, parquet)
        for task in tasks[:1]:
            yield from (_stamp(scenario_path(task.path)), scenario_path(task.path).read_bytes())
            if task.catalog_dir:
                yield from (p.read_bytes() for p in sorted(Path(task.catalog_dir).iterdir()) if p.is_file())
        for task in tasks:
            yield [task.name, task.path, task.catalog_dir, task.first_point, task.size, sorted(task.values)]
            for path in sorted(task.values):  # one chunk's values at a time: no copy of the whole sweep
                yield np.ascontiguousarray(task.values[path], dtype=float).tobytes()

    return fingerprint(parts())


def stream_sweep(
    tasks: list[Task],
    parts,
    header: list[str],
    units: dict[str, str],
    workers: int = 1,
    scheduler: str | None = None,
    fail_fast: bool = False,
    progress: bool | None = None,
    parquet: bool = False,
) -> tuple[int, int]:
    """Run a sweep's chunks and store each in ``parts`` (:class:`costmodel.dataset.Parts`) as it finishes,
    skipping the chunks stored already (``--resume``).

    Parameters
    ----------
    tasks
        The sweep's chunks (:func:`sweep_tasks`); a chunk's number is its place in this list.
    parts
        Where finished chunks go.
    header
        The table's columns (:func:`sweep_header`).
    units
        Units of the swept inputs' columns, by input path.
    workers, scheduler
        Where the chunks run, as for :func:`run_tasks`.
    fail_fast
        Stop at the first chunk with an error row; chunks not run are left out.
    progress
        Show a progress bar on stderr; default: only when stderr is a terminal.
    parquet
        Store each chunk's rows as Parquet as well (pyarrow where the chunks run).

    Returns
    -------
    tuple of int
        Chunks stored by this run, and chunks stored before it (resumed from).
    """
    done = parts.done()
    todo = [i for i in range(len(tasks)) if i not in done]
    bar = _progress(sum(tasks[i].size for i in todo), progress)
    stored = 0
    try:
        # here, in a process pool or on a LocalCluster, the chunk's process stores it in the parts folder
        folder = str(parts.folder) if scheduler in (None, "local") else None
        calls = ((i, (tasks[i], i, header, units, parquet, folder)) for i in todo)
        for index, chunk in _completed(run_chunk, calls, workers, scheduler, len(todo)):
            if isinstance(chunk, BaseException):
                if isinstance(chunk, KeyboardInterrupt):
                    raise chunk
                chunk = lost_chunk(tasks[index], index, header, units, parquet, chunk)
            parts.add(chunk)
            stored += 1
            bar.update(chunk.rows)
            if fail_fast and chunk.failures:
                break
    finally:
        bar.close()
    return stored, len(done)


# --- writing -----------------------------------------------------------------------------------


def portfolio_frame(results: list[dict[str, Any]]):
    """The portfolio as a pandas DataFrame from the tasks' columns, typed by
    :data:`costmodel.columns.PORTFOLIO`: every fixed column, in order, whatever the rows hold (with no
    result: no row, every column typed), then the further offers' columns and the swept inputs."""
    import pandas as pd

    from .columns import PORTFOLIO

    if results and all(rows_of(columns) == 1 for columns in results):  # scenario files: one row each
        return PORTFOLIO.typed(_one_frame(results))
    frame = pd.concat([pd.DataFrame(columns) for columns in results], ignore_index=True) if results else pd.DataFrame()
    return PORTFOLIO.typed(frame)


def _one_frame(results: list[dict[str, Any]]):
    """One-row results as one DataFrame, as ``pandas.concat`` of a frame each gives it: every column in the
    order it first appears, NaN in the rows without it; built column by column (a frame a row cost
    3 ms a file, more than reading and validating the file)."""
    import pandas as pd

    names = dict.fromkeys(name for columns in results for name in columns)
    return pd.DataFrame(
        {
            name: pd.Series([columns[name][0] if name in columns else np.nan for columns in results], dtype=object)
            for name in names
        }
    )


def write_portfolio(
    frame, out: str | Path, xlsx: bool = False, units: dict[str, str] | None = None, parquet: bool | None = None
) -> list[Path]:
    """Write portfolio.csv (with its CSVW sidecar portfolio.csv-metadata.json) and portfolio.parquet under
    ``out``; with ``xlsx``, portfolio.xlsx as well.

    Every file holds the columns of :data:`costmodel.columns.PORTFOLIO` with their types; the units are
    in the sidecar and in the Parquet fields' metadata. All are written to temporary files beside
    their final names and renamed into place only once all are whole
    (:func:`costmodel.files.write_all_atomically`): a failure or an interrupt leaves the earlier
    files as they were. ``out`` and its missing parents are made. The CSV and the workbook hold
    text as :func:`costmodel.files.spreadsheet_text` gives it (never a formula); the Parquet file,
    for programs, holds the text as it is.

    Parameters
    ----------
    frame
        The portfolio (:func:`portfolio_frame`).
    out
        The folder.
    xlsx
        Write portfolio.xlsx too.
    units
        Units of the swept inputs' columns, by input path (:func:`swept_units`).
    parquet
        Write portfolio.parquet: True (raises without pyarrow), False, or None: when pyarrow is installed.

    Raises
    ------
    OutputPathError
        ``out`` is a file, or in one, or cannot be made.
    ExtraNotInstalled
        ``parquet=True`` without pyarrow.
    """
    from .columns import PORTFOLIO, metadata_name
    from .extras import installed
    from .files import made_folder, write_all_atomically, write_csv

    frame = PORTFOLIO.typed(frame, units)
    if parquet is None:
        parquet = installed("pyarrow")
    writers = [
        (Path(out) / "portfolio.csv", lambda p: write_csv(frame, p)),
        (Path(out) / metadata_name("portfolio.csv"), PORTFOLIO.csv_metadata_writer(frame, "portfolio.csv", units)),
    ]
    if parquet:
        writers.append((Path(out) / "portfolio.parquet", PORTFOLIO.parquet_writer(frame, units)))
    if xlsx:
        writers.append((Path(out) / "portfolio.xlsx", lambda p: _write_sheet(frame, p)))
    out = made_folder(out, "--out")
    return write_all_atomically([(out / path.name, write) for path, write in writers])


def swept_units(base: str | Path, paths: Iterable[str], catalog_dir: str | None = None) -> dict[str, str]:
    """The unit of each swept input of a sweep on ``base`` (as the scenario schema gives it), by path."""
    from .catalog import catalog_from
    from .resolved import as_resolved
    from .scenarios import load_scenario
    from .schema.inputs import THROUGHPUT_INPUT, input_fields

    r = as_resolved(load_scenario(base, catalog_from(catalog_dir)))
    units = {f.path: f.unit for f in input_fields(r.scenario, r.catalog)}
    units.setdefault(THROUGHPUT_INPUT, "output tokens/s/GPU")
    return {p: units[p] for p in paths if units.get(p)}


def _write_sheet(frame, path: Path) -> None:
    """The portfolio as the "Portfolio" sheet of a workbook (XlsxWriter): header frozen, filters on,
    money and volumes with thousands separators; empty cells where the table has none."""
    import pandas as pd

    from .files import spreadsheet_frame

    with pd.ExcelWriter(
        path,
        engine="xlsxwriter",
        engine_kwargs={
            "options": {
                "strings_to_formulas": False,
                "strings_to_urls": False,
                "strings_to_numbers": False,
                "nan_inf_to_errors": False,
            }
        },
    ) as writer:
        spreadsheet_frame(frame).to_excel(writer, sheet_name="Portfolio", index=False)
        sheet = writer.sheets["Portfolio"]
        number = writer.book.add_format({"num_format": "#,##0.00"})
        for column, name in enumerate(frame.columns):
            numeric = pd.api.types.is_float_dtype(frame[name])
            sheet.set_column(
                column, column, 16 if numeric else max(10, min(40, len(name) + 2)), number if numeric else None
            )
        sheet.freeze_panes(1, 0)
        sheet.autofilter(0, 0, len(frame), len(frame.columns) - 1)

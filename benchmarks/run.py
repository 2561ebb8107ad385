"""Speed of costmodel on this machine: a script that prints figures and ratios, not a test.

Run from the repository root after `make test` (or any install):

    .venv/bin/python benchmarks/run.py [--samples 1000000] [--repeats 3]

It prints, for the reference scenario `llama70b-vs-api` (three options, five uncertain inputs):

1. Monte Carlo: samples per second of a full three-option comparison at N samples, and its
   ratio to a plain numpy floor of the same work, timed alone: numpy's own generators drawing N
   values of each uncertain input from its distribution, then the same number of elementwise
   array operations (counted while the Monte Carlo path runs) on arrays of N float64. Also
   printed: the ratio to the floor as first defined, where each input's draw counted as one
   multiplication (a triangular draw costs about twenty).
2. The time of a 10,000-point volume sweep (cost and GPU count of every option, one call),
   and of the cheapest-mix search over an 8,760-hour profile (from the synthetic job log).
3. The time of `import costmodel` in a fresh interpreter, next to a bare interpreter's start.
4. The whole-process time of `costmodel report` for one scenario, next to the time papermill
   takes to execute an empty notebook (one empty code cell) in a fresh process: the two run in
   turns, `--repeats` times each (at least 2), and the fastest of each is compared.
5. The what-if panel (`costmodel.what_if`) for R1 and R2: time from a slider's new value to the
   redrawn widgets (compare again, verdict, costs, break-evens, the chart's Vega spec), over
   each default slider moved to several positions. The browser then draws the chart.
6. Training runs over arrays (`costmodel.training_cost_grid`): 1,000 configurations of R4
   (tokens, MFU, cluster GPUs, rent price) costed with every option in one call, against
   llm-analysis 0.2.2 computing GPU-hours alone for the same 1,000 configurations one call each
   (a dense 70 B model on H100, its bundled configs; the dev extras install it), and against one
   `training_cost_grid` call per configuration; then 10^6 configurations in one call.
7. Job logs: reading a generated 10^6-row sacct log (scripts/make_job_log.py, in a temporary
   folder) into hourly demand, next to a plain pandas ``read_csv`` of the same file; and
   `costmodel compare` of a scenario whose log holds one job on 10^6 GPUs, with the mix chart's
   cost-against-level curve for it.
8. ``costmodel.compare`` of R1 in a fresh process, first and second call, and the first read of its
   ``uncertainty`` (the Monte Carlo, tornado and Sobol it defers).
9. Bills: reading a 10^5-row FOCUS export (the bundled sample's rows repeated, AWS, Google Cloud and
   Azure instance rows among them) into spend, GPU-hours and tokens (``costmodel.bills.read_summary``),
   in CPU seconds, next to the floor of parsing the same file with ``csv.DictReader`` alone.
10. ``costmodel compare --json`` of R2 without its finance block (the monthly cost hour by hour, its
   100,000 samples of the demand's volume each against 8,760 hours): CPU seconds and peak resident
   memory, next to the same command with ``--no-uncertainty``.

Targets: N = 10^6 samples in under 1 s on one core; the report within 2x the empty notebook;
a what-if update under 100 ms; 1,000 training configurations at least 50x faster than llm-analysis;
a 10^6-row job log read in <= 3 s; a 10^5-row FOCUS bill within 10x its plain CSV parse; the
hour-by-hour compare --json within 600 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent


def best_of(repeats: int, run, clock=time.perf_counter) -> float:
    """Fastest of several timed runs, on ``clock``: wall time by default, ``time.process_time`` for the CPU
    (user + system) of this process. [s]"""
    times = []
    for _ in range(repeats):
        start = clock()
        run()
        times.append(clock() - start)
    return min(times)


class Counted(np.ndarray):
    """An array that counts the ufunc calls made on arrays of its size."""

    calls = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        Counted.calls += 1
        plain = [i.view(np.ndarray) if isinstance(i, Counted) else i for i in inputs]
        result = getattr(ufunc, method)(*plain, **kwargs)
        return result.view(Counted) if isinstance(result, np.ndarray) and result.ndim else result


def numpy_draws(scenario, samples: int):
    """The floor of drawing a scenario's uncertain inputs: numpy's own generator for each input's
    distribution, N values each, with nothing of costmodel (no clipping, no bookkeeping)."""
    rng = np.random.default_rng(0)
    draws = []
    for d in scenario.uncertainty.distributions.values():
        if d.distribution == "uniform":
            draws.append(lambda d=d: rng.uniform(d.low, d.high, samples))
        elif d.distribution == "triangular":
            draws.append(lambda d=d: rng.triangular(d.low, d.mode, d.high, samples))
        elif d.distribution == "normal":
            draws.append(lambda d=d: rng.normal(d.mean, d.sd, samples))
        elif d.distribution == "lognormal":
            draws.append(lambda d=d: rng.lognormal(np.log(d.median), d.sigma, samples))
        else:
            draws.append(lambda d=d: rng.choice(np.asarray(d.values, dtype=float), samples))

    def run():
        for draw in draws:
            draw()

    return run


def monte_carlo(samples: int, repeats: int) -> dict[str, float]:
    import costmodel
    from costmodel.domain import uncertainty

    scenario = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))

    def run():
        uncertainty.monte_carlo(scenario, samples=samples)

    seconds = best_of(repeats, run)

    # count the elementwise operations the same path performs on arrays of N samples
    drawn, _ = uncertainty.draw_inputs(scenario, samples)
    counted = {path: values.view(Counted) for path, values in drawn.items()}
    Counted.calls = 0
    sampled = uncertainty.with_values(scenario, counted)
    costs = uncertainty.option_costs(sampled)
    np.min(np.stack([np.asarray(c) for c in costs.values()]), axis=0)
    operations = Counted.calls

    a = np.random.default_rng(0).random(samples) + 1.0
    b = np.random.default_rng(1).random(samples) + 1.0

    def arithmetic():
        x = a
        for _ in range(operations):
            x = x * b

    draws = numpy_draws(scenario, samples)

    def floor():  # numpy drawing the same inputs from the same distributions, then the same count of operations
        draws()
        arithmetic()

    def floor_one_per_draw():  # the floor as first defined: each input's draw counted as one multiplication
        x = a
        for _ in range(operations + len(drawn)):
            x = x * b

    floor_seconds = best_of(repeats, floor)
    draw_seconds = best_of(repeats, draws)
    one_per_draw_seconds = best_of(repeats, floor_one_per_draw)
    # CPU time too, alternating with the floor: under load the wall clock of either may include another's turn
    turns = [(best_of(1, run, time.process_time), best_of(1, floor, time.process_time)) for _ in range(repeats)]
    cpu = min(t for t, _ in turns) / min(f for _, f in turns)
    return {
        "samples": samples,
        "seconds": seconds,
        "cpu_ratio_to_floor": cpu,
        "samples_per_second": samples / seconds,
        "inputs_drawn": len(drawn),
        "elementwise_operations": operations,
        "numpy_draws_seconds": draw_seconds,
        "numpy_floor_seconds": floor_seconds,
        "ratio_to_floor": seconds / floor_seconds,
        "ratio_to_one_per_draw_floor": seconds / one_per_draw_seconds,
    }


def sweep(repeats: int) -> dict[str, float]:
    import costmodel

    scenario = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    volumes = np.linspace(0, 1e9, 10_000)
    return {"points": 10_000, "seconds": best_of(repeats, lambda: costmodel.cost_sweep(scenario, volumes))}


def mix_search(repeats: int) -> dict[str, float]:
    import costmodel
    from costmodel.domain import mix

    scenario = costmodel.resolve(costmodel.load_scenario("h200-job-log"))
    series = mix.hourly_demand(scenario)

    def run():
        mix.cheapest_mix(scenario, mix.hourly_demand(scenario))

    return {"hours": len(series), "peak_gpus": float(series.max()), "seconds": best_of(repeats, run)}


def fleet(repeats: int) -> dict[str, float]:
    """CPU time of ``compare_fleet`` on the bundled fleets, against one member's cheapest mix in the same run."""
    import costmodel
    from costmodel.domain import mix
    from costmodel.domain.fleet import compare_fleet
    from costmodel.paths import scenario_path

    folder = scenario_path("h200-job-log").parent.parent / "fleets"
    scenario = costmodel.resolve(costmodel.load_scenario("h200-job-log"))
    compare_fleet(folder / "two-teams.yaml")  # catalogs loaded, nothing cached by the fleet

    def cpu(run) -> float:
        return best_of(repeats, run, time.process_time)

    return {
        "floor_seconds": cpu(lambda: mix.cheapest_mix(scenario, mix.hourly_demand(scenario))),
        "two_teams_seconds": cpu(lambda: compare_fleet(folder / "two-teams.yaml")),
        "serve_and_finetune_seconds": cpu(lambda: compare_fleet(folder / "serve-and-finetune.yaml")),
    }


def process_seconds(command: list[str], repeats: int, **kwargs) -> float:
    def run():
        subprocess.run(command, check=True, capture_output=True, **kwargs)

    return best_of(repeats, run)


def imports(repeats: int) -> dict[str, float]:
    python = sys.executable
    return {
        "import_costmodel_seconds": process_seconds([python, "-c", "import costmodel"], repeats),
        "bare_interpreter_seconds": process_seconds([python, "-c", "pass"], repeats),
    }


def catalog_commands(repeats: int) -> dict[str, float]:
    """``costmodel catalog search mi300x`` and ``costmodel catalog show`` of an API offer as whole processes
    (the catalog loaded and validated each time), and ``load_catalog()`` in one process."""
    from costmodel.catalog import load_catalog

    costmodel_command = str(BIN / "costmodel")
    return {
        "search_seconds": process_seconds([costmodel_command, "catalog", "search", "mi300x"], repeats),
        "show_seconds": process_seconds([costmodel_command, "catalog", "show", "groq-qwen-qwen3-32b"], repeats),
        "load_seconds": best_of(repeats, load_catalog),
    }


def compare_json(repeats: int) -> dict[str, float]:
    """``costmodel compare h200-24gpu-cluster --json`` as a whole process, with and without the uncertainty section."""
    command = [str(BIN / "costmodel"), "compare", "h200-24gpu-cluster", "--json"]
    return {
        "with_uncertainty_seconds": process_seconds(command, repeats),
        "without_uncertainty_seconds": process_seconds([*command, "--no-uncertainty"], repeats),
    }


HOURLY_PEAK_BOUND = 600 * 2**20
"""Peak resident memory allowed to ``compare --json`` of R2 without its finance block (600 MiB, as
tests/test_uncertainty.py allows). [B]"""


def compare_json_hourly(repeats: int) -> dict[str, float]:
    """``costmodel compare --json`` of R2 without its finance block (the monthly cost hour by hour, 100,000
    samples of the demand's volume against 8,760 hours) as a whole process: the fewest CPU seconds (user +
    system) and the highest peak resident memory of ``repeats`` runs, with and without the uncertainty section
    (its floor in the same run). [s], [B]"""
    import yaml

    data = yaml.safe_load((ROOT / "data" / "scenarios" / "h200-24gpu-cluster.yaml").read_text(encoding="utf-8"))
    data.pop("finance")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r2_nofin.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        command = [str(BIN / "costmodel"), "compare", str(path), "--json"]
        runs = [(tree_peaks(command, 600), tree_peaks([*command, "--no-uncertainty"], 600)) for _ in range(repeats)]
    if any(run.code != 0 for pair in runs for run in pair):
        raise RuntimeError("costmodel compare of R2 without its finance block failed")
    return {
        "cpu_seconds": min(run.cpu_seconds for run, _ in runs),
        "peak_bytes": max(run.root_peak for run, _ in runs),
        "floor_cpu_seconds": min(floor.cpu_seconds for _, floor in runs),
        "floor_peak_bytes": max(floor.root_peak for _, floor in runs),
    }


def compare_first_call(repeats: int) -> dict[str, float]:
    """``costmodel.compare`` of R1 in a fresh process: the first call, a second call, and reading the first
    result's ``uncertainty`` (Monte Carlo, tornado and Sobol, run on that first read); the fastest of
    ``repeats`` processes each. [s]"""
    code = (
        "import json, time, costmodel\n"
        "s = costmodel.load_scenario('llama70b-vs-api')\n"
        "t0 = time.perf_counter(); result = costmodel.compare(s)\n"
        "t1 = time.perf_counter(); costmodel.compare(s)\n"
        "t2 = time.perf_counter(); result.uncertainty\n"
        "t3 = time.perf_counter()\n"
        "print(json.dumps([t1 - t0, t2 - t1, t3 - t2]))\n"
    )
    runs = [
        json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
        for _ in range(max(repeats, 1))
    ]
    first, second, uncertainty = (min(column) for column in zip(*runs, strict=True))
    return {"first_seconds": first, "second_seconds": second, "uncertainty_seconds": uncertainty}


def report(repeats: int) -> dict[str, float]:
    """The fastest of ``repeats`` runs each of ``costmodel report llama70b-vs-api`` and of papermill on an
    empty notebook, as whole processes, run in turns (papermill, report, papermill, report, ...): this
    machine's speed drifts by 20 % within minutes, and in turns both see the same spells. [s]"""
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.ipynb"
        empty.write_text(
            json.dumps(
                {
                    "cells": [
                        {
                            "cell_type": "code",
                            "execution_count": None,
                            "id": "empty",
                            "metadata": {},
                            "outputs": [],
                            "source": "",
                        }
                    ],
                    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                    "nbformat": 4,
                    "nbformat_minor": 5,
                }
            )
        )
        papermill, whole = [], []
        for _ in range(repeats):
            papermill.append(
                process_seconds(
                    [str(BIN / "papermill"), str(empty), str(Path(folder) / "out.ipynb"), "--no-progress-bar"], 1
                )
            )
            whole.append(process_seconds([str(BIN / "costmodel"), "report", "llama70b-vs-api", "--out", folder], 1))
    return {
        "report_seconds": min(whole),
        "empty_notebook_seconds": min(papermill),
        "ratio_to_empty_notebook": min(whole) / min(papermill),
    }


def portfolio_sweep(repeats: int) -> dict[str, float]:
    """10,000 points of R1 (rent price x API output price x volume): portfolio columns, break-evens included."""
    import costmodel
    from costmodel.domain.portfolio import grid_points, sweep_columns

    scenario = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    values = grid_points(
        {
            "options.rent.price_per_gpu_hour": np.linspace(2.0, 7.0, 25),
            "options.api.output_price_per_million": np.linspace(10.0, 25.0, 20),
            "workload.tokens_per_day": np.geomspace(1e6, 1e8, 20),
        }
    )
    seconds = best_of(repeats, lambda: sweep_columns(scenario, values, "llama70b-vs-api"))
    with tempfile.TemporaryDirectory() as folder:
        sweep_file = Path(folder) / "sweep.yaml"
        sweep_file.write_text(
            "base: llama70b-vs-api\nchunk_size: 10000\ngrid:\n"
            "  options.rent.price_per_gpu_hour: {low: 2.0, high: 7.0, points: 25}\n"
            "  options.api.output_price_per_million: {low: 10, high: 25, points: 20}\n"
            "  workload.tokens_per_day: {low: 1.0e+6, high: 1.0e+8, points: 20, scale: log}\n"
        )
        command = process_seconds(
            [str(BIN / "costmodel"), "batch", "--sweep", str(sweep_file), "--out", str(Path(folder) / "out")], 1
        )
    return {"points": len(values["workload.tokens_per_day"]), "seconds": seconds, "command_seconds": command}


@dataclass
class TreeRun:
    """What :func:`tree_peaks` saw of a command's process tree.

    Attributes
    ----------
    seconds
        Wall time. [s]
    code
        Exit code.
    root_peak
        Peak resident memory of the command's own process (``VmHWM``). [B]
    other_peaks
        Peak resident memory of each other process of its tree, largest first. [B]
    cpu_seconds
        CPU time (user + system) of every process of the tree, each read until it exits (the last
        ``interval`` of a process that exits between two readings is missed). [s]
    first_part, last_part
        For a streamed sweep whose parts folder is watched: time from the start to the first chunk's
        record in the folder, and to the last one (NaN when not watched or none was seen). [s]
    """

    seconds: float
    code: int
    root_peak: int
    other_peaks: list[int]
    cpu_seconds: float
    first_part: float = float("nan")
    last_part: float = float("nan")


def tree_peaks(command: list[str], timeout: float, interval: float = 0.1, parts: Path | None = None) -> TreeRun:
    """Run ``command`` and follow each process of its tree (a dask worker forked by a forkserver included):
    its wall time, exit code, peak resident memory per process (``VmHWM`` of /proc/PID/status) and CPU
    time (psutil's ``cpu_times``), each read until the process exits; with ``parts`` (a sweep's parts
    folder), when its first and its last chunk record appeared, each seen within ``interval``."""
    import psutil

    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks: dict[int, int] = {}
    cpu: dict[int, float] = {}
    records, first_part, last_part = 0, float("nan"), float("nan")

    def look() -> None:
        try:
            tree = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        for each in tree:
            try:
                times = each.cpu_times()
                cpu[each.pid] = max(cpu.get(each.pid, 0.0), times.user + times.system)
                for line in Path(f"/proc/{each.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peaks[each.pid] = max(peaks.get(each.pid, 0), int(line.split()[1]) * 1024)
            except (OSError, psutil.Error):
                pass  # the process ended between the listing and the reading

    while process.poll() is None:
        look()
        found = len(list(parts.glob("_part-*.json"))) if parts is not None and parts.is_dir() else 0
        if found > records:
            records, last_part = found, time.perf_counter() - start
            first_part = last_part if np.isnan(first_part) else first_part
        if time.perf_counter() - start > timeout:
            process.kill()
            break
        time.sleep(interval)
    code = process.wait()
    seconds = time.perf_counter() - start
    if code != 0:
        print(process.stderr.read().decode() if process.stderr else "", file=sys.stderr)
    root = peaks.pop(process.pid, 0)
    return TreeRun(seconds, code, root, sorted(peaks.values(), reverse=True), sum(cpu.values()), first_part, last_part)


def sweep_file(folder: Path, points: int, chunk: int | None = None) -> Path:
    """A grid sweep of R1 of ``points`` points (a power of ten, at least 100): rent price x API output
    price (10 values each) x volume (the rest, log-spaced)."""
    path = folder / f"sweep-{points}.yaml"
    path.write_text(
        "base: llama70b-vs-api\n" + (f"chunk_size: {chunk}\n" if chunk else "") + "grid:\n"
        "  options.rent.price_per_gpu_hour: {low: 2.0, high: 7.0, points: 10}\n"
        "  options.api.output_price_per_million: {low: 10, high: 25, points: 10}\n"
        f"  workload.tokens_per_day: {{low: 1.0e+6, high: 1.0e+8, points: {points // 100}, scale: log}}\n"
    )
    return path


def _sweep_command(folder: Path, points: int, workers: int, engine: str) -> list[str]:
    """`costmodel batch --sweep` of :func:`sweep_file` on ``workers`` (``engine``: "pool" or "dask")."""
    command = [str(BIN / "costmodel"), "batch", "--sweep", str(sweep_file(folder, points))]
    command += ["--out", str(folder / f"out-{points}"), "--workers", str(workers)]
    return command + (["--dask"] if engine == "dask" else [])


def _clear(folder: Path) -> int:
    """Bytes of the files in ``folder``, then removed (a 10^7-point portfolio is gigabytes)."""
    size = 0
    for f in folder.iterdir() if folder.is_dir() else []:
        size += f.stat().st_size
        f.unlink()
    return size


def sweep_floor(points: int) -> float:
    """The compute alone: seconds of the portfolio columns of :func:`sweep_file`'s points in this process, in
    calls of at most ``costmodel.batch.MAX_CHUNK`` points (one chunk each), with no file written. [s]"""
    import costmodel
    from costmodel.batch import MAX_CHUNK
    from costmodel.domain.portfolio import grid_points, sweep_columns

    scenario = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    values = grid_points(
        {
            "options.rent.price_per_gpu_hour": np.linspace(2.0, 7.0, 10),
            "options.api.output_price_per_million": np.linspace(10.0, 25.0, 10),
            "workload.tokens_per_day": np.geomspace(1e6, 1e8, points // 100),
        }
    )
    start = time.perf_counter()
    for first in range(0, points, MAX_CHUNK):
        sweep_columns(scenario, {p: v[first : first + MAX_CHUNK] for p, v in values.items()}, "r1", first)
    return time.perf_counter() - start


def sweep_scaling(sizes: tuple[int, ...], workers: int = 2, engine: str = "pool", timeout: float = 900) -> list[dict]:
    """`costmodel batch --sweep` of R1 at each size on ``workers``: whole-process seconds, the peak resident
    memory of the command's process and of its largest worker, the output's size, and the time floor
    (:func:`sweep_floor`)."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for points in sizes:
            run = tree_peaks(_sweep_command(Path(folder), points, workers, engine), timeout)
            rows.append(
                {
                    "points": points,
                    "seconds": run.seconds if run.code == 0 else float("nan"),
                    "client_peak_bytes": run.root_peak,
                    "worker_peak_bytes": max(run.other_peaks, default=0),
                    "output_bytes": _clear(Path(folder) / f"out-{points}"),
                    "floor_seconds": sweep_floor(points) if points <= 1_000_000 else float("nan"),
                }
            )
    return rows


def sweep_engines(points: int, runs: int, workers: int = 2, timeout: float = 900) -> dict[str, list[TreeRun]]:
    """The same sweep on a process pool and on a dask LocalCluster of ``workers``, whole process, run in turns
    (pool, dask, pool, ...) so that other load on the machine falls on both alike."""
    found: dict[str, list[TreeRun]] = {"pool": [], "dask": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(runs):
            for engine in ("pool", "dask"):
                command = _sweep_command(Path(folder), points, workers, engine)
                parts = Path(folder) / f"out-{points}" / "portfolio.parts"
                found[engine].append(tree_peaks(command, timeout, parts=parts))
                _clear(Path(folder) / f"out-{points}")
    return found


def fitted_exponent(sizes: list[float], figures: list[float]) -> float:
    """Slope of log(figure) against log(size): 1 for a figure proportional to the size."""
    keep = [(s, f) for s, f in zip(sizes, figures, strict=True) if f > 0 and np.isfinite(f)]
    if len(keep) < 2:
        return float("nan")
    x, y = np.log([s for s, _ in keep]), np.log([f for _, f in keep])
    return float(np.polyfit(x, y, 1)[0])


def batch_reports(repeats: int, workers: int = 2) -> dict[str, float]:
    """Seconds per report of `costmodel batch --reports --workers N` (N warm kernels) over the reference scenarios."""
    from costmodel.paths import REFERENCE_SCENARIOS, SCENARIO_DIR

    files = [str(SCENARIO_DIR / f"{name}.yaml") for name in REFERENCE_SCENARIOS]
    with tempfile.TemporaryDirectory() as folder:
        whole = process_seconds(
            [str(BIN / "costmodel"), "batch", *files, "--reports", "--workers", str(workers), "--out", folder], 1
        )
    return {"reports": len(files), "workers": workers, "seconds_per_report": whole / len(files)}


BATCH_FILES_TARGET = 200
"""Scenario files a second per core that a compare-only batch should reach (issue 33). [files/s]"""


def batch_files(count: int = 1000, repeats: int = 1) -> dict:
    """`costmodel batch` over ``count`` generated scenario files (benchmarks/make_scenarios.py), compare only, one
    worker: seconds per file in one process (wall clock and CPU), against its floor, the YAML parse and pydantic
    validation of the same files alone; the whole command as a process (wall clock, and CPU from
    ``getrusage``); and the mean CPU of a file by the bundled scenario it copies. [s]"""
    import resource

    from costmodel.batch import Task, expand_scenarios, run_task, run_tasks
    from costmodel.catalog import default_catalog, merged_catalog
    from costmodel.io.yaml_files import parse_yaml, read_text
    from costmodel.schema import Scenario
    from costmodel.schema.offers import Offers

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from make_scenarios import write_scenarios

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name) / "scenarios"
        write_scenarios(folder, count)
        files = expand_scenarios([str(folder)])
        catalog = default_catalog()

        def floor():
            for file in files:
                path = Path(file)
                data = parse_yaml(read_text(path), path)
                # a file's inline offers join the catalog it is validated against, as compare does
                rows = Offers.model_validate(data["offers"]).tables() if data.get("offers") else None
                Scenario.model_validate(data, context={"catalog": merged_catalog(rows, catalog) if rows else catalog})

        def batch():
            run_tasks([Task(file, file) for file in files], workers=1, progress=False)

        floor_seconds = best_of(repeats, floor)
        batch_seconds = best_of(repeats, batch)
        batch_cpu = best_of(repeats, batch, time.process_time)
        floor_cpu = best_of(repeats, floor, time.process_time)
        by_kind: dict[str, list[float]] = {}  # each file's CPU, by the bundled scenario it is a copy of
        for file in files:
            start = time.process_time()
            run_task(Task(file, file))
            by_kind.setdefault(Path(file).stem.split("-", 1)[1], []).append(time.process_time() - start)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        command = process_seconds(
            [str(BIN / "costmodel"), "batch", str(folder), "--workers", "1", "--out", str(Path(name) / "out")], 1
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "files": count,
        "seconds_per_file": batch_seconds / count,
        "cpu_seconds_per_file": batch_cpu / count,
        "floor_seconds_per_file": floor_seconds / count,
        "floor_cpu_seconds_per_file": floor_cpu / count,
        "ratio_to_floor": batch_cpu / floor_cpu,
        "files_per_cpu_second": count / batch_cpu,
        "command_seconds": command,
        "command_cpu_seconds": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        "cpu_seconds_by_kind": {kind: float(np.mean(times)) for kind, times in by_kind.items()},
    }


def _job_log_scenario(folder: Path, rows: list[str], name: str) -> tuple[Path, float]:
    """A log written to ``folder`` and h200-job-log's scenario reading it, its volume the log's. [GPU-h/month]"""
    from costmodel.io.demand_files import read_job_log
    from costmodel.paths import SCENARIO_DIR

    log = folder / f"{name}.txt"
    log.write_text("\n".join(rows) + "\n")
    monthly = float(read_job_log(log, 2026).demand.sum()) / 12
    text = (SCENARIO_DIR / "h200-job-log.yaml").read_text()
    text = text.replace("path: job_logs/synthetic-sacct-2026.txt", f"path: {log}")
    text = text.replace("gpu_hours_per_month: 5181", f"gpu_hours_per_month: {monthly:.0f}")
    scenario = folder / f"{name}.yaml"
    scenario.write_text(text)
    return scenario, monthly


def job_logs(repeats: int) -> dict[str, float]:
    """Reading a 10^6-row sacct log (not kept between reads) against ``pandas.read_csv`` of it; and a
    log with one job on 10^6 GPUs: `costmodel compare` as a whole process and the level curve. [s]"""
    import pandas as pd

    import costmodel
    from costmodel.domain import mix
    from costmodel.io.demand_files import read_job_log

    sys.path.insert(0, str(ROOT / "scripts"))
    from make_job_log import many_jobs

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        log = folder / "million.txt"
        log.write_text("\n".join(many_jobs(1_000_000)) + "\n")
        reader = best_of(repeats, lambda: read_job_log.__wrapped__(log, 2026))
        plain = best_of(repeats, lambda: pd.read_csv(log, sep="|"))
        scenario, monthly = _job_log_scenario(folder, many_jobs(1000, peak=1_000_000), "peak")
        compare = process_seconds(
            [str(BIN / "costmodel"), "compare", str(scenario), "--volume-max", f"{monthly * 1.01:.0f}"], repeats
        )
        resolved = costmodel.resolve(costmodel.load_scenario(scenario))
        series = mix.hourly_demand(resolved)
        curve = best_of(
            repeats, lambda: [mix.cost_against_level(resolved, kind, series) for kind in ("own", "reserved")]
        )
    return {
        "rows": 1_000_000,
        "read_seconds": reader,
        "read_csv_seconds": plain,
        "ratio": reader / plain,
        "peak_gpus": float(series.max()),
        "peak_compare_seconds": compare,
        "level_curve_seconds": curve,
    }


def bills(repeats: int, rows: int = 100_000) -> dict[str, float]:
    """CPU seconds to read a ``rows``-row FOCUS export (the sample's rows repeated) into a bill summary,
    against parsing the same file with ``csv.DictReader`` alone. [s]"""
    import csv

    from costmodel.bills import read_summary

    sample = (ROOT / "data" / "bills" / "focus_sample.csv").read_text().splitlines()
    header, body = sample[0], sample[1:]
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "focus.csv"
        path.write_text("\n".join([header, *(body[i % len(body)] for i in range(rows))]) + "\n")
        summary = read_summary(path)
        reader = best_of(repeats, lambda: read_summary(path), time.process_time)
        floor = best_of(repeats, lambda: list(csv.DictReader(path.open(newline=""))), time.process_time)
    return {
        "rows": rows,
        "gpu_rows": len(summary.gpu_uses),
        "read_cpu_seconds": reader,
        "csv_cpu_seconds": floor,
        "ratio": reader / floor,
    }


def what_if_updates(positions: int = 8) -> dict[str, dict[str, float]]:
    """Kernel-side time of a what-if update, from the new slider value to the redrawn widgets. [s]"""
    from costmodel.presentation.whatif import what_if

    found = {}
    for name in ("llama70b-vs-api", "h200-24gpu-cluster"):
        panel = what_if(name)
        times = []
        for slider in panel.sliders.values():
            for k in range(positions):
                slider.value = slider.min + (slider.max - slider.min) * (k + 0.5) / positions
                times.append(panel.seconds)
            panel.reset()
        found[name] = {
            "median": float(np.median(times)),
            "p90": float(np.percentile(times, 90)),
            "max": float(max(times)),
            "updates": len(times),
        }
    return found


def training_configs(n: int, seed: int = 33) -> dict[str, np.ndarray]:
    """n training configurations around R4: tokens, MFU, cluster GPUs (whole nodes) and rent price. [units as named]"""
    rng = np.random.default_rng(seed)
    return {
        "training_tokens": rng.uniform(2e12, 2e13, n),
        "mfu": rng.uniform(0.3, 0.5, n),
        "cluster_gpus": rng.integers(512, 2049, n) * 8.0,
        "rent_price": rng.uniform(1.5, 3.5, n),
    }


def llm_analysis_gpu_hours(configs: dict[str, np.ndarray]) -> list[float] | None:
    """GPU-hours of each configuration by llm-analysis 0.2.2, one call each; None where it is not installed."""
    try:
        import logging

        from llm_analysis.analysis import ActivationRecomputation, LLMAnalysis
        from llm_analysis.config import (
            ParallelismConfig,
            get_dtype_config_by_name,
            get_gpu_config_by_name,
            get_model_config_by_name,
        )
    except ImportError:
        return None
    logging.disable(logging.WARNING)  # it logs every step of every call at INFO
    model = get_model_config_by_name("upstage_Llama-2-70b-instruct-v2")
    gpu = get_gpu_config_by_name("h100-sxm-80gb")
    dtype = get_dtype_config_by_name("w16a16e16")
    found = []
    for tokens, mfu, gpus in zip(configs["training_tokens"], configs["mfu"], configs["cluster_gpus"], strict=True):
        data_parallel = int(gpus) // 64  # tensor 8 x pipeline 8
        analysis = LLMAnalysis(
            model,
            gpu,
            dtype,
            ParallelismConfig(tp_size=8, pp_size=8, dp_size=data_parallel),
            flops_efficiency=float(mfu),
        )
        summary = analysis.training(
            batch_size_per_gpu=1,
            seq_len=4096,
            global_batch_size=data_parallel * 16,
            total_num_tokens=float(tokens),
            activation_recomputation=ActivationRecomputation.NONE,
        )
        found.append(summary["gpu_hours"])
    logging.disable(logging.NOTSET)
    return found


def training_grid(repeats: int, n: int = 1000, big: int = 1_000_000) -> dict[str, float | None]:
    """Seconds for n training configurations: one grid call, one grid call each, llm-analysis one call each."""
    import costmodel

    scenario = costmodel.resolve(costmodel.load_scenario("llama31-405b-training"))

    def grid(c):
        return costmodel.training_cost_grid(
            scenario,
            training_tokens=c["training_tokens"],
            mfu=c["mfu"],
            cluster_gpus=c["cluster_gpus"],
            values={"options.rent.price_per_gpu_hour": c["rent_price"]},
        )

    configs = training_configs(n)
    one_call = best_of(repeats, lambda: grid(configs))
    singles = [{k: v[i] for k, v in configs.items()} for i in range(n)]
    per_config = best_of(1, lambda: [grid(c) for c in singles])
    start = time.perf_counter()
    theirs = llm_analysis_gpu_hours(configs)
    llm_analysis = time.perf_counter() - start if theirs is not None else None
    large = training_configs(big)
    million = best_of(max(1, repeats - 1), lambda: grid(large))
    return {
        "configs": n,
        "one_call_seconds": one_call,
        "per_config_seconds": per_config,
        "llm_analysis_seconds": llm_analysis,
        "big": big,
        "big_seconds": million,
    }


ITEMS = (
    "monte_carlo",
    "sweep",
    "mix",
    "fleet",
    "import",
    "catalog",
    "compare_json",
    "portfolio_sweep",
    "what_if",
    "training",
    "job_logs",
    "bills",
    "report",
    "batch_reports",
    "batch_files",
    "sweep_scaling",
)
"""The figures this script prints, in order (``--only`` picks some)."""


def print_batch_files(args: argparse.Namespace) -> None:
    """Print :func:`batch_files`'s figures."""
    bf = batch_files(repeats=args.repeats)
    print(
        f"costmodel batch over {bf['files']:,} generated scenario files (benchmarks/make_scenarios.py), compare "
        f"only, 1 worker, in one process: {bf['seconds_per_file'] * 1000:.1f} ms a file "
        f"({bf['cpu_seconds_per_file'] * 1000:.1f} ms of CPU: {bf['files_per_cpu_second']:.0f} files per second per "
        f"core, {bf['files_per_cpu_second'] / BATCH_FILES_TARGET:.2f}x the target of >= {BATCH_FILES_TARGET})"
    )
    print(
        f"  floor, YAML parse + pydantic validation of the same files: {bf['floor_seconds_per_file'] * 1000:.1f} ms "
        f"a file ({bf['floor_cpu_seconds_per_file'] * 1000:.1f} ms of CPU); ratio {bf['ratio_to_floor']:.2f}x (CPU)"
    )
    print(
        f"  the whole command (`costmodel batch DIR --workers 1`, start-up and writing included): "
        f"{bf['command_seconds']:.1f} s, {bf['command_cpu_seconds']:.1f} s of CPU"
    )
    kinds = sorted(bf["cpu_seconds_by_kind"].items(), key=lambda item: -item[1])
    print(
        "  CPU a file by the bundled scenario it copies, dearest first: "
        + ", ".join(f"{kind} {seconds * 1000:.1f} ms" for kind, seconds in kinds)
    )


def sweep_table(sizes: tuple[int, ...], engine_runs: int, engine_points: int = 1_000_000) -> None:
    """Print the scaling table of streamed sweeps and the pool-against-dask comparison at ``engine_points``."""
    rows = sweep_scaling(sizes)
    memory_floor = rows[0]["client_peak_bytes"]  # the smallest sweep: an interpreter with the stack loaded
    print(
        "costmodel batch --sweep of R1, --workers 2 (process pool); time floor: the portfolio columns alone in "
        "one process (chunks of 20,000, no file); memory floor: the command's peak at the smallest size"
    )
    print("  points       seconds (x floor)    command peak (x floor)   worker peak   output")
    for r in rows:
        print(
            f"  {r['points']:>10,}  {r['seconds']:8.1f} ({r['seconds'] / r['floor_seconds']:5.1f}x)  "
            f"{r['client_peak_bytes'] / 2**20:8.0f} MiB ({r['client_peak_bytes'] / memory_floor:4.2f}x)  "
            f"{r['worker_peak_bytes'] / 2**20:8.0f} MiB  {r['output_bytes'] / 2**20:8.0f} MiB"
        )
    big = [r for r in rows if r["points"] >= 10_000]
    slopes = {
        key: fitted_exponent([r["points"] for r in big], [r[key] for r in big])
        for key in ("seconds", "client_peak_bytes", "worker_peak_bytes")
    }
    if len(big) >= 2:  # a slope needs two sizes
        print(
            f"  fitted exponent (log-log slope, 10^4 points and up): seconds {slopes['seconds']:.2f}, "
            f"command peak {slopes['client_peak_bytes']:.2f}, worker peak {slopes['worker_peak_bytes']:.2f}"
        )
    if engine_runs > 0:
        print_engines(sweep_engines(engine_points, engine_runs), engine_points)


def print_engines(runs: dict[str, list[TreeRun]], points: int = 1_000_000) -> None:
    """Print the pool-against-dask runs of :func:`sweep_engines`: medians of wall and CPU time, and the ratio
    of each pair (run one after the other, so under the same load)."""

    def seconds(run: TreeRun) -> float:
        return run.seconds if run.code == 0 else float("nan")

    pool, dask = (float(np.median([seconds(r) for r in runs[e]])) for e in ("pool", "dask"))
    pool_cpu, dask_cpu = (float(np.median([r.cpu_seconds for r in runs[e]])) for e in ("pool", "dask"))
    print(
        f"  {points:,} points, 2 workers, {len(runs['pool'])} runs each in turns: process pool median {pool:.1f} s "
        f"({pool_cpu:.1f} s of CPU), dask LocalCluster median {dask:.1f} s ({dask_cpu:.1f} s of CPU); "
        f"dask / pool {dask / pool:.2f} (CPU {dask_cpu / pool_cpu:.2f})"
    )
    for engine in ("pool", "dask"):
        first, last, end = (
            float(np.median(figures))
            for figures in zip(
                *((r.first_part, r.last_part - r.first_part, r.seconds - r.last_part) for r in runs[engine])
            )
        )
        print(
            f"    {engine} phases (medians): start-up and first chunk {first:.1f} s, the other chunks {last:.1f} s, "
            f"assembly and shutdown {end:.1f} s (chunks seen stored in the parts folder, every 0.1 s)"
        )
    for number, (p, d) in enumerate(zip(runs["pool"], runs["dask"], strict=True), 1):
        print(
            f"    pair {number}: pool {seconds(p):.1f} s ({p.cpu_seconds:.1f} s CPU), dask {seconds(d):.1f} s "
            f"({d.cpu_seconds:.1f} s CPU): dask / pool {seconds(d) / seconds(p):.2f} (CPU "
            f"{d.cpu_seconds / p.cpu_seconds:.2f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--only",
        type=lambda text: [item.strip() for item in text.split(",") if item.strip()],
        default=list(ITEMS),
        metavar="ITEM[,ITEM...]",
        help=f"print only these figures, of: {', '.join(ITEMS)}",
    )
    parser.add_argument("--sweep-sizes", default="1e3,1e4,1e5,1e6", help="points of the sweep scaling table")
    parser.add_argument("--engine-runs", type=int, default=3, help="runs each of pool and dask (0: none)")
    parser.add_argument(
        "--engine-points",
        type=float,
        default=1e6,
        help="points of the pool-against-dask runs (10^6; less while iterating)",
    )
    parser.add_argument(
        "--allocator",
        choices=("library", "command"),
        default="library",
        help="glibc's thresholds as `import costmodel` leaves them, or as the costmodel command sets them "
        "(costmodel.allocator); monte_carlo prints both",
    )
    args = parser.parse_args()
    unknown = sorted(set(args.only) - set(ITEMS))
    if unknown:
        parser.error(f"--only: unknown item {unknown[0]!r}; items: {', '.join(ITEMS)}")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.allocator == "command":
        from costmodel.allocator import keep_freed_memory

        keep_freed_memory()
    for item in ITEMS:
        if item in args.only:
            PRINTERS[item](args)


def print_monte_carlo(args: argparse.Namespace) -> None:
    """Print :func:`monte_carlo`'s figures."""
    mc = monte_carlo(args.samples, args.repeats)
    where = "as the costmodel command runs it" if args.allocator == "command" else "as a library call"
    print(
        f"Monte Carlo, llama70b-vs-api, 3 options, {mc['samples']:,} samples, {where}: {mc['seconds']:.3f} s "
        f"= {mc['samples_per_second']:,.0f} samples/s (target: 10^6 in < 1 s)"
    )
    print(
        f"  numpy floor: drawing the {mc['inputs_drawn']} inputs with numpy's generators "
        f"({mc['numpy_draws_seconds']:.3f} s), then {mc['elementwise_operations']} elementwise operations on "
        f"{mc['samples']:,} float64: {mc['numpy_floor_seconds']:.3f} s; ratio {mc['ratio_to_floor']:.2f}x, "
        f"of CPU time {mc['cpu_ratio_to_floor']:.2f}x (target: <= 3x)"
    )
    print(
        f"  (against the floor as first defined, each draw counted as one operation: "
        f"{mc['ratio_to_one_per_draw_floor']:.2f}x)"
    )
    if args.allocator == "library":  # and again in a process of its own, with the command's allocator settings
        options = ["--samples", str(args.samples), "--repeats", str(args.repeats), "--allocator", "command"]
        sys.stdout.flush()
        subprocess.run([sys.executable, __file__, "--only", "monte_carlo", *options], check=True)


def print_sweep(args: argparse.Namespace) -> None:
    """Print the sweep figures."""
    sw = sweep(args.repeats)
    print(f"10,000-point volume sweep (3 options, cost and GPU count): {sw['seconds'] * 1000:.1f} ms")


def print_mix(args: argparse.Namespace) -> None:
    """Print the mix figures."""
    mx = mix_search(args.repeats)
    print(
        f"cheapest mix, {mx['hours']:,}-hour profile from the job log (peak {mx['peak_gpus']:.0f} GPUs), "
        f"profile built and every kind searched: {mx['seconds'] * 1000:.1f} ms (target: < 1 s)"
    )


def print_fleet(args: argparse.Namespace) -> None:
    """Print the fleet figures."""
    fl = fleet(args.repeats)
    floor = fl["floor_seconds"]
    print(
        f"costmodel fleet (CPU time): two-teams.yaml {fl['two_teams_seconds'] * 1000:.0f} ms "
        f"({fl['two_teams_seconds'] / floor:.1f}x), serve-and-finetune.yaml "
        f"{fl['serve_and_finetune_seconds'] * 1000:.0f} ms ({fl['serve_and_finetune_seconds'] / floor:.1f}x); "
        f"floor, one job log's cheapest mix: {floor * 1000:.0f} ms (target: a fleet < 2 s)"
    )


def print_import(args: argparse.Namespace) -> None:
    """Print the import figures."""
    im = imports(args.repeats)
    print(
        f"import costmodel (fresh process): {im['import_costmodel_seconds']:.3f} s; "
        f"bare interpreter: {im['bare_interpreter_seconds']:.3f} s; ratio "
        f"{im['import_costmodel_seconds'] / im['bare_interpreter_seconds']:.1f}x (target: import <= 0.3 s)"
    )


def print_catalog(args: argparse.Namespace) -> None:
    """Print the catalog figures."""
    cc = catalog_commands(args.repeats)
    print(
        f"costmodel catalog search mi300x (whole process): {cc['search_seconds']:.2f} s; catalog show of an API "
        f"offer: {cc['show_seconds']:.2f} s (target: < 1 s each); load_catalog() in one process: "
        f"{cc['load_seconds'] * 1000:.0f} ms"
    )


def print_compare_json(args: argparse.Namespace) -> None:
    """Print the compare json figures."""
    cj = compare_json(args.repeats)
    print(
        f"costmodel compare h200-24gpu-cluster --json (whole process): {cj['with_uncertainty_seconds']:.2f} s; "
        f"with --no-uncertainty: {cj['without_uncertainty_seconds']:.2f} s"
    )
    hourly = compare_json_hourly(args.repeats)
    print(
        f"costmodel compare --json of R2 without its finance block (hour by hour, 100,000 samples x 8,760 hours, "
        f"whole process): {hourly['cpu_seconds']:.2f} s of CPU "
        f"({hourly['cpu_seconds'] / hourly['floor_cpu_seconds']:.2f}x --no-uncertainty's "
        f"{hourly['floor_cpu_seconds']:.2f} s), peak {hourly['peak_bytes'] / 2**20:.0f} MiB "
        f"(--no-uncertainty {hourly['floor_peak_bytes'] / 2**20:.0f} MiB; bound {HOURLY_PEAK_BOUND / 2**20:.0f} MiB: "
        f"{'within' if hourly['peak_bytes'] <= HOURLY_PEAK_BOUND else 'ABOVE'})"
    )
    fc = compare_first_call(args.repeats)
    print(
        f"costmodel.compare of R1 in a fresh process: first call {fc['first_seconds'] * 1000:.0f} ms, second "
        f"{fc['second_seconds'] * 1000:.0f} ms; its uncertainty, computed on first read: "
        f"{fc['uncertainty_seconds']:.2f} s"
    )


def print_portfolio_sweep(args: argparse.Namespace) -> None:
    """Print the portfolio sweep figures."""
    ps = portfolio_sweep(args.repeats)
    print(
        f"portfolio sweep of R1, {ps['points']:,} points (rent price x API output price x volume; costs, cheapest, "
        f"margin and 3 break-evens each): {ps['seconds']:.3f} s in one call (target < 2 s); "
        f"`costmodel batch --sweep` whole process: {ps['command_seconds']:.2f} s"
    )


def print_what_if(args: argparse.Namespace) -> None:
    """Print the what if figures."""
    for name, t in what_if_updates().items():
        print(
            f"what-if update, {name}, {t['updates']} slider moves: median {t['median'] * 1000:.0f} ms, "
            f"90th percentile {t['p90'] * 1000:.0f} ms, slowest {t['max'] * 1000:.0f} ms (target: < 100 ms)"
        )


def print_training(args: argparse.Namespace) -> None:
    """Print the training figures."""
    tg = training_grid(args.repeats)
    print(
        f"training runs, {tg['configs']:,} configurations of R4 (tokens, MFU, GPUs, rent price): every option's "
        f"cost, GPU-hours, goodput, wall clock and energy in one training_cost_grid call: "
        f"{tg['one_call_seconds'] * 1000:.1f} ms; one call per configuration: {tg['per_config_seconds']:.2f} s "
        f"({tg['per_config_seconds'] / tg['one_call_seconds']:,.0f}x)"
    )
    if tg["llm_analysis_seconds"] is None:
        print("  llm-analysis not installed (pip install llm-analysis==0.2.2): no comparison")
    else:
        print(
            f"  llm-analysis 0.2.2, GPU-hours alone, one call per configuration: {tg['llm_analysis_seconds']:.2f} s; "
            f"ratio {tg['llm_analysis_seconds'] / tg['one_call_seconds']:,.0f}x (target >= 50x)"
        )
    print(f"  {tg['big']:,} configurations in one call: {tg['big_seconds']:.2f} s")


def print_job_logs(args: argparse.Namespace) -> None:
    """Print the job logs figures."""
    jl = job_logs(args.repeats)
    print(
        f"job log of {jl['rows']:,} sacct rows read into hourly demand: {jl['read_seconds']:.2f} s (target <= 3 s); "
        f"pandas read_csv of the same file: {jl['read_csv_seconds']:.2f} s; ratio {jl['ratio']:.1f}x"
    )
    print(
        f"costmodel compare, a log with one job on {jl['peak_gpus']:,.0f} GPUs (whole process): "
        f"{jl['peak_compare_seconds']:.2f} s; the mix chart's cost-against-level curves (own, reserved): "
        f"{jl['level_curve_seconds']:.2f} s"
    )


def print_bills(args: argparse.Namespace) -> None:
    """Print the bills figures."""
    bl = bills(args.repeats)
    print(
        f"FOCUS bill of {bl['rows']:,} rows ({bl['gpu_rows']:,} GPU instance rows) read into spend, GPU-hours and "
        f"tokens: {bl['read_cpu_seconds']:.2f} s of CPU; csv.DictReader of the same file: "
        f"{bl['csv_cpu_seconds']:.2f} s; ratio {bl['ratio']:.1f}x (target <= 10x)"
    )


_REPORT: list[dict[str, float] | None] = [None]
"""The report item's figures, once measured: the batch-reports item compares with its empty notebook."""


def print_report(args: argparse.Namespace) -> None:
    """Print the report figures."""
    rp = _REPORT[0] = report(max(2, args.repeats))
    print(
        f"costmodel report llama70b-vs-api (whole process): {rp['report_seconds']:.2f} s; papermill, empty "
        f"notebook: {rp['empty_notebook_seconds']:.2f} s; ratio {rp['ratio_to_empty_notebook']:.2f}x (target <= 2x)"
    )


def print_batch_reports(args: argparse.Namespace) -> None:
    """Print the batch reports figures (measuring the empty notebook first, unless the report item did)."""
    rp = _REPORT[0] or report(max(2, args.repeats))
    for workers in (1, 2):
        br = batch_reports(1, workers)
        ratio = br["seconds_per_report"] / rp["empty_notebook_seconds"]
        target = "target < 1x" if workers == 1 else "for comparison: on 2 cores a second kernel competes for CPU"
        print(
            f"costmodel batch --reports --workers {workers} ({workers} warm kernels) over the {br['reports']} "
            f"reference scenarios, whole process: {br['seconds_per_report']:.2f} s per report; ratio to papermill "
            f"on an empty notebook {ratio:.2f}x ({target})"
        )


def print_sweep_scaling(args: argparse.Namespace) -> None:
    """Print the scaling table of streamed sweeps (:func:`sweep_table`)."""
    sizes = tuple(int(float(n)) for n in args.sweep_sizes.split(","))
    sweep_table(sizes, args.engine_runs, int(args.engine_points))


PRINTERS = {name: globals()[f"print_{name}"] for name in ITEMS}
"""Each item's printer."""


if __name__ == "__main__":
    main()

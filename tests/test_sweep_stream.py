"""Streamed sweeps: chunks stored as they finish (costmodel.dataset), assembled into the same files as the
in-memory writer, resumed after an interrupt, run the same on a process pool and a dask LocalCluster.

The reference table is the one :func:`costmodel.batch.write_portfolio` writes from every task's rows held
in memory (the path batches without a sweep take); R1's rented cost is checked against its closed form:
2 H100 x price x 730 h + 6,000 EUR x 1.16 (shared/reference/cases.md, test_batch).
"""

import filecmp
import operator
import os
from pathlib import Path

import pandas as pd
import pytest
import yaml

import costmodel.batch as batch
from costmodel.batch import (
    Task,
    _completed,
    chunk_size_for,
    portfolio_frame,
    read_sweep,
    run_tasks,
    sweep_tasks,
    swept_units,
    write_portfolio,
)
from costmodel.cli import main
from costmodel.dataset import PARTS

GRID = {
    "options.rent.price_per_gpu_hour": [2.0, 3.5, 7.0],
    "options.api.output_price_per_million": [10.0, 25.0],
    "workload.tokens_per_day": {"low": 1.0e6, "high": 1.0e8, "points": 20, "scale": "log"},
}
FILES = ["llama70b-vs-api", "h200-24gpu-cluster"]


def _sweep(tmp_path: Path, chunk: int | None = 25, grid: dict | None = None) -> Path:
    path = tmp_path / "sweep.yaml"
    data: dict = {"base": "llama70b-vs-api", "grid": grid or GRID}
    if chunk is not None:
        data["chunk_size"] = chunk
    path.write_text(yaml.safe_dump(data))
    return path


def _reference(tmp_path: Path, sweep: Path, files: list[str], out: str = "reference", parquet: bool = True) -> Path:
    """The portfolio files the in-memory path writes for the same tasks."""
    name, base, values, chunk = read_sweep(sweep)
    tasks = [Task(f, f) for f in files] + sweep_tasks(name, base, values, chunk)
    write_portfolio(portfolio_frame(run_tasks(tasks)), tmp_path / out, units=swept_units(base, values), parquet=parquet)
    return tmp_path / out


def _same_files(a: Path, b: Path, parquet: bool = True) -> None:
    for name in ("portfolio.csv", "portfolio.csv-metadata.json"):
        assert filecmp.cmp(a / name, b / name, shallow=False), name
    if parquet:
        import pyarrow.parquet as pq

        pd.testing.assert_frame_equal(
            pd.read_parquet(a / "portfolio.parquet"), pd.read_parquet(b / "portfolio.parquet")
        )
        assert pq.read_schema(a / "portfolio.parquet").equals(
            pq.read_schema(b / "portfolio.parquet"), check_metadata=True
        )


def test_streamed_files_equal_the_in_memory_writer(tmp_path):
    sweep = _sweep(tmp_path)  # 120 points in 5 chunks, after two scenario files' rows
    assert main(["batch", *FILES, "--sweep", str(sweep), "--out", str(tmp_path / "streamed"), "--workers", "2"]) == 0
    _same_files(_reference(tmp_path, sweep, FILES), tmp_path / "streamed")
    assert not (tmp_path / "streamed" / PARTS).exists()  # every chunk in: the parts are gone
    table = pd.read_csv(tmp_path / "streamed" / "portfolio.csv")
    assert list(table["scenario"][:2]) == FILES and list(table["point"][2:]) == list(range(120))
    rows = table.iloc[2:]
    price = rows["options.rent.price_per_gpu_hour"]
    assert rows["cost_rent"].to_numpy() == pytest.approx((2 * price * 730 + 6000 * 1.16).to_numpy())


def test_csv_only_without_pyarrow(tmp_path, monkeypatch, capsys):
    import costmodel.extras as extras

    real = extras.installed
    monkeypatch.setattr(extras, "installed", lambda name: False if name == "pyarrow" else real(name))
    sweep = _sweep(tmp_path)
    assert main(["batch", "--sweep", str(sweep), "--out", str(tmp_path / "streamed")]) == 0
    assert "pyarrow" in capsys.readouterr().err
    assert not (tmp_path / "streamed" / "portfolio.parquet").exists()
    _same_files(_reference(tmp_path, sweep, [], parquet=False), tmp_path / "streamed", parquet=False)


def test_an_interrupted_sweep_resumes_from_its_stored_chunks(tmp_path, monkeypatch):
    sweep = _sweep(tmp_path, chunk=10)  # 12 chunks
    out = tmp_path / "out"
    real = batch.run_chunk
    ran: list[int] = []

    def interrupted(task, index, *rest):
        if len(ran) == 5:
            raise KeyboardInterrupt
        ran.append(index)
        return real(task, index, *rest)

    monkeypatch.setattr(batch, "run_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        batch_args = ["batch", "--sweep", str(sweep), "--out", str(out)]
        from costmodel.cli import _batch, build_parser

        _batch(build_parser().parse_args(batch_args))
    assert sorted(p.name for p in (out / PARTS).glob("_part-*.json")) == [f"_part-{i:06d}.json" for i in range(5)]
    assert not (out / "portfolio.csv").exists()
    # a partial dataset reads as one table of the chunks done so far
    assert len(pd.read_parquet(out / PARTS)) == 50

    ran.clear()
    monkeypatch.setattr(batch, "run_chunk", lambda task, index, *rest: ran.append(index) or real(task, index, *rest))
    assert main(["batch", "--sweep", str(sweep), "--out", str(out), "--resume"]) == 0
    assert ran == list(range(5, 12))  # only the chunks not stored
    _same_files(_reference(tmp_path, sweep, []), out)


def test_resume_refuses_parts_of_another_sweep(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setattr(batch, "run_chunk", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    from costmodel.cli import _batch, build_parser

    with pytest.raises(KeyboardInterrupt):
        _batch(build_parser().parse_args(["batch", "--sweep", str(_sweep(tmp_path)), "--out", str(out)]))
    monkeypatch.undo()
    other = _sweep(tmp_path, grid={**GRID, "options.rent.price_per_gpu_hour": [2.0, 3.0, 7.0]})
    assert main(["batch", "--sweep", str(other), "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "_manifest.json" in err and "other work" in err


def test_resume_needs_a_sweep(tmp_path, capsys):
    assert main(["batch", "llama70b-vs-api", "--out", str(tmp_path / "o"), "--resume"]) == 2
    assert "--resume" in capsys.readouterr().err


def test_a_chunk_that_does_not_run_is_reported_and_run_again_on_resume(tmp_path, monkeypatch, capsys):
    sweep = _sweep(tmp_path, chunk=40)  # 3 chunks
    out = tmp_path / "out"
    real = batch.run_chunk

    def second_fails(task, index, *rest):
        if index == 1:
            raise RuntimeError("worker lost")
        return real(task, index, *rest)

    monkeypatch.setattr(batch, "run_chunk", second_fails)
    assert main(["batch", "--sweep", str(sweep), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "1 chunks did not run" in err and "--resume" in err
    table = pd.read_csv(out / "portfolio.csv")
    failed = table[table["error"].notna()]
    assert list(failed["point"]) == list(range(40, 80))
    assert all("chunk 1 (points 40-79) did not run: RuntimeError: worker lost" in str(e) for e in failed["error"])
    assert table.loc[table["error"].isna(), "cost_rent"].notna().all()
    monkeypatch.undo()
    assert main(["batch", "--sweep", str(sweep), "--out", str(out), "--resume"]) == 0
    _same_files(_reference(tmp_path, sweep, []), out)
    assert not (out / PARTS).exists()


def test_xlsx_of_a_streamed_sweep(tmp_path):
    sweep = _sweep(tmp_path)
    assert main(["batch", "--sweep", str(sweep), "--out", str(tmp_path / "s"), "--xlsx"]) == 0
    name, base, values, chunk = read_sweep(sweep)
    frame = portfolio_frame(run_tasks(sweep_tasks(name, base, values, chunk)))
    write_portfolio(frame, tmp_path / "m", xlsx=True, units=swept_units(base, values))
    a, b = (pd.read_excel(tmp_path / d / "portfolio.xlsx", sheet_name="Portfolio") for d in ("m", "s"))
    pd.testing.assert_frame_equal(a, b)


def test_calls_are_submitted_as_workers_take_them():
    consumed: list[int] = []

    def calls():
        for i in range(50):
            consumed.append(i)
            yield i, (i,)

    results = _completed(operator.neg, calls(), 2, None, 50)
    first = next(results)
    assert len(consumed) <= 4  # two per worker in flight, not all 50
    found = dict([first, *results])
    assert found == {i: -i for i in range(50)}


@pytest.mark.parametrize(
    "points, workers, expected",
    [
        (10_000_000, 2, 20_000),  # capped: a worker holds one chunk's arrays
        (100_000, 2, 12_500),  # 4 chunks per worker
        (20_000, 8, 1_000),  # floor: loading the base costs more than fewer points
        (300, 8, 300),  # never above the points
    ],
)
def test_chunk_size_chosen_from_the_work(points, workers, expected):
    assert chunk_size_for(points, workers) == expected
    size = chunk_size_for(points, workers)
    chunks = -(-points // size)
    assert chunks * size >= points


def test_dask_local_cluster_gives_the_local_table(tmp_path):
    distributed = pytest.importorskip("distributed")
    sweep = _sweep(tmp_path, chunk=15)  # 8 chunks on 2 worker processes
    assert main(["batch", "--sweep", str(sweep), "--out", str(tmp_path / "here")]) == 0
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        address = cluster.scheduler_address
        assert main(["batch", "--sweep", str(sweep), "--out", str(tmp_path / "dask"), "--scheduler", address]) == 0
    finally:
        cluster.close()
    _same_files(tmp_path / "here", tmp_path / "dask")


def test_a_chunk_stored_where_it_ran_gives_the_parts_the_command_would_store(tmp_path):
    """A chunk run on the machine of the parts folder stores itself (costmodel.dataset.store_part) and sends
    back only its summary; the files are the ones the command stores from a chunk sent back whole."""
    from costmodel.batch import run_chunk, sweep_header
    from costmodel.dataset import Parts

    name, base, values, chunk = read_sweep(_sweep(tmp_path))
    tasks = sweep_tasks(name, base, values, chunk)
    units = swept_units(base, values)
    header = sweep_header(pd.DataFrame(), tasks[0], units)
    here, there = Parts(tmp_path / "here", "w"), Parts(tmp_path / "there", "w")
    for index, task in enumerate(tasks[:2]):
        whole = run_chunk(task, index, header, units, True)
        here.add(whole)
        summary = run_chunk(task, index, header, units, True, str(there.folder))
        assert summary.stored and summary.csv == b"" and summary.parquet is None
        assert summary.record() == whole.record() and summary.rows == task.size == 25
        there.add(summary)  # stored already: nothing written again
    names = sorted(p.name for p in here.folder.iterdir())
    assert names == sorted(p.name for p in there.folder.iterdir())
    assert "part-000001.parquet" in names and not any(n.endswith(".tmp") for n in names)
    for file in names:
        assert (here.folder / file).read_bytes() == (there.folder / file).read_bytes(), file


@pytest.mark.parametrize("scheduler, stored_there", [(None, True), ("local", True), ("tcp://head:8786", False)])
def test_only_a_remote_cluster_sends_the_rows_back(tmp_path, monkeypatch, scheduler, stored_there):
    """The workers of a cluster elsewhere do not see the parts folder: their chunks come back whole."""
    from costmodel.dataset import Parts

    seen: list[str | None] = []

    def completed(function, calls, workers, where, count):
        for index, arguments in calls:
            seen.append(arguments[-1])
            yield index, function(*arguments)

    monkeypatch.setattr(batch, "_completed", completed)
    name, base, values, chunk = read_sweep(_sweep(tmp_path))
    tasks = sweep_tasks(name, base, values, chunk)[:2]
    units = swept_units(base, values)
    parts = Parts(tmp_path / "out", "w")
    header = batch.sweep_header(pd.DataFrame(), tasks[0], units)
    assert batch.stream_sweep(tasks, parts, header, units, scheduler=scheduler, parquet=True) == (2, 0)
    assert seen == [str(parts.folder) if stored_there else None] * 2
    assert parts.done() == {0, 1}


def test_dask_flag_runs_on_its_own_local_cluster_and_gives_the_local_table(tmp_path):
    """--dask: a LocalCluster of forked worker processes (LOCAL_CLUSTER_SETTINGS), each storing its chunks."""
    pytest.importorskip("distributed")
    sweep = _sweep(tmp_path, chunk=15)  # 8 chunks on 2 worker processes
    assert main(["batch", "--sweep", str(sweep), "--out", str(tmp_path / "here")]) == 0
    assert main(["batch", "--sweep", str(sweep), "--out", str(tmp_path / "dask"), "--workers", "2", "--dask"]) == 0
    _same_files(tmp_path / "here", tmp_path / "dask")
    assert not (tmp_path / "dask" / PARTS).exists()


def test_the_local_cluster_workers_run_with_its_settings():
    """The settings reach the worker processes (dask hands its configuration to each worker it starts)."""
    pytest.importorskip("distributed")
    import dask.config
    from distributed import Client

    threads = os.environ.get("OMP_NUM_THREADS", "1")  # the nanny's pre-spawn-environ sets what is not set
    cluster = batch._local_cluster(1)
    try:
        with Client(cluster) as client:
            keys = sorted(batch.LOCAL_CLUSTER_SETTINGS)
            found = next(iter(client.run(lambda: [dask.config.get(k) for k in keys]).values()))
            parent = next(iter(client.run(os.getppid).values()))
            preloaded = next(iter(client.run(_preloaded).values()))
    finally:
        cluster.close()
    assert found == [batch.LOCAL_CLUSTER_SETTINGS[k] for k in keys]
    assert parent != os.getpid()  # forked by dask's forkserver, not spawned by this process
    # the forkserver read the bundled catalog before forking: the worker has it before any chunk ran
    assert preloaded == (True, True, threads)


def _preloaded() -> tuple[bool, bool, str | None]:
    """In a worker: whether the forkserver's preload module ran, whether a bundled catalog is kept, and the
    worker's OMP_NUM_THREADS."""
    import sys

    from costmodel import catalog

    kept = any(key[0] == "load" for key in catalog._LOADED)
    return "costmodel.worker_preload" in sys.modules, kept, os.environ.get("OMP_NUM_THREADS")


def test_the_forkserver_starts_with_the_nanny_environment_and_leaves_this_one(monkeypatch):
    """The forkserver gets the variables a dask nanny sets before it starts a worker (the settings', then
    dask's hash seed 6640), none replacing one set already; this process's environment is as it was."""
    import multiprocessing
    from multiprocessing import forkserver

    seen: dict[str, str] = {}
    preload: list[str] = []
    monkeypatch.setattr(forkserver, "ensure_running", lambda: seen.update(os.environ))
    monkeypatch.setattr(multiprocessing.get_context("forkserver"), "set_forkserver_preload", preload.extend)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    for name in ("MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "PYTHONHASHSEED"):
        monkeypatch.delenv(name, raising=False)
    before = dict(os.environ)
    batch._start_forkserver(["pandas"])
    assert (seen["OMP_NUM_THREADS"], seen["MKL_NUM_THREADS"], seen["OPENBLAS_NUM_THREADS"]) == ("3", "1", "1")
    assert seen["PYTHONHASHSEED"] == "6640"
    assert dict(os.environ) == before
    assert preload == ["distributed", "numpy", "pandas", "pandas", "costmodel.worker_preload"]


def test_a_catalog_that_does_not_load_leaves_the_forkserver_running(monkeypatch):
    """The preload module gives no error of its own: the first chunk reports the catalog's, in its rows."""
    import importlib

    import costmodel.catalog
    import costmodel.worker_preload
    from costmodel.errors import CatalogError

    calls: list[int] = []

    def broken():
        calls.append(1)
        raise CatalogError(None, [("gpus.csv", "x", "a bad row")])

    monkeypatch.setattr(costmodel.catalog, "load_catalog", broken)
    importlib.reload(costmodel.worker_preload)
    assert calls == [1]
    monkeypatch.undo()
    importlib.reload(costmodel.worker_preload)  # bound to the real load_catalog again

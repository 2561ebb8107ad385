"""Command line: ``costmodel report``, ``costmodel compare``, ``costmodel schema``, ``costmodel list``.

Exit codes, on every command: 0 success; 1 a report failed to render (its notebook failed, or
its page would load something), a batch scenario failed, or a file could not be written; 2 bad
input (a scenario, catalog or job-log error, an unknown notebook parameter, or a bad argument
such as a negative volume, an empty path, or an output path where a file is but a folder is needed,
or the other way, or a FIFO or a device where a file goes; the message names the file or the option,
the value and the rule); 130 interrupted (Ctrl-C or SIGTERM, with no kernel or socket left behind).

Outputs: a missing output folder (``--out``, ``--csv``, ``--parquet``, the folder of
``--xlsx``) is made, with its missing parents, as ``report --out`` always did; it is made only
once the run has something to write. Every file is written aside and renamed into place when
whole; a run that fails or is interrupted leaves the earlier outputs as they were.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from typing import Any, TypeAlias

from .errors import InputError
from .extras import ExtraNotInstalled
from .paths import REFERENCE_SCENARIOS, relative_path
from .units import LARGEST_INPUT

BAD_INPUT, FAILED, INTERRUPTED = 2, 1, 130


def _say(text: str, file=None, flush: bool = False) -> None:
    """Print the command's text output (or a message) with control characters dropped
    (:func:`~costmodel.presentation.safe.terminal`): scenario text, file names and values quoted
    in it cannot recolour the terminal, move its cursor, overwrite a line or retitle its window.
    Line breaks stay (a message names one problem a line). JSON output is printed as it is:
    ``json.dumps`` writes scenario text's control characters as ``\\u`` escapes."""
    from .presentation.safe import terminal

    print(terminal(text, multiline=True), file=file, flush=flush)


def _report(args: argparse.Namespace) -> int:
    with _not_imported("pyarrow"):
        return _reports(args)


@contextlib.contextmanager
def _not_imported(name: str):
    """Within the block, ``import name`` raises ImportError (None in sys.modules), unless it is
    imported already; afterwards it can be imported again (``main`` is also called in-process).

    ``costmodel report`` uses it for pyarrow: papermill imports it (for HDFS paths), and numpy
    with it, work the command never uses; the report kernel refuses it too
    (:data:`costmodel.kernel.NOT_IMPORTED`).
    """
    # None in sys.modules is the import system's mark of a module that may not be imported; typeshed
    # types the values of sys.modules as modules only
    refused = sys.modules.setdefault(name, None) is None  # pyright: ignore[reportArgumentType]
    try:
        yield
    finally:
        if refused and name in sys.modules and sys.modules[name] is None:
            del sys.modules[name]


def _reports(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from .files import output_folder
    from .report import ReportError, WarmKernel, check_report_paths, render_report

    scenarios = args.scenario or list(REFERENCE_SCENARIOS)
    output_folder(args.out, "--out")  # a file there: exit 2 before any kernel starts
    if args.catalog:  # a bad catalog folder is bad input for every report: exit 2 once, now
        _catalog(args)  # (the earlier reports stay as they were)
    for scenario in scenarios:  # a FIFO, a device or a folder where a report's file goes: exit 2 now
        check_report_paths(scenario, args.out)
    if args.volume_max is not None:  # one scenario it does not fit: exit 2 before any kernel starts
        _check_report_volumes(args, scenarios)
    parameters = None if args.volume_max is None else {"volume_max": args.volume_max}
    failed = bad = 0
    with ExitStack() as keep:
        kernel = drawer = None
        if len(scenarios) > 1:  # one kept kernel and drawing process for them all, as batch --reports
            from .presentation.svg import ChartDrawer

            kernel = keep.enter_context(WarmKernel())
            drawer = keep.enter_context(ChartDrawer())
        for scenario in scenarios:
            try:
                report = render_report(
                    scenario,
                    args.out,
                    timeout=args.timeout,
                    catalog=args.catalog,
                    kernel=kernel,
                    drawer=drawer,
                    parameters=parameters,
                )
            except (InputError, ValueError) as exc:
                _say(f"costmodel report: {exc}", file=sys.stderr)
                bad += 1
                continue
            except ReportError as exc:
                _say(f"costmodel report: {exc}", file=sys.stderr)
                failed += 1
                continue
            except OSError as exc:  # e.g. --out names a file, or a folder that cannot be written
                _say(
                    f"costmodel report: {scenario}: cannot write under {args.out}: {exc.strerror or exc}",
                    file=sys.stderr,
                )
                failed += 1
                continue
            size = report.html.stat().st_size
            _say(
                f"{report.scenario}: wrote {relative_path(report.html)} ({size / 1024:,.0f} KiB) in "
                f"{report.seconds:.1f} s",
                flush=True,
            )
    if failed or bad:
        _say(
            f"costmodel report: {failed + bad} of {len(scenarios)} reports failed"
            + (f" ({bad} with bad input)" if bad else ""),
            file=sys.stderr,
        )
        return BAD_INPUT if bad else FAILED
    return 0


def _check_report_volumes(args: argparse.Namespace, scenarios: list[str]) -> None:
    """Refuse ``report --volume-max`` for any scenario it does not fit (see :func:`_check_volumes`).

    A scenario that does not load is left to its report, which names the problem as it does
    without the option.

    Raises
    ------
    ValueError
        One line per scenario: a training run (no volume axis), a volume-max below the
        scenario's volume, or one up to which an option's GPU count would step more than
        :data:`~costmodel.domain.capacity.MAX_STEPS` times (as ``compare`` refuses it), each
        naming the scenario and its volume unit.
    """
    from .domain.capacity import step_volumes
    from .resolved import resolve
    from .scenarios import load_scenario

    catalog = _catalog(args)
    problems = []
    for scenario in scenarios:
        try:
            resolved = resolve(load_scenario(scenario, catalog))
        except InputError:
            continue
        try:
            _check_volumes(args, resolved)
            for option in resolved.options:  # a range the GPU count would step through too often
                step_volumes(resolved, option, args.volume_max)
        except ValueError as exc:
            problems.append(f"{scenario}: {exc}")
    if problems:
        raise ValueError("\n".join(problems))


def _catalog(args: argparse.Namespace):
    """The catalog with ``--catalog DIR``'s rows, or None for the bundled one."""
    from .catalog import catalog_from

    return catalog_from(getattr(args, "catalog", None))


def _compare(args: argparse.Namespace) -> int:
    from .domain.compare import compare
    from .presentation.text import comparison_text
    from .resolved import resolve
    from .scenarios import load_scenario

    resolved = resolve(load_scenario(args.scenario, _catalog(args)))
    _check_volumes(args, resolved)
    result = compare(resolved, volume=args.volume, volume_max=args.volume_max)
    if resolved.scenario.claims:
        from .presentation.output import with_figure_claims

        result = with_figure_claims(result, resolved)
    if args.json:
        from .presentation.output import comparison_output

        document = comparison_output(result, resolved, uncertainty=not args.no_uncertainty)
        print(json.dumps(document.model_dump(mode="json"), indent=2, allow_nan=False))
    else:
        from .presentation.text import claims_text

        _say(comparison_text(result))
        if result.claims:
            _say(claims_text(result))
    return 0


def _check_volumes(args: argparse.Namespace, resolved) -> None:
    """Refuse ``--volume`` and ``--volume-max`` where they would give a verdict on nothing.

    Raises
    ------
    ValueError
        Either is given for a training workload (a run of a given size, compared on what the
        whole run costs: there is no monthly volume to set), or ``--volume-max`` is below the
        volume compared at (the break-even search, from 0 to ``--volume-max``, would stop short
        of it, and every pair would read "never").
    """
    given = [
        f"{option} {value:g}"
        for option, value in (("--volume", getattr(args, "volume", None)), ("--volume-max", args.volume_max))
        if value is not None
    ]
    if given and resolved.workload.kind == "training":
        raise ValueError(
            f"{', '.join(given)}: a training workload is one run, compared on the cost of the whole "
            "run; it has no monthly volume to compare at or search over (drop the option, or change "
            "the run's size in the scenario's workload block)"
        )
    given_volume = getattr(args, "volume", None)  # report has --volume-max only
    volume = resolved.volume if given_volume is None else given_volume
    if args.volume_max is not None and args.volume_max < volume:
        where = "--volume" if given_volume is not None else "the scenario's volume"
        raise ValueError(
            f"--volume-max {args.volume_max:g}: below the volume compared at ({volume:g} "
            f"{resolved.volume_unit}, {where}); the break-even search (and a report's volume axis) "
            f"runs from 0 to --volume-max, in {resolved.volume_unit}, so give one at least as large"
        )


def _batch(args: argparse.Namespace) -> int:
    from .batch import Task, expand_scenarios
    from .files import output_folder

    output_folder(args.out, "--out")  # a file there: exit 2 before anything runs
    if args.catalog is not None:
        _catalog(args)  # a bad catalog folder is bad input for every task: exit 2 now
    tasks = [Task(name, name, args.catalog) for name in expand_scenarios(args.scenario)]
    _check_batch_outputs(args, [t.path for t in tasks])
    if args.resume and args.sweep is None:
        _say("costmodel batch: --resume: only a sweep (--sweep FILE) resumes from its stored chunks", file=sys.stderr)
        return BAD_INPUT
    scheduler = args.scheduler or ("local" if args.dask else None)
    if scheduler is not None:  # the scale extra missing: exit 2 before anything runs
        from .extras import need

        need("distributed", "costmodel batch --dask" if args.dask else "costmodel batch --scheduler")
    try:
        return _batch_prepared(args, tasks, scheduler)
    finally:
        from .batch import close_local_clusters

        close_local_clusters()


def _batch_prepared(args: argparse.Namespace, tasks: list, scheduler: str | None) -> int:
    """The rest of ``batch`` once its scenario files are found and its scheduler checked: the sweep read,
    then the run (a ``--dask`` LocalCluster starts meanwhile)."""
    import time

    from .batch import read_sweep, start_local_cluster, sweep_tasks, swept_units

    if scheduler == "local" and args.sweep is not None:
        start_local_cluster(args.workers)  # its workers start while the sweep is read and checked
    sweep, units = [], {}
    if args.sweep is not None:
        name, base, values, chunk = read_sweep(args.sweep, args.catalog)  # SweepError: exit 2
        sweep = sweep_tasks(name, base, values, chunk, args.catalog, workers=args.workers)
        units = swept_units(base, values, args.catalog)
    if not tasks and not sweep:
        _say("costmodel batch: nothing to run: give scenario files, folders or globs, or --sweep FILE", file=sys.stderr)
        return BAD_INPUT
    start = time.perf_counter()
    kernels = []
    if args.reports and tasks:
        # the report kernels boot while the portfolio is computed
        from .report import WarmKernel

        kernels = [WarmKernel() for _ in range(max(1, min(args.workers, len(tasks))))]
    try:
        if sweep:
            return _batch_sweep_run(args, tasks, sweep, scheduler, start, kernels, units)
        return _batch_run(args, tasks, scheduler, start, kernels, units)
    finally:
        for kernel in kernels:
            kernel.close()


def _check_batch_outputs(args: argparse.Namespace, scenarios: list[str]) -> None:
    """Refuse a batch whose outputs cannot be written, before anything runs.

    Raises
    ------
    OutputPathError
        A FIFO, a device or a folder where a portfolio file, the index page or a report goes.
    """
    from pathlib import Path

    from .files import output_file

    names = ["portfolio.csv", "portfolio.parquet"] + ["portfolio.xlsx"] * args.xlsx + ["index.html"] * args.reports
    for name in names:
        output_file(Path(args.out) / name, "--out")
    if args.reports:
        from .report import check_report_paths

        for scenario in scenarios:
            check_report_paths(scenario, args.out)


def _reports_and_index(ok: list[str], frame, args: argparse.Namespace, kernels: list) -> list[str]:
    """``batch --reports``: the report of each scenario file in ``ok`` and the index page over ``frame``'s rows,
    said on stderr; the names of the reports that failed."""
    import os
    import time

    from .report_index import render_reports_index

    started = time.perf_counter()
    failed = render_reports_index(
        ok, frame, args.out, timeout=args.timeout, kernels=args.workers, catalog=args.catalog, started=kernels
    )
    _say(
        f"costmodel batch: {len(ok) - len(failed)} of {len(ok)} reports and "
        f"{os.path.join(args.out, 'index.html')} in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return failed


def _batch_run(
    args: argparse.Namespace, tasks: list, scheduler: str | None, start: float, kernels: list, units: dict[str, str]
) -> int:
    """The rest of ``batch`` once its tasks are known and its report kernels started (``units``: the swept
    inputs' units, by path)."""
    import time

    from .batch import failed_names, portfolio_frame, run_tasks, write_portfolio

    results = run_tasks(tasks, workers=args.workers, scheduler=scheduler, fail_fast=args.fail_fast)
    frame = portfolio_frame(results)
    failed = sorted({name for columns in results for name in failed_names(columns)})
    seconds = time.perf_counter() - start
    nothing = bool(frame["error"].notna().all())  # no row ran: the earlier portfolio and index stay as they were
    if nothing:
        _say(
            f"costmodel batch: no row without an error from {len(results)} of {len(tasks)} tasks in "
            f"{seconds:.1f} s: nothing written under {args.out}",
            file=sys.stderr,
        )
    else:
        from .extras import installed

        parquet = installed("pyarrow")
        written = write_portfolio(frame, args.out, xlsx=args.xlsx, units=units, parquet=parquet)
        _say(
            f"costmodel batch: {len(frame):,} rows from {len(results)} of {len(tasks)} tasks in {seconds:.1f} s: "
            + ", ".join(str(p) for p in written)
        )
        if not parquet:
            _say(
                "costmodel batch: portfolio.parquet not written: Parquet files need pyarrow: pip install "
                "'costmodel[parquet]'",
                file=sys.stderr,
            )
    if args.reports and not nothing:
        ok = [t.path for t in tasks if not t.values and t.name not in failed]
        failed += _reports_and_index(ok, frame, args, kernels)
    if len(results) < len(tasks):
        _say(
            f"costmodel batch: stopped at the first failure (--fail-fast); {len(tasks) - len(results)} tasks not run",
            file=sys.stderr,
        )
    if failed:
        _say(f"costmodel batch: {len(failed)} failed: " + ", ".join(failed), file=sys.stderr)
        errors = frame.loc[frame["error"].notna()].drop_duplicates("scenario")
        for name, error in zip(errors["scenario"], errors["error"], strict=True):
            _say(f"  {error}" if str(error).startswith(f"{name}:") else f"  {name}: {error}", file=sys.stderr)
        return FAILED
    return 0


def _batch_sweep_run(
    args: argparse.Namespace,
    files: list,
    sweep: list,
    scheduler: str | None,
    start: float,
    kernels: list,
    units: dict[str, str],
) -> int:
    """:func:`_batch_run` for a batch with a sweep: the scenario files' rows first, then the sweep's chunks
    streamed to ``<out>/portfolio.parts`` (:mod:`costmodel.dataset`) and assembled into the portfolio files."""
    import time

    from .batch import _write_sheet, failed_names, portfolio_frame, run_tasks, stream_sweep, sweep_header, sweep_work
    from .columns import PORTFOLIO
    from .dataset import Parts, frame_summary
    from .extras import installed

    results = run_tasks(files, workers=args.workers, scheduler=scheduler, fail_fast=args.fail_fast) if files else []
    stopped = args.fail_fast and any(failed_names(columns) for columns in results)
    header = sweep_header(portfolio_frame(results), sweep[0], units)
    head = PORTFOLIO.typed(portfolio_frame(results).reindex(columns=header), units)
    parquet = installed("pyarrow")
    parts = Parts(args.out, sweep_work(sweep, header, units, parquet), resume=args.resume)  # ResumeError: exit 2
    stored = resumed = 0
    if not stopped:
        try:
            stored, resumed = stream_sweep(
                sweep, parts, header, units, args.workers, scheduler, args.fail_fast, parquet=parquet
            )
        except KeyboardInterrupt:
            _say(
                f"costmodel batch: interrupted; the chunks finished are in {parts.folder}: run the same command "
                "with --resume to go on from them",
                file=sys.stderr,
            )
            raise
    summary = parts.summary(frame_summary(head))
    ran = len(results) + stored + resumed
    total = len(files) + len(sweep)
    seconds = time.perf_counter() - start
    if resumed:
        _say(
            f"costmodel batch: resumed from {resumed} of {len(sweep)} chunks stored in {parts.folder}", file=sys.stderr
        )
    nothing = summary.ok_rows == 0  # no row ran: the earlier portfolio and index stay as they were
    if nothing:
        parts.clear()
        _say(
            f"costmodel batch: no row without an error from {ran} of {total} tasks in {seconds:.1f} s: "
            f"nothing written under {args.out}",
            file=sys.stderr,
        )
    else:
        sheet = _write_sheet if args.xlsx else None
        written = parts.assemble(args.out, head, units, summary, parquet, sheet)  # ValueError: rows past a sheet's
        _say(
            f"costmodel batch: {summary.rows:,} rows from {ran} of {total} tasks in {seconds:.1f} s: "
            + ", ".join(str(p) for p in written)
        )
        if not parquet:
            _say(
                "costmodel batch: portfolio.parquet not written: Parquet files need pyarrow: pip install "
                "'costmodel[parquet]'",
                file=sys.stderr,
            )
        lost = parts.lost()
        if lost:
            _say(
                f"costmodel batch: {len(lost)} chunks did not run (their rows hold the error); they are kept in "
                f"{parts.folder}: run the same command with --resume to run them again",
                file=sys.stderr,
            )
    failed = sorted(summary.failures)
    if args.reports and not nothing:
        ok = [t.path for t in files if t.name not in summary.failures]
        # the index page shows the scenario files' rows; the sweep's rows are in the portfolio files
        failed += _reports_and_index(ok, head, args, kernels)
    if ran < total:
        _say(
            f"costmodel batch: stopped at the first failure (--fail-fast); {total - ran} tasks not run", file=sys.stderr
        )
    if failed:
        _say(f"costmodel batch: {len(failed)} failed: " + ", ".join(failed), file=sys.stderr)
        for name, error in summary.failures.items():
            _say(f"  {error}" if str(error).startswith(f"{name}:") else f"  {name}: {error}", file=sys.stderr)
        return FAILED
    return 0


def _diff(args: argparse.Namespace) -> int:
    from .catalog import catalog_from
    from .domain.diff import diff
    from .presentation.documents import document
    from .presentation.text import diff_text
    from .scenarios import load_scenario

    catalog = _catalog(args)
    a = load_scenario(args.a, catalog)
    b = load_scenario(args.b, catalog_from(args.catalog_b) if args.catalog_b else catalog)
    result = diff(a, b, str(args.a), str(args.b))
    if args.json:
        print(json.dumps(document("diff", result.to_dict()), indent=2, allow_nan=False))
    else:
        _say(diff_text(result))
    return 0


def _validate(args: argparse.Namespace) -> int:
    from .scenarios import load_scenario

    catalog = _catalog(args)
    bad = 0
    for name in args.scenario:
        try:
            scenario = load_scenario(name, catalog)
            if any(claim.kind == "figure" for claim in scenario.claims):
                from .presentation.output import check_figure_paths

                check_figure_paths(scenario)  # a claim's path, unit and baseline are read on the output
        except InputError as exc:
            _say(f"costmodel validate: {exc}", file=sys.stderr)
            bad += 1
            continue
        _say(f"{name}: valid ({scenario.title})")
    return BAD_INPUT if bad else 0


def _schema(args: argparse.Namespace) -> int:
    if args.output == "compare":
        from .presentation.output import output_json_schema

        print(json.dumps(output_json_schema(), indent=2, ensure_ascii=False))
        return 0
    if args.output is not None:
        from .presentation.documents import document_json_schema

        print(json.dumps(document_json_schema(args.output), indent=2, ensure_ascii=False))
        return 0
    from .scenarios import scenario_json_schema

    print(json.dumps(scenario_json_schema(_catalog(args)), indent=2, sort_keys=False))
    return 0


def _list(args: argparse.Namespace) -> int:
    from .scenarios import bundled_scenarios, load_scenario

    for name in bundled_scenarios():
        _say(f"{name:<28} {load_scenario(name).title}")
    return 0


_LIST_COLUMNS = {
    "gpus": ("name", "memory_gb", "memory_bandwidth_tb_s", "bf16_dense_tflops", "fp8_dense_tflops", "tdp_w"),
    "servers": ("gpu", "gpus_per_server", "price", "currency", "max_power_kw", "quality"),
    "cloud_offers": (
        "provider",
        "gpu",
        "region",
        "gpus_per_instance",
        "price_per_gpu_hour",
        "spot_price_per_gpu_hour",
        "currency",
    ),
    "api_offers": (
        "provider",
        "model",
        "input_per_million",
        "cached_input_per_million",
        "output_per_million",
        "currency",
    ),
    "models": ("name", "total_parameters", "active_parameters", "layers", "context_length_tokens"),
}
"""Columns ``costmodel catalog list`` shows per table (after the id, before the as-of date); other
tables show their first five columns."""


def _catalog_command(args: argparse.Namespace) -> int:
    from pydantic import BaseModel

    from . import lookup

    catalog = _catalog(args)
    if catalog is None:
        from .catalog import default_catalog

        catalog = default_catalog()
    if args.action == "list":
        table = lookup.kind_of(args.kind)
        rows = list(getattr(catalog, table).values())
        if args.filter:
            keep = {m.ident for m in lookup.search(catalog, args.filter, (table,))}
            rows = [row for row in rows if row.ident in keep]
        if args.sort:
            row_type = type(next(iter(getattr(catalog, table).values())))
            assert issubclass(row_type, BaseModel), "a catalog row is a pydantic model"
            if args.sort not in row_type.model_fields:
                _say(
                    f"costmodel catalog list: --sort {args.sort!r} is not a column of {lookup.kind_name(table)}; "
                    f"the columns are {', '.join(row_type.model_fields)}",
                    file=sys.stderr,
                )
                return BAD_INPUT
            filled = [row for row in rows if getattr(row, args.sort) is not None]
            rows = sorted(filled, key=lambda row: getattr(row, args.sort)) + [r for r in rows if r not in filled]
        if not rows and args.filter:
            _say(f"costmodel catalog list: no {lookup.kind_name(table)} match {args.filter!r}", file=sys.stderr)
            return 1
        return _print_rows(args, table, rows)
    if args.action == "search":
        text = " ".join(args.text)
        every = lookup.search(catalog, text)
        matches = every[: args.limit]
        if not matches:
            close = lookup.close_ids(catalog, text)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            _say(f"costmodel catalog: nothing in the catalog matches {text!r}{hint}", file=sys.stderr)
            return 1
        if args.json:
            print(
                json.dumps(
                    [{"kind": lookup.kind_name(m.table), "id": m.ident, **_json_row(m.row)} for m in matches],
                    indent=2,
                    ensure_ascii=False,
                )
            )
            return 0
        width = max(len(m.ident) for m in matches)
        for m in matches:
            _say(f"{lookup.kind_name(m.table):<10} {m.ident:<{width}}  {_title(m.row)}")
        if len(every) > len(matches):
            _say(f"({len(every) - len(matches):,} more not shown: --limit {len(every)} shows all, or narrow the words)")
        return 0
    if args.action == "show":
        found = [
            (table, rows[args.id]) for table in lookup.KINDS.values() if args.id in (rows := getattr(catalog, table))
        ]
        if not found:  # ids are exact, but their case is no one's to remember
            found = [
                (table, row)
                for table in lookup.KINDS.values()
                for ident, row in getattr(catalog, table).items()
                if ident.casefold() == args.id.casefold()
            ]
        if not found:
            close = [m.ident for m in lookup.search(catalog, args.id, limit=5)] or lookup.close_ids(catalog, args.id)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            _say(
                f"costmodel catalog show: no row has the id {args.id!r}{hint} (`costmodel catalog search TEXT` "
                "finds rows by name)",
                file=sys.stderr,
            )
            return BAD_INPUT
        if args.json:
            print(
                json.dumps(
                    [{"kind": lookup.kind_name(t), "id": row.ident, **_json_row(row)} for t, row in found],
                    indent=2,
                    ensure_ascii=False,
                )
            )
            return 0
        for index, (table, row) in enumerate(found):
            if index:
                _say("")
            _say(_shown(table, row, lookup.stale_rows([row])))
        return 0
    stale = lookup.stale_rows(lookup.all_rows(catalog))
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "kind": lookup.kind_name(s.table),
                        "id": s.row.ident,
                        "file": s.row.source_file,
                        "as_of": s.row.as_of,
                        "age_months": s.age_months,
                        "limit_months": s.limit_months,
                    }
                    for s in stale
                ],
                indent=2,
            )
        )
        return 0
    limits = ", ".join(f"{lookup.kind_name(t)} {m}" for t, m in lookup.STALE_AFTER_MONTHS.items() if m)
    _say(f"{len(stale):,} catalog figures are older than their table allows (months: {limits}):")
    for s in stale:
        _say(f"  {s.describe()}")
    return 0


def _json_row(row) -> dict:
    return {"file": row.source_file, **row.model_dump(mode="json")}


def _title(row) -> str:
    """A row's name for a search result: its name, provider and model or GPU, and its as-of date."""
    parts = [
        str(getattr(row, name))
        for name in ("provider", "name", "model", "gpu", "region")
        if isinstance(getattr(row, name, None), str) and name != row.key
    ]
    return f"{' · '.join(dict.fromkeys(parts))}  [{row.quality}, {row.as_of}]"


def _print_rows(args: argparse.Namespace, table: str, rows: list) -> int:
    if args.json:
        print(json.dumps([_json_row(row) for row in rows], indent=2, ensure_ascii=False))
        return 0
    if not rows:
        _say(f"no rows{' match ' + repr(args.filter) if args.filter else ''}")
        return 0
    row_type = type(rows[0])
    columns = (
        _LIST_COLUMNS.get(table)
        or tuple(
            name for name in row_type.model_fields if name not in (row_type.key, "quality", "as_of", "source", "notes")
        )[:5]
    )
    header = (row_type.key, *columns, "as_of")
    cells = [[_cell(getattr(row, name)) for name in header] for row in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    _say("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    for line in cells:
        _say("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    _say(
        f"({len(rows):,} row{'s' if len(rows) != 1 else ''} of {rows[0].file}; `costmodel catalog show ID` gives "
        "a row's every field and source)"
    )
    return 0


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) >= 1e6 else f"{value:g}"
    return str(value)


def _shown(table: str, row, stale: list) -> str:
    """Every field of a catalog row with its unit, then its source, grade and as-of date."""
    import re

    from . import lookup

    grades = {"P": "primary source", "S": "secondary source", "U": "unsourced estimate"}
    lines = [f"{row.source_file}: {row.ident} ({lookup.kind_name(table)})"]
    for name, info in type(row).model_fields.items():
        if name in ("quality", "as_of", "source", "notes"):
            continue
        value = getattr(row, name)
        unit = re.search(r"\[([^\]]+)\]\s*$", info.description or "")
        shown = "" if value is None else _cell(value)
        if shown and unit and unit.group(1) != "-":
            shown += f" [{unit.group(1).replace('currency', getattr(row, 'currency', None) or 'currency')}]"
        lines.append(f"  {name}: {shown or '(empty)'}")
    lines.append(f"  source: {row.source}")
    lines.append(f"  grade: {row.quality} ({grades[row.quality]}); as of {row.as_of}")
    if row.notes:
        lines.append(f"  notes: {row.notes}")
    lines += [
        f"  stale: {s.age_months} months old; {lookup.kind_name(table)} are flagged after {s.limit_months} months"
        for s in stale
    ]
    return "\n".join(lines)


def _what_if(args: argparse.Namespace) -> int:
    import os
    import subprocess
    from pathlib import Path

    from .files import made_folder, output_file, output_folder, write_text_atomically
    from .paths import NOTEBOOK_DIR
    from .scenarios import load_scenario, scenario_path

    output_folder(args.out, "--out")  # a file there: exit 2 before anything else
    path = scenario_path(args.scenario)
    target = output_file(Path(args.out) / f"{path.stem}.ipynb", "--out")  # a FIFO or a folder there: exit 2
    catalog = _catalog(args)  # a bad catalog folder: exit 2, before anything is written
    scenario = load_scenario(args.scenario, catalog)  # bad input stops here (exit 2), before anything is written
    inputs = args.inputs
    if inputs is not None:
        from .domain.uncertainty import numeric_inputs

        known = set(numeric_inputs(scenario)) | {
            "workload.gpu",
            "options.own.server",
            "options.rent.offer",
            "options.api.offer",
            "finance",
            "workload.serving.redundancy",
        }
        unknown = [p for p in inputs if p not in known]
        if unknown:
            raise ValueError(
                f"--inputs: not an input of {path.name}: {', '.join(unknown)}; it has {', '.join(sorted(known))}"
            )
    name = (
        args.scenario
        if path.parent.resolve() == (NOTEBOOK_DIR.parent / "data" / "scenarios").resolve() or not path.exists()
        else str(path.resolve())
    )
    notebook = json.loads((NOTEBOOK_DIR / "what_if.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            # the kernel runs in the notebook's folder: a catalog folder is named by its absolute path
            folder = str(Path(args.catalog).resolve()) if args.catalog else ""
            cell["source"] = (
                f"scenario = {name!r}  # bundled scenario name, or path to a scenario YAML file\n"
                f"inputs = {inputs!r}  # list of input paths to give a control, or None: the five "
                "that move the answer most\n"
                f"catalog = {folder!r}  # folder of catalog CSV rows to add, as compare --catalog; "
                '"" for the bundled catalog'
            )
    made_folder(args.out, "--out")
    write_text_atomically(target, json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    _say(f"wrote {target}: open it in JupyterLab and run all cells (Run > Run All Cells)")
    if args.no_lab:
        return 0
    import importlib.util

    missing = [name for name in ("jupyterlab", "ipywidgets") if importlib.util.find_spec(name) is None]
    if missing:  # jupyter itself comes with the report stack: it would only say "jupyter-lab not found"
        _say(
            f"costmodel what-if needs {' and '.join(missing)} to open the notebook: pip install "
            "'costmodel[interactive]' (or make lab in the repository); the notebook is written, --no-lab "
            "writes it alone",
            file=sys.stderr,
        )
        return BAD_INPUT
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", str(target)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.insert(4, "--allow-root")
    return subprocess.call(command)


def _number(text: str) -> float:
    """A ``--volume``: a finite number from 0 to 1e15 (argparse type). 0 is a volume: the options'
    fixed costs, with costs per unit "not defined"."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (value == value and abs(value) != float("inf")) or value < 0 or abs(value) > LARGEST_INPUT:
        largest = f"{LARGEST_INPUT:.0e}".replace("+", "")  # 1e15
        raise argparse.ArgumentTypeError(f"must be a number from 0 to {largest}, got {text!r}")
    return value + 0.0


def _upper(text: str) -> float:
    """A ``--volume-max``: a finite number above 0 and at most 1e15 (argparse type); the break-even
    search runs from 0 to it, so 0 would search nothing."""
    value = _number(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be above 0 (the break-even search runs from 0 to it), got {text!r}")
    return value


MOST_WORKERS = 64
"""Most processes ``batch --workers`` starts: a fixed cap, the same on every machine, far above the
cores of a workstation (a dask cluster has its own workers)."""


def _workers(text: str) -> int:
    """A ``--workers``: a whole number from 1 to :data:`MOST_WORKERS` (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of processes") from None
    if not 1 <= value <= MOST_WORKERS:
        raise argparse.ArgumentTypeError(f"{value}: workers are at least 1 and at most {MOST_WORKERS}")
    return value


def _path(text: str) -> str:
    """A file or folder option (argparse type): not empty (an empty path would be the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty path ({text!r}): give a file or folder")
    return text


def _scenario(text: str) -> str:
    """A scenario argument (argparse type): not empty (an empty path would be the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty scenario ({text!r}): give a bundled scenario's name or a path")
    return text


def _scheduler(text: str) -> str:
    """A ``--scheduler``: ``local``, or ``tcp://host:port`` or ``tls://host:port`` (argparse type).

    Only the form is checked here; whether a scheduler answers there is checked when the batch
    connects (:class:`costmodel.batch.SchedulerError`).
    """
    from urllib.parse import urlsplit

    if text == "local":
        return text
    form = "give 'local', or a dask scheduler's address as tcp://host:port or tls://host:port"
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an address: {form}") from None
    if (
        parts.scheme not in ("tcp", "tls")
        or not parts.hostname
        or port is None
        or port == 0
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
    ):
        raise argparse.ArgumentTypeError(f"{text!r} is not an address: {form}")
    return text


def _inputs(text: str) -> list[str]:
    """A ``--inputs``: comma-separated input paths, none of them empty (argparse type)."""
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise argparse.ArgumentTypeError(f"{text!r} names no input: give input paths separated by commas")
    if not all(items):
        raise argparse.ArgumentTypeError(
            f"{text!r} has an empty item (two commas together, or one at an end): give input paths separated by commas"
        )
    return items


class _Parser(argparse.ArgumentParser):
    def _get_values(self, action: argparse.Action, arg_strings: list[str]):
        # argparse drops a lone "--" given as an option's value (``--volume-max=--``) and hands the
        # command an empty list instead of an error; refuse it here as any other missing value.
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            self.error(f"argument {'/'.join(action.option_strings)}: expected one value, got '--'")
        return super()._get_values(action, arg_strings)

    def error(self, message: str):
        self.print_usage(sys.stderr)
        from .presentation.safe import terminal

        self.exit(BAD_INPUT, f"{self.prog}: {terminal(message)}\n")


# The subcommands of ``costmodel``, to which each ``_add_*`` adds its parser.
_Commands: TypeAlias = "argparse._SubParsersAction[_Parser]"


def _export(args: argparse.Namespace) -> int:
    from .presentation.workbook import export_files
    from .scenarios import load_scenario

    if not (args.xlsx or args.csv or args.parquet):
        _say("costmodel export: say what to write: --xlsx FILE, --csv DIR or --parquet DIR", file=sys.stderr)
        return 2
    scenario = load_scenario(args.scenario)
    try:
        written = export_files(scenario, xlsx=args.xlsx, csv=args.csv, parquet=args.parquet)
    except OSError as exc:
        _say(
            f"costmodel export: cannot write {exc.filename or 'the files'}: {exc.strerror or exc}; "
            "the earlier files are as they were",
            file=sys.stderr,
        )
        return 1
    for path in written:
        _say(f"wrote {path}")
    return 0


CURVE_COLUMNS = (
    "point",
    "curve",
    "model",
    "gpu",
    "precision",
    "gpus_per_replica",
    "parallelism",
    "engine",
    "input_tokens",
    "output_tokens",
    "concurrency",
    "output_tokens_per_second_per_gpu",
    "tokens_per_second_per_user",
    "ttft_seconds",
    "ttft_statistic",
    "quality",
    "as_of",
    "source",
    "notes",
    "phase",
    "input_tokens_per_second_per_gpu",
)
"""Columns of ``costmodel curves`` output: data/serving_curves.csv's, with the phase and prefill rate."""


def _curves(args: argparse.Namespace) -> int:
    from . import estimate
    from .files import made_folder, output_file, write_text_atomically

    try:
        estimate.require()
    except estimate.EstimateUnavailable as exc:
        _say(f"costmodel curves: {exc}", file=sys.stderr)
        return BAD_INPUT
    if args.list:
        return _curves_list(args)
    refusal = _curves_refusal(args)
    if refusal is not None:
        _say(f"costmodel curves: {refusal}", file=sys.stderr)
        return BAD_INPUT
    out = None
    if args.out:  # the file's format follows --json: JSON in a .json file, CSV in a .csv one
        out = output_file(args.out, "--out", ".json" if args.json else ".csv")
        made_folder(out.parent, "--out")
    rows = _curve_rows(args)
    if rows is None:
        return BAD_INPUT
    text = _curves_text(rows, args.json)
    if out is None:
        sys.stdout.write(text)
    else:
        write_text_atomically(out, text)
        curves = len({r["curve"] for r in rows})
        _say(
            f"wrote {out}: {len(rows)} rows, {curves} curve{'s' if curves != 1 else ''} (grade E, "
            f"{estimate.PACKAGE} {estimate.PINNED}); put it in a folder as serving_curves.csv and give "
            "--catalog FOLDER to size with it"
        )
    return 0


def _curves_list(args: argparse.Namespace) -> int:
    """``costmodel curves --list``: every model and GPU pair the database covers, by engine."""
    from . import estimate

    extra = [
        name
        for name, value in (
            ("MODEL", args.model),
            ("GPU", args.gpu),
            ("--out", args.out),
            ("--input-tokens", args.input_tokens),
            ("--output-tokens", args.output_tokens),
        )
        if value is not None
    ]
    if extra:
        _say(
            f"costmodel curves: --list takes no {', '.join(extra)} (it lists every covered pair; "
            "--engine narrows it, --json prints it as JSON)",
            file=sys.stderr,
        )
        return BAD_INPUT
    rows = [{"model": m, "gpu": g, "engine": e} for m, g, e in estimate.coverage(args.engine)]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for gpu in sorted({r["gpu"] for r in rows}):
            for engine in estimate.ENGINES:
                models = [r["model"] for r in rows if r["gpu"] == gpu and r["engine"] == engine]
                if models:
                    _say(f"{gpu} ({engine}): {', '.join(models)}")
    return 0


def _curves_refusal(args: argparse.Namespace) -> str | None:
    """Why ``costmodel curves`` cannot estimate what it was asked (a missing argument, an id not in the
    catalog, a request longer than the model's context), or None."""
    from .catalog import default_catalog, load_catalog_overrides
    from .errors import did_you_mean

    missing = [
        name
        for name, value in (
            ("MODEL", args.model),
            ("GPU", args.gpu),
            ("--input-tokens", args.input_tokens),
            ("--output-tokens", args.output_tokens),
        )
        if value is None
    ]
    if missing:
        return f"give {', '.join(missing)} (or --list for what the database covers)"
    catalog = load_catalog_overrides(args.catalog) if args.catalog else None
    catalog = catalog or default_catalog()
    for kind, value, table in (("model", args.model, catalog.models), ("GPU", args.gpu, catalog.gpus)):
        if value not in table:
            return (
                f"{value!r} is not a {kind} id of the catalog{did_you_mean(value, table)}; "
                f"costmodel catalog search {value}"
            )
    context = catalog.models[args.model].context_length_tokens
    if context is not None and args.input_tokens + args.output_tokens > context:
        return (
            f"--input-tokens {args.input_tokens:,} + --output-tokens {args.output_tokens:,} "
            f"exceed {args.model}'s context of {context:,} tokens (data/models.csv)"
        )
    return None


def _curve_rows(args: argparse.Namespace) -> list[dict[str, Any]] | None:
    """The estimated serving-curve rows of ``costmodel curves``, or None when none can be estimated
    (said on stderr). Without ``--precision``: fp8, else the first of bf16 and fp4 the database has
    the kernels of (gpt-oss's MXFP4 experts are measured at fp4 only), said on stderr."""
    from . import estimate
    from .lookup import review_date

    try:
        levers = estimate.Levers(
            args.prefix_cache_hit_rate, args.speculative_tokens, args.acceptance_rate, args.kv_cache_precision
        )
        request = estimate.Request(args.input_tokens, args.output_tokens)
        engine = args.engine or "trtllm"
        estimate.check_covered(args.model, args.gpu, engine)
    except (estimate.NotCovered, ValueError) as exc:
        _say(f"costmodel curves: {exc}", file=sys.stderr)
        return None
    refused: list[str] = []
    for precision in [args.precision] if args.precision else ["fp8", "bf16", "fp4"]:
        try:
            rows = estimate.curve(
                args.model,
                args.gpu,
                request,
                precision=precision,
                engine=engine,
                gpus_per_replica=args.gpus_per_replica,
                disaggregated=args.disaggregated,
                levers=levers,
            )
        except estimate.NotCovered as exc:
            refused.append(f"at {precision}: {exc}")
            continue
        if refused:
            _say(
                f"costmodel curves: estimated at {precision} (no --precision given; "
                + " and ".join(r.split(":")[0] for r in refused)
                + " the database has no kernels for this model)",
                file=sys.stderr,
            )
        for row in rows:
            row["as_of"] = row["as_of"] or review_date().isoformat()
        return rows
    _say(
        "costmodel curves: "
        + ("; ".join(refused) if args.precision else "no precision could be estimated: " + "; ".join(refused)),
        file=sys.stderr,
    )
    return None


def _curves_text(rows: list[dict[str, Any]], as_json: bool) -> str:
    """Serving-curve rows as JSON, or as CSV in the columns of data/serving_curves.csv."""
    import csv
    import io

    if as_json:
        return json.dumps(rows, indent=1) + "\n"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CURVE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: ("" if row.get(k) is None else row[k]) for k in CURVE_COLUMNS} for row in rows)
    return buffer.getvalue()


def _share(text: str, closed: bool = False) -> float:
    """A share in [0, 1), or in [0, 1] when ``closed`` (argparse type)."""
    from .numbers import is_decimal_text

    if not is_decimal_text(text) or not (0 <= float(text) <= 1 if closed else 0 <= float(text) < 1):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a share from 0 " + ("to 1" if closed else "up to (not including) 1")
        )
    return float(text)


def _unit_share(text: str) -> float:
    """A share in [0, 1] (argparse type)."""
    return _share(text, closed=True)


def _tokens(text: str) -> int:
    """A token count, at least 1 and at most 1,000,000 (argparse type)."""
    from .numbers import is_count_text

    if not is_count_text(text) or not 1 <= int(text) <= 1_000_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens from 1 to 1,000,000")
    return int(text)


def _small_count(text: str) -> int:
    from .numbers import is_count_text

    if not is_count_text(text) or not 0 <= int(text) <= 8:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 0 to 8")
    return int(text)


def _replica(text: str) -> int:
    from .numbers import is_count_text

    if not is_count_text(text) or int(text) not in (1, 2, 4, 8):
        raise argparse.ArgumentTypeError(f"{text!r}: GPUs per replica are 1, 2, 4 or 8 (one node)")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``costmodel`` command."""
    from . import __version__

    parser = _Parser(prog="costmodel", description="Own, rent or API: GPU cost break-evens.")
    parser.add_argument("--version", action="version", version=f"costmodel {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_report(commands)
    _add_compare(commands)
    _add_batch(commands)
    _add_diff(commands)
    _add_validate(commands)
    _add_schema(commands)
    _add_what_if(commands)
    _add_catalog(commands)
    _add_curves(commands)
    _add_list(commands)
    _add_export(commands)
    _add_bills(commands)
    _add_fleet(commands)
    return parser


def _add_fleet(commands: _Commands) -> None:
    """``costmodel fleet``: several workloads on one fleet, and each team's share of its cost."""
    fleet = commands.add_parser("fleet", help="several workloads on one fleet: the cheapest way to pay, and showback")
    fleet.add_argument("file", type=_path, help="a fleet YAML file (kind: fleet)")
    fleet.add_argument("--json", action="store_true", help="print JSON for scripts")
    fleet.set_defaults(run=_fleet)


_FLEET_WAYS = {
    "own": "own cluster",
    "rent": "cloud rental, on demand",
    "rent.reserved": "cloud rental, reserved",
    "rent.spot": "cloud rental, spot",
    "mix": "cheapest mix, hour by hour",
}
"""A fleet's ways to pay in words (``fleet --json`` keeps the ids); a further offer keeps its own name."""


def _fleet(args: argparse.Namespace) -> int:
    from .domain.fleet import compare_fleet

    result = compare_fleet(args.file)
    if args.json:
        from .presentation.documents import document

        print(json.dumps(document("fleet", result.to_dict()), indent=2, allow_nan=False))
        return 0
    from calendar import month_abbr

    c = result.currency
    lines = [result.title or str(args.file), ""]
    lines.append(f"Fleet, on the members' summed hourly demand ({c}/month):")
    lines += [
        f"  {_FLEET_WAYS.get(k, k):<28} {v:>14,.2f}{'  <- cheapest' if k == result.winner else ''}"
        for k, v in result.figures.items()
    ]
    lines += ["", "Each member alone:"]
    lines += [
        f"  {m.name:<16} {m.team:<12} {_FLEET_WAYS.get(m.winner, m.winner):<28} {m.alone:>14,.2f}"
        for m in result.members
    ]
    lines += [
        f"  {m.name}: {m.run_gpu_hours:,.0f} GPU-hours a run, in {', '.join(month_abbr[n] for n in m.run_months)}"
        for m in result.members
        if m.run_gpu_hours is not None
    ]
    saving = round(result.saving, 2) + 0.0  # no "-0.00"
    lines.append(f"  Sharing saves {saving:,.2f} {c}/month (alone {result.alone:,.2f}, fleet {result.total:,.2f})")
    lines += _showback_lines(result)
    if result.monthly:
        teams = [s.team for s in result.showback]
        lines += ["", f"By calendar month ({c}; the month's cost split by the month's GPU-hours):"]
        lines.append(f"  {'month':<6} {'cost':>12}" + "".join(f" {t[:14]:>14}" for t in teams))
        lines += [
            f"  {month_abbr[ms.month]:<6} {ms.cost:>12,.2f}" + "".join(f" {s.allocated:>14,.2f}" for s in ms.teams)
            for ms in result.monthly
        ]
    _say("\n".join(lines))
    return 0


def _showback_lines(result) -> list[str]:
    """The showback table of ``fleet``'s text, each team's allocation beside what its members cost alone: the split
    is by GPU-hours used, so a team can pay more on the fleet than alone while the fleet as a whole saves."""
    c = result.currency
    alone: dict[str, float] = {}
    for m in result.members:
        alone[m.team] = alone.get(m.team, 0.0) + m.alone
    lines = ["", f"Showback ({c}/month): team, GPU-hours used, share, allocated, of which idle, alone, change"]
    lines += [
        f"  {s.team:<16} {s.gpu_hours:>12,.0f} {100 * s.share:>6.1f} % {s.allocated:>14,.2f} {s.idle:>12,.2f}"
        f" {alone[s.team]:>14,.2f} {round(float(s.allocated) - alone[s.team], 2) + 0.0:>+12,.2f}"
        for s in result.showback
    ]
    dearer = [s.team for s in result.showback if round(float(s.allocated) - alone[s.team], 2) > 0]
    if dearer:
        lines.append(
            f"  {', '.join(dearer)} {'pays' if len(dearer) == 1 else 'pay'} more on the fleet than alone: the cost is "
            "split by GPU-hours used, not by what each team's work saves"
        )
    return lines


def _add_report(commands: _Commands) -> None:
    """``costmodel report``: render reports to HTML."""
    report = commands.add_parser("report", help="render reports to self-contained HTML")
    report.add_argument(
        "scenario",
        nargs="*",
        type=_scenario,
        help=f"scenario names or YAML paths (default: {', '.join(REFERENCE_SCENARIOS)})",
    )
    report.add_argument("--out", type=_path, default="reports", help="output folder (default: reports/)")
    report.add_argument("--timeout", type=_seconds, default=600, help="longest time per notebook cell [s]")
    report.add_argument(
        "--catalog",
        metavar="DIR",
        type=_path,
        default=None,
        help="folder of catalog CSV rows to add to the bundled ones (see compare)",
    )
    report.add_argument(
        "--volume-max",
        metavar="V",
        type=_upper,
        default=None,
        help="upper end of the break-even charts' volume axis, in the scenario's volume unit "
        "(GPU-hours/month or tokens/day), at least its volume (default: 10 x the volume); "
        "not for a training run",
    )
    report.set_defaults(run=_report)


def _add_compare(commands: _Commands) -> None:
    """``costmodel compare``: the cost of each option and the break-evens."""
    compare = commands.add_parser("compare", help="print the cost of each option and the break-evens")
    compare.add_argument("scenario", type=_scenario, help="scenario name or YAML path")
    compare.add_argument("--json", action="store_true", help="print JSON for scripts")
    compare.add_argument("--volume", type=_number, default=None, help="volume to compare at (default: the scenario's)")
    compare.add_argument(
        "--volume-max",
        type=_upper,
        default=None,
        help="upper end of the break-even search, at least the volume (default: 10 x the "
        "volume); neither option for a training workload",
    )
    compare.add_argument(
        "--no-uncertainty",
        action="store_true",
        help="with --json: leave the uncertainty section null (no Monte Carlo, tornado or Sobol run)",
    )
    compare.add_argument(
        "--catalog",
        metavar="DIR",
        type=_path,
        default=None,
        help="folder of catalog CSV files whose rows add to or replace the bundled rows",
    )
    compare.set_defaults(run=_compare)


def _add_batch(commands: _Commands) -> None:
    """``costmodel batch``: many scenarios and sweeps into one portfolio table."""
    batch = commands.add_parser("batch", help="many scenarios and sweeps into one portfolio table (CSV, Parquet)")
    batch.add_argument(
        "scenario", nargs="*", type=_scenario, help="scenario names, YAML files, folders or glob patterns"
    )
    batch.add_argument(
        "--sweep", metavar="FILE", type=_path, default=None, help="a sweep file: base scenario and input values"
    )
    batch.add_argument("--out", required=True, metavar="DIR", type=_path, help="output folder")
    batch.add_argument(
        "--workers",
        type=_workers,
        default=1,
        help=f"processes (or dask workers) to run on, 1 to {MOST_WORKERS} (default 1)",
    )
    where = batch.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        type=_scheduler,
        default=None,
        help="run on a dask.distributed scheduler at ADDRESS (tcp://host:8786), or 'local'",
    )
    where.add_argument("--dask", action="store_true", help="run on a dask.distributed LocalCluster of --workers")
    batch.add_argument(
        "--resume",
        action="store_true",
        help="go on with an interrupted sweep from the chunks stored in DIR/portfolio.parts",
    )
    batch.add_argument(
        "--reports", action="store_true", help="also render one HTML report per scenario and an index page"
    )
    batch.add_argument("--fail-fast", action="store_true", help="stop at the first scenario that fails")
    batch.add_argument("--xlsx", action="store_true", help="also write portfolio.xlsx (one sheet, Portfolio)")
    batch.add_argument(
        "--catalog", metavar="DIR", type=_path, default=None, help="folder of catalog rows to add (see compare)"
    )
    batch.add_argument("--timeout", type=_seconds, default=600, help="longest time per notebook cell [s]")
    batch.set_defaults(run=_batch)


def _add_diff(commands: _Commands) -> None:
    """``costmodel diff``: which inputs differ between two scenarios."""
    differ = commands.add_parser("diff", help="which inputs differ between two scenarios, and what each moved")
    differ.add_argument("a", type=_scenario, help="the first scenario (name or path)")
    differ.add_argument("b", type=_scenario, help="the second scenario")
    differ.add_argument("--json", action="store_true", help="print JSON for scripts")
    differ.add_argument("--catalog", metavar="DIR", type=_path, default=None, help="catalog rows to add, for both")
    differ.add_argument("--catalog-b", metavar="DIR", type=_path, default=None, help="catalog rows to add for B only")
    differ.set_defaults(run=_diff)


def _add_validate(commands: _Commands) -> None:
    """``costmodel validate``: check scenario files."""
    validate = commands.add_parser("validate", help="check scenario files; exit 2 if any is bad")
    validate.add_argument("scenario", nargs="+", type=_scenario, help="scenario names or YAML paths")
    validate.add_argument("--catalog", metavar="DIR", type=_path, default=None, help="catalog rows to add")
    validate.set_defaults(run=_validate)


def _add_schema(commands: _Commands) -> None:
    """``costmodel schema``: the JSON Schema of a scenario file or of the output."""
    schema = commands.add_parser(
        "schema",
        help="print a JSON Schema: the scenario file's (default, catalog ids as "
        "enums) or, with --output, that of `compare --json`",
    )
    schema.add_argument(
        "--output",
        nargs="?",
        const="compare",
        default=None,
        choices=("compare", "fleet", "diff", "bills"),
        help="the JSON Schema of a command's --json output (its contract): compare (the default), fleet, diff or bills",
    )
    schema.add_argument("--catalog", metavar="DIR", type=_path, default=None, help="catalog rows to add to the enums")
    schema.set_defaults(run=_schema)


def _add_what_if(commands: _Commands) -> None:
    """``costmodel what-if``: a live what-if notebook."""
    what_if = commands.add_parser("what-if", help="open a live what-if notebook for a scenario in JupyterLab")
    what_if.add_argument("scenario", type=_scenario, help="scenario name or YAML path")
    what_if.add_argument(
        "--inputs",
        type=_inputs,
        default=None,
        help="comma-separated input paths to give a control (default: the five that move the answer most)",
    )
    what_if.add_argument(
        "--out", type=_path, default="what-if", help="folder for the prepared notebook (default: what-if/)"
    )
    what_if.add_argument("--no-lab", action="store_true", help="write the notebook only; do not start JupyterLab")
    what_if.add_argument(
        "--catalog",
        metavar="DIR",
        type=_path,
        default=None,
        help="folder of catalog CSV rows to add (see compare); the panel's dropdowns list them too",
    )
    what_if.set_defaults(run=_what_if)


def _add_catalog(commands: _Commands) -> None:
    """``costmodel catalog``: list, search and show the catalog's rows."""
    browse = commands.add_parser("catalog", help="list, search and show the catalog's rows, and which are stale")
    actions = browse.add_subparsers(dest="action", required=True, parser_class=_Parser)
    lister = actions.add_parser("list", help="the rows of one kind: gpus, servers, rentals, apis, models, ...")
    lister.add_argument(
        "kind",
        help="gpus, servers, rentals, apis, models, throughput, curves, training-runs, grid, "
        "pue, embodied, api-energy, api-windows or tax",
    )
    lister.add_argument("--filter", metavar="TEXT", default=None, help="only the rows that match TEXT (as search)")
    lister.add_argument(
        "--sort",
        metavar="COLUMN",
        default=None,
        help="order by a column, lowest first (e.g. price_per_gpu_hour, spot_price_per_gpu_hour); "
        "rows without a value last",
    )
    searcher = actions.add_parser("search", help="rows of every kind whose id, name or notes hold every word of TEXT")
    searcher.add_argument("text", nargs="+", help="what to look for, e.g. mi300x, qwen3-32b, claude sonnet")
    searcher.add_argument("--limit", type=_row_count, default=50, help="most rows shown (default 50)")
    shower = actions.add_parser("show", help="every field of the row(s) with this id, with its source")
    shower.add_argument("id", help="a catalog id, e.g. MI300X-192GB")
    actions.add_parser("stale", help="the figures older than their table allows (prices: 6 months)")
    for sub in (lister, searcher, shower, actions.choices["stale"]):
        sub.add_argument("--json", action="store_true", help="print JSON for scripts")
        sub.add_argument("--catalog", metavar="DIR", type=_path, default=None, help="catalog rows to add")
    browse.set_defaults(run=_catalog_command)


def _add_curves(commands: _Commands) -> None:
    """``costmodel curves``: estimate a serving curve with AIConfigurator."""
    curves = commands.add_parser(
        "curves",
        help="estimate a model's serving curve on a GPU with NVIDIA's AIConfigurator (costmodel[estimate])",
        description="Sweep the batch size (and, unless --gpus-per-replica is given, the replica's size and split) "
        "with aiconfigurator-core's measured kernel database and write serving-curve rows (grade E) in "
        "the columns of data/serving_curves.csv.",
    )
    curves.add_argument("model", nargs="?", help="catalog model id, e.g. qwen3-32b")
    curves.add_argument("gpu", nargs="?", help="catalog GPU id, e.g. H200-SXM-141GB")
    curves.add_argument("--input-tokens", type=_tokens, help="input tokens per request [tokens]")
    curves.add_argument("--output-tokens", type=_tokens, help="output tokens per request [tokens]")
    curves.add_argument(
        "--precision",
        choices=("fp8", "bf16", "fp4"),
        default=None,
        help="weights (default fp8, else the first of bf16 and fp4 the database has kernels for)",
    )
    curves.add_argument(
        "--engine",
        choices=("trtllm", "vllm", "sglang"),
        default=None,
        help="serving engine of the database (default trtllm; with --list, only its pairs)",
    )
    curves.add_argument(
        "--gpus-per-replica",
        type=_replica,
        default=None,
        help="GPUs of a replica: 1, 2, 4 or 8 (default: each that fits)",
    )
    curves.add_argument(
        "--disaggregated",
        action="store_true",
        help="prefill and decode workers apart: a prefill curve and a decode curve",
    )
    curves.add_argument(
        "--prefix-cache-hit-rate",
        type=_share,
        default=0.0,
        help="share of input tokens found in the prefix cache [-] (default 0)",
    )
    curves.add_argument(
        "--speculative-tokens",
        type=_small_count,
        default=0,
        help="draft tokens per decode step, speculative decoding / MTP (default 0: off)",
    )
    curves.add_argument(
        "--acceptance-rate",
        type=_unit_share,
        default=0.0,
        help="share of draft tokens accepted [-] (with --speculative-tokens)",
    )
    curves.add_argument(
        "--kv-cache-precision",
        choices=("fp8", "bf16"),
        default=None,
        help="KV cache precision (default: fp8 for fp8/fp4 weights, bf16 for bf16)",
    )
    curves.add_argument("--out", type=_path, default=None, help="CSV file to write (default: print)")
    curves.add_argument("--json", action="store_true", help="print JSON rows instead of CSV")
    curves.add_argument("--list", action="store_true", help="every model and GPU the database covers, by engine")
    curves.add_argument("--catalog", metavar="DIR", type=_path, default=None, help="catalog rows to add")
    curves.set_defaults(run=_curves)


def _add_list(commands: _Commands) -> None:
    """``costmodel list``: the bundled scenarios."""
    listing = commands.add_parser("list", help="list the bundled scenarios")
    listing.set_defaults(run=_list)


def _add_export(commands: _Commands) -> None:
    """``costmodel export``: the cash flows as a workbook or as tables."""
    export = commands.add_parser("export", help="write the cash flows as a live Excel workbook or as tables")
    export.add_argument(
        "scenario",
        type=_scenario,
        help="scenario name or YAML path (the tables need a finance block, the workbook does not)",
    )
    export.add_argument(
        "--xlsx",
        type=_path,
        default=None,
        help="Excel workbook to write, a name ending .xlsx (Inputs, Cash flows, Summary; without "
        "a finance block Inputs, Monthly costs, Summary)",
    )
    export.add_argument(
        "--csv", type=_path, default=None, help="folder for cash_flows_by_month.csv and cash_flows_by_year.csv"
    )
    export.add_argument(
        "--parquet", type=_path, default=None, help="folder for the same tables as Parquet (needs pyarrow)"
    )
    export.set_defaults(run=_export)


def _bills(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .bills import read_summary, scenario_skeleton

    if args.scenario_out is not None:  # the skeleton and its demand file beside it: checked before the bill is read
        from .errors import OutputPathError
        from .files import output_file

        out = output_file(args.scenario_out, "--scenario-out")
        for target in (out, output_file(out.with_name(out.stem + "-demand.csv"), "--scenario-out")):
            if target.resolve() == Path(args.file).resolve():  # written over the bill being read
                raise OutputPathError(
                    "--scenario-out", target, f"is the bill being read ({args.file}): give another file"
                )
    summary = read_summary(args.file, args.format)
    if args.scenario_out is not None:
        from .files import made_folder
        from .scenarios import load_scenario, save_scenario

        out = Path(args.scenario_out)
        made_folder(out.absolute().parent, "--scenario-out")
        try:
            scenario_skeleton(summary, out, Path(args.file).name, check=load_scenario)
        except InputError as exc:
            raise exc.in_file(args.file) from None
        except ValueError as exc:
            raise InputError(args.file, [("(GPU rows)", "", str(exc))]) from None
        # read back: the skeleton is validated, and saved in the layout of the bundled scenarios
        save_scenario(load_scenario(out), out)
    if args.json:
        from .presentation.documents import document

        _say(json.dumps(document("bills", summary.to_json()), indent=2, allow_nan=False))
        return 0
    spend = sorted(summary.spend.items())
    # names whole, however long: a cut "Amazon Simple Storage Servic" is not the bill's service
    wide_p = max([len("provider")] + [len(provider) for (_, provider, _), _ in spend])
    wide_s = max([len("service")] + [len(service) for (_, _, service), _ in spend])
    _say(
        f"{'month':8} {'provider':{wide_p}} {'service':{wide_s}} {'BilledCost':>14} {'EffectiveCost':>14}  "
        f"[{summary.currency}]"
    )
    for (month, provider, service), (billed, effective) in spend:
        _say(f"{month:8} {provider:{wide_p}} {service:{wide_s}} {billed:>14,.2f} {effective:>14,.2f}")
    for month, total in sorted(summary.totals("month").items()):
        _say(f"total {month}: {total:,.2f} {summary.currency}")
    for provider, total in sorted(summary.totals("provider").items()):
        _say(f"total {provider}: {total:,.2f} {summary.currency}")
    by_gpu: dict[str, float] = {}
    for u in summary.gpu_uses:  # each GPU's own hours: an H100-hour and an L40S-hour are not one quantity
        by_gpu[u.gpu] = by_gpu.get(u.gpu, 0.0) + float(u.gpu_hours)
    split = "; ".join(f"{gpu} {hours:,.1f}" for gpu, hours in sorted(by_gpu.items()))
    _say(f"GPU-hours of known GPU instances: {sum(by_gpu.values()):,.1f}" + (f" ({split})" if split else ""))
    for line, name, cost in summary.unknown:
        _say(f"unknown compute row, line {line}: {name}: {cost:,.2f} {summary.currency} (not counted as GPU-hours)")
    if args.scenario_out:
        _say(f"wrote {args.scenario_out}")
    return 0


def _add_bills(commands: _Commands) -> None:
    """``costmodel bills``: read a FOCUS export or LiteLLM spend log."""
    bills = commands.add_parser("bills", help="read a FOCUS bill or LiteLLM spend log: spend, GPU-hours, a scenario")
    bills.add_argument("file", help="FOCUS 1.x export (CSV, CSV.gz, Parquet) or LiteLLM spend log (CSV, JSON)")
    bills.add_argument("--format", choices=["focus", "litellm"], default=None, help="default: from the columns")
    bills.add_argument("--json", action="store_true", help="machine-readable output (money as exact decimals)")
    bills.add_argument("--scenario-out", default=None, help="write a scenario skeleton (YAML) starting from the bill")
    bills.set_defaults(run=_bills)


def _row_count(text: str) -> int:
    """A ``--limit``: a whole number of rows, at least 1."""
    from .numbers import is_count_text

    if not is_count_text(text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of rows, at least 1")
    return int(text)


def _seconds(text: str) -> int:
    """A ``--timeout``: a whole number of seconds, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds") from None
    from .report import LONGEST_TIMEOUT

    if not 1 <= value <= LONGEST_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"{value} s: a timeout is at least 1 s and at most {LONGEST_TIMEOUT:,} s (a week)"
        )
    return value


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether an error was raised because of a KeyboardInterrupt (pydantic-core, for one, wraps an
    interrupt that arrives while it builds a validator in a SchemaError)."""
    seen = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad argument (exit 2)
        return int(exc.code or 0)
    try:
        previous = signal.signal(signal.SIGTERM, _interrupted)
    except ValueError:  # not the main thread: leave signals alone
        previous = None
    try:
        return args.run(args)
    except ExtraNotInstalled as exc:  # a feature of an extra that is not installed: named, with the pip command
        prefix = f"costmodel {args.command}"
        _say(str(exc) if str(exc).startswith(prefix) else f"{prefix}: {exc}", file=sys.stderr)
        return BAD_INPUT
    except (InputError, ValueError) as exc:
        scenario = getattr(args, "scenario", None)  # a problem found past loading is still the file's
        if isinstance(exc, InputError) and isinstance(scenario, str):
            exc = exc.in_file(scenario)
        elif isinstance(scenario, str) and not str(exc).startswith(scenario):
            exc = f"{scenario}: {exc}"
        _say(f"costmodel {args.command}: {exc}", file=sys.stderr)
        return BAD_INPUT
    except BrokenPipeError:  # e.g. `costmodel compare X --json | head`
        sys.stderr.close()
        return 0
    except OSError as exc:  # a file that could not be written (disk full, no permission): named, no traceback
        where = f" {exc.filename}" if exc.filename else ""
        _say(
            f"costmodel {args.command}: cannot write{where}: {exc.strerror or exc}; the earlier outputs are as "
            "they were",
            file=sys.stderr,
        )
        return FAILED
    except (KeyboardInterrupt, Exception) as exc:
        if not _caused_by_interrupt(exc):
            raise
        _say(f"costmodel {args.command}: interrupted; nothing half-written was left", file=sys.stderr)
        return INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def run() -> None:
    """The ``costmodel`` command: :func:`main`, then exit without the interpreter's final garbage
    collection (``gc.freeze``): everything was written and closed by then, so collecting the
    objects of pandas, papermill and nbconvert one by one would only delay the exit. Freed memory is kept in
    the process for the next calculation (:func:`costmodel.allocator.keep_freed_memory`)."""
    import gc

    from .allocator import keep_freed_memory

    keep_freed_memory()
    code = main()
    sys.stdout.flush()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()

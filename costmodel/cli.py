"""Command line: ``costmodel report`` and ``costmodel compare``.

Exit codes: 0 success; 1 a report failed; 2 bad input (a scenario or catalog error,
or a bad argument such as a negative volume).
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import InputError
from .paths import REFERENCE_SCENARIOS


def _report(args: argparse.Namespace) -> int:
    from .report import ReportError, render_report

    scenarios = args.scenario or list(REFERENCE_SCENARIOS)
    failed = 0
    for scenario in scenarios:
        try:
            report = render_report(scenario, args.out, timeout=args.timeout)
        except (InputError, ReportError) as exc:
            print(f"costmodel report: {exc}", file=sys.stderr)
            failed += 1
            continue
        except OSError as exc:   # e.g. --out names a file, or a folder that cannot be written
            print(f"costmodel report: {scenario}: cannot write under {args.out}: {exc.strerror or exc}",
                  file=sys.stderr)
            failed += 1
            continue
        size = report.html.stat().st_size
        print(f"{report.scenario}: wrote {report.html} ({size / 1024:,.0f} KiB) in {report.seconds:.1f} s")
    if failed:
        print(f"costmodel report: {failed} of {len(scenarios)} reports failed", file=sys.stderr)
        return 1
    return 0


def _compare(args: argparse.Namespace) -> int:
    from .domain.compare import compare
    from .presentation.text import comparison_text
    from .scenarios import load_scenario

    scenario = load_scenario(args.scenario)
    result = compare(scenario, volume=args.volume, volume_max=args.volume_max)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, allow_nan=False))
    else:
        print(comparison_text(result))
    return 0


def _export(args: argparse.Namespace) -> int:
    from .presentation.workbook import export_tables, write_workbook
    from .scenarios import load_scenario

    if not (args.xlsx or args.csv or args.parquet):
        print("costmodel export: say what to write: --xlsx FILE, --csv DIR or --parquet DIR", file=sys.stderr)
        return 2
    scenario = load_scenario(args.scenario)
    try:
        if args.xlsx:
            print(f"wrote {write_workbook(scenario, args.xlsx)}")
        for kind, folder in (("csv", args.csv), ("parquet", args.parquet)):
            if folder:
                for path in export_tables(scenario, folder, kind):
                    print(f"wrote {path}")
    except OSError as exc:
        print(f"costmodel export: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``costmodel`` command."""
    parser = argparse.ArgumentParser(prog="costmodel", description="Own, rent or API: GPU cost break-evens.")
    commands = parser.add_subparsers(dest="command", required=True)

    report = commands.add_parser("report", help="render break-even reports to self-contained HTML")
    report.add_argument("scenario", nargs="*",
                        help=f"scenario names or YAML paths (default: {', '.join(REFERENCE_SCENARIOS)})")
    report.add_argument("--out", default="reports", help="output folder (default: reports/)")
    report.add_argument("--timeout", type=int, default=600, help="longest time per notebook cell [s]")
    report.set_defaults(run=_report)

    compare = commands.add_parser("compare", help="print the cost of each option and the break-evens")
    compare.add_argument("scenario", help="scenario name or YAML path")
    compare.add_argument("--json", action="store_true", help="print JSON for scripts")
    compare.add_argument("--volume", type=float, default=None, help="volume to compare at (default: the scenario's)")
    compare.add_argument("--volume-max", type=float, default=None,
                         help="upper end of the break-even search (default: 10 x the volume)")
    compare.set_defaults(run=_compare)

    export = commands.add_parser("export", help="write the cash flows as a live Excel workbook or as tables")
    export.add_argument("scenario", help="scenario name or YAML path (needs a finance block)")
    export.add_argument("--xlsx", default=None, help="Excel workbook to write (Inputs, Cash flows, Summary)")
    export.add_argument("--csv", default=None, help="folder for cash_flows_by_month.csv and cash_flows_by_year.csv")
    export.add_argument("--parquet", default=None, help="folder for the same tables as Parquet (needs pyarrow)")
    export.set_defaults(run=_export)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (InputError, ValueError) as exc:
        print(f"costmodel {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `costmodel compare X --json | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())

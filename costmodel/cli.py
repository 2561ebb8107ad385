"""Command line: ``costmodel report``, ``costmodel compare``, ``costmodel list``.

Exit codes, on every command: 0 success; 1 a report failed to render (its notebook failed, or
its page would load something); 2 bad input (a scenario, catalog or job-log error, an unknown
notebook parameter, or a bad argument such as a negative volume; the message names the file,
the field, the value and the rule); 130 interrupted (Ctrl-C or SIGTERM, with no kernel or
socket left behind).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys

from .errors import InputError
from .paths import REFERENCE_SCENARIOS

BAD_INPUT, FAILED, INTERRUPTED = 2, 1, 130


def _report(args: argparse.Namespace) -> int:
    from .report import ReportError, render_report

    scenarios = args.scenario or list(REFERENCE_SCENARIOS)
    failed = bad = 0
    for scenario in scenarios:
        try:
            report = render_report(scenario, args.out, timeout=args.timeout)
        except (InputError, ValueError) as exc:
            print(f"costmodel report: {exc}", file=sys.stderr)
            bad += 1
            continue
        except ReportError as exc:
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
    if failed or bad:
        print(f"costmodel report: {failed + bad} of {len(scenarios)} reports failed"
              + (f" ({bad} with bad input)" if bad else ""), file=sys.stderr)
        return BAD_INPUT if bad else FAILED
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


def _list(args: argparse.Namespace) -> int:
    from .scenarios import bundled_scenarios, load_scenario

    for name in bundled_scenarios():
        print(f"{name:<28} {load_scenario(name).title}")
    return 0


def _what_if(args: argparse.Namespace) -> int:
    import os
    import subprocess
    from pathlib import Path

    from .files import write_text_atomically
    from .paths import NOTEBOOK_DIR
    from .scenarios import load_scenario, scenario_path

    path = scenario_path(args.scenario)
    scenario = load_scenario(args.scenario)        # bad input stops here (exit 2), before anything is written
    inputs = [p.strip() for p in args.inputs.split(",") if p.strip()] if args.inputs else None
    if inputs is not None:
        from .domain.uncertainty import numeric_inputs

        known = set(numeric_inputs(scenario)) | {"workload.gpu", "options.own.server", "options.rent.offer",
                                                  "options.api.offer", "finance", "workload.serving.redundancy"}
        unknown = [p for p in inputs if p not in known]
        if unknown:
            raise ValueError(f"--inputs: not an input of {path.name}: {', '.join(unknown)}; it has "
                             f"{', '.join(sorted(known))}")
    name = args.scenario if path.parent.resolve() == (NOTEBOOK_DIR.parent / "data" / "scenarios").resolve() \
        or not path.exists() else str(path.resolve())
    notebook = json.loads((NOTEBOOK_DIR / "what_if.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            cell["source"] = (f"scenario = {name!r}  # bundled scenario name, or path to a scenario YAML file\n"
                              f"inputs = {inputs!r}  # list of input paths to give a control, or None: the five "
                              "that move the answer most")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{path.stem}.ipynb"
    write_text_atomically(target, json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {target}: open it in JupyterLab and run all cells (Run > Run All Cells)")
    if args.no_lab:
        return 0
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", str(target)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.insert(4, "--allow-root")
    try:
        return subprocess.call(command)
    except FileNotFoundError:
        print("costmodel what-if: JupyterLab is not installed: pip install -e '.[interactive]' (or make lab)",
              file=sys.stderr)
        return FAILED


def _number(text: str) -> float:
    """A finite number >= 0 for --volume and --volume-max (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (value == value and abs(value) != float("inf")) or value < 0 or abs(value) > 1e15:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1e15, got {text!r}")
    return value + 0.0


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(BAD_INPUT, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``costmodel`` command."""
    from . import __version__

    parser = _Parser(prog="costmodel", description="Own, rent or API: GPU cost break-evens.")
    parser.add_argument("--version", action="version", version=f"costmodel {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    report = commands.add_parser("report", help="render reports to self-contained HTML")
    report.add_argument("scenario", nargs="*",
                        help=f"scenario names or YAML paths (default: {', '.join(REFERENCE_SCENARIOS)})")
    report.add_argument("--out", default="reports", help="output folder (default: reports/)")
    report.add_argument("--timeout", type=int, default=600, help="longest time per notebook cell [s]")
    report.set_defaults(run=_report)

    compare = commands.add_parser("compare", help="print the cost of each option and the break-evens")
    compare.add_argument("scenario", help="scenario name or YAML path")
    compare.add_argument("--json", action="store_true", help="print JSON for scripts")
    compare.add_argument("--volume", type=_number, default=None,
                         help="volume to compare at (default: the scenario's)")
    compare.add_argument("--volume-max", type=_number, default=None,
                         help="upper end of the break-even search (default: 10 x the volume)")
    compare.set_defaults(run=_compare)

    what_if = commands.add_parser("what-if", help="open a live what-if notebook for a scenario in JupyterLab")
    what_if.add_argument("scenario", help="scenario name or YAML path")
    what_if.add_argument("--inputs", default=None,
                         help="comma-separated input paths to give a control (default: the five that move the "
                              "answer most)")
    what_if.add_argument("--out", default="what-if", help="folder for the prepared notebook (default: what-if/)")
    what_if.add_argument("--no-lab", action="store_true", help="write the notebook only; do not start JupyterLab")
    what_if.set_defaults(run=_what_if)

    listing = commands.add_parser("list", help="list the bundled scenarios")
    listing.set_defaults(run=_list)
    return parser


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:      # --help, --version, or a bad argument (exit 2)
        return int(exc.code or 0)
    try:
        previous = signal.signal(signal.SIGTERM, _interrupted)
    except ValueError:          # not the main thread: leave signals alone
        previous = None
    try:
        return args.run(args)
    except (InputError, ValueError) as exc:
        print(f"costmodel {args.command}: {exc}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        print(f"costmodel {args.command}: interrupted; nothing half-written was left", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # e.g. `costmodel compare X --json | head`
        sys.stderr.close()
        return 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())

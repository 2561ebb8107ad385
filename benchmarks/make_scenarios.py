"""Write many scenario files for a batch benchmark: copies of the bundled scenarios with varied figures.

Run from the repository root:

    .venv/bin/python benchmarks/make_scenarios.py OUT_DIR [--count 1000] [--seed 33]

File ``i`` is a copy of the ``i mod n``-th of the n bundled scenarios (data/scenarios/*.yaml, sorted), its
volume (``workload.tokens_per_day``, ``gpu_hours_per_month`` or ``training_tokens``) and every
staffing block's ``loaded_cost_per_fte_per_year`` multiplied by factors drawn uniformly from
0.8 to 1.25 (seeded: the same files every run), and its title numbered. A volume read from a
demand file (a job log) stays as it is: the scenario must state the log's average. A volume with
an uncertainty distribution on it keeps its distribution (compare reads the volume, not a sample).
Files are written as plain YAML (:func:`costmodel.io.yaml_files.dump_yaml`), comments dropped.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from costmodel.io.yaml_files import dump_yaml, parse_yaml, read_text
from costmodel.paths import SCENARIO_DIR

VOLUME_FIELDS = ("tokens_per_day", "gpu_hours_per_month", "training_tokens")
"""The workload fields that carry a scenario's volume, one per workload kind that has one."""

LOW, HIGH = 0.8, 1.25
"""Range of the factors applied to the varied figures. [-]"""


def _staffing_blocks(node: Any) -> list[dict[str, Any]]:
    """Every mapping under a ``staffing`` key, at any depth."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "staffing" and isinstance(value, dict):
                found.append(value)
            found += _staffing_blocks(value)
    elif isinstance(node, list):
        for item in node:
            found += _staffing_blocks(item)
    return found


def varied(data: dict[str, Any], number: int, rng: np.random.Generator) -> dict[str, Any]:
    """A copy of a scenario's data with its volume and staffing costs scaled, and its title numbered.

    Parameters
    ----------
    data
        The scenario file's data (as :func:`costmodel.io.yaml_files.parse_yaml` reads it).
    number
        The copy's number, written into its title.
    rng
        Source of the factors. [-]
    """
    copy: dict[str, Any] = parse_yaml(dump_yaml(data), Path("(copy)"))
    workload = copy["workload"]
    from_file = isinstance(copy.get("demand"), dict) and "path" in copy["demand"]
    for name in VOLUME_FIELDS if not from_file else ():  # a log's volume is the log's
        if isinstance(workload.get(name), (int, float)):
            value = workload[name] * rng.uniform(LOW, HIGH)
            workload[name] = round(value) if isinstance(workload[name], int) else float(f"{value:.6g}")
    for block in _staffing_blocks(copy["options"]):
        if isinstance(block.get("loaded_cost_per_fte_per_year"), (int, float)):
            block["loaded_cost_per_fte_per_year"] = round(
                block["loaded_cost_per_fte_per_year"] * rng.uniform(LOW, HIGH)
            )
    copy["title"] = f"{copy['title']} (copy {number})"
    return copy


def write_scenarios(out: Path, count: int, seed: int = 33) -> list[Path]:
    """Write ``count`` varied copies of the bundled scenarios into ``out`` (made if missing).

    Returns
    -------
    list of Path
        The files written, in order.
    """
    sources = sorted(SCENARIO_DIR.glob("*.yaml"))
    bundled = [(p.stem, parse_yaml(read_text(p), p)) for p in sources]
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for number in range(count):
        stem, data = bundled[number % len(bundled)]
        path = out / f"{number:05d}-{stem}.yaml"
        path.write_text(dump_yaml(varied(data, number, rng)))
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description="Write many scenario files for a batch benchmark.")
    parser.add_argument("out", type=Path, help="folder to write the files into")
    parser.add_argument("--count", type=int, default=1000, help="number of files")
    parser.add_argument("--seed", type=int, default=33, help="seed of the factors")
    args = parser.parse_args()
    files = write_scenarios(args.out, args.count, args.seed)
    print(f"{len(files)} scenario files in {args.out}")


if __name__ == "__main__":
    main()

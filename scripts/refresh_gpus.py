"""Refresh data/gpus.csv from two pinned snapshots: aiconfigurator-core and a datasheet transcription.

Usage::

    pip install "costmodel[estimate]"        # aiconfigurator-core 0.12.0 (Apache-2.0)
    python scripts/refresh_gpus.py           # rewrites data/gpus.csv and the not_imported files
    python scripts/refresh_gpus.py --check   # exit 1 and list what differs; write nothing

Sources, both offline:

(a) ``aiconfigurator-core`` 0.12.0, NVIDIA's AIConfigurator systems
    (``aiconfigurator_core/systems/<system>.yaml``, read as data with importlib.resources; no code of
    the package is imported). For the NVIDIA systems ``SYSTEMS`` maps, the row takes memory bandwidth,
    the dense BF16/FP8/FP4 tensor peaks and the power from the package (grade S: NVIDIA's own
    transcription of its datasheets, made for modelling).
(b) ``data/sources/datasheets/accelerators.yaml``, a hand transcription of vendor datasheets and spec
    pages (each figure with its URL, document and the cell it comes from). It gives every figure of the
    chips the package lacks (AMD Instinct, Intel Gaudi 3, Google TPUs, older and consumer NVIDIA parts)
    and, for the chips the package covers, the marketed memory, the FP16/TF32 peaks and the
    architecture; its other figures are then used to check the package, and every difference is
    printed. Datasheets print NVIDIA/AMD tensor peaks with 2:4 sparsity: a figure given as ``sparse``
    is halved (dense = sparse / 2).

The rows in the YAML's ``kept_rows`` (the catalog's rows before issue 28, used by bundled scenarios)
are written verbatim; where the package gives another figure for one of them, the script prints the
disagreement and keeps the row. Row order: the kept rows in their order, then the others sorted by id
(the energy model takes the first matching row, so existing rows stay first).

What the sources hold that the catalog cannot (INT8 peaks, node and NCCL settings, a system without a
catalog id, nvidia-smi memory sizes, ...) is written to ``data/sources/aiconfigurator/not_imported_systems.csv``
and ``data/sources/datasheets/not_imported.csv`` with the reason.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from decimal import Decimal
from importlib import resources
from importlib.metadata import version
from pathlib import Path

import yaml
from catalog_diff import differences  # noqa: E402  (scripts/ is on the path of a script)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costmodel.estimate import SYSTEMS  # noqa: E402  (aiconfigurator-core system -> catalog GPU id; one copy)

CSV = ROOT / "data" / "gpus.csv"
DATASHEETS = ROOT / "data" / "sources" / "datasheets" / "accelerators.yaml"
NOT_IMPORTED_DATASHEETS = ROOT / "data" / "sources" / "datasheets" / "not_imported.csv"
NOT_IMPORTED_PACKAGE = ROOT / "data" / "sources" / "aiconfigurator" / "not_imported_systems.csv"
PACKAGE = "aiconfigurator-core"

UNMAPPED_SYSTEMS = {
    "b60": "Intel Arc Pro B60: no catalog id agreed and no datasheet transcribed to check it; its fp8_tc_flops "
    "is a BF16 fallback (the file says so), not an FP8 peak",
}
PACKAGE_FIELDS = {
    # systems/<name>.yaml gpu key: (catalog column, factor from the package's unit)
    "mem_bw": ("memory_bandwidth_tb_s", Decimal("1e-12")),
    "bfloat16_tc_flops": ("bf16_dense_tflops", Decimal("1e-12")),
    "fp8_tc_flops": ("fp8_dense_tflops", Decimal("1e-12")),
    "fp4_tc_flops": ("fp4_dense_tflops", Decimal("1e-12")),
    "power": ("tdp_w", Decimal(1)),
}
PACKAGE_NOT_IMPORTED = {
    "int8_tc_flops": "no INT8 column in data/gpus.csv",
    "float32_tc_flops": "no FP32 column in data/gpus.csv",
    "mem_capacity": "bytes as nvidia-smi reports them (usable memory); the catalog holds the marketed GB from "
    "the datasheet",
    "mem_bw_empirical_scaling_factor": "a modelling correction, not a specification",
    "mem_empirical_constant_latency": "a modelling correction, not a specification",
    "sm_version": "compute capability: no column",
}

COLUMNS = [
    "gpu",
    "name",
    "memory_gb",
    "memory_bandwidth_tb_s",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "fp4_dense_tflops",
    "fp16_dense_tflops",
    "tf32_dense_tflops",
    "architecture",
    "tdp_w",
    "quality",
    "as_of",
    "source",
    "notes",
]
FIGURES = [
    "memory_gb",
    "memory_bandwidth_tb_s",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "fp4_dense_tflops",
    "fp16_dense_tflops",
    "tf32_dense_tflops",
    "tdp_w",
]
NOT_IMPORTED_COLUMNS = ["item", "field", "value", "reason"]
GRADES = "PSU"  # best first


def _number(value: Decimal | None) -> str:
    if value is None:
        return ""
    text = format(value.normalize(), "f")
    return text


def _dec(value) -> Decimal:
    return Decimal(str(value))


def datasheet_figure(entry: dict, column: str, warnings: list[str]) -> Decimal | None:
    """The dense figure of one datasheet cell: as printed, or the sparse peak halved."""
    figure = entry["figures"].get(column)
    if figure is None:
        return None
    dense = figure.get("dense")
    sparse = figure.get("sparse")
    if dense is not None:
        if sparse is not None and abs(_dec(dense) - _dec(sparse) / 2) > Decimal("0.51"):
            warnings.append(
                f"{entry['gpu']} {column}: the datasheet prints {dense} dense but {sparse} sparse "
                f"({_dec(sparse) / 2} halved); the dense cell is kept"
            )
        return _dec(dense)
    return _dec(sparse) / 2


def package_system(name: str) -> dict:
    text = (resources.files("aiconfigurator_core") / "systems" / f"{name}.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def package_systems() -> list[str]:
    folder = resources.files("aiconfigurator_core") / "systems"
    names = []
    for item in folder.iterdir():
        if item.name.endswith(".yaml") and item.is_file():
            data = yaml.safe_load(item.read_text(encoding="utf-8"))
            if isinstance(data, dict) and isinstance(data.get("gpu"), dict):
                names.append(item.name[:-5])
    return sorted(names)


def package_figures(name: str) -> dict[str, Decimal]:
    gpu = package_system(name)["gpu"]
    figures = {column: _dec(gpu[key]) * factor for key, (column, factor) in PACKAGE_FIELDS.items() if key in gpu}
    # peaks in FLOP/s to TFLOP/s at 0.01 (rtx_pro_6000_server's are clock-scaled to 15 digits)
    return {c: v.quantize(Decimal("0.01")) if c.endswith("_tflops") else v for c, v in figures.items()}


def _weakest(*grades: str) -> str:
    return max(grades, key=GRADES.index)


def build(datasheets: dict) -> tuple[list[dict], list[dict], list[dict], list[str]]:
    """(CSV rows, datasheet not-imported rows, package not-imported rows, messages for stderr)."""
    messages: list[str] = []
    pkg = f"{PACKAGE} {version(PACKAGE)}"
    by_gpu = {gpu: system for system, gpu in SYSTEMS.items()}
    kept = [{c: str(row.get(c) or "") for c in COLUMNS} for row in datasheets["kept_rows"]]
    kept_ids = {row["gpu"] for row in kept}
    for row in kept:
        system = by_gpu.get(row["gpu"])
        if system is None:
            continue
        for column, value in package_figures(system).items():
            mine = Decimal(row[column]) if row[column] else None
            if mine is None or mine.compare(value) != 0:
                messages.append(
                    f"kept {row['gpu']}: {pkg} systems/{system}.yaml gives {column} = {_number(value)}, "
                    f"the row has {row[column] or 'empty'}; row kept as it is"
                )
    generated = []
    ds_not_imported = []
    for entry in datasheets["chips"]:
        gpu = entry["gpu"]
        if gpu in kept_ids:
            raise ValueError(f"{gpu} is both a kept row and a datasheet entry")
        warnings: list[str] = []
        values = {column: datasheet_figure(entry, column, warnings) for column in FIGURES}
        messages += warnings
        grades = [entry["grade"]] + [f.get("grade", entry["grade"]) for f in entry["figures"].values() if f]
        system = entry.get("aiconfigurator")
        src = entry["source"]
        document = f"{src['title']} ({src['url']}, {src['date']})"
        via = f" via {entry['via']}" if entry.get("via") else ""
        notes = []
        if system is not None:
            if SYSTEMS.get(system) != gpu:
                raise ValueError(f"{gpu}: aiconfigurator system {system} is mapped to {SYSTEMS.get(system)}")
            from_package = package_figures(system)
            for column, value in from_package.items():
                sheet = values[column]
                if sheet is not None and sheet.compare(value) != 0:
                    share = abs(value - sheet) / sheet * 100
                    messages.append(
                        f"{gpu} {column}: {pkg} systems/{system}.yaml gives {_number(value)}, the "
                        f"datasheet {_number(sheet)} ({share:.1f} % apart); the package's figure is used"
                    )
                    notes.append(f"{column} {_number(value)} from the package, datasheet {_number(sheet)}")
                values[column] = value
            taken = ", ".join(c for c in FIGURES if c in from_package)
            source = (
                f"{pkg} aiconfigurator_core/systems/{system}.yaml ({taken}); datasheet: {document}{via} "
                f"(the other figures); transcribed in data/sources/datasheets/accelerators.yaml"
            )
            grades.append("S")
        else:
            source = f"{document}{via}; transcribed in data/sources/datasheets/accelerators.yaml"
        if entry.get("sparse_printed") is True:
            halved = [
                c
                for c in FIGURES
                if (entry["figures"].get(c) or {}).get("sparse") is not None
                and (entry["figures"][c].get("dense") is None)
                and not (system and c in package_figures(system))
            ]
            if halved:
                notes.insert(0, "dense = datasheet's 2:4-sparse peak / 2 for " + ", ".join(halved))
        if entry.get("notes"):
            notes.insert(0, entry["notes"])
        for item in entry.get("not_imported") or []:
            ds_not_imported.append(
                {"item": gpu, "field": item["field"], "value": str(item["value"]), "reason": item["reason"]}
            )
        for column in ("memory_gb", "memory_bandwidth_tb_s", "tdp_w"):
            if values[column] is None:
                raise ValueError(f"{gpu}: no {column} in either source")
        row = {
            "gpu": gpu,
            "name": entry["name"],
            "architecture": entry["architecture"],
            "quality": _weakest(*grades),
            "as_of": str(entry["as_of"]),
            "source": source,
            "notes": "; ".join(notes),
        }
        row.update({column: _number(values[column]) for column in FIGURES})
        generated.append(row)
    rows = kept + sorted(generated, key=lambda r: r["gpu"])
    pkg_not_imported = []
    for system in package_systems():
        if system in UNMAPPED_SYSTEMS or system not in SYSTEMS:
            reason = UNMAPPED_SYSTEMS.get(system, "no catalog id mapped in scripts/refresh_gpus.py SYSTEMS")
            pkg_not_imported.append(
                {"item": f"systems/{system}.yaml", "field": "(whole system)", "value": "", "reason": reason}
            )
            continue
        data = package_system(system)
        for key, value in data["gpu"].items():
            if key in PACKAGE_FIELDS:
                continue
            pkg_not_imported.append(
                {
                    "item": f"systems/{system}.yaml",
                    "field": f"gpu.{key}",
                    "value": str(value),
                    "reason": PACKAGE_NOT_IMPORTED.get(key, "no column in data/gpus.csv"),
                }
            )
        for section in ("node", "misc"):
            if section in data:
                pkg_not_imported.append(
                    {
                        "item": f"systems/{system}.yaml",
                        "field": section,
                        "value": "",
                        "reason": "node topology, bandwidths and NCCL settings: not per-GPU specifications",
                    }
                )
        if SYSTEMS[system] in kept_ids:
            pkg_not_imported.append(
                {
                    "item": f"systems/{system}.yaml",
                    "field": "gpu (all figures)",
                    "value": "",
                    "reason": f"{SYSTEMS[system]} is a kept row (used by bundled scenarios): "
                    "its figures stay as they are; differences are printed",
                }
            )
    return rows, ds_not_imported, pkg_not_imported, messages


def _csv_text(rows: list[dict], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: row.get(k, "") for k in columns} for row in rows)
    return out.getvalue()


def outputs(datasheets_path: Path = DATASHEETS) -> tuple[dict[Path, str], list[str]]:
    """The text of every file the script writes, by path, and its messages."""
    datasheets = yaml.safe_load(datasheets_path.read_text(encoding="utf-8"))
    rows, ds_ni, pkg_ni, messages = build(datasheets)
    files = {
        CSV: _csv_text(rows, COLUMNS),
        NOT_IMPORTED_DATASHEETS: _csv_text(ds_ni, NOT_IMPORTED_COLUMNS),
        NOT_IMPORTED_PACKAGE: _csv_text(pkg_ni, NOT_IMPORTED_COLUMNS),
    }
    return files, messages


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report what differs; change nothing")
    args = parser.parse_args(argv)
    files, messages = outputs()
    for message in messages:
        print(message, file=sys.stderr)
    stale = False
    for path, text in files.items():
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old == text:
            continue
        stale = True
        if args.check:
            key = "gpu" if path == CSV else "item"
            print(f"{_shown(path)} differs:")
            for line in differences(old, text, key) if path == CSV else ["(not_imported listing changed)"]:
                print(f"  {line}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {_shown(path)}")
    if args.check:
        print("differs: run without --check" if stale else "up to date")
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

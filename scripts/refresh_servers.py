"""Refresh data/servers.csv from the hand-kept source data/sources/servers/servers.yaml.

Usage::

    python scripts/refresh_servers.py           # rewrites data/servers.csv
    python scripts/refresh_servers.py --check   # exit 1 and list what differs; write nothing

``servers.yaml`` holds, per server model, its GPU (a data/gpus.csv id), GPUs per server, the price and
the maximum power at the wall, each either cited (a published quote or list price with its date, grade
S; the system's datasheet or spec sheet) or estimated (grade U), with the arithmetic:

- price estimate: gpus_per_server x gpu_unit_price + platform;
- power estimate: gpus_per_server x the GPU's tdp_w in data/gpus.csv + host_kw.

Both are written into the row's notes, so the figure can be checked by hand. The row's grade is the
weaker of its price's and its power's; its as-of date is the price's. ``kept_rows`` (the catalog's
rows before issue 28, used by bundled scenarios) are written verbatim and first, in their order (the
energy model takes the first server holding a GPU); the other rows follow sorted by id. Run
scripts/refresh_gpus.py first: a server whose GPU is not in data/gpus.csv is an error.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from decimal import Decimal
from pathlib import Path

import yaml
from catalog_diff import differences  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "data" / "servers.csv"
GPUS = ROOT / "data" / "gpus.csv"
SOURCE = ROOT / "data" / "sources" / "servers" / "servers.yaml"
COLUMNS = [
    "server",
    "gpu",
    "gpus_per_server",
    "price",
    "currency",
    "max_power_kw",
    "quality",
    "as_of",
    "source",
    "notes",
]
GRADES = "PSU"


def _dec(value) -> Decimal:
    return Decimal(str(value))


def _number(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _money(value: Decimal) -> str:
    return f"{value:,.0f}" if value == value.to_integral_value() else f"{value:,.2f}"


def build(source: dict, gpus: dict[str, dict]) -> list[dict]:
    kept = [{c: str(row.get(c) or "") for c in COLUMNS} for row in source["kept_rows"]]
    rows = []
    for entry in source["servers"]:
        server, gpu, n = entry["server"], entry["gpu"], int(entry["gpus_per_server"])
        if gpu not in gpus:
            raise ValueError(f"server {server}: GPU {gpu} is not in data/gpus.csv")
        price, power = entry["price"], entry["max_power_kw"]
        notes = []
        if "estimate" in price:
            unit, platform = _dec(price["estimate"]["gpu_unit_price"]), _dec(price["estimate"]["platform"])
            price_value = n * unit + platform
            notes.append(
                f"price ESTIMATE = {n} GPUs x {_money(unit)} + platform {_money(platform)} "
                f"= {_money(price_value)} {entry['currency']}"
            )
            price_source = f"Price: ESTIMATE ({price['basis']})"
        else:
            price_value = _dec(price["value"])
            price_source = f"Price: {price['source']}" if "source" in price else f"Price: ESTIMATE ({price['basis']})"
        if "estimate" in power:
            tdp = _dec(gpus[gpu]["tdp_w"])
            host = _dec(power["estimate"]["host_kw"])
            power_value = n * tdp / 1000 + host
            notes.append(
                f"max power ESTIMATE = {n} x {_number(tdp)} W (tdp_w of {gpu}) + host {_number(host)} kW "
                f"= {_number(power_value)} kW"
            )
            power_source = f"power: ESTIMATE ({power['basis']})"
        else:
            power_value = _dec(power["value"])
            power_source = f"power: {power['source']}"
        per_gpu = price_value / n
        notes.append(
            f"{_money(per_gpu)} {entry['currency']} and {_number((power_value / n).quantize(Decimal('0.001')))} "
            f"kW per GPU"
        )
        if entry.get("notes"):
            notes.insert(0, entry["notes"])
        grade = max(price["grade"], power["grade"], key=GRADES.index)
        rows.append(
            {
                "server": server,
                "gpu": gpu,
                "gpus_per_server": str(n),
                "price": _number(price_value),
                "currency": entry["currency"],
                "max_power_kw": _number(power_value),
                "quality": grade,
                "as_of": str(price["as_of"]),
                "source": f"{price_source}; {power_source}; kept in data/sources/servers/servers.yaml",
                "notes": "; ".join(notes),
            }
        )
    ids = [r["server"] for r in kept] + [r["server"] for r in rows]
    if len(ids) != len(set(ids)):
        raise ValueError("duplicate server ids")
    return kept + sorted(rows, key=lambda r: r["server"])


def csv_text(source_path: Path = SOURCE, gpus_path: Path = GPUS) -> str:
    source = yaml.safe_load(source_path.read_text(encoding="utf-8"))
    gpus = {r["gpu"]: r for r in csv.DictReader(io.StringIO(gpus_path.read_text(encoding="utf-8")))}
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(build(source, gpus))
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report what differs; change nothing")
    args = parser.parse_args(argv)
    new = csv_text()
    old = CSV.read_text(encoding="utf-8") if CSV.exists() else ""
    if args.check:
        for line in differences(old, new, "server"):
            print(line)
        print("up to date" if new == old else "differs: run without --check")
        return 0 if new == old else 1
    CSV.write_text(new, encoding="utf-8")
    print(f"wrote {CSV.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

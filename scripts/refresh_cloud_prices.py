"""Refresh data/cloud_prices.csv from the SkyPilot catalog snapshot in data/sources/skypilot/.

Usage::

    python scripts/refresh_cloud_prices.py           # rewrites data/cloud_prices.csv and not_imported.csv
    python scripts/refresh_cloud_prices.py --check   # exit 1 and print what differs; write nothing

The snapshot (``data/sources/skypilot/<cloud>/vms.csv``, README.md beside it) holds the GPU rows of
SkyPilot's ``catalogs/v7/<cloud>/vms.csv`` (github skypilot-org/skypilot-catalog, Apache-2.0) at
pinned commits: per instance-hour on-demand ``Price`` and ``SpotPrice`` in USD. This runs offline.

One row is written per (provider, instance type, region): ``price_per_gpu_hour`` = ``Price`` /
``AcceleratorCount`` and ``spot_price_per_gpu_hour`` = ``SpotPrice`` / ``AcceleratorCount`` where
given (both rounded to 10 decimal places, which only removes binary floating-point tails such as
``0.36979999999999996``), grade S (a maintained catalog transcribing the provider's price API or
page), ``as_of`` the date the snapshot was read (the upstream commit dates could not be looked up).
Prime Intellect lists a spot offer as its own instance type ending ``__SPOT``; its price becomes the
spot price of the matching on-demand row (same instance type and zone).

The accelerator names map to catalog GPU ids through ``GPU_RULES`` below. A name sold in more than
one form (A100 40/80 GB SXM/PCIe, H100 SXM/PCIe/NVL, H200 SXM/NVL, V100 SXM2/PCIe) maps only where
the instance type, the upstream id, the provider's documentation or SkyPilot's map from its names to
the provider's GPU ids (RunPod) states the form; the rest are not imported. Whatever is not imported
(no catalog id, form not stated, fractional GPUs, spot above on-demand, conflicting duplicate rows,
repeats of an identical row, currency not stated) is written with its reason to
``data/sources/skypilot/not_imported.csv`` and counted on stderr. Of upstream rows that repeat one
another exactly (same instance type, zone, GPUs and prices) the first becomes the offer.

Rows of the CSV that this script did not generate (their source does not name the SkyPilot
catalog) are hand-kept and carried through unchanged, first, in their order.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from collections import Counter
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from catalog_diff import differences  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "data" / "cloud_prices.csv"
SNAPSHOT = ROOT / "data" / "sources" / "skypilot"
NOT_IMPORTED = SNAPSHOT / "not_imported.csv"

REPO = "github.com/skypilot-org/skypilot-catalog"
READ_ON = "2026-12-02"  # the date the snapshot was read (README.md)
SOURCE_MARK = "SkyPilot catalog"  # generated rows' source starts with this; other rows are hand-kept

# cloud folder: (provider name, upstream commit of catalogs/v7/<cloud>/vms.csv, the page it transcribes)
CLOUDS = {
    "lambda": ("Lambda", "11580132cea293395776b033c8533714d42abb4e", "Lambda Cloud API instance types"),
    "nebius": ("Nebius", "c06376bc8d8de0968157d7b573c264dbb55b419a", "Nebius AI Cloud prices"),
    "cudo": ("Cudo Compute", "8b5326cd153bf3adcaede77e5b25dd777a279700", "Cudo Compute API machine types"),
    "hyperbolic": ("Hyperbolic", "9bbffbd5094bcb0ca3c58b090a37f53ffb0b268e", "Hyperbolic marketplace"),
    "mithril": ("Mithril", "1ba9415d5a3992d919df5391038ebd3a47613ef5", "Mithril instance types"),
    "seeweb": ("Seeweb", "b9b05487266166ed4b311bed0e973218f94ed8fe", "Seeweb ECS API plans"),
    "shadeform": ("Shadeform", "54ce89bb5cdcae655c34bb2e58ec3aa79a29eda4", "Shadeform marketplace API"),
    "simplepod": ("SimplePod", "1010b7594439e103435466844552cf3580460085", "SimplePod API"),
    "primeintellect": (
        "Prime Intellect",
        "384ebc7ba7ad7913a756c8127d954a70f6e1ec88",
        "Prime Intellect marketplace API",
    ),
    "runpod": ("RunPod", "0727c2bd9e77f91cb1377127c5f793a28cf01384", "RunPod GraphQL API secure-cloud GPU prices"),
}
# marketplaces: the instance type starts with the upstream cloud that Prime Intellect / Shadeform resell
MARKETPLACE_SEP = {"primeintellect": "__", "shadeform": "_"}
# whole clouds the catalog cannot hold as they are
CLOUD_NOT_IMPORTED = {
    "seeweb": "currency not stated: SkyPilot's fetch_seeweb.py copies the Seeweb API's hourly_price with no "
    "currency or conversion, and Seeweb is an Italian provider; the catalog needs the currency",
}

# GPU_RULES: (cloud or "*", upstream AcceleratorName, regex on "<InstanceType> <UpstreamCloudId>" or None,
#             catalog gpu id or None, note). First match wins; None as id means not imported, note = reason.
# Memory in MiB quoted from the upstream GpuInfo column (dropped from the snapshot, see README.md).
GPU_RULES: list[tuple[str, str, str | None, str | None, str]] = [
    # Lambda: names state form and memory; GpuInfo 40960 MiB for A100, 81920 for A100-80GB and H100
    ("lambda", "V100", None, "V100-SXM-16GB", "Lambda 8x Tesla V100 16 GB (GpuInfo 16384 MiB), SXM2 server"),
    ("lambda", "A6000", None, "RTX-A6000-48GB", ""),
    (
        "lambda",
        "A100",
        r"^gpu_(1x_a100_sxm4|8x_a100)\b",
        "A100-SXM-40GB",
        "Lambda lists A100 (40 GB SXM4) for gpu_1x_a100_sxm4 and gpu_8x_a100 (GpuInfo 40960 MiB)",
    ),
    (
        "lambda",
        "A100",
        r"^gpu_[124]x_a100\b",
        "A100-PCIE-40GB",
        "Lambda lists A100 (40 GB PCIe) for gpu_1x/2x/4x_a100 (GpuInfo 40960 MiB)",
    ),
    ("lambda", "A100-80GB", r"sxm4", "A100-SXM-80GB", ""),
    ("lambda", "A10", None, "A10-24GB", ""),
    ("lambda", "H100", r"_pcie\b", "H100-PCIE-80GB", ""),
    ("lambda", "H100", r"_sxm5\b", "H100-SXM-80GB", ""),
    ("lambda", "GH200", None, "GH200-96GB", "GpuInfo 98304 MiB"),
    # Nebius: instance types gpu-<name>-sxm_...
    ("nebius", "H100", r"h100-sxm", "H100-SXM-80GB", ""),
    ("nebius", "H200", r"h200-sxm", "H200-SXM-141GB", ""),
    ("nebius", "B200", r"b200-sxm", "B200-SXM-180GB", ""),
    ("nebius", "L40S", None, "L40S-48GB", ""),
    # Cudo: A100 GpuInfo 81920 MiB on PCIe hosts; H100 96256 MiB on "h100-nvl-pcie" = H100 NVL 94 GB
    ("cudo", "H100", r"h100-nvl", "H100-NVL-94GB", "GpuInfo 96256 MiB (94 GB), instance type h100-nvl-pcie"),
    ("cudo", "H100-SXM", None, "H100-SXM-80GB", ""),
    ("cudo", "A100", r"a100-pci", "A100-PCIE-80GB", "GpuInfo 81920 MiB, instance type a100-pci(e)"),
    ("cudo", "L40S", None, "L40S-48GB", ""),
    ("cudo", "RTXA6000", None, "RTX-A6000-48GB", ""),
    ("cudo", "V100", None, None, "V100 form (PCIe or SXM2) not stated; the catalog has V100 SXM2 ids only"),
    # Hyperbolic: GpuInfo names NVIDIA-H100-80GB-HBM3 (HBM3 only on H100 SXM; PCIe has HBM2e)
    ("hyperbolic", "H100", None, "H100-SXM-80GB", "GpuInfo NVIDIA-H100-80GB-HBM3 (HBM3: SXM5 form)"),
    ("hyperbolic", "T4", None, "T4-16GB", ""),
    ("hyperbolic", "RTX4090", None, "RTX-4090-24GB", ""),
    # Mithril: instance types h100-80gb.sxm / a100-80gb.sxm
    ("mithril", "H100", r"h100-80gb\.sxm", "H100-SXM-80GB", ""),
    ("mithril", "A100", r"a100-80gb\.sxm", "A100-SXM-80GB", ""),
    # SimplePod
    ("simplepod", "RTX4090", None, "RTX-4090-24GB", ""),
    ("simplepod", "RTX5090", None, "RTX-5090-32GB", ""),
    ("simplepod", "RTXPRO6000Blackwell", None, "RTX-PRO-6000-96GB", "GpuInfo RTX PRO 6000 Blackwell 97280 MiB"),
    # Shadeform: A100 means 40 GB, A100_80G 80 GB (its naming); form only where the type says sxm
    ("shadeform", "A100_80G", r"sxm4", "A100-SXM-80GB", ""),
    ("shadeform", "A100", r"sxm4", "A100-SXM-40GB", "Shadeform names the 80 GB part A100_80G"),
    ("shadeform", "H100", r"sxm5", "H100-SXM-80GB", ""),
    ("shadeform", "H200", r"sxm5", "H200-SXM-141GB", ""),
    ("shadeform", "B200", None, "B200-SXM-180GB", ""),
    ("shadeform", "A6000", None, "RTX-A6000-48GB", ""),
    ("shadeform", "L40S", None, "L40S-48GB", ""),
    ("shadeform", "L40", None, "L40-48GB", ""),
    ("shadeform", "L4", None, "L4-24GB", ""),
    ("shadeform", "RTX4090", None, "RTX-4090-24GB", ""),
    ("shadeform", "RTX5090", None, "RTX-5090-32GB", ""),
    ("shadeform", "A10", None, "A10-24GB", ""),
    # Prime Intellect: the upstream id is the reselling cloud's own instance type
    ("primeintellect", "L40", r"l40s", None, "AcceleratorName L40 but the upstream id says l40s"),
    ("primeintellect", "L40", None, "L40-48GB", ""),
    ("primeintellect", "L40S", None, "L40S-48GB", ""),
    ("primeintellect", "A6000", None, "RTX-A6000-48GB", ""),
    ("primeintellect", "A10", None, "A10-24GB", ""),
    ("primeintellect", "B200", None, "B200-SXM-180GB", ""),
    (
        "primeintellect",
        "A100",
        r"^lambdalabs__.* (gpu_1x_a100_sxm4|gpu_8x_a100)$",
        "A100-SXM-40GB",
        "Lambda's gpu_1x_a100_sxm4 / gpu_8x_a100: A100 (40 GB SXM4)",
    ),
    ("primeintellect", "A100", r"(?i)80gb.* .*sxm4", "A100-SXM-80GB", ""),
    ("primeintellect", "A100", r" A100_PCIE_80GB$", "A100-PCIE-80GB", ""),
    ("primeintellect", "H100", r"(?i)sxm|HBM3", "H100-SXM-80GB", "upstream id states SXM or HBM3 (SXM5 form)"),
    ("primeintellect", "H200", r"(?i)sxm", "H200-SXM-141GB", ""),
    (
        "primeintellect",
        "V100",
        r"^lambdalabs__.* gpu_8x_v100$",
        "V100-SXM-16GB",
        "Lambda 8x Tesla V100 16 GB, SXM2 server",
    ),
    # RunPod: SkyPilot names each RunPod GPU id; sky/provision/runpod/utils.py GPU_NAME_MAP (github
    # skypilot-org/skypilot at 02b01447) maps A100-80GB to "NVIDIA A100 80GB PCIe", H100 to "NVIDIA H100 PCIe",
    # H100-SXM to "NVIDIA H100 80GB HBM3", H100-NVL to "NVIDIA H100 NVL", H200-SXM to "NVIDIA H200"
    ("runpod", "A100-80GB", None, "A100-PCIE-80GB", "RunPod GPU id NVIDIA A100 80GB PCIe (SkyPilot GPU_NAME_MAP)"),
    ("runpod", "A100-80GB-SXM", None, "A100-SXM-80GB", "RunPod GPU id NVIDIA A100-SXM4-80GB (SkyPilot GPU_NAME_MAP)"),
    ("runpod", "H100", None, "H100-PCIE-80GB", "RunPod GPU id NVIDIA H100 PCIe (SkyPilot GPU_NAME_MAP)"),
    ("runpod", "H100-SXM", None, "H100-SXM-80GB", "RunPod GPU id NVIDIA H100 80GB HBM3 (SkyPilot GPU_NAME_MAP)"),
    ("runpod", "H100-NVL", None, "H100-NVL-94GB", "RunPod GPU id NVIDIA H100 NVL (SkyPilot GPU_NAME_MAP)"),
    ("runpod", "H200-SXM", None, "H200-SXM-141GB", ""),
    ("runpod", "B200", None, "B200-SXM-180GB", ""),
    ("runpod", "MI300X", None, "MI300X-192GB", "RunPod GPU id AMD Instinct MI300X OAM (SkyPilot GPU_NAME_MAP)"),
    ("runpod", "L4", None, "L4-24GB", ""),
    ("runpod", "L40", None, "L40-48GB", ""),
    ("runpod", "L40S", None, "L40S-48GB", ""),
    ("runpod", "RTX4090", None, "RTX-4090-24GB", ""),
    ("runpod", "RTXA6000", None, "RTX-A6000-48GB", ""),
    # any cloud: names that exist in several forms, when no rule above stated the form
    ("*", "A100", None, None, "A100 form (SXM/PCIe) or memory (40/80 GB) not stated"),
    ("*", "A100_80G", None, None, "A100 80 GB form (SXM/PCIe) not stated"),
    ("*", "H100", None, None, "H100 form (SXM/PCIe/NVL) not stated"),
    ("*", "H200", None, None, "H200 form (SXM/NVL) not stated"),
    ("*", "V100", None, None, "V100 form (SXM2/PCIe) not stated"),
    ("*", "V100_32G", None, None, "V100 32 GB form (SXM2/PCIe) not stated"),
]
# accelerators with no catalog GPU id (data/gpus.csv)
NO_CATALOG_ID = {
    "RTX6000",
    "A40",
    "RTXA5000",
    "A5000",
    "A800",
    "A4000",
    "A16",
    "RTX6000Ada",
    "GAUDI2",
    "A30",
    "L40s",
    "GRAYSKULL-E75",
    "GRAYSKULL-E150",
    "RTX3060",
    "RTX3060Ti",
    "RTX3070",
    "RTX3090",
    "RTXA2000",
    "RTXA4000",
    "RTXA4500",
    "RTX4000-Ada",
    "RTX6000-Ada",
}

COLUMNS = [
    "offer",
    "provider",
    "gpu",
    "pricing",
    "price_per_gpu_hour",
    "currency",
    "quality",
    "as_of",
    "source",
    "notes",
    "region",
    "instance_type",
    "gpus_per_instance",
    "spot_price_per_gpu_hour",
    "reserved_1y_price_per_gpu_hour",
    "reserved_3y_price_per_gpu_hour",
]
NOT_IMPORTED_COLUMNS = [
    "cloud",
    "instance_type",
    "region",
    "accelerator",
    "accelerator_count",
    "price",
    "spot_price",
    "reason",
]
_PLACES = Decimal("1e-10")


def _number(value: Decimal) -> str:
    text = format(value.quantize(_PLACES, rounding=ROUND_HALF_EVEN).normalize(), "f")
    return text if "." not in text else text.rstrip("0").rstrip(".")


def slug(*parts: str) -> str:
    """Lowercase id: runs of characters other than a-z and 0-9 become one dash."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(p for p in parts if p).lower()).strip("-")


def gpu_for(cloud: str, accelerator: str, instance_type: str, upstream_id: str) -> tuple[str | None, str]:
    """(catalog gpu id, note) of an upstream accelerator, or (None, reason not imported)."""
    subject = f"{instance_type} {upstream_id}".rstrip()
    for rule_cloud, name, pattern, gpu, note in GPU_RULES:
        if rule_cloud in (cloud, "*") and name == accelerator and (pattern is None or re.search(pattern, subject)):
            return gpu, note
    if accelerator in NO_CATALOG_ID:
        return None, f"no catalog GPU id for {accelerator}"
    return None, f"no mapping rule for {accelerator}"


def read_snapshot(cloud: str) -> list[dict[str, str]]:
    with open(SNAPSHOT / cloud / "vms.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def generated_rows() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(catalog rows, not-imported rows) from the snapshot files."""
    rows, skipped = [], []

    def skip(cloud, up, reason):
        skipped.append(
            {
                "cloud": cloud,
                "instance_type": up["InstanceType"],
                "region": _region(up),
                "accelerator": up["AcceleratorName"],
                "accelerator_count": up["AcceleratorCount"],
                "price": up["Price"],
                "spot_price": up.get("SpotPrice", ""),
                "reason": reason,
            }
        )

    for cloud, (provider, commit, page) in CLOUDS.items():
        path = f"catalogs/v7/{cloud}/vms.csv"
        upstream = read_snapshot(cloud)
        # Prime Intellect: spot offers are their own instance types; fold them into the on-demand row
        spot_of: dict[tuple[str, str], str] = {}
        on_demand = []
        for up in upstream:
            if up["InstanceType"].endswith("__SPOT"):
                spot_of.setdefault((up["InstanceType"][: -len("__SPOT")], _region(up)), up["Price"])
            else:
                on_demand.append(up)
        demand_keys = {(up["InstanceType"], _region(up)) for up in on_demand}
        for up in upstream:
            if (
                up["InstanceType"].endswith("__SPOT")
                and (up["InstanceType"][: -len("__SPOT")], _region(up)) not in demand_keys
            ):
                skip(cloud, up, "spot-only offer: no on-demand row of the same instance type and zone")
        # rows that share an instance type and region: identical ones (RunPod lists zone EU-SE-1 under regions
        # NO and SE) are one offer, the first is kept; rows that differ are conflicting and none is kept
        same_key: dict[tuple[str, str], set[tuple[str, ...]]] = {}
        for up in on_demand:
            same_key.setdefault((up["InstanceType"], _region(up)), set()).add(_offer_cells(up))
        seen: set[tuple[str, str]] = set()
        imported: set[tuple[str, str]] = set()
        for up in on_demand:
            itype, region = up["InstanceType"], _region(up)
            if cloud in CLOUD_NOT_IMPORTED:
                skip(cloud, up, CLOUD_NOT_IMPORTED[cloud])
                continue
            if len(same_key[itype, region]) > 1:
                skip(cloud, up, "several upstream rows for one instance type and region (conflicting prices)")
                continue
            if (itype, region) in seen:
                skip(cloud, up, "repeats an earlier upstream row (same instance type, zone, GPUs and prices)")
                continue
            seen.add((itype, region))
            count = Decimal(up["AcceleratorCount"])
            if count < 1 or count != count.to_integral_value():
                skip(cloud, up, "fractional GPU count")
                continue
            gpu, note = gpu_for(cloud, up["AcceleratorName"], itype, up.get("UpstreamCloudId", ""))
            if gpu is None:
                skip(cloud, up, note)
                continue
            price = Decimal(up["Price"]) / count
            spot_text = up.get("SpotPrice") or spot_of.get((itype, region), "")
            spot = Decimal(spot_text) / count if spot_text else None
            if price <= 0:
                skip(cloud, up, "no on-demand price")
                continue
            if spot is not None and spot > price:
                skip(cloud, up, "spot price above on-demand")
                continue
            notes = []
            if cloud in MARKETPLACE_SEP:
                notes.append(f"marketplace listing from {itype.split(MARKETPLACE_SEP[cloud])[0]}")
            if cloud == "primeintellect" and up.get("UpstreamCloudId"):
                notes.append(f"upstream id {up['UpstreamCloudId']}")
            if spot_text and cloud == "primeintellect":
                notes.append(f"spot from {itype}__SPOT")
            if note:
                notes.append(note)
            notes.append("as_of is the date the snapshot was read (upstream commit date not found)")
            imported.add((itype, region))
            rows.append(
                {
                    "offer": slug(cloud, itype, region),
                    "provider": provider,
                    "gpu": gpu,
                    "pricing": "on_demand",
                    "price_per_gpu_hour": _number(price),
                    "currency": "USD",
                    "quality": "S",
                    "as_of": READ_ON,
                    "source": f"{SOURCE_MARK} ({REPO}, {path} at commit {commit}; transcribes {page}): "
                    f"{itype} {up['Price']} USD per instance-hour / {up['AcceleratorCount']} GPUs",
                    "notes": "; ".join(notes),
                    "region": region,
                    "instance_type": itype,
                    "gpus_per_instance": str(int(count)),
                    "spot_price_per_gpu_hour": "" if spot is None else _number(spot),
                    "reserved_1y_price_per_gpu_hour": "",
                    "reserved_3y_price_per_gpu_hour": "",
                }
            )
        for up in upstream:
            key = (up["InstanceType"][: -len("__SPOT")], _region(up))
            if up["InstanceType"].endswith("__SPOT") and key in demand_keys and key not in imported:
                skip(cloud, up, "spot offer of an on-demand row that is not imported")
    ids = Counter(r["offer"] for r in rows)
    clash = [i for i, n in ids.items() if n > 1]
    if clash:
        raise ValueError(f"offer ids not unique: {clash}")
    return sorted(rows, key=lambda r: r["offer"]), skipped


def _offer_cells(up: dict[str, str]) -> tuple[str, ...]:
    """The cells that make an offer: two upstream rows with equal cells here are the same offer."""
    return tuple(up.get(k, "") for k in ("AcceleratorName", "AcceleratorCount", "Price", "SpotPrice"))


def _region(up: dict[str, str]) -> str:
    """The zone where the upstream file gives one (Prime Intellect), else the region; '' if none."""
    return (up.get("AvailabilityZone") or up.get("Region") or "").strip()


def _write(rows: list[dict[str, str]], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: row.get(k, "") or "" for k in columns} for row in rows)
    return out.getvalue()


def hand_kept(text: str) -> list[dict[str, str]]:
    """Rows of the current CSV that this script did not generate, in their order."""
    return [r for r in csv.DictReader(io.StringIO(text)) if not r["source"].startswith(SOURCE_MARK)]


def refreshed(text: str) -> tuple[str, str, list[dict[str, str]]]:
    """(new cloud_prices.csv text, not_imported.csv text, not-imported rows) for the current CSV text."""
    rows, skipped = generated_rows()
    kept = hand_kept(text)
    clash = {r["offer"] for r in kept} & {r["offer"] for r in rows}
    if clash:
        raise ValueError(f"generated ids clash with hand-kept rows: {sorted(clash)}")
    return _write(kept + rows, COLUMNS), _write(skipped, NOT_IMPORTED_COLUMNS), skipped


def compare_hand_kept(text: str, rows: list[dict[str, str]]) -> list[str]:
    """Hand-kept market rows whose provider and GPU the snapshot also prices, with the snapshot's range."""
    lines = []
    for kept in hand_kept(text):
        same = [
            float(r["price_per_gpu_hour"])
            for r in rows
            if r["provider"] == kept["provider"] and r["gpu"] == kept["gpu"]
        ]
        if same:
            lines.append(
                f"hand-kept {kept['offer']}: {kept['price_per_gpu_hour']}; snapshot {min(same):g} to "
                f"{max(same):g} per GPU-hour in {len(same)} rows"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report whether the CSVs differ; change nothing")
    args = parser.parse_args(argv)
    old = CSV.read_text(encoding="utf-8")
    new, skipped_text, skipped = refreshed(old)
    print(f"{len(skipped)} upstream GPU rows not imported:", file=sys.stderr)
    for reason, n in sorted(Counter(s["reason"] for s in skipped).items(), key=lambda x: (-x[1], x[0])):
        print(f"  {n:4d}  {reason}", file=sys.stderr)
    for line in compare_hand_kept(old, generated_rows()[0]):
        print(line, file=sys.stderr)
    old_skipped = NOT_IMPORTED.read_text(encoding="utf-8") if NOT_IMPORTED.exists() else ""
    if args.check:
        diff = differences(old, new, "offer")
        if skipped_text != old_skipped:
            diff.append(f"{NOT_IMPORTED.relative_to(ROOT)} differs")
        print("\n".join(diff) if diff else "up to date")
        return 1 if diff else 0
    CSV.write_text(new, encoding="utf-8")
    NOT_IMPORTED.write_text(skipped_text, encoding="utf-8")
    print(f"wrote {CSV.relative_to(ROOT)} ({new.count(chr(10)) - 1} rows) and {NOT_IMPORTED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

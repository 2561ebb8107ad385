"""Refresh data/instance_types.csv: AWS, Google Cloud and Azure GPU instance types with their GPU and GPUs per instance.

Usage::

    python scripts/refresh_instance_types.py           # rewrites data/instance_types.csv and its not_imported file
    python scripts/refresh_instance_types.py --check   # exit 1 and print what differs; write nothing

A cloud bill (a FOCUS export) names a GPU instance by the cloud's own instance type (``p5.48xlarge``,
``a3-highgpu-8g``, ``Standard_ND96isr_H100_v5``); ``costmodel bills`` turns its hours into GPU-hours
with this table. The snapshot (``data/sources/skypilot/<cloud>/instance_types.csv``, README.md beside
it) holds the distinct ``InstanceType, AcceleratorName, AcceleratorCount`` of SkyPilot's catalogs
(github skypilot-org/skypilot-catalog and skypilot-org/skypilot, Apache-2.0) at pinned commits. This
runs offline.

The accelerator names map to catalog GPU ids (data/gpus.csv) through ``RULES`` below: a name sold in
more than one form (A100 40/80 GB SXM/PCIe, H100 SXM/PCIe/NVL, H200 SXM/NVL, V100 SXM2/PCIe) maps only
where the provider's documentation states the form, quoted in the rule's note; the others, and names
with no catalog GPU, are written with their reason to ``data/sources/skypilot/instance_types_not_imported.csv``.
A GPU count the upstream gets wrong is corrected in ``COUNT_CORRECTIONS``, with the source that says so.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from pathlib import Path

from catalog_diff import differences  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "data" / "instance_types.csv"
GPUS = ROOT / "data" / "gpus.csv"
SNAPSHOT = ROOT / "data" / "sources" / "skypilot"
NOT_IMPORTED = SNAPSHOT / "instance_types_not_imported.csv"
READ_ON = "2026-12-06"  # the date the snapshot was read (README.md)
COLUMNS = ["instance_type", "provider", "gpu", "gpus_per_instance", "quality", "as_of", "source", "notes"]

# cloud folder: (provider, the upstream file, its commit)
CLOUDS = {
    "aws": ("AWS", "skypilot-catalog catalogs/v7/aws/vms.csv", "001367d22a0033fac286a8c71aeac7109e431bcb"),
    "gcp": (
        "Google Cloud",
        "skypilot sky/catalog/gcp_catalog.py _ACC_INSTANCE_TYPE_DICTS",
        "005261080a6b8102f3d95ff2147a855250f40272",
    ),
    "azure": (
        "Microsoft Azure",
        "skypilot-catalog catalogs/v6/azure/vms.csv",
        "098741e70562f65d7af1cceb81e33b284f742604",
    ),
}

# RULES: (cloud, upstream AcceleratorName, regex on the instance type or None, catalog gpu id or None, note).
# First match wins; None as id means not imported, the note being the reason.
RULES: list[tuple[str, str, str | None, str | None, str]] = [
    # AWS: the ParallelCluster cookbook (aws/aws-parallelcluster-cookbook, libraries/nvidia.rb) lists NVSwitch
    # on P4 (A100) and P5 (H100): GPUs on an NVSwitch board are SXM modules. GpuInfo memory from upstream.
    ("aws", "H100", r"^p5\.", "H100-SXM-80GB", "P5: H100 on NVSwitch (SXM5), GpuInfo 81920 MiB"),
    ("aws", "H200", r"^p5en?\.", "H200-SXM-141GB", "P5e/P5en: H200 on 900 GB/s NVSwitch (SXM), GpuInfo 144384 MiB"),
    (
        "aws",
        "A100",
        r"^p4d\.",
        "A100-SXM-40GB",
        "P4d: A100 on NVSwitch, NVLink gen 3 600 GB/s (SXM4), GpuInfo 40960 MiB",
    ),
    ("aws", "A100-80GB", r"^p4de\.", "A100-SXM-80GB", "P4de: the P4 NVSwitch board with 80 GB A100 (SXM4)"),
    ("aws", "A10G", None, "A10G-24GB", ""),
    ("aws", "L4", None, "L4-24GB", ""),
    ("aws", "L40S", None, "L40S-48GB", ""),
    ("aws", "T4", None, "T4-16GB", ""),
    ("aws", "V100", None, None, "V100 form (SXM2 or PCIe) not stated in the sources read"),
    ("aws", "V100-32GB", None, None, "V100 32 GB form (SXM2 or PCIe) not stated in the sources read"),
    # Google Cloud's GPU platform table: A100 40GB HBM2 and A100 80GB HBM2e with NVLink full mesh 600 GB/s,
    # H100 80GB HBM3 with NVLink full mesh 900 GB/s (an 8-GPU NVLink mesh is the SXM form)
    ("gcp", "A100", None, "A100-SXM-40GB", "A2 Standard: A100 40GB, NVLink full mesh 600 GB/s (SXM4)"),
    ("gcp", "A100-80GB", None, "A100-SXM-80GB", "A2 Ultra: A100 80GB, NVLink full mesh 600 GB/s (SXM4)"),
    ("gcp", "H100", None, "H100-SXM-80GB", "A3 High: H100 80GB HBM3, NVLink full mesh 900 GB/s (SXM5)"),
    ("gcp", "H100-MEGA", None, "H100-SXM-80GB", "A3 Mega: the A3's H100 80GB (Vertex AI NVIDIA_H100_MEGA_80GB)"),
    ("gcp", "H200", None, None, "A3 Ultra: 8 H200; form (SXM or NVL) not stated in the sources read"),
    ("gcp", "B200", None, "B200-SXM-180GB", "A4: 8 B200; B200 is made as an SXM module only (HGX B200)"),
    ("gcp", "L4", None, "L4-24GB", ""),
    # Azure: Microsoft Learn's size-series pages (MicrosoftDocs/azure-docs, virtual-machines/sizes/gpu-accelerated)
    (
        "azure",
        "H100",
        r"^Standard_ND96isr_H100_v5$",
        "H100-SXM-80GB",
        "ND H100 v5: eight H100 with NVLink 4.0 within the VM (SXM5)",
    ),
    ("azure", "H100", r"^Standard_NC\d+adi?s_H100_v5$", "H100-NVL-94GB", "NCads H100 v5: H100 NVL, 94 GB each"),
    ("azure", "A100", r"^Standard_ND96asr_v4$", "A100-SXM-40GB", "ND A100 v4: eight A100 40GB with NVLink 3.0 (SXM4)"),
    (
        "azure",
        "A100-80GB",
        r"^Standard_ND96amsr_A100_v4$",
        "A100-SXM-80GB",
        "NDm A100 v4: eight A100 80GB with NVLink 3.0 (SXM4)",
    ),
    ("azure", "A100-80GB", r"^Standard_NC\d+ads_A100_v4$", "A100-PCIE-80GB", "NC A100 v4: A100 PCIe, 80 GB each"),
    ("azure", "A10", None, "A10-24GB", ""),
    ("azure", "T4", None, "T4-16GB", ""),
    ("azure", "V100", None, None, "V100 form (SXM2 or PCIe) not stated in the sources read"),
    ("azure", "V100-32GB", None, None, "V100 32 GB form (SXM2 or PCIe) not stated in the sources read"),
]

NO_CATALOG_ID = {"K80", "M60", "Radeon MI25", "Radeon Pro V520", "T4g"}
"""Upstream accelerators with no catalog GPU id (data/gpus.csv)."""

# (cloud, instance type): (GPUs per instance, source); the upstream count is kept in the notes
COUNT_CORRECTIONS = {
    ("azure", "Standard_ND96isr_H100_v5"): (
        8,
        "Microsoft Learn ND H100 v5-series: eight NVIDIA H100 GPUs per VM "
        "(microsoft/aspire AksNodeVmSizes.cs: 8 GPU(s))",
    ),
}


def read_snapshot(cloud: str) -> list[dict[str, str]]:
    """The rows of ``data/sources/skypilot/<cloud>/instance_types.csv``, in file order."""
    with (SNAPSHOT / cloud / "instance_types.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def gpu_for(cloud: str, accelerator: str, instance_type: str) -> tuple[str | None, str]:
    """The catalog GPU id of an upstream accelerator, or None and why not."""
    for rule_cloud, name, pattern, gpu, note in RULES:
        if rule_cloud == cloud and name == accelerator and (pattern is None or re.search(pattern, instance_type)):
            return gpu, note
    if accelerator in NO_CATALOG_ID:
        return None, f"no catalog GPU id for {accelerator}"
    return None, f"no rule for {cloud} accelerator {accelerator}"


def _count(text: str) -> int:
    """An upstream count cell (``8``, ``8.0``) as a whole number; a fraction raises ValueError."""
    value = float(text)
    if not value.is_integer() or value < 1:
        raise ValueError(f"{text!r} is not a whole number of GPUs")
    return int(value)


def generated_rows() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The table's rows (sorted by provider and instance type) and the upstream rows not imported."""
    known = {row["gpu"] for row in csv.DictReader(GPUS.open(newline="", encoding="utf-8"))}
    rows: list[dict[str, str]] = []
    skipped: list[dict[str, str]] = []
    for cloud, (provider, upstream, commit) in CLOUDS.items():
        for up in read_snapshot(cloud):
            instance, accelerator, count_text = up["InstanceType"], up["AcceleratorName"], up["AcceleratorCount"]
            gpu, note = gpu_for(cloud, accelerator, instance)
            if gpu is None or gpu not in known:
                reason = note if gpu is None else f"{gpu} not in data/gpus.csv"
                skipped.append({"cloud": cloud, "instance_type": instance, "accelerator": accelerator,
                                "accelerator_count": count_text, "reason": reason})  # fmt: skip
                continue
            count = _count(count_text)
            source = f"SkyPilot catalog ({upstream} at {commit[:10]}, github.com/skypilot-org)"
            notes = [note] if note else []
            corrected = COUNT_CORRECTIONS.get((cloud, instance))
            if corrected is not None:
                notes.append(f"GPUs per instance {corrected[0]}, not the upstream {count_text}: {corrected[1]}")
                count = corrected[0]
            rows.append({"instance_type": instance, "provider": provider, "gpu": gpu,
                         "gpus_per_instance": str(count), "quality": "S", "as_of": READ_ON, "source": source,
                         "notes": "; ".join(notes)})  # fmt: skip
    rows.sort(key=lambda row: (row["provider"], row["instance_type"]))
    return rows, skipped


def _write(rows: list[dict[str, str]], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report whether the CSVs differ; change nothing")
    args = parser.parse_args(argv)
    rows, skipped = generated_rows()
    new = _write(rows, COLUMNS)
    skipped_text = _write(skipped, ["cloud", "instance_type", "accelerator", "accelerator_count", "reason"])
    print(f"{len(skipped)} upstream GPU instance types not imported", file=sys.stderr)
    old = CSV.read_text(encoding="utf-8") if CSV.exists() else ""
    old_skipped = NOT_IMPORTED.read_text(encoding="utf-8") if NOT_IMPORTED.exists() else ""
    if args.check:
        diff = differences(old, new, "instance_type")
        if skipped_text != old_skipped:
            diff.append(f"{NOT_IMPORTED.relative_to(ROOT)} differs")
        print("\n".join(diff) if diff else "up to date")
        return 1 if diff else 0
    CSV.write_text(new, encoding="utf-8")
    NOT_IMPORTED.write_text(skipped_text, encoding="utf-8")
    print(f"wrote {CSV.relative_to(ROOT)} ({len(rows)} rows) and {NOT_IMPORTED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

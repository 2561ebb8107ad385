"""Generate data/serving_curves_estimated.csv.gz: serving curves estimated with aiconfigurator-core.

Usage::

    pip install "costmodel[estimate]"                  # aiconfigurator-core 0.12.0, Apache-2.0
    python scripts/refresh_serving_curves.py           # rewrites the file (about 2 minutes on 2 cores)
    python scripts/refresh_serving_curves.py --check   # exit 1 if a sample of curves differs

What is generated, for every catalog LLM (data/models.csv, vision-language variants left out) on
every catalog GPU that NVIDIA's AIConfigurator database covers with TensorRT-LLM (its support
matrix records a completed run; :func:`costmodel.estimate.coverage`):

- weights at fp8 and at bf16 (fp8 not on A100, which has no FP8 tensor cores); at fp4 where neither
  has kernels in the database (gpt-oss, whose checkpoint ships MXFP4 experts);
- three request shapes, input/output tokens: 1,000/1,000 (the TensorRT-LLM performance overview's),
  5,000/500 and 500/2,000 (NVIDIA NIM's benchmarking guide's);
- the two smallest replica sizes (1, 2, 4 or 8 GPUs) that hold the weights and one request's KV
  cache, each split every way :func:`costmodel.estimate.layouts` gives (a mixture of experts:
  tensor- and attention-data-parallel attention with expert-parallel experts);
- batch sizes 1 to 512 doubling, each point as long as it fits in memory, one curve per step
  budget (max_num_tokens: one request's input, two requests', and TensorRT-LLM's default 8,192);
- each replica also as prefill and as decode workers apart (disaggregated serving): a ``prefill``
  curve (input tokens/s per GPU and the batch's TTFT) and a ``decode`` curve (output tokens/s per
  GPU and per user), which size the two pools of a disaggregated fleet at the workload's shape.

Every row is graded ``E`` (estimated) with the package version, engine and its version, system and
serving mode as its source. The file is gzip-compressed CSV (tens of thousands of rows); the catalog
reads only the rows of the model, GPU and precision a scenario sizes.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costmodel import estimate  # noqa: E402

OUT = ROOT / "data" / "serving_curves_estimated.csv.gz"
COLUMNS = [
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
]
REQUESTS = (estimate.Request(1000, 1000), estimate.Request(5000, 500), estimate.Request(500, 2000))
PRECISIONS = ("fp8", "bf16", "fp4")
"""fp4 only for a model the database has no fp8 or bf16 kernels of (gpt-oss: MXFP4 experts)."""
BATCHES = estimate.COMMITTED_BATCHES
ENGINE = "trtllm"
SIZES_KEPT = 2
NO_FP8 = {"A100-SXM-80GB", "A100-PCIE-80GB", "A30-24GB"}


def pairs() -> list[tuple[str, str]]:
    """(model, GPU) pairs generated: catalog models and GPUs the database covers."""
    with (ROOT / "data" / "models.csv").open(encoding="utf-8", newline="") as handle:
        models = {row["model"] for row in csv.DictReader(handle) if "-vl-" not in row["model"]}
    with (ROOT / "data" / "gpus.csv").open(encoding="utf-8", newline="") as handle:
        gpus = {row["gpu"] for row in csv.DictReader(handle)}
    return sorted((m, g) for m, g, e in estimate.coverage(ENGINE) if m in models and g in gpus)


def pair_rows(pair: tuple[str, str]) -> list[dict]:
    """Every row of one (model, GPU)."""
    model, gpu = pair
    rows = []
    for precision in PRECISIONS:
        if precision == "fp8" and gpu in NO_FP8:
            continue
        if precision == "fp4" and rows:
            break
        for request in REQUESTS:
            try:
                rows += estimate.smallest_replica_curves(
                    model, gpu, request, precision=precision, kept=SIZES_KEPT, batches=BATCHES
                )
            except estimate.NotCovered:
                continue
    return rows


def regenerate(curve_rows: list[dict]) -> list[dict]:
    """The rows of one committed curve, computed again with the installed package."""
    head = curve_rows[0]
    request = estimate.Request(int(head["input_tokens"]), int(head["output_tokens"]))
    found = estimate.curve(
        head["model"],
        head["gpu"],
        request,
        precision=head["precision"],
        engine=ENGINE,
        gpus_per_replica=int(head["gpus_per_replica"]),
        batches=BATCHES,
        disaggregated=head["phase"] != "aggregated",
    )
    return [row for row in found if row["curve"] == head["curve"]]


def read(path: Path = OUT) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def text(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else _cell(row.get(k))) for k in COLUMNS})
    return out.getvalue()


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}" if not value.is_integer() else str(int(value))
    return str(value)


def sample(rows: list[dict], count: int, seed: int = 29) -> list[list[dict]]:
    """``count`` committed curves picked at random (fixed seed), each as its rows."""
    curves: dict[str, list[dict]] = {}
    for row in rows:
        curves.setdefault(row["curve"], []).append(row)
    names = sorted(curves)
    return [curves[name] for name in random.Random(seed).sample(names, min(count, len(names)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check",
        type=int,
        nargs="?",
        const=12,
        metavar="CURVES",
        help="regenerate a sample of committed curves and compare; change nothing",
    )
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    estimate.require()
    if args.check:
        differing = 0
        for committed in sample(read(), args.check):
            fresh = {r["point"]: r for r in read_text(text(regenerate(committed)))}
            for row in committed:
                if fresh.get(row["point"]) != row:
                    differing += 1
                    print(f"differs: {row['point']}")
        print("up to date" if not differing else f"{differing} rows differ from {estimate.PACKAGE} {estimate.PINNED}")
        return 1 if differing else 0
    todo = pairs()
    print(f"{len(todo)} (model, GPU) pairs", file=sys.stderr)
    rows = []
    with ProcessPoolExecutor(args.workers) as pool:
        for done, found in enumerate(pool.map(pair_rows, todo, chunksize=1), 1):
            rows += found
            if done % 25 == 0:
                print(f"{done}/{len(todo)} pairs, {len(rows):,} rows", file=sys.stderr)
    rows.sort(
        key=lambda r: (
            r["model"],
            r["gpu"],
            r["precision"],
            r["input_tokens"],
            r["output_tokens"],
            r["gpus_per_replica"],
            r["parallelism"],
            r["concurrency"],
        )
    )
    with gzip.GzipFile(OUT, "wb", mtime=0) as handle:  # mtime 0: the same rows give the same bytes
        handle.write(text(rows).encode("utf-8"))
    print(f"wrote {OUT.relative_to(ROOT)}: {len(rows):,} rows, {len({r['curve'] for r in rows}):,} curves")
    return 0


def read_text(content: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(content)))


if __name__ == "__main__":
    raise SystemExit(main())

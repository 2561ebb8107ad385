"""Write data/serving_estimate_validation.csv: aiconfigurator-core's estimate against every measured row.

Usage::

    pip install "costmodel[estimate]"
    python scripts/validate_serving_estimates.py            # rewrites the file (about a minute)
    python scripts/validate_serving_estimates.py --check    # exit 1 if the file is not what the package gives

For every measured serving-curve row of data/serving_curves.csv (NVIDIA NIM's benchmarking guide) the
estimate is taken at the row's own model, GPU, precision, replica size, request shape and concurrency,
and its error on output tokens/s per GPU and on TTFT is written; for every row of data/throughput.csv
(TensorRT-LLM's performance overview, MLPerf) the estimate's best output tokens/s per GPU over batch
sizes up to 2,048 at the row's replica size and shape is compared with the measured maximum
throughput. A row the database does not cover, or whose point does not fit in memory, is written
with the reason instead of an error. Errors are (estimate - measured) / measured.

The band of these errors is what the report states beside a fleet sized from an estimated curve
(:func:`costmodel.catalog.estimate_validation`).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costmodel import estimate  # noqa: E402

OUT = ROOT / "data" / "serving_estimate_validation.csv"
COLUMNS = [
    "measured",
    "model",
    "gpu",
    "precision",
    "gpus_per_replica",
    "input_tokens",
    "output_tokens",
    "concurrency",
    "measured_output_tokens_per_second_per_gpu",
    "estimated_output_tokens_per_second_per_gpu",
    "throughput_error",
    "measured_ttft_seconds",
    "estimated_ttft_seconds",
    "ttft_error",
    "status",
    "measured_source",
    "estimate_source",
]
MAX_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 1536, 2048)
"""Batch sizes the estimate's maximum throughput is taken over (trtllm-bench's own limit is 2,048). [requests]"""


def _read(name: str) -> list[dict]:
    with (ROOT / "data" / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _error(estimated: float | None, measured: float | None) -> str:
    if estimated is None or measured is None:
        return ""
    return f"{(estimated - measured) / measured:.4f}"


def _covered(
    model: str, gpu: str, precision: str, replica: int, request: estimate.Request, batches
) -> tuple[list[dict], str]:
    try:
        return estimate.curve(model, gpu, request, precision=precision, gpus_per_replica=replica, batches=batches), ""
    except estimate.NotCovered as exc:
        if "do not fit" in str(exc):
            return [], "not estimated: the weights and the KV cache of this many requests do not fit in memory"
        return [], f"not estimated: {str(exc).split(':')[0]}"


def rows() -> list[dict]:
    """Every measured row with the estimate beside it."""
    out = []
    for m in _read("serving_curves.csv"):
        request = estimate.Request(int(m["input_tokens"]), int(m["output_tokens"]))
        replica, concurrency = int(m["gpus_per_replica"]), float(m["concurrency"])
        found, why = _covered(m["model"], m["gpu"], m["precision"], replica, request, (round(concurrency),))
        # the best step budget (max_num_tokens) at that concurrency, as an engine tuned for throughput runs
        e = max(found, key=lambda r: r["output_tokens_per_second_per_gpu"]) if found else None
        measured_ttft = float(m["ttft_seconds"]) if m["ttft_seconds"] else None
        status = why or "compared"
        out.append(
            {
                "measured": m["point"],
                "model": m["model"],
                "gpu": m["gpu"],
                "precision": m["precision"],
                "gpus_per_replica": replica,
                "input_tokens": request.input_tokens,
                "output_tokens": request.output_tokens,
                "concurrency": f"{concurrency:g}",
                "measured_output_tokens_per_second_per_gpu": m["output_tokens_per_second_per_gpu"],
                "estimated_output_tokens_per_second_per_gpu": e["output_tokens_per_second_per_gpu"] if e else "",
                "throughput_error": _error(
                    e and e["output_tokens_per_second_per_gpu"], float(m["output_tokens_per_second_per_gpu"])
                ),
                "measured_ttft_seconds": m["ttft_seconds"],
                "estimated_ttft_seconds": e["ttft_seconds"] if e else "",
                "ttft_error": _error(e and e["ttft_seconds"], measured_ttft),
                "status": status,
                "measured_source": m["source"].split(":")[0],
                "estimate_source": e["source"] if e else "",
            }
        )
    for m in _read("throughput.csv"):
        base = {
            "measured": m["row"],
            "model": m["model"],
            "gpu": m["gpu"],
            "precision": m["precision"],
            "gpus_per_replica": m["gpus_per_replica"],
            "input_tokens": m["input_tokens"],
            "output_tokens": m["output_tokens"],
            "concurrency": "max",
            "measured_output_tokens_per_second_per_gpu": m["output_tokens_per_second_per_gpu"],
            "estimated_output_tokens_per_second_per_gpu": "",
            "throughput_error": "",
            "measured_ttft_seconds": "",
            "estimated_ttft_seconds": "",
            "ttft_error": "",
            "measured_source": m["source"].split(":")[0],
            "estimate_source": "",
        }
        if m["model"] not in estimate.model_configs():
            out.append(
                base | {"status": f"not estimated: {m['model']} is not a model of {estimate.PACKAGE} {estimate.PINNED}"}
            )
            continue
        if not (m["gpus_per_replica"] and m["input_tokens"] and m["output_tokens"]):
            out.append(base | {"status": "not estimated: the measured row states no replica size or request shape"})
            continue
        request = estimate.Request(int(m["input_tokens"]), int(m["output_tokens"]))
        found, why = _covered(m["model"], m["gpu"], m["precision"], int(m["gpus_per_replica"]), request, MAX_BATCHES)
        if not found:
            out.append(base | {"status": why})
            continue
        best = max(found, key=lambda r: r["output_tokens_per_second_per_gpu"])
        out.append(
            base
            | {
                "estimated_output_tokens_per_second_per_gpu": best["output_tokens_per_second_per_gpu"],
                "throughput_error": _error(
                    best["output_tokens_per_second_per_gpu"], float(m["output_tokens_per_second_per_gpu"])
                ),
                "status": f"compared (estimate's best, at batch {best['concurrency']:g})",
                "estimate_source": best["source"],
            }
        )
    return out


def text(found: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: ("" if row.get(k) is None else row[k]) for k in COLUMNS} for row in found)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file; change nothing")
    args = parser.parse_args(argv)
    estimate.require()
    content = text(rows())
    if args.check:
        same = OUT.read_text(encoding="utf-8") == content
        print("up to date" if same else f"{OUT.relative_to(ROOT)} differs from {estimate.PACKAGE} {estimate.PINNED}")
        return 0 if same else 1
    OUT.write_text(content, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {content.count(chr(10)) - 1} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Write the synthetic Slurm job log in data/job_logs/ (no real user data).

    python scripts/make_job_log.py

A made-up year of a team's GPU jobs, as it would submit them if capacity were no limit:
finetuning jobs of 1-8 GPUs most days, and three continued-pretraining campaigns of 16-24
GPUs running for two to three weeks (so demand can peak above a 24-GPU cluster's size; a
real log records only what the cluster could run). The file
has the fields Slurm's ``sacct --parsable2 --format=JobID,JobName,Start,End,AllocTRES``
writes, with a header line and "|" between fields. Seeded: the same file every time.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "data" / "job_logs" / "synthetic-sacct-2026.txt"
YEAR_START = dt.datetime(2026, 1, 1)


def main() -> None:
    rng = np.random.default_rng(2026)
    rows = ["JobID|JobName|Start|End|AllocTRES"]
    job = 100000

    def add(name: str, start: dt.datetime, hours: float, gpus: int) -> None:
        nonlocal job
        job += 1
        end = start + dt.timedelta(hours=float(hours))
        tres = f"billing={gpus * 4},cpu={gpus * 16},gres/gpu={gpus},mem={gpus * 128}G,node={max(1, gpus // 8)}"
        rows.append(f"{job}|{name}|{start:%Y-%m-%dT%H:%M:%S}|{end:%Y-%m-%dT%H:%M:%S}|{tres}")

    for day in range(365):
        for _ in range(rng.poisson(3)):
            start = YEAR_START + dt.timedelta(days=day, hours=int(rng.integers(7, 20)), minutes=int(rng.integers(0, 60)))
            add("finetune", start, rng.gamma(2.0, 6.0), int(rng.choice([1, 2, 4, 8], p=[0.3, 0.3, 0.25, 0.15])))
    for month in (2, 6, 10):
        start = dt.datetime(2026, month, 3, 9, 0)
        add("cpt-campaign", start, 24 * rng.integers(14, 22), int(rng.choice([16, 24])))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(rows) + "\n")
    print(f"wrote {OUT} ({len(rows) - 1} jobs)")


if __name__ == "__main__":
    main()

"""Write the synthetic Slurm job log in data/job_logs/ (no real user data), or a large one for benchmarks.

    python scripts/make_job_log.py
    python scripts/make_job_log.py --jobs 1000000 --out /tmp/big.txt
    python scripts/make_job_log.py --jobs 1000 --peak 1000000 --out /tmp/peak.txt

A made-up year of a team's GPU jobs, as it would submit them if capacity were no limit:
finetuning jobs of 1-8 GPUs most days, and three continued-pretraining campaigns of 16-24
GPUs running for two to three weeks (so demand can peak above a 24-GPU cluster's size; a
real log records only what the cluster could run). The file
has the fields Slurm's ``sacct --parsable2 --format=JobID,JobName,Start,End,AllocTRES``
writes, with a header line and "|" between fields. Seeded: the same file every time.

With ``--jobs N`` it writes N finetuning jobs instead, spread over 2026 at random (a log for
timing the reader); ``--peak G`` adds one job on G GPUs for the first hour of 2 March.
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "data" / "job_logs" / "synthetic-sacct-2026.txt"
YEAR_START = dt.datetime(2026, 1, 1)
HEADER = "JobID|JobName|Start|End|AllocTRES"


def _tres(gpus: int) -> str:
    return f"billing={gpus * 4},cpu={gpus * 16},gres/gpu={gpus},mem={gpus * 128}G,node={max(1, gpus // 8)}"


def team_year() -> list[str]:
    """The rows of the bundled log: a team's year of finetuning jobs and three campaigns."""
    rng = np.random.default_rng(2026)
    rows = [HEADER]
    job = 100000

    def add(name: str, start: dt.datetime, hours: float, gpus: int) -> None:
        nonlocal job
        job += 1
        end = start + dt.timedelta(hours=float(hours))
        rows.append(f"{job}|{name}|{start:%Y-%m-%dT%H:%M:%S}|{end:%Y-%m-%dT%H:%M:%S}|{_tres(gpus)}")

    for day in range(365):
        for _ in range(rng.poisson(3)):
            start = YEAR_START + dt.timedelta(
                days=day, hours=int(rng.integers(7, 20)), minutes=int(rng.integers(0, 60))
            )
            add("finetune", start, rng.gamma(2.0, 6.0), int(rng.choice([1, 2, 4, 8], p=[0.3, 0.3, 0.25, 0.15])))
    for month in (2, 6, 10):
        start = dt.datetime(2026, month, 3, 9, 0)
        add("cpt-campaign", start, 24 * rng.integers(14, 22), int(rng.choice([16, 24])))
    return rows


def many_jobs(jobs: int, peak: int | None = None, seed: int = 2026) -> list[str]:
    """``jobs`` finetuning jobs of 1-8 GPUs starting at random seconds of 2026 (vectorised), and a ``peak`` job
    of one hour."""
    rng = np.random.default_rng(seed)
    starts = np.datetime64("2026-01-01T00:00:00") + rng.integers(0, 365 * 86400, jobs).astype("timedelta64[s]")
    ends = starts + (rng.gamma(2.0, 6.0, jobs) * 3600).astype(int).astype("timedelta64[s]")
    gpus = rng.choice([1, 2, 4, 8], p=[0.3, 0.3, 0.25, 0.15], size=jobs)
    tres = {g: _tres(int(g)) for g in (1, 2, 4, 8)}
    rows = [HEADER]
    rows += [
        f"{100000 + i}|finetune|{s}|{e}|{tres[g]}"
        for i, (s, e, g) in enumerate(zip(starts.astype(str), ends.astype(str), gpus.tolist()))
    ]
    if peak is not None:
        rows.append(f"{100000 + jobs}|peak|2026-03-02T00:00:00|2026-03-02T01:00:00|{_tres(peak)}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, help="write this many random jobs instead of the team's year")
    parser.add_argument("--peak", type=int, help="with --jobs: add one job on this many GPUs")
    parser.add_argument("--out", type=Path, default=OUT, help="file to write (default: the bundled log)")
    args = parser.parse_args()
    rows = team_year() if args.jobs is None else many_jobs(args.jobs, args.peak)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(rows) + "\n")
    print(f"wrote {args.out} ({len(rows) - 1} jobs)")


if __name__ == "__main__":
    main()

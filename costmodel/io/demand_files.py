"""Hourly demand from files: a year of hourly values, or a Slurm ``sacct --parsable2`` job log.

Both readers return GPUs busy in each hour of one calendar year (8,760 hours, 8,784 in a
leap year) and raise an :class:`~costmodel.errors.InputError` that names the file, the line
and the rule broken. A UTF-8 byte-order mark at the start of a file is ignored.

Job logs are read as Slurm writes them (``sacct --parsable2``: a header line, fields
separated by ``|``):

* fields used: JobID, Start, End and AllocTRES (``gres/gpu=N``, or typed counts
  ``gres/gpu:h200=N`` summed when no untyped count is given); State and Elapsed when present;
* job steps (JobIDs with a dot, such as ``123.batch``) are skipped: their GPUs are the job's;
* a job that never started (Start ``Unknown``/``None``, or State PENDING) holds no GPU and is
  skipped; a job still running (End ``Unknown``, State RUNNING) counts up to ``until`` (default:
  the latest time in the log); where End is missing but Elapsed (``[D-]HH:MM:SS``) is given,
  End = Start + Elapsed;
* times without a UTC offset are wall-clock times in the log's time zone (IANA name, default
  ``UTC``) and are converted with the tz database (:mod:`zoneinfo`), so a job across a
  daylight-saving change lasts its real length; times with an offset (``+02:00``) are taken as
  they are. An End in the repeated hour of an autumn change that would fall before its Start is
  read as the second occurrence of that hour;
* each job adds its GPUs to every hour it overlaps, pro rata for partial hours.

References
----------
.. [1] SchedMD, Slurm ``sacct`` documentation: ``--parsable2``, the State codes (PENDING,
   RUNNING, COMPLETED, CANCELLED, FAILED, TIMEOUT, ...) and the Elapsed format.
.. [2] Python :mod:`zoneinfo` (PEP 615): the IANA time zone database.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

from ..errors import InputError
from ..files import file_problem
from ..numbers import is_count_text, is_decimal_text

MAX_GPUS = 1_000_000
"""Most GPUs an hour of demand or one job may hold."""

_GRES = re.compile(r"^gres/gpu(:[^=]+)?=(.*)$")
_ELAPSED = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$", re.ASCII)
_NOT_A_TIME = {"", "unknown", "none", "n/a"}


class JobLogError(InputError):
    """A job log that cannot be read; names the file, the line and the reason."""


def hours_in_year(year: int, time_zone: str = "UTC") -> int:
    """Hours from 1 January of ``year`` to 1 January of the next, in a time zone. [h]

    8,760, or 8,784 in a leap year (a daylight-saving year gains and loses the same hour).
    """
    zone = ZoneInfo(time_zone)
    start = dt.datetime(year, 1, 1, tzinfo=zone)
    end = dt.datetime(year + 1, 1, 1, tzinfo=zone)
    return round((end - start).total_seconds() / 3600)


MAX_FILE_BYTES = 2_000_000_000
"""Largest demand file (hourly values, job log, request log) read. [B]"""


def kept_by_file(function: Callable) -> Callable:
    """``function(path, *args)`` kept for the last :data:`KEPT_FILES` calls while the file is unchanged
    (same size and modification time): one command resolves a scenario several times (the comparison,
    the uncertainty, a report's sections), and a log of a million jobs takes seconds to read. The
    caller gets a copy of every array, so nothing it does changes what is kept."""
    kept: dict[tuple, Any] = {}

    @functools.wraps(function)
    def read(path, *args, **options):
        try:
            info = os.stat(path)
        except OSError:
            return function(path, *args, **options)      # the function names the problem
        key = (str(Path(path).resolve()), info.st_mtime_ns, info.st_size, *args, *sorted(options.items()))
        if key not in kept:
            while len(kept) >= KEPT_FILES:
                kept.pop(next(iter(kept)))
            kept[key] = function(path, *args, **options)
        return _copied(kept[key])

    return read


KEPT_FILES = 8
"""Demand files read and kept per process (see :func:`kept_by_file`)."""


def _copied(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    if isinstance(value, dict):
        return dict(value)
    if dataclasses.is_dataclass(value):
        return dataclasses.replace(value, **{f.name: _copied(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    return value


def _read_lines(path: Path, error: type[InputError]) -> list[str]:
    problem = file_problem(Path(path), MAX_FILE_BYTES)
    if problem is not None:
        raise error(path, [("(file)", str(path), problem)])
    try:
        return Path(path).read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise error(path, [("(file)", f"byte {exc.object[exc.start]:#x}", f"not UTF-8 text at offset {exc.start}")]) \
            from None
    except OSError as exc:
        raise error(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None


@kept_by_file
def read_hourly_file(path: Path, hours: int = 8760, most: float = MAX_GPUS, what: str = "GPUs") -> np.ndarray:
    """A year of hourly GPU demand from a file with one number per line (a header line is allowed). [GPU]

    Parameters
    ----------
    path
        The file.
    hours
        Values expected: the hours of the profile's year. [h]

    Returns
    -------
    numpy.ndarray
        Shape (hours,). [GPU]

    Raises
    ------
    InputError
        Not ``hours`` values, or a value that is not a number of GPUs between 0 and
        :data:`MAX_GPUS` (the line is named; at most ten problems are listed).
    """
    lines = _read_lines(path, InputError)
    values, problems = [], []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or (number == 1 and not is_decimal_text(text)):
            continue        # blank lines, and a header
        if not is_decimal_text(text) or not np.isfinite(float(text)) or not 0 <= float(text) <= most:
            problems.append((f"line {number}", line, f"not one number of {what} between 0 and {most:,}"))
            continue
        values.append(float(text))
    if not problems and len(values) != hours:
        problems.append(("(file)", len(values), f"needs {hours:,} hourly values, one a line"))
    if problems:
        raise InputError(path, problems[:10])
    return np.asarray(values)


@dataclass(frozen=True)
class JobLog:
    """A job log read into hourly demand, with what was skipped and why.

    Attributes
    ----------
    demand
        GPUs busy in each hour of the year. [GPU]
    jobs
        Jobs counted. [-]
    skipped
        Reason → rows skipped for it (job steps, jobs that never started). [-]
    running
        Jobs still running, counted up to ``until``. [-]
    until
        The time running jobs were counted to (ISO 8601, UTC), or None with none running.
    """

    demand: np.ndarray
    jobs: int
    skipped: dict[str, int] = field(default_factory=dict)
    running: int = 0
    until: str | None = None


def _parse_time(text: str, zone: ZoneInfo, fold: int = 0) -> dt.datetime:
    moment = dt.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        if zone.key == "UTC":              # no daylight saving to resolve: the fast way
            return moment.replace(tzinfo=dt.UTC)
        moment = moment.replace(tzinfo=zone, fold=fold)
    return moment.astimezone(dt.UTC)


def _elapsed_seconds(text: str) -> float | None:
    match = _ELAPSED.match(text.strip())
    if not match:
        return None
    days, hours, minutes, seconds = match.groups()
    if hours is None:            # MM:SS
        hours = 0
    if int(minutes) > 59 or float(seconds) >= 60 or (days is not None and int(hours) > 23):
        return None              # 1-25:99:99 is no duration Slurm writes
    return ((int(days or 0) * 24 + int(hours)) * 60 + int(minutes)) * 60 + float(seconds)


@kept_by_file
def read_job_log(path: Path, year: int, time_zone: str = "UTC", until: dt.datetime | None = None) -> JobLog:
    """Hourly GPU demand of a calendar year from a Slurm ``sacct --parsable2`` job log. [GPU]

    See the module notes for the rules (fields, states, time zone, running jobs).

    Parameters
    ----------
    path
        The log.
    year
        Calendar year of the profile, in the log's time zone.
    time_zone
        IANA name of the zone the log's clock times are in, e.g. ``Europe/Madrid``.
    until
        Running jobs count up to this time (a naive time is in ``time_zone``); default:
        the latest Start or End in the log.

    Returns
    -------
    JobLog

    Raises
    ------
    JobLogError
        A missing field in the header, or a row with a bad time, an end before its start, a
        repeated JobID or a bad GPU count; the line is named (at most ten problems listed).
    """
    path = Path(path)
    zone = ZoneInfo(time_zone)
    lines = _read_lines(path, JobLogError)
    if not lines:
        raise JobLogError(path, [("line 1", "", "empty: expected a header line JobID|Start|End|AllocTRES")])
    header = [name.strip() for name in lines[0].split("|")]
    missing = [f for f in ("JobID", "Start", "AllocTRES") if f not in header]
    if "End" not in header and "Elapsed" not in header:
        missing.append("End (or Elapsed)")
    if missing:
        raise JobLogError(path, [("line 1", lines[0], f"header lacks {', '.join(missing)}")])
    where = {name: header.index(name) for name in ("JobID", "Start", "End", "AllocTRES", "State", "Elapsed")
             if name in header}
    origin = dt.datetime(year, 1, 1, tzinfo=zone).astimezone(dt.UTC)
    hours = hours_in_year(year, time_zone)
    starts, ends, gpus, running_rows, problems = [], [], [], [], []
    seen: dict[str, int] = {}
    skipped: dict[str, int] = {}
    latest: dt.datetime | None = None

    def skip(reason: str) -> None:
        skipped[reason] = skipped.get(reason, 0) + 1

    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("|")
        if len(fields) < len(header):
            problems.append((f"line {number}", line, f"{len(fields)} fields, the header has {len(header)}"))
            continue
        ident = fields[where["JobID"]].strip()
        if "." in ident:
            skip("job steps (their GPUs are the job's)")
            continue
        if ident in seen:
            problems.append((f"line {number}", line, f"JobID {ident} repeats line {seen[ident]}"))
            continue
        seen[ident] = number
        state = fields[where["State"]].strip().split(" ")[0].upper() if "State" in where else ""
        start_text = fields[where["Start"]].strip()
        end_text = fields[where["End"]].strip() if "End" in where else ""
        if start_text.lower() in _NOT_A_TIME or state == "PENDING":
            skip("jobs that never started")
            continue
        try:
            start = _parse_time(start_text, zone)
        except ValueError:
            problems.append((f"line {number}", line, "Start must be a time like 2026-01-05T08:00:00"))
            continue
        end = None
        if end_text.lower() not in _NOT_A_TIME:
            try:
                end = _parse_time(end_text, zone)
                if end < start and dt.datetime.fromisoformat(end_text).tzinfo is None:
                    end = _parse_time(end_text, zone, fold=1)     # the repeated hour of an autumn change
            except ValueError:
                problems.append((f"line {number}", line, "End must be a time like 2026-01-05T08:00:00"))
                continue
        elif "Elapsed" in where and state != "RUNNING" and fields[where["Elapsed"]].strip():
            seconds = _elapsed_seconds(fields[where["Elapsed"]])
            if seconds is None:
                problems.append((f"line {number}", line, "Elapsed must be a duration like 1-02:03:04, 02:03:04 or "
                                                         "03:04 (minutes and seconds below 60)"))
                continue
            end = start + dt.timedelta(seconds=seconds)
        if end is not None and end < start:
            problems.append((f"line {number}", line, "End is before Start"))
            continue
        untyped, typed, bad = None, 0, False
        for part in fields[where["AllocTRES"]].split(","):
            match = _GRES.match(part.strip())
            if not match:
                continue
            text = match.group(2)
            if not is_count_text(text) or int(text) > MAX_GPUS:
                bad = True
                break
            if match.group(1):
                typed += int(text)
            else:
                untyped = int(text)
        if bad:
            problems.append((f"line {number}", line,
                             f"AllocTRES gres/gpu= must be a whole number of GPUs up to {MAX_GPUS:,}"))
            continue
        latest = max(filter(None, (latest, start, end)))
        count = float(untyped if untyped is not None else typed)
        starts.append((start - origin).total_seconds() / 3600.0)
        if end is None:
            running_rows.append(len(ends))
            ends.append(np.nan)
        else:
            ends.append((end - origin).total_seconds() / 3600.0)
        gpus.append(count)
    if problems:
        raise JobLogError(path, problems[:10])
    cut = None
    if running_rows:
        cut = (until.replace(tzinfo=zone) if until.tzinfo is None else until).astimezone(dt.UTC) \
            if until is not None else latest
        ends_array = np.asarray(ends)
        ends_array[running_rows] = np.maximum((cut - origin).total_seconds() / 3600.0,
                                              np.asarray(starts)[running_rows])
        ends = list(ends_array)
    demand = hourly_from_intervals(np.asarray(starts), np.asarray(ends), np.asarray(gpus), hours)
    return JobLog(demand, len(starts), skipped, len(running_rows),
                  None if cut is None else cut.isoformat())


def hourly_from_intervals(starts: np.ndarray, ends: np.ndarray, gpus: np.ndarray, hours: int) -> np.ndarray:
    """GPUs busy in each hour from jobs' start and end times, pro rata for partial hours. [GPU]

    Parameters
    ----------
    starts, ends
        Hours from the start of the year (may lie outside it; the parts outside are
        dropped). [h]
    gpus
        GPUs each job holds. [GPU]
    hours
        Hours in the year. [h]

    Notes
    -----
    The GPU-hours of all jobs up to time x are Σ_j g_j·(max(0, x − s_j) − max(0, x − e_j)); the
    demand of hour h is that at h + 1 minus that at h. Evaluated at the hour edges from sorted
    boundaries and cumulative sums: O((jobs + hours)·log jobs), whatever the GPU counts.
    """
    demand_edges = np.arange(hours + 1, dtype=float)
    cumulative = np.zeros(hours + 1)
    if len(starts) == 0:
        return np.zeros(hours)
    s = np.clip(starts, 0, hours)
    e = np.clip(ends, 0, hours)
    for boundary, sign in ((s, 1.0), (e, -1.0)):
        order = np.argsort(boundary)
        t, w = boundary[order], (gpus * sign)[order]
        count = np.searchsorted(t, demand_edges, side="right")
        weight = np.concatenate([[0.0], np.cumsum(w)])
        moment = np.concatenate([[0.0], np.cumsum(w * t)])
        cumulative += weight[count] * demand_edges - moment[count]
    return np.diff(cumulative)

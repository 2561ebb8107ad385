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
import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import numpy as np

from ..errors import InputError
from ..files import file_problem
from ..numbers import is_count_text, is_decimal_text

if TYPE_CHECKING:
    import pandas as pd

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
    the uncertainty, a report's sections), and a log of a million jobs is long to read. The
    caller gets a copy of every array, so nothing it does changes what is kept."""
    kept: dict[tuple, Any] = {}

    @functools.wraps(function)
    def read(path, *args, **options):
        try:
            info = os.stat(path)
        except OSError:
            return function(path, *args, **options)  # the function names the problem
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
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(
            value, **{f.name: _copied(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        )
    return value


def _read_lines(path: Path, error: type[InputError]) -> list[str]:
    problem = file_problem(Path(path), MAX_FILE_BYTES)
    if problem is not None:
        raise error(path, [("(file)", str(path), problem)])
    try:
        return Path(path).read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise error(
            path, [("(file)", f"byte {exc.object[exc.start]:#x}", f"not UTF-8 text at offset {exc.start}")]
        ) from None
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
            continue  # blank lines, and a header
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
        if zone.key == "UTC":  # no daylight saving to resolve: the fast way
            return moment.replace(tzinfo=dt.UTC)
        moment = moment.replace(tzinfo=zone, fold=fold)
    return moment.astimezone(dt.UTC)


def _elapsed_seconds(text: str) -> float | None:
    match = _ELAPSED.match(text.strip())
    if not match:
        return None
    days, hours, minutes, seconds = match.groups()
    if hours is None:  # MM:SS
        hours = 0
    if int(minutes) > 59 or float(seconds) >= 60 or (days is not None and int(hours) > 23):
        return None  # 1-25:99:99 is no duration Slurm writes
    return ((int(days or 0) * 24 + int(hours)) * 60 + int(minutes)) * 60 + float(seconds)


def _job_fields(fields: list[str], where: dict[str, int], zone: ZoneInfo) -> tuple:
    """One row of a job log that is not a job step nor a repeated JobID, by the module's rules.

    Returns ``("skip", reason)``, ``("problem", reason)`` or ``("job", start, end, gpus)`` with
    ``start`` and ``end`` in UTC (``end`` None for a job still running). [-], [-], [GPU]
    """
    state = fields[where["State"]].strip().split(" ")[0].upper() if "State" in where else ""
    start_text = fields[where["Start"]].strip()
    end_text = fields[where["End"]].strip() if "End" in where else ""
    if start_text.lower() in _NOT_A_TIME or state == "PENDING":
        return ("skip", "jobs that never started")
    try:
        start = _parse_time(start_text, zone)
    except ValueError:
        return ("problem", "Start must be a time like 2026-01-05T08:00:00")
    end = None
    if end_text.lower() not in _NOT_A_TIME:
        try:
            end = _parse_time(end_text, zone)
            if end < start and dt.datetime.fromisoformat(end_text).tzinfo is None:
                end = _parse_time(end_text, zone, fold=1)  # the repeated hour of an autumn change
        except ValueError:
            return ("problem", "End must be a time like 2026-01-05T08:00:00")
    elif "Elapsed" in where and state != "RUNNING" and fields[where["Elapsed"]].strip():
        seconds = _elapsed_seconds(fields[where["Elapsed"]])
        if seconds is None:
            return (
                "problem",
                "Elapsed must be a duration like 1-02:03:04, 02:03:04 or 03:04 (minutes and seconds below 60)",
            )
        end = start + dt.timedelta(seconds=seconds)
    if end is not None and end < start:
        return ("problem", "End is before Start")
    count = _gpu_count(fields[where["AllocTRES"]])
    if count is None:
        return ("problem", f"AllocTRES gres/gpu= must be a whole number of GPUs up to {MAX_GPUS:,}")
    return ("job", start, end, count)


def _gpu_count(tres: str) -> float | None:
    """GPUs in an AllocTRES field: the untyped ``gres/gpu=N``, else the typed counts summed; None if one is bad."""
    untyped, typed = None, 0
    for part in tres.split(","):
        match = _GRES.match(part.strip())
        if not match:
            continue
        text = match.group(2)
        if not is_count_text(text) or int(text) > MAX_GPUS:
            return None
        if match.group(1):
            typed += int(text)
        else:
            untyped = int(text)
    return float(untyped if untyped is not None else typed)


def _header(path: Path, lines: list[str]) -> tuple[list[str], dict[str, int]]:
    """The header's field names and where the fields used are; raises for a missing one."""
    if not lines:
        raise JobLogError(path, [("line 1", "", "empty: expected a header line JobID|Start|End|AllocTRES")])
    header = [name.strip() for name in lines[0].split("|")]
    missing = [f for f in ("JobID", "Start", "AllocTRES") if f not in header]
    if "End" not in header and "Elapsed" not in header:
        missing.append("End (or Elapsed)")
    if missing:
        raise JobLogError(path, [("line 1", lines[0], f"header lacks {', '.join(missing)}")])
    where = {
        name: header.index(name)
        for name in ("JobID", "Start", "End", "AllocTRES", "State", "Elapsed")
        if name in header
    }
    return header, where


@dataclass
class _Jobs:
    """Jobs read from a log, before they are summed into hours: times in hours from the year's start."""

    starts: np.ndarray
    ends: np.ndarray  # NaN for a job still running
    gpus: np.ndarray
    skipped: dict[str, int]
    latest: dt.datetime | None


def _jobs_line_by_line(
    path: Path, lines: list[str], where: dict[str, int], fields_in_header: int, zone: ZoneInfo, origin: dt.datetime
) -> _Jobs:
    """Every row read with :func:`_job_fields`, one at a time: the reference the vectorised reader must equal."""
    starts, ends, gpus, problems = [], [], [], []
    seen: dict[str, int] = {}
    skipped: dict[str, int] = {}
    latest: dt.datetime | None = None
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("|")
        if len(fields) < fields_in_header:
            problems.append((f"line {number}", line, f"{len(fields)} fields, the header has {fields_in_header}"))
            continue
        ident = fields[where["JobID"]].strip()
        if "." in ident:
            reason = "job steps (their GPUs are the job's)"
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        if ident in seen:
            problems.append((f"line {number}", line, f"JobID {ident} repeats line {seen[ident]}"))
            continue
        seen[ident] = number
        row = _job_fields(fields, where, zone)
        if row[0] == "skip":
            skipped[row[1]] = skipped.get(row[1], 0) + 1
        elif row[0] == "problem":
            problems.append((f"line {number}", line, row[1]))
        else:
            _, start, end, count = row
            latest = max(filter(None, (latest, start, end)))
            starts.append((start - origin).total_seconds() / 3600.0)
            ends.append(np.nan if end is None else (end - origin).total_seconds() / 3600.0)
            gpus.append(count)
    if problems:
        raise JobLogError(path, problems[:10])
    return _Jobs(
        np.asarray(starts, dtype=float), np.asarray(ends, dtype=float), np.asarray(gpus, dtype=float), skipped, latest
    )


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

    Notes
    -----
    Rows are read column by column (:func:`_jobs_by_column`); a log that reader cannot take
    whole (a bad row, a line with too few fields) is read again line by line, which names the
    problems.
    """
    path = Path(path)
    zone = ZoneInfo(time_zone)
    lines = _read_lines(path, JobLogError)
    header, where = _header(path, lines)
    origin = dt.datetime(year, 1, 1, tzinfo=zone).astimezone(dt.UTC)
    hours = hours_in_year(year, time_zone)
    jobs = _jobs_by_column(lines, where, len(header), zone, origin, year)
    if jobs is None:
        jobs = _jobs_line_by_line(path, lines, where, len(header), zone, origin)
    return _summed(jobs, zone, origin, hours, until)


def _read_job_log_line_by_line(
    path: Path, year: int, time_zone: str = "UTC", until: dt.datetime | None = None
) -> JobLog:
    """:func:`read_job_log` without the column reader (and not kept): the reference for tests."""
    path = Path(path)
    zone = ZoneInfo(time_zone)
    lines = _read_lines(path, JobLogError)
    header, where = _header(path, lines)
    origin = dt.datetime(year, 1, 1, tzinfo=zone).astimezone(dt.UTC)
    jobs = _jobs_line_by_line(path, lines, where, len(header), zone, origin)
    return _summed(jobs, zone, origin, hours_in_year(year, time_zone), until)


def _summed(jobs: _Jobs, zone: ZoneInfo, origin: dt.datetime, hours: int, until: dt.datetime | None) -> JobLog:
    """The jobs summed into hourly demand, running jobs counted up to ``until`` (default: the latest time)."""
    ends = jobs.ends.copy()
    running = np.isnan(ends)
    cut = None
    if running.any():
        cut = (
            (until.replace(tzinfo=zone) if until.tzinfo is None else until).astimezone(dt.UTC)
            if until is not None
            else jobs.latest
        )
        assert cut is not None, "a running job has a start time, so the log has a latest time"
        ends[running] = np.maximum((cut - origin).total_seconds() / 3600.0, jobs.starts[running])
    demand = hourly_from_intervals(jobs.starts, ends, jobs.gpus, hours)
    return JobLog(demand, len(jobs.starts), jobs.skipped, int(running.sum()), None if cut is None else cut.isoformat())


# --- the column reader ------------------------------------------------------------------------------------

_PLAIN_TIME = (
    r"^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$"
)
"""The time as Slurm writes it, ``2026-01-05T08:00:00`` (ASCII digits): the form read column by column."""


def _plain_seconds(texts) -> tuple[np.ndarray, np.ndarray]:
    """Clock times written ``YYYY-MM-DDTHH:MM:SS`` as seconds from 1970-01-01T00:00 on the same clock. [s]

    Parameters
    ----------
    texts : pandas.Series
        Times as text.

    Returns
    -------
    tuple of numpy.ndarray
        The seconds (0 where not such a time) [s], and whether each text is such a time on a real
        date; the others are left to :func:`datetime.datetime.fromisoformat`.
    """
    import pandas as pd

    plain = texts.str.fullmatch(_PLAIN_TIME).to_numpy(dtype=bool, na_value=False).copy()
    moments = pd.to_datetime(texts.where(plain), format="%Y-%m-%dT%H:%M:%S", errors="coerce")
    plain &= moments.notna().to_numpy()
    seconds = moments.to_numpy(dtype="datetime64[s]").astype(np.int64)
    return np.where(plain, seconds, 0), plain


@functools.lru_cache(maxsize=32)
def _zone_changes(zone: ZoneInfo, first: int, last: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The UTC offset changes of ``zone`` between two instants: when, the offset before, the offset after. [s]

    Found by asking :mod:`zoneinfo` the offset at every hour and bisecting to the second where it
    changes (no zone changes its offset twice within an hour).
    """

    def offset(instant: int) -> int:
        utc_offset = dt.datetime.fromtimestamp(instant, zone).utcoffset()
        assert utc_offset is not None, "an aware datetime has an offset"
        return int(utc_offset.total_seconds())

    probes = list(range(first, last + 3600, 3600))
    offsets = [offset(t) for t in probes]
    when, before, after = [], [], []
    for i in range(len(probes) - 1):
        if offsets[i] != offsets[i + 1]:
            low, high = probes[i], probes[i + 1]
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if offset(middle) == offsets[i] else (low, middle)
            when.append(high)
            before.append(offsets[i])
            after.append(offsets[i + 1])
    return (
        np.array(when, dtype=np.int64),
        np.array(before or [offsets[0]], dtype=np.int64),
        np.array(after, dtype=np.int64),
    )


def _local_to_utc(local: np.ndarray, zone: ZoneInfo, first: int, last: int, fold: int) -> np.ndarray:
    """Wall-clock seconds in ``zone`` to UTC seconds, as :mod:`zoneinfo` maps them with ``fold``. [s]

    Notes
    -----
    Across an offset change at UTC instant T from o₁ to o₂, zoneinfo reads a wall time L with the
    offset o₁ while L < T + max(o₁, o₂) for fold 0 (the earlier reading of a repeated hour, the
    offset before a skipped one), T + min(o₁, o₂) for fold 1, and o₂ from then on (PEP 495).
    """
    when, before, after = _zone_changes(zone, first, last)
    if not when.size:
        return local - before[0]
    pick = np.maximum if fold == 0 else np.minimum
    thresholds = when + pick(before, after)
    offsets = np.concatenate([before[:1], after])
    return local - offsets[np.searchsorted(thresholds, local, side="right")]


CHUNK_LINES = 200_000
"""Lines of a job log read into columns at once: bounds the memory the column reader adds. [-]"""


def _jobs_by_column(
    lines: list[str], where: dict[str, int], fields_in_header: int, zone: ZoneInfo, origin: dt.datetime, year: int
) -> _Jobs | None:
    """The log's jobs read column by column with pandas and numpy, or None where a row needs reading alone.

    Rows in the form Slurm writes (times ``YYYY-MM-DDTHH:MM:SS`` within a year of the profile's,
    a state other than PENDING) are read as arrays, :data:`CHUNK_LINES` lines at a time; the rest
    (``Unknown`` times, offsets, Elapsed) row by row with :func:`_job_fields`, which holds the
    rules. None (read the whole log line by line, to name the problems) for a row with a problem,
    a repeated JobID, a line with too few fields or a blank line with spaces. Equals
    :func:`_jobs_line_by_line` otherwise.
    """
    import pandas as pd

    body = lines[1:]
    pieces = []
    rows = 0
    for low in range(0, len(body), CHUNK_LINES):
        piece = _column_chunk(body[low : low + CHUNK_LINES], rows, where, fields_in_header, zone, origin, year)
        if piece is None:
            return None
        pieces.append(piece)
        rows += piece["rows"]
    if not rows:
        return None
    if pd.concat([piece["ids"] for piece in pieces], ignore_index=True).duplicated().any():
        return None
    skipped: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    for piece in pieces:
        for reason, (count, row) in piece["skipped"].items():
            skipped[reason] = skipped.get(reason, 0) + count
            first_seen.setdefault(reason, row)
    skipped = {reason: skipped[reason] for reason in sorted(skipped, key=first_seen.__getitem__)}
    latest = [piece["latest"] for piece in pieces if piece["latest"] is not None]
    return _Jobs(
        np.concatenate([piece["starts"] for piece in pieces]),
        np.concatenate([piece["ends"] for piece in pieces]),
        np.concatenate([piece["gpus"] for piece in pieces]),
        skipped,
        max(latest) if latest else None,
    )


def _column_chunk(
    body: list[str],
    before: int,
    where: dict[str, int],
    fields_in_header: int,
    zone: ZoneInfo,
    origin: dt.datetime,
    year: int,
) -> dict[str, Any] | None:
    """One block of lines for :func:`_jobs_by_column`, ``before`` rows after the log's first. None as there."""
    import pandas as pd

    pipes = np.fromiter(map(str.count, body, itertools.repeat("|")), dtype=np.int64, count=len(body))
    short = pipes < fields_in_header - 1
    if short.any() and any(body[i] != "" for i in np.flatnonzero(short)):
        return None  # too few fields, or a line of spaces: read line by line
    if short.all():
        return {
            "rows": 0,
            "ids": pd.Series([], dtype="str"),
            "starts": np.zeros(0),
            "ends": np.zeros(0),
            "gpus": np.zeros(0),
            "skipped": {},
            "latest": None,
        }
    column = _chunk_columns(body, where, int((~short).sum()))
    if column is None:
        return None
    rows = len(column["JobID"])
    ident = column["JobID"]
    step = ident.str.contains(".", regex=False).to_numpy(dtype=bool).copy()
    ids = ident.loc[~step].str.strip()
    pending = np.zeros(rows, dtype=bool)
    if "State" in where:
        codes, states = pd.factorize(column["State"])
        pending = np.array([s.strip().split(" ")[0].upper() == "PENDING" for s in states], dtype=bool)[codes]
    plain = ~step & ~pending
    first = int(dt.datetime(year - 1, 1, 1, tzinfo=dt.UTC).timestamp())
    last = int(dt.datetime(year + 2, 1, 1, tzinfo=dt.UTC).timestamp())
    local = {}
    for name in ("Start", "End"):
        if name not in where:
            plain[:] = False
            local[name] = np.zeros(rows, dtype=np.int64)
            continue
        local[name], ok = _plain_seconds(column[name])
        plain &= ok & (local[name] >= first) & (local[name] < last)
    codes, tres = pd.factorize(column["AllocTRES"])
    counts = [_gpu_count(t) for t in tres]
    if any(c is None for c in counts):
        return None
    gpus_of = np.asarray(counts, dtype=float)[codes] if counts else np.zeros(rows)
    fast = np.flatnonzero(plain)
    utc = _chunk_utc(local["Start"][fast], local["End"][fast], zone, first, last)
    if utc is None:
        return None
    start_utc, end_utc = utc
    starts = np.empty(rows)
    ends = np.empty(rows)
    counted = np.zeros(rows, dtype=bool)
    origin_seconds = int(origin.timestamp())
    starts[fast] = (start_utc - origin_seconds) / 3600.0
    ends[fast] = (end_utc - origin_seconds) / 3600.0
    counted[fast] = True
    latest = None
    if fast.size:
        latest = dt.datetime.fromtimestamp(int(max(start_utc.max(), end_utc.max())), dt.UTC)
    skipped: dict[str, tuple[int, int]] = {}  # reason -> (rows, the first of them in the log)
    if step.any():
        skipped["job steps (their GPUs are the job's)"] = (int(step.sum()), before + int(np.argmax(step)))
    alone = np.flatnonzero(~step & ~plain)
    rows_alone = _ChunkRows(starts, ends, counted, skipped, latest)
    if not _read_rows_alone(rows_alone, alone, column, where, fields_in_header, zone, origin, before):
        return None
    return {
        "rows": rows,
        "ids": ids,
        "starts": starts[counted],
        "ends": ends[counted],
        "gpus": gpus_of[counted],
        "skipped": skipped,
        "latest": rows_alone.latest,
    }


def _chunk_columns(body: list[str], where: dict[str, int], lines: int) -> dict[str, pd.Series] | None:
    """The fields of a block of job-log lines as text columns by field name, or None when pandas
    cannot read them as text (a NUL or a carriage return, a parser error, a row count other than
    ``lines``, a field read as numbers)."""
    import io

    import pandas as pd

    text = "\n".join(body)
    if "\x00" in text or "\r" in text:
        return None
    used = sorted(set(where.values()))
    try:  # JobID as text; the others as pandas reads text (Arrow-backed where pyarrow is installed)
        table = pd.read_csv(
            io.StringIO(text),
            sep="|",
            header=None,
            usecols=used,
            quoting=3,
            na_filter=False,
            engine="c",
            skip_blank_lines=True,
            dtype={where["JobID"]: "str"},
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    del text
    if len(table) != lines:
        return None
    column: dict[str, pd.Series] = {}
    for name, index in where.items():
        read = table[index]
        assert isinstance(read, pd.Series), "one column label, one column"
        column[name] = read
    if not all(pd.api.types.is_string_dtype(column[name]) for name in where):
        return None  # a field pandas read as numbers: its text is gone
    return column


def _chunk_utc(
    start_local: np.ndarray, end_local: np.ndarray, zone: ZoneInfo, first: int, last: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Jobs' wall-clock start and end seconds in ``zone`` as UTC seconds, or None when a job would
    end before it starts. [s]"""
    if zone.key == "UTC":
        start_utc, end_utc = start_local, end_local
    else:
        span = (first - 2 * 86400, last + 2 * 86400)
        start_utc = _local_to_utc(start_local, zone, *span, fold=0)
        end_utc = _local_to_utc(end_local, zone, *span, fold=0)
        early = end_utc < start_utc
        end_utc[early] = _local_to_utc(end_local[early], zone, *span, fold=1)  # the repeated hour of an autumn change
    if (end_utc < start_utc).any():
        return None
    return start_utc, end_utc


@dataclass
class _ChunkRows:
    """What :func:`_column_chunk` fills in row by row: hours from the origin, which rows count, the
    skipped rows by reason (count, first row in the log) and the latest time seen."""

    starts: np.ndarray
    ends: np.ndarray
    counted: np.ndarray
    skipped: dict[str, tuple[int, int]]
    latest: dt.datetime | None


def _read_rows_alone(
    into: _ChunkRows,
    alone: np.ndarray,
    column: dict[str, pd.Series],
    where: dict[str, int],
    fields_in_header: int,
    zone: ZoneInfo,
    origin: dt.datetime,
    before: int,
) -> bool:
    """Read the rows ``alone`` of a block (not steps, and not plain enough for the columns) one by one
    with :func:`_job_fields` into ``into``; False when one of them is a problem (read the log line by
    line then)."""
    values = {name: column[name].iloc[alone].tolist() for name in where}
    for i, row in enumerate(alone):
        fields = [""] * fields_in_header
        for name, index in where.items():
            fields[index] = values[name][i]
        found = _job_fields(fields, where, zone)
        if found[0] == "problem":
            return False
        if found[0] == "skip":
            count, seen = into.skipped.get(found[1], (0, before + int(row)))
            into.skipped[found[1]] = (count + 1, seen)
            continue
        _, start, end, _count = found
        into.latest = max(filter(None, (into.latest, start, end)))
        into.starts[row] = (start - origin).total_seconds() / 3600.0
        into.ends[row] = np.nan if end is None else (end - origin).total_seconds() / 3600.0
        into.counted[row] = True
    return True


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

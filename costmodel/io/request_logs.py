"""Request logs of an LLM service summed to tokens per hour, for a tokens workload's demand profile.

The log is CSV with a header ``timestamp,input_tokens,output_tokens`` and one request a line
(the shape most gateways and API usage exports give). Timestamps are ISO 8601; one without a
UTC offset is read in the profile's time zone. Each request counts in the hour it starts.

A log without quotes is read column by column (pandas ``read_csv``); any other log, and any log
with a problem, line by line with :mod:`csv`, which names the problems.
"""

from __future__ import annotations

import csv
import datetime as dt
import itertools
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

from ..errors import InputError
from ..files import file_problem
from ..numbers import is_count_text
from .demand_files import MAX_FILE_BYTES, _plain_seconds, hours_in_year, kept_by_file

MAX_TOKENS_PER_REQUEST = 100_000_000
"""Most tokens one request may carry before the line is taken for a typo. [tokens]"""


@kept_by_file
def read_request_log(path: Path, year: int, time_zone: str = "UTC") -> tuple[np.ndarray, int]:
    """Input plus output tokens started in each hour of ``year``, and the requests counted. [tokens]

    Parameters
    ----------
    path
        The CSV file.
    year
        Calendar year of the profile; requests outside it are left out.
    time_zone
        IANA time zone of the year's hours and of timestamps without an offset.

    Returns
    -------
    tuple
        Tokens per hour, shape (hours in the year,) [tokens]; requests counted [-].

    Raises
    ------
    InputError
        A missing column, a timestamp that is not ISO 8601 or a token count that is not a
        whole number in range (the line is named; at most ten problems are listed).
    """
    problem = file_problem(Path(path), MAX_FILE_BYTES)
    if problem is None:
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            text = None  # the line reader names the problem
        found = None if text is None else _requests_by_column(text, year, ZoneInfo(time_zone))
        if found is not None:
            return found
    return _read_request_log_line_by_line(path, year, time_zone)


def _read_request_log_line_by_line(path: Path, year: int, time_zone: str = "UTC") -> tuple[np.ndarray, int]:
    """:func:`read_request_log` with :mod:`csv`, one row at a time (and not kept): the reference for tests."""
    zone = ZoneInfo(time_zone)
    start = dt.datetime(year, 1, 1, tzinfo=zone)
    hours = hours_in_year(year, time_zone)
    problem = file_problem(Path(path), MAX_FILE_BYTES)
    if problem is not None:
        raise InputError(path, [("(file)", str(path), problem)])
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
            header = reader.fieldnames or []
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(path, [("(file)", str(path), f"cannot be read: {exc}")]) from None
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:  # csv.DictReader would keep the last of them silently
        raise InputError(path, [("line 1", ",".join(header), f"column {twice[0]} given twice")])
    needed = {"timestamp", "input_tokens", "output_tokens"}
    if not rows or not needed <= set(rows[0]):
        raise InputError(
            path,
            [("(header)", ",".join(rows[0]) if rows else "", "needs the columns timestamp,input_tokens,output_tokens")],
        )
    index, tokens, problems = [], [], []
    for number, row in enumerate(rows, start=2):
        found = _request(row["timestamp"], row["input_tokens"], row["output_tokens"], zone, start)
        if found[0] == "problem":
            problems.append((f"line {number}", *found[1:]))
        elif 0 <= found[1] < hours:
            index.append(found[1])
            tokens.append(found[2])
    if problems:
        raise InputError(path, problems[:10])
    series = np.bincount(np.asarray(index, dtype=int), weights=np.asarray(tokens, dtype=float), minlength=hours)
    return series[:hours], len(index)


def _request(
    timestamp: str | None, input_tokens: str | None, output_tokens: str | None, zone: ZoneInfo, start: dt.datetime
) -> tuple:
    """One request: ``("request", hour, tokens)``, the hour counted from ``start``, or ``("problem", text, reason)``.

    A timestamp without an offset is a wall-clock time in ``zone``: its hour is counted on the wall
    clock from ``start`` (Python subtracts two times of the same zone object without their offsets).
    """
    timestamp = timestamp or ""  # None: the line has too few fields
    try:
        when = dt.datetime.fromisoformat(timestamp.strip())
    except ValueError:
        return ("problem", timestamp, "not an ISO 8601 timestamp")
    when = when if when.tzinfo is not None else when.replace(tzinfo=zone)
    count = 0
    for column, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens)):
        text = (value or "").strip()
        if not is_count_text(text) or int(text) > MAX_TOKENS_PER_REQUEST:
            return ("problem", text, f"{column}: not a whole number of tokens from 0 to {MAX_TOKENS_PER_REQUEST:,}")
        count += int(text)
    return ("request", int((when - start).total_seconds() // 3600), count)


def _requests_by_column(text: str, year: int, zone: ZoneInfo) -> tuple[np.ndarray, int] | None:
    """Tokens per hour and requests counted, read column by column; None where the log needs :mod:`csv`.

    Taken: a log without quotes, NUL bytes or lone carriage returns, whose header names each
    column once, every line of which is blank or has the header's fields (or more). Timestamps
    ``YYYY-MM-DDTHH:MM:SS`` and token counts of up to nine ASCII digits are read as arrays, the
    rest row by row with :func:`_request`; None at the first problem.
    """
    import io

    import pandas as pd

    text = text.replace("\r\n", "\n")
    if '"' in text or "\r" in text or "\x00" in text:
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's last line break
    if not lines:
        return None
    header = lines[0].split(",")
    needed = ("timestamp", "input_tokens", "output_tokens")
    if len(set(header)) < len(header) or not set(needed) <= set(header) or len(lines) < 2:
        return None
    body = lines[1:]
    commas = np.fromiter(map(str.count, body, itertools.repeat(",")), dtype=np.int64, count=len(body))
    short = commas < len(header) - 1
    if short.all() or any(body[i] != "" for i in np.flatnonzero(short)):
        return None
    used = [header.index(name) for name in needed]
    try:
        table = pd.read_csv(
            io.StringIO("\n".join(body)),
            sep=",",
            header=None,
            usecols=used,
            dtype="str",
            quoting=3,
            na_filter=False,
            engine="c",
            skip_blank_lines=True,
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    if len(table) != int((~short).sum()):
        return None
    stamps, given_in, given_out = (table[i] for i in used)
    local, plain = _plain_seconds(stamps)
    counts = np.zeros(len(table), dtype=np.int64)
    for column in (given_in, given_out):
        digits = column.str.fullmatch(r"[0-9]{1,9}").to_numpy(dtype=bool, na_value=False)
        value = column.where(digits, "0").astype(np.int64).to_numpy()
        plain &= digits & (value <= MAX_TOKENS_PER_REQUEST)
        counts += value
    start = dt.datetime(year, 1, 1, tzinfo=zone)
    wall_start = int(dt.datetime(year, 1, 1, tzinfo=dt.UTC).timestamp())
    hour = np.where(plain, (local - wall_start) // 3600, -1)
    for row in np.flatnonzero(~plain):
        found = _request(stamps.iloc[row], given_in.iloc[row], given_out.iloc[row], zone, start)
        if found[0] == "problem":
            return None
        hour[row], counts[row] = found[1], found[2]
    hours = hours_in_year(year, zone.key)
    kept = (hour >= 0) & (hour < hours)
    series = np.bincount(hour[kept], weights=counts[kept].astype(float), minlength=hours)
    return series[:hours], int(kept.sum())


__all__ = ["MAX_TOKENS_PER_REQUEST", "read_request_log"]

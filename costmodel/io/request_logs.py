"""Request logs of an LLM service summed to tokens per hour, for a tokens workload's demand profile.

The log is CSV with a header ``timestamp,input_tokens,output_tokens`` and one request a line
(the shape most gateways and API usage exports give). Timestamps are ISO 8601; one without a
UTC offset is read in the profile's time zone. Each request counts in the hour it starts.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

from ..errors import InputError
from ..files import file_problem
from ..numbers import is_count_text
from .demand_files import MAX_FILE_BYTES, hours_in_year, kept_by_file

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
    if twice:      # csv.DictReader would keep the last of them silently
        raise InputError(path, [("line 1", ",".join(header), f"column {twice[0]} given twice")])
    needed = {"timestamp", "input_tokens", "output_tokens"}
    if not rows or not needed <= set(rows[0]):
        raise InputError(path, [("(header)", ",".join(rows[0]) if rows else "", "needs the columns "
                                 "timestamp,input_tokens,output_tokens")])
    index, tokens, problems = [], [], []
    for number, row in enumerate(rows, start=2):
        try:
            when = dt.datetime.fromisoformat(row["timestamp"].strip())
        except ValueError:
            problems.append((f"line {number}", row["timestamp"], "not an ISO 8601 timestamp"))
            continue
        when = when if when.tzinfo is not None else when.replace(tzinfo=zone)
        count = 0
        for column in ("input_tokens", "output_tokens"):
            text = (row[column] or "").strip()
            if not is_count_text(text) or int(text) > MAX_TOKENS_PER_REQUEST:
                problems.append((f"line {number}", text, f"{column}: not a whole number of tokens from 0 to "
                                 f"{MAX_TOKENS_PER_REQUEST:,}"))
                break
            count += int(text)
        else:
            hour = int((when - start).total_seconds() // 3600)
            if 0 <= hour < hours:
                index.append(hour)
                tokens.append(count)
    if problems:
        raise InputError(path, problems[:10])
    series = np.bincount(np.asarray(index, dtype=int), weights=np.asarray(tokens, dtype=float), minlength=hours)
    return series[:hours], len(index)


__all__ = ["MAX_TOKENS_PER_REQUEST", "read_request_log"]

"""The column-by-column job-log reader equals the line-by-line one, and the level curve stays bounded.

The line-by-line reader (``_read_job_log_line_by_line``) is the reference: it is the reader the
tests of test_demand.py and test_faults.py were written against. Time-zone offsets are checked
against :mod:`zoneinfo` itself, one wall-clock time at a time.
"""

import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.domain import mix as dm
from costmodel.io import demand_files
from costmodel.io.demand_files import (
    JobLogError,
    _local_to_utc,
    _plain_seconds,
    _read_job_log_line_by_line,
    read_job_log,
)

ZONES = ["UTC", "Europe/Madrid", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]
# Lord Howe moves its clocks by 30 minutes; Kolkata never changes them
CHANGES = {  # wall-clock hours around 2026's changes, and 2028's leap day
    "Europe/Madrid": ["2026-03-29T01", "2026-03-29T02", "2026-03-29T03", "2026-10-25T02", "2026-10-25T03"],
    "America/New_York": ["2026-03-08T02", "2026-03-08T03", "2026-11-01T01", "2026-11-01T02"],
    "Australia/Lord_Howe": ["2026-04-05T01", "2026-04-05T02", "2026-10-04T02", "2026-10-04T03"],
}
TIMES = sorted(
    {h for hours in CHANGES.values() for h in hours}
    | {
        "2025-12-31T23",
        "2026-01-01T00",
        "2026-06-15T12",
        "2026-12-31T23",
        "2027-01-01T00",
        "2028-02-28T23",
        "2028-02-29T00",
        "2028-02-29T23",
        "2028-03-01T00",
    }
)

plain_time = st.builds(
    lambda hour, minute, second: f"{hour}:{minute:02d}:{second:02d}",
    st.sampled_from(TIMES),
    st.integers(0, 59),
    st.integers(0, 59),
)
odd_time = st.sampled_from(
    [
        "Unknown",
        "None",
        "",
        " 2026-01-01T00:00:00",
        "2026-01-01T00:00:00+02:00",
        "2026-01-01T00:00:00Z",
        "2026-01-01 00:00:00",
        "2026-01-01T00:00:00.5",
        "2026-02-29T00:00:00",
        "2026-01-01T24:00:00",
        "2026-01-01T00:00:60",
        "2026-1-01T00:00:00",
        "2026-13-01T00:00:00",
        "yesterday",
        "2019-06-01T00:00:00",
        "2031-06-01T00:00:00",
        "２026-01-01T00:00:00",
    ]
)
states = st.sampled_from(
    [
        "",
        "COMPLETED",
        "RUNNING",
        "PENDING",
        "CANCELLED by 123",
        "FAILED",
        "TIMEOUT",
        "OUT_OF_MEMORY",
        "NODE_FAIL",
        "PREEMPTED",
        "REQUEUED",
        "SUSPENDED",
        "pending",
        " RUNNING",
    ]
)
tres = st.sampled_from(
    [
        "gres/gpu=1",
        "billing=8,cpu=64,gres/gpu=8,mem=1T",
        "gres/gpu:h200=4",
        "cpu=4",
        "gres/gpu:a=2,gres/gpu:b=3",
        "gres/gpu=2,gres/gpu:h200=8",
        "gres/gpu=1000000",
        "",
    ]
)
bad_tres = st.sampled_from(["gres/gpu=x", "gres/gpu=1.5", "gres/gpu=1000001", "gres/gpu=-1"])
elapsed = st.sampled_from(["", "01:00:00", "1-02:03:04", "03:04", "25:00:00", "1-25:00:00", "xx"])


@st.composite
def job_logs(draw, bad: bool):
    """A sacct log of ordinary and odd rows (steps, every state, running jobs, Elapsed); with bad rows if asked."""
    header = ["JobID", "JobName", "Start", "End", "AllocTRES", "State", "Elapsed"]
    rows = []
    for number in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["plain"] * 6 + ["odd", "step", "blank"] + (["bad"] if bad else [])))
        ident = str(100 + number)
        start, end = draw(plain_time), draw(plain_time)
        start, end = min(start, end), max(start, end)
        fields = [ident, "job", start, end, draw(tres), draw(states), draw(elapsed)]
        if kind == "odd":
            fields[draw(st.sampled_from([2, 3]))] = draw(odd_time)
        elif kind == "step":
            fields[0] = f"{ident}.{draw(st.sampled_from(['batch', 'extern', '0']))}"
        elif kind == "blank":
            rows.append(draw(st.sampled_from(["", "   "])))
            continue
        elif kind == "bad":
            which = draw(st.sampled_from(["tres", "short", "repeat", "reversed"]))
            if which == "tres":
                fields[4] = draw(bad_tres)
            elif which == "short":
                fields = fields[:3]
            elif which == "repeat":
                fields[0] = "100"
            else:
                fields[2], fields[3] = end, start
        rows.append("|".join(fields))
    return "|".join(header) + "\n" + "\n".join(rows) + "\n"


def same_reading(path, year, zone, until=None):
    """Both readers' results, or both errors, are equal."""
    try:
        expected = _read_job_log_line_by_line(path, year, zone, until)
    except JobLogError as error:
        with pytest.raises(JobLogError) as caught:
            read_job_log.__wrapped__(path, year, zone, until)
        assert caught.value.problems == error.problems
        return None
    found = read_job_log.__wrapped__(path, year, zone, until)
    np.testing.assert_array_equal(found.demand, expected.demand)
    assert (found.jobs, found.running, found.until) == (expected.jobs, expected.running, expected.until)
    assert list(found.skipped.items()) == list(expected.skipped.items())
    return found


class TestColumnReaderEqualsLineReader:
    @settings(max_examples=150, deadline=None)
    @given(log=job_logs(bad=False), zone=st.sampled_from(ZONES), year=st.sampled_from([2026, 2028]))
    def test_generated_logs(self, tmp_path_factory, log, zone, year):
        path = tmp_path_factory.mktemp("log") / "sacct.txt"
        path.write_text(log)
        same_reading(path, year, zone)

    @settings(max_examples=150, deadline=None)
    @given(log=job_logs(bad=True), zone=st.sampled_from(ZONES))
    def test_generated_logs_with_bad_rows(self, tmp_path_factory, log, zone):
        path = tmp_path_factory.mktemp("log") / "sacct.txt"
        path.write_text(log)
        same_reading(path, 2026, zone, until=dt.datetime(2026, 7, 1))

    @settings(max_examples=100, deadline=None)
    @given(log=job_logs(bad=True), zone=st.sampled_from(ZONES))
    def test_generated_logs_read_in_blocks_of_three_lines(self, tmp_path_factory, log, zone):
        """Skipped rows, repeated JobIDs and the latest time are found across blocks."""
        from unittest import mock

        path = tmp_path_factory.mktemp("log") / "sacct.txt"
        path.write_text(log)
        with mock.patch.object(demand_files, "CHUNK_LINES", 3):
            same_reading(path, 2026, zone)

    def test_a_clean_log_is_read_by_column(self, tmp_path, monkeypatch):
        """The column reader takes a log of ordinary rows whole: the line reader is never called."""
        path = tmp_path / "sacct.txt"
        path.write_text(
            "JobID|Start|End|AllocTRES|State\n"
            "1|2026-03-29T01:30:00|2026-03-29T03:30:00|gres/gpu=4|COMPLETED\n"  # spring change
            "1.batch|2026-03-29T01:30:00|2026-03-29T03:30:00|gres/gpu=4|COMPLETED\n"
            "2|2026-10-25T02:30:00|2026-10-25T02:10:00|gres/gpu:h200=2|COMPLETED\n"  # autumn
            "3|2026-01-01T00:00:00|Unknown|gres/gpu=1|RUNNING\n"
            "4|Unknown|Unknown|gres/gpu=1|PENDING\n"
        )
        expected = _read_job_log_line_by_line(path, 2026, "Europe/Madrid")
        monkeypatch.setattr(demand_files, "_jobs_line_by_line", None)
        found = read_job_log.__wrapped__(path, 2026, "Europe/Madrid")
        np.testing.assert_array_equal(found.demand, expected.demand)
        assert (
            found.skipped
            == expected.skipped
            == {"job steps (their GPUs are the job's)": 1, "jobs that never started": 1}
        )
        # job 1: 01:30-03:30 on 29 March in Madrid is 00:30-01:30 UTC (02:00-03:00 is skipped), one hour;
        # job 2: 02:30 (CEST, 00:30 UTC) to 02:10 read in the repeated hour (CET, 01:10 UTC), 40 minutes;
        # job 3 runs from the year's start (23:00 UTC on 31 December) to the latest time, 01:10 UTC on
        # 25 October: 297 days, 2 hours and 10 minutes
        assert found.running == 1 and found.until == "2026-10-25T01:10:00+00:00"
        assert found.demand.sum() == pytest.approx(4 * 1.0 + 2 * 40 / 60 + 1 * (297 * 24 + 2 + 10 / 60), rel=1e-12)

    def test_times_years_away_keep_their_own_offset(self, tmp_path):
        """An End in June 2031 in Madrid is read at +02:00 (summer time), not at the profile year's offset."""
        path = tmp_path / "sacct.txt"
        path.write_text(
            "JobID|Start|End|AllocTRES|State\n"
            "1|2026-12-31T00:00:00|2031-06-01T12:00:00|gres/gpu=1|COMPLETED\n"
            "2|2019-06-01T12:00:00|Unknown|gres/gpu=1|RUNNING\n"
        )
        found = same_reading(path, 2026, "Europe/Madrid")
        assert found.until == "2031-06-01T10:00:00+00:00"

    def test_blank_lines_only(self, tmp_path):
        path = tmp_path / "sacct.txt"
        path.write_text("JobID|Start|End|AllocTRES\n\n\n")
        assert same_reading(path, 2026, "UTC").jobs == 0

    def test_the_shipped_log(self):
        for zone in ZONES:
            same_reading(costmodel.paths.DATA_DIR / "job_logs" / "synthetic-sacct-2026.txt", 2026, zone)


class TestClockArithmetic:
    @pytest.mark.parametrize("zone", ZONES)
    @pytest.mark.parametrize("fold", [0, 1])
    def test_wall_clock_to_utc_as_zoneinfo(self, zone, fold):
        """Every 10 minutes of the weeks around each change, against datetime.astimezone with the fold."""
        tz = ZoneInfo(zone)
        days = [dt.datetime(2026, m, d) for m, d in ((3, 7), (3, 28), (4, 4), (10, 3), (10, 24), (10, 31))]
        walls = [day + dt.timedelta(minutes=10 * i) for day in days for i in range(2 * 24 * 6)]
        local = np.array([int(w.replace(tzinfo=dt.UTC).timestamp()) for w in walls])
        span = (
            int(dt.datetime(2025, 1, 1, tzinfo=dt.UTC).timestamp()),
            int(dt.datetime(2028, 1, 1, tzinfo=dt.UTC).timestamp()),
        )
        expected = [int(w.replace(tzinfo=tz, fold=fold).timestamp()) for w in walls]
        assert _local_to_utc(local, tz, *span, fold=fold).tolist() == expected

    @settings(max_examples=300, deadline=None)
    @given(
        text=st.one_of(
            st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1)).map(
                lambda t: t.strftime("%Y-%m-%dT%H:%M:%S")
            ),
            st.text(alphabet="0123456789-T:+ Z.", min_size=17, max_size=21),
            st.from_regex(r"\A2[0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\Z"),
        )
    )
    def test_plain_times_read_as_fromisoformat_reads_them(self, text):
        """A text read as a plain time is the time fromisoformat reads; anything else is left to it."""
        seconds, plain = _plain_seconds(pd.Series([text], dtype="str"))
        try:
            m = dt.datetime.fromisoformat(text)
            slurm = f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}"
            canonical = text.isascii() and slurm == text
        except ValueError:
            canonical = False
        assert bool(plain[0]) == canonical
        if canonical:
            assert seconds[0] == int(m.replace(tzinfo=dt.UTC).timestamp())


class TestLevelCurve:
    def test_few_levels_keep_the_optimum(self):
        """With the curve cut to a few levels, its minimum is still the mix's (and the full curve's)."""
        s = costmodel.load_scenario("h200-24gpu-cluster")
        mix = dm.cheapest_mix(s)
        full_levels, full_cost = dm.cost_against_level(s, "reserved")
        levels, cost = dm.cost_against_level(s, "reserved", points=6)
        assert levels.size <= 6 < full_levels.size
        assert levels[np.argmin(cost)] == mix.gpus["reserved"] == full_levels[np.argmin(full_cost)]
        assert cost.min() == pytest.approx(mix.total, rel=1e-12)
        # every level kept costs what the full curve says it costs
        np.testing.assert_allclose(cost, full_cost[np.isin(full_levels, levels)], rtol=1e-12)

    def test_a_peak_of_a_million_gpus_gives_at_most_512_levels(self):
        """One hour at 10^6 GPUs over a steady 10: the curve is bounded and its minimum is the mix's."""
        s = costmodel.load_scenario("h200-24gpu-cluster")
        series = np.full(8760, 10.0)
        series[1000] = 1_000_000.0
        mix = dm.cheapest_mix(s, series)
        for kind in ("own", "reserved"):
            levels, cost = dm.cost_against_level(s, kind, series)
            assert levels.size <= dm.LEVEL_POINTS and np.isfinite(cost).any()
            assert cost.min() == pytest.approx(mix.total, rel=1e-12)
            held = mix.gpus.get(kind, 0)
            assert levels[np.argmin(cost)] == held


stamps = st.one_of(
    st.builds(
        lambda hour, minute, second: f"{hour}:{minute:02d}:{second:02d}",
        st.sampled_from(TIMES),
        st.integers(0, 59),
        st.integers(0, 59),
    ),
    st.sampled_from(
        [
            "2026-03-29T02:30:00+02:00",
            "2026-01-01T00:00:00Z",
            "2026-06-01 12:00:00",
            "2026-06-01T12:00:00.250",
            " 2026-06-01T12:00:00",
            "2026-02-29T00:00:00",
            "noon",
            "",
        ]
    ),
)
token_counts = st.one_of(
    st.integers(0, 5000).map(str),
    st.sampled_from(["007", " 12", "100000000", "1000000000", "100000001", "-1", "1.5", "", "+3"]),
)


@st.composite
def request_logs(draw):
    """A request log of ordinary rows, with odd timestamps and counts, blank lines and extra columns."""
    header = draw(
        st.sampled_from(
            [["timestamp", "input_tokens", "output_tokens"], ["model", "output_tokens", "timestamp", "input_tokens"]]
        )
    )
    lines = [",".join(header)]
    for _ in range(draw(st.integers(1, 20))):
        kind = draw(st.sampled_from(["row"] * 6 + ["blank", "extra"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", " "])))
            continue
        values = {
            "timestamp": draw(stamps),
            "input_tokens": draw(token_counts),
            "output_tokens": draw(token_counts),
            "model": "m",
        }
        lines.append(",".join(values[name] for name in header) + (",x" if kind == "extra" else ""))
    return "\n".join(lines) + draw(st.sampled_from(["\n", ""]))


class TestRequestLogColumns:
    @settings(max_examples=200, deadline=None)
    @given(log=request_logs(), zone=st.sampled_from(ZONES), year=st.sampled_from([2026, 2028]))
    def test_column_reader_equals_csv_reader(self, tmp_path_factory, log, zone, year):
        from costmodel.errors import InputError
        from costmodel.io.request_logs import _read_request_log_line_by_line, read_request_log

        path = tmp_path_factory.mktemp("log") / "requests.csv"
        path.write_text(log)
        try:
            expected = _read_request_log_line_by_line(path, year, zone)
        except InputError as error:
            with pytest.raises(InputError) as caught:
                read_request_log.__wrapped__(path, year, zone)
            assert caught.value.problems == error.problems
            return
        found = read_request_log.__wrapped__(path, year, zone)
        np.testing.assert_array_equal(found[0], expected[0])
        assert found[1] == expected[1]

    def test_a_clean_log_is_read_by_column(self, tmp_path, monkeypatch):
        """Plain rows are read as arrays: the csv reader is never called. 02:30 on 29 March is no Madrid time;
        read on the wall clock (as the csv reader reads it) it is hour 87 × 24 + 2 of the year (29 March is day 88);
        01:00+01:00 on 1 January is 01:00 in Madrid, hour 1."""
        from costmodel.io import request_logs

        path = tmp_path / "requests.csv"
        path.write_text(
            "timestamp,input_tokens,output_tokens\r\n2026-03-29T02:30:00,100,20\r\n"
            "2026-01-01T00:59:59,1,2\r\n2025-12-31T23:59:59,5,5\r\n2026-01-01T01:00:00+01:00,3,4\r\n"
        )
        expected = request_logs._read_request_log_line_by_line(path, 2026, "Europe/Madrid")
        monkeypatch.setattr(request_logs, "_read_request_log_line_by_line", None)
        series, count = request_logs.read_request_log.__wrapped__(path, 2026, "Europe/Madrid")
        np.testing.assert_array_equal(series, expected[0])
        assert count == 3 and series[87 * 24 + 2] == 120 and series[0] == 1 + 2 and series[1] == 3 + 4


@pytest.mark.parametrize("storage", ["python", "pyarrow"])
def test_column_readers_work_with_either_string_storage(tmp_path, storage):
    """pyarrow is an optional extra: with pandas's Python string storage the column readers read the same."""
    from costmodel.io.request_logs import _read_request_log_line_by_line, read_request_log

    if storage == "pyarrow":
        pytest.importorskip("pyarrow")
    requests = tmp_path / "requests.csv"
    requests.write_text("timestamp,input_tokens,output_tokens\n2026-03-29T02:30:00,100,20\n2026-11-01T12:00:00Z,7,8\n")
    with pd.option_context("mode.string_storage", storage):
        for zone in ("UTC", "Europe/Madrid"):
            same_reading(costmodel.paths.DATA_DIR / "job_logs" / "synthetic-sacct-2026.txt", 2026, zone)
            found, expected = (
                read_request_log.__wrapped__(requests, 2026, zone),
                _read_request_log_line_by_line(requests, 2026, zone),
            )
            np.testing.assert_array_equal(found[0], expected[0])
            assert found[1] == expected[1] == 2


def test_the_level_chart_of_a_million_gpu_peak_is_bounded():
    """The mix chart's cost-against-level curve holds at most 512 points a kind, its diamond at the mix's level."""
    from costmodel.presentation import charts

    s = costmodel.load_scenario("h200-24gpu-cluster")
    series = np.full(8760, 10.0)
    series[1000] = 1_000_000.0
    spec = charts.cost_against_level_chart(s, series).to_dict()
    data = [row for rows in spec["datasets"].values() for row in rows]
    curve = [row for row in data if "label" not in row]
    marks = [row for row in data if "label" in row]
    assert 0 < len(curve) <= 2 * dm.LEVEL_POINTS
    mix = dm.cheapest_mix(s, series)
    assert {m["kind"]: m["level"] for m in marks} == {
        "Owned": mix.gpus.get("own", 0),
        "Reserved": mix.gpus.get("reserved", 0),
    }

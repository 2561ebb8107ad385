"""Every fault kind of shared/reference/faults.md (F1–F21, F28–F33) gives its expected outcome.

F22–F23 are tested in test_api_billing.py, F24–F27 in test_one_answer.py.

Each test names its fault. F11's, F13's and F15's scenarios use ``utilisation_ceiling``, the
new name of ``max_utilisation`` (the old key gives an error that names the new one).
"""

import datetime as dt
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from conftest import patched, patched_data, write_scenario

import costmodel
from costmodel.cli import main
from costmodel.domain import uncertainty
from costmodel.domain.compare import compare
from costmodel.io.demand_files import read_hourly_file, read_job_log
from costmodel.paths import DATA_DIR, SCENARIO_DIR
from costmodel.presentation.text import headline
from costmodel.report import trusted_scripts, unsafe_parts

R1, R2, R4 = "llama70b-vs-api", "h200-24gpu-cluster", "llama31-405b-training"
PAYLOADS = [
    "<img src=x onerror=\"document.body.style.background='red'\">",
    "<script>document.title='pwned'</script>",
    "<iframe srcdoc='<p>x</p>'></iframe>",
    "<svg onload=alert(1)>",
    '<meta http-equiv="refresh" content="0;url=https://example.com">',
    '<img srcset="https://example.com/a.png">',
    '<img src="https:\\\\example.com/a.png">',
    "[a link](https://example.com)",
]


def run(args, capsys):
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def problem_of(tmp_path, text_or_data, capsys):
    """Exit code and the error line of ``compare`` on a scenario file."""
    path = write_scenario(tmp_path, text_or_data)
    code, _, err = run(["compare", str(path)], capsys)
    return code, err


# --- hostile or odd text ----------------------------------------------------------------------------------


class TestF1HostileText:
    @pytest.mark.parametrize(
        "html",
        [
            '<img src=x onerror="alert(1)">',
            '<svg onload="alert(1)"></svg>',
            "<iframe srcdoc='x'></iframe>",
            '<meta http-equiv="refresh" content="0;url=https://example.com">',
            '<img srcset="https://example.com/a.png 1x, data:image/png;base64,AA 2x">',
            '<img src="https:\\\\example.com/a.png">',
            "<object data='x.swf'></object>",
            "<embed src='x'>",
            "<style>@import 'https://example.com/a.css';</style>",
            '<form action="https://example.com"></form>',
            '<button formaction="https://example.com">x</button>',
            '<svg><image xlink:href="https://e.com/a.png"/></svg>',
        ],
    )
    def test_the_offline_check_finds_every_kind(self, html):
        # F1: the check parses the page; srcset, meta refresh and backslash URLs no longer get past it
        assert unsafe_parts(html)

    @pytest.mark.parametrize(
        "html",
        [
            '<a href="https://example.com">a link</a>',
            '<img src="data:image/png;base64,AA">',
            '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
            "<p>https://example.com</p>",
        ],
    )
    def test_inert_parts_pass(self, html):
        assert unsafe_parts(html) == []

    def test_headline_shows_the_text_literally(self):
        s = patched(R1, {"title": " ".join(PAYLOADS[:3]), "description": " ".join(PAYLOADS)})
        text = headline(s, compare(s))
        # every <, >, [ and ] of scenario text is backslash-escaped, so Markdown shows it as text
        assert not re.search(r"(?<!\\)<(img|script|iframe|svg|meta)", text)
        assert "\\[a link\\]\\(https" in text


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip, self.attributes = [], False, []

    def handle_starttag(self, tag, attrs):
        self.skip = tag in ("style", "script")
        self.attributes += [name.lower() for name, _ in attrs]

    def handle_endtag(self, tag):
        self.skip = False

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


@pytest.mark.slow
def test_f1_report_with_hostile_text_is_inert_and_literal(tmp_path, chromium):
    """F1 (faults.md): report with hostile text is inert and literal."""
    # F1: title, description and sources hold the payloads; the report shows them as text
    data = patched_data(
        R1,
        {
            "title": "Hostile " + PAYLOADS[0],
            "description": " ".join(PAYLOADS),
            "options.own.power.source": PAYLOADS[5] + " " + PAYLOADS[6],
            "options.rent.staffing.source": PAYLOADS[4],
        },
        drop=("uncertainty",),
    )
    path = write_scenario(tmp_path, data, "hostile.yaml")
    from costmodel.report import render_report

    report = render_report(path, tmp_path / "out")
    html = report.html.read_text()
    assert unsafe_parts(html, trusted_scripts()) == []  # only the embedded Vega bundle's exact bytes are trusted
    assert not re.search(r"<(iframe|object|embed)\b", html)
    # the one http-equiv is the page's own Content-Security-Policy (F31), never the payload's refresh
    assert re.findall(r"<meta[^>]*http-equiv=\"?([\w-]+)", html, re.I) == ["Content-Security-Policy"]
    parser = _Text()
    parser.feed(html)
    assert not [name for name in parser.attributes if name.startswith("on")]  # no event handler at all
    shown = " ".join(" ".join(parser.parts).split())
    for payload in PAYLOADS:
        assert payload in shown, payload
    if chromium is not None:
        errors = chromium(report.html)
        assert errors == [], errors


def test_f2_dollars_are_not_mathematics():
    """F2 (faults.md): dollars are not mathematics."""
    # F2: "$3.5 ... $3,500" in a description stays two dollar amounts: every $ is escaped
    s = patched(R1, {"description": "about $3.5 per GPU-hour ... about $3,500 a month"})
    text = headline(s, compare(s))
    assert "\\$3\\.5" in text and "\\$3\\,500" in text and not re.search(r"(?<!\\)\$", text)


def test_f3_a_blank_title_is_refused(tmp_path, capsys):
    """F3 (faults.md): a blank title is refused."""
    code, err = problem_of(tmp_path, patched_data(R2, {"title": "   "}), capsys)
    assert code == 2 and "title" in err and "only spaces" in err


# --- lax parsing ------------------------------------------------------------------------------------------


def replaced(name, old, new):
    text = (SCENARIO_DIR / f"{name}.yaml").read_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    "name, old, new, field",
    [
        (R2, "electricity_price_per_kwh: 0.0707", "electricity_price_per_kwh: yes", "electricity_price_per_kwh"),
        (R2, "pue: 1.56", "pue: on", "options.own.power.pue"),
        (R2, "idle_power_share: 0.3", "idle_power_share: no", "options.own.power.idle_power_share"),
        (R1, "cached_input_share: 0.0", "cached_input_share: yes", "options.api.cached_input_share"),
    ],
)
def test_f4_yaml_words_are_not_numbers(tmp_path, capsys, name, old, new, field):
    """F4 (faults.md): yaml words are not numbers."""
    code, err = problem_of(tmp_path, replaced(name, old, new), capsys)
    assert code == 2 and field in err and "must be a number" in err and "'" in err


def test_f5_base_60_and_other_yaml_1_1_numbers(tmp_path, capsys):
    """F5 (faults.md): base 60 and other yaml 1 1 numbers."""
    # "2:1" in the field documented as a ratio reads as 2, never 121
    ratio = replaced(R1, "input_tokens_per_output_token: 2 ", "input_tokens_per_output_token: 2:1 ")
    path = write_scenario(tmp_path, ratio)
    assert costmodel.resolve(costmodel.load_scenario(path)).workload.input_tokens_per_output_token == 2.0
    # elsewhere "1:30" is text, never 90
    code, err = problem_of(
        tmp_path, replaced(R4, "checkpoint_write_minutes: 0.5", "checkpoint_write_minutes: 1:30"), capsys
    )
    assert code == 2 and "checkpoint_write_minutes" in err and "'1:30'" in err
    for literal in ("0x10", "0o17", "1_000"):
        code, err = problem_of(tmp_path, replaced(R2, "pue: 1.56", f"pue: {literal}"), capsys)
        assert code == 2 and "pue" in err and literal in err
    code, err = problem_of(tmp_path, replaced(R2, "pue: 1.56", "pue: .inf"), capsys)
    assert code == 2 and "pue" in err


@pytest.mark.parametrize(
    "text",
    [
        "? [a, b]\n: 1\n",
        "{a: 1}: x\n",
        "? {a: 1}\n: 2\n",
        "x: " + "[" * 2000 + "]" * 2000 + "\n",
        "x:\n" + "".join("  " * i + "- \n" for i in range(1, 60)),
    ],
)
def test_f6_keys_that_are_not_text_and_deep_nesting(tmp_path, capsys, text):
    """F6 (faults.md): keys that are not text and deep nesting."""
    code, err = problem_of(tmp_path, text + (SCENARIO_DIR / f"{R2}.yaml").read_text(), capsys)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_nested_aliases_that_would_expand_to_millions_are_refused_at_once(tmp_path, capsys):
    # "billion laughs": 9 levels of 9 aliases each, 9**9 (387 M) numbers from a few hundred bytes; each
    # node is measured once (this took minutes per parse when aliases were walked as often as they appear)
    import time

    levels = ["laugh0: &laugh0 [1, 2, 3, 4, 5, 6, 7, 8, 9]"] + [
        f"laugh{k}: &laugh{k} [" + ", ".join([f"*laugh{k - 1}"] * 9) + "]" for k in range(1, 9)
    ]
    start = time.perf_counter()
    code, err = problem_of(tmp_path, "\n".join(levels) + "\n" + (SCENARIO_DIR / f"{R2}.yaml").read_text(), capsys)
    assert time.perf_counter() - start < 30
    # laugh8 alone expands to 9**9 numbers in 9**8 + ... + 1 lists
    counted = int(re.search(r"got '([0-9,]+) values'", err).group(1).replace(",", ""))
    assert code == 2 and counted > 9**9 + sum(9**k for k in range(9))
    assert "more than 1,000,000 values once its aliases (*name) are expanded" in err
    # a few aliases are fine: the same mapping in two places
    from costmodel.io.yaml_files import parse_yaml

    assert parse_yaml("a: &x {b: 1}\nc: [*x, *x]\n", tmp_path / "ok.yaml") == {"a": {"b": 1}, "c": [{"b": 1}] * 2}


def test_f7_unknown_kinds_keys_and_names_say_did_you_mean(tmp_path, capsys):
    """F7 (faults.md): unknown kinds keys and names say did you mean."""
    code, err = problem_of(tmp_path, patched_data(R2, {"workload.kind": "gpu_hour"}), capsys)
    assert code == 2
    assert "workload.kind: 'gpu_hour' is not one of gpu_hours, tokens, training (did you mean gpu_hours?)" in err
    data = patched_data(R1)
    data["workload"]["tokens_per_dya"] = data["workload"].pop("tokens_per_day")
    code, err = problem_of(tmp_path, data, capsys)
    assert "workload.tokens_per_dya: not a field here (did you mean tokens_per_day?)" in err
    code, _, err = run(["compare", "llama70b-vs-apy"], capsys)
    assert code == 2 and "did you mean llama70b-vs-api?" in err and "h200-24gpu-cluster" in err


def test_f8_byte_order_marks_are_ignored(tmp_path):
    """F8 (faults.md): byte order marks are ignored."""
    log = tmp_path / "sacct.txt"
    log.write_text(
        "\ufeffJobID|Start|End|AllocTRES\n1|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=4\n", encoding="utf-8"
    )
    assert read_job_log(log, 2026).demand[:2].tolist() == [4.0, 4.0]
    hourly = tmp_path / "hours.csv"
    hourly.write_text("\ufeff" + "\n".join(["3"] * 8760), encoding="utf-8")
    assert read_hourly_file(hourly).sum() == 3 * 8760


# --- inputs accepted that cannot be right ---------------------------------------------------------------


def test_f9_every_price_row_is_held_to_the_same_rules(tmp_path):
    """F9 (faults.md): every price row is held to the same rules."""
    import shutil

    for name in ("gpus.csv", "servers.csv", "cloud_prices.csv", "api_prices.csv", "models.csv", "throughput.csv"):
        shutil.copy(DATA_DIR / name, tmp_path / name)
    prices = tmp_path / "api_prices.csv"
    original = prices.read_text()
    prices.write_text(original + "free-api,Nobody,Free,0,,0,USD,U,2026,test,\n")
    with pytest.raises(costmodel.CatalogError) as caught:
        costmodel.load_catalog(tmp_path)
    line = len(original.splitlines()) + 1
    assert {p[0] for p in caught.value.problems} == {
        f"line {line}, column input_per_million",
        f"line {line}, column output_per_million",
    }
    prices.write_text(original + "dear-cache,Nobody,Cache,1,2,3,USD,U,2026,test,\n")
    with pytest.raises(costmodel.CatalogError, match="cached_input_per_million: above input_per_million"):
        costmodel.load_catalog(tmp_path)


@pytest.mark.parametrize(
    "changes", [{"finance.horizon_months": 2}, {"finance.lead_time_months": 120, "finance.horizon_months": 60}]
)
def test_f10_lead_time_at_or_past_the_horizon(tmp_path, capsys, changes):
    """F10 (faults.md): lead time at or past the horizon."""
    code, err = problem_of(tmp_path, patched_data(R2, changes), capsys)
    assert code == 2 and "finance.lead_time_months" in err and "horizon_months" in err


def test_f11_fewer_rented_gpus_than_a_replica(tmp_path, capsys):
    """F11 (faults.md): fewer rented gpus than a replica."""
    code, err = problem_of(tmp_path, patched_data(R1, {"options.rent.gpu_count": 1}), capsys)
    assert code == 2 and "options.rent.gpu_count" in err and "one replica of the served model takes 2 GPUs" in err


def test_f12_tornado_ranges_stay_inside_the_inputs_bounds(tmp_path, capsys):
    """F12 (faults.md): tornado ranges stay inside the inputs bounds."""
    code, err = problem_of(
        tmp_path, patched_data(R2, {"uncertainty.tornado": {"options.own.power.pue": {"low": -5, "high": 0.5}}}), capsys
    )
    assert code == 2 and "uncertainty.tornado.options.own.power.pue" in err and "allowed range [1, 5]" in err


def test_f13_an_uncertain_utilisation_ceiling_works_vectorised():
    """F13 (faults.md): an uncertain utilisation ceiling works vectorised."""
    data = patched_data(R2, {"uncertainty.samples": 5000})
    data["uncertainty"]["distributions"]["workload.utilisation_ceiling"] = {
        "distribution": "uniform",
        "low": 0.6,
        "high": 0.95,
    }
    s = costmodel.Scenario.model_validate(data)
    result = uncertainty.monte_carlo(s)
    assert result.costs["own"].shape == (5000,) and np.all(np.isfinite(result.metric))
    bars = {b.path: b for b in uncertainty.tornado(s)}
    assert "workload.utilisation_ceiling" in bars
    assert uncertainty.sobol_indices(s).defined
    # an input that sets a whole count cannot vary across samples: refused up front
    data["uncertainty"]["distributions"]["options.own.server_count"] = {"distribution": "uniform", "low": 2, "high": 4}
    with pytest.raises(Exception, match="cannot vary across samples"):
        costmodel.Scenario.model_validate(data)


def test_f14_zero_volumes_print_words_not_blanks(tmp_path, capsys):
    """F14 (faults.md): zero volumes print words not blanks."""
    path = write_scenario(tmp_path, patched_data(R2, {"workload.gpu_hours_per_month": 0}, drop=("uncertainty",)))
    code, out, _ = run(["compare", str(path)], capsys)
    assert code == 0 and "steady: nothing" in out and "no capacity: the profile holds no demand" in out
    assert "  GPUs" not in out
    path = write_scenario(tmp_path, patched_data(R1, {"workload.tokens_per_day": -0.0}), "zero.yaml")
    for args in (["compare", str(path)], ["compare", str(path), "--json"]):
        code, out, _ = run(args, capsys)
        assert code == 0 and not re.search(r"(?<![\w.])-0(\.0+)?(?![\d.])", out)


def test_f15_an_exploding_gpu_count_names_its_inputs(tmp_path, capsys):
    """F15 (faults.md): an exploding gpu count names its inputs."""
    code, err = problem_of(
        tmp_path, patched_data(R2, {"workload.utilisation_ceiling": 1.0e-7}, drop=("uncertainty", "demand")), capsys
    )
    assert code == 2 and "workload.utilisation_ceiling (1e-07)" in err and "--volume-max" in err


# --- job logs ----------------------------------------------------------------------------------------------


def test_f16_ordinary_sacct_states(tmp_path):
    """F16 (faults.md): ordinary sacct states."""
    log = tmp_path / "sacct.txt"
    log.write_text(
        "JobID|State|Start|End|AllocTRES\n"
        "2001|COMPLETED|2026-03-02T08:00:00|2026-03-02T10:00:00|gres/gpu=2\n"
        "2002|CANCELLED by 1234|None|2026-03-02T09:00:00|\n"
        "2003|PENDING|Unknown|Unknown|gres/gpu=8\n"
        "2004|RUNNING|2026-03-02T09:00:00|Unknown|gres/gpu=4\n"
    )
    read = read_job_log(log, 2026)
    # 2 GPUs x 2 h, and the running job's 4 GPUs from 09:00 to the log's latest time (10:00): 1 h
    assert read.demand.sum() == pytest.approx(2 * 2 + 4 * 1)
    assert read.skipped == {"jobs that never started": 2} and read.running == 1
    until = read_job_log(log, 2026, until=dt.datetime(2026, 3, 2, 12))
    assert until.demand.sum() == pytest.approx(2 * 2 + 4 * 3)


def test_f17_local_times_across_daylight_saving_changes(tmp_path):
    """F17 (faults.md): local times across daylight saving changes."""
    log = tmp_path / "sacct.txt"
    log.write_text(
        "JobID|Start|End|AllocTRES\n"
        "3001|2026-03-29T01:30:00|2026-03-29T03:30:00|gres/gpu=8\n"  # spring: 1 h, not 2
        "3002|2026-10-25T02:40:00|2026-10-25T02:10:00|gres/gpu=1\n"  # autumn: End in the second 02:xx
        "3003|2026-06-01T10:00:00+02:00|2026-06-01T12:00:00+02:00|gres/gpu=1\n"
    )  # offsets accepted
    madrid = read_job_log(log, 2026, "Europe/Madrid")
    assert madrid.demand.sum() == pytest.approx(8 * 1 + 1 * 0.5 + 1 * 2)
    assert len(madrid.demand) == 8760
    leap = tmp_path / "leap.txt"
    leap.write_text("JobID|Start|End|AllocTRES\n1|2028-12-31T23:00:00|2029-01-01T00:00:00|gres/gpu=1\n")
    assert len(read_job_log(leap, 2028).demand) == 8784 and read_job_log(leap, 2028).demand[-1] == 1.0


def test_f16_f17_large_logs_stay_fast(tmp_path):
    """F16, F17 (faults.md): large logs stay fast."""
    # a 1,000,000-GPU job over a week: hours are computed from the job's boundaries, not per GPU
    log = tmp_path / "big.txt"
    log.write_text("JobID|Start|End|AllocTRES\n1|2026-05-04T00:00:00|2026-05-11T00:00:00|gres/gpu=1000000\n")
    import time

    start = time.perf_counter()
    demand = read_job_log(log, 2026).demand
    assert time.perf_counter() - start < 5  # generous; typically a few milliseconds
    assert demand.sum() == pytest.approx(1e6 * 7 * 24)


# --- reports and notebooks ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_f18_notebook_parameters_are_validated(tmp_path):
    """F18 (faults.md): notebook parameters are validated."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from costmodel.paths import NOTEBOOK_DIR
    from costmodel.presentation.parameters import ParameterError
    from costmodel.report import render_report

    with pytest.raises(PapermillExecutionError) as caught:
        papermill.execute_notebook(
            str(NOTEBOOK_DIR / "break_even.ipynb"),
            str(tmp_path / "out.ipynb"),
            parameters={"volume_max": "abc", "scenaro": "x", "points": 2.5},
            progress_bar=False,
            log_output=False,
        )
    message = caught.value.evalue
    assert caught.value.ename == "ParameterError"
    assert "'volume_max' got 'abc'" in message and "'scenaro' is not one this notebook takes" in message
    assert "did you mean scenario?" in message and "'points' got 2.5" in message
    # the runner refuses an unknown parameter before any kernel starts
    with pytest.raises(ParameterError, match="did you mean volume_max"):
        render_report(R1, tmp_path / "reports", parameters={"volume_mx": 1e9})
    # the scenario is the argument's: one in parameters would be rendered under the argument's name
    with pytest.raises(ParameterError, match="'scenario' is given by render_report's scenario argument"):
        render_report(R1, tmp_path / "reports", parameters={"scenario": "h200-24gpu-cluster"})
    assert not (tmp_path / "reports").exists()
    # a value the notebook's check refuses is bad input too (exit 2), with nothing of the run left
    with pytest.raises(ParameterError, match="'renderer' got 'nonsense'"):
        render_report(R1, tmp_path / "reports", parameters={"renderer": "nonsense"})
    assert not (tmp_path / "reports").exists()
    for timeout in (0, -5, float("nan"), True, "600", 1e300):
        with pytest.raises(ValueError, match="is not a number of seconds above 0"):
            render_report(R1, tmp_path / "reports", timeout=timeout)


@pytest.mark.slow
def test_an_interrupted_report_leaves_no_folder_it_made(tmp_path, monkeypatch):
    import papermill

    from costmodel.report import render_report

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(papermill, "execute_notebook", interrupted)
    with pytest.raises(KeyboardInterrupt):
        render_report(R1, tmp_path / "new" / "reports")
    assert not (tmp_path / "new").exists()


@pytest.mark.slow
def test_f19_two_reports_into_one_folder_at_once(tmp_path):
    """F19 (faults.md): two reports into one folder at once."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "costmodel", "report", "h100-10k-cluster", "--out", str(tmp_path)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], results
    html = (tmp_path / "h100-10k-cluster" / "report.html").read_text()
    assert html.rstrip().endswith("</html>")
    assert len(re.findall(r'<img alt="[^"]*" src="data:image/svg\+xml;base64,', html)) == 7  # with the energy chart
    notebook = json.loads((tmp_path / "h100-10k-cluster" / "report.ipynb").read_text())
    assert notebook["metadata"]["papermill"]["parameters"]["scenario"].endswith("h100-10k-cluster.yaml")
    assert not list((tmp_path / "h100-10k-cluster").glob(".costmodel-*"))


def test_f20_bad_input_through_report_exits_2(tmp_path, capsys):
    """F20 (faults.md): bad input through report exits 2."""
    path = write_scenario(tmp_path, patched_data(R2, {"options.own.power.pue": "high"}))
    code, _, err = run(["report", str(path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "options.own.power.pue" in err and "must be a number" in err
    # found by the notebook's check in the kernel (the runner reads only the title and kind): the
    # folders the run made are gone again, with its scratch folder and executed notebook
    assert not (tmp_path / "out").exists()
    assert "notebook failed" not in err and "Traceback" not in err


def test_f21_the_tornado_axis_names_the_tracked_option():
    """F21 (faults.md): the tornado axis names the tracked option."""
    # F21: R1 tracks the API; see also tests/test_charts.py
    from costmodel.presentation import charts

    r = costmodel.resolve(costmodel.load_scenario(R1))
    axis = charts.tornado_chart(r, uncertainty.tornado(r), "api").to_dict()
    assert "Hosted API minus the cheapest other" in json.dumps(axis) and "Own-minus" not in json.dumps(axis)


# --- F28, F29, F33 and clear refusals: numbers and files, wherever they enter ----------------------------


def test_f28_yaml_numbers_are_read_as_yaml_1_2_says(tmp_path, capsys):
    """F28 (faults.md): the YAML 1.1 constructors behind the 1.2 resolver read 010000000 as octal (2,097,152)."""
    text = replaced(R1, "tokens_per_day: 10000000 ", "tokens_per_day: 010000000 ")
    scenario = costmodel.load_scenario(write_scenario(tmp_path, text))
    assert scenario.workload.tokens_per_day == 10_000_000  # base 10 whatever the leading zero
    text = replaced(R2, "server_count: 3", "server_count: 08")
    assert costmodel.load_scenario(write_scenario(tmp_path, text)).options.own.server_count == 8  # not an int() error
    refused = [
        (
            R1,
            "input_tokens_per_output_token: 2 ",
            "input_tokens_per_output_token: !!int 2:1 ",
            "workload.input_tokens_per_output_token",
        ),  # YAML 1.1 base 60: 121
        (
            R4,
            "checkpoint_write_minutes: 0.5",
            "checkpoint_write_minutes: !!float 1:30",
            "checkpoint_write_minutes",
        ),  # 90
        (R2, "server_count: 3", "server_count: !!int 0x3", "options.own.server_count"),
        (R2, "pue: 1.56", "pue: !!float 1_000", "options.own.power.pue"),
        (R2, "pue: 1.56", "pue: !!binary MS41Ng==", "options.own.power.pue"),
    ]
    for name, old, new, field in refused:
        code, err = problem_of(tmp_path, replaced(name, old, new), capsys)
        assert code == 2, new
        assert field in err and new.split(": ", 1)[1].strip() in err and "Traceback" not in err, err


def _offer_row(**changes):
    row = dict(
        offer="acme-h100",
        provider="Acme",
        gpu="H100-SXM-80GB",
        pricing="on_demand",
        price_per_gpu_hour=2.1,
        currency="USD",
        quality="P",
        as_of="2026-11",
        source="Acme quote 1234",
    )
    return {**row, **changes}


@pytest.mark.parametrize("price", [True, "2.10"])
def test_f29_inline_offers_take_numbers_as_the_scenario_does(tmp_path, capsys, price):
    """F29 (faults.md): an inline offer's price_per_gpu_hour: true was priced at 1.0."""
    data = patched_data(
        R1, {"offers.cloud_offers": [_offer_row(price_per_gpu_hour=price)], "options.rent.offer": "acme-h100"}
    )
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and "offers.cloud_offers.0.price_per_gpu_hour: must be a number" in err
    good = patched_data(R1, {"offers.cloud_offers": [_offer_row()], "options.rent.offer": "acme-h100"})
    rent = costmodel.resolve(costmodel.load_scenario(write_scenario(tmp_path, good))).options["rent"]
    assert rent.price_per_gpu_hour == 2.1


def test_f29_a_job_log_until_is_a_date_never_unix_seconds(tmp_path, capsys):
    """F29: demand.until: 20260621 was read as Unix seconds (1970-08-23)."""
    for number in (20260621, 1.75e9):
        code, err = problem_of(tmp_path, patched_data("h200-job-log", {"demand.until": number}), capsys)
        assert code == 2 and "demand.until" in err and "not read as Unix time" in err
    for text, expected in (
        ("2026-06-21", dt.datetime(2026, 6, 21)),
        ("2026-06-21T12:30", dt.datetime(2026, 6, 21, 12, 30)),
    ):
        path = write_scenario(tmp_path, patched_data("h200-job-log", {"demand.until": text}))
        assert costmodel.load_scenario(path).demand.until == expected


def _sweep(tmp_path, capsys, text):
    path = tmp_path / "sweep.yaml"
    path.write_text(text)
    code, _, err = run(["batch", "--sweep", str(path), "--out", str(tmp_path / "out")], capsys)
    return code, err


@pytest.mark.parametrize(
    "body, field, rule",
    [
        ("grid:\n  options.own.server_count: [2, 2.5, 3]\n", "grid.options.own.server_count", "a whole number"),
        (
            "latin_hypercube: {samples: 8, seed: 1, ranges: {options.own.server_count: {low: 2, high: 4}}}\n",
            "latin_hypercube.options.own.server_count",
            "a whole number",
        ),
        ("points:\n  options.own.power.pue: [1.2, true]\n", "points.options.own.power.pue.1", "must be a number"),
        ("points:\n  options.own.power.pue: [1.2, '1.3']\n", "points.options.own.power.pue.1", "must be a number"),
        (
            "grid:\n  options.own.power.pue: {low: 1.1, high: 1.5, points: 2.5}\n",
            "grid.options.own.power.pue.points",
            "a whole number",
        ),
        (
            "grid:\n  options.own.power.pue: {low: 1.1, high: true, points: 3}\n",
            "grid.options.own.power.pue.high",
            "must be a number",
        ),
        (
            "grid:\n  options.own.power.pue: {low: 1.1, high: 1.5, points: 3, scale: lgo}\n",
            "grid.options.own.power.pue.scale",
            "linear or log",
        ),
        (
            "grid:\n  options.own.power.pue: {low: 1.1, high: 1.5, points: 3, step: 1}\n",
            "grid.options.own.power.pue.step",
            "not a field",
        ),
    ],
)
def test_f29_sweep_values_and_grid_specs_follow_the_number_rule(tmp_path, capsys, body, field, rule):
    """F29: a sweep over server_count: [2, 2.5, 3] priced 2.5 servers; booleans and text were read as numbers."""
    code, err = _sweep(tmp_path, capsys, f"base: {R2}\n" + body)
    assert code == 2 and f"{field}: {rule}" in err, err
    assert not (tmp_path / "out" / "portfolio.csv").exists()


def test_f29_cross_field_rules_hold_for_overrides_sweeps_and_samples(tmp_path, capsys):
    """F29: an override or a sweep could put the cached price (here 9 USD/M) above the input price (Opus 4.5: 5)."""
    cached = "options.api.cached_input_price_per_million"
    data = patched_data(R1, {"overrides": {"values": {cached: 9.0}, "source": "what-if"}})
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and f"overrides.values.{cached}" in err and "above input_per_million (5)" in err
    # both figures replaced: the rule is judged on the replaced pair (4 <= 6 holds)
    both = patched_data(
        R1,
        {"overrides": {"values": {cached: 4.0, "options.api.input_price_per_million": 6.0}, "source": "what-if"}},
        drop=("uncertainty",),
    )
    assert costmodel.load_scenario(write_scenario(tmp_path, both)).overrides.values[cached] == 4.0
    # R1's own uncertainty draws the input price from 2 USD/M: below the cached price of 4 in some samples
    code, err = problem_of(tmp_path, patched_data(R1, {"overrides": both["overrides"]}), capsys)
    assert code == 2 and "uncertainty.distributions.options.api.input_price_per_million" in err
    assert f"breaks the rule on {cached} (4.0)" in err
    code, err = _sweep(tmp_path, capsys, f"base: {R1}\ngrid:\n  {cached}: [0.5, 6]\n")
    assert code == 2 and f"grid.{cached}" in err and "above input_per_million (5)" in err
    # a grid's box: cached up to 2 with input down to 1 breaks the rule at the corner (2, 1)
    code, err = _sweep(
        tmp_path, capsys, f"base: {R1}\ngrid:\n  {cached}: [0.5, 2]\n  options.api.input_price_per_million: [1, 3]\n"
    )
    assert code == 2 and "above input_per_million (1)" in err
    # listed points are judged row by row: (0.5, 1) and (2, 3) both hold
    code, err = _sweep(
        tmp_path, capsys, f"base: {R1}\npoints:\n  {cached}: [0.5, 2]\n  options.api.input_price_per_million: [1, 3]\n"
    )
    assert code == 0, err
    # a distribution drawn beside the input price's reaches above it in some samples
    sampled = patched_data(R1)
    sampled["uncertainty"]["distributions"][cached] = {"distribution": "uniform", "low": 0.4, "high": 2.5}
    code, err = problem_of(tmp_path, sampled, capsys)
    assert code == 2 and f"uncertainty.distributions.{cached}" in err and "above input_per_million (2)" in err


def _catalog_folder(tmp_path, name, text):
    folder = tmp_path / "catalog"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_f29_catalog_cells_take_only_base_10_numbers(tmp_path):
    """F29: a catalog CSV cell 1_000 (or inf, 0x10, a padded number) was read as a number by Python's float()."""
    header = (DATA_DIR / "cloud_prices.csv").read_text().splitlines()[0]
    for cell in ("2_5", "0x10", "inf", " 2.5", "٢"):
        row = f"acme,Acme,H100-SXM-80GB,on_demand,{cell},USD,P,2026-11,quote,"
        folder = _catalog_folder(tmp_path, "cloud_prices.csv", f"{header}\n{row}\n")
        with pytest.raises(costmodel.CatalogError) as caught:
            costmodel.load_catalog_overrides(folder)
        assert caught.value.problems[0][0] == "line 2, column price_per_gpu_hour", cell
        assert "not a base-10 number" in caught.value.problems[0][2]


def test_f33_every_catalog_file_can_be_given_with_catalog(tmp_path):
    """F33 (faults.md): --catalog ignored api_price_windows.csv and tax_depreciation.csv."""
    windows = (DATA_DIR / "api_price_windows.csv").read_text(encoding="utf-8")
    cheaper = windows.replace("off-peak,0-6,0,24,UTC,0.5,", "off-peak,0-6,0,24,UTC,0.25,")
    assert cheaper != windows
    folder = _catalog_folder(tmp_path, "api_price_windows.csv", "\ufeff" + cheaper)  # Excel's CSV UTF-8: a BOM
    catalog = costmodel.load_catalog_overrides(folder)  # a folder with only windows is a catalog folder
    assert catalog.api_price_windows["deepseek-flash-off-peak"].price_multiplier == 0.25
    from costmodel.domain.costs import monthly_cost

    def deepseek(c):
        r = costmodel.resolve(costmodel.load_scenario("api-offers", c))
        return float(monthly_cost(r, "api:deepseek-flash", r.volume))

    assert deepseek(catalog) < deepseek(None)
    # a tax schedule from the folder replaces the bundled one: straight 50 % / 50 %
    header = (DATA_DIR / "tax_depreciation.csv").read_text().splitlines()[0]
    folder = _catalog_folder(
        tmp_path, "tax_depreciation.csv", f"{header}\nmacrs_5,1,50,U,2026,test,\nmacrs_5,2,50,U,2026,test,\n"
    )
    assert costmodel.load_catalog_overrides(folder).depreciation_table("macrs_5") == (0.5, 0.5)
    (folder / "tax_depreciation.csv").write_text(f"{header}\nmacrs_5,1,50,U,2026,test,\nmacrs_5,2,40,U,2026,test,\n")
    with pytest.raises(costmodel.CatalogError, match="sum to 100"):
        costmodel.load_catalog_overrides(folder)


def test_f33_fields_past_the_header_are_refused_with_the_line(tmp_path):
    """F33: a row with more fields than its header (an unquoted comma in a source) lost them silently."""
    header = (DATA_DIR / "cloud_prices.csv").read_text().splitlines()[0]
    # the unquoted comma in "Acme, quote 12" makes one field more than the header, whatever its width
    row = "acme,Acme,H100-SXM-80GB,on_demand,2.5,USD,P,2026-11,Acme, quote 12,note" + "," * (header.count(",") - 9)
    folder = _catalog_folder(tmp_path, "cloud_prices.csv", f"{header}\n{row}\n")
    with pytest.raises(costmodel.CatalogError) as caught:
        costmodel.load_catalog_overrides(folder)
    assert caught.value.problems[0][0] == "line 2" and "more field(s) than the header" in caught.value.problems[0][2]


def test_files_that_are_not_text_files_are_refused_at_once(tmp_path, capsys):
    """A NUL byte, /dev/zero, a FIFO or a folder as a scenario: exit 2 at once, the path named."""
    import os
    import time

    nul = tmp_path / "nul.yaml"
    nul.write_bytes((SCENARIO_DIR / f"{R1}.yaml").read_bytes() + b"\x00")
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    for path, reason in (
        (nul, "NUL byte"),
        (Path("/dev/zero"), "not a regular file"),
        (fifo, "not a regular file"),
        (folder, "is a folder"),
    ):
        start = time.perf_counter()
        code, _, err = run(["compare", str(path)], capsys)
        assert code == 2 and str(path) in err and reason in err, err
        assert time.perf_counter() - start < 5
    catalog = _catalog_folder(tmp_path, "gpus.csv", "")
    (catalog / "gpus.csv").unlink()
    os.mkfifo(catalog / "gpus.csv")
    with pytest.raises(costmodel.CatalogError, match="not a regular file"):
        costmodel.load_catalog_overrides(catalog)


# --- F30, F32: files written ------------------------------------------------------------------------------

F30_TEXTS = ['=HYPERLINK("https://example.com","click")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "two\nlines =1+1"]
"""F30 (faults.md): text a spreadsheet would run as a formula (OWASP's CSV-injection starts), and a
label with a line break inside."""

F30_ONE_LINE = [text for text in F30_TEXTS if "\n" not in text and "\r" not in text]
"""The F30 texts a title or a label may hold: one line (a line break in either is refused on loading,
tests/test_scenario_schema.py::test_titles_and_labels_are_one_line)."""


def _f30_scenarios(tmp_path):
    """One R2 file (own, rent, finance; 12 months) per F30 text: the text as the title and both labels."""
    paths = []
    for n, text in enumerate(F30_ONE_LINE):
        data = patched_data(
            R2,
            {
                "title": text,
                "options.own.label": text,
                "options.rent.label": f"{text} rent",
                "finance.horizon_months": 12,
            },
        )
        paths.append(write_scenario(tmp_path, data, f"f30-{n}.yaml"))
    return paths


def _csv_cells(path):
    import csv

    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _formula_like(text: str) -> bool:
    """Whether a spreadsheet could read a cell's text as a formula: it starts with = + - @ TAB CR and
    is not a plain number (a number such as -1234.5 is read as that number)."""
    if not text[:1] or text[0] not in "=+-@\t\r":
        return False
    try:
        float(text)
    except ValueError:
        return text.strip("-") != ""  # a lone dash is a table's "none"
    return False


def _xlsx_cells(path):
    import openpyxl

    book = openpyxl.load_workbook(path)
    return [cell for sheet in book for row in sheet.iter_rows() for cell in row if cell.value is not None]


def test_f30_no_text_from_a_scenario_is_a_formula_in_any_csv_or_workbook(tmp_path, capsys):
    """F30 (faults.md): every CSV and workbook written (batch portfolio.csv/.xlsx, export's cash-flow
    CSVs and workbook) holds scenario text as text that no spreadsheet evaluates."""
    paths = _f30_scenarios(tmp_path)
    assert main(["batch", *map(str, paths), "--out", str(tmp_path / "batch"), "--xlsx"]) == 0
    # each file with the texts that must be in it (a file of the batch: all of them)
    csv_files = [(tmp_path / "batch" / "portfolio.csv", F30_ONE_LINE)]
    workbooks = [(tmp_path / "batch" / "portfolio.xlsx", F30_ONE_LINE)]
    for n, (path, text) in enumerate(zip(paths, F30_ONE_LINE, strict=True)):
        out = tmp_path / f"export-{n}"
        assert main(["export", str(path), "--csv", str(out), "--xlsx", str(out / "cash.xlsx")]) == 0
        csv_files += [(out / "cash_flows_by_month.csv", [text]), (out / "cash_flows_by_year.csv", [text])]
        workbooks.append((out / "cash.xlsx", [text]))
    capsys.readouterr()

    portfolio = _csv_cells(csv_files[0][0])
    header = portfolio[0]
    assert len(portfolio) == 1 + len(F30_ONE_LINE)  # a line break inside a label does not split its row
    for row in portfolio[1:]:
        assert len(row) == len(header)
    # each title is there, with the quote in front (OWASP); the line break and the tab kept inside the cell
    titles = [row[header.index("title")] for row in portfolio[1:]]
    assert titles == ["'" + text if text[0] in "=+-@\t\r" else text for text in F30_ONE_LINE]
    for text, row in zip(F30_ONE_LINE, portfolio[1:], strict=True):  # the winner named by its label
        quote = "'" if text[0] in "=+-@\t\r" else ""
        assert row[header.index("winner_label")].startswith((quote + text, quote + f"{text} rent"))
    for path, texts in csv_files:
        cells = [cell for row in _csv_cells(path) for cell in row]
        assert [cell for cell in cells if _formula_like(cell)] == [], path
        for text in texts:  # the scenario's text did reach the file (a cash line's label is lower case)
            assert any(text.lower() in cell.lower() for cell in cells), (path, text)

    fragments = ["HYPERLINK", "example.com", "SUM(A1)", "+1+1", "-2+3", "\t", "\r", "_x000D_", "two", "lines"]
    for path, expected in workbooks:
        cells = _xlsx_cells(path)
        formulas = [c for c in cells if c.data_type == "f"]
        assert [(c.coordinate, c.value) for c in formulas if any(f in str(c.value) for f in fragments)] == [], (
            path
        )  # the workbook's own formulas only
        # openpyxl leaves XlsxWriter's escape of a CR (_x000D_, as OOXML writes control characters) as it is
        texts = [c.value.replace("_x000D_", "\r") for c in cells if c.data_type == "s"]
        assert [t for t in texts if _formula_like(t)] == [], path
        for text in expected:
            assert any(text in t for t in texts), (path, text)
    # the workbook names the candidate with the lowest present value by a reference to the label cells
    import openpyxl

    summary = openpyxl.load_workbook(workbooks[1][0])["Summary"]
    lowest = next(row for row in summary.iter_rows() if row[0].value == "lowest present value of costs")
    assert re.fullmatch(
        r"=INDEX\(\$A\$\d+:\$A\$\d+,MATCH\(MIN\(\$B\$\d+:\$B\$\d+\),\$B\$\d+:\$B\$\d+,0\)\)", lowest[1].value
    )


def test_f30_the_one_rule_for_spreadsheet_text():
    """F30 (faults.md): the rule every writer uses, on its edge cases."""
    from costmodel.files import spreadsheet_text

    for text in F30_TEXTS[:6]:
        assert spreadsheet_text(text) == "'" + text
    for kept in ("two\nlines", "Own cluster", "-0.05", "+1e3", "-", "", "'=already quoted"):
        assert spreadsheet_text(kept) == kept
    assert spreadsheet_text(-2.5) == -2.5 and spreadsheet_text(None) is None


def _files_of(folder):
    """Every file under ``folder`` and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_f32_a_failed_or_interrupted_report_keeps_the_earlier_one(tmp_path, capsys, monkeypatch):
    """F32 (faults.md): render, edit in a typo, render again: the earlier report stays byte for byte
    (also with a bad --catalog and with Ctrl-C in the middle of the re-render)."""
    import nbformat
    import papermill

    path = write_scenario(tmp_path, patched_data(R1), "plan.yaml")
    out = tmp_path / "reports"
    assert main(["report", str(path), "--out", str(out)]) == 0
    earlier = _files_of(out)
    assert sorted(name.rsplit("/", 1)[1] for name in earlier) == ["report.html", "report.ipynb"]

    path.write_text(path.read_text().replace("tokens_per_day:", "tokens_per_dya:"))  # a typo
    code, _, err = run(["report", str(path), "--out", str(out)], capsys)
    assert code == 2 and "tokens_per_dya" in err
    assert _files_of(out) == earlier

    path.write_text(path.read_text().replace("tokens_per_dya:", "tokens_per_day:"))
    code, _, err = run(["report", str(path), "--out", str(out), "--catalog", str(tmp_path / "no-such")], capsys)
    assert code == 2 and "no-such" in err
    assert _files_of(out) == earlier

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:  # Ctrl-C while the notebook runs
        patch.setattr(papermill, "execute_notebook", interrupted)
        code, _, err = run(["report", str(path), "--out", str(out)], capsys)
    assert code == 130 and "Traceback" not in err
    assert _files_of(out) == earlier
    with monkeypatch.context() as patch:  # Ctrl-C while the new page and notebook are written
        patch.setattr(nbformat, "write", interrupted)
        code, _, err = run(["report", str(path), "--out", str(out)], capsys)
    assert code == 130
    assert _files_of(out) == earlier  # no temporary file left beside them either


def test_f32_an_interrupted_or_failed_export_keeps_the_earlier_files(tmp_path, capsys, monkeypatch):
    """F32 (faults.md): export --xlsx/--csv/--parquet interrupted or failing leaves the earlier files,
    and writes all of its files or none."""
    import pandas as pd

    from costmodel.presentation import workbook

    args = [
        "export",
        R2,
        "--xlsx",
        str(tmp_path / "out" / "cash.xlsx"),
        "--csv",
        str(tmp_path / "out" / "csv"),
        "--parquet",
        str(tmp_path / "out" / "parquet"),
    ]
    assert main(args) == 0
    earlier = _files_of(tmp_path / "out")
    assert len(earlier) == 7  # the workbook, 2 CSV files with their CSVW sidecars, 2 Parquet files

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:  # Ctrl-C while the workbook is made
        patch.setattr(workbook, "_write_summary", interrupted)
        code, _, err = run(args, capsys)
    assert code == 130 and "Traceback" not in err
    assert _files_of(tmp_path / "out") == earlier

    written = []

    def half_then_interrupted(frame, path):  # the second CSV half-written, then Ctrl-C: the workbook and the
        path.write_text("month,opt")  # first CSV, whole by then, are not renamed into place either
        written.append(path)
        if len(written) == 2:
            raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(workbook, "write_csv", half_then_interrupted)
        assert run(args, capsys)[0] == 130
    assert len(written) == 2 and _files_of(tmp_path / "out") == earlier

    def disk_full(self, path, *a, **k):
        with open(path, "wb") as handle:
            handle.write(b"PAR1")
        raise OSError(28, "No space left on device", str(path))

    with monkeypatch.context() as patch:  # the disk fills while a Parquet file is written
        patch.setattr(pd.DataFrame, "to_parquet", disk_full)
        code, _, err = run(args, capsys)
    assert code == 1 and "No space left on device" in err and "parquet" in err and "Traceback" not in err
    assert _files_of(tmp_path / "out") == earlier


def test_f32_a_batch_that_fails_or_is_interrupted_keeps_the_earlier_portfolio(tmp_path, capsys, monkeypatch):
    """F32 (faults.md): a batch whose only scenario fails, or that is interrupted while writing, leaves
    the earlier portfolio.csv, .parquet and .xlsx byte for byte."""
    from costmodel import batch

    out = tmp_path / "out"
    assert main(["batch", R1, "--out", str(out), "--xlsx"]) == 0
    earlier = _files_of(out)
    assert sorted(earlier) == ["portfolio.csv", "portfolio.csv-metadata.json", "portfolio.parquet", "portfolio.xlsx"]
    bad = write_scenario(tmp_path, patched_data(R1, {"workload.tokens_per_day": "lots"}))
    code, _, err = run(["batch", str(bad), "--out", str(out), "--xlsx"], capsys)
    assert code == 1 and "workload.tokens_per_day" in err and "nothing written" in err
    assert _files_of(out) == earlier

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(batch, "_write_sheet", interrupted)  # the CSV and Parquet files are whole by then
    code, _, err = run(["batch", R2, "--out", str(out), "--xlsx"], capsys)
    assert code == 130 and "Traceback" not in err
    assert _files_of(out) == earlier


@pytest.mark.parametrize(
    "command",
    [
        ["export", R2, "--csv"],
        ["export", R2, "--parquet"],
        ["batch", R1, "--out"],
        ["what-if", R1, "--no-lab", "--out"],
        ["report", R1, "--out"],
    ],
)
def test_f32_an_output_folder_where_a_file_is_exits_2_naming_it(tmp_path, capsys, command):
    """F32 (faults.md): --out (or --csv, --parquet) naming a file, or a folder inside one, exits 2 with
    the option and the path, before anything runs; the file is untouched."""
    (tmp_path / "a-file").write_bytes(b"keep me")
    for out, words in (
        (tmp_path / "a-file", "is a file, not a folder"),
        (tmp_path / "a-file" / "sub", f"is in {tmp_path / 'a-file'}, which is a file"),
    ):
        code, _, err = run([*command, str(out)], capsys)
        assert code == 2 and f"{command[-1]} {out}: {words}" in err and "Traceback" not in err
    assert (tmp_path / "a-file").read_bytes() == b"keep me"


def test_f32_missing_output_folders_are_made_and_an_xlsx_that_is_a_folder_exits_2(tmp_path, capsys):
    """F32 (faults.md): a missing output folder is made with its parents (as report --out always did);
    --xlsx naming a folder exits 2 with the path."""
    assert main(["export", R2, "--xlsx", str(tmp_path / "a" / "b" / "c.xlsx"), "--csv", str(tmp_path / "d" / "e")]) == 0
    assert main(["batch", R1, "--out", str(tmp_path / "f" / "g")]) == 0
    assert main(["what-if", R1, "--no-lab", "--out", str(tmp_path / "h" / "i")]) == 0
    for made in ("a/b/c.xlsx", "d/e/cash_flows_by_year.csv", "f/g/portfolio.parquet", f"h/i/{R1}.ipynb"):
        assert (tmp_path / made).is_file(), made
    code, _, err = run(["export", R2, "--xlsx", str(tmp_path / "a")], capsys)
    assert code == 2 and f"--xlsx {tmp_path / 'a'}: is a folder, not a file" in err
    # bad input: nothing made
    code, _, err = run(["export", str(tmp_path / "no-such.yaml"), "--csv", str(tmp_path / "j")], capsys)
    assert code == 2 and not (tmp_path / "j").exists()


def test_f32_files_written_aside_get_the_usual_permissions_and_leave_nothing(tmp_path):
    """F32 (faults.md): the temporary file is beside the final one, removed on any error, and the final
    file has 0666 less the umask, like any new file."""
    import os

    from costmodel.files import write_all_atomically

    final = tmp_path / "x.csv"
    final.write_text("earlier")
    seen = []

    def failing(path):
        seen.append(path)
        path.write_text("half")
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        write_all_atomically([(tmp_path / "y.csv", lambda p: p.write_text("whole")), (final, failing)])
    assert seen[0].parent == tmp_path and final.read_text() == "earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]
    umask = os.umask(0o027)
    try:
        write_all_atomically([(final, lambda p: p.write_text("new"))])
    finally:
        os.umask(umask)
    assert final.read_text() == "new" and final.stat().st_mode & 0o777 == 0o640


# --- F31: escaped everywhere --------------------------------------------------------------------------------

# "ZQ" survives any rendering as text, so a page that shows ZQ without the rest of the payload after it
# rendered that payload (a link, bold, italics, mathematics) instead of showing it as written
F31_TEXT = 'ZQ<a href="javascript:alert(1)">x</a> **b** $x$ _y_ [a](b)'
F31_FIELDS = ("title", "description", "source", "item", "statement", "label", "name", "notes", "provider")


def f31_hostile(name: str) -> dict:
    """A bundled scenario with F31_TEXT (and a tag naming the place) in every text field: title, descriptions,
    sources, bill-of-materials items, claims, stage names, every option's label, and an inline rental offer
    (its id, provider, notes and source) that the rent option uses."""
    from costmodel.catalog import default_catalog

    data = patched_data(name)
    count = 0

    def fill(node):
        nonlocal count
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            if isinstance(value, str) and key in F31_FIELDS and not (key == "name" and "offer" in node):
                count += 1  # (an API offer's name is an id: lower case, digits, hyphens)
                node[key] = f"{F31_TEXT} {count}"
            else:
                fill(value)

    fill(data)
    for kind in ("own", "rent", "api"):
        if kind in data["options"]:
            data["options"][kind]["label"] = f"{F31_TEXT} {kind}"
    rent = data["options"]["rent"]
    row = default_catalog().cloud_offers[rent["offer"]].model_dump(mode="json")
    row.update(
        offer=f"{F31_TEXT} offer",
        provider=f"{F31_TEXT} provider",
        notes=f"{F31_TEXT} notes",
        source=f"{F31_TEXT} offer source",
    )
    data.setdefault("offers", {}).setdefault("cloud_offers", []).append(row)
    rent["offer"] = row["offer"]
    return data


class _Live(HTMLParser):
    """Shown text, alt texts, links and the text of bold/italic elements of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.alts, self.links, self.emphasis, self._open = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("a", "area") or "xlink:href" in attrs:
            self.links.append(attrs.get("href") or attrs.get("xlink:href") or "")
        if "alt" in attrs:
            self.alts.append(attrs["alt"])
        if tag not in ("img", "br", "meta", "link", "input", "hr"):
            self._open.append(tag)

    def handle_endtag(self, tag):
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_data(self, data):
        if any(t in ("script", "style") for t in self._open):
            return
        if self._open and self._open[-1] in ("strong", "b", "em", "i", "a"):
            self.emphasis.append(data)
        self.text.append(data)


def _spec_texts(node):
    """Every string of a Vega-Lite spec; the lines of a wrapped title or of a label wrapped by a lookup in a
    ``labelExpr`` (:func:`costmodel.presentation.charts.option_legend`) joined into one string by spaces."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                yield " ".join(value)
            elif key == "labelExpr" and value.startswith("({"):
                lookup = json.loads(value[1 : value.index(")[datum.label]")])
                for label, lines in lookup.items():
                    assert " ".join(lines) == label
                    yield label
            else:
                yield from _spec_texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _spec_texts(value)
    elif isinstance(node, str):
        yield node


@pytest.fixture(scope="module")
def f31_reports(tmp_path_factory):
    """R1 and R2 rendered with F31_TEXT in every text field."""
    from costmodel.report import render_report

    folder = tmp_path_factory.mktemp("f31")
    return {
        name: render_report(write_scenario(folder, f31_hostile(name), f"{name}.yaml"), folder / "out").html
        for name in (R1, R2)
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", [R1, R2])
def test_f31_hostile_text_in_every_field_is_shown_as_written(f31_reports, name):
    """F31 (faults.md): every text field's HTML, Markdown and $ are shown as written, none live."""
    import base64
    import html as html_module

    html = f31_reports[name].read_text()
    assert unsafe_parts(html, trusted_scripts()) == []
    page = _Live()
    page.feed(html)
    # the only links are the headings' own anchors; no bold or italic text came from the payload
    assert page.links and all(link.startswith("#") for link in page.links), [x for x in page.links if x[:1] != "#"]
    assert not {"b", "y", "x", "a"} & {part.strip() for part in page.emphasis}
    shown = " ".join(" ".join(page.text).split())
    # each place the payload shows, it shows whole: in headings, sentences, lists and tables alike
    assert shown.count("ZQ") == shown.count(F31_TEXT) > 50
    for tag in ("own", "rent", "offer", "provider", "1"):  # the labels, the offer, the title
        assert f"{F31_TEXT} {tag}" in shown, tag
    assert f"<title>{html_module.escape(F31_TEXT, quote=False)} 1</title>" in html
    # chart titles, axes and legends (the Vega-Lite specs) and the charts' alt texts carry it whole (a text
    # wrapped onto lines carries it across them)
    # (nbconvert's BeautifulSoup pass writes the attributes in an order of its own)
    specs = re.findall(
        r'<script (?=[^>]*type="application/json")(?=[^>]*class="costmodel-vega-spec")[^>]*>(.*?)</script>', html, re.S
    )
    strings = [s for spec in specs for s in _spec_texts(json.loads(spec)) if "ZQ" in s]
    assert strings and all(F31_TEXT in s for s in strings)
    assert any("ZQ" in alt for alt in page.alts)
    assert all(alt.count("ZQ") == alt.count(F31_TEXT) for alt in page.alts)
    # the drawn SVGs hold the text as text, never as an element
    for data in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html):
        svg = base64.b64decode(data).decode()
        assert not re.search(r"<a[\s>]", svg)


@pytest.mark.slow
def test_f31_the_policy_lets_the_charts_draw_and_nothing_else_run(f31_reports, tmp_path, chromium):
    """F31 (faults.md): the report's Content-Security-Policy runs its own scripts only; the charts still draw."""
    html = f31_reports[R2].read_text()
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert policy and html.index(policy.group(0)) < html.index("<script")  # before any script
    directives = dict(d.split(" ", 1) for d in policy.group(1).split("; "))
    assert directives["default-src"] == "'none'" and directives["img-src"] == "data:"
    hashes = directives["script-src"].split()
    assert len(hashes) == 2 and all(h.startswith("'sha256-") for h in hashes)  # the Vega bundle, the loader
    assert "unsafe" not in directives["script-src"]
    charts = html.count('class="costmodel-vega-spec"')
    dump = []
    assert chromium(f31_reports[R2], dump) == []
    assert len(re.findall(r'class="[^"]*\bcostmodel-interactive\b', dump[0])) == charts > 5  # every chart drawn
    # a script, an event handler and a javascript: URL put into the page afterwards do not run
    injected = tmp_path / "injected.html"
    before, after = html.split("</body>", 1)  # the body's end; the Vega bundle after it holds the word too
    injected.write_text(
        before + "<script>document.title='pwned'</script>"
        "<img src=x onerror=\"document.title='pwned'\">"
        "<iframe src=\"javascript:parent.document.title='pwned'\"></iframe></body>" + after
    )
    dump = []
    chromium(injected, dump)
    assert "pwned" not in re.search(r"<title>(.*?)</title>", dump[0], re.S).group(1)
    assert len(re.findall(r'class="[^"]*\bcostmodel-interactive\b', dump[0])) == charts


@pytest.mark.parametrize(
    "html",
    [
        '<a href="javascript:alert(1)">x</a>',
        '<a href="JaVaScRiPt:alert(1)">x</a>',
        '<a href=" javascript:alert(1)">x</a>',
        '<a href="java&#x09;script:alert(1)">x</a>',
        '<a href="java&Tab;script&colon;alert(1)">x</a>',
        '<a href="&#106;avascript:alert(1)">x</a>',
        '<a href="\x01javascript:alert(1)">x</a>',
        '<a href="vbscript:msgbox(1)">x</a>',
        '<a href="VBScript:msgbox(1)">x</a>',
        '<a href="data:text/html,<script>alert(1)</script>">x</a>',
        '<a href="data:image/svg+xml;base64,AA">x</a>',
        '<area href="javascript:alert(1)">',
        '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
        '<svg><a href="data:text/html,x"><text>x</text></a></svg>',
        '<svg><a><set attributeName="href" to="javascript:alert(1)"/><text>x</text></a></svg>',
        '<button formaction="javascript:alert(1)">x</button>',
        '<button formaction="data:text/html,x">x</button>',
        '<form action=" JAVASCRIPT:alert(1)"></form>',
        '<script src="data:text/javascript,alert(1)"></script>',
        '<link rel="stylesheet" href="data:text/css,a">',
        '<img src="javascript:alert(1)">',
        '<img srcset="data:text/html,x 1x">',
    ],
)
def test_f31_the_page_check_refuses_script_and_data_links(html):
    """F31 (faults.md): javascript:, vbscript: and data: URLs in links are refused, however written."""
    assert unsafe_parts(html)


@pytest.mark.parametrize(
    "html",
    [
        '<img src="data:image/svg+xml;base64,AA">',
        '<img srcset="data:image/png;base64,AA 1x, data:image/png;base64,BB 2x">',
        '<svg><image href="data:image/png;base64,AA"/></svg>',
        '<a href="h200-24gpu-cluster/report.html">R2</a>',
        '<a href="#Summary">Summary</a>',
        "<p>javascript:alert(1)</p>",
    ],
)
def test_f31_images_anchors_and_relative_links_pass(html):
    """F31 (faults.md): what a report and the batch index use themselves stays allowed."""
    assert unsafe_parts(html) == []


def test_f31_the_policy_hashes_exactly_the_scripts_that_run():
    """F31 (faults.md): one hash per inline script a browser runs; a JSON data block needs none."""
    import base64
    import hashlib

    from costmodel.report import with_content_security_policy

    page = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body>'
        '<script type="application/json">{"a": 1}</script><script>var a = 1;</script></body></html>'
    )
    out = with_content_security_policy(page)
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', out).group(1)
    expected = base64.b64encode(hashlib.sha256(b"var a = 1;").digest()).decode()
    assert f"script-src 'sha256-{expected}';" in meta and meta.count("'sha256-") == 1
    assert out.index("<meta charset") < out.index("Content-Security-Policy") < out.index("<title>")
    assert out.replace(re.search(r"\n<meta http-equiv[^>]*>", out).group(0), "") == page


def test_f31_labels_are_escaped_in_every_sentence_of_the_horizon():
    """F31 (faults.md): the 'Owning instead of ...' sentence escapes the label like the sentences around it."""
    from costmodel.domain.finance import own_finance
    from costmodel.presentation.safe import markdown
    from costmodel.presentation.text import describe_finance

    label = '<a href="javascript:alert(1)">x</a> **b** $x$ _y_ [a](b)'
    r = costmodel.resolve(patched(R2, {"options.rent.label": label}))
    text = describe_finance(r, own_finance(r))
    assert "Owning instead of " + markdown(label) in text
    assert label not in text and not re.search(r"(?<!\\)<a", text)


F31_CONTROLS = "\x1b[31mred\x1b[0m\x1b]0;title\x07\x08\r\x9b2J\x1bc\u202e"


def test_f31_terminal_output_has_no_control_characters(tmp_path, capsys):
    """F31 (faults.md): what the CLI prints from scenario text carries no escape sequence or control."""
    controls = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]")
    # a scenario's own text may hold no control character at all (refused, the value shown escaped) ...
    data = patched_data(
        R2, {"title": "T" + F31_CONTROLS, "options.rent.label": "R" + F31_CONTROLS}, drop=("uncertainty",)
    )
    path = write_scenario(tmp_path, data, "controls.yaml")
    for args in (["compare", str(path)], ["validate", str(path)]):
        code, out, err = run(args, capsys)
        assert code == 2 and "control character U+001B" in err and not controls.search(out + err), (args, err)
    # ... while a catalog row's text (here an inline offer's provider) is printed without its controls
    row = dict(
        offer="acme-h200",
        provider="Acme" + F31_CONTROLS,
        gpu="H200-SXM-141GB",
        pricing="on_demand",
        price_per_gpu_hour=3.5,
        currency="USD",
        quality="P",
        as_of="2026-11",
        source="quote",
    )
    data = patched_data(R2, {"offers.cloud_offers": [row], "options.rent.offer": "acme-h200"}, drop=("uncertainty",))
    path = write_scenario(tmp_path, data, "provider.yaml")
    for args in (
        ["compare", str(path)],
        ["validate", str(path)],
        ["batch", str(path), "--out", str(tmp_path / "batch")],
    ):
        code, out, err = run(args, capsys)
        assert code == 0 and not controls.search(out + err), (args, out + err)
    assert "Acmered" in run(["compare", str(path)], capsys)[1]  # the text itself stays
    # an error quoting the bad value (and a bad key), and a batch's list of failures
    bad = write_scenario(
        tmp_path,
        patched_data(R2, {"options.own.power.pue": "high" + F31_CONTROLS, "options.own.x\x1b[2J": 1}),
        "bad.yaml",
    )
    for args in (["compare", str(bad)], ["batch", str(bad), "--out", str(tmp_path / "batch2")]):
        code, out, err = run(args, capsys)
        assert code in (1, 2) and "options.own.power.pue" in err and not controls.search(out + err), err
    assert "\n" in run(["compare", str(bad)], capsys)[2].strip()  # one problem a line, still


def test_f31_the_terminal_function():
    """F31 (faults.md): escape sequences go whole, controls go, a CR or tab is a space, lines stay if asked."""
    from costmodel.presentation.safe import terminal

    assert terminal("a\x1b[1;31mb\x1b[0m") == "ab"
    assert terminal("\x1b]0;title\x07x \x1b]8;;https://e.com\x1b\\link\x1b]8;;\x1b\\") == "x link"
    assert terminal("safe\rEVIL\x08\x08") == "safe EVIL"
    assert terminal("a\x00b\x7fc\x85d\u202ee") == "abcde"
    assert terminal("two\nlines") == "two lines" and terminal("two\r\nlines", multiline=True) == "two\nlines"
    assert terminal("ok é ü 中 $x$ **b**") == "ok é ü 中 $x$ **b**"


# --- large inputs: read once, refused early -------------------------------------------------------------


def test_a_demand_file_is_read_once_while_it_is_unchanged(tmp_path, monkeypatch):
    """A 10^6-job log took 15-20 s in compare, read again for every resolve; now kept while unchanged."""
    from costmodel.io import demand_files

    log = tmp_path / "sacct.txt"
    log.write_text("JobID|Start|End|AllocTRES\n1|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=4\n")
    reads = []
    original = demand_files._read_lines
    monkeypatch.setattr(demand_files, "_read_lines", lambda *a: reads.append(a) or original(*a))
    first = read_job_log(log, 2026)
    first.demand[:] = 0  # the caller's copy: what is kept stays as read
    assert read_job_log(log, 2026).demand[:2].tolist() == [4.0, 4.0] and len(reads) == 1
    log.write_text("JobID|Start|End|AllocTRES\n1|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=16\n")
    assert read_job_log(log, 2026).demand[:2].tolist() == [16.0, 16.0] and len(reads) == 2


def test_a_400000_value_distribution_is_refused_by_its_size(tmp_path, capsys):
    """An empirical distribution of 400,000 values: refused naming the field and the limit (the parse ran 10 s)."""
    data = patched_data(R1)
    data["uncertainty"]["distributions"]["options.rent.price_per_gpu_hour"] = {
        "distribution": "empirical",
        "values": [3] * 400_000,
    }
    import yaml

    text = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=10**9)  # [3, 3, ...]: 1.2 MB
    code, err = problem_of(tmp_path, text, capsys)
    assert code == 2 and "uncertainty.distributions.options.rent.price_per_gpu_hour.values" in err
    assert "100000" in err or "100,000" in err


# --- a red-team run over the new routes (931 cases): the kinds it found ----------------------------------


def test_catalog_rows_that_contradict_themselves_are_refused(tmp_path):
    """A window with an unknown zone crashed (ZoneInfoNotFoundError); an empty window, a garbage date, an
    active parameter count above the total, energy low above high were accepted."""

    def refused(name, old, new, column):
        folder = tmp_path / f"catalog-{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        text = (DATA_DIR / name).read_text(encoding="utf-8")
        assert old in text
        (folder / name).write_text(text.replace(old, new, 1), encoding="utf-8")
        with pytest.raises(costmodel.CatalogError) as caught:
            costmodel.load_catalog_overrides(folder)
        assert column in caught.value.problems[0][0], caught.value

    refused("api_price_windows.csv", "0-4,9,12,Asia/Shanghai", "0-4,9,12,Asia/Nowhere", "time_zone")
    refused("api_price_windows.csv", "0-4,9,12,Asia/Shanghai", "0-4,9,12,localtime", "time_zone")
    refused("api_price_windows.csv", "0-4,9,12,Asia/Shanghai", "0-4,9,9,Asia/Shanghai", "start_hour")
    refused("api_price_windows.csv", "0-4,9,12,Asia/Shanghai", "4-0,9,12,Asia/Shanghai", "days")
    refused("api_price_windows.csv", "1.0,2026-09-10", "1.0,soon", "effective_from")
    models = (DATA_DIR / "models.csv").read_text().splitlines()[1].split(",")
    refused(
        "models.csv", ",".join(models[:4]), ",".join(models[:3] + [str(float(models[2]) * 10)]), "active_parameters"
    )


def test_inline_offer_ids_once_and_reserved_below_on_demand(tmp_path, capsys):
    """Two inline offers with one id: the last was used silently; a reserved price above on-demand was accepted."""
    row = dict(
        offer="acme",
        provider="Acme",
        gpu="H100-SXM-80GB",
        pricing="on_demand",
        price_per_gpu_hour=2.5,
        currency="USD",
        quality="P",
        as_of="2026-11",
        source="quote",
    )
    data = patched_data(
        R1, {"offers.cloud_offers": [row, {**row, "price_per_gpu_hour": 9.0}], "options.rent.offer": "acme"}
    )
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and "offers.cloud_offers.1.offer: repeats the id of row 0" in err
    reserved = {"term_years": 1, "price_per_gpu_hour": 9.0, "currency": "USD", "source": "quote"}
    code, err = problem_of(tmp_path, patched_data(R2, {"options.rent.reserved": reserved}), capsys)
    assert code == 2 and "options.rent.reserved.price_per_gpu_hour: above the on-demand price" in err


@pytest.mark.parametrize(
    "text, reason",
    [
        ("\u200b\u200b\ufeff", "only spaces or invisible characters"),
        ("a\x00b", "holds the control character U+0000"),
        ("\x1b[2J\x1b[H", "holds the control character U+001B"),
        ("   ", "only spaces or invisible characters"),
    ],
)
def test_text_fields_hold_visible_text_and_no_controls(tmp_path, capsys, text, reason):
    """A zero-width title passed the blank-title rule; NUL and ANSI escapes were accepted in titles and labels."""
    for field in ("title", "options.rent.label"):
        code, err = problem_of(tmp_path, patched_data(R1, {field: text}), capsys)
        assert code == 2 and f"{field}: {reason}" in err, err
    code, err = problem_of(tmp_path, patched_data("api-offers", {"options.apis.0.label": "x" * 81}), capsys)
    assert code == 2 and "options.apis.0.label" in err and "80 characters" in err


def test_log_counts_are_unsigned_and_durations_real(tmp_path):
    """A request log's input_tokens: -5 was summed; a job's Elapsed 1-25:99:99 was read."""
    from costmodel.io.request_logs import read_request_log

    requests = tmp_path / "requests.csv"
    requests.write_text("timestamp,input_tokens,output_tokens\n2026-01-01T00:10:00,-5,10\n")
    with pytest.raises(costmodel.InputError, match="line 2"):
        read_request_log(requests, 2026)
    jobs = tmp_path / "sacct.txt"
    jobs.write_text(
        "JobID|Start|End|Elapsed|AllocTRES|State\n1|2026-01-01T00:00:00|Unknown|1-25:99:99|gres/gpu=4|"
        "COMPLETED\n2|2026-01-01T00:00:00|Unknown|01:30:00|gres/gpu=-4|COMPLETED\n"
    )
    with pytest.raises(costmodel.InputError) as caught:
        read_job_log(jobs, 2026)
    assert [p[0] for p in caught.value.problems] == ["line 2", "line 3"]
    assert "Elapsed must be a duration" in caught.value.problems[0][2]


@pytest.mark.parametrize(
    "changes, field",
    [
        (
            {"finance.residual": {"method": "straight_line", "ages_months": [0, 12], "shares": [1, 0.5]}},
            "finance.residual.ages_months: applies to method points",
        ),
        (
            {"finance.tax": {"rate": 0.21, "depreciation": "macrs_5", "life_months": 36, "source": "US"}},
            "finance.tax.life_months: macrs_5 deducts on its own table",
        ),
        (
            {"finance.rent_commitment": {"gpus": 8, "payment": "no_upfront", "upfront_share": 0.3}},
            "finance.rent_commitment.upfront_share: applies to payment partial_upfront",
        ),
        (
            {"finance.capacity_plan": {"years": 50}},
            "finance.capacity_plan.years: plans years past the 60-month horizon",
        ),
    ],
)
def test_inputs_that_would_be_ignored_are_refused(tmp_path, capsys, changes, field):
    """A straight-line residual with points, a MACRS tax with a life, a no-upfront commitment with a share and
    a 50-year plan on a 5-year horizon were accepted and silently did nothing."""
    code, err = problem_of(tmp_path, patched_data(R2, changes), capsys)
    assert code == 2 and field in err, err
    claim = {
        "kind": "monthly_cost",
        "option": "rent",
        "value": 1.0,
        "options": ["own", "rent"],
        "statement": "rent costs 1",
    }
    code, err = problem_of(tmp_path, patched_data(R1, {"claims": [claim]}), capsys)
    assert code == 2 and "claims.0.options: a monthly_cost claim takes no options" in err


# --- inputs that vary: uncertainty, claims, sweeps ---------------------------------------------------------


def _uncertain(name: str, path: str, value: float) -> dict:
    """A bundled scenario's data with one input uniform over +-10 % of its value (0 to 0.1 at zero)."""
    data = patched_data(name)
    low, high = sorted((value * 0.9, value * 1.1)) if value else (0.0, 0.1)
    data["uncertainty"] = {
        "seed": 1,
        "samples": 32,
        "distributions": {path: {"distribution": "uniform", "low": low, "high": high}},
    }
    return data


@pytest.mark.slow
def test_every_numeric_input_of_every_bundled_scenario_can_be_uncertain():
    """Every numeric input of every bundled scenario made uncertain in turn: it runs, with a finite Monte Carlo
    metric, or it is refused when the scenario is read, by an error naming the input (a year, a count, a
    demand profile's shape, a reach outside the input's range) -- never a numpy error or a TypeError. A cache-write
    share reaching above 0 on an offer without a cache-write price is refused once resolved, naming cache_ttl.
    Each is read as `costmodel compare` reads a file (validate_data): a scenario's inline ``offers:`` join the
    catalog it is validated and sampled against (bill-review's rent option is such an offer)."""

    from costmodel.errors import ScenarioError
    from costmodel.scenarios import load_scenario, validate_data

    ran = refused = 0
    for file in sorted(SCENARIO_DIR.glob("*.yaml")):
        inputs = uncertainty.numeric_inputs(load_scenario(file))
        for path, value in inputs.items():
            data = _uncertain(file.stem, path, float(value))
            try:
                s = validate_data(data)
            except Exception as exc:  # the error load_scenario gives: the input named
                assert path in str(exc), (file.stem, path, str(exc)[:300])
                refused += 1
                continue
            try:
                result = uncertainty.monte_carlo(s)
            except ScenarioError as exc:  # a share reaching above 0 where the offer has no price for it
                message = str(exc)
                assert ("cache_ttl" in message and path.endswith("cache_write_share")) or (
                    path.rsplit(".", 1)[-1]
                    in (
                        "audio_input_share",
                        "image_input_share",
                        "audio_output_share",
                        "searches_per_request",
                        "citation_tokens_per_request",
                    )
                    and ("has no" in message or "input_tokens_per_request" in message)
                ), (file.stem, path, message)
                refused += 1
                continue
            assert np.all(np.isfinite(np.asarray(result.metric, dtype=float))), (file.stem, path)
            ran += 1
    assert ran > 250 and refused > 50


@pytest.mark.parametrize("path", ["demand.year", "demand.growth_per_year", "demand.off_share"])
def test_an_input_that_cannot_vary_is_refused_naming_why(tmp_path, capsys, path):
    """A job log's year, a profile's growth and off-peak share are refused as uncertain (they set the calendar
    or the hourly series once): exit 2, the file, the input and the reason."""
    base = "h200-job-log" if path == "demand.year" else R2
    data = _uncertain(base, path, float(uncertainty.value_of(patched(base), path)))
    data["uncertainty"]["distributions"][path] = (
        {"distribution": "uniform", "low": 0.1, "high": 0.2}
        if path != "demand.year"
        else {"distribution": "empirical", "values": [2025, 2026]}
    )
    file = write_scenario(tmp_path, data)
    code, _, err = run(["compare", str(file)], capsys)
    assert code == 2 and str(file.name) in err and f"uncertainty.distributions.{path}" in err
    assert "cannot vary across samples" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "path",
    [
        "finance.trends.hardware_price_change_per_year",
        "finance.trends.rental_price_change_per_year",
        "finance.loan.down_payment_share",
        "options.own.facility.depreciation_months",
        "workload.training_tokens",
    ],
)
def test_a_sampled_input_gives_what_each_value_gives_alone(path):
    """Inputs that broadcast now: the vectorised metric at two values equals the metric at each value alone."""
    base = {
        "finance.loan.down_payment_share": "h100-10k-cluster",
        "workload.training_tokens": R4,
        "options.own.facility.depreciation_months": "h100-10k-cluster",
    }.get(path, R2)
    s = patched(base)
    value = uncertainty.value_of(s, path)
    xs = [value * 0.9, value * 1.1] if value else [-0.1, 0.1]
    together = np.ravel(uncertainty.decision_metric(s, values={path: np.array(xs)[:, None]}))
    alone = [float(uncertainty.decision_metric(s, values={path: x})) for x in xs]
    assert np.allclose(together, alone, rtol=1e-12) and alone[0] != alone[1]


@pytest.mark.parametrize("base", ["h200-job-log", "request-log"])
def test_a_contradicted_claim_on_a_log_scenario_is_checked(tmp_path, base):
    """A job-log or request-log scenario with a contradicted claim: compare ran would_hold over every input,
    the profile's year among them, and hours_in_year(2026.x) raised a TypeError; inputs that cannot vary are
    not scanned, and the others still are."""
    from costmodel.domain.claims import check_claims

    if base == "request-log":
        log = tmp_path / "requests.csv"
        log.write_text(
            "timestamp,input_tokens,output_tokens\n"
            + "".join(f"2026-01-{d:02d}T{h:02d}:00:00,20000000,10000000\n" for d in range(1, 29) for h in range(24))
        )
        data = patched_data(
            R1,
            {
                "workload.tokens_per_day": 3e7 * 24 * 28 / 365,
                "demand": {"kind": "request_log", "path": str(log), "year": 2026},
            },
        )
        option = "api"
    else:
        data, option = patched_data(base), "rent"
    data.pop("uncertainty", None)
    s = costmodel.Scenario.model_validate(data)
    stated = 0.8 * float(costmodel.domain.costs.monthly_cost(s, option, s.volume))
    data["claims"] = [
        {
            "statement": f"{option} costs less",
            "source": "test",
            "kind": "monthly_cost",
            "option": option,
            "value": stated,
        }
    ]
    (check,) = check_claims(costmodel.Scenario.model_validate(data))
    assert not check.confirmed and check.would_hold
    assert all(c.path != "demand.year" for c in check.would_hold)


def test_a_count_sweep_checks_each_value_up_front(tmp_path, capsys):
    """options.rent.gpu_count swept on R1 (a replica takes 2 GPUs): a value that is not whole replicas is
    refused when the sweep file is checked (exit 2, the file, the field, the value, the rule); a valid count
    sweep runs, each point priced as the scenario at that count."""
    for values, bad in (("[1, 2]", "1"), ("[3]", "3")):
        code, err = _sweep(tmp_path, capsys, f"base: {R1}\npoints:\n  options.rent.gpu_count: {values}\n")
        assert code == 2 and "sweep.yaml" in err and "points.options.rent.gpu_count" in err
        assert "multiple of 2" in err and f"(got {bad}" in err and "truth value" not in err
    code, err = _sweep(
        tmp_path, capsys, f"base: {R1}\ngrid:\n  options.rent.gpu_count: [2, 4]\n  options.own.power.pue: [1.1, 1.3]\n"
    )
    assert code == 0, err
    import pandas as pd

    table = pd.read_csv(tmp_path / "out" / "portfolio.csv")
    for count in (2, 4):
        alone = patched(R1, {"options.rent.gpu_count": count})
        expected = float(costmodel.domain.costs.monthly_cost(alone, "rent", alone.volume))
        assert np.allclose(table.loc[table["options.rent.gpu_count"] == count, "cost_rent"], expected)
    assert table["point"].tolist() == [0, 1, 2, 3]


def test_demand_growth_past_the_largest_figure_is_refused(tmp_path, capsys):
    """R2 with demand growing 100-fold a year over 600 months reached 1e104 GPU-hours a month and failed with
    numpy's "Maximum allowed size exceeded"; refused naming the growth, the horizon and the limit."""
    file = write_scenario(
        tmp_path, patched_data(R2, {"finance.trends.demand_growth_per_year": 100, "finance.horizon_months": 600})
    )
    code, _, err = run(["compare", str(file)], capsys)
    assert code == 2 and "finance.trends.demand_growth_per_year" in err and "600-month horizon" in err
    assert "(got 100" in err and "Maximum allowed size" not in err


# --- command-line arguments and output paths ---------------------------------------------------------------


def _fifo(path: Path) -> Path:
    """A FIFO at ``path`` (a stand-in for a device: nothing here ever points at /dev)."""
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _is_fifo(path: Path) -> bool:
    import stat

    return stat.S_ISFIFO(path.lstat().st_mode)


@pytest.mark.parametrize(
    "command, fifo",
    [
        (["export", R2, "--xlsx", "{tmp}/cash.xlsx"], "cash.xlsx"),
        (["export", R2, "--xlsx", "{tmp}/pipe"], "pipe"),
        (["export", R2, "--csv", "{tmp}/tables"], "tables/cash_flows_by_year.csv"),
        (["export", R2, "--csv", "{tmp}/pipe"], "pipe"),
        (["export", R2, "--xlsx", "{tmp}/ok.xlsx", "--parquet", "{tmp}/p"], "p/cash_flows_by_month.parquet"),
        (["batch", R1, "--out", "{tmp}"], "portfolio.parquet"),
        (["batch", R1, "--out", "{tmp}", "--xlsx"], "portfolio.xlsx"),
        (["batch", R1, "--out", "{tmp}", "--reports"], "index.html"),
        (["batch", R1, "--out", "{tmp}", "--reports"], "llama70b-vs-api/report.ipynb"),
        (["batch", R1, "--out", "{tmp}/pipe"], "pipe"),
        (["report", R1, "--out", "{tmp}"], "llama70b-vs-api/report.html"),
        (["report", R1, "--out", "{tmp}"], "llama70b-vs-api"),
        (["what-if", R1, "--out", "{tmp}", "--no-lab"], "llama70b-vs-api.ipynb"),
    ],
)
def test_an_output_path_that_is_not_a_regular_file_is_refused(tmp_path, capsys, command, fifo):
    """Issue 27: `export --xlsx /dev/null` replaced the device with a file (written aside, renamed over it).
    A FIFO (or device, socket) where any output file or folder goes: exit 2, naming it, nothing written."""
    out = tmp_path / "out"
    pipe = _fifo(out / fifo)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    code, _, err = run([a.replace("{tmp}", str(out)) for a in command], capsys)
    assert code == 2 and str(pipe) in err and "FIFO" in err and "Traceback" not in err, err
    assert _is_fifo(pipe) and sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_an_output_path_that_is_not_a_regular_file_is_refused_by_the_writers(tmp_path):
    """Issue 27: the checks and the atomic writers under every command refuse a FIFO, and leave it a FIFO."""
    from costmodel.errors import OutputPathError
    from costmodel.files import output_file, output_folder, write_text_atomically

    pipe = _fifo(tmp_path / "pipe")
    for check in (
        lambda: output_file(pipe, "--x"),
        lambda: output_folder(pipe, "--x"),
        lambda: output_folder(pipe / "below", "--x"),
        lambda: write_text_atomically(pipe, "text"),
        lambda: costmodel.save_scenario(costmodel.load_scenario(R1), pipe),
    ):
        with pytest.raises(OutputPathError, match="FIFO"):
            check()
    assert _is_fifo(pipe) and sorted(tmp_path.iterdir()) == [pipe]


@pytest.mark.parametrize("option", ["--volume", "--volume-max"])
def test_volume_options_are_refused_for_a_training_workload(capsys, option):
    """Issue 27: `compare llama31-405b-training --volume 5` ranked a training run on 5 GPU-h/month."""
    code, out, err = run(["compare", R4, option, "5"], capsys)
    assert code == 2 and out == "" and f"{option} 5" in err and "training workload" in err
    assert main(["compare", R4]) == 0


@pytest.mark.parametrize(
    "args, reason",
    [
        (["--volume", "100", "--volume-max", "5"], "--volume-max 5: below the volume compared at (100 tokens/day"),
        (["--volume-max", "5"], "below the volume compared at (1e+07 tokens/day, the scenario's volume)"),
        (["--volume-max", "0"], "argument --volume-max: must be above 0"),
        (["--volume-max", "nan"], "argument --volume-max: must be a number from 0 to 1e15"),
        (["--volume-max=-inf"], "argument --volume-max: must be a number from 0 to 1e15"),
        (["--volume", "inf"], "argument --volume: must be a number from 0 to 1e15"),
        (["--volume", "-1"], "argument --volume: must be a number from 0 to 1e15"),
        (["--volume", "ten"], "argument --volume: not a number"),
    ],
)
def test_volume_max_below_the_volume_and_non_finite_volumes_are_refused(capsys, args, reason):
    """Issue 27: a --volume-max below the volume read "never between 0 and ..." for every pair."""
    code, out, err = run(["compare", R1, *args], capsys)
    assert code == 2 and out == "" and reason in err, err
    assert main(["compare", R1, "--volume", "100", "--volume-max", "100"]) == 0


@pytest.mark.parametrize(
    "workers, reason",
    [
        ("0", "at least 1 and at most 64"),
        ("-3", "at least 1 and at most 64"),
        ("100000", "at least 1 and at most 64"),
        ("2.5", "not a whole number of processes"),
    ],
)
def test_batch_workers_are_a_whole_number_from_1_to_64(tmp_path, capsys, workers, reason):
    """Issue 27: `batch --workers 0`, `-3` and `100000` were accepted."""
    code, _, err = run(["batch", R1, "--out", str(tmp_path / "out"), "--workers", workers], capsys)
    assert code == 2 and "argument --workers: " in err and reason in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["batch", R1, "--out", ""],
        ["batch", "--sweep", "", "--out", "{tmp}"],
        ["batch", R1, "--out", "{tmp}", "--catalog", " "],
        ["report", R1, "--out", ""],
        ["what-if", R1, "--out", "", "--no-lab"],
        ["export", R2, "--xlsx", ""],
        ["export", R2, "--csv", ""],
        ["export", R2, "--parquet", ""],
        ["compare", R1, "--catalog", ""],
        ["diff", R1, R2, "--catalog-b", ""],
        ["validate", R1, "--catalog", ""],
        ["schema", "--catalog", ""],
        ["compare", ""],
        ["diff", R1, ""],
        ["batch", "", "--out", "{tmp}"],
    ],
)
def test_an_empty_path_option_is_refused(tmp_path, capsys, monkeypatch, args):
    """Issue 27: `batch --out ""` wrote into the current folder; an empty path is refused by every command."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run([a.replace("{tmp}", str(tmp_path / "out")) for a in args], capsys)
    assert code == 2 and out == "" and "an empty" in err and "argument " in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["a.csv", "workbook", "a.xlsx.csv", "a.xls"])
def test_an_xlsx_path_without_the_xlsx_suffix_is_refused(tmp_path, capsys, name):
    """Issue 27: `export --xlsx a.csv` wrote a workbook under a .csv name."""
    code, _, err = run(["export", R2, "--xlsx", str(tmp_path / name)], capsys)
    assert code == 2 and f"--xlsx {tmp_path / name}: does not end in .xlsx" in err
    assert list(tmp_path.iterdir()) == []
    assert main(["export", R2, "--xlsx", str(tmp_path / "A.XLSX")]) == 0


@pytest.mark.parametrize(
    "argument, reason",
    [
        ("{tmp}/no-such-*.yaml", "the glob pattern matches no file"),
        ("{tmp}/empty", "the folder holds no scenario file"),
    ],
)
def test_a_batch_glob_matching_nothing_exits_2_naming_the_pattern(tmp_path, capsys, argument, reason):
    """Issue 27: a glob matching nothing exited 1 "cannot be read: no such file"; it is bad input, named."""
    (tmp_path / "empty").mkdir()
    pattern = argument.replace("{tmp}", str(tmp_path))
    code, _, err = run(["batch", R1, pattern, "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and f"{pattern}: {reason}" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "address",
    [
        "not a url",
        "localhost",
        "tcp://host",
        "tcp://:8786",
        "http://host:8786",
        "tcp://host:99999",
        "tcp://host:8786/path",
        "",
    ],
)
def test_a_scheduler_that_is_not_an_address_names_the_option(tmp_path, capsys, address):
    """Issue 27: `--scheduler "not a url"` gave a message without the option; the form is checked first."""
    code, _, err = run(["batch", R1, "--out", str(tmp_path / "out"), "--scheduler", address], capsys)
    assert code == 2 and "argument --scheduler: " in err and repr(address) in err and "tcp://host:port" in err
    assert not (tmp_path / "out").exists()


def test_the_python_compare_takes_a_name_a_path_or_a_scenario():
    """Issue 27: `costmodel.compare("llama70b-vs-api")` raised AttributeError 'str' object has no attribute
    'catalog'; a name or a path is loaded, anything else is a TypeError saying what to give."""
    winner = costmodel.compare(costmodel.load_scenario(R1)).decision.winner
    assert costmodel.compare(R1).decision.winner == winner
    assert costmodel.compare(SCENARIO_DIR / f"{R1}.yaml").decision.winner == winner
    assert costmodel.compare(costmodel.resolve(costmodel.load_scenario(R1))).decision.winner == winner
    with pytest.raises(TypeError, match=r"not dict \(scenario data: costmodel.validate_data"):
        costmodel.compare({"title": "x"})
    with pytest.raises(TypeError, match="compare takes a scenario name, a path, a Scenario or a Resolved, not int"):
        costmodel.compare(3)
    with pytest.raises(costmodel.ScenarioError, match="no-such-scenario"):
        costmodel.compare("no-such-scenario")
    with pytest.raises(TypeError, match=r"resolve takes a Scenario or a Resolved, not str \(.*load_scenario"):
        costmodel.resolve(R1)
    with pytest.raises(TypeError, match=r"not dict \(scenario data: costmodel.validate_data"):
        costmodel.resolve({"title": "x"})


@pytest.mark.parametrize(
    "inputs, reason",
    [
        (",", "names no input"),
        (" , ", "names no input"),
        ("finance,", "has an empty item"),
        ("finance,,options.own.power.pue", "has an empty item"),
    ],
)
def test_what_if_inputs_with_an_empty_item_are_refused(tmp_path, capsys, inputs, reason):
    """Issue 27: `what-if --inputs ","` fell back to the default inputs without a word."""
    code, _, err = run(["what-if", R2, "--inputs", inputs, "--out", str(tmp_path / "out"), "--no-lab"], capsys)
    assert code == 2 and "argument --inputs: " in err and reason in err
    assert not (tmp_path / "out").exists()


def test_an_output_path_that_cannot_be_named_is_bad_input(tmp_path, capsys):
    """Issue 27: a report path the system cannot name (a scenario name too long for a file name) is
    checked with the other outputs: exit 2 naming --out, not exit 1 "cannot write"."""
    code, _, err = run(["report", "b" * 300 + ".yaml", "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and f"--out {tmp_path / 'out'}: no report can be written for bbb" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_headers_once_curve_points_once_and_dearer_prices_dearer(tmp_path):
    """A second red-team pass: a column given twice (the last kept silently), two points of one curve at one
    concurrency, a 1-hour cache write below the 5-minute one, long-context prices below the standard."""
    from costmodel.io.request_logs import read_request_log

    requests = tmp_path / "requests.csv"
    requests.write_text("timestamp,input_tokens,output_tokens,output_tokens\n2026-01-01T00:10:00,5,10,99\n")
    with pytest.raises(costmodel.InputError, match="column output_tokens given twice"):
        read_request_log(requests, 2026)
    header, *rows = (DATA_DIR / "api_prices.csv").read_text(encoding="utf-8").splitlines()
    columns = header.split(",")
    for changes, column in (
        ({"cache_write_5m_per_million": "4", "cache_write_1h_per_million": "3"}, "cache_write_1h_per_million"),
        (
            {
                "long_context_threshold_tokens": "1000",
                "long_context_input_per_million": "1",
                "long_context_output_per_million": "99",
            },
            "long_context_input_per_million",
        ),
    ):
        import csv
        import io

        row = dict(zip(columns, next(csv.reader([rows[0]])), strict=True)) | changes
        out = io.StringIO()
        csv.DictWriter(out, columns).writerow(row)
        folder = tmp_path / column
        folder.mkdir()
        (folder / "api_prices.csv").write_text(f"{header}\n{out.getvalue()}", encoding="utf-8")
        with pytest.raises(costmodel.CatalogError) as caught:
            costmodel.load_catalog_overrides(folder)
        assert column in caught.value.problems[0][0] and "it is the dearer price" in caught.value.problems[0][2]
    folder = tmp_path / "twice"
    folder.mkdir()
    (folder / "cloud_prices.csv").write_text(
        (DATA_DIR / "cloud_prices.csv").read_text().replace("price_per_gpu_hour,", "price_per_gpu_hour,currency,", 1)
    )
    with pytest.raises(costmodel.CatalogError, match="given twice"):
        costmodel.load_catalog_overrides(folder)
    curves = (DATA_DIR / "serving_curves.csv").read_text(encoding="utf-8").splitlines()
    first = curves[1].split(",")
    folder = tmp_path / "curves"
    folder.mkdir()
    (folder / "serving_curves.csv").write_text(
        "\n".join([curves[0], curves[1], ",".join([first[0] + "-again", *first[1:]])]) + "\n", encoding="utf-8"
    )
    with pytest.raises(costmodel.CatalogError, match="one point per concurrency"):
        costmodel.load_catalog_overrides(folder)


def test_stage_names_and_causes_are_names(tmp_path, capsys):
    """Stage names differing only by a trailing space, and a blank cause name, were accepted."""
    data = patched_data("deepseek-v3-stages")
    data["workload"]["stages"][1]["name"] = data["workload"]["stages"][0]["name"] + " "
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and "stage names repeat" in err
    data = patched_data("llama31-405b-as-published")
    data["workload"]["goodput"]["causes"]["   "] = 1
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and "causes" in err and "only spaces" in err


# Issue 31's deliverables tried as a hostile user would (H1, H2, ...: the report of that pass).


@pytest.mark.parametrize(
    "args",
    [
        ["report", R1, "--volume-max=--"],
        ["compare", R1, "--volume-max=--"],
        ["compare", R1, "--volume=--"],
        ["report", R1, "--out=--"],
        ["batch", R1, "--out=--"],
        ["export", R2, "--xlsx=--"],
    ],
)
def test_a_lone_double_dash_as_an_option_value_exits_2(args, capsys):
    """H1: ``--volume-max=--`` reached the command as an empty list (argparse drops the "--"), a
    TypeError traceback with exit 1; ``--xlsx=--`` said "say what to write"."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "expected one value, got '--'" in err and args[-1].split("=")[0] in err and "Traceback" not in err


def test_length_and_whole_number_messages_say_what_the_rule_is(tmp_path, capsys):
    """H2: an option label of 81 characters read "Value should have at most 80 items after validation,
    not 81" (pydantic's words for a list), a count written 2.0 "must be a whole number (got 2.0)"."""
    data = patched_data(R1)
    data["options"]["rent"]["label"] = "x" * 81
    data["options"]["rent"]["gpu_count"] = 2.0
    data["options"]["api"]["label"] = "é" * 85
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and "items" not in err
    assert "options.rent.label: must be at most 80 characters long, not 81" in err
    assert "options.api.label: must be at most 80 characters long, not 85" in err
    assert "options.rent.gpu_count: must be written as a whole number, without a decimal point (2, not 2.0)" in err
    data = patched_data(R1)
    data["options"]["rent"]["gpu_count"] = 2.5
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and "options.rent.gpu_count: must be a whole number" in err and "decimal point" not in err


@pytest.mark.parametrize("volume", [1.0e7, 1.0e9, 1.0e11])
def test_a_sweep_point_names_its_winner_with_the_point_s_own_gpu_count(volume, tmp_path, capsys):
    """H3: a sweep of R1's volume to 1e11 tokens/day named the winner "Own cluster: 1 × dgx-h100
    (8 × H100-SXM-80GB)", the base scenario's count, where ``compare`` at that volume buys 58
    servers and says so."""
    from costmodel.domain.portfolio import sweep_columns

    data = patched_data(R1)
    data["workload"]["tokens_per_day"] = volume
    code, out, _ = run(["compare", str(write_scenario(tmp_path, data)), "--json", "--no-uncertainty"], capsys)
    assert code == 0
    expected = json.loads(out)["decision"]["winner_label"]
    columns = sweep_columns(costmodel.load_scenario(R1), {"workload.tokens_per_day": np.array([1.0e7, volume])}, R1)
    assert columns["winner_label"][1] == expected
    if volume == 1.0e11:
        assert expected.startswith("Own cluster: 58 × dgx-h100") and "stepped up" in expected


def test_an_output_named_only_xlsx_is_refused_for_what_it_is(tmp_path, capsys):
    """H4: ``export --xlsx .xlsx`` said the path "does not end in .xlsx" (pathlib takes ``.xlsx`` for a
    hidden file with no suffix)."""
    code, _, err = run(["export", R2, "--xlsx", str(tmp_path / ".xlsx")], capsys)
    assert code == 2 and "is only the ending .xlsx: give a name before it" in err and "does not end" not in err
    assert not (tmp_path / ".xlsx").exists()


def test_what_if_without_jupyterlab_names_the_extra_and_exits_2(tmp_path, capsys, monkeypatch):
    """H5: ``costmodel what-if R1`` without the interactive extra printed jupyter's usage and "Jupyter
    command `jupyter-lab` not found." (exit 1): jupyter itself is installed with the report stack, so
    the check for a missing JupyterLab never ran."""
    import importlib.util
    import subprocess

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jupyterlab" else real(name, *a))
    monkeypatch.setattr(subprocess, "call", lambda *a, **k: pytest.fail("JupyterLab was started"))
    code, out, err = run(["what-if", R1, "--out", str(tmp_path)], capsys)
    assert code == 2 and "costmodel what-if needs jupyterlab" in err and "pip install 'costmodel[interactive]'" in err
    assert (tmp_path / f"{R1}.ipynb").is_file()


def test_the_what_if_panel_without_ipywidgets_names_the_extra():
    """H6: ``costmodel.what_if`` without the interactive extra raised a bare ``No module named
    'ipywidgets'``; the other extras' features raise ExtraNotInstalled with the pip command."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['ipywidgets'] = None\n"
        "import costmodel\n"
        "from costmodel.extras import ExtraNotInstalled\n"
        "try:\n    costmodel.what_if\nexcept ExtraNotInstalled as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "costmodel.what_if needs ipywidgets: pip install 'costmodel[interactive]'"


def test_report_volume_max_with_too_many_gpu_steps_is_bad_input_before_any_kernel(tmp_path, capsys):
    """H7: ``report R1 --volume-max 1e15`` (inside the option's 0 to 1e15) started the kernel, failed in
    cell 4 with the GPU-steps message and exited 1 with a failed notebook; ``compare`` refuses the
    same range as bad input (exit 2), and the README says --volume-max is checked before any kernel."""
    code, _, err = run(["report", R1, "--volume-max", "1e15", "--out", str(tmp_path)], capsys)
    assert code == 2 and f"{R1}: up to 1e+15 tokens/day" in err and "more than 1,000,000 steps" in err
    assert not any(tmp_path.iterdir())
    code, _, err = run(["compare", R1, "--volume-max", "1e15"], capsys)
    assert code == 2 and "more than 1,000,000 steps" in err


@pytest.mark.parametrize(
    "where, label, other",
    [
        (("api",), "Cloud rental", "rent"),  # the rent option's default label
        (("api",), "  cloud   RENTAL ", "rent"),  # as shown: spaces and case aside
        (("rent",), "Own cluster", "own"),
    ],
)
def test_two_options_with_one_label_are_refused(where, label, other, tmp_path, capsys):
    """H8: R1 with the API labelled as the rental ("Cloud rental") was accepted; every chart encodes the
    options by label, so the cost chart drew the two as one series and the cost-components chart
    stacked the rental's and the API's costs into one bar."""
    data = patched_data(R1)
    data["options"][where[0]]["label"] = label
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and f"options.{where[0]}.label: the same label as options.{other}'s" in err


def test_further_offers_with_one_label_are_refused(tmp_path, capsys):
    """H8, further offers: two of api-offers' offers labelled alike."""
    data = patched_data("api-offers")
    data["options"]["apis"][2]["label"] = data["options"]["apis"][0]["label"]
    code, err = problem_of(tmp_path, data, capsys)
    assert code == 2 and "options.apis.2.label: the same label as options.apis.0's" in err


def test_the_batch_index_links_a_report_whose_file_name_holds_url_characters(tmp_path, capsys):
    """H9: ``batch --reports`` over a file named ``plan #2? 100%.yaml`` linked
    ``href="plan #2? 100%-<hash>/report.html"``: the browser reads "#" as the start of a fragment
    and "?" of a query, so the link opened no report."""
    import urllib.parse

    source = tmp_path / "plan #2? 100%.yaml"
    source.write_text((SCENARIO_DIR / f"{R1}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run(["batch", str(source), "--out", str(out), "--reports"], capsys)
    assert code == 0, err
    hrefs = re.findall(r'<a href="([^"]+)"', (out / "index.html").read_text(encoding="utf-8"))
    assert len(hrefs) == 1 and not set("#? ") & set(hrefs[0])
    assert (out / urllib.parse.unquote(hrefs[0])).is_file()


def test_a_saved_what_if_names_no_folder_of_the_machine(tmp_path, monkeypatch):
    """H10: the what-if "save as" file began "# What-if of /home/someone/plans/quote.yaml": the absolute
    path of the machine it was saved on, in a file made to be shared (a report names none)."""
    source = tmp_path / "plans" / "quote.yaml"
    source.parent.mkdir()
    source.write_text((SCENARIO_DIR / f"{R1}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    text = costmodel.what_if(str(source), ["options.rent.gpu_count"]).yaml
    assert text.startswith("# What-if of quote.yaml, saved ") and str(tmp_path) not in text
    monkeypatch.chdir(tmp_path)
    assert costmodel.what_if(str(source), ["options.rent.gpu_count"]).yaml.startswith("# What-if of plans/quote.yaml")


FLEETS = DATA_DIR / "fleets"


def test_a_scenario_given_to_fleet_says_so_in_one_line(capsys):
    """A newcomer's trial: ``costmodel fleet`` on a scenario printed seven lines of Python dicts
    ("kind: Field required (got {'demand': ...})")."""
    path = FLEETS / "llama70b-serving.yaml"
    code, _, err = run(["fleet", str(path)], capsys)
    assert code == 2
    assert err == (
        f"costmodel fleet: {path}: this is a scenario file (no `kind: fleet`): compare it with `costmodel compare`; "
        "a fleet file has kind: fleet and members\n"
    )
    # the same file compares
    assert run(["compare", str(path)], capsys)[0] == 0


def test_a_fleet_given_to_compare_or_batch_says_so_in_one_line(tmp_path, capsys):
    """The reverse: ``compare`` on a fleet file printed six "Field required" and "not a field here" lines;
    ``batch`` over a folder holding one gave that row the same six."""
    path = FLEETS / "two-teams.yaml"
    code, _, err = run(["compare", str(path)], capsys)
    assert code == 2
    assert err == f"costmodel compare: {path}: this is a fleet file (kind: fleet): use `costmodel fleet`\n"
    # without its kind, members and no workload still make it a fleet
    bare = tmp_path / "no-kind.yaml"
    bare.write_text(path.read_text(encoding="utf-8").replace("kind: fleet\n", ""), encoding="utf-8")
    assert run(["compare", str(bare)], capsys)[2].endswith(
        "this is a fleet file (kind: fleet): use `costmodel fleet`\n"
    )
    folder = tmp_path / "plans"
    folder.mkdir()
    (folder / "fleet.yaml").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "r1.yaml").write_text((SCENARIO_DIR / f"{R1}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    code, _, err = run(["batch", str(folder), "--out", str(tmp_path / "out")], capsys)
    assert code == 1, err
    import pandas as pd

    rows = pd.read_csv(tmp_path / "out" / "portfolio.csv").set_index("scenario")["error"]
    assert rows[str(folder / "fleet.yaml")] == (
        f"{folder / 'fleet.yaml'}: this is a fleet file (kind: fleet): use `costmodel fleet`"
    )
    assert pd.isna(rows[str(folder / "r1.yaml")])

"""End-to-end report rendering (papermill + nbconvert), and the offline check."""

import base64
import json
import re

import pytest

from costmodel.report import ReportError, external_references, render_report


@pytest.mark.parametrize(
    "html, expected",
    [
        ('<script src="https://cdn.example.org/require.js"></script>', 1),
        ("<link rel=stylesheet href='//fonts.example.com/x.css'>", 1),
        ("<style>@import url(https://example.com/a.css);</style>", 1),
        ("<div style=\"background: url('http://example.com/a.png')\"></div>", 1),
        ('<svg xmlns="http://www.w3.org/2000/svg"></svg>', 0),
        ('<img src="data:image/svg+xml;base64,AAAA">', 0),
        ("<p>see https://example.com in the text</p>", 0),
    ],
)
def test_external_references(html, expected):
    assert len(external_references(html)) == expected


@pytest.mark.slow
def test_reference_report_renders_offline(tmp_path):
    report = render_report("llama70b-vs-api", tmp_path)
    assert report.html == tmp_path / "llama70b-vs-api" / "report.html"
    assert report.notebook.exists()
    html = report.html.read_text()
    assert external_references(html) == []
    assert "<script src" not in html and "require.js" not in html and "MathJax.js" not in html
    # charts are SVG drawn by vl-convert, embedded in the page
    charts = re.findall(r'<img[^>]+src="data:image/svg\+xml;base64,([^"]+)"', html)
    # cost against volume, GPUs against volume, components; win probability, savings, tornado; energy and carbon
    assert len(charts) == 7
    drawings = [base64.b64decode(chart).decode() for chart in charts]
    # vl-convert's drawings (with their text), not the stand-ins the page was exported with
    assert all(d.lstrip().startswith("<svg") and "<text" in d and "costmodel chart" not in d for d in drawings)
    # the answer is in the page: API cheaper at 10 M tokens/day, break-even at 34.01 M tokens/day
    assert "<strong>Verdict: Hosted API: Claude Opus 4.5 (Anthropic).</strong>" in html
    assert "<strong>3,548.61 USD/month</strong>" in html  # R1: 11.6667 USD/M tokens x 304.17 M tokens a month
    assert "34.01 M tokens/day" in html
    assert "Energy and carbon" in html and "kg CO2e/month" in html
    executed = json.loads(report.notebook.read_text())
    assert executed["metadata"]["papermill"]["parameters"]["scenario"].endswith("llama70b-vs-api.yaml")
    # the executed notebook holds the same drawings as the page
    kept = [
        "".join(output["data"]["image/svg+xml"])
        for cell in executed["cells"]
        for output in cell.get("outputs", ())
        if "image/svg+xml" in output.get("data", {})
    ]
    assert kept == drawings


def _failing_notebook(path, source='raise RuntimeError("the chart exploded")'):
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "p",
            "metadata": {"tags": ["parameters"]},
            "outputs": [],
            "source": 'scenario = ""',
        },
        {"cell_type": "code", "execution_count": None, "id": "f", "metadata": {}, "outputs": [], "source": source},
    ]
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))
    return path


@pytest.mark.slow
def test_failed_notebook_keeps_the_earlier_report_and_its_own_notebook_beside_it(tmp_path):
    earlier = tmp_path / "out" / "h200-24gpu-cluster" / "report.html"
    earlier.parent.mkdir(parents=True)
    earlier.write_text("<html>an old report</html>")
    earlier.with_suffix(".ipynb").write_text("{}")
    with pytest.raises(ReportError) as caught:
        render_report("h200-24gpu-cluster", tmp_path / "out", notebook=_failing_notebook(tmp_path / "fail.ipynb"))
    message = str(caught.value)
    assert "h200-24gpu-cluster" in message and "RuntimeError" in message and "the chart exploded" in message
    # F32: the earlier page and notebook as they were; the failed run's notebook beside them, named in the message
    assert earlier.read_text() == "<html>an old report</html>" and earlier.with_suffix(".ipynb").read_text() == "{}"
    failed = earlier.parent / "report.failed.ipynb"
    assert str(failed) in message and "the chart exploded" in failed.read_text()
    assert not list(earlier.parent.glob(".*.tmp")) and not list(earlier.parent.glob(".costmodel-*"))


@pytest.mark.slow
def test_a_cell_that_runs_past_the_timeout_is_one_line(tmp_path):
    slow = _failing_notebook(tmp_path / "slow.ipynb", "import time\ntime.sleep(30)")
    with pytest.raises(ReportError) as caught:
        render_report("h200-24gpu-cluster", tmp_path / "out", notebook=slow, timeout=1)
    message = str(caught.value)
    assert "timed out" in message and "after 1 seconds" in message
    assert "\n" not in message and "time.sleep" not in message  # not the cell's text below it


@pytest.mark.slow
def test_training_report_renders_offline(tmp_path):
    report = render_report("llama31-405b-training", tmp_path)
    html = report.html.read_text()
    assert external_references(html) == []
    charts = re.findall(r'<img[^>]+src="data:image/svg\+xml;base64,([^"]+)"', html)
    assert len(charts) == 3  # run cost bars, checkpoint trade-off, energy and carbon
    assert "Daly: 13.3 min" in base64.b64decode(charts[1]).decode()
    assert "28,427,796" in html  # GPU-hours to pay for at 91.3 % goodput
    # by the model cards' method, 28,427,796 GPU-h x 700 W x PUE 1.56; each option from its own power model,
    # a DGX H100's 10.2 kW / 8 GPUs x PUE 1.56
    assert "(GPU-hours × TDP × PUE), for comparison with published figures: 31,043 MWh" in html
    assert "Own cluster <strong>56,543 MWh</strong>" in html


@pytest.mark.slow
@pytest.mark.parametrize("name", ["h200-24gpu-cluster", "h100-10k-cluster"])
def test_finance_reports_show_the_horizon_charts(tmp_path, name):
    report = render_report(name, tmp_path)
    html = report.html.read_text()
    assert external_references(html) == []
    alts = re.findall(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,', html)
    # cost against volume, GPUs, components; then cumulative cost, capex/opex lines, cost per GPU-hour;
    # the H200 scenario declares uncertain inputs: win probability, savings, tornado
    # the H200 scenario also has a demand profile (week, load-duration curve with the mix, cost against
    # level) and uncertain inputs (win probability, savings, tornado); both end with energy and carbon
    assert len(alts) == {"h200-24gpu-cluster": 13, "h100-10k-cluster": 7}[name]
    assert alts[-1].startswith("Bars of energy and emissions")
    assert alts[3].startswith("Cumulative cost") and alts[5].startswith("Own cost per used GPU-hour")
    assert "Payback against" in html
    if name == "h200-24gpu-cluster":
        assert alts[7].startswith("Load-duration curve") and alts[8].startswith("Monthly cost against the GPUs")
        assert alts[11].startswith("Tornado") and "probability of being the cheapest" in html


@pytest.mark.slow
def test_failed_notebook_in_a_kept_kernel_names_its_cell_and_the_kernel_goes_on(tmp_path):
    from costmodel.presentation.svg import ChartDrawer
    from costmodel.report import WarmKernel

    with WarmKernel() as kernel, ChartDrawer() as drawer:
        with pytest.raises(ReportError) as caught:
            render_report(
                "h200-24gpu-cluster",
                tmp_path / "out",
                kernel=kernel,
                drawer=drawer,
                notebook=_failing_notebook(tmp_path / "fail.ipynb"),
            )
        message = str(caught.value)
        # counted as papermill counts in a fresh kernel: parameters 1, injected parameters 2, the failing cell 3
        assert "failed in cell 3: RuntimeError: the chart exploded" in message
        assert not (tmp_path / "out" / "h200-24gpu-cluster" / "report.html").exists()
        # the same kernel renders the next report
        report = render_report("llama31-405b-training", tmp_path / "out", kernel=kernel, drawer=drawer)
        assert "R4: Llama 3.1 405B" in report.html.read_text()


@pytest.mark.slow
def test_a_kept_kernel_that_died_is_restarted_for_the_next_report(tmp_path):
    import os
    import signal

    from costmodel.presentation.svg import ChartDrawer
    from costmodel.report import WarmKernel

    def mine(signum, frame):
        raise KeyboardInterrupt

    before = {number: signal.signal(number, mine) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        with WarmKernel() as kernel, ChartDrawer() as drawer:
            dead = kernel.km.provisioner.pid
            os.kill(dead, signal.SIGKILL)
            kernel.km.provisioner.process.wait()
            # (a shutdown of the dead kernel used to close the manager's ZeroMQ context: "Operation not supported")
            report = render_report("llama31-405b-training", tmp_path / "out", kernel=kernel, drawer=drawer)
            assert "R4: Llama 3.1 405B" in report.html.read_text()
            assert kernel.km.provisioner.pid != dead
            # nbclient's own handlers (which killed the kernel on Ctrl-C, then reset both signals to
            # Python's defaults) are not left in place of the caller's
            assert signal.getsignal(signal.SIGINT) is mine and signal.getsignal(signal.SIGTERM) is mine
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def test_the_runner_reads_title_and_kind_without_importing_the_models():
    # the kernel validates the scenario (its first cells); the runner only parses the YAML for the
    # notebook to run and the page's title: the models' import is 0.6 s of CPU the kernel needs
    import subprocess
    import sys

    import yaml

    from costmodel.paths import SCENARIO_DIR

    code = (
        "import sys; from costmodel.paths import scenario_path; from costmodel.report import _title_and_kind; "
        "print(repr(_title_and_kind(scenario_path('deepseek-v3-training'), None))); "
        "print([m for m in ('pydantic', 'numpy', 'costmodel.schema', 'costmodel.catalog') if m in sys.modules])"
    )
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    title = yaml.safe_load((SCENARIO_DIR / "deepseek-v3-training.yaml").read_text())["title"]
    assert lines == [repr((title, "training")), "[]"]


def test_a_scenario_without_a_kind_is_refused_by_the_runner_itself(tmp_path):
    from costmodel.errors import ScenarioError
    from costmodel.report import _title_and_kind

    path = tmp_path / "no-kind.yaml"
    path.write_text("title: No kind\nworkload:\n  tokens_per_day: 1.0e+7\n")
    with pytest.raises(ScenarioError, match=r"workload"):
        _title_and_kind(path, None)

"""`costmodel report --volume-max V`, and a report that names no folder of the machine it was made on (issue 31)."""

import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from costmodel.cli import main
from costmodel.paths import DATA_DIR, SCENARIO_DIR, relative_path, shown_path
from costmodel.presentation.safe import markdown
from costmodel.report import local_paths, without_local_paths

REPO = Path(__file__).resolve().parent.parent
R1 = "llama70b-vs-api"


@pytest.mark.parametrize(
    "value, message",
    [
        ("0", "argument --volume-max: must be above 0"),
        ("-5", "argument --volume-max: must be a number from 0 to 1e15, got '-5'"),
        ("nan", "argument --volume-max: must be a number from 0 to 1e15, got 'nan'"),
        ("inf", "argument --volume-max: must be a number from 0 to 1e15, got 'inf'"),
        ("2e15", "argument --volume-max: must be a number from 0 to 1e15, got '2e15'"),
        ("lots", "argument --volume-max: not a number: 'lots'"),
    ],
)
def test_volume_max_must_be_a_positive_finite_number(tmp_path, capsys, value, message):
    assert main(["report", R1, "--out", str(tmp_path / "out"), "--volume-max", value]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_volume_max_below_the_volume_or_for_a_training_run_is_refused_before_any_kernel(tmp_path, capsys):
    out = tmp_path / "out"
    # R1 compares at 10,000,000 tokens/day: an axis that ends at 1,000,000 would not reach it
    assert main(["report", R1, "--out", str(out), "--volume-max", "1e6"]) == 2
    err = capsys.readouterr().err
    assert f"{R1}: --volume-max 1e+06: below the volume compared at (1e+07 tokens/day" in err
    assert "in tokens/day, so give one at least as large" in err
    # R2's unit is GPU-hours a month: 12,000
    assert main(["report", "h200-24gpu-cluster", "--out", str(out), "--volume-max", "11999"]) == 2
    assert "(12000 GPU-hours/month, the scenario's volume)" in capsys.readouterr().err
    # a training run has no volume axis; each scenario it does not fit is named, and nothing is written
    assert main(["report", R1, "deepseek-v3-training", "--out", str(out), "--volume-max", "5e7"]) == 2
    err = capsys.readouterr().err
    assert "deepseek-v3-training: --volume-max 5e+07: a training workload is one run" in err
    assert f"{R1}:" not in err
    assert not out.exists()


def test_shown_path_is_relative_inside_the_working_directory_and_the_name_outside(tmp_path, monkeypatch):
    (tmp_path / "work" / "plans").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    assert shown_path(tmp_path / "work" / "plans" / "r1.yaml") == "plans/r1.yaml"
    assert shown_path("plans/r1.yaml") == "plans/r1.yaml"
    assert shown_path(tmp_path / "elsewhere" / "r1.yaml") == "r1.yaml"
    assert shown_path(tmp_path / "work") == "."
    assert relative_path(tmp_path / "elsewhere" / "r1.yaml") == "../elsewhere/r1.yaml"


def test_local_paths_are_replaced_in_every_text_of_a_notebook(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "catalog").mkdir(parents=True)
    monkeypatch.chdir(work)
    scenario = tmp_path / "plans" / "r&d.yaml"
    scratch = work / "reports" / "r1" / ".costmodel-x"
    notebook = {
        "metadata": {
            "papermill": {
                "input_path": str(REPO / "notebooks" / "break_even.ipynb"),
                "output_path": str(scratch / "report.ipynb"),
                "parameters": {"scenario": str(scenario), "catalog": str(work / "catalog")},
            }
        },
        "cells": [
            {
                "source": f"scenario = {str(scenario)!r}\n",
                "outputs": [
                    {
                        "data": {
                            "text/html": [
                                f"<code>costmodel what-if {str(scenario).replace('&', '&amp;')}</code>",
                                f"{work / 'catalog' / 'cloud_prices.csv'}: my-quote",
                            ],
                            "text/markdown": markdown(f"rows from {work / 'catalog' / 'cloud_prices.csv'}"),
                            "text/plain": f"{tmp_path / 'plans' / 'claims.csv'} and {Path.home() / 'x'}",
                        }
                    }
                ],
            }
        ],
    }
    pairs = local_paths(scenario, work / "catalog", REPO / "notebooks" / "break_even.ipynb", (scratch,))
    without_local_paths(notebook, pairs)
    meta = notebook["metadata"]["papermill"]
    assert meta["input_path"] == "break_even.ipynb" and meta["output_path"] == "report.ipynb"
    assert meta["parameters"] == {"scenario": "r&d.yaml", "catalog": "catalog"}
    cell = notebook["cells"][0]
    assert cell["source"] == "scenario = 'r&d.yaml'\n"
    assert cell["outputs"][0]["data"]["text/html"] == [
        "<code>costmodel what-if r&amp;d.yaml</code>",
        "catalog/cloud_prices.csv: my-quote",
    ]
    assert cell["outputs"][0]["data"]["text/plain"] == "claims.csv and ~/x"
    assert cell["outputs"][0]["data"]["text/markdown"] == markdown("rows from catalog/cloud_prices.csv")


def _no_local_path(text: str, *extra: Path) -> None:
    for path in (*extra, REPO, Path.home(), Path(tempfile.gettempdir()), Path(sys.prefix)):
        assert f"{path}/" not in text, path


@pytest.mark.slow
def test_report_volume_max_ends_the_axis_and_the_page_names_no_local_folder(tmp_path, monkeypatch, capsys):
    work, plans = tmp_path / "work", tmp_path / "plans"
    (work / "catalog").mkdir(parents=True)
    plans.mkdir()
    header = (DATA_DIR / "cloud_prices.csv").read_text().splitlines()[0]
    (work / "catalog" / "cloud_prices.csv").write_text(
        header + "\nmy-quote-h100,Example quote,H100-SXM-80GB,on_demand,2.00,USD,P,2026-11,"
        '"Quote received 2026-11 (test row)",\n'
    )
    text = (SCENARIO_DIR / f"{R1}.yaml").read_text().replace("offer: r1-brief-h100", "offer: my-quote-h100")
    assert "my-quote-h100" in text
    (plans / "r1.yaml").write_text(text)
    monkeypatch.chdir(work)
    assert (
        main(
            [
                "report",
                str(plans / "r1.yaml"),
                "--out",
                str(work / "reports"),
                "--catalog",
                "catalog",
                "--volume-max",
                "5e7",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert re.fullmatch(
        r"r1-[0-9a-f]{8}: wrote reports/r1-[0-9a-f]{8}/report\.html \([0-9,]+ KiB\) in [0-9.]+ s\n", out
    ), out
    folder = next((work / "reports").iterdir())
    html = (folder / "report.html").read_text()
    notebook = (folder / "report.ipynb").read_text()
    for page in (html, notebook, out):
        _no_local_path(page, tmp_path)
    # the axis of the cost-against-volume chart ends at 50 M tokens/day, not at 10 x the volume (100 M)
    assert '"scale":{"domain":[0.0,50.0],"nice":false},"title":"Volume [M tokens/day]"' in html
    # the quote's 2.00 USD/GPU-h: 2 GPUs x 2.00 x 730 h + one FTE (6,000 EUR x 1.16) = 9,880 USD/month
    assert "Cloud rental 9,880 USD/month" in html
    # the catalog row is cited by its path under the working directory; the scenario outside it by its name
    assert "catalog/cloud_prices.csv: my-quote-h100 [P, 2026-11]" in html
    assert "costmodel what-if r1.yaml" in html
    shutil.rmtree(work / "reports")


@pytest.mark.slow
def test_batch_reports_index_names_no_local_folder(tmp_path, monkeypatch, capsys):
    work, plans = tmp_path / "work", tmp_path / "plans"
    work.mkdir()
    plans.mkdir()
    (plans / "r1.yaml").write_text((SCENARIO_DIR / f"{R1}.yaml").read_text())
    monkeypatch.chdir(work)
    assert main(["batch", str(plans / "r1.yaml"), "--out", "out", "--reports"]) == 0
    index = (work / "out" / "index.html").read_text()
    _no_local_path(index, tmp_path)
    assert "<td>r1.yaml</td>" in index  # the table's scenario column: the file's name
    report = next((work / "out").glob("r1-*/report.html")).read_text()
    _no_local_path(report, tmp_path)

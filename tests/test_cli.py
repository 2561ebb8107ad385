"""The command line: compare, and errors for bad input."""

import json
import subprocess
import sys

import pytest
import yaml

from costmodel.cli import main
from costmodel.paths import SCENARIO_DIR


def test_compare_json(capsys):
    assert main(["compare", "llama70b-vs-api", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cheapest"] == "api"
    assert data["options"]["rent"]["monthly_cost"] == pytest.approx(12070.0)
    assert data["options"]["api"]["cost_per_gpu_hour"] == "not applicable"
    pairs = {tuple(b["options"]): b["volume"] for b in data["break_evens"]}
    assert pairs[("own", "rent")] == "never"
    assert pairs[("rent", "api")] == pytest.approx(34.013e6, rel=1e-3)


def test_compare_text(capsys):
    assert main(["compare", "h200-24gpu-cluster"]) == 0
    out = capsys.readouterr().out
    assert "cheapest: Own cluster" in out and "9,759 GPU-hours/month" in out


def test_compare_at_zero_volume_says_not_defined(capsys):
    assert main(["compare", "h200-24gpu-cluster", "--json", "--volume", "0", "--volume-max", "20000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["options"]["own"]["cost_per_gpu_hour"] == "not defined"


def test_bad_scenario_exits_2_and_names_the_field(tmp_path, capsys):
    data = yaml.safe_load((SCENARIO_DIR / "llama70b-vs-api.yaml").read_text())
    data["options"]["api"]["offer"] = "no-such-offer"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["compare", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "options.api.offer" in err and "unknown API offer" in err


def test_import_does_not_load_the_report_stack():
    code = ("import sys, costmodel; costmodel.compare(costmodel.load_scenario('llama70b-vs-api')); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'altair', 'papermill', 'nbconvert', 'vl_convert', 'IPython'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

"""Loading, saving and rejecting scenario files."""

from pathlib import Path

import pydantic
import pytest
import yaml

import costmodel
from costmodel import ScenarioError
from costmodel.paths import SCENARIO_DIR

R1_FILE = SCENARIO_DIR / "llama70b-vs-api.yaml"


def r1_data() -> dict:
    return yaml.safe_load(R1_FILE.read_text())


def write(tmp_path: Path, data, name="bad.yaml") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def load_error(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        costmodel.load_scenario(path)
    return caught.value


@pytest.mark.parametrize("name", ["llama70b-vs-api", "h200-24gpu-cluster"])
def test_round_trip_through_yaml(tmp_path, name):
    scenario = costmodel.load_scenario(name)
    saved = costmodel.save_scenario(scenario, tmp_path / f"{name}.yaml")
    assert saved.stat().st_mode & 0o044 == 0o044  # readable like any file, not 0600
    again = costmodel.load_scenario(saved)
    assert again == scenario
    assert (
        costmodel.comparison_output(costmodel.compare(again), again, uncertainty=False).model_dump()
        == costmodel.comparison_output(costmodel.compare(scenario), scenario, uncertainty=False).model_dump()
    )


def test_missing_field(tmp_path):
    data = r1_data()
    del data["options"]["own"]["depreciation_months"]
    error = load_error(write(tmp_path, data))
    assert len(error.problems) == 1
    field, _, reason = error.problems[0]
    assert field == "options.own.depreciation_months"
    assert "required" in reason.lower()
    assert str(tmp_path / "bad.yaml") in str(error)


def test_always_on_rental_needs_a_gpu_count(tmp_path):
    data = r1_data()
    del data["options"]["rent"]["gpu_count"]
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.rent.gpu_count"]
    assert "always_on billing needs the number of GPUs" in error.problems[0][2]


def test_per_hour_rental_takes_no_gpu_count(tmp_path):
    data = r1_data()
    data["options"]["rent"]["billing"] = "per_gpu_hour_used"
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.rent.gpu_count"]


def test_negative_price(tmp_path):
    data = r1_data()
    data["options"]["own"]["power"]["electricity_price_per_kwh"] = -0.19
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.own.power.electricity_price_per_kwh"]
    assert error.problems[0][1] == -0.19
    assert "greater than or equal to 0" in error.problems[0][2]
    assert "-0.19" in str(error)


def test_unknown_gpu(tmp_path):
    data = r1_data()
    data["workload"]["gpu"] = "H900-SXM"
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["workload.gpu"]
    assert "unknown GPU" in error.problems[0][2] and "H100-SXM-80GB" in error.problems[0][2]


def test_unknown_server(tmp_path):
    data = r1_data()
    data["options"]["own"]["server"] = "dgx-h900"
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.own.server"]
    assert "unknown server" in error.problems[0][2]


def test_currency_without_rate(tmp_path):
    data = r1_data()
    data["options"]["rent"]["staffing"]["currency"] = "GBP"
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.rent.staffing.currency"]
    assert "no FX rate from GBP to USD" in error.problems[0][2]


def test_malformed_currency_code(tmp_path):
    data = r1_data()
    data["options"]["rent"]["staffing"]["currency"] = "euro"
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.rent.staffing.currency"]


def test_yaml_syntax_error(tmp_path):
    text = R1_FILE.read_text().replace("gpu_count: 2", "gpu_count: [2", 1)
    error = load_error(write(tmp_path, text))
    assert len(error.problems) == 1
    field, _, reason = error.problems[0]
    assert field.startswith("line ")
    assert "YAML syntax error" in reason


def test_misspelt_field_is_rejected(tmp_path):
    data = r1_data()
    data["options"]["rent"]["gpu_cuont"] = 2
    error = load_error(write(tmp_path, data))
    assert "options.rent.gpu_cuont" in [p[0] for p in error.problems]


def test_api_needs_a_tokens_workload(tmp_path):
    data = yaml.safe_load((SCENARIO_DIR / "h200-24gpu-cluster.yaml").read_text())
    data["options"]["api"] = {"offer": "anthropic-claude-opus-4-5"}
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.api"]


def test_gpu_of_option_must_match_workload(tmp_path):
    data = r1_data()
    data["options"]["rent"]["offer"] = "nebius-h200"
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["options.rent.offer"]
    assert "H200-SXM-141GB" in error.problems[0][2]


def test_not_a_mapping(tmp_path):
    error = load_error(write(tmp_path, "- just\n- a list\n"))
    assert error.problems[0][0] == "(top level)"


def test_missing_file(tmp_path):
    error = load_error(tmp_path / "nowhere.yaml")
    assert "cannot be read" in str(error)


def test_several_problems_reported_at_once(tmp_path):
    data = r1_data()
    data["options"]["rent"]["gpu_count"] = 0
    data["options"]["api"]["cached_input_share"] = 1.5
    error = load_error(write(tmp_path, data))
    assert {p[0] for p in error.problems} == {"options.rent.gpu_count", "options.api.cached_input_share"}


@pytest.mark.parametrize("value", [".inf", ".nan", "-.inf"])
def test_infinite_or_nan_numbers_are_rejected(tmp_path, value):
    text = R1_FILE.read_text().replace("tokens_per_day: 10000000", f"tokens_per_day: {value}", 1)
    error = load_error(write(tmp_path, text))
    assert [p[0] for p in error.problems] == ["workload.tokens_per_day"]


def test_yaml_error_on_the_last_line(tmp_path):
    error = load_error(write(tmp_path, "title: [1, 2\n"))
    (problem,) = error.problems
    assert problem[0].startswith("line 2") and "YAML syntax error" in problem[2]


def test_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes('title: "caf\xe9"\n'.encode("latin-1"))
    error = load_error(path)
    assert str(path) in str(error) and "not UTF-8" in str(error)


def test_duplicate_key(tmp_path):
    text = R1_FILE.read_text().replace("tokens_per_day: 10000000", "tokens_per_day: 10000000\n  tokens_per_day: 99")
    error = load_error(write(tmp_path, text))
    (problem,) = error.problems
    assert "tokens_per_day" in problem[2] and "given twice" in problem[2]


@pytest.mark.parametrize(
    "field, value",
    [("depreciation_months", 10**300), ("depreciation_months", 0), ("server_count", True), ("server_count", 2.5)],
)
def test_counts_are_whole_and_bounded(tmp_path, field, value):
    data = r1_data()
    data["options"]["own"][field] = value
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == [f"options.own.{field}"]


def test_a_rate_for_the_reporting_currency_is_an_error(tmp_path):
    data = r1_data()
    data["fx"]["rates"]["USD"] = 2.0
    error = load_error(write(tmp_path, data))
    assert [p[0] for p in error.problems] == ["fx.rates.USD"]


def test_loaded_scenarios_cannot_be_changed_in_place():
    scenario = costmodel.load_scenario("llama70b-vs-api")
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        scenario.options.rent = None

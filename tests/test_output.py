"""The output contract (issue 19): one typed model, a shipped JSON Schema, numbers never strings.

Every bundled scenario's ``compare --json`` validates against the committed
data/schemas/output.schema.json; generated scenarios never put a string, NaN or infinity
where a number goes; R2's JSON carries its cost components, finance, mix and uncertainty.
"""

import json
import math
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from conftest import numeric_paths, patched_data, write_scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.cli import main
from costmodel.presentation.output import STATUSES, ComparisonOutput

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "data" / "schemas" / "output.schema.json"
SCHEMA = json.loads(SCHEMA_FILE.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def compare_json(capsys, scenario) -> dict:
    assert main(["compare", str(scenario), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_numbers(node, where="") -> int:
    """Assert every quantity is a number or null with a status, and no float is NaN or infinite.

    Returns how many quantities it checked.
    """
    checked = 0
    if isinstance(node, dict):
        if "unit" in node and "value" in node:
            value, status = node["value"], node["status"]
            assert value is None or (isinstance(value, int | float) and not isinstance(value, bool)), where
            assert (value is None) == (status is not None), where
            assert status is None or status in STATUSES, where
            checked += 1
        if "unit" in node and "values" in node:
            assert all(isinstance(v, int | float) and not isinstance(v, bool) for v in node["values"]), where
        for key, value in node.items():
            checked += check_numbers(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            checked += check_numbers(value, f"{where}.{index}")
    elif isinstance(node, float):
        assert math.isfinite(node), where
    return checked


def test_the_committed_schema_is_the_models():
    # the shipped file must be regenerated (`costmodel schema --output`) whenever the model changes
    assert SCHEMA == costmodel.output_json_schema()
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_schema_command_prints_the_output_schema(capsys):
    assert main(["schema", "--output"]) == 0
    assert json.loads(capsys.readouterr().out) == SCHEMA
    assert main(["schema"]) == 0  # without --output: the scenario file's schema (issue 16)
    assert json.loads(capsys.readouterr().out)["title"] == "Scenario"


@pytest.mark.parametrize("name", costmodel.bundled_scenarios())
def test_every_bundled_scenario_validates(name, capsys):
    data = compare_json(capsys, name)
    VALIDATOR.validate(data)
    assert data["schema_version"] == costmodel.SCHEMA_VERSION == "2.5.0"
    assert data["costmodel_version"] == costmodel.__version__
    assert check_numbers(data) > 20
    # reading it back with the model gives the same document
    assert ComparisonOutput.model_validate(data).model_dump(mode="json") == data


def test_the_schema_refuses_a_word_in_a_number():
    # what the old format did: "not applicable" in a cost per GPU-hour
    scenario = costmodel.load_scenario("deepseek-v3-training")
    data = costmodel.comparison_output(costmodel.compare(scenario), scenario).model_dump(mode="json")
    VALIDATOR.validate(data)
    data["options"]["rent"]["cost_per_gpu_hour_used"]["value"] = "not applicable"
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(data)
    data["options"]["rent"]["cost_per_gpu_hour_used"] = {"value": None, "unit": "USD/GPU-h", "status": None}
    with pytest.raises(jsonschema.ValidationError):  # null without a reason
        VALIDATOR.validate(data)


def r2_campaign_peak():
    """R2's campaigns by hand: 14 days at the campaign level, 16 at a quarter of it, in each 30 days of 8,760 hours."""
    hours = np.arange(8760)
    level = np.where(hours % 720 < 14 * 24, 1.0, 0.25)
    return 12_000 / 730 / level.mean()  # the busiest hour, in GPUs busy


def test_r2_has_components_finance_mix_and_uncertainty(capsys):
    data = compare_json(capsys, "h200-24gpu-cluster")
    own = data["options"]["own"]
    # the campaigns peak at 27.1 GPUs busy; at the 0.9 ceiling that needs 30.2 GPUs: 4 DGX H200 (issue 26)
    peak = r2_campaign_peak()
    assert peak == pytest.approx(27.149, abs=1e-3)
    assert own["gpus"]["value"] == 8 * math.ceil(peak / 0.9 / 8) == 32
    # by hand: capex 4 x 350,000 x 1.094 + 125,000 + 4 x 15,000 = 1,716,600 over 60 months, support 10 %/year,
    # colocation 4 x 10.2 kW x 194.95, electricity 10.2 kW x 1.56 x 0.0707 x 730 x (4 x 0.3 + 0.7 x 12,000 / 5,840),
    # staffing (0.5 + 32 / 250) FTE x 240,000 / 12
    capex = 4 * 350_000 * 1.094 + 125_000 + 4 * 15_000
    by_hand = (
        capex / 60
        + capex * 0.10 / 12
        + 4 * 10.2 * 194.95
        + 10.2 * 1.56 * 0.0707 * 730 * (4 * 0.3 + 0.7 * 12_000 / (8 * 730))
        + (0.5 + 32 / 250) * 20_000
    )
    assert own["monthly_cost"]["value"] == pytest.approx(by_hand, rel=1e-9)
    assert set(own["components"]) >= {"capex_depreciation", "hardware_support", "colocation", "electricity", "staffing"}
    assert sum(c["value"] for c in own["components"].values()) == pytest.approx(own["monthly_cost"]["value"], abs=1e-5)
    assert all(c["unit"] == "USD/month" for c in own["components"].values())
    finance = data["finance"]
    # R2 over 60 months: renting by the GPU-hour is 12,000 x 4.50 x 60 = 3.24 M; owning 4 servers never pays back
    assert finance["tco"]["rent"]["value"] == pytest.approx(3.24e6, rel=1e-12)
    assert finance["payback_month"] == {"value": None, "unit": "months", "status": "never"}
    flows = finance["cash_flows_by_year"]
    assert flows["years"] == [1, 2, 3, 4, 5] and flows["months_in_year"] == [12] * 5
    for option in ("own", "rent"):  # TCO is the sum of the cash flows over the horizon
        assert sum(flows["options"][option]["total"]["values"]) == pytest.approx(
            finance["tco"][option]["value"], abs=0.05
        )
    # the decision ranks every way to pay on present value; the rented 1-year reserved base wins
    decision = data["decision"]
    assert decision["measure"] == "present_value" and decision["winner"] == "rent.reserved"
    figures = {c["id"]: c["figure"]["value"] for c in decision["candidates"]}
    assert figures["own"] == pytest.approx(finance["npv"]["own"]["value"], abs=0.01)
    assert figures["rent"] == pytest.approx(finance["npv"]["rent"]["value"], abs=0.01)
    mix = data["cheapest_mix"]
    assert mix["total"]["value"] == pytest.approx(
        sum(c["cost"]["value"] for c in mix["layers"].values()) + mix["rental_staffing"]["value"], abs=0.05
    )
    u = data["uncertainty"]
    assert u["tracked_option"] == "own" and u["samples"]["value"] == 100_000
    for p in u["cost_percentiles"].values():
        assert p["p10"]["value"] <= p["p50"]["value"] <= p["p90"]["value"]
    assert sum(w["value"] for w in u["win_fraction"].values()) == pytest.approx(1.0)
    bars = u["tornado"]
    assert bars and [b["swing"]["value"] for b in bars] == sorted((b["swing"]["value"] for b in bars), reverse=True)
    indices = u["sobol"]["indices"]
    assert indices and all(0 <= i["total_share"]["value"] <= 1.5 for i in indices.values())


def test_absent_blocks_are_explicit_nulls(capsys):
    data = compare_json(capsys, "deepseek-v3-training")
    for section in ("finance", "cheapest_mix", "serving", "uncertainty"):
        assert section in data and data[section] is None, section
    assert data["training_run"]["gpu_hours"]["unit"] == "GPU-h"


def test_python_api_returns_the_same_document(capsys):
    scenario = costmodel.load_scenario("h200-job-log")
    result = costmodel.compare(scenario)
    assert isinstance(result, costmodel.Comparison)
    doc = costmodel.comparison_output(result, scenario)
    assert doc.model_dump(mode="json") == compare_json(capsys, "h200-job-log")
    assert isinstance(doc.decision.margin.value, float) and doc.options["own"].gpus.value == 56
    assert costmodel.comparison_text(doc) == costmodel.comparison_text(doc.comparison)


# Names that planning tools import; removing one must go through a deprecation, not vanish.
PUBLIC_NAMES = {
    "BreakEven",
    "Catalog",
    "CatalogError",
    "CloudRental",
    "Colocation",
    "Columns",
    "Comparison",
    "ComparisonOutput",
    "Component",
    "Count",
    "DAYS_PER_MONTH",
    "FXRates",
    "GPUHoursWorkload",
    "HOURS_PER_MONTH",
    "HostedAPI",
    "InputError",
    "OPTION_LABELS",
    "OptionResult",
    "Options",
    "OwnCluster",
    "Power",
    "Quantity",
    "Resolved",
    "SCHEMA_VERSION",
    "Scenario",
    "ScenarioError",
    "Series",
    "Staffing",
    "TokensWorkload",
    "TrainingWorkload",
    "break_even",
    "break_evens",
    "bundled_scenarios",
    "capacity_volume",
    "cheapest_by_volume",
    "compare",
    "comparison_output",
    "comparison_text",
    "cost_sweep",
    "cost_table",
    "default_catalog",
    "default_volume_max",
    "energy_result",
    "gpu_count",
    "gpu_hours_used",
    "gpus_needed",
    "load_catalog",
    "load_scenario",
    "monthly_cost",
    "monthly_cost_components",
    "output_json_schema",
    "resolve",
    "save_scenario",
    "scenario_path",
    "step_volumes",
    "tokens_per_month",
    "validate_data",
    "with_inputs",
}


def test_no_public_name_disappears():
    missing = PUBLIC_NAMES - set(costmodel.__all__)
    assert not missing, f"public names removed without a deprecation: {sorted(missing)}"
    for name in costmodel.__all__:
        assert getattr(costmodel, name) is not None, name


# --- generated scenarios -----------------------------------------------------------------------------------

BASES = (
    "llama70b-vs-api",
    "h200-24gpu-cluster",
    "h200-job-log",
    "h100-10k-cluster",
    "deepseek-v3-training",
    "llama31-405b-training",
    "llama70b-interactive",
    "deepseek-v3-serving",
    "deepseek-v3-stages",
)


def scale_path(data, path, factor):
    node = data
    *parents, last = path.split(".")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    index = int(last) if isinstance(node, list) else last
    old = node[index]
    node[index] = round(old * factor) if isinstance(old, int) else old * factor


@st.composite
def scenarios(draw):
    """A bundled scenario (without its uncertainty block) with one to four inputs scaled by 0 to 5."""
    data = patched_data(draw(st.sampled_from(BASES)), drop=("uncertainty",))
    paths = sorted(numeric_paths(data))
    for path in draw(st.lists(st.sampled_from(paths), min_size=1, max_size=4, unique=True)):
        scale_path(data, path, draw(st.one_of(st.just(0.0), st.floats(0.25, 4.0))))
    return data


def test_generated_scenarios_never_put_a_word_or_nan_in_a_number(tmp_path, capsys):
    compared = []

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=scenarios())
    def check(data):
        path = write_scenario(tmp_path, data, "generated.yaml")
        code = main(["compare", str(path), "--json"])
        captured = capsys.readouterr()
        assert code in (0, 2), captured.err
        if code == 2:  # refused with a message naming the field (tests/test_fuzz.py checks those)
            return
        assert "NaN" not in captured.out and "Infinity" not in captured.out
        result = json.loads(captured.out)
        VALIDATOR.validate(result)
        assert check_numbers(result) > 10
        compared.append(path)

    check()
    assert len(compared) >= 5  # most generated scenarios are valid: the check ran on real output


def test_a_comparison_shows_a_short_repr_and_a_table_in_a_notebook():
    # Issue 31: compare() showed a 22,000-character repr in a notebook.
    doc = costmodel.comparison_output(costmodel.compare("llama70b-vs-api"))
    text = repr(doc)
    assert len(text) < 300 and "api cheapest on monthly_cost" in text and "8,521.39 USD/month" in text
    html = doc._repr_html_()
    assert html.count("<tr>") == 4 and "Hosted API: Claude Opus 4.5 (Anthropic)" in html and "+8,521.39" in html


def test_the_package_is_typed_and_every_bundled_scenario_names_its_schema():
    from pathlib import Path

    root = Path(costmodel.__file__).parent
    assert (root / "py.typed").exists()
    for path in sorted((root.parent / "data" / "scenarios").glob("*.yaml")):
        first = path.read_text().splitlines()[0]
        assert first == "# yaml-language-server: $schema=../schemas/scenario.schema.json", path.name

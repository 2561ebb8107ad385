"""Claims on any figure of the output (issue 30): a path, a unit, a relation, a baseline.

Reference case R1 (shared/reference/cases.md): the API (Claude Opus 4.5 at 5 / 25 USD per M, 10 M
tokens a day at 2:1) costs 10 x 365/12 x 35/3 = 3,548.61 USD a month; renting 2 H100 at 3.50 USD
for 730 h plus one engineer at EUR 6,000 x 1.16 costs 5,110 + 6,960 = 12,070 USD a month.
"""

from __future__ import annotations

import pytest
import yaml
from conftest import document, patched_data

import costmodel
from costmodel.cli import main
from costmodel.errors import ScenarioError
from costmodel.presentation.figure_claims import convert, lookup

R1 = "llama70b-vs-api"
API = 10 * 365 / 12 * 35 / 3
RENT = 12070.0


def claims_of(tmp_path, claims: list[dict], base: str = R1) -> list[dict]:
    data = patched_data(base, drop=("uncertainty",))
    data["claims"] = claims
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data))
    return document(str(path)).model_dump(mode="json")["claims"]


def test_units_convert_within_their_family():
    def no_rate(a, b):
        raise AssertionError("no currency here")

    assert convert(21.6, "GWh", "kWh", no_rate) == pytest.approx(21.6e6)
    assert convert(3.0, "t CO2e/month", "kg CO2e/month", no_rate) == pytest.approx(3000.0)
    assert convert(2.0, "USD/k tokens", "USD/M tokens", no_rate) == pytest.approx(2000.0)
    assert convert(12.0, "USD/year", "USD/month", no_rate) == pytest.approx(1.0)
    assert convert(28.0, "%", "-", no_rate) == pytest.approx(0.28)
    assert convert(10.0, "EUR/month", "USD/month", lambda a, b: 1.16) == pytest.approx(11.6)
    with pytest.raises(ValueError, match="same kind"):
        convert(1.0, "kWh", "USD", no_rate)


def test_lookup_names_what_is_there():
    doc = {"options": {"api": {"monthly_cost": {"value": 1.0, "unit": "USD/month", "status": None}}}}
    assert lookup(doc, "options.api.monthly_cost") == (1.0, "USD/month", None)
    with pytest.raises(KeyError, match="there: api"):
        lookup(doc, "options.own.monthly_cost")


def test_a_figure_claim_in_its_own_unit_is_confirmed(tmp_path):
    [cost, energy] = claims_of(
        tmp_path,
        [
            {
                "statement": "the API costs 3,548.61 USD a month",
                "kind": "figure",
                "figure": "options.api.monthly_cost",
                "value": 3548.61,
                "tolerance": 1e-6,
            },
            {
                "statement": "the rented GPUs use under 1 MWh a month",
                "kind": "figure",
                "figure": "energy.options.rent.energy_kwh_per_month",
                "value": 1.0,
                "unit": "MWh/month",
            },
        ],
    )
    assert cost["confirmed"] and cost["computed"]["value"] == pytest.approx(API, rel=1e-12)
    assert energy["stated"] == {"value": 1000.0, "unit": "kWh/month", "status": None}


def test_a_ratio_between_options_and_what_would_make_it_hold(tmp_path):
    # API / rent = 3,548.61 / 12,070 = 0.29400; stated 0.2: the API's output price that makes it hold is
    # found with the rent fixed: (0.2 x 12,070 / (10 x 365/12) - 2/3 x 5) x 3 = 13.81 USD per M.
    [claim] = claims_of(
        tmp_path,
        [
            {
                "statement": "the API costs a fifth of renting",
                "kind": "figure",
                "figure": "options.api.monthly_cost",
                "relative_to": "options.rent.monthly_cost",
                "relation": "ratio",
                "value": 0.2,
                "tolerance": 0.01,
            }
        ],
    )
    assert not claim["confirmed"]
    assert claim["computed"]["value"] == pytest.approx(API / RENT, rel=1e-12)
    needed = {c["path"]: c["needed"]["value"] for c in claim["would_hold"]}
    expected = (0.2 * RENT / (10 * 365 / 12) - 2 / 3 * 5) * 3
    assert needed["options.api.output_price_per_million"] == pytest.approx(expected, rel=1e-6)
    assert needed["options.rent.price_per_gpu_hour"] == pytest.approx((API / 0.2 - 6960) / 1460, rel=1e-6)


def test_a_saving_against_a_baseline_scenario(tmp_path):
    # The baseline is R1 with the API at the batch tier (half price): the standard API saves nothing, it
    # costs API / 2 more: saving = baseline - figure = -1,774.31 USD a month.
    base = patched_data(R1, {"options.api.service_tier": "batch"}, drop=("uncertainty",))
    (tmp_path / "batch.yaml").write_text(yaml.safe_dump(base))
    [claim] = claims_of(
        tmp_path,
        [
            {
                "statement": "batch saves half",
                "kind": "figure",
                "baseline": "batch.yaml",
                "figure": "options.api.monthly_cost",
                "relation": "saving",
                "value": -API / 2,
                "tolerance": 1e-9,
            }
        ],
    )
    assert claim["confirmed"], claim


def test_claims_keep_their_order_and_old_kinds_still_check(tmp_path):
    claims = claims_of(
        tmp_path,
        [
            {"statement": "rent 12,070", "kind": "monthly_cost", "option": "rent", "value": 12070},
            {
                "statement": "api share saved",
                "kind": "figure",
                "figure": "options.api.monthly_cost",
                "relative_to": "options.rent.monthly_cost",
                "relation": "share_saved",
                "value": 70.6,
                "unit": "%",
                "tolerance": 0.001,
            },
            {"statement": "gpu hours", "kind": "gpu_hours", "value": 13.395},
        ],
    )
    assert [c["kind"] for c in claims] == ["monthly_cost", "figure", "gpu_hours"]
    assert claims[1]["computed"]["value"] == pytest.approx(1 - API / RENT, rel=1e-12) and claims[1]["confirmed"]


def test_a_path_that_names_no_figure_is_refused_naming_the_claim(tmp_path, capsys):
    data = patched_data(R1, drop=("uncertainty",))
    data["claims"] = [{"statement": "x", "kind": "figure", "figure": "options.own.watts", "value": 1.0}]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["compare", str(path)]) == 2
    err = capsys.readouterr().err
    assert "claims.0.figure" in err and "watts" in err and "monthly_cost" in err


def test_a_unit_of_another_kind_is_refused(tmp_path):
    with pytest.raises(ScenarioError, match="claims.0.unit"):
        claims_of(
            tmp_path,
            [{"statement": "x", "kind": "figure", "figure": "options.api.monthly_cost", "value": 1.0, "unit": "kWh"}],
        )


def test_figure_claims_need_their_words():
    data = patched_data(R1, drop=("uncertainty",))
    for claim, word in (
        ({"kind": "figure", "value": 1.0}, "figure"),
        (
            {
                "kind": "figure",
                "value": 1.0,
                "figure": "options.api.monthly_cost",
                "relative_to": "options.rent.monthly_cost",
            },
            "relation",
        ),
        ({"kind": "monthly_cost", "option": "api", "value": -1.0}, "at least 0"),
    ):
        data["claims"] = [{"statement": "x", **claim}]
        with pytest.raises(Exception, match=word):
            costmodel.validate_data(data)


def test_decision_candidates_state_their_distance_to_the_winner():
    doc = document(R1).model_dump(mode="json")
    rent = next(c for c in doc["decision"]["candidates"] if c["id"] == "rent")
    assert rent["more_than_winner"]["value"] == pytest.approx(RENT - API, abs=0.01)
    assert rent["ratio_to_winner"]["value"] == pytest.approx(RENT / API, rel=1e-6)
    assert rent["share_saved_by_winner"]["value"] == pytest.approx(1 - API / RENT, rel=1e-6)
    winner = doc["decision"]["candidates"][0]
    assert winner["more_than_winner"]["value"] == 0 and winner["ratio_to_winner"]["value"] == 1


def test_throughput_lost_to_the_latency_target_is_an_output():
    # llama70b-interactive: the operating point meets the per-user speed bound on its curve; what it gives up is
    # 1 - its throughput / the curve's highest (read from the resolved plan's own rows here).
    r = costmodel.resolve(costmodel.load_scenario("llama70b-interactive"))
    plan = r.workload.capacity.plan
    highest = max(row[1] for row in plan.curve)
    doc = document(r).model_dump(mode="json")["serving"]
    assert doc["maximum_throughput_per_gpu"]["value"] == pytest.approx(highest, rel=1e-12)
    lost = doc["throughput_lost_to_target"]["value"]
    assert lost == pytest.approx(1 - plan.point.throughput_per_gpu / highest, rel=1e-12) and 0 < lost < 1
    assert doc["tokens_per_request"]["value"] == plan.input_tokens + plan.output_tokens


def test_the_shipped_schema_accepts_the_new_words_the_validator_accepts():
    # Hostile-input findings: the schema gave failures_per_year.gpu the GPU ids as its values, refused an offer
    # id of the scenario's own offers: block, and refused the bundled `redundancy: n_plus_1`.
    import json
    from pathlib import Path

    import jsonschema
    from conftest import scenario_data
    from test_billing_words import EMBEDDINGS

    schema = json.loads((Path(costmodel.__file__).parents[1] / "data/schemas/scenario.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    published = patched_data("llama31-405b-as-published")
    goodput = published["workload"]["goodput"]
    for key in ("interruptions", "days", "gpus", "causes", "failures_per_gpu_per_year"):
        goodput.pop(key, None)
    goodput["failures_per_year"] = {"gpu": 0.1}
    costmodel.validate_data(published)
    for data in (scenario_data("deepseek-v3-serving"), EMBEDDINGS, published):
        costmodel.validate_data(data)
        errors = [f"{list(e.absolute_path)}: {e.message[:120]}" for e in validator.iter_errors(data)]
        assert not errors, errors


def test_validate_reads_the_figure_claims(tmp_path, capsys):
    # Hostile-input finding: validate said "valid" for a path that names no figure and a unit of no kind.
    for claim, word in (
        ({"figure": "options.api", "value": 1.0}, "not a figure"),
        ({"figure": "options.api.monthly_cost", "value": 1.0, "unit": "bananas"}, "claims.0.unit"),
        (
            {"figure": "options.api.monthly_cost", "value": 1.0, "baseline": "nope.yaml", "relation": "ratio"},
            "claims.0.baseline",
        ),
    ):
        data = patched_data(R1, drop=("uncertainty",))
        data["claims"] = [{"statement": "x", "kind": "figure", **claim}]
        path = tmp_path / "v.yaml"
        path.write_text(yaml.safe_dump(data))
        assert main(["validate", str(path)]) == 2
        err = capsys.readouterr().err
        assert word in err and "v.yaml" in err, err


def test_an_item_of_a_series_is_in_the_series_unit(tmp_path):
    # finance.yearly_cash_out.own is {values: [...], unit: USD}: its first year in k USD.
    doc = document("h200-24gpu-cluster").model_dump(mode="json")
    series = doc["finance"]["yearly_cash_out"]["own"]
    assert lookup(doc, "finance.yearly_cash_out.own.values.0") == (series["values"][0], series["unit"], None)
    [claim] = claims_of(
        tmp_path,
        [
            {
                "statement": "year 1",
                "kind": "figure",
                "value": series["values"][0] / 1e3,
                "unit": "k USD",
                "figure": "finance.yearly_cash_out.own.values.0",
                "tolerance": 1e-9,
            }
        ],
        base="h200-24gpu-cluster",
    )
    assert claim["confirmed"]
    with pytest.raises(ScenarioError, match="same kind"):
        claims_of(
            tmp_path,
            [
                {
                    "statement": "year 1",
                    "kind": "figure",
                    "value": 2.2,
                    "unit": "%",
                    "figure": "finance.yearly_cash_out.own.values.0",
                }
            ],
            base="h200-24gpu-cluster",
        )


def test_a_claim_on_a_figure_that_is_not_defined_says_so(tmp_path):
    [claim] = claims_of(
        tmp_path, [{"statement": "x", "kind": "figure", "figure": "options.api.cost_per_request", "value": 0.01}]
    )
    assert claim["computed"] == {"value": None, "unit": "USD/request", "status": "not_defined"}
    assert not claim["confirmed"] and claim["would_hold"] == []


def test_figure_paths_may_hold_spaces():
    assert costmodel.schema.claims.Claim(
        statement="x", kind="figure", value=35.0, figure="training_run.failures_by_cause.network switch and cable.count"
    )


def test_would_hold_lists_only_values_the_validator_takes(tmp_path):
    # The audio share that would make the audio component reach 4,400 USD is above 1 - image share: not listed.
    data = patched_data(
        R1, {"options.api.image_input_share": 0.5, "options.api.audio_input_share": 0.2}, drop=("uncertainty",)
    )
    from conftest import catalog_with  # noqa: F401  (the offer prices are inline below)

    data["offers"] = {
        "api_offers": [
            {
                "offer": "test-audio",
                "provider": "Test",
                "model": "audio",
                "input_per_million": 5.0,
                "output_per_million": 25.0,
                "input_audio_per_million": 40.0,
                "input_image_per_million": 5.0,
                "currency": "USD",
                "quality": "P",
                "as_of": "2026-12-01",
                "source": "test",
            }
        ]
    }
    data["options"]["api"]["offer"] = "test-audio"
    data["claims"] = [
        {
            "statement": "audio 4,400",
            "kind": "figure",
            "value": 4400.0,
            "figure": "options.api.components.audio_input_tokens",
        }
    ]
    path = tmp_path / "a.yaml"
    path.write_text(yaml.safe_dump(data))
    [claim] = document(str(path)).model_dump(mode="json")["claims"]
    shares = [c for c in claim["would_hold"] if c["path"] == "options.api.audio_input_share"]
    assert not shares or shares[0]["needed"]["value"] <= 0.5

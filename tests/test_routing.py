"""Routing across models and the cost per successful task (issue 34).

Expected figures are worked by hand from the catalog rows the scenarios name:

* nebius-h100 (data/cloud_prices.csv): 3.85 USD per GPU-hour, one H100 paid 730 h a month: 2,810.50 USD;
* anthropic-claude-opus-4-5 (data/api_prices.csv): 5 USD in, 25 USD out per million tokens;
* a month is 365 / 12 days (costmodel.units.DAYS_PER_MONTH);
* success rates: data/success_rates.csv (Meta's Llama 3.1 model card, MMLU (CoT) 73.0 for the 8B;
  Anthropic's Claude Opus 4.5 announcement, MMMLU 90.8 %).
"""

import csv
import json
import math

import pytest
from conftest import patched, patched_data, scenario_data, write_scenario

import costmodel
from costmodel.cli import main
from costmodel.domain.routing import ROUTED, routing_result
from costmodel.paths import DATA_DIR
from costmodel.presentation.safe import markdown
from costmodel.presentation.text import comparison_text, executive_summary

NAME = "routed-llama8b-frontier"
MONTH = 365 / 12  # days in the model's month
H100_MONTH = 3.85 * 730  # one nebius-h100 rented 24/7 [USD/month]


def api_month(tokens_per_day: float, input_per_output: float) -> float:
    """Claude Opus 4.5 at 5 / 25 USD per million input / output tokens, a month. [USD/month]"""
    inputs = tokens_per_day * input_per_output / (1 + input_per_output)
    outputs = tokens_per_day / (1 + input_per_output)
    return (inputs * 5 + outputs * 25) / 1e6 * MONTH


class TestBundledRoutedScenario:
    """100,000 requests a day: 70 % easy (450 in, 150 out) on an 8B on one rented H100, 30 % hard (1,800 in,
    600 out) on Claude Opus 4.5."""

    @pytest.fixture(scope="class")
    @classmethod
    def comparison(cls):
        return costmodel.compare(NAME)

    def test_each_class_on_its_option(self, comparison):
        easy, hard = comparison.routing.classes
        # easy: 70,000 requests x 600 tokens = 42 M tokens a day; 10.5 M output tokens a day is 243 output tokens/s
        # at a peak of twice the average, far below one H100's 15,220 x 0.8: one GPU, 24/7
        assert easy.tokens_per_day == pytest.approx(42e6, rel=1e-12)
        assert easy.gpus == 1
        assert easy.monthly_cost == pytest.approx(H100_MONTH, rel=1e-12)
        # hard: 30,000 x 2,400 = 72 M tokens a day, 54 M in and 18 M out: 270 + 450 USD a day
        assert hard.tokens_per_day == pytest.approx(72e6, rel=1e-12)
        assert hard.monthly_cost == pytest.approx(720 * MONTH, rel=1e-12)
        assert hard.gpus is None

    def test_blend_and_saving_against_the_api_for_everything(self, comparison):
        routed = comparison.routing
        blended = H100_MONTH + 720 * MONTH  # 24,710.50 USD a month
        baseline = 1140 * MONTH  # 114 M tokens: 85.5 M in x 5 + 28.5 M out x 25 = 1,140 USD a day = 34,675 a month
        assert routed.requests_per_day == pytest.approx(100_000, rel=1e-12)
        assert routed.monthly_cost == pytest.approx(blended, rel=1e-12)
        assert routed.baseline == "api"
        assert routed.baseline_cost == pytest.approx(baseline, rel=1e-12)
        assert routed.saving == pytest.approx(baseline - blended, rel=1e-12)
        assert routed.saving == pytest.approx(9_964.50, abs=0.005)
        assert routed.saving_share == pytest.approx((baseline - blended) / baseline, rel=1e-12)
        assert routed.cost_per_million_tokens == pytest.approx(blended / (114 * MONTH), rel=1e-12)

    def test_cost_per_successful_task(self, comparison):
        routed = comparison.routing
        tasks = 100_000 * MONTH
        successful = tasks * (0.7 * 0.73 + 0.3 * 0.908)  # each class at its option's rate
        assert routed.cost_per_successful_task == pytest.approx((H100_MONTH + 720 * MONTH) / successful, rel=1e-12)
        assert routed.baseline_cost_per_successful_task == pytest.approx(1140 * MONTH / (tasks * 0.908), rel=1e-12)

    def test_the_decision_ranks_on_the_cost_of_1000_successful_tasks(self, comparison):
        d = comparison.decision
        tasks = 100_000 * MONTH
        expected = {
            "rent": 1000 * H100_MONTH / (tasks * 0.73),
            "api": 1000 * 1140 * MONTH / (tasks * 0.908),
            ROUTED: 1000 * (H100_MONTH + 720 * MONTH) / (tasks * (0.7 * 0.73 + 0.3 * 0.908)),
        }
        assert d.measure == "cost_per_successful_task"
        assert d.unit == "USD/1,000 successful tasks"
        assert {k: c.figure for k, c in d.candidates.items()} == pytest.approx(expected, rel=1e-12)
        assert list(d.candidates) == sorted(expected, key=expected.get)
        assert d.winner == "rent" and d.candidates[ROUTED].option is None

    def test_rates_are_the_catalog_figures(self):
        rows = {r["row"]: r for r in csv.DictReader((DATA_DIR / "success_rates.csv").open())}
        data = scenario_data(NAME)
        for option in ("rent", "api"):
            block = data["options"][option]
            row = next(r for r in rows if r in block["success_rate_source"])
            assert float(rows[row]["success_rate"]) == block["success_rate"]
            assert rows[row]["source"] and rows[row]["as_of"] and rows[row]["quality"] in "PSUE"


class TestOneWinnerOneMeasure:
    """With decision_measure, the verdict, the ranking, the text, the summary and the JSON name one winner on one
    measure."""

    def test_every_output_names_the_same_winner_on_the_same_measure(self):
        scenario = costmodel.load_scenario(NAME)
        comparison = costmodel.compare(scenario)
        doc = costmodel.comparison_output(comparison, scenario, uncertainty=False).model_dump(mode="json")
        d = comparison.decision
        assert doc["decision"]["measure"] == d.measure == "cost_per_successful_task"
        assert doc["decision"]["winner"] == d.winner
        assert [c["id"] for c in doc["decision"]["candidates"]] == list(d.candidates)
        figures = [c["figure"]["value"] for c in doc["decision"]["candidates"]]
        assert figures == sorted(figures)
        assert {c["figure"]["unit"] for c in doc["decision"]["candidates"]} == {"USD/1,000 successful tasks"}
        text = comparison_text(comparison)
        assert f"verdict: {d.winning.label} is the cheapest" in text
        assert "ranked on the cost of 1,000 successful tasks" in text
        summary = executive_summary(scenario, comparison)
        assert f"**Verdict: {markdown(d.winning.label)}.**" in summary
        assert "per 1,000 successful tasks" in summary
        # the routed candidate's figure is the routing section's cost per successful task, per 1,000 tasks
        assert d.candidates[ROUTED].figure == pytest.approx(1000 * comparison.routing.cost_per_successful_task)

    def test_without_the_measure_the_blend_competes_on_the_monthly_cost(self):
        data = patched_data(NAME, {"decision_measure": None})
        comparison = costmodel.compare(costmodel.Scenario.model_validate(data))
        d = comparison.decision
        assert d.measure == "monthly_cost"
        assert d.candidates[ROUTED].figure == pytest.approx(comparison.routing.monthly_cost, rel=1e-12)
        assert d.candidates["api"].figure == pytest.approx(comparison.routing.baseline_cost, rel=1e-12)
        assert d.winner == "rent"  # the 8B serving every request is cheapest on cost alone


def _one_class(base: str, option: str, input_tokens: int, output_tokens: int, **changes):
    routing = {
        "baseline": option,
        "classes": [
            {
                "name": "all",
                "share_of_requests": 1.0,
                "input_tokens_per_request": input_tokens,
                "output_tokens_per_request": output_tokens,
                "option": option,
            }
        ],
    }
    return patched(base, {"routing": routing, "workload.input_tokens_per_request": input_tokens, **changes})


class TestDegenerateRouting:
    """One class at 100 % of the requests is the plain scenario's figure for its option, to 1e-12."""

    @pytest.mark.parametrize("option", ["own", "rent", "api"])
    def test_r1_every_option(self, option):
        # R1's mix is 2:1, so a 1,000-in, 500-out request; its uncertainty block stays (the routed figures are at the
        # scenario's inputs)
        plain = costmodel.compare(patched("llama70b-vs-api", {"workload.input_tokens_per_request": 1000}))
        routed = costmodel.compare(_one_class("llama70b-vs-api", option, 1000, 500))
        result = routed.routing
        assert math.isclose(result.monthly_cost, plain.options[option].monthly_cost, rel_tol=1e-12)
        assert math.isclose(result.baseline_cost, plain.options[option].monthly_cost, rel_tol=1e-12)
        assert abs(result.saving) <= 1e-12 * result.baseline_cost
        assert result.classes[0].gpus == plain.options[option].gpus or option == "api"

    def test_two_classes_on_one_option_are_costed_together(self):
        # two classes at R1's 2:1 mix both on the rented H100s: the option is sized once on their summed tokens,
        # so the blend is the option serving everything and the saving is nil
        base = _one_class("llama70b-vs-api", "rent", 1000, 500)
        data = base.model_dump(mode="json", exclude_unset=True)
        data["routing"]["classes"] = [
            {**data["routing"]["classes"][0], "name": "short", "share_of_requests": 0.5},
            {
                "name": "long",
                "share_of_requests": 0.5,
                "input_tokens_per_request": 1000,
                "output_tokens_per_request": 500,
                "option": "rent",
            },
        ]
        routed = costmodel.compare(costmodel.Scenario.model_validate(data)).routing
        assert routed.monthly_cost == pytest.approx(routed.baseline_cost, rel=1e-12)
        assert routed.classes[0].monthly_cost == pytest.approx(routed.baseline_cost / 2, rel=1e-12)

    def test_no_routing_block_no_routing_section(self):
        assert routing_result(costmodel.load_scenario("llama70b-vs-api")) is None
        assert costmodel.compare("llama70b-vs-api").routing is None


class TestBadInput:
    """Each bad routing or quality input is refused naming the file, the field, the value and the rule."""

    @pytest.mark.parametrize(
        "changes, field, words",
        [
            (
                {"routing.classes.0.share_of_requests": 0.6},
                "routing.classes",
                ["sum to 0.9, not 1", "0.6"],
            ),
            (
                {"routing.classes.0.share_of_requests": 0.7 + 2e-9},
                "routing.classes",
                ["not 1 (within 1e-09)"],
            ),
            ({"routing.classes.1.option": "api:nope"}, "routing.classes.1.option", ["no api:nope option", "rent, api"]),
            ({"routing.baseline": "own"}, "routing.baseline", ["no own option"]),
            ({"options.api.success_rate": 1.2}, "options.api.success_rate", ["less than or equal to 1", "1.2"]),
            ({"options.api.success_rate": 0.0}, "options.api.success_rate", ["greater than 0"]),
            ({"routing.classes.0.success_rate": 1.5}, "routing.classes.0.success_rate", ["less than or equal to 1"]),
            (
                {"options.api.success_rate_source": None},
                "options.api.success_rate_source",
                ["needs its source"],
            ),
            ({"options.rent.success_rate": None}, "options.rent.success_rate", ["give this option's success_rate"]),
            (
                {"workload.input_tokens_per_output_token": 2},
                "workload.input_tokens_per_output_token",
                ["3:1 input:output mix", "within 1 %"],
            ),
        ],
    )
    def test_refused_with_its_place(self, tmp_path, capsys, changes, field, words):
        path = write_scenario(tmp_path, patched_data(NAME, changes))
        assert main(["validate", str(path)]) == 2
        err = capsys.readouterr().err
        assert str(path) in err and f"{field}:" in err, err
        for word in words:
            assert word in err, err

    def test_the_measure_needs_a_task_size(self, tmp_path, capsys):
        data = patched_data(NAME, {"routing": None})
        path = write_scenario(tmp_path, data)
        assert main(["validate", str(path)]) == 2
        err = capsys.readouterr().err
        assert "decision_measure:" in err and "a task is one request" in err

    def test_routing_refuses_a_finance_block(self, tmp_path, capsys):
        data = patched_data(NAME, {"finance": scenario_data("h200-24gpu-cluster")["finance"]})
        path = write_scenario(tmp_path, data)
        assert main(["validate", str(path)]) == 2
        assert "routing is costed on the monthly cost" in capsys.readouterr().err


def test_json_routing_section(capsys):
    assert main(["compare", NAME, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    section = doc["routing"]
    assert [c["name"] for c in section["classes"]] == ["easy", "hard"]
    assert section["saving"]["unit"] == "USD/month"
    assert section["saving"]["value"] == pytest.approx(1140 * MONTH - H100_MONTH - 720 * MONTH, rel=1e-9)
    assert section["classes"][1]["gpus"] == {"value": None, "unit": "GPU", "status": "not_applicable"}


def test_routing_table_rows_add_up():
    from costmodel.presentation.tables import routing_table

    comparison = costmodel.compare(NAME)
    frame = routing_table(comparison)
    month = "monthly cost [USD/month]"
    assert list(frame["class"]) == ["easy", "hard", "routed blend", "every request"]
    amounts = [float(x.replace(",", "")) for x in frame[month]]
    assert amounts[0] + amounts[1] == pytest.approx(amounts[2], abs=0.011)  # each shown to the cent
    assert amounts[2] == pytest.approx(H100_MONTH + 720 * MONTH, abs=0.005)
    assert amounts[3] == pytest.approx(1140 * MONTH, abs=0.005)
    assert frame["cost per M tokens [USD]"].iloc[3] == "10.00"  # 1,140 USD a day for 114 M tokens
    assert routing_table(costmodel.compare("llama70b-vs-api")).empty


def test_routed_costs_broadcast_over_sampled_inputs():
    # sampled inputs (the uncertainty block's arrays) give each class's cost per sample, as each value alone would
    import numpy as np

    from costmodel.domain.routing import routed_costs
    from costmodel.resolved import resolve

    scenario = costmodel.load_scenario(NAME)
    volumes = np.array([57e6, 114e6, 400e6])
    prices = np.array([3.0, 3.85, 5.0])
    sampled = routed_costs(
        resolve(scenario, values={"workload.tokens_per_day": volumes, "options.rent.price_per_gpu_hour": prices})
    )
    for i in range(3):
        alone = routed_costs(
            resolve(
                scenario, values={"workload.tokens_per_day": volumes[i], "options.rent.price_per_gpu_hour": prices[i]}
            )
        )
        for name in ("easy", "hard"):
            assert float(np.asarray(sampled[name])[i]) == pytest.approx(float(alone[name]), rel=1e-12)
    # the hard class on the API is linear in its tokens: 72/114 of the traffic at 720/72 M USD per day per M tokens
    assert np.asarray(sampled["hard"]) == pytest.approx(volumes * 72 / 114 * 10 / 1e6 * MONTH, rel=1e-12)
    assert np.asarray(sampled["easy"])[0] == pytest.approx(3.0 * 730, rel=1e-12)  # one H100 at the sampled price


def test_the_verdict_says_each_option_alone_keeps_its_one_success_rate(capsys):
    # a newcomer read "send everything to the 8B" as the scenario's verdict while its title routes the hard 30 % to
    # the frontier API: the 8B alone is priced at its MMLU 73.0 % on the hard requests too. The warning says so, in
    # compare's text, its JSON and the batch row.
    from costmodel.cli import main
    from costmodel.domain.portfolio import scenario_row

    assert main(["compare", "routed-llama8b-frontier", "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    (said,) = [w for w in warnings if w.startswith("routing:")]
    assert "(rent 73.0 %, api 90.8 %)" in said
    assert said in scenario_row(costmodel.load_scenario("routed-llama8b-frontier"), "r")["warnings"]

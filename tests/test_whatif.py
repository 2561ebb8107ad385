"""The live what-if panel (costmodel.what_if), built without a browser, and the overrides block it saves."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

import costmodel
from costmodel.domain import uncertainty as u
from costmodel.domain.compare import compare as compare_domain
from costmodel.domain.uncertainty import tornado
from costmodel.errors import ScenarioError
from costmodel.presentation.safe import html_text
from costmodel.presentation.whatif import numeric_fields, slider_spec, verdict, what_if
from costmodel.schema.inputs import CATALOG_INPUTS, bounds

R1, R2 = "llama70b-vs-api", "h200-24gpu-cluster"


def expected_for(name: str, changes: dict) -> costmodel.Comparison:
    """compare() of the scenario file with ``changes`` made the ordinary way: scenario fields via
    with_inputs, catalog figures through an overrides block (independent of the panel's code)."""
    scenario = costmodel.load_scenario(name)
    fields = {p: v for p, v in changes.items() if p not in CATALOG_INPUTS}
    catalog = {p: v for p, v in changes.items() if p in CATALOG_INPUTS}
    if catalog:
        fields["overrides"] = {"values": catalog, "source": "test"}
    return compare_domain(costmodel.with_inputs(scenario, fields))


def assert_same(panel, expected: costmodel.Comparison) -> None:
    got = panel.comparison
    assert got.options.keys() == expected.options.keys()
    for name, option in expected.options.items():
        assert math.isclose(got.options[name].monthly_cost, option.monthly_cost, rel_tol=1e-9, abs_tol=1e-9)
    assert len(got.break_evens) == len(expected.break_evens) > 0
    for mine, theirs in zip(got.break_evens, expected.break_evens, strict=True):
        assert (mine.option_a, mine.option_b, mine.kind) == (theirs.option_a, theirs.option_b, theirs.kind)
        if theirs.volume is None:
            assert mine.volume is None
        else:
            assert math.isclose(mine.volume, theirs.volume, rel_tol=1e-9)
    # one answer: the panel names compare's winner, figure and measure (issue 26)
    assert got.decision.winner == expected.decision.winner and got.decision.measure == expected.decision.measure
    assert math.isclose(got.decision.winning.figure, expected.decision.winning.figure, rel_tol=1e-9)
    assert html_text(verdict(expected)) in panel.verdict_html.value
    for option in expected.options.values():
        assert costmodel.presentation.format.amount(option.monthly_cost, 0) in panel.costs_html.value
    for candidate in expected.decision.candidates.values():
        assert costmodel.presentation.format.amount(candidate.figure, 0) in panel.costs_html.value


def test_r1_default_sliders_are_the_tornado_top_five_and_follow_compare():
    panel = what_if(R1)
    r = costmodel.resolve(costmodel.load_scenario(R1))
    assert list(panel.sliders) == [bar.path for bar in tornado(r)][:5]
    assert {"options.rent.offer", "options.api.offer", "options.own.server", "workload.gpu"} <= set(panel.dropdowns)
    before = panel.comparison.options["api"].monthly_cost
    # hand check: R1's API at $5 in / $15 out, 2:1 mix: (2 x 5 + 15) / 3 = 8.3333 USD/M tokens;
    # 10 M tokens/day x 365/12 days = 304.1667 M tokens/month -> 2,534.72 USD/month
    panel.sliders["options.api.output_price_per_million"].value = 15.0
    assert math.isclose(panel.comparison.options["api"].monthly_cost, 304.1666666666667 * 25 / 3, rel_tol=1e-12)
    assert panel.comparison.options["api"].monthly_cost < before
    assert_same(panel, expected_for(R1, {"options.api.output_price_per_million": 15.0}))
    assert "options.api.output_price_per_million: 25 → 15 USD/M tokens" in panel.changes_html.value


def test_r1_volume_slider_moves_the_break_even_search_with_compare():
    panel = what_if(R1, ["workload.tokens_per_day", "options.rent.price_per_gpu_hour"])
    panel.sliders["workload.tokens_per_day"].value = 40_000_000.0
    panel.sliders["options.rent.price_per_gpu_hour"].value = 3.0
    expected = expected_for(R1, {"workload.tokens_per_day": 40_000_000.0, "options.rent.price_per_gpu_hour": 3.0})
    assert_same(panel, expected)
    # hand check: 2 GPUs x 730 h x $3.0 + one engineer EUR 72,000 / 12 x 1.16 = 4,380 + 6,960 = 11,340
    assert math.isclose(panel.comparison.options["rent"].monthly_cost, 11_340.0, rel_tol=1e-12)


def test_r2_slider_updates_costs_present_values_and_break_even():
    panel = what_if(R2, ["options.own.power.pue", "options.own.depreciation_months", "finance"])
    panel.sliders["options.own.power.pue"].value = 1.2
    panel.sliders["options.own.depreciation_months"].value = 48
    expected = expected_for(R2, {"options.own.power.pue": 1.2, "options.own.depreciation_months": 48})
    assert_same(panel, expected)
    for option, npv in expected.finance.npv_by_option.items():
        assert math.isclose(panel.comparison.finance.npv_by_option[option], npv, rel_tol=1e-9)
        assert costmodel.presentation.format.amount(npv, 0) in panel.costs_html.value
    panel.toggles["finance"].value = False
    assert panel.comparison.finance is None
    assert "finance: off" in panel.changes_html.value


def test_r2_rental_offer_dropdown_compares_the_other_offer():
    panel = what_if(R2, ["options.rent.offer", "options.own.server_price"])
    offers = [value for _, value in panel.dropdowns["options.rent.offer"].options]
    assert "nebius-h200" in offers and len(offers) > 1
    gpu = costmodel.load_scenario(R2).workload.gpu
    catalog = costmodel.default_catalog()
    assert all(catalog.cloud_offers[o].gpu == gpu for o in offers)
    other = next(o for o in offers if o != "nebius-h200")
    panel.dropdowns["options.rent.offer"].value = other
    panel.sliders["options.own.server_price"].value = 300_000.0
    expected = compare_domain(
        costmodel.with_inputs(
            costmodel.load_scenario(R2),
            {
                "options.rent.offer": other,
                "overrides": {"values": {"options.own.server_price": 300_000.0}, "source": "test"},
            },
        )
    )
    assert_same(panel, expected)


def test_every_slider_range_respects_the_input_bounds():
    checked = 0
    for name in (R1, R2, "h100-10k-cluster", "llama70b-interactive"):
        scenario = costmodel.load_scenario(name)
        for path, found in numeric_fields(scenario).items():
            spec = slider_spec(scenario, found)
            allowed = bounds(scenario, scenario.catalog, path)
            assert allowed.holds(spec.low) and allowed.holds(spec.high), (name, path, spec)
            assert spec.low <= spec.value <= spec.high, (name, path, spec)
            checked += 1
    assert checked > 100
    pue = slider_spec(costmodel.load_scenario(R1), numeric_fields(costmodel.load_scenario(R1))["options.own.power.pue"])
    assert pue.low >= 1.0  # PUE is at least 1 (schema: ge=1.0); ±50 % of 1.56 would reach 0.78
    share = slider_spec(
        costmodel.load_scenario(R1), numeric_fields(costmodel.load_scenario(R1))["options.own.power.idle_power_share"]
    )
    assert 0 <= share.low and share.high <= 1.0
    ceiling = numeric_fields(costmodel.load_scenario(R2))["workload.utilisation_ceiling"]
    assert slider_spec(costmodel.load_scenario(R2), ceiling).high <= 1.0  # 0.9 + 50 % would be 1.35


def test_save_gives_a_file_that_compare_reads_back_with_a_comment(tmp_path):
    panel = what_if(R1, ["options.api.output_price_per_million", "options.own.power.pue"])
    panel.sliders["options.api.output_price_per_million"].value = 12.5
    panel.sliders["options.own.power.pue"].value = 1.3
    written = panel.save(tmp_path / "r1-what-if.yaml")
    text = written.read_text()
    assert text.startswith("# What-if of")
    assert "options.api.output_price_per_million: 25 → 12.5 USD/M tokens" in text.splitlines()[1]
    assert "options.own.power.pue: 1.56 → 1.3 -" in text.splitlines()[1]
    loaded = compare_domain(costmodel.load_scenario(written))
    for name, option in loaded.options.items():
        assert math.isclose(panel.comparison.options[name].monthly_cost, option.monthly_cost, rel_tol=1e-9)
    assert panel.scenario.options.own.power.pue == 1.3
    assert panel.scenario.overrides.values == {"options.api.output_price_per_million": 12.5}


def test_reset_puts_everything_back():
    panel = what_if(R1, ["options.api.output_price_per_million"])
    base = panel.comparison.options["api"].monthly_cost
    panel.sliders["options.api.output_price_per_million"].value = 10.0
    panel.reset()
    assert panel.changes() == []
    assert panel.comparison.options["api"].monthly_cost == base
    assert "As the scenario file" in panel.changes_html.value


def test_unknown_input_is_refused_with_the_known_ones():
    with pytest.raises(KeyError, match="options.own.power.pue"):
        what_if(R1, ["options.own.power.peu"])


def test_import_costmodel_does_not_load_ipywidgets():
    code = (
        "import sys, costmodel; costmodel.compare(costmodel.load_scenario('llama70b-vs-api')); "
        "print('what_if' in dir(costmodel), 'ipywidgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True False"


def test_overrides_replace_a_catalog_figure_and_name_a_bad_one():
    scenario = costmodel.load_scenario(R1)
    changed = costmodel.with_inputs(
        scenario, {"overrides": {"values": {"options.rent.price_per_gpu_hour": 3.0}, "source": "a quote"}}
    )
    # 2 GPUs x 730 h x $3.0 + EUR 6,000 x 1.16 = 11,340 USD/month (R1 brief's engineer)
    assert math.isclose(compare_domain(changed).options["rent"].monthly_cost, 11_340.0, rel_tol=1e-12)
    with pytest.raises(ScenarioError, match="overrides.values.options.own.power.pue.*change that field itself"):
        costmodel.with_inputs(scenario, {"overrides": {"values": {"options.own.power.pue": 1.2}, "source": "x"}})
    with pytest.raises(ScenarioError, match="outside the input's allowed range"):
        costmodel.with_inputs(
            scenario, {"overrides": {"values": {"options.rent.price_per_gpu_hour": -1.0}, "source": "x"}}
        )


def test_what_if_command_prepares_the_notebook_with_the_scenario(tmp_path):
    import json

    from costmodel.cli import main

    assert (
        main(
            [
                "what-if",
                "h200-24gpu-cluster",
                "--inputs",
                "options.own.power.pue,finance",
                "--no-lab",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    notebook = json.loads((tmp_path / "h200-24gpu-cluster.ipynb").read_text())
    source = "".join(
        next(c["source"] for c in notebook["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    )
    namespace: dict = {}
    exec(source, namespace)  # the parameters cell holds literals only
    assert namespace["scenario"] == "h200-24gpu-cluster"
    assert namespace["inputs"] == ["options.own.power.pue", "finance"]
    assert (
        main(["what-if", "h200-24gpu-cluster", "--inputs", "options.own.power.peu", "--no-lab", "--out", str(tmp_path)])
        == 2
    )
    assert main(["what-if", "no-such-scenario", "--no-lab", "--out", str(tmp_path)]) == 2


def test_what_if_notebook_parameters_are_checked():
    from costmodel.presentation.parameters import ParameterError, check

    check("what_if", {"scenario": "llama70b-vs-api", "inputs": None})  # right: no error, nothing shown
    with pytest.raises(ParameterError, match="'input' is not one this notebook takes \\(did you mean inputs\\?\\)"):
        check("what_if", {"scenario": "llama70b-vs-api", "input": None})
    with pytest.raises(ParameterError, match="parameter 'inputs' got 'options.own.power.pue'"):
        check("what_if", {"scenario": "llama70b-vs-api", "inputs": "options.own.power.pue"})


def test_report_chapter_names_the_one_command(monkeypatch):
    from costmodel.paths import SCENARIO_DIR
    from costmodel.presentation import sections

    shown = []
    monkeypatch.setattr(sections, "display", lambda item, **kwargs: shown.append(item.data))
    sections.what_if_note(str(SCENARIO_DIR / "llama70b-vs-api.yaml"))
    sections.what_if_note("my plans/<b>plan</b>.yaml")
    assert len(shown) == 2
    out = "\n".join(shown)
    assert "costmodel what-if llama70b-vs-api" in out
    assert "<b>plan</b>" not in out  # escaped, and quoted for the shell
    assert "&#x27;my plans/&lt;b&gt;plan&lt;/b&gt;.yaml&#x27;" in out


def test_r1_gpu_dropdown_brings_that_gpus_server_and_offer():
    panel = what_if(R1)
    panel.dropdowns["workload.gpu"].value = "H200-SXM-141GB"
    catalog = costmodel.default_catalog()
    server, offer = panel.dropdowns["options.own.server"].value, panel.dropdowns["options.rent.offer"].value
    assert catalog.servers[server].gpu == catalog.cloud_offers[offer].gpu == "H200-SXM-141GB"
    assert panel.error == ""
    expected = compare_domain(
        costmodel.with_inputs(
            costmodel.load_scenario(R1),
            {
                "workload.gpu": "H200-SXM-141GB",
                "options.own.server": server,
                "options.rent.offer": offer,
                "workload.serving.throughput_row": None,
            },
        )
    )
    assert_same(panel, expected)
    panel.reset()
    assert panel.dropdowns["options.rent.offer"].value == "r1-brief-h100" and panel.changes() == []


def test_inputs_table_shows_an_override_with_the_row_it_replaces():
    from costmodel.presentation.tables import inputs_table

    scenario = costmodel.with_inputs(
        costmodel.load_scenario(R1),
        {"overrides": {"values": {"options.rent.price_per_gpu_hour": 2.75}, "source": "a quote of 2026-11-30"}},
    )
    table = inputs_table(scenario)
    row = table[table["input"] == "rental price per GPU-hour"].iloc[0]
    assert row["value"] == "2.75"  # as stated, no padding zeros
    assert row["source"].startswith("overrides (replacing data/cloud_prices.csv: r1-brief-h100")
    assert row["source"].endswith("a quote of 2026-11-30")


def test_without_uncertainty_the_five_inputs_rank_by_a_20_percent_swing():
    from costmodel.presentation.whatif import top_inputs

    name = "h100-10k-cluster"  # no uncertainty block
    chosen = top_inputs(costmodel.load_scenario(name))
    assert len(chosen) == 5

    def metric(path, value):  # on the decision measure: own minus the cheapest other, via the saved file
        d = expected_for(name, {path: int(value) if float(value).is_integer() else value}).decision  # counts: ints
        return d.figure("own") - min(c.figure for k, c in d.candidates.items() if k != "own")

    scenario = costmodel.load_scenario(name)
    fields = numeric_fields(scenario)

    def ends(path):  # +-20 %, inside the input's allowed range (a ceiling stays at most 1)
        allowed, value = u.bounds(scenario, path), fields[path].value
        return max(value * 0.8, allowed.low), min(value * 1.2, allowed.high)

    swings = [abs(metric(p, ends(p)[1]) - metric(p, ends(p)[0])) for p in chosen]
    assert swings == sorted(swings, reverse=True) and swings[-1] > 0
    # an input tied to a job log's average cannot move alone and is not offered
    assert "workload.gpu_hours_per_month" not in top_inputs(costmodel.load_scenario("h200-job-log"))


def test_counts_move_in_whole_steps_rented_gpus_in_whole_replicas():
    panel = what_if(R1, ["options.rent.gpu_count", "options.own.server_count"])
    rented = panel.sliders["options.rent.gpu_count"]
    # R1: a replica of Llama 3.3 70B in FP8 takes 2 H100 (TensorRT-LLM row, tp 2)
    assert (rented.min, rented.step, rented.value) == (2, 2, 2) and rented.max % 2 == 0
    assert isinstance(panel.sliders["options.own.server_count"].value, int)
    rented.value = 4
    panel.sliders["options.own.server_count"].value = 2
    assert panel.error == ""
    assert_same(panel, expected_for(R1, {"options.rent.gpu_count": 4, "options.own.server_count": 2}))
    # 4 GPUs x 730 h x $3.5 + EUR 6,000 x 1.16 = 10,220 + 6,960 = 17,180 USD/month
    assert math.isclose(panel.comparison.options["rent"].monthly_cost, 17_180.0, rel_tol=1e-12)
    assert panel.scenario.options.rent.gpu_count == 4


def test_a_notebook_run_again_in_its_kernel_is_not_refused_for_its_own_variables():
    """Run All twice in JupyterLab: the first run's variables (model, upper, ...) are not parameters."""
    from costmodel.presentation.parameters import ParameterError, check

    parameters = (
        'scenario = "llama70b-vs-api"\nvolume_min = 0.0\nvolume_max = 0.0\npoints = 1000\nsobol = False\n'
        'catalog = ""\nrenderer = "svg"'
    )
    checking = 'checked = parameters.check("break_even", globals())'
    values = {
        "scenario": "llama70b-vs-api",
        "volume_min": 0.0,
        "volume_max": 0.0,
        "points": 1000,
        "sobol": False,
        "catalog": "",
        "renderer": "svg",
    }
    first_run = ["", parameters, checking, "upper = 10.0\nmodel = object()", "sections.stamp(model, scenario)"]
    left_over = {"upper": 10.0, "checked": None, "model": object()}
    check("break_even", {"In": [*first_run, parameters, checking], **values, **left_over})  # no error
    # a misspelt name in the parameters cell, or in papermill's injected cell, is still refused
    with pytest.raises(ParameterError, match="'volme_max' is not one this notebook takes"):
        check(
            "break_even",
            {"In": [*first_run, parameters + "\nvolme_max = 5.0", checking], **values, **left_over, "volme_max": 5.0},
        )
    with pytest.raises(ParameterError, match="'scenaro' is not one this notebook takes"):
        check(
            "break_even", {"In": ["", parameters, '# Parameters\nscenaro = "x"\n', checking], **values, "scenaro": "x"}
        )


@pytest.mark.slow
def test_the_training_notebook_runs_twice_in_one_kernel():
    import nbformat
    from nbclient import NotebookClient

    from costmodel.paths import NOTEBOOK_DIR

    notebook = nbformat.read(NOTEBOOK_DIR / "training_run.ipynb", as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3")
    with client.setup_kernel():
        for _ in range(2):  # Run All, then Run All again without a restart
            for index, cell in enumerate(notebook.cells):
                client.execute_cell(cell, index)
    errors = [o for c in notebook.cells for o in c.get("outputs", ()) if o.get("output_type") == "error"]
    assert errors == []


def test_an_input_looked_up_by_path_is_the_changed_scenarios_own():
    from costmodel.schema.inputs import find_input

    scenario = costmodel.load_scenario(R1)
    changed = costmodel.with_inputs(scenario, {"workload.tokens_per_day": 12_345.0})
    catalog = costmodel.resolve(scenario).catalog
    assert find_input(scenario, catalog, "workload.tokens_per_day").value == scenario.workload.tokens_per_day
    assert find_input(changed, catalog, "workload.tokens_per_day").value == 12_345.0
    assert find_input(scenario, catalog, "workload.tokens_per_day").value == scenario.workload.tokens_per_day
    assert find_input(scenario, catalog, "workload.no_such_field") is None


def test_inputs_table_reads_whole_counts_as_whole_numbers():
    from costmodel.presentation.tables import inputs_table

    table = inputs_table(costmodel.load_scenario("h200-24gpu-cluster"))
    value = dict(zip(table["input"], table["value"]))
    assert value["horizon"] == "60" and value["servers"] == "3"  # not 60.0000 or 3.00000
    assert value["utilisation ceiling"] == "0.9"


def test_the_panel_opens_on_api_options_alone_without_a_serving_block():
    # No throughput to move: the panel's inputs are the bills' (it failed reading a throughput there was not).
    from conftest import patched

    from costmodel.presentation.whatif import numeric_fields

    s = patched("api-offers", {"workload.serving": None})
    fields = numeric_fields(s)
    assert "workload.throughput_per_gpu" not in fields and "options.api.cached_input_share" in fields


def test_the_what_if_notebook_runs_again_in_its_kernel():
    # Issue 31: Run All a second time failed: "parameter 'panel' is not one this notebook takes" (the cell before the
    # parameters cell was the first run's last one, not papermill's injected cell).
    from costmodel.presentation.parameters import check

    parameters = 'scenario = "llama70b-vs-api"\ninputs = None'
    checking = 'parameters.check("what_if", globals())'
    last = "import costmodel\n\npanel = costmodel.what_if(scenario, inputs)\npanel"
    check(
        "what_if",
        {
            "In": ["", parameters, checking, last, parameters, checking],
            "scenario": "llama70b-vs-api",
            "inputs": None,
            "panel": object(),
        },
    )


def _quote_catalog(tmp_path):
    """A catalog folder with one rental quote the bundled catalog lacks, and R1 renting it."""
    from conftest import patched_data, write_scenario

    from costmodel.paths import DATA_DIR

    folder = tmp_path / "catalog"
    folder.mkdir()
    header = (DATA_DIR / "cloud_prices.csv").read_text().splitlines()[0]
    folder.joinpath("cloud_prices.csv").write_text(
        header + "\nmy-quote-h100,Example quote,H100-SXM-80GB,on_demand,2.00,USD,P,2026-11,"
        '"Quote received 2026-11 (test row)",\n'
    )
    scenario = write_scenario(tmp_path, patched_data(R1, {"options.rent.offer": "my-quote-h100"}), "quote.yaml")
    return folder, scenario


def test_what_if_command_takes_a_catalog_folder_and_the_notebook_uses_it(tmp_path, capsys):
    import json

    from costmodel.cli import main

    folder, scenario = _quote_catalog(tmp_path)
    out = tmp_path / "out"
    assert main(["what-if", str(scenario), "--no-lab", "--out", str(out)]) == 2  # the bundled catalog lacks it
    assert "my-quote-h100" in capsys.readouterr().err and not out.exists()
    assert main(["what-if", R1, "--no-lab", "--out", str(out), "--catalog", str(tmp_path / "no-such")]) == 2
    assert "no-such" in capsys.readouterr().err and not out.exists()
    assert main(["what-if", str(scenario), "--no-lab", "--out", str(out), "--catalog", str(folder)]) == 0
    notebook = json.loads((out / "quote.ipynb").read_text())
    code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    namespace: dict = {}
    exec(code[0], namespace)  # the parameters cell: literals only
    assert namespace["catalog"] == str(folder.resolve())  # absolute: the kernel runs in the notebook's folder
    for source in code[1:]:  # the parameter check and the panel, as JupyterLab runs them
        exec(source, namespace)
    panel = namespace["panel"]
    # the quote's 2.00 USD/GPU-h: 2 GPUs x 2.00 x 730 h + one FTE (6,000 EUR x 1.16) = 9,880 USD/month
    assert panel.comparison.options["rent"].monthly_cost == pytest.approx(9880.0)
    assert "my-quote-h100" in [value for _, value in panel.dropdowns["options.rent.offer"].options]


def test_what_if_takes_a_catalog_folder_but_not_with_a_validated_scenario(tmp_path):
    folder, scenario = _quote_catalog(tmp_path)
    with pytest.raises(ScenarioError, match="my-quote-h100"):
        what_if(scenario)
    assert what_if(scenario, catalog=folder).comparison.options["rent"].monthly_cost == pytest.approx(9880.0)
    assert (
        what_if(R1, catalog="").comparison.options["rent"].monthly_cost
        == what_if(R1).comparison.options["rent"].monthly_cost
    )
    with pytest.raises(TypeError, match="has its catalog"):
        what_if(costmodel.load_scenario(R1), catalog=folder)

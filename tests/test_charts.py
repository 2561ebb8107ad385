"""Each chart function gives a valid Vega-Lite spec: axis titles with units, a legend, no NaN (fast: to_dict only)."""

import json

import numpy as np
import pytest

import costmodel
from costmodel.domain.compare import compare  # the domain's Comparison (costmodel.compare: the output model)
from costmodel.domain.finance import cash_flows, own_finance
from costmodel.domain.mix import cheapest_mix, hourly_demand
from costmodel.domain.uncertainty import monte_carlo, tornado
from costmodel.presentation import charts


def spec(chart) -> dict:
    data = chart.to_dict()
    text = json.dumps(data, allow_nan=False)      # no NaN or infinity anywhere in the spec
    assert json.loads(text) == data
    return data


def titles(data) -> list[str]:
    """Every axis title in a (layered or concatenated) spec."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key in ("x", "y"):
                enc = node.get("encoding", {}).get(key)
                if isinstance(enc, dict) and enc.get("title"):
                    found.append(enc["title"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(data)
    return found


@pytest.fixture(scope="module")
def r2():
    return costmodel.resolve(costmodel.load_scenario("h200-24gpu-cluster"))


@pytest.fixture(scope="module")
def r1():
    return costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))


def test_cost_against_volume(r1):
    comparison = compare(r1)
    data = spec(charts.cost_vs_volume(r1, comparison, 0, 1e8, 200))
    assert "Monthly cost [USD/month]" in titles(data) and "Volume [M tokens/day]" in titles(data)
    assert "Hosted API vs" not in json.dumps(data["title"])     # every pair crosses or says never


def test_gpu_steps_component_bars_and_run_costs(r1):
    assert "GPUs [GPU]" in titles(spec(charts.gpu_count_steps(r1)))
    table = costmodel.cost_table(r1)
    assert "Monthly cost [USD/month]" in titles(spec(charts.component_bars(table, r1)))
    run = compare(costmodel.load_scenario("llama31-405b-training")).training
    training = costmodel.resolve(costmodel.load_scenario("llama31-405b-training"))
    assert "Cost of the run [USD]" in titles(spec(charts.run_cost_bars(training, run)))
    assert "Checkpoint interval [min]" in titles(spec(charts.checkpoint_tradeoff(training, run)))


def test_a_payback_in_the_horizons_last_month_is_marked_at_its_end():
    # the 10k-H100 cluster over 50 months pays back "after 50 months": the mark stands at month 50, on the
    # cumulative cost of the last month (index 49); it was read past the end of the 50 months (IndexError)
    from conftest import patched

    r = costmodel.resolve(patched("h100-10k-cluster", {"finance.horizon_months": 50}))
    flows = cash_flows(r)
    result = own_finance(r, flows)
    assert result.payback_month == 50
    data = spec(charts.cumulative_cost(r, flows, result))
    marks = [v for rows in data["datasets"].values() for v in rows if "label" in v]
    assert marks and marks[0]["month"] == 50 and marks[0]["y"] == pytest.approx(flows.cumulative("own")[49])


def test_horizon_charts(r2):
    flows = cash_flows(r2)
    result = own_finance(r2, flows)
    assert "Cumulative cost [USD]" in titles(spec(charts.cumulative_cost(r2, flows, result)))
    assert "Capex [USD]" in titles(spec(charts.own_cost_lines(r2)))
    assert "Own cost per used GPU-hour [USD/GPU-h]" in titles(spec(charts.cost_per_gpu_hour_vs_utilisation(r2, result)))


def test_mix_charts(r2):
    series = hourly_demand(r2)
    mix = cheapest_mix(r2, series)
    assert "GPUs busy [GPU]" in titles(spec(charts.demand_week(r2, series)))
    assert "GPUs busy [GPU]" in titles(spec(charts.load_duration_layers(r2, series, mix)))
    assert "Monthly cost of the mix [USD/month]" in titles(spec(charts.cost_against_level_chart(r2, series)))


def test_uncertainty_charts_name_the_tracked_option(r1):
    result = monte_carlo(r1, samples=2000)
    bars = tornado(r1)
    # F21: the tracked option of R1 is the API, and the tornado's axis says so
    axis = titles(spec(charts.tornado_chart(r1, bars, result.option)))
    assert any(t.startswith("Hosted API minus the cheapest other, monthly cost [USD/month]") for t in axis)
    assert "Own-minus" not in json.dumps(axis)
    assert "Probability of being the cheapest [%]" in titles(spec(charts.win_probability_bars(r1, result)))
    assert any("Saving of Hosted API, monthly cost [USD/month]" in t
               for t in titles(spec(charts.savings_histogram(r1, result))))


def test_sweep_volumes_draw_steps_sharp(r1):
    volumes = charts.sweep_volumes(r1, 0, 2e9, 50)
    steps = costmodel.step_volumes(r1, "rent", 2e9)
    assert np.all(np.isin(steps[steps < 2e9], volumes))


def test_break_even_labels_stand_above_every_line():
    """Labels of the break-even rules sit in a band above the highest cost line, so no line crosses them."""
    import costmodel
    from costmodel.domain.compare import compare
    from costmodel.presentation import charts

    r = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    upper = costmodel.default_volume_max(r)
    spec = charts.cost_vs_volume(r, compare(r, volume_max=upper, check=False), 0.0, upper, 200).to_dict(
        validate=False)
    lines, rules, labels = spec["layer"]
    datasets = spec["datasets"]
    top = max(row["cost"] for row in datasets[lines["data"]["name"]])
    assert lines["encoding"]["y"]["scale"]["domainMax"] == pytest.approx(top * (1 + charts.LABEL_HEADROOM))
    assert labels["encoding"]["y"]["datum"] == pytest.approx(top * (1 + charts.LABEL_HEADROOM))
    # R1: the API crosses rental at 34,013,307 tokens/day and the own cluster at 47,102,046
    assert sorted(row["value"] for row in datasets[labels["data"]["name"]]) == ["34.01", "47.10"]
    subtitle = " ".join(spec["title"]["subtitle"])
    assert "Cloud rental = Hosted API at 34.01 M tokens/day" in subtitle
    assert "Own cluster = Hosted API at 47.10 M tokens/day" in subtitle


def test_drawn_vertices_keep_the_ends_and_each_turn():
    # y = 2x up to x = 3, then y = 6 - (x - 3) (a peak at x = 3): only the ends and the peak are needed
    x = np.arange(7.0)
    y = np.where(x <= 3, 2 * x, 6 - (x - 3))
    assert np.flatnonzero(charts.drawn_vertices(x, y)).tolist() == [0, 3, 6]
    # a curve turns at every point: all kept
    assert charts.drawn_vertices(x, x ** 2).all()
    # a line that goes back on itself turns by 180 degrees (a sine of 0): the turning point is kept
    assert charts.drawn_vertices(np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 0.5])).tolist() == [True] * 3
    # a step line (step-after) needs each level's first point and the last point
    levels = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0])
    assert np.flatnonzero(charts.drawn_vertices(x, levels, step=True)).tolist() == [0, 3, 5, 6]


def test_the_cost_chart_draws_the_same_lines_from_fewer_rows():
    # R2's cost lines through the kept rows pass through every swept point (linear interpolation)
    from costmodel.domain.sweep import Columns, cost_sweep

    model = costmodel.resolve(costmodel.load_scenario("h200-24gpu-cluster"))
    top = costmodel.default_volume_max(model)
    kept = charts.cost_vs_volume(model, compare(model), 0.0, top).layer[0].data
    full = cost_sweep(model, charts.sweep_volumes(model, 0.0, top, 1000))
    assert len(kept) < len(full) / 10
    for label, line in full.groupby(Columns.option_label):
        drawn = kept[kept[Columns.option_label] == label]
        shown = line[Columns.volume].to_numpy()     # gpu_hours: the axis shows the volume itself
        assert np.allclose(np.interp(shown, drawn["volume_shown"], drawn[Columns.cost]), line[Columns.cost],
                           rtol=1e-9, atol=1e-6)


def test_every_cost_component_has_its_own_colour():
    # A newcomer's finding: "cache write tokens" and "request and search fees" were both the fallback grey.
    from costmodel.presentation.charts import COMPONENT_COLOURS
    from costmodel.results import Component

    names = [c.value for c in Component]
    assert set(names) <= set(COMPONENT_COLOURS), sorted(set(names) - set(COMPONENT_COLOURS))
    colours = {COMPONENT_COLOURS[n] for n in names if n not in ("capital recovery", "facility capital recovery")}
    assert len(colours) == len([n for n in names if n not in ("capital recovery", "facility capital recovery")])

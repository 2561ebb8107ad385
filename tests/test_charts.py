"""Each chart function gives a valid Vega-Lite spec: axis titles with units, a legend, no NaN (fast: to_dict only)."""

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.domain.compare import compare
from costmodel.domain.finance import cash_flows, own_finance
from costmodel.domain.mix import cheapest_mix, hourly_demand
from costmodel.domain.uncertainty import monte_carlo, tornado
from costmodel.presentation import charts


def spec(chart) -> dict:
    data = chart.to_dict()
    text = json.dumps(data, allow_nan=False)  # no NaN or infinity anywhere in the spec
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
    assert "Hosted API vs" not in json.dumps(data["title"])  # every pair crosses or says never


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
    assert any(
        "Saving of Hosted API, monthly cost [USD/month]" in t
        for t in titles(spec(charts.savings_histogram(r1, result)))
    )


def test_sweep_volumes_draw_steps_sharp(r1):
    volumes = charts.sweep_volumes(r1, 0, 2e9, 50)
    steps = costmodel.step_volumes(r1, "rent", 2e9)
    assert np.all(np.isin(steps[steps < 2e9], volumes))


def test_break_even_labels_stand_above_every_line():
    """Labels of the break-even rules sit in a band above the highest cost line, so no line crosses them;
    the rules end at the highest line."""
    r = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    upper = costmodel.default_volume_max(r)
    spec = charts.cost_vs_volume(r, compare(r, volume_max=upper, check=False), 0.0, upper, 200).to_dict(validate=False)
    lines, rules, labels = spec["layer"]
    datasets = spec["datasets"]
    top = max(row["cost"] for row in datasets[lines["data"]["name"]])
    rows = datasets[labels["data"]["name"]]
    y_min, y_max = lines["encoding"]["y"]["scale"]["domain"]
    assert y_min == 0.0
    assert all(top < row["label_y"] < y_max for row in rows)
    assert rules["encoding"]["y2"]["datum"] == pytest.approx(top)
    # one row of labels: the band is 14 + 8 px of the 360-px plot, so the axis ends at top * 360 / 338
    assert [row["row"] for row in rows] == [0, 0]
    assert y_max == pytest.approx(top * 360 / (360 - 22))
    # R1: the API crosses rental at 34,013,307 tokens/day and the own cluster at 47,102,046
    assert sorted(row["value"] for row in rows) == ["34.01", "47.10"]
    subtitle = " ".join(spec["title"]["subtitle"])
    assert "Cloud rental = Hosted API at 34.01 M tokens/day" in subtitle
    assert "Own cluster = Hosted API at 47.10 M tokens/day" in subtitle


RENTALS = [
    ("lambda", "lambda-h100-8x", "Lambda Labs on-demand H100 SXM, eight-GPU instance"),
    ("nebius", "nebius-h100", "Nebius AI Cloud on-demand H100 SXM in Finland"),
    ("hyperstack", "hyperstack-h100", "Hyperstack by NexGen Cloud on-demand H100 SXM"),
    ("coreweave", "coreweave-h100", "CoreWeave on-demand H100 HGX with InfiniBand networking"),
]
API_OFFERS = [
    ("sonnet", "anthropic-claude-sonnet-4-5", "Anthropic Claude Sonnet 4.5 standard tier API"),
    ("avian", "avian-meta-llama-3-3-70b-instruct", "Avian.io Meta Llama 3.3 70B Instruct serverless API"),
]


def long_labelled(options: int) -> dict:
    """R1 (llama70b-vs-api) with ``options`` options (3 to 9), every one with a long label: its own cluster,
    rental and API, then rentals and API offers of the catalog in turn (data/cloud_prices.csv,
    data/api_prices.csv); an office-hours demand profile (the cheapest-mix charts, two of them on log
    axes), the Monte Carlo at 2,000 samples, no claims."""
    from conftest import scenario_data

    data = scenario_data("llama70b-vs-api")
    data.pop("claims")
    data["uncertainty"]["samples"] = 2000
    data["demand"] = {
        "kind": "office_hours",
        "start_hour": 8,
        "end_hour": 18,
        "off_share": 0.1,
        "source": "ASSUMPTION: a test's profile",
    }
    o = data["options"]
    o["own"]["label"] = "Own DGX H100 server in a colocation facility, five-year depreciation"
    o["rent"]["label"] = "Brief's rented pair of H100 GPUs running around the clock"
    o["api"]["label"] = "Anthropic Claude Opus 4.5 hosted API at the standard tier"
    rents, apis = [], []
    for i in range(options - 3):
        if i % 2 == 0 and len(rents) < len(RENTALS) or len(apis) == len(API_OFFERS):
            name, offer, label = RENTALS[len(rents)]
            rents.append({"name": name, "label": label, "offer": offer, "gpu_count": 2, "billing": "always_on"})
        else:
            name, offer, label = API_OFFERS[len(apis)]
            apis.append({"name": name, "label": label, "offer": offer})
    o.update({"rents": rents} if rents else {}, **({"apis": apis} if apis else {}))
    data["title"] = f"R1 with {options} options, each with a long label"
    return data


def test_close_break_evens_stand_in_rows_of_their_own():
    # R1 with 8 options: Lambda's rental crosses Claude Opus at 16.42 M tokens/day and Nebius's at 15.84 M,
    # 6 px apart on the 640-px axis of 0 to 100 M; their labels (26 px wide at 11 px) cannot share a row
    r = costmodel.resolve(costmodel.Scenario.model_validate(long_labelled(8)))
    upper = costmodel.default_volume_max(r)
    spec = charts.cost_vs_volume(r, compare(r, volume_max=upper, check=False), 0.0, upper, 200).to_dict(validate=False)
    assert upper == 1e8
    rows = {row["value"]: row for row in spec["datasets"][spec["layer"][2]["data"]["name"]]}
    assert rows["15.84"]["row"] != rows["16.42"]["row"]
    assert rows["16.42"]["label_y"] > rows["15.84"]["label_y"]  # the later one above
    # in each row, labels keep 8 px apart: centres (v / 100 M x 640 px) at least a label's width + 8 px apart
    width = charts.labels.text_width("00.00", 11)  # every label has 4 digits and a point
    for row in {r["row"] for r in rows.values()}:
        centres = sorted(r["label_at"] * 6.4 for r in rows.values() if r["row"] == row)
        assert all(b - a >= width + 8 - 1e-9 for a, b in zip(centres, centres[1:]))
    # ten pairs break even in the range: too many to name in the subtitle, and no subtitle line is wider than the plot
    subtitle = spec["title"]["subtitle"]
    assert (
        "10 break-evens in the range, each labelled with its volume (the break-even table names the pairs)" in subtitle
    )
    assert max(charts.labels.text_width(line, 11) for line in subtitle) <= 640


def test_drawn_vertices_keep_the_ends_and_each_turn():
    # y = 2x up to x = 3, then y = 6 - (x - 3) (a peak at x = 3): only the ends and the peak are needed
    x = np.arange(7.0)
    y = np.where(x <= 3, 2 * x, 6 - (x - 3))
    assert np.flatnonzero(charts.drawn_vertices(x, y)).tolist() == [0, 3, 6]
    # a curve turns at every point: all kept
    assert charts.drawn_vertices(x, x**2).all()
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
        shown = line[Columns.volume].to_numpy()  # gpu_hours: the axis shows the volume itself
        assert np.allclose(
            np.interp(shown, drawn["volume_shown"], drawn[Columns.cost]), line[Columns.cost], rtol=1e-9, atol=1e-6
        )


def test_every_cost_component_has_its_own_colour():
    # A newcomer's finding: "cache write tokens" and "request and search fees" were both the fallback grey.
    from costmodel.presentation.charts import COMPONENT_COLOURS
    from costmodel.results import Component

    names = [c.value for c in Component]
    assert set(names) <= set(COMPONENT_COLOURS), sorted(set(names) - set(COMPONENT_COLOURS))
    colours = {COMPONENT_COLOURS[n] for n in names if n not in ("capital recovery", "facility capital recovery")}
    assert len(colours) == len([n for n in names if n not in ("capital recovery", "facility capital recovery")])


class TestTextWidth:
    # Helvetica's advance widths (Adobe Core 14 AFM), which Liberation Sans and Arial share [1/1000 em]
    def test_a_line_is_the_sum_of_its_glyphs(self):
        # "Hosted API": H 722, o 556, s 500, t 278, e 556, d 556, space 278, A 667, P 667, I 278 = 5,058
        assert charts.labels.text_width("Hosted API", 11) == pytest.approx(5058 * 11 / 1000)
        # bold: H 722, o 611, s 556, t 333, e 556, d 611, space 278, A 722, P 667, I 278 = 5,334
        assert charts.labels.text_width("Hosted API", 14, bold=True) == pytest.approx(5334 * 14 / 1000)

    def test_accents_add_no_width_and_wide_scripts_take_an_em(self):
        assert charts.labels.text_width("Évora café", 11) == charts.labels.text_width("Evora cafe", 11)
        assert charts.labels.text_width("東京", 10) == 20.0


class TestWrap:
    def test_lines_break_at_spaces(self):
        # "Own cluster in a" is 74.6 px at 11 px; adding " colocation" would make it 127.6 px
        assert charts.labels.wrap("Own cluster in a colocation facility", 100, 11) == [
            "Own cluster in a",
            "colocation facility",
        ]
        assert charts.labels.wrap("", 100, 11) == [""]

    def test_a_word_wider_than_the_line_is_cut(self):
        # 12 M at 11 px: 833 / 1000 x 11 = 9.163 px each, so 3 fit in 30 px
        assert charts.labels.wrap("MMMMMMMMMMMM", 30, 11) == ["MMM"] * 4

    @settings(max_examples=200, deadline=None)
    @given(
        st.lists(
            st.text(
                alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,()=/-",
                min_size=1,
                max_size=25,
            ),
            min_size=1,
            max_size=12,
        ),
        st.floats(min_value=20, max_value=700),
    )
    def test_no_line_is_wider_than_asked_and_no_word_is_lost(self, words, width):
        lines = charts.labels.wrap(" ".join(words), width, 11)
        assert all(charts.labels.text_width(line, 11) <= width for line in lines)
        assert "".join("".join(lines).split()) == "".join(words)


class TestStackRows:
    def test_labels_that_would_touch_go_up_a_row(self):
        # centres 100, 110 and 300 px, 30 px wide: the first two would overlap by 20 px, the third is clear
        rows, shown = charts.labels.stack_rows([110.0, 100.0, 300.0], [30.0, 30.0, 30.0], gap=6)
        assert rows == [1, 0, 0] and shown == [110.0, 100.0, 300.0]
        # 36 px apart is exactly a width and the gap: one row
        assert charts.labels.stack_rows([100.0, 136.0], [30.0, 30.0], gap=6)[0] == [0, 0]

    def test_labels_stay_inside_the_room(self):
        # a 40-px label centred at 5 px in a room from 0 to 640 is moved to 20 px; one at 630 to 620
        assert charts.labels.stack_rows([5.0, 630.0], [40.0, 40.0], left=0, right=640)[1] == [20.0, 620.0]

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.tuples(st.floats(0, 640), st.floats(1, 80)), min_size=1, max_size=30))
    def test_no_two_labels_in_a_row_come_closer_than_the_gap(self, labels):
        centres, widths = [c for c, _ in labels], [w for _, w in labels]
        rows, shown = charts.labels.stack_rows(centres, widths, gap=8, left=0, right=640)
        for i, j in itertools.combinations(range(len(labels)), 2):
            if rows[i] == rows[j]:
                assert abs(shown[i] - shown[j]) >= (widths[i] + widths[j]) / 2 + 8 - 1e-9
        assert set(rows) == set(range(max(rows) + 1))  # no empty row between two


class TestLogTicks:
    def test_the_domain_ends_at_1_2_5_values(self):
        assert charts.labels.nice_log_domain(1.3e6, 2.8e7) == (1e6, 5e7)
        assert charts.labels.nice_log_domain(2.0, 2.0) == (2.0, 4.0)
        with pytest.raises(ValueError, match="0 < low <= high"):
            charts.labels.nice_log_domain(0.0, 10.0)

    def test_the_densest_ticks_that_fit(self):
        # 3 decades on 400 px: 133.3 px a decade. 1-2-5 ticks are 40.1, 53.1 and 40.1 px apart, enough
        # for 30-px labels (30 + 4 px); with 2-3 ticks too, 2 to 3 would be 23.5 px apart: too close
        assert charts.labels.log_ticks(1.0, 1000.0, 400.0, lambda v: 30.0) == [
            1.0,
            2.0,
            5.0,
            10.0,
            20.0,
            50.0,
            100.0,
            200.0,
            500.0,
            1000.0,
        ]
        # 100-px labels need 104 px: decades only
        assert charts.labels.log_ticks(1.0, 1000.0, 400.0, lambda v: 100.0) == [1.0, 10.0, 100.0, 1000.0]
        # 12 decades on 400 px (33.3 px each) and 40-px labels: every second decade
        assert charts.labels.log_ticks(1.0, 1e12, 400.0, lambda v: 40.0) == [1.0, 100.0, 1e4, 1e6, 1e8, 1e10, 1e12]

    def test_a_log_axis_never_prints_neighbouring_labels_together(self):
        # the cheapest mix's volume axis from 0.1 to 3 times R1's 10 M tokens/day on 640 px: 1 M to 50 M
        axis, scale = charts.log_axis([1e6, 3e7], 640)
        values = axis.to_dict()["values"]
        assert scale.to_dict()["domain"] == [1e6, 5e7]
        # 1.7 decades on 640 px (376.7 px a decade): the densest ticks (1, 1.5, 2, 3, 4, 5, 7) fit, 4 M to 5 M
        # being 36.5 px apart for labels of 20 px, but they are 13, more than 10; 1-2-3-5 ticks are 8
        assert values == [1e6, 2e6, 3e6, 5e6, 1e7, 2e7, 3e7, 5e7]
        position = [640 * np.log10(v / 1e6) / np.log10(50) for v in values]
        room = [charts.labels.text_width(charts.short_number(v), 11) for v in values]
        assert all(b - a >= (wa + wb) / 2 + 4 for a, b, wa, wb in zip(position, position[1:], room, room[1:]))


def test_a_small_gpu_count_axis_has_a_tick_at_each_whole_gpu_and_no_other():
    # the routed scenario's rented 8B needs 1 GPU, then 2: ticks at 0.5 and 1.5 would read "1" and "2" twice
    routed = costmodel.resolve(costmodel.load_scenario("routed-llama8b-frontier"))
    layers = spec(charts.gpu_count_steps(routed))["layer"]
    y_axes = [layer["encoding"]["y"]["axis"] for layer in layers if "y" in layer.get("encoding", {})]
    assert y_axes and all(axis["values"] == [0, 1, 2] for axis in y_axes)
    # a large count keeps the renderer's own ticks (whole numbers by tickMinStep)
    cluster = costmodel.resolve(costmodel.load_scenario("h100-10k-cluster"))
    big = [layer["encoding"]["y"]["axis"] for layer in spec(charts.gpu_count_steps(cluster))["layer"][:1]]
    assert "values" not in big[0] and big[0]["tickMinStep"] == 1

"""Break-even inputs, tornado, Monte Carlo and Sobol indices."""

from pathlib import Path

import numpy as np
import pytest
from conftest import patched, patched_data, write_scenario

import costmodel
from costmodel.domain import uncertainty as u
from costmodel.presentation.text import input_break_even_sentence

R1, H200 = "llama70b-vs-api", "h200-24gpu-cluster"
MILLIONS = 10 * 365 / 12  # R1: 10 M tokens/day for 365/12 days


def with_uncertainty(base, **block):
    return patched(base, {"uncertainty": block})


class TestInputs:
    def test_catalog_inputs_are_named_and_replaced_without_touching_the_original(self):
        s = costmodel.load_scenario("llama70b-vs-api")
        known = u.numeric_inputs(s)
        assert known["options.rent.price_per_gpu_hour"] == 3.5
        assert known["options.api.output_price_per_million"] == 25.0
        assert known["options.own.power.pue"] == 1.56
        changed = u.with_values(s, {"options.rent.price_per_gpu_hour": 4.0})
        assert costmodel.monthly_cost(changed, "rent", 1e7) == pytest.approx(2 * 4.0 * 730 + 6960)
        assert costmodel.monthly_cost(s, "rent", 1e7) == pytest.approx(2 * 3.5 * 730 + 6960)
        with pytest.raises(KeyError):
            u.with_values(s, {"options.rent.nothing": 1.0})


class TestBreakEvenInput:
    def test_api_input_price_closed_form(self):
        # the API costs MILLIONS x (2/3 p_in + 1/3 x 25); rental is a flat 2 x 3.5 x 730 + 6,960 = 12,070
        s = costmodel.load_scenario("llama70b-vs-api")
        expected = (12070 / MILLIONS - 25 / 3) * 3 / 2
        b = u.break_even_input(s, "options.api.input_price_per_million", 0, 100, "api", "rent")
        assert b.value == pytest.approx(expected, rel=1e-9)

    def test_never_when_the_input_moves_neither_cost(self):
        s = costmodel.load_scenario("llama70b-vs-api")
        b = u.break_even_input(s, "options.own.power.pue", 1.0, 3.0, "api", "rent")
        assert b.value is None
        assert "never in [1, 3]" in input_break_even_sentence(b, costmodel.resolve(s).label)

    def test_low_above_high(self):
        with pytest.raises(ValueError):
            u.break_even_input(costmodel.load_scenario("llama70b-vs-api"), "options.own.power.pue", 3, 1)


def steady_r2():
    """R2 on the monthly view, own against on-demand rental only: no finance block, no demand profile, no
    reserved terms (own and rent cross at 11,721 GPU-hours; the metric is smooth between server steps)."""
    return patched(H200, {"options.rent.reserved": None}, drop=("finance", "demand"))


class TestTornado:
    def test_an_input_that_moves_neither_the_tracked_option_nor_the_cheapest_other_has_zero_swing(self):
        # R1 tracks the API (3,549 a month) against the cheapest other, rental (12,070); the own cluster's PUE
        # moves only the own cluster (16,699), which stays dearer than rental throughout
        s = with_uncertainty(
            R1,
            option="api",
            tornado={"options.own.power.pue": {"low": 1.1, "high": 2.0}, "options.rent.price_per_gpu_hour": None},
        )
        bars = {b.path: b for b in u.tornado(s)}
        assert bars["options.own.power.pue"].swing == 0
        assert bars["options.rent.price_per_gpu_hour"].swing == pytest.approx(
            2 * 730 * 3.5 * 0.4, rel=1e-9
        )  # +-20 % of $3.50 on 2 GPUs all month

    def test_the_discount_rate_moves_the_present_value(self):
        # the decision measure of R2 is the present value: the discount rate enters every candidate
        from costmodel.domain.decision import present_value_figures, reserved_gpus_of

        s = with_uncertainty(H200, tornado={"finance.discount_rate_per_year": None})
        (bar,) = u.tornado(s)
        r = costmodel.resolve(s)

        def metric(rate):
            figures = present_value_figures(
                u.with_values(r, {"finance.discount_rate_per_year": rate}), reserved_gpus=reserved_gpus_of(r)
            )
            return figures["own"] - min(v for k, v in figures.items() if k != "own")

        assert bar.low_metric == pytest.approx(metric(0.064), rel=1e-12)
        assert bar.high_metric == pytest.approx(metric(0.096), rel=1e-12)
        assert bar.swing > 0

    def test_swing_sign_matches_a_finite_difference(self):
        s = steady_r2()
        bars = u.tornado(s)
        assert len(bars) == 5
        for bar in bars:
            base = u.value_of(s, bar.path)
            h = 1e-4 * abs(base)
            plus = float(u.decision_metric(u.with_values(s, {bar.path: base + h})))
            minus = float(u.decision_metric(u.with_values(s, {bar.path: base - h})))
            assert np.sign(bar.high_metric - bar.low_metric) == np.sign(plus - minus), bar.path

    def test_break_even_inside_the_range_is_where_the_metric_is_zero(self):
        s = steady_r2()
        crossing = [bar for bar in u.tornado(s) if bar.break_even is not None]
        assert crossing
        for bar in crossing:
            at = u.decision_metric(u.with_values(s, {bar.path: bar.break_even}))
            assert abs(float(at)) < 1e-6 * 54_000


class TestMonteCarlo:
    def test_zero_width_distributions_give_the_deterministic_result_exactly(self):
        # on the decision measure (R2: present value), every candidate's figure is the decision's
        from costmodel.domain.decision import decide

        s = with_uncertainty(
            H200,
            samples=1000,
            distributions={
                "options.rent.price_per_gpu_hour": {"distribution": "uniform", "low": 4.5, "high": 4.5},
                "options.own.server_price": {
                    "distribution": "triangular",
                    "low": 350000,
                    "mode": 350000,
                    "high": 350000,
                },
                "options.own.power.pue": {"distribution": "normal", "mean": 1.56, "sd": 0},
                "workload.gpu_hours_per_month": {"distribution": "empirical", "values": [12000]},
            },
        )
        result = u.monte_carlo(s)
        d = decide(s)
        assert result.measure == "present_value" and result.unit == "USD"
        for candidate, figures in result.costs.items():
            assert np.all(figures == pytest.approx(d.figure(candidate), rel=1e-12)), candidate

    def test_median_of_a_linear_model(self):
        # The API cost is linear in the output price: MILLIONS x (2/3 x 5 + 1/3 x p); p ~ U(20, 30) has median 25
        s = with_uncertainty(
            R1,
            samples=200_000,
            seed=7,
            distributions={"options.api.output_price_per_million": {"distribution": "uniform", "low": 20, "high": 30}},
        )
        p50 = np.percentile(u.monte_carlo(s).costs["api"], 50)
        assert p50 == pytest.approx(MILLIONS * (2 / 3 * 5 + 1 / 3 * 25), rel=0.002)

    def test_a_training_runs_mfu_moves_its_cost(self):
        # F27: the run's cost is GPU-hours x price, GPU-hours proportional to 1 / MFU: at MFU ~ U(0.3, 0.5)
        # the rental's P10 and P90 are the cost at MFU 0.48 and 0.32 (the percentiles of 1 / MFU)
        s = with_uncertainty(
            "llama31-405b-training",
            samples=50_000,
            seed=1,
            distributions={"workload.mfu": {"distribution": "uniform", "low": 0.3, "high": 0.5}},
        )
        result = u.monte_carlo(s)
        run = costmodel.compare(s).comparison.training
        base_mfu = float(costmodel.resolve(s).workload.training.stages[0].mfu)
        p10, p90 = np.percentile(result.costs["rent"], [10, 90])
        assert result.measure == "run_cost"
        assert p10 == pytest.approx(run.total("rent") * base_mfu / 0.48, rel=5e-3)
        assert p90 == pytest.approx(run.total("rent") * base_mfu / 0.32, rel=5e-3)

    def test_same_seed_same_numbers(self):
        s = costmodel.load_scenario("h200-24gpu-cluster")
        a, b = u.monte_carlo(s, samples=5000), u.monte_carlo(s, samples=5000)
        assert np.array_equal(a.metric, b.metric)
        assert not np.array_equal(a.metric, u.monte_carlo(s, samples=5000, seed=1).metric)

    def test_probabilities_and_savings(self):
        result = u.monte_carlo(costmodel.load_scenario("h200-24gpu-cluster"), samples=20_000)
        wins = result.win_probability()
        assert sum(wins.values()) == pytest.approx(1.0)
        assert wins["own"] == pytest.approx(np.mean(result.savings > 0), abs=1e-12)

    def test_samples_are_clipped_into_the_allowed_range(self):
        s = with_uncertainty(
            H200,
            samples=10_000,
            distributions={"options.own.power.pue": {"distribution": "normal", "mean": 1.05, "sd": 0.2}},
        )
        drawn, clipped = u.draw_inputs(s)
        assert drawn["options.own.power.pue"].min() == 1.0 and clipped["options.own.power.pue"] > 0

    def test_clipping_counts_the_samples_moved_and_keeps_samples_in_range_as_they_are(self):
        # options.own.power.pue is at least 1 (a facility draws at least what its IT load draws)
        s = costmodel.resolve(costmodel.load_scenario(H200))
        inside = np.array([1.0, 1.2, 1.5])
        same, moved = u.clip_to_bounds(s, "options.own.power.pue", inside)
        assert same is inside and moved == 0
        clipped, moved = u.clip_to_bounds(s, "options.own.power.pue", np.array([0.9, 1.2, 0.5, np.nan]))
        assert moved == 3  # 0.9 and 0.5 to 1.0, and the NaN (which is no value in range)
        assert clipped[:3].tolist() == [1.0, 1.2, 1.0] and np.isnan(clipped[3])

    @pytest.mark.parametrize(
        ("distribution", "moved_below_one"),
        [
            # inside the range [1, ∞): nothing can move, the draws are numpy's own
            ({"distribution": "uniform", "low": 1.1, "high": 1.6}, False),
            ({"distribution": "triangular", "low": 1.0, "mode": 1.2, "high": 1.6}, False),
            ({"distribution": "empirical", "values": [1.0, 1.3, 2.0]}, False),
            # unbounded (the schema refuses a bounded one reaching outside [1, 5]): draws under 1 are moved to 1
            ({"distribution": "normal", "mean": 1.05, "sd": 0.2}, True),
        ],
    )
    def test_a_distribution_inside_the_range_is_drawn_as_numpy_draws_it_and_one_outside_is_clipped(
        self, distribution, moved_below_one
    ):
        pue = "options.own.power.pue"
        s = with_uncertainty(H200, samples=5_000, seed=11, distributions={pue: distribution})
        drawn, clipped = u.draw_inputs(s)
        # the same generator state, drawn directly with numpy (one input: the first and only draw)
        raw = u.sample(s.uncertainty.distributions[pue], np.random.default_rng(11), 5_000)
        assert clipped[pue] == int(np.count_nonzero((raw < 1.0) | (raw > 5.0)))
        assert (clipped[pue] > 0) == moved_below_one
        assert np.array_equal(drawn[pue], np.clip(raw, 1.0, 5.0))

    def test_lognormal_draws_are_the_median_times_e_to_a_normal_draw(self):
        # X = m·exp(σZ), Z ~ N(0, 1): drawn from the same generator state, the same numbers
        dist = costmodel.load_scenario(R1).uncertainty.distributions["workload.tokens_per_day"]
        drawn = u.sample(dist, np.random.default_rng(7), 1000)
        assert np.array_equal(drawn, dist.median * np.exp(np.random.default_rng(7).normal(0.0, dist.sigma, 1000)))


def test_sobol_input_without_effect_is_zero():
    # R1 tracks the API against the cheapest other (rental); the own cluster's PUE moves neither
    s = with_uncertainty(
        R1,
        seed=3,
        sobol_base_samples=512,
        option="api",
        distributions={
            "options.rent.price_per_gpu_hour": {"distribution": "uniform", "low": 3.0, "high": 6.5},
            "options.api.output_price_per_million": {"distribution": "uniform", "low": 20, "high": 30},
            "options.own.power.pue": {"distribution": "uniform", "low": 1.1, "high": 2.0},
        },
    )
    indices = u.sobol_indices(s)
    first = dict(zip(indices.inputs, indices.first_order))
    total = dict(zip(indices.inputs, indices.total))
    assert abs(first["options.own.power.pue"]) < 0.02
    assert abs(total["options.own.power.pue"]) < 0.02
    assert total["options.rent.price_per_gpu_hour"] > 0.3


@pytest.mark.parametrize(
    "distribution, field",
    [
        ({"distribution": "uniform", "low": 5, "high": 3}, "low"),
        ({"distribution": "normal", "mean": 4, "sd": -1}, "sd"),
        ({"distribution": "triangular", "low": 1, "mode": 9, "high": 5}, "mode"),
        ({"distribution": "normal", "mean": 4}, "sd"),
    ],
)
def test_bad_distributions_name_the_field(tmp_path, distribution, field):
    data = patched_data(H200)
    data["uncertainty"]["distributions"]["options.rent.price_per_gpu_hour"] = distribution
    path = write_scenario(tmp_path, data)
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    assert [p[0] for p in caught.value.problems] == [
        f"uncertainty.distributions.options.rent.price_per_gpu_hour.{field}"
    ]


@pytest.mark.parametrize("name", ["options.own.server", "options.own.nonsense", "title"])
def test_distribution_on_a_field_that_is_not_a_numeric_input(tmp_path, name):
    data = patched_data(H200)
    data["uncertainty"]["distributions"][name] = {"distribution": "uniform", "low": 1, "high": 2}
    path = write_scenario(tmp_path, data)
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    (problem,) = caught.value.problems
    assert problem[0] == f"uncertainty.distributions.{name}" and "not a numeric input" in problem[2]


def test_distribution_outside_the_inputs_range(tmp_path):
    data = patched_data(H200)
    data["uncertainty"]["distributions"]["options.own.power.pue"] = {"distribution": "uniform", "low": 0.8, "high": 1.4}
    path = write_scenario(tmp_path, data)
    with pytest.raises(costmodel.ScenarioError, match="outside the input's allowed range"):
        costmodel.load_scenario(path)


def test_the_present_value_in_chunks_of_samples_equals_one_call(monkeypatch):
    # R2's Monte Carlo on the present value runs in chunks of samples: the figures are those of one call
    from costmodel.domain import uncertainty

    r = costmodel.resolve(costmodel.load_scenario("h200-24gpu-cluster"))
    drawn, _ = uncertainty.draw_inputs(r, 1_000)
    whole = uncertainty.option_costs(r, drawn)
    assert uncertainty.samples_per_chunk(r, "present_value") == 10_000  # 600,000 numbers / 60 months
    monkeypatch.setattr(uncertainty, "samples_per_chunk", lambda *_: 300)  # 4 chunks, the last of 100
    chunked = uncertainty.option_costs(r, drawn)
    assert set(chunked) == set(whole) and all(chunked[o].shape == (1_000,) for o in chunked)
    for o in whole:
        np.testing.assert_array_equal(chunked[o], whole[o])


def test_tornado_ends_from_percentiles_stay_in_the_allowed_range():
    # Hostile-input finding: a normal cached share (mean 0.3, sd 0.7) had its tornado's low end at P10 = -0.597.
    from conftest import patched

    from costmodel.domain.uncertainty import tornado_ranges

    s = patched(
        "llama70b-vs-api",
        {
            "uncertainty": {
                "distributions": {"options.api.cached_input_share": {"distribution": "normal", "mean": 0.3, "sd": 0.7}},
                "samples": 200,
            }
        },
    )
    low, high = tornado_ranges(s)["options.api.cached_input_share"]
    assert low == 0.0 and high == 1.0


@pytest.mark.parametrize(
    ("base", "distributions"),
    [
        (R1, None),  # the monthly cost at the volume, three options
        ("llama31-405b-training", {"workload.mfu": {"distribution": "uniform", "low": 0.3, "high": 0.5}}),
        (  # the monthly cost hour by hour with a demand profile: samples x hours
            "api-offers",
            {"workload.tokens_per_day": {"distribution": "lognormal", "median": 5e7, "sigma": 0.5}},
        ),
    ],
)
def test_the_other_measures_in_chunks_of_samples_equal_one_call(monkeypatch, base, distributions):
    # every measure runs in chunks of samples: each sample's figure is computed alone, so the chunks'
    # figures are those of one call to the last bit
    s = costmodel.load_scenario(base) if distributions is None else with_uncertainty(base, distributions=distributions)
    r = costmodel.resolve(s)
    drawn, _ = u.draw_inputs(r, 1_000)
    monkeypatch.setattr(u, "samples_per_chunk", lambda *_: 10**9)
    whole = u.option_costs(r, drawn)
    monkeypatch.setattr(u, "samples_per_chunk", lambda *_: 300)  # 4 chunks, the last of 100
    chunked = u.option_costs(r, drawn)
    assert set(chunked) == set(whole) and all(chunked[o].shape == (1_000,) for o in chunked)
    for o in whole:
        np.testing.assert_array_equal(chunked[o], whole[o])


def test_a_chunk_of_samples_keeps_one_array_within_the_budget_of_the_present_value():
    # one array of a call holds at most 600,000 numbers (R2's 10,000 samples x 60 months): the hour-by-hour
    # measure's samples each take a row of 8,760 hours, so 600,000 // 8,760 = 68 samples a call (65,536 a
    # call made 65,536 x 8,760 x 8 B = 4.6 GB arrays)
    from costmodel.domain.decision import measure_of

    nofin = costmodel.resolve(patched(H200, drop=("finance",)))
    assert measure_of(nofin) == "monthly_cost_hour_by_hour" and nofin.demand is not None
    assert nofin.demand.shape.size == 8_760
    assert u.samples_per_chunk(nofin, "monthly_cost_hour_by_hour") == 68
    assert u.samples_per_chunk(costmodel.resolve(costmodel.load_scenario(R1)), "monthly_cost") == 65_536
    ten_years = costmodel.resolve(patched(H200, {"finance.horizon_months": 120}))
    assert u.samples_per_chunk(ten_years, "present_value") == 5_000


def test_the_hour_by_hour_monte_carlo_is_the_same_in_chunks_sized_by_the_hours(monkeypatch):
    # R2 without its finance block samples workload.gpu_hours_per_month against 8,760 hours: the percentiles
    # of 1,000 samples in one call (the old chunk of 65,536 took them at once) equal those in chunks of 68
    r = costmodel.resolve(patched(H200, drop=("finance",)))
    chunked = u.monte_carlo(r, samples=1_000)
    monkeypatch.setattr(u, "samples_per_chunk", lambda *_: 65_536)
    whole = u.monte_carlo(r, samples=1_000)
    assert chunked.measure == "monthly_cost_hour_by_hour" and set(chunked.costs) == set(whole.costs)
    for o in whole.costs:
        np.testing.assert_array_equal(chunked.costs[o], whole.costs[o])
    np.testing.assert_array_equal(np.percentile(chunked.metric, [5, 50, 95]), np.percentile(whole.metric, [5, 50, 95]))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc (Linux)")
def test_compare_json_of_an_hour_by_hour_monte_carlo_stays_within_600_mib(tmp_path):
    # a bound, not a timing: R2 without its finance block, 100,000 samples of the demand's volume against
    # 8,760 hours, peaked at 4.6 GB in one process when a chunk held 65,536 samples
    import subprocess
    import sys

    import yaml

    path = tmp_path / "r2_nofin.yaml"
    path.write_text(yaml.safe_dump(patched_data(H200, drop=("finance",))))
    # the peak of the child's own memory (VmHWM), not getrusage's ru_maxrss: Linux carries the parent's
    # high-water mark into a child started by vfork and exec, so in a test session grown past 1 GB the child
    # read 1,280,500 kB while it used about 220 MB
    code = (
        "import sys\n"
        "from costmodel.cli import main\n"
        "assert main(['compare', sys.argv[1], '--json']) == 0\n"
        "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
        "print(hwm.split()[1], file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert '"monthly_cost_hour_by_hour"' in done.stdout
    peak_kb = int(done.stderr.strip().splitlines()[-1])  # Linux: kilobytes
    assert peak_kb < 600 * 1024, f"peak resident set {peak_kb} kB"  # benchmarks/run.py HOURLY_PEAK_BOUND


def test_compare_refuses_a_scenario_resolved_with_samples_naming_them():
    # one answer at one value per input: a scenario resolved with arrays raised a bare TypeError at float();
    # the candidates over samples are option_costs', which takes them
    scenario = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    prices = np.array([2.0, 3.0])
    sampled = u.with_values(scenario, {"options.rent.price_per_gpu_hour": prices})
    with pytest.raises(ValueError, match=r"options\.rent\.price_per_gpu_hour holds an array of samples"):
        costmodel.compare(sampled)
    costs = u.option_costs(scenario, {"options.rent.price_per_gpu_hour": prices})
    # rent at 2 rented H100 always on: each sample's rent differs by the price step x 2 GPUs x 730 h
    assert costs["rent"][1] - costs["rent"][0] == pytest.approx(1.0 * 2 * 730)
    assert costmodel.compare(u.with_values(scenario, {"options.rent.price_per_gpu_hour": 2.0})).volume

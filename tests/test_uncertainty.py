"""Break-even inputs, tornado, Monte Carlo and Sobol indices."""

import numpy as np
import pytest
from conftest import patched, patched_data, write_scenario

import costmodel
from costmodel.domain import uncertainty as u
from costmodel.presentation.text import input_break_even_sentence

R1, H200 = "llama70b-vs-api", "h200-24gpu-cluster"
MILLIONS = 10 * 365 / 12          # R1: 10 M tokens/day for 365/12 days


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


class TestTornado:
    def test_an_input_outside_every_cost_has_zero_swing(self):
        s = with_uncertainty(H200, tornado={"finance.discount_rate_per_year": None,
                                            "options.rent.price_per_gpu_hour": None})
        bars = {b.path: b for b in u.tornado(s)}
        assert bars["finance.discount_rate_per_year"].swing == 0
        assert bars["options.rent.price_per_gpu_hour"].swing > 0

    def test_swing_sign_matches_a_finite_difference(self):
        s = costmodel.load_scenario("h200-24gpu-cluster")
        bars = u.tornado(s)
        assert len(bars) == 5
        for bar in bars:
            base = u.value_of(s, bar.path)
            h = 1e-4 * abs(base)
            plus = float(u.decision_metric(u.with_values(s, {bar.path: base + h})))
            minus = float(u.decision_metric(u.with_values(s, {bar.path: base - h})))
            assert np.sign(bar.high_metric - bar.low_metric) == np.sign(plus - minus), bar.path

    def test_break_even_inside_the_range_is_where_the_metric_is_zero(self):
        s = costmodel.load_scenario("h200-24gpu-cluster")
        crossing = [bar for bar in u.tornado(s) if bar.break_even is not None]
        assert crossing
        for bar in crossing:
            if bar.break_even is not None:
                at = u.decision_metric(u.with_values(s, {bar.path: bar.break_even}))
                assert abs(float(at)) < 1e-6 * 54_000


class TestMonteCarlo:
    def test_zero_width_distributions_give_the_deterministic_result_exactly(self):
        s = with_uncertainty(H200, samples=1000, distributions={
            "options.rent.price_per_gpu_hour": {"distribution": "uniform", "low": 4.5, "high": 4.5},
            "options.own.server_price": {"distribution": "triangular", "low": 350000, "mode": 350000, "high": 350000},
            "options.own.power.pue": {"distribution": "normal", "mean": 1.56, "sd": 0},
            "workload.gpu_hours_per_month": {"distribution": "empirical", "values": [12000]},
        })
        result = u.monte_carlo(s)
        for option in ("own", "rent"):
            assert np.all(result.costs[option] == costmodel.monthly_cost(s, option, 12000.0))

    def test_median_of_a_linear_model(self):
        # The API cost is linear in the output price: MILLIONS x (2/3 x 5 + 1/3 x p); p ~ U(20, 30) has median 25
        s = with_uncertainty(R1, samples=200_000, seed=7, distributions={
            "options.api.output_price_per_million": {"distribution": "uniform", "low": 20, "high": 30}})
        p50 = np.percentile(u.monte_carlo(s).costs["api"], 50)
        assert p50 == pytest.approx(MILLIONS * (2 / 3 * 5 + 1 / 3 * 25), rel=0.002)

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
        s = with_uncertainty(H200, samples=10_000, distributions={
            "options.own.power.pue": {"distribution": "normal", "mean": 1.05, "sd": 0.2}})
        drawn, clipped = u.draw_inputs(s)
        assert drawn["options.own.power.pue"].min() == 1.0 and clipped["options.own.power.pue"] > 0


def test_sobol_input_without_effect_is_zero():
    s = with_uncertainty(H200, seed=3, sobol_base_samples=512, distributions={
        "options.rent.price_per_gpu_hour": {"distribution": "uniform", "low": 3.5, "high": 6.5},
        "workload.gpu_hours_per_month": {"distribution": "uniform", "low": 9000, "high": 15000},
        "finance.discount_rate_per_year": {"distribution": "uniform", "low": 0.02, "high": 0.15},
    })
    indices = u.sobol_indices(s)
    first = dict(zip(indices.inputs, indices.first_order))
    total = dict(zip(indices.inputs, indices.total))
    assert abs(first["finance.discount_rate_per_year"]) < 0.02
    assert abs(total["finance.discount_rate_per_year"]) < 0.02
    assert total["options.rent.price_per_gpu_hour"] > 0.3


@pytest.mark.parametrize("distribution, field", [
    ({"distribution": "uniform", "low": 5, "high": 3}, "low"),
    ({"distribution": "normal", "mean": 4, "sd": -1}, "sd"),
    ({"distribution": "triangular", "low": 1, "mode": 9, "high": 5}, "mode"),
    ({"distribution": "normal", "mean": 4}, "sd"),
])
def test_bad_distributions_name_the_field(tmp_path, distribution, field):
    data = patched_data(H200)
    data["uncertainty"]["distributions"]["options.rent.price_per_gpu_hour"] = distribution
    path = write_scenario(tmp_path, data)
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    assert [p[0] for p in caught.value.problems] == [
        f"uncertainty.distributions.options.rent.price_per_gpu_hour.{field}"]


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

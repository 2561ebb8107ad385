"""training_cost_grid: a training run over arrays of inputs, against training_run and the closed form 6·N·D."""

import json

import numpy as np
import pytest
from conftest import patched, patched_data, write_scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.cli import main
from costmodel.domain.energy import training_energy
from costmodel.domain.training import training_cost_grid, training_run
from costmodel.domain.uncertainty import draw_inputs

TRAINING_SCENARIOS = (
    "deepseek-v3-training",
    "llama31-405b-training",
    "deepseek-v3-stages",
    "llama31-405b-as-published",
)
H800_BF16_DENSE = 989.0  # TFLOP/s, DeepSeek-V3 report / cases.md R3
H100_BF16_DENSE = 989.0  # TFLOP/s, NVIDIA H100 datasheet 1,979 sparse / 2


def scalar_figures(scenario, values=None):
    """The per-scenario figures today's path gives: training_run and training_energy on one resolved scenario."""
    r = costmodel.resolve(scenario, values=values)
    run = training_run(r)
    return run, training_energy(r, run).energy_mwh


def assert_element_equals(grid, index, run, mwh):
    """One element of a grid equals the scalar run's figures exactly."""
    assert grid.gpu_hours[index] == run.gpu_hours
    assert grid.ideal_gpu_hours[index] == run.ideal_gpu_hours
    assert grid.goodput[index] == run.goodput
    assert grid.wall_clock_days[index] == run.wall_clock_days
    assert grid.months[index] == run.months
    assert grid.energy_mwh[index] == mwh
    assert {o: c[index] for o, c in grid.costs.items()} == {o: sum(p.values()) for o, p in run.costs.items()}


class TestScalarEqualsToday:
    """With no arrays, the grid is the scenario's own run, bit for bit, and its compare --json figures."""

    @pytest.mark.parametrize("name", TRAINING_SCENARIOS)
    def test_equals_training_run(self, name):
        scenario = costmodel.load_scenario(name)
        grid = training_cost_grid(scenario)
        assert grid.gpu_hours.shape == ()
        assert_element_equals(grid, (), *scalar_figures(scenario))

    @pytest.mark.parametrize("name", TRAINING_SCENARIOS)
    def test_equals_compare_json(self, name, capsys):
        assert main(["compare", name, "--json", "--no-uncertainty"]) == 0
        shown = json.loads(capsys.readouterr().out)["training_run"]
        grid = training_cost_grid(costmodel.load_scenario(name))
        assert float(grid.gpu_hours) == pytest.approx(shown["gpu_hours"]["value"], abs=5e-4)  # JSON: 3 decimals
        for option, cost in grid.costs.items():
            assert float(cost) == pytest.approx(shown["cost"][option]["total"]["value"], abs=5e-3)  # 2 decimals


class TestArraysHoldingTheScenarios:
    """Arrays that contain the bundled scenarios' values: each element is that scenario's run."""

    def test_deepseek_tokens_by_mfu(self):
        scenario = costmodel.load_scenario("deepseek-v3-training")
        tokens, mfus = [1.0e13, 1.48e13, 2.0e13], [0.30, 0.346]
        grid = training_cost_grid(scenario, training_tokens=tokens, mfu=np.array(mfus)[:, None])
        assert grid.gpu_hours.shape == (2, 3)
        assert_element_equals(grid, (1, 1), *scalar_figures(scenario))  # the scenario itself
        for i, mfu in enumerate(mfus):
            for j, d in enumerate(tokens):
                changed = costmodel.with_inputs(scenario, {"workload.training_tokens": d, "workload.mfu": mfu})
                assert_element_equals(grid, (i, j), *scalar_figures(changed))

    def test_llama_gpus_and_rent_price_with_failures(self):
        # goodput from the failure model: the MTBF falls with the cluster's size
        scenario = costmodel.load_scenario("llama31-405b-training")
        gpus, prices = [8192, 16384, 24576], [2.0, 2.99]
        grid = training_cost_grid(
            scenario, cluster_gpus=gpus, values={"options.rent.price_per_gpu_hour": np.array(prices)[:, None]}
        )
        for i, price in enumerate(prices):
            for j, g in enumerate(gpus):
                changed = costmodel.with_inputs(scenario, {"workload.cluster_gpus": g})
                assert_element_equals(
                    grid, (i, j), *scalar_figures(changed, {"options.rent.price_per_gpu_hour": price})
                )
        assert len(set(grid.goodput[0].tolist())) == 3

    def test_parameters_of_a_model_stated_by_size(self):
        data = patched_data("deepseek-v3-training", {"workload.model": None, "workload.active_parameters": 37e9})
        scenario = costmodel.Scenario.model_validate(data)
        grid = training_cost_grid(scenario, active_parameters=[7e9, 37e9, 70e9])
        for j, n in enumerate([7e9, 37e9, 70e9]):
            changed = costmodel.with_inputs(scenario, {"workload.active_parameters": n})
            assert_element_equals(grid, j, *scalar_figures(changed))


class TestGeneratedConfigs:
    """The array result equals the scalar one element by element, over generated configurations."""

    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.lists(
            st.tuples(
                st.floats(1e12, 3e13), st.floats(0.2, 0.55), st.sampled_from([2048, 4096, 8192]), st.floats(1.0, 4.0)
            ),
            min_size=1,
            max_size=4,
        ),
        st.sampled_from(["deepseek-v3-training", "llama31-405b-training"]),
    )
    def test_elementwise(self, configs, name):
        scenario = costmodel.load_scenario(name)
        tokens, mfu, gpus, price = (np.array(c) for c in zip(*configs, strict=True))
        grid = training_cost_grid(
            scenario,
            training_tokens=tokens,
            mfu=mfu,
            cluster_gpus=gpus,
            values={"options.rent.price_per_gpu_hour": price},
        )
        for k, (d, m, g, p) in enumerate(configs):
            changed = costmodel.with_inputs(
                scenario, {"workload.training_tokens": d, "workload.mfu": m, "workload.cluster_gpus": g}
            )
            assert_element_equals(grid, k, *scalar_figures(changed, {"options.rent.price_per_gpu_hour": p}))


class TestClosedForm:
    """GPU-hours = 6·N·D / (peak FLOP/s × MFU) / 3,600 for a dense model (Kaplan et al. 2020, §2.1)."""

    def test_dense_llama_ideal_gpu_hours(self):
        # Llama 3.1 405B (dense, Dubey et al. 2024): 405e9 parameters, 15.6e12 tokens, H100 BF16 989 TFLOP/s
        mfu = np.array([0.38, 0.41, 0.43])  # Table 4's range
        grid = training_cost_grid(costmodel.load_scenario("llama31-405b-training"), mfu=mfu)
        expected = 6 * 405e9 * 15.6e12 / (H100_BF16_DENSE * 1e12 * mfu) / 3600
        assert grid.ideal_gpu_hours == pytest.approx(expected, rel=1e-12)
        assert grid.flop == pytest.approx(np.full(3, 3.7908e25), rel=1e-12)  # the paper states 3.8e25
        assert grid.gpu_hours == pytest.approx(expected / grid.goodput, rel=1e-12)

    def test_deepseek_rent_cost_is_gpu_hours_times_price(self):
        # no failure model: paid = ideal; billed per GPU-hour used at the report's 2 USD
        tokens = np.array([1.0e13, 1.48e13])
        grid = training_cost_grid(costmodel.load_scenario("deepseek-v3-training"), training_tokens=tokens)
        hours = 6 * 37e9 * tokens / (H800_BF16_DENSE * 1e12 * 0.346) / 3600
        assert grid.gpu_hours == pytest.approx(hours, rel=1e-12)
        assert grid.costs["rent"] == pytest.approx(2.0 * hours, rel=1e-12)
        assert grid.wall_clock_days == pytest.approx(hours / 2048 / 24, rel=1e-12)
        assert grid.months == pytest.approx(hours / 2048 / 730, rel=1e-12)


class TestBadInput:
    @pytest.mark.parametrize(
        ("arguments", "words"),
        [
            ({"mfu": [0.3, 1.2]}, "mfu must be in (0, 1]"),
            ({"training_tokens": [1e13, np.nan]}, "training_tokens must be finite"),
            ({"active_parameters": -1.0}, "active_parameters must be finite and above 0"),
            ({"cluster_gpus": [2048, 1024.5]}, "cluster_gpus must be a whole number"),
            ({"cluster_gpus": [64, 2048]}, "cluster_gpus 64 is too few"),
        ],
    )
    def test_refused_naming_the_argument(self, arguments, words):
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            training_cost_grid(costmodel.load_scenario("deepseek-v3-training"), **arguments)

    def test_stages_take_no_run_level_arrays(self):
        with pytest.raises(ValueError, match="stated by stages"):
            training_cost_grid(costmodel.load_scenario("deepseek-v3-stages"), mfu=[0.3, 0.4])

    def test_not_a_training_run(self):
        with pytest.raises(ValueError, match="not a training run"):
            training_cost_grid(costmodel.load_scenario("llama70b-vs-api"))

    def test_cluster_gpus_not_through_values(self):
        with pytest.raises(ValueError, match="as cluster_gpus="):
            training_cost_grid(
                costmodel.load_scenario("deepseek-v3-training"),
                values={"workload.cluster_gpus": np.array([1024.0, 2048.0])},
            )

    def test_unknown_input_path(self):
        with pytest.raises(KeyError):
            training_cost_grid(costmodel.load_scenario("deepseek-v3-training"), values={"options.rent.nope": 1.0})


class TestUncertainTrainingTokens:
    """An uncertainty block on training_tokens: compare --json runs the Monte Carlo over the array."""

    DATA = {
        "seed": 7,
        "samples": 2000,
        "distributions": {
            "workload.training_tokens": {"distribution": "lognormal", "median": 1.48e13, "sigma": 0.2, "source": "test"}
        },
    }

    def test_compare_json_exits_0_with_the_grids_percentiles(self, tmp_path, capsys):
        data = patched_data("deepseek-v3-training", {"uncertainty": self.DATA})
        path = write_scenario(tmp_path, data, "uncertain-tokens.yaml")
        assert main(["compare", str(path), "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)["uncertainty"]["cost_percentiles"]
        drawn, _ = draw_inputs(patched("deepseek-v3-training", {"uncertainty": self.DATA}))
        grid = training_cost_grid(
            costmodel.load_scenario("deepseek-v3-training"), training_tokens=drawn["workload.training_tokens"]
        )
        for option in ("own", "rent"):
            for p in (10, 50, 90):
                assert shown[option][f"p{p}"]["value"] == pytest.approx(
                    np.percentile(grid.costs[option], p), rel=1e-9, abs=0.01
                )

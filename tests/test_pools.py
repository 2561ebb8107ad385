"""costmodel.formulas.pools: the figures the serving-target search compares aggregated and
disaggregated serving by, each against its closed form worked by hand.

Request shape and figures: NVIDIA NIM 1.8.0's Llama 3.3 70B benchmark (5,000 input / 500 output
tokens, 2 x H100 80G per replica; data/serving_curves.csv); Llama 3.3 70B's KV cache in FP8 is
80 layers x 2,048 values x 1 byte = 163,840 bytes per token (data/models.csv, Pope et al. 2022).
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import costmodel
from costmodel import formulas
from costmodel.formulas import pools, serving_curves
from costmodel.resolved import resolve

KV_FP8 = 80 * 2048 * 1.0  # [bytes/token]
INPUTS, OUTPUTS = 5_000, 500  # [tokens]


class TestPrefillSeconds:
    def test_a_prompt_shared_by_the_replicas_gpus(self):
        # 5,000 tokens at 0.2 ms of GPU time each on 2 GPUs: 5,000 x 0.0002 / 2 = 0.5 s
        assert pools.prefill_seconds(0.0002, INPUTS, 2) == pytest.approx(0.5)

    def test_twice_the_gpus_half_the_time(self):
        assert pools.prefill_seconds(0.0002, INPUTS, 4) == pytest.approx(0.25)


class TestDisaggregatedTtft:
    def test_mean_at_half_utilisation(self):
        # f(mean) = 1: 0.5 s / 0.5 = 1 s
        assert pools.disaggregated_ttft(0.5, 0.5, "mean") == pytest.approx(1.0)

    def test_p99_factor_and_utilisation_capped_at_one(self):
        # f(p99) = -ln(1 - 0.99) = ln 100 = 4.60517; rho 1.7 counts as 1
        assert pools.disaggregated_ttft(0.5, 1.7, "p99") == pytest.approx(0.5 * math.log(100))

    def test_at_the_pools_ceiling(self):
        # rho = 1 - f t_p / T (serving_curves.prefill_pool_utilisation); the figure is f t_p / rho
        rho = serving_curves.prefill_pool_utilisation(0.1, 1.0, "p90")
        assert rho == pytest.approx(1 - 0.1 * math.log(10))
        assert pools.disaggregated_ttft(0.1, rho, "p90") == pytest.approx(0.1 * math.log(10) / rho)


class TestPrefillGpuSecondsPerOutputToken:
    def test_pool_below_the_fleets_utilisation_costs_more(self):
        # c I/O u/rho = 0.0002 x 10 x 0.8/0.4 = 0.004 GPU-s per output token
        assert pools.prefill_gpu_seconds_per_output_token(0.0002, INPUTS, OUTPUTS, 0.8, 0.4) == pytest.approx(0.004)

    def test_pool_above_the_fleets_utilisation_costs_its_gpu_time(self):
        # u/rho = 0.8/0.9 < 1: the factor is 1, c I/O = 0.002
        assert pools.prefill_gpu_seconds_per_output_token(0.0002, INPUTS, OUTPUTS, 0.8, 0.9) == pytest.approx(0.002)

    @given(st.floats(0.01, 1.0), st.floats(0.01, 3.0))
    def test_never_below_the_prompts_gpu_time(self, target, rho):
        assert pools.prefill_gpu_seconds_per_output_token(0.0002, INPUTS, OUTPUTS, target, rho) >= 0.002 * (1 - 1e-12)


class TestDisaggregatedGpuSecondsPerToken:
    def test_decode_and_prefill_add(self):
        # NIM at concurrency 25: 623.4 tokens/s per 2 GPUs = 311.7 per GPU; 1/311.7 + 0.002
        assert pools.disaggregated_gpu_seconds_per_token(311.7, 0.002) == pytest.approx(1 / 311.7 + 0.002)


class TestOutputRateToProvision:
    def test_by_hand(self):
        # 864 million tokens a day, a tenth output: 86.4e6 / 86,400 = 1,000 tokens/s; at a ceiling of 0.5: 2,000
        assert pools.output_rate_to_provision(864e6, 0.1, 0.5) == pytest.approx(2_000.0)


class TestReplicasForRate:
    def test_rounds_up_to_whole_replicas(self):
        # 2,000 tokens/s x 0.003 GPU-s = 6 GPUs busy = 3 replicas of 2; 6.2 GPUs would be 4
        assert pools.replicas_for_rate(2_000, 0.003, 2) == 3
        assert pools.replicas_for_rate(2_000, 0.0031, 2) == 4

    def test_an_exact_count_with_a_last_digit_error_does_not_round_up(self):
        assert pools.replicas_for_rate(0.1 * 3, 10.0, 1) == 3  # 0.1 x 3 = 0.30000000000000004

    def test_minimum(self):
        assert pools.replicas_for_rate(1.0, 0.001, 8, 2) == 2

    def test_broadcasts_over_a_series(self):
        out = pools.replicas_for_rate(pd.Series([2_000.0, 20_000.0], index=["a", "b"]), 0.003, 2)
        assert isinstance(out, pd.Series) and list(out.index) == ["a", "b"] and list(out) == [3.0, 30.0]

    @given(st.floats(1.0, 1e6), st.floats(1e-5, 1e-1), st.integers(1, 64))
    def test_enough_and_not_one_too_many(self, rate, per_token, replica):
        n = pools.replicas_for_rate(rate, per_token, replica)
        busy = rate * per_token / replica
        assert n >= busy - 1e-9 and n - 1 < max(busy, 1.0)


class TestKvCache:
    def test_a_batch_at_full_length(self):
        # 32 requests x 5,500 tokens x 163,840 bytes = 28.835840 GB
        assert pools.kv_cache_bytes_of_batch(32, INPUTS, OUTPUTS, KV_FP8) == pytest.approx(28.83584e9)

    def test_in_flight_holds_the_prompt_and_half_the_output(self):
        # 32 x (5,000 + 250) x 163,840 = 27.525120 GB
        assert pools.mean_kv_cache_bytes_in_flight(32, INPUTS, OUTPUTS, KV_FP8) == pytest.approx(27.52512e9)

    def test_the_same_per_token_figure_as_the_serving_formula(self):
        per_token = formulas.kv_cache_bytes_per_token(80, 2048, "fp8")
        assert pools.kv_cache_bytes_of_batch(1, 1, 0, per_token) == pytest.approx(KV_FP8)

    def test_arrays(self):
        np.testing.assert_allclose(
            pools.kv_cache_bytes_of_batch(np.array([1, 2]), INPUTS, OUTPUTS, KV_FP8), [5500 * KV_FP8, 11000 * KV_FP8]
        )


class TestModeChosenAtTheScenarioVolume:
    """serving_target's ``auto`` mode: whole replicas of each mode at the scenario's rate, by hand from the plan's
    GPU time per output token (rate = tokens/day x output share / 86,400 / (target utilisation / peak-to-average))."""

    @staticmethod
    def _gpus(rate, per_token, replica, minimum):
        return max(math.ceil(rate * per_token / replica - 1e-9), minimum) * replica

    @pytest.mark.parametrize(
        ("scenario", "mode", "reason"),
        [
            # 1e9 tokens/day at 1:1, 0.8 / 2.0: 14,468 output tokens/s; 0.229 vs 0.193 GPU-ms on 1-GPU replicas
            ("qwen3-32b-chat-target", "disaggregated", "3 GPUs against 4 (aggregated)"),
            # 1e7 tokens/day at 2:1: 96.5 output tokens/s; one 2-GPU replica, but two pools need two
            ("llama70b-interactive", "aggregated", "2 GPUs against 4 (disaggregated)"),
        ],
    )
    def test_fewer_gpus_wins(self, scenario, mode, reason):
        resolved = resolve(costmodel.load_scenario(scenario))
        plan, replica = resolved.workload.capacity.plan, resolved.workload.capacity.gpus_per_replica
        work = resolved.scenario.workload
        rate = work.tokens_per_day / (1 + work.input_tokens_per_output_token) / 86_400
        rate /= work.serving.target_utilisation / work.serving.peak_to_average
        aggregated = self._gpus(rate, plan.aggregated_gpu_seconds_per_token, replica, 1)
        disaggregated = self._gpus(rate, plan.disaggregated_gpu_seconds_per_token, replica, 2)
        assert plan.mode == mode == ("disaggregated" if disaggregated < aggregated else "aggregated")
        assert f"{min(aggregated, disaggregated)} GPUs against {max(aggregated, disaggregated)}" in plan.mode_reason
        assert reason in plan.mode_reason

    def test_disaggregated_prefill_share_is_the_prefill_pools_part(self):
        plan = resolve(costmodel.load_scenario("qwen3-32b-chat-target")).workload.capacity.plan
        # the decode pool's GPU time per token is 1 / its point's throughput; the rest is the prefill pool's
        decode = 1 / plan.decode_point.throughput_per_gpu
        assert plan.prefill_share == pytest.approx(1 - decode / plan.disaggregated_gpu_seconds_per_token)

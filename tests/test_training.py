"""Training compute against the reference cases R3 (DeepSeek-V3), R4 (Llama 3.1 405B), R5 (Chinchilla)."""

import json
import math
import shutil

import pytest
from conftest import patched, patched_data, write_scenario
from hypothesis import given
from hypothesis import strategies as st

import costmodel
from costmodel.cli import main
from costmodel.domain.training import training_run
from costmodel.formulas import (
    goodput_fraction,
    mfu_from_gpu_hours,
    min_gpus_for_training_state,
    training_flop,
    training_gpu_hours,
)
from costmodel.paths import DATA_DIR
from costmodel.scenarios import validate_data

H800_BF16_DENSE = 989.0  # TFLOP/s, DeepSeek-V3 report / cases.md R3
H100_BF16_DENSE = 989.0  # TFLOP/s, NVIDIA H100 datasheet 1,979 sparse / 2


class TestR3DeepSeekV3:
    """DeepSeek-V3 Technical Report (arXiv 2412.19437) Table 1, via cases.md R3."""

    flop = 6 * 37e9 * 14.8e12  # 3.2856e24

    def test_mfu_backed_out_of_the_reports_figures(self):
        # 2,664 K H800 GPU-hours of pretraining
        mfu = mfu_from_gpu_hours(self.flop, H800_BF16_DENSE, 2.664e6)
        assert mfu == pytest.approx(0.346, abs=0.005)

    def test_forward_gpu_hours_and_cost(self):
        hours = training_gpu_hours(self.flop, H800_BF16_DENSE, 0.346)
        assert hours == pytest.approx(2.664e6, rel=0.005)
        assert hours * 2.0 == pytest.approx(5.328e6, rel=0.005)  # $2 per GPU-hour

    @given(mfu=st.floats(0.01, 1.0), flop=st.floats(1e18, 1e27), peak=st.floats(10, 20000))
    def test_back_out_and_forward_are_inverses(self, mfu, flop, peak):
        assert mfu_from_gpu_hours(flop, peak, training_gpu_hours(flop, peak, mfu)) == pytest.approx(mfu, rel=1e-12)

    def test_scenario_reports_gpu_hours_cost_and_days(self):
        run = training_run(costmodel.load_scenario("deepseek-v3-training"))
        assert run.gpu_hours == pytest.approx(2.664e6, rel=0.005)
        assert run.total("rent") == pytest.approx(5.328e6, rel=0.005)
        # "3.7 days per trillion tokens on 2,048 GPUs" x 14.8 T tokens
        assert run.wall_clock_days == pytest.approx(3.7 * 14.8, rel=0.015)
        # 671 B parameters x 16 B of training state over 80 GB H800 memory
        assert run.min_gpus_sharded == -(-671e9 * 16 // 80e9)
        assert run.min_gpus_unsharded is None

    def test_compare_json_has_the_training_run(self, capsys):
        assert main(["compare", "deepseek-v3-training", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)["training_run"]
        assert data["gpu_hours"]["unit"] == "GPU-h"
        assert data["gpu_hours"]["value"] == pytest.approx(2.664e6, rel=0.005)
        assert data["cost"]["rent"]["total"]["value"] == pytest.approx(5.328e6, rel=0.005)
        assert data["job_mtbf"] == {"value": None, "unit": "h", "status": "not_applicable"}


class TestR4Llama405B:
    """Llama 3 paper (arXiv 2407.21783) Table 4 and the Llama 3.1 model card, via cases.md R4."""

    flop = 6 * 405e9 * 15.6e12

    def test_six_n_d_matches_the_stated_compute(self):
        assert training_flop(405e9, 15.6e12) == pytest.approx(3.8e25, rel=0.05)

    def test_mfu_range_brackets_the_model_card_hours(self):
        # The model card's 30.84 M GPU-hours include restarts and other losses; at the paper's
        # "higher than 90 %" effective training time, the productive hours are about 0.9 of them.
        productive = 30.84e6 * 0.90
        fast, slow = (training_gpu_hours(self.flop, H100_BF16_DENSE, m) for m in (0.43, 0.38))
        assert fast < productive < slow
        # averaged over all the card's hours, the MFU is about 34.5 % (cases.md R4)
        assert mfu_from_gpu_hours(3.8e25, H100_BF16_DENSE, 30.84e6) == pytest.approx(0.345, abs=0.005)

    def test_scenario_goodput_and_hours(self):
        run = training_run(costmodel.load_scenario("llama31-405b-training"))
        # 419 interruptions in 54 days on 16,384 GPUs: one every 3.09 h (§3.3.4)
        assert run.job_mtbf_hours == pytest.approx(54 * 24 / 419, rel=0.002)
        assert 0.90 < run.goodput < 0.93
        assert run.gpu_hours == pytest.approx(training_gpu_hours(self.flop, 989, 0.41) / run.goodput, rel=1e-12)
        assert run.gpu_hours < 30.84e6


@pytest.mark.parametrize(
    "parameters, tokens, stated",
    [
        # Hoffmann et al. 2022 (Chinchilla), Table 3, via cases.md R5
        (400e6, 8.0e9, 1.92e19),
        (1e9, 20.2e9, 1.21e20),
        (10e9, 205.1e9, 1.23e22),
        (175e9, 3.7e12, 3.85e24),
        (280e9, 5.9e12, 9.90e24),
        (520e9, 11.0e12, 3.43e25),
    ],
)
def test_chinchilla_budgets(parameters, tokens, stated):
    assert training_flop(parameters, tokens) == pytest.approx(stated, rel=0.05)


def test_state_memory_sharded_and_unsharded():
    # 7 B parameters x 16 B = 112 GB: no single 80 GB GPU holds it, two do when sharded
    assert min_gpus_for_training_state(112e9, 0, 80e9, sharded=True) == 2
    assert min_gpus_for_training_state(112e9, 0, 80e9, sharded=False) is None
    # 1 B parameters x 16 B = 16 GB plus 20 GB of activations fit on one
    assert min_gpus_for_training_state(16e9, 20e9, 80e9, sharded=False) == 1
    assert min_gpus_for_training_state(16e9, 90e9, 80e9, sharded=True) is None


def bad(tmp_path, **workload):
    path = write_scenario(
        tmp_path, patched_data("deepseek-v3-training", {f"workload.{k}": v for k, v in workload.items()})
    )
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    return [p[0] for p in caught.value.problems], str(caught.value)


@pytest.mark.parametrize("mfu", [0, 1.2, -0.3])
def test_mfu_must_be_in_zero_one(tmp_path, mfu):
    assert bad(tmp_path, mfu=mfu)[0] == ["workload.mfu"]


def test_negative_tokens(tmp_path):
    assert bad(tmp_path, training_tokens=-1e12)[0] == ["workload.training_tokens"]


def test_precision_the_gpu_lacks(tmp_path):
    fields, text = bad(tmp_path, precision="fp4")
    assert fields == ["workload.precision"] and "no fp4" in text


def test_cluster_too_small_for_the_training_state(tmp_path):
    fields, text = bad(tmp_path, cluster_gpus=64)
    assert fields == ["workload.cluster_gpus"] and "135" in text


def test_changed_inputs_are_validated_afresh():
    scenario = costmodel.load_scenario("deepseek-v3-training")
    faster = costmodel.with_inputs(scenario, {"workload.mfu": 0.692})
    assert training_run(faster).ideal_gpu_hours == pytest.approx(training_run(scenario).ideal_gpu_hours / 2, rel=1e-12)
    with pytest.raises(costmodel.ScenarioError, match="workload.mfu"):
        costmodel.with_inputs(scenario, {"workload.mfu": 1.5})
    with pytest.raises(costmodel.ScenarioError, match="not a field of this scenario"):
        costmodel.with_inputs(scenario, {"workload.goodput.checkpoint_write_minutes": 2})


def test_tiny_mfu_is_refused_by_name(tmp_path):
    fields, text = bad(tmp_path, mfu=1e-300)
    assert fields == ["workload.mfu"] and "magnitude" in text


def test_a_job_that_cannot_progress_is_refused():
    data = patched_data(
        "llama31-405b-training",
        {
            "workload.goodput.failures_per_gpu_per_year": 50,
            "workload.goodput.checkpoint_write_minutes": 10,
            "workload.goodput.restart_minutes": 30,
        },
    )
    with pytest.raises(costmodel.ScenarioError, match="leave it .* of the time to train"):
        validate_data(data)


def test_goodput_is_never_rounded_to_zero():
    # a failure every 0.5 h, 10-minute writes, 30-minute restarts: tau / (M e^(R/M) (e^((tau+delta)/M) - 1))
    expected = 0.4 / (0.5 * math.exp(1.0) * math.expm1((0.4 + 10 / 60) / 0.5))
    assert goodput_fraction(0.4, 10 / 60, 0.5, 0.5) == pytest.approx(expected, rel=1e-12)
    assert 0 < expected < 0.2


def test_custom_catalog_is_used(tmp_path):
    for name in ("gpus.csv", "servers.csv", "cloud_prices.csv", "api_prices.csv", "models.csv", "throughput.csv"):
        shutil.copy(DATA_DIR / name, tmp_path / name)
    gpus = tmp_path / "gpus.csv"
    row = "H800-SXM-80GB,NVIDIA H800 SXM 80GB,80,3.35,"
    gpus.write_text(gpus.read_text().replace(row + "989,", row + "1978,"))
    catalog = costmodel.load_catalog(tmp_path)
    scenario = costmodel.load_scenario("deepseek-v3-training", catalog=catalog)
    assert training_run(scenario).ideal_gpu_hours == pytest.approx(
        training_run(costmodel.load_scenario("deepseek-v3-training")).ideal_gpu_hours / 2
    )
    assert costmodel.with_inputs(scenario, {"workload.mfu": 0.3}).catalog is catalog


def test_a_run_faster_than_the_published_ones_for_want_of_failures_is_told_so():
    # R4 at 35 % MFU with no failure model: 0.35 x 989 TFLOP/s (H100 dense BF16) = 346 TFLOP/s over the GPU-hours
    # paid, above the published Hopper runs' 138-343 (Llama 3 405B: 6 x 405e9 x 15.6e12 FLOP / 30.84 M GPU-hours
    # = 341), whose GPU-hours include failures and restarts; a newcomer with an ordinary MFU read the warning as
    # an implausible input. With R4's own goodput block the warning stays as it was (the golden file's words).
    bare = training_run(patched("llama31-405b-training", {"workload.mfu": 0.35, "workload.goodput": None}))
    (said,) = [w for w in bare.warnings if "than any published" in w]
    assert said.startswith("the run needs fewer GPU-hours per token than any published Hopper run: 346 TFLOP/s")
    assert said.endswith("which this run does not model: a workload.goodput block does")
    modelled = training_run(patched("llama31-405b-training"))
    assert not any("does not model" in w for w in modelled.warnings)


def test_the_verdict_of_a_run_says_the_own_cluster_is_charged_only_the_months_it_takes():
    # a newcomer's one-off fine-tune "won" on a 310,000 USD server charged 10 hours of it, with no word of that
    # outside the report. R4: 28,427,796 GPU-hours / (16,384 GPUs x 730 h) = 2.38 months of a cluster of 2,048
    # servers at 270,000 USD (data/servers.csv dgx-h100) = 552,960,000 USD
    from costmodel.domain.compare import compare

    described = compare(costmodel.load_scenario("llama31-405b-training")).decision.description
    assert described == (
        "the cost of the whole training run (28,427,796 GPU-hours; the own cluster charged only the 2.4 months of "
        "depreciation and running costs the run takes, not the 552,960,000 USD it costs to buy)"
    )

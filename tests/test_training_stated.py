"""Training runs stated as papers and model cards state them (issue 15).

Expected values are worked by hand from the cited sources: DeepSeek-V3 Technical Report
(arXiv 2412.19437) Table 1 via cases.md R3; the Llama 3 paper (arXiv 2407.21783) Table 4 and
§3.3.4 via cases.md R4 and facts.md; Young (1974), Daly (2006); Rajbhandari et al. (2020,
ZeRO) and Korthikanti et al. (2022, activations) for memory per GPU.
"""

import json
import math

import pytest
import yaml
from conftest import catalog_with, patched, patched_data, scenario_data
from pydantic import ValidationError

import costmodel
from costmodel.cli import main
from costmodel.domain.training import training_run
from costmodel.errors import ScenarioError
from costmodel.formulas import (
    checkpoint_steps,
    daly_interval,
    gpu_hours_lost_per_failure,
    interval_with_restart,
    mfu_from_achieved_tflops,
    mfu_from_tokens_per_second,
    young_interval,
    zero_state_bytes_per_gpu,
)

R3_FLOP = 6 * 37e9 * 14.8e12  # 6·N·D, cases.md R3
H800_BF16 = 989e12  # FLOP/s, gpus.csv (DeepSeek-V3 report)


def r3(changes: dict) -> costmodel.Scenario:
    """R3 with its run-level MFU replaced by another basis."""
    return patched("deepseek-v3-training", {"workload.mfu": None, **changes})


class TestR3StatedByWallClock:
    """R3: 2,048 H800 for 54.2 days (2,664 K GPU-hours, $5.328 M at $2: arXiv 2412.19437 Table 1)."""

    hand_gpu_hours = 2048 * 54.2 * 24  # 2,664,038.4 GPU-h

    @pytest.mark.parametrize(
        "changes",
        [
            {"workload.wall_clock_days": 54.2},
            {"workload.wall_clock_hours": 54.2 * 24},
            {"workload.wall_clock": "54-04:48:00"},
        ],
    )  # 0.2 d = 4 h 48 min
    def test_gpu_hours_and_cost_within_a_tenth_of_a_percent(self, changes):
        run = training_run(r3(changes))
        assert run.gpu_hours == pytest.approx(self.hand_gpu_hours, rel=1e-9)
        assert run.gpu_hours == pytest.approx(2.664e6, rel=1e-3)
        assert run.total("rent") == pytest.approx(5.328e6, rel=1e-3)  # $2 per GPU-hour
        assert run.wall_clock_days == pytest.approx(54.2)

    def test_mfu_backed_out(self):
        run = training_run(r3({"workload.wall_clock_days": 54.2}))
        # 3.2856e24 / (989e12 × 3,600 × 2,664,038.4) = 0.3464 (cases.md R3: "≈ 35 %")
        assert run.mfu == pytest.approx(R3_FLOP / (H800_BF16 * 3600 * self.hand_gpu_hours), rel=1e-9)
        assert run.mfu == pytest.approx(0.3464, abs=1e-4)
        assert run.warnings == ()

    def test_wall_clock_without_tokens_has_no_mfu(self):
        s = r3({"workload.wall_clock_days": 54.2, "workload.training_tokens": None})
        run = training_run(s)
        assert run.gpu_hours == pytest.approx(self.hand_gpu_hours)
        assert run.mfu is None and run.flop is None
        shown = costmodel.comparison_output(costmodel.compare(s), s, uncertainty=False).training_run
        assert shown is not None and shown.mfu_fraction.value is None and shown.mfu_fraction.status == "not_defined"


class TestR3Stages:
    """deepseek-v3-stages: Table 1's three stages in one scenario."""

    def test_totals_match_table_1(self):
        run = training_run(costmodel.load_scenario("deepseek-v3-stages"))
        assert run.gpu_hours == pytest.approx(2.788e6, rel=1e-3)
        assert run.total("rent") == pytest.approx(5.576e6, rel=1e-3)
        by_name = {s.name: s for s in run.stages}
        assert list(by_name) == ["pre-training", "context extension", "post-training"]
        # 180 K GPU-hours per trillion tokens × 14.8 T = 2,664 K; 119 K; 5 K
        assert [s.gpu_hours for s in run.stages] == pytest.approx([2.664e6, 119e3, 5e3])
        assert [s.costs["rent"] for s in run.stages] == pytest.approx([5.328e6, 0.238e6, 0.010e6])
        assert by_name["pre-training"].mfu == pytest.approx(R3_FLOP / (H800_BF16 * 3600 * 2.664e6))
        assert by_name["post-training"].mfu is None
        # days: 2,788 K / 2,048 / 24
        assert run.wall_clock_days == pytest.approx(2.788e6 / 2048 / 24)

    def test_stage_by_tokens_and_mfu_and_by_wall_clock(self):
        data = patched_data(
            "deepseek-v3-stages",
            {
                "workload.stages.0": {"name": "pre-training", "training_tokens": 1.48e13, "mfu": 0.346},
                "workload.stages.1": {"name": "context extension", "wall_clock": "2-10:00:00", "gpus": 1024},
            },
        )
        run = training_run(costmodel.Scenario.model_validate(data))
        # 6 × 37e9 × 14.8e12 / (989e12 × 0.346) / 3,600; 1,024 GPUs × 58 h
        assert run.stages[0].gpu_hours == pytest.approx(R3_FLOP / (H800_BF16 * 0.346) / 3600)
        assert run.stages[1].gpu_hours == pytest.approx(1024 * 58)
        assert run.stages[1].wall_clock_days == pytest.approx(58 / 24)

    def test_compare_json_lists_the_stages_and_warnings(self, capsys):
        assert main(["compare", "deepseek-v3-stages", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["warnings"] == []
        stages = data["training_run"]["stages"]
        assert [s["gpu_hours"]["value"] for s in stages] == [2664000.0, 119000.0, 5000.0]

    @pytest.mark.parametrize(
        "changes, field",
        [
            ({"workload.mfu": 0.3}, "mfu"),  # run-level and stages
            ({"workload.training_tokens": 1e12}, "training_tokens"),  # would be ignored
            ({"workload.stages.2.gpus": 4096}, "gpus"),  # above cluster_gpus
            ({"workload.stages.1": {"name": "context extension", "gpu_hours": 1.0, "mfu": 0.3}}, "gpu_hours"),
            ({"workload.stages.1": {"name": "pre-training", "gpu_hours": 1.0}}, "stages"),  # repeated name
            ({"workload.stages.1": {"name": "x", "mfu": 0.3}}, "training_tokens"),  # MFU without tokens
            ({"workload.stages.1": {"name": "x", "wall_clock": "54 days"}}, "wall_clock"),
        ],
    )
    def test_stated_twice_or_badly_is_an_error_naming_the_field(self, changes, field):
        with pytest.raises(ValidationError) as info:
            patched("deepseek-v3-stages", changes)
        assert any(field in ".".join(map(str, e["loc"])) for e in info.value.errors())


class TestR4AsPublished:
    """llama31-405b-as-published: Table 4's achieved TFLOP/s and §3.3.4's interruption count."""

    def test_achieved_tflops_give_the_tables_mfu(self):
        # Table 4 (facts.md): 430 TFLOP/s → 43 %, 380 → 38 %; 400 → 40.4 % (the table prints 41 %)
        assert round(mfu_from_achieved_tflops(430, 989) * 100) == 43
        assert round(mfu_from_achieved_tflops(380, 989) * 100) == 38
        run = training_run(costmodel.load_scenario("llama31-405b-as-published"))
        assert run.mfu == pytest.approx(400 / 989)
        assert run.mfu == pytest.approx(0.41, abs=0.01)

    def test_tokens_per_second_basis(self):
        # 400 TFLOP/s ÷ (6 × 405e9) = 164.61 tokens/s per GPU gives the same MFU back
        tokens_per_s = 400e12 / (6 * 405e9)
        assert mfu_from_tokens_per_second(405e9, tokens_per_s, 989) == pytest.approx(400 / 989)
        scenario = patched(
            "llama31-405b-as-published",
            {"workload.achieved_tflops_per_gpu": None, "workload.tokens_per_second_per_gpu": tokens_per_s},
        )
        assert training_run(scenario).mfu == pytest.approx(400 / 989)

    def test_counted_failures_give_the_rate_based_job_mtbf(self):
        counted = training_run(costmodel.load_scenario("llama31-405b-as-published"))
        rated = training_run(costmodel.load_scenario("llama31-405b-training"))
        # 54 days × 24 h / 419 interruptions = 3.0931 h
        assert counted.job_mtbf_hours == pytest.approx(54 * 24 / 419, rel=1e-12)
        assert counted.job_mtbf_hours == pytest.approx(rated.job_mtbf_hours, rel=1e-5)
        assert round(counted.job_mtbf_hours, 4) == round(rated.job_mtbf_hours, 4) == 3.0931
        # each cause its own rate: 256 GPU interruptions → MTBF 54 × 24 / 256 = 5.0625 h
        assert counted.failures_by_cause["gpu"][1] == pytest.approx(5.0625)
        assert sum(1 / m for _, m in counted.failures_by_cause.values()) == pytest.approx(1 / counted.job_mtbf_hours)

    def test_steps_and_gpu_hours_lost_per_failure(self):
        run = training_run(costmodel.load_scenario("llama31-405b-as-published"))
        # Daly with δ = 0.5 min, M = 185.585 min: √185.585 × (1 + √(0.5/371.17)/3 + 0.5/371.17/9) − 0.5 = 13.2916 min
        assert run.checkpoint_interval_hours * 60 == pytest.approx(13.2916, abs=1e-3)
        assert run.checkpoint_interval_steps == math.floor(13.2916 * 60 / 5.9) == 135
        # 16,384 × (3 + (13.2916 + 0.5) / 2) / 60 GPU-h
        assert run.gpu_hours_lost_per_failure == pytest.approx(16384 * (3 + (13.2916 + 0.5) / 2) / 60, rel=1e-4)

    @pytest.mark.parametrize(
        "changes, field",
        [
            ({"workload.goodput.failures_per_gpu_per_year": 0.17}, "failures_per_gpu_per_year"),  # rate and count
            ({"workload.goodput.days": None}, "days"),
            ({"workload.goodput.causes.cpu": 3}, "causes"),  # adds to 420
        ],
    )
    def test_failure_statement_errors(self, changes, field):
        with pytest.raises(ValidationError) as info:
            patched("llama31-405b-as-published", changes)
        assert any(field in ".".join(map(str, e["loc"])) for e in info.value.errors())


class TestCheckpointFormulas:
    """δ = 5 min, M = 180 min, R = 3 min, worked by hand."""

    def test_young(self):
        # Young (1974): √(2 × 5 × 180) = √1800 = 42.4264 min
        assert young_interval(5 / 60, 3.0) * 60 == pytest.approx(42.4264, abs=1e-4)

    def test_daly(self):
        # Daly (2006) eq. 37: x = 5/360; 42.4264 × (1 + √x/3 + x/9) − 5 = 39.1581 min
        assert daly_interval(5 / 60, 3.0) * 60 == pytest.approx(39.1581, abs=1e-3)

    def test_young_with_restart(self):
        # √(2 × 5 × (180 + 3)) = √1830 = 42.7785 min
        assert interval_with_restart(5 / 60, 3.0, 3 / 60) * 60 == pytest.approx(42.7785, abs=1e-4)

    def test_step_time_turns_the_interval_into_steps(self):
        # 39.1581 min = 2,349.5 s at 10 s a step: 234 whole steps; never below 1
        assert checkpoint_steps(daly_interval(5 / 60, 3.0), 10.0) == 234
        assert checkpoint_steps(1 / 3600, 60.0) == 1

    def test_lost_per_failure(self):
        # 1,000 GPUs × (3 + (39.1581 + 5)/2) min = 25,079 GPU-min
        lost = gpu_hours_lost_per_failure(1000, daly_interval(5 / 60, 3.0), 5 / 60, 3 / 60)
        assert lost * 60 == pytest.approx(1000 * (3 + (39.1581 + 5) / 2), rel=1e-5)

    @pytest.mark.parametrize("interval, minutes", [("young", 42.4264), ("daly", 39.1581), ("young_restart", 42.7785)])
    def test_the_scenario_uses_the_formula_it_names(self, interval, minutes):
        # rate giving M = 180 min on 16,384 GPUs: 8,760 / (3 × 16,384)
        scenario = patched(
            "llama31-405b-training",
            {
                "workload.goodput.failures_per_gpu_per_year": 8760 / (3 * 16384),
                "workload.goodput.checkpoint_write_minutes": 5.0,
                "workload.goodput.interval": interval,
            },
        )
        run = training_run(scenario)
        assert run.checkpoint_interval_hours * 60 == pytest.approx(minutes, abs=1e-3)
        assert run.checkpoint_intervals["young"] * 60 == pytest.approx(42.4264, abs=1e-4)


def seventy_b_on_24_h200(plan: dict) -> costmodel.Scenario:
    """Llama 3.3 70B (70.6 B parameters, 80 layers; models.csv) trained on 24 H200 with a plan."""
    data = scenario_data("h200-24gpu-cluster")
    data["workload"] = {
        "kind": "training",
        "gpu": "H200-SXM-141GB",
        "model": "llama-3.3-70b",
        "training_tokens": 1e12,
        "precision": "bf16",
        "mfu": 0.4,
        "cluster_gpus": 24,
        "parallelism": {"sequence_length": 8192, "hidden_size": 8192, "attention_heads": 64, **plan},
    }
    for block in ("demand", "uncertainty", "finance"):
        data.pop(block, None)
    return costmodel.Scenario.model_validate(data)


class TestSeventyBOn24H200:
    """Which sharding fits a 70 B model on 24 H200 (141 GB)? Hand-computed memory per GPU."""

    psi = 70.6e9 / 8  # parameters per tensor-parallel rank (TP 8)
    activations = 80 * 8192 * 8192 * 34 / 8  # Korthikanti Table 2, selective + sequence parallel: 22.82 GB

    def test_zero_1(self):
        run = training_run(seventy_b_on_24_h200({"tensor_parallel": 8, "data_parallel": 3, "zero_stage": 1}))
        # (2 + 2) Ψ + 12 Ψ / 3 = 35.3 + 35.3 = 70.6 GB
        assert run.memory.state_bytes == pytest.approx(4 * self.psi + 12 * self.psi / 3)
        assert run.memory.state_bytes == pytest.approx(70.6e9)
        assert run.memory.activation_bytes == pytest.approx(self.activations)
        assert run.memory.total_bytes / 1e9 == pytest.approx(93.42, abs=0.01)
        assert run.memory.fits

    def test_zero_3(self):
        s = seventy_b_on_24_h200({"tensor_parallel": 8, "data_parallel": 3, "fsdp": True})
        run = training_run(s)
        # 16 Ψ / 3 = 47.07 GB
        assert run.memory.state_bytes == pytest.approx(16 * self.psi / 3)
        assert run.memory.total_bytes / 1e9 == pytest.approx(69.88, abs=0.01)
        shown = costmodel.comparison_output(costmodel.compare(s), s, uncertainty=False).training_run
        assert shown is not None and shown.memory_per_gpu is not None
        assert shown.memory_per_gpu.zero_stage == 3 and shown.memory_per_gpu.total.value == pytest.approx(
            69.88, abs=0.01
        )

    def test_zero_1_without_tensor_parallelism_does_not_fit(self):
        # 4 × 70.6 + 12 × 70.6 / 24 = 317.7 GB of state alone, against 141 GB
        with pytest.raises(ScenarioError) as info:
            costmodel.resolve(seventy_b_on_24_h200({"data_parallel": 24, "zero_stage": 1}))
        assert "workload.parallelism" in str(info.value) and "does not fit" in str(info.value)

    def test_zero_3_data_parallel_fits_with_full_recomputation(self):
        # 16 × 70.6 / 24 = 47.07 GB + 80 × 8,192² × 2 B = 10.74 GB
        run = training_run(
            seventy_b_on_24_h200({"data_parallel": 24, "zero_stage": 3, "activation_recomputation": "full"})
        )
        assert run.memory.total_bytes == pytest.approx(16 * 70.6e9 / 24 + 80 * 8192 * 8192 * 2)

    def test_zero_paper_example(self):
        # Rajbhandari et al. (2020) Figure 1: 7.5 B parameters, N_d = 64: 120, 31.4, 16.6, 1.9 GB
        assert [round(zero_state_bytes_per_gpu(7.5e9, 64, s) / 1e9, 1) for s in range(4)] == [120.0, 31.4, 16.6, 1.9]

    def test_plan_must_cover_the_cluster(self):
        with pytest.raises(ValidationError, match="parallelism"):
            seventy_b_on_24_h200({"tensor_parallel": 8, "data_parallel": 2})


class TestPrecisionAndWarnings:
    def test_fp16_and_tf32_peaks(self):
        # gpus.csv: A100 FP16 dense 312 (624 sparse / 2); H100 TF32 dense 494.5 (989 sparse / 2)
        gpus = costmodel.resolve(costmodel.load_scenario("deepseek-v3-training")).catalog.gpus
        assert gpus["A100-SXM-80GB"].dense_tflops("fp16") == 312
        assert gpus["H100-SXM-80GB"].dense_tflops("tf32") == 494.5
        run = training_run(patched("llama31-405b-training", {"workload.precision": "tf32"}))
        assert run.peak_tflops == 494.5

    def test_mfu_above_the_dense_ceiling_warns_in_json(self, tmp_path, capsys):
        path = tmp_path / "r4.yaml"
        path.write_text(yaml.safe_dump(patched_data("llama31-405b-training", {"workload.mfu": 0.95})))
        assert main(["compare", str(path), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert sum(w.startswith("MFU 95.0% is above 60%") for w in data["warnings"]) == 1
        assert data["training_run"]["warnings"] == data["warnings"]

    def test_moe_ceiling_is_lower(self):
        moe = training_run(patched("deepseek-v3-training", {"workload.mfu": 0.55})).warnings  # MoE > 0.5
        dense = training_run(patched("llama31-405b-training", {"workload.mfu": 0.55})).warnings  # dense ≤ 0.6
        assert [w.startswith("MFU 55.0% is above 50%") for w in moe].count(True) == 1
        assert not any(w.startswith("MFU") for w in dense)

    def test_no_failure_model_at_scale_warns(self):
        warnings = training_run(patched("llama31-405b-training", {"workload.goodput": None})).warnings
        assert [w.startswith("goodput 100.0% on 16,384 GPUs") for w in warnings].count(True) == 1

    def test_achieved_above_the_peak_is_an_error(self):
        with pytest.raises(ScenarioError, match="achieved_tflops_per_gpu"):
            costmodel.resolve(patched("llama31-405b-as-published", {"workload.achieved_tflops_per_gpu": 1200}))


class TestPresentation:
    def test_stage_table_is_table_1(self):
        from costmodel.presentation import tables

        r = costmodel.resolve(costmodel.load_scenario("deepseek-v3-stages"))
        frame = tables.stage_table(r, training_run(r))
        assert list(frame["stage"]) == ["pre-training", "context extension", "post-training", "total"]
        assert list(frame["GPU-hours"]) == ["2,664,000", "119,000", "5,000", "2,788,000"]
        assert list(frame["cost, Cloud rental [USD]"]) == ["5,328,000", "238,000", "10,000", "5,576,000"]

    def test_warnings_open_the_summary(self):
        from costmodel.presentation import text

        r = costmodel.resolve(patched("llama31-405b-training", {"workload.mfu": 0.95}))
        summary = text.describe_training_run(r, training_run(r))
        assert summary.index("Plausibility warnings") < summary.index("6 · N · D")


class TestWeightOnlyServing:
    """int8 / int4 weights: 1 and 0.5 bytes a parameter; matrix products at the BF16 peak."""

    @pytest.mark.parametrize("precision, bytes_per_weight", [("int8", 1.0), ("int4", 0.5)])
    def test_replica_size_from_memory(self, precision, bytes_per_weight):
        scenario = patched(
            "llama70b-vs-api",
            {
                "workload.serving.precision": precision,
                "workload.serving.throughput_row": None,
                "workload.serving.use_estimate": True,
                "workload.serving.estimate": {
                    "batch_size": 16,
                    "input_tokens": 1000,
                    "output_tokens": 1000,
                    "decode_efficiency": 0.6,
                    "prefill_efficiency": 0.5,
                },
            },
        )
        capacity = costmodel.resolve(scenario).workload.capacity
        # Llama 3.3 70B (70.6 B, 80 layers, 2,048 KV elements per token per layer; models.csv), FP8 KV cache,
        # 128,000 tokens held (the scenario), 80 GB H100 at 90 % usable
        need = 70.6e9 * bytes_per_weight + 128_000 * 80 * 2048 * 1.0
        assert capacity.gpus_per_replica == math.ceil(need / (80e9 * 0.9))  # int8: 2; int4: 1


class TestPublishedRange:
    """GPU-hours per token against the published runs on the same architecture (data/training_runs.csv)."""

    def test_r4_needs_fewer_gpu_hours_per_token_than_any_published_hopper_run(self):
        run = training_run(costmodel.load_scenario("llama31-405b-training"))
        # R4: 6 × 405e9 × 15.6e12 / (28,427,796 GPU-h × 3,600) = 370 TFLOP/s; published Hopper runs:
        # Llama 3.1 8B 6 × 8.03e9 × 15e12 / (1.46e6 × 3,600) = 138 (model card) … DeepSeek-V3
        # 6 × 37e9 × 14.8e12 / (2.664e6 × 3,600) = 343 (Table 1)
        assert 6 * 405e9 * 15.6e12 / (run.gpu_hours * 3600) / 1e12 == pytest.approx(370.4, abs=0.1)
        assert len(run.warnings) == 1
        assert "370 TFLOP/s" in run.warnings[0] and "138-343" in run.warnings[0]

    def test_r3_is_inside_and_no_published_runs_means_no_check(self):
        assert training_run(costmodel.load_scenario("deepseek-v3-training")).warnings == ()
        scenario = patched("llama31-405b-training", catalog=catalog_with(training_runs={}))
        assert training_run(scenario).warnings == ()

"""Serving capacity: memory fit, measured rows, the estimate, and monotone GPU counts."""

import numpy as np
import pytest
from conftest import patched_data, write_scenario
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.formulas import estimate_output_throughput, kv_cache_bytes_per_token, min_gpus_per_replica
from costmodel.presentation.tables import inputs_table
from costmodel.scenarios import validate_data

R1 = "llama70b-vs-api"


def scenario(rented_gpus=2, **serving):
    """R1 with serving inputs (and the GPUs rented) changed, validated and resolved."""
    data = patched_data(
        R1, {f"workload.serving.{k}": v for k, v in serving.items()} | {"options.rent.gpu_count": rented_gpus}
    )
    return costmodel.resolve(validate_data(data))


def test_70b_in_bf16_does_not_fit_on_one_80gb_gpu():
    # Llama 3.3 70B (models.csv): 70.6e9 parameters x 2 B = 141.2 GB > 0.9 x 80 GB; two GPUs hold 144 GB
    assert min_gpus_per_replica(70.6e9 * 2, 80, 0.9) == 2
    # with 128 K tokens of BF16 KV cache (80 layers x 2,048 values x 2 B = 327,680 B a token): 183 GB -> 4 GPUs
    assert kv_cache_bytes_per_token(80, 2048, "bf16") == 327_680
    assert min_gpus_per_replica(70.6e9 * 2 + 128_000 * 327_680, 80, 0.9) == 4
    assert min_gpus_per_replica(70.6e9 * 1, 80, 0.9) == 1


def test_model_that_does_not_fit_on_a_server(tmp_path):
    path = write_scenario(
        tmp_path,
        patched_data(
            R1,
            {
                "workload.serving.model": "llama-3.1-405b",
                "workload.serving.precision": "bf16",
                "workload.serving.throughput_row": None,
            },
        ),
    )
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    (problem,) = caught.value.problems
    assert problem[0] == "workload.serving.model" and "full server" in problem[2]


def test_precision_the_gpu_lacks():
    with pytest.raises(costmodel.ScenarioError, match="no fp4"):
        scenario(precision="fp4", throughput_row=None)


def test_measured_row_gives_throughput_and_replica_size():
    capacity = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api")).workload.capacity
    assert capacity.output_tokens_per_second_per_gpu == 4205 / 2  # TensorRT-LLM, 2 x H100 TP2
    assert capacity.gpus_per_replica == 2 and not capacity.estimated
    assert capacity.sizing_utilisation == pytest.approx(0.8 / 2.0)
    assert "trtllm-llama33-70b-h100-fp8-1k1k" in capacity.source


def test_estimate_by_hand():
    # Llama 3.3 70B FP8 on 2 x H100, batch 64, 1,000 in / 1,000 out, both efficiencies 0.5:
    step_bytes = 70.6e9 * 1 + 64 * (1000 + 500) * (80 * 2048 * 1)  # weights + FP8 KV cache read per step
    step = step_bytes / (3.35e12 * 0.5 * 2)  # [s]
    prefill = 2 * 70.6e9 * 1000 / (1979e12 * 0.5 * 2)  # [s] per request
    expected = 1000 / (2 * (prefill + 1000 * step / 64))  # output tokens/s per GPU
    # H100 (gpus.csv): 3.35 TB/s, 1,979 TFLOP/s dense FP8
    got = estimate_output_throughput(70.6e9, 1.0, 80 * 2048, 3.35, 1979, 2, 64, 1000, 1000, 0.5, 0.5)
    assert got == pytest.approx(expected, rel=1e-12)


def test_no_row_needs_an_estimate_and_says_it_is_one():
    with pytest.raises(costmodel.ScenarioError, match="give estimate inputs"):
        scenario(precision="bf16", throughput_row=None)
    s = scenario(
        rented_gpus=4,
        precision="bf16",
        throughput_row=None,
        kv_cache_tokens=0,
        estimate={
            "batch_size": 32,
            "input_tokens": 1000,
            "output_tokens": 1000,
            "decode_efficiency": 0.5,
            "prefill_efficiency": 0.5,
        },
    )
    assert s.workload.capacity.estimated and s.workload.capacity.source.startswith("ESTIMATE")
    # the estimate's batch must fit too: 32 x 2,000 tokens of BF16 KV cache (21 GB) plus 141 GB of weights
    # exceed 2 x 72 GB, so 4 GPUs per replica
    assert s.workload.gpus_per_replica == 4
    table = inputs_table(s)
    assert table["input"].str.contains("ESTIMATE").any()


def test_row_for_another_gpu_is_refused():
    with pytest.raises(costmodel.ScenarioError, match="measured llama-3.3-70b on H200"):
        scenario(throughput_row="trtllm-llama33-70b-h200-fp8-1k1k")


@settings(max_examples=50, deadline=None)
@given(volumes=st.lists(st.floats(0, 5e9), min_size=2, max_size=50), peak=st.floats(1, 5), servers=st.integers(1, 4))
def test_gpu_count_never_goes_down_as_volume_goes_up(volumes, peak, servers):
    s = costmodel.resolve(
        validate_data(patched_data(R1, {"workload.serving.peak_to_average": peak, "options.own.server_count": servers}))
    )
    v = np.sort(np.array(volumes))
    for option in ("own", "rent"):
        counts = costmodel.gpu_count(s, option, v)
        assert np.all(np.diff(counts) >= 0)
        assert np.all(counts % 2 == 0)  # whole replicas of 2 GPUs


def test_kv_cache_beyond_the_measured_replica_needs_more_gpus():
    # 1 M tokens of FP8 KV cache (80 x 2,048 B each: 164 GB) plus 70.6 GB of weights: 4 H100, not the row's 2
    s = scenario(rented_gpus=4, kv_cache_tokens=1_000_000)
    assert s.workload.gpus_per_replica == 4
    assert s.workload.capacity.output_tokens_per_second_per_gpu == 4205 / 2

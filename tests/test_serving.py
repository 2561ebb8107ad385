"""Serving capacity: memory fit, measured rows, the estimate, and monotone GPU counts."""

import copy

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.catalog import default_catalog
from costmodel.paths import SCENARIO_DIR
from costmodel.serving import estimate_output_throughput, min_gpus_per_replica

CATALOG = default_catalog()
LLAMA70 = CATALOG.models["llama-3.3-70b"]
H100 = CATALOG.gpus["H100-SXM-80GB"]
R1 = yaml.safe_load((SCENARIO_DIR / "llama70b-vs-api.yaml").read_text())


def scenario(**serving):
    data = copy.deepcopy(R1)
    data["workload"]["serving"].update(serving)
    return costmodel.Scenario.model_validate(data)


def test_70b_in_bf16_does_not_fit_on_one_80gb_gpu():
    # 70.6e9 parameters x 2 B = 141 GB > 0.9 x 80 GB; two GPUs hold 144 GB
    assert min_gpus_per_replica(LLAMA70, H100, "bf16", 0, 0.9) == 2
    # with 128 K tokens of BF16 KV cache (80 layers x 2,048 values x 2 B = 327,680 B a token): 183 GB -> 4 GPUs
    assert min_gpus_per_replica(LLAMA70, H100, "bf16", 128_000, 0.9) == 4
    assert min_gpus_per_replica(LLAMA70, H100, "fp8", 0, 0.9) == 1


def test_model_that_does_not_fit_on_a_server(tmp_path):
    data = copy.deepcopy(R1)
    data["workload"]["serving"].update(model="llama-3.1-405b", precision="bf16", throughput_row=None)
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    (problem,) = caught.value.problems
    assert problem[0] == "workload.serving.model" and "full server" in problem[2]


def test_precision_the_gpu_lacks():
    data = copy.deepcopy(R1)
    data["workload"]["serving"].update(precision="fp4", throughput_row=None)
    with pytest.raises(Exception, match="no fp4"):
        costmodel.Scenario.model_validate(data)


def test_measured_row_gives_throughput_and_replica_size():
    s = costmodel.load_scenario("llama70b-vs-api")
    capacity = s.workload.capacity
    assert capacity.output_tokens_per_second_per_gpu == 4205 / 2   # TensorRT-LLM, 2 x H100 TP2
    assert capacity.gpus_per_replica == 2 and not capacity.estimated
    assert capacity.sizing_utilisation == pytest.approx(0.8 / 2.0)
    assert "trtllm-llama33-70b-h100-fp8-1k1k" in capacity.source


def test_estimate_by_hand():
    # Llama 3.3 70B FP8 on 2 x H100, batch 64, 1,000 in / 1,000 out, both efficiencies 0.5:
    step_bytes = 70.6e9 * 1 + 64 * (1000 + 500) * (80 * 2048 * 1)      # weights + FP8 KV cache read per step
    step = step_bytes / (3.35e12 * 0.5 * 2)                             # [s]
    prefill = 2 * 70.6e9 * 1000 / (1979e12 * 0.5 * 2)                   # [s] per request
    expected = 1000 / (2 * (prefill + 1000 * step / 64))                # output tokens/s per GPU
    got = estimate_output_throughput(LLAMA70, H100, "fp8", 2, 64, 1000, 1000, 0.5, 0.5)
    assert got == pytest.approx(expected, rel=1e-12)
    assert got == pytest.approx(1054.8, rel=1e-3)


def test_no_row_needs_an_estimate_and_says_it_is_one():
    with pytest.raises(Exception, match="give estimate inputs"):
        scenario(precision="bf16", throughput_row=None)
    s = scenario(precision="bf16", throughput_row=None, kv_cache_tokens=0,
                 estimate={"batch_size": 32, "input_tokens": 1000, "output_tokens": 1000,
                           "decode_efficiency": 0.5, "prefill_efficiency": 0.5})
    assert s.workload.capacity.estimated and s.workload.capacity.source.startswith("ESTIMATE")
    # the estimate's batch must fit too: 32 x 2,000 tokens of BF16 KV cache (21 GB) plus 141 GB of weights
    # exceed 2 x 72 GB, so 4 GPUs per replica
    assert s.workload.gpus_per_replica == 4
    table = costmodel.summary.inputs_table(s)
    assert table["input"].str.contains("ESTIMATE").any()


def test_row_for_another_gpu_is_refused():
    with pytest.raises(Exception, match="measured llama-3.3-70b on H200"):
        scenario(throughput_row="trtllm-llama33-70b-h200-fp8-1k1k")


@settings(max_examples=50, deadline=None)
@given(volumes=st.lists(st.floats(0, 5e9), min_size=2, max_size=50), peak=st.floats(1, 5),
       servers=st.integers(1, 4))
def test_gpu_count_never_goes_down_as_volume_goes_up(volumes, peak, servers):
    data = copy.deepcopy(R1)
    data["workload"]["serving"]["peak_to_average"] = peak
    data["options"]["own"]["server_count"] = servers
    s = costmodel.Scenario.model_validate(data)
    v = np.sort(np.array(volumes))
    for option in ("own", "rent"):
        counts = costmodel.gpu_count(s, option, v)
        assert np.all(np.diff(counts) >= 0)
        assert np.all(counts % 2 == 0)    # whole replicas of 2 GPUs


def test_kv_cache_beyond_the_measured_replica_needs_more_gpus():
    # 1 M tokens of FP8 KV cache (80 x 2,048 B each: 164 GB) plus 70.6 GB of weights: 4 H100, not the row's 2
    s = scenario(kv_cache_tokens=1_000_000)
    assert s.workload.gpus_per_replica == 4
    assert s.workload.capacity.output_tokens_per_second_per_gpu == 4205 / 2

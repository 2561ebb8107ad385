"""LoRA adapters on one shared base model: the base's memory once, the adapters beside it.

References: Hu et al. (2021), LoRA, arXiv:2106.09685 (an adapter is B A, d × r and r × k);
Sheng et al. (2023), S-LoRA, arXiv:2311.03285 (many adapters on one base, paged from host memory).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from costmodel.domain.capacity import rent_gpus
from costmodel.formulas import lora_adapter_bytes, lora_adapters_resident
from costmodel.resolved import as_resolved
from costmodel.scenarios import validate_data


def _chatbot(lora: dict | None, model: str = "llama-3.1-8b") -> dict:
    """The README's walk-through: Llama 3.1 8B at FP8 on H100 (15,220 output tokens/s per GPU, one GPU a replica)."""
    serving = {
        "model": model,
        "precision": "fp8",
        "peak_to_average": 2.0,
        "target_utilisation": 0.8,
        "kv_cache_tokens": 64000,
    }
    if lora is not None:
        serving["lora"] = lora
    return {
        "title": "LoRA test",
        "reporting_currency": "USD",
        "workload": {
            "kind": "tokens",
            "gpu": "H100-SXM-80GB",
            "tokens_per_day": 1e9,
            "input_tokens_per_output_token": 3,
            "serving": serving,
        },
        "options": {
            "rent": {"offer": "nebius-h100", "billing": "per_gpu_hour_used"},
            "api": {"offer": "groq-llama-3-1-8b-instant"},
        },
    }


def _resolved(adapters: int, rank: int, model: str = "llama-3.1-8b"):
    return as_resolved(validate_data(_chatbot({"adapters": adapters, "rank": rank, "source": "test"}, model)))


class TestLoraAdapterBytes:
    def test_by_hand(self):
        # Llama 3.1 8B: 32 layers, hidden size 4,096 (Llama 3 Herd, arXiv 2407.21783, Table 3); rank 16 on W_q
        # and W_v in BF16: 2 matrices × (4,096 × 16 + 16 × 4,096) × 32 layers × 2 B = 16,777,216 B
        assert lora_adapter_bytes(16, 32, 4096) == 16_777_216
        assert lora_adapter_bytes(16, 32, 4096, matrices_per_layer=4, bytes_per_parameter=4) == 4 * 16_777_216
        assert lora_adapter_bytes(0, 32, 4096) == 0

    def test_broadcasts(self):
        np.testing.assert_array_equal(lora_adapter_bytes(np.array([8, 16]), 32, 4096), [8_388_608, 16_777_216])


class TestLoraAdaptersResident:
    def test_by_hand(self):
        # 72 GB usable (80 GB at 90 %), 12.224 GB of base (8.03e9 B of FP8 weights + 64,000 tokens × 32 layers
        # × 2,048 values × 1 B of KV cache): (72e9 − 12.224e9) / 16,777,216 = 3,562.9 → 3,562 fit
        base = 8.03e9 + 64_000 * 32 * 2048
        assert lora_adapters_resident(100, 16_777_216, 72e9, base) == 100
        assert lora_adapters_resident(10_000, 16_777_216, 72e9, base) == 3562
        assert lora_adapters_resident(5, 1e9, 10e9, 20e9) == 0  # no room beside the base: all in host memory


class TestGpuCount:
    def test_by_hand(self):
        # 5e9 tokens/day at 3:1 input:output: 1.25e9 output tokens/day = 14,467.6 output tokens/s; one H100 serves
        # 15,220 × 0.8 / 2 = 6,088 at the peak: 2.376 GPUs → 3 GPUs of one-GPU replicas (base + adapters fit in one).
        one_base = _resolved(100, 16)
        assert one_base.workload.gpus_per_replica == 1
        assert float(rent_gpus(one_base, 5e9)) == 3
        # 100 separate deployments at 5e7 tokens/day each: 0.024 GPUs → 1 GPU each, 100 GPUs
        single = _resolved(1, 16)
        assert 100 * float(rent_gpus(single, 5e9 / 100)) == 100
        assert "100 held beside it in GPU memory, 0 in host memory" in one_base.workload.capacity.source

    def test_the_adapter_counts_in_memory(self):
        # rank 65,536: one adapter is 2 × 2 × 65,536 × 4,096 × 32 × 2 B = 68.7 GB; with the 12.2 GB base it
        # needs 80.9 GB, more than one GPU's 72 GB: a replica of 2 GPUs
        assert _resolved(1, 65_536).workload.gpus_per_replica == 2
        assert _resolved(1, 16).workload.gpus_per_replica == 1

    def test_adapters_that_do_not_fit_stay_in_host_memory(self):
        # rank 8,192: one adapter is 2 × 2 × 8,192 × 4,096 × 32 × 2 B = 8.59 GB. Eight beside the 12.224 GB base
        # would need 80.9 GB, more than one GPU's 72 GB; the replica stays one GPU, holding
        # floor((72 − 12.224) / 8.59) = 6 of them, the other 2 paged from host memory (S-LoRA)
        one_base = _resolved(8, 8192)
        assert one_base.workload.gpus_per_replica == 1
        assert "6 held beside it in GPU memory, 2 in host memory" in one_base.workload.capacity.source
        assert float(rent_gpus(one_base, 1e9)) == 1  # 0.475 GPUs of demand; eight deployments would hold 8

    def test_a_model_without_hidden_size(self):
        with pytest.raises(Exception, match="hidden_size"):
            as_resolved(validate_data(_chatbot({"adapters": 2, "rank": 8, "source": "test"}, "llama-2-70b")))

    def test_no_lora_block_is_the_base_alone(self):
        plain = as_resolved(validate_data(_chatbot(None)))
        with_one = _resolved(1, 16)
        assert plain.workload.gpus_per_replica == with_one.workload.gpus_per_replica
        assert float(rent_gpus(plain, 5e9)) == float(rent_gpus(with_one, 5e9))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    adapters=st.integers(1, 400),
    rank=st.sampled_from([1, 4, 8, 16, 64, 256, 1024, 8192, 65_536]),
    tokens=st.floats(1e6, 2e11),
    model=st.sampled_from(["llama-3.1-8b", "llama-3.3-70b"]),
)
def test_one_base_never_needs_more_gpus_than_separate_deployments(adapters, rank, tokens, model):
    try:
        one = _resolved(adapters, rank, model)
    except Exception as exc:  # an adapter too large for a server: refused for both alike
        assert "needs" in str(exc)
        return
    separate = _resolved(1, rank, model)
    assert float(rent_gpus(one, tokens)) <= adapters * float(rent_gpus(separate, tokens / adapters))

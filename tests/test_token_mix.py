"""Token workloads with demand profiles: the cheapest mix of owned replicas, rentals and the API.

Closed forms used: one GPU busy all day at the R1 throughput row (trtllm-llama33-70b-h100-fp8-1k1k,
2,102.5 output tokens/s per H100, data/throughput.csv) serves 2,102.5 x 3 x 86,400 tokens a day at
a 2:1 mix (three tokens per output token); GPUs busy in an hour = tokens that hour x (1/3) /
(2,102.5 x 3,600).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import patched, patched_data, write_scenario
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.cli import main
from costmodel.domain.mix import cheapest_mix, hourly_demand, mix_result

R1 = "llama70b-vs-api"
PER_GPU_DAY = 2102.5 * 3 * 86_400  # tokens/day one H100 serves at full throughput, 2:1 mix


def test_hybrid_scenario_keeps_replicas_and_sends_the_peaks_to_the_api(capsys):
    s = costmodel.load_scenario("llama70b-hybrid")
    result = mix_result(s)
    mix = result.mix
    # one DGX H100 (4 replicas of 2 GPUs) owned, the same model on Groq above it (issue 26: as bought)
    assert mix.layers["own"].units == 1 and mix.gpus["own"] == 8 and "api" in mix.layers
    demand = hourly_demand(s)
    # The 8 owned GPUs serve at most 8 x 0.8 (the target utilisation) = 6.4 GPUs busy; the API the rest,
    # so its share of tokens is that share of GPU-hours.
    above = np.clip(demand - 6.4, 0, None).sum() / demand.sum()
    share = result.api_share()
    assert share["token_share"] == pytest.approx(above, rel=1e-9)
    assert 0 < share["token_share"] < 0.05 and share["hybrid"] is True
    assert share["api_above_tokens_per_day"] == pytest.approx(6.4 * PER_GPU_DAY, rel=1e-12)  # 3,487,795,200
    assert share["replicas"] == {"own": 4}
    assert main(["compare", "llama70b-hybrid", "--json", "--no-uncertainty"]) == 0
    data = json.loads(capsys.readouterr().out)
    mix_data = data["cheapest_mix"]
    assert mix_data["api"]["token_share"]["value"] == pytest.approx(above, abs=1e-6)
    assert mix_data["api"]["above_tokens_per_day"]["value"] == pytest.approx(3_487_795_200, rel=1e-9)
    assert mix_data["api"]["hybrid"] is True
    assert mix_data["total"]["value"] <= min(v["value"] for v in mix_data["pure_options"].values())
    # and the verdict is that mix, on the hour-by-hour measure
    assert data["decision"]["winner"] == "mix" and data["decision"]["measure"] == "monthly_cost_hour_by_hour"


def test_office_hours_profile_keeps_the_average_and_the_hours():
    s = patched(
        R1,
        {"demand": {"kind": "office_hours", "start_hour": 9, "end_hour": 17, "off_share": 0.25}},
        drop=("uncertainty",),
    )
    series = hourly_demand(s)
    average = 10e6 / PER_GPU_DAY  # GPUs busy on average at 10 M tokens/day
    assert series.mean() == pytest.approx(average, rel=1e-12)
    monday_noon, monday_night, saturday_noon = series[12], series[2], series[5 * 24 + 12]
    assert monday_night == pytest.approx(0.25 * monday_noon, rel=1e-12)
    assert saturday_noon == pytest.approx(monday_night, rel=1e-12)


def test_hourly_file_of_tokens(tmp_path):
    tokens = np.full(8760, 10e6 / 24)
    tokens[:24] *= 2  # a busy first day
    tokens[24:48] = 0
    (tmp_path / "tokens.txt").write_text("\n".join(f"{t:.3f}" for t in tokens))
    s = patched(R1, {"demand": {"kind": "hourly_file", "path": str(tmp_path / "tokens.txt")}}, drop=("uncertainty",))
    series = hourly_demand(s)
    # the file is scaled to the stated 10 M tokens/day (written to 3 decimals, it differs by 1e-9)
    assert series[0] == pytest.approx(2 * 10e6 / 24 / 3 / (2102.5 * 3600), rel=1e-8)
    assert series[30] == 0 and series.mean() == pytest.approx(10e6 / PER_GPU_DAY, rel=1e-12)


def test_hourly_file_must_agree_with_tokens_per_day(tmp_path):
    (tmp_path / "tokens.txt").write_text("\n".join(["1000"] * 8760))
    data = patched_data(
        R1, {"demand": {"kind": "hourly_file", "path": str(tmp_path / "tokens.txt")}}, drop=("uncertainty",)
    )
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(write_scenario(tmp_path, data))
    assert caught.value.problems[0][0] == "workload.tokens_per_day" and "24,000" in caught.value.problems[0][2]


def test_request_log_is_summed_to_hours(tmp_path):
    # Two requests in the first hour of 2026 (one in Madrid time, 00:10 UTC+1 = 23:10 UTC of 2025,
    # so in Madrid's year it is hour 0) and one on 2 January at 10:30 UTC (hour 34 in Madrid, UTC+1).
    log = tmp_path / "requests.csv"
    log.write_text(
        "timestamp,input_tokens,output_tokens\n"
        "2026-01-01T00:10:00,2000,1000\n"
        "2026-01-01T00:50:00+01:00,4000,2000\n"
        "2026-01-02T10:30:00Z,600000,300000\n"
        "2027-01-01T10:30:00Z,1,1\n"
    )
    total = 3000 + 6000 + 900000
    data = patched_data(
        R1,
        {
            "workload.tokens_per_day": total / 365,
            "demand": {"kind": "request_log", "path": str(log), "year": 2026, "time_zone": "Europe/Madrid"},
        },
        drop=("uncertainty",),
    )
    s = costmodel.load_scenario(write_scenario(tmp_path, data))
    series = hourly_demand(s)
    per_token = 1 / 3 / (2102.5 * 3600)  # GPU busy per token in an hour
    assert series[0] == pytest.approx(9000 * per_token, rel=1e-9)
    assert series[35] == pytest.approx(900000 * per_token, rel=1e-9)
    assert np.count_nonzero(series) == 2


def test_spot_serves_only_interruptible_token_work():
    spot = {
        "discount": 0.6,
        "interruptions_per_gpu_hour": 0.01,
        "work_lost_hours_per_interruption": 0.5,
        "source": "ASSUMPTION for the test",
    }
    changes = {
        "options.rent.billing": "per_gpu_hour_used",
        "options.rent.gpu_count": None,
        "options.rent.spot": spot,
        "options.rent.staffing": None,
        "demand": {"kind": "steady"},
    }
    interactive = cheapest_mix(patched(R1, changes, drop=("uncertainty",)))
    assert "spot" not in interactive.kinds
    batch = cheapest_mix(patched(R1, changes | {"workload.interruptible": True}, drop=("uncertainty",)))
    assert "spot" in batch.kinds and batch.gpus["spot"] >= 1


@settings(max_examples=25, deadline=None)
@given(
    volume=st.floats(1e8, 2e10),
    off=st.floats(0, 1),
    growth=st.floats(0, 3),
    offer=st.sampled_from(["anthropic-claude-opus-4-5", "groq-llama-3-3-70b-versatile", "deepseek-chat-v3"]),
    billing=st.sampled_from(["always_on", "per_gpu_hour_used"]),
)
def test_token_mix_never_costs_more_than_the_cheapest_pure_option(volume, off, growth, offer, billing):
    changes = {
        "workload.tokens_per_day": round(volume),
        "options.api.offer": offer,
        "options.rent.billing": billing,
        "options.rent.gpu_count": 2 if billing == "always_on" else None,
        "demand": {"kind": "office_hours", "off_share": round(off, 3), "growth_per_year": round(growth, 3)},
    }
    mix = cheapest_mix(patched(R1, changes, drop=("uncertainty",)))
    assert len(mix.pure) >= 3  # own, a rental layer and the API were all offered
    assert mix.total <= min(mix.pure.values()) * (1 + 1e-9)


def test_busiest_week_chart_stacks_layers_to_the_demand():
    # held capacity serves the bottom of each hour's demand, the API the rest: the layers sum to d
    from costmodel.presentation import charts

    s = costmodel.load_scenario("llama70b-hybrid")
    result = mix_result(s)
    data = charts.hour_of_week_layers(s, result.demand, result.mix).to_dict()
    rows = next(iter(data["datasets"].values()))
    layers = {row["layer"] for row in rows}
    assert layers == {"Owned", "Hosted API"}
    series = result.demand
    weeks = len(series) // 168
    start = int(np.argmax([series[w * 168 : (w + 1) * 168].sum() for w in range(weeks)])) * 168
    by_hour = np.zeros(168)
    for row in rows:
        by_hour[row["hour"]] += row["gpus"]
    assert by_hour == pytest.approx(series[start : start + 168], rel=1e-9, abs=1e-12)

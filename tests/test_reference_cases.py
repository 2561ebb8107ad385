"""Hand-computed values for the two reference scenarios.

Every expected value is written out from the scenario's inputs and the catalog rows
(the figures are repeated here on purpose), not taken from the code under test.
"""

import json

import numpy as np
import pytest
from conftest import document

import costmodel
from costmodel.domain.compare import compare

HOURS = 8760 / 12  # the model's month [h]
DAYS = 365 / 12  # the model's month [d]
EUR_USD = 1.16  # llama70b-vs-api.yaml fx.rates.EUR


class TestR1Llama70bVsApi:
    """Case R1: 2 H100 at $3.5/GPU-hour 24/7, one engineer at EUR 6,000/month, 10 M tokens/day."""

    def test_rental_is_2_gpus_times_3_5_times_730(self, r1):
        # cases.md R1 check: 2 x 3.5 x 730 h = $5,110/month of rental
        parts = costmodel.monthly_cost_components(r1, "rent", 10e6)
        assert parts["GPU rental"] == pytest.approx(5110.0, rel=1e-12)
        assert parts["staffing"] == pytest.approx(6000 * EUR_USD, rel=1e-12)
        assert costmodel.monthly_cost(r1, "rent", 10e6) == pytest.approx(5110 + 6960, rel=1e-12)

    def test_api_month_is_about_3500(self, r1):
        # 10 M/day x 365/12 = 304.17 M tokens/month; 2:1 mix at $5 in / $25 out = $11.67/M
        millions = 10 * DAYS
        expected = millions * (2 / 3 * 5 + 1 / 3 * 25)
        assert expected == pytest.approx(3548.61, abs=0.01)
        assert costmodel.monthly_cost(r1, "api", 10e6) == pytest.approx(expected, rel=1e-12)
        assert expected == pytest.approx(3500, rel=0.02)  # "about $3,500/month" in the brief

    def test_own_cluster_by_hand(self, r1):
        # one DGX H100 ($270,000, 10.2 kW) over 60 months, support 10 %/yr, colocation $217.30/kW-month,
        # idle share 0.3, PUE 1.56, EUR 0.1902/kWh, one engineer at EUR 72,000/yr
        gpu_hours = 10e6 * DAYS / 3 / (2102.5 * 3600)
        draw_kw = 10.2 * (0.3 + 0.7 * gpu_hours / (8 * HOURS))
        expected = {
            "capex depreciation": 270000 / 60,
            "hardware support": 270000 * 0.10 / 12,
            "colocation": 10.2 * 217.30,
            "electricity": draw_kw * 1.56 * HOURS * 0.1902 * EUR_USD,
            "staffing": 72000 / 12 * EUR_USD,
        }
        got = costmodel.monthly_cost_components(r1, "own", 10e6)
        assert set(got) == set(expected)
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, rel=1e-12), name

    def test_api_is_cheaper_at_10m_tokens_per_day(self, r1):
        d = compare(r1).decision
        assert (d.measure, d.winner, d.runner_up) == ("monthly_cost", "api", "rent")
        assert d.margin == pytest.approx(12070 - 3548.6111, rel=1e-6)

    def test_break_even_with_api_closed_form(self, r1):
        # rental is a flat 12,070 USD/month until 2 GPUs are not enough; the API costs
        # 11.6667 USD/M x tokens/day x 365/12 / 1e6, so they meet at 12,070 / that slope.
        slope = (2 / 3 * 5 + 1 / 3 * 25) * DAYS / 1e6
        expected = 12070 / slope
        b = costmodel.break_even(r1, "rent", "api", volume_max=100e6)
        assert b.kind == "crossing"
        assert b.volume == pytest.approx(expected, rel=1e-9)
        assert b.volume == pytest.approx(34.0e6, rel=0.01)
        assert (b.cheaper_below, b.cheaper_above) == ("api", "rent")

    def test_two_h100_serve_the_flip_volume_and_step_up_later(self, r1):
        # TensorRT-LLM: 4,205 output tok/s per 2 H100 (TP2) for Llama 3.3 70B FP8, so 2,102.5 per GPU;
        # sized for a peak of 2 x the average at 80 % utilisation: 0.4 of throughput on average.
        # capacity = 2 GPUs x 2,102.5 x 0.4 x 3 tokens per output token x 86,400 s
        capacity = 2 * 2102.5 * 0.4 * 3 * 86400
        assert capacity == pytest.approx(436e6, rel=0.001)
        assert costmodel.capacity_volume(r1, "rent") == pytest.approx(capacity, rel=1e-12)
        flip = costmodel.break_even(r1, "rent", "api", volume_max=100e6).volume
        assert costmodel.gpu_count(r1, "rent", flip) == 2
        assert costmodel.gpu_count(r1, "rent", capacity) == 2
        # one more replica of 2 GPUs (TP2), not one more GPU
        assert costmodel.gpu_count(r1, "rent", capacity * 1.001) == 4
        jump = costmodel.monthly_cost(r1, "rent", capacity * 1.001) - costmodel.monthly_cost(r1, "rent", capacity)
        assert jump == pytest.approx(2 * 3.5 * HOURS, rel=1e-9)

    def test_own_vs_rent_never_in_default_range(self, r1):
        result = compare(r1)
        pair = next(b for b in result.break_evens if (b.option_a, b.option_b) == ("own", "rent"))
        assert pair.volume is None and pair.kind == "never"
        assert pair.cheaper_below == "rent"
        data = document(r1).model_dump(mode="json")
        text = json.dumps(data, allow_nan=False)
        assert '"never"' in text


class TestR2H200Cluster:
    """Case R2: 3 x DGX H200 owned vs Nebius H200 at $4.50 per GPU-hour used, 12,000 GPU-hours/month, steady.

    Capex: 3 servers at $350,000, InfiniBand at 9.4 % of server capex, $125,000 of storage,
    $15,000 of racks and installation a server. Staffing: 0.5 FTE plus one per 250 GPUs.
    """

    capex = 3 * 350000 * 1.094 + 125000 + 3 * 15000

    def own_fixed(self):
        return self.capex / 60 + self.capex * 0.10 / 12 + 3 * 10.2 * 194.95 + (0.5 + 24 / 250) * 240000 / 12

    def power_factor(self):
        return 10.2 * 1.56 * HOURS * 0.0707  # USD per (server at full draw) per month

    def test_own_by_hand(self, r2_steady):
        hours = 12000
        electricity = self.power_factor() * (3 * 0.3 + 0.7 * hours / (8 * HOURS))
        assert costmodel.monthly_cost(r2_steady, "own", hours) == pytest.approx(
            self.own_fixed() + electricity, rel=1e-12
        )

    def test_rent_by_hand(self, r2_steady):
        assert costmodel.monthly_cost(r2_steady, "rent", 12000) == pytest.approx(12000 * 4.50, rel=1e-12)

    def test_own_is_cheaper_and_break_even_closed_form(self, r2_steady):
        # own(v) = fixed + idle power + slope_own * v ; rent(v) = 4.5 v  =>  v* = intercept / (4.5 - slope_own)
        intercept = self.own_fixed() + self.power_factor() * 3 * 0.3
        slope_own = self.power_factor() * 0.7 / (8 * HOURS)
        expected = intercept / (4.5 - slope_own)
        result = compare(r2_steady)
        assert result.monthly_cheapest == "own"
        (b,) = result.break_evens
        assert b.kind == "crossing"
        assert b.volume == pytest.approx(expected, rel=1e-9)
        assert (b.cheaper_below, b.cheaper_above) == ("rent", "own")

    def test_cost_per_gpu_hour_used(self, r2_steady):
        result = compare(r2_steady)
        assert result.options["rent"].cost_per_gpu_hour == pytest.approx(4.50, rel=1e-12)
        own = costmodel.monthly_cost(r2_steady, "own", 12000) / 12000
        assert result.options["own"].cost_per_gpu_hour == pytest.approx(own, rel=1e-12)
        assert result.options["own"].cost_per_million_tokens is None

    def test_servers_step_up_past_capacity(self, r2_steady):
        # 24 GPUs x 730 h x 0.9 = 15,768 GPU-hours/month; one GPU-hour more needs a 4th server
        capacity = 24 * HOURS * 0.9
        assert costmodel.capacity_volume(r2_steady, "own") == pytest.approx(capacity, rel=1e-12)
        assert costmodel.gpu_count(r2_steady, "own", capacity) == 24
        assert costmodel.gpu_count(r2_steady, "own", capacity + 1) == 32
        jump = costmodel.monthly_cost(r2_steady, "own", capacity + 0.01) - costmodel.monthly_cost(
            r2_steady, "own", capacity
        )
        server_capex = 350000 * 1.094 + 15000
        per_server = (
            server_capex / 60
            + server_capex * 0.10 / 12
            + 10.2 * 194.95
            + self.power_factor() * 0.3
            + 8 / 250 * 240000 / 12
        )
        assert jump == pytest.approx(per_server, rel=1e-6)
        result = compare(r2_steady, volume=capacity + 1)
        assert result.options["own"].stepped_up and result.options["own"].gpus == 32


def test_every_reported_crossing_has_equal_costs(r1, r2, r2_steady):
    for scenario in (r1, r2, r2_steady):
        for b in compare(scenario, volume_max=50 * scenario.volume).break_evens:
            for volume, kind in zip(b.volumes, b.kinds):
                if kind != "crossing":
                    continue
                a = costmodel.monthly_cost(scenario, b.option_a, volume)
                c = costmodel.monthly_cost(scenario, b.option_b, volume)
                assert a == pytest.approx(c, rel=1e-6)


def test_sweep_of_1000_volumes_is_one_call_and_matches_scalars(r1):
    volumes = np.linspace(0, 1e9, 1000)
    for option in ("own", "rent", "api"):
        swept = costmodel.monthly_cost(r1, option, volumes)
        assert swept.shape == (1000,)
        scalars = np.array([costmodel.monthly_cost(r1, option, float(v)) for v in volumes[::97]])
        np.testing.assert_allclose(swept[::97], scalars, rtol=1e-12)
    frame = costmodel.cost_sweep(r1, volumes)
    assert len(frame) == 3000
    assert list(frame.columns) == ["volume", "option", "option_label", "cost", "gpu_count", "currency"]


@pytest.mark.parametrize("volume", [-1.0, float("nan"), float("inf")])
def test_volumes_must_be_finite_and_not_negative(r1, volume):
    with pytest.raises(ValueError, match="finite and >= 0"):
        costmodel.monthly_cost(r1, "own", volume)
    with pytest.raises(ValueError):
        costmodel.monthly_cost(r1, "api", np.array([1.0, volume]))

"""Checkpoint intervals and goodput against Young (1974) and Daly (2006)."""

import math

import numpy as np
import pytest

from costmodel.formulas import daly_interval, job_mtbf_hours, time_lost_fraction, young_interval


class TestYoung:
    def test_by_hand(self):
        # delta = 5 min, M = 180 min: tau = sqrt(2 x 5 x 180) = sqrt(1800) = 42.4264 min
        assert young_interval(5 / 60, 3.0) * 60 == pytest.approx(42.4264, rel=1e-5)


class TestDaly:
    def test_by_hand(self):
        # Daly (2006) eq. 37 with delta = 5 min, M = 180 min, x = delta / 2M = 5/360:
        # sqrt(1800) x (1 + sqrt(x)/3 + x/9) - 5 = 42.4264 x 1.0408272 - 5 = 39.1585 min
        assert daly_interval(5 / 60, 3.0) * 60 == pytest.approx(39.1585, rel=1e-4)

    def test_long_writes_checkpoint_every_mtbf(self):
        assert daly_interval(7.0, 3.0) == 3.0

    @pytest.mark.parametrize("write_min, mtbf_h", [(0.5, 3.09), (5, 3.0), (2, 24.0), (10, 100.0)])
    def test_is_close_to_the_numerical_optimum(self, write_min, mtbf_h):
        # Daly's interval approximates the minimum of his own expected-time model
        write = write_min / 60
        grid = np.geomspace(daly_interval(write, mtbf_h) / 5, daly_interval(write, mtbf_h) * 5, 200001)
        best = grid[np.argmin(time_lost_fraction(grid, write, 0.05, mtbf_h))]
        assert daly_interval(write, mtbf_h) == pytest.approx(best, rel=0.01)


def test_llama3_mtbf():
    # Llama 3 paper §3.3.4: 419 unexpected interruptions in 54 days on 16,384 GPUs
    rate = 419 / (54 / 365 * 16384)
    assert job_mtbf_hours(rate, 16384) == pytest.approx(54 * 24 / 419, rel=1e-9)


def test_no_failures_means_no_mtbf_and_only_write_time_lost():
    with pytest.raises(ValueError, match="failure rate above 0"):
        job_mtbf_hours(0.0, 1000)
    assert time_lost_fraction(1.0, 0.1, 0.5, None) == pytest.approx(0.1 / 1.1)


def test_time_lost_by_hand():
    # 1 - tau / (M e^(R/M) (e^((tau+delta)/M) - 1)) with tau = 1 h, delta = 0.1 h, R = 0.2 h, M = 10 h
    expected = 1 - 1.0 / (10 * math.exp(0.02) * (math.exp(0.11) - 1))
    assert time_lost_fraction(1.0, 0.1, 0.2, 10.0) == pytest.approx(expected, rel=1e-12)
    lost = time_lost_fraction(np.array([0.5, 1.0, 2.0]), 0.1, 0.2, 10.0)
    assert lost.shape == (3,) and lost[1] == pytest.approx(expected)

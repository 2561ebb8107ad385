"""The broadcasting promise of costmodel.formulas (issue 32) for the three formulas that did not
keep it: ``break_even_utilisation`` and ``roi`` broadcast over arrays of any shape, and ``irr``
takes 2-D flows (one series per row). Each array result is checked element by element against
the scalar call, and the scalar calls against figures worked by hand.
"""

import numpy as np
import pandas as pd
import pytest

from costmodel import formulas as F


class TestBreakEvenUtilisation:
    def test_scalar_against_hand_figures(self):
        # u* = F / (G * 730 * (p - v)) = 17,520 / (24 * 730 * 2.0) = 17,520 / 35,040 = 0.5
        assert F.break_even_utilisation(17_520.0, 0.1, 24, 2.1) == pytest.approx(0.5, rel=1e-15)
        # p = v: never; u* = 17,520 / (24 * 730 * 0.5) = 2.0 > 1: never
        assert F.break_even_utilisation(17_520.0, 0.1, 24, 0.1) is None
        assert F.break_even_utilisation(17_520.0, 0.1, 24, 0.6) is None

    @pytest.mark.parametrize("shape", [(4,), (2, 2)])
    def test_an_array_gives_the_scalar_results_nan_for_never(self, shape):
        prices = np.array([2.1, 0.1, 0.6, 4.1]).reshape(shape)
        fixed = np.array([17_520.0, 17_520.0, 17_520.0, 35_040.0]).reshape(shape)
        result = F.break_even_utilisation(fixed, 0.1, 24, prices)
        assert isinstance(result, np.ndarray) and result.shape == shape
        for f, p, got in zip(fixed.ravel(), prices.ravel(), result.ravel(), strict=True):
            expected = F.break_even_utilisation(float(f), 0.1, 24, float(p))
            assert (np.isnan(got) and expected is None) or got == expected
        # 35,040 / (24 * 730 * 4.0) = 0.5
        assert result.ravel()[3] == pytest.approx(0.5, rel=1e-15)

    def test_a_series_keeps_its_index(self):
        prices = pd.Series([2.1, 0.1], index=["cheap", "free"])
        result = F.break_even_utilisation(17_520.0, 0.1, 24, prices)
        assert isinstance(result, pd.Series) and list(result.index) == ["cheap", "free"]
        assert result["cheap"] == pytest.approx(0.5) and np.isnan(result["free"])


class TestRoi:
    def test_scalar_against_hand_figures(self):
        assert F.roi(50.0, 200.0) == 0.25  # 50 / 200
        assert F.roi(-30.0, 120.0) == -0.25  # a loss: -30 / 120
        assert F.roi(50.0, 0.0) is None

    @pytest.mark.parametrize("shape", [(4,), (2, 2)])
    def test_an_array_gives_the_scalar_results_nan_without_investment(self, shape):
        gains = np.array([50.0, -30.0, 50.0, 10.0]).reshape(shape)
        investments = np.array([200.0, 120.0, 0.0, 40.0]).reshape(shape)
        result = F.roi(gains, investments)
        assert isinstance(result, np.ndarray) and result.shape == shape
        for g, i, got in zip(gains.ravel(), investments.ravel(), result.ravel(), strict=True):
            expected = F.roi(float(g), float(i))
            assert (np.isnan(got) and expected is None) or got == expected
        assert result.ravel().tolist()[:2] == [0.25, -0.25]

    def test_a_scalar_gain_broadcasts_over_investments(self):
        assert F.roi(50.0, np.array([100.0, 200.0, 400.0])).tolist() == [0.5, 0.25, 0.125]


class TestIrr2d:
    def test_one_row_per_series_each_equal_to_the_1d_result(self):
        # -100 + 60/(1+r) + 60/(1+r)^2 = 0: with x = 1/(1+r), 60x^2 + 60x - 100 = 0,
        # x = (-60 + sqrt(3600 + 24000)) / 120 = 0.884973..., r = 1/x - 1 = 0.130662...
        x = (-60.0 + np.sqrt(3_600.0 + 24_000.0)) / 120.0
        rows = np.array([[-100.0, 60.0, 60.0], [-100.0, 110.0, 0.0], [100.0, 60.0, 60.0]])
        result = F.irr(rows)
        assert isinstance(result, np.ndarray) and result.shape == (3,)
        assert result[0] == pytest.approx(1.0 / x - 1.0, rel=1e-10)
        assert result[1] == pytest.approx(0.10, rel=1e-10)  # -100 + 110 / (1 + r) = 0
        assert np.isnan(result[2]) and F.irr(rows[2]) is None  # no sign change: no IRR
        for row, got in zip(rows[:2], result[:2], strict=True):
            assert got == F.irr(row)

    def test_one_row_gives_a_one_element_array(self):
        result = F.irr(np.array([[-100.0, 60.0, 60.0]]))
        assert isinstance(result, np.ndarray) and result.shape == (1,)
        assert result[0] == F.irr([-100.0, 60.0, 60.0])

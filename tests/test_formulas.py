"""The formulas layer: closed forms by hand, broadcasting, and a Series in giving a Series out."""

import math

import numpy as np
import numpy_financial as npf
import pandas as pd
import pytest

from costmodel import formulas


class TestBroadcasting:
    def test_series_in_series_out_with_the_index_kept(self):
        index = pd.Index(["a", "b", "c"], name="site")
        price = pd.Series([0.05, 0.10, 0.20], index=index)
        cost = formulas.electricity_cost(10.0, 1.5, price)
        assert isinstance(cost, pd.Series) and list(cost.index) == ["a", "b", "c"]
        # 10 kW x 1.5 x 730 h x price
        assert cost["b"] == pytest.approx(10 * 1.5 * 730 * 0.10)
        rate = pd.Series([0.0, 0.05], index=["zero", "five"])
        payment = formulas.loan_payment(1200.0, rate, 12)
        assert isinstance(payment, pd.Series) and payment["zero"] == pytest.approx(100.0)
        tau = formulas.daly_interval(pd.Series([5 / 60, 7.0]), 3.0)
        assert isinstance(tau, pd.Series) and tau.iloc[1] == 3.0  # delta >= 2M: the MTBF

    def test_arrays_broadcast_and_scalars_stay_floats(self):
        out = formulas.blended_api_price(np.array([5.0, 3.0]), 25.0, 2.0)
        assert out.shape == (2,)
        assert isinstance(formulas.loan_payment(1e6, 0.07, 48), float)
        assert isinstance(formulas.young_interval(0.1, 3.0), float)
        needed = formulas.servers_needed(np.array([0.0, 8.0, 8.5, 17.0]), 8)
        assert list(needed) == [0, 1, 2, 3]


class TestCapital:
    def test_loan_payment_against_numpy_financial(self):
        # P i / (1 - (1 + i)^-n) with i = 0.07 / 12
        i = 0.07 / 12
        assert formulas.loan_payment(1e6, 0.07, 48) == pytest.approx(1e6 * i / (1 - (1 + i) ** -48), rel=1e-12)
        assert formulas.loan_payment(1e6, 0.07, 48) == pytest.approx(-npf.pmt(i, 48, 1e6), rel=1e-12)

    def test_capital_charge_zero_rate_is_straight_line(self):
        assert formulas.capital_charge(1_200_000, 0.0, 60) == pytest.approx(
            formulas.straight_line_depreciation(1_200_000, 60)
        )

    def test_present_value_of_a_matrix_of_flows(self):
        flows = np.array([[100.0, 100.0, 100.0], [0.0, 0.0, 300.0]])
        i = 1.08 ** (1 / 12) - 1
        expected = [100 + 100 / (1 + i) + 100 / (1 + i) ** 2, 300 / (1 + i) ** 2]
        assert formulas.present_value(flows, 0.08) == pytest.approx(expected, rel=1e-12)

    @pytest.mark.parametrize("rate", [-1.0, -2.0])
    def test_rates_at_or_below_minus_one_are_refused(self, rate):
        with pytest.raises(ValueError):
            formulas.monthly_rate(rate)


def test_checkpoint_variant_with_restart():
    # sqrt(2 delta (M + R)): delta = 5 min, M = 180 min, R = 3 min -> sqrt(2 x 5 x 183) = 42.778 min
    assert formulas.interval_with_restart(5 / 60, 3.0, 0.05) * 60 == pytest.approx(math.sqrt(1830), rel=1e-12)


def test_break_even_utilisation_makes_the_cost_per_used_hour_the_price():
    u = formulas.break_even_utilisation(17_520.0, 0.1, 24, 2.5)
    assert formulas.cost_per_used_gpu_hour(17_520.0, 0.1, 24, u) == pytest.approx(2.5, rel=1e-12)

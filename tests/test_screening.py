"""Served demand below a capacity level (Stoft 2002, ch. 3): the sorted-once form against the hours' mean."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel.formulas import served_below, served_below_sorted, sorted_demand


def test_weighted_served_demand_by_hand():
    # hours at 3, 1 and 0 GPUs, weighted 2, 1 and 5: 2 GPUs of capacity serve 2, 1 and 0,
    # so (2·2 + 1·1 + 5·0) / 3 = 5/3; no limit serves (2·3 + 1·1) / 3 = 7/3; none serves 0
    curve = sorted_demand([3.0, 1.0, 0.0], [2.0, 1.0, 5.0])
    assert served_below_sorted(curve, [2.0, np.inf, 0.0]).tolist() == [5 / 3, 7 / 3, 0.0]


hours = st.lists(st.floats(0, 1e4, allow_nan=False), min_size=1, max_size=50)


@settings(max_examples=60, deadline=None)
@given(hours, st.data())
def test_one_sort_serves_every_level_as_the_mean_of_min_over_hours(demand, data):
    # closed form: mean over hours of w_h · min(d_h, C), computed hour by hour
    d = np.array(demand)
    w = np.array(data.draw(st.lists(st.floats(0, 100, allow_nan=False), min_size=len(d), max_size=len(d))))
    levels = np.array(data.draw(st.lists(st.floats(0, 2e4, allow_nan=False), min_size=1, max_size=8)))
    curve = sorted_demand(d, w)
    expected = [np.mean(w * np.minimum(d, c)) for c in levels]
    np.testing.assert_allclose(served_below_sorted(curve, levels), expected, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(served_below_sorted(curve, levels), served_below(d, levels, w))

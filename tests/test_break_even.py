"""Break-even search: closed forms, steps, "never", and properties over generated scenarios."""

import numpy as np
import pytest
from conftest import patched
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.presentation.text import break_even_sentence
from costmodel.scenarios import bundled_scenarios

HOURS = 8760 / 12
R1, R2 = "llama70b-vs-api", "h200-24gpu-cluster"


def scenario(base: str, **changes) -> costmodel.Scenario:
    """A bundled scenario with fields changed (``options__rent__gpu_count=4``); without its
    uncertainty block, since these tests change inputs its distributions name, and without a demand
    profile (R2's campaigns would size the own cluster for their peak: these steps are of steady work)."""
    return patched(base, {k.replace("__", "."): v for k, v in changes.items()}, drop=("uncertainty", "demand"))


def diff(s, a, b, v):
    return costmodel.monthly_cost(s, a, v) - costmodel.monthly_cost(s, b, v)


def test_lines_through_zero_never_cross():
    # Rent billed per GPU-hour used with no staff, and the API: both are proportional to volume,
    # so one is cheaper at every volume: cost_rent / cost_api is a constant.
    s = scenario(
        R1, options__rent__billing="per_gpu_hour_used", options__rent__gpu_count=None, options__rent__staffing=None
    )
    b = costmodel.break_even(s, "rent", "api", volume_max=1e9)
    assert b.volume is None and b.kind == "never"
    ratio = costmodel.monthly_cost(s, "rent", 1e7) / costmodel.monthly_cost(s, "api", 1e7)
    assert b.cheaper_below == ("rent" if ratio < 1 else "api")
    assert "never" in break_even_sentence(b, costmodel.resolve(s).label, "tokens/day")


def test_fixed_cost_against_api_closed_form():
    # Rent always-on with staff is a flat F until the GPUs run out; API = p * v. v* = F / p.
    s = scenario(R1, options__rent__staffing__fte=3)
    flat = 2 * 3.5 * HOURS + 3 * 6000 * 1.16
    per_volume = (2 / 3 * 5 + 1 / 3 * 25) * 365 / 12 / 1e6
    b = costmodel.break_even(s, "rent", "api", volume_max=5e8)
    assert b.volume == pytest.approx(flat / per_volume, rel=1e-9)


def test_never_when_the_crossing_lies_beyond_the_range():
    b = costmodel.break_even(costmodel.load_scenario("llama70b-vs-api"), "rent", "api", volume_max=20e6)
    assert b.volume is None and b.cheaper_below == "api" and b.volume_max == 20e6


def test_flip_at_a_server_step_is_reported_as_a_step():
    # One H200 server owned vs renting per GPU-hour at $4.50: owning wins once the server is busy
    # enough, loses when a second server must be bought, and wins again later.
    s = scenario(
        R2,
        options__own__server_count=1,
        options__own__bill_of_materials=[],
        options__own__staffing={"fte": 0.5, "loaded_cost_per_fte_per_year": 240000, "currency": "USD"},
    )
    capacity = 8 * HOURS * 0.9
    b = costmodel.break_even(s, "own", "rent", volume_max=3 * capacity)
    assert b.kinds[:2] == ("crossing", "step")
    assert b.volumes[1] == pytest.approx(capacity, rel=1e-8)  # past capacity by the 1e-9 rounding tolerance
    assert diff(s, "own", "rent", capacity) < 0 < diff(s, "own", "rent", capacity * (1 + 1e-6))
    assert b.cheaper_below == "rent" and b.cheaper_above == "own"
    # every crossing has equal costs; every step has a sign change across it
    for volume, kind in zip(b.volumes, b.kinds):
        if kind == "crossing":
            own, rent = (costmodel.monthly_cost(s, o, volume) for o in ("own", "rent"))
            assert own == pytest.approx(rent, rel=1e-6)


def test_bad_range_is_an_error():
    with pytest.raises(ValueError):
        costmodel.break_even(costmodel.load_scenario("llama70b-vs-api"), "rent", "api", volume_max=0)


@settings(max_examples=60, deadline=None)
@given(
    staff=st.floats(0, 5).map(lambda x: round(x, 6)),
    rent_gpus=st.integers(1, 16),
    servers=st.integers(1, 3),
    throughput=st.floats(50, 5000),
    utilisation=st.floats(0.05, 1.0).map(lambda x: round(x, 6)),
    cached=st.floats(0, 1).map(lambda x: round(x, 6)),
    billing=st.sampled_from(["always_on", "per_gpu_hour_used"]),
)
def test_break_evens_match_a_dense_sweep(staff, rent_gpus, servers, throughput, utilisation, cached, billing):
    s = scenario(
        R1,
        options__rent__staffing__fte=staff,
        options__rent__gpu_count=rent_gpus if billing == "always_on" else None,
        options__rent__billing=billing,
        options__own__server_count=servers,
        workload__serving=None,
        workload__output_tokens_per_second_per_gpu=throughput,
        workload__throughput_source="generated",
        workload__utilisation_ceiling=utilisation,
        options__api__cached_input_share=cached,
    )
    top = 2e8
    grid = np.linspace(0, top, 4001)
    for b in costmodel.break_evens(s, volume_max=top):
        d = diff(s, b.option_a, b.option_b, grid)
        scale = costmodel.monthly_cost(s, b.option_a, grid) + costmodel.monthly_cost(s, b.option_b, grid) + 1
        signs = np.sign(d)
        signs[np.abs(d) <= 1e-9 * scale] = 0
        nonzero = signs[signs != 0]
        sweep_changes = int(np.count_nonzero(np.diff(nonzero)))
        # a grid can miss changes that come and go between two grid points, never invent one
        assert sweep_changes <= len(b.volumes)
        if b.volume is None:
            assert sweep_changes == 0
        for volume, kind in zip(b.volumes, b.kinds):
            assert np.isfinite(volume) and 0 <= volume <= top
            if kind == "crossing":
                a = costmodel.monthly_cost(s, b.option_a, volume)
                c = costmodel.monthly_cost(s, b.option_b, volume)
                assert a == pytest.approx(c, rel=1e-6)


def test_a_default_range_past_the_step_limit_ends_where_the_steps_can_be_listed():
    # The 10k-H100 cluster at 58.4 M GPU-hours/month busy 3 days in 30: the busiest hour needs about 9.4 x
    # the mean (13 campaigns of 72 h in the year's 8,760 h), so 10 x the volume would need about
    # 58.4e7 / 730 / 0.9 * 9.4 = 8.3 M GPUs, over a million 8-GPU steps. The default search ends at the
    # millionth step past the configured servers (closed form below) instead of refusing the scenario; a
    # range asked for explicitly is still refused.
    from costmodel.domain.capacity import MAX_STEPS

    s = patched(
        "h100-10k-cluster",
        {
            "workload.gpu_hours_per_month": 5.84e7,
            "demand": {"kind": "campaigns", "on_days": 3, "period_days": 30, "off_share": 0, "source": "test"},
        },
        drop=("uncertainty",),
    )
    r = costmodel.resolve(s)
    own = r.option("own")
    per_volume = float(costmodel.domain.capacity.gpus_per_volume(r))
    assert per_volume == pytest.approx(8760 / (13 * 72) / (HOURS * 0.9), rel=1e-12)
    spare = r.workload.spare_gpus
    first = -(-(max(own.configured_gpus - spare, 0) + spare) // own.step_gpus)
    end = ((first + MAX_STEPS) * own.step_gpus - spare) / per_volume
    assert end < 10 * r.volume
    from costmodel.domain.compare import compare

    c = compare(r)
    assert c.break_evens and all(b.volume_max == pytest.approx(end, rel=1e-12) for b in c.break_evens)
    with pytest.raises(ValueError, match="more than 1,000,000 steps"):
        costmodel.break_even(r, "own", "rent", volume_max=10 * r.volume)


@pytest.mark.parametrize("name", bundled_scenarios())
def test_break_evens_of_all_pairs_equal_each_pair_searched_alone(name):
    # break_evens prices each option once at the points of every pair it is in; the cost is
    # elementwise in the volume, so each pair's result must be exactly the pair searched alone,
    # over the default range and over a range starting above zero.
    r = costmodel.resolve(costmodel.load_scenario(name))
    upper = costmodel.default_volume_max(r)
    names = list(r.options)
    for low in (0.0, upper / 7):
        together = costmodel.break_evens(r, upper, low)
        alone = [costmodel.break_even(r, a, b, upper, low) for i, a in enumerate(names) for b in names[i + 1 :]]
        assert together == alone
    if len(names) > 1:
        assert len(together) == len(names) * (len(names) - 1) // 2

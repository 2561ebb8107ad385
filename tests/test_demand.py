"""Demand profiles, the job-log parser and the cheapest mix (screening curves)."""

import json

import numpy as np
import pydantic
import pytest
from conftest import patched, patched_data, write_scenario
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel import formulas
from costmodel.cli import main
from costmodel.domain import mix as dm
from costmodel.io.demand_files import JobLogError, read_job_log

HOURS = 8760 / 12
H200 = "h200-24gpu-cluster"
ON_DEMAND, RESERVED = 4.50, 4.50 * (1 - 0.37)  # Nebius H200; 1-year commitment at 37 % off


def scenario(demand, volume=12_000.0, own=False, spot=None):
    """H200 (R2) prices with a given demand profile; without the own option unless asked."""
    s = patched(
        H200,
        {"demand": demand, "workload.gpu_hours_per_month": volume, "options.rent.spot": spot},
        drop=("uncertainty", "finance"),
    )
    if not own:  # the schema wants two options to compare; the mix needs only the rental terms
        s = s.model_copy(update={"options": s.options.model_copy(update={"own": None})})
    return s


class TestProfiles:
    def test_mean_is_the_workloads_average(self):
        for profile in (
            {"kind": "steady"},
            {"kind": "bursty", "peak_to_average": 2, "duty_cycle": 0.25},
            {"kind": "campaigns", "on_days": 14, "period_days": 30, "off_share": 0.25},
        ):
            series = dm.hourly_demand(scenario(profile))
            assert series.shape == (8760,)
            assert series.mean() == pytest.approx(12_000 / HOURS, rel=1e-12)

    def test_load_duration_curve_is_sorted_and_busy_shares_by_hand(self):
        series = np.array([3.0, 1.0, 2.5, 0.0])
        assert list(formulas.load_duration_curve(series)) == [3.0, 2.5, 1.0, 0.0]
        # GPU 1 busy in 3 of 4 hours; GPU 2 in 2 hours; GPU 3 in 1 hour plus half of another
        assert list(formulas.busy_shares(series)) == pytest.approx([0.75, 0.5, 0.375])

    def test_growth_compounds_over_the_year(self):
        series = dm.hourly_demand(scenario({"kind": "steady", "growth_per_year": 1.0}))
        assert series[-1] / series[0] == pytest.approx(2 ** (8759 / 8760))


class TestMix:
    def test_two_level_profile_matches_the_closed_form(self):
        # bursty: peak 2 x average for 25 % of hours, base (1 - 0.25 x 2) / 0.75 = 2/3 of the average;
        # average 12,000 / 730 = 16.438 GPUs busy, base 10.959. At R2's 0.9 ceiling a reserved GPU
        # serves 0.9 GPUs of demand: the k-th is worth holding while its slice of demand
        # [0.9(k-1), 0.9k] is busy enough that 4.50 x the demand it serves beats 2.835. Slices
        # below the base are busy always (0.9 x 4.50 = 4.05 > 2.835); the 13th, [10.8, 11.7], only
        # 0.159 + 0.741 x 0.25 = 0.344 (1.55 < 2.835): 12 reserved GPUs, serving up to 10.8.
        s = scenario({"kind": "bursty", "peak_to_average": 2, "duty_cycle": 0.25})
        mix = dm.cheapest_mix(s)
        d = dm.hourly_demand(s)
        assert mix.gpus["reserved"] == 12
        assert mix.layers["reserved"].capacity == pytest.approx(10.8)
        assert mix.total == pytest.approx(
            HOURS * (12 * RESERVED + ON_DEMAND * np.clip(d - 10.8, 0, None).mean()), rel=1e-12
        )

    def test_steady_demand_is_all_reserved(self):
        # 16 GPUs busy every hour need 16 / 0.9 = 17.8 GPUs held: 18 reserved (17 plus 0.7 on demand costs more)
        mix = dm.cheapest_mix(scenario({"kind": "steady"}, volume=16 * HOURS))
        assert mix.gpus == {"reserved": 18}
        assert mix.utilisation["reserved"] == pytest.approx(16 / 18)
        assert mix.total == pytest.approx(HOURS * 18 * RESERVED, rel=1e-12)

    def test_rarely_busy_demand_reserves_nothing(self):
        # busy 3 days in 30: 10 % of hours, below the 63 % price ratio
        mix = dm.cheapest_mix(scenario({"kind": "campaigns", "on_days": 3, "period_days": 30}))
        assert "reserved" not in mix.layers and set(mix.layers) == {"on_demand"}

    @pytest.mark.parametrize("discount, lost, used", [(0.4, 0.5, True), (0.1, 25.0, False)])
    def test_spot_only_when_its_discount_outweighs_the_overhead(self, discount, lost, used):
        # overhead = 0.02 interruptions/GPU-h x hours lost; price 4.5 x (1 - discount) / (1 - overhead)
        spot = {
            "discount": discount,
            "interruptions_per_gpu_hour": 0.02,
            "work_lost_hours_per_interruption": lost,
            "source": "test",
        }
        mix = dm.cheapest_mix(scenario({"kind": "campaigns", "on_days": 3, "period_days": 30}, spot=spot))
        assert ("spot" in mix.layers) == used

    def test_spot_capacity_limit(self):
        # at most 5 spot GPUs at once: 5 x 0.9 = 4.5 GPUs of demand each hour
        spot = {
            "discount": 0.4,
            "interruptions_per_gpu_hour": 0.02,
            "work_lost_hours_per_interruption": 0.5,
            "max_gpus": 5,
            "source": "test",
        }
        s = scenario({"kind": "campaigns", "on_days": 3, "period_days": 30}, spot=spot)
        mix = dm.cheapest_mix(s)
        assert mix.gpus["spot"] == 5
        assert mix.hourly["spot"].max() == pytest.approx(4.5)

    def test_cost_against_level_has_its_minimum_at_the_mix(self):
        s = costmodel.load_scenario("h200-24gpu-cluster")
        mix = dm.cheapest_mix(s)
        levels, cost = dm.cost_against_level(s, "reserved")
        assert levels[np.argmin(cost)] == mix.gpus["reserved"]
        assert cost.min() == pytest.approx(mix.total, rel=1e-12)

    @settings(max_examples=40, deadline=None)
    @given(
        template=st.lists(st.floats(0, 10).map(lambda x: round(x, 3)), min_size=168, max_size=168),
        volume=st.floats(500, 30_000),
    )
    def test_mix_never_costs_more_than_the_cheapest_pure_option(self, template, volume):
        if sum(template) == 0:
            template[0] = 1.0
        s = scenario(
            {"kind": "weekly", "template": template},
            volume=round(volume, 1),
            own=True,
            spot={
                "discount": 0.4,
                "interruptions_per_gpu_hour": 0.02,
                "work_lost_hours_per_interruption": 0.5,
                "source": "test",
            },
        )
        mix = dm.cheapest_mix(s)
        assert mix.total <= min(mix.pure.values()) * (1 + 1e-12)


class TestJobLog:
    HEADER = "JobID|JobName|Start|End|AllocTRES\n"

    def write(self, tmp_path, rows):
        path = tmp_path / "sacct.txt"
        path.write_text(self.HEADER + "".join(r + "\n" for r in rows))
        return path

    def test_overlapping_jobs_add_up_and_partial_hours_count_pro_rata(self, tmp_path):
        path = self.write(
            tmp_path,
            [
                "1|a|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=4",
                "2|b|2026-01-01T01:30:00|2026-01-01T03:00:00|billing=8,gres/gpu=2",
            ],
        )
        d = read_job_log(path, 2026).demand
        assert list(d[:4]) == pytest.approx([4.0, 4.0 + 1.0, 2.0, 0.0])
        assert d.sum() == pytest.approx(4 * 2 + 2 * 1.5)

    def test_midnight_and_month_boundaries_split_at_the_hour(self, tmp_path):
        path = self.write(tmp_path, ["1|a|2026-01-31T23:00:00|2026-02-01T01:00:00|gres/gpu=8"])
        d = read_job_log(path, 2026).demand
        hour = (31 - 1) * 24 + 23  # 23:00 on 31 January
        assert list(d[hour : hour + 3]) == [8.0, 8.0, 0.0]
        assert d.sum() == 16.0

    @pytest.mark.parametrize(
        "row, reason",
        [
            ("2|a|yesterday|2026-01-01T02:00:00|gres/gpu=1", "a time like"),
            ("2|a|2026-01-02T00:00:00|2026-01-01T02:00:00|gres/gpu=1", "End is before Start"),
            ("2|a|2026-01-01T00:00:00", "fields"),
            ("2|a|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=two", "gres/gpu"),
            ("2|a|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=1.5", "whole number"),
            ("2|a|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=1000000000", "whole number"),
            ("1|a|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=1", "repeats line 2"),
        ],
    )
    def test_malformed_rows_name_the_line(self, tmp_path, row, reason):
        path = self.write(tmp_path, ["1|ok|2026-01-01T00:00:00|2026-01-01T02:00:00|gres/gpu=1", row])
        with pytest.raises(JobLogError) as caught:
            read_job_log(path, 2026)
        assert caught.value.problems[0][0] == "line 3" and reason in caught.value.problems[0][2]

    def test_steps_are_skipped_and_typed_counts_read(self, tmp_path):
        path = self.write(
            tmp_path,
            [
                "7|train|2026-01-01T00:00:00|2026-01-01T01:00:00|billing=8,gres/gpu:h200=8",
                "7.batch|batch|2026-01-01T00:00:00|2026-01-01T01:00:00|gres/gpu:h200=8",
                "7.0|step|2026-01-01T00:00:00|2026-01-01T01:00:00|gres/gpu=8",
            ],
        )
        log = read_job_log(path, 2026)
        assert log.demand[0] == 8.0
        assert log.skipped == {"job steps (their GPUs are the job's)": 2}

    def test_the_shipped_log_loads(self):
        s = costmodel.load_scenario("h200-job-log")
        series = dm.hourly_demand(s)
        # the scenario's monthly volume is the log's average
        assert series.sum() / 12 == pytest.approx(s.workload.gpu_hours_per_month, rel=0.001)


@pytest.mark.parametrize(
    "profile, field",
    [
        ({"kind": "bursty", "peak_to_average": 2, "duty_cycle": 0}, "demand.duty_cycle"),
        ({"kind": "bursty", "peak_to_average": 2, "duty_cycle": 1.5}, "demand.duty_cycle"),
        ({"kind": "bursty", "peak_to_average": 0.5, "duty_cycle": 0.5}, "demand.peak_to_average"),
        ({"kind": "bursty", "peak_to_average": 3, "duty_cycle": 0.5}, "demand.duty_cycle"),
        ({"kind": "weekly", "template": [1.0] * 100}, "demand.template"),
        ({"kind": "weekly", "template": [0.0] * 168}, "demand.template"),
    ],
)
def test_bad_profiles(tmp_path, profile, field):
    path = write_scenario(tmp_path, patched_data(H200, {"demand": profile}))
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    assert [p[0] for p in caught.value.problems] == [field]


@pytest.mark.parametrize(
    "values, reason",
    [
        ([1.0] * 8000, "needs 8,760"),
        ([1.0] * 8759 + [-2.0], "between 0 and"),
        ([1.0] * 8759 + ["10,5"], "one number"),
        ([0.0] * 8760, "no demand"),
        ([1.0] * 8759 + [1e300], "between 0 and"),
    ],
)
def test_bad_hourly_files(tmp_path, values, reason):
    hourly = tmp_path / "hours.csv"
    hourly.write_text("gpus\n" + "\n".join(str(v) for v in values) + "\n")
    path = write_scenario(tmp_path, patched_data(H200, {"demand": {"kind": "hourly_file", "path": str(hourly)}}))
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    (problem,) = caught.value.problems
    assert problem[0] == "demand.path" and reason in problem[2]


def test_compare_reports_the_mix(capsys):
    assert main(["compare", "h200-24gpu-cluster", "--json"]) == 0
    mix = json.loads(capsys.readouterr().out)["cheapest_mix"]
    assert mix["profile"] == "campaigns"
    assert sum(v["cost"]["value"] for v in mix["layers"].values()) + mix["rental_staffing"]["value"] == pytest.approx(
        mix["total"]["value"], abs=0.05
    )
    assert set(mix["savings_against_pure"]) >= {"own", "on_demand", "reserved"}
    assert all(v["value"] >= -0.01 for v in mix["savings_against_pure"].values())
    assert mix["layers"]["reserved"]["gpus"]["unit"] == "GPU" and "if_steady" in mix


def test_profile_and_workload_must_agree(tmp_path):
    path = write_scenario(tmp_path, patched_data("h200-job-log", {"workload.gpu_hours_per_month": 15000}))
    with pytest.raises(costmodel.ScenarioError) as caught:
        costmodel.load_scenario(path)
    (problem,) = caught.value.problems
    assert problem[0] == "workload.gpu_hours_per_month" and "5,181" in problem[2]


def test_profiles_need_a_gpu_hours_or_tokens_workload():
    # Issue 12: token workloads take demand profiles too; a training run and a job log on tokens do not.
    with pytest.raises(pydantic.ValidationError, match="not to a training run"):
        patched("llama31-405b-training", {"demand": {"kind": "steady"}}, drop=("uncertainty",))
    with pytest.raises(pydantic.ValidationError, match="request_log or hourly_file"):
        patched(
            "llama70b-vs-api", {"demand": {"kind": "job_log", "path": "x.log", "year": 2026}}, drop=("uncertainty",)
        )
    assert patched("llama70b-vs-api", {"demand": {"kind": "steady"}}, drop=("uncertainty",)).demand.kind == "steady"


@pytest.mark.parametrize(
    "spot, field",
    [
        ({"discount": 1.0, "interruptions_per_gpu_hour": 0.0, "work_lost_hours_per_interruption": 0.0}, "discount"),
        (
            {"discount": 0.4, "interruptions_per_gpu_hour": 0.5, "work_lost_hours_per_interruption": 10},
            "work_lost_hours_per_interruption",
        ),
    ],
)
def test_bad_spot_terms(spot, field):
    with pytest.raises(pydantic.ValidationError) as caught:
        patched(H200, {"options.rent.spot": {**spot, "source": "test"}})
    loc = caught.value.errors()[0]["loc"]  # a discount may also be "catalog": its union branch ends the loc
    assert loc[-1] == field or loc[-2:] == (field, "constrained-float")


def test_reserved_price_currency_needs_a_rate():
    with pytest.raises(pydantic.ValidationError, match="no FX rate from EUR"):
        patched(
            H200,
            {
                "options.rent.reserved": {
                    "term_years": 1,
                    "price_per_gpu_hour": 2.5,
                    "currency": "EUR",
                    "source": "test",
                }
            },
        )


def optimum_by_brute_force(s):
    """The cheapest mix found independently of the closed form: every (owned servers, reserved GPUs) pair,
    dispatched hour by hour in plain numpy, spot capped, the rest on demand. [currency/month]"""
    from costmodel.domain.costs import own_costs_at

    r = costmodel.resolve(s)
    own, rent = r.options["own"], r.options["rent"]
    d = dm.hourly_demand(r)
    u = r.workload.hourly_ceiling
    cap = rent.spot.max_gpus * u
    best = np.inf
    for servers in range(int(np.ceil(d.max() / u / 8)) + 2):
        for reserved in range(int(np.ceil(d.max() / u)) + 2):
            by_reserved = np.minimum(d, reserved * u)
            by_own = np.minimum(d, reserved * u + servers * 8 * u) - by_reserved
            rest = d - by_reserved - by_own
            by_spot = np.minimum(rest, cap) if rent.spot.price_per_gpu_hour < rent.price_per_gpu_hour else 0 * rest
            on_demand = rest - by_spot
            cost = HOURS * (
                reserved * rent.reserved.price_per_gpu_hour
                + by_spot.mean() * rent.spot.price_per_gpu_hour
                + on_demand.mean() * rent.price_per_gpu_hour
            )
            if servers:
                cost += sum(own_costs_at(own, float(servers), HOURS * by_own.mean()).values())
            best = min(best, cost)
    return best


def test_owned_servers_and_capped_spot_are_searched_together():
    # A demand whose base owned servers carry and whose top the capped spot takes, with reservations dear
    s = patched(
        H200,
        {"demand": {"kind": "weekly", "template": [14.4] * 128 + [20] * 40}, "options.rent.reserved.discount": 0.05},
        drop=("uncertainty",),
    )
    mix = dm.cheapest_mix(s)
    assert mix.total == pytest.approx(optimum_by_brute_force(s), rel=1e-12)
    assert mix.layers["own"].units >= 1 and "spot" in mix.layers


class TestMixOnSampledInputs:
    """The mix is a purchase chosen on one value per input: samples of an input are refused by name, while
    each kind alone (what the Monte Carlo prices) takes them."""

    PRICE = "options.own.power.electricity_price_per_kwh"
    SAMPLES = np.array([0.05, 0.0707, 0.09])  # [currency/kWh] around R2's 0.0707

    def resolved(self, prices):
        from costmodel.domain.uncertainty import with_values

        return with_values(costmodel.resolve(costmodel.load_scenario(H200)), {self.PRICE: prices})

    @pytest.mark.parametrize(
        "call",
        [dm.mix_result, dm.cheapest_mix, lambda r: dm.cost_against_level(r, "own")],
        ids=["mix_result", "cheapest_mix", "cost_against_level"],
    )
    def test_the_mix_refuses_samples_naming_the_input(self, call):
        with pytest.raises(ValueError, match=r"one value per input.*electricity_price_per_kwh holds an array"):
            call(self.resolved(self.SAMPLES))

    def test_each_kind_alone_takes_samples_as_it_takes_each_value(self):
        costs, _ = dm.pure_costs(self.resolved(self.SAMPLES))
        one_by_one = [dm.pure_costs(self.resolved(float(p)))[0]["own"] for p in self.SAMPLES]
        assert np.asarray(costs["own"]) == pytest.approx(one_by_one, rel=1e-12)
        # the own option's electricity is linear in its price: equal steps in price, equal steps in cost
        a, b, c = one_by_one
        assert (c - b) / (b - a) == pytest.approx((0.09 - 0.0707) / (0.0707 - 0.05), rel=1e-9)

    def test_the_mix_on_one_value_is_the_scenarios(self):
        mix = dm.mix_result(self.resolved(0.0707))
        assert mix is not None
        assert mix.mix.total == pytest.approx(dm.mix_result(costmodel.load_scenario(H200)).mix.total, rel=1e-12)

"""Fleets whose members keep their own constraints, and recurring fine-tunes on the fleet.

Pooling never costs more than the members alone at the same prices: a member's spot cap limits
its own spot GPUs (a fleet-wide cap only when the fleet file states one), and capacity comes in
steps every member's replicas fit.
"""

from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from costmodel.domain.demand import hourly_demand
from costmodel.domain.fleet import compare_fleet, fine_tune_demand, fine_tune_gpu_hours, month_hours
from costmodel.errors import InputError
from costmodel.paths import scenario_path
from costmodel.resolved import as_resolved
from costmodel.results import Layer
from costmodel.scenarios import load_scenario
from costmodel.schema.fleet import FineTuneMember, Fleet, FleetMember

SCENARIOS = scenario_path("h200-job-log").parent
FLEETS = SCENARIOS.parent / "fleets"
SERVING = FLEETS / "llama70b-serving.yaml"
JOB_LOG = SCENARIOS.parent / "job_logs" / "synthetic-sacct-2026.txt"


def _fine_tune(name="ft", team="b", **kw) -> FineTuneMember:
    fields = {"every_months": 1, "gpus": 32, "gpu_hours": 600.0, "source": "test"} | kw
    return FineTuneMember(name=name, team=team, kind="fine_tune", **fields)


def _job_log(tmp_path: Path, name: str, cap: int | None) -> str:
    """h200-job-log with another spot cap (none: uncapped), its job log by absolute path."""
    text = (SCENARIOS / "h200-job-log.yaml").read_text()
    text = text.replace("path: job_logs/synthetic-sacct-2026.txt", f"path: {JOB_LOG}")
    text = text.replace("      max_gpus: 8\n", "" if cap is None else f"      max_gpus: {cap}\n")
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path.name


class TestSpotCapsPerMember:
    def test_the_same_log_twice_costs_twice_one(self):
        # The flaw fixed: with the first member's cap of 8 spot GPUs for the whole fleet, sharing cost
        # 4,162.65 USD/month more than the two alone (40,090.85 against 2 × 17,964.10).
        two = compare_fleet(FLEETS / "two-teams.yaml")
        assert two.total == pytest.approx(2 * 17_964.10, abs=0.01)
        assert two.saving == pytest.approx(0.0, abs=1e-6)
        spot = two.mix.hourly[Layer.SPOT]
        assert two.members[0].alone == pytest.approx(17_964.10, abs=0.01)
        assert spot.max() <= 2 * 8 * 0.9 + 1e-9  # each member's 8 GPUs at the 0.9 ceiling

    def test_a_fleet_wide_cap_only_when_stated(self):
        members = [
            FleetMember(name="a", team="a", scenario="h200-job-log.yaml"),
            FleetMember(name="b", team="b", scenario="h200-job-log.yaml"),
        ]
        doc = Fleet(kind="fleet", members=members, spot_max_gpus=8)
        # the fleet file's cap of 8 GPUs reproduces the old answer, where the first member's cap was the fleet's
        capped = compare_fleet(doc, base=SCENARIOS)
        assert capped.total == pytest.approx(40_090.85, abs=0.01)
        assert capped.mix.hourly[Layer.SPOT].max() <= 8 * 0.9 + 1e-9

    def test_a_member_without_spot_uses_none(self):
        fleet = compare_fleet(FLEETS / "serve-and-finetune.yaml")
        fine_tune = fleet.demand - np.asarray(hourly_demand(as_resolved(load_scenario(SERVING))))
        spot = fleet.mix.hourly.get(Layer.SPOT, np.zeros_like(fleet.demand))
        ceiling = 0.8  # the served model's target utilisation: the hourly ceiling
        assert np.all(spot <= np.minimum(fine_tune, 16 * ceiling) + 1e-9)
        assert spot[fine_tune == 0].max(initial=0.0) == 0.0


# Fleets of members at the same prices: (spot caps of job-log members), fine-tunes (gpus, GPU-hours, every, cap).
CASES = [
    ([8, 8], []),
    ([8, None], []),
    ([0, 4, 12], []),
    ([None], [(32, 600.0, 1, None)]),
    ([8], [(64, 2000.0, 3, 0), (16, 300.0, 2, 8)]),
    ([2, 0], [(8, 1500.0, 6, None)]),
]


class TestPoolingNeverCostsMore:
    @pytest.mark.parametrize(("caps", "tunes"), CASES)
    def test_job_log_members(self, tmp_path, caps, tunes):
        members = [
            FleetMember(name=f"m{i}", team=f"t{i}", scenario=_job_log(tmp_path, f"m{i}", cap))
            for i, cap in enumerate(caps)
        ]
        members += [
            _fine_tune(f"f{i}", f"u{i}", gpus=g, gpu_hours=h, every_months=k, spot_max_gpus=c)
            for i, (g, h, k, c) in enumerate(tunes)
        ]
        fleet = compare_fleet(Fleet(kind="fleet", members=members), base=tmp_path)
        assert fleet.total <= fleet.alone * (1 + 1e-9)
        cents = (Decimal(repr(fleet.total)) * 100).quantize(Decimal(1))
        assert sum(s.allocated for s in fleet.showback) * 100 == cents

    @pytest.mark.parametrize("tunes", [[(32, 600.0, 1, 16)], [(8, 700.0, 2, 0), (48, 3000.0, 4, None)]])
    def test_serving_with_fine_tunes(self, tunes):
        members: list = [FleetMember(name="serving", team="a", scenario=SERVING.name)]
        members += [
            _fine_tune(f"f{i}", f"u{i}", gpus=g, gpu_hours=h, every_months=k, spot_max_gpus=c)
            for i, (g, h, k, c) in enumerate(tunes)
        ]
        fleet = compare_fleet(Fleet(kind="fleet", members=members), base=FLEETS)
        assert fleet.total <= fleet.alone * (1 + 1e-9)


class TestFineTune:
    def test_gpu_hours_from_tokens(self):
        # 6 N D / (MFU · peak · 3,600): Llama 3.3 70B, N = 7.06e10 (data/models.csv), D = 2e9 tokens,
        # 40 % of the H100's 989 dense BF16 TFLOP/s: 8.472e20 / 1.42416e18 = 594.88 GPU-hours
        member = _fine_tune(gpu_hours=None, model="llama-3.3-70b", tokens=2e9, mfu=0.4)
        assert fine_tune_gpu_hours(member, as_resolved(load_scenario(SERVING))) == pytest.approx(594.88, abs=0.01)

    def test_demand_lands_at_the_start_of_its_months(self):
        member = _fine_tune(gpus=32, gpu_hours=600.0, every_months=3, first_month=1)
        d, months = fine_tune_demand(member, 600.0, 8760)
        assert months == (1, 4, 7, 10)
        april = (31 + 28 + 31) * 24  # 2,160: the first hour of April
        assert np.all(d[april : april + 18] == 32) and d[april + 18] == pytest.approx(24.0)  # 18.75 h of wall clock
        assert d[april + 19 :].sum() == pytest.approx(2 * 600.0)  # July's and October's runs
        assert d.sum() == pytest.approx(4 * 600.0)
        assert month_hours(8784)[1] == 29 * 24

    def test_a_run_longer_than_its_month(self):
        with pytest.raises(InputError, match="longer than month 2"):
            fine_tune_demand(_fine_tune(gpus=1, gpu_hours=700.0, first_month=2), 700.0, 8760)

    def test_schema_rules(self):
        with pytest.raises(ValueError, match="gpu_hours, or model, tokens and mfu"):
            _fine_tune(gpu_hours=None, tokens=1e9)
        with pytest.raises(ValueError, match="first member must be a scenario"):
            Fleet(kind="fleet", members=[_fine_tune()])
        with pytest.raises(ValueError, match="serves"):
            Fleet(kind="fleet", members=[FleetMember(name="s", team="a", scenario="x.yaml"), _fine_tune(serves="t")])

    def test_monthly_showback(self):
        members = [FleetMember(name="serving", team="a", scenario=SERVING.name), _fine_tune(every_months=3)]
        fleet = compare_fleet(Fleet(kind="fleet", members=members), base=FLEETS)
        assert [m.month for m in fleet.monthly] == list(range(1, 13))
        for month in fleet.monthly:
            assert sum(s.allocated for s in month.teams) == month.cost
            tuner = month.teams[1]
            assert (tuner.gpu_hours > 0) == (month.month in (1, 4, 7, 10))
            if month.month not in (1, 4, 7, 10):
                assert tuner.allocated == 0  # idle shared by use: no use, no share
        # the months' costs add up to the year's: 8,760 h = 12 months of 730 h
        assert float(sum(m.cost for m in fleet.monthly)) == pytest.approx(12 * fleet.total, abs=0.06)
        # January and March have 744 hours each; only January has a run, so it costs more
        jan, mar = fleet.monthly[0], fleet.monthly[2]
        assert jan.hours == mar.hours == 744 and jan.cost > mar.cost

    def test_ceilings_must_match(self, tmp_path):
        members = [
            FleetMember(name="a", team="a", scenario=_job_log(tmp_path, "a", 8)),
            FleetMember(name="b", team="b", scenario="b.yaml"),
        ]
        text = (tmp_path / "a.yaml").read_text().replace("utilisation_ceiling: 0.9", "utilisation_ceiling: 0.8")
        (tmp_path / "b.yaml").write_text(text)
        with pytest.raises(InputError, match="hourly utilisation ceiling"):
            compare_fleet(Fleet(kind="fleet", members=members), base=tmp_path)


def test_cli_serve_and_finetune(capsys):
    import json

    from costmodel.cli import main

    path = FLEETS / "serve-and-finetune.yaml"
    assert main(["fleet", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    total = Decimal(repr(doc["figures"][doc["winner"]]))
    assert sum(Decimal(s["allocated"]) for s in doc["showback"]) * 100 == (total * 100).quantize(Decimal(1))
    assert [m["kind"] for m in doc["members"]] == ["scenario", "fine_tune"]
    assert doc["members"][1]["run_months"] == list(range(1, 13))
    assert doc["saving"] > 0  # the fine-tune runs on capacity the served model leaves idle
    for month in doc["monthly"]:
        assert sum(Decimal(t["allocated"]) for t in month["teams"]) == Decimal(month["cost"])
    assert main(["fleet", str(path)]) == 0
    out = capsys.readouterr().out
    assert "GPU-hours a run, in Jan, Feb" in out and "By calendar month" in out and "\n  Feb " in out

"""A fleet of one member answers as its scenario does; showback adds up to the fleet's cost to the cent."""

from decimal import Decimal
from fractions import Fraction
from typing import Literal

import numpy as np
import pytest

import costmodel
from costmodel.domain.fleet import _largest_remainder, compare_fleet, load_fleet
from costmodel.errors import InputError
from costmodel.paths import scenario_path
from costmodel.schema.fleet import Fleet, FleetMember, IdleOwner

SCENARIOS = scenario_path("h200-job-log").parent
FLEETS = SCENARIOS.parent / "fleets"
SERVE_AND_FINETUNE = FLEETS / "serve-and-finetune.yaml"


def _fleet(*members: tuple[str, str, str], idle: Literal["proportional"] | IdleOwner = "proportional") -> Fleet:
    return Fleet(kind="fleet", members=[FleetMember(name=n, team=t, scenario=s) for n, t, s in members], idle_cost=idle)


@pytest.mark.parametrize("name", ["h200-job-log", "llama70b-hybrid"])
def test_one_member_is_the_scenario(name):
    single = costmodel.compare(name)
    fleet = compare_fleet(_fleet(("only", "a", f"{name}.yaml")), base=SCENARIOS)
    assert fleet.winner == single.decision.winner
    assert set(fleet.figures) == set(single.decision.candidates)
    for k, c in single.decision.candidates.items():
        assert fleet.figures[k] == pytest.approx(c.figure, rel=1e-12)
    assert single.mix is not None
    assert set(fleet.mix.layers) == set(single.mix.mix.layers)
    for k, layer in single.mix.mix.layers.items():
        mine = fleet.mix.layers[k]
        assert (mine.units, mine.gpus, mine.offer) == (layer.units, layer.gpus, layer.offer)
        assert mine.cost == pytest.approx(layer.cost, rel=1e-12)
        assert mine.busy_gpu_hours == pytest.approx(layer.busy_gpu_hours, rel=1e-12)
    assert fleet.saving == pytest.approx(0.0, abs=1e-6)


def test_two_members_sum_the_demand_and_showback_adds_up():
    one = compare_fleet(_fleet(("jobs", "a", "h200-job-log.yaml")), base=SCENARIOS)
    both = compare_fleet(
        _fleet(("jobs", "a", "h200-job-log.yaml"), ("jobs2", "b", "h200-job-log.yaml")), base=SCENARIOS
    )
    assert both.used_gpu_hours == pytest.approx(sum(m.gpu_hours for m in both.members))
    np.testing.assert_allclose(both.demand, 2 * one.demand)
    cents = (Decimal(repr(both.total)) * 100).quantize(Decimal(1))
    assert sum(s.allocated for s in both.showback) * 100 == cents
    assert both.alone == pytest.approx(2 * one.total, rel=1e-12)


def test_idle_to_an_owner_and_a_team_that_uses_nothing():
    assert _largest_remainder(1001, [Fraction(1), Fraction(1), Fraction(0)]) == [501, 500, 0]
    assert _largest_remainder(7, [Fraction(0), Fraction(0)]) == [4, 3]
    doc = load_fleet(SERVE_AND_FINETUNE).model_copy(update={"idle_cost": IdleOwner(owner="research")})
    fleet = compare_fleet(doc, base=SERVE_AND_FINETUNE.parent)
    product, research = fleet.showback
    assert product.idle == 0 and research.idle > 0  # the fleet holds reserved GPUs idle at night
    assert product.allocated + research.allocated == (Decimal(repr(fleet.total)) * 100).quantize(Decimal(1)) / 100
    # the used part in proportion to GPU-hours, to within a cent
    used = [s.allocated - s.idle for s in fleet.showback]
    ratio = Decimal(repr(product.gpu_hours / research.gpu_hours))
    assert abs(used[0] - used[1] * ratio) <= Decimal("0.01") * (1 + ratio)


def test_bad_fleet_named():
    with pytest.raises(ValueError, match="idle_cost.owner"):
        _fleet(("x", "a", "h200-job-log.yaml"), idle=IdleOwner(owner="nobody"))
    with pytest.raises(InputError, match="H100-SXM-80GB"):
        compare_fleet(_fleet(("a", "a", "h200-job-log.yaml"), ("b", "b", "llama70b-hybrid.yaml")), base=SCENARIOS)


def test_cli_fleet_text_and_json(capsys):
    import json
    from pathlib import Path

    from costmodel.cli import main

    path = Path(__file__).parents[1] / "data" / "fleets" / "two-teams.yaml"
    assert main(["fleet", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sum(Decimal(s["allocated"]) for s in doc["showback"]) * 100 == (
        Decimal(repr(doc["figures"][doc["winner"]])) * 100
    ).quantize(Decimal(1))
    assert [m["team"] for m in doc["members"]] == ["research", "applied"]
    assert main(["fleet", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Showback" in out and "research" in out

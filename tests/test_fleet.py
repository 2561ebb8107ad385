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


# --- bad fleet files: each error names the fleet file, the field, the value and the rule ---------------

TWO_TEAMS = FLEETS / "two-teams.yaml"


def _fleet_file(tmp_path, old: str, new: str, name: str = "fleet.yaml"):
    """two-teams.yaml, with ``old`` replaced by ``new``, in ``tmp_path/fleets`` (beside a ``scenarios`` folder
    holding h200-job-log.yaml, so that its ``../scenarios/`` paths resolve)."""
    (tmp_path / "scenarios").mkdir(exist_ok=True)
    (tmp_path / "fleets").mkdir(exist_ok=True)
    job_log = (SCENARIOS / "h200-job-log.yaml").read_text(encoding="utf-8")
    (tmp_path / "scenarios" / "h200-job-log.yaml").write_text(job_log, encoding="utf-8")
    text = TWO_TEAMS.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "fleets" / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _error(path) -> str:
    with pytest.raises(InputError) as info:
        compare_fleet(path)
    return str(info.value)


def test_a_missing_member_file_is_named_at_its_field(tmp_path):
    path = _fleet_file(tmp_path, "../scenarios/h200-job-log.yaml", "../scenarios/nope.yaml")
    resolved = (tmp_path / "scenarios" / "nope.yaml").resolve()
    assert _error(path) == (
        f"{path}: members.0.scenario: cannot be read: no such file (resolved to {resolved}) "
        "(got '../scenarios/nope.yaml')"
    )


def test_a_member_may_name_a_bundled_scenario(tmp_path):
    by_path = compare_fleet(TWO_TEAMS)
    by_name = compare_fleet(
        _fleet_file(tmp_path, "scenario: ../scenarios/h200-job-log.yaml", "scenario: h200-job-log", "named.yaml")
    )
    assert by_name.figures == by_path.figures and by_name.showback == by_path.showback
    assert by_name.members[1].path == str(tmp_path / "fleets" / "../scenarios/h200-job-log.yaml")  # by its path
    assert by_name.members[0].path == str(SCENARIOS / "h200-job-log.yaml")
    # a name that is neither a file beside the fleet nor a bundled scenario
    path = _fleet_file(tmp_path, "../scenarios/h200-job-log.yaml", "h200-job-lgo", "misspelt.yaml")
    assert _error(path) == (
        f"{path}: members.0.scenario: cannot be read: no such file (resolved to {path.parent / 'h200-job-lgo'}); "
        "nor a bundled scenario (did you mean h200-job-log?) (got 'h200-job-lgo')"
    )


def test_a_member_with_a_bad_value_is_named_in_the_fleet_file(tmp_path):
    path = _fleet_file(tmp_path, "../scenarios/h200-job-log.yaml", "../scenarios/bad.yaml")
    text = (SCENARIOS / "h200-job-log.yaml").read_text(encoding="utf-8")
    assert "utilisation_ceiling: 0.9" in text
    member = tmp_path / "fleets" / ".." / "scenarios" / "bad.yaml"
    member.write_text(text.replace("utilisation_ceiling: 0.9", "utilisation_ceiling: lots"), encoding="utf-8")
    message = _error(path)
    assert message.startswith(f"{path}: members.0.scenario: {member}: workload.")
    assert "utilisation_ceiling: must be a number, not the text 'lots' (got 'lots')" in message
    assert len(message.splitlines()) == 1


def test_bad_idle_cost_and_doubled_names_read_as_a_scenarios_errors(tmp_path):
    """No pydantic branch names (``literal['proportional']``, ``IdleOwner``), no dict of the whole file."""
    bogus = _fleet_file(tmp_path, "idle_cost: proportional", "idle_cost: bogus", "bogus.yaml")
    assert (
        _error(bogus)
        == f"{bogus}: idle_cost: must be proportional, or owner: TEAM (all idle cost to one team) (got 'bogus')"
    )
    misspelt = _fleet_file(tmp_path, "idle_cost: proportional", "idle_cost: proportionl", "misspelt.yaml")
    assert _error(misspelt).endswith("(did you mean proportional?) (got 'proportionl')")
    owner = _fleet_file(tmp_path, "idle_cost: proportional", "idle_cost: {owner: reserch}", "owner.yaml")
    assert _error(owner) == (
        f"{owner}: idle_cost.owner: must be one of the members' teams (applied, research) (did you mean research?) "
        "(got 'reserch')"
    )
    doubled = _fleet_file(tmp_path, "name: finetunes", "name: campaigns", "doubled.yaml")
    assert _error(doubled) == (
        f"{doubled}: members.1.name: each name must be unique in the fleet; members.0.name is 'campaigns' too "
        "(got 'campaigns')"
    )
    extra = _fleet_file(tmp_path, "    team: applied\n", "    team: applied\n    colour: red\n", "extra.yaml")
    assert (
        _error(extra) == f"{extra}: members.1.colour: not a field here (misspelt, or in the wrong block?) (got 'red')"
    )


def test_fleet_json_is_rounded_as_compares(capsys):
    """Money to the cent, GPU-hours to three decimals, no -0.0: two-teams.yaml's saving was -7.3e-12 and its
    paid GPU-hours 10362.000000000004. The two members are one scenario twice, so the fleet costs twice one
    member and saves nothing; both are the job log's 5,181 GPU-hours a month (to three decimals)."""
    import json
    import math

    from costmodel.cli import main

    result = compare_fleet(TWO_TEAMS)
    assert main(["fleet", str(TWO_TEAMS), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["saving"] == 0.0 and math.copysign(1.0, doc["saving"]) == 1.0
    assert doc["figures"] == {k: round(v, 2) for k, v in result.figures.items()}
    assert doc["alone"] == round(result.alone, 2) == doc["figures"][doc["winner"]]
    assert doc["paid_gpu_hours"] == doc["used_gpu_hours"] == 2 * doc["members"][0]["gpu_hours"] == 10362.0
    for m in doc["members"]:
        assert m["alone"] == round(m["alone"], 2) and m["gpu_hours"] == round(m["gpu_hours"], 3)
    for month in doc["monthly"]:
        for team in month["teams"]:
            assert team["gpu_hours"] == round(team["gpu_hours"], 3)


def test_a_fine_tunes_rules_name_its_fields(tmp_path):
    """A fine-tune's cross-field rules at the member's fields, with no dict of the member (its ``kind`` is
    pydantic's branch tag, left out of the field)."""
    source = SERVE_AND_FINETUNE.read_text(encoding="utf-8")
    path = tmp_path / "fleet.yaml"
    path.write_text(source.replace("    mfu: 0.4\n", "    mfu: 0.4\n    gpu_hours: 100\n"), encoding="utf-8")
    assert str(_load_error(path)) == (
        f"{path}: members.1.tokens: gpu_hours, or tokens and mfu, not both (got 2000000000.0)\n"
        f"{path}: members.1.mfu: gpu_hours, or tokens and mfu, not both (got 0.4)"
    )
    path.write_text(source.replace("    serves: serving\n", "    serves: nobody\n"), encoding="utf-8")
    assert (
        str(_load_error(path)) == f"{path}: members.1.serves: must name a scenario member of the fleet (got 'nobody')"
    )


def _load_error(path) -> InputError:
    with pytest.raises(InputError) as info:
        load_fleet(path)
    return info.value


def test_fleet_text_names_the_ways_to_pay_in_words(capsys):
    # the text listed the candidates by id ("rent.reserved", "mix") where a reader expects what is bought;
    # --json keeps the ids
    from costmodel.cli import main
    from costmodel.paths import DATA_DIR

    assert main(["fleet", str(DATA_DIR / "fleets" / "serve-and-finetune.yaml")]) == 0
    out = capsys.readouterr().out
    assert "cheapest mix, hour by hour" in out and "cloud rental, reserved" in out and "own cluster" in out
    assert "rent.reserved" not in out and "\n  mix " not in out


def _fine_tune_fleet(tmp_path, old: str, new: str):
    """serve-and-finetune.yaml with ``old`` replaced by ``new`` (its member scenario named by absolute path)."""
    text = SERVE_AND_FINETUNE.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new).replace(
        "scenario: llama70b-serving.yaml", f"scenario: {FLEETS / 'llama70b-serving.yaml'}"
    )
    path = tmp_path / "fleet.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "old, new, expected",
    [
        # F3 kind: a blank title, name or team was shown as a blank heading or column
        ('title: "Serve', 'title: "   "\n# "Serve', "title: only spaces or invisible characters"),
        ("name: serving\n", 'name: "\\u200b"\n', "members.0.name: only spaces or invisible characters"),
        ("team: research", 'team: "  "', "members.1.team: only spaces or invisible characters"),
        # F1 kind (text as written, nothing live): a control character in a team reached the terminal
        ("team: product", 'team: "p\\e[2J"', "members.0.team: holds the control character U+001B at position 1"),
        # the magnitude rule of every scenario figure: 1e-308 tokens priced a run of 0 GPU-hours
        ("tokens: 2.0e9", "tokens: 1.0e-308", "members.1.tokens: magnitude outside 1e-09 to 1e+15"),
        ("mfu: 0.4", "mfu: 1.0e-300", "members.1.mfu: magnitude outside 1e-09 to 1e+15"),
    ],
)
def test_fleet_text_and_figures_follow_a_scenarios_rules(tmp_path, old, new, expected):
    path = _fine_tune_fleet(tmp_path, old, new)
    assert str(_load_error(path)).startswith(f"{path}: {expected}")


def test_a_fine_tunes_gpu_hours_follow_the_magnitude_rule(tmp_path):
    path = _fine_tune_fleet(tmp_path, "    tokens: 2.0e9\n    mfu: 0.4\n", "    gpu_hours: 1.0e-300\n")
    assert str(_load_error(path)) == (
        f"{path}: members.1.gpu_hours: magnitude outside 1e-09 to 1e+15: no real input is that large or small "
        "(got 1e-300)"
    )


@pytest.mark.parametrize(
    "kind, hint", [("fine_tun", " (did you mean fine_tune?)"), ("scenaro", " (did you mean scenario?)"), ("3", "")]
)
def test_an_unknown_member_kind_is_one_line_with_the_kinds(tmp_path, kind, hint):
    # F7 kind: 'fine_tun' read "must be one of scenario", then "not a field here" for each of the
    # fine-tune's ten fields
    path = _fine_tune_fleet(tmp_path, "kind: fine_tune", f"kind: {kind}")
    shown = repr(kind) if kind != "3" else "3"
    assert str(_load_error(path)) == f"{path}: members.1.kind: must be one of scenario, fine_tune{hint} (got {shown})"


def test_a_misspelt_model_gets_a_did_you_mean(tmp_path):
    # F7 kind: the catalog id one letter short was named without the id meant
    path = _fine_tune_fleet(tmp_path, "model: llama-3.3-70b", "model: llama-3.3-70")
    assert _error(path) == (
        f"{path}: members.monthly-finetune.model: not a model of data/models.csv (did you mean llama-3.3-70b?) "
        "(got 'llama-3.3-70')"
    )


@pytest.mark.parametrize("kind", ["fifo", "latin-1"])
def test_a_fleet_file_that_is_not_a_readable_text_file_is_refused_as_a_scenario_file_is(tmp_path, capsys, kind):
    # F6 kind: a FIFO given to `costmodel fleet` hung (read for ever), a Latin-1 byte printed the codec's
    # message without the file
    import os

    from costmodel.cli import main

    path = tmp_path / "fleet.yaml"
    if kind == "fifo":
        os.mkfifo(path)
        expected = "is not a regular file (a pipe, a device or a socket): give a file"
    else:
        path.write_bytes(b'kind: fleet\ntitle: "caf\xe9"\n')
        expected = "not UTF-8 text: byte 0xe9 at offset 23"
    assert main(["fleet", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"costmodel fleet: {path}: (file): {expected} (got ")


@pytest.mark.parametrize(
    "old, new, field",
    [
        # a scenario's GPU counts stop at 1,000,000 (options.rent.spot.max_gpus, an hourly file's GPUs); a
        # fine-tune on 1e9 GPUs was accepted and priced an own cluster of 940,951 USD/month
        ("gpus: 32", "gpus: 1000000000", "members.1.gpus"),
        ("spot_max_gpus: 16", "spot_max_gpus: 2000000", "members.1.spot_max_gpus"),
        ("idle_cost: proportional", "idle_cost: proportional\nspot_max_gpus: 2000000", "spot_max_gpus"),
    ],
)
def test_a_fleets_gpu_counts_stop_where_a_scenarios_do(tmp_path, old, new, field):
    path = _fine_tune_fleet(tmp_path, old, new)
    assert str(_load_error(path)).startswith(f"{path}: {field}: Input should be less than or equal to 1000000")


@pytest.mark.parametrize(
    "old, new, field",
    [
        # F1 kind: a team "p\nFake: 0 USD" printed a line of its own in the showback table
        ("team: product", 'team: "p\\nFake: 0 USD"', "members.0.team"),
        ("name: serving\n", 'name: "s\\rX"\n', "members.0.name"),
        ('title: "Serve', 'title: "T\\nFake line"\n# "Serve', "title"),
    ],
)
def test_a_fleets_names_teams_and_title_are_one_line(tmp_path, old, new, field):
    path = _fine_tune_fleet(tmp_path, old, new)
    assert str(_load_error(path)).startswith(f"{path}: {field}: one line of text: no line break")


def test_a_member_in_another_currency_is_refused(tmp_path):
    # each member's cost alone is in its own reporting currency: a member in EUR (llama70b-serving.yaml with
    # USD at 0.862 EUR) was summed with the first's USD, "alone 12,512.78" (EUR) and "Sharing saves -1,047.64
    # USD/month", where sharing never costs more
    text = (FLEETS / "llama70b-serving.yaml").read_text(encoding="utf-8")
    assert "reporting_currency: USD" in text and "    EUR: 1.16" in text
    text = text.replace("reporting_currency: USD", "reporting_currency: EUR")
    (tmp_path / "eur.yaml").write_text(text.replace("    EUR: 1.16           # USD per EUR", "    USD: 0.862"))
    path = tmp_path / "fleet.yaml"
    path.write_text(
        "kind: fleet\ntitle: Two currencies\nmembers:\n"
        f"  - {{name: a, team: t, scenario: {FLEETS / 'llama70b-serving.yaml'}}}\n"
        "  - {name: b, team: u, scenario: eur.yaml}\n",
        encoding="utf-8",
    )
    assert _error(path) == (
        f"{path}: members.1.scenario: {tmp_path / 'eur.yaml'}: reporting_currency: every member must report in "
        "the first member's currency, USD (convert its prices with fx.rates) (got 'EUR')"
    )


def test_the_showback_sets_each_teams_allocation_beside_what_it_costs_alone(capsys):
    # a newcomer read "Sharing saves 477.79 USD/month" while research was allocated 2,057.89 against 1,921.42 alone:
    # the split is by GPU-hours used. The changes add up to the saving, to the cent of rounding: -614.25 + 136.47
    # = -477.78 (the saving 16,437.40 - 15,959.62, printed from unrounded figures as 477.79)
    from costmodel.cli import main as cli

    assert cli(["fleet", "data/fleets/serve-and-finetune.yaml"]) == 0
    out = capsys.readouterr().out
    assert "  product                 4,019   87.1 %      13,901.73     1,205.39      14,515.98      -614.25" in out
    assert "  research                  595   12.9 %       2,057.89       178.43       1,921.42      +136.47" in out
    assert "research pays more on the fleet than alone" in out
    assert "Sharing saves 477.79 USD/month (alone 16,437.40, fleet 15,959.62)" in out
    assert -614.25 + 136.47 == pytest.approx(15_959.62 - 16_437.40, abs=1e-9)

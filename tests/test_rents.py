"""Issue 28: several rental offers in one scenario (options.rents, named rent:<name>).

Each labelled rental is priced on demand, billed as it says, and must come out exactly as the same
offer would as the scenario's main options.rent (monthly cost and its lines, GPUs, break-evens,
energy, the present value with a finance block, the hour-by-hour figure with a demand profile);
the verdict ranks them with the others on the one measure. Reserved and spot terms stay with
options.rent. Prices are data/cloud_prices.csv's on-demand rows (Nebius H100 3.85, Hyperstack H100
3.20, Lambda 8x H100 3.99, Hyperstack H200 3.99, CoreWeave H200 6.305 USD per GPU-hour).
"""

from __future__ import annotations

import copy
import json

import jsonschema
import numpy as np
import pytest
from conftest import patched, patched_data

import costmodel
from costmodel.domain import finance
from costmodel.domain.break_even import break_even
from costmodel.domain.capacity import capacity_volume, gpu_count, step_volumes
from costmodel.domain.compare import compare
from costmodel.domain.costs import monthly_cost, monthly_cost_components
from costmodel.domain.decision import decide
from costmodel.domain.energy import energy_result
from costmodel.presentation.output import comparison_output, output_json_schema
from costmodel.scenarios import validate_data

R1, R2, JOBS = "llama70b-vs-api", "h200-24gpu-cluster", "h200-job-log"
HOURS = 730.0
R1_STAFF = {"fte": 1, "loaded_cost_per_fte_per_year": 72000, "currency": "EUR", "source": "R1 brief"}

H100 = [
    {
        "offer": "nebius-h100",
        "billing": "always_on",
        "gpu_count": 2,
        "label": "Nebius H100",
        "name": "nebius",
        "staffing": R1_STAFF,
    },
    {
        "offer": "hyperstack-h100",
        "billing": "per_gpu_hour_used",
        "label": "Hyperstack H100",
        "name": "hyperstack",
        "staffing": R1_STAFF,
    },
    {"offer": "lambda-h100-8x", "billing": "always_on", "gpu_count": 8, "label": "Lambda 8x H100", "name": "lambda"},
]
H200 = [
    {"offer": "hyperstack-h200", "billing": "per_gpu_hour_used", "label": "Hyperstack H200", "name": "hyperstack"},
    {
        "offer": "coreweave-h200",
        "billing": "always_on",
        "gpu_count": 32,
        "label": "CoreWeave H200",
        "name": "coreweave",
    },
    {"offer": "nebius-h200", "billing": "always_on", "gpu_count": 16, "label": "Nebius H200 24/7", "name": "nebius"},
]


def with_rents(base: str, rents: list[dict], drop=("uncertainty", "claims")) -> costmodel.Scenario:
    return validate_data(patched_data(base, {"options.rents": copy.deepcopy(rents)}, drop=drop))


def as_main_rent(base: str, entry: dict, drop=("uncertainty", "claims")) -> costmodel.Scenario:
    """The base scenario with ``entry`` as its only rental: options.rent, on demand (no reserved or spot)."""
    data = patched_data(base, drop=drop)
    data["options"]["rent"] = {k: v for k, v in copy.deepcopy(entry).items() if k != "name"}
    return validate_data(data)


# --- option by option, the same as the offer run as the main rent ---------------------------------------


@pytest.mark.parametrize("index", range(len(H100)))
def test_a_labelled_rental_equals_the_same_offer_as_the_main_rent(index):
    entry = H100[index]
    name = f"rent:{entry['name']}"
    r = costmodel.resolve(with_rents(R1, H100))
    alone = costmodel.resolve(as_main_rent(R1, entry))
    assert list(r.options) == ["own", "rent", "rent:nebius", "rent:hyperstack", "rent:lambda", "api"]
    assert r.options[name].kind == "rent" and r.label(name) == entry["label"]
    volumes = np.array([0.0, 1e6, 10e6, 40e6, 120e6])
    assert monthly_cost(r, name, volumes) == pytest.approx(monthly_cost(alone, "rent", volumes), rel=1e-12)
    parts, same = monthly_cost_components(r, name, 10e6), monthly_cost_components(alone, "rent", 10e6)
    assert set(parts) == set(same)
    for line in parts:
        assert np.asarray(parts[line]) == pytest.approx(np.asarray(same[line]), rel=1e-12), line
    assert np.array_equal(gpu_count(r, name, volumes), gpu_count(alone, "rent", volumes))
    assert capacity_volume(r, name) == capacity_volume(alone, "rent")
    assert np.array_equal(step_volumes(r, name, 120e6), step_volumes(alone, "rent", 120e6))
    for other in ("own", "api"):
        a, b = break_even(r, name, other, 120e6), break_even(alone, "rent", other, 120e6)
        assert (a.kind, a.volume) == (b.kind, b.volume), other
    e, e_alone = energy_result(r).options[name], energy_result(alone).options["rent"]
    assert e.option == name and e.energy_kwh_per_month == pytest.approx(e_alone.energy_kwh_per_month, rel=1e-12)
    assert decide(r).figure(name) == pytest.approx(decide(alone).figure("rent"), rel=1e-12)
    # the main options are as they were without the labelled rentals
    plain = costmodel.resolve(patched(R1, drop=("uncertainty", "claims")))
    for option in ("own", "rent", "api"):
        assert decide(r).figure(option) == pytest.approx(decide(plain).figure(option), rel=1e-12), option


def test_the_monthly_costs_by_hand():
    # always_on: GPUs x 730 h x the offer's price, plus one engineer at 72,000 EUR a year (1.16 USD per EUR):
    # Nebius 2 x 730 x 3.85 + 6,960 = 12,581 USD; Lambda 8 x 730 x 3.99 = 23,301.60 (no staff)
    r = costmodel.resolve(with_rents(R1, H100))
    staff = 72000 * 1.16 / 12
    assert monthly_cost(r, "rent:nebius", r.volume) == pytest.approx(2 * HOURS * 3.85 + staff, rel=1e-12)
    assert monthly_cost(r, "rent:nebius", r.volume) == pytest.approx(12_581.0, rel=1e-12)
    assert monthly_cost(r, "rent:lambda", r.volume) == pytest.approx(23_301.60, rel=1e-12)
    # 8 GPUs serve more than 2 do before the count steps: at 4 replicas' worth the Nebius count has stepped to 8
    assert gpu_count(r, "rent:lambda", r.volume) == 8 and gpu_count(r, "rent:nebius", r.volume) == 2
    big = 4 * capacity_volume(r, "rent:nebius")
    assert gpu_count(r, "rent:nebius", big) == 8
    assert monthly_cost(r, "rent:nebius", big) == pytest.approx(8 * HOURS * 3.85 + staff, rel=1e-12)
    # per_gpu_hour_used: the GPU-hours the tokens use x 3.20, whatever the GPUs held
    hours = float(costmodel.gpu_hours_used(r, r.volume))
    assert monthly_cost(r, "rent:hyperstack", r.volume) == pytest.approx(hours * 3.20 + staff, rel=1e-12)
    assert monthly_cost(r, "rent:hyperstack", 3 * r.volume) - staff == pytest.approx(3 * hours * 3.20, rel=1e-12)


def test_the_verdict_picks_the_cheapest_rental_on_the_monthly_cost():
    r = costmodel.resolve(with_rents(R1, H100))
    d = compare(r).decision
    assert d.measure == "monthly_cost"
    figures = {c: x.figure for c, x in d.candidates.items()}
    assert set(figures) == set(r.options)
    for option in r.options:
        assert figures[option] == pytest.approx(monthly_cost(r, option, r.volume), rel=1e-12), option
    # Hyperstack by the GPU-hour used: 0.88 % of 2 GPUs' hours at 3.20 plus the engineer, 7,003 USD a month:
    # cheaper than every 24/7 rental (12,070 and more), owning (16,699) but not the API (3,549)
    assert d.winner == "api" and d.runner_up == "rent:hyperstack"
    cheap = with_rents(R1, [{**H100[1], "staffing": None}])
    d = decide(cheap)
    assert d.winner == "rent:hyperstack" and d.winning.figure == min(x.figure for x in d.candidates.values())
    assert d.winning.label == "Hyperstack H100: H100-SXM-80GB at Hyperstack, on demand by the GPU-hour"


def test_present_values_with_a_finance_block_equal_the_offer_as_the_main_rent():
    s = with_rents(R2, H200)
    r = costmodel.resolve(s)
    flows = finance.cash_flows(r)
    d = compare(r).decision
    assert d.measure == "present_value"
    npv, tco = finance.present_values(r, flows)
    for entry in H200:
        name = f"rent:{entry['name']}"
        alone = costmodel.resolve(as_main_rent(R2, entry))
        npv_alone, tco_alone = finance.present_values(alone)
        assert npv[name] == pytest.approx(npv_alone["rent"], rel=1e-12), name
        assert tco[name] == pytest.approx(tco_alone["rent"], rel=1e-12), name
        assert d.figure(name) == pytest.approx(decide(alone).figure("rent"), rel=1e-12), name
        lines, same = flows.flows[name], finance.cash_flows(alone).flows["rent"]
        assert set(lines) == set(same)
        for line in lines:
            assert np.allclose(lines[line], same[line], rtol=1e-12, atol=0), (name, line)
    # CoreWeave 32 GPUs 24/7 (R2's 12,000 GPU-hours a month need 31) at 6.305 for 60 months, no staff, no
    # price trend: 32 x 730 x 6.305 x 60 = 8,837,136 USD undiscounted; Nebius's 16 step up to the 31 needed
    assert tco["rent:coreweave"] == pytest.approx(32 * HOURS * 6.305 * 60, rel=1e-12)
    assert gpu_count(r, "rent:coreweave", r.volume) == 32 and gpu_count(r, "rent:nebius", r.volume) == 31
    assert tco["rent:nebius"] == pytest.approx(31 * HOURS * 4.50 * 60, rel=1e-12)
    # the main rent keeps its reserved and spot terms; owning is as without the labelled rentals
    plain = decide(patched(R2, drop=("uncertainty", "claims")))
    assert d.winner == plain.winner == "rent.reserved"
    for candidate in plain.candidates:
        assert d.figure(candidate) == pytest.approx(plain.figure(candidate), rel=1e-12), candidate
    assert d.winning.figure == min(x.figure for x in d.candidates.values())


def test_a_labelled_rental_wins_the_present_value_when_it_is_cheapest():
    # Hyperstack H200 by the GPU-hour at 3.99 against Nebius's 4.50 with its reserved and spot terms removed
    data = patched_data(R2, {"options.rents": copy.deepcopy(H200[:1])}, drop=("uncertainty", "claims"))
    for key in ("reserved", "spot"):
        data["options"]["rent"].pop(key)
    d = decide(validate_data(data))
    assert d.winner == "rent:hyperstack"
    assert d.figure("rent:hyperstack") == pytest.approx(d.figure("rent") * 3.99 / 4.50, rel=1e-12)


def test_a_demand_profile_prices_each_labelled_rental_on_demand_hour_by_hour():
    s = with_rents(JOBS, H200)
    c = compare(s)
    d = c.decision
    assert d.measure == "monthly_cost_hour_by_hour"
    for entry in H200:
        name = f"rent:{entry['name']}"
        alone = decide(as_main_rent(JOBS, entry))
        assert d.figure(name) == pytest.approx(alone.figure("rent"), rel=1e-12), name
        assert c.mix.mix.pure[name] == pytest.approx(d.figure(name), rel=1e-12)
    # the mix searches each rental's offer in turn: it costs no more than any of them alone
    assert c.mix.mix.total <= min(c.mix.mix.pure.values()) * (1 + 1e-12)
    assert d.winning.figure == min(x.figure for x in d.candidates.values())
    # Hyperstack by the GPU-hour: the job log's busy hours x 3.99
    hours = float(costmodel.gpu_hours_used(costmodel.resolve(s), s.volume))
    assert d.figure("rent:hyperstack") == pytest.approx(hours * 3.99, rel=1e-9)


def test_the_mix_uses_a_labelled_rental_where_it_is_cheaper():
    # without the main rent's spot and reserved terms, Hyperstack by the GPU-hour (3.99) beats Nebius (4.50):
    # the cheapest mix is Hyperstack on demand, named by its label
    data = patched_data(JOBS, {"options.rents": copy.deepcopy(H200[:1])}, drop=("uncertainty", "claims"))
    for key in ("reserved", "spot"):
        data["options"]["rent"].pop(key)
    c = compare(validate_data(data))
    layers = c.mix.mix.layers
    assert "on_demand" in layers and "Hyperstack H200" in layers["on_demand"].offer
    assert c.mix.mix.total <= min(c.mix.mix.pure.values()) * (1 + 1e-12)


# --- what is refused --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, block, value",
    [
        ("reserved", {"term_years": 1, "discount": 0.37, "source": "test"}, "'discount': 0.37"),
        (
            "spot",
            {
                "discount": 0.4,
                "interruptions_per_gpu_hour": 0.02,
                "work_lost_hours_per_interruption": 0.5,
                "source": "test",
            },
            "'discount': 0.4",
        ),
    ],
)
def test_reserved_or_spot_terms_on_a_labelled_rental_are_refused(field, block, value):
    with pytest.raises(costmodel.ScenarioError) as info:
        with_rents(R2, [H200[0], {**H200[1], field: block}])
    message = str(info.value)
    assert f"options.rents.1.{field}: {field} terms are taken by the main options.rent only" in message
    assert f"move the {field} block to options.rent" in message and value in message


def test_duplicate_names_are_refused():
    with pytest.raises(costmodel.ScenarioError) as info:
        with_rents(R1, [H100[0], {**H100[2], "name": "nebius"}])
    assert "options.rents.1.name" in str(info.value) and "two rental offers are called nebius" in str(info.value)


def test_a_rental_of_another_gpu_is_refused():
    with pytest.raises(costmodel.ScenarioError) as info:
        with_rents(R1, [H100[0], {**H100[2], "offer": "nebius-h200"}])
    message = str(info.value)
    assert "options.rents.1.offer" in message and "H200-SXM-141GB" in message and "H100-SXM-80GB" in message


def test_not_whole_replicas_and_missing_rates_are_refused():
    # R1 serves Llama 3.3 70B on replicas of 2 GPUs: 3 GPUs rented 24/7 are not whole replicas
    with pytest.raises(costmodel.ScenarioError) as info:
        costmodel.resolve(with_rents(R1, [{**H100[0], "gpu_count": 3}]))
    assert "options.rents.0.gpu_count" in str(info.value) and "multiple of 2" in str(info.value)
    # staffing in GBP, which R1 has no rate for
    with pytest.raises(costmodel.ScenarioError) as info:
        with_rents(R1, [{**H100[0], "staffing": {**R1_STAFF, "currency": "GBP"}}])
    assert "options.rents.0.staffing.currency" in str(info.value) and "no FX rate from GBP" in str(info.value)
    with pytest.raises(costmodel.ScenarioError) as info:
        with_rents(R1, [{**H100[0], "label": ""}])
    assert "options.rents.0.label" in str(info.value)


def test_labelled_rentals_count_as_options():
    data = patched_data(R1, drop=("uncertainty", "claims"))
    data["options"] = {"rents": copy.deepcopy(H100[:2])}
    s = validate_data(data)
    assert s.present_options() == ["rent:nebius", "rent:hyperstack"]
    assert decide(s).winner == "rent:hyperstack"
    data["options"] = {"rents": copy.deepcopy(H100[:1])}
    with pytest.raises(costmodel.ScenarioError, match="give at least two"):
        validate_data(data)


# --- the views ----------------------------------------------------------------------------------------------


def test_text_json_and_claims_name_the_labelled_rentals():
    claims = [
        {
            "statement": "Nebius with the engineer: about 12,600 USD a month",
            "kind": "monthly_cost",
            "option": "rent:nebius",
            "value": 12600,
            "currency": "USD",
            "tolerance": 0.01,
            "source": "test",
        },
        {
            "statement": "Nebius 24/7 and the API cost the same near 35 M tokens/day",
            "kind": "break_even",
            "options": ["rent:nebius", "api"],
            "volume": 3.5e7,
            "tolerance": 0.05,
            "source": "test",
        },
    ]
    s = patched(R1, {"options.rents": copy.deepcopy(H100), "claims": claims}, drop=("uncertainty",))
    r = costmodel.resolve(s)
    c = compare(r)
    assert [x.confirmed for x in c.claims] == [True, True]
    # the API costs 3,548.61 USD a month per 10 M tokens/day; Nebius 12,581 flat until its 2 GPUs run out:
    # equal at 12,581 / 3,548.61 x 10 M = 35.45 M tokens/day
    (pair,) = [b for b in c.break_evens if {b.option_a, b.option_b} == {"rent:nebius", "api"}]
    per_volume = monthly_cost(r, "api", 1e7) / 1e7
    assert pair.kind == "crossing" and pair.volume == pytest.approx(12_581.0 / per_volume, rel=1e-9)
    doc = comparison_output(c, r, uncertainty=False).model_dump(mode="json")
    jsonschema.validate(doc, output_json_schema())
    json.dumps(doc, allow_nan=False)
    assert doc["options"]["rent:nebius"]["kind"] == "rent"
    assert doc["options"]["rent:nebius"]["monthly_cost"]["value"] == pytest.approx(12_581.0, rel=1e-9)
    assert doc["options"]["rent:nebius"]["gpus"]["value"] == 2
    words = costmodel.comparison_text(c)
    assert "Nebius H100: 2 × H100-SXM-80GB at Nebius, on demand, 24/7" in words
    assert "Nebius H100 vs Hosted API" in words
    with pytest.raises(costmodel.ScenarioError, match="no rent:coreweave option"):
        validate_data(
            patched_data(
                R1,
                {"options.rents": copy.deepcopy(H100), "claims": [{**claims[0], "option": "rent:coreweave"}]},
                drop=("uncertainty",),
            )
        )


@pytest.mark.slow
def test_the_workbook_shows_the_labelled_rentals_as_values(tmp_path):
    from test_workbook import summary_figures

    from costmodel.presentation.workbook import write_workbook

    s = with_rents(R2, H200[:2])
    c = compare(s)
    path = write_workbook(s, tmp_path / "w.xlsx", c)
    figures, cells = summary_figures(path)
    for name, label in (("rent:hyperstack", "Hyperstack H200"), ("rent:coreweave", "CoreWeave H200")):
        assert figures[f"present value of costs, {label}"] == pytest.approx(c.decision.figure(name), rel=1e-9)
    assert any("options.rents" in str(v) for v in cells.values())


@pytest.mark.parametrize("base, rents", [(R1, H100), (R2, H200), (JOBS, H200), ("llama70b-hybrid", H100)])
def test_the_one_answer_invariants_hold_with_labelled_rentals(base, rents):
    from test_one_answer import check_invariants

    check_invariants(with_rents(base, rents))


def test_spot_without_reserved_terms_is_the_rent_options_other_way_to_pay_on_the_present_value(tmp_path, capsys):
    # R2 without its reserved block exited 2: "finance.rent_commitment needs the rent option's reserved block",
    # though it states no commitment; the search priced "no commitment, no spot" through the reserved terms.
    # Spot with the rest on demand is now the rent option's one other way to pay: cheaper than all on demand
    # (2,698,073.29 USD) and dearer than R2's reserved 7 GPUs with spot (2,150,633.86 USD), which it is one of.
    from conftest import write_scenario

    from costmodel.cli import main

    data = patched_data("h200-24gpu-cluster")
    del data["options"]["rent"]["reserved"]
    path = write_scenario(tmp_path, data)
    assert main(["compare", str(path), "--json"]) == 0
    decision = json.loads(capsys.readouterr().out)["decision"]
    figures = {c["id"]: c["figure"]["value"] for c in decision["candidates"]}
    assert decision["winner"] == "rent.spot"
    assert 2_150_633.86 < figures["rent.spot"] < figures["rent"] == pytest.approx(2_698_073.29, abs=0.01)

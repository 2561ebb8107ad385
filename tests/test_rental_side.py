"""Issue 34, rental-side costs: data stored, data sent out, CPU nodes and a support plan (``data_and_support``).

Rent options pay their cloud's rates (data/cloud_extras.csv by the offer's provider, or the
scenario's), the own option buys the storage and CPU nodes and pays transit, the API carries
none. Expected values are computed by hand from the AWS row of data/cloud_extras.csv, whose
sources are AWS's price pages: S3 Standard 0.023 USD/GB-month (aws.amazon.com/s3/pricing),
internet egress 0.09 USD/GB up to 10 TB a month, an m7g.large CPU node 0.0816 USD/h, Business
support the greater of 100 USD or 10 % of the bill (aws.amazon.com/premiumsupport/pricing); and
from the AWS p5en.48xlarge row of data/cloud_prices.csv, 63.30 USD per instance-hour / 8 GPUs =
7.9125 USD/GPU-h.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import patched_data, write_scenario
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel import formulas
from costmodel.cli import main
from costmodel.domain import finance
from costmodel.domain.compare import compare
from costmodel.domain.costs import data_and_support_lines, monthly_cost, monthly_cost_components
from costmodel.domain.mix import cheapest_mix, mix_result
from costmodel.errors import ScenarioError
from costmodel.presentation.output import comparison_output
from costmodel.presentation.text import comparison_text
from costmodel.results import DATA_AND_SUPPORT, Component
from costmodel.scenarios import validate_data

R1, R2 = "llama70b-vs-api", "h200-24gpu-cluster"
HOURS = 730.0

# the AWS row of data/cloud_extras.csv, as its sources give it
S3_PER_GB_MONTH, EGRESS_PER_GB, M7G_PER_HOUR, SUPPORT_SHARE, SUPPORT_MINIMUM = 0.023, 0.09, 0.0816, 0.10, 100.0
P5EN_PER_GPU_HOUR = 63.30 / 8  # aws-p5en-h200, data/cloud_prices.csv

CASE = {  # 50 TB stored, 10 TB a month sent out, 2 CPU nodes, the catalog's support plan
    "stored_tb": 50.0,
    "egress_tb_per_month": 10.0,
    "cpu_nodes": 2,
    "support_share": "catalog",
    "own_storage_price_per_tb": 40.0,  # a test figure: USD per TB of storage bought
    "own_cpu_node_price": 5000.0,  # a test figure: USD per CPU node bought
    "own_transit_price_per_gb": 0.01,  # a test figure: colocation transit per GB
    "currency": "USD",
    "source": "test quantities; own-side prices are test figures",
}


def on_aws(name: str, block: dict | None = CASE, **changes) -> dict:
    """A bundled scenario renting at AWS (p5en H200 or p5 H100), with ``data_and_support`` as given."""
    data = patched_data(name, changes)
    gpu = data["workload"]["gpu"]
    data["options"]["rent"]["offer"] = "aws-p5en-h200" if gpu.startswith("H200") else "aws-p5-h100"
    if block is not None:
        data["data_and_support"] = copy.deepcopy(block)
    return data


class TestCloudFormulas:
    """formulas.cloud: closed forms (1 TB = 1,000 GB, a month of 730 h)."""

    def test_storage_egress_and_nodes(self):
        assert formulas.storage_cost(50.0, 0.023) == pytest.approx(50 * 1000 * 0.023)
        assert formulas.egress_cost(10.0, 0.09) == pytest.approx(10 * 1000 * 0.09)
        assert formulas.always_on_cost(2, 0.0816) == pytest.approx(2 * 730 * 0.0816)
        assert formulas.storage_cost(0.0, 0.023) == 0.0

    def test_support_is_the_greater_of_the_share_and_the_minimum(self):
        # AWS Business support: 10 % of 5,000 is 500; of 500 it is 50, below the 100 minimum
        assert formulas.support_plan_cost(5000.0, 0.10, 100.0) == pytest.approx(500.0)
        assert formulas.support_plan_cost(500.0, 0.10, 100.0) == pytest.approx(100.0)
        assert formulas.support_plan_cost(np.array([500.0, 5000.0]), 0.10, 100.0) == pytest.approx([100.0, 500.0])

    @settings(max_examples=200, deadline=None)
    @given(
        bill=st.floats(0, 1e8),
        share=st.floats(0, 1),
        minimum=st.floats(0, 1e5),
    )
    def test_support_bounds(self, bill, share, minimum):
        cost = formulas.support_plan_cost(bill, share, minimum)
        assert cost >= minimum and cost >= share * bill - 1e-9
        assert cost == pytest.approx(max(share * bill, minimum))


@pytest.fixture(scope="module")
def scenario():
    """R2 renting at AWS with the case's quantities."""
    return validate_data(on_aws(R2))


class TestHandComputedCase:
    """R2 (h200-24gpu-cluster) renting AWS p5en H200 with 50 TB, 10 TB/month, 2 CPU nodes, Business support."""

    def test_each_rent_line_and_the_total(self, scenario):
        volume = 12_000.0  # R2's GPU-hours a month, billed per GPU-hour used
        parts = monthly_cost_components(scenario, "rent", volume)
        rental = 12_000 * P5EN_PER_GPU_HOUR  # 94,950
        storage = 50 * 1000 * S3_PER_GB_MONTH  # 1,150
        egress = 10 * 1000 * EGRESS_PER_GB  # 900
        nodes = 2 * HOURS * M7G_PER_HOUR  # 119.136
        support = max(SUPPORT_SHARE * (rental + storage + egress + nodes), SUPPORT_MINIMUM)  # 9,711.9136
        assert float(parts[Component.GPU_RENTAL]) == pytest.approx(94_950.0)
        assert float(parts[Component.STORAGE]) == pytest.approx(1_150.0)
        assert float(parts[Component.EGRESS]) == pytest.approx(900.0)
        assert float(parts[Component.CPU_NODES]) == pytest.approx(119.136)
        assert float(parts[Component.SUPPORT_PLAN]) == pytest.approx(9_711.9136)
        assert support == pytest.approx(9_711.9136)
        assert monthly_cost(scenario, "rent", volume) == pytest.approx(rental + storage + egress + nodes + support)
        assert monthly_cost(scenario, "rent", volume) == pytest.approx(106_831.0496)

    def test_the_own_option_buys_cpu_nodes_and_pays_transit_but_keeps_its_storage_line(self, scenario):
        # R2's bill of materials already holds storage (0.5 PB, 125,000 USD): no storage is bought for the 50 TB
        volume = 12_000.0
        without = validate_data(on_aws(R2, None))
        delta = monthly_cost(scenario, "own", volume) - monthly_cost(without, "own", volume)
        nodes = 2 * 5000.0 / 60  # 10,000 USD over R2's 60-month depreciation
        support = 2 * 5000.0 * 0.10 / 12  # R2's hardware support, 10 % of capex a year
        transit = 10 * 1000 * 0.01
        assert delta == pytest.approx(nodes + support + transit)
        lines = data_and_support_lines(scenario, "own", volume)
        assert float(lines[Component.STORAGE]) == pytest.approx(125_000 / 60)  # its own storage line
        assert float(lines[Component.CPU_NODES]) == pytest.approx(nodes)
        assert float(lines[Component.EGRESS]) == pytest.approx(transit)
        assert float(lines[Component.SUPPORT_PLAN]) == pytest.approx((125_000 + 10_000) * 0.10 / 12)

    def test_a_scenario_price_overrides_the_catalog(self):
        block = {**CASE, "storage_price_per_gb_month": 0.05, "support_share": 0.05, "support_minimum_per_month": 0.0}
        parts = monthly_cost_components(validate_data(on_aws(R2, block)), "rent", 12_000.0)
        assert float(parts[Component.STORAGE]) == pytest.approx(50 * 1000 * 0.05)
        rest = 94_950.0 + 2_500.0 + 900.0 + 119.136
        assert float(parts[Component.SUPPORT_PLAN]) == pytest.approx(0.05 * rest)

    def test_sampled_quantities_broadcast(self, scenario):
        # an uncertainty block may sample the quantities: the lines follow each sample
        tb = np.array([10.0, 50.0, 200.0])
        r = costmodel.resolve(scenario, values={"data_and_support.stored_tb": tb})
        parts = monthly_cost_components(r, "rent", 12_000.0)
        assert np.asarray(parts[Component.STORAGE]) == pytest.approx(tb * 1000 * S3_PER_GB_MONTH)
        bill = 94_950.0 + tb * 1000 * S3_PER_GB_MONTH + 900.0 + 119.136
        assert np.asarray(parts[Component.SUPPORT_PLAN]) == pytest.approx(0.10 * bill)

    def test_the_rates_row_is_cited(self, scenario):
        assert costmodel.resolve(scenario).cited[-1].citation().startswith("data/cloud_extras.csv: AWS")

    def test_the_lines_are_in_the_text_and_the_json(self, scenario):
        c = compare(scenario, check=False)
        text = comparison_text(c)
        assert "data and support lines" in text and "support plan 9,711.91" in text
        doc = comparison_output(c, scenario, uncertainty=False, figure_claims=False).model_dump(mode="json")
        rent = doc["options"]["rent"]["components"]
        assert rent["storage"]["value"] == pytest.approx(1_150.0)
        assert rent["support_plan"]["value"] == pytest.approx(9_711.9136)
        assert doc["options"]["own"]["components"]["egress"]["value"] == pytest.approx(100.0)


def test_the_bundled_scenario_by_hand():
    # h200-data-and-support: 200 TB in S3 Standard, 5 TB a month out, 2 CPU nodes, AWS Business support; the own
    # cluster keeps its 125,000 USD storage line and buys 2 CPU nodes at 10,000 USD (60 months, 10 % support a
    # year), transit at 0.002 USD/GB
    s = costmodel.load_scenario("h200-data-and-support")
    rent = data_and_support_lines(s, "rent", 12_000.0)
    bill = (
        12_000 * P5EN_PER_GPU_HOUR + 200 * 1000 * S3_PER_GB_MONTH + 5 * 1000 * EGRESS_PER_GB + 2 * HOURS * M7G_PER_HOUR
    )
    expected = [4_600.0, 450.0, 119.136, 0.10 * bill]
    assert [float(v) for v in rent.values()] == pytest.approx(expected)
    assert 0.10 * bill == pytest.approx(10_011.9136)
    own = data_and_support_lines(s, "own", 12_000.0)
    expected = [125_000 / 60, 5_000 * 0.002, 20_000 / 60, (125_000 + 20_000) * 0.10 / 12]
    assert [float(v) for v in own.values()] == pytest.approx(expected)


class TestSameKindsOfLine:
    """The invariant joining the options: for the same stated quantities every GPU option carries the same kinds
    of line, the API none, and each option's cost moves by exactly its lines, so the ranking moves only by them."""

    @pytest.mark.parametrize("name", [R1, R2])
    def test_every_option_carries_the_same_kinds_and_moves_by_them(self, name):
        block = {**CASE}
        with_ = validate_data(on_aws(name, block))
        without = validate_data(on_aws(name, None))
        volume = with_.workload.gpu_hours_per_month if name == R2 else with_.workload.tokens_per_day
        with_r = costmodel.resolve(with_)
        kinds = {}
        for option in with_r.options:
            lines = data_and_support_lines(with_, option, volume)
            kinds[option] = set(lines)
            before = monthly_cost(without, option, volume)
            after = monthly_cost(with_, option, volume)
            if option == "api":
                assert lines == {} and after == pytest.approx(before)
                continue
            assert set(lines) == set(DATA_AND_SUPPORT)
            # the cost moves by the lines the block added: all of them but a storage line the own option had
            had = float(lines[Component.STORAGE]) * (1 + 0.10 * 60 / 12) if option == "own" and name == R2 else 0.0
            assert after - before == pytest.approx(sum(float(v) for v in lines.values()) - had, rel=1e-12)
        assert kinds["own"] == kinds["rent"]

    def test_each_rental_offer_pays_its_own_clouds_rates(self):
        # options.rents: a CoreWeave H200 beside AWS; CoreWeave's row (docs.coreweave.com storage pricing):
        # AI Object Storage hot 0.06 USD per GiB-month = 0.05588 per GB, egress free
        block = {"stored_tb": 50.0, "egress_tb_per_month": 10.0, "own_transit_price_per_gb": 0.0, "currency": "USD"}
        data = on_aws(R2, block)
        data["options"]["rents"] = [
            {"name": "cw", "label": "CoreWeave", "offer": "coreweave-h200", "billing": "per_gpu_hour_used"}
        ]
        s = validate_data(data)
        aws = data_and_support_lines(s, "rent", 12_000.0)
        cw = data_and_support_lines(s, "rent:cw", 12_000.0)
        assert set(aws) == set(cw) == {Component.STORAGE, Component.EGRESS}
        assert float(aws[Component.STORAGE]) == pytest.approx(50 * 1000 * S3_PER_GB_MONTH)
        assert float(cw[Component.STORAGE]) == pytest.approx(50 * 1000 * 0.05588)
        assert float(cw[Component.EGRESS]) == 0.0 and float(aws[Component.EGRESS]) == pytest.approx(900.0)
        flows = finance.cash_flows(s).flows["rent:cw"]  # its cash lines carry them too
        assert np.asarray(flows[Component.STORAGE]) == pytest.approx(50 * 1000 * 0.05588)

    def test_a_quantity_left_out_is_a_line_left_out_everywhere(self):
        block = {k: v for k, v in CASE.items() if k not in ("cpu_nodes", "own_cpu_node_price")}
        s = validate_data(on_aws(R1, block))
        for option in ("own", "rent"):
            assert Component.CPU_NODES not in data_and_support_lines(s, option, 10e6)
            assert Component.STORAGE in data_and_support_lines(s, option, 10e6)

    def test_the_ranking_moves_only_through_the_lines(self):
        # R1 at its volume: the monthly view's order with the block is that of each option's cost without
        # it plus its lines
        with_, without = validate_data(on_aws(R1)), validate_data(on_aws(R1, None))
        c_with, c_without = compare(with_, check=False), compare(without, check=False)
        rebuilt = {
            name: c_without.options[name].monthly_cost + sum(c_with.options[name].data_and_support.values())
            for name in c_with.options
        }
        for name, result in c_with.options.items():
            assert result.monthly_cost == pytest.approx(rebuilt[name], rel=1e-12)
        assert sorted(rebuilt, key=rebuilt.get) == sorted(c_with.options, key=lambda n: c_with.options[n].monthly_cost)

    def test_no_block_no_line(self):
        c = compare(validate_data(on_aws(R2, None)), check=False)
        assert all(not r.data_and_support for r in c.options.values())
        assert not any(k in r.components for r in c.options.values() for k in DATA_AND_SUPPORT)
        assert "data and support lines" not in comparison_text(c)


@pytest.fixture(scope="module")
def pair():
    """R2 renting at AWS with and without the case's quantities."""
    return validate_data(on_aws(R2)), validate_data(on_aws(R2, None))


class TestMix:
    """The cheapest mix for R2's campaigns profile: the data lives on owned servers when there are some, else the
    rented kinds carry the rent option's lines; the support plan is a share of the rented kinds' bill."""

    def test_the_layers_still_add_up_and_the_pure_figures_are_the_options(self, pair):
        with_, _ = pair
        mix = mix_result(with_).mix
        assert mix.total == pytest.approx(sum(layer.cost for layer in mix.layers.values()) + mix.staffing)
        assert mix.pure["on_demand"] == pytest.approx(106_831.0496)  # the rent option's own monthly cost above

    def test_rented_only_the_rent_option_carries_the_lines(self, pair):
        with_, without = pair
        before = cheapest_mix(without, own_servers=0)
        after = cheapest_mix(with_, own_servers=0)
        assert before.layers.keys() == after.layers.keys()  # the same capacity: the lines do not depend on it
        data = 1_150.0 + 900.0 + 119.136
        expected = before.total + data + max(0.10 * (before.total - before.staffing + data), 100.0)
        assert after.total == pytest.approx(expected, rel=1e-12)

    def test_with_owned_servers_the_rented_layers_pay_only_the_support(self, pair):
        with_, without = pair
        before = cheapest_mix(without, own_servers=3)
        after = cheapest_mix(with_, own_servers=3)
        for kind, layer in after.layers.items():
            if kind == "own":  # 2 CPU nodes bought (10,000 USD over 60 months, 10 % support a year), transit
                assert layer.cost - before.layers[kind].cost == pytest.approx(10_000 / 60 + 1_000 / 12 + 100.0)
            else:
                assert layer.cost == pytest.approx(1.10 * before.layers[kind].cost)

    def test_a_spot_limit_by_the_hour_bounds_the_support_plans_bill_as_it_bounds_spot(self):
        # R2 renting at AWS with the support plan only (no data lines), no own option and no reservation: spot
        # and on demand. Spot 40 % off, raised by the work redone: 7.9125 x 0.6 / (1 - 0.02 x 0.5) = 4.7955
        # USD/GPU-h. Two hours of 10 and 4 GPUs busy; spot limited to 2 and then 4 GPUs busy (a fleet's members'
        # own caps, the limit passed as a fleet passes it), while the rent option's own cap, 8 GPUs, would let
        # 7.2 busy at the 0.9 ceiling. Spot serves 2 and 4, on demand 8 and 0: a bill of
        # 730 x (4.7955 x 3 + 7.9125 x 4) a month, and the plan 10 % of it (above the 100 USD minimum).
        data = on_aws(R2, {"support_share": "catalog", "source": "test"}, **{"options.rent.reserved": None})
        r = costmodel.resolve(validate_data(data))
        r = dataclasses.replace(r, options={k: v for k, v in r.options.items() if k != "own"})
        spot = P5EN_PER_GPU_HOUR * 0.6 / (1 - 0.02 * 0.5)
        mix = cheapest_mix(r, np.array([10.0, 4.0]), spot_limit=np.array([2.0, 4.0]))
        assert set(mix.layers) == {"spot", "on_demand"}
        bill = HOURS * (spot * (2 + 4) / 2 + P5EN_PER_GPU_HOUR * (8 + 0) / 2)
        assert mix.layers["spot"].busy_gpu_hours == pytest.approx(HOURS * 3)
        assert mix.total == pytest.approx(bill + max(SUPPORT_SHARE * bill, SUPPORT_MINIMUM), rel=1e-12)
        assert mix.total == pytest.approx(sum(layer.cost for layer in mix.layers.values()), rel=1e-12)


class TestCashView:
    """The cash view: the support plan follows the bill as paid (reserved, up front, price trend)."""

    def test_support_on_the_committed_bill(self):
        data = on_aws(R2, CASE, **{"finance.rent_commitment": {"gpus": 16, "payment": "all_upfront"}})
        s = validate_data(data)
        flows = finance.cash_flows(s)
        rent = flows.flows["rent"]
        cloud = sum(
            np.asarray(v, dtype=float)
            for k, v in rent.items()
            if k not in (Component.STAFFING, Component.MANAGED_SERVICE, Component.SUPPORT_PLAN)
        )
        assert np.asarray(rent[Component.SUPPORT_PLAN]) == pytest.approx(np.maximum(0.10 * cloud, 100.0))
        assert np.asarray(rent[Component.STORAGE]) == pytest.approx(np.full(len(flows.months), 1_150.0))

    @pytest.mark.parametrize(
        "changes",
        [
            {},
            {"finance.rent_commitment": {"gpus": 16, "payment": "partial_upfront", "upfront_share": 0.4}},
        ],
        ids=["on-demand-and-stand-in", "commitment"],
    )
    @pytest.mark.slow
    def test_the_workbook_totals_are_the_domains(self, tmp_path, changes):
        pytest.importorskip("formulas")
        from test_workbook import summary_figures

        from costmodel.presentation.workbook import write_workbook

        s = validate_data(on_aws(R2, CASE, **changes))
        result = finance.own_finance(s)
        figures, _ = summary_figures(write_workbook(s, tmp_path / "x.xlsx"))
        for option, label in (("own", "Own cluster"), ("rent", "Cloud rental")):
            assert figures[f"TCO, {label}"] == pytest.approx(result.tco_by_option[option], rel=1e-9)


class TestBadInput:
    """Each refusal names the field, the value and the rule."""

    def test_a_provider_without_the_rate(self):
        # Nebius's row has no CPU-node price: the scenario must give one
        block = {"cpu_nodes": 1, "own_cpu_node_price": 5000.0, "currency": "USD"}
        data = patched_data(R2, {"data_and_support": block})
        with pytest.raises(ScenarioError) as caught:
            validate_data(data)
        text = str(caught.value)
        assert "data_and_support.cpu_node_price_per_hour" in text and "Nebius" in text
        assert "cpu_node_per_hour" in text and "data/cloud_extras.csv" in text
        assert "data_and_support.cpu_nodes" in text and "(got 1)" in text  # the quantity that needs the price

    def test_a_provider_without_a_row(self, tmp_path, capsys):
        data = on_aws(R2, {"stored_tb": 1.0})
        data["options"]["rent"]["offer"] = "hyperstack-h200"
        path = write_scenario(tmp_path, data)
        assert main(["validate", str(path)]) != 0
        err = capsys.readouterr().err
        assert "bad.yaml" in err and "data_and_support.storage_price_per_gb_month" in err and "has no row" in err

    def test_a_catalog_folder_adds_a_providers_rates(self, tmp_path, capsys):
        # --catalog DIR with a cloud_extras.csv row prices Hyperstack, which the bundled file lacks
        folder = tmp_path / "catalog"
        folder.mkdir()
        header = (Path(__file__).resolve().parent.parent / "data" / "cloud_extras.csv").read_text().splitlines()[0]
        (folder / "cloud_extras.csv").write_text(f"{header}\nHyperstack,0.02,,0.01,,,,USD,U,2026-12,test row,\n")
        data = on_aws(
            R2, {"stored_tb": 1.0, "egress_tb_per_month": 1.0, "own_transit_price_per_gb": 0.0, "currency": "USD"}
        )
        data["options"]["rent"]["offer"] = "hyperstack-h200"
        path = write_scenario(tmp_path, data, "hyperstack.yaml")
        assert main(["compare", str(path), "--catalog", str(folder), "--json", "--no-uncertainty"]) == 0
        components = json.loads(capsys.readouterr().out)["options"]["rent"]["components"]
        assert components["storage"]["value"] == pytest.approx(1 * 1000 * 0.02)
        assert components["egress"]["value"] == pytest.approx(1 * 1000 * 0.01)

    def test_the_own_option_needs_its_prices(self):
        with pytest.raises(ScenarioError, match="data_and_support.own_cpu_node_price"):
            validate_data(on_aws(R2, {"cpu_nodes": 1, "cpu_node_price_per_hour": 0.1, "currency": "USD"}))
        with pytest.raises(ScenarioError, match="data_and_support.own_storage_price_per_tb"):
            validate_data(on_aws(R1, {"stored_tb": 1.0}))

    def test_a_price_needs_its_currency(self):
        with pytest.raises(ScenarioError, match="currency"):
            validate_data(on_aws(R2, {"stored_tb": 1.0, "storage_price_per_gb_month": 0.02}))

    def test_a_currency_needs_its_rate(self):
        with pytest.raises(ScenarioError, match="GBP"):
            validate_data(on_aws(R2, {**CASE, "currency": "GBP"}))

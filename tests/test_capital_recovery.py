"""Capex by asset class at a cost of capital (capital-recovery factor) and the provider's EBIT/NOI view (issue 30).

Expected values are computed here from the closed forms: CRF = i(1 + i)^n / ((1 + i)^n - 1)
(Barroso, Hölzle and Ranganathan 2018, ch. 6; 1/n at i = 0, i for land), monthly = yearly / 12.
"""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import patched, patched_data
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import costmodel
from costmodel.cli import main
from costmodel.domain.costs import own_facility_capex, own_income, own_monthly_costs
from costmodel.formulas import capital_recovery_factor, ebit, net_operating_income, provider_revenue
from costmodel.resolved import resolve

BASE = "h100-10k-cluster"  # 1,250 HGX H100 servers, 2 % spares, an own data hall over 240 months
LAND = {"item": "land", "price_total": 2_000_000, "currency": "USD", "asset_class": "land", "source": "ASSUMPTION"}
PROVIDER = {"price_per_gpu_hour_sold": 2.2, "utilisation_sold": 0.7, "currency": "USD", "source": "ASSUMPTION"}


def _crf(i, n):
    return i * (1 + i) ** n / ((1 + i) ** n - 1)


class TestCapitalRecoveryFactor:
    def test_by_hand(self):
        # i = 8 %, n = 5: 0.08 x 1.469328 / 0.469328 = 0.250456
        assert capital_recovery_factor(0.08, 5) == pytest.approx(0.08 * 1.08**5 / (1.08**5 - 1), rel=1e-12)
        assert capital_recovery_factor(0.08, 5) == pytest.approx(0.250456, abs=1e-6)

    def test_zero_rate_is_straight_line(self):
        assert capital_recovery_factor(0.0, 4) == 0.25

    def test_land_pays_the_rate(self):
        assert capital_recovery_factor(0.08, np.inf) == 0.08
        assert capital_recovery_factor(0.0, np.inf) == 0.0

    def test_broadcasts_and_keeps_a_series(self):
        rates = pd.Series([0.0, 0.08], index=["a", "b"])
        out = capital_recovery_factor(rates, 5)
        assert isinstance(out, pd.Series) and list(out.index) == ["a", "b"]
        assert out.tolist() == pytest.approx([0.2, _crf(0.08, 5)])
        assert capital_recovery_factor(0.05, np.array([1.0, np.inf])).tolist() == pytest.approx([1.05, 0.05])

    @pytest.mark.parametrize("rate, life", [(-0.01, 5), (0.05, 0), (0.05, -1)])
    def test_refuses(self, rate, life):
        with pytest.raises(ValueError):
            capital_recovery_factor(rate, life)

    @settings(max_examples=60, deadline=None)
    @given(st.floats(0.001, 0.5), st.integers(1, 40))
    def test_repays_the_price(self, rate, years):
        # n yearly payments of CRF at the year's end have a present value of exactly 1
        crf = capital_recovery_factor(rate, years)
        assert sum(crf / (1 + rate) ** t for t in range(1, years + 1)) == pytest.approx(1.0, rel=1e-9)


def _with(changes, land=None):
    """The base scenario with dotted changes and, if given, one more bill-of-materials line (land)."""
    data = patched_data(BASE, changes)
    if land is not None:
        data["options"]["own"]["bill_of_materials"].append(land)
    return costmodel.validate_data(data)


def _costs(changes, land=None):
    r = resolve(_with(changes, land))
    own = r.option("own")
    return r, own, {str(k): float(v) for k, v in own_monthly_costs(r, r.volume).items()}


class TestAssetClasses:
    def test_without_the_new_fields_nothing_changes(self):
        _, own, parts = _costs({})
        assert "capex depreciation" in parts and "capital recovery" not in parts
        assert own.cost_of_capital_per_year is None and not own.per_line_lives

    def test_lines_with_their_own_lives_depreciate_straight_line(self):
        # the fabric (9.4 % of server capex) over 7 years instead of the servers' 60 months; land never
        r, own, parts = _costs(
            {
                "options.own.bill_of_materials.0.useful_life_years": 7,
                "options.own.bill_of_materials.0.asset_class": "network",
            },
            LAND,
        )
        _, _, before = _costs({})
        servers = 1250 * 1.02 * own.server_price
        fabric = 0.094 * servers
        assert parts["capex depreciation"] == pytest.approx(
            before["capex depreciation"] - fabric / 60 + fabric / 84, rel=1e-12
        )
        # land takes no hardware support either
        assert parts["hardware support"] == pytest.approx(before["hardware support"], rel=1e-12)

    def test_cost_of_capital_annualises_each_line(self):
        changes = {
            "options.own.cost_of_capital_per_year": 0.08,
            "options.own.bill_of_materials.0.useful_life_years": 7,
            "options.own.bill_of_materials.0.asset_class": "network",
        }
        r, own, parts = _costs(changes, LAND)
        assert "capex depreciation" not in parts and "facility depreciation" not in parts
        bought = 1250 * 1.02
        servers = bought * own.server_price
        fabric, storage, racks = 0.094 * servers, 5_000_000.0, 15_000.0 * bought
        expected = (
            servers * _crf(0.08, 5)
            + fabric * _crf(0.08, 7)
            + storage * _crf(0.08, 5)
            + racks * _crf(0.08, 5)
            + 2_000_000 * 0.08
        ) / 12
        assert parts["capital recovery"] == pytest.approx(expected, rel=1e-12)
        facility = float(own_facility_capex(own, 1250))
        assert facility == pytest.approx(bought * own.kw_per_server / 1000 * 17_500_000, rel=1e-12)
        assert parts["facility capital recovery"] == pytest.approx(facility * _crf(0.08, 20) / 12, rel=1e-12)

    def test_zero_cost_of_capital_is_the_straight_line(self):
        _, _, at_zero = _costs({"options.own.cost_of_capital_per_year": 0.0})
        _, _, before = _costs({})
        assert at_zero["capital recovery"] == pytest.approx(before["capex depreciation"], rel=1e-12)
        assert at_zero["facility capital recovery"] == pytest.approx(before["facility depreciation"], rel=1e-12)

    def test_the_cash_view_is_not_changed(self):
        with_rate = costmodel.compare(patched(BASE, {"options.own.cost_of_capital_per_year": 0.08}))
        before = costmodel.compare(patched(BASE))
        assert with_rate.finance is not None and before.finance is not None
        assert with_rate.finance.tco_by_option["own"] == pytest.approx(before.finance.tco_by_option["own"], rel=1e-12)
        assert with_rate.options["own"].monthly_cost > before.options["own"].monthly_cost

    def test_land_has_no_life(self):
        with pytest.raises(costmodel.ScenarioError, match="land is not depreciated") as info:
            _with({}, {**LAND, "useful_life_years": 30})
        assert "options.own.bill_of_materials.3.useful_life_years" in str(info.value)

    @pytest.mark.parametrize(
        "changes, where, words",
        [
            ({"options.own.cost_of_capital_per_year": 1.5}, "cost_of_capital_per_year", "less than or equal to 1"),
            ({"options.own.bill_of_materials.0.asset_class": "chips"}, "asset_class", "gpus"),
            (
                {"options.own.bill_of_materials.0.useful_life_years": 0},
                "useful_life_years",
                "greater than or equal to 0.08",
            ),
        ],
    )
    def test_refusals(self, changes, where, words):
        with pytest.raises(ValidationError) as info:
            patched(BASE, changes)
        assert where in str(info.value) and words in str(info.value)


class TestProvider:
    def test_formulas_by_hand(self):
        assert provider_revenue(8, 0.7, 2.5) == pytest.approx(8 * 730 * 0.7 * 2.5)
        assert net_operating_income(100.0, 30.0) == 70.0
        assert ebit(100.0, 30.0, 50.0) == 20.0

    def test_income_statement(self):
        r = resolve(patched(BASE, {"options.own.provider": PROVIDER}))
        own = r.option("own")
        income = own_income(r, r.volume)
        parts = {str(k): float(v) for k, v in own_monthly_costs(r, r.volume).items()}
        revenue = 10_000 * 730 * 0.7 * 2.2  # working GPUs only: the 2 % spares are not sold
        opex = sum(v for k, v in parts.items() if "depreciation" not in k)
        depreciation = parts["capex depreciation"] + parts["facility depreciation"]
        assert float(income.revenue) == pytest.approx(revenue, rel=1e-12)
        assert float(income.opex) == pytest.approx(opex, rel=1e-12)
        assert float(income.depreciation) == pytest.approx(depreciation, rel=1e-12)
        assert float(income.ebit) == pytest.approx(revenue - opex - depreciation, rel=1e-12)
        assert float(income.noi) == pytest.approx(revenue - opex, rel=1e-12)
        assert own.provider_utilisation_sold == 0.7

    def test_depreciation_leaves_the_cost_of_capital_out(self):
        plain = own_income(resolve(patched(BASE, {"options.own.provider": PROVIDER})), 5_840_000)
        r = resolve(patched(BASE, {"options.own.provider": PROVIDER, "options.own.cost_of_capital_per_year": 0.08}))
        with_rate = own_income(r, r.volume)
        assert float(with_rate.depreciation) == pytest.approx(float(plain.depreciation), rel=1e-12)
        assert float(with_rate.opex) == pytest.approx(float(plain.opex), rel=1e-12)

    def test_json(self, capsys, tmp_path):
        path = tmp_path / "provider.yaml"
        costmodel.save_scenario(patched(BASE, {"options.own.provider": PROVIDER}), path)
        assert main(["compare", str(path), "--json", "--no-uncertainty"]) == 0
        data = json.loads(capsys.readouterr().out)
        provider = data["options"]["own"]["provider"]
        assert set(provider) == {"revenue", "opex", "depreciation", "ebit", "noi"}
        assert provider["revenue"] == {
            "value": pytest.approx(10_000 * 730 * 0.7 * 2.2),
            "unit": "USD/month",
            "status": None,
        }
        assert provider["ebit"]["value"] == pytest.approx(
            provider["revenue"]["value"] - provider["opex"]["value"] - provider["depreciation"]["value"], abs=0.02
        )
        assert data["options"]["rent"]["provider"] is None

    def test_text(self, capsys, tmp_path):
        path = tmp_path / "provider.yaml"
        costmodel.save_scenario(patched(BASE, {"options.own.provider": PROVIDER}), path)
        assert main(["compare", str(path), "--no-uncertainty"]) == 0
        assert "as a provider, USD/month: revenue 11,242,000.00" in capsys.readouterr().out

    def test_needs_its_currency_rate(self):
        with pytest.raises(ValidationError, match="no FX rate from JPY"):
            patched(BASE, {"options.own.provider": {**PROVIDER, "currency": "JPY"}})

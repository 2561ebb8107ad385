"""costmodel bills: FOCUS and LiteLLM bills read to the cent, GPU-hours, bad rows, the scenario skeleton."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest

from costmodel import load_scenario
from costmodel.bills import read_summary, scenario_skeleton
from costmodel.cli import main
from costmodel.errors import InputError
from costmodel.io.bills import read_bill
from costmodel.paths import DATA_DIR

SAMPLE = DATA_DIR / "bills" / "focus_sample.csv"


def _expected_totals(path: Path) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
    """BilledCost by month of ChargePeriodStart and by ProviderName, with csv and Decimal only."""
    by_month: dict[str, Decimal] = defaultdict(Decimal)
    by_provider: dict[str, Decimal] = defaultdict(Decimal)
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            by_month[row["ChargePeriodStart"][:7]] += Decimal(row["BilledCost"])
            by_provider[row["ProviderName"]] += Decimal(row["BilledCost"])
    return dict(by_month), dict(by_provider)


class TestFocusSample:
    def test_totals_to_the_cent_by_month_and_provider(self):
        summary = read_summary(SAMPLE)
        by_month, by_provider = _expected_totals(SAMPLE)
        assert summary.format == "focus"
        assert summary.totals("month") == by_month
        assert summary.totals("provider") == by_provider
        assert sum(by_month.values()) == sum(summary.totals("month").values())

    def test_gpu_hours_by_hand(self):
        # Lambda gpu_8x_h100_sxm5: 8 GPUs, all of January (744 h) and February (672 h);
        # Nebius gpu-h100-sxm_8gpu-128vcpu-1600gb: 8 GPUs, 240 instance-hours each month
        summary = read_summary(SAMPLE)
        expected = 8 * 744 + 8 * 672 + 8 * 240 * 2
        assert sum(u.gpu_hours for u in summary.gpu_uses) == expected == 15_168
        assert {u.gpu for u in summary.gpu_uses} == {"H100-SXM-80GB"}
        assert summary.unknown == []

    def test_tokens_by_model_with_the_split(self):
        summary = read_summary(SAMPLE)
        split = summary.tokens["claude-sonnet-4"]
        assert split["input"] == 2 * 120_000_000
        assert split["output"] == 2 * 30_000_000

    def test_cli_json_money_exact(self, capsys):
        assert main(["bills", str(SAMPLE), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        by_month, _ = _expected_totals(SAMPLE)
        assert {k: Decimal(v) for k, v in data["totals_by_month"].items()} == by_month


class TestBadRows:
    def _write(self, tmp_path: Path, rows: list[dict]) -> Path:
        path = tmp_path / "bill.csv"
        with SAMPLE.open(newline="") as handle:
            reader = csv.DictReader(handle)
            columns = list(reader.fieldnames or [])
            good = next(reader)
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, columns, lineterminator="\n")
            writer.writeheader()
            writer.writerow(good)
            for change in rows:
                writer.writerow({**good, **change})
        return path

    def test_each_bad_row_named_with_its_line(self, tmp_path):
        path = self._write(
            tmp_path,
            [
                {"BilledCost": "twelve"},
                {"ChargePeriodStart": "yesterday"},
                {"ChargePeriodEnd": "2025-12-01T00:00:00Z"},
            ],
        )
        with pytest.raises(InputError) as caught:
            read_bill(path)
        fields = [field for field, _, _ in caught.value.problems]
        assert fields == [
            "line 3, column BilledCost",
            "line 4, column ChargePeriodStart",
            "line 5, column ChargePeriodEnd",
        ]

    def test_mixed_currencies_refused(self, tmp_path):
        path = self._write(tmp_path, [{"BillingCurrency": "EUR"}])
        with pytest.raises(InputError, match="several currencies"):
            read_bill(path)

    def test_missing_column_named(self, tmp_path):
        path = tmp_path / "bill.csv"
        path.write_text("BilledCost,ChargePeriodStart,ProviderName\n1,2026-01-01,X\n")
        with pytest.raises(InputError, match="ChargePeriodEnd"):
            read_bill(path)

    def test_neither_format_names_the_columns(self, tmp_path):
        path = tmp_path / "bill.csv"
        path.write_text("cost,when\n1,2026-01-01\n")
        with pytest.raises(InputError, match="cost, when"):
            read_bill(path)

    def test_unknown_instance_type_listed_with_its_cost(self, tmp_path):
        path = self._write(tmp_path, [{"ResourceType": "p9.mystery", "SkuId": "p9.mystery", "SkuPriceId": "",
                                       "ResourceName": "", "BilledCost": "12.34"}])  # fmt: skip
        summary = read_summary(path)
        assert summary.unknown == [(3, "p9.mystery, p9.mystery", Decimal("12.34"))]
        assert len(summary.gpu_uses) == 1  # the good Lambda row only


def test_litellm_spend_log_to_the_cent(tmp_path):
    path = tmp_path / "spend.csv"
    path.write_text(
        "request_id,model,model_group,custom_llm_provider,prompt_tokens,completion_tokens,total_tokens,"
        "spend,startTime,endTime\n"
        "a,gpt-4o,gpt-4o,openai,1000,200,1200,0.0045,2026-03-01T10:00:00Z,2026-03-01T10:00:02Z\n"
        "b,gpt-4o,gpt-4o,openai,3000,100,3100,0.0085,2026-03-31T23:59:00Z,2026-03-31T23:59:03Z\n"
        "c,claude,claude,anthropic,10,10,20,0.10,2026-04-01T00:00:00Z,2026-04-01T00:00:01Z\n"
    )
    summary = read_summary(path)
    assert summary.format == "litellm"
    assert summary.totals("month") == {"2026-03": Decimal("0.0130"), "2026-04": Decimal("0.10")}
    assert summary.totals("provider") == {"openai": Decimal("0.0130"), "anthropic": Decimal("0.10")}
    assert summary.tokens["gpt-4o"] == {"input": 4000, "output": 300}


def test_scenario_skeleton_round_trip(tmp_path):
    from costmodel import compare

    summary = read_summary(SAMPLE)
    out = tmp_path / "review.yaml"
    scenario_skeleton(summary, out, SAMPLE.name)
    scenario = load_scenario(out)
    assert scenario.options.rent is not None
    result = compare(scenario)
    monthly = {name: option.monthly_cost for name, option in result.options.items()}
    # the bill's GPU spend: EffectiveCost of its GPU rows, averaged over its two months, by hand
    gpu_spend = (Decimal("17796.48") + Decimal("5664.00") + Decimal("16074.24") + Decimal("5664.00")) / 2
    assert monthly["rent"] == pytest.approx(float(gpu_spend), abs=0.005)


def test_cli_writes_a_scenario_that_loads_with_its_demand_beside_it(tmp_path, capsys):
    out = tmp_path / "bill-review.yaml"
    assert main(["bills", str(SAMPLE), "--scenario-out", str(out)]) == 0
    capsys.readouterr()
    demand = (tmp_path / "bill-review-demand.csv").read_text().split()
    assert demand[0] == "gpus" and len(demand) == 8761
    # the year's hourly GPUs sum to 12 months of the bill's average: 15,168 GPU-h / 2 months x 12
    assert sum(float(v) for v in demand[1:]) == pytest.approx(15_168 / 2 * 12, rel=1e-9)
    scenario = load_scenario(out)
    assert scenario.workload.kind == "gpu_hours" and scenario.workload.gpu_hours_per_month == 7584


def test_gzipped_focus_and_json_litellm_read_alike(tmp_path):
    import gzip

    packed = tmp_path / "bill.csv.gz"
    packed.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    assert read_summary(packed).totals("month") == _expected_totals(SAMPLE)[0]
    log = tmp_path / "spend.json"
    log.write_text(
        json.dumps(
            [{"model": "m", "spend": "0.105", "startTime": "2026-05-01T00:00:00", "endTime": "2026-05-01T00:00:01"}]
        )
    )
    assert read_summary(log).totals("provider") == {"LiteLLM": Decimal("0.105")}

"""costmodel bills: FOCUS and LiteLLM bills read to the cent, GPU-hours, bad rows, the scenario skeleton."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from costmodel import comparison_text, load_scenario
from costmodel.bills import hourly_gpu_demand, read_summary, scenario_skeleton
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
        # Each month: Lambda gpu_8x_h100_sxm5, 8 GPUs, all month (744 h in January, 672 h in February);
        # Nebius gpu-h100-sxm_8gpu-128vcpu-1600gb, 8 GPUs, 240 h; AWS p5.48xlarge, 8 H100, 96 h;
        # Google Cloud a3-highgpu-8g, 8 H100, 120 h; Azure Standard_ND96isr_H100_v5, 8 H100, 72 h;
        # AWS g6e.xlarge, 1 L40S, all month (GPU counts: the providers' instance pages, see
        # tests/test_refresh_instance_types.py)
        summary = read_summary(SAMPLE)
        h100 = 8 * 744 + 8 * 672 + 2 * 8 * (240 + 96 + 120 + 72)
        by_gpu: dict[str, Decimal] = defaultdict(Decimal)
        for use in summary.gpu_uses:
            by_gpu[use.gpu] += use.gpu_hours
        assert by_gpu == {"H100-SXM-80GB": h100, "L40S-48GB": 744 + 672}
        assert h100 == 19_776
        # the CPU head node (m7a.xlarge) is a compute row with no GPU instance type: listed with its line
        assert [(line, cost) for line, _, cost in summary.unknown] == [(6, Decimal("172.49")), (18, Decimal("155.80"))]
        assert all("m7a.xlarge" in name for _, name, _ in summary.unknown)

    def test_cli_gives_each_gpus_hours(self, capsys):
        # by hand as above: an H100-hour and an L40S-hour are not one quantity, so the text splits the total
        assert main(["bills", str(SAMPLE)]) == 0
        line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("GPU-hours of known"))
        h100, l40s = 19_776, 744 + 672
        split = f"(H100-SXM-80GB {h100:,.1f}; L40S-48GB {l40s:,.1f})"
        assert line == f"GPU-hours of known GPU instances: {h100 + l40s:,.1f} {split}"

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
    # the bill's H100 spend (its most used GPU): EffectiveCost of the H100 rows averaged over two months,
    # by hand: Lambda 17,796.48 and 16,074.24; Nebius 5,664.00 a month; AWS p5.48xlarge 96 h x 98.32 =
    # 9,438.72; Google Cloud 120 h x 88.00 = 10,560.00; Azure 72 h x 98.32 = 7,079.04 a month
    month = Decimal("5664.00") + Decimal("9438.72") + Decimal("10560.00") + Decimal("7079.04")
    gpu_spend = (Decimal("17796.48") + Decimal("16074.24") + 2 * month) / 2
    assert monthly["rent"] == pytest.approx(float(gpu_spend), abs=0.005) == 49_677.12
    # the bill's offer is its own row: the catalog's Lambda offer beside it keeps Lambda's 2.99 USD per
    # GPU-hour (data/cloud_prices.csv) for the bill's 9,888 H100-hours a month
    assert scenario.options.rent.offer == "bill-h100-sxm-80gb"
    lambda_rent = next(name for name in monthly if name.startswith("rent:lambda"))
    assert monthly[lambda_rent] == pytest.approx(2.99 * 9888, abs=0.005)


def test_cli_writes_a_scenario_that_loads_with_its_demand_beside_it(tmp_path, capsys):
    out = tmp_path / "bill-review.yaml"
    assert main(["bills", str(SAMPLE), "--scenario-out", str(out)]) == 0
    capsys.readouterr()
    demand = (tmp_path / "bill-review-demand.csv").read_text().split()
    assert demand[0] == "gpus" and len(demand) == 8761
    # the year's hourly GPUs sum to 12 months of the bill's H100 average: 19,776 GPU-h / 2 months x 12
    assert sum(float(v) for v in demand[1:]) == pytest.approx(19_776 / 2 * 12, rel=1e-9)
    scenario = load_scenario(out)
    assert scenario.workload.kind == "gpu_hours" and scenario.workload.gpu_hours_per_month == 9888


def test_the_written_scenario_and_its_demand_run_wherever_the_pair_is_moved(tmp_path, capsys, monkeypatch):
    # B2: the demand file was named by its absolute path, so a scenario mailed or moved with its CSV
    # failed with "demand.path: (file): cannot be read"
    import shutil

    from costmodel.scenarios import with_inputs

    first = tmp_path / "a"
    first.mkdir()
    out = first / "review.yaml"
    assert main(["bills", str(SAMPLE), "--scenario-out", str(out)]) == 0
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["demand"]["path"] == "review-demand.csv"
    capsys.readouterr()
    assert main(["compare", str(out), "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    shutil.move(first, tmp_path / "b")
    assert not first.exists()
    moved = tmp_path / "b" / "review.yaml"
    monkeypatch.chdir(tmp_path)  # read from the scenario's folder, not the working directory
    assert main(["compare", str(moved), "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["decision"] == before["decision"] and after["options"] == before["options"]
    assert before["decision"]["candidates"]  # figures to compare, not two empty lists
    # a scenario changed from the moved one (a sweep, a what-if) reads the same file
    changed = with_inputs(load_scenario(moved), {"workload.gpu_hours_per_month": 9888})
    assert changed.demand_folder == str(tmp_path / "b")


def test_a_relative_demand_path_not_beside_the_scenario_is_read_from_data(tmp_path, capsys):
    # the bundled scenarios name their files relative to data/: that still holds for a scenario elsewhere
    data = yaml.safe_load((DATA_DIR / "scenarios" / "bill-review.yaml").read_text(encoding="utf-8"))
    assert data["demand"]["path"] == "scenarios/bill-review-demand.csv"
    out = tmp_path / "copy.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert load_scenario(out).demand_folder is None
    assert main(["compare", str(out)]) == 0


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


FOCUS_COLUMNS = [
    "BillingCurrency", "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ChargeDescription", "BilledCost",
    "EffectiveCost", "ProviderName", "ServiceCategory", "ServiceName", "ResourceType", "SkuId", "ConsumedQuantity",
    "ConsumedUnit", "x_UsageType", "x_SkuMeterName", "x_SkuDetails",
]  # fmt: skip


def _focus(provider: str, quantity: str, unit: str, cost: str, **names: str) -> dict[str, str]:
    """One compute usage row of 2026-03 (a whole-month charge period)."""
    row = dict.fromkeys(FOCUS_COLUMNS, "")
    row.update(BillingCurrency="USD", ChargePeriodStart="2026-03-01T00:00:00Z", ChargePeriodEnd="2026-04-01T00:00:00Z",
               ChargeCategory="Usage", BilledCost=cost, EffectiveCost=cost, ProviderName=provider,
               ServiceCategory="Compute", ServiceName="VMs", ConsumedQuantity=quantity, ConsumedUnit=unit)  # fmt: skip
    row.update(names)
    return row


# Rows as each cloud's FOCUS export names the instance (GPU counts: AWS P5 and G6e pages, Google Cloud's
# A2 and G2 machine types, Microsoft Learn's NC A100 v4 and ND H100 v5 pages; all in data/instance_types.csv)
AWS = [
    _focus(
        "AWS",
        "10",
        "Hrs",
        "983.20",
        x_UsageType="USE1-BoxUsage:p5.48xlarge",
        ChargeDescription="$98.32 per On Demand Linux p5.48xlarge Instance Hour",
    ),  # 10 h x 8 H100 = 80
    _focus("AWS", "5", "Hrs", "30.00", x_UsageType="USW2-SpotUsage:g6e.12xlarge"),  # 5 h x 4 L40S = 20
]
GCP = [
    _focus(
        "Google Cloud",
        "10",
        "hour",
        "100.00",
        SkuId="SAMPLE-1",
        ChargeDescription="Compute Engine a2-highgpu-4g running in Americas",
    ),  # 10 h x 4 A100 40 GB = 40
    _focus(
        "Google Cloud",
        "3",
        "Hours",
        "9.00",
        ResourceType="compute.googleapis.com/Instance",
        ChargeDescription="g2-standard-48 in us-central1",
    ),  # 3 h x 4 L4 = 12 (not g2-standard-4)
]
AZURE = [
    _focus(
        "Microsoft", "100", "Hours", "367.30", ResourceType="Virtual machine", x_SkuMeterName="NC24ads A100 v4"
    ),  # meter name, no Standard_: 100 h x 1 A100 PCIe = 100
    _focus(
        "Microsoft", "2", "1 Hour", "196.64", x_SkuDetails='{"ServiceType": "standard_nd96isr_h100_v5"}'
    ),  # any case: 2 h x 8 H100 = 16
    _focus("Microsoft", "3", "10 Hours", "2949.60", x_SkuMeterName="ND96isr H100 v5"),  # 3 x 10 h x 8 = 240
]
EXPECTED = {  # (provider, instance type, GPU, GPU-hours), by hand from the comments above
    "AWS": [("p5.48xlarge", "H100-SXM-80GB", 80), ("g6e.12xlarge", "L40S-48GB", 20)],
    "Google Cloud": [("a2-highgpu-4g", "A100-SXM-40GB", 40), ("g2-standard-48", "L4-24GB", 12)],
    "Microsoft": [
        ("Standard_NC24ads_A100_v4", "A100-PCIE-80GB", 100),
        ("Standard_ND96isr_H100_v5", "H100-SXM-80GB", 16),
        ("Standard_ND96isr_H100_v5", "H100-SXM-80GB", 240),
    ],
}


def _write_focus(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, FOCUS_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


class TestCloudInstanceTypes:
    @pytest.mark.parametrize("provider, rows", [("AWS", AWS), ("Google Cloud", GCP), ("Microsoft", AZURE)])
    def test_gpu_hours_of_each_cloud(self, tmp_path, provider, rows):
        summary = read_summary(_write_focus(tmp_path / "bill.csv", rows))
        got = [(u.instance_type, u.gpu, u.gpu_hours) for u in summary.gpu_uses]
        assert got == EXPECTED[provider]
        assert summary.unknown == []
        assert {u.provider for u in summary.gpu_uses} == {provider}

    def test_managed_ml_instances_count_tokens_do_not(self, tmp_path):
        # SageMaker training on ml.p4d.24xlarge (8 A100 40 GB), 2 h: 16 GPU-hours; an AI service billed in
        # tokens in the same category is tokens, not GPU use; an AI row naming no instance is neither
        rows = [
            _focus("AWS", "2", "Hrs", "65.54", ServiceCategory="AI and Machine Learning",
                   x_UsageType="USE1-Train:ml.p4d.24xlarge"),
            _focus("AWS", "1000", "Tokens", "0.01", ServiceCategory="AI and Machine Learning",
                   x_UsageType="USE1-MP:input-tokens"),
            _focus("AWS", "3", "Hrs", "1.00", ServiceCategory="AI and Machine Learning", x_UsageType="USE1-Notebook"),
        ]  # fmt: skip
        summary = read_summary(_write_focus(tmp_path / "bill.csv", rows))
        assert [(u.instance_type, u.gpu, u.gpu_hours) for u in summary.gpu_uses] == [
            ("p4d.24xlarge", "A100-SXM-40GB", 16)
        ]
        assert summary.unknown == [] and sum(summary.tokens["VMs"].values()) == 1000

    def test_unknown_rows_listed_by_line_with_why(self, tmp_path):
        rows = [
            _focus("AWS", "4", "Hrs", "1.00", x_UsageType="USE1-BoxUsage:m7a.xlarge"),  # no GPU instance type
            _focus("AWS", "4", "GB-Hours", "2.00", x_UsageType="USE1-BoxUsage:p5.48xlarge"),  # not hours
            _focus("AWS", "4", "Hrs", "3.00", x_UsageType="BoxUsage:p5.48xlarge", ChargeDescription="g6e.xlarge"),
            _focus("Google Cloud", "4", "hour", "4.00", ChargeDescription="a3-ultragpu-8g (H200, form not stated)"),
        ]
        summary = read_summary(_write_focus(tmp_path / "bill.csv", rows))
        assert summary.gpu_uses == []
        assert [(line, cost) for line, _, cost in summary.unknown] == [
            (2, Decimal("1.00")),
            (3, Decimal("2.00")),
            (4, Decimal("3.00")),
            (5, Decimal("4.00")),
        ]
        reasons = [name for _, name, _ in summary.unknown]
        assert reasons[0] == "USE1-BoxUsage:m7a.xlarge"
        assert reasons[1].endswith("(ConsumedUnit 'GB-Hours' is not hours)")
        assert reasons[2].endswith("(names several instance types: g6e.xlarge, p5.48xlarge)")
        assert reasons[3] == "a3-ultragpu-8g (H200, form not stated)"

    def test_parquet_export_reads_as_the_csv(self, tmp_path):
        # a FOCUS Parquet export types its columns: costs as decimals, periods as UTC timestamps,
        # quantities as doubles; the reader gives the same GPU-hours and totals as the CSV
        pa = pytest.importorskip("pyarrow")
        pq = pytest.importorskip("pyarrow.parquet")
        import datetime as dt

        rows = AWS + GCP + AZURE
        columns: dict[str, list] = {name: [row[name] or None for row in rows] for name in FOCUS_COLUMNS}
        for name in ("BilledCost", "EffectiveCost"):
            columns[name] = pa.array([Decimal(v) for v in columns[name]], pa.decimal128(18, 6))
        for name in ("ChargePeriodStart", "ChargePeriodEnd"):
            columns[name] = pa.array(
                [dt.datetime.fromisoformat(v.replace("Z", "+00:00")) for v in columns[name]], pa.timestamp("s", "UTC")
            )
        columns["ConsumedQuantity"] = pa.array([float(v) for v in columns["ConsumedQuantity"]], pa.float64())
        path = tmp_path / "focus.parquet"
        pq.write_table(pa.table(columns), path)
        summary = read_summary(path)
        csv_summary = read_summary(_write_focus(tmp_path / "bill.csv", rows))
        expected = [item for provider in ("AWS", "Google Cloud", "Microsoft") for item in EXPECTED[provider]]
        assert [(u.instance_type, u.gpu, u.gpu_hours) for u in summary.gpu_uses] == expected
        assert summary.totals("provider") == csv_summary.totals("provider")
        total = sum((Decimal(row["BilledCost"]) for row in rows), Decimal(0))
        assert sum(summary.totals("month").values()) == total == Decimal("4635.74")


def test_bundled_bill_review_is_what_the_command_writes(tmp_path, capsys):
    """data/scenarios/bill-review.yaml and its demand file are `costmodel bills` of the FOCUS sample."""
    out = tmp_path / "bill-review.yaml"
    assert main(["bills", str(SAMPLE), "--scenario-out", str(out)]) == 0
    capsys.readouterr()
    bundled = DATA_DIR / "scenarios"
    assert (tmp_path / "bill-review-demand.csv").read_text() == (bundled / "bill-review-demand.csv").read_text()
    written, shipped = load_scenario(out), load_scenario("bill-review")
    assert written.options == shipped.options and written.offers == shipped.offers
    assert written.workload == shipped.workload


def test_bundled_bill_review_compares_with_its_inline_offer():
    """`costmodel compare bill-review` prices today's bill at its own effective rate, not a catalog row's."""
    from costmodel import compare

    result = compare(load_scenario("bill-review"))
    monthly = {name: option.monthly_cost for name, option in result.options.items()}
    # 19,776 H100-hours over two months at the bill's EffectiveCost (99,354.24 USD for the H100 rows, see
    # test_scenario_skeleton_round_trip): 49,677.12 USD a month
    assert monthly["rent"] == pytest.approx(99_354.24 / 2, abs=0.005)


def test_bundled_bill_review_names_where_todays_gpu_hours_were_bought():
    """The baseline reads as a person would write it: the bill's providers of its H100 rows (the sample's
    Lambda, Nebius, AWS p5, Google Cloud a3 and Azure ND rows; FOCUS names Azure's provider Microsoft),
    not "Today's bill: H100-SXM-80GB at Today's bill"."""
    from costmodel import compare

    result = compare(load_scenario("bill-review"))
    label = result.decision.candidates["rent"].label
    assert (
        label
        == "Today's bill: H100-SXM-80GB at AWS, Google Cloud, Lambda, Microsoft and Nebius, on demand by the GPU-hour"
    )
    assert result.mix is not None
    assert "against all H100-SXM-80GB at AWS, Google Cloud, Lambda, Microsoft and Nebius," in comparison_text(result)


class TestGoogleGPUSkus:
    """Google Cloud bills a VM's GPUs as their own SKU, one GPU for one hour per unit, and its cores
    and memory as other SKUs (GPU names: data/gcp_gpu_skus.csv, from Compute Engine's GPU pages)."""

    def test_gpu_sku_rows_are_gpu_hours_directly(self, tmp_path):
        gcp = "Google Cloud"
        rows = [
            _focus(gcp, "16", "hour", "176.00", ChargeDescription="Nvidia H100 80GB GPU running in Americas"),
            _focus(gcp, "5", "hour", "10.00", ChargeDescription="Nvidia Tesla A100 GPU running in EMEA"),
            _focus(gcp, "2.5", "hour", "9.00", ChargeDescription="Nvidia A100 80GB GPU running in Americas"),
            _focus(gcp, "7", "hour", "4.90", ChargeDescription="Nvidia L4 GPU running in APAC"),
            _focus(gcp, "8", "hour", "30.00",
                   ChargeDescription="Spot Preemptible Nvidia H100 80GB GPU running in Americas"),
            _focus(gcp, "3", "hour", "20.00", ChargeDescription="Commitment v1: Nvidia H200 141GB GPU in Americas"),
        ]  # fmt: skip
        summary = read_summary(_write_focus(tmp_path / "bill.csv", rows))
        # one GPU-hour per unit: the quantities as they stand
        assert [(u.line, u.gpu, u.gpu_hours) for u in summary.gpu_uses] == [
            (2, "H100-SXM-80GB", 16),
            (3, "A100-SXM-40GB", 5),
            (4, "A100-SXM-80GB", Decimal("2.5")),
            (5, "L4-24GB", 7),
            (6, "H100-SXM-80GB", 8),
            (7, "H200-SXM-141GB", 3),
        ]
        assert summary.unknown == [] and summary.not_demand == []

    def test_core_and_ram_rows_are_spend_not_demand_and_unknown_gpus_listed(self, tmp_path):
        gcp = "Google Cloud"
        rows = [
            _focus(gcp, "208", "hour", "5.00", ChargeDescription="A3 Instance Core running in Americas"),
            _focus(gcp, "1872", "gibibyte hour", "6.00", ChargeDescription="A3 Instance Ram running in Americas"),
            _focus(gcp, "4", "hour", "7.00", ChargeDescription="Nvidia Tesla P100 GPU running in Americas"),
        ]  # fmt: skip
        summary = read_summary(_write_focus(tmp_path / "bill.csv", rows))
        assert summary.gpu_uses == []
        assert [(line, cost) for line, _, cost in summary.not_demand] == [(2, Decimal("5.00")), (3, Decimal("6.00"))]
        assert summary.unknown == [
            (4, "Nvidia Tesla P100 GPU running in Americas (GPU 'Tesla P100' not in data/gcp_gpu_skus.csv)",
             Decimal("7.00"))
        ]  # fmt: skip
        assert summary.to_json()["compute_spend_not_demand"][0] == {
            "line": 2, "name": "A3 Instance Core running in Americas", "billed_cost": "5.00"
        }  # fmt: skip

    def test_a_vm_is_not_counted_twice(self, tmp_path):
        # rule: when a provider's rows include GPU SKU rows, its rows naming a machine type are spend,
        # not GPU-hours; 10 h of a3-highgpu-8g is 80 GPU-hours whichever way the bill writes it
        machine = _focus("Google Cloud", "10", "hour", "100.00", ChargeDescription="a3-highgpu-8g running in Americas")
        gpu = _focus(
            "Google Cloud", "80", "hour", "880.00", ChargeDescription="Nvidia H100 80GB GPU running in Americas"
        )
        aws = _focus("AWS", "1", "Hrs", "98.32", x_UsageType="USE1-BoxUsage:p5.48xlarge")
        both = read_summary(_write_focus(tmp_path / "both.csv", [machine, gpu, aws]))
        alone = read_summary(_write_focus(tmp_path / "alone.csv", [machine]))
        gcp_hours = [u.gpu_hours for u in both.gpu_uses if u.provider == "Google Cloud"]
        assert gcp_hours == [80] and [u.gpu_hours for u in alone.gpu_uses] == [80]
        assert [u.gpu_hours for u in both.gpu_uses if u.provider == "AWS"] == [8]  # other providers unaffected
        assert [(line, cost) for line, _, cost in both.not_demand] == [(2, Decimal("100.00"))]


class TestAWSUsageTypes:
    """Only instance runtime counts: an hourly row of another usage-type kind naming the instance does not."""

    @pytest.mark.parametrize(
        "usage_type, line_item, gpu_hours",
        [
            ("USE1-BoxUsage:p5.48xlarge", "Usage", 8),
            ("BoxUsage:p5.48xlarge", "DiscountedUsage", 8),  # reserved instance covered
            ("USE1-BoxUsage:p5.48xlarge", "SavingsPlanCoveredUsage", 8),
            ("USW2-SpotUsage:p5.48xlarge", "Usage", 8),
            ("USE1-DedicatedUsage:p5.48xlarge", "Usage", 8),
            ("USE1-HostUsage:p5.48xlarge", "Usage", 8),
            ("USE1-EBSOptimized:p5.48xlarge", "Usage", None),
            ("USE1-HeavyUsage:p5.48xlarge", "RIFee", None),
            ("USE1-UnusedBox:p5.48xlarge", "RIFee", None),  # reserved, paid, not used
        ],
    )
    def test_usage_kind(self, tmp_path, usage_type, line_item, gpu_hours):
        row = _focus("AWS", "1", "Hrs", "1.00", x_UsageType=usage_type, x_LineItemType=line_item)
        path = tmp_path / "bill.csv"
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, [*FOCUS_COLUMNS, "x_LineItemType"], lineterminator="\n")
            writer.writeheader()
            writer.writerow(row)
        summary = read_summary(path)
        if gpu_hours is None:
            assert summary.gpu_uses == []
            kind = usage_type.split("-")[1]
            assert summary.unknown == [
                (2, f"{usage_type}, {line_item} (usage type {kind!r} is not instance runtime)", Decimal("1.00"))
            ]
        else:
            assert [u.gpu_hours for u in summary.gpu_uses] == [gpu_hours] and summary.unknown == []


PUBLIC_SAMPLE = DATA_DIR / "bills" / "focus_sample_data_1_0.csv"
"""An excerpt of the FinOps Foundation's FOCUS 1.0 sample data (CC BY 4.0; data/bills/README.md)."""


class TestFinOpsFoundationSample:
    """A real FOCUS 1.0 export (anonymised AWS, Microsoft and Oracle charges): SQL ``NULL`` cells,
    date-times without ``T`` or ``Z``, quoted numbers with 15 decimals, a header fully quoted."""

    def test_read_without_error_totals_exact_by_month_and_provider(self, capsys):
        summary = read_summary(PUBLIC_SAMPLE)
        by_month, by_provider = _expected_totals(PUBLIC_SAMPLE)
        assert summary.totals("month") == by_month and set(by_month) == {"2024-09"}
        assert summary.totals("provider") == by_provider and set(by_provider) == {"AWS", "Microsoft", "Oracle"}
        assert main(["bills", str(PUBLIC_SAMPLE), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert {k: Decimal(v) for k, v in data["totals_by_provider"].items()} == by_provider

    def test_gpu_rows_become_demand(self):
        # the sample's eight "$1.624 per On Demand Linux g5.4xlarge Instance Hour" rows (1 A10G each,
        # AWS G5 page): 1 + 0.296111 + 1 + 0.683889 + 1 + 1 + 1 + 0.303056 instance-hours, by hand
        summary = read_summary(PUBLIC_SAMPLE)
        assert {(u.instance_type, u.gpu) for u in summary.gpu_uses} == {("g5.4xlarge", "A10G-24GB")}
        assert len(summary.gpu_uses) == 8
        assert sum(u.gpu_hours for u in summary.gpu_uses) == Decimal("6.283056")
        # compute rows in GB or requests naming no instance (data transfer) are spend, not unknown
        # instances; what is listed is instance time of a type with no GPU (c5.2xlarge, t2.medium, ...)
        units = {row["ConsumedUnit"] for row in csv.DictReader(PUBLIC_SAMPLE.open(newline=""))}
        assert "GB" in units and summary.unknown
        assert all("Instance Hour" in name or "Hours" in name or "Hrs" in name for _, name, _ in summary.unknown)
        start = min(u.start for u in summary.gpu_uses).replace(day=1, hour=0)
        assert hourly_gpu_demand(summary.gpu_uses, start, 30 * 24).sum() == pytest.approx(6.283056, rel=1e-12)


def test_null_cells_and_semicolons_read_as_empty_and_decimal_points(tmp_path):
    # a database dump writes a missing value as NULL; a European export separates by semicolons with
    # decimal commas; the same bill either way
    rows = [_focus("AWS", "10", "Hrs", "983.20", x_UsageType="USE1-BoxUsage:p5.48xlarge")]
    comma = _write_focus(tmp_path / "comma.csv", rows)
    text = comma.read_text().splitlines()
    semicolon = tmp_path / "semicolon.csv"
    cells = [next(csv.reader([line])) for line in text]
    cells = [[("NULL" if not c else c.replace("983.20", "983,20")) for c in row] for row in cells]
    semicolon.write_text("\ufeff" + "\n".join(";".join(row) for row in cells) + "\n", encoding="utf-8")
    a, b = read_summary(comma), read_summary(semicolon)
    assert a.totals("provider") == b.totals("provider") == {"AWS": Decimal("983.20")}
    assert [u.gpu_hours for u in b.gpu_uses] == [u.gpu_hours for u in a.gpu_uses] == [80]


AWS_FOCUS_1_2_HEADER = (
    "AvailabilityZone,BilledCost,BillingAccountId,BillingAccountName,BillingAccountType,BillingCurrency,"
    "BillingPeriodEnd,BillingPeriodStart,CapacityReservationId,CapacityReservationStatus,ChargeCategory,ChargeClass,"
    "ChargeDescription,ChargeFrequency,ChargePeriodEnd,ChargePeriodStart,CommitmentDiscountCategory,"
    "CommitmentDiscountId,CommitmentDiscountName,CommitmentDiscountQuantity,CommitmentDiscountStatus,"
    "CommitmentDiscountType,CommitmentDiscountUnit,ConsumedQuantity,ConsumedUnit,ContractedCost,ContractedUnitPrice,"
    "EffectiveCost,InvoiceId,InvoiceIssuerName,ListCost,ListUnitPrice,PricingCategory,PricingCurrency,"
    "PricingCurrencyContractedUnitPrice,PricingCurrencyEffectiveCost,PricingCurrencyListUnitPrice,PricingQuantity,"
    "PricingUnit,ProviderName,PublisherName,RegionId,RegionName,ResourceId,ResourceName,ResourceType,ServiceCategory,"
    "ServiceName,ServiceSubcategory,SkuId,SkuMeter,SkuPriceDetails,SkuPriceId,SubAccountId,SubAccountName,"
    "SubAccountType,Tags,x_Discounts,x_Operation,x_ServiceCode"
)
"""The header of an AWS FOCUS 1.2 CSV export, column for column (no x_UsageType)."""


def test_aws_focus_1_2_export_without_usage_type(tmp_path):
    # AWS's FOCUS 1.2 export: milliseconds and Z in date-times, costs in E notation, tax rows with no
    # EffectiveCost, the instance named only in ChargeDescription; its EBS-optimized row is hourly too
    columns = AWS_FOCUS_1_2_HEADER.split(",")

    def line(**values: str) -> str:
        base = {"BillingCurrency": "USD", "ProviderName": "AWS", "ChargeCategory": "Usage",
                "ChargePeriodStart": "2026-09-01T00:00:00.000Z", "ChargePeriodEnd": "2026-09-01T01:00:00.000Z",
                "ServiceCategory": "Compute", "ServiceName": "Amazon Elastic Compute Cloud"}  # fmt: skip
        base.update(values)
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow([base.get(c, "") for c in columns])
        return out.getvalue()

    rows = [
        line(BilledCost="98.32", EffectiveCost="98.32", ConsumedQuantity="1.0", ConsumedUnit="Hours",
             ChargeDescription="$98.32 per On Demand Linux p5.48xlarge Instance Hour"),
        line(BilledCost="0.0", EffectiveCost="0.0", ConsumedQuantity="1.0", ConsumedUnit="Hours",
             ChargeDescription="$0.00 for 1000 Mbps per p5.48xlarge instance-hour (or partial hour)"),
        line(BilledCost="6.123E-7", EffectiveCost="6.123E-7", ServiceCategory="Management and Governance"),
        line(BilledCost="1.5", ChargeCategory="Tax", ChargePeriodEnd="2026-10-01T00:00:00.000Z"),
    ]  # fmt: skip
    path = tmp_path / "focus-0.csv"
    path.write_text(AWS_FOCUS_1_2_HEADER + "\n" + "\n".join(rows) + "\n")
    summary = read_summary(path)
    assert summary.totals("month") == {"2026-09": Decimal("98.32") + Decimal("6.123E-7") + Decimal("1.5")}
    assert [(u.line, u.gpu_hours) for u in summary.gpu_uses] == [(2, 8)]  # 1 h x 8 H100
    assert [line for line, _, _ in summary.unknown] == [3]
    assert summary.unknown[0][1].endswith("(EBS-optimized bandwidth, not instance runtime)")


class TestHostileBills:
    """Bad input gets an error naming the file, the line, the column, the value and the rule; nothing is
    summed, printed or written from a bill with such a row."""

    @staticmethod
    def _sample(tmp_path: Path, changes: list[dict[str, str]]) -> Path:
        """The FOCUS sample's first row (line 2), then that row with each change (line 3 on)."""
        return TestBadRows()._write(tmp_path, changes)

    @pytest.mark.parametrize(
        "column, text",
        [
            ("BilledCost", "1e30"),
            ("EffectiveCost", "-1e400"),
            ("BilledCost", "1000000000000000.01"),  # a cent above the limit
            ("ConsumedQuantity", "2e15"),
        ],
    )
    def test_number_beyond_the_largest_input_refused(self, tmp_path, column, text):
        # the limit of every scenario and catalog figure (costmodel.units.LARGEST_INPUT, 1e15)
        path = self._sample(tmp_path, [{column: text}])
        with pytest.raises(InputError) as caught:
            read_bill(path)
        assert caught.value.problems == [
            (f"line 3, column {column}", text, "magnitude above 1e+15: no real input is that large")
        ]

    def test_number_at_the_largest_input_and_a_tiny_cost_read(self, tmp_path):
        # the limit itself is allowed, and tiny costs are real (the FinOps Foundation's FOCUS 1.0 sample
        # bills 4.0E-10 USD on a row of data/bills/focus_sample_data_1_0.csv): no lower limit on a bill
        path = self._sample(tmp_path, [{"BilledCost": "-1e15"}, {"BilledCost": "4.0E-10", "EffectiveCost": ""}])
        _, rows = read_bill(path)
        assert [row.billed_cost for row in rows[1:]] == [Decimal("-1e15"), Decimal("4.0E-10")]
        assert rows[2].effective_cost == Decimal("4.0E-10")

    def test_litellm_spend_and_tokens_beyond_the_limit_refused(self, tmp_path):
        path = tmp_path / "spend.csv"
        path.write_text(
            "model,prompt_tokens,completion_tokens,total_tokens,spend,startTime,endTime\n"
            "m,1e16,1,,0.01,2026-03-01T10:00:00Z,2026-03-01T10:00:02Z\n"
            "m,1,1,2,9e99,2026-03-01T10:00:00Z,2026-03-01T10:00:02Z\n"
        )
        with pytest.raises(InputError) as caught:
            read_bill(path)
        assert [(field, value) for field, value, _ in caught.value.problems] == [
            ("line 2, column prompt_tokens", "1e16"),
            ("line 3, column spend", "9e99"),
        ]

    def test_cli_refuses_with_exit_2_naming_file_line_column_value_and_limit(self, tmp_path, capsys):
        path = self._sample(tmp_path, [{}, {"EffectiveCost": "-1e400"}])
        for extra in ([], ["--json"]):
            assert main(["bills", str(path), *extra]) == 2
            out, err = capsys.readouterr()
            assert out == ""
            assert err == (
                f"costmodel bills: {path}: line 4, column EffectiveCost: magnitude above 1e+15: "
                "no real input is that large (got '-1e400')\n"
            )
        out_file = tmp_path / "review.yaml"
        assert main(["bills", str(path), "--scenario-out", str(out_file)]) == 2
        assert capsys.readouterr().out == "" and list(tmp_path.iterdir()) == [path]  # nothing written

    def test_largest_costs_keep_their_cents_in_every_total(self, tmp_path, capsys):
        # the limit and the decimal sums meet: three rows at the largest cost a cent below the limit sum
        # to the cent, 3 x 999,999,999,999,999.99 = 2,999,999,999,999,999.97, in the text and the JSON
        top = "999999999999999.99"
        path = self._sample(tmp_path, [{"BilledCost": top, "EffectiveCost": top}] * 3)
        first = Decimal(next(csv.DictReader(SAMPLE.open(newline="")))["BilledCost"])
        total = 3 * Decimal(top) + first
        assert main(["bills", str(path), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert [Decimal(v) for v in data["totals_by_month"].values()] == [total]
        assert str(total) == "3000000000017796.45"  # 2,999,999,999,999,999.97 + the first row's 17,796.48
        assert main(["bills", str(path)]) == 0
        assert "total 2026-01: 3,000,000,000,017,796.45 USD" in capsys.readouterr().out.splitlines()

    @pytest.mark.parametrize("body, name", [("", "bill.csv"), ("\n\n", "bill.csv"), ("[]", "bill.json")])
    def test_no_data_rows_refused(self, tmp_path, capsys, body, name):
        path = tmp_path / name
        header = SAMPLE.read_text().splitlines()[0]
        path.write_text(body if name.endswith(".json") else header + "\n" + body)
        fmt = ["--format", "focus"] if name.endswith(".json") else []
        with pytest.raises(InputError) as caught:
            read_bill(path, "focus" if fmt else None)
        assert caught.value.problems == [("(rows)", 0, "no data rows: a bill needs at least one charge")]
        for extra in ([], ["--json"]):
            assert main(["bills", str(path), *fmt, *extra]) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.startswith(f"costmodel bills: {path}: (rows): no data rows")

    @pytest.mark.parametrize("fields", [5, 34])
    def test_row_with_another_number_of_fields_than_the_header(self, tmp_path, capsys, fields):
        lines = SAMPLE.read_text().splitlines()
        assert len(lines[0].split(",")) == 32
        cells = next(csv.reader([lines[3]]))
        ragged = ",".join((cells + ["x", "y"])[:fields])
        path = tmp_path / "bill.csv"
        path.write_text("\n".join([*lines[:3], ragged, *lines[4:]]) + "\n")
        with pytest.raises(InputError) as caught:
            read_bill(path)
        assert caught.value.problems == [("line 4", ragged, f"has {fields} fields; the header has 32")]
        assert main(["bills", str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and f"{path}: line 4: has {fields} fields; the header has 32 (got 'sample-" in err

    def test_ragged_rows_and_bad_cells_listed_together_in_line_order(self, tmp_path):
        path = tmp_path / "bill.csv"
        lines = SAMPLE.read_text().splitlines()
        bad_cost = lines[1].replace("17796.48", "twelve", 1)
        assert bad_cost != lines[1]
        path.write_text("\n".join([lines[0], "a,b,c", bad_cost, lines[3] + ",extra"]) + "\n")
        with pytest.raises(InputError) as caught:
            read_bill(path)
        assert [field for field, _, _ in caught.value.problems] == ["line 2", "line 3, column BilledCost", "line 4"]


def test_ragged_semicolon_row_shown_as_written(tmp_path):
    path = tmp_path / "bill.csv"
    path.write_text(
        "BilledCost;BillingCurrency;ChargePeriodStart;ChargePeriodEnd;ProviderName\n12,50;EUR;2026-01-01;2026-02-01\n"
    )
    with pytest.raises(InputError) as caught:
        read_bill(path)
    assert caught.value.problems == [("line 2", "12,50;EUR;2026-01-01;2026-02-01", "has 4 fields; the header has 5")]


def test_header_only_missing_a_column_names_the_column_first(tmp_path):
    path = tmp_path / "bill.csv"
    path.write_text("BilledCost,ChargePeriodStart,ProviderName\n")
    with pytest.raises(InputError) as caught:
        read_bill(path)
    assert [value for _, value, _ in caught.value.problems] == ["BillingCurrency", "ChargePeriodEnd"]


def test_the_written_scenario_says_what_it_compares(tmp_path):
    # it promised "renting elsewhere, owning, or an API" while it holds rental options only
    out = tmp_path / "review.yaml"
    assert main(["bills", str(SAMPLE), "--scenario-out", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert set(data["options"]) == {"rent", "rents"}
    assert "over 2 months" in data["description"] and "renting the same hours" in data["description"]
    assert "owning, or an API" not in data["description"]


def test_bills_text_writes_each_service_whole(capsys):
    # the FinOps sample's "Amazon Simple Storage Service" and "Amazon EC2 Container Registry (ECR)" were cut at 28
    # characters ("Amazon Simple Storage Servic"), which is no service on the bill
    assert main(["bills", str(PUBLIC_SAMPLE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split()[2:5] == ["Amazon", "Simple", "Storage"] and " Service " in line for line in lines)
    assert any("Amazon EC2 Container Registry (ECR) " in line for line in lines)
    header = lines[0]
    # the figures stay in one column: every row's BilledCost ends where the header's does
    end = header.index("BilledCost") + len("BilledCost")
    assert all(line[end - 1].isdigit() for line in lines[1:] if line.startswith("2024-"))


class TestSkeletonFromOddBills:
    """``--scenario-out`` from a bill whose GPU rows cannot make a baseline, or into a path that cannot be written."""

    @staticmethod
    def _one_row(tmp_path: Path, cost: str, quantity: str) -> Path:
        """One Lambda 8 x H100 row of March 2026 (gpu_8x_h100_sxm5: 8 GPUs an instance-hour), line 2."""
        row = _focus("Lambda", quantity, "Hours", cost, ResourceType="gpu_8x_h100_sxm5")
        return _write_focus(tmp_path / "bill.csv", [row])

    @pytest.mark.parametrize(
        "cost, quantity, column, got",
        [
            # F14 kind (a zero or negative volume): 0 hours was a traceback (decimal.DivisionByZero)
            ("100", "0", "ConsumedQuantity", "0 GPU-hours"),
            ("100", "-744", "ConsumedQuantity", "-5952 GPU-hours"),
            # F9 kind (a price of 0): 0 or a credit became price_per_gpu_hour 0 or -0.00084, refused by the
            # scenario it had already written; 100 USD over 1e15 x 8 GPU-hours (1.25e-14 a GPU-hour) was
            # rounded to 0.0 at 12 decimals
            ("0", "744", "EffectiveCost", "0 USD for 5952 GPU-hours"),
            ("-5", "744", "EffectiveCost", "-5 USD for 5952 GPU-hours"),
            ("100", "1e15", "EffectiveCost", "100 USD for 8000000000000000 GPU-hours"),
            ("100", "1e-300", "EffectiveCost", "100 USD for 8e-300 GPU-hours"),
        ],
    )
    def test_refused_at_the_bill_and_nothing_written(self, tmp_path, capsys, cost, quantity, column, got):
        # F32 kind (half-written output): the demand file was written before the scenario was checked,
        # and both stayed behind the exit 2 naming a field of the written scenario, not the bill
        path = self._one_row(tmp_path, cost, quantity)
        assert main(["bills", str(path), "--scenario-out", str(tmp_path / "review.yaml")]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith(f"costmodel bills: {path}: H100-SXM-80GB rows, line 2, column {column}: ")
        assert err.endswith(f"(got {got!r})\n")
        assert sorted(tmp_path.iterdir()) == [path]

    def test_a_correction_outside_its_usage_period_is_refused_and_the_earlier_skeleton_kept(self, tmp_path, capsys):
        # 744 h on line 2 in March, a correction of -100 h on line 3 in April: April's hours would hold
        # -100 x 8 / 720 GPUs
        april = {"ChargePeriodStart": "2026-04-01T00:00:00Z", "ChargePeriodEnd": "2026-05-01T00:00:00Z"}
        rows = [
            _focus("Lambda", "744", "Hours", "17796.48", ResourceType="gpu_8x_h100_sxm5"),
            _focus("Lambda", "-100", "Hours", "-2392.00", ResourceType="gpu_8x_h100_sxm5") | april,
        ]
        path = _write_focus(tmp_path / "bill.csv", rows)
        out_file = tmp_path / "review.yaml"
        assert main(["bills", str(SAMPLE), "--scenario-out", str(out_file)]) == 0
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        capsys.readouterr()
        assert main(["bills", str(path), "--scenario-out", str(out_file)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"costmodel bills: {path}: H100-SXM-80GB rows, line 3, column ConsumedQuantity: ")
        assert err.endswith("(got '-800')\n")
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before

    def test_a_correction_inside_its_usage_period_nets_out(self, tmp_path, capsys):
        # the same -100 h in March: 644 h x 8 = 5,152 GPU-hours, 15,404.48 USD, 2.99 USD a GPU-hour
        rows = [
            _focus("Lambda", "744", "Hours", "17796.48", ResourceType="gpu_8x_h100_sxm5"),
            _focus("Lambda", "-100", "Hours", "-2392.00", ResourceType="gpu_8x_h100_sxm5"),
        ]
        out_file = tmp_path / "review.yaml"
        assert main(["bills", str(_write_focus(tmp_path / "bill.csv", rows)), "--scenario-out", str(out_file)]) == 0
        capsys.readouterr()
        data = yaml.safe_load(out_file.read_text(encoding="utf-8"))
        assert data["workload"]["gpu_hours_per_month"] == 5152
        assert data["offers"]["cloud_offers"][0]["price_per_gpu_hour"] == pytest.approx(15404.48 / 5152, rel=1e-11)

    def test_a_small_price_keeps_its_digits(self, tmp_path, capsys):
        # 0.01 USD for 744 h x 8 GPUs: 1.68010752688e-06 USD a GPU-hour; rounded at 12 decimals it was
        # 1.680108e-06, so today's bill option cost 2.8e-7 (relative) more than the bill
        out_file = tmp_path / "review.yaml"
        assert main(["bills", str(self._one_row(tmp_path, "0.01", "744")), "--scenario-out", str(out_file)]) == 0
        capsys.readouterr()
        price = yaml.safe_load(out_file.read_text(encoding="utf-8"))["offers"]["cloud_offers"][0]["price_per_gpu_hour"]
        assert price == pytest.approx(0.01 / 5952, rel=1e-11, abs=0)  # approx allows 1e-12 absolute by default

    @pytest.mark.parametrize("kind", ["folder", "fifo", "empty"])
    def test_an_output_that_is_not_a_file_is_refused_before_anything_is_written(self, tmp_path, capsys, kind):
        # F32 kind: a folder gave exit 1 ("cannot write ... Is a directory") after writing <folder>-demand.csv
        # beside it; a FIFO hung on open; an empty path was taken as no --scenario-out
        import os

        target = tmp_path / "out.yaml"
        if kind == "folder":
            target.mkdir()
        elif kind == "fifo":
            os.mkfifo(target)
        given = "" if kind == "empty" else str(target)
        before = sorted(tmp_path.iterdir())
        assert main(["bills", str(SAMPLE), "--scenario-out", given]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"costmodel bills: --scenario-out {given or repr('')}: ")
        assert sorted(tmp_path.iterdir()) == before

    def test_a_missing_folder_is_made(self, tmp_path, capsys):
        # it was exit 1, "cannot write new/sub/review-demand.csv: No such file or directory"
        out_file = tmp_path / "new" / "sub" / "review.yaml"
        assert main(["bills", str(SAMPLE), "--scenario-out", str(out_file)]) == 0
        capsys.readouterr()
        assert sorted(p.name for p in out_file.parent.iterdir()) == ["review-demand.csv", "review.yaml"]


@pytest.mark.parametrize("column", ["prompt_tokens", "completion_tokens", "total_tokens"])
@pytest.mark.parametrize("text", ["-5", "1.5", "-1e3"])
def test_litellm_token_counts_are_whole_and_not_negative(tmp_path, capsys, column, text):
    # F14 kind (a negative volume reaches the output): prompt_tokens -5 over a 2-second log gave
    # tokens_per_day input '-216000' in --json, and 1.5 tokens were read as 1.5
    counts = {"prompt_tokens": "1000", "completion_tokens": "200", "total_tokens": "1200"} | {column: text}
    path = tmp_path / "spend.csv"
    path.write_text(
        "model,prompt_tokens,completion_tokens,total_tokens,spend,startTime,endTime\n"
        f"m,{counts['prompt_tokens']},{counts['completion_tokens']},{counts['total_tokens']},0.0045,"
        "2026-03-01T10:00:00Z,2026-03-01T10:00:02Z\n"
    )
    assert main(["bills", str(path), "--json"]) == 2
    assert capsys.readouterr().err == (
        f"costmodel bills: {path}: line 2, column {column}: not a whole number of tokens of at least 0 (got {text!r})\n"
    )


@pytest.mark.parametrize("kind", ["fifo", "folder", "latin-1"])
def test_a_bill_that_is_not_a_readable_text_file_is_refused_before_reading(tmp_path, capsys, kind):
    # F32/F6 kind (an input that cannot be read): a FIFO (or /dev/zero) was read for ever; a folder said
    # "[Errno 21] Is a directory: 'd'"; Latin-1 bytes gave the codec's message
    import os

    path = tmp_path / "bill.csv"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"BilledCost,ChargePeriodStart\n\xe9,1\n")
    expected = {
        "fifo": "is not a regular file (a pipe, a device or a socket): give a file (got 'bill.csv')",
        "folder": "is a folder, not a file (got 'bill.csv')",
        "latin-1": "not UTF-8 text: byte 0xe9 at offset 29 (got b't,ChargePeriodStart\\n\\xe9,1\\n')",
    }[kind]
    assert main(["bills", str(path)]) == 2
    assert capsys.readouterr().err == f"costmodel bills: {path}: (file): {expected}\n"


class TestSkeletonPeriods:
    """``--scenario-out`` from GPU rows whose charge periods are empty, too long, or span several months."""

    @staticmethod
    def _rows(tmp_path: Path, *periods: tuple[str, str]) -> Path:
        """One Lambda 8 x H100 row of 744 hours (5,952 GPU-hours, 17,796.48 USD) per charge period, from line 2."""
        rows = [
            _focus("Lambda", "744", "Hours", "17796.48", ResourceType="gpu_8x_h100_sxm5")
            | {"ChargePeriodStart": start, "ChargePeriodEnd": end}
            for start, end in periods
        ]
        return _write_focus(tmp_path / "bill.csv", rows)

    @pytest.mark.parametrize(
        "periods, line, words",
        [
            # F14 kind (NaN reaches an output): an empty period made an empty profile, 0 / 0 GPUs in every hour
            # of the demand file, refused at the temporary demand file's lines
            ([("2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z")], 2, "an empty charge period"),
            # a date typo (3026 for 2026): a profile of 8.8 million hours, 411 MB, one month's average
            ([("2026-03-01T00:00:00Z", "3026-03-01T00:00:00Z")], 2, "a charge period of 365,242 days"),
            (
                [("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"), ("3026-03-01T00:00:00Z", "3026-04-01T00:00:00Z")],
                3,
                "the H100-SXM-80GB rows run from 2026-03-01 (line 2) to 3026-04-01: more than ten years",
            ),
        ],
    )
    def test_refused_at_the_row_and_nothing_written(self, tmp_path, capsys, periods, line, words):
        path = self._rows(tmp_path, *periods)
        assert main(["bills", str(path), "--scenario-out", str(tmp_path / "review.yaml")]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"costmodel bills: {path}: H100-SXM-80GB rows, line {line}, column ChargePeriodEnd: ")
        assert words in err
        assert sorted(tmp_path.iterdir()) == [path]

    def test_a_row_over_two_months_is_averaged_over_both(self, tmp_path, capsys):
        # 5,952 GPU-hours from 1 March to 1 May are 2,976 a month; the months were counted by the rows'
        # starts, so the workload read 5,952 a month "over 1 month", and today's bill option doubled the spend
        out_file = tmp_path / "review.yaml"
        path = self._rows(tmp_path, ("2026-03-01T00:00:00Z", "2026-05-01T00:00:00Z"))
        assert main(["bills", str(path), "--scenario-out", str(out_file)]) == 0
        capsys.readouterr()
        data = yaml.safe_load(out_file.read_text(encoding="utf-8"))
        assert data["workload"]["gpu_hours_per_month"] == 2976
        assert "over 2 months" in data["description"]


def test_a_json_nested_too_deep_is_refused_in_one_line(tmp_path, capsys):
    # F6 kind: 100,000 nested lists were a RecursionError traceback from json.loads
    path = tmp_path / "spend.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["bills", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"costmodel bills: {path}: (file): nested too deep to read: a spend log is a list of flat objects "
        "(column: value) (got 'spend.json')\n"
    )


def test_a_name_with_a_line_break_or_an_escape_stays_on_its_line(tmp_path, capsys):
    # F1 kind (text shown as written, nothing live): a ProviderName 'Lam<ESC>[2Jbda<LF>Fake total: 0 USD' broke its
    # row of the spend table in two (the second line reading as the bill's own), and reached the skeleton's
    # offer provider with the line break and the escape
    rows = [
        _focus("Lam\x1b[2Jbda\nFake total: 0 USD", "744", "Hours", "17796.48", ResourceType="gpu_8x_h100_sxm5")
        | {"ServiceName": "GPU\tCloud"}
    ]
    path = _write_focus(tmp_path / "bill.csv", rows)
    out_file = tmp_path / "review.yaml"
    assert main(["bills", str(path), "--scenario-out", str(out_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("2026-03  Lam [2Jbda Fake total: 0 USD GPU Cloud ")
    assert not any(line.startswith("Fake") for line in lines)
    data = yaml.safe_load(out_file.read_text(encoding="utf-8"))
    assert data["offers"]["cloud_offers"][0]["provider"] == "Lam [2Jbda Fake total: 0 USD"


@pytest.mark.parametrize(
    "name, data, reason",
    [
        # F6 kind: a gzip export cut short (a download interrupted) was an EOFError traceback
        ("cut.csv.gz", None, "not a whole gzip file: Compressed file ended before the end-of-stream marker"),
        ("junk.csv.gz", b"\x1f\x8bjunk", "not a whole gzip file: "),
        # pyarrow's message came without the file's place in the tool's words
        ("junk.parquet", b"PAR1junk", "not a Parquet file: "),
    ],
)
def test_a_cut_or_corrupt_compressed_bill_is_refused_in_one_line(tmp_path, capsys, name, data, reason):
    import gzip

    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow.parquet")
    path = tmp_path / name
    path.write_bytes(data if data is not None else gzip.compress(SAMPLE.read_bytes())[:300])
    assert main(["bills", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"costmodel bills: {path}: (file): {reason}") and err.endswith(f"(got {name!r})\n")


@pytest.mark.parametrize("out_name", ["bill.csv", "bill.yaml"])
def test_the_skeleton_is_never_written_over_the_bill(tmp_path, capsys, out_name):
    # the same file given twice: `bills bill.csv --scenario-out bill.csv` replaced the bill with the scenario,
    # and `bills bill-demand.csv --scenario-out bill.yaml` with the demand file
    source = tmp_path / ("bill.csv" if out_name == "bill.csv" else "bill-demand.csv")
    source.write_bytes(SAMPLE.read_bytes())
    assert main(["bills", str(source), "--scenario-out", str(tmp_path / out_name)]) == 2
    assert capsys.readouterr().err.endswith(f"is the bill being read ({source}): give another file\n")
    assert source.read_bytes() == SAMPLE.read_bytes() and sorted(tmp_path.iterdir()) == [source]

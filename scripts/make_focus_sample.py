"""Write data/bills/focus_sample.csv: a small, deterministic FOCUS 1.2 export (no real account data).

Two months (2026-01, 2026-02), two GPU providers whose instance types the bundled catalog rents
(Lambda gpu_8x_h100_sxm5, Nebius gpu-h100-sxm_8gpu-128vcpu-1600gb, priced at the catalog's
on-demand price per GPU-hour), GPU instances of AWS (p5.48xlarge, g6e.xlarge), Google Cloud
(a3-highgpu-8g) and Azure (Standard_ND96isr_H100_v5) named the way their FOCUS exports name them
(data/instance_types.csv knows them), a CPU instance the reader lists as unknown, plus storage,
network egress, support and an AI service billed in tokens. Columns: FOCUS 1.2 section 3 and the
providers' x_ columns (see data/bills/README.md).

Run: python scripts/make_focus_sample.py
"""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "bills" / "focus_sample.csv"
COLUMNS = [
    "BillingAccountId", "BillingCurrency", "BillingPeriodStart", "BillingPeriodEnd",
    "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ChargeFrequency", "ChargeDescription",
    "BilledCost", "EffectiveCost", "ListCost", "ContractedCost",
    "ProviderName", "PublisherName", "InvoiceIssuerName", "ServiceCategory", "ServiceName",
    "ResourceId", "ResourceName", "ResourceType", "RegionId", "SkuId", "SkuPriceId",
    "ConsumedQuantity", "ConsumedUnit", "PricingQuantity", "PricingUnit", "x_Model",
    "x_UsageType", "x_SkuMeterName", "x_SkuDetails",
]  # fmt: skip
MONTHS = [("2026-01-01", "2026-02-01", 31), ("2026-02-01", "2026-03-01", 28)]


def _row(month, **values) -> dict:
    start, end, _ = month
    row = dict.fromkeys(COLUMNS, "")
    row.update(
        BillingAccountId="sample-0001",
        BillingCurrency="USD",
        BillingPeriodStart=f"{start}T00:00:00Z",
        BillingPeriodEnd=f"{end}T00:00:00Z",
        ChargePeriodStart=f"{start}T00:00:00Z",
        ChargePeriodEnd=f"{end}T00:00:00Z",
        ChargeCategory="Usage",
        ChargeFrequency="Usage-Based",
    )
    row.update({k: str(v) for k, v in values.items()})
    for cost in ("EffectiveCost", "ListCost", "ContractedCost"):
        row[cost] = row[cost] or row["BilledCost"]
    return row


def _gpu(month, provider, instance, price_per_gpu_hour, instance_hours, start_day=1, days=None) -> dict:
    start, end, length = month
    days = days or length
    period_start = f"{start[:8]}{start_day:02d}T00:00:00Z"
    period_end = (
        f"{end}T00:00:00Z" if start_day + days - 1 == length else f"{start[:8]}{start_day + days:02d}T00:00:00Z"
    )
    cost = (Decimal(price_per_gpu_hour) * 8 * instance_hours).quantize(Decimal("0.01"))
    row = _row(
        month,
        BilledCost=cost,
        ProviderName=provider,
        PublisherName=provider,
        InvoiceIssuerName=provider,
        ServiceCategory="Compute",
        ServiceName="GPU Cloud",
        ResourceId=f"{provider.lower()}-node-1",
        ResourceName=f"training node ({instance})",
        ResourceType=instance,
        SkuId=instance,
        SkuPriceId=f"{instance}-on-demand",
        ConsumedQuantity=instance_hours,
        ConsumedUnit="Hours",
        PricingQuantity=instance_hours,
        PricingUnit="Hours",
    )
    row["ChargePeriodStart"], row["ChargePeriodEnd"] = period_start, period_end
    return row


def _period(month, start_day, days) -> tuple[str, str]:
    """ChargePeriodStart and End of ``days`` whole days from ``start_day`` of the month."""
    start, end, length = month
    period_end = (
        f"{end}T00:00:00Z" if start_day + days - 1 == length else f"{start[:8]}{start_day + days:02d}T00:00:00Z"
    )
    return f"{start[:8]}{start_day:02d}T00:00:00Z", period_end


def _instance(month, provider, price_per_hour, hours, start_day, days, unit, **values) -> dict:
    """A compute usage row of ``hours`` instance-hours at ``price_per_hour`` per instance-hour."""
    cost = (Decimal(price_per_hour) * hours).quantize(Decimal("0.01"))
    row = _row(month, BilledCost=cost, ProviderName=provider, PublisherName=provider, InvoiceIssuerName=provider,
               ServiceCategory="Compute", ConsumedQuantity=hours, ConsumedUnit=unit, PricingQuantity=hours,
               PricingUnit=unit, **values)  # fmt: skip
    row["ChargePeriodStart"], row["ChargePeriodEnd"] = _period(month, start_day, days)
    return row


def _clouds(month) -> list[dict]:
    """AWS, Google Cloud and Azure instance rows of one month, named as each cloud's FOCUS export names them."""
    length = month[2]
    return [
        # AWS: the instance type in the usage type and the line item description (CUR 2.0 FOCUS export);
        # 98.32 and 1.861 USD per instance-hour: SkyPilot catalog v7 aws vms.csv, us-east-1 on-demand
        _instance(month, "AWS", "98.32", 96, 10, 4, "Hrs", ServiceName="Amazon Elastic Compute Cloud",
                  ResourceId="i-0sample00000000p5", RegionId="us-east-1", SkuId="SAMPLEAWSP548XL",
                  SkuPriceId="SAMPLEAWSP548XL.JRTCKXETXF", x_UsageType="USE1-BoxUsage:p5.48xlarge",
                  ChargeDescription="$98.32 per On Demand Linux p5.48xlarge Instance Hour"),
        _instance(month, "AWS", "1.861", 24 * length, 1, length, "Hrs", ServiceName="Amazon Elastic Compute Cloud",
                  ResourceId="i-0sample0000000g6e", RegionId="us-east-1", SkuId="SAMPLEAWSG6EXL",
                  x_UsageType="USE1-BoxUsage:g6e.xlarge",
                  ChargeDescription="$1.861 per On Demand Linux g6e.xlarge Instance Hour"),
        # a CPU head node: no GPU instance type, listed as unknown; 0.23184: SkyPilot m7a.xlarge us-east-1
        _instance(month, "AWS", "0.23184", 24 * length, 1, length, "Hrs", ServiceName="Amazon Elastic Compute Cloud",
                  ResourceId="i-0sample000000head", RegionId="us-east-1", SkuId="SAMPLEAWSM7AXL",
                  x_UsageType="USE1-BoxUsage:m7a.xlarge",
                  ChargeDescription="$0.23184 per On Demand Linux m7a.xlarge Instance Hour"),
        # Google Cloud: the machine type inside the SKU description; 88.00 is the sample's own rate
        _instance(month, "Google Cloud", "88.00", 120, 15, 5, "hour", ServiceName="Compute Engine",
                  ResourceId="projects/sample/zones/us-central1-a/instances/trainer-a3", RegionId="us-central1",
                  ResourceType="compute.googleapis.com/Instance", SkuId="SAMPLE-GCP-A3HIGH8G",
                  ChargeDescription="Compute Engine a3-highgpu-8g running in Americas"),
        # Azure: the meter name and the size in x_SkuDetails; 98.32: SkyPilot v6 azure vms.csv, eastus
        _instance(month, "Microsoft", "98.32", 72, 20, 3, "Hours", ServiceName="Virtual Machines",
                  ResourceId="/subscriptions/sample/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/nd1",
                  ResourceType="Virtual machine", RegionId="eastus", SkuId="SAMPLE-AZ-ND96ISR",
                  x_SkuMeterName="ND96isr H100 v5", x_SkuDetails='{"ServiceType": "Standard_ND96isr_H100_v5"}'),
    ]  # fmt: skip


def rows() -> list[dict]:
    out = []
    for month in MONTHS:
        length = month[2]
        # Lambda: one 8x H100 node all month; Nebius: one 8x H100 node for 10 days
        out.append(_gpu(month, "Lambda", "gpu_8x_h100_sxm5", "2.99", 24 * length))
        out.append(_gpu(month, "Nebius", "gpu-h100-sxm_8gpu-128vcpu-1600gb", "2.95", 240, start_day=5, days=10))
        out.extend(_clouds(month))
        out.append(_row(month, BilledCost="230.00", ProviderName="Lambda", PublisherName="Lambda",
                        InvoiceIssuerName="Lambda", ServiceCategory="Storage", ServiceName="Persistent Filesystem",
                        SkuId="filesystem-gb-month", ConsumedQuantity=1000, ConsumedUnit="GB-Mo",
                        PricingQuantity=1000, PricingUnit="GB-Mo"))  # fmt: skip
        out.append(_row(month, BilledCost="45.37", ProviderName="Nebius", PublisherName="Nebius",
                        InvoiceIssuerName="Nebius", ServiceCategory="Networking", ServiceName="Egress",
                        SkuId="egress-internet", ConsumedQuantity="453.7", ConsumedUnit="GB",
                        PricingQuantity="453.7", PricingUnit="GB"))  # fmt: skip
        out.append(_row(month, BilledCost="500.00", ChargeCategory="Purchase", ChargeFrequency="Recurring",
                        ProviderName="Lambda", PublisherName="Lambda", InvoiceIssuerName="Lambda",
                        ServiceCategory="Management and Governance", ServiceName="Support",
                        SkuId="support-business"))  # fmt: skip
        for direction, tokens, price in (("input", 120_000_000, "3.00"), ("output", 30_000_000, "15.00")):
            cost = (Decimal(tokens) / 1_000_000 * Decimal(price)).quantize(Decimal("0.01"))
            out.append(_row(month, BilledCost=cost, ProviderName="Anthropic", PublisherName="Anthropic",
                            InvoiceIssuerName="Anthropic", ServiceCategory="AI and Machine Learning",
                            ServiceName="Claude API", SkuId=f"claude-sonnet-4-{direction}-tokens",
                            ConsumedQuantity=tokens, ConsumedUnit="Tokens", PricingQuantity=tokens / 1_000_000,
                            PricingUnit="1M Tokens", x_Model="claude-sonnet-4"))  # fmt: skip
    return out


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows())


if __name__ == "__main__":
    main()

"""A bill as the starting point: spend per month, provider and service, GPU-hours by the hour, tokens by model.

GPU rows are compute usage rows that name a known GPU instance type: the ``instance_type`` of a
rental offer in the catalog (data/cloud_prices.csv, from SkyPilot's catalogs), or of an AWS,
Google Cloud or Azure instance type in data/instance_types.csv (scripts/refresh_instance_types.py).
The instance type is looked for in the row's ResourceType, SkuId, SkuPriceId, ResourceName,
ChargeDescription, Tags and x_ columns, as a whole word of the text: ``BoxUsage:p5.48xlarge`` (an
AWS usage type), ``Standard_ND96isr_H100_v5`` or the meter name ``ND96isr H100 v5`` (Azure, any
case), ``a3-highgpu-8g`` inside a description (Google Cloud); ServiceCategory "AI and Machine Learning"
rows count too when they name one (SageMaker's ``ml.p4d.24xlarge``). GPU-hours = instance hours
(ConsumedQuantity in hours: ``Hours``, ``Hrs``, ``h``; ``10 Hours`` counts ten per unit) × GPUs per
instance, spread evenly over the row's charge period. Compute rows naming no known instance type,
several, or a quantity not in hours are listed with their line and cost, not guessed.

References
----------
FinOps Foundation, *FOCUS* 1.2, section 3 "Column definitions": https://focus.finops.org/
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np

from .catalog import Catalog, default_catalog, gcp_gpu_skus, instance_types
from .io.bills import BillFormat, BillRow, read_bill

CENT = Decimal("0.01")


@dataclass(frozen=True)
class GPUUse:
    """GPU-hours of one bill row. [GPU-h]"""

    line: int
    provider: str
    instance_type: str
    gpu: str
    gpus_per_instance: int
    instance_hours: Decimal
    start: dt.datetime
    end: dt.datetime
    effective_cost: Decimal
    offer: str | None = None

    @property
    def gpu_hours(self) -> Decimal:
        """Instance hours × GPUs per instance. [GPU-h]"""
        return self.instance_hours * self.gpus_per_instance


def _plain(amount: Decimal) -> str:
    """An exact decimal as a string in plain notation: every digit it has, no exponent."""
    return format(amount, "f")


@dataclass
class BillSummary:
    """What a bill says: spend by month, provider and service; GPU use; tokens; unknown compute rows."""

    format: BillFormat
    currency: str
    spend: dict[tuple[str, str, str], tuple[Decimal, Decimal]]
    gpu_uses: list[GPUUse] = field(default_factory=list)
    tokens: dict[str, dict[str, Decimal]] = field(default_factory=dict)
    unknown: list[tuple[int, str, Decimal]] = field(default_factory=list)
    not_demand: list[tuple[int, str, Decimal]] = field(default_factory=list)
    days: Decimal = Decimal(0)

    def totals(self, by: str = "month") -> dict[str, Decimal]:
        """BilledCost summed by ``month`` or ``provider``, exact. [currency]"""
        index = {"month": 0, "provider": 1}[by]
        out: dict[str, Decimal] = defaultdict(Decimal)
        for key, (billed, _) in self.spend.items():
            out[key[index]] += billed
        return dict(out)

    def gpu_spend_by_month(self) -> dict[str, Decimal]:
        """EffectiveCost of the GPU rows by month of their charge start. [currency]"""
        out: dict[str, Decimal] = defaultdict(Decimal)
        for use in self.gpu_uses:
            out[use.start.strftime("%Y-%m")] += use.effective_cost
        return dict(out)

    def to_json(self) -> dict:
        """A machine-readable form: money as strings of exact decimals, in plain notation (``0.00000000000``, not
        ``0E-11``: every reader of decimals takes it)."""
        return {
            "format": self.format,
            "currency": self.currency,
            "spend": [
                {"month": m, "provider": p, "service": s, "billed_cost": _plain(b), "effective_cost": _plain(e)}
                for (m, p, s), (b, e) in sorted(self.spend.items())
            ],
            "totals_by_month": {k: _plain(v) for k, v in sorted(self.totals("month").items())},
            "totals_by_provider": {k: _plain(v) for k, v in sorted(self.totals("provider").items())},
            "gpu_hours": [
                {
                    "line": u.line,
                    "provider": u.provider,
                    "instance_type": u.instance_type,
                    "gpu": u.gpu,
                    "gpu_hours": _plain(u.gpu_hours),
                }
                for u in self.gpu_uses
            ],
            "tokens_per_day": {
                model: {k: _plain((v / self.days).quantize(Decimal(1))) for k, v in split.items()}
                for model, split in self.tokens.items()
            }
            if self.days
            else {},
            "unknown_compute": [
                {"line": line, "name": name, "billed_cost": _plain(cost)} for line, name, cost in self.unknown
            ],
            "compute_spend_not_demand": [
                {"line": line, "name": name, "billed_cost": _plain(cost)} for line, name, cost in self.not_demand
            ],
        }


@dataclass(frozen=True)
class GPUInstance:
    """A GPU instance type a bill may name, with its GPU; ``offer``: the catalog rental offer of it, if any."""

    instance_type: str
    provider: str
    gpu: str
    gpus_per_instance: int
    offer: str | None = None


def known_instances(catalog: Catalog | None = None) -> dict[str, GPUInstance]:
    """Instance type (case-folded) → the GPU instance it names.

    The catalog's rental offers come first (their instance types, e.g. Lambda's
    ``gpu_8x_h100_sxm5``), then the AWS, Google Cloud and Azure instance types of
    data/instance_types.csv.

    Parameters
    ----------
    catalog
        Catalog whose rental offers name instance types; default: the bundled one.
    """
    found: dict[str, GPUInstance] = {}
    for offer in (catalog or default_catalog()).cloud_offers.values():
        if offer.instance_type and offer.gpus_per_instance:
            found.setdefault(
                offer.instance_type.casefold(),
                GPUInstance(offer.instance_type, offer.provider, offer.gpu, offer.gpus_per_instance, offer.offer),
            )
    for row in instance_types().values():
        found.setdefault(
            row.instance_type.casefold(), GPUInstance(row.instance_type, row.provider, row.gpu, row.gpus_per_instance)
        )
    return found


def _spellings(name: str) -> tuple[str, ...]:
    """The ways a bill writes an instance type (case-folded): as it is, and for Azure's ``Standard_``
    sizes without the prefix and with spaces for underscores (its meter name, ``ND96isr H100 v5``)."""
    key = name.casefold()
    if not key.startswith("standard_"):
        return (key,)
    bare = key.removeprefix("standard_")
    return (key, bare, bare.replace("_", " "))


def instance_pattern(known: dict[str, GPUInstance]) -> re.Pattern[str]:
    """A pattern finding any known instance type as a whole word of a case-folded text.

    A word ends at a character that is neither a letter nor a digit, so ``p5.48xlarge`` is found in
    ``usw2-boxusage:p5.48xlarge`` and ``g2-standard-4`` is not found in ``g2-standard-48``.
    """
    spellings = sorted({s for key in known for s in _spellings(key)}, key=len, reverse=True)
    return re.compile(r"(?<![0-9a-z])(" + "|".join(map(re.escape, spellings)) + r")(?![0-9a-z])")


def _bare_key(spelling: str, known: dict[str, GPUInstance]) -> str:
    """The key of ``known`` that a spelling found by :func:`instance_pattern` stands for."""
    if spelling in known:
        return spelling
    return "standard_" + spelling.replace(" ", "_")


class InstanceFinder:
    """Finds the known GPU instance types a bill row names; each distinct text is searched once (a bill
    repeats its usage types and SKUs on many rows).

    Parameters
    ----------
    known
        Instance type (case-folded) → instance, as :func:`known_instances` gives.
    """

    def __init__(self, known: dict[str, GPUInstance]):
        self.known = known
        self.pattern = instance_pattern(known)
        self._texts: dict[str, tuple[GPUInstance, ...]] = {}

    def in_text(self, text: str) -> tuple[GPUInstance, ...]:
        """The known instance types named in one text, in the order found."""
        found = self._texts.get(text)
        if found is None:
            matches = (self.known[_bare_key(m.group(1), self.known)] for m in self.pattern.finditer(text.casefold()))
            found = self._texts[text] = tuple(dict.fromkeys(matches))
        return found

    def in_row(self, names: tuple[str, ...]) -> list[GPUInstance]:
        """The distinct known instance types named in a row's texts, in the order found."""
        return list(dict.fromkeys(instance for text in names for instance in self.in_text(text)))


_HOURS = re.compile(r"^\s*(?:(\d+(?:\.\d+)?)\s*)?(?:hours?|hrs?|h)\s*$", re.IGNORECASE)
"""A ConsumedUnit in hours: ``Hours``, ``Hour``, ``Hrs``, ``hr``, ``h``, with an optional count (``10 Hours``)."""


def hours_per_unit(unit: str) -> Decimal | None:
    """Hours in one unit of a ConsumedUnit (``Hrs`` → 1, ``10 Hours`` → 10), or None when not hours. [h]

    Examples
    --------
    >>> hours_per_unit("Hrs"), hours_per_unit("10 Hours"), hours_per_unit("GB-Hours")
    (Decimal('1'), Decimal('10'), None)
    """
    match = _HOURS.match(unit)
    if match is None:
        return None
    return Decimal(match.group(1)) if match.group(1) else Decimal(1)


AWS_RUNTIME_USAGE = frozenset({"boxusage", "spotusage", "dedicatedusage", "hostusage", "train", "host", "notebook"})
"""AWS usage-type kinds (before ``:instance``) that are instance runtime: on-demand, reserved and
savings-plan covered (``BoxUsage``; CUR line item types DiscountedUsage and SavingsPlanCoveredUsage
keep it), Spot, Dedicated instances and hosts, and SageMaker's training, hosting and notebook
instances. Others are not: ``EBSOptimized``, ``HeavyUsage`` reservation fees, and ``UnusedBox``
(reserved hours paid but not used: spend, not demand).

References
----------
AWS, *Cost and Usage Report* data dictionary, "lineItem/UsageType" and "lineItem/LineItemType":
https://docs.aws.amazon.com/cur/latest/userguide/
"""

_USAGE_KIND = re.compile(r"([A-Za-z]+):([A-Za-z0-9][\w.\-]*)")
"""An AWS usage type's kind and what follows (``USE1-EBSOptimized:p5.48xlarge``)."""

_GPU_SKU = re.compile(r"^(?:(?:spot\s+)?preemptible\s+|commitment\s+v\d+:\s*)?nvidia\s+(.+?)\s+gpu\b", re.IGNORECASE)
"""A Google Cloud GPU SKU description (``Spot Preemptible Nvidia H100 80GB GPU running in Americas``)."""

_VM_PART = re.compile(r"\binstance\s+(?:core|ram)\b", re.IGNORECASE)
"""A Google Cloud VM's cores or memory SKU (``A3 Instance Core running in Americas``)."""


_EBS_BANDWIDTH = re.compile(r"\bMbps per\b", re.IGNORECASE)
"""An AWS EBS-optimized line item description (``$0.00 for 1000 Mbps per p5.48xlarge instance-hour``):
hourly, naming the instance, but bandwidth, not runtime; an export without ``x_UsageType`` (AWS's
FOCUS 1.2 export) tells it only by this."""


def _runtime_problem(row: BillRow, finder: InstanceFinder) -> str | None:
    """Why a row naming an instance type is not its runtime (an AWS usage type of another kind, an
    EBS-optimized bandwidth description), or None."""
    if any(_EBS_BANDWIDTH.search(text) for text in row.names):
        return "EBS-optimized bandwidth, not instance runtime"
    for text in row.names:
        for match in _USAGE_KIND.finditer(text):
            kind = match.group(1).casefold()
            if finder.in_text(match.group(2)) and kind not in AWS_RUNTIME_USAGE:
                return f"usage type {match.group(0)!r} is not instance runtime"
    return None


def _gpu_sku_use(row: BillRow, skus: dict[str, str]) -> GPUUse | str | None:
    """The GPU-hours of a Google Cloud GPU SKU row (one GPU for one hour per hour unit), what it names
    and why it is not counted, or None when the row is not a GPU SKU."""
    for text in row.names:
        match = _GPU_SKU.match(text)
        if match is None:
            continue
        gpu = skus.get(match.group(1).casefold())
        if gpu is None:
            return f"{text} (GPU {match.group(1)!r} not in data/gcp_gpu_skus.csv)"
        per_unit = hours_per_unit(row.consumed_unit)
        if per_unit is None or row.consumed_quantity is None:
            return f"{text} (ConsumedUnit {row.consumed_unit!r} is not hours)"
        quantity = row.consumed_quantity * per_unit
        return GPUUse(row.line, row.provider, text, gpu, 1, quantity, row.start, row.end, row.effective_cost)
    return None


def _gpu_use(row: BillRow, finder: InstanceFinder) -> GPUUse | str:
    """The GPU use of a compute row, or what it names and why it is not counted."""
    names = ", ".join(row.names) or "(no instance type)"
    found = finder.in_row(row.names)
    problem = _runtime_problem(row, finder) if found else None
    if problem is not None:
        return f"{names} ({problem})"
    if len(found) != 1:
        return (
            names
            if not found
            else f"{names} (names several instance types: {', '.join(i.instance_type for i in found)})"
        )
    instance = found[0]
    per_unit = hours_per_unit(row.consumed_unit)
    if per_unit is None or row.consumed_quantity is None:
        return f"{names} (ConsumedUnit {row.consumed_unit!r} is not hours)"
    return GPUUse(
        row.line,
        row.provider,
        instance.instance_type,
        instance.gpu,
        instance.gpus_per_instance,
        row.consumed_quantity * per_unit,
        row.start,
        row.end,
        row.effective_cost,
        instance.offer,
    )


def _drop_counted_by_gpu_skus(summary: BillSummary, machine_uses: list[tuple[GPUUse, Decimal]]) -> None:
    """Add the machine-type GPU uses to a summary, except those of a provider whose GPUs the bill
    already counts by GPU SKU rows (Google Cloud): those rows are spend, not demand, so a VM is not
    counted twice (once by its machine type, once by its GPU SKU)."""
    by_sku = {use.provider for use in summary.gpu_uses}
    for use, billed in machine_uses:
        if use.provider in by_sku:
            name = f"{use.instance_type} (GPUs counted by the provider's GPU SKU rows)"
            summary.not_demand.append((use.line, name, billed))
        else:
            summary.gpu_uses.append(use)
    summary.gpu_uses.sort(key=lambda use: use.line)


def summarise(rows: list[BillRow], fmt: BillFormat, catalog: Catalog | None = None) -> BillSummary:
    """Spend, GPU-hours and tokens of a bill's rows.

    Parameters
    ----------
    rows
        Rows read by :func:`costmodel.io.bills.read_bill`.
    fmt
        Format they were read from.
    catalog
        Catalog whose rental offers name the instance types; default: the bundled one.
    """
    finder = InstanceFinder(known_instances(catalog))
    skus = {name.casefold(): row.gpu for name, row in gcp_gpu_skus().items()}
    machine_uses: list[tuple[GPUUse, Decimal]] = []
    spend: dict[tuple[str, str, str], tuple[Decimal, Decimal]] = {}
    summary = BillSummary(fmt, rows[0].currency if rows else "USD", spend)
    for row in rows:
        key = (row.start.strftime("%Y-%m"), row.provider, row.service)
        billed, effective = spend.get(key, (Decimal(0), Decimal(0)))
        spend[key] = (billed + row.billed_cost, effective + row.effective_cost)
        if "token" in row.consumed_unit.casefold():
            split = summary.tokens.setdefault(row.model or row.service, defaultdict(Decimal))
            if row.input_tokens is None and row.output_tokens is None:
                split["total"] += row.consumed_quantity or Decimal(0)
            else:
                split["input"] += row.input_tokens or Decimal(0)
                split["output"] += row.output_tokens or Decimal(0)
            continue
        if row.charge_category not in ("Usage", ""):
            continue
        if row.service_category not in ("Compute", "AI and Machine Learning"):
            continue
        sku_use = _gpu_sku_use(row, skus)
        if isinstance(sku_use, GPUUse):
            summary.gpu_uses.append(sku_use)
            continue
        if isinstance(sku_use, str):
            summary.unknown.append((row.line, sku_use, row.billed_cost))
            continue
        if any(_VM_PART.search(text) for text in row.names):
            summary.not_demand.append((row.line, ", ".join(row.names), row.billed_cost))
            continue
        # managed training and serving (SageMaker ml.p5.48xlarge, Azure ML, Vertex AI) rent named instances
        if row.service_category != "Compute" and not finder.in_row(row.names):
            continue
        if row.consumed_unit and hours_per_unit(row.consumed_unit) is None and not finder.in_row(row.names):
            continue  # a compute row in GB, requests, ... naming no instance is spend, not instance time
        use = _gpu_use(row, finder)
        if isinstance(use, str):
            summary.unknown.append((row.line, use, row.billed_cost))
        else:
            machine_uses.append((use, row.billed_cost))
    _drop_counted_by_gpu_skus(summary, machine_uses)
    if rows:
        first, last = min(r.start for r in rows), max(r.end for r in rows)
        summary.days = Decimal((last - first).total_seconds()) / Decimal(86400)
    return summary


def hourly_gpu_demand(uses: list[GPUUse], start: dt.datetime, hours: int) -> np.ndarray:
    """GPUs busy in each hour from ``start``: each row's GPU-hours spread evenly over its charge period. [GPU]

    Parameters
    ----------
    uses
        GPU rows. [GPU-h]
    start
        First hour of the profile (UTC).
    hours
        Hours in the profile. [h]
    """
    from .io.demand_files import hourly_from_intervals

    if not uses:
        return np.zeros(hours)
    starts = np.array([(u.start - start).total_seconds() / 3600 for u in uses])
    ends = np.array([(u.end - start).total_seconds() / 3600 for u in uses])
    spans = np.maximum(ends - starts, 1e-9)
    gpus = np.array([float(u.gpu_hours) for u in uses]) / spans
    return hourly_from_intervals(starts, ends, gpus, hours)


def _scenario_relative(path: Path, out: Path) -> str:
    """The path as the scenario file ``out`` names it: relative to that file's folder, where the loader reads a
    relative ``demand.path`` first (:func:`costmodel.scenarios.demand_folder`), so that the pair still runs
    when moved together; absolute where no relative path joins them (another drive)."""
    try:
        return Path(os.path.relpath(path.resolve(), out.resolve().parent)).as_posix()
    except ValueError:  # on Windows, a file on another drive has no path relative to the folder
        return str(path.resolve())


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")[:30]


def scenario_skeleton(
    summary: BillSummary, out: Path, source: str, check: Callable[[Path], object] | None = None
) -> dict:
    """Write a scenario (YAML) that starts from the bill, with its hourly GPU demand beside it.

    The workload is the bill's average GPU-hours per month of its most used GPU; the baseline
    is a rent option billed per GPU-hour used at the bill's effective price per GPU-hour (an
    inline offer, ``offers.cloud_offers``), so its monthly cost is the bill's average monthly GPU
    spend. The catalog offers that named the bill's instance types are compared beside it. The
    hourly profile (8,760 values) repeats the bill's hours in order to fill the year, scaled so
    its monthly average is the bill's.

    Both files are written aside and renamed into place only once ``check`` has read the scenario
    back, so a refused bill leaves no file behind and an earlier skeleton as it was.

    Parameters
    ----------
    summary
        The bill read.
    out
        The scenario file to write; the demand file goes beside it (``<stem>-demand.csv``).
    source
        The bill's name, for the scenario's title and sources.
    check
        Reads a scenario file and raises :class:`~costmodel.errors.InputError` when it is not
        valid (:func:`costmodel.load_scenario`, which this layer may not import); None: no check.

    Returns
    -------
    dict
        The scenario written.

    Raises
    ------
    ValueError
        The bill has no GPU rows.
    InputError
        The bill gives no baseline: a row of its most used GPU has an empty charge period or one
        longer than a year, the rows span more than ten years, or they hold no GPU-hours
        (a quantity of 0), leave an hour with fewer than 0 GPUs busy (a negative quantity), or
        give a price per GPU-hour outside the figures a scenario may hold (1e-9 to 1e15).
    """
    import yaml

    if not summary.gpu_uses:
        raise ValueError("the bill has no GPU instance rows the catalog knows: no GPU demand to start from")
    by_gpu: dict[str, Decimal] = defaultdict(Decimal)
    for use in summary.gpu_uses:
        by_gpu[use.gpu] += use.gpu_hours
    gpu = max(by_gpu, key=lambda g: by_gpu[g])
    uses = [u for u in summary.gpu_uses if u.gpu == gpu]
    gpu_hours = sum((u.gpu_hours for u in uses), Decimal(0))
    cost = sum((u.effective_cost for u in uses), Decimal(0))
    _check_periods(uses, gpu)
    months = len(_months_covered(uses))
    first = min(u.start for u in uses).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    last = max(u.end for u in uses)
    observed = int(np.ceil((last - first).total_seconds() / 3600))
    profile = hourly_gpu_demand(uses, first, observed)
    _check_baseline(uses, gpu, gpu_hours, cost, summary.currency, profile)
    monthly = float(gpu_hours) / months
    year = np.resize(profile, 8760)
    # a whole number of repeats rarely fits a year: scale so the year's monthly average is the bill's
    year = year * (monthly * 12 / year.sum())
    demand_path = out.with_name(out.stem + "-demand.csv")
    demand_text = "gpus\n" + "".join(f"{value:.12g}\n" for value in year)
    price = float(cost / gpu_hours)
    offer_id = f"bill-{_slug(gpu)}"
    # the baseline's offer is where the bill's GPU-hours were bought, so its label reads
    # "Today's bill: H100-SXM-80GB at AWS and Lambda, ..."
    billed_by = sorted({u.provider for u in uses})
    provider = billed_by[0] if len(billed_by) == 1 else f"{', '.join(billed_by[:-1])} and {billed_by[-1]}"
    scenario = {
        "title": f"Bill review: {gpu} GPU-hours from {source}",
        "description": (
            f"Starts from the bill {source}: {float(gpu_hours):,.0f} {gpu} GPU-hours over {months} "
            f"{'month' if months == 1 else 'months'} at an effective {price:.4f} {summary.currency} per GPU-hour, "
            "against renting the same hours from the catalog's other providers; add an own or an api option to "
            "weigh owning or a hosted API too."
        ),
        "reporting_currency": summary.currency,
        "workload": {
            "kind": "gpu_hours",
            "gpu": gpu,
            "gpu_hours_per_month": monthly,
        },
        "demand": {
            "kind": "hourly_file",
            "path": _scenario_relative(demand_path, out),
            "source": f"{source}: GPU-hours per row spread over its charge period; the bill's hours repeated "
            "over the year, scaled to the bill's monthly average",
        },
        "offers": {
            "cloud_offers": [
                {
                    "offer": offer_id,
                    "provider": provider,
                    "gpu": gpu,
                    "pricing": "on_demand",
                    # 12 decimals, and at least 13 significant digits below 1 (1.68010752688e-06, not 1.680108e-06)
                    "price_per_gpu_hour": round(price, max(12, 12 - int(np.floor(np.log10(price))))),
                    "currency": summary.currency,
                    "quality": "P",
                    "as_of": first.strftime("%Y-%m"),
                    "source": f"{source}: EffectiveCost / GPU-hours of the {gpu} rows",
                }
            ]
        },
        "options": {
            "rent": {"label": "Today's bill", "offer": offer_id, "billing": "per_gpu_hour_used"},
            "rents": _catalog_rents(uses),
        },
    }
    text = _header(out, source) + yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True)
    _write_skeleton(out, text, demand_path, demand_text, scenario, check)
    return scenario


def _catalog_rents(uses: list[GPUUse]) -> list[dict]:
    """The catalog's offers of the instance types the rows name, as ``options.rents`` entries."""
    catalog = default_catalog()
    rents = []
    for instance, rented in sorted({(u.instance_type, u.offer) for u in uses if u.offer is not None}):
        offer = catalog.cloud_offers[rented]
        rents.append(
            {
                "label": f"Catalog {offer.provider} {instance}"[:80],
                "name": _slug(offer.offer)[:40].strip("-"),
                "offer": offer.offer,
                "billing": "per_gpu_hour_used",
            }
        )
    return rents


def _header(out: Path, source: str) -> str:
    """The skeleton's first lines: its JSON Schema for editors (relative to ``out``) and the command that wrote it."""
    from .paths import DATA_DIR

    schema = os.path.relpath(DATA_DIR / "schemas" / "scenario.schema.json", out.resolve().parent)
    return (
        f"# yaml-language-server: $schema={schema}\n"
        f"# Written by `costmodel bills {source} --scenario-out {out.name}`: today's GPU spend as options.rent.\n"
    )


def _write_skeleton(
    out: Path, text: str, demand_path: Path, demand_text: str, scenario: dict, check: Callable[[Path], object] | None
) -> None:
    """Write a skeleton and its demand file whole, or neither: both go to temporary files beside
    their places, ``check`` reads the scenario back from them (its demand path pointing at the
    temporary demand file), and only then are both renamed into place.

    Raises
    ------
    InputError
        ``check`` refuses the scenario written (named at ``out``).
    """
    import yaml

    from .errors import InputError
    from .files import aside

    with aside([demand_path, out]) as (demand_aside, out_aside):
        demand_aside.write_text(demand_text, encoding="utf-8")
        if check is not None:
            trial = {**scenario, "demand": {**scenario["demand"], "path": str(demand_aside.resolve())}}
            out_aside.write_text(yaml.safe_dump(trial, sort_keys=False, allow_unicode=True), encoding="utf-8")
            try:
                check(out_aside)
            except InputError as exc:  # named at the file it would have been, not the temporary one
                raise InputError(out, exc.problems) from None
        out_aside.write_text(text, encoding="utf-8")


LONGEST_CHARGE_PERIOD = dt.timedelta(days=366)
"""Longest charge period of a GPU row a skeleton is made from: a FOCUS row's charge period lies within
its billing period (a month, at most a year)."""

LONGEST_BILL = dt.timedelta(days=3653)
"""Longest span, first start to last end, of the GPU rows a skeleton is made from (ten years: the
hourly profile is built over the whole span before the first year of it is kept)."""


def _check_periods(uses: list[GPUUse], gpu: str) -> None:
    """Refuse GPU rows whose hours cannot be placed in time: an empty charge period, one longer than
    :data:`LONGEST_CHARGE_PERIOD`, or rows spanning more than :data:`LONGEST_BILL` (a date typo such as
    3026 for 2026 made a profile of millions of hours).

    Raises
    ------
    InputError
        At the row's line and column ChargePeriodEnd.
    """
    from .errors import InputError

    for u in uses:
        if u.end <= u.start:
            reason = (
                "an empty charge period (ChargePeriodStart is ChargePeriodEnd): its GPU-hours have no hours to go in"
            )
        elif u.end - u.start > LONGEST_CHARGE_PERIOD:
            reason = (
                f"a charge period of {(u.end - u.start).days:,} days: longer than a billing period (at most a year)"
            )
        else:
            continue
        raise InputError(None, [(f"{gpu} rows, line {u.line}, column ChargePeriodEnd", u.end.isoformat(), reason)])
    first, last = min(uses, key=lambda u: u.start), max(uses, key=lambda u: u.end)
    if last.end - first.start > LONGEST_BILL:
        reason = (
            f"the {gpu} rows run from {first.start:%Y-%m-%d} (line {first.line}) to {last.end:%Y-%m-%d}: more than "
            "ten years of hours for one bill"
        )
        raise InputError(
            None, [(f"{gpu} rows, line {last.line}, column ChargePeriodEnd", last.end.isoformat(), reason)]
        )


def _months_covered(uses: list[GPUUse]) -> set[tuple[int, int]]:
    """The calendar months (year, month) the rows' charge periods reach into (the end is exclusive: a row
    ending at midnight on 1 February is January's)."""
    months: set[tuple[int, int]] = set()
    for u in uses:
        end = u.end - dt.timedelta(microseconds=1)
        year, month = u.start.year, u.start.month
        while (year, month) <= (end.year, end.month):
            months.add((year, month))
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months


_LISTED_LINES = 5
"""Bill lines named in a message before "and N more"."""


def _lines(uses: list[GPUUse]) -> str:
    """The bill lines of some GPU rows, the first few named (``lines 2, 5 and 3 more``)."""
    shown = ", ".join(str(u.line) for u in uses[:_LISTED_LINES])
    more = f" and {len(uses) - _LISTED_LINES} more" if len(uses) > _LISTED_LINES else ""
    return f"line{'s' if len(uses) > 1 else ''} {shown}{more}"


def _check_baseline(
    uses: list[GPUUse], gpu: str, gpu_hours: Decimal, cost: Decimal, currency: str, profile: np.ndarray
) -> None:
    """Refuse a bill whose GPU rows cannot make a baseline, naming the rows and the rule.

    Parameters
    ----------
    uses
        The rows of the most used GPU.
    gpu
        That GPU.
    gpu_hours
        Their GPU-hours. [GPU-h]
    cost
        Their EffectiveCost. [currency]
    currency
        The bill's currency.
    profile
        Their GPUs busy hour by hour. [GPU]

    Raises
    ------
    InputError
        No GPU-hours, an hour with fewer than 0 GPUs busy, or a price per GPU-hour outside
        :data:`~costmodel.units.SMALLEST_INPUT` to :data:`~costmodel.units.LARGEST_INPUT`.
    """
    from .errors import InputError
    from .units import LARGEST_INPUT, SMALLEST_INPUT

    where = f"{gpu} rows, {_lines(uses)}"
    if gpu_hours <= 0:
        raise InputError(
            None,
            [(f"{where}, column ConsumedQuantity", f"{gpu_hours:g} GPU-hours", "a baseline needs GPU-hours above 0")],
        )
    negative = [u for u in uses if u.gpu_hours < 0]
    # a correction row (negative quantity) spread over another period than the usage it corrects
    if negative and profile.min() < -1e-9 * float(profile.max(initial=1.0)):
        raise InputError(
            None,
            [
                (
                    f"{gpu} rows, {_lines(negative)}, column ConsumedQuantity",
                    ", ".join(f"{u.gpu_hours:g}" for u in negative[:_LISTED_LINES]),
                    "negative GPU-hours leave hours with fewer than 0 GPUs busy: a correction must fall in the "
                    "charge period of the usage it corrects",
                )
            ],
        )
    price = cost / gpu_hours
    if not SMALLEST_INPUT <= price <= LARGEST_INPUT:
        raise InputError(
            None,
            [
                (
                    f"{where}, column EffectiveCost",
                    f"{cost:g} {currency} for {gpu_hours:g} GPU-hours",
                    f"{price:.4g} {currency} per GPU-hour: a price must lie between {SMALLEST_INPUT:g} and "
                    f"{LARGEST_INPUT:g}",
                )
            ],
        )


def read_summary(path: str | Path, fmt: BillFormat | None = None) -> BillSummary:
    """:func:`read_bill` then :func:`summarise`."""
    chosen, rows = read_bill(path, fmt)
    return summarise(rows, chosen)


__all__ = [
    "BillSummary",
    "GPUInstance",
    "GPUUse",
    "InstanceFinder",
    "hours_per_unit",
    "instance_pattern",
    "known_instances",
    "hourly_gpu_demand",
    "read_summary",
    "scenario_skeleton",
    "summarise",
]

"""Tables for reports: every cell text, units in the headers or beside the value, nothing blank or NaN."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..resolved import OwnOption, Resolved, as_resolved
from ..results import (
    LAYER_LABELS,
    CashFlows,
    CashLine,
    Comparison,
    Decision,
    EnergyResult,
    Mix,
    MonteCarlo,
    OwnFinance,
    SobolIndices,
    TornadoBar,
    TrainingRun,
)
from ..schema import Scenario
from ..schema.inputs import input_fields
from ..schema.workload import TokensWorkload
from ..units import DAYS_PER_MONTH, MONTHS_PER_YEAR
from . import format as fmt

if TYPE_CHECKING:
    import pandas as pd


def verdict_table(comparison: Comparison) -> pd.DataFrame:
    """The decision: every candidate on the scenario's one measure, cheapest first, each named with its offer."""
    import pandas as pd

    d = comparison.decision
    best = d.winning.figure
    rows = []
    for rank, c in enumerate(d.candidates.values(), start=1):
        rows.append(
            {
                "rank": str(rank),
                "way to pay": c.label,
                f"{_measure_title(d)} [{d.unit}]": fmt.measure_figure(c.figure),
                f"more than the verdict [{d.unit}]": "verdict" if rank == 1 else fmt.measure_figure(c.figure - best),
            }
        )
    return pd.DataFrame(rows)


def _measure_title(d: Decision) -> str:
    return fmt.measure_title(d.measure)


def routing_table(comparison: Comparison) -> pd.DataFrame:
    """The routing block: one row per class on its option, then the blend and the baseline serving every request.

    Empty (no rows) without a routing block.
    """
    import pandas as pd

    routed, cur = comparison.routing, comparison.currency
    if routed is None:
        return pd.DataFrame()
    month, per_million = f"monthly cost [{cur}/month]", f"cost per M tokens [{cur}]"
    rows = [
        {
            "class": k.name,
            "served by": k.label,
            "share of requests": fmt.share(k.share_of_requests),
            "tokens per day": fmt.amount(k.tokens_per_day, 0),
            "GPUs": "-" if k.gpus is None else f"{k.gpus:,}",
            month: fmt.amount(k.monthly_cost),
            per_million: "-" if k.cost_per_million_tokens is None else fmt.amount(k.cost_per_million_tokens),
            "success rate": "-" if k.success_rate is None else fmt.share(k.success_rate),
        }
        for k in routed.classes
    ]
    total = {"share of requests": fmt.share(1.0), "tokens per day": fmt.amount(routed.tokens_per_day, 0), "GPUs": ""}
    rows.append(
        {
            "class": "routed blend",
            "served by": "each class on its option",
            **total,
            month: fmt.amount(routed.monthly_cost),
            per_million: "-" if routed.cost_per_million_tokens is None else fmt.amount(routed.cost_per_million_tokens),
            "success rate": "",
        }
    )
    rows.append(
        {
            "class": "every request",
            "served by": routed.baseline_label,
            **total,
            month: fmt.amount(routed.baseline_cost),
            per_million: fmt.amount(routed.baseline_cost / (routed.tokens_per_day * DAYS_PER_MONTH / 1e6))
            if routed.tokens_per_day > 0
            else "-",
            "success rate": "",
        }
    )
    return pd.DataFrame(rows)


def decision_table(comparison: Comparison) -> pd.DataFrame:
    """The monthly view: one row per option at the volume, cheapest first: cost, cost per unit of work, GPUs.

    The verdict is :func:`verdict_table`'s (the decision measure); this table is the monthly
    view beside it, and its "standing" column compares monthly costs only.
    """
    import pandas as pd

    currency = comparison.currency
    kind = comparison.workload_kind
    rows = []
    ranked = sorted(comparison.options.values(), key=lambda r: r.monthly_cost)
    for rank, r in enumerate(ranked, start=1):
        if rank == 1:
            standing = "lowest monthly cost" + (
                f": {fmt.amount(ranked[1].monthly_cost - r.monthly_cost)} below {ranked[1].label}"
                if len(ranked) > 1
                else ""
            )
        else:
            standing = f"{fmt.amount(r.monthly_cost - ranked[0].monthly_cost)} more a month than the lowest"
        gpus = (
            "-"
            if r.gpus is None
            else f"{r.gpus:,}" + (f" (stepped up from {r.configured_gpus:,})" if r.stepped_up else "")
        )
        if r.kind == "api":
            capacity = "no GPU limit"
        elif r.capacity_volume is None:
            capacity = "no limit (billed per GPU-hour used)"
        else:
            capacity = fmt.volume(kind, r.capacity_volume)
        row = {"option": r.label, f"monthly cost [{currency}/month]": fmt.amount(r.monthly_cost)}
        if kind == "tokens":
            row[f"cost per M tokens [{currency}]"] = fmt.amount(r.cost_per_million_tokens)
            row[f"cost per M output tokens [{currency}]"] = fmt.amount(r.cost_per_million_output_tokens)
            if r.cost_per_request is not None:
                row[f"cost per 1,000 requests [{currency}]"] = fmt.amount(1000 * r.cost_per_request)
        row[f"cost per GPU-hour used [{currency}]"] = "-" if r.kind == "api" else fmt.amount(r.cost_per_gpu_hour)
        row["GPUs at this volume"] = gpus
        row["GPU-hours used per month"] = "-" if r.kind == "api" else fmt.amount(comparison.gpu_hours_used, 1)
        row["utilisation of those GPUs"] = "-" if r.utilisation is None else fmt.share(r.utilisation)
        row["configured GPUs serve up to"] = capacity
        row[f"standing [{currency}/month]"] = standing
        rows.append(row)
    return pd.DataFrame(rows)


def serving_table(comparison: Comparison) -> pd.DataFrame:
    """One row per option with GPUs: replicas, servers, spares, pools, cost per M output tokens."""
    import pandas as pd

    s = comparison.serving
    rows = []
    if s is None:
        return pd.DataFrame(rows)
    for name, f in s.fleets.items():
        r = comparison.options[name]
        rows.append(
            {
                "option": r.label,
                "GPUs": f"{f.gpus:,}",
                "GPUs per replica": f"{s.gpus_per_replica}",
                "replicas (working + spare)": f"{f.replicas - f.spare_replicas:,} + {f.spare_replicas:,}",
                "servers": f"{f.servers:,}",
                "prefill pool [replicas]": "-" if f.prefill_replicas is None else f"{f.prefill_replicas:,}",
                "decode pool [replicas]": "-" if f.decode_replicas is None else f"{f.decode_replicas:,}",
                f"cost per M output tokens [{comparison.currency}]": fmt.amount(r.cost_per_million_output_tokens),
            }
        )
    return pd.DataFrame(rows)


def cheapest_table(comparison: Comparison) -> pd.DataFrame:
    """Which option is cheapest over each part of the searched volume range."""
    import pandas as pd

    kind = comparison.workload_kind
    return pd.DataFrame(
        [
            {
                "from": fmt.volume(kind, c.volume_from),
                "to": fmt.volume(kind, c.volume_to),
                "cheapest option": comparison.label(c.option),
            }
            for c in comparison.cheapest_ranges
        ]
    )


def break_even_table(comparison: Comparison) -> pd.DataFrame:
    """One row per pair of options: the break-even volume (or "never"), its kind, who wins where."""
    import pandas as pd

    kind = comparison.workload_kind
    label = comparison.label
    rows = []
    for b in comparison.break_evens:
        rows.append(
            {
                "options": f"{label(b.option_a)} vs {label(b.option_b)}",
                "break-even volume": fmt.volume(kind, b.volume),
                "kind": {
                    "crossing": "costs equal",
                    "step": "flips where a GPU count steps up",
                    "never": "no change in range",
                }[b.kind],
                "cheaper below": label(b.cheaper_below) if b.cheaper_below else "equal",
                "cheaper above": "-" if b.volume is None else (label(b.cheaper_above) if b.cheaper_above else "equal"),
                "all changes in range": ", ".join(fmt.volume(kind, v) for v in b.volumes) or "none",
                "range searched": f"{fmt.volume(kind, b.volume_min)} to {fmt.volume(kind, b.volume_max)}",
            }
        )
    return pd.DataFrame(rows)


_GROUPS = {"options": None, "workload": "workload", "finance": "finance", "demand": "demand", "fx": "fx"}


def _value(value) -> str:
    if isinstance(value, float):  # as stated: 16 GPUs, 0.5, 0.123457 (six figures at most, no padding)
        if value.is_integer():
            return f"{int(value):,}"
        shown = fmt.significant(value, 6)
        return shown.rstrip("0").rstrip(".") if "." in shown else shown
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def inputs_table(scenario: Scenario | Resolved) -> pd.DataFrame:
    """Every input behind the costs, with its unit and source, generated from the schema.

    Returns
    -------
    pandas.DataFrame
        Columns ``block``, ``input``, ``value``, ``unit``, ``source``: one row per numeric
        input (titles and units from the schema's field metadata, sources from the block or
        catalog row it sits in), plus the catalog rows chosen and the serving capacity.
    """
    import pandas as pd

    r = as_resolved(scenario)
    s, catalog = r.scenario, r.catalog
    rows: list[dict[str, str]] = []

    def block(path: str) -> str:
        parts = path.split(".")
        if parts[0] == "options":
            return r.label(parts[1])
        return parts[0]

    def add(where: str, title: str, value, unit: str, source: str) -> None:
        rows.append(
            {
                "block": where,
                "input": title,
                "value": _value(value),
                "unit": unit,
                "source": source or "not stated in the scenario",
            }
        )

    work = s.workload
    add("workload", "GPU", work.gpu, "", r.workload.gpu.citation())
    if work.kind == "tokens" and work.serving is not None:
        add("workload", "model served", work.serving.model, "", catalog.models[work.serving.model].citation())
    if work.kind == "training" and work.model is not None:
        add("workload", "model trained", work.model, "", catalog.models[work.model].citation())
    for name, option in r.options.items():
        row = option.server if isinstance(option, OwnOption) else option.offer
        add(
            option.label,
            {"own": "server", "rent": "rental offer", "api": "API offer"}[option.kind],
            row.ident,
            "",
            row.citation(),
        )
    for found in input_fields(s, catalog):
        if found.value is None:
            continue
        if found.path.startswith("fx.rates."):
            currency = found.path.rsplit(".", 1)[1]
            assert s.fx is not None, "an exchange rate is an input of the scenario's fx block"
            add(
                "fx",
                f"{currency} to {s.reporting_currency}",
                found.value,
                f"{s.reporting_currency}/{currency}",
                f"{s.fx.source} (as of {s.fx.as_of})",
            )
            continue
        add(block(found.path), found.title, found.value, found.unit, found.source)
    capacity = r.workload.capacity
    if capacity is not None:
        add(
            "workload",
            "serving throughput" + (" (ESTIMATE)" if capacity.estimated else ""),
            float(capacity.output_tokens_per_second_per_gpu),
            "output tokens/s/GPU",
            capacity.source,
        )
        add(
            "workload",
            "GPUs per replica",
            capacity.gpus_per_replica,
            "GPU",
            f"memory needs at least {capacity.min_gpus_per_replica}; " + capacity.source,
        )
        add(
            "workload",
            "utilisation ceiling (average share of throughput used)",
            float(capacity.sizing_utilisation),
            "-",
            (
                "derived: target utilisation / peak-to-average ratio"
                if isinstance(work, TokensWorkload) and work.serving is not None
                else work.source
            ),
        )
    return pd.DataFrame(rows)


def run_table(scenario: Scenario | Resolved, run: TrainingRun) -> pd.DataFrame:
    """A training run's figures with their units, as a three-column table of text."""
    import pandas as pd

    r = as_resolved(scenario)
    work = r.workload.training
    if work is None:
        raise ValueError(f"{r.title!r} is not a training workload: it has no run table")
    rows = [
        (
            "compute, 6 · N · D",
            f"{run.flop:.4g}" if run.flop is not None else "not defined (no training tokens)",
            "FLOP",
        ),
        (
            f"dense {work.precision.upper()} peak of the {r.workload.gpu.gpu}",
            fmt.amount(run.peak_tflops, 0),
            "TFLOP/s per GPU",
        ),
        (
            "MFU" if work.mfu is not None else "MFU backed out of the stated GPU-hours",
            fmt.share(run.mfu) if run.mfu is not None else "not defined (no training tokens)",
            "-",
        ),
        ("ideal GPU-hours", fmt.amount(run.ideal_gpu_hours, 0), "GPU-h"),
        ("goodput", fmt.share(run.goodput, 2), "share of wall-clock time"),
        ("GPU-hours to pay for", fmt.amount(run.gpu_hours, 0), "GPU-h"),
        ("wall-clock time", fmt.amount(run.wall_clock_days, 1), f"days on {work.cluster_gpus:,} GPUs"),
    ]
    if run.job_mtbf_hours is not None:
        rows += [("job mean time between failures", fmt.amount(run.job_mtbf_hours), "h")]
        rows += [
            (f"  of which {name}", fmt.amount(mtbf), "h between its failures")
            for name, (_, mtbf) in (run.failures_by_cause or {}).items()
        ]
        assert run.checkpoint_interval_hours is not None, "a run with failures has a checkpoint interval"
        rows += [("checkpoint interval used", fmt.amount(run.checkpoint_interval_hours * 60, 1), "min")]
        rows += [
            (f"  optimum by {name.replace('_', ' with ')}", fmt.amount(hours * 60, 1), "min")
            for name, hours in (run.checkpoint_intervals or {}).items()
        ]
        if run.checkpoint_interval_steps is not None:
            rows += [("checkpoint interval in training steps", f"{run.checkpoint_interval_steps:,}", "steps")]
        rows += [("GPU-hours lost per failure", fmt.amount(run.gpu_hours_lost_per_failure, 0), "GPU-h")]
    if run.memory is not None:
        m = run.memory
        rows += [
            (f"memory per GPU, ZeRO-{m.zero_stage}: model state", fmt.amount(m.state_bytes / 1e9, 1), "GB"),
            ("memory per GPU: activations", fmt.amount(m.activation_bytes / 1e9, 1), "GB"),
            (
                "memory per GPU: total, of usable",
                f"{fmt.amount(m.total_bytes / 1e9, 1)} of {fmt.amount(m.usable_bytes / 1e9, 1)}",
                "GB",
            ),
        ]
    rows += [
        ("fewest GPUs holding the training state, sharded (ZeRO-3)", f"{run.min_gpus_sharded:,}", "GPU"),
        (
            "fewest GPUs holding the training state, unsharded",
            "does not fit on one GPU" if run.min_gpus_unsharded is None else f"{run.min_gpus_unsharded:,}",
            "GPU",
        ),
    ]
    rows += [
        (f"cost with {r.label(o)}", fmt.amount(run.total(o), 0), r.currency) for o in sorted(run.costs, key=run.total)
    ]
    return pd.DataFrame(rows, columns=["figure", "value", "unit"])


def stage_table(scenario: Scenario | Resolved, run: TrainingRun) -> pd.DataFrame:
    """The run by stage, as DeepSeek-V3's Table 1: GPU-hours and cost with each option, and a total row.

    Columns: stage, stated by, GPUs, GPU-hours, days, MFU, then one cost column per option.
    """
    import pandas as pd

    r = as_resolved(scenario)
    rows = []
    for s in run.stages:
        rows.append(
            {
                "stage": s.name,
                "stated by": s.basis.replace("_", " "),
                "GPUs": f"{s.gpus:,}",
                "GPU-hours": fmt.amount(s.gpu_hours, 0),
                "days": fmt.amount(s.wall_clock_days, 1),
                "MFU": fmt.share(s.mfu) if s.mfu is not None else "not defined",
                **{f"cost, {r.label(o)} [{r.currency}]": fmt.amount(v, 0) for o, v in s.costs.items()},
            }
        )
    rows.append(
        {
            "stage": "total",
            "stated by": "",
            "GPUs": "",
            "GPU-hours": fmt.amount(run.gpu_hours, 0),
            "days": fmt.amount(run.wall_clock_days, 1),
            "MFU": fmt.share(run.mfu) if run.mfu is not None else "not defined",
            **{f"cost, {r.label(o)} [{r.currency}]": fmt.amount(run.total(o), 0) for o in run.costs},
        }
    )
    return pd.DataFrame(rows)


def finance_table(scenario: Scenario | Resolved, result: OwnFinance) -> pd.DataFrame:
    """The own cluster's decision figures over the horizon, with their units, as text."""
    import pandas as pd

    r = as_resolved(scenario)
    currency = r.currency
    rows = [(f"TCO, {r.label(o)}", fmt.amount(v, 0), currency) for o, v in result.tco_by_option.items()]
    rows += [
        (f"present value of costs, {r.label(o)}", fmt.amount(v, 0), currency) for o, v in result.npv_by_option.items()
    ]
    rows.append(
        (
            "own cost per used GPU-hour over the horizon (cash basis)",
            fmt.amount(result.cost_per_used_gpu_hour, 3),
            f"{currency}/GPU-h",
        )
    )
    rows.append(("own utilisation achieved", fmt.share(result.utilisation), "of GPU-hours"))
    rows.append(
        (
            "payback month" + (f" (against {r.label(result.payback_against)})" if result.payback_against else ""),
            "never within the horizon" if result.payback_month is None else str(result.payback_month),
            "months after the decision",
        )
    )
    if result.payback_against is not None:
        against = r.label(result.payback_against)

        def rate(x):
            return "not defined" if x is None else fmt.share(x, 2)

        def months(x):
            return "never within the horizon" if x is None else fmt.amount(x, 2)

        rows += [
            (f"IRR of owning vs {against}", rate(result.irr_per_year), "a year"),
            (f"MIRR of owning vs {against}", rate(result.mirr_per_year), "a year"),
            (f"ROI of owning vs {against} (net gain / investment)", rate(result.roi), "-"),
            (f"payback vs {against}, interpolated", months(result.payback_months), "months after the decision"),
            (f"discounted payback vs {against}", months(result.discounted_payback_months), "months after the decision"),
        ]
    if result.real_discount_rate_per_year is not None:
        rows.append(("real discount rate (Fisher)", fmt.share(result.real_discount_rate_per_year, 2), "a year"))
    if result.after_tax_tco_by_option is not None:
        assert result.after_tax_npv_by_option is not None, "a result after tax has its TCO and its present value"
        rows += [
            (f"TCO after tax, {r.label(o)}", fmt.amount(v, 0), currency)
            for o, v in result.after_tax_tco_by_option.items()
        ]
        rows += [
            (f"present value of costs after tax, {r.label(o)}", fmt.amount(v, 0), currency)
            for o, v in result.after_tax_npv_by_option.items()
        ]
    for b in sorted(result.break_even_utilisation, key=lambda b: b.price_per_gpu_hour):
        rows.append(
            (
                f"break-even utilisation (steady state) vs {b.label} at {fmt.amount(b.price_per_gpu_hour, 3)} "
                f"{currency}/GPU-h",
                "never" if b.utilisation is None else fmt.share(b.utilisation),
                "of GPU-hours",
            )
        )
    return pd.DataFrame(rows, columns=["figure", "value", "unit"])


def _line_label(r: Resolved, line: str) -> str:
    if line == CashLine.STAND_IN:
        return f"{r.label(r.finance.during_lead_time).lower()} during lead time"
    return str(line)


def cash_flow_table(scenario: Scenario | Resolved, flows: CashFlows) -> pd.DataFrame:
    """Long table of the cash flows: month, option, line, cash [reporting currency], currency."""
    import pandas as pd

    r = as_resolved(scenario)
    frames = [
        pd.DataFrame(
            {
                "month": flows.months.astype(int),
                "option": option,
                "line": _line_label(r, line),
                "cash": values,
                "currency": r.currency,
            }
        )
        for option, lines in flows.flows.items()
        for line, values in lines.items()
    ]
    return pd.concat(frames, ignore_index=True)


def yearly_table(scenario: Scenario | Resolved, flows: CashFlows) -> pd.DataFrame:
    """Cash out of each option by line and year of the horizon, as text. [reporting currency]"""
    r = as_resolved(scenario)
    table = cash_flow_table(r, flows)
    table["year"] = (table["month"] // MONTHS_PER_YEAR + 1).astype(int)
    table["option"] = table["option"].map(r.label)
    pivot = table.pivot_table(index=["option", "line"], columns="year", values="cash", aggfunc="sum", sort=False)
    pivot = pivot.loc[(pivot != 0).any(axis=1)]
    pivot["total"] = pivot.sum(axis=1)
    shown = pivot.map(lambda x: fmt.amount(x, 0))
    shown.columns = [f"year {c}" if c != "total" else "total" for c in shown.columns]
    return shown.reset_index()


def mix_table(mix: Mix, currency: str) -> pd.DataFrame:
    """The mix's layers as bought: what, how many, monthly cost, share of the work, busy share."""
    import pandas as pd

    rows = [
        {
            "capacity": LAYER_LABELS[x.kind],
            "offer": x.offer,
            "held": (
                f"{fmt.plural(x.units, 'server')} ({fmt.plural(x.gpus, 'GPU')})"
                if x.kind == "own"
                else fmt.plural(x.gpus, "GPU")
                if x.unit
                else ("tokens" if x.kind == "api" else f"up to {fmt.plural(x.gpus, 'GPU')}")
            ),
            f"cost [{currency}/month]": fmt.amount(x.cost, 0),
            "share of the work": fmt.share(x.work_share),
            "busy share of paid hours": fmt.share(x.utilisation) if x.utilisation is not None else "-",
        }
        for x in mix.layers.values()
    ]
    if mix.staffing:
        rows.append(
            {
                "capacity": "Rental staffing",
                "offer": "-",
                "held": "-",
                f"cost [{currency}/month]": fmt.amount(mix.staffing, 0),
                "share of the work": "-",
                "busy share of paid hours": "-",
            }
        )
    return pd.DataFrame(rows)


def percentile_table(scenario: Scenario | Resolved, result: MonteCarlo) -> pd.DataFrame:
    """P10/P50/P90 of each candidate's figure on the decision measure and its probability of winning, as text."""
    import pandas as pd

    wins = result.win_probability()
    unit = result.unit
    title = fmt.measure_title(result.measure)
    rows = []
    for option, (p10, p50, p90) in result.percentiles().items():
        rows.append(
            {
                "way to pay": result.label(option),
                f"P10, {title} [{unit}]": fmt.amount(p10, 0),
                f"P50 [{unit}]": fmt.amount(p50, 0),
                f"P90 [{unit}]": fmt.amount(p90, 0),
                "probability of being the cheapest": fmt.share(wins[option]),
            }
        )
    return pd.DataFrame(rows)


def tornado_table(bars: list[TornadoBar], scenario: Scenario | Resolved | None = None) -> pd.DataFrame:
    """The tornado's numbers, widest swing first, with break-even values or "never between low and high".

    With ``scenario``, inputs read by their schema title, values carry their unit (k/M/B) and the savings
    and swing columns the unit of the decision measure (:func:`costmodel.domain.uncertainty.measure_unit`:
    the currency for a present value or a training run's cost, the currency a month, or per 1,000
    successful tasks).
    """
    import pandas as pd

    from .text import input_title, input_value

    def name(path):
        return path if scenario is None else input_title(scenario, path)

    def value(path, x):
        return fmt.significant(x, 3) if scenario is None else input_value(scenario, path, x)

    from ..domain.uncertainty import measure_unit

    unit = "" if scenario is None else f" [{measure_unit(scenario)}]"  # the decision measure's, as the metric's
    return pd.DataFrame(
        [
            {
                "input": name(b.path),
                "as given": value(b.path, b.base),
                "low": value(b.path, b.low),
                "high": value(b.path, b.high),
                f"saving at low{unit}": fmt.short(-b.low_metric),
                f"saving at high{unit}": fmt.short(-b.high_metric),
                f"swing{unit}": fmt.short(b.swing),
                "break-even": value(b.path, b.break_even)
                if b.break_even is not None
                else f"never between {value(b.path, b.low)} and {value(b.path, b.high)}",
            }
            for b in sorted(bars, key=lambda b: b.swing, reverse=True)
        ]
    )


def sobol_table(indices: SobolIndices, scenario: Scenario | Resolved | None = None) -> pd.DataFrame:
    """First-order and total Sobol indices with their 95 % confidence, largest total first, as text."""
    import pandas as pd

    from .text import input_title

    def shown(x, conf):
        return "not defined" if x is None else f"{x:.2f} ± {conf:.2f}" if conf is not None else f"{x:.2f}"

    rows = [
        {
            "input": path if scenario is None else input_title(scenario, path),
            "alone (S1, ± 95 % confidence)": shown(s1, c1),
            "with interactions (ST, ± 95 % confidence)": shown(st, ct),
            "_order": -(st or 0.0),
        }
        for path, s1, c1, st, ct in zip(
            indices.inputs, indices.first_order, indices.first_order_conf, indices.total, indices.total_conf
        )
    ]
    return pd.DataFrame(sorted(rows, key=lambda row: row["_order"])).drop(columns="_order")


def energy_table(result: EnergyResult) -> pd.DataFrame:
    """One row per option: energy and emissions a month, per unit of work, and where they come from."""
    import pandas as pd

    def cell(value, decimals: int = 0, missing: str = "-") -> str:
        return missing if value is None else fmt.amount(value, decimals)

    rows = []
    for e in result.options.values():
        covered = e.energy_kwh_per_month is not None
        rows.append(
            {
                "option": e.label,
                "basis": e.basis if covered else "not covered",
                "energy [kWh/month]": cell(e.energy_kwh_per_month, missing="not covered")
                + (
                    f" ({fmt.amount(e.energy_kwh_range[0], 0)}-{fmt.amount(e.energy_kwh_range[1], 0)})"
                    if e.energy_kwh_range is not None
                    else ""
                ),
                "CO2e, location-based [kg/month]": cell(
                    e.co2e_kg_per_month, missing="no grid given" if covered else "-"
                ),
                "of which embodied [kg/month]": cell(e.embodied_co2e_kg_per_month),
                "CO2e, market-based [kg/month]": cell(e.market_co2e_kg_per_month),
                "CO2e per M tokens [kg]": cell(e.co2e_kg_per_million_tokens, 3),
                "energy per 1,000 output tokens [Wh]": cell(e.wh_per_1000_output_tokens, 2),
                "output tokens per joule at full load": cell(e.output_tokens_per_joule, 3),
            }
        )
    return pd.DataFrame(rows)

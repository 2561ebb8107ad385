"""Tidy tables and the one-call comparison of a scenario's options.

Tables are long-format pandas DataFrames whose column names come from
:class:`Columns`. Nothing here returns NaN or infinity: a cost per unit at zero volume
is ``None`` ("not defined") and a break-even that does not happen is ``"never"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .calculator import (
    OPTION_LABELS,
    BreakEven,
    break_evens,
    capacity_volume,
    default_volume_max,
    gpu_count,
    gpu_hours_used,
    monthly_cost,
    monthly_cost_components,
    present_options,
    tokens_per_month,
)
from .models import Scenario
from .units import HOURS_PER_MONTH, TOKENS_PER_MILLION

if TYPE_CHECKING:
    import pandas as pd


class Columns:
    """Column names of the tables this module returns."""

    option = "option"
    option_label = "option_label"
    component = "component"
    cost = "cost"
    currency = "currency"
    volume = "volume"
    gpu_count = "gpu_count"


def cost_table(scenario: Scenario, volume: float | None = None) -> pd.DataFrame:
    """Monthly cost of each option by component, at one volume.

    Parameters
    ----------
    scenario
        The scenario.
    volume
        Workload volume; default: the scenario's own. [GPU-h/month or tokens/day]

    Returns
    -------
    pandas.DataFrame
        Columns ``option``, ``option_label``, ``component``, ``cost``
        [reporting currency/month], ``currency``; one row per option and component.
    """
    import pandas as pd

    v = scenario.volume if volume is None else float(volume)
    rows = []
    for option in present_options(scenario):
        for component, cost in monthly_cost_components(scenario, option, v).items():
            rows.append({Columns.option: option, Columns.option_label: OPTION_LABELS[option],
                         Columns.component: component, Columns.cost: float(cost),
                         Columns.currency: scenario.reporting_currency})
    return pd.DataFrame(rows)


def cost_sweep(scenario: Scenario, volumes) -> pd.DataFrame:
    """Total monthly cost and GPU count of each option over an array of volumes.

    One vectorised call per option, whatever the number of volumes.

    Parameters
    ----------
    volumes
        1-D array of volumes. [GPU-h/month or tokens/day]

    Returns
    -------
    pandas.DataFrame
        Long format: ``volume``, ``option``, ``option_label``, ``cost``
        [reporting currency/month], ``gpu_count`` [GPU], ``currency``.
    """
    import pandas as pd

    v = np.asarray(volumes, dtype=float).ravel()
    frames = []
    for option in present_options(scenario):
        frames.append(pd.DataFrame({
            Columns.volume: v,
            Columns.option: option,
            Columns.option_label: OPTION_LABELS[option],
            Columns.cost: monthly_cost(scenario, option, v),
            Columns.gpu_count: gpu_count(scenario, option, v),
            Columns.currency: scenario.reporting_currency,
        }))
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class OptionResult:
    """One option at one volume.

    Attributes
    ----------
    monthly_cost
        [reporting currency/month]
    cost_per_gpu_hour
        Monthly cost / GPU-hours used; ``None`` when no GPU-hour is used, and for the
        hosted API (its GPUs are not the buyer's). [reporting currency/GPU-h]
    cost_per_million_tokens
        Monthly cost / millions of tokens; ``None`` for a GPU-hours workload or at zero
        volume. [reporting currency/M tokens]
    configured_gpus, gpus
        GPUs the scenario gives the option (``None`` where it gives none: the API, and
        rental billed per GPU-hour used), and GPUs it runs at this volume. [GPU]
    utilisation
        GPU-hours used / (GPUs × 730 h); ``None`` for the API or with no GPU. [-]
    stepped_up
        True when the volume needs more GPUs than the scenario gives.
    capacity_volume
        Largest volume the configured GPUs serve; ``None`` where there is no fixed count.
    """

    option: str
    monthly_cost: float
    cost_per_gpu_hour: float | None
    cost_per_million_tokens: float | None
    configured_gpus: int | None
    gpus: int | None
    utilisation: float | None
    stepped_up: bool
    capacity_volume: float | None


@dataclass(frozen=True)
class CheapestRange:
    """A range of volumes over which one option is the cheapest. [workload volume unit]"""

    volume_from: float
    volume_to: float
    option: str


@dataclass(frozen=True)
class Comparison:
    """The options of a scenario compared at one volume, with break-evens in a range.

    Attributes
    ----------
    cheapest_ranges
        The cheapest option over each part of the searched range, in order.
    estimates
        Catalog figures behind the result that are unsourced estimates (grade U).
    training
        For a training workload, the run worked out
        (:class:`costmodel.training.TrainingRun`); otherwise ``None``.
    finance
        With a finance block and an own option, the own cluster's decision figures as a
        JSON-ready dict (:func:`costmodel.finance.finance_dict`); otherwise ``None``.
    """

    title: str
    currency: str
    workload_kind: str
    volume: float
    volume_unit: str
    gpu_hours_used: float
    options: dict[str, OptionResult]
    cheapest: str
    runner_up: str
    margin: float
    margin_share: float | None
    break_evens: list[BreakEven]
    cheapest_ranges: list[CheapestRange]
    estimates: list[str]
    training: Any = None
    finance: Any = None
    mix: Any = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict.

        Numbers that do not exist are words, never NaN or infinity: a break-even that
        does not happen is ``"never"``; a cost per unit at zero volume is
        ``"not defined"``; a cost per unit that does not apply (per GPU-hour for the API,
        per million tokens for a GPU-hours workload) is ``"not applicable"``; the
        capacity of an option with no fixed GPU count is ``"no limit"``.
        """
        def number(x):
            return None if x is None else round(float(x), 6)

        def per_unit(value, applies: bool):
            if not applies:
                return "not applicable"
            return "not defined" if value is None else number(value)

        tokens = self.workload_kind == "tokens"
        return {
            "title": self.title,
            "currency": self.currency,
            "volume": self.volume,
            "volume_unit": self.volume_unit,
            "gpu_hours_used_per_month": number(self.gpu_hours_used),
            "options": {
                name: {
                    "label": OPTION_LABELS[name],
                    "monthly_cost": number(r.monthly_cost),
                    "monthly_cost_unit": f"{self.currency}/month",
                    "cost_per_gpu_hour_used": per_unit(r.cost_per_gpu_hour, name != "api"),
                    "cost_per_million_tokens": per_unit(r.cost_per_million_tokens, tokens),
                    "configured_gpus": r.configured_gpus,
                    "gpus": r.gpus,
                    "utilisation": per_unit(r.utilisation, name != "api"),
                    "gpu_count_stepped_up": r.stepped_up,
                    "capacity_volume": number(r.capacity_volume) if r.capacity_volume is not None else "no limit",
                }
                for name, r in self.options.items()
            },
            "cheapest": self.cheapest,
            "runner_up": self.runner_up,
            "margin": number(self.margin),
            "margin_share_of_runner_up": number(self.margin_share) if self.margin_share is not None else "not defined",
            "cheapest_by_volume": [
                {"from": number(c.volume_from), "to": number(c.volume_to), "option": c.option}
                for c in self.cheapest_ranges
            ],
            "break_evens": [
                {
                    "options": [b.option_a, b.option_b],
                    "volume": number(b.volume) if b.volume is not None else "never",
                    "kind": b.kind,
                    "cheaper_below": b.cheaper_below,
                    "cheaper_above": b.cheaper_above,
                    "all_volumes": [number(x) for x in b.volumes],
                    "searched": [b.volume_min, b.volume_max],
                }
                for b in self.break_evens
            ],
            "estimates": self.estimates,
            **({"training_run": _training_dict(self.training, self.currency)} if self.training is not None else {}),
            **({"finance": self.finance} if self.finance is not None else {}),
            **({"cheapest_mix": self.mix} if self.mix is not None else {}),
        }

    def text(self) -> str:
        """A short plain-text summary for a terminal."""
        lines = [f"Scenario: {self.title}"]
        if self.training is not None:
            run = self.training
            lines += [
                "training run:",
                f"  compute 6*N*D         {run.flop:.4g} FLOP",
                f"  ideal GPU-hours       {run.ideal_gpu_hours:,.0f} GPU-h at the scenario's MFU",
                f"  goodput               {run.goodput:.1%}",
                f"  GPU-hours to pay for  {run.gpu_hours:,.0f} GPU-h",
                f"  wall-clock            {run.wall_clock_days:,.1f} days",
            ]
            lines += [f"  cost, {OPTION_LABELS[o]:<13} {run.total(o):>16,.2f} {self.currency}" for o in self.options]
            lines.append("while it runs, the cluster busy all month:")
        lines.append(f"at {self.volume:,.0f} {self.volume_unit}, monthly cost in {self.currency}:")
        for name, r in self.options.items():
            extra = []
            if self.workload_kind == "tokens":
                extra.append(f"{_amount(r.cost_per_million_tokens)} {self.currency}/M tokens")
            if name != "api":
                extra.append(f"{_amount(r.cost_per_gpu_hour)} {self.currency}/GPU-hour used")
            if r.gpus is not None:
                busy = f" {r.utilisation:.1%} busy" if r.utilisation is not None else ""
                extra.append(f"{r.gpus:,} GPUs{busy}" + (" (stepped up)" if r.stepped_up else ""))
            lines.append(f"  {OPTION_LABELS[name]:<13} {r.monthly_cost:>14,.2f}   " + "; ".join(extra))
        lines.append(f"cheapest: {OPTION_LABELS[self.cheapest]}, {self.margin:,.2f} {self.currency}/month "
                     f"below {OPTION_LABELS[self.runner_up]}")
        lines.append("cheapest by volume:")
        lines += [f"  {c.volume_from:,.0f} to {c.volume_to:,.0f} {self.volume_unit}: {OPTION_LABELS[c.option]}"
                  for c in self.cheapest_ranges]
        lines.append("break-even volumes:")
        lines += [f"  {b.describe(self.volume_unit)}" for b in self.break_evens]
        if self.finance is not None:
            f = self.finance
            lines.append(f"over {f['horizon_months']} months, cash basis, discount rate {f['discount_rate_per_year']:.1%}/year:")
            for option, tco in f["tco"].items():
                lines.append(f"  {OPTION_LABELS[option]:<13} TCO {tco['value']:>16,.2f} {tco['unit']}   "
                             f"NPV {f['npv'][option]['value']:>16,.2f} {f['npv'][option]['unit']}")
            cost = f["own_cost_per_used_gpu_hour"]
            lines.append("  own cost per used GPU-hour: " + (f"{cost['value']:,.4f} {cost['unit']}" if isinstance(cost, dict)
                                                              else cost))
            payback = f["payback_month"]
            lines.append("  payback month: " + (f"{payback['value']} (against {OPTION_LABELS[payback['against']]})"
                                                if isinstance(payback, dict) else payback))
            for b in f["break_even_utilisation"].values():
                u = b["utilisation"]
                lines.append(f"  break-even utilisation vs {b['offer']} at {b['price']['value']:,.4g} {b['price']['unit']}: "
                             + (f"{u['value']:.1%}" if isinstance(u, dict) else u))
        if self.mix is not None:
            m = self.mix
            lines.append(f"cheapest mix for the {m['profile']} demand profile, {m['total']['value']:,.2f} {self.currency}/month:")
            from .demand import LAYER_LABELS

            for kind, gpus in m["gpus"].items():
                if gpus["value"]:
                    lines.append(f"  {LAYER_LABELS[kind]:<10} {gpus['value']:>6,} GPUs  "
                                 f"{m['layer_cost'][kind]['value']:>14,.2f} {self.currency}/month")
            if "rental staffing" in m["layer_cost"]:
                lines.append(f"  rental staffing          {m['layer_cost']['rental staffing']['value']:>14,.2f} "
                             f"{self.currency}/month")
            for kind, saving in m["savings_against_pure"].items():
                lines.append(f"  saves {saving['value']:,.2f} {self.currency}/month against all "
                             f"{LAYER_LABELS[kind].lower()}")
            if "if_steady" in m:
                steady = ", ".join(f"{v['value']} {LAYER_LABELS[k].lower()}" for k, v in m["if_steady"]["gpus"].items()
                                   if v["value"])
                lines.append(f"  with the same average demand steady: {steady} GPUs, "
                             f"{m['if_steady']['total']['value']:,.2f} {self.currency}/month")
        if self.estimates:
            lines.append("caution, unsourced estimates behind these figures:")
            lines += [f"  {e}" for e in self.estimates]
        return "\n".join(lines)


def _training_dict(run, currency: str) -> dict[str, Any]:
    return {
        "flop": {"value": run.flop, "unit": "FLOP"},
        "dense_peak": {"value": run.peak_tflops, "unit": "TFLOP/s per GPU"},
        "ideal_gpu_hours": {"value": round(run.ideal_gpu_hours, 3), "unit": "GPU-h"},
        "goodput": {"value": round(run.goodput, 6), "unit": "share of wall-clock time"},
        "gpu_hours": {"value": round(run.gpu_hours, 3), "unit": "GPU-h"},
        "wall_clock_days": {"value": round(run.wall_clock_days, 4), "unit": "days"},
        "job_mtbf_hours": ({"value": round(run.job_mtbf_hours, 4), "unit": "h"}
                           if run.job_mtbf_hours is not None else "no failure model"),
        "checkpoint_interval_minutes": ({"value": round(run.checkpoint_interval_hours * 60, 4), "unit": "min"}
                                        if run.checkpoint_interval_hours is not None else "no failure model"),
        "min_gpus_to_hold_state": {"sharded": run.min_gpus_sharded,
                                   "unsharded": run.min_gpus_unsharded if run.min_gpus_unsharded is not None
                                   else "does not fit on one GPU", "unit": "GPU"},
        "cost": {option: {"value": round(run.total(option), 2), "unit": currency,
                          "components": {k: round(v, 2) for k, v in parts.items()}}
                 for option, parts in run.costs.items()},
    }


def cheapest_by_volume(scenario: Scenario, breaks: list[BreakEven]) -> list[CheapestRange]:
    """The cheapest option over each part of a searched range.

    The cheapest of several options can change only where the cheaper of some pair
    changes, so the range is cut at every pair's break-evens and the cheapest option
    is found once inside each piece.

    Parameters
    ----------
    scenario
        The scenario.
    breaks
        :func:`costmodel.break_evens` over the range (all pairs, same range).

    Returns
    -------
    list of CheapestRange
        Adjacent pieces with the same cheapest option are merged.
    """
    names = present_options(scenario)
    low, high = breaks[0].volume_min, breaks[0].volume_max
    cuts = sorted({low, high, *(v for b in breaks for v in b.volumes)})
    edges = np.array(cuts)
    middles = (edges[:-1] + edges[1:]) / 2
    costs = np.stack([np.asarray(monthly_cost(scenario, name, middles), dtype=float) for name in names])
    winners = [names[i] for i in np.argmin(costs, axis=0)]
    ranges: list[CheapestRange] = []
    for start, stop, winner in zip(edges[:-1], edges[1:], winners):
        if ranges and ranges[-1].option == winner:
            ranges[-1] = CheapestRange(ranges[-1].volume_from, float(stop), winner)
        else:
            ranges.append(CheapestRange(float(start), float(stop), winner))
    return ranges


def estimates(scenario: Scenario) -> list[str]:
    """Catalog rows behind the scenario that are unsourced estimates (quality grade U)."""
    found = []
    rows = []
    if scenario.options.own is not None:
        rows.append(("data/servers.csv", scenario.options.own.server_spec))
    if scenario.options.rent is not None:
        rows.append(("data/cloud_prices.csv", scenario.options.rent.offer_spec))
    if scenario.options.api is not None:
        rows.append(("data/api_prices.csv", scenario.options.api.offer_spec))
    for file, row in rows:
        if row.quality == "U":
            ident = getattr(row, "server", None) or getattr(row, "offer", "")
            found.append(f"{file}: {ident}: {row.source}")
    return found


def compare(scenario: Scenario, volume: float | None = None, volume_max: float | None = None) -> Comparison:
    """Compare the scenario's options at one volume and find every pair's break-even.

    Parameters
    ----------
    scenario
        The scenario.
    volume
        Volume to compare at; default: the scenario's. [GPU-h/month or tokens/day]
    volume_max
        Upper end of the break-even search; default 10 × ``volume``
        (:func:`default_volume_max`).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        ``volume`` is negative or not finite, or ``volume_max`` is not above 0.
    """
    v = scenario.volume if volume is None else float(volume)
    if not (np.isfinite(v) and v >= 0):
        raise ValueError(f"volume must be a finite number >= 0, got {v}")
    upper = default_volume_max(scenario, v) if volume_max is None else float(volume_max)
    if not (np.isfinite(upper) and upper > 0):
        raise ValueError(f"volume_max must be a finite number > 0, got {upper}")
    hours = float(gpu_hours_used(scenario, v))
    millions = float(tokens_per_month(scenario, v)) / TOKENS_PER_MILLION if scenario.workload.kind == "tokens" else 0.0
    results: dict[str, OptionResult] = {}
    for option in present_options(scenario):
        cost = float(monthly_cost(scenario, option, v))
        if not np.isfinite(cost):
            raise ValueError(f"the {OPTION_LABELS[option]} cost overflows at volume {v:g}; check the inputs' magnitudes")
        capacity = capacity_volume(scenario, option)
        if option == "api":
            configured = gpus = utilisation = None
        else:
            gpus = int(gpu_count(scenario, option, v))
            configured = int(gpu_count(scenario, option, 0.0)) if capacity is not None else None
            utilisation = hours / (gpus * HOURS_PER_MONTH) if gpus > 0 else None
        results[option] = OptionResult(
            option=option,
            monthly_cost=cost,
            cost_per_gpu_hour=cost / hours if hours > 0 and option != "api" else None,
            cost_per_million_tokens=cost / millions if millions > 0 else None,
            configured_gpus=configured,
            gpus=gpus,
            utilisation=utilisation,
            stepped_up=configured is not None and gpus > configured,
            capacity_volume=capacity,
        )
    ranked = sorted(results, key=lambda name: results[name].monthly_cost)
    cheapest, runner_up = ranked[0], ranked[1]
    margin = results[runner_up].monthly_cost - results[cheapest].monthly_cost
    runner_cost = results[runner_up].monthly_cost
    breaks = break_evens(scenario, upper)
    return Comparison(
        title=scenario.title,
        currency=scenario.reporting_currency,
        workload_kind=scenario.workload.kind,
        volume=v,
        volume_unit=scenario.volume_unit,
        gpu_hours_used=hours,
        options=results,
        cheapest=cheapest,
        runner_up=runner_up,
        margin=margin,
        margin_share=margin / runner_cost if runner_cost > 0 else None,
        break_evens=breaks,
        cheapest_ranges=cheapest_by_volume(scenario, breaks),
        estimates=estimates(scenario),
        training=_training(scenario),
        finance=_finance(scenario),
        mix=_mix(scenario),
    )


def _mix(scenario: Scenario):
    if scenario.demand is None:
        return None
    from .demand import cheapest_mix, mix_dict, steady_series

    from .demand import hourly_demand

    series = hourly_demand(scenario)
    steady = None if scenario.demand.kind == "steady" else cheapest_mix(scenario, steady_series(series))
    return mix_dict(scenario, cheapest_mix(scenario, series), steady)


def _finance(scenario: Scenario):
    if scenario.finance is None or scenario.options.own is None:
        return None
    from .finance import finance_dict, own_finance

    return finance_dict(scenario, own_finance(scenario))


def _training(scenario: Scenario):
    if scenario.workload.kind != "training":
        return None
    from .training import training_run

    return training_run(scenario)


def volume_display(scenario: Scenario) -> tuple[float, str]:
    """Divisor and unit label for showing volumes: tokens per day in millions.

    Returns
    -------
    tuple of (float, str)
        ``(1e6, "M tokens/day")`` for a tokens workload, ``(1.0, "GPU-hours/month")``
        for a GPU-hours workload.
    """
    if scenario.workload.kind == "tokens":
        return 1e6, "M tokens/day"
    return 1.0, "GPU-hours/month"


def format_volume(scenario: Scenario, volume: float | None) -> str:
    """A volume as text in its display unit; ``None`` reads "never".

    Millions of tokens per day show two decimals; GPU-hours per month show none.
    """
    if volume is None:
        return "never"
    scale, unit = volume_display(scenario)
    decimals = 2 if scale > 1 else 0
    return f"{volume / scale:,.{decimals}f} {unit}"


def _amount(value: float | None, decimals: int = 2) -> str:
    return "not defined" if value is None else f"{value:,.{decimals}f}"


def decision_table(scenario: Scenario, comparison: Comparison) -> pd.DataFrame:
    """One row per option, cheapest first: cost, cost per unit of work, GPUs, utilisation.

    Units are in the column headers; all cells are text, ready to show; nothing is NaN.
    """
    import pandas as pd

    currency = comparison.currency
    rows = []
    ranked = sorted(comparison.options.values(), key=lambda r: r.monthly_cost)
    for rank, r in enumerate(ranked, start=1):
        if rank == 1:
            standing = f"cheapest: {comparison.margin:,.2f} below {OPTION_LABELS[comparison.runner_up]}"
            if comparison.margin_share is not None:
                standing += f" ({comparison.margin_share:.1%} of its cost)"
        else:
            standing = f"{r.monthly_cost - ranked[0].monthly_cost:,.2f} more than the cheapest"
        if r.gpus is None:
            gpus = "-"
        else:
            gpus = f"{r.gpus:,}" + (f" (stepped up from {r.configured_gpus:,})" if r.stepped_up else "")
        if r.option == "api":
            capacity = "no GPU limit"
        elif r.capacity_volume is None:
            capacity = "no limit (billed per GPU-hour used)"
        else:
            capacity = format_volume(scenario, r.capacity_volume)
        row = {"option": OPTION_LABELS[r.option], f"monthly cost [{currency}/month]": f"{r.monthly_cost:,.2f}"}
        if scenario.workload.kind == "tokens":
            row[f"cost per M tokens [{currency}]"] = _amount(r.cost_per_million_tokens)
        row[f"cost per GPU-hour used [{currency}]"] = "-" if r.option == "api" else _amount(r.cost_per_gpu_hour)
        row["GPUs at this volume"] = gpus
        row["GPU-hours used per month"] = "-" if r.option == "api" else f"{comparison.gpu_hours_used:,.1f}"
        row["utilisation of those GPUs"] = ("-" if r.utilisation is None else f"{r.utilisation:.1%}")
        row["configured GPUs serve up to"] = capacity
        row[f"standing [{currency}/month]"] = standing
        rows.append(row)
    return pd.DataFrame(rows)


def cheapest_table(scenario: Scenario, comparison: Comparison) -> pd.DataFrame:
    """Which option is cheapest over each part of the searched volume range."""
    import pandas as pd

    return pd.DataFrame([
        {"from": format_volume(scenario, c.volume_from), "to": format_volume(scenario, c.volume_to),
         "cheapest option": OPTION_LABELS[c.option]}
        for c in comparison.cheapest_ranges
    ])


def break_even_table(scenario: Scenario, comparison: Comparison) -> pd.DataFrame:
    """One row per pair of options: the break-even volume (or "never"), its kind, who wins where."""
    import pandas as pd

    rows = []
    for b in comparison.break_evens:
        searched = f"{format_volume(scenario, b.volume_min)} to {format_volume(scenario, b.volume_max)}"
        rows.append({
            "options": f"{OPTION_LABELS[b.option_a]} vs {OPTION_LABELS[b.option_b]}",
            "break-even volume": format_volume(scenario, b.volume),
            "kind": {"crossing": "costs equal", "step": "flips where a GPU count steps up",
                     "never": "no change in range"}[b.kind],
            "cheaper below": OPTION_LABELS.get(b.cheaper_below or "", "equal"),
            "cheaper above": "-" if b.volume is None else OPTION_LABELS.get(b.cheaper_above or "", "equal"),
            "all changes in range": ", ".join(format_volume(scenario, v) for v in b.volumes) or "none",
            "range searched": searched,
        })
    return pd.DataFrame(rows)


def inputs_table(scenario: Scenario) -> pd.DataFrame:
    """Every input behind the costs, with its unit and source, for a reviewer to trace.

    Returns
    -------
    pandas.DataFrame
        Columns ``option``, ``input``, ``value``, ``unit``, ``source``.
    """
    import pandas as pd

    rows: list[dict[str, str]] = []

    def add(option: str, name: str, value, unit: str, source: str = "") -> None:
        if isinstance(value, float):
            text = f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:,.6g}"
        else:
            text = f"{value:,}" if isinstance(value, int) else str(value)
        rows.append({"option": option, "input": name, "value": text, "unit": unit,
                     "source": source or "scenario file (its comments say where the figure comes from)"})

    work = scenario.workload
    catalog_gpu = f"data/gpus.csv: {work.gpu}"
    add("workload", "GPU", work.gpu, "", catalog_gpu)
    if work.kind == "tokens":
        capacity = work.capacity
        add("workload", "tokens per day", work.tokens_per_day, "tokens/day")
        add("workload", "input tokens per output token", work.input_tokens_per_output_token, "-")
        if work.serving is not None:
            model = work.serving.model
            add("workload", "model served", model, "", f"data/models.csv: {model}")
            add("workload", "precision", work.serving.precision, "")
            add("workload", "peak-to-average ratio", work.serving.peak_to_average, "-")
            add("workload", "target utilisation at the peak", work.serving.target_utilisation, "-")
            add("workload", "KV cache per replica", work.serving.kv_cache_tokens, "tokens")
            add("workload", "GPUs per replica", capacity.gpus_per_replica, "GPU",
                f"memory needs at least {capacity.min_gpus_per_replica}; " + capacity.source)
        add("workload", "serving throughput" + (" (ESTIMATE)" if capacity.estimated else ""),
            capacity.output_tokens_per_second_per_gpu, "output tokens/s/GPU", capacity.source)
        add("workload", "sizing utilisation (average share of throughput used)", capacity.sizing_utilisation, "-",
            "derived: target utilisation / peak-to-average ratio" if work.serving is not None else "")
    elif work.kind == "training":
        source = f"data/models.csv: {work.model}" if work.model else ""
        add("workload", "active parameters N", work.active, "-", source)
        add("workload", "training tokens D", work.training_tokens, "tokens")
        add("workload", "precision of the MFU's peak", work.precision, "", catalog_gpu)
        add("workload", "MFU", work.mfu, "-")
        add("workload", "cluster GPUs", work.cluster_gpus, "GPU")
        add("workload", "training state per parameter", work.state_bytes_per_parameter, "B",
            "Rajbhandari et al. 2020 (ZeRO): 16 B for mixed-precision Adam")
        if work.goodput is not None:
            g = work.goodput
            add("workload", "failures per GPU per year", g.failures_per_gpu_per_year, "1/(GPU·year)", g.source)
            add("workload", "checkpoint write time", g.checkpoint_write_minutes, "min", g.source)
            add("workload", "restart time", g.restart_minutes, "min", g.source)
            add("workload", "checkpoint interval formula", g.interval, "")
    else:
        add("workload", "GPU-hours per month", work.gpu_hours_per_month, "GPU-h/month")
        add("workload", "maximum utilisation", work.max_utilisation, "-")
    if scenario.fx is not None:
        for currency, rate in scenario.fx.rates.items():
            add("fx", f"{currency} to {scenario.reporting_currency}", rate, f"{scenario.reporting_currency}/{currency}",
                f"{scenario.fx.source} (as of {scenario.fx.as_of})")
    own = scenario.options.own
    if own is not None:
        spec = own.server_spec
        cited = f"data/servers.csv: {spec.server} [{spec.quality}, {spec.as_of}] {spec.source}"
        add("own", "server", spec.server, "", cited)
        add("own", "servers", own.server_count, "servers")
        add("own", "GPUs per server", spec.gpus_per_server, "GPU", cited)
        add("own", "server price", spec.price, spec.currency, cited)
        add("own", "max power per server", own.kw_per_server, "kW",
            cited if own.power.kw_per_server is None else own.power.source)
        add("own", "depreciation period", own.depreciation_months, "months", own.source)
        add("own", "hardware support", own.hardware_support_share_per_year, "share of capex/year", own.source)
        add("own", "idle power share", own.power.idle_power_share, "-", own.power.source)
        add("own", "PUE", own.power.pue, "-", own.power.source)
        add("own", "electricity price", own.power.electricity_price_per_kwh, f"{own.power.currency}/kWh", own.power.source)
        if own.colocation is not None:
            add("own", "colocation price", own.colocation.price_per_kw_month, f"{own.colocation.currency}/kW/month",
                own.colocation.source)
        else:
            add("own", "facility build cost", own.facility.price_per_mw, f"{own.facility.currency}/MW",
                own.facility.source)
            add("own", "facility life", own.facility.depreciation_months, "months", own.facility.source)
        for line in own.bill_of_materials:
            if line.share_of_server_price is not None:
                add("own", line.item, line.share_of_server_price, "share of server capex", line.source)
            elif line.price_per_server is not None:
                add("own", line.item, line.price_per_server, f"{line.currency}/server", line.source)
            else:
                add("own", line.item, line.price_total, line.currency, line.source)
        if own.spare_share:
            add("own", "hot spares", own.spare_share, "share of servers")
        _staffing_rows(add, "own", own.staffing)
        if own.software_licences is not None:
            lic = own.software_licences
            add("own", "software licences", lic.price_per_gpu_per_year, f"{lic.currency}/GPU/year", lic.source)
    rent = scenario.options.rent
    if rent is not None:
        offer = rent.offer_spec
        cited = f"data/cloud_prices.csv: {offer.offer} [{offer.quality}, {offer.as_of}] {offer.source}"
        add("rent", "offer", f"{offer.provider}, {offer.pricing}", "", cited)
        add("rent", "price per GPU-hour", offer.price_per_gpu_hour, f"{offer.currency}/GPU-h", cited)
        add("rent", "billing", rent.billing, "")
        if rent.gpu_count is not None:
            add("rent", "GPUs rented 24/7", rent.gpu_count, "GPU")
        if rent.staffing is not None:
            _staffing_rows(add, "rent", rent.staffing)
    api = scenario.options.api
    if api is not None:
        offer = api.offer_spec
        cited = f"data/api_prices.csv: {offer.offer} [{offer.quality}, {offer.as_of}] {offer.source}"
        add("api", "model", f"{offer.provider} {offer.model}", "", cited)
        add("api", "input price", offer.input_per_million, f"{offer.currency}/M tokens", cited)
        cached = offer.cached_input_per_million
        add("api", "cached input price", cached if cached is not None else offer.input_per_million,
            f"{offer.currency}/M tokens", cited)
        add("api", "output price", offer.output_per_million, f"{offer.currency}/M tokens", cited)
        add("api", "cached input share", api.cached_input_share, "-")
    finance = scenario.finance
    if finance is not None:
        add("finance", "horizon", finance.horizon_months, "months", finance.source)
        add("finance", "discount rate", finance.discount_rate_per_year, "1/year", finance.source)
        add("finance", "resale value at the horizon",
            "straight-line book value" if finance.resale_share_at_horizon is None else finance.resale_share_at_horizon,
            "share of hardware capex", finance.source)
        if finance.lead_time_months:
            add("finance", "lead time", finance.lead_time_months, "months", finance.source)
            add("finance", "served meanwhile by", OPTION_LABELS[finance.during_lead_time], "", finance.source)
        if finance.loan is not None:
            loan = finance.loan
            add("finance", "loan rate", loan.rate_per_year, "1/year", loan.source)
            add("finance", "loan term", loan.term_months, "months", loan.source)
            add("finance", "down payment", loan.down_payment_share, "share of hardware capex", loan.source)
        t = finance.trends
        for name, value in (("rental price change", t.rental_price_change_per_year),
                            ("API price change", t.api_price_change_per_year),
                            ("demand growth", t.demand_growth_per_year)):
            add("finance", name, value, "1/year", t.source)
    return pd.DataFrame(rows)


def _staffing_rows(add, option: str, staffing) -> None:
    if staffing.fte is not None:
        add(option, "staffing", staffing.fte, "FTE", staffing.source)
    else:
        add(option, "staffing minimum", staffing.minimum_fte, "FTE", staffing.source)
        add(option, "GPUs per further FTE", staffing.gpus_per_fte, "GPU/FTE", staffing.source)
    add(option, "loaded cost per FTE", staffing.loaded_cost_per_fte_per_year,
        f"{staffing.currency}/FTE/year", staffing.source)
    if staffing.managed_service_per_month:
        add(option, "managed-service fee", staffing.managed_service_per_month, f"{staffing.currency}/month",
            staffing.source)


def _serving_lines(scenario: Scenario) -> list[str]:
    work = scenario.workload
    if work.kind != "tokens":
        return []
    c = work.capacity
    kind = "an ESTIMATE" if c.estimated else "measured"
    return [f"Serving capacity ({kind}): {c.output_tokens_per_second_per_gpu:,.1f} output tokens/s per GPU, "
            f"{c.gpus_per_replica} GPU{'s' if c.gpus_per_replica > 1 else ''} per replica, sized to use "
            f"{c.sizing_utilisation:.0%} of throughput on average. Source: {c.source}.", ""]


def headline(scenario: Scenario, comparison: Comparison) -> str:
    """The answer in a few Markdown sentences.

    The cheapest option and its margin at the scenario's volume; the cheapest option
    over each part of the searched range; each pair's break-even, and whether the
    configured GPUs can serve the volume at which the answer flips (or how far the
    count steps up there); and a caution for every unsourced estimate behind it.
    """
    from .calculator import gpu_count

    currency = comparison.currency
    cheapest = comparison.options[comparison.cheapest]
    lines = [
        f"**{scenario.title}**",
        "",
        *([f"_{scenario.description.strip()}_", ""] if scenario.description else []),
        f"At **{format_volume(scenario, comparison.volume)}** the cheapest option is "
        f"**{OPTION_LABELS[comparison.cheapest]}** at **{cheapest.monthly_cost:,.0f} {currency}/month**, "
        f"{comparison.margin:,.0f} {currency}/month below {OPTION_LABELS[comparison.runner_up]}.",
        "",
        *_serving_lines(scenario),
        "Cheapest option by volume: " + "; ".join(
            f"{OPTION_LABELS[c.option]} from {format_volume(scenario, c.volume_from)} "
            f"to {format_volume(scenario, c.volume_to)}" for c in comparison.cheapest_ranges) + ".",
        "",
        "Break-even volumes:",
        "",
    ]
    for b in comparison.break_evens:
        pair = f"{OPTION_LABELS[b.option_a]} vs {OPTION_LABELS[b.option_b]}"
        if b.volume is None:
            lines.append(f"- {pair}: **never** between {format_volume(scenario, b.volume_min)} and "
                         f"{format_volume(scenario, b.volume_max)}; {OPTION_LABELS.get(b.cheaper_below or '', 'neither')} "
                         "is cheaper throughout.")
            continue
        how = "costs equal" if b.kind == "crossing" else "the cheaper one flips where a GPU count steps up"
        text = (f"- {pair}: **{format_volume(scenario, b.volume)}** ({how}); "
                f"{OPTION_LABELS[b.cheaper_below]} is cheaper below, {OPTION_LABELS[b.cheaper_above]} above.")
        for option in (b.option_a, b.option_b):
            if capacity_volume(scenario, option) is None:
                continue
            configured = int(gpu_count(scenario, option, 0.0))
            needed = int(gpu_count(scenario, option, b.volume))
            if needed > configured:
                text += f" There {OPTION_LABELS[option]} needs {needed} GPUs, up from {configured}."
            else:
                text += f" {OPTION_LABELS[option]}'s {configured} GPUs serve that volume."
        lines.append(text)
    if comparison.finance is not None:
        f = comparison.finance
        npv = {o: v["value"] for o, v in f["npv"].items()}
        best = min(npv, key=npv.get)
        payback = f["payback_month"]
        lines += ["", f"Over {f['horizon_months']} months in cash, at a {f['discount_rate_per_year']:.1%} cost of "
                  f"capital, the lowest present value of costs is **{OPTION_LABELS[best]}**"
                  + (" (unlike the monthly view above)" if best != comparison.cheapest else "")
                  + "; payback of owning: " + (f"month {payback['value']}" if isinstance(payback, dict)
                                                else "never within the horizon") + ". See the horizon section."]
    if comparison.estimates:
        lines += ["", "**Caution:** this result rests on unsourced estimates (quality grade U):", ""]
        lines += [f"- {e}" for e in comparison.estimates]
    return "\n".join(lines)

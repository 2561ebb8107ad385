"""The answer in words: terminal text of a comparison, and the Markdown of report sections.

Every string that comes from a scenario, a catalog or a job log passes through
:func:`costmodel.presentation.safe.markdown` before it reaches Markdown.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..domain.capacity import own_option
from ..formulas.shapes import scalar
from ..resolved import Resolved, as_resolved
from ..results import (
    LAYER_LABELS,
    BreakEven,
    ClaimCheck,
    Comparison,
    Decision,
    EnergyResult,
    GrowthPlan,
    InputBreakEven,
    InputChange,
    MixResult,
    OwnFinance,
    TrainingRun,
)
from ..schema import Scenario
from . import format as fmt
from .safe import markdown as md


def _figure(value: float, unit: str) -> str:
    """A figure on the decision measure with its unit, as the ranked candidates print it: "3,548.61 USD/month"."""
    return f"{fmt.measure_figure(value)} {unit}"


def routing_lines(c: Comparison) -> list[str]:
    """The routing block in terminal lines: each class on its option, the blend, and the saving against the
    baseline serving every request; empty without a routing block."""
    routed, cur = c.routing, c.currency
    if routed is None:
        return []
    wide = max(len(k.name) for k in routed.classes)
    lines = [
        f"routing ({fmt.amount(routed.requests_per_day, 0)} requests/day, each class on its own option; "
        f"monthly view), in {cur}/month:"
    ]
    for k in routed.classes:
        gpus = f" ({fmt.plural(k.gpus, 'GPU')})" if k.gpus is not None else ""
        per_million = (
            f"; {fmt.amount(k.cost_per_million_tokens)} {cur}/M tokens" if k.cost_per_million_tokens is not None else ""
        )
        rate = f"; success rate {fmt.share(k.success_rate)}" if k.success_rate is not None else ""
        lines.append(
            f"  {k.name:<{wide}} {fmt.share(k.share_of_requests)} of requests, {fmt.amount(k.tokens_per_day, 0)} "
            f"tokens/day -> {k.label}{gpus}: {fmt.amount(k.monthly_cost)}{per_million}{rate}"
        )
    saving = (
        f"saves {fmt.amount(routed.saving)} ({fmt.share(routed.saving_share)})"
        if routed.saving >= 0
        else f"costs {fmt.amount(-routed.saving)} more"
    )
    lines.append(
        f"  routed blend {fmt.amount(routed.monthly_cost)} {cur}/month against {routed.baseline_label} serving every "
        f"request {fmt.amount(routed.baseline_cost)}: {saving}"
    )
    if routed.cost_per_successful_task is not None and routed.baseline_cost_per_successful_task is not None:
        lines.append(
            f"  cost per successful task: routed {fmt.significant(routed.cost_per_successful_task, 4)} {cur}, "
            f"{routed.baseline_label} alone {fmt.significant(routed.baseline_cost_per_successful_task, 4)} {cur}"
        )
    return lines


def _margin(d: Decision) -> float:
    """The winner's margin over the runner-up, of a decision that has one. [unit of the decision measure]"""
    margin = d.margin
    assert margin is not None, "a decision with a runner-up has a margin"
    return margin


def _cheaper(label: Callable[[str], str], option: str | None) -> str:
    """The label of the cheaper option of a pair; "neither" where the two cost the same (no option)."""
    return label(option) if option else "neither"


def decision_sentence(comparison: Comparison) -> str:
    """The one verdict in a plain sentence: the winner named with its offer, its figure, the margin, the measure.

    "Hosted API: Claude Opus 4.5 (Anthropic) is the cheapest at 3,548.61 USD/month, 8,521.39 USD/month
    (70.6 %) less than Cloud rental: 2 × H100-SXM-80GB at R1 product brief, on demand, 24/7, on
    the monthly cost at the scenario's volume, 10,000,000 tokens/day."
    """
    d = comparison.decision
    runner_up = d.runner_up
    words = f"{d.winning.label} is the cheapest at {_figure(d.winning.figure, d.unit)}"
    if runner_up is not None and d.tied:
        words += f", tied with {d.label(runner_up)}"
    elif runner_up is not None:
        share = f" ({fmt.share(d.margin_share)})" if d.margin_share is not None else ""
        words += f", {_figure(_margin(d), d.unit)}{share} less than {d.label(runner_up)}"
    return f"{words}, on {d.description}."


def monthly_view_note(comparison: Comparison) -> str | None:
    """Why the monthly view at the volume ranks another option first, with both figures; None when it agrees."""
    c, d = comparison, comparison.decision
    from ..results import Measure

    winner_option = d.winning.option
    steady = c.monthly_cheapest
    if d.measure == Measure.MONTHLY_COST or steady == winner_option:
        return None
    cur = c.currency
    monthly = {o: r.monthly_cost for o, r in c.options.items()}
    against = winner_option if winner_option in monthly else None
    figures = f"{c.label(steady)} {fmt.amount(monthly[steady], 0)} {cur}/month" + (
        f" against {c.label(against)} {fmt.amount(monthly[against], 0)}" if against else ""
    )
    if against is not None and d.winner != against:  # the verdict pays for that option another way
        return (
            f"the monthly view at the volume ranks {c.label(steady)} first ({figures}): it prices "
            f"{c.label(against)} as the scenario states it, while the verdict pays for it another way "
            f"({d.winning.label})"
        )
    if d.measure == Measure.PRESENT_VALUE and c.finance is not None and against is not None:
        f = c.finance
        tco = f.tco_by_option
        if steady in tco and against in tco:
            totals = (
                f"TCO {c.label(steady)} {fmt.amount(tco[steady], 0)} against {c.label(against)} "
                f"{fmt.amount(tco[against], 0)} {cur}"
            )
            if tco[steady] <= tco[against]:
                why = (
                    f"undiscounted it is cheaper over the horizon too ({totals}), so the difference is "
                    f"discounting at {fmt.share(f.discount_rate_per_year)} a year, which weighs the capex paid "
                    "up front"
                )
            else:
                why = (
                    f"over the horizon the lead-time rental, refresh, resale and trends the monthly view leaves "
                    f"out reverse it ({totals})"
                )
            return f"the monthly view at the volume ranks {c.label(steady)} first ({figures}) because {why}"
    if d.measure == Measure.HOURLY_MONTHLY_COST:
        series = np.asarray(c.mix.demand, dtype=float) if c.mix is not None else np.zeros(0)
        quarter = series.size // 4
        growth = bool(quarter and series[-quarter:].mean() > 1.01 * series[:quarter].mean())  # the profile grows
        grows = "; the hour-by-hour figures cover the demand's growth over the year" if growth else ""
        if winner_option is None:  # the mix: the monthly view has one option at a time
            return (
                f"the monthly view at the stated volume prices one option at a time and ranks {c.label(steady)} "
                f"first ({figures}), while the mix combines kinds of capacity hour by hour{grows}"
            )
        return f"the monthly view at the stated volume ranks {c.label(steady)} first ({figures}){grows}"
    if d.measure == Measure.RUN_COST:
        return (
            f"the monthly view ranks {c.label(steady)} first ({figures}): it prices a month of the cluster "
            "busy, while the run costs its GPU-hours"
        )
    return f"the monthly view at the volume ranks {c.label(steady)} first ({figures})"


def plan_sentence(plan: GrowthPlan, currency: str) -> str:
    """The plan in words: "buy 2 servers in month 0, 1 more in month 12, rent the rest"."""
    from ..domain.plan import plan_words

    return (
        f"Capacity plan: {plan_words(plan)}. TCO {fmt.amount(plan.tco, 0)} {currency}, "
        f"present value {fmt.amount(plan.npv, 0)} {currency} (paid in cash)."
    )


def _changes_again(b: BreakEven, volume) -> str:
    """ ", until the cheaper one changes again at V2 (and V3, ...)" where the pair's costs cross or step more than once
    in the searched range (without it, "X above" would read as X all the way to the range's end); else ""."""
    later = [volume(v) for v in b.volumes[1:]]
    if not later:
        return ""
    shown = later[:3] + ([f"{len(later) - 3} more"] if len(later) > 3 else [])
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    return f", until the cheaper one changes again at {listed}"


def break_even_sentence(b: BreakEven, label, unit: str = "") -> str:
    """Plain-text statement of a break-even, with "never" when there is none."""
    a, c = label(b.option_a), label(b.option_b)
    if b.volume is None:
        cheaper = label(b.cheaper_below) if b.cheaper_below else "neither"
        return (
            f"{a} vs {c}: never between {fmt.amount(b.volume_min, 0)} and {fmt.amount(b.volume_max, 0)} {unit} "
            f"({cheaper} cheaper throughout)"
        ).replace("  ", " ")
    how = "costs equal" if b.kind == "crossing" else "GPU count steps up"
    return (
        f"{a} vs {c}: {fmt.amount(b.volume, 0)} {unit} ({how}; {_cheaper(label, b.cheaper_below)} cheaper below, "
        f"{_cheaper(label, b.cheaper_above)} above"
        + _changes_again(b, lambda v: f"{fmt.amount(v, 0)} {unit}".strip())
        + ")"
    )


def input_break_even_sentence(b: InputBreakEven, label) -> str:
    """Plain text of an input break-even: the value, or "never in [low, high]"."""
    other = "the cheapest other option" if b.option_b is None else label(b.option_b)
    if b.value is None:
        return f"{b.path}: {label(b.option_a)} vs {other}: never in [{b.low:g}, {b.high:g}]"
    return f"{b.path}: {label(b.option_a)} costs the same as {other} at {fmt.significant(b.value, 6)}"


def _against_winner(figure: float, best: float) -> str:
    """A ranked candidate's distance to the winner: "+8,521.39 (3.40x; the winner saves 70.6 %)"."""
    if figure == best:
        return ""
    ratio = f"{fmt.significant(figure / best, 3)}x; " if best > 0 else ""
    saved = f"the winner saves {fmt.share(1 - best / figure)}" if figure > 0 else "above the winner"
    return f"  +{fmt.measure_figure(figure - best)} ({ratio}{saved})"


def decision_lines(comparison: Comparison) -> list[str]:
    """The decision in terminal lines: the verdict, the measure, every candidate ranked."""
    c = comparison
    d = c.decision
    lines = [f"verdict: {decision_sentence(c)}"]
    width = max(len(x.label) for x in d.candidates.values())
    lines.append(f"ranked on {d.description} [{d.unit}]:")
    best = d.candidates[d.winner].figure
    lines += [
        f"  {i}. {x.label:<{width}}  {fmt.measure_figure(x.figure):>16}" + _against_winner(x.figure, best)
        for i, x in enumerate(d.candidates.values(), 1)
    ]
    note = monthly_view_note(c)
    if note:
        lines.append(f"  note: {note}")
    return lines


def monthly_view_lines(c: Comparison, wide: int) -> list[str]:
    """Each option's line of the monthly view: its monthly cost, its cost per unit and GPUs, and under it the
    components it adds up from, each from the scenario's inputs (``--json``: ``components``); ``wide``: the
    option column's width [characters]."""
    cur = c.currency
    lines = []
    for r in c.options.values():
        extra = []
        if c.workload_kind == "tokens":
            extra.append(f"{fmt.amount(r.cost_per_million_tokens)} {cur}/M tokens")
            if r.cost_per_request is not None:
                extra.append(f"{fmt.significant(r.cost_per_request, 4)} {cur}/request")
        if r.kind != "api":
            extra.append(f"{fmt.amount(r.cost_per_gpu_hour)} {cur}/GPU-hour used")
        if r.gpus is not None:
            busy = f" {fmt.share(r.utilisation)} busy" if r.utilisation is not None else ""
            extra.append(f"{fmt.plural(r.gpus, 'GPU')}{busy}" + (" (stepped up)" if r.stepped_up else ""))
        lines.append(f"  {r.label:<{wide}} {fmt.amount(r.monthly_cost):>14}   " + "; ".join(extra))
        if r.components:
            parts = " + ".join(f"{name} {fmt.amount(value)}" for name, value in r.components.items())
            lines.append(f"  {'':<{wide}} = {parts}")
    return lines


def comparison_text(comparison: Comparison) -> str:
    """A short plain-text summary of a comparison, for a terminal.

    Takes the domain's :class:`~costmodel.results.Comparison` or the output document of
    :func:`costmodel.compare` (whose ``comparison`` it summarises). The verdict comes first,
    from the decision (one measure, every candidate named); the monthly view at the volume,
    the cheapest option by volume and the break-evens follow, labelled as the monthly view.
    """
    c = getattr(comparison, "comparison", None) or comparison
    label, cur = c.label, c.currency
    wide = max([13] + [len(label(o)) for o in c.options])  # the option column, as wide as its longest label
    lines = [f"Scenario: {c.title}"]
    lines += decision_lines(c)
    if c.plan is not None:
        lines.append(plan_sentence(c.plan, cur))
    if c.training is not None:
        run = c.training
        lines += [
            "training run:",
            "  compute 6*N*D         "
            + (f"{run.flop:.4g} FLOP" if run.flop is not None else "not defined (no training tokens given)"),
            f"  ideal GPU-hours       {fmt.amount(run.ideal_gpu_hours, 0)} GPU-h"
            + (" at the scenario's MFU" if run.flop is not None else " as stated"),
            f"  goodput               {fmt.share(run.goodput)}",
            f"  GPU-hours to pay for  {fmt.amount(run.gpu_hours, 0)} GPU-h",
            f"  wall-clock            {fmt.amount(run.wall_clock_days, 1)} days",
        ]
        lines += [f"  cost, {label(o):<{wide}} {fmt.amount(run.total(o)):>16} {cur}" for o in c.options]
    running = c.training is not None
    recovered = any("capital recovery" in r.components for r in c.options.values())
    capex_words = (
        "capex at its capital-recovery factor by asset life" if recovered else "capex straight-line, no discounting"
    )
    lines.append(
        f"monthly view{' while the run lasts' if running else ''} at {fmt.amount(c.volume, 0)} "
        f"{c.volume_unit} ({'the cluster busy all month; ' if running else ''}{capex_words}), "
        f"in {cur}/month:"
    )
    lines += monthly_view_lines(c, wide)
    for r in c.options.values():
        if r.provider is not None:
            p = r.provider  # one volume: one figure each
            revenue, opex, depreciation, ebit, noi = (
                scalar(x) for x in (p.revenue, p.opex, p.depreciation, p.ebit, p.noi)
            )
            lines.append(
                f"  {r.label} as a provider, {cur}/month: revenue {fmt.amount(revenue)}, opex "
                f"{fmt.amount(opex)}, depreciation {fmt.amount(depreciation)}, EBIT {fmt.amount(ebit)}, "
                f"NOI {fmt.amount(noi)}"
            )
    lines += routing_lines(c)
    lines += data_and_support_text_lines(c, wide)
    lines.append("cheapest by volume (monthly view):")
    lines += [f"  {t}" for t in cheapest_range_lines(c.cheapest_ranges, label, c.volume_unit)]
    lines.append("break-even volumes (monthly view):")
    lines += [f"  {break_even_sentence(b, label, c.volume_unit)}" for b in c.break_evens]
    if c.finance is not None:
        f = c.finance
        lines.append(
            f"over {f.horizon_months} months, cash basis, discount rate "
            f"{fmt.rate_per_year(f.discount_rate_per_year)}"
            + (
                " (the cluster kept busy at the run's rate every month: not the decision measure, which "
                "is the run's cost):"
                if c.training is not None
                else ":"
            )
        )
        for option, tco in f.tco_by_option.items():
            lines.append(
                f"  {label(option):<{wide}} TCO {fmt.amount(tco):>16} {cur}   "
                f"present value {fmt.amount(f.npv_by_option[option]):>16} {cur}"
            )
        lines.append(
            "  own cost per used GPU-hour over the horizon (cash basis): "
            + (
                f"{fmt.amount(f.cost_per_used_gpu_hour, 4)} {cur}/GPU-h"
                if f.cost_per_used_gpu_hour is not None
                else "not defined"
            )
        )
        if f.payback_against is not None:
            lines.append(f"  payback of owning against {label(f.payback_against)}: {payback_words(f)}")
        for b in f.break_even_utilisation:
            lines.append(
                f"  break-even utilisation vs {b.label} at {fmt.significant(b.price_per_gpu_hour, 4)} "
                f"{cur}/GPU-h: " + ("never" if b.utilisation is None else fmt.share(b.utilisation))
            )
    if c.mix is not None:
        lines += _mix_lines(c.mix, cur)
    if c.serving is not None and c.serving.target is not None:
        lines += _serving_lines(c)
    if c.energy is not None and c.energy.tariff is not None:
        t = c.energy.tariff
        lines.append(
            f"time-of-use electricity (in the own option's cost): {fmt.amount(t.cost_per_month)} "
            f"{cur}/month against {fmt.amount(t.flat_cost_per_month)} at the flat price"
        )
    if c.warnings:
        lines.append("warnings (not errors; check these inputs):")
        lines += [f"  {w}" for w in c.warnings]
    if c.estimates:
        lines.append("caution, unsourced estimates behind these figures:")
        lines += [f"  {e}" for e in c.estimates]
    if c.stale:
        lines.append("caution, catalog prices older than their table allows (`costmodel catalog stale` lists all):")
        lines += [f"  {s}" for s in c.stale]
    return "\n".join(lines)


def data_and_support_text_lines(comparison: Comparison, wide: int = 13) -> list[str]:
    """The monthly view's storage, egress, CPU-node and support lines of each option, or nothing.

    Nothing when no option carries such a line (a scenario without ``data_and_support``). The own
    option's storage and CPU nodes are capex: their monthly capital charge, inside its capex lines.
    """
    c = comparison
    carried = {name: r for name, r in c.options.items() if r.data_and_support}
    if not carried:
        return []
    lines = [f"data and support lines (within the monthly view), in {c.currency}/month:"]
    for name, r in c.options.items():
        if r.kind == "api":
            words = "none (the API's price includes them)"
        elif name not in carried:
            words = "none"
        else:
            words = "; ".join(f"{part} {fmt.amount(value)}" for part, value in r.data_and_support.items())
            if r.kind == "own":
                words += " (storage and CPU nodes bought: their capex over its life; support: hardware support)"
        lines.append(f"  {r.label:<{wide}} {words}")
    return lines


def payback_words(f: OwnFinance) -> str:
    """The payback in words: "after 51 months (50.4 interpolated, discounted 55.6)" or "never within the horizon"."""
    if f.payback_month is None:
        return "never within the horizon"
    if f.payback_month == 0:
        return "from the start (owning is ahead in every month's running total: nothing up front to recover)"
    if f.payback_months is None:
        return f"after {f.payback_month} months"
    discounted = "never" if f.discounted_payback_months is None else fmt.amount(f.discounted_payback_months, 1)
    return f"after {f.payback_month} months ({fmt.amount(f.payback_months, 1)} interpolated, discounted {discounted})"


def hybrid_sentence(result: MixResult) -> str | None:
    """For a tokens workload: "4 owned replicas, the API above 4,359,744,000 tokens/day (0.13 % of tokens ...)"."""
    share = result.api_share()
    if share is None:
        return None
    held = ", ".join(
        f"{v:,} {LAYER_LABELS[k].lower()} replica{'s' if v != 1 else ''}" for k, v in share["replicas"].items() if v
    )
    above = share["api_above_tokens_per_day"]
    if above is None:
        return (held or "no replicas") + "; the API takes no tokens"
    api = (
        f"the API above {fmt.amount(above, 0)} tokens/day ({fmt.share(share['token_share'])} of tokens, "
        f"{fmt.share(share['cost_share'])} of the cost)"
    )
    if not held:
        return "every token through the API (no replicas)"
    return f"{held}, {api}"


ALTERNATING_RANGES = 6
"""More volume ranges than this, and the ones where two options trade places with each whole server or
GPU bought are told as one range."""


def cheapest_range_parts(ranges, label) -> list[tuple[float, float, str]]:
    """The cheapest option by volume as (from, to, words); a run of ranges in which two options alternate
    (whole servers against whole rented GPUs stepping up at different volumes) is one part naming both."""
    ranges = list(ranges)
    if len(ranges) <= ALTERNATING_RANGES:
        return [(x.volume_from, x.volume_to, label(x.option)) for x in ranges]
    out, i, n = [], 0, len(ranges)
    while i < n:
        j = i + 2  # ranges[i:j]: each the same option as the one two before it
        while j < n and ranges[j].option == ranges[j - 2].option:
            j += 1
        inner = ranges[i + 1 : j - 1]  # the first and last of a run stand on their own
        out.append((ranges[i].volume_from, ranges[i].volume_to, label(ranges[i].option)))
        if len(inner) >= 3:
            out.append(
                (
                    inner[0].volume_from,
                    inner[-1].volume_to,
                    f"{label(inner[0].option)} and {label(inner[1].option)} in turn, {len(inner)} ranges "
                    "(whole servers and whole rented GPUs step up at different volumes)",
                )
            )
            i = j - 1
        else:
            i += 1
    return out


def cheapest_range_lines(ranges, label, unit: str) -> list[str]:
    """:func:`cheapest_range_parts` one line each: "0 to 37,940 GPU-hours/month: Cloud rental"."""
    return [
        f"{fmt.amount(a, 0)} to {fmt.amount(b, 0)} {unit}: {words}"
        for a, b, words in cheapest_range_parts(ranges, label)
    ]


def _layer_phrase(layer) -> str:
    """One layer in a sentence.

    "reserved 7 GPUs", "owned 1 server (8 GPUs)", "tokens to DeepSeek V4.1 Flash (DeepSeek)".
    """
    if layer.kind == "api":
        return f"tokens to {layer.offer}"
    return f"{LAYER_LABELS[layer.kind].lower()} {_layer_words(layer)}"


def _layer_words(layer) -> str:
    """One layer as bought: "2 servers (16 GPUs)", "24 GPUs", "up to 9 GPUs", "tokens"."""
    if layer.kind == "own":
        return f"{fmt.plural(layer.units, 'server')} ({fmt.plural(layer.gpus, 'GPU')})"
    if layer.kind in ("reserved", "always_on"):
        return f"{layer.gpus:,} GPU{'s' if layer.gpus != 1 else ''}"
    if layer.kind == "api":
        return "tokens"
    return f"up to {layer.gpus:,} GPU{'s' if layer.gpus != 1 else ''}"


def _mix_lines(result: MixResult, currency: str) -> list[str]:
    m = result.mix
    lines = [f"cheapest mix for the {result.profile} demand profile, {fmt.amount(m.total)} {currency}/month:"]
    hybrid = hybrid_sentence(result)
    if hybrid is not None:
        lines.append(f"  {hybrid}")
    if not m.layers:
        lines.append("  no capacity: the profile holds no demand")
    for layer in m.layers.values():
        lines.append(
            f"  {LAYER_LABELS[layer.kind]:<11} {_layer_words(layer):<22} {fmt.amount(layer.cost):>14} "
            f"{currency}/month  {fmt.share(layer.work_share)} of the work; {layer.offer}"
        )
    if m.staffing:
        lines.append(f"  rental staffing {'':<18} {fmt.amount(m.staffing):>14} {currency}/month")
    for kind, saving in m.savings().items():
        if abs(saving) < 0.005:  # the mix is that kind alone
            continue
        lines.append(f"  saves {fmt.amount(saving)} {currency}/month against all {m.pure_words(kind)}")
    if result.if_steady is not None:
        s = result.if_steady
        steady = "; ".join(_layer_phrase(x) for x in s.layers.values()) or "nothing"
        lines.append(f"  with the same average demand steady: {steady}, {fmt.amount(s.total)} {currency}/month")
    return lines


def _target_words(target: dict | None) -> str:
    if target is None:
        return "no latency target: sized at maximum throughput (the measured row or estimate), as before"
    parts = []
    if target["ttft_seconds"] != "no bound":
        parts.append(
            f"time to first token at most {fmt.significant(target['ttft_seconds'], 3)} s ({target['ttft_statistic']})"
        )
    if target["tokens_per_second_per_user"] != "no bound":
        parts.append(f"at least {fmt.amount(target['tokens_per_second_per_user'], 1)} tokens/s per user")
    return " and ".join(parts)


def _point_words(p) -> str:
    return (
        f"{fmt.amount(p.tokens_per_second_per_user, 1)} tokens/s per user, first token in "
        f"{fmt.significant(p.ttft, 3)} s, {fmt.amount(p.throughput_per_gpu, 1)} output tokens/s per GPU at "
        f"{fmt.amount(p.concurrency, 1)} requests per replica"
    )


def _fleet_words(f, replica: int) -> str:
    words = (
        f"{fmt.plural(f.gpus, 'GPU')} = {f.replicas:,} replica{'s' if f.replicas != 1 else ''} of {replica} on "
        f"{f.servers:,} server{'s' if f.servers != 1 else ''}"
    )
    if f.spare_replicas:
        words += f", {f.spare_replicas} spare"
    if f.prefill_replicas is not None:
        words += (
            f"; prefill pool {f.prefill_replicas} replica{'s' if f.prefill_replicas != 1 else ''} "
            f"({fmt.plural(f.prefill_replicas * replica, 'GPU')}), decode pool {f.decode_replicas} "
            f"({fmt.plural(f.decode_replicas * replica, 'GPU')})"
        )
    return words


def _serving_lines(c: Comparison) -> list[str]:
    s = c.serving
    assert s is not None, "the serving lines are written for a served model only"
    lines = [f"serving target: {_target_words(s.target)}", f"  {s.mode} serving ({s.mode_reason})"]
    if s.point is not None:
        lines.append(f"  operating point: {_point_words(s.point)}")
        lines.append(f"  source: {s.point.source}")
    lines.append(
        f"  replica: {fmt.plural(s.gpus_per_replica, 'GPU')} on {s.servers_per_replica} server"
        f"{'s' if s.servers_per_replica > 1 else ''}; per GPU {fmt.amount(s.weights_gb_per_gpu, 1)} GB "
        f"weights + {fmt.amount(s.kv_cache_gb_per_gpu, 1)} GB KV cache of "
        f"{fmt.amount(s.memory_gb_per_gpu, 0)} GB"
    )
    for name, f in s.fleets.items():
        lines.append(f"  {c.label(name):<13} {_fleet_words(f, s.gpus_per_replica)}")
    lines.append(
        "cost per million output tokens: "
        + "; ".join(
            f"{c.label(n)} {fmt.amount(r.cost_per_million_output_tokens)} {c.currency}" for n, r in c.options.items()
        )
    )
    return lines


def describe_serving(comparison: Comparison) -> str:
    """The serving chapter's text, for a capacity planner: target, point, replica, fleets, pools, spares.

    Empty when the workload serves no named model.
    """
    c = comparison
    s = c.serving
    if s is None:
        return ""
    cur = c.currency
    lines = [f"**Target:** {md(_target_words(s.target))}."]
    if s.input_tokens is not None:
        lines.append(f"**Request:** {s.input_tokens:,} input and {s.output_tokens:,} output tokens.")
    if s.point is not None:
        kind = s.point.basis.replace("estimated", "ESTIMATED", 1)
        lines.append(f"**Operating point ({kind}):** {md(_point_words(s.point))}. Source: {md(s.point.source)}.")
        if s.point.basis.startswith("estimated with aiconfigurator-core"):
            from ..catalog import estimate_validation

            band = estimate_validation()
            if band is not None:
                lines.append(f"**How far the estimate can be off:** {md(band.describe())}.")
    lines.append(
        f"**Serving:** {s.mode} ({md(s.mode_reason)}); the fleet is sized with "
        f"{fmt.amount(s.throughput_per_gpu, 1)} output tokens/s per GPU"
        + (f", {fmt.share(s.prefill_share, 0)} of the GPU time in the prefill pool" if s.prefill_share else "")
        + "."
    )
    lines.append(
        f"**Replica:** {fmt.plural(s.gpus_per_replica, 'GPU')} on {s.servers_per_replica} server"
        f"{'s' if s.servers_per_replica > 1 else ''} of {s.gpus_per_server}"
        + (" (the replica spans servers)" if s.servers_per_replica > 1 else "")
        + f"; memory per GPU: {fmt.amount(s.weights_gb_per_gpu, 1)} GB of weights and "
        f"{fmt.amount(s.kv_cache_gb_per_gpu, 1)} GB of KV cache of {fmt.amount(s.memory_gb_per_gpu, 0)} GB."
    )
    if s.spare_replicas or s.availability < 1:
        lines.append(
            f"**Redundancy:** {s.spare_replicas} spare replica{'s' if s.spare_replicas != 1 else ''}"
            + (
                f"; availability {fmt.share(s.availability, 2)} cuts the utilisation ceiling"
                if s.availability < 1
                else ""
            )
            + "."
        )
    for name, f in s.fleets.items():
        lines.append(f"**{md(c.label(name))}:** {md(_fleet_words(f, s.gpus_per_replica))}.")
    lines.append(
        "**Cost per million output tokens:** "
        + "; ".join(
            f"{md(c.label(n))} {fmt.amount(r.cost_per_million_output_tokens)} {cur}" for n, r in c.options.items()
        )
        + "."
    )
    return "\n\n".join(lines)


def serving_sentence(scenario: Scenario | Resolved) -> str:
    """Where the serving capacity comes from, in one Markdown sentence (empty for other workloads)."""
    r = as_resolved(scenario)
    c = r.workload.capacity
    if c is None:
        return ""
    kind = "an ESTIMATE" if c.estimated else "measured"
    return (
        f"Serving capacity ({kind}): {fmt.amount(float(c.output_tokens_per_second_per_gpu), 1)} output tokens/s "
        f"per GPU, {c.gpus_per_replica} GPU{'s' if c.gpus_per_replica > 1 else ''} per replica, sized to use "
        f"{fmt.share(float(c.sizing_utilisation), 0)} of throughput on average. Source: {md(c.source)}."
    )


def headline(scenario: Scenario | Resolved, comparison: Comparison, verdict: bool = True) -> str:
    """The answer in a few Markdown sentences (``verdict``: open with the decision's verdict;
    the report leaves it to its executive summary, which states it already).

    The monthly view of each option at the scenario's volume (and, where it ranks another
    option first than the decision, why); the cheapest option over each part of the searched
    range; each pair's break-even, and whether the
    configured GPUs can serve the volume at which the answer flips (or how far the
    count steps up there); and a caution for every unsourced estimate behind it.
    """
    from ..domain.capacity import capacity_volume, gpu_count

    r = as_resolved(scenario)
    c = getattr(comparison, "comparison", None) or comparison  # the domain result or the output document
    kind, cur, label = c.workload_kind, c.currency, c.label
    monthly = {o: x.monthly_cost for o, x in c.options.items()}
    ranked = sorted(monthly, key=lambda o: monthly[o])
    note = monthly_view_note(c)
    lines = [
        f"**{md(r.title)}**",
        "",
        *([f"_{md(r.scenario.description)}_", ""] if r.scenario.description.strip() else []),
        *([f"**Verdict:** {md(decision_sentence(c))}", ""] if verdict else []),
        f"Monthly view at **{fmt.volume(kind, c.volume)}** (capex straight-line, no discounting): "
        + "; ".join(f"{md(label(o))} {fmt.amount(monthly[o], 2)} {cur}/month" for o in ranked)
        + (f". Unlike the verdict, {md(note)}." if note else "."),
        "",
    ]
    serving = serving_sentence(r)
    if serving:
        lines += [serving, ""]
    lines += [
        "Cheapest option by volume: "
        + "; ".join(
            f"{md(words)} from {fmt.volume(kind, a)} to {fmt.volume(kind, b)}"
            for a, b, words in cheapest_range_parts(c.cheapest_ranges, label)
        )
        + ".",
        "",
        "Break-even volumes:",
        "",
    ]
    for b in c.break_evens:
        pair = f"{md(label(b.option_a))} vs {md(label(b.option_b))}"
        if b.volume is None:
            cheaper = md(label(b.cheaper_below)) if b.cheaper_below else "neither"
            lines.append(
                f"- {pair}: **never** between {fmt.volume(kind, b.volume_min)} and "
                f"{fmt.volume(kind, b.volume_max)}; {cheaper} is cheaper throughout."
            )
            continue
        how = "costs equal" if b.kind == "crossing" else "the cheaper one flips where a GPU count steps up"
        text = (
            f"- {pair}: **{fmt.volume(kind, b.volume)}** ({how}); {md(_cheaper(label, b.cheaper_below))} is cheaper "
            f"below, {md(_cheaper(label, b.cheaper_above))} above"
            + _changes_again(b, lambda v: fmt.volume(kind, v))
            + "."
        )
        for option in (b.option_a, b.option_b):
            if capacity_volume(r, option) is None:
                continue
            configured = int(gpu_count(r, option, 0.0))
            needed = int(gpu_count(r, option, b.volume))
            if needed > configured:
                text += f" There {md(label(option))} needs {fmt.plural(needed, 'GPU')}, up from {configured:,}."
            else:
                serve = "serves" if configured == 1 else "serve"
                text += f" {md(label(option))}'s {fmt.plural(configured, 'GPU')} {serve} that volume."
        lines.append(text)
    f = c.finance
    if f is not None and f.payback_against is not None:
        lines += [
            "",
            f"Payback of owning against {md(label(f.payback_against))}: {payback_words(f)}. See the horizon section.",
        ]
    if c.estimates:
        lines += ["", "**Caution:** this result rests on unsourced estimates (quality grade U):", ""]
        lines += [f"- {md(e)}" for e in c.estimates]
    if c.stale:
        lines += [
            "",
            "**Caution:** these catalog prices are older than their table allows; check them before "
            "relying on the verdict:",
            "",
        ]
        lines += [f"- {md(s)}" for s in c.stale]
    return "\n".join(lines)


_BASIS = {
    "mfu": "MFU",
    "achieved_tflops_per_gpu": "TFLOP/s per GPU achieved",
    "tokens_per_second_per_gpu": "tokens/s per GPU",
    "gpu_hours": "GPU-hours",
    "gpu_hours_per_trillion_tokens": "GPU-hours per trillion tokens",
    "wall_clock_days": "days of wall clock",
    "wall_clock_hours": "hours of wall clock",
    "wall_clock": "hours of wall clock",
}
"""How a stage was stated, in words (the unit of its stated value)."""
_INTERVAL = {"young": "Young 1974", "daly": "Daly 2006", "young_restart": "Young with the recovery time, √(2δ(M + R))"}


def describe_training_run(scenario: Scenario | Resolved, run: TrainingRun) -> str:
    """The run in a few Markdown sentences, cheapest option first."""
    from ..domain.costs import own_hardware_capex

    r = as_resolved(scenario)
    cur = r.currency
    work = r.workload.training
    if work is None:
        raise ValueError(f"{r.title!r} is not a training workload: its run cannot be described")
    ranked = sorted(run.costs, key=run.total)
    lines = [f"**{md(r.title)}**", ""]
    if run.warnings:
        lines += ["**Plausibility warnings** (not errors; check these inputs):", ""]
        lines += [f"- {md(w)}" for w in run.warnings] + [""]
    stated = [s for s in work.stages if s.mfu is None]
    if len(work.stages) == 1 and not stated:
        lines += [
            f"6 · N · D = 6 × {work.active_parameters:.3g} × {work.training_tokens:.3g} = **{run.flop:.3g} FLOP**. "
            f"At {fmt.share(run.mfu)} MFU of the {fmt.amount(run.peak_tflops, 0)} TFLOP/s dense "
            f"{work.precision.upper()} peak of the {md(r.workload.gpu.gpu)}"
            + (
                f" (stated as {work.stages[0].stated:,.4g} {_BASIS[work.stages[0].basis]})"
                if work.stages[0].basis != "mfu"
                else ""
            )
            + f": **{fmt.gpu_hours(run.ideal_gpu_hours)}**"
            + (
                f", **{fmt.gpu_hours(run.gpu_hours, unit=False)}** at a goodput of {fmt.share(run.goodput)}"
                if run.goodput < 1
                else ""
            )
            + f"; **{fmt.amount(run.wall_clock_days, 1)} days** on {work.cluster_gpus:,} GPUs."
        ]
    else:
        parts = "; ".join(f"{md(s.name)} {fmt.gpu_hours(s.gpu_hours, unit=False)}" for s in run.stages)
        lines += [
            (f"By stage: {parts}; in all " if len(run.stages) > 1 else "Stated: ")
            + f"**{fmt.gpu_hours(run.gpu_hours)}** on the {md(r.workload.gpu.gpu)}, "
            f"**{fmt.amount(run.wall_clock_days, 1)} days** of wall clock"
            + (
                f"; MFU backed out over the run: {fmt.share(run.mfu)} of the {fmt.amount(run.peak_tflops, 0)} TFLOP/s "
                f"dense {work.precision.upper()} peak (6 · N · D = {run.flop:.3g} FLOP; time lost to failures included)"
                if run.mfu is not None
                else "; no MFU (no training tokens given)"
            )
            + "."
        ]
    lines += [
        "",
        "Cost of the run, cheapest first: "
        + "; ".join(f"{md(r.label(o))} **{fmt.amount(run.total(o), 0)} {cur}**" for o in ranked)
        + ".",
    ]
    if run.job_mtbf_hours is not None:
        assert run.checkpoint_interval_hours is not None and work.goodput is not None, (
            "a run with failures has a goodput block and a checkpoint interval"
        )
        lines += [
            "",
            f"Failures: the job fails every {fmt.amount(run.job_mtbf_hours)} h on average; checkpoints "
            f"every {fmt.amount(run.checkpoint_interval_hours * 60, 1)} min "
            f"({_INTERVAL[work.goodput.interval]})"
            + (f", {run.checkpoint_interval_steps:,} training steps" if run.checkpoint_interval_steps else "")
            + f"; each failure costs {fmt.amount(run.gpu_hours_lost_per_failure, 0)} GPU-hours "
            "(recovery plus half an interval of work redone).",
        ]
    if "own" in r.options:
        own = own_option(r)
        capex = float(own_hardware_capex(own, float(own.server_count)))
        lines += [
            "",
            f"The own cluster is charged only the {fmt.amount(run.months)} months of depreciation and "
            f"running costs the run takes; buying it costs **{fmt.amount(capex, 0)} {cur}** up front, which "
            f"pays off only if it stays busy for the rest of its {own.depreciation_months:g}-month life.",
        ]
    if r.estimates:
        lines += ["", "**Caution:** this result rests on unsourced estimates (quality grade U):", ""]
        lines += [f"- {md(e)}" for e in r.estimates]
    if r.scenario.description.strip():
        lines += ["", f"_{md(r.scenario.description)}_"]
    return "\n".join(lines)


def describe_finance(scenario: Scenario | Resolved, result: OwnFinance) -> str:
    """The own cluster's decision figures over the horizon in a few Markdown sentences."""
    r = as_resolved(scenario)
    cur = r.currency
    lines = [
        f"Over **{result.horizon_months} months** (cash basis; present value at "
        f"{fmt.share(result.discount_rate_per_year)} a year):",
        "",
    ]
    for option in result.tco_by_option:
        lines.append(
            f"- {md(r.label(option))}: TCO **{fmt.amount(result.tco_by_option[option], 0)} {cur}**, "
            f"present value {fmt.amount(result.npv_by_option[option], 0)} {cur}"
        )
    lines.append("")
    best_npv = min(result.npv_by_option, key=lambda o: result.npv_by_option[o])
    best_tco = min(result.tco_by_option, key=lambda o: result.tco_by_option[o])
    ranked = sorted(result.npv_by_option.values())
    if len(ranked) > 1:
        lines.append(
            f"Lowest present value of costs of the options as stated: **{md(r.label(best_npv))}**, "
            f"{fmt.amount(ranked[1] - ranked[0], 0)} {cur} below the next (the verdict above ranks every "
            "way to pay, the rent option's other terms and the capacity plan included)."
        )
    if best_npv != best_tco:
        lines.append(
            f"Undiscounted, {md(r.label(best_tco))} costs less over the horizon; at "
            f"{fmt.share(result.discount_rate_per_year)} a year the money spent up front on hardware weighs "
            f"more, so on present value {md(r.label(best_npv))} wins."
        )
    lines.append("")
    cost = (
        "not defined (no GPU-hour used)"
        if result.cost_per_used_gpu_hour is None
        else f"**{fmt.amount(result.cost_per_used_gpu_hour)} {cur} per used GPU-hour**"
    )
    use = "" if result.utilisation is None else f" at {fmt.share(result.utilisation)} utilisation"
    lines.append(
        f"Over the horizon, in cash, owning costs {cost}{use} (capex when bought, interest, the lead "
        "time's idle hardware, less resale). The break-even utilisations below are the steady-state "
        "(monthly, depreciation-basis) view."
    )
    if result.payback_against is not None:
        lines.append(
            f"Payback against {md(r.label(result.payback_against))}: **{payback_words(result)}** (the "
            "first month after which owning stays cheaper, cumulatively; capex at the start of its month, "
            "each month's saving at its end)."
        )
        lines += ["", returns_sentence(r.label, result)]
    if result.after_tax_tco_by_option is not None:
        after_tax_npv = result.after_tax_npv_by_option
        assert after_tax_npv is not None, "a result after tax has both its TCO and its present value"
        lines += [
            "",
            f"After tax at {fmt.share(result.tax_rate)} (expenses deducted as paid, hardware depreciated "
            "for tax, tax on resale): "
            + "; ".join(
                f"{md(r.label(o))} TCO {fmt.amount(v, 0)} {cur}, present value {fmt.amount(after_tax_npv[o], 0)} {cur}"
                for o, v in result.after_tax_tco_by_option.items()
            )
            + ".",
        ]
    return "\n".join(lines)


def returns_sentence(label, result: OwnFinance) -> str:
    """IRR, MIRR, ROI and fractional paybacks of owning against the compared option, in one Markdown sentence.

    The compared option's label (``label(option)``, scenario text) is escaped like every other text.
    """

    def rate(x):
        return (
            "not defined (the gains never change sign, or no rate brings their present value to zero)"
            if x is None
            else f"{fmt.share(x, 2)} a year"
        )

    def months(x):
        return "never within the horizon" if x is None else f"{fmt.amount(x, 2)} months"

    return (
        f"Owning instead of {md(label(result.payback_against))}: IRR {rate(result.irr_per_year)}, MIRR "
        f"{rate(result.mirr_per_year)}, ROI "
        + ("not defined" if result.roi is None else fmt.share(result.roi, 2))
        + f" (net gain / investment); payback {months(result.payback_months)}, discounted payback "
        f"{months(result.discounted_payback_months)} (interpolated within the month). Present values are "
        f"of costs (lower is better), by {result.npv_period}, cash at the "
        f"{'start' if result.npv_timing == 'begin' else 'end'} of each period."
    )


def describe_mix(result: MixResult, currency: str) -> str:
    """The cheapest mix in a few Markdown sentences, with the steady case beside it."""
    mix = result.mix
    bands = [_layer_phrase(x) for x in mix.layers.values()] or ["nothing"]
    lines = [
        f"Cheapest mix for this demand: **{md('; '.join(bands))}**, "
        f"**{fmt.amount(mix.total, 0)} {currency}/month** (each kind bought as it is sold: whole servers, "
        "whole replicas, GPU-hours, tokens)."
    ]
    hybrid = hybrid_sentence(result)
    if hybrid is not None:
        lines.append(f"- Replicas and API: {hybrid}.")
    for layer in mix.layers.values():
        busy = f"; busy {fmt.share(layer.utilisation)} of the hours paid for" if layer.utilisation is not None else ""
        lines.append(
            f"- {LAYER_LABELS[layer.kind]}: {md(layer.offer)}, {fmt.share(layer.work_share)} of the work{busy}."
        )
    lines += [
        f"- Against all {md(mix.pure_words(k))}: saves {fmt.amount(v, 0)} {currency}/month"
        for k, v in mix.savings().items()
        if abs(v) >= 0.005
    ]
    if result.if_steady is not None:
        s = result.if_steady
        steady = "; ".join(_layer_phrase(x) for x in s.layers.values()) or "nothing"
        lines += [
            "",
            f"With the same average demand spread evenly (steady): {md(steady)}, "
            f"{fmt.amount(s.total, 0)} {currency}/month.",
        ]
    return "\n".join(lines)


def describe_energy(result: EnergyResult, currency: str) -> str:
    """Energy, emissions and power of the options in a few Markdown sentences."""
    lines = []
    for e in result.options.values():
        if e.energy_kwh_per_month is None:
            lines.append(f"- **{md(e.label)}**: not covered ({md(e.notes[0]) if e.notes else 'no figure'}).")
            continue
        co2e = e.co2e_kg_per_month
        spread = ""
        if e.energy_kwh_range is not None:
            spread = f" (range {fmt.amount(e.energy_kwh_range[0], 0)}-{fmt.amount(e.energy_kwh_range[1], 0)})"
        lines.append(
            f"- **{md(e.label)}** ({'estimate' if e.basis == 'estimate' else 'derived from the scenario'}): "
            f"**{fmt.amount(e.energy_kwh_per_month, 0)} kWh/month**{spread}; "
            + (
                f"**{fmt.amount(co2e, 0)} kg CO2e/month** location-based "
                f"({fmt.amount(e.operational_co2e_kg_per_month, 0)} operational, "
                f"{fmt.amount(e.embodied_co2e_kg_per_month, 0)} embodied)"
                if co2e is not None
                else "no emissions: no grid region given (energy.grid_region)"
            )
            + (
                f"; {fmt.amount(e.market_co2e_kg_per_month, 0)} kg CO2e/month market-based"
                if e.market_co2e_kg_per_month is not None
                else ""
            )
            + (
                f"; {fmt.amount(e.co2e_kg_per_million_tokens, 3)} kg CO2e per M tokens"
                if e.co2e_kg_per_million_tokens is not None
                else ""
            )
            + (
                f"; {fmt.amount(e.wh_per_1000_output_tokens, 2)} Wh per 1,000 output tokens"
                if e.wh_per_1000_output_tokens is not None
                else ""
            )
            + (
                f"; {fmt.amount(e.output_tokens_per_joule, 3)} output tokens per joule at full load"
                if e.output_tokens_per_joule is not None
                else ""
            )
            + "."
        )
    if result.power is not None:
        p = result.power
        lines += [
            "",
            f"Power budget: the own cluster's {fmt.plural(p.servers, 'server')} need "
            f"**{fmt.amount(p.needed_kw, 1)} kW** "
            f"at the meter (max power × PUE) against a budget of {fmt.amount(p.budget_kw, 1)} kW: "
            f"**{fmt.amount(p.headroom_kw, 1)} kW of headroom**; at most {p.max_servers} working servers "
            f"({p.max_gpus:,} GPUs) fit.",
        ]
    if result.tariff is not None:
        t = result.tariff
        lines += [
            "",
            f"Time-of-use tariff over the demand profile: the own cluster's electricity costs "
            f"**{fmt.amount(t.cost_per_month)} {currency}/month** against "
            f"{fmt.amount(t.flat_cost_per_month)} at the flat price for the same hourly draw "
            f"({fmt.amount(t.energy_kwh_per_month, 0)} kWh/month; "
            f"{fmt.amount(t.unserved_gpu_hours_per_month, 0)} GPU-hours/month of demand above the fleet). "
            f"Tariff: {md(t.source)}. The own option's cost, and so the verdict, use the tariff.",
        ]
    if result.training is not None:
        t = result.training
        parts = []
        for name, (basis, mwh, operational, embodied) in t.by_option.items():
            label = result.options[name].label if name in result.options else name
            co2 = (
                ""
                if operational is None or embodied is None
                else f", {fmt.amount(operational + embodied, 0)} t CO2e ({fmt.amount(operational, 0)} operational, "
                f"{fmt.amount(embodied, 0)} embodied)"
            )
            parts.append(f"{md(label)} **{fmt.amount(mwh, 0)} MWh**{co2} ({basis})")
        lines += [
            "",
            "Training run, from each option's power model (the one its electricity cost uses): "
            + "; ".join(parts)
            + ". By the model cards' method (GPU-hours × TDP × PUE), for comparison "
            f"with published figures: {fmt.amount(t.energy_mwh, 0)} MWh"
            + (f", {fmt.amount(t.co2e_t, 0)} t CO2e operational" if t.co2e_t is not None else "")
            + (f", {fmt.amount(t.market_co2e_t, 0)} t CO2e market-based" if t.market_co2e_t is not None else "")
            + ".",
        ]
        if t.power_basis == "measured" or t.provisioned_facility_power_kw is not None:
            lines[-1] = (
                lines[-1].replace("GPU-hours × TDP × PUE", "GPU-hours × measured power per GPU × PUE")
                if t.power_basis == "measured"
                else lines[-1]
            )
            lines += [
                "",
                f"Run power ({'measured' if t.power_basis == 'measured' else 'TDP'}, "
                f"{fmt.amount(t.watts_per_gpu, 0)} W per GPU): IT load **{fmt.amount(t.it_load_kw, 1)} kW**, "
                f"facility **{fmt.amount(t.facility_power_kw, 1)} kW** (× PUE {fmt.significant(t.pue, 3)})"
                + (
                    f", provisioned with N+k redundancy **{fmt.amount(t.provisioned_facility_power_kw, 1)} kW**"
                    if t.provisioned_facility_power_kw is not None
                    else ""
                )
                + ".",
            ]
    if result.sources:
        lines += ["", "Grid intensity: " + "; ".join(md(s) for s in result.sources) + "."]
    return "\n".join(lines)


def diff_text(result) -> str:
    """Plain-text summary of a :class:`~costmodel.results.ScenarioDiff`: the measures, then each input."""
    lines = [f"{result.name_b} against {result.name_a} (amounts in {result.currency}; Shapley split: {result.method}):"]
    for measure, (a, b) in result.measures.items():
        lines.append(f"  {measure:<22} {a:>16,.2f} -> {b:>16,.2f}  change {b - a:>+16,.2f}")
    if not result.inputs and not result.other:
        lines.append("no input differs")
    for d in result.inputs:
        lines.append(f"{d.path} ({d.title}): {fmt.stated(d.a)} -> {fmt.stated(d.b)} {d.unit}")
        if d.source_a != d.source_b:
            lines.append(f"    source A: {d.source_a or '-'}")
            lines.append(f"    source B: {d.source_b or '-'}")
        for measure in result.measures:
            lines.append(
                f"    {measure:<22} alone {d.one_at_a_time[measure]:>+16,.2f}   "
                f"share of change {d.shapley[measure]:>+16,.2f}"
            )
    if result.other:
        moved = any(round(v, 2) != 0 for v in result.other_effect.values())
        lines.append(f"other differences ({'together they moved' if moved else 'together they moved nothing'}):")
        lines += [f"    {field}: {a!r} -> {b!r}" for field, a, b in result.other]
        lines += [f"    {m:<22} {v:>+16,.2f}" for m, v in result.other_effect.items()]
    return "\n".join(lines)


def cheapest_claim_words(
    claim: ClaimCheck, volume_unit: str, times: str = "x", label: Callable[[str], str] | None = None
) -> str:
    """What a cheapest claim states and what the model computes, in words: "stated: Cloud rental (rent) costs less
    than Hosted API (api) at 100,000,000 tokens/day (10 x the volume); computed: Cloud rental 12,070.00 USD/month
    against Hosted API 35,486.11 USD/month" (``times``: the sign between a multiple and "the volume"; ``label``: an
    option's display name, as the comparison shows it, else its key alone); a training run's is on the cost of the
    whole run."""
    option, other = claim.options
    named = (lambda key: key) if label is None else label
    if claim.volume is None:  # a training run's: on the cost of the whole run
        at = "over the whole training run"
    else:
        at = f"at {fmt.amount(claim.volume, 0)} {volume_unit}" + (
            f" ({fmt.significant(claim.stated_multiple, 3)} {times} the volume)"
            if claim.stated_multiple is not None
            else ""
        )
    keys = {key: key if named(key) == key else f"{named(key)} ({key})" for key in (option, other)}
    return (
        f"stated: {keys[option]} costs less than {keys[other]} {at}; computed: {named(option)} "
        f"{fmt.amount(claim.computed)} {claim.unit} against {named(other)} {fmt.amount(claim.stated)} {claim.unit}"
    )


def would_hold_words(claim: ClaimCheck, change: InputChange) -> str:
    """How an input's value that makes a claim hold is put: "were 4.767" (the stated figure is met there), or for a
    cheapest claim, whose two options cost the same at that value, "were above 19.54" (or below: past it, away
    from the current value, the option stated to cost less does)."""
    if claim.kind != "cheapest":
        return "were"
    return "were above" if change.needed > change.current else "were below"


def claims_text(comparison: Comparison) -> str:
    """The scenario's stated figures, each confirmed or contradicted, with the inputs that would make it hold.

    Empty when the scenario has no ``claims`` block.
    """
    if not comparison.claims:
        return ""
    lines = ["stated figures checked:"]
    for claim in comparison.claims:
        verdict = "confirmed" if claim.confirmed else "CONTRADICTED"
        if claim.kind == "break_even":
            computed = (
                "never in range"
                if claim.computed is None
                else f"{fmt.amount(claim.computed, 0)} {claim.unit} ({fmt.significant(claim.computed_multiple, 3)}"
                " x the volume)"
                if claim.computed_multiple is not None
                else f"{fmt.amount(claim.computed, 0)} {claim.unit}"
            )
            stated = f"{fmt.amount(claim.stated, 0)} {claim.unit}" + (
                f" ({fmt.significant(claim.stated_multiple, 3)} x the volume)" if claim.stated_multiple else ""
            )
        elif claim.kind == "figure":
            unit = fmt.unit_suffix(claim.unit)  # a ratio or a share: a plain number
            computed = "not defined" if claim.computed is None else f"{fmt.stated(claim.computed)}{unit}"
            stated = f"{fmt.stated(claim.stated)}{unit}"
        else:
            computed = f"{fmt.amount(claim.computed)} {claim.unit}"
            stated = f"{fmt.amount(claim.stated)} {claim.unit}"
        lines.append(f'  {verdict}: "{claim.statement}"')
        if claim.kind == "cheapest":
            lines.append(f"    {cheapest_claim_words(claim, comparison.volume_unit, label=comparison.label)}")
        else:
            lines.append(f"    stated {stated}; computed {computed}; tolerance {fmt.share(claim.tolerance)}")
        if claim.would_hold:
            lines.append("    would hold if, alone:")
            lines += [
                f"      {c.path} ({c.title}) {would_hold_words(claim, c)} {fmt.significant(c.needed, 4)}"
                f"{fmt.unit_suffix(c.unit)} instead of "
                f"{fmt.significant(c.current, 4)}{fmt.unit_suffix(c.unit)}"
                for c in claim.would_hold
            ]
    return "\n".join(lines)


# --- the executive summary (issue 17): one verdict a reviewer reads first ----------------------------


def input_label(scenario: Scenario | Resolved, path: str) -> str:
    """A reviewer's name for an input path: the schema's title and unit, e.g. "PUE [-]".

    Falls back to the path's last part with spaces for a path the schema does not list.
    """
    labels = _input_labels(as_resolved(scenario))
    if path in labels:
        return labels[path]
    return path.rsplit(".", 1)[-1].replace("_", " ")


def input_title(scenario: Scenario | Resolved, path: str) -> str:
    """:func:`input_label` without the unit, for a value that states its own."""
    label = input_label(scenario, path)
    return label[: label.rfind(" [")] if label.endswith("]") else label


def _input_labels(r: Resolved) -> dict[str, str]:
    from ..schema.inputs import inputs_by_path

    labels = {}
    for found in inputs_by_path(r.scenario, r.catalog).values():
        option = found.path.split(".")[1] if found.path.startswith("options.") else None
        where = f"{r.label(option)}: " if option in r.options else ""
        unit = f" [{found.unit}]" if found.unit and found.unit != "-" else ""
        labels[found.path] = f"{where}{found.title}{unit}"
    return labels


def input_value(scenario: Scenario | Resolved, path: str, value: float) -> str:
    """An input's value with its unit, 3 significant figures, money in k/M/B."""
    r = as_resolved(scenario)
    label = input_label(r, path)
    unit = label[label.rfind("[") + 1 : -1] if label.endswith("]") else ""
    if unit in ("", "-"):
        return fmt.short(value)
    if unit in ("1/year", "-/year"):
        return fmt.rate_per_year(value)
    return f"{fmt.short(value)} {unit}"


def _verdict_paragraph(c: Comparison) -> str:
    """The verdict on the decision measure, with its figure and its margin over the runner-up."""
    d, cur = c.decision, c.currency
    per = "/month" if d.unit.endswith("/month") else ""
    if d.unit.endswith("successful tasks"):  # "USD/1,000 successful tasks" → " per 1,000 successful tasks"
        per = " per " + d.unit.split("/", 1)[1]
    verdict = (
        f"**Verdict: {md(d.winning.label)}.** Decision measure: {md(d.description)}. It costs "
        f"**{fmt.measure_figure(d.winning.figure)} {cur}{per}**"
    )
    runner_up = d.runner_up
    if runner_up is not None and d.tied:
        verdict += f", tied with {md(d.label(runner_up))}"
    elif runner_up is not None:
        verdict += (
            f" against {fmt.measure_figure(d.figure(runner_up))} {cur}{per} for {md(d.label(runner_up))}: "
            f"**{fmt.measure_figure(_margin(d))} {cur}{per} less**"
            + (f" ({fmt.share(d.margin_share)})" if d.margin_share is not None else "")
        )
    return verdict + "."


def _break_even_summary(c: Comparison) -> str | None:
    """The break-even between the two best candidates on the monthly view and how far the scenario's volume is
    from it, or that there is none in the swept range; None without such a pair."""
    label, kind = c.label, c.workload_kind
    at = fmt.volume(kind, c.volume)
    options = [x.option for x in c.decision.candidates.values() if x.option is not None]
    first = options[0] if options else None
    second = next((o for o in options if o != first), None)
    pair = next((b for b in c.break_evens if {b.option_a, b.option_b} == {first, second}), None)
    if pair is None:
        return None
    if pair.volume is not None:
        ratio = pair.volume / c.volume if c.volume else None
        if ratio is None:
            where = ""
        elif 0.5 <= ratio <= 2:
            where = f", {fmt.share(abs(1 - ratio))} {'below' if ratio < 1 else 'above'} the scenario's {at}"
        else:
            where = f", {fmt.short(ratio, 2)} × the scenario's {at}"
        return (
            f"**Break-even that matters most** (monthly view): {md(label(pair.option_a))} vs "
            f"{md(label(pair.option_b))} at **{fmt.volume(kind, pair.volume)}**{where}; "
            f"{md(_cheaper(label, pair.cheaper_below))} is cheaper below it"
            + _changes_again(pair, lambda v: fmt.volume(kind, v))
            + "."
        )
    return (
        f"**Break-even that matters most** (monthly view): none: {md(_cheaper(label, pair.cheaper_below))} is "
        f"cheaper than {md(_cheaper(label, pair.cheaper_above or second))} from {fmt.volume(kind, pair.volume_min)} "
        f"to {fmt.volume(kind, pair.volume_max)}."
    )


def _moves_lines(r: Resolved, c: Comparison, bars, monte_carlo) -> list[str]:
    """The three inputs that move the tracked option's saving most (tornado bars), as a numbered list."""
    unit = c.decision.unit  # the decision measure's: USD, USD/month or USD/1,000 successful tasks
    tracked = c.label(monte_carlo.option) if monte_carlo is not None else "the tracked option"
    top = [
        f"{md(input_title(r, b.path))}, {input_value(r, b.path, b.low)} to "
        f"{input_value(r, b.path, b.high)}: swing {fmt.money(b.swing, unit)}"
        + ("" if b.break_even is None else f", break-even at {input_value(r, b.path, b.break_even)}")
        for b in bars[:3]
    ]
    return [
        f"**What moves it most** ({md(tracked)}'s saving on the decision measure, one input at a time):",
        "",
        *(f"{i}. {t}" for i, t in enumerate(top, 1)),
        "",
    ]


def _confidence_sentence(c: Comparison, monte_carlo) -> str:
    """How often each option is the cheapest over the Monte Carlo samples (shares of at least 0.05 %)."""
    wins = monte_carlo.win_probability()
    ranked_wins = sorted(wins, key=wins.get, reverse=True)
    return (
        f"**Confidence:** over {monte_carlo.samples:,} samples of the uncertain inputs, on the "
        "decision measure, the cheapest option is "
        + "; ".join(f"{md(c.label(o))} in **{fmt.share(wins[o])}**" for o in ranked_wins if wins[o] >= 0.0005)
        + " of them"
        + (
            " (the mix is searched for the scenario as stated, not for each sample, so it is not among these)"
            if c.decision.winner == "mix"
            else ""
        )
        + "."
    )


def _caveats_sentence(c: Comparison) -> str:
    """Unsourced estimates, stale catalog prices and the comparison's warnings, or that there are none."""
    caveats = []
    if c.estimates:
        caveats.append(
            f"{len(c.estimates)} unsourced estimate{'s' if len(c.estimates) != 1 else ''} (grade U) "
            "behind the figures, listed under the next heading"
        )
    if c.stale:
        caveats.append(
            f"{fmt.plural(len(c.stale), 'catalog price')} past the age the catalog allows, listed under "
            "the next heading"
        )
    caveats += [md(w) for w in c.warnings]
    return "**Caveats:** " + ("; ".join(caveats) if caveats else "none: every figure has a source") + "."


def executive_summary(scenario: Scenario | Resolved, comparison: Comparison, bars=None, monte_carlo=None) -> str:
    """The report's first paragraph, in Markdown: one verdict and what it rests on.

    The decision measure named; the verdict and its margin; where the monthly view and the
    horizon's present value disagree, one sentence why with both figures; the break-even that
    matters most and how far the scenario sits from it; the three inputs that move the answer
    most (``bars``, from :func:`costmodel.domain.uncertainty.tornado`); the probability that the
    tracked option is the cheapest (``monte_carlo``); the caveats. A training run names the
    cheapest option for the run.
    """
    r = as_resolved(scenario)
    c = getattr(comparison, "comparison", None) or comparison  # the domain result or the output document
    if c.training is not None:
        return _training_summary(r, c)
    d = c.decision
    lines = ["## Summary", "", f"**{md(r.title)}**", "", _verdict_paragraph(c), ""]
    note = monthly_view_note(c)
    if note:
        lines += [f"**Why the monthly view differs:** {md(note)}.", ""]
    mix = c.mix
    if mix is not None and d.measure != "monthly_cost_hour_by_hour":
        m = mix.mix
        profile = md(mix.profile.replace("_", " "))
        bands = "; ".join(_layer_phrase(x) for x in m.layers.values()) or "nothing"
        lines += [
            f"**Hour by hour (a monthly view beside the verdict):** with the {profile} demand profile the "
            f"cheapest monthly mix is {md(bands)} at {fmt.money(m.total, c.currency)}/month.",
            "",
        ]
    pair = _break_even_summary(c)
    if pair is not None:
        lines += [pair, ""]
    f = c.finance
    if f is not None and f.break_even_utilisation:
        b = f.break_even_utilisation[0]
        scenario_share = f" (the scenario's: {fmt.share(f.utilisation)})" if f.utilisation is not None else ""
        lines.append(
            f"Owning never breaks even with {md(b.label)}, even fully utilised{scenario_share}."
            if b.utilisation is None
            else f"Owning breaks even with {md(b.label)} at **{fmt.share(b.utilisation)} utilisation**{scenario_share}."
        )
        lines.append("")
    if bars:
        lines += _moves_lines(r, c, bars, monte_carlo)
    if monte_carlo is not None:
        lines += [_confidence_sentence(c, monte_carlo), ""]
    lines.append(_caveats_sentence(c))
    return "\n".join(lines)


def _training_summary(r: Resolved, c: Comparison) -> str:
    run = c.training
    assert run is not None, "the training summary is written for a training run only"
    cur = c.currency
    d = c.decision
    per = "/month" if d.unit.endswith("/month") else ""
    lines = ["## Summary", "", f"**{md(r.title)}**", ""]
    line = (
        f"**Verdict: {md(d.winning.label)}**, **{fmt.measure_figure(d.winning.figure)} {cur}{per}**. Decision measure: "
        f"{md(d.description)}; the run takes {fmt.short(run.gpu_hours)} GPU-hours and "
        f"{fmt.amount(run.wall_clock_days, 1)} days of wall clock."
    )
    if d.runner_up is not None:
        line += (
            f" Next: {md(d.label(d.runner_up))} at {fmt.measure_figure(d.figure(d.runner_up))} {cur}{per}, "
            f"**{fmt.measure_figure(d.margin)} {cur}{per} more**"
            + (f"; the verdict is {fmt.share(d.margin_share)} cheaper" if d.margin_share is not None else "")
            + "."
        )
    lines += [line, ""]
    best = d.winning.option
    if best == "own" or "own" in r.options:
        lines += [
            "The own cluster is charged only the months the run takes; buying it pays off only if it stays "
            "busy for the rest of its life (see below).",
            "",
        ]
    caveats = []
    if c.estimates:
        caveats.append(f"{len(c.estimates)} unsourced estimate{'s' if len(c.estimates) != 1 else ''} (grade U)")
    if c.stale:
        caveats.append(f"{fmt.plural(len(c.stale), 'catalog price')} past the age the catalog allows")
    if run.warnings:
        caveats.append(f"{len(run.warnings)} plausibility warning{'s' if len(run.warnings) != 1 else ''}, listed below")
    lines.append("**Caveats:** " + ("; ".join(caveats) if caveats else "none: every figure has a source") + ".")
    return "\n".join(lines)


def stamp(scenario: Resolved, scenario_file=None, rendered=None) -> str:
    """The report's foot, in Markdown: package version, catalog snapshot date, scenario file hash, render time.

    The catalog snapshot date is the newest as-of date of any catalog row; the hash is the
    SHA-256 of the scenario file's bytes (first 12 hex digits), so a reviewer can tell two
    reports of edited files apart.
    """
    import datetime
    import hashlib
    from pathlib import Path

    from .. import __version__

    r = as_resolved(scenario)
    dates = [
        row.as_of
        for name in type(r.catalog).model_fields
        for row in getattr(r.catalog, name).values()
        if isinstance(getattr(row, "as_of", None), str)
    ]
    snapshot = max(dates) if dates else "unknown"
    added = sorted(
        {
            row.source_file
            for name in type(r.catalog).model_fields
            for row in getattr(r.catalog, name).values()
            if getattr(row, "source_file", None) and not row.source_file.startswith("data/")
        }
    )
    if added:  # rows from a --catalog folder: name their files, so the figures trace back
        snapshot += ", with rows from " + ", ".join(added)
    digest = "not a file"
    if scenario_file is not None and Path(scenario_file).is_file():
        digest = hashlib.sha256(Path(scenario_file).read_bytes()).hexdigest()[:12]
    when = (rendered or datetime.datetime.now(datetime.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    name = Path(scenario_file).name if scenario_file is not None else "(in memory)"
    return (
        f"<small>costmodel {md(__version__)} · catalog as of {md(snapshot)} · scenario {md(name)} "
        f"sha256 {digest} · rendered {when}</small>"
    )

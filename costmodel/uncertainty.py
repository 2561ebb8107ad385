"""Which inputs decide it, and how sure are we: break-even inputs, tornado, Monte Carlo, Sobol.

Every analysis runs through the same calculator as everything else. An input is named by
its path in the scenario (``options.own.power.electricity_price_per_kwh``,
``options.own.bill_of_materials.1.price_total``, ``fx.rates.EUR``) or, for figures that
come from a catalog row, by a name of its own (:data:`CATALOG_INPUTS`). :func:`with_values`
returns a copy of the scenario with inputs replaced by numbers or by numpy arrays of
samples; the calculator's formulas broadcast, so N samples are one vectorised call, not a
loop.

The decision metric is the monthly cost, at the scenario's volume, of the tracked option
(``uncertainty.option``; default own, else rent) minus the cheapest other option
[reporting currency/month]: negative when the tracked option is the cheapest. Its
savings are minus the metric.

References
----------
.. [1] Saltelli, A. (2002), "Making best use of model evaluations to compute sensitivity
   indices", Computer Physics Communications 145(2): 280-297.
.. [2] Herman, J. and Usher, W. (2017), "SALib: An open-source Python library for
   Sensitivity Analysis", Journal of Open Source Software 2(9).
.. [3] Brent, R. P. (1973), "Algorithms for Minimization without Derivatives", ch. 4
   (the root finder behind :func:`scipy.optimize.brentq`).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import annotated_types
import numpy as np
from pydantic import BaseModel

from .calculator import OPTION_LABELS, monthly_cost, present_options
from .models import Distribution, Scenario

CATALOG_INPUTS: dict[str, tuple[str, ...]] = {
    "options.own.server_price": ("options", "own", "_server", "price"),
    "options.own.server_max_power_kw": ("options", "own", "_server", "max_power_kw"),
    "options.rent.price_per_gpu_hour": ("options", "rent", "_offer", "price_per_gpu_hour"),
    "options.api.input_price_per_million": ("options", "api", "_offer", "input_per_million"),
    "options.api.cached_input_price_per_million": ("options", "api", "_offer", "cached_input_per_million"),
    "options.api.output_price_per_million": ("options", "api", "_offer", "output_per_million"),
    "workload.throughput_per_gpu": ("workload", "_capacity", "output_tokens_per_second_per_gpu"),
}
"""Names of inputs that come from catalog rows, and where they sit in a loaded scenario."""

_SKIPPED = {"uncertainty"}


# --- naming and replacing inputs ------------------------------------------------------------

def _walk(node: Any, prefix: str, found: dict[str, float]) -> None:
    if isinstance(node, BaseModel):
        for name in type(node).model_fields:
            if not prefix and name in _SKIPPED:
                continue
            _walk(getattr(node, name), f"{prefix}{name}.", found)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _walk(item, f"{prefix}{index}.", found)
    elif isinstance(node, dict):
        for key, item in node.items():
            _walk(item, f"{prefix}{key}.", found)
    elif isinstance(node, int | float) and not isinstance(node, bool):
        found[prefix[:-1]] = float(node)


def numeric_inputs(scenario: Scenario) -> dict[str, float]:
    """Every numeric input of the scenario, by path, with its current value.

    Includes the catalog-backed names of :data:`CATALOG_INPUTS` that the scenario uses.
    """
    found: dict[str, float] = {}
    _walk(scenario, "", found)
    for name, parts in CATALOG_INPUTS.items():
        try:
            value = _get(scenario, parts)
        except (AttributeError, TypeError):
            continue
        if isinstance(value, int | float) and not isinstance(value, bool):
            found[name] = float(value)
    return dict(sorted(found.items()))


def _parts(path: str) -> tuple[str, ...]:
    return CATALOG_INPUTS.get(path, tuple(path.split(".")))


def _get(node: Any, parts: tuple[str, ...]) -> Any:
    for part in parts:
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node[part]
        else:
            node = getattr(node, part)
    return node


def _set(node: Any, parts: tuple[str, ...], value: Any) -> Any:
    head, rest = parts[0], parts[1:]
    if isinstance(node, list):
        copy = list(node)
        copy[int(head)] = _set(node[int(head)], rest, value) if rest else value
        return copy
    if isinstance(node, dict):
        copy = dict(node)
        copy[head] = _set(node[head], rest, value) if rest else value
        return copy
    child = getattr(node, head)
    new = _set(child, rest, value) if rest else value
    if dataclasses.is_dataclass(node):
        return dataclasses.replace(node, **{head: new})
    if head.startswith("_"):
        copy = node.model_copy()
        setattr(copy, head, new)
        return copy
    return node.model_copy(update={head: new})


def value_of(scenario: Scenario, path: str) -> float:
    """The current value of one input. [the input's unit]"""
    return float(_get(scenario, _parts(path)))


def with_values(scenario: Scenario, values: Mapping[str, Any]) -> Scenario:
    """A copy of the scenario with inputs replaced by numbers or numpy arrays.

    The copy is not validated again: it exists to be evaluated, with arrays standing for
    samples of an input. The calculator's cost functions broadcast over them.

    Parameters
    ----------
    scenario
        The scenario.
    values
        Input path → value (scalar or array; arrays of all inputs must broadcast).

    Raises
    ------
    KeyError
        An input path that the scenario does not have.
    """
    known = numeric_inputs(scenario)
    for path, value in values.items():
        if path not in known:
            raise KeyError(f"{path}: not a numeric input of this scenario")
        scenario = _set(scenario, _parts(path), value)
    return scenario


def bounds(scenario: Scenario, path: str) -> tuple[float, float, bool, bool]:
    """The allowed range of an input from its field's rules: (low, high, low open, high open)."""
    parts = _parts(path)
    node: Any = scenario
    info = None
    for part in parts:
        if isinstance(node, list | dict):
            node = node[int(part)] if isinstance(node, list) else node[part]
            continue
        fields = type(node).model_fields if isinstance(node, BaseModel) else {}
        info = fields.get(part.lstrip("_"))
        node = getattr(node, part)
    low, high, low_open, high_open = -np.inf, np.inf, False, False
    for rule in _constraints(info):
        if isinstance(rule, annotated_types.Ge):
            low, low_open = float(rule.ge), False
        elif isinstance(rule, annotated_types.Gt):
            low, low_open = float(rule.gt), True
        elif isinstance(rule, annotated_types.Le):
            high, high_open = float(rule.le), False
        elif isinstance(rule, annotated_types.Lt):
            high, high_open = float(rule.lt), True
    return low, high, low_open, high_open


def _constraints(info) -> list:
    if info is None:
        return []
    rules = list(info.metadata)
    stack = [info.annotation]
    while stack:
        annotation = stack.pop()
        for arg in typing.get_args(annotation):
            if hasattr(arg, "metadata"):
                rules += list(arg.metadata)
            elif isinstance(arg, annotated_types.BaseMetadata):
                rules.append(arg)
            else:
                stack.append(arg)
    return rules


def clip_to_bounds(scenario: Scenario, path: str, samples: np.ndarray) -> tuple[np.ndarray, int]:
    """Samples clipped into the input's allowed range; open ends are kept just inside.

    Returns
    -------
    tuple of (numpy.ndarray, int)
        The clipped samples and how many were changed.
    """
    low, high, low_open, high_open = bounds(scenario, path)
    lo = np.nextafter(low, np.inf) if low_open else low
    hi = np.nextafter(high, -np.inf) if high_open else high
    if low_open and low == 0:
        lo = max(lo, 1e-9 * abs(value_of(scenario, path)))   # e.g. an MFU of 1e-300 is no MFU
    clipped = np.clip(samples, lo, hi)
    return clipped, int(np.count_nonzero(clipped != samples))


# --- the decision metric -----------------------------------------------------------------------

def tracked_option(scenario: Scenario) -> str:
    """The option whose savings are tracked: ``uncertainty.option``, else own, else rent."""
    if scenario.uncertainty is not None and scenario.uncertainty.option is not None:
        return scenario.uncertainty.option
    names = present_options(scenario)
    return "own" if "own" in names else names[0]


def option_costs(scenario: Scenario) -> dict[str, np.ndarray]:
    """Monthly cost of each option at the scenario's volume (arrays where inputs are samples)."""
    volume = scenario.volume
    costs = {o: np.asarray(monthly_cost(scenario, o, volume), dtype=float) for o in present_options(scenario)}
    shape = np.broadcast_shapes(*(c.shape for c in costs.values()))
    return {o: np.broadcast_to(c, shape) for o, c in costs.items()}


def decision_metric(scenario: Scenario, option: str | None = None) -> np.ndarray:
    """Tracked option's monthly cost minus the cheapest other option's. [reporting currency/month]"""
    option = option or tracked_option(scenario)
    costs = option_costs(scenario)
    others = np.min(np.stack([c for o, c in costs.items() if o != option]), axis=0)
    return costs[option] - others


# --- break-even inputs -----------------------------------------------------------------------

@dataclass(frozen=True)
class InputBreakEven:
    """The value of one input at which two options cost the same, or None (never in the range)."""

    path: str
    value: float | None
    low: float
    high: float
    option_a: str
    option_b: str | None

    def describe(self) -> str:
        """Plain text: the value, or "never in [low, high]"."""
        b = "the cheapest other option" if self.option_b is None else OPTION_LABELS[self.option_b]
        if self.value is None:
            return f"{self.path}: {OPTION_LABELS[self.option_a]} vs {b}: never in [{self.low:g}, {self.high:g}]"
        return f"{self.path}: {OPTION_LABELS[self.option_a]} costs the same as {b} at {self.value:.6g}"


def break_even_input(scenario: Scenario, path: str, low: float, high: float, option_a: str | None = None,
                     option_b: str | None = None) -> InputBreakEven:
    """The value of an input in [low, high] at which two options cost the same each month.

    Parameters
    ----------
    scenario
        The scenario.
    path
        The input, by path (see :func:`numeric_inputs`).
    low, high
        The bracket searched. [the input's unit]
    option_a, option_b
        The options compared; default the tracked option against the cheapest other.

    Returns
    -------
    InputBreakEven
        ``value`` None when the difference has the same sign at both ends ("never in
        [low, high]"). Found by Brent's method (:func:`scipy.optimize.brentq`) to 1e-12
        relative.

    Raises
    ------
    KeyError
        Unknown input. ValueError: low > high.
    """
    from scipy.optimize import brentq

    if low > high:
        raise ValueError(f"{path}: low {low} is above high {high}")
    option_a = option_a or tracked_option(scenario)

    def difference(x: float) -> float:
        s = with_values(scenario, {path: x})
        if option_b is None:
            return float(decision_metric(s, option_a))
        return float(monthly_cost(s, option_a, s.volume) - monthly_cost(s, option_b, s.volume))

    f_low, f_high = difference(low), difference(high)
    if f_low == 0:
        return InputBreakEven(path, low, low, high, option_a, option_b)
    if f_high == 0:
        return InputBreakEven(path, high, low, high, option_a, option_b)
    if np.sign(f_low) == np.sign(f_high):
        return InputBreakEven(path, None, low, high, option_a, option_b)
    root = brentq(difference, low, high, xtol=1e-12 * max(1.0, abs(low), abs(high)), rtol=1e-14, maxiter=500)
    return InputBreakEven(path, float(root), low, high, option_a, option_b)


# --- tornado ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TornadoBar:
    """One input moved to its low and high value, and what the decision metric does.

    Attributes
    ----------
    low_metric, high_metric, base_metric
        The metric with the input at low, at high and as given. [reporting currency/month]
    swing
        |high_metric − low_metric|. [reporting currency/month]
    break_even
        Where the metric crosses zero inside [low, high], if it does.
    """

    path: str
    low: float
    high: float
    base: float
    low_metric: float
    high_metric: float
    base_metric: float
    swing: float
    break_even: float | None


def tornado_ranges(scenario: Scenario) -> dict[str, tuple[float, float]]:
    """Low and high value of each tornado input: given, ± the default swing, or P10 and P90.

    Inputs listed under ``uncertainty.tornado`` take their range or ± ``tornado_swing``;
    when that list is empty, the inputs with distributions take their 10th and 90th
    percentiles.
    """
    settings = scenario.uncertainty
    ranges = {}
    if settings.tornado:
        for path, given in settings.tornado.items():
            base = value_of(scenario, path)
            ranges[path] = (given.low, given.high) if given is not None else \
                tuple(sorted((base * (1 - settings.tornado_swing), base * (1 + settings.tornado_swing))))
    else:
        for path, dist in settings.distributions.items():
            ranges[path] = (quantile(dist, 0.1), quantile(dist, 0.9))
    return ranges


def tornado(scenario: Scenario) -> list[TornadoBar]:
    """One-at-a-time sensitivity of the decision metric, widest swing first.

    Each input is evaluated at low and high in one vectorised call; an input whose range
    takes the metric across zero gets its break-even value (:func:`break_even_input`).
    """
    base_metric = float(decision_metric(scenario))
    bars = []
    for path, (low, high) in tornado_ranges(scenario).items():
        ends = decision_metric(with_values(scenario, {path: np.array([low, high])}))
        ends = np.broadcast_to(ends, (2,))
        crossing = None
        if np.sign(ends[0]) != np.sign(ends[1]):
            crossing = break_even_input(scenario, path, low, high).value
        bars.append(TornadoBar(path, low, high, value_of(scenario, path), float(ends[0]), float(ends[1]),
                               base_metric, float(abs(ends[1] - ends[0])), crossing))
    return sorted(bars, key=lambda b: b.swing, reverse=True)


# --- Monte Carlo -------------------------------------------------------------------------------------

def sample(distribution: Distribution, rng: np.random.Generator, n: int) -> np.ndarray:
    """n draws from a distribution. [the input's unit]"""
    d = distribution
    if d.distribution == "uniform":
        return rng.uniform(d.low, d.high, n) if d.high > d.low else np.full(n, float(d.low))
    if d.distribution == "triangular":
        return rng.triangular(d.low, d.mode, d.high, n) if d.high > d.low else np.full(n, float(d.low))
    if d.distribution == "normal":
        return rng.normal(d.mean, d.sd, n)
    if d.distribution == "lognormal":
        return d.median * np.exp(rng.normal(0.0, d.sigma, n))
    return rng.choice(np.asarray(d.values, dtype=float), n, replace=True)


def quantile(distribution: Distribution, p: float) -> float:
    """The p-quantile of a distribution, exactly (empirical: numpy's linear quantile). [the input's unit]"""
    d = distribution
    if d.distribution == "uniform":
        return d.low + p * (d.high - d.low)
    if d.distribution == "triangular":
        a, c, b = d.low, d.mode, d.high
        if b == a:
            return a
        split = (c - a) / (b - a)
        return a + np.sqrt(p * (b - a) * (c - a)) if p < split else b - np.sqrt((1 - p) * (b - a) * (b - c))
    if d.distribution == "normal":
        return d.mean if d.sd == 0 else NormalDist(d.mean, d.sd).inv_cdf(p)
    if d.distribution == "lognormal":
        return d.median * float(np.exp(d.sigma * NormalDist().inv_cdf(p))) if d.sigma > 0 else d.median
    return float(np.quantile(np.asarray(d.values, dtype=float), p))


@dataclass(frozen=True)
class MonteCarlo:
    """Costs of every option over N samples of the uncertain inputs.

    Attributes
    ----------
    costs
        Option → N monthly costs at the scenario's volume. [reporting currency/month]
    metric
        Tracked option's cost minus the cheapest other, per sample. [reporting currency/month]
    option
        The tracked option.
    clipped
        Input → samples clipped into the input's allowed range.
    """

    costs: dict[str, np.ndarray]
    metric: np.ndarray
    option: str
    clipped: dict[str, int]

    @property
    def samples(self) -> int:
        """N. [-]"""
        return int(self.metric.size)

    def percentiles(self, q=(10, 50, 90)) -> dict[str, np.ndarray]:
        """P10/P50/P90 (or ``q``) of each option's monthly cost. [reporting currency/month]"""
        return {o: np.percentile(c, q) for o, c in self.costs.items()}

    def win_probability(self) -> dict[str, float]:
        """Share of samples in which each option is the cheapest (ties go to the first). [-]"""
        names = list(self.costs)
        winners = np.argmin(np.stack([self.costs[o] for o in names]), axis=0)
        counts = np.bincount(winners, minlength=len(names))
        return {o: float(c) / winners.size for o, c in zip(names, counts)}

    @property
    def savings(self) -> np.ndarray:
        """What the tracked option saves against the cheapest other, per sample (−metric). [reporting currency/month]"""
        return -self.metric


def draw_inputs(scenario: Scenario, samples: int | None = None,
                seed: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Samples of every input with a distribution, clipped to the input's allowed range.

    Inputs are drawn in the order of their paths, from one generator seeded with
    ``uncertainty.seed``: the same scenario and seed give the same samples.
    """
    settings = scenario.uncertainty
    n = samples or settings.samples
    rng = np.random.default_rng(settings.seed if seed is None else seed)
    drawn, clipped = {}, {}
    for path in sorted(settings.distributions):
        values, changed = clip_to_bounds(scenario, path, sample(settings.distributions[path], rng, n))
        drawn[path], clipped[path] = values, changed
    return drawn, clipped


def monte_carlo(scenario: Scenario, samples: int | None = None, seed: int | None = None) -> MonteCarlo:
    """Evaluate every option over N samples of the uncertain inputs, in one vectorised call.

    Parameters
    ----------
    scenario
        A scenario with an ``uncertainty`` block.
    samples, seed
        Override ``uncertainty.samples`` and ``uncertainty.seed``.

    Returns
    -------
    MonteCarlo
    """
    if scenario.uncertainty is None:
        raise ValueError("the scenario has no uncertainty block (distributions of inputs)")
    drawn, clipped = draw_inputs(scenario, samples, seed)
    n = samples or scenario.uncertainty.samples
    sampled = with_values(scenario, drawn)
    costs = {o: np.broadcast_to(c, (n,)) for o, c in option_costs(sampled).items()}
    option = tracked_option(scenario)
    others = np.min(np.stack([c for o, c in costs.items() if o != option]), axis=0)
    return MonteCarlo(costs, costs[option] - others, option, clipped)


# --- Sobol --------------------------------------------------------------------------------------------

def _salib_distribution(d: Distribution) -> tuple[str, list[float]] | None:
    if d.distribution == "uniform" and d.high > d.low:
        return "unif", [d.low, d.high]
    if d.distribution == "triangular" and d.high > d.low:
        return "triang", [d.low, d.high, (d.mode - d.low) / (d.high - d.low)]
    if d.distribution == "normal" and d.sd > 0:
        return "norm", [d.mean, d.sd]
    if d.distribution == "lognormal" and d.sigma > 0:
        return "lognorm", [float(np.log(d.median)), d.sigma]
    return None


def sobol_indices(scenario: Scenario):
    """First-order and total Sobol indices of the decision metric, by SALib.

    Inputs whose distribution SALib cannot sample (empirical, or zero width) are left
    out and listed in the result's ``left_out`` attribute.

    Returns
    -------
    pandas.DataFrame or None
        Columns ``input``, ``S1``, ``S1_conf``, ``ST``, ``ST_conf``; None with fewer than
        one input SALib can sample.
    """
    import pandas as pd
    from SALib.analyze import sobol as analyze
    from SALib.sample import sobol as sampler

    settings = scenario.uncertainty
    names, bounds_, dists, left_out = [], [], [], []
    for path in sorted(settings.distributions):
        spec = _salib_distribution(settings.distributions[path])
        if spec is None:
            left_out.append(path)
            continue
        names.append(path)
        dists.append(spec[0])
        bounds_.append(spec[1])
    if not names:
        return None
    problem = {"num_vars": len(names), "names": names, "bounds": bounds_, "dists": dists}
    x = sampler.sample(problem, settings.sobol_base_samples, calc_second_order=False, seed=settings.seed)
    values = {p: clip_to_bounds(scenario, p, x[:, i])[0] for i, p in enumerate(names)}
    y = np.broadcast_to(decision_metric(with_values(scenario, values)), (x.shape[0],)).astype(float)
    if np.ptp(y) == 0:
        result = {"S1": np.zeros(len(names)), "S1_conf": np.zeros(len(names)),
                  "ST": np.zeros(len(names)), "ST_conf": np.zeros(len(names))}
    else:
        result = analyze.analyze(problem, y, calc_second_order=False, seed=settings.seed)
    table = pd.DataFrame({"input": names, "S1": result["S1"], "S1_conf": result["S1_conf"],
                          "ST": result["ST"], "ST_conf": result["ST_conf"]})
    table.attrs["left_out"] = left_out
    return table


# --- the report section ------------------------------------------------------------------------------

def percentile_table(scenario: Scenario, result: MonteCarlo):
    """P10/P50/P90 of each option's monthly cost and its probability of being the cheapest, as text."""
    import pandas as pd

    wins = result.win_probability()
    currency = scenario.reporting_currency
    rows = []
    for option, (p10, p50, p90) in result.percentiles().items():
        rows.append({"option": OPTION_LABELS[option], f"P10 [{currency}/month]": f"{p10:,.0f}",
                     f"P50 [{currency}/month]": f"{p50:,.0f}", f"P90 [{currency}/month]": f"{p90:,.0f}",
                     "probability of being the cheapest": f"{wins[option]:.1%}"})
    return pd.DataFrame(rows)


def tornado_table(bars: list[TornadoBar]):
    """The tornado's numbers, with break-even values or "never in [low, high]", as text."""
    import pandas as pd

    return pd.DataFrame([{
        "input": b.path, "as given": f"{b.base:,.6g}", "low": f"{b.low:,.6g}", "high": f"{b.high:,.6g}",
        "metric at low": f"{b.low_metric:,.0f}", "metric at high": f"{b.high_metric:,.0f}",
        "swing": f"{b.swing:,.0f}",
        "break-even": f"{b.break_even:,.6g}" if b.break_even is not None else f"never in [{b.low:,.6g}, {b.high:,.6g}]",
    } for b in bars])


def show_section(scenario: Scenario) -> None:
    """Display the uncertainty section of a report in a notebook: Monte Carlo, tornado, Sobol.

    Used by both report notebooks; does nothing visible beyond a note when the scenario
    has no ``uncertainty`` block.
    """
    from IPython.display import HTML, Markdown, display

    from . import charts

    if scenario.uncertainty is None:
        display(Markdown("This scenario declares no uncertain inputs (no `uncertainty` block)."))
        return
    currency = scenario.reporting_currency
    result = monte_carlo(scenario)
    option = OPTION_LABELS[result.option]
    saves = float(np.mean(result.savings > 0))
    p10, p50, p90 = np.percentile(result.savings, [10, 50, 90])
    display(Markdown(
        f"Over **{result.samples:,} samples** (seed {scenario.uncertainty.seed}) of "
        f"{len(scenario.uncertainty.distributions)} uncertain inputs, **{option}** is the cheapest in "
        f"**{result.win_probability()[result.option]:.1%}** of them. Its monthly saving against the cheapest other "
        f"option: P10 {p10:,.0f}, P50 {p50:,.0f}, P90 {p90:,.0f} {currency}/month (it saves money in {saves:.1%})."
        + ("" if not any(result.clipped.values()) else
           " Samples clipped into allowed ranges: " + ", ".join(f"{p} {n:,}" for p, n in result.clipped.items() if n)
           + ".")))
    display(HTML(percentile_table(scenario, result).to_html(index=False)))
    charts.show(charts.win_probability_bars(scenario, result),
                "Bars of each option's probability of being the cheapest: " + "; ".join(
                    f"{OPTION_LABELS[o]} {p:.1%}" for o, p in result.win_probability().items()))
    charts.show(charts.savings_histogram(scenario, result),
                f"Histogram of {option}'s monthly saving; it saves money in {saves:.1%} of samples.")
    bars = tornado(scenario)
    display(Markdown("### One input at a time\n\nEach input at its low and high value (its 10th and 90th "
                     "percentile, or the range given), the others as in the scenario."))
    charts.show(charts.tornado_chart(scenario, bars),
                "Tornado of the decision metric; widest swing: " + (bars[0].path if bars else "none"))
    display(HTML(tornado_table(bars).to_html(index=False)))
    table = sobol_indices(scenario)
    display(Markdown("### Global sensitivity (Sobol indices, SALib)\n\nS1: share of the metric's variance due to "
                     "the input alone; ST: including its interactions with the others."))
    if table is None:
        display(Markdown("No input has a distribution SALib can sample."))
    else:
        shown = table.copy()
        for column in ("S1", "S1_conf", "ST", "ST_conf"):
            shown[column] = shown[column].map(lambda x: f"{x:.3f}")
        display(HTML(shown.to_html(index=False)))
        if table.attrs.get("left_out"):
            display(Markdown("Left out (empirical or zero width): " + ", ".join(table.attrs["left_out"])))

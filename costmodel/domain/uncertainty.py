"""Which inputs decide it, and how sure are we: break-even inputs, tornado, Monte Carlo, Sobol.

Every analysis runs through the same calculator as everything else. An input is named by
its path (:mod:`costmodel.schema.inputs`); :func:`with_values` resolves the scenario with
inputs replaced by numbers or by numpy arrays of samples, and the cost functions broadcast,
so N samples are one vectorised call, not a loop (samples take a trailing axis of length 1,
shape (N, 1), so that they broadcast against the months of a horizon's cash flows too).

The decision metric is on the scenario's decision measure
(:func:`costmodel.domain.decision.measure_of`): the present value of costs with a finance
block, the cost of the run for a training workload, the monthly cost hour by hour with a
demand profile, the monthly cost at the volume otherwise. It is the tracked option's figure
(``uncertainty.option``; default own, else the first option) minus the cheapest other
candidate's (the rent option's other ways to pay among them), in the measure's unit
(:func:`measure_unit`): negative when the tracked option is the cheapest. Its savings are minus the metric.
The cheapest mix and the capacity plan are not sampled (they are searched, not computed).

References
----------
.. [1] Saltelli, A. (2002), "Making best use of model evaluations to compute sensitivity
   indices", Computer Physics Communications 145(2): 280-297.
.. [2] Herman, J. and Usher, W. (2017), "SALib: An open-source Python library for
   Sensitivity Analysis", Journal of Open Source Software 2(9).
.. [3] Brent, R. P. (1973), "Algorithms for Minimization without Derivatives", ch. 4
   (a sign change in a bracket keeps a root in it: :mod:`costmodel.formulas.roots`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from statistics import NormalDist
from typing import Any

import numpy as np

from ..formulas.roots import bisect_root, refine_root
from ..resolved import Resolved, as_resolved, resolve
from ..results import InputBreakEven, MonteCarlo, SobolIndices, TornadoBar
from ..schema import Distribution, Scenario
from ..schema.inputs import THROUGHPUT_INPUT, Bounds, input_paths
from ..schema.inputs import bounds as schema_bounds

NOT_VARYING = 1e-9
"""Relative spread below which an output counts as not varying (Sobol indices then not defined)."""


# --- naming and replacing inputs ------------------------------------------------------------


def numeric_inputs(scenario: Scenario | Resolved) -> dict[str, float]:
    """Every numeric input of the scenario, by path, with its current value.

    Includes the catalog-backed names of :data:`costmodel.schema.inputs.CATALOG_INPUTS` the
    scenario uses, and the resolved serving throughput of a tokens workload.
    """
    r = as_resolved(scenario)
    found = {p: v for p, v in input_paths(r.scenario, r.catalog).items() if v is not None}
    for path, value in r.values.items():
        found[path] = value
    if r.workload.capacity is not None and THROUGHPUT_INPUT not in r.values:
        found[THROUGHPUT_INPUT] = float(r.workload.capacity.output_tokens_per_second_per_gpu)
    return dict(sorted(found.items()))


def value_of(scenario: Scenario | Resolved, path: str) -> float:
    """The current value of one input. [the input's unit]

    Raises
    ------
    KeyError
        No such input.
    """
    found = numeric_inputs(scenario)
    if path not in found:
        raise KeyError(f"{path}: not a numeric input of this scenario")
    return float(found[path])


def with_values(scenario: Scenario | Resolved, values: Mapping[str, Any]) -> Resolved:
    """The scenario resolved with inputs replaced by numbers or numpy arrays.

    Not validated again: it exists to be evaluated, with arrays standing for samples of an
    input. See :func:`costmodel.resolved.resolve`.

    Raises
    ------
    KeyError
        An input path that the scenario does not have.
    """
    return resolve(as_resolved(scenario), values=values)


def bounds(scenario: Scenario | Resolved, path: str) -> Bounds:
    """The allowed range of an input from its field's rules."""
    r = as_resolved(scenario)
    return schema_bounds(r.scenario, r.catalog, path)


def _kept_range(scenario: Scenario | Resolved, path: str) -> tuple[float, float]:
    """The closed range samples of an input are clipped into: open ends just inside. [the input's unit]"""
    b = bounds(scenario, path)
    lo = float(np.nextafter(b.low, np.inf)) if b.low_open else b.low
    hi = float(np.nextafter(b.high, -np.inf)) if b.high_open else b.high
    if b.low_open and b.low == 0:
        lo = max(lo, 1e-9 * abs(value_of(scenario, path)))  # e.g. an MFU of 1e-300 is no MFU
    return lo, hi


def _support(distribution: Distribution) -> tuple[float, float]:
    """The smallest closed range holding every draw of :func:`sample`. [the input's unit]"""
    d = distribution
    if d.distribution in ("uniform", "triangular"):
        low, high = _given(d.low, d.high)
        return low, high
    if d.distribution == "empirical":
        values = np.asarray(d.values, dtype=float)
        return float(values.min()), float(values.max())
    return -math.inf, math.inf  # normal, lognormal: unbounded (a lognormal's draw can round to 0 or overflow)


def clip_to_bounds(scenario: Scenario | Resolved, path: str, samples: np.ndarray) -> tuple[np.ndarray, int]:
    """Samples clipped into the input's allowed range; open ends are kept just inside.

    Returns
    -------
    tuple of (numpy.ndarray, int)
        The clipped samples and how many were changed: ``samples`` itself (not a copy) when every
        sample lies in the range.
    """
    lo, hi = _kept_range(scenario, path)
    samples = np.asarray(samples)
    # two reductions tell that nothing is outside (a NaN fails both tests), sparing a clipped copy and
    # a comparison of 10^6 samples: most draws stay in range
    if samples.size and lo <= samples.min() and samples.max() <= hi:
        return samples, 0
    clipped = np.clip(samples, lo, hi)
    return clipped, int(np.count_nonzero(clipped != samples))


# --- the decision metric -----------------------------------------------------------------------


def tracked_option(scenario: Scenario | Resolved) -> str:
    """The option whose savings are tracked: ``uncertainty.option``, else own, else the first."""
    r = as_resolved(scenario)
    if r.uncertainty is not None and r.uncertainty.option is not None:
        return r.uncertainty.option
    return "own" if "own" in r.options else next(iter(r.options))


def measure_unit(scenario: Scenario | Resolved) -> str:
    """Unit of the decision measure: the reporting currency, the currency a month, or per successful task."""
    from .decision import measure_of, unit_of_measure

    r = as_resolved(scenario)
    return unit_of_measure(r.currency, measure_of(r))


def sampled(scenario: Scenario | Resolved, values: Mapping[str, Any]) -> Resolved:
    """The scenario with inputs replaced, each array given a trailing axis of length 1 (samples × 1)."""
    return with_values(
        scenario, {p: (np.asarray(v, dtype=float)[..., None] if np.ndim(v) else v) for p, v in values.items()}
    )


ELEMENTS_PER_CHUNK = 600_000
"""Numbers in one array of a call on samples: the present value's 10,000 samples × 60 months (4.8 MB of float64)."""

SAMPLES_PER_MONTHLY_CHUNK = 65_536
"""Most samples per call of a measure with one figure a sample (no trailing axis): 512 kB an array."""


def samples_per_chunk(scenario: Scenario | Resolved, measure: str) -> int:
    """Samples per call of :func:`option_costs`, so that one array of the call holds at most :data:`ELEMENTS_PER_CHUNK`.

    Parameters
    ----------
    scenario
        The scenario.
    measure
        The decision measure (a :class:`~costmodel.results.Measure` value).

    Returns
    -------
    int
        :data:`ELEMENTS_PER_CHUNK` over the measure's trailing axis (the months of the horizon for the
        present value, the hours of the demand profile for the monthly cost hour by hour, whose samples
        each take a row of the year), at most :data:`SAMPLES_PER_MONTHLY_CHUNK` and at least 1. [samples]
    """
    from ..results import Measure

    r = as_resolved(scenario)
    if measure == Measure.PRESENT_VALUE and r.finance is not None:
        axis = r.finance.horizon_months
    elif measure == Measure.HOURLY_MONTHLY_COST and r.demand is not None:
        axis = int(np.size(r.demand.shape))
    else:
        axis = 1
    return max(1, min(SAMPLES_PER_MONTHLY_CHUNK, ELEMENTS_PER_CHUNK // max(axis, 1)))


def option_costs(
    scenario: Scenario | Resolved, values: Mapping[str, Any] | None = None, measure: str | None = None
) -> dict[str, np.ndarray]:
    """Every candidate's figure on the decision measure, one per sample of ``values``.

    Parameters
    ----------
    scenario
        The scenario (scalar inputs).
    values
        Input path → samples, each a 1-D array of the same length (or a number); None: the
        scenario's own inputs.
    measure
        The measure; default the scenario's (:func:`costmodel.domain.decision.measure_of`).

    Returns
    -------
    dict of str to numpy.ndarray
        Candidate id → shape (N,) (shape () without samples). [the decision measure's unit: :func:`measure_unit`]
    """
    from .decision import measure_figures, measure_of, present_value_figures, reserved_gpus_of

    r = as_resolved(scenario)
    measure = measure or measure_of(r)
    n = max((np.size(v) for v in (values or {}).values() if np.ndim(v)), default=0)
    chunk = samples_per_chunk(r, measure)
    if values and n > chunk:
        # in chunks, whose temporaries the allocator reuses and the CPU's cache holds (one call on 100,000
        # samples × 60 months of the present value spent more time mapping fresh pages than computing; the
        # hour-by-hour measure's samples × 8,760 hours would take 8 B × 8,760 a sample in each array)
        # each chunk's figures are copied into the whole arrays as soon as they are known, so that a chunk's
        # temporaries reuse the memory the previous chunk's released
        whole: dict[str, np.ndarray] = {}
        for i in range(0, n, chunk):
            part = option_costs(r, {p: (v[i : i + chunk] if np.ndim(v) else v) for p, v in values.items()}, measure)
            for o, figure in part.items():
                whole.setdefault(o, np.empty(n))[i : i + chunk] = figure
        return whole
    s = r if not values else sampled(r, values)
    if measure == "present_value" and "rent" in r.options:  # samples keep the base scenario's rented terms
        figures = present_value_figures(s, reserved_gpus=reserved_gpus_of(r))
    else:
        figures = measure_figures(s, measure)
    arrays = {o: np.asarray(c, dtype=float) for o, c in figures.items()}
    arrays = {o: (c[..., 0] if c.ndim and c.shape[-1] == 1 else c) for o, c in arrays.items()}
    shape = np.broadcast_shapes(*(c.shape for c in arrays.values()))
    return {o: np.broadcast_to(c, shape) for o, c in arrays.items()}


def decision_metric(
    scenario: Scenario | Resolved, option: str | None = None, values: Mapping[str, Any] | None = None
) -> np.ndarray:
    """Tracked option's figure minus the cheapest other candidate's, on the decision measure. [:func:`measure_unit`]

    The tracked option's figure is the lowest of its own ways to pay (``rent`` with ``rent.reserved``,
    ``rent.spot``, ``rent.on_demand``); the others are every other candidate of :func:`option_costs`, which
    leaves the mix and the plan out (each is a purchase chosen once on the scenario's own values, not per
    sample). Below 0: the tracked option wins.
    """
    option = option or tracked_option(scenario)
    return family_gap(option_costs(scenario, values), option)


def option_best(costs: Mapping[str, Any], option: str) -> np.ndarray:
    """Lowest figure of ``option``'s candidates: the option at its cheapest way to pay (the rent option on demand,
    reserved or on spot; shapes broadcast). [as the figures]

    Raises
    ------
    KeyError
        No candidate of the option.
    """
    from .decision import option_of

    own = [c for o, c in costs.items() if o == option or option_of(o) == option]
    if not own:
        raise KeyError(f"no candidate of the option {option!r}; candidates: {', '.join(costs)}")
    # elementwise minimum one array at a time, as np.min over a stacked axis 0 takes it, without the stacked copy
    return functools.reduce(np.minimum, own)


def family_gap(costs: Mapping[str, np.ndarray], option: str) -> np.ndarray:
    """Lowest figure of ``option``'s candidates minus the lowest of all others (shapes broadcast). [as the figures]"""
    from .decision import option_of

    best = option_best(costs, option)
    others = [c for o, c in costs.items() if not (o == option or option_of(o) == option)]
    if not others:
        return np.zeros_like(np.asarray(best, dtype=float))
    return best - functools.reduce(np.minimum, others)


# --- break-even inputs -----------------------------------------------------------------------


def break_even_input(
    scenario: Scenario | Resolved,
    path: str,
    low: float,
    high: float,
    option_a: str | None = None,
    option_b: str | None = None,
) -> InputBreakEven:
    """The value of an input in [low, high] at which two options cost the same on the decision measure.

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
        [low, high]"). Found to 1e-12 of the bracket's larger end by vectorised scans of the
        bracket (:func:`costmodel.formulas.roots.refine_root`; bisection for an input the model
        takes one value at a time), the first sign change from ``low``.

    Raises
    ------
    KeyError
        Unknown input.
    ValueError
        low > high.
    """
    if low > high:
        raise ValueError(f"{path}: low {low} is above high {high}")
    r = as_resolved(scenario)
    option_a = option_a or tracked_option(r)

    def differences(x):
        if option_b is None:
            return decision_metric(r, option_a, {path: x})
        costs = option_costs(r, {path: x})
        return costs[option_a] - costs[option_b]

    def difference(x: float) -> float:
        return float(np.asarray(differences(x)))

    f_low, f_high = difference(low), difference(high)
    if f_low == 0:
        return InputBreakEven(path, low, low, high, option_a, option_b)
    if f_high == 0:
        return InputBreakEven(path, high, low, high, option_a, option_b)
    if np.sign(f_low) == np.sign(f_high):
        return InputBreakEven(path, None, low, high, option_a, option_b)
    xtol = 1e-12 * max(1.0, abs(low), abs(high))
    try:
        probe = np.asarray(differences(np.array([low, high])), dtype=float)
        vectorised = probe.shape == (2,)
    except (TypeError, ValueError):  # an input the model takes one value at a time
        vectorised = False
    if vectorised:
        root = refine_root(lambda xs: np.asarray(differences(xs), dtype=float), low, high, f_low, xtol=xtol)
    else:
        root = bisect_root(difference, low, high, f_low, xtol=xtol)
    return InputBreakEven(path, float(root), low, high, option_a, option_b)


# --- tornado ---------------------------------------------------------------------------------------


def tornado_ranges(scenario: Scenario | Resolved) -> dict[str, tuple[float, float]]:
    """Low and high value of each tornado input: given, ± the default swing, or P10 and P90.

    Inputs listed under ``uncertainty.tornado`` take their range or ± ``tornado_swing``
    (clipped into the input's allowed range); when that list is empty, the inputs with
    distributions take their 10th and 90th percentiles, clipped into the allowed range as the
    Monte Carlo's samples are (a normal share's P10 below 0 is 0).
    """
    r = as_resolved(scenario)
    settings = r.uncertainty
    ranges = {}
    if settings.tornado:
        for path, given in settings.tornado.items():
            if given is not None:
                ranges[path] = (given.low, given.high)
                continue
            base = value_of(r, path)
            ends = np.array(sorted((base * (1 - settings.tornado_swing), base * (1 + settings.tornado_swing))))
            low, high = clip_to_bounds(r, path, ends)[0]
            ranges[path] = (float(low), float(high))
    else:
        for path, dist in settings.distributions.items():  # clipped as the samples are
            ends = np.array([quantile(dist, 0.1), quantile(dist, 0.9)])
            low, high = clip_to_bounds(r, path, ends)[0]
            ranges[path] = (float(low), float(high))
    return ranges


def tornado(scenario: Scenario | Resolved) -> list[TornadoBar]:
    """One-at-a-time sensitivity of the decision metric, widest swing first.

    Each input is evaluated at low and high in one vectorised call; an input whose range
    takes the metric across zero gets its break-even value (:func:`break_even_input`).
    """
    r = as_resolved(scenario)
    base_metric = float(decision_metric(r))
    bars = []
    for path, (low, high) in tornado_ranges(r).items():
        ends = decision_metric(r, values={path: np.array([low, high])})
        ends = np.broadcast_to(ends, (2,))
        crossing = None
        if np.sign(ends[0]) != np.sign(ends[1]):
            crossing = break_even_input(r, path, low, high).value
        bars.append(
            TornadoBar(
                path,
                low,
                high,
                value_of(r, path),
                float(ends[0]),
                float(ends[1]),
                base_metric,
                float(abs(ends[1] - ends[0])),
                crossing,
            )
        )
    return sorted(bars, key=lambda b: b.swing, reverse=True)


# --- Monte Carlo -------------------------------------------------------------------------------------


def _given(*parameters: float | None) -> tuple[float, ...]:
    """The parameters a distribution's kind requires (a uniform's low and high, ...), which the schema
    refuses to leave out (:class:`costmodel.schema.uncertainty.Distribution`)."""
    assert all(p is not None for p in parameters), "a distribution without a parameter its kind requires"
    return tuple(p for p in parameters if p is not None)


def sample(distribution: Distribution, rng: np.random.Generator, n: int) -> np.ndarray:
    """n draws from a distribution. [the input's unit]"""
    d = distribution
    if d.distribution == "uniform":
        low, high = _given(d.low, d.high)
        return rng.uniform(low, high, n) if high > low else np.full(n, float(low))
    if d.distribution == "triangular":
        low, mode, high = _given(d.low, d.mode, d.high)
        return rng.triangular(low, mode, high, n) if high > low else np.full(n, float(low))
    if d.distribution == "normal":
        mean, sd = _given(d.mean, d.sd)
        return rng.normal(mean, sd, n)
    if d.distribution == "lognormal":  # median · exp(N(0, σ)), in place: one array of n, not three
        median, sigma = _given(d.median, d.sigma)
        drawn = rng.normal(0.0, sigma, n)
        np.exp(drawn, out=drawn)
        drawn *= median
        return drawn
    return rng.choice(np.asarray(d.values, dtype=float), n, replace=True)


def quantile(distribution: Distribution, p: float) -> float:
    """The p-quantile of a distribution, exactly (empirical: numpy's linear quantile). [the input's unit]"""
    d = distribution
    if d.distribution == "uniform":
        low, high = _given(d.low, d.high)
        return low + p * (high - low)
    if d.distribution == "triangular":
        a, c, b = _given(d.low, d.mode, d.high)
        if b == a:
            return a
        split = (c - a) / (b - a)
        return a + math.sqrt(p * (b - a) * (c - a)) if p < split else b - math.sqrt((1 - p) * (b - a) * (b - c))
    if d.distribution == "normal":
        mean, sd = _given(d.mean, d.sd)
        return mean if sd == 0 else NormalDist(mean, sd).inv_cdf(p)
    if d.distribution == "lognormal":
        median, sigma = _given(d.median, d.sigma)
        return median * float(np.exp(sigma * NormalDist().inv_cdf(p))) if sigma > 0 else median
    return float(np.quantile(np.asarray(d.values, dtype=float), p))


def draw_inputs(
    scenario: Scenario | Resolved, samples: int | None = None, seed: int | None = None
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Samples of every input with a distribution, clipped to the input's allowed range.

    Inputs are drawn in the order of their paths, from one generator seeded with
    ``uncertainty.seed``: the same scenario and seed give the same samples.
    """
    r = as_resolved(scenario)
    settings = r.uncertainty
    n = samples or settings.samples
    rng = np.random.default_rng(settings.seed if seed is None else seed)
    drawn, clipped = {}, {}
    for path in sorted(settings.distributions):
        distribution = settings.distributions[path]
        values = sample(distribution, rng, n)
        lo, hi = _kept_range(r, path)
        low, high = _support(distribution)
        if lo <= low and high <= hi:  # no draw can leave the range: spare the two passes over the samples
            drawn[path], clipped[path] = values, 0
        else:
            drawn[path], clipped[path] = clip_to_bounds(r, path, values)
    return drawn, clipped


def monte_carlo(scenario: Scenario | Resolved, samples: int | None = None, seed: int | None = None) -> MonteCarlo:
    """Evaluate every option over N samples of the uncertain inputs, in one vectorised call.

    Parameters
    ----------
    scenario
        A scenario with an ``uncertainty`` block.
    samples, seed
        Override ``uncertainty.samples`` and ``uncertainty.seed``.

    Raises
    ------
    ValueError
        The scenario has no uncertainty block.
    """
    r = as_resolved(scenario)
    if r.uncertainty is None:
        raise ValueError("the scenario has no uncertainty block (distributions of inputs)")
    from .decision import labels, measure_of, reserved_gpus_of

    drawn, clipped = draw_inputs(r, samples, seed)
    n = samples or r.uncertainty.samples
    measure = measure_of(r)
    costs = {o: np.broadcast_to(c, (n,)) for o, c in option_costs(r, drawn, measure).items()}
    option = tracked_option(r)
    named = labels(r, measure, costs, reserved_gpus=reserved_gpus_of(r) if "rent" in r.options else None)
    return MonteCarlo(
        costs,
        family_gap(costs, option),
        option,
        clipped,
        str(measure),
        measure_unit(r),
        {o: named.get(o, r.label(o) if o in r.options else o) for o in costs},
    )


# --- Sobol --------------------------------------------------------------------------------------------


def _salib_distribution(d: Distribution) -> tuple[str, list[float]] | None:
    if d.distribution == "uniform":
        low, high = _given(d.low, d.high)
        return ("unif", [low, high]) if high > low else None
    if d.distribution == "triangular":
        low, mode, high = _given(d.low, d.mode, d.high)
        return ("triang", [low, high, (mode - low) / (high - low)]) if high > low else None
    if d.distribution == "normal":
        mean, sd = _given(d.mean, d.sd)
        return ("norm", [mean, sd]) if sd > 0 else None
    if d.distribution == "lognormal":
        median, sigma = _given(d.median, d.sigma)
        return ("lognorm", [float(np.log(median)), sigma]) if sigma > 0 else None
    return None


def sobol_indices(scenario: Scenario | Resolved) -> SobolIndices | None:
    """First-order and total Sobol indices of the decision metric, by SALib.

    Inputs whose distribution SALib cannot sample (empirical, or zero width) are left out
    and listed. When the metric does not vary (relative spread below :data:`NOT_VARYING`),
    no index is defined and each is None.

    Returns
    -------
    SobolIndices or None
        None with no input SALib can sample.

    Raises
    ------
    ExtraNotInstalled
        SALib is not installed (``pip install 'costmodel[sobol]'``).
    """
    from ..extras import need

    analyze = need("SALib.analyze.sobol", "Sobol analysis")
    sampler = need("SALib.sample.sobol", "Sobol analysis")
    r = as_resolved(scenario)
    settings = r.uncertainty
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
    values = {p: clip_to_bounds(r, p, x[:, i])[0] for i, p in enumerate(names)}
    y = np.broadcast_to(decision_metric(r, values=values), (x.shape[0],)).astype(float)
    scale = max(float(np.max(np.abs(y))), 1e-300)
    if np.ptp(y) <= NOT_VARYING * scale:
        none = (None,) * len(names)
        return SobolIndices(tuple(names), none, none, none, none, tuple(left_out))
    result = analyze.analyze(problem, y, calc_second_order=False, seed=settings.seed)
    first, first_conf, total, total_conf = (
        tuple(float(v) for v in result[k]) for k in ("S1", "S1_conf", "ST", "ST_conf")
    )
    return SobolIndices(tuple(names), first, first_conf, total, total_conf, tuple(left_out))

"""A live what-if panel for JupyterLab: move any input, see the verdict and the break-evens move.

:func:`what_if` builds a panel of ipywidgets for a scenario: a slider per numeric input
(named by its input path, as the uncertainty block and the sweeps name it), a dropdown per
catalog choice (GPU, server, rental offer, API offer), a toggle per on/off block (the finance
block, a served model's redundancy). Every change (on release of a slider) re-resolves the
scenario with the changed values and compares it again (a few milliseconds), then redraws
the verdict, each option's monthly cost (and horizon present value with a finance block),
the break-evens and the cost-against-volume chart, with the scenario file's own lines drawn
faintly behind. A line lists what differs from the scenario file; ``reset`` puts every
control back; ``save`` writes the changed scenario as YAML (``panel.scenario`` is the
validated :class:`~costmodel.schema.Scenario`, ``panel.yaml`` its text), which ``costmodel
compare`` and ``costmodel report`` take.

The panel's logic lives in :class:`WhatIf`, which works without a browser (set a control's
``value`` and read :attr:`WhatIf.comparison` and the widgets' text): ipywidgets is imported
here only, never by ``import costmodel``. Catalog-backed inputs (server price, rental price,
API prices, serving throughput) are saved in the scenario's ``overrides`` block.

The chart is an Altair chart compiled to a Vega 5 spec by vl-convert (once; each update fills
in the data) and drawn by JupyterLab's built-in Vega renderer, offline: drawing it as SVG in
the kernel would take about 0.2 s, twice the time an update may take.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import math
import time
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np

from ..catalog import Catalog, catalog_from
from ..domain.break_even import default_volume_max
from ..domain.compare import compare
from ..domain.costs import monthly_cost
from ..domain.uncertainty import decision_metric, quantile, tornado, tornado_ranges
from ..errors import InputError
from ..extras import ExtraNotInstalled
from ..paths import shown_path
from ..resolved import Resolved, resolve
from ..results import Comparison
from ..scenarios import (
    load_scenario,
    origin_path,
    scenario_path,
    scenario_text,
    set_path,
    validate_data,
    with_inputs,
    write_scenario_text,
)
from ..schema import Scenario
from ..schema.base import varies
from ..schema.inputs import CATALOG_INPUTS, THROUGHPUT_INPUT, Bounds, InputField, bounds_of, input_fields
from . import format as fmt
from .charts import _THEME, option_colours, option_legend, sweep_volumes, titled
from .safe import html_text
from .text import break_even_sentence, payback_words

try:
    import ipywidgets as widgets
except ImportError as exc:  # the what-if panel is the one feature of the interactive extra outside JupyterLab
    raise ExtraNotInstalled("costmodel.what_if", "interactive", "ipywidgets") from exc

TOP_INPUTS = 5
"""Sliders offered when no inputs are named: the inputs that move the answer most."""

QUICK_SWING = 0.2
"""One-at-a-time swing used to rank inputs when the scenario has no uncertainty block. [-]"""

DEFAULT_SPREAD = 0.5
"""A slider's reach either side of the input's value when no distribution or tornado range gives one. [-]"""

SLIDER_STEPS = 200
"""Steps across a float slider's range."""

CHART_POINTS = 300
"""Evenly spaced volumes of the panel's chart (GPU-count steps are added so they draw sharp)."""

VEGA_LITE_FOR_JUPYTERLAB = "5.21"
"""Vega-Lite version the chart is compiled with: its Vega 5 output is what JupyterLab 4 draws offline."""

CHOICES = {
    "workload.gpu": "GPU",
    "options.own.server": "server",
    "options.rent.offer": "rental offer",
    "options.api.offer": "API offer",
}
"""Catalog choices a dropdown can change, by the field's path."""

TOGGLES = {
    "finance": "horizon view (finance block)",
    "workload.serving.redundancy": "redundancy (spare replicas)",
}
"""On/off blocks a toggle can remove, by the block's path."""


# --- what a control moves --------------------------------------------------------------------------


@dataclass(frozen=True)
class SliderSpec:
    """One numeric input's slider: its range and where the range came from.

    Attributes
    ----------
    path, title, unit
        The input's path, title and unit.
    value
        Its value in the scenario file. [unit]
    low, high
        The slider's ends, inside the input's allowed range. [unit]
    step
        [unit]
    whole
        True for an input that sets a whole count (an integer slider).
    basis
        ``distribution``, ``tornado range`` or ``±50 %``: where the range came from.
    bounds
        The input's allowed range.
    """

    path: str
    title: str
    unit: str
    value: float
    low: float
    high: float
    step: float
    whole: bool
    basis: str
    bounds: Bounds


def _inside(bounds: Bounds, low: float, high: float, value: float) -> tuple[float, float]:
    """[low, high] clipped into the allowed range, open ends kept just inside, the value kept in."""
    lo_end = (
        bounds.low
        if not bounds.low_open
        else (bounds.low + max(abs(value) * 1e-3, 1e-9) if bounds.low == 0 else math.nextafter(bounds.low, math.inf))
    )
    hi_end = bounds.high if not bounds.high_open else math.nextafter(bounds.high, -math.inf)
    low, high = max(min(low, value), lo_end), min(max(high, value), hi_end)
    return float(low), float(high)


def _distribution_reach(dist) -> tuple[float, float]:
    if dist.distribution in ("uniform", "triangular"):
        return float(dist.low), float(dist.high)
    if dist.distribution == "empirical":
        return float(min(dist.values)), float(max(dist.values))
    return float(quantile(dist, 0.01)), float(quantile(dist, 0.99))


def slider_spec(
    scenario: Scenario,
    found: InputField,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    gpus_per_replica: int = 1,
) -> SliderSpec:
    """The slider of one numeric input.

    The range is the input's distribution (uniform, triangular and empirical: their ends;
    normal and lognormal: P1 to P99), else its tornado range, else the value ± 50 % (0 to 1,
    or to the upper bound, for an input at 0); always widened to hold the value, and clipped
    to the input's allowed range (an open end is kept just inside it).

    Parameters
    ----------
    scenario
        The scenario (for its uncertainty block).
    found
        The input (:func:`costmodel.schema.inputs.input_fields`).
    ranges
        Tornado ranges by path (:func:`costmodel.domain.uncertainty.tornado_ranges`).
    gpus_per_replica
        Step of the rented GPU count (whole replicas). [GPU]
    """
    assert found.value is not None, "a slider moves an input that has a value (numeric_fields)"
    value = float(found.value)
    bounds = bounds_of(found.info) if found.path != THROUGHPUT_INPUT else Bounds(0.0, math.inf, True, False)
    settings = scenario.uncertainty
    if settings is not None and found.path in settings.distributions:
        low, high = _distribution_reach(settings.distributions[found.path])
        basis = "distribution"
    elif ranges and found.path in ranges:
        low, high = ranges[found.path]
        basis = "tornado range"
    elif value != 0:
        low, high = sorted((value * (1 - DEFAULT_SPREAD), value * (1 + DEFAULT_SPREAD)))
        basis = "±50 %"
    else:
        low, high = 0.0, bounds.high if math.isfinite(bounds.high) else 1.0
        basis = "0 to its upper bound" if math.isfinite(bounds.high) else "0 to 1"
    low, high = _inside(bounds, low, high, value)
    whole = _is_count(found.info)
    if whole:
        step = gpus_per_replica if found.path == "options.rent.gpu_count" else 1
        low = math.ceil(low / step) * step if low > 0 else step
        low = max(low, math.ceil(bounds.low)) if math.isfinite(bounds.low) else low
        high = max(math.floor(high / step) * step, low)
        if high == low:
            high = low + 2 * step
        return SliderSpec(
            found.path, found.title, found.unit, value, float(low), float(high), float(step), True, basis, bounds
        )
    step = (high - low) / SLIDER_STEPS if high > low else max(abs(value), 1.0) / SLIDER_STEPS
    return SliderSpec(found.path, found.title, found.unit, value, low, high, step, False, basis, bounds)


def _is_count(info) -> bool:
    """Whether a field takes whole numbers (a count of months, servers, GPUs)."""
    if info is None:
        return False
    stack = [info.annotation]
    while stack:
        annotation = stack.pop()
        if annotation is int:
            return True
        if typing.get_origin(annotation) is typing.Annotated:
            stack.append(typing.get_args(annotation)[0])
        else:
            stack.extend(a for a in typing.get_args(annotation) if a is not type(None))
    return False


def numeric_fields(scenario: Scenario, catalog: Catalog | None = None) -> dict[str, InputField]:
    """Every numeric input a slider can move, by path (the serving throughput with its resolved value)."""
    catalog = catalog or scenario.catalog
    found = {f.path: f for f in input_fields(scenario, catalog)}
    if THROUGHPUT_INPUT in found and found[THROUGHPUT_INPUT].value is None:
        capacity = resolve(scenario, catalog).workload.capacity
        assert capacity is not None, "a scenario with a serving throughput input resolves its capacity"
        f = found[THROUGHPUT_INPUT]
        found[THROUGHPUT_INPUT] = InputField(
            f.path, float(capacity.output_tokens_per_second_per_gpu), f.title, f.unit, f.info, capacity.source
        )
    return {p: f for p, f in found.items() if f.value is not None and not p.startswith("fx.")}


def top_inputs(scenario: Scenario, count: int = TOP_INPUTS) -> list[str]:
    """The inputs that move the decision most, widest swing first.

    From the tornado (:func:`costmodel.domain.uncertainty.tornado`) when the scenario has an
    uncertainty block; otherwise each input that may vary is moved ± 20 % (clipped to its
    allowed range) one at a time, and the swing of the decision metric (the tracked option's
    figure on the decision measure minus the cheapest other candidate's) ranks them. Inputs that
    set whole counts and the FX rates are left out of the quick ranking.
    """
    r = resolve(scenario)
    if scenario.uncertainty is not None and (scenario.uncertainty.distributions or scenario.uncertainty.tornado):
        return [bar.path for bar in tornado(r)][:count]
    swings = []
    fields = numeric_fields(scenario)
    found_info = {p: f.info for p, f in fields.items()}
    for path, found in fields.items():
        value = found.value
        assert value is not None, "numeric_fields keeps the inputs that have a value"
        if not varies(found.info) or value == 0 or path.startswith("demand."):
            continue
        bounds = bounds_of(found.info) if path != THROUGHPUT_INPUT else Bounds(0.0, math.inf, True, False)
        lower, upper = sorted((value * (1 - QUICK_SWING), value * (1 + QUICK_SWING)))
        low, high = _inside(bounds, lower, upper, value)
        try:
            ends = np.broadcast_to(decision_metric(r, values={path: np.array([low, high])}), (2,))
        except (ValueError, TypeError, InputError, KeyError):
            continue
        swings.append((float(abs(ends[1] - ends[0])), path, low, high))
    chosen = []
    for _, path, low, high in sorted(swings, key=lambda s: (-s[0], s[1])):
        if len(chosen) == count:
            break
        if path not in CATALOG_INPUTS and path != THROUGHPUT_INPUT:
            try:  # an input other rules tie (a job log's average) cannot move alone: not offered
                for end in (low, high):
                    with_inputs(scenario, {path: int(round(end)) if _is_count(found_info[path]) else end})
            except InputError:
                continue
        chosen.append(path)
    return chosen


def _get(data: Any, path: str) -> Any:
    node = data
    for part in path.split("."):
        if isinstance(node, list):
            node = node[int(part)] if part.isdigit() and int(part) < len(node) else None
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            return None
    return node


def verdict(comparison: Comparison) -> str:
    """The answer in one plain-text sentence: the decision's winner, its figure, the margin and the measure.

    The same sentence as the report's and ``costmodel compare``'s verdict
    (:func:`costmodel.presentation.text.decision_sentence`).

    Examples
    --------
    >>> import costmodel
    >>> print(verdict(costmodel.compare(costmodel.load_scenario("llama70b-vs-api")).comparison))
    Hosted API: Claude Opus 4.5 (Anthropic) is the cheapest at 3,548.61 USD/month, 8,521.39 USD/month (70.6 %) \
less than Cloud rental: 2 × H100-SXM-80GB at R1 product brief, on demand, 24/7, on the monthly cost at the \
scenario's volume, 10,000,000 tokens/day.
    """
    from .text import decision_sentence

    return decision_sentence(comparison)


def _number_text(value: float) -> str:
    """A number as typed in a scenario file: ``25``, ``12.5``, ``1.56``, ``10,000,000``."""
    value = float(value)
    return f"{int(value):,}" if value.is_integer() else f"{value:.6g}"


# --- the panel ---------------------------------------------------------------------------------------


class WhatIf:
    """A what-if panel for one scenario (see the module notes). Build it with :func:`what_if`.

    Attributes
    ----------
    base
        The scenario as loaded from its file.
    base_comparison
        Its :func:`~costmodel.compare` result.
    comparison
        The result with the controls as they stand.
    sliders, dropdowns, toggles
        The controls by input path (a toggle by its block's path).
    widget
        The panel (an ``ipywidgets.VBox``); a notebook displays it when the panel is the
        cell's last value.
    seconds
        Time of the last update, from the change to the redrawn widgets. [s]
    error
        The last change's problem (a value a rule refuses), or "" when it was accepted.
    """

    def __init__(
        self,
        scenario: Scenario,
        inputs: Iterable[str] | None = None,
        name: str | None = None,
        source: str | Path | None = None,
    ) -> None:
        self.base = scenario
        self.name = name or "scenario"
        self.source = source
        self.catalog: Catalog = scenario.catalog
        self.base_data = scenario.model_dump(mode="json", exclude_none=True)
        self.base_resolved = resolve(scenario)
        self.base_comparison = compare(self.base_resolved)
        self.comparison = self.base_comparison
        self.error = ""
        self.seconds = 0.0
        self._scenario: Scenario | None = scenario
        self._structural: Scenario = scenario
        self._structural_key: tuple = ()
        self._quiet = False
        fields = numeric_fields(scenario)
        chosen = list(inputs) if inputs is not None else top_inputs(scenario)
        unknown = [p for p in chosen if p not in fields and p not in CHOICES and p not in TOGGLES]
        if unknown:
            known = ", ".join(sorted(fields))
            raise KeyError(
                f"not an input of this scenario: {', '.join(unknown)}; numeric inputs: {known}; "
                f"choices: {', '.join(CHOICES)}; toggles: {', '.join(TOGGLES)}"
            )
        ranges = tornado_ranges(self.base_resolved) if scenario.uncertainty is not None else {}
        per_replica = int(self.base_resolved.workload.gpus_per_replica)
        self.specs = {p: slider_spec(scenario, fields[p], ranges, per_replica) for p in chosen if p in fields}
        self._fixed = {p for p in self.specs if not varies(fields[p].info)}  # set whole counts: validated
        self.sliders = {p: self._slider(s) for p, s in self.specs.items()}
        named_choices = [p for p in chosen if p in CHOICES]
        dropdowns = {p: self._dropdown(p) for p in (named_choices if inputs is not None else CHOICES)}
        self.dropdowns = {p: d for p, d in dropdowns.items() if d is not None}
        named_toggles = [p for p in chosen if p in TOGGLES]
        toggles = {p: self._toggle(p) for p in (named_toggles if inputs is not None else TOGGLES)}
        self.toggles = {p: t for p, t in toggles.items() if t is not None}
        self._build()
        self._redraw()

    # --- controls

    def _slider(self, spec: SliderSpec) -> widgets.IntSlider | widgets.FloatSlider:
        kind = widgets.IntSlider if spec.whole else widgets.FloatSlider
        extra = {} if spec.whole else {"readout_format": ",.0f" if spec.high >= 10_000 else ".4g"}
        slider = kind(
            value=spec.value,
            min=spec.low,
            max=spec.high,
            step=spec.step,
            continuous_update=False,
            description=f"{spec.title} [{spec.unit}]",
            style={"description_width": "260px"},
            layout=widgets.Layout(width="640px"),
            **extra,
        )
        slider.tooltip = f"{spec.path}; range from its {spec.basis}; allowed {spec.bounds.describe()}"
        slider.observe(self._changed, names="value")
        return slider

    def _choice_rows(self, path: str, gpu: str) -> list[tuple[str, str]]:
        c = self.catalog
        if path == "workload.gpu":
            ok = []
            for ident in sorted(c.gpus):
                if self.base.options.own is not None and not any(s.gpu == ident for s in c.servers.values()):
                    continue
                if self.base.options.rent is not None and not any(o.gpu == ident for o in c.cloud_offers.values()):
                    continue
                ok.append((ident, ident))
            return ok
        if path == "options.own.server":
            return [
                (f"{s.ident}: {fmt.amount(s.price, 0)} {s.currency} [{s.quality}]", s.ident)
                for s in sorted(c.servers.values(), key=lambda s: s.ident)
                if s.gpu == gpu
            ]
        if path == "options.rent.offer":
            return [
                (f"{o.ident}: {fmt.significant(o.price_per_gpu_hour, 4)} {o.currency}/GPU-h [{o.quality}]", o.ident)
                for o in sorted(c.cloud_offers.values(), key=lambda o: o.price_per_gpu_hour)
                if o.gpu == gpu
            ]
        return [
            (
                f"{o.ident}: {fmt.significant(o.input_per_million, 4)} in / "
                f"{fmt.significant(o.output_per_million, 4)} out {o.currency}/M tokens [{o.quality}]",
                o.ident,
            )
            for o in sorted(c.api_offers.values(), key=lambda o: o.ident)
            if o.output_per_million is not None
        ]  # input-only offers (embeddings) bill no output tokens

    def _dropdown(self, path: str) -> widgets.Dropdown | None:
        current = _get(self.base_data, path)
        if current is None:
            return None
        rows = self._choice_rows(path, self.base.workload.gpu)
        if current not in [v for _, v in rows]:
            rows.append((current, current))
        box = widgets.Dropdown(
            options=rows,
            value=current,
            description=CHOICES[path],
            style={"description_width": "260px"},
            layout=widgets.Layout(width="640px"),
        )
        box.observe(self._chose, names="value")
        return box

    def _toggle(self, path: str) -> widgets.ToggleButton | None:
        if _get(self.base_data, path) is None:
            return None
        button = widgets.ToggleButton(
            value=True, description=TOGGLES[path], tooltip=f"{path}: on or off", layout=widgets.Layout(width="320px")
        )
        button.observe(self._changed, names="value")
        return button

    def _build(self) -> None:
        self.verdict_html = widgets.HTML()
        self.costs_html = widgets.HTML()
        self.break_evens_html = widgets.HTML()
        self.changes_html = widgets.HTML()
        self.status = widgets.HTML()
        self.chart = widgets.Output(layout=widgets.Layout(width="760px"))
        self.reset_button = widgets.Button(description="reset", tooltip="put every control back to the scenario file")
        self.reset_button.on_click(lambda _: self.reset())
        default = f"{self.name}-what-if.yaml"
        self.path_text = widgets.Text(value=default, description="save as", layout=widgets.Layout(width="420px"))
        self.save_button = widgets.Button(description="save YAML", tooltip="write the changed scenario as YAML")
        self.save_button.on_click(lambda _: self._save_clicked())
        controls = [*self.sliders.values(), *self.dropdowns.values()]
        if self.toggles:
            controls.append(widgets.HBox(list(self.toggles.values())))
        self.widget = widgets.VBox(
            [
                widgets.HTML(f"<b>What if: {html_text(self.base.title)}</b>"),
                *controls,
                widgets.HBox([self.reset_button, self.path_text, self.save_button]),
                self.changes_html,
                self.status,
                self.verdict_html,
                self.costs_html,
                self.break_evens_html,
                self.chart,
            ]
        )

    # --- state

    def values(self) -> dict[str, float]:
        """Each slider's value that differs from the scenario file, by input path."""
        moved = {}
        for path, slider in self.sliders.items():
            value = slider.value
            if value != self.specs[path].value:
                moved[path] = int(value) if self.specs[path].whole else float(value)
        return moved

    def choices(self) -> dict[str, Any]:
        """Each dropdown and toggle that differs from the scenario file (a toggle off: None), by path."""
        chosen = {p: d.value for p, d in self.dropdowns.items() if d.value != _get(self.base_data, p)}
        chosen.update({p: None for p, t in self.toggles.items() if not t.value})
        return chosen

    def changes(self) -> list[str]:
        """What differs from the scenario file, one phrase per input: ``path: old → new unit``.

        A change of GPU also names the server and rental offer it brings and a pinned
        throughput row or curve it drops.
        """
        lines = []
        chosen = self.choices()
        if "workload.gpu" in chosen:
            data = self._data({})
            for path in (
                "options.own.server",
                "options.rent.offer",
                "workload.serving.throughput_row",
                "workload.serving.curve",
            ):
                if path not in chosen and _get(data, path) != _get(self.base_data, path):
                    chosen[path] = _get(data, path)
        for path, value in chosen.items():
            lines.append(f"{path}: off" if path in TOGGLES else f"{path}: {_get(self.base_data, path)} → {value}")
        for path, value in self.values().items():
            spec = self.specs[path]
            lines.append(f"{path}: {_number_text(spec.value)} → {_number_text(value)} {spec.unit}")
        return lines

    def _data(self, numbers: Mapping[str, float] | None = None) -> dict[str, Any]:
        """The scenario file's data with the controls applied (catalog figures under ``overrides``).

        ``numbers``: the slider values to apply (default: every moved slider).
        """
        numbers = self.values() if numbers is None else numbers
        data = copy.deepcopy(self.base_data)
        choices = self.choices()
        if "workload.gpu" in choices:
            gpu = choices["workload.gpu"]
            for path in ("options.own.server", "options.rent.offer"):
                if _get(data, path) is not None and path not in choices:
                    rows = self._choice_rows(path, gpu)
                    if rows:
                        choices[path] = rows[0][1]
            for path in ("workload.serving.throughput_row", "workload.serving.curve"):
                if _get(data, path) is not None:  # measured on the old GPU: the new GPU's own rows instead
                    choices[path] = None
        for path, value in choices.items():
            set_path(data, path, value)
        overrides = {}
        for path, value in numbers.items():
            if path in CATALOG_INPUTS or path == THROUGHPUT_INPUT:
                overrides[path] = value
            else:
                set_path(data, path, value)
        if overrides:
            block = data.setdefault("overrides", {"values": {}, "source": ""})
            block["values"] = {**block.get("values", {}), **overrides}
            block["source"] = (
                "what-if: "
                + "; ".join(f"{p} = {_number_text(v)}" for p, v in overrides.items())
                + (f"; earlier: {block['source']}" if block.get("source") else "")
            )
        return data

    @property
    def scenario(self) -> Scenario:
        """The changed scenario, validated (what ``save`` writes).

        Raises
        ------
        ScenarioError
            The controls' values break a rule (the panel shows it and keeps the last result).
        """
        if self._scenario is None:
            self._scenario = validate_data(self._data(), None, self.catalog)
        return self._scenario

    @property
    def yaml(self) -> str:
        """The changed scenario as YAML, headed by comments naming what changed and from which file.

        The rest is the scenario file's text with the changed values edited in: its comments, key
        order and layout are kept (:func:`~costmodel.scenarios.scenario_text`).
        """
        changes = self.changes()
        # the file as a shared page names it: no folder of the machine it was saved on
        origin = shown_path(self.source) if self.source else self.name
        head = [
            f"# What-if of {origin}, saved {dt.date.today().isoformat()} by costmodel.what_if",
            "# changed: " + ("; ".join(changes) if changes else "nothing (as the scenario file)"),
        ]
        # the scenario file's own text with the changed values edited in (its comments and key order kept)
        return "\n".join(head) + "\n" + scenario_text(self.scenario, self.source)

    def save(self, path: str | Path) -> Path:
        """Write :attr:`yaml` to ``path`` (whole or not at all); returns the path written."""
        path = Path(path)
        write_scenario_text(path, self.yaml, scenario_path(self.source) if self.source else None)
        return path

    def _save_clicked(self) -> None:
        try:
            written = self.save(self.path_text.value)
        except (InputError, OSError, ValueError) as exc:
            self.status.value = f"<span style='color:#b00'>not saved: {html_text(exc)}</span>"
            return
        self.status.value = (
            f"saved {html_text(written)}: <code>costmodel compare {html_text(written)}</code> "
            f"or <code>costmodel report {html_text(written)}</code> take it"
        )

    def reset(self) -> None:
        """Every control back to the scenario file's value; one redraw."""
        self._quiet = True
        try:
            for path, slider in self.sliders.items():
                slider.value = self.specs[path].value
            if "workload.gpu" in self.dropdowns:
                self.dropdowns["workload.gpu"].value = self.base.workload.gpu
                self._offer_rows_for(self.base.workload.gpu)
                self._quiet = True
            for path, box in self.dropdowns.items():
                box.value = _get(self.base_data, path)
            for button in self.toggles.values():
                button.value = True
        finally:
            self._quiet = False
        self._changed(None)

    def _chose(self, change) -> None:
        if self._quiet:
            return
        if change is not None and change.owner is self.dropdowns.get("workload.gpu"):
            self._offer_rows_for(change.new)
        self._changed(change)

    def _offer_rows_for(self, gpu: str) -> None:
        """The server and rental-offer dropdowns refilled with the rows of ``gpu``, the first chosen."""
        self._quiet = True
        try:
            for path in ("options.own.server", "options.rent.offer"):
                box = self.dropdowns.get(path)
                if box is None:
                    continue
                rows = self._choice_rows(path, gpu)
                if gpu == self.base.workload.gpu and _get(self.base_data, path) not in [v for _, v in rows]:
                    rows.append((_get(self.base_data, path), _get(self.base_data, path)))
                if rows:
                    box.options = rows
                    box.value = _get(self.base_data, path) if gpu == self.base.workload.gpu else rows[0][1]
        finally:
            self._quiet = False

    def _changed(self, change) -> None:
        if self._quiet:
            return
        start = time.perf_counter()
        self._scenario = None
        try:
            self.comparison = self._evaluate()
            self.error = ""
        except (InputError, ValueError, KeyError) as exc:
            self.error = str(exc)
        self._redraw()
        self.seconds = time.perf_counter() - start

    def _evaluate(self) -> Comparison:
        """Compare the scenario with the controls applied.

        Dropdowns and toggles change the scenario's structure: it is validated afresh (and
        cached). Sliders of inputs that may vary are applied as resolve ``values`` on it,
        which is the same arithmetic as the saved file gives, without validating each
        position of a slider; inputs that set whole counts are validated with the structure.
        """
        values = self.values()
        slow = {p: v for p, v in values.items() if p in self._fixed}
        fast = {p: v for p, v in values.items() if p not in slow}
        key = (tuple(sorted(self.choices().items(), key=lambda kv: kv[0])), tuple(sorted(slow.items())))
        if key != self._structural_key:  # validate the structure, with the sliders that may vary left out
            self._structural = validate_data(self._data(slow), None, self.catalog)
            self._structural_key = key
        resolved = resolve(self._structural, values=fast) if fast else resolve(self._structural)
        self._resolved = resolved
        # as `costmodel compare` of the saved file (the same search range); the panel shows no claims
        return compare(resolved, check=False)

    # --- drawing

    def _redraw(self) -> None:
        c = self.comparison
        base = self.base_comparison
        changes = self.changes()
        self.changes_html.value = (
            "<i>Differs from the scenario file:</i> " + html_text("; ".join(changes))
            if changes
            else "<i>As the scenario file.</i>"
        )
        if self.error:
            self.status.value = (
                f"<span style='color:#b00'>Not applied (the last result stays): {html_text(self.error)}</span>"
            )
        elif not self.status.value.startswith("saved"):
            self.status.value = ""
        self.verdict_html.value = f"<b>{html_text(verdict(c))}</b>"
        rows = []
        d, before = c.decision, base.decision
        for name, candidate in d.candidates.items():
            old = before.candidates.get(name)
            delta = "" if old is None or before.unit != d.unit else f"{candidate.figure - old.figure:+,.0f}"
            viewed = d.monthly_view_option(name)
            monthly = c.options[viewed].monthly_cost if viewed in c.options else None
            rows.append(
                f"<tr><td>{html_text(candidate.label)}</td><td style='text-align:right'>"
                f"{fmt.amount(candidate.figure, 0)}</td><td style='text-align:right;color:#777'>{delta}</td>"
                f"<td style='text-align:right'>{'-' if monthly is None else fmt.amount(monthly, 0)}</td></tr>"
            )
        head = (
            f"<tr><th>way to pay (the verdict first)</th><th>{html_text(d.description)} "
            f"[{html_text(d.unit)}]</th><th>vs the file</th>"
            f"<th>monthly view at the volume [{html_text(c.currency)}/month]</th></tr>"
        )
        self.costs_html.value = f"<table>{head}{''.join(rows)}</table>"
        label = c.label
        lines = [html_text(break_even_sentence(b, label, c.volume_unit) + " (monthly view)") for b in c.break_evens]
        if c.finance is not None and c.finance.payback_against is not None:
            lines.append(
                html_text(f"payback of owning against {label(c.finance.payback_against)}: {payback_words(c.finance)}")
            )
        self.break_evens_html.value = "<b>Break-evens</b><ul>" + "".join(f"<li>{x}</li>" for x in lines) + "</ul>"
        self.chart.outputs = (
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"application/vnd.vega.v5+json": self.chart_spec(), "text/plain": self.describe_chart()},
            },
        )

    def _sweep_records(self) -> dict[str, list[dict[str, Any]]]:
        """The chart's data: each option's monthly cost against volume now (``now``) and in the file
        (``base``), the break-evens (``rules``) and the volume compared (``volume``), volumes in display units."""
        resolved = getattr(self, "_resolved", self.base_resolved)
        upper = max(
            default_volume_max(self.base_resolved, self.base_resolved.volume),
            default_volume_max(resolved, resolved.volume),
        )
        scale, _ = fmt.volume_display(resolved.workload.kind)

        def records(r: Resolved) -> list[dict[str, Any]]:
            volumes = sweep_volumes(r, 0.0, upper, CHART_POINTS)
            shown = (volumes / scale).tolist()
            found = []
            for option in r.options:
                costs = np.broadcast_to(np.asarray(monthly_cost(r, option, volumes), dtype=float), volumes.shape)
                label = r.label(option)
                found += [{"volume": v, "cost": c, "option": label} for v, c in zip(shown, costs.tolist(), strict=True)]
            return found

        base = self.__dict__.setdefault("_base_records", {})
        if upper not in base:  # the file's lines change only with the axis
            base[upper] = records(self.base_resolved)
        found = {"base": base[upper], "now": records(resolved) if resolved is not self.base_resolved else base[upper]}
        found["rules"] = [{"volume": b.volume / scale} for b in self.comparison.break_evens if b.volume is not None]
        found["volume"] = [{"volume": self.comparison.volume / scale}]
        return found

    def _chart_spec(self) -> dict[str, Any]:
        """The chart's Vega-Lite spec with named data (no values), cached per options, currency and unit."""
        resolved = getattr(self, "_resolved", self.base_resolved)
        labels = tuple(resolved.label(o) for o in resolved.options)
        colours = option_colours(resolved)
        _, unit = fmt.volume_display(resolved.workload.kind)
        key = (labels, tuple(colours), resolved.currency, unit)
        cache = self.__dict__.setdefault("_spec_cache", {})
        if key not in cache:
            colour = alt.Color(
                "option:N",
                title="Option",
                scale=alt.Scale(domain=list(labels), range=colours),
                legend=option_legend(list(labels), 600),
            )
            x = alt.X("volume:Q", title=f"Volume [{unit}]", scale=alt.Scale(nice=False, zero=True))
            y = alt.Y("cost:Q", title=f"Monthly cost [{resolved.currency}/month]", axis=alt.Axis(format=",.0f"))
            base = (
                alt.Chart(alt.NamedData("base"))
                .mark_line(strokeWidth=1.5, opacity=0.3, strokeDash=[4, 3])
                .encode(x=x, y=y, color=colour)
            )
            now = (
                alt.Chart(alt.NamedData("now"))
                .mark_line(strokeWidth=2)
                .encode(
                    x=x,
                    y=y,
                    color=colour,
                    tooltip=[
                        alt.Tooltip("option:N"),
                        alt.Tooltip("volume:Q", format=",.2f"),
                        alt.Tooltip("cost:Q", format=",.0f"),
                    ],
                )
            )
            rules = alt.Chart(alt.NamedData("rules")).mark_rule(color="#444444").encode(x="volume:Q")
            volume = (
                alt.Chart(alt.NamedData("volume")).mark_rule(color="#999999", strokeDash=[2, 2]).encode(x="volume:Q")
            )
            chart = alt.layer(base, now, rules, volume).properties(
                width=600,
                height=300,
                title=titled(
                    f"Monthly cost against volume ({resolved.currency})",
                    subtitle=[
                        "Solid: the what-if; faint dashed: the scenario file; grey rules: "
                        "break-evens; dotted: the volume compared"
                    ],
                    width=600,
                ),
            )
            with alt.theme.enable(_THEME):
                cache[key] = chart.to_dict()
        return cache[key]

    def chart_spec(self) -> dict[str, Any]:
        """The cost-against-volume chart as a Vega 5 spec with its data, for JupyterLab's built-in renderer.

        Compiled from Altair's Vega-Lite by vl-convert once per set of options (Vega-Lite 5.21,
        which JupyterLab 4's bundled Vega 5 draws offline); each update only fills in the data.
        """
        import vl_convert

        vl = self._chart_spec()
        compiled = self.__dict__.setdefault("_vega_cache", {})
        key = id(vl)
        if key not in compiled:
            compiled[key] = vl_convert.vegalite_to_vega(vl, vl_version=VEGA_LITE_FOR_JUPYTERLAB)
        spec = dict(compiled[key])
        records = self._sweep_records()
        # values as one JSON text (Vega parses it): the widget sends one string, not thousands of small objects
        spec["data"] = [
            {**d, "values": json.dumps(records[d["name"]]), "format": {**d.get("format", {}), "type": "json"}}
            if d.get("name") in records
            else d
            for d in spec["data"]
        ]
        return spec

    def chart_svg(self) -> str:
        """The same chart drawn as SVG by vl-convert (for a file or a static page; about 0.2 s)."""
        import vl_convert

        return vl_convert.vegalite_to_svg({**self._chart_spec(), "datasets": self._sweep_records()})

    def describe_chart(self) -> str:
        """Alt text of the chart."""
        c = self.comparison
        marks = "; ".join(
            f"{c.label(b.option_a)} vs {c.label(b.option_b)} {fmt.volume(c.workload_kind, b.volume)}"
            for b in c.break_evens
        )
        return (
            f"Line chart of monthly cost against volume for {', '.join(o.label for o in c.options.values())}, "
            f"the scenario file's lines faint behind. Break-evens: {marks}."
        )

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


def what_if(
    scenario: str | Path | Scenario, inputs: Iterable[str] | None = None, catalog: str | Path | Catalog | None = None
) -> WhatIf:
    """A live what-if panel for a scenario: sliders, dropdowns and toggles, the verdict redrawn on every change.

    Parameters
    ----------
    scenario
        A bundled scenario's name, a path to a YAML file, or a validated scenario.
    inputs
        Input paths to give a slider (``options.own.power.pue``,
        ``options.rent.price_per_gpu_hour``, ...; see :mod:`costmodel.schema.inputs`), choices
        to give a dropdown (``workload.gpu``, ``options.own.server``, ``options.rent.offer``,
        ``options.api.offer``) and blocks to give a toggle (``finance``,
        ``workload.serving.redundancy``). Default: the five inputs that move the answer most
        (:func:`top_inputs`), every catalog choice and every on/off block the scenario has.
    catalog
        A folder of catalog CSV rows to add to the bundled ones (as ``compare --catalog``; ``""``
        or None: the bundled catalog), or a :class:`~costmodel.catalog.Catalog`: the scenario is
        loaded against it and the dropdowns list its rows. Not with a validated scenario, which
        has its catalog.

    Returns
    -------
    WhatIf
        Displayed as the panel when it is a notebook cell's last value.

    Raises
    ------
    KeyError
        An input the scenario does not have (the message lists those it has).
    ScenarioError
        The scenario file is missing or invalid.
    CatalogError
        The catalog folder is not one, or a row in it is bad.
    TypeError
        ``catalog`` given with a validated scenario.

    Examples
    --------
    >>> panel = what_if("llama70b-vs-api", ["options.api.output_price_per_million"])
    >>> panel.sliders["options.api.output_price_per_million"].value = 15.0
    >>> round(panel.comparison.options["api"].monthly_cost, 2)   # (2 x 5 + 15) / 3 USD/M x 304.17 M tokens
    2534.72
    >>> panel.changes()
    ['options.api.output_price_per_million: 25 → 15 USD/M tokens']
    """
    if isinstance(scenario, Scenario):
        if catalog is not None and catalog != "":
            raise TypeError(
                "what_if: a validated scenario has its catalog; give catalog= with a scenario name or "
                "path, or load the scenario with load_scenario(path, catalog)"
            )
        return WhatIf(scenario, inputs, source=origin_path(scenario))
    path = scenario_path(scenario)
    loaded = load_scenario(scenario, catalog if isinstance(catalog, Catalog) else catalog_from(catalog))
    return WhatIf(loaded, inputs, name=path.stem, source=path)


__all__ = [
    "CHOICES",
    "TOGGLES",
    "SliderSpec",
    "WhatIf",
    "numeric_fields",
    "slider_spec",
    "top_inputs",
    "verdict",
    "what_if",
]

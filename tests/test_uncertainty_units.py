"""One measure: every money label of the uncertainty section carries the unit of the decision measure.

The uncertainty analyses (Monte Carlo, tornado) are on the scenario's decision measure
(:func:`costmodel.domain.decision.measure_of`), so their figures are in its unit: the currency for
a present value and for a training run's cost, the currency a month for the monthly cost, and the
currency per 1,000 successful tasks for ``decision_measure: cost_per_successful_task``. The R2
report's tornado table once read "[USD/month]" over present values in USD.
"""

import re
from unittest.mock import patch

import pytest
from conftest import patched

import costmodel
from costmodel.presentation import sections, text
from costmodel.presentation.output import comparison_output

UNIFORM = "uniform"

CASES = [
    pytest.param(  # R2: a finance block, the present value of costs over 60 months
        "h200-24gpu-cluster", {"uncertainty.samples": 2_000}, "present_value", "USD", id="R2-present-value"
    ),
    pytest.param(  # R1: the monthly cost at the volume
        "llama70b-vs-api", {"uncertainty.samples": 2_000}, "monthly_cost", "USD/month", id="R1-monthly"
    ),
    pytest.param(  # a training run: the cost of the whole run
        "llama31-405b-training",
        {
            "uncertainty": {
                "samples": 500,
                "distributions": {"workload.mfu": {"distribution": UNIFORM, "low": 0.3, "high": 0.5}},
            }
        },
        "run_cost",
        "USD",
        id="training-run-cost",
    ),
    pytest.param(  # routed: the monthly cost over the successful tasks, per 1,000
        "routed-llama8b-frontier",
        {
            "uncertainty": {
                "samples": 500,
                "distributions": {
                    "options.rent.price_per_gpu_hour": {"distribution": UNIFORM, "low": 2.0, "high": 6.0},
                    "options.api.output_price_per_million": {"distribution": UNIFORM, "low": 15.0, "high": 35.0},
                },
            }
        },
        "cost_per_successful_task",
        "USD/1,000 successful tasks",
        id="routed-per-task",
    ),
]


def _currency_units(label: str, currency: str) -> list[str]:
    """Every bracketed unit of a label that names an amount of money: ``[USD]``, ``[USD/month]``, ..."""
    return [u for u in re.findall(r"\[([^\]]+)\]", label) if u.split("/", 1)[0] == currency]


def _axis_titles(spec) -> list[str]:
    """Every axis and tooltip title of a Vega-Lite spec (lines of a wrapped title joined by a space)."""
    found = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key in ("x", "y") and isinstance(value, dict) and "title" in value:
                title = value["title"]
                found.append(" ".join(title) if isinstance(title, list) else str(title or ""))
            elif key == "tooltip" and isinstance(value, list):
                found += [str(tip.get("title", tip.get("field", ""))) for tip in value if isinstance(tip, dict)]
            else:
                found += _axis_titles(value)
    elif isinstance(spec, list):
        for item in spec:
            found += _axis_titles(item)
    return found


def _rendered(r):
    """What the notebooks' uncertainty section shows: the tables' headers, the charts' axis titles, its text."""
    headers, axes, lines = [], [], []

    def shown(x):  # Markdown's backslash escapes removed (``USD\\/month``)
        lines.append(re.sub(r"\\(.)", r"\1", str(getattr(x, "data", x))))

    def charted(chart, description):
        axes.extend(_axis_titles(chart.to_dict()))
        lines.append(description)

    def tabled(frame):
        headers.extend(str(c) for c in frame.columns)

    with (
        patch.object(sections, "display", shown),
        patch.object(sections, "show", charted),
        patch.object(sections, "table", tabled),
    ):
        sections.uncertainty(r)
    return headers, axes, lines


@pytest.mark.parametrize(("base", "changes", "measure", "unit"), CASES)
def test_every_money_label_of_the_uncertainty_section_is_in_the_measures_unit(base, changes, measure, unit):
    r = costmodel.resolve(patched(base, changes))
    c = costmodel.compare(r).comparison
    assert str(c.decision.measure) == measure and c.decision.unit == unit
    headers, axes, lines = _rendered(r)
    money_headers = [h for h in headers if _currency_units(h, r.currency)]
    # the percentiles' P10/P50/P90 and the tornado's savings at low and high and swing
    assert len(money_headers) == 6, headers
    assert {u for h in money_headers for u in _currency_units(h, r.currency)} == {unit}
    money_axes = [a for a in axes if _currency_units(a, r.currency)]
    assert len(money_axes) == 5, axes  # the savings histogram's axis and tooltips, the tornado's axis and tooltip
    assert {u for a in money_axes for u in _currency_units(a, r.currency)} == {unit}
    assert any(f" {unit} (it saves money in" in line for line in lines), lines  # the P10-P90 sentence
    if not unit.endswith("/month"):
        assert not any("/month" in label for label in [*money_headers, *money_axes])


@pytest.mark.parametrize(("base", "changes", "measure", "unit"), CASES)
def test_the_summary_and_the_json_state_each_swing_in_the_measures_unit(base, changes, measure, unit):
    r = costmodel.resolve(patched(base, changes))
    result = costmodel.compare(r)
    c = result.comparison
    bars = costmodel.domain.uncertainty.tornado(r)
    moves = [line for line in text.executive_summary(r, c, bars).splitlines() if ": swing " in line]
    assert all(re.search(rf"swing -?[\d.,]+( [kMB])? {re.escape(unit)}($|,)", m) for m in moves), moves
    assert len(moves) == (0 if c.training is not None else min(3, len(bars)))  # a run's summary names no swing
    doc = comparison_output(c, r).model_dump(mode="json")["uncertainty"]
    assert doc["measure"] == measure
    quantities = [doc["savings_percentiles"][p] for p in ("p10", "p50", "p90")]
    quantities += [bar[k] for bar in doc["tornado"] for k in ("low_metric", "high_metric", "base_metric", "swing")]
    assert quantities and {q["unit"] for q in quantities} == {unit}

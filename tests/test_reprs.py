"""Short reprs and notebook HTML of the results a user gets: the domain Comparison, Resolved and
ScenarioDiff (the JSON document's ComparisonOutput has its own, tests/test_output.py) (issue 31)."""

import math

import numpy as np
import pytest

import costmodel
from costmodel.domain.compare import compare
from costmodel.domain.diff import diff
from costmodel.results import _shown

R1 = "llama70b-vs-api"

# R1 by hand (the scenario file and cases.md R1): rent = 2 GPUs x 3.5 USD/GPU-h x 730 h + one engineer at
# 6,000 EUR x 1.16 = 12,070 USD/month; API = (2 x 5 + 25) / 3 USD/M tokens x 10 M tokens/day x 365/12 days
RENT = 2 * 3.5 * 730 + 6000 * 1.16
API = (2 * 5 + 25) / 3 * 10 * 365 / 12
RENT_API_BREAK_EVEN = RENT / (API / 10_000_000)  # the API cost is linear through 0 [tokens/day]


def test_the_hand_figures():
    assert f"{RENT:,.2f}" == "12,070.00" and f"{API:,.2f}" == "3,548.61" and round(RENT_API_BREAK_EVEN) == 34_013_307


def test_comparison_repr_is_the_verdict_in_one_line():
    result = compare(costmodel.load_scenario(R1))
    assert repr(result) == (
        f"<Comparison {result.title!r}: api cheapest on monthly_cost, {RENT - API:,.2f} USD/month less than rent; "
        "at 10,000,000 tokens/day; 3 options, 3 break-evens>"
    )


def test_comparison_html_has_every_option_and_break_even_and_escapes_text():
    scenario = costmodel.with_inputs(costmodel.load_scenario(R1), {"title": "R1 <b>bold</b> & co"})
    page = compare(scenario)._repr_html_()
    assert "R1 &lt;b&gt;bold&lt;/b&gt; &amp; co" in page and "<b>bold</b>" not in page
    assert f"<td>Cloud rental</td><td style='text-align:right'>{RENT:,.2f}</td>" in page
    assert f"<td>Hosted API</td><td style='text-align:right'>{API:,.2f}</td>" in page
    # the break-even within a token/day of the hand figure (the search's tolerance)
    found = float(
        page.split("<td>Cloud rental vs Hosted API</td><td style='text-align:right'>")[1].split("<")[0].replace(",", "")
    )
    assert math.isclose(found, RENT_API_BREAK_EVEN, abs_tol=1.0)
    assert "monthly cost at 10,000,000 tokens/day [USD/month]" in page


@pytest.mark.parametrize("name", costmodel.bundled_scenarios())
def test_every_bundled_scenarios_results_have_short_reprs(name):
    resolved = costmodel.resolve(costmodel.load_scenario(name))
    result = compare(resolved)
    for text in (repr(resolved), repr(result)):
        assert len(text) < 400 and "\n" not in text, text
        assert "nan" not in text.lower() and "inf" not in text.lower().replace("info", "")
    assert repr(resolved).startswith(f"<Resolved {resolved.title!r}: {resolved.workload.kind} workload")
    assert "<table>" in result._repr_html_()


def test_diff_repr_names_each_measures_change():
    a = costmodel.load_scenario(R1)
    b = costmodel.with_inputs(a, {"workload.tokens_per_day": 12_000_000})
    found = diff(a, b, "file", "12 M")
    # the API cost is linear in tokens: +20 % of 3,548.61; the rented GPUs (2) serve 12 M tokens/day too;
    # the own cluster's power draw grows with its utilisation
    text = repr(found)
    assert text.startswith(
        "<ScenarioDiff 'file' -> '12 M': 1 numeric inputs and 0 other fields differ; monthly_cost.own +"
    )
    assert text.endswith(f"; monthly_cost.rent +0.00 USD/month; monthly_cost.api +{0.2 * API:,.2f} USD/month>")
    own = float(text.split("monthly_cost.own +")[1].split(" ")[0])
    assert own == pytest.approx(found.total("monthly_cost.own"), abs=0.005) and own > 0
    page = found._repr_html_()
    assert "<td>workload.tokens_per_day</td><td style='text-align:right'>1e+07</td>" in page
    assert f"<td style='text-align:right'>+{0.2 * API:,.2f}</td>" not in page  # a change is shown signed once:
    assert f"<td style='text-align:right'>{0.2 * API:,.2f}</td>" in page  # as B minus A


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), None, np.array([1.0, 2.0]), "x"])
def test_a_figure_that_is_not_one_number_is_not_defined(value):
    assert _shown(value) == "not defined"

"""Fuzzing the command line with generated and mutated scenarios (hypothesis).

Whatever the input, ``costmodel compare`` exits 0 or 2 with no traceback; on 0 the JSON and
the text hold no NaN, infinity, blank or "-0"; every cost is non-negative; and every
break-even it reports really is one (the costs are equal there, or one jumps past the other).
"""

import copy
import json
import math
import re

import numpy as np
import pydantic
import pytest
from conftest import leaves, numeric_paths, patched_data, write_scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.cli import main
from costmodel.domain.compare import compare
from costmodel.paths import DATA_DIR
from costmodel.scenarios import set_path

BASES = ("llama70b-vs-api", "h200-24gpu-cluster", "h100-10k-cluster", "deepseek-v3-training")


VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e18, max_value=1e18),
    st.floats(min_value=0, max_value=10),
    st.integers(-5, 100_000),
    st.sampled_from([0, -0.0, 1e-12, 1e300, "yes", "12", "2:1", None, True, [], {}, "", "  "]),
)


@st.composite
def mutated(draw):
    base = draw(st.sampled_from(BASES))
    data = patched_data(base, drop=("uncertainty",))
    paths = sorted(numeric_paths(data))
    for path in draw(st.lists(st.sampled_from(paths), min_size=1, max_size=3, unique=True)):
        set_path(data, path, draw(VALUES))
    return data


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=mutated())
def test_compare_never_crashes_and_never_prints_nonsense(tmp_path, capsys, data):
    path = write_scenario(tmp_path, data, "fuzz.yaml")
    code = main(["compare", str(path), "--json"])
    captured = capsys.readouterr()
    assert code in (0, 2), captured.err
    assert "Traceback" not in captured.err
    if code == 2:
        assert captured.err.strip() and captured.out == ""
        return
    result = json.loads(captured.out)
    for where, value in leaves(result):
        if isinstance(value, float):
            assert math.isfinite(value), where
        if isinstance(value, str):
            assert value.strip() and value not in ("-0", "nan", "inf"), where
    for name, option in result["options"].items():
        assert option["monthly_cost"]["value"] >= 0, name
    assert main(["compare", str(path)]) == 0
    text = capsys.readouterr().out
    assert not re.search(r"\bnan\b|\binf\b|(?<![\w.])-0(\.0+)?\b", text, re.I)
    scenario = costmodel.load_scenario(path)
    for b in result["break_evens"]:  # the JSON gives the kind of the first change only
        if b["kind"] != "crossing":
            continue
        at = b["volume"]["value"]
        a, c = (costmodel.monthly_cost(scenario, o, at) for o in b["options"])
        # the JSON rounds the volume to 1e-6: compare the costs within what that rounding moves
        slope = abs(costmodel.monthly_cost(scenario, b["options"][0], at * 1.001 + 1) - a) + 1.0
        assert a == pytest.approx(c, rel=1e-6, abs=slope * 1e-3), b


@pytest.mark.parametrize("rate", [-0.0, 0.0])
def test_a_discount_rate_of_minus_zero_reads_zero(rate):
    # found by the fuzz test above: a rate of -0.0 (allowed: it is >= 0) printed "-0.0 % a year" in the measure
    data = patched_data("h200-24gpu-cluster", {"finance.discount_rate_per_year": rate}, drop=("uncertainty",))
    result = compare(costmodel.Scenario.model_validate(data))
    assert "(cash basis, 0.0 % a year," in result.decision.description
    assert not re.search(r"(?<![\w.])-0(\.0+)?\b", result.decision.description)


def negative_zeros(node) -> list[str]:
    """Paths of the leaves of a dump that are -0.0."""
    return [where for where, v in leaves(node) if isinstance(v, float) and v == 0 and math.copysign(1.0, v) < 0]


@pytest.mark.parametrize("name", ["h200-24gpu-cluster", "h200-data-and-support", "llama70b-hybrid"])
def test_minus_zero_is_read_as_zero_in_every_field_that_allows_zero(name):
    # -0.0 >= 0, so a field allowing zero accepts it; validation reads it as 0.0 (in lists too), so no -0 can
    # reach an output whatever the field (a rate, a share, a price, a list item of a bill of materials)
    base = patched_data(name, drop=("uncertainty",))
    allowed = 0
    for path in sorted(numeric_paths(base)):
        data = copy.deepcopy(base)
        set_path(data, path, -0.0)
        try:
            scenario = costmodel.Scenario.model_validate(data)
        except pydantic.ValidationError:
            continue  # a field that must be above zero refuses -0.0 as it refuses 0
        assert negative_zeros(scenario.model_dump()) == [], path
        allowed += 1
    assert allowed >= 12  # rates, shares, prices, staffing and demand figures of each of the three


def test_minus_zero_in_several_fields_reaches_no_output(tmp_path, capsys):
    changes = {
        "finance.discount_rate_per_year": -0.0,
        "finance.trends.rental_price_change_per_year": -0.0,
        "options.own.hardware_support_share_per_year": -0.0,
        "options.own.spare_share": -0.0,
        "options.rent.spot.interruptions_per_gpu_hour": -0.0,
        "demand.off_share": -0.0,
        "data_and_support.stored_tb": -0.0,
    }
    path = write_scenario(tmp_path, patched_data("h200-data-and-support", changes, drop=("uncertainty",)))
    assert main(["compare", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert negative_zeros(doc) == []
    assert "(cash basis, 0.0 % a year," in doc["decision"]["description"]
    assert main(["compare", str(path)]) == 0
    assert not re.search(r"(?<![\w.])-0(\.0+)?(?![\d.])", capsys.readouterr().out)


@settings(max_examples=40, deadline=None)
@given(volume=st.floats(0, 1e12), top=st.floats(1, 1e13))
def test_every_reported_break_even_is_one(volume, top):
    r = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    try:
        result = compare(r, volume=volume, volume_max=top)
    except ValueError as exc:  # too many GPU-count steps in the range: a clear refusal
        assert "steps of" in str(exc)
        return
    checked = 0
    for b in result.break_evens:
        for at, kind in zip(b.volumes, b.kinds, strict=True):
            a, c = (costmodel.monthly_cost(r, o, at) for o in (b.option_a, b.option_b))
            if kind == "crossing":
                assert a == pytest.approx(c, rel=1e-6, abs=1e-6)
            else:  # a step: just above, the sign of the difference has changed
                eps = max(at, 1.0) * 1e-9
                before = np.sign(costmodel.monthly_cost(r, b.option_a, at) - costmodel.monthly_cost(r, b.option_b, at))
                after = np.sign(
                    costmodel.monthly_cost(r, b.option_a, at + eps) - costmodel.monthly_cost(r, b.option_b, at + eps)
                )
                assert before != after or before == 0
            checked += 1
    assert checked == sum(len(b.volumes) for b in result.break_evens)


# --- the other routes a number takes in (issue 27: offers, overrides, sweeps, catalog folders) ------------

CATALOG_PATHS = (
    "options.api.input_price_per_million",
    "options.api.cached_input_price_per_million",
    "options.api.output_price_per_million",
    "options.rent.price_per_gpu_hour",
)


def _compare(tmp_path, capsys, data):
    code = main(["compare", str(write_scenario(tmp_path, data, "fuzz.yaml")), "--json", "--no-uncertainty"])
    captured = capsys.readouterr()
    assert code in (0, 2) and "Traceback" not in captured.err, captured.err
    return code, captured


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(column=st.sampled_from(["price_per_gpu_hour", "gpu", "currency", "as_of", "quality", "pricing"]), value=VALUES)
def test_inline_offers_take_any_value_without_a_crash(tmp_path, capsys, column, value):
    row = dict(
        offer="acme",
        provider="Acme",
        gpu="H100-SXM-80GB",
        pricing="on_demand",
        price_per_gpu_hour=2.5,
        currency="USD",
        quality="P",
        as_of="2026-11",
        source="quote",
    )
    row[column] = value
    data = patched_data(
        "llama70b-vs-api", {"offers.cloud_offers": [row], "options.rent.offer": "acme"}, drop=("uncertainty",)
    )
    code, _ = _compare(tmp_path, capsys, data)
    if code == 0 and column == "price_per_gpu_hour":  # only a real, positive number is a price
        assert isinstance(value, int | float) and not isinstance(value, bool) and value > 0


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(values=st.dictionaries(st.sampled_from(CATALOG_PATHS), VALUES, min_size=1, max_size=3))
def test_overrides_hold_the_catalog_rows_rules(tmp_path, capsys, values):
    data = patched_data("llama70b-vs-api", {"overrides": {"values": values, "source": "fuzz"}}, drop=("uncertainty",))
    code, _ = _compare(tmp_path, capsys, data)
    if code == 0:
        r = costmodel.resolve(costmodel.load_scenario(tmp_path / "fuzz.yaml"))
        api = r.options["api"]
        assert 0 < api.cached_input_price_per_million <= api.input_price_per_million


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    path=st.sampled_from(
        [
            "options.own.server_count",
            "options.own.power.pue",
            "options.rent.gpu_count",
            "workload.gpu_hours_per_month",
            "options.rent.price_per_gpu_hour",
        ]
    ),
    values=st.lists(VALUES, min_size=1, max_size=3),
)
def test_sweeps_refuse_what_the_scenario_would(tmp_path, capsys, path, values):
    sweep = tmp_path / "sweep.yaml"
    import yaml

    sweep.write_text(yaml.safe_dump({"base": "h200-24gpu-cluster", "grid": {path: values}}))
    code = main(["batch", "--sweep", str(sweep), "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code in (0, 1, 2) and "Traceback" not in captured.err, captured.err
    if code == 0:  # every value was one the scenario file itself would take (a count as 2 or 2.0)
        counts = ("options.own.server_count", "options.rent.gpu_count")
        for value in values:
            whole = path in counts and isinstance(value, float) and value.is_integer()
            value = int(value) if whole else value
            changes = (
                {"overrides": {"values": {path: value}, "source": "fuzz"}} if path in CATALOG_PATHS else {path: value}
            )  # a catalog figure is replaced by an override, not set in place
            data = patched_data("h200-24gpu-cluster", changes)
            assert _compare(tmp_path, capsys, data)[0] == 0, (path, value)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    column=st.integers(0, 9),
    text=st.one_of(
        st.text(max_size=12),
        st.sampled_from(["1_000", "0x10", "inf", "nan", "-1", "1e400", "=1+1", '"', "a,b", "\ufeff2", "2\n3"]),
    ),
)
def test_catalog_folders_refuse_bad_cells_with_a_catalog_error(tmp_path_factory, column, text):
    folder = tmp_path_factory.mktemp("catalog")
    header = (DATA_DIR / "cloud_prices.csv").read_text().splitlines()[0]
    cells = ["acme", "Acme", "H100-SXM-80GB", "on_demand", "2.5", "USD", "P", "2026-11", "quote", ""]
    cells[column] = text
    import csv
    import io

    out = io.StringIO()
    csv.writer(out).writerow(cells)
    (folder / "cloud_prices.csv").write_text(f"{header}\n{out.getvalue()}", encoding="utf-8")
    try:
        catalog = costmodel.load_catalog_overrides(folder)
    except costmodel.CatalogError as exc:
        assert exc.problems and str(folder) in str(exc)
        return
    row = catalog.cloud_offers.get(cells[0] if column != 0 else text)
    assert row is None or (math.isfinite(row.price_per_gpu_hour) and row.price_per_gpu_hour > 0)

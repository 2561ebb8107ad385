"""What makes a batch of many scenario files fast must not change a figure: the portfolio row computed
without the report's parts, the catalog merged without validating its rows again, the rental offers
indexed by GPU, a demand profile sorted once.

Each index or kept result is checked against the scan or the closed form it replaces, and shown not to
give one catalog's or one profile's answer for another.
"""

import dataclasses

import numpy as np
import pytest
from conftest import at_nim_point
from pydantic import ValidationError

import costmodel
from costmodel.api_options import _hour_part_factors
from costmodel.catalog import Catalog, default_catalog, merged_catalog
from costmodel.domain import break_even
from costmodel.domain.compare import compare
from costmodel.domain.finance import reserved_busy_hours
from costmodel.domain.mix import mix_result
from costmodel.domain.portfolio import OPTIONS, PAIRS, break_even_column, cost_column, decision_column, scenario_row
from costmodel.errors import ScenarioError
from costmodel.io import yaml_files
from costmodel.io.yaml_files import parse_yaml
from costmodel.paths import SCENARIO_DIR
from costmodel.schema.offers import Offers
from tests.conftest import catalog_with, patched

BUNDLED = sorted(path.stem for path in SCENARIO_DIR.glob("*.yaml"))


def _row_of_compare(r, name: str) -> dict:
    """The portfolio row as the whole comparison gives it (what the batch wrote before it computed the row
    alone): every column read from :func:`compare`'s result."""
    result = compare(r, check=False)
    names = list(OPTIONS) + [o for o in result.options if o not in OPTIONS]
    row = {"scenario": name, "point": None, "title": result.title, "volume": result.volume}
    row |= {"volume_unit": result.volume_unit, "currency": result.currency}
    row |= {cost_column(o): result.options[o].monthly_cost if o in result.options else None for o in names}
    d = result.decision
    row |= {
        "decision_measure": d.measure,
        "decision_unit": d.unit,
        "winner": d.winner,
        "winner_label": d.winning.label,
        "winner_figure": d.winning.figure,
        "runner_up": d.runner_up,
        "margin": d.margin,
    }
    row |= {decision_column(o): d.figure(o) if o in d.candidates else None for o in names}
    row |= {break_even_column(a, b): None for a, b in PAIRS}
    for pair in result.break_evens:
        a, b = sorted((pair.option_a, pair.option_b), key=names.index)
        row[break_even_column(a, b)] = pair.volume
    for o in names:
        row[f"npv_{o}"] = None if result.finance is None else result.finance.npv_by_option.get(o)
        row[f"tco_{o}"] = None if result.finance is None else result.finance.tco_by_option.get(o)
    # compare's warnings (a training run's plausibility warnings, unused inputs, withdrawn rows) after the estimates
    row["warnings"] = "; ".join([f"unsourced estimate: {e}" for e in result.estimates] + result.warnings) or None
    row["error"] = None
    return row


class TestScenarioRow:
    @pytest.mark.parametrize("name", BUNDLED)
    def test_each_figure_is_the_one_compare_gives(self, name):
        # the row leaves out what only a report shows; every figure it holds is compare's, to the bit
        r = costmodel.resolve(costmodel.load_scenario(name))
        row, expected = scenario_row(r, name), _row_of_compare(r, name)
        assert list(row) == list(expected)
        for column, value in expected.items():
            assert row[column] == value or (value != value and row[column] != row[column]), column

    def test_the_mix_without_its_steady_twin_is_the_same_mix(self):
        # R2's campaigns: the decision reads the profile's mix; the steady demand's mix is a report's
        r = costmodel.resolve(costmodel.load_scenario("h200-24gpu-cluster"))
        whole, alone = mix_result(r), mix_result(r, steady=False)
        assert whole is not None and alone is not None
        assert whole.if_steady is not None and alone.if_steady is None
        assert alone.mix.total == whole.mix.total and alone.mix.words() == whole.mix.words()


class TestMergedCatalog:
    def _inline(self, price: float) -> dict:
        offer = {
            "offer": "my-h100",
            "provider": "my-cloud",
            "gpu": "H100-SXM-80GB",
            "pricing": "on_demand",
            "price_per_gpu_hour": price,
            "currency": "USD",
            "quality": "P",
            "as_of": "2026-11",
            "source": "a quote",
        }
        return Offers.model_validate({"cloud_offers": [offer]}).tables()

    def test_rows_validated_already_give_the_catalog_validation_gives(self):
        tables = self._inline(1.5)
        merged = merged_catalog(tables, default_catalog())
        fields = {name: dict(getattr(default_catalog(), name)) for name in Catalog.model_fields}
        fields["cloud_offers"] |= tables["cloud_offers"]
        assert merged == Catalog(**fields)
        assert merged.cloud_offers["my-h100"].price_per_gpu_hour == 1.5

    def test_two_offers_give_two_catalogs(self):
        cheap, dear = (merged_catalog(self._inline(p), default_catalog()) for p in (1.5, 3.0))
        assert cheap.cloud_offers["my-h100"].price_per_gpu_hour == 1.5
        assert dear.cloud_offers["my-h100"].price_per_gpu_hour == 3.0
        assert "my-h100" not in default_catalog().cloud_offers

    def test_rows_given_as_plain_data_are_still_validated(self):
        # a table of plain dicts is no row validated already: Catalog validates it as it always did
        row = dict(default_catalog().gpus["H100-SXM-80GB"].model_dump(), memory_gb=-1)
        with pytest.raises(ValidationError, match="memory_gb"):
            merged_catalog({"gpus": {"H100-SXM-80GB": row}}, default_catalog())


class TestCloudOffersOf:
    def test_the_index_is_the_scan_for_every_gpu(self):
        catalog = default_catalog()
        for gpu in catalog.gpus:
            scan = tuple((ident, o) for ident, o in catalog.cloud_offers.items() if o.gpu == gpu)
            assert catalog.cloud_offers_of(gpu) == scan, gpu
        assert catalog.cloud_offers_of("no such GPU") == ()

    def test_another_catalogs_offers_are_its_own(self):
        catalog = default_catalog()
        before = catalog.cloud_offers_of("H100-SXM-80GB")  # the bundled catalog's index is built
        merged = merged_catalog(TestMergedCatalog()._inline(1.5), catalog)
        assert [i for i, _ in merged.cloud_offers_of("H100-SXM-80GB")] == [i for i, _ in before] + ["my-h100"]
        assert catalog.cloud_offers_of("H100-SXM-80GB") == before
        # a copy with other offers (model_copy keeps the instance's __dict__) indexes its own table
        emptied = catalog.model_copy(update={"cloud_offers": {}})
        assert emptied.cloud_offers_of("H100-SXM-80GB") == ()


class TestSortedDistribution:
    @pytest.mark.parametrize("off_share", [0.25, 0.5])
    def test_reserved_hours_are_the_closed_form_of_each_profile(self, off_share):
        # R2's campaigns in a 365-day year: 12 periods of 720 h (336 h on) and 120 h more, all on:
        # 4,152 h at 1 and 4,608 h at the off share; the distribution is that over its mean. A reserved
        # level L between the two serves the mean of min(d, L): (4152 L + 4608 d_off) / 8760 of the month.
        r = costmodel.resolve(patched("h200-24gpu-cluster", {"demand.off_share": off_share}))
        mean = (4152 + off_share * 4608) / 8760
        d_off = off_share / mean
        level = 1.2  # above the off hours' d_off, below the on hours' 1 / mean
        assert d_off < level < 1 / mean
        ceiling = float(r.workload.hourly_ceiling)
        hours = ceiling * 730 / level  # one GPU reserved: its capacity over the month's average is the level
        expected = hours * (4152 * level + 4608 * d_off) / 8760
        assert float(reserved_busy_hours(r, hours, 1)) == pytest.approx(expected, rel=1e-12)

    def test_a_profile_changed_sorts_its_own_distribution(self):
        r = costmodel.resolve(costmodel.load_scenario("h200-24gpu-cluster"))
        demand = r.demand
        assert demand is not None
        first = demand.sorted_distribution
        other = dataclasses.replace(demand, profile=demand.profile.model_copy(update={"off_share": 0.5}))
        assert demand.sorted_distribution is first
        assert not np.array_equal(other.sorted_distribution.demand, first.demand)
        assert np.array_equal(other.sorted_distribution.demand, np.sort(other.distribution))


class TestKeptServingCurves:
    def _plan(self, catalog=None):
        # as tests/test_serving_target.py: the target is the NIM point's own speed, so the operating point is it
        return costmodel.resolve(at_nim_point(), catalog).workload.capacity.plan

    def test_a_catalog_with_another_figure_converts_its_own_curve(self):
        # NIM's table: 623.4 tokens/s per 2 GPUs at concurrency 25 = 311.7 a GPU; a catalog stating 400 a GPU for
        # that point sizes at 400, and the bundled catalog after it at 311.7 again
        ident = "nim18-llama33-70b-h100-fp8-tp2-5000-500-c25"
        faster = catalog_with(
            serving_curves=lambda row: (
                row.model_copy(update={"output_tokens_per_second_per_gpu": 400.0}) if row.point == ident else row
            )
        )
        assert self._plan().point.throughput_per_gpu == pytest.approx(311.7)
        assert self._plan(faster).point.throughput_per_gpu == pytest.approx(400.0)
        assert self._plan().point.throughput_per_gpu == pytest.approx(311.7)


class TestKeptPriceWindows:
    def _factors(self, start_hour: float, end_hour: float) -> np.ndarray:
        # one UTC window on weekdays, at half price for every token class, over the week from Monday 00:00 UTC
        # that a scenario without a demand profile prices
        row = next(iter(default_catalog().api_price_windows.values()))
        window = row.model_copy(
            update={
                "days": "0-4",
                "start_hour": start_hour,
                "end_hour": end_hour,
                "time_zone": "UTC",
                "price_multiplier": 0.5,
            }
        )
        return _hour_part_factors((window,), None, {"input": 1.0}, None)["input"]

    @pytest.mark.parametrize(("start", "end"), [(9.0, 17.0), (10.0, 12.5)])
    def test_each_window_prices_its_own_hours(self, start, end):
        # hour h of day d (0 = Monday): 0.5 for a whole hour inside on a weekday, 0.75 for a half hour inside
        expected = np.ones(168)
        for day in range(5):
            for hour in range(24):
                inside = sum(start <= hour + half / 2 < end for half in (0, 1)) / 2
                expected[24 * day + hour] = 1 - 0.5 * inside
        assert np.array_equal(self._factors(start, end), expected)

    def test_two_windows_asked_in_turn_keep_their_own_hours(self):
        nine_to_five, late_morning = self._factors(9.0, 17.0), self._factors(10.0, 12.5)
        assert not np.array_equal(nine_to_five, late_morning)
        assert np.array_equal(self._factors(9.0, 17.0), nine_to_five)
        assert self._factors(10.0, 12.5)[10:13].tolist() == [0.5, 0.5, 0.75]


class TestFirstBreakEvens:
    @pytest.mark.parametrize("name", BUNDLED)
    @pytest.mark.parametrize("first_block", [1, 3, 256])
    def test_each_pair_breaks_even_where_break_evens_says(self, name, first_block, monkeypatch):
        # blocks of 1, 3 and 256 pieces put block edges at many pieces (a step there is found from the sign
        # the block before left); the search ranges end below, at and far above the default's 10 x the volume
        monkeypatch.setattr(break_even, "FIRST_BLOCK", first_block)
        r = costmodel.resolve(costmodel.load_scenario(name))
        for factor in (0.5, 10.0, 40.0):
            upper = max(r.volume, 1.0) * factor
            expected = [(b.option_a, b.option_b, b.volume) for b in break_even.break_evens(r, upper)]
            assert break_even.first_break_evens(r, upper) == expected, (name, factor)

    def test_the_search_stops_at_the_block_of_the_first_event(self, monkeypatch):
        # R4's own-rent break-even lies at 4.9 M GPU-h/month of a range to 10 x 12.0 M: the pieces past the
        # block that holds it are not priced (break_evens prices all 55,300 points of each option)
        r = costmodel.resolve(costmodel.load_scenario("llama31-405b-training"))
        upper = break_even.default_volume_max(r)
        priced: list[int] = []
        cost = break_even.monthly_cost
        monkeypatch.setattr(break_even, "monthly_cost", lambda r, o, v: priced.append(np.size(v)) or cost(r, o, v))
        (pair,) = break_even.first_break_evens(r, upper)
        first = sum(priced)
        priced.clear()
        (whole,) = break_even.break_evens(r, upper)
        assert pair == ("own", "rent", whole.volume) and whole.volume is not None
        assert whole.volume < upper / 10 and first < sum(priced) / 10


DEEP_TEXTS = [
    "x: " + "[" * 41 + "]" * 41 + "\n",  # 42 levels with the mapping, 42 openers: composed, then measured
    "x:\n" + "".join("  " * i + "- \n" for i in range(1, 60)),  # block sequences 59 deep
    "a: " + "[" * 45 + "]" * 45 + "\nb: ]\n",  # too deep, then a syntax error on line 2
    "b: ]\na: " + "[" * 45 + "]" * 45 + "\n",  # a syntax error on line 1, then too deep
    "x: " + "[" * 2000 + "]" * 2000 + "\n",  # more openers than are composed unchecked: read for depth first
    "a: &x {b: 1}\nc: [*x, *x]\nd: *y\n",  # an alias to nothing (a composer's error), shallow
    "x: [[1, 2], {a: 3}]\n",  # fine
]


class TestOnePassDepth:
    def _outcome(self, text: str, tmp_path) -> str:
        try:
            return repr(parse_yaml(text, tmp_path / "s.yaml"))
        except ScenarioError as exc:
            return str(exc)

    @pytest.mark.parametrize("text", DEEP_TEXTS)
    def test_the_same_answer_as_reading_every_text_for_depth_first(self, text, tmp_path, monkeypatch):
        # with no text composed unchecked, every text is read for its depth before it is composed (the former
        # order): the same data or the same error, whichever comes first in the text
        once = self._outcome(text, tmp_path)
        monkeypatch.setattr(yaml_files, "COMPOSED_UNCHECKED", -1)
        assert once == self._outcome(text, tmp_path)

    def test_too_deep_is_named_before_a_later_syntax_error_and_after_an_earlier_one(self, tmp_path):
        deep_first, broken_first = (self._outcome(DEEP_TEXTS[i], tmp_path) for i in (2, 3))
        assert "nested more than 40 levels deep" in deep_first
        assert "nested" not in broken_first and "line 1" in broken_first
        assert "nested more than 40 levels deep" in self._outcome(DEEP_TEXTS[0], tmp_path)
        assert self._outcome(DEEP_TEXTS[-1], tmp_path) == repr({"x": [[1, 2], {"a": 3}]})

    def test_ordinary_scenario_files_are_composed_unchecked(self):
        # the bundled scenarios open at most a few hundred collections by their characters' count
        for path in SCENARIO_DIR.glob("*.yaml"):
            assert not yaml_files._may_nest_deep(path.read_text()), path.name

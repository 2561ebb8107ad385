"""costmodel diff (one-at-a-time and Shapley split) and the claims block (R1's stated figures).

Expected values are closed forms from the scenario files and shared/reference/cases.md.
"""

import json

import pytest
from conftest import catalog_with, patched, patched_data, write_scenario

from costmodel.cli import main
from costmodel.domain.claims import check_claim, check_claims
from costmodel.domain.compare import compare as compare_domain
from costmodel.domain.diff import diff
from costmodel.schema.claims import Claim

OLD, NEW = 350_000.0, 420_000.0  # the DGX H200 estimate in data/servers.csv, and a higher quote


@pytest.fixture(scope="module")
def r2_changed():
    catalog = catalog_with(
        servers=lambda row: row.model_copy(update={"price": NEW}) if row.server == "dgx-h200" else row
    )
    return patched("h200-24gpu-cluster", {"finance.horizon_months": 72}, catalog=catalog, drop=("demand",))


def test_diff_names_both_inputs_and_splits_the_change(r2_steady, r2_changed):
    # R2 at steady demand (3 servers), against the same with a dearer server and a longer horizon
    result = diff(r2_steady, r2_changed, "R2", "R2 changed")
    assert {d.path for d in result.inputs} == {"options.own.server_price", "finance.horizon_months"}
    assert result.other == ()
    for measure in result.measures:
        split = sum(d.shapley[measure] for d in result.inputs) + result.other_effect[measure]
        assert split == pytest.approx(result.total(measure), rel=1e-12, abs=1e-6)
    price = next(d for d in result.inputs if d.path == "options.own.server_price")
    horizon = next(d for d in result.inputs if d.path == "finance.horizon_months")
    assert (price.a, price.b, horizon.a, horizon.b) == (OLD, NEW, 60, 72)
    # R2's own option: 3 servers, bill of materials 9.4 % of server capex, 60 months of
    # straight-line depreciation plus support at 10 % of capex a year
    capex = 3 * (NEW - OLD) * 1.094
    assert price.one_at_a_time["monthly_cost.own"] == pytest.approx(capex / 60 + capex * 0.10 / 12)
    assert horizon.one_at_a_time["monthly_cost.own"] == 0  # the monthly view has no horizon
    # renting 12,000 GPU-hours at Nebius's 4.50 USD for 12 more months
    assert horizon.shapley["tco.rent"] == pytest.approx(12 * 12_000 * 4.50)
    assert price.shapley["tco.rent"] == 0
    # the own TCO moves through both, with an interaction: Shapley halves it
    both = result.total("tco.own")
    alone = price.one_at_a_time["tco.own"] + horizon.one_at_a_time["tco.own"]
    assert price.shapley["tco.own"] - price.one_at_a_time["tco.own"] == pytest.approx((both - alone) / 2)


def test_diff_command_text_and_json(tmp_path, capsys):
    changed = write_scenario(tmp_path, patched_data("h200-24gpu-cluster", {"finance.horizon_months": 72}), "b.yaml")
    assert main(["diff", "h200-24gpu-cluster", str(changed), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["input"] for d in data["inputs"]] == ["finance.horizon_months"]
    assert data["measures"]["tco.rent"]["change"] == pytest.approx(12 * 12_000 * 4.50)
    assert main(["diff", "h200-24gpu-cluster", str(changed)]) == 0
    assert "finance.horizon_months" in capsys.readouterr().out


def test_r1_claims(r1):
    checks = {c.statement[:20]: c for c in check_claims(r1)}
    assert len(checks) == 3
    api, rent, flip = checks.values()
    # API: 11.6667 USD per M tokens x 10 M x 365/12 = 3,548.61 against "about $3,500": confirmed at 5 %
    assert api.confirmed and api.computed == pytest.approx(3548.61, abs=0.01)
    # rental: 12,070 USD against EUR 12,000 x 1.16 = 13,920 USD: 13 % short, contradicted
    assert not rent.confirmed and rent.stated == pytest.approx(13_920) and rent.computed == pytest.approx(12_070)
    # "if volume grew 10x, the answer would flip (self-hosting would pay)": at 100 M tokens/day the API bill is
    # 11.6667 x 100 x 365/12 = 35,486.11 USD and the 2 rented H100 still 2 x 3.5 x 730 + 6,960 = 12,070: confirmed
    assert flip.kind == "cheapest" and flip.confirmed and flip.options == ("rent", "api")
    assert flip.volume == 100e6 and flip.stated_multiple == 10 and flip.computed_multiple is None
    assert flip.stated == pytest.approx((2 * 5 + 25) / 3 * 100 * 365 / 12, rel=1e-12)
    assert flip.computed == pytest.approx(2 * 3.5 * 730 + 6960, rel=1e-12)
    assert flip.would_hold == ()


def test_a_break_even_claim_states_where_two_options_cost_the_same(r1):
    # R1's conclusion read as a break-even (what it was before the cheapest kind): "they cost the same at 10x,
    # within 25 %" is contradicted, the two break even at 34,013,307 tokens/day = 3.40 x
    claim = Claim(
        statement="same at 10x", kind="break_even", options=("rent", "api"), volume_multiple=10, tolerance=0.25
    )
    flip = check_claim(r1, claim)
    assert not flip.confirmed
    assert flip.stated_multiple == 10 and flip.computed_multiple == pytest.approx(3.4013307, rel=1e-6)
    needed = {c.path: c.needed for c in flip.would_hold}
    # at 100 M tokens/day the API bill is 11.6667 x 100 x 365/12 = 35,486.11 USD; the rental costs
    # 1,460 p + 6,960: equal at p = 19.538 USD/GPU-h
    api_at_10x = (2 * 5 + 25) / 3 * 100 * 365 / 12
    assert needed["options.rent.price_per_gpu_hour"] == pytest.approx((api_at_10x - 6960) / 1460, rel=1e-9)
    # or the API's output price o with (2 x 5 + o) / 3 x 3,041.67 = 12,070
    assert needed["options.api.output_price_per_million"] == pytest.approx(12_070 / (100 * 365 / 12) * 3 - 10, rel=1e-9)


def test_a_contradicted_cheapest_claim_names_the_inputs_at_which_the_two_cost_the_same(r1):
    # "the API stays cheaper at 10x": 35,486.11 against the rental's 12,070 USD/month, contradicted; it would hold
    # at a rental price p with 1,460 p + 6,960 = 35,486.11 (the same p as the break-even at 10x)
    claim = Claim(statement="API at 10x", kind="cheapest", option="api", options=("rent", "api"), volume_multiple=10)
    check = check_claim(r1, claim)
    assert not check.confirmed and check.options == ("api", "rent")
    assert check.computed == pytest.approx((2 * 5 + 25) / 3 * 100 * 365 / 12) and check.stated == pytest.approx(12_070)
    needed = {c.path: c.needed for c in check.would_hold}
    api_at_10x = (2 * 5 + 25) / 3 * 100 * 365 / 12
    assert needed["options.rent.price_per_gpu_hour"] == pytest.approx((api_at_10x - 6960) / 1460, rel=1e-9)
    # without a volume: at the scenario's, where the API (3,548.61) is below the rental (12,070)
    today = check_claim(r1, Claim(statement="API now", kind="cheapest", option="api", options=("api", "rent")))
    assert today.confirmed and today.volume == 10e6 and today.stated_multiple is None


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"option": "own", "options": ("rent", "api")}, "which of its two options costs less"),
        ({"option": "api", "options": ("api", "api")}, "names the two options it compares"),
        ({"option": "api"}, "names the two options it compares"),
        ({"option": "api", "options": ("api", "rent"), "volume": 1.0, "volume_multiple": 2.0}, "not both"),
        ({"option": "api", "options": ("api", "rent"), "value": 3.0}, "takes no value"),
        # a margin the check would drop without a word: "cheaper by 10 %" is not what it tests
        ({"option": "api", "options": ("api", "rent"), "tolerance": 0.1}, "takes no tolerance"),
    ],
)
def test_an_incomplete_cheapest_claim_is_refused(fields, words):
    with pytest.raises(ValueError, match=words):
        Claim(statement="x", kind="cheapest", **fields)


def test_a_cheapest_claim_read_back_from_its_data_is_valid():
    # a scenario's data written out (the what-if panel, a sweep) holds the default tolerance: not refused
    claim = Claim(statement="x", kind="cheapest", option="api", options=("api", "rent"))
    assert Claim.model_validate(claim.model_dump(exclude_none=True)) == claim


def test_a_cheapest_claim_in_words_and_json(capsys):
    assert main(["compare", "llama70b-vs-api"]) == 0
    out = capsys.readouterr().out
    assert 'confirmed: "If volume grew 10x' in out
    assert (
        "stated: Cloud rental (rent) costs less than Hosted API (api) at 100,000,000 tokens/day (10.0 x the volume); "
        "computed: Cloud rental 12,070.00 USD/month against Hosted API 35,486.11 USD/month"
    ) in out
    assert main(["compare", "llama70b-vs-api", "--json", "--no-uncertainty"]) == 0
    flip = json.loads(capsys.readouterr().out)["claims"][2]
    assert flip["kind"] == "cheapest" and flip["options"] == ["rent", "api"]
    assert flip["volume"] == {"value": 1e8, "unit": "tokens/day", "status": None}
    assert flip["tolerance_share"]["status"] == "not_applicable" and flip["computed_multiple"] is None


def test_claims_change_no_figure(r1):
    from costmodel.presentation.output import comparison_output

    def document(comparison):
        return comparison_output(comparison, uncertainty=False).model_dump(mode="json")

    without = document(compare_domain(patched("llama70b-vs-api", drop=("claims",))))
    with_claims = document(compare_domain(r1))
    assert without["claims"] == [] and len(with_claims.pop("claims")) == 3
    without.pop("claims")
    assert with_claims == without
    # the what-if panel's fast path (check=False) is the same comparison without the claims
    fast = document(compare_domain(r1, check=False))
    fast.pop("claims")
    assert fast == without


def test_an_incomplete_claim_is_refused(tmp_path, capsys):
    data = patched_data("llama70b-vs-api", {"claims": [{"statement": "cheap", "kind": "monthly_cost"}]})
    assert main(["validate", str(write_scenario(tmp_path, data))]) == 2
    assert "names its option" in capsys.readouterr().err
    with pytest.raises(ValueError, match="two different options"):
        Claim(statement="x", kind="break_even", options=("rent", "rent"), volume=1.0)


def test_a_number_that_needs_b_s_offer_moves_with_it(tmp_path, capsys):
    # Hostile-input finding: B prices web searches with its own offer; applying B's searches alone to A's offer
    # (no search price) failed the whole diff. 2 searches at 10 USD per 1,000 on 3,000-token requests add
    # 0.02 x 10 M / 3,000 x 365/12 = 2,027.78 USD a month, put on the differences B's offer moved together.
    import yaml
    from conftest import patched_data

    a = patched_data("llama70b-vs-api", drop=("uncertainty",))
    b = patched_data(
        "llama70b-vs-api",
        {
            "options.api.offer": "test-search",
            "options.api.searches_per_request": 2,
            "workload.input_tokens_per_request": 2000,
        },
        drop=("uncertainty",),
    )
    b["offers"] = {
        "api_offers": [
            {
                "offer": "test-search",
                "provider": "T",
                "model": "m",
                "input_per_million": 5.0,
                "output_per_million": 25.0,
                "web_search_per_thousand": 10.0,
                "currency": "USD",
                "quality": "P",
                "as_of": "2026-12-01",
                "source": "test",
            }
        ]
    }
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(a))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(b))
    assert main(["diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    assert "searches_per_request" in text
    assert "2027.7" in text or "2,027.7" in text


def test_a_break_even_claim_at_zero_volume_searches_the_comparisons_range():
    # at a volume of 0 the claim searched 0 to 10 x 0 and said "never in range" right under the comparison's
    # break-even list naming 34,013,307 tokens/day for the same pair; one search range, one answer
    s = patched("llama70b-vs-api", {"workload.tokens_per_day": 0})
    c = compare_domain(s)
    listed = next(b for b in c.break_evens if {b.option_a, b.option_b} == {"rent", "api"})
    claim = check_claim(s, Claim(statement="x", kind="break_even", options=("rent", "api"), volume_multiple=10))
    assert listed.volume is not None and claim.computed == pytest.approx(listed.volume, rel=1e-9)


def test_diff_text_writes_inputs_as_the_scenarios_do():
    # "1e+07 -> 0" where every other figure reads 10,000,000
    from costmodel.presentation.text import diff_text

    a = patched("llama70b-vs-api", {})
    b = patched("llama70b-vs-api", {"workload.tokens_per_day": 0})
    words = diff_text(diff(a, b, "A", "B"))
    line = next(x for x in words.splitlines() if x.startswith("workload.tokens_per_day"))
    assert line.endswith(": 10,000,000 -> 0 tokens/day"), line


def test_diff_names_the_two_files_when_their_options_differ(capsys):
    # it said "A holds options [...], B [...]" after "costmodel diff: diff:"
    assert main(["diff", "llama70b-vs-api", "h200-24gpu-cluster"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "costmodel diff: llama70b-vs-api holds the options own, rent, api; h200-24gpu-cluster holds own, rent; "
        "diff compares two scenarios with the same options"
    )


def test_other_differences_say_whether_they_moved_anything():
    # "+0.00" lines under "(moved the answer together)" read as a contradiction
    from costmodel.presentation.text import diff_text

    a = patched("llama70b-vs-api", {})
    # the interactive variant's other fields (request shape, target, estimate) move no measure by themselves
    nothing = diff_text(diff(a, patched("llama70b-interactive", {}), "A", "B"))
    assert "other differences (together they moved nothing):" in nothing
    moved = diff_text(diff(a, patched("llama70b-hybrid", {}), "A", "B"))  # an office-hours demand profile
    assert "other differences (together they moved):" in moved


@pytest.mark.parametrize(
    ("claim", "where", "name"),
    [
        # a further offer the scenario lacks, second of the pair: named at its own place in the list
        ({"option": "api", "options": ["api", "api:nope"]}, "claims.0.options.1", "api:nope"),
        # the option stated to cost less is also options.0: one message, not the same one twice
        ({"option": "rent:nope", "options": ["rent:nope", "api"]}, "claims.0.options.0", "rent:nope"),
    ],
)
def test_a_cheapest_claim_on_an_option_the_scenario_lacks_names_its_place_once(tmp_path, capsys, claim, where, name):
    data = patched_data("llama70b-vs-api", {"claims": [{"statement": "x", "kind": "cheapest", **claim}]})
    assert main(["validate", str(write_scenario(tmp_path, data))]) == 2
    err = capsys.readouterr().err
    assert f"bad.yaml: {where}: the scenario has no {name} option (got '{name}')" in err
    assert err.count(f"no {name} option") == 1, err


CHEAPEST_RENT = {"statement": "x", "kind": "cheapest", "option": "rent", "options": ["rent", "api"]}


@pytest.mark.parametrize(
    ("claim", "words"),
    [
        # 1e300 tokens/day: the API's bill 11.67 USD/M x 1e300 x 365/12 is 3.5e302, the text printed a 300-digit
        # figure; a volume above 1e15 (the largest figure the model takes, as for the scenario's own) is refused
        ({**CHEAPEST_RENT, "volume": 1e300}, "claims.0.volume: magnitude outside 1e-09 to 1e+15 (tokens/day)"),
        ({**CHEAPEST_RENT, "volume": 1e-300}, "claims.0.volume: magnitude outside 1e-09 to 1e+15 (tokens/day)"),
        # 1e300 x 1e7 = 1e307 tokens/day: the API's cost overflowed to inf, the text printed "api nan USD/month"
        (
            {**CHEAPEST_RENT, "volume_multiple": 1e300},
            "claims.0.volume_multiple: magnitude outside 1e-09 to 1e+15 (x the scenario's volume)",
        ),
        # a break-even claim is held to the same bound (at 1e300 its search blamed workload.tokens_per_day)
        (
            {"statement": "x", "kind": "break_even", "options": ["rent", "api"], "volume": 2e15},
            "claims.0.volume: magnitude outside 1e-09 to 1e+15 (tokens/day)",
        ),
    ],
)
def test_a_claims_volume_out_of_the_models_range_is_refused(tmp_path, capsys, claim, words):
    path = write_scenario(tmp_path, patched_data("llama70b-vs-api", {"claims": [claim]}, drop=("uncertainty",)))
    assert main(["validate", str(path)]) == 2
    assert f"bad.yaml: {words}" in capsys.readouterr().err
    assert main(["compare", str(path), "--json"]) == 2
    assert words in capsys.readouterr().err


def test_a_cheapest_claims_multiple_of_a_volume_of_zero_is_said():
    # R1 at 0 tokens/day: "rent costs less at 10x" is checked at 10 x 0 = 0 tokens/day, where the API costs
    # 0 and the rental 2 x 3.5 x 730 + 6,960 = 12,070 USD/month; the words said only "at 0 tokens/day", as if
    # the claim had stated 0, and the JSON's stated_multiple was null
    from costmodel.presentation.output import comparison_output
    from costmodel.presentation.text import cheapest_claim_words

    comparison = compare_domain(patched("llama70b-vs-api", {"workload.tokens_per_day": 0}))
    flip = comparison.claims[2]
    assert flip.volume == 0 and flip.stated_multiple == 10 and not flip.confirmed
    assert flip.stated == 0 and flip.computed == pytest.approx(2 * 3.5 * 730 + 6960, rel=1e-12)
    assert cheapest_claim_words(flip, "tokens/day").startswith(
        "stated: rent costs less than api at 0 tokens/day (10.0 x the volume); computed: rent 12,070.00 USD/month "
    )
    shown = comparison_output(comparison, uncertainty=False).model_dump(mode="json")["claims"][2]
    assert shown["stated_multiple"] == {"value": 10.0, "unit": "-", "status": None}


def test_a_training_runs_cheapest_claim_is_on_the_cost_of_the_whole_run(tmp_path, capsys):
    # R3's comparison ranks on the run's cost; the claim compared the monthly view "at 1,495,040 GPU-hours/month"
    # (the cluster busy all month) and took any volume, e.g. 5 GPU-hours/month, where the rental cost 10 USD.
    # The run: 2,667,103.07 GPU-hours; renting at 2 USD/GPU-h costs 5,334,206.13 USD; owning is 2,607,289.40
    # USD/month (the monthly view) x 2,667,103.07 / (2,048 x 730) months = 4,651,320.07 USD
    from costmodel.presentation.text import cheapest_claim_words

    claim = Claim(statement="renting is cheaper", kind="cheapest", option="rent", options=("rent", "own"))
    check = check_claim(patched("deepseek-v3-training"), claim)
    assert not check.confirmed and check.unit == "USD" and check.volume is None
    hours = 2_667_103.07
    assert check.computed == pytest.approx(2 * hours, rel=1e-8)
    assert check.stated == pytest.approx(2_607_289.40 * hours / (2048 * 730), rel=1e-8)
    assert cheapest_claim_words(check, "GPU-hours/month") == (
        "stated: rent costs less than own over the whole training run; computed: rent 5,334,206.13 USD against own "
        "4,651,320.07 USD"
    )
    # a stated volume has no meaning there: refused, naming the field
    stated = {"statement": "x", "kind": "cheapest", "option": "rent", "options": ["rent", "own"], "volume": 5.0}
    data = patched_data("deepseek-v3-training", {"claims": [stated]})
    assert main(["validate", str(write_scenario(tmp_path, data))]) == 2
    assert "claims.0.volume: a training run has no monthly volume to compare at" in capsys.readouterr().err


def test_a_cheapest_claim_names_further_offers_as_the_comparison_shows_them(capsys):
    # "api:haiku costs less than api" named the offers by their keys only; the monthly view above calls them
    # "Claude Haiku 4.5" and "Claude Sonnet 4.5, standard". At 50 M tokens/day, 4:1, 60 % of input cached
    # (data/api_prices.csv, per M tokens: Haiku 1 in, 0.10 cached, 5 out; Sonnet 3, 0.30, 15), x 365/12 days:
    # Haiku (16 x 1 + 24 x 0.1 + 10 x 5) x 30.4167 = 2,080.50; Sonnet three times that, 6,241.50 USD/month
    claim = {
        "statement": "Haiku is cheaper",
        "kind": "cheapest",
        "option": "api:haiku",
        "options": ["api", "api:haiku"],
    }
    comparison = compare_domain(patched("api-offers", {"claims": [claim]}))
    from costmodel.presentation.text import claims_text

    assert (
        "stated: Claude Haiku 4.5 (api:haiku) costs less than Claude Sonnet 4.5, standard (api) at 50,000,000 "
        "tokens/day; computed: Claude Haiku 4.5 2,080.50 USD/month against Claude Sonnet 4.5, standard 6,241.50 "
        "USD/month"
    ) in claims_text(comparison)
    assert comparison.options["api:haiku"].monthly_cost == pytest.approx((16 + 2.4 + 50) * 365 / 12, rel=1e-12)


def test_a_cheapest_claims_inputs_say_which_side_of_the_tie_it_holds(r1):
    # "the API stays cheaper at 10x": at 100 M tokens/day the two cost the same at a rental price p with
    # 1,460 p + 6,960 = 35,486.11 (p = 19.54 USD/GPU-h) or an API output price o with (2 x 5 + o) / 3 x 3,041.67
    # = 12,070 (o = 1.905 USD/M tokens); the claim holds past them, a rental dearer than 19.54 or an API output
    # price below 1.905 ("were 19.54" read as if the claim held at the tie, where neither costs less)
    from costmodel.presentation.text import claims_text

    claim = {"statement": "API at 10x", "kind": "cheapest", "option": "api", "options": ["rent", "api"]}
    comparison = compare_domain(patched("llama70b-vs-api", {"claims": [{**claim, "volume_multiple": 10}]}))
    lines = claims_text(comparison).splitlines()
    assert (
        "      options.rent.price_per_gpu_hour (rental price per GPU-hour) were above 19.54 USD/GPU-h instead of "
        "3.500 USD/GPU-h"
    ) in lines
    assert (
        "      options.api.output_price_per_million (API output price) were below 1.905 USD/M tokens instead of "
        "25.00 USD/M tokens"
    ) in lines
    assert (35_486.11 - 6960) / 1460 == pytest.approx(19.54, abs=0.005)
    assert 12_070 / (100 * 365 / 12) * 3 - 10 == pytest.approx(1.905, abs=0.0005)
    # a stated figure is met at the value found: "were", as before
    assert "(rental price per GPU-hour) were 4.767 USD/GPU-h" in claims_text(compare_domain(r1))


@pytest.mark.slow
def test_a_training_runs_report_shows_its_stated_figures(tmp_path):
    # the training report (notebooks/training_run.ipynb) had no "Stated figures checked": a training scenario's
    # claims were checked by compare and shown nowhere in its report. R3's run: rent 2 x 2,667,103.07 GPU-h =
    # 5,334,206.13 USD against own 4,651,320.07 USD (the ranking's figures)
    from costmodel.report import report_folder

    claim = {"statement": "renting is cheaper", "kind": "cheapest", "option": "rent", "options": ["rent", "own"]}
    path = write_scenario(tmp_path, patched_data("deepseek-v3-training", {"claims": [claim]}), "r3.yaml")
    assert main(["report", str(path), "--out", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / report_folder(path) / "report.html").read_text()
    assert "Stated figures checked" in page and "<strong>contradicted</strong>" in page
    assert (
        "Cloud rental (rent) costs less than Own cluster (own) over the whole training run; computed: Cloud rental "
        "5,334,206.13 USD against Own cluster 4,651,320.07 USD"
    ) in page


def test_a_cheapest_claim_between_two_options_that_tie_names_no_change():
    # a further rental identical to R1's rent: both 2 x 3.5 x 730 + 6,960 = 12,070 USD/month. "The copy costs
    # less" is contradicted (equal is not less); every input was listed as "were below 3.500 USD/GPU-h instead of
    # 3.500 USD/GPU-h", the tie at the current value (and a lower rent price makes the claim less true)
    data = patched_data("llama70b-vs-api", drop=("uncertainty",))
    data["options"]["rents"] = [{**data["options"]["rent"], "name": "copy", "label": "Same rental again"}]
    claim = Claim(statement="copy", kind="cheapest", option="rent:copy", options=("rent:copy", "rent"))
    check = check_claim(patched(data), claim)
    assert check.computed == check.stated == pytest.approx(2 * 3.5 * 730 + 6960, rel=1e-12)
    assert not check.confirmed and check.would_hold == ()


def test_a_claims_search_past_what_the_scenario_can_take_is_not_the_users_error(tmp_path, capsys):
    # R4, "renting is cheaper": searching the inputs that would make it hold tried a value at which a
    # checkpoint and restart every few seconds leave no time to train, and `compare` exited 2 on that value
    # ("workload.goodput: ... (got 57.24)"), one the user never gave. Such values are skipped. The run costs
    # 113,426,904.50 USD rented at 3.99 USD/GPU-h (28,427,795 GPU-hours) against 47,960,675.06 USD owned, so
    # the rent price at which the two tie is 3.99 x 47,960,675.06 / 113,426,904.50 = 1.6871 USD/GPU-h.
    stated = {"statement": "renting is cheaper", "kind": "cheapest", "option": "rent", "options": ["rent", "own"]}
    path = write_scenario(tmp_path, patched_data("llama31-405b-training", {"claims": [stated]}))
    assert main(["compare", str(path), "--json"]) == 0
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["confirmed"] is False
    rent = next(c for c in claim["would_hold"] if c["path"] == "options.rent.price_per_gpu_hour")
    assert rent["needed"]["value"] == pytest.approx(3.99 * 47_960_675.06 / 113_426_904.50, rel=1e-6)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ({**CHEAPEST_RENT, "volume_multiple": 1e9}, "cheapest"),
        ({"statement": "x", "kind": "break_even", "options": ["rent", "api"], "volume_multiple": 1e15}, "break_even"),
    ],
)
def test_a_claims_multiple_that_makes_a_volume_above_the_models_range_is_refused(tmp_path, capsys, claim, kind):
    # F15 kind (the message names inputs that cannot help): R1 (1e7 tokens/day) with a cheapest claim at 1e9 x
    # was confirmed at 1e16 tokens/day with costs printed to 18 digits (117,208,725,930.00 USD/month against
    # 3,548,611,111,111.11); a break-even at 1e15 x said "check workload.tokens_per_day (1e+07),
    # workload.serving.target_utilisation (0.8), ..." where the claim's multiple was the cause
    path = write_scenario(tmp_path, patched_data("llama70b-vs-api", {"claims": [claim]}, drop=("uncertainty",)))
    multiple = claim["volume_multiple"]
    assert main(["compare", str(path), "--json"]) == 2
    assert capsys.readouterr().err == (
        f"costmodel compare: {path}: claims.0.volume_multiple: {multiple:g} x the scenario's volume (1e+07 "
        f"tokens/day) is {multiple * 1e7:g} tokens/day, above the 1e+15 the model takes: state a smaller multiple "
        f"or a volume (got {multiple!r})\n"
    )


def test_a_break_even_claim_far_above_the_crossing_is_contradicted_not_a_failed_search(r1):
    # F15 kind: a break-even stated at 1e7 x R1's volume (1e14 tokens/day, inside the model's range) searched up
    # to 1e15, where the rental needs 4.6e6 GPUs, and failed naming the workload's inputs. The search now ends
    # where the options' GPU-count steps can be listed; the crossing is R1's 34,013,307 tokens/day
    # (test_a_break_even_claim_states_where_two_options_cost_the_same)
    claim = Claim(statement="x", kind="break_even", options=("rent", "api"), volume_multiple=1e7)
    check = check_claim(r1, claim)
    assert not check.confirmed
    assert check.stated == 1e14
    assert check.computed == pytest.approx(34_013_307, abs=1)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        # F7 kind: pydantic's "String should match pattern '^(own|rent|api)$|^(rent|api):[a-z0-9]...'"
        ("option", "ownn", "must be own, rent, api, or rent:<name> or api:<name> (a name of options.rents or "
         "options.apis) (did you mean own?)"),
        ("option", "Rent", "must be own, rent, api, or rent:<name> or api:<name> (a name of options.rents or "
         "options.apis) (did you mean rent?)"),
        ("figure", "Options.api", "must be the path of a figure of `costmodel compare --json`: lower-case keys "
         "joined by dots (options.api.monthly_cost)"),
    ],
)  # fmt: skip
def test_a_claims_option_or_figure_that_is_no_name_is_refused_in_words(tmp_path, capsys, field, value, words):
    claim = (
        {"statement": "x", "kind": "monthly_cost", "option": value, "value": 5}
        if field == "option"
        else {"statement": "x", "kind": "figure", "figure": value, "value": 5}
    )
    path = write_scenario(tmp_path, patched_data("llama70b-vs-api", {"claims": [claim]}))
    assert main(["validate", str(path)]) == 2
    assert f"bad.yaml: claims.0.{field}: {words} (got {value!r})" in capsys.readouterr().err


def test_an_option_name_that_is_no_short_name_is_refused_in_words(tmp_path, capsys):
    # F7 kind, the same pattern for options.rents.N.name (and options.apis, routing classes)
    rents = [{"label": "Nebius", "name": "Nebius H200", "offer": "nebius-h200", "billing": "per_gpu_hour_used"}]
    path = write_scenario(tmp_path, patched_data("h200-24gpu-cluster", {"options.rents": rents}))
    assert main(["validate", str(path)]) == 2
    assert (
        "bad.yaml: options.rents.0.name: must be a short name: lower-case letters, digits and -, at most 40, "
        "starting with a letter or a digit (got 'Nebius H200')"
    ) in capsys.readouterr().err


@pytest.mark.parametrize(
    "claim",
    [
        {"statement": "x", "kind": "monthly_cost", "option": "api", "value": 1e300},
        {"statement": "x", "kind": "monthly_cost", "option": "api", "value": 1e-300},
        {"statement": "x", "kind": "gpu_hours", "value": 1e300},
        {"statement": "x", "kind": "figure", "figure": "options.api.monthly_cost", "value": -1e300},
    ],
)
def test_a_claims_value_follows_the_magnitude_rule_of_every_figure(tmp_path, capsys, claim):
    # a stated 1e300 USD/month was printed with its 301 digits ("stated 1,000,000,000,000,000,052,504,...");
    # 1e-300 as a run of 300 zeros in a figure claim, "0.00 USD/month" in a monthly_cost one
    path = write_scenario(tmp_path, patched_data("llama70b-vs-api", {"claims": [claim]}))
    assert main(["validate", str(path)]) == 2
    assert (
        f"bad.yaml: claims.0.value: magnitude outside 1e-09 to 1e+15: no real figure is that large or small "
        f"(got {claim['value']:g})"
    ) in capsys.readouterr().err


def test_a_claims_value_of_zero_is_still_a_figure(tmp_path, capsys):
    # zero is plausible, as for every figure: the scenario is valid and the claim contradicted (the API costs
    # 3,548.61 USD/month, test_r1_claims)
    claim = {"statement": "x", "kind": "monthly_cost", "option": "api", "value": 0}
    path = write_scenario(tmp_path, patched_data("llama70b-vs-api", {"claims": [claim]}))
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()

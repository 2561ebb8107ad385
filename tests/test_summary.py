"""The executive summary at the top of every report, and the numbers it reads in (issue 17)."""

import pytest

import costmodel
from costmodel.presentation import format as fmt
from costmodel.presentation import text


def test_r1_summary_states_one_verdict_with_its_margin(r1):
    # R1 (shared/reference/cases.md): the API at 11.67 USD/M tokens x 10 M tokens/day x 365/12 days
    # = 3,548.61 USD/month; 2 rented H100 at 12,070 USD/month: 8,521.39 less; break-even 34.01 M tokens/day
    summary = text.executive_summary(r1, costmodel.compare(r1))
    assert summary.count("**Verdict:") == 1
    assert "**Verdict: Hosted API\\: Claude Opus 4\\.5 \\(Anthropic\\).**" in summary
    assert "Decision measure: the monthly cost at the scenario" in summary
    assert "3,548.61 USD/month" in summary and "8,521.39 USD/month less" in summary
    assert "34.01 M tokens/day" in summary
    # R1 rests on no grade-U figure, but its DGX H100 price is of 2023-05: past the 12 months servers are
    # flagged after, on the tests' review date (2026-12-02)
    assert "**Caveats:** 1 catalog price past the age the catalog allows, listed under the next heading." in summary
    assert "unsourced" not in summary.split("**Caveats:**")[1]


def test_r2_summary_reconciles_the_monthly_view_and_the_present_value(r2_steady):
    # R2 at steady demand: 12,000 GPU-hours/month x 4.50 USD = 54,000 USD/month rented; own 52,773 a month.
    # On the 60-month present value owning (2.93 M) loses to renting on demand (2.70 M), and both to the
    # rent option's cheapest other terms: 11 GPUs reserved (2.835 USD/GPU-hour) below 8 spot GPUs
    # (4.50 x 0.6 / 0.99 = 2.727 USD per GPU-hour of work: cheaper than reserved, but capped), every
    # month 11 x 730 x 2.835 + (12,000 - 11 x 730 x 0.9) x 2.727 = 35,782.32 USD, times the 60-month
    # annuity factor at 8 %/year (cash at the start of each month) = 1.79 M USD: the verdict
    from costmodel.domain.finance import own_finance

    c = costmodel.compare(r2_steady)
    i = 1.08 ** (1 / 12) - 1
    monthly = 11 * 730 * 4.5 * 0.63 + (12_000 - 11 * 730 * 0.9) * 4.5 * 0.6 / 0.99
    assert c.decision.winner == "rent.reserved"
    assert c.decision.winning.figure == pytest.approx(monthly * sum((1 + i) ** -k for k in range(60)), abs=0.01)
    summary = text.executive_summary(r2_steady, c)
    assert summary.count("**Verdict:") == 1 and "1\\-year reserved\\, 11 GPUs" in summary and "spot up to 8" in summary
    assert "Decision measure: the present value of costs over 60 months" in summary
    npv = own_finance(r2_steady).npv_by_option
    assert fmt.money(npv["rent"], "USD") == "2.70 M USD" and npv["rent"] == pytest.approx(2_698_073.29, abs=0.005)
    assert "2,698,073.29 USD for Cloud rental" in summary  # the runner-up as the verdict table gives it
    assert "**Why the monthly view differs:**" in summary and "52\\,773 USD\\/month" in summary
    assert "1 unsourced estimate" in summary


def test_training_summary_names_the_cheapest_option_for_the_run():
    # R3 (DeepSeek-V3): owning 4,651,320 USD against renting 5,334,206 USD for the run
    r = costmodel.resolve(costmodel.load_scenario("deepseek-v3-training"))
    summary = text.executive_summary(r, costmodel.compare(r))
    assert "**Verdict: Own cluster\\: 256 × hgx\\-h800" in summary and "**4,651,320.07 USD**" in summary
    assert "Decision measure: the cost of the whole training run" in summary
    assert "**682,886.06 USD more**" in summary  # 5,334,206.13 - 4,651,320.07 = 682,886.06


def test_tornado_inputs_read_by_their_schema_titles(r2):
    assert text.input_title(r2, "options.own.depreciation_months") == "Own cluster: depreciation period"
    assert text.input_value(r2, "options.own.depreciation_months", 39.6) == "39.6 months"


def test_numbers_as_a_reviewer_reads_them():
    assert fmt.money(1_056_233_792, "USD") == "1.06 B USD"
    assert fmt.volume("gpu_hours", 5_840_000) == "5.84 M GPU-hours/month"
    assert fmt.volume("gpu_hours", 11_721) == "11,721 GPU-hours/month"
    assert fmt.rate_per_year(0.08) == "8.0 %/year"
    assert fmt.count(8192, "GPUs") == "8,192 GPUs"


def test_a_break_even_that_changes_again_says_so():
    # "X above" alone would read as X up to the range's end; where the costs cross or step again, the sentence
    # names the next changes (three, then how many more)
    from costmodel.results import BreakEven

    def sentence(volumes):
        b = BreakEven(
            "rent", "api", volumes[0], "crossing", "api", "rent", 0.0, 100.0, volumes, ("crossing",) * len(volumes)
        )
        return text.break_even_sentence(b, str.upper, "GPU-h")

    assert sentence((10.0,)) == "RENT vs API: 10 GPU-h (costs equal; API cheaper below, RENT above)"
    assert sentence((10.0, 20.0)).endswith("RENT above, until the cheaper one changes again at 20 GPU-h)")
    many = sentence((10.0, 20.0, 30.0, 40.0, 50.0, 60.0))
    assert many.endswith("changes again at 20 GPU-h, 30 GPU-h, 40 GPU-h and 2 more)")

    # the report's summary too: R2's own cluster and rental cross at 37,940 GPU-hours/month, then again at 38,189
    # (whole servers and whole GPUs step at different volumes); "Cloud rental is cheaper below it" alone read as a
    # single crossing (a newcomer's walk-through scenario crossed back at 2,104 M tokens/day)
    from costmodel.domain.compare import compare

    summary = text._break_even_summary(compare(costmodel.load_scenario("h200-24gpu-cluster")))
    assert summary is not None and summary.endswith(
        "Cloud rental is cheaper below it, until the cheaper one changes again at 38,189 GPU-hours/month, "
        "40,853 GPU-hours/month, 41,371 GPU-hours/month and 17 more."
    )


def test_a_pure_number_carries_no_unit_in_the_claims(capsys):
    # the schema writes a pure number's unit "-": "were 1.468 - instead of 1.160" read as a stray dash
    from costmodel.cli import main

    assert main(["compare", "llama70b-vs-api"]) == 0
    words = capsys.readouterr().out
    held = [line for line in words.splitlines() if "fx.rates.EUR" in line]
    assert held and all(" - " not in line for line in held), held
    assert any(line.rstrip().endswith("FTE instead of 1.000 FTE") for line in words.splitlines())


def test_one_gpu_serves_and_two_serve():
    # the routed scenario's rental has 1 GPU: "1 GPU serve that volume" read wrong
    r = costmodel.resolve(costmodel.load_scenario("routed-llama8b-frontier"))
    one = text.headline(r, costmodel.compare(r))
    assert "1 GPU serves that volume." in one and "1 GPU serve " not in one
    r = costmodel.resolve(costmodel.load_scenario("llama70b-vs-api"))
    assert "2 GPUs serve that volume." in text.headline(r, costmodel.compare(r))

"""The Excel workbook: recomputed by an independent Excel-formula evaluator (the `formulas` package),
it must give the figures of ``compare --json``; text is never a formula; CSV tables add up."""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import patched, patched_data, write_scenario

from costmodel.cli import main
from costmodel.domain import finance
from costmodel.presentation.workbook import write_workbook

formulas = pytest.importorskip("formulas")
openpyxl = pytest.importorskip("openpyxl")

H200, TENK = "h200-24gpu-cluster", "h100-10k-cluster"


def recompute(path, inputs=None):
    """Every cell of a workbook as the `formulas` package computes it: 'SHEET!A1' -> value."""
    model = formulas.ExcelModel().loads(str(path)).finish()
    solution = model.calculate(inputs=inputs or {})
    cells = {}
    for key, value in solution.items():
        name = key.split("]")[-1].replace("'", "").upper()
        cells[name] = np.asarray(getattr(value, "value", value)).ravel()[0]
    return cells


def summary_figures(path):
    """Summary sheet figure title -> value, from the recomputed workbook."""
    cells = recompute(path)
    titles = {k: v for k, v in cells.items() if k.startswith("SUMMARY!A")}
    return {str(title): cells.get("SUMMARY!B" + k.split("!A")[1]) for k, title in titles.items()}, cells


@pytest.fixture(scope="module", params=[H200, pytest.param(TENK, marks=pytest.mark.slow)])
def exported(request, tmp_path_factory):
    """A bundled scenario exported by the command line, recomputed, and its compare --json."""
    folder = tmp_path_factory.mktemp("xlsx")
    path = folder / "out.xlsx"
    assert main(["export", request.param, "--xlsx", str(path)]) == 0
    figures, cells = summary_figures(path)
    return request.param, path, figures, cells


def test_the_workbook_has_the_three_sheets(exported):
    _, path, _, _ = exported
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Inputs", "Cash flows", "Summary"]
    names = set(book.defined_names.keys())
    assert {"fin_discount_rate", "own_server_price", "own_electricity_price", "rent_price"} <= names
    # the cash lines are formulas, not numbers
    sheet = book["Cash flows"]
    headers = [c.value for c in sheet[1]]
    electricity = headers.index("own: electricity = drawn kW x PUE x hours x price (idle draw, draw above idle) "
                                "[USD/month]") + 1
    assert str(sheet.cell(row=10, column=electricity).value).startswith("=")


def test_recomputed_npv_irr_and_yearly_totals_match_compare_json(exported, capsys):
    name, _, figures, cells = exported
    assert main(["compare", name, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["finance"]
    labels = {"own": "Own cluster", "rent": "Cloud rental"}
    checked = 0
    for option, label in labels.items():
        assert figures[f"present value of costs, {label}"] == pytest.approx(data["npv"][option]["value"], rel=1e-6)
        assert figures[f"TCO, {label}"] == pytest.approx(data["tco"][option]["value"], rel=1e-6)
        checked += 2
    irr = figures["IRR of owning vs Cloud rental (yearly, from monthly IRR)"]
    assert irr == pytest.approx(data["irr"]["value"], rel=1e-6)
    mirr = figures["MIRR of owning vs Cloud rental (yearly; finance and reinvestment at the monthly discount rate)"]
    assert mirr == pytest.approx(data["mirr"]["value"], rel=1e-6)
    assert figures["ROI of owning vs Cloud rental (net gain / investment)"] == pytest.approx(
        data["roi"]["value"], rel=1e-6)
    for key, title in (("payback_months", "payback"), ("discounted_payback_months", "discounted payback")):
        got = figures[f"{title} vs Cloud rental, fractional"]
        if data[key]["status"] == "never":         # R2: owning 4 servers never pays back
            assert got == "never within the horizon"
        else:
            assert got == pytest.approx(data[key]["value"], rel=1e-6)
    # yearly totals: the columns to the right of the months, headed "<label>: cash out in the year"
    header_row = {k.split("!")[1][:-1]: v for k, v in cells.items()
                  if k.startswith("CASH FLOWS!") and k.split("!")[1][-1] == "1" and not k.split("!")[1][-2].isdigit()}
    for option, label in labels.items():
        column = next(col for col, v in header_row.items() if v == f"{label}: cash out in the year [USD/year]")
        expected = data["yearly_cash_out"][option]["values"]
        got = [cells[f"CASH FLOWS!{column}{year + 2}"] for year in range(len(expected))]
        assert got == pytest.approx(expected, rel=1e-6)
        checked += len(expected)
    assert checked >= 14


@pytest.mark.slow
def test_changing_an_input_in_the_workbook_changes_the_answer(tmp_path):
    # a short horizon keeps the recomputation quick; the electricity price is raised from 0.0707 to
    # 0.12 USD/kWh in Excel and in the scenario, and both give the same own TCO and present value
    base = patched(H200, {"finance.horizon_months": 24})
    path = write_workbook(base, tmp_path / "base.xlsx")
    book = openpyxl.load_workbook(path)
    sheet = book["Inputs"]
    row = next(r for r in range(1, sheet.max_row + 1) if sheet.cell(row=r, column=5).value == "own_electricity_price")
    cell = f"'[base.xlsx]INPUTS'!B{row}"
    cells = recompute(path, {cell: 0.12})
    figures = {v: cells.get("SUMMARY!B" + k.split("!A")[1]) for k, v in cells.items() if k.startswith("SUMMARY!A")}
    dearer = finance.own_finance(patched(H200, {"finance.horizon_months": 24,
                                                "options.own.power.electricity_price_per_kwh": 0.12}))
    assert dearer.tco > finance.own_finance(base).tco
    assert figures["TCO, Own cluster"] == pytest.approx(dearer.tco, rel=1e-9)
    assert figures["present value of costs, Own cluster"] == pytest.approx(dearer.npv, rel=1e-9)


def test_a_title_starting_with_a_formula_is_written_as_text(tmp_path):
    title = '=HYPERLINK("http://example.invalid","click")'
    scenario = write_scenario(tmp_path, patched_data(H200, {"title": title, "finance.horizon_months": 12}), "t.yaml")
    out = tmp_path / "t.xlsx"
    assert main(["export", str(scenario), "--xlsx", str(out)]) == 0
    book = openpyxl.load_workbook(out)
    cell = book["Summary"]["A1"]
    assert cell.value == "'" + title and cell.data_type == "s"      # F30: a quote in front (OWASP)
    formulas_found = [c.coordinate for sheet in book for row in sheet.iter_rows() for c in row
                      if isinstance(c.value, str) and "HYPERLINK" in c.value and c.data_type == "f"]
    assert formulas_found == []


def test_csv_tables_add_up_to_the_tco(tmp_path, capsys):
    assert main(["export", H200, "--csv", str(tmp_path)]) == 0
    monthly = pd.read_csv(tmp_path / "cash_flows_by_month.csv")
    yearly = pd.read_csv(tmp_path / "cash_flows_by_year.csv")
    result = finance.own_finance(patched(H200))
    for option in ("own", "rent"):
        assert monthly.loc[monthly.option == option, "cash"].sum() == pytest.approx(result.tco_by_option[option])
        assert yearly.loc[yearly.option == option, "cash"].sum() == pytest.approx(result.tco_by_option[option])
    assert sorted(yearly.year.unique()) == [1, 2, 3, 4, 5]


def test_export_needs_a_target(tmp_path, capsys):
    assert main(["export", H200]) == 2
    assert "say what to write" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("changes", [
    # refresh at a 2-year life with declining-balance resale, hardware getting cheaper, energy and pay dearer
    {"finance.horizon_months": 36, "finance.useful_life_months": 24,
     "finance.residual": {"method": "declining_balance", "rate_per_year": 0.3},
     "finance.trends": {"electricity_price_change_per_year": 0.05, "salary_change_per_year": 0.03,
                        "hardware_price_change_per_year": -0.2}},
    # a finance lease still running at the horizon, and a yearly end-of-period NPV
    {"finance.horizon_months": 30, "finance.npv": {"period": "year", "timing": "end"},
     "finance.lease": {"kind": "finance", "rate_per_year": 0.06, "term_months": 36, "residual_share": 0.1}},
    # an all-upfront reserved commitment and a managed-service fee
    {"finance.horizon_months": 24, "finance.rent_commitment": {"gpus": 16, "payment": "all_upfront"},
     "options.own.staffing.managed_service_per_month": 1000.0},
    # owning pays back against a partial-upfront commitment (R2 at steady demand, 15,000 GPU-hours)
    {"demand": None, "workload.gpu_hours_per_month": 15000, "finance.lead_time_months": 0,
     "finance.during_lead_time": None,
     "finance.rent_commitment": {"gpus": 8, "payment": "partial_upfront", "upfront_share": 0.4}},
    # price paths: rental by yearly changes, hardware by yearly factors (refresh), electricity by a dated table
    {"finance.horizon_months": 36, "finance.useful_life_months": 24, "finance.start_date": "2026-01-01",
     "finance.trends": {"rental_price_path": {"yearly_changes": [-0.2, 0.1]},
                        "hardware_price_path": {"yearly_factors": [1.0, 0.8, 0.6]},
                        "electricity_price_path": {"dates": ["2026-07-01", "2027-01-01"], "factors": [1.2, 0.9]}}},
], ids=["refresh-escalation", "lease-yearly-npv", "commitment", "pays-back", "price-paths"])
def test_recomputed_workbook_matches_the_domain_in_variants(tmp_path, changes):
    s = patched(H200, changes)
    result = finance.own_finance(s)
    path = write_workbook(s, tmp_path / "v.xlsx")
    figures, _ = summary_figures(path)
    for option, label in (("own", "Own cluster"), ("rent", "Cloud rental")):
        assert figures[f"TCO, {label}"] == pytest.approx(result.tco_by_option[option], rel=1e-9)
        assert figures[f"present value of costs, {label}"] == pytest.approx(result.npv_by_option[option], rel=1e-9)
    # the paybacks' formulas follow the domain's convention (investment at its month's start, the last crossing)
    for value, title in ((result.payback_months, "payback"), (result.discounted_payback_months, "discounted payback")):
        got = figures[f"{title} vs Cloud rental, fractional"]
        assert got == ("never within the horizon" if value is None else pytest.approx(value, rel=1e-9))


@pytest.mark.slow
def test_recomputed_after_tax_figures_match_the_domain(tmp_path):
    s = patched(H200, {"finance.horizon_months": 36, "finance.useful_life_months": 24,
                       "finance.tax": {"rate": 0.21, "depreciation": "macrs_5", "bonus_share": 0.2}})
    result = finance.own_finance(s)
    figures, _ = summary_figures(write_workbook(s, tmp_path / "tax.xlsx"))
    for option, label in (("own", "Own cluster"), ("rent", "Cloud rental")):
        assert figures[f"TCO after tax, {label}"] == pytest.approx(result.after_tax_tco_by_option[option], rel=1e-9)
        assert figures[f"present value of costs after tax (month, begin), {label}"] == pytest.approx(
            result.after_tax_npv_by_option[option], rel=1e-9)


def test_parquet_export_writes_or_says_what_it_needs(tmp_path, capsys):
    code = main(["export", H200, "--parquet", str(tmp_path)])
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        assert code == 2 and "pyarrow" in capsys.readouterr().err
    else:
        assert code == 0 and (tmp_path / "cash_flows_by_year.parquet").exists()


@pytest.mark.slow
def test_recomputed_workbook_of_a_tokens_workload_with_an_api(tmp_path):
    # R1 with a horizon: API prices falling 30 % a year, rental 10 %, demand doubling, the API
    # serving the work during a 2-month lead time
    s = patched("llama70b-vs-api", {"finance": {
        "horizon_months": 14, "discount_rate_per_year": 0.1, "lead_time_months": 2, "during_lead_time": "api",
        "trends": {"api_price_change_per_year": -0.3, "rental_price_change_per_year": -0.1,
                   "demand_growth_per_year": 1.0}}})
    result = finance.own_finance(s)
    figures, _ = summary_figures(write_workbook(s, tmp_path / "r1.xlsx"))
    labels = {"own": "Own cluster", "rent": "Cloud rental", "api": "Hosted API"}
    for option, label in labels.items():
        assert figures[f"TCO, {label}"] == pytest.approx(result.tco_by_option[option], rel=1e-9)
        assert figures[f"present value of costs, {label}"] == pytest.approx(result.npv_by_option[option], rel=1e-9)
    assert figures["lowest present value of costs"] == labels[result.lowest_present_value]


@pytest.mark.parametrize("api", [
    {"service_tier": "batch"},
    {"searches_per_request": 1, "cached_input_share": 0.4, "cache_write_shares": {"5m": 0.1, "1h": 0.1}},
    {"offer": "deepseek-v4-1-flash"},                     # price windows: the clock factor on each part
], ids=["batch tier", "searches and cache writes", "price windows"])
def test_the_workbook_bills_the_api_with_every_billing_word(tmp_path, api):
    # A hostile-input finding: the workbook priced the API at input, cache-read and output prices only, so a
    # batch tier (half price) read 42,583 USD against compare's 21,292.
    changes = {f"options.api.{k}": v for k, v in api.items()}
    changes["workload.input_tokens_per_request"] = 2000
    s = patched("llama70b-vs-api", {"finance": {"horizon_months": 12, "discount_rate_per_year": 0.05}, **changes},
                drop=("uncertainty",))
    if "searches_per_request" in api:
        from conftest import catalog_with
        catalog = catalog_with(api_offers=lambda row: row.model_copy(update={"web_search_per_thousand": 10.0})
                               if row.offer == "anthropic-claude-opus-4-5" else row)
        s = patched("llama70b-vs-api", {"finance": {"horizon_months": 12, "discount_rate_per_year": 0.05},
                                        **changes}, drop=("uncertainty",), catalog=catalog)
    result = finance.own_finance(s)
    figures, _ = summary_figures(write_workbook(s, tmp_path / "api.xlsx"))
    assert figures["TCO, Hosted API"] == pytest.approx(result.tco_by_option["api"], rel=1e-9)
    assert figures["present value of costs, Hosted API"] == pytest.approx(result.npv_by_option["api"], rel=1e-9)

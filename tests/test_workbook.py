"""The Excel workbook: recomputed by an independent Excel-formula evaluator (the `formulas` package) and
by LibreOffice, also after editing each named input, it must give costmodel's figures; the values written
with the formulas (what pandas and openpyxl read) are costmodel's figures for every bundled scenario;
text is never a formula; CSV tables add up."""

import copy
import json

import numpy as np
import pandas as pd
import pytest
from conftest import patched, patched_data, write_scenario

from costmodel.cli import main
from costmodel.domain import finance
from costmodel.domain.compare import compare
from costmodel.presentation.workbook import write_workbook
from costmodel.scenarios import bundled_scenarios, load_scenario

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
    electricity = (
        headers.index("own: electricity = drawn kW x PUE x hours x price (idle draw, draw above idle) [USD/month]") + 1
    )
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
        data["roi"]["value"], rel=1e-6
    )
    for key, title in (("payback_months", "payback"), ("discounted_payback_months", "discounted payback")):
        got = figures[f"{title} vs Cloud rental, fractional"]
        if data[key]["status"] == "never":  # R2: owning 4 servers never pays back
            assert got == "never within the horizon"
        else:
            assert got == pytest.approx(data[key]["value"], rel=1e-6)
    # yearly totals: the columns to the right of the months, headed "<label>: cash out in the year"
    header_row = {
        k.split("!")[1][:-1]: v
        for k, v in cells.items()
        if k.startswith("CASH FLOWS!") and k.split("!")[1][-1] == "1" and not k.split("!")[1][-2].isdigit()
    }
    for option, label in labels.items():
        column = next(col for col, v in header_row.items() if v == f"{label}: cash out in the year [USD/year]")
        expected = data["yearly_cash_out"][option]["values"]
        got = [cells[f"CASH FLOWS!{column}{year + 2}"] for year in range(len(expected))]
        assert got == pytest.approx(expected, rel=1e-6)
        checked += len(expected)
    assert checked >= 14


def test_a_title_starting_with_a_formula_is_written_as_text(tmp_path):
    title = '=HYPERLINK("http://example.invalid","click")'
    scenario = write_scenario(tmp_path, patched_data(H200, {"title": title, "finance.horizon_months": 12}), "t.yaml")
    out = tmp_path / "t.xlsx"
    assert main(["export", str(scenario), "--xlsx", str(out)]) == 0
    book = openpyxl.load_workbook(out)
    cell = book["Summary"]["A1"]
    assert cell.value == "'" + title and cell.data_type == "s"  # F30: a quote in front (OWASP)
    formulas_found = [
        c.coordinate
        for sheet in book
        for row in sheet.iter_rows()
        for c in row
        if isinstance(c.value, str) and "HYPERLINK" in c.value and c.data_type == "f"
    ]
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
@pytest.mark.parametrize(
    "changes",
    [
        # refresh at a 2-year life with declining-balance resale, hardware getting cheaper, energy and pay dearer
        {
            "finance.horizon_months": 36,
            "finance.useful_life_months": 24,
            "finance.residual": {"method": "declining_balance", "rate_per_year": 0.3},
            "finance.trends": {
                "electricity_price_change_per_year": 0.05,
                "salary_change_per_year": 0.03,
                "hardware_price_change_per_year": -0.2,
            },
        },
        # a finance lease still running at the horizon, and a yearly end-of-period NPV
        {
            "finance.horizon_months": 30,
            "finance.npv": {"period": "year", "timing": "end"},
            "finance.lease": {"kind": "finance", "rate_per_year": 0.06, "term_months": 36, "residual_share": 0.1},
        },
        # an all-upfront reserved commitment and a managed-service fee
        {
            "finance.horizon_months": 24,
            "finance.rent_commitment": {"gpus": 16, "payment": "all_upfront"},
            "options.own.staffing.managed_service_per_month": 1000.0,
        },
        # owning pays back against a partial-upfront commitment (R2 at steady demand, 15,000 GPU-hours)
        {
            "demand": None,
            "workload.gpu_hours_per_month": 15000,
            "finance.lead_time_months": 0,
            "finance.during_lead_time": None,
            "finance.rent_commitment": {"gpus": 8, "payment": "partial_upfront", "upfront_share": 0.4},
        },
        # price paths: rental by yearly changes, hardware by yearly factors (refresh), electricity by a dated table
        {
            "finance.horizon_months": 36,
            "finance.useful_life_months": 24,
            "finance.start_date": "2026-01-01",
            "finance.trends": {
                "rental_price_path": {"yearly_changes": [-0.2, 0.1]},
                "hardware_price_path": {"yearly_factors": [1.0, 0.8, 0.6]},
                "electricity_price_path": {"dates": ["2026-07-01", "2027-01-01"], "factors": [1.2, 0.9]},
            },
        },
    ],
    ids=["refresh-escalation", "lease-yearly-npv", "commitment", "pays-back", "price-paths"],
)
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
    s = patched(
        H200,
        {
            "finance.horizon_months": 36,
            "finance.useful_life_months": 24,
            "finance.tax": {"rate": 0.21, "depreciation": "macrs_5", "bonus_share": 0.2},
        },
    )
    result = finance.own_finance(s)
    figures, _ = summary_figures(write_workbook(s, tmp_path / "tax.xlsx"))
    for option, label in (("own", "Own cluster"), ("rent", "Cloud rental")):
        assert figures[f"TCO after tax, {label}"] == pytest.approx(result.after_tax_tco_by_option[option], rel=1e-9)
        assert figures[f"present value of costs after tax (month, begin), {label}"] == pytest.approx(
            result.after_tax_npv_by_option[option], rel=1e-9
        )


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
    s = patched(
        "llama70b-vs-api",
        {
            "finance": {
                "horizon_months": 14,
                "discount_rate_per_year": 0.1,
                "lead_time_months": 2,
                "during_lead_time": "api",
                "trends": {
                    "api_price_change_per_year": -0.3,
                    "rental_price_change_per_year": -0.1,
                    "demand_growth_per_year": 1.0,
                },
            }
        },
    )
    result = finance.own_finance(s)
    figures, _ = summary_figures(write_workbook(s, tmp_path / "r1.xlsx"))
    labels = {"own": "Own cluster", "rent": "Cloud rental", "api": "Hosted API"}
    for option, label in labels.items():
        assert figures[f"TCO, {label}"] == pytest.approx(result.tco_by_option[option], rel=1e-9)
        assert figures[f"present value of costs, {label}"] == pytest.approx(result.npv_by_option[option], rel=1e-9)
    assert figures["lowest present value of costs"] == compare(s).decision.winning.label


@pytest.mark.parametrize(
    "api",
    [
        {"service_tier": "batch"},
        {"searches_per_request": 1, "cached_input_share": 0.4, "cache_write_shares": {"5m": 0.1, "1h": 0.1}},
        {"offer": "deepseek-v4-1-flash"},  # price windows: the clock factor on each part
    ],
    ids=["batch tier", "searches and cache writes", "price windows"],
)
def test_the_workbook_bills_the_api_with_every_billing_word(tmp_path, api):
    # A hostile-input finding: the workbook priced the API at input, cache-read and output prices only, so a
    # batch tier (half price) read 42,583 USD against compare's 21,292.
    changes = {f"options.api.{k}": v for k, v in api.items()}
    changes["workload.input_tokens_per_request"] = 2000
    s = patched(
        "llama70b-vs-api",
        {"finance": {"horizon_months": 12, "discount_rate_per_year": 0.05}, **changes},
        drop=("uncertainty",),
    )
    if "searches_per_request" in api:
        from conftest import catalog_with

        catalog = catalog_with(
            api_offers=lambda row: (
                row.model_copy(update={"web_search_per_thousand": 10.0})
                if row.offer == "anthropic-claude-opus-4-5"
                else row
            )
        )
        s = patched(
            "llama70b-vs-api",
            {"finance": {"horizon_months": 12, "discount_rate_per_year": 0.05}, **changes},
            drop=("uncertainty",),
            catalog=catalog,
        )
    result = finance.own_finance(s)
    figures, _ = summary_figures(write_workbook(s, tmp_path / "api.xlsx"))
    assert figures["TCO, Hosted API"] == pytest.approx(result.tco_by_option["api"], rel=1e-9)
    assert figures["present value of costs, Hosted API"] == pytest.approx(result.npv_by_option["api"], rel=1e-9)


# Every reader sees the figures: each formula is written with its value, so pandas, openpyxl (data_only),
# file previews and LibreOffice's default (no recalculation on load) read costmodel's figures.

BUNDLED = [pytest.param(name, marks=pytest.mark.slow) if name == TENK else name for name in bundled_scenarios()]


def summary_values(path) -> dict:
    """Summary sheet: first column -> second, as pandas reads it (cached values only)."""
    frame = pd.read_excel(path, sheet_name="Summary", header=None)
    return {str(a): b for a, b in zip(frame[0], frame[1], strict=True) if isinstance(a, str)}


def expected_figures(comparison) -> dict:
    """The Summary figures costmodel computes for a scenario, by their title on the sheet."""
    c, f = comparison, comparison.finance
    # the verdict block: every candidate of costmodel's decision, on its one measure
    expected = {x.label: x.figure for x in c.decision.candidates.values()}
    if f is None:
        return expected
    for option, tco in f.tco_by_option.items():
        expected[f"TCO, {c.label(option)}"] = tco
        expected[f"present value of costs, {c.label(option)}"] = f.npv_by_option[option]
    if f.payback_against is not None:
        label = c.label(f.payback_against)
        if f.irr_per_year is not None:
            expected[f"IRR of owning vs {label} (yearly, from monthly IRR)"] = f.irr_per_year
        expected[f"ROI of owning vs {label} (net gain / investment)"] = f.roi
        if f.mirr_per_year is not None:
            expected[f"MIRR of owning vs {label} (yearly; finance and reinvestment at the monthly discount rate)"] = (
                f.mirr_per_year
            )
    return expected


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_scenario_exports_and_every_reader_sees_the_figures(name, tmp_path):
    path = tmp_path / f"{name}.xlsx"
    assert main(["export", name, "--xlsx", str(path)]) == 0
    comparison = compare(load_scenario(name))
    expected = expected_figures(comparison)
    seen = summary_values(path)
    for title, value in expected.items():
        assert seen[title] == pytest.approx(value, rel=1e-9), title
    # one answer: the verdict formula names costmodel's winner, ranked on costmodel's measure (a demand
    # profile's hour-by-hour cost, a training run's cost, the rented way to pay over the horizon), not
    # on the monthly cost at the volume
    lowest = comparison.decision.winning.label
    sheet = openpyxl.load_workbook(path, data_only=True)["Summary"]
    by_openpyxl = {row[0]: row[1] for row in sheet.iter_rows(values_only=True) if isinstance(row[0], str)}
    for title, value in expected.items():
        assert by_openpyxl[title] == pytest.approx(value, rel=1e-9), title
    row = next(
        c.row for c in sheet["A"] if c.value == "verdict (a formula of the figures above: it follows every edit)"
    )
    assert sheet.cell(row=row + 1, column=1).value.startswith(f"{lowest} has the lowest ")
    # openpyxl: every formula cell holds a value, and none is an error or a non-finite number
    formulas_book, values_book = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    counted = 0
    for sheet in formulas_book:
        for cells in sheet.iter_rows():
            for cell in cells:
                if cell.data_type == "f":
                    value = values_book[sheet.title][cell.coordinate].value
                    assert value is not None, (sheet.title, cell.coordinate, cell.value)
                    assert not (isinstance(value, str) and value.startswith("#")), (sheet.title, cell.coordinate)
                    assert not isinstance(value, float) or np.isfinite(value)
                    counted += 1
    assert counted > len(comparison.options)


def test_an_input_that_shapes_the_sheet_says_change_the_scenario(tmp_path):
    path = write_workbook(patched(H200, {"finance.horizon_months": 12}), tmp_path / "h.xlsx")
    sheet = openpyxl.load_workbook(path)["Inputs"]
    how = {row[4].value: (row[5].value, row[1]) for row in sheet.iter_rows(min_row=2) if row[4].value}
    assert how["fin_horizon"][0] == "change in the scenario, then export again"
    assert how["fin_horizon"][1].fill.fgColor.rgb.endswith("D9D9D9")  # grey: a distinct format
    assert how["own_electricity_price"][0] == "edit here: every formula follows"
    assert how["own_useful_life"][0] == "edit here: every formula follows"  # it drives the refresh columns
    assert how["fin_monthly_rate"][0] == "a formula of the inputs above"
    notes = {c.coordinate: c.comment.text for row in sheet.iter_rows() for c in row if c.comment}
    assert any("export again" in text for text in notes.values())
    assert sheet.freeze_panes == "B2"


# Each live named input changed in the workbook and in the scenario: the workbook, recomputed, gives
# costmodel's figures for the changed scenario. The base has a refresh (an 8-month life in 12 months),
# a declining-balance resale and price trends, so every input has something to move.
EDIT_BASE = {
    "finance.horizon_months": 12,
    "finance.useful_life_months": 8,
    "finance.residual": {"method": "declining_balance", "rate_per_year": 0.3},
    "finance.trends": {
        "electricity_price_change_per_year": 0.05,
        "salary_change_per_year": 0.03,
        "hardware_price_change_per_year": -0.2,
    },
}
OVERRIDE = "overrides"  # a catalog figure: changed through the scenario's overrides block
EDITS = {  # named input -> (scenario path, new value); R2's values in data/scenarios/h200-24gpu-cluster.yaml
    "fin_discount_rate": ("finance.discount_rate_per_year", 0.12),
    "fin_rent_change": ("finance.trends.rental_price_change_per_year", 0.04),
    "fin_api_change": ("finance.trends.api_price_change_per_year", -0.3),
    "fin_electricity_change": ("finance.trends.electricity_price_change_per_year", 0.1),
    "fin_salary_change": ("finance.trends.salary_change_per_year", 0.06),
    "fin_hardware_change": ("finance.trends.hardware_price_change_per_year", -0.1),
    "rent_price": ((OVERRIDE, "options.rent.price_per_gpu_hour"), 5.0),
    "rent_minimum_fte": ("options.rent.staffing.fte", 1.0),
    "rent_loaded_cost": ("options.rent.staffing.loaded_cost_per_fte_per_year", 300000),
    "rent_managed": ("options.rent.staffing.managed_service_per_month", 500.0),
    "own_server_price": ((OVERRIDE, "options.own.server_price"), 400000),
    "own_spare_share": ("options.own.spare_share", 0.1),
    "own_bom_share": ("options.own.bill_of_materials.0.share_of_server_price", 0.12),
    "own_bom_fixed": ("options.own.bill_of_materials.1.price_total", 200000),
    "own_bom_per_server": ("options.own.bill_of_materials.2.price_per_server", 20000),
    "own_support_share": ("options.own.hardware_support_share_per_year", 0.15),
    "own_kw_per_server": ("options.own.power.kw_per_server", 11.0),
    "own_idle_share": ("options.own.power.idle_power_share", 0.4),
    "own_pue": ("options.own.power.pue", 1.3),
    "own_electricity_price": ("options.own.power.electricity_price_per_kwh", 0.12),
    "own_colocation_price": ("options.own.colocation.price_per_kw_month", 150.0),
    "own_useful_life": ("finance.useful_life_months", 5),
    "own_residual_rate": ("finance.residual.rate_per_year", 0.4),
    "own_minimum_fte": ("options.own.staffing.minimum_fte", 1.0),
    "own_loaded_cost": ("options.own.staffing.loaded_cost_per_fte_per_year", 300000),
    "own_gpus_per_fte": ("options.own.staffing.gpus_per_fte", 100),
    # the rent option's cheapest way to pay (reserved GPUs, spot, the rest on demand), its lines live
    "rent_reserved_discount": ("options.rent.reserved.discount", 0.3),
    "rent_spot_discount": ("options.rent.spot.discount", 0.5),
    "rent_spot_interruptions": ("options.rent.spot.interruptions_per_gpu_hour", 0.05),
    "rent_spot_work_lost": ("options.rent.spot.work_lost_hours_per_interruption", 1.0),
}


def edited_scenario(name: str):
    """R2 with EDIT_BASE and the one input changed (a deep copy: patched puts the dicts it is given in place)."""
    path, value = EDITS[name]
    if isinstance(path, tuple):
        return patched(
            H200, copy.deepcopy({**EDIT_BASE, "overrides": {"values": {path[1]: value}, "source": "what-if"}})
        )
    return patched(H200, copy.deepcopy({**EDIT_BASE, path: value}))


def live_inputs(path) -> dict[str, int]:
    """Named inputs the sheet says to edit there -> their row on the Inputs sheet (1-based)."""
    sheet = openpyxl.load_workbook(path)["Inputs"]
    return {
        row[4].value: row[4].row
        for row in sheet.iter_rows(min_row=2)
        if row[5].value == "edit here: every formula follows"
    }


@pytest.fixture(scope="module")
def edit_base(tmp_path_factory):
    path = write_workbook(patched(H200, copy.deepcopy(EDIT_BASE)), tmp_path_factory.mktemp("edits") / "base.xlsx")
    live = live_inputs(path)
    assert set(live) == set(EDITS)  # every input the sheet offers to edit is checked here
    return path, live


def expected_after(name: str) -> dict:
    from costmodel.domain.decision import present_value_figures, reserved_gpus_of
    from costmodel.resolved import as_resolved

    edited = edited_scenario(name)
    result = finance.own_finance(edited)
    expected = {
        f"{what}, {label}": figures[option]
        for option, label in (("own", "Own cluster"), ("rent", "Cloud rental"))
        for what, figures in (("TCO", result.tco_by_option), ("present value of costs", result.npv_by_option))
    }
    # the rent option's cheapest terms at the base (the GPUs reserved are fixed in the sheet), priced by
    # costmodel at the edited inputs
    base = compare(patched(H200, copy.deepcopy(EDIT_BASE))).decision.candidates["rent.reserved"]
    terms = reserved_gpus_of(as_resolved(patched(H200, copy.deepcopy(EDIT_BASE))))
    expected[f"present value of costs, {base.label}"] = present_value_figures(as_resolved(edited), None, terms)[
        "rent.reserved"
    ]
    return expected


@pytest.mark.slow
def test_each_named_input_edited_in_the_workbook_gives_costmodels_figures_formulas(edit_base):
    path, live = edit_base
    model = formulas.ExcelModel().loads(str(path)).finish()
    moved, wrong = 0, []
    base = finance.own_finance(patched(H200, copy.deepcopy(EDIT_BASE))).tco
    for name, row in live.items():
        solution = model.calculate(inputs={f"'[{path.name}]INPUTS'!B{row}": EDITS[name][1]})
        cells = {
            k.split("]")[-1].replace("'", "").upper(): np.asarray(getattr(v, "value", v)).ravel()[0]
            for k, v in solution.items()
        }
        figures = {
            str(v): cells.get("SUMMARY!B" + k.split("!A")[1]) for k, v in cells.items() if k.startswith("SUMMARY!A")
        }
        wrong += [
            (name, title, figures[title], value)
            for title, value in expected_after(name).items()
            if figures[title] != pytest.approx(value, rel=1e-9)
        ]
        moved += figures["TCO, Own cluster"] != pytest.approx(base)
    assert wrong == []
    assert moved >= 15


def edit_copy(path, name: str, row: int, folder):
    """A copy of the workbook with one named input changed (openpyxl keeps the formulas, drops the values)."""
    book = openpyxl.load_workbook(path)
    book["Inputs"].cell(row=row, column=2).value = EDITS[name][1]
    out = folder / f"edit_{name}.xlsx"
    book.save(out)
    return out


LIBREOFFICE_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""
"""A LibreOffice profile that recalculates every .xlsx file on load (0 = always; its default is never)."""


def libreoffice_recalculated(files, folder):
    """The files as LibreOffice computes them: one headless soffice converts them all to .xlsx, recalculating."""
    import shutil
    import subprocess

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed: apt-get install libreoffice-calc-nogui")
    profile = folder / "profile"
    (profile / "user").mkdir(parents=True)
    (profile / "user" / "registrymodifications.xcu").write_text(LIBREOFFICE_PROFILE)
    out = folder / "recalculated"
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            *map(str, files),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return {f.name: out / f.name for f in files}


@pytest.mark.slow
def test_libreoffice_recomputes_the_figures_and_each_named_input_edit(edit_base, tmp_path):
    path, live = edit_base
    exported = {}
    for name in (H200, TENK, "llama70b-vs-api"):
        written = tmp_path / f"{name}.xlsx"
        assert main(["export", name, "--xlsx", str(written)]) == 0
        # saved again by openpyxl, which keeps the formulas and drops their values: LibreOffice must compute
        # every figure itself (the IRR from its guess), not show the values written with the formulas
        exported[name] = tmp_path / f"bare_{name}.xlsx"
        openpyxl.load_workbook(written).save(exported[name])
    edits = {name: edit_copy(path, name, row, tmp_path) for name, row in live.items()}
    done = libreoffice_recalculated([*exported.values(), *edits.values()], tmp_path)
    for name, file in exported.items():
        comparison = compare(load_scenario(name))
        seen = summary_values(done[file.name])
        for title, value in expected_figures(comparison).items():  # IRR too: its guess makes it converge
            assert seen[title] == pytest.approx(value, rel=1e-7), (name, title)
        # one answer, as LibreOffice computes it: the "lowest" row and the verdict name costmodel's winner
        sheet = openpyxl.load_workbook(done[file.name], data_only=True)["Summary"]
        found = named_cells({f"SUMMARY!{c.coordinate}": c.value for cells in sheet.iter_rows() for c in cells})
        winner = comparison.decision.winning.label
        assert found.get("lowest", [winner]) == [winner] and str(found["verdict"][0]).startswith(f"{winner} has ")
    wrong = []
    for name, file in edits.items():
        seen = summary_values(done[file.name])
        wrong += [
            (name, title, seen[title], value)
            for title, value in expected_after(name).items()
            if seen[title] != pytest.approx(value, rel=1e-7)
        ]
    assert wrong == []


@pytest.mark.parametrize(
    "changes, fixed",
    [
        (
            {"finance.tax": {"rate": 0.21, "depreciation": "macrs_5"}},  # tax on depreciation: values
            {"own_server_price", "own_bom_share", "own_useful_life", "fin_hardware_change"},
        ),
        ({"finance.rent_commitment": {"gpus": 8, "payment": "all_upfront"}}, {"rent_price"}),
        (
            {"finance.lease": {"kind": "finance", "rate_per_year": 0.06, "term_months": 36, "residual_share": 0.1}},
            {"own_server_price", "own_useful_life"},
        ),
    ],
    ids=["tax", "commitment", "lease"],
)
def test_inputs_behind_columns_of_values_say_change_the_scenario(tmp_path, changes, fixed):
    s = patched(H200, {"finance.horizon_months": 12, **changes})
    path = write_workbook(s, tmp_path / "v.xlsx")
    live = live_inputs(path)
    assert fixed.isdisjoint(live)
    assert "own_electricity_price" in live and "fin_discount_rate" in live
    plain = live_inputs(write_workbook(patched(H200, {"finance.horizon_months": 12}), tmp_path / "p.xlsx"))
    assert fixed <= set(plain)  # live without the block of values


def test_an_input_is_credited_to_the_block_that_states_it_and_a_default_to_no_one(tmp_path):
    # a newcomer's walk-through scenario: its own option's `source: "ASSUMPTION: every figure of this block"` left
    # its power, colocation and staffing sub-blocks "not stated in the scenario"; and R1 credited defaults it never
    # states (a 0 managed-service fee, 0 hot spares) to the brief or to Amazon's 10-K
    from conftest import patched

    from costmodel.presentation.tables import inputs_table
    from costmodel.schema.inputs import DEFAULT_SOURCE

    stated = "ASSUMPTION: every figure of this block"
    s = patched("llama70b-vs-api", {"options.own.source": stated, "options.own.power.source": None})
    table = inputs_table(s)
    own = table[table["block"] == "Own cluster"].set_index("input")["source"]
    assert own["PUE"] == own["electricity price"] == stated  # the power block states no source: the own block's
    assert own["colocation price"].startswith("CBRE")  # a sub-block with a source of its own keeps it
    assert own["hot spares"] == own["managed-service fee"] == DEFAULT_SOURCE  # not in the file
    assert own["depreciation period"] == stated  # stated in the own block itself
    # the workbook's named inputs (a scenario with a finance block: R2) read the same
    from openpyxl import load_workbook

    from costmodel.presentation.workbook import write_workbook

    r2 = patched("h200-24gpu-cluster", {"options.own.source": stated, "options.own.power.source": None})
    sheet = load_workbook(write_workbook(r2, tmp_path / "w.xlsx"))["Inputs"]
    named = {row[4].value: row[3].value for row in sheet.iter_rows() if row[4].value}
    assert named["own_pue"] == named["own_idle_share"] == named["own_electricity_price"] == stated


ONE_ANSWER = ["llama70b-vs-api", H200, pytest.param(TENK, marks=pytest.mark.slow), "llama31-405b-training"]
"""R1 (steady monthly view), R2 (a rented way to pay wins the present value), the 10k cluster (own wins) and a
training run (the cost of the run)."""


def named_cells(cells) -> dict[str, list[object]]:
    """Summary sheet: each "lowest …" title and the verdict title -> the recomputed cells beside or below it."""
    found: dict[str, list[object]] = {}
    for key, title in cells.items():
        if not key.startswith("SUMMARY!A") or ":" in key or not isinstance(title, str):
            continue
        row = int(key.split("!A")[1])
        if title.startswith("lowest "):
            found.setdefault("lowest", []).append(cells[f"SUMMARY!B{row}"])
        elif title.startswith("verdict (a formula"):
            found.setdefault("verdict", []).append(cells[f"SUMMARY!A{row + 1}"])
    return found


@pytest.mark.parametrize("name", ONE_ANSWER)
def test_the_recomputed_lowest_and_verdict_cells_name_compare_jsons_winner(name, tmp_path, capsys):
    # one answer: each cell of the workbook that names a lowest option picks among the decision's
    # candidates (each way to pay, the plan) on its measure, as `formulas` recomputes it
    path = tmp_path / f"{name}.xlsx"
    assert main(["export", name, "--xlsx", str(path)]) == 0
    capsys.readouterr()
    assert main(["compare", name, "--json"]) == 0
    decision = json.loads(capsys.readouterr().out)["decision"]
    winner = next(c["label"] for c in decision["candidates"] if c["id"] == decision["winner"])
    found = named_cells(recompute(path))
    assert len(found["verdict"]) == 1
    assert str(found["verdict"][0]).startswith(f"{winner} has the lowest ")
    for lowest in found.get("lowest", []):
        assert lowest == winner
    # with a finance block the Summary has its "lowest" row; R2's winner is a rented way to pay, not an
    # option's cash flows as stated (which name "Cloud rental" alone)
    assert len(found.get("lowest", [])) == (name in (H200, TENK))
    if name == H200:
        assert decision["winner"] == "rent.reserved"
        # its figure is computed by the workbook's formulas (cash lines of the reserved GPUs, spot and the
        # rest on demand), not written as a value
        figures, _ = summary_figures(path)
        winning = next(c for c in decision["candidates"] if c["id"] == decision["winner"])
        assert figures[f"present value of costs, {winner}"] == pytest.approx(winning["figure"]["value"], abs=0.005)
        book = openpyxl.load_workbook(path)["Summary"]
        block = [row for row in book.iter_rows() if row[0].value in {c["label"] for c in decision["candidates"]}]
        assert len(block) == len(decision["candidates"]) and all(row[1].data_type == "f" for row in block)


def test_the_lowest_cell_follows_the_decision_measure_of_a_training_run_with_a_finance_block(tmp_path):
    # a training run is decided on the cost of the run, even with a finance block: the Summary's "lowest"
    # row says that measure and names that winner, not the option of lowest present value
    s = patched("deepseek-v3-training", {"finance": {"horizon_months": 12, "discount_rate_per_year": 0.08}})
    comparison = compare(s)
    assert comparison.decision.measure == "run_cost"
    found = named_cells(recompute(write_workbook(s, tmp_path / "t.xlsx", comparison)))
    assert found["lowest"] == [comparison.decision.winning.label]
    assert str(found["verdict"][0]).startswith(f"{comparison.decision.winning.label} has the lowest cost of the run")


def test_the_lowest_cell_follows_an_edit_to_the_winner_costmodel_gives_the_edited_scenario(tmp_path):
    # R2 with a 60,000 USD server: owning wins. Edited on the Inputs sheet, the "lowest" row and the verdict
    # (formulas of the block of candidates) name the winner of costmodel's decision for the scenario so edited
    price = 60_000
    base = patched(H200, {"finance.horizon_months": 24})
    path = write_workbook(base, tmp_path / "r2.xlsx")
    row = live_inputs(path)["own_server_price"]
    edited = patched(
        H200,
        {
            "finance.horizon_months": 24,
            "overrides": {"values": {"options.own.server_price": price}, "source": "what-if"},
        },
    )
    before, after = compare(base).decision, compare(edited).decision
    assert before.winner != "own" and after.winner == "own"  # the edit changes the answer
    found = named_cells(recompute(path, {f"'[{path.name}]INPUTS'!B{row}": price}))
    assert found["lowest"] == [after.winning.label]
    assert str(found["verdict"][0]).startswith(f"{after.winning.label} has the lowest present value of costs: ")


@pytest.mark.parametrize(
    "base, changes",
    [
        (H200, {"finance.horizon_months": 30, "finance.trends.rental_price_change_per_year": -0.15}),
        (H200, {"finance.horizon_months": 26, "options.rent.billing": "always_on", "options.rent.gpu_count": 24}),
        ("h200-data-and-support", {"finance.horizon_months": 30, "finance.rent_commitment": {"gpus": 8}}),
    ],
    ids=["reserved and spot, falling prices", "reserved, always on", "on demand beside a commitment"],
)
def test_every_way_to_pay_the_rent_option_is_a_formula_equal_to_the_decisions_figure(tmp_path, base, changes):
    # the rent option's other way to pay (its cheapest terms, or all on demand beside a commitment) has cash
    # lines of its own: the verdict's block refers to its present value, which equals the decision's figure
    s = patched(base, changes)
    decision = compare(s).decision
    path = write_workbook(s, tmp_path / "w.xlsx")
    figures, _ = summary_figures(path)
    ways = [c for c in decision.candidates.values() if c.id.startswith("rent.")]
    assert ways
    for c in ways:
        assert figures[f"present value of costs, {c.label}"] == pytest.approx(c.figure, rel=1e-9)
    sheet = openpyxl.load_workbook(path)["Summary"]
    block = [row for row in sheet.iter_rows() if row[0].value in {c.label for c in decision.candidates.values()}]
    assert len(block) == len(decision.candidates) and all(row[1].data_type == "f" for row in block)

"""The formula evaluator that gives each workbook formula its value: Excel's rules, checked against
closed forms and hand-computed figures (Microsoft's function pages are cited in the module)."""

import math

import numpy_financial as npf
import pytest

from costmodel.presentation.cell_values import Cells, ExcelError, FormulaError


def value(formula, **named):
    """One formula on the sheet S, with named single cells on the sheet N."""
    cells = Cells()
    for k, (name, v) in enumerate(named.items()):
        cells.name(name, "N", k, 0)
        cells.value("N", k, 0, v)
    cells.formula("S", 0, 0, formula)
    return cells.compute()[("S", 0, 0)]


class TestOperators:
    def test_a_leading_minus_binds_tighter_than_the_power(self):
        assert value("=-2^2") == 4.0  # Excel: (-2)^2, unlike Python's -(2**2)
        assert value("=0-2^2") == -4.0

    def test_precedence_of_products_sums_text_and_comparisons(self):
        assert value("=1+2*3^2") == 19.0
        assert value('=1+2&"x"') == "3x"
        assert value("=1+1=2") is True

    def test_division_by_zero_is_an_error_that_iferror_catches(self):
        assert value("=1/0") == ExcelError("#DIV/0!")
        assert value('=IFERROR(1/0,"none")') == "none"
        assert value("=IF(1/0>1,1,2)") == ExcelError("#DIV/0!")


class TestFunctions:
    def test_npv_discounts_the_first_flow_once(self):
        # NPV(10 %, 100, 100) = 100/1.1 + 100/1.21 = 173.5537...
        cells = Cells()
        for row, v in enumerate((100.0, 100.0)):
            cells.value("S", row, 0, v)
        cells.formula("S", 0, 1, "=NPV(0.1,A1:A2)")
        assert cells.compute()[("S", 0, 1)] == pytest.approx(100 / 1.1 + 100 / 1.21, rel=1e-12)

    def test_irr_from_a_guess_finds_the_root_and_mirr_is_numpy_financials(self):
        cells = Cells()
        for row, v in enumerate((-100.0, 60.0, 60.0)):
            cells.value("S", row, 0, v)
        cells.formula("S", 0, 1, "=IRR(A1:A3,0.1)")
        cells.formula("S", 1, 1, "=MIRR(A1:A3,0.1,0.1)")
        got = cells.compute()
        # closed form: 60x^2 + 60x - 100 = 0 with x = 1/(1+r): x = (-60 + sqrt(3600 + 24000)) / 120
        x = (-60 + math.sqrt(3600 + 24000)) / 120
        assert got[("S", 0, 1)] == pytest.approx(1 / x - 1, rel=1e-12)
        assert got[("S", 1, 1)] == pytest.approx(npf.mirr([-100.0, 60.0, 60.0], 0.1, 0.1), rel=1e-12)

    def test_irr_of_flows_of_one_sign_is_num(self):
        assert value("=IRR(1,0.1)") == ExcelError("#NUM!")

    def test_pmt_and_pv_of_a_loan(self):
        # 1,000 over 12 months at 1 % a month: payment = 1000 * 0.01 / (1 - 1.01^-12) = 88.8488
        payment = 1000 * 0.01 / (1 - 1.01**-12)
        assert value("=-PMT(0.01,12,1000)") == pytest.approx(payment, rel=1e-12)
        assert value(f"=PV(0.01,12,-{payment!r})") == pytest.approx(1000.0, rel=1e-12)
        assert value("=PMT(0,4,1000)") == -250.0

    def test_index_match_small_and_text(self):
        cells = Cells()
        for row, (label, v) in enumerate((("a", 30.0), ("b", 10.0), ("c", 20.0))):
            cells.value("S", row, 0, label)
            cells.value("S", row, 1, v)
        cells.formula("S", 0, 2, '=INDEX(A1:A3,MATCH(SMALL(B1:B3,2),B1:B3,0))&" "&TEXT(1234.5,"#,##0")')
        cells.formula("S", 1, 2, "=INDEX(B1:B3,MAX(1,0))+COUNT(A1:B3)")
        got = cells.compute()
        assert got[("S", 0, 2)] == "c 1,235"  # half away from zero, as Excel's TEXT
        assert got[("S", 1, 2)] == 33.0  # 30 + three numbers (text is not counted)

    def test_roundup_goes_away_from_zero(self):
        assert value("=ROUNDUP(0.3,0)") == 1.0
        assert value("=ROUNDUP(-0.3,0)") == -1.0
        assert value("=MAX(0,ROUNDUP(3*0-1E-9,0))") == 0.0

    def test_sum_skips_text_in_ranges(self):
        cells = Cells()
        cells.value("S", 0, 0, "text")
        cells.value("S", 1, 0, 2.0)
        cells.formula("S", 2, 0, "=SUM(A1:A2)+SUMPRODUCT(A2:A2,A2:A2)")
        assert cells.compute()[("S", 2, 0)] == 6.0


class TestReferences:
    def test_names_sheets_and_a_long_chain_without_recursion(self):
        cells = Cells()
        cells.name("rate", "Inputs", 0, 1)
        cells.value("Inputs", 0, 1, 0.5)
        cells.formula("Cash flows", 0, 0, "=rate")
        for row in range(1, 5000):  # each month's formula on the one above
            cells.formula("Cash flows", row, 0, f"=A{row}+rate")
        cells.formula("Summary", 0, 0, "='Cash flows'!$A$5000*2")
        assert cells.compute()[("Summary", 0, 0)] == 5000.0

    def test_a_cycle_an_unknown_function_and_an_unknown_name_are_refused(self):
        cells = Cells()
        cells.formula("S", 0, 0, "=B1")
        cells.formula("S", 0, 1, "=A1+1")
        with pytest.raises(FormulaError, match="refers to itself"):
            cells.compute()
        with pytest.raises(FormulaError, match="VLOOKUP"):
            value("=VLOOKUP(1,A1:A2,1)")
        with pytest.raises(FormulaError, match="not defined"):
            value("=missing_name*2")

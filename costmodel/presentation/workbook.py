"""An Excel workbook with live formulas, and CSV/Parquet tables of the same cash flows.

With a finance block the workbook has three sheets:

* **Inputs**: every figure the formulas use as a *named cell* (``own_server_price``,
  ``fin_discount_rate``, ...) with its unit, source and how to change it, then every input of the
  scenario as given (block, input, value, unit, source). An input the formulas follow says "edit
  here"; one the sheet is laid out for (the horizon: the number of month rows; the lead time and
  GPUs per server: the capacity plan's columns of values; a rate replaced by a price path) is grey
  and italic, with a note, and says "change in the scenario, then export again";
* **Cash flows**: one row per month; the drivers the capacity plan fixes (volume, GPU-hours
  used, servers held, rented GPUs, tokens; the GPU-hours the rent option's reserved GPUs and spot
  serve in its cheapest way to pay) are values, every cost line is an Excel formula
  on them and on the named inputs (electricity = drawn kW × PUE × 730 h × price; staffing =
  FTE × loaded cost / 12; purchases, refresh one useful life later by ``INDEX``, resale, loan
  payments by ``PMT``/``PV``, ...); to the right, the totals by year as ``SUM`` formulas; the unit
  of every column in its header;
* **Summary**: TCO, present value of costs (``NPV`` in the scenario's convention), ``IRR`` (with
  costmodel's monthly IRR as its guess, so that every spreadsheet converges), ``MIRR``, ROI,
  fractional and discounted payback and the candidate of the decision with the lowest figure, all formulas;
  the verdict as a formula over those figures, and costmodel's verdict sentence as exported.

Without a finance block it shows the steady monthly view: Inputs (the scenario's inputs as given),
Monthly costs (each option's monthly cost by part, values; the totals ``SUM`` formulas) and Summary
(the lowest monthly cost and the verdict as formulas, costmodel's sentence as exported).

Every formula is written with its value (:mod:`costmodel.presentation.cell_values` computes it as
Excel would), so a reader that does not recalculate (pandas, openpyxl, previews, LibreOffice's
default) shows the figures, not zeros. Every piece of text is written as a text cell, through
:func:`costmodel.files.spreadsheet_text` (a title starting with ``=`` gets a ``'`` in front), and no
formula holds any text from the scenario: the formulas naming an option refer to cells that hold
the labels.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..domain.capacity import api_option, own_option, rent_gpus, rent_option, tokens_per_month
from ..domain.compare import compare
from ..domain.finance import cash_flows, price_factor, residual_share, useful_life
from ..domain.tax import after_tax
from ..files import made_folder, output_file, output_folder, spreadsheet_text, write_all_atomically, write_csv
from ..resolved import Resolved, as_resolved
from ..results import DATA_AND_SUPPORT, MEASURE_TITLES, CashFlows, CashLine, Comparison, Component, Measure
from ..schema import Scenario
from ..units import HOURS_PER_MONTH, MONTHS_PER_YEAR
from .cell_values import Cells, ExcelError
from .kinds import own_block, rent_block
from .tables import cash_flow_table, inputs_table
from .text import decision_sentence

if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Literal

    import pandas as pd
    from xlsxwriter.format import Format

NEVER = 1e99
"""Stand-in for "no payback in this month" in the payback helper columns (the minimum is taken)."""


def _text_sheet_class(cells: Cells):
    """An XlsxWriter worksheet whose every text cell goes through :func:`costmodel.files.spreadsheet_text`,
    and which records its cells in ``cells`` so that :func:`_write_values` can give each formula its value."""
    from xlsxwriter.worksheet import Worksheet, convert_cell_args

    class TextSheet(Worksheet):
        def __init__(self):
            super().__init__()
            self.formula_formats: dict[tuple[int, int], Format | None] = {}

        def sheet_name(self) -> str:
            """The sheet's name, which the workbook sets when it adds the sheet (before any cell is written)."""
            assert self.name is not None, "a sheet is written only once the workbook has added and named it"
            return self.name

        @convert_cell_args
        def write_string(
            self, row: int, col: int, string: str, cell_format: Format | None = None
        ) -> Literal[0, -1, -2]:
            text = spreadsheet_text(string)
            cells.value(self.sheet_name(), row, col, text)
            return super().write_string(row, col, text, cell_format)

        @convert_cell_args
        def write_number(
            self, row: int, col: int, number: float | Fraction, cell_format: Format | None = None
        ) -> Literal[0, -1]:
            cells.value(self.sheet_name(), row, col, float(number))
            return super().write_number(row, col, number, cell_format)

        @convert_cell_args
        def write_formula(
            self, row: int, col: int, formula: str, cell_format: Format | None = None, value: int = 0
        ) -> Literal[0, -1, -2]:
            cells.formula(self.sheet_name(), row, col, formula)
            self.formula_formats[(row, col)] = cell_format
            return super().write_formula(row, col, formula, cell_format, value)

        def write_value(self, row: int, col: int, value: object) -> Literal[0, -1, -2]:
            """The formula written at (row, col) again, with its value."""
            formula = cells.formulas[(self.sheet_name(), row, col)]
            # xlsxwriter's ``value`` is the formula's result, a number, text or bool as its documentation says;
            # the parameter is unannotated, so its default 0 types it int
            return super().write_formula(
                row,
                col,
                formula,
                self.formula_formats[(row, col)],
                value,  # pyright: ignore[reportArgumentType]
            )

    return TextSheet


def _write_values(book, cells: Cells) -> None:
    """Write every formula again with its value, computed as Excel would (:mod:`.cell_values`).

    Raises
    ------
    ValueError
        A formula gives an Excel error or a number that is not finite: a figure no reader should see.
    """
    sheets = {sheet.name: sheet for sheet in book.worksheets()}
    for (name, row, col), value in cells.compute().items():
        if isinstance(value, ExcelError) or (isinstance(value, float) and not np.isfinite(value)):
            raise ValueError(
                f"the workbook's formula {cells.formulas[(name, row, col)]!r} in {name!r} row {row + 1} "
                f"column {col + 1} gives {value}; every figure must be a finite number or a text"
            )
        sheets[name].write_value(row, col, value)


FIXED_NOTE = (
    "Change this in the scenario, then export again: the sheet's rows, columns or value columns are "
    "laid out for this figure, and editing it here does not move them."
)
"""The note on an input that fixes the structure of the sheet (the horizon, a curve read from points, ...)."""


class _Inputs:
    """The Inputs sheet: named cells written one a row.

    An input the formulas follow is written plain and said "edit here"; one that fixes the structure of
    the sheet (the number of month rows, a column of values) is written on a grey ground in italics with
    a note, and said "change in the scenario, then export again"; a derived one is a formula.
    """

    def __init__(self, book, sheet, cells: Cells):
        self.book, self.sheet, self.cells, self.row = book, sheet, cells, 1
        self.number = book.add_format({"num_format": "#,##0.########"})
        self.fixed = book.add_format({"num_format": "#,##0.########", "italic": True, "bg_color": "#D9D9D9"})
        self.derived = book.add_format({"num_format": "#,##0.########", "font_color": "#595959"})
        for col, head in enumerate(("input", "value", "unit", "source", "name", "to change it")):
            sheet.write_string(0, col, head, book.add_format({"bold": True}))
        sheet.set_column(0, 0, 46)
        sheet.set_column(1, 1, 16)
        sheet.set_column(2, 2, 18)
        sheet.set_column(3, 3, 70)
        sheet.set_column(4, 4, 30)
        sheet.set_column(5, 5, 44)
        sheet.freeze_panes(1, 1)

    def add(self, name: str, title: str, value, unit: str, source: str, fixed: bool = False) -> str:
        """Write one named input (a number, or a formula string starting with ``=``); returns its name.

        ``fixed``: the figure fixes the structure of the sheet, so it is marked "change in the
        scenario, then export again" (a grey italic cell with a note) rather than "edit here".
        """
        row = self.row
        self.sheet.write_string(row, 0, title)
        if isinstance(value, str):
            self.sheet.write_formula(row, 1, value, self.fixed if fixed else self.derived)
            how = "a formula of the inputs above"
        else:
            self.sheet.write_number(row, 1, float(value), self.fixed if fixed else self.number)
            how = "edit here: every formula follows"
        if fixed:
            how = "change in the scenario, then export again"
            self.sheet.write_comment(row, 1, FIXED_NOTE, {"x_scale": 2, "y_scale": 1.5})
        self.sheet.write_string(row, 2, unit)
        self.sheet.write_string(row, 3, source or "not stated in the scenario")
        self.sheet.write_string(row, 4, name)
        self.sheet.write_string(row, 5, how)
        self.book.define_name(name, f"=Inputs!$B${row + 1}")
        self.cells.name(name, "Inputs", row, 1)
        self.row += 1
        return name

    def table(self, frame) -> None:
        """The scenario's inputs as given, below the named ones, all as text."""
        self.row += 1
        self.sheet.write_string(self.row, 0, "Scenario inputs as given", self.book.add_format({"bold": True}))
        self.row += 1
        for col, head in enumerate(frame.columns):
            self.sheet.write_string(self.row, col, str(head))
        for values in frame.itertuples(index=False):
            self.row += 1
            for col, value in enumerate(values):
                self.sheet.write_string(self.row, col, str(value))


def _source(*blocks) -> str:
    return "; ".join(s for s in (getattr(b, "source", "") for b in blocks if b is not None) if s)


def _source_within(block, parent) -> str:
    """A sub-block's source, or where it states none the source of the block it sits in (which speaks for all of
    the block, as the inputs table reads it: :func:`costmodel.schema.inputs.input_fields`)."""
    return _source(block) or _source(parent)


class _Months:
    """The monthly columns of the Cash flows sheet: each a header and a value array or a formula per row."""

    def __init__(self, horizon: int):
        self.horizon = horizon
        self.columns: list[tuple[str, str, object]] = []  # key, header, values or formula(row, month)
        self.letters: dict[str, str] = {}

    def add(self, key: str, header: str, content) -> str:
        from xlsxwriter.utility import xl_col_to_name

        self.letters[key] = xl_col_to_name(len(self.columns))
        self.columns.append((key, header, content))
        return self.letters[key]

    def cell(self, key: str, row: int) -> str:
        """A1 reference of a column at a sheet row (1-based)."""
        return f"{self.letters[key]}{row}"

    def span(self, key: str, first: int = 0, last: int | None = None, sheet: bool = False) -> str:
        """A1 range of a column over months ``first`` … ``last``."""
        last = self.horizon - 1 if last is None else last
        prefix = "'Cash flows'!" if sheet else ""
        col = self.letters[key]
        return f"{prefix}${col}${first + 2}:${col}${last + 2}"


def _plain_api_bill(r, api) -> bool:
    """Whether the API bill is input, cache reads and output at the listed prices (the workbook then writes it
    as formulas of those prices); any other billing word makes it a bill of costmodel's parts."""
    share, c = r.workload.output_share, api.cached_input_share
    parts = api.price_parts
    plain = {
        "input": (1 - share) * (1 - c) * api.input_price_per_million,
        "cache_read": (1 - share) * c * api.cached_input_price_per_million,
        "cache_write": 0.0,
        "output": share * api.output_price_per_million,
    }
    return (
        api.hour_price_factors is None
        and set(parts) <= set(plain)
        and all(np.allclose(np.asarray(parts[k], dtype=float), plain[k], rtol=1e-12, atol=0.0) for k in parts)
    )


def _factor(r: Resolved, m: _Months, price: str, change: str, month):
    """The expression of a price's factor in a row: ``(1+change)^(month/12)`` for a constant rate, or the cell
    of a column of the path's factors (values, added once) for a price with a path
    (``finance.trends.<price>_price_path``)."""
    if r.finance.trends.path(price) is None:
        return lambda row: f"(1+{change})^({month(row)}/12)"
    key = f"{price}_price_factor"
    if key not in m.letters:
        m.add(
            key,
            f"{price} price factor (finance.trends.{price}_price_path, values)",
            np.broadcast_to(price_factor(r, price, np.arange(m.horizon, dtype=float)), (m.horizon,)),
        )
    return lambda row: m.cell(key, row)


def _held_servers(r: Resolved, flows: CashFlows) -> np.ndarray:
    own = own_option(r)
    return np.where(flows.months < flows.online_month, float(own.server_count), flows.servers)


def write_workbook(scenario: Scenario | Resolved, path: str | Path, comparison: Comparison | None = None) -> Path:
    """Write the scenario's cash flows (or, without a finance block, its steady monthly costs) as an Excel
    workbook with live formulas, each written with its value.

    The workbook is written beside ``path`` and renamed there when whole: a failure or an
    interrupt leaves an earlier file at ``path`` as it was. A missing folder is made.

    Parameters
    ----------
    scenario
        A scenario; with a ``finance`` block the workbook has its cash flows month by month.
    path
        The ``.xlsx`` file to write.
    comparison
        The scenario's comparison, if already made (for the verdict).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        A formula gives an Excel error or a number that is not finite (no reader should see it).
    OutputPathError
        ``path`` does not end in ``.xlsx``, is not a regular file (a folder, a FIFO, a device),
        or its folder cannot be one.
    """
    return export_files(scenario, xlsx=path, comparison=comparison)[0]


def _workbook_writer(r: Resolved, comparison: Comparison | None):
    """A function that writes the workbook of ``r`` to the path it is given."""
    import xlsxwriter

    comparison = comparison or compare(r)
    flows = cash_flows(r) if r.finance is not None else None

    def write(path: Path) -> None:
        book = xlsxwriter.Workbook(
            str(path),
            {
                "strings_to_formulas": False,
                "strings_to_urls": False,
                "strings_to_numbers": False,
                "nan_inf_to_errors": False,
            },
        )
        try:
            cells = Cells()
            if flows is None:
                _write_steady(book, cells, r, comparison)
            else:
                _write(book, cells, r, flows, comparison)
            _write_values(book, cells)
        finally:
            book.close()  # an unclosed workbook would write itself when collected

    return write


def _finance_inputs(r: Resolved, add) -> None:
    """The finance block's named inputs: discount rate, horizon, lead time, hours a month, price trends.

    A price with a path (``finance.trends.<price>_price_path``) has a column of factors, not its rate, so
    the rate is fixed; so is the hardware's with columns of values priced by it (tax, lease, sunk hardware).
    """
    fin = r.finance
    add("fin_discount_rate", "discount rate (effective yearly)", fin.discount_rate_per_year, "1/year", fin.source)
    add(
        "fin_monthly_rate",
        "discount rate a month, (1 + r)^(1/12) - 1",
        "=(1+fin_discount_rate)^(1/12)-1",
        "1/month",
        "derived",
    )
    add("fin_horizon", "horizon (the number of month rows)", fin.horizon_months, "months", fin.source, fixed=True)
    # the capacity plan (servers held, a column of values) is laid out for the lead time
    add("fin_lead_time", "lead time, order to online", fin.lead_time_months, "months", fin.source, fixed=True)
    add("hours_per_month", "hours a month (8,760 / 12)", HOURS_PER_MONTH, "h", "convention", fixed=True)
    trends = fin.trends
    add(
        "fin_rent_change",
        "rental price change a year",
        trends.rental_price_change_per_year,
        "1/year",
        trends.source,
        fixed=trends.path("rental") is not None,
    )
    add(
        "fin_api_change",
        "API price change a year",
        trends.api_price_change_per_year,
        "1/year",
        trends.source,
        fixed=trends.path("api") is not None,
    )
    add(
        "fin_electricity_change",
        "electricity price change a year",
        trends.electricity_price_change_per_year,
        "1/year",
        trends.source,
        fixed=trends.path("electricity") is not None,
    )
    add("fin_salary_change", "salary change a year", trends.salary_change_per_year, "1/year", trends.source)
    add(
        "fin_hardware_change",
        "hardware price change a year",
        trends.hardware_price_change_per_year,
        "1/year",
        trends.source,
        fixed=trends.path("hardware") is not None
        or fin.tax is not None
        or fin.lease is not None
        or fin.view == "marginal",
    )


def _rent_columns(r: Resolved, flows: CashFlows, m: _Months, add) -> list[str]:
    """The rent option's inputs and columns: GPUs rented, rental and staffing as formulas, and with a reserved
    commitment its payments and the on-demand remainder as values; returns the keys of its cash lines."""
    rent, fin, cur = rent_option(r), r.finance, r.currency

    def month(row):
        return _month_cell(m, row)

    # with a commitment the reserved payments and the on-demand remainder are values of this price
    add(
        "rent_price",
        "rental price per GPU-hour (on-demand)",
        rent.price_per_gpu_hour,
        f"{cur}/GPU-h",
        rent.offer.citation(),
        fixed=fin.rent_commitment is not None,
    )
    m.add(
        "rent_gpus", "GPUs rented", np.broadcast_to(np.asarray(rent_gpus(r, flows.volume), float), flows.months.shape)
    )
    factor = _factor(r, m, "rental", "fin_rent_change", month)
    if rent.billing == "always_on":
        m.add(
            "rent_rental",
            "rent: GPU rental",
            lambda row: f"={m.cell('rent_gpus', row)}*rent_price*hours_per_month*" + factor(row),
        )
    else:
        m.add("rent_rental", "rent: GPU rental", lambda row: f"={m.cell('hours', row)}*rent_price*" + factor(row))
    staffing = _staffing_formula(
        add,
        "rent",
        rent.staffing,
        cur,
        _source_within(rent_block(r).staffing, rent_block(r)),
        lambda row: m.cell("rent_gpus", row),
        month,
    )
    m.add("rent_staffing", "rent: staffing", staffing)
    extras = _rent_extra_columns(r, m, add)
    if fin.rent_commitment is None:
        return ["rent_rental", "rent_staffing", *extras]
    # reserved GPUs: the on-demand remainder and the terms' payments, as values; the full on-demand
    # column above stays for the stand-in during the lead time
    m.add(
        "rent_remainder",
        "rent: GPU rental above the reserved GPUs (values)",
        flows.flows["rent"][Component.GPU_RENTAL],
    )
    m.add("rent_reserved", "rent: reserved commitment (values)", flows.flows["rent"][CashLine.RESERVED])
    lines = ["rent_remainder", "rent_staffing", "rent_reserved"]
    if CashLine.RESERVED_UPFRONT in flows.flows["rent"]:
        m.add(
            "rent_reserved_upfront",
            "rent: reserved commitment, up front at the term's start (values)",
            flows.flows["rent"][CashLine.RESERVED_UPFRONT],
        )
        lines.append("rent_reserved_upfront")
    return lines + _rent_committed_support(r, m, lines, extras)


_RENT_EXTRAS = (
    ("rent_storage", "storage", "storage_per_month"),
    ("rent_egress", "egress", "egress_per_month"),
    ("rent_cpu_nodes", "CPU nodes", "cpu_nodes_per_month"),
)
"""Workbook key, title and :class:`~costmodel.gpu_options.RentExtras` field of the rent option's data lines."""


def _rent_extra_columns(r: Resolved, m: _Months, add) -> list[str]:
    """The rent option's storage, egress and CPU-node lines (inputs a month) and its support plan on the on-demand
    bill, as formulas; returns the keys of their cash lines (none without ``data_and_support``).

    The support column is the one the lead time's stand-in pays: with a reserved commitment
    :func:`_rent_committed_support` adds the plan on the committed bill.
    """
    rent, cur = rent_option(r), r.currency
    extras = rent.extras
    if extras is None:
        return []
    block = r.scenario.data_and_support
    source = _source(block) if extras.row is None else f"{_source(block)}; {extras.row.citation()}"
    keys = []
    for key, title, field in _RENT_EXTRAS:
        value = getattr(extras, field)
        if value is not None:
            add(f"{key}_month", f"rental {title} a month", value, f"{cur}/month", source)
            m.add(key, f"rent: {title}", lambda row, key=key: f"={key}_month")
            keys.append(key)
    if extras.support_share is not None:
        add("rent_support_share", "rental support plan, share of the cloud bill", extras.support_share, "-", source)
        add(
            "rent_support_minimum",
            "rental support plan, minimum",
            extras.support_minimum_per_month,
            f"{cur}/month",
            source,
        )
        billed = ["rent_rental", *keys]
        m.add(
            "rent_support",
            "rent: support plan = MAX(share x cloud bill, minimum)"
            + (" (all on demand)" if r.finance.rent_commitment else ""),
            lambda row: (
                "=MAX(rent_support_share*(" + "+".join(m.cell(k, row) for k in billed) + "),rent_support_minimum)"
            ),
        )
        keys.append("rent_support")
    return keys


def _rent_committed_support(r: Resolved, m: _Months, lines: list[str], extras: list[str]) -> list[str]:
    """With a reserved commitment and a support plan: the plan on the committed bill, in place of the on-demand one.

    ``lines`` are the committed cash lines' keys, ``extras`` those of :func:`_rent_extra_columns`.
    """
    if "rent_support" not in extras:
        return list(extras)
    billed = [key for key in lines if key != "rent_staffing"] + [key for key in extras if key != "rent_support"]
    m.add(
        "rent_support_committed",
        "rent: support plan = MAX(share x cloud bill, minimum), with the commitment",
        lambda row: "=MAX(rent_support_share*(" + "+".join(m.cell(k, row) for k in billed) + "),rent_support_minimum)",
    )
    return [key for key in extras if key != "rent_support"] + ["rent_support_committed"]


def _rented_terms(r: Resolved, comparison: Comparison):
    """The decision's other way to pay the rent option on the present value (reserved GPUs, then spot, the rest
    on demand) when the workbook writes its cash lines live: its candidate id and terms, else None.

    Beside a stated commitment, the rent option all on demand (its columns are the stated option's
    on-demand ones), with None for terms. None with yearly periods (its totals by year are not written) and
    where the decision has no such candidate or is on another measure.
    """
    from ..domain.decision import ON_DEMAND, RESERVED, SPOT, reserved_gpus_of

    d = comparison.decision
    if d.measure != Measure.PRESENT_VALUE or "rent" not in r.options or r.finance.npv.period != "month":
        return None
    if r.finance.rent_commitment is not None:
        return (ON_DEMAND, None) if ON_DEMAND in d.candidates else None
    candidate = next((c for c in (RESERVED, SPOT) if c in d.candidates), None)
    terms = reserved_gpus_of(r) if candidate is not None else None
    return None if terms is None else (candidate, terms)


def _reserved_inputs(r: Resolved, add, terms) -> None:
    """The GPUs reserved in the rent option's cheapest way to pay (fixed: costmodel's search) and the reserved
    price: a formula of the on-demand price where the scenario gives a discount, else the price."""
    rent, cur, block = rent_option(r), r.currency, rent_block(r)
    assert rent.reserved is not None and block.reserved is not None, "reserved GPUs come with reserved terms"
    add(
        "terms_gpus",
        "GPUs reserved in the cheapest way to pay (costmodel's search)",
        float(terms.gpus),
        "GPU",
        "derived: the commitment with the lowest present value",
        fixed=True,
    )
    if block.reserved.discount is not None:
        add(
            "rent_reserved_discount",
            "reserved discount off on-demand",
            block.reserved.discount,
            "-",
            _source(block.reserved),
        )
        price = "=rent_price*(1-rent_reserved_discount)"
    else:
        price = rent.reserved.price_per_gpu_hour
    add("rent_reserved_price", "reserved price per GPU-hour", price, f"{cur}/GPU-h", _source(block.reserved))


def _spot_inputs(r: Resolved, add) -> None:
    """The spot terms as inputs: the discount off on-demand, interruptions and the work each loses; the spot
    price a formula of them (on-demand × (1 − discount) / (1 − interruptions × work lost))."""
    rent, cur, block = rent_option(r), r.currency, rent_block(r)
    assert rent.spot is not None and block.spot is not None, "spot hours come with spot terms"
    spot_source = _source(block.spot)
    add("rent_spot_discount", "spot discount off on-demand", rent.spot.discount, "-", spot_source)
    add(
        "rent_spot_interruptions",
        "spot interruptions per GPU-hour",
        block.spot.interruptions_per_gpu_hour,
        "1/GPU-h",
        spot_source,
    )
    add(
        "rent_spot_work_lost",
        "spot: work lost per interruption",
        block.spot.work_lost_hours_per_interruption,
        "h",
        spot_source,
    )
    add(
        "rent_spot_price",
        "spot price per GPU-hour, the work redone included",
        "=rent_price*(1-rent_spot_discount)/(1-rent_spot_interruptions*rent_spot_work_lost)",
        f"{cur}/GPU-h",
        "derived",
    )


_ON_DEMAND_DATA = ("rent_storage", "rent_egress", "rent_cpu_nodes", "rent_support")
"""The rent option's data lines and its support plan on the on-demand bill (:func:`_rent_extra_columns`)."""


def _rented_terms_columns(r: Resolved, flows: CashFlows, m: _Months, add, terms, extras: list[str]) -> list[str]:
    """The rent option's other way to pay as formulas: reserved GPUs paid every hour of their term at the reserved
    price (at the rental trend of the term's first month), spot GPU-hours at the spot price, the rest on demand;
    returns the keys of its cash lines.

    The GPU-hours the reserved GPUs and spot serve each month are values (they follow the demand
    profile's spread, :func:`costmodel.domain.finance.reserved_busy_hours` and ``spot_busy_hours``), as are
    the GPUs reserved (costmodel's search, :func:`costmodel.domain.decision.rented_terms`); the prices are
    live. ``extras`` are the keys of :func:`_rent_extra_columns`: staffing and data lines are the on-demand
    ones, the support plan a share of this bill.

    References
    ----------
    The cash lines of :func:`costmodel.domain.finance.committed_flows`, which these formulas recompute; a
    reservation is billed every hour of its term, used or not (AWS, "Reserved Instances", Amazon EC2 User Guide).
    """
    from ..domain.finance import reserved_busy_hours, spot_busy_hours

    rent = rent_option(r)

    def month(row):
        return _month_cell(m, row)

    factor = _factor(r, m, "rental", "fin_rent_change", month)
    per_hour = rent.billing == "per_gpu_hour_used"
    reserved = rent.reserved is not None and terms.gpus > 0
    spot = terms.spot and rent.spot is not None and per_hour
    lines, used = [], []
    if reserved:
        assert rent.reserved is not None, "reserved GPUs come with reserved terms"
        _reserved_inputs(r, add, terms)
        if per_hour:
            m.add(
                "terms_reserved_hours",
                "GPU-hours on the reserved GPUs (values)",
                np.broadcast_to(
                    np.asarray(reserved_busy_hours(r, flows.gpu_hours, terms.gpus), float), flows.months.shape
                ),
            )
            used.append("terms_reserved_hours")
        term = MONTHS_PER_YEAR * rent.reserved.term_years
        m.add(
            "terms_reserved",
            f"rent, cheapest terms: {rent.reserved.term_years}-year reservation, every hour of the term",
            lambda row: "=terms_gpus*hours_per_month*rent_reserved_price*" + factor((row - 2) // term * term + 2),
        )
        lines.append("terms_reserved")
    if spot:
        _spot_inputs(r, add)
        m.add(
            "terms_spot_hours",
            "GPU-hours on spot (values)",
            np.broadcast_to(
                np.asarray(spot_busy_hours(r, flows.gpu_hours, terms.gpus if reserved else 0), float),
                flows.months.shape,
            ),
        )
        used.append("terms_spot_hours")
        m.add(
            "terms_spot",
            "rent, cheapest terms: spot",
            lambda row: f"={m.cell('terms_spot_hours', row)}*rent_spot_price*" + factor(row),
        )
        lines.append("terms_spot")
    if per_hour:
        m.add(
            "terms_rental",
            "rent, cheapest terms: on demand, the rest",
            lambda row: (
                f"=MAX({m.cell('hours', row)}"
                + "".join(f"-{m.cell(k, row)}" for k in used)
                + ",0)*rent_price*"
                + factor(row)
            ),
        )
    else:
        m.add(
            "terms_rental",
            "rent, cheapest terms: on demand above the reserved GPUs",
            lambda row: (
                f"=MAX({m.cell('rent_gpus', row)}-{'terms_gpus' if reserved else 0},0)*rent_price*hours_per_month*"
                + factor(row)
            ),
        )
    lines = ["terms_rental", *lines]
    data = [k for k in extras if k != "rent_support"]
    if "rent_support" in extras:
        billed = lines + data
        m.add(
            "terms_support",
            "rent, cheapest terms: support plan = MAX(share x cloud bill, minimum)",
            lambda row: (
                "=MAX(rent_support_share*(" + "+".join(m.cell(k, row) for k in billed) + "),rent_support_minimum)"
            ),
        )
        data.append("terms_support")
    return [*lines, "rent_staffing", *data]


def _api_inputs(r: Resolved, add) -> None:
    """The API's listed prices, cached share and output share as named inputs."""
    api, cur = api_option(r), r.currency
    add("api_input_price", "API input price", api.input_price_per_million, f"{cur}/M tokens", api.offer.citation())
    add(
        "api_cached_price",
        "API cached input price",
        api.cached_input_price_per_million,
        f"{cur}/M tokens",
        api.offer.citation(),
    )
    add(
        "api_output_price",
        "API output price",
        api.output_price_per_million,
        f"{cur}/M tokens",
        api.offer.citation(),
    )
    add("api_cached_share", "cached share of input tokens", api.cached_input_share, "-", api.offer.citation())
    add("api_output_share", "output share of tokens", r.workload.output_share, "-", "workload")


def _api_part_columns(r: Resolved, m: _Months, add, api_factor) -> list[str]:
    """The API bill by costmodel's parts, for billing words beyond the cache-read share (tiers, cache writes,
    reasoning, modalities, fees, windows): each part's price per million workload tokens a named input, and a
    column of tokens × that price; returns their keys."""
    from ..domain.api_clock import api_clock_factor

    api = api_option(r)
    assert api.price_parts is not None, "resolve() gives every API option its bill's parts"
    keys = []
    for part, value in api.price_parts.items():
        clock = api_clock_factor(r, "api", part if api.hour_part_factors is not None else None)
        price = float(np.mean(np.asarray(value, dtype=float))) * clock
        add(
            f"api_{part}_price",
            f"API bill per M workload tokens: {part.replace('_', ' ')} (from the "
            "billing words and price windows; change them in the scenario, then export again)",
            price,
            f"{r.currency}/M tokens",
            api.offer.citation(),
        )
        m.add(
            f"api_{part}",
            f"api: {part.replace('_', ' ')}",
            lambda row, part=part: f"={m.cell('tokens', row)}*api_{part}_price*{api_factor(row)}",
        )
        keys.append(f"api_{part}")
    return keys


def _api_line(m: _Months, kind: str, api_factor):
    """The formula of one line of a plain API bill: input, cached input or output tokens at its price."""

    def formula(row):
        tokens, f = m.cell("tokens", row), api_factor(row)
        if kind == "input":
            return f"={tokens}*(1-api_output_share)*(1-api_cached_share)*api_input_price*{f}"
        if kind == "cached":
            return f"={tokens}*(1-api_output_share)*api_cached_share*api_cached_price*{f}"
        return f"={tokens}*api_output_share*api_output_price*{f}"

    return formula


def _api_columns(r: Resolved, flows: CashFlows, m: _Months, add) -> list[str]:
    """The API option's inputs and columns: tokens a month, then the bill as formulas of the listed prices
    (:func:`_plain_api_bill`) or of costmodel's parts; returns the keys of its cash lines."""
    api = api_option(r)
    _api_inputs(r, add)
    m.add(
        "tokens",
        "tokens a month [M tokens/month]",
        np.broadcast_to(np.asarray(tokens_per_month(r, flows.volume), float) / 1e6, flows.months.shape),
    )
    api_factor = _factor(r, m, "api", "fin_api_change", lambda row: _month_cell(m, row))
    if not _plain_api_bill(r, api):
        return _api_part_columns(r, m, add, api_factor)
    for kind in ("input", "cached", "output"):
        m.add(f"api_{kind}", f"api: {kind} tokens", _api_line(m, kind, api_factor))
    return ["api_input", "api_cached", "api_output"]


def _write(book, cells: Cells, r: Resolved, flows: CashFlows, comparison: Comparison) -> None:
    """The workbook of a scenario with a finance block: Inputs, Cash flows (months and years) and Summary."""
    fin = r.finance
    horizon = fin.horizon_months
    sheet_class = _text_sheet_class(cells)
    inputs = _Inputs(book, book.add_worksheet("Inputs", worksheet_class=sheet_class), cells)
    sheet = book.add_worksheet("Cash flows", worksheet_class=sheet_class)
    summary = book.add_worksheet("Summary", worksheet_class=sheet_class)
    add = inputs.add
    _finance_inputs(r, add)
    months = flows.months
    m = _Months(horizon)
    m.add("month", "month", months)
    m.add("year", "year", months // MONTHS_PER_YEAR + 1)
    m.add("volume", f"volume [{r.volume_unit}]", flows.volume)
    m.add("hours", "GPU-hours used", flows.gpu_hours)
    totals: dict[str, list[str]] = {}
    rented = _rented_terms(r, comparison)
    terms_lines: list[str] = []
    if "rent" in r.options:
        totals["rent"] = _rent_columns(r, flows, m, add)
        if rented is not None and rented[1] is None:  # all on demand, beside a stated commitment
            terms_lines = [k for k in m.letters if k == "rent_rental" or k == "rent_staffing" or k in _ON_DEMAND_DATA]
        elif rented is not None:
            extras = [k for k in totals["rent"] if k not in ("rent_rental", "rent_staffing")]
            terms_lines = _rented_terms_columns(r, flows, m, add, rented[1], extras)
    for name, option in r.options.items():  # options.rents: their on-demand cash lines, as values
        if option.kind == "rent" and name != "rent":
            key = _key(name)
            m.add(f"{key}_rental", f"{name}: GPU rental (values)", flows.flows[name][Component.GPU_RENTAL])
            m.add(f"{key}_staffing", f"{name}: staffing (values)", flows.flows[name][Component.STAFFING])
            totals[name] = [f"{key}_rental", f"{key}_staffing"]
            for index, part in enumerate(p for p in DATA_AND_SUPPORT if p in flows.flows[name]):
                m.add(f"{key}_extra_{index}", f"{name}: {part} (values)", flows.flows[name][part])
                totals[name].append(f"{key}_extra_{index}")
    if "api" in r.options:
        totals["api"] = _api_columns(r, flows, m, add)
    if "own" in r.options:
        totals["own"] = _own_columns(r, flows, m, add)
    for option, keys in totals.items():
        m.add(
            f"{option}_total",
            f"{r.label(option)}: cash out",
            lambda row, keys=keys: "=" + "+".join(m.cell(k, row) for k in keys),
        )
    if terms_lines:
        m.add(
            "terms_total",
            f"{r.label('rent')}, cheapest terms: cash out",
            lambda row: "=" + "+".join(m.cell(k, row) for k in terms_lines),
        )
    if fin.tax is not None:
        _tax_columns(r, flows, m, add, totals)
    against = comparison.finance.payback_against if comparison.finance is not None else None
    if against is not None:
        _payback_columns(m, r, against, lambda row: _month_cell(m, row))
    _write_months(book, sheet, m, r.currency)
    years = _write_years(book, sheet, m, r, totals, horizon)
    _write_summary(
        book, summary, r, m, totals, against, years, comparison, rented[0] if terms_lines and rented else None
    )
    inputs.table(inputs_table(r))


STEADY_NOTE = (
    "The monthly cost of each part, as costmodel computes it at the scenario's volume (values): "
    "change the scenario, then export again. The totals, the lowest and the verdict are formulas."
)
"""The note on the component columns of the steady monthly view."""


def _write_steady(book, cells: Cells, r: Resolved, comparison: Comparison) -> None:
    """The workbook of a scenario without a finance block: each option's steady monthly cost by part.

    Sheets: Inputs (the scenario's inputs as given), Monthly costs (one row per option, one column per
    part, its total a ``SUM``), Summary (the verdict as a formula over the totals, and costmodel's own).
    """
    sheet_class = _text_sheet_class(cells)
    inputs = book.add_worksheet("Inputs", worksheet_class=sheet_class)
    sheet = book.add_worksheet("Monthly costs", worksheet_class=sheet_class)
    summary = book.add_worksheet("Summary", worksheet_class=sheet_class)
    cur, c = r.currency, comparison
    bold = book.add_format({"bold": True, "text_wrap": True})
    money = book.add_format({"num_format": "#,##0.00"})
    fixed = book.add_format({"num_format": "#,##0.00", "italic": True, "bg_color": "#D9D9D9"})
    parts = list(dict.fromkeys(part for result in c.options.values() for part in result.components))
    heads = ["option", "label", *(f"{part} [{cur}/month]" for part in parts), f"monthly cost [{cur}/month]"]
    for col, head in enumerate(heads):
        sheet.write_string(0, col, head, bold)
    for col in range(2, 2 + len(parts)):
        sheet.write_comment(0, col, STEADY_NOTE, {"x_scale": 2, "y_scale": 1.5})
    from xlsxwriter.utility import xl_col_to_name

    total_col = 2 + len(parts)
    for k, (option, result) in enumerate(c.options.items()):
        row = k + 1
        sheet.write_string(row, 0, option)
        sheet.write_string(row, 1, result.label)
        for j, part in enumerate(parts):
            sheet.write_number(row, 2 + j, float(result.components.get(part, 0.0)), fixed)
        span = f"C{row + 1}:{xl_col_to_name(total_col - 1)}{row + 1}"
        sheet.write_formula(row, total_col, f"=SUM({span})", money)
    sheet.set_row(0, 45)
    sheet.set_column(0, 0, 22)
    sheet.set_column(1, 1, 40)
    sheet.set_column(2, total_col, 16)
    sheet.freeze_panes(1, 2)
    sheet.write_string(len(c.options) + 2, 0, STEADY_NOTE)

    summary.set_column(0, 0, 70)
    summary.set_column(1, 1, 22)
    summary.write_string(0, 0, r.title, bold)
    summary.write_string(1, 0, "reporting currency")
    summary.write_string(1, 1, cur)
    summary.write_string(2, 0, "volume")
    summary.write_number(2, 1, float(c.volume), money)
    summary.write_string(2, 2, c.volume_unit)
    total = xl_col_to_name(total_col)
    live = {option: f"'Monthly costs'!{total}{k + 2}" for k, option in enumerate(c.options)}
    _verdict(book, summary, 4, _ranked(comparison, live, Measure.MONTHLY_COST), comparison)
    summary.freeze_panes(1, 0)

    bold_plain = book.add_format({"bold": True})
    inputs.write_string(0, 0, "Scenario inputs as given (change them in the scenario, then export again)", bold_plain)
    frame = inputs_table(r)
    for col, head in enumerate(frame.columns):
        inputs.write_string(1, col, str(head), bold_plain)
    for row, values in enumerate(frame.itertuples(index=False), start=2):
        for col, value in enumerate(values):
            inputs.write_string(row, col, str(value))
    inputs.set_column(0, 1, 30)
    inputs.set_column(2, len(frame.columns), 18)
    inputs.freeze_panes(2, 0)


def _key(option: str) -> str:
    """The column key of an option: ``rent:nebius`` → ``rent_nebius``."""
    return option.replace(":", "_").replace("-", "_")


START_KEYS = ("own_capex", "own_refresh", "own_facility", "own_lease", "own_buyout", "rent_reserved_upfront")
"""Columns paid at the start of their month (:data:`costmodel.results.START_LINES`); the rest at its end."""


def _payback_columns(m: _Months, r: Resolved, against: str, month) -> None:
    """The payback as formulas: investment at the start of its month, savings at the end, the last crossing.

    Position after month t's start A_t = A_(t-1) + end gain_(t-1) + start gain_t, at its end
    B_t = A_t + end gain_t (:func:`costmodel.formulas.payback`); a month is below zero when A or
    B is; the payback is in the last such month, interpolated where B ≥ 0; never when the last B
    is below zero. The same with each flow discounted to its time for the discounted payback.
    """
    last = m.horizon + 1

    def start_sum(option: str, row: int) -> str:
        keys = [k for k in START_KEYS if k.startswith(f"{option}_") and k in m.letters]
        return "+".join(m.cell(k, row) for k in keys) or "0"

    m.add(
        "gain",
        f"gain of owning vs {r.label(against)}",
        lambda row: f"={m.cell(f'{against}_total', row)}-{m.cell('own_total', row)}",
    )
    m.add(
        "gain_start",
        "gain at the start of the month (investment)",
        lambda row: f"=({start_sum(against, row)})-({start_sum('own', row)})",
    )
    m.add(
        "gain_end",
        "gain at the end of the month (savings)",
        lambda row: f"={m.cell('gain', row)}-{m.cell('gain_start', row)}",
    )
    for prefix, discount_start, discount_end in (
        ("", "", ""),
        ("d", "/(1+fin_monthly_rate)^{t}", "/(1+fin_monthly_rate)^({t}+1)"),
    ):
        a, b, neg, after, key = (
            f"{prefix}position_start",
            f"{prefix}position_end",
            f"{prefix}below",
            f"{prefix}below_later",
            f"{prefix}payback",
        )
        title = "discounted " if prefix else ""
        m.add(
            a,
            f"{title}position after the month's start",
            lambda row, ds=discount_start, de=discount_end, a=a: (
                f"={m.cell('gain_start', row)}{ds.format(t=month(row))}"
                if row == 2
                else f"={m.cell(a, row - 1)}+{m.cell('gain_end', row - 1)}{de.format(t=month(row - 1))}"
                f"+{m.cell('gain_start', row)}{ds.format(t=month(row))}"
            ),
        )
        m.add(
            b,
            f"{title}position at the month's end",
            lambda row, de=discount_end, a=a: f"={m.cell(a, row)}+{m.cell('gain_end', row)}{de.format(t=month(row))}",
        )
        m.add(
            neg,
            f"{title}below zero in the month (1/0)",
            lambda row, a=a, b=b: f"=IF(OR({m.cell(a, row)}<0,{m.cell(b, row)}<0),1,0)",
        )
        m.add(
            after,
            f"{title}below zero in this month or a later one (1/0)",
            lambda row, neg=neg, after=after: (
                f"={m.cell(neg, row)}" if row == last else f"=MAX({m.cell(neg, row)},{m.cell(after, row + 1)})"
            ),
        )
        m.add(
            key,
            f"{title}payback candidate",
            lambda row, a=a, b=b, neg=neg, after=after: (
                f"=IF(AND({m.cell(neg, row)}=1,{'0' if row == last else m.cell(after, row + 1)}=0),"
                f"IF({m.cell(b, row)}>=0,IF({m.cell(b, row)}>{m.cell(a, row)},"
                f"{month(row)}-{m.cell(a, row)}/({m.cell(b, row)}-{m.cell(a, row)}),{month(row)}+1),{NEVER:.0E}),"
                f"{NEVER:.0E})"
            ),
        )


CAPITAL_KEYS = (
    "own_capex",
    "own_loan",
    "own_refresh",
    "own_refresh_resale",
    "own_resale",
    "own_facility",
    "own_facility_residual",
    "own_buyout",
)
"""Own columns that are not deductible expenses."""


def _tax_columns(r: Resolved, flows: CashFlows, m: _Months, add, totals) -> None:
    """Tax saved on expenses as formulas (rate × the expense columns); depreciation, interest and resale
    tax as values (:func:`costmodel.domain.tax.after_tax`); each option's cash out after tax."""
    tax = r.finance.tax
    add("tax_rate", "tax rate", tax.rate, "-", tax.source)
    taxed = after_tax(r, flows)
    for option, keys in totals.items():
        columns = [f"{option}_total"]
        if option == "own":
            capital = CAPITAL_KEYS + (
                ("own_lease",) if r.finance.lease is not None and r.finance.lease.kind == "finance" else ()
            )
            expenses = [k for k in keys if k not in capital]
        else:
            expenses = keys
        m.add(
            f"{option}_tax_expenses",
            f"{r.label(option)}: tax saved on expenses",
            lambda row, expenses=expenses: "=-tax_rate*(" + "+".join(m.cell(k, row) for k in expenses) + ")",
        )
        columns.append(f"{option}_tax_expenses")
        if option == "own":
            for line in (CashLine.TAX_ON_DEPRECIATION, CashLine.TAX_ON_INTEREST, CashLine.TAX_ON_RESALE):
                if line in taxed.flows["own"]:
                    key = f"own_{line.name.lower()}"
                    m.add(key, f"own: {line} (values)", taxed.flows["own"][line])
                    columns.append(key)
        m.add(
            f"{option}_after_tax",
            f"{r.label(option)}: cash out after tax",
            lambda row, columns=columns: "=" + "+".join(m.cell(k, row) for k in columns),
        )


def _staffing_formula(add, prefix: str, staff, cur: str, source: str, gpus, month, managed: bool = True):
    """Staffing each month: ((minimum FTE + GPUs / GPUs per FTE) × loaded cost / 12 + managed service),
    escalated by the salary trend."""
    if staff is None:
        return lambda row: "=0"
    add(f"{prefix}_minimum_fte", f"{prefix}: FTE however small the fleet", staff.minimum_fte, "FTE", source)
    add(
        f"{prefix}_loaded_cost",
        f"{prefix}: loaded cost per FTE a year",
        staff.loaded_cost_per_fte_per_year,
        f"{cur}/FTE/year",
        source,
    )
    # without ``managed`` the fee is a cash line of its own, written as values: fixed at export
    add(
        f"{prefix}_managed",
        f"{prefix}: managed service a month",
        staff.managed_service_per_month,
        f"{cur}/month",
        source,
        fixed=not managed,
    )
    per_fte = np.isfinite(staff.gpus_per_fte)
    if per_fte:
        add(f"{prefix}_gpus_per_fte", f"{prefix}: GPUs per further FTE", staff.gpus_per_fte, "GPU/FTE", source)
    return lambda row: (
        f"=(({prefix}_minimum_fte"
        + (f"+{gpus(row)}/{prefix}_gpus_per_fte" if per_fte else "")
        + f")*{prefix}_loaded_cost/12"
        + (f"+{prefix}_managed" if managed else "")
        + f")*(1+fin_salary_change)^({month(row)}/12)"
    )


def _own_price_inputs(r: Resolved, add, priced: bool) -> None:
    """The own option's hardware inputs: server price, spares, bill of materials, support, GPUs and power per
    server. ``priced``: the hardware's price also sets columns of values, so those inputs are fixed."""
    own, cur = own_option(r), r.currency
    source = _source(own_block(r))
    shares = sum(line.value for line in own.bill_of_materials if line.basis == "share_of_server_price")
    per_server = sum(line.value for line in own.bill_of_materials if line.basis == "per_server")
    totals = sum(
        line.value for line in own.bill_of_materials if line.basis not in ("share_of_server_price", "per_server")
    )
    add("own_server_price", "server price", own.server_price, f"{cur}/server", own.server.citation(), fixed=priced)
    add("own_spare_share", "spare servers, share", own.spare_share, "-", source, fixed=priced)
    add("own_bom_share", "bill of materials, share of server capex", shares, "-", source, fixed=priced)
    add("own_bom_per_server", "bill of materials per server bought", per_server, f"{cur}/server", source, fixed=priced)
    add("own_bom_fixed", "bill of materials, totals", totals, cur, source, fixed=priced)
    add(
        "own_support_share",
        "hardware support a year, share of capex",
        own.hardware_support_share_per_year,
        "1/year",
        source,
    )
    # the capacity plan (servers held, a column of values) is laid out for the server's GPUs
    add("own_gpus_per_server", "GPUs per server", own.gpus_per_server, "GPU", own.server.citation(), fixed=True)
    add("own_kw_per_server", "maximum power per server", own.kw_per_server, "kW", own.server.citation())


def _own_site_inputs(r: Resolved, add) -> None:
    """The own option's running inputs: idle draw, PUE, electricity prices, facility or colocation, licences."""
    own, cur = own_option(r), r.currency
    s_own = own_block(r)
    power = s_own.power
    add("own_idle_share", "idle draw, share of maximum", own.idle_power_share, "-", _source_within(power, s_own))
    add("own_pue", "PUE", own.pue, "-", _source_within(power, s_own))
    tariff = r.scenario.energy.tariff if r.scenario.energy is not None else None
    # a time-of-use tariff sets the prices (``own.tariff_prices``) only when the scenario has one
    price_source = (
        tariff.source if tariff is not None and own.tariff_prices is not None else _source_within(power, s_own)
    )
    add(
        "own_electricity_price",
        "electricity price (idle draw; with a time-of-use tariff its yearly mean)",
        own.electricity_price_per_kwh,
        f"{cur}/kWh",
        price_source,
    )
    busy = "=own_electricity_price" if own.tariff_prices is None else own.busy_electricity_price_per_kwh
    add(
        "own_busy_electricity_price",
        "electricity price of the draw above idle (with a tariff: weighted by the demand's hours)",
        busy,
        f"{cur}/kWh",
        price_source,
    )
    if own.facility_price_per_mw is not None:
        add(
            "own_facility_price",
            "facility build price",
            own.facility_price_per_mw,
            f"{cur}/MW",
            _source_within(s_own.facility, s_own),
        )
        add(
            "own_facility_life",
            "facility life",
            own.facility_depreciation_months,
            "months",
            _source_within(s_own.facility, s_own),
        )
    else:
        add(
            "own_colocation_price",
            "colocation price",
            own.colocation_price_per_kw_month,
            f"{cur}/kW/month",
            _source_within(s_own.colocation, s_own),
        )
    if own.licence_price_per_gpu_per_year is not None:
        add(
            "own_licence_price",
            "software licences per GPU a year",
            own.licence_price_per_gpu_per_year,
            f"{cur}/GPU/year",
            _source(s_own),
        )


def _own_residual_inputs(r: Resolved, add, priced: bool) -> str | None:
    """The useful life and the resale value inputs; returns the resale share at an age as a formula template
    (``{age}`` in months), or None for a curve read from points (then a column of values)."""
    fin = r.finance
    life = useful_life(r)
    add("own_useful_life", "useful life (refresh)", life, "months", fin.source, fixed=priced)
    curve = fin.residual
    if curve.method == "straight_line":
        residual = "MAX(0,1-({age})/own_useful_life)"
        add(
            "own_residual_at_life",
            "resale value at the end of the useful life, share",
            "=MAX(0,1-1)",
            "-",
            "straight line over the useful life",
        )
    elif curve.method == "declining_balance":
        add(
            "own_residual_rate",
            "resale value lost a year (declining balance)",
            curve.rate_per_year,
            "1/year",
            curve.source,
            fixed=priced,
        )
        residual = "(1-own_residual_rate)^(({age})/12)"
        add(
            "own_residual_at_life",
            "resale value at the end of the useful life, share",
            "=(1-own_residual_rate)^(own_useful_life/12)",
            "-",
            "declining balance",
        )
    else:
        residual = None
        add(
            "own_residual_at_life",
            "resale value at the end of the useful life, share",
            float(np.asarray(residual_share(r, life), dtype=float)),
            "-",
            curve.source or "points from the scenario",
            fixed=True,
        )
    if fin.resale_share_at_horizon is not None:
        add(
            "own_resale_share",
            "resale value at the horizon, share of price",
            fin.resale_share_at_horizon,
            "-",
            fin.source,
        )
    return residual


def _month_cell(m: _Months, row: int) -> str:
    """The cell of the month number in a row."""
    return m.cell("month", row)


def _previous(m: _Months, key: str, row: int) -> str:
    """The column's cell in the row above, or 0 in the first month."""
    return m.cell(key, row - 1) if row > 2 else "0"


def _life_ago(m: _Months, key: str, row: int) -> str:
    """The column's cell one useful life before the row's month (INDEX over the rows above it, so that
    the useful life on the Inputs sheet moves the refreshes)."""
    col = m.letters[key]
    return f"INDEX(${col}$2:${col}${row - 1},MAX(1,{_month_cell(m, row)}-own_useful_life+1))"


def _from_life_ago(m: _Months, row: int, expression) -> str:
    """``expression(row)`` from the month one useful life after the start, 0 before it."""
    if row == 2:
        return "0"
    return f"IF({_month_cell(m, row)}>=own_useful_life,{expression(row)},0)"


def _running(m: _Months, expression):
    """A formula that is ``expression(row)`` while the fleet is online and 0 during the lead time."""
    return lambda row: f"={m.cell('online', row)}*(" + expression(row) + ")"


def _own_fleet_columns(r: Resolved, flows: CashFlows, m: _Months) -> None:
    """The fleet's columns: servers held, online, bought with spares, hardware at today's prices and at the
    month's price factor, refreshes at today's prices."""

    def month(row):
        return _month_cell(m, row)

    m.add("servers", "own: servers held (capacity plan)", _held_servers(r, flows))
    m.add("online", "own: online (1) or not (0)", lambda row: f"=IF({month(row)}>=fin_lead_time,1,0)")
    # spares in whole servers, as costmodel.formulas.fleet.servers_with_spares: S + max(0, ceil(S·q − 1e-9))
    m.add(
        "bought",
        "own: servers with spares",
        lambda row: f"={m.cell('servers', row)}+MAX(0,ROUNDUP({m.cell('servers', row)}*own_spare_share-1E-9,0))",
    )
    m.add(
        "at_today",
        "own: hardware held at today's prices",
        lambda row: f"={m.cell('bought', row)}*(own_server_price*(1+own_bom_share)+own_bom_per_server)+own_bom_fixed",
    )
    m.add(
        "bought_today",
        "own: hardware bought at today's prices",
        lambda row: f"={m.cell('at_today', row)}-{_previous(m, 'at_today', row)}",
    )
    hardware = _factor(r, m, "hardware", "fin_hardware_change", month)
    m.add("price_factor", "own: hardware price factor", lambda row: "=" + hardware(row))
    m.add(
        "purchase", "own: hardware bought", lambda row: f"={m.cell('bought_today', row)}*{m.cell('price_factor', row)}"
    )
    m.add(
        "refresh_today",
        "own: refresh at today's prices",
        lambda row: (
            "="
            + _from_life_ago(m, row, lambda r: f"{_life_ago(m, 'bought_today', r)}+{_life_ago(m, 'refresh_today', r)}")
        ),
    )


OWN_VALUE_LINES = {
    "own_capex": CashLine.HARDWARE_CAPEX,
    "own_lease": CashLine.LEASE_PAYMENTS,
    "own_buyout": CashLine.LEASE_BUYOUT,
    "own_refresh": CashLine.REFRESH,
    "own_refresh_resale": CashLine.REFRESH_RESALE,
    "own_resale": CashLine.RESALE,
}
"""The hardware's cash lines written as values when it is leased or sunk, by column key."""


def _own_loan_columns(r: Resolved, m: _Months, add) -> list[str]:
    """The loan's inputs (rate, term, down payment, ``PMT`` payment, balance at the horizon by ``PV``) and its
    columns: the down payment as capex in month 0, the payments after it; returns their keys."""
    fin = r.finance
    loan = fin.loan
    taxed = fin.tax is not None  # the tax saved on interest is a column of values
    add(
        "loan_rate",
        "loan rate (nominal yearly, monthly at rate / 12)",
        loan.rate_per_year,
        "1/year",
        loan.source,
        fixed=taxed,
    )
    add("loan_term", "loan term", loan.term_months, "months", loan.source, fixed=taxed)
    add("loan_down", "down payment, share of hardware capex", loan.down_payment_share, "-", loan.source, fixed=taxed)
    first = m.cell("purchase", 2)
    add(
        "loan_payment",
        "loan payment a month (PMT)",
        f"=-PMT(loan_rate/12,loan_term,'Cash flows'!{first}*(1-loan_down))",
        f"{r.currency}/month",
        "derived",
    )
    add("loan_paid", "payments made within the horizon", "=MIN(loan_term,fin_horizon-1)", "-", "derived")
    add(
        "loan_balance",
        "balance paid off at the horizon (PV)",
        "=IF(loan_paid<loan_term,PV(loan_rate/12,loan_term-loan_paid,-loan_payment),0)",
        r.currency,
        "derived",
    )

    def month(row):
        return _month_cell(m, row)

    m.add(
        "own_capex",
        "own: hardware capex",
        lambda row: f"=IF({month(row)}=0,{m.cell('purchase', row)}*loan_down,{m.cell('purchase', row)})",
    )
    m.add(
        "own_loan",
        "own: loan payments",
        lambda row: (
            f"=IF(AND({month(row)}>=1,{month(row)}<=loan_term),loan_payment,0)"
            + ("+loan_balance" if row == fin.horizon_months + 1 else "")
        ),
    )
    return ["own_capex", "own_loan"]


def _own_purchase_columns(r: Resolved, flows: CashFlows, m: _Months, add, by_value: bool) -> list[str]:
    """The hardware's cash lines: as values when leased or sunk (``by_value``), else the purchases (paid, or by
    a loan), the refreshes and their resale as formulas; then the facility's build. Returns their keys."""
    lines = []
    own_flows = flows.flows["own"]
    if by_value:
        for key, line in OWN_VALUE_LINES.items():
            if line in own_flows:
                m.add(key, f"own: {line} (values)", own_flows[line])
                lines.append(key)
    elif r.finance.loan is not None:
        lines += _own_loan_columns(r, m, add)
    else:
        m.add("own_capex", "own: hardware capex", lambda row: f"={m.cell('purchase', row)}")
        lines.append("own_capex")
    if not by_value:
        m.add(
            "own_refresh",
            "own: hardware refresh",
            lambda row: f"={m.cell('refresh_today', row)}*{m.cell('price_factor', row)}",
        )
        m.add(
            "own_refresh_resale",
            "own: resale at refresh",
            lambda row: (
                "=-"
                + _from_life_ago(
                    m,
                    row,
                    lambda r: (
                        f"({_life_ago(m, 'bought_today', r)}+{_life_ago(m, 'refresh_today', r)})"
                        f"*{_life_ago(m, 'price_factor', r)}*own_residual_at_life"
                    ),
                )
            ),
        )
        lines += ["own_refresh", "own_refresh_resale"]
    if own_option(r).facility_price_per_mw is not None:
        m.add(
            "own_facility",
            "own: facility capex",
            lambda row: (
                f"=({m.cell('bought', row)}-{_previous(m, 'bought', row)})*own_kw_per_server/1000*own_facility_price"
            ),
        )
        lines.append("own_facility")
    return lines


def _own_running_columns(r: Resolved, m: _Months, add) -> list[str]:
    """The running costs while online (support, colocation, electricity, staffing, licences) and the stand-in
    during the lead time; returns the keys of their cash lines."""
    own, fin = own_option(r), r.finance
    facility = own.facility_price_per_mw is not None
    lines = []

    def month(row):
        return _month_cell(m, row)

    m.add(
        "own_support",
        "own: hardware support",
        _running(m, lambda row: f"{m.cell('at_today', row)}*own_support_share/12"),
    )
    if not facility:
        m.add(
            "own_colocation",
            "own: colocation",
            _running(m, lambda row: f"{m.cell('bought', row)}*own_kw_per_server*own_colocation_price"),
        )
        lines.append("own_colocation")
    electricity = _factor(r, m, "electricity", "fin_electricity_change", month)
    m.add(
        "own_electricity",
        "own: electricity = drawn kW x PUE x hours x price (idle draw, draw above idle)",
        _running(
            m,
            lambda row: (
                f"own_kw_per_server*({m.cell('bought', row)}*own_idle_share*own_electricity_price"
                f"+(1-own_idle_share)*{m.cell('hours', row)}/(own_gpus_per_server*hours_per_month)"
                "*own_busy_electricity_price)*own_pue*hours_per_month"
                f"*{electricity(row)}"
            ),
        ),
    )
    staffing = _staffing_formula(
        add,
        "own",
        own.staffing,
        r.currency,
        _source_within(own_block(r).staffing, own_block(r)),
        lambda row: f"{m.cell('bought', row)}*own_gpus_per_server",
        month,
        managed=False,
    )
    m.add("own_staffing", "own: staffing", _running(m, lambda row: staffing(row)[1:]))
    lines += ["own_support", "own_electricity", "own_staffing"]
    if own.licence_price_per_gpu_per_year is not None:
        m.add(
            "own_licences",
            "own: software licences",
            _running(m, lambda row: f"{m.cell('bought', row)}*own_gpus_per_server*own_licence_price/12"),
        )
        lines.append("own_licences")
    if fin.lead_time_months > 0:
        stand_in = fin.during_lead_time
        rented = (
            ["rent_rental", "rent_staffing"]
            + [k for k, _, _ in _RENT_EXTRAS if k in m.letters]
            + (["rent_support"] if "rent_support" in m.letters else [])
        )
        keys = {"rent": rented, "api": ["api_input", "api_cached", "api_output"]}[stand_in]
        m.add(
            "own_stand_in",
            f"own: {r.label(stand_in).lower()} during lead time",
            lambda row: f"=(1-{m.cell('online', row)})*(" + "+".join(m.cell(k, row) for k in keys) + ")",
        )
        lines.append("own_stand_in")
    return lines


def _own_horizon_columns(r: Resolved, flows: CashFlows, m: _Months, by_value: bool, residual: str | None) -> list[str]:
    """What comes back at the horizon: the hardware's resale (unless leased or sunk) and the facility's
    residual value; returns the keys of their cash lines."""
    fin, horizon = r.finance, r.finance.horizon_months
    last = horizon + 1
    lines = []

    def month(row):
        return _month_cell(m, row)

    if not by_value:
        m.add(
            "held",
            "own: price of hardware held at the horizon",
            lambda row: (
                f"=({m.cell('bought_today', row)}+{m.cell('refresh_today', row)})"
                f"*{m.cell('price_factor', row)}*IF({month(row)}+own_useful_life>=fin_horizon,1,0)"
            ),
        )
        if residual is not None:
            m.add(
                "residual",
                "own: resale value share at the horizon",
                lambda row: "=" + residual.format(age=f"fin_horizon-{month(row)}"),
            )
        else:
            m.add(
                "residual",
                "own: resale value share at the horizon",
                np.asarray(residual_share(r, horizon - flows.months), float),
            )
        if fin.resale_share_at_horizon is not None:
            resale = f"-SUM({m.span('held')})*own_resale_share"
        else:
            resale = f"-SUMPRODUCT({m.span('held')},{m.span('residual')})"
        m.add("own_resale", "own: resale", lambda row: f"={resale}" if row == last else "=0")
        lines.append("own_resale")
    if own_option(r).facility_price_per_mw is not None:
        m.add(
            "facility_book",
            "own: facility book value share at the horizon",
            lambda row: f"=MAX(0,1-(fin_horizon-{month(row)})/own_facility_life)",
        )
        m.add(
            "own_facility_residual",
            "own: facility residual value",
            lambda row: f"=-SUMPRODUCT({m.span('own_facility')},{m.span('facility_book')})" if row == last else "=0",
        )
        lines.append("own_facility_residual")
    return lines


OWN_FORMULA_LINES = frozenset(
    {
        CashLine.HARDWARE_CAPEX,
        CashLine.LOAN_PAYMENTS,
        CashLine.FACILITY_CAPEX,
        CashLine.RESALE,
        CashLine.FACILITY_RESIDUAL,
        CashLine.STAND_IN,
        CashLine.REFRESH,
        CashLine.REFRESH_RESALE,
        Component.HARDWARE_SUPPORT,
        CashLine.LEASE_PAYMENTS,
        CashLine.LEASE_BUYOUT,
        Component.COLOCATION,
        Component.ELECTRICITY,
        Component.STAFFING,
        Component.SOFTWARE_LICENCES,
    }
)
"""The own option's cash lines that have columns of their own; any other is written as values."""


def _own_columns(r: Resolved, flows: CashFlows, m: _Months, add) -> list[str]:
    """The own option's inputs and columns; returns the keys of its cash lines."""
    fin = r.finance
    by_value = fin.lease is not None or fin.view == "marginal"  # leased or sunk hardware: purchases as values
    # the hardware's price also sets columns of values: the purchases (leased or sunk hardware) or the tax
    # saved on depreciation
    priced = by_value or fin.tax is not None
    _own_price_inputs(r, add, priced)
    _own_site_inputs(r, add)
    residual = _own_residual_inputs(r, add, priced)
    _own_fleet_columns(r, flows, m)
    lines = _own_purchase_columns(r, flows, m, add, by_value)
    lines += _own_running_columns(r, m, add)
    lines += _own_horizon_columns(r, flows, m, by_value, residual)
    for name in sorted(set(flows.flows["own"]) - OWN_FORMULA_LINES):
        # lines without a formula here (e.g. a managed-service fee) as values
        key = f"own_value_{len(lines)}"
        m.add(key, f"own: {name} (values)", flows.flows["own"][name])
        lines.append(key)
    return lines


UNITS = {
    "month": "",
    "year": "",
    "hours": "GPU-h/month",
    "rent_gpus": "GPU",
    "servers": "servers",
    "online": "1/0",
    "bought": "servers",
    "price_factor": "-",
    "residual": "-",
    "facility_book": "-",
    "below": "1/0",
    "below_later": "1/0",
    "dbelow": "1/0",
    "dbelow_later": "1/0",
    "payback": "months",
    "dpayback": "months",
}
"""The unit of each column of the Cash flows sheet that is not money a month (those are ``<currency>/month``)."""


def _unit(key: str, currency: str) -> str:
    if key.endswith("_price_factor"):
        return "-"
    if "position" in key or key in ("at_today", "held"):  # amounts held or accrued, not a month's flow
        return currency
    return UNITS.get(key, f"{currency}/month")


def _write_months(book, sheet, m: _Months, currency: str) -> None:
    bold = book.add_format({"bold": True, "text_wrap": True})
    money = book.add_format({"num_format": "#,##0.00"})
    share = book.add_format({"num_format": "0.0000"})
    for col, (key, header, content) in enumerate(m.columns):
        unit = _unit(key, currency)
        sheet.write_string(0, col, header if "[" in header or not unit else f"{header} [{unit}]", bold)
        style = money if unit.startswith(currency) else share if unit == "-" else None
        for month in range(m.horizon):
            row = month + 2
            if callable(content):
                sheet.write_formula(row - 1, col, content(row), style)
            else:
                sheet.write_number(row - 1, col, float(np.asarray(content)[month]), style)
    sheet.set_row(0, 60)
    sheet.set_column(0, len(m.columns), 14)
    sheet.freeze_panes(1, 2)


def _write_years(book, sheet, m: _Months, r: Resolved, totals, horizon: int) -> dict[str, str]:
    """Totals by year to the right of the months; returns option → A1 range of its yearly totals."""
    from xlsxwriter.utility import xl_col_to_name

    start = len(m.columns) + 1
    years = -(-horizon // MONTHS_PER_YEAR)
    bold = book.add_format({"bold": True, "text_wrap": True})
    money = book.add_format({"num_format": "#,##0.00"})
    sheet.write_string(0, start, "year", bold)
    ranges = {}
    for y in range(years):
        sheet.write_number(y + 1, start, y + 1)
    for k, option in enumerate(totals):
        col = start + 1 + k
        sheet.write_string(0, col, f"{r.label(option)}: cash out in the year [{r.currency}/year]", bold)
        for y in range(years):
            first, last = y * MONTHS_PER_YEAR, min(horizon, (y + 1) * MONTHS_PER_YEAR) - 1
            sheet.write_formula(y + 1, col, f"=SUM({m.span(f'{option}_total', first, last)})", money)
        letter = xl_col_to_name(col)
        ranges[option] = f"'Cash flows'!${letter}$2:${letter}${years + 1}"
    return ranges


def _present_value_formula(r: Resolved, m: _Months, option: str, years: dict[str, str]) -> str:
    """The present value of an option's cash out as a formula, in the scenario's convention.

    ``end`` timing is Excel's ``NPV`` over all periods; ``begin`` keeps the first period at time 0
    (numpy-financial's ``npv``): the first period plus ``NPV`` of the rest. Yearly periods discount the
    totals by year (``years``: option → A1 range) at the yearly rate.
    """
    fin = r.finance
    period, timing = fin.npv.period, fin.npv.timing
    if period == "month":
        flows_range, rate_name = m.span(f"{option}_total", sheet=True), "fin_monthly_rate"
        first, rest = m.span(f"{option}_total", 0, 0, sheet=True), m.span(f"{option}_total", 1, sheet=True)
    else:
        flows_range, rate_name = years[option], "fin_discount_rate"
        col = years[option].split("!")[1].split(":")[0].split("$")[1]
        count = -(-fin.horizon_months // MONTHS_PER_YEAR)
        first, rest = f"'Cash flows'!${col}$2", f"'Cash flows'!${col}$3:${col}${count + 1}"
    if timing == "end":
        return f"=NPV({rate_name},{flows_range})"
    if (period == "month" and fin.horizon_months > 1) or (period == "year" and fin.horizon_months > 12):
        return f"={first}+NPV({rate_name},{rest})"
    return f"={first}"


def _present_value_rows(sheet, r: Resolved, m: _Months, totals, years, row: int, money) -> tuple[int, list[str]]:
    """Each option's TCO and present value of costs, then a row kept for the lowest candidate of the decision
    (:func:`_lowest_row`, written with the verdict); returns that row and the cells of the present values."""
    pvs = []
    for option in totals:
        label = r.label(option)
        sheet.write_string(row, 0, f"TCO, {label}")
        sheet.write_formula(row, 1, f"=SUM({m.span(f'{option}_total', sheet=True)})", money)
        sheet.write_string(row, 2, r.currency)
        row += 1
        sheet.write_string(row, 0, f"present value of costs, {label}")
        sheet.write_formula(row, 1, _present_value_formula(r, m, option, years), money)
        sheet.write_string(row, 2, r.currency)
        sheet.write_string(row, 3, label)
        pvs.append(f"B{row + 1}")
        row += 1
    return row, pvs


def _after_tax_rows(sheet, r: Resolved, m: _Months, totals, row: int, money) -> int:
    """Each option's TCO and present value of costs after tax (monthly, first month at time 0); returns the
    last row written."""
    for option in totals:
        label = r.label(option)
        span = m.span(f"{option}_after_tax", sheet=True)
        first, rest = (
            m.span(f"{option}_after_tax", 0, 0, sheet=True),
            m.span(f"{option}_after_tax", 1, sheet=True),
        )
        row += 1
        sheet.write_string(row, 0, f"TCO after tax, {label}")
        sheet.write_formula(row, 1, f"=SUM({span})", money)
        sheet.write_string(row, 2, r.currency)
        row += 1
        sheet.write_string(row, 0, f"present value of costs after tax (month, begin), {label}")
        sheet.write_formula(
            row, 1, f"={first}+NPV(fin_monthly_rate,{rest})" if r.finance.horizon_months > 1 else f"={first}", money
        )
        sheet.write_string(row, 2, r.currency)
    return row


def _returns_rows(sheet, r: Resolved, m: _Months, against: str, comparison: Comparison, row: int, money, rate) -> int:
    """The returns of owning against ``against``: IRR, MIRR, the investment, ROI and the two paybacks, all
    formulas of the gain column; returns the next free row."""
    label = r.label(against)
    gain = m.span("gain", sheet=True)
    # the guess: costmodel's monthly IRR, so that Newton's method in Excel and LibreOffice starts at the root
    # (from their default 10 % a month it wanders off on long series of small gains and says #NUM!)
    irr = comparison.finance.irr_per_year if comparison.finance is not None else None
    guess = (1 + irr) ** (1 / MONTHS_PER_YEAR) - 1 if irr is not None else r.finance.discount_rate_per_year / 12
    figures = [
        (
            f"IRR of owning vs {label} (yearly, from monthly IRR)",
            f'=IFERROR((1+IRR({gain},{guess!r}))^12-1,"not defined")',
            "1/year",
            rate,
        ),
        (
            f"MIRR of owning vs {label} (yearly; finance and reinvestment at the monthly discount rate)",
            f'=IFERROR((1+MIRR({gain},fin_monthly_rate,fin_monthly_rate))^12-1,"not defined")',
            "1/year",
            rate,
        ),
        (
            "investment (hardware, refresh, facility, loan payments)",
            "="
            + "+".join(
                f"SUM({m.span(k, sheet=True)})"
                for k in ("own_capex", "own_loan", "own_refresh", "own_facility")
                if k in m.letters
            ),
            r.currency,
            money,
        ),
    ]
    for title, formula, unit, style in figures:
        sheet.write_string(row, 0, title)
        sheet.write_formula(row, 1, formula, style)
        sheet.write_string(row, 2, unit)
        row += 1
    sheet.write_string(row, 0, f"ROI of owning vs {label} (net gain / investment)")
    sheet.write_formula(row, 1, f'=IF(B{row}>0,SUM({gain})/B{row},"not defined")', rate)
    sheet.write_string(row, 2, "-")
    row += 1
    for key, title, prefix in (("payback", "payback", ""), ("dpayback", "discounted payback", "d")):
        span = m.span(key, sheet=True)
        end = m.span(f"{prefix}position_end", m.horizon - 1, sheet=True).split(":")[0]
        below = m.span(f"{prefix}below", sheet=True)
        sheet.write_string(row, 0, f"{title} vs {label}, fractional")
        sheet.write_formula(row, 1, f'=IF({end}<0,"never within the horizon",IF(MAX({below})=0,0,MIN({span})))')
        sheet.write_string(
            row,
            2,
            "months after the decision (investment at the start of its month, savings "
            "at the end; where owning stays ahead for good)",
        )
        row += 1
    return row


def _summary_notes(sheet, r: Resolved, row: int) -> None:
    """Notes below the verdict on the further offers the workbook holds as values or leaves out."""
    rents = [r.label(o) for o, x in r.options.items() if x.kind == "rent" and o != "rent"]
    apis = [r.label(o) for o, x in r.options.items() if x.kind == "api" and o != "api"]
    notes = []
    if rents:
        notes.append(
            "note: the further rental offers (options.rents: " + ", ".join(rents) + ") are columns of "
            "values computed by costmodel, all on demand, not live formulas of the Inputs sheet"
        )
    if apis:
        notes.append(
            "note: the further API offers (options.apis: " + ", ".join(apis) + ") are not in this "
            "workbook; costmodel's verdict above ranks them"
        )
    for k, note in enumerate(notes):
        sheet.write_string(row + 1 + k, 0, note)


def _write_summary(
    book, sheet, r: Resolved, m: _Months, totals, against, years, comparison: Comparison, rented: str | None = None
) -> None:
    """The Summary sheet: TCO and present values (before and after tax), the returns of owning, the verdict.

    ``rented``: the candidate of the rent option's other way to pay whose lines :func:`_rented_terms_columns`
    wrote (its TCO and present value follow the options'), or None."""
    bold = book.add_format({"bold": True})
    money = book.add_format({"num_format": "#,##0.00"})
    rate = book.add_format({"num_format": "0.0000%"})
    fin = r.finance
    sheet.set_column(0, 0, 60)
    sheet.set_column(1, 1, 22)
    sheet.set_column(2, 2, 40)
    sheet.set_column(3, 3, 30)
    sheet.freeze_panes(1, 0)
    sheet.write_string(0, 0, r.title, bold)
    sheet.write_string(1, 0, "reporting currency")
    sheet.write_string(1, 1, r.currency)
    sheet.write_string(2, 0, "present value convention")
    sheet.write_string(2, 1, f"{fin.npv.period}, {fin.npv.timing}")
    sheet.write_string(
        2,
        2,
        "present value of costs: lower is better; begin = first period at time 0 "
        "(numpy-financial npv), end = Excel NPV",
    )
    row = 4
    for col, head in enumerate(("figure", "value", "unit", "option")):
        sheet.write_string(row, col, head, bold)
    lowest, pvs = _present_value_rows(sheet, r, m, totals, years, row + 1, money)
    live = dict(zip(totals, pvs, strict=True))
    if rented is not None:
        label = comparison.decision.candidates[rented].label
        sheet.write_string(lowest, 0, f"TCO, {label}")
        sheet.write_formula(lowest, 1, f"=SUM({m.span('terms_total', sheet=True)})", money)
        sheet.write_string(lowest, 2, r.currency)
        sheet.write_string(lowest + 1, 0, f"present value of costs, {label}")
        sheet.write_formula(lowest + 1, 1, _present_value_formula(r, m, "terms", years), money)
        sheet.write_string(lowest + 1, 2, r.currency)
        live[rented] = f"B{lowest + 2}"
        lowest += 2
    row = lowest
    if fin.tax is not None:
        row = _after_tax_rows(sheet, r, m, totals, row, money)
    row += 2
    if against is not None:
        row = _returns_rows(sheet, r, m, against, comparison, row, money, rate)
    row += 1
    ranked = _ranked(comparison, live, Measure.PRESENT_VALUE)
    _lowest_row(sheet, lowest, row, len(ranked), comparison)
    row = _verdict(book, sheet, row, ranked, comparison)
    _summary_notes(sheet, r, row)


VALUE_NOTE = (
    "costmodel's figure on the decision measure (a value: no cell of this workbook computes it): "
    "change the scenario, then export again."
)
"""The note on a verdict figure written as a value."""


def _ranked(comparison: Comparison, live: dict[str, str], measure: Measure) -> list[tuple[str, str | float]]:
    """What costmodel's decision ranks, for the workbook's verdict: each candidate's label, and the cell
    that computes its figure (``live``: option → A1 cell) when the decision is on ``measure``, else its
    figure as a value (a way to pay, the mix, the plan, or another measure: hour by hour, the whole run).
    """
    d = comparison.decision
    on_live = d.measure == measure
    return [(x.label, live[x.id] if on_live and x.id in live else x.figure) for x in d.candidates.values()]


def _verdict(
    book, sheet, row: int, ranked: list[tuple[str, str | float]], comparison: Comparison, currency: str = "B2"
) -> int:
    """The decision's candidates' figures in a block, the verdict as a formula over them, and costmodel's
    own sentence.

    ``ranked`` holds each candidate's label and the A1 cell of its figure, or the figure itself where no
    cell of the workbook computes it (written as a value marked "change in the scenario, then export
    again"), as :func:`_ranked` makes it: the verdict ranks what costmodel's decision ranks, on its one
    measure. ``currency`` is the cell of the currency code. The verdict formula refers to the cells that
    hold the labels, never to their text, and follows every edit; costmodel's sentence below it is the
    verdict at the inputs as exported. Returns the next free row.
    """
    d = comparison.decision
    measure = MEASURE_TITLES[Measure(d.measure)]
    per = "/month" if d.unit.endswith("/month") else ""
    if d.unit.endswith("successful tasks"):  # "USD/1,000 successful tasks": the currency cell, then the rest
        per = "/" + d.unit.split("/", 1)[1]
    bold = book.add_format({"bold": True})
    money = book.add_format({"num_format": "#,##0.00"})
    sheet.write_string(row, 0, f"{measure} by option", bold)
    sheet.write_formula(row, 1, f'="["&{currency}&"{per}]"')
    first = row + 1
    fixed = book.add_format({"num_format": "#,##0.00", "italic": True, "bg_color": "#D9D9D9"})
    for k, (label, cell) in enumerate(ranked):
        sheet.write_string(first + k, 0, label)
        if isinstance(cell, str):
            sheet.write_formula(first + k, 1, f"={cell}", money)
        else:
            sheet.write_number(first + k, 1, float(cell), fixed)
            sheet.write_comment(first + k, 1, VALUE_NOTE, {"x_scale": 2, "y_scale": 1.5})
    last = first + len(ranked) - 1
    labels, values = _candidate_ranges(row, len(ranked))
    lowest, second = f"MIN({values})", f"SMALL({values},2)"

    def name(value):
        return _named(labels, values, value)

    # two decimals, as the figures above it (and costmodel's sentence below it) print them
    amount = f'TEXT({{}},"#,##0.00")&" "&{currency}' + (f'&"{per}"' if per else "")
    rest = (
        f'IF(COUNT({values})<2,".",IF({second}={lowest},", tied with another option.",'
        f'", "&{amount.format(f"{second}-{lowest}")}&" less than "&{name(second)}&"."))'
    )
    row = last + 2
    sheet.write_string(row, 0, "verdict (a formula of the figures above: it follows every edit)", bold)
    sheet.write_formula(row + 1, 0, f'={name(lowest)}&" has the lowest {measure}: "&{amount.format(lowest)}&{rest}')
    sheet.write_string(
        row + 3,
        0,
        "costmodel's verdict for the scenario as exported (text: it does not follow edits in this workbook)",
        bold,
    )
    sheet.write_string(row + 4, 0, decision_sentence(comparison))
    return row + 6


def _candidate_ranges(row: int, count: int) -> tuple[str, str]:
    """The A1 ranges of the labels and the figures of the decision's candidates in the block :func:`_verdict`
    writes at ``row`` (0-based) for ``count`` candidates."""
    first, last = row + 2, row + 1 + count  # 1-based: the block's title row, then one row a candidate
    return f"$A${first}:$A${last}", f"$B${first}:$B${last}"


def _named(labels: str, values: str, value: str) -> str:
    """The label of the candidate whose figure is ``value``, as a formula of the candidates' block."""
    return f"INDEX({labels},MATCH({value},{values},0))"


def _lowest_row(sheet, row: int, verdict: int, count: int, comparison: Comparison) -> None:
    """The candidate with the lowest figure on the decision measure, as a formula of the verdict's block.

    It picks among what costmodel's decision ranks (:func:`costmodel.domain.decision.decide`: each way to
    pay, the cheapest mix, the capacity plan), on its one measure, from the block :func:`_verdict` writes at
    row ``verdict`` for ``count`` candidates, so that it names the verdict's winner and follows the same
    edits. The formula refers to the cells that hold the labels, never to their text.
    """
    labels, values = _candidate_ranges(verdict, count)
    sheet.write_string(row, 0, f"lowest {MEASURE_TITLES[Measure(comparison.decision.measure)]}")
    sheet.write_formula(row, 1, "=" + _named(labels, values, f"MIN({values})"))
    sheet.write_string(row, 2, "of the candidates in the verdict's block below (each way to pay, mix, plan)")


def yearly_cash_table(scenario: Scenario | Resolved, flows: CashFlows) -> pd.DataFrame:
    """Cash out of each option by line and year, as numbers: year, option, line, cash, currency."""
    import pandas as pd

    r = as_resolved(scenario)
    table = cash_flow_table(r, flows)
    table["year"] = (table["month"] // MONTHS_PER_YEAR + 1).astype(int)
    grouped = table.groupby(["year", "option", "line"], sort=False, as_index=False)["cash"].sum()
    assert isinstance(grouped, pd.DataFrame), "a sum grouped with as_index=False is a table"
    grouped["currency"] = r.currency
    return grouped


def export_tables(scenario: Scenario | Resolved, folder: str | Path, kind: str = "csv") -> list[Path]:
    """Write the monthly and yearly cash-flow tables as CSV (each with its CSVW sidecar) or Parquet files in
    ``folder``.

    Both files are written aside and renamed into place only when both are whole (see
    :func:`export_files`).

    Raises
    ------
    ValueError
        ``kind`` is not csv or parquet, or no finance block.
    ExtraNotInstalled
        Parquet without pyarrow (``pip install 'costmodel[parquet]'``).
    OutputPathError
        ``folder`` is a file, or in one, or cannot be made.
    """
    if kind not in ("csv", "parquet"):
        raise ValueError(f"export format must be csv or parquet, got {kind!r}")
    if kind == "csv":
        return export_files(scenario, csv=folder)
    return export_files(scenario, parquet=folder)


def _table_writers(r: Resolved, folder: Path, kind: str) -> list:
    """``(path, write)`` of the monthly and yearly cash-flow tables in ``folder``, typed by
    :data:`costmodel.columns.CASH_FLOWS_BY_MONTH` and ``_BY_YEAR`` (a CSV file with its CSVW sidecar)."""
    from ..columns import CASH_FLOWS_BY_MONTH, CASH_FLOWS_BY_YEAR, metadata_name
    from ..extras import need

    if r.finance is None:
        raise ValueError("cash-flow tables need a finance block (horizon, discount rate) in the scenario")
    if kind == "parquet":
        need("pyarrow", "costmodel export --parquet")
    flows = cash_flows(r)
    writers = []
    for table, frame in (
        (CASH_FLOWS_BY_MONTH, cash_flow_table(r, flows)),
        (CASH_FLOWS_BY_YEAR, yearly_cash_table(r, flows)),
    ):
        frame = table.typed(frame)
        if kind == "csv":
            name = f"{table.name}.csv"
            writers.append((folder / name, lambda path, frame=frame: write_csv(frame, path)))
            writers.append((folder / metadata_name(name), table.csv_metadata_writer(frame, name)))
        else:
            writers.append((folder / f"{table.name}.parquet", table.parquet_writer(frame)))
    return writers


def export_files(
    scenario: Scenario | Resolved,
    xlsx: str | Path | None = None,
    csv: str | Path | None = None,
    parquet: str | Path | None = None,
    comparison: Comparison | None = None,
) -> list[Path]:
    """Write the workbook and the cash-flow tables asked for, all or none.

    Every output is computed first, then each file is written beside its final place, and all are
    renamed into place only once all are whole (:func:`costmodel.files.write_all_atomically`): a
    failure or an interrupt leaves the earlier files as they were. Missing folders are made.
    CSV and workbook text cells go through :func:`costmodel.files.spreadsheet_text`; Parquet
    files, for programs, hold the text as it is.

    Parameters
    ----------
    scenario
        A scenario; the CSV and Parquet tables need a ``finance`` block, the workbook does not.
    xlsx
        The workbook file (:func:`write_workbook`), or None.
    csv, parquet
        Folders for ``cash_flows_by_month`` and ``cash_flows_by_year`` in that format, or None.
    comparison
        The scenario's comparison, if already made (for the workbook's verdict).

    Returns
    -------
    list of pathlib.Path
        The files written: the workbook first, then each CSV file and its CSVW sidecar
        (``NAME.csv-metadata.json``: types, units, descriptions), then the Parquet files (units in
        the fields' metadata); the columns are :mod:`costmodel.columns`'.

    Raises
    ------
    ValueError
        Tables without a finance block, or a workbook formula that gives an error or a number that is
        not finite.
    ExtraNotInstalled
        Parquet without pyarrow (``pip install 'costmodel[parquet]'``).
    OutputPathError
        ``xlsx`` does not end in ``.xlsx`` or is not a regular file (a folder, a FIFO, a device),
        ``csv`` or ``parquet`` is not a folder or holds a table's name that is not a regular file,
        or a folder on the way is a file.
    """
    targets = []
    if xlsx is not None:
        targets.append(("--xlsx", output_file(xlsx, "--xlsx", suffix=".xlsx"), None))
    for kind, folder in (("csv", csv), ("parquet", parquet)):
        if folder is not None:
            targets.append((f"--{kind}", output_folder(folder, f"--{kind}"), kind))
    r = as_resolved(scenario)
    writers = []
    for option, path, kind in targets:
        made = [(path, _workbook_writer(r, comparison))] if kind is None else _table_writers(r, path, kind)
        for table, _ in made if kind is not None else ():  # a FIFO named like a table: refused now
            output_file(table, option)
        writers += made
    for option, path, kind in targets:  # made only once every output is computed
        made_folder(path.absolute().parent if kind is None else path, option)
    return write_all_atomically(writers)


__all__ = ["export_files", "export_tables", "write_workbook", "yearly_cash_table"]

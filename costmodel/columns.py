"""The columns of the tables costmodel writes: one definition for every CSV and Parquet writer.

Each table (:data:`PORTFOLIO`, :data:`CASH_FLOWS_BY_MONTH`, :data:`CASH_FLOWS_BY_YEAR`) lists its
columns in order, each with one type, a unit and a description. The writers use it so that

- a column has the same type whatever the rows hold: a table with no row, or with every cell of
  a column empty, has every column, typed (``text``: Arrow ``large_string``; ``number``:
  ``float64``; ``whole``: ``int64``; an empty cell is null, never NaN or "nan");
- a column that holds the same figure has the same name, type and unit in every table
  (``currency`` in the portfolio and the cash-flow tables), so the outputs of ``batch``,
  ``batch --sweep`` and ``export`` concatenate;
- the units travel with the file: a Parquet field's metadata holds ``unit`` and ``description``;
  a CSV file ``NAME.csv`` gets a sidecar ``NAME.csv-metadata.json`` in the W3C "CSV on the Web"
  format [1]_ (its name is the one a CSVW processor looks for), each column with its ``datatype``,
  ``schema:unitText`` and ``dc:description``. The CSV keeps plain column names (no units in the
  header, no row of units under it), so every CSV reader reads it as before.

A unit may name another column in braces: ``{currency}/month``. Where every row of the table
holds the same value there (one scenario, or one currency over a whole portfolio), the unit is
written with it (``USD/month``); otherwise the braces stay, meaning "the row's ``currency``".

References
----------
.. [1] W3C (2015), "Metadata Vocabulary for Tabular Data", W3C Recommendation,
   https://www.w3.org/TR/tabular-metadata/ ; locating metadata:
   https://www.w3.org/TR/tabular-data-model/#locating-metadata
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .extras import need

if TYPE_CHECKING:
    import pandas as pd

COLUMN_KINDS = {
    "text": ("string", "large_string", "string"),
    "number": ("float64", "float64", "double"),
    "whole": ("Int64", "int64", "integer"),
}
"""Column kind → its pandas dtype, Arrow type and CSVW datatype."""

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Column:
    """One column of a table.

    Attributes
    ----------
    name
        The column's name (for a family, the prefix of its names).
    kind
        ``text``, ``number`` or ``whole`` (see :data:`COLUMN_KINDS`).
    unit
        Its unit, ``-`` for text and pure numbers; ``{column}`` stands for the row's value of
        another column (``{currency}/month``).
    description
        What it holds.
    """

    name: str
    kind: str
    unit: str
    description: str


@dataclass(frozen=True)
class Table:
    """The columns of one table, in order.

    Attributes
    ----------
    name
        The table's file name without its suffix.
    title
        One line on what a row is.
    columns
        The fixed columns, in order: every file of the table has them all.
    families
        Columns that some tables add, matched by prefix (``cost_api:<offer>`` for a further API offer).
    extra
        How any other column is typed (a swept input of a sweep: a number).
    """

    name: str
    title: str
    columns: tuple[Column, ...]
    families: tuple[Column, ...] = ()
    extra: Column | None = None

    def names(self) -> list[str]:
        """The fixed columns' names, in order."""
        return [c.name for c in self.columns]

    def column(self, name: str, units: dict[str, str] | None = None) -> Column:
        """The definition of a column of this table: fixed, of a family, or an extra one.

        Parameters
        ----------
        name
            The column's name.
        units
            Units of extra columns (a sweep's inputs), by name.

        Raises
        ------
        KeyError
            A column the table does not define (and no extra column is allowed).
        """
        for c in self.columns:
            if c.name == name:
                return c
        for c in self.families:
            if name.startswith(c.name):
                return Column(name, c.kind, c.unit, c.description)
        if self.extra is None:
            raise KeyError(f"{self.name}: no column {name!r} (columns: {', '.join(self.names())})")
        return Column(name, self.extra.kind, (units or {}).get(name, self.extra.unit), self.extra.description)

    def typed(self, frame, units: dict[str, str] | None = None):
        """``frame`` with this table's columns and types: the fixed columns first (empty where ``frame`` lacks
        one), then its other columns in their order, each of its kind's dtype.

        Parameters
        ----------
        frame
            A pandas DataFrame (possibly with no row).
        units
            Units of extra columns, by name.

        Raises
        ------
        ValueError
            A cell of a ``number`` or ``whole`` column that is not a number (the message names the
            table, the column and the value).
        """
        import pandas as pd

        names = self.names() + [c for c in frame.columns if c not in self.names()]
        typed = pd.DataFrame(index=frame.index)
        for name in names:
            column = self.column(name, units)
            values = frame[name] if name in frame.columns else pd.Series(None, index=frame.index, dtype=object)
            typed[name] = _cast(values, column, self.name)
        return typed.reset_index(drop=True)

    def units(self, frame, units: dict[str, str] | None = None) -> dict[str, str]:
        """Each column's unit in ``frame``, ``{column}`` replaced where every row holds one value there."""
        found = {}
        for name in frame.columns:
            unit = self.column(name, units).unit

            def value(match, unit=unit):
                other = match.group(1)
                held = frame[other].dropna().unique() if other in frame.columns else []
                return str(held[0]) if len(held) == 1 else match.group(0)

            found[name] = _PLACEHOLDER.sub(value, unit)
        return found

    def arrow_schema(self, frame, units: dict[str, str] | None = None):
        """The pyarrow schema of ``frame`` (typed by :meth:`typed`): each field typed by its kind, with
        ``unit`` and ``description`` in its metadata.

        Raises
        ------
        ExtraNotInstalled
            pyarrow is not installed.
        """
        pa = need("pyarrow", "Parquet output")
        shown = self.units(frame, units)
        return pa.schema(
            [
                pa.field(
                    name,
                    getattr(pa, COLUMN_KINDS[self.column(name, units).kind][1])(),
                    nullable=True,
                    metadata={"unit": shown[name], "description": self.column(name, units).description},
                )
                for name in frame.columns
            ],
            metadata={"table": self.name, "title": self.title},
        )

    def csv_metadata(self, frame, csv_name: str, units: dict[str, str] | None = None) -> dict[str, Any]:
        """The CSVW metadata of ``frame`` written as ``csv_name`` (a JSON-LD document, see the module's notes)."""
        shown = self.units(frame, units)
        columns = []
        for name in frame.columns:
            column = self.column(name, units)
            columns.append(
                {
                    "name": name,
                    "titles": name,
                    "datatype": COLUMN_KINDS[column.kind][2],
                    "schema:unitText": shown[name],
                    "dc:description": column.description,
                }
            )
        return {
            "@context": "http://www.w3.org/ns/csvw",
            "url": csv_name,
            "dc:title": self.title,
            "tableSchema": {"columns": columns},
        }

    def parquet_writer(self, frame, units: dict[str, str] | None = None):
        """A function of a path that writes ``frame`` (typed by :meth:`typed`) there as Parquet.

        pyarrow is looked for now, so a missing extra is reported before anything is written.

        Raises
        ------
        ExtraNotInstalled
            pyarrow is not installed.
        """
        schema = self.arrow_schema(frame, units)
        return lambda path: frame.to_parquet(path, index=False, schema=schema)

    def csv_metadata_writer(self, frame, csv_name: str, units: dict[str, str] | None = None):
        """A function of a path that writes the CSVW metadata of ``frame`` (written as ``csv_name``) there."""
        text = json.dumps(self.csv_metadata(frame, csv_name, units), indent=2, ensure_ascii=False, allow_nan=False)
        return lambda path: Path(path).write_text(text + "\n", encoding="utf-8")


def metadata_name(csv_name: str) -> str:
    """The CSVW sidecar's file name of a CSV file (``portfolio.csv`` → ``portfolio.csv-metadata.json``)."""
    return f"{csv_name}-metadata.json"


def _cast(values: pd.Series, column: Column, table: str) -> pd.Series:
    """A pandas Series of ``column``'s dtype from ``values``; a non-number in a number column is an error."""
    import numpy as np
    import pandas as pd

    if column.kind == "text":
        return values.astype("string")  # None and NaN become <NA>, anything else its text
    if column.kind == "whole" and str(values.dtype) == "Int64":
        return values  # typed already (a frame typed once, then written)
    numbers = cast("pd.Series", pd.to_numeric(values, errors="coerce"))  # a Series in, a Series out
    bad = values.notna() & numbers.isna()
    if bad.any():
        raise ValueError(f"{table}: column {column.name}: {values.loc[bad].iloc[0]!r} is not a number")
    if column.kind == "whole":
        whole = numbers.dropna()
        if (whole != whole.round()).any():
            raise ValueError(
                f"{table}: column {column.name}: "
                f"{float(whole.loc[whole != whole.round()].iloc[0]):g} is not a whole number"
            )
        return numbers.astype("Float64").astype("Int64")
    floats = numbers.astype("float64")
    if np.isinf(floats.to_numpy(dtype=float)).any():
        raise ValueError(f"{table}: column {column.name}: holds an infinite number")
    return floats


OPTIONS = ("own", "rent", "api")
"""The options with columns of their own in the portfolio (in that order)."""

_PAIRS = (("own", "rent"), ("own", "api"), ("rent", "api"))

_LABELS = {"own": "owning the cluster", "rent": "renting GPUs", "api": "the hosted API"}

SCENARIO = Column("scenario", "text", "-", "The scenario: a bundled name or the scenario file's path, as given.")
CURRENCY = Column("currency", "text", "-", "The reporting currency (ISO 4217 code) of every amount in the row.")
OPTION = Column("option", "text", "-", "The option: own, rent or api (further offers: rent:<name>, api:<name>).")

PORTFOLIO = Table(
    "portfolio",
    "One row per scenario file, or per point of a sweep (costmodel batch).",
    (
        SCENARIO,
        Column("point", "whole", "-", "Number of the sweep point (from 0); empty for a scenario file."),
        Column("title", "text", "-", "The scenario's title."),
        Column("volume", "number", "{volume_unit}", "The workload volume compared at."),
        Column("volume_unit", "text", "-", "Unit of the workload volume: tokens/day or GPU-hours/month."),
        CURRENCY,
        *(
            Column(
                f"cost_{o}",
                "number",
                "{currency}/month",
                f"Monthly cost of {_LABELS[o]} in the monthly view, at the "
                "volume as configured; empty: the scenario has no such option.",
            )
            for o in OPTIONS
        ),
        Column(
            "decision_measure",
            "text",
            "-",
            "The measure the decision ranks on (present_value, run_cost, monthly_cost_hour_by_hour or monthly_cost).",
        ),
        Column("decision_unit", "text", "-", "Unit of the decision's figures: the currency, or the currency a month."),
        Column("winner", "text", "-", "The cheapest candidate on the decision measure."),
        Column("winner_label", "text", "-", "The winner as the report names it."),
        Column("winner_figure", "number", "{decision_unit}", "The winner's figure on the decision measure."),
        Column("runner_up", "text", "-", "The second cheapest candidate; empty with one candidate."),
        Column("margin", "number", "{decision_unit}", "The runner-up's figure minus the winner's."),
        *(
            Column(f"decision_{o}", "number", "{decision_unit}", f"The figure of {_LABELS[o]} on the decision measure.")
            for o in OPTIONS
        ),
        *(
            Column(
                f"break_even_{a}_{b}",
                "number",
                "{volume_unit}",
                f"Volume at which {_LABELS[a]} and {_LABELS[b]} cost "
                "the same; empty: none from 0 to 10 times the volume.",
            )
            for a, b in _PAIRS
        ),
        *(
            Column(
                f"npv_{o}",
                "number",
                "{currency}",
                f"Present value of the costs of {_LABELS[o]} over the horizon; empty without a finance block.",
            )
            for o in OPTIONS
        ),
        *(
            Column(
                f"tco_{o}",
                "number",
                "{currency}",
                f"Total cost of {_LABELS[o]} over the horizon, undiscounted; empty without a finance block.",
            )
            for o in OPTIONS
        ),
        Column(
            "warnings",
            "text",
            "-",
            "compare's warnings (not errors), separated by '; ': the unsourced estimates the row rests on, a "
            "training run's plausibility warnings (a scenario's row only), inputs the comparison does not use, "
            "catalog rows their provider withdrew.",
        ),
        Column("error", "text", "-", "Why the scenario could not be evaluated; empty when it was."),
    ),
    families=(
        Column("cost_", "number", "{currency}/month", "Monthly cost of a further offer (options.apis)."),
        Column("decision_", "number", "{decision_unit}", "A further offer's figure on the decision measure."),
        Column("npv_", "number", "{currency}", "Present value of a further offer's costs over the horizon."),
        Column("tco_", "number", "{currency}", "Total cost of a further offer over the horizon."),
        Column(
            "break_even_",
            "number",
            "{volume_unit}",
            "Volume at which the two options named (a further "
            "offer: api:<name>, rent:<name>) cost the same; empty: none from 0 to 10 times the volume.",
        ),
    ),
    extra=Column("", "number", "-", "A swept input (a path of the scenario), at this point's value."),
)
"""costmodel batch's portfolio.csv / portfolio.parquet (and a sweep's: the swept inputs come last)."""

_CASH = (
    OPTION,
    Column("line", "text", "-", "The line of the option's cash flow (capex, power, rental, ...)."),
    Column("cash", "number", "{currency}", "Cash out in the period (negative: cash in, as a resale)."),
    CURRENCY,
)

CASH_FLOWS_BY_MONTH = Table(
    "cash_flows_by_month",
    "Cash out of each option by line and month of the horizon (costmodel export).",
    (Column("month", "whole", "month", "Month of the horizon, 0 the month of the decision."), *_CASH),
)
"""costmodel export's cash_flows_by_month.csv / .parquet."""

CASH_FLOWS_BY_YEAR = Table(
    "cash_flows_by_year",
    "Cash out of each option by line and year of the horizon (costmodel export).",
    (Column("year", "whole", "year", "Year of the horizon, 1 the first twelve months."), *_CASH),
)
"""costmodel export's cash_flows_by_year.csv / .parquet."""

TABLES = {t.name: t for t in (PORTFOLIO, CASH_FLOWS_BY_MONTH, CASH_FLOWS_BY_YEAR)}
"""Every table costmodel writes, by file name."""

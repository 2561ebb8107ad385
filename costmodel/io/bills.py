"""Cloud and API bills read row by row: a FOCUS 1.x cost-and-usage export or a LiteLLM spend log.

Money is read as :class:`decimal.Decimal` so that sums reproduce the file's totals to the cent.
Every bad row is named with its line (CSV: the file's line, the header being line 1; JSON: the
item's position, from 1); nothing is guessed: a missing required column or a row that cannot be
read is an :class:`~costmodel.errors.InputError` listing every problem found.

References
----------
FinOps Foundation, *FinOps Open Cost and Usage Specification (FOCUS)*, version 1.2 (2025),
section 3 "Column definitions": https://focus.finops.org/focus-specification/
LiteLLM, *Spend tracking*, the ``LiteLLM_SpendLogs`` table:
https://docs.litellm.ai/docs/proxy/cost_tracking
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
import re
import zlib
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Literal

from ..errors import InputError
from ..extras import need
from ..files import file_problem
from ..units import LARGEST_INPUT
from .demand_files import MAX_FILE_BYTES

BillFormat = Literal["focus", "litellm"]

FOCUS_REQUIRED = ("BilledCost", "BillingCurrency", "ChargePeriodStart", "ChargePeriodEnd")
"""FOCUS columns a bill must have (FOCUS 1.2 sections 3.x: mandatory in every version 1.0-1.2)."""

FOCUS_PROVIDER = ("ProviderName", "ServiceProviderName")
"""The provider's column: ProviderName (FOCUS 1.0-1.2), ServiceProviderName (its successor)."""

FOCUS_NAME_COLUMNS = (
    "ResourceType",
    "SkuId",
    "SkuPriceId",
    "SkuMeter",
    "SkuPriceDetails",
    "ResourceName",
    "ChargeDescription",
    "Tags",
)
"""FOCUS columns that may name the instance type of a row (and every provider-defined ``x_`` column):
AWS writes it in ResourceType and its usage type (``x_UsageType``: ``BoxUsage:p5.48xlarge``) and
ChargeDescription, Azure in x_SkuMeterName and x_SkuDetails (``Standard_ND96isr_H100_v5``), Google
Cloud in SKU descriptions (FOCUS 1.2 sections 3.x; the providers' FOCUS export documentation)."""

LITELLM_REQUIRED = ("spend", "startTime", "endTime", "model")
"""LiteLLM_SpendLogs columns a spend log must have."""

MAX_PROBLEMS = 20
"""Problems listed in one error at most."""

_LARGEST = Decimal(LARGEST_INPUT)
"""Largest magnitude of a number read (a cost, a quantity, a token count): a scenario's limit,
:data:`costmodel.units.LARGEST_INPUT`. A sum of a billion such costs still keeps its cents within
the 28 digits of decimal arithmetic (the default context). There is no lower limit: a bill holds
tiny costs (the FOCUS 1.0 sample data bills 4.0E-10 USD)."""

_TOO_LARGE = f"magnitude above {LARGEST_INPUT:g}: no real input is that large"
"""The rule a number beyond :data:`_LARGEST` breaks, in the words of a scenario's magnitude rule."""


@dataclass(frozen=True)
class BillRow:
    """One charge of a bill, as read.

    Attributes
    ----------
    line
        Line of the file (CSV) or position of the item (JSON) the row came from.
    start, end
        Charge period, in UTC. [datetime]
    billed_cost, effective_cost
        Cost invoiced and cost after discounts and amortised commitments. [currency]
    currency
        ISO 4217 code of the costs.
    provider, service, service_category, charge_category
        Who charged, for which service, in which FOCUS category.
    names
        Texts that may name an instance type or SKU (:data:`FOCUS_NAME_COLUMNS` and x_ columns).
    consumed_quantity, consumed_unit
        Usage measured, and its unit (e.g. 192 Hours; 1,200,000 Tokens).
    model
        Model used, for API rows (LiteLLM ``model_group`` or ``model``; FOCUS x_ columns).
    input_tokens, output_tokens
        Tokens in and out where the file splits them. [tokens]
    """

    line: int
    start: dt.datetime
    end: dt.datetime
    billed_cost: Decimal
    effective_cost: Decimal
    currency: str
    provider: str
    service: str
    service_category: str
    charge_category: str
    names: tuple[str, ...]
    consumed_quantity: Decimal | None
    consumed_unit: str
    model: str
    input_tokens: Decimal | None = None
    output_tokens: Decimal | None = None


class _Unreadable(ValueError):
    """A file whose bytes are not what its kind needs (a cut gzip stream, a file that is not Parquet)."""


def _open_text(path: Path) -> str:
    """The text of a CSV or JSON bill, gunzipped when it starts with gzip's magic bytes.

    Raises
    ------
    _Unreadable
        A gzip stream that is cut short or corrupt, or that unpacks to more than
        :data:`~costmodel.io.demand_files.MAX_FILE_BYTES` (read no further).
    """
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
                raw = stream.read(MAX_FILE_BYTES + 1)
        except (EOFError, OSError, zlib.error) as exc:
            raise _Unreadable(f"not a whole gzip file: {exc}") from None
        if len(raw) > MAX_FILE_BYTES:
            raise _Unreadable(f"unpacks to more than the {MAX_FILE_BYTES:,}-byte limit for a bill")
    return raw.decode("utf-8-sig")


@dataclass(frozen=True)
class _Ragged:
    """A CSV line with another number of fields than the header: how many, and the line as read."""

    fields: int
    text: str


_Records = list[tuple[int, dict[str, str] | _Ragged]]
"""A file's rows with their line (CSV) or position (JSON, Parquet): each row as ``column: text``, or
:class:`_Ragged` when a CSV line has another number of fields than the header."""


def _records(path: Path) -> tuple[list[str], _Records]:
    """The file's column names and its rows as text, each with its line (CSV) or position (JSON)."""
    if path.suffix.lower() == ".parquet":
        pq = need("pyarrow.parquet", "reading a Parquet bill")
        try:
            table = pq.read_table(path)
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise _Unreadable(f"not a Parquet file: {exc}") from None
        columns = [str(name) for name in table.column_names]
        rows: _Records = [
            (number, {k: "" if v is None else str(v) for k, v in item.items()})
            for number, item in enumerate(table.to_pylist(), start=1)
        ]
        return columns, rows
    text = _open_text(path)
    if text.lstrip().startswith(("[", "{")):
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
        columns: list[str] = []
        rows = []
        for number, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise InputError(path, [(f"item {number}", item, "not an object of column: value")])
            for key in item:
                if key not in columns:
                    columns.append(str(key))
            rows.append((number, {str(k): "" if v is None else str(v) for k, v in item.items()}))
        return columns, rows
    header = text.lstrip().split("\n", 1)[0]
    semicolons = header.count(";") > header.count(",")
    delimiter = ";" if semicolons else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    columns = [name.strip() for name in next(reader, [])]
    rows = []
    for fields in reader:
        if not fields:
            continue  # a blank line
        # the reader's line_num is the last physical line read: the row's line for one-line rows
        if len(fields) != len(columns):
            rows.append((reader.line_num, _Ragged(len(fields), _joined(fields, delimiter))))
            continue
        rows.append((reader.line_num, {k: _cell(v, semicolons) for k, v in zip(columns, fields, strict=True)}))
    return columns, rows


_DECIMAL_COMMA = re.compile(r"^\s*-?\d+,\d+\s*$")
"""A number written with a decimal comma (``12,50``), as a semicolon-separated export writes it."""


def _joined(fields: list[str], delimiter: str) -> str:
    """A CSV line's fields as the line (quoted where needed), to show a ragged row as written."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="").writerow(fields)
    return out.getvalue()


def _cell(text: str, semicolons: bool) -> str:
    """A CSV cell as text: ``NULL`` (a database dump's missing value) is empty, and in a
    semicolon-separated file a decimal comma is a decimal point."""
    if text.strip() == "NULL":
        return ""
    if semicolons and _DECIMAL_COMMA.match(text):
        return text.replace(",", ".")
    return text


def detect_format(columns: list[str], path: Path | str) -> BillFormat:
    """``focus`` or ``litellm`` from the column names; an error naming them when neither fits."""
    have = set(columns)
    if {"BilledCost", "ChargePeriodStart"} <= have:
        return "focus"
    if {"spend", "startTime"} <= have:
        return "litellm"
    raise InputError(
        path,
        [
            (
                "(columns)",
                ", ".join(columns[:30]),
                "neither a FOCUS export (needs BilledCost and ChargePeriodStart) nor a LiteLLM spend log "
                "(needs spend and startTime); give --format",
            )
        ],
    )


def _time(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)  # FOCUS date-times are UTC (FOCUS 1.2 section 2.8)
    return value.astimezone(dt.UTC)


class _TooLarge(ValueError):
    """A number read whose magnitude is beyond :data:`_LARGEST`."""


def _money(text: str) -> Decimal:
    value = Decimal(text.strip())
    if not value.is_finite():
        raise InvalidOperation(text)
    if abs(value) > _LARGEST:
        raise _TooLarge(_TOO_LARGE)
    return value


def _optional_number(text: str) -> Decimal | None:
    return _money(text) if text.strip() else None


def _token_count(text: str) -> Decimal | None:
    """A request's token count: empty, or a whole number of at least 0 (``1e3`` is 1,000)."""
    value = _optional_number(text)
    if value is not None and (value < 0 or value != value.to_integral_value()):
        raise ValueError(text)
    return value


def read_bill(path: str | Path, fmt: BillFormat | None = None) -> tuple[BillFormat, list[BillRow]]:
    """The rows of a FOCUS export or a LiteLLM spend log (CSV, gzipped CSV, JSON or Parquet).

    Parameters
    ----------
    path
        The file.
    fmt
        ``focus`` or ``litellm``; ``None``: detected from the columns.

    Returns
    -------
    tuple
        The format read and the rows, in file order.

    Raises
    ------
    InputError
        A required column missing; no data rows; rows with another number of fields than the
        header, a non-numeric cost, a number of magnitude above :data:`costmodel.units.LARGEST_INPUT`,
        a LiteLLM token count that is not a whole number of at least 0, an unparseable date or an
        end before the start (each named with its line); or several currencies in one file.
    """
    path = Path(path)
    problem = file_problem(path, MAX_FILE_BYTES)  # a FIFO or /dev/zero would be read for ever
    if problem is not None:
        raise InputError(path, [("(file)", path.name, problem)])
    try:
        columns, records = _records(path)
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 text: byte {exc.object[exc.start]:#x} at offset {exc.start}"
        raise InputError(path, [("(file)", exc.object[max(0, exc.start - 20) : exc.end + 20], reason)]) from None
    except OSError as exc:
        raise InputError(path, [("(file)", path.name, f"cannot be read: {exc.strerror or exc}")]) from None
    except (json.JSONDecodeError, csv.Error) as exc:
        raise InputError(path, [("(file)", path.name, f"cannot be read: {exc}")]) from None
    except _Unreadable as exc:
        raise InputError(path, [("(file)", path.name, str(exc))]) from None
    except RecursionError:  # json.loads recurses once per nested list or object
        reason = "nested too deep to read: a spend log is a list of flat objects (column: value)"
        raise InputError(path, [("(file)", path.name, reason)]) from None
    chosen: BillFormat = fmt or detect_format(columns, path)
    required = FOCUS_REQUIRED if chosen == "focus" else LITELLM_REQUIRED
    missing = [name for name in required if name not in columns]
    if chosen == "focus" and not any(name in columns for name in FOCUS_PROVIDER):
        missing.append(" or ".join(FOCUS_PROVIDER))
    if missing and (columns or records):  # a JSON list with no items has no columns to miss
        raise InputError(path, [("(columns)", name, f"required {chosen} column missing") for name in missing])
    if not records:
        raise InputError(path, [("(rows)", 0, "no data rows: a bill needs at least one charge")])
    rows: list[BillRow] = []
    problems: list[tuple[str, str, str]] = []
    where = "line" if path.suffix.lower() not in (".json", ".parquet") else "item"
    name_columns = tuple(c for c in columns if c in FOCUS_NAME_COLUMNS or c.startswith("x_"))
    for number, record in records:
        if isinstance(record, _Ragged):
            reason = f"has {record.fields} fields; the header has {len(columns)}"
            problems.append((f"line {number}", record.text, reason))
            continue
        try:
            row = _focus_row(number, record, name_columns) if chosen == "focus" else _litellm_row(number, record)
        except _BadRow as bad:
            problems.append((f"{where} {number}, column {bad.column}", bad.value, bad.reason))
            continue
        rows.append(row)
    currencies = sorted({row.currency for row in rows})
    if len(currencies) > 1:
        problems.append(
            ("BillingCurrency", ", ".join(currencies), "several currencies in one file; split the file by currency")
        )
    if problems:
        more = len(problems) - MAX_PROBLEMS
        shown = problems[:MAX_PROBLEMS] + ([("(file)", "", f"and {more} more problems")] if more > 0 else [])
        raise InputError(path, shown)
    return chosen, rows


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]+")
"""Control characters, line breaks and tabs included."""


def _one_line(text: str) -> str:
    r"""A name as one line of text: each run of control characters (a line break, a tab, an escape) and
    spaces becomes one space, so that a provider, service or model reaches a table row, a label or a
    scenario file without breaking its line or colouring the terminal.

    Examples
    --------
    >>> _one_line(" Lam\x1b[2Jbda\nFake total ")
    'Lam [2Jbda Fake total'
    """
    return " ".join(_CONTROL.sub(" ", text).split())


class _BadRow(ValueError):
    def __init__(self, column: str, value: str, reason: str):
        super().__init__(reason)
        self.column, self.value, self.reason = column, value, reason


def _get(record: dict[str, str], column: str, read, reason: str):
    text = record.get(column, "")
    try:
        return read(text)
    except _TooLarge as exc:
        raise _BadRow(column, text, str(exc)) from None
    except (ValueError, InvalidOperation, ArithmeticError):
        raise _BadRow(column, text, reason) from None


def _period(record: dict[str, str], start_column: str, end_column: str) -> tuple[dt.datetime, dt.datetime]:
    start = _get(record, start_column, _time, "not an ISO 8601 date-time")
    end = _get(record, end_column, _time, "not an ISO 8601 date-time")
    if end < start:
        raise _BadRow(end_column, record[end_column], f"before {start_column} ({record[start_column]})")
    return start, end


def _focus_row(number: int, record: dict[str, str], name_columns: tuple[str, ...]) -> BillRow:
    billed = _get(record, "BilledCost", _money, "not a number")
    effective_text = record.get("EffectiveCost", "").strip()
    effective = _get(record, "EffectiveCost", _money, "not a number") if effective_text else billed
    start, end = _period(record, "ChargePeriodStart", "ChargePeriodEnd")
    currency = record["BillingCurrency"].strip()
    if not currency:
        raise _BadRow("BillingCurrency", "", "empty: every row needs its currency")
    provider = next((_one_line(record[c]) for c in FOCUS_PROVIDER if record.get(c, "").strip()), "")
    names = tuple(text for text in (record.get(column, "").strip() for column in name_columns) if text)
    unit = record.get("ConsumedUnit", "").strip()
    quantity = _get(record, "ConsumedQuantity", _optional_number, "not a number")
    model = next((_one_line(record[c]) for c in ("x_Model", "x_ModelName", "x_model") if record.get(c, "").strip()), "")
    direction = " ".join((record.get("SkuId", ""), record.get("x_TokenType", ""), unit)).lower()
    tokens_in = quantity if quantity is not None and "token" in unit.lower() and "input" in direction else None
    tokens_out = quantity if quantity is not None and "token" in unit.lower() and "output" in direction else None
    return BillRow(
        line=number,
        start=start,
        end=end,
        billed_cost=billed,
        effective_cost=effective,
        currency=currency,
        provider=provider,
        service=_one_line(record.get("ServiceName", "")),
        service_category=record.get("ServiceCategory", "").strip(),
        charge_category=record.get("ChargeCategory", "").strip(),
        names=names,
        consumed_quantity=quantity,
        consumed_unit=unit,
        model=model,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
    )


def _litellm_row(number: int, record: dict[str, str]) -> BillRow:
    spend = _get(record, "spend", _money, "not a number")
    start, end = _period(record, "startTime", "endTime")
    whole = "not a whole number of tokens of at least 0"
    prompt = _get(record, "prompt_tokens", _token_count, whole)
    completion = _get(record, "completion_tokens", _token_count, whole)
    total = _get(record, "total_tokens", _token_count, whole)
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    model = _one_line(record.get("model_group", "")) or _one_line(record["model"])
    return BillRow(
        line=number,
        start=start,
        end=end,
        billed_cost=spend,
        effective_cost=spend,
        currency="USD",  # LiteLLM prices its spend in USD (model_prices_and_context_window.json)
        provider=_one_line(record.get("custom_llm_provider", "")) or "LiteLLM",
        service=model,
        service_category="AI and Machine Learning",
        charge_category="Usage",
        names=(),
        consumed_quantity=total,
        consumed_unit="Tokens",
        model=model,
        input_tokens=prompt,
        output_tokens=completion,
    )


__all__ = [
    "FOCUS_NAME_COLUMNS",
    "FOCUS_REQUIRED",
    "LITELLM_REQUIRED",
    "BillFormat",
    "BillRow",
    "detect_format",
    "read_bill",
]

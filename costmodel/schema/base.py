"""What every input model shares: strict, frozen, no unknown fields, units in field metadata.

A numeric input field is declared with :func:`quantity`, which records its unit and a
human title in the field's metadata (``json_schema_extra``), so that tables, charts and
the JSON Schema name each input the same way. Money units are written with ``{currency}``,
filled in from the block's ``currency`` field (``"{currency}/kWh"``).

Numbers are strict: a boolean or a piece of text in a number field is an error that says
so (YAML's ``yes`` is not 1.0, ``"12"`` is not 12).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from typing import Annotated, Any, LiteralString

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import InitErrorDetails, PydanticCustomError, PydanticUndefined

from ..catalog import Catalog, default_catalog
from ..errors import worded_pattern

Number = Annotated[float, Field(strict=True)]
NonNegative = Annotated[float, Field(strict=True, ge=0)]
Positive = Annotated[float, Field(strict=True, gt=0)]
Share = Annotated[float, Field(strict=True, ge=0, le=1)]
PositiveShare = Annotated[float, Field(strict=True, gt=0, le=1)]
Whole = Annotated[int, Field(strict=True)]


def _no_boolean(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("bool_not_number", "must be a whole number, not true/false", {})
    return value


NotBoolean = BeforeValidator(_no_boolean)
"""For a ``Literal`` of whole numbers (a term of 1 or 3 years): Python's ``True == 1`` would let true
through, which neither the strict numbers nor the JSON Schema's ``integer`` take."""

SHORT_NAME = worded_pattern(
    r"^[a-z0-9][a-z0-9-]{0,39}$",
    "a short name: lower-case letters, digits and -, at most 40, starting with a letter or a digit",
)
"""The pattern of an option's or a request class's short name (``nebius``, ``batch-30``)."""

MAX_TEXT = 10_000
"""Most characters of a free-text field."""

_INVISIBLE = {"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"}
"""Unicode categories that show nothing: spaces, controls, format characters (zero-width space,
byte-order mark, direction marks), surrogates, private use and unassigned code points."""


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""A control character: below U+0020 but tab, line feed and carriage return, or U+007F to U+009F."""


def _text(value: str) -> str:
    """Free text as a reader will see it: no control characters but tab and line breaks, and, when not
    empty, some visible character (a zero-width space is no title)."""
    if len(value) > MAX_TEXT:
        raise PydanticCustomError(
            "text_too_long",
            "longer than {most} characters ({length})",
            {"most": f"{MAX_TEXT:,}", "length": f"{len(value):,}"},
        )
    found = _CONTROL.search(value)
    control = None if found is None else found.group()
    if control is not None:
        raise PydanticCustomError(
            "control_character",
            "holds the control character {code} at position {position}: text only",
            {"code": f"U+{ord(control):04X}", "position": value.index(control)},
        )
    if value and all(unicodedata.category(c) in _INVISIBLE for c in value):
        raise PydanticCustomError(
            "no_words", "only spaces or invisible characters: give some words or leave it out", {}
        )
    return value


TEXT_PATTERN = r"^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]*$"
"""JSON Schema pattern of free text: no control character but tab and line breaks (as :func:`_text` checks)."""


class _TextJsonSchema:
    """What of :func:`_text`'s rules JSON Schema can state: the longest text and no control characters
    (a field's own, shorter ``max_length`` stays)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        schema = handler(core_schema)
        schema["maxLength"] = min(schema.get("maxLength", MAX_TEXT), MAX_TEXT)
        schema["pattern"] = TEXT_PATTERN
        return schema


Text = Annotated[str, AfterValidator(_text), _TextJsonSchema()]
"""Free text (titles, descriptions, sources, labels): at most :data:`MAX_TEXT` characters, no control
characters but tab and line breaks, something visible when not empty."""


def _one_line(value: str) -> str:
    """A title, a label or a name is one line: it heads a line of the text output, where a line break
    would start a line of its own (a false "verdict:")."""
    if "\n" in value or "\r" in value:
        raise PydanticCustomError(
            "one_line",
            "one line of text: no line break (a YAML block scalar written > or | ends with one; write >-)",
            {},
        )
    return value


OneLine = Annotated[Text, AfterValidator(_one_line)]
"""Free text of one line (titles, labels, names): :data:`Text` without line breaks (LF, CR)."""

Source = Annotated[
    Text, Field(description="Where this block's figures come from: a document, a quote, a measurement, or ASSUMPTION.")
]
"""The source text of a block (free text, with a description of its own for editors)."""

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)
_ISO_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$", re.ASCII
)


def _calendar(pattern: re.Pattern, kind: str, example: str):
    def check(value: Any) -> Any:
        if isinstance(value, dt.date | dt.datetime):
            return value
        if isinstance(value, str) and pattern.match(value.strip()):
            text = value.strip()
            try:  # parsed here: the models are strict, and strict pydantic takes no text for a date
                return dt.date.fromisoformat(text) if pattern is _ISO_DATE else dt.datetime.fromisoformat(text)
            except ValueError:
                raise PydanticCustomError("calendar_day", "not a day of the calendar: {text}", {"text": text}) from None
        raise PydanticCustomError(
            "calendar_text",
            "must be {kind} written as {example}, not {got} (a number is not read as Unix time)",
            {"kind": kind, "example": example, "got": "a number" if isinstance(value, int | float) else "this"},
        )

    return check


Date = Annotated[
    dt.date,
    BeforeValidator(_calendar(_ISO_DATE, "a date", "2026-06-21")),
    WithJsonSchema({"type": "string", "pattern": r"^\s*[0-9]{4}-[0-9]{2}-[0-9]{2}\s*$"}),
]
"""A calendar date written as ISO 8601 text (``2026-06-21``), never a number."""

DateTime = Annotated[
    dt.datetime,
    BeforeValidator(_calendar(_ISO_DATE_TIME, "a date or a date-time", "2026-06-21 or 2026-06-21T12:00")),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\s*[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}"
            r"(?::[0-9]{2}(?:\.[0-9]{1,6})?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?\s*$",
        }
    ),
]
"""A date or a date-time written as ISO 8601 text (``2026-06-21``, ``2026-06-21T12:00``), never a number
read as Unix time."""


def quantity(
    default: Any = PydanticUndefined,
    *,
    unit: str,
    title: str,
    description: str = "",
    varies: bool = True,
    fixed_because: str = "sets a whole count or a size",
    **constraints: Any,
) -> Any:
    """A pydantic ``Field`` for a numeric input, with its unit and title in the metadata.

    Parameters
    ----------
    default
        Default value; omit for a required field.
    unit
        Unit, e.g. ``"kW"``, ``"{currency}/kWh"``, ``"-"`` for a pure number or share.
    title
        Short human name, e.g. ``"PUE"``, used in tables and charts.
    description
        One sentence on what the input means.
    varies
        False for an input that sets a whole count or a size (servers, GPUs rented, months
        of a horizon), or for one the model does not take as an array (a demand profile's
        shape): it cannot take an array of samples, so the uncertainty block refuses it and the
        claims check does not scan it.
    fixed_because
        With ``varies=False``: why, as a phrase that completes "the input ...", shown when the
        uncertainty block refuses it.
    **constraints
        ``ge``, ``gt``, ``le``, ``lt``, ... as for ``pydantic.Field``.
    """
    extra: dict[str, Any] = (
        {"unit": unit} if varies else {"unit": unit, "varies": False, "fixed_because": fixed_because}
    )
    text = f"{description} [{unit}]" if description else f"[{unit}]"
    if default is PydanticUndefined:
        return Field(title=title, description=text, json_schema_extra=extra, **constraints)
    return Field(default, title=title, description=text, json_schema_extra=extra, **constraints)


def varies(info: FieldInfo | None) -> bool:
    """Whether an input may take an array of samples (see :func:`quantity`)."""
    return not (
        info is not None and isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("varies") is False
    )


def fixed_because(info: FieldInfo | None) -> str:
    """Why an input that does not vary (:func:`varies` is False) cannot take an array of samples."""
    extra = info.json_schema_extra if info is not None and isinstance(info.json_schema_extra, dict) else {}
    return str(extra.get("fixed_because", "sets a whole count or a size"))


def unit_of(info: FieldInfo | None) -> str | None:
    """The unit recorded by :func:`quantity` on a field, if any."""
    if info is None or not isinstance(info.json_schema_extra, dict):
        return None
    unit = info.json_schema_extra.get("unit")
    return None if unit is None else str(unit)


# JSON Schema fragments for the rules that join a block's fields, given to a model as
# ``model_config = ConfigDict(json_schema_extra=rules(...))`` beside the validator that checks each, so the
# shipped schema (data/schemas/scenario.schema.json) refuses what the validator refuses. "Given" is the
# validator's "is not None": present and not null.


def given(*names: str) -> dict[str, Any]:
    """JSON Schema: a block (not null) in which each of the fields is given (present, not null)."""
    return {
        "type": "object",
        "required": list(names),
        "properties": {name: {"not": {"type": "null"}} for name in names},
    }


def absent(*names: str) -> dict[str, Any]:
    """JSON Schema: each of the fields is left out or null."""
    return {"properties": {name: {"type": "null"} for name in names}}


def left_at(**defaults: Any) -> dict[str, Any]:
    """JSON Schema: each field is left out or given its default value."""
    return {"properties": {name: {"const": value} for name, value in defaults.items()}}


def equals(**values: Any) -> dict[str, Any]:
    """JSON Schema: a block (not null) in which each field is given with this value."""
    return {
        "type": "object",
        "required": list(values),
        "properties": {name: {"const": value} for name, value in values.items()},
    }


def nonzero(name: str) -> dict[str, Any]:
    """JSON Schema: a block (not null) in which the field is given and not 0 (the validator's truth)."""
    return {
        "type": "object",
        "required": [name],
        "properties": {name: {"not": {"anyOf": [{"const": 0}, {"type": "null"}]}}},
    }


def inside(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema: a block (not null) whose field ``name`` is given and meets ``schema``."""
    return {"type": "object", "required": [name], "properties": {name: schema}}


def both(*schemas: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema: every one of the schemas holds."""
    return {"allOf": list(schemas)}


def either(*schemas: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema: at least one of the schemas holds."""
    return {"anyOf": list(schemas)}


def never(schema: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema: the schema does not hold."""
    return {"not": schema}


def one_of(*names: str) -> dict[str, Any]:
    """JSON Schema: exactly one of the fields is given."""
    return {"oneOf": [given(name) for name in names]}


def when(condition: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema: ``then`` holds wherever ``condition`` does."""
    return {"if": condition, "then": then}


def rules(*schemas: dict[str, Any]) -> dict[str, Any]:
    """A model's ``json_schema_extra``: every rule holds (``allOf``)."""
    return {"allOf": list(schemas)}


def without_negative_zero(value: Any) -> Any:
    """``value`` with every -0.0 in it (in lists and mappings too) read as 0.0, the rest as it is.

    A scenario may state -0.0 where a field allows zero (``ge=0``: -0.0 >= 0); read as given it
    would print "-0.0 %" or "-0" in a report. Only a Python float that equals zero is replaced, so
    a type strict validation refuses is still refused.

    Examples
    --------
    >>> without_negative_zero({"rate": -0.0, "template": [1.5, -0.0], "name": "x", "count": 0})
    {'rate': 0.0, 'template': [1.5, 0.0], 'name': 'x', 'count': 0}
    """
    if type(value) is float:
        return 0.0 if value == 0.0 else value
    if isinstance(value, dict):
        return {key: without_negative_zero(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(without_negative_zero(item) for item in value)
    return value


class InputModel(BaseModel):
    """Base of every scenario input block: frozen, strict numbers, unknown fields refused, no inf/NaN, and
    -0.0 read as 0.0 (:func:`without_negative_zero`), so no "-0" can reach an output."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _no_negative_zero(cls, data: Any) -> Any:
        return without_negative_zero(data) if isinstance(data, dict) else data


def fail(
    title: str, loc: tuple, error_type: LiteralString, message: LiteralString, value: Any, **ctx: Any
) -> ValidationError:
    """A validation error at a field of a model, for checks that span several fields."""
    return ValidationError.from_exception_data(
        title, [InitErrorDetails(type=PydanticCustomError(error_type, message, ctx), loc=loc, input=value)]
    )


def context_catalog(info: ValidationInfo) -> Catalog:
    """The catalog passed as validation context, else the bundled one."""
    context = info.context or {}
    return context.get("catalog") or default_catalog()


def known_id(ident: str, table: dict, what: str, catalog_file: str) -> str:
    """``ident`` if it is a key of a catalog table; else a validation error naming the closest ids and the
    ``costmodel catalog`` command that lists or searches the table."""
    if ident not in table:
        from ..lookup import kind_name, suggestions

        close = suggestions(table, ident)
        hint = (
            f" (did you mean {', '.join(close[:-1]) + ' or ' if len(close) > 1 else ''}{close[-1]}?)" if close else ""
        )
        kind = kind_name(catalog_file)
        known = (
            f"known: {', '.join(sorted(table))}"
            if len(table) <= 12
            else f"`costmodel catalog search {ident}` or `costmodel catalog list {kind}` shows the {len(table):,} known"
        )
        raise PydanticCustomError(
            "unknown_id",
            "unknown {what} (not in data/{file}){hint}; {known}",
            {"what": what, "file": catalog_file, "known": known, "hint": hint},
        )
    return ident

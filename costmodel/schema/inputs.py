"""Inputs by path: every number of a scenario, with its unit, title, allowed range and source.

An input is named by its path in the scenario (``options.own.power.pue``,
``options.own.bill_of_materials.1.price_total``, ``fx.rates.EUR``) or, for figures that come
from a catalog row, by a name of its own (:data:`CATALOG_INPUTS`). The same names are used
by the uncertainty block, sweeps, what-if panels and diffs. Units and titles come from the
fields' metadata (:func:`costmodel.schema.base.quantity`), so tables and charts are
generated from the schema, not retyped.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import annotated_types
import numpy as np
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ..catalog import Catalog
from .base import fixed_because, unit_of, varies

_SKIPPED_TOP = {"uncertainty", "claims", "offers", "overrides"}


@dataclass(frozen=True)
class CatalogInput:
    """A number taken from a catalog row, addressed by a name of its own.

    Attributes
    ----------
    option
        The option (or ``workload``) whose row it is.
    table
        :class:`~costmodel.catalog.Catalog` attribute holding the row.
    key
        Field of the option naming the row's id.
    column
        Field of the row.
    title, unit
        Human name and unit (``{currency}`` is the row's currency).
    """

    option: str
    table: str
    key: str
    column: str
    title: str
    unit: str


CATALOG_INPUTS: dict[str, CatalogInput] = {
    "options.own.server_price": CatalogInput("own", "servers", "server", "price", "server price", "{currency}"),
    "options.own.server_max_power_kw": CatalogInput(
        "own", "servers", "server", "max_power_kw", "max power per server", "kW"
    ),
    "options.rent.price_per_gpu_hour": CatalogInput(
        "rent", "cloud_offers", "offer", "price_per_gpu_hour", "rental price per GPU-hour", "{currency}/GPU-h"
    ),
    "options.api.input_price_per_million": CatalogInput(
        "api", "api_offers", "offer", "input_per_million", "API input price", "{currency}/M tokens"
    ),
    "options.api.cached_input_price_per_million": CatalogInput(
        "api", "api_offers", "offer", "cached_input_per_million", "API cached input price", "{currency}/M tokens"
    ),
    "options.api.output_price_per_million": CatalogInput(
        "api", "api_offers", "offer", "output_per_million", "API output price", "{currency}/M tokens"
    ),
}
"""Catalog-backed input names and the row column behind each."""

THROUGHPUT_INPUT = "workload.throughput_per_gpu"
"""Name of the serving throughput a tokens workload resolves to (a catalog row or an estimate)."""


@dataclass(frozen=True)
class InputField:
    """One numeric input found in a scenario.

    Attributes
    ----------
    path
        Its name (see the module notes).
    value
        The value as given (``None`` for the resolved serving throughput, known only once
        resolved).
    title, unit
        Human name and unit, ``{currency}`` filled in.
    info
        The pydantic field it comes from (for its rules), if any.
    source
        The source text of the block or catalog row it sits in.
    """

    path: str
    value: float | None
    title: str
    unit: str
    info: FieldInfo | None
    source: str


def _fill(unit: str, currency: str | None) -> str:
    return unit.replace("{currency}", currency or "currency")


_HAS: dict[tuple[type, str], bool] = {}
"""Whether a model class has an attribute (a field, a property, ...) of a name, by (class, name)."""


def _attribute(node: BaseModel, name: str, default: Any) -> Any:
    """``getattr(node, name, default)``, without pydantic's search for an attribute the class does not have
    (the models forbid extra fields, so the class tells; the walk asks two names of every block)."""
    key = (type(node), name)
    has = _HAS.get(key)
    if has is None:
        has = _HAS[key] = name in type(node).model_fields or hasattr(type(node), name)
    return getattr(node, name, default) if has else default


_FIELDS: dict[type, list[tuple[str, FieldInfo, str, str, str]]] = {}
"""A model class's fields as the walk reads them: (name, info, title of an item, title, unit), by class."""


def _fields_of(model: type[BaseModel]) -> list[tuple[str, FieldInfo, str, str, str]]:
    """The fields of a model class with the titles and unit the walk gives their inputs (found once a class)."""
    found = _FIELDS.get(model)
    if found is None:
        found = _FIELDS[model] = [
            (name, info, info.title or name, info.title or name.replace("_", " "), unit_of(info) or "-")
            for name, info in model.model_fields.items()
        ]
    return found


DEFAULT_SOURCE = "not stated in the scenario: costmodel's default"
"""The source of an input the scenario leaves at the schema's default: not the source of the block it sits in,
which speaks only for what the block states."""


def _walk(node: BaseModel, prefix: str, found: list[InputField], inherited: str = "") -> None:
    """Collect the numeric inputs under ``node``; a block without a source of its own speaks with the source of
    the block it sits in (``inherited``), and an input the scenario does not state is the schema's default."""
    currency = _attribute(node, "currency", None)
    block_source = _attribute(node, "source", "") or inherited
    stated = node.model_fields_set
    for name, info, item_title, title, unit in _fields_of(type(node)):
        if not prefix and name in _SKIPPED_TOP:
            continue
        value = getattr(node, name)
        kind = type(value)
        source = block_source if name in stated else DEFAULT_SOURCE
        if kind is float or kind is int:  # a number (the last branch below), told without the others' tests
            found.append(InputField(f"{prefix}{name}", float(value), title, _fill(unit, currency), info, source))
            continue
        if value is None or kind is str:  # neither a block, a list, a mapping nor a number
            continue
        path = f"{prefix}{name}"
        if isinstance(value, BaseModel):
            _walk(value, path + ".", found, block_source)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    _walk(item, f"{path}.{index}.", found, block_source)
                elif is_number(item):
                    found.append(
                        InputField(
                            f"{path}.{index}", float(item), f"{item_title} {index}", _fill(unit, currency), info, source
                        )
                    )
        elif isinstance(value, dict):
            for key, item in value.items():
                if is_number(item):
                    found.append(
                        InputField(
                            f"{path}.{key}", float(item), f"{item_title} {key}", _fill(unit, currency), info, source
                        )
                    )
        elif is_number(value):
            found.append(InputField(path, float(value), title, _fill(unit, currency), info, source))


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number as an input takes one: an int or float (numpy's too), not a
    boolean and not text."""
    if type(value) is float or type(value) is int:  # most inputs: the general test below, answered at once
        return True
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_)


def _catalog_row(scenario: Any, catalog: Catalog, spec: CatalogInput):
    option = getattr(scenario.options, spec.option, None)
    if option is None:
        return None
    return getattr(catalog, spec.table).get(getattr(option, spec.key))


def input_fields(scenario: Any, catalog: Catalog) -> Iterator[InputField]:
    """Every numeric input of a scenario, schema fields first, then catalog-backed names.

    Parameters
    ----------
    scenario
        A validated :class:`~costmodel.schema.scenario.Scenario`.
    catalog
        The catalog it was validated against.
    """
    found: list[InputField] = []
    _walk(scenario, "", found)
    yield from found
    overrides = getattr(scenario, "overrides", None)
    replaced = dict(overrides.values) if overrides is not None else {}
    overrides_source = overrides.source if overrides is not None else ""  # read only where replaced holds a path
    for path, spec in CATALOG_INPUTS.items():
        row = _catalog_row(scenario, catalog, spec)
        if row is None:
            continue
        value = getattr(row, spec.column)
        if spec.column == "cached_input_per_million" and value is None:
            value = row.input_per_million
        if value is None:  # a price the offer does not have (an input-only offer's output price)
            continue
        info = type(row).model_fields[spec.column]
        source = f"{row.source_file}: {option_row_id(scenario, spec)} [{row.quality}, {row.as_of}] {row.source}"
        if path in replaced:
            value, source = replaced[path], f"overrides (replacing {source}): {overrides_source}"
        yield InputField(path, float(value), spec.title, _fill(spec.unit, getattr(row, "currency", None)), info, source)
    work = scenario.workload
    if work.kind == "tokens" and (
        work.serving is not None or work.output_tokens_per_second_per_gpu is not None or THROUGHPUT_INPUT in replaced
    ):
        # a served model's throughput (from data/throughput.csv or the estimate); none for API options alone
        if THROUGHPUT_INPUT in replaced:
            yield InputField(
                THROUGHPUT_INPUT,
                float(replaced[THROUGHPUT_INPUT]),
                "serving throughput",
                "output tokens/s/GPU",
                None,
                f"overrides: {overrides_source}",
            )
        else:
            yield InputField(
                THROUGHPUT_INPUT,
                None,
                "serving throughput",
                "output tokens/s/GPU",
                None,
                "data/throughput.csv or the estimate",
            )


SEARCHED_FOR_TARGET = (
    "workload.serving.target_utilisation",
    "workload.serving.estimate.decode_efficiency",
    "workload.serving.estimate.prefill_efficiency",
)
"""Inputs of the serving operating point that a latency target searches for, one value at a time."""


def fixed_reason(scenario: Any, field: InputField) -> str | None:
    """Why an input cannot take an array of samples in this scenario, or None when it can.

    An input declared with ``varies=False`` (:func:`costmodel.schema.base.quantity`) never
    varies; the inputs of :data:`SEARCHED_FOR_TARGET` do not when the workload has a latency
    target (the operating point is searched along a throughput curve for one value of them).
    The reason completes "the input ...", with the input's title.
    """
    if not varies(field.info):
        return f"{fixed_because(field.info)} ({field.title})"
    serving = getattr(scenario.workload, "serving", None)
    if field.path in SEARCHED_FOR_TARGET and getattr(serving, "target", None) is not None:
        return f"sets the operating point searched for the latency target ({field.title})"
    return None


def option_row_id(scenario: Any, spec: CatalogInput) -> str:
    """The id of the catalog row behind a catalog-backed input."""
    return str(getattr(getattr(scenario.options, spec.option), spec.key))


def input_paths(scenario: Any, catalog: Catalog) -> dict[str, float | None]:
    """Input path → value as given, for every numeric input (see :func:`input_fields`)."""
    return {f.path: f.value for f in input_fields(scenario, catalog)}


def _constraints(info: FieldInfo | None) -> list:
    if info is None:
        return []
    rules = list(info.metadata)
    stack = [info.annotation]
    while stack:
        annotation = stack.pop()
        for arg in typing.get_args(annotation):
            if hasattr(arg, "metadata"):
                rules += list(arg.metadata)
            elif isinstance(arg, annotated_types.BaseMetadata):
                rules.append(arg)
            else:
                stack.append(arg)
    return rules


@dataclass(frozen=True)
class Bounds:
    """The allowed range of an input from its field's rules.

    ``low_open``/``high_open``: the end itself is not allowed.
    """

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False

    def holds(self, value: float) -> bool:
        """Whether ``value`` is allowed."""
        if value < self.low or (self.low_open and value == self.low):
            return False
        return not (value > self.high or (self.high_open and value == self.high))

    def describe(self) -> str:
        """The range as text, e.g. ``(0, 1]``."""
        left = "(" if self.low_open or self.low == -math.inf else "["
        right = ")" if self.high_open or self.high == math.inf else "]"
        return f"{left}{self.low:g}, {self.high:g}{right}"


def _bound(value: object) -> float:
    """A field's bound as a float: the schema's bounds on number fields are numbers."""
    assert isinstance(value, int | float), f"a number field's bound is a number, got {value!r}"
    return float(value)


def bounds_of(info: FieldInfo | None) -> Bounds:
    """:class:`Bounds` from a field's ``ge``/``gt``/``le``/``lt`` rules."""
    low, high, low_open, high_open = -math.inf, math.inf, False, False
    for rule in _constraints(info):
        if isinstance(rule, annotated_types.Ge):
            low, low_open = _bound(rule.ge), False
        elif isinstance(rule, annotated_types.Gt):
            low, low_open = _bound(rule.gt), True
        elif isinstance(rule, annotated_types.Le):
            high, high_open = _bound(rule.le), False
        elif isinstance(rule, annotated_types.Lt):
            high, high_open = _bound(rule.lt), True
    return Bounds(low, high, low_open, high_open)


_BY_PATH: dict[tuple[int, int], tuple[Any, Catalog, dict[str, InputField]]] = {}
"""The inputs of the last few (scenario, catalog) pairs by path, keyed by the objects' identity
(both are frozen); each entry keeps its pair alive, so an identity is never reused while cached."""


def inputs_by_path(scenario: Any, catalog: Catalog) -> dict[str, InputField]:
    """:func:`input_fields` by path (the first of a path), kept for the last 16 (scenario, catalog)
    pairs: the tornado, the claims check and the labels look inputs up by path hundreds of times
    a report, each lookup otherwise a walk of the whole scenario. Do not change the result."""
    key = (id(scenario), id(catalog))
    kept = _BY_PATH.get(key)
    if kept is not None and kept[0] is scenario and kept[1] is catalog:
        return kept[2]
    found: dict[str, InputField] = {}
    for field in input_fields(scenario, catalog):
        found.setdefault(field.path, field)
    while len(_BY_PATH) >= 16:
        _BY_PATH.pop(next(iter(_BY_PATH)), None)
    _BY_PATH[key] = (scenario, catalog, found)
    return found


def find_input(scenario: Any, catalog: Catalog, path: str) -> InputField | None:
    """The input named ``path``, or None when the scenario has no such numeric input."""
    return inputs_by_path(scenario, catalog).get(path)


def bounds(scenario: Any, catalog: Catalog, path: str) -> Bounds:
    """The allowed range of the input named ``path``.

    The serving throughput must be above 0.

    Raises
    ------
    KeyError
        No such input.
    """
    found = find_input(scenario, catalog, path)
    if found is None:
        raise KeyError(path)
    if path == THROUGHPUT_INPUT:
        return Bounds(0.0, math.inf, True, False)
    return bounds_of(found.info)

"""Errors raised for bad input files.

Every error names the file, the field (or row and column), the value and the rule it
broke, so that a reviewer can fix the input without reading code.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any


class InputError(ValueError):
    """A scenario or catalog file that cannot be used.

    Parameters
    ----------
    path
        The file that holds the bad input.
    problems
        One ``(field, value, reason)`` triple per problem found. ``field`` is a dotted
        path such as ``options.rent.gpu_count`` or ``row 3, column price``.
    """

    def __init__(self, path: str | Path | None, problems: Iterable[tuple[str, Any, str]]):
        self.path = str(path) if path is not None else "<scenario>"
        self.problems = list(problems)
        lines = [f"{self.path}: {field}: {reason} (got {_show(value)})" for field, value, reason in self.problems]
        super().__init__("\n".join(lines) if lines else f"{self.path}: invalid input")


class ScenarioError(InputError):
    """A scenario file that cannot be loaded (syntax, missing field, bad value, unknown id)."""


class CatalogError(InputError):
    """A catalog CSV file in data/ with a bad row."""


_MISSING = object()


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlist = _REPR.maxdict = 4
_REPR.maxlevel = 2


def _show(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    return _REPR.repr(value)


def from_validation_error(error: Any, path: str | Path | None, cls: type[InputError],
                          union_tags: frozenset[str] = frozenset()) -> InputError:
    """Turn a pydantic ``ValidationError`` into an :class:`InputError` naming each field.

    ``union_tags`` are discriminator values that pydantic puts in an error's location
    (``workload.tokens.tokens_per_day``); they are left out of the field named.
    """
    problems = []
    for item in error.errors(include_url=False):
        field = ".".join(str(part) for part in item["loc"] if part not in union_tags) or "(top level)"
        value = item.get("input", _MISSING)
        if item["type"] == "missing":
            value = _MISSING
        problems.append((field, value, item["msg"]))
    return cls(path, problems)

"""Errors raised for bad input files.

Every error names the file, the field (or row and column), the value and the rule it
broke, so that a reviewer can fix the input without reading code.
"""

from __future__ import annotations

import difflib
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
        self.path = str(path) if path is not None else None
        self.problems = list(problems)
        prefix = f"{self.path}: " if self.path is not None else ""
        lines = [f"{prefix}{field}: {reason} (got {_show(value)})" for field, value, reason in self.problems]
        super().__init__("\n".join(lines) if lines else f"{prefix}invalid input")

    def in_file(self, path: str | Path) -> InputError:
        """The same problems named in ``path`` (the file they come from), unless a file is named already."""
        return self if self.path is not None else type(self)(path, self.problems)


class ScenarioError(InputError):
    """A scenario file that cannot be loaded (syntax, missing field, bad value, unknown id)."""


class FileKindError(ScenarioError):
    """A file of another kind than the command reads: a fleet file given where a scenario is read
    (``compare``, ``batch``), or a scenario file given to ``fleet``.

    Its message is one line a problem, the file and the reason (what the file is and which command
    reads it): the field, ``kind``, and its value stay in :attr:`problems`.
    """

    def __init__(self, path: str | Path | None, problems: Iterable[tuple[str, Any, str]]):
        super().__init__(path, problems)
        prefix = f"{self.path}: " if self.path is not None else ""
        self.args = ("\n".join(f"{prefix}{reason}" for _, _, reason in self.problems),)


class CatalogError(InputError):
    """A catalog CSV file in data/ with a bad row."""


class OutputPathError(ValueError):
    """A command-line output path that cannot be used: a file where a folder is needed, or the other way.

    Parameters
    ----------
    option
        The option that gave the path (``--out``, ``--xlsx``, ...).
    path
        The path as given.
    reason
        What is wrong with it.
    """

    def __init__(self, option: str, path: str | Path, reason: str):
        self.option, self.path, self.reason = option, str(path), reason
        super().__init__(f"{option} {self.path}: {reason}")


class ParameterError(ValueError):
    """A report notebook's parameter of the wrong type or range, or one it does not declare
    (see :mod:`costmodel.presentation.parameters`)."""


_MISSING = object()


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlist = _REPR.maxdict = 4
_REPR.maxlevel = 2


def _show(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    return _REPR.repr(value)


_YAML_WORDS = {"yes", "no", "on", "off", "y", "n", "true", "false"}

_PATTERN_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {}
"""What each text pattern of the schema asks for, in words, and the values to suggest (:func:`worded_pattern`)."""


def worded_pattern(pattern: str, words: str, choices: tuple[str, ...] = ()) -> str:
    """Register what a schema field's regular expression asks for, in words; returns the pattern.

    A text that does not match is then refused as "must be <words>", with a did-you-mean among
    ``choices``, instead of pydantic's "String should match pattern '^(own|rent|api)$|...'".

    Parameters
    ----------
    pattern
        The field's regular expression, as given to ``Field(pattern=...)``.
    words
        What it asks for ("own, rent or api").
    choices
        Values a misspelt text is compared with.

    Examples
    --------
    >>> worded_pattern(r"^(a|b)$", "a or b", ("a", "b"))
    '^(a|b)$'
    """
    _PATTERN_WORDS[pattern] = (words, choices)
    return pattern


def _reason(item: dict) -> str:
    """A validation error's message in the tool's words, for the common kinds."""
    kind, value, ctx = item["type"], item.get("input"), item.get("ctx") or {}
    if kind in ("float_type", "float_parsing", "int_type", "int_parsing", "int_from_float"):
        what = "a whole number" if kind.startswith("int") else "a number"
        if isinstance(value, bool):
            return f"must be {what}, not true/false"
        if isinstance(value, str):
            hint = (
                " (YAML 1.2 reads yes/no/on/off as text, not as true/false)"
                if value.strip().lower() in _YAML_WORDS
                else ""
            )
            return f"must be {what}, not the text {value!r}{hint}"
        if kind.startswith("int") and isinstance(value, float) and value.is_integer():
            # 2.0 is a whole number: what the rule asks is the way it is written
            return f"must be written as a whole number, without a decimal point ({value:.0f}, not {value!r})"
        if kind == "int_from_float":
            return "must be a whole number"
        return f"must be {what}"
    if kind in ("too_long", "too_short", "string_too_long", "string_too_short") and isinstance(value, str):
        # pydantic words a length limit on an optional text as "items"; a text has characters
        longest = kind.endswith("too_long")
        limit = ctx.get("max_length" if longest else "min_length")
        return (
            f"must be {'at most' if longest else 'at least'} {limit} character{'' if limit == 1 else 's'} long, "
            f"not {len(value)}"
        )
    if kind == "union_tag_invalid":
        expected = [t.strip().strip("'") for t in str(ctx.get("expected_tags", "")).split(",")]
        return f"{ctx.get('tag')!r} is not one of {', '.join(expected)}{did_you_mean(str(ctx.get('tag')), expected)}"
    if kind == "union_tag_not_found":
        return f"needs {ctx.get('discriminator', 'kind')!r} to say which kind it is"
    if kind == "extra_forbidden":
        return "not a field here (misspelt, or in the wrong block?)"
    if kind == "string_pattern_mismatch" and str(ctx.get("pattern")) in _PATTERN_WORDS:
        words, choices = _PATTERN_WORDS[str(ctx.get("pattern"))]
        return f"must be {words}{did_you_mean(str(value), choices)}"
    if kind == "literal_error":
        expected = [t.strip().strip("'") for t in str(ctx.get("expected", "")).replace(" or ", ", ").split(",")]
        return f"must be one of {', '.join(expected)}{did_you_mean(str(value), expected)}"
    return item["msg"]


def from_validation_error(
    error: Any,
    path: str | Path | None,
    cls: type[InputError],
    data: Any = None,
    union_tags: frozenset[str] = frozenset(),
) -> InputError:
    """Turn a pydantic ``ValidationError`` into an :class:`InputError` naming each field.

    Messages for wrong types, unknown kinds, misspelt keys and values outside a list are
    the tool's own ("must be a number, not the text 'yes'", "'gpu_hour' is not one of
    gpu_hours, tokens, training (did you mean gpu_hours?)"). Discriminator values that
    pydantic puts in a location (``workload.tokens.tokens_per_day``) are left out of the field
    named: those in ``union_tags``, and any part that is the ``kind`` of the data at that place.
    """
    problems = []
    for item in error.errors(include_url=False):
        loc, node, parts = item["loc"], data, []
        for part in loc:
            if part in union_tags or (isinstance(node, dict) and node.get("kind") == part and part not in node):
                continue
            if _union_branch(part, node):
                continue
            parts.append(str(part))
            if isinstance(node, dict):
                node = node.get(part)
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
            else:
                node = None
        if item["type"] == "union_tag_invalid":
            parts.append(str((item.get("ctx") or {}).get("discriminator", "kind")).strip("'"))
        field = ".".join(parts) or "(top level)"
        value = item.get("input", _MISSING)
        if item["type"] == "missing":
            value = _MISSING
        elif item["type"] == "union_tag_invalid":
            value = (item.get("ctx") or {}).get("tag", value)
        reason = _reason(item)
        if problems and problems[-1][0] == field and problems[-1][1] is value:  # the branches of one union
            problems[-1] = (field, value, f"{problems[-1][2]}; or {reason}")
        else:
            problems.append((field, value, reason))
    return cls(path, problems)


_BRANCH_NAMES = {"float", "int", "str", "bool", "none", "date", "datetime", "list", "dict", "tuple"}


def _union_branch(part: Any, node: Any) -> bool:
    """Whether a part of an error's location is pydantic's name for a branch of a union
    (``constrained-float``, ``literal['catalog']``, ``function-after[...]``), not a field."""
    if not isinstance(part, str) or (isinstance(node, dict) and part in node):
        return False
    return part in _BRANCH_NAMES or part.startswith(
        ("constrained-", "literal[", "function-", "list[", "dict[", "tuple[", "nullable[", "union[", "tagged-union[")
    )


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """ " (did you mean X?)" for the closest of ``choices`` to a misspelt ``word``, else "".

    Uses :func:`difflib.get_close_matches` (ratio at least 0.6).

    Examples
    --------
    >>> did_you_mean("gpu_hour", ["gpu_hours", "tokens", "training"])
    ' (did you mean gpu_hours?)'
    >>> did_you_mean("xyz", ["gpu_hours"])
    ''
    """
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def scenario_problem(field: str, value: Any, reason: str) -> ScenarioError:
    """A :class:`ScenarioError` with one problem and no file yet (the loader that knows the file names it).

    Parameters
    ----------
    field
        The dotted path of the scenario field, such as ``workload.serving.target``.
    value
        The value as given.
    reason
        The rule it broke.
    """
    return ScenarioError(None, [(field, value, reason)])

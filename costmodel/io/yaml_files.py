"""Strict YAML for scenario files: YAML 1.2 core schema, text keys, bounded size and depth.

PyYAML implements YAML 1.1, whose implicit types silently turn words and digits into
numbers and dates: ``yes``/``no``/``on``/``off`` become booleans (and then 1.0 or 0.0 in a
number field), ``2:1`` becomes 121 (base 60), ``0x10`` 16, ``2025-01-01`` a date. A scenario
is read here with the YAML 1.2 core schema instead: only ``true``/``false`` are booleans,
only decimal digits (with an optional sign, point and exponent) are numbers, ``.inf`` and
``.nan`` are floats (which the schema then refuses), ``null``/``~``/empty are null; every
other plain scalar is text. The same rules hold for a value with an explicit tag (``!!int 2:1``,
``!!float 1:30``, ``!!int 0x3`` and ``!!bool yes`` are refused, not read as 121, 90, 3 and true)
and for the numbers' construction (``010000000`` is ten million, not octal; ``08`` is eight); tags
other than ``!!str``, ``!!int``, ``!!float``, ``!!bool``, ``!!null``, ``!!seq`` and ``!!map``
(``!!binary``, ``!!timestamp``, ``!!set``, ...) are refused. Keys must be text, a key may appear once per mapping, the file
may hold at most :data:`MAX_BYTES` bytes, nest at most :data:`MAX_DEPTH` levels and hold at most
:data:`MAX_VALUES` values with its aliases expanded.

References
----------
.. [1] YAML Ain't Markup Language version 1.2.2, §10.3 "Core Schema" (2021).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import yaml
import yaml.cyaml

from ..errors import ScenarioError
from ..files import file_problem
from ..numbers import DECIMAL, INTEGER

MAX_BYTES = 2_000_000
"""Largest scenario file read. [B]"""

MAX_DEPTH = 40
"""Deepest nesting of mappings and lists in a scenario file."""

MAX_VALUES = 1_000_000
"""Most values (scalars, lists and mappings) a scenario file may hold once its aliases are
expanded: an empirical distribution holds at most 100,000, and a 2 MB file without aliases at most
about 1,000,000 (``[0,0,...]``)."""


class _CoreSchema:
    """What both loaders share: unique text keys (the types are set on each loader class below)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    "keys must be plain text (a field name), not a list, mapping or number", key_node.start_mark)
            key = key_node.value
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"key {key!r} given twice (first on line {seen[key] + 1})", key_node.start_mark)
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


class _CoreSchemaLoader(_CoreSchema, yaml.SafeLoader):
    """PyYAML's safe loader (pure Python) with the YAML 1.2 core schema's implicit types, and unique text keys."""

    yaml_implicit_resolvers: dict = {}


_FAST = getattr(yaml, "__with_libyaml__", False)
"""Whether PyYAML was built with libyaml: its parser and composer in C read a long list of numbers
(an empirical distribution of 100,000 values) about 10 times as fast as the pure-Python ones."""

if _FAST:
    class _CoreSchemaCLoader(_CoreSchema, yaml.cyaml.CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """The same loader on libyaml's parser and composer (the types and the constructors are Python's)."""

        yaml_implicit_resolvers: dict = {}

        def __init__(self, stream):
            yaml.cyaml.CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    _LOADERS: tuple[type, ...] = (_CoreSchemaLoader, _CoreSchemaCLoader)
else:      # pragma: no cover - PyYAML wheels for CPython on Linux, macOS and Windows carry libyaml
    _LOADERS = (_CoreSchemaLoader,)


_TAG = "tag:yaml.org,2002:"
_CORE_FORMS = {
    _TAG + "bool": (r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    _TAG + "null": (r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    _TAG + "int": (INTEGER.pattern, list("-+0123456789")),
    _TAG + "float": (rf"{DECIMAL.pattern}|^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", list("-+0123456789.")),
}
"""The YAML 1.2 core schema's forms of each scalar type [1]_ and the first characters they may start with."""
_CORE_PATTERNS = {tag: re.compile(pattern) for tag, (pattern, _) in _CORE_FORMS.items()}
for _loader in _LOADERS:
    for _tag, (_, _first) in _CORE_FORMS.items():
        _loader.add_implicit_resolver(_tag, _CORE_PATTERNS[_tag], _first)

_KINDS = {_TAG + "int": "a base-10 integer (digits with an optional sign)",
          _TAG + "float": "a base-10 number (digits, an optional point and exponent)",
          _TAG + "bool": "true or false", _TAG + "null": "null, ~ or nothing"}
_PLAIN_NUMBERS = {_TAG + "int", _TAG + "float"}
_ALLOWED_TAGS = {_TAG + "str", _TAG + "seq", _TAG + "map", *_CORE_FORMS}


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int | float:
    """A YAML 1.2 core integer: base 10 whatever its leading zeros (``010`` is ten, not eight).

    More digits than any float can hold as an integer gives a float, which the schema then
    judges by its magnitude (Python's int() refuses over 4,300 digits)."""
    text = loader.construct_scalar(node)
    return int(text, 10) if len(text) <= 300 else float(text)


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    """A YAML 1.2 core float: base 10, ``.inf``/``.nan`` (which the schema refuses) included."""
    text = loader.construct_scalar(node).lower()
    if text.endswith((".inf", ".nan")):
        return float(text.replace(".", ""))
    return float(text)


for _loader in _LOADERS:
    _loader.add_constructor(_TAG + "int", _construct_int)
    _loader.add_constructor(_TAG + "float", _construct_float)


def _tag_problems(node: yaml.Node) -> list[tuple[str, str, str]]:
    """Scalars whose explicit tag names a type their text is not in the YAML 1.2 core schema
    (``!!int 2:1``), and tags no scenario uses (``!!binary``), as (field, value, reason).

    The field is the dotted path of the first place a node is met (list items by position).
    """
    problems: list[tuple[str, str, str]] = []
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, str]] = [(node, "")]
    while stack:
        current, path = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        where = path or "(top level)"
        line = f" (line {current.start_mark.line + 1})"
        if current.tag not in _ALLOWED_TAGS:
            shown = current.tag.replace(_TAG, "!!")
            problems.append((where, f"{shown} {current.value}" if isinstance(current, yaml.ScalarNode) else shown,
                             f"YAML tag {shown} is not used in scenario files: write the value plainly{line}"))
        elif isinstance(current, yaml.ScalarNode) and current.tag in _CORE_PATTERNS:
            if not _CORE_PATTERNS[current.tag].match(current.value):
                shown = current.tag.replace(_TAG, "!!")
                problems.append((where, f"{shown} {current.value}",
                                 f"not {_KINDS[current.tag]} as YAML 1.2 writes one (YAML 1.1's base-60, "
                                 f"hexadecimal, octal and yes/no forms are not read){line}"))
        elif isinstance(current, yaml.SequenceNode):
            if all(item.tag in _PLAIN_NUMBERS and isinstance(item, yaml.ScalarNode) for item in current.value):
                # a long list of numbers (an empirical distribution): each checked here, without a path each
                bad = next((i for i, item in enumerate(current.value)
                            if not _CORE_PATTERNS[item.tag].match(item.value)), None)
                if bad is not None:
                    stack.append((current.value[bad], f"{path}.{bad}" if path else str(bad)))
                continue
            stack += [(item, f"{path}.{i}" if path else str(i)) for i, item in reversed(list(enumerate(current.value)))]
        elif isinstance(current, yaml.MappingNode):
            stack += [(value, f"{path}.{key.value}" if path else str(key.value))
                      for key, value in reversed(current.value) if isinstance(key, yaml.ScalarNode)]
    return problems


def _shape(node: yaml.Node) -> tuple[float, float]:
    """Nesting depth and size of a composed YAML node: the values it holds once every alias is
    expanded (an alias counts all it names again, at each place it appears).

    Each node is measured once, so a file of nested aliases that would expand to billions of
    values ("billion laughs") is measured in time linear in its text; a node that holds itself
    (a recursive alias) is infinitely deep. Walked without recursion.
    """
    if isinstance(node, yaml.ScalarNode):
        return 1, 1
    known: dict[int, tuple[float, float]] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, children_done = stack.pop()
        values = current.value if isinstance(current, yaml.SequenceNode) else [v for _, v in current.value]
        collections = [c for c in values if not isinstance(c, yaml.ScalarNode)]   # a scalar is (1, 1)
        if children_done:
            scalars = len(values) - len(collections)
            known[id(current)] = (1 + max((known[id(c)][0] for c in collections), default=1 if scalars else 0),
                                  1 + scalars + sum(known[id(c)][1] for c in collections))
            open_nodes.discard(id(current))
            continue
        if id(current) in known:
            continue
        if id(current) in open_nodes:      # reached again from inside itself
            return math.inf, math.inf
        open_nodes.add(id(current))
        stack.append((current, True))
        stack += [(child, False) for child in collections if id(child) not in known]
    return known[id(node)]


def read_text(path: Path) -> str:
    """The text of a scenario file: UTF-8 (a byte-order mark is dropped), at most :data:`MAX_BYTES`.

    Raises
    ------
    ScenarioError
        Missing, a folder, a pipe or a device (refused before reading), too large, unreadable, not
        UTF-8 (the offset of the first bad byte is named) or holding a NUL byte.
    """
    problem = file_problem(path, MAX_BYTES)
    if problem is not None:
        raise ScenarioError(path, [("(file)", str(path), problem)])
    try:
        text = path.read_text(encoding="utf-8-sig")
        if "\x00" in text:
            offset = text.index("\x00")
            raise ScenarioError(path, [("(file)", "NUL", f"holds a NUL byte at offset {offset}: not a text file")])
        return text
    except UnicodeDecodeError as exc:
        shown = exc.object[max(0, exc.start - 20):exc.end + 20]
        reason = f"not UTF-8 text: byte {exc.object[exc.start]:#x} at offset {exc.start}"
        raise ScenarioError(path, [("(file)", shown, reason)]) from None
    except OSError as exc:
        raise ScenarioError(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None


def _check_depth(text: str) -> None:
    """Raise RecursionError for text nested deeper than :data:`MAX_DEPTH`, from libyaml's events
    (read without composing, in constant stack)."""
    events = _CoreSchemaCLoader(text)
    try:
        depth = 0
        while events.check_event():
            event = events.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise RecursionError
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        events.dispose()


def parse_yaml(text: str, path: Path) -> Any:
    """Parse scenario text with the YAML 1.2 core schema (see the module notes).

    Raises
    ------
    ScenarioError
        A syntax error (line and column named, even on the last line), a key that is not
        text, a key given twice, a tagged value that is not of its tag's YAML 1.2 form or a tag
        no scenario uses (the field named), nesting deeper than :data:`MAX_DEPTH`, or more than
        :data:`MAX_VALUES` values once aliases are expanded.
    """
    loader = _LOADERS[-1](text)
    try:
        try:
            if _FAST:
                _check_depth(text)          # libyaml's composer recurses in C, past Python's recursion limit
            node = loader.get_single_node()
        except RecursionError:
            raise ScenarioError(path, [("(file)", "deeply nested", f"nested more than {MAX_DEPTH} levels deep")]) \
                from None
        if node is None:
            return None
        depth, size = _shape(node)
        if depth > MAX_DEPTH:
            raise ScenarioError(path, [("(file)", "deeply nested", f"nested more than {MAX_DEPTH} levels deep")])
        if size > MAX_VALUES:
            raise ScenarioError(path, [("(file)", f"{size:,.0f} values", f"holds more than {MAX_VALUES:,} values "
                                        "once its aliases (*name) are expanded")])
        problems = _tag_problems(node)
        if problems:
            raise ScenarioError(path, problems)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        lines = text.splitlines()
        if mark is not None:
            where = f"line {mark.line + 1}, column {mark.column + 1}"
            shown = lines[mark.line] if mark.line < len(lines) else "(end of file)"
        else:
            where, shown = "(file)", text[:40]
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError(path, [(where, shown, f"YAML syntax error: {problem}")]) from None
    finally:
        loader.dispose()


def dump_yaml(data: Any) -> str:
    """YAML text for plain data, readable back by :func:`parse_yaml` to the same values.

    Strings that YAML 1.1 readers would take for another type are quoted (PyYAML's
    dumper quotes them), so the file reads the same in either version.
    """
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)

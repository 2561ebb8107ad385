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
(``!!binary``, ``!!timestamp``, ``!!set``, ...) are refused. Keys must be text, a key may appear
once per mapping, the file may hold at most :data:`MAX_BYTES` bytes, nest at most
:data:`MAX_DEPTH` levels and hold at most :data:`MAX_VALUES` values with its aliases expanded.

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


class _CoreSchema(yaml.constructor.SafeConstructor):
    """What both loaders share: unique text keys (the types are set on each loader class below)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    "keys must be plain text (a field name), not a list, mapping or number",
                    key_node.start_mark,
                )
            key = key_node.value
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    f"key {key!r} given twice (first on line {seen[key] + 1})",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


class _CoreSchemaLoader(_CoreSchema, yaml.SafeLoader):
    """PyYAML's safe loader (pure Python) with the YAML 1.2 core schema's implicit types, and unique text keys."""

    yaml_implicit_resolvers: dict = {}


_FAST = getattr(yaml, "__with_libyaml__", False)
"""Whether PyYAML was built with libyaml: its parser and composer in C read a long list of numbers
(an empirical distribution of 100,000 values) far faster than the pure-Python ones."""

if _FAST:
    # yaml.cyaml re-exports CParser from its C extension, which a type checker cannot read
    from yaml.cyaml import CParser  # pyright: ignore[reportAttributeAccessIssue]

    class _CoreSchemaCLoader(_CoreSchema, CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """The same loader on libyaml's parser and composer (the types and the constructors are Python's)."""

        yaml_implicit_resolvers: dict = {}

        def __init__(self, stream):
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    _LOADERS: tuple[type, ...] = (_CoreSchemaLoader, _CoreSchemaCLoader)
else:  # pragma: no cover - PyYAML wheels for CPython on Linux, macOS and Windows carry libyaml
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

_KINDS = {
    _TAG + "int": "a base-10 integer (digits with an optional sign)",
    _TAG + "float": "a base-10 number (digits, an optional point and exponent)",
    _TAG + "bool": "true or false",
    _TAG + "null": "null, ~ or nothing",
}
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
            problems.append(
                (
                    where,
                    f"{shown} {current.value}" if isinstance(current, yaml.ScalarNode) else shown,
                    f"YAML tag {shown} is not used in scenario files: write the value plainly{line}",
                )
            )
        elif isinstance(current, yaml.ScalarNode) and current.tag in _CORE_PATTERNS:
            if not _CORE_PATTERNS[current.tag].match(current.value):
                shown = current.tag.replace(_TAG, "!!")
                problems.append(
                    (
                        where,
                        f"{shown} {current.value}",
                        f"not {_KINDS[current.tag]} as YAML 1.2 writes one (YAML 1.1's base-60, "
                        f"hexadecimal, octal and yes/no forms are not read){line}",
                    )
                )
        elif isinstance(current, yaml.SequenceNode):
            if all(item.tag in _PLAIN_NUMBERS and isinstance(item, yaml.ScalarNode) for item in current.value):
                # a long list of numbers (an empirical distribution): each checked here, without a path each
                bad = next(
                    (i for i, item in enumerate(current.value) if not _CORE_PATTERNS[item.tag].match(item.value)), None
                )
                if bad is not None:
                    stack.append((current.value[bad], f"{path}.{bad}" if path else str(bad)))
                continue
            stack += [(item, f"{path}.{i}" if path else str(i)) for i, item in reversed(list(enumerate(current.value)))]
        elif isinstance(current, yaml.MappingNode):
            stack += [
                (value, f"{path}.{key.value}" if path else str(key.value))
                for key, value in reversed(current.value)
                if isinstance(key, yaml.ScalarNode)
            ]
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
        collections = [c for c in values if not isinstance(c, yaml.ScalarNode)]  # a scalar is (1, 1)
        if children_done:
            scalars = len(values) - len(collections)
            known[id(current)] = (
                1 + max((known[id(c)][0] for c in collections), default=1 if scalars else 0),
                1 + scalars + sum(known[id(c)][1] for c in collections),
            )
            open_nodes.discard(id(current))
            continue
        if id(current) in known:
            continue
        if id(current) in open_nodes:  # reached again from inside itself
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
        shown = exc.object[max(0, exc.start - 20) : exc.end + 20]
        reason = f"not UTF-8 text: byte {exc.object[exc.start]:#x} at offset {exc.start}"
        raise ScenarioError(path, [("(file)", shown, reason)]) from None
    except OSError as exc:
        raise ScenarioError(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None


COMPOSED_UNCHECKED = 256
"""Most collections a text may open, counted from its indicator characters, for libyaml's composer (which
recurses in C) to read it before its depth is known: the depth of such a text is measured on the composed
nodes (:func:`_shape`); a text that may open more is first read for its depth from libyaml's events
(:func:`_check_depth`)."""

_OPENERS = "-?:[{"
"""The characters one of which each collection of a YAML text starts with or opens at: a block sequence's
``-``, a block mapping's first ``:`` or ``?``, a flow collection's bracket. Their count in a text bounds
the collections it opens, and so its depth (the count also takes them in text and comments)."""


def _may_nest_deep(text: str) -> bool:
    """Whether ``text`` may open more than :data:`COMPOSED_UNCHECKED` collections (see :data:`_OPENERS`)."""
    return sum(text.count(character) for character in _OPENERS) > COMPOSED_UNCHECKED


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
            checked = _FAST and _may_nest_deep(text)
            if checked:
                _check_depth(text)  # libyaml's composer recurses in C, past Python's recursion limit
            try:
                node = loader.get_single_node()
            except yaml.YAMLError:
                if _FAST and not checked:  # a nesting too deep met before the error is the one to report
                    _check_depth(text)
                raise
        except RecursionError:
            raise ScenarioError(
                path, [("(file)", "deeply nested", f"nested more than {MAX_DEPTH} levels deep")]
            ) from None
        if node is None:
            return None
        depth, size = _shape(node)
        if depth > MAX_DEPTH:
            raise ScenarioError(path, [("(file)", "deeply nested", f"nested more than {MAX_DEPTH} levels deep")])
        if size > MAX_VALUES:
            raise ScenarioError(
                path,
                [
                    (
                        "(file)",
                        f"{size:,.0f} values",
                        f"holds more than {MAX_VALUES:,} values once its aliases (*name) are expanded",
                    )
                ],
            )
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


_LAYOUTS = ((2, 4, 2), (2, 2, 0), (4, 4, 2), (4, 6, 4), (4, 4, 0), (3, 5, 2))
"""Indentations tried, as ruamel.yaml's (mapping, sequence, offset), to find the one a file is
written in: the bundled scenarios indent mappings by 2 and list items' dashes by 2 more."""

_ABSENT = object()


def _round_trip(text: str):
    """ruamel.yaml's round-trip reader and writer for ``text``, set to the file's indentation, and
    the document read: the first layout of :data:`_LAYOUTS` that writes the text back unchanged
    (else the first)."""
    import io

    from ruamel.yaml import YAML

    chosen = None
    for mapping, sequence, offset in _LAYOUTS:
        rt = YAML(typ="rt")
        rt.preserve_quotes = True
        rt.width = 1_000_000  # long lines (sources, descriptions) stay one line each
        rt.indent(mapping=mapping, sequence=sequence, offset=offset)
        document = rt.load(text)
        written = io.StringIO()
        rt.dump(document, written)
        if written.getvalue() == text:
            return rt, document
        chosen = chosen or (rt, document)
    assert chosen is not None, "_LAYOUTS is not empty"
    return chosen


def _scalar(value: Any) -> Any:
    """A new value as ruamel.yaml writes it: text that YAML 1.1 readers (PyYAML) would take for a
    number, a boolean, a date or null is double-quoted, as :func:`dump_yaml` quotes it; a whole
    float is written without its ``.0``."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, dict):
        return {key: _scalar(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scalar(item) for item in value]
    if isinstance(value, str) and not _reads_as_text(value):
        return DoubleQuotedScalarString(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)  # 12000000, as a person writes it (the schema reads it as 12000000.0)
    return value


def _reads_as_text(value: str) -> bool:
    """Whether ``value`` written plainly reads back as that text in both YAML 1.1 and 1.2."""
    try:
        return yaml.safe_load(value) == value and yaml.load(value, Loader=_LOADERS[0]) == value
    except yaml.YAMLError:
        return False


def _shared(node: Any, seen: dict[int, int] | None = None) -> set[int]:
    """The ids of the mappings and lists that stand in more than one place of a round-trip document:
    an anchored one (``&name``) and its aliases (``*name``) are one object."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    seen = {} if seen is None else seen
    if isinstance(node, CommentedMap | CommentedSeq):
        seen[id(node)] = seen.get(id(node), 0) + 1
        if seen[id(node)] == 1:
            for item in node.values() if isinstance(node, CommentedMap) else node:
                _shared(item, seen)
    return {key for key, count in seen.items() if count > 1}


def _own_copy(node: Any) -> Any:
    """A copy of a shared (anchored) mapping or list, without the anchor, for one place to change alone:
    the other places keep the original, and its anchor with it."""
    import copy

    mine = copy.deepcopy(node)
    for part in _containers(mine):
        part.anchor.value = None  # two nodes with one anchor name would be written twice as &name
    return mine


def _containers(node: Any) -> list[Any]:
    """``node`` and every mapping and list inside it."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if not isinstance(node, CommentedMap | CommentedSeq):
        return []
    found = [node]
    for item in node.values() if isinstance(node, CommentedMap) else node:
        found += _containers(item)
    return found


def _edit(node: Any, before: dict, after: dict, written: dict, shared: frozenset[int] | set[int] = frozenset()) -> None:
    """Change in ``node`` (a round-trip mapping) the keys whose value differs from ``before`` to
    ``after``; where the new value is the field's default (not in ``written``), the key goes. A
    mapping or list in ``shared`` (ids: it stands in several places through an alias) is copied
    before it is changed, so that its other places keep their values."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    for key in [*before, *(k for k in after if k not in before)]:
        old, new = before.get(key, _ABSENT), after.get(key, _ABSENT)
        if old == new:
            continue
        if key not in written:  # now the field's default (or no value): the file leaves it out
            if key in node:
                _drop(node, key)
            continue
        value, here = written[key], node.get(key, _ABSENT) if key in node else _ABSENT
        if isinstance(here, CommentedMap | CommentedSeq) and id(here) in shared:
            here = node[key] = _own_copy(here)  # an alias (*name): edit this place's copy only
        if (
            isinstance(here, CommentedMap)
            and isinstance(old, dict)
            and isinstance(new, dict)
            and isinstance(value, dict)
        ):
            _edit(here, old, new, value, shared)
        elif (
            isinstance(here, CommentedSeq)
            and isinstance(old, list)
            and isinstance(new, list)
            and isinstance(value, list)
            and len(here) == len(old) == len(new) == len(value)
        ):
            for i, (a, b, w) in enumerate(zip(old, new, value)):
                if a == b:
                    continue
                if (
                    isinstance(here[i], CommentedMap)
                    and isinstance(a, dict)
                    and isinstance(b, dict)
                    and isinstance(w, dict)
                ):
                    if id(here[i]) in shared:
                        here[i] = _own_copy(here[i])
                    _edit(here[i], a, b, w, shared)
                else:
                    here[i] = _scalar(w)
        else:
            node[key] = _scalar(value)


def _tail(container: Any, key: Any) -> tuple[Any, Any, int]:
    """Where ruamel.yaml keeps the comment written after ``container[key]``'s value: with the last
    key or item of a block mapping or list, at the deepest level, in slot 2 of a mapping's entry
    or slot 0 of a list's."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    value = container[key]
    if isinstance(value, CommentedMap | CommentedSeq) and len(value) and not value.fa.flow_style():
        return _tail(value, list(value)[-1] if isinstance(value, CommentedMap) else len(value) - 1)
    return container, key, 0 if isinstance(container, CommentedSeq) else 2


def _drop(node: Any, key: str) -> None:
    """Delete ``key`` from a round-trip mapping, keeping the comment lines written below its value:
    ruamel.yaml keeps them with the value before, but they belong to what follows."""
    keys = list(node)
    position = keys.index(key)
    holder, last, slot = _tail(node, key)
    entry = holder.ca.items.get(last)
    token = entry[slot] if entry else None
    kept = token.value.split("\n", 1)[1] if token is not None and "\n" in token.value else ""
    del node[key]
    node.ca.items.pop(key, None)
    if not kept.strip():
        return
    if position > 0:  # after the value before, as it was after this one
        holder, last, slot = _tail(node, keys[position - 1])
        entry = holder.ca.items.setdefault(last, [None, None, None, None])
        if entry[slot] is None:
            assert token is not None, "a comment is kept only from a token"
            token.value = "\n" + kept
            entry[slot] = token
        else:
            entry[slot].value += kept
    elif len(keys) > 1:  # the first key went: the lines go before the next one
        lines = [line.strip() for line in kept.splitlines() if line.strip()]
        indent = len(kept) - len(kept.lstrip(" "))
        node.yaml_set_comment_before_after_key(
            keys[1],
            before="\n".join(line[1:].removeprefix(" ") if line.startswith("#") else line for line in lines),
            indent=indent,
        )


def edit_yaml(text: str, before: dict, after: dict, written: dict) -> str:
    """A YAML file's text with the values that differ between two versions of its data changed, and
    everything else (comments, key order, quoting, indentation, long lines) as it was.

    Read and written with ruamel.yaml in round-trip mode [2]_. Only the keys whose value
    differs between ``before`` and ``after`` are touched: a changed number or text is replaced
    in place (its end-of-line comment stays), a changed mapping is edited key by key, a field
    whose new value is its default is removed, a new field is added after the mapping's keys.

    Parameters
    ----------
    text
        The file's text.
    before
        Its data as the model reads it, every field (``model_dump(mode="json")`` of what it holds).
    after
        The new data, every field.
    written
        The new data as a file writes it (defaults left out): the values written where a key changes.

    Returns
    -------
    str
        The edited text.

    References
    ----------
    .. [2] ruamel.yaml, "Round-trip" (yaml.dev/doc/ruamel.yaml/detail).
    """
    import io

    rt, document = _round_trip(text)
    _edit(document, before, after, written, _shared(document))
    out = io.StringIO()
    rt.dump(document, out)
    return out.getvalue()

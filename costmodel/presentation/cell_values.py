"""The value of each formula the workbook writes, computed as Excel would, so every reader sees the figures.

XlsxWriter writes a formula with the value given (``write_formula(..., value=)``) and 0 when none is
given; a reader that does not recalculate (pandas, openpyxl, file previews, LibreOffice's default for
``.xlsx``) shows that value. :class:`Cells` records the cells of a workbook as they are written, then
computes every formula in the order its references need (a topological order, so long chains of
months need no recursion) and hands back each formula with its value.

The evaluator knows the small part of Excel the workbook uses and refuses anything else by name:
numbers, text in double quotes, cell references and ranges (``A1``, ``$A$1``, ``'Cash flows'!$A$2:$A$9``),
defined names, the operators ``+ - * / ^ & = <> < > <= >=`` with Excel's precedence (a leading minus
binds tighter than ``^``), and the functions in :data:`FUNCTIONS`. ``SUM``, ``MIN``, ``MAX`` and
``SUMPRODUCT`` skip text as Excel does; an error (``#DIV/0!``, ``#NUM!``, ``#VALUE!``, ``#REF!``)
propagates until ``IFERROR`` catches it.

References
----------
Microsoft, "Calculation operators and precedence in Excel";
https://support.microsoft.com/en-us/office/calculation-operators-and-precedence-in-excel-48be406d-4975-4d31-b2b8-7af9e0e2878a
Microsoft, "IRR function" (Newton's method from a guess, 20 tries, within 0.00001 %);
https://support.microsoft.com/en-us/office/irr-function-64925eaa-9988-495b-b290-3ad0c163c1bc
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy_financial as npf


class FormulaError(ValueError):
    """A formula the evaluator does not know (a function, a token), or a cycle of references."""


@dataclass(frozen=True)
class ExcelError:
    """An Excel error value such as ``#DIV/0!``; it propagates through every operator and function but
    ``IFERROR``."""

    code: str

    def __str__(self) -> str:
        return self.code


DIV0, NUM, VALUE, REF = ExcelError("#DIV/0!"), ExcelError("#NUM!"), ExcelError("#VALUE!"), ExcelError("#REF!")

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"]|"")*")
  | (?P<ref>(?:(?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!)?\$?[A-Z]{1,3}\$?[0-9]+(?::\$?[A-Z]{1,3}\$?[0-9]+)?
            (?![A-Za-z0-9_(]))
  | (?P<number>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)
  | (?P<function>[A-Za-z][A-Za-z0-9_.]*(?=\())
  | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<op><=|>=|<>|[-+*/^&=<>(),])
""",
    re.VERBOSE,
)

_CELL = re.compile(r"\$?([A-Z]{1,3})\$?([0-9]+)")


def _column(letters: str) -> int:
    number = 0
    for char in letters:
        number = number * 26 + ord(char) - ord("A") + 1
    return number - 1


def _cells(ref: str, sheet: str) -> tuple[str, tuple[int, int], tuple[int, int]]:
    """Sheet, first and last (row, column) of an A1 reference or range, 0-based."""
    if "!" in ref:
        named, ref = ref.rsplit("!", 1)
        sheet = named[1:-1].replace("''", "'") if named.startswith("'") else named
    ends = []
    for part in ref.split(":"):
        match = _CELL.fullmatch(part)
        if match is None:
            raise ValueError(f"{ref!r} is not an A1 cell reference or range")
        letters, digits = match.groups()
        ends.append((int(digits) - 1, _column(letters)))
    first, last = ends[0], ends[-1]
    return sheet, first, last


def _tokens(formula: str) -> list[tuple[str, str]]:
    tokens, at = [], 0
    while at < len(formula):
        match = _TOKEN.match(formula, at)
        if match is None:
            raise FormulaError(f"cannot read the formula {formula!r} at {formula[at:]!r}")
        kind = match.lastgroup
        if kind != "space":
            tokens.append((kind, match.group()))
        at = match.end()
    return tokens


class _Parser:
    """Excel's precedence, lowest first: comparison, ``&``, ``+ -``, ``* /``, ``^``, a leading sign."""

    def __init__(self, formula: str, sheet: str, names: dict[str, tuple]):
        self.formula, self.sheet, self.names = formula, sheet, names
        self.tokens = _tokens(formula[1:] if formula.startswith("=") else formula)
        self.at = 0

    def parse(self):
        tree = self.comparison()
        if self.at != len(self.tokens):
            raise FormulaError(f"cannot read the formula {self.formula!r} after token {self.at}")
        return tree

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self, text=None):
        token = self.peek()
        if text is not None and token[1] != text:
            raise FormulaError(f"expected {text!r} in the formula {self.formula!r}, found {token[1]!r}")
        self.at += 1
        return token

    def binary(self, operators, operand):
        tree = operand()
        while self.peek()[0] == "op" and self.peek()[1] in operators:
            tree = ("op", self.take()[1], tree, operand())
        return tree

    def comparison(self):
        return self.binary(("=", "<>", "<", ">", "<=", ">="), self.concatenation)

    def concatenation(self):
        return self.binary(("&",), self.additive)

    def additive(self):
        return self.binary(("+", "-"), self.term)

    def term(self):
        return self.binary(("*", "/"), self.power)

    def power(self):
        return self.binary(("^",), self.unary)

    def unary(self):
        if self.peek() in (("op", "-"), ("op", "+")):
            return ("sign", self.take()[1], self.unary())
        return self.primary()

    def primary(self):
        kind, text = self.take()
        if kind == "number":
            return ("value", float(text))
        if kind == "string":
            return ("value", text[1:-1].replace('""', '"'))
        if kind == "ref":
            return ("range", *_cells(text, self.sheet))
        if kind == "name":
            if text.upper() in ("TRUE", "FALSE"):
                return ("value", text.upper() == "TRUE")
            if text not in self.names:
                raise FormulaError(f"the formula {self.formula!r} uses the name {text!r}, which is not defined")
            return ("range", *self.names[text])
        if kind == "function":
            name = text.upper()
            if name not in FUNCTIONS:
                raise FormulaError(f"the formula {self.formula!r} uses {name}, which this evaluator does not know")
            self.take("(")
            args = []
            if self.peek() != ("op", ")"):
                args.append(self.comparison())
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.comparison())
            self.take(")")
            return ("call", name, args)
        if (kind, text) == ("op", "("):
            tree = self.comparison()
            self.take(")")
            return tree
        raise FormulaError(f"cannot read the formula {self.formula!r} at {text!r}")


def _references(tree, found: list) -> list:
    """Every (sheet, row, column) a parsed formula reads."""
    if tree[0] == "range":
        _, sheet, (r0, c0), (r1, c1) = tree
        found += [(sheet, r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
    elif tree[0] == "op":
        _references(tree[2], found)
        _references(tree[3], found)
    elif tree[0] == "sign":
        _references(tree[2], found)
    elif tree[0] == "call":
        for arg in tree[2]:
            _references(arg, found)
    return found


def _number(value):
    """A scalar as a number for arithmetic (TRUE is 1, an empty cell 0), or an error."""
    if isinstance(value, ExcelError):
        return value
    if isinstance(value, bool):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return VALUE
    return float(value)


def _finite(value):
    return value if isinstance(value, ExcelError) or math.isfinite(value) else NUM


def _arithmetic(op, a, b):
    a, b = _number(a), _number(b)
    if isinstance(a, ExcelError):
        return a
    if isinstance(b, ExcelError):
        return b
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return DIV0 if b == 0 else a / b
    try:  # "^"
        return _finite(float(a**b)) if not (a < 0 and b != int(b)) else NUM
    except (OverflowError, ZeroDivisionError):
        return NUM if a != 0 else DIV0


def _text(value) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)
    return "" if value is None else str(value)


def _compare(op, a, b):
    for x in (a, b):
        if isinstance(x, ExcelError):
            return x
    a, b = _rank(a), _rank(b)
    return {"=": a == b, "<>": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]


def _rank(value) -> tuple[int, str, float]:
    """Where a compared value stands: text above numbers, case-insensitive; an empty cell is 0."""
    if isinstance(value, str):
        return (1, value.lower(), 0.0)
    number = _number(value)
    assert not isinstance(number, ExcelError), "an error is returned before values are compared"
    return (0, "", number)


def _flat(values) -> list:
    return list(values) if isinstance(values, list) else [values]


def _numbers(args, direct_text_counts=False):
    """The numbers of SUM-like arguments: text and empty cells in ranges are skipped, as in Excel."""
    out = []
    for arg in args:
        for value in _flat(arg):
            if isinstance(value, ExcelError):
                raise _Raised(value)
            if isinstance(value, bool) or value is None or (isinstance(value, str) and not direct_text_counts):
                continue
            out.append(float(value))
    return out


class _Raised(Exception):
    def __init__(self, error: ExcelError):
        self.error = error


def _irr(values, guess=0.1):
    """Newton's method from the guess, as Excel and LibreOffice do; #NUM! where it does not converge."""
    rate = float(guess)
    for _ in range(100):
        if rate <= -1:
            return NUM
        npv = sum(v / (1 + rate) ** k for k, v in enumerate(values))
        slope = sum(-k * v / (1 + rate) ** (k + 1) for k, v in enumerate(values))
        if slope == 0:
            return NUM
        step = npv / slope
        rate -= step
        if abs(step) < 1e-12 * max(1.0, abs(rate)):
            return rate
    return NUM


def _text_format(value, pattern):
    """TEXT(value, pattern) for the patterns the workbook uses: ``#,##0``, ``#,##0.00``, ``0.0%``."""
    value = _number(value)
    if isinstance(value, ExcelError):
        return value
    formats = {"#,##0": "{:,.0f}", "#,##0.00": "{:,.2f}", "0.0%": "{:.1%}", "0": "{:.0f}"}
    if pattern not in formats:
        raise FormulaError(f"TEXT with the format {pattern!r} is not known to this evaluator")
    # Excel rounds half away from zero; Python's format rounds half to even
    digits = {"#,##0": 0, "#,##0.00": 2, "0.0%": 3, "0": 0}[pattern]
    scaled = abs(value) * 10**digits
    rounded = math.copysign(math.floor(scaled + 0.5) / 10**digits, value)
    return formats[pattern].format(rounded + 0.0)


def _call(name, args):
    """One function on evaluated arguments (ranges as lists)."""
    try:
        if name == "SUM":
            return sum(_numbers(args))
        if name in ("MIN", "MAX"):
            numbers = _numbers(args)
            return (min if name == "MIN" else max)(numbers) if numbers else 0.0
        if name == "COUNT":
            return float(len(_numbers(args)))
        if name == "SMALL":
            numbers, k = sorted(_numbers(args[:1])), _number(args[1])
            if isinstance(k, ExcelError):
                return k
            return numbers[int(k) - 1] if 1 <= int(k) <= len(numbers) else NUM
        if name == "MATCH":  # exact match only (match_type 0)
            if len(args) < 3 or _number(args[2]) != 0:
                raise FormulaError("MATCH is known to this evaluator with match type 0 only")
            wanted = args[0]
            for k, value in enumerate(_flat(args[1])):
                if not isinstance(value, ExcelError) and value is not None and _compare("=", value, wanted) is True:
                    return float(k + 1)
            return ExcelError("#N/A")
        if name == "SUMPRODUCT":
            columns = [[(_number(v) if not isinstance(v, str) else 0.0) for v in _flat(a)] for a in args]
            for column in columns:
                for v in column:
                    if isinstance(v, ExcelError):
                        return v
            if len({len(c) for c in columns}) != 1:
                return VALUE
            return float(sum(math.prod(row) for row in zip(*columns, strict=True)))
        if name == "ABS":
            x = _number(args[0])
            return x if isinstance(x, ExcelError) else abs(x)
        if name in ("ROUND", "ROUNDUP"):  # half away from zero; ROUNDUP: away from zero
            x, digits = _number(args[0]), _number(args[1])
            if isinstance(x, ExcelError):
                return x
            if isinstance(digits, ExcelError):
                return digits
            scaled = abs(x) * 10 ** int(digits)
            whole = math.floor(scaled + 0.5) if name == "ROUND" else math.ceil(scaled)
            return math.copysign(whole / 10 ** int(digits), x) + 0.0
        if name == "TEXT":
            return _text_format(args[0], args[1])
        if name == "INDEX":
            values, k = _flat(args[0]), _number(args[1])
            if isinstance(k, ExcelError):
                return k
            k = int(k)
            return values[k - 1] if 1 <= k <= len(values) else REF
        if name == "NPV":
            rate = _number(args[0])
            if isinstance(rate, ExcelError):
                return rate
            flows = _numbers(args[1:])
            return _finite(sum(v / (1 + rate) ** (k + 1) for k, v in enumerate(flows)))
        if name == "IRR":
            guess = _number(args[1]) if len(args) > 1 else 0.1
            if isinstance(guess, ExcelError):
                return guess
            flows = _numbers(args[:1])
            if not (any(v > 0 for v in flows) and any(v < 0 for v in flows)):
                return NUM
            return _irr(flows, guess)
        if name == "MIRR":
            flows = _numbers(args[:1])
            rates = [_number(a) for a in args[1:]]
            if not (any(v > 0 for v in flows) and any(v < 0 for v in flows)):
                return DIV0
            return _finite(float(npf.mirr(flows, rates[0], rates[1])))
        if name in ("PMT", "PV"):
            rate, periods, amount = (_number(a) for a in args[:3])
            if isinstance(rate, ExcelError):
                return rate
            if isinstance(periods, ExcelError):
                return periods
            if isinstance(amount, ExcelError):
                return amount
            if rate == 0:
                return -amount / periods if name == "PMT" else -amount * periods
            f = npf.pmt if name == "PMT" else npf.pv
            return _finite(float(f(rate, periods, amount)))
    except _Raised as raised:
        return raised.error
    raise FormulaError(f"{name} is not known to this evaluator")


FUNCTIONS = (
    "SUM",
    "MIN",
    "MAX",
    "COUNT",
    "SMALL",
    "MATCH",
    "SUMPRODUCT",
    "ABS",
    "ROUND",
    "ROUNDUP",
    "TEXT",
    "INDEX",
    "NPV",
    "IRR",
    "MIRR",
    "PMT",
    "PV",
    "IF",
    "IFERROR",
    "AND",
    "OR",
)
"""The Excel functions the evaluator knows."""


class Cells:
    """The cells of a workbook as it is written: values as given, formulas computed at the end.

    ``sheet`` names are the worksheets' names; rows and columns are 0-based as in XlsxWriter.

    Examples
    --------
    >>> cells = Cells()
    >>> cells.name("price", "Inputs", 0, 1)
    >>> cells.value("Inputs", 0, 1, 2.5)
    >>> cells.formula("Sheet", 0, 0, "=price*4-(-2)^2")
    >>> cells.formula("Sheet", 1, 0, '=IFERROR(A1/0,"none")&"!"')
    >>> cells.compute()
    {('Sheet', 0, 0): 6.0, ('Sheet', 1, 0): 'none!'}
    """

    def __init__(self):
        self.values: dict[tuple[str, int, int], object] = {}
        self.formulas: dict[tuple[str, int, int], str] = {}
        self.names: dict[str, tuple] = {}

    def value(self, sheet: str, row: int, col: int, value: object) -> None:
        """A number or a text written as it is."""
        self.values[(sheet, row, col)] = value

    def formula(self, sheet: str, row: int, col: int, formula: str) -> None:
        """A formula, computed by :meth:`compute`."""
        self.formulas[(sheet, row, col)] = formula

    def name(self, name: str, sheet: str, row: int, col: int) -> None:
        """A defined name of one cell."""
        self.names[name] = (sheet, (row, col), (row, col))

    def compute(self) -> dict[tuple[str, int, int], object]:
        """Every formula's value: a float, a text, a bool or an :class:`ExcelError`.

        Raises
        ------
        FormulaError
            A formula uses a function or a syntax the evaluator does not know, a name not
            defined, or refers to itself through other cells.
        """
        trees = {cell: _Parser(text, cell[0], self.names).parse() for cell, text in self.formulas.items()}
        needs = {cell: [c for c in dict.fromkeys(_references(tree, [])) if c in trees] for cell, tree in trees.items()}
        order, state = [], {}
        for start in trees:  # depth first, with an explicit stack
            if start in state:
                continue
            stack = [(start, iter(needs[start]))]
            state[start] = "open"
            while stack:
                cell, pending = stack[-1]
                for nxt in pending:
                    if state.get(nxt) == "open":
                        raise FormulaError(f"the formula in {cell} refers to itself through {nxt}")
                    if nxt not in state:
                        state[nxt] = "open"
                        stack.append((nxt, iter(needs[nxt])))
                        break
                else:
                    stack.pop()
                    state[cell] = "done"
                    order.append(cell)
        known = dict(self.values)
        out = {}
        for cell in order:
            out[cell] = known[cell] = self._evaluate(trees[cell], known, self.formulas[cell])
        return out

    def _evaluate(self, tree, known, formula):
        kind = tree[0]
        if kind == "value":
            return tree[1]
        if kind == "range":
            _, sheet, (r0, c0), (r1, c1) = tree
            if (r0, c0) == (r1, c1):
                return known.get((sheet, r0, c0))
            return [known.get((sheet, r, c)) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        if kind == "sign":
            x = _number(self._evaluate(tree[2], known, formula))
            return x if isinstance(x, ExcelError) or tree[1] == "+" else -x
        if kind == "op":
            op = tree[1]
            a, b = self._evaluate(tree[2], known, formula), self._evaluate(tree[3], known, formula)
            if isinstance(a, list) or isinstance(b, list):
                raise FormulaError(f"a range in an operation in {formula!r}")
            if op == "&":
                for x in (a, b):
                    if isinstance(x, ExcelError):
                        return x
                return _text(a) + _text(b)
            if op in ("=", "<>", "<", ">", "<=", ">="):
                return _compare(op, a, b)
            return _arithmetic(op, a, b)
        name, args = tree[1], tree[2]
        if name == "IF":
            test = self._evaluate(args[0], known, formula)
            if isinstance(test, ExcelError):
                return test
            test = _number(test)
            if isinstance(test, ExcelError):
                return test
            if test:
                return self._evaluate(args[1], known, formula)
            return self._evaluate(args[2], known, formula) if len(args) > 2 else False
        if name == "IFERROR":
            value = self._evaluate(args[0], known, formula)
            return self._evaluate(args[1], known, formula) if isinstance(value, ExcelError) else value
        values = [self._evaluate(a, known, formula) for a in args]
        if name in ("AND", "OR"):
            flags = []
            for value in values:
                for v in _flat(value):
                    if isinstance(v, ExcelError):
                        return v
                    flags.append(bool(_number(v)))
            return all(flags) if name == "AND" else any(flags)
        return _call(name, values)


__all__ = ["Cells", "ExcelError", "FUNCTIONS", "FormulaError"]

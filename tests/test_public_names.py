"""One definition per public name: a name in ``costmodel.__all__`` or a module's ``__all__`` is defined
(def, class or assignment at a module's top level) in one module of costmodel; the others import it."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import costmodel

ROOT = Path(costmodel.__file__).parent

# Public names still defined in two modules, each pair a file of another part of issue 32 (finance.py,
# figure_claims.py, sections.py and text.py; formulas/tokens.py and the public domain functions of the same
# name need a deprecation). Remove an entry when its pair is resolved: the test fails until it is.
KNOWN = {
    "break_even_utilisation": ("costmodel.domain.finance", "costmodel.formulas.utilisation"),
    "check_figure_paths": ("costmodel.presentation.figure_claims", "costmodel.presentation.output"),
    "gpus_needed": ("costmodel.domain.capacity", "costmodel.formulas.fleet"),
    "headline": ("costmodel.presentation.sections", "costmodel.presentation.text"),
    "residual_share": ("costmodel.domain.finance", "costmodel.formulas.returns"),
    "tokens_per_month": ("costmodel.domain.capacity", "costmodel.formulas.tokens"),
    "with_figure_claims": ("costmodel.presentation.figure_claims", "costmodel.presentation.output"),
}


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's top-level statements, looking into ``if`` (but not ``if TYPE_CHECKING``) and ``try``."""
    for node in body:
        if isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                yield from _top_level(node.body)
                yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body)
            for handler in node.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(node.orelse)
            yield from _top_level(node.finalbody)
        else:
            yield node


def _defined(node: ast.stmt) -> list[str]:
    """Names a statement defines (an import defines none: it names a definition made elsewhere)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def definitions() -> tuple[dict[str, list[str]], set[str]]:
    """Name → the modules that define it, and every name of an ``__all__``."""
    where: dict[str, list[str]] = defaultdict(list)
    public: set[str] = set()
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(("costmodel", *path.relative_to(ROOT).with_suffix("").parts))
        for node in _top_level(ast.parse(path.read_text(encoding="utf-8")).body):
            names = _defined(node)
            if "__all__" in names and isinstance(node, ast.Assign):
                public.update(ast.literal_eval(node.value))
            for name in dict.fromkeys(names):
                where[name].append(module)
    return where, public


def test_the_walk_sees_the_package():
    where, public = definitions()
    assert set(costmodel.__all__) <= public
    assert where["compare"] == ["costmodel.domain.compare"]
    assert where["comparison_output"] == ["costmodel.presentation.output"]
    # a redefinition is seen: the two modules that still define headline
    assert where["headline"] == ["costmodel.presentation.sections", "costmodel.presentation.text"]


def test_each_public_name_is_defined_once():
    where, public = definitions()
    twice = {name: tuple(where[name]) for name in sorted(public) if len(where[name]) > 1}
    new = {name: modules for name, modules in twice.items() if name not in KNOWN}
    assert not new, f"public names defined in more than one module (import one from the other): {new}"
    resolved = sorted(set(KNOWN) - set(twice))
    assert not resolved, f"defined once now: remove them from KNOWN: {resolved}"
    assert twice == KNOWN

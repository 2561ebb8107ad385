"""costmodel: own a GPU cluster, rent GPUs, or pay a hosted LLM API?

For a workload (GPU-hours per month, tokens per day, or a training run), costmodel computes
the monthly cost of each option, the cost per unit of work, the volumes at which the
cheapest option changes, and, with the blocks for them, the horizon's cash flows, the
cheapest mix for a demand profile and what the answer's uncertainty is.

The package is layered, each layer importing only those below it (see the docs'
layout page): ``units``/``errors``/``paths`` → ``catalog``/``io`` → ``schema`` (pydantic inputs)
→ ``formulas`` (plain functions of numbers) → ``results``/``resolved`` → ``scenarios`` →
``domain`` → ``presentation`` → ``report``/``cli``. Importing it loads pydantic, numpy and
PyYAML only, and only when a name is first used (names are loaded lazily, as SPEC 1
describes); the report stack (Altair, IPython, papermill, nbconvert) is imported by
:mod:`costmodel.presentation.charts`, :mod:`costmodel.presentation.sections` and
:mod:`costmodel.report` when they are used.

Examples
--------
>>> import costmodel
>>> scenario = costmodel.load_scenario("llama70b-vs-api")
>>> result = costmodel.compare(scenario)      # the domain's result; uncertainty computed when read
>>> result.decision.winner, result.decision.measure, round(result.options["api"].monthly_cost, 2)
('api', 'monthly_cost', 3548.61)
>>> document = costmodel.comparison_output(result, scenario)   # the output contract (schema_version 2.x)
>>> document.options["api"].monthly_cost.unit
'USD/month'
"""

from importlib import import_module
from typing import TYPE_CHECKING

_LAZY = {
    "Catalog": "catalog",
    "default_catalog": "catalog",
    "load_catalog": "catalog",
    "catalog_from": "catalog",
    "load_catalog_overrides": "catalog",
    "break_even": "domain.break_even",
    "break_evens": "domain.break_even",
    "cheapest_by_volume": "domain.break_even",
    "default_volume_max": "domain.break_even",
    "capacity_volume": "domain.capacity",
    "gpu_count": "domain.capacity",
    "gpu_hours_used": "domain.capacity",
    "gpus_needed": "domain.capacity",
    "step_volumes": "domain.capacity",
    "tokens_per_month": "domain.capacity",
    "compare": "domain.compare",
    "energy_result": "domain.energy",
    "monthly_cost": "domain.costs",
    "monthly_cost_components": "domain.costs",
    "Columns": "domain.sweep",
    "cost_sweep": "domain.sweep",
    "cost_table": "domain.sweep",
    "TrainingGrid": "domain.training",
    "training_cost_grid": "domain.training",
    "CatalogError": "errors",
    "InputError": "errors",
    "ScenarioError": "errors",
    "comparison_text": "presentation.text",
    "SCHEMA_VERSION": "presentation.output",
    "ComparisonOutput": "presentation.output",
    "Count": "presentation.output",
    "Quantity": "presentation.output",
    "Series": "presentation.output",
    "comparison_output": "presentation.output",
    "output_json_schema": "presentation.output",
    "what_if": "presentation.whatif",
    "OPTION_LABELS": "resolved",
    "Resolved": "resolved",
    "resolve": "resolved",
    "BreakEven": "results",
    "Comparison": "results",
    "Component": "results",
    "OptionResult": "results",
    "bundled_scenarios": "scenarios",
    "load_scenario": "scenarios",
    "save_scenario": "scenarios",
    "scenario_path": "scenarios",
    "with_inputs": "scenarios",
    "validate_data": "scenarios",
    "CloudRental": "schema",
    "Colocation": "schema",
    "FXRates": "schema",
    "GPUHoursWorkload": "schema",
    "HostedAPI": "schema",
    "Options": "schema",
    "OwnCluster": "schema",
    "Power": "schema",
    "Scenario": "schema",
    "Staffing": "schema",
    "TokensWorkload": "schema",
    "TrainingWorkload": "schema",
    "DAYS_PER_MONTH": "units",
    "HOURS_PER_MONTH": "units",
}
"""Public name → the module that defines it, imported on first use (SPEC 1 lazy loading)."""

_SUBMODULES = {
    "catalog",
    "domain",
    "errors",
    "files",
    "formulas",
    "io",
    "paths",
    "presentation",
    "resolved",
    "results",
    "scenarios",
    "schema",
    "units",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from .catalog import Catalog, catalog_from, default_catalog, load_catalog, load_catalog_overrides
    from .domain.break_even import break_even, break_evens, cheapest_by_volume, default_volume_max
    from .domain.capacity import (
        capacity_volume,
        gpu_count,
        gpu_hours_used,
        gpus_needed,
        step_volumes,
        tokens_per_month,
    )
    from .domain.compare import compare
    from .domain.costs import monthly_cost, monthly_cost_components
    from .domain.energy import energy_result
    from .domain.sweep import Columns, cost_sweep, cost_table
    from .domain.training import TrainingGrid, training_cost_grid
    from .errors import CatalogError, InputError, ScenarioError
    from .presentation.output import (
        SCHEMA_VERSION,
        ComparisonOutput,
        Count,
        Quantity,
        Series,
        comparison_output,
        output_json_schema,
    )
    from .presentation.text import comparison_text
    from .presentation.whatif import what_if
    from .resolved import OPTION_LABELS, Resolved, resolve
    from .results import BreakEven, Comparison, Component, OptionResult
    from .scenarios import bundled_scenarios, load_scenario, save_scenario, scenario_path, validate_data, with_inputs
    from .schema import (
        CloudRental,
        Colocation,
        FXRates,
        GPUHoursWorkload,
        HostedAPI,
        Options,
        OwnCluster,
        Power,
        Scenario,
        Staffing,
        TokensWorkload,
        TrainingWorkload,
    )
    from .units import DAYS_PER_MONTH, HOURS_PER_MONTH

__version__ = "0.3.0"

__all__ = [
    "DAYS_PER_MONTH",
    "HOURS_PER_MONTH",
    "OPTION_LABELS",
    "SCHEMA_VERSION",
    "BreakEven",
    "Catalog",
    "CatalogError",
    "CloudRental",
    "Colocation",
    "Columns",
    "Comparison",
    "ComparisonOutput",
    "Component",
    "Count",
    "FXRates",
    "GPUHoursWorkload",
    "HostedAPI",
    "InputError",
    "OptionResult",
    "Options",
    "OwnCluster",
    "Power",
    "Quantity",
    "Resolved",
    "Scenario",
    "ScenarioError",
    "Series",
    "Staffing",
    "TokensWorkload",
    "TrainingGrid",
    "TrainingWorkload",
    "break_even",
    "break_evens",
    "bundled_scenarios",
    "capacity_volume",
    "catalog_from",
    "cheapest_by_volume",
    "compare",
    "comparison_output",
    "comparison_text",
    "cost_sweep",
    "cost_table",
    "default_catalog",
    "default_volume_max",
    "energy_result",
    "gpu_count",
    "gpu_hours_used",
    "gpus_needed",
    "load_catalog",
    "load_catalog_overrides",
    "load_scenario",
    "monthly_cost",
    "monthly_cost_components",
    "output_json_schema",
    "resolve",
    "save_scenario",
    "scenario_path",
    "step_volumes",
    "tokens_per_month",
    "training_cost_grid",
    "validate_data",
    "what_if",
    "with_inputs",
]

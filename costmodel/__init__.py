"""costmodel: own a GPU cluster, rent GPUs, or pay a hosted LLM API?

For a workload (GPU-hours per month, or tokens per day), costmodel computes the
monthly cost of each option, the cost per unit of work and the volumes at which the
cheapest option changes. Importing it loads pydantic, numpy and PyYAML only; the
report stack (Altair, papermill, nbconvert) is imported by :mod:`costmodel.charts`
and :mod:`costmodel.report` when they are used.

Examples
--------
>>> import costmodel
>>> scenario = costmodel.load_scenario("llama70b-vs-api")
>>> result = costmodel.compare(scenario)
>>> result.cheapest
'api'
"""

from .calculator import (
    OPTION_LABELS,
    OPTIONS,
    BreakEven,
    api_price_per_million,
    break_even,
    break_evens,
    capacity_volume,
    default_volume_max,
    gpu_count,
    gpu_hours_used,
    gpus_needed,
    monthly_cost,
    monthly_cost_components,
    present_options,
    step_volumes,
    tokens_per_month,
)
from .catalog import Catalog, default_catalog, load_catalog
from .errors import CatalogError, InputError, ScenarioError
from .models import (
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
)
from .scenario import load_scenario, save_scenario, scenario_path
from .summary import Columns, Comparison, OptionResult, compare, cost_sweep, cost_table
from .units import DAYS_PER_MONTH, HOURS_PER_MONTH

__version__ = "0.1.0"

__all__ = [
    "OPTIONS", "OPTION_LABELS", "BreakEven", "Catalog", "CatalogError", "CloudRental", "Colocation",
    "Columns", "Comparison", "DAYS_PER_MONTH", "FXRates", "GPUHoursWorkload", "HOURS_PER_MONTH",
    "HostedAPI", "InputError", "OptionResult", "Options", "OwnCluster", "Power", "Scenario",
    "ScenarioError", "Staffing", "TokensWorkload", "api_price_per_million", "break_even", "break_evens",
    "capacity_volume", "compare", "cost_sweep", "cost_table", "default_catalog", "default_volume_max",
    "gpu_count", "gpu_hours_used", "gpus_needed", "load_catalog", "load_scenario", "monthly_cost",
    "monthly_cost_components", "present_options", "save_scenario", "scenario_path", "step_volumes",
    "tokens_per_month",
]

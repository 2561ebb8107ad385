"""Resolve once: a validated scenario plus the catalog become plain numbers the domain computes with.

:func:`resolve` looks up every catalog row, converts every money figure into the reporting
currency once, reads the demand files a scenario names, and computes every derived size once
(GPUs per replica, serving throughput, the own fleet's step, GPU-hours per unit of volume).
The result, :class:`Resolved`, holds numbers; the domain's cost functions take it and a
volume. Nothing derived is stored on the input models.

Uncertainty analysis resolves with ``values``: input paths mapped to numbers or numpy arrays
of samples. Every formula broadcasts, so N samples are one resolved scenario and one call,
not a loop. Inputs that set a whole count (servers, GPUs rented, replica memory) cannot be
arrays and are refused up front by the schema.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from .api_options import ApiOption, resolve_api_option
from .catalog import APIOffer, Catalog, CloudExtras, CloudOffer, Server
from .demand_inputs import DemandInputs, demand_inputs, sized_for_the_busiest_hour
from .errors import ScenarioError
from .gpu_options import (
    CapexItem,
    Exchange,
    OwnOption,
    RentOption,
    Staff,
    exchange_rate,
    resolve_own_option,
    resolve_rent_options,
)
from .schema import Scenario
from .schema.inputs import CATALOG_INPUTS, THROUGHPUT_INPUT, input_paths
from .schema.options import OPTION_LABELS
from .serving_target import (
    OperatingPoint,
    ServingCapacity,
    ServingPlan,
)
from .sizing import WorkloadInputs, workload_inputs
from .training_inputs import (
    GoodputInputs,
    StageInputs,
    TrainingInputs,
    checkpoint_interval,
    checkpoint_intervals,
    duration_hours,
)

Number = Any
"""A float, or a numpy array of samples where the input was given as one."""


# --- resolved inputs ---------------------------------------------------------------------------------


Option = OwnOption | RentOption | ApiOption


@dataclass(frozen=True)
class Resolved:
    """A scenario resolved against its catalog: every input a number (or an array of samples).

    Attributes
    ----------
    scenario
        The validated input it came from (for titles, sources and re-resolving).
    catalog
        The catalog it was resolved against.
    options
        Option name → resolved option, in display order.
    workload
        The workload.
    finance, uncertainty
        The scenario's blocks (plain numbers; no currency to convert), or None.
    demand
        The demand profile, files read, or None.
    estimates
        Catalog rows behind the result that are unsourced estimates (grade U), cited.
    values
        The inputs replaced by numbers or samples, by path (empty for the scenario as given).
    cited
        The catalog rows whose prices the options use (servers, rental and API offers), for
        their sources and ages.
    """

    scenario: Scenario
    catalog: Catalog
    currency: str
    options: dict[str, Option]
    workload: WorkloadInputs
    finance: Any
    uncertainty: Any
    demand: DemandInputs | None
    estimates: tuple[str, ...]
    values: Mapping[str, Any] = field(default_factory=dict)
    cited: tuple[Any, ...] = ()

    def __repr__(self) -> str:
        """The scenario, its volume and options in one line (the catalog it holds is large)."""
        sampled = f", {len(self.values)} sampled inputs" if self.values else ""
        volume = self.volume
        shown = f"{float(volume):,.0f}" if np.ndim(volume) == 0 and np.isfinite(volume) else "sampled"
        return (
            f"<Resolved {self.title!r}: {self.workload.kind} workload at {shown} {self.volume_unit}; options "
            f"{', '.join(self.options)}; {self.currency}{sampled}>"
        )

    def sampled_inputs(self) -> list[str]:
        """The paths of the inputs that hold an array of samples (resolved with ``values``), sorted."""
        return sorted(path for path, value in self.values.items() if np.ndim(value) > 0)

    @property
    def title(self) -> str:
        """The scenario's title."""
        return self.scenario.title

    @property
    def volume(self) -> Number:
        """The workload's volume in its own unit."""
        return self.workload.volume

    @property
    def volume_unit(self) -> str:
        """Unit of :attr:`volume`."""
        return self.workload.volume_unit

    def at_volume(self, volume: Number) -> Resolved:
        """The same scenario at another volume (a demand profile keeps its shape, scaled to it)."""
        return dataclasses.replace(self, workload=dataclasses.replace(self.workload, volume=volume))

    def option(self, name: str) -> Option:
        """The option called ``name``.

        Raises
        ------
        ValueError
            The scenario has no such option.
        """
        if name not in self.options:
            raise ValueError(f"the scenario has no {name!r} option; it has {', '.join(self.options)}")
        return self.options[name]

    def label(self, name: str) -> str:
        """Display name of an option."""
        return self.options[name].label if name in self.options else OPTION_LABELS.get(name, name)


# --- resolving ------------------------------------------------------------------------------------------


def _problem(loc: str, value: Any, reason: str) -> ScenarioError:
    return ScenarioError(None, [(loc, value, reason)])


def _apply(node: Any, parts: tuple[str, ...], value: Any) -> Any:
    """A copy of ``node`` with the field at ``parts`` replaced (no validation: values may be arrays)."""
    head, rest = parts[0], parts[1:]
    if isinstance(node, list):
        copy = list(node)
        copy[int(head)] = _apply(node[int(head)], rest, value) if rest else value
        return copy
    if isinstance(node, dict):
        copy = dict(node)
        copy[head] = _apply(node[head], rest, value) if rest else value
        return copy
    child = getattr(node, head)
    new = _apply(child, rest, value) if rest else value
    if isinstance(node, BaseModel):
        return node.model_copy(update={head: new})
    return dataclasses.replace(node, **{head: new})


def _estimates(rows: tuple[Server | CloudOffer | APIOffer | CloudExtras, ...]) -> tuple[str, ...]:
    """The rows among ``rows`` that are unsourced estimates (grade U), each with its file and source."""
    return tuple(f"{row.source_file}: {row.ident}: {row.source}" for row in rows if row.quality == "U")


_KNOWN_PATHS: dict[tuple[int, int], tuple[Any, Any, frozenset[str]]] = {}


def _known_paths(scenario: Scenario, catalog: Catalog) -> frozenset[str]:
    """The scenario's numeric input paths, remembered for the last few (scenario, catalog) pairs.

    A sweep, a claim's search or a what-if panel resolves the same validated scenario with new
    values thousands of times; walking its model for the paths each time cost about 1 ms.
    The entry keeps both objects, so an id is not reused while it is remembered.
    """
    key = (id(scenario), id(catalog))
    hit = _KNOWN_PATHS.get(key)
    if hit is not None and hit[0] is scenario and hit[1] is catalog:
        return hit[2]
    paths = frozenset(input_paths(scenario, catalog))
    if len(_KNOWN_PATHS) >= 16:
        _KNOWN_PATHS.pop(next(iter(_KNOWN_PATHS)))
    _KNOWN_PATHS[key] = (scenario, catalog, paths)
    return paths


def resolve(
    scenario: Scenario | Resolved, catalog: Catalog | None = None, values: Mapping[str, Any] | None = None
) -> Resolved:
    """Resolve a validated scenario against its catalog, once.

    Parameters
    ----------
    scenario
        A validated :class:`~costmodel.schema.Scenario` (a :class:`Resolved` is returned as
        it is when no ``values`` are given, or re-resolved from its scenario with them).
    catalog
        Catalog to look rows up in; default the one the scenario was validated against.
    values
        Input path → number or numpy array replacing the input (see
        :mod:`costmodel.schema.inputs` for the names). Arrays of different inputs must
        broadcast together. Values are not validated again: callers keep them in range.

    Returns
    -------
    Resolved

    Raises
    ------
    ScenarioError
        A rule that needs a computation is broken (the model does not fit a server's memory,
        no throughput row and no estimate, the training state does not fit, a demand file
        cannot be read or disagrees with the workload); the field is named.
    KeyError
        A path in ``values`` that is not a numeric input of the scenario.
    TypeError
        ``scenario`` is neither (a name or a path: load it first with
        :func:`costmodel.load_scenario`; scenario data: :func:`costmodel.validate_data`).
    """
    if not isinstance(scenario, (Scenario, Resolved)):
        hint = ""
        if isinstance(scenario, (str, Path)):
            hint = " (a name or a path: costmodel.load_scenario(it) makes a Scenario of it)"
        elif isinstance(scenario, dict):
            hint = " (scenario data: costmodel.validate_data(it) makes a Scenario of it)"
        raise TypeError(f"resolve takes a Scenario or a Resolved, not {type(scenario).__name__}{hint}")
    previous = None
    if isinstance(scenario, Resolved):
        if not values:
            return scenario
        catalog = catalog or scenario.catalog
        values = {**scenario.values, **values}
        previous = scenario.demand if not any(p.startswith("demand.") for p in values) else None
        scenario = scenario.scenario
    return _resolve(scenario, catalog or scenario.catalog, dict(values or {}), previous)


def _resolve(scenario: Scenario, catalog: Catalog, values: dict[str, Any], previous: DemandInputs | None) -> Resolved:
    """:func:`resolve` of a validated scenario: the values applied, then the workload, demand and options."""
    if scenario.overrides is not None:  # catalog figures the scenario replaces; given values win
        values = {**scenario.overrides.values, **values}
    if values:
        known = _known_paths(scenario, catalog)
        for path in values:
            if path not in known:
                raise KeyError(f"{path}: not a numeric input of this scenario")
        for path, value in values.items():
            if path not in CATALOG_INPUTS and path != THROUGHPUT_INPUT:
                scenario = _apply(scenario, tuple(path.split(".")), value)

    fx = functools.partial(exchange_rate, scenario)
    workload = workload_inputs(scenario, catalog, values)
    demand = demand_inputs(scenario, workload, previous)
    if demand is not None and workload.kind != "training":
        workload = sized_for_the_busiest_hour(workload, demand)
    options: dict[str, Option] = {}
    own = resolve_own_option(scenario, catalog, values, workload, fx, demand)
    if own is not None:
        options["own"] = own
    options.update(resolve_rent_options(scenario, catalog, values, workload, fx))
    apis, offers = _api_options(scenario, catalog, values, workload, fx, demand)
    options.update(apis)
    cited = (
        *(
            option.server if isinstance(option, OwnOption) else option.offer
            for option in options.values()
            if option.kind != "api"
        ),
        *offers,
    )
    extras = {  # the cloud_extras rows the rent options' lines are priced from, once each
        option.extras.row.provider: option.extras.row
        for option in options.values()
        if isinstance(option, RentOption) and option.extras is not None and option.extras.row is not None
    }
    cited = (*cited, *extras.values())
    return Resolved(
        scenario=scenario,
        catalog=catalog,
        currency=scenario.reporting_currency,
        options=options,
        workload=workload,
        finance=scenario.finance,
        uncertainty=scenario.uncertainty,
        demand=demand,
        estimates=_estimates(cited),
        values=values,
        cited=cited,
    )


def _api_options(
    scenario: Scenario,
    catalog: Catalog,
    values: Mapping[str, Any],
    workload: WorkloadInputs,
    fx: Exchange,
    demand: DemandInputs | None,
) -> tuple[dict[str, ApiOption], list[APIOffer]]:
    """The API options by name: ``api`` (its offer with any sampled price in it) and each of ``options.apis``;
    and the offers' catalog rows as listed (the options hold them at the prices in force on the bill's date)."""
    options: dict[str, ApiOption] = {}
    offers: list[APIOffer] = []
    work = scenario.workload
    api = scenario.options.api
    if api is not None:
        offer = catalog.api_offers[api.offer]
        for path, spec in CATALOG_INPUTS.items():
            if spec.option == "api" and path in values:
                offer = offer.model_copy(update={spec.column: values[path]})
        offers.append(offer)
        options["api"] = resolve_api_option("api", api, offer, work, workload, fx, catalog=catalog, demand=demand)
    for index, extra in enumerate(scenario.options.apis):
        offer = catalog.api_offers[extra.offer]
        offers.append(offer)
        options[f"api:{extra.name}"] = resolve_api_option(
            f"api:{extra.name}", extra, offer, work, workload, fx, index, catalog, demand
        )
    return options, offers


def as_resolved(scenario: Scenario | Resolved) -> Resolved:
    """``scenario`` resolved (a :class:`Resolved` is returned as it is)."""
    return scenario if isinstance(scenario, Resolved) else resolve(scenario)


__all__ = [
    "OPTION_LABELS",
    "ApiOption",
    "CapexItem",
    "DemandInputs",
    "GoodputInputs",
    "OwnOption",
    "RentOption",
    "OperatingPoint",
    "Resolved",
    "ServingCapacity",
    "ServingPlan",
    "Staff",
    "StageInputs",
    "TrainingInputs",
    "WorkloadInputs",
    "as_resolved",
    "checkpoint_interval",
    "checkpoint_intervals",
    "duration_hours",
    "resolve",
]

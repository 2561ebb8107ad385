"""Scenario files: find, load (strict YAML, schema, resolve check), change and save.

A scenario file is one YAML mapping that validates as :class:`~costmodel.schema.Scenario`.
Any problem, from a YAML syntax error to a model that does not fit a GPU's memory, raises one
:class:`~costmodel.errors.ScenarioError` that names the file, the field, the value and the
reason, for every problem found at once.
"""

from __future__ import annotations

import copy
import typing
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .catalog import Catalog
from .errors import ScenarioError, did_you_mean, from_validation_error
from .files import write_text_atomically
from .io.yaml_files import dump_yaml, edit_yaml, parse_yaml, read_text
from .paths import SCENARIO_DIR, scenario_path
from .resolved import resolve
from .schema import Scenario
from .schema.values import set_path


def bundled_scenarios() -> list[str]:
    """Names of the scenarios bundled in data/scenarios/, sorted."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))


def _read_text(path: Path) -> str:
    if not path.exists() and path.parent == SCENARIO_DIR:
        names = bundled_scenarios()
        reason = (f"no bundled scenario of that name{did_you_mean(path.stem, names)}; bundled: {', '.join(names)} "
                  "(or give a path to a YAML file)")
        raise ScenarioError(path, [("(file)", path.stem, reason)])
    return read_text(path)


def _read(path: Path) -> Any:
    return parse_yaml(_read_text(path), path)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    found, stack = [], [annotation]
    while stack:
        item = stack.pop()
        if isinstance(item, type) and issubclass(item, BaseModel):
            found.append(item)
        else:
            stack.extend(typing.get_args(item))
    return found


def _fields_at(parts: list[str], data: Any) -> list[str]:
    """Field names the schema allows at the place of ``parts[-1]`` (for "did you mean")."""
    models: list[type[BaseModel]] = [Scenario]
    node = data
    for part in parts[:-1]:
        if isinstance(node, list):
            node = node[int(part)] if part.isdigit() and int(part) < len(node) else None
            continue
        chosen = models[0] if len(models) == 1 else next(
            (m for m in models if isinstance(node, dict) and node.get("kind") in typing.get_args(
                m.model_fields.get("kind").annotation if "kind" in m.model_fields else None)), None)
        if chosen is None or part not in chosen.model_fields:
            return []
        models = _models_in(chosen.model_fields[part].annotation) or models
        node = node.get(part) if isinstance(node, dict) else None
    if len(models) > 1 and isinstance(node, dict):
        models = [m for m in models if "kind" in m.model_fields
                  and node.get("kind") in typing.get_args(m.model_fields["kind"].annotation)] or models
    return sorted({name for m in models for name in m.model_fields})


def _hints(error: ScenarioError, data: Any) -> ScenarioError:
    """Add "did you mean" to each misspelt key."""
    problems = []
    for field, value, reason in error.problems:
        if reason.startswith("not a field here"):
            parts = field.split(".")
            hint = did_you_mean(parts[-1], _fields_at(parts, data))
            if hint:
                reason = f"not a field here{hint}"
        problems.append((field, value, reason))
    return ScenarioError(error.path, problems)


def validate_data(data: Any, path: str | Path | None = None, catalog: Catalog | None = None) -> Scenario:
    """Validate plain data (a parsed YAML mapping) as a scenario, and check that it resolves.

    Raises
    ------
    ScenarioError
        Every problem at once, each naming the field, the value and the rule.
    """
    if not isinstance(data, dict):
        raise ScenarioError(path, [("(top level)", data, "a scenario file must be a YAML mapping of fields")])
    if data.get("offers") is not None:
        catalog = _with_offers(data, path, catalog)
    try:
        scenario = Scenario.model_validate(data, context={"catalog": catalog} if catalog else None)
    except ValidationError as exc:
        raise _hints(from_validation_error(exc, path, ScenarioError, data), data) from None
    try:
        resolve(scenario, catalog)
    except ScenarioError as exc:
        raise ScenarioError(path, exc.problems) from None
    if path is not None:
        _SOURCES[id(scenario)] = str(path)
        weakref.finalize(scenario, _SOURCES.pop, id(scenario), None)
    return scenario


_SOURCES: dict[int, str] = {}
"""The file each live scenario was read from (kept beside it, not in it, so two equal scenarios stay equal)."""


_ORIGINS: dict[int, tuple[str, str]] = {}
"""The file (its path and its text as read) a live scenario was loaded from, or changed from by
:func:`with_inputs`: :func:`save_scenario` edits that text, keeping its comments and key order."""


def _remember_origin(scenario: Scenario, origin: tuple[str, str] | None) -> None:
    if origin is not None and id(scenario) not in _ORIGINS:
        _ORIGINS[id(scenario)] = origin
        weakref.finalize(scenario, _ORIGINS.pop, id(scenario), None)


def origin_path(scenario: Scenario) -> str | None:
    """The file whose text :func:`save_scenario` edits for ``scenario``: the one it was loaded from,
    also through :func:`with_inputs` (None for a scenario built otherwise)."""
    origin = _ORIGINS.get(id(scenario))
    return None if origin is None else origin[0]


def source_path(scenario: Scenario) -> str | None:
    """The file ``scenario`` was read from by :func:`validate_data` (or :func:`load_scenario`), if any."""
    return _SOURCES.get(id(scenario))


def _with_offers(data: dict, path, catalog: Catalog | None) -> Catalog:
    """The catalog with the scenario's inline ``offers`` rows added (see :mod:`costmodel.schema.offers`)."""
    from .catalog import merged_catalog
    from .errors import CatalogError
    from .schema.offers import Offers

    try:
        offers = Offers.model_validate(data["offers"])
    except ValidationError as exc:
        problems = from_validation_error(exc, path, ScenarioError, data["offers"]).problems
        raise ScenarioError(path, [(f"offers.{field}", value, reason) for field, value, reason in problems]) from None
    try:
        return merged_catalog(offers.tables(), catalog)
    except CatalogError as exc:
        raise ScenarioError(path, [(f"offers.{field}", value, reason) for field, value, reason in exc.problems]) \
            from None


def load_scenario(name_or_path: str | Path, catalog: Catalog | None = None) -> Scenario:
    """Read and validate a scenario file.

    Parameters
    ----------
    name_or_path
        Path of a YAML file, or the name of a bundled scenario in data/scenarios/.
    catalog
        Catalog to resolve server, GPU and offer ids against. Default: the bundled one.

    Returns
    -------
    Scenario

    Raises
    ------
    ScenarioError
        The file is missing or unreadable, is not valid YAML (1.2 core schema), is not a
        mapping, or breaks the scenario schema (missing field, negative price, unknown id,
        a currency with no FX rate, a model that does not fit, ...).
    """
    path = scenario_path(name_or_path)
    text = _read_text(path)
    scenario = validate_data(parse_yaml(text, path), path, catalog)
    _remember_origin(scenario, (str(path), text))
    return scenario


def scenario_data(scenario: Scenario) -> dict[str, Any]:
    """The scenario as plain data (what its YAML file would hold), defaults left out."""
    return scenario.model_dump(mode="json", exclude_defaults=True)


def with_inputs(scenario: Scenario, values: Mapping[str, Any]) -> Scenario:
    """A copy of the scenario with some inputs changed, validated afresh.

    Parameters
    ----------
    scenario
        The scenario.
    values
        Field path (``workload.tokens_per_day``, ``options.own.power.pue``) → new value; a
        value of ``None`` removes the field (its default applies).

    Raises
    ------
    ScenarioError
        A path that the scenario's data does not hold, or new values that break a rule.
    """
    data = copy.deepcopy(scenario.model_dump(mode="json", exclude_none=True))
    for path, value in values.items():
        try:
            set_path(data, path, value)
        except KeyError:
            raise ScenarioError(None, [(path, value, "not a field of this scenario")]) from None
    changed = validate_data(data, None, scenario.catalog)
    _remember_origin(changed, _ORIGINS.get(id(scenario)))
    return changed


def save_scenario(scenario: Scenario, path: str | Path, template: str | Path | None = None) -> Path:
    """Write a scenario to a YAML file that :func:`load_scenario` reads back equal.

    The text is that of the file the scenario came from, with only the values that differ
    changed (:func:`scenario_text`): its comments, key order and layout are kept. The file is
    written to a temporary name first and renamed, so a failure leaves no half-written file.

    Parameters
    ----------
    scenario
        The scenario to save.
    path
        Destination file. Its folder must exist.
    template
        A scenario file (name or path) whose text to edit. Default: the file the scenario was
        loaded from by :func:`load_scenario` (also through :func:`with_inputs`), if any.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    ScenarioError
        ``template`` is given and cannot be read or is not a valid scenario.
    """
    path = Path(path)
    write_text_atomically(path, scenario_text(scenario, template))
    return path


def scenario_text(scenario: Scenario, template: str | Path | None = None) -> str:
    """A scenario's YAML text: its origin file's text with the changed values edited in, or a plain dump.

    With a template (``template``, else the file the scenario was loaded from), the file's text
    is read in ruamel.yaml's round-trip mode and only the fields whose value differs from what
    the file gives are changed (:func:`~costmodel.io.yaml_files.edit_yaml`): every comment line,
    the key order, quoting and indentation stay, a changed value keeps its end-of-line comment.
    The edited text is read back and checked; where it would not read back equal (or there is
    no template), the scenario is written plainly, defaults left out.

    Parameters
    ----------
    scenario
        The scenario.
    template
        A scenario file (name or path) whose text to edit; default: the scenario's origin file.

    Returns
    -------
    str
        YAML text that :func:`load_scenario` reads back equal to ``scenario``.

    Raises
    ------
    ScenarioError
        ``template`` is given and cannot be read or is not a valid scenario.
    """
    plain = dump_yaml(scenario_data(scenario))
    if template is not None:
        where = scenario_path(template)
        origin: tuple[str, str] | None = (str(where), _read_text(where))
    else:
        origin = _ORIGINS.get(id(scenario))
    if origin is None:
        return plain
    where, text = Path(origin[0]), origin[1]
    try:
        before = validate_data(parse_yaml(text, where), where, scenario.catalog)
    except ScenarioError:
        if template is not None:
            raise
        return plain
    after = scenario.model_dump(mode="json")
    edited = edit_yaml(text, before.model_dump(mode="json"), after, scenario_data(scenario))
    try:
        again = validate_data(parse_yaml(edited, where), None, scenario.catalog)
    except ScenarioError:
        return plain
    return edited if again.model_dump(mode="json") == after else plain


SCENARIO_SCHEMA_VERSION = 1
"""Version of the scenario file format (the JSON the commands print has its own, presentation.output.SCHEMA_VERSION)."""

_ID_FIELDS = {("OwnCluster", "server"): "servers", ("CloudRental", "offer"): "cloud_offers",
              ("HostedAPI", "offer"): "api_offers", ("Serving", "model"): "models",
              ("Serving", "throughput_row"): "throughput"}


def scenario_json_schema(catalog: Catalog | None = None) -> dict[str, Any]:
    """The JSON Schema of a scenario file, with catalog ids as enums (for editors' completion).

    Every ``server``, ``offer``, ``gpu``, ``model`` and ``throughput_row`` field lists the ids
    of the catalog (the bundled one, or ``catalog``).
    """
    from .catalog import default_catalog

    catalog = catalog or default_catalog()
    schema = Scenario.model_json_schema()
    for name, definition in schema.get("$defs", {}).items():
        for field, spec in definition.get("properties", {}).items():
            table = _ID_FIELDS.get((name, field)) or ("gpus" if field == "gpu" else None)
            if table is None:
                continue
            # the bundled ids for completion, and any other text: an id of the scenario's offers: block or of a
            # --catalog folder is valid too (the validator checks it against the catalog in use)
            ids = {"anyOf": [{"type": "string", "enum": sorted(getattr(catalog, table))}, {"type": "string"}]}
            if spec.get("type") == "string":
                spec.pop("type")
                spec.update(ids)
            elif "anyOf" in spec and any(part.get("type") == "string" for part in spec["anyOf"]):
                spec["anyOf"] = [part for part in spec["anyOf"] if part.get("type") != "string"] + ids["anyOf"]
    serving = schema.get("$defs", {}).get("Serving", {}).get("properties", {}).get("redundancy")
    if serving is not None and "anyOf" in serving:      # the short form the validator takes
        serving["anyOf"].append({"const": "n_plus_1", "description": "one spare replica, no failure model"})
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["x-costmodel-schema-version"] = SCENARIO_SCHEMA_VERSION
    return schema

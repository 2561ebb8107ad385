"""Scenario files: find, load (strict YAML, schema, resolve check), change and save.

A scenario file is one YAML mapping that validates as :class:`~costmodel.schema.Scenario`.
Any problem, from a YAML syntax error to a model that does not fit a GPU's memory, raises one
:class:`~costmodel.errors.ScenarioError` that names the file, the field, the value and the
reason, for every problem found at once.
"""

from __future__ import annotations

import copy
import math
import typing
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .catalog import Catalog
from .errors import FileKindError, InputError, ScenarioError, did_you_mean, from_validation_error
from .files import write_atomically, write_text_atomically
from .io.yaml_files import dump_yaml, edit_yaml, parse_yaml, read_text
from .paths import SCENARIO_DIR, scenario_path
from .resolved import Resolved, resolve
from .schema import Scenario
from .schema.fleet import is_fleet_data
from .schema.values import set_path


def bundled_scenarios() -> list[str]:
    """Names of the scenarios bundled in data/scenarios/, sorted."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))


def referenced_scenario(reference: str, folder: str | Path) -> Path:
    """The scenario file another file (a fleet's member) names: ``reference`` as a path relative to
    ``folder`` when that file exists, else the bundled scenario of that name as ``costmodel compare``
    resolves it (:func:`costmodel.paths.scenario_path`), else the path relative to ``folder`` (whose read
    names it; made absolute when it is a bare name, which :func:`load_scenario` would take for a bundled one).

    Parameters
    ----------
    reference
        A path (absolute, or relative to ``folder``) or the name of a bundled scenario. [-]
    folder
        The folder of the file that holds the reference. [-]

    Returns
    -------
    Path

    Examples
    --------
    >>> referenced_scenario("h200-job-log", "/nowhere") == SCENARIO_DIR / "h200-job-log.yaml"
    True
    >>> referenced_scenario("../scenarios/x.yaml", "/nowhere/fleets").as_posix()
    '/nowhere/fleets/../scenarios/x.yaml'
    """
    relative = Path(folder) / reference
    if relative.exists():
        return relative
    named = scenario_path(reference)
    if named.parent == SCENARIO_DIR and named.name == f"{reference}.yaml" and named.is_file():
        return named
    return relative if len(relative.parts) > 1 else relative.absolute()


def _read_text(path: Path) -> str:
    if not path.exists() and path.parent == SCENARIO_DIR:
        names = bundled_scenarios()
        reason = (
            f"no bundled scenario of that name{did_you_mean(path.stem, names)}; bundled: {', '.join(names)} "
            "(or give a path to a YAML file)"
        )
        # named as the user typed it: the path it was looked for at is the package's, not theirs
        raise ScenarioError(path.stem, [("(bundled name)", path.stem, reason)])
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
        chosen = (
            models[0]
            if len(models) == 1
            else next(
                (
                    m
                    for m in models
                    if isinstance(node, dict)
                    and node.get("kind")
                    in typing.get_args(m.model_fields["kind"].annotation if "kind" in m.model_fields else None)
                ),
                None,
            )
        )
        if chosen is None or part not in chosen.model_fields:
            return []
        models = _models_in(chosen.model_fields[part].annotation) or models
        node = node.get(part) if isinstance(node, dict) else None
    if len(models) > 1 and isinstance(node, dict):
        models = [
            m
            for m in models
            if "kind" in m.model_fields and node.get("kind") in typing.get_args(m.model_fields["kind"].annotation)
        ] or models
    return sorted({name for m in models for name in m.model_fields})


def _hints(error: InputError, data: Any) -> ScenarioError:
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
    return _validated(data, path, catalog).scenario


def demand_folder(data: Any, path: str | Path | None, folder: str | None = None) -> str | None:
    """The folder a scenario's relative ``demand.path`` is read from: the scenario file's when the file is there,
    else None (data/, as the bundled scenarios name their files).

    ``folder`` is the one already found for the scenario this data was changed from (:func:`with_inputs`),
    kept when the data has no file of its own. A scenario written with its demand file beside it
    (``costmodel bills --scenario-out``) so runs wherever the pair is moved.
    """
    demand = data.get("demand") if isinstance(data, dict) else None
    named = demand.get("path") if isinstance(demand, dict) else None
    if not isinstance(named, str) or not named or Path(named).is_absolute():
        return None
    if path is None:
        return folder
    here = Path(path).absolute().parent
    return str(here) if (here / named).is_file() else None


def _validated(data: Any, path: str | Path | None, catalog: Catalog | None, folder: str | None = None) -> Resolved:
    """:func:`validate_data`, giving the scenario as the check resolved it (its ``scenario`` the one validated);
    ``folder``: where a relative demand file was found for the scenario the data was changed from."""
    if not isinstance(data, dict):
        raise ScenarioError(path, [("(top level)", data, "a scenario file must be a YAML mapping of fields")])
    if is_fleet_data(data):
        raise FileKindError(
            path, [("kind", data.get("kind"), "this is a fleet file (kind: fleet): use `costmodel fleet`")]
        )
    if data.get("offers") is not None:
        catalog = _with_offers(data, path, catalog)
    context = {"catalog": catalog, "demand_folder": demand_folder(data, path, folder)}
    try:
        scenario = Scenario.model_validate(data, context={k: v for k, v in context.items() if v} or None)
    except ValidationError as exc:
        raise _hints(from_validation_error(exc, path, ScenarioError, data), data) from None
    try:
        resolved = resolve(scenario, catalog)
    except ScenarioError as exc:
        raise ScenarioError(path, exc.problems) from None
    if path is not None:
        _SOURCES[id(scenario)] = str(path)
        weakref.finalize(scenario, _SOURCES.pop, id(scenario), None)
    return resolved


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
        raise ScenarioError(
            path, [(f"offers.{field}", value, reason) for field, value, reason in exc.problems]
        ) from None


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
    return load_resolved(name_or_path, catalog).scenario


def load_resolved(name_or_path: str | Path, catalog: Catalog | None = None) -> Resolved:
    """Read and validate a scenario file, and give it resolved (:func:`costmodel.resolved.resolve`).

    What :func:`load_scenario` does, keeping the resolution its check makes: a caller that goes
    on to compare (``costmodel batch``) resolves the scenario once, not twice.

    Parameters
    ----------
    name_or_path
        Path of a YAML file, or the name of a bundled scenario in data/scenarios/.
    catalog
        Catalog to resolve server, GPU and offer ids against. Default: the bundled one.

    Returns
    -------
    Resolved
        Its ``scenario`` is the scenario :func:`load_scenario` gives.

    Raises
    ------
    ScenarioError
        As :func:`load_scenario`.
    """
    path = scenario_path(name_or_path)
    text = _read_text(path)
    resolved = _validated(parse_yaml(text, path), path, catalog)
    _remember_origin(resolved.scenario, (str(path), text))
    return resolved


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
    changed = _validated(data, None, scenario.catalog, scenario.demand_folder).scenario
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
    origin = scenario_path(template) if template is not None else _ORIGINS.get(id(scenario), (None,))[0]
    write_scenario_text(path, scenario_text(scenario, template), origin)
    return path


def write_scenario_text(path: str | Path, text: str, like: str | Path | None = None) -> None:
    """Write a scenario's text whole or not at all, its lines ending as those of the file ``like``.

    Parameters
    ----------
    path
        Destination file.
    text
        The text, lines ending in LF.
    like
        The file it was edited from: where its lines end with CR LF (as Windows editors write
        them; the text read from it has LF), so do those written. Default: LF.
    """
    if like is None or not _crlf(Path(like)):
        write_text_atomically(path, text)
        return
    data = text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")
    write_atomically(path, lambda temporary: temporary.write_bytes(data))


def _crlf(path: Path) -> bool:
    """Whether a file's first line ends with CR LF (False where it cannot be read)."""
    try:
        with path.open("rb") as file:
            head = file.read(65_536)
    except OSError:
        return False
    end = head.find(b"\n")
    return end > 0 and head[end - 1 : end] == b"\r"


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

_ID_FIELDS = {
    ("OwnCluster", "server"): "servers",
    ("CloudRental", "offer"): "cloud_offers",
    ("HostedAPI", "offer"): "api_offers",
    ("Serving", "model"): "models",
    ("Serving", "throughput_row"): "throughput",
}

_CATALOG = "needs the catalog in use"
_BETWEEN = "compares two values of the file, which JSON Schema cannot do"

VALIDATOR_ONLY_RULES: dict[str, str] = {
    # the catalog: the schema lists the bundled ids for completion but takes any text, since a scenario's
    # offers: block or a --catalog folder may add ids
    "unknown_id": f"a catalog id (server, offer, GPU, model, curve, grid region, PUE row) exists: {_CATALOG}",
    "gpu_mismatch": f"the own server's and rented offer's GPU is the workload's GPU: {_CATALOG}",
    "no_fx_rate": f"fx.rates holds the currency of every price, catalog rows' included: {_CATALOG}",
    "reserved_dearer": f"a reserved price is at most the offer's on-demand price: {_CATALOG}",
    "reserved_price_missing": f"rental_price_path from_reserved has both reserved prices: {_CATALOG}",
    "forward_not_positive": f"rental_price_path from_reserved implies a positive price: {_CATALOG}",
    "beyond_context": f"serving.request fits the model's context: {_CATALOG}",
    "offers_catalog": "the offers: block's rows join the catalog in use",
    "unknown_time_zone": "a time zone is in the IANA tz database of the machine",
    "resolve": "the scenario resolves: the model fits the GPUs, demand files read, and the other checks that "
    "need a computation",
    # rules between values
    "low_above_high": f"a distribution's or range's low is at most its high: {_BETWEEN}",
    "mode_outside": f"a triangular mode lies between low and high: {_BETWEEN}",
    "too_long": f"a campaign's on_days is at most its period_days: {_BETWEEN}",
    "not_after_start": f"office hours end after they start: {_BETWEEN}",
    "negative_base": f"a bursty profile's peak_to_average x duty_cycle is at most 1: {_BETWEEN}",
    "no_progress": f"spot interruptions x work lost is below 1: {_BETWEEN}",
    "loan_too_long": f"a loan's term is at most the own option's depreciation_months: {_BETWEEN}",
    "lead_time_past_horizon": f"lead_time_months is below horizon_months: {_BETWEEN}",
    "plan_past_horizon": f"a capacity plan's years fit the horizon: {_BETWEEN}",
    "stage_gpus": f"a training stage's gpus are at most cluster_gpus: {_BETWEEN}",
    "plan_gpus": f"the parallelism plan's product is cluster_gpus: {_BETWEEN}",
    "expert_divides_data": f"expert_parallel divides data_parallel: {_BETWEEN}",
    "mix_mismatch": f"serving.request's shape matches input_tokens_per_output_token: {_BETWEEN}",
    "fx_self": f"fx.rates holds no rate for the reporting currency: {_BETWEEN}",
    "grows_too_far": f"demand growth keeps the volume below the largest input over the horizon: {_BETWEEN}",
    "dates_not_rising": f"a price table's dates rise: {_BETWEEN}",
    "table_rows": f"a price table has as many factors as dates: {_BETWEEN}",
    "points": f"a points residual curve has rising ages and as many shares: {_BETWEEN}",
    "causes_sum": f"goodput causes add up to interruptions: {_BETWEEN}",
    "shares_not_one": f"tier_shares, and routing classes' share_of_requests, sum to 1: {_BETWEEN}",
    "routing_mix_mismatch": f"the routing classes' blended input:output mix is the workload's: {_BETWEEN}",
    "shares_above_one": f"an API's input shares (cached, written, audio, image) sum to at most 1: {_BETWEEN}",
    "dearer_than_on_demand": f"an offers: row's spot and reserved prices are at most its on-demand price: {_BETWEEN}",
    "cheaper_than_base": f"an offers: row's 1-hour cache write and long-context prices are at least the base: "
    f"{_BETWEEN}",
    "cache_dearer": f"an offers: row's cached input price is at most its input price: {_BETWEEN}",
    "duplicate_label": "the options' labels differ (as shown: spaces and case aside; a default label counts), which "
    "JSON Schema cannot compare across fields",
    "duplicate_name": "options.rents and options.apis names are unique (JSON Schema's uniqueItems compares whole "
    "items)",
    "duplicate_stage": "training stage names are unique, ignoring case and spaces",
    "duplicate_id": "the ids of an offers: table are unique",
    # inputs named by path, whose set depends on the scenario
    "not_numeric_input": "an uncertainty path names a numeric input of this scenario",
    "fixed_input": "an uncertainty path names an input that may vary",
    "outside_range": "an uncertainty or override value lies in its input's range",
    "no_such_input": "an override names an input of an option the scenario holds",
    "joint_rule": "overrides and uncertainty reaches keep the rules that join inputs",
    "no_option": "a claim, the uncertainty block or the routing block names an option the scenario holds",
    "class_twice": "routing class names are unique (JSON Schema's uniqueItems compares whole items)",
    # what JSON cannot tell apart, or a regular expression cannot say
    "int_from_float": "a count is written without a decimal point (JSON has one number type: 3.0 is 3)",
    "no_words": "a text holds some visible character (the Unicode categories of invisible ones)",
    "calendar_day": "a date is a day of the calendar (2026-02-30 is not)",
    "not_a_day": "an offers: row's as_of is a day of the calendar",
}
"""The rules ``costmodel validate`` checks and the JSON Schema does not (error type → why not), so that an
editor may pass a file the validator refuses for these reasons alone. Every other rule of the validator
is in the schema (tests/test_scenario_schema.py checks both on mutated bundled scenarios)."""

_NOT_MAGNITUDE_CHECKED = {"Uncertainty", "Distribution", "Range", "Claim"}
"""Definitions whose numbers are not scenario inputs, so no magnitude rule applies to them (seeds, sample
sizes, the reach of a distribution, a claim's stated figure: each has its own rules)."""


_TINY = "TinyNumber"
"""Name of the schema definition of a number too small to be an input (refused with ``not``)."""


def _tiny_number() -> dict[str, Any]:
    from .units import SMALLEST_INPUT

    return {
        "type": "number",
        "exclusiveMinimum": -SMALLEST_INPUT,
        "exclusiveMaximum": SMALLEST_INPUT,
        "not": {"const": 0},
        "description": f"Not zero, but smaller than {SMALLEST_INPUT:g} in size: no "
        "input is that small (a typo). [the input's unit]",
    }


def _plausible(node: Any) -> None:
    """Add the magnitude rule of every input (:func:`costmodel.units.implausible_magnitude`: zero, or
    between SMALLEST_INPUT and LARGEST_INPUT in size) to each number of a schema node, in place."""
    from .units import LARGEST_INPUT, SMALLEST_INPUT

    if isinstance(node, list):
        for item in node:
            _plausible(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") in ("number", "integer"):
        if node.get("maximum", math.inf) > LARGEST_INPUT and "exclusiveMaximum" not in node:
            node["maximum"] = int(LARGEST_INPUT) if node["type"] == "integer" else LARGEST_INPUT
        if node.get("minimum", -math.inf) < -LARGEST_INPUT and "exclusiveMinimum" not in node:
            node["minimum"] = -int(LARGEST_INPUT) if node["type"] == "integer" else -LARGEST_INPUT
        low = node.get("minimum", node.get("exclusiveMinimum", -math.inf))
        if node["type"] == "number" and low < SMALLEST_INPUT:
            node["not"] = {"$ref": f"#/$defs/{_TINY}"}
    for key, value in node.items():
        if key not in ("propertyNames", "not", "if"):
            _plausible(value)


def _keys_by_pattern(node: Any) -> None:
    """A mapping whose keys follow a pattern (``fx.rates``: currency codes) takes no other key, as the
    validator: pydantic writes the pattern as ``patternProperties``, which lets any other key through."""
    if isinstance(node, list):
        for item in node:
            _keys_by_pattern(item)
        return
    if not isinstance(node, dict):
        return
    patterns = node.get("patternProperties")
    if isinstance(patterns, dict) and len(patterns) == 1 and "additionalProperties" not in node:
        ((pattern, values),) = patterns.items()
        node.pop("patternProperties")
        node["propertyNames"] = {**node.get("propertyNames", {}), "pattern": pattern}
        node["additionalProperties"] = values
    for value in node.values():
        _keys_by_pattern(value)


def scenario_json_schema(catalog: Catalog | None = None) -> dict[str, Any]:
    """The JSON Schema of a scenario file, with catalog ids as enums (for editors' completion).

    Every ``server``, ``offer``, ``gpu``, ``model`` and ``throughput_row`` field lists the ids
    of the catalog (the bundled one, or ``catalog``), beside any text.

    The schema refuses what :func:`validate_data` refuses but for :data:`VALIDATOR_ONLY_RULES`
    (listed in its ``$comment``): the models' field rules and the joint rules they state in
    ``json_schema_extra``, plus what is added here: the text forms the validator reads
    (``redundancy: n_plus_1``, a mix written ``"2:1"``), keys that follow a pattern and no other,
    and the magnitude rule of every input number.

    Parameters
    ----------
    catalog
        Catalog whose ids are listed. Default: the bundled one.

    Returns
    -------
    dict
        A JSON Schema (draft 2020-12), as data/schemas/scenario.schema.json holds it for the
        bundled catalog.
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
    if serving is not None and "anyOf" in serving:  # the short form the validator takes
        serving["anyOf"].append({"const": "n_plus_1", "description": "one spare replica, no failure model"})
    mix = schema.get("$defs", {}).get("TokensWorkload", {}).get("properties", {}).get("input_tokens_per_output_token")
    if mix is not None and "anyOf" in mix:  # "2:1", read as 2 by the validator
        from .schema.workload import RATIO_PATTERN

        mix["anyOf"].append({"type": "string", "pattern": RATIO_PATTERN, "description": 'a ratio, e.g. "2:1"'})
    _keys_by_pattern(schema)
    for name, definition in schema.get("$defs", {}).items():
        if name not in _NOT_MAGNITUDE_CHECKED:
            _plausible(definition)
    schema["$defs"][_TINY] = _tiny_number()
    schema["$comment"] = (
        "Checked by costmodel validate only (the catalog, a computation, or a rule between "
        "values that JSON Schema cannot state): " + "; ".join(VALIDATOR_ONLY_RULES.values())
    )
    schema["description"] = (
        schema.get("description", "").rstrip() + "\n\nThis schema checks every rule of "
        "costmodel validate but those listed in its $comment (catalog ids and rows, comparisons "
        "and sums of two or more values, unique names, calendar days): run costmodel validate "
        "for those."
    )
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["x-costmodel-schema-version"] = SCENARIO_SCHEMA_VERSION
    return schema

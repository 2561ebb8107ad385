"""Load scenarios from YAML and save them back.

A scenario file is one YAML mapping that validates as :class:`~costmodel.models.Scenario`.
Any problem, from a YAML syntax error to an unknown GPU, raises one
:class:`~costmodel.errors.ScenarioError` that names the file, the field, the value and
the reason, for every problem found at once.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from ._files import write_text_atomically
from .catalog import Catalog
from .errors import ScenarioError, from_validation_error
from .models import Scenario
from .paths import SCENARIO_DIR


def scenario_path(name_or_path: str | Path) -> Path:
    """The file behind a scenario argument: a path, or the name of a bundled scenario.

    ``"llama70b-vs-api"`` resolves to ``data/scenarios/llama70b-vs-api.yaml``.
    """
    path = Path(name_or_path)
    if path.exists() or path.suffix in {".yaml", ".yml"} or len(path.parts) > 1:
        return path
    return SCENARIO_DIR / f"{name_or_path}.yaml"


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
        The file is missing or unreadable, is not valid YAML, is not a mapping, or
        breaks the scenario schema (missing field, negative price, unknown id, a
        currency with no FX rate, ...).
    """
    path = scenario_path(name_or_path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(path, [("(file)", exc.object[max(0, exc.start - 20):exc.end + 20],
                                    f"not UTF-8 text: byte {exc.object[exc.start]:#x} at offset {exc.start}")]) from None
    except OSError as exc:
        raise ScenarioError(path, [("(file)", str(path), f"cannot be read: {exc.strerror}")]) from None
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        lines = text.splitlines()
        if mark is not None:
            where = f"line {mark.line + 1}, column {mark.column + 1}"
            shown = lines[mark.line] if mark.line < len(lines) else "(end of file)"
        else:
            where, shown = "(file)", text[:40]
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError(path, [(where, shown, f"YAML syntax error: {problem}")]) from None
    if not isinstance(data, dict):
        raise ScenarioError(path, [("(top level)", data, "a scenario file must be a YAML mapping of fields")])
    try:
        return Scenario.model_validate(data, context={"catalog": catalog} if catalog else None)
    except ValidationError as exc:
        raise from_validation_error(exc, path, ScenarioError, _WORKLOAD_KINDS) from None


_WORKLOAD_KINDS = frozenset({"tokens", "gpu_hours", "training", "steady", "bursty", "campaigns", "weekly",
                             "hourly_file", "job_log"})


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key given twice in one mapping is an error.

    (Plain YAML loaders keep the last value silently, which hides typos.)
    """

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"key {key!r} given twice (first on line {seen[key] + 1})", key_node.start_mark)
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def save_scenario(scenario: Scenario, path: str | Path) -> Path:
    """Write a scenario to a YAML file that :func:`load_scenario` reads back equal.

    The file is written to a temporary name first and renamed, so a failure leaves no
    half-written file.

    Parameters
    ----------
    scenario
        The scenario to save.
    path
        Destination file. Its folder must exist.

    Returns
    -------
    Path
        The path written.
    """
    path = Path(path)
    data = scenario.model_dump(mode="json", exclude_defaults=True)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    write_text_atomically(path, text)
    return path

"""Where the bundled data, scenarios and notebooks live.

Paths are built from the package's own location, never from the working directory.
In a source checkout (including an editable install) they are the repository's
``data/`` and ``notebooks/``; in a wheel they are copies bundled under
``costmodel/_bundled/``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_REPO = _PACKAGE.parent
_BUNDLED = _PACKAGE / "_bundled"


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.exists():
            return candidate
    return candidates[0]


DATA_DIR: Path = _first_existing(_REPO / "data", _BUNDLED / "data")
"""Catalog CSV files (GPUs, servers, cloud prices, API prices)."""

SCENARIO_DIR: Path = DATA_DIR / "scenarios"
"""The bundled reference scenarios, one YAML file each."""

NOTEBOOK_DIR: Path = _first_existing(_REPO / "notebooks", _BUNDLED / "notebooks")
"""The report notebooks run by ``costmodel report``."""

TEMPLATE_DIR: Path = _PACKAGE / "templates"
"""nbconvert templates shipped with the package."""

REFERENCE_SCENARIOS: tuple[str, ...] = (
    "llama70b-vs-api",
    "h200-24gpu-cluster",
    "h200-job-log",
    "h100-10k-cluster",
    "deepseek-v3-training",
    "llama31-405b-training",
)
"""Scenarios that ``costmodel report`` renders when it is given none."""


def scenario_path(name_or_path: str | Path) -> Path:
    """The file behind a scenario argument: a path, or the name of a bundled scenario.

    ``"llama70b-vs-api"`` resolves to ``data/scenarios/llama70b-vs-api.yaml``.
    """
    path = Path(name_or_path)
    if path.exists() or path.suffix in {".yaml", ".yml"} or len(path.parts) > 1:
        return path
    return SCENARIO_DIR / f"{name_or_path}.yaml"


def shown_path(path: str | Path) -> str:
    """A local file or folder as a shared page names it: relative to the working directory when it
    is inside it, else by its name alone (a report names no folder of the machine it was made on).

    Parameters
    ----------
    path
        The file or folder, absolute or relative to the working directory.

    Returns
    -------
    str
        ``data/scenarios/r1.yaml`` for a file under the working directory, ``r1.yaml`` for one
        outside it, ``.`` for the working directory itself.
    """
    absolute = Path(path).absolute()
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return absolute.name


def relative_path(path: str | Path) -> str:
    """A local path as a command prints it: relative to the working directory (with ``..`` steps
    where it lies outside), or its name where no relative path exists (another drive on Windows)."""
    import os

    try:
        return os.path.relpath(path)
    except ValueError:
        return Path(path).name

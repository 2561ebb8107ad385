"""Shared fixtures: the reference scenarios, one "patch a scenario" helper and one catalog-copy helper.

Reference values in the tests come from shared/reference/cases.md (R1–R5), the catalog rows
they cite, and closed forms; each test says where its expected value comes from.
"""

import copy
import os
import sys
from pathlib import Path

import pytest
import yaml

import costmodel
from costmodel.catalog import Catalog, default_catalog
from costmodel.paths import SCENARIO_DIR
from costmodel.scenarios import set_path

# Catalog figures are judged stale on this day, in the tests and in the commands they start, so the
# expected caveats do not move as the calendar does (costmodel.lookup.review_date).
os.environ["COSTMODEL_TODAY"] = "2026-12-02"
# The refresh scripts' tests load scripts/refresh_*.py, which import their shared scripts/catalog_diff.py
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))


def scenario_data(name: str) -> dict:
    """The plain data of a bundled scenario file, to change before validating."""
    return yaml.safe_load((SCENARIO_DIR / f"{name}.yaml").read_text())


def patched_data(base: str | dict, changes: dict | None = None, drop: tuple[str, ...] = ()) -> dict:
    """A copy of a bundled scenario's data (or of ``base``) with dotted paths changed.

    ``changes`` maps ``"options.own.power.pue"`` to a new value (``None`` removes the key);
    ``drop`` lists top-level blocks to remove (``"uncertainty"``, ``"finance"``, ...).
    """
    data = copy.deepcopy(scenario_data(base) if isinstance(base, str) else base)
    for block in drop:
        data.pop(block, None)
    for dotted, value in (changes or {}).items():
        set_path(data, dotted, value, create=True)
    return data


def patched(
    base: str | dict, changes: dict | None = None, drop: tuple[str, ...] = (), catalog: Catalog | None = None
) -> costmodel.Scenario:
    """A validated scenario: a bundled one (or data) with dotted paths changed (see :func:`patched_data`)."""
    return costmodel.Scenario.model_validate(
        patched_data(base, changes, drop), context={"catalog": catalog} if catalog else None
    )


NIM_POINT = "nim18-llama33-70b-h100-fp8-tp2-5000-500-c25"
"""NIM 1.8.0's Llama 3.3 70B curve point at its own 5,000/500 request shape, concurrency 25 (311.7 output
tokens/s per GPU)."""


def at_nim_point() -> costmodel.Scenario:
    """llama70b-interactive at 1e9 tokens/day with :data:`NIM_POINT`'s own request shape (a 10:1 mix, nothing
    converted) and its own speed as the target, aggregated: the operating point is that point."""
    from costmodel.catalog import default_catalog

    point = default_catalog().serving_curves[NIM_POINT]
    return patched(
        "llama70b-interactive",
        {
            "workload.tokens_per_day": 1e9,
            "workload.input_tokens_per_output_token": 10,
            "workload.serving.request": {"input_tokens": 5000, "output_tokens": 500},
            "workload.serving.target": {"tokens_per_second_per_user": point.tokens_per_second_per_user},
            "workload.serving.serving_mode": "aggregated",
        },
    )


def leaves(node, prefix=""):
    """(dotted path, value) of every leaf of nested dicts and lists (list items by index)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, f"{prefix}{key}.")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from leaves(value, f"{prefix}{index}.")
    else:
        yield prefix[:-1], node


def numeric_paths(data):
    """Dotted paths of the numbers in scenario data (lists included; booleans are not numbers)."""
    return (path for path, value in leaves(data) if isinstance(value, int | float) and not isinstance(value, bool))


def document(scenario, uncertainty: bool = False) -> costmodel.ComparisonOutput:
    """The output contract of a scenario (a name, a path, a Scenario or a Resolved): what ``costmodel compare
    --json`` prints, without the uncertainty section unless asked for."""
    if isinstance(scenario, (str, os.PathLike)):
        scenario = costmodel.load_scenario(scenario)
    return costmodel.comparison_output(costmodel.compare(scenario), scenario, uncertainty=uncertainty)


def write_scenario(tmp_path: Path, data, name: str = "bad.yaml") -> Path:
    """Write scenario data (or text) to a YAML file under ``tmp_path``."""
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def catalog_with(**tables) -> Catalog:
    """The bundled catalog with some tables replaced or rows changed.

    Each keyword names a table (``servers``, ``cloud_offers``, ...) and gives either a whole
    dict of rows, or a function applied to each row (``lambda row: row.model_copy(...)``).
    """
    base = default_catalog()
    fields = {name: getattr(base, name) for name in type(base).model_fields}
    for name, change in tables.items():
        fields[name] = {k: change(v) for k, v in fields[name].items()} if callable(change) else change
    return Catalog(**fields)


@pytest.fixture(scope="session")
def r1():
    """Reference case R1 (shared/reference/cases.md): Llama 3.3 70B, 2 rented H100 vs a hosted API."""
    return costmodel.load_scenario("llama70b-vs-api")


@pytest.fixture(scope="session")
def r2():
    """Reference case R2 (shared/reference/cases.md): 24 x H200 owned vs rented."""
    return costmodel.load_scenario("h200-24gpu-cluster")


@pytest.fixture(scope="session")
def r2_steady():
    """R2 at steady demand: its 3 configured servers carry the 12,000 GPU-hours (its campaigns, which peak
    above them, would size the cluster for their busiest hour)."""
    return patched("h200-24gpu-cluster", drop=("demand",))


def _find_chromium() -> str | None:
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def chromium():
    """A function that opens an HTML file in headless Chromium and returns its console messages.

    Chromium comes from Debian's packages (``apt-get install chromium``, which .ci/run does); if it
    is missing and this is root, the fixture installs it once. Where it cannot be had, the tests
    that need it are skipped with a message.
    """
    import os
    import subprocess
    import tempfile

    binary = _find_chromium()
    if binary is None and hasattr(os, "geteuid") and os.geteuid() == 0:
        subprocess.run(
            "apt-get update -qq && apt-get install -y -qq chromium",
            shell=True,
            capture_output=True,
            timeout=600,
            check=False,
        )
        binary = _find_chromium()
    if binary is None:
        pytest.skip("headless Chromium is not installed and could not be installed (apt-get install chromium)")

    def open_page(path: Path, dump: list | None = None) -> list[str]:
        with tempfile.TemporaryDirectory() as profile:
            done = subprocess.run(
                [
                    binary,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-quic",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    f"--user-data-dir={profile}",
                    "--enable-logging=stderr",
                    "--v=0",
                    "--virtual-time-budget=3000",
                    "--dump-dom",
                    path.resolve().as_uri(),
                ],
                capture_output=True,
                text=True,
                timeout=120,
            )
        if dump is not None:
            dump.append(done.stdout)
        return [line for line in done.stderr.splitlines() if ":CONSOLE" in line]

    return open_page

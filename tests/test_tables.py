"""Tables with a fixed schema, the extras, and the install without them (issue 31).

Expected values: R1 (shared/reference/cases.md) at 10 M tokens/day costs 12,070 USD/month rented
(2 H100 x 3.5 USD x 730 h + 6,000 EUR x 1.16) and 3,548.61 USD/month through the API; its inputs'
units are the scenario schema's (``costmodel schema``: ``USD/GPU-h`` for a rental price,
``tokens/day`` for the volume). The CSV sidecar follows W3C "Metadata Vocabulary for Tabular Data"
(https://www.w3.org/TR/tabular-metadata/): ``@context``, ``url``, ``tableSchema.columns`` with
``name`` and ``datatype``.
"""

import ast
import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from costmodel.batch import Task, portfolio_frame, run_tasks, write_portfolio
from costmodel.cli import main
from costmodel.columns import CASH_FLOWS_BY_MONTH, CASH_FLOWS_BY_YEAR, PORTFOLIO, TABLES
from costmodel.extras import EXTRAS, ExtraNotInstalled, need

ROOT = Path(__file__).resolve().parent.parent
R1, R2 = "llama70b-vs-api", "h200-24gpu-cluster"
ARROW = {"text": "large_string", "number": "double", "whole": "int64"}
CSVW = {"text": "string", "number": "double", "whole": "integer"}


def sweep_file(folder: Path) -> Path:
    path = folder / "sweep.yaml"
    path.write_text(
        "base: llama70b-vs-api\ngrid:\n  options.rent.price_per_gpu_hour: [2.5, 3.5]\n"
        "  workload.tokens_per_day: [1.0e+6, 1.0e+7]\n"
    )
    return path


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A batch of R1 and R2, a sweep of R1 and R2's export, as files."""
    folder = tmp_path_factory.mktemp("outputs")
    assert main(["batch", R1, R2, "--out", str(folder / "batch")]) == 0
    assert main(["batch", "--sweep", str(sweep_file(folder)), "--out", str(folder / "sweep")]) == 0
    assert main(["export", R2, "--csv", str(folder / "csv"), "--parquet", str(folder / "parquet")]) == 0
    return folder


# --- the schema ---------------------------------------------------------------------------------------------------


def test_every_table_has_unique_columns_of_known_kinds():
    for table in TABLES.values():
        assert len(set(table.names())) == len(table.names()), table.name
        assert all(c.kind in ARROW and c.unit and c.description for c in table.columns), table.name


def test_an_empty_portfolio_has_every_column_typed(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    written = write_portfolio(portfolio_frame([]), tmp_path)
    assert [p.name for p in written] == ["portfolio.csv", "portfolio.csv-metadata.json", "portfolio.parquet"]
    table = pq.read_table(tmp_path / "portfolio.parquet")
    assert table.num_rows == 0 and table.column_names == PORTFOLIO.names()
    assert [str(f.type) for f in table.schema] == [ARROW[c.kind] for c in PORTFOLIO.columns]
    assert table.schema.field("point").type == pa.int64()
    csv = pd.read_csv(tmp_path / "portfolio.csv")
    assert csv.empty and list(csv.columns) == PORTFOLIO.names()


def test_a_sweep_whose_every_point_failed_keeps_its_types(tmp_path):
    # the base scenario does not load: every point is an error row, every figure empty, the types stay
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    columns = run_tasks([Task("gone", str(tmp_path / "gone.yaml"), values={"workload.tokens_per_day": [1.0, 2.0]})])
    frame = portfolio_frame(columns)
    assert frame["error"].notna().all() and frame["cost_api"].isna().all()
    write_portfolio(frame, tmp_path, units={"workload.tokens_per_day": "tokens/day"})
    schema = pq.read_schema(tmp_path / "portfolio.parquet")
    assert schema.names == PORTFOLIO.names() + ["workload.tokens_per_day"]
    assert [str(f.type) for f in schema][: len(PORTFOLIO.columns)] == [ARROW[c.kind] for c in PORTFOLIO.columns]
    assert str(schema.field("workload.tokens_per_day").type) == "double"
    assert schema.field("workload.tokens_per_day").metadata[b"unit"] == b"tokens/day"
    assert pq.read_table(tmp_path / "portfolio.parquet").column("point").to_pylist() == [0, 1]


def test_a_cell_that_is_no_number_is_refused_by_name():
    with pytest.raises(ValueError, match=r"portfolio: column cost_rent: 'lots' is not a number"):
        PORTFOLIO.typed(pd.DataFrame({"scenario": ["a"], "cost_rent": ["lots"]}))
    with pytest.raises(ValueError, match="portfolio: column cost_rent: holds an infinite number"):
        PORTFOLIO.typed(pd.DataFrame({"scenario": ["a"], "cost_rent": [float("inf")]}))
    with pytest.raises(ValueError, match="cash_flows_by_month: column month: 1.5 is not a whole number"):
        CASH_FLOWS_BY_MONTH.typed(pd.DataFrame({"month": [1.5]}))


# --- the outputs agree ----------------------------------------------------------------------------------------------


def test_batch_and_sweep_have_the_same_columns_first_and_concatenate(outputs):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    batch, sweep = (pq.read_table(outputs / d / "portfolio.parquet") for d in ("batch", "sweep"))
    fixed = PORTFOLIO.names()
    assert batch.column_names == fixed  # npv_api kept although no row has an API option with a finance block
    assert sweep.column_names == fixed + ["options.rent.price_per_gpu_hour", "workload.tokens_per_day"]
    for name in fixed:  # ... and every shared column has the same type
        assert batch.schema.field(name).type == sweep.schema.field(name).type, name
    both = pa.concat_tables([batch, sweep], promote_options="default")
    assert both.num_rows == 2 + 4 and both.column("point").null_count == 2
    assert both.column("npv_api").null_count == 6  # empty cells are nulls, never NaN
    assert both.column("options.rent.price_per_gpu_hour").null_count == 2  # the batch rows have no swept input
    # the CSV files too: the batch's header is the first part of the sweep's
    a, b = (pd.read_csv(outputs / d / "portfolio.csv") for d in ("batch", "sweep"))
    assert list(b.columns[: len(a.columns)]) == list(a.columns) == fixed
    assert len(pd.concat([a, b], ignore_index=True)) == 6


def test_shared_columns_agree_across_batch_sweep_and_export(outputs):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    schemas = [
        pq.read_schema(outputs / "batch" / "portfolio.parquet"),
        pq.read_schema(outputs / "sweep" / "portfolio.parquet"),
        pq.read_schema(outputs / "parquet" / "cash_flows_by_month.parquet"),
        pq.read_schema(outputs / "parquet" / "cash_flows_by_year.parquet"),
    ]
    shared = 0
    for i, a in enumerate(schemas):
        for b in schemas[i + 1 :]:
            for name in set(a.names) & set(b.names):
                fa, fb = a.field(name), b.field(name)
                assert fa.type == fb.type, name
                assert fa.metadata[b"description"] == fb.metadata[b"description"], name
                shared += 1
    assert "currency" in schemas[0].names and "currency" in schemas[2].names and shared > 30
    # the export's CSV and Parquet files hold the same table
    for table in (CASH_FLOWS_BY_MONTH, CASH_FLOWS_BY_YEAR):
        csv = pd.read_csv(outputs / "csv" / f"{table.name}.csv")
        parquet = pd.read_parquet(outputs / "parquet" / f"{table.name}.parquet")
        assert list(csv.columns) == list(parquet.columns) == table.names()
        assert (csv["cash"].to_numpy() == parquet["cash"].to_numpy()).all()


def test_units_travel_in_the_parquet_metadata_and_the_csv_sidecar(outputs):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    def units(path):
        return {f.name: f.metadata[b"unit"].decode() for f in pq.read_schema(path)}

    sweep = units(outputs / "sweep" / "portfolio.parquet")  # R1 alone: one currency, one volume unit
    assert sweep["cost_rent"] == "USD/month" and sweep["npv_own"] == "USD" and sweep["volume"] == "tokens/day"
    assert sweep["break_even_rent_api"] == "tokens/day" and sweep["margin"] == "USD/month"
    assert sweep["options.rent.price_per_gpu_hour"] == "USD/GPU-h" and sweep["workload.tokens_per_day"] == "tokens/day"
    batch = units(outputs / "batch" / "portfolio.parquet")  # R1 in tokens/day, R2 in GPU-hours/month
    assert batch["volume"] == "{volume_unit}" and batch["cost_rent"] == "USD/month"
    month = units(outputs / "parquet" / "cash_flows_by_month.parquet")
    assert month == {"month": "month", "option": "-", "line": "-", "cash": "USD", "currency": "-"}

    for folder, name in (("sweep", "portfolio.csv"), ("csv", "cash_flows_by_month.csv")):
        sidecar = json.loads((outputs / folder / f"{name}-metadata.json").read_text(encoding="utf-8"))
        assert sidecar["@context"] == "http://www.w3.org/ns/csvw" and sidecar["url"] == name
        columns = sidecar["tableSchema"]["columns"]
        header = pd.read_csv(outputs / folder / name, nrows=0).columns
        assert [c["name"] for c in columns] == list(header)
        parquet = units(
            outputs / ("sweep/portfolio.parquet" if folder == "sweep" else "parquet/cash_flows_by_month.parquet")
        )
        assert {c["name"]: c["schema:unitText"] for c in columns} == parquet
        table = TABLES[name.removesuffix(".csv")]
        assert all(c["datatype"] == CSVW[table.column(c["name"]).kind] for c in columns)


def test_the_portfolio_values_are_r1s(outputs):
    table = (
        pd.read_parquet(outputs / "batch" / "portfolio.parquet")
        if _has("pyarrow")
        else pd.read_csv(outputs / "batch" / "portfolio.csv")
    )
    r1 = table[table["scenario"] == R1].iloc[0]
    assert r1["cost_rent"] == pytest.approx(2 * 3.5 * 730 + 6000 * 1.16)
    assert r1["cost_api"] == pytest.approx(3548.61, abs=0.01)
    assert pd.isna(r1["npv_own"]) and pd.isna(r1["point"]) and pd.isna(r1["error"])  # R1: no finance block
    assert table["npv_api"].isna().all()  # R2 has no API option: the column stays, empty, typed
    assert str(table["npv_api"].dtype) == "float64"


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# --- the extras -----------------------------------------------------------------------------------------------------


def test_a_missing_extra_is_named_with_its_pip_command():
    error = ExtraNotInstalled("costmodel export --parquet", "parquet", "pyarrow")
    assert str(error) == "costmodel export --parquet needs pyarrow: pip install 'costmodel[parquet]'"
    assert isinstance(error, ImportError) and error.name == "pyarrow" and error.extra == "parquet"
    assert error.command == "pip install 'costmodel[parquet]'"
    with pytest.raises(ModuleNotFoundError):  # a module of no extra: the plain ImportError
        need("no_such_module_of_costmodel", "nothing")


def test_every_extra_is_declared_in_pyproject():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        names = {_name(r) for r in declared[extra]}
        assert {m.lower() for m in modules} <= names, extra
    assert declared["full"] == ["costmodel[parquet,scale,sobol]"]
    # the dev extra installs every extra: it names costmodel[...] with full among its extras
    dev_extras = {e for r in declared["dev"] if r.startswith("costmodel[") for e in r[10:-1].split(",")}
    assert "full" in dev_extras
    base = {_name(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    assert not base & {"pyarrow", "dask", "distributed", "salib"}


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group(0)).lower()


def test_every_module_costmodel_imports_is_declared():
    # every third-party top-level module imported anywhere in costmodel/ (function-level imports too, and the
    # modules of the extras, imported by name: need("pyarrow", ...)) comes from a distribution declared in
    # pyproject.toml, in the dependencies or an extra
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_name(r) for r in project["dependencies"]}
    declared |= {_name(r) for extra in project["optional-dependencies"].values() for r in extra}
    imported: dict[str, set[str]] = {}
    for path in (ROOT / "costmodel").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        by_name = {
            a.asname or a.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module and n.module.split(".")[-1] == "extras"
            for a in n.names
            if a.name in ("need", "installed")
        }
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                else []
            )
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) in by_name
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names = [node.args[0].value]
            for name in names:
                imported.setdefault(name.split(".")[0], set()).add(path.relative_to(ROOT).as_posix())
    third_party = {m: files for m, files in imported.items() if m not in sys.stdlib_module_names and m != "costmodel"}
    assert {"numpy", "pandas", "pyarrow", "SALib", "distributed", "jinja2", "traitlets"} <= set(third_party)
    distributions = md.packages_distributions()
    undeclared = {
        m: sorted(files)
        for m, files in third_party.items()
        if not {_name(d) for d in distributions.get(m, [])} & declared
    }
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


# --- without the extras ---------------------------------------------------------------------------------------------

BLOCKER = '''
import importlib.abc
import sys

BLOCKED = {"pyarrow", "dask", "distributed", "SALib"}


class Blocked(importlib.abc.MetaPathFinder):
    """As if the extras were not installed: importing them raises ImportError."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
        return None


sys.meta_path.insert(0, Blocked())
'''


def without_extras(tmp_path: Path, code: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter (and its children: the report kernels) where pyarrow, dask,
    distributed and SALib cannot be imported: a sitecustomize module on PYTHONPATH installs the finder."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=timeout,
    )


def test_without_the_extras_compare_and_export_run_for_every_bundled_scenario(tmp_path):
    done = without_extras(
        tmp_path,
        """
        import json, sys
        import costmodel
        from costmodel.cli import main
        try:
            import pyarrow
        except ImportError:
            print("no pyarrow")
        for name in costmodel.bundled_scenarios():
            scenario = costmodel.load_scenario(name)
            doc = costmodel.comparison_output(costmodel.compare(scenario), scenario)
            u = doc.uncertainty
            print("compare", name, doc.decision.winner, u is not None and u.sobol is None,
                  any("pip install 'costmodel[sobol]'" in w for w in doc.warnings))
            print("cli", name, main(["compare", name]), main(["compare", name, "--json"]) if u is None else "-")
            print("xlsx", name, main(["export", name, "--xlsx", f"out/{name}.xlsx"]))
            print("csv", name, main(["export", name, "--csv", f"out/{name}"]))
        print("parquet", main(["export", "h200-24gpu-cluster", "--parquet", "p"]))
        print("dask", main(["batch", "llama70b-vs-api", "--dask", "--out", "d"]))
        print("batch", main(["batch", "llama70b-vs-api", "--out", "b"]))
        print("loaded", sorted(m for m in ("pyarrow", "dask", "distributed", "SALib", "matplotlib")
                               if sys.modules.get(m) is not None))
        """,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "no pyarrow" in lines
    from costmodel.scenarios import bundled_scenarios, load_scenario

    names = bundled_scenarios()
    for name in names:
        has_uncertainty = load_scenario(name).uncertainty is not None
        compare = next(line for line in lines if line.startswith(f"compare {name} "))
        # a scenario with an uncertainty block: the Sobol block null and the warnings say which extra gives it
        assert compare.endswith(f"{has_uncertainty} {has_uncertainty}"), compare
        assert f"cli {name} 0 " in "\n".join(lines)
        has_finance = load_scenario(name).finance is not None
        # every scenario exports a workbook (a steady monthly view without a finance block); the
        # cash-flow tables need a finance block, with or without the extras
        assert f"xlsx {name} 0" in lines
        assert f"csv {name} {0 if has_finance else 2}" in lines
        assert (tmp_path / "out" / f"{name}.xlsx").stat().st_size > 0
    assert (tmp_path / "out" / "h200-24gpu-cluster.xlsx").stat().st_size > 0
    assert (tmp_path / "out" / "h200-24gpu-cluster" / "cash_flows_by_year.csv-metadata.json").exists()
    assert "parquet 2" in lines and "dask 2" in lines and "batch 0" in lines and "loaded []" in lines
    errors = done.stderr.splitlines()
    assert "costmodel export --parquet needs pyarrow: pip install 'costmodel[parquet]'" in errors
    assert "costmodel batch --dask needs distributed: pip install 'costmodel[scale]'" in errors
    assert "portfolio.parquet not written" in done.stderr
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["portfolio.csv", "portfolio.csv-metadata.json"]
    assert "finance block" in done.stderr


@pytest.mark.slow
def test_without_the_extras_every_bundled_scenario_reports(tmp_path):
    done = without_extras(
        tmp_path,
        """
        from costmodel.cli import main
        from costmodel.scenarios import bundled_scenarios
        print("report", main(["report", *bundled_scenarios(), "--out", "reports"]))
        """,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "report 0" in done.stdout.splitlines(), done.stderr[-3000:]
    from costmodel.scenarios import bundled_scenarios

    pages = {p.parent.name for p in (tmp_path / "reports").glob("*/report.html") if p.stat().st_size > 0}
    assert pages == set(bundled_scenarios())


def test_a_report_asked_for_sobol_without_salib_says_so(tmp_path):
    done = without_extras(
        tmp_path,
        """
        from unittest.mock import patch
        from costmodel.presentation import sections
        shown = []
        with patch.object(sections, "display", lambda x: shown.append(getattr(x, "data", x))), \\
             patch.object(sections, "show", lambda *a, **k: None), patch.object(sections, "table", lambda *a: None):
            sections.uncertainty(sections.as_resolved(__import__("costmodel").load_scenario("llama70b-vs-api")),
                                 sobol=True)
        print(shown[-1])
        """,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (
        done.stdout.strip().splitlines()[-1] == "Not computed: Sobol analysis needs SALib: `pip install "
        "'costmodel[sobol]'`."
    )


def test_break_evens_of_further_offers_carry_the_volume_unit(tmp_path):
    """A scenario with further API offers (``api-offers``: five offers, no GPU option) adds a break-even
    column per pair (``break_even_api_api:haiku``); they were typed as a swept input, unit "-"."""
    assert main(["batch", "api-offers", "--out", str(tmp_path)]) == 0
    sidecar = json.loads((tmp_path / "portfolio.csv-metadata.json").read_text(encoding="utf-8"))
    pairs = {c["name"]: c for c in sidecar["tableSchema"]["columns"] if c["name"].startswith("break_even_")}
    further = [name for name in pairs if ":" in name]
    assert "break_even_api_api:haiku" in further and "break_even_api:haiku_api:llama-groq" in further
    assert all(
        pairs[name]["schema:unitText"] == "tokens/day" and "swept input" not in pairs[name]["dc:description"]
        for name in further
    )
    assert PORTFOLIO.column("break_even_api:haiku_api:llama-groq").unit == "{volume_unit}"

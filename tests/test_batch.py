"""Many scenarios at once: batch, sweeps (vectorised, process pool, dask), --catalog, validate, schema.

Expected values: R1 (shared/reference/cases.md) at 10 M tokens/day costs 12,070 USD/month
rented (2 H100 x 3.5 USD x 730 h + 6,000 EUR x 1.16) and 3,548.61 USD/month through the API
($5 in / $25 out at 2:1: 11.6667 USD per M tokens x 304.17 M tokens/month); they break even at
34,013,307 tokens/day (README, test_reference_cases).
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import patched_data, write_scenario

import costmodel
from costmodel.batch import Task, read_sweep, run_tasks, sweep_tasks
from costmodel.cli import main
from costmodel.domain.compare import compare as compare_domain
from costmodel.domain.portfolio import columns_to_rows, sweep_columns
from costmodel.paths import SCENARIO_DIR
from costmodel.scenarios import scenario_json_schema

REPO = Path(__file__).resolve().parent.parent


def test_batch_over_bundled_scenarios_and_a_bad_file(tmp_path, capsys):
    bad = write_scenario(tmp_path, {"title": "no workload"}, "BAD.yaml")
    files = sorted(str(p) for p in SCENARIO_DIR.glob("*.yaml"))
    code = main(["batch", str(SCENARIO_DIR / "*.yaml"), str(bad), "--out", str(tmp_path / "out")])
    assert code == 1  # one scenario failed
    table = pd.read_csv(tmp_path / "out" / "portfolio.csv")
    assert list(table["scenario"]) == files + [str(bad)]  # one row per scenario, in order
    assert table.loc[table["scenario"] == str(bad), "error"].str.contains("workload").all()
    assert table.loc[table["scenario"] != str(bad), "error"].isna().all()
    r1 = table[table["scenario"].str.endswith("llama70b-vs-api.yaml")].iloc[0]
    assert r1["cost_rent"] == pytest.approx(2 * 3.5 * 730 + 6000 * 1.16)
    assert r1["cost_api"] == pytest.approx(3548.61, abs=0.01)
    assert r1["winner"] == "api" and r1["break_even_rent_api"] == pytest.approx(34_013_307, rel=1e-6)
    parquet = pd.read_parquet(tmp_path / "out" / "portfolio.parquet")
    assert len(parquet) == len(table) and list(parquet.columns) == list(table.columns)
    assert "BAD.yaml" in capsys.readouterr().err


def test_progress_bar_on_stderr_when_asked(capsys):
    run_tasks([Task("llama70b-vs-api", "llama70b-vs-api")], progress=True)
    assert "costmodel batch" in capsys.readouterr().err
    run_tasks([Task("llama70b-vs-api", "llama70b-vs-api")])  # stderr is not a terminal here: quiet
    assert capsys.readouterr().err == ""


def test_fail_fast_stops_at_the_first_failure(tmp_path):
    bad = write_scenario(tmp_path, {"title": "x"}, "BAD.yaml")
    results = run_tasks([Task("bad", str(bad)), Task("r1", "llama70b-vs-api")], fail_fast=True)
    assert len(results) == 1 and results[0]["error"][0]


def _sweep_file(tmp_path: Path, grid: dict, name: str = "sweep.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"base": "llama70b-vs-api", "grid": grid, "chunk_size": 40}))
    return path


GRID = {
    "options.rent.price_per_gpu_hour": [2.0, 3.5, 7.0],
    "options.api.output_price_per_million": [10.0, 25.0],
    "workload.tokens_per_day": {"low": 1.0e6, "high": 1.0e8, "points": 20, "scale": "log"},
}


def test_sweep_matches_closed_forms_and_compare(tmp_path):
    name, base, values, chunk = read_sweep(_sweep_file(tmp_path, GRID))
    assert len(values["workload.tokens_per_day"]) == 3 * 2 * 20
    rows = [row for columns in run_tasks(sweep_tasks(name, base, values, chunk)) for row in columns_to_rows(columns)]
    assert [row["point"] for row in rows] == list(range(120))
    for row in rows:
        price, output, volume = (
            row["options.rent.price_per_gpu_hour"],
            row["options.api.output_price_per_million"],
            row["workload.tokens_per_day"],
        )
        # closed forms: 2 H100 (capacity 436 M tokens/day, above the grid) 24/7 plus the engineer;
        # the API's blended price at 2:1 input:output
        assert row["cost_rent"] == pytest.approx(2 * price * 730 + 6000 * 1.16)
        blended = (2 * 5.0 + output) / 3
        assert row["cost_api"] == pytest.approx(blended * volume * 365 / 12 / 1e6)
        # break-even of rent and API: the volume at which the API bill reaches the rental's
        crossing = (2 * price * 730 + 6960) / (blended * 365 / 12 / 1e6)
        if crossing <= 10 * volume:
            assert row["break_even_rent_api"] == pytest.approx(crossing, rel=1e-9)
        else:
            assert row["break_even_rent_api"] is None
    # the base point against compare()
    r1 = costmodel.load_scenario("llama70b-vs-api")
    point = sweep_columns(r1, {"workload.tokens_per_day": np.array([1e7])})
    result = compare_domain(r1)
    for option in ("own", "rent", "api"):
        assert point[f"cost_{option}"][0] == pytest.approx(result.options[option].monthly_cost, rel=1e-12)
    expected = {frozenset((b.option_a, b.option_b)): b.volume for b in result.break_evens}
    for a, b in (("own", "rent"), ("own", "api"), ("rent", "api")):
        found, wanted = point[f"break_even_{a}_{b}"][0], expected[frozenset((a, b))]
        assert (found is None and wanted is None) or found == pytest.approx(wanted, rel=1e-9)


def test_sweep_on_a_dask_local_cluster_gives_the_same_table(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = _sweep_file(tmp_path, GRID)
    assert main(["batch", "--sweep", str(path), "--out", str(tmp_path / "here")]) == 0
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        code = main(
            ["batch", "--sweep", str(path), "--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address]
        )
    finally:
        cluster.close()
    assert code == 0
    here, there = (pd.read_parquet(tmp_path / d / "portfolio.parquet") for d in ("here", "dask"))
    assert len(here) == 120
    pd.testing.assert_frame_equal(here, there)


def test_sweep_in_a_process_pool_gives_the_same_table(tmp_path):
    path = _sweep_file(tmp_path, GRID)
    assert main(["batch", "--sweep", str(path), "--out", str(tmp_path / "one")]) == 0
    assert main(["batch", "--sweep", str(path), "--out", str(tmp_path / "two"), "--workers", "2"]) == 0
    pd.testing.assert_frame_equal(*(pd.read_parquet(tmp_path / d / "portfolio.parquet") for d in ("one", "two")))


@pytest.mark.parametrize(
    "grid, words",
    [
        ({"options.rent.price_per_gpuhour": [1.0]}, "did you mean"),
        ({"options.rent.price_per_gpu_hour": [-1.0]}, "outside the input's allowed range"),
        ({"options.rent.price_per_gpu_hour": "cheap"}, "give a list of values"),
    ],
)
def test_a_bad_sweep_file_exits_2(tmp_path, capsys, grid, words):
    assert main(["batch", "--sweep", str(_sweep_file(tmp_path, grid)), "--out", str(tmp_path / "o")]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "o" / "portfolio.csv").exists()


def test_latin_hypercube_sweep_stays_in_its_ranges(tmp_path):
    path = tmp_path / "lhs.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "base": "llama70b-vs-api",
                "latin_hypercube": {
                    "samples": 50,
                    "seed": 3,
                    "ranges": {"options.rent.price_per_gpu_hour": {"low": 2.0, "high": 7.0}},
                },
            }
        )
    )
    _, _, values, _ = read_sweep(path)
    prices = np.sort(values["options.rent.price_per_gpu_hour"])
    assert len(prices) == 50 and prices.min() >= 2.0 and prices.max() <= 7.0
    # one sample in each of the 50 strata of width 0.1
    assert list(np.floor((prices - 2.0) / 0.1).astype(int)) == list(range(50))


def _catalog_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    folder.mkdir()
    header = (REPO / "data" / "cloud_prices.csv").read_text().splitlines()[0]
    folder.joinpath("cloud_prices.csv").write_text(
        header + "\nmy-quote-h100,Example quote,H100-SXM-80GB,on_demand,2.00,USD,P,2026-11,"
        '"Quote received 2026-11 (test row)",\n'
    )
    return folder


def test_compare_uses_a_row_only_in_the_catalog_folder(tmp_path, capsys):
    folder = _catalog_dir(tmp_path)
    scenario = write_scenario(
        tmp_path, patched_data("llama70b-vs-api", {"options.rent.offer": "my-quote-h100"}), "quote.yaml"
    )
    assert main(["compare", str(scenario), "--json"]) == 2  # the bundled catalog has no such offer
    assert "my-quote-h100" in capsys.readouterr().err
    assert main(["compare", str(scenario), "--json", "--catalog", str(folder)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["options"]["rent"]["monthly_cost"]["value"] == pytest.approx(2 * 2.0 * 730 + 6000 * 1.16)
    assert data["schema_version"] == costmodel.SCHEMA_VERSION and data["costmodel_version"] == costmodel.__version__
    assert main(["batch", str(scenario), "--catalog", str(folder), "--out", str(tmp_path / "b")]) == 0
    assert pd.read_csv(tmp_path / "b" / "portfolio.csv")["cost_rent"].iloc[0] == pytest.approx(9880.0)


@pytest.mark.slow
def test_report_uses_a_row_only_in_the_catalog_folder(tmp_path, capsys):
    from costmodel.report import report_folder

    folder = _catalog_dir(tmp_path)
    scenario = write_scenario(
        tmp_path, patched_data("llama70b-vs-api", {"options.rent.offer": "my-quote-h100"}), "quote.yaml"
    )
    out = tmp_path / "reports"
    assert main(["report", str(scenario), "--out", str(out)]) == 2  # the bundled catalog has no such offer
    assert "my-quote-h100" in capsys.readouterr().err
    assert main(["report", str(scenario), "--catalog", str(folder), "--out", str(out)]) == 0
    html = (out / report_folder(scenario) / "report.html").read_text()
    # the quote's 2.00 USD/GPU-h: 2 GPUs x 2.00 x 730 h + one FTE (6,000 EUR x 1.16) = 9,880 USD/month
    assert "Cloud rental 9,880 USD/month" in html
    # the figure cites the file it came from, and the stamp names it (outside the working directory: the
    # folder's name, as the page names no folder of the machine it was made on)
    assert "catalog/cloud_prices.csv: my-quote-h100 [P, 2026-11]" in html
    assert str(folder) not in html
    assert "data/cloud_prices.csv: my-quote-h100" not in html


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"offer,provider\n\xff\xfe,x\n", "is not UTF-8 text"),
        (b"", "is empty: a catalog file starts with its header line"),
        (None, "is not valid CSV"),  # an unterminated quote
        ("as_of", "String should match pattern"),  # an as-of that is no date
    ],
)
def test_a_bad_catalog_file_is_refused_with_its_name(tmp_path, capsys, content, reason):
    folder = tmp_path / "catalog"
    folder.mkdir()
    lines = (REPO / "data" / "cloud_prices.csv").read_text().splitlines()
    row = next(line for line in lines if line.startswith("r1-brief-h100,"))
    if content is None:
        content = (lines[0] + "\n" + row.replace('24/7",', "24/7,") + "\n").encode()  # the quote never closes
    elif content == "as_of":
        content = (lines[0] + "\n" + row.replace(",P,2026,", ",P,not-a-date,") + "\n").encode()
        assert b"not-a-date" in content
    (folder / "cloud_prices.csv").write_bytes(content)
    assert main(["compare", "llama70b-vs-api", "--catalog", str(folder)]) == 2
    err = capsys.readouterr().err
    assert str(folder / "cloud_prices.csv") in err and reason in err, err


def test_a_catalog_row_with_an_unknown_gpu_names_its_file_and_the_gpu_meant(tmp_path, capsys):
    folder = tmp_path / "catalog"
    folder.mkdir()
    header = (REPO / "data" / "cloud_prices.csv").read_text().splitlines()[0]
    folder.joinpath("cloud_prices.csv").write_text(
        header + '\nmy-quote-h100,Example quote,H100-SXM-81GB,on_demand,2.00,USD,P,2026-11,"Quote (test)",\n'
    )
    assert main(["compare", "llama70b-vs-api", "--catalog", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'cloud_prices.csv'}: id my-quote-h100, column gpu: unknown GPU" in err
    assert "did you mean H100-SXM-80GB?" in err


def test_catalog_folder_row_overrides_a_bundled_row(tmp_path, capsys):
    folder = tmp_path / "catalog"
    folder.mkdir()
    lines = (REPO / "data" / "cloud_prices.csv").read_text().splitlines()
    row = next(line for line in lines if line.startswith("r1-brief-h100,"))
    folder.joinpath("cloud_prices.csv").write_text(lines[0] + "\n" + row.replace(",3.50,", ",4.00,") + "\n")
    assert main(["compare", "llama70b-vs-api", "--json", "--catalog", str(folder)]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["rent"]["monthly_cost"]["value"] == pytest.approx(
        2 * 4.0 * 730 + 6960
    )


def test_validate_and_schema(tmp_path, capsys):
    bad = write_scenario(tmp_path, {"title": "x"}, "BAD.yaml")
    assert main(["validate", "llama70b-vs-api", "h200-24gpu-cluster"]) == 0
    assert main(["validate", "llama70b-vs-api", str(bad)]) == 2
    assert "BAD.yaml" in capsys.readouterr().err
    schema = scenario_json_schema()
    own = schema["$defs"]["OwnCluster"]["properties"]["server"]
    # the bundled ids for completion, beside any text (an offers: block's or a --catalog folder's id)
    assert "dgx-h200" in own["anyOf"][0]["enum"] and own["anyOf"][1] == {"type": "string"}
    committed = json.loads((REPO / "data" / "schemas" / "scenario.schema.json").read_text())
    assert committed == schema, "data/schemas/scenario.schema.json is stale: costmodel schema > it"


def test_python_dash_m_prints_the_version():
    import subprocess

    out = subprocess.run([sys.executable, "-m", "costmodel", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"costmodel {costmodel.__version__}"


@pytest.mark.slow
def test_batch_reports_in_a_warm_kernel_with_an_index(tmp_path):
    from costmodel.report import unsafe_parts

    out = tmp_path / "out"
    assert main(["batch", "llama70b-vs-api", "h200-24gpu-cluster", "--reports", "--out", str(out)]) == 0
    index = (out / "index.html").read_text()
    assert 'href="llama70b-vs-api/report.html"' in index and 'href="h200-24gpu-cluster/report.html"' in index
    assert unsafe_parts(index) == []
    # the portfolio chart names each verdict: R1's the API (3,548.61 USD/month), R2's the reserved rental
    import base64
    import re

    picture = re.search(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([^"]+)"', index)
    assert picture is not None, "no portfolio chart on the index page"
    assert "R1: Llama 3.3 70B" in picture.group(1)
    assert "Hosted API: Claude Opus 4.5 (Anthropic) is the verdict" in picture.group(1)
    assert (
        "1-year reserved, 7 GPUs (no up-front payment), spot up to 8 GPUs at once, the rest on demand is the verdict"
        in picture.group(1)
    )
    assert base64.b64decode(picture.group(2)).decode().lstrip().startswith("<svg")
    r1 = (out / "llama70b-vs-api" / "report.html").read_text()
    # R1's claims: "about EUR 12,000" is contradicted (12,070 USD against 13,920); "if volume grew 10x, the answer
    # would flip" is confirmed at 100 M tokens/day (the rental's 12,070 against the API's 35,486.11 USD/month)
    assert "Stated figures checked" in r1 and "<strong>contradicted</strong>" in r1
    assert "Cloud rental (rent) costs less than Hosted API (api) at 100,000,000 tokens/day (10.0 × the volume)" in r1
    r2 = (out / "h200-24gpu-cluster" / "report.html").read_text()
    # a clean namespace per report: R2's page shows its own title, and none of R1's claims
    assert "H200" in r2 and "<strong>contradicted</strong>" not in r2
    assert "Stated figures checked" not in r2  # a section without content is left out


def test_an_inline_offer_prices_the_rental_and_is_cited(tmp_path):
    data = patched_data("llama70b-vs-api", {"options.rent.offer": "acme-h100-quote"})
    data["offers"] = {
        "cloud_offers": [
            {
                "offer": "acme-h100-quote",
                "provider": "Acme",
                "gpu": "H100-SXM-80GB",
                "pricing": "on_demand",
                "price_per_gpu_hour": 2.1,
                "currency": "USD",
                "quality": "P",
                "as_of": "2026-11",
                "source": "Acme quote no. 1234",
            }
        ]
    }
    scenario = costmodel.load_scenario(write_scenario(tmp_path, data, "inline.yaml"))
    # 2 GPUs x 2.10 USD x 730 h + the engineer's 6,000 EUR x 1.16
    assert compare_domain(scenario).options["rent"].monthly_cost == pytest.approx(2 * 2.1 * 730 + 6960)
    from costmodel.schema.inputs import find_input

    found = find_input(scenario, scenario.catalog, "options.rent.price_per_gpu_hour")
    assert found.value == 2.1 and found.source.startswith("scenario offers.cloud_offers: acme-h100-quote [P")
    changed = costmodel.with_inputs(scenario, {"options.rent.gpu_count": 4})  # still resolves its offer
    assert compare_domain(changed).options["rent"].monthly_cost == pytest.approx(4 * 2.1 * 730 + 6960)


def test_an_inline_offer_with_an_unknown_gpu_is_refused(tmp_path, capsys):
    data = patched_data("llama70b-vs-api")
    data["offers"] = {
        "cloud_offers": [
            {
                "offer": "x",
                "provider": "Acme",
                "gpu": "H999",
                "pricing": "on_demand",
                "price_per_gpu_hour": 2.1,
                "currency": "USD",
                "quality": "P",
                "as_of": "2026-11",
                "source": "quote",
            }
        ]
    }
    assert main(["validate", str(write_scenario(tmp_path, data))]) == 2
    err = capsys.readouterr().err
    assert "offers." in err and "H999" in err


def test_batch_xlsx_holds_the_portfolio_as_one_sheet(tmp_path):
    out = tmp_path / "b"
    assert main(["batch", "llama70b-vs-api", "h200-24gpu-cluster", "--xlsx", "--out", str(out)]) == 0
    sheets = pd.read_excel(out / "portfolio.xlsx", sheet_name=None)
    assert list(sheets) == ["Portfolio"]
    table, csv = sheets["Portfolio"], pd.read_csv(out / "portfolio.csv")
    assert list(table.columns) == list(csv.columns)
    # R1's API at 10 M tokens/day: 3,548.61 USD/month (the golden figure), the same in both files
    assert table["cost_api"].iloc[0] == pytest.approx(3548.6111111, rel=1e-9)
    pd.testing.assert_frame_equal(
        table[["cost_own", "cost_rent", "margin"]].astype(float), csv[["cost_own", "cost_rent", "margin"]]
    )


def test_portfolio_verdict_is_the_reports_decision(tmp_path):
    out = tmp_path / "b"
    assert main(["batch", "llama70b-vs-api", "h200-24gpu-cluster", "--out", str(out)]) == 0
    table = pd.read_csv(out / "portfolio.csv").set_index("scenario")
    for name in ("llama70b-vs-api", "h200-24gpu-cluster"):  # a batch row is compare's decision
        d = compare_domain(costmodel.load_scenario(name)).decision
        row = table.loc[name]
        assert (row["winner"], row["winner_label"], row["decision_measure"], row["decision_unit"]) == (
            d.winner,
            d.winning.label,
            d.measure,
            d.unit,
        )
        assert row["margin"] == pytest.approx(d.margin, rel=1e-12)
        assert row["winner_figure"] == pytest.approx(d.winning.figure, rel=1e-12)
        for option in ("own", "rent"):
            assert row[f"decision_{option}"] == pytest.approx(d.figure(option), rel=1e-12)
    # R1 has no finance block: the monthly cost; R2 the present value over 60 months
    assert table.loc["llama70b-vs-api", "decision_measure"] == "monthly_cost"
    r2 = table.loc["h200-24gpu-cluster"]
    assert r2["decision_measure"] == "present_value" and r2["decision_own"] == pytest.approx(r2["npv_own"])


def test_a_scenario_named_three_ways_is_one_scenario(tmp_path):
    from costmodel.batch import expand_scenarios
    from costmodel.paths import SCENARIO_DIR

    copy = tmp_path / "mine.yaml"
    copy.write_text((SCENARIO_DIR / "llama70b-vs-api.yaml").read_text())
    named = [
        "llama70b-vs-api",
        str(SCENARIO_DIR / "llama70b-vs-api.yaml"),
        str(SCENARIO_DIR / "llama70b-vs-*.yaml"),
        str(copy),
        str(tmp_path),
        "no-such-scenario",
        "no-such-scenario",
    ]
    # the bundled file once (as first named), the copy once (another file), the missing name once
    assert expand_scenarios(named) == ["llama70b-vs-api", str(copy), "no-such-scenario"]


def test_portfolio_parquet_types_do_not_depend_on_the_rows(tmp_path):
    # Issue 31: with no failed row the error column was null-typed, so two portfolios did not concatenate.
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    bad = write_scenario(tmp_path, {"title": "x"}, "BAD.yaml")
    assert main(["batch", "llama70b-vs-api", "--out", str(tmp_path / "a")]) == 0
    assert main(["batch", "llama70b-vs-api", str(bad), "--out", str(tmp_path / "b")]) in (1, 2)
    a, b = pq.read_table(tmp_path / "a" / "portfolio.parquet"), pq.read_table(tmp_path / "b" / "portfolio.parquet")
    assert a.schema.field("error").type == b.schema.field("error").type
    assert pyarrow.types.is_large_string(a.schema.field("error").type)
    assert a.schema.field("point").type == b.schema.field("point").type == pyarrow.int64()
    for name in set(a.column_names) & set(b.column_names):
        assert a.schema.field(name).type == b.schema.field(name).type, name
    both = pyarrow.concat_tables([a, b], promote_options="default")
    assert both.num_rows == a.num_rows + b.num_rows


def test_every_finance_block_is_described_in_the_schema():
    # Issue 31: five finance blocks had no description in the shipped schema.
    finance = scenario_json_schema()["$defs"]["Finance"]["properties"]
    assert all(spec.get("description") for spec in finance.values()), [
        k for k, v in finance.items() if not v.get("description")
    ]


def test_a_batch_reads_its_catalog_folder_once(tmp_path, monkeypatch):
    # three scenario files with one --catalog folder: the folder is read and checked once, and each
    # file's row costs the folder's rented H100 at 2.00 USD/GPU-hour (2 x 2.00 x 730 + 6,000 EUR x 1.16)
    from costmodel import catalog

    folder = _catalog_dir(tmp_path)
    reads = []
    read = catalog._load_overrides
    monkeypatch.setattr(catalog, "_load_overrides", lambda *args: reads.append(args) or read(*args))
    files = [
        str(
            write_scenario(
                tmp_path, patched_data("llama70b-vs-api", {"options.rent.offer": "my-quote-h100"}), f"{i}.yaml"
            )
        )
        for i in range(3)
    ]
    results = run_tasks([Task(f, f, str(folder)) for f in files])
    assert len(reads) == 1
    assert [r["cost_rent"][0] for r in results] == pytest.approx([2 * 2.0 * 730 + 6000 * 1.16] * 3)
    assert all(r["error"] == [None] for r in results)


def test_a_scenario_file_row_is_the_row_of_its_scenario_compared_alone():
    # the batch compares a file as its check resolved it, without the claims' searches: the same row
    from costmodel.domain.portfolio import scenario_row

    path = str(SCENARIO_DIR / "llama70b-vs-api.yaml")
    (result,) = run_tasks([Task(path, path)])
    alone = scenario_row(costmodel.load_scenario(path), path)
    assert result == {name: [value] for name, value in alone.items()}
    assert result["winner"] == ["api"] and result["margin"][0] == pytest.approx(8521.39, abs=0.01)  # compare's doctest


def test_the_portfolio_of_one_row_results_is_the_concatenation_of_their_rows(tmp_path):
    # scenario files' rows (one with further API offers' columns, one that failed) joined column by column:
    # the frame pandas.concat gives of a frame a row, typed the same way
    from costmodel.batch import portfolio_frame
    from costmodel.columns import PORTFOLIO

    bad = write_scenario(tmp_path, {"title": "no workload"}, "BAD.yaml")
    files = [str(SCENARIO_DIR / "llama70b-vs-api.yaml"), str(SCENARIO_DIR / "api-offers.yaml"), str(bad)]
    results = run_tasks([Task(f, f) for f in files])
    frame = portfolio_frame(results)
    expected = PORTFOLIO.typed(pd.concat([pd.DataFrame(columns) for columns in results], ignore_index=True))
    pd.testing.assert_frame_equal(frame, expected)
    assert "cost_api:haiku" in frame.columns and pd.isna(frame.loc[0, "cost_api:haiku"])
    assert frame.loc[2, "error"] and pd.isna(frame.loc[2, "cost_api"])

"""The docs site builds with every warning an error, its generated pages list what the code holds, and the
README's walk-through and the guide's Python examples run as written."""

import contextlib
import html
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import costmodel
import costmodel.formulas

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}  # the theme's and a plugin's banners


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site as `make docs` builds it, into a folder of its own."""
    pytest.importorskip("mkdocs_gen_files", reason="the docs extra is not installed: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **QUIET},
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def page_text(site: Path, page: str) -> str:
    """A built page's text, tags removed and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", " ", (site / page / "index.html").read_text()))


def test_formula_index_lists_every_formula_with_its_unit(site):
    index = (site / "reference" / "formulas" / "index.html").read_text()
    names = costmodel.formulas.__all__
    assert len(names) > 80
    missing = [name for name in names if f"<code>{name}</code>" not in index]
    assert missing == []
    # one row per formula, and a unit read from the docstring's bracket: blended_api_price's first line
    # ends in [currency/M tokens], its Returns section has none
    rows = re.findall(r"<tr>\s*<td><a href=\"../api/formulas/#costmodel\.formulas\.(\w+)\"", index)
    assert sorted(rows) == sorted(names)
    row = re.search(r"formulas\.blended_api_price\".*?</tr>", index, re.S).group(0)
    assert "currency/M tokens" in row
    # a reference read from the module's References section, which young_interval's docstring names
    row = re.search(r"formulas\.young_interval\".*?</tr>", index, re.S).group(0)
    assert "Young, J. W. (1974)" in html.unescape(row) and "doi:10.1145/361147" in row


def test_scenario_file_reference_lists_every_block_and_field(site):
    schema = json.loads((ROOT / "data" / "schemas" / "scenario.schema.json").read_text())
    text = page_text(site, "reference/scenario-file")
    for name, block in {"Scenario": schema, **schema["$defs"]}.items():
        assert re.search(rf"\b{re.escape(name)}\b", text), name
    for field in schema["properties"]:
        assert f" {field} " in text, field
    # a unit and a bound as the schema states them: CampaignDemand.on_days is in days and above 0
    on_days = schema["$defs"]["CampaignDemand"]["properties"]["on_days"]
    assert on_days["unit"] == "d" and on_days["exclusiveMinimum"] == 0
    section = text[text.index("CampaignDemand") :]
    assert re.search(r"on_days\s+number\s+d\s+required\s+> 0", section)


def test_api_reference_renders_the_public_names(site):
    page = (site / "reference" / "api" / "index.html").read_text()
    missing = [name for name in costmodel.__all__ if f'id="costmodel.{name}"' not in page]
    assert missing == []


def test_site_fetches_nothing_from_elsewhere(site):
    outside = []
    for page in site.rglob("*.html"):
        for tag in re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", page.read_text()):
            found = re.search(r"\b(?:src|href)=\"(https?:)?//[^\"]*\"", tag)
            if found and 'rel="canonical"' not in tag:
                outside.append((page.relative_to(site).as_posix(), tag[:120]))
    assert outside == []


def walkthrough() -> str:
    return README.split("<!-- --8<-- [start:walkthrough] -->")[1].split("<!-- --8<-- [end:walkthrough] -->")[0]


def cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "costmodel", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "COSTMODEL_TODAY": "2026-12-02"},
        timeout=120,
    )


def test_readme_walkthrough_runs_as_written(tmp_path):
    text = walkthrough()
    start, middle, own = re.findall(r"```yaml\n(.*?)```", text, re.S)
    shown_errors, shown_compare = re.findall(r"```text\n(.*?)```", text, re.S)
    scenario = tmp_path / "chatbot.yaml"

    # 1. the file with a title and a currency: exit 2, every missing block named
    scenario.write_text(start)
    run = cli("compare", "chatbot.yaml", cwd=tmp_path)
    assert run.returncode == 2
    assert [line for line in shown_errors.splitlines() if line] == run.stderr.strip().splitlines()

    # 2. each catalog command shown runs and lists the ids the file then uses
    commands = re.findall(r"^costmodel (catalog [^#\n]*?)\s*(?:#.*)?$", text, re.M)
    assert len(commands) == 4
    outputs = [cli(*command.split(), cwd=ROOT) for command in commands]
    assert all(run.returncode == 0 for run in outputs), [run.stderr for run in outputs]
    listed = "\n".join(run.stdout for run in outputs)
    for catalog_id in ("llama-3.1-8b", "H100-SXM-80GB", "nebius-h100", "groq-llama-3-1-8b-instant"):
        assert catalog_id in listed and catalog_id in middle

    # 3-4. the workload and options: the lines shown are what compare prints
    scenario.write_text(start + middle)
    run = cli("compare", "chatbot.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    for line in shown_compare.splitlines():
        if line != "...":
            assert line in run.stdout.splitlines()

    # the figures checked by hand in the walk-through, from the catalog rows it names
    days_per_month = 365 / 12
    api_price = 0.75 * 0.05 + 0.25 * 0.08  # [USD/M tokens], 3:1 mix of 0.05 in, 0.08 out
    result = costmodel.compare(costmodel.load_scenario(scenario))
    assert result.options["api"].monthly_cost == pytest.approx(api_price * 500 * days_per_month)
    assert result.options["rent"].monthly_cost == pytest.approx(3.85 * 730)
    crossing = 3.85 * 730 / (api_price * days_per_month) * 1e6  # [tokens/day]
    assert f"{crossing:,.0f} tokens/day" in run.stdout
    one_gpu = 15220 * 0.8 / 2 * 86400 * 4  # [tokens/day] at the peak: output × (3 + 1)
    assert f"{one_gpu:,.0f} tokens/day" in run.stdout

    # 5. the own option: third, at the figure the walk-through states
    scenario.write_text(start + middle + own)
    run = cli("compare", "chatbot.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert re.search(r"3\. Own cluster: 1 × hgx-h100-ib .* 17,675\.\d\d", run.stdout)
    assert "17,676 USD a month" in " ".join(text.split())
    assert "hgx-h100-ib is as of 2024-08, more than 12 months" in run.stdout


@pytest.mark.slow
def test_readme_walkthrough_report_renders(tmp_path):
    """Step 6: `costmodel report chatbot.yaml` writes reports/chatbot-<hash>/report.html."""
    start, middle, own = re.findall(r"```yaml\n(.*?)```", walkthrough(), re.S)
    (tmp_path / "chatbot.yaml").write_text(start + middle + own)
    run = cli("report", "chatbot.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    pages = list((tmp_path / "reports").glob("chatbot-*/report.html"))
    assert len(pages) == 1 and "reports/chatbot-<hash>/report.html" in walkthrough()
    assert "Llama 3.1 8B for a support chatbot" in pages[0].read_text()


GUIDE_EXAMPLES = sorted(
    page.relative_to(ROOT).as_posix() for page in (ROOT / "docs").rglob("*.md") if "```python" in page.read_text()
)


@pytest.mark.parametrize("page", GUIDE_EXAMPLES)
def test_docs_python_examples_run(page, monkeypatch):
    """Each page's Python blocks run in order, in one namespace per page; a printed figure the page
    states in a comment (`print(...)   # 514 kWh/month`, or the line below the call) is what it prints."""
    if "what_if(" in (ROOT / page).read_text():
        pytest.importorskip("ipywidgets")
    monkeypatch.setenv("COSTMODEL_TODAY", "2026-12-02")
    namespace: dict = {}
    checked: list[str] = []
    for block in re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), re.S):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, page, "exec"), namespace)
        stated = re.findall(r"^print\(.*\)\s+#\s+(\S+)", block, re.M)  # a figure beside the call
        stated += re.findall(r"^print\(.*\)\n# (.+)$", block, re.M)  # a whole line below it
        for figure in stated:
            assert figure in out.getvalue() or figure.replace(",", "") in out.getvalue(), (figure, out.getvalue())
        checked.extend(stated)
    assert page not in {"docs/guide/energy.md", "docs/guide/api-billing.md"} or checked


def test_guide_examples_are_found():
    assert {"docs/guide/energy.md", "docs/guide/python.md", "docs/guide/api-billing.md"} <= set(GUIDE_EXAMPLES)


def test_the_docs_name_no_other_output_schema_version_than_the_codes():
    # a version written in prose goes stale when the contract moves (python.md said 2.0.0 at 2.4.0): a line
    # that names schema_version states no version but the current one, and the shipped schema says which
    from costmodel.presentation.output import SCHEMA_VERSION

    shipped = json.loads((ROOT / "data" / "schemas" / "output.schema.json").read_text())
    assert shipped["$comment"].endswith(f"schema_version {SCHEMA_VERSION}")
    assert costmodel.SCHEMA_VERSION == SCHEMA_VERSION
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    stale = [
        f"{page.relative_to(ROOT)}:{number}: {version}"
        for page in pages
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if "schema_version" in line
        for version in re.findall(r"\b\d+\.\d+\.\d+\b", line)
        if version != SCHEMA_VERSION
    ]
    assert stale == []

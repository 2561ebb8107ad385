"""Every bundled report opened in headless Chromium as a reviewer would: a screenshot, no console
errors, no failed requests, and no chart label drawn over another; and printed to PDF: each chart
once, on the page of its heading.

Chromium is Debian's package (``/usr/bin/chromium``, which .ci/run installs); Playwright for Python
drives it (``executable_path``, no browser download). Where either is missing the tests are
skipped with a message. pypdf reads the printed pages' text.
"""

import base64
import html as html_text
import itertools
import re
import shlex
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from costmodel.paths import REFERENCE_SCENARIOS
from costmodel.report import render_report

README = Path(__file__).resolve().parent.parent / "README.md"
BUNDLED = list(REFERENCE_SCENARIOS)  # the reports `make reports` writes into reports/
FIRST_SCREEN = {"width": 1400, "height": 900}

# every visible <text> of a chart with its box on the page [px]
_TEXT_BOXES = """() => Array.from(document.querySelectorAll('svg text'))
  .filter(t => t.textContent.trim() && getComputedStyle(t).opacity !== '0')
  .map(t => { const b = t.getBoundingClientRect(); return [t.textContent, b.x, b.y, b.width, b.height]; })"""


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[dev]')"
    )
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=binary, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    return {name: render_report(name, out).html for name in BUNDLED}


def overlapping(boxes, tolerance=1.0):
    """Pairs of text boxes that share more than ``tolerance`` px both ways."""
    found = []
    for a, b in itertools.combinations(boxes, 2):
        width = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
        height = min(a[2] + a[4], b[2] + b[4]) - max(a[2], b[2])
        if width > tolerance and height > tolerance:
            found.append((a[0], b[0]))
    return found


def test_overlap_finder_finds_an_overlap():
    # two 40 x 12 boxes 10 px apart horizontally overlap 30 x 12; a third far away does not
    boxes = [("a", 0, 0, 40, 12), ("b", 10, 0, 40, 12), ("c", 100, 100, 10, 10)]
    assert overlapping(boxes) == [("a", "b")]


@pytest.mark.slow
@pytest.mark.parametrize("name", BUNDLED)
def test_report_in_a_browser(browser, reports, name, tmp_path):
    page = browser.new_page(viewport=FIRST_SCREEN)
    problems = []
    page.on(
        "console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url}"))
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(reports[name].resolve().as_uri())
    page.wait_for_load_state("load")
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert problems == []
    assert [url for url in requests if not url.startswith(("file:", "data:"))] == []
    first_screen = page.evaluate("() => document.body.innerText.slice(0, 4000)")
    assert "Summary" in first_screen
    page.close()

    html = reports[name].read_text()
    # sections without content are left out; the foot carries the stamp
    assert "This scenario has no" not in html and "No failure model in this scenario" not in html
    assert "sha256 " in html and "catalog as of" in html
    charts = re.findall(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([^"]+)"', html)
    assert charts, "the report has charts"
    svg_page = browser.new_page()
    checked = 0
    for alt, data in charts:
        svg = base64.b64decode(data).decode()
        svg_page.set_content(f"<html><body style='margin:0'>{svg}</body></html>")
        boxes = svg_page.evaluate(_TEXT_BOXES)
        size = svg_page.evaluate(
            "() => { const b = document.querySelector('svg').getBoundingClientRect(); return [b.width, b.height]; }"
        )
        assert boxes, alt
        assert overlapping(boxes) == [], f"{name}: labels drawn over each other in {alt[:60]!r}"
        outside = [
            b[0] for b in boxes if b[1] < -1 or b[2] < -1 or b[1] + b[3] > size[0] + 1 or b[2] + b[4] > size[1] + 1
        ]
        assert outside == [], f"{name}: labels cut off in {alt[:60]!r}"
        checked += 1
    svg_page.close()
    assert checked == len(charts)


@pytest.mark.slow
def test_first_screen_of_r2_states_one_verdict_with_both_views(browser, reports):
    page = browser.new_page(viewport=FIRST_SCREEN)
    page.goto(reports["h200-24gpu-cluster"].resolve().as_uri())
    # the text whose top lies within the first 900 px
    visible = page.evaluate("""() => Array.from(document.querySelectorAll('p, li, h1, h2'))
        .filter(e => e.getBoundingClientRect().top < 900).map(e => e.innerText).join('\\n')""")
    page.close()
    assert visible.count("Verdict:") == 1
    # the decision (compare --json decision): the 1-year reserved base of 7 GPUs, spot up to 8 GPUs above it,
    # the rest on demand: 2,150,633.86 USD over 60 months, 547,439.43 less than renting all on demand
    # (2,698,073.29 USD), as the verdict table under it gives them
    from costmodel.domain.compare import compare
    from costmodel.scenarios import load_scenario

    d = compare(load_scenario("h200-24gpu-cluster")).decision
    assert d.winner == "rent.reserved"
    assert f"Verdict: {d.winning.label}." in visible
    assert "2,150,633.86 USD" in visible and "2,698,073.29 USD" in visible and "547,439.43 USD less" in visible
    assert "Decision measure: the present value of costs over 60 months" in visible


def long_labelled_scenarios(folder):
    """Scenario files of users with long option labels: R1 with 8 options (its own three and catalog rentals
    and API offers, a demand profile: test_charts.long_labelled) and R2 with its 2 options (finance, mix and
    Monte Carlo sections), every label 45 to 70 characters long."""
    import yaml
    from conftest import scenario_data
    from test_charts import long_labelled

    r2 = scenario_data("h200-24gpu-cluster")
    r2.pop("claims", None)
    r2["uncertainty"]["samples"] = 2000
    r2["options"]["own"]["label"] = "Three owned eight-GPU H200 servers in a Texas colocation facility"
    r2["options"]["rent"]["label"] = "Nebius on-demand H200 rental with a reserved base and spot bursts"
    paths = []
    for name, data in (("eight-long-labels", long_labelled(8)), ("two-long-labels", r2)):
        paths.append(folder / f"{name}.yaml")
        paths[-1].write_text(yaml.safe_dump(data, sort_keys=False))
    return paths


PAGE_WIDTH = 1036
"""Width of the report's column at a 1,400-px window (1,100 px less 2 em of padding each side): a chart
wider than this is shrunk to fit, its text with it. [px]"""

# the live (vega-embed) views: each chart's visible texts with their boxes, and its drawing's size [px]
_LIVE_TEXT_BOXES = """() => Array.from(document.querySelectorAll('.costmodel-vega')).map(view => [
  view.getAttribute('aria-label'),
  Array.from(view.querySelectorAll('svg text'))
    .filter(t => t.textContent.trim() && getComputedStyle(t).opacity !== '0')
    .map(t => { const b = t.getBoundingClientRect(); return [t.textContent, b.x, b.y, b.width, b.height]; }),
  [view.querySelector('svg').getAttribute('width'), view.querySelector('svg').getAttribute('height')]])"""


@pytest.mark.slow
def test_reports_of_many_long_labelled_options_draw_no_text_over_another(browser, tmp_path):
    """Two to eight options with long labels: no chart's texts overlap, in the drawn SVG or in the live view,
    and no chart is wider than the page (each would be shrunk, its text with it)."""
    found = []
    for path in long_labelled_scenarios(tmp_path):
        html = render_report(path, tmp_path / "out").html
        charts = re.findall(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([^"]+)"', html.read_text())
        assert len(charts) >= 12
        svg_page = browser.new_page()
        for alt, data in charts:
            svg_page.set_content(f"<html><body style='margin:0'>{base64.b64decode(data).decode()}</body></html>")
            width = svg_page.evaluate("() => document.querySelector('svg').getBoundingClientRect().width")
            boxes = svg_page.evaluate(_TEXT_BOXES)
            assert len(boxes) > 5, alt
            found += [(path.stem, alt[:50], pair) for pair in overlapping(boxes)]
            found += [(path.stem, alt[:50], f"{width:.0f} px wide")] if width > PAGE_WIDTH else []
        svg_page.close()
        page = browser.new_page(viewport=FIRST_SCREEN)
        page.goto(html.resolve().as_uri())
        page.wait_for_function(f"() => document.querySelectorAll('.costmodel-interactive').length == {len(charts)}")
        views = page.evaluate(_LIVE_TEXT_BOXES)
        page.close()
        assert len(views) == len(charts)
        for alt, boxes, size in views:
            assert len(boxes) > 5, alt
            found += [(path.stem, f"live {alt[:50]}", pair) for pair in overlapping(boxes)]
            found += [(path.stem, f"live {alt[:50]}", f"{size[0]} px wide")] if float(size[0]) > PAGE_WIDTH else []
    assert found == []


def test_only_the_exact_vega_bundle_is_trusted():
    from costmodel.presentation.interactive import vega_bundle
    from costmodel.report import trusted_scripts, unsafe_parts

    bundle = vega_bundle()
    page = f"<html><body><script>{bundle}</script></body></html>"
    # the bundle's loader calls fetch(): refused unless its exact bytes are trusted
    assert unsafe_parts(page) == ["a script that loads something"]
    assert unsafe_parts(page, trusted_scripts()) == []
    # one character changed, or another script that fetches, is refused all the same
    assert unsafe_parts(page.replace(bundle, bundle + " "), trusted_scripts()) == ["a script that loads something"]
    assert unsafe_parts(page + "<script>fetch('https://example.com')</script>", trusted_scripts()) == [
        "a script that loads something"
    ]


# --- printing -------------------------------------------------------------------------------------

_SVG_CHARTS = r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([^"]+)"'

# in document order: each heading's text, each chart (its index among the charts) and each table
_PRINTED_ITEMS = """() => {
  const charts = Array.from(document.querySelectorAll('.jp-RenderedSVG img'));
  return Array.from(document.querySelectorAll('h1, h2, h3, h4, .jp-RenderedSVG img, table')).map(e =>
    e.tagName === 'IMG' ? ['chart', charts.indexOf(e)] : e.tagName === 'TABLE' ? ['table', null]
    : ['heading', e.textContent.replace('\u00b6', '').trim()]);
}"""


def _plain(text: str) -> str:
    """Text as compared with a PDF's: ligatures (\ufb01) and other compatibility forms unfolded, spaces trimmed."""
    return unicodedata.normalize("NFKC", text).strip()


def chart_titles(page_html: str) -> list[list[str]]:
    """Each chart's title lines, read from its SVG (Vega draws a title as ``<text>`` in ``role-title-text``)."""
    found = []
    for _, data in re.findall(_SVG_CHARTS, page_html):
        svg = base64.b64decode(data).decode()
        blocks = re.findall(r'class="[^"]*role-title-text[^"]*"[^>]*>(.*?)</g>', svg, re.S)
        found.append(
            [
                _plain(html_text.unescape(text))
                for block in blocks
                for text in re.findall(r"<text[^>]*>([^<]*)</text>", block)
            ]
        )
    return found


def headings_of(page_html: str) -> list[str]:
    """The text of each heading (h1 to h4), without its anchor link's pilcrow."""
    return [
        _plain(html_text.unescape(re.sub(r"<[^>]+>", "", text)).replace("\u00b6", ""))
        for text in re.findall(r"<h[1-4][^>]*>(.*?)</h[1-4]>", page_html, re.S)
    ]


def expected_titles(page_html: str) -> dict[str, int]:
    """How many printed lines each chart title line should be: one per chart with it, one per heading reading it."""
    titles = [line for lines in chart_titles(page_html) for line in lines]
    headings = headings_of(page_html)
    return {title: titles.count(title) + headings.count(title) for title in set(titles)}


def printed_pages(pdf: bytes) -> list[list[str]]:
    """Each page's text lines (pypdf), in the order printed, without empty lines."""
    import io

    pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed (pip install -e '.[dev]')")
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [[_plain(line) for line in page.extract_text().splitlines() if line.strip()] for page in reader.pages]


def times_printed(pages: list[list[str]], line: str) -> int:
    """How many printed lines read ``line`` exactly."""
    return sum(printed == line for page in pages for printed in page)


def pages_of(pages: list[list[str]], lines: list[str]) -> list[int]:
    """The page (from 0) of each line in ``lines``, matched in order: the first match after the previous one."""
    flat = [(number, line) for number, page in enumerate(pages) for line in page]
    found, at = [], 0
    for wanted in lines:
        at = next((i for i in range(at, len(flat)) if flat[i][1] == wanted), None)
        assert at is not None, f"{wanted!r} is not printed (in order)"
        found.append(flat[at][0])
        at += 1
    return found


def test_page_finder_matches_in_order():
    # "b" printed twice: the second is the one after "c"
    pages = [["a", "b"], ["c"], ["b", "d"]]
    assert pages_of(pages, ["a", "c", "b"]) == [0, 1, 2]
    assert times_printed(pages, "b") == 2
    with pytest.raises(AssertionError, match="'e' is not printed"):
        pages_of(pages, ["a", "e"])


def test_chart_titles_read_from_the_svg():
    svg = (
        '<svg><g class="mark-text role-title-text"><text x="0">Cost &amp; ﬁt (USD)</text></g>'
        '<g class="mark-text role-axis-title"><text>Volume</text></g></svg>'
    )
    page = f'<img alt="x" src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}">'
    assert chart_titles(page) == [["Cost & fit (USD)"]]


@pytest.mark.slow
@pytest.mark.parametrize("name", BUNDLED)
def test_report_prints_each_chart_once_with_its_heading(browser, reports, name):
    page_html = reports[name].read_text()
    titles = chart_titles(page_html)
    assert titles and all(titles), f"{name}: every chart has a title to find in the PDF"
    page = browser.new_page()
    page.goto(reports[name].resolve().as_uri())
    # print once every live view is drawn: the page as a reader prints it, with both the SVG and the view in it
    page.wait_for_function(f"() => document.querySelectorAll('.costmodel-interactive').length === {len(titles)}")
    items = page.evaluate(_PRINTED_ITEMS)
    pages = printed_pages(page.pdf())
    page.close()

    # each chart's title once per chart that has it (and once per heading that reads the same), not twice
    for title, expected in expected_titles(page_html).items():
        assert times_printed(pages, title) == expected, (
            f"{name}: {title!r} printed {times_printed(pages, title)} times, not {expected}"
        )

    # no blank page: R1's printed a blank one after its stated figures, a cell kept whole that ended at the foot of
    # a page (each output, picture and table is kept whole now, not a whole cell)
    assert [number for number, page in enumerate(pages) if not page] == [], f"{name}: a blank page is printed"

    # a heading is never the last line of a page, and a heading whose next item is a chart shares its page
    headings = headings_of(page_html)
    assert [page[-1] for page in pages if page[-1] in headings] == [], f"{name}: a page ends with a heading"
    assert sum(kind == "chart" for kind, _ in items) == len(titles)
    printed = [
        (index, _plain(text) if kind == "heading" else titles[text][0])
        for index, (kind, text) in enumerate(items)
        if kind != "table"
    ]
    page_of = dict(zip([index for index, _ in printed], pages_of(pages, [line for _, line in printed])))
    pairs = 0
    for index, ((kind, text), (following, _)) in enumerate(zip(items, items[1:])):
        if kind == "heading" and following == "chart":
            pairs += 1
            assert page_of[index] == page_of[index + 1], (
                f"{name}: heading {text!r} on page {page_of[index] + 1}, its chart on page {page_of[index + 1] + 1}"
            )
    assert pairs, f"{name}: no heading followed by a chart to check"


@pytest.mark.slow
def test_readme_print_recipe(browser, reports, tmp_path):
    # the README's command, run as it stands on a rendered report: each chart printed once
    command = re.search(r"`(chromium --headless [^`]*--print-to-pdf=\S+ \S+)`", README.read_text()).group(1)
    arguments = shlex.split(command)
    assert arguments[-1] == "reports/h200-24gpu-cluster/report.html"  # where `make reports` writes it
    arguments[0] = shutil.which("chromium") or shutil.which("chromium-browser")
    arguments[-1] = str(reports["h200-24gpu-cluster"].resolve())
    subprocess.run(arguments, cwd=tmp_path, check=True, capture_output=True, timeout=120)
    pages = printed_pages((tmp_path / "report.pdf").read_bytes())
    assert len(pages) > 1
    for title, expected in expected_titles(reports["h200-24gpu-cluster"].read_text()).items():
        assert times_printed(pages, title) == expected, title

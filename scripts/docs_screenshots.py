"""Screenshots of the reference reports for the docs' gallery (docs/gallery/*.png).

Run after ``make reports``: ``.venv/bin/python scripts/docs_screenshots.py``. Each report's first screen
(its summary) and its first chart are taken in headless Chromium (Debian's ``/usr/bin/chromium``, driven by
Playwright from the ``dev`` extra) and written as PNGs of at most 64 colours, so the gallery stays small
(about 300 KB for all). The pictures are committed; run this again when the reports change.
"""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "gallery"
REPORTS = ROOT / "reports"

# (scenario, what to take): "summary" is the report's first screen, "chart" its first drawn chart
SHOTS = [
    ("llama70b-vs-api", "summary"),
    ("llama70b-vs-api", "chart"),
    ("h200-24gpu-cluster", "summary"),
    ("h200-job-log", "chart"),
    ("h100-10k-cluster", "chart"),
    ("llama31-405b-training", "summary"),
]
VIEWPORT = {"width": 1100, "height": 760}  # [px]
COLOURS = 64  # palette size of the written PNGs [-]


def small_png(data: bytes) -> bytes:
    """The screenshot reduced to a palette of ``COLOURS`` colours (text stays sharp, size drops ~5x)."""
    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main() -> int:
    from playwright.sync_api import sync_playwright

    binary = shutil.which("chromium") or "/usr/bin/chromium"
    missing = [name for name, _ in SHOTS if not (REPORTS / name / "report.html").is_file()]
    if missing:
        print(f"no report for {', '.join(sorted(set(missing)))} in reports/: run `make reports` first", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=binary, args=["--no-sandbox", "--disable-gpu"])
        for name, what in SHOTS:
            page = browser.new_page(viewport=VIEWPORT)
            page.goto((REPORTS / name / "report.html").as_uri())
            if what == "summary":
                data = page.screenshot()
            else:
                page.wait_for_selector(".costmodel-vega svg")
                data = page.locator(".costmodel-vega").first.screenshot()
            path = OUT / f"{name}-{what}.png"
            path.write_bytes(small_png(data))
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size / 1024:.0f} KiB)")
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

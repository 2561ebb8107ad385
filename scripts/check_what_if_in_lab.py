"""Manual check: the what-if panel renders and reacts in a real JupyterLab, offline (not a test).

Starts JupyterLab on the prepared what-if notebook of a scenario, drives it with headless
Chromium (Playwright for Python, Apache-2.0; not a project dependency: ``pip install
playwright`` in any environment, no browser download needed with a system Chromium), blocks
every request that leaves the machine, runs all cells, reads the verdict, types a new value
into a slider's readout and times the redraw, changes a dropdown, and writes a screenshot
outside the repository.

    .venv/bin/python -m pip install -e ".[dev,interactive]"
    /path/to/playwright-env/bin/python scripts/check_what_if_in_lab.py [--scenario llama70b-vs-api]
        [--chromium /usr/bin/chromium] [--screenshot /tmp/what-if.png]
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv" / "bin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", default="llama70b-vs-api")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshot", default=str(Path(tempfile.gettempdir()) / "what-if.png"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="what-if-lab-"))
    subprocess.run([VENV / "costmodel", "what-if", args.scenario, "--no-lab", "--out", work], check=True)
    port, token = free_port(), secrets.token_hex(16)
    command = [
        VENV / "jupyter",
        "lab",
        "--no-browser",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={work}",
        "--ServerApp.ip=127.0.0.1",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    lab = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    blocked: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 2200})

            def offline(route):
                host = urlparse(route.request.url).hostname
                if host in ("127.0.0.1", "localhost"):
                    return route.continue_()
                blocked.append(route.request.url)
                return route.abort()

            page.route("**/*", offline)
            url = f"http://127.0.0.1:{port}/lab/tree/{args.scenario}.ipynb?token={token}"
            for _ in range(60):
                try:
                    page.goto(url, timeout=5000)
                    break
                except Exception:
                    time.sleep(1)
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            try:  # "Select Kernel" dialog of a notebook opened for the first time
                page.locator(".jp-Dialog button", has_text="Select").click(timeout=15_000)
            except Exception:
                pass
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=60_000)
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click(timeout=10_000)
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click(timeout=10_000)
            verdict = page.locator("b", has_text="the cheapest option is")
            try:
                verdict.first.wait_for(timeout=120_000)
            except Exception:
                page.screenshot(path=args.screenshot, full_page=True)
                print("no verdict; screenshot:", args.screenshot, "page text:", page.inner_text("body")[-3000:])
                raise
            page.wait_for_selector(".jp-RenderedVega5 canvas, .jp-RenderedVega5 svg, .vega-embed", timeout=60_000)
            before = verdict.first.inner_text()
            print("verdict before:", before)
            sliders = page.locator(".widget-hslider")
            print(
                "sliders:",
                sliders.count(),
                "| dropdowns:",
                page.locator(".widget-dropdown").count(),
                "| toggles:",
                page.locator(".widget-toggle-button").count(),
            )
            print("first slider:", sliders.first.locator("label").inner_text())
            readout = sliders.first.locator(".widget-readout")
            low, high = (
                float(x)
                for x in sliders.first.locator(".noUi-handle").first.evaluate(
                    "h => [h.getAttribute('aria-valuemin'), h.getAttribute('aria-valuemax')]"
                )
            )
            times = []
            for k in range(6):  # type a value into the readout; time Enter -> new verdict on the page
                old = verdict.first.inner_text()
                readout.click()
                page.keyboard.press("Control+A")
                page.keyboard.type(f"{low + (high - low) * (0.15 + 0.14 * k):.6g}")
                start = time.perf_counter()
                page.keyboard.press("Enter")
                page.wait_for_function(
                    "old => [...document.querySelectorAll('b')].some(b => b.innerText.includes("
                    "'the cheapest option is') && b.innerText !== old)",
                    arg=old,
                    timeout=10_000,
                    polling=5,
                )
                times.append(time.perf_counter() - start)
                page.wait_for_timeout(300)
            after = verdict.first.inner_text()
            print(
                "Enter to new verdict on the page [ms]:",
                [round(t * 1000) for t in times],
                f"median {sorted(times)[len(times) // 2] * 1000:.0f}",
            )
            print("verdict after:", after)
            page.locator(".vega-embed, .jp-RenderedVega5").first.wait_for(timeout=10_000)
            page.locator("button", has_text="save YAML").click()
            page.locator("text=saved").first.wait_for(timeout=10_000)
            saved = next(work.glob("*-what-if.yaml"))
            print("saved:", saved.name, "| its first lines:", saved.read_text().splitlines()[:2])
            compared = subprocess.run([VENV / "costmodel", "compare", saved], capture_output=True, text=True)
            print(
                "costmodel compare of it: exit",
                compared.returncode,
                "|",
                [line for line in compared.stdout.splitlines() if line.startswith("cheapest:")],
            )
            print(
                "differs line:",
                page.locator("i", has_text="Differs from the scenario file").first.locator("xpath=..").inner_text(),
            )
            page.wait_for_timeout(500)
            page.screenshot(path=args.screenshot, full_page=True)
            print("screenshot:", args.screenshot)
            browser.close()
    finally:
        lab.terminate()
        lab.wait(timeout=30)
    print("requests blocked (left the machine):", len(blocked), blocked[:5])
    return 0


if __name__ == "__main__":
    sys.exit(main())

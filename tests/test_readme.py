"""The README's Python example runs and prints what the README says it prints."""

import contextlib
import io
import re
from pathlib import Path

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_readme_example_prints_what_it_shows():
    first, *rest = re.findall(r"```python\n(.*?)```", README, re.S)
    shown = re.search(r"prints\n\n```text\n(.*?)```", README, re.S).group(1)
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(first, "README.md", "exec"), namespace)
    assert out.getvalue() == shown
    for block in rest:  # the later examples run, in the same namespace
        exec(compile(block, "README.md", "exec"), namespace)

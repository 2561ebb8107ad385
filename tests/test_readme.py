"""The README's Python example runs and prints what the README says it prints."""

import contextlib
import io
import re
from pathlib import Path

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_readme_example_prints_what_it_shows():
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    shown = re.search(r"prints\n\n```text\n(.*?)```", README, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().startswith(shown)

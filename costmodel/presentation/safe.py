"""Text from a scenario, a catalog or a job log, made safe to show: literal, never live.

Titles, descriptions, sources and ids are shown exactly as written. In Markdown every
ASCII punctuation character that Markdown (or LaTeX in JupyterLab) could act on is
backslash-escaped, so ``<img onerror=...>`` is text, ``[a](http://x)`` is not a link,
``$3.5 ... $3,500`` is not typeset as mathematics, and ``# heading`` is not a heading.

References
----------
.. [1] CommonMark Spec 0.31, §2.4 "Backslash escapes": any ASCII punctuation may be escaped.
"""

from __future__ import annotations

import html
import re

_PUNCTUATION = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")


def markdown(text: str) -> str:
    r"""``text`` escaped for Markdown: shown literally, line breaks kept as spaces.

    Examples
    --------
    >>> print(markdown("about $3.5 <b>per</b> GPU-hour"))
    about \$3\.5 \<b\>per\<\/b\> GPU\-hour
    """
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))


def code_span(text: str) -> str:
    """``text`` as a Markdown code span: shown literally (no backslash escapes, which a code span
    would show), in a backtick fence longer than any run of backticks inside it.

    Examples
    --------
    >>> print(code_span("options.rent.staffing.fte"))
    `options.rent.staffing.fte`
    >>> print(code_span("a`b"))
    `` a`b ``
    """
    import re

    text = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if longest or text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def html_text(text: str) -> str:
    """``text`` escaped for HTML (quotes included).

    Examples
    --------
    >>> html_text('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return html.escape(str(text), quote=True)

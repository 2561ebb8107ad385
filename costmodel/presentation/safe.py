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


def html_text(text: str) -> str:
    """``text`` escaped for HTML (quotes included).

    Examples
    --------
    >>> html_text('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return html.escape(str(text), quote=True)

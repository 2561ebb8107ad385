"""Text from a scenario, a catalog or a job log, made safe to show: literal, never live.

Titles, descriptions, sources and ids are shown exactly as written. In Markdown every
ASCII punctuation character that Markdown (or LaTeX in JupyterLab) could act on is
backslash-escaped, so ``<img onerror=...>`` is text, ``[a](http://x)`` is not a link,
``$3.5 ... $3,500`` is not typeset as mathematics, and ``# heading`` is not a heading.
In HTML it is entity-escaped (:func:`html_text`). On a terminal its control characters are
dropped (:func:`terminal`), so it cannot recolour the text, move the cursor, overwrite a line
or retitle the window.

References
----------
.. [1] CommonMark Spec 0.31, §2.4 "Backslash escapes": any ASCII punctuation may be escaped.
.. [2] ECMA-48, 5th edition (1991), §5.4 "Control sequences" and §8.3.89 "OSC": the escape
   sequences :func:`terminal` drops whole.
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


def html_text(text: object) -> str:
    """``text`` (or its ``str``: a path, an error) escaped for HTML (quotes included).

    Examples
    --------
    >>> html_text('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    return html.escape(str(text), quote=True)


_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing (ESC [ 31 m)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the same with the one-byte C1 introducer
    r"|(?:\x1b[]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)"  # OSC, DCS, ...: ESC ] 0;title BEL
    r"|\x1b[ -/]*[0-~]"
)  # any other escape: ESC c (reset), ESC ( B, ...
_SPACES = re.compile(r"[\t\r\x0b\x0c]")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal(text: str, multiline: bool = False) -> str:
    r"""``text`` for a terminal: escape sequences and control characters dropped.

    Parameters
    ----------
    text
        Text to print (anything: ``str()`` is taken).
    multiline
        Keep line breaks (output of several lines); otherwise a line break becomes a space,
        so one value stays on one line.

    Returns
    -------
    str
        The text without ANSI/ECMA-48 escape sequences (colours, cursor moves, window titles: the
        whole sequence), without C0 and C1 control characters and DEL, and without the Unicode
        direction overrides that reorder what a terminal shows. A tab, a carriage return (which
        would overwrite the line) and a form feed become a space; CR LF becomes a line break.

    Examples
    --------
    >>> terminal("\x1b[31mred\x1b[0m \x1b]0;title\x07ok\rover\x08!")
    'red ok over!'
    >>> terminal("two\nlines", multiline=True), terminal("two\nlines")
    ('two\nlines', 'two lines')
    """
    text = _ESCAPE_SEQUENCE.sub("", str(text)).replace("\r\n", "\n")
    text = _SPACES.sub(" ", text if multiline else text.replace("\n", " "))
    return _CONTROL.sub("", text)

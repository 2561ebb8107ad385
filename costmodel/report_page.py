"""A report's page: the check that nothing in it loads or runs, its Content-Security-Policy, and
the places the template marks for the Vega bundle and the charts' drawings.

The HTML is parsed, not searched with patterns (:func:`unsafe_parts`); the page written carries a
Content-Security-Policy that lets only its own inline scripts run, by their hashes
(:func:`with_content_security_policy`), and loads nothing from any URL.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from html.parser import HTMLParser

from .presentation.interactive import vega_bundle


class ReportError(RuntimeError):
    """A report could not be rendered; the message names the scenario and the error."""


_URL_ATTRIBUTES = {
    "src",
    "href",
    "srcset",
    "poster",
    "data",
    "action",
    "formaction",
    "xlink:href",
    "background",
    "codebase",
    "cite",
    "longdesc",
    "manifest",
    "ping",
    "imagesrcset",
    "lowsrc",
    "dynsrc",
}
_NAVIGATION_ONLY = {"a", "area"}  # an href the reader must click: not loaded with the page
_IMAGE_ELEMENTS = {"img", "image", "source", "video", "feimage"}  # may show a data:image/ URL inline
_IMAGE_ATTRIBUTES = {"src", "srcset", "poster", "href", "xlink:href"}
_SCRIPT_SCHEMES = ("javascript:", "vbscript:")
_FORBIDDEN_ELEMENTS = {"iframe", "object", "embed", "frame", "frameset", "applet", "base", "portal"}
_CSS_URL = re.compile(r"url\s*\(\s*['\"]?\s*(?!data:|#)([^'\")\s]+)|@import", re.IGNORECASE)
_SRCSET_URL = re.compile(r"[\s,]*(\S+)")


def _normalised(url: str) -> str:
    """A URL lower-cased, without whitespace or control characters anywhere: its scheme as a browser reads it
    or stricter (browsers drop tabs and line breaks anywhere, other controls and spaces at the ends)."""
    return re.sub(r"[\s\x00-\x1f\x7f]", "", url).lower()


def _url_problem(tag: str, name: str, url: str) -> str | None:
    """Why a URL in attribute ``name`` of element ``tag`` is refused, or None when it is inert.

    Entity references in the value are already decoded (the parser does that), so ``java&#x09;script:``
    arrives as ``java\tscript:``. Refused: a ``javascript:`` or ``vbscript:`` URL anywhere; a ``data:`` URL
    anywhere but an image's own source (``<img src>``, ``srcset``, an SVG ``<image href>``, and only
    ``data:image/...``); and any other URL that would load with the page. A link (``<a href>``,
    ``<area href>``) to a page elsewhere loads nothing until clicked and is allowed.
    """
    text = _normalised(url)
    if not text or text.startswith("#"):
        return None
    if text.startswith(_SCRIPT_SCHEMES):
        return "a script URL"
    if text.startswith("data:"):
        if tag in _IMAGE_ELEMENTS and name in _IMAGE_ATTRIBUTES and text.startswith("data:image/"):
            return None
        return "a data: URL outside an image"
    if tag in _NAVIGATION_ONLY and name == "href":
        return None
    return "loads from elsewhere"


def _srcset_urls(value: str) -> list[str]:
    """The URLs of a ``srcset`` (each candidate's URL, then descriptors up to the next comma); a ``data:`` URL's
    own commas stay inside it, as in the HTML standard's parsing."""
    urls, at = [], 0
    while match := _SRCSET_URL.match(value, at):
        url, at = match.group(1), match.end()
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = value.find(",", at)
            at = len(value) if comma < 0 else comma + 1
        urls.append(url)
    return urls


class _Inspector(HTMLParser):
    """Collects every part of a page that would load something or run code when it opens."""

    def __init__(self, trusted: frozenset[str] = frozenset()) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_style = False
        self._in_script = False
        self._script: list[str] = []
        self._trusted = trusted

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if tag in _FORBIDDEN_ELEMENTS:
            self.found.append(f"<{tag}> element")
        names = {name.lower(): value or "" for name, value in attrs}
        for name, value in names.items():
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...> event handler")
            elif name in _URL_ATTRIBUTES:
                urls = _srcset_urls(value) if "srcset" in name else [value]
                why = next((w for w in (_url_problem(tag, name, url) for url in urls) if w), None)
                if why:
                    self.found.append(f"<{tag} {name}={value[:60]!r}>: {why}")
            elif name == "style" and _CSS_URL.search(value):
                self.found.append(f"<{tag} style={value[:60]!r}>")
        # SVG animation can set a link's href after the page is parsed: <set attributeName="href" to="...">
        if tag in ("set", "animate") and names.get("attributename", "").lower() in ("href", "xlink:href"):
            for name in ("to", "from", "values"):
                if any(_url_problem("a", "href", url) for url in names.get(name, "").split(";")):
                    self.found.append(f"<{tag} attributeName=href {name}={names[name][:60]!r}>")
        if tag == "meta" and names.get("http-equiv", "").lower() == "refresh":
            self.found.append("<meta http-equiv=refresh>")
        if tag == "script":
            self._in_script = True
            self._script = []
            if names.get("src"):
                return  # already reported as a src attribute
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag.lower() == "style":
            self._in_style = False
        if tag.lower() == "script" and self._in_script:
            self._in_script = False
            text = "".join(self._script)
            if hashlib.sha256(text.encode()).hexdigest() not in self._trusted and re.search(
                r"\bimport\s*\(|\bfetch\s*\(|XMLHttpRequest|\.src\s*=", text
            ):
                self.found.append("a script that loads something")

    def handle_data(self, data: str) -> None:
        if self._in_style and (match := _CSS_URL.search(data)):
            self.found.append(f"CSS {data[max(0, match.start() - 20) : match.end() + 40]!r}")
        if self._in_script:
            self._script.append(data)


def unsafe_parts(html: str, trusted_scripts: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Everything in an HTML page that would load from elsewhere or run code when it opens.

    The page is parsed (not searched with patterns), entity references decoded: every URL-bearing
    attribute (``src``, ``href``, ``srcset``, ``poster``, ``data``, ``action``, ``formaction``,
    ``xlink:href``, ...) that would load from elsewhere; a ``javascript:`` or ``vbscript:`` URL in any
    of them, links included, also set by SVG ``<set>``/``<animate>``; a ``data:`` URL anywhere but
    an image's own source (``<img src="data:image/...">``); any event-handler attribute (``on...``),
    ``<meta http-equiv=refresh>``, ``<iframe>``/``<object>``/``<embed>``/``<base>``, CSS ``url()``
    and ``@import``, and scripts that import or fetch. A link (``<a href>``) to a page elsewhere
    loads nothing until clicked and is allowed. XML namespace declarations are names, not
    references.

    Parameters
    ----------
    html
        The page.
    trusted_scripts
        SHA-256 (hex) of inline scripts allowed although their code can load (the Vega bundle the
        report embeds, :func:`vega_bundle`, whose loader is never given a URL): exactly those
        bytes, nothing else.

    Returns
    -------
    list of str
        One description per part found; empty when the page is self-contained and inert.
    """
    inspector = _Inspector(frozenset(trusted_scripts))
    inspector.feed(html)
    inspector.close()
    return inspector.found


_SCRIPT_TYPES = {"", "text/javascript", "application/javascript", "module"}
"""``<script type>`` values a browser runs; any other type (``application/json``: a chart's spec) is data."""


class _Scripts(HTMLParser):
    """The text of every inline script a browser would run, in page order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.lower() == "script":
            kind = (dict(attrs).get("type") or "").strip().lower()
            self._text = [] if kind in _SCRIPT_TYPES else None

    def handle_endtag(self, tag: str) -> None:
        if tag.lower() == "script" and self._text is not None:
            self.found.append("".join(self._text))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def content_security_policy(scripts: Iterable[str]) -> str:
    """The Content-Security-Policy of a report: its own inline scripts, inline styles and data: images only.

    Parameters
    ----------
    scripts
        The text of each inline script the page runs; each is allowed by its SHA-256 hash, so no
        other script (an injected one, a changed byte, an event handler or a ``javascript:`` URL) runs.

    Returns
    -------
    str
        The policy: nothing loads from anywhere (``default-src 'none'``: no URL, not even the
        page's own folder); scripts by hash, without ``eval``; inline ``<style>`` and ``style``
        attributes (nbconvert's and vega-embed's, which the page check has read for ``url()``);
        images, fonts only as ``data:``; no ``<base>`` and no form submission.

    Examples
    --------
    >>> content_security_policy(["1"]).split("; ")[:2]
    ["default-src 'none'", "script-src 'sha256-a4ayc/80/OGda4BO/1o/V0etpOqiLx1JwB5S3beHW0s='"]
    """
    hashes = sorted(
        {"'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'" for text in scripts}
    )
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + (" ".join(hashes) or "'none'"),
            "style-src 'unsafe-inline'",
            "img-src data:",
            "font-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def with_content_security_policy(page: str) -> str:
    """The page with a ``<meta http-equiv="Content-Security-Policy">`` first in its head, allowing
    exactly the inline scripts it holds (:func:`content_security_policy`).

    Raises
    ------
    ReportError
        The page has no ``<head>`` to put the policy in.
    """
    found = _Scripts()
    found.feed(page)
    found.close()
    meta = f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(found.found)}">'
    head = re.search(r"<head\b[^>]*>(\s*<meta charset=[^>]*>)?", page, re.IGNORECASE)
    if head is None:
        raise ReportError("the page has no <head> for its Content-Security-Policy")
    return page[: head.end()] + "\n" + meta + page[head.end() :]


def trusted_scripts() -> frozenset[str]:
    """SHA-256 (hex) of the one script a report may embed although its code can load: the Vega bundle."""
    return frozenset({hashlib.sha256(vega_bundle().encode()).hexdigest()})


def external_references(html: str) -> list[str]:
    """The parts of a page that would load something over the network (see :func:`unsafe_parts`);
    the embedded Vega bundle (:func:`trusted_scripts`) is not one of them."""
    return unsafe_parts(html, trusted_scripts())


BUNDLE_MARKER = "/*costmodel-vega-bundle*/"
"""What the template writes in place of the Vega bundle; the bundle replaces it after the export,
so that neither nbconvert's own pass over the page (BeautifulSoup) nor the offline check reads
its 1.5 MB."""


def with_bundle(page: str, bundle: str) -> str:
    """The page with the Vega bundle in the one place the template marked for it."""
    marker = f"<script>{BUNDLE_MARKER}</script>"
    if page.count(marker) != 1:
        raise ReportError(f"the page has {page.count(marker)} places for the Vega bundle, not one")
    before, after = page.split(marker)
    return f"{before}<script>{bundle}</script>{after}"


def with_drawings(page: str, pending) -> str:
    """The page with each chart's stand-in (:func:`~costmodel.presentation.svg.stand_in_charts`)
    replaced by its drawing.

    The template writes an SVG as an ``<img>`` whose ``src`` is ``data:image/svg+xml;base64,``
    and the SVG's base64 text, so the stand-in's base64 text is replaced by the drawing's. The
    offline check reads no ``data:`` URL's content (an SVG shown as an image can neither load
    nor run anything), so the page it checked and the page written differ only there.
    """
    for chart in pending:
        stand_in = base64.b64encode(chart.stand_in.encode()).decode()
        if page.count(stand_in) != 1:
            raise ReportError(f"{chart.where}: the page has {page.count(stand_in)} places for the chart, not one")
        page = page.replace(stand_in, base64.b64encode(chart.output["data"]["image/svg+xml"].encode()).decode())
    return page

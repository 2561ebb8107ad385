"""Interactive charts with no network: Vega, Vega-Lite and vega-embed embedded in the page.

vl-convert ships the three libraries as one script (:func:`vega_bundle`). The HTML report embeds
it once and draws every chart from its inline Vega-Lite spec (tooltips, pan and zoom), keeping the
SVG for print. In JupyterLab, ``charts.use_renderer("interactive")`` makes each chart's output
carry the same script and spec, so the charts are interactive there too, offline, whatever
Vega-Lite major JupyterLab's own renderer supports.
"""

from __future__ import annotations

from pathlib import Path

from ..files import write_text_atomically


def cache_folder() -> Path:
    """The user's cache folder for costmodel: ``$XDG_CACHE_HOME/costmodel``, else ``~/.cache/costmodel``."""
    import os

    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "costmodel"


def vega_bundle() -> str:
    """Vega, Vega-Lite and vega-embed in one script (vl-convert's bundle), cached per vl-convert version.

    Building it takes seconds, so it is kept in the user's cache folder
    (``$XDG_CACHE_HOME/costmodel``, else ``~/.cache/costmodel``) and read from there afterwards.
    """

    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    folder = cache_folder()
    cached = folder / f"vega-bundle-vl-convert-{version}.js"
    try:
        return cached.read_text(encoding="utf-8")
    except OSError:
        pass
    # the snippet is optional (vl-convert's documentation: the default assigns vegaEmbed, vegaLite and vega
    # to the window), but its stub declares it required
    bundle = vl_convert.javascript_bundle()  # pyright: ignore[reportCallIssue]
    if "</script" in bundle.lower():
        raise RuntimeError("the Vega bundle contains </script>, which would end the page's script early")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomically(cached, bundle)
    except OSError:
        pass  # a read-only home: build it again next time
    return bundle


def embed_html(spec_json: str, element_id: str, with_bundle: bool) -> str:
    """HTML that draws one chart from its spec with vega-embed: for a notebook's output.

    Parameters
    ----------
    spec_json
        The Vega-Lite spec as JSON, ``<`` already escaped.
    element_id
        A page-unique id for the chart's element.
    with_bundle
        Include the Vega bundle (the first chart of a session); later charts reuse it.
    """
    bundle = f"<script>{vega_bundle()}</script>" if with_bundle else ""
    return (
        f'<div id="{element_id}"></div>{bundle}<script>(function () {{ var spec = {spec_json}; '
        f'window.vegaEmbed("#{element_id}", spec, {{actions: false}}); }})();</script>'
    )

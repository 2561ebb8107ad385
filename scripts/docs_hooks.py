"""A hook of the docs build (mkdocs.yml ``hooks``): the docstrings' Sphinx roles read as plain code.

The docstrings name other functions the Sphinx way (``:func:`api_price_parts```), which Markdown
renders as the role's text followed by the code; the API reference shows only the code.
"""

import re

SPHINX_ROLE = re.compile(r":(?:func|mod|class|meth|attr|data|obj|exc|ref|term):(?=<code>)")


def on_page_content(html: str, **kwargs) -> str:
    """The page's HTML with each Sphinx role in front of a code span removed."""
    return SPHINX_ROLE.sub("", html)

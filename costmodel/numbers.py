"""The one form a number takes as text, wherever text becomes a number.

Scenario files (YAML), sweep files, catalog CSV cells, hourly demand files and job logs all
read a number from text by the YAML 1.2 core schema's base-10 forms [1]_: an optional sign,
digits, an optional point and an optional exponent (``2.5``, ``-1e3``, ``.5``). Python's own
``float()`` and ``int()`` accept more (``1_000``, ``inf``, ``nan``, ``infinity``, padding spaces, and
digits of other scripts), and YAML 1.1 more again (``0x10``, ``0o17``, ``2:1``): none of those is a
figure anybody means to type, so none is read.

References
----------
.. [1] YAML Ain't Markup Language version 1.2.2, §10.3.2 "Tag Resolution" (2021).
"""

from __future__ import annotations

import re

INTEGER = re.compile(r"^[-+]?[0-9]+$")
"""A whole number in base 10: ``12``, ``-3``, ``010`` (ten)."""

DECIMAL = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
"""A number in base 10, finite: ``2.5``, ``-1e3``, ``.5``, ``5.``, ``12``."""


def is_integer_text(text: str) -> bool:
    """Whether ``text`` is a whole number as :data:`INTEGER` writes one (ASCII digits only)."""
    return text.isascii() and INTEGER.match(text) is not None


def is_count_text(text: str) -> bool:
    """Whether ``text`` is a count: ASCII digits only, no sign (``12``, ``0``; not ``-5`` or ``+5``)."""
    return text.isascii() and text.isdigit()


def is_decimal_text(text: str) -> bool:
    """Whether ``text`` is a finite number as :data:`DECIMAL` writes one (ASCII digits only)."""
    return text.isascii() and DECIMAL.match(text) is not None


__all__ = ["DECIMAL", "INTEGER", "is_count_text", "is_decimal_text", "is_integer_text"]

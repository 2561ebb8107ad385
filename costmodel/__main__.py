"""``python -m costmodel``: the same as the ``costmodel`` command."""

from .cli import run

run()

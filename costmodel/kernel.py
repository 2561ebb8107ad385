"""The report kernel: an IPython kernel that imports the report stack before it answers.

``costmodel report`` starts this kernel first thing, before it imports papermill or reads
the scenario, so the kernel's imports (pandas, Altair, pydantic and the package's sections,
about 1.2 s) run on one core while the runner's own run on the other. The kernel is otherwise
IPython's own (``ipykernel``): the notebook's cells import what they use as always, and find it
imported. Run as ``python -m costmodel.kernel -f CONNECTION_FILE``.
"""

from __future__ import annotations

import importlib

PRELOADED = ("pandas", "altair", "costmodel.presentation.parameters", "costmodel.presentation.sections",
             "costmodel.presentation.charts", "costmodel.domain.compare")
"""Modules the report notebooks import, imported before the kernel starts."""


def main() -> None:
    """Import :data:`PRELOADED`, then run ipykernel's kernel application on this process's arguments."""
    for name in PRELOADED:
        importlib.import_module(name)
    from ipykernel.kernelapp import launch_new_instance

    launch_new_instance()


if __name__ == "__main__":
    main()

"""The report kernel: an IPython kernel that imports the report stack before it answers.

``costmodel report`` starts this kernel first thing, through jupyter_client's kernel manager
(:class:`costmodel.jupyter_adapter.WarmKernel`; the runner never imports the scenario's models), so
the kernel's imports (pandas, Altair, pydantic and the package's sections) run on one core while
the runner's own run on the other. The kernel is otherwise IPython's own (``ipykernel``): the
notebook's cells import what they use as always, and find it imported. Run as
``python -m costmodel.kernel -f CONNECTION_FILE`` (the kernel spec's ``argv``, :func:`command`).

Two modules the report never uses are not imported in this kernel (see :data:`NOT_IMPORTED`).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

PRELOADED = (
    "pandas",
    "altair",
    "costmodel.presentation.parameters",
    "costmodel.presentation.sections",
    "costmodel.presentation.charts",
    "costmodel.domain.compare",
)
"""Modules the report notebooks import, imported before the kernel starts."""

NOT_IMPORTED = ("debugpy", "pyarrow")
"""Modules this kernel refuses to import (an ``import`` of them raises ImportError, as if they were
not installed): ipykernel imports ``debugpy`` for its debugger, which a report kernel never
serves, and pandas imports ``pyarrow`` when it is installed (``costmodel export --parquet`` uses
it; no report does). Neither is needed, and both slow the kernel's start."""

ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1"}
"""Environment variables the kernel sets for itself before it imports numpy, unless already set.
OpenBLAS starts a thread per core when numpy loads it, CPU the kernel's start needs; the report's
cells do elementwise numpy work and no linear algebra, and on a small machine the kernel shares
the cores with the runner and the chart drawing anyway."""

ARGUMENTS = ("--HistoryManager.enabled=False",)
"""Arguments after the connection file: the kernel keeps no command history."""


def command(connection_file: str) -> list[str]:
    """The command line of a report kernel on this interpreter."""
    return [sys.executable, "-m", __name__, "-f", connection_file, *ARGUMENTS]


def main() -> None:
    """Set :data:`ENVIRONMENT`, import :data:`PRELOADED` (not :data:`NOT_IMPORTED`), then run
    ipykernel's kernel application on this process's arguments.

    The cyclic garbage collector is off during the imports, and what they made is then frozen
    (``gc.freeze``: kept out of later collections): modules, classes and functions live as long
    as the kernel, and the collector's passes over them while they are being made would only slow
    the kernel's start.
    """
    for name, value in ENVIRONMENT.items():
        os.environ.setdefault(name, value)  # read when numpy loads OpenBLAS, below
    gc.disable()
    for name in NOT_IMPORTED:
        # None in sys.modules: "import name" raises ImportError (the import system's documented
        # meaning, which typeshed's dict[str, ModuleType] for sys.modules leaves out)
        sys.modules.setdefault(name, None)  # pyright: ignore[reportArgumentType]
    for name in PRELOADED:
        importlib.import_module(name)
    from ipykernel.kernelapp import launch_new_instance

    gc.freeze()
    gc.enable()
    launch_new_instance()


if __name__ == "__main__":
    main()

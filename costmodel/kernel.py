"""The report kernel: an IPython kernel that imports the report stack before it answers.

``costmodel report`` starts this kernel first thing (:func:`launch`, before it imports
jupyter_client or papermill; the runner never imports the scenario's models), so the kernel's imports (pandas, Altair,
pydantic and the package's sections, about 0.9 s of CPU) run on one core while the runner's own
run on the other. The kernel is otherwise IPython's own (``ipykernel``): the notebook's cells
import what they use as always, and find it imported. Run as
``python -m costmodel.kernel -f CONNECTION_FILE``.

Two modules the report never uses are not imported in this kernel (see :data:`NOT_IMPORTED`).
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

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
it; no report does). Together 0.13 s of the kernel's start."""

ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1"}
"""Environment variables the kernel sets for itself before it imports numpy, unless already set.
OpenBLAS starts a thread per core when numpy loads it, 0.12 s of CPU on two cores; the report's
cells do elementwise numpy work and no linear algebra, and on a small machine the kernel shares
the cores with the runner and the chart drawing anyway."""

ARGUMENTS = ("--HistoryManager.enabled=False",)
"""Arguments after the connection file: the kernel keeps no command history."""


def command(connection_file: str) -> list[str]:
    """The command line of a report kernel on this interpreter."""
    return [sys.executable, "-m", __name__, "-f", connection_file, *ARGUMENTS]


def launch(folder: Path, kernel_name: str) -> tuple[subprocess.Popen, Path]:
    """Start a report kernel now, talking over Unix sockets in ``folder``; returns the process and
    its connection file.

    Only the standard library is imported, so the kernel starts within milliseconds of the
    command. The connection file is the one jupyter_client writes (Jupyter's connection-file
    format: IPC transport, socket files ``folder/kernel-1`` to ``-5``, an HMAC-SHA256 key); the
    process is started as jupyter_client's ``launch_kernel`` starts one on POSIX (its own session,
    stdin a pipe, ``JPY_PARENT_PID`` so it ends with its parent). A jupyter_client kernel manager
    then adopts it (:func:`costmodel.jupyter_adapter.kernel_manager_class`).

    References
    ----------
    Jupyter client documentation, "Connection files":
    https://jupyter-client.readthedocs.io/en/stable/kernels.html#connection-files
    """
    connection_file = folder / "kernel.json"
    info = {
        "transport": "ipc",
        "ip": str(folder / "kernel"),
        "shell_port": 1,
        "iopub_port": 2,
        "stdin_port": 3,
        "control_port": 4,
        "hb_port": 5,
        "key": str(uuid.uuid4()),
        "signature_scheme": "hmac-sha256",
        "kernel_name": kernel_name,
    }
    descriptor = os.open(connection_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(info, file)
    environment = {**os.environ, "JPY_PARENT_PID": str(os.getpid())}
    environment.pop("PYTHONEXECUTABLE", None)
    process = subprocess.Popen(
        command(str(connection_file)), stdin=subprocess.PIPE, cwd=folder, env=environment, start_new_session=True
    )
    return process, connection_file


def main() -> None:
    """Set :data:`ENVIRONMENT`, import :data:`PRELOADED` (not :data:`NOT_IMPORTED`), then run
    ipykernel's kernel application on this process's arguments.

    The cyclic garbage collector is off during the imports, and what they made is then frozen
    (``gc.freeze``: kept out of later collections): modules, classes and functions live as long
    as the kernel, and the collector's passes over them while they were being made were a tenth
    of the kernel's start.
    """
    for name, value in ENVIRONMENT.items():
        os.environ.setdefault(name, value)  # read when numpy loads OpenBLAS, below
    gc.disable()
    for name in NOT_IMPORTED:
        sys.modules.setdefault(name, None)  # None in sys.modules: "import name" raises ImportError
    for name in PRELOADED:
        importlib.import_module(name)
    from ipykernel.kernelapp import launch_new_instance

    gc.freeze()
    gc.enable()
    launch_new_instance()


if __name__ == "__main__":
    main()

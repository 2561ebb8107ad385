"""Keep freed memory in the ``costmodel`` command's process instead of handing it back at every free.

glibc's malloc gives each block of at least ``M_MMAP_THRESHOLD`` bytes its own mapping, unmapped
when freed, and returns the top of its heap to the system once more than ``M_TRIM_THRESHOLD``
bytes are free there. The calculator's arrays are large and short-lived: a Monte Carlo of 10⁶
samples allocates about 70 MB a call (its draws, its figures, its temporaries) and frees them on
return, so with glibc's defaults every call maps those pages afresh and faults on each of them
again, about a fifth of the call's time. With both thresholds raised, freed arrays stay in the
heap and the next ones reuse them. The process's peak is unchanged (memory is only kept up to
what was once in use); what changes is that the command does not shrink between its calculations.

The command sets this for itself and, through the environment, for the processes it starts (report
kernels, batch workers); a library does not change its caller's allocator, so ``import costmodel``
leaves it alone. Settings already in the environment (``MALLOC_TRIM_THRESHOLD_``,
``MALLOC_MMAP_THRESHOLD_``, ``GLIBC_TUNABLES``) win: they are how a user opts out.

References
----------
mallopt(3), Linux man-pages 6.x: ``M_MMAP_THRESHOLD``, ``M_TRIM_THRESHOLD``, and the environment
variables ``MALLOC_MMAP_THRESHOLD_`` and ``MALLOC_TRIM_THRESHOLD_``.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import MutableMapping

MMAP_THRESHOLD = 32 * 1024 * 1024
"""Blocks from this size up get a mapping of their own: glibc's own ceiling for the threshold it
raises by itself on 64-bit systems (``DEFAULT_MMAP_THRESHOLD_MAX``). [bytes]"""

TRIM_THRESHOLD = 256 * 1024 * 1024
"""Free memory at the top of the heap kept before any is returned to the system. [bytes]"""

M_TRIM_THRESHOLD = -1
"""mallopt's parameter number for the trim threshold (glibc's malloc.h)."""

M_MMAP_THRESHOLD = -3
"""mallopt's parameter number for the mmap threshold (glibc's malloc.h)."""

ENVIRONMENT = {"MALLOC_TRIM_THRESHOLD_": TRIM_THRESHOLD, "MALLOC_MMAP_THRESHOLD_": MMAP_THRESHOLD}
"""The variables glibc reads at a process's start, for the processes the command starts."""


def keep_freed_memory(environ: MutableMapping[str, str] | None = None) -> bool:
    """Raise glibc's trim and mmap thresholds for this process and the processes it starts.

    Parameters
    ----------
    environ
        The environment to read and extend; default ``os.environ``.

    Returns
    -------
    bool
        True when set; False off glibc (macOS, Windows, musl) or when the environment already
        chooses the allocator's thresholds, which are then left as they are.
    """
    env: MutableMapping[str, str] = os.environ if environ is None else environ
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    if any(name in env for name in (*ENVIRONMENT, "GLIBC_TUNABLES")):
        return False
    libc = ctypes.CDLL(None)
    if not (libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)):
        return False  # mallopt returns 0 on an error
    for name, value in ENVIRONMENT.items():
        env[name] = str(value)
    return True

"""Optional features and the pip extras that install them.

``pip install costmodel`` installs what ``compare``, ``report`` and ``export --xlsx/--csv`` need.
Three features need more, each from an extra of its own (``pip install 'costmodel[full]'``
installs them all):

=======================================================  ===========  =================
feature                                                  extra        packages
=======================================================  ===========  =================
Parquet files (``export --parquet``, portfolio.parquet)  ``parquet``  pyarrow
``batch --dask``, ``batch --scheduler``                  ``scale``    dask, distributed
Sobol indices (``uncertainty.sobol``, report ``sobol``)  ``sobol``    SALib
=======================================================  ===========  =================

A feature whose extra is missing raises :class:`ExtraNotInstalled` (an ImportError) naming the
feature, the extra and the pip command; the command line exits 2 with that message.
"""

from __future__ import annotations

import importlib
from types import ModuleType

EXTRAS = {"parquet": ("pyarrow",), "scale": ("dask", "distributed"), "sobol": ("SALib",)}
"""Extra → the top-level modules it installs (imported by costmodel where the feature runs)."""

DISTRIBUTIONS = {"pyarrow": "pyarrow", "dask": "dask", "distributed": "distributed", "SALib": "SALib"}
"""Module → the distribution pip installs it from, for the message."""


class ExtraNotInstalled(ImportError):
    """A feature needs a package of an extra that is not installed.

    Parameters
    ----------
    feature
        What was asked for, as the user named it (``costmodel export --parquet``).
    extra
        The extra that installs it (a key of :data:`EXTRAS`).
    module
        The module that could not be imported.
    """

    def __init__(self, feature: str, extra: str, module: str):
        self.feature, self.extra, self.module = feature, extra, module
        self.package = DISTRIBUTIONS.get(module, module)
        self.command = f"pip install 'costmodel[{extra}]'"
        super().__init__(f"{feature} needs {self.package}: {self.command}", name=module)


def need(module: str, feature: str) -> ModuleType:
    """Import ``module`` for ``feature``, or say which extra installs it.

    Parameters
    ----------
    module
        A module of one of the :data:`EXTRAS` (``pyarrow``, ``pyarrow.parquet``, ``SALib.sample.sobol``).
    feature
        The feature that needs it, as the user named it.

    Raises
    ------
    ExtraNotInstalled
        The module (or a module it imports) is not installed.

    Examples
    --------
    >>> need("math", "arithmetic").sqrt(4.0)
    2.0
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = next((e for e, modules in EXTRAS.items() if top in modules), None)
        if extra is None:
            raise
        raise ExtraNotInstalled(feature, extra, top) from exc


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (it is imported to find out).

    >>> installed("math"), installed("no_such_module_of_costmodel")
    (True, False)
    """
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True

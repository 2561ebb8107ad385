"""Imported, reads the bundled catalog: the forkserver that ``costmodel batch --dask`` forks its LocalCluster's
workers from imports this module (:func:`costmodel.batch._start_forkserver`), so that each worker starts with
the catalog read and indexed, as a process-pool worker forked from the command does, instead of reading it
again for its first chunk.

The catalog is kept by :func:`costmodel.catalog.load_catalog` under its files' times and sizes: a worker whose
catalog files changed since reads them afresh. A catalog that does not load is left to the first chunk, which
reports the error in its rows.
"""

from __future__ import annotations

from .catalog import load_catalog

try:
    load_catalog()
except (ValueError, OSError):  # a CatalogError is a ValueError: the first chunk gives it, in its rows
    pass

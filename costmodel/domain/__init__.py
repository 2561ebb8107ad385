"""The domain: costs, capacity, break-evens, training, finance, the cheapest mix and uncertainty.

Each function takes a resolved scenario (:class:`costmodel.resolved.Resolved`; a validated
scenario is resolved on the way in) and returns numbers, arrays or a result from
:mod:`costmodel.results`. Nothing here draws, formats or imports the report stack.
"""

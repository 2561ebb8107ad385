"""Each option block of a resolved scenario's file, as its own kind.

:meth:`costmodel.resolved.Resolved.option` returns any option (own, rent or API) and the scenario's
option blocks are optional, so a reader of one kind's fields first states which kind it holds.
These functions do for the option blocks, and say what was found otherwise; the presentation asks
for a block only where the scenario has that option. A resolved option is narrowed by
:mod:`costmodel.domain.capacity` (``own_option``, ``rent_option``, ``api_option``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..resolved import Resolved
    from ..schema.options import CloudRental, OwnCluster


def own_block(r: Resolved) -> OwnCluster:
    """The scenario file's ``options.own`` block.

    Raises
    ------
    ValueError
        The scenario has no ``options.own`` block.
    """
    block = r.scenario.options.own
    if block is None:
        raise ValueError("the scenario has no options.own block")
    return block


def rent_block(r: Resolved) -> CloudRental:
    """The scenario file's ``options.rent`` block.

    Raises
    ------
    ValueError
        The scenario has no ``options.rent`` block.
    """
    block = r.scenario.options.rent
    if block is None:
        raise ValueError("the scenario has no options.rent block")
    return block


__all__ = ["own_block", "rent_block"]

"""Each option of a resolved scenario, and each option block of its scenario file, as its own kind.

:meth:`costmodel.resolved.Resolved.option` returns any option (own, rent or API) and the scenario's
option blocks are optional, so a reader of one kind's fields first states which kind it holds.
These functions do, and say what was found otherwise; the presentation asks for a kind only
where the scenario has that option (``"own" in r.options``). The options' own narrowing is
:mod:`costmodel.domain.capacity`'s (``own_option``, ``rent_option``, ``api_option``), imported here
for the presentation's modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..domain.capacity import api_option, own_option, rent_option

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


__all__ = ["api_option", "own_block", "own_option", "rent_block", "rent_option"]

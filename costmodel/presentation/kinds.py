"""Each option of a resolved scenario, and each option block of its scenario file, as its own kind.

:meth:`costmodel.resolved.Resolved.option` returns any option (own, rent or API) and the scenario's
option blocks are optional, so a reader of one kind's fields first states which kind it holds.
These functions do, and say what was found otherwise; the presentation asks for a kind only
where the scenario has that option (``"own" in r.options``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..resolved import ApiOption, OwnOption, RentOption

if TYPE_CHECKING:
    from ..resolved import Resolved
    from ..schema.options import CloudRental, OwnCluster


def own_option(r: Resolved, name: str = "own") -> OwnOption:
    """The resolved own cluster called ``name``.

    Raises
    ------
    ValueError
        The scenario has no option called ``name``.
    TypeError
        The option called ``name`` is not an own cluster.
    """
    option = r.option(name)
    if not isinstance(option, OwnOption):
        raise TypeError(f"option {name!r} is a {type(option).__name__}, not an own cluster")
    return option


def rent_option(r: Resolved, name: str = "rent") -> RentOption:
    """The resolved cloud rental called ``name``.

    Raises
    ------
    ValueError
        The scenario has no option called ``name``.
    TypeError
        The option called ``name`` is not a cloud rental.
    """
    option = r.option(name)
    if not isinstance(option, RentOption):
        raise TypeError(f"option {name!r} is a {type(option).__name__}, not a cloud rental")
    return option


def api_option(r: Resolved, name: str = "api") -> ApiOption:
    """The resolved hosted API called ``name``.

    Raises
    ------
    ValueError
        The scenario has no option called ``name``.
    TypeError
        The option called ``name`` is not a hosted API.
    """
    option = r.option(name)
    if not isinstance(option, ApiOption):
        raise TypeError(f"option {name!r} is a {type(option).__name__}, not a hosted API")
    return option


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

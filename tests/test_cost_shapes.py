"""Cost components are elementwise in the volume and shaped like it: what the break-even search relies on
when it prices an option once at every pair's points."""

import numpy as np
import pytest

import costmodel
from costmodel.domain.costs import monthly_cost_components
from costmodel.formulas.shapes import is_scalar, like, scalar
from costmodel.scenarios import bundled_scenarios


@pytest.mark.parametrize("name", bundled_scenarios())
def test_components_at_many_volumes_equal_each_volume_alone(name):
    r = costmodel.resolve(costmodel.load_scenario(name))
    volumes = np.array([0.0, r.volume / 3, r.volume, 2.5 * r.volume])
    for option in r.options:
        together = monthly_cost_components(r, option, volumes)
        for i, v in enumerate(volumes):
            alone = monthly_cost_components(r, option, float(v))
            assert list(alone) == list(together)
            for component, value in together.items():
                assert value.shape == volumes.shape
                assert np.shape(alone[component]) == ()
                assert float(alone[component]) == value[i], (option, component, v)


def test_own_components_are_read_only_as_broadcast_views_are():
    r = costmodel.resolve(costmodel.load_scenario("h200-24gpu-cluster"))
    for volume in (r.volume, np.array([r.volume, 2 * r.volume])):
        for value in monthly_cost_components(r, "own", volume).values():
            assert not value.flags.writeable


def test_scalars_as_numpy_counts_them():
    assert is_scalar(2) and is_scalar(2.5) and is_scalar(np.float64(1.0)) and is_scalar(np.array(3.0))
    assert not is_scalar(np.array([1.0])) and not is_scalar([1.0, 2.0])
    assert like(np.array(4.0), 2.0, 1) == 4.0 and type(like(np.array(4.0), 2.0, 1)) is float
    assert isinstance(like(np.array([4.0]), np.array([2.0])), np.ndarray)
    assert scalar(np.float64(1.5)) == 1.5 and scalar(np.array(2.5)) == 2.5 and type(scalar(3)) is float

import pytest

import costmodel


@pytest.fixture(scope="session")
def r1():
    """Reference case R1 (shared/reference/cases.md): Llama 3.3 70B, 2 rented H100 vs a hosted API."""
    return costmodel.load_scenario("llama70b-vs-api")


@pytest.fixture(scope="session")
def r2():
    """Reference case R2 (shared/reference/cases.md): 24 x H200 owned vs rented."""
    return costmodel.load_scenario("h200-24gpu-cluster")

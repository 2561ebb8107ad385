"""The library's entry point: ``costmodel.compare`` in the domain layer, its uncertainty computed when read."""

from __future__ import annotations

import costmodel
import costmodel.domain.compare as domain_compare
from costmodel.presentation.output import comparison_output


def test_compare_is_the_domain_function():
    assert costmodel.compare is domain_compare.compare
    assert costmodel.compare.__module__ == "costmodel.domain.compare"


def test_uncertainty_runs_once_and_only_when_read(monkeypatch):
    calls: list[int] = []
    real = domain_compare.monte_carlo

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(domain_compare, "monte_carlo", counted)
    scenario = costmodel.load_scenario("h200-24gpu-cluster")  # a bundled scenario with an uncertainty block
    assert scenario.uncertainty is not None
    result = costmodel.compare(scenario)
    assert calls == []  # the comparison alone runs no Monte Carlo
    first = result.uncertainty
    assert first is not None and calls == [1]
    assert result.uncertainty is first and calls == [1]  # kept on the result
    document = comparison_output(result, scenario)
    assert calls == [1]  # the output contract serialises the analysis already made
    assert document.uncertainty is not None
    assert document.uncertainty.samples.value == scenario.uncertainty.samples == first.monte_carlo.samples
    assert comparison_output(result, scenario, uncertainty=False).uncertainty is None


def test_no_uncertainty_block_no_analysis():
    result = costmodel.compare("deepseek-v3-training")  # no uncertainty block
    assert result.uncertainty_of is None and result.uncertainty is None

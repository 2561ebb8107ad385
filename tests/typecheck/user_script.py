"""A user's script over costmodel's public API, type-checked by pyright in the tests
(tests/test_typing.py): every call below must check with 0 errors in standard mode, so a
public function that loses its annotations, or annotates them wrongly, fails the suite.

It runs too (the same test runs it): load a scenario, compare, read figures, sweep, change
inputs, save, export.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import costmodel
from costmodel import formulas
from costmodel.domain.diff import diff
from costmodel.presentation.workbook import export_tables


def main(folder: Path) -> list[str]:
    lines: list[str] = []

    # load and compare
    scenario: costmodel.Scenario = costmodel.load_scenario("llama70b-vs-api")
    compared: costmodel.Comparison = costmodel.compare(scenario)
    result: costmodel.ComparisonOutput = costmodel.comparison_output(compared, scenario)
    winner: str = result.decision.winner
    unit: str = result.options["api"].monthly_cost.unit
    api_cost: float | None = result.options["api"].monthly_cost.value
    lines.append(f"{winner} {api_cost:,.2f} {unit}")
    lines.append(repr(result))
    html: str = result._repr_html_()
    assert html.startswith("<p>")

    # the domain result and the figures behind it
    resolved: costmodel.Resolved = costmodel.resolve(scenario)
    rent_month: float | np.ndarray = costmodel.monthly_cost(resolved, "rent", resolved.volume)
    lines.append(f"rent {float(np.asarray(rent_month)):,.2f} {resolved.currency}/month")
    upper: float = costmodel.default_volume_max(resolved)
    pairs: list[costmodel.BreakEven] = costmodel.break_evens(resolved, upper)
    for pair in pairs:
        where = "never" if pair.volume is None else f"{pair.volume:,.0f} {resolved.volume_unit}"
        lines.append(f"{pair.option_a} vs {pair.option_b}: {where}")
    gpus = costmodel.gpu_count(resolved, "rent", [1e6, 1e7, 1e8])
    lines.append(f"GPUs rented: {np.asarray(gpus).tolist()}")

    # a sweep and a cost table (pandas)
    sweep: pd.DataFrame = costmodel.cost_sweep(resolved, np.linspace(0, upper, 11))
    lines.append(f"sweep rows: {len(sweep)}")
    table: pd.DataFrame = costmodel.cost_table(resolved)
    lines.append(f"table columns: {', '.join(map(str, table.columns))}")

    # a formula over a Series gives a Series, index kept
    days = pd.Series([1e6, 1e7], index=["small", "large"])
    monthly = formulas.tokens_per_month(days)
    assert isinstance(monthly, pd.Series) and list(monthly.index) == ["small", "large"]
    payment = formulas.loan_payment(1_000_000.0, 0.08, 60)
    lines.append(f"loan payment {float(np.asarray(payment)):,.2f} USD/month")

    # change inputs, diff, save, load back
    cheaper = costmodel.with_inputs(scenario, {"options.own.power.pue": 1.3})
    difference = diff(scenario, cheaper, "file", "pue 1.3")
    lines.append(repr(difference))
    saved: Path = costmodel.save_scenario(cheaper, folder / "cheaper.yaml")
    again = costmodel.load_scenario(saved)
    assert again.options.own is not None and again.options.own.power is not None
    lines.append(f"saved pue {again.options.own.power.pue}")

    # export: the JSON document and the cash-flow tables of a scenario with a finance block
    document: str = result.model_dump_json()
    schema: dict[str, object] = costmodel.output_json_schema()
    lines.append(f"json {len(document) > 0} schema {schema.get('title')}")
    written: list[Path] = export_tables(costmodel.load_scenario("h200-24gpu-cluster"), folder / "tables")
    lines.append(f"tables: {', '.join(p.name for p in written)}")
    return lines


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        for line in main(Path(scratch)):
            print(line)
    sys.exit(0)

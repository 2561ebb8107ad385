"""Every number of the six reference reports stays as it was (issue 9's safety net).

The files in tests/golden/ are ``costmodel compare NAME --json --no-uncertainty`` of each bundled
scenario (without ``costmodel_version`` and ``stale``). They were first the JSON of the package before it was
split into layers (commit 6fbea77), moved into output schema 1.0.0 by scripts/golden_to_output_v1.py
(issue 19, no figure recomputed). Issue 26 (one decision, capacity as it is bought) moved them to
schema 2.0.0 on purpose: ``cheapest``/``runner_up``/``margin`` became the ``decision`` block; a demand
profile sizes capacity for its busiest hour (R2 and its job log: 32 and 56 owned GPUs, the mix at the
utilisation ceiling); the payback is whole months until owning stays cheaper (10k H100: 50 → 51, R2:
never); no other figure changed (checked leaf by leaf against 1.0.0, see the CHANGELOG). Issue 28 (the
market in the catalog) re-derived h100-10k-cluster's ``finance.break_even_utilisation``, which lists
each provider's cheapest H100 offer once: Nebius's is now the SkyPilot catalog row at $2.95 instead of
nebius-h100 at $3.85, and six providers were added; no other leaf moved. Issue 29 (serving curves from
aiconfigurator-core) moved schema_version to 2.2.0 (a serving point says its ``basis``); no figure of the six moved.
Issue 30 moved schema_version to 2.3.0 with new fields only (each decision candidate's ``more_than_winner``,
``ratio_to_winner``, ``share_saved_by_winner``; ``options.*.provider``; measured training power; failures by
component) and figures written at full precision instead of six decimals; no figure of the six moved beyond
that rounding. Issue 34 (routing) moved schema_version to 2.4.0 with one new section (``routing``, null for
the six); no figure moved. The ``cheapest`` claim (no issue; a claim's new ``options`` and ``volume``) moved it
to 2.5.0 and R1's stated conclusion "if volume grew 10x, the answer would flip" from a break-even at 10x (within
25 %, contradicted: 3.40x) to what it says, the rental cheaper than the API at 10x the volume (confirmed:
12,070 against 35,486.11 USD/month); no other figure moved. R2's four break-even utilisations against rental prices
moved (no issue: a newcomer found the report comparing a break-even on the 3 configured servers with the scenario's
utilisation on the 4 it buys): they are now those of the 32 GPUs the own option is priced with, as the monthly view's
51.4 % is (nebius-h200 0.669 → 0.626); no other figure moved. The two training runs' ``decision.description``
says the own cluster is charged only the months the run takes, not its price (no issue); no figure moved.
``stale`` (figures past their age, which depends on the day it runs) is left out of the files. A change of
structure must not change any figure: each numeric leaf must match to 1e-9 relative (the JSON rounds
to six decimals, so an absolute 1e-6 is allowed as well), and every word ("never", option names) must
be the same.
"""

import json
import math
from pathlib import Path

import pytest
from conftest import leaves

from costmodel.cli import main

GOLDEN = Path(__file__).parent / "golden"
NAMES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def test_there_are_six_golden_files():
    assert len(NAMES) == 6


@pytest.mark.parametrize("name", NAMES)
def test_compare_json_unchanged(name, capsys):
    assert main(["compare", name, "--json"]) == 0
    now = dict(leaves(json.loads(capsys.readouterr().out)))
    before = dict(leaves(json.loads((GOLDEN / f"{name}.json").read_text())))
    missing = sorted(set(before) - set(now))
    assert not missing, f"figures no longer reported: {missing[:5]}"
    compared = 0
    for path, old in before.items():
        new = now[path]
        if isinstance(old, float | int) and not isinstance(old, bool):
            assert isinstance(new, float | int), path
            assert math.isclose(new, old, rel_tol=1e-9, abs_tol=1e-6), f"{path}: {old} became {new}"
        else:
            assert new == old, f"{path}: {old!r} became {new!r}"
        compared += 1
    assert compared == len(before) > 20

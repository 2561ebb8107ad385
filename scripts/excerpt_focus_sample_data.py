"""Write data/bills/focus_sample_data_1_0.csv: an excerpt of the FinOps Foundation's FOCUS 1.0 sample.

The source is ``FOCUS-1.0/focus_sample.csv`` of github.com/FinOps-Open-Cost-and-Usage-Spec/FOCUS-Sample-Data
(commit adbdd17a132984d6e8583c149c236d2199c3f5bc, CC BY 4.0): 1,000 rows of anonymised AWS, Microsoft
and Oracle charges. The excerpt keeps the header and, byte for byte and in file order, every row of a
provider other than AWS, every row naming a GPU instance (AWS ``g5.``), and the first 200 other AWS rows.

Usage: ``python scripts/excerpt_focus_sample_data.py PATH/TO/focus_sample.csv``
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "bills" / "focus_sample_data_1_0.csv"
AWS_ROWS = 200
"""Rows of AWS kept besides its GPU rows."""


def main(source: Path) -> None:
    """Write the excerpt of ``source`` to :data:`OUT`."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    provider, description = header.index("ProviderName"), header.index("ChargeDescription")
    kept, aws = [lines[0]], 0
    for line in lines[1:]:
        row = next(csv.reader([line]))
        if row[provider] != "AWS" or " g5." in row[description]:
            kept.append(line)
        elif aws < AWS_ROWS:
            kept.append(line)
            aws += 1
    OUT.write_text("".join(kept), encoding="utf-8", newline="")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

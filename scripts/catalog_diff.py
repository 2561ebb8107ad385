"""What differs between two texts of one catalog CSV, row by row: the one report every
``scripts/refresh_*.py --check`` prints."""

from __future__ import annotations

import csv
import io


def differences(old: str, new: str, key: str) -> list[str]:
    """Rows added, removed and changed (each changed column with its old and new cell) between two CSV
    texts whose rows are keyed by the column ``key``; sorted. A text that differs in its layout only
    (column or row order, quoting) gives one line saying so."""

    def rows(text: str) -> dict[str, dict[str, str]]:
        return {r[key]: r for r in csv.DictReader(io.StringIO(text))} if text else {}

    before, after = rows(old), rows(new)
    lines = [f"added {k}" for k in after if k not in before] + [f"removed {k}" for k in before if k not in after]
    for k in after.keys() & before.keys():
        changed = [
            c for c in dict.fromkeys([*before[k], *after[k]]) if (before[k].get(c) or "") != (after[k].get(c) or "")
        ]
        if changed:
            lines.append(
                f"changed {k}: "
                + ", ".join(f"{c} {before[k].get(c) or ''!r} -> {after[k].get(c) or ''!r}" for c in changed)
            )
    if not lines and old != new:
        lines.append("same rows, other order or layout")
    return sorted(lines)

"""Access to the published / independently computed reference values in ``tests/data``.

The reference tables live inside the project (``tests/data/*.csv``; columns ``quantity``, parameters,
``value``, ``tolerance_hint``, ``source``), so that every test runs from a plain clone; ``tests/data/README.md``
gives the source of each table. A missing table is an error, never a skip.
"""

from __future__ import annotations

import csv
from pathlib import Path

REFERENCE_DIR = Path(__file__).resolve().parent / "data"


def reference_rows(name: str) -> list[dict]:
    """Rows of ``tests/data/<name>`` as dictionaries (values as strings); FileNotFoundError if it is missing."""
    path = REFERENCE_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"reference table {path} is missing (tests/data is part of the repository)")
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def reference(name: str, quantity: str, **match) -> tuple[float, float]:
    """``(value, tolerance_hint)`` of the unique row of ``name`` with this quantity and column values."""
    rows = [
        r
        for r in reference_rows(name)
        if r["quantity"] == quantity and all(str(r.get(k, "")) == str(v) for k, v in match.items())
    ]
    if len(rows) != 1:
        raise LookupError(f"{len(rows)} rows of {name} match quantity={quantity!r}, {match}")
    return float(rows[0]["value"]), float(rows[0]["tolerance_hint"])

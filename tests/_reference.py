"""Access to the published / independently computed reference values in ``../shared/reference``.

The reference tables live beside the repository (``../shared/reference/*.csv``; columns ``quantity``,
parameters, ``value``, ``tolerance_hint``, ``source``). A checkout without them skips the reference
tests with a visible reason, except under CI (``CI`` set), where a missing table is an error.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

REFERENCE_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "reference"


def reference_rows(name: str) -> list[dict]:
    """Rows of ``../shared/reference/<name>`` as dictionaries (values as strings)."""
    path = REFERENCE_DIR / name
    if not path.exists():
        if os.environ.get("CI"):
            raise FileNotFoundError(f"reference table {path} is missing")
        pytest.skip(f"reference table {path} not found (it lives in ../shared beside the repository)")
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def reference(name: str, quantity: str, **match) -> tuple[float, float]:
    """``(value, tolerance_hint)`` of the unique row of ``name`` with this quantity and column values."""
    rows = [r for r in reference_rows(name) if r["quantity"] == quantity
            and all(str(r.get(k, "")) == str(v) for k, v in match.items())]
    if len(rows) != 1:
        raise LookupError(f"{len(rows)} rows of {name} match quantity={quantity!r}, {match}")
    return float(rows[0]["value"]), float(rows[0]["tolerance_hint"])

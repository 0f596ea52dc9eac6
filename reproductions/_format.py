"""How the reproduction pages write numbers in their prose (used by every ``<paper>/prose.py``; no dependencies)."""

from __future__ import annotations

import math


def sci(x: float, digits: int = 2) -> str:
    """``x`` in scientific notation as inline maths with ``digits`` significant digits, trailing zeros dropped:
    ``sci(5.3e-4) == "$5.3 \\times 10^{-4}$"``, ``sci(1e-6) == "$10^{-6}$"``, ``sci(0) == "0"``."""
    if x == 0:
        return "0"
    exp = math.floor(math.log10(abs(x)))
    mant = round(x / 10**exp, digits - 1)
    if abs(mant) >= 10:
        mant, exp = mant / 10, exp + 1
    mant_s = f"{mant:.{digits - 1}f}".rstrip("0").rstrip(".") if digits > 1 else f"{mant:.0f}"
    times = "" if mant_s == "1" else mant_s + r" \times "
    return f"${times}10^{{{exp}}}$"

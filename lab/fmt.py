"""How the lab writes a rate and a difference of rates, on pages, tables and the terminal: the
one home of the percent and points formatters (a missing value is "—")."""

from __future__ import annotations

import math

MINUS = "−"  # U+2212: a negative change reads as minus, not as a hyphen
MISSING = "—"


def missing(x) -> bool:
    """None or NaN (of any float type, pandas' included)."""
    if x is None:
        return True
    try:
        return math.isnan(x)
    except TypeError:
        return False


def pct(x, digits: int = 1) -> str:
    """A rate as a percentage: 0.534 → "53.4%"."""
    return MISSING if missing(x) else f"{100 * x:.{digits}f}%"


def points(x, digits: int = 1, minus: str = MINUS) -> str:
    """A difference of rates in percentage points, signed: −0.031 → "−3.1", 0.02 → "+2.0"."""
    return MISSING if missing(x) else f"{100 * x:+.{digits}f}".replace("-", minus)


def num(x, digits: int = 1) -> str:
    """A count or a mean: 12000 → "12,000" (digits 0), 3.14159 → "3.1"."""
    if missing(x):
        return MISSING
    return f"{int(x):,}" if float(x).is_integer() and digits == 0 else f"{x:,.{digits}f}"

"""Numbers a chapter computes, quoted in its prose.

A chapter's text says "we train 16 students", not the name of the size preset field that holds 16: the number
depends on the preset (``SOLVABLE_SIZE``), so it is computed in a cell and the prose quotes it. :func:`quote`
stores values under names with myst-nb's ``glue``; the Markdown writes ``{glue:text}`name``` (or
``{glue:text}`name:.3g``` with a format), and the website and the PDF print the value the cell computed. In a
notebook opened outside the book (Jupyter, Binder, Colab without myst-nb) the call does nothing, and the reader
sees the values in the code cell.

References
----------
myst-nb, "Embedding outputs as variables": https://myst-nb.readthedocs.io/en/latest/render/glue.html
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import numpy as np

from .domains import Domain, declare, integer, real
from .errors import InvalidParameterError

__all__ = ["quote", "upper_bound", "lower_bound"]

#: A float has at most 17 significant decimal digits: more would ask the decimal rounding for digits that do not
#: exist (and beyond 28, Python's decimal context refuses the rounding).
_DIGITS = integer(1, 17)


def _quotable(name, value):
    """A value the prose can print as it is: a finite Python or NumPy real number, or a string."""
    if isinstance(value, str):
        return value
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_, np.timedelta64)
    )
    if not number or not isinstance(value, (int, np.integer)) and not math.isfinite(value):
        raise InvalidParameterError(
            f"{name} must be a finite real number or a string, got {type(value).__name__} {value!r:.60}"
        )
    return value


#: What :func:`quote` stores: a finite real number (Python's or NumPy's; not a bool, a fraction, a decimal or a
#: time) or a string, which the prose prints as it is.
QUOTABLE = Domain("a finite real number or a string", _quotable, "any")


def _outward(value, digits, rounding) -> float:
    if value == 0:
        return 0.0
    exact = Decimal(repr(value))  # the shortest decimal that reads back as value (6.1e-6 stays 6.1e-6)
    step = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    bound = float(exact.quantize(step, rounding=rounding))
    # the float nearest to the decimal bound may fall on the wrong side of value: step to the next float outward
    if rounding == ROUND_CEILING and bound < value:
        bound = math.nextafter(bound, math.inf)
    if rounding == ROUND_FLOOR and bound > value:
        bound = math.nextafter(bound, -math.inf)
    if not math.isfinite(bound):
        raise InvalidParameterError(
            f"value: its bound with {digits} significant digits lies beyond the float range "
            f"(value = {value!r}); quote fewer digits or a rescaled value"
        )
    return bound


@declare(value=real(), digits=_DIGITS)
def upper_bound(value: float, digits: int = 2) -> float:
    """The number of ``digits`` significant digits to quote as "at most" (or "below") ``value``: rounded up.

    Parameters
    ----------
    value : float
        The measured number (finite).
    digits : int, optional
        Significant digits of the quoted bound (>= 1).

    Returns
    -------
    float
        The smallest number with ``digits`` significant digits that is not below ``value``: "at most 6.1e-6" for
        6.1e-6, "at most 2e-12" (not 1e-12) for 1.01e-12 with one digit.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a finite number, ``digits`` is not an integer in ``[1, 17]`` (a float has no more
        significant digits), or the bound lies beyond the float range (``1.7e308`` to one digit).

    Notes
    -----
    A bound quoted in prose must hold for the number behind it: rounding to nearest can put "at most 0.002" on
    0.0024. The rounding is done in decimal arithmetic on the shortest decimal that reads back as the value, and the
    returned float is checked against the value, so the bound is never on the wrong side by a rounding error.

    References
    ----------
    The hidden checks of the chapters and the reproduction pages, which check the bounds their prose quotes.

    Examples
    --------
    >>> upper_bound(0.0024, digits=1), upper_bound(1.01e-12, digits=1), upper_bound(0.0184)
    (0.003, 2e-12, 0.019)
    """
    return _outward(value, digits, ROUND_CEILING)


@declare(value=real(), digits=_DIGITS)
def lower_bound(value: float, digits: int = 2) -> float:
    """The number of ``digits`` significant digits to quote as "at least" (or "above") ``value``: rounded down.

    Parameters
    ----------
    value : float
        The measured number (finite).
    digits : int, optional
        Significant digits of the quoted bound (>= 1).

    Returns
    -------
    float
        The largest number with ``digits`` significant digits that is not above ``value``: "at least 16" for 16.7.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a finite number, ``digits`` is not an integer in ``[1, 17]`` (a float has no more
        significant digits), or the bound lies beyond the float range (``1.7e308`` to one digit).

    Notes
    -----
    The mirror of :func:`upper_bound`.

    References
    ----------
    The hidden checks of the chapters and the reproduction pages, which check the bounds their prose quotes.

    Examples
    --------
    >>> lower_bound(16.7), lower_bound(-0.0024, digits=1)
    (16.0, -0.003)
    """
    return _outward(value, digits, ROUND_FLOOR)


@declare()
def quote(**values) -> None:
    """Store numbers (or short strings) under names, for the prose of the page to quote.

    Parameters
    ----------
    **values : int, float or str
        The name the prose uses and its value (e.g. ``gd_students=SIZES.attention_gd_students``).

    Returns
    -------
    None
        Nothing is displayed: under myst-nb each value is saved as a hidden output of the cell.

    Raises
    ------
    InvalidParameterError
        If a value is not a finite real number or a string (``QUOTABLE``: a bool, a fraction, a time, NaN
        and inf are refused too, as the prose would print them as they are), or if no value is given.

    Notes
    -----
    The Markdown of the page quotes a value with the role ``{glue:text}`name``` (``{glue:text}`name:.2f```
    formats a number), resolved when the book is built from the notebook's saved outputs.
    """
    if not values:
        raise InvalidParameterError("values: give at least one name=value to quote")
    for name, value in values.items():
        QUOTABLE(name, value)
    try:
        from myst_nb import glue
    except ImportError:  # outside the book's toolchain: nothing to store values for
        return
    for name, value in values.items():
        glue(name, value, display=False)

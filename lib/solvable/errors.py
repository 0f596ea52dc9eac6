"""Warnings and exceptions raised by the iterative solvers of the course.

An iteration that does not converge warns (:class:`ConvergenceWarning`, with the iteration count);
one that produces non-finite numbers raises (:class:`DivergenceError`, with the iteration count).
Nothing returns NaN silently.
"""

from __future__ import annotations

__all__ = ["ConvergenceWarning", "DivergenceError", "ArgumentTypeError"]


class ConvergenceWarning(UserWarning):
    """An iteration stopped at its iteration cap before meeting its tolerance."""


class DivergenceError(ArithmeticError):
    """An iteration produced non-finite values (diverged)."""


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (a string, a boolean or None where a number is expected).

    Both a ``TypeError`` (its nature) and a ``ValueError`` (what every other bad argument of the library raises),
    as NumPy's ``AxisError`` is both a ``ValueError`` and an ``IndexError``: code that catches either keeps working.
    """

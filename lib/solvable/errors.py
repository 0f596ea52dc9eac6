"""Warnings and exceptions raised by the iterative solvers of the course.

An iteration that does not converge warns (:class:`ConvergenceWarning`, with the iteration count);
one that produces non-finite numbers raises (:class:`DivergenceError`, with the iteration count).
Nothing returns NaN silently.
"""

from __future__ import annotations

__all__ = ["ConvergenceWarning", "DivergenceError", "ArgumentTypeError"]


class ConvergenceWarning(UserWarning):
    """An iteration stopped at its iteration cap before meeting its tolerance.

    The message gives the number of iterations and how far the iteration was from its tolerance. Turn it into an
    error with ``warnings.simplefilter("error", ConvergenceWarning)``.
    """


class DivergenceError(ArithmeticError):
    """An iteration produced non-finite values (diverged).

    The message gives the iteration at which it happened and, where one exists, the control to change (a smaller
    learning rate, more damping).
    """


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (a string, a boolean or None where a number is expected).

    Both a ``TypeError`` (its nature) and a ``ValueError`` (the exception of a wrong value), as NumPy's
    ``AxisError`` is both a ``ValueError`` and an ``IndexError``: code that catches either keeps working. The
    message names the parameter.
    """

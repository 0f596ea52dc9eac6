"""Warnings and exceptions raised by the iterative solvers of the course.

An iteration that does not converge warns (:class:`ConvergenceWarning`, with the iteration count);
one that produces non-finite numbers raises (:class:`DivergenceError`, with the iteration count).
Nothing returns NaN silently. A bad argument raises :class:`InvalidParameterError`, naming the parameter.
"""

from __future__ import annotations

__all__ = ["ConvergenceWarning", "DivergenceError", "InvalidParameterError"]


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


class InvalidParameterError(ValueError, TypeError):
    """A bad argument: of the wrong type (a string, a boolean or None where a number is expected) or out of its
    domain (a negative variance, a tolerance >= 1, an unknown option).

    The library's one exception for a bad argument, raised by every check of :mod:`solvable.validation` and by the
    declared domains of :mod:`solvable.domains`. It is both a ``ValueError`` and a ``TypeError`` (as
    scikit-learn's ``InvalidParameterError``), so that code catching either keeps working. The message names the
    parameter and its domain, e.g. ``alpha must be a number >= 0, got -1.0``.
    """

"""Warnings and exceptions raised by the iterative solvers of the course.

An iteration that does not converge warns (:class:`ConvergenceWarning`, with the iteration count);
one that produces non-finite numbers raises (:class:`DivergenceError`, with the iteration count).
Nothing returns NaN silently. A bad argument raises :class:`InvalidParameterError`, naming the parameter.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["ConvergenceWarning", "DivergenceError", "InvalidParameterError", "warn"]


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


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = ConvergenceWarning) -> None:
    """Emit a warning attributed to the first caller outside the library.

    Parameters
    ----------
    message : str
        What happened, and what to do about it.
    category : type, optional
        The warning's class (:class:`ConvergenceWarning` by default).

    Notes
    -----
    The library's frames (a declared function's argument check, the fixed-point driver, a model's front end) sit
    between the user's call and the line that warns, in a number that depends on the path; a fixed ``stacklevel``
    points into the library on some paths. The level is counted instead, as pandas does: the warning names the
    user's file and line, so that ``warnings.filterwarnings(..., module=...)`` and the message's location work.
    """
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)

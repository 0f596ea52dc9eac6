"""Machine checks of the build-it-yourself exercises of the chapters.

An exercise asks the reader to write a piece of the method (a channel function, a state-evolution loop, a GAMP
iteration, a spectral transform...) in a code cell; the next cell compares it with the library's reference with
:func:`check` and prints a one-line verdict. The printed line does not contain the measured deviation (it would vary
with the BLAS build), so the notebooks' regression tests compare it as text.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check"]


def check(name: str, got, expected, *, rtol: float = 1e-8, atol: float = 1e-12) -> None:
    """Compare a reader's result with the library's and print a one-line verdict.

    Prints ``PASS: <name> ...`` if ``got`` matches ``expected`` elementwise within
    ``atol + rtol * |expected|``.

    Parameters
    ----------
    name : str
        What is being checked, as the reader would say it (e.g. "g_out of the probit channel").
    got : float or array_like
        The reader's result.
    expected : float or array_like
        The library's value, of the same shape as ``got``.
    rtol : float, default 1e-8
        Relative tolerance.
    atol : float, default 1e-12
        Absolute tolerance.

    Returns
    -------
    None
        The verdict is printed.

    Raises
    ------
    AssertionError
        ``NOT YET: ...`` if the shapes differ, ``got`` is not finite, or an element is outside the tolerance
        (with the largest deviation and a hint to compare with the hidden solution).

    References
    ----------
    The "Build it yourself" exercises of the chapters, e.g. Chapter 2, Sec. "Build it yourself".
    """
    got_arr = np.asarray(got, dtype=float)
    exp_arr = np.asarray(expected, dtype=float)
    if got_arr.shape != exp_arr.shape:
        raise AssertionError(f"NOT YET: {name} has shape {got_arr.shape}, the reference has shape {exp_arr.shape}")
    if not np.all(np.isfinite(got_arr)):
        raise AssertionError(f"NOT YET: {name} contains NaN or inf")
    dev = np.abs(got_arr - exp_arr)
    bad = dev > atol + rtol * np.abs(exp_arr)
    if np.any(bad):
        k = int(np.argmax(dev))
        raise AssertionError(f"NOT YET: {name} differs from solvable by up to {dev.flat[k]:.3g} "
                             f"(got {got_arr.flat[k]:.6g}, expected {exp_arr.flat[k]:.6g}); compare with the hidden solution")
    print(f"PASS: {name} agrees with solvable (to {rtol:g} relative)")

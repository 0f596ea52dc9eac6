"""Machine checks of the build-it-yourself exercises of the chapters.

An exercise gives the reader a stub (a signature, a docstring, ``raise NotImplementedError``) to fill in; the next
cell calls :func:`check_function`, which runs the reader's function on a few named inputs and compares every output
with the library's. The verdict is one printed paragraph:

- ``NOT STARTED`` while the stub still raises :class:`NotImplementedError`;
- ``NOT YET`` with the input, the output component and the entry where the reader's result differs, the two values
  and, when the two differ by a recognisable pattern (a factor 2, a sign, a constant), a hint;
- ``PASS`` otherwise.

A check never raises: "Run All" goes through a chapter whose exercises are unsolved, and the returned
:class:`Verdict` hands the cells that follow the reader's function once it passes and the library's until then. The
printed verdicts do not contain measured deviations of a passing answer (they would vary with the BLAS build), so the
notebooks' regression tests compare them as text.
"""

from __future__ import annotations

import functools
import numbers
import traceback
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .results import record

__all__ = ["Verdict", "check", "check_function"]

_PASS, _NOT_STARTED, _NOT_YET = "pass", "not started", "not yet"


@record
class Verdict:
    """The outcome of an exercise check.

    Parameters
    ----------
    status : {"pass", "not started", "not yet"}
        What the check found.
    message : str
        The paragraph that was printed.
    function : callable or None
        The reader's function if it passed, else a stand-in that calls the library's reference (so that the cells
        that follow run either way; a later check of the stand-in reports NOT STARTED); None for :func:`check`,
        which compares values.
    """

    status: str
    message: str
    function: Callable | None = None

    @property
    def passed(self) -> bool:
        """True if the reader's answer agrees with the library's."""
        return self.status == _PASS

    def __bool__(self) -> bool:
        return self.passed


def _describe(value) -> str:
    """A short, stable description of one input."""
    if isinstance(value, (bool, numbers.Integral)):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    if isinstance(value, str):
        return repr(value)
    arr = np.asarray(value) if not callable(value) else None
    if arr is not None and arr.dtype.kind in "biufc":
        if arr.size <= 4:
            values = "[" + ", ".join(_describe(x) for x in arr.ravel().tolist()) + "]"
            return values if arr.ndim <= 1 else f"{values} of shape {arr.shape}"
        return f"<array of shape {arr.shape}>"
    return f"<{type(value).__name__}>"


def _call(name: str, kwargs: Mapping[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={_describe(v)}" for k, v in kwargs.items()) + ")"


def _hint(got: np.ndarray, expected: np.ndarray, scale: float) -> str:
    """A pattern in the difference between got and expected, in words ("" if none is recognised)."""
    mask = np.abs(expected) > 1e-8 * max(scale, 1e-300)
    if np.any(mask):
        ratio = got[mask] / expected[mask]
        r = float(np.median(ratio))
        if np.allclose(ratio, r, rtol=1e-3, atol=1e-6) and abs(r - 1.0) > 1e-6:
            for value, words in ((-1.0, "the sign is flipped"), (2.0, "a factor 2 too large"),
                                 (0.5, "a factor 2 too small"), (0.0, "the result is zero")):
                if abs(r - value) < 1e-3:
                    return f" Hint: every entry is {r:.4g} times the reference: {words}."
            return f" Hint: every entry is {r:.4g} times the reference: a constant factor is off."
    diff = got - expected
    d = float(np.median(diff))
    if diff.size > 1 and np.allclose(diff, d, rtol=1e-3, atol=1e-9 * max(scale, 1.0)) and abs(d) > 0:
        return f" Hint: every entry is off by the same {d:+.4g}: a constant term is missing or extra."
    return ""


def _where(index: tuple, shape: tuple, kwargs: Mapping[str, Any], axes: Sequence[str] | None) -> str:
    """Name one output entry: by the inputs it was computed from when they broadcast to the output's shape, by the
    names of the axes when given, else by its index."""
    if not index:
        return ""
    arrays = {k: np.asarray(v) for k, v in kwargs.items()
              if not callable(v) and np.asarray(v).dtype.kind in "biuf" and np.ndim(v) > 0}
    if arrays:
        try:
            shapes = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        except ValueError:
            shapes = None
        if shapes == shape:
            return " at " + ", ".join(f"{k} = {_describe(np.broadcast_to(a, shape)[index])}"
                                      for k, a in arrays.items())
    if axes is not None and len(axes) == len(index):
        return " at " + ", ".join(f"{name} {i}" for name, i in zip(axes, index))
    return f" at index {index if len(index) > 1 else index[0]}"


def _compare(label: str, got, expected, *, rtol: float, atol: float, kwargs: Mapping[str, Any],
             axes: Sequence[str] | None) -> str | None:
    """None if got matches expected, else the sentence that says where it does not."""
    try:
        got_arr = np.asarray(got, dtype=complex if np.iscomplexobj(expected) else float)
    except (TypeError, ValueError):
        return f"{label} is a {type(got).__name__}, not a number or an array of numbers."
    exp_arr = np.asarray(expected, dtype=got_arr.dtype)
    if np.iscomplexobj(got_arr):  # compare complex values as (real, imaginary) pairs
        got_arr = np.stack([got_arr.real, got_arr.imag], axis=-1)
        exp_arr = np.stack([exp_arr.real, exp_arr.imag], axis=-1)
        axes = None if axes is None else (*axes, "real (0) / imaginary (1) part")
    if got_arr.shape != exp_arr.shape:
        return f"{label} has shape {got_arr.shape}; the reference has shape {exp_arr.shape}."
    finite = np.isfinite(got_arr)
    if not np.all(finite):
        index = tuple(int(i) for i in np.argwhere(~finite)[0])
        where = _where(index, got_arr.shape, kwargs, axes)
        return f"{label} is {got_arr[index]}{where} (the reference is {exp_arr[index]:.6g})."
    dev = np.abs(got_arr - exp_arr)
    bad = dev > atol + rtol * np.abs(exp_arr)
    if not np.any(bad):
        return None
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.where(bad, dev, -1.0))), got_arr.shape))
    where = _where(index, got_arr.shape, kwargs, axes)
    count = f" ({int(bad.sum())} of {bad.size} entries differ)" if bad.size > 1 else ""
    scale = float(np.max(np.abs(exp_arr))) if exp_arr.size else 1.0
    return (f"{label} is {got_arr[index]:.6g}{where}, the reference {exp_arr[index]:.6g}{count}."
            + _hint(got_arr, exp_arr, scale))


def _user_line(error: BaseException) -> str:
    """The last line of the traceback that is the reader's code (a notebook cell), if any."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename.startswith("<") or "ipykernel" in frame.filename:
            if frame.line:
                return f" (line {frame.lineno} of your cell: `{frame.line.strip()}`)"
    return ""


def _stand_in(reference: Callable) -> Callable:
    """The library's function, marked so that a later check knows it is not the reader's."""

    @functools.wraps(reference)
    def stand_in(*args, **kwargs):
        return reference(*args, **kwargs)

    stand_in.solvable_stand_in = True
    return stand_in


def _finish(status: str, message: str, function: Callable | None = None) -> Verdict:
    print(message)
    if function is not None and status != _PASS and not getattr(function, "solvable_stand_in", False):
        function = _stand_in(function)
    return Verdict(status, message, function)


def check_function(name: str, function: Callable, reference: Callable,
                   cases: Sequence[Mapping[str, Any]], *, outputs: Sequence[str] | None = None,
                   axes: Sequence[str] | None = None, rtol: float = 1e-8, atol: float = 1e-12,
                   hint: str | None = None) -> Verdict:
    """Run a reader's function on named inputs, compare it with the library's, and print the verdict.

    Parameters
    ----------
    name : str
        What the function computes, as the reader would say it (e.g. "g_out of the probit channel").
    function : callable
        The reader's function.
    reference : callable
        The library's version, with the same signature.
    cases : sequence of mappings
        The keyword arguments of each call. Keep them small and exact: a plausible wrong answer must fail.
    outputs : sequence of str, optional
        The names of the components when the function returns a tuple (e.g. ``("g_out", "dg_out")``).
    axes : sequence of str, optional
        Names of the axes of each output (e.g. ``("iteration",)``), used to say where an entry differs when the
        entry cannot be named by the inputs it was computed from.
    rtol, atol : float
        An entry passes if ``|got - expected| <= atol + rtol |expected|``.
    hint : str, optional
        One sentence added to every ``NOT YET`` verdict (where to look first).

    Returns
    -------
    Verdict
        Its ``function`` is the reader's function if it passed, else a stand-in calling ``reference``. A chapter
        binds it to the exercise's name, so that the cells that follow run before the exercise is solved; checking
        the stand-in again reports NOT STARTED (an emptied cell does not pass on the library's code).

    Raises
    ------
    TypeError
        If ``function`` or ``reference`` is not callable, or ``cases`` is empty or holds a non-mapping.

    Notes
    -----
    The reader's errors are reported, not raised: ``NotImplementedError`` gives ``NOT STARTED``; any other
    exception, a wrong shape, a NaN or an entry outside the tolerance gives ``NOT YET`` with the call, the
    component and the entry. Entries of an output that has the broadcast shape of the array inputs are named by
    those inputs' values.

    References
    ----------
    The "Build it yourself" exercises of the chapters, e.g. Chapter 1, Sec. "The building blocks".
    """
    if not callable(function) or not callable(reference):
        raise TypeError("function and reference must be callable")
    if not cases or not all(isinstance(c, Mapping) for c in cases):
        raise TypeError("cases must be a non-empty sequence of mappings of keyword arguments")
    fname = getattr(function, "__name__", "your function")
    if getattr(function, "solvable_stand_in", False):  # the fallback a previous check handed out
        return _finish(_NOT_STARTED, f"NOT STARTED: {fname} is still solvable's stand-in. Write yours in the cell "
                       f"above and run this cell again.", reference)
    tail = f" Hint: {hint}" if hint else ""
    for kwargs in cases:
        call = _call(fname, kwargs)
        try:
            got = function(**kwargs)
        except NotImplementedError:
            return _finish(_NOT_STARTED, f"NOT STARTED: {fname} still raises NotImplementedError. Write it in the "
                           f"cell above and run this cell again; until then the chapter goes on with solvable's "
                           f"version.", reference)
        except Exception as error:  # the reader's bug, reported rather than raised
            return _finish(_NOT_YET, f"NOT YET: {call} raised {type(error).__name__}: {error}"
                           f"{_user_line(error)}.{tail}", reference)
        expected = reference(**kwargs)
        if outputs is not None:
            if not isinstance(got, tuple) or len(got) != len(outputs):
                kind = f"a tuple of {len(got)}" if isinstance(got, tuple) else f"a {type(got).__name__}"
                return _finish(_NOT_YET, f"NOT YET: {call} returned {kind}; expected the tuple "
                               f"({', '.join(outputs)}).{tail}", reference)
            pairs = list(zip(outputs, got, expected))
        else:
            pairs = [("the result", got, expected)]
        for label, g, e in pairs:
            problem = _compare(label, g, e, rtol=rtol, atol=atol, kwargs=kwargs, axes=axes)
            if problem is not None:
                return _finish(_NOT_YET, f"NOT YET: {call}: {problem}{tail}", reference)
    return _finish(_PASS, f"PASS: {name}: {fname} agrees with solvable on {len(cases)} "
                   f"{'case' if len(cases) == 1 else 'cases'} (to {rtol:g} relative)", function)


def check(name: str, got, expected, *, rtol: float = 1e-8, atol: float = 1e-12,
          hint: str | None = None) -> Verdict:
    """Compare a value the reader computed with the library's and print the verdict.

    Parameters
    ----------
    name : str
        What is being checked, as the reader would say it (e.g. "the fixed point q at alpha = 1").
    got : float, array_like or None
        The reader's result; None (or ``...``) while the exercise is not started.
    expected : float or array_like
        The library's value, of the same shape as ``got``.
    rtol, atol : float
        An entry passes if ``|got - expected| <= atol + rtol |expected|``.
    hint : str, optional
        One sentence added to a ``NOT YET`` verdict.

    Returns
    -------
    Verdict
        With ``function`` None.

    References
    ----------
    The exercises of the chapters, e.g. Chapter 2, Sec. "Build it yourself".
    """
    if got is None or got is Ellipsis:
        return _finish(_NOT_STARTED, f"NOT STARTED: {name}. Compute it in the cell above and run this cell again.")
    problem = _compare(name, got, expected, rtol=rtol, atol=atol, kwargs={}, axes=None)
    if problem is not None:
        return _finish(_NOT_YET, f"NOT YET: {problem}" + (f" Hint: {hint}" if hint else ""))
    return _finish(_PASS, f"PASS: {name} agrees with solvable (to {rtol:g} relative)")

"""Machine checks of the exercises of the chapters.

An exercise gives the reader a stub (a signature, a docstring, ``raise NotImplementedError``; or ``name = None`` for
a number to work out on paper) to fill in; the next cell calls :func:`check_function` (or :func:`check` for a
value), which runs the reader's function on a few named inputs and compares every output with a reference. The
verdict is one printed paragraph:

- ``NOT STARTED`` while the stub still raises :class:`NotImplementedError` (or the value is None), while the name is
  not defined yet (the check ran before the stub's cell), or while the name still holds the stand-in that an
  earlier run of the check handed out (the reader edited the stub but did not run its cell again);
- ``NOT YET`` with the call, the output component and the entry where the reader's result differs, the two values,
  the pattern of the difference when every entry shows the same one (a factor, a sign, a constant), the plausible
  slip it matches when the check knows one (``mistakes``), and the check's hint;
- ``PASS`` otherwise.

A check never raises, whatever the reader's function does: "Run All" goes through a chapter whose exercises are
unsolved, and the returned :class:`Verdict` hands the cells that follow the reader's function once it passes and
the reference until then. A fault of the check itself (a tolerance that is not a finite non-negative number, a
reference that raises or is not finite) is printed as ``CHECK ERROR``, not raised either. The printed verdicts do
not contain measured deviations of a passing answer (they would vary with the BLAS build), so the notebooks'
regression tests compare them as text. :func:`progress` prints the state of every exercise of a chapter.
"""

from __future__ import annotations

import copy
import functools
import inspect
import numbers
import traceback
import tracemalloc
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .domains import Domain, declare, function, optional, real, unchecked
from .errors import InvalidParameterError
from .results import record

__all__ = ["Verdict", "check", "check_function", "progress"]

_PASS, _NOT_STARTED, _NOT_YET, _ERROR = "pass", "not started", "not yet", "check error"
_WORDS = {_PASS: "PASS", _NOT_STARTED: "NOT STARTED", _NOT_YET: "NOT YET", _ERROR: "CHECK ERROR"}

#: The last verdict of every exercise checked in this kernel, by the name of the reader's function or value.
_LAST: dict[str, str] = {}


@record
class Verdict:
    """The outcome of an exercise check.

    Parameters
    ----------
    status : {"pass", "not started", "not yet", "check error"}
        What the check found ("check error": the check itself is faulty, not the reader's answer).
    message : str
        The paragraph that was printed.
    function : callable or None
        The reader's function if it passed, else a stand-in that calls the reference (so that the cells that follow
        run either way; a later check of the stand-in reports NOT STARTED); None for :func:`check`, which compares
        values.
    """

    status: str
    message: str
    function: Callable | None = None

    @property
    def passed(self) -> bool:
        """True if the reader's answer agrees with the reference."""
        return self.status == _PASS

    def __bool__(self) -> bool:
        return self.passed


def _describe(value) -> str:
    """A short, stable description of one input."""
    try:
        if isinstance(value, (bool, numbers.Integral)):
            return str(int(value))
        if isinstance(value, numbers.Real):
            return f"{float(value):.6g}"
        if isinstance(value, numbers.Complex):
            return f"{complex(value):.6g}"
        if isinstance(value, str):
            return repr(value)
        arr = np.asarray(value) if not callable(value) else None
        if arr is not None and arr.dtype.kind in "biufc":
            if arr.size <= 4:
                values = "[" + ", ".join(_describe(x) for x in arr.ravel().tolist()) + "]"
                return values if arr.ndim <= 1 else f"{values} of shape {arr.shape}"
            return f"<array of shape {arr.shape}>"
    except Exception:  # noqa: BLE001 - a description must never fail
        pass
    return f"<{type(value).__name__}>"


def _call(name: str, kwargs: Mapping[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={_describe(v)}" for k, v in kwargs.items()) + ")"


def _fmt(x) -> str:
    return f"{x:.6g}" if np.isfinite(x) else str(x)


_FACTORS = (
    (-1.0, "the sign is flipped"),
    (2.0, "a factor 2 too large"),
    (0.5, "a factor 2 too small"),
    (-2.0, "a factor -2"),
    (-0.5, "a factor -1/2"),
    (0.0, "the result is zero"),
)


def _pattern(got: np.ndarray, expected: np.ndarray, scale: float) -> str:
    """The pattern of the difference when EVERY entry shows it ("" if none, or if there is a single entry)."""
    if got.size < 2:
        return ""
    tiny = 1e-8 * max(scale, 1e-300)
    nonzero = np.abs(expected) > tiny
    if nonzero.sum() >= 2 and np.all(np.abs(got[~nonzero]) <= tiny):
        ratio = got[nonzero] / expected[nonzero]
        r = float(np.median(ratio))
        if np.allclose(ratio, r, rtol=1e-3, atol=1e-6) and abs(r - 1.0) > 1e-2:
            for value, words in _FACTORS:
                if abs(r - value) < 1e-3:
                    return f" Every entry is {r:.4g} times the reference: {words}."
            return f" Every entry is {r:.4g} times the reference: a constant factor is off."
    diff = got - expected
    d = float(np.median(diff))
    if np.allclose(diff, d, rtol=1e-3, atol=1e-9 * max(scale, 1.0)) and abs(d) > 1e-9 * max(scale, 1.0):
        return f" Every entry is off by the same {d:+.4g}: a constant term is missing or extra."
    return ""


def _where(index: tuple, shape: tuple, kwargs: Mapping[str, Any], axes: Sequence[str] | None) -> str:
    """Name one output entry: by the inputs it was computed from when they broadcast to the output's shape, by the
    names of the axes when given, else by its index."""
    if not index:
        return ""
    arrays = {}
    for k, v in kwargs.items():
        if callable(v):
            continue
        try:
            a = np.asarray(v)
        except Exception:  # noqa: BLE001
            continue
        if a.dtype.kind in "biuf" and a.ndim > 0:
            arrays[k] = a
    if arrays:
        try:
            shapes = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        except ValueError:
            shapes = None
        if shapes == shape:
            return " at " + ", ".join(
                f"{k} = {_describe(np.broadcast_to(a, shape)[index])}" for k, a in arrays.items()
            )
    if axes is not None and len(axes) == len(index):
        return " at " + ", ".join(f"{name} {i}" for name, i in zip(axes, index))
    return f" at index {index if len(index) > 1 else index[0]}"


def _as_real_or_complex(value, complex_ok: bool) -> tuple[np.ndarray | None, str | None]:
    """The value as a float (or complex) array, or None and the reason it is not one."""
    if value is None:
        return None, "is None (a function that forgets its `return` gives None)"
    try:
        arr = np.array(value, copy=True)
    except Exception as error:  # noqa: BLE001
        return None, f"is a {type(value).__name__} that NumPy cannot read as numbers ({error})"
    if np.ma.isMaskedArray(value):
        return None, "is a masked array: return a plain array"
    if arr.dtype.kind == "b":
        arr = arr.astype(float)
    if arr.dtype.kind not in "iufc":
        return None, f"is a {type(value).__name__}, not a number or an array of numbers"
    if arr.dtype.kind == "c" and not complex_ok:
        if np.any(arr.imag != 0):
            return None, "has a non-zero imaginary part; the reference is real"
        arr = arr.real
    return arr.astype(complex if complex_ok else float), None


def _compare(
    label: str,
    got,
    expected,
    *,
    rtol: float,
    atol: float,
    kwargs: Mapping[str, Any],
    axes: Sequence[str] | None,
) -> tuple[str | None, str | None]:
    """(problem, fault): problem is None if got matches expected, else where it does not; fault is a fault of the
    check (a reference that is not finite numbers)."""
    try:
        exp_arr = np.array(expected, copy=True)
        complex_ok = exp_arr.dtype.kind == "c"
        exp_arr, why = _as_real_or_complex(expected, complex_ok)
        if exp_arr is None:
            return None, f"the reference for {label} {why}"
        if np.any(np.isnan(exp_arr)):
            return None, f"the reference for {label} holds NaN"
        got_arr, why = _as_real_or_complex(got, complex_ok)
        if got_arr is None:
            return f"{label} {why}.", None
        if complex_ok:  # compare complex values as (real, imaginary) pairs
            got_arr = np.stack([got_arr.real, got_arr.imag], axis=-1)
            exp_arr = np.stack([exp_arr.real, exp_arr.imag], axis=-1)
            axes = None if axes is None else (*axes, "real (0) / imaginary (1) part")
        if got_arr.shape != exp_arr.shape:
            return f"{label} has shape {got_arr.shape}; the reference has shape {exp_arr.shape}.", None
        finite_exp = np.isfinite(exp_arr)
        with np.errstate(all="ignore"):
            dev = np.abs(got_arr - exp_arr)
            bad = np.where(finite_exp, ~(dev <= atol + rtol * np.abs(exp_arr)), got_arr != exp_arr)
        if not np.any(bad):
            return None, None
        if axes is not None and axes and axes[0] == "iteration":  # the first iteration that goes wrong
            first = int(np.argmax(bad.reshape(bad.shape[0], -1).any(axis=1)))
            row = np.where(bad[first], np.nan_to_num(dev[first], nan=np.inf, posinf=np.inf), -1.0)
            index = (first, *np.unravel_index(int(np.argmax(row)), row.shape))
        else:
            score = np.where(bad, np.nan_to_num(dev, nan=np.inf, posinf=np.inf), -1.0)
            index = np.unravel_index(int(np.argmax(score)), got_arr.shape)
        index = tuple(int(i) for i in index)
        where = _where(index, got_arr.shape, kwargs, axes)
        count = f" ({int(bad.sum())} of {bad.size} entries differ)" if bad.size > 1 else ""
        if not np.isfinite(got_arr[index]):
            return (
                f"{label} is {got_arr[index]}{where} (the reference is {_fmt(exp_arr[index])}){count}.",
                None,
            )
        scale = float(np.max(np.abs(exp_arr[finite_exp]))) if finite_exp.any() else 1.0
        pattern = (
            _pattern(got_arr, exp_arr, scale) if np.all(finite_exp) and np.all(np.isfinite(got_arr)) else ""
        )
        return (
            f"{label} is {_fmt(got_arr[index])}{where}, the reference {_fmt(exp_arr[index])}{count}."
            + pattern
        ), None
    except Exception as error:  # noqa: BLE001 - a check never raises
        return f"{label} could not be compared with the reference ({type(error).__name__}: {error}).", None


def _user_line(error: BaseException) -> str:
    """The last line of the traceback that is the reader's code (a notebook cell), if any."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename.startswith("<") or "ipykernel" in frame.filename:
            if frame.line:
                return f" (line {frame.lineno} of your cell: `{frame.line.strip()}`)"
    return ""


def _stand_in(reference: Callable, name: str) -> Callable:
    """The reference, under the reader's name, marked so that a later check knows it is not the reader's."""

    @functools.wraps(reference)
    def stand_in(*args, **kwargs):
        return reference(*args, **kwargs)

    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.solvable_stand_in = True
    return stand_in


def _finish(key: str, status: str, message: str, function: Callable | None = None) -> Verdict:
    message = f"{_WORDS[status]}: {message}"
    print(message)
    _LAST[key] = status
    return Verdict(status, message, function)


_MISSING = object()


def _lookup(name: str, frame) -> Any:
    """The value the caller's cell sees under ``name`` (its locals, then its globals), or _MISSING."""
    if frame is None:
        return _MISSING
    for scope in (frame.f_locals, frame.f_globals):
        if name in scope:
            return scope[name]
    return _MISSING


def _matches(got, wrong, *, rtol: float, atol: float, kwargs, axes) -> bool:
    problem, fault = _compare(
        "", got, wrong, rtol=max(rtol, 1e-6), atol=max(atol, 1e-9), kwargs=kwargs, axes=axes
    )
    return problem is None and fault is None


def _slip(got, mistakes: Mapping[str, Any] | None, kwargs, *, call: bool, outputs, rtol, atol, axes) -> str:
    """ " This is what one gets when ..." for the first mistake whose output the reader's matches ("" if none)."""
    for words, wrong in (mistakes or {}).items():
        try:
            value = wrong(**copy.deepcopy(dict(kwargs))) if call else wrong
            if outputs is not None:
                same = (
                    isinstance(got, tuple)
                    and len(got) == len(value)
                    and all(
                        _matches(g, w, rtol=rtol, atol=atol, kwargs=kwargs, axes=axes)
                        for g, w in zip(got, value)
                    )
                )
            else:
                same = _matches(got, value, rtol=rtol, atol=atol, kwargs=kwargs, axes=axes)
        except Exception:  # noqa: BLE001 - a mistake that cannot be evaluated says nothing
            same = False
        if same:
            return f" This is what one gets when {words}."
    return ""


# --------------------------------------------------------------------------- the domains of the checks' parameters
def _check_text(name, value):
    if not isinstance(value, str):
        raise InvalidParameterError(f"{name} must be a string, got {type(value).__name__} {value!r:.60}")
    return value


def _check_cases(name, value):
    if (
        isinstance(value, (str, bytes, Mapping))
        or not isinstance(value, Sequence)
        or not value
        or not all(isinstance(c, Mapping) and all(isinstance(k, str) for k in c) for c in value)
    ):
        raise InvalidParameterError(
            f"{name} must be a non-empty sequence of mappings of keyword arguments, got "
            f"{type(value).__name__} {value!r:.60}"
        )
    return value


def _check_names(name, value):
    if (
        isinstance(value, (str, bytes))
        or not isinstance(value, Sequence)
        or not value
        or not all(isinstance(v, str) for v in value)
    ):
        raise InvalidParameterError(
            f"{name} must be a non-empty sequence of strings, got {type(value).__name__} {value!r:.60}"
        )
    return tuple(value)


def _mistakes(callables: bool) -> Domain:
    words = "a mapping of descriptions (str) to " + ("functions" if callables else "values")

    def check(name, value):
        if (
            not isinstance(value, Mapping)
            or not all(isinstance(k, str) for k in value)
            or (callables and not all(callable(v) and not isinstance(v, type) for v in value.values()))
        ):
            raise InvalidParameterError(f"{name} must be {words}, got {type(value).__name__} {value!r:.60}")
        return value

    return optional(Domain(words, check, "any"), "no known slips")


_TEXT = Domain("a string", _check_text, "any")
_TOLERANCE = real(0.0)
_CHECK_DOMAINS = {
    "name": _TEXT,
    "reference": function(),
    "cases": Domain("a non-empty sequence of mappings of keyword arguments", _check_cases, "any"),
    "outputs": optional(Domain("a non-empty sequence of strings", _check_names, "any"), "one output"),
    "axes": optional(
        Domain("a non-empty sequence of strings", _check_names, "any"), "entries named by index"
    ),
    "rtol": _TOLERANCE,
    "atol": _TOLERANCE,
    "hint": optional(_TEXT, "no hint"),
    "max_bytes": optional(real(0.0, low_open=True), "no limit"),
}


def _never_raising(**domains):
    """:func:`~solvable.domains.declare` for a check: a value outside its domain is a fault of the check, printed as
    CHECK ERROR (with the declaration's message, naming the parameter) and returned, never raised."""

    def wrap(f):
        declared = declare(**domains)(f)
        table, sig = declared.__domains__, inspect.signature(f)

        @functools.wraps(f)
        def checked(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)  # a missing or unexpected argument: Python's own TypeError
            arguments = bound.arguments
            try:
                for key, value in arguments.items():
                    arguments[key] = table[key](key, value)
            except InvalidParameterError as fault:
                name = arguments.get("name")
                label = name if isinstance(name, str) else "this check"
                if "function" in arguments:  # check_function: the reader's function, or its name
                    function = arguments["function"]
                    key = (
                        function
                        if isinstance(function, str)
                        else getattr(function, "__name__", "your function")
                    )
                else:  # check: the reader's variable's name, or the check's
                    key = arguments.get("got") if isinstance(arguments.get("got"), str) else label
                reference = arguments.get("reference")
                stand_in = _stand_in(reference, key) if callable(reference) else None
                return _finish(
                    key, _ERROR, f"{label}: {fault} (a fault of this check, not of your answer).", stand_in
                )
            return f(*bound.args, **bound.kwargs)

        checked.__domains__ = table
        checked.__signature__ = sig
        return checked

    return wrap


def _caller():
    """The frame of the cell that called a check (the first one outside this file: the check and its wrapper)."""
    frame = inspect.currentframe().f_back
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return frame


@_never_raising(
    function=unchecked(
        "the reader's function or its name: anything else is the reader's answer, reported NOT YET"
    ),
    mistakes=_mistakes(True),
    **_CHECK_DOMAINS,
)
def check_function(
    name: str,
    function: Callable | str,
    reference: Callable,
    cases: Sequence[Mapping[str, Any]],
    *,
    outputs: Sequence[str] | None = None,
    axes: Sequence[str] | None = None,
    rtol: float = 1e-8,
    atol: float = 1e-12,
    hint: str | None = None,
    mistakes: Mapping[str, Callable] | None = None,
    max_bytes: float | None = None,
) -> Verdict:
    """Run a reader's function on named inputs, compare it with a reference, and print the verdict.

    Parameters
    ----------
    name : str
        What the function computes, as the reader would say it (e.g. "g_out of the probit channel").
    function : str or callable
        The name of the reader's function in the calling cell's namespace (preferred: a check run before the stub's
        cell then says so instead of raising a NameError), or the function itself.
    reference : callable
        The library's version (or an independent computation), with the same signature.
    cases : sequence of mappings
        The keyword arguments of each call. Keep them small and exact: a plausible wrong answer must fail. Each
        call receives its own deep copy, so a function that writes into its inputs cannot change the reference's.
    outputs : sequence of str, optional
        The names of the components when the function returns a tuple (e.g. ``("g_out", "dg_out")``).
    axes : sequence of str, optional
        Names of the axes of each output (e.g. ``("iteration",)``), used to say where an entry differs when the
        entry cannot be named by the inputs it was computed from. When the first axis is ``"iteration"``, the
        verdict names the first iteration that goes wrong (not the one that deviates most).
    rtol, atol : float
        An entry passes if ``|got - expected| <= atol + rtol |expected|``; an infinite reference entry passes only
        if equal.
    hint : str, optional
        One sentence added to every ``NOT YET`` verdict (where to look first).
    mistakes : mapping of str to callable, optional
        Plausible slips: a description ("the Onsager term is forgotten") and a function with the reference's
        signature computing what that slip gives. When the reader's output matches one on the case where it
        differs from the reference, the verdict says "This is what one gets when <description>."
    max_bytes : float, optional
        The most memory one call of the reader's function may allocate (its peak, traced by ``tracemalloc``,
        which NumPy reports to); more gives ``NOT YET``.

    Returns
    -------
    Verdict
        Its ``function`` is the reader's function if it passed, else a stand-in calling ``reference`` under the
        reader's name. A chapter binds it to the exercise's name, so that the cells that follow run before the
        exercise is solved; checking the stand-in again reports NOT STARTED (an emptied cell does not pass on the
        library's code).

    Notes
    -----
    Never raises. The reader's errors are reported: ``NotImplementedError`` gives ``NOT STARTED``; any other
    exception, a wrong shape or type, a NaN, too much memory or an entry outside the tolerance gives ``NOT YET``
    with the call, the component and the entry. Entries of an output that has the broadcast shape of the array
    inputs are named by those inputs' values. Faults of the check (arguments of the wrong kind, a reference that
    raises or returns NaN) give ``CHECK ERROR``.

    References
    ----------
    The "Build it yourself" exercises of the chapters, e.g. Chapter 1, Sec. "The building blocks".

    Examples
    --------
    >>> import numpy as np
    >>> def my_square(x):
    ...     return x * x
    >>> verdict = check_function("the square", "my_square", lambda x: x**2, [dict(x=np.arange(3.0))])
    PASS: the square: my_square agrees with the reference on 1 case (to 1e-08 relative)
    >>> verdict.passed
    True
    """
    caller = _caller()
    fname = function if isinstance(function, str) else getattr(function, "__name__", "your function")
    key = fname
    stand_in = _stand_in(reference, fname)
    if isinstance(function, str):
        function = _lookup(fname, caller)
        if function is _MISSING:
            return _finish(
                key,
                _NOT_STARTED,
                f"{fname} is not defined yet. Run the cell that defines it (the "
                f"exercise's stub above), then this cell; until then the chapter goes on with "
                f"solvable's version.",
                stand_in,
            )
    if getattr(function, "solvable_stand_in", False):  # the fallback a previous check handed out
        return _finish(
            key,
            _NOT_STARTED,
            f"{fname} is still solvable's stand-in, handed out by an earlier run of "
            f"this check. If you have written {fname}, re-run the cell that defines it, then this cell.",
            stand_in,
        )
    if not callable(function):
        return _finish(
            key,
            _NOT_YET,
            f"{fname} is a {type(function).__name__}, not a function. Re-run the cell "
            f"that defines it, then this cell.",
            stand_in,
        )
    tail = f" Hint: {hint}" if hint else ""
    for kwargs in cases:
        call = _call(fname, kwargs)
        traced = max_bytes is not None and not tracemalloc.is_tracing()
        try:
            if traced:
                tracemalloc.start()
            try:
                got = function(**copy.deepcopy(dict(kwargs)))
            finally:
                peak = tracemalloc.get_traced_memory()[1] if traced else 0
                if traced:
                    tracemalloc.stop()
        except NotImplementedError:
            return _finish(
                key,
                _NOT_STARTED,
                f"{fname} still raises NotImplementedError. Write it in the cell "
                f"above (if you have, run that cell again), then run this cell; until then the chapter "
                f"goes on with solvable's version.",
                stand_in,
            )
        except Exception as error:  # noqa: BLE001 - the reader's bug, reported rather than raised
            return _finish(
                key,
                _NOT_YET,
                f"{call} raised {type(error).__name__}: {error}{_user_line(error)}.{tail}",
                stand_in,
            )
        try:
            with np.errstate(all="ignore"):
                expected = reference(**copy.deepcopy(dict(kwargs)))
        except Exception as error:  # noqa: BLE001
            return _finish(
                key,
                _ERROR,
                f"{name}: the reference raised {type(error).__name__}: {error} on {call} "
                f"(a fault of this check, not of your answer).",
                stand_in,
            )
        if traced and peak > max_bytes:
            return _finish(
                key,
                _NOT_YET,
                f"{call} allocated {peak / 1e6:.3g} MB at its peak, more than the "
                f"{max_bytes / 1e6:.3g} MB this check allows: the exercise asks for a computation whose "
                f"memory grows like the data's, without a larger intermediate array.{tail}",
                stand_in,
            )
        if outputs is not None:
            if not isinstance(got, tuple) or len(got) != len(outputs):
                kind = f"a tuple of {len(got)}" if isinstance(got, tuple) else f"a {type(got).__name__}"
                return _finish(
                    key,
                    _NOT_YET,
                    f"{call} returned {kind}; expected the tuple ({', '.join(outputs)}).{tail}",
                    stand_in,
                )
            if not isinstance(expected, tuple) or len(expected) != len(outputs):
                return _finish(
                    key,
                    _ERROR,
                    f"{name}: the reference does not return {len(outputs)} outputs "
                    f"(a fault of this check, not of your answer).",
                    stand_in,
                )
            pairs = list(zip(outputs, got, expected))
        else:
            pairs = [("the result", got, expected)]
        for label, g, e in pairs:
            problem, fault = _compare(label, g, e, rtol=rtol, atol=atol, kwargs=kwargs, axes=axes)
            if fault is not None:
                return _finish(
                    key,
                    _ERROR,
                    f"{name}: {fault} on {call} (a fault of this check, not of your answer).",
                    stand_in,
                )
            if problem is not None:
                slip = _slip(
                    got, mistakes, kwargs, call=True, outputs=outputs, rtol=rtol, atol=atol, axes=axes
                )
                return _finish(key, _NOT_YET, f"{call}: {problem}{slip}{tail}", stand_in)
    return _finish(
        key,
        _PASS,
        f"{name}: {fname} agrees with the reference on {len(cases)} "
        f"{'case' if len(cases) == 1 else 'cases'} (to {rtol:g} relative)",
        function,
    )


@_never_raising(
    name=_TEXT,
    got=unchecked("the reader's value or its name: anything else is the reader's answer"),
    expected=unchecked(
        "the reference: real or complex numbers (one that is not, or holds NaN, is reported CHECK ERROR)"
    ),
    rtol=_TOLERANCE,
    atol=_TOLERANCE,
    hint=_CHECK_DOMAINS["hint"],
    mistakes=_mistakes(False),
)
def check(
    name: str,
    got,
    expected,
    *,
    rtol: float = 1e-8,
    atol: float = 1e-12,
    hint: str | None = None,
    mistakes: Mapping[str, Any] | None = None,
) -> Verdict:
    """Compare a value the reader computed with the reference and print the verdict.

    Parameters
    ----------
    name : str
        What is being checked, as the reader would say it (e.g. "the fixed point q at alpha = 1").
    got : str, float, array_like or None
        The name of the reader's variable in the calling cell's namespace (preferred), or the value itself; None
        (or ``...``, or a name not defined yet) while the exercise is not started.
    expected : float or array_like
        The reference value, of the same shape.
    rtol, atol : float
        An entry passes if ``|got - expected| <= atol + rtol |expected|``.
    hint : str, optional
        One sentence added to a ``NOT YET`` verdict.
    mistakes : mapping of str to value, optional
        Plausible slips and the values they give; a match is named in the verdict.

    Returns
    -------
    Verdict
        With ``function`` None.

    Notes
    -----
    Never raises; faults of the check give ``CHECK ERROR``.

    References
    ----------
    The exercises of the chapters, e.g. Chapter 1, Sec. "Exercises".

    Examples
    --------
    >>> my_capacity = 2.0
    >>> verdict = check("Gardner's capacity at zero margin", "my_capacity", 2.0)
    PASS: Gardner's capacity at zero margin agrees with the reference (to 1e-08 relative)
    """
    caller = _caller()
    key = got if isinstance(got, str) else name
    if isinstance(got, str):
        got = _lookup(key, caller)
        if got is _MISSING:
            return _finish(
                key,
                _NOT_STARTED,
                f"{name}: {key} is not defined yet. Run the cell above that sets it, then this cell.",
            )
    if got is None or got is Ellipsis:
        return _finish(
            key,
            _NOT_STARTED,
            f"{name}. Compute it in the cell above (if you have, run that cell again), then run this cell.",
        )
    problem, fault = _compare(name, got, expected, rtol=rtol, atol=atol, kwargs={}, axes=None)
    if fault is not None:
        return _finish(key, _ERROR, f"{name}: {fault} (a fault of this check, not of your answer).")
    if problem is not None:
        slip = _slip(got, mistakes, {}, call=False, outputs=None, rtol=rtol, atol=atol, axes=None)
        return _finish(key, _NOT_YET, problem + slip + (f" Hint: {hint}" if hint else ""))
    return _finish(key, _PASS, f"{name} agrees with the reference (to {rtol:g} relative)")


def _check_progress_names(name, value):
    return [value] if isinstance(value, str) else list(_check_names(name, value))


@declare(names=Domain("a name, or a non-empty sequence of names (strings)", _check_progress_names, "any"))
def progress(names: Sequence[str]) -> dict[str, str]:
    """Print where the reader stands on the checked exercises of a chapter, in this kernel.

    Parameters
    ----------
    names : sequence of str
        The names of the reader's functions (or values) that the chapter's checks take, in page order.

    Returns
    -------
    dict
        ``{name: status}``, with status "pass", "not yet", "not started" (never checked in this kernel counts as
        not started) or "check error".

    Examples
    --------
    >>> state = progress(["a_name_never_checked"])
    Your exercises in this chapter: 0 of 1 pass.
      NOT STARTED  a_name_never_checked
    """
    state = {n: _LAST.get(n, _NOT_STARTED) for n in names}
    done = sum(s == _PASS for s in state.values())
    lines = [f"Your exercises in this chapter: {done} of {len(names)} pass."]
    width = max(len(w) for w in _WORDS.values())
    lines += [f"  {_WORDS[s]:<{width}}  {n}" for n, s in state.items()]
    print("\n".join(lines))
    return state

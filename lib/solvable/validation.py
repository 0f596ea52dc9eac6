"""Argument checks shared by every public function.

Each check returns the validated value (converted to float/str) or raises with a message that names the
parameter and the allowed range: ``TypeError`` for a wrong type (:class:`~solvable.errors.InvalidParameterError`, which
is also a ``ValueError``) and ``ValueError`` for a wrong value, e.g.
``ValueError: alpha must be a finite number >= 0, got -1.0``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

from .errors import InvalidParameterError

__all__ = [
    "check_finite",
    "check_positive",
    "check_nonnegative",
    "check_in_range",
    "check_choice",
    "check_int",
    "check_rng",
    "check_design",
    "check_size",
    "check_tol",
    "check_array",
    "all_finite",
    "check_interface",
    "MAX_ELEMENTS",
]

#: The largest array, in float64 numbers, that a sampler or solver of the library will allocate: 2^30 numbers
#: (8 GiB). A request beyond it is refused with a ValueError naming the sizes, instead of failing deep inside
#: NumPy (or swapping the machine to a halt).
MAX_ELEMENTS = 2**30

#: The largest integer argument: a count beyond a 64-bit integer cannot size an array or a loop.
_INT_MAX = 2**63 - 1


def _number(name: str, value, expected: str) -> float:
    """``float(value)`` for a real number, naming ``name`` in the error otherwise.

    Real numbers are Python ``int``/``float`` (and other :class:`numbers.Real`), NumPy integer and floating
    scalars and 0-d real arrays. Strings, bytes, ``bytearray``, booleans, ``None`` and complex numbers (Python or
    NumPy: their imaginary part would be dropped) raise :class:`~solvable.errors.InvalidParameterError`; an integer
    too large for a float raises ``ValueError``.
    """
    if (
        isinstance(value, (str, bytes, bytearray, memoryview, bool, np.bool_, complex, np.complexfloating))
        or value is None
    ):
        raise InvalidParameterError(f"{name} must be {expected}, got {value!r:.80}")
    if isinstance(value, np.ndarray):
        if value.ndim != 0 or value.dtype.kind not in "iuf":
            raise InvalidParameterError(
                f"{name} must be {expected}, got an array of shape {value.shape} and dtype {value.dtype}"
            )
    elif not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise InvalidParameterError(f"{name} must be {expected}, got {type(value).__name__} {value!r:.60}")
    try:
        return float(value)
    except OverflowError:
        raise InvalidParameterError(
            f"{name} must be {expected}, got an integer too large for a float "
            f"({len(str(abs(int(value))))} digits)"
        ) from None
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be {expected}, got {value!r:.80}") from None


def check_finite(name: str, value) -> float:
    """Return ``value`` as a float if it is a finite real number.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The argument to check.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (:class:`~solvable.errors.InvalidParameterError`).
    ValueError
        If it is NaN or infinite, or an integer too large for a float.
    """
    x = _number(name, value, "a finite real number")
    if not math.isfinite(x):
        raise InvalidParameterError(f"{name} must be a finite real number, got {value!r}")
    return x


def check_positive(name: str, value, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float if it is a number > 0 (and finite unless ``allow_inf``).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The argument to check.
    allow_inf : bool, optional
        Accept ``math.inf`` (e.g. ``beta = inf`` in bilinear sequence regression).

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, <= 0, or infinite when ``allow_inf`` is False.
    """
    rng = "> 0" + (" (math.inf allowed)" if allow_inf else "")
    x = _number(name, value, f"a number {rng}")
    if math.isnan(x) or x <= 0 or (math.isinf(x) and not allow_inf):
        raise InvalidParameterError(f"{name} must be a number {rng}, got {value!r}")
    return x


def check_nonnegative(name: str, value) -> float:
    """Return ``value`` as a float if it is a finite number >= 0.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The argument to check.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or negative.
    """
    x = _number(name, value, "a finite number >= 0")
    if not math.isfinite(x) or x < 0:
        raise InvalidParameterError(f"{name} must be a finite number >= 0, got {value!r}")
    return x


def check_in_range(
    name: str, value, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> float:
    """Return ``value`` as a float if it lies in the interval from ``low`` to ``high``.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The argument to check.
    low, high : float
        The ends of the interval.
    low_open, high_open : bool, optional
        Exclude the lower / upper end (the interval is closed by default).

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN or outside the interval.
    """
    lb = "(" if low_open else "["
    hb = ")" if high_open else "]"
    interval = f"{lb}{low}, {high}{hb}"
    x = _number(name, value, f"a number in {interval}")
    ok = not math.isnan(x)
    ok = ok and (x > low if low_open else x >= low) and (x < high if high_open else x <= high)
    if not ok:
        raise InvalidParameterError(f"{name} must be a number in {interval}, got {value!r}")
    return x


def check_choice(name: str, value, choices: Iterable[str]) -> str:
    """Return ``value`` (a string, case-insensitive, lower-cased) if it is one of ``choices``.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The argument to check.
    choices : iterable of str
        The allowed values, lower case.

    Returns
    -------
    str
        ``value`` in lower case.

    Raises
    ------
    TypeError
        If ``value`` is not a string (:class:`~solvable.errors.InvalidParameterError`).
    ValueError
        If it is not one of ``choices``.
    """
    choices = tuple(choices)
    if not isinstance(value, str):
        raise InvalidParameterError(
            f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r:.60}"
        )
    if value.lower() not in choices:
        raise InvalidParameterError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value.lower()


def check_int(name: str, value, *, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is an integer >= ``minimum``.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The argument to check.
    minimum : int, optional
        The smallest allowed value.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    TypeError
        For a non-integer type: a float (even ``3.0``), a string, a boolean, ``None``
        (:class:`~solvable.errors.InvalidParameterError`). A 0-d integer array counts as its integer.
    ValueError
        For an integer below ``minimum``, or beyond ``2^63 - 1``.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        value = value[()]  # a 0-d integer array is the integer it holds (as _number reads a 0-d real array)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(
            f"{name} must be an integer >= {minimum}, got {type(value).__name__} {value!r:.60}"
        )
    if value < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value > _INT_MAX:
        raise InvalidParameterError(
            f"{name} must be an integer <= 2^63 - 1, got one of {len(str(int(value)))} digits"
        )
    return int(value)


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` built from ``rng``, following Scientific Python's SPEC 7.

    Parameters
    ----------
    rng : numpy.random.Generator, int, numpy.random.SeedSequence or numpy.random.BitGenerator
        A generator is used as is (draws advance it); a non-negative integer seed, a seed sequence or a bit
        generator is passed to ``numpy.random.default_rng``.
    name : str, optional
        The parameter's name, for the message.

    Returns
    -------
    numpy.random.Generator
        The generator to draw from.

    Raises
    ------
    TypeError
        For any other type (:class:`~solvable.errors.InvalidParameterError`), ``None`` and a legacy
        ``numpy.random.RandomState`` included.
    ValueError
        For a negative seed.

    Notes
    -----
    SPEC 7 lets ``None`` mean fresh entropy from the operating system; the library refuses it on purpose, so
    that every random draw of the course is reproducible.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise InvalidParameterError(f"{name} must be a non-negative integer seed, got {rng!r}")
        return np.random.default_rng(int(rng))
    extra = " (None is refused: every random draw of the library is reproducible)" if rng is None else ""
    raise InvalidParameterError(
        f"{name} must be a numpy.random.Generator, a non-negative integer seed, a "
        f"SeedSequence or a BitGenerator, got {type(rng).__name__} {rng!r:.40}{extra}"
    )


def check_design(X, y, *, binary: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(X, y)`` as float arrays after checking a data set of ``n`` samples in dimension ``d``.

    Parameters
    ----------
    X : array_like
        A finite, non-empty ``(n, d)`` array.
    y : array_like
        A finite ``(n,)`` array.
    binary : bool, optional
        Require labels in ``{-1, +1}``.

    Returns
    -------
    X, y : numpy.ndarray
        The validated arrays.

    Raises
    ------
    TypeError
        If ``X`` or ``y`` is not an array of real numbers.
    ValueError
        For a wrong shape, a non-finite entry or (with ``binary``) a label other than +-1.
    """
    X = check_array("X", X, finite=False, nonempty=False)
    y = check_array("y", y, finite=False, nonempty=False)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise InvalidParameterError(f"X must be a non-empty 2-d array of shape (n, d), got shape {X.shape}")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InvalidParameterError(
            f"y must be a 1-d array with one label per row of X ({X.shape[0]}), got shape {y.shape}"
        )
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise InvalidParameterError("X and y must contain finite numbers only")
    if binary and not np.all(np.abs(y) == 1.0):
        raise InvalidParameterError("y must contain labels in {-1, +1} only")
    return X, y


def check_size(what: str, *shape) -> int:
    """Return the number of entries of an array of the given ``shape`` if it is at most :data:`MAX_ELEMENTS`.

    Parameters
    ----------
    what : str
        Names the array and the parameters that set its size.
    *shape : int
        The array's shape; for a function that allocates several arrays at once, pass their total number of
        entries (the peak), not the largest array's.

    Returns
    -------
    int
        The number of entries.

    Raises
    ------
    ValueError
        If the count exceeds :data:`MAX_ELEMENTS`, e.g.
        ``check_size("the design X (n = alpha d, d)", n, d)`` raises
        ``ValueError: the design X (n = alpha d, d) would hold 2.0e+09 numbers (14.9 GiB), above the limit ...``.
    """
    count = 1
    for k in shape:
        count *= int(k)
    if count > MAX_ELEMENTS:
        size = (
            f"{count:.1e} numbers ({count * 8 / 2**30:.1f} GiB)"
            if count < 10**300
            else f"about 10^{len(str(count)) - 1} numbers"
        )  # a count beyond the float range cannot be formatted as one
        raise InvalidParameterError(
            f"{what} would hold {size}, above the limit "
            f"of {MAX_ELEMENTS:.1e} (solvable.validation.MAX_ELEMENTS): reduce the size"
        )
    return count


def check_tol(tol, name: str = "tol") -> float:
    """Return a convergence tolerance: a finite number in ``[0, 1)``.

    Parameters
    ----------
    tol : float
        The tolerance.
    name : str, optional
        The parameter's name, for the message.

    Returns
    -------
    float
        ``tol`` as a float.

    Raises
    ------
    TypeError
        If ``tol`` is not a real number.
    ValueError
        If it is outside ``[0, 1)``: ``tol >= 1`` would accept any first step as converged and report success
        on a wrong answer.
    """
    return check_in_range(name, tol, 0.0, 1.0, high_open=True)


def all_finite(arr: np.ndarray) -> bool:
    """Whether every entry of a float array is finite.

    Parameters
    ----------
    arr : numpy.ndarray
        The array.

    Returns
    -------
    bool
        True when no entry is NaN or infinite.

    Notes
    -----
    One summation pass without a temporary array; the element-wise test only runs when the sum is not finite
    (NaN or inf entries, or an overflow of huge finite ones).
    """
    with np.errstate(all="ignore"):
        if np.isfinite(np.sum(arr)):
            return True
    return bool(np.all(np.isfinite(arr)))


def check_array(
    name: str, x, *, ndim: int | None = None, finite: bool = True, nonempty: bool = True
) -> np.ndarray:
    """Return ``x`` as a float array after checking it.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    x : array_like
        Real numbers (booleans and integers are converted to floats).
    ndim : int, optional
        The required number of dimensions.
    finite : bool, optional
        Require finite entries.
    nonempty : bool, optional
        Require at least one entry.

    Returns
    -------
    numpy.ndarray
        ``x`` as a float array (no copy when it already is one).

    Raises
    ------
    TypeError
        For strings, bytes, ``None``, complex or ragged input (:class:`~solvable.errors.InvalidParameterError`).
    ValueError
        For a wrong number of dimensions, an empty array or a non-finite entry.
    """
    if x is None or isinstance(x, (str, bytes, bytearray, memoryview, bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be an array of real numbers, got {x!r:.60}")
    if isinstance(x, numbers.Real) and not isinstance(x, (np.integer, np.floating)):
        x = _number(
            name, x, "an array of real numbers"
        )  # a Fraction is the float it holds (not an object array)
    try:
        raw = np.asarray(x)
        if np.iscomplexobj(raw) or raw.dtype.kind not in "biuf":
            raise TypeError
        arr = raw.astype(float, copy=False)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be an array of real numbers, got {type(x).__name__} {str(x)[:60]!s}"
        ) from None
    if ndim is not None and arr.ndim != ndim:
        raise InvalidParameterError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if nonempty and arr.size == 0:
        raise InvalidParameterError(f"{name} must not be empty, got shape {arr.shape}")
    if finite and not all_finite(arr):
        raise InvalidParameterError(f"{name} must contain finite numbers only (no NaN or inf)")
    return arr


def check_interface(name: str, obj, *methods: str):
    """Return ``obj`` if it has every one of ``methods`` (callable).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    obj : object
        The argument.
    *methods : str
        The names of the methods it must provide.

    Returns
    -------
    object
        ``obj`` itself.

    Raises
    ------
    TypeError
        Naming ``name`` and the missing methods (e.g. a string passed where a channel object is expected).
    """
    missing = [m for m in methods if not callable(getattr(obj, m, None))]
    if missing:
        raise InvalidParameterError(
            f"{name} must provide {', '.join(m + '()' for m in missing)}; got {type(obj).__name__} {obj!r:.60}"
        )
    return obj

"""Parameter domains, declared once per parameter and enforced by one decorator.

A *domain* says which values a parameter accepts (type, interval, finiteness, number of dimensions) and how a
value is converted (a NumPy scalar to a Python float, a string to lower case, a seed to a generator). A public
function declares the domain of every parameter it takes with :func:`declare`; parameters named as the course
names them (``alpha``, ``delta``, ``tol``, ``rng``, ...) take their domain from :data:`VOCABULARY`, so that
``alpha`` means the same thing, and is checked the same way, everywhere. :func:`declare` checks the arguments
before the body runs and stores the domains on the function (``f.__domains__``), which is where the contract
fuzz (``tests/test_contract.py``) reads them: the bad values it tries are generated from the declarations, not
written a second time.

Every refusal is an :class:`~solvable.errors.InvalidParameterError` (a ``ValueError`` and a ``TypeError``)
naming the parameter and its domain.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import field
from types import MappingProxyType

import numpy as np

from .errors import InvalidParameterError
from .results import record
from .streams import stream
from .validation import (
    all_finite,
    check_array,
    check_choice,
    check_in_range,
    check_int,
)

__all__ = [
    "Domain",
    "real",
    "integer",
    "choice",
    "flag",
    "seed",
    "array",
    "instance",
    "interface",
    "function",
    "optional",
    "unchecked",
    "explained",
    "VOCABULARY",
    "declare",
    "domains_of",
    "fuzz_categories",
    "fuzz_value",
]


@record
class Domain:
    """The values one parameter accepts.

    Parameters
    ----------
    text : str
        The domain in words, as messages and the API reference print it (``"a number >= 0"``).
    check : callable
        ``check(name, value) -> value``: the converted value, or an
        :class:`~solvable.errors.InvalidParameterError` naming ``name``.
    kind : str
        The family of the domain (``"real"``, ``"int"``, ``"choice"``, ``"flag"``, ``"rng"``, ``"array"``,
        ``"object"``, ``"callable"``, ``"any"``): the contract fuzz generates its bad values from it.
    bounds : tuple, optional
        For ``"real"`` and ``"int"``: ``(low, high, low_open, high_open)``; for ``"array"``: ``(ndim,)``.
    options : tuple, optional
        For ``"choice"``: the allowed strings.
    nullable : bool, optional
        ``None`` is allowed (it means "automatic"; the function's docstring says what it picks).
    finite : bool, optional
        Infinite values are refused (``"real"``) or entries must be finite (``"array"``).
    """

    text: str
    check: Callable = field(repr=False, compare=False)
    kind: str
    bounds: tuple = ()
    options: tuple = ()
    nullable: bool = False
    finite: bool = True

    def __call__(self, name: str, value):
        """Check ``value`` for the parameter ``name`` (``None`` passes when the domain is nullable)."""
        if value is None and self.nullable:
            return None
        if isinstance(value, np.ma.MaskedArray):
            raise InvalidParameterError(
                f"{name} must be {self.text}, got a masked array (its mask would be "
                "ignored: pass value.filled(...) or the unmasked entries)"
            )
        return self.check(name, value)


def _interval(low, high, low_open, high_open) -> str:
    if high == math.inf and not (low == -math.inf):
        return f"a number {'>' if low_open else '>='} {low:g}"
    if low == -math.inf and high != math.inf:
        return f"a number {'<' if high_open else '<='} {high:g}"
    if low == -math.inf and high == math.inf:
        return "a finite real number"
    return f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def real(
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> Domain:
    """A real number in an interval (finite unless ``allow_inf``).

    Parameters
    ----------
    low, high : float, optional
        The ends of the interval (unbounded by default).
    low_open, high_open : bool, optional
        Exclude an end.
    allow_inf : bool, optional
        Accept ``+inf`` (e.g. ``beta = inf``, sequences much longer than the dimension).

    Returns
    -------
    Domain
        The domain; its check returns a Python float.
    """
    text = _interval(low, high, low_open, high_open) + (" (inf allowed)" if allow_inf else "")

    def check(name, value):
        if allow_inf and isinstance(value, (float, np.floating)) and value == math.inf:
            return math.inf
        lo = low if math.isfinite(low) else -math.inf
        hi = high if math.isfinite(high) else math.inf
        x = check_in_range(
            name,
            value,
            lo,
            hi,
            low_open=low_open or not math.isfinite(low),
            high_open=high_open or not math.isfinite(high),
        )
        return x

    return Domain(text, check, "real", (low, high, low_open, high_open), finite=not allow_inf)


def integer(minimum: int = 1, maximum: int | None = None, *, size: bool = False) -> Domain:
    """An integer ``>= minimum`` (and ``<= maximum``).

    Parameters
    ----------
    minimum : int, optional
        The smallest value.
    maximum : int, optional
        The largest value (unbounded by default).
    size : bool, optional
        The integer sizes an allocation (a dimension, a number of samples): the fuzz then also tries absurd
        sizes, which the function's size check must refuse.

    Returns
    -------
    Domain
        The domain; its check returns a Python int.
    """
    text = f"an integer >= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")

    def check(name, value):
        k = check_int(name, value, minimum=minimum)
        if maximum is not None and k > maximum:
            raise InvalidParameterError(f"{name} must be {text}, got {k}")
        return k

    return Domain(text, check, "size" if size else "int", (minimum, maximum, False, False))


def choice(*options: str) -> Domain:
    """One of a few strings (case-insensitive; the check returns it in lower case).

    Parameters
    ----------
    *options : str
        The allowed values, lower case.

    Returns
    -------
    Domain
        The domain.
    """
    opts = tuple(options)
    return Domain(
        "one of " + ", ".join(map(repr, opts)),
        lambda name, v: check_choice(name, v, opts),
        "choice",
        options=opts,
    )


def _check_flag(name, value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidParameterError(f"{name} must be True or False, got {type(value).__name__} {value!r:.40}")


def flag() -> Domain:
    """``True`` or ``False`` (a NumPy boolean counts; ``0``, ``1``, ``"no"`` and ``None`` do not).

    Returns
    -------
    Domain
        The domain; its check returns a Python bool.
    """
    return Domain("True or False", _check_flag, "flag")


def seed(purpose: str = "data") -> Domain:
    """A source of randomness (Scientific Python's SPEC 7, ``None`` refused), drawn from for one purpose.

    Parameters
    ----------
    purpose : str, optional
        What the function draws: ``"data"`` (a sampler: ``numpy.random.default_rng(seed)`` itself) or ``"init"``
        (an algorithm's start), a stream of the same seed independent of the data's
        (:func:`solvable.streams.stream`), so that the same integer seed given to a sampler and to an algorithm
        never makes the start the teacher.

    Returns
    -------
    Domain
        The domain; its check returns the ``numpy.random.Generator`` of that purpose (a generator passed in is
        used as it is).
    """
    return Domain(
        "a numpy.random.Generator, a non-negative integer seed, a SeedSequence or a BitGenerator",
        lambda name, v: stream(v, purpose, name),
        "rng",
        options=(purpose,),
    )


def array(ndim: int | None = None, *, finite: bool = True, nonempty: bool = True) -> Domain:
    """An array of real numbers (a masked array is refused: its mask would be dropped).

    Parameters
    ----------
    ndim : int, optional
        The required number of dimensions (any by default).
    finite : bool, optional
        Require finite entries.
    nonempty : bool, optional
        Require at least one entry.

    Returns
    -------
    Domain
        The domain; its check returns a float array (no copy where the input already is one).
    """
    text = (
        "a "
        + ("non-empty " if nonempty else "")
        + (f"{ndim}-d " if ndim is not None else "")
        + "array of "
        + ("finite " if finite else "")
        + "real numbers"
    )

    def check(name, value):
        try:
            a = check_array(name, value, finite=False, nonempty=False)
        except InvalidParameterError:
            raise InvalidParameterError(
                f"{name} must be {text}, got {type(value).__name__} {str(value)[:60]}"
            ) from None
        if ndim is not None and a.ndim != ndim:
            raise InvalidParameterError(f"{name} must be {text}, got an array of shape {a.shape}")
        if nonempty and a.size == 0:
            raise InvalidParameterError(f"{name} must be {text}, got an empty array of shape {a.shape}")
        if finite and not all_finite(a):
            raise InvalidParameterError(
                f"{name} must be {text}, got {a.size - np.count_nonzero(np.isfinite(a))} "
                "non-finite entries (NaN or inf)"
            )
        return a

    return Domain(text, check, "array", (ndim,), finite=finite)


def instance(cls: type | tuple, text: str | None = None) -> Domain:
    """An instance of a class (a data set of a given model, a result).

    Parameters
    ----------
    cls : type or tuple of type
        The accepted class(es).
    text : str, optional
        The domain in words (default: the class names).

    Returns
    -------
    Domain
        The domain; its check returns the object itself.
    """
    classes = cls if isinstance(cls, tuple) else (cls,)
    words = text or " or ".join(f"a {c.__module__}.{c.__qualname__}" for c in classes)

    def check(name, value):
        if isinstance(value, type) or not isinstance(value, classes):
            raise InvalidParameterError(f"{name} must be {words}, got {type(value).__name__} {value!r:.60}")
        return value

    return Domain(words, check, "object")


def interface(*methods: str) -> Domain:
    """An object with the given methods (an output channel, a prior, a linear map).

    Parameters
    ----------
    *methods : str
        The methods it must provide (callable attributes).

    Returns
    -------
    Domain
        The domain; its check returns the object itself.
    """
    words = "an object with " + ", ".join(m + "()" for m in methods)

    def check(name, value):
        if isinstance(value, type):
            raise InvalidParameterError(
                f"{name} must be {words} (an instance, not the class {value.__name__})"
            )
        missing = [m for m in methods if not callable(getattr(value, m, None))]
        if missing:
            raise InvalidParameterError(
                f"{name} must be {words}; {type(value).__name__} lacks {', '.join(m + '()' for m in missing)}"
            )
        return value

    return Domain(words, check, "object")


def function() -> Domain:
    """A callable.

    Returns
    -------
    Domain
        The domain; its check returns the callable itself.
    """

    def check(name, value):
        if not callable(value) or isinstance(value, type):
            raise InvalidParameterError(
                f"{name} must be a function, got {type(value).__name__} {value!r:.60}"
            )
        return value

    return Domain("a function", check, "callable")


def optional(domain: Domain, meaning: str = "automatic") -> Domain:
    """``domain`` or ``None``.

    Parameters
    ----------
    domain : Domain
        The domain of a value that is given.
    meaning : str, optional
        What ``None`` stands for, in words.

    Returns
    -------
    Domain
        The same domain with ``None`` allowed.
    """
    return Domain(
        f"{domain.text}, or None ({meaning})",
        domain.check,
        domain.kind,
        domain.bounds,
        domain.options,
        True,
        domain.finite,
    )


def unchecked(reason: str) -> Domain:
    """A parameter the declaration does not check, with the reason (the function checks it itself).

    Parameters
    ----------
    reason : str
        Why, and where the function checks it.

    Returns
    -------
    Domain
        A domain whose check passes the value through; the fuzz leaves it alone.
    """
    return Domain(reason, lambda name, v: v, "any")


def explained(domain: Domain, reason: str) -> Domain:
    """``domain`` whose text and refusals also say why its bound is where it is.

    Parameters
    ----------
    domain : Domain
        The domain.
    reason : str
        Why (appended to its text, and to the message of each refusal).

    Returns
    -------
    Domain
        The same domain, explained.

    Examples
    --------
    >>> from solvable.domains import explained, real
    >>> explained(real(1.0), "transpose Y when d > L")("beta", 0.5)
    Traceback (most recent call last):
    ...
    solvable.errors.InvalidParameterError: beta must be a number in [1.0, inf), got 0.5: transpose Y when d > L
    """

    def check(name, value):
        try:
            return domain.check(name, value)
        except InvalidParameterError as e:
            raise InvalidParameterError(f"{e}: {reason}") from None

    return dataclasses.replace(domain, text=f"{domain.text} ({reason})", check=check)


#: The parameters named as the course names them, with their domain. A function's own declaration overrides an
#: entry where the domain is narrower (a sampler needs ``alpha > 0``, its theory accepts ``alpha = 0``).
VOCABULARY = MappingProxyType(
    {
        "alpha": real(0.0),  # sample ratio n/d (n/d^2 in the matrix models)
        "beta": real(0.0, low_open=True, allow_inf=True),  # sequence length ratio L/d
        "rho": real(0.0, 1.0, low_open=True),  # rank ratio
        "kappa": real(0.0, low_open=True),  # width ratio m/d
        "delta": real(0.0),  # label-noise variance
        "noise": real(0.0),  # variance of the noise a denoiser removes
        "d": integer(1, size=True),  # dimension
        "T": integer(1),  # tokens per sequence
        "rng": seed(),
        "tol": real(0.0, 1.0, high_open=True),  # >= 1 would call any first step converged
        "max_iter": integer(1),
        "max_steps": integer(0),
        "iterations": integer(1),
        "damping": real(0.0, 1.0, high_open=True),
        "warn": flag(),
        "n_inits": integer(1),
        "record_every": integer(1),
        "lr": real(0.0, low_open=True),
    }
)


def declare(*shared, **domains: Domain):
    """Decorator: the domain of every parameter of a public function, checked before its body runs.

    Parameters
    ----------
    *shared : mapping of str to Domain
        Domains declared once for a family of functions (e.g. ``solvable.gd.GD_CONTROLS``, the controls of
        every model's gradient descent): those of the parameters the function takes are used.
    **domains : Domain
        The domain of each parameter not in :data:`VOCABULARY` (or narrower than its entry there).

    Returns
    -------
    callable
        The decorator. The decorated function checks each argument it is given (defaults are not checked) and
        passes the converted values on; its domains are in ``f.__domains__`` (name -> :class:`Domain`).

    Raises
    ------
    TypeError
        At import, if a parameter has no domain or a domain names no parameter: every parameter is declared.

    Notes
    -----
    On a class (a :func:`~solvable.results.record`, above its ``@record``), the constructor is declared.

    Examples
    --------
    >>> from solvable.domains import declare, real
    >>> @declare(x=real(0.0, 1.0))
    ... def half(x, *, tol=1e-8):
    ...     return x / 2
    >>> half(0.5)
    0.25
    >>> half(2.0)
    Traceback (most recent call last):
    ...
    solvable.errors.InvalidParameterError: x must be a number in [0.0, 1.0], got 2.0
    """

    def wrap(f):
        if isinstance(f, type):  # a class (a record): its constructor is declared, and the class returned
            f.__init__ = wrap(f.__init__)
            return f
        sig = inspect.signature(f)
        table = {}
        for name, p in sig.parameters.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or (name == "self" and not table):
                continue  # *args, **kwargs (passed on to a declared function) and a constructor's self
            dom = domains.get(name, next((m[name] for m in shared if name in m), VOCABULARY.get(name)))
            if dom is None:
                raise TypeError(f"{f.__module__}.{f.__qualname__}: no domain declared for parameter {name!r}")
            table[name] = dom
        extra = set(domains) - set(table)
        if extra:
            raise TypeError(f"{f.__module__}.{f.__qualname__}: domains for no parameter: {sorted(extra)}")
        frozen = MappingProxyType(table)

        @functools.wraps(f)
        def checked(*args, **kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:  # a missing or unexpected argument: Python's own message, raised as such
                raise TypeError(f"{f.__qualname__}(): {e}") from None
            arguments = bound.arguments
            for name, value in arguments.items():
                dom = frozen.get(name)
                if dom is not None:
                    arguments[name] = dom(name, value)
            return f(*bound.args, **bound.kwargs)

        checked.__domains__ = frozen
        checked.__signature__ = sig
        return checked

    return wrap


def domains_of(f) -> MappingProxyType | None:
    """The declared domains of a public function (name -> :class:`Domain`), or None if it declares none.

    Parameters
    ----------
    f : callable
        The function, or a class (whose ``__init__`` declares them).

    Returns
    -------
    mappingproxy or None
        Its domains.
    """
    if isinstance(f, type):  # a class declares the domains of its constructor
        f = f.__init__
    return getattr(f, "__domains__", None)


# --------------------------------------------------------------------------- values the contract fuzz tries
_NOT_REAL = ("string", "list", "complex", "pycomplex", "bytearray", "bool")


def fuzz_categories(domain: Domain) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of the values the contract fuzz tries on a parameter of ``domain``.

    Parameters
    ----------
    domain : Domain
        The declared domain.

    Returns
    -------
    must_raise : tuple of str
        Values outside the domain: the call must raise :class:`~solvable.errors.InvalidParameterError` naming
        the parameter.
    edge : tuple of str
        Values inside it, at its edges (its ends, huge and tiny numbers, NumPy scalars, 0-d, read-only and
        non-contiguous arrays): the call may refuse them with a message, or must return finite numbers.

    Notes
    -----
    :func:`fuzz_value` builds each value from the name and the parameter's valid value.
    """
    kind, none = domain.kind, () if domain.nullable else ("none",)
    if kind == "real":
        low, high, low_open, high_open = domain.bounds
        must = ["nan", *_NOT_REAL, "huge_int", "masked", *none]
        edge = ["np_scalar", "zero_d"]
        must.append("neginf")
        must += ["inf"] if domain.finite else []
        edge += [] if domain.finite else ["inf"]
        if math.isfinite(low):
            must.append("below")
            (must if low_open else edge).append("low")
            edge.append("just_above_low")
        if math.isfinite(high):
            must.append("above")
            (must if high_open else edge).append("high")
        else:
            edge.append("huge")
        if domain.nullable:
            edge.append("none")
        return tuple(must), tuple(edge)
    if kind in ("int", "size"):
        minimum, maximum = domain.bounds[:2]
        must = [
            "below",
            "float",
            "bool",
            "string",
            "nan",
            "np_float",
            "bytearray",
            "huge_int",
            "zero_d_float",
            *none,
        ]
        if maximum is not None:
            must.append("above")
        edge = (
            ["low", "np_scalar", "zero_d"]
            + (["huge"] if kind == "size" else [])
            + (["none"] if domain.nullable else [])
        )
        return tuple(must), tuple(edge)
    if kind == "choice":
        return ("bad_choice", "int", "bytes", *none), ("upper",) + (("none",) if domain.nullable else ())
    if kind == "flag":
        return ("string", "int", "array", *none), ("np_bool",)
    if kind == "rng":
        return ("string", "float", "negative_seed", "legacy_rng", "bool", *none), (
            "seed_sequence",
            "bit_generator",
        )
    if kind == "array":
        ndim = domain.bounds[0]
        must = ["string", "complex_array", "masked", "object_array", *none]
        if domain.finite:
            must += ["nan_entry", "inf_entry"]
        if ndim is not None:
            must += ["ndim_plus", "ndim_minus"] if ndim > 0 else ["ndim_plus"]
        edge = ["read_only", "non_contiguous", "float32", "huge_entry"] + (
            ["none"] if domain.nullable else []
        )
        return tuple(must), tuple(edge)
    if kind == "dtype":
        return ("string", "int_dtype", "float16", "complex_dtype", *none), ("float32_name",)
    if kind == "object":
        return ("string", "int", "class", *none), ()
    if kind == "callable":
        return ("string", "int", *none), ()
    return (), ()


def fuzz_value(domain: Domain, category: str, valid):
    """The value of ``category`` (a name from :func:`fuzz_categories`) for a parameter whose valid value is ``valid``.

    Parameters
    ----------
    domain : Domain
        The declared domain.
    category : str
        The name of the value.
    valid : object
        A valid value of the parameter (the fuzz's valid call, or the parameter's default).

    Returns
    -------
    object
        The value to pass.
    """
    kind = domain.kind
    fixed = {
        "string": "abc",
        "none": None,
        "list": [0.5],
        "complex": np.complex128(0.5 + 0.0j),
        "pycomplex": 0.5 + 0.0j,
        "bytearray": bytearray(b"1"),
        "bool": True,
        "huge_int": 10**400,
        "nan": math.nan,
        "inf": math.inf,
        "neginf": -math.inf,
        "huge": 1e300,
        "bad_choice": "no-such-choice",
        "bytes": b"gaussian",
        "legacy_rng": np.random.RandomState(0),
        "negative_seed": -1,
        "seed_sequence": np.random.SeedSequence(0),
        "bit_generator": np.random.PCG64(0),
        "np_bool": np.True_,
        "class": type(valid),
        "float": 1.5,
        "np_float": np.float64(3.0),
        "zero_d_float": np.array(3.0),
    }
    if kind == "dtype" and category in ("int_dtype", "float16", "complex_dtype", "float32_name"):
        return {
            "int_dtype": np.int64,
            "float16": np.float16,
            "complex_dtype": np.complex128,
            "float32_name": "float32",
        }[category]
    if kind == "flag" and category in ("int", "array"):
        return 1 if category == "int" else np.array([True])
    if kind == "choice" and category == "int":
        return 3
    if kind in ("object", "callable") and category == "int":
        return 3
    if kind == "choice" and category == "upper":
        return str(valid).upper()
    if kind == "real":
        low, high, _, _ = domain.bounds
        if category == "masked":
            return np.ma.array(float(valid if valid is not None else 1.0), mask=True)
        if category == "below":
            return low - max(1.0, abs(low))
        if category == "above":
            return high + max(1.0, abs(high))
        if category == "low":
            return low
        if category == "high":
            return high
        if category == "just_above_low":
            return low + 1e-300 if low == 0 else np.nextafter(low, math.inf)
        if category == "np_scalar":
            return np.float64(valid)
        if category == "zero_d":
            return np.array(float(valid))
    if kind in ("int", "size"):
        minimum, maximum = domain.bounds[:2]
        table = {
            "below": lambda: minimum - 1,
            "above": lambda: (maximum or 0) + 1,
            "low": lambda: minimum,
            "np_scalar": lambda: np.int64(valid),
            "zero_d": lambda: np.array(valid, dtype=np.int64),
            "huge": lambda: 10**9,
            "nan": lambda: math.nan,
        }
        if category in table:
            return table[category]()
    if kind == "array":
        a = np.array(valid, dtype=float, copy=True)
        if category == "nan_entry" or category == "inf_entry" or category == "huge_entry":
            a.flat[a.size // 2] = {"nan_entry": np.nan, "inf_entry": np.inf, "huge_entry": 1e300}[category]
            return a
        if category == "complex_array":
            return a + 0j
        if category == "masked":
            return np.ma.masked_array(a, mask=np.zeros(a.shape, dtype=bool))
        if category == "object_array":
            return a.astype(object)
        if category == "ndim_plus":
            return a[None]
        if category == "ndim_minus":
            return a[0] if a.ndim else a
        if category == "read_only":
            a.flags.writeable = False
            return a
        if category == "non_contiguous":
            wide = np.repeat(a[..., None], 2, axis=-1)
            return wide[..., 0]
        if category == "float32":
            return a.astype(np.float32)
    return fixed[category]

"""Frozen records: the one shape of every result and data set of the library.

A result is a value: once a function has returned it, nothing can change it, and two results are equal when
their fields are. :func:`record` turns a class into such a value:

* a frozen :func:`dataclasses.dataclass` (assigning a field raises ``FrozenInstanceError``);
* every NumPy array field is stored as a read-only view (``result.history[0] = 1`` raises ``ValueError``), so
  that a result cannot be changed through its arrays either;
* ``==`` compares field by field (except those declared ``field(compare=False)``, such as wall-clock times),
  arrays by value (:func:`numpy.array_equal`, NaN equal to NaN), instead of
  NumPy's "truth value of an array is ambiguous"; records are not hashable (their arrays are not).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

__all__ = ["record", "freeze_array", "values_equal"]


def freeze_array(a: np.ndarray) -> np.ndarray:
    """Return a read-only view of ``a`` (``a`` itself if it is already read-only).

    Parameters
    ----------
    a : numpy.ndarray
        The array to protect.

    Returns
    -------
    numpy.ndarray
        A view of the same memory whose ``flags.writeable`` is False (no copy is made).
    """
    if not a.flags.writeable:
        return a
    view = a.view()
    view.flags.writeable = False
    return view


def values_equal(a, b) -> bool:
    """Whether two field values are equal: arrays by value, floats with NaN equal to NaN, others by ``==``.

    Parameters
    ----------
    a, b : object
        The two values.

    Returns
    -------
    bool
        True when they are equal.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
        except TypeError:   # equal_nan on non-numeric arrays
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def _freeze_fields(self) -> None:
    for f in dataclasses.fields(self):
        v = getattr(self, f.name)
        if isinstance(v, np.ndarray) and v.flags.writeable:
            object.__setattr__(self, f.name, freeze_array(v))
        elif isinstance(v, tuple) and any(isinstance(x, np.ndarray) and x.flags.writeable for x in v):
            object.__setattr__(self, f.name, tuple(freeze_array(x) if isinstance(x, np.ndarray) else x
                                                   for x in v))


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(values_equal(getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(self)
               if f.compare)


def record(cls=None, /, **kwargs):
    """Class decorator: a frozen dataclass with read-only arrays and value equality.

    Parameters
    ----------
    cls : type
        The class to decorate (the decorator may also be called with keyword arguments first).
    **kwargs
        Passed to :func:`dataclasses.dataclass` (``frozen=True`` and ``eq=False`` are always set; equality is
        the record's own).

    Returns
    -------
    type
        The decorated class. A ``__post_init__`` that the class defines runs first (it may convert or check
        fields with ``object.__setattr__``); the arrays are frozen after it.

    Examples
    --------
    >>> import numpy as np
    >>> @record
    ... class Run:
    ...     history: np.ndarray
    ...     converged: bool
    >>> a = Run(np.array([1.0, 0.5]), True)
    >>> a == Run(np.array([1.0, 0.5]), True)
    True
    >>> a.history.flags.writeable
    False
    """

    def wrap(c):
        kwargs.pop("frozen", None)
        kwargs.pop("eq", None)
        # the class's own __post_init__, or the one it inherits; the dataclass machinery only generates a call to
        # __post_init__ when one exists as it processes the class, so the wrapper is installed before that
        first = c.__dict__.get("__post_init__") or getattr(c, "__post_init__", None)

        def __post_init__(self):
            if first is not None:
                first(self)
            _freeze_fields(self)

        __post_init__.__doc__ = getattr(first, "__doc__", None)
        __post_init__.__wrapped_post_init__ = first
        c.__post_init__ = __post_init__
        c = dataclasses.dataclass(frozen=True, eq=False, **kwargs)(c)
        c.__eq__ = _eq
        c.__hash__ = None
        return c

    return wrap if cls is None else wrap(cls)

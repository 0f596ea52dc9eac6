"""Frozen records: the one shape of every result and data set of the library.

A result is a value: once a function has returned it, nothing can change it, and two results are equal when
their fields are. :func:`record` turns a class into such a value:

* a frozen :func:`dataclasses.dataclass` (assigning a field raises ``FrozenInstanceError``);
* every NumPy array field (also inside a tuple field) is stored as a read-only view of memory that only the record
  holds (``result.history[0] = 1`` raises ``ValueError``): an array the caller could still write to is copied, so
  that writing the caller's array never changes the record, and an array nobody else holds is kept without a copy
  (see :func:`record` for which);
* records stay frozen through ``pickle``, ``copy.copy``, ``copy.deepcopy`` and joblib's process workers
  (its memory-mapped arrays included): the arrays come back read-only, and equal to the original's;
* ``==`` compares field by field (except those declared ``field(compare=False)``, such as wall-clock times),
  arrays by value (:func:`numpy.array_equal`, NaN equal to NaN), instead of
  NumPy's "truth value of an array is ambiguous"; records are not hashable (their arrays are not).
"""

from __future__ import annotations

import contextvars
import dataclasses
import math
import weakref

import numpy as np

__all__ = ["record", "adopt", "freeze_array", "values_equal"]

#: The read-only views this module made of memory only records hold: ``id -> view`` (weak, so that a view dies with
#: its record). An array found here is shared between records without a copy.
_FROZEN: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
#: ``id``s of the arrays a caller hands over to the record being built (:func:`adopt`).
_ADOPTED: contextvars.ContextVar = contextvars.ContextVar("solvable_results_adopted", default=frozenset())


def freeze_array(a: np.ndarray) -> np.ndarray:
    """Return a read-only view of ``a`` (``a`` itself if it is already read-only).

    Parameters
    ----------
    a : numpy.ndarray
        The array to protect.

    Returns
    -------
    numpy.ndarray
        A view of the same memory whose ``flags.writeable`` is False (no copy is made: whoever holds ``a`` can still
        write to it; a record stores a private copy instead, see :func:`record`).
    """
    if not a.flags.writeable:
        return a
    view = a.view()
    view.flags.writeable = False
    return view


def _is_ours(a: np.ndarray) -> bool:
    """Whether ``a`` is a view this module made of memory only records hold."""
    return _FROZEN.get(id(a)) is a


def _immutable(a: np.ndarray) -> bool:
    """Whether nobody can write to ``a``'s memory: every array down to the owner of the memory is read-only, and the
    owner is a read-only buffer (``bytes``, a read-only memory map). An ndarray that owns its memory is not
    immutable: its holder may set ``flags.writeable`` back to True."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    if a is None:
        return False
    try:
        return memoryview(a).readonly
    except TypeError:
        return False


def _seal(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``, whose memory nobody else holds (``a`` and the arrays it views made read-only in
    place too, so that the view's flag cannot be set back), registered as this module's."""
    base = a
    while isinstance(
        base, np.ndarray
    ):  # the array and every array it is a view of (their memory is the record's)
        if base.flags.writeable:
            base.flags.writeable = False
        base = base.base
    view = a.view()
    view.flags.writeable = False
    _FROZEN[id(view)] = view
    return view


def _caller_arrays(value, out: list) -> list:
    """The ndarrays in ``value`` (itself, or inside tuples and lists), appended to ``out``."""
    if isinstance(value, np.ndarray):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for x in value:
            _caller_arrays(x, out)
    return out


def _private(a: np.ndarray, given: list | None) -> np.ndarray:
    """``a`` as a record stores it: a read-only view of memory that only records hold.

    No copy when ``a`` is already a record's array, when its memory is immutable (a read-only memory map), when the
    caller hands it over (:func:`adopt`, an unpickled or deep-copied record), or when ``__post_init__`` made it and
    it shares no memory with an array the caller passed (``given``; None: every array is handed over). Otherwise
    the caller may still write to it: it is copied."""
    if _is_ours(a) or _immutable(a):
        return a
    if given is None or id(a) in _ADOPTED.get():
        return _seal(a)
    if not any(a is g for g in given) and not any(np.may_share_memory(a, g) for g in given):
        return _seal(a)  # made by __post_init__ (a conversion, a default): nobody else holds it
    return _seal(np.array(a, copy=True, subok=False))


def _freeze_value(value, given):
    if isinstance(value, np.ndarray):
        return _private(value, given)
    if isinstance(value, tuple) and any(isinstance(x, (np.ndarray, tuple)) for x in value):
        frozen = tuple(_freeze_value(x, given) for x in value)
        if all(x is y for x, y in zip(frozen, value)):
            return value
        return type(value)(*frozen) if hasattr(value, "_fields") else type(value)(frozen)
    return value


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
        except TypeError:  # equal_nan on non-numeric arrays
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def _freeze_fields(self, given: list | None) -> None:
    """Store every array field (also inside tuples) as :func:`_private` makes it; ``given``: the caller's arrays."""
    for f in dataclasses.fields(self):
        v = getattr(self, f.name)
        frozen = _freeze_value(v, given)
        if frozen is not v:
            object.__setattr__(self, f.name, frozen)


def _restore(cls, state: dict):
    """Rebuild a record from its pickled fields without running ``__init__`` (the checks passed when it was made):
    the arrays are fresh copies nobody else holds (unpickled, deep-copied) or the original's own read-only ones
    (``copy.copy``), or read-only memory maps (joblib); each is stored read-only without another copy."""
    obj = cls.__new__(cls)
    for name, value in state.items():
        object.__setattr__(obj, name, value)
    _freeze_fields(obj, None)
    return obj


def _reduce(self):
    """Pickle (and ``copy``) a record as its class and fields, rebuilt by :func:`_restore` (read-only again)."""
    state = dict(getattr(self, "__dict__", {}))
    for f in dataclasses.fields(self):
        state[f.name] = getattr(self, f.name)
    return _restore, (self.__class__, state)


def adopt(cls, /, **fields):
    """Build the record ``cls(**fields)`` from arrays the caller hands over, without copying them.

    Parameters
    ----------
    cls : type
        A class decorated with :func:`record`.
    **fields
        Its fields. Every NumPy array among them (also inside tuples) is made read-only in place: the caller gives
        up writing to it (a sampler's or an algorithm's fresh arrays).

    Returns
    -------
    object
        The record.

    Notes
    -----
    Built directly, a record copies each array its caller could still write to (the caller holds it); ``adopt``
    spares that copy where nobody else holds the array.
    """
    arrays = []
    for value in fields.values():
        _caller_arrays(value, arrays)
    for a in arrays:
        if a.flags.writeable:
            a.flags.writeable = False
    token = _ADOPTED.set(_ADOPTED.get() | {id(a) for a in arrays})
    try:
        return cls(**fields)
    finally:
        _ADOPTED.reset(token)


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(
        values_equal(getattr(self, f.name), getattr(other, f.name))
        for f in dataclasses.fields(self)
        if f.compare
    )


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

    Notes
    -----
    Each array field, also inside a tuple field, is stored as a read-only view of memory that only records hold,
    so that nothing but the record's own code can change it. An array is copied once when its caller may still
    write to it: an array the caller passed (or a view of one), writeable or not (the owner of a read-only array
    may set it writeable again). It is kept without a copy when nobody else can write to it: an array
    ``__post_init__`` made (a conversion to float, a default), another record's array, a read-only memory map,
    the arrays of :func:`adopt` (handed over by their caller), and those of a record rebuilt by ``pickle`` or
    ``copy``. The copy costs one ``memcpy`` of each array the caller passed (for a result, a small fraction of
    the run that computed it) and, for a moment, twice its memory.

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
            given = []  # the arrays the caller passed: the caller may still hold them
            for f in dataclasses.fields(self):
                _caller_arrays(getattr(self, f.name), given)
            if first is not None:
                first(self)
            _freeze_fields(self, given)

        __post_init__.__doc__ = getattr(first, "__doc__", None)
        __post_init__.__wrapped_post_init__ = first
        c.__post_init__ = __post_init__
        c = dataclasses.dataclass(frozen=True, eq=False, **kwargs)(c)
        c.__eq__ = _eq
        c.__hash__ = None
        c.__reduce__ = _reduce
        return c

    return wrap if cls is None else wrap(cls)

"""The one data-set type of the library: what every model's ``sample`` returns and every algorithm reads.

Every model of the course observes a teacher's signal through inputs ``X`` and labels ``y``; a model's data
set adds its teacher (``w_star``, ``S_star`` and its factors) and says what ``d`` and the sample ratio ``alpha``
are for it. :class:`Dataset` holds what is common: the checks (real, finite, non-empty arrays; ``ValueError``
naming the array), read-only arrays and value equality (it is a :func:`~solvable.results.record`), and the
properties ``n``, ``d`` and ``alpha``.

A model subclasses it with its teacher fields, decorated with :func:`~solvable.results.record` too, and
overrides ``Dataset._check`` for its shapes, :attr:`Dataset.d` and :attr:`Dataset.alpha` where they differ.
Teachers are stored with the ambient dimension first: ``(d,)`` or ``(d, width)``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field

import numpy as np

from .domains import Domain, declare
from .errors import InvalidParameterError
from .results import adopt, record
from .validation import all_finite

__all__ = ["Dataset", "check_dataset"]


@record
class Dataset:
    """Inputs and labels of a teacher-student data set (the base of every model's ``Dataset``).

    Parameters
    ----------
    X : array_like
        The inputs, one sample per entry of the first axis: ``(n, d)`` for a vector model, ``(n, d, L)`` or
        ``(n, T, d)`` for sequences.
    y : array_like
        The labels, one per sample: ``(n,)``, or ``(n, T, T)`` for attention outputs.

    Attributes
    ----------
    n : int
        Number of samples.
    d : int
        Dimension of the teacher's signal (the last axis of ``X`` unless a model says otherwise).
    alpha : float
        Sample ratio: ``n / d`` here; a model with another scaling (``n / d^2``, ``n / (d L)``) overrides it.

    Raises
    ------
    TypeError
        If ``X``, ``y`` or a teacher field is not an array of real numbers.
    ValueError
        If an array is empty, holds a NaN or an infinity, or the shapes do not match (the message names it).

    Notes
    -----
    Arrays are stored as read-only float arrays that only the data set holds (a private copy of an array the caller
    may still write to, see :func:`~solvable.results.record`; none from :meth:`adopt`); two data sets are equal when
    every field is equal.
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)

    def __post_init__(self):
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in ("np.ndarray", np.ndarray) or isinstance(v, np.ndarray):
                object.__setattr__(self, f.name, _real_array(f.name, v))
        if self.X.ndim < 2 or self.X.shape[0] < 1 or self.X.size == 0:
            raise InvalidParameterError(
                f"X must hold n >= 1 samples of at least one dimension, got shape {self.X.shape}"
            )
        if self.y.ndim < 1 or self.y.shape[0] != self.X.shape[0]:
            raise InvalidParameterError(
                f"y must hold one label per sample of X ({self.X.shape[0]}), got shape {self.y.shape}"
            )
        self._check()

    @classmethod
    def adopt(cls, **fields):
        """Build a data set from arrays the caller hands over, without copying them.

        Parameters
        ----------
        **fields
            The fields of the data set. Every NumPy array among them is made read-only in place: the caller gives
            up writing to it (a sampler's fresh arrays).

        Returns
        -------
        Dataset
            The data set (of the class ``adopt`` is called on).

        Notes
        -----
        Built directly, a data set copies each array that its caller could still write to, so that changing the
        caller's array never changes the data set; ``adopt`` (:func:`solvable.results.adopt`) spares that copy
        where nobody else holds the array.
        """
        return adopt(cls, **fields)

    def _check(self) -> None:
        """Model-specific checks of the shapes (raise ``ValueError`` naming the field); none in the base."""

    @property
    def n(self) -> int:
        """Number of samples."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """Dimension of the signal: the last axis of ``X`` (a model overrides it where it differs)."""
        return int(self.X.shape[-1])

    @property
    def alpha(self) -> float:
        """Sample ratio ``n / d`` (a model with another scaling overrides it)."""
        return self.n / self.d


def _real_array(name: str, value) -> np.ndarray:
    if value is None or isinstance(value, (str, bytes, bytearray)):
        raise InvalidParameterError(f"{name} must be an array of real numbers, got {value!r:.60}")
    a = np.asarray(value)
    if a.dtype.kind not in "biuf":
        raise InvalidParameterError(f"{name} must be an array of real numbers, got dtype {a.dtype}")
    # no copy here: the record copies an array the caller may still write to (results.record), and keeps one
    # made here (a conversion to float) or handed over (Dataset.adopt) as it is
    a = a.astype(float, copy=False)
    if a.size and not all_finite(a):
        raise InvalidParameterError(f"{name} must contain finite numbers only (no NaN or inf)")
    return a


def _check_dataset_class(name, value):
    if not (isinstance(value, type) and issubclass(value, Dataset)):
        raise InvalidParameterError(
            f"{name} must be a subclass of solvable.dataset.Dataset (a model's Dataset), got "
            f"{type(value).__name__} {value!r:.60}"
        )
    return value


def _check_name(name, value):
    if not isinstance(value, str) or not value:
        raise InvalidParameterError(
            f"{name} must be a non-empty string (a parameter's name), got {value!r:.60}"
        )
    return value


@declare(
    data=Domain("an instance of cls (checked by check_dataset, naming `name`)", lambda name, v: v, "object"),
    cls=Domain("a subclass of solvable.dataset.Dataset", _check_dataset_class, "object"),
    name=Domain("a non-empty string", _check_name, "any"),
)
def check_dataset(data, cls: type, *, name: str = "data"):
    """Return ``data`` if it is an instance of ``cls``, else raise ``TypeError`` naming ``name``.

    Parameters
    ----------
    data : object
        The argument to check.
    cls : type
        The data-set class the algorithm reads (a model's ``Dataset``).
    name : str, optional
        The parameter's name, for the message.

    Returns
    -------
    Dataset
        ``data`` itself.

    Raises
    ------
    TypeError
        If ``data`` is not a ``cls`` (for example another model's data set, or a string).
    """
    if not isinstance(data, cls):
        raise InvalidParameterError(
            f"{name} must be a {cls.__module__}.{cls.__qualname__} (from that model's "
            f"sample()), got {type(data).__module__}.{type(data).__qualname__}"
        )
    return data

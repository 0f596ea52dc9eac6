"""Finite-size experiments: repeat one run over a grid of parameters and independent seeds.

Every "theory vs algorithm" figure of the course is a :func:`sweep`: a function ``run(value, rng)`` (draw a
teacher and data at this value of the parameter, run an algorithm, return its error) repeated over ``values`` and
``n_seeds`` independent generators spawned from one ``rng``. Each run is kept as a :class:`Run` record (value,
seed, error, iterations, converged, seconds), and the sweep is summarised by the mean and the standard error of
the mean over seeds (:func:`mean_se`).

References
----------
Every chapter's figures of theory against experiment, e.g. Chapter 1, Sec. "The algorithm: GAMP follows state
evolution".
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from collections.abc import Callable, Sequence

import numpy as np

from .results import record
from .validation import check_array, check_int, check_rng

__all__ = ["Run", "Sweep", "sweep", "mean_se", "MAX_RUNS"]

#: The most runs one sweep will start (a figure of the course needs a few hundred).
MAX_RUNS = 10**6


def mean_se(values, axis=None):
    """Mean and standard error of the mean, ``std(ddof=1) / sqrt(n)``, over ``axis``.

    Parameters
    ----------
    values : array_like
        Independent measurements (finite numbers).
    axis : int, optional
        The axis along which the measurements are repeated (default: all of them).

    Returns
    -------
    tuple
        ``(mean, se)``: floats when ``axis`` is None, arrays otherwise. The standard error is 0 for a single
        measurement (there is no spread to estimate).

    Raises
    ------
    ValueError
        If there is no measurement or a value is not finite.

    Notes
    -----
    ``se = sqrt(sum_i (v_i - mean)^2 / (n (n - 1)))``: the standard deviation of the mean of ``n``
    independent draws, estimated from their spread. A point of a figure within about two standard errors of its
    theory agrees with it.

    References
    ----------
    Every chapter's figures of theory against experiment.
    """
    v = check_array("values", values, ndim=None)
    n = v.size if axis is None else v.shape[axis]
    if n == 0:
        raise ValueError("values must hold at least one measurement")
    scale = float(np.max(np.abs(v))) or 1.0   # computed on v / scale: values near the float limit do not overflow
    mean = v.mean(axis=axis) if scale <= 1.0 else (v / scale).mean(axis=axis) * scale
    se = (v / scale).std(axis=axis, ddof=1) * (scale / math.sqrt(n)) if n > 1 else np.zeros_like(mean)
    if axis is None:
        return float(mean), float(se)
    return mean, se


@record
class Run:
    """One run of a :func:`sweep`.

    Parameters
    ----------
    value : float
        The value of the swept parameter.
    seed : int
        The index of the run's generator among the children of the sweep's ``rng``.
    error : float
        What the run measured (its error, overlap, ...).
    iterations : int or None
        Iterations the algorithm took, when the run returned a result that says so.
    converged : bool or None
        Whether it met its tolerance, when the run returned a result that says so.
    seconds : float
        Wall-clock time of the run (not compared by ``==``: two equal runs may take different times).
    """

    value: float
    seed: int
    error: float
    iterations: int | None
    converged: bool | None
    seconds: float = dataclasses.field(default=0.0, compare=False)


@record
class Sweep:
    """Results of :func:`sweep`: the runs at every value, with their mean and standard error over seeds.

    Parameters
    ----------
    values : array of shape (k,)
        The values of the swept parameter.
    runs : array of shape (k, n_seeds)
        ``runs[i, s]`` is the error of run ``s`` at ``values[i]``.
    iterations : array of shape (k, n_seeds)
        Iterations of each run (-1 where the run did not report them).
    converged : array of shape (k, n_seeds)
        Whether each run met its tolerance (True where the run did not report it).
    seconds : array of shape (k, n_seeds)
        Wall-clock time of each run (not compared by ``==``).
    """

    values: np.ndarray
    runs: np.ndarray
    iterations: np.ndarray = None
    converged: np.ndarray = None
    seconds: np.ndarray = dataclasses.field(default=None, compare=False)

    def __post_init__(self):
        shape = np.shape(self.runs)
        if self.iterations is None:
            object.__setattr__(self, "iterations", np.full(shape, -1))
        if self.converged is None:
            object.__setattr__(self, "converged", np.ones(shape, dtype=bool))
        if self.seconds is None:
            object.__setattr__(self, "seconds", np.zeros(shape))

    @property
    def mean(self) -> np.ndarray:
        """Mean over seeds, shape (k,)."""
        return self.runs.mean(axis=1)

    @property
    def sem(self) -> np.ndarray:
        """Standard error of the mean over seeds, ``std(ddof=1) / sqrt(n_seeds)``, shape (k,) (0 with one seed)."""
        return mean_se(self.runs, axis=1)[1]

    @property
    def n_seeds(self) -> int:
        """Independent runs per value."""
        return self.runs.shape[1]

    @property
    def all_converged(self) -> bool:
        """Whether every run met its tolerance."""
        return bool(np.all(self.converged))

    def records(self) -> list[Run]:
        """Every run as a :class:`Run`, value by value then seed by seed.

        Returns
        -------
        list of Run
            ``len(values) * n_seeds`` records.
        """
        out = []
        for i, v in enumerate(self.values):
            for s in range(self.n_seeds):
                it = int(self.iterations[i, s])
                out.append(Run(value=float(v), seed=i * self.n_seeds + s, error=float(self.runs[i, s]),
                               iterations=None if it < 0 else it, converged=bool(self.converged[i, s]),
                               seconds=float(self.seconds[i, s])))
        return out


def _measure(outcome):
    """``(error, iterations, converged)`` of what a run returned: a number, or a result with ``.error``."""
    if isinstance(outcome, (numbers.Real, np.floating, np.integer)) and not isinstance(outcome, (bool, np.bool_)):
        return float(outcome), -1, True
    if hasattr(outcome, "error"):
        error = outcome.error
        iterations = getattr(outcome, "iterations", -1)
        converged = getattr(outcome, "converged", True)
        if isinstance(error, (numbers.Real, np.floating, np.integer)):
            return float(error), int(np.max(iterations)) if iterations is not None else -1, bool(np.all(converged))
    raise TypeError(f"run must return a number or a result with a numeric .error, got {type(outcome).__name__}")


def sweep(run: Callable[[float, np.random.Generator], float], values: Sequence[float], n_seeds: int, *,
          rng) -> Sweep:
    """Evaluate ``run(value, child_rng)`` for every value and ``n_seeds`` independent child generators.

    The children come from ``rng.spawn``: the whole sweep is reproducible from one seed, and each
    ``(value, seed)`` run is independent of the others.

    Parameters
    ----------
    run : callable
        ``run(value, rng)``: draws a teacher and data at ``value`` with the generator ``rng``, runs an algorithm
        and returns a number (an error, an overlap, ...) or a result with a numeric ``error`` (and, where it has
        them, ``iterations`` and ``converged``, kept in the sweep).
    values : sequence of float
        The values of the swept parameter (one-dimensional).
    n_seeds : int
        Independent runs per value, >= 1; ``len(values) * n_seeds`` is at most :data:`MAX_RUNS`.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        The source of every child generator (SPEC 7; None is refused, so that every sweep is reproducible).

    Returns
    -------
    Sweep
        The values and the ``(len(values), n_seeds)`` arrays of errors, iterations, convergence flags and times,
        with ``mean``, ``sem`` and :meth:`Sweep.records`.

    Raises
    ------
    TypeError
        If ``run`` is not callable or returns neither a number nor a result, or ``n_seeds`` or ``rng`` has the
        wrong type.
    ValueError
        If ``n_seeds`` < 1, ``values`` is not a finite one-dimensional array, or the sweep asks for more than
        :data:`MAX_RUNS` runs.
    """
    if not callable(run):
        raise TypeError(f"run must be callable, got {run!r}")
    rng = check_rng(rng)
    n_seeds = check_int("n_seeds", n_seeds)
    values = check_array("values", values, ndim=1)
    if len(values) * n_seeds > MAX_RUNS:
        raise ValueError(f"n_seeds = {n_seeds} at {len(values)} values asks for {len(values) * n_seeds:.1e} runs, "
                         f"more than {MAX_RUNS:.0e}: reduce n_seeds or values")
    # one child at a time: SeedSequence.spawn numbers its children in order, so these are the children of one
    # rng.spawn(len(values) * n_seeds), without holding all of them (about 1 kB each) at once
    shape = (len(values), n_seeds)
    runs, iterations = np.empty(shape), np.full(shape, -1)
    converged, seconds = np.ones(shape, dtype=bool), np.empty(shape)
    for i, v in enumerate(values):
        for s in range(n_seeds):
            t0 = time.perf_counter()
            outcome = run(v, rng.spawn(1)[0])
            seconds[i, s] = time.perf_counter() - t0
            runs[i, s], iterations[i, s], converged[i, s] = _measure(outcome)
    return Sweep(values=values, runs=runs, iterations=iterations, converged=converged, seconds=seconds)

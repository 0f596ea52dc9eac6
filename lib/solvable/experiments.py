"""Finite-size experiments: repeat one run over a grid of parameters and independent seeds.

Every "theory vs algorithm" figure of the course is a :func:`sweep`: a function ``run(value, rng) -> float``
(draw a teacher and data at this value of the parameter, run an algorithm, return its error), repeated
over ``values`` and ``n_seeds`` independent generators spawned from one ``rng``, summarised by the mean
and the standard error of the mean.

References
----------
Every chapter's figures of theory against experiment, e.g. Chapter 1, Sec. "The algorithm: GAMP follows state
evolution".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .results import record
from .validation import check_array, check_int, check_rng

__all__ = ["Sweep", "sweep", "MAX_RUNS"]

#: The most runs one sweep will start (a figure of the course needs a few hundred).
MAX_RUNS = 10**6


@record
class Sweep:
    """Results of :func:`sweep`: the runs at every value, with their mean and standard error over seeds.

    Parameters
    ----------
    values : array of shape (k,)
        The values of the swept parameter.
    runs : array of shape (k, n_seeds)
        ``runs[i, s]`` is ``run(values[i], rng_s)`` for the ``s``-th child generator of value ``i``.
    """

    values: np.ndarray
    runs: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        """Mean over seeds, shape (k,)."""
        return self.runs.mean(axis=1)

    @property
    def sem(self) -> np.ndarray:
        """Standard error of the mean over seeds, ``std(ddof=1) / sqrt(n_seeds)``, shape (k,) (0 with one seed)."""
        n = self.runs.shape[1]
        return self.runs.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(len(self.values))


def sweep(run: Callable[[float, np.random.Generator], float], values: Sequence[float], n_seeds: int, *,
          rng) -> Sweep:
    """Evaluate ``run(value, child_rng)`` for every value and ``n_seeds`` independent child generators.

    The children come from ``rng.spawn``: the whole sweep is reproducible from one seed, and each
    ``(value, seed)`` run is independent of the others.

    Parameters
    ----------
    run : callable
        ``run(value, rng) -> float``: draws a teacher and data at ``value`` with the generator ``rng``, runs an
        algorithm and returns a number (an error, an overlap, ...).
    values : sequence of float
        The values of the swept parameter (one-dimensional).
    n_seeds : int
        Independent runs per value, >= 1; ``len(values) * n_seeds`` is at most :data:`MAX_RUNS`.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        The source of every child generator (SPEC 7; None is refused, so that every sweep is reproducible).

    Returns
    -------
    Sweep
        The values and the ``(len(values), n_seeds)`` array of runs, with ``mean`` and ``sem``.

    Raises
    ------
    TypeError
        If ``run`` is not callable, or ``n_seeds`` or ``rng`` has the wrong type.
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
    runs = np.array([[run(v, rng.spawn(1)[0]) for _ in range(n_seeds)] for v in values])
    return Sweep(values=values, runs=runs)

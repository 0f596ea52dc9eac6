"""Finite-size experiments: repeat one run over a grid of parameters and independent seeds.

Every "theory vs algorithm" figure of the course is a :func:`sweep`: a function ``run(value, rng)`` (draw a
teacher and data at this value of the parameter, run an algorithm, return its error) repeated over ``values`` and
``n_seeds`` independent generators spawned from one ``rng``. Each run is kept as a :class:`Run` record (value,
seed, error, iterations, converged, seconds), and the sweep is summarised by the mean and the standard error of
the mean over seeds (:func:`mean_se`). Where a run returns more than one number (a whole result, a trajectory, a
data set), :func:`grid` repeats ``run(*point, rng)`` over any points and keeps what each run returned, and
:func:`repeat` does the same without a parameter; both hand out the children of ``rng`` in the same order as
:func:`sweep`.

The runs are independent, so they can run side by side: :func:`parallel_map` (which :func:`sweep` uses) hands them
to joblib, on the cores of this machine (``n_jobs``) or on a Dask cluster through joblib's Dask backend. Every run
receives its own child generator, spawned in order in the calling process, so the results do not depend on the
number of workers or on where they run.

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
from collections.abc import Callable, Iterable, Sequence

import joblib
import numpy as np

from .config import check_jobs, max_jobs
from .domains import Domain, array, declare, flag, function, integer, optional, unchecked
from .errors import InvalidParameterError
from .results import record

__all__ = ["Run", "Sweep", "sweep", "grid", "repeat", "parallel_map", "mean_se", "MAX_RUNS"]

#: The most runs one sweep will start (a figure of the course needs a few hundred).
MAX_RUNS = 10**6

#: Worker processes: ``-1`` (every core) or ``1 .. config.max_jobs()`` (:func:`solvable.config.check_jobs`), or None
#: (one after the other in this process, unless a ``joblib.parallel_config`` says otherwise).
JOBS = optional(
    Domain(
        f"-1 (every core) or an integer in [1, {max_jobs()}]",
        check_jobs,
        "int",
        (-1, max_jobs(), False, False),
    ),
    "one after the other, in this process",
)


@declare(values=array(), axis=optional(integer(-64, 63), "every axis"))
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

    Examples
    --------
    >>> from solvable.experiments import mean_se
    >>> mean_se([0.30, 0.34, 0.32, 0.28])  # one number per independent data set
    (0.31, 0.0129...)
    >>> import numpy as np
    >>> runs = np.array([[1.0, 0.5, 0.25], [1.2, 0.7, 0.27]])  # (data set, iteration)
    >>> mean, se = mean_se(runs, axis=0)  # one point per iteration, over the data sets
    >>> mean.round(3), se.round(3)
    (array([1.1 , 0.6 , 0.26]), array([0.1 , 0.1 , 0.01]))
    """
    v = values
    if axis is not None:
        if (
            isinstance(axis, (bool, np.bool_))
            or not isinstance(axis, numbers.Integral)
            or not -v.ndim <= int(axis) < v.ndim
        ):
            raise InvalidParameterError(
                f"axis must be None or an integer in [-{v.ndim}, {v.ndim - 1}] (an axis of "
                f"values, of shape {v.shape}), got {axis!r}"
            )
        axis = int(axis)
    n = v.size if axis is None else v.shape[axis]
    if n == 0:
        raise InvalidParameterError("values must hold at least one measurement")
    # computed on v / scale, one scale per slice: values near the float limit do not overflow, and a slice of tiny
    # values keeps its own spread. The scale is a power of two, so v / scale and the products by it are exact.
    scale = np.max(np.abs(v), axis=axis, keepdims=True)
    scale = np.ldexp(1.0, np.frexp(np.where(scale > 0, scale, 1.0))[1] - 1)  # 2^k <= max |v| < 2^(k+1)
    mean = (v / scale).mean(axis=axis, keepdims=True) * scale
    se = (
        (v / scale).std(axis=axis, ddof=1, keepdims=True) / math.sqrt(n) * scale
        if n > 1
        else np.zeros_like(mean)
    )
    if axis is None:
        return float(mean.reshape(())), float(se.reshape(()))
    return np.squeeze(mean, axis=axis), np.squeeze(se, axis=axis)


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
                out.append(
                    Run(
                        value=float(v),
                        seed=i * self.n_seeds + s,
                        error=float(self.runs[i, s]),
                        iterations=None if it < 0 else it,
                        converged=bool(self.converged[i, s]),
                        seconds=float(self.seconds[i, s]),
                    )
                )
        return out


def _measure(outcome):
    """``(error, iterations, converged)`` of what a run returned: a number, or a result with ``.error``."""
    if isinstance(outcome, (numbers.Real, np.floating, np.integer)) and not isinstance(
        outcome, (bool, np.bool_)
    ):
        return float(outcome), -1, True
    if hasattr(outcome, "error"):
        error = outcome.error
        iterations = getattr(outcome, "iterations", -1)
        converged = getattr(outcome, "converged", True)
        if isinstance(error, (numbers.Real, np.floating, np.integer)):
            return (
                float(error),
                int(np.max(iterations)) if iterations is not None else -1,
                bool(np.all(converged)),
            )
    raise InvalidParameterError(
        f"run must return a number or a result with a numeric .error, got {type(outcome).__name__}"
    )


@declare(function=function(), jobs=unchecked("an iterable of arguments, consumed in order"), n_jobs=JOBS)
def parallel_map(function: Callable, jobs: Iterable, *, n_jobs: int | None = None) -> list:
    """``[function(job) for job in jobs]``, the jobs run side by side by joblib.

    The one way the course runs independent computations in parallel: :func:`sweep` uses it, and so do the
    chapters and the reproductions for runs that return more than one number.

    Parameters
    ----------
    function : callable
        Applied to each job. With several workers it travels to them by ``cloudpickle`` (a function defined in a
        notebook works), and so does each job and each return value.
    jobs : iterable
        The arguments, one per call; consumed in order in this process as workers become free, so a generator
        that spawns a child ``rng`` per job gives every job the same child whatever the number of workers.
    n_jobs : int, optional
        Workers: None (the default) runs the jobs one after the other in this process, unless the caller is
        inside a ``joblib.parallel_config(n_jobs=...)`` block; ``k`` in ``1 .. config.max_jobs()`` runs ``k``
        worker processes, ``-1`` one per core (other values are refused: :func:`solvable.config.check_jobs`).
        Inside ``joblib.parallel_config(backend="dask")`` the jobs go to the workers of the active
        ``dask.distributed.Client``: pass ``-1`` there for every worker of the cluster.

    Returns
    -------
    list
        The results, in the order of ``jobs``.

    Raises
    ------
    TypeError
        If ``function`` is not callable or ``n_jobs`` is neither None nor an integer.
    ValueError
        If ``n_jobs`` is neither -1 nor in ``1 .. config.max_jobs()``.

    Notes
    -----
    joblib's process workers (its default ``loky`` backend) each run ``cores / n_jobs`` BLAS threads, so that
    ``n_jobs`` workers do not oversubscribe the cores. Results are those of the sequential loop bit for bit when
    every job draws only from the generator it was given; warnings raised inside worker processes are not
    shown in the caller. An error in a job is raised again in the caller.

    References
    ----------
    joblib, https://joblib.readthedocs.io (``Parallel``, ``parallel_config``); its Dask backend,
    https://docs.dask.org/en/stable/deploying-python.html.

    Examples
    --------
    >>> from solvable import glm
    >>> from solvable.experiments import parallel_map
    >>> errors = parallel_map(glm.bayes_gen_error, [1.0, 2.0, 4.0])
    >>> print([round(e, 4) for e in errors])
    [0.2544, 0.1745, 0.1023]
    """
    return joblib.Parallel(n_jobs=n_jobs)(joblib.delayed(function)(job) for job in jobs)


def _is_count(c) -> bool:
    return (
        isinstance(c, (numbers.Integral, np.integer))
        and not isinstance(c, (bool, np.bool_))
        and 1 <= c <= MAX_RUNS
    )


def _check_counts(name: str, value):
    """An integer >= 1, or a list of them (one per point)."""
    if _is_count(value):
        return int(value)
    if (
        isinstance(value, (list, tuple, np.ndarray))
        and np.ndim(value) == 1
        and len(value)
        and all(_is_count(c) for c in value)
    ):
        return [int(c) for c in value]
    raise InvalidParameterError(f"{name} must be {COUNTS.text}, got {value!r:.60}")


#: Runs per point of a :func:`grid`.
COUNTS = Domain(
    f"an integer in [1, {MAX_RUNS}], or a list of such integers (one per point)",
    _check_counts,
    "int",
    (1, MAX_RUNS, False, False),
)


def _counts(points: list, n_seeds) -> list[int]:
    """Runs per point: ``n_seeds`` repeated, or one count per point."""
    counts = [n_seeds] * len(points) if isinstance(n_seeds, int) else n_seeds
    if len(counts) != len(points):
        raise InvalidParameterError(
            f"n_seeds: {len(counts)} counts for {len(points)} points (one per point, or one integer for all)"
        )
    if sum(counts) > MAX_RUNS:
        raise InvalidParameterError(
            f"n_seeds asks for {sum(counts):.1e} runs at {len(points)} points, more than "
            f"{MAX_RUNS:.0e}: reduce n_seeds or points"
        )
    return counts


def _call(run, point, rng):
    return run(*point, rng) if isinstance(point, tuple) else run(point, rng)


def _check_points(name: str, value):
    """A non-empty sequence (list, tuple, range or array), as a list."""
    if isinstance(value, (list, tuple, range, np.ndarray)) and np.ndim(value) >= 1 and len(value):
        return list(value)
    raise InvalidParameterError(f"{name} must be {POINTS.text}, got {value!r:.60}")


#: The points of a :func:`grid`.
POINTS = Domain(
    "a non-empty list, tuple, range or array of points (a tuple point is unpacked into run's arguments)",
    _check_points,
    "object",
)


@declare(run=function(), points=POINTS, n_seeds=COUNTS, nested=flag(), n_jobs=JOBS)
def grid(
    run: Callable, points: Sequence, n_seeds, *, rng, nested: bool = False, n_jobs: int | None = None
) -> list[list]:
    """Run ``run(*point, child_rng)`` ``n_seeds`` times at every point, each time with its own child of ``rng``.

    :func:`sweep` for runs that return anything (a result record, a trajectory, several numbers) and points that
    are tuples of parameters: what each run returned is kept, in order, for the caller to summarise.

    Parameters
    ----------
    run : callable
        ``run(*point, rng)`` if the point is a tuple, ``run(point, rng)`` otherwise: draws its data with the
        generator ``rng`` (and, from it, whatever else it draws) and returns anything that can travel back from a
        worker process (picklable).
    points : sequence
        The points, in order (a tuple of parameters, a number, a data set, ...).
    n_seeds : int or sequence of int
        Independent runs per point, >= 1: one integer for every point, or one per point; at most :data:`MAX_RUNS`
        runs in all.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        The source of every child generator (SPEC 7; None is refused, so that every grid is reproducible). A
        generator passed in is spawned from (its later children follow the grid's).
    nested : bool, optional
        False (default): the runs receive the children of ``rng`` in order (Notes). True: each point receives its
        own child of ``rng`` and its runs the children of that one, so that adding runs at one point leaves the
        draws of every other point unchanged.
    n_jobs : int, optional
        Workers of :func:`parallel_map`: None (default) runs one run after the other in this process, ``-1`` every
        core, ``k`` in ``1 .. config.max_jobs()`` that many; the results are the same bit for bit.

    Returns
    -------
    list of list
        ``out[i][s]`` is what run ``s`` at ``points[i]`` returned (``dict(zip(points, out))`` keys them by point
        where the points are hashable).

    Raises
    ------
    TypeError
        If ``run`` is not callable, ``rng`` or ``n_jobs`` has the wrong type, or ``n_seeds`` is not an integer nor a
        sequence of them.
    ValueError
        If a count is < 1, ``n_seeds`` has not one count per point, the grid asks for more than :data:`MAX_RUNS`
        runs, or ``n_jobs`` is neither -1 nor in ``1 .. config.max_jobs()``.

    Notes
    -----
    Run ``s`` at point ``i`` receives child number ``n_0 + ... + n_{i-1} + s`` of ``rng`` (``i * n_seeds + s``
    with one count for all): the children of one ``rng.spawn(total)``, spawned one at a time as the workers need
    them, as in :func:`sweep`. With ``nested=True`` it receives child ``s`` of child ``i`` of ``rng``
    (``rng.spawn(len(points))[i].spawn(n_i)[s]``). A run that needs several independent streams spawns them from
    its own generator.

    References
    ----------
    The chapters' figures of theory against experiment, e.g. Chapter 3, Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error".

    Examples
    --------
    >>> from solvable import experiments, glm
    >>> def run(alpha, delta, rng):
    ...     data = glm.sample(100, alpha, channel="linear", delta=delta, rng=rng)
    ...     return data.y.var()
    ...
    >>> out = experiments.grid(run, [(1.0, 0.0), (2.0, 1.0)], 2, rng=0)
    >>> [len(runs) for runs in out]
    [2, 2]
    >>> import numpy as np
    >>> child = np.random.default_rng(0).spawn(4)[3]   # run 1 at point 1 gets child 1 * 2 + 1 = 3
    >>> bool(out[1][1] == run(2.0, 1.0, child))
    True
    """
    counts = _counts(points, n_seeds)
    if nested:
        jobs = (
            (point, parent.spawn(1)[0])
            for point, count in zip(points, counts)
            for parent in rng.spawn(1)
            for _ in range(count)
        )
    else:
        jobs = ((point, rng.spawn(1)[0]) for point, count in zip(points, counts) for _ in range(count))
    out = iter(parallel_map(lambda job: _call(run, *job), jobs, n_jobs=n_jobs))
    return [[next(out) for _ in range(count)] for count in counts]


@declare(run=function(), n=integer(1, MAX_RUNS), n_jobs=JOBS)
def repeat(run: Callable, n: int, *, rng, n_jobs: int | None = None) -> list:
    """Run ``run(child_rng)`` ``n`` times, each time with its own child of ``rng``.

    Parameters
    ----------
    run : callable
        ``run(rng)``: draws with the generator ``rng`` and returns anything picklable.
    n : int
        Independent runs, ``1 .. MAX_RUNS``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        The source of the children (SPEC 7; None is refused); run ``s`` receives child ``s`` of ``rng``.
    n_jobs : int, optional
        Workers of :func:`parallel_map` (None: one after the other in this process).

    Returns
    -------
    list
        What each run returned, in order.

    Raises
    ------
    TypeError
        If ``run`` is not callable or ``n``, ``rng`` or ``n_jobs`` has the wrong type.
    ValueError
        If ``n`` is outside ``1 .. MAX_RUNS`` or ``n_jobs`` is neither -1 nor in ``1 .. config.max_jobs()``.

    Notes
    -----
    :func:`grid` at one point without parameters: the children of ``rng.spawn(n)``, in order.

    References
    ----------
    The chapters' figures of theory against experiment, e.g. Chapter 3, Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import experiments
    >>> draws = experiments.repeat(lambda rng: rng.standard_normal(), 3, rng=0)
    >>> draws == [g.standard_normal() for g in np.random.default_rng(0).spawn(3)]
    True
    """
    return grid(lambda rng: run(rng), [()], n, rng=rng, n_jobs=n_jobs)[0]


def _timed_run(run, value, point, seed, child, rng):
    """One run of a sweep, in whichever process runs it: ``(error, iterations, converged, seconds)``; a non-finite
    error raises, naming the run (the value, its index ``point``, the seed and the child of the sweep's rng)."""
    t0 = time.perf_counter()
    outcome = run(value, rng)
    seconds = time.perf_counter() - t0
    error, iterations, converged = _measure(outcome)
    if not math.isfinite(error):
        raise InvalidParameterError(
            f"run returned a non-finite error ({error!r}) at value = {float(value)!r} (values[{point}]), seed {seed} "
            f"(child {child} of rng): a sweep averages finite results only"
        )
    return error, iterations, converged, seconds


@declare(run=function(), values=array(1), n_seeds=integer(1), n_jobs=JOBS)
def sweep(
    run: Callable[[float, np.random.Generator], float],
    values: Sequence[float],
    n_seeds: int,
    *,
    rng,
    n_jobs: int | None = None,
) -> Sweep:
    """Evaluate ``run(value, child_rng)`` for every value and ``n_seeds`` independent child generators.

    The children come from ``rng.spawn``: the whole sweep is reproducible from one seed, and each
    ``(value, seed)`` run is independent of the others, so the runs can go to several workers
    (:func:`parallel_map`) with the same results.

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
    n_jobs : int, optional
        Workers of :func:`parallel_map`: None (default) runs one run after the other in this process, ``-1``
        uses every core, ``k`` in ``1 .. config.max_jobs()`` that many; the results are the same bit for bit.

    Returns
    -------
    Sweep
        The values and the ``(len(values), n_seeds)`` arrays of errors, iterations, convergence flags and times,
        with ``mean``, ``sem`` and :meth:`Sweep.records`.

    Raises
    ------
    TypeError
        If ``run`` is not callable or returns neither a number nor a result, or ``n_seeds``, ``rng`` or
        ``n_jobs`` has the wrong type.
    ValueError
        If ``n_seeds`` < 1, ``values`` is not a finite one-dimensional array, the sweep asks for more than
        :data:`MAX_RUNS` runs, or ``n_jobs`` is neither -1 nor in ``1 .. config.max_jobs()``; or if a run
        returns a NaN or an infinite error (the message names its value, the index of the value, its seed and
        its child of ``rng``), instead of averaging it.

    Notes
    -----
    Run ``(i, s)`` receives child number ``i * n_seeds + s`` of ``rng``: the children of one
    ``rng.spawn(len(values) * n_seeds)``, spawned one at a time as the workers need them.

    References
    ----------
    Every chapter's figures of theory against experiment, e.g. Chapter 1, Sec. "The algorithm: GAMP follows
    state evolution".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import experiments, glm
    >>> from solvable.metrics import angle_error
    >>> def run(alpha, rng):
    ...     data_rng, gamp_rng = rng.spawn(2)
    ...     data = glm.sample(200, alpha, rng=data_rng)
    ...     return angle_error(glm.gamp(data, max_iter=500, rng=gamp_rng).estimate, data.w_star)
    ...
    >>> sw = experiments.sweep(run, [1.0, 3.0], 3, rng=0)
    >>> print(np.round(sw.mean, 2), [round(glm.bayes_gen_error(a), 2) for a in (1.0, 3.0)])
    [0.26 0.13] [0.25, 0.13]
    """
    if len(values) * n_seeds > MAX_RUNS:
        raise InvalidParameterError(
            f"n_seeds = {n_seeds} at {len(values)} values asks for {len(values) * n_seeds:.1e} runs, "
            f"more than {MAX_RUNS:.0e}: reduce n_seeds or values"
        )
    # one child at a time, in order: SeedSequence.spawn numbers its children, so these are the children of one
    # rng.spawn(len(values) * n_seeds), without holding all of them (about 1 kB each) at once
    jobs = ((v, i, s, i * n_seeds + s, rng.spawn(1)[0]) for i, v in enumerate(values) for s in range(n_seeds))
    out = parallel_map(lambda job: _timed_run(run, *job), jobs, n_jobs=n_jobs)
    shape = (len(values), n_seeds)
    runs = np.array([o[0] for o in out], dtype=float).reshape(shape)
    iterations = np.array([o[1] for o in out], dtype=int).reshape(shape)
    converged = np.array([o[2] for o in out], dtype=bool).reshape(shape)
    seconds = np.array([o[3] for o in out], dtype=float).reshape(shape)
    return Sweep(values=values, runs=runs, iterations=iterations, converged=converged, seconds=seconds)

"""The sequence multi-index model (SMI): one tied rank-one softmax layer at linear sample ratio.

**Model** (Troiani, Cui, Dandi, Krzakala, Zdeborova, "Fundamental limits of learning in sequence multi-index
models and deep attention networks", arXiv:2502.00901; Chapter 5, Sec. 'Low-rank attention: the sequence
multi-index model'). A sample is a sequence ``X`` in ``R^{d x T}`` (``T`` token columns of dimension ``d``, i.i.d.
N(0, 1)); the label is ``y = g(w^T X/sqrt(d))`` with a teacher ``w ~ N(0, I_d)``, learned from ``n = alpha d``
samples (``d -> inf`` at fixed ``alpha = n/d``, ``T``: a linear sample ratio, unlike the attention-indexed model of
:mod:`solvable.attention`, whose ``n = alpha d^2``). The worked case (``p = 1``) is one tied rank-one softmax
layer,

    z = X^T w / sqrt(d)  in R^T,        y = row-softmax(z z^T)  in R^{T x T}.                        (1)

**Equations.** ``y`` fixes ``z`` up to a global sign, so the Bayes-optimal output channel is the two-point
posterior on ``{+z, -z}``. With the overlap ``Q = w_hat . w/d`` and ``V = 1 - Q``, the state evolution
(:func:`state_evolution`, eq-smi-se) is

    E[z | y, omega] = z tanh(z . omega / V),      g_out = (E[z | y, omega] - omega) / V,
    Qhat = alpha E||g_out||^2,                    Q = Qhat / (1 + Qhat),                              (2)

with ``omega = sqrt(Q) xi`` and ``z = omega + sqrt(V) u`` (``xi``, ``u`` ~ N(0, I_T)). Linearising (2) at
``Q = 0`` gives the weak-recovery threshold (:func:`weak_recovery_threshold`, eq-smi-threshold)

    alpha_c = 1 / E||z z^T - I||_F^2 = 1 / (T (T + 1)),                                              (3)

(the factor is checked by :func:`fisher_factor`), and linearising at ``Q = 1`` gives perfect recovery above
``alpha = 1/T`` (:func:`perfect_recovery_threshold`). :func:`overlap_curve` runs (2) on a grid of ``alpha``.

Two-layer SMIs are not covered. This module shares only the engine (:func:`solvable.amp.iterate_fixed_point`,
:class:`solvable.amp.SEResult`) and the row softmax (:func:`solvable.channels.row_softmax`) with
:mod:`solvable.attention`; neither imports the other.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .amp import SEResult, iterate_fixed_point
from .channels import row_softmax
from .dataset import Dataset as _BaseDataset
from .errors import ConvergenceWarning
from .results import record
from .validation import (
    check_array,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    check_size,
    check_tol,
)

__all__ = [
    "Dataset",
    "OverlapCurve",
    "fisher_factor",
    "overlap_curve",
    "perfect_recovery_threshold",
    "sample",
    "state_evolution",
    "weak_recovery_threshold",
]

#: Largest overlap the state evolution reaches: ``V = 1 - Q`` divides in (2), so ``Q`` is kept below 1.
Q_MAX = 1.0 - 1e-12


def _check_T(T) -> int:
    """``T`` must be an integer >= 2: a 1 x 1 softmax is identically 1 and carries no information."""
    return check_int("T", T, minimum=2)


@record
class Dataset(_BaseDataset):
    """A data set of one tied rank-one softmax layer of the sequence multi-index model, eq. (1).

    Parameters
    ----------
    X : numpy.ndarray
        Tokens ``(n, d, T)``: ``T`` columns of dimension ``d``, i.i.d. N(0, 1).
    y : numpy.ndarray
        Outputs ``(n, T, T)``, ``row-softmax(z z^T)``.
    w_star : numpy.ndarray
        The teacher's weights ``(d,)``.

    Attributes
    ----------
    n, d, T : int
        Samples, token dimension and sequence length.
    alpha : float
        Sample ratio ``n / d`` (linear scaling, unlike the attention-indexed model).
    z : numpy.ndarray
        The teacher's preactivations ``X^T w / sqrt(d)``, ``(n, T)``.

    Raises
    ------
    TypeError
        If an array is not an array of real numbers.
    ValueError
        If an array is empty, not finite or of the wrong shape.

    Notes
    -----
    ``z = X^T w* / sqrt(d)`` and ``y = row-softmax(z z^T)`` (:func:`sample`).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.
    """

    w_star: np.ndarray = field(repr=False)

    def _check(self) -> None:
        X, y, w = self.X, self.y, self.w_star
        if X.ndim != 3 or y.shape != (X.shape[0], X.shape[2], X.shape[2]) or w.shape != (X.shape[1],):
            raise ValueError(f"X must be (n, d, T), y (n, T, T) and w_star (d,); "
                             f"got {X.shape}, {y.shape}, {w.shape}")

    @property
    def d(self) -> int:
        """Token dimension (the second axis of ``X``)."""
        return int(self.X.shape[1])

    @property
    def T(self) -> int:
        """Sequence length."""
        return int(self.X.shape[2])

    @property
    def alpha(self) -> float:
        """Sample ratio ``n / d`` (linear scaling, unlike the attention-indexed model)."""
        return self.n / self.d

    @property
    def z(self) -> np.ndarray:
        """Teacher preactivations ``X^T w/sqrt(d)`` (n, T)."""
        return np.einsum("ndt,d->nt", self.X, self.w_star) / math.sqrt(self.d)


def sample(d: int, alpha: float, *, T: int, rng) -> Dataset:
    """Draw a teacher ``w ~ N(0, I_d)`` and ``n = round(alpha d)`` sequences of eq. (1).

    Parameters
    ----------
    d : int
        Token dimension, ``>= 2``.
    alpha : float
        Sample ratio ``n / d``, ``> 0``.
    T : int
        Sequence length, ``>= 2``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws (SPEC 7; ``None`` is refused).

    Returns
    -------
    Dataset
        ``X`` (n, d, T), ``y`` (n, T, T) and ``w_star`` (d,).

    Raises
    ------
    TypeError
        If ``d`` or ``T`` is not an integer or ``rng`` is not a random source.
    ValueError
        If ``alpha`` is out of range, ``alpha d`` rounds to 0, or the arrays would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    Draw order: ``w``, then ``X``; with ``z = X^T w / sqrt(d)``::

        y = row-softmax(z z^T).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.
    """
    d = check_int("d", d, minimum=2)
    alpha = check_positive("alpha", alpha)
    T = _check_T(T)
    rng = check_rng(rng)
    if not alpha * d < 2.0**62:
        raise ValueError(f"alpha d = {alpha * d:.3g} samples is beyond any array: reduce alpha")
    n = round(alpha * d)
    if n < 1:
        raise ValueError(f"alpha d must round to at least 1 sample, got n = {n} at alpha = {alpha:g}, d = {d}")
    check_size("the tokens X (n = alpha d, d, T)", n, d, T)
    # Peak: the tokens, the preactivations and the outputs with the softmax's temporaries.
    check_size("the arrays of sample (X (n, d, T), z (n, T), outputs and their temporaries (n, T, T) x 4) together",
               n * d * T + n * T + 4 * n * T * T + d)
    w = rng.standard_normal(d)
    X = rng.standard_normal((n, d, T))
    z = np.einsum("ndt,d->nt", X, w) / math.sqrt(d)
    return Dataset.adopt(X=X, y=row_softmax(z[:, :, None] * z[:, None, :]), w_star=w)


def weak_recovery_threshold(T: int) -> float:
    """Weak-recovery threshold ``alpha_c = 1/(T(T+1))`` of one tied rank-one softmax layer, eq. (3).

    Parameters
    ----------
    T : int
        Sequence length, ``>= 2``.

    Returns
    -------
    float
        ``alpha_c``: below it the state evolution (2) decays to ``Q = 0``, above it it grows.

    Raises
    ------
    ValueError
        If ``T < 2`` (TypeError for a non-integer).

    Notes
    -----
    ``y = row-softmax(z z^T)`` fixes ``z`` up to a global sign, so near ``Q = 0`` the state evolution (2) is
    linear, ``Qhat = alpha E||z z^T - I||_F^2 Q``, and (eq-smi-threshold)::

        E||z z^T - I||_F^2 = E|z|^4 - 2 E|z|^2 + T = T (T + 1),      alpha_c = 1 / (T (T + 1)),

    for ``z ~ N(0, I_T)`` (checked by :func:`fisher_factor`). ``T = 2``: 1/6.

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-threshold; Troiani et al. 2025,
    arXiv:2502.00901.
    """
    T = _check_T(T)
    return 1.0 / (T * (T + 1))


def perfect_recovery_threshold(T: int) -> float:
    """Sample ratio ``alpha = n/d`` above which the state evolution (2) reaches ``Q = 1``: ``1/T``.

    Parameters
    ----------
    T : int
        Sequence length, ``>= 2``.

    Returns
    -------
    float
        ``alpha_PR = 1/T``.

    Raises
    ------
    ValueError
        If ``T < 2`` (TypeError for a non-integer).

    Notes
    -----
    Counting: ``y`` fixes the ``T`` numbers ``z`` up to a global sign, so ``n`` samples give ``n T`` equations for
    ``d`` unknowns. Stability: near ``Q = 1`` the sign is known and ``E||g_out||^2 = T/V``, so::

        1 - Q_new = (1 - Q) / (alpha T),

    and ``Q = 1`` attracts iff ``alpha T > 1``. Derived here (not in the paper) and checked numerically by
    :func:`state_evolution`.

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.
    """
    T = _check_T(T)
    return 1.0 / T


#: Arrays of shape (n_samples, T) that :func:`fisher_factor` holds at once (the draws and their squares).
_FISHER_ARRAYS = 3
#: Arrays of shape (n_samples, T) that :func:`state_evolution` holds at once (the draws and one update's
#: temporaries).
_SE_ARRAYS = 7


def fisher_factor(T: int, *, n_samples: int = 100_000, rng) -> tuple[float, float]:
    """Monte-Carlo estimate of ``E||z z^T - I||_F^2`` for ``z ~ N(0, I_T)`` (exactly ``T(T+1)``, eq. (3)).

    Parameters
    ----------
    T : int
        Sequence length, ``>= 2``.
    n_samples : int, optional
        Monte-Carlo draws of ``z``, ``>= 2``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws.

    Returns
    -------
    tuple of float
        ``(mean, stderr)``: the Monte-Carlo mean and its standard error.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If ``T < 2``, ``n_samples < 2``, or the draws and their temporaries would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    ``||z z^T - I||_F^2 = |z|^4 - 2 |z|^2 + T``, whose mean is ``T (T + 1)``: the inverse of the weak-recovery
    threshold (:func:`weak_recovery_threshold`).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-threshold; Troiani et al. 2025,
    arXiv:2502.00901.
    """
    T = _check_T(T)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    check_size("the Monte-Carlo draws (n_samples, T) and their temporaries together", _FISHER_ARRAYS * n_samples * T)
    rng = check_rng(rng)
    z = rng.standard_normal((n_samples, T))
    s = np.sum(z * z, axis=1)
    v = s * s - 2.0 * s + T  # ||z z^T - I||_F^2
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(n_samples))


def _qhat(alpha, Q, z, xi):
    """``alpha E||g_out||^2`` of eq. (2) with the two-point posterior, on fixed draws ``z`` (teacher), ``xi``."""
    V = 1.0 - Q
    omega = Q * z + math.sqrt(Q * V) * xi  # (omega, z) jointly Gaussian: Var omega = Q, Cov(omega, z) = Q
    t = np.tanh(np.sum(z * omega, axis=1) / V)
    g = (z * t[:, None] - omega) / V
    return alpha * float(np.mean(np.sum(g * g, axis=1)))


def state_evolution(alpha: float, T: int, *, start: float = 1e-3, n_samples: int = 100_000, damping: float = 0.0,
                    tol: float = 1e-7, max_iter: int = 3000, warn: bool = True, draws=None,
                    rng=None) -> SEResult:
    """Bayes-optimal state evolution (2) of one tied rank-one softmax layer of the sequence multi-index model.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d``, ``>= 0``.
    T : int
        Sequence length, ``>= 2``.
    start : float, optional
        The overlap ``Q_0`` in ``(0, 1)`` at ``t = 0`` (``Q = 0`` is always a fixed point: start just above it).
    n_samples : int, optional
        Monte-Carlo draws of ``(z, omega)``, ``>= 2``.
    damping : float, optional
        In ``[0, 1)``: ``Q_{t+1} = damping Q_t + (1 - damping) Qhat/(1 + Qhat)``.
    tol : float, optional
        In ``[0, 1)``: stop when ``|Q_{t+1} - Q_t| < tol``; ``0`` runs exactly ``max_iter`` steps.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.
    draws : tuple of two numpy.ndarray, optional
        The Monte-Carlo sample ``(z, xi)``, two finite arrays of shape ``(n, T)`` (``z`` the teacher's
        preactivations, ``xi`` the independent part of ``omega``, both meant to be N(0, 1)); when given,
        ``n_samples`` and ``rng`` are not used. This makes the iteration reproducible draw for draw (the exercise
        of Chapter 5 compares a reader's loop with it iterate for iterate).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the Monte-Carlo draws, made once (common random numbers: the iteration is a deterministic map);
        required unless ``draws`` is given.

    Returns
    -------
    solvable.amp.SEResult
        ``overlap`` the last ``Q``, ``error = 1 - Q``, ``history`` the error ``1 - Q_t`` after each iteration
        (``history[0] = 1 - start``), ``overlap_history`` the ``Q_t``, ``conjugate`` the last ``Qhat``.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain, or the draws and one update's temporaries would hold more than
        :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    With ``V = 1 - Q``, ``omega = sqrt(Q) xi`` and the teacher ``z = omega + sqrt(V) u`` (``z`` in ``R^T``), the
    posterior of ``z`` given ``y = row-softmax(z z^T)`` and ``omega`` is the two-point law on ``{+z, -z}``
    (eq-smi-se)::

        E[z | y, omega] = z tanh(z . omega/V),   g_out = (E[z | y, omega] - omega)/V,
        Qhat = alpha E||g_out||^2,               Q = Qhat/(1 + Qhat),

    kept in ``[0, 1 - 1e-12]``, on the shared driver :func:`solvable.amp.iterate_fixed_point`. Below
    ``alpha_c = 1/(T(T+1))`` ``Q`` decays to 0, above it it grows to the informative fixed point (critical
    slowing down near ``alpha_c``). The expectation is a Monte-Carlo mean over the draws ``(z, xi)``, with
    ``omega = Q z + sqrt(Q V) xi`` (the same joint law of ``(z, omega)``: ``Var omega = Cov(z, omega) = Q``).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-se; Troiani et al. 2025,
    arXiv:2502.00901.
    """
    alpha = check_nonnegative("alpha", alpha)
    T = _check_T(T)
    q0 = check_in_range("start", start, 0.0, 1.0, low_open=True, high_open=True)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    if not isinstance(warn, (bool, np.bool_)):
        raise TypeError(f"warn must be True or False, got {warn!r}")
    if draws is None:
        check_size("the Monte-Carlo draws (n_samples, T) and one update's temporaries together",
                   _SE_ARRAYS * n_samples * T)
        rng = check_rng(rng)
        z = rng.standard_normal((n_samples, T))
        xi = rng.standard_normal((n_samples, T))
    else:
        if not isinstance(draws, (tuple, list)) or len(draws) != 2:
            raise TypeError(f"draws must be a pair of arrays (z, xi), got {type(draws).__name__}")
        z, xi = check_array("draws[0] (z)", draws[0], ndim=2), check_array("draws[1] (xi)", draws[1], ndim=2)
        if z.shape != xi.shape or z.shape[1] != T or z.shape[0] < 1:
            raise ValueError(f"draws must be two arrays of shape (n, T = {T}), got {z.shape} and {xi.shape}")
        check_size("one update's temporaries on the draws (n, T)", _SE_ARRAYS * z.size)

    def update(x):
        # min(.): at a huge alpha the conjugate overflows to inf (and inf/inf is NaN); at the largest float
        # qhat/(1 + qhat) rounds to 1, kept below Q_MAX.
        qhat = min(_qhat(alpha, float(x[0]), z, xi), sys.float_info.max)
        return np.array([qhat / (1.0 + qhat)]), qhat

    fp = iterate_fixed_point(update, [q0], damping=damping, tol=tol, max_iter=max_iter, bounds=(0.0, Q_MAX),
                             what=f"SMI state evolution (alpha = {alpha:g}, T = {T})", warn=warn, stacklevel=3)
    overlaps = fp.states[:, 0]
    Q = float(overlaps[-1])
    return SEResult(error=1.0 - Q, overlap=Q, history=1.0 - overlaps, iterations=fp.iterations,
                    converged=fp.converged, conjugate=float(fp.observed[-1]), overlap_history=overlaps)


@record
class OverlapCurve:
    """The state-evolution overlap ``Q(alpha)`` of :func:`overlap_curve`, with both thresholds.

    Parameters
    ----------
    alphas : numpy.ndarray
        The sample ratios ``n / d``.
    overlap : numpy.ndarray
        The overlap ``Q`` reached at each ratio.
    alpha_c : float
        The weak-recovery threshold ``1/(T(T+1))``.
    alpha_pr : float
        The perfect-recovery threshold ``1/T``.
    converged : numpy.ndarray
        Whether each point met its tolerance.

    Notes
    -----
    ``Q = 0`` below ``alpha_c``, ``0 < Q < 1`` between the thresholds, ``Q = 1`` above ``alpha_pr`` (eq-smi-se).

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model'; Troiani et al. 2025, arXiv:2502.00901.
    """

    alphas: np.ndarray
    overlap: np.ndarray
    alpha_c: float
    alpha_pr: float
    converged: np.ndarray


def overlap_curve(alphas: Sequence[float], T: int, *, start: float = 1e-3, n_samples: int = 100_000,
                  tol: float = 1e-7, max_iter: int = 3000, rng) -> OverlapCurve:
    """State-evolution overlap of eq. (2) against ``alpha``, with the same Monte-Carlo draws at every point.

    Parameters
    ----------
    alphas : sequence of float
        Sample ratios ``n / d``, each ``>= 0`` (a non-empty 1-d sequence).
    T : int
        Sequence length, ``>= 2``.
    start : float, optional
        The starting overlap ``Q_0`` in ``(0, 1)`` of every point.
    n_samples : int, optional
        Monte-Carlo draws, ``>= 2``.
    tol : float, optional
        In ``[0, 1)``: each point's tolerance on ``|Q_{t+1} - Q_t|``.
    max_iter : int, optional
        Each point's iteration cap, ``>= 1``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of one seed from which every point's draws are made.

    Returns
    -------
    OverlapCurve
        The overlaps, both thresholds and per-point convergence (points that did not converge, by critical
        slowing down next to ``alpha_c`` and ``alpha_pr``, are flagged instead of warning).

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of its domain.

    Notes
    -----
    :func:`state_evolution` at each ``alpha``: ``Q`` is about 0 below ``alpha_c = 1/(T(T+1))``, positive above
    (weak recovery; continuous transition), and 1 above ``alpha_pr = 1/T``.

    References
    ----------
    Chapter 5, Sec. 'Low-rank attention: the sequence multi-index model', eq-smi-se; Troiani et al. 2025,
    arXiv:2502.00901.
    """
    T = _check_T(T)
    alphas = check_array("alphas", alphas)
    if alphas.ndim != 1 or alphas.size == 0:
        raise ValueError(f"alphas must be a non-empty 1-d sequence, got shape {alphas.shape}")
    for i, a in enumerate(alphas):
        check_nonnegative(f"alphas[{i}]", a)
    q0 = check_in_range("start", start, 0.0, 1.0, low_open=True, high_open=True)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    check_size("the Monte-Carlo draws (n_samples, T) and one update's temporaries together",
               _SE_ARRAYS * n_samples * T)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    rng = check_rng(rng)
    seed = rng.integers(2**63)
    out, conv = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for a in alphas:
            res = state_evolution(a, T, start=q0, n_samples=n_samples, tol=tol, max_iter=max_iter,
                                  rng=np.random.default_rng(seed))
            out.append(res.overlap)
            conv.append(res.converged)
    return OverlapCurve(alphas=alphas, overlap=np.asarray(out), alpha_c=weak_recovery_threshold(T),
                        alpha_pr=perfect_recovery_threshold(T), converged=np.asarray(conv))

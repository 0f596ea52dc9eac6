"""The sequence multi-index model (SMI): one tied rank-one softmax layer at linear sample ratio.

**Model** (Troiani, Cui, Dandi, Krzakala, Zdeborova, "Fundamental limits of learning in sequence multi-index
models and deep attention networks", arXiv:2502.00901; ``science/attention.md``, Sec. 6). A sample is a
sequence ``X`` in ``R^{D x T}`` (``T`` token columns of dimension ``D``, i.i.d. N(0, 1)); the label is
``y = g(w^T X/sqrt(D))`` with a teacher ``w ~ N(0, I_D)``, learned from ``N = alpha D`` samples
(``D -> inf`` at fixed ``alpha = N/D``, ``T``: a linear sample ratio, unlike the attention-indexed model of
:mod:`solvable.attention`, whose ``n = alpha d^2``). The worked case (``p = 1``) is one tied rank-one softmax
layer,

    z = X^T w / sqrt(D)  in R^T,        y = row-softmax(z z^T)  in R^{T x T}.                        (1)

**Equations.** ``y`` fixes ``z`` up to a global sign, so the Bayes-optimal output channel is the two-point
posterior on ``{+z, -z}``. With the overlap ``Q = w_hat . w/D`` and ``V = 1 - Q``, the state evolution
(:func:`state_evolution`) is

    E[z | y, omega] = z tanh(z . omega / V),      g_out = (E[z | y, omega] - omega) / V,
    Qhat = alpha E||g_out||^2,                    Q = Qhat / (1 + Qhat),                              (2)

with ``omega = sqrt(Q) xi`` and ``z = omega + sqrt(V) u`` (``xi``, ``u`` ~ N(0, I_T)). Linearising (2) at
``Q = 0`` gives the weak-recovery threshold (:func:`weak_recovery_threshold`)

    alpha_c = 1 / E||z z^T - I||_F^2 = 1 / (T (T + 1)),                                              (3)

(arXiv:2502.00901; ``science/attention.md``, Sec. 6; the factor is checked by :func:`fisher_factor`), and
linearising at ``Q = 1`` gives perfect recovery above ``alpha = 1/T`` (:func:`perfect_recovery_threshold`;
derived here, not in the sources). :func:`overlap_curve` runs (2) on a grid of ``alpha``.

The two-layer SMI thresholds of ``science/attention.md``, Sec. 6, are not covered. This module shares only the
engine (:func:`solvable.amp.iterate_fixed_point`, :class:`solvable.amp.SEResult`) and the row softmax
(:func:`solvable.channels.row_softmax`) with :mod:`solvable.attention`; neither imports the other.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .amp import SEResult, iterate_fixed_point
from .channels import row_softmax
from .errors import ConvergenceWarning
from .validation import (
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


@dataclass(frozen=True)
class Dataset:
    """A data set of one tied rank-one softmax layer of the SMI, eq. (1) (arXiv:2502.00901).

    Attributes
    ----------
    X : (N, D, T) tokens (``T`` columns of dimension ``D``), i.i.d. N(0, 1).
    y : (N, T, T) outputs ``row-softmax(z z^T)``.
    w_star : (D,) teacher weights.
    """

    X: np.ndarray
    y: np.ndarray
    w_star: np.ndarray = field(repr=False)

    def __post_init__(self):
        X, y, w = (np.asarray(a) for a in (self.X, self.y, self.w_star))
        if X.ndim != 3 or y.shape != (X.shape[0], X.shape[2], X.shape[2]) or w.shape != (X.shape[1],):
            raise ValueError(f"X must be (N, D, T), y (N, T, T) and w_star (D,); "
                             f"got {X.shape}, {y.shape}, {w.shape}")

    @property
    def N(self) -> int:
        """Number of samples."""
        return self.X.shape[0]

    @property
    def D(self) -> int:
        """Token dimension."""
        return self.X.shape[1]

    @property
    def T(self) -> int:
        """Sequence length."""
        return self.X.shape[2]

    @property
    def alpha(self) -> float:
        """Sample ratio ``N / D`` (linear scaling, unlike the AIM)."""
        return self.X.shape[0] / self.X.shape[1]

    @property
    def z(self) -> np.ndarray:
        """Teacher preactivations ``X^T w/sqrt(D)`` (N, T)."""
        return np.einsum("ndt,d->nt", self.X, self.w_star) / math.sqrt(self.X.shape[1])


def sample(D: int, T: int, alpha: float, *, rng) -> Dataset:
    """Draw ``w ~ N(0, I_D)`` and ``N = round(alpha D)`` sequences ``X`` (D x T, i.i.d. N(0, 1)) of eq. (1),
    ``y = row-softmax(z z^T)`` with ``z = X^T w/sqrt(D)`` (``science/attention.md``, Sec. 6). Draw order:
    ``w``, then ``X``. Sizes above :data:`solvable.validation.MAX_ELEMENTS` numbers are refused."""
    D = check_int("D", D, minimum=2)
    T = _check_T(T)
    alpha = check_positive("alpha", alpha)
    rng = check_rng(rng)
    N = round(alpha * D)
    if N < 1:
        raise ValueError(f"alpha D must round to at least 1, got N = {N} at D = {D}")
    check_size("the tokens X (N = alpha D, D, T)", N, D, T)
    check_size("the outputs y (N = alpha D, T, T)", N, T, T)
    w = rng.standard_normal(D)
    X = rng.standard_normal((N, D, T))
    z = np.einsum("ndt,d->nt", X, w) / math.sqrt(D)
    return Dataset(X=X, y=row_softmax(z[:, :, None] * z[:, None, :]), w_star=w)


def weak_recovery_threshold(T: int) -> float:
    """Weak-recovery threshold ``alpha_c = 1/(T(T+1))`` of one tied rank-one softmax layer, eq. (3).

    ``y = row-softmax(z z^T)`` fixes ``z`` up to a global sign, so near ``Q = 0`` the state evolution (2) is
    linear, ``Qhat = alpha E||z z^T - I||_F^2 Q``, and ``E||z z^T - I||_F^2 = E|z|^4 - 2 E|z|^2 + T = T(T+1)``
    for ``z ~ N(0, I_T)`` (Troiani et al., arXiv:2502.00901, weak-recovery linearisation;
    ``science/attention.md``, Sec. 6; checked by :func:`fisher_factor`). ``T = 2``: 1/6.
    """
    T = _check_T(T)
    return 1.0 / (T * (T + 1))


def perfect_recovery_threshold(T: int) -> float:
    """Sample ratio ``alpha = N/D`` above which the state evolution (2) reaches ``Q = 1``: ``1/T``.

    Not in ``science/attention.md``; derived here and checked numerically by :func:`state_evolution`.
    Counting: ``y`` fixes the ``T`` numbers ``z`` up to a global sign, so ``N`` samples give ``N T`` equations
    for ``D`` unknowns. Stability: near ``Q = 1`` (``V = 1 - Q -> 0``) the sign is known and
    ``E||g_out||^2 = T/V``, so ``1 - Q_new = (1 - Q)/(alpha T)`` and ``Q = 1`` attracts iff ``alpha T > 1``.
    """
    T = _check_T(T)
    return 1.0 / T


def fisher_factor(T: int, *, n_samples: int = 100_000, rng) -> tuple[float, float]:
    """Monte-Carlo ``(mean, stderr)`` of ``E||z z^T - I||_F^2``, ``z ~ N(0, I_T)`` (exactly ``T(T+1)``, eq. (3)).

    ``||z z^T - I||_F^2 = |z|^4 - 2|z|^2 + T``; ``n_samples`` draws of ``z`` from ``rng``.
    """
    T = _check_T(T)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    check_size("the Monte-Carlo draws (n_samples, T)", n_samples, T)
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


def state_evolution(alpha: float, T: int, *, q0: float = 1e-3, n_samples: int = 100_000, damping: float = 0.0,
                    tol: float = 1e-7, max_iter: int = 3000, warn: bool = True, rng) -> SEResult:
    """Bayes-optimal state evolution (2) of one tied rank-one softmax layer of the SMI (p = 1).

    (Troiani et al., arXiv:2502.00901; ``science/attention.md``, Sec. 6.) With ``V = 1 - Q``,
    ``omega = sqrt(Q) xi`` and the teacher ``z = omega + sqrt(V) u`` (``z`` in ``R^T``), the posterior of
    ``z`` given ``y = row-softmax(z z^T)`` and ``omega`` is the two-point law on ``{+z, -z}``:

        E[z | y, omega] = z tanh(z . omega/V),   g_out = (E[z | y, omega] - omega)/V,
        Qhat = alpha E||g_out||^2 (summed over tokens),   Q = Qhat/(1 + Qhat).

    The expectation is a Monte Carlo over ``n_samples`` draws of ``(z, omega)`` made ONCE from ``rng`` (common
    random numbers: the iteration is a deterministic map, so it converges). Starts at ``Q = q0 > 0``
    (``Q = 0`` is always a fixed point); below ``alpha_c = 1/(T(T+1))`` ``Q`` decays to 0, above it grows to
    the informative fixed point (critical slowing down near ``alpha_c``). Runs on the shared driver
    :func:`solvable.amp.iterate_fixed_point` (``Q_{t+1} = damping Q_t + (1 - damping) Qhat/(1 + Qhat)``, kept
    in ``[0, 1 - 1e-12]``), which stops when ``|Q_{t+1} - Q_t| < tol`` and warns at ``max_iter``
    (:class:`~solvable.errors.ConvergenceWarning`, unless ``warn=False``).

    Returns
    -------
    SEResult
        ``overlap`` the last ``Q``, ``error = 1 - Q``, ``history`` the error ``1 - Q_t`` after each iteration
        (``history[0] = 1 - q0``), ``overlap_history`` the ``Q_t``, ``conjugate`` the last ``Qhat``.
    """
    alpha = check_nonnegative("alpha", alpha)
    T = _check_T(T)
    q0 = check_in_range("q0", q0, 0.0, 1.0, low_open=True, high_open=True)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    check_size("the Monte-Carlo draws (n_samples, T)", n_samples, T)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    if not isinstance(warn, (bool, np.bool_)):
        raise TypeError(f"warn must be True or False, got {warn!r}")
    rng = check_rng(rng)
    z = rng.standard_normal((n_samples, T))
    xi = rng.standard_normal((n_samples, T))

    def update(x):
        qhat = _qhat(alpha, float(x[0]), z, xi)
        return np.array([qhat / (1.0 + qhat)]), qhat

    fp = iterate_fixed_point(update, [q0], damping=damping, tol=tol, max_iter=max_iter, bounds=(0.0, Q_MAX),
                             what=f"SMI state evolution (alpha = {alpha:g}, T = {T})", warn=warn, stacklevel=3)
    overlaps = fp.states[:, 0]
    Q = float(overlaps[-1])
    return SEResult(error=1.0 - Q, overlap=Q, history=1.0 - overlaps, iterations=fp.iterations,
                    converged=fp.converged, conjugate=float(fp.observed[-1]), overlap_history=overlaps)


@dataclass(frozen=True)
class OverlapCurve:
    """Overlap ``Q(alpha)`` of :func:`overlap_curve`, with the weak-recovery threshold ``alpha_c``, the
    perfect-recovery threshold ``alpha_pr`` and per-point convergence."""

    alphas: np.ndarray
    overlap: np.ndarray
    alpha_c: float
    alpha_pr: float
    converged: np.ndarray


def overlap_curve(alphas: Sequence[float], T: int, *, q0: float = 1e-3, n_samples: int = 100_000,
                  tol: float = 1e-7, max_iter: int = 3000, rng) -> OverlapCurve:
    """State-evolution overlap of eq. (2) against ``alpha`` (:func:`state_evolution` at each ``alpha``, all with
    the same Monte-Carlo draws from ``rng``): ~0 below ``alpha_c = 1/(T(T+1))``, positive above (weak recovery;
    continuous transition), 1 above ``alpha_pr = 1/T``. Points that did not converge in ``max_iter`` (critical
    slowing down next to ``alpha_c`` and ``alpha_pr``) are flagged in ``converged`` instead of warning."""
    T = _check_T(T)
    try:
        alphas = np.asarray(alphas, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"alphas must be a non-empty 1-d sequence of numbers >= 0, got {alphas!r}") from None
    if alphas.ndim != 1 or alphas.size == 0:
        raise ValueError(f"alphas must be a non-empty 1-d sequence, got shape {alphas.shape}")
    for i, a in enumerate(alphas):
        check_nonnegative(f"alphas[{i}]", a)
    q0 = check_in_range("q0", q0, 0.0, 1.0, low_open=True, high_open=True)
    n_samples = check_int("n_samples", n_samples, minimum=2)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    rng = check_rng(rng)
    seed = rng.integers(2**63)
    out, conv = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for a in alphas:
            res = state_evolution(a, T, q0=q0, n_samples=n_samples, tol=tol, max_iter=max_iter,
                                  rng=np.random.default_rng(seed))
            out.append(res.overlap)
            conv.append(res.converged)
    return OverlapCurve(alphas=alphas, overlap=np.asarray(out), alpha_c=weak_recovery_threshold(T),
                        alpha_pr=perfect_recovery_threshold(T), converged=np.asarray(conv))

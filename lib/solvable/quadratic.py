"""Extensive-width quadratic networks: learning ``y = sum_k (w_k . x)^2`` from ``n ~ d^2`` samples.

Model (``science/quadratic.md``, Sec. 1; Maillard, Troiani, Martin, Krzakala, Zdeborova, "Bayes-optimal learning
of an extensive-width neural network from quadratically many samples", NeurIPS 2024, arXiv:2408.03733):
inputs ``x ~ N(0, I_d)``, a teacher with ``m = kappa d`` hidden units ``w*_k ~ N(0, I_d)``, ``n = alpha d^2``
samples and labels

    y = (1/sqrt(m)) sum_k [ (w*_k . x)^2/d - |w*_k|^2/d ] + sqrt(delta) xi = Tr(Z S*) + sqrt(delta) xi,

with ``Z = (x x^T - I)/sqrt(d)`` and ``S* = W*^T W*/sqrt(m d)``: the hidden layer is a d x d matrix of extensive
rank, and learning the network is **matrix sensing**. Errors are in the paper normalisation,
``(1/d) |S_hat - S*|_F^2`` (1 for the trivial estimator ``sqrt(kappa) I``, 0 at perfect recovery); the test
error on a fresh noisy label is ``delta + 2 MMSE`` (:func:`test_error`).

Second normalisation (mean-one, ``S_W = W^T W/m = S*/sqrt(kappa)``), used in part of the literature:
``mmse_W = MMSE/kappa`` and ``delta_W = delta/kappa`` (:func:`to_mean_one`, :func:`from_mean_one`).

The Bayes-optimal error is one scalar equation around the symmetric RIE's MMSE (:mod:`solvable.rie`), shared with
the attention-indexed model in :mod:`solvable.matrix_sensing` (:func:`bayes_optimal_mmse`,
:func:`perfect_recovery_threshold` and :func:`state_evolution` here are thin wrappers of it), and GAMP-RIE is the
shared loop of :mod:`solvable.amp` with the quadratic sensing map (:class:`QuadraticSensingMap`, never storing the
n x d x d tensor of the ``Z_mu``) and the symmetric RIE (:class:`solvable.rie.WishartRIEDenoiser`) as denoiser; it
returns the engine's :class:`~solvable.amp.GAMPResult` and the state evolution its :class:`~solvable.amp.SEResult`.
Errors against the teacher are :func:`solvable.rie.symmetric_error`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg.blas import get_blas_funcs
from scipy.optimize import brentq

from . import gd as _gd
from . import matrix_sensing, spectra
from .amp import GAMPResult, SEResult, run_gamp
from .channels import LinearChannel
from .errors import ConvergenceWarning
from .rie import WishartRIEDenoiser, symmetric_error
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
    "NuclearNormResult",
    "NuclearNormTheoryResult",
    "QuadraticSensingMap",
    "SoftThresholdResult",
    "bayes_optimal_mmse",
    "effective_noise_of_preactivation_noise",
    "from_mean_one",
    "gamp_rie",
    "gd",
    "nuclear_norm_erm",
    "nuclear_norm_erm_theory",
    "perfect_recovery_threshold",
    "psd_soft_threshold_stats",
    "sample",
    "sensing_noise",
    "state_evolution",
    "test_error",
    "to_mean_one",
]


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Dataset:
    """Inputs ``X`` (n, d), labels ``y`` (n,), the teacher's weights ``W_star`` (m, d) and matrix
    ``S_star = W*^T W*/sqrt(m d)`` (d, d), and the label-noise variance ``delta`` (paper normalisation)."""

    X: np.ndarray
    y: np.ndarray
    W_star: np.ndarray = field(repr=False)
    S_star: np.ndarray = field(repr=False)
    delta: float = 0.0

    def __post_init__(self):
        X, y, W, S = (np.asarray(a) for a in (self.X, self.y, self.W_star, self.S_star))
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
            raise ValueError(f"X must be (n, d) and y (n,), got shapes {X.shape} and {y.shape}")
        if W.ndim != 2 or W.shape[1] != X.shape[1] or S.shape != (X.shape[1], X.shape[1]):
            raise ValueError(f"W_star must be (m, d) and S_star (d, d) with d = {X.shape[1]}; "
                             f"got {W.shape} and {S.shape}")
        if X.shape[0] < 1 or X.shape[1] < 2 or W.shape[0] < 1:
            raise ValueError(f"X must have n >= 1 rows and d >= 2 columns, W_star m >= 1 rows; got {X.shape}, {W.shape}")
        for name, a in (("X", X), ("y", y), ("W_star", W), ("S_star", S)):
            if not (np.issubdtype(a.dtype, np.number) and np.all(np.isfinite(a))):
                raise ValueError(f"{name} must contain finite numbers only")
        object.__setattr__(self, "delta", check_nonnegative("delta", self.delta))

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def m(self) -> int:
        return self.W_star.shape[0]

    @property
    def kappa(self) -> float:
        """Teacher width ratio ``m / d``."""
        return self.m / self.d

    @property
    def alpha(self) -> float:
        """Sample ratio ``n / d^2``."""
        return self.n / self.d**2


#: Largest absolute input entry accepted by :class:`QuadraticSensingMap` (products hold squares of the inputs).
_MAX_INPUT = 1e100
#: Accepted range of the initial output variance of :func:`gamp_rie`.
_V0_RANGE = (1e-3, 1e3)


def _check_kappa(kappa) -> float:
    return check_positive("kappa", kappa)


def sample(d: int, kappa: float, alpha: float, delta: float = 0.0, *, rng) -> Dataset:
    """Draw a teacher with ``m = round(kappa d)`` hidden units and ``n = round(alpha d^2)`` labelled samples.

    Draw order: ``W*`` (m, d), ``X`` (n, d), then the label noise (``science/quadratic.md``, Sec. 3).
    """
    d = check_int("d", d, minimum=2)
    kappa = _check_kappa(kappa)
    alpha = check_positive("alpha", alpha)
    delta = check_nonnegative("delta", delta)
    rng = check_rng(rng)
    m, n = round(kappa * d), round(alpha * d * d)
    if m < 1 or n < 1:
        raise ValueError(f"kappa d and alpha d^2 must round to at least 1; got m = {m}, n = {n} at d = {d}")
    check_size("the teacher W* (m = kappa d, d)", m, d)
    check_size("the inputs X (n = alpha d^2, d)", n, d)
    check_size("the teacher matrix S* (d, d)", d, d)
    W = rng.standard_normal((m, d))
    X = rng.standard_normal((n, d))
    S = W.T @ W / math.sqrt(m * d)
    y = QuadraticSensingMap(X).forward(S)
    if delta > 0:
        y = y + math.sqrt(delta) * rng.standard_normal(n)
    return Dataset(X=X, y=y, W_star=W, S_star=S, delta=delta)


# --------------------------------------------------------------------------- theory
# The Bayes-optimal fixed point, the threshold and the state evolution are those of Wishart sensing, shared with
# the attention-indexed model: :mod:`solvable.matrix_sensing`. The wrappers below keep the stable names of this
# model and say what the numbers mean for the network.


def perfect_recovery_threshold(kappa: float) -> float:
    """Sample ratio ``alpha = n/d^2`` above which noiseless Bayes-optimal learning of the network is exact.

    ``alpha_PR = kappa - kappa^2/2`` for ``kappa < 1`` and ``1/2`` otherwise (parameter counting; Maillard et al.
    2024, arXiv:2408.03733, Sec. 3): :func:`solvable.matrix_sensing.perfect_recovery_threshold`.
    """
    return matrix_sensing.perfect_recovery_threshold(kappa)


def bayes_optimal_mmse(alpha: float, kappa: float, delta: float = 0.0) -> float:
    """Bayes-optimal MMSE on ``S*`` in the paper normalisation (1 at ``alpha = 0``; Maillard et al. 2024).

    The fixed point ``qhat mmse_RIE(1/qhat) + delta qhat/2 = 2 alpha``, ``MMSE = mmse_RIE(1/qhat)``
    (``science/quadratic.md``, Sec. 2) of :func:`solvable.matrix_sensing.bayes_optimal_mmse`, which states its
    domain (``alpha >= 0``, ``delta >= 0``, ``1e-3 <= kappa <= 1e6``), its solver and its closed-form ends.
    Noiseless and ``alpha >= alpha_PR``: 0. The test error on a fresh noisy label is ``delta + 2 MMSE``
    (:func:`test_error`).
    """
    return matrix_sensing.bayes_optimal_mmse(alpha, kappa, delta)


def test_error(alpha: float, kappa: float, delta: float = 0.0) -> float:
    """Bayes-optimal test error on a fresh noisy label, ``delta + 2 MMSE`` (``E_x Tr(Z A)^2 = 2|A|_F^2/d``)."""
    return float(delta + 2.0 * bayes_optimal_mmse(alpha, kappa, delta))


def to_mean_one(mmse: float, delta: float, kappa: float) -> tuple[float, float]:
    """Convert ``(MMSE, delta)`` from the paper normalisation ``S* = W^T W/sqrt(m d)`` to the mean-one
    normalisation ``S_W = W^T W/m = S*/sqrt(kappa)``: ``(MMSE/kappa, delta/kappa)``."""
    mmse = check_nonnegative("mmse", mmse)
    delta = check_nonnegative("delta", delta)
    kappa = _check_kappa(kappa)
    return _finite_pair(mmse / kappa, delta / kappa)


def from_mean_one(mmse_w: float, delta_w: float, kappa: float) -> tuple[float, float]:
    """Inverse of :func:`to_mean_one`: ``(kappa mmse_W, kappa delta_W)``."""
    mmse_w = check_nonnegative("mmse_w", mmse_w)
    delta_w = check_nonnegative("delta_w", delta_w)
    kappa = _check_kappa(kappa)
    return _finite_pair(kappa * mmse_w, kappa * delta_w)


def _finite_pair(a: float, b: float) -> tuple[float, float]:
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"the converted (MMSE, delta) = ({a}, {b}) overflow: kappa is too extreme for these values")
    return a, b


def effective_noise_of_preactivation_noise(sigma: float) -> float:
    """Label-noise variance (paper normalisation) equivalent to Gaussian noise of std ``sigma`` on every
    preactivation ``w . x / sqrt(d)``: ``delta = 2 sigma^2 (2 + sigma^2)`` (``science/quadratic.md``, Sec. 1)."""
    sigma = check_nonnegative("sigma", sigma)
    delta = 2.0 * sigma**2 * (2.0 + sigma**2) if sigma < 1e100 else math.inf
    if not math.isfinite(delta):
        raise ValueError(f"sigma = {sigma!r} gives a label-noise variance that overflows a float")
    return delta


def state_evolution(alpha: float, kappa: float, delta: float = 0.0, *, V0: float | None = None,
                    damping: float = 0.0, tol: float = 1e-10, max_iter: int = 2000,
                    warn: bool = True) -> SEResult:
    """State evolution of GAMP-RIE (``science/quadratic.md``, Sec. 2.5):

        s_t = (delta + V_t) / (4 alpha),      V_{t+1} = 2 mmse_RIE(s_t),

    from ``V_0 = 2 (1 + kappa)`` unless given: :func:`solvable.matrix_sensing.state_evolution` (arguments,
    damping and stopping rule there). Returns the engine's :class:`~solvable.amp.SEResult`: ``history[t]`` is the
    predicted error ``(1/d)|S_hat_t - S*|_F^2`` after ``t`` iterations (``history[0] = V_0/2``), to compare with
    :attr:`solvable.amp.GAMPResult.history` of :func:`gamp_rie` (``history[1:]``); ``error`` is the last entry.
    Reaching ``max_iter`` before ``tol`` emits a :class:`~solvable.errors.ConvergenceWarning` unless ``warn=False``
    (e.g. to plot the first iterations).
    """
    return matrix_sensing.state_evolution(alpha, kappa, delta, V0=V0, damping=damping, tol=tol,
                                          max_iter=max_iter, warn=warn)


# --------------------------------------------------------------------------- GAMP-RIE


class QuadraticSensingMap:
    """The map ``S -> (Tr(Z_mu S))_mu`` with ``Z_mu = (x_mu x_mu^T - I)/sqrt(d)``, on the raw inputs ``X`` (n, d).

    Never stores the n x d x d tensor of the ``Z_mu`` (memory O(n d)):

    - ``forward(S) = (rowsum((X S) * X) - Tr S) / sqrt(d)``: one n x d x d product;
    - ``adjoint(g) = sum_mu g_mu Z_mu = (X^T diag(g) X - sum(g) I) / sqrt(d)``: one product.

    ``X`` must be finite with entries of absolute value at most ``1e100`` (Gaussian inputs are O(1)).
    Variances use the per-d normalisation of the paper: an estimate with error ``c = (1/d)|S_hat - S|_F^2``
    has output variance ``forward_variance(c) = 2 c`` (``E_x Tr(Z A)^2 = 2|A|_F^2/d``), and
    ``adjoint_variance(a) = 2 sum(a) / d`` is the precision (times d) that the RIE denoiser converts back
    into a noise variance ``s = d / (2 A)`` (``science/quadratic.md``, Sec. 3).
    """

    def __init__(self, X):
        X = np.asarray(X)
        if not np.issubdtype(X.dtype, np.number) or np.iscomplexobj(X):
            raise ValueError(f"X must be a real 2-d array (n, d), got dtype {X.dtype}")
        X = X if X.dtype == np.float32 else X.astype(float)  # float32 inputs stay float32 (fast GD)
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"X must be a non-empty 2-d array (n, d), got shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must contain finite numbers only")
        if X.size and float(np.max(np.abs(X))) > _MAX_INPUT:
            raise ValueError(f"X must have entries of absolute value at most {_MAX_INPUT:g} (their squares enter "
                             f"every product), got {float(np.max(np.abs(X))):.1e}")
        self.X = X
        self.n, self.d = X.shape
        self._scale = 1.0 / math.sqrt(self.d)

    def forward(self, S):
        """``(d, d) -> (n,)``, or a batch ``(K, d, d) -> (K, n)`` (gradient descent with K inits)."""
        S = np.asarray(S, dtype=self.X.dtype)
        if S.ndim not in (2, 3) or S.shape[-2:] != (self.d, self.d):
            raise ValueError(f"S must be (d, d) or (K, d, d) with d = {self.d}, got shape {S.shape}")
        XS = self.X @ S  # (n, d) or (K, n, d)
        quad = np.einsum("...ij,ij->...i", XS, self.X)
        trace = np.trace(S, axis1=-2, axis2=-1)
        return (quad - np.asarray(trace)[..., None]) * self._scale

    def adjoint(self, g):
        """``(n,) -> (d, d)``, or a batch ``(K, n) -> (K, d, d)``."""
        g = np.asarray(g, dtype=self.X.dtype)
        if g.ndim not in (1, 2) or g.shape[-1] != self.n:
            raise ValueError(f"g must be (n,) or (K, n) with n = {self.n}, got shape {g.shape}")
        if g.ndim == 1:
            return self._adjoint_syrk(g)
        XtG = self.X.T * g[..., None, :]  # (K, d, n)
        out = XtG @ self.X
        out[..., np.arange(self.d), np.arange(self.d)] -= np.sum(g, axis=-1)[..., None]
        return out * self._scale

    def _adjoint_syrk(self, g):
        """One ``(n,) -> (d, d)`` adjoint as two symmetric rank-k updates (BLAS ``syrk``), half the flops of the
        general product: ``X^T diag(g) X = B_+^T B_+ - B_-^T B_-`` with ``B = sqrt(|g|) X`` split by the sign of
        ``g`` (equal to the general product up to rounding)."""
        B = self.X * np.sqrt(np.abs(g))[:, None]
        pos = g > 0
        syrk = get_blas_funcs("syrk", (B,))
        out = np.zeros((self.d, self.d), dtype=B.dtype)
        for rows, sign in ((B[pos], 1.0), (B[~pos], -1.0)):
            if rows.shape[0]:
                out += syrk(sign, rows.T)  # rows.T is Fortran-ordered (d, k): rows^T rows, upper triangle
        out = np.triu(out) + np.triu(out, 1).T
        out[np.arange(self.d), np.arange(self.d)] -= np.sum(g)
        return out * self._scale

    def forward_variance(self, c):
        return 2.0 * float(c)

    def adjoint_variance(self, a):
        return 2.0 * float(np.sum(a)) / self.d


def sensing_noise(X, *, rng) -> np.ndarray:
    """The noise of GAMP-RIE's back-projection at finite size: ``N = sum_mu g_mu Z_mu / sqrt(n)``, ``g ~ N(0, 1)``.

    ``N`` has the entry variances of a GOE matrix of variance 1 (off-diagonal ``1/d``, diagonal ``2/d``), and
    its spectrum tends to the semicircle as ``n/d = alpha d -> infinity``; but it is a sum of ``n`` rank-one
    terms ``g_mu (x_mu x_mu^T - I)/sqrt(n d)``: to leading order a free compound Poisson law, whose free
    cumulants are ``kappa_k = (n/d) E[t^k]`` for rank-one terms of eigenvalue ``t = g sqrt(d/n)``, i.e. variance 1
    and a fourth free cumulant about ``3 d/n = 3/(alpha d)`` where the semicircle has 0 (the R-transform of a sum
    of free rank-one terms, ``R(z) = (n/d) E[t/(1 - t z)]``). In GAMP-RIE the ``g_mu`` are the output residuals,
    close to Gaussian. The RIE assumes the semicircle: denoising ``S* + sqrt(s) N`` instead of ``S* + sqrt(s) Z_GOE``
    measures what that costs at a given size (the small-``alpha`` excess of :func:`gamp_rie`, chapter 4).
    ``X`` is the (n, d) input matrix.
    """
    M = QuadraticSensingMap(X)
    rng = check_rng(rng)
    return M.adjoint(rng.standard_normal(M.n)) / math.sqrt(M.n)


def gamp_rie(data: Dataset, *, damping: float = 0.5, tol: float = 1e-5, max_iter: int = 100, V0: float = 10.0,
             warn: bool = True, rng) -> GAMPResult:
    """GAMP-RIE for the quadratic network (Maillard et al. 2024, arXiv:2408.03733; ``science/quadratic.md``, Sec. 3).

    The shared loop :func:`solvable.amp.run_gamp` with :class:`QuadraticSensingMap`, the noisy linear channel
    and :class:`WishartRIEDenoiser`; the precision is the empirical ``A = 2 alpha mean(g^2)`` and the damping
    acts on the output state ``(V, omega)``. Start: ``S_hat`` a prior draw ``W^T W/sqrt(m d)`` with a fresh
    ``W`` from ``rng``, ``V = omega = V0`` (the estimate's variance starts at ``V0/2``). ``V0`` is twice the error
    expected of the start (``2 (1 + kappa)`` for a prior draw, whose error against the teacher is ``1 + kappa``;
    the default 10 overestimates it); it must lie in ``[1e-3, 1e3]``: far outside, the first precision
    ``2 alpha mean(g^2)`` is absurd (``g ~ residual/V0``) and the denoiser's noise leaves the range of the RIE.
    Stops when ``|S_new - S_hat|_F^2 / d < tol`` (``tol`` in ``[0, 1)``; ``0`` runs exactly ``max_iter``
    iterations). Returns the engine's :class:`~solvable.amp.GAMPResult`: ``history[t-1]`` is the error
    ``(1/d)|S_hat_t - S*|_F^2`` (:func:`solvable.rie.symmetric_error`) after iteration ``t``, ``error`` the last
    one, ``variance`` the denoiser's own estimate of it. At small ``alpha``
    and ``d ~ 100`` the iterate keeps fluctuating by about 0.01 and the tolerance may not be reached
    (a :class:`~solvable.errors.ConvergenceWarning` says so unless ``warn=False``; the last iterate is returned).

    Finite size at small ``alpha``: the back-projected noise is a sum of ``n = alpha d^2`` rank-one terms, not a
    GOE matrix (:func:`sensing_noise`), and the error sits above the asymptotic MMSE. At ``kappa = 0.5``,
    ``alpha = 0.1`` (MMSE 0.7237), 8 data sets per size: 0.747 +- 0.010 at ``d = 80`` (12 data sets),
    0.750 +- 0.016 at ``d = 100``, 0.732 +- 0.010 at ``d = 150``, 0.745 +- 0.005 at ``d = 250`` and (6 data sets)
    0.744 +- 0.005 at ``d = 300``; at ``d = 60`` some runs wander off (0.87 +- 0.09). The excess falls from about
    0.04 to about 0.02 by ``d = 150`` and has not been seen to fall further (open; chapter 4, Sec. 4.3). The precision the loop assigns to the
    back-projection matches the actual noise in it; the RIE's output error exceeds ``mmse_RIE(s)`` (by 0.09 at
    ``d = 80``, 0.03 at ``d = 150``). The loop's choices do not move the excess (``d = 80``, 12 data sets, paired
    differences): ``V0 = 3`` +0.003 +- 0.002, a start at the prior mean +0.004 +- 0.003, 300 iterations
    +0.002 +- 0.001; damping 0.2 or 0.8 is worse (+0.23, +0.09), and the derivative precision diverges (with the
    residual floor of ``LinearChannel`` it diverges on 4 of 10 data sets at ``d = 60``, 1 of 10 at ``d = 80``, and
    matches the empirical one at ``d = 100-150``). Near ``alpha_PR`` the excess shrinks faster with ``d``
    (``alpha = 0.35``: +0.011 at ``d = 80``, +0.004 at ``d = 150``). Just above it (``alpha = 0.4``, ``d = 80``) the
    empirical precision converges slowly, its estimated error ``c/2`` about three times the actual one (0.0046
    after 100 iterations, 0.0017 after 300), where the derivative precision with the residual floor reaches
    0.0009 (0.0006 at ``d = 120``).
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a solvable.quadratic.Dataset, got {type(data).__name__}")
    V0 = check_in_range("V0", V0, *_V0_RANGE)
    tol = check_tol(tol)
    rng = check_rng(rng)
    d, m = data.d, data.m
    W0 = rng.standard_normal((m, d))
    S0 = W0.T @ W0 / math.sqrt(m * d)
    S_star = data.S_star
    with warnings.catch_warnings():
        if not warn:
            warnings.simplefilter("ignore", ConvergenceWarning)
        res = run_gamp(
            QuadraticSensingMap(data.X), LinearChannel(delta=data.delta), WishartRIEDenoiser(data.kappa), data.y,
            S0, V0 / 2.0, damping=damping, tol=tol / d, max_iter=max_iter, damp="output", precision="empirical",
            omega0=np.full(data.n, V0), V0=V0, monitor=lambda S: symmetric_error(S, S_star), warn=warn,
        )
    return res


# --------------------------------------------------------------------------- gradient descent


def _batched_matrix_error(estimates, target):
    diff = estimates - target
    return np.sum(diff * diff, axis=(-2, -1)) / target.shape[-1]


@dataclass(frozen=True)
class _FactorisedSquareLoss:
    """The square loss (1) of :mod:`solvable.gd` for the quadratic student, computed on the weights.

    ``y_hat_mu = Tr(Z_mu S(W)) = (|W x_mu|^2 - |W|_F^2) / (d sqrt(m))`` and ``dloss/dW = (P diag(r) X - sum(r) W)
    / (d sqrt(m))`` with ``P = W X^T`` and residuals ``r = y_hat - y``: two products of ``n m d`` multiply-adds per
    run instead of the four ``n d^2`` of :class:`QuadraticSensingMap` with :class:`solvable.gd.SymmetricSquare`
    (the same numbers up to rounding; about ``2/kappa`` times fewer flops). Never forms the ``d x d`` matrix
    except in :meth:`matrix`, which :func:`solvable.gd.run_gd` calls for the recorded errors.
    """

    X: np.ndarray
    y: np.ndarray
    m: int

    @property
    def loss_scale(self) -> float:
        y = np.asarray(self.y, dtype=float)
        return float(y @ y)

    def matrix(self, params):
        (W,) = params
        return np.matmul(np.swapaxes(W, -1, -2), W) / math.sqrt(self.m * self.X.shape[1])

    def loss_and_gradient(self, params):
        (W,) = params
        c = 1.0 / (self.X.shape[1] * math.sqrt(self.m))
        P = np.matmul(W, self.X.T)  # (K, m, n)
        sq_norm = np.einsum("kij,kij->k", W, W)
        res = (np.einsum("kin,kin->kn", P, P) - sq_norm[:, None]) * c - self.y.astype(W.dtype, copy=False)
        loss = 0.25 * np.einsum("kn,kn->k", res, res, dtype=np.float64)
        P *= res[:, None, :]
        grad = (np.matmul(P, self.X) - np.sum(res, axis=-1)[:, None, None] * W) * c
        return loss, (grad,)


def gd(data: Dataset, *, n_inits: int = 32, width: int | None = None, lr: float | None = None, tol: float = 1e-6,
       max_steps: int = 20_000, record_every: int = 10, dtype=np.float64, warn: bool = True,
       rng) -> _gd.GDResult:
    """Full-batch gradient descent on the network weights from ``n_inits`` random initialisations, and their average.

    Student: ``y_hat = Tr(Z S(W))`` with ``S(W) = W^T W / sqrt(m' d)``, ``W`` in ``R^{m' x d}`` (``m' = width``,
    default the teacher's ``m``), entries initialised ``N(0, 1)`` (the prior), loss ``sum_mu (y_hat - y)^2 / 4``
    (``science/quadratic.md``, Sec. 6). The ``K`` runs are one batched computation per step
    (:func:`solvable.gd.run_gd` with the loss computed on the weights, :class:`_FactorisedSquareLoss`, in
    ``O(n m d)`` per run); each
    stops when its training loss over ``sum(y^2)`` is below ``tol``. ``errors`` and ``average_error`` are in the
    paper normalisation ``(1/d)|S - S*|_F^2``. Noiseless: one run behaves like a posterior sample (about twice
    the Bayes error), the average over initialisations approaches the Bayes error (Maillard et al. 2024).
    ``lr`` defaults to ``min(0.7 / (alpha d), 0.15)``: with the centred sensing map the loss has curvature about
    ``alpha d`` per unit step; ``1 / (alpha d)`` sits at the edge of stability (a run can stall at a relative loss
    of 1e-3 without diverging), and the uncentred student of the notes, Sec. 6, needs about half the step.
    ``dtype=np.float32`` runs the products in single precision (inputs, weights and residuals; losses and errors
    stay float64), about 1.5-2 times faster; the relative-loss target ``tol = 1e-6`` is far above its rounding.
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a solvable.quadratic.Dataset, got {type(data).__name__}")
    rng = check_rng(rng)
    K = check_int("n_inits", n_inits)
    d = data.d
    m = data.m if width is None else check_int("width", width)
    check_size("the students' weights (n_inits, width, d)", K, m, d)
    check_size("the batched products X S of gradient descent (n_inits, n, d)", K, data.n, d)
    lr = min(0.7 / (data.alpha * d), 0.15) if lr is None else check_positive("lr", lr)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    W0 = rng.standard_normal((K, m, d))
    with warnings.catch_warnings():
        if not warn:
            warnings.simplefilter("ignore", ConvergenceWarning)
        return _gd.run_gd(_FactorisedSquareLoss(np.ascontiguousarray(data.X, dtype=dtype), data.y, m),
                          (W0,), lr=lr,
                          tol=tol, max_steps=max_steps, record_every=record_every, target=data.S_star,
                          error=_batched_matrix_error, warn=warn, dtype=dtype)


# --------------------------------------------------------------------------- ERM: the nuclear-norm route


@dataclass(frozen=True)
class NuclearNormResult:
    """Solution of :func:`nuclear_norm_erm`: the PSD estimate, its training loss ``sum (y - Tr(Z S))^2 / n``,
    its nuclear norm, the iterations and whether the tolerance was met."""

    estimate: np.ndarray = field(repr=False)
    train_loss: float
    nuclear_norm: float
    iterations: int
    converged: bool


def _psd_soft_threshold(M, threshold):
    lam, O = np.linalg.eigh(0.5 * (M + M.T))
    return (O * np.maximum(lam - threshold, 0.0)) @ O.T


def nuclear_norm_erm(data: Dataset, lam: float, *, tol: float = 1e-7, max_iter: int = 3000,
                     warn: bool = True) -> NuclearNormResult:
    """ERM of an over-parameterised quadratic network (width ``>= d``) with weight decay, via its convex twin.

    For a student of width ``m' >= d``, every PSD matrix is reachable as ``S = W^T W / sqrt(m' d)``, and every
    ``W`` giving ``S`` has the same norm ``|W|_F^2 = Tr(W^T W) = sqrt(m' d) Tr S``; ERM with weight decay ``lambda``
    is therefore the convex problem (with ``lam = lambda sqrt(m' d)``)
    (Erba, Troiani, Zdeborova, Krzakala, arXiv:2505.17958; ``science/quadratic.md``, Sec. 7)

        min_{S PSD}  sum_mu (y_mu - Tr(Z_mu S))^2 + lam Tr S,

    solved here by accelerated proximal gradient (FISTA, Beck and Teboulle 2009) with gradient-based adaptive
    restart (O'Donoghue and Candes 2015): the prox of ``lam Tr S`` plus the PSD constraint is the eigenvalue
    soft-thresholding ``S -> O max(Lambda - t lam, 0) O^T``. The step is the inverse Lipschitz constant of the
    gradient, found by power iteration. At small ``lam`` the interpolating directions are flat and only the
    penalty moves the iterate along them, slowly: the restart cuts the iterations 5 to 10 fold there (d = 24,
    ``lam = 0.01``: 600-2300 iterations against 7000 to over 30000 without it, errors agreeing to 0.02; the
    relative-change test is no optimality certificate along such flat directions). Errors against the teacher
    in the paper normalisation with :func:`solvable.rie.symmetric_error`. ``lam -> 0+`` in the noiseless case approaches the
    minimum-nuclear-norm interpolator. If the relative change of ``S`` is still above ``tol`` after
    ``max_iter`` iterations, a :class:`~solvable.errors.ConvergenceWarning` says so (unless ``warn=False``); the
    last iterate is returned and ``converged`` is False. Its ``d -> inf`` limit at ``lam = lam_over_d * d``:
    :func:`nuclear_norm_erm_theory`.
    """
    if not isinstance(data, Dataset):
        raise TypeError(f"data must be a solvable.quadratic.Dataset, got {type(data).__name__}")
    lam = check_positive("lam", lam)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    M = QuadraticSensingMap(data.X)
    y, d = data.y, data.d
    # Lipschitz constant of grad = 2 M^T(M S - y): 2 |M|^2, by power iteration on M^T M.
    P = np.eye(d) / math.sqrt(d)
    for _ in range(30):
        P = M.adjoint(M.forward(P))
        P /= np.linalg.norm(P)
    lipschitz = 2.0 * float(np.sum(P * M.adjoint(M.forward(P)))) * 1.05
    step = 1.0 / lipschitz
    S = np.zeros((d, d))
    Yk, t_k = S, 1.0
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        grad = 2.0 * M.adjoint(M.forward(Yk) - y)
        S_new = _psd_soft_threshold(Yk - step * grad, step * lam)
        if float(np.sum((Yk - S_new) * (S_new - S))) > 0.0:
            t_k = 1.0  # adaptive restart: the momentum points uphill, drop it
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t_k**2))
        Yk = S_new + ((t_k - 1.0) / t_new) * (S_new - S)
        change = float(np.linalg.norm(S_new - S)) / max(float(np.linalg.norm(S_new)), 1e-12)
        S, t_k = S_new, t_new
        if change < tol:
            converged = True
            break
    if warn and not converged:
        warnings.warn(f"nuclear_norm_erm did not converge in {it} iterations (relative change {change:.1e})",
                      ConvergenceWarning, stacklevel=2)
    residual = M.forward(S) - y
    return NuclearNormResult(estimate=S, train_loss=float(np.mean(residual**2)),
                             nuclear_norm=float(np.trace(S)), iterations=it, converged=converged)



# --------------------------------------------------------------------------- ERM: its sharp asymptotics


@dataclass(frozen=True)
class SoftThresholdResult:
    """Asymptotic statistics of the PSD soft-threshold ``S_hat = O max(Lambda - t, 0) O^T`` of
    ``Y = S* + sqrt(noise) Z`` (:func:`psd_soft_threshold_stats`): the error ``(1/d)|S_hat - S*|_F^2``, the
    divergence ``(1/d^2) sum_{i != j} (f(y_i) - f(y_j))/(y_i - y_j)``, the fraction of non-zero eigenvalues and
    ``(1/d) Tr S_hat``."""

    mse: float
    divergence: float
    rank_fraction: float
    trace: float


def _soft_threshold_integrals(kappa: float, noise: float, threshold: float, n_nodes: int = 64):
    """``(int rho f^2, int rho f x, 2 int rho f Re G, int rho, int rho f)`` over ``x > threshold``, ``f = x - t``."""
    law = spectra.wishart_plus_goe(kappa, noise)
    pieces = [(max(lo, threshold), hi) for lo, hi in law.pieces if hi > threshold]
    if not pieces:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    x, w = spectra.bulk_quadrature(pieces, n_nodes)
    wr = w * law.density(x)
    f = x - threshold
    return (float(np.sum(wr * f * f)), float(np.sum(wr * f * x)), 2.0 * float(np.sum(wr * f * law.stieltjes_real(x))),
            float(np.sum(wr)), float(np.sum(wr * f)))


def psd_soft_threshold_stats(kappa: float, noise: float, threshold: float) -> SoftThresholdResult:
    """Error and divergence of the PSD eigenvalue soft-threshold of a noisy Wishart matrix, as ``d -> inf``.

    ``Y = S* + sqrt(noise) Z`` with ``S* = W*^T W*/sqrt(m d)`` (paper normalisation, ``kappa = m/d``) and ``Z`` a
    GOE of variance 1; ``f(y) = max(y - t, 0)`` applied to the eigenvalues of ``Y`` is the proximal map of
    ``t Tr S`` plus the PSD constraint. With ``rho`` the density of ``Y`` (free convolution of Marchenko-Pastur
    with a semicircle of variance ``noise``, :class:`solvable.spectra.WishartPlusNoise`) and
    ``h = Re G_Y`` (``pi`` times its Hilbert transform):

    - divergence ``D = int int rho(x) rho(y) (f(x) - f(y))/(x - y) = 2 int rho f h``: the double integral has a
      bounded integrand (``f`` is 1-Lipschitz) and by antisymmetry equals the single one, whose ``h`` is the
      principal-value integral ``PV int rho(y)/(x - y) dy``, here in closed form from the cubic of ``Y``;
    - overlap ``(1/d) Tr(S_hat S*) = int rho f (x - 2 noise h)``: the conditional mean of ``S*`` along an
      eigenvector of ``Y`` is the RIE value ``x - 2 noise Re G_Y(x)`` (Bun et al. 2016, arXiv:1502.06736);
    - error ``mse = int rho f^2 - 2 int rho f x + 2 noise D + (1 + kappa)``.

    Integrals by Gauss-Legendre on the support cut at ``t`` (:func:`solvable.spectra.bulk_quadrature`).
    ``noise`` must lie in ``spectra.NOISE_RANGE``, ``kappa`` in ``spectra.RATIO_RANGE``, ``threshold >= 0``.
    """
    kappa = _check_kappa(kappa)
    noise = check_positive("noise", noise)
    threshold = check_nonnegative("threshold", threshold)
    i_ff, i_fx, div, rank, trace = _soft_threshold_integrals(kappa, noise, threshold)
    mse = max(i_ff - 2.0 * i_fx + 2.0 * noise * div + 1.0 + kappa, 0.0)
    return SoftThresholdResult(mse=mse, divergence=div, rank_fraction=rank, trace=trace)


@dataclass(frozen=True)
class NuclearNormTheoryResult:
    """Sharp asymptotics of :func:`nuclear_norm_erm` (:func:`nuclear_norm_erm_theory`).

    ``mse`` is ``(1/d)|S_hat - S*|_F^2`` (paper normalisation, as :func:`solvable.rie.symmetric_error`),
    ``test_error = delta + 2 mse`` on a fresh noisy label, ``train_loss`` the mean squared residual
    ``(1/n) sum (y - Tr(Z S_hat))^2`` (as :attr:`NuclearNormResult.train_loss`), ``rank_fraction`` the fraction of
    non-zero eigenvalues of ``S_hat``, ``trace = (1/d) Tr S_hat``; ``noise`` and ``threshold`` the effective
    denoising problem (``s`` and ``t``) and ``divergence`` its ``D``."""

    mse: float
    test_error: float
    train_loss: float
    rank_fraction: float
    trace: float
    noise: float
    threshold: float
    divergence: float


#: Smallest effective noise variance of :func:`nuclear_norm_erm_theory` (the floor of ``spectra.NOISE_RANGE``);
#: a fixed point below it is reported at this value (exact recovery, error ~1e-12).
_ERM_NOISE_FLOOR = 1e-12


def _erm_threshold(alpha: float, kappa: float, s: float, lam: float) -> float:
    """Threshold ``t`` solving ``lam = 2 t (2 alpha - D(s, t))`` (``lam = 0``: the ``lam -> 0+`` branch)."""
    def div(t):
        return _soft_threshold_integrals(kappa, s, t)[2]

    top = spectra.wishart_plus_goe(kappa, s).bulks[-1][1]
    hi = max(top, 0.0) + lam / (4.0 * alpha) + 1.0  # above the top edge D = 0 and the gap is 4 alpha t - lam > 0
    if lam == 0.0:
        if div(0.0) <= 2.0 * alpha:
            return 0.0
        return brentq(lambda t: 2.0 * alpha - div(t), 0.0, hi, xtol=1e-13, rtol=1e-12)
    return brentq(lambda t: 2.0 * t * (2.0 * alpha - div(t)) - lam, 0.0, hi, xtol=1e-13, rtol=1e-12)


def nuclear_norm_erm_theory(alpha: float, kappa: float, lam_over_d: float, delta: float = 0.0) -> NuclearNormTheoryResult:
    """Training and test error of :func:`nuclear_norm_erm` as ``d -> inf`` (noisy or noiseless, any penalty).

    The ERM ``min_{S PSD} sum_mu (y_mu - Tr(Z_mu S))^2 + lam' Tr S`` with ``n = alpha d^2`` samples has an O(1)
    limit when ``lam' = lam_over_d * d`` (the loss is a sum of ``n ~ d^2`` terms, ``Tr S ~ d``): call
    ``nuclear_norm_erm(data, lam=lam_over_d * d)``. Erba, Troiani, Zdeborova, Krzakala, arXiv:2505.17958, map
    the ERM of the network onto this convex problem and derive its asymptotics; the equations below are the
    standard state evolution of convex ERM with square loss and a rotation-invariant penalty, written directly in
    this library's normalisations. Derivation: the measurements act as a Gaussian design on the ``N = d^2/2``
    free entries of ``S`` (``E Tr(Z A)^2 = 2|A|_F^2/d``, Gaussian universality), so ``n/N = 2 alpha``; the
    square-loss output step gives ``mhat = Vhat = 4 alpha/(1 + 2V)`` and ``qhat = 16 alpha (mse + delta/2)/(1 + 2V)^2``
    (``V`` the output variance, ``mse = Q0 - 2m + q``); the penalty's proximal step, rescaled, is the PSD
    soft-threshold (:func:`psd_soft_threshold_stats`) of the effective observation ``Y = S* + sqrt(s) Z_GOE`` at
    ``t``, with ``s = qhat/(2 Vhat^2)``, ``t = lam_over_d/Vhat`` and ``V = D/Vhat``. Eliminating the hats and
    ``V``, ``(s, t)`` solve

        4 alpha s = delta + 2 mse(s, t),                   (the residual variance, as in GAMP-RIE)
        lam_over_d = 2 t (2 alpha - D(s, t)),              (the penalty; D the divergence)

    with training loss ``(delta + 2 mse) (1 - D/(2 alpha))^2`` and test error ``delta + 2 mse``. Mapping to the
    authors' variables (their state-evolution code, ``M = sqrt(qhat) Z + mhat S* - 2 lreg I``, ``S_hat =
    relu(M)/Sigmahat``, ``qhat = 2 alpha (Q0 - 2m + q + delta/2)/(Sigma + 1/4)^2``, ``mhat = Sigmahat =
    2 alpha/(Sigma + 1/4)``): ``s = qhat/mhat^2``, ``t = 2 lreg/mhat``, ``lreg = lam_over_d``,
    ``mse = Q0 - 2m + q``, ``Sigma = D/(4 (2 alpha - D))``.

    ``lam_over_d = 0`` is the limit ``lam' -> 0+`` (the minimum-nuclear-norm interpolator when one exists).
    Solved by nested bracketing (``t`` given ``s``, then ``s``; the plain iteration of the two equations
    oscillates at small ``alpha`` and slows down near exact recovery). At finite ``d`` the quadratic network's
    rank-one measurements differ from the GOE design: ERM sits above this limit by a gap shrinking with ``d``
    (``lam_over_d = 1``, ``kappa = 0.5``, ``alpha = 0.3``: about 0.13, 0.075, 0.025, 0.013 at d = 30, 60, 100,
    150). At ``lam_over_d -> 0`` and small ``alpha`` (exact interpolation) it sits below it at d <= 60 (0.89,
    0.84, 0.89 against 1.06 at ``alpha = 0.1``, d = 24, 40, 60): a PSD interpolator has ``x^T S x >= 0``, so
    ``Tr S >= -sqrt(d) min_mu y_mu``, a floor that a Gaussian design does not have and that pins the trace of the
    finite-size minimiser (it binds to 1 % there); it recedes only as ``sqrt(d)`` against ``sqrt(log n)``.
    """
    alpha = check_positive("alpha", alpha)
    kappa = _check_kappa(kappa)
    lam = check_nonnegative("lam_over_d", lam_over_d)
    delta = check_nonnegative("delta", delta)
    q0 = 1.0 + kappa

    def residual_gap(log_s):
        s = math.exp(log_s)
        t = _erm_threshold(alpha, kappa, s, lam)
        return 4.0 * alpha * s - delta - 2.0 * psd_soft_threshold_stats(kappa, s, t).mse

    s_start = (delta + 2.0 * q0) / (4.0 * alpha) + 1.0  # above the noise of the trivial estimate S = 0
    if s_start > 1e-6 * spectra.NOISE_RANGE[1]:
        raise ValueError(f"alpha = {alpha:g} and delta = {delta:g} put the effective noise (delta + 2 (1 + kappa))/"
                         f"(4 alpha) = {s_start:.3g} beyond the range of the spectral law; use a larger alpha or a "
                         f"smaller delta")
    lo = math.log(_ERM_NOISE_FLOOR)
    if residual_gap(lo) >= 0.0:
        log_s = lo
    else:
        hi = math.log(s_start)
        while residual_gap(hi) < 0.0:
            hi += math.log(4.0)
            if hi > math.log(spectra.NOISE_RANGE[1]):  # pragma: no cover - G > 0 at large s for every alpha > 0
                raise ArithmeticError(f"no fixed point found for alpha = {alpha}, kappa = {kappa}")
        log_s = brentq(residual_gap, lo, hi, xtol=1e-12, rtol=1e-12)
    s = math.exp(log_s)
    t = _erm_threshold(alpha, kappa, s, lam)
    st = psd_soft_threshold_stats(kappa, s, t)
    train = (delta + 2.0 * st.mse) * (1.0 - st.divergence / (2.0 * alpha)) ** 2
    # At exact recovery (noise at the floor, t = 0) the teacher's null eigenvalues are smeared over +-1e-6, and
    # half of them would count as non-zero: report the teacher's rank instead.
    rank = min(kappa, 1.0) if (log_s == lo and t == 0.0) else st.rank_fraction
    return NuclearNormTheoryResult(mse=st.mse, test_error=delta + 2.0 * st.mse, train_loss=train,
                             rank_fraction=rank, trace=st.trace, noise=s, threshold=t,
                             divergence=st.divergence)

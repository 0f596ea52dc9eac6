"""Bilinear sequence regression (BSR): learning a low-rank matrix from long sequences of tokens.

Model (``science/bsr.md``, Sec. 1; Erba, Troiani, Biggio, Maillard, Zdeborova, "Bilinear sequence regression:
a model for learning from long sequences of high-dimensional tokens", arXiv:2410.18858, PRX 2025). A
sequence of ``L`` tokens of dimension ``d`` is a matrix ``X_mu`` in ``R^{d x L}`` with i.i.d. N(0, 1) entries;
the teacher is ``S* = U* V*^T/sqrt(r)`` with ``U*`` in ``R^{d x r}``, ``V*`` in ``R^{L x r}`` i.i.d. N(0, 1)
(unit-variance entries), and the labels are

    y_mu = <X_mu, S*>/sqrt(dL) + sqrt(delta) z_mu = Tr[X_mu^T U* V*^T]/sqrt(d L r) + sqrt(delta) z_mu.   (1)

Parameters keep the paper's symbols: ``alpha = n/(dL)``, ``beta = L/d``, ``rho = r/min(d, L)`` (``= r/d`` in
the paper, which takes ``d <= L``), ``delta`` the label-noise variance. Errors are per entry on the unit
scale, ``MSE = ||S_hat - S*||_F^2/(dL)`` (1 for ``S_hat = 0``); the test error on a fresh noisy label is
``MSE + delta``.

``beta < 1`` (``d > L``): every formula is invariant under transposing the problem (``d <-> L``), so the
theory functions read ``beta`` as ``max(beta, 1/beta)``; ``rho`` is always ``r/min(d, L)``, which is the
paper's ``rho`` of the transposed problem. Data are never transposed: :func:`sample` draws ``d x L`` tokens as
asked and the rectangular denoiser transposes internally.

Theory (Sec. 2): with the effective matrix-denoising noise ``Rn(q) = (delta + 1 - q)/alpha``, the
Bayes-optimal overlap solves the scalar fixed point

    q = 1 - mmse_den(beta, rho, Rn(q)),                                                          (2)

``mmse_den`` the MMSE of the rectangular rotationally invariant estimator (:func:`solvable.rie.rectangular_rie_mmse`;
Troiani, Erba, Krzakala, Maillard, Zdeborova, arXiv:2203.07752). Iterating (2) from ``q_0 = 0`` is the state
evolution of GAMP-RIE; it is the GLM state evolution of :mod:`solvable.amp` with the noisy linear channel
and the rectangular RIE in the place of the separable prior. Rigorous: Xu, Maillard, Zdeborova, Krzakala,
arXiv:2503.14121.

Algorithm (Sec. 3): GAMP-RIE is :func:`solvable.amp.run_gamp` with the linear map ``S -> <X_mu, S>/sqrt(dL)``
(:class:`BilinearMap`), the noisy linear channel and the rectangular RIE as denoiser
(:class:`solvable.rie.RectangularRIEDenoiser`, shared with the matrix toolbox). It runs on the unit scale: the
signal is ``S`` itself and the map is the perceptron's ``F = X/sqrt(dL)`` on ``vec(X)``. The notes' scaled convention (``S_ = S/(dL)^{1/4}``,
``uX = X/(dL)^{1/4}``) gives identical iterates: its precision ``A`` is ours, its
``||S_new - S||_F^2/sqrt(dL)`` on scaled matrices is our ``mean((S_new - S)^2)``.

Baselines (Secs. 4-5): perfect-recovery threshold (parameter counting), ridge on ``vec(X)``, minimum
nuclear norm (threshold of Donoho, Gavish, Montanari, PNAS 110:8405 (2013), arXiv:1302.2331). Gradient
descent on ``(U, V)`` (Sec. 6) is :func:`gd`, built on :mod:`solvable.gd`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import linalg
from scipy.optimize import brentq

from . import gd as _gd
from . import rie
from .amp import GAMPResult, SEResult, check_tol, iterate_state_evolution, run_gamp
from .channels import LinearChannel
from .errors import ConvergenceWarning, DivergenceError
from .regression import fit_ridge as _fit_ridge_dense
from .regression import gaussian_linear_mse
from .spectra import RATIO_RANGE, bulk_quadrature
from .validation import (
    all_finite,
    check_array,
    check_choice,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    check_size,
)

__all__ = [
    "Dataset",
    "sample",
    "mse",
    "normalised_mse",
    "bayes_optimal_mmse",
    "state_evolution",
    "perfect_recovery_threshold",
    "nuclear_norm_threshold",
    "low_rank_sample_ratio",
    "low_rank_limit_mmse",
    "ridge_mse",
    "BilinearMap",
    "gamp_rie",
    "fit_ridge",
    "MNNEResult",
    "min_nuclear_norm",
    "gd",
]

#: Largest quadrature size of :func:`nuclear_norm_threshold` (a root search evaluates it ~50 times).
_MAX_NODES = 100_000
#: Upper end of the Brent bracket for the noiseless fixed point (``q = 1`` is always a root there).
_Q_TOP_NOISELESS = 1.0 - 1e-12


# --------------------------------------------------------------------------- data




@dataclass(frozen=True)
class Dataset:
    """A BSR data set drawn by :func:`sample`.

    Attributes
    ----------
    X : array (n, d, L)
        The input sequences ``X_mu`` (unit-variance entries, not rescaled). Stored as one C-contiguous
        ``(n, d, L)`` array so that ``X.reshape(n, d * L)`` is a view: the flattened ``(n, dL)`` design that
        every algorithm multiplies by, with no copy (memory ``8 n d L`` bytes, 240 MB at ``d = L = 100``,
        ``alpha = 0.3``).
    y : array (n,)
        Labels (1).
    S_star : array (d, L)
        Teacher ``U* V*^T/sqrt(r)`` on the unit scale.
    U_star, V_star : arrays (d, r), (L, r)
        Its factors.
    delta : float
        Label-noise variance.
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    S_star: np.ndarray = field(repr=False)
    U_star: np.ndarray = field(repr=False)
    V_star: np.ndarray = field(repr=False)
    delta: float = 0.0

    def __post_init__(self):
        X, y, S = np.asarray(self.X), np.asarray(self.y), np.asarray(self.S_star)
        U, V = np.asarray(self.U_star), np.asarray(self.V_star)
        if X.ndim != 3 or y.ndim != 1 or S.ndim != 2 or U.ndim != 2 or V.ndim != 2:
            raise ValueError(
                "X, y, S_star, U_star, V_star must be 3-d (n, d, L), 1-d (n,), 2-d (d, L), (d, r), (L, r); "
                f"got shapes {X.shape}, {y.shape}, {S.shape}, {U.shape}, {V.shape}"
            )
        n, d, L = X.shape
        if y.shape[0] != n or S.shape != (d, L) or U.shape[0] != d or V.shape[0] != L or U.shape[1] != V.shape[1]:
            raise ValueError(
                f"shapes do not match: X is (n, d, L) = {X.shape}, so y must be ({n},), S_star ({d}, {L}), "
                f"U_star ({d}, r) and V_star ({L}, r); got {y.shape}, {S.shape}, {U.shape}, {V.shape}"
            )
        for name, arr in (("X", X), ("y", y), ("S_star", S), ("U_star", U), ("V_star", V)):
            if not all_finite(arr):
                raise ValueError(f"{name} must contain finite numbers only")
        check_nonnegative("delta", self.delta)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def L(self) -> int:
        return self.X.shape[2]

    @property
    def r(self) -> int:
        return self.U_star.shape[1]

    @property
    def alpha(self) -> float:
        """Sample ratio ``n/(dL)``."""
        return self.n / (self.d * self.L)

    @property
    def beta(self) -> float:
        """Aspect ratio ``L/d`` (the theory reads ``beta < 1`` as ``1/beta``)."""
        return self.L / self.d

    @property
    def rho(self) -> float:
        """Rank ratio ``r/min(d, L)``."""
        return self.r / min(self.d, self.L)

    @property
    def design(self) -> np.ndarray:
        """The flattened design ``X.reshape(n, d L)`` (a view)."""
        return self.X.reshape(self.n, self.d * self.L)


def sample(d: int, L: int, r: int, alpha: float, delta: float = 0.0, *, rng) -> Dataset:
    """Draw a BSR teacher and ``n = round(alpha d L)`` labelled sequences, eq. (1) (``science/bsr.md``, Sec. 1).

    Draw order (fixed, so that a seed reproduces a run; it is the order of the authors' code, with which
    ``reference/bsr.csv``'s GAMP-RIE rows were computed): ``X`` (n, d, L), ``U*`` (d, r), ``V*^T`` (r, L),
    then the label noise (only if ``delta > 0``). ``d > L`` is allowed (``beta < 1``; see the module
    docstring); ``r > min(d, L)`` gives a full-rank teacher (``rho > 1``), which the theory also covers.

    Parameters
    ----------
    d, L, r : int >= 1
        Token dimension, sequence length, rank (width).
    alpha : float > 0
        ``n/(dL)``; at least one sample is drawn.
    delta : float >= 0
        Label-noise variance.
    rng : numpy.random.Generator or int
        Source of randomness (required).

    Raises
    ------
    ValueError
        For a parameter out of range (named), or sizes whose arrays would exceed
        :data:`solvable.validation.MAX_ELEMENTS` numbers (e.g. ``sample(100, 100, 20, 1e6, rng=0)``).
    """
    d, L, r = check_int("d", d), check_int("L", L), check_int("r", r)
    alpha = check_positive("alpha", alpha)
    delta = check_nonnegative("delta", delta)
    rng = check_rng(rng)
    n = max(1, round(alpha * d * L))
    check_size("the inputs X (n = alpha d L, d, L)", n, d, L)
    check_size("the factor U* (d, r)", d, r)
    check_size("the factor V* (L, r)", L, r)
    X = rng.standard_normal((n, d, L))
    U = rng.standard_normal((d, r))
    V = rng.standard_normal((r, L)).T
    S = U @ V.T / math.sqrt(r)
    y = X.reshape(n, d * L) @ S.reshape(-1) / math.sqrt(d * L)
    if delta > 0:
        y = y + math.sqrt(delta) * rng.standard_normal(n)
    return Dataset(X=X, y=y, S_star=S, U_star=U, V_star=V, delta=delta)


def mse(estimate, target) -> float:
    """Per-entry error ``||S_hat - S*||_F^2/(dL)`` on the unit scale (``target`` a matrix or a :class:`Dataset`).

    ``estimate`` must have the target's shape and finite entries (``ValueError`` otherwise).
    """
    if isinstance(target, Dataset):
        target = target.S_star
    estimate, target = _check_pair(estimate, target, batch=False)
    diff = estimate - target
    return _finite_error(float(np.mean(diff * diff)))


def _finite_error(value):
    """An error that overflowed (entries near 1e154 and beyond) is refused rather than returned as inf."""
    if not np.all(np.isfinite(value)):
        raise ValueError("estimate and target are too large: their squared difference overflows")
    return value


def _check_pair(estimate, target, *, batch: bool):
    """``(estimate, target)`` as float arrays: ``target`` a finite non-empty matrix, ``estimate`` finite with
    the same shape (or, with ``batch``, leading batch axes before it). No broadcasting: a ``(d,)`` vector against
    a ``(d, L)`` matrix is an error, not an error per column."""
    target = check_array("target", target, finite=False, nonempty=False)
    estimate = check_array("estimate", estimate, finite=False, nonempty=False)
    if target.ndim != 2 or target.size == 0:
        raise ValueError(f"target must be a non-empty (d, L) matrix, got shape {target.shape}")
    ok = estimate.shape[-2:] == target.shape if batch else estimate.shape == target.shape
    if estimate.ndim < 2 or not ok:
        raise ValueError(f"estimate must {'end with' if batch else 'have'} the shape of the target {target.shape}, "
                         f"got {estimate.shape}")
    if not (np.all(np.isfinite(estimate)) and np.all(np.isfinite(target))):
        raise ValueError("estimate and target must contain finite numbers only")
    return estimate, target


def normalised_mse(estimate, target):
    """Error relative to the teacher's own size, ``||S_hat - S*||_F^2/||S*||_F^2``, for finite-size experiments.

    The theory's MSE is per entry of a unit-variance teacher; at finite size the teacher's empirical
    ``||S*||_F^2/(dL)`` fluctuates around 1 (standard deviation about ``2/sqrt(d r)`` for ``d = L``: 4.5 % at
    ``d = 100``, ``r = 20``), and the error of every estimator at small ``alpha`` moves with it (``S_hat = 0``
    has error exactly ``||S*||^2/(dL)``). Dividing by it removes that fluctuation, which is about the teacher,
    not the algorithm: at ``d = L = 100``, ``alpha = 0.1`` the spread of GAMP-RIE's error over data sets drops
    from about 0.04 to 0.01. Both errors have the same large-size limit, :func:`bayes_optimal_mmse` for the
    posterior mean. ``estimate`` may carry leading batch axes (e.g. the ``(K, d, L)`` estimates of :func:`gd`):
    a float for one ``(d, L)`` matrix, an array over the batch otherwise.
    """
    if isinstance(target, Dataset):
        target = target.S_star
    estimate, target = _check_pair(estimate, target, batch=True)
    scale = float(np.mean(target * target))
    if scale == 0.0:
        raise ValueError("the target must not be zero")
    diff = estimate - target
    errors = np.mean(diff * diff, axis=(-2, -1)) / scale
    errors = _finite_error(errors)
    return float(errors) if errors.ndim == 0 else errors


# --------------------------------------------------------------------------- theory


def _check_beta(beta) -> float:
    """``beta > 0`` (``math.inf`` allowed), folded to ``max(beta, 1/beta)``."""
    beta = check_positive("beta", beta, allow_inf=True)
    return max(beta, 1.0 / beta)


def _check_rho(rho) -> float:
    """``rho`` in ``spectra.RATIO_RANGE`` ([1e-4, 1e6]: where the rectangular law is resolved)."""
    rho = check_positive("rho", rho)
    if not RATIO_RANGE[0] <= rho <= RATIO_RANGE[1]:
        raise ValueError(f"rho must be a number in [{RATIO_RANGE[0]:g}, {RATIO_RANGE[1]:g}] (the range where the "
                         f"rectangular RIE is resolved, solvable.spectra.RATIO_RANGE), got {rho!r}")
    return rho


#: From this aspect ratio on, :func:`bayes_optimal_mmse` and :func:`state_evolution` do not evaluate the
#: finite-``beta`` quadrature of :func:`solvable.rie.rectangular_rie_mmse`, which is no longer resolved there
#: (measured errors 5e-6 at noise 10, ``rho = 1``, ``beta = 1e7``; 0.25 at noise 1000, ``rho = 3``,
#: ``beta = 1e9``, inside ``[0, 1]``, hence not caught by its range check), but the bracket of :func:`_mmse_den`.
BETA_WIDE = 1e7
#: Largest half-width of the bracket of :func:`_mmse_den` whose middle is returned where the quadrature is not
#: used or not resolved; a wider bracket raises ``ArithmeticError``.
FALLBACK_TOL = 1e-3


def _mmse_den_bracket(beta: float, rho: float, noise: float) -> tuple[float, float]:
    """Bounds ``lo <= mmse_den(beta, rho, noise) <= hi`` that need no finite-``beta`` quadrature.

    ``lo = mmse_inf(noise)``, the closed-form ``beta = inf`` limit (``mmse_den`` decreases with ``beta`` in every
    measured case: more columns of the same rank-``r`` signal); ``hi`` is the smaller of ``noise/(1 + noise)``
    (the linear estimator ``Y/(1 + noise)`` is rotation-equivariant, hence no better than the RIE) and
    ``lo + 2 max(noise, 5)/beta``: measured (``rie.rectangular_rie_mmse`` against its closed-form limit, ``rho`` in
    {0.1, 1, 3}, noise 0.01-1000, ``beta`` 1-1e6 where resolved), ``mmse_den - mmse_inf`` decays like ``c/beta``
    with ``c`` at most 0.62 of ``2 max(noise, 5)`` (``c = 6.2`` at noise 1, ``rho = 1``; ``c = 95`` at noise 100,
    ``rho = 1``; ``c = 18`` at noise 100, ``rho = 0.1``) and stays below that line before the ``1/beta`` regime.
    """
    lo = rie.rectangular_rie_mmse(noise, math.inf, rho)
    hi = min(noise / (1.0 + noise), lo + 2.0 * max(noise, 5.0) / beta)
    return lo, max(hi, lo)


def _mmse_den(beta: float, rho: float, noise: float) -> float:
    """``mmse_den`` of ``science/bsr.md``: the rectangular-RIE MMSE (:func:`solvable.rie.rectangular_rie_mmse`),
    made safe over the whole domain ``beta in [1, inf]`` (folded), ``rho > 0``, ``noise >= 0``.

    ``beta = inf``: the closed form. ``beta < BETA_WIDE``: the quadrature, checked against the bracket of
    :func:`_mmse_den_bracket`. For ``beta >= BETA_WIDE``, or where the quadrature is not resolved (it raises
    ``ArithmeticError`` at huge noise, e.g. from noise 3e3 at ``beta = 1e6``, ``rho = 0.1``) or leaves the
    bracket, the middle of the bracket, if its half-width is at most :data:`FALLBACK_TOL` (then also the error
    bound); else ``ArithmeticError`` naming the point. The half-width is ``max(noise, 5)/beta`` at moderate noise
    (1e-6 at ``beta = 1e7``, noise 5) and at most ``(1/rho - 1)/(2 noise)`` at large noise, where both ends tend
    to 1 (e.g. 5e-6 at ``beta = 1e8``, ``rho = 0.1``, noise 1e6); it exceeds 1e-4 in a window of noise around
    ``sqrt(beta)`` (noise 400-4000 at ``beta = 1e6``, ``rho = 0.1``), where the quadrature must be resolved.
    """
    if math.isinf(noise):  # (delta + 1 - q)/alpha overflows at a subnormal alpha: no information
        return 1.0
    if math.isinf(beta) or noise == 0.0:
        return rie.rectangular_rie_mmse(noise, math.inf, rho)
    lo, hi = _mmse_den_bracket(beta, rho, noise)
    if beta < BETA_WIDE:
        try:
            value = rie.rectangular_rie_mmse(noise, beta, rho)
        except ArithmeticError:
            value = math.nan
        slack = 1e-9 + noise * noise  # rounding, and the first-order small-noise limit of the quadrature
        if lo - slack <= value <= hi + slack:
            return min(max(value, lo), hi)
    half = 0.5 * (hi - lo)
    if half <= FALLBACK_TOL:
        return lo + half
    raise ArithmeticError(
        f"the rectangular-RIE MMSE at beta = {beta:g}, rho = {rho:g}, noise {noise:g} is not resolved by the "
        f"quadrature, and its bounds [{lo:.6g}, {hi:.6g}] are wider than {2 * FALLBACK_TOL:g}; "
        f"beta = math.inf gives the closed-form limit"
    )


class _SEDenoiser:
    """The rectangular RIE seen as the "prior" of :func:`solvable.amp.iterate_state_evolution`:
    ``q = 1 - mmse_den(1/mhat)`` (``0`` for ``mhat <= 0``), with :func:`_mmse_den`, so that the iterates and the
    Brent fixed point of :func:`bayes_optimal_mmse` use the same ``mmse_den``."""

    def __init__(self, beta: float, rho: float):
        self.beta, self.rho = beta, rho

    def se_overlap(self, mhat):
        mhat = float(mhat)
        if mhat <= 0.0:
            return 0.0
        return 1.0 - _mmse_den(self.beta, self.rho, 1.0 / mhat)


def _parameter_fraction(beta: float, rho: float) -> float:
    """``r(d + L - r)/(dL)`` at folded ``beta`` (``min(rho, 1)`` at ``beta = inf``)."""
    if math.isinf(beta):
        return min(rho, 1.0)
    return rie.rectangular_parameter_fraction(beta, rho)


def perfect_recovery_threshold(beta: float, rho: float) -> float:
    """Sample ratio ``alpha_PR`` above which noiseless Bayes-optimal learning is exact.

    ``alpha_PR = rho (1 + beta - rho)/beta`` for ``rho < 1`` and 1 for ``rho >= 1``: the number of free
    parameters ``r(d + L - r)`` of a rank-``r`` ``d x L`` matrix over ``dL`` (``science/bsr.md``, Sec. 4;
    arXiv:2410.18858). ``beta = inf`` gives ``min(rho, 1)``; ``beta < 1`` is read as ``1/beta``.
    """
    return _parameter_fraction(_check_beta(beta), _check_rho(rho))


def low_rank_sample_ratio(alpha: float, beta: float, rho: float) -> float:
    """``alpha_LR = n/(r(d + L)) = alpha beta/((1 + beta) rho)``, the sample ratio in low-rank units
    (``science/bsr.md``, Sec. 4). ``beta`` must be finite here."""
    alpha = check_nonnegative("alpha", alpha)
    beta = check_positive("beta", beta)
    beta = max(beta, 1.0 / beta)
    return alpha * beta / ((1.0 + beta) * _check_rho(rho))


def low_rank_limit_mmse(alpha_lr: float, beta: float, delta: float = 0.0) -> float:
    """Bayes-optimal per-entry MMSE on ``S*`` in the low-rank limit ``rho -> 0`` at fixed ``alpha_LR``.

    ``alpha_LR = n/(r(d + L))`` (:func:`low_rank_sample_ratio`). The limit is the matrix sensing of a rank-``r``
    matrix with ``r = O(1)`` (then ``r -> inf``; with Gaussian factors the equations do not depend on ``r``):
    the linear channel turns the ``n`` labels into the denoising problem ``Y = S* + sqrt(D) Z`` with
    ``D = (delta + E)/alpha`` (as in :func:`bayes_optimal_mmse`), in which each of the ``r`` spikes ``u v^T``
    gives its factor ``v`` (length ``L``) the signal-to-noise ratio ``gamma = 1/(rho D)`` per unit overlap of ``u``
    and its factor ``u`` (length ``d``) the ratio ``beta gamma`` per unit overlap of ``v``.
    Their Gaussian-prior state evolution (Lesieur, Krzakala, Zdeborova, arXiv:1701.00858; the
    non-symmetric case of Miolane, arXiv:1702.00473) has the fixed point, with ``t = 1/gamma``,

        m_u = (beta - t^2)/(beta + t),   m_v = (beta - t^2)/(beta (1 + t))   (t^2 < beta; else m_u = m_v = 0),

    so the matrix error is ``E = 1 - m_u m_v``. Closing the loop, ``t = beta (delta + E)/(alpha_LR (1 + beta))``
    (derived in chapter 3, Sec. 3.3, from arXiv:2410.18858's equation ``q = 1 - mmse_den((delta + 1 - q)/alpha)``
    with ``alpha = alpha_LR (1 + beta) rho/beta``):

        E = 1 - (beta - t^2)^2/(beta (1 + t)(beta + t)),   t = beta (delta + E)/(alpha_LR (1 + beta)).

    ``E = 1`` (no recovery) up to the weak-recovery threshold ``alpha_LR = (1 + delta) sqrt(beta)/(1 + beta)``;
    without noise ``E -> 0`` at ``alpha_LR = 1`` (the parameter count) and ``E = 0`` above. ``beta = 1``,
    ``delta = 0``: ``E = 4 alpha_LR (1 - alpha_LR)`` on ``[1/2, 1]``. ``beta = inf``: ``E = t/(1 + t)``
    (``1 - alpha_LR`` without noise, the ``rho -> 0`` limit of ``(1 - alpha)(1 - alpha/rho)``). The root is
    found by Brent's method; it was unique on a scan of 4,500 points (``beta`` 1-100, ``delta`` 0-2,
    ``alpha_LR`` 0.02-3). :func:`bayes_optimal_mmse` at ``alpha = alpha_LR (1 + beta) rho/beta`` converges to it
    as ``rho -> 0``, with a gap roughly proportional to ``rho`` away from the thresholds (``tests/test_bsr.py``).

    Parameters
    ----------
    alpha_lr : float >= 0
        ``n/(r(d + L))``.
    beta : float > 0 or math.inf
        ``L/d`` (``beta < 1`` is read as ``1/beta``).
    delta : float >= 0
        Label-noise variance.

    Returns
    -------
    float in [0, 1]
        The limiting MMSE ``E`` (the test error on a fresh noisy label is ``E + delta``).
    """
    alpha_lr = check_nonnegative("alpha_lr", alpha_lr)
    beta = _check_beta(beta)
    delta = check_nonnegative("delta", delta)
    if delta == 0.0 and alpha_lr >= 1.0:
        return 0.0
    if alpha_lr == 0.0:
        return 1.0
    inv = 1.0 / beta  # 0 at beta = inf; the expressions below stay finite for beta up to the float maximum
    scale = 1.0 / (1.0 + inv)  # t = scale (delta + E)/alpha_LR

    def error(t):
        """``1 - m_u m_v`` of the rank-one Gaussian spike at inverse SNR ``t``."""
        if t * t >= beta:
            return 1.0
        # = 1 - (beta - t^2)^2/(beta (1 + t)(beta + t)), divided through by beta^2 and written without the
        # cancellation at small t; at beta = inf it is t/(1 + t)
        return t * (1.0 + inv + 3.0 * t * inv - t**3 * inv * inv) / ((1.0 + t) * (1.0 + t * inv))

    def h(e):
        return e - error(scale * (delta + e) / alpha_lr)

    if h(1.0) <= 0.0:  # below the weak-recovery threshold: the uninformative fixed point E = 1
        return 1.0
    # h(e) ~ e (1 - 1/alpha_LR) < 0 as e -> 0 without noise (alpha_LR < 1); h(0) = -error(...) < 0 with noise.
    low = 0.0 if delta > 0.0 else 1e-300
    if h(low) >= 0.0:  # noiseless, alpha_LR within rounding of 1
        return 0.0
    return float(brentq(h, low, 1.0, xtol=1e-15, rtol=1e-14, maxiter=200))


def ridge_mse(alpha: float, delta: float = 0.0) -> float:
    """Asymptotic MSE of ridge regression on ``vec(X)`` with ``lambda = delta`` (``science/bsr.md``, Sec. 5).

    ``m`` is the positive root of ``m^2 + (delta + alpha - 1) m - delta = 0``; ``max(1 - alpha, 0)`` at
    ``delta = 0`` (minimum-norm interpolator). It ignores the low-rank structure, hence does not depend on
    ``beta`` or ``rho``: it is the Gaussian-prior linear-channel MMSE of the perceptron chapter
    (:func:`solvable.glm.bayes_gen_error` with ``prior="gaussian", channel="linear"``).
    """
    alpha = check_nonnegative("alpha", alpha)
    delta = check_nonnegative("delta", delta)
    return gaussian_linear_mse(alpha, delta)


def nuclear_norm_threshold(beta: float, rho: float, *, n_nodes: int = 200) -> float:
    """Sample ratio above which the minimum-nuclear-norm estimator recovers ``S*`` exactly (noiseless).

    Donoho-Gavish-Montanari recipe (``science/bsr.md``, Sec. 5; PNAS 110:8405 (2013), arXiv:1302.2331):
    ``b = 1/beta <= 1``, ``gamma = b(1 - rho)/(1 - rho b)``, ``p_gamma`` the Marchenko-Pastur density
    ``sqrt((g+ - t)(t - g-))/(2 pi gamma t)`` on ``[g-, g+] = [(1 - sqrt gamma)^2, (1 + sqrt gamma)^2]``,
    ``P_k(x) = int_{max(x, g-)}^{g+} t^k p_gamma(t) dt``. ``lambda`` is the unique root in
    ``(0, sqrt(g+))`` of ``P_{1/2}(lambda^2) - lambda P_0(lambda^2) - lambda rho/(1 - rho)``, and

        alpha_MNNE = rho + b rho - b rho^2 + (1 - rho b)[rho lambda^2
                     + (1 - rho)(P_1 - 2 lambda P_{1/2} + lambda^2 P_0)(lambda^2)].

    ``beta = inf`` (``b = 0``): ``p_gamma`` is a point mass at 1, ``lambda = 1 - rho`` and
    ``alpha_MNNE = rho (2 - rho)``. ``rho >= 1`` (full rank) gives 1, the limit of the formula. The
    integrals use Gauss-Legendre after ``t = mid - half cos(theta)`` (:func:`solvable.spectra.bulk_quadrature`;
    ``n_nodes = 200`` is converged to about 1e-10).
    """
    beta = _check_beta(beta)
    rho = _check_rho(rho)
    n_nodes = check_int("n_nodes", n_nodes, minimum=2)
    if n_nodes > _MAX_NODES:
        raise ValueError(f"n_nodes must be an integer in [2, {_MAX_NODES}] (200 is converged to 1e-10), "
                         f"got {n_nodes}")
    if rho >= 1.0:
        return 1.0
    if math.isinf(beta):
        return rho * (2.0 - rho)
    b = 1.0 / beta
    gamma = b * (1.0 - rho) / (1.0 - rho * b)
    lo, hi = (1.0 - math.sqrt(gamma)) ** 2, (1.0 + math.sqrt(gamma)) ** 2

    def moments(x):
        """``(P_0, P_{1/2}, P_1)(x)``."""
        a = max(x, lo)
        if a >= hi:
            return 0.0, 0.0, 0.0
        t, w = bulk_quadrature([(a, hi)], n_nodes)
        p = w * np.sqrt(np.maximum((hi - t) * (t - lo), 0.0)) / (2.0 * math.pi * gamma * t)
        return float(p.sum()), float(p @ np.sqrt(t)), float(p @ t)

    def f(lam):
        p0, ph, _ = moments(lam * lam)
        return ph - lam * p0 - lam * rho / (1.0 - rho)

    lam = brentq(f, 0.0, math.sqrt(hi), xtol=1e-14, rtol=1e-14)
    p0, ph, p1 = moments(lam * lam)
    bracket = rho * lam**2 + (1.0 - rho) * (p1 - 2.0 * lam * ph + lam**2 * p0)
    return float(rho + b * rho - b * rho**2 + (1.0 - rho * b) * bracket)


def _fixed_point_overlap(alpha: float, beta: float, rho: float, delta: float) -> float:
    """Root of ``f(q) = q - 1 + mmse_den(Rn(q))`` by Brent (``science/bsr.md``, Sec. 2).

    ``f(0) = mmse_den((1 + delta)/alpha) - 1 < 0``. With noise ``f(1) = mmse_den(delta/alpha) > 0``; without,
    ``q = 1`` is always a root and ``f(1 - eps) ~ eps (alpha_PR/alpha - 1)`` is positive below ``alpha_PR``.
    """
    if alpha == 0.0:
        return 0.0
    if delta == 0.0 and alpha >= _parameter_fraction(beta, rho):
        return 1.0

    def f(q):
        return q - 1.0 + _mmse_den(beta, rho, (delta + 1.0 - q) / alpha)

    top = 1.0 if delta > 0 else _Q_TOP_NOISELESS
    if f(top) <= 0.0:  # noiseless, alpha within ~1e-12 of alpha_PR: the error is below 1e-12
        return 1.0
    return float(brentq(f, 0.0, top, xtol=1e-14, maxiter=200))


def bayes_optimal_mmse(alpha: float, beta: float, rho: float, delta: float = 0.0) -> float:
    """Bayes-optimal per-entry MMSE on ``S*``, ``1 - q`` at the fixed point (2) (``science/bsr.md``, Sec. 2).

    Solves ``q = 1 - mmse_den(beta, rho, (delta + 1 - q)/alpha)`` by Brent's method (arXiv:2410.18858;
    ``mmse_den`` of Troiani et al., arXiv:2203.07752). 1 at ``alpha = 0``; exactly 0 for ``delta = 0`` and
    ``alpha >= alpha_PR`` (:func:`perfect_recovery_threshold`). The test error on a fresh noisy label is
    this plus ``delta``. ``beta = math.inf`` uses the limiting closed-form ``mmse_den``; at ``delta = 0`` and
    ``alpha < rho < 1`` the result is ``(1 - alpha)(1 - alpha/rho)``.

    Numerics over the whole domain (:func:`_mmse_den`): ``mmse_den`` at finite ``beta`` is a quadrature over
    the spectral law of :func:`solvable.rie.rectangular_rie_mmse`, checked against the bracket
    ``[mmse_inf, min(D/(1 + D), mmse_inf + 2 max(D, 5)/beta)]`` at noise ``D`` (``mmse_inf`` the closed form of
    ``beta = inf``). For ``beta >= BETA_WIDE = 1e7``, or where the quadrature is not resolved (huge noise
    ``D = (delta + mmse)/alpha``), the middle of that bracket is used when its half-width is at most
    ``FALLBACK_TOL = 1e-3`` (the error bound then): e.g. ``bayes_optimal_mmse(1e-4, 1e8, 0.1, 100.0) = 0.999994``
    (the quadrature used to return 0.0; the truth lies between the ``beta = inf`` value 0.999989 and the ridge
    error 0.999999). Otherwise ``ArithmeticError`` names the point: on a log-uniform sweep of 1,512 points
    (``alpha`` 1e-8-1e3, ``beta`` 1-1e9 and inf, ``rho`` 1e-3-100, ``delta`` 0-1e6) this happened at 21, all with
    ``beta >= 1e6``, ``rho <= 0.1`` and a noise ``D`` near ``sqrt(beta)``; ``beta = math.inf`` is then the
    closed-form limit. The result always lies in ``[0, ridge_mse(alpha, delta)]``.

    Parameters
    ----------
    alpha : float >= 0
        ``n/(dL)``.
    beta : float > 0 or math.inf
        ``L/d`` (``beta < 1`` is read as ``1/beta``).
    rho : float > 0
        ``r/min(d, L)``; ``rho >= 1`` is a full-rank teacher (the rectangular RIE covers it).
    delta : float >= 0
        Label-noise variance.
    """
    alpha = check_nonnegative("alpha", alpha)
    beta = _check_beta(beta)
    rho = _check_rho(rho)
    delta = check_nonnegative("delta", delta)
    return _mmse_from_overlap(_fixed_point_overlap(alpha, beta, rho, delta), alpha, delta)


def _mmse_from_overlap(q: float, alpha: float, delta: float) -> float:
    """``1 - q``, checked against its range ``[0, ridge_mse(alpha, delta)]`` (the linear estimator is a
    rotation-equivariant denoiser, so the Bayes error is never above ridge's; rounding is clipped)."""
    top = gaussian_linear_mse(alpha, delta)
    value = 1.0 - q
    if not (math.isfinite(value) and -1e-9 <= value <= top + 1e-9):
        raise ArithmeticError(f"the BSR fixed point gave an MMSE {value!r} outside [0, {top!r}] "
                              f"(alpha = {alpha!r}, delta = {delta!r})")
    return float(min(max(value, 0.0), top))


def state_evolution(alpha: float, beta: float, rho: float, delta: float = 0.0, *, q0: float = 0.0,
                    tol: float = 1e-10, max_iter: int = 1000, warn: bool = True) -> SEResult:
    """State evolution of GAMP-RIE and its fixed point (``science/bsr.md``, Sec. 2).

    Iterates ``q_{t+1} = 1 - mmse_den(beta, rho, (delta + 1 - q_t)/alpha)`` from ``q_0`` through the shared
    :func:`solvable.amp.iterate_state_evolution` (noisy linear channel: ``mhat = alpha/(delta + 1 - q)``;
    "prior": the rectangular RIE, ``q = 1 - mmse_den(1/mhat)``) until ``|q_{t+1} - q_t| < tol``; reaching
    ``max_iter`` warns (:class:`~solvable.errors.ConvergenceWarning`; the iteration is critically slow near
    ``alpha_PR``). The reported fixed point is the Brent root of :func:`bayes_optimal_mmse`, which the
    iteration from ``q_0 = 0`` (or 0.5) reaches in every tested case: no hard phase in BSR.

    Parameters
    ----------
    alpha, beta, rho, delta : see :func:`bayes_optimal_mmse`.
    q0 : float in [0, 1]
        Initial overlap (0: GAMP-RIE started from ``S_hat = 0``).
    tol : float in [0, 1)
        ``0`` runs exactly ``max_iter`` iterations (no convergence test, no warning).
    max_iter : int >= 1
    warn : bool
        Warn at the cap (default).

    Returns
    -------
    :class:`solvable.amp.SEResult` with ``error`` the Bayes-optimal MMSE ``1 - q*`` (the test error on a fresh
    noisy label is ``error + delta``), ``overlap = q*``, ``history[t] = 1 - q_t`` (GAMP-RIE's predicted error
    after ``t`` iterations; compare with :attr:`~solvable.amp.GAMPResult.history` ``= history[1:]``),
    ``overlap_history[t] = q_t`` and ``conjugate = mhat = alpha/(delta + 1 - q*)`` (finite: ``q*`` is kept below
    1 by :data:`solvable.channels.Q_EPS`). At ``alpha = 0``: one step to ``q = 0``, ``conjugate = 0``.
    """
    alpha = check_nonnegative("alpha", alpha)
    beta = _check_beta(beta)
    rho = _check_rho(rho)
    delta = check_nonnegative("delta", delta)
    q0 = check_in_range("q0", q0, 0.0, 1.0)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)
    q_star = _fixed_point_overlap(alpha, beta, rho, delta)
    error = _mmse_from_overlap(q_star, alpha, delta)
    channel = LinearChannel(delta)
    if alpha == 0.0:
        overlaps, converged, iterations = np.array([q0, 0.0]), True, 1
    else:
        fp = iterate_state_evolution(_SEDenoiser(beta, rho), channel, alpha, q0, rho=1.0, tol=tol,
                                     max_iter=max_iter, warn=warn)
        overlaps, converged, iterations = fp.states[:, 0], fp.converged, fp.iterations
    return SEResult(error=error, overlap=1.0 - error, history=1.0 - overlaps, iterations=iterations,
                    converged=converged, conjugate=alpha * float(channel.se_mhat_factor(q_star)),
                    overlap_history=overlaps)


# --------------------------------------------------------------------------- GAMP-RIE


class BilinearMap:
    """The linear map of BSR, ``S -> z_mu = <X_mu, S>/sqrt(dL)``, for :func:`solvable.amp.run_gamp` and
    :func:`solvable.gd.run_gd`.

    It is the perceptron's dense map on ``vec(X)`` (``F = X_flat/sqrt(dL)``, ``n x dL``) acting on
    ``d x L`` matrices: ``forward`` is one ``(n, dL) @ (dL,)`` product, ``adjoint`` one ``(dL, n) @ (n,)``
    product, on the raw ``(n, dL)`` design (a view of the data; no per-sample matrices, no copy). Batches
    ``(K, d, L)`` / ``(K, n)`` are one matrix-matrix product each (gradient descent with ``K`` inits).
    Variances are uniform (``F_{mu,i}^2`` replaced by its mean ``1/(dL)``, exact in the large-size limit for
    i.i.d. Gaussian ``X``): ``forward_variance(c) = c`` for a per-entry variance ``c``, and
    ``adjoint_variance(a) = sum_mu a_mu/(dL) = alpha mean(a)``, the notes' ``A``.

    A float32 ``X`` is kept in float32, and the products then run in float32 (inputs cast to the design's
    precision; used by :func:`gd` with ``dtype=np.float32``); any other ``X`` is converted to float64.
    """

    def __init__(self, X):
        X = X if isinstance(X, np.ndarray) else check_array("X", X, finite=False, nonempty=False)
        if X.dtype != np.float32:
            X = X.astype(float, copy=False)
        if X.ndim != 3 or min(X.shape) < 1:
            raise ValueError(f"X must be a non-empty 3-d array (n, d, L), got shape {X.shape}")
        if not all_finite(X):
            raise ValueError("X must contain finite numbers only")
        self.n, self.d, self.L = X.shape
        self.shape = (self.d, self.L)
        self._Xf = X.reshape(self.n, self.d * self.L)
        self._scale = 1.0 / math.sqrt(self.d * self.L)

    @property
    def alpha(self) -> float:
        return self.n / (self.d * self.L)

    def forward(self, S):
        """``(d, L) -> (n,)`` or ``(K, d, L) -> (K, n)``."""
        S = np.asarray(S, dtype=self._Xf.dtype)
        if S.ndim == 2:
            return (self._Xf @ S.reshape(-1)) * self._scale
        return (S.reshape(S.shape[0], -1) @ self._Xf.T) * self._scale

    def adjoint(self, g):
        """``(n,) -> (d, L)`` or ``(K, n) -> (K, d, L)``."""
        g = np.asarray(g, dtype=self._Xf.dtype)
        if g.ndim == 1:
            return ((self._Xf.T @ g) * self._scale).reshape(self.shape)
        return ((g @ self._Xf) * self._scale).reshape((g.shape[0],) + self.shape)

    def forward_variance(self, c):
        return float(np.mean(c))

    def adjoint_variance(self, a):
        return float(np.sum(a)) * self._scale * self._scale


GAMP_INITS = ("zero", "prior")


def gamp_rie(data: Dataset, *, damping: float = 0.5, tol: float = 1e-6, max_iter: int = 500,
             init: str = "zero", precision: str = "derivative", damp: str = "output", warn: bool = True,
             rng) -> GAMPResult:
    """GAMP-RIE for bilinear sequence regression (``science/bsr.md``, Sec. 3; arXiv:2410.18858).

    The shared loop :func:`solvable.amp.run_gamp` with :class:`BilinearMap`, the noisy linear channel
    ``g = (y - omega)/(delta + V)`` and :class:`solvable.rie.RectangularRIEDenoiser`. Per iteration::

        V_new = C_hat;  omega_new = <X, S_hat>/sqrt(dL) - g V_new        (Onsager term with the old g)
        (V, omega) <- damping (V, omega) + (1 - damping) (V_new, omega_new)
        W = max(delta + V, mean((y - omega)^2))                          (residual floor)
        g = (y - omega)/W;   A = alpha/W                                  (derivative precision)
        S_hat, C_hat = RIE(S_hat + X^T g/(A sqrt(dL)), noise 1/A), mmse_den(beta, rho, 1/A)

    stopping when ``mean((S_new - S_hat)^2) < tol`` (the notes' ``||.||_F^2/sqrt(dL)`` on scaled matrices).
    Cost per iteration: one forward and one adjoint product with the ``(n, dL)`` design, one ``d x L`` SVD
    and one ``mmse_den`` (a few ms).

    Parameters
    ----------
    data : Dataset
    damping : float in [0, 1)
        Damping of ``(V, omega)`` (default 0.5), or of ``(S_hat, C_hat)`` with ``damp="estimate"``.
        Without it, runs at ``d = 50-100`` can fall into a 2-cycle or, from the large-variance init, a
        false fixed point (``C_hat -> 0``, MSE ~ 0.5); these observations were made with the empirical
        precision.
    damp : {"output", "estimate", "both"}
        What ``damping`` mixes (:func:`solvable.amp.run_gamp`). With the default derivative precision, damping
        the estimate by 0.3 meets ``tol`` more often near ``alpha_PR`` than the default (measured at
        ``beta = 1``, ``rho = 0.2``, ``L = d = 80``, 3-4 data sets each: ``alpha = 0.45`` in 73-74 iterations
        instead of about 100, error 2-4e-6; at ``alpha = 0.3`` about half of the runs converged within 200-300
        iterations (3 of 6) against none of 4 with the default, at the same error, 0.33-0.36 against theory
        0.347; noisy runs (``delta = 0.5``) in 10-20 iterations). Chapter 3 uses it.
    tol : float >= 0
        ``0`` runs exactly ``max_iter`` iterations (comparison with state evolution, no warning).
    max_iter : int
        Cap (:class:`~solvable.errors.ConvergenceWarning` when reached).
    init : {"zero", "prior"}
        ``"zero"``: ``S_hat = 0``, ``C_hat = V = 1``, ``omega = y`` (first Onsager term vanishes; the start
        of :func:`state_evolution` with ``q_0 = 0``). ``"prior"``: ``S_hat`` a prior sample drawn from
        ``rng``, ``C_hat = V = 20``, ``omega = 20`` (the authors' choice; needs the damping).
    precision : {"derivative", "empirical"}
        ``A = alpha/W`` (default, the textbook form, with the residual floor ``W`` of
        :class:`~solvable.channels.LinearChannel`) or ``A = alpha mean(g^2)``. The empirical form agrees with
        the derivative one only when ``V`` matches the actual error (``E g^2 = E(-dg)``); otherwise it has a
        false fixed point: ``V`` above the error makes ``mean(g^2) ~ error/V^2`` small, the RIE is told a
        noise larger than the real one, its ``C_hat`` stays large, and ``V`` with it. Measured at ``beta = 1``,
        ``rho = 0.2``, ``alpha = 0.45 > alpha_PR = 0.36``, ``L = d = 80``: the empirical form stops at an error
        0.02-0.04 with ``C_hat`` about 0.3 (the plateau does not shrink with ``d``), the default reaches 3e-6
        with ``C_hat`` 5e-6 in about 50-100 iterations. Kept for that comparison.
    warn : bool
        Emit the :class:`~solvable.errors.ConvergenceWarning` at the cap (default). ``False`` leaves the report to
        the caller, through ``converged`` (e.g. a chapter that counts and prints its non-converged runs).
    rng : numpy.random.Generator or int
        Used by ``init="prior"`` (required in any case).

    Raises
    ------
    ValueError
        For a malformed argument (named; ``tol`` in ``[0, 1)``, ``max_iter >= 1``, ``damping`` in ``[0, 1)``).
    DivergenceError
        If an iterate becomes non-finite or the denoiser cannot be evaluated (an overflow at an absurd noise).

    Returns
    -------
    :class:`solvable.amp.GAMPResult`: ``estimate`` the last ``(d, L)`` estimate of ``S*`` (unit scale);
    ``history`` the per-iteration error ``||S_hat_t - S*||_F^2/(dL)`` (``.error`` its last value; compare with
    :func:`state_evolution`'s ``history[1:]``); ``variance`` the last ``C_hat = mmse_den(1/A)`` as a float, the
    algorithm's own error estimate (it tracks ``history`` on the good fixed point and collapses to 0 on the
    false one of ``science/bsr.md``, Sec. 3); ``iterations``, ``converged``.
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.bsr.Dataset, got {type(data).__name__}")
    rng = check_rng(rng)
    init = check_choice("init", init, GAMP_INITS)
    precision = check_choice("precision", precision, ("empirical", "derivative"))
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    d, L, r = data.d, data.L, data.r
    if init == "zero":
        S0, c0, omega0 = np.zeros((d, L)), 1.0, data.y
    else:
        S0 = rng.standard_normal((d, r)) @ rng.standard_normal((r, L)) / math.sqrt(r)
        c0, omega0 = 20.0, np.full(data.n, 20.0)
    S_star = data.S_star

    def monitor(S):
        return mse(S, S_star)

    channel = LinearChannel(data.delta, residual_floor=precision == "derivative")
    try:
        res = run_gamp(BilinearMap(data.X), channel, rie.RectangularRIEDenoiser(data.beta, data.rho),
                       data.y, S0, c0, damping=damping, tol=tol, max_iter=max_iter, monitor=monitor,
                       damp=damp, precision=precision, omega0=omega0, V0=c0, warn=warn)
    except DivergenceError:
        raise
    except ArithmeticError as err:  # e.g. an overflow in the denoiser's spectral law at an absurd noise 1/A
        raise DivergenceError(f"GAMP-RIE diverged: the rectangular RIE failed ({type(err).__name__}: {err}); "
                              "labels of absurd scale, or try damping > 0") from err
    return replace(res, variance=float(res.variance))


# --------------------------------------------------------------------------- baselines


def fit_ridge(data: Dataset, lam: float) -> np.ndarray:
    """Ridge regression on ``vec(X)``: ``argmin_S (1/2) sum_mu (y_mu - <X_mu, S>/sqrt(dL))^2 + (lam/2)||S||_F^2``.

    The posterior mean for a Gaussian prior on ``vec(S)`` when ``lam = delta``; its asymptotic MSE is
    :func:`ridge_mse` (``science/bsr.md``, Sec. 5). Solves the smaller of the ``dL x dL`` and ``n x n``
    positive-definite systems (:func:`solvable.regression.fit_ridge` on the flattened design). ``lam = 0`` gives
    the minimum-norm least-squares solution (the ``lam -> 0+`` limit; the interpolator when ``n < dL``).
    Returns the ``(d, L)`` estimate on the unit scale.
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.bsr.Dataset, got {type(data).__name__}")
    lam = check_nonnegative("lam", lam)
    Xf = data.design
    n, p = Xf.shape
    if lam > 0:
        w = _fit_ridge_dense(Xf, data.y, lam)
    elif n < p:  # minimum-norm interpolator F^T (F F^T)^{-1} y
        F = Xf / math.sqrt(p)
        w = F.T @ linalg.solve(F @ F.T, data.y, assume_a="pos")
    else:
        w = np.linalg.lstsq(Xf / math.sqrt(p), data.y, rcond=None)[0]
    return w.reshape(data.d, data.L)


@dataclass(frozen=True)
class MNNEResult:
    """Outcome of :func:`min_nuclear_norm`: the estimate (``d x L``, unit scale, satisfies the constraints to
    solver precision), its nuclear norm, the final primal / dual residuals, iterations, converged."""

    estimate: np.ndarray = field(repr=False)
    nuclear_norm: float
    primal_residual: float
    dual_residual: float
    iterations: int
    converged: bool


def _svt(M, threshold):
    """Singular-value soft thresholding ``prox_{t ||.||_*}(M)``."""
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    s = np.maximum(s - threshold, 0.0)
    keep = s > 0
    return (U[:, keep] * s[keep]) @ Vt[keep]


def min_nuclear_norm(data: Dataset, *, tol: float = 1e-8, max_iter: int = 20000, penalty: float = 1.0,
                     warn: bool = True) -> MNNEResult:
    """Minimum-nuclear-norm estimator ``argmin ||S||_*`` subject to ``<X_mu, S>/sqrt(dL) = y_mu`` for all ``mu``.

    The convex relaxation of rank minimisation (Recht, Fazel, Parrilo, SIAM Rev. 52:471 (2010)); its exact
    recovery threshold at large size is :func:`nuclear_norm_threshold` (Donoho, Gavish, Montanari,
    arXiv:1302.2331; ``science/bsr.md``, Sec. 5). Solved by ADMM on ``S = Z`` (Boyd et al., Found. Trends
    Mach. Learn. 3:1 (2011), Sec. 5), in numpy only, for small sizes (``dL`` up to a few thousand)::

        S <- projection of Z - U on the affine set {F vec(S) = y}    (one n x n Cholesky, precomputed)
        Z <- singular-value soft thresholding of S + U at 1/penalty
        U <- U + S - Z

    with residual balancing of ``penalty`` (Boyd et al., Sec. 3.4.1). Stops when the primal residual
    ``||S - Z||_F`` and the dual residual ``penalty ||Z - Z_old||_F`` are below ``tol sqrt(dL)``. Needs
    ``n < dL`` (otherwise the constraints determine ``S`` and it returns the least-squares solution).
    Noisy labels are interpolated as they are. Returns the feasible iterate ``S``.

    Parameters
    ----------
    tol : float in (0, 1)
        Relative residual target (``tol >= 1`` would accept the first iterate).
    max_iter : int >= 1
        Cap (:class:`~solvable.errors.ConvergenceWarning` if ``warn``).
    penalty : float > 0
        Initial ADMM penalty (finite).

    Raises
    ------
    ValueError
        For a malformed argument (named), or a design whose ``n`` rows are linearly dependent (the constraints
        then have no unique projection).
    DivergenceError
        If the residuals become non-finite.
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.bsr.Dataset, got {type(data).__name__}")
    tol = check_in_range("tol", tol, 0.0, 1.0, low_open=True, high_open=True)
    max_iter = check_int("max_iter", max_iter)
    tau = check_positive("penalty", penalty)
    d, L, n = data.d, data.L, data.n
    F = data.design / math.sqrt(d * L)
    y = data.y
    if n >= d * L:
        S = np.linalg.lstsq(F, y, rcond=None)[0].reshape(d, L)
        s = np.linalg.svd(S, compute_uv=False)
        return MNNEResult(estimate=S, nuclear_norm=float(s.sum()), primal_residual=0.0, dual_residual=0.0,
                          iterations=0, converged=True)
    try:
        chol = linalg.cho_factor(F @ F.T)
    except linalg.LinAlgError:
        raise ValueError(f"the design of data has linearly dependent rows (n = {n} < dL = {d * L}): "
                         "the constraints have no unique projection") from None

    def project(M):
        v = M.reshape(-1)
        return (v - F.T @ linalg.cho_solve(chol, F @ v - y)).reshape(d, L)

    Z = np.zeros((d, L))
    U = np.zeros((d, L))
    eps = tol * math.sqrt(d * L)
    converged = False
    r_norm = s_norm = math.inf
    it = 0
    for it in range(1, max_iter + 1):
        S = project(Z - U)
        Z_old = Z
        Z = _svt(S + U, 1.0 / tau)
        U = U + S - Z
        r_norm = float(np.linalg.norm(S - Z))
        s_norm = float(tau * np.linalg.norm(Z - Z_old))
        if not (math.isfinite(r_norm) and math.isfinite(s_norm)):
            raise DivergenceError(f"min_nuclear_norm diverged at iteration {it}")
        if r_norm < eps and s_norm < eps:
            converged = True
            break
        if it % 10 == 0:  # residual balancing; U is the scaled dual variable y/tau
            if r_norm > 10.0 * s_norm:
                tau *= 2.0
                U = U / 2.0
            elif s_norm > 10.0 * r_norm:
                tau /= 2.0
                U = U * 2.0
    if not converged and warn:
        warnings.warn(
            f"min_nuclear_norm did not converge in {it} iterations (residuals {r_norm:.1e}, {s_norm:.1e}; "
            f"target {eps:.1e})", ConvergenceWarning, stacklevel=2,
        )
    S = project(Z)
    return MNNEResult(estimate=S, nuclear_norm=float(np.linalg.svd(S, compute_uv=False).sum()),
                      primal_residual=r_norm, dual_residual=s_norm, iterations=it, converged=converged)


# --------------------------------------------------------------------------- gradient descent


GD_INITS = ("prior", "small")


def gd(data: Dataset, *, n_inits: int = 32, width: int | None = None, lr: float = 0.1, init: str = "prior",
       init_scale: float = 1e-4, tol: float = 1e-6, max_steps: int = 50_000, record_every: int = 10,
       warn: bool = True, dtype=np.float64, rng) -> _gd.GDResult:
    """Full-batch gradient descent on ``(U, V)`` from ``n_inits`` independent initialisations, and their average
    (``science/bsr.md``, Sec. 6; arXiv:2410.18858, Sec. on GD).

    Student with the teacher's parametrisation: ``S = U V^T/sqrt(p)`` with ``U`` ``(d, p)``, ``V`` ``(L, p)`` and
    width ``p`` (default the teacher's rank ``r``; ``p > r`` is an over-parametrised student, ``p >= min(d, L)``
    can represent every matrix), prediction ``y_hat_mu = <X_mu, S>/sqrt(dL) = Tr[X_mu^T U V^T]/sqrt(p d L)``,
    loss ``sum_mu (y_hat_mu - y_mu)^2/4``,
    plain GD with step ``lr``. The ``n_inits`` runs are one batched computation per step
    (:func:`solvable.gd.run_gd` with :class:`BilinearMap` and :class:`solvable.gd.LowRankProduct`); each run
    stops when its training loss over ``sum(y^2)`` falls below ``tol``. ``GDResult.average`` is averaged GD:
    the mean of the ``S_k`` on the same data (noiseless: close to the Bayes error, while one run from the
    prior init is close to twice it at small ``alpha``).

    Parameters
    ----------
    n_inits : int >= 1
        Independent initialisations ``K`` (``K d L`` numbers at most :data:`solvable.validation.MAX_ELEMENTS`).
    width : int >= 1 or None
        Student width ``p`` (``None``: the teacher's ``r``, and then the same draws and results as before this
        option existed). With the ``1/sqrt(p)`` scaling and the prior init, ``S = U V^T/sqrt(p)`` has i.i.d.-like
        entries of variance 1, the prior's scale, whatever ``p``; with ``init="small"`` its entries are of order
        ``init_scale^2`` whatever ``p``. ``K (d + L) p`` numbers at most
        :data:`~solvable.validation.MAX_ELEMENTS`.
    lr : float > 0
        Learning rate, finite (the paper: 0.1 with 5e4 steps; the lecture size of Sec. 6: 0.4). Too large a step
        diverges (:class:`~solvable.errors.DivergenceError`) or ends with a larger loss than it started with
        (:class:`~solvable.errors.ConvergenceWarning`): never a silent success.
    init : {"prior", "small"}
        ``U, V`` entries ``N(0, 1)`` (the prior) or ``N(0, init_scale^2)``.
    tol : float in [0, 1)
        Relative training-loss target (``0``: run exactly ``max_steps`` steps).
    max_steps : int >= 1
    record_every, warn : see :func:`solvable.gd.run_gd` (``warn=False``: no
        :class:`~solvable.errors.ConvergenceWarning` at the cap; read ``converged`` instead).
    dtype : {np.float64, np.float32}
        Precision of the descent (:func:`solvable.gd.run_gd`); float32 keeps a float32 copy of the design
        (``n dL`` floats) and is about 1.7 times faster at ``d = L = 100``. The initial draws are the same
        in both precisions.
    rng : numpy.random.Generator or int
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.bsr.Dataset, got {type(data).__name__}")
    rng = check_rng(rng)
    K = check_int("n_inits", n_inits)
    init = check_choice("init", init, GD_INITS)
    scale = 1.0 if init == "prior" else check_positive("init_scale", init_scale)
    lr = check_positive("lr", lr)
    tol = check_tol(tol)
    max_steps = check_int("max_steps", max_steps)
    d, L = data.d, data.L
    p = data.r if width is None else check_int("width", width)
    check_size("the estimates (n_inits, d, L)", K, d, L)
    check_size("the factors U and V (n_inits, d + L, width)", K, d + L, p)
    U0 = scale * rng.standard_normal((K, d, p))
    V0 = scale * rng.standard_normal((K, L, p))
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    X = data.X if dtype == np.float64 else data.X.astype(np.float32)
    return _gd.run_gd(_gd.SquareLoss(BilinearMap(X), _gd.LowRankProduct(p), data.y), (U0, V0), lr=lr, tol=tol,
                      max_steps=max_steps, record_every=record_every, target=data.S_star, warn=warn,
                      dtype=dtype)

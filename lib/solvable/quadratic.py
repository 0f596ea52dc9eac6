"""Extensive-width quadratic networks: learning ``y = sum_l (w_l . x)^2`` from ``n ~ d^2`` samples.

Model (Chapter 4, Sec. 'From the network to matrix sensing'; Maillard, Troiani, Martin, Krzakala, Zdeborova,
"Bayes-optimal learning of an extensive-width neural network from quadratically many samples", NeurIPS 2024,
arXiv:2408.03733):
inputs ``x ~ N(0, I_d)``, a teacher with ``m = kappa d`` hidden units ``w*_l ~ N(0, I_d)``, ``n = alpha d^2``
samples and labels::

    y = (1/sqrt(m)) sum_l [ (w*_l . x)^2/d - |w*_l|^2/d ] + sqrt(delta) xi = Tr(Z S*) + sqrt(delta) xi,

with ``Z = (x x^T - I)/sqrt(d)`` and ``S* = W* W*^T/sqrt(m d)`` (``W*`` stored ``(d, m)``, one hidden unit per
column): the hidden layer is a d x d matrix of extensive rank, and learning the network is **matrix sensing**. Errors are in the paper normalisation,
``(1/d) |S_hat - S*|_F^2`` (1 for the trivial estimator ``sqrt(kappa) I``, 0 at perfect recovery); the test
error on a fresh noisy label is ``delta + 2 MMSE`` (:func:`bayes_test_error`).

Second normalisation (mean-one, ``S_W = W W^T/m = S*/sqrt(kappa)``), used in part of the literature:
``mmse_W = MMSE/kappa`` and ``delta_W = delta/kappa`` (:func:`to_mean_one`, :func:`from_mean_one`).

The Bayes-optimal error is one scalar equation around the symmetric RIE's MMSE (:mod:`solvable.rie`), shared with
the attention-indexed model in :mod:`solvable.matrix_sensing` (:func:`bayes_optimal_mmse`,
:func:`perfect_recovery_threshold` and :func:`state_evolution` here are thin wrappers of it), and GAMP-RIE is the
shared loop of :mod:`solvable.amp` with the quadratic sensing map (:class:`QuadraticSensingMap`, never storing the
n x d x d tensor of the ``Z_mu``) and the symmetric RIE (:class:`solvable.rie.WishartRIEDenoiser`) as denoiser; it
returns the engine's :class:`~solvable.amp.GAMPResult` and the state evolution its :class:`~solvable.amp.SEResult`.
Errors against the teacher are :func:`solvable.denoising.symmetric_error`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg.blas import get_blas_funcs
from scipy.optimize import brentq

from . import backend, matrix_sensing, spectra
from . import gd as _gd
from .amp import GAMPResult, SEResult, run_gamp, stop_message
from .channels import LinearChannel
from .dataset import Dataset as _BaseDataset
from .domains import Domain, array, choice, declare, instance, integer, optional, real, seed
from .errors import ConvergenceWarning, InvalidParameterError
from .errors import warn as warn_user
from .results import record
from .denoising import symmetric_error
from .rie import WishartRIEDenoiser
from .validation import (
    all_finite,
    check_nonnegative,
    check_size,
)

__all__ = [
    "Dataset",
    "NuclearNormResult",
    "NuclearNormTheoryResult",
    "QuadraticSensingMap",
    "STRONG_DAMPING",
    "STRONG_DAMPING_BELOW",
    "SoftThresholdResult",
    "bayes_optimal_mmse",
    "bayes_test_error",
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
    "to_mean_one",
]


# --------------------------------------------------------------------------- data


@record
class Dataset(_BaseDataset):
    """A data set of the quadratic network: inputs, labels, the teacher and the label-noise variance.

    Parameters
    ----------
    X : numpy.ndarray
        Inputs ``(n, d)``, i.i.d. N(0, 1) (``d >= 2``).
    y : numpy.ndarray
        Labels ``(n,)``, ``y = Tr(Z S*) + sqrt(delta) xi``.
    W_star : numpy.ndarray
        The teacher's weights ``(d, m)``: column ``l`` is the hidden unit ``w*_l``.
    S_star : numpy.ndarray
        The teacher's matrix ``S* = W* W*^T / sqrt(m d)``, ``(d, d)`` (paper normalisation).
    delta : float, optional
        The label-noise variance (paper normalisation), ``>= 0``.

    Attributes
    ----------
    n, d, m : int
        Samples, input dimension and teacher width.
    kappa : float
        Width ratio ``m / d``.
    alpha : float
        Sample ratio ``n / d^2``.

    Raises
    ------
    TypeError
        If an array is not an array of real numbers.
    ValueError
        If an array is empty, not finite or of the wrong shape, or ``delta < 0`` (the message names it).

    Notes
    -----
    The labels are ``y_mu = Tr(Z_mu S*) + sqrt(delta) xi_mu`` with ``Z_mu = (x_mu x_mu^T - I)/sqrt(d)``
    (:func:`sample`).

    References
    ----------
    Chapter 4, Sec. 'The model'; Maillard et al. 2024, arXiv:2408.03733.

    Examples
    --------
    >>> from solvable import quadratic
    >>> data = quadratic.sample(20, 0.5, kappa=0.5, rng=0)
    >>> print(data.n, data.d, data.m, data.alpha, data.kappa, data.delta)
    200 20 10 0.5 0.5 0.0
    >>> print(data.X.shape, data.y.shape, data.W_star.shape, data.S_star.shape)
    (200, 20) (200,) (20, 10) (20, 20)
    """

    W_star: np.ndarray = field(repr=False)
    S_star: np.ndarray = field(repr=False)
    delta: float = 0.0

    def _check(self) -> None:
        X, W, S = self.X, self.W_star, self.S_star
        if X.ndim != 2 or self.y.ndim != 1:
            raise InvalidParameterError(
                f"X must be (n, d) and y (n,), got shapes {X.shape} and {self.y.shape}"
            )
        if X.shape[1] < 2:
            raise InvalidParameterError(f"X must have d >= 2 columns, got shape {X.shape}")
        if W.ndim != 2 or W.shape[0] != X.shape[1] or W.shape[1] < 1 or S.shape != (X.shape[1], X.shape[1]):
            raise InvalidParameterError(
                f"W_star must be (d, m) and S_star (d, d) with d = {X.shape[1]}; got {W.shape} and {S.shape}"
            )
        if self.y.size and not float(np.max(np.abs(self.y))) <= _MAX_INPUT:
            # the labels' squares enter every loss and residual: beyond 1e100 they overflow (an inf train loss,
            # a GAMP divergence at its first step)
            raise InvalidParameterError(
                f"y must have entries of absolute value at most 1e100 (their squares "
                f"enter the losses), got {float(np.max(np.abs(self.y))):.1e}"
            )
        object.__setattr__(self, "delta", check_nonnegative("delta", self.delta))

    @property
    def d(self) -> int:
        """Input dimension."""
        return int(self.X.shape[1])

    @property
    def m(self) -> int:
        """Teacher width (columns of ``W_star``)."""
        return int(self.W_star.shape[1])

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
#: Accepted range of the initial variance of the estimate of :func:`gamp_rie` (``start_variance``).
_START_VARIANCE_RANGE = (5e-4, 5e2)
#: Default relative tolerance of :func:`gamp_rie` (its docstring gives the reason).
GAMP_TOL = 1e-5

#: :func:`gamp_rie` with ``damping=None`` damps by :data:`STRONG_DAMPING` below this fraction of ``alpha_PR``, by
#: 1/2 above (the same rule as :func:`solvable.attention.gamp_rie`).
STRONG_DAMPING_BELOW = 0.25

#: The damping used below ``STRONG_DAMPING_BELOW * alpha_PR``.
STRONG_DAMPING = 0.8

#: Default iteration cap of :func:`gamp_rie` (its docstring gives the reason).
GAMP_MAX_ITER = 500


def _check_inputs(name: str, X):
    """The inputs ``X`` of the sensing map: a non-empty 2-d array of finite real numbers, float32 kept in
    float32 (fast gradient descent), anything else as float64."""
    if isinstance(X, np.ndarray) and X.dtype == np.float32:
        if X.ndim != 2 or X.size == 0 or not all_finite(X):
            raise InvalidParameterError(
                f"{name} must be {INPUTS.text}, got a float32 array of shape "
                f"{X.shape}" + ("" if X.ndim != 2 or X.size == 0 else " with non-finite entries")
            )
        return X
    return _FLOAT_INPUTS.check(name, X)


#: The domains of the model's parameters (solvable.domains): a data set of this model, the sampler's ratio and
#: noise (its labels stay below 1e100), a width ratio where the Wishart RIE's MMSE is resolved
#: (matrix_sensing.KAPPA) or where the spectral laws are (spectra.RATIO_RANGE), a noise variance in
#: spectra.NOISE_RANGE, a starting error, GAMP-RIE's damping and the inputs of the sensing map.
DATA = instance(Dataset)
SAMPLE_ALPHA = real(0.0, low_open=True)
SAMPLE_DELTA = real(0.0, 1e100)
KAPPA = matrix_sensing.KAPPA
SPECTRAL_KAPPA = real(*spectra.RATIO_RANGE)
NOISE = real(*spectra.NOISE_RANGE)
START = optional(real(0.0, low_open=True), "1 + kappa, the error of a prior draw")
GAMP_DAMPING = optional(
    real(0.0, 1.0, high_open=True), "STRONG_DAMPING below STRONG_DAMPING_BELOW alpha_PR, 1/2 above"
)
_FLOAT_INPUTS = array(2)
INPUTS = Domain("a non-empty 2-d array of finite real numbers (float32 kept)", _check_inputs, "array", (2,))


def _count(name: str, ratio: float, d: int) -> int:
    """``round(ratio d)`` if ``ratio d`` is within 1e-9 of an integer >= 1, else ``ValueError`` naming ``name``."""
    x = ratio * d
    k = round(x)
    if k < 1 or abs(x - k) > 1e-9 * max(1.0, abs(x)):
        raise InvalidParameterError(
            f"{name} * d must be an integer >= 1 (the teacher's width), got {name} * d = {x:.10g} at d = {d}"
        )
    return int(k)


@declare(d=integer(2, size=True), alpha=SAMPLE_ALPHA, delta=SAMPLE_DELTA)
def sample(d: int, alpha: float, *, kappa: float, delta: float = 0.0, rng) -> Dataset:
    """Draw a quadratic-network teacher and ``n = round(alpha d^2)`` labelled samples.

    Parameters
    ----------
    d : int
        Input dimension, ``>= 2``.
    alpha : float
        Sample ratio ``n / d^2``, ``> 0``.
    kappa : float
        Width ratio ``m / d``; ``kappa d`` must be an integer ``m >= 1`` (within 1e-9).
    delta : float, optional
        Label-noise variance (paper normalisation), in ``[0, 1e100]`` (the labels, of size ``sqrt(delta)``, must
        stay below ``1e100``).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the draws (SPEC 7; ``None`` is refused).

    Returns
    -------
    Dataset
        ``X`` (n, d), ``y`` (n,), ``W_star`` (d, m), ``S_star = W* W*^T / sqrt(m d)`` and ``delta``.

    Raises
    ------
    TypeError
        If ``d`` is not an integer or ``rng`` is not a random source.
    ValueError
        If a ratio is out of range, ``kappa d`` is not an integer, ``alpha d^2`` rounds to 0, or the arrays
        would hold more than :data:`solvable.validation.MAX_ELEMENTS` numbers at once.

    Notes
    -----
    Inputs ``x_mu ~ N(0, I_d)``, hidden units ``w*_l ~ N(0, I_d)`` and labels::

        y_mu = (1/sqrt(m)) sum_l [ (w*_l . x_mu)^2/d - |w*_l|^2/d ] + sqrt(delta) xi_mu
             = Tr(Z_mu S*) + sqrt(delta) xi_mu,      Z_mu = (x_mu x_mu^T - I)/sqrt(d).

    Draw order: the teacher (``m`` rows of ``d``, stored transposed), the inputs, then the label noise.

    References
    ----------
    Chapter 4, Sec. 'The model'; Maillard et al. 2024, arXiv:2408.03733.

    Examples
    --------
    >>> from solvable import quadratic
    >>> data = quadratic.sample(20, 0.5, kappa=0.5, rng=0)
    >>> print(data.n, data.d, data.m, data.X.shape, data.W_star.shape, data.S_star.shape)
    200 20 10 (200, 20) (20, 10) (20, 20)
    """
    m = _count("kappa", kappa, d)
    if not alpha * d * d < 2.0**62:
        raise InvalidParameterError(
            f"alpha d^2 = {alpha * d * d:.3g} samples is beyond any array: reduce alpha"
        )
    n = round(alpha * d * d)
    if n < 1:
        raise InvalidParameterError(
            f"alpha d^2 must round to at least 1 sample, got n = {n} at alpha = {alpha:g}, d = {d}"
        )
    check_size("the teacher W* (m = kappa d, d)", m, d)
    check_size("the inputs X (n = alpha d^2, d)", n, d)
    # Peak: W*, S*, X, and in the sensing map the product X S* and the elementwise product that its row sums
    # reduce (n, d each), all alive at once, with the labels.
    check_size(
        "the arrays of sample (W* (m, d), S* (d, d), X and two products of the sensing map (n, d), y (n,)) "
        "together",
        m * d + d * d + 3 * n * d + 4 * n,
    )
    W = rng.standard_normal((m, d))
    X = rng.standard_normal((n, d))
    S = W.T @ W / math.sqrt(m * d)
    y = QuadraticSensingMap(X).forward(S)
    if delta > 0:
        y = y + math.sqrt(delta) * rng.standard_normal(n)
    return Dataset.adopt(X=X, y=y, W_star=W.T, S_star=S, delta=delta)


# --------------------------------------------------------------------------- theory
# The Bayes-optimal fixed point, the threshold and the state evolution are those of Wishart sensing, shared with
# the attention-indexed model: :mod:`solvable.matrix_sensing`. The wrappers below keep the stable names of this
# model and say what the numbers mean for the network.


@declare()
def perfect_recovery_threshold(kappa: float) -> float:
    """Sample ratio ``alpha = n/d^2`` above which noiseless Bayes-optimal learning of the network is exact.

    Parameters
    ----------
    kappa : float
        Width ratio ``m / d``, ``> 0``.

    Returns
    -------
    float
        ``alpha_PR``.

    Raises
    ------
    ValueError
        If ``kappa`` is not a finite number ``> 0`` (TypeError for a non-number).

    Notes
    -----
    Parameter counting of a PSD matrix of rank ``min(m, d)`` (eq-qn-alpha-pr)::

        alpha_PR = kappa - kappa^2/2   (kappa < 1),      alpha_PR = 1/2   (kappa >= 1),

    computed by :func:`solvable.matrix_sensing.perfect_recovery_threshold`.

    References
    ----------
    Chapter 4, Sec. 'The Bayes-optimal error', eq-qn-alpha-pr; Maillard et al. 2024, arXiv:2408.03733.

    Examples
    --------
    >>> from solvable import quadratic
    >>> print(f"{quadratic.perfect_recovery_threshold(0.5):.4f}")
    0.3750
    >>> print(f"{quadratic.bayes_optimal_mmse(0.4, 0.5):.4f}")
    0.0000
    """
    return matrix_sensing.perfect_recovery_threshold(kappa)


@declare(kappa=KAPPA)
def bayes_optimal_mmse(alpha: float, kappa: float, delta: float = 0.0) -> float:
    """Bayes-optimal MMSE on ``S*``, ``(1/d)||S_hat - S*||_F^2`` in the paper normalisation.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``>= 0``.
    kappa : float
        Width ratio ``m / d``, in ``[1e-3, 1e6]`` (where the Wishart RIE's MMSE is computed reliably).
    delta : float, optional
        Label-noise variance, ``>= 0``.

    Returns
    -------
    float
        The MMSE, in ``[0, 1]``: 1 at ``alpha = 0`` (the prior mean ``sqrt(kappa) I``), 0 for a noiseless
        ``alpha >= alpha_PR``.

    Raises
    ------
    ValueError
        If an argument is out of its domain (named in the message; TypeError for a non-number).

    Notes
    -----
    The replica fixed point (eq-qn-fixed-point), with ``mmse_RIE`` the symmetric RIE's MMSE of a Wishart signal
    of width ratio ``kappa`` (:func:`solvable.rie.symmetric_rie_mmse`)::

        qhat mmse_RIE(1/qhat) + delta qhat / 2 = 2 alpha,      MMSE = mmse_RIE(1/qhat),

    solved by :func:`solvable.matrix_sensing.bayes_optimal_mmse`. The test error on a fresh noisy label is
    ``delta + 2 MMSE`` (:func:`bayes_test_error`).

    References
    ----------
    Chapter 4, Sec. 'The Bayes-optimal error', eq-qn-fixed-point; Maillard et al. 2024, arXiv:2408.03733.

    Examples
    --------
    >>> from solvable import quadratic
    >>> print([round(quadratic.bayes_optimal_mmse(a, 0.5), 4) for a in (0.1, 0.3, 0.5)])
    [0.7237, 0.1281, 0.0]
    """
    return matrix_sensing.bayes_optimal_mmse(alpha, kappa, delta)


@declare(kappa=KAPPA)
def bayes_test_error(alpha: float, kappa: float, delta: float = 0.0) -> float:
    """Bayes-optimal test error on a fresh noisy label, ``delta + 2 MMSE``.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``>= 0``.
    kappa : float
        Width ratio ``m / d``, in ``[1e-3, 1e6]``.
    delta : float, optional
        Label-noise variance, ``>= 0``.

    Returns
    -------
    float
        ``E (y - Tr(Z S_hat))^2`` for the posterior mean ``S_hat``, ``>= delta``.

    Raises
    ------
    ValueError
        If an argument is out of its domain (named in the message; TypeError for a non-number).

    Notes
    -----
    ``E_x Tr(Z A)^2 = 2 ||A||_F^2 / d`` for a symmetric ``A``, so (eq-qn-test-error)::

        E_gen = delta + 2 MMSE(alpha, kappa, delta)          (MMSE: :func:`bayes_optimal_mmse`).

    References
    ----------
    Chapter 4, Sec. 'The Bayes-optimal error', eq-qn-test-error; Maillard et al. 2024, arXiv:2408.03733.

    Examples
    --------
    >>> from solvable import quadratic
    >>> print(f"{quadratic.bayes_test_error(0.2, 0.5):.4f}", f"{quadratic.bayes_test_error(0.2, 0.5, 0.1):.4f}")
    0.7844 1.0102
    """
    return float(delta + 2.0 * bayes_optimal_mmse(alpha, kappa, delta))


@declare(mmse=real(0.0))
def to_mean_one(mmse: float, kappa: float, *, delta: float) -> tuple[float, float]:
    """Convert ``(MMSE, delta)`` from the paper normalisation to the mean-one normalisation.

    Parameters
    ----------
    mmse : float
        Error ``(1/d)||S_hat - S*||_F^2`` with ``S* = W* W*^T/sqrt(m d)``, ``>= 0``.
    kappa : float
        Width ratio ``m / d``, ``> 0``.
    delta : float
        Label-noise variance in the same normalisation, ``>= 0`` (keyword-only).

    Returns
    -------
    tuple of float
        ``(mmse_W, delta_W) = (MMSE / kappa, delta / kappa)``.

    Raises
    ------
    ValueError
        If an argument is out of its domain or the result overflows.

    Notes
    -----
    The mean-one normalisation is ``S_W = W W^T / m = S* / sqrt(kappa)``, so errors and noise variances are
    divided by ``kappa``.

    References
    ----------
    Chapter 4, Sec. 'From the network to matrix sensing'; Maillard et al. 2024, arXiv:2408.03733.
    """
    return _finite_pair(mmse / kappa, delta / kappa)


@declare(mmse_w=real(0.0), delta_w=real(0.0))
def from_mean_one(mmse_w: float, kappa: float, *, delta_w: float) -> tuple[float, float]:
    """Convert ``(mmse_W, delta_W)`` from the mean-one normalisation back to the paper normalisation.

    Parameters
    ----------
    mmse_w : float
        Error in the mean-one normalisation ``S_W = W W^T / m``, ``>= 0``.
    kappa : float
        Width ratio ``m / d``, ``> 0``.
    delta_w : float
        Label-noise variance in the same normalisation, ``>= 0`` (keyword-only).

    Returns
    -------
    tuple of float
        ``(kappa mmse_W, kappa delta_W)``, the inverse of :func:`to_mean_one`.

    Raises
    ------
    ValueError
        If an argument is out of its domain or the result overflows.

    Notes
    -----
    ``S* = sqrt(kappa) S_W``: errors and noise variances are multiplied by ``kappa``.

    References
    ----------
    Chapter 4, Sec. 'From the network to matrix sensing'; Maillard et al. 2024, arXiv:2408.03733.
    """
    return _finite_pair(kappa * mmse_w, kappa * delta_w)


def _finite_pair(a: float, b: float) -> tuple[float, float]:
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(
            f"the converted (MMSE, delta) = ({a}, {b}) overflow: kappa is too extreme for these values"
        )
    return a, b


@declare(sigma=real(0.0))
def effective_noise_of_preactivation_noise(sigma: float) -> float:
    """Label-noise variance equivalent to Gaussian noise on every preactivation.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise added to each preactivation ``w . x / sqrt(d)``, ``>= 0``.

    Returns
    -------
    float
        The label-noise variance ``delta`` (paper normalisation).

    Raises
    ------
    ValueError
        If ``sigma < 0``, is not finite, or gives a variance that overflows a float.

    Notes
    -----
    With ``z_l = w_l . x / sqrt(d) + sigma eps_l`` the label's excess variance is::

        delta = 2 sigma^2 (2 + sigma^2).

    References
    ----------
    Chapter 4, Sec. 'From the network to matrix sensing'; Maillard et al. 2024, arXiv:2408.03733.
    """
    delta = 2.0 * sigma**2 * (2.0 + sigma**2) if sigma < 1e100 else math.inf
    if not math.isfinite(delta):
        raise InvalidParameterError(f"sigma = {sigma!r} gives a label-noise variance that overflows a float")
    return delta


@declare(kappa=KAPPA, start=START)
def state_evolution(
    alpha: float,
    kappa: float,
    delta: float = 0.0,
    *,
    start: float | None = None,
    damping: float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 2000,
    warn: bool = True,
) -> SEResult:
    """State evolution of GAMP-RIE for the quadratic network.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``>= 0``.
    kappa : float
        Width ratio ``m / d``, in ``[1e-3, 1e6]``.
    delta : float, optional
        Label-noise variance, ``>= 0``.
    start : float or None, optional
        The error of the estimate at ``t = 0``, ``(1/d)||S_hat_0 - S*||_F^2 > 0`` (``history[0]``; the output
        variance starts at ``2 start``). ``None``: ``1 + kappa``, the error of a prior draw.
    damping : float, optional
        In ``[0, 1)``: ``V_{t+1} = damping V_t + (1 - damping) 2 mmse_RIE(s_t)`` (same fixed point, reached
        more slowly).
    tol : float, optional
        In ``[0, 1)``: stop when ``|V_{t+1} - V_t| < tol``; ``0`` runs exactly ``max_iter`` steps.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.

    Returns
    -------
    solvable.amp.SEResult
        ``history[t]`` the predicted error ``(1/d)||S_hat_t - S*||_F^2`` after ``t`` iterations
        (``history[0] = start``), to compare with :attr:`solvable.amp.GAMPResult.history` of :func:`gamp_rie`;
        ``error`` the last entry, ``overlap = 1 + kappa - error``, ``conjugate`` the last ``1/s``.

    Raises
    ------
    ValueError
        If an argument is out of its domain (named in the message; TypeError for a wrong type).

    Notes
    -----
    The recursion (eq-qn-se), on :func:`solvable.matrix_sensing.state_evolution`::

        s_t = (delta + V_t) / (4 alpha),      V_{t+1} = 2 mmse_RIE(s_t),      V_0 = 2 start.

    Its fixed point is the Bayes-optimal one of :func:`bayes_optimal_mmse`; near ``alpha_PR`` it slows down
    critically.

    References
    ----------
    Chapter 4, Sec. 'GAMP-RIE: reaching the Bayes-optimal error', eq-qn-se; Maillard et al. 2024,
    arXiv:2408.03733.

    Examples
    --------
    >>> from solvable import quadratic
    >>> res = quadratic.state_evolution(0.2, 0.5)
    >>> print(f"MMSE {res.error:.4f}, converged {res.converged}")
    MMSE 0.3922, converged True
    >>> print(f"{quadratic.bayes_optimal_mmse(0.2, 0.5):.4f}")
    0.3922
    """
    return _matrix_sensing_se(
        alpha,
        kappa,
        delta,
        None if start is None else 2.0 * start,
        damping=damping,
        tol=tol,
        max_iter=max_iter,
        warn=warn,
    )


def _matrix_sensing_se(alpha, kappa, delta, output_variance, **controls) -> SEResult:
    """:func:`solvable.matrix_sensing.state_evolution` started at the output variance ``V_0``."""
    return matrix_sensing.state_evolution(alpha, kappa, delta, start=output_variance, **controls)


# --------------------------------------------------------------------------- GAMP-RIE


class QuadraticSensingMap:
    """The sensing map ``S -> (Tr(Z_mu S))_mu`` of the quadratic network, on the raw inputs.

    Parameters
    ----------
    X : array_like
        The inputs ``(n, d)``, finite, entries of absolute value at most ``1e100`` (their squares enter every
        product). float32 inputs stay float32 (fast gradient descent).

    Attributes
    ----------
    X : numpy.ndarray
        The inputs.
    n, d : int
        Samples and dimension.

    Raises
    ------
    ValueError
        If ``X`` is not a finite, non-empty real 2-d array or has entries beyond ``1e100``.

    Notes
    -----
    With ``Z_mu = (x_mu x_mu^T - I)/sqrt(d)`` (eq-qn-sensing-rowsum), never storing the ``n x d x d`` tensor::

        forward(S) = (rowsum((X S) * X) - Tr S) / sqrt(d),
        adjoint(g) = sum_mu g_mu Z_mu = (X^T diag(g) X - sum(g) I) / sqrt(d).

    Variances use the per-``d`` normalisation of the paper: an estimate with error ``c = (1/d)|S_hat - S|_F^2``
    has output variance ``forward_variance(c) = 2 c`` (``E_x Tr(Z A)^2 = 2|A|_F^2/d``), and
    ``adjoint_variance(a) = 2 sum(a) / d`` is the precision that the RIE denoiser converts into a noise variance
    ``s = d / (2 A)``.

    References
    ----------
    Chapter 4, Sec. 'From the network to matrix sensing', eq-qn-sensing; Maillard et al. 2024, arXiv:2408.03733.

    Examples
    --------
    Without label noise the labels are the teacher's image under the map:

    >>> import numpy as np
    >>> from solvable import quadratic
    >>> data = quadratic.sample(20, 0.5, kappa=0.5, rng=0)
    >>> M = quadratic.QuadraticSensingMap(data.X)
    >>> print(M.n, M.d, bool(np.allclose(M.forward(data.S_star), data.y)), M.adjoint(data.y).shape)
    200 20 True (20, 20)
    """

    @declare(X=INPUTS)
    def __init__(self, X):
        if float(np.max(np.abs(X))) > _MAX_INPUT:
            raise InvalidParameterError(
                f"X must have entries of absolute value at most {_MAX_INPUT:g} "
                f"(their squares enter every product), got "
                f"{float(np.max(np.abs(X))):.1e}"
            )
        self.X = X
        self.n, self.d = X.shape
        self._scale = 1.0 / math.sqrt(self.d)

    def forward(self, S):
        """``(d, d) -> (n,)``, or a batch ``(J, d, d) -> (J, n)`` (gradient descent with J inits)."""
        S = np.asarray(S, dtype=self.X.dtype)
        if S.ndim not in (2, 3) or S.shape[-2:] != (self.d, self.d):
            raise InvalidParameterError(
                f"S must be (d, d) or (K, d, d) with d = {self.d}, got shape {S.shape}"
            )
        XS = self.X @ S  # (n, d) or (K, n, d)
        quad = np.einsum("...ij,ij->...i", XS, self.X)
        trace = np.trace(S, axis1=-2, axis2=-1)
        return (quad - np.asarray(trace)[..., None]) * self._scale

    def adjoint(self, g):
        """``(n,) -> (d, d)``, or a batch ``(J, n) -> (J, d, d)``."""
        g = np.asarray(g, dtype=self.X.dtype)
        if g.ndim not in (1, 2) or g.shape[-1] != self.n:
            raise InvalidParameterError(f"g must be (n,) or (K, n) with n = {self.n}, got shape {g.shape}")
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


@declare(X=INPUTS)
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

    Parameters
    ----------
    X : array_like
        The inputs ``(n, d)`` (as :class:`QuadraticSensingMap` accepts them).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the ``g_mu``.

    Returns
    -------
    numpy.ndarray
        The symmetric ``(d, d)`` matrix ``N``.

    Raises
    ------
    ValueError
        If ``X`` is malformed (see :class:`QuadraticSensingMap`).
    TypeError
        If ``rng`` is not a random source.

    Notes
    -----
    ``N = (1/sqrt(n)) sum_mu g_mu Z_mu`` with ``g_mu ~ N(0, 1)``; its fourth free cumulant is about
    ``3 d/n = 3/(alpha d)``, where a GOE matrix has 0.

    References
    ----------
    Chapter 4, Sec. 'GAMP-RIE: reaching the Bayes-optimal error'; Maillard et al. 2024, arXiv:2408.03733.
    """
    M = QuadraticSensingMap(X)
    return M.adjoint(rng.standard_normal(M.n)) / math.sqrt(M.n)


@declare(
    data=DATA,
    damping=GAMP_DAMPING,
    start_variance=real(*_START_VARIANCE_RANGE),
    precision=choice("derivative", "empirical"),
    rng=seed("init"),
)
def gamp_rie(
    data: Dataset,
    *,
    damping: float | None = None,
    tol: float = GAMP_TOL,
    max_iter: int = GAMP_MAX_ITER,
    start_variance: float = 5.0,
    precision: str = "derivative",
    warn: bool = True,
    rng,
) -> GAMPResult:
    """GAMP-RIE for the quadratic network: the Bayes-optimal algorithm of matrix sensing with a Wishart prior.

    Parameters
    ----------
    data : Dataset
        A data set of this model (:func:`sample`).
    damping : float or None, optional
        In ``[0, 1)``: the damping of both the output state ``(V, omega)`` and the estimate ``(S_hat, C)``.
        ``None`` (default) picks :data:`STRONG_DAMPING` = 0.8 below ``STRONG_DAMPING_BELOW * alpha_PR`` =
        ``alpha_PR / 4``, 1/2 above: at ``kappa = 1/2``, ``d = 40``, ``alpha = 0.05`` the derivative precision
        diverges at 1/2 on 4 data sets of 4 and reaches 0.93 +- 0.02 (MMSE 0.879) at 0.8.
    tol : float, optional
        In ``[0, 1)``: stop when the relative change of the estimate, ``||S_new - S_hat||_F / ||S_new||_F``,
        falls below ``tol``; ``0`` runs exactly ``max_iter`` iterations. Default ``GAMP_TOL = 1e-5``: the loop
        contracts by a few per cent per iteration near its fixed point, so the distance left to the fixed point
        is about the last change over one minus the contraction factor, here below ``1e-3`` of the norm of the
        estimate: below the spread of the error between data sets at ``d <= 300``.
    max_iter : int, optional
        Iteration cap, ``>= 1``. Default ``GAMP_MAX_ITER = 500``: a run at ``d = 80``, ``kappa = 1/2``,
        ``alpha = 0.3`` meets the default tolerance in about 280 iterations. At small ``alpha`` and finite ``d``
        the iterate keeps fluctuating (by a few per cent of its norm per iteration at ``alpha = 0.1``, ``d = 80``)
        and never meets it: the run stops at the cap with a :class:`~solvable.errors.ConvergenceWarning`.
    start_variance : float, optional
        The variance of the initial estimate, ``C_0`` in ``[5e-4, 5e2]`` (the first output variance is
        ``2 C_0``). Default 5: above the error ``1 + kappa`` of the prior draw that starts the run, so that the
        first steps trust the data little. Far outside the range the first precision is absurd and the
        denoiser's noise leaves the range of the RIE.
    precision : {"derivative", "empirical"}, optional
        How the precision ``A`` of the back-projection is computed (Chapter 3, Sec. 'One recipe for GAMP-RIE',
        ``A = c alpha mean_mu(-d g_mu / d omega_mu)`` with the constant ``c = 2`` of a symmetric signal):
        ``"derivative"`` (default) ``A = 2 alpha mean_mu(-d g_mu / d omega_mu) = 2 alpha / V_bar``, with the
        output variance floored at the observed residual, ``V_bar = max(delta + V, mean((y - omega)^2))``;
        ``"empirical"`` ``A = 2 alpha mean_mu(g_mu^2)``. Both agree below ``alpha_PR``; above it the empirical
        form stops at a false fixed point whose error is far above zero.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the initial estimate (a prior draw).

    Returns
    -------
    solvable.amp.GAMPResult
        ``estimate`` ``S_hat`` (d, d), ``variance`` the denoiser's own estimate of its error, ``history[t-1]``
        the error ``(1/d)||S_hat_t - S*||_F^2`` (:func:`solvable.denoising.symmetric_error`) after iteration ``t``,
        ``error`` the last one, ``iterations``, ``converged``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` of this model or ``rng`` is not a random source.
    ValueError
        If a control is out of its domain (named in the message).
    solvable.errors.DivergenceError
        If an iteration produces non-finite numbers.

    Notes
    -----
    The shared loop :func:`solvable.amp.run_gamp` with :class:`QuadraticSensingMap`, the noisy linear channel
    :class:`solvable.channels.LinearChannel` and the symmetric RIE :class:`solvable.rie.WishartRIEDenoiser`,
    with ``alpha = n/d^2``, ``M(S) = (Tr(Z_mu S))_mu`` and ``M^T(g) = sum_mu g_mu Z_mu``. The precision is the
    book's one definition with ``c = 2``, ``A = 2 alpha mean_mu(-d g_mu / d omega_mu) = 2 alpha / V_bar``
    (``A = 2 alpha mean_mu(g_mu^2)`` with ``precision="empirical"``), and the RIE is told the noise
    ``s = 1/(cA) = 1/(2A)``. One iteration (chapter 4, steps 1-3; its state evolution is eq-qn-se)::

        omega = M(S_hat) - V g_old,      V = 2 C,      V_bar = max(delta + V, mean((y - omega)^2)),
        g = (y - omega)/V_bar,           A = 2 alpha / V_bar,          R = S_hat + M^T(g)/(A d),
        S_hat = RIE_kappa(R, s = 1/(2A)),                              C = mmse of that denoising.

    At ``d`` of order 100 and small ``alpha`` the error sits above the asymptotic MMSE: the back-projected noise
    is a sum of ``n = alpha d^2`` rank-one terms, not a GOE matrix (:func:`sensing_noise`).

    References
    ----------
    Chapter 4, Sec. 'GAMP-RIE: reaching the Bayes-optimal error', eq-qn-se; Maillard et al. 2024,
    arXiv:2408.03733.

    Examples
    --------
    >>> from solvable import quadratic
    >>> for alpha in (0.3, 0.5):
    ...     data = quadratic.sample(20, alpha, kappa=0.5, rng=0)
    ...     res = quadratic.gamp_rie(data, rng=1)
    ...     print(alpha, f"GAMP-RIE {res.history[-1]:.2f}, theory {quadratic.bayes_optimal_mmse(alpha, 0.5):.2f}")
    ...
    0.3 GAMP-RIE 0.18, theory 0.13
    0.5 GAMP-RIE 0.00, theory 0.00
    """
    if damping is None:
        small = data.alpha < STRONG_DAMPING_BELOW * perfect_recovery_threshold(data.kappa)
        damping = STRONG_DAMPING if small else 0.5
    d, m = data.d, data.m
    W0 = rng.standard_normal((m, d))
    S0 = W0.T @ W0 / math.sqrt(m * d)
    S_star = data.S_star
    V0 = 2.0 * start_variance
    with warnings.catch_warnings():
        if not warn:
            warnings.simplefilter("ignore", ConvergenceWarning)
        res = run_gamp(
            QuadraticSensingMap(data.X),
            LinearChannel(delta=data.delta, residual_floor=precision == "derivative"),
            WishartRIEDenoiser(data.kappa),
            data.y,
            S0,
            start_variance,
            damping=damping,
            tol=tol,
            max_iter=max_iter,
            damp="both",
            precision=precision,
            omega0=np.full(data.n, V0),
            V0=V0,
            monitor=lambda S: symmetric_error(S, S_star),
            warn=warn,
        )
    return res


# --------------------------------------------------------------------------- gradient descent


def _batched_matrix_error(estimates, target):
    """``(1/d)||S_a - S*||_F^2`` of each of the (J, d, d) ``estimates`` (any array-API namespace)."""
    xp = backend.namespace(estimates, target)
    diff = estimates - target
    return xp.sum(diff * diff, axis=(-2, -1)) / target.shape[-1]


@dataclass(frozen=True)
class _FactorisedSquareLoss:
    """The square loss (1) of :mod:`solvable.gd` for the quadratic student, computed on the weights.

    ``y_hat_mu = Tr(Z_mu S(W)) = (|W x_mu|^2 - |W|_F^2) / (d sqrt(m))`` and ``dloss/dW = (P diag(r) X - sum(r) W)
    / (d sqrt(m))`` with ``P = W X^T`` and residuals ``r = y_hat - y``: two products of ``n m d`` multiply-adds per
    run instead of the four ``n d^2`` of :class:`QuadraticSensingMap` with :class:`solvable.gd.SymmetricSquare`
    (the same numbers up to rounding; about ``2/kappa`` times fewer flops). Never forms the ``d x d`` matrix
    except in :meth:`matrix`, which :func:`solvable.gd.run_gd` calls for the recorded errors. ``X`` and ``y``
    are arrays of one array-API namespace (NumPy, or PyTorch or CuPy on a GPU), that of the weights; the
    products use that namespace's functions only.
    """

    X: np.ndarray
    y: np.ndarray
    m: int

    def __post_init__(self):
        # as gd.SquareLoss: the loss is relative to sum(y^2) (run_gd's 'objective.loss_scale' names no argument)
        if self.loss_scale == 0.0:
            raise InvalidParameterError("y must not be identically zero (the relative loss is loss/sum(y^2))")

    @property
    def loss_scale(self) -> float:
        y = np.asarray(backend.to_numpy(self.y), dtype=float)
        return float(y @ y)

    def matrix(self, params):
        (W,) = params
        xp = backend.namespace(W)
        return (xp.matrix_transpose(W) @ W) / math.sqrt(self.m * self.X.shape[1])

    def loss_and_gradient(self, params):
        (W,) = params
        xp = backend.namespace(W, self.X)
        K = W.shape[0]
        c = 1.0 / (self.X.shape[1] * math.sqrt(self.m))
        P = W @ xp.matrix_transpose(self.X)  # (K, m, n)
        sq_norm = xp.reshape(xp.sum(xp.reshape(W * W, (K, -1)), axis=-1), (K, 1))
        y = self.y if self.y.dtype == W.dtype else xp.astype(self.y, W.dtype)
        res = (xp.vecdot(P, P, axis=-2) - sq_norm) * c - y  # |W x_mu|^2, without a (K, m, n) temporary
        res64 = res if res.dtype == xp.float64 else xp.astype(res, xp.float64)
        loss = 0.25 * xp.sum(res64 * res64, axis=-1)
        P *= xp.expand_dims(res, axis=1)
        grad = (P @ self.X - xp.reshape(xp.sum(res, axis=-1), (K, 1, 1)) * W) * c
        return loss, (grad,)


@declare(_gd.GD_CONTROLS, data=instance(Dataset), width=optional(integer(1), "the teacher's width m"))
def gd(
    data: Dataset,
    *,
    optimiser: str = "gd",
    n_inits: int = 32,
    lr: float | None = None,
    max_steps: int = 20_000,
    tol: float = 1e-6,
    record_every: int = 10,
    width: int | None = None,
    dtype=np.float64,
    warn: bool = True,
    device: str = "cpu",
    rng,
) -> _gd.GDResult:
    """Full-batch gradient descent on the network weights from ``n_inits`` random initialisations, and their average.

    Parameters
    ----------
    data : Dataset
        A data set of this model (:func:`sample`).
    optimiser : {"gd", "adam"}, optional
        Plain gradient descent (:class:`solvable.gd.GradientStep`) or Adam (:class:`solvable.gd.Adam`).
    n_inits : int, optional
        Number of initialisations ``J``, ``>= 1``; the ``J`` runs are one batched computation per step.
    lr : float or None, optional
        Step size, ``> 0``. ``None``: ``min(0.7 / (alpha d), 0.15)`` for ``"gd"`` (the loss has curvature about
        ``alpha d`` per unit step, and ``1 / (alpha d)`` is the edge of stability), ``0.01`` for ``"adam"``
        (a hundredth of the scale of the weights per step).
    max_steps : int, optional
        Step cap, ``>= 0``.
    tol : float, optional
        In ``[0, 1)``: a run stops when its training loss over ``sum(y^2)`` is below ``tol``.
    record_every : int, optional
        Record losses and errors every ``record_every`` steps, ``>= 1``.
    width : int or None, optional
        Student width ``m'``; ``None``: the teacher's ``m``.
    dtype : {numpy.float64, numpy.float32}, optional
        Precision of the products (float32 is 1.5 to 2 times faster on a CPU, and the fast path on a GPU;
        losses and errors stay float64, and the default ``tol = 1e-6`` is far above its rounding).
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when runs stop at ``max_steps`` or end above
        their initial loss (``False``: read ``converged`` and ``losses`` instead).
    device : {"cpu", "cuda", "auto"}, optional
        Where the descent runs (:func:`solvable.backend.resolve`): NumPy (default), a CUDA GPU through PyTorch
        or CuPy, or the GPU where one is available. The result is the same up to rounding.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the initialisations (entries N(0, 1), the prior): its ``"init"`` stream
        (:func:`solvable.streams.stream`), so that the seed given to :func:`sample` never makes a student
        the teacher; a generator is used as it is.

    Returns
    -------
    solvable.gd.GDResult
        ``estimates`` (J, d, d), ``average``, ``errors`` and ``average_error`` in the paper normalisation
        ``(1/d)||S - S*||_F^2``, ``losses``, histories and ``steps``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` of this model or an argument has the wrong type.
    ValueError
        If an argument is out of its domain, the batched arrays would exceed
        :data:`solvable.validation.MAX_ELEMENTS` numbers, or ``device="cuda"`` finds no GPU library.

    Notes
    -----
    Student ``y_hat = Tr(Z S(W))`` with ``S(W) = W^T W / sqrt(m' d)``, ``W`` in ``R^{m' x d}``, loss::

        L(W) = sum_mu (y_hat_mu - y_mu)^2 / 4,

    computed on the weights in ``O(n m' d)`` per run. Noiseless: one run behaves like a posterior sample (about
    twice the Bayes error), the average over initialisations approaches the Bayes error.

    The data and the initial weights are checked and drawn in NumPy whatever the ``device`` (the same draws of
    ``rng``), then moved to the device (:func:`solvable.backend.asarray`); the descent runs there and the
    result comes back as NumPy arrays on the host.

    References
    ----------
    Chapter 4, Sec. 'Gradient descent: a sampler of the posterior'; Maillard et al. 2024, arXiv:2408.03733.

    Examples
    --------
    Above the perfect-recovery threshold (``alpha = 2 > 0.375`` at ``kappa = 1/2``), every student recovers the
    teacher's matrix:

    >>> import numpy as np
    >>> from solvable import quadratic
    >>> data = quadratic.sample(8, 2.0, kappa=0.5, rng=0)
    >>> res = quadratic.gd(data, n_inits=4, rng=1)
    >>> print(res.converged, bool(np.all(res.errors < 1e-4)))
    [ True  True  True  True] True
    """
    d = data.d
    m = data.m if width is None else width

    def size(K, dtype):
        check_size("the students' weights (n_inits, width, d)", K, m, d)
        check_size("the batched products X S of gradient descent (n_inits, n, d)", K, data.n, d)

    def default_lr(optimiser):
        return min(0.7 / (data.alpha * d), 0.15) if optimiser == "gd" else 0.01

    def draw(rng, K):
        return (rng.standard_normal((K, m, d)),)

    def objective(xp, dev, dtype):
        X = backend.asarray(np.ascontiguousarray(data.X, dtype=dtype), xp, dev)
        return _FactorisedSquareLoss(X, backend.asarray(data.y, xp, dev), m)

    return _gd.fit_students(
        objective,
        draw,
        n_inits=n_inits,
        optimiser=optimiser,
        lr=lr,
        default_lr=default_lr,
        tol=tol,
        max_steps=max_steps,
        record_every=record_every,
        warn=warn,
        dtype=dtype,
        device=device,
        rng=rng,
        target=data.S_star,
        error=_batched_matrix_error,
        size=size,
    )


# --------------------------------------------------------------------------- ERM: the nuclear-norm route


@record
class NuclearNormResult:
    """Solution of :func:`nuclear_norm_erm`.

    Parameters
    ----------
    estimate : numpy.ndarray
        The PSD estimate ``S_hat`` (d, d).
    train_loss : float
        Its mean squared residual ``sum_mu (y_mu - Tr(Z_mu S_hat))^2 / n``.
    nuclear_norm : float
        ``Tr S_hat`` (its nuclear norm, ``S_hat`` being PSD).
    iterations : int
        Iterations run.
    converged : bool
        Whether the relative change of ``S`` fell below ``tol``.
    message : str
        Why the iteration stopped: the relative change against ``tol``, or the cap (then the warning's text).

    Notes
    -----
    The solution of eq-qn-nuclear at the penalty given.

    References
    ----------
    Chapter 4, Sec. 'Empirical risk minimisation: the nuclear route', eq-qn-nuclear.
    """

    estimate: np.ndarray = field(repr=False)
    train_loss: float
    nuclear_norm: float
    iterations: int
    converged: bool
    message: str


def _psd_soft_threshold(M, threshold):
    lam, O = np.linalg.eigh(0.5 * (M + M.T))
    return (O * np.maximum(lam - threshold, 0.0)) @ O.T


@declare(data=DATA, lam=real(0.0, low_open=True))
def nuclear_norm_erm(
    data: Dataset, *, lam: float, tol: float = 1e-7, max_iter: int = 3000, warn: bool = True
) -> NuclearNormResult:
    """ERM of an over-parameterised quadratic network (width ``>= d``) with weight decay, via its convex twin.

    For a student of width ``m' >= d``, every PSD matrix is reachable as ``S = W^T W / sqrt(m' d)``, and every
    ``W`` giving ``S`` has the same norm ``|W|_F^2 = Tr(W^T W) = sqrt(m' d) Tr S``; ERM with weight decay ``lambda``
    is therefore the convex problem (with ``lam = lambda sqrt(m' d)``, eq-qn-nuclear)

        min_{S PSD}  sum_mu (y_mu - Tr(Z_mu S))^2 + lam Tr S,

    solved here by accelerated proximal gradient (FISTA, Beck and Teboulle 2009) with gradient-based adaptive
    restart (O'Donoghue and Candes 2015): the prox of ``lam Tr S`` plus the PSD constraint is the eigenvalue
    soft threshold ``prox_tau``, ``lambda_i -> max(lambda_i - tau, 0)`` on the eigenvalues ``lambda_i`` of ``S``
    (eigenvectors kept), at the level ``tau = step * lam``. The step is the inverse Lipschitz constant of the
    gradient, found by power iteration. At small ``lam`` the interpolating directions are flat and only the
    penalty moves the iterate along them, slowly, which the restart speeds up (the relative-change test is no
    optimality certificate along such flat directions). ``lam -> 0+`` in the noiseless case approaches the
    minimum-nuclear-norm interpolator. Its ``d -> inf`` limit at ``lam = lam_over_d * d``:
    :func:`nuclear_norm_erm_theory`.

    Parameters
    ----------
    data : Dataset
        A data set of this model (:func:`sample`).
    lam : float
        The penalty ``lam = lambda sqrt(m' d)`` on ``Tr S``, ``> 0``. Required: it has no default (``None``, the
        placeholder, raises ``TypeError``), since it defines the estimator.
    tol : float, optional
        In ``[0, 1)``: stop when the relative change ``||S_new - S||_F / ||S_new||_F`` falls below ``tol``.
    max_iter : int, optional
        Iteration cap, ``>= 1``.
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when ``max_iter`` is reached before ``tol`` (the last
        iterate is returned, ``converged`` False).

    Returns
    -------
    NuclearNormResult
        The estimate, its training loss and nuclear norm, the iterations and ``converged``.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`Dataset` of this model.
    ValueError
        If a control is out of its domain.

    Notes
    -----
    The convex twin of ERM with weight decay (eq-qn-nuclear)::

        min_{S PSD}  sum_mu (y_mu - Tr(Z_mu S))^2 + lam Tr S.

    References
    ----------
    Chapter 4, Sec. 'Empirical risk minimisation: the nuclear route', eq-qn-nuclear; Erba, Troiani, Zdeborova,
    Krzakala 2025, arXiv:2505.17958; Beck and Teboulle 2009; O'Donoghue and Candes 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import quadratic
    >>> data = quadratic.sample(20, 0.3, kappa=0.5, rng=0)
    >>> res = quadratic.nuclear_norm_erm(data, lam=1.0)
    >>> print(res.converged, res.estimate.shape, bool(np.all(np.linalg.eigvalsh(res.estimate) > -1e-8)))
    True (20, 20) True
    """
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
    message = stop_message(
        "nuclear_norm_erm", converged=converged, iterations=it, change=change, tol=tol, max_iter=max_iter
    )
    if warn and not converged:
        warn_user(message, ConvergenceWarning)
    residual = M.forward(S) - y
    return NuclearNormResult(
        estimate=S,
        train_loss=float(np.mean(residual**2)),
        nuclear_norm=float(np.trace(S)),
        iterations=it,
        converged=converged,
        message=message,
    )


# --------------------------------------------------------------------------- ERM: its sharp asymptotics


@record
class SoftThresholdResult:
    """Asymptotic statistics of the PSD soft-threshold of a noisy Wishart matrix (:func:`psd_soft_threshold_stats`).

    Parameters
    ----------
    error : float
        The error ``(1/d)|S_hat - S*|_F^2``.
    divergence : float
        ``D = (1/d^2) sum_{i != j} ((lambda_i - tau)_+ - (lambda_j - tau)_+)/(lambda_i - lambda_j)``, ``lambda_i`` the
        eigenvalues of ``Y``.
    rank_fraction : float
        The fraction of non-zero eigenvalues of ``S_hat``.
    trace : float
        ``(1/d) Tr S_hat``.

    Notes
    -----
    ``S_hat = prox_tau(Y) = U diag((lambda_i - tau)_+) U^T`` for ``Y = S* + sqrt(noise) Z_GOE = U diag(lambda) U^T``.

    References
    ----------
    Chapter 4, Sec. 'Empirical risk minimisation: the nuclear route', eq-qn-erm-se.
    """

    error: float
    divergence: float
    rank_fraction: float
    trace: float


def _soft_threshold_integrals(kappa: float, noise: float, threshold: float, n_nodes: int = 64):
    """``(int nu f^2, int nu f u, 2 int nu f Re G, int nu, int nu f)`` over ``u > tau``, ``f = u - tau``."""
    law = spectra.wishart_plus_goe(noise, kappa=kappa)
    pieces = [(max(lo, threshold), hi) for lo, hi in law.pieces if hi > threshold]
    if not pieces:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    x, w = spectra.bulk_quadrature(pieces, n_nodes)
    wr = w * law.density(x)
    f = x - threshold
    return (
        float(np.sum(wr * f * f)),
        float(np.sum(wr * f * x)),
        2.0 * float(np.sum(wr * f * law.stieltjes_real(x))),
        float(np.sum(wr)),
        float(np.sum(wr * f)),
    )


@declare(noise=NOISE, threshold=real(0.0), kappa=SPECTRAL_KAPPA)
def psd_soft_threshold_stats(noise: float, threshold: float, *, kappa: float) -> SoftThresholdResult:
    """Error and divergence of the PSD eigenvalue soft-threshold of a noisy Wishart matrix, as ``d -> inf``.

    ``Y = S* + sqrt(noise) Z`` with ``S* = W* W*^T/sqrt(m d)`` (paper normalisation, ``kappa = m/d``) and ``Z`` a
    GOE of variance 1; the soft threshold ``lambda_i -> f(lambda_i)``, ``f(u) = max(u - tau, 0)``, applied to the
    eigenvalues ``lambda_i`` of ``Y`` is the proximal map ``prox_tau`` of ``tau Tr S`` plus the PSD constraint. With
    ``nu_Y`` the density of ``Y`` (free convolution of Marchenko-Pastur with a semicircle of variance ``noise``,
    :class:`solvable.spectra.WishartPlusNoise`) and ``h = Re G_Y`` (``pi`` times its Hilbert transform), ``u`` and
    ``u'`` real points of the spectrum:

    - divergence ``D = int int nu_Y(u) nu_Y(u') (f(u) - f(u'))/(u - u') = 2 int nu_Y f h``: the double integral has
      a bounded integrand (``f`` is 1-Lipschitz) and by antisymmetry equals the single one, whose ``h`` is the
      principal-value integral ``PV int nu_Y(u')/(u - u') du'``, here in closed form from the cubic of ``Y``;
    - overlap ``(1/d) Tr(S_hat S*) = int nu_Y f (u - 2 noise h)``: the conditional mean of ``S*`` along an
      eigenvector of ``Y`` is the RIE value ``u - 2 noise Re G_Y(u)`` (Bun et al. 2016, arXiv:1502.06736);
    - error ``mse = int nu_Y f^2 - 2 int nu_Y f u + 2 noise D + (1 + kappa)``.

    Integrals by Gauss-Legendre on the support cut at ``tau`` (:func:`solvable.spectra.bulk_quadrature`).

    Parameters
    ----------
    noise : float
        Variance of the GOE noise, in ``spectra.NOISE_RANGE`` (first, as in every function of the noise).
    threshold : float
        The threshold ``tau >= 0``.
    kappa : float
        Width ratio of the Wishart signal, in ``spectra.RATIO_RANGE`` (keyword-only).

    Returns
    -------
    SoftThresholdResult
        The error, the divergence, the fraction of non-zero eigenvalues and ``(1/d) Tr S_hat``.

    Raises
    ------
    ValueError
        If an argument is out of its domain (TypeError for a non-number).

    Notes
    -----
    With ``f(u) = max(u - tau, 0)``, ``nu_Y`` the density of ``Y`` and ``h = Re G_Y``::

        D = 2 int nu_Y f h,      mse = int nu_Y f^2 - 2 int nu_Y f u + 2 noise D + (1 + kappa).

    References
    ----------
    Chapter 4, Sec. 'Empirical risk minimisation: the nuclear route', eq-qn-erm-se; Bun, Allez, Bouchaud,
    Potters 2016, arXiv:1502.06736.
    """
    i_ff, i_fx, div, rank, trace = _soft_threshold_integrals(kappa, noise, threshold)
    mse = max(i_ff - 2.0 * i_fx + 2.0 * noise * div + 1.0 + kappa, 0.0)
    return SoftThresholdResult(error=mse, divergence=div, rank_fraction=rank, trace=trace)


@record
class NuclearNormTheoryResult:
    """Sharp asymptotics of :func:`nuclear_norm_erm` (:func:`nuclear_norm_erm_theory`).

    Parameters
    ----------
    error : float
        ``(1/d)|S_hat - S*|_F^2`` (paper normalisation, as :func:`solvable.denoising.symmetric_error`).
    test_error : float
        ``delta + 2 mse`` on a fresh noisy label.
    train_loss : float
        The mean squared residual ``(1/n) sum (y - Tr(Z S_hat))^2`` (as :attr:`NuclearNormResult.train_loss`).
    rank_fraction : float
        The fraction of non-zero eigenvalues of ``S_hat``.
    trace : float
        ``(1/d) Tr S_hat``.
    noise : float
        The effective noise ``s`` of the denoising problem.
    threshold : float
        Its threshold ``tau``.
    divergence : float
        Its divergence ``D``.

    Notes
    -----
    ``(s, tau)`` solve eq-qn-erm-se (:func:`nuclear_norm_erm_theory`).

    References
    ----------
    Chapter 4, Sec. 'Empirical risk minimisation: the nuclear route', eq-qn-erm-se.
    """

    error: float
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
    """Threshold ``tau`` solving ``lam = 2 tau (2 alpha - D(s, tau))`` (``lam = 0``: the ``lam -> 0+`` branch)."""

    def div(t):
        return _soft_threshold_integrals(kappa, s, t)[2]

    top = spectra.wishart_plus_goe(s, kappa=kappa).bulks[-1][1]
    hi = (
        max(top, 0.0) + lam / (4.0 * alpha) + 1.0
    )  # above the top edge D = 0 and the gap is 4 alpha t - lam > 0
    if lam == 0.0:
        if div(0.0) <= 2.0 * alpha:
            return 0.0
        return brentq(lambda t: 2.0 * alpha - div(t), 0.0, hi, xtol=1e-13, rtol=1e-12)
    return brentq(lambda t: 2.0 * t * (2.0 * alpha - div(t)) - lam, 0.0, hi, xtol=1e-13, rtol=1e-12)


@declare(alpha=SAMPLE_ALPHA, kappa=SPECTRAL_KAPPA, lam_over_d=real(0.0))
def nuclear_norm_erm_theory(
    alpha: float, kappa: float, lam_over_d: float, delta: float = 0.0
) -> NuclearNormTheoryResult:
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
    ``tau``, with ``s = qhat/(2 Vhat^2)``, ``tau = lam_over_d/Vhat`` and ``V = D/Vhat``. Eliminating the hats and
    ``V``, ``(s, tau)`` solve

        4 alpha s = delta + 2 mse(s, tau),                 (the residual variance, as in GAMP-RIE)
        lam_over_d = 2 tau (2 alpha - D(s, tau)),          (the penalty; D the divergence)

    with training loss ``(delta + 2 mse) (1 - D/(2 alpha))^2`` and test error ``delta + 2 mse``. Mapping to the
    authors' variables (their state-evolution code, ``M = sqrt(qhat) Z + mhat S* - 2 lreg I``, ``S_hat =
    relu(M)/Sigmahat``, ``qhat = 2 alpha (Q0 - 2m + q + delta/2)/(Sigma + 1/4)^2``, ``mhat = Sigmahat =
    2 alpha/(Sigma + 1/4)``): ``s = qhat/mhat^2``, ``tau = 2 lreg/mhat``, ``lreg = lam_over_d``,
    ``mse = Q0 - 2m + q``, ``Sigma = D/(4 (2 alpha - D))``.

    ``lam_over_d = 0`` is the limit ``lam' -> 0+`` (the minimum-nuclear-norm interpolator when one exists).
    Solved by nested bracketing (``tau`` given ``s``, then ``s``; the plain iteration of the two equations
    oscillates at small ``alpha`` and slows down near exact recovery). At finite ``d`` the quadratic network's
    rank-one measurements differ from the GOE design: ERM sits above this limit by a gap shrinking with ``d``;
    at ``lam_over_d -> 0`` and small ``alpha`` (exact interpolation) it can sit below it at small ``d``: a PSD
    interpolator has ``x^T S x >= 0``, so ``Tr S >= -sqrt(d) min_mu y_mu``, a floor that a Gaussian design does
    not have and that recedes only as ``sqrt(d)`` against ``sqrt(log n)``.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n / d^2``, ``> 0``.
    kappa : float
        Width ratio ``m / d``, ``> 0`` (in ``spectra.RATIO_RANGE``).
    lam_over_d : float
        The penalty over ``d``, ``>= 0`` (``0``: the limit ``lam -> 0+``).
    delta : float, optional
        Label-noise variance, ``>= 0``.

    Returns
    -------
    NuclearNormTheoryResult
        The error, test error, training loss, rank fraction, trace and the effective ``(s, t, D)``.

    Raises
    ------
    ValueError
        If an argument is out of its domain or puts the effective noise beyond the spectral law's range.
    ArithmeticError
        If no fixed point is bracketed.

    Notes
    -----
    The two equations above (eq-qn-erm-se), with training loss ``(delta + 2 mse)(1 - D/(2 alpha))^2`` and test
    error ``delta + 2 mse``.

    References
    ----------
    Chapter 4, Sec. 'Empirical risk minimisation: the nuclear route', eq-qn-erm-se; Erba, Troiani, Zdeborova,
    Krzakala 2025, arXiv:2505.17958.

    Examples
    --------
    The minimum-nuclear-norm interpolator (``lam_over_d = 0``) and the Bayes-optimal error at ``kappa = 1/2``:

    >>> from solvable import quadratic
    >>> res = quadratic.nuclear_norm_erm_theory(0.3, 0.5, 0.0)
    >>> bayes = quadratic.bayes_optimal_mmse(0.3, 0.5)
    >>> print(f"MNNE {res.error:.4f} (train loss {res.train_loss:.4f}), Bayes {bayes:.4f}")
    MNNE 0.1610 (train loss 0.0000), Bayes 0.1281
    >>> print(f"{quadratic.nuclear_norm_erm_theory(0.45, 0.5, 0.0).error:.4f}")
    0.0000
    """
    lam = lam_over_d
    q0 = 1.0 + kappa

    def residual_gap(log_s):
        s = math.exp(log_s)
        t = _erm_threshold(alpha, kappa, s, lam)
        return 4.0 * alpha * s - delta - 2.0 * psd_soft_threshold_stats(s, t, kappa=kappa).error

    s_start = (delta + 2.0 * q0) / (4.0 * alpha) + 1.0  # above the noise of the trivial estimate S = 0
    if s_start > 1e-6 * spectra.NOISE_RANGE[1]:
        raise InvalidParameterError(
            f"alpha = {alpha:g} and delta = {delta:g} put the effective noise "
            f"(delta + 2 (1 + kappa))/(4 alpha) = {s_start:.3g} beyond the range of "
            "the spectral law; use a larger alpha or a smaller delta"
        )
    lo = math.log(_ERM_NOISE_FLOOR)
    if residual_gap(lo) >= 0.0:
        log_s = lo
    else:
        hi = math.log(s_start)
        while residual_gap(hi) < 0.0:
            hi += math.log(4.0)
            if hi > math.log(
                spectra.NOISE_RANGE[1]
            ):  # pragma: no cover - G > 0 at large s for every alpha > 0
                raise ArithmeticError(f"no fixed point found for alpha = {alpha}, kappa = {kappa}")
        log_s = brentq(residual_gap, lo, hi, xtol=1e-12, rtol=1e-12)
    s = math.exp(log_s)
    t = _erm_threshold(alpha, kappa, s, lam)
    st = psd_soft_threshold_stats(s, t, kappa=kappa)
    train = (delta + 2.0 * st.error) * (1.0 - st.divergence / (2.0 * alpha)) ** 2
    # At exact recovery (noise at the floor, t = 0) the teacher's null eigenvalues are smeared over +-1e-6, and
    # half of them would count as non-zero: report the teacher's rank instead.
    rank = min(kappa, 1.0) if (log_s == lo and t == 0.0) else st.rank_fraction
    return NuclearNormTheoryResult(
        error=st.error,
        test_error=delta + 2.0 * st.error,
        train_loss=train,
        rank_fraction=rank,
        trace=st.trace,
        noise=s,
        threshold=t,
        divergence=st.divergence,
    )

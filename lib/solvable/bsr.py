"""Bilinear sequence regression (BSR): learning a low-rank matrix from long sequences of tokens.

Model (Chapter 3, Sec. "Sequences of tokens, and what vectorising throws away", ``eq-bsr-model``; Erba, Troiani,
Biggio, Maillard, Zdeborova, "Bilinear sequence regression: a model for learning from long sequences of
high-dimensional tokens", arXiv:2410.18858, PRX 2025). A sequence of ``L`` tokens of dimension ``d`` is a matrix
``X_mu`` in ``R^{d x L}`` with i.i.d. N(0, 1) entries; the teacher is ``S* = U* V*^T/sqrt(r)`` with ``U*`` in
``R^{d x r}``, ``V*`` in ``R^{L x r}`` i.i.d. N(0, 1), and the labels are

    y_mu = <X_mu, S*>/sqrt(dL) + sqrt(delta) xi_mu = Tr[X_mu^T U* V*^T]/sqrt(d L r) + sqrt(delta) xi_mu.

Parameters keep the paper's symbols: ``alpha = n/(dL)``, ``beta = L/d``, ``rho = r/min(d, L)`` (``= r/d`` in
the paper, which takes ``d <= L``), ``delta`` the label-noise variance. Errors are per entry on the unit
scale, ``MSE = ||S_hat - S*||_F^2/(dL)`` (1 for ``S_hat = 0``); the test error on a fresh noisy label is
``MSE + delta``. ``beta < 1`` (``d > L``): every formula is invariant under transposing the problem, so the
theory functions read ``beta`` as ``max(beta, 1/beta)``; data are never transposed.

Theory (Sec. "The Bayes-optimal error", ``eq-bsr-fixed-point``): with the effective matrix-denoising noise
``s(q) = (delta + 1 - q)/alpha`` the Bayes-optimal overlap solves ``q = 1 - mmse_den(beta, rho, s(q))``, with
``mmse_den`` the MMSE of the rectangular rotationally invariant estimator (:func:`solvable.rie.rectangular_rie_mmse`,
which owns those numerics; Troiani et al., arXiv:2203.07752). Iterating it from ``q_0 = 0`` is the state
evolution of GAMP-RIE (``eq-bsr-se``; rigorous: Xu, Maillard, Zdeborova, Krzakala, arXiv:2503.14121).

Algorithm (Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error"): :func:`gamp_rie` is
:func:`solvable.amp.run_gamp` with the linear map :class:`BilinearMap`, the noisy linear channel and the
rectangular RIE (:class:`solvable.rie.RectangularRIEDenoiser`). Baselines: perfect-recovery threshold, ridge on
``vec(X)``, minimum nuclear norm (Donoho, Gavish, Montanari, PNAS 110:8405 (2013), arXiv:1302.2331) with its
threshold (:func:`nuclear_norm_threshold`) and its error below it (:func:`nuclear_norm_mse`, the state evolution of
singular-value soft thresholding, :func:`soft_threshold_risk`); gradient descent on ``(U, V)`` is :func:`gd`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import field, replace

import numpy as np
from scipy import linalg
from scipy.optimize import brentq

from . import backend, convex, rie
from . import gd as _gd
from .amp import GAMPResult, SEResult, iterate_state_evolution, run_gamp
from .channels import LinearChannel
from .dataset import Dataset as _BaseDataset
from .domains import Domain, array, choice, declare, function, instance, integer, optional, real, seed
from .errors import ConvergenceWarning, DivergenceError, InvalidParameterError
from .errors import warn as warn_user
from .regression import fit_ridge as _fit_ridge_dense
from .regression import gaussian_linear_mse
from .results import record
from .spectra import (
    MAX_ASPECT_RATIO,
    MAX_NODES,
    NOISE_RANGE,
    RATIO_RANGE,
    bulk_quadrature,
    rectangular_plus_noise,
)
from .validation import (
    all_finite,
    check_nonnegative,
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
    "soft_threshold_risk",
    "nuclear_norm_mse",
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

#: Smallest positive sample ratio of :func:`nuclear_norm_mse` (its effective noise, about 1/alpha, stays in range).
_MNNE_SMALLEST_ALPHA = 1e-8
#: Smallest error at which the noiseless fixed-point equation is bracketed (``e = 0`` is always a root there).
_E_LOW_NOISELESS = 1e-12
#: Largest ``|error - root|`` of a converged state evolution, relative to ``max(1e-6, 1e3 tol)``, before the two
#: are reported as disagreeing.
_AGREE = 1e3

# --------------------------------------------------------------------------- data


@record
class Dataset(_BaseDataset):
    """A BSR data set drawn by :func:`sample`.

    Parameters
    ----------
    X : numpy.ndarray (n, d, L)
        The input sequences ``X_mu`` (unit-variance entries), one C-contiguous array, so that
        ``X.reshape(n, d * L)`` is a view: the flattened design every algorithm multiplies by.
    y : numpy.ndarray (n,)
        Labels ``y_mu = <X_mu, S*>/sqrt(dL) + sqrt(delta) xi_mu``.
    S_star : numpy.ndarray (d, L)
        Teacher ``U* V*^T/sqrt(r)`` on the unit scale.
    U_star : numpy.ndarray (d, r)
        Its left factor (ambient dimension first).
    V_star : numpy.ndarray (L, r)
        Its right factor.
    delta : float
        Label-noise variance ``>= 0``.

    Attributes
    ----------
    n, d, L, r : int
        Sizes.
    alpha : float
        Sample ratio ``n/(dL)``.
    beta : float
        Aspect ratio ``L/d``.
    rho : float
        Rank ratio ``r/min(d, L)``.
    design : numpy.ndarray (n, dL)
        The flattened design (a view of ``X``).

    Raises
    ------
    TypeError
        If an array is not an array of real numbers.
    ValueError
        If the shapes do not match, an array is not finite, or ``delta < 0``.

    Notes
    -----
    The model is ``eq-bsr-model`` of Chapter 3 [1]_.

    References
    ----------
    .. [1] Chapter 3, Sec. "Sequences of tokens, and what vectorising throws away".
    """

    S_star: np.ndarray = field(repr=False, default=None)
    U_star: np.ndarray = field(repr=False, default=None)
    V_star: np.ndarray = field(repr=False, default=None)
    delta: float = 0.0

    def _check(self) -> None:
        X, y, S, U, V = self.X, self.y, self.S_star, self.U_star, self.V_star
        if S is None or U is None or V is None:
            raise InvalidParameterError("S_star, U_star and V_star are required")
        if X.ndim != 3 or y.ndim != 1 or S.ndim != 2 or U.ndim != 2 or V.ndim != 2:
            raise InvalidParameterError(
                "X, y, S_star, U_star, V_star must be 3-d (n, d, L), 1-d (n,), 2-d (d, L), (d, r), (L, r); "
                f"got shapes {X.shape}, {y.shape}, {S.shape}, {U.shape}, {V.shape}"
            )
        n, d, L = X.shape
        if (
            y.shape[0] != n
            or S.shape != (d, L)
            or U.shape[0] != d
            or V.shape[0] != L
            or U.shape[1] != V.shape[1]
        ):
            raise InvalidParameterError(
                f"shapes do not match: X is (n, d, L) = {X.shape}, so y must be ({n},), S_star ({d}, {L}), "
                f"U_star ({d}, r) and V_star ({L}, r); got {y.shape}, {S.shape}, {U.shape}, {V.shape}"
            )
        object.__setattr__(self, "delta", check_nonnegative("delta", self.delta))

    @property
    def d(self) -> int:
        """Token dimension ``d``."""
        return int(self.X.shape[1])

    @property
    def L(self) -> int:
        """Sequence length ``L``."""
        return int(self.X.shape[2])

    @property
    def r(self) -> int:
        """Rank of the teacher."""
        return int(self.U_star.shape[1])

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


def _check_target(name: str, value):
    """The teacher: a data set of this model (its ``S_star``) or a non-empty 2-d array of finite reals."""
    if isinstance(value, Dataset):
        return value.S_star
    return _MATRIX.check(name, value)


def _check_sequences(name: str, X):
    """The inputs of :class:`BilinearMap`: an array of another array-API library passes (the constructor
    checks it in its namespace, on its device); a NumPy float32 array stays float32; anything else is a
    float64 array."""
    if backend.is_non_numpy_array(X):
        return X
    if isinstance(X, np.ndarray) and X.dtype == np.float32:
        if X.ndim != 3 or X.size == 0 or not all_finite(X):
            raise InvalidParameterError(
                f"{name} must be {SEQUENCES.text}, got a float32 array of shape "
                f"{X.shape}" + ("" if X.ndim != 3 or X.size == 0 else " with non-finite entries")
            )
        return X
    return _FLOAT_SEQUENCES.check(name, X)


#: The domains of the model's parameters (solvable.domains): a data set of this model; the sampler's
#: ratios (finite, > 0; rho > 1 is a full-rank teacher); the theory's rank ratio in spectra.RATIO_RANGE, a
#: finite aspect ratio, the aspect ratio of the singular-value law (max(beta, 1/beta) <=
#: spectra.MAX_ASPECT_RATIO), a noise variance in spectra.NOISE_RANGE and the quadrature nodes; the teacher
#: (a matrix or a data set) and the input sequences.
DATA = instance(Dataset)
SAMPLE_RATIO = real(0.0, low_open=True)
RHO = real(*RATIO_RANGE)
FINITE_BETA = real(0.0, low_open=True)
SVT_BETA = real(1.0 / MAX_ASPECT_RATIO, MAX_ASPECT_RATIO)
NOISE = real(*NOISE_RANGE)
NODES = integer(2, MAX_NODES)
_MATRIX = array(2)
TARGET = Domain(f"{_MATRIX.text}, or a solvable.bsr.Dataset (its S_star)", _check_target, "array", (2,))
_FLOAT_SEQUENCES = array(3)
SEQUENCES = Domain(
    "a non-empty 3-d array (n, d, L) of finite real numbers (float32 kept; PyTorch, CuPy and "
    "array-API arrays accepted)",
    _check_sequences,
    "array",
    (3,),
)


def _integer_size(name: str, ratio: float, d: int) -> int:
    """``round(ratio d)``, refusing a ratio whose product with ``d`` is not within 1e-9 of an integer >= 1."""
    size = ratio * d
    k = round(size)
    if k < 1 or abs(size - k) > 1e-9 * max(1.0, size):
        raise InvalidParameterError(
            f"{name} * d must be an integer >= 1 (within 1e-9), got {name} = "
            f"{ratio!r} with d = {d} ({name} d = {size!r})"
        )
    return int(k)


@declare(alpha=SAMPLE_RATIO, beta=SAMPLE_RATIO, rho=SAMPLE_RATIO)
def sample(d: int, alpha: float, *, beta: float, rho: float, delta: float = 0.0, rng) -> Dataset:
    """Draw a BSR teacher and ``n = round(alpha d L)`` labelled sequences.

    Parameters
    ----------
    d : int
        Token dimension (``>= 1``).
    alpha : float
        Sample ratio ``n/(dL) > 0``; at least one sample is drawn.
    beta : float
        Aspect ratio ``L/d``: ``L = round(beta d)`` (``beta d`` within 1e-9 of an integer >= 1).
    rho : float
        Rank ratio ``r/min(d, L)``: ``r = round(rho min(d, L))`` (``= rho d`` for ``beta >= 1``; within 1e-9 of
        an integer >= 1). ``rho > 1`` gives a full-rank teacher, which the theory also covers.
    delta : float, optional
        Label-noise variance ``>= 0``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required).

    Returns
    -------
    Dataset
        The data set, with the teacher.

    Raises
    ------
    ValueError
        For a parameter out of range (named), a ratio whose product with the dimension is not an integer, or
        sizes whose arrays would exceed :data:`solvable.validation.MAX_ELEMENTS` numbers.
    TypeError
        For a wrong type (e.g. ``rng=None``).

    Notes
    -----
    ``y_mu = <X_mu, S*>/sqrt(dL) + sqrt(delta) xi_mu`` with ``S* = U* V*^T/sqrt(r)`` (``eq-bsr-model``). Draw order
    (fixed, the order of the authors' code): ``X`` (n, d, L), ``U*`` (d, r), ``V*^T`` (r, L), then the label noise
    (only if ``delta > 0``).

    References
    ----------
    .. [1] Chapter 3, Sec. "Sequences of tokens, and what vectorising throws away".
    .. [2] V. Erba et al., arXiv:2410.18858 (2024).

    Examples
    --------
    >>> from solvable import bsr
    >>> data = bsr.sample(20, 0.5, beta=1.5, rho=0.5, rng=0)
    >>> print(data.n, data.d, data.L, data.r, data.X.shape, data.S_star.shape)
    300 20 30 10 (300, 20, 30) (20, 30)
    """
    L = _integer_size("beta", beta, d)
    r = _integer_size("rho", rho, min(d, L))
    n = max(1, round(alpha * d * L))
    # every array alive at once: X, U*, V*, S*, y (and the noise)
    check_size(
        "the data set (X: n = alpha d L sequences of d x L, U*, V*, S*, y)",
        n * d * L + (d + L) * r + d * L + 2 * n,
    )
    X = rng.standard_normal((n, d, L))
    U = rng.standard_normal((d, r))
    V = rng.standard_normal((r, L)).T
    S = U @ V.T / math.sqrt(r)
    y = X.reshape(n, d * L) @ S.reshape(-1) / math.sqrt(d * L)
    if delta > 0:
        y = y + math.sqrt(delta) * rng.standard_normal(n)
    return Dataset.adopt(X=X, y=y, S_star=S, U_star=U, V_star=V, delta=delta)


@declare(estimate=_MATRIX, target=TARGET)
def mse(estimate, target) -> float:
    """Per-entry error ``||S_hat - S*||_F^2/(dL)`` on the unit scale.

    Parameters
    ----------
    estimate : array_like (d, L)
        The estimate (finite, the target's shape).
    target : array_like (d, L) or Dataset
        The teacher ``S*``, or a data set whose teacher is used.

    Returns
    -------
    float
        The mean squared difference per entry.

    Raises
    ------
    ValueError
        For shapes that differ, non-finite entries, or an overflow of the squared difference.

    Notes
    -----
    ``MSE = ||S_hat - S*||_F^2/(dL)`` (``eq-bsr-error``; 1 for ``S_hat = 0`` on average).

    References
    ----------
    .. [1] Chapter 3, Sec. "The Bayes-optimal error".
    """
    _check_pair(estimate, target, batch=False)
    diff = estimate - target
    return _finite_error(float(np.mean(diff * diff)))


def _finite_error(value):
    """An error that overflowed (entries near 1e154 and beyond) is refused rather than returned as inf."""
    if not np.all(np.isfinite(value)):
        raise InvalidParameterError("estimate and target are too large: their squared difference overflows")
    return value


def _check_pair(estimate, target, *, batch: bool) -> None:
    """``estimate`` has the shape of the ``(d, L)`` target (or, with ``batch``, leading batch axes before it).
    No broadcasting: a ``(d,)`` vector against a ``(d, L)`` matrix is an error, not an error per column."""
    ok = estimate.shape[-2:] == target.shape if batch else estimate.shape == target.shape
    if estimate.ndim < 2 or not ok:
        raise InvalidParameterError(
            f"estimate must {'end with' if batch else 'have'} the shape of the "
            f"target {target.shape}, got {estimate.shape}"
        )


@declare(estimate=array(), target=TARGET)
def normalised_mse(estimate, target):
    """Error relative to the teacher's own size, ``||S_hat - S*||_F^2/||S*||_F^2``, for finite-size experiments.

    Parameters
    ----------
    estimate : array_like (..., d, L)
        The estimate; leading batch axes are allowed (e.g. the ``(K, d, L)`` estimates of :func:`gd`).
    target : array_like (d, L) or Dataset
        The teacher ``S*`` (non-zero), or a data set whose teacher is used.

    Returns
    -------
    float or numpy.ndarray
        A float for one ``(d, L)`` estimate, an array over the batch otherwise.

    Raises
    ------
    ValueError
        For mismatched shapes, non-finite entries, a zero target, or an overflow.

    Notes
    -----
    ``||S_hat - S*||_F^2/||S*||_F^2``. At finite size the teacher's ``||S*||_F^2/(dL)`` fluctuates around 1
    (standard deviation about ``2/sqrt(d r)`` for ``d = L``), and the error of every estimator at small ``alpha``
    moves with it; dividing by it removes that fluctuation. Both errors have the same large-size limit,
    :func:`bayes_optimal_mmse` for the posterior mean.

    References
    ----------
    .. [1] Chapter 3, Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import bsr
    >>> data = bsr.sample(20, 0.5, beta=1.0, rho=0.25, rng=0)
    >>> print(round(bsr.normalised_mse(np.zeros((20, 20)), data), 4))
    1.0
    >>> print(f"ridge {bsr.normalised_mse(bsr.fit_ridge(data), data):.2f}, theory {bsr.ridge_mse(0.5):.2f}")
    ridge 0.45, theory 0.50
    """
    _check_pair(estimate, target, batch=True)
    largest = float(np.max(np.abs(target)))
    if largest == 0.0:
        raise InvalidParameterError("target must not be zero")
    if not 1e-100 <= largest <= 1e100:
        # the ratio does not depend on a common scale: divide both by the target's largest entry, so that the
        # squares neither underflow (1e-160 times a matrix) nor overflow (1e160 times one)
        estimate, target = estimate / largest, target / largest
    diff = estimate - target
    with np.errstate(over="ignore", invalid="ignore"):
        errors = np.mean(diff * diff, axis=(-2, -1)) / float(np.mean(target * target))
    errors = _finite_error(errors)
    return float(errors) if errors.ndim == 0 else errors


# --------------------------------------------------------------------------- theory


def _fold(beta: float) -> float:
    """``max(beta, 1/beta)``: every formula is invariant under transposing the problem (``inf`` stays)."""
    return max(beta, 1.0 / beta)


def _parameter_fraction(beta: float, rho: float) -> float:
    """``r(d + L - r)/(dL)`` at folded ``beta`` (``min(rho, 1)`` at ``beta = inf``)."""
    if math.isinf(beta):
        return min(rho, 1.0)
    return rie.rectangular_parameter_fraction(beta, rho)


@declare(rho=RHO)
def perfect_recovery_threshold(beta: float, rho: float) -> float:
    """Sample ratio ``alpha_PR`` above which noiseless Bayes-optimal learning is exact.

    Parameters
    ----------
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``beta < 1`` is read as ``1/beta``).
    rho : float
        Rank ratio ``r/min(d, L)`` in ``spectra.RATIO_RANGE``.

    Returns
    -------
    float
        ``alpha_PR = rho (1 + beta - rho)/beta`` for ``rho < 1``, 1 for ``rho >= 1``, ``min(rho, 1)`` at
        ``beta = inf``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    The number of free parameters ``r(d + L - r)`` of a rank-``r`` ``d x L`` matrix over ``dL``
    (``eq-bsr-alpha-pr``).

    References
    ----------
    .. [1] Chapter 3, Sec. "Perfect recovery, and the price of convex relaxation".
    .. [2] V. Erba et al., arXiv:2410.18858 (2024).

    Examples
    --------
    >>> from solvable import bsr
    >>> print(f"{bsr.perfect_recovery_threshold(1.0, 0.25):.4f}")
    0.4375
    >>> print(f"{bsr.bayes_optimal_mmse(0.5, 1.0, 0.25):.4f}")
    0.0000
    """
    return _parameter_fraction(_fold(beta), rho)


@declare(beta=FINITE_BETA, rho=RHO)
def low_rank_sample_ratio(alpha: float, beta: float, rho: float) -> float:
    """Sample ratio in low-rank units, ``alpha_LR = n/(r(d + L)) = alpha beta/((1 + beta) rho)``.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/(dL) >= 0``.
    beta : float
        Aspect ratio ``L/d > 0``, finite (``beta < 1`` is read as ``1/beta``).
    rho : float
        Rank ratio ``r/min(d, L)`` in ``spectra.RATIO_RANGE``.

    Returns
    -------
    float
        ``alpha_LR``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``alpha_LR = alpha beta/((1 + beta) rho)``, the variable of the low-rank limit :func:`low_rank_limit_mmse`.

    References
    ----------
    .. [1] Chapter 3, Sec. "Perfect recovery, and the price of convex relaxation" (``eq-bsr-low-rank-limit``).

    Examples
    --------
    >>> from solvable import bsr
    >>> a_lr = bsr.low_rank_sample_ratio(0.3, 1.0, 0.25)
    >>> print(round(a_lr, 4), round(bsr.low_rank_limit_mmse(a_lr, 1.0), 4))
    0.6 0.96
    """
    beta = _fold(beta)
    if math.isinf(beta):  # 1/beta overflows for a subnormal beta: the limit beta/(1 + beta) -> 1
        return alpha / rho
    return alpha * beta / ((1.0 + beta) * rho)


@declare(alpha_lr=real(0.0))
def low_rank_limit_mmse(alpha_lr: float, beta: float, delta: float = 0.0) -> float:
    """Bayes-optimal per-entry MMSE on ``S*`` in the low-rank limit ``rho -> 0`` at fixed ``alpha_LR``.

    Parameters
    ----------
    alpha_lr : float
        ``alpha_LR = n/(r(d + L)) >= 0`` (:func:`low_rank_sample_ratio`).
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``beta < 1`` is read as ``1/beta``).
    delta : float, optional
        Label-noise variance ``>= 0``.

    Returns
    -------
    float
        The limiting MMSE ``E`` in ``[0, 1]`` (the test error on a fresh noisy label is ``E + delta``).

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    The limit is matrix sensing of a rank-``r`` matrix with ``r = O(1)``. The rank-one Gaussian spike state
    evolution [2]_ has the fixed point, with ``s_tilde = rho s`` the inverse signal-to-noise ratio (the noise in
    units of one spike),

    ``m_u = (beta - s_tilde^2)/(beta + s_tilde)``, ``m_v = (beta - s_tilde^2)/(beta (1 + s_tilde))``
    (``s_tilde^2 < beta``; else 0),

    so that, closing the loop through the linear channel (``eq-bsr-low-rank-limit``),

    ``E = 1 - (beta - s_tilde^2)^2/(beta (1 + s_tilde)(beta + s_tilde))``,
    ``s_tilde = beta (delta + E)/(alpha_LR (1 + beta))``.

    ``E = 1`` up to the weak-recovery threshold ``alpha_LR = (1 + delta) sqrt(beta)/(1 + beta)``; without noise
    ``E -> 0`` at ``alpha_LR = 1`` and ``E = 0`` above. ``beta = 1``, ``delta = 0``: ``E = 4 alpha_LR (1 - alpha_LR)``
    on ``[1/2, 1]``; ``beta = inf``: ``E = s_tilde/(1 + s_tilde)``. The root is found by Brent's method.
    :func:`bayes_optimal_mmse` at ``alpha = alpha_LR (1 + beta) rho/beta`` converges to it as ``rho -> 0``.

    References
    ----------
    .. [1] Chapter 3, Sec. "Perfect recovery, and the price of convex relaxation" (``eq-bsr-low-rank-limit``,
       ``eq-bsr-spike-se``).
    .. [2] T. Lesieur, F. Krzakala, L. Zdeborova, arXiv:1701.00858 (2017); L. Miolane, arXiv:1702.00473 (2017).
    .. [3] V. Erba et al., arXiv:2410.18858 (2024).

    Examples
    --------
    Square matrices without noise: ``E = 1`` up to ``alpha_LR = 1/2``, then ``4 alpha_LR (1 - alpha_LR)``:

    >>> from solvable import bsr
    >>> print([round(bsr.low_rank_limit_mmse(a, 1.0), 4) for a in (0.4, 0.6, 0.8, 1.0)])
    [1.0, 0.96, 0.64, 0.0]
    >>> print(round(bsr.low_rank_limit_mmse(0.8, 1.0, 0.1), 4))
    0.8187
    """
    beta = _fold(beta)
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


@declare()
def ridge_mse(alpha: float, delta: float = 0.0) -> float:
    """Asymptotic MSE of ridge regression on ``vec(X)`` with ``lambda = delta``.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/(dL) >= 0``.
    delta : float, optional
        Label-noise variance ``>= 0`` (also the ridge penalty).

    Returns
    -------
    float
        ``m`` in ``[0, 1]``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``m`` is the positive root of ``m^2 + (delta + alpha - 1) m - delta = 0`` (``eq-bsr-ridge``);
    ``max(1 - alpha, 0)`` at ``delta = 0`` (minimum-norm interpolator). It ignores the low-rank structure, hence
    does not depend on ``beta`` or ``rho``: it is the Gaussian-prior linear-channel MMSE of the perceptron
    chapter (:func:`solvable.regression.gaussian_linear_mse`).

    References
    ----------
    .. [1] Chapter 3, Sec. "Sequences of tokens, and what vectorising throws away".

    Examples
    --------
    >>> from solvable import bsr
    >>> print([round(bsr.ridge_mse(a), 4) for a in (0.25, 0.5, 1.0)])
    [0.75, 0.5, 0.0]
    >>> print(round(bsr.ridge_mse(0.5, 0.1), 4))
    0.5742
    """
    return gaussian_linear_mse(alpha, delta)


@declare(rho=RHO, n_nodes=NODES)
def nuclear_norm_threshold(beta: float, rho: float, *, n_nodes: int = 200) -> float:
    """Sample ratio above which the minimum-nuclear-norm estimator recovers ``S*`` exactly (noiseless).

    Parameters
    ----------
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``beta < 1`` is read as ``1/beta``).
    rho : float
        Rank ratio ``r/min(d, L)`` in ``spectra.RATIO_RANGE``.
    n_nodes : int, optional
        Gauss-Legendre nodes of the integrals, in ``[2, spectra.MAX_NODES]`` (200 are converged to about 1e-10).

    Returns
    -------
    float
        ``alpha_MNNE`` in ``[0, 1]``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    Donoho-Gavish-Montanari recipe [2]_ (``eq-bsr-mnne``): ``b = 1/beta``, ``gamma = b(1 - rho)/(1 - rho b)``,
    ``p_gamma`` the Marchenko-Pastur density on ``[(1 - sqrt gamma)^2, (1 + sqrt gamma)^2]``,
    ``P_k(x) = int_{max(x, g-)}^{g+} t^k p_gamma(t) dt``; ``lambda`` is the root of
    ``P_{1/2}(lambda^2) - lambda P_0(lambda^2) - lambda rho/(1 - rho)``, and

    ``alpha_MNNE = rho + b rho - b rho^2 + (1 - rho b)[rho lambda^2 + (1 - rho)(P_1 - 2 lambda P_{1/2} +
    lambda^2 P_0)(lambda^2)]``.

    ``beta = inf``: ``alpha_MNNE = rho (2 - rho)``; ``rho >= 1``: 1.

    References
    ----------
    .. [1] Chapter 3, Sec. "Perfect recovery, and the price of convex relaxation".
    .. [2] D. L. Donoho, M. Gavish, A. Montanari, PNAS 110:8405 (2013), arXiv:1302.2331.

    Examples
    --------
    >>> from solvable import bsr
    >>> print(f"{bsr.nuclear_norm_threshold(1.0, 0.25):.4f} > {bsr.perfect_recovery_threshold(1.0, 0.25):.4f}")
    0.6552 > 0.4375
    """
    beta = _fold(beta)
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


def _svt_nodes(noise: float, beta: float, rho: float, n_nodes: int):
    """Nodes ``x``, weights times the singular-value density ``2 mu(x)``, and ``v(x) = Re G(x)`` of the law of
    ``Y = S* + sqrt(noise) Z`` scaled by ``(dL)^{1/4}`` (:class:`~solvable.spectra.RectangularPlusNoise`)."""
    law = rectangular_plus_noise(noise, beta=beta, rho=rho)
    x, w = law.quadrature(n_nodes)
    return x, w * 2.0 * law.density(x), law.stieltjes_real(x)


def _svt_moments(nodes, noise: float, threshold: float, beta: float) -> tuple[float, float]:
    """``(mse, divergence)`` per entry of soft thresholding at ``threshold``, from :func:`_svt_nodes`."""
    x, weight, v = nodes
    shrunk = np.maximum(x - threshold, 0.0)  # the thresholded singular values
    residual = float(weight @ np.minimum(x, threshold) ** 2) / math.sqrt(beta)  # ||eta(Y) - Y||^2/(dL)
    divergence = (1.0 - 1.0 / beta) * float(weight @ (shrunk / x)) + 2.0 / beta * float(weight @ (shrunk * v))
    return residual - noise + 2.0 * noise * divergence, divergence


@declare(noise=NOISE, threshold=real(0.0), beta=SVT_BETA, rho=RHO, n_nodes=NODES)
def soft_threshold_risk(
    noise: float, threshold: float, beta: float, rho: float, *, n_nodes: int = 128
) -> tuple[float, float]:
    """Asymptotic error and divergence of singular-value soft thresholding of ``Y = S* + sqrt(noise) Z``.

    Parameters
    ----------
    noise : float
        Noise variance per entry on the unit scale, in ``spectra.NOISE_RANGE``.
    threshold : float
        ``>= 0``, in units of the singular values of ``Y/(dL)^{1/4}``: the estimate is
        ``eta(Y) = sum_k (y_k - threshold (dL)^{1/4})_+ p_k q_k^T`` for the SVD ``Y = sum_k y_k p_k q_k^T``.
    beta : float
        Aspect ratio ``L/d`` (``beta < 1`` is read as ``1/beta``), at most ``spectra.MAX_ASPECT_RATIO``.
    rho : float
        Rank ratio ``r/min(d, L)`` of ``S* = U* V*^T/sqrt(r)``, in ``spectra.RATIO_RANGE``.
    n_nodes : int, optional
        Gauss-Legendre nodes per piece of the support, in ``[2, spectra.MAX_NODES]``.

    Returns
    -------
    mse, divergence : float
        ``E ||eta(Y) - S*||_F^2/(dL)`` and ``E div eta(Y)/(dL)`` in the limit ``d, L, r -> infinity``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    Both follow from the singular-value law of ``Y`` alone (``x = y/(dL)^{1/4}`` with density ``2 mu(x)`` on
    ``x > 0`` and ``v(x) = Re G(x)``, :class:`~solvable.spectra.RectangularPlusNoise`). The divergence of soft
    thresholding [2]_, ``sum_{y_k > lam} [1 + (L - d)(1 - lam/y_k)] + 2 sum_{k != l} y_k (y_k - lam)_+/(y_k^2 -
    y_l^2)``, becomes over ``dL``

    ``div = (1 - 1/beta) int (1 - t/x)_+ 2 mu + (2/beta) int (x - t)_+ v(x) 2 mu``,

    the double sum turning into the principal value ``v(x)/x = PV int 2 mu(u)/(x^2 - u^2) du``. Stein's unbiased
    risk estimate ``E||eta - S*||^2 = E||eta - Y||^2 - noise dL + 2 noise E div eta`` with
    ``||eta - Y||^2 = sum_k min(y_k, lam)^2`` gives

    ``mse = beta^{-1/2} int min(x, t)^2 2 mu(x) dx - noise + 2 noise div``.

    Checks: ``t = 0`` gives ``(noise, 1)``; the tests compare both with the SVD of sampled matrices.

    References
    ----------
    .. [1] Chapter 3, Sec. "Perfect recovery, and the price of convex relaxation" (``eq-bsr-svt-se``).
    .. [2] E. J. Candes, C. A. Sing-Long, J. D. Trzasko, IEEE Trans. Signal Process. 61:4643 (2013),
       arXiv:1210.4139.

    Examples
    --------
    No threshold leaves ``Y`` as it is (error ``noise``, divergence 1); a threshold trades divergence for
    error:

    >>> from solvable import bsr
    >>> print([round(v, 4) for v in bsr.soft_threshold_risk(0.5, 0.0, 1.0, 0.25)])
    [0.5, 1.0]
    >>> print([round(v, 4) for v in bsr.soft_threshold_risk(0.5, 1.0, 1.0, 0.25)])
    [0.2651, 0.2577]
    """
    beta = _fold(beta)
    return _svt_moments(_svt_nodes(noise, beta, rho, n_nodes), noise, threshold, beta)


@declare(alpha=real(0.0, 1.0), beta=SVT_BETA, rho=RHO, n_nodes=NODES)
def nuclear_norm_mse(alpha: float, beta: float, rho: float, *, n_nodes: int = 128) -> float:
    """Asymptotic error of the minimum-nuclear-norm interpolator (``eq-bsr-mnne``), noiseless.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/(dL)``: 0, or in ``[1e-8, 1]``.
    beta : float
        Aspect ratio ``L/d`` (``beta < 1`` is read as ``1/beta``), at most ``spectra.MAX_ASPECT_RATIO``.
    rho : float
        Rank ratio ``r/min(d, L)`` in ``spectra.RATIO_RANGE``.
    n_nodes : int, optional
        Gauss-Legendre nodes per piece of the support, in ``[2, spectra.MAX_NODES]``.

    Returns
    -------
    float
        ``||S_MNNE - S*||_F^2/(dL)`` in the limit; 1 at ``alpha = 0`` and 0 from
        :func:`nuclear_norm_threshold` on (above 1 at small ``alpha``, tending to 1 as ``alpha -> 0``).

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    The fixed point of the state evolution of approximate message passing with singular-value soft thresholding,
    at a vanishing nuclear-norm penalty [2]_ [3]_ (``eq-bsr-svt-se``): the effective noise ``s`` and the
    threshold ``t`` (:func:`soft_threshold_risk`) solve

    ``div(s, t) = alpha``  (an interpolator has as many degrees of freedom as labels),
    ``mse(s, t) = alpha s``  (the effective noise of the linear channel, ``s = E/alpha``),

    and the error is ``E = alpha s``. For each ``s`` the first equation fixes ``t`` (the divergence decreases
    from 1 at ``t = 0`` to 0); the second is solved in ``log s`` by Brent's method. As ``s -> 0`` the ratio
    ``mse/s`` at ``div = alpha`` reaches 1 exactly at ``alpha = alpha_MNNE``, where the error vanishes.

    References
    ----------
    .. [1] Chapter 3, Sec. "Perfect recovery, and the price of convex relaxation" (``eq-bsr-svt-se``).
    .. [2] D. L. Donoho, M. Gavish, A. Montanari, PNAS 110:8405 (2013), arXiv:1302.2331.
    .. [3] D. L. Donoho, A. Maleki, A. Montanari, PNAS 106:18914 (2009), arXiv:0907.3574.

    Examples
    --------
    Between the Bayes-optimal error and ridge's below :func:`nuclear_norm_threshold` (0.6552 here), 0 above:

    >>> from solvable import bsr
    >>> mnne, bayes = bsr.nuclear_norm_mse(0.4, 1.0, 0.25), bsr.bayes_optimal_mmse(0.4, 1.0, 0.25)
    >>> print(f"Bayes {bayes:.4f} < MNNE {mnne:.4f} < ridge {bsr.ridge_mse(0.4):.4f}")
    Bayes 0.1913 < MNNE 0.2870 < ridge 0.6000
    >>> print(f"{bsr.nuclear_norm_mse(0.7, 1.0, 0.25):.4f}")
    0.0000
    """
    beta = _fold(beta)
    if alpha == 0.0:
        return 1.0
    if alpha < _MNNE_SMALLEST_ALPHA:
        raise InvalidParameterError(
            f"alpha must be 0 or at least {_MNNE_SMALLEST_ALPHA:g} (the effective "
            f"noise, about 1/alpha, must stay in spectra.NOISE_RANGE), got {alpha!r}"
        )
    if alpha >= nuclear_norm_threshold(beta, rho):
        return 0.0

    def gap(log_noise):
        noise = math.exp(log_noise)
        nodes = _svt_nodes(noise, beta, rho, n_nodes)
        top = float(nodes[0].max())
        t = brentq(lambda t: _svt_moments(nodes, noise, t, beta)[1] - alpha, 0.0, top, xtol=1e-14, rtol=1e-13)
        return _svt_moments(nodes, noise, t, beta)[0] / (alpha * noise) - 1.0

    low, high = math.log(1e-10), math.log(min(1e12, 1e3 / alpha))  # s = E/alpha, E of order 1
    if gap(low) <= 0.0:  # alpha within ~1e-10 of alpha_MNNE: the error is below the bracket
        return 0.0
    return float(alpha * math.exp(brentq(gap, low, high, xtol=1e-13, rtol=1e-13)))


def _error_gap(e: float, alpha: float, beta: float, rho: float, delta: float) -> float:
    """``mmse_den((delta + e)/alpha) - e``: zero at a fixed point of error ``e`` (the noise is formed from the
    error itself, so that a tiny ``delta`` is not lost in ``delta + 1 - q``)."""
    return rie.rectangular_rie_mmse((delta + e) / alpha, beta, rho) - e


def _fixed_point_error(alpha: float, beta: float, rho: float, delta: float) -> float:
    """Root ``e*`` of ``mmse_den((delta + e)/alpha) = e`` by Brent (``eq-bsr-fixed-point``).

    The gap is ``mmse_den((1 + delta)/alpha) - 1 < 0`` at ``e = 1``. Near ``e = 0`` it is
    ``e (alpha_PR/alpha - 1) + alpha_PR delta/alpha`` to first order: positive for ``alpha < alpha_PR`` (bracket
    ``[1e-12, 1]``, which holds for every ``delta >= 0``, so that ``delta -> 0+`` is continuous); above
    ``alpha_PR`` the root is ``O(delta)`` (bracket ``[0, 1e-12]``, or 0 without noise).
    """
    if alpha == 0.0:
        return 1.0
    args = (alpha, beta, rho, delta)
    if _error_gap(_E_LOW_NOISELESS, *args) > 0.0:
        return float(brentq(_error_gap, _E_LOW_NOISELESS, 1.0, args=args, xtol=1e-14, maxiter=200))
    if delta == 0.0 or _error_gap(0.0, *args) <= 0.0:
        return 0.0
    return float(brentq(_error_gap, 0.0, _E_LOW_NOISELESS, args=args, xtol=1e-300, maxiter=200))


@declare(rho=RHO)
def bayes_optimal_mmse(alpha: float, beta: float, rho: float, delta: float = 0.0) -> float:
    """Bayes-optimal per-entry MMSE on ``S*``: the root of the fixed-point equation ``eq-bsr-fixed-point``.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/(dL) >= 0``.
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``beta < 1`` is read as ``1/beta``).
    rho : float
        Rank ratio ``r/min(d, L)`` in ``spectra.RATIO_RANGE``; ``rho >= 1`` is a full-rank teacher.
    delta : float, optional
        Label-noise variance ``>= 0``.

    Returns
    -------
    float
        The MMSE in ``[0, ridge_mse(alpha, delta)]`` (the test error on a fresh noisy label is this plus
        ``delta``).

    Raises
    ------
    ValueError
        For a malformed argument (named).
    ArithmeticError
        Where :func:`solvable.rie.rectangular_rie_mmse` cannot resolve ``mmse_den`` (a window of huge ``beta``,
        small ``rho`` and noise near ``sqrt(beta)``; ``beta = math.inf`` is then the closed-form limit).

    Notes
    -----
    Solves ``e = mmse_den(beta, rho, (delta + e)/alpha)`` for the error ``e = 1 - q`` by Brent's method [2]_,
    with ``mmse_den`` the rectangular-RIE MMSE of :func:`solvable.rie.rectangular_rie_mmse` [3]_. 1 at
    ``alpha = 0``; exactly 0 for ``delta = 0`` and ``alpha >= alpha_PR`` (:func:`perfect_recovery_threshold`);
    continuous as ``delta -> 0+``. At ``beta = math.inf``, ``delta = 0`` and ``alpha < rho < 1`` the result is
    ``(1 - alpha)(1 - alpha/rho)``.

    References
    ----------
    .. [1] Chapter 3, Sec. "The Bayes-optimal error" (``eq-bsr-fixed-point``, ``eq-bsr-mmse-wide``).
    .. [2] V. Erba, E. Troiani, L. Biggio, A. Maillard, L. Zdeborova, arXiv:2410.18858 (2024).
    .. [3] E. Troiani et al., arXiv:2203.07752 (2022).

    Examples
    --------
    >>> from solvable import bsr
    >>> print([round(bsr.bayes_optimal_mmse(a, 1.0, 0.25), 4) for a in (0.2, 0.4, 0.8)])
    [0.7106, 0.1913, 0.0]
    """
    beta = _fold(beta)
    return _checked_mmse(_fixed_point_error(alpha, beta, rho, delta), alpha, delta)


def _checked_mmse(value: float, alpha: float, delta: float) -> float:
    """An MMSE checked against its range ``[0, ridge_mse(alpha, delta)]`` (the linear estimator is a
    rotation-equivariant denoiser, so the Bayes error is never above ridge's; rounding is clipped)."""
    top = gaussian_linear_mse(alpha, delta)
    if not (math.isfinite(value) and -1e-9 <= value <= top + 1e-9):
        raise ArithmeticError(
            f"the BSR fixed point gave an MMSE {value!r} outside [0, {top!r}] "
            f"(alpha = {alpha!r}, delta = {delta!r})"
        )
    return float(min(max(value, 0.0), top))


@declare(rho=RHO, start=real(0.0, 1.0))
def state_evolution(
    alpha: float,
    beta: float,
    rho: float,
    delta: float = 0.0,
    *,
    start: float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 1000,
    warn: bool = True,
) -> SEResult:
    """State evolution of GAMP-RIE, with the root of its fixed-point equation as a check.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/(dL) >= 0``.
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``beta < 1`` is read as ``1/beta``).
    rho : float
        Rank ratio ``r/min(d, L)`` in ``spectra.RATIO_RANGE``.
    delta : float, optional
        Label-noise variance ``>= 0``.
    start : float, optional
        The starting overlap ``q_0`` in ``[0, 1]`` (0: GAMP-RIE started from ``S_hat = 0``).
    tol : float, optional
        Stop when ``|q_{t+1} - q_t| < tol``, in ``[0, 1)``; ``0`` runs exactly ``max_iter`` iterations (no
        convergence test, no warning). The default 1e-10 puts the iterate within about 1e-9 of the fixed point
        away from ``alpha_PR``.
    max_iter : int, optional
        Cap on the iterations (``>= 1``); the iteration is critically slow near ``alpha_PR``.
    warn : bool, optional
        Warn (:class:`~solvable.errors.ConvergenceWarning`) at the cap, and when a converged iteration sits at
        another fixed point than the root.

    Returns
    -------
    SEResult
        ``error = history[-1] = 1 - q_T``, what the iteration reached (the test error on a fresh noisy label is
        ``error + delta``); ``overlap = q_T``; ``history[t] = 1 - q_t`` (GAMP-RIE's predicted error after ``t``
        iterations: compare with :attr:`~solvable.amp.GAMPResult.history` ``= history[1:]``);
        ``overlap_history[t] = q_t``; ``conjugate = mhat = alpha/(delta + 1 - q_T)`` (kept finite);
        ``root`` the Bayes-optimal MMSE of :func:`bayes_optimal_mmse` (Brent's root of the same equation);
        ``converged`` is True only when the iteration met ``tol`` AND its error agrees with ``root`` within
        ``max(1e-6, 1e3 tol)``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    Iterates (``eq-bsr-se``) ``q_{t+1} = 1 - mmse_den(beta, rho, (delta + 1 - q_t)/alpha)`` from ``q_0 = start``
    through :func:`solvable.amp.iterate_state_evolution` (noisy linear channel, ``mhat = alpha/(delta + 1 - q)``;
    the rectangular RIE's :meth:`~solvable.rie.RectangularRIEDenoiser.se_overlap` as the "prior"). From
    ``q_0 = 0`` the iteration reaches the Bayes-optimal fixed point (no hard phase in BSR). Without noise below
    ``alpha_PR``, ``q = 1`` (perfect recovery) is also a fixed point, unstable: a start at ``q_0 = 1`` stays there,
    and is reported with ``converged = False`` (and a warning) since its error differs from ``root``.

    References
    ----------
    .. [1] Chapter 3, Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error" (``eq-bsr-se``).
    .. [2] V. Erba et al., arXiv:2410.18858 (2024).
    .. [3] Y. Xu, A. Maillard, L. Zdeborova, F. Krzakala, arXiv:2503.14121 (2025).

    Examples
    --------
    >>> from solvable import bsr
    >>> res = bsr.state_evolution(0.3, 1.0, 0.25)
    >>> print(f"MMSE {res.error:.4f} after {res.iterations} iterations, converged {res.converged}")
    MMSE 0.4820 after 43 iterations, converged True
    >>> print(f"{bsr.bayes_optimal_mmse(0.3, 1.0, 0.25):.4f}")
    0.4820
    """
    beta = _fold(beta)
    root = _checked_mmse(_fixed_point_error(alpha, beta, rho, delta), alpha, delta)
    channel = LinearChannel(delta)
    if alpha == 0.0:
        overlaps, converged, iterations = np.array([start, 0.0]), True, 1
        message = "alpha = 0: no data, the prior's error after one step"
    else:
        fp = iterate_state_evolution(
            rie.RectangularRIEDenoiser(beta, rho),
            channel,
            alpha,
            start,
            rho=1.0,
            tol=tol,
            max_iter=max_iter,
            warn=warn,
        )
        overlaps, converged, iterations, message = fp.states[:, 0], fp.converged, fp.iterations, fp.message
    q = float(overlaps[-1])
    error = 1.0 - q
    agree = max(1e-6, _AGREE * tol)
    if converged and abs(error - root) > agree:
        converged = False
        message = (
            f"BSR state evolution (alpha = {alpha:g}, beta = {beta:g}, rho = {rho:g}, delta = {delta:g}) from "
            f"start = {start:g} stopped at a fixed point of error {error:.6g}, not at the root {root:.6g} of "
            f"its equation (a start on the unstable perfect-recovery point q = 1?): reported as not converged"
        )
        if warn:
            warn_user(message, ConvergenceWarning)
    conjugate = alpha * float(channel.se_mhat_factor(q)) if alpha > 0 else 0.0
    return SEResult(
        error=error,
        overlap=q,
        history=1.0 - overlaps,
        iterations=iterations,
        converged=converged,
        message=message,
        conjugate=conjugate,
        overlap_history=overlaps,
        root=root,
    )


# --------------------------------------------------------------------------- GAMP-RIE


class BilinearMap:
    """The linear map of BSR, ``S -> z_mu = <X_mu, S>/sqrt(dL)``, for :func:`solvable.amp.run_gamp` and
    :func:`solvable.gd.run_gd`.

    Parameters
    ----------
    X : array_like (n, d, L)
        The input sequences (float32 is kept in float32; anything else becomes float64). A NumPy array, or an
        array of another array-API library (PyTorch, CuPy, ``array_api_strict``): the map then works in that
        namespace and on that device (gradient descent on a GPU, :func:`gd` with ``device``).

    Raises
    ------
    TypeError
        If ``X`` is not an array of real numbers.
    ValueError
        If ``X`` is not a finite, non-empty 3-d array.

    Notes
    -----
    The perceptron's dense map on ``vec(X)``, ``F = X_flat/sqrt(dL)`` (``n x dL``), acting on ``d x L`` matrices:
    one matrix product per call, on a view of the data. Batches ``(K, d, L)`` / ``(K, n)`` are one matrix-matrix
    product each. ``forward`` and ``adjoint`` use array-API functions of the namespace of ``X`` only
    (:mod:`solvable.backend`). Variances are uniform (``F_{mu,i}^2`` replaced by its mean ``1/(dL)``):
    ``forward_variance(c) = mean(c)`` and ``adjoint_variance(a) = sum_mu a_mu/(dL)`` (NumPy, for GAMP).

    References
    ----------
    .. [1] Chapter 3, Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error" (``eq-bsr-gamp``).
    """

    @declare(X=SEQUENCES)
    def __init__(self, X):
        if backend.is_non_numpy_array(X):  # checked in its own namespace, on its device
            xp = backend.namespace(X)
            if not xp.isdtype(X.dtype, ("real floating", "integral", "bool")):
                raise InvalidParameterError(f"X must be an array of real numbers, got dtype {X.dtype}")
            if X.dtype != xp.float32:
                X = xp.astype(X, xp.float64, copy=False)
            finite = X.ndim != 3 or min(X.shape) < 1 or bool(xp.all(xp.isfinite(X)))
        else:  # a float32 or float64 array, finite, 3-d and non-empty: its domain
            xp, finite = backend.namespace(X), True
        if X.ndim != 3 or min(X.shape) < 1:
            raise InvalidParameterError(
                f"X must be a non-empty 3-d array (n, d, L), got shape {tuple(X.shape)}"
            )
        if not finite:
            raise InvalidParameterError("X must contain finite numbers only")
        self.n, self.d, self.L = X.shape
        self.shape = (self.d, self.L)
        self._Xf = xp.reshape(X, (self.n, self.d * self.L))
        self._XfT = xp.matrix_transpose(self._Xf)  # a view
        self._scale = 1.0 / math.sqrt(self.d * self.L)

    @property
    def alpha(self) -> float:
        """Sample ratio ``n/(dL)``."""
        return self.n / (self.d * self.L)

    def forward(self, S):
        """Apply the map: ``(d, L) -> (n,)`` or ``(K, d, L) -> (K, n)``.

        Parameters
        ----------
        S : array (d, L) or (K, d, L)
            Matrices (in the namespace of ``X``; converted to the type of ``X``).

        Returns
        -------
        array (n,) or (K, n)
            ``<X_mu, S>/sqrt(dL)``.
        """
        xp = backend.namespace(self._Xf)
        S = xp.asarray(S)
        if S.dtype != self._Xf.dtype:
            S = xp.astype(S, self._Xf.dtype)
        if S.ndim == 2:
            return (self._Xf @ xp.reshape(S, (-1,))) * self._scale
        return (xp.reshape(S, (S.shape[0], -1)) @ self._XfT) * self._scale

    def adjoint(self, g):
        """Apply the adjoint: ``(n,) -> (d, L)`` or ``(K, n) -> (K, d, L)``.

        Parameters
        ----------
        g : array (n,) or (K, n)
            Vectors over the samples (in the namespace of ``X``; converted to the type of ``X``).

        Returns
        -------
        array (d, L) or (K, d, L)
            ``sum_mu g_mu X_mu/sqrt(dL)``.
        """
        xp = backend.namespace(self._Xf)
        g = xp.asarray(g)
        if g.dtype != self._Xf.dtype:
            g = xp.astype(g, self._Xf.dtype)
        if g.ndim == 1:
            return xp.reshape((self._XfT @ g) * self._scale, self.shape)
        return xp.reshape((g @ self._Xf) * self._scale, (g.shape[0], *self.shape))

    def forward_variance(self, c):
        """Variance of the outputs for per-entry variances ``c``.

        Parameters
        ----------
        c : float or numpy.ndarray
            Per-entry variance of the matrix.

        Returns
        -------
        float
            ``mean(c)``.
        """
        return float(np.mean(c))

    def adjoint_variance(self, a):
        """Precision of the adjoint field for per-sample precisions ``a``.

        Parameters
        ----------
        a : numpy.ndarray (n,)
            Per-sample precisions.

        Returns
        -------
        float
            ``sum_mu a_mu/(dL)``.
        """
        return float(np.sum(a)) * self._scale * self._scale


GAMP_INITS = ("zero", "prior")


@declare(
    data=DATA,
    init=choice(*GAMP_INITS),
    precision=choice("derivative", "empirical"),
    damp=choice("output", "estimate", "both"),
    callback=optional(function(), "no callback"),
    rng=seed("init"),
)
def gamp_rie(
    data: Dataset,
    *,
    damping: float = 0.5,
    tol: float = 1e-3,
    max_iter: int = 500,
    init: str = "zero",
    precision: str = "derivative",
    damp: str = "output",
    warn: bool = True,
    callback: Callable[[np.ndarray], object] | None = None,
    rng,
) -> GAMPResult:
    """GAMP-RIE for bilinear sequence regression.

    Parameters
    ----------
    data : Dataset
        A BSR data set (:func:`sample`).
    damping : float, optional
        In ``[0, 1)``; default 0.5 because undamped runs at ``d = 50-100`` can fall into a 2-cycle or, from the
        prior init, a false fixed point. Mixes ``(V, omega)``, or ``(S_hat, C_hat)`` with ``damp="estimate"``.
    tol : float, optional
        Stop when the relative change ``||S_new - S_hat||_F/||S_new||_F`` falls below ``tol``, in ``[0, 1)``
        (:func:`solvable.amp.run_gamp`); ``0`` runs exactly ``max_iter`` iterations (comparison with state
        evolution, no warning). Default 1e-3: the absolute criterion ``mean((S_new - S_hat)^2) < 1e-6`` of the
        chapter's runs, on unit-scale estimates, and below the finite-size fluctuations of the error at
        ``d = 100`` (about 1e-2).
    max_iter : int, optional
        Cap (:class:`~solvable.errors.ConvergenceWarning` when reached); default 500, several times the
        iterations a run needs next to ``alpha_PR``, where state evolution slows down.
    init : {"zero", "prior"}, optional
        ``"zero"``: ``S_hat = 0``, ``C_hat = V = 1``, ``omega = y`` (the start of :func:`state_evolution` with
        ``start = 0``). ``"prior"``: ``S_hat`` a prior sample drawn from ``rng``, ``C_hat = V = 20``,
        ``omega = 20`` (the authors' choice; needs the damping).
    precision : {"derivative", "empirical"}, optional
        The book's recipe (``eq-gamp-rie-recipe``) ``A = c alpha mean_mu(sum_k -dg_{mu,k}/domega_k)`` with the
        RIE told the noise ``1/(c A)``; this rectangular model has ``c = 1`` and one output per sample, so
        ``A = alpha/V_bar`` and the noise is ``1/A`` (default, with the residual floor ``V_bar`` of
        :class:`~solvable.channels.LinearChannel`). ``"empirical"``: ``A = alpha mean(g^2)``, which has a false
        fixed point where ``V`` exceeds the actual error.
    damp : {"output", "estimate", "both"}, optional
        What ``damping`` mixes (:func:`solvable.amp.run_gamp`); ``"estimate"`` meets ``tol`` more often near
        ``alpha_PR``.
    warn : bool, optional
        Emit the :class:`~solvable.errors.ConvergenceWarning` at the cap (default); ``False`` leaves the report to
        the caller, through ``converged``.
    callback : callable or None, optional
        Called after every iteration ``t = 1, 2, ...`` with a copy of the estimate ``S_hat_t`` ``(d, L)`` (unit
        scale, after the damping when it mixes the estimate); its return value is ignored. ``callback=steps.append``
        records the trajectory (the chapter's exercise compares a reader's loop with it iterate for iterate).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Used by ``init="prior"`` (keyword-only, required in any case).

    Returns
    -------
    GAMPResult
        ``estimate`` the last ``(d, L)`` estimate of ``S*`` (unit scale); ``history`` the per-iteration error
        ``||S_hat_t - S*||_F^2/(dL)`` (compare with :func:`state_evolution`'s ``history[1:]``); ``variance`` the
        last ``C_hat = mmse_den(1/A)``, the algorithm's own error estimate; ``iterations``, ``converged``.

    Raises
    ------
    TypeError
        If ``data`` is not a BSR :class:`Dataset`, ``callback`` is neither None nor callable, or for a wrong type.
    ValueError
        For a malformed argument (named).
    DivergenceError
        If an iterate becomes non-finite or the denoiser cannot be evaluated.

    Notes
    -----
    Per iteration (``eq-bsr-gamp``)::

        V_new = C_hat;  omega_new = <X, S_hat>/sqrt(dL) - g V_new        (Onsager term with the old g)
        V_bar = max(delta + V, mean((y - omega)^2));  g = (y - omega)/V_bar;  A = alpha/V_bar
        S_hat, C_hat = RIE(S_hat + X^T g/(A sqrt(dL)), noise 1/A), mmse_den(beta, rho, 1/A)

    Cost per iteration: one forward and one adjoint product with the ``(n, dL)`` design and one ``d x L`` SVD.

    References
    ----------
    .. [1] Chapter 3, Sec. "GAMP-RIE: an algorithm that reaches the Bayes-optimal error".
    .. [2] V. Erba et al., arXiv:2410.18858 (2024).

    Examples
    --------
    >>> from solvable import bsr
    >>> data = bsr.sample(40, 0.3, beta=1.0, rho=0.25, rng=0)
    >>> res = bsr.gamp_rie(data, rng=1)
    >>> theory = bsr.bayes_optimal_mmse(0.3, 1.0, 0.25)
    >>> print(f"GAMP-RIE {bsr.mse(res.estimate, data.S_star):.2f}, theory {theory:.2f}")
    GAMP-RIE 0.50, theory 0.48
    """
    d, L, r = data.d, data.L, data.r
    if init == "zero":
        S0, c0, omega0 = np.zeros((d, L)), 1.0, data.y
    else:
        S0 = rng.standard_normal((d, r)) @ rng.standard_normal((r, L)) / math.sqrt(r)
        c0, omega0 = 20.0, np.full(data.n, 20.0)
    S_star = data.S_star

    def monitor(S):
        if callback is not None:
            callback(np.array(S, dtype=float, copy=True))
        return mse(S, S_star)

    channel = LinearChannel(data.delta, residual_floor=precision == "derivative")
    try:
        res = run_gamp(
            BilinearMap(data.X),
            channel,
            rie.RectangularRIEDenoiser(data.beta, data.rho),
            data.y,
            S0,
            c0,
            damping=damping,
            tol=tol,
            max_iter=max_iter,
            monitor=monitor,
            damp=damp,
            precision=precision,
            omega0=omega0,
            V0=c0,
            warn=warn,
        )
    except DivergenceError:
        raise
    except ArithmeticError as err:  # e.g. an overflow in the denoiser's spectral law at an absurd noise 1/A
        raise DivergenceError(
            f"GAMP-RIE diverged: the rectangular RIE failed ({type(err).__name__}: {err}); "
            "labels of absurd scale, or try damping > 0"
        ) from err
    return replace(res, variance=float(res.variance))


# --------------------------------------------------------------------------- baselines


@declare(data=DATA, lam=optional(real(0.0), "the data set's delta"))
def fit_ridge(data: Dataset, lam: float | None = None) -> np.ndarray:
    """Ridge regression on ``vec(X)``.

    Parameters
    ----------
    data : Dataset
        A BSR data set.
    lam : float or None, optional
        Penalty ``>= 0`` (``0``: the minimum-norm least-squares solution, the ``lam -> 0+`` limit). ``None``
        (default): the data set's label-noise variance ``delta``, which makes the estimate the posterior mean for
        a Gaussian prior.

    Returns
    -------
    numpy.ndarray (d, L)
        The estimate on the unit scale.

    Raises
    ------
    TypeError
        If ``data`` is not a BSR :class:`Dataset`.
    ValueError
        For a malformed ``lam``.

    Notes
    -----
    ``argmin_S (1/2) sum_mu (y_mu - <X_mu, S>/sqrt(dL))^2 + (lam/2)||S||_F^2``: the posterior mean for a
    Gaussian prior on ``vec(S)`` when ``lam = delta``; its asymptotic MSE is :func:`ridge_mse`. Solves the
    smaller of the ``dL x dL`` and ``n x n`` positive-definite systems.

    References
    ----------
    .. [1] Chapter 3, Sec. "Sequences of tokens, and what vectorising throws away" (``eq-bsr-ridge``).

    Examples
    --------
    >>> from solvable import bsr
    >>> data = bsr.sample(20, 0.5, beta=1.0, rho=0.25, rng=0)
    >>> S_hat = bsr.fit_ridge(data)
    >>> print(S_hat.shape, f"ridge {bsr.mse(S_hat, data.S_star):.2f}, theory {bsr.ridge_mse(0.5):.2f}")
    (20, 20) ridge 0.46, theory 0.50
    """
    lam = data.delta if lam is None else lam
    Xf = data.design
    n, p = Xf.shape
    # a scaled copy of the design and the smaller of the two Gram matrices, alive at once
    check_size(
        "the arrays of fit_ridge (a copy of the n x dL design, the smaller Gram matrix)",
        n * p + min(n, p) ** 2 + 2 * (n + p),
    )
    if lam > 0:
        w = _fit_ridge_dense(Xf, data.y, lam)
    elif n < p:  # minimum-norm interpolator F^T (F F^T)^{-1} y
        F = Xf / math.sqrt(p)
        w = F.T @ linalg.solve(F @ F.T, data.y, assume_a="pos")
    else:
        w = np.linalg.lstsq(Xf / math.sqrt(p), data.y, rcond=None)[0]
    return w.reshape(data.d, data.L)


@record
class MNNEResult:
    """Outcome of :func:`min_nuclear_norm`.

    Parameters
    ----------
    estimate : numpy.ndarray (d, L)
        The estimate (unit scale; satisfies the constraints to solver precision).
    nuclear_norm : float
        Its nuclear norm.
    primal_residual : float
        Final ``||S - Z||_F / ||Z||_F`` of the ADMM (:class:`solvable.convex.NuclearNormMinimizationResult`).
    dual_residual : float
        Final ``penalty ||Z - Z_old||_F / sqrt(min(d, L))`` on the normalised problem.
    iterations : int
        Iterations run.
    converged : bool
        Whether both residuals met the target.
    message : str
        Why the solver stopped, with its residuals and ``tol`` (at the cap, the warning's text).
    """

    estimate: np.ndarray = field(repr=False)
    nuclear_norm: float
    primal_residual: float
    dual_residual: float
    iterations: int
    converged: bool
    message: str

    def __post_init__(self):
        """Nothing to check (defined so that the record freezes the estimate at construction)."""


@declare(data=DATA, tol=real(0.0, 1.0, low_open=True, high_open=True), penalty=convex.PENALTY)
def min_nuclear_norm(
    data: Dataset, *, tol: float = 1e-8, max_iter: int = 20000, penalty: float = 1.0, warn: bool = True
) -> MNNEResult:
    """Minimum-nuclear-norm estimator ``argmin ||S||_*`` subject to ``<X_mu, S>/sqrt(dL) = y_mu`` for all ``mu``.

    Parameters
    ----------
    data : Dataset
        A BSR data set (``dL`` up to a few thousand).
    tol : float, optional
        Target of both relative residuals of the ADMM, in ``(0, 1)`` (the ``tol`` of
        :func:`solvable.convex.nuclear_norm_minimization`).
    max_iter : int, optional
        Cap (:class:`~solvable.errors.ConvergenceWarning` if ``warn``).
    penalty : float, optional
        Initial ADMM penalty on the normalised problem, in ``[1e-12, 1e12]`` (adapted by residual balancing).
    warn : bool, optional
        Warn at the cap.

    Returns
    -------
    MNNEResult
        The estimate ``S`` (feasible to ``tol``), its nuclear norm, residuals, iterations, convergence.

    Raises
    ------
    TypeError
        If ``data`` is not a BSR :class:`Dataset`, or ``warn`` is not a bool.
    ValueError
        For a malformed argument (named), or a design whose ``n`` rows are linearly dependent.
    DivergenceError
        If the residuals become non-finite.

    Notes
    -----
    The convex relaxation of rank minimisation (``eq-bsr-mnne``); its exact-recovery threshold at large size is
    :func:`nuclear_norm_threshold`. Solved by the library's one minimum-nuclear-norm program,
    :func:`solvable.convex.nuclear_norm_minimization` (sensing matrices ``X_mu``, labels ``sqrt(dL) y_mu``), an
    ADMM on ``S = Z`` [2]_::

        S <- projection of Z - U on the affine set {<X_mu, S> = sqrt(dL) y_mu}    (one n x n Cholesky)
        Z <- singular-value soft thresholding of S + U at 1/penalty
        U <- U + S - Z

    on the problem with unit-norm rows and labels (scale-equivariant), with residual balancing of ``penalty``;
    stops when both relative residuals are below ``tol``. With ``n >= dL`` the constraints determine ``S`` and
    the least-squares solution is returned.

    References
    ----------
    .. [1] Chapter 3, Sec. "Perfect recovery, and the price of convex relaxation".
    .. [2] S. Boyd et al., Found. Trends Mach. Learn. 3:1 (2011), Secs. 3.4.1 and 5; B. Recht, M. Fazel,
       P. Parrilo, SIAM Rev. 52:471 (2010).

    Examples
    --------
    >>> from solvable import bsr
    >>> for alpha in (0.3, 0.9):
    ...     data = bsr.sample(12, alpha, beta=1.0, rho=0.25, rng=0)
    ...     res = bsr.min_nuclear_norm(data)
    ...     print(alpha, res.converged, f"{bsr.mse(res.estimate, data.S_star):.3f}")
    ...
    0.3 True 0.904
    0.9 True 0.000
    """
    d, L, n = data.d, data.L, data.n
    # the design and its unit-row copy (n x dL, twice), their n x n Gram, the (dL)^2 projector of convex's ADMM
    # below 1600 entries, and the iterates S, Z, U, Z_old (d x L)
    check_size(
        "the arrays of min_nuclear_norm (the n x dL design twice, its n x n Gram, four d x L iterates)",
        2 * n * d * L + n * n + (d * L) ** 2 * (d * L <= 1600) + 4 * d * L,
    )
    if n >= d * L:
        S = np.linalg.lstsq(data.design / math.sqrt(d * L), data.y, rcond=None)[0].reshape(d, L)
        s = np.linalg.svd(S, compute_uv=False)
        return MNNEResult(
            estimate=S,
            nuclear_norm=float(s.sum()),
            primal_residual=0.0,
            dual_residual=0.0,
            iterations=0,
            converged=True,
            message=f"n = {n} >= dL = {d * L}: the least-squares solution is the only one (no iteration)",
        )
    try:  # <X_mu, S>/sqrt(dL) = y_mu, i.e. <X_mu, S> = sqrt(dL) y_mu: convex rescales each row anyway
        res = convex.nuclear_norm_minimization(
            data.X, data.y * math.sqrt(d * L), rho_admm=penalty, tol=tol, max_iter=max_iter, warn=False
        )
    except ValueError as err:
        raise InvalidParameterError(
            f"data: {err} (n = {n} < dL = {d * L}: the constraints have no unique projection)"
        ) from None
    message = res.message.replace("nuclear_norm_minimization", "min_nuclear_norm", 1)
    if not res.converged and warn:
        warn_user(message, ConvergenceWarning)
    return MNNEResult(
        estimate=res.estimate,
        nuclear_norm=res.nuclear_norm,
        primal_residual=res.primal_residual,
        dual_residual=res.dual_residual,
        iterations=res.iterations,
        converged=res.converged,
        message=message,
    )


# --------------------------------------------------------------------------- gradient descent


GD_INITS = ("prior", "small")


@declare(
    _gd.GD_CONTROLS,
    data=instance(Dataset),
    width=optional(integer(1), "the teacher's rank r"),
    lr=_gd.LEARNING_RATE,
    init=choice(*GD_INITS),
    init_scale=real(0.0, low_open=True),
)
def gd(
    data: Dataset,
    *,
    optimiser: str = "gd",
    n_inits: int = 32,
    width: int | None = None,
    lr: float = 0.1,
    init: str = "prior",
    init_scale: float = 1e-4,
    tol: float = 1e-6,
    max_steps: int = 50_000,
    record_every: int = 10,
    warn: bool = True,
    dtype=np.float64,
    device: str = "cpu",
    rng,
) -> _gd.GDResult:
    """Full-batch gradient descent on ``(U, V)`` from ``n_inits`` independent initialisations, and their average.

    Parameters
    ----------
    data : Dataset
        A BSR data set.
    optimiser : {"gd", "adam"}, optional
        Plain full-batch gradient descent (default, the paper's protocol) or Adam
        (:class:`solvable.gd.Adam`, with the same ``lr``).
    n_inits : int, optional
        Independent initialisations ``J`` (``J d L`` numbers at most :data:`solvable.validation.MAX_ELEMENTS`);
        default 32, enough for the average of the runs to approach the posterior mean (``1 + 1/J``).
    width : int or None, optional
        Student width ``p`` (``None``: the teacher's ``r``). With the ``1/sqrt(p)`` scaling, ``S = U V^T/sqrt(p)``
        has entries of the prior's scale whatever ``p``.
    lr : float, optional
        Learning rate ``> 0``; default 0.1, the paper's. Too large a step diverges
        (:class:`~solvable.errors.DivergenceError`) or ends with a larger loss than it started with
        (:class:`~solvable.errors.ConvergenceWarning`).
    init : {"prior", "small"}, optional
        ``U, V`` entries ``N(0, 1)`` (the prior) or ``N(0, init_scale^2)``.
    init_scale : float, optional
        Scale of the ``"small"`` initialisation (``> 0``).
    tol : float, optional
        Relative training-loss target in ``[0, 1)`` (``0``: run exactly ``max_steps`` steps); default 1e-6, a
        run trained to zero loss before its error is read.
    max_steps : int, optional
        Cap on the steps, ``>= 0``; default 50,000, the paper's.
    record_every : int, optional
        Steps between recorded errors (:func:`solvable.gd.run_gd`).
    warn : bool, optional
        Emit a :class:`~solvable.errors.ConvergenceWarning` when runs stop at ``max_steps`` or end above
        their initial loss (``False``: read ``converged`` and ``losses`` instead).
    dtype : {numpy.float64, numpy.float32}, optional
        Precision of the descent; float32 keeps a float32 copy of the design (``n dL`` floats). On a GPU
        float32 is the fast path.
    device : {"cpu", "cuda", "auto"}, optional
        Where the descent runs (:func:`solvable.backend.resolve`): NumPy (default), a CUDA GPU through PyTorch
        or CuPy, or the GPU where one is available. The result is the same up to rounding.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of the initialisations (keyword-only, required): its ``"init"`` stream
        (:func:`solvable.streams.stream`), so that the seed given to :func:`sample` never makes a student
        the teacher; a generator is used as it is.

    Returns
    -------
    GDResult
        The runs and their average (:class:`solvable.gd.GDResult`).

    Raises
    ------
    TypeError
        If ``data`` is not a BSR :class:`Dataset`, or for a wrong type.
    ValueError
        For a malformed argument (named), arrays beyond the size limit, or ``device="cuda"`` without a GPU
        library.
    DivergenceError
        If a run diverges.

    Notes
    -----
    Student ``S = U V^T/sqrt(p)``, prediction ``y_hat_mu = <X_mu, S>/sqrt(dL)``, loss
    ``sum_mu (y_hat_mu - y_mu)^2/4`` (``eq-bsr-loss``), plain GD; each run stops when its training loss over
    ``sum(y^2)`` falls below ``tol``. ``GDResult.average`` is the mean of the ``S_k`` on the same data.

    The data and the initial weights are checked and drawn in NumPy whatever the ``device`` (the same draws of
    ``rng``), then moved to the device (:func:`solvable.backend.asarray`); the descent runs there and the
    result comes back as NumPy arrays on the host.

    References
    ----------
    .. [1] Chapter 3, Sec. "Gradient descent on the factorised weights".
    .. [2] V. Erba et al., arXiv:2410.18858 (2024).

    Examples
    --------
    With as many samples as entries of ``S`` (``alpha = 1``), every run interpolates and finds the teacher:

    >>> import numpy as np
    >>> from solvable import bsr
    >>> data = bsr.sample(10, 1.0, beta=1.0, rho=0.2, rng=0)
    >>> res = bsr.gd(data, n_inits=4, tol=1e-8, rng=1)
    >>> print(res.converged, bool(np.all(res.errors < 1e-6)))
    [ True  True  True  True] True
    """
    scale = 1.0 if init == "prior" else init_scale
    d, L = data.d, data.L
    p = data.r if width is None else width

    def size(K, dtype):
        # estimates, their gradients and a temporary (K, d, L); factors and their gradients (K, d + L, p);
        # predictions and residuals (K, n); the float32 copy of the design
        check_size(
            "the arrays of gd (n_inits K x (d L estimates + (d + L) width factors), gradients, "
            "float32 design)",
            3 * K * d * L
            + 2 * K * (d + L) * p
            + 2 * K * data.n
            + (data.X.size if dtype == np.float32 else 0),
        )

    def draw(rng, K):
        return scale * rng.standard_normal((K, d, p)), scale * rng.standard_normal((K, L, p))

    def objective(xp, dev, dtype):
        X = data.X if dtype == np.float64 else data.X.astype(np.float32)
        return _gd.SquareLoss(
            BilinearMap(backend.asarray(X, xp, dev)), _gd.LowRankProduct(p), backend.asarray(data.y, xp, dev)
        )

    return _gd.fit_students(
        objective,
        draw,
        n_inits=n_inits,
        optimiser=optimiser,
        lr=lr,
        tol=tol,
        max_steps=max_steps,
        record_every=record_every,
        warn=warn,
        dtype=dtype,
        device=device,
        rng=rng,
        target=data.S_star,
        size=size,
    )

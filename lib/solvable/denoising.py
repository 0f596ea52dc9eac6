"""The matrix denoising problems of Chapter 2: samplers of the signals and noises, error metrics, and the
baselines the rotationally invariant estimator is compared with.

- **symmetric**: ``Y = S + sqrt(noise) Z`` (``d x d``), ``Z`` GOE of variance 1 (:func:`sample_goe`), ``S`` a
  Wishart matrix (:func:`sample_wishart`, paper normalisation ``W^T W/sqrt(m d)``, ``kappa = m/d``); error
  :func:`symmetric_error` ``= (1/d)||S_hat - S||_F^2``.
- **rectangular**: ``Y = S + sqrt(noise) Z`` (``d x L``), ``S = U V^T/sqrt(r)`` and ``Z`` i.i.d. N(0, 1), all
  divided by ``(dL)^{1/4}`` (:func:`sample_rectangular_signal`, :func:`sample_rectangular_noise`); error
  :func:`rectangular_error` ``= ||S_hat - S||_F^2/sqrt(dL)``.

Baselines: ``S_hat = Y`` (:func:`identity_mse`), the best linear shrinkage (:func:`scalar_shrinkage`), rank
truncation (:func:`eigenvalue_truncation`, :func:`truncated_svd`) and the optimal singular-value shrinkage of
Gavish and Donoho for spikes of fixed rank (:func:`optimal_singular_value_shrinkage`). The rotationally invariant
estimators themselves, their MMSE and the one-draw experiments that compare them with these baselines are in
:mod:`solvable.rie`; the names of this module are public here only. Every random draw takes an explicit
generator, keyword-only (``rng``).

References
----------
.. [1] Chapter 2, Secs. "The problem: denoising a matrix", "Why extensive rank is different".
.. [2] M. Gavish, D. L. Donoho, "Optimal shrinkage of singular values", arXiv:1405.7511 (2017).
"""

from __future__ import annotations

import math

import numpy as np

from .domains import Domain, choice, declare, integer, real
from .errors import InvalidParameterError
from .results import record
from .spectra import MAX_ASPECT_RATIO, NORMALISATIONS
from .validation import (
    all_finite,
    check_array,
    check_in_range,
    check_size,
)

__all__ = [
    "DenoisingErrors",
    "eigenvalue_truncation",
    "identity_mse",
    "optimal_shrinkage_singular_values",
    "optimal_shrinkage_spike_error",
    "optimal_singular_value_shrinkage",
    "rectangular_error",
    "sample_goe",
    "sample_rectangular_noise",
    "sample_rectangular_signal",
    "sample_wishart",
    "scalar_shrinkage",
    "scalar_shrinkage_mse",
    "symmetric_error",
    "truncated_svd",
]


# --------------------------------------------------------------------------- argument checks


def _real_array(name: str, value) -> np.ndarray:
    """``value`` as a float array (``InvalidParameterError``, a ``TypeError``, naming ``name`` for complex, ragged or
    non-numeric input)."""
    return check_array(name, value, finite=False, nonempty=False)


def _finite_array(name: str, value, *, vector: bool = False) -> np.ndarray:
    """``value`` as a float array with finite entries (``TypeError``/``ValueError`` naming ``name``); with
    ``vector=True`` a number or a non-empty 1-d array."""
    arr = check_array(name, value, finite=False, nonempty=False)
    if vector and (arr.ndim > 1 or arr.size == 0):
        raise InvalidParameterError(
            f"{name} must be a number or a non-empty 1-d array, got shape {arr.shape}"
        )
    if not all_finite(arr):
        raise InvalidParameterError(f"{name} must have finite entries (no NaN or inf)")
    return arr


def _check_symmetric(Y, name: str = "Y") -> np.ndarray:
    Y = _real_array(name, Y)
    if Y.ndim != 2 or Y.shape[0] != Y.shape[1] or Y.shape[0] == 0:
        raise InvalidParameterError(f"{name} must be a non-empty square matrix, got shape {Y.shape}")
    if not all_finite(Y):
        raise InvalidParameterError(f"{name} must have finite entries (no NaN or inf)")
    scale = float(
        np.max(np.abs(Y))
    )  # relative at every scale: a 1e-10 matrix is not symmetric to 1e-8 absolute
    if np.max(np.abs(Y - Y.T)) > 1e-8 * scale:
        raise InvalidParameterError(
            f"{name} must be symmetric (max |{name} - {name}^T| exceeds 1e-8 max |{name}|)"
        )
    return 0.5 * (Y + Y.T)


def _check_rectangular(Y, name: str = "Y") -> np.ndarray:
    """``Y`` as a float array, checked: a non-empty 2-d array with finite entries (ValueError otherwise;
    TypeError for complex or non-numeric input)."""
    Y = _real_array(name, Y)
    if Y.ndim != 2 or min(Y.shape) == 0:
        raise InvalidParameterError(f"{name} must be a non-empty 2-d array, got shape {Y.shape}")
    if not all_finite(Y):
        raise InvalidParameterError(f"{name} must have finite entries (no NaN or inf)")
    return Y


def _nonnegative_values(name: str, value) -> np.ndarray:
    """A number or a non-empty 1-d array of finite numbers ``>= 0`` (singular values, signal strengths)."""
    arr = _finite_array(name, value, vector=True)
    if np.any(arr < 0):
        raise InvalidParameterError(f"{name} must be finite and >= 0")
    return arr


#: The domains of the denoising toolbox, declared once: a symmetric observation, a rectangular one, a list of
#: singular values or signal strengths, the signal's spectral moments and the aspect ratio of the optimal shrinkage.
SYMMETRIC = Domain(
    "a non-empty square symmetric matrix of finite real numbers (to 1e-8 of its largest entry)",
    lambda name, value: _check_symmetric(value, name),
    "array",
    (2,),
)
MATRIX = Domain(
    "a non-empty 2-d array of finite real numbers",
    lambda name, value: _check_rectangular(value, name),
    "array",
    (2,),
)
STRENGTHS = Domain(
    "a number or a non-empty 1-d array of finite numbers >= 0", _nonnegative_values, "array", (None,)
)
SECOND_MOMENT = real(0.0, low_open=True)
MEAN = real()
ASPECT = real(1.0 / MAX_ASPECT_RATIO, MAX_ASPECT_RATIO)
RANK = integer(0)
VARIANCE = real(0.0, low_open=True)


# --------------------------------------------------------------------------- baselines


@declare()
def identity_mse(noise: float) -> float:
    """Error of the estimator ``S_hat = Y``: the noise variance.

    Parameters
    ----------
    noise : float
        Noise variance ``>= 0``.

    Returns
    -------
    float
        ``noise`` (per entry: ``(1/d)||.||^2`` for the symmetric problem, ``||.||^2/sqrt(dL)`` on the scaled
        rectangular matrices).

    Raises
    ------
    ValueError
        If ``noise`` is not a finite number >= 0.

    Notes
    -----
    ``E||Y - S||^2 = noise`` per entry, whatever the signal.

    References
    ----------
    .. [1] Chapter 2, Sec. "The problem: denoising a matrix".
    """
    return noise


@declare(Y=MATRIX, second_moment=SECOND_MOMENT, mean=MEAN)
def scalar_shrinkage(Y, noise: float, second_moment: float, mean: float = 0.0) -> np.ndarray:
    """Best estimator of the form ``S_hat = mean I + c (Y - mean I)`` (``mean = 0``: ``S_hat = c Y``).

    Parameters
    ----------
    Y : array_like (d, d) or (d, L)
        The observation (square when ``mean != 0``).
    noise : float
        Noise variance ``>= 0``.
    second_moment : float
        Second moment of the signal's spectrum, ``(1/d) Tr S^2`` (``1 + kappa`` for the Wishart signal in the
        paper normalisation; 1 per entry for the rectangular signal).
    mean : float, optional
        Mean of the signal's spectrum (``sqrt(kappa)`` for the Wishart signal).

    Returns
    -------
    numpy.ndarray
        The estimate, shaped like ``Y``.

    Raises
    ------
    ValueError
        For a malformed argument (named), ``second_moment <= mean^2``, or ``mean != 0`` with a non-square ``Y``.

    Notes
    -----
    With ``varsigma = second_moment - mean^2`` the spectral variance of ``S``, ``c = varsigma/(varsigma + noise)``
    minimises ``(1 - c)^2 varsigma + c^2 noise``; the error is :func:`scalar_shrinkage_mse`. This linear estimator
    is optimal for a semicircle signal only; the RIE beats it otherwise.

    References
    ----------
    .. [1] Chapter 2, Sec. "The problem: denoising a matrix".
    """
    v = second_moment - mean * mean
    if v <= 0:
        raise InvalidParameterError(
            f"second_moment must exceed mean^2, got {second_moment!r} and mean {mean!r}"
        )
    c = v / (v + noise) if noise > 0 else 1.0
    if mean == 0.0:
        return c * Y
    if Y.ndim != 2 or Y.shape[0] != Y.shape[1]:
        raise InvalidParameterError(f"mean != 0 needs a square Y, got shape {Y.shape}")
    eye = np.eye(Y.shape[0])
    return mean * eye + c * (Y - mean * eye)


@declare(second_moment=SECOND_MOMENT, mean=MEAN)
def scalar_shrinkage_mse(noise: float, second_moment: float, mean: float = 0.0) -> float:
    """Asymptotic error of :func:`scalar_shrinkage`.

    Parameters
    ----------
    noise : float
        Noise variance ``>= 0``.
    second_moment : float
        Second moment of the signal's spectrum (``> mean^2``).
    mean : float, optional
        Mean of the signal's spectrum.

    Returns
    -------
    float
        ``noise v/(noise + v)`` with ``v = second_moment - mean^2``.

    Raises
    ------
    ValueError
        For a malformed argument (named), or ``second_moment <= mean^2``.

    Notes
    -----
    ``min_c (1 - c)^2 v + c^2 noise = noise v/(noise + v)``: ``noise/(1 + noise)`` for the Wishart signal
    (paper normalisation, centred at ``sqrt(kappa)``) and for the rectangular signal.

    References
    ----------
    .. [1] Chapter 2, Sec. "The problem: denoising a matrix".
    """
    v = second_moment - mean * mean
    if v <= 0:
        raise InvalidParameterError(
            f"second_moment must exceed mean^2, got {second_moment!r} and mean {mean!r}"
        )
    return noise * v / (noise + v)


@declare(Y=SYMMETRIC, rank=RANK)
def eigenvalue_truncation(Y, rank: int) -> np.ndarray:
    """Keep the ``rank`` largest eigenvalues of the symmetric ``Y`` (and their eigenvectors), drop the rest.

    Parameters
    ----------
    Y : array_like (d, d)
        Symmetric observation.
    rank : int
        Number of eigenvalues kept (``>= 0``; the Wishart signal's rank ``m`` is the natural choice).

    Returns
    -------
    numpy.ndarray (d, d)
        The truncated matrix.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``S_hat = sum_{k <= rank} lambda_k u_k u_k^T`` over the largest eigenvalues. Its error has no simple closed
    form at extensive rank: measure it with :func:`symmetric_error`.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator".
    """
    lam, O = np.linalg.eigh(Y)
    keep = np.zeros_like(lam)
    if rank > 0:
        keep[-rank:] = lam[-rank:]
    return (O * keep) @ O.T


@declare(Y=MATRIX, rank=RANK)
def truncated_svd(Y, rank: int) -> np.ndarray:
    """Best rank-``rank`` approximation of ``Y`` (keep the top singular values; Eckart-Young).

    Parameters
    ----------
    Y : array_like (d, L)
        Observation.
    rank : int
        Number of singular values kept (``>= 0``; the signal's rank ``r`` is the natural choice).

    Returns
    -------
    numpy.ndarray (d, L)
        The truncated matrix.

    Raises
    ------
    ValueError
        For a malformed argument (named), e.g. a non-finite ``Y``.

    Notes
    -----
    ``S_hat = sum_{k <= rank} sigma_k u_k v_k^T``, the minimiser of ``||S_hat - Y||_F`` at that rank. Measure its
    error with :func:`rectangular_error`.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values".
    """
    U, sv, Vt = np.linalg.svd(Y, full_matrices=False)
    sv = sv.copy()
    sv[rank:] = 0.0
    return (U * sv) @ Vt


def _gavish_donoho_scale(noise: float, beta: float) -> tuple[float, float]:
    """Noise level ``sigma`` and aspect ratio ``c = min(d, L)/max(d, L) <= 1`` of Gavish and Donoho for our
    scaled problem."""
    beta = check_in_range("beta", beta, 1.0 / MAX_ASPECT_RATIO, MAX_ASPECT_RATIO)
    beta = max(beta, 1.0 / beta)
    return math.sqrt(noise) * beta**0.25, 1.0 / beta


@declare(singular_values=STRENGTHS, beta=ASPECT)
def optimal_shrinkage_singular_values(singular_values, noise: float, beta: float) -> np.ndarray:
    """Frobenius-optimal singular-value shrinker of Gavish and Donoho (2017), with known noise level.

    Parameters
    ----------
    singular_values : float or array_like (k,)
        Singular values ``y >= 0`` of the scaled ``Y``.
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale (``noise = 0`` returns the input).
    beta : float
        Aspect ratio ``L/d`` (``beta < 1`` is read as ``1/beta``), in ``[1/spectra.MAX_ASPECT_RATIO,
        spectra.MAX_ASPECT_RATIO]``.

    Returns
    -------
    numpy.ndarray
        The shrunk singular values ``eta(y)``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    For ``Y = S + sqrt(noise) Z/(dL)^{1/4}`` and ``S`` of **fixed** rank, the shrinker that minimises the
    asymptotic ``||S_hat - S||_F^2`` among ``S_hat = sum_k eta(y_k) u_k v_k^T`` is [2]_

    ``eta(y) = (sigma^2/y) sqrt((y^2/sigma^2 - c - 1)^2 - 4 c)`` for ``y >= sigma (1 + sqrt(c))``, else 0,

    with ``c = min(d, L)/max(d, L)`` and ``sigma = sqrt(noise) max(beta, 1/beta)^{1/4}``. At extensive rank these
    formulas no longer describe the spectrum, and the RIE
    (:func:`~solvable.rie.rectangular_rie_singular_values`) does better.

    References
    ----------
    .. [1] Chapter 2, Sec. "Why extensive rank is different" (``eq-rmt-gavish-donoho``).
    .. [2] M. Gavish, D. L. Donoho, "Optimal shrinkage of singular values", IEEE Trans. Inf. Theory 63:2137
       (2017), arXiv:1405.7511.

    Examples
    --------
    >>> from solvable import denoising
    >>> # square (beta = 1), noise 1: the bulk [0, 2] goes to 0; a spike theta = 2, seen at y = 2.5, to 1.5
    >>> print(denoising.optimal_shrinkage_singular_values([1.0, 1.5, 2.5], 1.0, 1.0))
    [0.  0.  1.5]
    """
    y = singular_values
    sigma, c = _gavish_donoho_scale(noise, beta)
    if noise == 0.0:
        return y.copy()
    with np.errstate(over="ignore"):
        t = y / sigma
    above = t >= 1.0 + math.sqrt(c)
    huge = (
        t > 1e50
    )  # (t^2 - c - 1)^2 would overflow: use the factored form y sqrt((1 - a^2/t^2)(1 - b^2/t^2))
    safe = np.where(above & ~huge, t, 2.0 + math.sqrt(c))
    eta = np.sqrt(np.maximum((safe * safe - c - 1.0) ** 2 - 4.0 * c, 0.0)) / safe
    inv = np.where(huge, 1.0 / np.where(huge, t, 1.0), 0.0)
    far = y * np.sqrt((1.0 - ((1.0 + math.sqrt(c)) * inv) ** 2) * (1.0 - ((1.0 - math.sqrt(c)) * inv) ** 2))
    return np.where(huge, far, np.where(above, sigma * eta, 0.0))


@declare(Y=MATRIX)
def optimal_singular_value_shrinkage(Y, noise: float) -> np.ndarray:
    """Apply the Gavish-Donoho shrinker :func:`optimal_shrinkage_singular_values` to a scaled observation.

    Parameters
    ----------
    Y : array_like (d, L)
        Observation divided by ``(dL)^{1/4}``.
    noise : float
        Noise variance ``>= 0`` per entry on the unit scale.

    Returns
    -------
    numpy.ndarray (d, L)
        ``U diag(eta(y)) V^T`` for ``Y = U diag(y) V^T``.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    It needs the noise level but not the rank; optimal among singular-value shrinkers for a signal of fixed
    rank [2]_, beaten by the RIE at extensive rank. Measure its error with :func:`rectangular_error`.

    References
    ----------
    .. [1] Chapter 2, Sec. "Why extensive rank is different".
    .. [2] M. Gavish, D. L. Donoho, arXiv:1405.7511 (2017).
    """
    U, sv, Vt = np.linalg.svd(Y, full_matrices=False)
    return (U * optimal_shrinkage_singular_values(sv, noise, Y.shape[1] / Y.shape[0])) @ Vt


@declare(theta=STRENGTHS, noise=real(0.0, low_open=True), beta=ASPECT)
def optimal_shrinkage_spike_error(theta, noise: float, beta: float) -> np.ndarray:
    """Asymptotic ``||S_hat - S||_F^2`` that one spike contributes under the Gavish-Donoho shrinker.

    Parameters
    ----------
    theta : float or array_like (k,)
        Singular values ``>= 0`` of the spikes (scaled matrices).
    noise : float
        Noise variance ``> 0`` per entry on the unit scale.
    beta : float
        Aspect ratio ``L/d`` (``beta < 1`` is read as ``1/beta``).

    Returns
    -------
    numpy.ndarray
        The error of each spike.

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    With ``x = theta/sigma`` (``sigma``, ``c`` as in :func:`optimal_shrinkage_singular_values`): above the
    detection threshold ``x > c^{1/4}`` the cosines of the singular vectors obey
    ``c1^2 = (x^4 - c)/(x^4 + c x^2)``, ``c2^2 = (x^4 - c)/(x^4 + x^2)`` [2]_, the shrinker outputs
    ``sigma x c1 c2`` and the error is ``sigma^2 x^2 (1 - c1^2 c2^2)``, evaluated without cancellation as
    ``sigma^2 [(1 + c) + 3 c u - c^2 u^3]/((1 + c u)(1 + u))`` with ``u = 1/x^2``; below it the spike is lost
    and the error is ``theta^2``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Why extensive rank is different" (``eq-rmt-bbp``).
    .. [2] F. Benaych-Georges, R. R. Nadakuditi, J. Multivariate Anal. 111:120 (2012); M. Gavish,
       D. L. Donoho, arXiv:1405.7511 (2017).
    """
    sigma, c = _gavish_donoho_scale(noise, beta)
    with np.errstate(over="ignore"):
        x = theta / sigma
        x2 = x * x
    detected = x2 > math.sqrt(c)
    u = 1.0 / np.where(detected, x2, 1.0)
    kept = sigma**2 * ((1.0 + c) + 3.0 * c * u - c**2 * u**3) / ((1.0 + c * u) * (1.0 + u))
    lost = np.where(detected, 0.0, theta)
    return np.where(detected, kept, lost * lost)


def _pair(estimate, signal, *, square: bool) -> np.ndarray:
    """``estimate - signal`` after checking two finite, non-empty 2-d arrays of the same shape (no
    broadcasting: a vector against a matrix is an error, not a number)."""
    est, sig = estimate, signal
    if est.shape != sig.shape:
        raise InvalidParameterError(
            f"estimate and signal must have the same shape, got {est.shape} and {sig.shape}"
        )
    if square and est.shape[0] != est.shape[1]:
        raise InvalidParameterError(f"estimate and signal must be square (d x d), got shape {est.shape}")
    return est - sig


def _finite_error(value: float) -> float:
    if not math.isfinite(value):
        raise OverflowError("the squared error overflows (entries of estimate - signal above ~1e154)")
    return value


@declare(estimate=MATRIX, signal=MATRIX)
def symmetric_error(estimate, signal) -> float:
    """Per-entry error ``(1/d)||S_hat - S||_F^2`` of the symmetric problem.

    Parameters
    ----------
    estimate : array_like (d, d)
        The estimate.
    signal : array_like (d, d)
        The signal.

    Returns
    -------
    float
        ``(1/d) sum_ij (S_hat - S)_ij^2``.

    Raises
    ------
    ValueError
        For arrays that are not finite, square and of the same shape.
    OverflowError
        If the squared error overflows.

    Notes
    -----
    The normalisation of :func:`~solvable.rie.symmetric_rie_mmse`: ``(1/d)||S_hat - S||_F^2``.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising
    >>> S = denoising.sample_wishart(200, 0.5, rng=0)
    >>> Y = S + np.sqrt(0.5) * denoising.sample_goe(200, rng=1)
    >>> print(f"{denoising.symmetric_error(Y, S):.2f}", denoising.symmetric_error(S, S))  # S_hat = Y: ~noise
    0.49 0.0
    """
    diff = _pair(estimate, signal, square=True)
    return _finite_error(float(np.sum(diff * diff) / diff.shape[0]))


@declare(estimate=MATRIX, signal=MATRIX)
def rectangular_error(estimate, signal) -> float:
    """Per-entry error of the rectangular problem, ``||S_hat - S||_F^2/sqrt(dL)`` on the scaled matrices.

    Parameters
    ----------
    estimate : array_like (d, L)
        The estimate (scaled by ``(dL)^{-1/4}``).
    signal : array_like (d, L)
        The signal (same scale).

    Returns
    -------
    float
        ``||S_hat - S||_F^2/sqrt(dL)`` (``(1/(dL))||.||^2`` on the unit scale).

    Raises
    ------
    ValueError
        For arrays that are not finite, 2-d and of the same shape.
    OverflowError
        If the squared error overflows.

    Notes
    -----
    The normalisation of :func:`~solvable.rie.rectangular_rie_mmse`.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values".
    """
    diff = _pair(estimate, signal, square=False)
    return _finite_error(float(np.sum(diff * diff) / math.sqrt(diff.shape[0] * diff.shape[1])))


@record
class DenoisingErrors:
    """Errors of the RIE and of the baselines on ONE draw of a denoising problem.

    Parameters
    ----------
    rie : float
        Error of the RIE.
    identity : float
        Error of ``S_hat = Y``.
    scalar_shrinkage : float
        Error of :func:`scalar_shrinkage`.
    truncation : float
        Error of the rank truncation (:func:`eigenvalue_truncation` or :func:`truncated_svd`).
    optimal_shrinkage : float, optional
        Error of the Gavish-Donoho shrinker (:func:`optimal_singular_value_shrinkage`), measured on the
        rectangular problem only (``nan`` for the symmetric one).

    Notes
    -----
    Per entry, in the normalisation of :func:`symmetric_error` or :func:`rectangular_error`.

    References
    ----------
    .. [1] Chapter 2, Sec. "The rotationally invariant estimator".
    """

    rie: float
    identity: float
    scalar_shrinkage: float
    truncation: float
    optimal_shrinkage: float = math.nan


# --------------------------------------------------------------------------- samplers


@declare(variance=VARIANCE)
def sample_goe(d: int, variance: float = 1.0, *, rng) -> np.ndarray:
    """GOE matrix of variance ``varsigma``: symmetric, N(0, varsigma/d) off the diagonal, N(0, 2 varsigma/d) on it.

    Parameters
    ----------
    d : int
        Dimension (``>= 1``).
    variance : float, optional
        Spectral variance ``v > 0``.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required).

    Returns
    -------
    numpy.ndarray (d, d)
        ``sqrt(v/(2d)) (A + A^T)`` with ``A`` i.i.d. N(0, 1).

    Raises
    ------
    ValueError
        For a malformed argument (named), or a matrix beyond the size limit.
    TypeError
        For a wrong type (e.g. ``rng``).

    Notes
    -----
    Its spectrum tends to the semicircle of variance ``varsigma``,
    ``nu(x) = sqrt(4 varsigma - x^2)/(2 pi varsigma)``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws" (``eq-rmt-semicircle``).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising
    >>> Z = denoising.sample_goe(200, rng=0)
    >>> lam = np.linalg.eigvalsh(Z)  # semicircle of variance 1: second moment 1, edge at 2
    >>> print(Z.shape, np.allclose(Z, Z.T), f"{np.mean(lam**2):.2f} {lam.max():.2f}")
    (200, 200) True 1.01 2.01
    """
    v = variance
    check_size("the GOE matrix (d, d)", 3, d, d)  # A, A + A^T and the scaled result
    A = rng.standard_normal((d, d))
    return math.sqrt(v / (2.0 * d)) * (A + A.T)


@declare(normalisation=choice(*NORMALISATIONS))
def sample_wishart(d: int, kappa: float, normalisation: str = "paper", *, rng) -> np.ndarray:
    """Wishart matrix ``W^T W/sqrt(m d)`` (paper) or ``W^T W/m`` (mean-one), ``W`` in ``R^{m x d}`` i.i.d. N(0, 1).

    Parameters
    ----------
    d : int
        Dimension (``>= 1``).
    kappa : float
        Rank ratio ``m/d > 0``, ``m = round(kappa d) >= 1``.
    normalisation : {"paper", "mean_one"}, optional
        The normalisation.
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required).

    Returns
    -------
    numpy.ndarray (d, d)
        The Wishart matrix.

    Raises
    ------
    ValueError
        For a malformed argument (named), ``kappa d`` rounding to 0, or matrices beyond the size limit.
    TypeError
        For a wrong type (e.g. ``rng``).

    Notes
    -----
    ``S = W^T W/sqrt(m d)``: spectral mean ``sqrt(kappa)``, second moment ``1 + kappa``; its spectrum is
    Marchenko-Pastur.

    References
    ----------
    .. [1] Chapter 2, Sec. "Three spectral laws" (``eq-rmt-wishart``, ``eq-rmt-marchenko-pastur``).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising
    >>> d, kappa = 200, 0.5
    >>> S = denoising.sample_wishart(d, kappa, rng=0)
    >>> # rank m = 100; spectral mean sqrt(kappa) = 0.71 and second moment 1 + kappa = 1.5, up to finite size
    >>> print(np.linalg.matrix_rank(S), f"{np.trace(S) / d:.2f} {np.trace(S @ S) / d:.2f}")
    100 0.70 1.47
    """
    m = round(kappa * d)
    if m < 1:
        raise InvalidParameterError(
            f"kappa * d must round to at least 1 (m = kappa d), got kappa={kappa!r}, d={d}"
        )
    check_size("the Wishart factor W and the matrix (m = kappa d, d)", m + 2 * d, d)
    W = rng.standard_normal((m, d))
    return W.T @ W / (math.sqrt(m * d) if normalisation == "paper" else m)


@declare(L=integer(1, size=True), r=integer(1))
def sample_rectangular_signal(d: int, L: int, r: int, *, rng) -> np.ndarray:
    """Scaled rectangular signal ``S = U V^T/(sqrt(r) (dL)^{1/4})``, ``U``, ``V`` i.i.d. N(0, 1).

    Parameters
    ----------
    d, L : int
        Dimensions (``>= 1``).
    r : int
        Rank (``>= 1``).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required). Draw order: ``U`` (d, r), then ``V`` (L, r).

    Returns
    -------
    numpy.ndarray (d, L)
        The signal, with singular values of order 1 (multiply by ``(dL)^{1/4}`` for unit-variance entries).

    Raises
    ------
    ValueError
        For a malformed argument (named), or arrays beyond the size limit.
    TypeError
        For a wrong type (e.g. ``rng``).

    Notes
    -----
    ``S = U V^T/(sqrt(r) (dL)^{1/4})`` with ``U`` in ``R^{d x r}``, ``V`` in ``R^{L x r}``.

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values" (``eq-rmt-rectangular-model``).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising
    >>> d, L, r = 100, 150, 50
    >>> S = denoising.sample_rectangular_signal(d, L, r, rng=0)
    >>> print(S.shape, np.linalg.matrix_rank(S), f"{np.sum(S**2) / np.sqrt(d * L):.2f}")  # rank r, variance 1
    (100, 150) 50 0.99
    """
    check_size("the factors U, V and the signal (d, L, r)", d * r + L * r + 2 * d * L)
    U = rng.standard_normal((d, r))
    V = rng.standard_normal((L, r))
    return U @ V.T / (math.sqrt(r) * (d * L) ** 0.25)


@declare(L=integer(1, size=True))
def sample_rectangular_noise(d: int, L: int, *, rng) -> np.ndarray:
    """Scaled rectangular noise ``Z/(dL)^{1/4}``, ``Z`` i.i.d. N(0, 1) (``d x L``).

    Parameters
    ----------
    d, L : int
        Dimensions (``>= 1``).
    rng : numpy.random.Generator, int, SeedSequence or BitGenerator
        Source of randomness (keyword-only, required).

    Returns
    -------
    numpy.ndarray (d, L)
        The noise, so that ``Y = S + sqrt(noise) * sample_rectangular_noise(d, L, rng=rng)``.

    Raises
    ------
    ValueError
        For a malformed argument (named), or an array beyond the size limit.
    TypeError
        For a wrong type (e.g. ``rng``).

    Notes
    -----
    Entries N(0, 1/sqrt(dL)).

    References
    ----------
    .. [1] Chapter 2, Sec. "Rectangular matrices: singular values".

    Examples
    --------
    >>> import numpy as np
    >>> from solvable import denoising
    >>> d, L = 100, 150
    >>> Z = denoising.sample_rectangular_noise(d, L, rng=1)
    >>> print(Z.shape, f"{np.sum(Z**2) / np.sqrt(d * L):.2f}")  # variance 1 per entry on the unit scale
    (100, 150) 0.99
    """
    check_size("the noise (d, L)", 2, d, L)
    return rng.standard_normal((d, L)) / (d * L) ** 0.25

"""Errors of an estimator, from its overlaps with the teacher or from the vectors themselves.

For a teacher ``w*`` with ``rho = E w*_i^2`` and an estimator ``w_hat`` with ``m = w_hat . w*/d`` and
``Q = |w_hat|^2/d``, the probability that ``sign(w_hat . x)`` and ``sign(w* . x)`` disagree on a fresh
Gaussian input is ``arccos(m / sqrt(rho Q)) / pi`` (Chapter 1, eq. ``eq-bayes-error``).

Arguments are checked (``ValueError`` naming the parameter): ``rho`` and ``Q`` finite and ``> 0``, the overlaps
finite and inside their ranges (``0 <= q <= rho``, ``|m| <= sqrt(rho Q)`` up to round-off), the vectors finite,
non-empty and of one shape.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import InvalidParameterError
from .validation import check_finite, check_in_range, check_positive

__all__ = ["classification_error", "angle_error", "bayes_classification_error", "gibbs_classification_error"]

#: Relative round-off tolerated on the Cauchy-Schwarz bound ``|m| <= sqrt(rho Q)`` (clipped within it).
_CS_ROUNDOFF = 1e-9


def classification_error(m: float, Q: float, rho: float = 1.0) -> float:
    r"""Classification error ``arccos(m / sqrt(rho Q)) / pi`` of an estimator with overlaps ``(m, Q)``.

    Parameters
    ----------
    m : float
        Teacher-student overlap ``w_hat . w*/d``.
    Q : float
        Squared norm ``|w_hat|^2/d > 0``.
    rho : float, optional
        Teacher's second moment ``> 0``.

    Returns
    -------
    float
        The probability in ``[0, 1]`` that ``sign(w_hat . x)`` and ``sign(w* . x)`` disagree on a Gaussian input.

    Raises
    ------
    ValueError
        For an argument outside its domain, or ``|m| > sqrt(rho Q)`` beyond a relative round-off of 1e-9.

    Notes
    -----
    The two preactivations are jointly Gaussian with correlation ``m/sqrt(rho Q)``; they differ in sign with probability
    ``arccos(m/sqrt(rho Q))/pi`` (Chapter 1, eq. ``eq-bayes-error``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Engel and Van den Broeck (2001), Ch. 2.
    """
    m = check_finite("m", m)
    Q = check_positive("Q", Q)
    rho = check_positive("rho", rho)
    cos = m / math.sqrt(rho * Q)
    if abs(cos) > 1.0 + _CS_ROUNDOFF:
        raise InvalidParameterError(f"m must satisfy |m| <= sqrt(rho Q) (Cauchy-Schwarz), got m = {m!r}, Q = {Q!r}, rho = {rho!r}")
    return float(np.arccos(min(max(cos, -1.0), 1.0)) / np.pi)


def _check_overlap(q, rho) -> tuple[float, float]:
    rho = check_positive("rho", rho)
    q = check_in_range("q", q, 0.0, rho)
    return q, rho


def bayes_classification_error(q: float, rho: float = 1.0) -> float:
    r"""Bayes-optimal classification error ``arccos(sqrt(q / rho)) / pi``.

    Parameters
    ----------
    q : float
        Overlap in ``[0, rho]``.
    rho : float, optional
        Teacher's second moment ``> 0``.

    Returns
    -------
    float
        The error in ``[0, 1/2]``.

    Raises
    ------
    ValueError
        For an argument outside its domain.

    Notes
    -----
    The posterior mean has ``m = Q = q`` (Nishimori identity), so :func:`classification_error` gives
    ``arccos(sqrt(q/rho))/pi`` (Chapter 1, eq. ``eq-bayes-error``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'.
    """
    q, rho = _check_overlap(q, rho)
    return float(np.arccos(math.sqrt(min(q / rho, 1.0))) / np.pi)


def gibbs_classification_error(q: float, rho: float = 1.0) -> float:
    r"""Gibbs error ``arccos(q / rho) / pi`` of one random sample of the posterior.

    Parameters
    ----------
    q : float
        Overlap in ``[0, rho]``.
    rho : float, optional
        Teacher's second moment ``> 0``.

    Returns
    -------
    float
        The error in ``[0, 1/2]``.

    Raises
    ------
    ValueError
        For an argument outside its domain.

    Notes
    -----
    A posterior sample has overlap ``q`` with the teacher and norm ``rho`` (Chapter 1, eq. ``eq-gibbs-bayes-ratio``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution'; Engel and Van den Broeck (2001), Ch. 2.
    """
    q, rho = _check_overlap(q, rho)
    return float(np.arccos(min(q / rho, 1.0)) / np.pi)


def angle_error(w_hat, w_star) -> float:
    r"""Finite-size classification error from the sample angle, ``arccos(cos(w_hat, w*)) / pi``.

    Parameters
    ----------
    w_hat : array_like
        The estimate.
    w_star : array_like
        The teacher, non-zero, of the same shape.

    Returns
    -------
    float
        The angle over ``pi``, in ``[0, 1]``; 0.5 for ``w_hat = 0`` (a random guess). It does not depend on the scales
        of the two vectors (each is divided by its largest entry first).

    Raises
    ------
    ValueError
        For empty, non-finite or differently shaped vectors, or a zero teacher (no angle).

    Notes
    -----
    ``arccos(w_hat . w* / (|w_hat| |w*|)) / pi`` is the exact test error of ``sign(x . w_hat)`` on fresh Gaussian inputs;
    at finite ``d`` it is the quantity to compare with theory (it uses the sample norms, not ``rho``).

    References
    ----------
    Chapter 1, Sec. 'The algorithm: GAMP follows state evolution'.
    """
    try:
        w_hat = np.asarray(w_hat, dtype=float)
        w_star = np.asarray(w_star, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError("w_hat and w_star must be arrays of real numbers") from None
    if w_hat.shape != w_star.shape:
        raise InvalidParameterError(f"w_hat and w_star must have the same shape, got {w_hat.shape} and {w_star.shape}")
    if w_hat.size == 0:
        raise InvalidParameterError("w_hat and w_star must be non-empty")
    if not (np.all(np.isfinite(w_hat)) and np.all(np.isfinite(w_star))):
        raise InvalidParameterError("w_hat and w_star must contain finite numbers only")
    # the angle does not depend on the scales: divide each vector by its largest entry first, so that neither the
    # norms nor the dot product overflow (1e200 times a vector) or underflow (1e-200 times one)
    scale_star = float(np.max(np.abs(w_star)))
    if scale_star == 0.0:
        raise InvalidParameterError("w_star must be non-zero (a zero teacher has no angle)")
    scale_hat = float(np.max(np.abs(w_hat)))
    if scale_hat == 0.0:
        return 0.5
    a, b = w_hat.ravel() / scale_hat, w_star.ravel() / scale_star
    cos = float(np.dot(a, b)) / (float(np.linalg.norm(a)) * float(np.linalg.norm(b)))
    return float(np.arccos(min(max(cos, -1.0), 1.0)) / np.pi)

"""Errors of an estimator, from its overlaps with the teacher or from the vectors themselves.

For a teacher ``w*`` with ``rho = E w*_i^2`` and an estimator ``w_hat`` with ``m = w_hat . w*/d`` and
``Q = |w_hat|^2/d``, the probability that ``sign(w_hat . x)`` and ``sign(w* . x)`` disagree on a fresh
Gaussian input is ``arccos(m / sqrt(rho Q)) / pi`` (``science/perceptron.md``, Sec. 4).

Arguments are checked (``ValueError`` naming the parameter): ``rho`` and ``Q`` finite and ``> 0``, the overlaps
finite and inside their ranges (``0 <= q <= rho``, ``|m| <= sqrt(rho Q)`` up to round-off), the vectors finite,
non-empty and of one shape.
"""

from __future__ import annotations

import math

import numpy as np

from .validation import check_finite, check_in_range, check_positive

__all__ = ["classification_error", "angle_error", "bayes_classification_error", "gibbs_classification_error"]

#: Relative round-off tolerated on the Cauchy-Schwarz bound ``|m| <= sqrt(rho Q)`` (clipped within it).
_CS_ROUNDOFF = 1e-9


def classification_error(m: float, Q: float, rho: float = 1.0) -> float:
    """``eps = arccos(m / sqrt(rho Q)) / pi`` for an estimator with overlaps ``(m, Q)``.

    ``|m| <= sqrt(rho Q)`` (Cauchy-Schwarz) must hold up to a relative round-off of 1e-9.
    """
    m = check_finite("m", m)
    Q = check_positive("Q", Q)
    rho = check_positive("rho", rho)
    cos = m / math.sqrt(rho * Q)
    if abs(cos) > 1.0 + _CS_ROUNDOFF:
        raise ValueError(f"m must satisfy |m| <= sqrt(rho Q) (Cauchy-Schwarz), got m = {m!r}, Q = {Q!r}, rho = {rho!r}")
    return float(np.arccos(min(max(cos, -1.0), 1.0)) / np.pi)


def _check_overlap(q, rho) -> tuple[float, float]:
    rho = check_positive("rho", rho)
    q = check_in_range("q", q, 0.0, rho)
    return q, rho


def bayes_classification_error(q: float, rho: float = 1.0) -> float:
    """Bayes-optimal error ``arccos(sqrt(q / rho)) / pi`` (the posterior mean has ``m = Q = q``);
    ``0 <= q <= rho``, ``rho > 0``."""
    q, rho = _check_overlap(q, rho)
    return float(np.arccos(math.sqrt(min(q / rho, 1.0))) / np.pi)


def gibbs_classification_error(q: float, rho: float = 1.0) -> float:
    """Gibbs error ``arccos(q / rho) / pi`` of one random sample of the posterior; ``0 <= q <= rho``, ``rho > 0``."""
    q, rho = _check_overlap(q, rho)
    return float(np.arccos(min(q / rho, 1.0)) / np.pi)


def angle_error(w_hat, w_star) -> float:
    """Finite-size classification error from the sample angle, ``arccos(cos(w_hat, w*)) / pi``.

    At finite ``d`` this is the right quantity to compare with theory (it uses the sample norms,
    not ``rho``). Returns 0.5 for ``w_hat = 0`` (a random guess); a zero teacher has no angle and raises, as do
    empty, non-finite or differently shaped vectors.
    """
    try:
        w_hat = np.asarray(w_hat, dtype=float)
        w_star = np.asarray(w_star, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("w_hat and w_star must be arrays of real numbers") from None
    if w_hat.shape != w_star.shape:
        raise ValueError(f"w_hat and w_star must have the same shape, got {w_hat.shape} and {w_star.shape}")
    if w_hat.size == 0:
        raise ValueError("w_hat and w_star must be non-empty")
    if not (np.all(np.isfinite(w_hat)) and np.all(np.isfinite(w_star))):
        raise ValueError("w_hat and w_star must contain finite numbers only")
    norm_star = np.linalg.norm(w_star)
    if norm_star == 0.0:
        raise ValueError("w_star must be non-zero (a zero teacher has no angle)")
    norm = np.linalg.norm(w_hat) * norm_star
    if norm == 0.0:
        return 0.5
    return float(np.arccos(np.clip(np.dot(w_hat.ravel(), w_star.ravel()) / norm, -1.0, 1.0)) / np.pi)

"""Errors of an estimator, from its overlaps with the teacher or from the vectors themselves.

For a teacher ``w*`` with ``rho = E w*_i^2`` and an estimator ``w_hat`` with ``m = w_hat . w*/d`` and
``Q = |w_hat|^2/d``, the probability that ``sign(w_hat . x)`` and ``sign(w* . x)`` disagree on a fresh
Gaussian input is ``arccos(m / sqrt(rho Q)) / pi`` (``science/perceptron.md``, Sec. 4).
"""

from __future__ import annotations

import numpy as np

from .validation import check_nonnegative, check_positive

__all__ = ["classification_error", "angle_error", "bayes_classification_error", "gibbs_classification_error"]


def classification_error(m: float, Q: float, rho: float = 1.0) -> float:
    """``eps = arccos(m / sqrt(rho Q)) / pi`` for an estimator with overlaps ``(m, Q)``."""
    Q = check_positive("Q", Q)
    rho = check_positive("rho", rho)
    return float(np.arccos(np.clip(m / np.sqrt(rho * Q), -1.0, 1.0)) / np.pi)


def bayes_classification_error(q: float, rho: float = 1.0) -> float:
    """Bayes-optimal error ``arccos(sqrt(q / rho)) / pi`` (the posterior mean has ``m = Q = q``)."""
    q = check_nonnegative("q", q)
    return float(np.arccos(np.sqrt(np.clip(q / rho, 0.0, 1.0))) / np.pi)


def gibbs_classification_error(q: float, rho: float = 1.0) -> float:
    """Gibbs error ``arccos(q / rho) / pi`` of one random sample of the posterior."""
    q = check_nonnegative("q", q)
    return float(np.arccos(np.clip(q / rho, -1.0, 1.0)) / np.pi)


def angle_error(w_hat, w_star) -> float:
    """Finite-size classification error from the sample angle, ``arccos(cos(w_hat, w*)) / pi``.

    At finite ``d`` this is the right quantity to compare with theory (it uses the sample norms,
    not ``rho``). Returns 0.5 for ``w_hat = 0`` (a random guess).
    """
    w_hat = np.asarray(w_hat, dtype=float)
    w_star = np.asarray(w_star, dtype=float)
    if w_hat.shape != w_star.shape:
        raise ValueError(f"w_hat and w_star must have the same shape, got {w_hat.shape} and {w_star.shape}")
    norm = np.linalg.norm(w_hat) * np.linalg.norm(w_star)
    if norm == 0.0:
        return 0.5
    return float(np.arccos(np.clip(np.dot(w_hat.ravel(), w_star.ravel()) / norm, -1.0, 1.0)) / np.pi)

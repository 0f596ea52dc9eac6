"""Linear regression on Gaussian designs: the ridge estimator and the Bayes error of a Gaussian signal.

Two pieces that several models share (a model module never imports another one, so they live here):

- :func:`fit_ridge`, the ridge estimator on a dense design (the perceptron's ridge ERM; the linear-regression
  baseline of bilinear sequence regression, on the flattened ``d L`` design);
- :func:`gaussian_linear_mse`, the Bayes-optimal weight error of a Gaussian signal seen through ``n = alpha d``
  noisy Gaussian linear measurements, which is also the error of optimally regularised ridge regression
  (``science/perceptron.md``, Sec. 2; ``science/bsr.md``, Sec. 5).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from .validation import check_design, check_nonnegative, check_positive

__all__ = ["fit_ridge", "gaussian_linear_mse"]


def fit_ridge(X, y, lam: float) -> np.ndarray:
    """Ridge estimator ``argmin_w (1/2) sum_mu (y_mu - x_mu . w/sqrt(d))^2 + (lam/2) |w|^2``.

    With ``F = X / sqrt(d)``: ``w = (F^T F + lam I_d)^{-1} F^T y = F^T (F F^T + lam I_n)^{-1} y``; the
    smaller of the two positive-definite systems (``d x d`` or ``n x n``) is solved by Cholesky.

    Parameters
    ----------
    X : array (n, d)
        Inputs (rows ``x_mu``, unnormalised).
    y : array (n,)
        Targets (any real numbers).
    lam : float
        Penalty ``> 0``.
    """
    X, y = check_design(X, y, binary=False)
    lam = check_positive("lam", lam)
    n, d = X.shape
    F = X / math.sqrt(d)
    if d <= n:
        return linalg.solve(F.T @ F + lam * np.eye(d), F.T @ y, assume_a="pos")
    return F.T @ linalg.solve(F @ F.T + lam * np.eye(n), y, assume_a="pos")


def gaussian_linear_mse(alpha: float, delta: float) -> float:
    """Bayes-optimal weight MMSE of a standard Gaussian signal from ``n = alpha d`` measurements
    ``y = x . w/sqrt(d) + sqrt(delta) xi`` with Gaussian ``x`` (``d -> inf``):

        mmse = [-(delta + alpha - 1) + sqrt((delta + alpha - 1)^2 + 4 delta)]/2,      max(0, 1 - alpha) at delta = 0

    (the fixed point ``mmse = 1/(1 + alpha/(delta + mmse))``; ``science/perceptron.md``, Sec. 2). Written without
    cancellation for large ``alpha``: for ``b = delta + alpha - 1 > 0`` it is ``2 delta/(b + sqrt(b^2 + 4 delta))``.
    In ``[0, 1]``, 1 at ``alpha = 0``, decreasing in ``alpha``.

    Parameters
    ----------
    alpha : float >= 0
        ``n/d`` (finite).
    delta : float >= 0
        Noise variance (finite).
    """
    alpha = check_nonnegative("alpha", alpha)
    delta = check_nonnegative("delta", delta)
    if delta == 0 or alpha == 0:
        return max(0.0, 1.0 - alpha)
    b = delta + alpha - 1.0
    root = math.hypot(b, 2.0 * math.sqrt(delta))  # sqrt(b^2 + 4 delta) without overflow (delta up to 1e308)
    value = 2.0 * delta / (b + root) if b > 0 else 0.5 * (root - b)
    return min(max(value, 0.0), 1.0)

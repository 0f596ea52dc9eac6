"""Linear regression on Gaussian designs: the ridge estimator and the Bayes error of a Gaussian signal.

Two pieces that several models share (a model module never imports another one, so they live here):

- :func:`fit_ridge`, the ridge estimator on a dense design (the perceptron's ridge ERM; the linear-regression
  baseline of bilinear sequence regression, on the flattened ``d L`` design);
- :func:`gaussian_linear_mse`, the Bayes-optimal weight error of a Gaussian signal seen through ``n = alpha d``
  noisy Gaussian linear measurements, which is also the error of optimally regularised ridge regression
  (Chapter 1, eq. ``eq-channel-linear``; Chapter 3, the linear-regression baseline).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from .domains import array, declare, real
from .errors import InvalidParameterError

__all__ = ["fit_ridge", "gaussian_linear_mse"]

#: A penalty: a finite number > 0.
LAM = real(0.0, low_open=True)


def _check_rows(X: np.ndarray, y: np.ndarray) -> None:
    """One target per row of the design (the domains of ``X`` and ``y`` are declared; their shapes must agree)."""
    if y.shape != (X.shape[0],):
        raise InvalidParameterError(
            f"y must be a 1-d array with one target per row of X ({X.shape[0]}), got shape {y.shape}"
        )


@declare(X=array(2), y=array(1), lam=LAM)
def fit_ridge(X, y, lam: float) -> np.ndarray:
    r"""Ridge estimator ``argmin_w (1/2) sum_mu (y_mu - x_mu . w/sqrt(d))^2 + (lam/2) |w|^2``.

    Parameters
    ----------
    X : array_like
        Inputs ``(n, d)`` (rows ``x_mu``, unnormalised).
    y : array_like
        Targets ``(n,)`` (any real numbers).
    lam : float
        Penalty ``> 0``.

    Returns
    -------
    numpy.ndarray
        The weights ``(d,)``; zero for all-zero ``X`` or ``y``.

    Raises
    ------
    ValueError
        For malformed data or penalty (named), or if the estimator overflows double precision (``y`` too large for the
        scale of ``X``).

    Notes
    -----
    With ``F = X / sqrt(d)``: ``w = (F^T F + lam I_d)^{-1} F^T y = F^T (F F^T + lam I_n)^{-1} y``; the smaller of the two
    positive-definite systems is solved by Cholesky, after dividing ``X`` and ``y`` by their largest entries
    (``w(X, y, lam) = (s_y/s_x) w(X/s_x, y/s_y, lam/s_x^2)``), so that no product overflows or underflows. Where the
    system is numerically singular (a rank-deficient ``X`` with ``lam`` far below its scale) the SVD gives
    ``w = sum_i v_i s_i (u_i . y)/(s_i^2 + lam)``, the minimum-norm least-squares solution in the limit ``lam -> 0``.

    References
    ----------
    Chapter 1, Sec. 'Empirical risk minimisation' (exercise ``ex-perceptron-ridge``); Hoerl and Kennard,
    Technometrics 12:55 (1970).

    Examples
    --------
    >>> import numpy as np
    >>> from solvable.regression import fit_ridge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 50))
    >>> w = rng.standard_normal(50)
    >>> w_hat = fit_ridge(X, X @ w / np.sqrt(50), lam=1e-8)
    >>> print(w_hat.shape, bool(np.allclose(w_hat, w, atol=1e-6)))
    (50,) True
    """
    _check_rows(X, y)
    n, d = X.shape
    sx = float(np.max(np.abs(X)))
    sy = float(np.max(np.abs(y)))
    if sx == 0.0 or sy == 0.0:
        return np.zeros(d)
    # w(X, y, lam) = (sy/sx) w(X/sx, y/sy, lam/sx^2): solve at scale 1, so that F^T F neither overflows nor
    # underflows; lam/sx^2 may underflow to 0 (then the minimum-norm least-squares solution, its limit)
    F = X / (sx * math.sqrt(d))
    yn = y / sy
    with np.errstate(over="ignore", under="ignore"):
        lam_n = lam / sx / sx
    w = None
    if lam_n > 0.0 and math.isfinite(lam_n):
        try:
            if d <= n:
                w = linalg.solve(F.T @ F + lam_n * np.eye(d), F.T @ yn, assume_a="pos")
            else:
                w = F.T @ linalg.solve(F @ F.T + lam_n * np.eye(n), yn, assume_a="pos")
        except (linalg.LinAlgError, ValueError):
            w = None  # numerically singular (rank-deficient X with lam far below its scale): use the SVD
    if w is None or not np.all(np.isfinite(w)):
        U, sv, Vt = linalg.svd(F, full_matrices=False)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            filt = np.where(sv > sv[0] * max(n, d) * np.finfo(float).eps, sv / (sv * sv + lam_n), 0.0)
        w = Vt.T @ (filt * (U.T @ yn))
    with np.errstate(over="ignore"):
        w = w * (sy / sx)
    if not np.all(np.isfinite(w)):
        raise ValueError(
            f"the ridge estimator overflows double precision: y (largest entry {sy:.3g}) is too large "
            f"for the scale of X (largest entry {sx:.3g}) at lam = {lam:.3g}"
        )
    return w


@declare()
def gaussian_linear_mse(alpha: float, delta: float) -> float:
    r"""Bayes-optimal weight MMSE of a standard Gaussian signal seen through noisy Gaussian linear measurements.

    Parameters
    ----------
    alpha : float
        ``n/d >= 0`` (finite).
    delta : float
        Noise variance ``>= 0`` (finite).

    Returns
    -------
    float
        The MMSE in ``[0, 1]``: 1 at ``alpha = 0``, decreasing in ``alpha``, ``max(0, 1 - alpha)`` at ``delta = 0``.

    Raises
    ------
    ValueError
        For ``alpha`` or ``delta`` negative or not finite.

    Notes
    -----
    For ``y = x . w/sqrt(d) + sqrt(delta) xi`` with Gaussian ``x`` (``d -> inf``), the state-evolution fixed point
    ``mmse = 1/(1 + alpha/(delta + mmse))`` gives

    .. math:: \mathrm{mmse} = \tfrac12\left[-(\Delta + \alpha - 1) + \sqrt{(\Delta + \alpha - 1)^2 + 4\Delta}\right],

    written as ``2 delta/(b + sqrt(b^2 + 4 delta))`` for ``b = delta + alpha - 1 > 0`` (no cancellation at large
    ``alpha``). It is also the error of optimally regularised ridge regression (``lam = delta``).

    References
    ----------
    Chapter 1, Sec. 'The replica free entropy and state evolution' (exercise ``ex-perceptron-linear``); Barbier et al.,
    arXiv:1708.03395.
    """
    if delta == 0 or alpha == 0:
        return max(0.0, 1.0 - alpha)
    b = delta + alpha - 1.0
    root = math.hypot(b, 2.0 * math.sqrt(delta))  # sqrt(b^2 + 4 delta) without overflow (delta up to 1e308)
    value = 2.0 * delta / (b + root) if b > 0 else 0.5 * (root - b)
    return min(max(value, 0.0), 1.0)

"""Convex geometry of exact recovery: the statistical dimension of descent cones.

A convex program ``min f(S)`` subject to ``n`` generic linear measurements of ``S*`` recovers ``S*`` exactly when
``n`` exceeds the **statistical dimension** ``delta(D(f, S*))`` of the descent cone of ``f`` at ``S*``, and fails
below it; the transition is sharp (Amelunxen, Lotz, McCoy, Tropp, arXiv:1303.6672, Theorem II). The statistical
dimension is computed from the subdifferential (ibid., Proposition 4.1; Chandrasekaran, Recht, Parrilo, Willsky,
arXiv:1012.0621, for the Gaussian width)::

    delta(D(f, S*)) = inf_{tau >= 0} E dist^2(G, tau df(S*)),      G a standard Gaussian of the ambient space,

which is tight up to O(1/sqrt(dimension)) of the ambient dimension. The two regularisers of the course:

- the nuclear norm at a rank-``r`` ``d x L`` matrix (Chapter 3's minimum-nuclear-norm estimator);
- the trace on the PSD cone (``Tr S`` plus the indicator of ``S >= 0``) at a rank-``k`` PSD ``d x d`` matrix
  (Chapter 4's nuclear-norm ERM in its interpolating limit ``lambda -> 0+``).

In both the subdifferential is a fixed part on the tangent space plus a unit ball (an operator-norm ball, a
half-space of eigenvalues) on the orthogonal block, whose Gaussian is a Marchenko-Pastur (a semicircle) random
matrix as the dimensions grow: the limits below are one-dimensional minimisations of an integral over that law.
"""

from __future__ import annotations

import math

from scipy import integrate, optimize

from .validation import check_in_range, check_positive

__all__ = ["nuclear_norm_statistical_dimension", "psd_trace_statistical_dimension"]

_QUAD = dict(epsabs=1e-13, epsrel=1e-12, limit=200)


def _minimise(objective, upper: float) -> float:
    """min over t in [0, upper] of a convex function of t (bounded Brent, to 1e-12 in t)."""
    res = optimize.minimize_scalar(objective, bounds=(0.0, upper), method="bounded", options={"xatol": 1e-12})
    return float(min(res.fun, objective(0.0), objective(upper)))


def nuclear_norm_statistical_dimension(beta: float, rho: float) -> float:
    """Statistical dimension of the descent cone of the nuclear norm at a rank-``r`` ``d x L`` matrix, over ``dL``.

    Parameters
    ----------
    beta : float
        Aspect ratio ``L/d > 0`` or ``math.inf`` (``beta < 1`` is read as ``1/beta``: the value is symmetric under
        transposition).
    rho : float
        Rank ratio ``r/min(d, L)`` in ``[0, 1]``.

    Returns
    -------
    float
        ``lim delta(D(||.||_*, S*))/(dL)`` as ``d, L, r -> inf`` at fixed ratios, in ``[0, 1]``: the number of
        generic linear measurements per entry above which minimising the nuclear norm recovers ``S*`` exactly.

    Raises
    ------
    ValueError
        If ``beta`` is not ``> 0`` or ``rho`` is not in ``[0, 1]``.

    Notes
    -----
    Take ``d <= L``, ``b = d/L``. At ``S* = U Sigma V^T``, ``d||S*||_* = {U V^T + W : U^T W = 0, W V = 0,
    ||W||_op <= 1}``; the squared distance of a Gaussian ``G`` to ``tau`` times this set is the tangent part,
    ``r(d + L - r) + tau^2 r`` on average, plus ``sum_i (sigma_i - tau)_+^2`` over the singular values of the
    ``(d - r) x (L - r)`` Gaussian block. With ``tau = t sqrt(L - r)`` the squared singular values over ``L - r``
    follow Marchenko-Pastur of ratio ``g = b(1 - rho)/(1 - b rho)``, and (as eq-qn-statdim-psd)::

        delta/(dL) = min_t  rho + b rho - b rho^2 + (1 - b rho) [rho t^2 + (1 - rho) E_MP (sqrt(x) - t)_+^2].

    It equals the minimum-nuclear-norm threshold of Donoho, Gavish and Montanari (arXiv:1302.2331), computed by
    :func:`solvable.bsr.nuclear_norm_threshold` from the stationarity condition in ``t``; here ``t`` is found by
    direct minimisation.

    References
    ----------
    Amelunxen, Lotz, McCoy, Tropp, Information and Inference 3:224 (2014), arXiv:1303.6672, Sec. 4.3;
    Chapter 4, Sec. 'Exact recovery by convex programs'.
    """
    beta = check_positive("beta", beta, allow_inf=True)
    rho = check_in_range("rho", rho, 0.0, 1.0)
    b = min(beta, 1.0 / beta)
    if rho == 1.0:
        return 1.0
    if b == 0.0:  # L/d -> inf: the block is a point mass at x = 1, the minimum at t = 1 - rho
        return rho * (2.0 - rho)
    g = b * (1.0 - rho) / (1.0 - b * rho)
    lo, hi = (1.0 - math.sqrt(g)) ** 2, (1.0 + math.sqrt(g)) ** 2

    def mp(x):  # Marchenko-Pastur density of ratio g <= 1
        return math.sqrt(max((hi - x) * (x - lo), 0.0)) / (2.0 * math.pi * g * x)

    def excess(t):  # E (sqrt(x) - t)_+^2, over sigma = sqrt(x) in [sqrt(lo), sqrt(hi)]
        start = max(t, math.sqrt(lo))
        if start >= math.sqrt(hi):
            return 0.0
        return integrate.quad(lambda s: (s - t) ** 2 * mp(s * s) * 2.0 * s, start, math.sqrt(hi), **_QUAD)[0]

    tangent = rho + b * rho - b * rho**2
    return _minimise(lambda t: tangent + (1.0 - b * rho) * (rho * t * t + (1.0 - rho) * excess(t)),
                     math.sqrt(hi))


def psd_trace_statistical_dimension(kappa: float) -> float:
    """Statistical dimension of the descent cone of ``Tr S`` on PSD matrices at a rank-``k`` PSD ``d x d`` matrix.

    Parameters
    ----------
    kappa : float
        Rank ratio ``k/d`` in ``[0, 1]`` (a quadratic network of width ``m = kappa d``, ``kappa <= 1``).

    Returns
    -------
    float
        ``lim delta(D(f, S*))/d^2`` for ``f(S) = Tr S + indicator(S PSD)``, in ``[0, 1/2]`` (the space of symmetric
        matrices has dimension ``d(d+1)/2``): the measurements per ``d^2`` above which the minimum-trace PSD
        interpolator is ``S*``.

    Raises
    ------
    ValueError
        If ``kappa`` is not in ``[0, 1]``.

    Notes
    -----
    At ``S* = U Lambda U^T``, ``df(S*) = {U U^T + W : W supported on U-perp, W <= I}`` (the PSD constraint's
    normal cone turns the operator-norm ball of the nuclear norm into a half-space of eigenvalues). The tangent
    part has dimension ``k d - k(k - 1)/2`` and adds ``tau^2 k``; the orthogonal ``(d - k) x (d - k)`` block of a
    standard Gaussian of the symmetric matrices (GOE, off-diagonal variance 1/2) has, over ``sqrt(d)``, a semicircle
    of radius ``R = sqrt(2(1 - kappa))``, and only eigenvalues above ``tau`` cost (eq-qn-statdim-psd)::

        delta/d^2 = min_t  kappa - kappa^2/2 + kappa t^2 + (1 - kappa) E_sc,R (x - t)_+^2,      tau = t sqrt(d).

    ``kappa = 1``: ``1/2`` (every symmetric matrix is reachable); ``kappa -> 0``: 0.

    References
    ----------
    Amelunxen, Lotz, McCoy, Tropp, arXiv:1303.6672, Proposition 4.1; Chandrasekaran, Recht, Parrilo, Willsky,
    arXiv:1012.0621; Chapter 4, Sec. 'Exact recovery by convex programs'.
    """
    kappa = check_in_range("kappa", kappa, 0.0, 1.0)
    if kappa == 1.0:
        return 0.5
    if kappa == 0.0:
        return 0.0
    R = math.sqrt(2.0 * (1.0 - kappa))

    def semicircle(x):
        return 2.0 / (math.pi * R * R) * math.sqrt(max(R * R - x * x, 0.0))

    def excess(t):  # E (x - t)_+^2 under the semicircle of radius R
        if t >= R:
            return 0.0
        return integrate.quad(lambda x: (x - t) ** 2 * semicircle(x), max(t, -R), R, **_QUAD)[0]

    tangent = kappa - kappa**2 / 2.0
    return _minimise(lambda t: tangent + kappa * t * t + (1.0 - kappa) * excess(t), R)

"""Sensing a Wishart matrix: the Bayes-optimal fixed point and the state evolution of GAMP-RIE.

Quadratic networks (``science/quadratic.md``) and the tied attention-indexed model (``science/attention.md``)
both learn an extensive-rank Wishart matrix ``S* = W^T W/sqrt(m d)`` (``kappa = m/d``, paper normalisation)
from ``n = alpha d^2`` Gaussian linear measurements ``y_mu = Tr(Z_mu S*) + sqrt(delta) xi_mu``; the attention
model's softmax channel is such a measurement at the effective sample ratio ``alpha K`` (``K = T(T+1)/2 - 1``
equations per sample; Troiani et al., arXiv:2506.01582). This module holds what the two models share
(a model module never imports another one): the Bayes-optimal MMSE, the perfect-recovery threshold and the
state evolution of GAMP-RIE, all built on the symmetric RIE's MMSE ``mmse_RIE`` (:mod:`solvable.rie`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from .amp import SEResult, check_tol, iterate_fixed_point
from .rie import symmetric_rie_mmse
from .validation import check_in_range, check_int, check_nonnegative, check_positive

__all__ = ["perfect_recovery_threshold", "bayes_optimal_mmse", "state_evolution"]


def perfect_recovery_threshold(kappa: float) -> float:
    """Sample ratio ``alpha = n/d^2`` above which noiseless Bayes-optimal learning is exact.

    ``alpha_PR = kappa - kappa^2/2`` for ``kappa < 1`` and ``1/2`` otherwise: half the fraction of free
    parameters of a d x d PSD matrix of rank ``min(m, d)`` (each sample is one equation on the
    ``d^2/2`` entries of a symmetric matrix; Maillard et al. 2024, arXiv:2408.03733, Sec. 3).
    """
    kappa = check_positive("kappa", kappa)
    return kappa - kappa**2 / 2 if kappa < 1 else 0.5


def _fixed_point_gap(log_qhat: float, alpha: float, kappa: float, delta: float) -> float:
    qhat = math.exp(log_qhat)
    return qhat * symmetric_rie_mmse(1.0 / qhat, kappa) + 0.5 * delta * qhat - 2.0 * alpha


def bayes_optimal_mmse(alpha: float, kappa: float, delta: float = 0.0) -> float:
    """Bayes-optimal MMSE on ``S*`` in the paper normalisation (1 at ``alpha = 0``).

    The replica fixed point of Maillard et al. (2024, arXiv:2408.03733) in normalisation-invariant form
    (``science/quadratic.md``, Sec. 2):

        qhat * mmse_RIE(1/qhat) = 2 alpha - delta qhat / 2,      MMSE = mmse_RIE(1/qhat),

    where ``mmse_RIE(s)`` is the MMSE of denoising ``S*`` observed as ``S* + sqrt(s) Z_GOE``
    (:func:`solvable.rie.symmetric_rie_mmse`). Solved by Brent's method in ``log qhat``. Noiseless and
    ``alpha >= alpha_PR``: 0.
    """
    alpha = check_nonnegative("alpha", alpha)
    kappa = check_positive("kappa", kappa)
    delta = check_nonnegative("delta", delta)
    if alpha == 0:
        return 1.0
    if delta == 0 and alpha >= perfect_recovery_threshold(kappa):
        return 0.0
    lo, hi = -12.0, 9.0
    if delta == 0:
        # qhat mmse(1/qhat) increases to 2 alpha_PR as qhat -> inf; widen the bracket close to alpha_PR.
        while _fixed_point_gap(hi, alpha, kappa, delta) < 0 and hi < 40:
            hi += 4.0
    log_qhat = brentq(_fixed_point_gap, lo, hi, args=(alpha, kappa, delta), xtol=1e-13, rtol=1e-13)
    return float(symmetric_rie_mmse(math.exp(-log_qhat), kappa))


def state_evolution(alpha: float, kappa: float, delta: float = 0.0, *, V0: float | None = None,
                    damping: float = 0.0, tol: float = 1e-10, max_iter: int = 2000,
                    warn: bool = True) -> SEResult:
    """State evolution of GAMP-RIE for Wishart sensing (``science/quadratic.md``, Sec. 2.5):

        s_t = (delta + V_t) / (4 alpha),      V_{t+1} = 2 mmse_RIE(s_t),

    from ``V_0 = 2 (1 + kappa)`` (twice the second moment ``Q0`` of ``S*``) unless given, on the shared driver
    :func:`solvable.amp.iterate_fixed_point` (state ``V``; stops when ``|V_{t+1} - V_t| < tol``). Its fixed point
    is the Bayes-optimal one (``V = 2 MMSE``); GAMP-RIE started far from the teacher follows it.

    ``damping = eta > 0`` iterates ``V_{t+1} = eta V_t + (1 - eta) 2 mmse_RIE(s_t)`` instead: same fixed
    point, approached more slowly (a heuristic guide to the pace of a damped GAMP-RIE, not an exact state
    evolution of the damped algorithm, whose noise acquires a memory). ``history[t] = mmse_RIE(s_{t-1})`` is
    the predicted error of the estimate after ``t`` steps, ``history[0] = V_0 / 2``.

    Returns
    -------
    SEResult
        ``error`` the last ``history`` entry, ``overlap = 1 + kappa - error`` (the overlap ``Tr(S_hat S*)/d``
        of the posterior mean), ``conjugate`` the last ``qhat = 1/s``.
    """
    alpha = check_positive("alpha", alpha)
    kappa = check_positive("kappa", kappa)
    delta = check_nonnegative("delta", delta)
    V0 = 2.0 * (1.0 + kappa) if V0 is None else check_positive("V0", V0)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)

    def update(x):
        s = (delta + float(x[0])) / (4.0 * alpha)
        mmse = symmetric_rie_mmse(s, kappa)
        return np.array([2.0 * mmse]), (mmse, 1.0 / s)

    fp = iterate_fixed_point(update, [V0], damping=damping, tol=tol, max_iter=max_iter, warn=warn,
                             what=f"GAMP-RIE state evolution (alpha = {alpha:g}, kappa = {kappa:g})")
    history = np.concatenate([[V0 / 2.0], fp.observed[:, 0]])
    error = float(history[-1])
    return SEResult(error=error, overlap=1.0 + kappa - error, history=history, iterations=fp.iterations,
                    converged=fp.converged, conjugate=float(fp.observed[-1, 1]))

"""Sensing a Wishart matrix: the Bayes-optimal fixed point and the state evolution of GAMP-RIE.

Quadratic networks (``science/quadratic.md``) and the tied attention-indexed model (``science/attention.md``)
both learn an extensive-rank Wishart matrix ``S* = W^T W/sqrt(m d)`` (``kappa = m/d``, paper normalisation)
from ``n = alpha d^2`` Gaussian linear measurements ``y_mu = Tr(Z_mu S*) + sqrt(delta) xi_mu``; the attention
model's softmax channel is such a measurement at the effective sample ratio ``alpha K`` (``K = T(T+1)/2 - 1``
equations per sample; Troiani et al., arXiv:2506.01582). This module holds what the two models share
(a model module never imports another one): the Bayes-optimal MMSE, the perfect-recovery threshold and the
state evolution of GAMP-RIE, all built on the symmetric RIE's MMSE ``mmse_RIE`` (:mod:`solvable.rie`).

Domain and accuracy. ``alpha >= 0``, ``delta >= 0`` and ``KAPPA_MIN <= kappa <= KAPPA_MAX`` (``1e-3`` to ``1e6``;
outside, the quadrature of :func:`solvable.rie.symmetric_rie_mmse` is not reliable: at ``kappa = 1e-10`` it is off
by 5 % at ``noise = 1e-3``, and ``kappa = 1e300`` overflows). ``mmse_RIE(s)`` is computed as
``s - (4 pi^2/3) s^2 int rho^3``, which cancels catastrophically at large noise (absolute error about
``4e-15 s``: 0.0 instead of 1 at ``s = 1e16``); :func:`solvable.rie.symmetric_rie_mmse` switches to its
large-noise expansion before that. The values returned are accurate to about ``1e-8``
(``1e-10`` for ``kappa >= 0.1``).
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
from scipy.optimize import brentq

from .amp import SEResult, iterate_fixed_point
from .errors import ConvergenceWarning
from .rie import SYMMETRIC_SMALL_NOISE, symmetric_rie_mmse
from .validation import check_in_range, check_int, check_nonnegative, check_positive, check_tol

__all__ = ["KAPPA_MIN", "KAPPA_MAX", "perfect_recovery_threshold", "bayes_optimal_mmse", "state_evolution"]

#: Range of the width ratio ``kappa`` over which the Wishart RIE's MMSE, hence everything in this module, is
#: computed reliably (module docstring).
KAPPA_MIN, KAPPA_MAX = 1e-3, 1e6

# State evolution below alpha_PR stopping at V below this (and far below 2 MMSE) sits next to the unstable V = 0.
_UNSTABLE_V = 1e-9
# The conjugate qhat = 1/s saturates at 1/_SMALLEST_NOISE when s underflows (perfect information).
_SMALLEST_NOISE = sys.float_info.min
# Below 4 alpha/(2 + delta) = _TINY_RATE the Bayes-optimal MMSE is 1 - 4 alpha/(2 + delta) to double precision.
_TINY_RATE = 1e-10


def _check_kappa(kappa) -> float:
    kappa = check_positive("kappa", kappa)
    if not KAPPA_MIN <= kappa <= KAPPA_MAX:
        raise ValueError(f"kappa must be a number in [{KAPPA_MIN:g}, {KAPPA_MAX:g}] (the range where the Wishart RIE's "
                         f"MMSE is computed reliably; solvable.matrix_sensing.KAPPA_MIN/KAPPA_MAX), got {kappa!r}")
    return kappa


def _rie_mmse(s: float, kappa: float) -> float:
    """``mmse_RIE(s)`` of the Wishart signal for every ``s`` in ``[0, inf]`` (:func:`solvable.rie.symmetric_rie_mmse`,
    which uses its large-noise expansion where the quadrature would cancel); ``s = inf`` (no information) gives 1."""
    if math.isinf(s):
        return 1.0
    return min(1.0, symmetric_rie_mmse(s, kappa))


def perfect_recovery_threshold(kappa: float) -> float:
    """Sample ratio ``alpha = n/d^2`` above which noiseless Bayes-optimal learning is exact.

    ``alpha_PR = kappa - kappa^2/2`` for ``kappa < 1`` and ``1/2`` otherwise: half the fraction of free
    parameters of a d x d PSD matrix of rank ``min(m, d)`` (each sample is one equation on the
    ``d^2/2`` entries of a symmetric matrix; Maillard et al. 2024, arXiv:2408.03733, Sec. 3). Any finite
    ``kappa > 0``.
    """
    kappa = check_positive("kappa", kappa)
    return kappa - kappa**2 / 2 if kappa < 1 else 0.5


def _fixed_point_gap(log_qhat: float, alpha: float, kappa: float, delta: float) -> float:
    qhat = math.exp(log_qhat)
    return qhat * _rie_mmse(1.0 / qhat, kappa) + 0.5 * delta * qhat - 2.0 * alpha


def bayes_optimal_mmse(alpha: float, kappa: float, delta: float = 0.0) -> float:
    """Bayes-optimal MMSE on ``S*`` in the paper normalisation (1 at ``alpha = 0``).

    The replica fixed point of Maillard et al. (2024, arXiv:2408.03733) in normalisation-invariant form
    (``science/quadratic.md``, Sec. 2):

        g(qhat) + delta qhat / 2 = 2 alpha,      g(qhat) = qhat * mmse_RIE(1/qhat),      MMSE = mmse_RIE(1/qhat),

    where ``mmse_RIE(s)`` is the MMSE of denoising ``S*`` observed as ``S* + sqrt(s) Z_GOE``
    (:func:`solvable.rie.symmetric_rie_mmse`). ``g`` increases from 0 to ``2 alpha_PR`` (its value for
    ``s = 1/qhat`` below ``rie.SYMMETRIC_SMALL_NOISE``, where ``mmse_RIE(s) = 2 alpha_PR s``) and
    ``g(qhat) <= qhat``, so the root lies in

        alpha/(1 + delta/2)  <  qhat  <  min(4 alpha/delta, 2/SYMMETRIC_SMALL_NOISE)

    whenever ``g + delta qhat/2 - 2 alpha`` is positive at ``2/SYMMETRIC_SMALL_NOISE`` (the bound ``4 alpha/delta``
    taken a relative ``1e-9`` higher, so that rounding cannot hide the sign): Brent's method solves it in
    ``log qhat``, between bounds that hold for every ``alpha``, ``kappa`` and ``delta``. Otherwise
    the root sits where ``g = 2 alpha_PR`` and is explicit: ``qhat = 2 (2 alpha - 2 alpha_PR)/delta``, hence

        MMSE = alpha_PR delta / (2 (alpha - alpha_PR))     (delta > 0, small enough),

    which vanishes continuously as ``delta -> 0``; noiseless and ``alpha >= alpha_PR``: exactly 0. (Noiseless and
    within about ``1e-4`` below ``alpha_PR`` the MMSE rests at ``2 alpha_PR SYMMETRIC_SMALL_NOISE`` (7.5e-6 at
    ``kappa = 0.5``, 1e-5 for ``kappa >= 1``) before it drops to 0: the RIE's MMSE is its linear small-noise limit
    below that noise, so the true decay to 0 is not resolved there.) For
    ``4 alpha/(2 + delta) < 1e-10`` it returns ``1 - 4 alpha/(2 + delta)``, the first order of the fixed point
    in ``alpha`` (``g(qhat) = qhat - qhat^2 + O(qhat^3)``), exact to double precision there.

    Parameters
    ----------
    alpha : float >= 0
        Sample ratio ``n/d^2``.
    kappa : float in [KAPPA_MIN, KAPPA_MAX]
        Width ratio ``m/d``.
    delta : float >= 0
        Label-noise variance.

    Returns
    -------
    float in [0, 1], non-increasing in ``alpha`` and non-decreasing in ``delta`` (to about 1e-8).
    """
    alpha = check_nonnegative("alpha", alpha)
    kappa = _check_kappa(kappa)
    delta = check_nonnegative("delta", delta)
    alpha_pr = perfect_recovery_threshold(kappa)
    if alpha == 0:
        return 1.0
    if delta == 0 and alpha >= alpha_pr:
        return 0.0
    rate = 4.0 * alpha / (2.0 + delta)
    if rate < _TINY_RATE:
        return 1.0 - rate
    args = (alpha, kappa, delta)
    lo = math.log(alpha) - math.log1p(0.5 * delta)
    hi = math.log(2.0 / SYMMETRIC_SMALL_NOISE)
    if _fixed_point_gap(hi, *args) <= 0.0:
        # The root has mmse_RIE(s) = 2 alpha_PR s exactly (s < SYMMETRIC_SMALL_NOISE / 2): explicit.
        if delta == 0:
            return 0.0  # alpha within rounding of alpha_PR
        return float(min(1.0, alpha_pr * delta / (2.0 * (alpha - alpha_pr))))
    if delta > 0:
        # 1e-9 above 4 alpha/delta, so that delta qhat/2 - 2 alpha > 0 survives rounding when g << alpha.
        hi = min(hi, math.log(4.0 * alpha) - math.log(delta) + 1e-9)
    try:
        log_qhat = brentq(_fixed_point_gap, lo, hi, args=args, xtol=1e-13, rtol=1e-13)
    except ValueError as err:  # pragma: no cover - the bracket is proven above; never seen in the tests
        raise ArithmeticError(f"bayes_optimal_mmse: no root in the bracket [{lo}, {hi}] of log qhat at "
                              f"alpha = {alpha!r}, kappa = {kappa!r}, delta = {delta!r} ({err})") from None
    return float(_rie_mmse(math.exp(-log_qhat), kappa))


def state_evolution(alpha: float, kappa: float, delta: float = 0.0, *, V0: float | None = None,
                    damping: float = 0.0, tol: float = 1e-10, max_iter: int = 2000,
                    warn: bool = True) -> SEResult:
    """State evolution of GAMP-RIE for Wishart sensing (``science/quadratic.md``, Sec. 2.5):

        s_t = (delta + V_t) / (4 alpha),      V_{t+1} = 2 mmse_RIE(s_t),

    from ``V_0 = 2 (1 + kappa)`` (twice the second moment ``Q0`` of ``S*``) unless given, on the shared driver
    :func:`solvable.amp.iterate_fixed_point` (state ``V``; stops when ``|V_{t+1} - V_t| < tol``). Its fixed point
    is the Bayes-optimal one (``V = 2 MMSE``, ``1/s = qhat`` of :func:`bayes_optimal_mmse`); GAMP-RIE started far
    from the teacher follows it. ``alpha = 0`` (no measurement) gives ``s = inf`` and the error 1 after one step.
    Near ``alpha_PR`` (noiseless) the recursion slows down critically and may stop at ``max_iter`` with a
    :class:`~solvable.errors.ConvergenceWarning`. Noiseless, ``V = 0`` (perfect recovery) is also a fixed point,
    unstable below ``alpha_PR`` (the recursion's slope there is ``alpha_PR/alpha``): a run from a tiny ``V0`` that
    stops next to it (``V < 1e-9`` while ``2 MMSE`` is ten times larger; also with a tiny ``delta``) is reported
    as not converged, with a warning, instead of as a fixed point.

    ``damping = eta > 0`` iterates ``V_{t+1} = eta V_t + (1 - eta) 2 mmse_RIE(s_t)`` instead: same fixed
    point, approached more slowly (a heuristic guide to the pace of a damped GAMP-RIE, not an exact state
    evolution of the damped algorithm, whose noise acquires a memory). ``history[t] = mmse_RIE(s_{t-1})`` is
    the predicted error of the estimate after ``t`` steps, ``history[0] = V_0 / 2``.

    Parameters
    ----------
    alpha : float >= 0
    kappa : float in [KAPPA_MIN, KAPPA_MAX]
    delta : float >= 0
    V0 : float > 0, optional
        Initial output variance (finite).
    damping : float in [0, 1)
    tol : float in [0, 1)
        ``0`` runs exactly ``max_iter`` steps (no convergence test, no warning).
    max_iter : int >= 1
    warn : bool
        Warn when ``max_iter`` is reached before ``tol``.

    Returns
    -------
    SEResult
        ``error`` the last ``history`` entry (in ``[0, 1]``), ``overlap = 1 + kappa - error`` (the overlap
        ``Tr(S_hat S*)/d`` of the posterior mean), ``conjugate`` the last ``qhat = 1/s``, kept finite: where ``s``
        underflows to 0 (noiseless with ``V`` underflowing, or ``alpha`` near ``1e300``; perfect information) it
        saturates at ``1/sys.float_info.min = 4.5e307``.
    """
    alpha = check_nonnegative("alpha", alpha)
    kappa = _check_kappa(kappa)
    delta = check_nonnegative("delta", delta)
    V0 = 2.0 * (1.0 + kappa) if V0 is None else check_positive("V0", V0)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    tol = check_tol(tol)
    max_iter = check_int("max_iter", max_iter)

    def update(x):
        s = (delta + float(x[0])) / (4.0 * alpha) if alpha > 0 else math.inf
        mmse = _rie_mmse(s, kappa)
        return np.array([2.0 * mmse]), (mmse, 1.0 / max(s, _SMALLEST_NOISE))

    what = f"GAMP-RIE state evolution (alpha = {alpha:g}, kappa = {kappa:g}, delta = {delta:g})"
    fp = iterate_fixed_point(update, [V0], damping=damping, tol=tol, max_iter=max_iter, warn=warn, what=what)
    converged = fp.converged
    if (converged and fp.value < _UNSTABLE_V and alpha < perfect_recovery_threshold(kappa)
            and 2.0 * bayes_optimal_mmse(alpha, kappa, delta) > 10.0 * fp.value):
        # V = 0 is a fixed point of the noiseless recursion, unstable below alpha_PR (slope alpha_PR/alpha > 1),
        # and with a tiny delta the recursion still crawls there: a start next to it moves away by less than the
        # absolute tolerance per step. The stable fixed point, 2 MMSE, lies far above.
        converged = False
        if warn:
            warnings.warn(f"{what} stopped next to the unstable fixed point V = 0 (V = {fp.value:.1e} after "
                          f"{fp.iterations} iterations from V0 = {V0:.1e}): not converged; start from a larger V0",
                          ConvergenceWarning, stacklevel=2)
    history = np.concatenate([[V0 / 2.0], fp.observed[:, 0]])
    error = float(history[-1])
    return SEResult(error=error, overlap=1.0 + kappa - error, history=history, iterations=fp.iterations,
                    converged=converged, conjugate=float(fp.observed[-1, 1]))

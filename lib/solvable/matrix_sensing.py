"""Sensing a Wishart matrix: the Bayes-optimal fixed point and the state evolution of GAMP-RIE.

Quadratic networks (Chapter 4) and the tied attention-indexed model (Chapter 5) both learn an extensive-rank
Wishart matrix ``S* = W^T W/sqrt(m d)`` (``kappa = m/d``, paper normalisation) from ``n = alpha d^2`` Gaussian
linear measurements ``y_mu = Tr(Z_mu S*) + sqrt(delta) xi_mu``; the attention model's softmax channel is such a
measurement at the effective sample ratio ``alpha K`` (``K = T(T+1)/2 - 1`` equations per sample; Troiani et al.,
arXiv:2506.01582). This module holds what the two models share (a model module never imports another one): the
Bayes-optimal MMSE, the perfect-recovery threshold and the state evolution of GAMP-RIE, all built on the symmetric
RIE's MMSE ``mmse_RIE`` (:func:`solvable.rie.symmetric_rie_mmse`, which owns those numerics, for every noise in
``[0, inf]``; Maillard, Troiani, Martin, Krzakala, Zdeborova, arXiv:2408.03733).

Domain and accuracy: ``alpha >= 0``, ``delta >= 0`` and ``KAPPA_MIN <= kappa <= KAPPA_MAX`` (``1e-3`` to ``1e6``;
outside, the quadrature of :func:`solvable.rie.symmetric_rie_mmse` is not reliable). The values returned are
accurate to about ``1e-8`` (``1e-10`` for ``kappa >= 0.1``).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy.optimize import brentq

from .amp import SEResult, iterate_fixed_point
from .domains import declare, optional, real
from .errors import ConvergenceWarning
from .errors import warn as warn_user
from .rie import SYMMETRIC_SMALL_NOISE, symmetric_rie_mmse

__all__ = ["KAPPA_MIN", "KAPPA_MAX", "perfect_recovery_threshold", "bayes_optimal_mmse", "state_evolution"]

#: Range of the width ratio ``kappa`` over which the Wishart RIE's MMSE, hence everything in this module, is
#: computed reliably (module docstring).
KAPPA_MIN, KAPPA_MAX = 1e-3, 1e6

#: The domains of the module's parameters (solvable.domains): the width ratio where the Wishart RIE's MMSE is
#: computed reliably, and a starting output variance.
KAPPA = real(KAPPA_MIN, KAPPA_MAX)
START_VARIANCE = optional(real(0.0, low_open=True), "V_0 = 2 (1 + kappa), GAMP-RIE started from zero")

# State evolution below alpha_PR stopping at V below this (and far below 2 MMSE) sits next to the unstable V = 0.
_UNSTABLE_V = 1e-9
# The conjugate qhat = 1/s saturates at 1/_SMALLEST_NOISE when s underflows (perfect information).
_SMALLEST_NOISE = sys.float_info.min
# Below 4 alpha/(2 + delta) = _TINY_RATE the Bayes-optimal MMSE is 1 - 4 alpha/(2 + delta) to double precision.
_TINY_RATE = 1e-10


@declare()
def perfect_recovery_threshold(kappa: float) -> float:
    """Sample ratio ``alpha = n/d^2`` above which noiseless Bayes-optimal learning is exact.

    Parameters
    ----------
    kappa : float
        Width ratio ``m/d > 0`` (any finite value).

    Returns
    -------
    float
        ``alpha_PR = kappa - kappa^2/2`` for ``kappa < 1`` and ``1/2`` otherwise.

    Raises
    ------
    ValueError
        If ``kappa`` is not a finite number > 0.

    Notes
    -----
    Half the fraction of free parameters of a ``d x d`` PSD matrix of rank ``min(m, d)``: each sample is one
    equation on the ``d^2/2`` entries of a symmetric matrix [2]_.

    References
    ----------
    .. [1] Chapter 4 (quadratic networks), the perfect-recovery threshold.
    .. [2] A. Maillard, E. Troiani, S. Martin, F. Krzakala, L. Zdeborova, arXiv:2408.03733 (2024), Sec. 3.

    Examples
    --------
    >>> from solvable import matrix_sensing
    >>> print([round(matrix_sensing.perfect_recovery_threshold(k), 4) for k in (0.25, 0.5, 1.0)])
    [0.2188, 0.375, 0.5]
    """
    return kappa - kappa**2 / 2 if kappa < 1 else 0.5


def _fixed_point_gap(log_qhat: float, alpha: float, kappa: float, delta: float) -> float:
    qhat = math.exp(log_qhat)
    return qhat * symmetric_rie_mmse(1.0 / qhat, kappa) + 0.5 * delta * qhat - 2.0 * alpha


@declare(kappa=KAPPA)
def bayes_optimal_mmse(alpha: float, kappa: float, delta: float = 0.0) -> float:
    """Bayes-optimal MMSE on ``S*`` in the paper normalisation (1 at ``alpha = 0``).

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/d^2 >= 0``.
    kappa : float
        Width ratio ``m/d`` in ``[KAPPA_MIN, KAPPA_MAX]``.
    delta : float, optional
        Label-noise variance ``>= 0``.

    Returns
    -------
    float
        The MMSE in ``[0, 1]``, non-increasing in ``alpha`` and non-decreasing in ``delta`` (to about 1e-8).

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    The replica fixed point [2]_ in normalisation-invariant form,

    ``g(qhat) + delta qhat/2 = 2 alpha``, ``g(qhat) = qhat mmse_RIE(1/qhat)``, ``MMSE = mmse_RIE(1/qhat)``,

    with ``mmse_RIE`` of :func:`solvable.rie.symmetric_rie_mmse`. ``g`` increases from 0 to ``2 alpha_PR`` and
    ``g(qhat) <= qhat``, so the root lies in ``alpha/(1 + delta/2) < qhat < min(4 alpha/delta,
    2/SYMMETRIC_SMALL_NOISE)``, where Brent's method solves it in ``log qhat``. Where the root sits on the linear
    small-noise part of ``mmse_RIE`` it is explicit: ``MMSE = alpha_PR delta/(2 (alpha - alpha_PR))`` (vanishing
    continuously as ``delta -> 0``); noiseless and ``alpha >= alpha_PR``: exactly 0. For
    ``4 alpha/(2 + delta) < 1e-10`` it returns ``1 - 4 alpha/(2 + delta)``, the first order in ``alpha``.

    References
    ----------
    .. [1] Chapter 4 (quadratic networks), the Bayes-optimal error.
    .. [2] A. Maillard, E. Troiani, S. Martin, F. Krzakala, L. Zdeborova, "Bayes-optimal learning of an
       extensive-width neural network from quadratically many samples", arXiv:2408.03733 (2024).

    Examples
    --------
    >>> from solvable import matrix_sensing
    >>> print([round(matrix_sensing.bayes_optimal_mmse(a, 0.5), 4) for a in (0.1, 0.3, 0.5)])
    [0.7237, 0.1281, 0.0]
    """
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
        raise ArithmeticError(
            f"bayes_optimal_mmse: no root in the bracket [{lo}, {hi}] of log qhat at "
            f"alpha = {alpha!r}, kappa = {kappa!r}, delta = {delta!r} ({err})"
        ) from None
    return float(symmetric_rie_mmse(math.exp(-log_qhat), kappa))


@declare(kappa=KAPPA, start=START_VARIANCE)
def state_evolution(
    alpha: float,
    kappa: float,
    delta: float = 0.0,
    *,
    start: float | None = None,
    damping: float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 2000,
    warn: bool = True,
) -> SEResult:
    """State evolution of GAMP-RIE for Wishart sensing.

    Parameters
    ----------
    alpha : float
        Sample ratio ``n/d^2 >= 0``.
    kappa : float
        Width ratio ``m/d`` in ``[KAPPA_MIN, KAPPA_MAX]``.
    delta : float, optional
        Label-noise variance ``>= 0``.
    start : float, optional
        The starting variance ``V_0 > 0`` of the output (twice the starting MMSE of the matrix estimate; finite).
        ``None``: ``V_0 = 2 (1 + kappa)``, twice the second moment of ``S*`` (GAMP-RIE started from zero).
    damping : float, optional
        In ``[0, 1)``: iterate ``V_{t+1} = eta V_t + (1 - eta) 2 mmse_RIE(s_t)`` (same fixed point, approached
        more slowly; a guide to the pace of a damped GAMP-RIE, not its exact state evolution).
    tol : float, optional
        Stop when ``|V_{t+1} - V_t| < tol``, in ``[0, 1)``; ``0`` runs exactly ``max_iter`` steps (no
        convergence test, no warning).
    max_iter : int, optional
        Cap on the iterations (``>= 1``).
    warn : bool, optional
        Warn (:class:`~solvable.errors.ConvergenceWarning`) when ``max_iter`` is reached before ``tol``, or when
        the run stops next to the unstable fixed point ``V = 0``.

    Returns
    -------
    SEResult
        ``error`` the last ``history`` entry (in ``[0, 1]``), ``history[t] = mmse_RIE(s_{t-1})`` the predicted
        error after ``t`` steps (``history[0] = V_0/2``), ``overlap = 1 + kappa - error`` (the overlap
        ``Tr(S_hat S*)/d`` of the posterior mean), ``conjugate`` the last ``qhat = 1/s`` (saturating at
        ``1/sys.float_info.min`` where ``s`` underflows).

    Raises
    ------
    ValueError
        For a malformed argument (named).

    Notes
    -----
    ``s_t = (delta + V_t)/(4 alpha)``, ``V_{t+1} = 2 mmse_RIE(s_t)`` [2]_, on the shared driver
    :func:`solvable.amp.iterate_fixed_point`. Its fixed point is the Bayes-optimal one (``V = 2 MMSE``,
    ``1/s = qhat`` of :func:`bayes_optimal_mmse`). ``alpha = 0`` gives ``s = inf`` and the error 1 after one
    step. Near ``alpha_PR`` (noiseless) the recursion slows down critically. Noiseless, ``V = 0`` is also a fixed
    point, unstable below ``alpha_PR`` (slope ``alpha_PR/alpha``): a run from a tiny ``start`` that stops next to
    it (``V < 1e-9`` while ``2 MMSE`` is ten times larger) is reported as not converged.

    References
    ----------
    .. [1] Chapter 4 (quadratic networks), GAMP-RIE and its state evolution; Chapter 5 (attention).
    .. [2] A. Maillard et al., arXiv:2408.03733 (2024).

    Examples
    --------
    >>> from solvable import matrix_sensing
    >>> res = matrix_sensing.state_evolution(0.2, 0.5)
    >>> print(f"MMSE {res.error:.4f}, converged {res.converged}")
    MMSE 0.3922, converged True
    """
    V0 = 2.0 * (1.0 + kappa) if start is None else start

    def update(x):
        s = (delta + float(x[0])) / (4.0 * alpha) if alpha > 0 else math.inf
        mmse = symmetric_rie_mmse(s, kappa)
        return np.array([2.0 * mmse]), (mmse, 1.0 / max(s, _SMALLEST_NOISE))

    what = f"GAMP-RIE state evolution (alpha = {alpha:g}, kappa = {kappa:g}, delta = {delta:g})"
    fp = iterate_fixed_point(update, [V0], damping=damping, tol=tol, max_iter=max_iter, warn=warn, what=what)
    converged, message = fp.converged, fp.message
    if (
        converged
        and fp.value < _UNSTABLE_V
        and alpha < perfect_recovery_threshold(kappa)
        and 2.0 * bayes_optimal_mmse(alpha, kappa, delta) > 10.0 * fp.value
    ):
        # V = 0 is a fixed point of the noiseless recursion, unstable below alpha_PR (slope alpha_PR/alpha > 1),
        # and with a tiny delta the recursion still crawls there: a start next to it moves away by less than the
        # absolute tolerance per step. The stable fixed point, 2 MMSE, lies far above.
        converged = False
        message = (
            f"{what} stopped next to the unstable fixed point V = 0 (V = {fp.value:.1e} after "
            f"{fp.iterations} iterations from start = {V0:.1e}): not converged; start from a larger value"
        )
        if warn:
            warn_user(message, ConvergenceWarning)
    history = np.concatenate([[V0 / 2.0], fp.observed[:, 0]])
    error = float(history[-1])
    return SEResult(
        error=error,
        overlap=1.0 + kappa - error,
        history=history,
        iterations=fp.iterations,
        converged=converged,
        message=message,
        conjugate=float(fp.observed[-1, 1]),
    )

"""The teacher-student perceptron / generalised linear model (GLM).

Model (``science/perceptron.md``, Sec. 1): a teacher ``w* in R^d`` with i.i.d. entries from a prior
(``gaussian`` N(0, 1) or ``rademacher`` +-1, so ``rho = E w*_i^2 = 1``), inputs ``x_mu ~ N(0, I_d)``,
``mu = 1..n``, ``alpha = n/d``, preactivations ``z_mu = x_mu . w* / sqrt(d)`` and labels through a channel
(``sign``, ``probit`` with noise variance ``delta``, ``linear`` with noise variance ``delta``).

Theory: the replica-symmetric free entropy ``f_RS(q, mhat) = psi_w(mhat) + alpha psi_out(q) - mhat q / 2``
(Barbier, Krzakala, Macris, Miolane, Zdeborova, PNAS 116:5451 (2019), arXiv:1708.03395, Thm. 1) whose
stationary points are the fixed points of state evolution; the Bayes-optimal overlap ``q`` is the
stationary point with the LARGEST free entropy. Algorithm: GAMP (:mod:`solvable.amp`).

Normalisation: ``z ~ N(0, rho)``; BKMMZ call our ``(d, n, w*, X)`` ``(n, m, X, Phi)``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from .amp import DenseLinearMap, GAMPResult, SEResult, iterate_state_evolution, run_gamp
from .channels import LinearChannel, SignChannel, get_channel
from .erm import erm_gen_error
from .errors import ConvergenceWarning, DivergenceError
from .gardner import gardner_capacity
from .integration import phi_log_phi_expectation
from .metrics import angle_error, bayes_classification_error, gibbs_classification_error
from .priors import GaussianPrior, RademacherPrior, get_prior
from .regression import gaussian_linear_mse
from .validation import check_in_range, check_int, check_nonnegative, check_positive, check_rng, check_size

__all__ = [
    "Dataset",
    "sample",
    "state_evolution",
    "se_trajectory",
    "free_entropy",
    "bayes_gen_error",
    "gibbs_gen_error",
    "mutual_information",
    "Thresholds",
    "perfect_learning_thresholds",
    "BranchCurve",
    "branch_curve",
    "gamp",
    "gamp_gen_error",
    "erm_gen_error",
    "gardner_capacity",
]

#: Initial overlap of the uninformed state evolution, matching GAMP started from ``1e-3 N(0, 1)``.
Q0_UNINFORMED = 1e-6
#: Initial distance to 1 of the informed (planted) branch, used for discrete priors.
Q0_INFORMED_GAP = 1e-10


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Dataset:
    """A teacher-student data set: inputs ``X`` (n x d), labels ``y`` (n,), the teacher ``w_star`` (d,),
    and the prior / channel / noise it was drawn with (the Bayes-optimal student knows them).

    Shapes must match and every entry must be finite (``ValueError`` naming the array otherwise).
    """

    X: np.ndarray
    y: np.ndarray
    w_star: np.ndarray
    prior: str = "gaussian"
    channel: str = "sign"
    delta: float = 0.0

    def __post_init__(self):
        X, y, w = np.asarray(self.X), np.asarray(self.y), np.asarray(self.w_star)
        if X.ndim != 2 or y.ndim != 1 or w.ndim != 1:
            raise ValueError(f"X, y, w_star must be 2-d, 1-d, 1-d; got shapes {X.shape}, {y.shape}, {w.shape}")
        if X.shape[0] != y.shape[0] or X.shape[1] != w.shape[0]:
            raise ValueError(
                f"shapes do not match: X is {X.shape}, so y must have {X.shape[0]} entries (got {y.shape[0]}) "
                f"and w_star {X.shape[1]} (got {w.shape[0]})"
            )
        if X.size == 0:
            raise ValueError(f"X must be non-empty, got shape {X.shape}")
        for name, a in (("X", X), ("y", y), ("w_star", w)):
            if not np.issubdtype(a.dtype, np.number) or not np.all(np.isfinite(a)):
                raise ValueError(f"{name} must contain finite numbers only")

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def alpha(self) -> float:
        """Sample ratio ``n / d``."""
        return self.n / self.d


def sample(d: int, alpha: float, prior="gaussian", channel="sign", delta: float = 0.0, *, rng) -> Dataset:
    """Draw a teacher and ``n = round(alpha d)`` labelled samples.

    Draw order (so that a seed reproduces ``reference/perceptron.csv``): ``w* ~ P_w`` (d,),
    ``X ~ N(0, 1)`` (n, d), then the channel noise; ``y = P_out(X w* / sqrt(d))``. A design above
    :data:`solvable.validation.MAX_ELEMENTS` numbers is refused with a ``ValueError`` before anything is drawn.
    """
    d = check_int("d", d)
    alpha = check_positive("alpha", alpha)
    rng = check_rng(rng)
    P, C = get_prior(prior), get_channel(channel, delta)
    n = max(1, int(round(alpha * d)))
    check_size("the design X (n = alpha d, d)", n, d)
    w_star = P.sample(d, rng)
    X = rng.standard_normal((n, d))
    y = C.sample(X @ w_star / np.sqrt(d), rng)
    return Dataset(X=X, y=y, w_star=w_star, prior=P.name, channel=C.name, delta=float(C.delta))


# --------------------------------------------------------------------------- replica theory


def _check_alpha(alpha) -> float:
    return check_nonnegative("alpha", alpha)


def _psi_out(C, q: float, mse: float) -> float:
    """Channel part of the free entropy, ``psi_out`` at overlap ``q`` with ``rho - q = mse`` given separately.

    Same integrals as ``C.psi_out(q, rho)`` (:mod:`solvable.channels`): ``-log(2 pi W)/2 - 1/2`` (linear) and
    ``2 E[Phi(k xi) log Phi(k xi)]``, ``k = sqrt(q / W)`` (sign, probit), with ``W = mse + delta``; but ``mse``
    is not recomputed as ``rho - q`` (which cancels as ``q -> rho``) nor floored at ``1e-14`` (which the
    channel's clip does, and which moved ``alpha psi_out`` by ``alpha 1e-14 / (2 delta)``: +2.6e-4 in the
    mutual information at ``alpha = 500``, ``delta = 1e-8``). Exact limits at ``W = 0``: ``+inf`` (linear),
    0 (sign).
    """
    W = mse + C.delta
    if isinstance(C, LinearChannel):
        return math.inf if W == 0 else -0.5 * math.log(2.0 * math.pi * W) - 0.5
    if W == 0:
        return 0.0
    return 2.0 * float(phi_log_phi_expectation(math.sqrt(q / W))[0])


def _channel_information(C, rho: float, q: float, mse: float) -> float:
    """``E log P_out(y | z) - psi_out(q)`` (>= 0): what the labels tell about ``z`` beyond the estimate.

    Linear: ``log(1 + mse/delta)/2``; sign: ``-2 E[Phi(k xi) log Phi(k xi)]``, ``k = sqrt(q/mse)``; probit:
    ``2 E[Phi(k0 xi) log Phi(k0 xi)] - 2 E[Phi(k xi) log Phi(k xi)]``, ``k0 = sqrt(rho/delta)``,
    ``k = sqrt(q/(mse + delta))``: differences taken in closed form or between two quadratures of the same rule,
    so that ``alpha`` times them has no cancellation at large ``alpha``.
    """
    if mse == 0.0:
        return 0.0
    if isinstance(C, LinearChannel):
        return math.inf if C.delta == 0 else 0.5 * math.log1p(mse / C.delta)
    mean_log_lik = 0.0 if C.delta == 0 else 2.0 * float(phi_log_phi_expectation(math.sqrt(rho / C.delta))[0])
    return mean_log_lik - _psi_out(C, q, mse)


def _f_rs(mhat: float, mse: float, alpha: float, P, C) -> float:
    """``f_RS = psi_w(mhat) - mhat q/2 + alpha psi_out(q)`` with ``q = rho - mse``, written as
    ``[psi_w(mhat) - rho mhat/2] + mhat mse/2 + alpha psi_out`` (:meth:`~solvable.priors.GaussianPrior.psi_reduced`):
    the two terms that grow like ``mhat`` cancel analytically, not in floating point."""
    channel_part = alpha * _psi_out(C, P.rho - mse, mse) if alpha > 0 else 0.0
    return float(P.psi_reduced(mhat) + 0.5 * mhat * mse + channel_part)


def free_entropy(q: float, mhat: float, alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Replica-symmetric free entropy ``f_RS(q, mhat) = psi_w(mhat) + alpha psi_out(q) - mhat q / 2``
    (``science/perceptron.md``, Sec. 3; BKMMZ eq. for ``f_RS``).

    Parameters
    ----------
    q : float in [0, rho]
        Overlap (``q < rho`` for the noiseless linear channel, where ``psi_out`` diverges at ``q = rho``).
    mhat : float >= 0, finite
        Conjugate overlap.
    alpha : float >= 0
    prior, channel, delta : as in :func:`state_evolution`.
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    q = check_in_range("q", q, 0.0, P.rho)
    mhat = check_nonnegative("mhat", mhat)
    alpha = _check_alpha(alpha)
    if isinstance(C, LinearChannel) and C.delta == 0 and q == P.rho and alpha > 0:
        raise ValueError("q must be < rho for the noiseless linear channel (channel='linear', delta=0): "
                         "f_RS diverges at q = rho")
    return _f_rs(mhat, P.rho - q, alpha, P, C)


def _error(q: float, P, C) -> float:
    if isinstance(C, LinearChannel):
        return float(max(P.rho - q, 0.0))
    return bayes_classification_error(q, P.rho)


def _error_history(q, P, C) -> np.ndarray:
    """The predicted error ``rho - q_t`` (linear) or ``arccos(sqrt(q_t/rho))/pi`` (sign-type) of each iterate."""
    q = np.clip(np.asarray(q, dtype=float), 0.0, P.rho)
    if isinstance(C, LinearChannel):
        return P.rho - q
    return np.arccos(np.sqrt(q / P.rho)) / np.pi


def _fixed_point(q: float, alpha: float, P, C, mse: float | None = None) -> tuple[float, float, float]:
    """``(mhat, mse, f_RS)`` at a fixed point ``q``, with the exact limits at perfect recovery.

    ``mhat = alpha se_mhat_factor(q)``, then ``mse = rho - q`` recomputed without cancellation as the prior's
    ``se_mse(mhat)`` (the half step that closes the fixed point); ``mse`` may be given (closed forms).
    """
    if mse is None:
        if q >= P.rho - 1e-12:
            if isinstance(C, SignChannel) and C.delta == 0 and isinstance(P, RademacherPrior):
                # q = 1, mhat = inf: f_RS = -log 2 (science/perceptron.md, Sec. 8)
                return math.inf, 0.0, -math.log(2.0)
            if isinstance(C, LinearChannel) and C.delta == 0:
                return math.inf, 0.0, math.inf  # noiseless continuous observations: f_RS diverges
        mhat = alpha * float(C.se_mhat_factor(q, P.rho))
        mse = float(P.se_mse(mhat))
    else:
        W = mse + C.delta
        if W == 0:
            return math.inf, 0.0, math.inf
        mhat = alpha / W  # the linear channel's se_mhat_factor, 1/(mse + delta), without its floor
        if math.isinf(mhat):  # alpha / W overflows for a subnormal delta: psi_reduced = -log(1 + alpha/W)/2 in logs
            f = -0.5 * (math.log(W + alpha) - math.log(W)) + 0.5 * alpha * mse / W + alpha * _psi_out(C, P.rho - mse, mse)
            return math.inf, mse, f
    return mhat, mse, _f_rs(mhat, mse, alpha, P, C)


def _check_controls(tol, max_iter, damping) -> tuple[float, int, float]:
    """Controls of a state evolution solved to its fixed point: ``tol`` in (0, 1) (``tol = 0`` would never stop
    and ``tol >= 1`` would accept the first step), ``max_iter >= 1``, ``damping`` in [0, 1)."""
    tol = check_in_range("tol", tol, 0.0, 1.0, low_open=True, high_open=True)
    max_iter = check_int("max_iter", max_iter)
    damping = check_in_range("damping", damping, 0.0, 1.0, high_open=True)
    return tol, max_iter, damping


def se_trajectory(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0, *, iterations: int = 60,
                  q0: float = Q0_UNINFORMED) -> np.ndarray:
    """The first ``iterations`` state-evolution overlaps ``q_0 .. q_T`` from ``q_0`` (no convergence test):
    the iteration-by-iteration prediction that GAMP started at overlap ``q_0`` is compared with.

    Returns an array of length ``iterations + 1`` (``q_0`` first); the predicted error of iterate ``t`` is
    ``arccos(sqrt(q_t/rho))/pi`` (sign-type channels) or ``rho - q_t`` (linear), as in
    :attr:`~solvable.amp.SEResult.history` of :func:`state_evolution`.
    """
    alpha = _check_alpha(alpha)
    iterations = check_int("iterations", iterations)
    P, C = get_prior(prior), get_channel(channel, delta)
    q0 = check_in_range("q0", q0, 0.0, P.rho)
    traj = iterate_state_evolution(P, C, alpha, q0, rho=P.rho, tol=0.0, max_iter=iterations, warn=False)
    return traj.states[:, 0].copy()


def state_evolution(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0, *, tol: float = 1e-12,
                    max_iter: int = 20000, damping: float = 0.0) -> SEResult:
    """Bayes-optimal state-evolution fixed point of the GLM.

    Iterates ``mhat_t = alpha E int dy Z_out g_out^2`` and ``q_{t+1} = E f_w^2`` (``science/perceptron.md``,
    Sec. 3) from ``q_0 = 1e-6`` on the engine's driver (:func:`solvable.amp.iterate_state_evolution`); for the
    discrete (Rademacher) prior also from ``q_0 = 1 - 1e-10`` (the informed branch), and keeps the fixed point
    with the larger free entropy. For the Gaussian prior and the linear channel the fixed point is the closed
    form of Sec. 2 (:func:`solvable.regression.gaussian_linear_mse`; the iteration is critically slow at
    ``alpha = 1``, ``delta = 0``); ``history`` still holds the iterates (at most 2000).

    Parameters
    ----------
    alpha : float >= 0
        Sample ratio ``n / d``.
    prior : {"gaussian", "rademacher"}
    channel : {"sign", "probit", "linear"}
    delta : float >= 0
        Label-noise variance (0 for ``sign``, > 0 for ``probit``).
    tol : float in (0, 1)
        Stop when ``|q_{t+1} - q_t| < tol``.
    max_iter : int >= 1
        Iteration cap; reaching it warns (:class:`~solvable.errors.ConvergenceWarning`).
    damping : float in [0, 1)
        ``q <- damping q + (1 - damping) q_new``.

    Returns
    -------
    SEResult
        ``error``: the Bayes-optimal error (:func:`bayes_gen_error`; also ``gen_error``); ``overlap``: ``q``;
        ``conjugate``: ``mhat`` (``inf`` at exact recovery of a binary teacher, or with a noiseless linear
        channel once ``q = rho``); ``free_entropy``: ``f_RS`` there (``-log 2`` at exact recovery through the
        sign channel; ``+inf`` where noiseless linear observations determine the signal, whose density is
        singular); ``history``/``overlap_history``: the predicted error and ``q_t`` of the uninformed
        iteration (GAMP iteration ``t`` <-> ``q_t``); ``branch`` and ``algorithmic_error`` (the fixed point
        reached from ``q_0 ~ 0``, what GAMP attains; larger than ``error`` in the hard phase);
        ``iterations``/``converged`` of the uninformed iteration.
    """
    alpha = _check_alpha(alpha)
    P, C = get_prior(prior), get_channel(channel, delta)
    tol, max_iter, damping = _check_controls(tol, max_iter, damping)
    closed_form = isinstance(P, GaussianPrior) and isinstance(C, LinearChannel)
    with warnings.catch_warnings():
        if closed_form:
            warnings.simplefilter("ignore", ConvergenceWarning)
        low = iterate_state_evolution(P, C, alpha, Q0_UNINFORMED, rho=P.rho, damping=damping, tol=tol,
                                      max_iter=min(max_iter, 2000) if closed_form else max_iter,
                                      warn=not closed_form)
    q_traj = low.states[:, 0]
    if closed_form:
        mse_low = gaussian_linear_mse(alpha, C.delta) * P.rho
        q_low = P.rho - mse_low
        mhat_low, _, f_low = _fixed_point(q_low, alpha, P, C, mse=mse_low)
    else:
        q_low = float(q_traj[-1])
        mhat_low, _, f_low = _fixed_point(q_low, alpha, P, C)
    converged = True if closed_form else low.converged
    best = (q_low, mhat_low, f_low, "uninformed")
    if isinstance(P, RademacherPrior) and alpha > 0:
        high = iterate_state_evolution(P, C, alpha, P.rho - Q0_INFORMED_GAP, rho=P.rho, damping=damping, tol=tol,
                                       max_iter=max_iter)
        q_high = high.value
        mhat_high, _, f_high = _fixed_point(q_high, alpha, P, C)
        if f_high > f_low + 1e-12 and q_high > q_low + 1e-9:
            best = (q_high, mhat_high, f_high, "informed")
    q, mhat, f, branch = best
    return SEResult(
        error=_error(q, P, C), overlap=float(q), history=_error_history(q_traj, P, C), iterations=low.iterations,
        converged=converged, conjugate=float(mhat), free_entropy=float(f), branch=branch,
        algorithmic_error=_error(q_low, P, C), overlap_history=q_traj.copy(),
    )


def bayes_gen_error(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Bayes-optimal error at sample ratio ``alpha``.

    Sign-type channels: classification error ``arccos(sqrt(q))/pi`` of the Bayes-optimal predictor
    (for ``probit``, disagreement with the noiseless teacher ``sign(z)``); 1/2 at ``alpha = 0``. Linear channel:
    weight MMSE ``rho - q`` (add ``delta`` for the test MSE on a noisy label); ``rho`` at ``alpha = 0``.
    ``science/perceptron.md``, Sec. 4.
    """
    return state_evolution(alpha, prior, channel, delta).error


def gibbs_gen_error(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Error ``arccos(q)/pi`` of one random posterior sample (Gibbs learning), sign-type channels."""
    C = get_channel(channel, delta)
    if isinstance(C, LinearChannel):
        raise ValueError("channel must be 'sign' or 'probit' for the Gibbs classification error")
    P = get_prior(prior)
    return gibbs_classification_error(state_evolution(alpha, prior, channel, delta).overlap, P.rho)


#: Round-off allowed on the bounds ``0 <= I <= H(prior)`` of the mutual information before it counts as an error.
_INFO_ROUNDOFF = 1e-10


def mutual_information(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Mutual information per variable ``I(w*; y | X)/d = -f_RS + alpha E log P_out(y | z)``
    (``science/perceptron.md``, Sec. 3).

    Evaluated as ``-[psi_w(mhat) - rho mhat/2] - mhat (rho - q)/2 + alpha [E log P_out - psi_out(q)]`` at the
    Bayes-optimal fixed point, with ``rho - q`` from the prior's ``se_mse`` (:func:`_psi_out`): the terms that grow
    with ``alpha`` cancel in closed form. In ``[0, H(prior)]`` (``H = log 2`` for the binary prior; no upper bound
    for the Gaussian one); 0 at ``alpha = 0``; ``log 2`` at exact recovery of a binary teacher.

    Raises
    ------
    ValueError
        For a Gaussian teacher seen through the noiseless linear channel (``channel="linear"``, ``delta=0``)
        at ``alpha > 0``: noiseless real-valued observations of a continuous signal carry infinite
        information (``I = +inf``; use ``delta > 0``). With a binary teacher the same channel gives ``log 2``.
    DivergenceError
        If the evaluation left ``[0, H(prior)]`` by more than round-off (a bug, not an input error).
    """
    alpha = _check_alpha(alpha)
    P, C = get_prior(prior), get_channel(channel, delta)
    if alpha == 0:
        return 0.0
    if isinstance(C, LinearChannel) and C.delta == 0 and isinstance(P, GaussianPrior):
        raise ValueError("delta must be > 0 for the mutual information of a Gaussian teacher through the linear "
                         "channel: noiseless real-valued observations of a continuous signal carry infinite "
                         "information (I = +inf)")
    res = state_evolution(alpha, prior, channel, delta)
    mhat = res.conjugate
    if math.isinf(mhat):  # exact recovery of a discrete teacher: all of its entropy is learned
        info = P.entropy
    else:
        mse = float(P.se_mse(mhat))
        info = float(-P.psi_reduced(mhat) - 0.5 * mhat * mse + alpha * _channel_information(C, P.rho, P.rho - mse, mse))
    if not (-_INFO_ROUNDOFF <= info <= P.entropy + _INFO_ROUNDOFF):
        raise DivergenceError(f"mutual information {info!r} left [0, H(prior) = {P.entropy}] at alpha = {alpha}, "
                              f"prior {P.name!r}, channel {C.name!r}, delta = {C.delta}")
    return float(min(max(info, 0.0), P.entropy))


# --------------------------------------------------------------------------- first-order transition


class Thresholds(NamedTuple):
    """``alpha_IT`` (information-theoretic: perfect learning becomes optimal) and ``alpha_alg``
    (algorithmic: the uninformed fixed point disappears and GAMP learns perfectly)."""

    alpha_it: float
    alpha_alg: float


@dataclass(frozen=True)
class BranchCurve:
    """Fixed points parametrised by their overlap: ``q`` is a fixed point at ``alpha`` with free entropy
    ``free_entropy``; ``stable`` marks the branch that state evolution from ``q_0 ~ 0`` reaches."""

    q: np.ndarray
    alpha: np.ndarray
    free_entropy: np.ndarray
    stable: np.ndarray


def _branch_alpha(q: float, P, C) -> float:
    # q is a fixed point at alpha iff alpha * se_mhat_factor(q) = mhat*(q), with mhat*(q) the prior's inverse.
    return P.mhat_of_overlap(q) / float(C.se_mhat_factor(q, P.rho))


def _branch_free_entropy(q: float, P, C) -> float:
    mhat = P.mhat_of_overlap(q)
    alpha = mhat / float(C.se_mhat_factor(q, P.rho))
    return float(P.psi(mhat) + alpha * C.psi_out(q, P.rho) - 0.5 * mhat * q)


def _check_transition_model(prior, channel):
    P, C = get_prior(prior), get_channel(channel)
    if not (isinstance(P, RademacherPrior) and isinstance(C, SignChannel) and C.delta == 0):
        raise ValueError(
            "perfect learning at finite alpha needs a discrete prior and a noiseless channel: "
            f"prior must be 'rademacher' and channel 'sign', got prior={prior!r}, channel={channel!r}"
        )
    return P, C


def _spinodal(P, C) -> tuple[float, float]:
    grid = np.linspace(0.02, 0.98, 49)
    alphas = np.array([_branch_alpha(q, P, C) for q in grid])
    i = int(np.argmax(alphas))
    res = minimize_scalar(lambda q: -_branch_alpha(q, P, C), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 48)]),
                          method="bounded", options={"xatol": 1e-10})
    return float(res.x), float(-res.fun)


def perfect_learning_thresholds(prior="rademacher", channel="sign") -> Thresholds:
    """Thresholds of the binary perceptron's first-order transition, ``(alpha_IT, alpha_alg)``.

    Every fixed point ``q`` of state evolution sits on the curve ``alpha(q) = mhat*(q) / se_mhat_factor(q)``
    (``mhat*`` inverts the prior's overlap map). The uninformed branch ends where ``alpha(q)`` has its
    maximum: that maximum is the spinodal ``alpha_alg`` (above it SE from ``q ~ 0`` runs to ``q = 1``).
    ``alpha_IT`` is where that branch's free entropy crosses the informed branch's ``f_RS = -log 2``
    (root in ``q`` below the spinodal). Values 1.2447 and 1.4926 (Gyorgyi, PRA 41:7097 (1990);
    Barbier et al., arXiv:1708.03395). Equivalent to the bisection on SE convergence of
    ``science/perceptron.md``, Sec. 8, without its critical slowing down.
    """
    P, C = _check_transition_model(prior, channel)
    q_sp, alpha_alg = _spinodal(P, C)
    q_it = brentq(lambda q: _branch_free_entropy(q, P, C) + math.log(2.0), 1e-3, q_sp, xtol=1e-13)
    return Thresholds(alpha_it=float(_branch_alpha(q_it, P, C)), alpha_alg=alpha_alg)


def branch_curve(prior="rademacher", channel="sign", delta: float = 0.0, q=None) -> BranchCurve:
    """Fixed points of state evolution as a curve in ``(alpha, f_RS)``, parametrised by ``q``.

    Used to draw the free entropy of the competing branches against ``alpha`` (the uninformed/stable
    part up to the spinodal, then the unstable part). ``q`` defaults to 200 points in ``(0, 0.995)``; given, it
    must be a non-empty 1-d array of overlaps in ``[0, rho)``.
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    if q is None:
        q = np.linspace(0.005, 0.995, 200)
    else:
        try:
            q = np.asarray(q, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"q must be a 1-d array of overlaps in [0, rho), got {q!r}") from None
        if q.ndim != 1 or q.size == 0 or not np.all(np.isfinite(q)) or np.any(q < 0) or np.any(q >= P.rho):
            raise ValueError(f"q must be a non-empty 1-d array of finite overlaps in [0, {P.rho}), got {q!r}")
    alphas = np.array([_branch_alpha(x, P, C) for x in q])
    fs = np.array([_branch_free_entropy(x, P, C) for x in q])
    stable = np.zeros(q.shape, dtype=bool)
    peak = int(np.argmax(alphas))
    stable[: peak + 1] = True
    stable &= np.concatenate([[True], np.diff(alphas) > 0])
    return BranchCurve(q=q, alpha=alphas, free_entropy=fs, stable=stable)


# --------------------------------------------------------------------------- GAMP


def gamp(data: Dataset, prior=None, channel=None, delta=None, *, damping: float = 0.0, tol: float = 1e-8,
         max_iter: int = 100, variance: str = "exact", init_scale: float = 1e-3, rng) -> GAMPResult:
    """Bayes-optimal GAMP on a perceptron data set (``science/perceptron.md``, Sec. 5; Rangan 2011).

    Starts from ``w_0 = init_scale * N(0, 1)`` drawn from ``rng`` (overlap ``q_0 ~ init_scale^2``, the
    start of :func:`se_trajectory`), ``c_0 = rho``, ``g = 0``. ``prior``, ``channel``, ``delta`` default to
    the ones the data were drawn with. ``tol = 0`` runs exactly ``max_iter`` iterations (for a comparison with
    state evolution iteration by iteration). Non-convergence within ``max_iter`` warns
    (:class:`~solvable.errors.ConvergenceWarning`); divergence raises :class:`~solvable.errors.DivergenceError`;
    ``damping``, ``tol``, ``max_iter`` are validated by :func:`solvable.amp.run_gamp`.

    Returns the engine's :class:`~solvable.amp.GAMPResult`: ``history`` is the error against the teacher after
    each iteration (angle error ``arccos(cos(w_hat, w*))/pi`` for sign-type channels, ``|w_hat - w*|^2/d`` for the
    linear channel; ``error`` is its last value, to compare with :attr:`~solvable.amp.SEResult.history` ``[1:]``);
    ``overlap`` and ``norm`` are ``m_t = w_hat.w*/d`` and ``Q_t = |w_hat|^2/d`` (state evolution predicts
    ``m_t ~ Q_t ~ q_t``).
    """
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a solvable.glm.Dataset, got {type(data).__name__}")
    rng = check_rng(rng)
    P = get_prior(data.prior if prior is None else prior)
    C = get_channel(data.channel if channel is None else channel, data.delta if delta is None else delta)
    init_scale = check_nonnegative("init_scale", init_scale)
    w_star = data.w_star
    d = data.d
    w0 = init_scale * rng.standard_normal(d)
    linear = isinstance(C, LinearChannel)

    def monitor(w):
        m, Q = float(w @ w_star) / d, float(w @ w) / d
        err = float(np.mean((w - w_star) ** 2)) if linear else angle_error(w, w_star)
        return err, m, Q

    return run_gamp(DenseLinearMap(data.X, variance=variance), C, P, data.y, w0, np.full(d, P.rho),
                    damping=damping, tol=tol, max_iter=max_iter, monitor=monitor)


def gamp_gen_error(d: int, alpha: float, prior="gaussian", channel="sign", delta: float = 0.0, *, rng,
                   **gamp_kwargs) -> float:
    """One finite-size experiment: draw a teacher and ``n = alpha d`` samples, run :func:`gamp`, return
    its final error (angle error for sign-type channels, weight MSE for the linear channel)."""
    rng = check_rng(rng)
    data = sample(d, alpha, prior, channel, delta, rng=rng)
    return gamp(data, rng=rng, **gamp_kwargs).error

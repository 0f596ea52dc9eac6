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
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from .amp import DenseLinearMap, iterate_state_evolution, run_gamp
from .channels import LinearChannel, SignChannel, get_channel
from .erm import erm_gen_error
from .errors import ConvergenceWarning
from .gardner import gardner_capacity
from .metrics import angle_error, bayes_classification_error, gibbs_classification_error
from .regression import gaussian_linear_mse
from .priors import GaussianPrior, RademacherPrior, get_prior
from .validation import check_int, check_nonnegative, check_positive, check_rng

__all__ = [
    "Dataset",
    "sample",
    "SEResult",
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
    "GAMPResult",
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
    and the prior / channel / noise it was drawn with (the Bayes-optimal student knows them)."""

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
    ``X ~ N(0, 1)`` (n, d), then the channel noise; ``y = P_out(X w* / sqrt(d))``.
    """
    d = check_int("d", d)
    alpha = check_positive("alpha", alpha)
    rng = check_rng(rng)
    P, C = get_prior(prior), get_channel(channel, delta)
    n = max(1, int(round(alpha * d)))
    w_star = P.sample(d, rng)
    X = rng.standard_normal((n, d))
    y = C.sample(X @ w_star / np.sqrt(d), rng)
    return Dataset(X=X, y=y, w_star=w_star, prior=P.name, channel=C.name, delta=float(C.delta))


# --------------------------------------------------------------------------- replica theory


def free_entropy(q: float, mhat: float, alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Replica-symmetric free entropy ``f_RS(q, mhat) = psi_w(mhat) + alpha psi_out(q) - mhat q / 2``
    (``science/perceptron.md``, Sec. 3; BKMMZ eq. for ``f_RS``)."""
    P, C = get_prior(prior), get_channel(channel, delta)
    return float(P.psi(mhat) + alpha * C.psi_out(q, P.rho) - 0.5 * mhat * q)


def _error(q: float, P, C) -> float:
    if isinstance(C, LinearChannel):
        return float(max(P.rho - q, 0.0))
    return bayes_classification_error(q, P.rho)


@dataclass(frozen=True)
class SEResult:
    """Bayes-optimal fixed point of state evolution.

    Attributes
    ----------
    overlap : q at the Bayes-optimal fixed point (largest free entropy).
    gen_error : ``arccos(sqrt(q))/pi`` (sign, probit) or weight MMSE ``rho - q`` (linear).
    free_entropy : ``f_RS`` at that fixed point.
    mhat : conjugate overlap there.
    converged, iterations : of the uninformed iteration (the one GAMP follows).
    history : ``q_t`` of the uninformed iteration from ``q_0 = 1e-6`` (GAMP iteration ``t`` <-> ``q_t``).
    branch : ``"uninformed"`` or ``"informed"``: which initialisation reached the optimal fixed point.
    algorithmic_overlap, algorithmic_gen_error : fixed point reached from ``q_0 ~ 0`` (what GAMP attains;
        differs from the optimum in the hard phase).
    """

    overlap: float
    gen_error: float
    free_entropy: float
    mhat: float
    converged: bool
    iterations: int
    history: np.ndarray = field(repr=False)
    branch: str = "uninformed"
    algorithmic_overlap: float = float("nan")
    algorithmic_gen_error: float = float("nan")


def _check_alpha(alpha) -> float:
    return check_nonnegative("alpha", alpha)


def _fixed_point_free_entropy(q: float, alpha: float, P, C) -> tuple[float, float]:
    """(mhat, f_RS) at a fixed point q, with the exact limits at perfect recovery."""
    if q >= P.rho - 1e-12:
        if isinstance(C, SignChannel) and C.delta == 0 and isinstance(P, RademacherPrior):
            return math.inf, -math.log(2.0)  # q = 1, mhat = inf: f_RS = -log 2 (science/perceptron.md, Sec. 8)
        if isinstance(C, LinearChannel) and C.delta == 0:
            return math.inf, math.inf  # noiseless continuous observations: f_RS diverges
    mhat = alpha * float(C.se_mhat_factor(q, P.rho))
    return mhat, float(P.psi(mhat) + alpha * C.psi_out(q, P.rho) - 0.5 * mhat * q)


def se_trajectory(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0, *, iterations: int = 60,
                  q0: float = Q0_UNINFORMED) -> np.ndarray:
    """The first ``iterations`` state-evolution overlaps ``q_0 .. q_T`` from ``q_0`` (no convergence test):
    the iteration-by-iteration prediction that GAMP started at overlap ``q_0`` is compared with."""
    alpha = _check_alpha(alpha)
    iterations = check_int("iterations", iterations)
    P, C = get_prior(prior), get_channel(channel, delta)
    traj = iterate_state_evolution(P, C, alpha, q0, rho=P.rho, tol=1e-300, max_iter=iterations, warn=False)
    q = traj.q
    if q.size < iterations + 1:  # reached an exact fixed point: pad
        q = np.concatenate([q, np.full(iterations + 1 - q.size, q[-1])])
    return q


def state_evolution(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0, *, tol: float = 1e-12,
                    max_iter: int = 20000) -> SEResult:
    """Bayes-optimal state-evolution fixed point of the GLM.

    Iterates ``mhat_t = alpha E int dy Z_out g_out^2`` and ``q_{t+1} = E f_w^2`` (``science/perceptron.md``,
    Sec. 3) from ``q_0 = 1e-6``; for the discrete (Rademacher) prior also from ``q_0 = 1 - 1e-10`` (the
    informed branch), and keeps the fixed point with the larger free entropy. For the Gaussian prior and the
    linear channel the fixed point is the closed form of Sec. 2 (the iteration is critically slow at
    ``alpha = 1``, ``delta = 0``); ``history`` still holds the iterates.

    Parameters
    ----------
    alpha : float >= 0
        Sample ratio ``n / d``.
    prior : {"gaussian", "rademacher"}
    channel : {"sign", "probit", "linear"}
    delta : float >= 0
        Label-noise variance (0 for ``sign``, > 0 for ``probit``).
    """
    alpha = _check_alpha(alpha)
    P, C = get_prior(prior), get_channel(channel, delta)
    closed_form = isinstance(P, GaussianPrior) and isinstance(C, LinearChannel)
    with warnings.catch_warnings():
        if closed_form:
            warnings.simplefilter("ignore", ConvergenceWarning)
        low = iterate_state_evolution(P, C, alpha, Q0_UNINFORMED, rho=P.rho, tol=tol,
                                      max_iter=2000 if closed_form else max_iter, warn=not closed_form)
    q_low = P.rho - gaussian_linear_mse(alpha, C.delta) if closed_form else low.overlap
    converged = True if closed_form else low.converged
    mhat_low, f_low = _fixed_point_free_entropy(q_low, alpha, P, C)
    best = (q_low, mhat_low, f_low, "uninformed")
    if isinstance(P, RademacherPrior) and alpha > 0:
        high = iterate_state_evolution(P, C, alpha, P.rho - Q0_INFORMED_GAP, rho=P.rho, tol=tol, max_iter=max_iter)
        mhat_high, f_high = _fixed_point_free_entropy(high.overlap, alpha, P, C)
        if f_high > f_low + 1e-12 and high.overlap > q_low + 1e-9:
            best = (high.overlap, mhat_high, f_high, "informed")
    q, mhat, f, branch = best
    return SEResult(
        overlap=float(q), gen_error=_error(q, P, C), free_entropy=float(f), mhat=float(mhat),
        converged=converged, iterations=low.iterations, history=low.q, branch=branch,
        algorithmic_overlap=float(q_low), algorithmic_gen_error=_error(q_low, P, C),
    )


def bayes_gen_error(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Bayes-optimal error at sample ratio ``alpha``.

    Sign-type channels: classification error ``arccos(sqrt(q))/pi`` of the Bayes-optimal predictor
    (for ``probit``, disagreement with the noiseless teacher ``sign(z)``). Linear channel: weight MMSE
    ``rho - q`` (add ``delta`` for the test MSE on a noisy label). ``science/perceptron.md``, Sec. 4.
    """
    return state_evolution(alpha, prior, channel, delta).gen_error


def gibbs_gen_error(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Error ``arccos(q)/pi`` of one random posterior sample (Gibbs learning), sign-type channels."""
    C = get_channel(channel, delta)
    if isinstance(C, LinearChannel):
        raise ValueError("channel must be 'sign' or 'probit' for the Gibbs classification error")
    return gibbs_classification_error(state_evolution(alpha, prior, channel, delta).overlap)


def mutual_information(alpha: float, prior="gaussian", channel="sign", delta: float = 0.0) -> float:
    """Mutual information per variable ``I(w*; y | X)/d = -f_RS + alpha E log P_out(y | z)``
    (``science/perceptron.md``, Sec. 3)."""
    res = state_evolution(alpha, prior, channel, delta)
    P, C = get_prior(prior), get_channel(channel, delta)
    return float(-res.free_entropy + alpha * C.mean_log_likelihood(P.rho))


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
    part up to the spinodal, then the unstable part). ``q`` defaults to 200 points in ``(0, 0.995)``.
    """
    P, C = get_prior(prior), get_channel(channel, delta)
    q = np.linspace(0.005, 0.995, 200) if q is None else np.asarray(q, dtype=float)
    alphas = np.array([_branch_alpha(x, P, C) for x in q])
    fs = np.array([_branch_free_entropy(x, P, C) for x in q])
    stable = np.zeros(q.shape, dtype=bool)
    peak = int(np.argmax(alphas))
    stable[: peak + 1] = True
    stable &= np.concatenate([[True], np.diff(alphas) > 0])
    return BranchCurve(q=q, alpha=alphas, free_entropy=fs, stable=stable)


# --------------------------------------------------------------------------- GAMP


@dataclass(frozen=True)
class GAMPResult:
    """Outcome of :func:`gamp`.

    ``history`` is the error against the teacher after each iteration (angle error
    ``arccos(cos(w_hat, w*))/pi`` for sign-type channels, ``|w_hat - w*|^2/d`` for the linear channel);
    ``overlap`` and ``norm`` are ``m_t = w_hat.w*/d`` and ``Q_t = |w_hat|^2/d`` (state evolution predicts
    ``m_t ~ Q_t ~ q_t``).
    """

    estimate: np.ndarray = field(repr=False)
    history: np.ndarray
    overlap: np.ndarray
    norm: np.ndarray
    iterations: int
    converged: bool

    @property
    def gen_error(self) -> float:
        """Last entry of ``history``."""
        return float(self.history[-1])


def gamp(data: Dataset, prior=None, channel=None, delta=None, *, damping: float = 0.0, tol: float = 1e-8,
         max_iter: int = 100, variance: str = "exact", init_scale: float = 1e-3, rng) -> GAMPResult:
    """Bayes-optimal GAMP on a perceptron data set (``science/perceptron.md``, Sec. 5; Rangan 2011).

    Starts from ``w_0 = init_scale * N(0, 1)`` drawn from ``rng`` (overlap ``q_0 ~ init_scale^2``, the
    start of :func:`se_trajectory`), ``c_0 = rho``, ``g = 0``. ``prior``, ``channel``, ``delta`` default to
    the ones the data were drawn with. ``tol = 0`` runs exactly ``max_iter`` iterations (for a comparison with
    state evolution iteration by iteration). Non-convergence within ``max_iter`` warns
    (:class:`~solvable.errors.ConvergenceWarning`); divergence raises :class:`~solvable.errors.DivergenceError`.
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

    res = run_gamp(DenseLinearMap(data.X, variance=variance), C, P, data.y, w0, np.full(d, P.rho),
                   damping=damping, tol=tol, max_iter=max_iter, monitor=monitor)
    h = res.history
    return GAMPResult(estimate=res.estimate, history=h[:, 0], overlap=h[:, 1], norm=h[:, 2],
                      iterations=res.iterations, converged=res.converged)


def gamp_gen_error(d: int, alpha: float, prior="gaussian", channel="sign", delta: float = 0.0, *, rng,
                   **gamp_kwargs) -> float:
    """One finite-size experiment: draw a teacher and ``n = alpha d`` samples, run :func:`gamp`, return
    its final error (angle error for sign-type channels, weight MSE for the linear channel)."""
    rng = check_rng(rng)
    data = sample(d, alpha, prior, channel, delta, rng=rng)
    return gamp(data, rng=rng, **gamp_kwargs).gen_error
